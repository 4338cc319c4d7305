/* The libFuzzer entry point every fuzz target defines, and a mismatch trap shared by them. */
#ifndef AVK_FUZZ_H
#define AVK_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Runs one input. Returns 0; a bug traps (or a sanitizer reports it). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Says what differed, then traps so libFuzzer saves the input and the
 * replay driver fails. */
#define AVKF_CHECK(cond, ...)                                                   \
    do {                                                                        \
        if (!(cond)) {                                                          \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                       \
            fputc('\n', stderr);                                                \
            __builtin_trap();                                                   \
        }                                                                       \
    } while (0)

#endif
