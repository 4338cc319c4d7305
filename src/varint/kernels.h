/* The bulk varint kernel table: one entry per instruction set, best first. */
#ifndef AVK_VARINT_KERNELS_H
#define AVK_VARINT_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "avrokit/status.h"
#include "cpu/cpu.h"

/* Decode kernels decode up to n varints from in[0..len) and return how many
 * they decoded, with *consumed set to the bytes those used. A return below n
 * means the varint at in + *consumed is truncated or malformed; the caller
 * explains it (kernels never format errors). They never read at or past
 * in + len. Encode kernels follow the avk_varint_encode_* contracts. */
/* One kernel's functions. Callers copy the table pointer once (a reader
 * at creation) and call through it per bulk call: an indirect call per
 * few hundred values, never per value. */
typedef struct avki_kernels {
    const char *name; /* the token AVK_KERNEL accepts */
    int (*runnable)(const avki_cpu *cpu);
    size_t (*decode_longs)(const uint8_t *in, size_t len, int64_t *out, size_t n, size_t *consumed);
    size_t (*decode_ints)(const uint8_t *in, size_t len, int32_t *out, size_t n, size_t *consumed);
    size_t (*encode_longs)(uint8_t *out, const int64_t *in, size_t n);
    size_t (*encode_ints)(uint8_t *out, const int32_t *in, size_t n);
} avki_kernels;

/* avki_kernels_<name> for every kernel of kernel_list.h built here. */
#define AVKI_KERNEL(name, arch, source) extern const avki_kernels avki_kernels_##name;
#include "varint/kernel_list.h"
#undef AVKI_KERNEL

/* Every kernel built here, best first (kernel_list.h): *count entries. */
const avki_kernels *const *avki_kernel_table(size_t *count);

/* The kernels in use: chosen once (see avk_kernel_name). */
const avki_kernels *avki_kernels_active(void);

/* Chooses among table[0..count) for cpu and the override name (NULL when
 * unset): the named kernel if runnable, else the first runnable one. Pure,
 * for tests. */
const avki_kernels *avki_kernels_choose(const avki_kernels *const *table, size_t count,
                                        const avki_cpu *cpu, const char *override_name);

/* Status for a varint a decoder could not take at in[0..len); fills err
 * with offset as the varint's position. Never AVK_OK. Cold. */
avk_status avki_varint_failure(const uint8_t *in, size_t len, int is_int, uint64_t offset,
                               avk_error *err);

/* The slow reference codec every kernel is tested against: byte by byte,
 * straight from the specification. */
size_t avki_ref_decode_longs(const uint8_t *in, size_t len, int64_t *out, size_t n, size_t *consumed);
size_t avki_ref_decode_ints(const uint8_t *in, size_t len, int32_t *out, size_t n, size_t *consumed);
size_t avki_ref_encode_longs(uint8_t *out, const int64_t *in, size_t n);
size_t avki_ref_encode_ints(uint8_t *out, const int32_t *in, size_t n);

#endif
