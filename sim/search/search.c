/*
 * The sweep engine: enumerate, screen with a lower bound, branch and bound in deterministic
 * batches, Monte Carlo for the finalists (see search.h).
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <omp.h>

#include "search/search.h"
#include "search/shard.h"

const char *const ts_reject_names[TS_REJECT_COUNT] = {
    "none", "divisibility", "memory", "constraint_unreachable", "pruned_by_bound",
    "misses_deadline_probability", "too_many_tasks", "software_unsupported",
};
_Static_assert(TS_REJECT_COUNT == 8, "update ts_reject_names");
/* The software index lives in what was padding: partial files and memcmp of layouts rely on
 * a layout having no padding bytes. */
_Static_assert(sizeof(struct ts_layout) == 36, "struct ts_layout has padding or grew");

/* Default spot preemption rate when a sweep prices spot without a reliability.spot section:
 * the top band of the AWS Spot Advisor (more than 20% of instances interrupted per month),
 * typical of large GPU instances (shared reference reliability.md): one preemption per node
 * every 0.2 per 730 h, i.e. a per-node MTBF of 3650 h. Notice 120 s (AWS). */
#define SPOT_DEFAULT_MTBF_S TS_SWEEP_SPOT_MTBF_S
#define SPOT_DEFAULT_NOTICE_S TS_SWEEP_SPOT_NOTICE_S
#define SPOT_DEFAULT_REACQUIRE_S TS_SWEEP_SPOT_REACQUIRE_S

/* ---------------------------------------------------------------- jobs from layouts */

/* The balanced uneven pipeline split for a pp that does not divide the layers (Megatron-Core
 * --decoder-first-pipeline-num-layers / --decoder-last-pipeline-num-layers): the middle
 * stages hold ceil(layers / pp) layers each and the first and last stages give up the spare
 * ones, the last (which also holds the loss) the larger half, as in the published DeepSeek-V3
 * layouts (61 layers on pp 16: 3 + 14 x 4 + 2). Returns false when no such split leaves each
 * end stage a layer (e.g. 61 layers on pp 32). experiments/validation-moe/make_jobs.sh
 * stage_split uses the same rule. */
bool ts_sweep_stage_split(int layers, int pp, int *first, int *last)
{
    if (pp < 2 || pp > layers || layers % pp == 0)
        return false;
    int per = (layers + pp - 1) / pp;
    int spare = per * pp - layers;
    *first = per - spare / 2;
    *last = per - (spare + 1) / 2;
    return *first >= 1 && *last >= 1;
}

static void layout_parallel(const struct ts_sweep *sw, const struct ts_layout *l, int gpus,
                            struct ts_parallel *p)
{
    *p = sw->fixed_by_software[l->software];
    p->tp = l->tp;
    p->pp = l->pp;
    if (!ts_sweep_stage_split(sw->model.layers, l->pp, &p->first_stage_layers, &p->last_stage_layers))
        p->first_stage_layers = p->last_stage_layers = 0;
    p->cp = l->cp;
    p->ep = l->ep;
    p->etp = l->etp;
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

/* Patch a job (whose model is already set) to a layout: system, software, size, parallel,
 * sections. *current holds the system and profile the job has (-1: none yet); the large
 * structs are copied only when they change. */
static void job_patch(const struct ts_sweep *sw, const struct ts_layout *l, enum ts_pricing pricing,
                      struct ts_job *job, int current[2])
{
    if (current[0] != l->system) {
        job->system = sw->systems[l->system];
        current[0] = l->system;
    }
    if (current[1] != l->software) {
        job->software = sw->software[l->software];
        current[1] = l->software;
    }
    job->nodes = l->nodes;
    job->gpus = l->nodes * job->system.gpus_per_node;
    job->global_batch = l->global_batch;
    job->precision = sw->precision;
    layout_parallel(sw, l, job->gpus, &job->parallel);
    job->has_training = true;
    job->training.tokens = sw->tokens;
    /* Failures are on in every row, spot or not (issue 13): the same processes for every
     * pricing, the system's fleet defaults unless the file gives them. */
    job->has_reliability = true;
    job->reliability = sw->reliability;
    ts_reliability_apply_defaults(&job->reliability, job->system.accel.generation);
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
        /* A commitment is how reserved capacity is bought; on-demand and spot rows of the
         * same sweep buy none. */
        job->cost.commit = job->cost.commit && pricing == TS_PRICING_RESERVED;
    }
}

void ts_sweep_layout_job(const struct ts_sweep *sw, const struct ts_layout *l, enum ts_pricing pricing,
                         struct ts_job *out)
{
    memset(out, 0, sizeof *out);
    out->model = sw->model;
    int cur[2] = {-1, -1};
    job_patch(sw, l, pricing, out, cur);
}

/* Commit a job to `base` nodes (0: leave its commitment as the sweep gives it). */
static void commit_to(struct ts_job *job, double base)
{
    if (base > 0 && job->has_cost && job->cost.commit) {
        job->cost.commit_nodes = base;
        job->cost.commit_gpus = 0;
    }
}

void ts_sweep_outcome_job(const struct ts_sweep *sw, const struct ts_outcome *o, struct ts_job *out)
{
    ts_sweep_layout_job(sw, &o->layout, (enum ts_pricing)o->pricing, out);
    commit_to(out, o->commit_nodes);
}

/* ---------------------------------------------------------------- per-thread evaluation */

struct worker {
    struct ts_job job;
    int current[2];             // system and software profile of job (-1: not set)
    struct ts_eval_scratch scratch;
    struct ts_step_plan plan;
    struct ts_compute compute;
};

static void worker_init(struct worker *w, const struct ts_sweep *sw)
{
    memset(w, 0, sizeof *w);
    w->job.model = sw->model;
    w->current[0] = w->current[1] = -1;
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
}

/* Expected time and cost of a job whose iteration result is `it` (analytic run model). With
 * committed bases searched (sw->commit_bases of the job's system, a reserved row) the cost is
 * the cheapest base's, *base_nodes that base (the first of equal ones), else 0. The minimum
 * of bills that each grow with the iteration time grows with it too, so the screening bound
 * stays a bound. The job's commitment is left as it came. */
static int price(const struct ts_sweep *sw, int system, struct ts_job *job,
                 const struct ts_compute *c, const struct ts_iteration *it, double *time_s,
                 double *cost_usd, double *base_nodes, struct ts_err *err)
{
    struct ts_run_input in;
    run_input(job, c, it->iteration_s, it->iterations, &in);
    struct ts_run_result run;
    int rc = ts_run_estimate(&in, &run, err);
    if (rc)
        return rc;
    *time_s = run.mean_s;
    *cost_usd = 0.0;
    *base_nodes = 0.0;
    if (!job->has_cost)
        return TS_OK;
    const struct ts_int_list *bases = &sw->commit_bases[system];
    bool search = job->cost.commit && bases->n > 0;
    double given_nodes = job->cost.commit_nodes, given_gpus = job->cost.commit_gpus;
    bool any = false;
    for (int b = 0; b < (search ? bases->n : 1); b++) {
        if (search)
            commit_to(job, bases->v[b]);
        struct ts_cost_input ci = {job, it, &run, NULL, 0, in.checkpoint_bytes};
        struct ts_cost_result cr;
        int rb = ts_cost_compute(&ci, &cr, err);
        job->cost.commit_nodes = given_nodes;
        job->cost.commit_gpus = given_gpus;
        if (rb) {               /* e.g. a base the run outgrows, without a burst price */
            rc = rb;
            continue;
        }
        if (!any || cr.total_usd < *cost_usd) {
            *cost_usd = cr.total_usd;
            *base_nodes = search ? bases->v[b] : 0.0;
        }
        any = true;
    }
    if (!any)
        return rc;
    return TS_OK;
}

/* Bounds of one layout: memory verdict and lower bounds of time and cost per pricing. */
struct bound {
    uint8_t reject;             // enum ts_reject
    uint8_t reachable;          // the throughput target (if any) is reachable at the tighter
                                //   bound tight_s; 0: no outcome of this layout can meet it
    uint8_t tightened;          // time_at and cost_at are priced at tight_s (tighten())
    /* Lower bounds of the expected time and of the cost at each pricing slot (index in
     * sw->pricing), rounded down to float (still lower bounds; INFINITY where not offered
     * or not priced): each pricing is its own purchase, and prunable() compares each.
     * Priced at screening's iteration bound, then at tight_s once the search needs them
     * (pricing every layout twice while screening would cost more than it saves). */
    float time_at[TS_PRICING_COUNT];
    float cost_at[TS_PRICING_COUNT];
    double tight_s;             // tighter lower bound of the iteration time (see screen_at)
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

/* The largest float not above x (x itself when it is a float; NaN stays NaN): a float that is
 * still a lower bound when x is one. */
static float float_at_most(double x)
{
    float f = (float)x;
    if ((double)f > x)
        f = nextafterf(f, -INFINITY);
    return f;
}

/* A lower bound of the wait for the slowest GPU that ts_step_evaluate adds to the simulated
 * iteration (sim/step/evaluate.c: ts_step_sync_wait of the simulation's compute_s, which is
 * linear in it). compute_s is the busiest stage's compute time without its exposed TP/CP and
 * ZeRO-3 traffic (sim/step/step.c): each of the stage's m v forwards and m v backwards adds
 * its chunk's duration (or more: overlap contention only lengthens a backward) less those
 * parts, so m times the chunk sums bound it from below. The factor 1 - 1e-9 covers the
 * different order of the floating-point sums. */
static double sync_wait_bound(const struct ts_job *job, const struct ts_step_plan *pl)
{
    double compute_s = 0.0;
    for (int k = 0; k < pl->p; k++) {
        double busy = 0.0;
        for (int c = 0; c < pl->v; c++) {
            const struct ts_step_chunk *ch = &pl->chunk[k * pl->v + c];
            busy += ch->fwd_s - ch->fwd_comm_s - ch->fwd_z3_s + ch->bwd_s - ch->bwd_comm_s -
                    ch->bwd_z3_s;
        }
        compute_s = fmax(compute_s, pl->m * busy);
    }
    return ts_step_sync_wait(compute_s * (1 - 1e-9), job->system.accel.step_time_cv, job->gpus);
}

/* A lower bound of the simulated iteration (ts_step_simulate) at least as high as
 * ts_step_lower_bound: that bound's "stage k starts after the first forward reached it and
 * runs all its tasks" plus the pipeline's drain, which it leaves out. In the simulation
 * (sim/step/step.c) a stage's last task is a backward (each forward precedes its backward in
 * the stage's order), its end sends the gradient to the stage before, whose backward of the
 * same chunk and microbatch starts no earlier and lasts that chunk's bwd_s (or more); so stage
 * i < k finishes computing no earlier than stage k does plus the backwards of stages i .. k-1
 * (each at least its cheapest chunk's), then runs its optimizer step and tail. Over every
 * i <= k, in one pass with a running maximum over i of optimizer + tail - (drain before i).
 * The factor 1 - 1e-9 covers the floating-point order of the sums. */
static double drain_bound(const struct ts_step_plan *pl)
{
    int p = pl->p, v = pl->v;
    double lb = 0.0, before = 0.0, drain = 0.0, end_after = -HUGE_VAL;
    for (int k = 0; k < p; k++) {
        double work = 0.0, least_bwd = HUGE_VAL;
        for (int c = 0; c < v; c++) {
            const struct ts_step_chunk *ch = &pl->chunk[k * v + c];
            work += ch->fwd_s + ch->bwd_s;
            least_bwd = fmin(least_bwd, ch->bwd_s);
        }
        end_after = fmax(end_after, pl->optimizer_s[k] + pl->tail_s[k] - drain);
        lb = fmax(lb, before + pl->m * work + drain + end_after);
        before += pl->chunk[k * v].fwd_s;
        drain += least_bwd;
    }
    return lb * (1 - 1e-9);
}

/* The two lower bounds of the iteration time of w->job (its compute model built): screening's,
 * ts_step_lower_bound, and the tighter one with the pipeline's drain and the wait for the
 * slowest GPU that pruning compares (time_at, cost_at); both at least the data loader's time
 * (ts_step_evaluate caps the iteration by it). The constraint checks, the counts and the
 * candidate order stay on screening's bound, so that what the sweep reports does not depend
 * on the pruning. Builds w->plan. */
static void iteration_bounds(const struct ts_job *job, struct worker *w, double *lb, double *tight)
{
    ts_step_plan_build(job, &w->compute, &w->plan);
    *lb = ts_step_lower_bound(&w->plan);
    *tight = fmax(*lb, drain_bound(&w->plan)) + sync_wait_bound(job, &w->plan);
    if (job->has_cost) {
        double hosts, loader_s = ts_cost_loader_time(job, &hosts);
        *lb = fmax(*lb, loader_s);
        *tight = fmax(*tight, loader_s);
    }
}

int ts_sweep_layout_bounds(const struct ts_sweep *sw, const struct ts_layout *l, double *screen_s,
                           double *tight_s, struct ts_err *err)
{
    struct worker *w = ts_xmalloc(sizeof *w);
    worker_init(w, sw);
    job_patch(sw, l, sw->pricing[0], &w->job, w->current);
    int rc = ts_job_validate(&w->job, "sweep", err);
    if (rc == TS_OK) {
        ts_compute_build(&w->job, &w->compute);
        iteration_bounds(&w->job, w, screen_s, tight_s);
    }
    worker_free(w);
    free(w);
    return rc;
}

/* Screen a layout into *b; by_pricing (when not NULL) gets the bound of the objective at
 * each pricing slot (INFINITY where it is not offered or cannot be priced). */
static void screen_at(const struct ts_sweep *sw, struct worker *w, const struct ts_layout *l,
                      struct bound *b, double *by_pricing)
{
    if (by_pricing)
        for (int i = 0; i < sw->n_pricing; i++)
            by_pricing[i] = INFINITY;
    memset(b, 0, sizeof *b);
    for (int i = 0; i < TS_PRICING_COUNT; i++)
        b->time_at[i] = b->cost_at[i] = INFINITY;
    job_patch(sw, l, sw->pricing[0], &w->job, w->current);
    struct ts_job *job = &w->job;
    ts_compute_build(job, &w->compute);
    struct ts_memory mem;
    ts_memory_worst(job, &w->compute, &mem);
    b->memory_bytes = mem.total_bytes;
    if (mem.total_bytes > job->system.accel.memory_bytes) {
        b->reject = TS_REJECT_MEMORY;
        return;
    }
    double lb, tight;
    iteration_bounds(job, w, &lb, &tight);
    double tokens_iter = (double)job->global_batch * job->model.seq_len;
    b->tokens_per_s = tokens_iter / lb;
    b->reachable = !(sw->min_tokens_per_s > 0 && tokens_iter / tight < sw->min_tokens_per_s);
    b->tight_s = tight;
    b->tightened = !(tight > lb);   /* nothing to gain */
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
        /* The failure-free time at the bound: a lower bound of every pricing's expected
         * time (the closest-miss search orders rejected layouts by it). */
        b->time_s = it.time_to_train_s;
        b->reject = TS_REJECT_CONSTRAINT;
        return;
    }
    bool any = false;
    for (int i = 0; i < sw->n_pricing; i++) {
        if (!sw->offered[l->system][sw->pricing[i]])
            continue;
        job_patch(sw, l, sw->pricing[i], job, w->current);
        double t, c, base;
        struct ts_err err;
        if (price(sw, l->system, job, &w->compute, &it, &t, &c, &base, &err) != TS_OK)
            continue;
        double obj = objective_of(sw, t, c);
        if (by_pricing)
            by_pricing[i] = obj;
        b->time_at[i] = float_at_most(t);
        b->cost_at[i] = float_at_most(c);
        if (!any || obj < b->objective)
            b->objective = obj;
        if (!any || t < b->time_s)
            b->time_s = t;
        if (!any || c < b->cost_usd)
            b->cost_usd = c;
        any = true;
    }
    if (!any) {
        b->time_s = b->cost_usd = b->objective = INFINITY;   /* no price: never a miss */
        b->reject = TS_REJECT_CONSTRAINT;
    } else if (sw->deadline_s > 0 && sw->probability == 0 && b->time_s > sw->deadline_s) {
        b->reject = TS_REJECT_CONSTRAINT;
    }
}

static void screen(const struct ts_sweep *sw, struct worker *w, const struct ts_layout *l,
                   struct bound *b)
{
    screen_at(sw, w, l, b, NULL);
}

/* Price a screened candidate's time_at and cost_at at its tighter iteration bound tight_s
 * (the run and cost models only grow with the iteration time; where it cannot be priced
 * the bound at screening's stands). Once per candidate; a pure function of the layout. */
static void tighten(const struct ts_sweep *sw, struct worker *w, const struct ts_layout *l,
                    struct bound *b)
{
    if (b->tightened || b->reject)
        return;
    b->tightened = 1;
    job_patch(sw, l, sw->pricing[0], &w->job, w->current);
    struct ts_job *job = &w->job;
    ts_compute_build(job, &w->compute);
    double tokens_iter = (double)job->global_batch * job->model.seq_len;
    struct ts_iteration it;
    memset(&it, 0, sizeof it);
    it.iteration_s = it.step.iteration_s = it.step.compute_s = b->tight_s;
    it.tokens_per_s = tokens_iter / b->tight_s;
    it.iterations = ceil(sw->tokens / tokens_iter);
    it.time_to_train_s = it.iterations * b->tight_s;
    for (int i = 0; i < sw->n_pricing; i++) {
        if (!sw->offered[l->system][sw->pricing[i]] || !isfinite(b->time_at[i]))
            continue;
        job_patch(sw, l, sw->pricing[i], job, w->current);
        double t, c, base;
        struct ts_err err;
        if (price(sw, l->system, job, &w->compute, &it, &t, &c, &base, &err) != TS_OK)
            continue;
        b->time_at[i] = fmaxf(b->time_at[i], float_at_most(t));
        b->cost_at[i] = fmaxf(b->cost_at[i], float_at_most(c));
    }
}

/* Exact (simulated) outcomes of a layout, one per pricing. */
static void evaluate(const struct ts_sweep *sw, struct worker *w, const struct ts_layout *l,
                     struct ts_outcome *out)
{
    job_patch(sw, l, sw->pricing[0], &w->job, w->current);
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
        job_patch(sw, l, sw->pricing[i], &w->job, w->current);
        if (price(sw, l->system, &w->job, &w->scratch.compute, &it, &o->time_s, &o->cost_usd,
                  &o->commit_nodes, &err) != TS_OK) {
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
/* ---------------------------------------------------------------- candidates and their order */

/* A layout that passed screening, with its index in the enumeration. */
struct cand {
    long layout;                // index among the sweep's valid layouts (enumeration order)
    struct ts_layout l;
    struct bound b;
    bool done;                  // already simulated (set when a pass starts)
};

/* The candidate order: bound of the objective, then enumeration index (a strict order). */
static int key_cmp(double obj_a, long ia, double obj_b, long ib)
{
    if (obj_a != obj_b)
        return obj_a < obj_b ? -1 : 1;
    return (ia > ib) - (ia < ib);
}

static int cmp_cand(const void *a, const void *b)
{
    const struct cand *x = a, *y = b;
    return key_cmp(x->b.objective, x->layout, y->b.objective, y->layout);
}

/* The N first candidates in candidate order among those a stream offers: a max-heap while
 * the stream runs, sorted afterwards. `more` says whether some were left out, so the pass
 * must stream again for the candidates after the last one kept, unless `left` shows that
 * none of them can matter: it holds the smallest objective, time and cost bounds over the
 * candidates left out. prunable() only grows more true as each of those grows, so when it
 * holds for `left` it holds for every candidate left out (bnb_pass uses this). */
struct keep {
    struct cand *v;
    long n, cap;
    bool more;
    struct bound left;          // componentwise minimum of the left-out bounds (when more)
};

/* Fold a left-out candidate's bound into keep->left. */
static void keep_leave(struct keep *k, const struct bound *b)
{
    if (!k->more) {
        k->left = *b;
        k->more = true;
    } else {
        k->left.objective = fmin(k->left.objective, b->objective);
        k->left.time_s = fmin(k->left.time_s, b->time_s);
        k->left.cost_usd = fmin(k->left.cost_usd, b->cost_usd);
    }
    /* A NaN bound is never prunable; fmin would hide it. */
    if (isnan(b->objective) || isnan(b->time_s) || isnan(b->cost_usd))
        k->left.objective = -HUGE_VAL;
}

static void keep_sift_down(struct keep *k, long i)
{
    for (;;) {
        long l = 2 * i + 1, r = l + 1, m = i;
        if (l < k->n && cmp_cand(&k->v[l], &k->v[m]) > 0)
            m = l;
        if (r < k->n && cmp_cand(&k->v[r], &k->v[m]) > 0)
            m = r;
        if (m == i)
            return;
        struct cand t = k->v[i];
        k->v[i] = k->v[m];
        k->v[m] = t;
        i = m;
    }
}

static void keep_push(struct keep *k, long index, const struct ts_layout *l, const struct bound *b)
{
    struct cand c = {index, *l, *b, false};
    if (k->n < k->cap) {
        long i = k->n++;
        k->v[i] = c;
        while (i > 0) {
            long p = (i - 1) / 2;
            if (cmp_cand(&k->v[p], &k->v[i]) >= 0)
                break;
            struct cand t = k->v[p];
            k->v[p] = k->v[i];
            k->v[i] = t;
            i = p;
        }
        return;
    }
    if (cmp_cand(&c, &k->v[0]) < 0) {
        keep_leave(k, &k->v[0].b);
        k->v[0] = c;
        keep_sift_down(k, 0);
    } else {
        keep_leave(k, &c.b);
    }
}

/* ---------------------------------------------------------------- the search state */

/* Simulated candidates (resumed ones included), in the order they were simulated. */
struct bnb {
    const struct ts_sweep *sw;
    long nd, capd;
    long *d_layout;                // [nd] enumeration index
    double *d_key;                 // [nd] bound of the objective (with d_layout: the order)
    uint8_t *d_matched;            // [nd] resumed entries: found among this sweep's candidates
    struct ts_outcome *d_out;      // [nd * n_pricing]
    uint8_t *d_mc;                 // [nd * n_pricing] failed the probability deadline
    long *sorted;                  // [nd] entries by enumeration index (done_sort)
    long nsorted;
    long mismatch;                 // first resumed entry that does not match, or -1
    long simulated;
    long batches;                  // batches simulated by this process
    long finalists;                // finalist Monte Carlo runs done by this process
    bool stopped;                  // a stop request ended the work early
    /* Layouts rejected by the constraint at their bound and simulated by the closest-miss
     * search (only when nothing meets it), by enumeration index, for the CSV. */
    long nm;
    long *m_layout;                // [nm] ascending
    struct ts_outcome *m_out;      // [nm * n_pricing]
};

static void done_reserve(struct bnb *s, long n)
{
    int np = s->sw->n_pricing;
    if (n <= s->capd)
        return;
    long cap = s->capd ? s->capd : 256;
    while (cap < n)
        cap *= 2;
    s->d_layout = ts_xrealloc(s->d_layout, (size_t)cap * sizeof *s->d_layout);
    s->d_key = ts_xrealloc(s->d_key, (size_t)cap * sizeof *s->d_key);
    s->d_matched = ts_xrealloc(s->d_matched, (size_t)cap);
    s->d_out = ts_xrealloc(s->d_out, (size_t)cap * np * sizeof *s->d_out);
    s->d_mc = ts_xrealloc(s->d_mc, (size_t)cap * np);
    s->sorted = ts_xrealloc(s->sorted, (size_t)cap * sizeof *s->sorted);
    s->capd = cap;
}

static void bnb_free(struct bnb *s)
{
    free(s->d_layout);
    free(s->d_key);
    free(s->d_matched);
    free(s->d_out);
    free(s->d_mc);
    free(s->sorted);
    free(s->m_layout);
    free(s->m_out);
}

static const struct bnb *sort_ctx;

static int cmp_by_layout(const void *a, const void *b)
{
    long x = sort_ctx->d_layout[*(const long *)a], y = sort_ctx->d_layout[*(const long *)b];
    return (x > y) - (x < y);
}

static int cmp_by_key(const void *a, const void *b)
{
    long i = *(const long *)a, j = *(const long *)b;
    return key_cmp(sort_ctx->d_key[i], sort_ctx->d_layout[i], sort_ctx->d_key[j],
                   sort_ctx->d_layout[j]);
}

/* Sort the entries by enumeration index, for done_find. Single-threaded callers only. */
static void done_sort(struct bnb *s)
{
    for (long i = 0; i < s->nd; i++)
        s->sorted[i] = i;
    sort_ctx = s;
    qsort(s->sorted, (size_t)s->nd, sizeof *s->sorted, cmp_by_layout);
    s->nsorted = s->nd;
}

/* The entry simulated for enumeration index `layout` (as of the last done_sort), or -1. */
static long done_find(const struct bnb *s, long layout)
{
    long lo = 0, hi = s->nsorted;
    while (lo < hi) {
        long mid = lo + (hi - lo) / 2;
        long v = s->d_layout[s->sorted[mid]];
        if (v == layout)
            return s->sorted[mid];
        if (v < layout)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

/* The entries in candidate order (a fresh array the caller frees). */
static long *done_by_key(const struct bnb *s)
{
    long *perm = ts_xmalloc((size_t)(s->nd ? s->nd : 1) * sizeof *perm);
    for (long i = 0; i < s->nd; i++)
        perm[i] = i;
    sort_ctx = s;
    qsort(perm, (size_t)s->nd, sizeof *perm, cmp_by_key);
    return perm;
}

/* Whether the caller asked the sweep to stop (polled between batches). */
static bool stop_requested(const struct bnb *s, const struct ts_sweep_options *opt)
{
    return (opt->stop && *opt->stop) ||
           (opt->stop_after_batches > 0 && s->batches >= opt->stop_after_batches);
}

/* A purchase: what a buyer signs for (system x nodes x pricing); the layouts of one purchase
 * are how it is run. */
static uint64_t purchase_of(const struct ts_outcome *o)
{
    return ((uint64_t)o->layout.system * TS_PRICING_COUNT + o->pricing) << 32 |
           (uint32_t)o->layout.nodes;
}

struct pobj {
    uint64_t purchase;
    double objective;
};

static int cmp_pobj(const void *a, const void *b)
{
    const struct pobj *x = a, *y = b;
    if (x->purchase != y->purchase)
        return x->purchase < y->purchase ? -1 : 1;
    return (x->objective > y->objective) - (x->objective < y->objective);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* What a candidate's bound is compared with to skip it: the k-th best purchase and the
 * cost/time front. */
struct prune {
    double kth;                 // k-th best objective over distinct purchases (HUGE_VAL: fewer)
    struct point *front;
    int nf;
    struct pobj *pbest;         // [npb] best meeting objective of each purchase, by purchase
    long npb;
};

/* Current k-th best objective among distinct purchases (the best meeting outcome of each),
 * HUGE_VAL if fewer than k, and (gbest, when not NULL) the best meeting objective of each
 * system x pricing (HUGE_VAL: none yet), indexed by system and enum ts_pricing. */
static double kth_best_p(const struct bnb *s, int k, double (*gbest)[TS_PRICING_COUNT],
                         struct pobj **pbest, long *npb);

static double kth_best(const struct bnb *s, int k, double (*gbest)[TS_PRICING_COUNT])
{
    return kth_best_p(s, k, gbest, NULL, NULL);
}

/* kth_best, and (pbest, when not NULL) each purchase's best, sorted by purchase (the caller
 * frees it). */
static double kth_best_p(const struct bnb *s, int k, double (*gbest)[TS_PRICING_COUNT],
                         struct pobj **pbest, long *npb)
{
    const struct ts_sweep *sw = s->sw;
    int np = sw->n_pricing;
    double best[TS_SWEEP_SYSTEMS_MAX][TS_PRICING_COUNT];
    for (int i = 0; i < sw->n_systems; i++)
        for (int p = 0; p < TS_PRICING_COUNT; p++)
            best[i][p] = HUGE_VAL;
    struct pobj *v = ts_xmalloc((size_t)(s->nd * np + 1) * sizeof *v);
    long n = 0;
    for (long i = 0; i < s->nd * np; i++) {
        const struct ts_outcome *o = &s->d_out[i];
        if (!o->meets || s->d_mc[i])
            continue;
        v[n].purchase = purchase_of(o);
        v[n].objective = o->objective;
        n++;
        if (o->objective < best[o->layout.system][o->pricing])
            best[o->layout.system][o->pricing] = o->objective;
    }
    qsort(v, (size_t)n, sizeof *v, cmp_pobj);
    double *firsts = ts_xmalloc((size_t)(n + 1) * sizeof *firsts);
    long nf = 0, nu = 0;
    for (long i = 0; i < n; i++)
        if (i == 0 || v[i].purchase != v[i - 1].purchase) {
            firsts[nf++] = v[i].objective;
            v[nu++] = v[i];                 /* the purchase's best (sorted by objective) */
        }
    qsort(firsts, (size_t)nf, sizeof *firsts, cmp_double);
    double r = nf < k ? HUGE_VAL : firsts[k - 1];
    free(firsts);
    if (pbest) {
        *pbest = v;
        *npb = nu;
    } else {
        free(v);
    }
    if (gbest)
        memcpy(gbest, best, sizeof best);
    return r;
}

struct point {
    double cost, time;
};

/* The cost/time Pareto front of the meeting outcomes. */
static int front_points(const struct bnb *s, struct point **out)
{
    int np = s->sw->n_pricing, n = 0, cap = 64;
    struct point *pts = ts_xmalloc((size_t)cap * sizeof *pts);
    for (long i = 0; i < s->nd * np; i++) {
        const struct ts_outcome *o = &s->d_out[i];
        if (!o->meets || s->d_mc[i])
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
    *out = pts;
    return n;
}

/* The tighter lower bound of the objective at pricing slot p. */
static double objective_at(const struct ts_sweep *sw, const struct bound *b, int p)
{
    return (double)(sw->objective == TS_OBJECTIVE_COST ? b->cost_at[p] : b->time_at[p]);
}

/* Whether a point is strictly dominated by a point of the front. */
static bool dominated(const struct prune *pr, double cost, double time)
{
    for (int j = 0; j < pr->nf; j++)
        if (pr->front[j].cost < cost && pr->front[j].time < time)
            return true;
    return false;
}

/* Whether the bound of a layout at every offered pricing is strictly dominated: then none of
 * its outcomes (one per pricing, each at or above its bound in cost and in time) can be on
 * the front. Tighter than the corner of the least cost and the least time over pricings
 * (spot is cheaper, on-demand faster: that corner is below both). */
static bool each_dominated(const struct ts_sweep *sw, const struct bound *b,
                           const struct ts_layout *l, const struct prune *pr)
{
    for (int p = 0; p < sw->n_pricing; p++)
        if (sw->offered[l->system][sw->pricing[p]] &&
            !dominated(pr, (double)b->cost_at[p], (double)b->time_at[p]))
            return false;
    return true;
}

/* Whether a candidate's bound is strictly beaten by the top-k purchases (by more than the
 * tie tolerance: layouts within it of a top purchase are listed with it) and strictly
 * dominated on the cost/time plane: then its exact outcomes can join neither the top nor
 * the front. Within a pass both only improve, so a candidate prunable once stays prunable
 * for the rest of the pass. (best_per_system is completed afterwards: complete_per_system.) */
static bool prunable(const struct bnb *s, const struct bound *b, const struct ts_layout *l,
                     const struct prune *pr)
{
    /* It cannot change the top if at every pricing it can neither enter the top k nor
     * improve (or tie with) its own purchase's best: its bound at that pricing is above the
     * lesser of the two, by more than the tolerance (each pricing is its own purchase, so
     * its own bound is what counts there). The bound over every pricing (the least) against
     * the greatest of those limits is a weaker test implied by that one up to the rounding of
     * the per-pricing bounds; it is kept so that rounding can never prune less than it. (`l`
     * NULL: any layout, the k-th best alone.) */
    double limit = pr->kth;
    bool each = false;
    if (l) {
        const struct ts_sweep *sw = s->sw;
        limit = -HUGE_VAL;
        each = true;
        for (int p = 0; p < sw->n_pricing; p++) {
            if (!sw->offered[l->system][sw->pricing[p]])
                continue;
            struct ts_outcome key;
            key.layout.system = l->system;
            key.layout.nodes = l->nodes;
            key.pricing = (uint8_t)sw->pricing[p];
            struct pobj want = {purchase_of(&key), 0.0};
            double best = HUGE_VAL;
            long lo = 0, hi = pr->npb;
            while (lo < hi) {
                long mid = lo + (hi - lo) / 2;
                if (pr->pbest[mid].purchase == want.purchase) {
                    best = pr->pbest[mid].objective;
                    break;
                }
                if (pr->pbest[mid].purchase < want.purchase)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            double at = fmin(pr->kth, best);
            limit = fmax(limit, at);
            if (!(objective_at(sw, b, p) > at * (1 + TS_SWEEP_TIE_TOLERANCE)))
                each = false;
        }
    }
    if (!each && !(b->objective > limit * (1 + TS_SWEEP_TIE_TOLERANCE)))
        return false;
    if (!s->sw->has_cost)
        return true;    /* no cost: no cost/time front */
    return dominated(pr, b->cost_usd, b->time_s) || (l && each_dominated(s->sw, b, l, pr));
}

/* The pruning state now. */
static void prune_state(const struct bnb *s, bool exhaustive, struct prune *pr)
{
    memset(pr, 0, sizeof *pr);
    if (exhaustive) {
        pr->kth = HUGE_VAL;
        return;
    }
    pr->kth = kth_best_p(s, s->sw->top, NULL, &pr->pbest, &pr->npb);
    pr->nf = front_points(s, &pr->front);
}

/* The progress bar on stderr (options.progress: the CLI sets it when stderr is a terminal):
 * one line per phase, redrawn in place ("\r" and erase-to-end, at most 5 times a second),
 * always ended with a newline: when its phase reaches 100%, when another phase starts, and
 * when the sweep returns (progress_end), so nothing printed after it lands on its line. The
 * ETA comes from the rate measured in this process (work done since the phase started here
 * over the time since), so work resumed from a partial file does not make it optimistic.
 * One sweep at a time per process draws it (the CLI's). */
static struct {
    bool open;                  // a line is on screen without its newline
    const char *what;           // its phase
    bool finished;              // the phase reached 100% (its line is ended)
    double t0, last;            // when the phase started here, last redraw
    long done0;                 // work already done when it started (resumed)
} bar;

static void progress_end(const struct ts_sweep_options *opt)
{
    if (opt->progress && bar.open) {
        fputc('\n', stderr);
        fflush(stderr);
    }
    bar.open = false;
}

static void progress(const struct ts_sweep_options *opt, const char *what, long done, long total,
                     double t0)
{
    (void)t0;
    if (!opt->progress || total <= 0)
        return;
    double now = ts_time_now();
    if (!bar.what || strcmp(bar.what, what) != 0) {
        progress_end(opt);
        bar.what = what;
        bar.finished = false;
        bar.t0 = now;
        bar.last = 0.0;
        bar.done0 = done < total ? done : 0;
    }
    bool end = done >= total;
    if (bar.finished || (!end && bar.open && now - bar.last < 0.2))
        return;
    bar.last = now;
    double frac = (double)done / total, el = now - bar.t0;
    double rate = el > 0 ? (double)(done - bar.done0) / el : 0.0;
    char eta[48];
    if (end)
        snprintf(eta, sizeof eta, "done");
    else if (rate > 0)
        snprintf(eta, sizeof eta, "ETA %.0fs", (double)(total - done) / rate);
    else
        snprintf(eta, sizeof eta, "ETA unknown");
    int bars = (int)(30 * frac);
    char line[31];
    for (int i = 0; i < 30; i++)
        line[i] = i < bars ? '#' : '.';
    line[30] = '\0';
    fprintf(stderr, "\r%-10s [%s] %5.1f%%  %ld/%ld  %.0fs elapsed, %s\033[K", what, line,
            100 * frac, done, total, el, eta);
    bar.open = true;
    if (end) {
        fputc('\n', stderr);
        bar.open = false;
        bar.finished = true;
    }
    fflush(stderr);
}
/* ---------------------------------------------------------------- streamed enumeration */

/* Layouts are generated in a fixed order (the loops below), then validated and screened in
 * chunks of STREAM_CHUNK in parallel; each valid layout then goes, in enumeration order, to
 * a sink that keeps only what the search needs (counters, the candidates of this pass, CSV
 * rows). Nothing grows with the number of layouts, and the index of a valid layout in this
 * order is the same on every stream: partial files name candidates by it. */
#define STREAM_CHUNK 8192

struct stream;
typedef void (*stream_sink)(struct stream *st, long index, const struct ts_layout *l,
                            const struct bound *b);

struct stream {
    const struct ts_sweep *sw;
    const struct ts_sweep_options *opt;
    struct worker *workers;
    int nthreads;
    bool count_only;            // only count the layouts the loops generate
    bool stoppable;             // honour opt->stop (the CSV stream finishes regardless)
    uint64_t count;             // count_only: layouts the loops generate
    stream_sink sink;
    void *ctx;
    long enumerated, rejected_divisibility, rejected_tasks, rejected_software;
    long next_index;            // enumeration index of the next valid layout
    struct ts_layout buf[STREAM_CHUNK];
    uint8_t valid[STREAM_CHUNK]; // 0 valid, 1 refused by the job validator, 2 too many tasks,
                                 //   3 the system cannot run the software profile
    struct bound bnd[STREAM_CHUNK];
    int n;
    long flushes;
    bool stopped;
    double t0;
    long total;                 // for the progress bar (0: none)
};

static struct stream *stream_new(const struct ts_sweep *sw, const struct ts_sweep_options *opt,
                                 struct worker *workers, int nthreads, stream_sink sink, void *ctx)
{
    struct stream *st = ts_xcalloc(1, sizeof *st);
    st->sw = sw;
    st->opt = opt;
    st->workers = workers;
    st->nthreads = nthreads;
    st->sink = sink;
    st->ctx = ctx;
    st->stoppable = true;
    return st;
}

static bool stream_stop_raised(const struct stream *st)
{
    return st->stoppable && st->opt->stop && *st->opt->stop;
}

/* Validate and screen the chunk in parallel, then hand the valid layouts to the sink in
 * enumeration order. */
static void stream_flush(struct stream *st)
{
    int n = st->n, rank = ts_shard_rank(), ranks = ts_shard_size();
    /* Under MPI this rank screens every ranks-th layout; the gather completes the chunk. */
#pragma omp parallel for schedule(dynamic, 32) num_threads(st->nthreads)
    for (int i = rank; i < n; i += ranks) {
        struct worker *w = &st->workers[omp_get_thread_num()];
        st->valid[i] = 0;
        if (!st->sw->runs[st->buf[i].system][st->buf[i].software]) {
            st->valid[i] = 3;
            continue;
        }
        job_patch(st->sw, &st->buf[i], TS_PRICING_ON_DEMAND, &w->job, w->current);
        struct ts_err err;
        if (ts_job_validate(&w->job, "sweep", &err) != TS_OK)
            st->valid[i] = ts_step_check_size(&w->job, "sweep", &err) != TS_OK ? 2 : 1;
        else
            screen(st->sw, w, &st->buf[i], &st->bnd[i]);
    }
    ts_shard_gather(st->valid, n, sizeof st->valid[0]);
    ts_shard_gather(st->bnd, n, sizeof st->bnd[0]);
    for (int i = 0; i < n; i++) {
        if (st->valid[i] == 1)
            st->rejected_divisibility++;
        else if (st->valid[i] == 2)
            st->rejected_tasks++;
        else if (st->valid[i] == 3)
            st->rejected_software++;
        else
            st->sink(st, st->next_index++, &st->buf[i], &st->bnd[i]);
    }
    st->n = 0;
    if (st->stoppable && ts_shard_any(stream_stop_raised(st)))
        st->stopped = true;
    if (st->total > 0 && (++st->flushes & 15) == 0)
        progress(st->opt, "screen", st->enumerated, st->total, st->t0);
}

static void stream_emit(struct stream *st, const struct ts_layout *l)
{
    if (st->stopped)
        return;
    st->enumerated++;
    st->buf[st->n] = *l;
    if (++st->n == STREAM_CHUNK)
        stream_flush(st);
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

/* The auto pipeline sizes: the divisors of the layers, and the powers of two that do not
 * divide them but have a balanced uneven split (ts_sweep_stage_split), ascending. */
static int auto_pipeline_sizes(int layers, int max, int *out, int cap)
{
    int n = 0, first, last;
    for (int d = 1; d <= layers && d <= max && n < cap; d++) {
        bool pow2 = (d & (d - 1)) == 0;
        if (layers % d == 0 || (pow2 && ts_sweep_stage_split(layers, d, &first, &last)))
            out[n++] = d;
    }
    return n;
}

/* Generate every layout of the sweep in enumeration order (or, with count_only, count them
 * without generating the innermost ones). */
static void stream_run(struct stream *st)
{
    const struct ts_sweep *sw = st->sw;
    const struct ts_model *m = &sw->model;

    int tps[TS_SWEEP_LIST_MAX], pps[TS_SWEEP_LIST_MAX], cps[TS_SWEEP_LIST_MAX], mbs[TS_SWEEP_LIST_MAX];
    int zs[TS_SWEEP_LIST_MAX], scheds[TS_SWEEP_LIST_MAX], sps[TS_SWEEP_LIST_MAX], recs[TS_SWEEP_LIST_MAX];
    int tpos[TS_SWEEP_LIST_MAX], vs_list[TS_SWEEP_LIST_MAX];
    int auto_tp[TS_SWEEP_LIST_MAX], auto_pp[TS_SWEEP_LIST_MAX];
    int n_auto_tp = divisors(m->heads, 64, auto_tp, TS_SWEEP_LIST_MAX);
    int n_auto_pp = auto_pipeline_sizes(m->layers, 128, auto_pp, TS_SWEEP_LIST_MAX);
    static const int auto_cp[] = {1, 2, 4, 8, 16};
    static const int auto_mb[] = {1, 2, 4, 8, 16};
    static const int auto_zero[] = {0, 1, 2, 3};
    static const int auto_sched[] = {TS_SCHED_1F1B, TS_SCHED_INTERLEAVED};
    static const int auto_bool[] = {0, 1};
    static const int auto_rec[] = {TS_RECOMPUTE_NONE, TS_RECOMPUTE_SELECTIVE, TS_RECOMPUTE_FULL};
    int ntp = dim_values(&sw->tp, auto_tp, n_auto_tp, tps);
    int npp = dim_values(&sw->pp, auto_pp, n_auto_pp, pps);
    int ncp = dim_values(&sw->cp, auto_cp, 5, cps);
    /* Expert parallelism: auto = every divisor of the experts (experts % ep checked by
     * construction; ep x etp dividing the stage's GPUs is left to the job validator, which
     * counts the refusals as divisibility), etp 1, 2, 4, 8 (a dense model: 1 and 1). */
    int eps[TS_SWEEP_LIST_MAX], etps[TS_SWEEP_LIST_MAX], auto_ep[TS_SWEEP_LIST_MAX];
    static const int auto_etp[] = {1, 2, 4, 8};
    static const int one[] = {1};
    bool moe = ts_model_is_moe(m);
    int n_auto_ep = moe ? divisors(m->moe.experts, 1 << 15, auto_ep, TS_SWEEP_LIST_MAX) : 0;
    int nep = moe ? dim_values(&sw->ep, auto_ep, n_auto_ep, eps) : dim_values(&sw->ep, one, 1, eps);
    int netp = moe ? dim_values(&sw->etp, auto_etp, 4, etps) : dim_values(&sw->etp, one, 1, etps);
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

    for (int s = 0; s < sw->n_systems; s++)
    for (int k = 0; k < sw->n_software; k++) {
        int gpn = sw->systems[s].gpus_per_node;
        for (int ni = 0; ni < sw->nodes.n; ni++) {
            int gpus = sw->nodes.v[ni] * gpn;
            for (int bi = 0; bi < sw->global_batch.n; bi++) {
                if (st->stopped)
                    return;
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
                                            /* uneven: chunks of the middle stages' size
                                             * that fit the smaller end stage too */
                                            int f, e, lps = m->layers % pp ? 0 : m->layers / pp;
                                            int fit = lps;
                                            if (ts_sweep_stage_split(m->layers, pp, &f, &e)) {
                                                lps = (m->layers + pp - 1) / pp;
                                                fit = f < e ? f : e;
                                            }
                                            for (int v = 2; v <= fit && v <= 16; v++)
                                                if (lps % v == 0)
                                                    vopts[nv++] = v;
                                        }
                                    } else {
                                        vopts[nv++] = 1;
                                    }
                                    if (st->count_only) {
                                        /* The same skips as the loops below, counted. */
                                        uint64_t nsp_ok = 0, nz_ok = 0, ntpo_ok = 0;
                                        for (int pi = 0; pi < nsp; pi++)
                                            nsp_ok += !(sps[pi] && tp == 1);
                                        for (int zi = 0; zi < nz; zi++)
                                            nz_ok += !(zs[zi] > 0 && dp * cp == 1);
                                        for (int oi = 0; oi < ntpo; oi++)
                                            ntpo_ok += !(tpos[oi] && tp == 1);
                                        st->count += (uint64_t)nv * nsp_ok * (uint64_t)nrec * nz_ok *
                                                     ntpo_ok * (uint64_t)nep * (uint64_t)netp;
                                        continue;
                                    }
                                    for (int vi = 0; vi < nv; vi++)
                                        for (int pi = 0; pi < nsp; pi++) {
                                            if (sps[pi] && tp == 1)
                                                continue;   /* a no-op without TP */
                                            for (int ri = 0; ri < nrec; ri++)
                                                for (int zi = 0; zi < nz; zi++) {
                                                    if (zs[zi] > 0 && dp * cp == 1)
                                                        continue;   /* nothing to shard over */
                                                    for (int oi = 0; oi < ntpo; oi++)
                                                    for (int ei = 0; ei < nep; ei++)
                                                    for (int ti = 0; ti < netp; ti++) {
                                                        if (tpos[oi] && tp == 1)
                                                            continue;
                                                        struct ts_layout l;
                                                        memset(&l, 0, sizeof l);
                                                        l.system = (uint8_t)s;
                                                        l.software = (uint8_t)k;
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
                                                        l.ep = (uint16_t)eps[ei];
                                                        l.etp = (uint16_t)etps[ti];
                                                        stream_emit(st, &l);
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
    if (!st->count_only && !st->stopped && st->n > 0)
        stream_flush(st);
}

uint64_t ts_sweep_count(const struct ts_sweep *sw)
{
    struct ts_sweep_options opt;
    memset(&opt, 0, sizeof opt);
    struct stream *st = stream_new(sw, &opt, NULL, 1, NULL, NULL);
    st->count_only = true;
    stream_run(st);
    uint64_t n = st->count;
    free(st);
    return n;
}

/* ---------------------------------------------------------------- sinks */

/* First stream: the counts by reason, the closest miss, resumed entries matched to their
 * candidates, and the first N candidates. */
struct scan {
    struct ts_sweep_result *out;
    struct bnb *s;
    struct keep *keep;
};

static void scan_sink(struct stream *st, long index, const struct ts_layout *l, const struct bound *b)
{
    struct scan *sc = st->ctx;
    const struct ts_sweep *sw = st->sw;
    struct ts_sweep_result *out = sc->out;
    int offered = n_offered(sw, l);
    out->evaluated += offered;
    long d = done_find(sc->s, index);
    if (d >= 0) {
        if (b->reject || memcmp(&sc->s->d_out[d * sw->n_pricing].layout, l, sizeof *l) != 0) {
            if (sc->s->mismatch < 0)
                sc->s->mismatch = d;
        } else {
            sc->s->d_key[d] = b->objective;
            sc->s->d_matched[d] = 1;
        }
    }
    if (b->reject) {
        out->rejected[b->reject] += offered;
        return;
    }
    out->candidates++;
    out->feasible += offered;
    keep_push(sc->keep, index, l, b);
}

/* Later streams: the next N candidates after `last` that are neither simulated nor prunable
 * at the state the pass is in. */
struct next {
    struct bnb *s;
    struct keep *keep;
    bool from_start;
    double last_obj;
    long last_index;
    bool exhaustive;
    const struct prune *pr;
};

static void next_sink(struct stream *st, long index, const struct ts_layout *l, const struct bound *b)
{
    struct next *nx = st->ctx;
    if (b->reject)
        return;
    if (!nx->from_start && key_cmp(b->objective, index, nx->last_obj, nx->last_index) <= 0)
        return;
    if (done_find(nx->s, index) >= 0)
        return;
    if (!nx->exhaustive && prunable(nx->s, b, l, nx->pr))
        return;
    keep_push(nx->keep, index, l, b);
}

/* Refill `keep` with the candidates after `last` (or from the start); returns false when a
 * stop request interrupted the stream. */
static bool keep_refill(struct bnb *s, struct keep *keep, const struct cand *last, bool exhaustive,
                        const struct prune *pr, struct worker *workers, int nthreads,
                        const struct ts_sweep_options *opt)
{
    struct next nx = {s, keep, last == NULL, last ? last->b.objective : 0.0, last ? last->layout : -1,
                      exhaustive, pr};
    keep->n = 0;
    keep->more = false;
    done_sort(s);
    struct stream *st = stream_new(s->sw, opt, workers, nthreads, next_sink, &nx);
    stream_run(st);
    bool ok = !st->stopped;
    free(st);
    qsort(keep->v, (size_t)keep->n, sizeof *keep->v, cmp_cand);
    return ok;
}

/* ---------------------------------------------------------------- branch and bound */

/* Tighten (in parallel) the bounds of the next 4 batches' worth of candidates from `pos`
 * that are neither simulated nor prunable on the bounds they have: the ones whose fate the
 * tighter bound may change. Which ones depends only on the pruning state, so the result is
 * the same for any thread count. */
static void tighten_ahead(const struct bnb *s, struct keep *keep, long pos, long end,
                          const struct prune *pr, struct worker *workers, int nthreads)
{
#pragma omp parallel for schedule(dynamic, 16) num_threads(nthreads)
    for (long i = pos; i < end; i++) {
        struct cand *c = &keep->v[i];
        if (!c->done && !c->b.tightened && !prunable(s, &c->b, &c->l, pr))
            tighten(s->sw, &workers[omp_get_thread_num()], &c->l, &c->b);
    }
}

/* One branch-and-bound pass over the candidates in candidate order, from the kept set
 * `keep` (streaming again for the next ones when it runs out and some were left out). */
static void bnb_pass(struct bnb *s, struct keep *keep, struct worker *workers, int nthreads,
                     const struct ts_sweep_options *opt, long candidates, double t0)
{
    const struct ts_sweep *sw = s->sw;
    int np = sw->n_pricing, batch = opt->batch > 0 ? opt->batch : 256;
    struct cand *todo = ts_xmalloc((size_t)batch * sizeof *todo);
    struct ts_outcome *tmp = ts_xmalloc((size_t)batch * np * sizeof *tmp);
    done_sort(s);
    for (long i = 0; i < keep->n; i++)
        keep->v[i].done = done_find(s, keep->v[i].layout) >= 0;
    long pos = 0;
    for (;;) {
        /* A batch boundary: stopping here leaves a state that a resumed run continues
         * exactly (what was skipped before stays skipped: the bounds only tighten within a
         * pass). */
        if (ts_shard_any(stop_requested(s, opt))) {
            s->stopped = true;
            break;
        }
        struct prune pr;
        prune_state(s, opt->exhaustive, &pr);
        int nt = 0;
        bool interrupted = false;
        long tightened_to = pos;
        while (nt < batch) {
            if (!opt->exhaustive && pos == tightened_to && pos < keep->n) {
                tightened_to = pos + 4L * batch < keep->n ? pos + 4L * batch : keep->n;
                tighten_ahead(s, keep, pos, tightened_to, &pr, workers, nthreads);
            }
            if (pos == keep->n) {
                /* Streaming again is the costly part of a large sweep; when every candidate
                 * left out is already prunable it would find nothing to simulate. */
                if (!keep->more || (!opt->exhaustive && prunable(s, &keep->left, NULL, &pr)))
                    break;
                struct cand last = keep->v[keep->n - 1];
                if (!keep_refill(s, keep, &last, opt->exhaustive, &pr, workers, nthreads, opt)) {
                    interrupted = true;
                    break;
                }
                pos = tightened_to = 0;
                continue;
            }
            const struct cand *c = &keep->v[pos++];
            if (c->done)
                continue;
            if (!opt->exhaustive && prunable(s, &c->b, &c->l, &pr))
                continue;
            todo[nt++] = *c;
        }
        free(pr.front);
        free(pr.pbest);
        if (interrupted) {
            s->stopped = true;
            break;
        }
        if (nt == 0)
            break;
        /* A stop request inside the batch drops the batch (its work is not recorded, so the
         * state stays at the last batch boundary). */
        bool dropped = false;
        int rank = ts_shard_rank(), ranks = ts_shard_size();
#pragma omp parallel for schedule(dynamic, 1) num_threads(nthreads)
        for (int t = rank; t < nt; t += ranks) {
            if (opt->stop && *opt->stop) {
#pragma omp atomic write
                dropped = true;
                continue;
            }
            evaluate(sw, &workers[omp_get_thread_num()], &todo[t].l, &tmp[(size_t)t * np]);
        }
        if (ts_shard_any(dropped)) {
            s->stopped = true;
            break;
        }
        ts_shard_gather(tmp, nt, (size_t)np * sizeof *tmp);
        done_reserve(s, s->nd + nt);
        for (int t = 0; t < nt; t++) {
            long d = s->nd++;
            s->d_layout[d] = todo[t].layout;
            s->d_key[d] = todo[t].b.objective;
            s->d_matched[d] = 1;
            memcpy(&s->d_out[d * np], &tmp[(size_t)t * np], (size_t)np * sizeof *tmp);
            memset(&s->d_mc[d * np], 0, (size_t)np);
        }
        s->simulated += nt;
        s->batches++;
        progress(opt, "simulate", s->simulated < candidates ? s->simulated : candidates - 1,
                 candidates, t0);
    }
    if (!s->stopped)
        progress(opt, "simulate", candidates, candidates, t0);
    free(tmp);
    free(todo);
}
/* ---------------------------------------------------------------- finalists */

/* Monte Carlo run and bill of one outcome's job. A stop request (*stop, polled by the run
 * simulation between replications) ends it early with *interrupted set and *o unchanged. */
static int finalize(const struct ts_sweep *sw, struct worker *w, struct ts_outcome *o,
                    struct ts_job *job_out, struct ts_iteration *it_out, struct ts_run_result *run_out,
                    struct ts_cost_result *cost_out, struct ts_run_distribution *dist_out,
                    bool model_uncertainty, volatile sig_atomic_t *stop, bool *interrupted,
                    struct ts_err *err)
{
    struct ts_job *job = ts_xmalloc(sizeof *job);
    ts_sweep_outcome_job(sw, o, job);
    struct ts_iteration it;
    ts_step_evaluate(job, TS_METHOD_DISCRETE_EVENT, &w->scratch, &it, NULL, NULL);
    struct ts_run_input in;
    run_input(job, &w->scratch.compute, it.iteration_s, it.iterations, &in);
    /* Without failures or preemptions every replication is the same run (unless the model's
     * error makes them differ). */
    struct ts_run_band band;
    ts_run_model_band(job, model_uncertainty, &band);
    if (in.rel.none && !in.rel.spot.enabled && !band.on)
        in.rel.replications = 1;
    int reps = in.rel.replications > 0 ? in.rel.replications : 1;
    double *samples = ts_xmalloc((size_t)reps * sizeof *samples);
    struct ts_run_result run;
    in.stop = stop;
    int rc = ts_run_simulate(&in, &run, samples, NULL, err);
    if (rc != TS_OK && run.interrupted && interrupted)
        *interrupted = true;
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
        /* Failures and the model's error combined (factors of 1 when it is off). */
        struct ts_run_distribution dist;
        if (rc == TS_OK)
            rc = ts_run_distribution_compute(&band, job, &it, &run, samples, reps,
                                             in.checkpoint_bytes, sw->probability, &dist, err);
        if (rc == TS_OK) {
            o->mc_rank = sw->objective == TS_OBJECTIVE_COST ? o->mc_cost_mean_usd : o->mc_time_mean_s;
            if (sw->probability > 0) {
                o->mc_rank = sw->objective == TS_OBJECTIVE_COST && job->has_cost ? dist.cost_at_q_usd
                                                                                  : dist.time_at_q_s;
                /* The deadline itself is checked on the failures' quantile: with the default
                 * band (+38%) the model's error would decide it for every unvalidated
                 * regime; the answer states whether it holds with the error too. */
                double q = ts_run_distribution_quantile(&(struct ts_run_band){0}, 0, samples, reps,
                                                        sw->probability);
                if (q > sw->deadline_s)
                    o->meets = false;
            }
        }
        if (job_out && rc == TS_OK) {
            *job_out = *job;
            *it_out = it;
            *run_out = run;
            *cost_out = cr;
            *dist_out = dist;
        }
    }
    free(samples);
    free(job);
    return rc;
}

static double mc_objective(const struct ts_sweep *sw, const struct ts_outcome *o)
{
    (void)sw;
    return o->mc_rank;
}
#define MISS_KEEP 1024     /* kept set of the closest-miss and per-system searches */

/* ---------------------------------------------------------------- best per system */

/* best_per_system names the best layout of each system x pricing, but the branch and bound
 * skips a candidate that cannot join the top or the front, which may be the best of a
 * system that is in neither. So the candidates left out are searched once more, system by
 * system: in order of their bound, simulated while the bound is below the best found for
 * their system (the worst over its pricings, which keeps every pricing exact). Those
 * simulations cannot change the top or the front (their bounds are beaten by both). */

struct persys {
    struct bnb *s;
    struct keep *keep;
    bool from_start;
    double last_obj;
    long last_index;
    const double *thr;
};

static void persys_sink(struct stream *st, long index, const struct ts_layout *l, const struct bound *b)
{
    struct persys *ps = st->ctx;
    if (b->reject || !(b->objective < ps->thr[l->system]))
        return;
    if (!ps->from_start && key_cmp(b->objective, index, ps->last_obj, ps->last_index) <= 0)
        return;
    if (done_find(ps->s, index) >= 0)
        return;
    keep_push(ps->keep, index, l, b);
}

/* The best meeting objective of each system x pricing into gb, and into thr the worst over
 * each system's offered pricings (a candidate whose bound, the least over pricings, is not
 * below it cannot be the best at any); returns the largest thr. */
static double persys_thresholds(const struct bnb *s, double (*gb)[TS_PRICING_COUNT], double *thr)
{
    const struct ts_sweep *sw = s->sw;
    kth_best(s, 1, gb);
    double any = -HUGE_VAL;
    for (int y = 0; y < sw->n_systems; y++) {
        /* A system x pricing where nothing simulated meets the constraint yet is searched
         * from its first candidate until one does (may_meet skips those whose tighter bound
         * already misses the constraint), so best_per_system has the row exactly when some
         * layout meets there. */
        thr[y] = -HUGE_VAL;
        for (int p = 0; p < sw->n_pricing; p++)
            if (sw->offered[y][sw->pricing[p]])
                thr[y] = fmax(thr[y], isfinite(gb[y][sw->pricing[p]]) ? gb[y][sw->pricing[p]]
                                                                       : HUGE_VAL);
        any = fmax(any, thr[y]);
    }
    return any;
}

/* Whether an outcome of a layout with bound *b at pricing slot p could meet the constraint
 * (evaluate's test at the tighter bound; false only when it cannot). */
static bool may_meet(const struct ts_sweep *sw, const struct bound *b, int p)
{
    if (!b->reachable)
        return false;
    return !(sw->deadline_s > 0 && sw->probability == 0 && (double)b->time_at[p] > sw->deadline_s);
}

/* Whether a candidate can be the best of its system at some pricing by its bounds there
 * (gb: the best so far of each system x pricing), and (*first) whether that is because one
 * of its system x pricing has no meeting outcome yet. */
static bool persys_need(const struct ts_sweep *sw, double (*gb)[TS_PRICING_COUNT],
                        const struct cand *c, bool *first)
{
    bool need = false;
    *first = false;
    for (int p = 0; p < sw->n_pricing; p++) {
        double g = gb[c->l.system][sw->pricing[p]], at = objective_at(sw, &c->b, p);
        if (isfinite(g))
            need = need || at < g;
        else if (isfinite(at) && may_meet(sw, &c->b, p))
            need = *first = true;
    }
    return need;
}

/* Returns false when a stop request cut it short (s->stopped). */
static bool complete_per_system(struct bnb *s, struct keep *kept, bool complete,
                                struct worker *workers, int nthreads,
                                const struct ts_sweep_options *opt)
{
    const struct ts_sweep *sw = s->sw;
    if (opt->exhaustive)
        return true;
    int np = sw->n_pricing, batch = opt->batch > 0 ? opt->batch : 256;
    int chunk = 4 * batch;
    double gb[TS_SWEEP_SYSTEMS_MAX][TS_PRICING_COUNT], thr[TS_SWEEP_SYSTEMS_MAX];
    double any = persys_thresholds(s, gb, thr);
    struct keep keep = {kept->v, 0, kept->cap, false, {0}};     /* the search's buffer, done with */
    struct cand *todo = ts_xmalloc((size_t)chunk * sizeof *todo);
    struct ts_outcome *tmp = ts_xmalloc((size_t)chunk * np * sizeof *tmp);
    struct persys ps = {s, &keep, true, 0.0, -1, thr};
    bool reuse = complete;
    while (any > -HUGE_VAL) {
        keep.n = 0;
        keep.more = false;
        done_sort(s);
        if (reuse) {
            /* Every candidate is in the kept set already (in candidate order, with its
             * bounds): take those the stream would, without screening them again. */
            for (long i = 0; i < kept->n; i++) {
                const struct cand *c = &kept->v[i];
                if (c->b.objective < thr[c->l.system] && done_find(s, c->layout) < 0)
                    keep.v[keep.n++] = *c;
            }
            reuse = false;
        } else {
            struct stream *st = stream_new(sw, opt, workers, nthreads, persys_sink, &ps);
            stream_run(st);
            bool stopped = st->stopped;
            free(st);
            if (stopped) {
                s->stopped = true;
                break;
            }
        }
        qsort(keep.v, (size_t)keep.n, sizeof *keep.v, cmp_cand);
        long pos = 0;
        while (pos < keep.n && !s->stopped) {
            if (ts_shard_any(stop_requested(s, opt))) {   /* agreed across MPI ranks */
                s->stopped = true;
                break;
            }
            /* A chunk of the candidates still below their system's threshold that can be
             * the best somewhere by their bound at each pricing (gb only improves, so
             * checking against the chunk's start state simulates no fewer than needed). A
             * candidate searched for a system x pricing with no meeting outcome yet ends the
             * chunk, so that the next ones see whether it met. */
            int nt = 0;
            while (nt < chunk && pos < keep.n) {
                struct cand *c = &keep.v[pos++];
                if (!(c->b.objective < thr[c->l.system]))
                    continue;
                bool first;
                bool need = persys_need(sw, gb, c, &first);
                if (need && !c->b.tightened) {
                    tighten(sw, &workers[0], &c->l, &c->b);
                    need = persys_need(sw, gb, c, &first);
                }
                if (need)
                    todo[nt++] = *c;
                if (first)
                    break;
            }
            if (nt == 0)
                break;
#pragma omp parallel for schedule(dynamic, 1) num_threads(nthreads)
            for (int t = 0; t < nt; t++)
                evaluate(sw, &workers[omp_get_thread_num()], &todo[t].l, &tmp[(size_t)t * np]);
            done_reserve(s, s->nd + nt);
            for (int t = 0; t < nt; t++) {
                long d = s->nd++;
                s->d_layout[d] = todo[t].layout;
                s->d_key[d] = todo[t].b.objective;
                s->d_matched[d] = 1;
                memcpy(&s->d_out[d * np], &tmp[(size_t)t * np], (size_t)np * sizeof *tmp);
                memset(&s->d_mc[d * np], 0, (size_t)np);
            }
            s->simulated += nt;
            any = persys_thresholds(s, gb, thr);
        }
        if (s->stopped || !keep.more || !(keep.left.objective < any))
            break;
        ps.from_start = false;
        ps.last_obj = keep.v[keep.n - 1].b.objective;
        ps.last_index = keep.v[keep.n - 1].layout;
    }
    free(tmp);
    free(todo);
    return !s->stopped;
}

/* ---------------------------------------------------------------- closest miss */

/* When nothing meets the constraint, the answer is the configuration closest to it on the
 * constraint's own criterion: the highest throughput for a throughput target, else the
 * earliest expected finish. Every candidate that passed screening has been simulated then
 * (with no top-k there is nothing to prune against), but the layouts rejected at their bound
 * have not, and a bound can be far below the simulated value (the bound of a layout rejected
 * at 7.1 d may simulate at 7.23 d while the one simulated at 19.3 d had a bound of 6 d). So
 * the rejected layouts are searched too, by branch and bound on the criterion: in order of
 * their bound of it (the throughput bound never below, the failure-free time at the
 * iteration bound never above the simulated value), simulated in batches until the next
 * bound cannot beat the best found. */

/* Lower is better: the negated throughput, or the expected time. */
static double miss_score(const struct ts_sweep *sw, const struct ts_outcome *o)
{
    return sw->min_tokens_per_s > 0 ? -o->tokens_per_s : o->time_s;
}

static double miss_key(const struct ts_sweep *sw, const struct bound *b)
{
    return sw->min_tokens_per_s > 0 ? -b->tokens_per_s : b->time_s;
}

struct miss {
    struct keep *keep;
    bool from_start;
    double last_key;
    long last_index;
    bool has_fallback;          // a rejected layout without a finite key (the first one):
    struct ts_layout fallback;  //   when nothing has a value, it says why (its outcome)
};

static void miss_sink(struct stream *st, long index, const struct ts_layout *l, const struct bound *b)
{
    struct miss *m = st->ctx;
    if (b->reject != TS_REJECT_CONSTRAINT)
        return;
    struct bound k = *b;
    k.objective = miss_key(st->sw, b);
    if (!isfinite(k.objective)) {
        if (!m->has_fallback) {
            m->has_fallback = true;
            m->fallback = *l;
        }
        return;
    }
    if (!m->from_start && key_cmp(k.objective, index, m->last_key, m->last_index) <= 0)
        return;
    keep_push(m->keep, index, l, &k);
}

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

/* The miss entry simulated for enumeration index `layout`, or -1. */
static long miss_find(const struct bnb *s, long layout)
{
    const long *hit = s->nm ? bsearch(&layout, s->m_layout, (size_t)s->nm, sizeof layout, cmp_long)
                            : NULL;
    return hit ? hit - s->m_layout : -1;
}

/* The closest miss into *out (false: no configuration could be evaluated). Returns false
 * with s->stopped set when a stop request cut the search short. */
static bool closest_miss(struct bnb *s, struct worker *workers, int nthreads,
                         const struct ts_sweep_options *opt, const long *perm, struct ts_outcome *out)
{
    const struct ts_sweep *sw = s->sw;
    int np = sw->n_pricing, batch = opt->batch > 0 ? opt->batch : 256;
    bool have = false;
    double best = INFINITY;
    /* The simulated candidates, in candidate order (ties keep the first). */
    for (long i = 0; i < s->nd; i++)
        for (int p = 0; p < np; p++) {
            const struct ts_outcome *o = &s->d_out[perm[i] * np + p];
            double v = miss_score(sw, o);
            if (isfinite(v) && v < best) {
                best = v;
                *out = *o;
                have = true;
            }
        }
    struct keep keep = {0};
    keep.cap = MISS_KEEP;
    keep.v = ts_xmalloc((size_t)keep.cap * sizeof *keep.v);
    struct ts_outcome *tmp = ts_xmalloc((size_t)batch * np * sizeof *tmp);
    struct ts_layout *lay = ts_xmalloc((size_t)batch * sizeof *lay);
    long *idx = ts_xmalloc((size_t)batch * sizeof *idx);
    struct miss m = {&keep, true, 0.0, -1, false, {0}};
    long cap = 0;
    for (bool done = false; !done;) {
        keep.n = 0;
        keep.more = false;
        struct stream *st = stream_new(sw, opt, workers, nthreads, miss_sink, &m);
        stream_run(st);
        bool stopped = st->stopped;
        free(st);
        if (stopped) {
            s->stopped = true;
            break;
        }
        qsort(keep.v, (size_t)keep.n, sizeof *keep.v, cmp_cand);
        long pos = 0;
        while (pos < keep.n && !done) {
            if (ts_shard_any(stop_requested(s, opt))) {   /* agreed across MPI ranks */
                s->stopped = true;
                done = true;
                break;
            }
            int nt = 0;
            while (nt < batch && pos < keep.n && keep.v[pos].b.objective < best) {
                lay[nt] = keep.v[pos].l;
                idx[nt] = keep.v[pos].layout;
                nt++;
                pos++;
            }
            if (nt == 0) {
                done = true;    /* the next bound cannot beat the best found */
                break;
            }
#pragma omp parallel for schedule(dynamic, 1) num_threads(nthreads)
            for (int t = 0; t < nt; t++)
                evaluate(sw, &workers[omp_get_thread_num()], &lay[t], &tmp[(size_t)t * np]);
            if (s->nm + nt > cap) {
                cap = cap ? cap * 2 : 256;
                while (cap < s->nm + nt)
                    cap *= 2;
                s->m_layout = ts_xrealloc(s->m_layout, (size_t)cap * sizeof *s->m_layout);
                s->m_out = ts_xrealloc(s->m_out, (size_t)cap * np * sizeof *s->m_out);
            }
            for (int t = 0; t < nt; t++) {
                s->m_layout[s->nm] = idx[t];
                memcpy(&s->m_out[s->nm * np], &tmp[(size_t)t * np], (size_t)np * sizeof *tmp);
                s->nm++;
                for (int p = 0; p < np; p++) {
                    const struct ts_outcome *o = &tmp[(size_t)t * np + p];
                    double v = miss_score(sw, o);
                    if (isfinite(v) && v < best) {
                        best = v;
                        *out = *o;
                        have = true;
                    }
                }
            }
            s->simulated += nt;
        }
        if (!done && (!keep.more || !(keep.left.objective < best)))
            done = true;
        if (!done) {
            m.from_start = false;
            m.last_key = keep.v[keep.n - 1].b.objective;
            m.last_index = keep.v[keep.n - 1].layout;
        }
    }
    /* Nothing has a value: an outcome that says why (a simulated one, else the first
     * layout rejected without a bound, evaluated now). */
    if (!have && !s->stopped) {
        for (long i = 0; i < s->nd * np && !have; i++)
            if (sw->offered[s->d_out[i].layout.system][s->d_out[i].pricing]) {
                *out = s->d_out[i];
                have = true;
            }
        if (!have && m.has_fallback) {
            evaluate(sw, &workers[0], &m.fallback, tmp);
            int p = 0;
            while (p + 1 < np && !sw->offered[m.fallback.system][sw->pricing[p]])
                p++;
            *out = tmp[p];
            have = true;
        }
    }
    /* Sorted by enumeration index for miss_find (the outcomes move with their index). */
    if (s->nm > 1) {
        struct pair { long layout, entry; } *order = ts_xmalloc((size_t)s->nm * sizeof *order);
        for (long i = 0; i < s->nm; i++)
            order[i] = (struct pair){s->m_layout[i], i};
        qsort(order, (size_t)s->nm, sizeof *order, cmp_long);  /* by its first member */
        long *ml = ts_xmalloc((size_t)s->nm * sizeof *ml);
        struct ts_outcome *mo = ts_xmalloc((size_t)s->nm * np * sizeof *mo);
        for (long i = 0; i < s->nm; i++) {
            ml[i] = order[i].layout;
            memcpy(&mo[i * np], &s->m_out[order[i].entry * np], (size_t)np * sizeof *mo);
        }
        free(s->m_layout);
        free(s->m_out);
        s->m_layout = ml;
        s->m_out = mo;
        free(order);
    }
    free(idx);
    free(lay);
    free(tmp);
    free(keep.v);
    return have && !s->stopped;
}

/* ---------------------------------------------------------------- CSV */

struct csvw {
    struct bnb *s;
    struct ts_buf *b;
};

/* Why a row is what it is, in words (the `why` column): a layout that was not simulated
 * has no exact values, and this says why instead. */
static void csv_why(const struct ts_sweep *sw, const struct ts_layout *l, const struct bound *bd,
                    const struct ts_outcome *o, bool mc_failed, struct ts_buf *b)
{
    char t[320];
    const struct ts_system *sys = &sw->systems[l->system];
    if (bd->reject == TS_REJECT_MEMORY)
        snprintf(t, sizeof t, "needs %.2f GiB per GPU; %s has %.2f GiB", bd->memory_bytes / 1073741824.0,
                 sys->accel.name, sys->accel.memory_bytes / 1073741824.0);
    else if (bd->reject == TS_REJECT_CONSTRAINT && !isfinite(bd->time_s))
        snprintf(t, sizeof t, "no listed pricing could be priced");
    else if (bd->reject == TS_REJECT_CONSTRAINT && sw->min_tokens_per_s > 0 &&
             bd->tokens_per_s < sw->min_tokens_per_s)
        snprintf(t, sizeof t, "at most %.6g tokens/s at its bound; the target is %.6g",
                 bd->tokens_per_s, sw->min_tokens_per_s);
    else if (bd->reject == TS_REJECT_CONSTRAINT)
        snprintf(t, sizeof t, "at least %.4g d at its bound; the deadline is %.4g d",
                 bd->time_s / 86400, sw->deadline_s / 86400);
    else if (!o)
        snprintf(t, sizeof t, "its bound of the %s (%.6g) could not beat the top %d or join the "
                 "cost/time front", ts_objective_names[sw->objective], bd->objective, sw->top);
    else if (mc_failed)
        snprintf(t, sizeof t, "simulated; its Monte Carlo misses the deadline at probability %.2f",
                 sw->probability);
    else if (o->meets)
        snprintf(t, sizeof t, "simulated; meets the constraint");
    else
        snprintf(t, sizeof t, "simulated; misses the constraint");
    if (bd->reject == TS_REJECT_CONSTRAINT && o)
        snprintf(t + strlen(t), sizeof t - strlen(t), "; simulated for the closest miss");
    ts_csv_field(b, t);
}

/* One row per screened layout (and pricing, once simulated), in enumeration order. */
static void csv_sink(struct stream *st, long index, const struct ts_layout *l, const struct bound *bd)
{
    struct csvw *cw = st->ctx;
    const struct ts_sweep *sw = st->sw;
    struct ts_buf *b = cw->b;
    int np = sw->n_pricing;
    const struct ts_system *sys = &sw->systems[l->system];
    int gpus = l->nodes * sys->gpus_per_node;
    long d = bd->reject ? -1 : done_find(cw->s, index);
    long m = bd->reject == TS_REJECT_CONSTRAINT ? miss_find(cw->s, index) : -1;
    const struct ts_outcome *outs = d >= 0 ? &cw->s->d_out[d * np] : m >= 0 ? &cw->s->m_out[m * np] : NULL;
    bool sim = outs != NULL;
    const char *status = d >= 0 ? "simulated" : bd->reject ? ts_reject_names[bd->reject]
                                                            : ts_reject_names[TS_REJECT_PRUNED];
    for (int p = 0; p < (sim ? np : 1); p++) {
        if (sim && !sw->offered[l->system][sw->pricing[p]])
            continue;
        ts_csv_field(b, sys->name);
        ts_buf_printf(b, ",%d,%d,%d,%d,%d,%d,%d,%d,", l->nodes, gpus, l->global_batch, l->tp, l->pp,
                      gpus / (l->tp * l->cp * l->pp), l->cp, l->microbatch);
        ts_buf_printf(b, "%s,%d,%d,%s,%d,%d,%s,", ts_schedule_names[l->schedule], l->virtual_stages,
                      l->sp, ts_recompute_names[l->recompute], l->zero, l->tp_overlap, status);
        ts_csv_number(b, bd->memory_bytes / 1073741824.0);
        ts_buf_append(b, ",", 1);
        /* A layout rejected early has no bound of what it was not priced for: empty. */
        bool early = bd->reject == TS_REJECT_CONSTRAINT;
        ts_csv_number(b, early && bd->time_s == 0 ? (double)NAN : bd->time_s);
        ts_buf_append(b, ",", 1);
        ts_csv_number(b, early && bd->cost_usd == 0 ? (double)NAN : bd->cost_usd);
        ts_buf_append(b, ",", 1);
        const struct ts_outcome *o = sim ? &outs[p] : NULL;
        if (o) {
            double iterations = ceil(sw->tokens / ((double)l->global_batch * sw->model.seq_len));
            ts_buf_printf(b, "%s,", ts_pricing_names[o->pricing]);
            const double v[] = {o->iteration_s, o->tokens_per_s, o->mfu, iterations * o->iteration_s,
                                o->time_s, o->cost_usd};
            for (size_t i = 0; i < sizeof v / sizeof *v; i++) {
                ts_csv_number(b, v[i]);
                ts_buf_append(b, ",", 1);
            }
            ts_buf_printf(b, "%s,", o->meets ? "true" : "false");
        } else {
            ts_buf_printf(b, ",,,,,,,,");
        }
        csv_why(sw, l, bd, o, d >= 0 && cw->s->d_mc[d * np + p], b);
        ts_buf_append(b, ",", 1);
        /* Last (the columns before keep their positions; MoE sweeps add ep, etp after). */
        ts_csv_field(b, sw->software[l->software].name);
        if (ts_model_is_moe(&sw->model))
            ts_buf_printf(b, ",%d,%d", l->ep, l->etp);
        ts_buf_append(b, "\n", 1);
    }
}

/* Returns TS_OK, or TS_ERR_RUNTIME when the file cannot be written (err says why). The
 * layouts are streamed once more (the screening is deterministic) rather than kept. */
static int csv_write(struct bnb *s, const char *path, struct worker *workers, int nthreads,
                     const struct ts_sweep_options *opt, struct ts_err *err)
{
    struct ts_buf b;
    ts_buf_init(&b);
    ts_buf_printf(&b, "system,nodes,gpus,global_batch,tp,pp,dp,cp,microbatch,schedule,virtual_stages,"
                  "sequence_parallel,recompute,zero,tp_comm_overlap,status,memory_gib,bound_time_s,"
                  "bound_cost_usd,pricing,iteration_s,tokens_per_s,mfu,time_to_train_s,"
                  "estimated_time_to_train_s,cost_usd,meets,why,software%s\n",
                  ts_model_is_moe(&s->sw->model) ? ",ep,etp" : "");
    struct csvw cw = {s, &b};
    done_sort(s);
    struct stream *st = stream_new(s->sw, opt, workers, nthreads, csv_sink, &cw);
    st->stoppable = false;
    stream_run(st);
    free(st);
    /* Under MPI rank 0 writes; every rank ends with its status. */
    int rc = ts_shard_rank() == 0 ? ts_file_write_atomic(path, b.data, b.len, err) : TS_OK;
    ts_buf_free(&b);
    return ts_shard_agree(rc);
}

/* ---------------------------------------------------------------- interruption */

/* The finished work of the search state, for a partial file: the simulated candidates in
 * the order they were simulated (resumed ones first). */
static void save_progress(const struct bnb *s, struct ts_sweep_result *out)
{
    int np = s->sw->n_pricing;
    struct ts_sweep_progress *p = &out->progress;
    long n = s->nd;
    p->n = n;
    p->layout = ts_xmalloc((size_t)(n ? n : 1) * sizeof *p->layout);
    p->outcomes = ts_xmalloc((size_t)(n ? n : 1) * np * sizeof *p->outcomes);
    p->mc_failed = ts_xmalloc((size_t)(n ? n : 1) * np);
    p->rejected_deadline_p = out->rejected[TS_REJECT_DEADLINE_P];
    if (n) {
        memcpy(p->layout, s->d_layout, (size_t)n * sizeof *p->layout);
        memcpy(p->outcomes, s->d_out, (size_t)n * np * sizeof *p->outcomes);
        memcpy(p->mc_failed, s->d_mc, (size_t)n * np);
    }
    out->interrupted = true;
}

/* Load an interrupted run's work into the search state. The entries are matched to this
 * sweep's candidates during the first stream (scan_sink); here: pricing and duplicates. */
static int resume_progress(struct bnb *s, const struct ts_sweep_progress *p,
                           struct ts_sweep_result *out, struct ts_err *err)
{
    int np = s->sw->n_pricing;
    done_reserve(s, p->n);
    for (long j = 0; j < p->n; j++) {
        const struct ts_outcome *o = &p->outcomes[j * np];
        for (int q = 0; q < np; q++)
            if (o[q].pricing != (uint8_t)s->sw->pricing[q])
                return ts_err_set(err, TS_ERR_INPUT, "the partial results price entry %ld as %s "
                                  "where this sweep has %s; run it again without --resume", j,
                                  ts_pricing_names[o[q].pricing % TS_PRICING_COUNT],
                                  ts_pricing_names[s->sw->pricing[q]]);
        long d = s->nd++;
        s->d_layout[d] = p->layout[j];
        s->d_key[d] = 0.0;
        s->d_matched[d] = 0;
        memcpy(&s->d_out[d * np], o, (size_t)np * sizeof *o);
        memcpy(&s->d_mc[d * np], &p->mc_failed[j * np], (size_t)np);
        s->simulated++;
    }
    done_sort(s);
    for (long i = 0; i < s->nd; i++) {
        long d = s->sorted[i];
        if (s->d_layout[d] < 0 || (i > 0 && s->d_layout[s->sorted[i - 1]] == s->d_layout[d]))
            return ts_err_set(err, TS_ERR_INPUT,
                              "the partial results do not match this sweep's layouts (entry %ld, "
                              "layout %ld): they come from another trainsim version or other "
                              "catalogue files; run the sweep again without --resume", d,
                              s->d_layout[d]);
    }
    out->rejected[TS_REJECT_DEADLINE_P] = p->rejected_deadline_p;
    return TS_OK;
}

/* After the first stream: every resumed entry must be one of this sweep's candidates. */
static int resume_check(const struct bnb *s, struct ts_err *err)
{
    long bad = s->mismatch;
    for (long d = 0; d < s->nd && bad < 0; d++)
        if (!s->d_matched[d])
            bad = d;
    if (bad < 0)
        return TS_OK;
    return ts_err_set(err, TS_ERR_INPUT,
                      "the partial results do not match this sweep's layouts (entry %ld, "
                      "layout %ld): they come from another trainsim version or other "
                      "catalogue files; run the sweep again without --resume", bad,
                      s->d_layout[bad]);
}
/* ---------------------------------------------------------------- driver */

/* Strict order of outcomes: objective, then the other metric, then candidate order. */
struct ranked {
    double objective, other;
    long index;                 // position in candidate order x n_pricing + pricing slot
    long entry;                 // simulated entry x n_pricing + pricing slot
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

/* The first `k` distinct purchases in ranked order: positions in `rank` of each purchase's
 * best outcome (its representative). Returns how many. */
static long representatives(const struct bnb *s, const struct ranked *rank, long nrank, int k,
                            long *reps)
{
    long n = 0;
    for (long r = 0; r < nrank && n < k; r++) {
        uint64_t pu = purchase_of(&s->d_out[rank[r].entry]);
        bool seen = false;
        for (long j = 0; j < n && !seen; j++)
            seen = purchase_of(&s->d_out[rank[reps[j]].entry]) == pu;
        if (!seen)
            reps[n++] = r;
    }
    return n;
}

/* The layouts of each top row's purchase within the tie tolerance of its objective. */
static void equivalent_layouts(const struct bnb *s, const struct ranked *rank, long nrank,
                               const long *rrank, int n_top, struct ts_sweep_result *out)
{
    int cap = 16, n = 0;
    out->top_layouts = ts_xmalloc((size_t)cap * sizeof *out->top_layouts);
    out->top_first = ts_xmalloc((size_t)(n_top + 1) * sizeof *out->top_first);
    for (int i = 0; i < n_top; i++) {
        out->top_first[i] = n;
        const struct ts_outcome *rep = &s->d_out[rank[rrank[i]].entry];
        uint64_t pu = purchase_of(rep);
        double limit = rep->objective + fabs(rep->objective) * TS_SWEEP_TIE_TOLERANCE;
        for (long r = rrank[i]; r < nrank && rank[r].objective <= limit; r++) {
            const struct ts_outcome *o = &s->d_out[rank[r].entry];
            if (purchase_of(o) != pu)
                continue;
            if (n == cap)
                out->top_layouts = ts_xrealloc(out->top_layouts, (size_t)(cap *= 2) * sizeof *out->top_layouts);
            out->top_layouts[n++] = r == rrank[i] ? out->top[i] : *o;
        }
    }
    out->top_first[n_top] = n;
}

static struct {
    const struct bnb *s;
    const struct ranked *rank;
} pareto_ctx;

static int cmp_cost_time(const void *a, const void *b)
{
    long i = *(const long *)a, j = *(const long *)b;
    const struct ts_outcome *x = &pareto_ctx.s->d_out[pareto_ctx.rank[i].entry];
    const struct ts_outcome *y = &pareto_ctx.s->d_out[pareto_ctx.rank[j].entry];
    if (x->cost_usd != y->cost_usd)
        return x->cost_usd < y->cost_usd ? -1 : 1;
    if (x->time_s != y->time_s)
        return x->time_s < y->time_s ? -1 : 1;
    long ii = pareto_ctx.rank[i].index, jj = pareto_ctx.rank[j].index;
    return (ii > jj) - (ii < jj);
}

/* The cost/time front of the meeting outcomes (analytic expected cost and time), one row per
 * purchase (its front point of least objective; the others listed with it), by time. */
static void pareto_purchases(const struct bnb *s, const struct ranked *rank, long nrank,
                             struct ts_sweep_result *out)
{
    /* By cost, then time, then candidate order: a point is on the front when its time is
     * below every earlier one's (an earlier point costs no more; at equal cost and time the
     * first in candidate order stands for the others). O(n log n). */
    long *order = ts_xmalloc((size_t)(nrank ? nrank : 1) * sizeof *order);
    for (long r = 0; r < nrank; r++)
        order[r] = r;
    pareto_ctx.s = s;
    pareto_ctx.rank = rank;
    qsort(order, (size_t)nrank, sizeof *order, cmp_cost_time);
    long *front = ts_xmalloc((size_t)(nrank ? nrank : 1) * sizeof *front);
    long nf = 0;
    double tmin = HUGE_VAL;
    for (long i = 0; i < nrank; i++) {
        const struct ts_outcome *o = &s->d_out[rank[order[i]].entry];
        if (o->time_s < tmin) {
            tmin = o->time_s;
            front[nf++] = order[i];
        }
    }
    free(order);
    /* Back in ranked order (objective first), so each purchase's row is its front point of
     * least objective. */
    qsort(front, (size_t)nf, sizeof *front, cmp_long);
    out->pareto = ts_xcalloc((size_t)(nf ? nf : 1), sizeof *out->pareto);
    out->pareto_layouts = ts_xcalloc((size_t)(nf ? nf : 1), sizeof *out->pareto_layouts);
    out->pareto_first = ts_xcalloc((size_t)(nf + 1), sizeof *out->pareto_first);
    bool *used = ts_xcalloc((size_t)(nf ? nf : 1), sizeof *used);
    int np = 0, nl = 0;
    long *rowrep = ts_xmalloc((size_t)(nf ? nf : 1) * sizeof *rowrep);
    for (long i = 0; i < nf; i++) {
        if (used[i])
            continue;
        rowrep[np] = i;
        out->pareto[np++] = s->d_out[rank[front[i]].entry];
        uint64_t pu = purchase_of(&s->d_out[rank[front[i]].entry]);
        for (long j = i; j < nf; j++)
            if (purchase_of(&s->d_out[rank[front[j]].entry]) == pu)
                used[j] = true;
    }
    /* Rows by time (ties: objective order), then each row's layouts. */
    for (int i = 1; i < np; i++)
        for (int j = i; j > 0 && out->pareto[j].time_s < out->pareto[j - 1].time_s; j--) {
            struct ts_outcome t = out->pareto[j];
            out->pareto[j] = out->pareto[j - 1];
            out->pareto[j - 1] = t;
            long tr = rowrep[j];
            rowrep[j] = rowrep[j - 1];
            rowrep[j - 1] = tr;
        }
    for (int i = 0; i < np; i++) {
        out->pareto_first[i] = nl;
        uint64_t pu = purchase_of(&out->pareto[i]);
        out->pareto_layouts[nl++] = out->pareto[i];
        for (long j = 0; j < nf; j++)
            if (j != rowrep[i] && purchase_of(&s->d_out[rank[front[j]].entry]) == pu)
                out->pareto_layouts[nl++] = s->d_out[rank[front[j]].entry];
    }
    out->pareto_first[np] = nl;
    out->n_pareto = np;
    free(rowrep);
    free(used);
    free(front);
}

/* The best meeting outcome of each system x pricing, in the sweep's order. */
static void best_per_system(const struct bnb *s, const struct ranked *rank, long nrank,
                            struct ts_sweep_result *out)
{
    const struct ts_sweep *sw = s->sw;
    out->best_per_system = ts_xcalloc((size_t)(sw->n_systems * sw->n_pricing + 1),
                                      sizeof *out->best_per_system);
    for (int y = 0; y < sw->n_systems; y++)
        for (int p = 0; p < sw->n_pricing; p++)
            for (long r = 0; r < nrank; r++) {
                const struct ts_outcome *o = &s->d_out[rank[r].entry];
                if (o->layout.system == y && o->pricing == (uint8_t)sw->pricing[p]) {
                    out->best_per_system[out->n_best_per_system++] = *o;
                    break;
                }
            }
}

/* The meeting outcomes in ranked order (cmp_ranked) into *rank (replacing it), and the
 * simulated entries in candidate order into *perm. Returns how many outcomes. */
static long build_rank(const struct bnb *s, long **perm, struct ranked **rank)
{
    const struct ts_sweep *sw = s->sw;
    int np = sw->n_pricing;
    free(*rank);
    free(*perm);
    *perm = done_by_key(s);
    long *pos_of = ts_xmalloc((size_t)(s->nd ? s->nd : 1) * sizeof *pos_of);
    for (long i = 0; i < s->nd; i++)
        pos_of[(*perm)[i]] = i;
    struct ranked *rk = ts_xmalloc((size_t)(s->nd ? s->nd : 1) * np * sizeof *rk);
    long n = 0;
    for (long d = 0; d < s->nd; d++)
        for (int p = 0; p < np; p++) {
            const struct ts_outcome *o = &s->d_out[d * np + p];
            if (!o->meets || s->d_mc[d * np + p])
                continue;
            rk[n].objective = o->objective;
            rk[n].other = sw->objective == TS_OBJECTIVE_COST ? o->time_s : o->cost_usd;
            rk[n].index = pos_of[d] * np + p;
            rk[n].entry = d * np + p;
            n++;
        }
    qsort(rk, (size_t)n, sizeof *rk, cmp_ranked);
    free(pos_of);
    *rank = rk;
    return n;
}

/* Whether the caller asked the sweep to stop before the next finalist's Monte Carlo. */
static bool stop_before_finalist(const struct bnb *s, const struct ts_sweep_options *opt)
{
    return (opt->stop && *opt->stop) ||
           (opt->stop_after_finalists > 0 && s->finalists >= opt->stop_after_finalists);
}

/* One finalist's Monte Carlo as the ranks exchange it. */
struct fin {
    struct ts_outcome o;
    int rc;
    bool interrupted;
    struct ts_err err;
};

/* The Monte Carlo of the finalists among rank[0..top-1] that have none yet, in rank order:
 * in groups of one finalist per MPI rank (a group of one in a single process), each group
 * gathered and applied in order. Returns the status of the first finalist that failed (err
 * says why; the ones after it are not run); *interrupted when a stop request cut a group
 * short (its work is dropped, the groups before keep theirs); *failed when a finalist missed
 * the deadline probability (marked in s->d_mc and counted). */
static int finalists_run(struct bnb *s, const struct ranked *rank, const long *reps, long top,
                         struct worker *workers, const struct ts_sweep_options *opt,
                         struct ts_sweep_result *out, bool *failed, bool *interrupted,
                         struct ts_err *err)
{
    int ranks = ts_shard_size(), me = ts_shard_rank(), rc = TS_OK;
    struct fin *g = ts_xmalloc((size_t)ranks * sizeof *g);
    long *entry = ts_xmalloc((size_t)ranks * sizeof *entry);
    long r = 0;
    while (rc == TS_OK) {
        /* The stand-in for a stop after N finalists stops after exactly N at any rank count. */
        long cap = ranks;
        if (opt->stop_after_finalists > 0 && opt->stop_after_finalists - s->finalists < cap)
            cap = opt->stop_after_finalists - s->finalists > 1
                      ? opt->stop_after_finalists - s->finalists : 1;
        int n = 0;
        for (; r < top && n < cap; r++)
            if (!s->d_out[rank[reps[r]].entry].monte_carlo)
                entry[n++] = rank[reps[r]].entry;
        if (n == 0)
            break;
        if (ts_shard_any(stop_before_finalist(s, opt))) {
            *interrupted = true;
            break;
        }
        memset(g, 0, (size_t)ranks * sizeof *g);
        if (me < n) {
            g[me].o = s->d_out[entry[me]];
            ts_err_clear(&g[me].err);
            g[me].rc = finalize(s->sw, &workers[0], &g[me].o, NULL, NULL, NULL, NULL, NULL,
                                opt->model_uncertainty, opt->stop, &g[me].interrupted,
                                &g[me].err);
        }
        if (ts_shard_any(g[me].interrupted)) {
            *interrupted = true;
            break;
        }
        ts_shard_gather(g, ranks, sizeof *g);
        for (int j = 0; j < n; j++) {
            s->finalists++;
            s->d_out[entry[j]] = g[j].o;
            if (g[j].rc != TS_OK) {
                rc = g[j].rc;
                *err = g[j].err;
                break;
            }
            if (!g[j].o.meets) {
                s->d_mc[entry[j]] = 1;
                out->rejected[TS_REJECT_DEADLINE_P]++;
                *failed = true;
            }
        }
    }
    free(entry);
    free(g);
    return rc;
}

int ts_sweep_run(const struct ts_sweep *sw, const struct ts_sweep_options *opt,
                 struct ts_sweep_result *out, struct ts_err *err)
{
    double t0 = ts_time_now();
    memset(out, 0, sizeof *out);
    int np = sw->n_pricing;

    /* State the size of the work before doing any. */
    uint64_t total = ts_sweep_count(sw);
    uint64_t limit = opt->max_configs > 0 ? opt->max_configs : TS_SWEEP_MAX_CONFIGS_DEFAULT;
    out->configurations = total;
    if (total > limit)
        return ts_err_set(err, TS_ERR_INPUT,
                          "%s: the sweep enumerates %llu configurations, above the limit of "
                          "%llu; narrow it (fewer systems, nodes or global_batch values; lists "
                          "instead of \"auto\" for tp, pp, cp, microbatch, zero, recompute, "
                          "schedule or virtual_stages) or raise the limit with --max-configs %llu",
                          sw->file[0] ? sw->file : sw->name, (unsigned long long)total,
                          (unsigned long long)limit, (unsigned long long)total);
    if (opt->progress)
        fprintf(stderr, "sweep: %llu configurations to enumerate\n", (unsigned long long)total);

    int nthreads = opt->threads > 0 ? opt->threads : omp_get_max_threads();
    struct worker *workers = ts_xcalloc((size_t)nthreads, sizeof *workers);
    for (int t = 0; t < nthreads; t++)
        worker_init(&workers[t], sw);
    struct bnb s;
    memset(&s, 0, sizeof s);
    s.sw = sw;
    s.mismatch = -1;
    done_reserve(&s, 1);
    struct keep keep = {0};
    keep.cap = opt->keep > 0 ? opt->keep : TS_SWEEP_KEEP_DEFAULT;
    keep.v = ts_xmalloc((size_t)keep.cap * sizeof *keep.v);
    struct ranked *rank = NULL;
    long *perm = NULL, *reps = NULL;
    long nrank = 0;
    int k = sw->top;
    int rc = TS_OK;

    /* Resume: the finished work of an interrupted run, candidate by candidate. */
    if (opt->resume && (rc = resume_progress(&s, opt->resume, out, err)))
        goto done;

    /* First stream: screen every layout (memory, bounds, reachability), count, keep the
     * first candidates. */
    struct scan sc = {out, &s, &keep};
    {
        struct stream *st = stream_new(sw, opt, workers, nthreads, scan_sink, &sc);
        st->t0 = t0;
        st->total = total > LONG_MAX ? LONG_MAX : (long)total;
        stream_run(st);
        out->enumerated = st->enumerated;
        out->rejected[TS_REJECT_DIVISIBILITY] = st->rejected_divisibility;
        out->rejected[TS_REJECT_TASKS] = st->rejected_tasks;
        out->rejected[TS_REJECT_SOFTWARE] = st->rejected_software;
        bool stopped = st->stopped;
        free(st);
        if (stopped) {
            save_progress(&s, out);
            out->simulated = s.simulated;
            goto done;
        }
        progress(opt, "screen", (long)total, (long)total, t0);
    }
    if ((rc = resume_check(&s, err)))
        goto done;
    qsort(keep.v, (size_t)keep.n, sizeof *keep.v, cmp_cand);
    bool complete = !keep.more;     /* every candidate is in `keep`: no stream again */

    /* Branch and bound, then Monte Carlo of the finalists; repeat while finalists fail a
     * probabilistic deadline (their replacements may need more evaluation). */
    for (int round = 0; round < 1000; round++) {
        if (round > 0 && !complete) {
            /* A new pass from the first candidate, at the state the last one left. */
            struct prune pr;
            prune_state(&s, opt->exhaustive, &pr);
            bool ok = keep_refill(&s, &keep, NULL, opt->exhaustive, &pr, workers, nthreads, opt);
            free(pr.front);
            free(pr.pbest);
            if (!ok)
                s.stopped = true;
        }
        if (!s.stopped)
            bnb_pass(&s, &keep, workers, nthreads, opt, out->candidates, t0);
        if (s.stopped) {
            save_progress(&s, out);
            out->simulated = s.simulated;
            goto done;
        }
        nrank = build_rank(&s, &perm, &rank);
        free(reps);
        reps = ts_xmalloc((size_t)(k + 1) * sizeof *reps);
        long top = representatives(&s, rank, nrank, k, reps);
        bool failed = false, interrupted = false;
        rc = finalists_run(&s, rank, reps, top, workers, opt, out, &failed, &interrupted, err);
        if (interrupted) {
            /* Finished finalists keep their Monte Carlo (outcome.monte_carlo); a resumed run
             * repeats only the one that was cut short. */
            rc = TS_OK;
            save_progress(&s, out);
            out->simulated = s.simulated;
            goto done;
        }
        if (rc || !failed)
            break;
    }
    if (rc)
        goto done;
    /* The best of every system x pricing, exact (it may need more simulations). */
    if (!complete_per_system(&s, &keep, complete, workers, nthreads, opt)) {
        save_progress(&s, out);
        out->simulated = s.simulated;
        goto done;
    }
    out->simulated = s.simulated;
    nrank = build_rank(&s, &perm, &rank);

    /* Final ranking of the finalists by their Monte Carlo objective. */
    {
        int top = 0;
        long *rrank = ts_xmalloc((size_t)(k + 1) * sizeof *rrank);
        out->top = ts_xcalloc((size_t)k, sizeof *out->top);
        long nrep = representatives(&s, rank, nrank, k, reps);
        for (long r = 0; r < nrep; r++) {
            rrank[top] = reps[r];
            out->top[top++] = s.d_out[rank[reps[r]].entry];
        }
        for (int i = 1; i < top; i++)
            for (int j = i; j > 0; j--) {
                double a = mc_objective(sw, &out->top[j - 1]), b = mc_objective(sw, &out->top[j]);
                if (b < a) {
                    struct ts_outcome t = out->top[j];
                    out->top[j] = out->top[j - 1];
                    out->top[j - 1] = t;
                    long tr = rrank[j];
                    rrank[j] = rrank[j - 1];
                    rrank[j - 1] = tr;
                } else
                    break;
            }
        out->n_top = top;
        out->found = top > 0;
        equivalent_layouts(&s, rank, nrank, rrank, top, out);
        free(rrank);
    }

    if (sw->has_cost)
        pareto_purchases(&s, rank, nrank, out);
    best_per_system(&s, rank, nrank, out);

    /* Nothing meets the constraint: the closest miss (best throughput or earliest finish). */
    if (!out->found) {
        out->has_closest = closest_miss(&s, workers, nthreads, opt, perm, &out->closest);
        out->simulated = s.simulated;
        if (s.stopped) {
            out->has_closest = false;
            save_progress(&s, out);
            goto done;
        }
    } else {
        struct ts_outcome o = out->top[0];
        bool interrupted = false;
        rc = finalize(sw, &workers[0], &o, &out->best_job, &out->best_it, &out->best_run,
                      &out->best_cost, &out->best_dist, opt->model_uncertainty, opt->stop,
                      &interrupted, err);
        if (ts_shard_any(interrupted)) {
            rc = TS_OK;
            save_progress(&s, out);
            goto done;
        }
    }

    if (opt->csv_path && rc == TS_OK)
        rc = csv_write(&s, opt->csv_path, workers, nthreads, opt, err);
    out->rejected[TS_REJECT_PRUNED] = out->feasible;
    for (long d = 0; d < s.nd; d++)
        out->rejected[TS_REJECT_PRUNED] -= n_offered(sw, &s.d_out[d * np].layout);

done:
    progress_end(opt);
    bar.what = NULL;
    free(rank);
    free(reps);
    free(perm);
    free(keep.v);
    bnb_free(&s);
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
    free(r->top_layouts);
    free(r->top_first);
    free(r->pareto_layouts);
    free(r->pareto_first);
    free(r->best_per_system);
    r->top = r->pareto = r->top_layouts = r->pareto_layouts = r->best_per_system = NULL;
    r->top_first = r->pareto_first = NULL;
    ts_sweep_progress_free(&r->progress);
}

void ts_sweep_progress_free(struct ts_sweep_progress *p)
{
    free(p->layout);
    free(p->outcomes);
    free(p->mc_failed);
    memset(p, 0, sizeof *p);
}
