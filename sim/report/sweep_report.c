/*
 * Sweep reports (JSON, table, CSV) and the Chrome trace of a run timeline.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"

static void num(cJSON *o, const char *key, double v)
{
    cJSON_AddItemToObject(o, key, isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull());
}

/* Whether the answer's deadline holds with the model's own error too: the search checks a
 * deadline with a probability on the failures' quantile alone (search.c: with the default band
 * the error would decide it for every unvalidated regime), so the answer says where the
 * quantile of failures and model error combined falls. False when there is nothing to say
 * (no probabilistic deadline, no Monte Carlo of the answer, or the band is off). */
static bool deadline_with_error(const struct ts_sweep *sw, const struct ts_sweep_result *r,
                                double *t_s)
{
    const struct ts_run_distribution *d = &r->best_dist;
    if (!(sw->deadline_s > 0 && sw->probability > 0) || !r->best_job.has_reliability || d->n <= 0 ||
        !d->band.on || !(d->q > 0))
        return false;
    *t_s = d->time_at_q_s;
    return true;
}

/* Why an outcome has no expected time (the search stores +infinity): its system has no price
 * for the pricing, or the run model refused it because it cannot finish. */
static void unpriced_text(const struct ts_sweep *sw, const struct ts_outcome *o, char *buf,
                          size_t n)
{
    if (!sw->offered[o->layout.system][o->pricing])
        snprintf(buf, n, "%s has no %s price", sw->systems[o->layout.system].name,
                 ts_pricing_names[o->pricing]);
    else
        snprintf(buf, n, "it cannot finish in any useful time: failures interrupt it faster than "
                 "it checkpoints and restarts (lower the failure rates, the restart time or the "
                 "checkpoint write time)");
}

static bool decision_tie(const struct ts_sweep *sw, const struct ts_sweep_result *r, double *margin,
                         double *band, bool *same_regime);

static cJSON *outcome_json(const struct ts_sweep *sw, const struct ts_outcome *o)
{
    const struct ts_layout *l = &o->layout;
    const struct ts_system *sys = &sw->systems[l->system];
    int gpus = l->nodes * sys->gpus_per_node;
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "system", sys->name);
    num(j, "nodes", l->nodes);
    num(j, "gpus", gpus);
    cJSON_AddStringToObject(j, "pricing", ts_pricing_names[o->pricing]);
    num(j, "global_batch", l->global_batch);
    cJSON *p = cJSON_CreateObject();
    num(p, "tp", l->tp);
    num(p, "pp", l->pp);
    int first, last;
    if (ts_sweep_stage_split(sw->model.layers, l->pp, &first, &last)) {
        num(p, "first_stage_layers", first);
        num(p, "last_stage_layers", last);
    }
    num(p, "dp", gpus / (l->tp * l->cp * l->pp));
    num(p, "cp", l->cp);
    if (ts_model_is_moe(&sw->model)) {
        num(p, "ep", l->ep);
        num(p, "etp", l->etp);
        num(p, "edp", gpus / (l->ep * l->etp * l->pp));
    }
    num(p, "microbatch", l->microbatch);
    cJSON_AddStringToObject(p, "schedule", ts_schedule_names[l->schedule]);
    num(p, "virtual_stages", l->virtual_stages);
    cJSON_AddBoolToObject(p, "sequence_parallel", l->sp);
    cJSON_AddStringToObject(p, "recompute", ts_recompute_names[l->recompute]);
    num(p, "zero", l->zero);
    cJSON_AddBoolToObject(p, "tp_comm_overlap", l->tp_overlap);
    cJSON_AddItemToObject(j, "parallel", p);
    num(j, "iteration_time_s", o->iteration_s);
    num(j, "tokens_per_s", o->tokens_per_s);
    num(j, "mfu", o->mfu);
    num(j, "memory_per_gpu_bytes", o->memory_bytes);
    /* As in a run: time_to_train_s is failure-free. The search ranks on the analytic
     * expected time and cost with failures (Daly), estimated_time_to_train_s and cost_total;
     * the Monte Carlo figures follow for the finalists. */
    double iterations = ceil(sw->tokens / ((double)l->global_batch * sw->model.seq_len));
    num(j, "time_to_train_s", iterations * o->iteration_s);
    num(j, "estimated_time_to_train_s", o->time_s);
    if (sw->has_cost)
        num(j, "cost_total", o->cost_usd);
    if (o->commit_nodes > 0)    /* the cheapest committed base of a searched buy plan */
        num(j, "commitment_nodes", o->commit_nodes);
    if (!isfinite(o->time_s)) {     /* the nulls above, explained */
        char why[256];
        unpriced_text(sw, o, why, sizeof why);
        cJSON_AddStringToObject(j, "not_estimated_because", why);
    }
    if (o->monte_carlo) {
        num(j, "expected_time_to_train_s", o->mc_time_mean_s);
        num(j, "p90_time_to_train_s", o->mc_time_p90_s);
        num(j, "goodput", o->goodput);
        if (sw->has_cost) {
            num(j, "expected_cost", o->mc_cost_mean_usd);
            num(j, "p90_cost", o->mc_cost_p90_usd);
        }
    }
    cJSON_AddStringToObject(j, "software", sw->software[l->software].name);
    return j;
}

/* A row's layouts: `equivalent_layouts` (how many) and `layouts` (each as a row). */
static void add_layouts(cJSON *row, const struct ts_sweep *sw, const struct ts_outcome *v, int a, int b)
{
    num(row, "equivalent_layouts", b - a);
    cJSON *arr = cJSON_CreateArray();
    for (int e = a; e < b; e++)
        cJSON_AddItemToArray(arr, outcome_json(sw, &v[e]));
    cJSON_AddItemToObject(row, "layouts", arr);
}

static void constraint_text(const struct ts_sweep *sw, char *buf, size_t n)
{
    char a[48];
    if (sw->min_tokens_per_s > 0)
        snprintf(buf, n, "at least %.4g tokens/s", sw->min_tokens_per_s);
    else if (sw->deadline_s == 0)
        snprintf(buf, n, "none");
    else if (sw->probability > 0)
        snprintf(buf, n, "done within %s with probability %.2f",
                 ts_quantity_format(sw->deadline_s, TS_DIM_SECONDS, a, sizeof a), sw->probability);
    else
        snprintf(buf, n, "done within %s (expected)",
                 ts_quantity_format(sw->deadline_s, TS_DIM_SECONDS, a, sizeof a));
}

static void miss_text(const struct ts_sweep *sw, const struct ts_sweep_result *r, char *buf, size_t n)
{
    char c[128], a[48];
    constraint_text(sw, c, sizeof c);
    if (!r->has_closest) {
        snprintf(buf, n, "no configuration meets the constraint (%s); none even fits in memory", c);
        return;
    }
    const struct ts_outcome *o = &r->closest;
    if (sw->min_tokens_per_s == 0 && !isfinite(o->time_s)) {
        char why[256];
        unpriced_text(sw, o, why, sizeof why);
        snprintf(buf, n, "no configuration meets the constraint (%s); none has an expected time: "
                 "for the closest (%d x %s nodes), %s", c, o->layout.nodes,
                 sw->systems[o->layout.system].name, why);
        return;
    }
    if (sw->min_tokens_per_s > 0)
        snprintf(buf, n, "no configuration meets the constraint (%s); the closest reaches %.4g tokens/s "
                 "(%d x %s nodes)", c, o->tokens_per_s, o->layout.nodes, sw->systems[o->layout.system].name);
    else
        snprintf(buf, n, "no configuration meets the constraint (%s); the closest finishes in %s "
                 "(%d x %s nodes)", c, ts_quantity_format(o->time_s, TS_DIM_SECONDS, a, sizeof a),
                 o->layout.nodes, sw->systems[o->layout.system].name);
}

cJSON *ts_report_sweep_json(const struct ts_sweep *sw, const struct ts_sweep_result *r)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "trainsim_version", TS_VERSION);
    cJSON_AddStringToObject(o, "sweep", sw->name);
    cJSON_AddStringToObject(o, "file", sw->file);
    cJSON_AddStringToObject(o, "model", sw->model.name);
    num(o, "tokens", sw->tokens);
    cJSON_AddStringToObject(o, "objective", ts_objective_names[sw->objective]);
    char c[160];
    constraint_text(sw, c, sizeof c);
    cJSON_AddStringToObject(o, "constraint", c);
    cJSON_AddBoolToObject(o, "found", r->found);
    if (r->found) {
        bool dist = r->best_job.has_reliability && r->best_dist.n > 0;
        struct ts_run_output ro = {NULL, &r->best_job, &r->best_it, NULL, NULL,
                                   r->best_job.has_reliability ? &r->best_run : NULL,
                                   r->best_job.has_cost ? &r->best_cost : NULL,
                                   dist ? &r->best_dist : NULL};
        cJSON *best = ts_report_run_json(&ro);
        if (r->top[0].commit_nodes > 0)     /* its bill's committed base (a searched buy plan) */
            num(best, "commitment_nodes", r->top[0].commit_nodes);
        cJSON_AddItemToObject(o, "best", best);
        /* The answer's distribution at the top level too, and the decision's margin. */
        if (dist)
            ts_report_distribution_json(&r->best_dist, o);
        if (r->n_top > 1) {
            double margin, band;
            bool same;
            bool tie = decision_tie(sw, r, &margin, &band, &same);
            cJSON *dj = cJSON_AddObjectToObject(o, "decision");
            num(dj, "runner_up_margin", margin);
            num(dj, "model_error", band);
            cJSON_AddBoolToObject(dj, "tie", tie);
            cJSON_AddBoolToObject(dj, "same_regime", same);
            cJSON_AddStringToObject(dj, "ranked_by", sw->probability > 0
                                    ? "the objective's quantile at the deadline probability, "
                                      "failures and model error combined"
                                    : "the objective's Monte Carlo mean");
        }
        double tq;
        if (deadline_with_error(sw, r, &tq)) {
            cJSON *dc = cJSON_AddObjectToObject(o, "deadline_check");
            num(dc, "deadline_s", sw->deadline_s);
            num(dc, "probability", sw->probability);
            cJSON_AddStringToObject(dc, "checked_on", "failures alone");
            num(dc, "with_model_error_s", tq);
            cJSON_AddBoolToObject(dc, "holds_with_model_error", tq <= sw->deadline_s);
        }
        cJSON_AddNullToObject(o, "message");
        /* What the answer rests on: the best's assumptions, also at the top level. */
        const cJSON *as = cJSON_GetObjectItemCaseSensitive(best, "assumptions");
        if (as)
            cJSON_AddItemToObject(o, "assumptions", cJSON_Duplicate(as, 1));
    } else {
        cJSON_AddNullToObject(o, "best");
        /* No answer: the sweep-wide part of the assumptions (processes depend on the row). */
        const struct ts_reliability *rel = &sw->reliability;
        cJSON *as = cJSON_AddObjectToObject(o, "assumptions");
        cJSON_AddStringToObject(as, "reliability", rel->none ? "none" : "simulated");
        cJSON_AddStringToObject(as, "source", rel->none ? "none"
                                : rel->failures_default ? "default (the fleet of each system's "
                                                          "accelerator generation)"
                                                        : "file");
        num(as, "rate_scale", rel->rate_scale);
        char m[1024];
        miss_text(sw, r, m, sizeof m);
        cJSON_AddStringToObject(o, "message", m);
    }
    if (r->has_closest)
        cJSON_AddItemToObject(o, "closest_miss", outcome_json(sw, &r->closest));
    /* Rows are purchases; each lists its layouts (the row's own first). */
    num(o, "tie_tolerance", TS_SWEEP_TIE_TOLERANCE);
    cJSON *top = cJSON_CreateArray();
    for (int i = 0; i < r->n_top; i++) {
        cJSON *row = outcome_json(sw, &r->top[i]);
        if (r->top_first)
            add_layouts(row, sw, r->top_layouts, r->top_first[i], r->top_first[i + 1]);
        cJSON_AddItemToArray(top, row);
    }
    cJSON_AddItemToObject(o, "top", top);
    cJSON *pareto = cJSON_CreateArray();
    for (int i = 0; i < r->n_pareto; i++) {
        cJSON *row = outcome_json(sw, &r->pareto[i]);
        if (r->pareto_first)
            add_layouts(row, sw, r->pareto_layouts, r->pareto_first[i], r->pareto_first[i + 1]);
        cJSON_AddItemToArray(pareto, row);
    }
    cJSON_AddItemToObject(o, "pareto", pareto);
    cJSON *bps = cJSON_CreateArray();
    for (int i = 0; i < r->n_best_per_system; i++)
        cJSON_AddItemToArray(bps, outcome_json(sw, &r->best_per_system[i]));
    cJSON_AddItemToObject(o, "best_per_system", bps);
    num(o, "enumerated", (double)r->enumerated);
    num(o, "evaluated", (double)r->evaluated);
    num(o, "simulated", (double)r->simulated);
    num(o, "feasible", (double)r->feasible);
    cJSON *rej = cJSON_CreateObject();
    for (int i = 1; i < TS_REJECT_COUNT; i++)
        num(rej, ts_reject_names[i], (double)r->rejected[i]);
    cJSON_AddItemToObject(o, "rejected", rej);
    num(o, "elapsed_s", r->elapsed_s);
    return o;
}

static void outcome_row_wide(struct ts_buf *b, const struct ts_sweep *sw, int rank, const struct ts_outcome *o)
{
    const struct ts_layout *l = &o->layout;
    const struct ts_system *sys = &sw->systems[l->system];
    int gpus = l->nodes * sys->gpus_per_node;
    char t[48], sched[24];
    if (l->schedule == TS_SCHED_INTERLEAVED)
        snprintf(sched, sizeof sched, "interl. v%d", l->virtual_stages);
    else
        snprintf(sched, sizeof sched, "%s", ts_schedule_names[l->schedule]);
    double time = o->monte_carlo ? o->mc_time_mean_s : o->time_s;
    double cost = o->monte_carlo ? o->mc_cost_mean_usd : o->cost_usd;
    ts_buf_printf(b, "  %3d  %-13s %5d %6d  %-9s %3d %3d %4d %3d %3d  %-11s %-3s %-9s %d %-3s %9.3g %5.1f%% %9s",
                  rank, sys->name, l->nodes, gpus, ts_pricing_names[o->pricing], l->tp, l->pp,
                  gpus / (l->tp * l->cp * l->pp), l->cp, l->microbatch, sched, l->sp ? "yes" : "no",
                  ts_recompute_names[l->recompute], l->zero, l->tp_overlap ? "yes" : "no",
                  o->tokens_per_s, 100 * o->mfu,
                  isfinite(time) ? ts_quantity_format(time, TS_DIM_SECONDS, t, sizeof t) : "never");
    char u[48];
    if (sw->has_cost)
        ts_buf_printf(b, " %14s", ts_report_format_usd(cost, u, sizeof u));
    if (sw->n_software > 1)
        ts_buf_printf(b, "  %s", sw->software[l->software].name);
    ts_buf_printf(b, "\n");
}

static void outcome_header_wide(struct ts_buf *b, const struct ts_sweep *sw)
{
    ts_buf_printf(b, "  %3s  %-13s %5s %6s  %-9s %3s %3s %4s %3s %3s  %-11s %-3s %-9s %s %-3s %9s %6s %9s",
                  "#", "system", "nodes", "gpus", "pricing", "tp", "pp", "dp", "cp", "mb", "schedule",
                  "sp", "recompute", "z", "tpo", "tokens/s", "MFU", "time");
    if (sw->has_cost)
        ts_buf_printf(b, " %14s", "cost USD");
    if (sw->n_software > 1)
        ts_buf_printf(b, "  %s", "software");
    ts_buf_printf(b, "\n");
}

bool ts_report_wide;

/* The compact row (fits 100 columns): the purchase, the layout in one field, numbers for
 * people, and how many equivalent layouts the row stands for (n < 0: not counted). */
static void outcome_row_n(struct ts_buf *b, const struct ts_sweep *sw, int rank,
                          const struct ts_outcome *o, int n)
{
    if (ts_report_wide) {
        outcome_row_wide(b, sw, rank, o);
        return;
    }
    const struct ts_layout *l = &o->layout;
    const struct ts_system *sys = &sw->systems[l->system];
    int gpus = l->nodes * sys->gpus_per_node;
    char lay[64], t[48], u[48], tp[48];
    int k = snprintf(lay, sizeof lay, "tp%d pp%d dp%d", l->tp, l->pp, gpus / (l->tp * l->cp * l->pp));
    if (l->cp > 1)
        k += snprintf(lay + k, sizeof lay - (size_t)k, " cp%d", l->cp);
    k += snprintf(lay + k, sizeof lay - (size_t)k, " mb%d z%d", l->microbatch, l->zero);
    if (l->schedule == TS_SCHED_INTERLEAVED)
        k += snprintf(lay + k, sizeof lay - (size_t)k, " v%d", l->virtual_stages);
    else if (l->schedule != TS_SCHED_1F1B)
        k += snprintf(lay + k, sizeof lay - (size_t)k, " %s", ts_schedule_names[l->schedule]);
    if (l->recompute != TS_RECOMPUTE_NONE)
        k += snprintf(lay + k, sizeof lay - (size_t)k, " %.4s", ts_recompute_names[l->recompute]);
    if (l->sp)
        k += snprintf(lay + k, sizeof lay - (size_t)k, " sp");
    if (l->tp_overlap)
        snprintf(lay + k, sizeof lay - (size_t)k, " tpo");
    double time = o->monte_carlo ? o->mc_time_mean_s : o->time_s;
    double cost = o->monte_carlo ? o->mc_cost_mean_usd : o->cost_usd;
    ts_buf_printf(b, " %2d  %-12.12s %4d %5d  %-9s %-20s %7s %5.1f%% %8s", rank, sys->name,
                  l->nodes, gpus, ts_pricing_names[o->pricing], lay,
                  ts_report_format_human(o->tokens_per_s, "", tp, sizeof tp), 100 * o->mfu,
                  isfinite(time) ? ts_quantity_format(time, TS_DIM_SECONDS, t, sizeof t) : "never");
    if (sw->has_cost)
        ts_buf_printf(b, " %9s", ts_report_format_human(cost, "$", u, sizeof u));
    if (n >= 0)
        ts_buf_printf(b, " %4d", n);
    ts_buf_printf(b, "\n");
}

static void outcome_row(struct ts_buf *b, const struct ts_sweep *sw, int rank, const struct ts_outcome *o)
{
    outcome_row_n(b, sw, rank, o, -1);
}

static void outcome_header_n(struct ts_buf *b, const struct ts_sweep *sw, bool counted)
{
    if (ts_report_wide) {
        outcome_header_wide(b, sw);
        return;
    }
    ts_buf_printf(b, " %2s  %-12s %4s %5s  %-9s %-20s %7s %6s %8s", "#", "system", "node", "gpus",
                  "pricing", "layout", "tok/s", "MFU", "time");
    if (sw->has_cost)
        ts_buf_printf(b, " %9s", "cost");
    if (counted)
        ts_buf_printf(b, " %4s", "lays");
    ts_buf_printf(b, "\n");
}

static void outcome_header(struct ts_buf *b, const struct ts_sweep *sw)
{
    outcome_header_n(b, sw, false);
}

/* Whether the winner beats the runner-up by more than the model's error: the margin on the
 * ranked objective against the wider half-band of the two regimes. Returns true for a tie;
 * *margin and *band (fractions) say by how much. */
static bool decision_tie(const struct ts_sweep *sw, const struct ts_sweep_result *r, double *margin,
                         double *band, bool *same_regime)
{
    const struct ts_outcome *a = &r->top[0], *b2 = &r->top[1];
    *margin = a->mc_rank > 0 ? b2->mc_rank / a->mc_rank - 1 : 0.0;
    struct ts_job *ja = ts_xmalloc(sizeof *ja), *jb = ts_xmalloc(sizeof *jb);
    ts_sweep_layout_job(sw, &a->layout, (enum ts_pricing)a->pricing, ja);
    ts_sweep_layout_job(sw, &b2->layout, (enum ts_pricing)b2->pricing, jb);
    struct ts_run_band ba, bb;
    ts_run_model_band(ja, true, &ba);
    ts_run_model_band(jb, true, &bb);
    *band = fmax(fmax(fabs(ba.min_error), fabs(ba.max_error)), fmax(fabs(bb.min_error), fabs(bb.max_error)));
    *same_regime = strcmp(ja->system.accel.name, jb->system.accel.name) == 0 &&
                   a->layout.software == b2->layout.software;
    free(ja);
    free(jb);
    return *margin <= *band;
}

void ts_report_sweep_table(const struct ts_sweep *sw, const struct ts_sweep_result *r, struct ts_buf *b)
{
    char c[160], a[48];
    constraint_text(sw, c, sizeof c);
    ts_buf_printf(b, "trainsim sweep \"%s\": %s on %.4g tokens; objective: least %s; constraint: %s\n",
                  sw->name, sw->model.name, sw->tokens, ts_objective_names[sw->objective], c);
    ts_buf_printf(b, "searched %ld configurations in %s (%.0f per second): %ld simulated, %ld feasible\n",
                  r->evaluated, ts_quantity_format(r->elapsed_s, TS_DIM_SECONDS, a, sizeof a),
                  r->elapsed_s > 0 ? r->evaluated / r->elapsed_s : 0.0, r->simulated, r->feasible);
    ts_buf_printf(b, "rejected:");
    for (int i = 1; i < TS_REJECT_COUNT; i++)
        ts_buf_printf(b, "%s %s %ld", i > 1 ? "," : "", ts_reject_names[i], r->rejected[i]);
    ts_buf_printf(b, "\n\n");
    if (!r->found) {
        char m[1024];
        miss_text(sw, r, m, sizeof m);
        ts_buf_printf(b, "%s\n", m);
        if (r->has_closest) {
            outcome_header(b, sw);
            outcome_row(b, sw, 0, &r->closest);
        }
        return;
    }
    const struct ts_outcome *best = &r->top[0];
    ts_buf_printf(b, "ANSWER: %d x %s nodes (%d GPUs), %s pricing", best->layout.nodes,
                  sw->systems[best->layout.system].name,
                  best->layout.nodes * sw->systems[best->layout.system].gpus_per_node,
                  ts_pricing_names[best->pricing]);
    if (best->commit_nodes > 0)     /* a searched buy plan: the base it commits */
        ts_buf_printf(b, " (buy plan: a committed base of %g node%s + burst)", best->commit_nodes,
                      best->commit_nodes == 1 ? "" : "s");
    char u1[48], u2[48];
    if (sw->has_cost)
        ts_buf_printf(b, ": expected cost %s (p90 %s)",
                      ts_report_format_usd(best->mc_cost_mean_usd, u1, sizeof u1),
                      ts_report_format_usd(best->mc_cost_p90_usd, u2, sizeof u2));
    ts_buf_printf(b, ", expected time %s", ts_quantity_format(best->mc_time_mean_s, TS_DIM_SECONDS, a, sizeof a));
    ts_buf_printf(b, " (p90 %s)\n", ts_quantity_format(best->mc_time_p90_s, TS_DIM_SECONDS, a, sizeof a));
    double tq;
    if (deadline_with_error(sw, r, &tq)) {
        char d1[48];
        const struct ts_run_band *bd = &r->best_dist.band;
        ts_buf_printf(b, "deadline %s at probability %.2f: met on failures alone (what the search "
                      "checks); with the model's own error (%+.0f%% .. %+.0f%%) too, the %.2f "
                      "quantile is %s: %s\n",
                      ts_quantity_format(sw->deadline_s, TS_DIM_SECONDS, d1, sizeof d1),
                      sw->probability, 100 * bd->min_error, 100 * bd->max_error, sw->probability,
                      ts_quantity_format(tq, TS_DIM_SECONDS, a, sizeof a),
                      tq <= sw->deadline_s ? "within the deadline" : "PAST the deadline");
    }
    ts_report_validation_text(&r->best_job, &r->best_it, b);
    if (r->n_top > 1) {
        const struct ts_outcome *ru = &r->top[1];
        ts_buf_printf(b, "runner-up: %d x %s nodes, %s pricing", ru->layout.nodes,
                      sw->systems[ru->layout.system].name, ts_pricing_names[ru->pricing]);
        if (sw->n_software > 1)
            ts_buf_printf(b, ", %s", sw->software[ru->layout.software].name);
        if (sw->has_cost)
            ts_buf_printf(b, ", expected cost %s (%+.1f%%)",
                          ts_report_format_usd(ru->mc_cost_mean_usd, u1, sizeof u1),
                          100 * (ru->mc_cost_mean_usd / best->mc_cost_mean_usd - 1));
        ts_buf_printf(b, ", expected time %s\n", ts_quantity_format(ru->mc_time_mean_s, TS_DIM_SECONDS, a, sizeof a));
        double margin, band;
        bool same;
        if (decision_tie(sw, r, &margin, &band, &same))
            ts_buf_printf(b, "within model error (+-%.0f%%) of the runner-up: a tie (margin %.1f%%%s)\n",
                          100 * band, 100 * margin,
                          same ? "; same device and software, so much of the error is shared" : "");
        else
            ts_buf_printf(b, "beats the runner-up by %.1f%%, more than the model error (+-%.0f%%)\n",
                          100 * margin, 100 * band);
    }
    ts_buf_printf(b, "\nThe chosen setup in full:\n\n");
    struct ts_run_output ro = {NULL, &r->best_job, &r->best_it, NULL, NULL,
                               r->best_job.has_reliability ? &r->best_run : NULL,
                               r->best_job.has_cost ? &r->best_cost : NULL,
                               r->best_job.has_reliability && r->best_dist.n > 0 ? &r->best_dist : NULL};
    ts_report_run_table(&ro, b);
    ts_buf_printf(b, "\nTop %d purchases (Monte Carlo expected time and cost; lays: layouts within %.1f%% "
                  "of the row's, listed in JSON):\n", r->n_top, 100 * TS_SWEEP_TIE_TOLERANCE);
    outcome_header_n(b, sw, r->top_first != NULL);
    for (int i = 0; i < r->n_top; i++)
        outcome_row_n(b, sw, i + 1, &r->top[i],
                      r->top_first ? r->top_first[i + 1] - r->top_first[i] : -1);
    if (r->n_best_per_system > 0) {
        ts_buf_printf(b, "\nBest per system and pricing (analytic expected values):\n");
        outcome_header(b, sw);
        for (int i = 0; i < r->n_best_per_system; i++)
            outcome_row(b, sw, i + 1, &r->best_per_system[i]);
    }
    if (r->n_pareto > 0) {
        ts_buf_printf(b, "\nCost / time Pareto front (analytic expected values; faster is dearer):\n");
        outcome_header(b, sw);
        for (int i = 0; i < r->n_pareto; i++)
            outcome_row(b, sw, i + 1, &r->pareto[i]);
    }
}

void ts_report_sweep_csv(const struct ts_sweep *sw, const struct ts_sweep_result *r, struct ts_buf *b)
{
    /* One row per top configuration, flattened. */
    for (int i = 0; i < r->n_top; i++) {
        cJSON *o = outcome_json(sw, &r->top[i]);
        cJSON_AddNumberToObject(o, "rank", i + 1);
        /* The software column goes last, after rank, so the older columns keep their places. */
        cJSON *soft = cJSON_DetachItemFromObjectCaseSensitive(o, "software");
        cJSON_AddItemToObject(o, "software", soft);
        struct ts_buf one;
        ts_buf_init(&one);
        ts_report_json_to_csv(o, &one);
        const char *line2 = strchr(one.data, '\n');
        if (i == 0)
            ts_buf_append(b, one.data, one.len);
        else if (line2)
            ts_buf_append(b, line2 + 1, strlen(line2 + 1));
        ts_buf_free(&one);
        cJSON_Delete(o);
    }
}

/* ---------------------------------------------------------------- run timeline trace */

int ts_report_run_trace_write(const char *path, const struct ts_run_timeline *tl, const struct ts_job *job,
                              struct ts_err *err)
{
    struct ts_buf b;
    ts_buf_init(&b);
    ts_buf_printf(&b, "{\"displayTimeUnit\": \"ms\", \"otherData\": {\"model\": \"%s\", \"system\": \"%s\", "
                  "\"note\": \"one replication of the run; 1 trace second = 1 wall-clock hour\"},\n"
                  "\"traceEvents\": [\n{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 0, "
                  "\"args\": {\"name\": \"training run (1 s = 1 h)\"}}",
                  job->model.name, job->system.name);
    for (int k = 0; k < TS_SPAN_COUNT; k++)
        ts_buf_printf(&b, ",\n{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 0, \"tid\": %d, "
                      "\"args\": {\"name\": \"%s\"}}", k, ts_run_span_names[k]);
    for (size_t i = 0; i < tl->len; i++) {
        const struct ts_run_span *s = &tl->spans[i];
        /* Hours as trace seconds keep months-long runs readable in Perfetto. */
        ts_buf_printf(&b, ",\n{\"name\": \"%s\", \"ph\": \"X\", \"pid\": 0, \"tid\": %d, \"ts\": %.3f, "
                      "\"dur\": %.3f}", ts_run_span_names[s->kind], s->kind, s->start_s / 3600.0 * 1e6,
                      (s->end_s - s->start_s) / 3600.0 * 1e6);
    }
    ts_buf_printf(&b, "\n]}\n");
    int rc = ts_file_write_atomic(path, b.data, b.len, err);
    ts_buf_free(&b);
    return rc;
}
