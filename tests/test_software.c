/*
 * Software profiles: parsing (unknown keys, bad kernel names, FA3 off Hopper), the rule that
 * explicit parallel keys beat the profile, megatron-core reproducing the default job, the
 * attention tables against their published points, unfused element-wise bytes and host
 * dispatch by hand, and overlap contention in the iteration simulation by hand.
 */
#include "test_helpers.h"

#include "compute/compute.h"
#include "run/run.h"
#include "spec/spec.h"
#include "step/step.h"

/* Parse a job document given as text (file name "test.json"). */
static int parse_text(const char *text, struct ts_job *job, struct ts_err *err)
{
    cJSON *doc = ts_test_json(text);
    struct ts_jnode root = ts_jnode_root(doc, "test.json");
    ts_err_clear(err);
    int rc = ts_job_parse(&root, NULL, job, err);
    cJSON_Delete(doc);
    return rc;
}

/* A llama-style job (RMSNorm, rotary, SwiGLU) on one DGX node with extra top-level keys. */
static int parse_llama(const char *system, const char *extra, struct ts_job *job, struct ts_err *err)
{
    char text[4096];
    snprintf(text, sizeof text,
             "{\"model\": \"llama3-8b\", \"system\": \"%s\", \"gpus\": 8, \"global_batch\": 16, "
             "\"precision\": \"bf16\"%s%s}", system, extra[0] ? ", " : "", extra);
    return parse_text(text, job, err);
}

static void must_parse(int rc, const struct ts_err *err)
{
    if (rc != TS_OK) {
        print_error("unexpected error: %s\n", err->msg);
        fail();
    }
}

static void expect_error(int rc, const struct ts_err *err, const char *needle)
{
    assert_int_equal(rc, TS_ERR_INPUT);
    if (!strstr(err->msg, needle)) {
        print_error("message \"%s\" lacks \"%s\"\n", err->msg, needle);
        fail();
    }
}

static struct ts_iteration evaluate(const struct ts_job *job, enum ts_method method)
{
    struct ts_eval_scratch s;
    assert_int_equal(ts_eval_scratch_init(&s), 0);
    struct ts_iteration it;
    ts_step_evaluate(job, method, &s, &it, NULL, NULL);
    ts_eval_scratch_free(&s);
    return it;
}

static double iteration_s(const struct ts_job *job)
{
    return evaluate(job, TS_METHOD_DISCRETE_EVENT).iteration_s;
}

/* ---------------------------------------------------------------- parsing */

static void an_unknown_profile_key_is_an_error_naming_its_path(void **state)
{
    (void)state;
    struct ts_job job;
    struct ts_err err;
    int rc = parse_llama("dgx-h100", "\"software\": {\"name\": \"x\", \"description\": \"d\", "
                         "\"source\": \"s\", \"fused\": {\"norms\": true}}", &job, &err);
    expect_error(rc, &err, "test.json: software.fused.norms");
}

static void a_profile_needs_name_description_and_source(void **state)
{
    (void)state;
    struct ts_job job;
    struct ts_err err;
    int rc = parse_llama("dgx-h100", "\"software\": {\"name\": \"x\", \"description\": \"d\"}",
                         &job, &err);
    expect_error(rc, &err, "software.source");
}

static void a_bad_kernel_name_is_an_error(void **state)
{
    (void)state;
    struct ts_job job;
    struct ts_err err;
    int rc = parse_llama("dgx-h100", "\"software\": {\"name\": \"x\", \"description\": \"d\", "
                         "\"source\": \"s\", \"attention\": {\"hopper\": \"fa4\"}}", &job, &err);
    expect_error(rc, &err, "software.attention.hopper");
    rc = parse_llama("dgx-h100", "\"parallel\": {\"attention\": \"fa4\"}", &job, &err);
    expect_error(rc, &err, "parallel.attention");
}

static void fa3_on_an_a100_is_refused_naming_parallel_attention(void **state)
{
    (void)state;
    struct ts_job job;
    struct ts_err err;
    int rc = parse_llama("dgx-a100-80g", "\"parallel\": {\"attention\": \"fa3\"}", &job, &err);
    expect_error(rc, &err, "test.json: parallel.attention");
    expect_error(rc, &err, "Hopper");
    rc = parse_llama("dgx-h100", "\"parallel\": {\"attention\": \"fa3\"}", &job, &err);
    must_parse(rc, &err);
    assert_int_equal(ts_attention_resolve(&job.parallel, job.system.accel.generation), TS_ATTN_FA3);
    /* A profile may not map a non-Hopper generation to FA3 either. */
    rc = parse_llama("dgx-a100-80g", "\"software\": {\"name\": \"x\", \"description\": \"d\", "
                     "\"source\": \"s\", \"attention\": {\"ampere\": \"fa3\"}}", &job, &err);
    expect_error(rc, &err, "software.attention.ampere");
}

/* ---------------------------------------------------------------- override rule */

static void an_explicit_parallel_key_beats_the_profile(void **state)
{
    (void)state;
    struct ts_job job;
    struct ts_err err;
    int rc = parse_llama("dgx-a100-80g", "\"software\": \"megatron-lm-2021\"", &job, &err);
    must_parse(rc, &err);
    assert_int_equal(ts_attention_resolve(&job.parallel, TS_GEN_AMPERE), TS_ATTN_STANDARD);
    assert_false(job.parallel.p2p_overlap);
    assert_false(job.parallel.dp_overlap);
    assert_false(job.parallel.grad_accum_fusion);
    rc = parse_llama("dgx-a100-80g", "\"software\": \"megatron-lm-2021\", \"parallel\": "
                     "{\"attention\": \"fa2\", \"dp_overlap\": true}", &job, &err);
    must_parse(rc, &err);
    assert_int_equal(ts_attention_resolve(&job.parallel, TS_GEN_AMPERE), TS_ATTN_FA2);
    assert_true(job.parallel.dp_overlap);
    assert_false(job.parallel.p2p_overlap);      /* not given: the profile's */
    /* "flash" means the profile's kernel for the device generation. */
    rc = parse_llama("dgx-h100", "\"software\": \"pytorch-fsdp\", \"parallel\": {\"attention\": "
                     "\"flash\"}", &job, &err);
    must_parse(rc, &err);
    assert_int_equal(ts_attention_resolve(&job.parallel, TS_GEN_HOPPER), TS_ATTN_FA2);
}

static void moe_dispatcher_and_overlap_come_from_the_profile_unless_the_job_gives_them(void **state)
{
    (void)state;
    struct ts_job job;
    struct ts_err err;
    /* megatron-core: the plain all-to-all, not overlapped */
    int rc = parse_llama("dgx-h100", "\"software\": \"megatron-core\"", &job, &err);
    must_parse(rc, &err);
    assert_int_equal(job.parallel.moe_dispatcher, TS_MOE_ALLTOALL);
    assert_false(job.parallel.moe_a2a_overlap);
    const char *deepep = "\"software\": {\"name\": \"x\", \"description\": \"d\", "
                         "\"source\": \"s\", \"moe_dispatcher\": \"deepep\", "
                         "\"moe_a2a_overlap\": true}";
    rc = parse_llama("dgx-h100", deepep, &job, &err);
    must_parse(rc, &err);
    assert_int_equal(job.parallel.moe_dispatcher, TS_MOE_DEEPEP);
    assert_true(job.parallel.moe_a2a_overlap);
    /* the job's parallel keys win over the profile */
    char text[1024];
    snprintf(text, sizeof text, "%s, \"parallel\": {\"moe_dispatcher\": \"allgather\", "
             "\"moe_a2a_overlap\": false}", deepep);
    rc = parse_llama("dgx-h100", text, &job, &err);
    must_parse(rc, &err);
    assert_int_equal(job.parallel.moe_dispatcher, TS_MOE_ALLGATHER);
    assert_false(job.parallel.moe_a2a_overlap);
    /* unknown names are errors at their JSON path */
    rc = parse_llama("dgx-h100", "\"parallel\": {\"moe_dispatcher\": \"hybridep\"}", &job, &err);
    expect_error(rc, &err, "test.json: parallel.moe_dispatcher");
    rc = parse_llama("dgx-h100", "\"software\": {\"name\": \"x\", \"description\": \"d\", "
                     "\"source\": \"s\", \"moe_dispatcher\": \"nccl\"}", &job, &err);
    expect_error(rc, &err, "software.moe_dispatcher");
    rc = parse_llama("dgx-h100", "\"parallel\": {\"moe_a2a_overlap\": 1}", &job, &err);
    expect_error(rc, &err, "parallel.moe_a2a_overlap");
}

static void megatron_core_reproduces_the_default_job_exactly(void **state)
{
    (void)state;
    struct ts_job a, b;
    struct ts_err err;
    must_parse(parse_llama("dgx-h100", "\"parallel\": {\"tp\": 2, \"pp\": 2}", &a, &err), &err);
    must_parse(parse_llama("dgx-h100", "\"software\": \"megatron-core\", \"parallel\": {\"tp\": 2, "
                           "\"pp\": 2}", &b, &err), &err);
    assert_string_equal(a.software.name, "megatron-core");
    double ta = iteration_s(&a), tb = iteration_s(&b);
    assert_true(ta == tb);
    /* ... and the built-in mechanisms (the model before profiles) give the same. */
    ts_parallel_defaults(&b.parallel);
    b.parallel.tp = b.parallel.pp = 2;
    b.parallel.dp = 2;
    b.parallel.scatter_gather = true;
    b.parallel.bucket_bytes = a.parallel.bucket_bytes;
    assert_true(iteration_s(&b) == ta);
    /* The Korthikanti validation config names megatron-lm-2021 and keeps its 2022 result:
     * standard attention and synchronous p2p, as its former per-key switches said. */
    must_parse(parse_llama("dgx-a100-80g", "\"software\": \"megatron-lm-2021\", \"parallel\": "
                           "{\"grad_accum_fusion\": true}", &a, &err), &err);
    must_parse(parse_llama("dgx-a100-80g", "\"parallel\": {\"attention\": \"standard\", "
                           "\"p2p_overlap\": false, \"dp_overlap\": false}", &b, &err), &err);
    assert_true(iteration_s(&a) == iteration_s(&b));
}

/* ---------------------------------------------------------------- attention tables */

static void attention_efficiency_matches_the_published_table_points(void **state)
{
    (void)state;
    struct ts_accel h;
    struct ts_err err;
    must_parse(ts_accel_load("h100-sxm", &h, &err), &err);
    assert_int_equal(h.generation, TS_GEN_HOPPER);
    /* FlashAttention-3 paper, H100: FA3 causal head dim 128 forward at 2k = 521 TFLOP/s;
     * backward without mask at 4k = 542 (x 2 / 2.5 in trainsim's convention). */
    assert_close(ts_attn_efficiency(&h, TS_ATTN_FA3, 2048, 128, true, false), 521e12 / 989e12, 1e-12, 0);
    assert_close(ts_attn_efficiency(&h, TS_ATTN_FA3, 4096, 128, false, true), 542e12 / 989e12 * 0.8,
                 1e-12, 0);
    /* Halfway in log(seq) between 1k and 2k: the mean of the two bars (FA2 causal 260, 298). */
    assert_close(ts_attn_efficiency(&h, TS_ATTN_FA2, sqrt(1024.0 * 2048.0), 128, true, false),
                 279e12 / 989e12, 1e-12, 0);
    /* Head dim 96: halfway between the 64 and 128 curves (cuDNN no mask at 512: 335, 497). */
    assert_close(ts_attn_efficiency(&h, TS_ATTN_CUDNN, 512, 96, false, false), 416e12 / 989e12, 1e-12, 0);
    /* Outside the measured lengths the end values hold. */
    assert_close(ts_attn_efficiency(&h, TS_ATTN_FA3, 65536, 128, true, false), 616e12 / 989e12, 1e-12, 0);
    assert_close(ts_attn_efficiency(&h, TS_ATTN_FA3, 128, 128, true, false), 292e12 / 989e12, 1e-12, 0);
    /* Causal backward (not published) = no-mask backward x causal / no-mask forward. */
    assert_close(ts_attn_efficiency(&h, TS_ATTN_FA3, 16384, 128, true, true),
                 561e12 * 616.0 / 648.0 / 989e12 * 0.8, 1e-3, 0);
    /* "device": the accelerator file's own figures. */
    assert_close(ts_attn_efficiency(&h, TS_ATTN_DEVICE, 2048, 128, true, false), h.flash_fwd_efficiency,
                 1e-15, 0);
    /* A100 FA2: the paper's 73% forward maximum at 16k, head dim 128, no mask. */
    struct ts_accel a;
    must_parse(ts_accel_load("a100-sxm-80g", &a, &err), &err);
    assert_close(ts_attn_efficiency(&a, TS_ATTN_FA2, 16384, 128, false, false), 0.73, 2e-3, 0);
    assert_false(a.attn[TS_ATTN_FA3].present);
}

/* Blackwell's cuDNN table is the cuDNN frontend's GB200 run (cuDNN 9.18, head dim 128): TFLOP/s
 * over GB200's 2500 bf16 peak, on every Blackwell part; megatron-core runs it on Hopper only. */
static void blackwell_cudnn_is_the_gb200_frontend_run_and_megatron_core_takes_cudnn_on_hopper_only(
    void **state)
{
    (void)state;
    struct ts_accel b;
    struct ts_err err;
    must_parse(ts_accel_load("b200-sxm", &b, &err), &err);
    assert_int_equal(b.generation, TS_GEN_BLACKWELL);
    assert_true(b.attn[TS_ATTN_CUDNN].present);
    assert_false(b.attn[TS_ATTN_FA2].present);
    /* llama3.1_20260126_110503.csv: causal forward at 8192 = 1563 TFLOP/s, causal backward at
     * 2048 = 824 (x 2 / 2.5), no-mask forward at 32768 = 1756. */
    assert_close(ts_attn_efficiency(&b, TS_ATTN_CUDNN, 8192, 128, true, false), 1563.0 / 2500.0, 1e-12, 0);
    assert_close(ts_attn_efficiency(&b, TS_ATTN_CUDNN, 2048, 128, true, true), 824.0 / 2500.0 * 0.8,
                 1e-12, 0);
    assert_close(ts_attn_efficiency(&b, TS_ATTN_CUDNN, 32768, 128, false, false), 1756.0 / 2500.0,
                 1e-12, 0);
    /* Head dim 64 was not measured: the head-dim-128 curve. Below 2048 the 2048 value holds. */
    assert_close(ts_attn_efficiency(&b, TS_ATTN_CUDNN, 4096, 64, true, false), 1297.0 / 2500.0, 1e-12, 0);
    assert_close(ts_attn_efficiency(&b, TS_ATTN_CUDNN, 1024, 128, true, false), 1022.0 / 2500.0, 1e-12, 0);
    /* megatron-core: cuDNN on Hopper (Transformer Engine prefers it on sm90+), the accelerator
     * file's plateau on Ampere and Blackwell; the built-in defaults are the same. */
    struct ts_job job;
    must_parse(parse_llama("dgx-h100", "", &job, &err), &err);
    assert_string_equal(job.software.name, "megatron-core");
    assert_int_equal(ts_attention_resolve(&job.parallel, TS_GEN_HOPPER), TS_ATTN_CUDNN);
    assert_int_equal(ts_attention_resolve(&job.parallel, TS_GEN_BLACKWELL), TS_ATTN_DEVICE);
    assert_int_equal(ts_attention_resolve(&job.parallel, TS_GEN_AMPERE), TS_ATTN_DEVICE);
    struct ts_software sw;
    ts_software_defaults(&sw);
    for (int g = 0; g < TS_GEN_COUNT; g++)
        assert_int_equal(sw.mech.attention[g], job.parallel.sw.attention[g]);
}

static void a_file_without_generation_is_unknown_and_uses_its_flash_figures(void **state)
{
    (void)state;
    const char *text = "{\"name\": \"mine\", \"peak_flops\": {\"bf16\": \"100 TFLOP/s\"}, "
                       "\"memory\": \"16 GiB\", \"memory_bandwidth\": \"1 TB/s\", "
                       "\"gemm_efficiency\": [[1e9, 0.5]], \"flash_attention\": {\"fwd\": 0.3, \"bwd\": 0.2}}";
    cJSON *doc = ts_test_json(text);
    struct ts_jnode root = ts_jnode_root(doc, "mine.json");
    struct ts_accel acc;
    struct ts_err err;
    must_parse(ts_accel_parse(&root, &acc, &err), &err);
    cJSON_Delete(doc);
    assert_int_equal(acc.generation, TS_GEN_UNKNOWN);
    assert_false(acc.generation_given);
    assert_close(ts_attn_efficiency(&acc, TS_ATTN_FA2, 4096, 128, true, false), 0.3, 1e-15, 0);
    assert_close(ts_attn_efficiency(&acc, TS_ATTN_FA2, 4096, 128, true, true), 0.2, 1e-15, 0);
}

/* ---------------------------------------------------------------- fusion and launch */

static void unfused_ops_add_the_extra_bytes_counted_by_hand(void **state)
{
    (void)state;
    struct ts_job job;
    struct ts_err err;
    must_parse(parse_llama("dgx-h100", "\"software\": {\"name\": \"eager\", \"description\": \"d\", "
                           "\"source\": \"s\", \"fused\": {\"norm\": false, \"rotary\": false, "
                           "\"swiglu\": false, \"cross_entropy\": false}}", &job, &err), &err);
    struct ts_compute c;
    ts_compute_build(&job, &c);
    /* llama3-8b: h 4096, 32 heads, 8 KV heads, d 128, f 14336, s 8192, b 1, tp 1, bf16. */
    double e = 2.0, T = 8192, h = 4096, f = 14336, qk = (32.0 + 8.0) * 128.0;
    double norm = (28.0 + 2.0 * e) * T * h, rotary = 7.0 * e * T * qk, swiglu = 2.0 * e * T * f;
    assert_close(c.layer.fwd.unfused_bytes, 2.0 * norm + rotary + swiglu, 1e-12, 0);
    assert_close(c.layer.bwd.unfused_bytes, 2.0 * (2.0 * norm + rotary + swiglu), 1e-12, 0);
    /* Kernels: 2 norms x 5 + rotary 8 + SwiGLU 1 extra in the forward. */
    struct ts_job fused;
    must_parse(parse_llama("dgx-h100", "", &fused, &err), &err);
    struct ts_compute cf;
    ts_compute_build(&fused, &cf);
    assert_close(c.layer.fwd.kernels - cf.layer.fwd.kernels, 19.0, 1e-12, 0);
    assert_close(cf.layer.fwd.unfused_bytes, 0.0, 0, 0);
    double bw = job.system.accel.memory_bandwidth * job.system.accel.memory_efficiency;
    assert_close(c.layer.fwd.mem_s - cf.layer.fwd.mem_s,
                 (2.0 * norm + rotary + swiglu) / bw + 19.0 * job.system.accel.kernel_latency, 1e-9, 0);
    /* Output head: the final RMSNorm, and the cross-entropy upcast of e + 4 bytes per logit. */
    assert_close(c.output.fwd.unfused_bytes, norm + (e + 4.0) * T * c.vocab_padded, 1e-12, 0);
}

static void a_host_bound_pass_lasts_its_kernels_times_the_dispatch_cost(void **state)
{
    (void)state;
    struct ts_job job;
    struct ts_err err;
    must_parse(parse_llama("dgx-h100", "\"software\": {\"name\": \"slow-host\", \"description\": "
                           "\"d\", \"source\": \"s\", \"launch\": {\"host_dispatch\": \"1 ms\"}}",
                           &job, &err), &err);
    struct ts_compute c;
    ts_compute_build(&job, &c);
    const struct ts_pass *p = &c.layer.fwd;
    double gpu = p->gemm_s + p->attn_s + p->mem_s;
    assert_true(p->kernels * 1e-3 > gpu);
    assert_close(p->time_s, p->kernels * 1e-3, 1e-12, 0);
    assert_close(p->launch_s, p->kernels * 1e-3 - gpu, 1e-12, 0);
    /* A fast host does not bind: the pass is its kernels' time. */
    must_parse(parse_llama("dgx-h100", "\"software\": {\"name\": \"fast-host\", \"description\": "
                           "\"d\", \"source\": \"s\", \"launch\": {\"host_dispatch\": \"1 us\"}}",
                           &job, &err), &err);
    ts_compute_build(&job, &c);
    assert_close(c.layer.fwd.launch_s, 0.0, 0, 0);
}

static void a_foreach_optimizer_moves_the_bytes_of_its_passes(void **state)
{
    (void)state;
    struct ts_job job;
    struct ts_err err;
    must_parse(parse_llama("dgx-h100", "\"software\": {\"name\": \"fe\", \"description\": \"d\", "
                           "\"source\": \"s\", \"optimizer\": \"foreach\"}", &job, &err), &err);
    struct ts_compute c;
    ts_compute_build(&job, &c);
    /* fp32 grads (g = 4), bf16 weights (w = 2): eight update passes 72 + 2 g, the working
     * copy w, clipping's norm and scale passes 3 g (no zeroing: set_to_none) = 94 bytes per
     * parameter, against the fused step's g + 8 + 16 + w + 2 g = 38. */
    assert_close(c.optimizer_bytes_per_param, 94.0, 1e-15, 0);
    struct ts_job fused;
    must_parse(parse_llama("dgx-h100", "", &fused, &err), &err);
    ts_compute_build(&fused, &c);
    assert_close(c.optimizer_bytes_per_param, 38.0, 1e-15, 0);
}

static void an_fsdp_rank_steps_only_the_tensors_in_its_shard(void **state)
{
    (void)state;
    struct ts_job job;
    struct ts_err err;
    struct ts_compute c;
    /* A host dispatch of 1 ms makes the per-tensor step host-bound (its ~0.05 s of HBM
     * traffic hides behind the issue time), so the time is 10 kernels x tensors x 1 ms. */
    const char *sw = "\"software\": {\"name\": \"pt\", \"description\": \"d\", \"source\": \"s\", "
                     "\"optimizer\": \"per_tensor\", \"launch\": {\"host_dispatch\": \"1 ms\"}}";
    char text[1024];
    /* llama3-8b: 32 layers of 9 tensors (q k v o, three SwiGLU matrices, two norms), no
     * biases; the embedding, the final norm and the untied output projection. */
    snprintf(text, sizeof text, "%s, \"parallel\": {\"zero\": 1}", sw);
    must_parse(parse_llama("dgx-h100", text, &job, &err), &err);
    ts_compute_build(&job, &c);
    assert_close(ts_compute_optimizer_time(&job, &c, 0), 10.0 * (32 * 9 + 3) * 1e-3, 1e-12, 0);
    /* FSDP over 8 ranks, one layer per unit: a rank's eighth of a unit's 9 tensors laid end
     * to end meets 1 + 8 / 8 = 2 of them on average, of the root unit's 3, 1 + 2 / 8. */
    snprintf(text, sizeof text, "%s, \"parallel\": {\"zero\": 3}", sw);
    must_parse(parse_llama("dgx-h100", text, &job, &err), &err);
    ts_compute_build(&job, &c);
    assert_close(ts_compute_optimizer_time(&job, &c, 0), 10.0 * (32 * 2 + 1.25) * 1e-3, 1e-12, 0);
    /* Two layers per unit: 16 units of 18 tensors, 1 + 17 / 8 each. */
    snprintf(text, sizeof text, "%s, \"parallel\": {\"zero\": 3, \"fsdp_unit_layers\": 2}", sw);
    must_parse(parse_llama("dgx-h100", text, &job, &err), &err);
    ts_compute_build(&job, &c);
    assert_close(ts_compute_optimizer_time(&job, &c, 0), 10.0 * (16 * (1 + 17.0 / 8) + 1.25) * 1e-3,
                 1e-12, 0);
}

/* ---------------------------------------------------------------- contention */

/* One stage, one microbatch: forward 1 s, backward 2 s whose two gradient buckets take 0.5 s
 * each on an idle link; `slowdown` is the plan's overlap_slowdown. */
static double contention_case(double slowdown)
{
    struct ts_step_plan pl;
    assert_int_equal(ts_step_plan_init(&pl, 1, 1), 0);
    pl.m = 1;
    pl.schedule = TS_SCHED_1F1B;
    pl.chunk[0].fwd_s = 1.0;
    pl.chunk[0].bwd_s = 2.0;
    pl.chunk[0].buckets = 2;
    pl.chunk[0].bucket_latency_s = 0.0;
    pl.chunk[0].bucket_bytes = 0.5e9;
    pl.up_bandwidth = 1e9;
    pl.nic_bandwidth = 1e9;
    pl.dp_overlap = true;
    pl.overlap_slowdown = slowdown;
    struct ts_step_sim *sim = ts_step_sim_new();
    struct ts_step_result r;
    ts_step_simulate(sim, &pl, &r, NULL, NULL);
    ts_step_sim_free(sim);
    ts_step_plan_free(&pl);
    return r.iteration_s;
}

static void overlapped_compute_slows_down_by_the_contention_factor(void **state)
{
    (void)state;
    /* Without contention: F 1 + B 2, then the second bucket (ready at the end) 0.5 = 3.5.
     * With 0.2: the overlapped part min(B (1 - 1/2), 2 x 0.5) = 1 s runs 20% slower, so the
     * backward lasts 2.2 s; the first bucket (ready at 1 + 1.1) is done before the second
     * (ready at 3.2) starts: 1 + 2.2 + 0.5 = 3.7. */
    assert_close(contention_case(0.0), 3.5, 1e-12, 0);
    assert_close(contention_case(0.2), 3.7, 1e-12, 0);
}

static void megatron_core_has_no_contention_and_fsdp_profiles_do(void **state)
{
    (void)state;
    struct ts_job job;
    struct ts_err err;
    must_parse(parse_llama("dgx-h100", "", &job, &err), &err);
    assert_false(job.parallel.sw.contention);
    must_parse(parse_llama("dgx-h100", "\"software\": \"pytorch-fsdp\"", &job, &err), &err);
    assert_true(job.parallel.sw.contention);
    assert_close(job.system.accel.overlap_slowdown, 0.189, 1e-15, 0);
    assert_int_equal(job.parallel.sw.grad_reduce_bytes, 4);
}


/* The context_parallel object: defaults are Megatron-Core's P2P ring (no gather, K/V heads,
 * gradients at the activations' width); torchtitan's profile says allgather, repeat_kv and
 * fp32; a bad value or an unknown key is an error naming its path. */
static void context_parallel_mechanisms_parse_with_megatron_defaults_and_name_bad_values(void **state)
{
    (void)state;
    struct ts_job job;
    struct ts_err err;
    must_parse(parse_llama("dgx-h100", "", &job, &err), &err);
    assert_false(job.parallel.sw.cp_allgather);
    assert_false(job.parallel.sw.cp_repeat_kv);
    assert_int_equal(job.parallel.sw.cp_grad_bytes, 0);
    must_parse(parse_llama("dgx-h100", "\"software\": \"pytorch-fsdp-compile\"", &job, &err), &err);
    assert_true(job.parallel.sw.cp_allgather);
    assert_true(job.parallel.sw.cp_repeat_kv);
    assert_int_equal(job.parallel.sw.cp_grad_bytes, 4);
    int rc = parse_llama("dgx-h100", "\"software\": {\"name\": \"x\", \"description\": \"d\", "
                         "\"source\": \"s\", \"context_parallel\": {\"rotate\": \"ring\"}}",
                         &job, &err);
    expect_error(rc, &err, "test.json: software.context_parallel.rotate");
    rc = parse_llama("dgx-h100", "\"software\": {\"name\": \"x\", \"description\": \"d\", "
                     "\"source\": \"s\", \"context_parallel\": {\"repeat\": true}}", &job, &err);
    expect_error(rc, &err, "test.json: software.context_parallel.repeat");
    rc = parse_llama("dgx-h100", "\"software\": {\"name\": \"x\", \"description\": \"d\", "
                     "\"source\": \"s\", \"context_parallel\": {\"grad_dtype\": \"bf16\"}}",
                     &job, &err);
    expect_error(rc, &err, "test.json: software.context_parallel.grad_dtype");
}

/* Scale-up bytes of one iteration (llama3-8b, 8 GPUs, ZeRO-1: gradient reduce-scatter and
 * parameter all-gather) with the profile's grad_reduce_dtype and an optional job override. */
/* The Llama job of parse_llama on dgx-h100 with `extra` keys, evaluated by `method`. */
static struct ts_iteration evaluate_llama(const char *extra, enum ts_method method)
{
    struct ts_job job;
    struct ts_err err;
    must_parse(parse_llama("dgx-h100", extra, &job, &err), &err);
    return evaluate(&job, method);
}

static double up_bytes_with(const char *profile_dtype, const char *job_dtype)
{
    char extra[1024];
    snprintf(extra, sizeof extra,
             "\"software\": {\"name\": \"r\", \"description\": \"d\", \"source\": \"s\", "
             "\"grad_reduce_dtype\": \"%s\"}, \"parallel\": {\"zero\": 1%s%s%s}", profile_dtype,
             job_dtype ? ", \"grad_reduce_dtype\": \"" : "", job_dtype ? job_dtype : "",
             job_dtype ? "\"" : "");
    return evaluate_llama(extra, TS_METHOD_DISCRETE_EVENT).step.up_bytes;
}

static void a_jobs_grad_reduce_dtype_replaces_the_profiles(void **state)
{
    (void)state;
    double fp32 = up_bytes_with("fp32", NULL), bf16 = up_bytes_with("bf16", NULL);
    /* The reduce-scatter of the gradients halves; the bf16 parameter all-gather stays. Each
     * ring sends (N - 1) / N of P elements from each GPU; up_bytes counts one pipeline's GPUs
     * (tp x pp = 1 here), so the difference is 7 / 8 x P x (4 - 2) bytes. */
    struct ts_job job;
    struct ts_err err;
    must_parse(parse_llama("dgx-h100", "", &job, &err), &err);
    struct ts_compute c;
    ts_compute_build(&job, &c);
    double P = ts_compute_stage_params(&job, &c, 0);
    assert_close(fp32 - bf16, 7.0 / 8.0 * P * 2.0, 1e-9, 0);
    assert_close(up_bytes_with("fp32", "bf16"), bf16, 0, 0);
    assert_close(up_bytes_with("bf16", "fp32"), fp32, 0, 0);
    int rc = parse_llama("dgx-h100", "\"parallel\": {\"grad_reduce_dtype\": \"fp16\"}", &job, &err);
    expect_error(rc, &err, "parallel.grad_reduce_dtype");
}

/* ---------------------------------------------------------------- TP overlap quality */

static double layer_fwd_with(const char *tp_overlap, const char *more)
{
    char extra[1024];
    snprintf(extra, sizeof extra,
             "\"software\": {\"name\": \"t\", \"description\": \"d\", \"source\": \"s\", "
             "\"tp_overlap\": \"%s\"%s}, \"parallel\": {\"tp\": 8, \"sequence_parallel\": true, "
             "\"tp_comm_overlap\": true}", tp_overlap, more);
    return evaluate_llama(extra, TS_METHOD_CLOSED_FORM).layer_fwd_s;
}

static void async_tp_hides_its_fraction_of_what_userbuffers_hides(void **state)
{
    (void)state;
    double none = layer_fwd_with("none", "");
    double ub = layer_fwd_with("userbuffers", "");
    double half = layer_fwd_with("async_tp", ", \"async_tp_hidden\": 0.5");
    double all = layer_fwd_with("async_tp", ", \"async_tp_hidden\": 1");
    double nothing = layer_fwd_with("async_tp", ", \"async_tp_hidden\": 0");
    assert_true(ub < none);
    assert_close(all, ub, 1e-12, 0);
    assert_close(nothing, none, 1e-12, 0);
    assert_close(half, ub + 0.5 * (none - ub), 1e-12, 0);
    /* Contention: the GEMMs that hide the collective slow by 0.189 of the hidden time (here
     * the hidden time is below the GEMM time, so all of it counts). */
    double slowed = layer_fwd_with("userbuffers", ", \"comm_contention\": true");
    assert_close(slowed, ub + 0.189 * (none - ub), 1e-12, 0);
}


/* ---------------------------------------------------------------- the one fitted constant */

/* A profile with compute_scale 0.5 for `device`. */
static void constant_profile(char *buf, size_t n, const char *device)
{
    snprintf(buf, n, "\"software\": {\"name\": \"c\", \"description\": \"d\", \"source\": \"s\", "
             "\"calibration\": {\"note\": \"n\", \"constants\": [{\"device\": \"%s\", "
             "\"compute_scale\": 0.5, \"row\": \"r\"}]}}", device);
}

static void a_profile_constant_scales_compute_on_its_device_only(void **state)
{
    (void)state;
    struct ts_job job;
    struct ts_err err;
    char extra[512];
    must_parse(parse_llama("dgx-h100", "", &job, &err), &err);
    double n = 16384, bw = job.system.accel.memory_bandwidth * job.system.accel.memory_efficiency;
    double fixed = 2.0 * n * n / bw + job.system.accel.kernel_latency;   /* store + launch */
    double t1 = ts_compute_gemm_time(&job, n, n, n, 2.0) - fixed;
    constant_profile(extra, sizeof extra, "h100-sxm");
    must_parse(parse_llama("dgx-h100", extra, &job, &err), &err);
    assert_close(ts_compute_gemm_time(&job, n, n, n, 2.0) - fixed, 2.0 * t1, 1e-12, 0);
    constant_profile(extra, sizeof extra, "a100-sxm-80g");
    must_parse(parse_llama("dgx-h100", extra, &job, &err), &err);
    assert_close(ts_compute_gemm_time(&job, n, n, n, 2.0) - fixed, t1, 1e-12, 0);
    /* At most one constant per (profile, device). */
    int rc = parse_llama("dgx-h100", "\"software\": {\"name\": \"c\", \"description\": \"d\", "
                         "\"source\": \"s\", \"calibration\": {\"note\": \"n\", \"constants\": ["
                         "{\"device\": \"h100-sxm\", \"compute_scale\": 0.9, \"row\": \"r1\"}, "
                         "{\"device\": \"h100-sxm\", \"compute_scale\": 0.8, \"row\": \"r2\"}]}}",
                         &job, &err);
    expect_error(rc, &err, "software.calibration.constants[1]");
}


/* A residual band stated for a precision applies to runs in that precision only; one without
 * a precision applies to any; the precision's own band wins over the generic one. Two bands for
 * the same device and precision are an error naming the second. */
static void a_band_with_a_precision_validates_that_precision_only(void **state)
{
    (void)state;
    const char *head = "\"software\": {\"name\": \"b\", \"description\": \"d\", \"source\": \"s\", "
                       "\"validation\": [";
    const char *fp8 = "{\"device\": \"h100-sxm\", \"precision\": \"fp8\", \"rows\": \"r8\", "
                      "\"n_rows\": 3, \"min_error\": -0.05, \"max_error\": 0.02}";
    const char *any = "{\"device\": \"h100-sxm\", \"rows\": \"ra\", \"n_rows\": 2, "
                      "\"min_error\": -0.3, \"max_error\": 0.2}";
    char extra[1024];
    struct ts_job job;
    struct ts_err err;
    snprintf(extra, sizeof extra, "%s%s]}", head, fp8);
    must_parse(parse_llama("dgx-h100", extra, &job, &err), &err);
    assert_int_equal(job.software.n_bands, 1);
    const struct ts_sw_band *b = ts_software_band(&job.software, "h100-sxm", TS_PREC_FP8, 4096);
    assert_non_null(b);
    assert_string_equal(b->rows, "r8");
    assert_null(ts_software_band(&job.software, "h100-sxm", TS_PREC_BF16, 4096));
    assert_null(ts_software_band(&job.software, "b200-sxm", TS_PREC_FP8, 4096));
    /* The run (bf16, the helper's job) is then not validated: the default band. */
    struct ts_run_band rb;
    ts_run_model_band(&job, true, &rb);
    assert_false(rb.validated);
    snprintf(extra, sizeof extra, "%s%s, %s]}", head, any, fp8);
    must_parse(parse_llama("dgx-h100", extra, &job, &err), &err);
    assert_string_equal(ts_software_band(&job.software, "h100-sxm", TS_PREC_FP8, 4096)->rows, "r8");
    assert_string_equal(ts_software_band(&job.software, "h100-sxm", TS_PREC_BF16, 4096)->rows, "ra");
    ts_run_model_band(&job, true, &rb);
    assert_true(rb.validated);
    assert_close(rb.min_error, -0.3, 0, 0);
    assert_close(rb.max_error, 0.2, 0, 0);
    snprintf(extra, sizeof extra, "%s%s, %s]}", head, fp8, fp8);
    expect_error(parse_llama("dgx-h100", extra, &job, &err), &err, "software.validation[1]");
}

/* A band may state the sequence lengths its rows ran at: it then validates runs at those lengths
 * only, and wins there over the device's band without a range (which covers the other
 * lengths); the precision still comes first. llama3-8b runs at 8192 tokens. */
static void a_band_with_a_sequence_range_validates_those_lengths_only(void **state)
{
    (void)state;
    const char *head = "\"software\": {\"name\": \"b\", \"description\": \"d\", \"source\": \"s\", "
                       "\"validation\": [";
    const char *std = "{\"device\": \"h100-sxm\", \"precision\": \"bf16\", \"rows\": \"short\", "
                      "\"n_rows\": 3, \"min_error\": -0.05, \"max_error\": 0.02}";
    const char *lng = "{\"device\": \"h100-sxm\", \"precision\": \"bf16\", \"min_seq_len\": 16384, "
                      "\"rows\": \"long\", \"n_rows\": 7, \"min_error\": 0.18, \"max_error\": 0.32}";
    const char *mid = "{\"device\": \"h100-sxm\", \"precision\": \"bf16\", \"min_seq_len\": 8192, "
                      "\"max_seq_len\": 8192, \"rows\": \"mid\", \"n_rows\": 1, \"min_error\": 0.09, "
                      "\"max_error\": 0.09}";
    const char *any = "{\"device\": \"h100-sxm\", \"min_seq_len\": 4096, \"rows\": \"any\", "
                      "\"n_rows\": 2, \"min_error\": -0.3, \"max_error\": 0.2}";
    char extra[2048];
    struct ts_job job;
    struct ts_err err;
    snprintf(extra, sizeof extra, "%s%s, %s, %s]}", head, std, lng, any);
    must_parse(parse_llama("dgx-h100", extra, &job, &err), &err);
    const struct ts_software *sw = &job.software;
    assert_string_equal(ts_software_band(sw, "h100-sxm", TS_PREC_BF16, 4096)->rows, "short");
    assert_string_equal(ts_software_band(sw, "h100-sxm", TS_PREC_BF16, 16383)->rows, "short");
    assert_string_equal(ts_software_band(sw, "h100-sxm", TS_PREC_BF16, 16384)->rows, "long");
    assert_string_equal(ts_software_band(sw, "h100-sxm", TS_PREC_BF16, 1 << 20)->rows, "long");
    /* another precision: only the precision-less band, and only inside its range */
    assert_string_equal(ts_software_band(sw, "h100-sxm", TS_PREC_FP8, 4096)->rows, "any");
    assert_null(ts_software_band(sw, "h100-sxm", TS_PREC_FP8, 2048));
    /* the run at 8192 takes the band without a range; with a band for exactly 8192, that one */
    struct ts_run_band rb;
    ts_run_model_band(&job, true, &rb);
    assert_close(rb.max_error, 0.02, 0, 0);
    snprintf(extra, sizeof extra, "%s%s, %s, %s]}", head, std, mid, lng);
    must_parse(parse_llama("dgx-h100", extra, &job, &err), &err);
    ts_run_model_band(&job, true, &rb);
    assert_true(rb.validated);
    assert_close(rb.min_error, 0.09, 0, 0);
    assert_non_null(strstr(rb.source, "at this sequence length"));
    /* ranges of one device and precision must not overlap; an empty range is refused */
    const char *over = "{\"device\": \"h100-sxm\", \"precision\": \"bf16\", \"min_seq_len\": 4096, "
                       "\"max_seq_len\": 16384, \"rows\": \"o\", \"n_rows\": 1, \"min_error\": 0, "
                       "\"max_error\": 0}";
    snprintf(extra, sizeof extra, "%s%s, %s]}", head, lng, over);
    expect_error(parse_llama("dgx-h100", extra, &job, &err), &err, "software.validation[1]");
    assert_non_null(strstr(err.msg, "overlapping sequence-length range"));
    const char *empty = "{\"device\": \"h100-sxm\", \"min_seq_len\": 9000, \"max_seq_len\": 8000, "
                        "\"rows\": \"e\", \"n_rows\": 1, \"min_error\": 0, \"max_error\": 0}";
    snprintf(extra, sizeof extra, "%s%s]}", head, empty);
    expect_error(parse_llama("dgx-h100", extra, &job, &err), &err, "max_seq_len 8000 is below");
}

/* The calibration rows still give their published figures with the shipped constants (a model
 * change that moves them needs experiments/calibration/calibrate.py --write): B200 on the NeMo
 * 25.11 Llama 3 8B row (30,624 tokens/s/GPU) under megatron-core, and the same job under
 * nemo-2502 on the 25.02 row (26,006). nemo-2502 is megatron-core but for that one constant:
 * on H100, where it has none, the two are the same job. */
static void nemo_2502_is_megatron_core_but_for_its_one_b200_constant(void **state)
{
    (void)state;
#define CAL_JOB "{\"model\": \"llama3-8b\", \"system\": \"%s\", \"gpus\": 8, " \
                "\"global_batch\": 128, \"precision\": \"fp8\", \"software\": \"%s\", " \
                "\"parallel\": {\"microbatch\": %d, \"zero\": 1, \"fp32_grads\": false, " \
                "\"grad_reduce_dtype\": \"bf16\"}}"
    const char *profile[] = {"megatron-core", "nemo-2502"};
    const double published[] = {30624.0, 26006.0};
    struct ts_job job;
    struct ts_err err;
    char text[1024];
    double h100[2];
    for (int i = 0; i < 2; i++) {
        snprintf(text, sizeof text, CAL_JOB, "dgx-b200", profile[i], 2);
        must_parse(parse_text(text, &job, &err), &err);
        double tps = 128.0 * 8192.0 / iteration_s(&job) / 8.0;
        assert_close(tps, published[i], 0.002, 0.0);
        snprintf(text, sizeof text, CAL_JOB, "dgx-h100", profile[i], 1);
        must_parse(parse_text(text, &job, &err), &err);
        h100[i] = iteration_s(&job);
    }
    assert_true(h100[0] == h100[1]);
#undef CAL_JOB
}

static void fp32_parameters_hold_twelve_bytes_per_parameter_instead_of_fourteen(void **state)
{
    (void)state;
    struct ts_job a, b;
    struct ts_err err;
    const char *par = "\"parallel\": {\"zero\": 3}";
    must_parse(parse_llama("dgx-h100", par, &a, &err), &err);
    char extra[512];
    snprintf(extra, sizeof extra, "\"software\": {\"name\": \"f\", \"description\": \"d\", "
             "\"source\": \"s\", \"master_weights\": \"fp32_params\"}, %s", par);
    must_parse(parse_llama("dgx-h100", extra, &b, &err), &err);
    struct ts_compute ca, cb;
    ts_compute_build(&a, &ca);
    ts_compute_build(&b, &cb);
    struct ts_memory ma, mb;
    ts_memory_stage(&a, &ca, 0, &ma);
    ts_memory_stage(&b, &cb, 0, &mb);
    double per_gpu = ts_compute_stage_params(&a, &ca, 0) / 8.0;    /* ZeRO-3 over 8 GPUs */
    /* Megatron-style: 2 (bf16 weights) + 12 (fp32 master, m, v); fp32 parameters: 4 + 8. */
    assert_close(ma.weights_bytes + ma.optimizer_bytes, 14.0 * per_gpu, 1e-12, 0);
    assert_close(mb.weights_bytes + mb.optimizer_bytes, 12.0 * per_gpu, 1e-12, 0);
    assert_close(mb.buffer_bytes, ma.buffer_bytes, 1e-15, 0);      /* gathered in bf16 either way */
    /* The optimizer step writes no 16-bit working copy: 2 bytes per parameter fewer. */
    assert_close(ca.optimizer_bytes_per_param - cb.optimizer_bytes_per_param, 2.0, 1e-15, 0);
}


/* ---------------------------------------------------------------- loss and metrics */

static void a_fused_xentropy_loss_holds_two_copies_of_the_logits_and_streams_once_each_way(void **state)
{
    (void)state;
    struct ts_job a, b;
    struct ts_err err;
    must_parse(parse_llama("dgx-h100", "", &a, &err), &err);
    must_parse(parse_llama("dgx-h100", "\"software\": {\"name\": \"x\", \"description\": \"d\", "
                           "\"source\": \"s\", \"cross_entropy_kernel\": \"xentropy\"}", &b, &err), &err);
    struct ts_compute ca, cb;
    ts_compute_build(&a, &ca);
    ts_compute_build(&b, &cb);
    /* llama3-8b, s 8192, b 1, bf16: logits T x V. Megatron's fp32 loss holds e + 4 bytes per
     * logit; flash-attn's CrossEntropyLoss the logits and their bf16 gradient, 2 e. */
    double e = 2.0, TV = 8192.0 * ca.vocab_padded;
    assert_close(ca.output.activation_bytes, (e + 4.0) * TV, 1e-12, 0);
    assert_close(cb.output.activation_bytes, 2.0 * e * TV, 1e-12, 0);
    /* Streams: forward e + 40 bytes per logit over six kernels -> e over one; backward
     * 4 + e -> 2 e (read the logits, write the gradient). */
    double bw = a.system.accel.memory_bandwidth * a.system.accel.memory_efficiency;
    double lat = a.system.accel.kernel_latency;
    assert_close(ca.output.fwd.mem_s - cb.output.fwd.mem_s, 40.0 * TV / bw + 5.0 * lat, 1e-9, 0);
    assert_close(ca.output.bwd.mem_s - cb.output.bwd.mem_s, (4.0 - e) * TV / bw, 1e-9, 0);
    /* Unknown implementations are refused. */
    int rc = parse_llama("dgx-h100", "\"software\": {\"name\": \"x\", \"description\": \"d\", "
                         "\"source\": \"s\", \"cross_entropy_kernel\": \"liger\"}", &b, &err);
    expect_error(rc, &err, "software.cross_entropy_kernel");
}

static void each_logit_metric_adds_an_eager_fp32_cross_entropy_after_the_backward(void **state)
{
    (void)state;
    struct ts_job a, b;
    struct ts_err err;
    must_parse(parse_llama("dgx-h100", "", &a, &err), &err);
    must_parse(parse_llama("dgx-h100", "\"software\": {\"name\": \"m\", \"description\": \"d\", "
                           "\"source\": \"s\", \"logit_metrics\": 2}", &b, &err), &err);
    struct ts_compute ca, cb;
    ts_compute_build(&a, &ca);
    ts_compute_build(&b, &cb);
    /* Per metric: cast to fp32 (e + 4 bytes per logit), log-softmax in fp32 (8): e + 12 over
     * three kernels; the forward and the memory are unchanged. */
    double e = 2.0, TV = 8192.0 * ca.vocab_padded;
    double bw = a.system.accel.memory_bandwidth * a.system.accel.memory_efficiency;
    assert_close(cb.output.bwd.unfused_bytes - ca.output.bwd.unfused_bytes, 2.0 * (e + 12.0) * TV,
                 1e-12, 0);
    assert_close(cb.output.bwd.kernels - ca.output.bwd.kernels, 6.0, 0, 0);
    assert_close(cb.output.bwd.mem_s - ca.output.bwd.mem_s,
                 2.0 * (e + 12.0) * TV / bw + 6.0 * a.system.accel.kernel_latency, 1e-9, 0);
    assert_close(cb.output.fwd.time_s, ca.output.fwd.time_s, 0, 0);
    assert_close(cb.output.activation_bytes, ca.output.activation_bytes, 0, 0);
    int rc = parse_llama("dgx-h100", "\"software\": {\"name\": \"m\", \"description\": \"d\", "
                         "\"source\": \"s\", \"logit_metrics\": 9}", &b, &err);
    expect_error(rc, &err, "software.logit_metrics");
}

static void triton_2022_runs_at_fa2_over_1_4_and_2_on_a100_and_adds_its_fp32_extra_on_h100(void **state)
{
    (void)state;
    struct ts_err err;
    struct ts_accel a, h;
    must_parse(ts_accel_load("a100-sxm-80g", &a, &err), &err);
    must_parse(ts_accel_load("h100-sxm", &h, &err), &err);
    assert_true(a.attn[TS_ATTN_TRITON_2022].present && h.attn[TS_ATTN_TRITON_2022].present);
    /* FlashAttention-2 paper (Dao 2023, Sec. 4.1, A100): FA2 is 1.3-1.5x faster than
     * FlashAttention in Triton forward and about 2x backward: 1.4 and 2. On H100 the kernel
     * takes FA2's H100 time plus its A100 extra over FA2 (0.4x / 1.0x FA2's A100 time, the
     * non-matmul work) at the FP32 CUDA-core ratio A100 / H100 = 19.5 / 67 TFLOP/s. In FLOP/s
     * (each table's efficiency times its own peak): */
    double pa = a.attn[TS_ATTN_FA2].peak_flops, ph = h.attn[TS_ATTN_FA2].peak_flops;
    for (double seq = 512; seq <= 16384; seq *= 2)
        for (int hd = 64; hd <= 128; hd += 64)
            for (int bwd = 0; bwd < 2; bwd++) {
                double extra = bwd ? 1.0 : 0.4;
                double fa = ts_attn_efficiency(&a, TS_ATTN_FA2, seq, hd, false, bwd) * pa;
                double fh = ts_attn_efficiency(&h, TS_ATTN_FA2, seq, hd, false, bwd) * ph;
                double ta = ts_attn_efficiency(&a, TS_ATTN_TRITON_2022, seq, hd, false, bwd) * pa;
                double th = ts_attn_efficiency(&h, TS_ATTN_TRITON_2022, seq, hd, false, bwd) * ph;
                /* The tables round to 0.1 TFLOP/s. */
                assert_close(ta, fa / (1.0 + extra), 2e-3, 0);
                assert_close(th, 1.0 / (1.0 / fh + extra / fa * 19.5 / 67.0), 2e-3, 0);
                /* faster than FA2's ratio, slower than FA2 itself */
                assert_true(th > fh / (1.0 + extra) && th < fh);
            }
    /* The name parses as a job kernel; FSDP's backward prefetch is "pre", "post" (timed as
     * "pre": both issue the next all-gather before the unit's reduce-scatter) or "none". */
    struct ts_job job;
    must_parse(parse_llama("dgx-h100", "\"parallel\": {\"attention\": \"triton-2022\"}", &job, &err),
               &err);
    assert_int_equal(ts_attention_resolve(&job.parallel, TS_GEN_HOPPER), TS_ATTN_TRITON_2022);
    must_parse(parse_llama("dgx-h100", "\"parallel\": {\"zero\": 3, \"fsdp_backward_prefetch\": \"post\"}",
                           &job, &err), &err);
    assert_false(job.parallel.fsdp_no_backward_prefetch);
    must_parse(parse_llama("dgx-h100", "\"parallel\": {\"zero\": 3, \"fsdp_backward_prefetch\": \"none\"}",
                           &job, &err), &err);
    assert_true(job.parallel.fsdp_no_backward_prefetch);
    int rc = parse_llama("dgx-h100", "\"parallel\": {\"fsdp_backward_prefetch\": \"early\"}", &job, &err);
    expect_error(rc, &err, "parallel.fsdp_backward_prefetch");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(an_unknown_profile_key_is_an_error_naming_its_path),
        cmocka_unit_test(a_profile_needs_name_description_and_source),
        cmocka_unit_test(a_bad_kernel_name_is_an_error),
        cmocka_unit_test(fa3_on_an_a100_is_refused_naming_parallel_attention),
        cmocka_unit_test(an_explicit_parallel_key_beats_the_profile),
        cmocka_unit_test(megatron_core_reproduces_the_default_job_exactly),
        cmocka_unit_test(attention_efficiency_matches_the_published_table_points),
        cmocka_unit_test(blackwell_cudnn_is_the_gb200_frontend_run_and_megatron_core_takes_cudnn_on_hopper_only),
        cmocka_unit_test(nemo_2502_is_megatron_core_but_for_its_one_b200_constant),
        cmocka_unit_test(a_band_with_a_precision_validates_that_precision_only),
        cmocka_unit_test(a_band_with_a_sequence_range_validates_those_lengths_only),
        cmocka_unit_test(a_file_without_generation_is_unknown_and_uses_its_flash_figures),
        cmocka_unit_test(unfused_ops_add_the_extra_bytes_counted_by_hand),
        cmocka_unit_test(a_host_bound_pass_lasts_its_kernels_times_the_dispatch_cost),
        cmocka_unit_test(a_foreach_optimizer_moves_the_bytes_of_its_passes),
        cmocka_unit_test(an_fsdp_rank_steps_only_the_tensors_in_its_shard),
        cmocka_unit_test(a_jobs_grad_reduce_dtype_replaces_the_profiles),
        cmocka_unit_test(overlapped_compute_slows_down_by_the_contention_factor),
        cmocka_unit_test(megatron_core_has_no_contention_and_fsdp_profiles_do),
        cmocka_unit_test(context_parallel_mechanisms_parse_with_megatron_defaults_and_name_bad_values),
        cmocka_unit_test(async_tp_hides_its_fraction_of_what_userbuffers_hides),
        cmocka_unit_test(a_profile_constant_scales_compute_on_its_device_only),
        cmocka_unit_test(fp32_parameters_hold_twelve_bytes_per_parameter_instead_of_fourteen),
        cmocka_unit_test(a_fused_xentropy_loss_holds_two_copies_of_the_logits_and_streams_once_each_way),
        cmocka_unit_test(each_logit_metric_adds_an_eager_fp32_cross_entropy_after_the_backward),
        cmocka_unit_test(triton_2022_runs_at_fa2_over_1_4_and_2_on_a100_and_adds_its_fp32_extra_on_h100),
        cmocka_unit_test(moe_dispatcher_and_overlap_come_from_the_profile_unless_the_job_gives_them),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
