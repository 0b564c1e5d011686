/*
 * Tests of minimal hardware files: an accelerator without a measured GEMM curve gets the
 * derived one e(F) = top F / (F + P t0) (checked by hand at three sizes), flagged; a system
 * with only the keys that cannot be defaulted takes the documented defaults; the network
 * quoted per node (NICs x rate) equals the same rate per GPU.
 */
#include "test_helpers.h"

#include "spec/spec.h"

static int parse_accel(const char *text, struct ts_accel *a, struct ts_err *err)
{
    cJSON *doc = ts_test_json(text);
    struct ts_jnode r = ts_jnode_root(doc, "inline.json");
    int rc = ts_accel_parse(&r, a, err);
    cJSON_Delete(doc);
    return rc;
}

static int parse_system(const char *text, struct ts_system *s, struct ts_err *err)
{
    cJSON *doc = ts_test_json(text);
    struct ts_jnode r = ts_jnode_root(doc, "inline.json");
    int rc = ts_system_parse(&r, s, err);
    cJSON_Delete(doc);
    return rc;
}

static void an_accelerator_without_a_curve_gets_the_derived_one(void **state)
{
    (void)state;
    struct ts_accel *a = malloc(sizeof *a);
    struct ts_err err;
    assert_int_equal(parse_accel("{\"name\": \"mine\", \"generation\": \"hopper\", "
                                 "\"peak_flops\": {\"bf16\": \"1000 TFLOP/s\"}, "
                                 "\"memory\": \"80 GiB\", \"memory_bandwidth\": \"3 TB/s\"}", a, &err),
                     TS_OK);
    assert_true(a->gemm_derived);
    const double top = 0.803, pt0 = 1000e12 * 5e-6;    /* Hopper class; t0 = 5 us */
    double f[3] = {1e9, 1e11, 1e13};
    for (int i = 0; i < 3; i++)
        assert_close(ts_gemm_curve_eval(&a->gemm[TS_PREC_BF16], f[i]), top * f[i] / (f[i] + pt0),
                     0.01, 0);
    /* Same curve for the other precisions. */
    assert_close(ts_gemm_curve_eval(&a->gemm[TS_PREC_FP8], 1e11),
                 ts_gemm_curve_eval(&a->gemm[TS_PREC_BF16], 1e11), 0, 0);
    /* A part of unknown class: 0.75. */
    assert_int_equal(parse_accel("{\"name\": \"x\", \"peak_flops\": {\"bf16\": \"100 TFLOP/s\"}, "
                                 "\"memory\": \"24 GiB\", \"memory_bandwidth\": \"1 TB/s\"}", a, &err),
                     TS_OK);
    assert_close(ts_gemm_curve_eval(&a->gemm[TS_PREC_BF16], 1e14), 0.75 * 1e14 / (1e14 + 100e12 * 5e-6),
                 0.01, 0);
    /* A catalogue part keeps its measured curve. */
    assert_int_equal(ts_accel_load("h100-sxm", a, &err), TS_OK);
    assert_false(a->gemm_derived);
    free(a);
}

static void a_minimal_system_takes_the_documented_defaults(void **state)
{
    (void)state;
    struct ts_system *s = malloc(sizeof *s);
    struct ts_err err;
    assert_int_equal(parse_system("{\"name\": \"m\", \"accelerator\": \"h100-sxm\", \"gpus_per_node\": 8, "
                                  "\"scale_up\": {\"bandwidth\": \"450 GB/s\"}, "
                                  "\"scale_out\": {\"nics_per_node\": 8, \"nic_bandwidth\": \"400 Gb/s\"}}",
                                  s, &err), TS_OK);
    assert_int_equal(s->scale_up.domain_size, 8);
    assert_close(s->scale_up.latency, 8.7e-6, 0, 0);
    assert_close(s->scale_out.latency, 159e-6, 0, 0);
    assert_close(s->scale_up.efficiency, 0.8, 0, 0);
    assert_close(s->scale_out.efficiency, 0.8, 0, 0);
    assert_int_equal(s->scale_out.topology, TS_OUT_FAT_TREE);
    /* 8 NICs x 400 Gb/s per 8-GPU node = 400 Gb/s = 50 GB/s per GPU. */
    assert_close(s->scale_out.bandwidth, 50e9, 1e-12, 0);
    /* One 100 Gb/s NIC per 8 GPUs = 12.5 Gb/s per GPU. */
    assert_int_equal(parse_system("{\"name\": \"m\", \"accelerator\": \"l40s\", \"gpus_per_node\": 8, "
                                  "\"scale_up\": {\"bandwidth\": \"32 GB/s\"}, "
                                  "\"scale_out\": {\"nics_per_node\": 1, \"nic_bandwidth\": \"100 Gb/s\"}}",
                                  s, &err), TS_OK);
    assert_close(s->scale_out.bandwidth, 100e9 / 8 / 8, 1e-12, 0);
    free(s);
}

static void an_ambiguous_or_missing_network_rate_is_refused(void **state)
{
    (void)state;
    struct ts_system *s = malloc(sizeof *s);
    struct ts_err err;
    assert_int_equal(parse_system("{\"name\": \"m\", \"accelerator\": \"l40s\", \"gpus_per_node\": 8, "
                                  "\"scale_up\": {\"bandwidth\": \"32 GB/s\"}, \"scale_out\": "
                                  "{\"bandwidth\": \"100 Gb/s\", \"nics_per_node\": 1, \"nic_bandwidth\": \"100 Gb/s\"}}",
                                  s, &err), TS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "scale_out.bandwidth: give either bandwidth (per GPU)"));
    assert_int_equal(parse_system("{\"name\": \"m\", \"accelerator\": \"l40s\", \"gpus_per_node\": 8, "
                                  "\"scale_up\": {\"bandwidth\": \"32 GB/s\"}, \"scale_out\": {}}",
                                  s, &err), TS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "scale_out: give the network rate"));
    assert_int_equal(parse_system("{\"name\": \"m\", \"accelerator\": \"l40s\", \"gpus_per_node\": 8, "
                                  "\"scale_up\": {\"bandwidth\": \"32 GB/s\"}, \"scale_out\": "
                                  "{\"nics_per_node\": 2}}", s, &err), TS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "nic_bandwidth"));
    free(s);
}

static void a_per_gpu_rate_above_any_nic_is_warned_about(void **state)
{
    (void)state;
    struct ts_system *s = malloc(sizeof *s);
    struct ts_err err;
    ts_warning_clear();
    assert_int_equal(parse_system("{\"name\": \"m\", \"accelerator\": \"h100-sxm\", \"gpus_per_node\": 8, "
                                  "\"scale_up\": {\"bandwidth\": \"450 GB/s\"}, "
                                  "\"scale_out\": {\"bandwidth\": \"3.2 Tb/s\"}}", s, &err), TS_OK);
    assert_int_equal(ts_warning_count(), 1);
    assert_non_null(strstr(ts_warning_get(0), "3200 Gb/s per GPU is more than any NIC"));
    ts_warning_clear();
    assert_int_equal(parse_system("{\"name\": \"m\", \"accelerator\": \"h100-sxm\", \"gpus_per_node\": 8, "
                                  "\"scale_up\": {\"bandwidth\": \"450 GB/s\"}, "
                                  "\"scale_out\": {\"bandwidth\": \"400 Gb/s\"}}", s, &err), TS_OK);
    assert_int_equal(ts_warning_count(), 0);
    free(s);
}

static void no_catalogue_system_reads_as_a_node_total(void **state)
{
    (void)state;
    /* Every shipped system's per-GPU scale-out rate is at most one NIC's. */
    const char *names[] = {"dgx-h100", "dgx-b300", "gb200-nvl72", "aws-p5en", "l40s-8-100gbe",
                           "mi300x-8", "gcp-a3-mega"};
    struct ts_system *s = malloc(sizeof *s);
    struct ts_err err;
    ts_warning_clear();
    for (size_t i = 0; i < TS_ARRAY_LEN(names); i++) {
        assert_int_equal(ts_system_load(names[i], s, &err), TS_OK);
        assert_true(s->scale_out.bandwidth <= 800e9 / 8);
    }
    assert_int_equal(ts_warning_count(), 0);
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(an_accelerator_without_a_curve_gets_the_derived_one),
        cmocka_unit_test(a_minimal_system_takes_the_documented_defaults),
        cmocka_unit_test(an_ambiguous_or_missing_network_rate_is_refused),
        cmocka_unit_test(a_per_gpu_rate_above_any_nic_is_warned_about),
        cmocka_unit_test(no_catalogue_system_reads_as_a_node_total),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
