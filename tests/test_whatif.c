/*
 * --set PATH=VALUE (sim/cli/set.c) on documents, checked against the document written by
 * hand; the messages of paths that cannot be followed; and where a parse error is attributed
 * to a --set.
 */
#include "test_helpers.h"

#include "cli/cli.h"

/* Apply the sets to `text` and compare with `want` (both canonicalised by cJSON). */
static void check_apply(const char *text, const char *const sets[], int n, const char *want)
{
    struct ts_cli_sets s = {0};
    for (int i = 0; i < n; i++)
        assert_int_equal(ts_cli_sets_add(&s, "test", sets[i]), 0);
    cJSON *doc = cJSON_Parse(text);
    assert_non_null(doc);
    struct ts_err err;
    ts_err_clear(&err);
    int rc = ts_cli_sets_apply(&s, doc, "x.json", &err);
    if (rc)
        print_error("%s\n", err.msg);
    assert_int_equal(rc, TS_OK);
    cJSON *w = cJSON_Parse(want);
    assert_non_null(w);
    char *got = cJSON_PrintUnformatted(doc), *exp = cJSON_PrintUnformatted(w);
    if (strcmp(got, exp) != 0)
        print_error("got  %s\nwant %s\n", got, exp);
    assert_string_equal(got, exp);
    free(got);
    free(exp);
    cJSON_Delete(doc);
    cJSON_Delete(w);
}

/* Apply one set that must fail; the message must contain `part`. */
static void check_refused(const char *text, const char *set, const char *part)
{
    struct ts_cli_sets s = {0};
    assert_int_equal(ts_cli_sets_add(&s, "test", set), 0);
    cJSON *doc = cJSON_Parse(text);
    struct ts_err err;
    ts_err_clear(&err);
    assert_int_equal(ts_cli_sets_apply(&s, doc, "x.json", &err), TS_ERR_INPUT);
    if (!strstr(err.msg, part))
        print_error("message \"%s\" lacks \"%s\"\n", err.msg, part);
    assert_non_null(strstr(err.msg, part));
    cJSON_Delete(doc);
}

static void set_replaces_a_key_and_parses_the_value_as_json(void **state)
{
    (void)state;
    const char *sets[] = {"parallel.tp=4", "parallel.sequence_parallel=true",
                          "parallel.recompute=selective", "global_batch=[512, 1024]"};
    check_apply("{\"global_batch\": 1536, \"parallel\": {\"tp\": 8, \"pp\": 8}}", sets, 4,
                "{\"global_batch\": [512, 1024], \"parallel\": {\"tp\": 4, \"pp\": 8, "
                "\"sequence_parallel\": true, \"recompute\": \"selective\"}}");
}

static void set_creates_missing_objects_on_the_way(void **state)
{
    (void)state;
    const char *sets[] = {"cost.gpu_hour.spot=2.5"};
    check_apply("{\"model\": \"m\"}", sets, 1, "{\"model\": \"m\", \"cost\": {\"gpu_hour\": {\"spot\": 2.5}}}");
}

static void later_sets_win_and_text_that_is_not_json_is_a_string(void **state)
{
    (void)state;
    const char *sets[] = {"training.tokens=300B", "training.tokens=1e12", "name=a=b", "system=dgx-h100",
                          "description=\"quoted\""};
    check_apply("{\"system\": \"x\"}", sets, 5,
                "{\"system\": \"dgx-h100\", \"training\": {\"tokens\": 1e12}, \"name\": \"a=b\", "
                "\"description\": \"quoted\"}");
}

static void set_indexes_lists_and_appends_at_their_length(void **state)
{
    (void)state;
    const char *sets[] = {"nodes[1]=16", "nodes[3]=64", "reliability.failures[0].mtbf=\"5 y\""};
    check_apply("{\"nodes\": [4, 8, 32], \"reliability\": {\"failures\": [{\"component\": \"gpu\", "
                "\"mtbf\": \"1 y\"}]}}", sets, 3,
                "{\"nodes\": [4, 16, 32, 64], \"reliability\": {\"failures\": [{\"component\": "
                "\"gpu\", \"mtbf\": \"5 y\"}]}}");
}

static void set_into_a_catalogue_reference_inlines_the_file_it_names(void **state)
{
    (void)state;
    /* The catalogue's megatron-1.7b with one key changed: every other key as in the file. */
    char path[2048];
    snprintf(path, sizeof path, "%s/models/megatron-1.7b.json", ts_spec_home());
    char *text;
    size_t len;
    struct ts_err err;
    assert_int_equal(ts_file_read(path, &text, &len, &err), TS_OK);
    cJSON *model = cJSON_Parse(text);
    free(text);
    assert_non_null(model);
    cJSON_ReplaceItemInObjectCaseSensitive(model, "layers", cJSON_CreateNumber(12));
    cJSON *want = cJSON_CreateObject();
    cJSON_AddItemToObject(want, "model", model);
    char *w = cJSON_PrintUnformatted(want);
    const char *sets[] = {"model.layers=12"};
    check_apply("{\"model\": \"megatron-1.7b\"}", sets, 1, w);
    free(w);
    cJSON_Delete(want);
}

static void paths_that_cannot_be_followed_are_refused_with_the_set_named(void **state)
{
    (void)state;
    const char *doc = "{\"parallel\": {\"tp\": 8}, \"nodes\": [1, 2]}";
    check_refused(doc, "parallel.tp.size=1",
                  "x.json: --set parallel.tp.size=1: parallel.tp: 8 is not an object");
    check_refused(doc, "nodes[5]=1", "--set nodes[5]=1: nodes: the list has 2 elements: [5] is out of range");
    check_refused(doc, "parallel[0]=1", "parallel: an object is not a list");
    check_refused(doc, "a..b=1", "a..b: an empty key");
    check_refused(doc, ".a=1", "an empty key");
    check_refused(doc, "a.=1", "ends with a dot");
    check_refused(doc, "nodes[x]=1", "an index is a whole number");
    check_refused(doc, "[0]=1", "starts with an index");
    check_refused("{\"model\": \"no-such-model\"}", "model.layers=2", "unknown model \"no-such-model\"");
}

static void malformed_arguments_are_refused_before_any_work(void **state)
{
    (void)state;
    struct ts_cli_sets s = {0};
    assert_int_equal(ts_cli_sets_add(&s, "test", "parallel.tp"), -1);
    assert_int_equal(ts_cli_sets_add(&s, "test", "=4"), -1);
    for (int i = 0; i < TS_CLI_SETS_MAX; i++)
        assert_int_equal(ts_cli_sets_add(&s, "test", "a=1"), 0);
    assert_int_equal(ts_cli_sets_add(&s, "test", "a=1"), -1);
}

static void a_parse_error_at_a_set_path_names_the_set(void **state)
{
    (void)state;
    struct ts_cli_sets s = {0};
    ts_cli_sets_add(&s, "test", "parallel.tp=3");
    ts_cli_sets_add(&s, "test", "cost.gpu_hour.spot=x");
    struct ts_err err;
    /* At the path itself, above it (a cross-field check of the object) and below it. */
    ts_err_at(&err, "x.json", "parallel.tp", "3 does not divide heads (32)");
    ts_cli_sets_note(&s, "x.json", &err);
    assert_string_equal(err.msg, "x.json: parallel.tp: 3 does not divide heads (32) (from --set parallel.tp=3)");
    ts_err_at(&err, "x.json", "parallel", "tp x pp does not divide gpus");
    ts_cli_sets_note(&s, "x.json", &err);
    assert_non_null(strstr(err.msg, "(from --set parallel.tp=3)"));
    ts_err_at(&err, "x.json", "cost.gpu_hour.spot", "not a price");
    ts_cli_sets_note(&s, "x.json", &err);
    assert_non_null(strstr(err.msg, "(from --set cost.gpu_hour.spot=x)"));
    /* Elsewhere: nothing added. */
    ts_err_at(&err, "x.json", "model.heads", "bad");
    ts_cli_sets_note(&s, "x.json", &err);
    assert_string_equal(err.msg, "x.json: model.heads: bad");
    /* parallel.tpp is not parallel.tp. */
    ts_err_at(&err, "x.json", "parallel.tpp", "unknown key");
    ts_cli_sets_note(&s, "x.json", &err);
    assert_null(strstr(err.msg, "--set"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(set_replaces_a_key_and_parses_the_value_as_json),
        cmocka_unit_test(set_creates_missing_objects_on_the_way),
        cmocka_unit_test(later_sets_win_and_text_that_is_not_json_is_a_string),
        cmocka_unit_test(set_indexes_lists_and_appends_at_their_length),
        cmocka_unit_test(set_into_a_catalogue_reference_inlines_the_file_it_names),
        cmocka_unit_test(paths_that_cannot_be_followed_are_refused_with_the_set_named),
        cmocka_unit_test(malformed_arguments_are_refused_before_any_work),
        cmocka_unit_test(a_parse_error_at_a_set_path_names_the_set),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
