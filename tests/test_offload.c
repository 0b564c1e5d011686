/*
 * Activation offload (parallel.offload_layers; sim/compute/memory.c ts_offload_*, sim/step/
 * plan.c): Transformer Engine's double-buffered group offload as Megatron-Core runs it. The
 * windows are checked against the handler's formula worked by hand, the resident layers and
 * the stalls against hand-counted timelines, and a whole job against the same job without
 * offload (an instant host link changes nothing but the memory; a slow one adds exactly the
 * stalls). The job parser's refusals name parallel.offload_layers.
 */
#include "test_helpers.h"
#include "test_job.h"

#include "compute/compute.h"
#include "spec/spec.h"
#include "step/step.h"

static void windows_follow_transformer_engines_formula(void **state)
{
    (void)state;
    /* (layers / n)(i + 1) - 1, plus i + 1 for the first layers % n groups and layers % n
     * for the rest: 80 layers, 40 offloaded: 1, 3, 5, ..., 79. */
    for (int i = 0; i < 40; i++)
        assert_int_equal(ts_offload_window(80, 40, i), 2 * i + 1);
    /* 80 and 50: layers / n = 1, remainder 30: i + (i + 1) for i < 30, then i + 30. */
    assert_int_equal(ts_offload_window(80, 50, 0), 1);
    assert_int_equal(ts_offload_window(80, 50, 29), 59);
    assert_int_equal(ts_offload_window(80, 50, 30), 60);
    assert_int_equal(ts_offload_window(80, 50, 49), 79);
    /* 10 and 3: 3 (i + 1) - 1 + 1 for i = 0, + 1 after: 3, 6, 9 */
    assert_int_equal(ts_offload_window(10, 3, 0), 3);
    assert_int_equal(ts_offload_window(10, 3, 1), 6);
    assert_int_equal(ts_offload_window(10, 3, 2), 9);
    /* The last window is always the last layer (its copy is awaited before the backward). */
    for (int n = 1; n < 30; n++)
        assert_int_equal(ts_offload_window(30, n, n - 1), 29);
}

static void resident_layers_count_the_copies_not_yet_done(void **state)
{
    (void)state;
    assert_int_equal(ts_offload_resident_layers(80, 0), 80);
    /* 40 of 80: at the last layer the 40 kept layers and group 39 (window 79) are held. */
    assert_int_equal(ts_offload_resident_layers(80, 40), 41);
    /* 1 of 4: group 0 waits for window 3, so at layer 3 all four are held: no saving. */
    assert_int_equal(ts_offload_resident_layers(4, 1), 4);
    /* 3 of 10 (windows 3, 6, 9): at layer 9, the 7 kept layers 3..9 and group 2. */
    assert_int_equal(ts_offload_resident_layers(10, 3), 8);
    /* 9 of 10 (windows 1, 2, ..., 9): at layer j + 1 at most groups j, j + 1 and the kept
     * layer once reached: 2 held at most up to layer 8, at layer 9 groups 8 and layer 9. */
    assert_int_equal(ts_offload_resident_layers(10, 9), 2);
}

static void stalls_are_the_copies_longer_than_their_windows(void **state)
{
    (void)state;
    /* 80 / 40: copy 0 overlaps one layer, the others two. Copy 3 s, layers 1 s: 2 + 39 x 1. */
    assert_close(ts_offload_stall(80, 40, 1.0, 3.0), 41.0, 1e-12, 0);
    assert_close(ts_offload_stall(80, 40, 1.0, 1.5), 0.5, 1e-12, 0);
    assert_close(ts_offload_stall(80, 40, 1.0, 1.0), 0.0, 0, 0);
    /* 10 / 3, windows 3, 6, 9: spans 3, 3, 3; copy 5: 3 x 2. */
    assert_close(ts_offload_stall(10, 3, 1.0, 5.0), 6.0, 1e-12, 0);
    assert_close(ts_offload_stall(10, 0, 1.0, 5.0), 0.0, 0, 0);
}

/* A 4-layer GPT (h 4096, 32 heads) on one 8-GPU node, bf16, ZeRO-1, pp 1, with a host link
 * of `host` (NULL: none) and `extra` inside parallel. */
static char *offload_text(char *text, size_t size, const char *host, const char *extra)
{
    char link[128] = "";
    if (host)
        snprintf(link, sizeof link, ", \"host_link\": {\"bandwidth\": \"%s\", \"efficiency\": 1}",
                 host);
    snprintf(text, size,
             "{\"model\": {\"name\": \"gpt\", \"layers\": 4, \"hidden\": 4096, \"heads\": 32, "
             "\"vocab\": 32000, \"seq_len\": 4096, \"ffn\": \"gelu\"}, "
             "\"system\": {\"name\": \"s\", \"accelerator\": {\"name\": \"g\", \"peak_flops\": "
             "{\"bf16\": 1e15}, \"memory\": \"80 GiB\", \"memory_bandwidth\": 3e12, "
             "\"gemm_efficiency\": [[1000, 0.7]]}, \"gpus_per_node\": 8, \"scale_up\": "
             "{\"bandwidth\": \"450 GB/s\", \"latency\": \"5 us\"}, "
             "\"scale_out\": {\"bandwidth\": \"400 Gb/s\"}%s}, "
             "\"gpus\": 8, \"global_batch\": 16, \"precision\": \"bf16\", "
             "\"parallel\": {\"zero\": 1%s}}",
             link, extra);
    return text;
}

static void an_instant_host_link_changes_the_memory_only(void **state)
{
    (void)state;
    char text[4096];
    struct ts_job base, zero, off;
    parse_valid_job(offload_text(text, sizeof text, "1e14", ""), &base);
    parse_valid_job(offload_text(text, sizeof text, "1e14", ", \"offload_layers\": 0"), &zero);
    parse_valid_job(offload_text(text, sizeof text, "1e14", ", \"offload_layers\": 3"), &off);
    struct ts_eval_scratch sc;
    assert_int_equal(ts_eval_scratch_init(&sc), 0);
    struct ts_iteration ib, iz, io;
    ts_step_evaluate(&base, TS_METHOD_DISCRETE_EVENT, &sc, &ib, NULL, NULL);
    ts_step_evaluate(&zero, TS_METHOD_DISCRETE_EVENT, &sc, &iz, NULL, NULL);
    ts_step_evaluate(&off, TS_METHOD_DISCRETE_EVENT, &sc, &io, NULL, NULL);
    /* offload_layers 0 is the job without the key, bit for bit */
    assert_true(iz.iteration_s == ib.iteration_s);
    assert_true(iz.memory.total_bytes == ib.memory.total_bytes);
    /* 3 of 4 layers (windows 1, 2, 3): at most groups j, j + 1 or group 2 and layer 3 are
     * held, 2 layers of 4; the embedding's activations stay. The copy of a layer's
     * activations (hundreds of MB) at 1e14 B/s takes microseconds, well inside one layer. */
    struct ts_compute c;
    ts_compute_build(&base, &c);
    double layer = c.layer.activation_bytes, emb = c.embed.activation_bytes;
    assert_close(ib.memory.activation_bytes, 4 * layer + emb, 1e-12, 0);
    assert_close(io.memory.activation_bytes, 2 * layer + emb, 1e-12, 0);
    assert_close(io.memory.offloaded_bytes, 3 * layer, 1e-12, 0);
    assert_true(io.iteration_s == ib.iteration_s);
    assert_true(io.step.exposed_offload_s == 0);
    ts_eval_scratch_free(&sc);
}

static void a_slow_host_link_adds_the_stalls_of_every_microbatch(void **state)
{
    (void)state;
    char text[4096];
    struct ts_job base, off;
    parse_valid_job(offload_text(text, sizeof text, "1 GB/s", ""), &base);
    parse_valid_job(offload_text(text, sizeof text, "1 GB/s", ", \"offload_layers\": 2"), &off);
    struct ts_compute cb, co;
    struct ts_step_plan pb, po;
    build_plan(&base, &cb, &pb);
    build_plan(&off, &co, &po);
    /* 2 of 4 layers, windows 1 and 3: both copies overlap one layer (spans 1, 2: copy 0 one
     * layer, copy 1 two). At 1 GB/s a layer's activations take far longer than a layer. */
    double copy = cb.layer.activation_bytes / 1e9;
    double f = pb.chunk[0].fwd_s, b = pb.chunk[0].bwd_s;
    /* the chunk holds the embedding and the output layer too: the per-layer times are the
     * layers' share, as the plan takes them before it adds those */
    double lf = cb.layer.fwd.time_s, lb = cb.layer.bwd.time_s;
    assert_true(copy > 2 * lb);
    double sf = (copy - lf) + (copy - 2 * lf), sb = (copy - lb) + (copy - 2 * lb);
    assert_close(po.chunk[0].fwd_offload_s, sf, 1e-9, 0);
    assert_close(po.chunk[0].bwd_offload_s, sb, 1e-9, 0);
    assert_close(po.chunk[0].fwd_s, f + sf, 1e-12, 0);
    assert_close(po.chunk[0].bwd_s, b + sb, 1e-12, 0);
    /* 16 sequences over dp 8 at microbatch 1: 2 microbatches, each waits both ways. */
    struct ts_eval_scratch sc;
    assert_int_equal(ts_eval_scratch_init(&sc), 0);
    struct ts_iteration ib, io;
    ts_step_evaluate(&base, TS_METHOD_DISCRETE_EVENT, &sc, &ib, NULL, NULL);
    ts_step_evaluate(&off, TS_METHOD_DISCRETE_EVENT, &sc, &io, NULL, NULL);
    assert_close(io.step.exposed_offload_s, 2 * (sf + sb), 1e-9, 0);
    assert_close(io.step.compute_s, ib.step.compute_s, 1e-9, 0);
    assert_true(io.iteration_s > ib.iteration_s + 2 * (sf + sb) * 0.99);
    ts_eval_scratch_free(&sc);
    ts_step_plan_free(&pb);
    ts_step_plan_free(&po);
}

static void expect_refusal(const char *text, const char *words)
{
    cJSON *doc = ts_test_json(text);
    struct ts_jnode root = ts_jnode_root(doc, "test.json");
    struct ts_job job;
    struct ts_err err;
    ts_err_clear(&err);
    int rc = ts_job_parse(&root, NULL, &job, &err);
    if (rc == TS_OK)
        rc = ts_job_validate(&job, "test.json", &err);
    cJSON_Delete(doc);
    assert_int_equal(rc, TS_ERR_INPUT);
    if (!strstr(err.msg, "test.json: parallel.offload_layers") || !strstr(err.msg, words)) {
        print_error("message: %s\nexpected parallel.offload_layers and \"%s\"\n", err.msg, words);
        fail();
    }
}

static void the_parser_refuses_what_megatron_core_refuses(void **state)
{
    (void)state;
    char text[4096];
    expect_refusal(offload_text(text, sizeof text, "100 GB/s", ", \"offload_layers\": 4"),
                   "fewer layers than the model has (4)");
    expect_refusal(offload_text(text, sizeof text, "100 GB/s",
                                ", \"offload_layers\": 1, \"pp\": 2"), "needs pp 1");
    expect_refusal(offload_text(text, sizeof text, "100 GB/s",
                                ", \"offload_layers\": 1, \"recompute\": \"selective\""),
                   "\"recompute\": \"none\"");
    expect_refusal(offload_text(text, sizeof text, NULL, ", \"offload_layers\": 1"),
                   "states no host_link");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(windows_follow_transformer_engines_formula),
        cmocka_unit_test(resident_layers_count_the_copies_not_yet_done),
        cmocka_unit_test(stalls_are_the_copies_longer_than_their_windows),
        cmocka_unit_test(an_instant_host_link_changes_the_memory_only),
        cmocka_unit_test(a_slow_host_link_adds_the_stalls_of_every_microbatch),
        cmocka_unit_test(the_parser_refuses_what_megatron_core_refuses),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
