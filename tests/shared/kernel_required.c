/* Per-kernel test runs: exit 77 (CTest's skip) before any test when the kernel asked for cannot run here, so it is never counted as a pass of another kernel. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "avrokit/kernel.h"

/* CTest sets AVK_KERNEL=<name> and AVK_KERNEL_REQUIRED=1 on the runs it
 * registers per kernel (SKIP_RETURN_CODE 77). The library falls back to the
 * best runnable kernel for an unrunnable name; here that fallback would
 * test the wrong kernel, so the run stops as skipped instead. */
__attribute__((constructor)) static void require_kernel(void)
{
    const char *wanted = getenv("AVK_KERNEL");
    const char *required = getenv("AVK_KERNEL_REQUIRED");
    if (!wanted || !*wanted || !required || strcmp(required, "1") != 0)
        return;
    if (strcmp(avk_kernel_name(), wanted) != 0) {
        printf("SKIPPED: kernel %s is not built for this machine or its CPU cannot run it "
               "(the automatic choice here is %s)\n", wanted, avk_kernel_name());
        fflush(stdout);
        exit(77);
    }
}
