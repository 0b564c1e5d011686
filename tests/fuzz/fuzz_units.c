/* libFuzzer harness: quantity strings ("80 GiB", "400 Gb/s") and number formatting. The target is ts_fuzz_units in fuzz_targets.c. */
#include "fuzz_targets.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    return ts_fuzz_units(data, n);
}
