/*
 * run: the model's own uncertainty, propagated with the failure Monte Carlo (run.h,
 * "Model uncertainty").
 *
 * A prediction of trainsim is off by some fraction that its validation measured where it was
 * validated: for a software profile on a device, the published rows' errors (predicted /
 * published throughput - 1) lie in the band [min_error, max_error] of the profile's
 * `validation` entry. Where no row was compared the band is TS_RUN_BAND_DEFAULT_*, kept
 * wider than every validation table's rows: it was set from the 216 llm-foundry rows of
 * experiments/validation-frameworks when they spanned -19.9% .. +37.9% (rounded outward); the
 * rows of all validation experiments together now span -12.7% (MoE, GB200 GPT-OSS 120B
 * BF16) .. +36.7% (llm-foundry), so the default stays conservative. A throughput predicted too high by e
 * means a real iteration takes (1 + e) times the predicted one, so replication i of the run
 * takes wall_i x (1 + e_i): exact for a failure-free run, first order with failures (their
 * count grows with the run's length in proportion). e_i is uniform on the band (the band is
 * all the validation says: no error inside it is more likely than another), drawn
 * stratified: the n replications take the n midpoints (k + 1/2) / n of the band in an order
 * shuffled with the stream (seed, 0, MODEL_PURPOSE), so each replication's draw depends only
 * on (seed, n, index) and the quantiles are those of the band exactly.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>

#include "cost/cost.h"
#include "run/run.h"

const double ts_run_quantile_levels[TS_RUN_QUANTILES] = {0.05, 0.10, 0.25, 0.50, 0.75, 0.90, 0.95, 0.99};
const char *const ts_run_quantile_names[TS_RUN_QUANTILES] = {"p05", "p10", "p25", "p50",
                                                             "p75", "p90", "p95", "p99"};

#define MODEL_PURPOSE 0x4d4f44454cull   /* "MODEL": its own stream purpose */

void ts_run_model_band(const struct ts_job *job, bool on, struct ts_run_band *out)
{
    memset(out, 0, sizeof *out);
    out->on = on;
    const struct ts_software *sw = &job->software;
    const struct ts_sw_band *b = ts_software_band(sw, job->system.accel.name, (int)job->precision,
                                                  job->model.seq_len);
    if (b) {
        out->validated = true;
        out->min_error = b->min_error;
        out->max_error = b->max_error;
        snprintf(out->source, sizeof out->source, "%s on %s%s%s%s: %s (%d rows)", sw->name,
                 job->system.accel.name, b->precision >= 0 ? " in " : "",
                 b->precision >= 0 ? ts_precision_names[b->precision] : "",
                 b->max_seq_len > 0 ? " at this sequence length" : "", b->rows, b->n_rows);
        return;
    }
    out->min_error = TS_RUN_BAND_DEFAULT_MIN;
    out->max_error = TS_RUN_BAND_DEFAULT_MAX;
    snprintf(out->source, sizeof out->source,
             "default: %s is not validated on %s in %s; a band wider than every "
             "validation table's rows (together -12.7%% .. +36.7%%)",
             sw->name[0] ? sw->name : "the software profile", job->system.accel.name,
             ts_precision_names[job->precision]);
}

void ts_run_model_factors(const struct ts_run_band *b, uint64_t seed, int n, double *factor)
{
    if (!b->on || n < 1) {
        for (int i = 0; i < n; i++)
            factor[i] = 1.0;
        return;
    }
    int *order = malloc((size_t)n * sizeof *order);
    TS_ASSERT(order != NULL, "out of memory");
    for (int i = 0; i < n; i++)
        order[i] = i;
    gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
    TS_ASSERT(g != NULL, "out of memory");
    gsl_rng_set(g, (unsigned long)ts_rng_stream_seed(seed, 0, MODEL_PURPOSE));
    for (int i = n - 1; i > 0; i--) {       /* Fisher-Yates */
        int j = (int)gsl_rng_uniform_int(g, (unsigned long)i + 1);
        int t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    gsl_rng_free(g);
    for (int i = 0; i < n; i++) {
        double u = (order[i] + 0.5) / n;
        factor[i] = 1.0 + b->min_error + (b->max_error - b->min_error) * u;
    }
    free(order);
}

/* Quantiles (and mean) of n values into q[TS_RUN_QUANTILES] and *mean, and the one at level
 * at (> 0) into *at; v is sorted. */
static void quantiles_of(double *v, int n, double *q, double *mean, double at, double *at_v)
{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += v[i];
    *mean = s / n;
    ts_stats_sort(v, (size_t)n);
    for (int k = 0; k < TS_RUN_QUANTILES; k++)
        q[k] = ts_stats_percentile_sorted(v, (size_t)n, ts_run_quantile_levels[k]);
    if (at > 0)
        *at_v = ts_stats_percentile_sorted(v, (size_t)n, at);
}

int ts_run_distribution_compute(const struct ts_run_band *band, const struct ts_job *job,
                                const struct ts_iteration *it, const struct ts_run_result *run,
                                const double *wall, int n, double checkpoint_bytes, double q,
                                struct ts_run_distribution *out, struct ts_err *err)
{
    memset(out, 0, sizeof *out);
    out->q = q;
    out->band = *band;
    out->n = n;
    double *t = malloc((size_t)n * sizeof *t), *f = malloc((size_t)n * sizeof *f);
    double *c = malloc((size_t)n * sizeof *c);
    TS_ASSERT(t && f && c, "out of memory");
    ts_run_model_factors(band, job->reliability.seed, n, f);
    for (int i = 0; i < n; i++)
        t[i] = wall[i] * f[i];
    int rc = TS_OK;
    if (job->has_cost) {
        /* Each replication's bill at its own wall time, as the cost model bills a sample
         * for its p90 (one sample: its p90 is its bill). */
        for (int i = 0; i < n && rc == TS_OK; i++) {
            struct ts_cost_input ci = {job, it, run, &t[i], 1, checkpoint_bytes};
            struct ts_cost_result cr;
            rc = ts_cost_compute(&ci, &cr, err);
            c[i] = cr.p90_usd;
        }
        if (rc == TS_OK) {
            out->has_cost = true;
            quantiles_of(c, n, out->cost_usd, &out->cost_mean_usd, q, &out->cost_at_q_usd);
        }
    }
    if (rc == TS_OK)
        quantiles_of(t, n, out->time_s, &out->time_mean_s, q, &out->time_at_q_s);
    free(t);
    free(f);
    free(c);
    return rc;
}

double ts_run_distribution_quantile(const struct ts_run_band *band, uint64_t seed, const double *wall,
                                    int n, double q)
{
    double *t = malloc((size_t)n * sizeof *t);
    TS_ASSERT(t != NULL, "out of memory");
    ts_run_model_factors(band, seed, n, t);
    for (int i = 0; i < n; i++)
        t[i] *= wall[i];
    ts_stats_sort(t, (size_t)n);
    double v = ts_stats_percentile_sorted(t, (size_t)n, q);
    free(t);
    return v;
}
