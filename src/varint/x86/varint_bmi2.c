/* BMI2 bulk varint kernel: PEXT gathers the 7-bit groups, PDEP spreads them. */
#include <immintrin.h>

#include "varint/kernels.h"
#include "varint/varint_word.h"

#define AVKI_KTARGET __attribute__((target("bmi,bmi2,lzcnt")))

/* The single-value rule with PDEP: values below 2^14 (1-2 bytes) as the
 * inline encoder, longer ones with no branch on their length: PDEP spreads
 * the low 56 bits into the low 7 bits of each byte, the inline encoder's
 * tables give the length and continuation bits. */
AVKI_KTARGET static inline size_t bmi2_encode_one(uint8_t *p, uint64_t u)
{
    uint8_t *start = p;
    if (AVK_LIKELY(u < 0x4000)) /* 1-2 bytes: no branch between the two */
        return avk_varint_encode_u64(p, u);
    AVKI_ENCODE_BRANCHFREE(p, u, _pdep_u64((u), AVKI_LOW7_BITS));
    return (size_t)(p - start);
}

/* The template's word operations as single instructions: PEXT gathers the
 * 7-bit groups of the bytes selected by bits into one value. */
#define AVKI_KFN(name) bmi2_##name
#define AVKI_EXTRACT(w, bits) _pext_u64((w), (bits) & AVKI_LOW7_BITS)
#define AVKI_EXTRACT0(x, len) _pext_u64((x), AVKI_LOW7_BITS)
#define AVKI_ENCODE(p, u) bmi2_encode_one((p), (u))
#define AVKI_SPREAD56(u) _pdep_u64((u), AVKI_LOW7_BITS)
#define AVKI_ENCODE_ANY(p, u) AVKI_ENCODE_BRANCHFREE(p, u, AVKI_SPREAD56(u))
#define AVKI_SPREAD_PAIR28(a, b) _pdep_u64((a) | ((uint64_t)(b) << 28), AVKI_LOW7_BITS)
#define AVKI_HAS_PEXT 1
#include "varint/varint_bulk_template.h"

static int bmi2_runnable(const avki_cpu *cpu)
{
    /* Present is not enough: PDEP/PEXT are microcoded on AMD before Zen 3. */
    return cpu->fast_pdep;
}

const avki_kernels avki_kernels_bmi2 = {
    "bmi2", bmi2_runnable, bmi2_decode_longs, bmi2_decode_ints,
    bmi2_encode_longs, bmi2_encode_ints,
};
