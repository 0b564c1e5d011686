/*
 * Tests of the Hugging Face import (sim/spec/hf.c) on the config.json files vendored in
 * tests/data/hf (README there: where each comes from): the catalogue's hand-written MoE models
 * are the imports of those files, key for key and parameter for parameter; the parameter counts
 * of the imports equal hand counts from the shapes the files give; Llama 4's MoE layers are the
 * ones transformers builds (Llama4TextModel moe_layers).
 *
 * The files are found under TS_TEST_DATA and the catalogue under TRAINSIM_HOME, which ctest sets.
 */
#include "test_helpers.h"
#include "test_job.h"

#include "compute/compute.h"
#include "spec/spec.h"

/* ---------------------------------------------------------------- fixtures */

/* A one-node job around a model reference (a JSON value). */
static void job_with(struct ts_job *job, const char *model)
{
    char text[2048];
    snprintf(text, sizeof text,
             "{\"model\": %s, \"system\": \"dgx-h100\", \"gpus\": 8, \"global_batch\": 8, "
             "\"reliability\": \"none\"}", model);
    parse_job(text, job);
}

/* The import of tests/data/hf/FILE.json, with the pre-training context overridden where the
 * file names none (seq_len does not change the parameter count: rotary positions). */
static void job_hf(struct ts_job *job, const char *file, int seq_len)
{
    const char *data = getenv("TS_TEST_DATA");
    assert_non_null(data);
    char model[1024];
    if (seq_len > 0)
        snprintf(model, sizeof model, "{\"hf\": \"%s/hf/%s.json\", \"seq_len\": %d}", data, file,
                 seq_len);
    else
        snprintf(model, sizeof model, "\"hf:%s/hf/%s.json\"", data, file);
    job_with(job, model);
}

static void counts(const struct ts_job *job, double *total, double *active)
{
    struct ts_compute *c = malloc(sizeof *c);
    assert_non_null(c);
    ts_compute_build(job, c);
    *total = ts_compute_param_count(job, c);
    *active = ts_compute_active_param_count(job, c);
    free(c);
}

/* ---------------------------------------------------------------- catalogue = import */

/* Each catalogue MoE model cites a Hugging Face config.json; the vendored copy of that file,
 * imported, must give the same shapes and the same total and active parameter counts (seq_len
 * aside: the catalogue states the training context, several files only the longest served). */
static void catalogue_moe_models_are_the_imports_of_their_vendored_config_files(void **state)
{
    (void)state;
    static const struct { const char *catalogue, *file; } pairs[] = {
        {"mixtral-8x7b", "mixtral-8x7b-v0.1"},
        {"qwen3-235b-a22b", "qwen3-235b-a22b"},
        {"qwen3-30b-a3b", "qwen3-30b-a3b"},
        {"llama4-scout", "llama-4-scout-17b-16e-instruct"},
        {"llama4-maverick", "llama-4-maverick-17b-128e-instruct"},
        {"deepseek-v3", "deepseek-v3"},
    };
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        struct ts_job cat, imp;
        char name[128];
        snprintf(name, sizeof name, "\"%s\"", pairs[i].catalogue);
        job_with(&cat, name);
        job_hf(&imp, pairs[i].file, cat.model.seq_len);
        const struct ts_model *a = &cat.model, *b = &imp.model;
        print_message("  %s = %s\n", pairs[i].catalogue, pairs[i].file);
        assert_int_equal(a->layers, b->layers);
        assert_int_equal(a->hidden, b->hidden);
        assert_int_equal(a->heads, b->heads);
        assert_int_equal(a->kv_heads, b->kv_heads);
        assert_int_equal(a->head_dim, b->head_dim);
        assert_int_equal(a->ffn_hidden, b->ffn_hidden);
        assert_int_equal(a->vocab, b->vocab);
        assert_int_equal(a->tied_embeddings, b->tied_embeddings);
        assert_int_equal(a->moe.experts, b->moe.experts);
        assert_int_equal(a->moe.top_k, b->moe.top_k);
        assert_int_equal(a->moe.expert_ffn_hidden, b->moe.expert_ffn_hidden);
        assert_int_equal(a->moe.shared_experts, b->moe.shared_experts);
        assert_int_equal(a->moe.dense_layers, b->moe.dense_layers);
        assert_int_equal(a->moe.moe_every, b->moe.moe_every);
        assert_int_equal(a->moe.router, b->moe.router);
        assert_int_equal(a->mla.on, b->mla.on);
        assert_int_equal(a->mtp_layers, b->mtp_layers);
        double ta, aa, tb, ab;
        counts(&cat, &ta, &aa);
        counts(&imp, &tb, &ab);
        assert_close(tb, ta, 0.0, 0.5);
        assert_close(ab, aa, 0.0, 0.5);
    }
}

/* ---------------------------------------------------------------- hand counts */

/* Mixtral-8x7B-v0.1's file: h 4096, 32 layers, 32 heads of 128 with 8 KV heads, 8 experts of
 * 14336 (SwiGLU: 3 matrices) top-2, vocabulary 32000, untied. Per layer: attention
 * 2 x 4096^2 + 2 x 4096 x 1024, experts 8 x 3 x 4096 x 14336, router 4096 x 8, two RMSNorms;
 * plus embedding and head and the final norm: 46,702,792,704 (Mistral AI: 46.7B); per token two
 * experts: 12,879,925,248 (12.9B). */
static void mixtral_8x7b_import_counts_the_hand_count_of_its_shapes(void **state)
{
    (void)state;
    const double h = 4096, kv = 8 * 128.0, ff = 14336, v = 32000, L = 32;
    const double attn = 2 * h * h + 2 * h * kv, expert = 3 * h * ff, rest = h * 8 + 2 * h;
    const double total = L * (attn + 8 * expert + rest) + 2 * v * h + h;
    const double active = L * (attn + 2 * expert + rest) + 2 * v * h + h;
    assert_close(total, 46702792704.0, 0.0, 0.5);    // the closed form, evaluated by hand
    struct ts_job job;
    job_hf(&job, "mixtral-8x7b-v0.1", 0);
    double t, a;
    counts(&job, &t, &a);
    assert_close(t, total, 0.0, 0.5);
    assert_close(a, active, 0.0, 0.5);
    assert_close(t, 46.7e9, 0.005, 0);
    assert_close(a, 12.9e9, 0.005, 0);
}

/* Llama 4 Maverick's text model: 48 layers, h 5120, 40 heads of 128 with 8 KV heads; MoE on
 * every 2nd layer (24) with 128 routed experts and one shared expert of 8192 and a 5120 x 128
 * router; the 24 others dense of 16384; vocabulary 202048, untied. 400,711,848,960 in all
 * (Meta's 400B adds the 0.87B vision encoder, which the import leaves out), 17,184,691,200 per
 * token (Meta: 17B). */
static void llama4_maverick_import_counts_the_hand_count_of_its_text_model(void **state)
{
    (void)state;
    const double h = 5120, L = 48, v = 202048;
    const double attn = 2 * h * 40 * 128 + 2 * h * 8 * 128, norms = 2 * h;
    const double dense = 3 * h * 16384, expert = 3 * h * 8192, router = h * 128;
    const double total = L * (attn + norms) + 24 * dense + 24 * (129 * expert + router) +
                         2 * v * h + h;
    const double active = L * (attn + norms) + 24 * dense + 24 * (2 * expert + router) +
                          2 * v * h + h;
    assert_close(total, 400711848960.0, 0.0, 0.5);
    struct ts_job job;
    job_hf(&job, "llama-4-maverick-17b-128e-instruct", 8192);
    double t, a;
    counts(&job, &t, &a);
    assert_close(t, total, 0.0, 0.5);
    assert_close(a, active, 0.0, 0.5);
}

/* ---------------------------------------------------------------- layer layout */

/* transformers Llama4TextModel: moe_layers = range(interleave_moe_layer_step - 1, L, step).
 * Maverick (step 2) has its MoE layers at 1, 3, ..., 47; Scout (step 1) in every layer. */
static void llama4_moe_layers_are_the_ones_transformers_builds(void **state)
{
    (void)state;
    struct ts_job job;
    job_hf(&job, "llama-4-maverick-17b-128e-instruct", 8192);
    for (int i = 0; i < job.model.layers; i++)
        assert_int_equal(ts_model_layer_is_moe(&job.model, i), i % 2 == 1);
    assert_int_equal(ts_model_moe_layers(&job.model, 0, job.model.layers), 24);
    job_hf(&job, "llama-4-scout-17b-16e-instruct", 0);
    assert_int_equal(job.model.seq_len, 8192);  // rope_scaling.original_max_position_embeddings
    assert_int_equal(ts_model_moe_layers(&job.model, 0, job.model.layers), 48);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(catalogue_moe_models_are_the_imports_of_their_vendored_config_files),
        cmocka_unit_test(mixtral_8x7b_import_counts_the_hand_count_of_its_shapes),
        cmocka_unit_test(llama4_maverick_import_counts_the_hand_count_of_its_text_model),
        cmocka_unit_test(llama4_moe_layers_are_the_ones_transformers_builds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
