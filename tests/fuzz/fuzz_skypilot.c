/* libFuzzer harness: SkyPilot catalogue vms.csv files (trainsim import skypilot). The target is ts_fuzz_skypilot in fuzz_targets.c. */
#include "fuzz_targets.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    return ts_fuzz_skypilot(data, n);
}
