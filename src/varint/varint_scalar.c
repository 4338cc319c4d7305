/* Portable bulk varint kernel: word-at-a-time with shift-and-merge bit packing. */
#include "varint/kernels.h"

#define AVKI_KFN(name) scalar_##name
#define AVKI_KTARGET
#define AVKI_EXTRACT(w, bits) \
    avki_compact56(((w) & (bits) & AVKI_LOW7_BITS) >> __builtin_ctzll(bits))
#define AVKI_ENCODE(p, u) avki_encode_u64_any((p), (u))
/* Without PEXT, packing several values per word costs more than the chain
 * it saves: one value per step, as the single-value decoder. */
#define AVKI_MULTI_PER_WORD 0
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
