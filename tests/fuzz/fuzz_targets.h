/*
 * fuzz targets: one function per input entry point of trainsim (each JSON kind, unit strings,
 * command-line arguments). The libFuzzer harnesses tests/fuzz/fuzz_*.c call them, and so does
 * the regression test tests/test_fuzz_regressions.c with the saved crash inputs of
 * tests/data/fuzz/, so a fixed finding stays fixed under every build (plain, ASan+UBSan,
 * valgrind).
 *
 * A target takes arbitrary bytes. It must not crash, hang, leak, or report a non-finite
 * number where a result is expected; when an invariant of a result breaks it prints what and
 * aborts (libFuzzer records that as a crash). Inputs that parse are also evaluated, within
 * work limits that keep one execution in milliseconds (documented in fuzz_targets.c).
 *
 * Every file a target writes goes to its own temporary directory (created on first use,
 * removed at exit); command-line paths are mapped into it.
 */
#ifndef TS_FUZZ_TARGETS_H
#define TS_FUZZ_TARGETS_H

#include <stddef.h>
#include <stdint.h>

int ts_fuzz_model(const uint8_t *data, size_t n);    // models/*.json
int ts_fuzz_accel(const uint8_t *data, size_t n);    // hardware/accelerators/*.json
int ts_fuzz_system(const uint8_t *data, size_t n);   // hardware/systems/*.json
int ts_fuzz_job(const uint8_t *data, size_t n);      // configs/*.json jobs
int ts_fuzz_sweep(const uint8_t *data, size_t n);    // configs/*-sweep.json
int ts_fuzz_units(const uint8_t *data, size_t n);    // quantity strings and number formatting
int ts_fuzz_cli(const uint8_t *data, size_t n);      // trainsim run / sweep / calibrate argv
int ts_fuzz_hf(const uint8_t *data, size_t n);       // Hugging Face config.json (hf:PATH, import hf)
int ts_fuzz_skypilot(const uint8_t *data, size_t n); // SkyPilot vms.csv (import skypilot)
int ts_fuzz_nccl(const uint8_t *data, size_t n);     // nccl-tests output (calibrate --nccl-tests)
int ts_fuzz_gemmcsv(const uint8_t *data, size_t n);  // GEMM CSV (calibrate --gemm-csv)
int ts_fuzz_software(const uint8_t *data, size_t n); // configs/software/*.json
int ts_fuzz_prices(const uint8_t *data, size_t n);   // configs/prices/*.json
int ts_fuzz_new(const uint8_t *data, size_t n);      // trainsim new system flags

#endif
