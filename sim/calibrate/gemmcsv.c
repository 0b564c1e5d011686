/*
 * Measured GEMM tables in CSV (gemmcsv.h is the manual).
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "calibrate/gemmcsv.h"

enum col { COL_M, COL_N, COL_K, COL_PREC, COL_TIME_S, COL_TIME_MS, COL_TIME_US, COL_TFLOPS,
           COL_COUNT };
static const char *const col_names[COL_COUNT][3] = {
    {"m", NULL, NULL},           {"n", NULL, NULL},       {"k", NULL, NULL},
    {"dtype", "precision", NULL}, {"time_s", "seconds", NULL}, {"time_ms", "ms", NULL},
    {"time_us", "us", NULL},     {"tflops", "tflop/s", "tflop_s"},
};

static int precision_of(const char *s)
{
    static const struct {
        const char *name;
        int prec;
    } names[] = {
        {"bf16", TS_PREC_BF16},         {"bfloat16", TS_PREC_BF16},
        {"torch.bfloat16", TS_PREC_BF16}, {"fp16", TS_PREC_FP16},
        {"float16", TS_PREC_FP16},      {"half", TS_PREC_FP16},
        {"torch.float16", TS_PREC_FP16}, {"fp8", TS_PREC_FP8},
        {"float8_e4m3fn", TS_PREC_FP8}, {"float8_e5m2", TS_PREC_FP8},
        {"e4m3", TS_PREC_FP8},          {"fp32", TS_PREC_FP32},
        {"float32", TS_PREC_FP32},      {"float", TS_PREC_FP32},
        {"torch.float32", TS_PREC_FP32},
    };
    for (size_t i = 0; i < TS_ARRAY_LEN(names); i++)
        if (strcasecmp(s, names[i].name) == 0)
            return names[i].prec;
    return -1;
}

int ts_gemmcsv_parse(const char *text, size_t len, const char *file, const struct ts_accel *a,
                     int default_precision, struct ts_gemmcsv *out, struct ts_err *err)
{
    memset(out, 0, sizeof *out);
    int idx[COL_COUNT];
    for (int c = 0; c < COL_COUNT; c++)
        idx[c] = -1;
    bool header = false;
    int cap = 0, rc = TS_OK, nfields_header = 0;
    size_t pos = 0;
    long lineno = 0;
    while (pos < len && rc == TS_OK) {
        size_t end = pos;
        while (end < len && text[end] != '\n')
            end++;
        lineno++;
        char line[2048];
        if (end - pos >= sizeof line) {
            rc = ts_err_set(err, TS_ERR_INPUT, "%s:%ld: line longer than %zu bytes", file, lineno,
                            sizeof line - 1);
            break;
        }
        memcpy(line, text + pos, end - pos);
        line[end - pos] = '\0';
        pos = end + 1;
        char *p = line;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '\0' || *p == '\r' || *p == '#')
            continue;
        char *f[32];
        int nf = ts_csv_split(p, f, 32);
        if (!header) {
            for (int i = 0; i < nf; i++)
                for (int c = 0; c < COL_COUNT; c++)
                    for (int a_ = 0; a_ < 3 && col_names[c][a_]; a_++)
                        if (strcasecmp(f[i], col_names[c][a_]) == 0) {
                            if (idx[c] >= 0) {
                                return ts_err_set(err, TS_ERR_INPUT,
                                                  "%s:%ld: column \"%s\" given twice", file,
                                                  lineno, f[i]);
                            }
                            idx[c] = i;
                        }
            const char *need[] = {"m", "n", "k"};
            for (int c = COL_M; c <= COL_K; c++)
                if (idx[c] < 0)
                    return ts_err_set(err, TS_ERR_INPUT,
                                      "%s:%ld: the header has no \"%s\" column (needed: m, n, k, "
                                      "and one of time_s, time_ms, time_us, tflops)", file,
                                      lineno, need[c]);
            int measures = (idx[COL_TIME_S] >= 0) + (idx[COL_TIME_MS] >= 0) +
                           (idx[COL_TIME_US] >= 0) + (idx[COL_TFLOPS] >= 0);
            if (measures != 1)
                return ts_err_set(err, TS_ERR_INPUT,
                                  "%s:%ld: give exactly one measurement column (time_s, time_ms, "
                                  "time_us or tflops); the header has %d", file, lineno, measures);
            if (idx[COL_PREC] < 0 && default_precision < 0)
                return ts_err_set(err, TS_ERR_INPUT,
                                  "%s:%ld: no dtype column: say the precision (--precision bf16)",
                                  file, lineno);
            header = true;
            nfields_header = nf;
            continue;
        }
        if (nf != nfields_header) {
            rc = ts_err_set(err, TS_ERR_INPUT, "%s:%ld: %d fields, the header has %d", file,
                            lineno, nf, nfields_header);
            break;
        }
        if (out->n == TS_GEMMCSV_ROWS_MAX) {
            rc = ts_err_set(err, TS_ERR_INPUT, "%s:%ld: more than %d rows", file, lineno,
                            TS_GEMMCSV_ROWS_MAX);
            break;
        }
        struct ts_gemmcsv_row r;
        double *dims[3] = {&r.m, &r.n, &r.k};
        const char *dn[3] = {"m", "n", "k"};
        for (int c = 0; c < 3 && rc == TS_OK; c++)
            if (!ts_text_number(f[idx[c]], dims[c]) || *dims[c] < 1 || *dims[c] > 1e7 ||
                *dims[c] != floor(*dims[c]))
                rc = ts_err_set(err, TS_ERR_INPUT,
                                "%s:%ld: %s: \"%s\" is not a dimension (a whole number 1..1e7)",
                                file, lineno, dn[c], f[idx[c]]);
        if (rc)
            break;
        r.precision = default_precision;
        if (idx[COL_PREC] >= 0) {
            if (strcasecmp(f[idx[COL_PREC]], "tf32") == 0) {
                rc = ts_err_set(err, TS_ERR_INPUT,
                                "%s:%ld: dtype tf32: TF32 GEMMs run at their own peak, which "
                                "trainsim does not model; measure bf16 or fp32", file, lineno);
                break;
            }
            r.precision = precision_of(f[idx[COL_PREC]]);
            if (r.precision < 0) {
                rc = ts_err_set(err, TS_ERR_INPUT,
                                "%s:%ld: dtype: \"%s\" is not bf16, fp16, fp8 or fp32", file,
                                lineno, f[idx[COL_PREC]]);
                break;
            }
        }
        double peak = a->peak_flops[r.precision];
        if (!(peak > 0)) {
            rc = ts_err_set(err, TS_ERR_INPUT, "%s:%ld: %s has no %s peak (peak_flops.%s)", file,
                            lineno, a->name, ts_precision_names[r.precision],
                            ts_precision_names[r.precision]);
            break;
        }
        double flops = 2.0 * r.m * r.n * r.k, v, rate = 0.0;
        static const double time_scale[] = {1.0, 1e-3, 1e-6};
        for (int c = COL_TIME_S; c <= COL_TFLOPS; c++) {
            if (idx[c] < 0)
                continue;
            if (!ts_text_number(f[idx[c]], &v) || !(v > 0)) {
                rc = ts_err_set(err, TS_ERR_INPUT, "%s:%ld: %s: \"%s\" is not a positive number",
                                file, lineno, col_names[c][0], f[idx[c]]);
                break;
            }
            rate = c == COL_TFLOPS ? v * 1e12 : flops / (v * time_scale[c - COL_TIME_S]);
        }
        if (rc)
            break;
        r.efficiency = rate / peak;
        if (r.efficiency < 1e-6) {
            /* An accelerator file's curve takes efficiencies from 1e-6 (sim/spec/hardware.c). */
            rc = ts_err_set(err, TS_ERR_INPUT,
                            "%s:%ld: %.0f x %.0f x %.0f at %.3g TFLOP/s is %.2g of %s's %s peak, "
                            "below the 1e-6 an efficiency curve takes: a wrong time unit?", file,
                            lineno, r.m, r.n, r.k, rate / 1e12, r.efficiency, a->name,
                            ts_precision_names[r.precision]);
            break;
        }
        if (r.efficiency > 1.0) {
            rc = ts_err_set(err, TS_ERR_INPUT,
                            "%s:%ld: %.0f x %.0f x %.0f at %.1f TFLOP/s is faster than %s's %s "
                            "peak (%.1f TFLOP/s): wrong dtype, or another part?", file, lineno,
                            r.m, r.n, r.k, rate / 1e12, a->name, ts_precision_names[r.precision],
                            peak / 1e12);
            break;
        }
        if (out->n == cap) {
            cap = cap ? 2 * cap : 256;
            out->rows = realloc(out->rows, (size_t)cap * sizeof *out->rows);
            TS_ASSERT(out->rows != NULL, "out of memory reading %s", file);
        }
        out->rows[out->n++] = r;
        out->per_precision[r.precision]++;
    }
    if (rc == TS_OK && !header)
        rc = ts_err_set(err, TS_ERR_INPUT, "%s: no header line (m,n,k,dtype,time_us ...)", file);
    if (rc == TS_OK && out->n == 0)
        rc = ts_err_set(err, TS_ERR_INPUT, "%s: no measurements after the header", file);
    if (rc)
        ts_gemmcsv_free(out);
    return rc;
}

void ts_gemmcsv_free(struct ts_gemmcsv *t)
{
    free(t->rows);
    memset(t, 0, sizeof *t);
}

/* An efficiency as the curve stores it: 4 decimals, or 4 significant digits below 1e-3 (4
 * decimals would make a tiny GEMM's efficiency 0, which no curve takes). */
static double round_efficiency(double e)
{
    if (e >= 1e-3)
        return round(e * 1e4) / 1e4;
    double scale = pow(10.0, 3.0 - floor(log10(e)));
    return round(e * scale) / scale;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

cJSON *ts_gemmcsv_curve_json(const struct ts_gemmcsv *t, int precision)
{
    cJSON *arr = cJSON_CreateArray();
    TS_ASSERT(arr != NULL, "out of memory");
    /* Distinct sizes of this precision. */
    int n = t->per_precision[precision];
    double *flops = ts_xmalloc((size_t)(n ? n : 1) * sizeof *flops);
    int j = 0;
    for (int i = 0; i < t->n; i++)
        if (t->rows[i].precision == precision)
            flops[j++] = 2.0 * t->rows[i].m * t->rows[i].n * t->rows[i].k;
    qsort(flops, (size_t)n, sizeof *flops, cmp_double);
    int distinct = 0;
    for (int i = 0; i < n; i++)
        distinct += i == 0 || flops[i] != flops[i - 1];
    if (distinct <= TS_CURVE_POINTS_MAX && n <= 4 * TS_CURVE_POINTS_MAX) {
        for (int i = 0; i < t->n; i++) {
            const struct ts_gemmcsv_row *r = &t->rows[i];
            if (r->precision != precision)
                continue;
            cJSON *p = cJSON_CreateObject();
            cJSON_AddNumberToObject(p, "m", r->m);
            cJSON_AddNumberToObject(p, "n", r->n);
            cJSON_AddNumberToObject(p, "k", r->k);
            cJSON_AddNumberToObject(p, "efficiency", round_efficiency(r->efficiency));
            cJSON_AddItemToArray(arr, p);
        }
        free(flops);
        return arr;
    }
    /* Quarter-decade bins: geometric-mean FLOPs, median efficiency. */
    double lo = floor(4.0 * log10(flops[0])), hi = floor(4.0 * log10(flops[n - 1]));
    double *eff = ts_xmalloc((size_t)n * sizeof *eff);
    for (double b = lo; b <= hi; b += 1.0) {
        int m = 0;
        double logsum = 0.0;
        for (int i = 0; i < t->n; i++) {
            const struct ts_gemmcsv_row *r = &t->rows[i];
            double f = 2.0 * r->m * r->n * r->k;
            if (r->precision != precision || floor(4.0 * log10(f)) != b)
                continue;
            eff[m++] = r->efficiency;
            logsum += log(f);
        }
        if (m == 0)
            continue;
        qsort(eff, (size_t)m, sizeof *eff, cmp_double);
        double med = m % 2 ? eff[m / 2] : 0.5 * (eff[m / 2 - 1] + eff[m / 2]);
        cJSON *p = cJSON_CreateArray();
        cJSON_AddItemToArray(p, cJSON_CreateNumber(round(exp(logsum / m))));
        cJSON_AddItemToArray(p, cJSON_CreateNumber(round_efficiency(med)));
        cJSON_AddItemToArray(arr, p);
    }
    free(eff);
    free(flops);
    return arr;
}
