/* libFuzzer harness: price files (configs/prices/NAME.json). The target is ts_fuzz_prices in fuzz_targets.c. */
#include "fuzz_targets.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    return ts_fuzz_prices(data, n);
}
