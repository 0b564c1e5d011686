/*
 * Tests of the cost model (sim/cost) and of the job's cost section (sim/spec/cost.c): a small
 * run priced by hand to the cent, conservation of GPU-hours and dollars on random inputs,
 * keep-last-k checkpoint storage, p90 bills and budget flags, the data-loader cap, the
 * spot-versus-on-demand crossover found with the run simulation, bad inputs, and the
 * shipped price files.
 *
 * Jobs are built by hand (the cost model reads only the cluster size, the layout, the
 * training tokens, the spares and checkpoint keep, and the cost section), except in the
 * loader-cap test, which evaluates a whole job.
 */
#include "test_helpers.h"

#include <dirent.h>

#include "cost/cost.h"
#include "run/run.h"
#include "spec/spec.h"
#include "step/step.h"

#define HOUR 3600.0
#define DAY 86400.0
#define GIB 1073741824.0
#define MONTH (730.0 * HOUR)

#define assert_ok(rc, err)                                                  \
    do {                                                                    \
        if ((rc) != TS_OK) {                                                \
            print_error("unexpected error (rc %d): %s\n", (rc), (err).msg); \
            fail();                                                         \
        }                                                                   \
    } while (0)

/* ---------------------------------------------------------------- fixtures */

/* Parse `text` as the value of "cost" in FILE over the defaults. */
static int parse_cost_in(const char *file, const char *text, struct ts_cost_config *c,
                         struct ts_err *err)
{
    struct ts_buf b;
    ts_buf_init(&b);
    ts_buf_printf(&b, "{\"cost\": %s}", text);
    cJSON *doc = ts_test_json(b.data);
    ts_buf_free(&b);
    struct ts_jnode root = ts_jnode_root(doc, file), node;
    assert_true(ts_jnode_child(&root, "cost", &node));
    ts_cost_config_defaults(c);
    ts_err_clear(err);
    int rc = ts_cost_config_parse(&node, c, err);
    cJSON_Delete(doc);
    return rc;
}

static int parse_cost(const char *text, struct ts_cost_config *c, struct ts_err *err)
{
    return parse_cost_in("test.json", text, c, err);
}

/* Path of a file under tests/data. */
static void data_path(char *buf, size_t n, const char *rel)
{
    const char *dir = getenv("TS_TEST_DATA");
    if (dir && dir[0])
        snprintf(buf, n, "%s/%s", dir, rel);
    else
        snprintf(buf, n, "%s/tests/data/%s", TS_SOURCE_DIR, rel);
}

/* 2 nodes x 8 GPUs, tp 8 x dp 2, 16 sequences of 1000 tokens per iteration, one hot spare,
 * keep the last 2 checkpoints; the cost section is the caller's. */
static void small_job(struct ts_job *job)
{
    memset(job, 0, sizeof *job);
    job->system.gpus_per_node = 8;
    job->gpus = 16;
    job->nodes = 2;
    job->global_batch = 16;
    job->model.seq_len = 1000;
    ts_parallel_defaults(&job->parallel);
    job->parallel.tp = 8;
    job->parallel.dp = 2;
    job->has_training = true;
    job->training.tokens = 3240.0 * 16000.0;        // 3,240 iterations
    job->has_reliability = true;
    ts_reliability_defaults(&job->reliability);
    job->reliability.spares = 1;
    job->reliability.checkpoint.keep = 2;
    job->has_cost = true;
}

/* The iteration of the small job: a step of 8 s capped to 10 s by the loader (2 s stall);
 * of the step, bubble 0.1 x 8 = 0.8 s and exposed communication 0.4 + 0.2 + 0.3 + 0.1 =
 * 1.0 s, so 6.2 s productive; 1 GiB over the NICs per pipeline and iteration. */
static void small_iteration(struct ts_iteration *it)
{
    memset(it, 0, sizeof *it);
    it->feasible = true;
    it->iteration_s = 10.0;
    it->data_stall_s = 2.0;
    it->tokens_per_s = 1600.0;
    it->bubble_fraction = 0.1;
    it->step.iteration_s = 8.0;
    it->step.exposed_tp_s = 0.4;
    it->step.exposed_pp_s = 0.2;
    it->step.exposed_dp_s = 0.3;
    it->step.tail_s = 0.1;
    it->step.nic_bytes = GIB;
    it->iterations = 3240.0;
    it->time_to_train_s = 32400.0;                  // 9 h of useful compute
}

/* A run of the small job: 10 h wall, 2 failures; 160 GPU-hours = 144 productive (9 h x 16)
 * + 6.4 rework + 3.2 checkpoint + 4.8 restart + 1.6 waiting for repair; checkpoints every
 * 3 h of useful compute. */
static void small_run(struct ts_run_result *run)
{
    memset(run, 0, sizeof *run);
    run->params.checkpoint_interval_s = 3.0 * HOUR;
    run->params.solve_s = 32400.0;
    run->replications = 1;
    run->mean_s = 36000.0;
    run->p50_s = 36000.0;
    run->p90_s = 40000.0;
    run->p99_s = 40000.0;
    run->failures_mean = 2.0;
    run->productive_gpu_h = 144.0;
    run->rework_gpu_h = 6.4;
    run->checkpoint_gpu_h = 3.2;
    run->restart_gpu_h = 4.8;
    run->repair_wait_gpu_h = 1.6;
    run->spare_gpu_h = 80.0;
}

#define SMALL_COST                                                                            \
    "{\"pricing\": \"on_demand\", \"gpu_hour\": {\"on_demand\": 4.10}, \"fixed_per_hour\": 2," \
    " \"storage\": {\"price_gb_month\": {\"hot\": 0.023, \"warm\": 0.0125, \"cold\": 0.0036},"  \
    "  \"tier_after\": {\"warm\": \"30 d\", \"cold\": \"40 d\"},"                               \
    "  \"dataset\": {\"size\": \"2000 GiB\", \"tier\": \"hot\"},"                               \
    "  \"checkpoint_retention\": \"45 d\","                                                     \
    "  \"logs\": {\"bytes_per_step_per_node\": \"1 MiB\", \"retention\": \"30 d\", "            \
    "            \"tier\": \"warm\"}},"                                                         \
    " \"network\": {\"inter_node_gb\": 0.001, \"egress\": \"1000 GiB\", \"egress_gb\": 0.09,"   \
    "  \"cross_region\": \"500 GiB\", \"cross_region_gb\": 0.02},"                              \
    " \"data\": {\"bytes_per_token\": 5000, \"loader_throughput\": \"8 MB/s\", \"hosts\": 1,"   \
    "  \"host_hour\": 0.5},"                                                                    \
    " \"monitoring\": {\"node_hour\": 0.1, \"ingest_gb\": 0.5},"                                \
    " \"operations\": {\"hours_per_incident\": 1.5, \"hours_per_restart\": 0.5, "               \
    "  \"hourly_rate\": 100}}"

static void small_setup(struct ts_job *job, struct ts_iteration *it, struct ts_run_result *run)
{
    struct ts_err err;
    small_job(job);
    int rc = parse_cost(SMALL_COST, &job->cost, &err);
    assert_ok(rc, err);
    small_iteration(it);
    small_run(run);
}

static int price(struct ts_job *job, const struct ts_iteration *it,
                 const struct ts_run_result *run, const double *samples, int n,
                 struct ts_cost_result *out, struct ts_err *err)
{
    struct ts_cost_input in = {job, it, run, samples, n, 1000.0 * GIB};
    ts_err_clear(err);
    return ts_cost_compute(&in, out, err);
}

static double sum_in_order(const double *v, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += v[i];
    return s;
}

#define CENT 0.005

/* ---------------------------------------------------------------- hand-computed bill */

/*
 * The small run by hand (GB = 2^30 bytes, month = 730 h = 2,628,000 s):
 *   compute   16 GPUs x 10 h x 4.10                                      = 656.00
 *   spares    1 node x 8 GPUs x 10 h x 4.10                              = 328.00
 *   fixed     2.00 x 10 h                                                =  20.00
 *   checkpoints 1000 GiB each; n = ceil(9 h / 3 h) = 3, wall spacing s = 3 h x 10/9 = 12,000 s,
 *             written at 12,000, 24,000, 36,000 s; keep 2:
 *             #1 lives until #3: 24,000 s hot: 1000 x 0.023 x 24,000 / 2,628,000   =  0.210046
 *             #2 12,000 s + 45 d = 3,900,000 s: hot 30 d (2,592,000 s) 22.684932
 *                + warm 30-40 d (864,000 s) 4.109589 + cold 444,000 s 0.608219     = 27.402740
 *             #3 0 + 45 d = 3,888,000 s: 22.684932 + 4.109589 + cold 432,000 s 0.591781
 *                                                                                 = 27.386301
 *                                                                          total  =  54.999087
 *   dataset   2000 GiB x 0.023 x 36,000 / 2,628,000                      =   0.630137
 *   steps run 3,240 useful + 6.4 GPU-h rework / (16 GPUs x 10 s) = 144 redone = 3,384
 *   logs      1 MiB x 2 nodes x 3,384 = 6.609375 GiB, warm 30 d: x 0.0125 x 2,592,000/2,628,000
 *                                                                        =   0.081485
 *   network   1 GiB x 16 pipelines x 3,384 steps = 54,144 GiB x 0.001 = 54.144
 *             + egress 1000 GiB x 0.09 = 90 + cross-region 500 GiB x 0.02 = 10    = 154.144
 *   data      1 host x 10 h x 0.50                                       =   5.00
 *   monitoring 3 nodes (2 + spare) x 10 h x 0.10 = 3 + 6.609375 GiB x 0.50 = 3.304688
 *                                                                        =   6.304688
 *   operations 2 failures x (1.5 + 0.5) h x 100                          = 400.00
 *   total                                                                = 1625.159397
 *   per million tokens: 1625.159397 / 51.84                              =   31.349525
 * GPU-hours: billed 160 + 80 = 240; the 144 productive split by the iteration (10 s): 6.2 s
 * productive 89.28, bubble 0.8 s 11.52, exposed comm 1.0 s 14.4, loader stall 2 s 28.8.
 */
static void small_run_is_billed_as_computed_by_hand_to_the_cent(void **state)
{
    (void)state;
    struct ts_job job;
    struct ts_iteration it;
    struct ts_run_result run;
    struct ts_cost_result r;
    struct ts_err err;
    small_setup(&job, &it, &run);
    int rc = price(&job, &it, &run, NULL, 0, &r, &err);
    assert_ok(rc, err);

    const double expected[TS_COST_COUNT] = {
        [TS_COST_COMPUTE] = 656.0,
        [TS_COST_SPARES] = 328.0,
        [TS_COST_FIXED] = 20.0,
        [TS_COST_STORAGE_CHECKPOINTS] = 54.999087,
        [TS_COST_STORAGE_DATASET] = 0.630137,
        [TS_COST_STORAGE_LOGS] = 0.081485,
        [TS_COST_NETWORK] = 154.144,
        [TS_COST_DATA_PIPELINE] = 5.0,
        [TS_COST_MONITORING] = 6.304688,
        [TS_COST_OPERATIONS] = 400.0,
    };
    for (int c = 0; c < TS_COST_COUNT; c++) {
        print_message("%-20s %12.6f\n", ts_cost_category_names[c], r.breakdown_usd[c]);
        assert_close(r.breakdown_usd[c], expected[c], 0.0, CENT);
    }
    assert_close(r.total_usd, 1625.159397, 0.0, CENT);
    assert_close(r.per_million_tokens_usd, 31.349525, 0.0, 1e-5);
    assert_close(r.per_hour_usd, 16 * 4.10 + 8 * 4.10 + 2.0, 0.0, 1e-9);
    assert_close(r.loader_hosts, 1.0, 0.0, 0.0);
    assert_close(r.data_stall_s, 2.0, 0.0, 0.0);
    assert_close(r.nic_bytes_total, 54144.0 * GIB, 1e-12, 0.0);

    assert_close(r.gpu_hours_billed, 240.0, 1e-12, 0.0);
    const double hours[TS_GPUH_COUNT] = {
        [TS_GPUH_PRODUCTIVE] = 89.28, [TS_GPUH_BUBBLE] = 11.52, [TS_GPUH_EXPOSED_COMM] = 14.4,
        [TS_GPUH_DATA_STALL] = 28.8,  [TS_GPUH_CHECKPOINT] = 3.2, [TS_GPUH_REWORK] = 6.4,
        [TS_GPUH_RESTART] = 4.8,      [TS_GPUH_REPAIR_WAIT] = 1.6, [TS_GPUH_DEGRADED] = 0.0,
        [TS_GPUH_IDLE_SPARES] = 80.0,
    };
    for (int g = 0; g < TS_GPUH_COUNT; g++) {
        assert_close(r.gpu_hours[g], hours[g], 1e-12, 1e-12);
        assert_close(r.waste_usd[g], hours[g] * 4.10, 1e-12, 1e-9);
    }
    assert_int_equal(r.top_waste, TS_GPUH_IDLE_SPARES);
    assert_false(r.budget_set);
    assert_false(r.over_budget_expected);
    assert_false(r.over_budget_p90);

    /* Without replication samples the p90 bill is the bill of the p90 wall time (40,000 s),
     * every category recomputed the same way: 1744.091263. */
    assert_close(r.p90_usd, 1744.091263, 0.0, CENT);
}

static void node_hour_prices_divide_by_the_systems_gpus_per_node(void **state)
{
    (void)state;
    struct ts_job job;
    struct ts_iteration it;
    struct ts_run_result run;
    struct ts_cost_result r;
    struct ts_err err;
    small_setup(&job, &it, &run);
    job.cost.gpu_hour[TS_PRICING_ON_DEMAND] = (double)NAN;            // not given
    job.cost.node_hour[TS_PRICING_ON_DEMAND] = 32.80;       // 4.10 per GPU on 8-GPU nodes
    int rc = price(&job, &it, &run, NULL, 0, &r, &err);
    assert_ok(rc, err);
    assert_close(ts_cost_gpu_hour_price(&job, TS_PRICING_ON_DEMAND), 4.10, 1e-15, 0.0);
    assert_close(r.breakdown_usd[TS_COST_COMPUTE], 656.0, 1e-12, 0.0);
    /* The same node price on a 4-GPU system is 8.20 per GPU-hour. */
    job.system.gpus_per_node = 4;
    assert_close(ts_cost_gpu_hour_price(&job, TS_PRICING_ON_DEMAND), 8.20, 1e-15, 0.0);
}

/* ---------------------------------------------------------------- checkpoints */

/* 100 checkpoints, keep 3, no retention, all hot: checkpoint i < 98 lives 3 spacings, the
 * last three 2, 1 and 0; in all s (97 x 3 + 3) = 294 s of one checkpoint's storage. */
static void keep_last_k_checkpoints_hold_k_spacings_each(void **state)
{
    (void)state;
    struct ts_job job;
    struct ts_iteration it;
    struct ts_run_result run;
    struct ts_cost_result r;
    struct ts_err err;
    small_job(&job);
    job.reliability.spares = 0;
    job.reliability.checkpoint.keep = 3;
    int rc = parse_cost("{\"gpu_hour\": {\"on_demand\": 1}, \"storage\": {\"price_gb_month\": "
                        "{\"hot\": 0.1}, \"tier_after\": {\"warm\": \"never\", \"cold\": "
                        "\"never\"}}}", &job.cost, &err);
    assert_ok(rc, err);
    small_iteration(&it);
    small_run(&run);
    run.params.checkpoint_interval_s = 324.0;           // 100 checkpoints in 32,400 s
    rc = price(&job, &it, &run, NULL, 0, &r, &err);
    assert_ok(rc, err);
    double s = 324.0 * 36000.0 / 32400.0;               // 360 s wall spacing
    double expected = 1000.0 * 0.1 * s * (97.0 * 3.0 + 3.0) / MONTH;
    assert_close(r.breakdown_usd[TS_COST_STORAGE_CHECKPOINTS], expected, 1e-12, 0.0);

    /* Keep the last 3 for 10 d after the run, moving to cold (0.01) at the age of 1 d: the
     * first 97 (3 s = 1080 s old at most) stay hot; the last 3 live 2 s, s and 0 plus 10 d:
     * hot for 1 d each, cold for the rest (3 s + 27 d together). */
    job.cost.checkpoint_retention_s = 10.0 * DAY;
    job.cost.tier_after_s[TS_TIER_WARM] = 1.0 * DAY;
    job.cost.tier_after_s[TS_TIER_COLD] = 1.0 * DAY;
    job.cost.storage_gb_month[TS_TIER_COLD] = 0.01;
    rc = price(&job, &it, &run, NULL, 0, &r, &err);
    assert_ok(rc, err);
    double kept = 1000.0 * (0.1 * s * 97.0 * 3.0 + 0.1 * 3.0 * DAY + 0.01 * (3.0 * s + 27.0 * DAY)) /
                  MONTH;
    assert_close(r.breakdown_usd[TS_COST_STORAGE_CHECKPOINTS], kept, 1e-12, 0.0);
}

/* ---------------------------------------------------------------- conservation */

/* SplitMix64 stream for the property tests (fixed seed: the same cases every time). */
static double uniform(uint64_t *state)
{
    *state += 0x9e3779b97f4a7c15ULL;
    return (double)(ts_rng_mix64(*state) >> 11) * 0x1.0p-53;
}

/* The small run again, with 0.8 s of the 10 s iteration spent waiting for the slowest GPU:
 * the step is 10 - 2 - 0.8 = 7.2 s, its bubble 0.1 x 7.2 = 0.72 s. Of the 144 productive-run
 * GPU-hours: straggler wait 144 x 0.08 = 11.52, bubble 144 x 0.072 = 10.368, exposed
 * communication 14.4 and loader stall 28.8 as before, productive 144 - 65.088 = 78.912. */
static void waiting_for_the_slowest_gpu_is_attributed_as_waste(void **state)
{
    (void)state;
    struct ts_job job;
    struct ts_iteration it;
    struct ts_run_result run;
    struct ts_cost_result r;
    struct ts_err err;
    small_setup(&job, &it, &run);
    it.sync_wait_s = 0.8;
    it.step.iteration_s = 7.2;
    int rc = price(&job, &it, &run, NULL, 0, &r, &err);
    assert_ok(rc, err);
    const double hours[TS_GPUH_COUNT] = {
        [TS_GPUH_PRODUCTIVE] = 78.912, [TS_GPUH_BUBBLE] = 10.368, [TS_GPUH_EXPOSED_COMM] = 14.4,
        [TS_GPUH_DATA_STALL] = 28.8,   [TS_GPUH_SYNC_WAIT] = 11.52, [TS_GPUH_CHECKPOINT] = 3.2,
        [TS_GPUH_REWORK] = 6.4,        [TS_GPUH_RESTART] = 4.8,     [TS_GPUH_REPAIR_WAIT] = 1.6,
        [TS_GPUH_DEGRADED] = 0.0,      [TS_GPUH_IDLE_SPARES] = 80.0,
    };
    for (int g = 0; g < TS_GPUH_COUNT; g++)
        assert_close(r.gpu_hours[g], hours[g], 1e-12, 1e-12);
    assert_true(sum_in_order(r.gpu_hours, TS_GPUH_COUNT) == r.gpu_hours_billed);
    assert_close(r.gpu_hours_billed, 240.0, 1e-12, 0.0);
    assert_string_equal(ts_gpuh_names[TS_GPUH_SYNC_WAIT], "straggler_wait");
}

static void gpu_hours_and_dollars_add_up_exactly_on_random_runs(void **state)
{
    (void)state;
    uint64_t rng = 20240901;
    for (int trial = 0; trial < 2000; trial++) {
        struct ts_job job;
        struct ts_iteration it;
        struct ts_run_result run;
        struct ts_cost_result r;
        struct ts_err err;
        small_setup(&job, &it, &run);
        job.nodes = 1 + (int)(uniform(&rng) * 2048);
        job.system.gpus_per_node = 1 << (int)(uniform(&rng) * 4);   // 1, 2, 4, 8
        job.gpus = job.nodes * job.system.gpus_per_node;
        job.parallel.tp = job.system.gpus_per_node;
        job.parallel.dp = job.nodes;
        job.reliability.spares = (int)(uniform(&rng) * 5);
        job.reliability.checkpoint.keep = 1 + (int)(uniform(&rng) * 4);
        job.cost.pricing = (enum ts_pricing)(int)(uniform(&rng) * 3);
        job.cost.spare_pricing = (enum ts_pricing)(int)(uniform(&rng) * 3);
        for (int p = 0; p < TS_PRICING_COUNT; p++)
            job.cost.gpu_hour[p] = 0.5 + 10.0 * uniform(&rng);
        job.cost.fixed_per_hour = 100.0 * uniform(&rng);

        it.iteration_s = 0.1 + 30.0 * uniform(&rng);
        it.data_stall_s = uniform(&rng) < 0.5 ? 0.0 : it.iteration_s * 0.5 * uniform(&rng);
        it.bubble_fraction = 0.5 * uniform(&rng);
        it.sync_wait_s = uniform(&rng) < 0.5 ? 0.0
                                              : (it.iteration_s - it.data_stall_s) * 0.1 * uniform(&rng);
        it.step.exposed_tp_s = it.iteration_s * 0.2 * uniform(&rng);
        it.step.exposed_pp_s = it.iteration_s * 0.2 * uniform(&rng);
        it.step.exposed_dp_s = it.iteration_s * 0.2 * uniform(&rng);
        it.step.tail_s = it.iteration_s * 0.1 * uniform(&rng);
        it.iterations = ceil(1e3 + 1e6 * uniform(&rng));
        it.time_to_train_s = it.iterations * it.iteration_s;
        job.training.tokens = it.iterations * 16000.0;

        /* A run: wall = T_s stretched, the extra split at random among the wastes. */
        double Ts = it.time_to_train_s, W = Ts * (1.0 + 2.0 * uniform(&rng));
        double w[6], wsum = 0.0;
        for (int i = 0; i < 6; i++)
            wsum += w[i] = uniform(&rng);
        double g = job.gpus, extra_h = g * (W - Ts) / HOUR;
        memset(&run, 0, sizeof run);
        run.mean_s = W;
        run.p90_s = W * 1.1;
        run.params.solve_s = Ts;
        run.params.checkpoint_interval_s = Ts / (1.0 + 200.0 * uniform(&rng));
        run.failures_mean = 10.0 * uniform(&rng);
        run.productive_gpu_h = g * Ts / HOUR;
        run.rework_gpu_h = extra_h * w[0] / wsum;
        run.checkpoint_gpu_h = extra_h * w[1] / wsum;
        run.restart_gpu_h = extra_h * w[2] / wsum;
        run.repair_wait_gpu_h = extra_h * w[3] / wsum;
        run.degraded_gpu_h = extra_h * w[4] / wsum;
        run.slow_node_gpu_h = extra_h * w[5] / wsum;
        double samples[16];
        for (int i = 0; i < 16; i++)
            samples[i] = Ts * (1.0 + 3.0 * uniform(&rng));

        int rc = price(&job, &it, trial % 3 ? &run : NULL, trial % 2 ? samples : NULL, 16, &r,
                       &err);
        assert_ok(rc, err);
        double wall = trial % 3 ? W : Ts;
        /* Billed: job GPUs x wall + spare GPUs x wall, exactly as documented. */
        double spare_gpus = (double)job.reliability.spares * job.system.gpus_per_node;
        double billed = g * wall / HOUR + spare_gpus * wall / HOUR;
        if (r.gpu_hours_billed != billed ||
            sum_in_order(r.gpu_hours, TS_GPUH_COUNT) != r.gpu_hours_billed ||
            sum_in_order(r.breakdown_usd, TS_COST_COUNT) != r.total_usd) {
            print_error("trial %d: parts do not add up exactly: %.17g vs %.17g GPU-h billed "
                        "(expected %.17g), %.17g vs %.17g USD\n", trial,
                        sum_in_order(r.gpu_hours, TS_GPUH_COUNT), r.gpu_hours_billed, billed,
                        sum_in_order(r.breakdown_usd, TS_COST_COUNT), r.total_usd);
            fail();
        }
        for (int k = 0; k < TS_GPUH_COUNT; k++)
            assert_true(r.gpu_hours[k] >= 0.0);
        // Fail-slow time is its own row, as the run attributed it.
        assert_close(r.gpu_hours[TS_GPUH_SLOW_NODE], trial % 3 ? run.slow_node_gpu_h : 0.0, 1e-9,
                     1e-9);
        assert_close(sum_in_order(r.waste_usd, TS_GPUH_COUNT),
                     r.breakdown_usd[TS_COST_COMPUTE] + r.breakdown_usd[TS_COST_SPARES], 1e-9, 0.0);
    }
}

/* ---------------------------------------------------------------- p90 and budgets */

/* Ten replications of 10 to 19 h: the p90 bill is the type-7 percentile of their bills. */
static void p90_and_budget_flags_follow_the_replication_bills(void **state)
{
    (void)state;
    struct ts_job job;
    struct ts_iteration it;
    struct ts_run_result run;
    struct ts_cost_result r;
    struct ts_err err;
    small_setup(&job, &it, &run);
    double samples[10];
    for (int i = 0; i < 10; i++)
        samples[9 - i] = (10.0 + i) * HOUR;
    int rc = price(&job, &it, &run, samples, 10, &r, &err);
    assert_ok(rc, err);
    /* The bills grow with the wall time, so the p90 bill lies between the bills of the 9th
     * and 10th walls (18 h and 19 h), 0.1 of the way: at the p90 wall 18.1 h if linear. A
     * wall-only run (no samples) at p90_s = 18.1 h gives that bill. */
    struct ts_cost_result at;
    run.p90_s = 18.1 * HOUR;
    rc = price(&job, &it, &run, NULL, 0, &at, &err);
    assert_ok(rc, err);
    assert_close(r.p90_usd, at.p90_usd, 1e-3, 0.0);
    assert_true(r.p90_usd > r.total_usd);
    print_message("expected %.2f, p90 %.2f USD\n", r.total_usd, r.p90_usd);

    /* Budget between the two: only the p90 is over. */
    job.cost.budget = 0.5 * (r.total_usd + r.p90_usd);
    rc = price(&job, &it, &run, samples, 10, &r, &err);
    assert_ok(rc, err);
    assert_true(r.budget_set);
    assert_false(r.over_budget_expected);
    assert_true(r.over_budget_p90);
    /* Below both. */
    job.cost.budget = 0.5 * r.total_usd;
    rc = price(&job, &it, &run, samples, 10, &r, &err);
    assert_ok(rc, err);
    assert_true(r.over_budget_expected);
    assert_true(r.over_budget_p90);
    /* Above both. */
    job.cost.budget = 2.0 * r.p90_usd;
    rc = price(&job, &it, &run, samples, 10, &r, &err);
    assert_ok(rc, err);
    assert_true(r.budget_set);
    assert_false(r.over_budget_expected);
    assert_false(r.over_budget_p90);
}

/* ---------------------------------------------------------------- runs without a run */

static void without_a_run_the_bill_is_the_failure_free_run(void **state)
{
    (void)state;
    struct ts_job job;
    struct ts_iteration it;
    struct ts_run_result run;
    struct ts_cost_result r;
    struct ts_err err;
    small_setup(&job, &it, &run);
    int rc = price(&job, &it, NULL, NULL, 0, &r, &err);
    assert_ok(rc, err);
    /* 9 h: 16 GPUs + 8 spare GPUs, no incidents, no checkpoints. */
    assert_close(r.breakdown_usd[TS_COST_COMPUTE], 16 * 9 * 4.10, 1e-12, 0.0);
    assert_close(r.breakdown_usd[TS_COST_OPERATIONS], 0.0, 0.0, 0.0);
    assert_close(r.breakdown_usd[TS_COST_STORAGE_CHECKPOINTS], 0.0, 0.0, 0.0);
    assert_close(r.p90_usd, r.total_usd, 0.0, 0.0);
    assert_close(r.gpu_hours[TS_GPUH_REWORK], 0.0, 0.0, 0.0);
    assert_close(r.gpu_hours[TS_GPUH_DATA_STALL], 144.0 * 0.2, 1e-12, 0.0);
    assert_close(r.gpu_hours_billed, 24.0 * 9.0, 1e-12, 0.0);
}

static void without_training_one_hour_is_billed_per_the_tokens_of_that_hour(void **state)
{
    (void)state;
    struct ts_job job;
    struct ts_iteration it;
    struct ts_run_result run;
    struct ts_cost_result r;
    struct ts_err err;
    small_setup(&job, &it, &run);
    job.has_training = false;
    it.iterations = 0.0;
    it.time_to_train_s = 0.0;
    int rc = price(&job, &it, &run, NULL, 0, &r, &err);   // the run is ignored
    assert_ok(rc, err);
    assert_close(r.breakdown_usd[TS_COST_COMPUTE], 16 * 4.10, 1e-12, 0.0);
    assert_close(r.breakdown_usd[TS_COST_OPERATIONS], 0.0, 0.0, 0.0);
    assert_close(r.per_million_tokens_usd, r.total_usd / (1600.0 * 3600.0 / 1e6), 1e-12, 0.0);
    /* 360 steps in the hour: 1 GiB x 16 x 360 over the NICs. */
    assert_close(r.nic_bytes_total, 16.0 * 360.0 * GIB, 1e-12, 0.0);
}

static void a_missing_price_at_billing_time_is_an_input_error(void **state)
{
    (void)state;
    struct ts_job job;
    struct ts_iteration it;
    struct ts_run_result run;
    struct ts_cost_result r;
    struct ts_err err;
    small_setup(&job, &it, &run);
    job.cost.pricing = TS_PRICING_SPOT;                 // as a sweep may set it
    job.cost.spare_pricing = TS_PRICING_SPOT;
    int rc = price(&job, &it, &run, NULL, 0, &r, &err);
    assert_input_error(rc, &err, "cost.gpu_hour.spot: no price for \"pricing\": \"spot\"");
    job.cost.pricing = TS_PRICING_ON_DEMAND;
    rc = price(&job, &it, &run, NULL, 0, &r, &err);
    assert_input_error(rc, &err, "cost.gpu_hour.spot: no price for the hot spares'");
    job.reliability.spares = 0;                         // no spares, no spare price needed
    rc = price(&job, &it, &run, NULL, 0, &r, &err);
    assert_ok(rc, err);
}

/* ---------------------------------------------------------------- data loader */

static void loader_time_is_the_iteration_bytes_over_the_hosts_throughput(void **state)
{
    (void)state;
    struct ts_job job;
    struct ts_iteration it;
    struct ts_run_result run;
    small_setup(&job, &it, &run);
    double hosts;
    /* 16 x 1000 tokens x 5000 B = 80 MB per iteration at 8 MB/s on one host. */
    assert_close(ts_cost_loader_time(&job, &hosts), 10.0, 1e-15, 0.0);
    assert_close(hosts, 1.0, 0.0, 0.0);
    job.cost.loader_hosts = 4;
    assert_close(ts_cost_loader_time(&job, &hosts), 2.5, 1e-15, 0.0);
    assert_close(hosts, 4.0, 0.0, 0.0);
    /* "auto": no cap; the bill sizes the hosts to the GPUs' rate: 1600 tok/s x 5000 B =
     * 8 MB/s -> 1 host; at 1601 tok/s, 2. */
    job.cost.loader_hosts = 0;
    assert_close(ts_cost_loader_time(&job, &hosts), 0.0, 0.0, 0.0);
    assert_close(hosts, 0.0, 0.0, 0.0);
    struct ts_cost_result r;
    struct ts_err err;
    int rc = price(&job, &it, &run, NULL, 0, &r, &err);
    assert_ok(rc, err);
    assert_close(r.loader_hosts, 1.0, 0.0, 0.0);
    it.tokens_per_s = 1601.0;
    rc = price(&job, &it, &run, NULL, 0, &r, &err);
    assert_ok(rc, err);
    assert_close(r.loader_hosts, 2.0, 0.0, 0.0);
    assert_close(r.breakdown_usd[TS_COST_DATA_PIPELINE], 2 * 10 * 0.5, 1e-12, 0.0);
    /* No loader model: nothing. */
    job.cost.data_bytes_per_token = 0.0;
    assert_close(ts_cost_loader_time(&job, &hosts), 0.0, 0.0, 0.0);
    job.has_cost = false;
    job.cost.data_bytes_per_token = 5000.0;
    job.cost.loader_hosts = 1;
    assert_close(ts_cost_loader_time(&job, &hosts), 0.0, 0.0, 0.0);
}

#define TINY_MODEL \
    "{\"name\": \"tiny\", \"layers\": 8, \"hidden\": 512, \"heads\": 32, \"vocab\": 1000, " \
    "\"seq_len\": 1024}"

#define TOY_SYSTEM                                                                              \
    "{\"name\": \"toy-sys\", \"accelerator\": {\"name\": \"toy-gpu\", \"peak_flops\": "         \
    "{\"bf16\": \"100 TFLOP/s\"}, \"memory\": \"16 GiB\", \"memory_bandwidth\": \"1 TB/s\", "   \
    "\"gemm_efficiency\": [[1e9, 0.3], [1e12, 0.8]]}, \"gpus_per_node\": 8, "                   \
    "\"scale_up\": {\"bandwidth\": \"300 GB/s\", \"latency\": \"2 us\", \"domain_size\": 8}, "  \
    "\"scale_out\": {\"bandwidth\": \"400 Gb/s\", \"latency\": \"5 us\"}}"

static void evaluate_job(const char *cost, struct ts_job *job, struct ts_iteration *it)
{
    struct ts_buf b;
    ts_buf_init(&b);
    ts_buf_printf(&b, "{\"model\": " TINY_MODEL ", \"system\": " TOY_SYSTEM ", \"gpus\": 8, "
                  "\"global_batch\": 16, \"parallel\": {\"tp\": 2, \"pp\": 2}, "
                  "\"training\": {\"tokens\": 1e9}%s%s}", cost[0] ? ", \"cost\": " : "", cost);
    cJSON *doc = ts_test_json(b.data);
    ts_buf_free(&b);
    struct ts_jnode root = ts_jnode_root(doc, "test.json");
    struct ts_err err;
    ts_err_clear(&err);
    int rc = ts_job_parse(&root, NULL, job, &err);
    cJSON_Delete(doc);
    assert_ok(rc, err);
    struct ts_eval_scratch s;
    assert_int_equal(ts_eval_scratch_init(&s), 0);
    ts_step_evaluate(job, TS_METHOD_DISCRETE_EVENT, &s, it, NULL, NULL);
    ts_eval_scratch_free(&s);
}

/* A loader slower than the step caps the iteration; the stall shows, the rates follow. */
static void a_slow_loader_caps_the_iteration_and_shows_as_stall(void **state)
{
    (void)state;
    struct ts_job job;
    struct ts_iteration free_it, fast, slow;
    evaluate_job("", &job, &free_it);
    assert_true(free_it.feasible);
    assert_close(free_it.data_stall_s, 0.0, 0.0, 0.0);
    double step = free_it.iteration_s, tokens = 16.0 * 1024.0;

    /* A loader twice as fast as the GPUs: no stall. */
    char cost[512];
    snprintf(cost, sizeof cost, "{\"gpu_hour\": {\"on_demand\": 1}, \"data\": {\"bytes_per_token\": "
             "1000, \"loader_throughput\": %.17g, \"hosts\": 1}}", 2.0 * tokens * 1000.0 / step);
    evaluate_job(cost, &job, &fast);
    assert_close(fast.iteration_s, step, 1e-15, 0.0);
    assert_close(fast.data_stall_s, 0.0, 0.0, 0.0);

    /* Half as fast: the iteration takes the loader's 2 x step; stall = step. */
    snprintf(cost, sizeof cost, "{\"gpu_hour\": {\"on_demand\": 1}, \"data\": {\"bytes_per_token\": "
             "1000, \"loader_throughput\": %.17g, \"hosts\": 1}}", 0.5 * tokens * 1000.0 / step);
    evaluate_job(cost, &job, &slow);
    assert_close(slow.iteration_s, 2.0 * step, 1e-12, 0.0);
    assert_close(slow.data_stall_s, step, 1e-12, 0.0);
    assert_close(slow.step.iteration_s, free_it.step.iteration_s, 1e-15, 0.0);
    assert_close(slow.sync_wait_s, free_it.sync_wait_s, 1e-15, 0.0);
    assert_close(slow.tokens_per_s, 0.5 * free_it.tokens_per_s, 1e-12, 0.0);
    assert_close(slow.mfu, 0.5 * free_it.mfu, 1e-12, 0.0);
    assert_close(slow.time_to_train_s, 2.0 * free_it.time_to_train_s, 1e-12, 0.0);
}

/* ---------------------------------------------------------------- spot vs on-demand */

/*
 * 2 nodes x 8 GPUs train for 100 h of compute (36,000 iterations of 10 s) with a software
 * failure every 500 h, 300 GB checkpoints (150 s at 2 x 1 GB/s: longer than the 120 s spot
 * notice, so a preemption loses the work since the last checkpoint), Daly-optimal interval,
 * restart 10 min + reload, 10 min to get spot capacity back. Spot costs 0.35 x on-demand.
 * Raising the preemption rate stretches the spot run until it costs more than on-demand.
 */
#define CROSS_OD 4.0
#define CROSS_SPOT (0.35 * CROSS_OD)
#define CROSS_REPLICATIONS 200

/* Expected bill; node_preemption_mtbf_s == 0: on-demand, else spot at that rate. */
static double crossover_bill(double node_preemption_mtbf_s)
{
    struct ts_job job;
    struct ts_iteration it;
    struct ts_run_result dummy;
    small_setup(&job, &it, &dummy);
    memset(&job.cost, 0, sizeof job.cost);
    ts_cost_config_defaults(&job.cost);
    job.cost.gpu_hour[TS_PRICING_ON_DEMAND] = CROSS_OD;
    job.cost.gpu_hour[TS_PRICING_SPOT] = CROSS_SPOT;
    job.cost.pricing = node_preemption_mtbf_s > 0.0 ? TS_PRICING_SPOT : TS_PRICING_ON_DEMAND;
    job.cost.spare_pricing = job.cost.pricing;
    it.data_stall_s = 0.0;
    it.iterations = 36000.0;
    it.time_to_train_s = 36000.0 * it.iteration_s;
    job.training.tokens = 36000.0 * 16000.0;

    struct ts_reliability *rel = &job.reliability;
    ts_reliability_defaults(rel);
    rel->n_failures = 1;
    rel->failures[0] = (struct ts_failure_process){TS_COMP_JOB, 500.0 * HOUR,
                                                   TS_DIST_EXPONENTIAL, 1.0, "software", 0.0};
    rel->repair_time_s = 0.0;
    rel->replications = CROSS_REPLICATIONS;
    rel->seed = 11;
    if (node_preemption_mtbf_s > 0.0) {
        rel->spot.enabled = true;
        rel->spot.preemption_mtbf_s = node_preemption_mtbf_s;
    }
    struct ts_run_input in;
    memset(&in, 0, sizeof in);
    in.iteration_s = it.iteration_s;
    in.iterations = it.iterations;
    in.gpus = job.gpus;
    in.nodes = job.nodes;
    in.gpus_per_node = job.system.gpus_per_node;
    in.dp = job.parallel.dp;
    in.checkpoint_bytes = 300e9;
    in.rel = *rel;
    struct ts_run_result run;
    struct ts_err err;
    ts_err_clear(&err);
    double samples[CROSS_REPLICATIONS];
    int rc = ts_run_simulate(&in, &run, samples, NULL, &err);
    assert_ok(rc, err);
    struct ts_cost_input ci = {&job, &it, &run, samples, CROSS_REPLICATIONS, 300e9};
    struct ts_cost_result r;
    rc = ts_cost_compute(&ci, &r, &err);
    assert_ok(rc, err);
    return r.total_usd;
}

static void rising_spot_preemption_rate_makes_on_demand_the_cheaper_choice(void **state)
{
    (void)state;
    skip_when_slow();
    double od = crossover_bill(0.0);
    /* Bracket in log(node preemption MTBF): spot cheaper at 50 h, on-demand at 0.5 h. */
    double lo = log(0.5 * HOUR), hi = log(50.0 * HOUR);
    assert_true(crossover_bill(exp(hi)) < od);
    assert_true(crossover_bill(exp(lo)) > od);
    for (int i = 0; i < 14; i++) {
        double mid = 0.5 * (lo + hi);
        if (crossover_bill(exp(mid)) > od)
            lo = mid;
        else
            hi = mid;
    }
    double cross = exp(0.5 * (lo + hi));
    print_message("on-demand %.2f USD; crossover at a node preemption MTBF of %.3f h (%.3g "
                  "preemptions per node-hour)\n", od, cross / HOUR, HOUR / cross);
    /* Half the crossover rate: spot is cheaper; twice the rate: on-demand is. */
    double at_half = crossover_bill(2.0 * cross), at_twice = crossover_bill(0.5 * cross);
    print_message("spot at half the rate %.2f USD, at twice the rate %.2f USD\n", at_half,
                  at_twice);
    assert_true(at_half < od);
    assert_true(at_twice > od);
}

/* ---------------------------------------------------------------- bad inputs */

static void negative_prices_are_rejected_with_path_and_value(void **state)
{
    (void)state;
    struct ts_cost_config c;
    struct ts_err err;
    int rc = parse_cost("{\"gpu_hour\": {\"on_demand\": -4.1}}", &c, &err);
    assert_input_error(rc, &err, "test.json: cost.gpu_hour.on_demand: -4.1 must not be negative");
    rc = parse_cost("{\"gpu_hour\": {\"on_demand\": 4}, \"storage\": {\"price_gb_month\": "
                    "{\"warm\": -0.01}}}", &c, &err);
    assert_input_error(rc, &err, "test.json: cost.storage.price_gb_month.warm: -0.01 must not be negative");
    rc = parse_cost("{\"gpu_hour\": {\"on_demand\": 4}, \"network\": {\"egress_gb\": -1}}", &c, &err);
    assert_input_error(rc, &err, "test.json: cost.network.egress_gb: -1 must not be negative");
    rc = parse_cost("{\"gpu_hour\": {\"on_demand\": 4}, \"budget\": -5}", &c, &err);
    assert_input_error(rc, &err, "test.json: cost.budget: -5 must not be negative");
}

static void unknown_tiers_and_pricings_are_rejected_with_the_choices(void **state)
{
    (void)state;
    struct ts_cost_config c;
    struct ts_err err;
    int rc = parse_cost("{\"gpu_hour\": {\"on_demand\": 4}, \"storage\": {\"dataset\": "
                        "{\"size\": \"1 TB\", \"tier\": \"tepid\"}}}", &c, &err);
    assert_input_error(rc, &err, "test.json: cost.storage.dataset.tier: \"tepid\" is not one of "
                                 "\"hot\" | \"warm\" | \"cold\"");
    rc = parse_cost("{\"gpu_hour\": {\"on_demand\": 4}, \"storage\": {\"price_gb_month\": "
                    "{\"frozen\": 0.001}}}", &c, &err);
    assert_input_error(rc, &err, "test.json: cost.storage.price_gb_month.frozen: unknown key");
    rc = parse_cost("{\"pricing\": \"preemptible\", \"gpu_hour\": {\"on_demand\": 4}}", &c, &err);
    assert_input_error(rc, &err, "test.json: cost.pricing: \"preemptible\" is not one of "
                                 "\"on_demand\" | \"reserved\" | \"spot\"");
}

static void retention_or_tier_without_a_size_is_rejected(void **state)
{
    (void)state;
    struct ts_cost_config c;
    struct ts_err err;
    int rc = parse_cost("{\"gpu_hour\": {\"on_demand\": 4}, \"storage\": {\"logs\": "
                        "{\"retention\": \"30 d\"}}}", &c, &err);
    assert_input_error(rc, &err, "test.json: cost.storage.logs.retention: logs are kept 30");
    assert_non_null(strstr(err.msg, "bytes_per_step_per_node is 0"));
    rc = parse_cost("{\"gpu_hour\": {\"on_demand\": 4}, \"storage\": {\"logs\": "
                    "{\"retention\": \"30 d\", \"bytes_per_step_per_node\": 0}}}", &c, &err);
    assert_input_error(rc, &err, "test.json: cost.storage.logs.retention");
    rc = parse_cost("{\"gpu_hour\": {\"on_demand\": 4}, \"storage\": {\"dataset\": "
                    "{\"tier\": \"cold\"}}}", &c, &err);
    assert_input_error(rc, &err, "test.json: cost.storage.dataset.tier: \"cold\" is given but "
                                 "the dataset has no size");
    rc = parse_cost("{\"gpu_hour\": {\"on_demand\": 4}, \"data\": {\"bytes_per_token\": 4}}",
                    &c, &err);
    assert_input_error(rc, &err, "test.json: cost.data.loader_throughput: required with "
                                 "data.bytes_per_token");
    rc = parse_cost("{\"gpu_hour\": {\"on_demand\": 4}, \"data\": {\"hosts\": 3}}", &c, &err);
    assert_input_error(rc, &err, "test.json: cost.data.hosts: 3 loader hosts but "
                                 "data.bytes_per_token is 0");
    rc = parse_cost("{\"gpu_hour\": {\"on_demand\": 4}, \"storage\": {\"tier_after\": "
                    "{\"warm\": \"60 d\", \"cold\": \"30 d\"}}}", &c, &err);
    assert_input_error(rc, &err, "test.json: cost.storage.tier_after.cold: 30");
}

static void a_pricing_without_its_price_is_rejected_naming_the_key(void **state)
{
    (void)state;
    struct ts_cost_config c;
    struct ts_err err;
    int rc = parse_cost("{\"pricing\": \"spot\", \"gpu_hour\": {\"on_demand\": 4.1}}", &c, &err);
    assert_input_error(rc, &err, "test.json: cost.gpu_hour.spot: no price for \"pricing\": \"spot\"");
    rc = parse_cost("{}", &c, &err);
    assert_input_error(rc, &err, "test.json: cost.gpu_hour.on_demand: no price");
    rc = parse_cost("{\"gpu_hour\": {\"on_demand\": 4.1}, \"spare_pricing\": \"reserved\"}", &c,
                    &err);
    assert_input_error(rc, &err, "test.json: cost.gpu_hour.reserved: no price for "
                                 "\"spare_pricing\": \"reserved\"");
    rc = parse_cost("{\"gpu_hour\": {\"spot\": 1.2}, \"node_hour\": {\"spot\": 9.6}, "
                    "\"pricing\": \"spot\"}", &c, &err);
    assert_input_error(rc, &err, "test.json: cost.node_hour.spot: spot is priced twice");
    /* A node-hour price is a price. */
    rc = parse_cost("{\"pricing\": \"spot\", \"node_hour\": {\"spot\": 9.6}}", &c, &err);
    assert_ok(rc, err);
    assert_close(c.node_hour[TS_PRICING_SPOT], 9.6, 0.0, 0.0);
    assert_int_equal(c.spare_pricing, TS_PRICING_SPOT);
}

static void unknown_cost_keys_are_rejected_with_path(void **state)
{
    (void)state;
    struct ts_cost_config c;
    struct ts_err err;
    int rc = parse_cost("{\"gpu_hour\": {\"on_demand\": 4}, \"budjet\": 100}", &c, &err);
    assert_input_error(rc, &err, "test.json: cost.budjet: unknown key (allowed here: prices, pricing");
    rc = parse_cost("{\"gpu_hour\": {\"on_demand\": 4, \"preemptible\": 1}}", &c, &err);
    assert_input_error(rc, &err, "test.json: cost.gpu_hour.preemptible: unknown key");
    rc = parse_cost("{\"gpu_hour\": {\"on_demand\": 4}, \"network\": {\"egres\": 1}}", &c, &err);
    assert_input_error(rc, &err, "test.json: cost.network.egres: unknown key");
    rc = parse_cost("{\"gpu_hour\": {\"on_demand\": 4}, \"operations\": {\"rate\": 1}}", &c, &err);
    assert_input_error(rc, &err, "test.json: cost.operations.rate: unknown key");
    rc = parse_cost("{\"gpu_hour\": {\"on_demand\": 4}, \"storage\": {\"logs\": {\"size\": 1}}}",
                    &c, &err);
    assert_input_error(rc, &err, "test.json: cost.storage.logs.size: unknown key");
}

static void a_job_file_with_a_bad_cost_section_names_the_file_and_path(void **state)
{
    (void)state;
    struct ts_job job;
    struct ts_buf b;
    ts_buf_init(&b);
    ts_buf_printf(&b, "{\"model\": " TINY_MODEL ", \"system\": " TOY_SYSTEM ", \"gpus\": 8, "
                  "\"global_batch\": 16, \"cost\": {\"pricing\": \"spot\", \"gpu_hour\": "
                  "{\"on_demand\": 4}}}");
    cJSON *doc = ts_test_json(b.data);
    ts_buf_free(&b);
    struct ts_jnode root = ts_jnode_root(doc, "configs/job.json");
    struct ts_err err;
    ts_err_clear(&err);
    int rc = ts_job_parse(&root, NULL, &job, &err);
    cJSON_Delete(doc);
    assert_input_error(rc, &err, "configs/job.json: cost.gpu_hour.spot: no price");
}

/* ---------------------------------------------------------------- price files */

#define NO ((double)NAN)
static const struct {
    const char *name;
    double on_demand, reserved, spot;       // NO = not offered
} shipped[] = {
    {"aws-p4d-2024-09", 4.10, 1.84, 1.16},  {"aws-p4de-2024-09", 5.12, NO, NO},
    {"aws-p5-2023", 12.29, 4.92, NO},       {"aws-p5en-2026-08", 7.91, 5.41, 3.36},
    {"lambda-h100", 3.99, NO, NO},          {"lambda-a100", 2.79, NO, NO},
    {"lambda-b200", 6.69, NO, NO},          {"coreweave-h100-2025", 6.16, NO, NO},
    {"coreweave-a100-2025", 2.70, NO, NO},
};

/* A price as stated, or absent (NO) in both. */
#define assert_price(actual, expected)                                     \
    do {                                                                   \
        if (isnan(expected))                                               \
            assert_true(isnan(actual));                                    \
        else                                                               \
            assert_close((actual), (expected), 0.0, 0.0);                  \
    } while (0)

static void shipped_price_files_parse_and_their_prices_land_in_the_config(void **state)
{
    (void)state;
    for (size_t i = 0; i < TS_ARRAY_LEN(shipped); i++) {
        char text[256], expect[128];
        snprintf(text, sizeof text, "{\"prices\": \"%s\"}", shipped[i].name);
        struct ts_cost_config c;
        struct ts_err err;
        int rc = parse_cost(text, &c, &err);
        assert_ok(rc, err);
        assert_price(c.gpu_hour[TS_PRICING_ON_DEMAND], shipped[i].on_demand);
        assert_price(c.gpu_hour[TS_PRICING_RESERVED], shipped[i].reserved);
        assert_price(c.gpu_hour[TS_PRICING_SPOT], shipped[i].spot);
        snprintf(expect, sizeof expect, "configs/prices/%s.json (", shipped[i].name);
        if (strncmp(c.price_source, expect, strlen(expect)) != 0) {
            print_error("price_source \"%s\" does not start with \"%s\"\n", c.price_source, expect);
            fail();
        }
        assert_non_null(strstr(c.price_source, "prices.md"));
        /* Long sources are cut visibly, never mid-word without a mark. */
        size_t len = strlen(c.price_source);
        assert_true(len < sizeof c.price_source && c.price_source[len - 1] == ')');
    }
    /* The AWS files carry the S3 tiers and transfer prices of the reference. */
    struct ts_cost_config c;
    struct ts_err err;
    int rc = parse_cost("{\"prices\": \"aws-p5en-2026-08\", \"pricing\": \"spot\"}", &c, &err);
    assert_ok(rc, err);
    assert_int_equal(c.pricing, TS_PRICING_SPOT);
    assert_close(c.storage_gb_month[TS_TIER_HOT], 0.023, 0.0, 0.0);
    assert_close(c.storage_gb_month[TS_TIER_WARM], 0.0125, 0.0, 0.0);
    assert_close(c.storage_gb_month[TS_TIER_COLD], 0.0036, 0.0, 0.0);
    assert_close(c.egress_gb, 0.09, 0.0, 0.0);
    assert_close(c.cross_region_gb, 0.02, 0.0, 0.0);
    assert_non_null(strstr(c.price_source, "configs/prices/aws-p5en-2026-08.json (2026-08"));
    /* A pricing the file does not offer is an error naming the job's key. */
    rc = parse_cost("{\"prices\": \"lambda-h100\", \"pricing\": \"spot\"}", &c, &err);
    assert_input_error(rc, &err, "test.json: cost.gpu_hour.spot: no price");
}

/* The dated price files of 2026: each per-GPU price is the page's instance price over its 8
 * GPUs (or the page's per-GPU price), each file's date starts with the YYYY-MM of its name,
 * and its source names the page (an address), not the shared reference. */
static const struct {
    const char *name;
    double on_demand, reserved, spot;       // NO = not offered
    const char *page;                       // part of the cited address
} dated[] = {
    {"aws-p5-2026-11", 55.04 / 8, 39.33 / 8, NO, "datareceipts"},
    {"aws-p4d-2026-11", 21.957642 / 8, 14.75 / 8, NO, "aws.amazon.com/ec2/capacityblocks"},
    {"aws-p4de-2026-11", 27.44705 / 8, NO, NO, "hyperscalers.json"},
    {"azure-nd-h100-v5-2026-11", 98.32 / 8, NO, NO, "datareceipts"},
    {"gcp-a3-ultra-2026-10", 10.4365, NO, 6.2607, "Billing Catalog API"},
    {"lambda-h100-2026-09", 3.99, NO, NO, "lambda.ai/instances"},
    {"lambda-a100-2026-09", 2.79, NO, NO, "lambda.ai/instances"},
    {"lambda-b200-2026-09", 6.69, NO, NO, "lambda.ai/instances"},
    {"coreweave-h100-2026-09", 49.24 / 8, NO, 19.71 / 8, "coreweave.com/pricing"},
    {"coreweave-h200-2026-09", 50.44 / 8, NO, 20.93 / 8, "coreweave.com/pricing"},
    {"coreweave-b200-2026-09", 68.80 / 8, NO, 34.11 / 8, "coreweave.com/pricing"},
    {"coreweave-a100-2026-09", 21.60 / 8, NO, 9.65 / 8, "coreweave.com/pricing"},
    /* SkyPilot catalogue rows (tests/data/skypilot has them): AWS p5e has no on-demand Price;
     * Google Cloud bills the VM row plus the GPU row of its zone. */
    {"aws-p5e-2026-12", NO, 43.26 / 8, 18.7359 / 8, "skypilot-catalog"},
    {"aws-p6-b200-2026-12", 113.9328 / 8, NO, 21.0148 / 8, "skypilot-catalog"},
    {"gcp-a3-high-2026-12", (9.46006 + 78.37241) / 8, NO, (2.15966 + 17.8848) / 8,
     "skypilot-catalog"},
    {"gcp-a3-mega-2026-12", (9.46006 + 82.75421) / 8, NO, (2.88933 + 25.2808) / 8,
     "skypilot-catalog"},
    {"gcp-a4-2026-12", (0.0 + 90.216) / 8, NO, (0.0 + 32.6064) / 8, "skypilot-catalog"},
};

static void dated_price_files_carry_the_prices_their_pages_state(void **state)
{
    (void)state;
    for (size_t i = 0; i < TS_ARRAY_LEN(dated); i++) {
        char text[256], expect[160];
        struct ts_cost_config c;
        struct ts_err err;
        int rc;
        if (isnan(dated[i].on_demand)) {
            /* No on-demand offer: the default pricing has no price, a job must choose one. */
            snprintf(text, sizeof text, "{\"prices\": \"%s\"}", dated[i].name);
            rc = parse_cost(text, &c, &err);
            assert_input_error(rc, &err, "test.json: cost.gpu_hour.on_demand: no price");
            snprintf(text, sizeof text, "{\"prices\": \"%s\", \"pricing\": \"spot\"}",
                     dated[i].name);
        } else {
            snprintf(text, sizeof text, "{\"prices\": \"%s\"}", dated[i].name);
        }
        rc = parse_cost(text, &c, &err);
        assert_ok(rc, err);
        /* 1e-12: the file states the quotient the page's instance price gives. */
        double got[3] = {c.gpu_hour[TS_PRICING_ON_DEMAND], c.gpu_hour[TS_PRICING_RESERVED],
                         c.gpu_hour[TS_PRICING_SPOT]};
        double want[3] = {dated[i].on_demand, dated[i].reserved, dated[i].spot};
        for (int p = 0; p < 3; p++) {
            if (isnan(want[p]))
                assert_true(isnan(got[p]));
            else
                assert_close(got[p], want[p], 1e-12, 0.0);
        }
        size_t n = strlen(dated[i].name);
        snprintf(expect, sizeof expect, "configs/prices/%s.json (%s", dated[i].name,
                 dated[i].name + n - 7);   /* the name's YYYY-MM opens the date */
        if (strncmp(c.price_source, expect, strlen(expect)) != 0) {
            print_error("price_source \"%s\" does not start with \"%s\"\n", c.price_source, expect);
            fail();
        }
        assert_non_null(strstr(c.price_source, "https://"));
        assert_non_null(strstr(c.price_source, dated[i].page));
    }
}

/* Every file in configs/prices loads through the real parser (its date, source and keys within
 * the loader's limits) for each pricing it offers: a pricing it does not offer is refused with
 * the missing-price message, never another error, and every file offers at least one. */
static void every_shipped_price_file_loads_for_each_pricing_it_offers(void **state)
{
    (void)state;
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/configs/prices", ts_spec_home());
    DIR *d = opendir(dir);
    assert_non_null(d);
    int files = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len <= 5 || e->d_name[0] == '.' || strcmp(e->d_name + len - 5, ".json") != 0)
            continue;
        char name[TS_NAME_MAX];
        assert_true(len - 5 < sizeof name);
        memcpy(name, e->d_name, len - 5);
        name[len - 5] = '\0';
        files++;
        int offered = 0;
        for (int p = 0; p < TS_PRICING_COUNT; p++) {
            char text[256], missing[96];
            snprintf(text, sizeof text, "{\"prices\": \"%s\", \"pricing\": \"%s\"}", name,
                     ts_pricing_names[p]);
            struct ts_cost_config c;
            struct ts_err err;
            int rc = parse_cost(text, &c, &err);
            if (rc == TS_OK) {
                offered++;
                assert_true(ts_cost_config_has_price(&c, (enum ts_pricing)p));
                continue;
            }
            snprintf(missing, sizeof missing, "cost.gpu_hour.%s: no price", ts_pricing_names[p]);
            if (!strstr(err.msg, missing)) {
                print_error("%s with pricing %s: %s\n", name, ts_pricing_names[p], err.msg);
                fail();
            }
        }
        if (offered == 0) {
            print_error("%s offers no pricing\n", name);
            fail();
        }
    }
    closedir(d);
    assert_true(files >= 26);   /* the files the README's tables list */
}

/* Each provider's storage and transfer prices, as its pages state them: Google Cloud Storage
 * quotes per GiB-hour (x 730 h a month, to the quote's 5 digits), CoreWeave tiers object
 * storage by last access (7 and 30 days) and charges no egress, Lambda bills one filesystem
 * tier and no egress, Azure internet egress ~0.087/GB (no Blob price found: the defaults). */
static void provider_price_files_carry_that_providers_storage_and_transfer(void **state)
{
    (void)state;
    struct ts_cost_config c;
    struct ts_err err;
    int rc = parse_cost("{\"prices\": \"gcp-a3-ultra-2026-10\"}", &c, &err);
    assert_ok(rc, err);
    assert_close(c.storage_gb_month[TS_TIER_HOT], 0.000027397 * 730, 1e-4, 0.0);
    assert_close(c.storage_gb_month[TS_TIER_WARM], 0.000013699 * 730, 1e-4, 0.0);
    assert_close(c.storage_gb_month[TS_TIER_COLD], 0.000005479 * 730, 1e-4, 0.0);
    assert_close(c.egress_gb, 0.12, 0.0, 0.0);
    assert_close(c.tier_after_s[TS_TIER_WARM], 30.0 * DAY, 0.0, 0.0);   // Nearline minimum
    assert_close(c.tier_after_s[TS_TIER_COLD], 90.0 * DAY, 0.0, 0.0);   // Coldline minimum

    rc = parse_cost("{\"prices\": \"coreweave-h100-2026-09\"}", &c, &err);
    assert_ok(rc, err);
    assert_close(c.storage_gb_month[TS_TIER_HOT], 0.06, 0.0, 0.0);
    assert_close(c.storage_gb_month[TS_TIER_WARM], 0.03, 0.0, 0.0);
    assert_close(c.storage_gb_month[TS_TIER_COLD], 0.015, 0.0, 0.0);
    assert_close(c.tier_after_s[TS_TIER_WARM], 7.0 * DAY, 0.0, 0.0);
    assert_close(c.tier_after_s[TS_TIER_COLD], 30.0 * DAY, 0.0, 0.0);
    assert_close(c.egress_gb, 0.0, 0.0, 0.0);
    assert_close(c.cross_region_gb, 0.0, 0.0, 0.0);

    rc = parse_cost("{\"prices\": \"lambda-b200-2026-09\"}", &c, &err);
    assert_ok(rc, err);
    for (int t = 0; t < TS_TIER_COUNT; t++)
        assert_close(c.storage_gb_month[t], 0.20, 0.0, 0.0);
    assert_true(isinf(c.tier_after_s[TS_TIER_WARM]) && isinf(c.tier_after_s[TS_TIER_COLD]));
    assert_close(c.egress_gb, 0.0, 0.0, 0.0);
    assert_close(c.cross_region_gb, 0.0, 0.0, 0.0);

    rc = parse_cost("{\"prices\": \"azure-nd-h100-v5-2026-11\"}", &c, &err);
    assert_ok(rc, err);
    assert_close(c.egress_gb, 0.087, 0.0, 0.0);
    /* The AWS files keep the S3 prices of the reference. */
    rc = parse_cost("{\"prices\": \"aws-p5-2026-11\"}", &c, &err);
    assert_ok(rc, err);
    assert_close(c.storage_gb_month[TS_TIER_HOT], 0.023, 0.0, 0.0);
    assert_close(c.egress_gb, 0.09, 0.0, 0.0);
}

static void job_keys_override_the_price_file_key_by_key(void **state)
{
    (void)state;
    struct ts_cost_config c;
    struct ts_err err;
    int rc = parse_cost("{\"prices\": \"aws-p4d-2024-09\", \"gpu_hour\": {\"spot\": 0.99}, "
                        "\"storage\": {\"price_gb_month\": {\"hot\": 0.145}}}", &c, &err);
    assert_ok(rc, err);
    assert_close(c.gpu_hour[TS_PRICING_SPOT], 0.99, 0.0, 0.0);
    assert_close(c.gpu_hour[TS_PRICING_ON_DEMAND], 4.10, 0.0, 0.0);    // from the file
    assert_close(c.gpu_hour[TS_PRICING_RESERVED], 1.84, 0.0, 0.0);
    assert_close(c.storage_gb_month[TS_TIER_HOT], 0.145, 0.0, 0.0);
    assert_close(c.storage_gb_month[TS_TIER_WARM], 0.0125, 0.0, 0.0);  // from the file
    assert_close(c.egress_gb, 0.09, 0.0, 0.0);
    /* A job's node_hour replaces the file's gpu_hour for that pricing. */
    rc = parse_cost("{\"prices\": \"aws-p4d-2024-09\", \"node_hour\": {\"on_demand\": 30}}", &c,
                    &err);
    assert_ok(rc, err);
    assert_true(isnan(c.gpu_hour[TS_PRICING_ON_DEMAND]));
    assert_close(c.node_hour[TS_PRICING_ON_DEMAND], 30.0, 0.0, 0.0);
}

static void price_files_resolve_by_path_relative_to_the_job(void **state)
{
    (void)state;
    char job_file[1024];
    data_path(job_file, sizeof job_file, "cost/job.json");
    struct ts_cost_config c;
    struct ts_err err;
    /* node_hour in the file, gpu_hour in the job for another pricing. */
    int rc = parse_cost_in(job_file, "{\"prices\": \"contract-prices.json\", \"pricing\": "
                           "\"reserved\", \"gpu_hour\": {\"spot\": 2}}", &c, &err);
    assert_ok(rc, err);
    assert_close(c.node_hour[TS_PRICING_RESERVED], 20.0, 0.0, 0.0);
    assert_close(c.gpu_hour[TS_PRICING_SPOT], 2.0, 0.0, 0.0);
    assert_close(c.fixed_per_hour, 12.5, 0.0, 0.0);
    assert_true(isinf(c.tier_after_s[TS_TIER_COLD]));
    assert_close(c.tier_after_s[TS_TIER_WARM], 7.0 * DAY, 0.0, 0.0);
    assert_int_equal(c.pricing, TS_PRICING_RESERVED);
    assert_string_equal(c.price_source, "contract-prices.json (2025-03, example contract: "
                                        "test data)");

    /* Errors inside a price file name that file; a missing file names the job's key. */
    rc = parse_cost_in(job_file, "{\"prices\": \"bad-prices.json\"}", &c, &err);
    assert_input_error(rc, &err, "bad-prices.json: source: required key is missing");
    rc = parse_cost_in(job_file, "{\"prices\": \"negative-prices.json\"}", &c, &err);
    assert_input_error(rc, &err, "negative-prices.json: gpu_hour.spot: -1 must not be negative");
    rc = parse_cost_in(job_file, "{\"prices\": \"no-such-file.json\"}", &c, &err);
    assert_input_error(rc, &err, "cost/job.json: cost.prices: price file \"no-such-file.json\" "
                                 "not found");
    rc = parse_cost("{\"prices\": \"no-such-cloud\"}", &c, &err);
    assert_input_error(rc, &err, "test.json: cost.prices: unknown price \"no-such-cloud\"");
    assert_non_null(strstr(err.msg, "aws-p4d-2024-09"));
    rc = parse_cost("{\"prices\": 3}", &c, &err);
    assert_input_error(rc, &err, "test.json: cost.prices: expected a price file name");
}

/* ---------------------------------------------------------------- zero prices */

static void a_zero_price_is_a_price_and_only_a_missing_one_is_no_price(void **state)
{
    (void)state;
    struct ts_cost_config c;
    struct ts_err err;
    int rc = parse_cost("{\"gpu_hour\": {\"on_demand\": 0, \"spot\": 1.5}, "
                        "\"node_hour\": {\"reserved\": 0}}", &c, &err);
    assert_ok(rc, err);
    assert_true(ts_cost_config_has_price(&c, TS_PRICING_ON_DEMAND));
    assert_true(ts_cost_config_has_price(&c, TS_PRICING_RESERVED));
    assert_true(ts_cost_config_has_price(&c, TS_PRICING_SPOT));
    assert_close(c.gpu_hour[TS_PRICING_ON_DEMAND], 0.0, 0.0, 0.0);
    rc = parse_cost("{\"pricing\": \"spot\", \"gpu_hour\": {\"spot\": 1.5}}", &c, &err);
    assert_ok(rc, err);
    assert_false(ts_cost_config_has_price(&c, TS_PRICING_ON_DEMAND));
    assert_false(ts_cost_config_has_price(&c, TS_PRICING_RESERVED));
    /* A zero price for the spares' pricing is a price too; a missing one is not. */
    rc = parse_cost("{\"gpu_hour\": {\"on_demand\": 3, \"spot\": 0}, \"spare_pricing\": \"spot\"}",
                    &c, &err);
    assert_ok(rc, err);
    rc = parse_cost("{\"gpu_hour\": {\"on_demand\": 3}, \"spare_pricing\": \"spot\"}", &c, &err);
    assert_input_error(rc, &err, "test.json: cost.gpu_hour.spot: no price for \"spare_pricing\":");
}

static void a_zero_gpu_hour_price_bills_no_compute_and_the_rest_as_usual(void **state)
{
    (void)state;
    struct ts_job job;
    struct ts_iteration it;
    struct ts_run_result run;
    struct ts_cost_result paid, free_;
    struct ts_err err;
    small_setup(&job, &it, &run);
    int rc = price(&job, &it, &run, NULL, 0, &paid, &err);
    assert_ok(rc, err);
    job.cost.gpu_hour[TS_PRICING_ON_DEMAND] = 0.0;
    rc = price(&job, &it, &run, NULL, 0, &free_, &err);
    assert_ok(rc, err);
    /* Compute is 16 GPUs x 10 h x $0 = $0 (it was 160 GPU-hours x $4.10 = $656), and so are
     * the hot spares bought the same way (80 GPU-hours: $328); every other category keeps
     * its bill, so the total drops by exactly those two. */
    assert_close(paid.breakdown_usd[TS_COST_COMPUTE], 656.0, 1e-12, 0.0);
    assert_close(paid.breakdown_usd[TS_COST_SPARES], 328.0, 1e-12, 0.0);
    assert_close(free_.breakdown_usd[TS_COST_COMPUTE], 0.0, 0.0, 0.0);
    assert_close(free_.breakdown_usd[TS_COST_SPARES], 0.0, 0.0, 0.0);
    for (int k = 0; k < TS_COST_COUNT; k++)
        if (k != TS_COST_COMPUTE && k != TS_COST_SPARES)
            assert_close(free_.breakdown_usd[k], paid.breakdown_usd[k], 0.0, 0.0);
    assert_close(free_.total_usd, paid.total_usd - 656.0 - 328.0, 1e-12, 1e-9);
    assert_close(free_.per_hour_usd, 2.0, 0.0, 0.0);        // the fixed $2/h only
    for (int g = 0; g < TS_GPUH_COUNT; g++)
        assert_close(free_.waste_usd[g], 0.0, 0.0, 0.0);
    /* Not given at all: no price, refused at billing time. */
    job.cost.gpu_hour[TS_PRICING_ON_DEMAND] = (double)NAN;
    rc = price(&job, &it, &run, NULL, 0, &free_, &err);
    assert_input_error(rc, &err, "cost.gpu_hour.on_demand: no price");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(small_run_is_billed_as_computed_by_hand_to_the_cent),
        cmocka_unit_test(node_hour_prices_divide_by_the_systems_gpus_per_node),
        cmocka_unit_test(a_zero_price_is_a_price_and_only_a_missing_one_is_no_price),
        cmocka_unit_test(a_zero_gpu_hour_price_bills_no_compute_and_the_rest_as_usual),
        cmocka_unit_test(keep_last_k_checkpoints_hold_k_spacings_each),
        cmocka_unit_test(waiting_for_the_slowest_gpu_is_attributed_as_waste),
        cmocka_unit_test(gpu_hours_and_dollars_add_up_exactly_on_random_runs),
        cmocka_unit_test(p90_and_budget_flags_follow_the_replication_bills),
        cmocka_unit_test(without_a_run_the_bill_is_the_failure_free_run),
        cmocka_unit_test(without_training_one_hour_is_billed_per_the_tokens_of_that_hour),
        cmocka_unit_test(a_missing_price_at_billing_time_is_an_input_error),
        cmocka_unit_test(loader_time_is_the_iteration_bytes_over_the_hosts_throughput),
        cmocka_unit_test(a_slow_loader_caps_the_iteration_and_shows_as_stall),
        cmocka_unit_test(rising_spot_preemption_rate_makes_on_demand_the_cheaper_choice),
        cmocka_unit_test(negative_prices_are_rejected_with_path_and_value),
        cmocka_unit_test(unknown_tiers_and_pricings_are_rejected_with_the_choices),
        cmocka_unit_test(retention_or_tier_without_a_size_is_rejected),
        cmocka_unit_test(a_pricing_without_its_price_is_rejected_naming_the_key),
        cmocka_unit_test(unknown_cost_keys_are_rejected_with_path),
        cmocka_unit_test(a_job_file_with_a_bad_cost_section_names_the_file_and_path),
        cmocka_unit_test(shipped_price_files_parse_and_their_prices_land_in_the_config),
        cmocka_unit_test(dated_price_files_carry_the_prices_their_pages_state),
        cmocka_unit_test(every_shipped_price_file_loads_for_each_pricing_it_offers),
        cmocka_unit_test(provider_price_files_carry_that_providers_storage_and_transfer),
        cmocka_unit_test(job_keys_override_the_price_file_key_by_key),
        cmocka_unit_test(price_files_resolve_by_path_relative_to_the_job),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
