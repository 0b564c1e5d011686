/* libFuzzer harness: job files (configs/NAME.json), parsed and evaluated. The target is ts_fuzz_job in fuzz_targets.c. */
#include "fuzz_targets.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    return ts_fuzz_job(data, n);
}
