/*
 * Properties that hold for every valid configuration, checked on a few hundred random ones
 * (fixed seed) drawn from the catalogue's models and systems, and on the extreme but valid
 * inputs of the hardening issue: 1 and 100,000 GPUs, 1- and 1,000-layer models, sequences of
 * 128 and 1M tokens, failure rates from zero to one per minute, zero prices. Every result is
 * finite and sensible, or the input is refused with a clear message; nothing hangs.
 *
 * Invariants: iteration time > 0 and finite; MFU and HFU in (0, 1]; bubble in [0, 1); every
 * number of the run report finite (no null where a number belongs); cost breakdown sums to
 * the total and the GPU-hour attribution to the GPU-hours billed; memory per GPU
 * non-decreasing in the microbatch (other things equal); cost non-decreasing in the GPU-hour
 * price; expected time to train >= the failure-free time.
 *
 * TS_VALGRIND=1 in the environment walks fewer configurations (the suite runs under
 * valgrind in CI).
 */
#include "test_helpers.h"

#include <ctype.h>
#include <dirent.h>
#include <strings.h>
#include <stdbool.h>

#include "cost/cost.h"
#include "report/report.h"
#include "run/run.h"
#include "spec/spec.h"
#include "step/step.h"

/* ---------------------------------------------------------------- catalogue */

#define NAMES_MAX 64

static char model_names[NAMES_MAX][TS_NAME_MAX];
static int n_models;
static char system_names[NAMES_MAX][TS_NAME_MAX];
static int n_systems;

static int list_dir(const char *sub, char names[][TS_NAME_MAX])
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/%s", ts_spec_home(), sub);
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && n < NAMES_MAX) {
        size_t len = strlen(e->d_name);
        if (len > 5 && len - 5 < TS_NAME_MAX && strcmp(e->d_name + len - 5, ".json") == 0) {
            memcpy(names[n], e->d_name, len - 5);
            names[n][len - 5] = '\0';
            n++;
        }
    }
    closedir(d);
    /* Sorted: the walk must not depend on the directory order. */
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
            char t[TS_NAME_MAX];
            memcpy(t, names[j], sizeof t);
            memcpy(names[j], names[j - 1], sizeof t);
            memcpy(names[j - 1], t, sizeof t);
        }
    return n;
}

static int setup(void **state)
{
    (void)state;
    n_models = list_dir("models", model_names);
    n_systems = list_dir("hardware/systems", system_names);
    return n_models > 0 && n_systems > 0 ? 0 : -1;
}

/* ---------------------------------------------------------------- random numbers */

static uint64_t rng_state = 20261130;

static uint64_t rnd(void)
{
    rng_state = ts_rng_mix64(rng_state);
    return rng_state;
}

static int pick(int n)
{
    return (int)(rnd() % (uint64_t)n);
}

static double uniform(void)
{
    return (double)(rnd() >> 11) / 9007199254740992.0;
}

/* A random divisor of x not above cap (1 always qualifies). */
static int pick_divisor(int x, int cap)
{
    int d[256], n = 0;
    for (int i = 1; i <= x && i <= cap && n < 256; i++)
        if (x % i == 0)
            d[n++] = i;
    return d[pick(n)];
}

/* ---------------------------------------------------------------- checks */

/* Everything one job gives: iteration, run, bill. */
struct outcome {
    struct ts_iteration it;
    bool have_run, have_cost;
    struct ts_run_result run;
    struct ts_cost_result cost;
    double memory_bytes;
};

#define assert_finite(v) ts_assert_finite((v), #v, __FILE__, __LINE__)

static void ts_assert_finite(double v, const char *expr, const char *file, int line)
{
    if (!isfinite(v)) {
        print_error("%s:%d: %s = %g is not finite\n", file, line, expr, v);
        _fail(file, line);
    }
}

/* Keys of the run report that are null by design. */
static bool null_allowed(const char *key, const struct ts_job *job)
{
    if (!key)
        return false;
    if (strcmp(key, "reason") == 0 || strcmp(key, "limit") == 0)
        return true;
    /* Nothing can fail: the job's MTBF is infinite (of the failures alone when there is no
     * failure process). */
    if (strcmp(key, "job_mtbf_failures_s") == 0 && job->reliability.n_failures == 0)
        return true;
    return strcmp(key, "job_mtbf_s") == 0 && job->reliability.n_failures == 0 &&
           !job->reliability.spot.enabled;
}

static void assert_no_null(const cJSON *o, const struct ts_job *job, const char *where)
{
    for (const cJSON *c = o->child; c; c = c->next) {
        if (cJSON_IsNull(c) && !null_allowed(c->string, job)) {
            print_error("%s: \"%s\" is null in the run report\n", where, c->string ? c->string : "?");
            fail();
        }
        if (cJSON_IsNumber(c))
            assert_finite(c->valuedouble);
        if (cJSON_IsObject(c) || cJSON_IsArray(c))
            assert_no_null(c, job, where);
    }
}

static double cost_at_price(const struct ts_job *job, const struct outcome *o, double price,
                            double ckpt)
{
    struct ts_job *j = ts_xmalloc(sizeof *j);
    *j = *job;
    j->cost.gpu_hour[j->cost.pricing] = price;
    j->cost.node_hour[j->cost.pricing] = 0;
    struct ts_cost_input ci = {j, &o->it, o->have_run ? &o->run : NULL, NULL, 0, ckpt};
    struct ts_cost_result c;
    struct ts_err err;
    int rc = ts_cost_compute(&ci, &c, &err);
    if (rc)
        print_error("%s\n", err.msg);
    assert_int_equal(rc, TS_OK);
    free(j);
    return c.total_usd;
}

/* Evaluate a validated job as `trainsim run` does and check every invariant. Returns the
 * run's status (an input error when the run cannot finish). */
static int evaluate_and_check(const struct ts_job *job, const char *what, struct outcome *o,
                              struct ts_err *err)
{
    memset(o, 0, sizeof *o);
    struct ts_eval_scratch s;
    assert_int_equal(ts_eval_scratch_init(&s), 0);
    int p = job->parallel.pp;
    double *arrays = ts_xcalloc(4 * (size_t)p, sizeof *arrays);
    struct ts_step_stages stages = {arrays, arrays + p, arrays + 2 * p};
    ts_step_evaluate(job, TS_METHOD_DISCRETE_EVENT, &s, &o->it, &stages, NULL);
    const struct ts_iteration *it = &o->it;
    if (!(it->iteration_s > 0 && isfinite(it->iteration_s))) {
        print_error("%s: iteration_s = %g\n", what, it->iteration_s);
        fail();
    }
    if (!(it->mfu > 0 && it->mfu <= 1 && it->hfu > 0 && it->hfu <= 1 && it->mfu <= it->hfu)) {
        print_error("%s: mfu %.6g, hfu %.6g\n", what, it->mfu, it->hfu);
        fail();
    }
    if (!(it->bubble_fraction >= 0 && it->bubble_fraction < 1)) {
        print_error("%s: bubble %.6g\n", what, it->bubble_fraction);
        fail();
    }
    for (int k = 0; k < p; k++) {
        struct ts_memory m;
        ts_memory_stage(job, &s.compute, k, &m);
        arrays[3 * p + k] = m.total_bytes;
        assert_finite(m.total_bytes);
        assert_true(m.total_bytes > 0);
    }
    o->memory_bytes = it->memory.total_bytes;
    double ckpt = ts_compute_checkpoint_bytes(job, &s.compute);
    assert_finite(ckpt);
    int rc = TS_OK;
    if (job->has_reliability && job->has_training) {
        struct ts_run_input in;
        memset(&in, 0, sizeof in);
        in.iteration_s = it->iteration_s;
        in.iterations = it->iterations;
        in.gpus = job->gpus;
        in.nodes = job->nodes;
        in.gpus_per_node = job->system.gpus_per_node;
        in.dp = job->parallel.dp;
        in.checkpoint_bytes = ckpt;
        in.rel = job->reliability;
        rc = ts_run_simulate(&in, &o->run, NULL, NULL, err);
        if (rc == TS_OK) {
            o->have_run = true;
            const struct ts_run_result *r = &o->run;
            assert_finite(r->mean_s);
            assert_finite(r->p90_s);
            assert_true(r->goodput > 0 && r->goodput <= 1);
            /* Expected time to train >= the failure-free time. */
            if (!(r->mean_s >= it->time_to_train_s * (1 - 1e-12))) {
                print_error("%s: expected %.17g < failure-free %.17g\n", what, r->mean_s,
                            it->time_to_train_s);
                fail();
            }
            struct ts_run_result est;
            assert_int_equal(ts_run_estimate(&in, &est, err), TS_OK);
            assert_true(est.mean_s >= it->time_to_train_s * (1 - 1e-12));
        }
    }
    if (rc == TS_OK && job->has_cost) {
        struct ts_cost_input ci = {job, it, o->have_run ? &o->run : NULL, NULL, 0, ckpt};
        rc = ts_cost_compute(&ci, &o->cost, err);
        if (rc == TS_OK) {
            o->have_cost = true;
            const struct ts_cost_result *c = &o->cost;
            double sum = 0, gh = 0;
            for (int i = 0; i < TS_COST_COUNT; i++) {
                assert_finite(c->breakdown_usd[i]);
                assert_true(c->breakdown_usd[i] >= 0);
                sum += c->breakdown_usd[i];
            }
            assert_close(sum, c->total_usd, 1e-12, 1e-9);
            for (int i = 0; i < TS_GPUH_COUNT; i++) {
                assert_finite(c->gpu_hours[i]);
                assert_true(c->gpu_hours[i] >= -1e-9 * c->gpu_hours_billed);
                gh += c->gpu_hours[i];
            }
            assert_close(gh, c->gpu_hours_billed, 1e-9, 1e-9);
            /* Cost non-decreasing in the GPU-hour price. (A zero GPU-hour price means "not
             * offered": zero_prices_give_a_finite_bill_or_say_what_is_missing.) */
            double price = ts_cost_gpu_hour_price(job, job->cost.pricing);
            double c0 = cost_at_price(job, o, 0.5 * price, ckpt);
            double c1 = cost_at_price(job, o, price, ckpt);
            double c2 = cost_at_price(job, o, 2 * price + 1, ckpt);
            assert_true(c0 >= 0 && c0 <= c1 * (1 + 1e-12) && c1 <= c2 * (1 + 1e-12));
        }
    }
    if (rc == TS_OK) {
        struct ts_run_output out = {what, job, it, &stages, arrays + 3 * p,
                                    o->have_run ? &o->run : NULL, o->have_cost ? &o->cost : NULL, NULL};
        cJSON *j = ts_report_run_json(&out);
        assert_no_null(j, job, what);
        cJSON_Delete(j);
    }
    free(arrays);
    ts_eval_scratch_free(&s);
    return rc;
}

/* Memory per GPU of the worst stage at another microbatch, the number of microbatches kept. */
static double memory_at_microbatch(const struct ts_job *job, int mb)
{
    struct ts_job *j = ts_xmalloc(sizeof *j);
    *j = *job;
    int m = job->global_batch / (job->parallel.dp * job->parallel.microbatch);
    j->parallel.microbatch = mb;
    j->global_batch = m * job->parallel.dp * mb;
    struct ts_compute *c = ts_xmalloc(sizeof *c);
    ts_compute_build(j, c);
    struct ts_memory mem;
    ts_memory_worst(j, c, &mem);
    free(c);
    free(j);
    return mem.total_bytes;
}

/* ---------------------------------------------------------------- the random walk */

/* Draw a random layout for a model on a system; fills job (validation is the caller's). */
static void draw_job(struct ts_job *job, const struct ts_model *m, const struct ts_system *sys)
{
    memset(job, 0, sizeof *job);
    job->model = *m;
    job->system = *sys;
    static const int node_counts[] = {1, 2, 4, 8, 16, 32, 64};
    job->nodes = node_counts[pick(7)];
    job->gpus = job->nodes * sys->gpus_per_node;
    struct ts_parallel *p = &job->parallel;
    ts_parallel_defaults(p);
    p->bucket_bytes = 160e6;
    p->tp = pick_divisor(m->heads, sys->gpus_per_node < job->gpus ? sys->gpus_per_node : job->gpus);
    while (job->gpus % p->tp)
        p->tp /= 2;
    p->cp = pick(4) == 0 && m->seq_len % 4 == 0 ? 2 : 1;
    int rest = job->gpus / (p->tp * p->cp);
    if (rest < 1 || job->gpus % (p->tp * p->cp)) {
        p->cp = 1;
        rest = job->gpus / p->tp;
    }
    p->pp = pick_divisor(m->layers, rest < 16 ? rest : 16);
    while (rest % p->pp)
        p->pp = pick_divisor(m->layers, p->pp - 1 > 0 ? p->pp - 1 : 1);
    p->dp = rest / p->pp;
    static const int mbs[] = {1, 1, 2, 4};
    p->microbatch = mbs[pick(4)];
    int sched = pick(3);
    p->schedule = (enum ts_schedule)sched;
    if (p->schedule == TS_SCHED_INTERLEAVED) {
        int lps = m->layers / p->pp;
        p->virtual_stages = p->pp > 1 ? pick_divisor(lps, 4) : 1;
        if (p->virtual_stages < 2)
            p->schedule = TS_SCHED_1F1B, p->virtual_stages = 1;
    }
    int micro = 1 + pick(12);
    if (p->schedule == TS_SCHED_INTERLEAVED)
        micro = p->pp * (1 + pick(3));
    job->global_batch = micro * p->dp * p->microbatch;
    p->sequence_parallel = p->tp > 1 && pick(2);
    p->recompute = (enum ts_recompute)pick(TS_RECOMPUTE_COUNT);
    p->zero = pick(4);
    p->dp_overlap = pick(4) != 0;
    p->tp_comm_overlap = p->tp > 1 && pick(3) == 0;
    p->scatter_gather = p->tp > 1;
    enum ts_precision precs[] = {TS_PREC_BF16, TS_PREC_FP16, TS_PREC_FP8};
    job->precision = precs[pick(3)];
    if (sys->accel.peak_flops[job->precision] <= 0)
        job->precision = TS_PREC_BF16;
    job->has_training = true;
    job->training.tokens = pow(10.0, 8 + 4 * uniform());
    if (pick(3) == 0) {
        job->has_reliability = true;
        ts_reliability_defaults(&job->reliability);
        job->reliability.replications = 20;
        job->reliability.seed = rnd();
        job->reliability.spares = pick(3);
        job->reliability.checkpoint.mode = (enum ts_ckpt_mode)pick(2);
    }
    if (pick(2) == 0) {
        job->has_cost = true;
        ts_cost_config_defaults(&job->cost);
        job->cost.pricing = TS_PRICING_ON_DEMAND;
        job->cost.spare_pricing = TS_PRICING_ON_DEMAND;
        job->cost.gpu_hour[TS_PRICING_ON_DEMAND] = pick(5) == 0 ? 1e-6 : 10 * uniform();
        job->cost.dataset_bytes = 1e12 * uniform();
        job->cost.ops_hours_per_incident = 1;
        job->cost.ops_hourly_rate = 100;
    }
}

static void random_valid_configurations_keep_every_invariant(void **state)
{
    (void)state;
    const char *vg = getenv("TS_VALGRIND");
    int want = vg && vg[0] == '1' ? 40 : 300;
    int valid = 0, tries = 0, monotone_checked = 0;
    struct ts_job *job = ts_xmalloc(sizeof *job);
    struct ts_model *models = ts_xmalloc((size_t)n_models * sizeof *models);
    struct ts_system *systems = ts_xmalloc((size_t)n_systems * sizeof *systems);
    struct ts_err err;
    for (int i = 0; i < n_models; i++)
        assert_int_equal(ts_model_load(model_names[i], &models[i], &err), TS_OK);
    for (int i = 0; i < n_systems; i++)
        assert_int_equal(ts_system_load(system_names[i], &systems[i], &err), TS_OK);
    while (valid < want && tries < 50 * want) {
        tries++;
        draw_job(job, &models[pick(n_models)], &systems[pick(n_systems)]);
        if (ts_job_validate(job, "random", &err) != TS_OK)
            continue;
        valid++;
        char what[256];
        snprintf(what, sizeof what, "#%d %s on %d x %s, tp %d cp %d pp %d dp %d mb %d %s v %d",
                 valid, job->model.name, job->nodes, job->system.name, job->parallel.tp,
                 job->parallel.cp, job->parallel.pp, job->parallel.dp, job->parallel.microbatch,
                 ts_schedule_names[job->parallel.schedule], job->parallel.virtual_stages);
        struct outcome o;
        int rc = evaluate_and_check(job, what, &o, &err);
        if (rc != TS_OK) {
            /* A run that cannot finish must say so. */
            assert_int_equal(rc, TS_ERR_INPUT);
            assert_true(strlen(err.msg) > 10);
        }
        /* Memory non-decreasing in the microbatch, other things equal. */
        double m1 = memory_at_microbatch(job, job->parallel.microbatch);
        double m2 = memory_at_microbatch(job, 2 * job->parallel.microbatch);
        assert_close(m1, o.memory_bytes, 1e-12, 0);
        if (!(m2 >= m1)) {
            print_error("%s: memory %.17g at microbatch %d, %.17g at %d\n", what, m1,
                        job->parallel.microbatch, m2, 2 * job->parallel.microbatch);
            fail();
        }
        monotone_checked++;
    }
    print_message("%d valid configurations of %d drawn; memory monotone checked on %d\n", valid,
                  tries, monotone_checked);
    assert_int_equal(valid, want);
    assert_int_equal(monotone_checked, want);
    free(models);
    free(systems);
    free(job);
}

/* ---------------------------------------------------------------- extreme inputs */

/* Parse a job from JSON text and evaluate it; returns the status of parse + run. */
static int job_text(const char *text, struct outcome *o, struct ts_err *err)
{
    cJSON *doc = ts_test_json(text);
    struct ts_jnode root = ts_jnode_root(doc, "edge.json");
    struct ts_job *job = ts_xmalloc(sizeof *job);
    int rc = ts_job_parse(&root, NULL, job, err);
    cJSON_Delete(doc);
    if (rc == TS_OK)
        rc = evaluate_and_check(job, text, o, err);
    free(job);
    return rc;
}

static void expect_ok(const char *text, struct outcome *o)
{
    struct ts_err err;
    int rc = job_text(text, o, &err);
    if (rc)
        print_error("%s\n", err.msg);
    assert_int_equal(rc, TS_OK);
}

static void one_gpu_job_gives_finite_results(void **state)
{
    (void)state;
    struct outcome o;
    expect_ok("{\"model\": \"gpt2-124m\", \"system\": \"dgx-h100\", \"gpus\": 1, \"global_batch\": 8,"
              " \"training\": {\"tokens\": \"1B\"}, \"reliability\": {\"replications\": 50},"
              " \"cost\": {\"gpu_hour\": {\"on_demand\": 2}}}", &o);
    assert_true(o.it.feasible);
    assert_true(o.have_run && o.have_cost);
}

static void hundred_thousand_gpus_give_finite_results(void **state)
{
    (void)state;
    struct outcome o;
    /* 12,500 nodes of 8 GPUs: 100,000 GPUs; failures scale with the size. */
    expect_ok("{\"model\": \"llama3-70b\", \"system\": \"dgx-h100\", \"nodes\": 12500,"
              " \"global_batch\": 25000, \"parallel\": {\"tp\": 8, \"pp\": 1, \"zero\": 1,"
              " \"recompute\": \"full\"}, \"training\": {\"tokens\": \"15T\"},"
              " \"reliability\": {\"replications\": 20},"
              " \"cost\": {\"gpu_hour\": {\"on_demand\": 2}}}", &o);
    assert_int_equal(o.it.params > 0, 1);
    assert_true(o.have_run);
    assert_true(o.run.failures_mean > 1);
}

static void one_layer_and_thousand_layer_models_give_finite_results(void **state)
{
    (void)state;
    struct outcome o;
    expect_ok("{\"model\": {\"name\": \"one\", \"layers\": 1, \"hidden\": 1024, \"heads\": 16,"
              " \"vocab\": 32000, \"seq_len\": 2048, \"source\": \"test\"}, \"system\": \"dgx-h100\","
              " \"gpus\": 8, \"global_batch\": 64, \"training\": {\"tokens\": \"1B\"}}", &o);
    assert_true(o.it.feasible);
    expect_ok("{\"model\": {\"name\": \"deep\", \"layers\": 1000, \"hidden\": 2048, \"heads\": 16,"
              " \"vocab\": 32000, \"seq_len\": 2048, \"source\": \"test\"}, \"system\": \"dgx-h100\","
              " \"nodes\": 8, \"global_batch\": 128, \"parallel\": {\"tp\": 8, \"pp\": 8,"
              " \"schedule\": \"interleaved\", \"virtual_stages\": 5}, \"training\": {\"tokens\": \"1B\"},"
              " \"reliability\": {\"replications\": 20}, \"cost\": {\"gpu_hour\": {\"on_demand\": 2}}}", &o);
}

static void sequence_lengths_from_128_to_a_million_give_finite_results(void **state)
{
    (void)state;
    struct outcome o;
    expect_ok("{\"model\": {\"name\": \"short\", \"layers\": 32, \"hidden\": 4096, \"heads\": 32,"
              " \"kv_heads\": 8, \"ffn_hidden\": 14336, \"ffn\": \"swiglu\", \"vocab\": 128256,"
              " \"seq_len\": 128, \"source\": \"test\"}, \"system\": \"dgx-h100\", \"gpus\": 8,"
              " \"global_batch\": 1024, \"parallel\": {\"tp\": 8}, \"training\": {\"tokens\": \"1B\"}}", &o);
    assert_true(o.it.feasible);
    /* 1M tokens: flash attention and context parallelism over 16 nodes. */
    expect_ok("{\"model\": {\"name\": \"long\", \"layers\": 32, \"hidden\": 4096, \"heads\": 32,"
              " \"kv_heads\": 8, \"ffn_hidden\": 14336, \"ffn\": \"swiglu\", \"vocab\": 128256,"
              " \"seq_len\": 1048576, \"source\": \"test\"}, \"system\": \"dgx-h100\", \"nodes\": 16,"
              " \"global_batch\": 16, \"parallel\": {\"tp\": 8, \"cp\": 16, \"sequence_parallel\": true,"
              " \"attention\": \"flash\", \"recompute\": \"full\", \"zero\": 3},"
              " \"training\": {\"tokens\": \"10B\"}}", &o);
    assert_true(o.it.feasible);
    /* Without context parallelism it does not fit: a result that says so. */
    expect_ok("{\"model\": {\"name\": \"long\", \"layers\": 32, \"hidden\": 4096, \"heads\": 32,"
              " \"kv_heads\": 8, \"ffn_hidden\": 14336, \"ffn\": \"swiglu\", \"vocab\": 128256,"
              " \"seq_len\": 1048576, \"source\": \"test\"}, \"system\": \"dgx-h100\", \"gpus\": 8,"
              " \"global_batch\": 8, \"training\": {\"tokens\": \"10B\"}}", &o);
    assert_false(o.it.feasible);
    assert_non_null(strstr(o.it.reason, "GiB"));
}

static void failure_rates_from_zero_to_one_per_minute_finish_or_say_why(void **state)
{
    (void)state;
    static const char *const mtbf[] = {"1 min", "10 min", "1 h", "1 d", "100 y"};
    char text[1024];
    struct outcome o;
    /* No failure process at all. */
    expect_ok("{\"model\": \"gpt2-124m\", \"system\": \"dgx-h100\", \"nodes\": 2, \"global_batch\": 64,"
              " \"training\": {\"tokens\": \"10B\"}, \"reliability\": {\"failures\": [],"
              " \"replications\": 30}, \"cost\": {\"gpu_hour\": {\"on_demand\": 2}}}", &o);
    assert_true(o.have_run);
    assert_close(o.run.mean_s, o.it.time_to_train_s, 0.01, 0);
    for (size_t i = 0; i < TS_ARRAY_LEN(mtbf); i++) {
        snprintf(text, sizeof text,
                 "{\"model\": \"gpt2-124m\", \"system\": \"dgx-h100\", \"nodes\": 2, \"global_batch\": 64,"
                 " \"training\": {\"tokens\": \"10B\"}, \"reliability\": {\"failures\": [{\"component\":"
                 " \"job\", \"mtbf\": \"%s\"}], \"restart_overhead\": \"10 min\", \"replications\": 30},"
                 " \"cost\": {\"gpu_hour\": {\"on_demand\": 2}}}", mtbf[i]);
        struct ts_err err;
        int rc = job_text(text, &o, &err);
        if (i == 0) {
            /* A failure a minute with a 10-minute restart never finishes: a clear refusal. */
            assert_int_equal(rc, TS_ERR_INPUT);
            assert_non_null(strstr(err.msg, "reliability"));
        } else if (rc == TS_OK) {
            assert_true(o.have_run && o.run.mean_s >= o.it.time_to_train_s);
        } else {
            assert_int_equal(rc, TS_ERR_INPUT);
            assert_true(strlen(err.msg) > 20);
        }
    }
}

static void zero_prices_give_a_finite_bill_or_say_what_is_missing(void **state)
{
    (void)state;
    struct outcome o;
    /* Free storage, operations and a near-free GPU: a finite bill. */
    expect_ok("{\"model\": \"gpt2-124m\", \"system\": \"dgx-h100\", \"nodes\": 1, \"global_batch\": 64,"
              " \"training\": {\"tokens\": \"1B\"}, \"reliability\": {\"replications\": 20},"
              " \"cost\": {\"gpu_hour\": {\"on_demand\": 1e-9}, \"storage\": {\"price_gb_month\":"
              " {\"hot\": 0, \"warm\": 0, \"cold\": 0}, \"dataset\": {\"size\": \"1 TB\"}},"
              " \"operations\": {\"hours_per_incident\": 1, \"hourly_rate\": 0}}}", &o);
    assert_true(o.have_cost);
    assert_true(o.cost.total_usd >= 0);
    assert_finite(o.cost.per_million_tokens_usd);
    assert_finite(o.cost.p90_usd);
    assert_finite(o.cost.per_hour_usd);
    /* A zero GPU-hour price is a price (free capacity): a compute bill of 0; only a missing
     * price is refused, naming the key. */
    expect_ok("{\"model\": \"gpt2-124m\", \"system\": \"dgx-h100\", \"nodes\": 1,"
              " \"global_batch\": 64, \"training\": {\"tokens\": \"1B\"},"
              " \"cost\": {\"gpu_hour\": {\"on_demand\": 0}}}", &o);
    assert_true(o.have_cost);
    assert_true(o.cost.breakdown_usd[TS_COST_COMPUTE] == 0.0);
    assert_finite(o.cost.per_million_tokens_usd);
    struct ts_err err;
    int rc = job_text("{\"model\": \"gpt2-124m\", \"system\": \"dgx-h100\", \"nodes\": 1,"
                      " \"global_batch\": 64, \"training\": {\"tokens\": \"1B\"},"
                      " \"cost\": {\"gpu_hour\": {\"spot\": 0}}}", &o, &err);
    assert_input_error(rc, &err, "gpu_hour.on_demand");
}

/* ---------------------------------------------------------------- extreme reliability */

/* A value log-uniform over [lo, hi], or, one time in twenty, one of the values that break
 * naive arithmetic: zero, a denormal, the largest double, infinity, NaN. */
static double wild(double lo, double hi)
{
    static const double odd[] = {0.0, 4.9e-324, 1e-320, 1.7976931348623157e308};
    int k = pick(40);
    if (k == 0)
        return odd[pick((int)TS_ARRAY_LEN(odd))];
    if (k == 1)
        return pick(2) ? INFINITY : NAN;
    return lo * pow(hi / lo, uniform());
}

/* Whether text holds "inf" or "nan" as a word (any case), as a reader would see it. */
static bool has_nonfinite_word(const char *text)
{
    for (const char *p = text; *p; p++) {
        if (p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '_'))
            continue;
        static const char *const words[] = {"inf", "nan", "infinity"};
        for (size_t w = 0; w < TS_ARRAY_LEN(words); w++) {
            size_t n = strlen(words[w]);
            if (strncasecmp(p, words[w], n) == 0 && !isalnum((unsigned char)p[n]) && p[n] != '_')
                return true;
        }
    }
    return false;
}

/* Run inputs filled directly (as a caller of the library may), every reliability and
 * checkpoint quantity drawn far beyond the parser's ranges: the run model returns finite
 * numbers or an input error that names a reliability key (or says the job cannot finish),
 * never an assertion, a GSL abort, a NaN or a message with "inf" in it; the estimate, the
 * simulation and the reports agree on that. */
static void extreme_reliability_values_give_finite_answers_or_name_the_key(void **state)
{
    (void)state;
    int cases = ts_test_under_valgrind() ? 40 : 400, ok = 0, refused = 0, simulated = 0;
    for (int c = 0; c < cases; c++) {
        struct ts_run_input in;
        memset(&in, 0, sizeof in);
        in.iteration_s = wild(1e-3, 1e3);
        in.iterations = wild(1, 1e9);
        in.nodes = 1 + pick(64);
        in.gpus_per_node = 8;
        in.gpus = in.nodes * 8;
        in.dp = in.gpus;
        in.checkpoint_bytes = wild(1, 1e18);
        struct ts_reliability *r = &in.rel;
        ts_reliability_defaults(r);
        r->n_failures = pick(4);
        for (int i = 0; i < r->n_failures; i++) {
            struct ts_failure_process *f = &r->failures[i];
            f->component = (enum ts_component)pick(TS_COMP_COUNT);
            f->mtbf_s = wild(1e-3, 1e13);
            f->distribution = pick(3) == 0 ? TS_DIST_WEIBULL : TS_DIST_EXPONENTIAL;
            f->shape = f->distribution == TS_DIST_WEIBULL ? wild(1e-4, 1e4) : 1.0;
        }
        struct ts_checkpoint *k = &r->checkpoint;
        k->mode = pick(2) ? TS_CKPT_SYNC : TS_CKPT_ASYNC;
        k->write_bandwidth = pick(2) ? wild(1e-3, 1e18) : 0.0;
        k->read_bandwidth = pick(2) ? wild(1e-3, 1e18) : 0.0;
        k->node_write_bandwidth = wild(1e-3, 1e18);
        k->node_read_bandwidth = wild(1e-3, 1e18);
        k->snapshot_bandwidth = wild(1e-3, 1e18);
        if (pick(3) == 0) {
            k->interval_auto = false;
            k->interval_s = wild(1e-3, 1e12);
        }
        r->restart_overhead_s = wild(1e-3, 1e12);
        r->repair_time_s = pick(2) ? wild(1e-3, 1e12) : 0.0;
        r->spares = pick(3) == 0 ? pick(1000000) : 0;
        r->elastic = pick(4) == 0;
        if (pick(3) == 0) {
            r->spot.enabled = true;
            r->spot.preemption_mtbf_s = wild(1e-3, 1e15);
            r->spot.notice_s = wild(1e-3, 1e12);
            r->spot.reacquire_s = wild(1e-3, 1e12);
        }
        r->replications = 3;

        struct ts_run_result est, sim;
        struct ts_err err;
        ts_err_clear(&err);
        int rc = ts_run_estimate(&in, &est, &err);
        if (rc != TS_OK) {
            assert_int_equal(rc, TS_ERR_INPUT);
            if (has_nonfinite_word(err.msg) ||
                !(strncmp(err.msg, "reliability", 11) == 0 || strncmp(err.msg, "run:", 4) == 0)) {
                print_error("case %d: %s\n", c, err.msg);
                fail();
            }
            refused++;
            continue;
        }
        ok++;
        double v[] = {est.mean_s, est.goodput, est.failures_mean, est.preemptions_mean,
                      est.rework_gpu_h, est.restart_gpu_h, est.checkpoint_gpu_h,
                      est.repair_wait_gpu_h, est.spare_gpu_h, est.params.checkpoint_write_s,
                      est.params.restart_s, est.params.checkpoint_interval_s};
        for (size_t i = 0; i < TS_ARRAY_LEN(v); i++)
            assert_finite(v[i]);
        /* Simulate the quick ones: few interruptions expected, no Weibull storms. */
        bool quick = est.failures_mean + est.preemptions_mean < 200;
        for (int i = 0; i < r->n_failures; i++)
            quick &= r->failures[i].distribution == TS_DIST_EXPONENTIAL ||
                     r->failures[i].shape >= 0.7;
        if (!quick)
            continue;
        rc = ts_run_simulate(&in, &sim, NULL, NULL, &err);
        if (rc != TS_OK) {
            assert_int_equal(rc, TS_ERR_INPUT);
            assert_false(has_nonfinite_word(err.msg));
            continue;
        }
        simulated++;
        assert_finite(sim.mean_s);
        assert_finite(sim.p99_s);
        assert_finite(sim.daly_mean_s);
        assert_true(sim.goodput > 0 && sim.goodput <= 1 + 1e-12);
    }
    print_message("%d extreme reliability inputs: %d estimated (%d simulated), %d refused\n",
                  cases, ok, simulated, refused);
    assert_int_equal(ok + refused, cases);
    assert_true(ok > 0 && refused > 0 && simulated > 0);
}

/* The words a reader sees for quantities that are not finite. */
static void nonfinite_quantities_print_as_words(void **state)
{
    (void)state;
    char buf[64];
    assert_string_equal(ts_quantity_format(INFINITY, TS_DIM_SECONDS, buf, sizeof buf), "unbounded");
    assert_string_equal(ts_quantity_format(NAN, TS_DIM_BYTES, buf, sizeof buf), "undefined");
    assert_string_equal(ts_report_format_usd(INFINITY, buf, sizeof buf), "not priced");
    assert_false(has_nonfinite_word("unbounded, undefined, infant, nanosecond, info"));
    assert_true(has_nonfinite_word("closest finishes in inf d"));
    assert_true(has_nonfinite_word("cost: $NaN"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(random_valid_configurations_keep_every_invariant),
        cmocka_unit_test(one_gpu_job_gives_finite_results),
        cmocka_unit_test(hundred_thousand_gpus_give_finite_results),
        cmocka_unit_test(one_layer_and_thousand_layer_models_give_finite_results),
        cmocka_unit_test(sequence_lengths_from_128_to_a_million_give_finite_results),
        cmocka_unit_test(failure_rates_from_zero_to_one_per_minute_finish_or_say_why),
        cmocka_unit_test(zero_prices_give_a_finite_bill_or_say_what_is_missing),
        cmocka_unit_test(extreme_reliability_values_give_finite_answers_or_name_the_key),
        cmocka_unit_test(nonfinite_quantities_print_as_words),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
