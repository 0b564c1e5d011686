/* libFuzzer harness: measured GEMM tables (trainsim calibrate --gemm-csv). The target is ts_fuzz_gemmcsv in fuzz_targets.c. */
#include "fuzz_targets.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    return ts_fuzz_gemmcsv(data, n);
}
