/*
 * Fuzz regressions: every input saved under tests/data/fuzz/<harness>/ (each crashed or broke
 * an invariant of a libFuzzer harness once) and every seed of tests/fuzz/corpus/<harness>/ runs
 * through the same target as the harness (tests/fuzz/fuzz_targets.c). A target aborts on a
 * broken invariant; sanitizers and valgrind catch the rest.
 */
#include "test_helpers.h"

#include <dirent.h>
#include <unistd.h>

#include "calibrate/gemmcsv.h"
#include "calibrate/nccl.h"
#include "cli/cli.h"
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

/* nccl-tests output of ranks on hosts (one "#  Rank" line per entry) and one data line. */
static int nccl_read(const char *ranks, const char *data, struct ts_nccl_table *t,
                     struct ts_err *err)
{
    char text[4096];
    snprintf(text, sizeof text, "# nThread 1 nGpus 1\n%s#       size  count type redop root time "
             "algbw busbw #wrong time algbw busbw #wrong\n%s\n", ranks, data);
    ts_err_clear(err);
    return ts_nccl_parse(text, strlen(text), "x_all_reduce_perf.txt", -1, t, err);
}

static void the_nccl_reader_refuses_a_rank_on_two_hosts_and_an_overlong_data_line(void **state)
{
    (void)state;
    static struct ts_nccl_table t;
    struct ts_err err;
    /* 1 GiB in 10 ms: algbw 107.37 GB/s; all-reduce on 2 ranks prints busbw = algbw. */
    const char *data = "1073741824 268435456 float sum -1 10000 107.37 107.37 0 10000 107.37 "
                       "107.37 0";
    const char *two = "#  Rank  0 Group 0 Pid 1 on hostA device 0\n"
                      "#  Rank  1 Group 0 Pid 2 on hostB device 0\n";
    assert_int_equal(nccl_read(two, data, &t, &err), TS_OK);
    assert_int_equal(t.ranks, 2);
    assert_int_equal(t.nodes, 2);
    /* The same rank line twice (as a tee'd log may hold it) is one rank on one host. */
    const char *again = "#  Rank  0 Group 0 Pid 1 on hostA device 0\n"
                        "#  Rank  0 Group 0 Pid 1 on hostA device 0\n"
                        "#  Rank  1 Group 0 Pid 2 on hostA device 1\n";
    assert_int_equal(nccl_read(again, data, &t, &err), TS_OK);
    assert_int_equal(t.ranks, 2);
    assert_int_equal(t.nodes, 1);
    /* Rank 0 on two hosts: before the fix 2 ranks on 3 nodes (tests/data/fuzz/nccl). */
    const char *moved = "#  Rank  0 Group 0 Pid 1 on hostA device 0\n"
                        "#  Rank  1 Group 0 Pid 2 on hostB device 0\n"
                        "#  Rank  0 Group 0 Pid 3 on hostC device 0\n";
    assert_input_error(nccl_read(moved, data, &t, &err), &err,
                       "x_all_reduce_perf.txt:4: rank 0 is listed on hostA and on hostC");
    /* A data line past the line buffer was cut silently, shifting the columns read from its
     * end; a long text line is still skipped. */
    char longdata[1400], longtext[1400];
    snprintf(longdata, sizeof longdata, "%s%1100s", data, "9");
    assert_input_error(nccl_read(two, longdata, &t, &err), &err,
                       "x_all_reduce_perf.txt:5: a data line longer than 1023 bytes");
    snprintf(longtext, sizeof longtext, "NCCL INFO %1200s\n%s", "x", data);
    assert_int_equal(nccl_read(two, longtext, &t, &err), TS_OK);
    assert_int_equal(t.n, 1);
}

static void a_tiny_gemm_keeps_its_efficiency_in_the_curve_and_one_below_1e6_is_refused(void **state)
{
    (void)state;
    static struct ts_accel a;
    struct ts_err err;
    assert_int_equal(ts_accel_load("h100-sxm", &a, &err), TS_OK);
    /* The finding of tests/data/fuzz/gemmcsv: 2 x 8192 x 1 x 296 FLOPs in 0.31 ms. */
    const char *csv = "m,n,k,dtype,time_ms\n8192,1,296,fp16,0.31\n";
    struct ts_gemmcsv t;
    assert_int_equal(ts_gemmcsv_parse(csv, strlen(csv), "g.csv", &a, -1, &t, &err), TS_OK);
    double eff = 2.0 * 8192 * 1 * 296 / 0.31e-3 / a.peak_flops[TS_PREC_FP16];
    assert_close(t.rows[0].efficiency, eff, 1e-12, 0);
    assert_true(eff < 5e-5);   /* 4 decimals would store 0 */
    cJSON *curve = ts_gemmcsv_curve_json(&t, TS_PREC_FP16);
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(curve, 0), "efficiency");
    assert_non_null(e);
    assert_close(e->valuedouble, eff, 5e-4, 0);     /* 4 significant digits */
    cJSON_Delete(curve);
    ts_gemmcsv_free(&t);
    /* 1 x 1 x 1 in 1 s: 2 FLOP/s, 2e-15 of the bf16 peak. */
    const char *slow = "m,n,k,dtype,time_s\n1024,1024,1024,bf16,0.01\n1,1,1,bf16,1\n";
    assert_input_error(ts_gemmcsv_parse(slow, strlen(slow), "g.csv", &a, -1, &t, &err), &err,
                       "g.csv:3: 1 x 1 x 1");
    assert_true(strstr(err.msg, "below the 1e-6") != NULL);
}

/* trainsim import skypilot FILE (listing) on a CSV text; returns its status, the listing in b. */
static int skypilot(const char *csv, struct ts_buf *b)
{
    char path[] = "/tmp/trainsim-test-vms-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, csv, strlen(csv)), (ssize_t)strlen(csv));
    close(fd);
    ts_cli_capture_stdout(b);
    int rc = ts_cli_import_skypilot(path, 0, NULL);
    ts_cli_capture_stdout(NULL);
    unlink(path);
    return rc;
}

static void skypilot_prices_beyond_a_million_dollars_per_gpu_hour_are_refused(void **state)
{
    (void)state;
    const char *head = "InstanceType,AcceleratorName,AcceleratorCount,Price,SpotPrice,Region,"
                       "AvailabilityZone\n";
    char csv[512];
    struct ts_buf b;
    ts_buf_init(&b);
    snprintf(csv, sizeof csv, "%sp5.48xlarge,H100,8,98.32,,us-east-1,us-east-1a\n", head);
    assert_int_equal(skypilot(csv, &b), TS_OK);
    assert_non_null(strstr(b.data, "12.290"));     /* 98.32 / 8 */
    ts_buf_free(&b);
    /* A tiny count (tests/data/fuzz/skypilot): 98.32 / 1e-300 was +inf, listed as "-". */
    snprintf(csv, sizeof csv, "%sp5.48xlarge,H100,1e-300,98.32,,us-east-1,us-east-1a\n", head);
    ts_buf_init(&b);
    assert_int_equal(skypilot(csv, &b), TS_ERR_INPUT);
    assert_int_equal(b.len, 0);
    ts_buf_free(&b);
    /* A fraction of a GPU (Azure's partitioned parts) is listed as one: 0.908 / 0.5. */
    snprintf(csv, sizeof csv, "%sStandard_NV12ads_A10_v5,A10,0.5,0.908,,eastus,eastus-1\n", head);
    ts_buf_init(&b);
    assert_int_equal(skypilot(csv, &b), TS_OK);
    assert_non_null(strstr(b.data, " 0.5 "));
    assert_non_null(strstr(b.data, "1.816"));
    ts_buf_free(&b);
    snprintf(csv, sizeof csv, "%sp5.48xlarge,H100,8,8000001,,us-east-1,us-east-1a\n", head);
    ts_buf_init(&b);
    assert_int_equal(skypilot(csv, &b), TS_ERR_INPUT);
    ts_buf_free(&b);
    snprintf(csv, sizeof csv, "%sp5.48xlarge,H100,8,7999999,,us-east-1,us-east-1a\n", head);
    ts_buf_init(&b);
    assert_int_equal(skypilot(csv, &b), TS_OK);
    ts_buf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(saved_findings_and_seeds_run_clean_through_their_targets),
        cmocka_unit_test(empty_and_garbage_inputs_are_refused_quietly),
        cmocka_unit_test(the_nccl_reader_refuses_a_rank_on_two_hosts_and_an_overlong_data_line),
        cmocka_unit_test(a_tiny_gemm_keeps_its_efficiency_in_the_curve_and_one_below_1e6_is_refused),
        cmocka_unit_test(skypilot_prices_beyond_a_million_dollars_per_gpu_hour_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
