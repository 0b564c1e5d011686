/*
 * One job, one iteration: compute model, memory verdict, plan, simulation, derived rates.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cost/cost.h"
#include "step/step.h"

const char *const ts_method_names[TS_METHOD_COUNT] = {"discrete_event", "closed_form"};
_Static_assert(TS_METHOD_COUNT == 2, "update ts_method_names");

int ts_eval_scratch_init(struct ts_eval_scratch *s)
{
    memset(s, 0, sizeof *s);
    s->sim = ts_step_sim_new();
    if (!s->sim || ts_step_plan_init(&s->plan, 1, 1) != 0) {
        ts_eval_scratch_free(s);
        return -1;
    }
    return 0;
}

void ts_eval_scratch_free(struct ts_eval_scratch *s)
{
    ts_step_sim_free(s->sim);
    ts_step_plan_free(&s->plan);
    memset(s, 0, sizeof *s);
}

void ts_step_evaluate(const struct ts_job *job, enum ts_method method, struct ts_eval_scratch *s,
                      struct ts_iteration *out, struct ts_step_stages *stages,
                      struct ts_trace *trace)
{
    memset(out, 0, sizeof *out);
    struct ts_compute *c = &s->compute;
    ts_compute_build(job, c);
    out->method = method;
    out->params = ts_compute_param_count(job, c);
    out->active_params = ts_compute_active_param_count(job, c);
    out->moe_dropped_fraction = c->moe_layer.moe.dropped_fraction;
    out->memory_stage = ts_memory_worst(job, c, &out->memory);
    out->memory_capacity_bytes = job->system.accel.memory_bytes;
    out->feasible = out->memory.total_bytes <= out->memory_capacity_bytes;
    if (!out->feasible) {
        double gib = 1073741824.0;
        snprintf(out->reason, sizeof out->reason,
                 "out of memory: stage %d needs %.1f GiB per GPU, %.1f GiB available (short by "
                 "%.1f GiB)", out->memory_stage, out->memory.total_bytes / gib,
                 out->memory_capacity_bytes / gib,
                 (out->memory.total_bytes - out->memory_capacity_bytes) / gib);
    }

    ts_step_plan_build(job, c, &s->plan);
    out->layer_fwd_s = s->plan.layer_fwd_s;
    out->layer_bwd_s = s->plan.layer_bwd_s;
    out->layer_recompute_s = s->plan.layer_recompute_s;
    if (method == TS_METHOD_DISCRETE_EVENT) {
        ts_step_simulate(s->sim, &s->plan, &out->step, stages, trace);
        out->iteration_s = out->step.iteration_s;
        out->bubble_fraction = out->step.bubble_fraction;
    } else {
        out->iteration_s = ts_step_closed_form(&s->plan);
        out->step.iteration_s = out->iteration_s;
        int p = s->plan.p, v = s->plan.v, m = s->plan.m;
        out->bubble_fraction = (double)(p - 1) / v / (m + (double)(p - 1) / v);
    }

    /* The job waits for its slowest GPU once per iteration (sim/step/scale.c): the critical
     * stage's compute, stretched by the expected maximum of the GPUs' spread. The closed form
     * takes the same compute from the plan: m microbatches through the busiest stage's chunks,
     * without their exposed TP/CP communication. */
    double compute_s = out->step.compute_s;
    if (method != TS_METHOD_DISCRETE_EVENT) {
        compute_s = 0.0;
        for (int k = 0; k < s->plan.p; k++) {
            double busy = 0.0;
            for (int ch = 0; ch < s->plan.v; ch++) {
                const struct ts_step_chunk *x = &s->plan.chunk[k * s->plan.v + ch];
                busy += x->fwd_s - x->fwd_comm_s + x->bwd_s - x->bwd_comm_s;
            }
            compute_s = fmax(compute_s, s->plan.m * busy);
        }
    }
    out->sync_wait_s = ts_step_sync_wait(compute_s, job->system.accel.step_time_cv, job->gpus);
    out->iteration_s += out->sync_wait_s;

    /* A data loader slower than the step caps the iteration (sim/cost: ts_cost_loader_time). */
    if (job->has_cost) {
        double hosts, loader_s = ts_cost_loader_time(job, &hosts);
        if (loader_s > out->iteration_s) {
            out->data_stall_s = loader_s - out->iteration_s;
            out->iteration_s = loader_s;
        }
    }

    double T = out->iteration_s, gpus = job->gpus;
    double peak = job->system.accel.peak_flops[job->precision];
    double tokens_iter = (double)job->global_batch * job->model.seq_len;
    out->tokens_per_s = tokens_iter / T;
    out->model_flops = ts_compute_model_flops(job, c);
    out->hardware_flops = ts_compute_hardware_flops(job, c);
    out->model_tflops_per_gpu = out->model_flops / T / gpus / 1e12;
    out->hardware_tflops_per_gpu = out->hardware_flops / T / gpus / 1e12;
    out->mfu = out->model_flops / (T * gpus * peak);
    out->hfu = out->hardware_flops / (T * gpus * peak);
    if (job->has_training) {
        out->iterations = ceil(job->training.tokens / tokens_iter);
        out->time_to_train_s = out->iterations * T;
    }
}

/* ---------------------------------------------------------------- size budget */

/* a * b, or -1 when either is negative or the product exceeds 2^62. */
static int64_t mul_checked(int64_t a, int64_t b)
{
    if (a < 0 || b < 0)
        return -1;
    if (a != 0 && b > (INT64_C(1) << 62) / a)
        return -1;
    return a * b;
}

int64_t ts_step_task_count(const struct ts_job *job)
{
    const struct ts_parallel *p = &job->parallel;
    int64_t per_step = mul_checked(p->dp, p->microbatch);
    if (per_step <= 0 || p->pp <= 0 || p->virtual_stages <= 0 || job->global_batch <= 0)
        return -1;
    int64_t m = job->global_batch / per_step;
    return mul_checked(mul_checked(mul_checked(p->pp, 2), m), p->virtual_stages);
}

int ts_step_check_size(const struct ts_job *job, const char *file, struct ts_err *err)
{
    int64_t tasks = ts_step_task_count(job);
    if (tasks >= 0 && tasks <= TS_STEP_TASKS_MAX)
        return TS_OK;
    const struct ts_parallel *p = &job->parallel;
    long long per_step = (long long)p->dp * p->microbatch;
    long long m = per_step > 0 ? job->global_batch / per_step : 0;
    char count[64];
    if (tasks < 0)
        snprintf(count, sizeof count, "more than 2^62");
    else
        snprintf(count, sizeof count, "%lld", (long long)tasks);
    return ts_err_at(err, file, "global_batch",
                     "%d sequences in microbatches of %d over dp %d give %lld microbatches; the "
                     "iteration simulation would hold pp x 2 x microbatches x virtual_stages = "
                     "%d x 2 x %lld x %d = %s tasks, above its limit of %ld tasks (about 1 GiB); "
                     "lower global_batch or virtual_stages, or raise microbatch",
                     job->global_batch, p->microbatch, p->dp, m, p->pp, m, p->virtual_stages,
                     count, TS_STEP_TASKS_MAX);
}
