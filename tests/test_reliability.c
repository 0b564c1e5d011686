/*
 * Tests of the reliability section parser (sim/spec/reliability.c): the Llama 3 derived
 * defaults, every key, and every class of bad input, whose messages must name the file and
 * the JSON path.
 */
#include "test_helpers.h"

#include "run/run.h"
#include "spec/spec.h"

/* ---------------------------------------------------------------- helpers */

/* Parse `text` as the value of "reliability" in test.json, over the defaults. */
static int parse_rel(const char *text, struct ts_reliability *r, struct ts_err *err)
{
    char doc_text[4096];
    snprintf(doc_text, sizeof doc_text, "{\"reliability\": %s}", text);
    cJSON *doc = ts_test_json(doc_text);
    struct ts_jnode root = ts_jnode_root(doc, "test.json"), node;
    assert_true(ts_jnode_child(&root, "reliability", &node));
    ts_reliability_defaults(r);
    ts_err_clear(err);
    int rc = ts_reliability_parse(&node, r, err);
    cJSON_Delete(doc);
    return rc;
}

static void assert_rejected(const char *text, const char *needle)
{
    struct ts_reliability r;
    struct ts_err err;
    int rc = parse_rel(text, &r, &err);
    assert_input_error(rc, &err, needle);
}

#define LLAMA3_WINDOW_S (54.0 * 86400.0)

/* ---------------------------------------------------------------- defaults */

#define DAY (86400.0)
#define HOUR (3600.0)

/* Job MTBF of `r` (defaults of fleet f) for a job of `gpus` GPUs in 8-GPU nodes. */
static double fleet_job_mtbf(enum ts_fleet f, int gpus)
{
    struct ts_reliability r;
    ts_reliability_defaults(&r);
    r.fleet = f;
    ts_reliability_apply_defaults(&r, TS_GEN_HOPPER);
    assert_int_equal(r.fleet_used, f);
    return ts_run_job_mtbf(&r, gpus, (gpus + 7) / 8);
}

static void defaults_give_the_llama3_job_419_interruptions_in_54_days(void **state)
{
    (void)state;
    struct ts_reliability r;
    ts_reliability_defaults(&r);
    double M = ts_run_job_mtbf(&r, 16384, 2048);
    assert_close(LLAMA3_WINDOW_S / M, 419.0, 1e-9, 0.0);
    assert_close(M / 3600.0, 54.0 * 24.0 / 419.0, 1e-9, 0.0);   // 3.09 h
}

/* Llama 3 Table 5 counts grouped by component (published/README.md D3): 268 GPU, 46 host,
 * 7 NIC, 35 switch/cable, 63 software of 419; every process per GPU or per node. */
static void defaults_split_the_llama3_table5_counts_into_per_gpu_and_per_node_processes(void **state)
{
    (void)state;
    struct ts_reliability r;
    ts_reliability_defaults(&r);
    assert_int_equal(r.n_failures, 5);
    const enum ts_component comp[5] = {TS_COMP_GPU, TS_COMP_NODE, TS_COMP_NETWORK, TS_COMP_SWITCH,
                                       TS_COMP_SOFTWARE};
    const double count[5] = {268, 46, 7, 35, 63};
    const double copies[5] = {16384, 2048, 2048, 2048, 2048};
    for (int i = 0; i < 5; i++) {
        assert_int_equal(r.failures[i].component, comp[i]);
        assert_int_equal(r.failures[i].distribution, TS_DIST_EXPONENTIAL);
        assert_close(r.failures[i].shape, 1.0, 0.0, 0.0);
        // interruptions of this process in the 54-day window at Llama 3 scale
        assert_close(copies[i] * LLAMA3_WINDOW_S / r.failures[i].mtbf_s, count[i], 1e-9, 0.0);
        assert_true(r.failures[i].component != TS_COMP_JOB);   // nothing size-independent
    }
    // one GPU fails once per 16,384 x 54 / 268 GPU-days = 9.04 GPU-years (D3)
    assert_close(r.failures[0].mtbf_s / (365.25 * DAY), 16384.0 * 54.0 / 268.0 / 365.25, 1e-9, 0.0);
    assert_close(r.failures[0].mtbf_s / (365.25 * DAY), 9.04, 2e-3, 0.0);
    assert_string_equal(r.failures[4].name, "software");
    assert_false(ts_component_takes_node(TS_COMP_SOFTWARE));
    assert_true(ts_component_takes_node(TS_COMP_SWITCH));
}

/* Published job MTTF against size (published/README.md): Llama 3 3.09 h at 16,384 H100;
 * Kokolis et al. Figure 7 47.7 d at 8 and 7.9 h at 1,024 A100 (the research-cluster
 * preset), and the paper's projection from r_f = 6.50: 1.8 h at 16,384 (the a100 preset).
 * Within 10%. */
static void default_job_mtbf_matches_the_published_figures_from_8_to_16384_gpus(void **state)
{
    (void)state;
    assert_close(fleet_job_mtbf(TS_FLEET_H100, 16384) / HOUR, 3.09, 0.10, 0.0);
    assert_close(fleet_job_mtbf(TS_FLEET_A100_RESEARCH, 8) / DAY, 47.7, 0.10, 0.0);
    assert_close(fleet_job_mtbf(TS_FLEET_A100_RESEARCH, 1024) / HOUR, 7.9, 0.10, 0.0);
    assert_close(fleet_job_mtbf(TS_FLEET_A100, 16384) / HOUR, 1.80, 0.10, 0.0);
    // the H100 row of the proposed table: 264 d at 8 GPUs, 49.5 h at 1,024
    assert_close(fleet_job_mtbf(TS_FLEET_H100, 8) / DAY, 264.0, 0.01, 0.0);
    assert_close(fleet_job_mtbf(TS_FLEET_H100, 1024) / HOUR, 49.5, 0.01, 0.0);
}

/* No size-independent process dominates small jobs: from 8 to 1,024 GPUs the job MTBF falls
 * by the node-count ratio, 128 (with the old per-job software process it was 1.24). */
static void job_mtbf_falls_with_the_node_count_from_8_to_1024_gpus(void **state)
{
    (void)state;
    for (int f = TS_FLEET_H100; f < TS_FLEET_COUNT; f++)
        assert_close(fleet_job_mtbf((enum ts_fleet)f, 8) / fleet_job_mtbf((enum ts_fleet)f, 1024),
                     128.0, 1e-12, 0.0);
}

static void rate_scale_two_halves_the_job_mtbf_exactly(void **state)
{
    (void)state;
    struct ts_reliability r;
    struct ts_err err;
    assert_int_equal(parse_rel("{\"rate_scale\": 2}", &r, &err), TS_OK);
    assert_close(r.rate_scale, 2.0, 0.0, 0.0);
    struct ts_reliability d;
    ts_reliability_defaults(&d);
    for (int gpus = 8; gpus <= 16384; gpus *= 8)
        assert_true(ts_run_job_mtbf(&r, gpus, gpus / 8) == ts_run_job_mtbf(&d, gpus, gpus / 8) / 2.0);
    // it scales processes given in the file too, but not spot preemption
    assert_int_equal(parse_rel("{\"rate_scale\": 0.5, \"failures\": [{\"component\": \"job\", "
                               "\"mtbf\": \"10 h\"}]}", &r, &err), TS_OK);
    assert_close(ts_run_job_mtbf(&r, 8, 1), 20.0 * HOUR, 1e-12, 0.0);
    assert_int_equal(parse_rel("{\"rate_scale\": 3, \"failures\": [], \"spot\": "
                               "{\"preemption_mtbf\": \"10 h\"}}", &r, &err), TS_OK);
    assert_close(ts_run_job_mtbf(&r, 8, 1), 10.0 * HOUR, 1e-12, 0.0);
}

static void default_fleet_follows_the_accelerator_generation(void **state)
{
    (void)state;
    const struct {
        enum ts_generation gen;
        enum ts_fleet fleet;
        bool assumed;
    } cases[] = {
        {TS_GEN_AMPERE, TS_FLEET_A100, false},    {TS_GEN_HOPPER, TS_FLEET_H100, false},
        {TS_GEN_BLACKWELL, TS_FLEET_H100, false}, {TS_GEN_CDNA3, TS_FLEET_H100, true},
        {TS_GEN_UNKNOWN, TS_FLEET_H100, true},
    };
    char buf[256];
    for (size_t i = 0; i < TS_ARRAY_LEN(cases); i++) {
        struct ts_reliability r;
        ts_reliability_defaults(&r);
        ts_reliability_apply_defaults(&r, cases[i].gen);
        assert_int_equal(r.fleet_used, cases[i].fleet);
        assert_int_equal(r.fleet_assumed, cases[i].assumed);
        ts_reliability_source(&r, buf, sizeof buf);
        assert_non_null(strstr(buf, "default ("));
        assert_int_equal(strstr(buf, "assumed") != NULL, cases[i].assumed);
        assert_non_null(ts_reliability_default_cite(&r, 0, buf, sizeof buf));
    }
    // A100: Kokolis's RSC-1 rate 6.50 per 1,000 node-days, 8 GPUs per node
    struct ts_reliability r;
    ts_reliability_defaults(&r);
    ts_reliability_apply_defaults(&r, TS_GEN_AMPERE);
    assert_close(1000.0 * DAY / ts_run_job_mtbf(&r, 8, 1), 6.50, 1e-12, 0.0);
    // processes from the file are kept whatever the generation
    struct ts_err err;
    assert_int_equal(parse_rel("{\"failures\": [{\"component\": \"gpu\", \"mtbf\": \"1 y\"}]}", &r,
                               &err), TS_OK);
    ts_reliability_apply_defaults(&r, TS_GEN_AMPERE);
    assert_int_equal(r.n_failures, 1);
    assert_string_equal(ts_reliability_source(&r, buf, sizeof buf), "file");
    assert_null(ts_reliability_default_cite(&r, 0, buf, sizeof buf));
}

static void fleet_key_picks_the_default_processes(void **state)
{
    (void)state;
    struct ts_reliability r;
    struct ts_err err;
    assert_int_equal(parse_rel("{\"fleet\": \"a100-research\"}", &r, &err), TS_OK);
    ts_reliability_apply_defaults(&r, TS_GEN_HOPPER);
    assert_int_equal(r.fleet_used, TS_FLEET_A100_RESEARCH);
    assert_false(r.fleet_assumed);
}

static void reliability_none_has_no_failures_and_no_spot(void **state)
{
    (void)state;
    struct ts_reliability r;
    struct ts_err err;
    assert_int_equal(parse_rel("\"none\"", &r, &err), TS_OK);
    assert_true(r.none);
    assert_true(r.section_given);
    assert_int_equal(r.n_failures, 0);
    assert_false(r.spot.enabled);
    ts_reliability_apply_defaults(&r, TS_GEN_HOPPER);
    assert_int_equal(r.n_failures, 0);
    assert_true(isinf(ts_run_job_mtbf(&r, 16384, 2048)));
    char buf[64];
    assert_string_equal(ts_reliability_source(&r, buf, sizeof buf), "none");
}

static void bad_none_fleet_and_rate_scale_values_are_rejected_naming_the_key(void **state)
{
    (void)state;
    assert_rejected("\"off\"", "test.json: reliability: \"off\" is not an object or \"none\"");
    assert_rejected("[]", "test.json: reliability: ");
    assert_rejected("{\"rate_scale\": 0}", "test.json: reliability.rate_scale: must be greater than zero");
    assert_rejected("{\"rate_scale\": -2}", "test.json: reliability.rate_scale:");
    assert_rejected("{\"rate_scale\": \"twice\"}", "test.json: reliability.rate_scale:");
    assert_rejected("{\"rate_scale\": 1e6}", "test.json: reliability.rate_scale: 1000000 is out of range");
    assert_rejected("{\"fleet\": \"tpu\"}", "test.json: reliability.fleet:");
    assert_rejected("{\"fleet\": \"a100\", \"failures\": []}",
                    "test.json: reliability.fleet: \"fleet\" picks the default failure processes");
}

static void defaults_follow_the_documented_checkpoint_restart_and_monte_carlo_values(void **state)
{
    (void)state;
    struct ts_reliability r;
    ts_reliability_defaults(&r);
    assert_true(r.checkpoint.interval_auto);
    assert_int_equal(r.checkpoint.mode, TS_CKPT_SYNC);
    assert_close(r.checkpoint.node_write_bandwidth, 1e9, 0.0, 0.0);
    assert_close(r.checkpoint.node_read_bandwidth, 2.5e9, 0.0, 0.0);
    assert_close(r.checkpoint.write_bandwidth, 0.0, 0.0, 0.0);
    assert_close(r.checkpoint.read_bandwidth, 0.0, 0.0, 0.0);
    assert_close(r.checkpoint.snapshot_bandwidth, 25e9, 0.0, 0.0);
    assert_close(r.checkpoint.size_bytes, 0.0, 0.0, 0.0);
    assert_int_equal(r.checkpoint.keep, 2);
    assert_close(r.restart_overhead_s, 600.0, 0.0, 0.0);
    assert_int_equal(r.spares, 0);
    assert_close(r.repair_time_s, 0.0, 0.0, 0.0);
    assert_false(r.elastic);
    assert_false(r.spot.enabled);
    assert_int_equal(r.replications, 1000);
    assert_int_equal(r.seed, 1);
}

static void empty_object_keeps_every_default(void **state)
{
    (void)state;
    struct ts_reliability r, d;
    struct ts_err err;
    assert_int_equal(parse_rel("{}", &r, &err), TS_OK);
    ts_reliability_defaults(&d);
    d.section_given = true;     // the only difference: the key was there
    assert_memory_equal(&r, &d, sizeof r);
}

/* ---------------------------------------------------------------- every key */

static void full_document_sets_every_key(void **state)
{
    (void)state;
    struct ts_reliability r;
    struct ts_err err;
    int rc = parse_rel(
        "{\"failures\": [{\"component\": \"gpu\", \"mtbf\": \"5.8 y\", \"name\": \"hbm\"},"
        "                {\"component\": \"network\", \"mtbf\": \"1000 d\", \"distribution\": \"weibull\","
        "                 \"shape\": 0.7}],"
        " \"checkpoint\": {\"interval\": \"30 min\", \"mode\": \"async\", \"size\": \"2.3 TB\","
        "   \"write_bandwidth\": \"100 GB/s\", \"read_bandwidth\": \"400 GB/s\","
        "   \"node_write_bandwidth\": \"2 GB/s\", \"node_read_bandwidth\": \"5 GB/s\","
        "   \"snapshot_bandwidth\": \"50 GB/s\", \"keep\": 3},"
        " \"restart_overhead\": \"12 min\", \"spares\": 16, \"repair_time\": \"6 h\", \"elastic\": true,"
        " \"spot\": {\"preemption_mtbf\": \"30 d\", \"notice\": \"30 s\", \"reacquire\": \"1 h\"},"
        " \"replications\": 200, \"seed\": 9007199254740992}",
        &r, &err);
    assert_int_equal(rc, TS_OK);
    assert_int_equal(r.n_failures, 2);
    assert_int_equal(r.failures[0].component, TS_COMP_GPU);
    assert_close(r.failures[0].mtbf_s, 5.8 * 365.25 * 86400.0, 1e-12, 0.0);
    assert_string_equal(r.failures[0].name, "hbm");
    assert_int_equal(r.failures[1].component, TS_COMP_NETWORK);
    assert_int_equal(r.failures[1].distribution, TS_DIST_WEIBULL);
    assert_close(r.failures[1].shape, 0.7, 0.0, 0.0);
    assert_string_equal(r.failures[1].name, "network");
    assert_false(r.checkpoint.interval_auto);
    assert_close(r.checkpoint.interval_s, 1800.0, 0.0, 0.0);
    assert_int_equal(r.checkpoint.mode, TS_CKPT_ASYNC);
    assert_close(r.checkpoint.size_bytes, 2.3e12, 1e-12, 0.0);
    assert_close(r.checkpoint.write_bandwidth, 100e9, 1e-12, 0.0);
    assert_close(r.checkpoint.read_bandwidth, 400e9, 1e-12, 0.0);
    assert_close(r.checkpoint.node_write_bandwidth, 2e9, 1e-12, 0.0);
    assert_close(r.checkpoint.node_read_bandwidth, 5e9, 1e-12, 0.0);
    assert_close(r.checkpoint.snapshot_bandwidth, 50e9, 1e-12, 0.0);
    assert_int_equal(r.checkpoint.keep, 3);
    assert_close(r.restart_overhead_s, 720.0, 0.0, 0.0);
    assert_int_equal(r.spares, 16);
    assert_close(r.repair_time_s, 6 * 3600.0, 0.0, 0.0);
    assert_true(r.elastic);
    assert_true(r.spot.enabled);
    assert_close(r.spot.preemption_mtbf_s, 30 * 86400.0, 0.0, 0.0);
    assert_close(r.spot.notice_s, 30.0, 0.0, 0.0);
    assert_close(r.spot.reacquire_s, 3600.0, 0.0, 0.0);
    assert_int_equal(r.replications, 200);
    assert_true(r.seed == UINT64_C(9007199254740992));
}

static void empty_failure_list_means_no_failures(void **state)
{
    (void)state;
    struct ts_reliability r;
    struct ts_err err;
    assert_int_equal(parse_rel("{\"failures\": []}", &r, &err), TS_OK);
    assert_int_equal(r.n_failures, 0);
    assert_true(isinf(ts_run_job_mtbf(&r, 16384, 2048)));
}

static void spot_object_enables_spot_with_aws_notice_and_ten_minute_reacquire(void **state)
{
    (void)state;
    struct ts_reliability r;
    struct ts_err err;
    assert_int_equal(parse_rel("{\"spot\": {\"preemption_mtbf\": \"10 d\"}}", &r, &err), TS_OK);
    assert_true(r.spot.enabled);
    assert_close(r.spot.preemption_mtbf_s, 864000.0, 0.0, 0.0);
    assert_close(r.spot.notice_s, 120.0, 0.0, 0.0);
    assert_close(r.spot.reacquire_s, 600.0, 0.0, 0.0);
}

static void checkpoint_interval_accepts_auto_a_duration_or_iterations(void **state)
{
    (void)state;
    struct ts_reliability r;
    struct ts_err err;
    assert_int_equal(parse_rel("{\"checkpoint\": {\"interval\": \"auto\"}}", &r, &err), TS_OK);
    assert_true(r.checkpoint.interval_auto);
    assert_int_equal(parse_rel("{\"checkpoint\": {\"interval\": 900}}", &r, &err), TS_OK);
    assert_false(r.checkpoint.interval_auto);
    assert_close(r.checkpoint.interval_s, 900.0, 0.0, 0.0);
    assert_int_equal(parse_rel("{\"checkpoint\": {\"interval_iterations\": 500}}", &r, &err), TS_OK);
    assert_false(r.checkpoint.interval_auto);
    assert_int_equal(r.checkpoint.interval_iterations, 500);
}

static void weibull_process_without_shape_has_shape_one(void **state)
{
    (void)state;
    struct ts_reliability r;
    struct ts_err err;
    assert_int_equal(parse_rel("{\"failures\": [{\"component\": \"node\", \"mtbf\": \"3 y\", "
                               "\"distribution\": \"weibull\"}]}", &r, &err), TS_OK);
    assert_int_equal(r.failures[0].distribution, TS_DIST_WEIBULL);
    assert_close(r.failures[0].shape, 1.0, 0.0, 0.0);
}

static void an_aggregate_limit_alone_is_enough_for_checkpoints(void **state)
{
    (void)state;
    struct ts_reliability r;
    struct ts_err err;
    assert_int_equal(parse_rel("{\"checkpoint\": {\"node_write_bandwidth\": 0, "
                               "\"write_bandwidth\": \"1 TB/s\"}}", &r, &err), TS_OK);
    assert_close(r.checkpoint.node_write_bandwidth, 0.0, 0.0, 0.0);
    assert_close(r.checkpoint.write_bandwidth, 1e12, 1e-12, 0.0);
}

/* ---------------------------------------------------------------- bad input */

static void reliability_that_is_not_an_object_is_rejected(void **state)
{
    (void)state;
    assert_rejected("[]", "test.json: reliability: an array is not an object or \"none\"");
    assert_rejected("true", "test.json: reliability: true is not an object or \"none\"");
}

static void misspelt_keys_are_rejected_at_every_level_with_their_path(void **state)
{
    (void)state;
    assert_rejected("{\"restart\": 60}", "test.json: reliability.restart: unknown key");
    assert_rejected("{\"failures\": [{\"component\": \"gpu\", \"mtbf\": 1e8}, "
                    "{\"component\": \"gpu\", \"mtfb\": 1e8}]}",
                    "test.json: reliability.failures[1].mtfb: unknown key");
    assert_rejected("{\"checkpoint\": {\"intervall\": 60}}",
                    "test.json: reliability.checkpoint.intervall: unknown key");
    assert_rejected("{\"spot\": {\"preemption_mtbf\": 1e6, \"warning\": 30}}",
                    "test.json: reliability.spot.warning: unknown key");
    assert_rejected("{\"spares\": 1, \"spares\": 2}", "test.json: reliability.spares: key appears twice");
}

static void failure_process_needs_a_known_component_and_a_positive_mtbf(void **state)
{
    (void)state;
    assert_rejected("{\"failures\": [{\"mtbf\": 1e8}]}",
                    "test.json: reliability.failures[0].component: required key is missing");
    assert_rejected("{\"failures\": [{\"component\": \"disk\", \"mtbf\": 1e8}]}",
                    "test.json: reliability.failures[0].component: \"disk\" is not one of");
    assert_rejected("{\"failures\": [{\"component\": \"gpu\"}]}",
                    "test.json: reliability.failures[0].mtbf: required key is missing");
    assert_rejected("{\"failures\": [{\"component\": \"gpu\", \"mtbf\": 1}, {\"component\": \"job\", "
                    "\"mtbf\": 1}, {\"component\": \"node\", \"mtbf\": 0}]}",
                    "test.json: reliability.failures[2].mtbf: must be greater than zero");
    assert_rejected("{\"failures\": [{\"component\": \"gpu\", \"mtbf\": \"-3 d\"}]}",
                    "test.json: reliability.failures[0].mtbf: \"-3 d\" must not be negative");
    assert_rejected("{\"failures\": [{\"component\": \"gpu\", \"mtbf\": \"3 GB\"}]}",
                    "test.json: reliability.failures[0].mtbf:");
    assert_rejected("{\"failures\": [{\"component\": \"gpu\", \"mtbf\": 1e8, \"distribution\": "
                    "\"lognormal\"}]}",
                    "test.json: reliability.failures[0].distribution: \"lognormal\" is not one of");
    assert_rejected("{\"failures\": {\"component\": \"gpu\", \"mtbf\": 1e8}}",
                    "test.json: reliability.failures: expected an array");
    assert_rejected("{\"failures\": [{\"component\": \"gpu\", \"mtbf\": 1e8, \"name\": "
                    "\"a label far too long for the thirty-two byte name field\"}]}",
                    "test.json: reliability.failures[0].name: string is too long");
}

static void weibull_shape_must_be_positive_and_exponential_shape_must_be_one(void **state)
{
    (void)state;
    assert_rejected("{\"failures\": [{\"component\": \"gpu\", \"mtbf\": 1e8, \"shape\": 2}]}",
                    "test.json: reliability.failures[0].shape: an exponential process has shape 1");
    assert_rejected("{\"failures\": [{\"component\": \"gpu\", \"mtbf\": 1e8, \"distribution\": "
                    "\"weibull\", \"shape\": 0}]}",
                    "test.json: reliability.failures[0].shape: must be greater than zero");
    assert_rejected("{\"failures\": [{\"component\": \"gpu\", \"mtbf\": 1e8, \"distribution\": "
                    "\"weibull\", \"shape\": 5000}]}",
                    "test.json: reliability.failures[0].shape: 5000 is out of range");
}

static void more_than_sixteen_failure_processes_are_rejected(void **state)
{
    (void)state;
    char text[4096] = "{\"failures\": [";
    for (int i = 0; i < 17; i++)
        strcat(text, i ? ", {\"component\": \"job\", \"mtbf\": 1e6}" : "{\"component\": \"job\", \"mtbf\": 1e6}");
    strcat(text, "]}");
    assert_rejected(text, "test.json: reliability.failures: 17 failure processes; at most 16");
}

static void checkpoint_interval_and_interval_iterations_together_are_rejected(void **state)
{
    (void)state;
    assert_rejected("{\"checkpoint\": {\"interval\": \"auto\", \"interval_iterations\": 100}}",
                    "test.json: reliability.checkpoint.interval_iterations: give either");
    assert_rejected("{\"checkpoint\": {\"interval\": \"1 h\", \"interval_iterations\": 100}}",
                    "test.json: reliability.checkpoint.interval_iterations: give either");
}

static void checkpoint_interval_that_is_not_auto_or_a_positive_duration_is_rejected(void **state)
{
    (void)state;
    assert_rejected("{\"checkpoint\": {\"interval\": \"soon\"}}",
                    "test.json: reliability.checkpoint.interval:");
    assert_rejected("{\"checkpoint\": {\"interval\": \"soon\"}}", "or \"auto\" for Daly's optimum");
    assert_rejected("{\"checkpoint\": {\"interval\": 0}}",
                    "test.json: reliability.checkpoint.interval: must be greater than zero");
    assert_rejected("{\"checkpoint\": {\"interval\": \"-5 min\"}}",
                    "test.json: reliability.checkpoint.interval: \"-5 min\" must not be negative");
    assert_rejected("{\"checkpoint\": {\"interval\": true}}",
                    "test.json: reliability.checkpoint.interval: expected a duration");
    assert_rejected("{\"checkpoint\": {\"interval_iterations\": 0}}",
                    "test.json: reliability.checkpoint.interval_iterations: 0 is out of range");
    assert_rejected("{\"checkpoint\": {\"interval_iterations\": 2.5}}",
                    "test.json: reliability.checkpoint.interval_iterations: 2.5 must be a whole number");
}

static void checkpoint_bad_mode_size_bandwidths_and_keep_are_rejected(void **state)
{
    (void)state;
    assert_rejected("{\"checkpoint\": {\"mode\": \"lazy\"}}",
                    "test.json: reliability.checkpoint.mode: \"lazy\" is not one of \"sync\" | \"async\"");
    assert_rejected("{\"checkpoint\": {\"size\": 0}}",
                    "test.json: reliability.checkpoint.size: must be greater than zero");
    assert_rejected("{\"checkpoint\": {\"size\": \"2 TB/s\"}}", "test.json: reliability.checkpoint.size:");
    assert_rejected("{\"checkpoint\": {\"write_bandwidth\": -1}}",
                    "test.json: reliability.checkpoint.write_bandwidth: -1 must not be negative");
    assert_rejected("{\"checkpoint\": {\"node_read_bandwidth\": \"2 GB\"}}",
                    "test.json: reliability.checkpoint.node_read_bandwidth:");
    assert_rejected("{\"checkpoint\": {\"node_write_bandwidth\": 0}}",
                    "test.json: reliability.checkpoint.node_write_bandwidth: no bandwidth limit is left");
    assert_rejected("{\"checkpoint\": {\"node_read_bandwidth\": 0, \"read_bandwidth\": 0}}",
                    "test.json: reliability.checkpoint.node_read_bandwidth: no bandwidth limit is left");
    assert_rejected("{\"checkpoint\": {\"snapshot_bandwidth\": 0}}",
                    "test.json: reliability.checkpoint.snapshot_bandwidth: must be greater than zero");
    assert_rejected("{\"checkpoint\": {\"keep\": 0}}", "test.json: reliability.checkpoint.keep: 0 is out of range");
    assert_rejected("{\"checkpoint\": []}", "test.json: reliability.checkpoint: expected an object");
}

static void bad_restart_spares_repair_elastic_and_monte_carlo_values_are_rejected(void **state)
{
    (void)state;
    assert_rejected("{\"restart_overhead\": \"-1 min\"}",
                    "test.json: reliability.restart_overhead: \"-1 min\" must not be negative");
    assert_rejected("{\"restart_overhead\": \"10 GB\"}", "test.json: reliability.restart_overhead:");
    assert_rejected("{\"spares\": -1}", "test.json: reliability.spares: -1 must not be negative");
    assert_rejected("{\"spares\": 1.5}", "test.json: reliability.spares: 1.5 must be a whole number");
    assert_rejected("{\"repair_time\": \"-2 h\"}", "test.json: reliability.repair_time:");
    assert_rejected("{\"elastic\": \"yes\"}", "test.json: reliability.elastic: expected true or false");
    assert_rejected("{\"replications\": 0}", "test.json: reliability.replications: 0 is out of range");
    assert_rejected("{\"replications\": 2000000}", "test.json: reliability.replications: 2000000 is out of range");
    assert_rejected("{\"seed\": -1}", "test.json: reliability.seed: -1 must not be negative");
    assert_rejected("{\"seed\": 1e17}", "test.json: reliability.seed:");
}

/* In-range syntax, out-of-range physics: values that are valid numbers but would underflow
 * or overflow the run model's arithmetic are rejected with their valid range. */
static void extreme_values_are_rejected_with_their_valid_range(void **state)
{
    (void)state;
    assert_rejected("{\"failures\": [{\"component\": \"gpu\", \"mtbf\": \"1e-320 s\"}]}",
                    "test.json: reliability.failures[0].mtbf: \"1e-320 s\" is out of range "
                    "(allowed 1 s to ");
    assert_rejected("{\"failures\": [{\"component\": \"node\", \"mtbf\": 0.5}]}",
                    "test.json: reliability.failures[0].mtbf: 0.5 is out of range "
                    "(allowed 1 s to ");
    assert_rejected("{\"failures\": [{\"component\": \"gpu\", \"mtbf\": 1e300}]}",
                    "test.json: reliability.failures[0].mtbf: 1e+300 is out of range");
    assert_rejected("{\"failures\": [{\"component\": \"gpu\", \"mtbf\": 1e8, \"distribution\": "
                    "\"weibull\", \"shape\": 0.005}]}",
                    "test.json: reliability.failures[0].shape: 0.005 is out of range (allowed 0.1 "
                    "to 1000)");
    assert_rejected("{\"failures\": [{\"component\": \"gpu\", \"mtbf\": 1e8, \"distribution\": "
                    "\"weibull\", \"shape\": 1e-320}]}",
                    "test.json: reliability.failures[0].shape: ");
    assert_rejected("{\"checkpoint\": {\"size\": 0.5}}",
                    "test.json: reliability.checkpoint.size: 0.5 is out of range (allowed 1 B to ");
    assert_rejected("{\"checkpoint\": {\"write_bandwidth\": 1e-320}}",
                    "test.json: reliability.checkpoint.write_bandwidth: ");
    assert_rejected("{\"checkpoint\": {\"node_read_bandwidth\": 0.001}}",
                    "test.json: reliability.checkpoint.node_read_bandwidth: 0.001 is out of range "
                    "(allowed 0 for no limit, or 1 B/s to 10 PB/s)");
    assert_rejected("{\"checkpoint\": {\"mode\": \"async\", \"snapshot_bandwidth\": 1e-300}}",
                    "test.json: reliability.checkpoint.snapshot_bandwidth: 1e-300 is out of range "
                    "(allowed 1 B/s to 10 PB/s)");
    assert_rejected("{\"spot\": {\"preemption_mtbf\": \"1e-320 s\"}}",
                    "test.json: reliability.spot.preemption_mtbf: \"1e-320 s\" is out of range");
    assert_rejected("{\"restart_overhead\": 1e10}",
                    "test.json: reliability.restart_overhead: 10000000000 is out of range "
                    "(allowed 0 s to ");
    /* The ends of the ranges are accepted. */
    struct ts_reliability r;
    struct ts_err err;
    assert_int_equal(parse_rel("{\"failures\": [{\"component\": \"gpu\", \"mtbf\": \"1 s\", "
                               "\"distribution\": \"weibull\", \"shape\": 0.1}, {\"component\": "
                               "\"job\", \"mtbf\": 1e13, \"distribution\": \"weibull\", \"shape\": "
                               "1000}], \"checkpoint\": {\"size\": 1, \"write_bandwidth\": 1, "
                               "\"snapshot_bandwidth\": 1e16}, \"restart_overhead\": 1e9, "
                               "\"spot\": {\"preemption_mtbf\": 1, \"notice\": 1e9}}", &r, &err),
                     TS_OK);
    assert_close(r.failures[0].mtbf_s, 1.0, 0, 0);
    assert_close(r.failures[0].shape, 0.1, 0, 0);
    assert_close(r.failures[1].shape, 1000.0, 0, 0);
    assert_close(r.checkpoint.size_bytes, 1.0, 0, 0);
    assert_close(r.checkpoint.write_bandwidth, 1.0, 0, 0);
}

static void spot_needs_a_positive_preemption_mtbf(void **state)
{
    (void)state;
    assert_rejected("{\"spot\": {}}", "test.json: reliability.spot.preemption_mtbf: required key is missing");
    assert_rejected("{\"spot\": {\"preemption_mtbf\": 0}}",
                    "test.json: reliability.spot.preemption_mtbf: must be greater than zero");
    assert_rejected("{\"spot\": {\"preemption_mtbf\": 1e6, \"notice\": -30}}",
                    "test.json: reliability.spot.notice: -30 must not be negative");
    assert_rejected("{\"spot\": {\"preemption_mtbf\": 1e6, \"reacquire\": \"soon\"}}",
                    "test.json: reliability.spot.reacquire:");
    assert_rejected("{\"spot\": true}", "test.json: reliability.spot: expected an object");
}


/* ---------------------------------------------------------------- recovery and incidents */

static void mechanisms_are_off_by_default_with_the_pytorch_hang_timeout(void **state)
{
    (void)state;
    struct ts_reliability r;
    ts_reliability_defaults(&r);
    assert_close(r.mech.recovery.hang_timeout_s, 600.0, 0.0, 0.0);   // PyTorch PR 110947
    assert_close(r.mech.recovery.hang_fraction, 0.0, 0.0, 0.0);
    assert_close(r.mech.recovery.diagnose_median_s, 0.0, 0.0, 0.0);
    assert_close(r.mech.fail_slow.gpu_mtbf_s, 0.0, 0.0, 0.0);
    assert_close(r.mech.bad_nodes.fraction, 0.0, 0.0, 0.0);
    assert_close(r.mech.correlated.domain_mtbf_s, 0.0, 0.0, 0.0);
    assert_close(r.mech.rollback.fraction, 0.0, 0.0, 0.0);
    assert_close(r.mech.planned.node_mtbf_s, 0.0, 0.0, 0.0);
}

static void default_recovery_is_automated_diagnosis_with_watchdog_hangs_per_process(void **state)
{
    (void)state;
    struct ts_reliability r;
    struct ts_err err;
    // Neither restart_overhead nor recovery: the cited default phases.
    assert_int_equal(parse_rel("{\"replications\": 10}", &r, &err), TS_OK);
    ts_reliability_apply_defaults(&r, TS_GEN_HOPPER);
    assert_int_equal(r.recovery_mode, TS_RECOVERY_DEFAULT);
    assert_close(r.restart_overhead_s, 0.0, 0.0, 0.0);
    assert_close(r.mech.recovery.crash_detect_s, 0.0, 0.0, 0.0);
    assert_close(r.mech.recovery.hang_timeout_s, 600.0, 0.0, 0.0);   // PyTorch PR 110947
    assert_close(r.mech.recovery.diagnose_median_s, 600.0, 0.0, 0.0); // Kokolis u0, D10
    assert_close(r.mech.recovery.diagnose_sigma, log(4.0) / (2 * 1.2816), 1e-3, 0.0);
    assert_close(r.mech.recovery.startup_per_node_s, 0.05, 0.0, 0.0);
    assert_string_equal(r.mech.recovery.diagnose_preset, "automated");
    // Hang shares by process: GPU and host crash; NIC and switch/cable hang; 7 of the 63
    // software interruptions of Llama 3 Table 5 were NCCL watchdog timeouts.
    const double want[] = {0.0, 0.0, 1.0, 1.0, 7.0 / 63.0};
    assert_int_equal(r.n_failures, 5);
    for (int i = 0; i < 5; i++)
        assert_close(r.failures[i].hang_fraction, want[i], 1e-15, 0.0);
    // Idempotent (a sweep applies the defaults to every row).
    ts_reliability_apply_defaults(&r, TS_GEN_HOPPER);
    assert_close(r.restart_overhead_s, 0.0, 0.0, 0.0);
    assert_close(r.failures[4].hang_fraction, 7.0 / 63.0, 1e-15, 0.0);

    // restart_overhead alone: a constant restart (Daly's setting): no phase, no hang.
    assert_int_equal(parse_rel("{\"restart_overhead\": \"12 min\"}", &r, &err), TS_OK);
    ts_reliability_apply_defaults(&r, TS_GEN_HOPPER);
    assert_int_equal(r.recovery_mode, TS_RECOVERY_CONSTANT);
    assert_close(r.restart_overhead_s, 720.0, 0.0, 0.0);
    assert_close(r.mech.recovery.diagnose_median_s, 0.0, 0.0, 0.0);
    assert_close(r.mech.recovery.startup_per_node_s, 0.0, 0.0, 0.0);
    for (int i = 0; i < r.n_failures; i++)
        assert_close(r.failures[i].hang_fraction, 0.0, 0.0, 0.0);

    // A recovery object: the phases it names; a hang_fraction in it applies to every process.
    assert_int_equal(parse_rel("{\"recovery\": {\"hang_fraction\": 0.3, \"diagnose\": \"none\"}}",
                               &r, &err), TS_OK);
    ts_reliability_apply_defaults(&r, TS_GEN_AMPERE);
    assert_int_equal(r.recovery_mode, TS_RECOVERY_GIVEN);
    assert_close(r.mech.recovery.diagnose_median_s, 0.0, 0.0, 0.0);
    for (int i = 0; i < r.n_failures; i++)
        assert_close(r.failures[i].hang_fraction, 0.3, 0.0, 0.0);
    // Given processes keep their own share (0 unless set).
    assert_int_equal(parse_rel("{\"failures\": [{\"component\": \"switch\", \"mtbf\": \"1 y\","
                               " \"hang_fraction\": 0.5}, {\"component\": \"gpu\", \"mtbf\": \"5 y\"}]}",
                               &r, &err), TS_OK);
    ts_reliability_apply_defaults(&r, TS_GEN_HOPPER);
    assert_int_equal(r.recovery_mode, TS_RECOVERY_DEFAULT);
    assert_close(r.failures[0].hang_fraction, 0.5, 0.0, 0.0);
    assert_close(r.failures[1].hang_fraction, 0.0, 0.0, 0.0);
    assert_rejected("{\"recovery\": {\"diagnose\": \"fast\"}}",
                    "test.json: reliability.recovery.diagnose: \"fast\" is not a diagnosis preset");
}

static void recovery_presets_and_lognormal_parameters_parse(void **state)
{
    (void)state;
    struct ts_reliability r;
    struct ts_err err;
    assert_int_equal(parse_rel("{\"recovery\": {\"diagnose\": \"automated\", \"hang_fraction\": 0.1,"
                               " \"hang_timeout\": \"30 min\", \"crash_detection\": \"30 s\","
                               " \"queue\": \"5 min\", \"startup\": \"2 min\","
                               " \"startup_per_node\": \"0.1 s\"}}", &r, &err), TS_OK);
    // D10: median 10 min, sigma ln(20/5) / (2 x 1.2816).
    assert_close(r.mech.recovery.diagnose_median_s, 600.0, 0.0, 0.0);
    assert_close(r.mech.recovery.diagnose_sigma, log(4.0) / (2 * 1.2816), 1e-3, 0.0);
    assert_close(r.mech.recovery.hang_fraction, 0.1, 0.0, 0.0);
    assert_close(r.mech.recovery.hang_timeout_s, 1800.0, 0.0, 0.0);
    assert_close(r.mech.recovery.crash_detect_s, 30.0, 0.0, 0.0);
    assert_close(r.mech.recovery.queue_s, 300.0, 0.0, 0.0);
    assert_close(r.mech.recovery.startup_s, 120.0, 0.0, 0.0);
    assert_close(r.mech.recovery.startup_per_node_s, 0.1, 1e-12, 0.0);
    // D11: BLOOM's manual incidents, median 10.6 h, mean 12.3 h.
    assert_int_equal(parse_rel("{\"recovery\": {\"diagnose\": \"manual\"}}", &r, &err), TS_OK);
    double mean = r.mech.recovery.diagnose_median_s *
                  exp(0.5 * r.mech.recovery.diagnose_sigma * r.mech.recovery.diagnose_sigma);
    assert_close(mean / 3600.0, 12.3, 0.01, 0.0);
    assert_int_equal(parse_rel("{\"recovery\": {\"diagnose\": {\"median\": \"10 min\","
                               " \"mean\": \"12 min\"}}}", &r, &err), TS_OK);
    assert_close(r.mech.recovery.diagnose_sigma, sqrt(2.0 * log(1.2)), 1e-12, 0.0);
}

static void incident_objects_parse_with_their_documented_defaults(void **state)
{
    (void)state;
    struct ts_reliability r;
    struct ts_err err;
    assert_int_equal(parse_rel("{\"fail_slow\": {\"gpu_mtbf\": \"10 y\", \"detection\": \"1 h\"},"
                               " \"bad_nodes\": {\"fraction\": 0.02, \"multiplier\": 10,"
                               " \"evict_after\": 2, \"window\": \"7 d\"},"
                               " \"correlated\": {\"domain_mtbf\": \"5 y\", \"domain_nodes\": 16},"
                               " \"rollback\": {\"fraction\": 0.014}, \"planned\": {}}", &r, &err),
                     TS_OK);
    assert_close(r.mech.fail_slow.factor, 1.1, 0.0, 0.0);      // MegaScale ~10%
    assert_close(r.mech.fail_slow.detect_s, 3600.0, 0.0, 0.0);
    assert_int_equal(r.mech.bad_nodes.evict_after, 2);
    assert_close(r.mech.bad_nodes.evict_window_s, 7 * 86400.0, 0.0, 0.0);
    assert_int_equal(r.mech.correlated.domain_nodes, 16);
    assert_int_equal(r.mech.rollback.depth, 1);
    // Llama 3: 47 planned in 54 days at 2,048 nodes.
    assert_close(2048 * 54 * 86400.0 / r.mech.planned.node_mtbf_s, 47.0, 1e-12, 0.0);
}

static void bad_recovery_and_incident_values_are_rejected_with_their_path(void **state)
{
    (void)state;
    assert_rejected("{\"recovery\": {\"diagnose\": \"fast\"}}",
                    "test.json: reliability.recovery.diagnose: \"fast\" is not a diagnosis preset");
    assert_rejected("{\"recovery\": {\"diagnose\": {\"median\": \"1 h\"}}}",
                    "reliability.recovery.diagnose: give the median and either");
    assert_rejected("{\"recovery\": {\"diagnose\": {\"median\": \"1 h\", \"mean\": \"30 min\"}}}",
                    "reliability.recovery.diagnose.mean: a lognormal's mean is at least its median");
    assert_rejected("{\"recovery\": {\"hang_fraction\": 1.5}}", "reliability.recovery.hang_fraction");
    assert_rejected("{\"recovery\": {\"hang_timout\": 60}}", "reliability.recovery");
    assert_rejected("{\"fail_slow\": {\"gpu_mtbf\": \"1 y\"}}", "reliability.fail_slow");
    assert_rejected("{\"fail_slow\": {\"gpu_mtbf\": \"1 y\", \"detection\": 60, \"factor\": 0.5}}",
                    "reliability.fail_slow.factor");
    assert_rejected("{\"bad_nodes\": {\"fraction\": 0.1}}", "reliability.bad_nodes");
    assert_rejected("{\"bad_nodes\": {\"fraction\": 0.1, \"multiplier\": 0.5}}",
                    "reliability.bad_nodes.multiplier");
    assert_rejected("{\"correlated\": {\"domain_mtbf\": \"1 y\", \"domain_nodes\": 0}}",
                    "reliability.correlated.domain_nodes");
    assert_rejected("{\"rollback\": {\"fraction\": 0.1, \"depth\": -1}}", "reliability.rollback.depth");
    assert_rejected("{\"planned\": {\"node_mtbf\": 0}}", "reliability.planned.node_mtbf");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(mechanisms_are_off_by_default_with_the_pytorch_hang_timeout),
        cmocka_unit_test(recovery_presets_and_lognormal_parameters_parse),
        cmocka_unit_test(default_recovery_is_automated_diagnosis_with_watchdog_hangs_per_process),
        cmocka_unit_test(incident_objects_parse_with_their_documented_defaults),
        cmocka_unit_test(bad_recovery_and_incident_values_are_rejected_with_their_path),
        cmocka_unit_test(defaults_give_the_llama3_job_419_interruptions_in_54_days),
        cmocka_unit_test(defaults_split_the_llama3_table5_counts_into_per_gpu_and_per_node_processes),
        cmocka_unit_test(default_job_mtbf_matches_the_published_figures_from_8_to_16384_gpus),
        cmocka_unit_test(job_mtbf_falls_with_the_node_count_from_8_to_1024_gpus),
        cmocka_unit_test(rate_scale_two_halves_the_job_mtbf_exactly),
        cmocka_unit_test(default_fleet_follows_the_accelerator_generation),
        cmocka_unit_test(fleet_key_picks_the_default_processes),
        cmocka_unit_test(reliability_none_has_no_failures_and_no_spot),
        cmocka_unit_test(bad_none_fleet_and_rate_scale_values_are_rejected_naming_the_key),
        cmocka_unit_test(defaults_follow_the_documented_checkpoint_restart_and_monte_carlo_values),
        cmocka_unit_test(empty_object_keeps_every_default),
        cmocka_unit_test(full_document_sets_every_key),
        cmocka_unit_test(empty_failure_list_means_no_failures),
        cmocka_unit_test(spot_object_enables_spot_with_aws_notice_and_ten_minute_reacquire),
        cmocka_unit_test(checkpoint_interval_accepts_auto_a_duration_or_iterations),
        cmocka_unit_test(weibull_process_without_shape_has_shape_one),
        cmocka_unit_test(an_aggregate_limit_alone_is_enough_for_checkpoints),
        cmocka_unit_test(reliability_that_is_not_an_object_is_rejected),
        cmocka_unit_test(misspelt_keys_are_rejected_at_every_level_with_their_path),
        cmocka_unit_test(failure_process_needs_a_known_component_and_a_positive_mtbf),
        cmocka_unit_test(weibull_shape_must_be_positive_and_exponential_shape_must_be_one),
        cmocka_unit_test(more_than_sixteen_failure_processes_are_rejected),
        cmocka_unit_test(checkpoint_interval_and_interval_iterations_together_are_rejected),
        cmocka_unit_test(checkpoint_interval_that_is_not_auto_or_a_positive_duration_is_rejected),
        cmocka_unit_test(checkpoint_bad_mode_size_bandwidths_and_keep_are_rejected),
        cmocka_unit_test(bad_restart_spares_repair_elastic_and_monte_carlo_values_are_rejected),
        cmocka_unit_test(extreme_values_are_rejected_with_their_valid_range),
        cmocka_unit_test(spot_needs_a_positive_preemption_mtbf),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
