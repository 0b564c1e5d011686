/*
 * Tests of mixture-of-experts models (sim/spec moe / MLA keys, sim/compute MoE layer,
 * sim/step expert-parallel traffic): parameter counts against the published ones and the
 * shape count of tests/data/hf/count_params.py, the dense-equivalence oracle (one expert,
 * top-1, no shared experts is the dense model, bit for bit), the all-to-all alpha-beta cost
 * by hand, and the busiest expert setting the pace of the expert GEMMs.
 *
 * Catalogue names resolve under TRAINSIM_HOME, which ctest sets to the source tree.
 */
#include "test_helpers.h"

#include "comm/comm.h"
#include "compute/compute.h"
#include "search/search.h"
#include "spec/spec.h"
#include "step/step.h"

/* ---------------------------------------------------------------- fixtures */

static int job_parse_text(struct ts_job *job, struct ts_err *err, const char *text)
{
    cJSON *doc = ts_test_json(text);
    struct ts_jnode root = ts_jnode_root(doc, "test.json");
    ts_err_clear(err);
    int rc = ts_job_parse(&root, NULL, job, err);
    cJSON_Delete(doc);
    return rc;
}

static void job_from_json(struct ts_job *job, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void job_from_json(struct ts_job *job, const char *fmt, ...)
{
    char text[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    struct ts_err err;
    if (job_parse_text(job, &err, text) != TS_OK) {
        print_error("job does not parse: %s\n%s\n", err.msg, text);
        fail();
    }
}

/* 100 TFLOP/s at a constant GEMM efficiency of 0.5, 1 TB/s of HBM at full efficiency, no
 * launch latency, no reserve; 8 GPUs per NVLink domain at 300 GB/s and 5 us. */
#define HAND_ACCEL                                                                          \
    "{\"name\": \"hand-gpu\", \"peak_flops\": {\"bf16\": 1e14}, \"memory\": \"80 GiB\", "  \
    "\"memory_bandwidth\": 1e12, \"memory_efficiency\": 1.0, \"kernel_latency\": 0, "      \
    "\"gemm_efficiency\": [[1000, 0.5]]}"

#define HAND_SYSTEM                                                                         \
    "{\"name\": \"hand-sys\", \"accelerator\": " HAND_ACCEL ", \"gpus_per_node\": 8, "      \
    "\"scale_up\": {\"bandwidth\": \"300 GB/s\", \"latency\": \"5 us\", \"domain_size\": 8}, " \
    "\"scale_out\": {\"bandwidth\": \"200 Gb/s\", \"latency\": \"10 us\"}}"

/* A small SwiGLU model; `moe` is "" (dense) or ", \"moe\": {...}". */
#define SMALL_MODEL(moe)                                                                    \
    "{\"name\": \"small\", \"layers\": 8, \"hidden\": 1024, \"heads\": 16, \"kv_heads\": 4, " \
    "\"ffn_hidden\": 4096, \"ffn\": \"swiglu\", \"vocab\": 32000, \"seq_len\": 2048" moe "}"

static void evaluate(const struct ts_job *job, struct ts_iteration *it)
{
    struct ts_eval_scratch s;
    assert_int_equal(ts_eval_scratch_init(&s), 0);
    ts_step_evaluate(job, TS_METHOD_DISCRETE_EVENT, &s, it, NULL, NULL);
    ts_eval_scratch_free(&s);
}

static void counts(const char *model, double *total, double *active)
{
    struct ts_job job;
    job_from_json(&job,
                  "{\"model\": \"%s\", \"system\": \"dgx-h100\", \"gpus\": 8, \"global_batch\": 8, "
                  "\"reliability\": \"none\"}", model);
    struct ts_compute *c = malloc(sizeof *c);
    assert_non_null(c);
    ts_compute_build(&job, c);
    *total = ts_compute_param_count(&job, c);
    *active = ts_compute_active_param_count(&job, c);
    free(c);
}

/* ---------------------------------------------------------------- parameter counts */

/* tests/data/hf/README.md: count_params.py on the verbatim config gives 671,026,419,200
 * total and 37,552,297,472 activated (36,625,618,432 without the input embedding, DeepSeek's
 * 36.6B); the report's headline is 671B / 37B. */
static void deepseek_v3_counts_match_the_shape_count_and_the_published_671b_37b(void **state)
{
    (void)state;
    double total, active;
    counts("deepseek-v3", &total, &active);
    assert_close(total, 671026419200.0, 0.0, 0.5);
    assert_close(active, 37552297472.0, 0.0, 0.5);
    assert_close(total, 671e9, 0.001, 0);
    assert_close(active - 129280.0 * 7168.0, 36.6e9, 0.002, 0);
}

/* Mixtral of Experts (arXiv 2401.04088) model card: 46.7B parameters, 12.9B active. */
static void mixtral_8x7b_counts_match_the_published_46_7b_and_12_9b(void **state)
{
    (void)state;
    double total, active;
    counts("mixtral-8x7b", &total, &active);
    assert_close(total, 46.7e9, 0.001, 0);
    assert_close(active, 12.9e9, 0.002, 0);
}

/* count_params.py: 30,532,122,624 total, 3,353,032,704 activated, of which 48 x 2 x 128 =
 * 12,288 are the per-head q/k norms trainsim does not model. */
static void qwen3_30b_a3b_counts_match_the_shape_count_without_its_qk_norms(void **state)
{
    (void)state;
    double total, active;
    counts("qwen3-30b-a3b", &total, &active);
    assert_close(total, 30532122624.0 - 12288.0, 0.0, 0.5);
    assert_close(active, 3353032704.0 - 12288.0, 0.0, 0.5);
}

/* count_params.py on the verbatim GPT-OSS config: 116,829,156,672 total, 5,711,982,912
 * activated (with the input embedding); trainsim does not model the 64 attention sinks per
 * layer (2,304) and counts biased norms as LayerNorms (weight + bias: 36 x 2 x 2880 + 2880 =
 * 210,240 more than GPT-OSS's RMSNorms), so it is 207,936 above both. */
static void gpt_oss_120b_counts_match_the_shape_count_but_sinks_and_norm_biases(void **state)
{
    (void)state;
    double total, active;
    counts("gpt-oss-120b", &total, &active);
    assert_close(total, 116829156672.0 + 207936.0, 0.0, 0.5);
    assert_close(active, 5711982912.0 + 207936.0, 0.0, 0.5);
}

/* Published sizes, rounded to whole billions: each count must round to the published figure
 * (Qwen3-235B-A22B model card 235B / 22B; Mixtral 8x22B 141B / 39B, Mistral AI's
 * announcement; the catalogue files cite their configs). Llama 4's 109B / 400B are size
 * names of the multimodal checkpoints, not counts of the text model, so they are not here. */
static void catalogue_moe_counts_round_to_their_published_sizes(void **state)
{
    (void)state;
    static const struct { const char *model; double total, active; } rows[] = {
        {"qwen3-235b-a22b", 235e9, 22e9},
        {"mixtral-8x22b", 141e9, 39e9},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        double total, active;
        counts(rows[i].model, &total, &active);
        print_message("  %s: %.4gB total, %.4gB active\n", rows[i].model, total / 1e9, active / 1e9);
        assert_close(total, rows[i].total, 0.0, 0.5e9);
        assert_close(active, rows[i].active, 0.0, 0.5e9);
    }
}

/* ---------------------------------------------------------------- dense equivalence */

/* One routed expert of the dense MLP's width, top-1, no shared expert: nothing is routed,
 * so iteration time, memory and FLOPs must equal the dense model's exactly, for every
 * layout without tensor parallelism (data, pipeline, interleaving, recomputation, ZeRO).
 * With tp = etp > 1 the two differ by design: the expert layer keeps its ETP-gathered
 * input for the weight gradient where a dense sequence-parallel MLP re-gathers it. */
static void one_expert_top1_moe_equals_the_dense_model_exactly(void **state)
{
    (void)state;
    static const char *const layouts[] = {
        "{\"tp\": 1, \"pp\": 1}",
        "{\"tp\": 1, \"pp\": 2, \"zero\": 1}",
        "{\"tp\": 1, \"pp\": 2, \"schedule\": \"interleaved\", \"virtual_stages\": 2}",
        "{\"tp\": 1, \"pp\": 4, \"recompute\": \"full\"}",
        "{\"tp\": 1, \"pp\": 2, \"recompute\": \"selective\", \"zero\": 2}",
    };
    for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++) {
        struct ts_job dense, moe;
        struct ts_iteration a, b;
#define EQ_FMT "{\"model\": %s, \"system\": \"dgx-h100\", \"gpus\": 16, " \
               "\"global_batch\": 64, \"parallel\": %s, \"reliability\": \"none\"}"
        job_from_json(&dense, EQ_FMT, SMALL_MODEL(""), layouts[i]);
        job_from_json(&moe, EQ_FMT,
                      SMALL_MODEL(", \"moe\": {\"experts\": 1, \"top_k\": 1, "
                                  "\"expert_ffn_hidden\": 4096}"),
                      layouts[i]);
        evaluate(&dense, &a);
        evaluate(&moe, &b);
        print_message("  layout %s: dense %.9g s, one-expert MoE %.9g s\n", layouts[i],
                      a.iteration_s, b.iteration_s);
        assert_true(a.iteration_s == b.iteration_s);
        assert_true(a.memory.total_bytes == b.memory.total_bytes);
        assert_true(a.model_flops == b.model_flops);
        assert_true(a.hardware_flops == b.hardware_flops);
        assert_true(a.params == b.params);
    }
}

/* ---------------------------------------------------------------- all-to-all */

/* Four experts on four GPUs of one 8-GPU NVLink domain (ep 4, every layer MoE, top-1, one
 * layer): each forward dispatches and combines once. By hand, one exchange of S = Tn k h e
 * bytes per rank sends 3/4 S to its three peers at NCCL's all-to-all rate of 334.9 / 450
 * of link rate (nccl-tests on H100, sim/comm), which is A2A = 334.9 / 450 / 0.82 of the
 * system's ring rate 300 GB/s x 0.8, after one step (5 us) for the token counts and one for
 * the data. */
static void all_to_all_dispatch_and_combine_cost_alpha_beta_by_hand(void **state)
{
    (void)state;
    struct ts_job job;
    job_from_json(&job,
                  "{\"model\": {\"name\": \"tiny\", \"layers\": 1, \"hidden\": 1024, \"heads\": 8, "
                  "\"ffn_hidden\": 4096, \"ffn\": \"swiglu\", \"vocab\": 1024, \"seq_len\": 1024, "
                  "\"moe\": {\"experts\": 4, \"top_k\": 1, \"expert_ffn_hidden\": 1024, "
                  "\"load_imbalance\": 1}}, \"system\": " HAND_SYSTEM ", \"gpus\": 4, "
                  "\"global_batch\": 4, \"parallel\": {\"ep\": 4}, \"reliability\": \"none\"}");
    struct ts_eval_scratch s;
    assert_int_equal(ts_eval_scratch_init(&s), 0);
    ts_compute_build(&job, &s.compute);
    ts_step_plan_build(&job, &s.compute, &s.plan);
    double S = 1024.0 * 1 * 1024 * 2;                   /* tokens x top_k x hidden x 2 bytes */
    double bw = 300e9 * 0.8 * (334.9 / 450.0) / 0.82;
    double one = 5e-6 + 5e-6 + 0.75 * S / bw;
    assert_close(s.plan.chunk[0].fwd_comm_s, 2.0 * one, 1e-9, 0);
    assert_close(s.plan.chunk[0].bwd_comm_s, 2.0 * one, 1e-9, 0);
    /* With the all-to-all overlapped (moe_a2a_overlap) only what the layer's own pass
     * cannot cover stays exposed, plus the slowdown of the compute it hides behind: the
     * hand accelerator has no overlap_slowdown, then one of 0.25. */
    job.parallel.moe_a2a_overlap = true;
    for (int k = 0; k < 2; k++) {
        double slow = k ? 0.25 : 0.0;
        job.system.accel.overlap_slowdown = slow;
        ts_step_plan_build(&job, &s.compute, &s.plan);
        double f = s.compute.moe_layer.fwd.time_s, b = s.compute.moe_layer.bwd.time_s;
        assert_close(s.plan.chunk[0].fwd_comm_s,
                     fmax(0.0, 2.0 * one - f) + slow * fmin(2.0 * one, f), 1e-9, 1e-15);
        assert_close(s.plan.chunk[0].bwd_comm_s,
                     fmax(0.0, 2.0 * one - b) + slow * fmin(2.0 * one, b), 1e-9, 1e-15);
        assert_true(s.plan.chunk[0].fwd_comm_s < 2.0 * one);
    }
    ts_eval_scratch_free(&s);
}

/* ---------------------------------------------------------------- load imbalance */

/* With one expert per GPU (ep = experts) the grouped GEMMs hold only the busiest expert, so
 * on the hand accelerator (constant efficiency, no latency: time linear in M) the expert
 * GEMM time scales with load_imbalance: doubling the busiest expert's share adds exactly the
 * balanced expert time, 1.5 adds half of it; and the balanced time is the hand sum of fc1
 * (M x 2f x h) and fc2 (M x h x f): max(compute, inputs) + output per GEMM. A capacity
 * factor below the imbalance caps it. */
static void load_imbalance_scales_the_busiest_experts_gemm_time(void **state)
{
    (void)state;
    double fwd[4];
    const char *imb[4] = {"1", "1.5", "2", "2, \"capacity_factor\": 1.25"};
    for (int i = 0; i < 4; i++) {
        struct ts_job job;
        job_from_json(&job,
                      "{\"model\": {\"name\": \"tiny\", \"layers\": 2, \"hidden\": 1024, "
                      "\"heads\": 8, \"ffn_hidden\": 4096, \"ffn\": \"swiglu\", \"vocab\": 1024, "
                      "\"seq_len\": 2048, \"moe\": {\"experts\": 4, \"top_k\": 2, "
                      "\"expert_ffn_hidden\": 2048, \"load_imbalance\": %s}}, \"system\": "
                      HAND_SYSTEM ", \"gpus\": 4, \"global_batch\": 4, \"parallel\": {\"ep\": 4}, "
                      "\"reliability\": \"none\"}", imb[i]);
        struct ts_compute *c = malloc(sizeof *c);
        assert_non_null(c);
        ts_compute_build(&job, c);
        fwd[i] = c->moe_layer.fwd.gemm_s;
        free(c);
    }
    /* balanced: M = ep Tn k / E = 2048 x 2 copies on the one local expert */
    double M = 4096, h = 1024, f = 2048;
    double fc1 = fmax(2 * M * 2 * f * h / 5e13, 2 * (M * h + h * 2 * f) / 1e12) + 2 * M * 2 * f / 1e12;
    double fc2 = fmax(2 * M * h * f / 5e13, 2 * (M * f + f * h) / 1e12) + 2 * M * h / 1e12;
    assert_close(fwd[2] - fwd[0], fc1 + fc2, 1e-9, 0);
    assert_close(fwd[1] - fwd[0], 0.5 * (fc1 + fc2), 1e-9, 0);
    assert_close(fwd[3] - fwd[0], 0.25 * (fc1 + fc2), 1e-9, 0);
}

/* The default imbalance follows the balancing scheme: 1 + MaxVio_global of Wang et al. 2024
 * (arXiv 2408.15664) Table 2, 1B models: 0.72 with the auxiliary loss, 0.04 loss-free. */
static void default_imbalance_depends_on_aux_loss_free_routing(void **state)
{
    (void)state;
    struct ts_job a, b;
    job_from_json(&a, "{\"model\": \"mixtral-8x7b\", \"system\": \"dgx-h100\", \"gpus\": 8, "
                      "\"global_batch\": 8, \"reliability\": \"none\"}");
    job_from_json(&b, "{\"model\": \"deepseek-v3\", \"system\": \"dgx-h100\", \"gpus\": 8, "
                      "\"global_batch\": 8, \"reliability\": \"none\"}");
    assert_false(a.model.moe.aux_loss_free);
    assert_true(b.model.moe.aux_loss_free);
    assert_close(a.model.moe.load_imbalance, 1.72, 1e-12, 0);
    assert_close(b.model.moe.load_imbalance, 1.04, 1e-12, 0);
}

/* ---------------------------------------------------------------- FLOPs */

/* Model FLOPs per token count the activated parameters only: for Mixtral (no MLA, no
 * window) 6 x per-token forward matmul work = 6 (2 x active non-embedding-input weights +
 * attention scores 4 s a d per layer). The active count includes the input embedding, a
 * lookup, which the FLOPs leave out. */
static void model_flops_count_the_activated_experts_only(void **state)
{
    (void)state;
    struct ts_job job;
    job_from_json(&job, "{\"model\": \"mixtral-8x7b\", \"system\": \"dgx-h100\", \"gpus\": 8, "
                        "\"global_batch\": 8, \"reliability\": \"none\"}");
    struct ts_compute *c = malloc(sizeof *c);
    assert_non_null(c);
    ts_compute_build(&job, c);
    double active = ts_compute_active_param_count(&job, c);
    double h = 4096, s = 4096, L = 32, V = 32000;
    double matmul_weights = active - V * h - L * 2 * h - h - L * 8 * h; /* no embedding, norms, router */
    double per_token = 2 * matmul_weights + L * 4 * s * 32 * 128;
    assert_close(ts_compute_model_flops(&job, c), 3 * per_token * 8 * s, 1e-12, 0);
    free(c);
}

/* MLA: the DeepSeek-V3 attention projections per token are 2 x their weights (q_a, q_b,
 * kv_a, kv_b, o), the scores and context 2 s a (192 + 128). */
static void mla_flops_follow_its_projections_and_head_dims(void **state)
{
    (void)state;
    struct ts_job job;
    job_from_json(&job, "{\"model\": \"deepseek-v3\", \"system\": \"dgx-h100\", \"gpus\": 8, "
                        "\"global_batch\": 8, \"reliability\": \"none\"}");
    struct ts_compute *c = malloc(sizeof *c);
    assert_non_null(c);
    ts_compute_build(&job, c);
    double h = 7168, s = 4096, a = 128;
    double proj = h * 1536 + 1536 * a * 192 + h * 576 + 512 * a * 256 + a * 128 * h;
    double attn = 2 * proj + 2 * s * a * (192 + 128);
    double dense = attn + 6 * h * 18432, moe = attn + 6 * h * (8 * 2048 + 2048);
    double mtp = moe + 4 * h * h + 2 * h * 129280;
    double per_token = 3 * dense + 58 * moe + 2 * h * 129280 + mtp;
    assert_close(ts_compute_model_flops(&job, c), 3 * per_token * 8 * s, 1e-12, 0);
    free(c);
}

/* Each multi-token-prediction module runs its 2h -> h projection (4 h^2 FLOPs per token
 * forward, twice that backward), which the model FLOPs count: the hardware FLOPs must count
 * it too, so that MFU never exceeds HFU whatever the number of modules (a fuzzed
 * DeepSeek-V3 config with num_nextn_predict_layers 2 had MFU 0.2% above HFU). */
static void mtp_projections_count_in_hardware_flops_so_mfu_stays_below_hfu(void **state)
{
    (void)state;
    struct ts_job job;
    job_from_json(&job, "{\"model\": \"deepseek-v3\", \"system\": \"dgx-h100\", \"gpus\": 8, "
                        "\"global_batch\": 8, \"reliability\": \"none\"}");
    struct ts_compute *c = malloc(sizeof *c);
    assert_non_null(c);
    double h = 7168, T = 4096;              // one sequence of 4096 per microbatch, tp 1
    double hw[4];
    for (int n = 0; n < 4; n++) {
        job.model.mtp_layers = n;
        ts_compute_build(&job, c);
        if (n > 0) {
            assert_close(c->mtp_proj.fwd.flops, 2 * T * (2 * h) * h, 1e-12, 0);
            assert_close(c->mtp_proj.bwd.flops, 2 * c->mtp_proj.fwd.flops, 1e-12, 0);
        }
        hw[n] = ts_compute_hardware_flops(&job, c);
        assert_true(ts_compute_model_flops(&job, c) <= hw[n]);
    }
    /* one module more: its MoE layer, its logits and its projection, on every microbatch of
     * every GPU (8 GPUs, one microbatch each) */
    const struct ts_layer_cost *M = &c->moe_layer;
    double module = M->fwd.flops + M->bwd.flops + M->recompute.flops + c->output.fwd.flops +
                    c->output.bwd.flops + 3 * 2 * T * (2 * h) * h;
    assert_close(hw[3] - hw[2], 8 * module, 1e-9, 0);
    assert_close(hw[2] - hw[1], 8 * module, 1e-9, 0);
    free(c);
}

/* Sliding windows: a layer of window w counts 2 w - w (w - 1) / s keys per query. */
static void sliding_window_counts_windowed_scores(void **state)
{
    (void)state;
    struct ts_job full, win;
#define WIN_FMT "{\"model\": {\"name\": \"w\", \"layers\": 2, \"hidden\": 1024, \"heads\": 8, " \
                "\"ffn\": \"swiglu\", \"vocab\": 1024, \"seq_len\": 4096%s}, \"system\": " \
                "\"dgx-h100\", \"gpus\": 1, \"global_batch\": 1, \"reliability\": \"none\"}"
    job_from_json(&full, WIN_FMT, "");
    job_from_json(&win, WIN_FMT, ", \"sliding_window\": 1024, \"sliding_window_pattern\": 2");
    struct ts_compute *c = malloc(sizeof *c);
    assert_non_null(c);
    ts_compute_build(&full, c);
    double f_full = ts_compute_model_flops(&full, c);
    ts_compute_build(&win, c);
    double f_win = ts_compute_model_flops(&win, c);
    free(c);
    double s = 4096, w = 1024, keys = 0.5 * (2 * w - w * (w - 1) / s) + 0.5 * s;
    /* difference: 2 layers x 4 a d (s - keys) per token x 3 x tokens */
    assert_close(f_full - f_win, 3 * 2 * 4 * 8 * 128 * (s - keys) * s, 1e-9, 0);
}

/* ---------------------------------------------------------------- memory and layout */

/* Expert weights are split over ep: doubling ep halves the routed experts' bytes. */
static void expert_state_is_sharded_over_ep(void **state)
{
    (void)state;
    double w[2];
    for (int i = 0; i < 2; i++) {
        struct ts_job job;
        job_from_json(&job, "{\"model\": \"mixtral-8x7b\", \"system\": \"dgx-h100\", \"gpus\": 8, "
                            "\"global_batch\": 8, \"parallel\": {\"ep\": %d}, "
                            "\"reliability\": \"none\"}", i == 0 ? 4 : 8);
        struct ts_compute *c = malloc(sizeof *c);
        assert_non_null(c);
        ts_compute_build(&job, c);
        struct ts_memory m;
        ts_memory_stage(&job, c, 0, &m);
        w[i] = m.weights_bytes;
        assert_close(ts_compute_stage_expert_params(&job, c, 0),
                     32 * (8.0 / (i == 0 ? 4 : 8)) * 3 * 4096.0 * 14336, 0, 0.5);
        free(c);
    }
    double experts_ep4 = 32 * 2 * 3 * 4096.0 * 14336 * 2;  /* bf16 bytes */
    assert_close(w[0] - w[1], experts_ep4 / 2, 1e-12, 0);
}

static void bad_moe_layouts_are_input_errors(void **state)
{
    (void)state;
    static const struct { const char *parallel, *needle; } cases[] = {
        {"{\"ep\": 3}", "parallel.ep: 3 does not divide experts (8)"},
        {"{\"ep\": 8, \"pp\": 2}", "does not divide the 4 GPUs of a pipeline stage"},
        {"{\"etp\": 3}", "parallel.etp: 3 does not divide expert_ffn_hidden"},
        {"{\"tp\": 2}", "parallel.sequence_parallel"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[1024];
        snprintf(text, sizeof text,
                 "{\"model\": \"mixtral-8x7b\", \"system\": \"dgx-h100\", \"gpus\": 8, "
                 "\"global_batch\": 8, \"parallel\": %s, \"reliability\": \"none\"}",
                 cases[i].parallel);
        struct ts_job job;
        struct ts_err err;
        assert_input_error(job_parse_text(&job, &err, text), &err, cases[i].needle);
    }
    struct ts_job job;
    struct ts_err err;
    assert_input_error(job_parse_text(&job, &err,
                                      "{\"model\": \"llama3-8b\", \"system\": \"dgx-h100\", "
                                      "\"gpus\": 8, \"global_batch\": 8, \"parallel\": {\"ep\": 2}, "
                                      "\"reliability\": \"none\"}"),
                       &err, "has no experts");
}

/* Experts across nodes: the EP group of ep 16 with etp 1 spans two 8-GPU domains, so its
 * dispatch crosses the NIC and costs more than ep 8 inside one domain. */
static void ep_across_nodes_costs_more_than_inside_a_domain(void **state)
{
    (void)state;
    double comm[2];
    for (int i = 0; i < 2; i++) {
        struct ts_job job;
        job_from_json(&job, "{\"model\": {\"name\": \"t\", \"layers\": 1, \"hidden\": 2048, "
                            "\"heads\": 16, \"ffn\": \"swiglu\", \"vocab\": 1024, \"seq_len\": 4096, "
                            "\"moe\": {\"experts\": 16, \"top_k\": 2, \"expert_ffn_hidden\": 1024, "
                            "\"load_imbalance\": 1}}, \"system\": \"dgx-h100\", \"gpus\": 16, "
                            "\"global_batch\": 16, \"parallel\": {\"ep\": %d}, "
                            "\"reliability\": \"none\"}", i == 0 ? 8 : 16);
        struct ts_eval_scratch s;
        assert_int_equal(ts_eval_scratch_init(&s), 0);
        ts_compute_build(&job, &s.compute);
        ts_step_plan_build(&job, &s.compute, &s.plan);
        comm[i] = s.plan.chunk[0].fwd_comm_s;
        ts_eval_scratch_free(&s);
    }
    assert_true(comm[1] > 2.0 * comm[0]);
}

/* ---------------------------------------------------------------- uneven pipeline splits */

/* The sweep's balanced uneven split for a pp that does not divide the layers, by hand:
 * middle stages ceil(L / pp), the spare layers taken from the first and last stages, the
 * last giving up the odd one. DeepSeek-V3's 61 layers on pp 16 give the published
 * 3 + 14 x 4 + 2 (configs/deepseek-v3-h800.json), Qwen3-235B's 94 on pp 8 the
 * 11 + 6 x 12 + 11 of the Megatron-Bridge jobs; 61 on pp 32 (middle 2, spare 3) would leave
 * the last stage no layer, and a divisor needs no uneven split. */
static void uneven_pipeline_splits_balance_the_middle_stages(void **state)
{
    (void)state;
    static const struct { int layers, pp, first, last; } ok[] = {
        {61, 16, 3, 2}, {94, 8, 11, 11}, {61, 2, 31, 30}, {126, 64, 1, 1}, {7, 4, 2, 1},
    };
    for (size_t i = 0; i < TS_ARRAY_LEN(ok); i++) {
        int first = -1, last = -1;
        assert_true(ts_sweep_stage_split(ok[i].layers, ok[i].pp, &first, &last));
        assert_int_equal(first, ok[i].first);
        assert_int_equal(last, ok[i].last);
        int middle = ok[i].layers - first - last;
        assert_int_equal(middle, (ok[i].pp - 2) * ((ok[i].layers + ok[i].pp - 1) / ok[i].pp));
    }
    int first, last;
    assert_false(ts_sweep_stage_split(61, 32, &first, &last));
    assert_false(ts_sweep_stage_split(64, 16, &first, &last));
    assert_false(ts_sweep_stage_split(61, 1, &first, &last));
    assert_false(ts_sweep_stage_split(7, 8, &first, &last));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(deepseek_v3_counts_match_the_shape_count_and_the_published_671b_37b),
        cmocka_unit_test(mixtral_8x7b_counts_match_the_published_46_7b_and_12_9b),
        cmocka_unit_test(mtp_projections_count_in_hardware_flops_so_mfu_stays_below_hfu),
        cmocka_unit_test(qwen3_30b_a3b_counts_match_the_shape_count_without_its_qk_norms),
        cmocka_unit_test(gpt_oss_120b_counts_match_the_shape_count_but_sinks_and_norm_biases),
        cmocka_unit_test(catalogue_moe_counts_round_to_their_published_sizes),
        cmocka_unit_test(one_expert_top1_moe_equals_the_dense_model_exactly),
        cmocka_unit_test(all_to_all_dispatch_and_combine_cost_alpha_beta_by_hand),
        cmocka_unit_test(load_imbalance_scales_the_busiest_experts_gemm_time),
        cmocka_unit_test(default_imbalance_depends_on_aux_loss_free_routing),
        cmocka_unit_test(model_flops_count_the_activated_experts_only),
        cmocka_unit_test(mla_flops_follow_its_projections_and_head_dims),
        cmocka_unit_test(sliding_window_counts_windowed_scores),
        cmocka_unit_test(expert_state_is_sharded_over_ep),
        cmocka_unit_test(bad_moe_layouts_are_input_errors),
        cmocka_unit_test(ep_across_nodes_costs_more_than_inside_a_domain),
        cmocka_unit_test(uneven_pipeline_splits_balance_the_middle_stages),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
