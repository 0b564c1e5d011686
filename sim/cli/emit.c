/*
 * `--emit job FILE` and `--emit megatron`: the answer in a form to act on.
 *
 *   job       a job file (the keys of a configs/ job file) that `trainsim run` turns into the same
 *             prediction: for `run` the input with its --set overrides applied (references by
 *             path made absolute, so the file works from anywhere); for `sweep` the
 *             best configuration (its system, nodes, pricing, software profile and layout, with
 *             the sweep's model, tokens, reliability and cost sections; by_system prices merged).
 *   megatron  the Megatron-LM / NeMo (Megatron-Core) command-line arguments of the chosen
 *             model and layout, with the argument names of Megatron-LM core_v0.19.0
 *             (megatron/training/arguments.py; tests/data/megatron-args.txt lists them).
 */
#define _XOPEN_SOURCE 700   /* realpath */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "search/search.h"
#include "spec/spec.h"

/* ---------------------------------------------------------------- Megatron arguments */

static void arg_int(struct ts_buf *b, const char *name, long v)
{
    ts_buf_printf(b, "%s%s %ld", b->len ? " " : "", name, v);
}

static void arg_str(struct ts_buf *b, const char *name, const char *v)
{
    ts_buf_printf(b, "%s%s %s", b->len ? " " : "", name, v);
}

static void arg_flag(struct ts_buf *b, const char *name)
{
    ts_buf_printf(b, "%s%s", b->len ? " " : "", name);
}

void ts_cli_emit_megatron(const struct ts_job *job, struct ts_buf *b, FILE *notes)
{
    const struct ts_model *m = &job->model;
    const struct ts_parallel *p = &job->parallel;
    /* The model (Megatron-LM "network size" arguments). */
    arg_int(b, "--num-layers", m->layers);
    arg_int(b, "--hidden-size", m->hidden);
    arg_int(b, "--num-attention-heads", m->heads);
    arg_int(b, "--ffn-hidden-size", m->ffn_hidden);
    if (m->kv_heads != m->heads) {
        arg_flag(b, "--group-query-attention");
        arg_int(b, "--num-query-groups", m->kv_heads);
    }
    if (m->ffn == TS_FFN_SWIGLU)
        arg_flag(b, "--swiglu");
    else if (m->ffn == TS_FFN_SQUARED_RELU)
        arg_flag(b, "--squared-relu");
    if (!m->bias)
        arg_flag(b, "--disable-bias-linear");
    if (!m->tied_embeddings)
        arg_flag(b, "--untie-embeddings-and-output-weights");
    arg_str(b, "--position-embedding-type", m->learned_positions ? "learned_absolute" : "rope");
    arg_int(b, "--seq-length", m->seq_len);
    arg_int(b, "--max-position-embeddings", m->seq_len);
    char drop[32];
    snprintf(drop, sizeof drop, "%.4g", m->dropout);
    arg_str(b, "--attention-dropout", drop);
    arg_str(b, "--hidden-dropout", drop);
    /* Batch. */
    arg_int(b, "--micro-batch-size", p->microbatch);
    arg_int(b, "--global-batch-size", job->global_batch);
    if (job->has_training)
        arg_int(b, "--train-samples", (long)ceil(job->training.tokens / m->seq_len));
    /* Precision: Megatron's FP8 keeps bf16 parameters and runs the GEMMs in FP8 (hybrid:
     * E4M3 forward, E5M2 backward, Transformer Engine's default recipe). */
    if (job->precision == TS_PREC_FP16)
        arg_flag(b, "--fp16");
    else if (job->precision != TS_PREC_FP32)
        arg_flag(b, "--bf16");
    if (job->precision == TS_PREC_FP8)
        arg_str(b, "--fp8-format", "hybrid");
    /* Layout. */
    arg_int(b, "--tensor-model-parallel-size", p->tp);
    arg_int(b, "--pipeline-model-parallel-size", p->pp);
    if (p->schedule == TS_SCHED_INTERLEAVED && p->virtual_stages > 1)
        arg_int(b, "--num-layers-per-virtual-pipeline-stage",
                ts_job_stage_layers(job, 0) / p->virtual_stages);
    if (p->first_stage_layers)
        arg_int(b, "--decoder-first-pipeline-num-layers", p->first_stage_layers);
    if (p->last_stage_layers)
        arg_int(b, "--decoder-last-pipeline-num-layers", p->last_stage_layers);
    arg_int(b, "--context-parallel-size", p->cp);
    if (m->moe.experts > 0) {   /* Megatron-Core MoE parallel folding: EP and ETP of the experts */
        arg_int(b, "--expert-model-parallel-size", p->ep > 0 ? p->ep : 1);
        arg_int(b, "--expert-tensor-parallel-size", p->etp > 0 ? p->etp : 1);
    }
    if (p->sequence_parallel && p->tp > 1)
        arg_flag(b, "--sequence-parallel");
    if (p->schedule == TS_SCHED_GPIPE && notes)
        fprintf(notes, "trainsim: --emit megatron: Megatron-LM has no GPipe schedule; its 1F1B "
                "runs the same microbatches with less activation memory\n");
    /* Recomputation: selective is Megatron's core-attention checkpointing; full recomputes
     * every layer of a stage (uniform method, one layer per checkpointed chunk). */
    if (p->recompute_policy.custom) {
        if (notes)
            fprintf(notes, "trainsim: --emit megatron: the recomputation policy has no exact "
                    "Megatron-LM arguments; the nearest preset (%s) is emitted\n",
                    ts_recompute_names[p->recompute]);
    }
    if (p->recompute == TS_RECOMPUTE_SELECTIVE) {
        arg_str(b, "--recompute-granularity", "selective");
    } else if (p->recompute == TS_RECOMPUTE_FULL) {
        arg_str(b, "--recompute-granularity", "full");
        arg_str(b, "--recompute-method", "uniform");
        arg_int(b, "--recompute-num-layers", 1);
    }
    /* Data parallel: ZeRO-1 is the distributed optimizer; ZeRO-2/3 are Megatron-FSDP's
     * sharding strategies. */
    if (p->zero == 1) {
        arg_flag(b, "--use-distributed-optimizer");
    } else if (p->zero >= 2) {
        arg_flag(b, "--use-megatron-fsdp");
        arg_str(b, "--data-parallel-sharding-strategy",
                p->zero == 2 ? "optim_grads" : "optim_grads_params");
    }
    if (p->offload_layers > 0)      /* Transformer Engine's activation offload */
        arg_int(b, "--cpu-offloading-num-layers", p->offload_layers);
    if (p->zero >= 1 && p->zero_group > 0 && p->dp * p->cp > p->zero_group)
        arg_int(b, "--num-distributed-optimizer-instances", p->dp * p->cp / p->zero_group);
    if (p->dp_overlap) {
        arg_flag(b, "--overlap-grad-reduce");
        if (p->zero == 1)
            arg_flag(b, "--overlap-param-gather");
    }
    if (p->fp32_grads && job->precision != TS_PREC_FP32)
        arg_flag(b, "--accumulate-allreduce-grads-in-fp32");
    if (!p->grad_accum_fusion)
        arg_flag(b, "--no-gradient-accumulation-fusion");
    if (p->tp_comm_overlap && p->tp > 1)
        arg_flag(b, "--tp-comm-overlap");
    if (p->schedule == TS_SCHED_INTERLEAVED && !p->p2p_overlap)
        arg_flag(b, "--no-overlap-p2p-communication");
    enum ts_attention a = ts_attention_resolve(p, job->system.accel.generation);
    arg_str(b, "--attention-backend", a == TS_ATTN_STANDARD ? "unfused" : "flash");
    ts_buf_append(b, "\n", 1);
}

/* ---------------------------------------------------------------- the sweep's best as a job */

/* A reference string as the emitted file must hold it: catalogue names stay names; a path is
 * made absolute (it was relative to the sweep file). */
static cJSON *ref_copy(const cJSON *j, enum ts_catalog cat, const char *from_file)
{
    if (!cJSON_IsString(j))
        return cJSON_Duplicate(j, 1);
    const char *ref = j->valuestring;
    if (!strchr(ref, '/') && !(strlen(ref) > 5 && strcmp(ref + strlen(ref) - 5, ".json") == 0))
        return cJSON_Duplicate(j, 1);
    char path[2048], abs[PATH_MAX];
    struct ts_err err;
    if (ts_spec_resolve(cat, ref, from_file, path, sizeof path, &err) == TS_OK &&
        realpath(path, abs))
        return cJSON_CreateString(abs);
    return cJSON_Duplicate(j, 1);
}

cJSON *ts_cli_emit_run_job(const char *file, const cJSON *doc)
{
    cJSON *j = cJSON_Duplicate(doc, 1);
    static const struct { const char *key; enum ts_catalog cat; } refs[] = {
        {"model", TS_CAT_MODEL}, {"system", TS_CAT_SYSTEM}, {"software", TS_CAT_SOFTWARE}};
    for (size_t i = 0; i < TS_ARRAY_LEN(refs); i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, refs[i].key);
        if (cJSON_IsString(v))
            cJSON_ReplaceItemInObjectCaseSensitive(j, refs[i].key, ref_copy(v, refs[i].cat, file));
    }
    cJSON *cost = cJSON_GetObjectItemCaseSensitive(j, "cost");
    const cJSON *prices = cJSON_IsObject(cost) ? cJSON_GetObjectItemCaseSensitive(cost, "prices") : NULL;
    if (cJSON_IsString(prices))
        cJSON_ReplaceItemInObjectCaseSensitive(cost, "prices", ref_copy(prices, TS_CAT_PRICES, file));
    return j;
}

/* The searched keys of a sweep's parallel object (the rest are fixed options). */
static bool searched_key(const char *k)
{
    static const char *const keys[] = {"tp", "pp", "cp", "microbatch", "virtual_stages", "zero",
                                       "schedule", "sequence_parallel", "recompute",
                                       "tp_comm_overlap", "ep", "etp", NULL};
    for (int i = 0; keys[i]; i++)
        if (strcmp(k, keys[i]) == 0)
            return true;
    return false;
}

/* Merge `over` into `base` (over's keys win; objects merge), as the sweep does for
 * cost.by_system. */
static void merge_into(cJSON *base, const cJSON *over)
{
    for (const cJSON *c = over->child; c; c = c->next) {
        cJSON *have = cJSON_GetObjectItemCaseSensitive(base, c->string);
        if (have && cJSON_IsObject(have) && cJSON_IsObject(c))
            merge_into(have, c);
        else if (have)
            cJSON_ReplaceItemInObjectCaseSensitive(base, c->string, cJSON_Duplicate(c, 1));
        else
            cJSON_AddItemToObject(base, c->string, cJSON_Duplicate(c, 1));
    }
}

cJSON *ts_cli_emit_sweep_job(const char *file, const cJSON *doc, const struct ts_sweep *sw,
                             const struct ts_outcome *o, const struct ts_job *best)
{
    const struct ts_layout *l = &o->layout;
    cJSON *j = cJSON_CreateObject();
    char name[TS_NAME_MAX + 16];
    snprintf(name, sizeof name, "%s-best", sw->name);
    cJSON_AddStringToObject(j, "name", name);
    char desc[1200];
    snprintf(desc, sizeof desc, "The answer of the sweep %s, written by trainsim --emit job: "
             "`trainsim run` on this file reproduces the sweep's best configuration.", file);
    cJSON_AddStringToObject(j, "description", desc);
    cJSON_AddItemToObject(j, "model",
                          ref_copy(cJSON_GetObjectItemCaseSensitive(doc, "model"), TS_CAT_MODEL, file));
    const cJSON *systems = cJSON_GetObjectItemCaseSensitive(doc, "systems");
    cJSON_AddItemToObject(j, "system", ref_copy(cJSON_GetArrayItem(systems, l->system),
                                                TS_CAT_SYSTEM, file));
    cJSON_AddNumberToObject(j, "nodes", l->nodes);
    cJSON_AddNumberToObject(j, "global_batch", l->global_batch);
    cJSON_AddStringToObject(j, "precision", ts_precision_names[sw->precision]);
    const cJSON *software = cJSON_GetObjectItemCaseSensitive(doc, "software");
    if (software)
        cJSON_AddItemToObject(j, "software",
                              ref_copy(cJSON_IsArray(software)
                                           ? cJSON_GetArrayItem(software, l->software) : software,
                                       TS_CAT_SOFTWARE, file));
    cJSON *par = cJSON_AddObjectToObject(j, "parallel");
    cJSON_AddNumberToObject(par, "tp", l->tp);
    cJSON_AddNumberToObject(par, "pp", l->pp);
    if (best->parallel.first_stage_layers || best->parallel.last_stage_layers) {
        /* the balanced uneven split the sweep derived for a pp that does not divide the layers */
        cJSON_AddNumberToObject(par, "first_stage_layers", best->parallel.first_stage_layers);
        cJSON_AddNumberToObject(par, "last_stage_layers", best->parallel.last_stage_layers);
    }
    cJSON_AddNumberToObject(par, "cp", l->cp);
    if (ts_model_is_moe(&sw->model)) {
        cJSON_AddNumberToObject(par, "ep", l->ep);
        cJSON_AddNumberToObject(par, "etp", l->etp);
    }
    cJSON_AddNumberToObject(par, "microbatch", l->microbatch);
    cJSON_AddStringToObject(par, "schedule", ts_schedule_names[l->schedule]);
    if (l->schedule == TS_SCHED_INTERLEAVED)
        cJSON_AddNumberToObject(par, "virtual_stages", l->virtual_stages);
    cJSON_AddBoolToObject(par, "sequence_parallel", l->sp);
    cJSON_AddStringToObject(par, "recompute", ts_recompute_names[l->recompute]);
    cJSON_AddNumberToObject(par, "zero", l->zero);
    cJSON_AddBoolToObject(par, "tp_comm_overlap", l->tp_overlap);
    const cJSON *dpar = cJSON_GetObjectItemCaseSensitive(doc, "parallel");
    if (cJSON_IsObject(dpar))
        for (const cJSON *c = dpar->child; c; c = c->next)
            if (!searched_key(c->string))
                cJSON_AddItemToObject(par, c->string, cJSON_Duplicate(c, 1));
    cJSON *tr = cJSON_AddObjectToObject(j, "training");
    cJSON_AddNumberToObject(tr, "tokens", sw->tokens);
    /* A sweep's spot rows are preempted at the sweep's default rate unless the file gives
     * reliability.spot, and its other rows never are: the job states which. */
    const cJSON *rel = cJSON_GetObjectItemCaseSensitive(doc, "reliability");
    const struct ts_spot *spot = &best->reliability.spot;
    if (cJSON_IsObject(rel) || (!rel && spot->enabled)) {
        cJSON *r = rel ? cJSON_Duplicate(rel, 1) : cJSON_CreateObject();
        cJSON_DeleteItemFromObjectCaseSensitive(r, "spot");
        if (spot->enabled) {
            cJSON *sp = cJSON_AddObjectToObject(r, "spot");
            cJSON_AddNumberToObject(sp, "preemption_mtbf", spot->preemption_mtbf_s);
            cJSON_AddNumberToObject(sp, "notice", spot->notice_s);
            cJSON_AddNumberToObject(sp, "reacquire", spot->reacquire_s);
        }
        cJSON_AddItemToObject(j, "reliability", r);
    } else if (rel) {
        cJSON_AddItemToObject(j, "reliability", cJSON_Duplicate(rel, 1));
    }
    const cJSON *cost = cJSON_GetObjectItemCaseSensitive(doc, "cost");
    if (cJSON_IsObject(cost)) {
        cJSON *c = cJSON_Duplicate(cost, 1);
        cJSON *by = cJSON_DetachItemFromObjectCaseSensitive(c, "by_system");
        const cJSON *over = by ? cJSON_GetObjectItemCaseSensitive(by, sw->systems[l->system].name)
                               : NULL;
        if (cJSON_IsObject(over))
            merge_into(c, over);
        cJSON_Delete(by);
        cJSON *prices = cJSON_GetObjectItemCaseSensitive(c, "prices");
        if (prices)
            cJSON_ReplaceItemInObjectCaseSensitive(c, "prices", ref_copy(prices, TS_CAT_PRICES, file));
        cJSON_DeleteItemFromObjectCaseSensitive(c, "pricing");
        cJSON_AddStringToObject(c, "pricing", ts_pricing_names[o->pricing]);
        /* A searched committed base becomes the one this configuration buys; other rows
         * than reserved ones buy no commitment. */
        cJSON *cm = cJSON_GetObjectItemCaseSensitive(c, "commitment");
        if (cm && o->pricing != TS_PRICING_RESERVED) {
            cJSON_DeleteItemFromObjectCaseSensitive(c, "commitment");
        } else if (cJSON_IsObject(cm) && o->commit_nodes > 0) {
            cJSON_DeleteItemFromObjectCaseSensitive(cm, "nodes");
            cJSON_AddNumberToObject(cm, "nodes", o->commit_nodes);
        }
        cJSON_AddItemToObject(j, "cost", c);
    }
    return j;
}
