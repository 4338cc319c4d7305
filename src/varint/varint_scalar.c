/* Portable bulk varint kernel: word-at-a-time with shift-and-merge bit packing. */
#include "varint/kernels.h"

#define AVKI_KFN(name) scalar_##name
#define AVKI_KTARGET
/* The bytes of bits, shifted down to bit 0, then packed by shift and merge
 * (what one PEXT does in the bmi2 kernel). */
#define AVKI_EXTRACT(w, bits) \
    avki_compact56(((w) & (bits) & AVKI_LOW7_BITS) >> __builtin_ctzll(bits))
/* Short values need fewer merge steps: up to 2 bytes one shift, up to 4
 * two steps; len is a constant where the template calls this. */
#define AVKI_EXTRACT0(x, len)                                           \
    ((len) <= 2 ? ((x) & 0x7f) | (((x) >> 1) & 0x3f80)                  \
                : (len) <= 4 ? avki_compact28(x) : avki_compact56(x))
#define AVKI_ENCODE(p, u) avk_varint_encode_u64((p), (u))
#define AVKI_ENCODE_ANY(p, u) ((p) += avki_encode_u64_word((p), (u)))
#define AVKI_SPREAD56(u) avki_spread56(u)
#define AVKI_SPREAD_PAIR28(a, b) avki_spread_pair28((a), (b))
/* No AVKI_HAS_PEXT: without it, extracting every value that ends in a word
 * costs more than the chain it saves (see the template). */
#include "varint/varint_bulk_template.h"

static int scalar_runnable(const avki_cpu *cpu)
{
    (void)cpu;
    return 1;
}

const avki_kernels avki_kernels_scalar = {
    "scalar", scalar_runnable, scalar_decode_longs, scalar_decode_ints,
    scalar_encode_longs, scalar_encode_ints,
};
