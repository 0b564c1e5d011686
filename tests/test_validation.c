/*
 * The accuracy gate: every published A100 measurement in
 * experiments/validation-a100/published.json (Korthikanti et al. 2022 Table 5, Narayanan et
 * al. SC21 Table 1) is re-run through the iteration simulation with the shipped catalogue,
 * and the errors must stay within the thresholds recorded in that file (the targets of the
 * validation issue: Korthikanti mean |error| <= 4% and every case <= 8%; Narayanan every
 * row <= 10%). The hardware constants were calibrated elsewhere (experiments/
 * calibration-a100, on Korthikanti Table 4), never on these rows.
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
    print_error("unknown metric %s\n", metric);
    fail();
    return 0;
}

static void published_a100_runs_are_reproduced_within_the_validation_thresholds(void **state)
{
    (void)state;
    char path[2048];
    snprintf(path, sizeof path, "%s/experiments/validation-a100/published.json", ts_spec_home());
    struct ts_err err;
    cJSON *doc;
    if (ts_json_load(path, &doc, &err)) {
        print_error("%s\n", err.msg);
        fail();
    }
    const cJSON *rows = cJSON_GetObjectItem(doc, "rows");
    const cJSON *thresholds = cJSON_GetObjectItem(doc, "thresholds");
    struct table_stats tables[2] = {{"korthikanti-table5", 0, 0, 0}, {"narayanan-table1", 0, 0, 0}};
    int count = 0;
    const cJSON *row;
    cJSON_ArrayForEach(row, rows) {
        const char *table = cJSON_GetObjectItem(row, "table")->valuestring;
        const char *config = cJSON_GetObjectItem(row, "config")->valuestring;
        const char *metric = cJSON_GetObjectItem(row, "metric")->valuestring;
        double published = cJSON_GetObjectItem(row, "published")->valuedouble;
        double predicted = evaluate(config, metric);
        double error = predicted / published - 1.0;
        printf("%-20s %-42s %-24s published %9.3f predicted %9.3f error %+6.1f%%\n", table, config,
               metric, published, predicted, 100 * error);
        for (int t = 0; t < 2; t++)
            if (strcmp(table, tables[t].name) == 0) {
                tables[t].sum_abs += fabs(error);
                tables[t].max_abs = fmax(tables[t].max_abs, fabs(error));
                tables[t].n++;
            }
        count++;
    }
    assert_int_equal(count, 18);
    for (int t = 0; t < 2; t++) {
        const cJSON *th = cJSON_GetObjectItem(thresholds, tables[t].name);
        double mean = tables[t].sum_abs / tables[t].n;
        printf("%s: %d rows, mean |error| %.2f%%, max |error| %.2f%%\n", tables[t].name, tables[t].n,
               100 * mean, 100 * tables[t].max_abs);
        assert_true(tables[t].n > 0);
        assert_true(mean <= cJSON_GetObjectItem(th, "mean_abs")->valuedouble);
        assert_true(tables[t].max_abs <= cJSON_GetObjectItem(th, "max_abs")->valuedouble);
    }
    cJSON_Delete(doc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(published_a100_runs_are_reproduced_within_the_validation_thresholds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
