/* libFuzzer harness: Hugging Face config.json files (hf:PATH, trainsim import hf). The target is ts_fuzz_hf in fuzz_targets.c. */
#include "fuzz_targets.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    return ts_fuzz_hf(data, n);
}
