/*
 * The accuracy gate: every published measurement in experiments/validation-NAME/published.json
 * (A100: Korthikanti et al. 2022 Table 5, Narayanan et al. SC21 Table 1; H100 and B200:
 * NVIDIA NeMo performance summaries) is re-run through the iteration simulation with the
 * shipped catalogue, and the errors must stay within the thresholds recorded in each file
 * (A100: Korthikanti mean |error| <= 4% and every case <= 8%, Narayanan every row <= 10%).
 * The hardware constants were calibrated elsewhere (experiments/calibration), never on
 * these rows.
 */
#include "test_helpers.h"

#include "spec/spec.h"
#include "step/step.h"

struct table_stats {
    const char *name;
    double sum_abs, max_abs;
    int n;
};

static double evaluate(const char *config, const char *metric)
{
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", ts_spec_home(), config);
    struct ts_err err;
    cJSON *doc;
    if (ts_json_load(path, &doc, &err)) {
        print_error("%s\n", err.msg);
        fail();
    }
    struct ts_jnode root = ts_jnode_root(doc, path);
    struct ts_job job;
    if (ts_job_parse(&root, NULL, &job, &err)) {
        print_error("%s\n", err.msg);
        fail();
    }
    cJSON_Delete(doc);
    struct ts_eval_scratch s;
    assert_int_equal(ts_eval_scratch_init(&s), 0);
    struct ts_iteration it;
    ts_step_evaluate(&job, TS_METHOD_DISCRETE_EVENT, &s, &it, NULL, NULL);
    ts_eval_scratch_free(&s);
    assert_true(it.feasible);
    if (strcmp(metric, "iteration_time_s") == 0)
        return it.iteration_s;
    if (strcmp(metric, "hardware_tflops_per_gpu") == 0)
        return it.hardware_tflops_per_gpu;
    if (strcmp(metric, "tokens_per_s_per_gpu") == 0)
        return it.tokens_per_s / job.gpus;
    print_error("unknown metric %s\n", metric);
    fail();
    return 0;
}

/* Check one published-numbers file; returns the number of rows. */
static int check_file(const char *relative)
{
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", ts_spec_home(), relative);
    struct ts_err err;
    cJSON *doc;
    if (ts_json_load(path, &doc, &err)) {
        print_error("%s\n", err.msg);
        fail();
    }
    const cJSON *rows = cJSON_GetObjectItem(doc, "rows");
    const cJSON *thresholds = cJSON_GetObjectItem(doc, "thresholds");
    int count = 0;
    for (const cJSON *th = thresholds->child; th; th = th->next) {
        struct table_stats t = {th->string, 0, 0, 0};
        const cJSON *row;
        cJSON_ArrayForEach(row, rows) {
            if (strcmp(cJSON_GetObjectItem(row, "table")->valuestring, t.name) != 0)
                continue;
            const char *config = cJSON_GetObjectItem(row, "config")->valuestring;
            const char *metric = cJSON_GetObjectItem(row, "metric")->valuestring;
            double published = cJSON_GetObjectItem(row, "published")->valuedouble;
            double predicted = evaluate(config, metric);
            double error = predicted / published - 1.0;
            printf("%-20s %-48s published %9.3f predicted %9.3f error %+6.1f%%\n", t.name, config,
                   published, predicted, 100 * error);
            t.sum_abs += fabs(error);
            t.max_abs = fmax(t.max_abs, fabs(error));
            t.n++;
            count++;
        }
        double mean = t.sum_abs / t.n;
        printf("%s: %d rows, mean |error| %.2f%%, max |error| %.2f%% (limits %.0f%% / %.0f%%)\n\n",
               t.name, t.n, 100 * mean, 100 * t.max_abs,
               100 * cJSON_GetObjectItem(th, "mean_abs")->valuedouble,
               100 * cJSON_GetObjectItem(th, "max_abs")->valuedouble);
        assert_true(t.n > 0);
        assert_true(mean <= cJSON_GetObjectItem(th, "mean_abs")->valuedouble);
        assert_true(t.max_abs <= cJSON_GetObjectItem(th, "max_abs")->valuedouble);
    }
    assert_int_equal(count, cJSON_GetArraySize(rows));
    cJSON_Delete(doc);
    return count;
}

static void published_a100_runs_are_reproduced_within_the_validation_thresholds(void **state)
{
    (void)state;
    assert_int_equal(check_file("experiments/validation-a100/published.json"), 18);
}

static void published_hopper_and_blackwell_runs_are_reproduced_within_the_validation_thresholds(void **state)
{
    (void)state;
    assert_int_equal(check_file("experiments/validation-hopper/published.json"), 9);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(published_a100_runs_are_reproduced_within_the_validation_thresholds),
        cmocka_unit_test(published_hopper_and_blackwell_runs_are_reproduced_within_the_validation_thresholds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
