/*
 * The sweep engine: enumerate, screen with a lower bound, branch and bound in deterministic
 * batches, Monte Carlo for the finalists (see search.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <omp.h>

#include "search/search.h"

const char *const ts_reject_names[TS_REJECT_COUNT] = {
    "none", "divisibility", "memory", "constraint_unreachable", "pruned_by_bound",
    "misses_deadline_probability",
};
_Static_assert(TS_REJECT_COUNT == 6, "update ts_reject_names");

/* Default spot preemption rate when a sweep prices spot without a reliability.spot section:
 * the top band of the AWS Spot Advisor (more than 20% of instances interrupted per month),
 * typical of large GPU instances (shared reference reliability.md): one preemption per node
 * every 0.2 per 730 h, i.e. a per-node MTBF of 3650 h. Notice 120 s (AWS). */
#define SPOT_DEFAULT_MTBF_S (3650.0 * 3600.0)
#define SPOT_DEFAULT_NOTICE_S 120.0
#define SPOT_DEFAULT_REACQUIRE_S 600.0

/* ---------------------------------------------------------------- jobs from layouts */

static void layout_parallel(const struct ts_sweep *sw, const struct ts_layout *l, int gpus,
                            struct ts_parallel *p)
{
    *p = sw->fixed;
    p->tp = l->tp;
    p->pp = l->pp;
    p->cp = l->cp;
    p->dp = gpus / (l->tp * l->cp * l->pp);
    p->microbatch = l->microbatch;
    p->schedule = (enum ts_schedule)l->schedule;
    p->virtual_stages = l->virtual_stages;
    p->sequence_parallel = l->sp != 0;
    p->recompute = (enum ts_recompute)l->recompute;
    p->zero = l->zero;
    p->tp_comm_overlap = l->tp_overlap != 0;
    p->scatter_gather = sw->fixed.scatter_gather && l->tp > 1;
}

/* Patch a job (whose model is already set) to a layout: system, size, parallel, sections. */
static void job_patch(const struct ts_sweep *sw, const struct ts_layout *l, enum ts_pricing pricing,
                      struct ts_job *job, int *current_system)
{
    if (*current_system != l->system) {
        job->system = sw->systems[l->system];
        *current_system = l->system;
    }
    job->nodes = l->nodes;
    job->gpus = l->nodes * job->system.gpus_per_node;
    job->global_batch = l->global_batch;
    job->precision = sw->precision;
    layout_parallel(sw, l, job->gpus, &job->parallel);
    job->has_training = true;
    job->training.tokens = sw->tokens;
    job->has_reliability = sw->has_reliability || pricing == TS_PRICING_SPOT;
    job->reliability = sw->reliability;
    if (pricing == TS_PRICING_SPOT && !job->reliability.spot.enabled) {
        job->reliability.spot.enabled = true;
        job->reliability.spot.preemption_mtbf_s = SPOT_DEFAULT_MTBF_S;
        job->reliability.spot.notice_s = SPOT_DEFAULT_NOTICE_S;
        job->reliability.spot.reacquire_s = SPOT_DEFAULT_REACQUIRE_S;
    }
    if (pricing != TS_PRICING_SPOT)
        job->reliability.spot.enabled = false;
    job->has_cost = sw->has_cost;
    if (sw->has_cost) {
        job->cost = sw->cost[l->system];
        job->cost.pricing = pricing;
    }
}

void ts_sweep_layout_job(const struct ts_sweep *sw, const struct ts_layout *l, enum ts_pricing pricing,
                         struct ts_job *out)
{
    memset(out, 0, sizeof *out);
    out->model = sw->model;
    int cur = -1;
    job_patch(sw, l, pricing, out, &cur);
}

/* ---------------------------------------------------------------- enumeration */

struct layouts {
    struct ts_layout *v;
    size_t n, cap;
};

static void layouts_push(struct layouts *a, const struct ts_layout *l)
{
    if (a->n == a->cap) {
        a->cap = a->cap ? 2 * a->cap : 4096;
        a->v = ts_xrealloc(a->v, a->cap * sizeof *a->v);
    }
    a->v[a->n++] = *l;
}

/* Values of a dimension: the explicit list, or the auto list. */
static int dim_values(const struct ts_int_list *l, const int *autos, int n_auto, int *out)
{
    if (!l->is_auto) {
        memcpy(out, l->v, (size_t)l->n * sizeof *out);
        return l->n;
    }
    memcpy(out, autos, (size_t)n_auto * sizeof *out);
    return n_auto;
}

static int divisors(int x, int max, int *out, int cap)
{
    int n = 0;
    for (int d = 1; d <= x && d <= max && n < cap; d++)
        if (x % d == 0)
            out[n++] = d;
    return n;
}

struct enum_ctx {
    const struct ts_sweep *sw;
    struct ts_job job;          // scratch for validation
    int current_system;
    struct layouts *out;
    long enumerated;
    long rejected_divisibility;
};

static void try_layout(struct enum_ctx *e, const struct ts_layout *l)
{
    e->enumerated++;
    job_patch(e->sw, l, TS_PRICING_ON_DEMAND, &e->job, &e->current_system);
    struct ts_err err;
    if (ts_job_validate(&e->job, "sweep", &err) != TS_OK) {
        e->rejected_divisibility++;
        return;
    }
    layouts_push(e->out, l);
}

static void enumerate(const struct ts_sweep *sw, struct layouts *out, long *enumerated, long *rej_div)
{
    struct enum_ctx *e = ts_xcalloc(1, sizeof *e);
    e->sw = sw;
    e->out = out;
    e->job.model = sw->model;
    e->current_system = -1;
    const struct ts_model *m = &sw->model;

    int tps[TS_SWEEP_LIST_MAX], pps[TS_SWEEP_LIST_MAX], cps[TS_SWEEP_LIST_MAX], mbs[TS_SWEEP_LIST_MAX];
    int zs[TS_SWEEP_LIST_MAX], scheds[TS_SWEEP_LIST_MAX], sps[TS_SWEEP_LIST_MAX], recs[TS_SWEEP_LIST_MAX];
    int tpos[TS_SWEEP_LIST_MAX], vs_list[TS_SWEEP_LIST_MAX];
    int auto_tp[TS_SWEEP_LIST_MAX], auto_pp[TS_SWEEP_LIST_MAX];
    int n_auto_tp = divisors(m->heads, 64, auto_tp, TS_SWEEP_LIST_MAX);
    int n_auto_pp = divisors(m->layers, 128, auto_pp, TS_SWEEP_LIST_MAX);
    static const int auto_cp[] = {1, 2, 4, 8, 16};
    static const int auto_mb[] = {1, 2, 4, 8, 16};
    static const int auto_zero[] = {0, 1, 2, 3};
    static const int auto_sched[] = {TS_SCHED_1F1B, TS_SCHED_INTERLEAVED};
    static const int auto_bool[] = {0, 1};
    static const int auto_rec[] = {TS_RECOMPUTE_NONE, TS_RECOMPUTE_SELECTIVE, TS_RECOMPUTE_FULL};
    int ntp = dim_values(&sw->tp, auto_tp, n_auto_tp, tps);
    int npp = dim_values(&sw->pp, auto_pp, n_auto_pp, pps);
    int ncp = dim_values(&sw->cp, auto_cp, 5, cps);
    int nmb = dim_values(&sw->microbatch, auto_mb, 5, mbs);
    int nz = dim_values(&sw->zero, auto_zero, 4, zs);
    int nsched = dim_values(&sw->schedule, auto_sched, 2, scheds);
    int nsp = dim_values(&sw->sequence_parallel, auto_bool, 2, sps);
    int nrec = dim_values(&sw->recompute, auto_rec, 3, recs);
    /* TP communication overlap is a framework capability, not a layout choice: "auto" keeps
     * the job default (off); list [false, true] to search it. */
    static const int auto_off[] = {0};
    int ntpo = dim_values(&sw->tp_comm_overlap, auto_off, 1, tpos);
    int nvs_fixed = sw->virtual_stages.is_auto ? 0 : sw->virtual_stages.n;
    if (nvs_fixed)
        memcpy(vs_list, sw->virtual_stages.v, (size_t)nvs_fixed * sizeof *vs_list);

    for (int s = 0; s < sw->n_systems; s++) {
        int gpn = sw->systems[s].gpus_per_node;
        for (int ni = 0; ni < sw->nodes.n; ni++) {
            int gpus = sw->nodes.v[ni] * gpn;
            for (int bi = 0; bi < sw->global_batch.n; bi++) {
                int gb = sw->global_batch.v[bi];
                for (int a = 0; a < ntp; a++) {
                    int tp = tps[a];
                    if (tp > gpus || gpus % tp)
                        continue;
                    for (int c = 0; c < ncp; c++) {
                        int cp = cps[c];
                        if ((long)tp * cp > gpus || gpus % (tp * cp))
                            continue;
                        for (int b = 0; b < npp; b++) {
                            int pp = pps[b];
                            long model_ranks = (long)tp * cp * pp;
                            if (model_ranks > gpus || gpus % model_ranks)
                                continue;
                            int dp = (int)(gpus / model_ranks);
                            for (int d = 0; d < nmb; d++) {
                                int mb = mbs[d];
                                if (gb % ((long)dp * mb))
                                    continue;
                                for (int si = 0; si < nsched; si++) {
                                    int sched = scheds[si];
                                    int vopts[TS_SWEEP_LIST_MAX], nv = 0;
                                    if (sched == TS_SCHED_INTERLEAVED) {
                                        if (pp < 2)
                                            continue;
                                        if (nvs_fixed) {
                                            memcpy(vopts, vs_list, (size_t)nvs_fixed * sizeof *vopts);
                                            nv = nvs_fixed;
                                        } else {
                                            int lps = m->layers % pp ? 0 : m->layers / pp;
                                            for (int v = 2; v <= lps && v <= 16; v++)
                                                if (lps % v == 0)
                                                    vopts[nv++] = v;
                                        }
                                    } else {
                                        vopts[nv++] = 1;
                                    }
                                    for (int vi = 0; vi < nv; vi++)
                                        for (int pi = 0; pi < nsp; pi++) {
                                            if (sps[pi] && tp == 1)
                                                continue;   /* a no-op without TP */
                                            for (int ri = 0; ri < nrec; ri++)
                                                for (int zi = 0; zi < nz; zi++) {
                                                    if (zs[zi] > 0 && dp * cp == 1)
                                                        continue;   /* nothing to shard over */
                                                    for (int oi = 0; oi < ntpo; oi++) {
                                                        if (tpos[oi] && tp == 1)
                                                            continue;
                                                        struct ts_layout l;
                                                        memset(&l, 0, sizeof l);
                                                        l.system = (uint8_t)s;
                                                        l.nodes = sw->nodes.v[ni];
                                                        l.global_batch = gb;
                                                        l.tp = tp;
                                                        l.pp = pp;
                                                        l.cp = cp;
                                                        l.microbatch = mb;
                                                        l.schedule = (uint8_t)sched;
                                                        l.virtual_stages = (uint8_t)vopts[vi];
                                                        l.sp = (uint8_t)sps[pi];
                                                        l.recompute = (uint8_t)recs[ri];
                                                        l.zero = (uint8_t)zs[zi];
                                                        l.tp_overlap = (uint8_t)tpos[oi];
                                                        try_layout(e, &l);
                                                    }
                                                }
                                        }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    *enumerated = e->enumerated;
    *rej_div = e->rejected_divisibility;
    free(e);
}

/* ---------------------------------------------------------------- per-thread evaluation */

struct worker {
    struct ts_job job;
    int current_system;
    struct ts_eval_scratch scratch;
    struct ts_step_plan plan;
    struct ts_compute compute;
};

static void worker_init(struct worker *w, const struct ts_sweep *sw)
{
    memset(w, 0, sizeof *w);
    w->job.model = sw->model;
    w->current_system = -1;
    TS_ASSERT(ts_eval_scratch_init(&w->scratch) == 0, "out of memory");
    TS_ASSERT(ts_step_plan_init(&w->plan, 1, 1) == 0, "out of memory");
}

static void worker_free(struct worker *w)
{
    ts_eval_scratch_free(&w->scratch);
    ts_step_plan_free(&w->plan);
}

/* Run input for a job whose iteration takes iteration_s. */
static void run_input(const struct ts_job *job, const struct ts_compute *c, double iteration_s,
                      double iterations, struct ts_run_input *in)
{
    memset(in, 0, sizeof *in);
    in->iteration_s = iteration_s;
    in->iterations = iterations;
    in->gpus = job->gpus;
    in->nodes = job->nodes;
    in->gpus_per_node = job->system.gpus_per_node;
    in->dp = job->parallel.dp;
    in->checkpoint_bytes = ts_compute_checkpoint_bytes(job, c);
    in->rel = job->reliability;
    if (!job->has_reliability) {
        ts_reliability_defaults(&in->rel);
        in->rel.n_failures = 0;
    }
}

/* Expected time and cost of a job whose iteration result is `it` (analytic run model). */
static int price(const struct ts_job *job, const struct ts_compute *c, const struct ts_iteration *it,
                 double *time_s, double *cost_usd, struct ts_err *err)
{
    struct ts_run_input in;
    run_input(job, c, it->iteration_s, it->iterations, &in);
    struct ts_run_result run;
    int rc = ts_run_estimate(&in, &run, err);
    if (rc)
        return rc;
    *time_s = run.mean_s;
    *cost_usd = 0.0;
    if (job->has_cost) {
        struct ts_cost_input ci = {job, it, &run, NULL, 0, in.checkpoint_bytes};
        struct ts_cost_result cr;
        if ((rc = ts_cost_compute(&ci, &cr, err)))
            return rc;
        *cost_usd = cr.total_usd;
    }
    return TS_OK;
}

/* Bounds of one layout: memory verdict and lower bounds of time and cost per pricing. */
struct bound {
    uint8_t reject;             // enum ts_reject
    double objective;           // lower bound of the objective (min over pricing)
    double time_s;              // lower bound of the expected time (min over pricing)
    double cost_usd;            // lower bound of the cost (min over pricing)
    double tokens_per_s;        // upper bound of throughput
    double memory_bytes;
};

static double objective_of(const struct ts_sweep *sw, double time_s, double cost_usd)
{
    return sw->objective == TS_OBJECTIVE_COST ? cost_usd : time_s;
}

/* How many of the listed pricing models the layout's system is offered at. */
static int n_offered(const struct ts_sweep *sw, const struct ts_layout *l)
{
    int n = 0;
    for (int i = 0; i < sw->n_pricing; i++)
        n += sw->offered[l->system][sw->pricing[i]];
    return n;
}

static void screen(const struct ts_sweep *sw, struct worker *w, const struct ts_layout *l,
                   struct bound *b)
{
    memset(b, 0, sizeof *b);
    job_patch(sw, l, sw->pricing[0], &w->job, &w->current_system);
    struct ts_job *job = &w->job;
    ts_compute_build(job, &w->compute);
    struct ts_memory mem;
    ts_memory_worst(job, &w->compute, &mem);
    b->memory_bytes = mem.total_bytes;
    if (mem.total_bytes > job->system.accel.memory_bytes) {
        b->reject = TS_REJECT_MEMORY;
        return;
    }
    ts_step_plan_build(job, &w->compute, &w->plan);
    double lb = ts_step_lower_bound(&w->plan);
    double hosts;
    if (job->has_cost)
        lb = fmax(lb, ts_cost_loader_time(job, &hosts));
    double tokens_iter = (double)job->global_batch * job->model.seq_len;
    b->tokens_per_s = tokens_iter / lb;
    if (sw->min_tokens_per_s > 0 && b->tokens_per_s < sw->min_tokens_per_s) {
        b->reject = TS_REJECT_CONSTRAINT;
        return;
    }
    /* A bare iteration result at the bound: the run and cost models only grow with it. */
    struct ts_iteration it;
    memset(&it, 0, sizeof it);
    it.iteration_s = lb;
    it.tokens_per_s = b->tokens_per_s;
    it.iterations = ceil(sw->tokens / tokens_iter);
    it.time_to_train_s = it.iterations * lb;
    it.step.iteration_s = lb;
    it.step.compute_s = lb;
    if (sw->deadline_s > 0 && it.time_to_train_s > sw->deadline_s) {
        b->reject = TS_REJECT_CONSTRAINT;
        return;
    }
    bool any = false;
    for (int i = 0; i < sw->n_pricing; i++) {
        if (!sw->offered[l->system][sw->pricing[i]])
            continue;
        job_patch(sw, l, sw->pricing[i], job, &w->current_system);
        double t, c;
        struct ts_err err;
        if (price(job, &w->compute, &it, &t, &c, &err) != TS_OK)
            continue;
        double obj = objective_of(sw, t, c);
        if (!any || obj < b->objective)
            b->objective = obj;
        if (!any || t < b->time_s)
            b->time_s = t;
        if (!any || c < b->cost_usd)
            b->cost_usd = c;
        any = true;
    }
    if (!any || (sw->deadline_s > 0 && sw->probability == 0 && b->time_s > sw->deadline_s))
        b->reject = TS_REJECT_CONSTRAINT;
}

/* Exact (simulated) outcomes of a layout, one per pricing. */
static void evaluate(const struct ts_sweep *sw, struct worker *w, const struct ts_layout *l,
                     struct ts_outcome *out)
{
    job_patch(sw, l, sw->pricing[0], &w->job, &w->current_system);
    struct ts_iteration it;
    ts_step_evaluate(&w->job, TS_METHOD_DISCRETE_EVENT, &w->scratch, &it, NULL, NULL);
    for (int i = 0; i < sw->n_pricing; i++) {
        struct ts_outcome *o = &out[i];
        memset(o, 0, sizeof *o);
        o->layout = *l;
        o->pricing = (uint8_t)sw->pricing[i];
        o->iteration_s = it.iteration_s;
        o->tokens_per_s = it.tokens_per_s;
        o->mfu = it.mfu;
        o->memory_bytes = it.memory.total_bytes;
        struct ts_err err;
        if (!sw->offered[l->system][sw->pricing[i]]) {
            o->time_s = o->cost_usd = o->objective = INFINITY;
            o->meets = false;
            continue;
        }
        job_patch(sw, l, sw->pricing[i], &w->job, &w->current_system);
        if (price(&w->job, &w->scratch.compute, &it, &o->time_s, &o->cost_usd, &err) != TS_OK) {
            o->time_s = o->cost_usd = o->objective = INFINITY;
            o->meets = false;
            continue;
        }
        o->objective = objective_of(sw, o->time_s, o->cost_usd);
        o->meets = it.feasible;
        if (sw->min_tokens_per_s > 0 && it.tokens_per_s < sw->min_tokens_per_s)
            o->meets = false;
        /* A deadline with a probability is checked on the Monte Carlo quantile of the
         * finalists (finalize); the expected time says nothing about a low quantile. */
        if (sw->deadline_s > 0 && sw->probability == 0 && o->time_s > sw->deadline_s)
            o->meets = false;
    }
}

/* ---------------------------------------------------------------- ranking */

/* Strict order of outcomes: objective, then the other metric, then layout index. */
struct ranked {
    double objective, other;
    long index;                 // candidate index x n_pricing + pricing slot
};

static int cmp_ranked(const void *a, const void *b)
{
    const struct ranked *x = a, *y = b;
    if (x->objective != y->objective)
        return x->objective < y->objective ? -1 : 1;
    if (x->other != y->other)
        return x->other < y->other ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

struct cand {
    long layout;                // index into the layouts array
    struct bound b;
};

static int cmp_cand(const void *a, const void *b)
{
    const struct cand *x = a, *y = b;
    if (x->b.objective != y->b.objective)
        return x->b.objective < y->b.objective ? -1 : 1;
    return (x->layout > y->layout) - (x->layout < y->layout);
}

/* The search state shared by the branch-and-bound passes. */
struct bnb {
    const struct ts_sweep *sw;
    const struct ts_layout *layouts_base;
    struct cand *cands;
    long n;
    struct ts_outcome *outcomes;   // [n * n_pricing], valid where evaluated[i]
    uint8_t *evaluated;            // per candidate
    uint8_t *mc_failed;            // per outcome: failed the probability deadline
    long simulated;
    long batches;                  // batches simulated by this process
    bool stopped;                  // a stop request ended a pass early
};

/* Whether the caller asked the sweep to stop (polled between batches). */
static bool stop_requested(const struct bnb *s, const struct ts_sweep_options *opt)
{
    return (opt->stop && *opt->stop) ||
           (opt->stop_after_batches > 0 && s->batches >= opt->stop_after_batches);
}

/* Current k-th best objective among meeting outcomes (INFINITY if fewer than k), and the
 * Pareto front (cost, time) of meeting outcomes. */
static double kth_best(const struct bnb *s, int k)
{
    int np = s->sw->n_pricing;
    double *best = ts_xmalloc((size_t)k * sizeof *best);
    int have = 0;
    for (long i = 0; i < s->n; i++) {
        if (!s->evaluated[i])
            continue;
        for (int p = 0; p < np; p++) {
            const struct ts_outcome *o = &s->outcomes[i * np + p];
            if (!o->meets || s->mc_failed[i * np + p])
                continue;
            double v = o->objective;
            if (have < k) {
                int j = have++;
                while (j > 0 && best[j - 1] > v) {
                    best[j] = best[j - 1];
                    j--;
                }
                best[j] = v;
            } else if (v < best[k - 1]) {
                int j = k - 1;
                while (j > 0 && best[j - 1] > v) {
                    best[j] = best[j - 1];
                    j--;
                }
                best[j] = v;
            }
        }
    }
    double r = have < k ? HUGE_VAL : best[k - 1];
    free(best);
    return r;
}

struct point {
    double cost, time;
};

static int front_points(const struct bnb *s, struct point **out)
{
    int np = s->sw->n_pricing, n = 0, cap = 64;
    struct point *pts = ts_xmalloc((size_t)cap * sizeof *pts);
    for (long i = 0; i < s->n; i++) {
        if (!s->evaluated[i])
            continue;
        for (int p = 0; p < np; p++) {
            const struct ts_outcome *o = &s->outcomes[i * np + p];
            if (!o->meets || s->mc_failed[i * np + p])
                continue;
            bool dominated = false;
            for (int j = 0; j < n && !dominated; j++)
                dominated = pts[j].cost <= o->cost_usd && pts[j].time <= o->time_s;
            if (dominated)
                continue;
            int w = 0;
            for (int j = 0; j < n; j++)
                if (!(o->cost_usd <= pts[j].cost && o->time_s <= pts[j].time))
                    pts[w++] = pts[j];
            n = w;
            if (n == cap) {
                cap *= 2;
                pts = ts_xrealloc(pts, (size_t)cap * sizeof *pts);
            }
            pts[n].cost = o->cost_usd;
            pts[n].time = o->time_s;
            n++;
        }
    }
    *out = pts;
    return n;
}

/* Whether a candidate's bound is strictly beaten by the top-k and strictly dominated on the
 * cost/time plane: then its exact outcomes can join neither. */
static bool prunable(const struct bnb *s, const struct cand *c, double kth, const struct point *front,
                     int nf)
{
    if (!(c->b.objective > kth))
        return false;
    if (!s->sw->has_cost)
        return true;    /* no cost: no cost/time front */
    for (int j = 0; j < nf; j++)
        if (front[j].cost < c->b.cost_usd && front[j].time < c->b.time_s)
            return true;
    return false;
}

static void progress(const struct ts_sweep_options *opt, const char *what, long done, long total,
                     double t0)
{
    if (!opt->progress || total <= 0)
        return;
    double el = ts_time_now() - t0, frac = (double)done / total;
    double eta = frac > 0 ? el * (1 - frac) / frac : 0;
    int bars = (int)(30 * frac);
    char bar[31];
    for (int i = 0; i < 30; i++)
        bar[i] = i < bars ? '#' : '.';
    bar[30] = '\0';
    fprintf(stderr, "\r%-10s [%s] %5.1f%%  %ld/%ld  %.0fs elapsed, ETA %.0fs   ", what, bar,
            100 * frac, done, total, el, eta);
    if (done >= total)
        fputc('\n', stderr);
    fflush(stderr);
}

/* One branch-and-bound pass over the candidates in bound order; returns how many were newly
 * evaluated. */
static long bnb_pass(struct bnb *s, struct worker *workers, int nthreads, const struct ts_sweep_options *opt,
                     double t0)
{
    const struct ts_sweep *sw = s->sw;
    int np = sw->n_pricing, batch = opt->batch > 0 ? opt->batch : 256;
    long *todo = ts_xmalloc((size_t)batch * sizeof *todo);
    long newly = 0;
    for (long start = 0; start < s->n;) {
        /* A batch boundary: stopping here leaves a state that a resumed run continues
         * exactly (what was skipped before `start` stays skipped: the bounds only tighten
         * within a pass). */
        if (stop_requested(s, opt)) {
            s->stopped = true;
            break;
        }
        double kth = opt->exhaustive ? HUGE_VAL : kth_best(s, sw->top);
        struct point *front;
        int nf = opt->exhaustive ? 0 : front_points(s, &front);
        if (opt->exhaustive)
            front = NULL;
        int nt = 0;
        long i = start;
        for (; i < s->n && nt < batch; i++) {
            if (s->evaluated[i])
                continue;
            if (!opt->exhaustive && prunable(s, &s->cands[i], kth, front, nf))
                continue;
            todo[nt++] = i;
        }
        free(front);
        start = i;
        if (nt == 0)
            continue;
#pragma omp parallel for schedule(dynamic, 1) num_threads(nthreads)
        for (int t = 0; t < nt; t++) {
            struct worker *w = &workers[omp_get_thread_num()];
            long c = todo[t];
            evaluate(sw, w, &s->layouts_base[s->cands[c].layout], &s->outcomes[c * np]);
        }
        for (int t = 0; t < nt; t++)
            s->evaluated[todo[t]] = 1;
        s->simulated += nt;
        s->batches++;
        newly += nt;
        progress(opt, "simulate", start, s->n, t0);
    }
    free(todo);
    return newly;
}

/* ---------------------------------------------------------------- finalists */

/* Monte Carlo run and bill of one outcome's job. */
static int finalize(const struct ts_sweep *sw, struct worker *w, struct ts_outcome *o,
                    struct ts_job *job_out, struct ts_iteration *it_out, struct ts_run_result *run_out,
                    struct ts_cost_result *cost_out, struct ts_err *err)
{
    struct ts_job *job = ts_xmalloc(sizeof *job);
    ts_sweep_layout_job(sw, &o->layout, (enum ts_pricing)o->pricing, job);
    struct ts_iteration it;
    ts_step_evaluate(job, TS_METHOD_DISCRETE_EVENT, &w->scratch, &it, NULL, NULL);
    struct ts_run_input in;
    run_input(job, &w->scratch.compute, it.iteration_s, it.iterations, &in);
    /* Without failures or preemptions every replication is the same run. */
    if (!job->has_reliability)
        in.rel.replications = 1;
    int reps = in.rel.replications > 0 ? in.rel.replications : 1;
    double *samples = ts_xmalloc((size_t)reps * sizeof *samples);
    struct ts_run_result run;
    int rc = ts_run_simulate(&in, &run, samples, NULL, err);
    if (rc == TS_OK) {
        o->monte_carlo = true;
        o->mc_time_mean_s = run.mean_s;
        o->mc_time_p90_s = run.p90_s;
        o->goodput = run.goodput;
        struct ts_cost_result cr;
        memset(&cr, 0, sizeof cr);
        if (job->has_cost) {
            struct ts_cost_input ci = {job, &it, &run, samples, reps, in.checkpoint_bytes};
            rc = ts_cost_compute(&ci, &cr, err);
            o->mc_cost_mean_usd = cr.total_usd;
            o->mc_cost_p90_usd = cr.p90_usd;
        }
        if (rc == TS_OK && sw->probability > 0) {
            ts_stats_sort(samples, (size_t)reps);
            double q = ts_stats_percentile_sorted(samples, (size_t)reps, sw->probability);
            if (q > sw->deadline_s)
                o->meets = false;
        }
        if (job_out) {
            *job_out = *job;
            *it_out = it;
            *run_out = run;
            *cost_out = cr;
        }
    }
    free(samples);
    free(job);
    return rc;
}

static double mc_objective(const struct ts_sweep *sw, const struct ts_outcome *o)
{
    return sw->objective == TS_OBJECTIVE_COST ? o->mc_cost_mean_usd : o->mc_time_mean_s;
}

/* ---------------------------------------------------------------- CSV */

/* "%.6g", or an empty field (CSV's missing value) when v is not finite: never "inf". */
static const char *csv_number(double v, char *buf, size_t n)
{
    if (isfinite(v))
        snprintf(buf, n, "%.6g", v);
    else
        buf[0] = '\0';
    return buf;
}

/* Returns TS_OK, or TS_ERR_RUNTIME when the file cannot be written (err says why). */
static int csv_write(const struct ts_sweep *sw, const char *path, const struct ts_layout *layouts,
                     long n_layouts, const struct bound *bounds, const struct bnb *s,
                     const long *cand_of_layout, struct ts_err *err)
{
    struct ts_buf b;
    ts_buf_init(&b);
    ts_buf_printf(&b, "system,nodes,gpus,global_batch,tp,pp,dp,cp,microbatch,schedule,virtual_stages,"
                  "sequence_parallel,recompute,zero,tp_comm_overlap,status,memory_gib,bound_time_s,"
                  "bound_cost_usd,pricing,iteration_s,tokens_per_s,mfu,time_to_train_s,"
                  "estimated_time_to_train_s,cost_usd,meets\n");
    int np = sw->n_pricing;
    for (long i = 0; i < n_layouts; i++) {
        const struct ts_layout *l = &layouts[i];
        const struct ts_system *sys = &sw->systems[l->system];
        int gpus = l->nodes * sys->gpus_per_node;
        const struct bound *bd = &bounds[i];
        long c = cand_of_layout[i];
        bool sim = c >= 0 && s->evaluated[c];
        const char *status = sim ? "simulated" : bd->reject ? ts_reject_names[bd->reject]
                                                             : ts_reject_names[TS_REJECT_PRUNED];
        for (int p = 0; p < (sim ? np : 1); p++) {
            if (sim && !sw->offered[l->system][sw->pricing[p]])
                continue;
            char f1[32], f2[32], f3[32], f4[32];    /* non-finite values: empty fields */
            ts_buf_printf(&b, "%s,%d,%d,%d,%d,%d,%d,%d,%d,%s,%d,%d,%s,%d,%d,%s,%.3f,%s,%s,",
                          sys->name, l->nodes, gpus, l->global_batch, l->tp, l->pp,
                          gpus / (l->tp * l->cp * l->pp), l->cp, l->microbatch,
                          ts_schedule_names[l->schedule], l->virtual_stages, l->sp,
                          ts_recompute_names[l->recompute], l->zero, l->tp_overlap, status,
                          bd->memory_bytes / 1073741824.0,
                          csv_number(bd->time_s, f1, sizeof f1),
                          csv_number(bd->cost_usd, f2, sizeof f2));
            if (sim) {
                const struct ts_outcome *o = &s->outcomes[c * np + p];
                double iterations = ceil(sw->tokens / ((double)l->global_batch * sw->model.seq_len));
                ts_buf_printf(&b, "%s,%.6g,%.6g,%.4f,%.6g,%s,%s,%s\n", ts_pricing_names[o->pricing],
                              o->iteration_s, o->tokens_per_s, o->mfu, iterations * o->iteration_s,
                              csv_number(o->time_s, f3, sizeof f3),
                              csv_number(o->cost_usd, f4, sizeof f4),
                              o->meets ? "true" : "false");
            } else {
                ts_buf_printf(&b, ",,,,,,,\n");
            }
        }
    }
    int rc = ts_file_write_atomic(path, b.data, b.len, err);
    ts_buf_free(&b);
    return rc;
}

/* ---------------------------------------------------------------- interruption */

/* The finished work of the search state, for a partial file. */
static void save_progress(const struct bnb *s, struct ts_sweep_result *out)
{
    int np = s->sw->n_pricing;
    struct ts_sweep_progress *p = &out->progress;
    long n = 0;
    for (long c = 0; c < s->n; c++)
        n += s->evaluated[c];
    p->n = n;
    p->layout = ts_xmalloc((size_t)(n ? n : 1) * sizeof *p->layout);
    p->outcomes = ts_xmalloc((size_t)(n ? n : 1) * np * sizeof *p->outcomes);
    p->mc_failed = ts_xmalloc((size_t)(n ? n : 1) * np);
    p->rejected_deadline_p = out->rejected[TS_REJECT_DEADLINE_P];
    long j = 0;
    for (long c = 0; c < s->n; c++) {
        if (!s->evaluated[c])
            continue;
        p->layout[j] = s->cands[c].layout;
        memcpy(&p->outcomes[j * np], &s->outcomes[c * np], (size_t)np * sizeof *p->outcomes);
        memcpy(&p->mc_failed[j * np], &s->mc_failed[c * np], (size_t)np);
        j++;
    }
    out->interrupted = true;
}

/* Load an interrupted run's work into the search state; TS_ERR_INPUT when it does not belong
 * to these layouts (another trainsim version or other catalogue files). */
static int resume_progress(struct bnb *s, const struct ts_sweep_progress *p, long n_layouts,
                           const long *cand_of_layout, struct ts_sweep_result *out,
                           struct ts_err *err)
{
    int np = s->sw->n_pricing;
    for (long j = 0; j < p->n; j++) {
        long li = p->layout[j];
        long c = li >= 0 && li < n_layouts ? cand_of_layout[li] : -1;
        const struct ts_outcome *o = &p->outcomes[j * np];
        if (c < 0 || s->evaluated[c] ||
            memcmp(&o->layout, &s->layouts_base[li], sizeof o->layout) != 0)
            return ts_err_set(err, TS_ERR_INPUT,
                              "the partial results do not match this sweep's layouts (entry %ld, "
                              "layout %ld): they come from another trainsim version or other "
                              "catalogue files; run the sweep again without --resume", j, li);
        for (int q = 0; q < np; q++)
            if (o[q].pricing != (uint8_t)s->sw->pricing[q])
                return ts_err_set(err, TS_ERR_INPUT, "the partial results price entry %ld as %s "
                                  "where this sweep has %s; run it again without --resume", j,
                                  ts_pricing_names[o[q].pricing % TS_PRICING_COUNT],
                                  ts_pricing_names[s->sw->pricing[q]]);
        memcpy(&s->outcomes[c * np], o, (size_t)np * sizeof *o);
        memcpy(&s->mc_failed[c * np], &p->mc_failed[j * np], (size_t)np);
        s->evaluated[c] = 1;
        s->simulated++;
    }
    out->rejected[TS_REJECT_DEADLINE_P] = p->rejected_deadline_p;
    return TS_OK;
}

/* ---------------------------------------------------------------- driver */

int ts_sweep_run(const struct ts_sweep *sw, const struct ts_sweep_options *opt,
                 struct ts_sweep_result *out, struct ts_err *err)
{
    double t0 = ts_time_now();
    memset(out, 0, sizeof *out);
    int nthreads = opt->threads > 0 ? opt->threads : omp_get_max_threads();
    int np = sw->n_pricing;

    struct layouts L = {0};
    long rej_div = 0;
    enumerate(sw, &L, &out->enumerated, &rej_div);

    out->rejected[TS_REJECT_DIVISIBILITY] = rej_div;

    struct worker *workers = ts_xcalloc((size_t)nthreads, sizeof *workers);
    for (int t = 0; t < nthreads; t++)
        worker_init(&workers[t], sw);

    /* Screen every valid layout: memory, bounds, reachability. */
    struct bound *bounds = ts_xcalloc(L.n ? L.n : 1, sizeof *bounds);
    long n = (long)L.n;
#pragma omp parallel for schedule(dynamic, 64) num_threads(nthreads)
    for (long i = 0; i < n; i++)
        screen(sw, &workers[omp_get_thread_num()], &L.v[i], &bounds[i]);
    progress(opt, "screen", n, n, t0);


    long *cand_of_layout = ts_xmalloc((L.n ? L.n : 1) * sizeof *cand_of_layout);
    struct cand *cands = ts_xmalloc((L.n ? L.n : 1) * sizeof *cands);
    long nc = 0;
    long best_miss = -1;
    for (long i = 0; i < n; i++) {
        cand_of_layout[i] = -1;
        if (bounds[i].reject) {
            out->rejected[bounds[i].reject] += n_offered(sw, &L.v[i]);
            if (bounds[i].reject == TS_REJECT_CONSTRAINT &&
                (best_miss < 0 || bounds[i].tokens_per_s > bounds[best_miss].tokens_per_s))
                best_miss = i;
            continue;
        }
        cands[nc].layout = i;
        cands[nc].b = bounds[i];
        nc++;
    }
    qsort(cands, (size_t)nc, sizeof *cands, cmp_cand);
    for (long c = 0; c < nc; c++)
        cand_of_layout[cands[c].layout] = c;
    out->evaluated = 0;
    for (long i = 0; i < n; i++)
        out->evaluated += n_offered(sw, &L.v[i]);

    struct bnb s = {sw, L.v, cands, nc, ts_xcalloc((size_t)(nc ? nc : 1) * np, sizeof(struct ts_outcome)),
                    ts_xcalloc((size_t)(nc ? nc : 1), 1), ts_xcalloc((size_t)(nc ? nc : 1) * np, 1), 0, 0, false};
    out->candidates = nc;

    /* Resume: the finished work of an interrupted run, candidate by candidate. */
    int k = sw->top;
    struct ranked *rank = NULL;
    int nrank = 0;
    int rc = TS_OK;
    if (opt->resume && (rc = resume_progress(&s, opt->resume, n, cand_of_layout, out, err)))
        goto done;

    /* Branch and bound, then Monte Carlo of the finalists; repeat while finalists fail a
     * probabilistic deadline (their replacements may need more evaluation). */
    for (int round = 0; round < 1000; round++) {
        bnb_pass(&s, workers, nthreads, opt, t0);
        if (s.stopped) {
            save_progress(&s, out);
            out->simulated = s.simulated;
            goto done;
        }
        free(rank);
        rank = ts_xmalloc((size_t)(nc ? nc : 1) * np * sizeof *rank);
        nrank = 0;
        for (long i = 0; i < nc; i++) {
            if (!s.evaluated[i])
                continue;
            for (int p = 0; p < np; p++) {
                const struct ts_outcome *o = &s.outcomes[i * np + p];
                if (!o->meets || s.mc_failed[i * np + p])
                    continue;
                rank[nrank].objective = o->objective;
                rank[nrank].other = sw->objective == TS_OBJECTIVE_COST ? o->time_s : o->cost_usd;
                rank[nrank].index = i * np + p;
                nrank++;
            }
        }
        qsort(rank, (size_t)nrank, sizeof *rank, cmp_ranked);
        int top = nrank < k ? nrank : k;
        bool failed = false;
        for (int r = 0; r < top && rc == TS_OK; r++) {
            struct ts_outcome *o = &s.outcomes[rank[r].index];
            if (o->monte_carlo)
                continue;
            rc = finalize(sw, &workers[0], o, NULL, NULL, NULL, NULL, err);
            if (!o->meets) {
                s.mc_failed[rank[r].index] = 1;
                out->rejected[TS_REJECT_DEADLINE_P]++;
                failed = true;
            }
        }
        if (rc || !failed)
            break;
    }
    out->simulated = s.simulated;
    if (rc)
        goto done;

    /* Final ranking of the finalists by their Monte Carlo objective. */
    {
        int top = 0;
        out->top = ts_xcalloc((size_t)k, sizeof *out->top);
        for (int r = 0; r < nrank && top < k; r++) {
            const struct ts_outcome *o = &s.outcomes[rank[r].index];
            if (o->meets && !s.mc_failed[rank[r].index])
                out->top[top++] = *o;
        }
        for (int i = 1; i < top; i++)
            for (int j = i; j > 0; j--) {
                double a = mc_objective(sw, &out->top[j - 1]), b = mc_objective(sw, &out->top[j]);
                if (b < a) {
                    struct ts_outcome t = out->top[j];
                    out->top[j] = out->top[j - 1];
                    out->top[j - 1] = t;
                } else
                    break;
            }
        out->n_top = top;
        out->found = top > 0;
        /* Feasible: fits in memory and is not excluded by the constraint at its bound (the
         * screening is exhaustive, so the count does not depend on pruning). */
        out->feasible = 0;
        for (long c = 0; c < nc; c++)
            out->feasible += n_offered(sw, &L.v[cands[c].layout]);
    }

    /* Pareto front of the meeting outcomes (analytic expected cost and time), by time. */
    if (sw->has_cost) {
        out->pareto = ts_xcalloc((size_t)(nrank ? nrank : 1), sizeof *out->pareto);
        for (int r = 0; r < nrank; r++) {
            const struct ts_outcome *o = &s.outcomes[rank[r].index];
            bool dominated = false;
            for (int q = 0; q < nrank && !dominated; q++) {
                const struct ts_outcome *x = &s.outcomes[rank[q].index];
                dominated = q != r && x->cost_usd <= o->cost_usd && x->time_s <= o->time_s &&
                            (x->cost_usd < o->cost_usd || x->time_s < o->time_s ||
                             rank[q].index < rank[r].index);
            }
            if (!dominated)
                out->pareto[out->n_pareto++] = *o;
        }
        for (int i = 1; i < out->n_pareto; i++)
            for (int j = i; j > 0 && out->pareto[j].time_s < out->pareto[j - 1].time_s; j--) {
                struct ts_outcome t = out->pareto[j];
                out->pareto[j] = out->pareto[j - 1];
                out->pareto[j - 1] = t;
            }
    }

    /* Nothing meets the constraint: the closest miss (best throughput or earliest finish). */
    if (!out->found) {
        long pick = -1;
        double best = -INFINITY;
        for (long i = 0; i < nc; i++)
            if (s.evaluated[i])
                for (int p = 0; p < np; p++) {
                    const struct ts_outcome *o = &s.outcomes[i * np + p];
                    double score = sw->min_tokens_per_s > 0 ? o->tokens_per_s : -o->time_s;
                    if (isfinite(score) && score > best) {
                        best = score;
                        pick = i * np + p;
                    }
                }
        if (pick >= 0) {
            out->closest = s.outcomes[pick];
            out->has_closest = true;
        } else if (best_miss >= 0) {
            struct ts_outcome o[TS_PRICING_COUNT];
            evaluate(sw, &workers[0], &L.v[best_miss], o);
            int p = 0;
            while (p + 1 < np && !sw->offered[L.v[best_miss].system][sw->pricing[p]])
                p++;
            out->closest = o[p];
            out->has_closest = true;
        }
    } else {
        struct ts_outcome o = out->top[0];
        rc = finalize(sw, &workers[0], &o, &out->best_job, &out->best_it, &out->best_run,
                      &out->best_cost, err);
    }

    if (opt->csv_path && rc == TS_OK)
        rc = csv_write(sw, opt->csv_path, L.v, n, bounds, &s, cand_of_layout, err);
    out->rejected[TS_REJECT_PRUNED] = 0;
    for (long i = 0; i < nc; i++)
        if (!s.evaluated[i])
            out->rejected[TS_REJECT_PRUNED] += n_offered(sw, &L.v[cands[i].layout]);

done:
    free(rank);
    free(s.outcomes);
    free(s.evaluated);
    free(s.mc_failed);
    free(cands);
    free(cand_of_layout);
    free(bounds);
    free(L.v);
    for (int t = 0; t < nthreads; t++)
        worker_free(&workers[t]);
    free(workers);
    out->elapsed_s = ts_time_now() - t0;
    return rc;
}

void ts_sweep_result_free(struct ts_sweep_result *r)
{
    free(r->top);
    free(r->pareto);
    r->top = r->pareto = NULL;
    ts_sweep_progress_free(&r->progress);
}

void ts_sweep_progress_free(struct ts_sweep_progress *p)
{
    free(p->layout);
    free(p->outcomes);
    free(p->mc_failed);
    memset(p, 0, sizeof *p);
}
