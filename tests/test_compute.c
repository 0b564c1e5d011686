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
    cJSON *doc = ts_test_json(text);
    struct ts_jnode root = ts_jnode_root(doc, "test.json");
    struct ts_err err;
    ts_err_clear(&err);
    int rc = ts_job_parse(&root, NULL, job, &err);
    cJSON_Delete(doc);
    if (rc != TS_OK) {
        print_error("job does not parse: %s\n%s\n", err.msg, text);
        fail();
    }
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
        cmocka_unit_test(inflight_microbatches_equal_a_count_over_the_schedule),
        cmocka_unit_test(zero_stages_shard_weights_grads_and_optimizer_over_dp_times_cp),
        cmocka_unit_test(hybrid_sharding_shards_over_the_zero_group_only),
        cmocka_unit_test(gemm_times_follow_the_roofline_when_compute_bound),
        cmocka_unit_test(gemm_times_follow_the_roofline_when_memory_bound),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
