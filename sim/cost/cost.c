/*
 * cost: the bill of a training run by category, and the attribution of its GPU-hours
 * (the manual is cost.h; the prices come from the job's `cost` section, sim/spec/cost.c).
 *
 * One bill is a function of the wall-clock time W of a run and of the steps it ran
 * (useful iterations plus the ones redone after failures); the expected bill takes the
 * run simulation's means, and each replication's bill (for the p90) takes its own wall time,
 * with the steps scaled by W / mean W and the incident counts at their means (the run
 * simulation reports per-replication wall times only). Every category:
 *
 *   compute             gpus x W x price(pricing)                     [USD per GPU-hour]
 *   spares              spare nodes x gpus_per_node x W x price(spare_pricing)
 *   fixed               fixed_per_hour x W
 *   storage_checkpoints keep-last-k checkpoints, each priced by the tier of its age (below)
 *   storage_dataset     dataset size x price(dataset tier) x W / month
 *   storage_logs        log bytes x price(log tier) x log retention / month: each byte is
 *                       held for the retention from when it is written
 *   network             inter-node bytes x inter_node_gb + egress x egress_gb
 *                       + cross-region x cross_region_gb
 *   data_pipeline       loader hosts x W x host_hour (hosts run for the whole run)
 *   monitoring          (job + spare nodes) x W x node_hour + log bytes x ingest_gb
 *   operations          incidents x (hours_per_incident + hours_per_restart) x hourly_rate,
 *                       incidents = failures + preemptions (each one restarts the job)
 *
 * With a commitment of C GPUs for a term T at price p (cost.commitment), the term is paid
 * whether used or not: C x T x p + upfront. The run uses u = min(gpus, C) of them for
 * min(W, T); what it leaves idle, C T - u min(W, T) GPU-hours, is the commitment_unused
 * category at p x (1 - other_use_value) (other work recovers the rest), and compute is the
 * used part u min(W, T) p + upfront plus the burst at burst_pricing: (gpus - u) x W for GPUs
 * beyond the commitment and u x max(0, W - T) for the time past its term.
 *
 * with log bytes = bytes_per_step_per_node x nodes x steps, and inter-node bytes = the
 * iteration's NIC bytes of one pipeline (one GPU per stage) x tp x cp x dp pipelines x steps.
 * A GB is 2^30 bytes and a month 730 hours (sim/spec/cost.c says why).
 *
 * Checkpoints (approximation). The run writes one after every tau useful seconds,
 * n = ceil(T_s / tau) in all, the last at the end. The failures stretch the run uniformly,
 * so checkpoint i is written at wall time t_i = min(i s, W) with the wall-clock spacing
 * s = tau W / T_s. Keep-last-k: checkpoint i is deleted when checkpoint i + k is written
 * (life t_{i+k} - t_i); the last k live until the end of the run plus checkpoint_retention.
 * A checkpoint of age a sits in the hot tier for a < tier_after.warm, in the warm tier until
 * tier_after.cold, then in the cold tier; each piece of its life is priced by its tier.
 * The checkpoints with a full life of k s are priced as one group, so the cost is O(k).
 *
 * A job without a training section is billed for one hour of failure-free running; its
 * price per million tokens is then per the tokens processed in that hour. Without a run
 * result (run == NULL) the run is failure-free: W = time to train, no incidents and no
 * checkpoints (no checkpoint schedule was simulated).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cost/cost.h"

const char *const ts_cost_category_names[TS_COST_COUNT] = {
    "compute", "spares", "fixed", "storage_checkpoints", "storage_dataset", "storage_logs",
    "network", "data_pipeline", "monitoring", "operations", "commitment_unused",
};
_Static_assert(TS_COST_COUNT == 11, "update ts_cost_category_names");

const char *const ts_gpuh_names[TS_GPUH_COUNT] = {
    "productive", "pipeline_bubble", "exposed_comm", "data_stall", "straggler_wait", "checkpoint",
    "rework", "restart", "repair_wait", "degraded", "idle_spares", "slow_node",
};
const char *const ts_gpuh_labels[TS_GPUH_COUNT] = {
    "productive compute", "pipeline bubble", "exposed communication", "data-loader stall",
    "waiting for the slowest GPU",
    "checkpoint stalls", "failure rework", "restart downtime", "waiting for repair or capacity",
    "degraded (elastic)", "idle hot spares", "slow-node time",
};
_Static_assert(TS_GPUH_COUNT == 12, "update ts_gpuh_names and ts_gpuh_labels");

#define GB_BYTES 1073741824.0           // a billed "GB" (AWS: 2^30 bytes)
#define MONTH_S (730.0 * 3600.0)        // a billed month
#define HOUR_S 3600.0

/* ---------------------------------------------------------------- prices */

double ts_cost_gpu_hour_price(const struct ts_job *job, enum ts_pricing pricing)
{
    const struct ts_cost_config *c = &job->cost;
    if (!isnan(c->gpu_hour[pricing]))
        return c->gpu_hour[pricing];
    if (!isnan(c->node_hour[pricing]) && job->system.gpus_per_node > 0)
        return c->node_hour[pricing] / job->system.gpus_per_node;
    return (double)NAN;
}

/* ---------------------------------------------------------------- data loader */

double ts_cost_loader_time(const struct ts_job *job, double *hosts)
{
    *hosts = 0.0;
    if (!job->has_cost)
        return 0.0;
    const struct ts_cost_config *c = &job->cost;
    if (c->data_bytes_per_token <= 0.0 || c->loader_bytes_per_s <= 0.0 || c->loader_hosts <= 0)
        return 0.0;     // no loader model, or hosts sized to the GPUs (never a stall)
    *hosts = c->loader_hosts;
    double bytes = (double)job->global_batch * job->model.seq_len * c->data_bytes_per_token;
    return bytes / (c->loader_hosts * c->loader_bytes_per_s);
}

/* ---------------------------------------------------------------- one bill */

/* Everything about a run that does not change between its replications. */
struct bill_ctx {
    const struct ts_cost_config *c;
    double gpus, nodes, spare_gpus, spare_nodes;
    double price_job, price_spare;          // USD per GPU-hour
    bool commit;                            // a commitment (cost.commitment)
    double commit_gpus, commit_term_h, commit_price, commit_upfront, commit_other_use,
        price_burst;
    double loader_hosts;
    double nic_bytes_per_step;              // inter-node bytes of one step, whole job
    double incidents;                       // failures + preemptions per run (mean)
    bool checkpoints;                       // whether checkpoints are stored
    double ckpt_bytes, tau_s, solve_s;
    long n_ckpt;
    int keep;
};

/* USD per GB of holding data from age 0 to age `life_s` with the tiers of *c. */
static double tiered_usd_per_gb(const struct ts_cost_config *c, double life_s)
{
    double usd = 0.0;
    for (int t = 0; t < TS_TIER_COUNT; t++) {
        double lo = c->tier_after_s[t];
        double hi = t + 1 < TS_TIER_COUNT ? c->tier_after_s[t + 1] : HUGE_VAL;
        lo = t == 0 ? 0.0 : lo;
        double span = fmin(life_s, hi) - lo;
        if (span > 0.0)
            usd += c->storage_gb_month[t] * span / MONTH_S;
    }
    return usd;
}

/* Keep-last-k checkpoints of a run of wall time W (file comment). */
static double checkpoint_storage_usd(const struct bill_ctx *x, double wall_s)
{
    if (!x->checkpoints)
        return 0.0;
    const struct ts_cost_config *c = x->c;
    long n = x->n_ckpt, k = x->keep;
    double s = x->tau_s * wall_s / x->solve_s;     // wall-clock spacing
    /* Checkpoints i with i + k <= n and (i + k) s <= W live exactly k s. */
    double whole = floor(x->solve_s / x->tau_s * (1.0 + 1e-12));
    long full = (long)fmin((double)(n - k), whole - (double)k);
    if (full < 0)
        full = 0;
    double usd_per_gb = (double)full * tiered_usd_per_gb(c, (double)k * s);
    for (long i = full + 1; i <= n; i++) {
        double t_i = fmin((double)i * s, wall_s);
        double life = i + k <= n ? fmin((double)(i + k) * s, wall_s) - t_i
                                 : wall_s - t_i + c->checkpoint_retention_s;
        usd_per_gb += tiered_usd_per_gb(c, life);
    }
    return x->ckpt_bytes / GB_BYTES * usd_per_gb;
}

/* The bill of a run of wall time `wall_s` that ran `steps` steps, by category. */
static void bill(const struct bill_ctx *x, double wall_s, double steps, double out[TS_COST_COUNT])
{
    const struct ts_cost_config *c = x->c;
    double hours = wall_s / HOUR_S;
    double log_gb = c->log_bytes_per_step_node * x->nodes * steps / GB_BYTES;
    if (x->commit) {
        double used = fmin(x->gpus, x->commit_gpus), covered_h = fmin(hours, x->commit_term_h);
        double idle_gpu_h = x->commit_gpus * x->commit_term_h - used * covered_h;
        double burst_gpu_h = (x->gpus - used) * hours + used * fmax(0.0, hours - x->commit_term_h);
        out[TS_COST_COMPUTE] = used * covered_h * x->commit_price + x->commit_upfront +
                               burst_gpu_h * x->price_burst;
        out[TS_COST_COMMITMENT_UNUSED] = idle_gpu_h * x->commit_price * (1.0 - x->commit_other_use);
    } else {
        out[TS_COST_COMPUTE] = x->gpus * hours * x->price_job;
        out[TS_COST_COMMITMENT_UNUSED] = 0.0;
    }
    out[TS_COST_SPARES] = x->spare_gpus * hours * x->price_spare;
    out[TS_COST_FIXED] = c->fixed_per_hour * hours;
    out[TS_COST_STORAGE_CHECKPOINTS] = checkpoint_storage_usd(x, wall_s);
    out[TS_COST_STORAGE_DATASET] = c->dataset_bytes / GB_BYTES *
                                   c->storage_gb_month[c->dataset_tier] * wall_s / MONTH_S;
    out[TS_COST_STORAGE_LOGS] = log_gb * c->storage_gb_month[c->log_tier] *
                                c->log_retention_s / MONTH_S;
    out[TS_COST_NETWORK] = x->nic_bytes_per_step * steps / GB_BYTES * c->inter_node_gb +
                           c->egress_bytes / GB_BYTES * c->egress_gb +
                           c->cross_region_bytes / GB_BYTES * c->cross_region_gb;
    out[TS_COST_DATA_PIPELINE] = x->loader_hosts * hours * c->loader_host_hour;
    out[TS_COST_MONITORING] = (x->nodes + x->spare_nodes) * hours * c->monitoring_node_hour +
                              log_gb * c->log_ingest_gb;
    out[TS_COST_OPERATIONS] = x->incidents *
                              (c->ops_hours_per_incident + c->ops_hours_per_restart) *
                              c->ops_hourly_rate;
}

/* Sum in index order (the order every consumer adds them in). */
static double sum_in_order(const double *v, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += v[i];
    return s;
}

/* ---------------------------------------------------------------- attribution */

/* Split the run's GPU-hours. `productive_run` is the useful compute kept, which the
 * iteration breakdown divides into productive work, bubble, exposed communication, the wait
 * for the slowest GPU and loader stall; the run-level parts come as they are. Productive
 * work takes the remainder, so the parts add up (in index order) to exactly `billed` =
 * billed_job + billed_spares. */
static void attribute(const struct ts_iteration *it, const struct ts_run_result *run,
                      double billed_job, double billed_spares, double gpuh[TS_GPUH_COUNT])
{
    memset(gpuh, 0, TS_GPUH_COUNT * sizeof *gpuh);
    double T = it->iteration_s;
    double stall = fmin(fmax(it->data_stall_s, 0.0), T);
    /* The wait for the slowest GPU (sim/step/scale.c) comes on top of the simulated step. */
    double wait = fmin(fmax(it->sync_wait_s, 0.0), T - stall);
    double step = T - stall - wait;
    double bubble = fmax(it->bubble_fraction, 0.0) * step;
    /* The step simulation counts pipeline-message waits apart from the idle time (bubble),
     * so the two do not overlap; the tail is the exposed end-of-iteration communication. */
    double comm = fmax(0.0, it->step.exposed_tp_s + it->step.exposed_pp_s +
                                it->step.exposed_dp_s + it->step.tail_s);
    if (bubble + comm > step && bubble + comm > 0.0) {
        double f = step / (bubble + comm);
        bubble *= f;
        comm *= f;
    }
    double productive_run = billed_job;
    if (run) {
        gpuh[TS_GPUH_REWORK] = run->rework_gpu_h;
        gpuh[TS_GPUH_CHECKPOINT] = run->checkpoint_gpu_h;
        gpuh[TS_GPUH_RESTART] = run->restart_gpu_h;
        gpuh[TS_GPUH_REPAIR_WAIT] = run->repair_wait_gpu_h;
        gpuh[TS_GPUH_DEGRADED] = run->degraded_gpu_h;
        gpuh[TS_GPUH_SLOW_NODE] = run->slow_node_gpu_h;
        double parts = run->productive_gpu_h + run->rework_gpu_h + run->checkpoint_gpu_h +
                       run->restart_gpu_h + run->repair_wait_gpu_h + run->degraded_gpu_h +
                       run->slow_node_gpu_h;
        TS_ASSERT(fabs(parts - billed_job) <= 1e-6 * billed_job + 1e-9,
                  "cost: the run's GPU-hours (%.17g) do not add up to gpus x mean wall time "
                  "(%.17g)", parts, billed_job);
        productive_run = run->productive_gpu_h;
    }
    gpuh[TS_GPUH_BUBBLE] = productive_run * (bubble / T);
    gpuh[TS_GPUH_EXPOSED_COMM] = productive_run * (comm / T);
    gpuh[TS_GPUH_DATA_STALL] = productive_run * (stall / T);
    gpuh[TS_GPUH_SYNC_WAIT] = productive_run * (wait / T);
    gpuh[TS_GPUH_IDLE_SPARES] = billed_spares;

    double billed = billed_job + billed_spares;
    double others = sum_in_order(gpuh + 1, TS_GPUH_COUNT - 1);
    gpuh[TS_GPUH_PRODUCTIVE] = fmax(0.0, billed - others);
    if (billed <= 0.0)
        return;
    /* The floating-point sum in index order may still miss `billed` by an ulp or two. The
     * last nonzero part absorbs that, changing by a few of its own ulps: the sum is monotone
     * in it and nothing is added after it, so nudging it lands the sum on `billed` (a part
     * after the nudged one could round ties to even and skip `billed`). Should that part be
     * too small to move the sum, the one before it takes over, down to productive. */
    for (int j = TS_GPUH_COUNT - 1; j >= 0; j--) {
        if (gpuh[j] <= 0.0 && j > 0)
            continue;
        double kept = gpuh[j], s = sum_in_order(gpuh, TS_GPUH_COUNT);
        gpuh[j] = fmax(0.0, gpuh[j] + (billed - s));
        for (int tries = 0; tries < 64; tries++) {
            if ((s = sum_in_order(gpuh, TS_GPUH_COUNT)) == billed)
                break;
            gpuh[j] = nextafter(gpuh[j], s < billed ? HUGE_VAL : 0.0);
        }
        s = sum_in_order(gpuh, TS_GPUH_COUNT);
        if (s == billed)
            return;
        gpuh[j] = kept;
    }
}

/* ---------------------------------------------------------------- the bill */

static int missing_price(const char *what, enum ts_pricing p, struct ts_err *err)
{
    return ts_err_set(err, TS_ERR_INPUT,
                      "cost.gpu_hour.%s: no price for %s \"%s\"; give gpu_hour.%s (USD per "
                      "GPU-hour) or node_hour.%s, or a \"prices\" file that has it",
                      ts_pricing_names[p], what, ts_pricing_names[p], ts_pricing_names[p],
                      ts_pricing_names[p]);
}

int ts_cost_compute(const struct ts_cost_input *in, struct ts_cost_result *out, struct ts_err *err)
{
    const struct ts_job *job = in->job;
    const struct ts_iteration *it = in->it;
    const struct ts_cost_config *c = &job->cost;
    TS_ASSERT(job->has_cost, "cost: the job has no cost section");
    TS_ASSERT(it->iteration_s > 0.0, "cost: iteration time %g s", it->iteration_s);
    memset(out, 0, sizeof *out);

    const struct ts_run_result *run = job->has_training ? in->run : NULL;
    int spare_nodes = job->has_reliability ? job->reliability.spares : 0;
    int gpn = job->system.gpus_per_node;

    struct bill_ctx x;
    memset(&x, 0, sizeof x);
    x.c = c;
    x.gpus = job->gpus;
    x.nodes = job->nodes;
    x.spare_nodes = spare_nodes;
    x.spare_gpus = (double)spare_nodes * gpn;
    x.price_job = ts_cost_gpu_hour_price(job, c->pricing);
    x.price_spare = ts_cost_gpu_hour_price(job, c->spare_pricing);
    if (c->commit && !isnan(c->commit_gpu_hour))
        x.price_job = c->commit_gpu_hour;
    if (isnan(x.price_job))
        return missing_price("\"pricing\":", c->pricing, err);
    if (spare_nodes > 0 && isnan(x.price_spare))
        return missing_price("the hot spares' \"spare_pricing\":", c->spare_pricing, err);
    if (isnan(x.price_spare))
        x.price_spare = 0.0;    // no spares: their pricing needs no price
    if (c->commit) {
        x.commit = true;
        x.commit_gpus = c->commit_gpus > 0   ? c->commit_gpus
                        : c->commit_nodes > 0 ? c->commit_nodes * gpn
                                              : (double)job->gpus;
        x.commit_term_h = c->commit_term_s / HOUR_S;
        x.commit_price = !isnan(c->commit_gpu_hour) ? c->commit_gpu_hour : x.price_job;
        x.commit_upfront = c->commit_upfront;
        x.commit_other_use = c->commit_other_use;
        x.price_burst = ts_cost_gpu_hour_price(job, c->burst_pricing);
        x.price_job = x.commit_price;   /* what a used GPU-hour costs (attribution) */
        if (isnan(x.price_burst))
            x.price_burst = -1.0;       /* checked once the run's length is known */
    }

    /* Loader hosts: as many as asked, or as many as the GPUs' token rate needs. */
    if (c->data_bytes_per_token > 0.0 && c->loader_bytes_per_s > 0.0) {
        x.loader_hosts = c->loader_hosts > 0
                             ? c->loader_hosts
                             : ceil(it->tokens_per_s * c->data_bytes_per_token /
                                    c->loader_bytes_per_s);
    }
    const struct ts_parallel *p = &job->parallel;
    x.nic_bytes_per_step = it->step.nic_bytes * p->tp * p->cp * p->dp;

    /* The run: its mean wall time, and the steps it ran (useful + redone). */
    double wall_s, steps, tokens;
    if (!job->has_training) {
        wall_s = HOUR_S;                        // one hour of running
        steps = HOUR_S / it->iteration_s;
        tokens = it->tokens_per_s * HOUR_S;
    } else if (!run) {
        wall_s = it->time_to_train_s;
        steps = it->iterations;
        tokens = job->training.tokens;
    } else {
        wall_s = run->mean_s;
        steps = it->iterations + run->rework_gpu_h * HOUR_S / (x.gpus * it->iteration_s);
        tokens = job->training.tokens;
        x.incidents = run->failures_mean + run->preemptions_mean;
        x.tau_s = run->params.checkpoint_interval_s;
        x.solve_s = run->params.solve_s;
        x.ckpt_bytes = in->checkpoint_bytes;
        x.keep = job->has_reliability ? job->reliability.checkpoint.keep : 1;
        x.checkpoints = x.ckpt_bytes > 0.0 && x.tau_s > 0.0 && x.solve_s > 0.0 && x.keep > 0;
        if (x.checkpoints)
            x.n_ckpt = (long)ceil(x.solve_s / x.tau_s * (1.0 - 1e-12));
        if (x.n_ckpt < 1)
            x.checkpoints = false;
    }
    TS_ASSERT(wall_s > 0.0, "cost: wall time %g s", wall_s);

    if (x.commit && x.price_burst < 0.0) {
        bool needs = (double)job->gpus > x.commit_gpus || wall_s > c->commit_term_s ||
                     (run && run->p90_s > c->commit_term_s);
        for (int r = 0; run && in->wall_samples && r < in->n_samples; r++)
            needs |= in->wall_samples[r] > c->commit_term_s;
        if (needs)
            return missing_price("the commitment's \"burst_pricing\" (GPUs beyond it or time "
                                 "past its term):", c->burst_pricing, err);
        x.price_burst = 0.0;
    }
    bill(&x, wall_s, steps, out->breakdown_usd);
    out->total_usd = sum_in_order(out->breakdown_usd, TS_COST_COUNT);
    out->per_million_tokens_usd = tokens > 0.0 ? out->total_usd / (tokens / 1e6) : 0.0;
    out->per_hour_usd = x.gpus * x.price_job + x.spare_gpus * x.price_spare + c->fixed_per_hour;

    /* p90: every category recomputed for each replication's wall time. */
    if (run && in->wall_samples && in->n_samples > 0) {
        double *bills = ts_xmalloc((size_t)in->n_samples * sizeof *bills);
        for (int r = 0; r < in->n_samples; r++) {
            double w = in->wall_samples[r], b[TS_COST_COUNT];
            bill(&x, w, steps * w / wall_s, b);
            bills[r] = sum_in_order(b, TS_COST_COUNT);
        }
        ts_stats_sort(bills, (size_t)in->n_samples);
        out->p90_usd = ts_stats_percentile_sorted(bills, (size_t)in->n_samples, 0.90);
        free(bills);
    } else if (run) {
        double b[TS_COST_COUNT];
        bill(&x, run->p90_s, steps * run->p90_s / wall_s, b);
        out->p90_usd = sum_in_order(b, TS_COST_COUNT);
    } else {
        out->p90_usd = out->total_usd;
    }

    /* Where the GPU-hours went. */
    double billed_job = x.gpus * wall_s / HOUR_S, billed_spares = x.spare_gpus * wall_s / HOUR_S;
    attribute(it, run, billed_job, billed_spares, out->gpu_hours);
    out->gpu_hours_billed = sum_in_order(out->gpu_hours, TS_GPUH_COUNT);
    out->top_waste = TS_GPUH_PRODUCTIVE;
    for (int g = 0; g < TS_GPUH_COUNT; g++) {
        double price = g == TS_GPUH_IDLE_SPARES ? x.price_spare : x.price_job;
        out->waste_usd[g] = out->gpu_hours[g] * price;
        bool larger = out->top_waste == TS_GPUH_PRODUCTIVE ||
                      out->waste_usd[g] > out->waste_usd[out->top_waste];
        if (g != TS_GPUH_PRODUCTIVE && out->waste_usd[g] > 0.0 && larger)
            out->top_waste = g;
    }

    out->loader_hosts = x.loader_hosts;
    out->data_stall_s = it->data_stall_s;
    out->nic_bytes_total = x.nic_bytes_per_step * steps;
    out->budget_set = c->budget > 0.0;
    out->over_budget_expected = out->budget_set && out->total_usd > c->budget;
    out->over_budget_p90 = out->budget_set && out->p90_usd > c->budget;
    return TS_OK;
}
