/*
 * Effects of scale: the expected maximum of N normal samples against closed forms and the
 * published table, and the wait of a synchronous job for its slowest GPU
 * (sim/step/scale.c) as it enters the evaluated iteration.
 */
#include "test_helpers.h"

#include "spec/spec.h"
#include "step/step.h"

#define assert_ok(rc, err)                                                  \
    do {                                                                    \
        if ((rc) != 0) {                                                    \
            print_error("unexpected error: %s\n", (err).msg);               \
            fail();                                                         \
        }                                                                   \
    } while (0)

/* ---------------------------------------------------------------- expected maximum */

/* Closed forms: E[max of 2] = 1/sqrt(pi), of 3 = 3 / (2 sqrt(pi)), of 4 = 6 atan(sqrt 2) /
 * pi^(3/2) (the known exact values for n <= 5, e.g. David & Nagaraja, "Order Statistics");
 * larger n from the published tables: Harter (1961), "Expected values of normal order
 * statistics", Biometrika 48: 10 -> 1.53875, 100 -> 2.50759; Tippett (1925), "On the extreme
 * individuals and the range of samples taken from a normal population", Biometrika 17:
 * 1000 -> 3.24144. */
static void the_expected_maximum_of_n_normals_matches_closed_forms_and_the_published_table(void **state)
{
    (void)state;
    const double pi = 3.14159265358979323846;
    assert_close(ts_step_normal_max_mean(1), 0.0, 0.0, 0.0);
    assert_close(ts_step_normal_max_mean(2), 1.0 / sqrt(pi), 0.0, 1e-9);
    assert_close(ts_step_normal_max_mean(3), 3.0 / (2.0 * sqrt(pi)), 0.0, 1e-9);
    assert_close(ts_step_normal_max_mean(4), 6.0 * atan(sqrt(2.0)) / pow(pi, 1.5), 0.0, 1e-9);
    assert_close(ts_step_normal_max_mean(10), 1.53875, 0.0, 6e-6);
    assert_close(ts_step_normal_max_mean(100), 2.50759, 0.0, 6e-6);
    assert_close(ts_step_normal_max_mean(1000), 3.24144, 0.0, 6e-6);
}

/* More GPUs, a slower slowest one: strictly increasing, and never above the classical bound
 * E[max of n] <= sqrt(2 ln n) (Jensen on exp(t max) <= sum exp(t X_i), t = sqrt(2 ln n)). Asked twice
 * in another order, the same bits (the per-thread memo keeps computed values). */
static void the_expected_maximum_grows_with_n_and_stays_below_sqrt_2_ln_n(void **state)
{
    (void)state;
    double prev = 0.0;
    for (long n = 2; n <= 1L << 20; n = n < 64 ? n + 1 : n * 2) {
        double e = ts_step_normal_max_mean(n);
        assert_true(e > prev);
        assert_true(e <= sqrt(2.0 * log((double)n)));
        prev = e;
    }
    double a = ts_step_normal_max_mean(1000), b = ts_step_normal_max_mean(37);
    for (long n = 2; n < 40; n++)
        (void)ts_step_normal_max_mean(n);       // flush the memo
    assert_true(ts_step_normal_max_mean(37) == b && ts_step_normal_max_mean(1000) == a);
}

static void the_sync_wait_is_compute_times_cv_times_the_expected_maximum(void **state)
{
    (void)state;
    assert_close(ts_step_sync_wait(10.0, 0.015, 1), 0.0, 0.0, 0.0);
    assert_close(ts_step_sync_wait(10.0, 0.0, 4096), 0.0, 0.0, 0.0);
    assert_close(ts_step_sync_wait(10.0, 0.015, 100), 10.0 * 0.015 * 2.50759, 0.0, 1e-6);
    assert_close(ts_step_sync_wait(2.0, 0.02, 1000), 2.0 * 0.02 * 3.24144, 0.0, 1e-6);
}

/* ---------------------------------------------------------------- jobs */

#define TINY_MODEL \
    "{\"name\": \"tiny\", \"layers\": 8, \"hidden\": 512, \"heads\": 32, \"vocab\": 1000, " \
    "\"seq_len\": 1024}"

/* A toy part with two GPUs per node; `cv` is its step_time_cv ("" = the key left out). */
static void parse_job(const char *cv, int gpus, const char *parallel, struct ts_job *job)
{
    struct ts_buf b;
    ts_buf_init(&b);
    ts_buf_printf(&b,
                  "{\"model\": " TINY_MODEL ", \"system\": {\"name\": \"toy-sys\", \"accelerator\": "
                  "{\"name\": \"toy-gpu\", \"peak_flops\": {\"bf16\": \"100 TFLOP/s\"}, \"memory\": "
                  "\"16 GiB\", \"memory_bandwidth\": \"1 TB/s\", \"gemm_efficiency\": [[1e9, 0.3], "
                  "[1e12, 0.8]]%s%s}, \"gpus_per_node\": 2, \"scale_up\": {\"bandwidth\": "
                  "\"300 GB/s\", \"latency\": \"2 us\", \"domain_size\": 2}, \"scale_out\": "
                  "{\"bandwidth\": \"400 Gb/s\", \"latency\": \"5 us\"}}, \"gpus\": %d, "
                  "\"global_batch\": %d, \"parallel\": %s}",
                  cv[0] ? ", \"step_time_cv\": " : "", cv, gpus, 4 * gpus, parallel);
    cJSON *doc = ts_test_json(b.data);
    ts_buf_free(&b);
    struct ts_jnode root = ts_jnode_root(doc, "test.json");
    struct ts_err err;
    ts_err_clear(&err);
    int rc = ts_job_parse(&root, NULL, job, &err);
    cJSON_Delete(doc);
    assert_ok(rc, err);
}

static void evaluate(const char *cv, int gpus, const char *parallel, enum ts_method method,
                     struct ts_iteration *it)
{
    struct ts_job job;
    parse_job(cv, gpus, parallel, &job);
    struct ts_eval_scratch s;
    assert_int_equal(ts_eval_scratch_init(&s), 0);
    ts_step_evaluate(&job, method, &s, it, NULL, NULL);
    ts_eval_scratch_free(&s);
}

/* With cv 0 the iteration is the simulated step, bit for bit, and the step itself does not
 * depend on cv: the wait is added after the simulation, leaving its oracles untouched. */
static void a_zero_cv_leaves_the_iteration_exactly_the_simulated_step(void **state)
{
    (void)state;
    const char *par = "{\"tp\": 2, \"pp\": 2, \"microbatch\": 1}";
    for (int method = 0; method < TS_METHOD_COUNT; method++) {
        struct ts_iteration zero, some;
        evaluate("0", 64, par, (enum ts_method)method, &zero);
        evaluate("0.03", 64, par, (enum ts_method)method, &some);
        assert_true(zero.feasible);
        assert_true(zero.sync_wait_s == 0.0);
        assert_true(zero.iteration_s == zero.step.iteration_s);
        assert_true(some.step.iteration_s == zero.step.iteration_s);
        assert_true(some.iteration_s == some.step.iteration_s + some.sync_wait_s);
        assert_true(some.sync_wait_s > 0.0);
    }
}

/* Weak scaling: one GPU's work fixed (4 sequences of 1024 tokens per GPU, dp = N), the
 * iteration grows by compute x cv x E[max of N]: with cv 0.02, N = 2 waits 0.5642 x 2% =
 * 1.13% of the compute, N = 10 3.08%, N = 100 5.02%, N = 1000 6.48% (Harter's values). */
static void at_fixed_work_per_gpu_the_wait_grows_with_the_gpu_count_as_the_formula_says(void **state)
{
    (void)state;
    const int n[] = {1, 2, 10, 100, 1000};
    const double e[] = {0.0, 0.564190, 1.53875, 2.50759, 3.24144};
    struct ts_iteration it[5];
    for (int i = 0; i < 5; i++) {
        evaluate("0.02", n[i], "{\"tp\": 1, \"pp\": 1, \"microbatch\": 2}",
                 TS_METHOD_DISCRETE_EVENT, &it[i]);
        assert_true(it[i].feasible);
        /* the same compute on every GPU, whatever the job's size */
        assert_close(it[i].step.compute_s, it[0].step.compute_s, 1e-12, 0.0);
        assert_close(it[i].sync_wait_s, it[0].step.compute_s * 0.02 * e[i], 2e-6, 0.0);
        assert_close(it[i].iteration_s, it[i].step.iteration_s + it[i].sync_wait_s, 1e-15, 0.0);
        if (i > 0)
            assert_true(it[i].sync_wait_s > it[i - 1].sync_wait_s);
    }
    assert_close(it[0].sync_wait_s, 0.0, 0.0, 0.0);
    print_message("compute %.6g s; wait at 2/10/100/1000 GPUs: %.4g%% %.4g%% %.4g%% %.4g%%\n",
                  it[0].step.compute_s, 100 * it[1].sync_wait_s / it[0].step.compute_s,
                  100 * it[2].sync_wait_s / it[0].step.compute_s,
                  100 * it[3].sync_wait_s / it[0].step.compute_s,
                  100 * it[4].sync_wait_s / it[0].step.compute_s);
}

/* The closed form takes the same compute from the plan: without a pipeline the two methods
 * wait equally long. */
static void the_closed_form_waits_as_long_as_the_simulation_without_a_pipeline(void **state)
{
    (void)state;
    struct ts_iteration des, cf;
    const char *par = "{\"tp\": 2, \"pp\": 1, \"microbatch\": 1}";
    evaluate("0.015", 256, par, TS_METHOD_DISCRETE_EVENT, &des);
    evaluate("0.015", 256, par, TS_METHOD_CLOSED_FORM, &cf);
    assert_true(des.sync_wait_s > 0.0);
    assert_close(cf.sync_wait_s, des.sync_wait_s, 1e-12, 0.0);
}

/* ---------------------------------------------------------------- the accelerator key */

static int parse_accel(const char *extra, struct ts_accel *a, struct ts_err *err)
{
    struct ts_buf b;
    ts_buf_init(&b);
    ts_buf_printf(&b, "{\"name\": \"x\", \"peak_flops\": {\"bf16\": \"100 TFLOP/s\"}, \"memory\": "
                  "\"16 GiB\", \"memory_bandwidth\": \"1 TB/s\", \"gemm_efficiency\": [[1e9, 0.3], "
                  "[1e12, 0.8]]%s}", extra);
    cJSON *doc = ts_test_json(b.data);
    ts_buf_free(&b);
    struct ts_jnode root = ts_jnode_root(doc, "gpu.json");
    ts_err_clear(err);
    int rc = ts_accel_parse(&root, a, err);
    cJSON_Delete(doc);
    return rc;
}

static void step_time_cv_is_read_defaults_to_the_assumed_value_and_is_bounded(void **state)
{
    (void)state;
    struct ts_accel a;
    struct ts_err err;
    int rc = parse_accel(", \"step_time_cv\": 0.021", &a, &err);
    assert_ok(rc, err);
    assert_close(a.step_time_cv, 0.021, 0.0, 0.0);
    rc = parse_accel("", &a, &err);
    assert_ok(rc, err);
    assert_close(a.step_time_cv, 0.015, 0.0, 0.0);
    rc = parse_accel(", \"step_time_cv\": -0.01", &a, &err);
    assert_input_error(rc, &err, "step_time_cv");
    rc = parse_accel(", \"step_time_cv\": 0.9", &a, &err);
    assert_input_error(rc, &err, "step_time_cv");
}

/* Every shipped NVIDIA A100 and Hopper file states its cv and says where it comes from. */
static void shipped_a100_and_hopper_files_cite_their_step_time_cv(void **state)
{
    (void)state;
    const char *names[] = {"a100-sxm-40g", "a100-sxm-80g", "a100-pcie-40g", "a100-pcie-80g",
                           "h100-sxm", "h100-nvl", "h100-pcie", "h200-sxm", "h800-sxm",
                           "h100-sxm-96g-500w"};
    for (size_t i = 0; i < TS_ARRAY_LEN(names); i++) {
        struct ts_accel a;
        struct ts_err err;
        ts_err_clear(&err);
        int rc = ts_accel_load(names[i], &a, &err);
        assert_ok(rc, err);
        assert_true(a.step_time_cv > 0.0 && a.step_time_cv < 0.05);
        if (!strstr(a.source, "step_time_cv")) {
            print_error("%s: the source does not say where step_time_cv comes from\n", names[i]);
            fail();
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_expected_maximum_of_n_normals_matches_closed_forms_and_the_published_table),
        cmocka_unit_test(the_expected_maximum_grows_with_n_and_stays_below_sqrt_2_ln_n),
        cmocka_unit_test(the_sync_wait_is_compute_times_cv_times_the_expected_maximum),
        cmocka_unit_test(a_zero_cv_leaves_the_iteration_exactly_the_simulated_step),
        cmocka_unit_test(at_fixed_work_per_gpu_the_wait_grows_with_the_gpu_count_as_the_formula_says),
        cmocka_unit_test(the_closed_form_waits_as_long_as_the_simulation_without_a_pipeline),
        cmocka_unit_test(step_time_cv_is_read_defaults_to_the_assumed_value_and_is_bounded),
        cmocka_unit_test(shipped_a100_and_hopper_files_cite_their_step_time_cv),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
