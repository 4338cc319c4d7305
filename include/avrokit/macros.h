/* Compiler hints the inline fast paths in the public headers rely on, and AVK_EXPORT, which marks the public functions. */
#ifndef AVROKIT_MACROS_H
#define AVROKIT_MACROS_H

#if defined(__GNUC__) || defined(__clang__)
#define AVK_LIKELY(x) __builtin_expect(!!(x), 1)
#define AVK_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define AVK_INLINE static inline __attribute__((always_inline))
/* The library is compiled with hidden visibility: only functions declared
 * with AVK_EXPORT leave the shared library. Every non-inline function of
 * the public headers carries it (tests/install/exports_check.py checks). */
#define AVK_EXPORT __attribute__((visibility("default")))
/* Error paths: kept out of the hot code's way, and printf formats checked. */
#define AVK_COLD __attribute__((cold))
#define AVK_PRINTF(fmt, first) __attribute__((format(printf, fmt, first)))
#else
#define AVK_LIKELY(x) (x)
#define AVK_UNLIKELY(x) (x)
#define AVK_INLINE static inline
#define AVK_EXPORT
#define AVK_COLD
#define AVK_PRINTF(fmt, first)
#endif

#endif
