/*
 * Sensitivity of a job or a sweep to its uncertain inputs (sensitivity.h): one input at a
 * time over its range, the tornado order, and break-evens by bisection.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compute/compute.h"
#include "search/sensitivity.h"
#include "search/shard.h"

const char *const ts_sens_input_names[TS_SENS_COUNT] = {
    "throughput", "failure_rate", "recovery_time", "spot_preemption_rate", "prices",
    "spot_price", "checkpoint_bandwidth", "tokens"};
_Static_assert(TS_SENS_COUNT == 8, "update ts_sens_input_names");

/* The stated ranges (sensitivity.h). failure_rate x0.5..x2 is the range; the others
 * are trainsim's choice, stated in every output: a factor of two on times and rates that are
 * guesses for most users (recovery, preemption, storage bandwidth), +-20% on money and on
 * the token budget, which are usually known better. */
static const double range_lo[TS_SENS_COUNT] = {0.8, 0.5, 0.5, 0.5, 0.8, 0.8, 0.5, 0.8};
static const double range_hi[TS_SENS_COUNT] = {1.2, 2.0, 2.0, 2.0, 1.2, 1.2, 2.0, 1.2};

/* Throughput range where a profile has no published row on the device: +-20%, the width
 * of the widest validated bands (pytorch-fsdp on A100: -5.4% .. +37.4%; H100 -19.9% ..
 * +25.9%; README "Validation"), an assumption. */
#define SENS_UNVALIDATED_LO 0.8
#define SENS_UNVALIDATED_HI 1.2

/* How far spot's break-evens are searched beyond the stated range: preemption rates up to
 * 512x the range end (x1024 the assumed rate, one per node every few hours at the default),
 * spot prices up to 4x the range end (x4.8: above any on-demand price in configs/prices). */
#define SENS_WIDEN_PREEMPTION 512.0
#define SENS_WIDEN_PRICE 4.0

/* ---------------------------------------------------------------- one job, in full */

int ts_job_eval_full(const struct ts_job *job, struct ts_job_eval *out, double *samples,
                     struct ts_trace *trace, struct ts_err *err)
{
    memset(out, 0, sizeof *out);
    struct ts_eval_scratch scratch;
    if (ts_eval_scratch_init(&scratch))
        return ts_err_set(err, TS_ERR_RUNTIME, "out of memory");
    ts_step_evaluate(job, TS_METHOD_DISCRETE_EVENT, &scratch, &out->it, NULL, trace);
    int rc = TS_OK;
    double ckpt = ts_compute_checkpoint_bytes(job, &scratch.compute);
    out->checkpoint_bytes = ckpt;
    int n = job->reliability.replications > 0 ? job->reliability.replications : 1;
    double *own = NULL;
    if (job->has_reliability && job->has_training && out->it.feasible) {
        struct ts_run_input in;
        memset(&in, 0, sizeof in);
        in.iteration_s = out->it.iteration_s;
        in.iterations = out->it.iterations;
        in.gpus = job->gpus;
        in.nodes = job->nodes;
        in.gpus_per_node = job->system.gpus_per_node;
        in.dp = job->parallel.dp;
        in.checkpoint_bytes = ckpt;
        in.rel = job->reliability;
        /* Elastic: as `trainsim run` (sim/cli/run.c): dp / (dp - k) per missing replica. */
        double *elastic = NULL;
        if (job->reliability.elastic) {
            elastic = ts_xmalloc((size_t)in.dp * sizeof *elastic);
            for (int k = 0; k < in.dp; k++)
                elastic[k] = out->it.iteration_s * in.dp / (double)(in.dp - k);
            in.elastic_iteration_s = elastic;
        }
        if (!samples)
            samples = own = ts_xmalloc((size_t)n * sizeof *own);
        rc = ts_run_simulate(&in, &out->run, samples, NULL, err);
        free(elastic);
        if (rc == TS_OK) {
            out->have_run = true;
            out->n_samples = n;
        }
    }
    if (rc == TS_OK && job->has_cost && out->it.feasible) {
        struct ts_cost_input ci = {job, &out->it, out->have_run ? &out->run : NULL,
                                   out->have_run ? samples : NULL, out->have_run ? n : 0, ckpt};
        if ((rc = ts_cost_compute(&ci, &out->cost, err)) == TS_OK)
            out->have_cost = true;
    }
    free(own);
    ts_eval_scratch_free(&scratch);
    return rc;
}

int ts_job_replication_bills(const struct ts_job *job, const struct ts_iteration *it,
                             const struct ts_run_result *run, double checkpoint_bytes,
                             const double *samples, int n, double *bills, struct ts_err *err)
{
    /* One sample: the cost model's p90 is the bill at that sample's wall time (and the
     * steps it took), as sim/run/uncertainty.c bills each replication. */
    for (int i = 0; i < n; i++) {
        struct ts_cost_input ci = {job, it, run, &samples[i], 1, checkpoint_bytes};
        struct ts_cost_result cr;
        int rc = ts_cost_compute(&ci, &cr, err);
        if (rc)
            return rc;
        bills[i] = cr.p90_usd;
    }
    return TS_OK;
}

/* ---------------------------------------------------------------- perturbations */

static void scale_system(struct ts_system *s, double speed)
{
    struct ts_accel *a = &s->accel;
    for (int p = 0; p < TS_PREC_COUNT; p++)
        a->peak_flops[p] *= speed;
    a->memory_bandwidth *= speed;
    a->kernel_latency /= speed;
    s->scale_up.bandwidth *= speed;
    s->scale_up.latency /= speed;
    s->scale_out.bandwidth *= speed;
    s->scale_out.latency /= speed;
}

static void scale_mech(struct ts_sw_mech *m, double speed)
{
    m->host_dispatch_s /= speed;
    if (m->kernel_latency_s > 0)
        m->kernel_latency_s /= speed;
}

static void scale_reliability(struct ts_reliability *r, enum ts_sens_input in, double m)
{
    struct ts_recovery *rc = &r->mech.recovery;
    struct ts_checkpoint *c = &r->checkpoint;
    switch (in) {
    case TS_SENS_FAILURE_RATE:
        r->rate_scale *= m;
        break;
    case TS_SENS_RECOVERY:
        r->restart_overhead_s *= m;
        rc->crash_detect_s *= m;
        rc->hang_timeout_s *= m;
        rc->diagnose_median_s *= m;
        rc->queue_s *= m;
        rc->startup_s *= m;
        rc->startup_per_node_s *= m;
        break;
    case TS_SENS_PREEMPTION:
        r->spot.preemption_mtbf_s /= m;     /* rate x m */
        break;
    case TS_SENS_CKPT_BANDWIDTH:
        c->write_bandwidth *= m;            /* 0 (no aggregate limit) stays 0 */
        c->read_bandwidth *= m;
        c->node_write_bandwidth *= m;
        c->node_read_bandwidth *= m;
        c->snapshot_bandwidth *= m;
        break;
    default:
        break;
    }
}

static void scale_prices(struct ts_cost_config *c, double m, bool spot_only)
{
    for (int p = 0; p < TS_PRICING_COUNT; p++) {
        if (spot_only && p != TS_PRICING_SPOT)
            continue;
        c->gpu_hour[p] *= m;        /* NAN (not priced) stays NAN */
        c->node_hour[p] *= m;
    }
    if (spot_only)
        return;
    c->fixed_per_hour *= m;
    for (int t = 0; t < TS_TIER_COUNT; t++)
        c->storage_gb_month[t] *= m;
    c->inter_node_gb *= m;
    c->egress_gb *= m;
    c->cross_region_gb *= m;
    c->loader_host_hour *= m;
    c->monitoring_node_hour *= m;
    c->log_ingest_gb *= m;
    c->ops_hourly_rate *= m;
}

void ts_sens_apply_job(struct ts_job *job, enum ts_sens_input in, double m)
{
    switch (in) {
    case TS_SENS_THROUGHPUT:
        scale_system(&job->system, m);
        scale_mech(&job->parallel.sw, m);
        break;
    case TS_SENS_PRICES:
    case TS_SENS_SPOT_PRICE:
        scale_prices(&job->cost, m, in == TS_SENS_SPOT_PRICE);
        break;
    case TS_SENS_TOKENS:
        job->training.tokens *= m;
        break;
    default:
        scale_reliability(&job->reliability, in, m);
        break;
    }
}

void ts_sens_apply_sweep(struct ts_sweep *sw, enum ts_sens_input in, double m)
{
    switch (in) {
    case TS_SENS_THROUGHPUT:
        for (int s = 0; s < sw->n_systems; s++)
            scale_system(&sw->systems[s], m);
        scale_mech(&sw->fixed.sw, m);
        for (int k = 0; k < sw->n_software; k++)
            scale_mech(&sw->fixed_by_software[k].sw, m);
        break;
    case TS_SENS_PRICES:
    case TS_SENS_SPOT_PRICE:
        for (int s = 0; s < sw->n_systems; s++)
            scale_prices(&sw->cost[s], m, in == TS_SENS_SPOT_PRICE);
        break;
    case TS_SENS_TOKENS:
        sw->tokens *= m;
        break;
    case TS_SENS_PREEMPTION:
        /* The sweep's spot rows preempt at the file's rate, else at the search's default
         * (search.c job_patch); the perturbation needs the value to scale. */
        if (!sw->reliability.spot.enabled) {
            sw->reliability.spot.enabled = true;
            sw->reliability.spot.preemption_mtbf_s = TS_SWEEP_SPOT_MTBF_S;
            sw->reliability.spot.notice_s = TS_SWEEP_SPOT_NOTICE_S;
            sw->reliability.spot.reacquire_s = TS_SWEEP_SPOT_REACQUIRE_S;
        }
        scale_reliability(&sw->reliability, in, m);
        break;
    default:
        scale_reliability(&sw->reliability, in, m);
        break;
    }
}

bool ts_sens_throughput_range(const struct ts_software *sw, const char *device, int precision,
                              int seq_len, double *lo, double *hi)
{
    const struct ts_sw_band *b = ts_software_band(sw, device, precision, seq_len);
    if (b) {
        /* error = predicted / published - 1, so published / predicted = 1 / (1 + error). */
        *lo = 1.0 / (1.0 + b->max_error);
        *hi = 1.0 / (1.0 + b->min_error);
        return true;
    }
    *lo = SENS_UNVALIDATED_LO;
    *hi = SENS_UNVALIDATED_HI;
    return false;
}

double ts_sens_bisect(double a, double b, int steps, bool (*pred)(double x, void *ctx), void *ctx,
                      double *b_out)
{
    for (int i = 0; i < steps; i++) {
        double mid = sqrt(a * b);   /* geometric midpoint: the ranges are factors */
        if (pred(mid, ctx))
            a = mid;
        else
            b = mid;
    }
    if (b_out)
        *b_out = b;
    return a;
}

/* ---------------------------------------------------------------- evaluating a point */

#define SENS_MEMO_MAX 128

struct subject {
    const struct ts_job *job;       // one of these two
    const struct ts_sweep *sw;
    const struct ts_sens_options *opt;
    struct ts_job *job_work;        // scratch copies (large structs)
    struct ts_sweep *sw_work;
    long evaluations;
    /* Points already evaluated (the range ends, the bisection's points), looked up before
     * evaluating again: the statement of a break-even re-reads its flip point. */
    int n_memo;
    struct memo { int in; double m; struct ts_sens_answer a; } memo[SENS_MEMO_MAX];
};

static void answer_label(struct ts_sens_answer *a, const char *system, int nodes, int pricing,
                         bool priced)
{
    snprintf(a->label, sizeof a->label, "%d x %s%s%s", nodes, system, priced ? ", " : "",
             priced ? ts_pricing_names[pricing] : "");
}

/* Evaluate the subject with input `in` at multiplier m (in == TS_SENS_COUNT: the base). */
static void evaluate_new(struct subject *s, int in, double m, struct ts_sens_answer *a);

/* The answer of a sweep's result: its best purchase, Monte Carlo figures when it has them. */
static void sweep_answer(const struct subject *s, const struct ts_sweep_result *r,
                         struct ts_sens_answer *a)
{
    a->ok = true;
    a->found = r->found;
    if (!r->found) {
        ts_strlcpy(a->label, "nothing meets the constraint", sizeof a->label);
        return;
    }
    const struct ts_outcome *t = &r->top[0];
    a->system = t->layout.system;
    a->nodes = t->layout.nodes;
    a->pricing = t->pricing;
    answer_label(a, s->sw->systems[a->system].name, a->nodes, a->pricing, s->sw->has_cost);
    a->time_s = t->monte_carlo ? t->mc_time_mean_s : t->time_s;
    a->cost_usd = s->sw->has_cost ? (t->monte_carlo ? t->mc_cost_mean_usd : t->cost_usd) : (double)NAN;
}

static void evaluate(struct subject *s, int in, double m, struct ts_sens_answer *a)
{
    for (int i = 0; i < s->n_memo; i++)
        if (s->memo[i].in == in && s->memo[i].m == m) {
            *a = s->memo[i].a;
            return;
        }
    evaluate_new(s, in, m, a);
    if (s->n_memo < SENS_MEMO_MAX)
        s->memo[s->n_memo++] = (struct memo){in, m, *a};
}

static void evaluate_new(struct subject *s, int in, double m, struct ts_sens_answer *a)
{
    memset(a, 0, sizeof *a);
    a->cost_usd = NAN;
    a->time_s = NAN;
    struct ts_err err;
    ts_err_clear(&err);
    if (!s->job && in == TS_SENS_COUNT && s->opt->base_result) {
        sweep_answer(s, s->opt->base_result, a);     /* the caller's own run of the base */
        return;
    }
    s->evaluations++;
    if (s->opt->progress)
        fprintf(stderr, "\rtrainsim sensitivity: evaluation %ld", s->evaluations);
    if (s->job) {
        *s->job_work = *s->job;
        if (in < TS_SENS_COUNT)
            ts_sens_apply_job(s->job_work, (enum ts_sens_input)in, m);
        struct ts_job_eval *e = ts_xmalloc(sizeof *e);
        int rc = ts_job_eval_full(s->job_work, e, NULL, NULL, &err);
        if (rc) {
            ts_strlcpy(a->error, err.msg, sizeof a->error);
        } else {
            a->ok = true;
            a->found = e->it.feasible;
            a->nodes = s->job->nodes;
            a->pricing = s->job->cost.pricing;
            answer_label(a, s->job->system.name, s->job->nodes, a->pricing, s->job->has_cost);
            if (e->it.feasible) {
                a->time_s = e->have_run ? e->run.mean_s : e->it.time_to_train_s;
                a->cost_usd = e->have_cost ? e->cost.total_usd : (double)NAN;
            } else {
                snprintf(a->label + strlen(a->label), sizeof a->label - strlen(a->label),
                         " (does not fit in memory)");
            }
        }
        free(e);
        return;
    }
    *s->sw_work = *s->sw;
    if (in < TS_SENS_COUNT)
        ts_sens_apply_sweep(s->sw_work, (enum ts_sens_input)in, m);
    struct ts_sweep_options o;
    memset(&o, 0, sizeof o);
    o.threads = s->opt->threads;
    o.stop = s->opt->stop;
    struct ts_sweep_result *r = ts_xmalloc(sizeof *r);
    int rc = ts_sweep_run(s->sw_work, &o, r, &err);
    if (rc == TS_OK && r->interrupted) {
        ts_strlcpy(a->error, "interrupted", sizeof a->error);
        ts_sweep_result_free(r);
        free(r);
        return;
    }
    if (rc) {
        ts_strlcpy(a->error, err.msg, sizeof a->error);
        free(r);
        return;
    }
    sweep_answer(s, r, a);
    ts_sweep_result_free(r);
    free(r);
}

/* Evaluate the points (in[i], m[i]) not yet remembered, point k of them on MPI rank
 * k % ranks, each whole on its rank (a sweep runs as one process there: search/shard.h),
 * and remember them all on every rank in index order: the same memo, and so the same bytes,
 * for any number of ranks. With one rank this is evaluate() in order. */
static void evaluate_sharded(struct subject *s, int n, const int *in, const double *m)
{
    int todo_in[2 * TS_SENS_COUNT];
    double todo_m[2 * TS_SENS_COUNT];
    int k = 0;
    for (int i = 0; i < n; i++) {
        bool known = false;
        for (int j = 0; j < s->n_memo && !known; j++)
            known = s->memo[j].in == in[i] && s->memo[j].m == m[i];
        for (int j = 0; j < k && !known; j++)
            known = todo_in[j] == in[i] && todo_m[j] == m[i];
        if (!known && k < (int)TS_ARRAY_LEN(todo_in)) {
            todo_in[k] = in[i];
            todo_m[k++] = m[i];
        }
    }
    if (k == 0)
        return;
    struct ts_sens_answer *a = ts_xcalloc((size_t)k, sizeof *a);
    int rank = ts_shard_rank(), ranks = ts_shard_size();
    long before = s->evaluations;
    if (ranks > 1)
        ts_shard_local_begin();
    for (int i = rank; i < k && !(s->opt->stop && *s->opt->stop); i += ranks)
        evaluate_new(s, todo_in[i], todo_m[i], &a[i]);
    if (ranks > 1)
        ts_shard_local_end();
    ts_shard_gather(a, k, sizeof *a);
    s->evaluations = before + k;    /* every rank counts every point */
    for (int i = 0; i < k && s->n_memo < SENS_MEMO_MAX; i++)
        s->memo[s->n_memo++] = (struct memo){todo_in[i], todo_m[i], a[i]};
    free(a);
}

static bool same_answer(const struct subject *s, const struct ts_sens_answer *a,
                        const struct ts_sens_answer *b)
{
    if (!a->ok || !b->ok || a->found != b->found)
        return false;
    if (!s->sw)
        return true;        /* a job: the purchase is given */
    return !a->found || (a->system == b->system && a->nodes == b->nodes && a->pricing == b->pricing);
}

static double objective_of(enum ts_objective obj, const struct ts_sens_answer *a)
{
    return obj == TS_OBJECTIVE_COST ? a->cost_usd : a->time_s;
}

/* ---------------------------------------------------------------- break-even */

struct holds_ctx {
    struct subject *s;
    enum ts_sens_input in;
    const struct ts_sens_answer *base;
};

static bool holds(double m, void *ctx)
{
    struct holds_ctx *h = ctx;
    struct ts_sens_answer a;
    evaluate(h->s, (int)h->in, m, &a);
    return same_answer(h->s, &a, h->base);
}

/* The value an input takes at multiplier m, in words, for the statements. */
static void input_value(const struct subject *s, enum ts_sens_input in, double m,
                        const struct ts_sens_answer *base, char *buf, size_t n)
{
    char q[48];
    const struct ts_reliability *rel = s->sw ? &s->sw->reliability : &s->job->reliability;
    if (in == TS_SENS_PREEMPTION) {
        double mtbf = rel->spot.enabled ? rel->spot.preemption_mtbf_s : TS_SWEEP_SPOT_MTBF_S;
        snprintf(buf, n, "one per node every %s", ts_quantity_format(mtbf / m, TS_DIM_SECONDS, q, sizeof q));
    } else if (in == TS_SENS_SPOT_PRICE && base->found) {
        const struct ts_cost_config *c = s->sw ? &s->sw->cost[base->system] : &s->job->cost;
        const struct ts_system *sys = s->sw ? &s->sw->systems[base->system] : &s->job->system;
        double p = isnan(c->gpu_hour[TS_PRICING_SPOT]) ? c->node_hour[TS_PRICING_SPOT] / sys->gpus_per_node
                                                        : c->gpu_hour[TS_PRICING_SPOT];
        snprintf(buf, n, "$%.3f per GPU-hour on %s (x%.3g)", p * m, sys->name, m);
    } else if (in == TS_SENS_TOKENS) {
        snprintf(buf, n, "%.4g tokens (x%.3g)", (s->sw ? s->sw->tokens : s->job->training.tokens) * m, m);
    } else {
        snprintf(buf, n, "x%.3g of the assumed value", m);
    }
}

static const char *const input_words[TS_SENS_COUNT] = {
    "the throughput", "failure rates", "recovery time", "spot preemptions", "prices",
    "the spot price", "checkpoint bandwidth", "the token budget"};
static const bool input_plural[TS_SENS_COUNT] = {false, true, false, true, true, false, false, false};

static const char *verb(enum ts_sens_input in, bool up)
{
    return up ? (input_plural[in] ? "rise to" : "rises to") : (input_plural[in] ? "fall to" : "falls to");
}

/* Find where the base answer stops holding along input `in`, from multiplier 1 towards
 * `end` (the range end, known to change the answer when end_changes). When it does not
 * change there and `widen` > 1, the range is widened by doubling (or halving, when end < 1)
 * up to end x widen (or / widen): spot's break-evens are the buyer's question even when the
 * stated range does not reach them. Then bisection between the last multiplier that holds and
 * the first that does not. */
static void break_even(struct subject *s, struct ts_sensitivity *out, enum ts_sens_input in,
                       double end, bool end_changes, double widen)
{
    struct ts_sens_break_even *be = &out->break_even[out->n_break_even];
    memset(be, 0, sizeof *be);
    be->input = in;
    int steps = s->opt->bisect_steps > 0 ? s->opt->bisect_steps : 7;
    struct holds_ctx h = {s, in, &out->base};
    double hold = 1.0, flip = end;
    bool flips = end_changes;
    double step = end >= 1.0 ? 2.0 : 0.5, limit = end >= 1.0 ? end * widen : end / widen;
    char v[96];
    if (!flips) {
        if (widen <= 1.0)
            return;
        hold = end;
        for (double m = end * step; end >= 1.0 ? m <= limit * 1.0001 : m >= limit * 0.9999; m *= step) {
            if (!holds(m, &h)) {
                flips = true;
                flip = m;
                break;
            }
            hold = m;
        }
        if (!flips) {
            input_value(s, in, limit, &out->base, v, sizeof v);
            snprintf(be->statement, sizeof be->statement,
                     "%s stays the answer even when %s %s %s (x%g, the widest searched)",
                     out->base.label, input_words[in], verb(in, end >= 1.0), v, limit);
            be->multiplier = limit;
            be->multiplier_flip = (double)NAN;
            out->n_break_even++;
            return;
        }
    }
    double b;
    double a = ts_sens_bisect(hold, flip, steps, holds, &h, &b);
    be->found = true;
    be->multiplier = a;
    be->multiplier_flip = b;
    input_value(s, in, b, &out->base, v, sizeof v);
    struct ts_sens_answer after;
    evaluate(s, (int)in, b, &after);
    bool up = flip > 1.0;
    if (in == TS_SENS_PREEMPTION && up)
        snprintf(be->statement, sizeof be->statement,
                 "%s stays the answer unless spot preemptions exceed %s (then: %s)",
                 out->base.label, v, after.ok ? after.label : after.error);
    else
        snprintf(be->statement, sizeof be->statement,
                 "%s stays the answer unless %s %s %s (then: %s)", out->base.label,
                 input_words[in], verb(in, up), v, after.ok ? after.label : after.error);
    out->n_break_even++;
}

/* ---------------------------------------------------------------- the analysis */

static int cmp_rows(const void *pa, const void *pb)
{
    const struct ts_sens_row *a = pa, *b = pb;
    if (a->applicable != b->applicable)
        return a->applicable ? -1 : 1;
    if (a->applicable) {
        double sa = isfinite(a->swing) ? a->swing : -1, sb = isfinite(b->swing) ? b->swing : -1;
        if (sa != sb)
            return sa > sb ? -1 : 1;
        if (a->answer_changes != b->answer_changes)
            return a->answer_changes ? -1 : 1;
    }
    return (int)a->input - (int)b->input;   /* stable: input order */
}

static bool spot_priced(const struct subject *s)
{
    if (s->job)
        return s->job->has_cost && s->job->cost.pricing == TS_PRICING_SPOT;
    for (int i = 0; i < s->sw->n_systems; i++)
        if (s->sw->offered[i][TS_PRICING_SPOT] && s->sw->has_cost)
            for (int p = 0; p < s->sw->n_pricing; p++)
                if (s->sw->pricing[p] == TS_PRICING_SPOT)
                    return true;
    return false;
}

static int analyse(struct subject *s, struct ts_sensitivity *out, struct ts_err *err)
{
    evaluate(s, TS_SENS_COUNT, 1.0, &out->base);
    if (!out->base.ok)
        return ts_err_set(err, TS_ERR_INPUT, "%s", out->base.error);
    bool priced = s->job ? s->job->has_cost : s->sw->has_cost;
    bool failures = s->job ? s->job->has_reliability && s->job->has_training &&
                                 !s->job->reliability.none
                           : !s->sw->reliability.none;
    bool spot = spot_priced(s);
    out->objective = s->sw ? s->sw->objective : priced ? TS_OBJECTIVE_COST : TS_OBJECTIVE_TIME;
    /* The throughput band: the profile on the answer's device. */
    const struct ts_software *sft = s->job ? &s->job->software : &s->sw->software[0];
    const char *device = s->job ? s->job->system.accel.name
                                : s->sw->systems[out->base.found ? out->base.system : 0].accel.name;
    double tlo, thi;
    int precision = (int)(s->job ? s->job->precision : s->sw->precision);
    int seq_len = s->job ? s->job->model.seq_len : s->sw->model.seq_len;
    bool validated = ts_sens_throughput_range(sft, device, precision, seq_len, &tlo, &thi);
    for (int in = 0; in < TS_SENS_COUNT; in++) {
        struct ts_sens_row *r = &out->rows[out->n_rows++];
        memset(r, 0, sizeof *r);
        r->input = (enum ts_sens_input)in;
        r->low = range_lo[in];
        r->high = range_hi[in];
        r->applicable = true;
        switch (in) {
        case TS_SENS_THROUGHPUT:
            r->low = tlo;
            r->high = thi;
            if (validated)
                snprintf(r->range, sizeof r->range, "device speed x%.3f .. x%.3f: the validation "
                         "band of %s on %s", tlo, thi, sft->name[0] ? sft->name : "the profile", device);
            else
                snprintf(r->range, sizeof r->range, "device speed x%.2f .. x%.2f: %s on %s is not "
                         "validated (assumed band)", tlo, thi, sft->name[0] ? sft->name : "the profile",
                         device);
            break;
        case TS_SENS_FAILURE_RATE:
            snprintf(r->range, sizeof r->range, "reliability.rate_scale x0.5 .. x2 (every failure process)");
            if (!failures) {
                r->applicable = false;
                snprintf(r->why_not, sizeof r->why_not, "no failures are simulated");
            }
            break;
        case TS_SENS_RECOVERY:
            snprintf(r->range, sizeof r->range, "restart_overhead and recovery phases x0.5 .. x2");
            if (!failures && !spot) {
                r->applicable = false;
                snprintf(r->why_not, sizeof r->why_not, "no failures or preemptions are simulated");
            }
            break;
        case TS_SENS_PREEMPTION:
            snprintf(r->range, sizeof r->range, "spot preemptions per node x0.5 .. x2");
            if (!spot) {
                r->applicable = false;
                snprintf(r->why_not, sizeof r->why_not, "no spot pricing");
            }
            break;
        case TS_SENS_PRICES:
            snprintf(r->range, sizeof r->range, "every price of the cost section x0.8 .. x1.2");
            if (!priced) {
                r->applicable = false;
                snprintf(r->why_not, sizeof r->why_not, "no cost section");
            }
            break;
        case TS_SENS_SPOT_PRICE:
            snprintf(r->range, sizeof r->range, "spot GPU-hour prices x0.8 .. x1.2");
            if (!spot) {
                r->applicable = false;
                snprintf(r->why_not, sizeof r->why_not, "no spot pricing");
            }
            break;
        case TS_SENS_CKPT_BANDWIDTH:
            snprintf(r->range, sizeof r->range, "checkpoint write, read and snapshot bandwidth x0.5 .. x2");
            if (!failures && !spot) {
                r->applicable = false;
                snprintf(r->why_not, sizeof r->why_not, "no checkpoints (no failures simulated)");
            }
            break;
        case TS_SENS_TOKENS:
            snprintf(r->range, sizeof r->range, "training tokens x0.8 .. x1.2");
            if (s->job && !s->job->has_training) {
                r->applicable = false;
                snprintf(r->why_not, sizeof r->why_not, "no training section");
            }
            break;
        default:
            break;
        }
        if (r->applicable && s->opt->only && !(s->opt->only & (1u << in))) {
            r->applicable = false;
            snprintf(r->why_not, sizeof r->why_not, "not asked for (--inputs)");
        }
        if (!r->applicable)
            r->swing = NAN;
    }
    /* The range ends are independent points: shared out over the MPI ranks by index. */
    int n_points = 0, pin[2 * TS_SENS_COUNT];
    double pm[2 * TS_SENS_COUNT];
    for (int i = 0; i < out->n_rows; i++)
        if (out->rows[i].applicable) {
            pin[n_points] = (int)out->rows[i].input;
            pm[n_points++] = out->rows[i].low;
            pin[n_points] = (int)out->rows[i].input;
            pm[n_points++] = out->rows[i].high;
        }
    evaluate_sharded(s, n_points, pin, pm);
    /* Agreed across MPI ranks (search/shard.h): all stop at the same point. */
    if (ts_shard_any(s->opt->stop && *s->opt->stop))
        return ts_err_set(err, TS_ERR_RUNTIME, "interrupted");
    for (int i = 0; i < out->n_rows; i++) {
        struct ts_sens_row *r = &out->rows[i];
        if (!r->applicable)
            continue;
        evaluate(s, (int)r->input, r->low, &r->at_low);
        evaluate(s, (int)r->input, r->high, &r->at_high);
        r->answer_changes = !same_answer(s, &r->at_low, &out->base) ||
                            !same_answer(s, &r->at_high, &out->base);
        r->swing = fabs(objective_of(out->objective, &r->at_high) -
                        objective_of(out->objective, &r->at_low));
    }
    /* Break-evens: where the answer flips inside a range, and spot's preemption rate. */
    for (int i = 0; i < out->n_rows; i++) {
        const struct ts_sens_row *r = &out->rows[i];
        if (!r->applicable || !s->sw)
            continue;
        bool lo_changes = !same_answer(s, &r->at_low, &out->base);
        bool hi_changes = !same_answer(s, &r->at_high, &out->base);
        bool spot_answer = out->base.found && out->base.pricing == TS_PRICING_SPOT;
        bool spot_input = r->input == TS_SENS_PREEMPTION || r->input == TS_SENS_SPOT_PRICE;
        if (hi_changes)
            break_even(s, out, r->input, r->high, true, 1.0);
        else if (lo_changes)
            break_even(s, out, r->input, r->low, true, 1.0);
        else if (spot_input && spot_answer)      /* how bad spot may get */
            break_even(s, out, r->input, r->high,
                       false, r->input == TS_SENS_PREEMPTION ? SENS_WIDEN_PREEMPTION : SENS_WIDEN_PRICE);
        else if (spot_input && out->base.found)  /* how good spot must get */
            break_even(s, out, r->input, r->low,
                       false, r->input == TS_SENS_PREEMPTION ? SENS_WIDEN_PREEMPTION : SENS_WIDEN_PRICE);
    }
    if (ts_shard_any(s->opt->stop && *s->opt->stop))
        return ts_err_set(err, TS_ERR_RUNTIME, "interrupted");
    qsort(out->rows, (size_t)out->n_rows, sizeof out->rows[0], cmp_rows);
    if (s->opt->progress)
        fputc('\n', stderr);
    out->evaluations = s->evaluations;
    return TS_OK;
}

int ts_sensitivity_job(const struct ts_job *job, const struct ts_sens_options *opt,
                       struct ts_sensitivity *out, struct ts_err *err)
{
    memset(out, 0, sizeof *out);
    struct subject *s = ts_xcalloc(1, sizeof *s);
    *s = (struct subject){.job = job, .opt = opt, .job_work = ts_xmalloc(sizeof *s->job_work)};
    int rc = analyse(s, out, err);
    free(s->job_work);
    free(s);
    return rc;
}

int ts_sensitivity_sweep(const struct ts_sweep *sw, const struct ts_sens_options *opt,
                         struct ts_sensitivity *out, struct ts_err *err)
{
    memset(out, 0, sizeof *out);
    out->is_sweep = true;
    struct subject *s = ts_xcalloc(1, sizeof *s);
    *s = (struct subject){.sw = sw, .opt = opt, .sw_work = ts_xmalloc(sizeof *s->sw_work)};
    int rc = analyse(s, out, err);
    free(s->sw_work);
    free(s);
    return rc;
}
