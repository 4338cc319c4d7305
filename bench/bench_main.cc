// Benchmark entry point: checks the avro-c shim, records the kernel, registers and runs every row.
#include <string>

#include "avroc_shim.h"
#include "bench_common.h"

#include "avrokit/kernel.h"

int main(int argc, char **argv)
{
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv))
        return 1;

    avkbench::avroc_shim_check();

    benchmark::AddCustomContext("avk_kernel", avk_kernel_name());
    std::string runnable;
    for (size_t i = 0; i < avk_kernel_count(); i++) {
        if (avk_kernel_runnable_at(i)) {
            if (!runnable.empty())
                runnable += ",";
            runnable += avk_kernel_name_at(i);
        }
    }
    benchmark::AddCustomContext("avk_kernels_runnable", runnable);
    benchmark::AddCustomContext("values_per_iteration", std::to_string(avkbench::kValues));

    avkbench::register_varint_benchmarks();
    avkbench::register_reader_benchmarks();
    avkbench::register_schema_benchmarks();
    avkbench::register_binary_benchmarks();
    avkbench::register_message_benchmarks();
#ifdef AVK_BENCH_GEN
    avkbench::register_gen_benchmarks();
#endif

    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
