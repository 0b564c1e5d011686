/*
 * DeepSpeed ZeRO-3 of 2021 (software zero3_blocking; sim/step plan.c z3_blocking): every
 * parameter tensor of at least 1e5 elements gathered by its own all-gather, every gradient
 * tensor reduce-scattered by its own collective, each with the memory passes around it, none
 * of it overlapping compute; under full
 * recomputation the backward re-gathers the sub-modules whose reuse distance reaches 1e9
 * elements. The expectations list the tensors of one GPT layer by hand (h 8192, 4h MLP,
 * biases) and price each with the collective model.
 */
#include "test_helpers.h"
#include "test_job.h"

#include "compute/compute.h"
#include "spec/spec.h"
#include "step/step.h"

/* A 2-layer GPT (h 8192, 64 heads, 4h MLP, biases, tied embeddings) on 16 GPUs of two nodes,
 * bf16, microbatch 1, full recomputation, ZeRO `zero`, on an inline profile with
 * zero3_blocking `blocking` and, when scale > 0, a zero3_comm_scale for the accelerator. */
static void z3_job_ar(struct ts_job *job, int zero, bool blocking, double scale, bool allreduce)
{
    char cal[256] = "";
    if (scale > 0)
        snprintf(cal, sizeof cal, ", \"calibration\": {\"note\": \"t\", \"constants\": "
                 "[{\"device\": \"g\", \"zero3_comm_scale\": %g, \"row\": \"t\"}]}", scale);
    char text[4096];
    snprintf(text, sizeof text,
             "{\"model\": {\"name\": \"gpt\", \"layers\": 2, \"hidden\": 8192, \"heads\": 64, "
             "\"vocab\": 32000, \"seq_len\": 1024, \"ffn\": \"gelu\", \"bias\": true, "
             "\"tied_embeddings\": true}, "
             "\"system\": {\"name\": \"s\", \"accelerator\": {\"name\": \"g\", \"peak_flops\": "
             "{\"bf16\": 1e14}, \"memory\": \"80 GiB\", \"memory_bandwidth\": 1e12, "
             "\"gemm_efficiency\": [[1000, 0.5]]}, \"gpus_per_node\": 8, \"scale_up\": "
             "{\"bandwidth\": \"300 GB/s\", \"latency\": \"5 us\", \"domain_size\": 8}, "
             "\"scale_out\": {\"bandwidth\": \"100 Gb/s\", \"latency\": \"10 us\"}}, "
             "\"software\": {\"name\": \"z\", \"description\": \"t\", \"source\": \"t\", "
             "\"grad_reduce_dtype\": \"bf16\", \"zero3_blocking\": %s, "
             "\"zero3_grad_allreduce\": %s%s}, "
             "\"gpus\": 16, \"global_batch\": 16, \"precision\": \"bf16\", "
             "\"parallel\": {\"zero\": %d, \"recompute\": \"full\"}}",
             blocking ? "true" : "false", allreduce ? "true" : "false", cal, zero);
    parse_valid_job(text, job);
}

static void z3_job(struct ts_job *job, int zero, bool blocking, double scale)
{
    z3_job_ar(job, zero, blocking, scale, false);
}

/* Time of one collective on the job's data-parallel group; *lat gets its latency part. */
static double coll(const struct ts_job *job, enum ts_coll kind, double elements, double *lat)
{
    struct ts_group g;
    ts_comm_group(&job->system, &job->parallel, TS_PDIM_DP, &g);
    struct ts_coll_cost cost;
    ts_comm_collective(&job->system, kind, &g, elements * 2.0, &cost);
    if (lat)
        *lat += cost.latency_s;
    return cost.time_s;
}

/* The memory passes beside each collective (plan.c z3_copies): 3 per gathered byte, 6 per
 * reduced byte, at the accelerator's 1e12 B/s x the default memory_efficiency 0.8. */
static double copies(double elements, bool gather)
{
    return (gather ? 3.0 : 6.0) * elements * 2.0 / (1e12 * 0.8);
}

static double ag_t(const struct ts_job *job, double elements)
{
    return coll(job, TS_COLL_ALLGATHER, elements, NULL) + copies(elements, true);
}

static double rs_t(const struct ts_job *job, double elements)
{
    return coll(job, TS_COLL_REDUCESCATTER, elements, NULL) + copies(elements, false);
}

enum { LN1_W, LN1_B, QKV_W, QKV_B, PROJ_W, PROJ_B, LN2_W, LN2_B, FC1_W, FC1_B, FC2_W, FC2_B, NT };

static void layer_tensors(double *t)
{
    double h = 8192, f = 4 * 8192;
    t[LN1_W] = h; t[LN1_B] = h;
    t[QKV_W] = h * 3 * h; t[QKV_B] = 3 * h;
    t[PROJ_W] = h * h; t[PROJ_B] = h;
    t[LN2_W] = h; t[LN2_B] = h;
    t[FC1_W] = h * f; t[FC1_B] = f;
    t[FC2_W] = f * h; t[FC2_B] = h;
}

static void blocking_zero3_pays_every_tensor_collective_beside_the_compute(void **state)
{
    (void)state;
    struct ts_job z3, z1;
    z3_job(&z3, 3, true, 0);
    z3_job(&z1, 1, true, 0);
    struct ts_compute c3, c1;
    struct ts_step_plan p3, p1;
    build_plan(&z3, &c3, &p3);
    build_plan(&z1, &c1, &p1);
    double t[NT];
    layer_tensors(t);
    /* Gathered: the four GEMM weights (norms and biases are under 1e5 elements: persistent).
     * Reduce-scattered: all twelve tensors. Re-gathered in backward under full
     * recomputation: the sub-modules with more than 5e8 elements after them in the layer
     * (twice that is the reuse distance): QKV (603.9 M after it) and the projection (536.9 M
     * after it); fc1 has 268.4 M after it, fc2 none. */
    double ag = 0.0, rs = 0.0;
    for (int i = 0; i < NT; i++) {
        if (t[i] >= 1e5)
            ag += ag_t(&z3, t[i]);
        rs += rs_t(&z3, t[i]);
    }
    double reag = ag_t(&z3, t[QKV_W]) + ag_t(&z3, t[PROJ_W]);
    /* The embedding (32000 x 8192 word table + 1024 x 8192 positions) is one tensor, the
     * final norm (tied output) a persistent one. */
    double emb = 32000.0 * 8192 + 1024.0 * 8192;
    assert_close(c3.embed.params, emb, 1e-12, 0);
    double emb_ag = ag_t(&z3, emb);
    double emb_rs = rs_t(&z3, emb) + rs_t(&z3, c3.output.params);
    const struct ts_step_chunk *x = &p3.chunk[0];
    assert_close(x->fwd_z3_s, 2 * ag + emb_ag, 1e-12, 0);
    assert_close(x->bwd_z3_s, 2 * (ag + rs + reag) + emb_ag + emb_rs, 1e-12, 0);
    /* Nothing overlaps: the tasks are ZeRO-1's compute plus that, and nothing is left for
     * the step simulation's data-parallel stream. */
    assert_close(x->fwd_s, p1.chunk[0].fwd_s + x->fwd_z3_s, 1e-12, 0);
    assert_close(x->bwd_s, p1.chunk[0].bwd_s + x->bwd_z3_s, 1e-12, 0);
    assert_true(x->z3_gather_bytes == 0 && x->z3_bgather_bytes == 0 && x->z3_scatter_bytes == 0);
    ts_step_plan_free(&p3);
    ts_step_plan_free(&p1);
}

static void blocking_zero3_is_slower_than_prefetched_units(void **state)
{
    (void)state;
    struct ts_job blk, pre;
    z3_job(&blk, 3, true, 0);
    z3_job(&pre, 3, false, 0);
    struct ts_eval_scratch sc;
    assert_int_equal(ts_eval_scratch_init(&sc), 0);
    struct ts_iteration ib, ip;
    ts_step_evaluate(&blk, TS_METHOD_DISCRETE_EVENT, &sc, &ib, NULL, NULL);
    ts_step_evaluate(&pre, TS_METHOD_DISCRETE_EVENT, &sc, &ip, NULL, NULL);
    assert_true(ib.iteration_s > ip.iteration_s);
    /* Gathered weights held: the largest sub-module (fc1, 4 h^2) once gathered, once as its
     * gradient, the layer (12 h^2 + 13 h = 805.4 M elements, under the 1e9 live limit) and
     * the 5e8-element gradient bucket, at 2 bytes. */
    double h = 8192, layer = 12 * h * h + 13 * h;
    assert_close(ib.memory.buffer_bytes, (layer + 4 * h * h + 5e8) * 2.0, 1e-12, 0);
    ts_eval_scratch_free(&sc);
}

static void zero3_comm_scale_multiplies_the_network_bandwidth_part_of_each_collective(void **state)
{
    (void)state;
    struct ts_job one, three;
    z3_job(&one, 3, true, 0);
    z3_job(&three, 3, true, 3.0);
    struct ts_compute c1, c3;
    struct ts_step_plan p1, p3;
    build_plan(&one, &c1, &p1);
    build_plan(&three, &c3, &p3);
    double t[NT];
    layer_tensors(t);
    double lat = 0.0;   /* latency and memory passes of the forward's gathers: not scaled */
    for (int i = 0; i < NT; i++)
        if (t[i] >= 1e5) {
            coll(&one, TS_COLL_ALLGATHER, t[i], &lat);
            lat += copies(t[i], true);
        }
    lat *= 2;
    coll(&one, TS_COLL_ALLGATHER, c1.embed.params, &lat);
    lat += copies(c1.embed.params, true);
    double f1 = p1.chunk[0].fwd_z3_s, f3 = p3.chunk[0].fwd_z3_s;
    assert_true(lat > 0 && lat < f1);
    assert_close(f3 - lat, 3.0 * (f1 - lat), 1e-12, 0);
    ts_step_plan_free(&p1);
    ts_step_plan_free(&p3);
}

/* zero3_grad_allreduce (DeepSpeed v0.3.13 .. v0.4.2 without contiguous gradients: stage3.py
 * buffered_reduce_fallback): the gradients travel in backward order into 5e8-element buckets,
 * a bucket flushed by one all-reduce when the next tensor would take it past 5e8. Backward
 * order, by hand: the final norm (2h = 16384, the tied output's only tensor), then layer 2's
 * fc2 bias 8192, fc2 268435456, fc1 bias 32768 (bucket A = 268492800; fc1's 268435456 would
 * pass 5e8), fc1, the post-norm's two 8192, projection bias 8192, projection 67108864, QKV
 * bias 24576 (B = 335593472; QKV's 201326592 would pass), QKV, the input norm's two 8192,
 * layer 1's fc2 bias, fc2, fc1 bias (C = 469819392), fc1 .. QKV bias (D = B), QKV and the
 * input norm with the embedding 270532608 (E = 471875584, flushed at the end). The five sum
 * to the model's 1881374720 elements. Gathers are unchanged. */
static void grad_allreduce_reduces_the_gradients_in_five_hundred_million_element_buckets(
    void **state)
{
    (void)state;
    struct ts_job ar, rs;
    z3_job_ar(&ar, 3, true, 0, true);
    z3_job(&rs, 3, true, 0);
    struct ts_compute ca, cr;
    struct ts_step_plan pa, pr;
    build_plan(&ar, &ca, &pa);
    build_plan(&rs, &cr, &pr);
    const double buckets[5] = {268492800.0, 335593472.0, 469819392.0, 335593472.0, 471875584.0};
    double sum = 0.0, t_ar = 0.0;
    for (int i = 0; i < 5; i++) {
        sum += buckets[i];
        t_ar += coll(&ar, TS_COLL_ALLREDUCE, buckets[i], NULL) + copies(buckets[i], false);
    }
    double emb = 32000.0 * 8192 + 1024.0 * 8192;
    assert_close(sum, 2 * (12.0 * 8192 * 8192 + 13 * 8192) + 16384 + emb, 1e-15, 0);
    assert_close(ca.output.params, 16384, 1e-15, 0);
    double t[NT];
    layer_tensors(t);
    double ag = 0.0, rs_sum = 0.0;
    for (int i = 0; i < NT; i++) {
        if (t[i] >= 1e5)
            ag += ag_t(&ar, t[i]);
        rs_sum += rs_t(&ar, t[i]);
    }
    double reag = ag_t(&ar, t[QKV_W]) + ag_t(&ar, t[PROJ_W]);
    double emb_ag = ag_t(&ar, emb);
    const struct ts_step_chunk *x = &pa.chunk[0];
    assert_close(x->fwd_z3_s, pr.chunk[0].fwd_z3_s, 1e-12, 0);
    assert_close(x->fwd_z3_s, 2 * ag + emb_ag, 1e-12, 0);
    assert_close(x->bwd_z3_s, 2 * (ag + reag) + emb_ag + t_ar, 1e-12, 0);
    /* The reduction costs more than the per-tensor reduce-scatters it replaces: an
     * all-reduce moves twice a reduce-scatter's bytes. */
    double emb_rs = rs_t(&ar, emb) + rs_t(&ar, 16384);
    assert_true(t_ar > 2 * rs_sum + emb_rs);
    ts_step_plan_free(&pa);
    ts_step_plan_free(&pr);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(blocking_zero3_pays_every_tensor_collective_beside_the_compute),
        cmocka_unit_test(blocking_zero3_is_slower_than_prefetched_units),
        cmocka_unit_test(zero3_comm_scale_multiplies_the_network_bandwidth_part_of_each_collective),
        cmocka_unit_test(grad_allreduce_reduces_the_gradients_in_five_hundred_million_element_buckets),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
