/* libFuzzer harness: the command line of trainsim run / sweep / calibrate. The target is ts_fuzz_cli in fuzz_targets.c. */
#include "fuzz_targets.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    return ts_fuzz_cli(data, n);
}
