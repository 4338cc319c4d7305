/* Which bulk varint kernel runs: chosen once from CPUID, overridable by AVK_KERNEL. */
#ifndef AVROKIT_KERNEL_H
#define AVROKIT_KERNEL_H

#include <stddef.h>

#include "avrokit/macros.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Name of the kernel that bulk calls use: one of avk_kernel_name_at()'s
 * ("avx512", "avx2" and "bmi2" on x86-64; "scalar" everywhere).
 * The first call resolves the choice: the best kernel this CPU runs well,
 * or the one named by the environment variable AVK_KERNEL when the CPU can
 * run it (an unknown or unrunnable name falls back to the automatic choice,
 * and this function then tells which kernel really runs). Thread-safe. */
AVK_EXPORT const char *avk_kernel_name(void);

/* Number of kernels compiled in, best first, and the name of each. */
AVK_EXPORT size_t avk_kernel_count(void);
AVK_EXPORT const char *avk_kernel_name_at(size_t index);

/* 1 when this CPU can run (and runs well) the kernel at index, else 0. */
AVK_EXPORT int avk_kernel_runnable_at(size_t index);

#ifdef __cplusplus
}
#endif
#endif
