/* Chooses the bulk varint kernel once, honouring AVK_KERNEL. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "avrokit/kernel.h"
#include "varint/kernels.h"

/* Every kernel built for this target, best first, from the one list. */
static const avki_kernels *const kernel_table[] = {
#define AVKI_KERNEL(name, arch, source) &avki_kernels_##name,
#include "varint/kernel_list.h"
#undef AVKI_KERNEL
};
#define KERNEL_COUNT (sizeof kernel_table / sizeof kernel_table[0])

const avki_kernels *const *avki_kernel_table(size_t *count)
{
    *count = KERNEL_COUNT;
    return kernel_table;
}

/* An override that names no runnable kernel falls back to the normal
 * choice rather than failing: AVK_KERNEL is a test and benchmark knob,
 * and a library may not refuse to work because of an environment
 * variable. avk_kernel_name() tells what ran; the per-kernel test runs
 * check it (AVK_KERNEL_REQUIRED) so a fallback is never counted as a pass
 * of the kernel asked for. The last entry (scalar) runs anywhere. */
const avki_kernels *avki_kernels_choose(const avki_kernels *const *table, size_t count,
                                        const avki_cpu *cpu, const char *override_name)
{
    size_t i;
    if (override_name && *override_name) {
        for (i = 0; i < count; i++)
            if (strcmp(table[i]->name, override_name) == 0 && table[i]->runnable(cpu))
                return table[i];
    }
    for (i = 0; i < count; i++)
        if (table[i]->runnable(cpu))
            return table[i];
    return table[count - 1];
}

/* Chosen once per process: CPUID and getenv cost more than a short bulk
 * call, and avk_kernel_name() must name the kernel every call runs. */
static const avki_kernels *active;
static pthread_once_t active_once = PTHREAD_ONCE_INIT;

static void choose_active(void)
{
    active = avki_kernels_choose(kernel_table, KERNEL_COUNT, avki_cpu_get(), getenv("AVK_KERNEL"));
}

const avki_kernels *avki_kernels_active(void)
{
    pthread_once(&active_once, choose_active);
    return active;
}

const char *avk_kernel_name(void)
{
    return avki_kernels_active()->name;
}

size_t avk_kernel_count(void)
{
    return KERNEL_COUNT;
}

const char *avk_kernel_name_at(size_t index)
{
    return index < KERNEL_COUNT ? kernel_table[index]->name : NULL;
}

int avk_kernel_runnable_at(size_t index)
{
    return index < KERNEL_COUNT && kernel_table[index]->runnable(avki_cpu_get());
}
