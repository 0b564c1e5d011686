/*
 * Tests of the spec module: model, accelerator, system and job parsers, reference
 * resolution, cross-field validation of jobs, and GEMM efficiency curves.
 *
 * Most documents are inline JSON with a small model and a small system (its accelerator
 * inline too), so the tests do not depend on the shipped catalogue. The tests that resolve
 * files and catalogue names use only files under tests/data/spec/.
 */
#include "test_helpers.h"

#include <sys/stat.h>

#include "spec/spec.h"

/* ---------------------------------------------------------------- fixtures */

#define TINY_MODEL \
    "{\"name\": \"tiny\", \"layers\": 8, \"hidden\": 512, \"heads\": 32, \"vocab\": 1000, " \
    "\"seq_len\": 1024}"

#define TOY_ACCEL                                                                             \
    "{\"name\": \"toy-gpu\", \"peak_flops\": {\"bf16\": \"100 TFLOP/s\", \"fp16\": 1e14}, " \
    "\"memory\": \"16 GiB\", \"memory_bandwidth\": \"1 TB/s\", "                            \
    "\"gemm_efficiency\": [[1e9, 0.3], [1e12, 0.8]]}"

#define TOY_SYSTEM                                                                          \
    "{\"name\": \"toy-sys\", \"accelerator\": " TOY_ACCEL ", \"gpus_per_node\": 8, "        \
    "\"scale_up\": {\"bandwidth\": \"300 GB/s\", \"latency\": \"2 us\", \"domain_size\": 8}, " \
    "\"scale_out\": {\"bandwidth\": \"400 Gb/s\", \"latency\": \"5 us\"}}"

/* Directory of the test data (tests/data), from ctest's TS_TEST_DATA or the source tree. */
static void data_path(char *buf, size_t n, const char *rel)
{
    const char *dir = getenv("TS_TEST_DATA");
    if (dir && dir[0])
        snprintf(buf, n, "%s/%s", dir, rel);
    else
        snprintf(buf, n, "%s/tests/data/%s", TS_SOURCE_DIR, rel);
}

static int parse_model(const char *text, struct ts_model *m, struct ts_err *err)
{
    cJSON *doc = ts_test_json(text);
    struct ts_jnode root = ts_jnode_root(doc, "test.json");
    ts_err_clear(err);
    int rc = ts_model_parse(&root, m, err);
    cJSON_Delete(doc);
    return rc;
}

static int parse_accel(const char *text, struct ts_accel *a, struct ts_err *err)
{
    cJSON *doc = ts_test_json(text);
    struct ts_jnode root = ts_jnode_root(doc, "test.json");
    ts_err_clear(err);
    int rc = ts_accel_parse(&root, a, err);
    cJSON_Delete(doc);
    return rc;
}

static int parse_system(const char *text, struct ts_system *s, struct ts_err *err)
{
    cJSON *doc = ts_test_json(text);
    struct ts_jnode root = ts_jnode_root(doc, "test.json");
    ts_err_clear(err);
    int rc = ts_system_parse(&root, s, err);
    cJSON_Delete(doc);
    return rc;
}

/* Parse {"model": MODEL, "system": SYSTEM, REST} as test.json. */
static int parse_job_with(const char *model, const char *system, const char *rest,
                          const char *const extra_keys[], struct ts_job *job, struct ts_err *err)
{
    struct ts_buf b;
    ts_buf_init(&b);
    ts_buf_printf(&b, "{\"model\": %s, \"system\": %s%s%s}", model, system, rest[0] ? ", " : "",
                  rest);
    cJSON *doc = ts_test_json(b.data);
    ts_buf_free(&b);
    struct ts_jnode root = ts_jnode_root(doc, "test.json");
    ts_err_clear(err);
    int rc = ts_job_parse(&root, extra_keys, job, err);
    cJSON_Delete(doc);
    return rc;
}

/* The tiny model on the toy system with the given other keys. */
static int parse_job(const char *rest, struct ts_job *job, struct ts_err *err)
{
    return parse_job_with(TINY_MODEL, TOY_SYSTEM, rest, NULL, job, err);
}

/* A job with a model of the given text on the toy system. */
static int parse_job_model(const char *model, const char *rest, struct ts_job *job,
                           struct ts_err *err)
{
    return parse_job_with(model, TOY_SYSTEM, rest, NULL, job, err);
}

/* Load a job file from tests/data/spec. */
static int load_job_file(const char *rel, struct ts_job *job, struct ts_err *err)
{
    char path[1024];
    data_path(path, sizeof path, rel);
    cJSON *doc = NULL;
    ts_err_clear(err);
    int rc = ts_json_load(path, &doc, err);
    if (rc)
        return rc;
    struct ts_jnode root = ts_jnode_root(doc, path);
    rc = ts_job_parse(&root, NULL, job, err);
    cJSON_Delete(doc);
    return rc;
}

#define assert_ok(rc, err)                                                  \
    do {                                                                    \
        if ((rc) != TS_OK) {                                                \
            print_error("unexpected error (rc %d): %s\n", (rc), (err).msg); \
            fail();                                                         \
        }                                                                   \
    } while (0)

/* ---------------------------------------------------------------- malformed files */

static void malformed_json_file_is_reported_with_line_and_column(void **state)
{
    (void)state;
    char path[1024];
    data_path(path, sizeof path, "spec/broken.json");
    cJSON *doc = NULL;
    struct ts_err err;
    ts_err_clear(&err);
    int rc = ts_json_load(path, &doc, &err);
    assert_null(doc);
    assert_input_error(rc, &err, "broken.json: malformed JSON at line 3, column 13");
    assert_non_null(strstr(err.msg, path));
}

static void well_formed_json_file_loads(void **state)
{
    (void)state;
    char path[1024];
    data_path(path, sizeof path, "spec/tests_model.json");
    cJSON *doc = NULL;
    struct ts_err err;
    ts_err_clear(&err);
    int rc = ts_json_load(path, &doc, &err);
    assert_ok(rc, err);
    assert_non_null(doc);
    struct ts_model m;
    struct ts_jnode root = ts_jnode_root(doc, path);
    rc = ts_model_parse(&root, &m, &err);
    cJSON_Delete(doc);
    assert_ok(rc, err);
    assert_string_equal(m.name, "tests-model");
    assert_int_equal(m.kv_heads, 4);
    assert_int_equal(m.ffn, TS_FFN_SWIGLU);
    assert_int_equal(m.ffn_hidden, 2048);
}

static void loading_a_missing_file_names_it(void **state)
{
    (void)state;
    cJSON *doc = NULL;
    struct ts_err err;
    ts_err_clear(&err);
    int rc = ts_json_load("no/such/dir/file.json", &doc, &err);
    assert_null(doc);
    assert_input_error(rc, &err, "no/such/dir/file.json: cannot open");
}

static void malformed_referenced_model_file_is_reported_in_that_file(void **state)
{
    (void)state;
    struct ts_job job;
    struct ts_err err;
    int rc = load_job_file("spec/job_broken_model.json", &job, &err);
    assert_input_error(rc, &err, "spec/broken.json: malformed JSON at line 3, column 13");
}

static void error_in_a_referenced_system_file_names_that_file_and_path(void **state)
{
    (void)state;
    struct ts_job job;
    struct ts_err err;
    int rc = load_job_file("spec/job_bad_system_file.json", &job, &err);
    assert_input_error(rc, &err, "spec/bad_system.json: scale_up.latency: \"3 GB\": unknown unit");
}

/* ---------------------------------------------------------------- model */

static void model_defaults_follow_the_documented_rules(void **state)
{
    (void)state;
    struct ts_model m;
    struct ts_err err;
    int rc = parse_model(TINY_MODEL, &m, &err);
    assert_ok(rc, err);
    assert_string_equal(m.name, "tiny");
    assert_int_equal(m.layers, 8);
    assert_int_equal(m.hidden, 512);
    assert_int_equal(m.heads, 32);
    assert_int_equal(m.kv_heads, 32);       /* = heads */
    assert_int_equal(m.head_dim, 16);       /* = hidden / heads */
    assert_int_equal(m.ffn_hidden, 2048);   /* = 4 hidden */
    assert_int_equal(m.ffn, TS_FFN_GELU);
    assert_true(m.bias);                    /* gelu models carry biases */
    assert_false(m.tied_embeddings);
    assert_close(m.dropout, 0.0, 0.0, 0.0);
    assert_int_equal(m.vocab, 1000);
    assert_int_equal(m.seq_len, 1024);
    assert_string_equal(m.source, "");
}

static void swiglu_model_has_no_bias_unless_asked(void **state)
{
    (void)state;
    struct ts_model m;
    struct ts_err err;
    int rc = parse_model("{\"name\": \"s\", \"layers\": 2, \"hidden\": 64, \"heads\": 4, "
                         "\"ffn\": \"swiglu\", \"vocab\": 10, \"seq_len\": 16}",
                         &m, &err);
    assert_ok(rc, err);
    assert_int_equal(m.ffn, TS_FFN_SWIGLU);
    assert_false(m.bias);
    rc = parse_model("{\"name\": \"s\", \"layers\": 2, \"hidden\": 64, \"heads\": 4, "
                     "\"ffn\": \"swiglu\", \"bias\": true, \"vocab\": 10, \"seq_len\": 16}",
                     &m, &err);
    assert_ok(rc, err);
    assert_true(m.bias);
    rc = parse_model("{\"name\": \"g\", \"layers\": 2, \"hidden\": 64, \"heads\": 4, "
                     "\"bias\": false, \"vocab\": 10, \"seq_len\": 16}",
                     &m, &err);
    assert_ok(rc, err);
    assert_int_equal(m.ffn, TS_FFN_GELU);
    assert_false(m.bias);
}

static void model_keeps_explicit_optional_values(void **state)
{
    (void)state;
    struct ts_model m;
    struct ts_err err;
    int rc = parse_model("{\"name\": \"x\", \"layers\": 80, \"hidden\": 8192, \"heads\": 64, "
                         "\"kv_heads\": 8, \"head_dim\": 128, \"ffn_hidden\": 28672, "
                         "\"ffn\": \"swiglu\", \"vocab\": \"128K\", \"seq_len\": 8192, "
                         "\"tied_embeddings\": true, \"dropout\": \"10%\", "
                         "\"source\": \"somewhere\", \"notes\": \"anything\"}",
                         &m, &err);
    assert_ok(rc, err);
    assert_int_equal(m.kv_heads, 8);
    assert_int_equal(m.head_dim, 128);
    assert_int_equal(m.ffn_hidden, 28672);
    assert_int_equal(m.vocab, 128000);
    assert_true(m.tied_embeddings);
    assert_close(m.dropout, 0.1, 1e-12, 0.0);
    assert_string_equal(m.source, "somewhere");
}

static void model_missing_a_required_key_is_rejected_with_path(void **state)
{
    (void)state;
    struct ts_model m;
    struct ts_err err;
    int rc = parse_model("{\"name\": \"t\", \"hidden\": 512, \"heads\": 32, \"vocab\": 1000, "
                         "\"seq_len\": 1024}",
                         &m, &err);
    assert_input_error(rc, &err, "test.json: layers: required key is missing");
    rc = parse_model("{\"layers\": 8, \"hidden\": 512, \"heads\": 32, \"vocab\": 1000, "
                     "\"seq_len\": 1024}",
                     &m, &err);
    assert_input_error(rc, &err, "test.json: name: required key is missing");
}

static void model_with_a_misspelt_key_is_rejected_and_lists_the_allowed_keys(void **state)
{
    (void)state;
    struct ts_model m;
    struct ts_err err;
    int rc = parse_model("{\"name\": \"t\", \"layers\": 8, \"hiden\": 512, \"heads\": 32, "
                         "\"vocab\": 1000, \"seq_len\": 1024}",
                         &m, &err);
    assert_input_error(rc, &err, "test.json: hiden: unknown key (allowed here: name, layers, hidden");
}

static void model_with_a_duplicated_key_is_rejected(void **state)
{
    (void)state;
    struct ts_model m;
    struct ts_err err;
    int rc = parse_model("{\"name\": \"t\", \"layers\": 8, \"hidden\": 512, \"heads\": 32, "
                         "\"vocab\": 1000, \"seq_len\": 1024, \"layers\": 16}",
                         &m, &err);
    assert_input_error(rc, &err, "test.json: layers: key appears twice");
}

static void model_that_is_not_an_object_is_rejected(void **state)
{
    (void)state;
    struct ts_model m;
    struct ts_err err;
    int rc = parse_model("[1, 2]", &m, &err);
    assert_input_error(rc, &err, "test.json: expected an object, got an array");
}

static void model_with_a_string_where_a_number_belongs_is_rejected(void **state)
{
    (void)state;
    struct ts_model m;
    struct ts_err err;
    int rc = parse_model("{\"name\": \"t\", \"layers\": \"many\", \"hidden\": 512, \"heads\": 32, "
                         "\"vocab\": 1000, \"seq_len\": 1024}",
                         &m, &err);
    assert_input_error(rc, &err, "test.json: layers: \"many\" is not a number");
}

static void model_with_an_object_where_a_string_belongs_is_rejected(void **state)
{
    (void)state;
    struct ts_model m;
    struct ts_err err;
    int rc = parse_model("{\"name\": {\"first\": \"t\"}, \"layers\": 8, \"hidden\": 512, "
                         "\"heads\": 32, \"vocab\": 1000, \"seq_len\": 1024}",
                         &m, &err);
    assert_input_error(rc, &err, "test.json: name: expected a string, got an object");
    rc = parse_model("{\"name\": \"t\", \"layers\": [8], \"hidden\": 512, \"heads\": 32, "
                     "\"vocab\": 1000, \"seq_len\": 1024}",
                     &m, &err);
    assert_input_error(rc, &err, "test.json: layers: expected a number");
    assert_non_null(strstr(err.msg, "got an array"));
    rc = parse_model("{\"name\": \"t\", \"layers\": 8, \"hidden\": 512, \"heads\": 32, "
                     "\"vocab\": 1000, \"seq_len\": 1024, \"tied_embeddings\": 1}",
                     &m, &err);
    assert_input_error(rc, &err, "test.json: tied_embeddings: expected true or false, got 1");
}

static void model_with_zero_negative_fractional_or_huge_sizes_is_rejected(void **state)
{
    (void)state;
    struct ts_model m;
    struct ts_err err;
    int rc = parse_model("{\"name\": \"t\", \"layers\": 0, \"hidden\": 512, \"heads\": 32, "
                         "\"vocab\": 1000, \"seq_len\": 1024}",
                         &m, &err);
    assert_input_error(rc, &err, "test.json: layers: 0 is out of range (allowed 1 to 100000)");
    rc = parse_model("{\"name\": \"t\", \"layers\": 8, \"hidden\": 512, \"heads\": -4, "
                     "\"vocab\": 1000, \"seq_len\": 1024}",
                     &m, &err);
    assert_input_error(rc, &err, "test.json: heads: -4 is out of range");
    rc = parse_model("{\"name\": \"t\", \"layers\": 8, \"hidden\": 512.5, \"heads\": 32, "
                     "\"vocab\": 1000, \"seq_len\": 1024}",
                     &m, &err);
    assert_input_error(rc, &err, "test.json: hidden: 512.5 must be a whole number");
    rc = parse_model("{\"name\": \"t\", \"layers\": 1e12, \"hidden\": 512, \"heads\": 32, "
                     "\"vocab\": 1000, \"seq_len\": 1024}",
                     &m, &err);
    assert_input_error(rc, &err, "test.json: layers: 1000000000000 is out of range");
    rc = parse_model("{\"name\": \"t\", \"layers\": 8, \"hidden\": 512, \"heads\": 32, "
                     "\"vocab\": \"2T\", \"seq_len\": 1024}",
                     &m, &err);
    assert_input_error(rc, &err, "test.json: vocab: \"2T\" is out of range");
    rc = parse_model("{\"name\": \"t\", \"layers\": 8, \"hidden\": 512, \"heads\": 32, "
                     "\"vocab\": 1000, \"seq_len\": 1024, \"dropout\": 1.5}",
                     &m, &err);
    assert_input_error(rc, &err, "test.json: dropout: 1.5 is out of range");
}

static void model_with_nan_like_strings_is_rejected(void **state)
{
    (void)state;
    struct ts_model m;
    struct ts_err err;
    int rc = parse_model("{\"name\": \"t\", \"layers\": \"NaN\", \"hidden\": 512, \"heads\": 32, "
                         "\"vocab\": 1000, \"seq_len\": 1024}",
                         &m, &err);
    assert_input_error(rc, &err, "test.json: layers: \"NaN\" is not a number");
    rc = parse_model("{\"name\": \"t\", \"layers\": 8, \"hidden\": \"-inf\", \"heads\": 32, "
                     "\"vocab\": 1000, \"seq_len\": 1024}",
                     &m, &err);
    assert_input_error(rc, &err, "test.json: hidden: \"-inf\" is not a number");
    rc = parse_model("{\"name\": \"t\", \"layers\": 8, \"hidden\": 512, \"heads\": \"0x20\", "
                     "\"vocab\": 1000, \"seq_len\": 1024}",
                     &m, &err);
    assert_input_error(rc, &err, "test.json: heads: \"0x20\" is not a number");
}

static void model_with_an_unknown_ffn_is_rejected_with_the_choices(void **state)
{
    (void)state;
    struct ts_model m;
    struct ts_err err;
    int rc = parse_model("{\"name\": \"t\", \"layers\": 8, \"hidden\": 512, \"heads\": 32, "
                         "\"ffn\": \"relu\", \"vocab\": 1000, \"seq_len\": 1024}",
                         &m, &err);
    assert_input_error(rc, &err, "test.json: ffn: \"relu\" is not one of \"gelu\" | \"swiglu\"");
    rc = parse_model("{\"name\": \"t\", \"layers\": 8, \"hidden\": 512, \"heads\": 32, "
                     "\"ffn\": 1, \"vocab\": 1000, \"seq_len\": 1024}",
                     &m, &err);
    assert_input_error(rc, &err, "test.json: ffn: 1 is not one of \"gelu\"");
}

static void model_with_kv_heads_not_dividing_heads_is_rejected(void **state)
{
    (void)state;
    struct ts_model m;
    struct ts_err err;
    int rc = parse_model("{\"name\": \"t\", \"layers\": 8, \"hidden\": 512, \"heads\": 32, "
                         "\"kv_heads\": 6, \"vocab\": 1000, \"seq_len\": 1024}",
                         &m, &err);
    assert_input_error(rc, &err, "test.json: kv_heads: 6 does not divide heads (32)");
    rc = parse_model("{\"name\": \"t\", \"layers\": 8, \"hidden\": 512, \"heads\": 32, "
                     "\"kv_heads\": 64, \"vocab\": 1000, \"seq_len\": 1024}",
                     &m, &err);
    assert_input_error(rc, &err, "test.json: kv_heads: 64 is out of range (allowed 1 to 32)");
}

static void model_with_heads_not_dividing_hidden_needs_head_dim(void **state)
{
    (void)state;
    struct ts_model m;
    struct ts_err err;
    int rc = parse_model("{\"name\": \"t\", \"layers\": 8, \"hidden\": 512, \"heads\": 3, "
                         "\"vocab\": 1000, \"seq_len\": 1024}",
                         &m, &err);
    assert_input_error(rc, &err,
                       "test.json: heads: 3 does not divide hidden (512); give head_dim explicitly");
    rc = parse_model("{\"name\": \"t\", \"layers\": 8, \"hidden\": 512, \"heads\": 3, "
                     "\"head_dim\": 160, \"vocab\": 1000, \"seq_len\": 1024}",
                     &m, &err);
    assert_ok(rc, err);
    assert_int_equal(m.head_dim, 160);
}

/* ---------------------------------------------------------------- accelerator */

static void accelerator_quantity_strings_are_converted_to_si_units(void **state)
{
    (void)state;
    struct ts_accel a;
    struct ts_err err;
    int rc = parse_accel("{\"name\": \"h\", \"peak_flops\": {\"bf16\": \"989 TFLOP/s\", "
                         "\"fp8\": \"1.979 PFLOP/s\", \"fp32\": 6.7e13}, \"memory\": \"80 GiB\", "
                         "\"memory_bandwidth\": \"3.35 TB/s\", \"memory_reserved\": \"2 GiB\", "
                         "\"kernel_latency\": \"4 us\", \"memory_efficiency\": \"85%\", "
                         "\"gemm_efficiency\": [[1e9, 0.3], [1e12, 0.8]], \"source\": \"s\"}",
                         &a, &err);
    assert_ok(rc, err);
    assert_string_equal(a.name, "h");
    assert_close(a.peak_flops[TS_PREC_BF16], 989e12, 1e-12, 0.0);
    assert_close(a.peak_flops[TS_PREC_FP16], 0.0, 0.0, 0.0);
    assert_close(a.peak_flops[TS_PREC_FP8], 1.979e15, 1e-12, 0.0);
    assert_close(a.peak_flops[TS_PREC_FP32], 6.7e13, 1e-12, 0.0);
    assert_close(a.memory_bytes, 80.0 * 1073741824.0, 1e-12, 0.0);
    assert_close(a.memory_bandwidth, 3.35e12, 1e-12, 0.0);
    assert_close(a.memory_reserved, 2.0 * 1073741824.0, 1e-12, 0.0);
    assert_close(a.kernel_latency, 4e-6, 1e-12, 0.0);
    assert_close(a.memory_efficiency, 0.85, 1e-12, 0.0);
    assert_string_equal(a.source, "s");
}

static void accelerator_defaults_follow_the_documented_rules(void **state)
{
    (void)state;
    struct ts_accel a;
    struct ts_err err;
    int rc = parse_accel(TOY_ACCEL, &a, &err);
    assert_ok(rc, err);
    assert_close(a.memory_efficiency, 0.8, 0.0, 0.0);
    assert_close(a.memory_reserved, 0.0, 0.0, 0.0);
    assert_close(a.kernel_latency, 0.0, 0.0, 0.0);
    /* Flash attention: 85% / 65% of the best (last) GEMM efficiency. */
    assert_close(a.flash_fwd_efficiency, 0.85 * 0.8, 1e-12, 0.0);
    assert_close(a.flash_bwd_efficiency, 0.65 * 0.8, 1e-12, 0.0);
    /* A curve given as one array is bf16's, and every precision falls back to it. */
    for (int p = 0; p < TS_PREC_COUNT; p++) {
        assert_int_equal(a.gemm[p].n, 2);
        assert_close(a.gemm[p].efficiency[1], 0.8, 0.0, 0.0);
    }
    rc = parse_accel("{\"name\": \"h\", \"peak_flops\": {\"bf16\": 1e14}, \"memory\": 1e10, "
                     "\"memory_bandwidth\": 1e12, \"gemm_efficiency\": [[1e9, 0.5]], "
                     "\"flash_attention\": {\"fwd\": 0.6, \"bwd\": \"45%\"}}",
                     &a, &err);
    assert_ok(rc, err);
    assert_close(a.flash_fwd_efficiency, 0.6, 0.0, 0.0);
    assert_close(a.flash_bwd_efficiency, 0.45, 1e-12, 0.0);
}

static void accelerator_with_a_unit_of_the_wrong_dimension_is_rejected(void **state)
{
    (void)state;
    struct ts_accel a;
    struct ts_err err;
    int rc = parse_accel("{\"name\": \"h\", \"peak_flops\": {\"bf16\": 1e14}, \"memory\": \"5 s\", "
                         "\"memory_bandwidth\": 1e12, \"gemm_efficiency\": [[1e9, 0.5]]}",
                         &a, &err);
    assert_input_error(rc, &err,
                       "test.json: memory: \"5 s\": unknown unit \"s\"; expected a size in bytes");
    rc = parse_accel("{\"name\": \"h\", \"peak_flops\": {\"bf16\": 1e14}, \"memory\": 1e10, "
                     "\"memory_bandwidth\": \"80 GiB\", \"gemm_efficiency\": [[1e9, 0.5]]}",
                     &a, &err);
    assert_input_error(rc, &err, "test.json: memory_bandwidth: \"80 GiB\": unknown unit \"GiB\"");
    rc = parse_accel("{\"name\": \"h\", \"peak_flops\": {\"bf16\": 1e14}, \"memory\": 1e10, "
                     "\"memory_bandwidth\": 1e12, \"kernel_latency\": \"5 GB\", "
                     "\"gemm_efficiency\": [[1e9, 0.5]]}",
                     &a, &err);
    assert_input_error(rc, &err,
                       "test.json: kernel_latency: \"5 GB\": unknown unit \"GB\"; expected a duration");
    rc = parse_accel("{\"name\": \"h\", \"peak_flops\": {\"bf16\": \"3.35 TB/s\"}, \"memory\": 1e10, "
                     "\"memory_bandwidth\": 1e12, \"gemm_efficiency\": [[1e9, 0.5]]}",
                     &a, &err);
    assert_input_error(rc, &err, "test.json: peak_flops.bf16: \"3.35 TB/s\": unknown unit \"TB/s\"");
}

static void accelerator_peak_flops_errors_name_the_precision(void **state)
{
    (void)state;
    struct ts_accel a;
    struct ts_err err;
    int rc = parse_accel("{\"name\": \"h\", \"peak_flops\": {\"bf61\": 1e14}, \"memory\": 1e10, "
                         "\"memory_bandwidth\": 1e12, \"gemm_efficiency\": [[1e9, 0.5]]}",
                         &a, &err);
    assert_input_error(rc, &err,
                       "test.json: peak_flops.bf61: unknown key (allowed here: bf16, fp16, fp8, fp32)");
    rc = parse_accel("{\"name\": \"h\", \"peak_flops\": {}, \"memory\": 1e10, "
                     "\"memory_bandwidth\": 1e12, \"gemm_efficiency\": [[1e9, 0.5]]}",
                     &a, &err);
    assert_input_error(rc, &err, "test.json: peak_flops: give at least one precision");
    rc = parse_accel("{\"name\": \"h\", \"memory\": 1e10, \"memory_bandwidth\": 1e12, "
                     "\"gemm_efficiency\": [[1e9, 0.5]]}",
                     &a, &err);
    assert_input_error(rc, &err, "test.json: peak_flops: required key is missing");
    rc = parse_accel("{\"name\": \"h\", \"peak_flops\": \"989 TFLOP/s\", \"memory\": 1e10, "
                     "\"memory_bandwidth\": 1e12, \"gemm_efficiency\": [[1e9, 0.5]]}",
                     &a, &err);
    assert_input_error(rc, &err, "test.json: peak_flops: expected an object, got \"989 TFLOP/s\"");
    rc = parse_accel("{\"name\": \"h\", \"peak_flops\": {\"bf16\": -1e14}, \"memory\": 1e10, "
                     "\"memory_bandwidth\": 1e12, \"gemm_efficiency\": [[1e9, 0.5]]}",
                     &a, &err);
    assert_input_error(rc, &err, "test.json: peak_flops.bf16: -100000000000000 is out of range");
}

static void accelerator_reserving_more_memory_than_it_has_is_rejected(void **state)
{
    (void)state;
    struct ts_accel a;
    struct ts_err err;
    int rc = parse_accel("{\"name\": \"h\", \"peak_flops\": {\"bf16\": 1e14}, \"memory\": \"16 GiB\", "
                         "\"memory_reserved\": \"17 GiB\", \"memory_bandwidth\": 1e12, "
                         "\"gemm_efficiency\": [[1e9, 0.5]]}",
                         &a, &err);
    assert_input_error(rc, &err, "test.json: memory_reserved: \"17 GiB\" is out of range");
}

static void accelerator_with_an_empty_or_malformed_gemm_curve_is_rejected(void **state)
{
    (void)state;
    struct ts_accel a;
    struct ts_err err;
    /* Without the key the curve is derived (tests/test_minimal_specs.c); a given one is checked. */
    int rc = parse_accel("{\"name\": \"h\", \"peak_flops\": {\"bf16\": 1e14}, \"memory\": 1e10, "
                         "\"memory_bandwidth\": 1e12}",
                         &a, &err);
    assert_int_equal(rc, TS_OK);
    assert_true(a.gemm_derived);
    rc = parse_accel("{\"name\": \"h\", \"peak_flops\": {\"bf16\": 1e14}, \"memory\": 1e10, "
                     "\"memory_bandwidth\": 1e12, \"gemm_efficiency\": []}",
                     &a, &err);
    assert_input_error(rc, &err, "test.json: gemm_efficiency: a curve needs 1 to 256 points, got 0");
    rc = parse_accel("{\"name\": \"h\", \"peak_flops\": {\"bf16\": 1e14}, \"memory\": 1e10, "
                     "\"memory_bandwidth\": 1e12, \"gemm_efficiency\": 0.8}",
                     &a, &err);
    assert_input_error(rc, &err, "test.json: gemm_efficiency: expected an object, got 0.8");
}

/* ---------------------------------------------------------------- GEMM curves */

static void gemm_curve_as_array_of_pairs_is_sorted_and_kept(void **state)
{
    (void)state;
    struct ts_accel a;
    struct ts_err err;
    int rc = parse_accel("{\"name\": \"h\", \"peak_flops\": {\"bf16\": 1e14}, \"memory\": 1e10, "
                         "\"memory_bandwidth\": 1e12, \"gemm_efficiency\": "
                         "[[1e12, 0.8], [1e9, 0.3], [\"10B\", 0.55]]}",
                         &a, &err);
    assert_ok(rc, err);
    const struct ts_gemm_curve *c = &a.gemm[TS_PREC_BF16];
    assert_int_equal(c->n, 3);
    assert_close(c->flops[0], 1e9, 0.0, 0.0);
    assert_close(c->flops[1], 1e10, 0.0, 0.0);
    assert_close(c->flops[2], 1e12, 0.0, 0.0);
    assert_close(c->efficiency[0], 0.3, 0.0, 0.0);
    assert_close(c->efficiency[1], 0.55, 0.0, 0.0);
    assert_close(c->efficiency[2], 0.8, 0.0, 0.0);
    assert_close(c->log_lo, 9.0, 1e-15, 0.0);
    assert_close(c->log_hi, 12.0, 1e-15, 0.0);
}

static void gemm_curve_per_precision_falls_back_to_bf16(void **state)
{
    (void)state;
    struct ts_accel a;
    struct ts_err err;
    int rc = parse_accel("{\"name\": \"h\", \"peak_flops\": {\"bf16\": 1e14, \"fp8\": 2e14}, "
                         "\"memory\": 1e10, \"memory_bandwidth\": 1e12, \"gemm_efficiency\": "
                         "{\"bf16\": [[1e9, 0.3], [1e12, 0.8]], \"fp8\": [[1e9, 0.2], [1e12, 0.7]]}}",
                         &a, &err);
    assert_ok(rc, err);
    assert_close(a.gemm[TS_PREC_FP8].efficiency[1], 0.7, 0.0, 0.0);
    assert_close(a.gemm[TS_PREC_BF16].efficiency[1], 0.8, 0.0, 0.0);
    assert_close(a.gemm[TS_PREC_FP16].efficiency[1], 0.8, 0.0, 0.0);
    assert_close(a.gemm[TS_PREC_FP32].efficiency[1], 0.8, 0.0, 0.0);

    /* Only fp16 given: bf16 (and the rest) use it, the same tensor cores. */
    rc = parse_accel("{\"name\": \"h\", \"peak_flops\": {\"fp16\": 1e14}, \"memory\": 1e10, "
                     "\"memory_bandwidth\": 1e12, \"gemm_efficiency\": "
                     "{\"fp16\": [[1e9, 0.4], [1e12, 0.9]]}}",
                     &a, &err);
    assert_ok(rc, err);
    for (int p = 0; p < TS_PREC_COUNT; p++)
        assert_close(a.gemm[p].efficiency[0], 0.4, 0.0, 0.0);

    rc = parse_accel("{\"name\": \"h\", \"peak_flops\": {\"fp8\": 1e14}, \"memory\": 1e10, "
                     "\"memory_bandwidth\": 1e12, \"gemm_efficiency\": "
                     "{\"fp8\": [[1e9, 0.4], [1e12, 0.9]]}}",
                     &a, &err);
    assert_input_error(rc, &err, "test.json: gemm_efficiency: give a bf16 (or fp16) curve");

    rc = parse_accel("{\"name\": \"h\", \"peak_flops\": {\"bf16\": 1e14}, \"memory\": 1e10, "
                     "\"memory_bandwidth\": 1e12, \"gemm_efficiency\": "
                     "{\"bf16\": [[1e9, 0.4]], \"int8\": [[1e9, 0.4]]}}",
                     &a, &err);
    assert_input_error(rc, &err, "test.json: gemm_efficiency.int8: unknown key");
}

static void gemm_curve_points_may_be_given_as_m_n_k(void **state)
{
    (void)state;
    struct ts_accel a;
    struct ts_err err;
    int rc = parse_accel("{\"name\": \"h\", \"peak_flops\": {\"bf16\": 1e14}, \"memory\": 1e10, "
                         "\"memory_bandwidth\": 1e12, \"gemm_efficiency\": {\"bf16\": ["
                         "{\"m\": 1024, \"n\": 2048, \"k\": 512, \"efficiency\": 0.4}, "
                         "{\"m\": 8192, \"n\": 8192, \"k\": 8192, \"efficiency\": 0.75}, "
                         "{\"flops\": 1e13, \"efficiency\": 0.8}]}}",
                         &a, &err);
    assert_ok(rc, err);
    const struct ts_gemm_curve *c = &a.gemm[TS_PREC_BF16];
    assert_int_equal(c->n, 3);
    assert_close(c->flops[0], 2.0 * 1024 * 2048 * 512, 0.0, 0.0);
    assert_close(c->flops[1], 2.0 * 8192 * 8192 * 8192, 0.0, 0.0);
    assert_close(c->flops[2], 1e13, 0.0, 0.0);
    assert_close(c->efficiency[1], 0.75, 0.0, 0.0);
}

static void gemm_curve_points_at_the_same_size_are_averaged(void **state)
{
    (void)state;
    struct ts_accel a;
    struct ts_err err;
    int rc = parse_accel("{\"name\": \"h\", \"peak_flops\": {\"bf16\": 1e14}, \"memory\": 1e10, "
                         "\"memory_bandwidth\": 1e12, \"gemm_efficiency\": "
                         "[[1e9, 0.2], [1e12, 0.8], [1e9, 0.4], [1e12, 0.7], [1e12, 0.9]]}",
                         &a, &err);
    assert_ok(rc, err);
    const struct ts_gemm_curve *c = &a.gemm[TS_PREC_BF16];
    assert_int_equal(c->n, 2);
    assert_close(c->efficiency[0], 0.3, 1e-12, 0.0);
    assert_close(c->efficiency[1], 0.8, 1e-12, 0.0);
}

static void gemm_curve_with_efficiency_above_one_is_rejected(void **state)
{
    (void)state;
    struct ts_accel a;
    struct ts_err err;
    int rc = parse_accel("{\"name\": \"h\", \"peak_flops\": {\"bf16\": 1e14}, \"memory\": 1e10, "
                         "\"memory_bandwidth\": 1e12, \"gemm_efficiency\": [[1e9, 0.3], [1e12, 1.2]]}",
                         &a, &err);
    assert_input_error(rc, &err, "test.json: gemm_efficiency[1][1]: 1.2 is out of range");
    rc = parse_accel("{\"name\": \"h\", \"peak_flops\": {\"bf16\": 1e14}, \"memory\": 1e10, "
                     "\"memory_bandwidth\": 1e12, \"gemm_efficiency\": {\"bf16\": "
                     "[{\"flops\": 1e9, \"efficiency\": \"150%\"}]}}",
                     &a, &err);
    assert_input_error(rc, &err,
                       "test.json: gemm_efficiency.bf16[0].efficiency: \"150%\" is out of range");
    rc = parse_accel("{\"name\": \"h\", \"peak_flops\": {\"bf16\": 1e14}, \"memory\": 1e10, "
                     "\"memory_bandwidth\": 1e12, \"gemm_efficiency\": [[1e9, 0]]}",
                     &a, &err);
    assert_input_error(rc, &err, "test.json: gemm_efficiency[0][1]: 0 is out of range");
}

static void gemm_curve_with_malformed_points_is_rejected_with_path(void **state)
{
    (void)state;
    struct ts_accel a;
    struct ts_err err;
    int rc = parse_accel("{\"name\": \"h\", \"peak_flops\": {\"bf16\": 1e14}, \"memory\": 1e10, "
                         "\"memory_bandwidth\": 1e12, \"gemm_efficiency\": [[1e9, 0.3, 7]]}",
                         &a, &err);
    assert_input_error(rc, &err, "test.json: gemm_efficiency[0]: a curve point is [FLOPs, efficiency]");
    rc = parse_accel("{\"name\": \"h\", \"peak_flops\": {\"bf16\": 1e14}, \"memory\": 1e10, "
                     "\"memory_bandwidth\": 1e12, \"gemm_efficiency\": [{\"flops\": 1e9}]}",
                     &a, &err);
    assert_input_error(rc, &err, "test.json: gemm_efficiency[0].efficiency: required key is missing");
    rc = parse_accel("{\"name\": \"h\", \"peak_flops\": {\"bf16\": 1e14}, \"memory\": 1e10, "
                     "\"memory_bandwidth\": 1e12, \"gemm_efficiency\": "
                     "[{\"m\": 1024, \"n\": 1024, \"efficiency\": 0.5}]}",
                     &a, &err);
    assert_input_error(rc, &err, "test.json: gemm_efficiency[0].k: required key is missing");
    rc = parse_accel("{\"name\": \"h\", \"peak_flops\": {\"bf16\": 1e14}, \"memory\": 1e10, "
                     "\"memory_bandwidth\": 1e12, \"gemm_efficiency\": "
                     "[{\"M\": 1024, \"n\": 1024, \"k\": 1024, \"efficiency\": 0.5}]}",
                     &a, &err);
    assert_input_error(rc, &err, "test.json: gemm_efficiency[0].M: unknown key");
    rc = parse_accel("{\"name\": \"h\", \"peak_flops\": {\"bf16\": 1e14}, \"memory\": 1e10, "
                     "\"memory_bandwidth\": 1e12, \"gemm_efficiency\": [[\"big\", 0.5]]}",
                     &a, &err);
    assert_input_error(rc, &err, "test.json: gemm_efficiency[0][0]: \"big\" is not a number");
}

/* A curve fitted from the given points (ascending FLOPs). */
static struct ts_gemm_curve make_curve(int n, const double *flops, const double *eff)
{
    struct ts_gemm_curve c;
    memset(&c, 0, sizeof c);
    c.n = n;
    for (int i = 0; i < n; i++) {
        c.flops[i] = flops[i];
        c.efficiency[i] = eff[i];
    }
    struct ts_err err;
    ts_err_clear(&err);
    int rc = ts_gemm_curve_fit(&c, &err);
    assert_ok(rc, err);
    return c;
}

static const double curve_flops[] = {1e8, 1e9, 1e10, 1e11, 1e12, 1e13};
static const double curve_eff[] = {0.05, 0.2, 0.5, 0.7, 0.78, 0.8};

static void gemm_curve_eval_reproduces_the_measured_points(void **state)
{
    (void)state;
    struct ts_gemm_curve c = make_curve(6, curve_flops, curve_eff);
    /* The ends are exact; interior points go through the 128-entry table, whose linear
     * interpolation of the (smooth) fit is within 0.1% (3.3e-4 measured). */
    assert_close(ts_gemm_curve_eval(&c, 1e8), 0.05, 1e-12, 0.0);
    assert_close(ts_gemm_curve_eval(&c, 1e13), 0.8, 1e-12, 0.0);
    for (int i = 1; i < 5; i++)
        assert_close(ts_gemm_curve_eval(&c, curve_flops[i]), curve_eff[i], 1e-3, 0.0);

    /* Two points: a straight line in log10(FLOPs), exact everywhere. */
    static const double f2[] = {1e9, 1e11}, e2[] = {0.2, 0.6};
    struct ts_gemm_curve l = make_curve(2, f2, e2);
    assert_close(ts_gemm_curve_eval(&l, 1e9), 0.2, 1e-12, 0.0);
    assert_close(ts_gemm_curve_eval(&l, 1e10), 0.4, 1e-9, 0.0);
    assert_close(ts_gemm_curve_eval(&l, 1e11), 0.6, 1e-12, 0.0);
}

static void gemm_curve_eval_is_monotone_between_monotone_points(void **state)
{
    (void)state;
    struct ts_gemm_curve c = make_curve(6, curve_flops, curve_eff);
    double prev = ts_gemm_curve_eval(&c, 1e8);
    for (int i = 1; i <= 5000; i++) {
        double f = pow(10.0, 8.0 + 5.0 * i / 5000.0);
        double e = ts_gemm_curve_eval(&c, f);
        if (!(e >= prev - 1e-15)) {
            print_error("efficiency falls from %.10g to %.10g at %.6g FLOPs\n", prev, e, f);
            fail();
        }
        /* Steffen's interpolant does not overshoot the data. */
        assert_true(e >= 0.05 - 1e-12 && e <= 0.8 + 1e-12);
        prev = e;
    }
}

static void gemm_curve_below_the_first_point_takes_constant_time(void **state)
{
    (void)state;
    struct ts_gemm_curve c = make_curve(6, curve_flops, curve_eff);
    /* time = FLOPs / (efficiency x peak): constant below 1e8 FLOPs, so efficiency scales
     * linearly with FLOPs. */
    double t0 = 1e8 / ts_gemm_curve_eval(&c, 1e8);
    static const double small[] = {1.0, 1e3, 2.5e6, 1e7, 9.99e7};
    for (size_t i = 0; i < TS_ARRAY_LEN(small); i++)
        assert_close(small[i] / ts_gemm_curve_eval(&c, small[i]), t0, 1e-12, 0.0);
    assert_close(ts_gemm_curve_eval(&c, 1e7), 0.005, 1e-12, 0.0);
}

static void gemm_curve_above_the_last_point_keeps_the_last_efficiency(void **state)
{
    (void)state;
    struct ts_gemm_curve c = make_curve(6, curve_flops, curve_eff);
    assert_close(ts_gemm_curve_eval(&c, 1.0001e13), 0.8, 0.0, 0.0);
    assert_close(ts_gemm_curve_eval(&c, 1e15), 0.8, 0.0, 0.0);
    assert_close(ts_gemm_curve_eval(&c, 1e20), 0.8, 0.0, 0.0);
}

static void gemm_curve_of_one_point_is_flat_above_it(void **state)
{
    (void)state;
    static const double f1[] = {1e10}, e1[] = {0.6};
    struct ts_gemm_curve c = make_curve(1, f1, e1);
    assert_close(ts_gemm_curve_eval(&c, 1e10), 0.6, 1e-12, 0.0);
    assert_close(ts_gemm_curve_eval(&c, 1e14), 0.6, 1e-12, 0.0);
    assert_close(ts_gemm_curve_eval(&c, 1e9), 0.06, 1e-12, 0.0);
}

static void gemm_curve_fit_rejects_bad_points(void **state)
{
    (void)state;
    struct ts_gemm_curve c;
    struct ts_err err;
    memset(&c, 0, sizeof c);
    ts_err_clear(&err);
    assert_input_error(ts_gemm_curve_fit(&c, &err), &err, "needs 1 to 64 points, got 0");
    c.n = TS_CURVE_POINTS_MAX + 1;
    assert_input_error(ts_gemm_curve_fit(&c, &err), &err, "needs 1 to 64 points, got 65");
    c.n = 2;
    c.flops[0] = 1e10;
    c.flops[1] = 1e9;
    c.efficiency[0] = c.efficiency[1] = 0.5;
    assert_input_error(ts_gemm_curve_fit(&c, &err), &err, "point 1: points must have strictly increasing FLOPs");
    c.flops[1] = 1e11;
    c.efficiency[1] = 1.5;
    assert_input_error(ts_gemm_curve_fit(&c, &err), &err, "point 1: FLOPs must be > 0 and efficiency in (0, 1]");
}

/* ---------------------------------------------------------------- system */

static void system_with_inline_accelerator_parses_quantities_and_defaults(void **state)
{
    (void)state;
    struct ts_system s;
    struct ts_err err;
    int rc = parse_system(TOY_SYSTEM, &s, &err);
    assert_ok(rc, err);
    assert_string_equal(s.name, "toy-sys");
    assert_string_equal(s.accel.name, "toy-gpu");
    assert_close(s.accel.memory_bytes, 16.0 * 1073741824.0, 1e-12, 0.0);
    assert_int_equal(s.gpus_per_node, 8);
    assert_close(s.scale_up.bandwidth, 300e9, 1e-12, 0.0);
    assert_close(s.scale_up.latency, 2e-6, 1e-12, 0.0);
    assert_int_equal(s.scale_up.domain_size, 8);
    assert_int_equal(s.scale_up.topology, TS_UP_SWITCH);
    assert_close(s.scale_up.efficiency, 0.8, 0.0, 0.0);
    assert_false(s.scale_up.in_network_reduction);
    assert_close(s.scale_up.reduction_efficiency, 0.6, 0.0, 0.0);
    assert_close(s.scale_out.bandwidth, 50e9, 1e-12, 0.0);    /* 400 Gb/s */
    assert_close(s.scale_out.latency, 5e-6, 1e-12, 0.0);
    assert_int_equal(s.scale_out.topology, TS_OUT_FAT_TREE);
    assert_close(s.scale_out.oversubscription, 1.0, 0.0, 0.0);
    assert_int_equal(s.scale_out.leaf_nodes, 32);
    assert_close(s.scale_out.efficiency, 0.8, 0.0, 0.0);
}

static void system_file_resolves_its_accelerator_by_relative_path(void **state)
{
    (void)state;
    char path[1024];
    data_path(path, sizeof path, "spec/tests_system.json");
    struct ts_system s;
    struct ts_err err;
    ts_err_clear(&err);
    int rc = ts_system_load(path, &s, &err);
    assert_ok(rc, err);
    assert_string_equal(s.name, "tests-system");
    assert_string_equal(s.accel.name, "tests-accel");
    assert_close(s.accel.peak_flops[TS_PREC_FP8], 1979e12, 1e-12, 0.0);
    assert_close(s.accel.memory_bandwidth, 3.35e12, 1e-12, 0.0);
    assert_close(s.accel.kernel_latency, 4e-6, 1e-12, 0.0);
    assert_int_equal(s.accel.gemm[TS_PREC_BF16].n, 3);
    assert_int_equal(s.accel.gemm[TS_PREC_FP8].n, 2);
    assert_close(s.accel.gemm[TS_PREC_FP8].flops[0], 2.0 * 1024 * 1024 * 1024, 0.0, 0.0);
    assert_close(s.accel.gemm[TS_PREC_FP16].efficiency[2], 0.8, 0.0, 0.0);
    assert_close(s.scale_up.bandwidth, 450e9, 1e-12, 0.0);
    assert_close(s.scale_out.bandwidth, 50e9, 1e-12, 0.0);
    assert_int_equal(s.scale_out.topology, TS_OUT_RAIL_OPTIMIZED);
    assert_close(s.scale_out.oversubscription, 2.0, 0.0, 0.0);
}

static void system_with_an_unknown_topology_is_rejected_with_the_choices(void **state)
{
    (void)state;
    struct ts_system s;
    struct ts_err err;
    int rc = parse_system("{\"name\": \"s\", \"accelerator\": " TOY_ACCEL ", \"gpus_per_node\": 8, "
                          "\"scale_up\": {\"bandwidth\": 1e11, \"latency\": 1e-6, \"domain_size\": 8}, "
                          "\"scale_out\": {\"bandwidth\": 1e10, \"latency\": 1e-5, "
                          "\"topology\": \"dragonfly\"}}",
                          &s, &err);
    assert_input_error(rc, &err, "test.json: scale_out.topology: \"dragonfly\" is not one of "
                                 "\"fat_tree\" | \"rail_optimized\" | \"torus\"");
    rc = parse_system("{\"name\": \"s\", \"accelerator\": " TOY_ACCEL ", \"gpus_per_node\": 8, "
                      "\"scale_up\": {\"bandwidth\": 1e11, \"latency\": 1e-6, \"domain_size\": 8, "
                      "\"topology\": \"fat_tree\"}, "
                      "\"scale_out\": {\"bandwidth\": 1e10, \"latency\": 1e-5}}",
                      &s, &err);
    assert_input_error(rc, &err, "test.json: scale_up.topology: \"fat_tree\" is not one of \"switch\"");
}

static void system_errors_inside_the_inline_accelerator_carry_its_path(void **state)
{
    (void)state;
    struct ts_system s;
    struct ts_err err;
    int rc = parse_system("{\"name\": \"s\", \"accelerator\": {\"name\": \"a\", "
                          "\"peak_flops\": {\"bf16\": 1e14}, \"memory\": \"lots\", "
                          "\"memory_bandwidth\": 1e12, \"gemm_efficiency\": [[1e9, 0.5]]}, "
                          "\"gpus_per_node\": 8, "
                          "\"scale_up\": {\"bandwidth\": 1e11, \"latency\": 1e-6, \"domain_size\": 8}, "
                          "\"scale_out\": {\"bandwidth\": 1e10, \"latency\": 1e-5}}",
                          &s, &err);
    assert_input_error(rc, &err, "test.json: accelerator.memory: \"lots\" is not a size in bytes");
    rc = parse_system("{\"name\": \"s\", \"accelerator\": 5, \"gpus_per_node\": 8, "
                      "\"scale_up\": {\"bandwidth\": 1e11, \"latency\": 1e-6, \"domain_size\": 8}, "
                      "\"scale_out\": {\"bandwidth\": 1e10, \"latency\": 1e-5}}",
                      &s, &err);
    assert_input_error(rc, &err,
                       "test.json: accelerator: expected an accelerator name, a path or an object, got 5");
}

static void system_with_bad_levels_is_rejected_with_path(void **state)
{
    (void)state;
    struct ts_system s;
    struct ts_err err;
    int rc = parse_system("{\"name\": \"s\", \"accelerator\": " TOY_ACCEL ", \"gpus_per_node\": 8, "
                          "\"scale_up\": {\"bandwidth\": 1e11, \"latency\": 1e-6, \"domain_size\": 3}, "
                          "\"scale_out\": {\"bandwidth\": 1e10, \"latency\": 1e-5}}",
                          &s, &err);
    assert_input_error(rc, &err, "test.json: scale_up.domain_size: 3 must divide gpus_per_node (8)");
    rc = parse_system("{\"name\": \"s\", \"accelerator\": " TOY_ACCEL ", \"gpus_per_node\": 8, "
                      "\"scale_up\": {\"bandwidth\": 1e11, \"latency\": 1e-6, \"domain_size\": 12}, "
                      "\"scale_out\": {\"bandwidth\": 1e10, \"latency\": 1e-5}}",
                      &s, &err);
    assert_input_error(rc, &err,
                       "test.json: scale_up.domain_size: 12 must be a multiple of gpus_per_node (8)");
    rc = parse_system("{\"name\": \"s\", \"accelerator\": " TOY_ACCEL ", \"gpus_per_node\": 8, "
                      "\"scale_up\": {\"bandwidth\": 1e11, \"latency\": \"-1 us\", \"domain_size\": 8}, "
                      "\"scale_out\": {\"bandwidth\": 1e10, \"latency\": 1e-5}}",
                      &s, &err);
    assert_input_error(rc, &err, "test.json: scale_up.latency: \"-1 us\" must not be negative");
    rc = parse_system("{\"name\": \"s\", \"accelerator\": " TOY_ACCEL ", \"gpus_per_node\": 8, "
                      "\"scale_up\": {\"bandwidth\": 1e11, \"latency\": 1e-6, \"domain_size\": 8}, "
                      "\"scale_out\": {\"bandwidth\": 1e10, \"latency\": 1e-5, "
                      "\"oversubscription\": 0.5}}",
                      &s, &err);
    assert_input_error(rc, &err, "test.json: scale_out.oversubscription: 0.5 is out of range");
    rc = parse_system("{\"name\": \"s\", \"accelerator\": " TOY_ACCEL ", \"gpus_per_node\": 8, "
                      "\"scale_up\": {\"bandwidth\": 1e11, \"latency\": 1e-6, \"domain_size\": 8}, "
                      "\"scale_out\": {\"bandwidth\": 1e10, \"latency\": 1e-5, \"domain_size\": 8}}",
                      &s, &err);
    assert_input_error(rc, &err, "test.json: scale_out.domain_size: unknown key");
    rc = parse_system("{\"name\": \"s\", \"accelerator\": " TOY_ACCEL ", \"gpus_per_node\": 8, "
                      "\"scale_up\": {\"bandwidth\": 1e11, \"latency\": 1e-6, \"domain_size\": 8}}",
                      &s, &err);
    assert_input_error(rc, &err, "test.json: scale_out: required key is missing");
    rc = parse_system("{\"name\": \"s\", \"accelerator\": " TOY_ACCEL ", \"gpus_per_node\": 8, "
                      "\"scale_up\": {\"bandwidth\": \"900 GB\", \"latency\": 1e-6, \"domain_size\": 8}, "
                      "\"scale_out\": {\"bandwidth\": 1e10, \"latency\": 1e-5}}",
                      &s, &err);
    assert_input_error(rc, &err, "test.json: scale_up.bandwidth: \"900 GB\": unknown unit \"GB\"");
}

/* ---------------------------------------------------------------- job: defaults */

static void job_defaults_follow_the_documented_rules(void **state)
{
    (void)state;
    struct ts_job job;
    struct ts_err err;
    int rc = parse_job("\"gpus\": 8, \"global_batch\": 16", &job, &err);
    assert_ok(rc, err);
    const struct ts_parallel *p = &job.parallel;
    assert_int_equal(job.gpus, 8);
    assert_int_equal(job.nodes, 1);
    assert_int_equal(job.global_batch, 16);
    assert_int_equal(job.precision, TS_PREC_BF16);
    assert_false(job.has_training);
    assert_int_equal(p->tp, 1);
    assert_int_equal(p->pp, 1);
    assert_int_equal(p->cp, 1);
    assert_int_equal(p->dp, 8);
    assert_int_equal(p->microbatch, 1);
    assert_int_equal(p->schedule, TS_SCHED_1F1B);
    assert_int_equal(p->virtual_stages, 1);
    assert_false(p->sequence_parallel);
    assert_int_equal(p->recompute, TS_RECOMPUTE_NONE);
    assert_int_equal(p->zero, 0);
    assert_true(p->dp_overlap);
    assert_false(p->tp_comm_overlap);
    assert_int_equal(p->attention, TS_ATTN_FLASH);
    assert_false(p->scatter_gather);          /* no TP, nothing to scatter */
    assert_int_equal(p->first_stage_layers, 0);
    assert_int_equal(p->last_stage_layers, 0);
    for (int i = 0; i < TS_PDIM_COUNT; i++)
        assert_int_equal(p->order[i], i);     /* tp, cp, dp, pp */
    assert_true(p->fp32_grads);
    assert_close(p->bucket_bytes, 160e6, 0.0, 0.0);  /* 40M fp32 elements */
    assert_string_equal(job.model.name, "tiny");
    assert_string_equal(job.system.name, "toy-sys");
}

static void job_keeps_explicit_parallel_settings(void **state)
{
    (void)state;
    struct ts_job job;
    struct ts_err err;
    int rc = parse_job("\"gpus\": 16, \"global_batch\": 32, \"precision\": \"fp16\", "
                       "\"parallel\": {\"tp\": 4, \"pp\": 2, \"microbatch\": 2, \"schedule\": \"gpipe\", "
                       "\"sequence_parallel\": true, \"recompute\": \"selective\", \"zero\": 1, "
                       "\"dp_overlap\": false, \"tp_comm_overlap\": true, \"attention\": \"standard\", "
                       "\"fp32_grads\": false}",
                       &job, &err);
    assert_ok(rc, err);
    const struct ts_parallel *p = &job.parallel;
    assert_int_equal(job.precision, TS_PREC_FP16);
    assert_int_equal(p->tp, 4);
    assert_int_equal(p->pp, 2);
    assert_int_equal(p->dp, 2);
    assert_int_equal(p->microbatch, 2);
    assert_int_equal(p->schedule, TS_SCHED_GPIPE);
    assert_true(p->sequence_parallel);
    assert_int_equal(p->recompute, TS_RECOMPUTE_SELECTIVE);
    assert_int_equal(p->zero, 1);
    assert_false(p->dp_overlap);
    assert_true(p->tp_comm_overlap);
    assert_int_equal(p->attention, TS_ATTN_STANDARD);
    assert_true(p->scatter_gather);           /* default on with TP */
    assert_false(p->fp32_grads);
    assert_close(p->bucket_bytes, 80e6, 0.0, 0.0);   /* 40M bf16 elements */
}

static void job_bucket_size_accepts_a_byte_quantity(void **state)
{
    (void)state;
    struct ts_job job;
    struct ts_err err;
    int rc = parse_job("\"gpus\": 8, \"global_batch\": 8, \"parallel\": {\"bucket_size\": \"25 MB\"}",
                       &job, &err);
    assert_ok(rc, err);
    assert_close(job.parallel.bucket_bytes, 25e6, 0.0, 0.0);
    rc = parse_job("\"gpus\": 8, \"global_batch\": 8, \"parallel\": {\"bucket_size\": \"25 ms\"}",
                   &job, &err);
    assert_input_error(rc, &err, "test.json: parallel.bucket_size: \"25 ms\": unknown unit \"ms\"");
}

static void job_sequence_parallel_is_dropped_without_tensor_parallelism(void **state)
{
    (void)state;
    struct ts_job job;
    struct ts_err err;
    int rc = parse_job("\"gpus\": 8, \"global_batch\": 8, \"parallel\": {\"sequence_parallel\": true}",
                       &job, &err);
    assert_ok(rc, err);
    assert_false(job.parallel.sequence_parallel);
    rc = parse_job("\"gpus\": 8, \"global_batch\": 8, \"parallel\": {\"tp\": 2, \"scatter_gather\": false}",
                   &job, &err);
    assert_ok(rc, err);
    assert_false(job.parallel.scatter_gather);
}

static void job_training_tokens_accept_a_suffix(void **state)
{
    (void)state;
    struct ts_job job;
    struct ts_err err;
    int rc = parse_job("\"gpus\": 8, \"global_batch\": 8, \"training\": {\"tokens\": \"2T\"}", &job,
                       &err);
    assert_ok(rc, err);
    assert_true(job.has_training);
    assert_close(job.training.tokens, 2e12, 0.0, 0.0);
    rc = parse_job("\"gpus\": 8, \"global_batch\": 8, \"training\": {\"token\": \"2T\"}", &job, &err);
    assert_input_error(rc, &err, "test.json: training.token: unknown key (allowed here: tokens)");
    rc = parse_job("\"gpus\": 8, \"global_batch\": 8, \"training\": {}", &job, &err);
    assert_input_error(rc, &err, "test.json: training.tokens: required key is missing");
}

/* ---------------------------------------------------------------- job: bad input */

static void job_with_a_misspelt_key_is_rejected_with_path(void **state)
{
    (void)state;
    struct ts_job job;
    struct ts_err err;
    int rc = parse_job("\"gpus\": 8, \"global_batch\": 8, \"paralel\": {\"tp\": 2}", &job, &err);
    assert_input_error(rc, &err, "test.json: paralel: unknown key (allowed here: name, description, model");
    rc = parse_job("\"gpus\": 8, \"global_batch\": 8, \"parallel\": {\"tensor_parallel\": 2}", &job,
                   &err);
    assert_input_error(rc, &err, "test.json: parallel.tensor_parallel: unknown key (allowed here: tp, pp");
    rc = parse_job_model("{\"name\": \"t\", \"layers\": 8, \"hiden\": 512, \"heads\": 32, "
                         "\"vocab\": 1000, \"seq_len\": 1024}",
                         "\"gpus\": 8, \"global_batch\": 8", &job, &err);
    assert_input_error(rc, &err, "test.json: model.hiden: unknown key");
}

static void job_accepts_extra_keys_only_when_the_caller_names_them(void **state)
{
    (void)state;
    static const char *const extra[] = {"sweep", "cost", NULL};
    struct ts_job job;
    struct ts_err err;
    int rc = parse_job_with(TINY_MODEL, TOY_SYSTEM,
                            "\"gpus\": 8, \"global_batch\": 8, \"sweep\": {\"anything\": 1}",
                            extra, &job, &err);
    assert_ok(rc, err);
    rc = parse_job("\"gpus\": 8, \"global_batch\": 8, \"sweep\": {\"anything\": 1}", &job, &err);
    assert_input_error(rc, &err, "test.json: sweep: unknown key");
    /* A section the job knows is left to a caller that names it. */
    rc = parse_job_with(TINY_MODEL, TOY_SYSTEM,
                        "\"gpus\": 8, \"global_batch\": 8, \"cost\": {\"anything\": 1}",
                        extra, &job, &err);
    assert_ok(rc, err);
    assert_false(job.has_cost);
}

static void job_parses_its_reliability_and_cost_sections(void **state)
{
    (void)state;
    struct ts_job job;
    struct ts_err err;
    int rc = parse_job("\"gpus\": 8, \"global_batch\": 8", &job, &err);
    assert_ok(rc, err);
    /* Failures are always on: without the key, the fleet's default processes. */
    assert_true(job.has_reliability);
    assert_false(job.reliability.section_given);
    assert_true(job.reliability.failures_default);
    assert_false(job.reliability.none);
    assert_int_equal(job.reliability.n_failures, 5);
    assert_false(job.has_cost);
    rc = parse_job("\"gpus\": 8, \"global_batch\": 8, \"reliability\": \"none\"", &job, &err);
    assert_ok(rc, err);
    assert_true(job.reliability.none);
    assert_int_equal(job.reliability.n_failures, 0);
    rc = parse_job("\"gpus\": 8, \"global_batch\": 8, \"reliability\": {\"spares\": 2}, "
                   "\"cost\": {\"pricing\": \"spot\", \"gpu_hour\": {\"spot\": 1.5}}", &job, &err);
    assert_ok(rc, err);
    assert_true(job.has_reliability);
    assert_int_equal(job.reliability.spares, 2);
    assert_int_equal(job.reliability.checkpoint.keep, 2);     /* the defaults underneath */
    assert_true(job.has_cost);
    assert_int_equal(job.cost.pricing, TS_PRICING_SPOT);
    assert_true(job.cost.gpu_hour[TS_PRICING_SPOT] == 1.5);
    rc = parse_job("\"gpus\": 8, \"global_batch\": 8, \"reliability\": {\"spare\": 2}", &job,
                   &err);
    assert_input_error(rc, &err, "test.json: reliability.spare: unknown key");
    rc = parse_job("\"gpus\": 8, \"global_batch\": 8, \"cost\": {\"gpu_hour\": {\"on_demand\": -1}}",
                   &job, &err);
    assert_input_error(rc, &err, "test.json: cost.gpu_hour.on_demand: -1 must not be negative");
}

static void job_with_a_duplicated_key_is_rejected(void **state)
{
    (void)state;
    struct ts_job job;
    struct ts_err err;
    int rc = parse_job("\"gpus\": 8, \"global_batch\": 8, \"parallel\": {\"tp\": 2, \"tp\": 4}", &job,
                       &err);
    assert_input_error(rc, &err, "test.json: parallel.tp: key appears twice");
    rc = parse_job("\"gpus\": 8, \"global_batch\": 8, \"gpus\": 16", &job, &err);
    assert_input_error(rc, &err, "test.json: gpus: key appears twice");
}

static void job_missing_required_keys_is_rejected_with_path(void **state)
{
    (void)state;
    struct ts_job job;
    struct ts_err err;
    int rc = parse_job("\"gpus\": 8", &job, &err);
    assert_input_error(rc, &err, "test.json: global_batch: required key is missing");
    rc = parse_job("\"global_batch\": 8", &job, &err);
    assert_input_error(rc, &err, "test.json: gpus: required key is missing (give gpus or nodes)");
    cJSON *doc = ts_test_json("{\"system\": " TOY_SYSTEM ", \"gpus\": 8, \"global_batch\": 8}");
    struct ts_jnode root = ts_jnode_root(doc, "test.json");
    ts_err_clear(&err);
    rc = ts_job_parse(&root, NULL, &job, &err);
    cJSON_Delete(doc);
    assert_input_error(rc, &err, "test.json: model: required key is missing");
    rc = parse_job_model("{\"name\": \"t\", \"hidden\": 512, \"heads\": 32, \"vocab\": 1000, "
                         "\"seq_len\": 1024}",
                         "\"gpus\": 8, \"global_batch\": 8", &job, &err);
    assert_input_error(rc, &err, "test.json: model.layers: required key is missing");
}

static void job_with_values_of_the_wrong_type_is_rejected(void **state)
{
    (void)state;
    struct ts_job job;
    struct ts_err err;
    int rc = parse_job("\"gpus\": 8, \"global_batch\": \"lots\"", &job, &err);
    assert_input_error(rc, &err, "test.json: global_batch: \"lots\" is not a number");
    rc = parse_job("\"gpus\": 8, \"global_batch\": 8, \"parallel\": \"tp=2\"", &job, &err);
    assert_input_error(rc, &err, "test.json: parallel: expected an object, got \"tp=2\"");
    rc = parse_job_with("42", TOY_SYSTEM, "\"gpus\": 8, \"global_batch\": 8", NULL, &job, &err);
    assert_input_error(rc, &err, "test.json: model: expected a model name, a path or an object, got 42");
    rc = parse_job_with(TINY_MODEL, "[]", "\"gpus\": 8, \"global_batch\": 8", NULL, &job, &err);
    assert_input_error(rc, &err, "test.json: system: expected a system name, a path or an object, got an array");
    rc = parse_job("\"gpus\": 8, \"global_batch\": 8, \"parallel\": {\"dp_overlap\": \"yes\"}", &job,
                   &err);
    assert_input_error(rc, &err, "test.json: parallel.dp_overlap: expected true or false, got \"yes\"");
    rc = parse_job("\"gpus\": true, \"global_batch\": 8", &job, &err);
    assert_input_error(rc, &err, "test.json: gpus: expected a number");
}

static void job_with_zero_negative_fractional_or_huge_tp_is_rejected(void **state)
{
    (void)state;
    struct ts_job job;
    struct ts_err err;
    int rc = parse_job("\"gpus\": 8, \"global_batch\": 8, \"parallel\": {\"tp\": 0}", &job, &err);
    assert_input_error(rc, &err, "test.json: parallel.tp: 0 is out of range (allowed 1 to 65536)");
    rc = parse_job("\"gpus\": 8, \"global_batch\": 8, \"parallel\": {\"tp\": -2}", &job, &err);
    assert_input_error(rc, &err, "test.json: parallel.tp: -2 is out of range");
    rc = parse_job("\"gpus\": 8, \"global_batch\": 8, \"parallel\": {\"tp\": 2.5}", &job, &err);
    assert_input_error(rc, &err, "test.json: parallel.tp: 2.5 must be a whole number");
    rc = parse_job("\"gpus\": 8, \"global_batch\": 8, \"parallel\": {\"tp\": 1e30}", &job, &err);
    assert_input_error(rc, &err, "test.json: parallel.tp: 1e+30 is out of range");
    rc = parse_job("\"gpus\": 8, \"global_batch\": 8, \"parallel\": {\"tp\": \"nan\"}", &job, &err);
    assert_input_error(rc, &err, "test.json: parallel.tp: \"nan\" is not a number");
    rc = parse_job("\"gpus\": 8, \"global_batch\": 8, \"parallel\": {\"zero\": 4}", &job, &err);
    assert_input_error(rc, &err, "test.json: parallel.zero: 4 is out of range (allowed 0 to 3)");
    rc = parse_job("\"gpus\": 0, \"global_batch\": 8", &job, &err);
    assert_input_error(rc, &err, "test.json: gpus: 0 is out of range");
    rc = parse_job("\"gpus\": 8, \"global_batch\": -8", &job, &err);
    assert_input_error(rc, &err, "test.json: global_batch: -8 is out of range");
    rc = parse_job("\"nodes\": 1e7, \"global_batch\": 8", &job, &err);
    assert_input_error(rc, &err, "test.json: nodes: 10000000 is out of range");
}

static void job_with_an_unknown_enum_value_is_rejected_with_the_choices(void **state)
{
    (void)state;
    struct ts_job job;
    struct ts_err err;
    int rc = parse_job("\"gpus\": 8, \"global_batch\": 8, \"precision\": \"int4\"", &job, &err);
    assert_input_error(rc, &err, "test.json: precision: \"int4\" is not one of \"bf16\" | \"fp16\" | "
                                 "\"fp8\" | \"fp32\"");
    rc = parse_job("\"gpus\": 8, \"global_batch\": 8, \"parallel\": {\"schedule\": \"zigzag\"}", &job,
                   &err);
    assert_input_error(rc, &err, "test.json: parallel.schedule: \"zigzag\" is not one of \"gpipe\" | "
                                 "\"1f1b\" | \"interleaved\"");
    rc = parse_job("\"gpus\": 8, \"global_batch\": 8, \"parallel\": {\"recompute\": \"partial\"}", &job,
                   &err);
    assert_input_error(rc, &err, "test.json: parallel.recompute: \"partial\" is not one of \"none\" | "
                                 "\"selective\" | \"full\"");
    rc = parse_job("\"gpus\": 8, \"global_batch\": 8, \"parallel\": {\"attention\": \"sparse\"}", &job,
                   &err);
    assert_input_error(rc, &err, "test.json: parallel.attention: \"sparse\" is not one of \"flash\" | "
                                 "\"standard\"");
}

/* ---------------------------------------------------------------- job: sizes */

static void job_derives_dp_when_absent(void **state)
{
    (void)state;
    struct ts_job job;
    struct ts_err err;
    int rc = parse_job("\"gpus\": 32, \"global_batch\": 64, \"parallel\": {\"tp\": 2, \"pp\": 2, \"cp\": 2}",
                       &job, &err);
    assert_ok(rc, err);
    assert_int_equal(job.parallel.dp, 4);
    rc = parse_job("\"gpus\": 32, \"global_batch\": 64, "
                   "\"parallel\": {\"tp\": 2, \"pp\": 2, \"cp\": 2, \"dp\": 4}",
                   &job, &err);
    assert_ok(rc, err);
    assert_int_equal(job.parallel.dp, 4);
}

static void job_with_tp_cp_pp_dp_not_multiplying_to_gpus_is_rejected(void **state)
{
    (void)state;
    struct ts_job job;
    struct ts_err err;
    int rc = parse_job("\"gpus\": 16, \"global_batch\": 16, \"parallel\": {\"tp\": 2, \"pp\": 2, \"dp\": 2}",
                       &job, &err);
    assert_input_error(rc, &err, "test.json: parallel.dp: tp x cp x pp x dp = 2 x 1 x 2 x 2 = 8, but "
                                 "the job has 16 GPUs");
    rc = parse_job("\"gpus\": 16, \"global_batch\": 16, \"parallel\": {\"tp\": 4, \"pp\": 3}", &job, &err);
    assert_input_error(rc, &err, "test.json: parallel: tp x cp x pp = 4 x 1 x 3 = 12 does not divide gpus (16)");
    rc = parse_job("\"gpus\": 4, \"global_batch\": 16, \"parallel\": {\"tp\": 4, \"pp\": 2}", &job, &err);
    assert_input_error(rc, &err, "test.json: parallel: tp x cp x pp = 4 x 1 x 2 = 8 does not divide gpus (4)");
    rc = parse_job("\"gpus\": 4, \"global_batch\": 16, \"parallel\": {\"tp\": 4, \"pp\": 2, \"dp\": 1}",
                   &job, &err);
    assert_input_error(rc, &err, "test.json: parallel: tp x cp x pp = 8 exceeds gpus (4)");
}

static void job_nodes_give_gpus_through_gpus_per_node(void **state)
{
    (void)state;
    struct ts_job job;
    struct ts_err err;
    int rc = parse_job("\"nodes\": 2, \"global_batch\": 16", &job, &err);
    assert_ok(rc, err);
    assert_int_equal(job.gpus, 16);
    assert_int_equal(job.nodes, 2);
    assert_int_equal(job.parallel.dp, 16);
    rc = parse_job("\"nodes\": 2, \"gpus\": 16, \"global_batch\": 16", &job, &err);
    assert_ok(rc, err);
    assert_int_equal(job.gpus, 16);
    /* GPUs that do not fill the last node still take it. */
    rc = parse_job("\"gpus\": 12, \"global_batch\": 12", &job, &err);
    assert_ok(rc, err);
    assert_int_equal(job.nodes, 2);
}

static void job_with_gpus_disagreeing_with_nodes_is_rejected(void **state)
{
    (void)state;
    struct ts_job job;
    struct ts_err err;
    int rc = parse_job("\"nodes\": 2, \"gpus\": 12, \"global_batch\": 12", &job, &err);
    assert_input_error(rc, &err, "test.json: gpus: 12 disagrees with nodes x gpus_per_node = 2 x 8");
}

static void job_with_global_batch_not_divisible_by_dp_times_microbatch_is_rejected(void **state)
{
    (void)state;
    struct ts_job job;
    struct ts_err err;
    int rc = parse_job("\"gpus\": 8, \"global_batch\": 24, \"parallel\": {\"microbatch\": 2}", &job, &err);
    assert_input_error(rc, &err, "test.json: global_batch: 24 is not divisible by dp x microbatch = 8 x 2 = 16");
    rc = parse_job("\"gpus\": 8, \"global_batch\": 32, \"parallel\": {\"microbatch\": 2}", &job, &err);
    assert_ok(rc, err);
}

/* ---------------------------------------------------------------- job: model vs layout */

static void job_with_tp_not_dividing_heads_is_rejected_with_path(void **state)
{
    (void)state;
    struct ts_job job;
    struct ts_err err;
    int rc = parse_job("\"gpus\": 24, \"global_batch\": 24, \"parallel\": {\"tp\": 3}", &job, &err);
    assert_input_error(rc, &err, "test.json: parallel.tp: 3 does not divide heads (32)");
}

static void job_with_tp_and_kv_heads_not_dividing_one_another_is_rejected(void **state)
{
    (void)state;
    struct ts_job job;
    struct ts_err err;
    static const char *const gqa12 =
        "{\"name\": \"g\", \"layers\": 8, \"hidden\": 768, \"heads\": 48, \"kv_heads\": 12, "
        "\"vocab\": 1000, \"seq_len\": 1024}";
    int rc = parse_job_model(gqa12, "\"gpus\": 8, \"global_batch\": 8, \"parallel\": {\"tp\": 8}", &job,
                             &err);
    assert_input_error(rc, &err, "test.json: parallel.tp: 8 and kv_heads (12) must divide one another");
    /* Fewer KV heads than tp: they are replicated, which is fine. */
    static const char *const gqa4 =
        "{\"name\": \"g\", \"layers\": 8, \"hidden\": 768, \"heads\": 48, \"kv_heads\": 4, "
        "\"vocab\": 1000, \"seq_len\": 1024}";
    rc = parse_job_model(gqa4, "\"gpus\": 8, \"global_batch\": 8, \"parallel\": {\"tp\": 8}", &job, &err);
    assert_ok(rc, err);
    assert_int_equal(job.model.kv_heads, 4);
}

static void job_with_tp_not_dividing_ffn_hidden_is_rejected(void **state)
{
    (void)state;
    struct ts_job job;
    struct ts_err err;
    int rc = parse_job_model("{\"name\": \"f\", \"layers\": 8, \"hidden\": 512, \"heads\": 32, "
                             "\"ffn_hidden\": 1000, \"vocab\": 1000, \"seq_len\": 1024}",
                             "\"gpus\": 16, \"global_batch\": 16, \"parallel\": {\"tp\": 16}", &job, &err);
    assert_input_error(rc, &err, "test.json: parallel.tp: 16 does not divide ffn_hidden (1000)");
}

static void job_with_sequence_parallel_and_seq_len_not_divisible_by_tp_is_rejected(void **state)
{
    (void)state;
    struct ts_job job;
    struct ts_err err;
    int rc = parse_job_model("{\"name\": \"s\", \"layers\": 8, \"hidden\": 512, \"heads\": 32, "
                             "\"vocab\": 1000, \"seq_len\": 1000}",
                             "\"gpus\": 16, \"global_batch\": 16, "
                             "\"parallel\": {\"tp\": 16, \"sequence_parallel\": true}",
                             &job, &err);
    assert_input_error(rc, &err, "test.json: parallel.sequence_parallel: seq_len (1000) must divide by "
                                 "tp x cp (16)");
}

static void job_with_cp_and_seq_len_not_divisible_by_twice_cp_is_rejected(void **state)
{
    (void)state;
    struct ts_job job;
    struct ts_err err;
    int rc = parse_job_model("{\"name\": \"s\", \"layers\": 8, \"hidden\": 512, \"heads\": 32, "
                             "\"vocab\": 1000, \"seq_len\": 1000}",
                             "\"gpus\": 8, \"global_batch\": 8, \"parallel\": {\"cp\": 8}", &job, &err);
    assert_input_error(rc, &err, "test.json: parallel.cp: seq_len (1000) must divide by 2 x cp (16)");
    rc = parse_job("\"gpus\": 8, \"global_batch\": 8, \"parallel\": {\"cp\": 8}", &job, &err);
    assert_ok(rc, err);
    assert_int_equal(job.parallel.dp, 1);
}

static void job_with_layers_not_divisible_by_pp_is_rejected(void **state)
{
    (void)state;
    struct ts_job job;
    struct ts_err err;
    int rc = parse_job("\"gpus\": 3, \"global_batch\": 3, \"parallel\": {\"pp\": 3}", &job, &err);
    assert_input_error(rc, &err, "test.json: parallel.pp: 3 does not divide layers (8)");
    rc = parse_job("\"gpus\": 16, \"global_batch\": 16, \"parallel\": {\"pp\": 16}", &job, &err);
    assert_input_error(rc, &err, "test.json: parallel.pp: 16 exceeds layers (8)");
}

static int sum_stage_layers(const struct ts_job *job)
{
    int sum = 0;
    for (int s = 0; s < job->parallel.pp; s++)
        sum += ts_job_stage_layers(job, s);
    return sum;
}

static void job_uneven_pipeline_split_is_accepted_when_stages_add_up(void **state)
{
    (void)state;
    struct ts_job job;
    struct ts_err err;
    /* 8 layers over 3 stages: 2 + 3 + 3. */
    int rc = parse_job("\"gpus\": 3, \"global_batch\": 3, "
                       "\"parallel\": {\"pp\": 3, \"first_stage_layers\": 2}",
                       &job, &err);
    assert_ok(rc, err);
    assert_int_equal(ts_job_stage_layers(&job, 0), 2);
    assert_int_equal(ts_job_stage_layers(&job, 1), 3);
    assert_int_equal(ts_job_stage_layers(&job, 2), 3);
    assert_int_equal(sum_stage_layers(&job), 8);
    /* 10 layers over 4 stages: 1 + 4 + 4 + 1. */
    rc = parse_job_model("{\"name\": \"t\", \"layers\": 10, \"hidden\": 512, \"heads\": 32, "
                         "\"vocab\": 1000, \"seq_len\": 1024}",
                         "\"gpus\": 4, \"global_batch\": 4, "
                         "\"parallel\": {\"pp\": 4, \"first_stage_layers\": 1, \"last_stage_layers\": 1}",
                         &job, &err);
    assert_ok(rc, err);
    assert_int_equal(ts_job_stage_layers(&job, 0), 1);
    assert_int_equal(ts_job_stage_layers(&job, 1), 4);
    assert_int_equal(ts_job_stage_layers(&job, 2), 4);
    assert_int_equal(ts_job_stage_layers(&job, 3), 1);
    /* 8 layers over 2 stages, both given. */
    rc = parse_job("\"gpus\": 2, \"global_batch\": 2, "
                   "\"parallel\": {\"pp\": 2, \"first_stage_layers\": 3, \"last_stage_layers\": 5}",
                   &job, &err);
    assert_ok(rc, err);
    assert_int_equal(ts_job_stage_layers(&job, 0), 3);
    assert_int_equal(ts_job_stage_layers(&job, 1), 5);
    /* Only the last stage given. */
    rc = parse_job("\"gpus\": 3, \"global_batch\": 3, "
                   "\"parallel\": {\"pp\": 3, \"last_stage_layers\": 4}",
                   &job, &err);
    assert_ok(rc, err);
    assert_int_equal(ts_job_stage_layers(&job, 0), 2);
    assert_int_equal(ts_job_stage_layers(&job, 1), 2);
    assert_int_equal(ts_job_stage_layers(&job, 2), 4);
}

static void job_uneven_pipeline_split_that_does_not_add_up_is_rejected(void **state)
{
    (void)state;
    struct ts_job job;
    struct ts_err err;
    int rc = parse_job_model("{\"name\": \"t\", \"layers\": 10, \"hidden\": 512, \"heads\": 32, "
                             "\"vocab\": 1000, \"seq_len\": 1024}",
                             "\"gpus\": 4, \"global_batch\": 4, "
                             "\"parallel\": {\"pp\": 4, \"first_stage_layers\": 2, \"last_stage_layers\": 1}",
                             &job, &err);
    assert_input_error(rc, &err, "test.json: parallel.first_stage_layers: first 2 + last 1 layers leave 7 "
                                 "layers, which do not split evenly over the other 2 stages");
    rc = parse_job("\"gpus\": 2, \"global_batch\": 2, "
                   "\"parallel\": {\"pp\": 2, \"first_stage_layers\": 3, \"last_stage_layers\": 4}",
                   &job, &err);
    assert_input_error(rc, &err, "test.json: parallel.first_stage_layers: first 3 + last 4 layers leave 1 ");
    rc = parse_job("\"gpus\": 3, \"global_batch\": 3, "
                   "\"parallel\": {\"pp\": 3, \"first_stage_layers\": 8}",
                   &job, &err);
    assert_input_error(rc, &err, "test.json: parallel.first_stage_layers: first 8 + last 0 layers leave 0 ");
    rc = parse_job("\"gpus\": 1, \"global_batch\": 1, \"parallel\": {\"first_stage_layers\": 4}", &job,
                   &err);
    assert_input_error(rc, &err, "test.json: parallel.first_stage_layers: uneven stage sizes need pp > 1");
    /* Interleaving splits uneven stages into chunks that differ by at most one layer, but
     * every chunk needs a layer. */
    rc = parse_job("\"gpus\": 2, \"global_batch\": 4, \"parallel\": {\"pp\": 2, \"schedule\": "
                   "\"interleaved\", \"virtual_stages\": 2, \"first_stage_layers\": 3}",
                   &job, &err);
    assert_int_equal(rc, TS_OK);
    assert_int_equal(ts_job_stage_layers(&job, 0), 3);
    assert_int_equal(ts_job_stage_layers(&job, 1), 5);
    rc = parse_job("\"gpus\": 2, \"global_batch\": 4, \"parallel\": {\"pp\": 2, \"schedule\": "
                   "\"interleaved\", \"virtual_stages\": 4, \"first_stage_layers\": 3}",
                   &job, &err);
    assert_input_error(rc, &err, "test.json: parallel.virtual_stages: 4 exceeds the 3 layers of stage 0");
}

static void job_stage_layers_split_evenly_without_first_or_last(void **state)
{
    (void)state;
    struct ts_job job;
    struct ts_err err;
    int rc = parse_job("\"gpus\": 4, \"global_batch\": 4, \"parallel\": {\"pp\": 4}", &job, &err);
    assert_ok(rc, err);
    for (int s = 0; s < 4; s++)
        assert_int_equal(ts_job_stage_layers(&job, s), 2);
    rc = parse_job("\"gpus\": 4, \"global_batch\": 4", &job, &err);
    assert_ok(rc, err);
    assert_int_equal(ts_job_stage_layers(&job, 0), 8);
}

static void job_interleaved_schedule_with_virtual_stages_is_accepted(void **state)
{
    (void)state;
    struct ts_job job;
    struct ts_err err;
    int rc = parse_job("\"gpus\": 2, \"global_batch\": 4, "
                       "\"parallel\": {\"pp\": 2, \"schedule\": \"interleaved\", \"virtual_stages\": 2}",
                       &job, &err);
    assert_ok(rc, err);
    assert_int_equal(job.parallel.schedule, TS_SCHED_INTERLEAVED);
    assert_int_equal(job.parallel.virtual_stages, 2);
}

static void job_interleaved_without_virtual_stages_is_rejected(void **state)
{
    (void)state;
    struct ts_job job;
    struct ts_err err;
    int rc = parse_job("\"gpus\": 2, \"global_batch\": 4, "
                       "\"parallel\": {\"pp\": 2, \"schedule\": \"interleaved\"}",
                       &job, &err);
    assert_input_error(rc, &err, "test.json: parallel.virtual_stages: 1; the interleaved schedule needs "
                                 "virtual_stages >= 2");
    rc = parse_job("\"gpus\": 2, \"global_batch\": 4, "
                   "\"parallel\": {\"schedule\": \"interleaved\", \"virtual_stages\": 2}",
                   &job, &err);
    assert_input_error(rc, &err, "test.json: parallel.schedule: \"interleaved\" needs pp > 1");
}

static void job_interleaved_with_virtual_stages_not_dividing_stage_layers_is_rejected(void **state)
{
    (void)state;
    struct ts_job job;
    struct ts_err err;
    int rc = parse_job("\"gpus\": 2, \"global_batch\": 4, "
                       "\"parallel\": {\"pp\": 2, \"schedule\": \"interleaved\", \"virtual_stages\": 3}",
                       &job, &err);
    assert_input_error(rc, &err, "test.json: parallel.virtual_stages: 3 does not divide the 4 layers per stage");
}

static void job_virtual_stages_without_interleaved_schedule_is_rejected(void **state)
{
    (void)state;
    struct ts_job job;
    struct ts_err err;
    int rc = parse_job("\"gpus\": 2, \"global_batch\": 4, \"parallel\": {\"pp\": 2, \"virtual_stages\": 2}",
                       &job, &err);
    assert_input_error(rc, &err, "test.json: parallel.virtual_stages: 2 needs \"schedule\": \"interleaved\"");
}

static void job_interleaved_with_microbatches_not_a_multiple_of_pp_is_rejected(void **state)
{
    (void)state;
    struct ts_job job;
    struct ts_err err;
    int rc = parse_job("\"gpus\": 2, \"global_batch\": 3, "
                       "\"parallel\": {\"pp\": 2, \"schedule\": \"interleaved\", \"virtual_stages\": 2}",
                       &job, &err);
    assert_input_error(rc, &err, "test.json: global_batch: the interleaved schedule needs the number of "
                                 "microbatches (3) to be a multiple of pp (2)");
    /* The same batch is fine for plain 1F1B. */
    rc = parse_job("\"gpus\": 2, \"global_batch\": 3, \"parallel\": {\"pp\": 2}", &job, &err);
    assert_ok(rc, err);
}

/* ---------------------------------------------------------------- job: precision, placement */

static void job_with_precision_the_accelerator_lacks_is_rejected(void **state)
{
    (void)state;
    struct ts_job job;
    struct ts_err err;
    int rc = parse_job("\"gpus\": 8, \"global_batch\": 8, \"precision\": \"fp8\"", &job, &err);
    assert_input_error(rc, &err, "test.json: precision: \"fp8\" is not supported by toy-gpu");
    assert_non_null(strstr(err.msg, "no fp8 entry"));
    rc = parse_job("\"gpus\": 8, \"global_batch\": 8, \"precision\": \"fp16\"", &job, &err);
    assert_ok(rc, err);
}

static void job_placement_order_accepts_each_dimension_once(void **state)
{
    (void)state;
    struct ts_job job;
    struct ts_err err;
    int rc = parse_job("\"gpus\": 8, \"global_batch\": 8, \"parallel\": {\"order\": \"tp,cp,dp,pp\"}",
                       &job, &err);
    assert_ok(rc, err);
    assert_int_equal(job.parallel.order[0], TS_PDIM_TP);
    assert_int_equal(job.parallel.order[1], TS_PDIM_CP);
    assert_int_equal(job.parallel.order[2], TS_PDIM_DP);
    assert_int_equal(job.parallel.order[3], TS_PDIM_PP);
    rc = parse_job("\"gpus\": 8, \"global_batch\": 8, \"parallel\": {\"order\": \"dp, tp, pp, cp\"}",
                   &job, &err);
    assert_ok(rc, err);
    assert_int_equal(job.parallel.order[0], TS_PDIM_DP);
    assert_int_equal(job.parallel.order[1], TS_PDIM_TP);
    assert_int_equal(job.parallel.order[2], TS_PDIM_PP);
    assert_int_equal(job.parallel.order[3], TS_PDIM_CP);
    rc = parse_job("\"gpus\": 8, \"global_batch\": 8, "
                   "\"parallel\": {\"order\": [\"pp\", \"dp\", \"cp\", \"tp\"]}",
                   &job, &err);
    assert_ok(rc, err);
    assert_int_equal(job.parallel.order[0], TS_PDIM_PP);
    assert_int_equal(job.parallel.order[3], TS_PDIM_TP);
}

static void job_placement_order_with_a_repeated_or_missing_dimension_is_rejected(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "\"tp,tp,dp,pp\"", "\"tp,cp,dp\"", "\"tp,cp,dp,pp,tp\"", "\"tp,cp,dp,ep\"", "\"\"",
        "[\"tp\", \"cp\", \"dp\"]", "[\"tp\", \"cp\", \"dp\", 4]", "7",
    };
    for (size_t i = 0; i < TS_ARRAY_LEN(bad); i++) {
        char rest[256];
        snprintf(rest, sizeof rest, "\"gpus\": 8, \"global_batch\": 8, \"parallel\": {\"order\": %s}",
                 bad[i]);
        struct ts_job job;
        struct ts_err err;
        int rc = parse_job(rest, &job, &err);
        assert_input_error(rc, &err, "test.json: parallel.order: ");
        assert_non_null(strstr(err.msg, "is not a placement order"));
    }
    struct ts_job job;
    struct ts_err err;
    int rc = parse_job("\"gpus\": 8, \"global_batch\": 8, \"parallel\": {\"order\": \"tp,tp,dp,pp\"}",
                       &job, &err);
    assert_input_error(rc, &err, "test.json: parallel.order: \"tp,tp,dp,pp\" is not a placement order");
}

static void job_validate_reports_a_changed_layout_against_the_given_file(void **state)
{
    (void)state;
    struct ts_job job;
    struct ts_err err;
    int rc = parse_job("\"gpus\": 24, \"global_batch\": 24, \"parallel\": {\"tp\": 2}", &job, &err);
    assert_ok(rc, err);
    ts_err_clear(&err);
    assert_int_equal(ts_job_validate(&job, "sweep.json", &err), TS_OK);
    job.parallel.tp = 3;
    job.parallel.dp = 8;
    rc = ts_job_validate(&job, "sweep.json", &err);
    assert_input_error(rc, &err, "sweep.json: parallel.tp: 3 does not divide heads (32)");
}

/* ---------------------------------------------------------------- references */

static void job_file_resolves_model_and_system_relative_to_itself(void **state)
{
    (void)state;
    struct ts_job job;
    struct ts_err err;
    int rc = load_job_file("spec/job_files.json", &job, &err);
    assert_ok(rc, err);
    assert_string_equal(job.model.name, "tests-model");
    assert_string_equal(job.system.name, "tests-system");
    assert_string_equal(job.system.accel.name, "tests-accel");
    assert_int_equal(job.gpus, 32);             /* 4 nodes x 8 */
    assert_int_equal(job.nodes, 4);
    assert_int_equal(job.precision, TS_PREC_FP8);
    assert_int_equal(job.parallel.tp, 4);
    assert_int_equal(job.parallel.pp, 2);
    assert_int_equal(job.parallel.dp, 4);
    assert_int_equal(ts_job_stage_layers(&job, 1), 6);
}

static void job_referring_to_a_missing_model_file_is_rejected_with_path(void **state)
{
    (void)state;
    struct ts_job job;
    struct ts_err err;
    int rc = parse_job_with("\"no_such_model.json\"", TOY_SYSTEM, "\"gpus\": 8, \"global_batch\": 8",
                            NULL, &job, &err);
    assert_input_error(rc, &err, "test.json: model: model file \"no_such_model.json\" not found");
    rc = parse_job_with(TINY_MODEL, "\"nowhere/system.json\"", "\"gpus\": 8, \"global_batch\": 8",
                        NULL, &job, &err);
    assert_input_error(rc, &err, "test.json: system: system file \"nowhere/system.json\" not found");
}

/* Point TRAINSIM_HOME at tests/data/spec/home for one test, restoring it afterwards. */
static char *saved_home;

static int use_test_home(void **state)
{
    (void)state;
    const char *h = getenv("TRAINSIM_HOME");
    saved_home = h ? strdup(h) : NULL;
    char path[1024];
    data_path(path, sizeof path, "spec/home");
    return setenv("TRAINSIM_HOME", path, 1);
}

static int restore_home(void **state)
{
    (void)state;
    int rc = saved_home ? setenv("TRAINSIM_HOME", saved_home, 1) : unsetenv("TRAINSIM_HOME");
    free(saved_home);
    saved_home = NULL;
    return rc;
}

static void catalogue_names_resolve_under_trainsim_home(void **state)
{
    (void)state;
    struct ts_job job;
    struct ts_err err;
    int rc = load_job_file("spec/home/job_by_name.json", &job, &err);
    assert_ok(rc, err);
    assert_string_equal(job.model.name, "tiny-a");
    assert_string_equal(job.system.name, "toy-sys");
    assert_string_equal(job.system.accel.name, "toy-gpu");
    assert_int_equal(job.nodes, 2);
    assert_int_equal(job.parallel.dp, 4);
    struct ts_model m;
    ts_err_clear(&err);
    rc = ts_model_load("tiny-b", &m, &err);
    assert_ok(rc, err);
    assert_int_equal(m.layers, 6);
}

static void unknown_catalogue_name_is_rejected_listing_the_known_names(void **state)
{
    (void)state;
    struct ts_job job;
    struct ts_err err;
    int rc = parse_job_with("\"tiny-c\"", TOY_SYSTEM, "\"gpus\": 8, \"global_batch\": 8", NULL, &job,
                            &err);
    assert_input_error(rc, &err, "test.json: model: unknown model \"tiny-c\"");
    assert_non_null(strstr(err.msg, "known: tiny-a, tiny-b)"));
    rc = parse_job_with(TINY_MODEL, "\"dgx-h100\"", "\"gpus\": 8, \"global_batch\": 8", NULL, &job,
                        &err);
    assert_input_error(rc, &err, "test.json: system: unknown system \"dgx-h100\"");
    assert_non_null(strstr(err.msg, "known: toy-sys)"));
    rc = parse_job_with("\"tiny a\"", TOY_SYSTEM, "\"gpus\": 8, \"global_batch\": 8", NULL, &job, &err);
    assert_input_error(rc, &err, "test.json: model: \"tiny a\" is not a model name");
}

/* ---------------------------------------------------------------- job: recomputation policies */

static void recompute_object_forms_parse_into_saved_sets(void **state)
{
    (void)state;
    struct ts_job job;
    struct ts_err err;
    const struct ts_recompute_policy *r = &job.parallel.recompute_policy;
    /* a list, with the group names expanded; the layer input is always kept */
    int rc = parse_job("\"gpus\": 8, \"global_batch\": 8, \"parallel\": {\"recompute\": "
                       "{\"save\": [\"qkv\", \"core_attn_out\", \"dropout_masks\"]}}", &job, &err);
    assert_ok(rc, err);
    assert_true(r->custom);
    assert_int_equal(r->save, TS_T_BIT(TS_T_INPUT) | TS_T_BIT(TS_T_Q) | TS_T_BIT(TS_T_K) |
                                  TS_T_BIT(TS_T_V) | TS_T_BIT(TS_T_CORE_ATTN_OUT) |
                                  TS_T_BIT(TS_T_ATTN_DROPOUT_MASK) |
                                  TS_T_BIT(TS_T_PROJ_DROPOUT_MASK) | TS_T_BIT(TS_T_MLP_DROPOUT_MASK));
    assert_int_equal(r->full_every, 0);
    assert_int_equal(r->rerun, TS_RERUN_NEEDED);
    assert_int_equal(ts_recompute_saved(&job.parallel), r->save);
    char text[256];
    ts_recompute_describe(&job.parallel, text, sizeof text);
    assert_string_equal(text, "save [input, q, k, v, attn_dropout_mask, core_attn_out, "
                              "proj_dropout_mask, mlp_dropout_mask]");
    /* full_every alone: the other layers keep everything */
    rc = parse_job("\"gpus\": 8, \"global_batch\": 8, \"parallel\": {\"recompute\": {\"full_every\": 4}}",
                   &job, &err);
    assert_ok(rc, err);
    assert_int_equal(r->full_every, 4);
    assert_int_equal(r->save, TS_T_ALL);
    assert_int_equal(ts_recompute_full_layers(&job.parallel, 0, 8), 2);
    assert_int_equal(ts_recompute_full_layers(&job.parallel, 3, 2), 1);    /* layers 4, 5 */
    ts_recompute_describe(&job.parallel, text, sizeof text);
    assert_string_equal(text, "full_every 4");
    /* a named set, with full_every */
    rc = parse_job("\"gpus\": 8, \"global_batch\": 8, \"parallel\": {\"recompute\": "
                   "{\"save\": \"save_qkv_proj\", \"full_every\": 8}}", &job, &err);
    assert_ok(rc, err);
    assert_int_equal(r->save, TS_T_BIT(TS_T_INPUT) | TS_T_BIT(TS_T_Q) | TS_T_BIT(TS_T_K) |
                                  TS_T_BIT(TS_T_V));
    ts_recompute_describe(&job.parallel, text, sizeof text);
    assert_string_equal(text, "full_every 8, save save_qkv_proj");
    /* the presets keep their enum (the sweep sets only that) and carry no policy */
    rc = parse_job("\"gpus\": 8, \"global_batch\": 8, \"parallel\": {\"recompute\": \"full\"}", &job, &err);
    assert_ok(rc, err);
    assert_int_equal(job.parallel.recompute, TS_RECOMPUTE_FULL);
    assert_false(r->custom);
    assert_int_equal(ts_recompute_saved(&job.parallel), TS_T_BIT(TS_T_INPUT));
    assert_int_equal(ts_recompute_rerun(&job.parallel), TS_RERUN_LAYER);
    assert_int_equal(ts_recompute_full_layers(&job.parallel, 0, 8), 0);
    /* the named sets "selective" and "full" are the presets' sets */
    uint32_t save;
    enum ts_rerun rerun;
    assert_true(ts_recompute_named_set("selective", &save, &rerun));
    assert_int_equal(save, TS_T_ALL & ~(TS_T_BIT(TS_T_SOFTMAX) | TS_T_BIT(TS_T_ATTN_DROPOUT_MASK) |
                                        TS_T_BIT(TS_T_ATTN_PROBS)));
    assert_int_equal(rerun, TS_RERUN_ATTENTION);
    assert_false(ts_recompute_named_set("most", &save, &rerun));
}

static void recompute_policy_errors_name_the_offending_entry(void **state)
{
    (void)state;
    struct ts_job job;
    struct ts_err err;
    int rc = parse_job("\"gpus\": 8, \"global_batch\": 8, \"parallel\": {\"recompute\": "
                       "{\"save\": [\"q\", \"attn_scores\"]}}", &job, &err);
    assert_input_error(rc, &err, "test.json: parallel.recompute.save[1]: \"attn_scores\" is not a "
                                 "layer tensor; name one of input, norm1_out, q");
    rc = parse_job("\"gpus\": 8, \"global_batch\": 8, \"parallel\": {\"recompute\": {\"save\": [3]}}",
                   &job, &err);
    assert_input_error(rc, &err, "test.json: parallel.recompute.save[0]: 3 is not a layer tensor");
    rc = parse_job("\"gpus\": 8, \"global_batch\": 8, \"parallel\": {\"recompute\": {\"save\": \"most\"}}",
                   &job, &err);
    assert_input_error(rc, &err, "test.json: parallel.recompute.save: \"most\" is not a named saved "
                                 "set; use one of \"all\" | \"selective\" | \"full\"");
    rc = parse_job("\"gpus\": 8, \"global_batch\": 8, \"parallel\": {\"recompute\": {\"full_every\": 0}}",
                   &job, &err);
    assert_input_error(rc, &err, "test.json: parallel.recompute.full_every: ");
    /* the tiny model has 8 layers; pp 2 leaves 4 per stage */
    rc = parse_job("\"gpus\": 8, \"global_batch\": 8, \"parallel\": {\"pp\": 2, \"recompute\": "
                   "{\"full_every\": 5}}", &job, &err);
    assert_input_error(rc, &err, "test.json: parallel.recompute.full_every: 5 exceeds the 4 layers "
                                 "of stage 0");
    rc = parse_job("\"gpus\": 8, \"global_batch\": 8, \"parallel\": {\"recompute\": {\"full_every\": 9}}",
                   &job, &err);
    assert_input_error(rc, &err, "test.json: parallel.recompute.full_every: 9 exceeds the 8 layers");
    rc = parse_job("\"gpus\": 8, \"global_batch\": 8, \"parallel\": {\"recompute\": {}}", &job, &err);
    assert_input_error(rc, &err, "test.json: parallel.recompute: an empty policy");
    rc = parse_job("\"gpus\": 8, \"global_batch\": 8, \"parallel\": {\"recompute\": {\"saved\": []}}",
                   &job, &err);
    assert_input_error(rc, &err, "test.json: parallel.recompute");
    assert_non_null(strstr(err.msg, "saved"));
    rc = parse_job("\"gpus\": 8, \"global_batch\": 8, \"parallel\": {\"recompute\": {\"save\": {}}}",
                   &job, &err);
    assert_input_error(rc, &err, "test.json: parallel.recompute.save: ");
    rc = parse_job("\"gpus\": 8, \"global_batch\": 8, \"parallel\": {\"recompute\": true}", &job, &err);
    assert_input_error(rc, &err, "test.json: parallel.recompute: true is not one of \"none\" | "
                                 "\"selective\" | \"full\" (or an object");
}

/* ---------------------------------------------------------------- whole-document checks */

/* Parse text as the document of "doc.json" (ts_json_parse, as every loaded file is). */
static int parse_doc(const char *text, cJSON **doc, struct ts_err *err)
{
    *doc = NULL;
    ts_err_clear(err);
    return ts_json_parse(text, strlen(text), "doc.json", doc, err);
}

/* Assert that text parses as a document (and free it). */
#define assert_document_ok(text)                                                  \
    do {                                                                          \
        cJSON *d_;                                                                \
        struct ts_err e_;                                                         \
        int r_ = parse_doc((text), &d_, &e_);                                     \
        assert_ok(r_, e_);                                                        \
        cJSON_Delete(d_);                                                         \
    } while (0)

/* Assert that text is refused with a message containing needle. */
#define assert_document_refused(text, needle)                                     \
    do {                                                                          \
        cJSON *d_;                                                                \
        struct ts_err e_;                                                         \
        int r_ = parse_doc((text), &d_, &e_);                                     \
        assert_null(d_);                                                          \
        assert_input_error(r_, &e_, (needle));                                    \
    } while (0)

/* n nested arrays around a 1: "[[...[1]...]]". */
static char *nested(int n)
{
    char *t = ts_xmalloc((size_t)(2 * n + 2));
    memset(t, '[', (size_t)n);
    t[n] = '1';
    memset(t + n + 1, ']', (size_t)n);
    t[2 * n + 1] = '\0';
    return t;
}

static void documents_nested_to_the_limit_parse_and_deeper_ones_say_so(void **state)
{
    (void)state;
    char *ok = nested(TS_JSON_DEPTH_MAX), *deep = nested(TS_JSON_DEPTH_MAX + 1);
    char *deeper = nested(5000);    // past cJSON's own limit (1000) too
    assert_document_ok(ok);
    /* Level 65 opens at the 65th bracket: column 65. */
    assert_document_refused(deep, "doc.json: nesting deeper than 64 levels at line 1, column 65");
    assert_document_refused(deeper, "doc.json: nesting deeper than 64 levels at line 1, column 65");
    /* Objects count as levels too, on the line where the limit is crossed. */
    struct ts_buf b;
    ts_buf_init(&b);
    for (int i = 1; i < TS_JSON_DEPTH_MAX; i++)
        ts_buf_printf(&b, "{\"k\": ");
    ts_buf_printf(&b, "\n  [[1]]");     // level 64 at column 3, level 65 at column 4
    for (int i = 1; i < TS_JSON_DEPTH_MAX; i++)
        ts_buf_printf(&b, "}");
    assert_document_refused(b.data, "nesting deeper than 64 levels at line 2, column 4");
    /* Malformed text before the limit is reported as malformed, where it is. */
    assert_document_refused("[1,, [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[",
                            "doc.json: malformed JSON at line 1, column 4");
    ts_buf_free(&b);
    free(ok);
    free(deep);
    free(deeper);
}

static void a_key_given_twice_anywhere_is_refused_with_its_path(void **state)
{
    (void)state;
    assert_document_refused("{\"a\": 1, \"a\": 1}", "doc.json: a: key appears twice");
    assert_document_refused("{\"x\": [{\"b\": 1}, {\"c\": 1, \"d\": 2, \"c\": 2}]}",
                            "doc.json: x[1].c: key appears twice");
    assert_document_refused("[[{\"ok\": {\"tp\": 1, \"tp\": 2}}]]", "doc.json: [0][0].ok.tp: key appears twice");
    /* Case matters, as in every key lookup. */
    assert_document_ok("{\"a\": 1, \"A\": 1, \"x\": {\"a\": 2}}");
    /* A large object (sorted, not compared in pairs): the first key that repeats an earlier
     * one is named, here k70 (k3 repeats too, but later). */
    struct ts_buf b;
    ts_buf_init(&b);
    ts_buf_printf(&b, "{\"big\": {");
    for (int i = 0; i < 100; i++)
        ts_buf_printf(&b, "\"k%d\": %d, ", i, i);
    ts_buf_printf(&b, "\"k70\": 0, \"k3\": 0}}");
    assert_document_refused(b.data, "doc.json: big.k70: key appears twice");
    ts_buf_free(&b);
    ts_buf_init(&b);
    ts_buf_printf(&b, "{");
    for (int i = 0; i < 100; i++)
        ts_buf_printf(&b, "%s\"k%d\": %d", i ? ", " : "", i, i);
    ts_buf_printf(&b, "}");
    assert_document_ok(b.data);
    ts_buf_free(&b);
}

static void a_nul_escape_in_a_key_or_value_is_refused_with_line_and_column(void **state)
{
    (void)state;
    assert_document_refused("{\"name\": \"a\\u0000b\"}", "doc.json: \"\\u0000\" in a string at line 1, column 12");
    assert_document_refused("{\n \"na\\u0000me\": 1}", "\"\\u0000\" in a string at line 2, column 5");
    /* An escaped backslash followed by "u0000" is six ordinary characters. */
    assert_document_ok("{\"name\": \"a\\\\u0000b\"}");
    /* Other escapes of control characters are fine. */
    assert_document_ok("{\"name\": \"a\\u0001\\n\\t\"}");
}

static void numbers_beyond_the_double_range_are_refused_with_path_and_text(void **state)
{
    (void)state;
    assert_document_refused("{\"gpus\": 1e999}",
                            "doc.json: gpus: 1e999 is out of range (a finite number is needed)");
    assert_document_refused("{\"a\": {\"b\": [1, 2, -1E+400]}}",
                            "doc.json: a.b[2]: -1E+400 is out of range (a finite number is needed)");
    assert_document_ok("{\"big\": 1.7e308, \"tiny\": 1e-400, \"negative\": -1.7e308}");
    /* A getter given such a node (built by hand) says the same, never "null". */
    cJSON *n = cJSON_CreateNumber((double)INFINITY);
    struct ts_jnode node = ts_jnode_root(n, "doc.json");
    double v;
    struct ts_err err;
    int rc = ts_jnode_to_quantity(&node, TS_DIM_BYTES, 0, 1e30, &v, &err);
    assert_input_error(rc, &err, "doc.json: a number beyond the double range is out of range "
                                 "(a finite number is needed)");
    cJSON_Delete(n);
}

static void numbers_and_strings_json_does_not_allow_are_refused(void **state)
{
    (void)state;
    static const struct {
        const char *text, *message;
    } bad[] = {
        {"{\"n\": 01}", "malformed number 01 at line 1, column 7"},
        {"{\"n\": 1.}", "malformed number 1. at line 1, column 7"},
        {"{\"n\": -}", "malformed number - at line 1, column 7"},
        {"{\"n\": 1e}", "malformed number 1e at line 1, column 7"},
        {"{\"n\": 1.5e+}", "malformed number 1.5e+ at line 1, column 7"},
        {"{\"n\": .5}", "malformed JSON at line 1, column 7"},
        {"{\"n\": 1000000000000000000000000000000000000000000000000000000000000000000}",
         "number longer than 63 characters at line 1, column 7"},
        {"{\"s\": \"a\tb\"}", "control character 0x09 in a string at line 1, column 9"},
        {"{\"s\": \"a\nb\"}", "control character 0x0a in a string at line 1, column 9"},
        {"{\"s\": \"\xff\"}", "invalid UTF-8 in a string at line 1, column 8"},
        {"{\"s\": \"\xc0\xaf\"}", "invalid UTF-8 in a string at line 1, column 8"},     // overlong '/'
        {"{\"s\": \"\xed\xa0\x80\"}", "invalid UTF-8 in a string at line 1, column 8"}, // a surrogate
        {"{\"s\": \"\xf4\x90\x80\x80\"}", "invalid UTF-8 in a string at line 1, column 8"}, // > U+10FFFF
        {"{\"s\": \"\xe2\x82\"}", "invalid UTF-8 in a string at line 1, column 8"},     // cut short
        {"", "doc.json: no JSON document (the file is empty)"},
        {" \n\t", "doc.json: no JSON document (the file is empty)"},
    };
    for (size_t i = 0; i < TS_ARRAY_LEN(bad); i++)
        assert_document_refused(bad[i].text, bad[i].message);
    assert_document_ok("{\"n\": [0, -0, 10, -0.5, 1e3, 1E-3, 2.5e+10], \"s\": \"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"}");
    /* A NUL byte in the text (not an escape). */
    cJSON *doc;
    struct ts_err err;
    ts_err_clear(&err);
    int rc = ts_json_parse("{\"a\": \"x\0y\"}", 12, "doc.json", &doc, &err);
    assert_input_error(rc, &err, "doc.json: NUL byte at line 1, column 9");
}

static void parsing_beyond_the_memory_limit_is_reported_as_out_of_memory(void **state)
{
    (void)state;
    struct ts_buf b;
    ts_buf_init(&b);
    ts_buf_printf(&b, "[0");
    for (int i = 1; i < 1000; i++)
        ts_buf_printf(&b, ",%d", i);
    ts_buf_printf(&b, "]");
    cJSON *doc = NULL;
    struct ts_err err;
    /* 1000 numbers need 1000 cJSON nodes of 64 bytes: more than 16 KiB. */
    ts_err_clear(&err);
    int rc = ts_json_parse_limited(b.data, b.len, "doc.json", 16384, &doc, &err);
    assert_null(doc);
    assert_input_error(rc, &err, "doc.json: out of memory while parsing: the document needs more "
                                 "than the 16 KiB a JSON input may use");
    /* The same text within the limit parses, and a later parse on this thread is not
     * affected by the failed one. */
    rc = ts_json_parse(b.data, b.len, "doc.json", &doc, &err);
    assert_ok(rc, err);
    assert_int_equal(cJSON_GetArraySize(doc), 1000);
    cJSON_Delete(doc);
    ts_buf_free(&b);
}

/* ---------------------------------------------------------------- reading input files */

static char scratch_dir[256];

static int make_scratch_dir(void **state)
{
    (void)state;
    const char *t = getenv("TMPDIR");
    snprintf(scratch_dir, sizeof scratch_dir, "%s/ts_test_spec.XXXXXX", t && t[0] ? t : "/tmp");
    return mkdtemp(scratch_dir) ? 0 : -1;
}

static int remove_scratch_dir(void **state)
{
    (void)state;
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", scratch_dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void input_files_are_read_within_a_size_limit(void **state)
{
    (void)state;
    char path[512];
    snprintf(path, sizeof path, "%s/five.json", scratch_dir);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs("[1,2]", f);
    fclose(f);
    char *text = NULL;
    size_t len = 0;
    struct ts_err err;
    ts_err_clear(&err);
    /* Exactly at the limit: read. */
    int rc = ts_file_read_limited(path, 5, &text, &len, &err);
    assert_ok(rc, err);
    assert_int_equal(len, 5);
    assert_string_equal(text, "[1,2]");
    free(text);
    /* One byte over: refused by its size, naming the file and the limit. */
    rc = ts_file_read_limited(path, 4, &text, &len, &err);
    assert_input_error(rc, &err, "five.json: the file is 5 B, more than the 4 B limit for input files");
    /* A device with no end stops at the limit. */
    rc = ts_file_read_limited("/dev/zero", 1 << 20, &text, &len, &err);
    assert_input_error(rc, &err, "/dev/zero: more than 1 MiB read; input files are limited to 1 MiB");
    /* The default limit is 64 MiB. */
    assert_true(TS_INPUT_MAX_BYTES == 64u << 20);
}

static void directories_and_fifos_are_refused_without_waiting(void **state)
{
    (void)state;
    char *text = NULL;
    size_t len;
    struct ts_err err;
    ts_err_clear(&err);
    int rc = ts_file_read(scratch_dir, &text, &len, &err);
    assert_input_error(rc, &err, ": is a directory, not a file");
    char fifo[512];
    snprintf(fifo, sizeof fifo, "%s/fifo", scratch_dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    /* Nobody writes to it: opening does not block, and there is nothing to read. */
    rc = ts_file_read(fifo, &text, &len, &err);
    assert_input_error(rc, &err, "fifo: is a FIFO or pipe that delivered nothing");
    cJSON *doc;
    rc = ts_json_load(fifo, &doc, &err);
    assert_input_error(rc, &err, "fifo: is a FIFO");
}

/* ---------------------------------------------------------------- free text */

static void free_text_keys_must_be_strings_in_every_kind_of_file(void **state)
{
    (void)state;
    struct ts_model m;
    struct ts_accel a;
    struct ts_system s;
    struct ts_err err;
    int rc = parse_model("{\"name\": 5, \"layers\": 8, \"hidden\": 512, \"heads\": 32, "
                         "\"vocab\": 1000, \"seq_len\": 1024}", &m, &err);
    assert_input_error(rc, &err, "test.json: name: expected a string, got 5");
    rc = parse_model("{\"name\": \"m\", \"notes\": [\"x\"], \"layers\": 8, \"hidden\": 512, "
                     "\"heads\": 32, \"vocab\": 1000, \"seq_len\": 1024}", &m, &err);
    assert_input_error(rc, &err, "test.json: notes: expected a string, got an array");
    rc = parse_accel("{\"name\": true, \"peak_flops\": {\"bf16\": 1e14}, \"memory\": \"16 GiB\", "
                     "\"memory_bandwidth\": \"1 TB/s\"}", &a, &err);
    assert_input_error(rc, &err, "test.json: name: expected a string, got true");
    rc = parse_accel("{\"name\": \"a\", \"notes\": 1, \"peak_flops\": {\"bf16\": 1e14}, "
                     "\"memory\": \"16 GiB\", \"memory_bandwidth\": \"1 TB/s\"}", &a, &err);
    assert_input_error(rc, &err, "test.json: notes: expected a string, got 1");
    rc = parse_system("{\"name\": \"s\", \"notes\": {}, \"accelerator\": " TOY_ACCEL ", "
                      "\"gpus_per_node\": 8, \"scale_up\": {\"bandwidth\": \"300 GB/s\", "
                      "\"latency\": \"2 us\", \"domain_size\": 8}, \"scale_out\": {\"bandwidth\": "
                      "\"400 Gb/s\", \"latency\": \"5 us\"}}", &s, &err);
    assert_input_error(rc, &err, "test.json: notes: expected a string, got an object");
    static const char *const job_texts[] = {
        "{\"name\": 5, \"model\": " TINY_MODEL ", \"system\": " TOY_SYSTEM ", \"gpus\": 8, "
        "\"global_batch\": 16}",
        "{\"description\": null, \"model\": " TINY_MODEL ", \"system\": " TOY_SYSTEM ", "
        "\"gpus\": 8, \"global_batch\": 16}",
    };
    static const char *const job_messages[] = {"test.json: name: expected a string, got 5",
                                               "test.json: description: expected a string, got null"};
    for (size_t i = 0; i < TS_ARRAY_LEN(job_texts); i++) {
        cJSON *doc = ts_test_json(job_texts[i]);
        struct ts_jnode root = ts_jnode_root(doc, "test.json");
        struct ts_job job;
        ts_err_clear(&err);
        rc = ts_job_parse(&root, NULL, &job, &err);
        cJSON_Delete(doc);
        assert_input_error(rc, &err, job_messages[i]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(recompute_object_forms_parse_into_saved_sets),
        cmocka_unit_test(recompute_policy_errors_name_the_offending_entry),
        cmocka_unit_test(malformed_json_file_is_reported_with_line_and_column),
        cmocka_unit_test(well_formed_json_file_loads),
        cmocka_unit_test(loading_a_missing_file_names_it),
        cmocka_unit_test(malformed_referenced_model_file_is_reported_in_that_file),
        cmocka_unit_test(error_in_a_referenced_system_file_names_that_file_and_path),
        cmocka_unit_test(model_defaults_follow_the_documented_rules),
        cmocka_unit_test(swiglu_model_has_no_bias_unless_asked),
        cmocka_unit_test(model_keeps_explicit_optional_values),
        cmocka_unit_test(model_missing_a_required_key_is_rejected_with_path),
        cmocka_unit_test(model_with_a_misspelt_key_is_rejected_and_lists_the_allowed_keys),
        cmocka_unit_test(model_with_a_duplicated_key_is_rejected),
        cmocka_unit_test(model_that_is_not_an_object_is_rejected),
        cmocka_unit_test(model_with_a_string_where_a_number_belongs_is_rejected),
        cmocka_unit_test(model_with_an_object_where_a_string_belongs_is_rejected),
        cmocka_unit_test(model_with_zero_negative_fractional_or_huge_sizes_is_rejected),
        cmocka_unit_test(model_with_nan_like_strings_is_rejected),
        cmocka_unit_test(model_with_an_unknown_ffn_is_rejected_with_the_choices),
        cmocka_unit_test(model_with_kv_heads_not_dividing_heads_is_rejected),
        cmocka_unit_test(model_with_heads_not_dividing_hidden_needs_head_dim),
        cmocka_unit_test(accelerator_quantity_strings_are_converted_to_si_units),
        cmocka_unit_test(accelerator_defaults_follow_the_documented_rules),
        cmocka_unit_test(accelerator_with_a_unit_of_the_wrong_dimension_is_rejected),
        cmocka_unit_test(accelerator_peak_flops_errors_name_the_precision),
        cmocka_unit_test(accelerator_reserving_more_memory_than_it_has_is_rejected),
        cmocka_unit_test(accelerator_with_an_empty_or_malformed_gemm_curve_is_rejected),
        cmocka_unit_test(gemm_curve_as_array_of_pairs_is_sorted_and_kept),
        cmocka_unit_test(gemm_curve_per_precision_falls_back_to_bf16),
        cmocka_unit_test(gemm_curve_points_may_be_given_as_m_n_k),
        cmocka_unit_test(gemm_curve_points_at_the_same_size_are_averaged),
        cmocka_unit_test(gemm_curve_with_efficiency_above_one_is_rejected),
        cmocka_unit_test(gemm_curve_with_malformed_points_is_rejected_with_path),
        cmocka_unit_test(gemm_curve_eval_reproduces_the_measured_points),
        cmocka_unit_test(gemm_curve_eval_is_monotone_between_monotone_points),
        cmocka_unit_test(gemm_curve_below_the_first_point_takes_constant_time),
        cmocka_unit_test(gemm_curve_above_the_last_point_keeps_the_last_efficiency),
        cmocka_unit_test(gemm_curve_of_one_point_is_flat_above_it),
        cmocka_unit_test(gemm_curve_fit_rejects_bad_points),
        cmocka_unit_test(system_with_inline_accelerator_parses_quantities_and_defaults),
        cmocka_unit_test(system_file_resolves_its_accelerator_by_relative_path),
        cmocka_unit_test(system_with_an_unknown_topology_is_rejected_with_the_choices),
        cmocka_unit_test(system_errors_inside_the_inline_accelerator_carry_its_path),
        cmocka_unit_test(system_with_bad_levels_is_rejected_with_path),
        cmocka_unit_test(job_defaults_follow_the_documented_rules),
        cmocka_unit_test(job_keeps_explicit_parallel_settings),
        cmocka_unit_test(job_bucket_size_accepts_a_byte_quantity),
        cmocka_unit_test(job_sequence_parallel_is_dropped_without_tensor_parallelism),
        cmocka_unit_test(job_training_tokens_accept_a_suffix),
        cmocka_unit_test(job_with_a_misspelt_key_is_rejected_with_path),
        cmocka_unit_test(job_accepts_extra_keys_only_when_the_caller_names_them),
        cmocka_unit_test(job_parses_its_reliability_and_cost_sections),
        cmocka_unit_test(job_with_a_duplicated_key_is_rejected),
        cmocka_unit_test(job_missing_required_keys_is_rejected_with_path),
        cmocka_unit_test(job_with_values_of_the_wrong_type_is_rejected),
        cmocka_unit_test(job_with_zero_negative_fractional_or_huge_tp_is_rejected),
        cmocka_unit_test(job_with_an_unknown_enum_value_is_rejected_with_the_choices),
        cmocka_unit_test(job_derives_dp_when_absent),
        cmocka_unit_test(job_with_tp_cp_pp_dp_not_multiplying_to_gpus_is_rejected),
        cmocka_unit_test(job_nodes_give_gpus_through_gpus_per_node),
        cmocka_unit_test(job_with_gpus_disagreeing_with_nodes_is_rejected),
        cmocka_unit_test(job_with_global_batch_not_divisible_by_dp_times_microbatch_is_rejected),
        cmocka_unit_test(job_with_tp_not_dividing_heads_is_rejected_with_path),
        cmocka_unit_test(job_with_tp_and_kv_heads_not_dividing_one_another_is_rejected),
        cmocka_unit_test(job_with_tp_not_dividing_ffn_hidden_is_rejected),
        cmocka_unit_test(job_with_sequence_parallel_and_seq_len_not_divisible_by_tp_is_rejected),
        cmocka_unit_test(job_with_cp_and_seq_len_not_divisible_by_twice_cp_is_rejected),
        cmocka_unit_test(job_with_layers_not_divisible_by_pp_is_rejected),
        cmocka_unit_test(job_uneven_pipeline_split_is_accepted_when_stages_add_up),
        cmocka_unit_test(job_uneven_pipeline_split_that_does_not_add_up_is_rejected),
        cmocka_unit_test(job_stage_layers_split_evenly_without_first_or_last),
        cmocka_unit_test(job_interleaved_schedule_with_virtual_stages_is_accepted),
        cmocka_unit_test(job_interleaved_without_virtual_stages_is_rejected),
        cmocka_unit_test(job_interleaved_with_virtual_stages_not_dividing_stage_layers_is_rejected),
        cmocka_unit_test(job_virtual_stages_without_interleaved_schedule_is_rejected),
        cmocka_unit_test(job_interleaved_with_microbatches_not_a_multiple_of_pp_is_rejected),
        cmocka_unit_test(job_with_precision_the_accelerator_lacks_is_rejected),
        cmocka_unit_test(job_placement_order_accepts_each_dimension_once),
        cmocka_unit_test(job_placement_order_with_a_repeated_or_missing_dimension_is_rejected),
        cmocka_unit_test(job_validate_reports_a_changed_layout_against_the_given_file),
        cmocka_unit_test(job_file_resolves_model_and_system_relative_to_itself),
        cmocka_unit_test(job_referring_to_a_missing_model_file_is_rejected_with_path),
        cmocka_unit_test_setup_teardown(catalogue_names_resolve_under_trainsim_home, use_test_home,
                                        restore_home),
        cmocka_unit_test_setup_teardown(unknown_catalogue_name_is_rejected_listing_the_known_names,
                                        use_test_home, restore_home),
        cmocka_unit_test(documents_nested_to_the_limit_parse_and_deeper_ones_say_so),
        cmocka_unit_test(a_key_given_twice_anywhere_is_refused_with_its_path),
        cmocka_unit_test(a_nul_escape_in_a_key_or_value_is_refused_with_line_and_column),
        cmocka_unit_test(numbers_beyond_the_double_range_are_refused_with_path_and_text),
        cmocka_unit_test(numbers_and_strings_json_does_not_allow_are_refused),
        cmocka_unit_test(parsing_beyond_the_memory_limit_is_reported_as_out_of_memory),
        cmocka_unit_test_setup_teardown(input_files_are_read_within_a_size_limit, make_scratch_dir,
                                        remove_scratch_dir),
        cmocka_unit_test_setup_teardown(directories_and_fifos_are_refused_without_waiting,
                                        make_scratch_dir, remove_scratch_dir),
        cmocka_unit_test(free_text_keys_must_be_strings_in_every_kind_of_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
