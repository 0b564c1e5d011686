/*
 * Fuzz regressions: every input saved under tests/data/fuzz/<harness>/ (each crashed or broke
 * an invariant of a libFuzzer harness once) and every seed of tests/fuzz/corpus/<harness>/ runs
 * through the same target as the harness (tests/fuzz/fuzz_targets.c). A target aborts on a
 * broken invariant; sanitizers and valgrind catch the rest.
 */
#include "test_helpers.h"

#include <dirent.h>

#include "fuzz/fuzz_targets.h"

struct harness {
    const char *name;
    int (*target)(const uint8_t *data, size_t n);
};

static const struct harness harnesses[] = {
    {"model", ts_fuzz_model}, {"accel", ts_fuzz_accel}, {"system", ts_fuzz_system},
    {"job", ts_fuzz_job},     {"sweep", ts_fuzz_sweep}, {"units", ts_fuzz_units},
    {"cli", ts_fuzz_cli},     {"hf", ts_fuzz_hf},       {"skypilot", ts_fuzz_skypilot},
    {"nccl", ts_fuzz_nccl},   {"gemmcsv", ts_fuzz_gemmcsv}, {"software", ts_fuzz_software},
    {"prices", ts_fuzz_prices}, {"new", ts_fuzz_new},
};

/* Run every file of dir through the target; returns how many. */
static int replay(const char *dir, const struct harness *h)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    char names[256][256];
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && n < 256)
        if (e->d_name[0] != '.' && strcmp(e->d_name, "README.md") != 0)
            snprintf(names[n++], sizeof names[0], "%s", e->d_name);
    closedir(d);
    for (int i = 0; i < n; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        char *data;
        size_t len;
        struct ts_err err;
        assert_int_equal(ts_file_read(path, &data, &len, &err), TS_OK);
        print_message("%s: %s\n", h->name, path);
        h->target((const uint8_t *)data, len);
        free(data);
    }
    return n;
}

static void saved_findings_and_seeds_run_clean_through_their_targets(void **state)
{
    (void)state;
    const char *data = getenv("TS_TEST_DATA");
    char dir[1024];
    int total = 0, findings = 0;
    for (size_t i = 0; i < TS_ARRAY_LEN(harnesses); i++) {
        snprintf(dir, sizeof dir, "%s/fuzz/%s", data ? data : "tests/data", harnesses[i].name);
        int f = replay(dir, &harnesses[i]);
        findings += f;
        snprintf(dir, sizeof dir, "%s/../fuzz/corpus/%s", data ? data : "tests/data", harnesses[i].name);
        total += f + replay(dir, &harnesses[i]);
    }
    assert_true(findings >= 1);
    assert_true(total > findings);
}

static void empty_and_garbage_inputs_are_refused_quietly(void **state)
{
    (void)state;
    static const char *const inputs[] = {"", "{", "null", "[]", "{\"a\": 1}", "\xff\xfe", "1e999"};
    for (size_t i = 0; i < TS_ARRAY_LEN(harnesses); i++)
        for (size_t j = 0; j < TS_ARRAY_LEN(inputs); j++)
            harnesses[i].target((const uint8_t *)inputs[j], strlen(inputs[j]));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(saved_findings_and_seeds_run_clean_through_their_targets),
        cmocka_unit_test(empty_and_garbage_inputs_are_refused_quietly),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
