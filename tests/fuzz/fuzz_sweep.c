/* libFuzzer harness: sweep files (configs/NAME-sweep.json), parsed and searched. The target is ts_fuzz_sweep in fuzz_targets.c. */
#include "fuzz_targets.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    return ts_fuzz_sweep(data, n);
}
