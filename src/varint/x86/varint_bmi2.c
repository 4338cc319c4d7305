/* BMI2 bulk varint kernel: PEXT gathers the 7-bit groups, PDEP spreads them. */
#include <immintrin.h>

#include "varint/kernels.h"
#include "varint/varint_word.h"

#define AVKI_KTARGET __attribute__((target("bmi,bmi2,lzcnt")))

/* Encodes with PDEP for values below 2^56 (up to 8 bytes): PDEP spreads
 * the value into the low 7 bits of each byte, and BZHI keeps the
 * continuation bits of the first len - 1 bytes, len from LZCNT (ceil of
 * bits / 7 by multiply and shift, as avki_varint_len). One 8-byte store
 * whatever the length: the caller's room allows it. */
AVKI_KTARGET static inline size_t bmi2_encode_one(uint8_t *p, uint64_t u)
{
    if (AVK_LIKELY(u < 0x4000)) /* 1-2 bytes: no branch between the two */
        return avki_encode_u64_any(p, u);
    if (AVK_LIKELY(u < (1ULL << 56))) {
        unsigned len = ((64u - (unsigned)_lzcnt_u64(u | 1)) * 9u + 64u) >> 6;
        uint64_t x = _pdep_u64(u, AVKI_LOW7_BITS) | _bzhi_u64(AVKI_HIGH_BITS, 8 * len - 8);
        avki_store64(p, x);
        return len;
    }
    return avki_encode_u64_word(p, u);
}

/* The template's word operations as single instructions: PEXT gathers the
 * 7-bit groups of the bytes selected by bits into one value. */
#define AVKI_KFN(name) bmi2_##name
#define AVKI_EXTRACT(w, bits) _pext_u64((w), (bits) & AVKI_LOW7_BITS)
#define AVKI_EXTRACT0(x, len) _pext_u64((x), AVKI_LOW7_BITS)
#define AVKI_ENCODE(p, u) bmi2_encode_one((p), (u))
#define AVKI_ENCODE_ANY(p, u)                                        \
    AVKI_ENCODE_BRANCHFREE(p, u, _pdep_u64((u), AVKI_LOW7_BITS),     \
                           ((64u - (unsigned)_lzcnt_u64((u) | 1)) * 9u + 64u) >> 6)
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
