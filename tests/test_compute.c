/*
 * Tests of the compute module (sim/compute): FLOPs, parameter counts, GEMM times and the
 * memory model, against the formulas the papers print (Narayanan et al. SC21 eq. 2-3,
 * Korthikanti et al. 2022 eq. 7 and their reported activation memory), published model
 * sizes, hand computation on tiny inline jobs, and a brute-force count over the schedule
 * that sim/step runs.
 *
 * Catalogue names ("megatron-1.7b", "dgx-a100-80g") resolve under TRAINSIM_HOME, which
 * ctest sets to the source tree.
 */
#include "test_helpers.h"
#include "test_job.h"

#include "compute/compute.h"
#include "spec/spec.h"
#include "step/step.h"

#define GIB 1073741824.0

/* ---------------------------------------------------------------- fixtures */

/* Parse a job from JSON text (printf format); fails the test on any error. */
static void job_from_json(struct ts_job *job, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void job_from_json(struct ts_job *job, const char *fmt, ...)
{
    char text[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    parse_job(text, job);
}

/* An accelerator whose numbers make hand computation easy: 100 TFLOP/s at a constant GEMM
 * efficiency of 0.5 (one curve point below every GEMM of the tests), 1 TB/s of HBM at full
 * efficiency, no launch latency, no reserve. */
#define HAND_ACCEL                                                                          \
    "{\"name\": \"hand-gpu\", \"peak_flops\": {\"bf16\": 1e14}, \"memory\": \"80 GiB\", "  \
    "\"memory_bandwidth\": 1e12, \"memory_efficiency\": 1.0, \"kernel_latency\": 0, "      \
    "\"gemm_efficiency\": [[1000, 0.5]]}"

#define HAND_SYSTEM                                                                         \
    "{\"name\": \"hand-sys\", \"accelerator\": " HAND_ACCEL ", \"gpus_per_node\": 8, "      \
    "\"scale_up\": {\"bandwidth\": \"300 GB/s\", \"latency\": \"5 us\", \"domain_size\": 8}, " \
    "\"scale_out\": {\"bandwidth\": \"200 Gb/s\", \"latency\": \"10 us\"}}"

/* ---------------------------------------------------------------- FLOPs */

struct narayanan_row {
    const char *model;
    int heads, hidden, layers, tp, pp, gpus, batch;
    double params_b;    // the paper's parameter count, billions
};

/* Narayanan et al. SC21, Table 1 (shared reference megatron-a100.md). */
static const struct narayanan_row narayanan[] = {
    {"megatron-1.7b", 24, 2304, 24, 1, 1, 32, 512, 1.7},
    {"megatron-3.6b", 32, 3072, 30, 2, 1, 64, 512, 3.6},
    {"megatron-7.5b", 32, 4096, 36, 4, 1, 128, 512, 7.5},
    {"megatron-18.4b", 48, 6144, 40, 8, 1, 256, 1024, 18.4},
    {"megatron-39.1b", 64, 8192, 48, 8, 2, 512, 1536, 39.1},
    {"megatron-76.1b", 80, 10240, 60, 8, 4, 1024, 1792, 76.1},
    {"megatron-145.6b", 96, 12288, 80, 8, 8, 1536, 2304, 145.6},
    {"megatron-310.1b", 128, 16384, 96, 8, 16, 1920, 2160, 310.1},
    {"megatron-529.6b", 128, 20480, 105, 8, 35, 2520, 2520, 529.6},
    {"megatron-1t", 160, 25600, 128, 8, 64, 3072, 3072, 1008.0},
};

static void narayanan_job(struct ts_job *job, const struct narayanan_row *r)
{
    job_from_json(job,
                  "{\"model\": \"%s\", \"system\": \"dgx-a100-80g\", \"gpus\": %d, "
                  "\"global_batch\": %d, \"precision\": \"fp16\", \"parallel\": {\"tp\": %d, "
                  "\"pp\": %d, \"microbatch\": 1, \"recompute\": \"full\", "
                  "\"attention\": \"standard\"}}",
                  r->model, r->gpus, r->batch, r->tp, r->pp);
    assert_int_equal(job->model.hidden, r->hidden);
    assert_int_equal(job->model.layers, r->layers);
    assert_int_equal(job->model.heads, r->heads);
}

static void hardware_flops_with_full_recompute_match_narayanan_eq3_for_all_table1_rows(void **state)
{
    (void)state;
    for (size_t i = 0; i < TS_ARRAY_LEN(narayanan); i++) {
        const struct narayanan_row *r = &narayanan[i];
        struct ts_job job;
        narayanan_job(&job, r);
        struct ts_compute c;
        ts_compute_build(&job, &c);
        /* eq. (3): F = 96 B s l h^2 (1 + s / (6 h) + V / (16 l h)) */
        double B = r->batch, s = 2048, l = r->layers, h = r->hidden, V = 51200;
        double expected = 96.0 * B * s * l * h * h * (1.0 + s / (6.0 * h) + V / (16.0 * l * h));
        assert_close(ts_compute_hardware_flops(&job, &c), expected, 0.01, 0.0);
    }
}

static void hardware_flops_do_not_depend_on_the_microbatch_size(void **state)
{
    (void)state;
    const struct narayanan_row *r = &narayanan[5];  /* 76.1B: pp 4, dp 32, batch 1792 */
    double flops[3];
    int micro[3] = {1, 2, 4};
    for (int i = 0; i < 3; i++) {
        struct ts_job job;
        job_from_json(&job,
                      "{\"model\": \"%s\", \"system\": \"dgx-a100-80g\", \"gpus\": %d, "
                      "\"global_batch\": %d, \"precision\": \"fp16\", \"parallel\": {\"tp\": %d, "
                      "\"pp\": %d, \"microbatch\": %d, \"recompute\": \"full\"}}",
                      r->model, r->gpus, r->batch, r->tp, r->pp, micro[i]);
        struct ts_compute c;
        ts_compute_build(&job, &c);
        flops[i] = ts_compute_hardware_flops(&job, &c);
    }
    assert_close(flops[1], flops[0], 1e-12, 0.0);
    assert_close(flops[2], flops[0], 1e-12, 0.0);
}

struct korthikanti_row {
    const char *model;
    int hidden, layers, tp, pp, v, gpus, batch, micro;
    double act_none_gib, act_seqsel_gib;    // reported activation memory per GPU
};

/* Korthikanti et al. 2022, Table 3 layouts and the reported activation memory. */
static const struct korthikanti_row korthikanti[] = {
    {"korthikanti-22b", 6144, 48, 8, 1, 1, 8, 4, 4, 59.25, 9.56},
    {"korthikanti-175b", 12288, 96, 8, 8, 3, 64, 64, 1, 66.84, 12.35},
    {"korthikanti-530b", 20480, 105, 8, 35, 3, 280, 280, 1, 114.02, 23.08},
    {"korthikanti-1t", 25600, 128, 8, 64, 1, 512, 512, 1, 131.25, 26.56},
};

static void korthikanti_job(struct ts_job *job, const struct korthikanti_row *r, bool seqsel)
{
    char sched[96];
    if (r->v > 1)
        snprintf(sched, sizeof sched, "\"schedule\": \"interleaved\", \"virtual_stages\": %d", r->v);
    else
        snprintf(sched, sizeof sched, "\"schedule\": \"1f1b\"");
    job_from_json(job,
                  "{\"model\": \"%s\", \"system\": \"dgx-a100-80g\", \"gpus\": %d, "
                  "\"global_batch\": %d, \"precision\": \"fp16\", \"parallel\": {\"tp\": %d, "
                  "\"pp\": %d, \"microbatch\": %d, %s, \"recompute\": \"%s\", "
                  "\"sequence_parallel\": %s, \"attention\": \"standard\"}}",
                  r->model, r->gpus, r->batch, r->tp, r->pp, r->micro, sched,
                  seqsel ? "selective" : "none", seqsel ? "true" : "false");
    assert_int_equal(job->parallel.dp, 1);
}

static void model_flops_match_korthikanti_eq7_for_the_four_models(void **state)
{
    (void)state;
    for (size_t i = 0; i < TS_ARRAY_LEN(korthikanti); i++) {
        const struct korthikanti_row *r = &korthikanti[i];
        struct ts_job job;
        korthikanti_job(&job, r, true);
        struct ts_compute c;
        ts_compute_build(&job, &c);
        /* eq. (7): 72 B L s h^2 (1 + s / (6 h) + V / (12 h L)) */
        double B = r->batch, L = r->layers, s = 2048, h = r->hidden, V = 51200;
        double expected = 72.0 * B * L * s * h * h * (1.0 + s / (6.0 * h) + V / (12.0 * h * L));
        assert_close(ts_compute_model_flops(&job, &c), expected, 0.01, 0.0);
    }
}

/* Selective recomputation repeats the forward of the attention core, QK^T and attention
 * over V: 4 B s^2 h per layer, so hardware FLOPs are eq. (7) plus 4 B L s^2 h =
 * 72 B L s h^2 (1 + 2s / (9h) + V / (12 h L)). (Korthikanti's eq. (8) prints s / (3h), which
 * counts 12 B s^2 h, three times the work repeated; Table 5's HFU follows eq. (8).) */
static void hardware_flops_with_selective_recompute_add_one_attention_core_forward(void **state)
{
    (void)state;
    for (size_t i = 0; i < TS_ARRAY_LEN(korthikanti); i++) {
        const struct korthikanti_row *r = &korthikanti[i];
        struct ts_job job;
        korthikanti_job(&job, r, true);
        struct ts_compute c;
        ts_compute_build(&job, &c);
        double B = r->batch, L = r->layers, s = 2048, h = r->hidden, V = 51200;
        double expected = 72.0 * B * L * s * h * h * (1.0 + 2.0 * s / (9.0 * h) + V / (12.0 * h * L));
        assert_close(ts_compute_hardware_flops(&job, &c), expected, 1e-12, 0.0);
        assert_close(ts_compute_hardware_flops(&job, &c) - ts_compute_model_flops(&job, &c),
                     4.0 * B * L * s * s * h, 1e-9, 0.0);
    }
}

/* ---------------------------------------------------------------- activation memory */

static void activation_memory_matches_korthikanti_without_recompute_and_with_seq_sel(void **state)
{
    (void)state;
    for (size_t i = 0; i < TS_ARRAY_LEN(korthikanti); i++) {
        const struct korthikanti_row *r = &korthikanti[i];
        for (int seqsel = 0; seqsel < 2; seqsel++) {
            struct ts_job job;
            korthikanti_job(&job, r, seqsel);
            struct ts_compute c;
            ts_compute_build(&job, &c);
            struct ts_memory mem;
            ts_memory_stage(&job, &c, 0, &mem);
            double published = seqsel ? r->act_seqsel_gib : r->act_none_gib;
            assert_close(mem.activation_bytes / GIB, published, 0.05, 0.0);
        }
    }
}

static void layer_activations_equal_korthikanti_per_layer_formulas_exactly(void **state)
{
    (void)state;
    /* 22B: s = 2048, b = 4, h = 6144, a = 64, t = 8, 16-bit activations, dropout on. */
    const struct korthikanti_row *r = &korthikanti[0];
    double s = 2048, b = 4, h = 6144, a = 64, t = 8;
    struct ts_job job;
    korthikanti_job(&job, r, false);
    struct ts_compute c;
    ts_compute_build(&job, &c);
    /* tensor parallel: s b h (10 + 24 / t + 5 a s / (h t)) */
    assert_close(c.layer.activation_bytes, s * b * h * (10 + 24 / t + 5 * a * s / (h * t)), 1e-12, 0);
    korthikanti_job(&job, r, true);
    ts_compute_build(&job, &c);
    /* tensor + sequence parallel + selective recompute: 34 s b h / t */
    assert_close(c.layer.activation_bytes, 34 * s * b * h / t, 1e-12, 0);
}

/* ---------------------------------------------------------------- parameter counts */

static void param_counts_match_narayanan_eq2(void **state)
{
    (void)state;
    for (size_t i = 0; i < TS_ARRAY_LEN(narayanan); i++) {
        const struct narayanan_row *r = &narayanan[i];
        struct ts_job job;
        narayanan_job(&job, r);
        struct ts_compute c;
        ts_compute_build(&job, &c);
        /* eq. (2): P = 12 l h^2 (1 + 13 / (12 h) + (V + s) / (12 l h)) */
        double l = r->layers, h = r->hidden, V = 51200, s = 2048;
        double expected = 12.0 * l * h * h * (1.0 + 13.0 / (12.0 * h) + (V + s) / (12.0 * l * h));
        assert_close(ts_compute_param_count(&job, &c), expected, 0.01, 0.0);
        /* and the size the table prints, which rounds eq. (2) to 0.1 B (1.65 B -> 1.7) */
        assert_close(ts_compute_param_count(&job, &c) / 1e9, r->params_b, 0.0, 0.05);
    }
}

static void param_counts_match_published_llama_sizes(void **state)
{
    (void)state;
    static const struct {
        const char *model;
        double params;
    } llama[] = {
        {"llama2-7b", 6.74e9},  {"llama2-13b", 13.0e9}, {"llama2-70b", 69.0e9},
        {"llama3-8b", 8.03e9},  {"llama3-70b", 70.6e9}, {"llama3-405b", 405.9e9},
    };
    for (size_t i = 0; i < TS_ARRAY_LEN(llama); i++) {
        struct ts_job job;
        job_from_json(&job,
                      "{\"model\": \"%s\", \"system\": \"dgx-h100\", \"gpus\": 8, "
                      "\"global_batch\": 8, \"parallel\": {\"tp\": 8}}",
                      llama[i].model);
        struct ts_compute c;
        ts_compute_build(&job, &c);
        assert_close(ts_compute_param_count(&job, &c), llama[i].params, 0.015, 0.0);
    }
}

/* Squared ReLU (Nemotron-4) against GeLU at the same sizes: the same GEMMs, FLOPs and
 * parameters; NeMo's relu-then-pow costs one more read and write of the fc1 output forward
 * (2 e T f bytes) and one more pass of three backward (3 e T f). Hand accelerator: 1 TB/s at
 * full efficiency, no launch latency. Nemotron-4 15B: 12.5B non-embedding + 3.2B embedding
 * parameters (Parmar et al. 2024, arXiv 2402.16819, sec. 2). */
static void squared_relu_adds_one_activation_pass_each_way_and_keeps_flops_and_params(void **state)
{
    (void)state;
    const double T = 2.0 * 1024.0, f = 4096.0, e = 2.0;
    struct ts_compute c[2];
    struct ts_job job[2];
    const char *ffn[2] = {"gelu", "squared_relu"};
    for (int i = 0; i < 2; i++) {
        job_from_json(&job[i],
                      "{\"model\": {\"name\": \"m\", \"layers\": 2, \"hidden\": 1024, "
                      "\"heads\": 8, \"ffn_hidden\": 4096, \"ffn\": \"%s\", \"bias\": false, "
                      "\"position_embedding\": \"rope\", \"vocab\": 1024, \"seq_len\": 1024}, "
                      "\"system\": " HAND_SYSTEM ", \"gpus\": 1, \"global_batch\": 2, "
                      "\"precision\": \"bf16\", \"parallel\": {\"microbatch\": 2}}",
                      ffn[i]);
        ts_compute_build(&job[i], &c[i]);
    }
    assert_int_equal(job[1].model.ffn, TS_FFN_SQUARED_RELU);
    assert_false(ts_ffn_gated(job[1].model.ffn));
    assert_close(c[1].layer.fwd.flops, c[0].layer.fwd.flops, 0.0, 0.0);
    assert_close(c[1].layer.bwd.flops, c[0].layer.bwd.flops, 0.0, 0.0);
    assert_close(c[1].layer.fwd.gemm_s, c[0].layer.fwd.gemm_s, 1e-15, 0.0);
    assert_close(c[1].layer.params, c[0].layer.params, 0.0, 0.0);
    assert_close(c[1].layer.fwd.mem_s - c[0].layer.fwd.mem_s, 2.0 * e * T * f / 1e12, 1e-9, 0.0);
    assert_close(c[1].layer.bwd.mem_s - c[0].layer.bwd.mem_s, 3.0 * e * T * f / 1e12, 1e-9, 0.0);
    assert_close(c[1].layer.activation_bytes, c[0].layer.activation_bytes, 0.0, 0.0);

    struct ts_job n;
    struct ts_compute nc;
    job_from_json(&n, "{\"model\": \"nemotron4-15b\", \"system\": \"dgx-b200\", \"gpus\": 8, "
                      "\"global_batch\": 8}");
    ts_compute_build(&n, &nc);
    assert_close(ts_compute_param_count(&n, &nc), 15.7e9, 0.01, 0.0);
}

/* ---------------------------------------------------------------- microbatches in flight */

/* Brute force: the most (forwards - backwards) outstanding over the stage's task order,
 * in chunk-microbatches, divided by v. */
static double inflight_by_counting(enum ts_schedule sched, int p, int v, int m, int stage)
{
    struct ts_task *order = ts_xcalloc((size_t)2 * m * v, sizeof *order);
    ts_step_schedule(sched, p, v, m, stage, order);
    int held = 0, most = 0;
    for (int i = 0; i < 2 * m * v; i++) {
        held += order[i].kind == TS_TASK_F ? 1 : -1;
        if (held > most)
            most = held;
    }
    free(order);
    return (double)most / v;
}

static void inflight_microbatches_equal_a_count_over_the_schedule(void **state)
{
    (void)state;
    static const struct {
        enum ts_schedule sched;
        int p, v, m;
    } cases[] = {
        {TS_SCHED_GPIPE, 4, 1, 8},        {TS_SCHED_GPIPE, 8, 1, 3},
        {TS_SCHED_1F1B, 1, 1, 5},         {TS_SCHED_1F1B, 4, 1, 2},
        {TS_SCHED_1F1B, 4, 1, 16},        {TS_SCHED_1F1B, 8, 1, 8},
        {TS_SCHED_1F1B, 7, 1, 30},        {TS_SCHED_INTERLEAVED, 2, 2, 4},
        {TS_SCHED_INTERLEAVED, 4, 2, 4},  {TS_SCHED_INTERLEAVED, 4, 3, 8},
        {TS_SCHED_INTERLEAVED, 8, 3, 64}, {TS_SCHED_INTERLEAVED, 8, 4, 8},
        {TS_SCHED_INTERLEAVED, 5, 2, 10},
    };
    for (size_t i = 0; i < TS_ARRAY_LEN(cases); i++) {
        int p = cases[i].p, v = cases[i].v, m = cases[i].m;
        struct ts_job job;
        memset(&job, 0, sizeof job);
        job.parallel.pp = p;
        job.parallel.virtual_stages = v;
        job.parallel.schedule = cases[i].sched;
        job.parallel.dp = 2;
        job.parallel.microbatch = 3;
        job.global_batch = m * 2 * 3;
        for (int k = 0; k < p; k++) {
            double expected = inflight_by_counting(cases[i].sched, p, v, m, k);
            double got = ts_memory_inflight(&job, k);
            if (got != expected) {
                print_error("%s p=%d v=%d m=%d stage %d: inflight %g, schedule holds %g\n",
                            ts_schedule_names[cases[i].sched], p, v, m, k, got, expected);
                fail();
            }
        }
    }
}

/* ---------------------------------------------------------------- ZeRO */

/* A tiny GPT (GeLU, biases, learned positions, untied output) with hand-countable
 * parameters, on tp 1 pp 1 dp 4 cp 2. */
#define TINY_GPT                                                                           \
    "{\"name\": \"tiny\", \"layers\": 2, \"hidden\": 64, \"heads\": 4, \"vocab\": 1000, " \
    "\"seq_len\": 16}"

static void zero_stages_shard_weights_grads_and_optimizer_over_dp_times_cp(void **state)
{
    (void)state;
    /* Per layer 12 h^2 + 13 h (QKV 3h^2 + 3h, projection h^2 + h, MLP 8h^2 + 5h, two norms
     * 4h); embedding V_pad h + s h with V padded to 1024; untied output V_pad h + final norm
     * 2h. */
    double h = 64, L = 2, Vp = 1024, s = 16;
    double layer = 12 * h * h + 13 * h;
    double P = L * layer + (Vp * h + s * h) + (Vp * h + 2 * h);
    assert_close(P, 232192.0, 0, 0);
    double shard = 4 * 2;
    for (int zero = 0; zero <= 3; zero++) {
        struct ts_job job;
        job_from_json(&job,
                      "{\"model\": " TINY_GPT ", \"system\": " HAND_SYSTEM ", \"gpus\": 8, "
                      "\"global_batch\": 8, \"parallel\": {\"dp\": 4, \"cp\": 2, \"zero\": %d}}",
                      zero);
        struct ts_compute c;
        ts_compute_build(&job, &c);
        assert_close(ts_compute_stage_params(&job, &c, 0), P, 1e-15, 0);
        struct ts_memory mem;
        ts_memory_stage(&job, &c, 0, &mem);
        /* 2 bytes of bf16 weights, 4 of fp32 main grads, 12 of fp32 master + Adam m, v */
        assert_close(mem.weights_bytes, 2 * P / (zero >= 3 ? shard : 1), 1e-15, 0);
        assert_close(mem.grads_bytes, 4 * P / (zero >= 2 ? shard : 1), 1e-15, 0);
        assert_close(mem.optimizer_bytes, 12 * P / (zero >= 1 ? shard : 1), 1e-15, 0);
        /* ZeRO-3 holds the gathered current and prefetched layer (2 bytes each) and the
         * unsharded bf16 gradients of the layer being produced and the one being reduced */
        assert_close(mem.buffer_bytes, zero >= 3 ? 2 * 2 * layer + 2 * 2 * layer : 0, 1e-15, 0);
        assert_close(mem.total_bytes,
                     mem.weights_bytes + mem.grads_bytes + mem.optimizer_bytes + mem.buffer_bytes +
                         mem.activation_bytes + mem.output_bytes + mem.reserved_bytes,
                     1e-15, 0);
    }
}

/* ---------------------------------------------------------------- GEMM times */

/* Roofline of one forward GEMM on HAND_ACCEL: M x K times K x N in bf16, output stored in
 * 16 bits: max(2MNK / (1e14 x 0.5), 2 (MK + KN) / 1e12) + 2 MN / 1e12. */
static double hand_gemm(double M, double N, double K, bool *compute_bound)
{
    double t_compute = 2 * M * N * K / (1e14 * 0.5);
    double t_inputs = 2 * (M * K + K * N) / 1e12;
    if (compute_bound)
        *compute_bound = t_compute > t_inputs;
    return fmax(t_compute, t_inputs) + 2 * M * N / 1e12;
}

/* Forward GEMM time of one layer of a GeLU model (flash attention, so the attention core is
 * not in gemm_s): QKV (T x 3h x h), projection (T x h x h), fc1 (T x f x h), fc2 (T x h x f),
 * each split over tp. */
static double hand_layer_fwd_gemm(double T, double h, double f, double t, int *compute_bound)
{
    bool cb[4];
    double sum = hand_gemm(T, 3 * h / t, h, &cb[0]) + hand_gemm(T, h, h / t, &cb[1]) +
                 hand_gemm(T, f / t, h, &cb[2]) + hand_gemm(T, h, f / t, &cb[3]);
    *compute_bound = cb[0] + cb[1] + cb[2] + cb[3];
    return sum;
}

static void hybrid_sharding_shards_over_the_zero_group_only(void **state)
{
    (void)state;
    /* zero_group 2 of dp x cp = 8 ranks: every state shards over 2 ranks (4 replicas); a
     * deeper prefetch holds one more gathered layer. Same model as above. */
    double h = 64, L = 2, Vp = 1024, s = 16;
    double layer = 12 * h * h + 13 * h;
    double P = L * layer + (Vp * h + s * h) + (Vp * h + 2 * h);
    struct ts_job job;
    job_from_json(&job,
                  "{\"model\": " TINY_GPT ", \"system\": " HAND_SYSTEM ", \"gpus\": 8, "
                  "\"global_batch\": 8, \"parallel\": {\"dp\": 4, \"cp\": 2, \"zero\": 3, "
                  "\"zero_group\": 2, \"fsdp_prefetch\": 2}}");
    struct ts_compute c;
    ts_compute_build(&job, &c);
    struct ts_memory mem;
    ts_memory_stage(&job, &c, 0, &mem);
    assert_close(mem.weights_bytes, 2 * P / 2, 1e-15, 0);
    assert_close(mem.grads_bytes, 4 * P / 2, 1e-15, 0);
    assert_close(mem.optimizer_bytes, 12 * P / 2, 1e-15, 0);
    assert_close(mem.buffer_bytes, 3 * 2 * layer + 2 * 2 * layer, 1e-15, 0);
}

static void float8_tp_gathers_gemm_inputs_at_one_byte_when_the_profile_says_so(void **state)
{
    (void)state;
    /* TP 2 with sequence parallelism, microbatch 2 x seq 16 = 32 tokens, h 64: every TP
     * tensor is T h e = 32 x 64 x 2 bytes. Under fp8 with tp_fp8_allgather (torchtitan's
     * float8 TP) the forward all-gathers and the backward's re-gathered inputs move 1 byte
     * per element (32 x 64); reduce-scatters and the backward's gradient all-gathers stay
     * 2. Without the profile field, or in bf16, nothing changes. */
#define FP8_TP_JOB "{\"model\": " TINY_GPT ", \"system\": {\"name\": \"hs\", \"accelerator\": "  \
                      "{\"name\": \"g8\", \"peak_flops\": {\"bf16\": 1e14, \"fp8\": 2e14}, "  \
                      "\"memory\": \"80 GiB\", \"memory_bandwidth\": 1e12, \"gemm_efficiency\": "  \
                      "[[1000, 0.5]]}, \"gpus_per_node\": 8, \"scale_up\": {\"bandwidth\": "  \
                      "\"300 GB/s\", \"latency\": \"5 us\", \"domain_size\": 8}, \"scale_out\": "  \
                      "{\"bandwidth\": \"200 Gb/s\", \"latency\": \"10 us\"}}, \"gpus\": 2, "  \
                      "\"global_batch\": 2, \"precision\": \"%s\", \"software\": {\"name\": \"t\", "  \
                      "\"description\": \"d\", \"source\": \"s\", \"tp_fp8_allgather\": %s}, "  \
                      "\"parallel\": {\"tp\": 2, \"sequence_parallel\": true, \"microbatch\": 2}}"
    const double T = 2 * 16, h = 64;
    struct {
        const char *prec, *flag;
        double ag;
    } cases[] = {{"fp8", "true", 1.0}, {"fp8", "false", 2.0}, {"bf16", "true", 2.0}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct ts_job job;
        job_from_json(&job, FP8_TP_JOB, cases[i].prec, cases[i].flag);
        struct ts_compute c;
        ts_compute_build(&job, &c);
        const struct ts_tp_comm *f = &c.layer.tp_fwd, *b = &c.layer.tp_bwd;
        assert_int_equal(f->allgather, 2);
        assert_int_equal(f->reducescatter, 2);
        assert_int_equal(b->hidden_allgather, 2);
        assert_close(f->bytes, T * h * 2, 1e-15, 0);
        assert_close(f->ag_bytes > 0 ? f->ag_bytes : f->bytes, T * h * cases[i].ag, 1e-15, 0);
        assert_close(b->ag_bytes > 0 ? b->ag_bytes : b->bytes, T * h * 2, 1e-15, 0);
        assert_close(b->hidden_ag_bytes > 0 ? b->hidden_ag_bytes : b->bytes, T * h * cases[i].ag,
                     1e-15, 0);
    }
#undef FP8_TP_JOB
}

static void gemm_times_follow_the_roofline_when_compute_bound(void **state)
{
    (void)state;
    /* 4096 tokens, h 1024, f 4096, tp 2: every GEMM is compute-bound. */
    struct ts_job job;
    job_from_json(&job,
                  "{\"model\": {\"name\": \"g\", \"layers\": 2, \"hidden\": 1024, \"heads\": 8, "
                  "\"vocab\": 1024, \"seq_len\": 4096}, \"system\": " HAND_SYSTEM ", \"gpus\": 2, "
                  "\"global_batch\": 2, \"parallel\": {\"tp\": 2}}");
    struct ts_compute c;
    ts_compute_build(&job, &c);
    int cb;
    double expected = hand_layer_fwd_gemm(4096, 1024, 4096, 2, &cb);
    assert_int_equal(cb, 4);
    assert_close(c.layer.fwd.gemm_s, expected, 1e-12, 0);
    /* and the forward matmul FLOPs: 2 T (3h^2 + h^2 + 2 h f) / t + flash 4 T s h / t */
    double T = 4096, h = 1024, f = 4096, t = 2;
    assert_close(c.layer.fwd.flops, 2 * T * (4 * h * h + 2 * h * f) / t + 4 * T * 4096 * h / t,
                 1e-12, 0);
}

static void gemm_times_follow_the_roofline_when_memory_bound(void **state)
{
    (void)state;
    /* 8 tokens through h 1024: reading the weights dominates. */
    struct ts_job job;
    job_from_json(&job,
                  "{\"model\": {\"name\": \"g\", \"layers\": 2, \"hidden\": 1024, \"heads\": 8, "
                  "\"vocab\": 1024, \"seq_len\": 8}, \"system\": " HAND_SYSTEM ", \"gpus\": 1, "
                  "\"global_batch\": 1}");
    struct ts_compute c;
    ts_compute_build(&job, &c);
    int cb;
    double expected = hand_layer_fwd_gemm(8, 1024, 4096, 1, &cb);
    assert_int_equal(cb, 0);
    assert_close(c.layer.fwd.gemm_s, expected, 1e-12, 0);
    /* weights dominate: about 2 bytes x 12 h^2 / 1 TB/s */
    assert_close(c.layer.fwd.gemm_s, 2.0 * 12 * 1024 * 1024 / 1e12, 0.02, 0);
}

/* ---------------------------------------------------------------- recomputation policies */

/* A job of `model` (text) on `system` with parallel {LAYOUT, "recompute": REC}. */
static void rc_job(struct ts_job *job, const char *model, const char *system, int gpus, int batch,
                   const char *precision, const char *layout, const char *rec)
{
    job_from_json(job,
                  "{\"model\": %s, \"system\": %s, \"gpus\": %d, \"global_batch\": %d, "
                  "\"precision\": \"%s\", \"parallel\": {%s%s\"recompute\": %s}}",
                  model, system, gpus, batch, precision, layout, layout[0] ? ", " : "", rec);
}

/* ---------------------------------------------------------------- ring attention (CP) */

/* What the kernels of a bf16 job run at on its device: the sustained bf16 peak times the
 * profile's fitted constant for the device, the achievable HBM bandwidth, and the kernel
 * latency (the profile's, else the device's). */
static void bf16_rates(const struct ts_job *job, double *peak, double *bw, double *lat)
{
    const struct ts_accel *a = &job->system.accel;
    const struct ts_sw_mech *sw = &job->parallel.sw;
    double scale = 1.0;
    for (int i = 0; i < sw->n_cal; i++)
        if (strcmp(sw->cal_device[i], a->name) == 0)
            scale = sw->cal_scale[i];
    *peak = a->peak_flops[TS_PREC_BF16] * a->sustained_compute * scale;
    *bw = a->memory_bandwidth * a->memory_efficiency;
    *lat = sw->kernel_latency_s >= 0 ? sw->kernel_latency_s : a->kernel_latency;
}

/* Llama 3 8B (32 query heads, 8 K/V heads, head dim 128) at 16384 tokens on 8 H100, bf16,
 * FlashAttention-2, cp 4: the attention core of one layer is 4 ring steps of equal work, one
 * causal 4096 x 4096 call and three 2048 x 4096 rectangles, each at the causal curve's
 * efficiency at its own length, plus 3 merges into fp32 accumulators ((2 + 8) bytes per
 * element of the output forward; of dQ, dK and dV backward). Recomputed by hand from the
 * accelerator's constants and the kernel table. */
static void ring_attention_is_cp_chunk_calls_plus_fp32_merges(void **state)
{
    (void)state;
    struct ts_job job;
    rc_job(&job, "\"llama3-8b\"", "\"dgx-h100\"", 8, 2, "bf16",
           "\"cp\": 4, \"attention\": \"fa2\", \"attention_unpad\": false", "\"none\"");
    job.model.seq_len = 16384;
    struct ts_err err;
    ts_err_clear(&err);
    assert_int_equal(ts_job_validate(&job, "ring.json", &err), TS_OK);
    struct ts_compute c;
    ts_compute_build(&job, &c);

    const struct ts_accel *a = &job.system.accel;
    double peak, bw, lat;
    bf16_rates(&job, &peak, &bw, &lat);
    const double S = 16384, s = 4096, heads = 32, kv = 8, d = 128, e = 2, n = 4;
    double T = s;
    for (int bwd = 0; bwd < 2; bwd++) {
        double flops = (bwd ? 8.0 : 4.0) * heads * s * S * d / n;     /* per step */
        double bytes = e * T * (bwd ? 4.0 : 2.0) * (heads + kv) * d / n;
        double eff_diag = ts_attn_efficiency(a, TS_ATTN_FA2, s, 128, true, bwd);
        double eff_off = ts_attn_efficiency(a, TS_ATTN_FA2, s / 2, 128, true, bwd);
        assert_true(eff_off < eff_diag);    /* shorter calls run slower on this curve */
        double diag = fmax(0.5 * flops / (peak * eff_diag), bytes / bw) + lat;
        double off = fmax(0.5 * flops / (peak * eff_off), bytes / bw) + lat;
        double elems = T * heads * d + (bwd ? 2.0 * T * kv * d : 0.0);
        double merge = (e + 8.0) * elems / bw + lat;
        double want = diag + (n - 1) * (off + merge);
        assert_close(bwd ? c.layer.attn_bwd_s : c.layer.attn_fwd_s, want, 1e-9, 0);
    }
    /* K/V of 8 heads, 4096 tokens, bf16 per hop: 3 hops forward, 3 of K/V + dK/dV backward
     * and the dK/dV hop home. */
    double hop = 2.0 * e * T * kv * d;
    assert_int_equal(c.layer.cp_steps, 3);
    assert_close(c.layer.cp_fwd_bytes, 3 * hop, 1e-12, 0);
    assert_close(c.layer.cp_bwd_bytes, 6 * hop, 1e-12, 0);
    assert_close(c.layer.cp_bwd_tail_bytes, hop, 1e-12, 0);
}

/* Head-tail load balancing, brute-forced: the sequence in 2 cp chunks, rank r holding chunks
 * r and 2 cp - 1 - r; at ring step i it holds the K/V of rank (r - i) mod cp. The causal pairs
 * it needs are the (query chunk, key chunk) pairs with query >= key, a diagonal pair counting
 * half. For cp = 1..16, every rank and step: ts_compute_cp_step_blocks equals that count, its
 * call shape (query x key chunks) is the rectangle those pairs fill, every rank and step does
 * the same 2 units (no rank waits for another), and over all ranks and steps every causal
 * pair of the sequence is computed exactly once. */
static void cp_step_blocks_match_a_brute_force_count_of_causal_chunk_pairs(void **state)
{
    (void)state;
    enum { CP_MAX = 16 };
    static int seen[2 * CP_MAX][2 * CP_MAX];
    for (int cp = 1; cp <= CP_MAX; cp++) {
        int n = 2 * cp;
        memset(seen, 0, sizeof seen);
        for (int r = 0; r < cp; r++) {
            int qc[2] = {r, n - 1 - r};
            for (int i = 0; i < cp; i++) {
                int src = ((r - i) % cp + cp) % cp;
                int kc[2] = {src, n - 1 - src};
                double units = 0.0;
                bool qneed[2] = {false, false}, kneed[2] = {false, false};
                for (int a = 0; a < 2; a++)
                    for (int b = 0; b < 2; b++)
                        if (qc[a] >= kc[b]) {
                            units += qc[a] == kc[b] ? 0.5 : 1.0;
                            qneed[a] = kneed[b] = true;
                            seen[qc[a]][kc[b]]++;
                        }
                int q = -1, k = -1;
                double got = ts_compute_cp_step_blocks(cp, r, i, &q, &k);
                assert_close(got, units, 0, 0);
                assert_close(got, 2.0, 0, 0);
                if (i > 0) {    /* unmasked rectangle of exactly the needed chunks */
                    assert_int_equal(q, (int)qneed[0] + (int)qneed[1]);
                    assert_int_equal(k, (int)kneed[0] + (int)kneed[1]);
                } else {        /* the causal square of the local pair */
                    assert_int_equal(q, 2);
                    assert_int_equal(k, 2);
                }
            }
        }
        for (int a = 0; a < n; a++)
            for (int b = 0; b < n; b++)
                assert_int_equal(seen[a][b], a >= b ? 1 : 0);
    }
}

/* PyTorch context_parallel as torchtitan runs it (profile context_parallel: rotate
 * "allgather", repeat_kv, grad_dtype fp32) on the job of the test above (Llama 3 8B, cp 4,
 * 16384 tokens, bf16): the forward gathers all 4 ranks' K/V at the 32 query heads
 * (4 x 2 x 2 bytes x 4096 x 32 x 128) instead of hopping K/V of 8 heads, the backward hops
 * the dK/dV accumulators in fp32 (2 x 4 bytes x 4096 x 32 x 128, 3 behind steps 1..3 and the
 * last after the loop), and its 3 merges add dK and dV of 32 heads instead of 8:
 * 3 x (2 + 8) x 2 x 4096 x (32 - 8) x 128 more bytes at the HBM rate. The ring calls, the
 * forward and every other layer cost are unchanged. */
#define PT_CP_JOB                                                                            \
    "{\"model\": \"llama3-8b\", \"system\": \"dgx-h100\", \"gpus\": 8, \"global_batch\": 8, " \
    "\"precision\": \"bf16\", \"software\": {\"name\": \"pt\", \"description\": \"d\", "      \
    "\"source\": \"s\"%s}, \"parallel\": {\"cp\": %d, \"attention\": \"fa2\", "                \
    "\"attention_unpad\": false, \"recompute\": \"none\"}}"
#define PT_CP_KEYS                                                                           \
    ", \"context_parallel\": {\"rotate\": \"allgather\", \"repeat_kv\": true, "              \
    "\"grad_dtype\": \"fp32\"}"
static void pt_cp_build(struct ts_compute *c, const char *keys, int cp, int seq)
{
    struct ts_job job;
    job_from_json(&job, PT_CP_JOB, keys, cp);
    job.model.seq_len = seq;
    struct ts_err err;
    ts_err_clear(&err);
    assert_int_equal(ts_job_validate(&job, "pt.json", &err), TS_OK);
    ts_compute_build(&job, c);
}

static void pytorch_context_parallel_gathers_query_head_kv_and_hops_fp32_gradients(void **state)
{
    (void)state;
    struct ts_compute pt, te;
    pt_cp_build(&pt, PT_CP_KEYS, 4, 16384);
    pt_cp_build(&te, "", 4, 16384);
    const double T = 4096, heads = 32, kv_heads = 8, d = 128, e = 2;
    assert_int_equal(pt.layer.cp_steps, 3);
    assert_close(pt.layer.cp_gather_bytes, 4 * 2 * e * T * heads * d, 1e-12, 0);
    assert_close(pt.layer.cp_fwd_bytes, 0, 0, 0);
    assert_close(pt.layer.cp_bwd_bytes, 3 * 2 * 4.0 * T * heads * d, 1e-12, 0);
    assert_close(pt.layer.cp_bwd_tail_bytes, 2 * 4.0 * T * heads * d, 1e-12, 0);
    /* the default (P2P ring) moves K/V of the 8 K/V heads, one hop per step */
    assert_close(te.layer.cp_gather_bytes, 0, 0, 0);
    assert_close(te.layer.cp_fwd_bytes, 3 * 2 * e * T * kv_heads * d, 1e-12, 0);

    struct ts_job job;
    job_from_json(&job, PT_CP_JOB, "", 4);
    double bw = job.system.accel.memory_bandwidth * job.system.accel.memory_efficiency;
    assert_close(pt.layer.attn_fwd_s, te.layer.attn_fwd_s, 1e-15, 0);
    assert_close(pt.layer.attn_bwd_s - te.layer.attn_bwd_s,
                 3 * (e + 8) * 2 * T * (heads - kv_heads) * d / bw, 1e-9, 0);
    assert_close(pt.layer.fwd.gemm_s, te.layer.fwd.gemm_s, 1e-15, 0);
    /* memory: the layer being computed holds the gathered K/V, fp32 dQ, dK, dV of 32 heads
     * and the fp32 dK/dV send and receive buffers; the P2P ring counts none */
    double ring = 4 * 2 * e * T * heads * d + 4.0 * T * 3 * heads * d + 2 * 2 * 4.0 * T * heads * d;
    assert_close(pt.layer.cp_buffer_bytes, ring, 1e-12, 0);
    assert_close(te.layer.cp_buffer_bytes, 0, 0, 0);
    struct ts_job pj;
    job_from_json(&pj, PT_CP_JOB, PT_CP_KEYS, 4);
    pj.model.seq_len = 16384;
    struct ts_memory mp, mt;
    ts_memory_stage(&pj, &pt, 0, &mp);
    job.model.seq_len = 16384;
    ts_memory_stage(&job, &te, 0, &mt);
    assert_close(mp.buffer_bytes - mt.buffer_bytes, ring, 1e-12, 0);
    assert_close(mp.total_bytes - mt.total_bytes, ring, 1e-12, 0);
}

/* Without context parallelism the profile's context_parallel keys change nothing: the same
 * layer, bit for bit, as the default profile's. */
static void context_parallel_keys_leave_cp_1_unchanged(void **state)
{
    (void)state;
    struct ts_compute pt, te;
    pt_cp_build(&pt, PT_CP_KEYS, 1, 4096);
    pt_cp_build(&te, "", 1, 4096);
    assert_int_equal(pt.layer.cp_steps, 0);
    assert_close(pt.layer.cp_gather_bytes, 0, 0, 0);
    assert_close(pt.layer.cp_bwd_tail_bytes, 0, 0, 0);
    assert_true(memcmp(&pt.layer.fwd, &te.layer.fwd, sizeof pt.layer.fwd) == 0);
    assert_true(memcmp(&pt.layer.bwd, &te.layer.bwd, sizeof pt.layer.bwd) == 0);
    assert_true(pt.layer.attn_fwd_s == te.layer.attn_fwd_s);
    assert_true(pt.layer.attn_bwd_s == te.layer.attn_bwd_s);
    assert_true(pt.layer.activation_bytes == te.layer.activation_bytes);
}

/* Without context parallelism the core is one causal call over the whole sequence: no
 * merges, no ring bytes. */
static void without_context_parallelism_attention_is_one_call(void **state)
{
    (void)state;
    struct ts_job job;
    rc_job(&job, "\"llama3-8b\"", "\"dgx-h100\"", 8, 8, "bf16",
           "\"attention\": \"fa2\", \"attention_unpad\": false", "\"none\"");
    job.model.seq_len = 4096;
    struct ts_err err;
    ts_err_clear(&err);
    assert_int_equal(ts_job_validate(&job, "one.json", &err), TS_OK);
    struct ts_compute c;
    ts_compute_build(&job, &c);
    const struct ts_accel *a = &job.system.accel;
    double peak, bw, lat;
    bf16_rates(&job, &peak, &bw, &lat);
    double flops = 4.0 * 32 * 4096 * 4096 * 128.0, bytes = 2.0 * 4096 * 2 * (32 + 8) * 128;
    double eff = ts_attn_efficiency(a, TS_ATTN_FA2, 4096, 128, true, false);
    assert_close(c.layer.attn_fwd_s, fmax(0.5 * flops / (peak * eff), bytes / bw) + lat, 1e-9, 0);
    assert_int_equal(c.layer.cp_steps, 0);
    assert_close(c.layer.cp_bwd_tail_bytes, 0, 0, 0);
}

/* Everything the rest of trainsim reads of a job's compute: equal bit for bit. */
static void assert_same_pass(const struct ts_pass *a, const struct ts_pass *b)
{
    assert_true(a->flops == b->flops && a->gemm_s == b->gemm_s && a->attn_s == b->attn_s &&
                a->mem_s == b->mem_s && a->time_s == b->time_s && a->kernels == b->kernels);
}

static void assert_same_tp(const struct ts_tp_comm *a, const struct ts_tp_comm *b)
{
    assert_int_equal(a->allreduce, b->allreduce);
    assert_int_equal(a->allgather, b->allgather);
    assert_int_equal(a->reducescatter, b->reducescatter);
    assert_int_equal(a->hidden_allgather, b->hidden_allgather);
    assert_true(a->allreduce + a->allgather + a->reducescatter + a->hidden_allgather == 0 ||
                a->bytes == b->bytes);
}

static double plan_closed_form(const struct ts_job *job, const struct ts_compute *c,
                               struct ts_step_plan *plan)
{
    ts_step_plan_build(job, c, plan);
    return ts_step_closed_form(plan);
}

static void assert_same_job_numbers(const struct ts_job *a, const struct ts_job *b)
{
    struct ts_compute ca, cb;
    ts_compute_build(a, &ca);
    ts_compute_build(b, &cb);
    assert_same_pass(&ca.layer.fwd, &cb.layer.fwd);
    assert_same_pass(&ca.layer.bwd, &cb.layer.bwd);
    assert_same_pass(&ca.layer.recompute, &cb.layer.recompute);
    assert_same_tp(&ca.layer.tp_recompute, &cb.layer.tp_recompute);
    assert_true(ca.layer.activation_bytes == cb.layer.activation_bytes);
    assert_true(ts_compute_hardware_flops(a, &ca) == ts_compute_hardware_flops(b, &cb));
    assert_true(ts_compute_model_flops(a, &ca) == ts_compute_model_flops(b, &cb));
    for (int st = 0; st < a->parallel.pp; st++) {
        struct ts_memory ma, mb;
        ts_memory_stage(a, &ca, st, &ma);
        ts_memory_stage(b, &cb, st, &mb);
        assert_true(ma.activation_bytes == mb.activation_bytes);
        assert_true(ma.total_bytes == mb.total_bytes);
    }
    struct ts_step_plan pa, pb;
    assert_int_equal(ts_step_plan_init(&pa, a->parallel.pp, a->parallel.virtual_stages), 0);
    assert_int_equal(ts_step_plan_init(&pb, b->parallel.pp, b->parallel.virtual_stages), 0);
    assert_true(plan_closed_form(a, &ca, &pa) == plan_closed_form(b, &cb, &pb));
    for (int i = 0; i < a->parallel.pp * a->parallel.virtual_stages; i++)
        assert_true(pa.chunk[i].bwd_s == pb.chunk[i].bwd_s &&
                    pa.chunk[i].bwd_comm_s == pb.chunk[i].bwd_comm_s);
    assert_true(pa.layer_recompute_s == pb.layer_recompute_s);
    ts_step_plan_free(&pa);
    ts_step_plan_free(&pb);
}

/* Layouts that exercise every term: unfused attention with dropout (a GPT), GQA SwiGLU with
 * rotary and flash (Llama), tensor and sequence parallelism, context parallelism, fp8,
 * interleaved pipelines. */
static const struct {
    const char *model, *precision, *layout;
    int gpus, batch;
} rc_cases[] = {
    {"\"megatron-1.7b\"", "fp16", "\"tp\": 2, \"attention\": \"standard\"", 2, 4},
    {"\"megatron-1.7b\"", "fp16", "\"tp\": 2, \"sequence_parallel\": true, \"attention\": \"standard\"", 2, 4},
    {"\"megatron-1.7b\"", "bf16", "\"tp\": 2, \"pp\": 2", 8, 8},
    {"\"llama3-8b\"", "bf16", "\"tp\": 4, \"sequence_parallel\": true", 8, 8},
    {"\"llama3-8b\"", "bf16", "\"tp\": 2, \"cp\": 2, \"pp\": 2, \"schedule\": \"interleaved\", "
                      "\"virtual_stages\": 2", 16, 16},
    {"\"llama3-8b\"", "fp8", "\"tp\": 8, \"sequence_parallel\": true", 8, 8},
    {"\"llama3-8b\"", "bf16", "\"attention\": \"standard\"", 8, 8},
};

static void saving_all_tensors_equals_no_recomputation_exactly(void **state)
{
    (void)state;
    for (size_t i = 0; i < TS_ARRAY_LEN(rc_cases); i++) {
        struct ts_job none, all;
        rc_job(&none, rc_cases[i].model, "\"dgx-h100\"", rc_cases[i].gpus, rc_cases[i].batch,
               rc_cases[i].precision, rc_cases[i].layout, "\"none\"");
        rc_job(&all, rc_cases[i].model, "\"dgx-h100\"", rc_cases[i].gpus, rc_cases[i].batch,
               rc_cases[i].precision, rc_cases[i].layout, "{\"save\": \"all\"}");
        assert_same_job_numbers(&none, &all);
        /* and the list of every tensor backward reads, spelled out */
        rc_job(&all, rc_cases[i].model, "\"dgx-h100\"", rc_cases[i].gpus, rc_cases[i].batch,
               rc_cases[i].precision, rc_cases[i].layout,
               "{\"save\": [\"input\", \"norm1_out\", \"qkv\", \"softmax\", \"attn_dropout_mask\", "
               "\"attn_probs\", \"core_attn_out\", \"proj_dropout_mask\", \"residual1\", "
               "\"norm2_out\", \"mlp_gate\", \"mlp_up\", \"mlp_act\", \"mlp_dropout_mask\"]}");
        assert_same_job_numbers(&none, &all);
        struct ts_compute c;
        ts_compute_build(&all, &c);
        assert_true(c.layer.recompute.flops == 0 && c.layer.recompute.time_s == 0);
    }
}

static void selective_and_full_named_sets_and_full_every_one_reproduce_the_presets(void **state)
{
    (void)state;
    static const char *const pairs[][2] = {
        {"\"selective\"", "{\"save\": \"selective\"}"},
        {"\"full\"", "{\"save\": \"full\"}"},
        {"\"full\"", "{\"full_every\": 1}"},
        {"\"full\"", "{\"full_every\": 1, \"save\": \"minimal\"}"},
    };
    for (size_t i = 0; i < TS_ARRAY_LEN(rc_cases); i++)
        for (size_t j = 0; j < TS_ARRAY_LEN(pairs); j++) {
            struct ts_job a, b;
            rc_job(&a, rc_cases[i].model, "\"dgx-h100\"", rc_cases[i].gpus, rc_cases[i].batch,
                   rc_cases[i].precision, rc_cases[i].layout, pairs[j][0]);
            rc_job(&b, rc_cases[i].model, "\"dgx-h100\"", rc_cases[i].gpus, rc_cases[i].batch,
                   rc_cases[i].precision, rc_cases[i].layout, pairs[j][1]);
            struct ts_compute ca, cb;
            ts_compute_build(&a, &ca);
            ts_compute_build(&b, &cb);
            if (j < 2) {
                assert_same_job_numbers(&a, &b);
            } else {
                /* every layer is a full_every layer: its numbers sit in layer.full */
                assert_same_pass(&ca.layer.recompute, &cb.layer.full.pass);
                assert_true(ca.layer.activation_bytes == cb.layer.full.activation_bytes);
                assert_true(ts_compute_hardware_flops(&a, &ca) == ts_compute_hardware_flops(&b, &cb));
                struct ts_memory ma, mb;
                ts_memory_worst(&a, &ca, &ma);
                ts_memory_worst(&b, &cb, &mb);
                assert_true(ma.activation_bytes == mb.activation_bytes);
                struct ts_step_plan pa, pb;
                ts_step_plan_init(&pa, a.parallel.pp, a.parallel.virtual_stages);
                ts_step_plan_init(&pb, b.parallel.pp, b.parallel.virtual_stages);
                assert_true(plan_closed_form(&a, &ca, &pa) == plan_closed_form(&b, &cb, &pb));
                ts_step_plan_free(&pa);
                ts_step_plan_free(&pb);
            }
        }
}

/* One GeLU layer (learned positions: no rotary; no dropout; flash) on HAND_SYSTEM: T = 4096
 * tokens, h = 1024, 8 heads of 128, f = 4096, 16-bit (e = 2). Keeping q, k, v and the
 * attention output leaves norm1_out, residual1, norm2_out, mlp_up and mlp_act to recompute:
 * norm1 from the input; the projection from core_attn_out, then the residual add, norm2, fc1
 * and GeLU. fc2, the attention core and the QKV GEMM do not run again. */
#define HAND_GELU                                                                          \
    "{\"name\": \"g\", \"layers\": 2, \"hidden\": 1024, \"heads\": 8, \"vocab\": 1024, "  \
    "\"seq_len\": 4096}"

static void a_custom_save_set_recomputes_the_ops_between_saved_tensors_by_hand(void **state)
{
    (void)state;
    const char *save = "{\"save\": [\"q\", \"k\", \"v\", \"core_attn_out\"]}";
    struct ts_job job, none;
    rc_job(&job, HAND_GELU, HAND_SYSTEM, 1, 1, "bf16", "", save);
    rc_job(&none, HAND_GELU, HAND_SYSTEM, 1, 1, "bf16", "", "\"none\"");
    struct ts_compute c, cn;
    ts_compute_build(&job, &c);
    ts_compute_build(&none, &cn);
    double T = 4096, h = 1024, f = 4096, e = 2, a = 8, s = 4096;
    /* recompute FLOPs: projection 2 T h h + fc1 2 T h f */
    assert_close(c.layer.recompute.flops, 2 * T * h * h + 2 * T * h * f, 1e-15, 0);
    /* time: the two GEMMs by the roofline, and four streaming kernels at 1 TB/s: norm1 and
     * norm2 (read + write, 2 e T h each), residual add (3 e T h), GeLU (2 e T f) */
    double gemms = hand_gemm(T, h, h, NULL) + hand_gemm(T, f, h, NULL);
    double streams = (2 * e * T * h + 3 * e * T * h + 2 * e * T * h + 2 * e * T * f) / 1e12;
    assert_close(c.layer.recompute.gemm_s, gemms, 1e-12, 0);
    assert_close(c.layer.recompute.mem_s, streams, 1e-12, 0);
    assert_close(c.layer.recompute.attn_s, 0, 0, 0);
    assert_true(c.layer.recompute.kernels == 6);
    assert_false(c.layer.recompute_attention);
    /* memory: input, q, k, v, attention output (e T h each) and the fp32 logsumexp 4 a s */
    double act = 5 * e * T * h + 4 * a * s;
    assert_close(c.layer.activation_bytes, act, 1e-15, 0);
    /* none keeps, besides, norm1_out, residual1, norm2_out (e T h) and mlp_up, mlp_act (e T f) */
    assert_close(cn.layer.activation_bytes, act + 3 * e * T * h + 2 * e * T * f, 1e-15, 0);
    /* hardware FLOPs count the recomputation of both layers, model FLOPs do not */
    assert_close(ts_compute_hardware_flops(&job, &c) - ts_compute_hardware_flops(&none, &cn),
                 2 * (2 * T * h * h + 2 * T * h * f), 1e-12, 0);
    assert_true(ts_compute_model_flops(&job, &c) == ts_compute_model_flops(&none, &cn));
    struct ts_memory m, mn;
    ts_memory_stage(&job, &c, 0, &m);
    ts_memory_stage(&none, &cn, 0, &mn);
    assert_close(mn.activation_bytes - m.activation_bytes, 2 * (3 * e * T * h + 2 * e * T * f),
                 1e-12, 0);
    /* while a layer's backward runs, its regenerated tensors live too */
    assert_close(m.recompute_bytes, 3 * e * T * h + 2 * e * T * f, 1e-15, 0);
    assert_close(mn.recompute_bytes, 0, 0, 0);
    assert_close(m.total_bytes, m.weights_bytes + m.grads_bytes + m.optimizer_bytes +
                                    m.activation_bytes + m.recompute_bytes + m.output_bytes +
                                    m.buffer_bytes + m.reserved_bytes, 1e-15, 0);
}

/* The same set under tensor parallelism re-runs the collectives next to the re-run GEMMs: the
 * projection's all-reduce (reduce-scatter under sequence parallelism) and, with sequence
 * parallelism, the all-gather before fc1; the QKV all-gather and fc2 reduction do not. */
static void a_custom_save_set_repeats_only_the_collectives_of_its_ops(void **state)
{
    (void)state;
    const char *save = "{\"save\": [\"q\", \"k\", \"v\", \"core_attn_out\"]}";
    struct ts_job job;
    rc_job(&job, HAND_GELU, HAND_SYSTEM, 2, 1, "bf16", "\"tp\": 2", save);
    struct ts_compute c;
    ts_compute_build(&job, &c);
    assert_int_equal(c.layer.tp_recompute.allreduce, 1);
    assert_int_equal(c.layer.tp_recompute.allgather + c.layer.tp_recompute.reducescatter, 0);
    rc_job(&job, HAND_GELU, HAND_SYSTEM, 2, 1, "bf16", "\"tp\": 2, \"sequence_parallel\": true", save);
    ts_compute_build(&job, &c);
    assert_int_equal(c.layer.tp_recompute.allreduce, 0);
    assert_int_equal(c.layer.tp_recompute.allgather, 1);
    assert_int_equal(c.layer.tp_recompute.reducescatter, 1);
    assert_close(c.layer.tp_recompute.bytes, 4096.0 * 1024 * 2, 0, 0);
    /* per GPU: the layer input sharded by sequence parallelism (e T h / 2), q, k, v and the
     * attention output of 4 of the 8 heads (e T h / 2 each), logsumexp of 4 heads (4 x 4 s) */
    double T = 4096, h = 1024, e = 2;
    assert_close(c.layer.activation_bytes,
                 e * T * h / 2 + 3 * e * T * h / 2 + e * T * h / 2 + 4 * 4.0 * 4096, 1e-15, 0);
}

/* Keeping only K of the QKV output makes the recomputation run the q and v columns of the
 * projection alone (h x (a + g) d) and their rotary embedding on q only. */
static void a_partly_saved_fused_projection_recomputes_only_its_unsaved_columns(void **state)
{
    (void)state;
    /* Llama-like: 8 query heads, 2 KV heads of 128, rotary, SwiGLU f 2048 */
    const char *model = "{\"name\": \"q\", \"layers\": 2, \"hidden\": 1024, \"heads\": 8, "
                        "\"kv_heads\": 2, \"ffn\": \"swiglu\", \"ffn_hidden\": 2048, "
                        "\"vocab\": 1024, \"seq_len\": 4096}";
    struct ts_job job;
    rc_job(&job, model, HAND_SYSTEM, 1, 1, "bf16", "",
           "{\"save\": [\"norm1_out\", \"k\", \"core_attn_out\", \"residual1\", \"norm2_out\", "
           "\"mlp_gate\", \"mlp_act\"]}");
    struct ts_compute c;
    ts_compute_build(&job, &c);
    double T = 4096, h = 1024, e = 2, d = 128;
    /* q (8 heads) and v (2 heads) columns: N = 10 d; the up half of gate+up: N = f */
    assert_close(c.layer.recompute.flops, 2 * T * (10 * d) * h + 2 * T * 2048 * h, 1e-15, 0);
    double gemms = hand_gemm(T, 10 * d, h, NULL) + hand_gemm(T, 2048, h, NULL);
    assert_close(c.layer.recompute.gemm_s, gemms, 1e-12, 0);
    /* rotary on q only: read + write e T a d */
    assert_close(c.layer.recompute.mem_s, 2 * e * T * 8 * d / 1e12, 1e-12, 0);
}

/* torchtitan's op-level SAC keeps the outputs of the odd-numbered matmuls of a Llama layer
 * (wq, wv, w1, w2 of wq, wk, wv, wo, w1, w3, w2) and of SDPA, so its recomputation runs the
 * even-numbered ones, wk, wo and w3, and the norms, rotary of k, residual add and SiLU-gate. */
static void torchtitan_op_sac_recomputes_the_even_numbered_matmuls(void **state)
{
    (void)state;
    const char *model = "{\"name\": \"q\", \"layers\": 2, \"hidden\": 1024, \"heads\": 8, "
                        "\"kv_heads\": 2, \"ffn\": \"swiglu\", \"ffn_hidden\": 2048, "
                        "\"vocab\": 1024, \"seq_len\": 4096}";
    struct ts_job job;
    rc_job(&job, model, HAND_SYSTEM, 1, 1, "bf16", "", "{\"save\": \"torchtitan_op\"}");
    struct ts_compute c;
    ts_compute_build(&job, &c);
    double T = 4096, h = 1024, e = 2, d = 128, f = 2048;
    double wk = 2 * T * (2 * d) * h, wo = 2 * T * h * h, w3 = 2 * T * f * h;
    assert_close(c.layer.recompute.flops, wk + wo + w3, 1e-15, 0);
    assert_close(c.layer.recompute.gemm_s,
                 hand_gemm(T, 2 * d, h, NULL) + hand_gemm(T, h, h, NULL) + hand_gemm(T, f, h, NULL),
                 1e-12, 0);
    /* norm1, rotary on k (2 heads), residual add, norm2, SiLU(gate) * up */
    double streams = 2 * e * T * h + 2 * e * T * 2 * d + 3 * e * T * h + 2 * e * T * h + 3 * e * T * f;
    assert_close(c.layer.recompute.mem_s, streams / 1e12, 1e-12, 0);
    /* kept: input, q (8 heads), v (2 heads), attention output + logsumexp, gate, w2 output */
    assert_close(c.layer.activation_bytes,
                 e * T * h + e * T * 8 * d + e * T * 2 * d + e * T * 8 * d + 4 * 8 * 4096 +
                     e * T * f + e * T * h,
                 1e-15, 0);
}

/* Megatron's selective recomputation checkpoints the core-attention function, so with flash
 * attention it re-runs the flash forward although the projection keeps its output; a save
 * list of the same tensors re-runs only what backward needs, i.e. nothing. Unfused attention
 * needs its softmax again either way, and the attention core runs whole. */
static void a_save_list_reruns_only_what_backward_needs_unlike_megatron_selective(void **state)
{
    (void)state;
    const char *list = "{\"save\": [\"input\", \"norm1_out\", \"qkv\", \"core_attn_out\", "
                       "\"proj_dropout_mask\", \"residual1\", \"norm2_out\", \"mlp_up\", "
                       "\"mlp_act\", \"mlp_dropout_mask\"]}";
    struct ts_job sel, lst, none;
    rc_job(&sel, "\"megatron-1.7b\"", "\"dgx-h100\"", 2, 4, "bf16", "\"tp\": 2", "\"selective\"");
    rc_job(&lst, "\"megatron-1.7b\"", "\"dgx-h100\"", 2, 4, "bf16", "\"tp\": 2", list);
    rc_job(&none, "\"megatron-1.7b\"", "\"dgx-h100\"", 2, 4, "bf16", "\"tp\": 2", "\"none\"");
    struct ts_compute cs, cl, cn;
    ts_compute_build(&sel, &cs);
    ts_compute_build(&lst, &cl);
    ts_compute_build(&none, &cn);
    assert_true(cs.layer.activation_bytes == cl.layer.activation_bytes);
    assert_true(cl.layer.activation_bytes == cn.layer.activation_bytes);   /* flash: no s x s */
    assert_true(cs.layer.recompute_attention && cs.layer.recompute.attn_s > 0);
    assert_true(cl.layer.recompute.time_s == 0 && !cl.layer.recompute_attention);
    rc_job(&sel, "\"megatron-1.7b\"", "\"dgx-h100\"", 2, 4, "bf16",
           "\"tp\": 2, \"attention\": \"standard\"", "\"selective\"");
    rc_job(&lst, "\"megatron-1.7b\"", "\"dgx-h100\"", 2, 4, "bf16",
           "\"tp\": 2, \"attention\": \"standard\"", list);
    ts_compute_build(&sel, &cs);
    ts_compute_build(&lst, &cl);
    assert_same_pass(&cs.layer.recompute, &cl.layer.recompute);
    assert_true(cs.layer.activation_bytes == cl.layer.activation_bytes);
    /* while the layer's backward runs, Megatron's re-run also holds a second attention output
     * (e T a_l d: 2048 tokens, 12 of 24 heads of 96) besides the s x s tensors */
    assert_close(cs.layer.recompute_regen_bytes - cl.layer.recompute_regen_bytes,
                 2.0 * 2048 * 12 * 96, 0, 0);
    /* softmax (e), dropout mask (1) and output (e) of 12 heads, s x s */
    assert_close(cl.layer.recompute_regen_bytes, 5.0 * 12 * 2048 * 2048, 0, 0);
}

/* {"full_every": k}: of each stage's n layers, floor(n / k) keep only their input and re-run
 * their forward; the rest keep the saved set. Memory, hardware FLOPs and every chunk's
 * backward are that mix of the "none" (or saved-set) and "full" numbers. */
static void full_every_mixes_full_and_saved_layers_as_the_per_layer_count_says(void **state)
{
    (void)state;
    /* megatron-1.7b: 24 layers; pp 2 -> 12 per stage; interleaved v 2 -> chunks of 6 */
    const char *layout = "\"tp\": 2, \"pp\": 2, \"schedule\": \"interleaved\", \"virtual_stages\": 2";
    static const struct {
        int k, full_per_stage;
        int full_per_chunk[2];      /* counter over the stage's layers: k, 2k, ... */
    } cases[] = {{1, 12, {6, 6}}, {2, 6, {3, 3}}, {4, 3, {1, 2}}, {5, 2, {1, 1}}, {12, 1, {0, 1}}};
    struct ts_job none, full;
    rc_job(&none, "\"megatron-1.7b\"", "\"dgx-h100\"", 8, 16, "bf16", layout, "\"none\"");
    rc_job(&full, "\"megatron-1.7b\"", "\"dgx-h100\"", 8, 16, "bf16", layout, "\"full\"");
    struct ts_compute cn, cf;
    ts_compute_build(&none, &cn);
    ts_compute_build(&full, &cf);
    struct ts_step_plan pn, pf, pk;
    ts_step_plan_init(&pn, 2, 2);
    ts_step_plan_init(&pf, 2, 2);
    ts_step_plan_init(&pk, 2, 2);
    ts_step_plan_build(&none, &cn, &pn);
    ts_step_plan_build(&full, &cf, &pf);
    double hw_n = ts_compute_hardware_flops(&none, &cn), hw_f = ts_compute_hardware_flops(&full, &cf);
    for (size_t i = 0; i < TS_ARRAY_LEN(cases); i++) {
        char rec[64];
        snprintf(rec, sizeof rec, "{\"full_every\": %d}", cases[i].k);
        struct ts_job job;
        rc_job(&job, "\"megatron-1.7b\"", "\"dgx-h100\"", 8, 16, "bf16", layout, rec);
        struct ts_compute c;
        ts_compute_build(&job, &c);
        double nf = cases[i].full_per_stage, frac = nf / 12.0;
        for (int st = 0; st < 2; st++) {
            struct ts_memory m, mn, mf;
            ts_memory_stage(&job, &c, st, &m);
            ts_memory_stage(&none, &cn, st, &mn);
            ts_memory_stage(&full, &cf, st, &mf);
            double embed = st == 0 ? mn.inflight * cn.embed.activation_bytes : 0.0;
            assert_close(m.activation_bytes, mn.inflight * ((12 - nf) * cn.layer.activation_bytes +
                                                            nf * cf.layer.activation_bytes) + embed,
                         1e-12, 0);
            assert_close(m.activation_bytes,
                         mn.activation_bytes + frac * (mf.activation_bytes - mn.activation_bytes),
                         1e-12, 0);
            /* the largest regenerated set is a full layer's: all it keeps for backward but
             * its input */
            assert_close(m.recompute_bytes, cn.layer.activation_bytes - cf.layer.activation_bytes,
                         1e-12, 0);
            assert_close(m.recompute_bytes, mf.recompute_bytes, 0, 0);
        }
        assert_close(ts_compute_hardware_flops(&job, &c), hw_n + frac * (hw_f - hw_n), 1e-12, 0);
        ts_step_plan_build(&job, &c, &pk);
        for (int ch = 0; ch < 4; ch++) {
            double f = cases[i].full_per_chunk[ch % 2];
            assert_close(pk.chunk[ch].bwd_s,
                         pn.chunk[ch].bwd_s + f / 6.0 * (pf.chunk[ch].bwd_s - pn.chunk[ch].bwd_s),
                         1e-12, 0);
        }
    }
    ts_step_plan_free(&pn);
    ts_step_plan_free(&pf);
    ts_step_plan_free(&pk);
}

/* Brute force over saved sets: keeping more never holds fewer bytes nor recomputes more
 * FLOPs, keeping every tensor backward reads recomputes nothing, and keeping only the input
 * recomputes at most the full layer's forward. 400 random sets (fixed seed) per layout. */
static void keeping_more_tensors_never_costs_memory_less_or_recompute_more(void **state)
{
    (void)state;
    uint64_t x = 12345;
    for (size_t i = 0; i < TS_ARRAY_LEN(rc_cases); i++) {
        struct ts_job full;
        rc_job(&full, rc_cases[i].model, "\"dgx-h100\"", rc_cases[i].gpus, rc_cases[i].batch,
               rc_cases[i].precision, rc_cases[i].layout, "\"full\"");
        struct ts_compute cf;
        ts_compute_build(&full, &cf);
        for (int trial = 0; trial < 400; trial++) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            uint32_t a = (uint32_t)(x >> 40) & ((1u << TS_T_COUNT) - 1u);
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            uint32_t b = a | ((uint32_t)(x >> 40) & ((1u << TS_T_COUNT) - 1u));   /* b >= a */
            struct ts_job ja = full, jb = full;
            ja.parallel.recompute_policy = (struct ts_recompute_policy){
                .custom = true, .save = a | TS_T_BIT(TS_T_INPUT), .rerun = TS_RERUN_NEEDED};
            jb.parallel.recompute_policy = (struct ts_recompute_policy){
                .custom = true, .save = b | TS_T_BIT(TS_T_INPUT), .rerun = TS_RERUN_NEEDED};
            struct ts_compute ca, cb;
            ts_compute_build(&ja, &ca);
            ts_compute_build(&jb, &cb);
            assert_true(ca.layer.activation_bytes <= cb.layer.activation_bytes);
            assert_true(ca.layer.recompute.flops >= cb.layer.recompute.flops);
            assert_true(ca.layer.recompute.flops <= cf.layer.recompute.flops);
            assert_true(ca.layer.recompute.mem_s <= cf.layer.recompute.mem_s * (1 + 1e-12));
            if ((b & TS_T_ALL) == TS_T_ALL)
                assert_true(cb.layer.recompute.time_s == 0 && cb.layer.recompute_regen_bytes == 0);
        }
    }
}

/* Published peak memory of torchtitan runs on H100 96 GB (pytorch/torchtitan
 * docs/performance.md, Tables 1-4: Llama 3.1 8B and 70B, FSDP2, seq 8192 unless stated,
 * "selective" = its default op-level SAC, "full" = full AC; memory = max reserved GiB). These
 * runs ran, so their policies must fit; and trainsim must not claim more than the measured
 * peak (which also holds allocator slack and loss temporaries trainsim does not count). */
static void torchtitan_runs_fit_with_their_recompute_policies(void **state)
{
    (void)state;
    static const struct {
        const char *model;
        int seq, gpus, batch;
        const char *precision, *layout, *rec;
        double published_gib;
    } rows[] = {
        {"llama3-8b", 8192, 8, 16, "bf16", "\"dp\": 8, \"zero\": 3, \"microbatch\": 2",
         "{\"save\": \"torchtitan_op\"}", 82.4},
        {"llama3-8b", 8192, 128, 256, "bf16", "\"dp\": 128, \"zero\": 3, \"microbatch\": 2",
         "{\"save\": \"torchtitan_op\"}", 67.0},
        {"llama3-8b", 32768, 8, 8, "fp8", "\"dp\": 8, \"zero\": 3", "{\"save\": \"nothing\"}", 83.9},
        {"llama3-8b", 65536, 8, 4, "fp8", "\"dp\": 4, \"cp\": 2, \"zero\": 3",
         "{\"save\": \"nothing\"}", 84.2},
        {"llama3-8b", 262144, 8, 1, "fp8", "\"dp\": 1, \"cp\": 8, \"zero\": 3",
         "{\"save\": \"nothing\"}", 84.5},
        {"llama3-70b", 8192, 256, 512, "fp8",
         "\"dp\": 32, \"tp\": 8, \"sequence_parallel\": true, \"zero\": 3, \"microbatch\": 16",
         "{\"save\": \"nothing\"}", 71.9},
    };
    for (size_t i = 0; i < TS_ARRAY_LEN(rows); i++) {
        char model[32];
        snprintf(model, sizeof model, "\"%s\"", rows[i].model);
        struct ts_job job;
        rc_job(&job, model, "\"dgx-h100\"", rows[i].gpus, rows[i].batch, rows[i].precision,
               rows[i].layout, rows[i].rec);
        job.model.seq_len = rows[i].seq;
        job.system.accel.memory_bytes = 96e9;     /* H100 96 GB HBM2e */
        struct ts_err err;
        ts_err_clear(&err);
        assert_int_equal(ts_job_validate(&job, "torchtitan.json", &err), TS_OK);
        struct ts_compute c;
        ts_compute_build(&job, &c);
        struct ts_memory m;
        ts_memory_worst(&job, &c, &m);
        if (m.total_bytes > job.system.accel.memory_bytes ||
            m.total_bytes > 1.05 * rows[i].published_gib * GIB) {
            print_error("%s seq %d: predicted %.1f GiB, published %.1f GiB, capacity %.1f GiB\n",
                        rows[i].model, rows[i].seq, m.total_bytes / GIB, rows[i].published_gib,
                        job.system.accel.memory_bytes / GIB);
            fail();
        }
    }
}

/* ---------------------------------------------------------------- unpadded flash attention */

/* The hand GPU with a 4 us kernel latency, for the kernels and syncs of attention_unpad. */
#define LAT_SYSTEM                                                                          \
    "{\"name\": \"lat-sys\", \"accelerator\": {\"name\": \"lat-gpu\", \"peak_flops\": "     \
    "{\"bf16\": 1e14}, \"memory\": \"80 GiB\", \"memory_bandwidth\": 1e12, "               \
    "\"memory_efficiency\": 1.0, \"kernel_latency\": \"4 us\", "                            \
    "\"gemm_efficiency\": [[1000, 0.5]]}, \"gpus_per_node\": 8, "                           \
    "\"scale_up\": {\"bandwidth\": \"300 GB/s\", \"latency\": \"5 us\", \"domain_size\": 8}, " \
    "\"scale_out\": {\"bandwidth\": \"200 Gb/s\", \"latency\": \"10 us\"}}"

/* h 1024 in 8 heads of 128 (kv_heads KV), 2048 tokens x microbatch 4, under pytorch-fsdp
 * (host dispatch 10 us), with parallel {EXTRA}. */
/* ---------------------------------------------------------------- eager loss */

static void eager_loss_job(struct ts_job *job, const char *loss)
{
    job_from_json(job,
                  "{\"model\": {\"name\": \"l\", \"layers\": 2, \"hidden\": 1024, \"heads\": 8, "
                  "\"vocab\": 1024, \"seq_len\": 2048}, \"system\": " HAND_SYSTEM
                  ", \"gpus\": 1, \"global_batch\": 4, \"precision\": \"bf16\", \"software\": "
                  "\"pytorch-fsdp-compile\", \"parallel\": {\"microbatch\": 4, \"eager_loss\": "
                  "\"%s\"}}",
                  loss);
}

static void eager_loss_moves_the_bytes_of_atens_kernels_over_fp32_logits(void **state)
{
    (void)state;
    /* 8192 tokens x 1024 logits at 1 TB/s, no latency. The profile's loss (Megatron-style
     * fp32 vocab-parallel, fused): 42 bytes per logit forward, 6 backward. Eager
     * (OLMo-core's cross_entropy_loss): cast 2 + 4, contiguous 8, log_softmax 16 = 30
     * forward; nll backward 4, log_softmax backward 16, slice backward 12, cast back 4 + 2
     * = 38 backward; the z-loss adds logsumexp 24 forward, its backward 24 and the sum of
     * the two gradients 12. Held: fp32 logits, their slice, log_softmax's output, 12 bytes. */
    double TV = 8192.0 * 1024.0;
    struct ts_job off, ce, cez;
    eager_loss_job(&off, "off");
    eager_loss_job(&ce, "cross_entropy");
    eager_loss_job(&cez, "cross_entropy_z_loss");
    struct ts_compute c0, c1, c2;
    ts_compute_build(&off, &c0);
    ts_compute_build(&ce, &c1);
    ts_compute_build(&cez, &c2);
    assert_close(c1.output.fwd.mem_s - c0.output.fwd.mem_s, (30.0 - 42.0) * TV / 1e12, 1e-9, 0);
    assert_close(c1.output.bwd.mem_s - c0.output.bwd.mem_s, (38.0 - 6.0) * TV / 1e12, 1e-9, 0);
    assert_close(c2.output.fwd.mem_s - c0.output.fwd.mem_s, (54.0 - 42.0) * TV / 1e12, 1e-9, 0);
    assert_close(c2.output.bwd.mem_s - c0.output.bwd.mem_s, (74.0 - 6.0) * TV / 1e12, 1e-9, 0);
    assert_close(c0.output.activation_bytes, 6.0 * TV, 1e-12, 0);
    assert_close(c2.output.activation_bytes, 12.0 * TV, 1e-12, 0);
    /* The matmuls and the transformer layers are untouched. */
    assert_true(c2.output.fwd.flops == c0.output.fwd.flops &&
                c2.output.bwd.gemm_s == c0.output.bwd.gemm_s &&
                c2.layer.fwd.time_s == c0.layer.fwd.time_s);
}

static void unpad_job(struct ts_job *job, int kv_heads, const char *extra)
{
    job_from_json(job,
                  "{\"model\": {\"name\": \"u\", \"layers\": 2, \"hidden\": 1024, \"heads\": 8, "
                  "\"kv_heads\": %d, \"vocab\": 1024, \"seq_len\": 2048}, \"system\": " LAT_SYSTEM
                  ", \"gpus\": 1, \"global_batch\": 4, \"precision\": \"bf16\", \"software\": "
                  "\"pytorch-fsdp\", \"parallel\": {\"microbatch\": 4%s%s}}",
                  kv_heads, extra[0] ? ", " : "", extra);
}

static void attention_unpad_adds_the_copies_kernels_and_syncs_of_bert_padding_by_hand(void **state)
{
    (void)state;
    const int kv[2] = {8, 2};
    for (int i = 0; i < 2; i++) {
        struct ts_job plain, unpad;
        unpad_job(&plain, kv[i], "\"attention\": \"fa2\"");
        unpad_job(&unpad, kv[i], "\"attention\": \"fa2\", \"attention_unpad\": true");
        struct ts_compute a, b;
        ts_compute_build(&plain, &a);
        ts_compute_build(&unpad, &b);
        /* Per element 2 bytes; q: 8192 tokens x 8 heads x 128, k and v: x kv heads x 128. */
        double eq = 2.0 * 8192 * 8 * 128, ekv = 2.0 * 8192 * kv[i] * 128, lat = 4e-6;
        /* forward: three gathers (read + write), zeros + index_put (write; read + write);
         * 3 x 6 + 2 kernels; six syncs of one dispatch (10 us) + one latency each */
        assert_close(b.layer.fwd.mem_s - a.layer.fwd.mem_s,
                     (2 * (eq + 2 * ekv) + 3 * eq) / 1e12 + 20 * lat, 1e-9, 0);
        assert_close(b.layer.fwd.kernels - a.layer.fwd.kernels, 20, 0, 0);
        assert_close(a.layer.fwd.sync_s, 0, 0, 0);
        assert_close(b.layer.fwd.sync_s, 6 * (10e-6 + lat), 1e-12, 0);
        /* backward: one gather, three zeros + scatter_; 7 kernels, no sync */
        assert_close(b.layer.bwd.mem_s - a.layer.bwd.mem_s,
                     (2 * eq + 3 * (eq + 2 * ekv)) / 1e12 + 7 * lat, 1e-9, 0);
        assert_close(b.layer.bwd.kernels - a.layer.bwd.kernels, 7, 0, 0);
        assert_close(b.layer.bwd.sync_s, 0, 0, 0);
        /* The GPU outruns the host here, so the pass grows by exactly its extra work. */
        assert_close(a.layer.fwd.launch_s, 0, 0, 0);
        assert_close(b.layer.fwd.time_s - a.layer.fwd.time_s,
                     b.layer.fwd.mem_s - a.layer.fwd.mem_s + b.layer.fwd.sync_s, 1e-9, 0);
        /* The matmuls and the attention kernel itself are those of the padded call. */
        assert_true(a.layer.fwd.flops == b.layer.fwd.flops && a.layer.fwd.gemm_s == b.layer.fwd.gemm_s &&
                    a.layer.fwd.attn_s == b.layer.fwd.attn_s);
    }
}

static void attention_unpad_reruns_with_the_recomputed_forward_and_leaves_unfused_attention_alone(
    void **state)
{
    (void)state;
    struct ts_job job, plain;
    unpad_job(&job, 8, "\"attention\": \"fa2\", \"attention_unpad\": true, \"recompute\": \"full\"");
    struct ts_compute c;
    ts_compute_build(&job, &c);
    assert_close(c.layer.recompute.sync_s, c.layer.fwd.sync_s, 0, 0);
    assert_close(c.layer.recompute.sync_s, 6 * (10e-6 + 4e-6), 1e-12, 0);
    /* The unfused attention core (no FlashAttention call) has nothing to unpad. */
    unpad_job(&job, 8, "\"attention\": \"standard\", \"attention_unpad\": true");
    unpad_job(&plain, 8, "\"attention\": \"standard\"");
    struct ts_compute a, b;
    ts_compute_build(&plain, &a);
    ts_compute_build(&job, &b);
    assert_same_pass(&a.layer.fwd, &b.layer.fwd);
    assert_same_pass(&a.layer.bwd, &b.layer.bwd);
    assert_close(b.layer.fwd.sync_s, 0, 0, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hardware_flops_with_full_recompute_match_narayanan_eq3_for_all_table1_rows),
        cmocka_unit_test(hardware_flops_do_not_depend_on_the_microbatch_size),
        cmocka_unit_test(model_flops_match_korthikanti_eq7_for_the_four_models),
        cmocka_unit_test(hardware_flops_with_selective_recompute_add_one_attention_core_forward),
        cmocka_unit_test(activation_memory_matches_korthikanti_without_recompute_and_with_seq_sel),
        cmocka_unit_test(layer_activations_equal_korthikanti_per_layer_formulas_exactly),
        cmocka_unit_test(param_counts_match_narayanan_eq2),
        cmocka_unit_test(param_counts_match_published_llama_sizes),
        cmocka_unit_test(squared_relu_adds_one_activation_pass_each_way_and_keeps_flops_and_params),
        cmocka_unit_test(inflight_microbatches_equal_a_count_over_the_schedule),
        cmocka_unit_test(zero_stages_shard_weights_grads_and_optimizer_over_dp_times_cp),
        cmocka_unit_test(ring_attention_is_cp_chunk_calls_plus_fp32_merges),
        cmocka_unit_test(without_context_parallelism_attention_is_one_call),
        cmocka_unit_test(cp_step_blocks_match_a_brute_force_count_of_causal_chunk_pairs),
        cmocka_unit_test(pytorch_context_parallel_gathers_query_head_kv_and_hops_fp32_gradients),
        cmocka_unit_test(context_parallel_keys_leave_cp_1_unchanged),
        cmocka_unit_test(hybrid_sharding_shards_over_the_zero_group_only),
        cmocka_unit_test(float8_tp_gathers_gemm_inputs_at_one_byte_when_the_profile_says_so),
        cmocka_unit_test(gemm_times_follow_the_roofline_when_compute_bound),
        cmocka_unit_test(gemm_times_follow_the_roofline_when_memory_bound),
        cmocka_unit_test(saving_all_tensors_equals_no_recomputation_exactly),
        cmocka_unit_test(selective_and_full_named_sets_and_full_every_one_reproduce_the_presets),
        cmocka_unit_test(a_custom_save_set_recomputes_the_ops_between_saved_tensors_by_hand),
        cmocka_unit_test(a_custom_save_set_repeats_only_the_collectives_of_its_ops),
        cmocka_unit_test(a_partly_saved_fused_projection_recomputes_only_its_unsaved_columns),
        cmocka_unit_test(torchtitan_op_sac_recomputes_the_even_numbered_matmuls),
        cmocka_unit_test(a_save_list_reruns_only_what_backward_needs_unlike_megatron_selective),
        cmocka_unit_test(full_every_mixes_full_and_saved_layers_as_the_per_layer_count_says),
        cmocka_unit_test(eager_loss_moves_the_bytes_of_atens_kernels_over_fp32_logits),
        cmocka_unit_test(attention_unpad_adds_the_copies_kernels_and_syncs_of_bert_padding_by_hand),
        cmocka_unit_test(attention_unpad_reruns_with_the_recomputed_forward_and_leaves_unfused_attention_alone),
        cmocka_unit_test(keeping_more_tensors_never_costs_memory_less_or_recompute_more),
        cmocka_unit_test(torchtitan_runs_fit_with_their_recompute_policies),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
