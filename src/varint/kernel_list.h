/* The one list of bulk varint kernels, best first: dispatch, CMake, the per-kernel test runs, the fuzz targets and the benchmarks all read it. */
/* One line per kernel, in the order dispatch tries them:
 *   AVKI_KERNEL(name, arch, source)
 * name    the token AVK_KERNEL accepts; the kernel's table is avki_kernels_<name>
 * arch    where it compiles: x86_64, or any
 * source  its file under src/varint/ (each architecture's kernels in its folder)
 * CMake reads these lines with a regular expression (cmake/kernels.cmake):
 * keep one kernel per line, and keep the #if below in step with the arch
 * column. Include this file after defining AVKI_KERNEL.
 * The order is by measured speed where both run (README's per-kernel
 * tables), not by the age of the instruction sets: avx2 stays above bmi2
 * on CPUs that have both. scalar comes last and runs anywhere, so the
 * choice never comes up empty. */
#if defined(__x86_64__)
AVKI_KERNEL(avx512, x86_64, x86/varint_avx512.c)
AVKI_KERNEL(avx2, x86_64, x86/varint_avx2.c)
AVKI_KERNEL(bmi2, x86_64, x86/varint_bmi2.c)
#endif
AVKI_KERNEL(scalar, any, varint_scalar.c)
