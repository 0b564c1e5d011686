/*
 * Benchmark of the iteration simulation (not a ctest: timings are reported, not asserted).
 *
 * For two large layouts it times ts_step_simulate alone on a prebuilt plan (the event loop)
 * and ts_step_evaluate (compute model + memory + plan + simulation), and prints events per
 * second, simulated iterations per second and milliseconds per iteration, best of several
 * repeats on one core:
 *   - GPT-3 175B on 1024 A100 (dgx-a100-80g): tp 8, pp 8, interleaved with 3 chunks, global
 *     batch 1536, microbatch 1 (96 microbatches);
 *   - the 529.6B row of Narayanan et al. SC21 Table 1 (configs/validation/narayanan-529.6b.json:
 *     tp 8, pp 35, 3 chunks, 280 microbatches);
 *   - DeepSeek-V3 (671B MoE, MLA) on 2048 H800: pp 16, ep 64, 120 microbatches.
 *
 * Usage: bench_step [seconds per repeat, default 0.3]   (run from anywhere; TRAINSIM_HOME or the
 * compiled-in source tree locates the catalogue). Results: experiments/benchmarks/README.md.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec/spec.h"
#include "step/step.h"

#define REPEATS 7

static int load_job_text(const char *text, const char *file, struct ts_job *job)
{
    struct ts_err err;
    ts_err_clear(&err);
    cJSON *doc = cJSON_Parse(text);
    if (!doc) {
        fprintf(stderr, "bench_step: bad inline JSON\n");
        return -1;
    }
    struct ts_jnode root = ts_jnode_root(doc, file);
    int rc = ts_job_parse(&root, NULL, job, &err);
    cJSON_Delete(doc);
    if (rc != TS_OK)
        fprintf(stderr, "bench_step: %s\n", err.msg);
    return rc;
}

static int load_job_file(const char *rel, struct ts_job *job)
{
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", ts_spec_home(), rel);
    struct ts_err err;
    ts_err_clear(&err);
    cJSON *doc;
    if (ts_json_load(path, &doc, &err) != TS_OK) {
        fprintf(stderr, "bench_step: %s\n", err.msg);
        return -1;
    }
    struct ts_jnode root = ts_jnode_root(doc, path);
    int rc = ts_job_parse(&root, NULL, job, &err);
    cJSON_Delete(doc);
    if (rc != TS_OK)
        fprintf(stderr, "bench_step: %s\n", err.msg);
    return rc;
}

/* Best seconds per call over REPEATS repeats of at least `budget` seconds each. */
static double best_of(double budget, const struct ts_job *job, struct ts_eval_scratch *s,
                      bool evaluate, uint64_t *events)
{
    double best = 1e300;
    for (int rep = 0; rep < REPEATS; rep++) {
        long n = 0;
        double t0 = ts_time_now(), t;
        do {
            if (evaluate) {
                struct ts_iteration it;
                ts_step_evaluate(job, TS_METHOD_DISCRETE_EVENT, s, &it, NULL, NULL);
                *events = it.step.events;
            } else {
                struct ts_step_result r;
                ts_step_simulate(s->sim, &s->plan, &r, NULL, NULL);
                *events = r.events;
            }
            n++;
            t = ts_time_now() - t0;
        } while (t < budget);
        if (t / n < best)
            best = t / n;
    }
    return best;
}

static void bench(const char *name, const struct ts_job *job, double budget)
{
    struct ts_eval_scratch s;
    if (ts_eval_scratch_init(&s) != 0) {
        fprintf(stderr, "bench_step: out of memory\n");
        exit(1);
    }
    struct ts_iteration it;
    ts_step_evaluate(job, TS_METHOD_DISCRETE_EVENT, &s, &it, NULL, NULL);  /* warm up, build plan */
    uint64_t ev_sim = 0, ev_eval = 0;
    double t_sim = best_of(budget, job, &s, false, &ev_sim);
    double t_eval = best_of(budget, job, &s, true, &ev_eval);
    printf("%s\n", name);
    printf("  layout: p %d, v %d, m %d; %d GPUs; simulated iteration %.3f s, MFU %.3f\n", s.plan.p,
           s.plan.v, s.plan.m, job->gpus, it.iteration_s, it.mfu);
    printf("  ts_step_simulate: %llu events, %.3f ms per iteration, %.0f iterations/s, %.2f M events/s\n",
           (unsigned long long)ev_sim, 1e3 * t_sim, 1.0 / t_sim, ev_sim / t_sim / 1e6);
    printf("  ts_step_evaluate: %.3f ms per iteration, %.0f iterations/s, %.2f M events/s\n",
           1e3 * t_eval, 1.0 / t_eval, ev_eval / t_eval / 1e6);
    ts_eval_scratch_free(&s);
}

int main(int argc, char **argv)
{
    double budget = argc > 1 ? atof(argv[1]) : 0.3;
    if (!(budget > 0)) {
        fprintf(stderr, "usage: bench_step [seconds per repeat]\n");
        return 2;
    }
    struct ts_job gpt3, n530;
    if (load_job_text("{\"model\": \"gpt3-175b\", \"system\": \"dgx-a100-80g\", \"gpus\": 1024, "
                      "\"global_batch\": 1536, \"parallel\": {\"tp\": 8, \"pp\": 8, "
                      "\"microbatch\": 1, \"schedule\": \"interleaved\", \"virtual_stages\": 3, "
                      "\"sequence_parallel\": true, \"recompute\": \"selective\"}}",
                      "gpt3-175b-1024.json", &gpt3) ||
        load_job_file("configs/validation/narayanan-529.6b.json", &n530))
        return 1;
    /* A DeepSeek-V3-class MoE iteration: the report's layout (arXiv 2412.19437 sec. 3.2:
     * 2048 H800, 16-way pipeline, 64-way expert parallelism over 8 nodes, ZeRO-1 data
     * parallelism; global batch 15360 sequences of 4K), 61 layers split 3 / 4 x 14 / 2. */
    struct ts_job dsv3;
    if (load_job_text("{\"model\": \"deepseek-v3\", \"system\": \"hgx-h800\", \"gpus\": 2048, "
                      "\"global_batch\": 15360, \"parallel\": {\"tp\": 1, \"pp\": 16, "
                      "\"first_stage_layers\": 3, \"last_stage_layers\": 2, \"ep\": 64, "
                      "\"microbatch\": 1, \"zero\": 1, \"recompute\": \"full\"}}",
                      "deepseek-v3-2048.json", &dsv3))
        return 1;
    printf("best of %d repeats of >= %.2f s each, one thread\n", REPEATS, budget);
    bench("GPT-3 175B, 1024 x A100, tp 8 pp 8 v 3, batch 1536, microbatch 1", &gpt3, budget);
    bench("Narayanan et al. Table 1, 529.6B: 2520 x A100, tp 8 pp 35 v 3, batch 2520", &n530, budget);
    bench("DeepSeek-V3 671B MoE: 2048 x H800, pp 16 ep 64, batch 15360, microbatch 1", &dsv3, budget);
    return 0;
}
