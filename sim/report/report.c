/*
 * Run reports: JSON (the contract keys), tables, CSV, and Chrome traces.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"

const char *const ts_format_names[TS_FORMAT_COUNT] = {"table", "json", "csv"};
_Static_assert(TS_FORMAT_COUNT == 3, "update ts_format_names");

/* ---------------------------------------------------------------- JSON */

static void add_num(cJSON *o, const char *key, double v)
{
    cJSON_AddItemToObject(o, key, isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull());
}

static cJSON *layout_json(const struct ts_job *job, int micro)
{
    const struct ts_parallel *p = &job->parallel;
    cJSON *o = cJSON_CreateObject();
    add_num(o, "tp", p->tp);
    add_num(o, "pp", p->pp);
    add_num(o, "dp", p->dp);
    add_num(o, "cp", p->cp);
    if (ts_model_is_moe(&job->model)) {
        add_num(o, "ep", p->ep);
        add_num(o, "etp", p->etp);
        add_num(o, "edp", ts_job_edp(job));
    }
    add_num(o, "microbatch", p->microbatch);
    add_num(o, "microbatches", micro);
    cJSON_AddStringToObject(o, "schedule", ts_schedule_names[p->schedule]);
    add_num(o, "virtual_stages", p->virtual_stages);
    cJSON_AddBoolToObject(o, "sequence_parallel", p->sequence_parallel);
    char rec[256];
    ts_recompute_describe(p, rec, sizeof rec);
    cJSON_AddStringToObject(o, "recompute", rec);
    add_num(o, "zero", p->zero);
    add_num(o, "offload_layers", p->offload_layers);
    cJSON_AddBoolToObject(o, "dp_overlap", p->dp_overlap);
    cJSON_AddBoolToObject(o, "tp_comm_overlap", p->tp_comm_overlap);
    cJSON_AddStringToObject(o, "attention", ts_attention_names[p->attention]);
    cJSON_AddStringToObject(o, "attention_kernel",
                            ts_attention_names[ts_attention_resolve(p, job->system.accel.generation)]);
    return o;
}

static void run_json(cJSON *o, const struct ts_run_result *run)
{
    add_num(o, "expected_time_to_train_s", run->mean_s);
    add_num(o, "p50_time_to_train_s", run->p50_s);
    add_num(o, "p90_time_to_train_s", run->p90_s);
    add_num(o, "p99_time_to_train_s", run->p99_s);
    add_num(o, "time_to_train_stderr_s", run->stderr_s);
    add_num(o, "goodput", run->goodput);
    add_num(o, "failures_expected", run->failures_mean);
    add_num(o, "preemptions_expected", run->preemptions_mean);
    add_num(o, "checkpoints_expected", run->checkpoints_mean);
    add_num(o, "checkpoint_interval_s", run->params.checkpoint_interval_s);
    add_num(o, "checkpoint_write_s", run->params.checkpoint_write_s);
    add_num(o, "restart_s", run->params.restart_s);
    add_num(o, "job_mtbf_s", run->params.job_mtbf_s);
    if (!isfinite(run->params.job_mtbf_s))     /* null above: say why */
        cJSON_AddStringToObject(o, "job_mtbf_note", "nothing interrupts the job: no failure or "
                                "preemption process");
    add_num(o, "daly_expected_time_to_train_s", run->daly_mean_s);
    add_num(o, "replications", run->replications);
    cJSON *lost = cJSON_CreateObject();
    add_num(lost, "rework", run->rework_gpu_h);
    add_num(lost, "restart", run->restart_gpu_h);
    add_num(lost, "checkpoint_stall", run->checkpoint_gpu_h);
    add_num(lost, "repair_wait", run->repair_wait_gpu_h);
    add_num(lost, "degraded", run->degraded_gpu_h);
    add_num(lost, "slow_node", run->slow_node_gpu_h);
    cJSON_AddItemToObject(o, "gpu_hours_lost", lost);
    cJSON *inc = cJSON_CreateObject();     // counts per run of the incident mechanisms
    add_num(inc, "hangs", run->hangs_mean);
    add_num(inc, "slow_episodes", run->slow_episodes_mean);
    add_num(inc, "planned", run->planned_mean);
    add_num(inc, "rollbacks", run->rollbacks_mean);
    add_num(inc, "evictions", run->evictions_mean);
    add_num(inc, "correlated_events", run->correlated_mean);
    add_num(inc, "nodes_replaced", run->nodes_replaced_mean);
    cJSON_AddItemToObject(o, "incidents_expected", inc);
}

static void cost_json(cJSON *o, const struct ts_job *job, const struct ts_cost_result *c)
{
    add_num(o, "cost_total", c->total_usd);
    add_num(o, "cost_p90", c->p90_usd);
    add_num(o, "cost_per_million_tokens", c->per_million_tokens_usd);
    add_num(o, "cost_per_hour", c->per_hour_usd);
    cJSON *b = cJSON_CreateObject();
    for (int i = 0; i < TS_COST_COUNT; i++)
        add_num(b, ts_cost_category_names[i], c->breakdown_usd[i]);
    cJSON_AddItemToObject(o, "cost_breakdown", b);
    cJSON *g = cJSON_CreateObject();
    add_num(g, "billed", c->gpu_hours_billed);
    for (int i = 0; i < TS_GPUH_COUNT; i++)
        add_num(g, ts_gpuh_names[i], c->gpu_hours[i]);
    cJSON_AddItemToObject(o, "gpu_hours", g);
    cJSON *w = cJSON_CreateObject();
    for (int i = 0; i < TS_GPUH_COUNT; i++)
        add_num(w, ts_gpuh_names[i], c->waste_usd[i]);
    cJSON_AddItemToObject(o, "cost_attribution", w);
    cJSON_AddStringToObject(o, "top_waste", ts_gpuh_labels[c->top_waste]);
    cJSON *bud = cJSON_CreateObject();
    if (c->budget_set)
        add_num(bud, "limit", job->cost.budget);
    else
        cJSON_AddNullToObject(bud, "limit");
    cJSON_AddBoolToObject(bud, "over_expected", c->over_budget_expected);
    cJSON_AddBoolToObject(bud, "over_p90", c->over_budget_p90);
    cJSON_AddItemToObject(o, "budget", bud);
    cJSON_AddStringToObject(o, "pricing", ts_pricing_names[job->cost.pricing]);
    cJSON_AddStringToObject(o, "price_source", job->cost.price_source);
}

/* ---------------------------------------------------------------- assumptions */

static const char *fmt_q(double v, enum ts_dim dim, char *buf, size_t n);

static const char *unit_of(enum ts_component c)
{
    switch (c) {
    case TS_COMP_GPU:
        return "GPU";
    case TS_COMP_JOB:
        return "job";
    case TS_COMP_NODE:
    case TS_COMP_NETWORK:
    case TS_COMP_SWITCH:
    case TS_COMP_SOFTWARE:
    case TS_COMP_COUNT:
        break;
    }
    return "node";
}

static double units_of(enum ts_component c, const struct ts_job *job)
{
    return c == TS_COMP_GPU ? job->gpus : c == TS_COMP_JOB ? 1.0 : job->nodes;
}

/* Scaled MTBF of one copy of process i (the run model's rate_scale applied). */
static double unit_mtbf(const struct ts_reliability *rel, int i)
{
    return rel->failures[i].mtbf_s / rel->rate_scale;
}

static const char *interval_choice(const struct ts_checkpoint *c)
{
    if (c->interval_auto)
        return "auto: Daly's higher-order optimum for the job MTBF and the checkpoint stall";
    if (c->interval_iterations > 0)
        return "given in iterations";
    return "given";
}

static const char *recovery_label(const struct ts_reliability *rel)
{
    switch (rel->recovery_mode) {
    case TS_RECOVERY_DEFAULT:
        return "default: a managed cluster, automated detection and replacement from the "
               "cluster's pool (Kokolis et al. u0, D10), hangs at the PyTorch NCCL watchdog";
    case TS_RECOVERY_GIVEN:
        return "given in reliability.recovery";
    case TS_RECOVERY_CONSTANT:
    case TS_RECOVERY_MODE_COUNT:
        break;
    }
    return "constant: restart_overhead given without recovery phases (Daly's setting)";
}

/* The recovery phases and the incident mechanisms in effect (issue 13), each with its
 * parameters, under "recovery" and "mechanisms". */
static void mechanisms_json(cJSON *o, const struct ts_job *job, const struct ts_run_result *run,
                            bool simulated)
{
    const struct ts_reliability *rel = &job->reliability;
    const struct ts_mechanisms *x = &rel->mech;
    const struct ts_recovery *rc = &x->recovery;
    cJSON *r = cJSON_AddObjectToObject(o, "recovery");
    cJSON_AddStringToObject(r, "mode", ts_recovery_mode_names[rel->recovery_mode]);
    cJSON_AddStringToObject(r, "source", recovery_label(rel));
    add_num(r, "crash_detection_s", rc->crash_detect_s);
    add_num(r, "hang_fraction", ts_run_hang_fraction(rel, job->gpus, job->nodes));
    add_num(r, "hang_timeout_s", rc->hang_timeout_s);
    if (rc->diagnose_median_s > 0.0) {
        cJSON *d = cJSON_AddObjectToObject(r, "diagnose");
        cJSON_AddStringToObject(d, "distribution", "lognormal");
        cJSON_AddStringToObject(d, "preset", rc->diagnose_preset[0] ? rc->diagnose_preset
                                                                    : "given");
        add_num(d, "median_s", rc->diagnose_median_s);
        add_num(d, "sigma", rc->diagnose_sigma);
        add_num(d, "mean_s", rc->diagnose_median_s *
                                 exp(0.5 * rc->diagnose_sigma * rc->diagnose_sigma));
    } else {
        cJSON *d = cJSON_AddObjectToObject(r, "diagnose");
        cJSON_AddStringToObject(d, "distribution", "none");
    }
    add_num(r, "queue_s", rc->queue_s);
    add_num(r, "startup_s", rc->startup_s);
    add_num(r, "startup_per_node_s", rc->startup_per_node_s);
    double phases = ts_run_recovery_phases_mean(rel, job->gpus, job->nodes);
    add_num(r, "phases_mean_s", phases);
    if (simulated)
        add_num(r, "mean_recovery_s", phases + run->params.restart_s);

    cJSON *m = cJSON_AddObjectToObject(o, "mechanisms");
    cJSON *fs = cJSON_AddObjectToObject(m, "fail_slow");
    cJSON_AddBoolToObject(fs, "enabled", x->fail_slow.gpu_mtbf_s > 0.0);
    if (x->fail_slow.gpu_mtbf_s > 0.0) {
        add_num(fs, "gpu_mtbf_s", x->fail_slow.gpu_mtbf_s / rel->rate_scale);
        add_num(fs, "job_onset_mtbf_s", x->fail_slow.gpu_mtbf_s / rel->rate_scale / job->gpus);
        add_num(fs, "factor", x->fail_slow.factor);
        add_num(fs, "detection_s", x->fail_slow.detect_s);
    }
    cJSON *bn = cJSON_AddObjectToObject(m, "bad_nodes");
    cJSON_AddBoolToObject(bn, "enabled", x->bad_nodes.fraction > 0.0);
    if (x->bad_nodes.fraction > 0.0) {
        add_num(bn, "fraction", x->bad_nodes.fraction);
        add_num(bn, "multiplier", x->bad_nodes.multiplier);
        add_num(bn, "evict_after", x->bad_nodes.evict_after);
        add_num(bn, "window_s", x->bad_nodes.evict_window_s);
    }
    cJSON *co = cJSON_AddObjectToObject(m, "correlated");
    cJSON_AddBoolToObject(co, "enabled", x->correlated.domain_mtbf_s > 0.0);
    if (x->correlated.domain_mtbf_s > 0.0) {
        add_num(co, "domain_mtbf_s", x->correlated.domain_mtbf_s / rel->rate_scale);
        add_num(co, "domain_nodes", x->correlated.domain_nodes);
        add_num(co, "domains", ceil((double)job->nodes / x->correlated.domain_nodes));
    }
    cJSON *rb = cJSON_AddObjectToObject(m, "rollback");
    cJSON_AddBoolToObject(rb, "enabled", x->rollback.fraction > 0.0);
    if (x->rollback.fraction > 0.0) {
        add_num(rb, "fraction", x->rollback.fraction);
        add_num(rb, "depth", x->rollback.depth);
        cJSON_AddBoolToObject(rb, "to_start", rel->checkpoint.keep < x->rollback.depth + 1);
    }
    cJSON *pl = cJSON_AddObjectToObject(m, "planned");
    cJSON_AddBoolToObject(pl, "enabled", x->planned.node_mtbf_s > 0.0);
    if (x->planned.node_mtbf_s > 0.0) {
        add_num(pl, "node_mtbf_s", x->planned.node_mtbf_s);
        add_num(pl, "job_mtbf_s", x->planned.node_mtbf_s / job->nodes);
    }
}

/* Everything the whole-run answer rests on (issue 13): the failure processes at this job's
 * size, the restart, the checkpoint policy, spot preemption, rate_scale and where each came
 * from. `run` may be NULL (no run simulated): the checkpoint and restart figures are then
 * null. */
static cJSON *assumptions_json(const struct ts_job *job, const struct ts_run_result *run)
{
    const struct ts_reliability *rel = &job->reliability;
    cJSON *o = cJSON_CreateObject();
    char src[256], cite[512];
    cJSON_AddStringToObject(o, "reliability", rel->none ? "none" : "simulated");
    cJSON_AddStringToObject(o, "source", ts_reliability_source(rel, src, sizeof src));
    if (rel->failures_default)
        cJSON_AddStringToObject(o, "fleet", ts_fleet_names[rel->fleet_used]);
    cJSON_AddBoolToObject(o, "fleet_assumed", rel->fleet_assumed);
    add_num(o, "rate_scale", rel->rate_scale);
    cJSON *procs = cJSON_AddArrayToObject(o, "failure_processes");
    double rate = 0.0;
    for (int i = 0; i < rel->n_failures; i++) {
        const struct ts_failure_process *f = &rel->failures[i];
        cJSON *p = cJSON_CreateObject();
        double units = units_of(f->component, job), mtbf = unit_mtbf(rel, i);
        cJSON_AddStringToObject(p, "name", f->name);
        cJSON_AddStringToObject(p, "component", ts_component_names[f->component]);
        cJSON_AddStringToObject(p, "distribution", ts_distribution_names[f->distribution]);
        add_num(p, "shape", f->shape);
        cJSON_AddStringToObject(p, "unit", unit_of(f->component));
        add_num(p, "units", units);
        add_num(p, "mtbf_per_unit_s", mtbf);
        add_num(p, "failures_per_1000_unit_days", 1000.0 * 86400.0 / mtbf);
        add_num(p, "job_mtbf_contribution_s", mtbf / units);
        cJSON_AddBoolToObject(p, "takes_node", ts_component_takes_node(f->component));
        add_num(p, "hang_fraction", rel->mech.recovery.hang_fraction > 0.0
                                        ? rel->mech.recovery.hang_fraction : f->hang_fraction);
        const char *c = ts_reliability_default_cite(rel, i, cite, sizeof cite);
        cJSON_AddStringToObject(p, "source", c ? c : "file");
        cJSON_AddItemToArray(procs, p);
        rate += units / mtbf;
    }
    add_num(o, "job_mtbf_failures_s", rate > 0.0 ? 1.0 / rate : HUGE_VAL);
    if (run)
        add_num(o, "job_mtbf_s", run->params.job_mtbf_s);

    cJSON *sp = cJSON_AddObjectToObject(o, "spot");
    cJSON_AddBoolToObject(sp, "enabled", rel->spot.enabled);
    if (rel->spot.enabled) {
        add_num(sp, "preemption_mtbf_per_node_s", rel->spot.preemption_mtbf_s);
        add_num(sp, "job_preemption_mtbf_s", rel->spot.preemption_mtbf_s / job->nodes);
        add_num(sp, "notice_s", rel->spot.notice_s);
        add_num(sp, "reacquire_s", rel->spot.reacquire_s);
    }

    /* The restart and checkpoint figures exist only for a simulated run (not without a
     * training section, not for the failure-free what-if). */
    bool simulated = run && !(rel->none && !rel->spot.enabled);
    cJSON *rs = cJSON_AddObjectToObject(o, "restart");
    double startup = ts_run_startup(rel, job->nodes);
    if (simulated) {
        add_num(rs, "overhead_s", rel->restart_overhead_s);
        add_num(rs, "startup_s", startup);
        add_num(rs, "reload_s", run->params.restart_s - rel->restart_overhead_s - startup);
        add_num(rs, "total_s", run->params.restart_s);
    }
    add_num(rs, "repair_time_s", rel->repair_time_s);
    add_num(rs, "spares", rel->spares);
    cJSON_AddBoolToObject(rs, "elastic", rel->elastic);

    const struct ts_checkpoint *c = &rel->checkpoint;
    cJSON *ck = cJSON_AddObjectToObject(o, "checkpoint");
    cJSON_AddStringToObject(ck, "interval_choice", simulated ? interval_choice(c)
                                                   : rel->none ? "none: nothing to protect against"
                                                               : "not simulated (no training section)");
    if (simulated) {
        add_num(ck, "interval_s", run->params.checkpoint_interval_s);
        add_num(ck, "size_bytes", run->params.checkpoint_bytes);
        add_num(ck, "write_bandwidth_Bps", run->params.write_bandwidth);
        add_num(ck, "read_bandwidth_Bps", run->params.read_bandwidth);
        add_num(ck, "stall_s", run->params.checkpoint_write_s);
        add_num(ck, "persist_s", run->params.checkpoint_persist_s);
    }
    cJSON_AddStringToObject(ck, "mode", ts_ckpt_mode_names[c->mode]);
    cJSON_AddStringToObject(ck, "size_source", c->size_bytes > 0.0 ? "given"
                                                : "weights + optimizer state of the job");
    add_num(ck, "keep", c->keep);

    if (!rel->none)
        mechanisms_json(o, job, run, simulated);

    cJSON *mc = cJSON_AddObjectToObject(o, "monte_carlo");
    if (run)
        add_num(mc, "replications", run->replications);
    add_num(mc, "seed", (double)rel->seed);
    return o;
}

/* A long MTBF in years ("9.05 y"), else as a duration. */
static const char *fmt_mtbf(double s, char *buf, size_t n)
{
    if (s >= 365.25 * 86400.0 && isfinite(s))
        snprintf(buf, n, "%.3g y", s / (365.25 * 86400.0));
    else
        ts_quantity_format(s, TS_DIM_SECONDS, buf, n);
    return buf;
}

/* The recovery phases of one unplanned failure, one line. */
static void recovery_table(struct ts_buf *o, const struct ts_job *job,
                           const struct ts_run_result *run)
{
    const struct ts_reliability *rel = &job->reliability;
    const struct ts_recovery *rc = &rel->mech.recovery;
    char a[48], b[48], c[48], d[48], e[48];
    double hang = ts_run_hang_fraction(rel, job->gpus, job->nodes);
    double phases = ts_run_recovery_phases_mean(rel, job->gpus, job->nodes);
    ts_buf_printf(o, "    recovery (%s): crash detection %s; hangs %.1f%% of failures, "
                  "detected at %s",
                  ts_recovery_mode_names[rel->recovery_mode],
                  rc->crash_detect_s > 0.0 ? fmt_q(rc->crash_detect_s, TS_DIM_SECONDS, a, sizeof a)
                                           : "immediate",
                  100.0 * hang, fmt_q(rc->hang_timeout_s, TS_DIM_SECONDS, b, sizeof b));
    if (rc->diagnose_median_s > 0.0)
        ts_buf_printf(o, "; diagnose + replace lognormal median %s, mean %s (%s)",
                      fmt_q(rc->diagnose_median_s, TS_DIM_SECONDS, c, sizeof c),
                      fmt_q(rc->diagnose_median_s * exp(0.5 * rc->diagnose_sigma * rc->diagnose_sigma),
                            TS_DIM_SECONDS, d, sizeof d),
                      rc->diagnose_preset[0] ? rc->diagnose_preset : "given");
    else
        ts_buf_printf(o, "; no diagnosis phase");
    ts_buf_printf(o, "; queue %s; start-up %s + %s per node\n",
                  fmt_q(rc->queue_s, TS_DIM_SECONDS, a, sizeof a),
                  fmt_q(rc->startup_s, TS_DIM_SECONDS, b, sizeof b),
                  fmt_q(rc->startup_per_node_s, TS_DIM_SECONDS, e, sizeof e));
    ts_buf_printf(o, "    mean recovery per failure: phases %s + restart %s = %s\n",
                  fmt_q(phases, TS_DIM_SECONDS, a, sizeof a),
                  fmt_q(run->params.restart_s, TS_DIM_SECONDS, b, sizeof b),
                  fmt_q(phases + run->params.restart_s, TS_DIM_SECONDS, c, sizeof c));
}

/* The incident mechanisms in effect, one line. */
static void incidents_table(struct ts_buf *o, const struct ts_job *job)
{
    const struct ts_reliability *rel = &job->reliability;
    const struct ts_mechanisms *x = &rel->mech;
    char a[48], b[48];
    ts_buf_printf(o, "    incidents: fail-slow ");
    if (x->fail_slow.gpu_mtbf_s > 0.0)
        ts_buf_printf(o, "one per %s per GPU, x%g until detected after %s",
                      fmt_mtbf(x->fail_slow.gpu_mtbf_s / rel->rate_scale, a, sizeof a),
                      x->fail_slow.factor, fmt_q(x->fail_slow.detect_s, TS_DIM_SECONDS, b, sizeof b));
    else
        ts_buf_printf(o, "off");
    ts_buf_printf(o, "; bad nodes ");
    if (x->bad_nodes.fraction > 0.0) {
        ts_buf_printf(o, "%g%% at x%g", 100.0 * x->bad_nodes.fraction, x->bad_nodes.multiplier);
        if (x->bad_nodes.evict_after > 0)
            ts_buf_printf(o, ", evicted after %d failures", x->bad_nodes.evict_after);
    } else {
        ts_buf_printf(o, "off");
    }
    ts_buf_printf(o, "; correlated ");
    if (x->correlated.domain_mtbf_s > 0.0)
        ts_buf_printf(o, "one per %s per domain of %d nodes",
                      fmt_mtbf(x->correlated.domain_mtbf_s / rel->rate_scale, a, sizeof a),
                      x->correlated.domain_nodes);
    else
        ts_buf_printf(o, "off");
    ts_buf_printf(o, "; rollback ");
    if (x->rollback.fraction > 0.0)
        ts_buf_printf(o, "%g%% of failures, %d back%s", 100.0 * x->rollback.fraction,
                      x->rollback.depth,
                      rel->checkpoint.keep < x->rollback.depth + 1 ? " (to the start: keep too small)"
                                                                  : "");
    else
        ts_buf_printf(o, "off");
    ts_buf_printf(o, "; planned ");
    if (x->planned.node_mtbf_s > 0.0)
        ts_buf_printf(o, "one per %s per node\n", fmt_mtbf(x->planned.node_mtbf_s, a, sizeof a));
    else
        ts_buf_printf(o, "off\n");
}

static void assumptions_table(struct ts_buf *o, const struct ts_job *job,
                              const struct ts_run_result *run)
{
    const struct ts_reliability *rel = &job->reliability;
    char a[48], b[48], c[48], src[256];
    ts_buf_printf(o, "\nAssumptions of the whole run (source: %s)\n",
                  ts_reliability_source(rel, src, sizeof src));
    if (rel->none && !rel->spot.enabled) {
        ts_buf_printf(o, "    reliability \"none\": a failure-free what-if (no failures, no "
                      "checkpoints, no restarts)\n");
        return;
    }
    if (rel->rate_scale != 1.0)
        ts_buf_printf(o, "    rate_scale %g: every failure rate below is multiplied by it\n",
                      rel->rate_scale);
    if (rel->n_failures > 0)
        ts_buf_printf(o, "    %-14s %-9s %7s %16s %14s %14s %6s\n", "process", "component",
                      "units", "MTBF per unit", "/1000 unit-d", "job MTBF part", "hangs");
    double rate = 0.0;
    for (int i = 0; i < rel->n_failures; i++) {
        const struct ts_failure_process *f = &rel->failures[i];
        double units = units_of(f->component, job), mtbf = unit_mtbf(rel, i);
        double hang = rel->mech.recovery.hang_fraction > 0.0 ? rel->mech.recovery.hang_fraction
                                                             : f->hang_fraction;
        ts_buf_printf(o, "    %-14s %-9s %7.0f %16s %14.3g %14s %5.0f%%%s\n", f->name,
                      ts_component_names[f->component], units,
                      fmt_mtbf(mtbf, a, sizeof a), 1000.0 * 86400.0 / mtbf,
                      fmt_mtbf(mtbf / units, b, sizeof b), 100.0 * hang,
                      f->distribution == TS_DIST_WEIBULL ? "  (Weibull)" : "");
        rate += units / mtbf;
    }
    if (rate > 0.0)
        ts_buf_printf(o, "    %-30s %12s\n", "job MTBF (failures)",
                      fmt_q(1.0 / rate, TS_DIM_SECONDS, a, sizeof a));
    else
        ts_buf_printf(o, "    no failure process\n");
    if (rel->spot.enabled)
        ts_buf_printf(o, "    spot preemption: one per %s per node (job: %s), notice %s, "
                      "reacquire %s\n",
                      fmt_q(rel->spot.preemption_mtbf_s, TS_DIM_SECONDS, a, sizeof a),
                      fmt_q(rel->spot.preemption_mtbf_s / job->nodes, TS_DIM_SECONDS, b, sizeof b),
                      fmt_q(rel->spot.notice_s, TS_DIM_SECONDS, c, sizeof c),
                      fmt_q(rel->spot.reacquire_s, TS_DIM_SECONDS, src, sizeof src));
    else
        ts_buf_printf(o, "    spot preemption: none (not spot capacity)\n");
    if (!run)
        return;
    const struct ts_run_params *p = &run->params;
    recovery_table(o, job, run);
    double startup = ts_run_startup(rel, job->nodes);
    char e[48];
    ts_buf_printf(o, "    restart: overhead %s + start-up %s + reload %s = %s; repair %s, %d "
                  "spares%s\n",
                  fmt_q(rel->restart_overhead_s, TS_DIM_SECONDS, a, sizeof a),
                  fmt_q(startup, TS_DIM_SECONDS, e, sizeof e),
                  fmt_q(p->restart_s - rel->restart_overhead_s - startup, TS_DIM_SECONDS, b,
                        sizeof b),
                  fmt_q(p->restart_s, TS_DIM_SECONDS, c, sizeof c),
                  rel->repair_time_s > 0 ? fmt_q(rel->repair_time_s, TS_DIM_SECONDS, src, sizeof src)
                                         : "from the pool during the restart",
                  rel->spares, rel->elastic ? ", elastic" : "");
    incidents_table(o, job);
    ts_buf_printf(o, "    checkpoint: every %s (%s), %s, ",
                  fmt_q(p->checkpoint_interval_s, TS_DIM_SECONDS, a, sizeof a),
                  rel->checkpoint.interval_auto ? "auto, Daly's optimum" : "given",
                  ts_ckpt_mode_names[rel->checkpoint.mode]);
    ts_buf_printf(o, "%s, write %s, read %s, keep %d\n",
                  fmt_q(p->checkpoint_bytes, TS_DIM_BYTES, a, sizeof a),
                  fmt_q(p->write_bandwidth, TS_DIM_BYTES_PER_S, b, sizeof b),
                  fmt_q(p->read_bandwidth, TS_DIM_BYTES_PER_S, c, sizeof c),
                  rel->checkpoint.keep);
}

/* ---------------------------------------------------------------- validation */

/* What is known of the accuracy of this (software profile, device) pair. */
struct validation {
    const struct ts_sw_band *band;  // residual band of the pair's validation rows, or NULL
    const struct ts_sw_mfu *mfu;    // highest published MFU of the pair, or NULL
    bool implausible;               // predicted MFU above it
};

static void validation_of(const struct ts_job *job, const struct ts_iteration *it,
                          struct validation *v)
{
    const struct ts_software *sw = &job->software;
    const char *dev = job->system.accel.name;
    memset(v, 0, sizeof *v);
    v->band = ts_software_band(sw, dev, (int)job->precision, job->model.seq_len);
    for (int i = 0; i < sw->n_mfu; i++)
        if (strcmp(sw->max_mfu[i].device, dev) == 0 && sw->max_mfu[i].precision == (int)job->precision)
            v->mfu = &sw->max_mfu[i];
    v->implausible = v->mfu && it->feasible && it->mfu > v->mfu->mfu;
}

/* The `validation` object of a run report; residual_band and max_published_mfu are left
 * out when the profile has none for the device. */
static cJSON *validation_json(const struct ts_job *job, const struct ts_iteration *it)
{
    struct validation v;
    validation_of(job, it, &v);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "software", job->software.name);
    cJSON_AddStringToObject(o, "device", job->system.accel.name);
    cJSON_AddStringToObject(o, "generation", ts_generation_names[job->system.accel.generation]);
    cJSON_AddBoolToObject(o, "generation_stated", job->system.accel.generation_given);
    cJSON_AddStringToObject(o, "gemm_curve", job->system.accel.gemm_derived
                                                 ? "derived from peak (unvalidated)"
                                                 : "measured");
    cJSON_AddBoolToObject(o, "validated", v.band != NULL);
    if (v.band) {
        cJSON *b = cJSON_AddObjectToObject(o, "residual_band");
        add_num(b, "min_error", v.band->min_error);
        add_num(b, "max_error", v.band->max_error);
        add_num(b, "rows", v.band->n_rows);
        cJSON_AddStringToObject(b, "source", v.band->rows);
        if (v.band->precision >= 0)
            cJSON_AddStringToObject(b, "precision", ts_precision_names[v.band->precision]);
        if (v.band->max_seq_len > 0) {     /* an open range states no maximum */
            add_num(b, "min_seq_len", v.band->min_seq_len);
            if (v.band->max_seq_len < (1 << 30))
                add_num(b, "max_seq_len", v.band->max_seq_len);
        }
    }
    if (v.mfu) {
        cJSON *m = cJSON_AddObjectToObject(o, "max_published_mfu");
        add_num(m, "mfu", v.mfu->mfu);
        cJSON_AddStringToObject(m, "row", v.mfu->row);
    }
    cJSON_AddBoolToObject(o, "mfu_above_published", v.implausible);
    cJSON_AddStringToObject(o, "calibration", job->software.calibration_note);
    return o;
}

void ts_report_validation_text(const struct ts_job *job, const struct ts_iteration *it, struct ts_buf *o)
{
    struct validation v;
    validation_of(job, it, &v);
    const char *dev = job->system.accel.name;
    ts_buf_printf(o, "\nSoftware %s on %s\n", job->software.name, dev);
    char range[96] = "";
    if (v.band && v.band->max_seq_len > 0 && v.band->max_seq_len < (1 << 30))
        snprintf(range, sizeof range, " at %d-%d tokens", v.band->min_seq_len,
                 v.band->max_seq_len);
    else if (v.band && v.band->max_seq_len > 0)
        snprintf(range, sizeof range, " at %d tokens and more", v.band->min_seq_len);
    if (v.band)
        ts_buf_printf(o, "    validated: %s%s%s%s %+.0f%% .. %+.0f%% over %d published rows (%s)\n",
                      dev, v.band->precision >= 0 ? " in " : "",
                      v.band->precision >= 0 ? ts_precision_names[v.band->precision] : "", range,
                      100 * v.band->min_error, 100 * v.band->max_error, v.band->n_rows, v.band->rows);
    else
        ts_buf_printf(o, "    not validated: no published %s row on %s in %s has been compared; "
                      "treat the prediction as unverified\n", job->software.name, dev,
                      ts_precision_names[job->precision]);
    if (!job->system.accel.generation_given)
        ts_buf_printf(o, "    warning: %s states no \"generation\"; attention kernels run at its "
                      "flash_attention figures\n", dev);
    if (job->system.accel.gemm_derived)
        ts_buf_printf(o, "    warning: %s has no measured GEMM curve; it is derived from its peak "
                      "and its class's achievable fraction (unvalidated: calibrate --gemm-csv)\n",
                      dev);
    if (v.implausible)
        ts_buf_printf(o, "    warning: MFU %.1f%% is above the highest published for %s on %s "
                      "(%.1f%%, %s)\n", 100 * it->mfu, job->software.name, dev, 100 * v.mfu->mfu,
                      v.mfu->row);
    else if (!v.mfu && it->feasible)
        ts_buf_printf(o, "    no published %s MFU of %s on %s to compare this run's %.1f%% with\n",
                      ts_precision_names[job->precision], job->software.name, dev, 100 * it->mfu);
}

cJSON *ts_report_run_json(const struct ts_run_output *r)
{
    const struct ts_job *job = r->job;
    const struct ts_iteration *it = r->it;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "trainsim_version", TS_VERSION);
    if (r->file)
        cJSON_AddStringToObject(o, "job", r->file);
    cJSON_AddStringToObject(o, "model", job->model.name);
    cJSON_AddStringToObject(o, "system", job->system.name);
    cJSON_AddStringToObject(o, "accelerator", job->system.accel.name);
    add_num(o, "gpus", job->gpus);
    add_num(o, "nodes", job->nodes);
    add_num(o, "global_batch", job->global_batch);
    cJSON_AddStringToObject(o, "precision", ts_precision_names[job->precision]);
    cJSON_AddStringToObject(o, "software", job->software.name);
    cJSON_AddStringToObject(o, "method", ts_method_names[it->method]);
    cJSON_AddBoolToObject(o, "feasible", it->feasible);
    if (it->feasible)
        cJSON_AddNullToObject(o, "reason");
    else
        cJSON_AddStringToObject(o, "reason", it->reason);
    add_num(o, "iteration_time_s", it->iteration_s);
    add_num(o, "tokens_per_s", it->tokens_per_s);
    add_num(o, "model_flops_per_iteration", it->model_flops);
    add_num(o, "hardware_flops_per_iteration", it->hardware_flops);
    add_num(o, "model_tflops_per_gpu", it->model_tflops_per_gpu);
    add_num(o, "hardware_tflops_per_gpu", it->hardware_tflops_per_gpu);
    add_num(o, "mfu", it->mfu);
    add_num(o, "hfu", it->hfu);
    add_num(o, "bubble_fraction", it->bubble_fraction);
    add_num(o, "memory_per_gpu_bytes", it->memory.total_bytes);
    add_num(o, "memory_capacity_bytes", it->memory_capacity_bytes);
    add_num(o, "parameters", it->params);
    if (ts_model_is_moe(&job->model)) {
        const struct ts_moe *e = &job->model.moe;
        cJSON *x = cJSON_CreateObject();
        add_num(x, "active_parameters", it->active_params);
        add_num(x, "experts", e->experts);
        add_num(x, "top_k", e->top_k);
        add_num(x, "experts_per_gpu", (double)e->experts / job->parallel.ep);
        add_num(x, "load_imbalance", e->load_imbalance);
        cJSON_AddBoolToObject(x, "load_imbalance_default", !e->load_imbalance_given);
        add_num(x, "dropped_fraction", it->moe_dropped_fraction);
        cJSON_AddStringToObject(x, "dispatcher", ts_moe_dispatcher_names[job->parallel.moe_dispatcher]);
        cJSON_AddBoolToObject(x, "a2a_overlap", job->parallel.moe_a2a_overlap);
        cJSON_AddItemToObject(o, "moe", x);
    }
    if (job->has_training) {
        add_num(o, "tokens", job->training.tokens);
        add_num(o, "iterations", it->iterations);
        add_num(o, "time_to_train_s", it->time_to_train_s);
    }
    if (r->run)
        run_json(o, r->run);
    if (r->cost)
        cost_json(o, job, r->cost);
    if (job->has_reliability)
        cJSON_AddItemToObject(o, "assumptions", assumptions_json(job, r->run));
    /* A job that does not fit never runs: its run and bill keys are null, not numbers. */
    bool wants_run = job->has_reliability && (job->has_training || job->reliability.section_given);
    if (!r->run && wants_run && !it->feasible) {
        static const char *const keys[] = {"expected_time_to_train_s", "p90_time_to_train_s",
                                           "goodput", "failures_expected"};
        for (size_t i = 0; i < TS_ARRAY_LEN(keys); i++)
            cJSON_AddNullToObject(o, keys[i]);
    }
    if (!r->cost && job->has_cost && !it->feasible) {
        cJSON_AddNullToObject(o, "cost_total");
        cJSON_AddNullToObject(o, "cost_breakdown");
    }
    cJSON_AddItemToObject(o, "validation", validation_json(job, it));
    if (r->dist)
        ts_report_distribution_json(r->dist, o);
    cJSON_AddItemToObject(o, "layout", layout_json(job, (int)(job->global_batch /
                                                               (job->parallel.dp * job->parallel.microbatch))));

    cJSON *mem = cJSON_CreateObject();
    add_num(mem, "stage", it->memory_stage);
    add_num(mem, "weights_bytes", it->memory.weights_bytes);
    add_num(mem, "gradients_bytes", it->memory.grads_bytes);
    add_num(mem, "optimizer_bytes", it->memory.optimizer_bytes);
    add_num(mem, "activations_bytes", it->memory.activation_bytes);
    add_num(mem, "recomputed_layer_bytes", it->memory.recompute_bytes);
    add_num(mem, "output_bytes", it->memory.output_bytes);
    add_num(mem, "buffers_bytes", it->memory.buffer_bytes);
    add_num(mem, "reserved_bytes", it->memory.reserved_bytes);
    add_num(mem, "microbatches_in_flight", it->memory.inflight);
    add_num(mem, "offloaded_bytes", it->memory.offloaded_bytes);
    cJSON_AddItemToObject(o, "memory", mem);

    const struct ts_step_result *s = &it->step;
    cJSON *t = cJSON_CreateObject();
    add_num(t, "critical_stage", s->critical_stage);
    add_num(t, "compute_s", s->compute_s);
    add_num(t, "exposed_tp_cp_s", s->exposed_tp_s);
    add_num(t, "exposed_pp_s", s->exposed_pp_s);
    add_num(t, "exposed_dp_s", s->exposed_dp_s);
    add_num(t, "exposed_offload_s", s->exposed_offload_s);
    add_num(t, "sync_wait_s", it->sync_wait_s);
    add_num(t, "optimizer_s", s->optimizer_s);
    add_num(t, "tail_s", s->tail_s);
    add_num(t, "pipeline_s", s->pipeline_s);
    add_num(t, "events", (double)s->events);
    cJSON_AddItemToObject(o, "time_breakdown", t);

    cJSON *ly = cJSON_CreateObject();
    add_num(ly, "forward_s", it->layer_fwd_s);
    add_num(ly, "backward_s", it->layer_bwd_s);
    add_num(ly, "recompute_s", it->layer_recompute_s);
    cJSON_AddItemToObject(o, "layer", ly);

    if (r->stages && r->stages->busy_s) {
        cJSON *arr = cJSON_CreateArray();
        for (int k = 0; k < job->parallel.pp; k++) {
            cJSON *st = cJSON_CreateObject();
            add_num(st, "stage", k);
            add_num(st, "layers", ts_job_stage_layers(job, k));
            add_num(st, "busy_s", r->stages->busy_s[k]);
            if (r->stages->idle_s)
                add_num(st, "idle_s", r->stages->idle_s[k]);
            if (r->stages->end_s)
                add_num(st, "end_s", r->stages->end_s[k]);
            if (r->stage_memory_bytes)
                add_num(st, "memory_bytes", r->stage_memory_bytes[k]);
            cJSON_AddItemToArray(arr, st);
        }
        cJSON_AddItemToObject(o, "stages", arr);
    }
    return o;
}

void ts_report_json_print(const cJSON *obj, struct ts_buf *out)
{
    char *text = cJSON_Print(obj);
    TS_ASSERT(text != NULL, "out of memory printing JSON");
    /* cJSON indents with tabs; two spaces read better and diff the same. */
    for (const char *p = text; *p; p++) {
        if (*p == '\t')
            ts_buf_append(out, "  ", 2);
        else
            ts_buf_append(out, p, 1);
    }
    ts_buf_append(out, "\n", 1);
    free(text);
}

/* ---------------------------------------------------------------- CSV */

static void csv_field(struct ts_buf *out, const char *s)
{
    ts_csv_field(out, s);
}

static void csv_walk(const cJSON *obj, const char *prefix, struct ts_buf *hdr, struct ts_buf *row,
                     bool *first)
{
    for (const cJSON *c = obj->child; c; c = c->next) {
        char key[256];
        if (prefix[0])
            snprintf(key, sizeof key, "%s.%s", prefix, c->string);
        else
            snprintf(key, sizeof key, "%s", c->string);
        if (cJSON_IsObject(c)) {
            csv_walk(c, key, hdr, row, first);
            continue;
        }
        if (cJSON_IsArray(c))
            continue;
        if (!*first) {
            ts_buf_append(hdr, ",", 1);
            ts_buf_append(row, ",", 1);
        }
        *first = false;
        csv_field(hdr, key);
        char val[64];
        if (cJSON_IsNumber(c)) {
            ts_json_format_double(c->valuedouble, val, sizeof val);
            csv_field(row, val);
        } else if (cJSON_IsString(c))
            csv_field(row, c->valuestring);
        else if (cJSON_IsBool(c))
            csv_field(row, cJSON_IsTrue(c) ? "true" : "false");
    }
}

void ts_report_json_to_csv(const cJSON *obj, struct ts_buf *out)
{
    struct ts_buf hdr, row;
    ts_buf_init(&hdr);
    ts_buf_init(&row);
    bool first = true;
    csv_walk(obj, "", &hdr, &row, &first);
    ts_buf_append(out, hdr.data, hdr.len);
    ts_buf_append(out, "\n", 1);
    ts_buf_append(out, row.data, row.len);
    ts_buf_append(out, "\n", 1);
    ts_buf_free(&hdr);
    ts_buf_free(&row);
}

void ts_report_run_csv(const struct ts_run_output *r, struct ts_buf *out)
{
    cJSON *o = ts_report_run_json(r);
    ts_report_json_to_csv(o, out);
    cJSON_Delete(o);
}

/* ---------------------------------------------------------------- table */

static const char *fmt_q(double v, enum ts_dim dim, char *buf, size_t n)
{
    return ts_quantity_format(v, dim, buf, n);
}

static void row_s(struct ts_buf *o, const char *label, double seconds, double total)
{
    char a[48];
    ts_buf_printf(o, "    %-30s %12s", label, fmt_q(seconds, TS_DIM_SECONDS, a, sizeof a));
    if (total > 0)
        ts_buf_printf(o, "  %5.1f%%", 100.0 * seconds / total);
    ts_buf_printf(o, "\n");
}

const char *ts_report_format_usd(double v, char *buf, size_t n)
{
    if (!isfinite(v)) {
        snprintf(buf, n, "not priced");
        return buf;
    }
    char digits[64];
    snprintf(digits, sizeof digits, "%.0f", fabs(v));
    size_t len = strlen(digits), j = 0;
    char tmp[96];
    if (v < 0)
        tmp[j++] = '-';
    tmp[j++] = '$';
    for (size_t i = 0; i < len; i++) {
        tmp[j++] = digits[i];
        if ((len - i - 1) % 3 == 0 && i + 1 < len)
            tmp[j++] = ',';
    }
    tmp[j] = '\0';
    snprintf(buf, n, "%s", tmp);
    return buf;
}

static void run_table(struct ts_buf *o, const struct ts_job *job, const struct ts_run_result *run)
{
    char a[48], b[48], c[48], d[48];
    if (job->reliability.none && !job->reliability.spot.enabled) {
        ts_buf_printf(o, "\nWhole run: reliability \"none\" (failure-free what-if)\n");
        ts_buf_printf(o, "    %-30s %12s   (%.1f days; goodput 100%%, no failures)\n",
                      "expected time to train", fmt_q(run->mean_s, TS_DIM_SECONDS, a, sizeof a),
                      run->mean_s / 86400.0);
        return;
    }
    ts_buf_printf(o, "\nWhole run with failures (Monte Carlo, %d replications)\n", run->replications);
    ts_buf_printf(o, "    %-30s %12s   (%.1f days; p50 %s, p90 %s, p99 %s)\n", "expected time to train",
                  fmt_q(run->mean_s, TS_DIM_SECONDS, a, sizeof a), run->mean_s / 86400.0,
                  fmt_q(run->p50_s, TS_DIM_SECONDS, b, sizeof b), fmt_q(run->p90_s, TS_DIM_SECONDS, c, sizeof c),
                  fmt_q(run->p99_s, TS_DIM_SECONDS, d, sizeof d));
    ts_buf_printf(o, "    %-30s %11.1f%%   (Daly's closed form: %s)\n", "goodput", 100 * run->goodput,
                  fmt_q(run->daly_mean_s, TS_DIM_SECONDS, a, sizeof a));
    if (isfinite(run->params.job_mtbf_s))
        ts_buf_printf(o, "    %-30s %12.1f   (job mean time to interrupt %s)\n", "failures expected",
                      run->failures_mean, fmt_q(run->params.job_mtbf_s, TS_DIM_SECONDS, a, sizeof a));
    else
        ts_buf_printf(o, "    %-30s %12.1f   (nothing interrupts the job: no failure or preemption "
                      "process)\n", "failures expected", run->failures_mean);
    if (run->preemptions_mean > 0)
        ts_buf_printf(o, "    %-30s %12.1f\n", "spot preemptions expected", run->preemptions_mean);
    ts_buf_printf(o, "    %-30s %12s   (stall %s per checkpoint; restart %s)\n", "checkpoint every",
                  fmt_q(run->params.checkpoint_interval_s, TS_DIM_SECONDS, a, sizeof a),
                  fmt_q(run->params.checkpoint_write_s, TS_DIM_SECONDS, b, sizeof b),
                  fmt_q(run->params.restart_s, TS_DIM_SECONDS, c, sizeof c));
    ts_buf_printf(o, "    GPU-hours lost: rework %.0f, restarts %.0f, checkpoint stalls %.0f, waiting %.0f\n",
                  run->rework_gpu_h, run->restart_gpu_h, run->checkpoint_gpu_h, run->repair_wait_gpu_h);
    if (run->slow_node_gpu_h > 0)
        ts_buf_printf(o, "    %-30s %12.0f   GPU-hours (%.1f fail-slow episodes)\n", "slow-node time",
                      run->slow_node_gpu_h, run->slow_episodes_mean);
    if (run->hangs_mean + run->planned_mean + run->rollbacks_mean + run->evictions_mean +
            run->correlated_mean > 0)
        ts_buf_printf(o, "    incidents expected: hangs %.1f, planned %.1f, rollbacks %.1f, "
                      "lemon evictions %.1f, correlated events %.1f\n", run->hangs_mean,
                      run->planned_mean, run->rollbacks_mean, run->evictions_mean,
                      run->correlated_mean);
}

static void cost_table(struct ts_buf *o, const struct ts_job *job, const struct ts_cost_result *c)
{
    char a[64], b[64];
    ts_buf_printf(o, "\nThe bill (%s pricing; prices: %s)\n", ts_pricing_names[job->cost.pricing],
                  job->cost.price_source[0] ? job->cost.price_source : "given in the job");
    for (int i = 0; i < TS_COST_COUNT; i++) {
        if (c->breakdown_usd[i] == 0)
            continue;
        ts_buf_printf(o, "    %-30s %16s  %5.1f%%\n", ts_cost_category_names[i],
                      ts_report_format_usd(c->breakdown_usd[i], a, sizeof a),
                      c->total_usd > 0 ? 100 * c->breakdown_usd[i] / c->total_usd : 0.0);
    }
    ts_buf_printf(o, "    %-30s %16s  (p90 %s; $%.2f per million tokens)\n", "total",
                  ts_report_format_usd(c->total_usd, a, sizeof a), ts_report_format_usd(c->p90_usd, b, sizeof b),
                  c->per_million_tokens_usd);
    if (c->budget_set)
        ts_buf_printf(o, "    budget %s: %s\n", ts_report_format_usd(job->cost.budget, a, sizeof a),
                      c->over_budget_expected ? "EXCEEDED by the expected cost"
                      : c->over_budget_p90    ? "exceeded at p90 (expected cost fits)"
                                              : "fits (expected and p90)");
    ts_buf_printf(o, "  where the %.0f GPU-hours billed went:\n", c->gpu_hours_billed);
    for (int i = 0; i < TS_GPUH_COUNT; i++) {
        if (c->gpu_hours[i] == 0)
            continue;
        ts_buf_printf(o, "    %-30s %12.0f  %5.1f%%  %s\n", ts_gpuh_labels[i], c->gpu_hours[i],
                      c->gpu_hours_billed > 0 ? 100 * c->gpu_hours[i] / c->gpu_hours_billed : 0.0,
                      ts_report_format_usd(c->waste_usd[i], a, sizeof a));
    }
    ts_buf_printf(o, "  top waste: %s, %.1f%% of GPU-hours (%s)\n", ts_gpuh_labels[c->top_waste],
                  c->gpu_hours_billed > 0 ? 100 * c->gpu_hours[c->top_waste] / c->gpu_hours_billed : 0.0,
                  ts_report_format_usd(c->waste_usd[c->top_waste], a, sizeof a));
}

void ts_report_run_table(const struct ts_run_output *r, struct ts_buf *o)
{
    const struct ts_job *job = r->job;
    const struct ts_iteration *it = r->it;
    const struct ts_parallel *p = &job->parallel;
    char a[48], b[48];
    int micro = (int)(job->global_batch / (p->dp * p->microbatch));

    ts_buf_printf(o, "trainsim %s%s%s\n", TS_VERSION, r->file ? "  " : "", r->file ? r->file : "");
    ts_buf_printf(o, "  model    %s, %.1f B parameters, %d layers, hidden %d, seq %d\n",
                  job->model.name, it->params / 1e9, job->model.layers, job->model.hidden,
                  job->model.seq_len);
    const char *gs = job->gpus == 1 ? "" : "s", *ns = job->nodes == 1 ? "" : "s";
    if (job->gpus == job->nodes * job->system.gpus_per_node)
        ts_buf_printf(o, "  system   %s: %d GPU%s (%d node%s x %d %s), %s\n", job->system.name,
                      job->gpus, gs, job->nodes, ns, job->system.gpus_per_node,
                      job->system.accel.name, ts_precision_names[job->precision]);
    else
        ts_buf_printf(o, "  system   %s: %d GPU%s of %d node%s of %d %s, %s\n", job->system.name,
                      job->gpus, gs, job->nodes, ns, job->system.gpus_per_node,
                      job->system.accel.name, ts_precision_names[job->precision]);
    ts_buf_printf(o, "  layout   tp %d, pp %d, dp %d, cp %d; microbatch %d x %d per pipeline; %s",
                  p->tp, p->pp, p->dp, p->cp, p->microbatch, micro, ts_schedule_names[p->schedule]);
    if (p->schedule == TS_SCHED_INTERLEAVED)
        ts_buf_printf(o, " (v %d)", p->virtual_stages);
    char rec[256];
    ts_recompute_describe(p, rec, sizeof rec);
    ts_buf_printf(o, "; recompute %s%s; ZeRO %d; %s attention\n", rec,
                  p->sequence_parallel ? ", sequence parallel" : "", p->zero,
                  ts_attention_names[ts_attention_resolve(p, job->system.accel.generation)]);

    ts_buf_printf(o, "\nIteration (%s)\n",
                  it->method == TS_METHOD_DISCRETE_EVENT ? "discrete-event simulation"
                                                         : "closed-form estimate");
    ts_buf_printf(o, "    %-30s %12s\n", "iteration time", fmt_q(it->iteration_s, TS_DIM_SECONDS, a, sizeof a));
    ts_buf_printf(o, "    %-30s %12.4g\n", "tokens/s", it->tokens_per_s);
    ts_buf_printf(o, "    %-30s %12.1f   (hardware %.1f)\n", "model TFLOP/s per GPU",
                  it->model_tflops_per_gpu, it->hardware_tflops_per_gpu);
    ts_buf_printf(o, "    %-30s %11.1f%%   (HFU %.1f%%)\n", "MFU", 100 * it->mfu, 100 * it->hfu);
    ts_buf_printf(o, "    %-30s %11.1f%%\n", "pipeline bubble", 100 * it->bubble_fraction);
    if (it->method == TS_METHOD_DISCRETE_EVENT) {
        const struct ts_step_result *s = &it->step;
        double T = it->iteration_s;
        ts_buf_printf(o, "  where the critical stage (%d) spends the iteration:\n", s->critical_stage);
        row_s(o, "compute", s->compute_s, T);
        row_s(o, "exposed TP/CP communication", s->exposed_tp_s, T);
        row_s(o, "waiting on pipeline transfers", s->exposed_pp_s, T);
        double idle = T - s->compute_s - s->exposed_tp_s - s->exposed_pp_s - s->exposed_dp_s -
                      s->exposed_offload_s - s->optimizer_s - s->tail_s - it->sync_wait_s;
        row_s(o, "pipeline bubble", idle > 1e-9 * T ? idle : 0.0, T);   // rounding is no bubble
        row_s(o, "exposed DP communication", s->exposed_dp_s, T);
        if (s->exposed_offload_s > 0)
            row_s(o, "waiting for activation offload", s->exposed_offload_s, T);
        row_s(o, "optimizer step", s->optimizer_s, T);
        row_s(o, "end-of-step communication", s->tail_s, T);
        row_s(o, "waiting for the slowest GPU", it->sync_wait_s, T);
    }

    const struct ts_memory *m = &it->memory;
    ts_buf_printf(o, "\nMemory per GPU (stage %d, the fullest)\n", it->memory_stage);
    struct { const char *label; double v; } rows[] = {
        {"weights", m->weights_bytes}, {"gradients", m->grads_bytes},
        {"optimizer state", m->optimizer_bytes},
        {"activations", m->activation_bytes}, {"recomputed layer", m->recompute_bytes},
        {"logits and loss", m->output_bytes},
        {"gathered weights (ZeRO-3)", m->buffer_bytes}, {"reserved", m->reserved_bytes},
    };
    for (size_t i = 0; i < TS_ARRAY_LEN(rows); i++)
        if (rows[i].v > 0)
            ts_buf_printf(o, "    %-30s %12s\n", rows[i].label, fmt_q(rows[i].v, TS_DIM_BYTES, a, sizeof a));
    if (m->offloaded_bytes > 0)
        ts_buf_printf(o, "    %-30s %12s   (host memory, %d layers)\n", "offloaded activations",
                      fmt_q(m->offloaded_bytes, TS_DIM_BYTES, a, sizeof a),
                      job->parallel.offload_layers);
    ts_buf_printf(o, "    %-30s %12s of %s  %s\n", "total", fmt_q(m->total_bytes, TS_DIM_BYTES, a, sizeof a),
                  fmt_q(it->memory_capacity_bytes, TS_DIM_BYTES, b, sizeof b),
                  it->feasible ? "(fits)" : "(DOES NOT FIT)");
    if (!it->feasible)
        ts_buf_printf(o, "    infeasible: %s\n", it->reason);

    if (job->has_training) {
        ts_buf_printf(o, "\nTraining on %.4g tokens (no failures)\n", job->training.tokens);
        ts_buf_printf(o, "    %-30s %12.0f\n", "iterations", it->iterations);
        ts_buf_printf(o, "    %-30s %12s   (%.1f days)\n", "time to train",
                      fmt_q(it->time_to_train_s, TS_DIM_SECONDS, a, sizeof a),
                      it->time_to_train_s / 86400.0);
        ts_buf_printf(o, "    %-30s %12.0f\n", "GPU-hours", it->time_to_train_s * job->gpus / 3600.0);
    }
    ts_report_validation_text(job, it, o);
    if (r->run) {
        run_table(o, job, r->run);
        if (r->dist)
            ts_report_distribution_text(r->dist, o);
        assumptions_table(o, job, r->run);
    }
    if (r->cost)
        cost_table(o, job, r->cost);
    if (!it->feasible && ((job->has_reliability && (job->has_training ||
                                                    job->reliability.section_given)) ||
                          job->has_cost))
        ts_buf_printf(o, "\nWhole run%s: not simulated (the job does not fit in memory)\n",
                      job->has_cost ? " and bill" : "");
}

/* ---------------------------------------------------------------- finish-time distribution */

void ts_report_distribution_json(const struct ts_run_distribution *d, cJSON *o)
{
    cJSON *tq = cJSON_AddObjectToObject(o, "time_quantiles");
    for (int k = 0; k < TS_RUN_QUANTILES; k++)
        add_num(tq, ts_run_quantile_names[k], d->time_s[k]);
    add_num(tq, "mean", d->time_mean_s);
    if (d->has_cost) {
        cJSON *cq = cJSON_AddObjectToObject(o, "cost_quantiles");
        for (int k = 0; k < TS_RUN_QUANTILES; k++)
            add_num(cq, ts_run_quantile_names[k], d->cost_usd[k]);
        add_num(cq, "mean", d->cost_mean_usd);
    }
    cJSON *mu = cJSON_AddObjectToObject(o, "model_uncertainty");
    cJSON_AddBoolToObject(mu, "applied", d->band.on);
    cJSON_AddBoolToObject(mu, "validated", d->band.validated);
    add_num(mu, "min_error", d->band.on ? d->band.min_error : 0.0);
    add_num(mu, "max_error", d->band.on ? d->band.max_error : 0.0);
    cJSON_AddStringToObject(mu, "source", d->band.on ? d->band.source
                                                     : "off (--no-model-uncertainty)");
    cJSON_AddStringToObject(mu, "draw", "replication i takes its simulated wall time x (1 + e_i), "
                            "e_i uniform on the band, stratified; bills at that time");
    add_num(mu, "replications", d->n);
}

void ts_report_distribution_text(const struct ts_run_distribution *d, struct ts_buf *o)
{
    char a[48];
    if (d->band.on)
        ts_buf_printf(o, "\nFinish time and bill with the model's own error (%+.0f%% .. %+.0f%%, %s)\n",
                      100 * d->band.min_error, 100 * d->band.max_error,
                      d->band.validated ? "validated band" : "default band: not validated");
    else
        ts_buf_printf(o, "\nFinish time and bill (model error off: failures only)\n");
    ts_buf_printf(o, "    %-8s", "");
    for (int k = 1; k < TS_RUN_QUANTILES; k++)
        ts_buf_printf(o, " %10s", ts_run_quantile_names[k]);
    ts_buf_printf(o, "\n    %-8s", "time");
    for (int k = 1; k < TS_RUN_QUANTILES; k++)
        ts_buf_printf(o, " %10s", ts_report_format_human(d->time_s[k], "s", a, sizeof a));
    if (d->has_cost) {
        ts_buf_printf(o, "\n    %-8s", "cost");
        for (int k = 1; k < TS_RUN_QUANTILES; k++)
            ts_buf_printf(o, " %10s", ts_report_format_human(d->cost_usd[k], "$", a, sizeof a));
    }
    ts_buf_printf(o, "\n");
}

/* ---------------------------------------------------------------- numbers for people */

const char *ts_report_format_human(double v, const char *unit, char *buf, size_t n)
{
    if (!isfinite(v)) {
        snprintf(buf, n, "-");
        return buf;
    }
    if (strcmp(unit, "s") == 0)
        return ts_quantity_format(v, TS_DIM_SECONDS, buf, n);
    static const char *const prefix[] = {"", "k", "M", "G", "T", "P"};
    int p = 0;
    double x = fabs(v);
    while (x >= 999.5 && p < 5) {
        x /= 1000;
        p++;
    }
    /* Three significant digits: 2.90 M, 24.8 k, 153 */
    int dec = x >= 99.95 ? 0 : x >= 9.995 ? 1 : 2;
    if (p == 0 && x == floor(x))
        dec = 0;
    const char *sign = v < 0 ? "-" : "";
    if (strcmp(unit, "$") == 0)
        snprintf(buf, n, "%s$%.*f%s%s", sign, dec, x, p ? " " : "", prefix[p]);
    else
        snprintf(buf, n, "%s%.*f %s%s", sign, dec, x, prefix[p], unit);
    return buf;
}

/* ---------------------------------------------------------------- Chrome trace */

static const char *const track_names[] = {"compute", "send", "data-parallel"};

int ts_report_trace_write(const char *path, const struct ts_trace *trace, const struct ts_job *job,
                          struct ts_err *err)
{
    struct ts_buf b;
    ts_buf_init(&b);
    ts_buf_printf(&b, "{\"displayTimeUnit\": \"ms\", \"otherData\": {\"model\": \"%s\", \"system\": "
                  "\"%s\"},\n\"traceEvents\": [\n", job->model.name, job->system.name);
    bool first = true;
    for (int k = 0; k < job->parallel.pp; k++) {
        ts_buf_printf(&b, "%s{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": %d, \"args\": "
                      "{\"name\": \"stage %d\"}}", first ? "" : ",\n", k, k);
        first = false;
        for (int t = 0; t < 3; t++)
            ts_buf_printf(&b, ",\n{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": %d, \"tid\": %d, "
                          "\"args\": {\"name\": \"%s\"}}", k, t, track_names[t]);
    }
    for (size_t i = 0; i < trace->len; i++) {
        const struct ts_trace_span *s = &trace->spans[i];
        char name[64];
        if (s->track == 0)
            snprintf(name, sizeof name, "%s mb%d c%d", s->kind == TS_TASK_F ? "F" : "B", s->micro, s->chunk);
        else if (s->track == 1)
            snprintf(name, sizeof name, "%s mb%d c%d", s->kind == TS_TASK_F ? "activation" : "gradient",
                     s->micro, s->chunk);
        else
            snprintf(name, sizeof name, "%s", s->kind == 0 ? "grad bucket" : s->kind == 1 ? "weight gather"
                                                                                          : "grad scatter");
        ts_buf_printf(&b, ",\n{\"name\": \"%s\", \"ph\": \"X\", \"pid\": %d, \"tid\": %d, "
                      "\"ts\": %.3f, \"dur\": %.3f}", name, s->stage, s->track, s->start_s * 1e6,
                      (s->end_s - s->start_s) * 1e6);
    }
    ts_buf_printf(&b, "\n]}\n");
    int rc = ts_file_write_atomic(path, b.data, b.len, err);
    ts_buf_free(&b);
    return rc;
}
