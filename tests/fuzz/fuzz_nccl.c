/* libFuzzer harness: nccl-tests output (trainsim calibrate --nccl-tests). The target is ts_fuzz_nccl in fuzz_targets.c. */
#include "fuzz_targets.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    return ts_fuzz_nccl(data, n);
}
