/* CPU feature detection, done once, for choosing kernels. */
#ifndef AVK_CPU_CPU_H
#define AVK_CPU_CPU_H

typedef struct avki_cpu {
    int is_intel, is_amd, is_hygon;
    unsigned family; /* display family: base + extended */
    unsigned model;
    int bmi2;
    int fast_pdep; /* BMI2 present and PDEP/PEXT not microcoded */
    int avx512;    /* F, BW, VL, VBMI, VBMI2 and CD, and the OS saves ZMM state */
    int avx2;      /* AVX2, and the OS saves YMM state (XCR0 bits 1 and 2) */
    int bmi1, lzcnt, popcnt; /* TZCNT/ANDN, LZCNT (ABM), POPCNT: Haswell and Zen 1 have all three */
} avki_cpu;

/* The features of the running CPU; computed on first call. */
const avki_cpu *avki_cpu_get(void);

/* Pure decision from vendor and family, exposed for tests: whether PDEP is
 * fast. Intel: yes. AMD: only family 0x19 (Zen 3) and later; families
 * 0x15-0x17 (Excavator, Zen 1, Zen 2) run it in microcode, about 250
 * cycles. Hygon (a Zen 1 derivative) and others: no. */
int avki_cpu_pdep_is_fast(int is_intel, int is_amd, unsigned family);

#endif
