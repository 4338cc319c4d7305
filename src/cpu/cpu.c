/* CPUID and XGETBV probing for the kernel choice. */
#include "cpu/cpu.h"

#include <pthread.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define AVK_X86 1
#endif

/* PDEP and PEXT exist on every BMI2 CPU but are microcoded on AMD before
 * Zen 3 (families 0x15-0x17: tens to hundreds of cycles, depending on the
 * mask), where the bmi2 kernel would be slower than scalar code. Hygon
 * (Zen 1 derived) and unknown vendors are refused too: a wrong "no" costs
 * a little speed, a wrong "yes" costs a lot. Pure, so tests cover every
 * vendor and family. */
int avki_cpu_pdep_is_fast(int is_intel, int is_amd, unsigned family)
{
    if (is_intel)
        return 1;
    if (is_amd)
        return family >= 0x19;
    return 0;
}

#ifdef AVK_X86
static unsigned long long read_xcr0(void)
{
    unsigned eax, edx;
    __asm__ volatile("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
    return ((unsigned long long)edx << 32) | eax;
}

/* A feature counts only when the CPU has it and the OS saves its
 * registers: CPUID says what the hardware can do, XCR0 (read by XGETBV,
 * allowed once OSXSAVE is set) what the kernel preserves across context
 * switches. AVX code on a system that does not save the YMM upper halves
 * would see them clobbered by other threads. */
static void probe(avki_cpu *c)
{
    unsigned a = 0, b = 0, cx = 0, d = 0, max_leaf = 0, max_ext = 0;
    int popcnt, lzcnt = 0, bmi1, avx;
    char vendor[13];
    int osxsave, zmm_saved = 0, ymm_saved = 0;

    if (!__get_cpuid(0, &max_leaf, &b, &cx, &d))
        return;
    memcpy(vendor + 0, &b, 4);
    memcpy(vendor + 4, &d, 4);
    memcpy(vendor + 8, &cx, 4);
    vendor[12] = '\0';
    c->is_intel = strcmp(vendor, "GenuineIntel") == 0;
    c->is_amd = strcmp(vendor, "AuthenticAMD") == 0;
    c->is_hygon = strcmp(vendor, "HygonGenuine") == 0;

    /* Family and model as the vendors define them: the extended family is
     * added only when the base family is 0xf, the extended model used for
     * families 6 and 0xf and above (AMD Zen 3 is family 0xf + 0xa = 0x19). */
    __get_cpuid(1, &a, &b, &cx, &d);
    c->family = (a >> 8) & 0xf;
    c->model = (a >> 4) & 0xf;
    if (c->family == 0xf)
        c->family += (a >> 20) & 0xff;
    if (c->family == 0x6 || c->family >= 0xf)
        c->model |= ((a >> 16) & 0xf) << 4;
    osxsave = (cx >> 27) & 1;
    popcnt = (cx >> 23) & 1;
    avx = (cx >> 28) & 1;
    if (osxsave) {
        unsigned long long xcr0 = read_xcr0();
        /* SSE, AVX, opmask, ZMM_Hi256 and Hi16_ZMM state all enabled. */
        zmm_saved = (xcr0 & 0xe6) == 0xe6;
        /* SSE and AVX (YMM upper halves) state enabled. */
        ymm_saved = (xcr0 & 0x6) == 0x6;
    }
    if (max_leaf < 7)
        return;
    max_ext = __get_cpuid_max(0x80000000, NULL);
    if (max_ext >= 0x80000001) {
        unsigned ea, eb, ec, ed;
        __cpuid(0x80000001, ea, eb, ec, ed);
        lzcnt = (ec >> 5) & 1; /* ABM */
    }
    __cpuid_count(7, 0, a, b, cx, d);
    bmi1 = (b >> 3) & 1;
    /* The kernels are compiled with LZCNT, TZCNT (BMI1) and POPCNT beside
     * BMI2: a virtual CPU may hide them, and LZCNT would then run as BSR. */
    c->bmi2 = ((b >> 8) & 1) && bmi1 && lzcnt && popcnt;
    c->bmi1 = bmi1;
    c->lzcnt = lzcnt;
    c->popcnt = popcnt;
    c->avx2 = ymm_saved && avx && ((b >> 5) & 1);
    c->fast_pdep = c->bmi2 && avki_cpu_pdep_is_fast(c->is_intel, c->is_amd, c->family);
    {
        int f = (b >> 16) & 1, cd = (b >> 28) & 1, bw = (b >> 30) & 1, vl = (b >> 31) & 1;
        int vbmi = (cx >> 1) & 1, vbmi2 = (cx >> 6) & 1;
        c->avx512 = zmm_saved && f && cd && bw && vl && vbmi && vbmi2;
    }
}
#else
static void probe(avki_cpu *c)
{
    (void)c;
}
#endif

/* Probed once per process; the features do not change while it runs. */
static avki_cpu cpu;
static pthread_once_t cpu_once = PTHREAD_ONCE_INIT;

static void cpu_init(void)
{
    memset(&cpu, 0, sizeof cpu);
    probe(&cpu);
}

const avki_cpu *avki_cpu_get(void)
{
    pthread_once(&cpu_once, cpu_init);
    return &cpu;
}
