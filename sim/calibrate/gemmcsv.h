/*
 * gemmcsv: a measured GEMM table (a cuBLAS or torch.mm sweep, e.g. from a profiling script)
 * read into an accelerator's GEMM efficiency curve. Behind `trainsim calibrate --gemm-csv`.
 *
 * The CSV (RFC 4180; '#' lines are comments) has a header naming its columns,
 * case-insensitively: m, n, k (required); the precision in `dtype` or `precision` (bf16,
 * fp16, fp8, fp32, or torch's names bfloat16, float16, half, float8_e4m3fn, float8_e5m2,
 * float32, float; tf32 is refused: a TF32 GEMM runs at another peak than an fp32 one), else
 * the caller's default; and the
 * measurement as one of time_s, time_ms, time_us (per GEMM) or tflops (TFLOP/s achieved).
 * Efficiency = 2 m n k / time / peak_flops[precision] of the base accelerator; a row faster
 * than that peak is an error (wrong precision or wrong base part), and so is one below 1e-6 of
 * it (the smallest efficiency an accelerator curve takes). Curves keep 4 decimals (4
 * significant digits below 1e-3). Rows of one precision
 * become that precision's curve: as {"m","n","k","efficiency"} points when there are at most
 * 64 distinct sizes, else binned in quarter decades of FLOPs ([geometric-mean FLOPs, median
 * efficiency], as the host calibration bins). Pure and thread safe.
 */
#ifndef TS_CALIBRATE_GEMMCSV_H
#define TS_CALIBRATE_GEMMCSV_H

#include "spec/spec.h"
#include "util/util.h"

#define TS_GEMMCSV_ROWS_MAX 100000

struct ts_gemmcsv_row {
    double m, n, k;
    int precision;          // enum ts_precision
    double efficiency;      // of the base accelerator's peak for that precision
};

struct ts_gemmcsv {
    int n;
    struct ts_gemmcsv_row *rows;    // owned; ts_gemmcsv_free
    int per_precision[TS_PREC_COUNT];
};

/* Read the CSV text against accelerator `a`'s peaks; `default_precision` (enum
 * ts_precision, or -1 for none) serves rows of a table without a precision column. Errors name
 * the file, the line and the column. */
int ts_gemmcsv_parse(const char *text, size_t len, const char *file, const struct ts_accel *a,
                     int default_precision, struct ts_gemmcsv *out, struct ts_err *err);
void ts_gemmcsv_free(struct ts_gemmcsv *t);

/* The curve of one precision as a JSON array for an accelerator file's gemm_efficiency. */
cJSON *ts_gemmcsv_curve_json(const struct ts_gemmcsv *t, int precision);

#endif
