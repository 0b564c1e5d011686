/*
 * Job files: model + system + cluster size + batch + parallel layout (+ training,
 * reliability and cost sections parsed by their own modules).
 */
#include <stdlib.h>
#include <string.h>

#include "spec/spec.h"
#include "step/step.h"

/* ---------------------------------------------------------------- parallel */

void ts_parallel_defaults(struct ts_parallel *p)
{
    memset(p, 0, sizeof *p);
    p->tp = p->pp = p->cp = 1;
    p->ep = p->etp = 1;
    p->dp = 0;                      /* derived */
    p->microbatch = 1;
    p->schedule = TS_SCHED_1F1B;
    p->virtual_stages = 1;
    p->recompute = TS_RECOMPUTE_NONE;
    p->dp_overlap = true;
    p->tp_comm_overlap = false;
    p->p2p_overlap = true;
    p->attention = TS_ATTN_FLASH;
    p->attention_unpad = false;
    p->eager_loss = TS_EAGER_LOSS_OFF;
    p->scatter_gather = true;
    for (int i = 0; i < TS_PDIM_COUNT; i++)
        p->order[i] = i;            /* tp, cp, dp, pp from innermost (Megatron's default) */
    p->bucket_bytes = 0;            /* 40e6 parameters' worth, set by the job parser */
    p->fp32_grads = true;
    p->grad_accum_fusion = true;
    p->zero_group = 0;              /* dp x cp */
    p->fsdp_unit_layers = 1;
    p->fsdp_prefetch = 1;
    p->given = 0;
    struct ts_software sw;
    ts_software_defaults(&sw);
    p->sw = sw.mech;
}

static const char *const parallel_keys[] = {
    "tp", "pp", "dp", "cp", "microbatch", "schedule", "virtual_stages", "sequence_parallel",
    "recompute", "zero", "dp_overlap", "tp_comm_overlap", "p2p_overlap", "attention", "scatter_gather",
    "first_stage_layers", "last_stage_layers", "order", "bucket_size", "fp32_grads",
    "grad_accum_fusion", "zero_group", "fsdp_unit_layers", "fsdp_prefetch",
    "fsdp_backward_prefetch", "ep", "etp", "moe_dispatcher", "moe_a2a_overlap",
    "attention_unpad", "grad_reduce_dtype", "eager_loss", "fsdp_fp8_allgather", "offload_layers",
    NULL,
};

static int parse_order(const struct ts_jnode *node, int order[TS_PDIM_COUNT], struct ts_err *err)
{
    char text[64] = "";
    if (cJSON_IsString(node->json) && strlen(node->json->valuestring) < sizeof text)
        ts_strlcpy(text, node->json->valuestring, sizeof text);
    else if (cJSON_IsArray(node->json) && cJSON_GetArraySize(node->json) == TS_PDIM_COUNT) {
        for (int i = 0; i < TS_PDIM_COUNT; i++) {
            const cJSON *it = cJSON_GetArrayItem(node->json, i);
            if (!cJSON_IsString(it) || strlen(it->valuestring) > 4)
                break;
            strcat(text, i ? "," : "");
            strcat(text, it->valuestring);
        }
    }
    bool seen[TS_PDIM_COUNT] = {false};
    int count = 0;
    char *save = NULL;
    for (char *tok = strtok_r(text, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
        int d = -1;
        for (int i = 0; i < TS_PDIM_COUNT; i++)
            if (strcmp(tok, ts_pdim_names[i]) == 0)
                d = i;
        if (d < 0 || seen[d] || count >= TS_PDIM_COUNT) {
            count = -1;
            break;
        }
        seen[d] = true;
        order[count++] = d;
    }
    if (count != TS_PDIM_COUNT) {
        char desc[96];
        ts_jnode_describe(node->json, desc, sizeof desc);
        return ts_err_at(err, node->file, node->path,
                         "%s is not a placement order; give each of tp, cp, dp, pp once, innermost "
                         "first, e.g. \"tp,cp,dp,pp\"", desc);
    }
    return TS_OK;
}

int ts_parallel_parse(const struct ts_jnode *node, struct ts_parallel *p, struct ts_err *err)
{
    int rc;
    if ((rc = ts_jnode_check_keys(node, parallel_keys, err)))
        return rc;
    int sched = (int)p->schedule, attn = (int)p->attention, eager_loss = (int)p->eager_loss;
    /* Keys a software profile also sets: remember which the file gives (they win). */
    static const char *const pkey_names[TS_PKEY_COUNT] = {
        "attention", "p2p_overlap", "dp_overlap", "tp_comm_overlap", "fp32_grads",
        "grad_accum_fusion", "moe_dispatcher", "moe_a2a_overlap", "grad_reduce_dtype"};
    for (int i = 0; i < TS_PKEY_COUNT; i++)
        if (cJSON_GetObjectItemCaseSensitive(node->json, pkey_names[i]))
            p->given |= 1u << i;
    bool sg_given = cJSON_GetObjectItemCaseSensitive(node->json, "scatter_gather") != NULL;
    struct ts_jnode c;
    if ((rc = ts_jnode_get_int(node, "tp", TS_OPTIONAL, 1, 1 << 16, &p->tp, err)) ||
        (rc = ts_jnode_get_int(node, "pp", TS_OPTIONAL, 1, 1 << 16, &p->pp, err)) ||
        (rc = ts_jnode_get_int(node, "dp", TS_OPTIONAL, 1, 1 << 24, &p->dp, err)) ||
        (rc = ts_jnode_get_int(node, "cp", TS_OPTIONAL, 1, 1 << 16, &p->cp, err)) ||
        (rc = ts_jnode_get_int(node, "ep", TS_OPTIONAL, 1, 1 << 20, &p->ep, err)) ||
        (rc = ts_jnode_get_int(node, "etp", TS_OPTIONAL, 1, 1 << 16, &p->etp, err)) ||
        (rc = ts_jnode_get_int(node, "microbatch", TS_OPTIONAL, 1, 1 << 20, &p->microbatch, err)) ||
        (rc = ts_jnode_get_enum(node, "schedule", TS_OPTIONAL, ts_schedule_names, TS_SCHED_COUNT,
                                &sched, err)) ||
        (rc = ts_jnode_get_int(node, "virtual_stages", TS_OPTIONAL, 1, TS_VIRTUAL_MAX,
                               &p->virtual_stages, err)) ||
        (rc = ts_jnode_get_bool(node, "sequence_parallel", TS_OPTIONAL, &p->sequence_parallel,
                                err)) ||
        (rc = ts_jnode_get_int(node, "zero", TS_OPTIONAL, 0, 3, &p->zero, err)) ||
        (rc = ts_jnode_get_bool(node, "dp_overlap", TS_OPTIONAL, &p->dp_overlap, err)) ||
        (rc = ts_jnode_get_bool(node, "tp_comm_overlap", TS_OPTIONAL, &p->tp_comm_overlap, err)) ||
        (rc = ts_jnode_get_bool(node, "p2p_overlap", TS_OPTIONAL, &p->p2p_overlap, err)) ||
        (rc = ts_jnode_get_enum(node, "attention", TS_OPTIONAL, ts_attention_names, TS_ATTN_COUNT,
                                &attn, err)) ||
        (rc = ts_jnode_get_bool(node, "scatter_gather", TS_OPTIONAL, &p->scatter_gather, err)) ||
        (rc = ts_jnode_get_bool(node, "attention_unpad", TS_OPTIONAL, &p->attention_unpad, err)) ||
        (rc = ts_jnode_get_bool(node, "fsdp_fp8_allgather", TS_OPTIONAL, &p->fsdp_fp8_allgather,
                                err)) ||
        (rc = ts_jnode_get_enum(node, "eager_loss", TS_OPTIONAL, ts_eager_loss_names,
                                TS_EAGER_LOSS_COUNT, &eager_loss, err)) ||
        (rc = ts_jnode_get_int(node, "first_stage_layers", TS_OPTIONAL, 1, 100000,
                               &p->first_stage_layers, err)) ||
        (rc = ts_jnode_get_int(node, "last_stage_layers", TS_OPTIONAL, 1, 100000,
                               &p->last_stage_layers, err)) ||
        (rc = ts_jnode_get_quantity(node, "bucket_size", TS_OPTIONAL, TS_DIM_BYTES, 1e3, 1e13,
                                    &p->bucket_bytes, err)) ||
        (rc = ts_jnode_get_bool(node, "fp32_grads", TS_OPTIONAL, &p->fp32_grads, err)) ||
        (rc = ts_jnode_get_bool(node, "grad_accum_fusion", TS_OPTIONAL, &p->grad_accum_fusion, err)) ||
        (rc = ts_jnode_get_int(node, "zero_group", TS_OPTIONAL, 1, 1 << 24, &p->zero_group, err)) ||
        (rc = ts_jnode_get_int(node, "fsdp_unit_layers", TS_OPTIONAL, 1, 100000,
                               &p->fsdp_unit_layers, err)) ||
        (rc = ts_jnode_get_int(node, "fsdp_prefetch", TS_OPTIONAL, 0, TS_FSDP_PREFETCH_MAX,
                               &p->fsdp_prefetch, err)) ||
        (rc = ts_jnode_get_int(node, "offload_layers", TS_OPTIONAL, 0, 1 << 16,
                               &p->offload_layers, err)))
        return rc;
    /* FSDP's backward prefetch. BACKWARD_PRE and BACKWARD_POST both issue the next unit's
     * all-gather before the unit's reduce-scatter (torch/distributed/fsdp/_runtime_utils.py:
     * _post_backward_hook runs _post_backward_reshard, which prefetches, before _reduce_grad;
     * the CPU runs ahead of the GPU), so they time alike here; "none" queues it behind. */
    static const char *const bwd_prefetch_names[] = {"pre", "post", "none"};
    int bwd = p->fsdp_no_backward_prefetch ? 2 : 0;
    if ((rc = ts_jnode_get_enum(node, "fsdp_backward_prefetch", TS_OPTIONAL, bwd_prefetch_names, 3,
                                &bwd, err)))
        return rc;
    p->fsdp_no_backward_prefetch = bwd == 2;
    /* MoE token dispatch (overrides of the software profile's moe_dispatcher / moe_a2a_overlap,
     * sim/spec/software.c). */
    int disp = p->moe_dispatcher;
    if ((rc = ts_jnode_get_enum(node, "moe_dispatcher", TS_OPTIONAL, ts_moe_dispatcher_names,
                                TS_MOE_DISPATCHER_COUNT, &disp, err)) ||
        (rc = ts_jnode_get_bool(node, "moe_a2a_overlap", TS_OPTIONAL, &p->moe_a2a_overlap, err)))
        return rc;
    p->moe_dispatcher = (uint8_t)disp;
    /* Gradient-reduction dtype (overrides the software profile's grad_reduce_dtype). */
    static const char *const red_names[] = {"fp32", "bf16", "accumulation"};
    int red = p->grad_reduce_bytes == 4 ? 0 : p->grad_reduce_bytes == 2 ? 1 : 2;
    if ((rc = ts_jnode_get_enum(node, "grad_reduce_dtype", TS_OPTIONAL, red_names, 3, &red, err)))
        return rc;
    p->grad_reduce_bytes = red == 0 ? 4 : red == 1 ? 2 : 0;
    p->schedule = (enum ts_schedule)sched;
    if (ts_jnode_child(node, "recompute", &c) && (rc = ts_recompute_parse(&c, p, err)))
        return rc;
    p->attention = (enum ts_attention)attn;
    p->eager_loss = (uint8_t)eager_loss;
    if (!sg_given)
        p->scatter_gather = p->tp > 1;
    if (ts_jnode_child(node, "order", &c) && (rc = parse_order(&c, p->order, err)))
        return rc;
    return TS_OK;
}

/* ---------------------------------------------------------------- job */

static const char *const job_keys[] = {
    "name", "description", "model", "system", "gpus", "nodes", "global_batch", "precision",
    "parallel", "software", "training", "reliability", "cost", NULL,
};
static const char *const training_keys[] = {"tokens", NULL};

int ts_job_stage_layers(const struct ts_job *job, int stage)
{
    const struct ts_parallel *p = &job->parallel;
    int L = job->model.layers, pp = p->pp;
    if (pp == 1)
        return L;
    if (p->first_stage_layers == 0 && p->last_stage_layers == 0)
        return L / pp;
    int first = p->first_stage_layers, last = p->last_stage_layers;
    int middle_stages = pp - (first ? 1 : 0) - (last ? 1 : 0);
    int middle_layers = L - first - last;
    if (stage == 0 && first)
        return first;
    if (stage == pp - 1 && last)
        return last;
    return middle_stages > 0 ? middle_layers / middle_stages : 0;
}

/* Expert parallelism (Megatron-Core MoE parallel folding, megatron/core/transformer/moe/
 * README "MoE Parallel Folding"): the experts of a stage's ranks are laid out as etp x ep x
 * edp over the same tp x cp x dp ranks the attention uses, so ep x etp must divide
 * gpus / pp; ep splits the routed experts, etp each expert's FFN width. */
static int moe_validate(const struct ts_job *job, const char *file, struct ts_err *err)
{
    const struct ts_model *m = &job->model;
    const struct ts_parallel *p = &job->parallel;
    int ep = p->ep, etp = p->etp;
    if (!ts_model_is_moe(m)) {
        if (ep > 1 || etp > 1)
            return ts_err_at(err, file, ep > 1 ? "parallel.ep" : "parallel.etp",
                             "%d, but model %s has no experts (ep and etp apply to models with a "
                             "moe section; leave them out)", ep > 1 ? ep : etp, m->name);
        return TS_OK;
    }
    const struct ts_moe *e = &m->moe;
    if (e->experts % ep)
        return ts_err_at(err, file, "parallel.ep",
                         "%d does not divide experts (%d): every expert-parallel rank holds the "
                         "same number of experts", ep, e->experts);
    if (e->expert_ffn_hidden % etp)
        return ts_err_at(err, file, "parallel.etp", "%d does not divide expert_ffn_hidden (%d)",
                         etp, e->expert_ffn_hidden);
    long stage_ranks = (long)job->gpus / p->pp;
    if ((long)ep * etp > stage_ranks || stage_ranks % ((long)ep * etp))
        return ts_err_at(err, file, "parallel.ep",
                         "ep x etp = %d x %d = %ld does not divide the %ld GPUs of a pipeline "
                         "stage (gpus / pp); expert data parallelism edp = gpus / (ep etp pp) "
                         "must be whole", ep, etp, (long)ep * etp, stage_ranks);
    if (p->tp > 1 && !p->sequence_parallel)
        return ts_err_at(err, file, "parallel.sequence_parallel",
                         "MoE layers with tp %d need \"sequence_parallel\": true (Megatron-Core "
                         "requires sequence parallelism with MoE and tensor parallelism)", p->tp);
    if (e->shared_experts && ((long)e->shared_experts * e->shared_ffn_hidden) % p->tp)
        return ts_err_at(err, file, "parallel.tp",
                         "%d does not divide the shared experts' width (%d x %d)", p->tp,
                         e->shared_experts, e->shared_ffn_hidden);
    return TS_OK;
}

int ts_job_edp(const struct ts_job *job)
{
    const struct ts_parallel *p = &job->parallel;
    long d = (long)p->ep * p->etp * p->pp;
    return d > 0 ? (int)(job->gpus / d) : 1;
}

int ts_job_validate(const struct ts_job *job, const char *file, struct ts_err *err)
{
    const struct ts_model *m = &job->model;
    const struct ts_parallel *p = &job->parallel;
    const struct ts_accel *a = &job->system.accel;
    int tp = p->tp, pp = p->pp, cp = p->cp, dp = p->dp;
    int rc_attn;

    if (a->peak_flops[job->precision] <= 0)
        return ts_err_at(err, file, "precision", "\"%s\" is not supported by %s (its peak_flops has "
                         "no %s entry)", ts_precision_names[job->precision], a->name,
                         ts_precision_names[job->precision]);
    if (m->heads % tp)
        return ts_err_at(err, file, "parallel.tp", "%d does not divide heads (%d)", tp, m->heads);
    if (m->kv_heads % tp && tp % m->kv_heads)
        return ts_err_at(err, file, "parallel.tp",
                         "%d and kv_heads (%d) must divide one another (KV heads are split, or "
                         "replicated when fewer than tp)", tp, m->kv_heads);
    if (m->ffn_hidden % tp)
        return ts_err_at(err, file, "parallel.tp", "%d does not divide ffn_hidden (%d)", tp,
                         m->ffn_hidden);
    if (p->sequence_parallel && tp > 1 && m->seq_len % (tp * cp))
        return ts_err_at(err, file, "parallel.sequence_parallel",
                         "seq_len (%d) must divide by tp x cp (%d) for sequence parallelism",
                         m->seq_len, tp * cp);
    if ((rc_attn = ts_attention_check(p, a, file, err)))
        return rc_attn;
    if (cp > 1 && ts_attention_resolve(p, a->generation) == TS_ATTN_STANDARD)
        return ts_err_at(err, file, "parallel.cp",
                         "context parallelism needs \"attention\": \"flash\" (ring attention is "
                         "built on the fused kernel)");
    if (cp > 1 && m->seq_len % (2 * cp))
        return ts_err_at(err, file, "parallel.cp",
                         "seq_len (%d) must divide by 2 x cp (%d): causal context parallelism "
                         "splits the sequence into 2 cp balanced chunks", m->seq_len, 2 * cp);
    long model_ranks = (long)tp * cp * pp;
    if (model_ranks > job->gpus)
        return ts_err_at(err, file, "parallel", "tp x cp x pp = %ld exceeds gpus (%d)",
                         model_ranks, job->gpus);
    if ((long)dp * model_ranks != job->gpus)
        return ts_err_at(err, file, "parallel.dp",
                         "tp x cp x pp x dp = %d x %d x %d x %d = %ld, but the job has %d GPUs",
                         tp, cp, pp, dp, (long)dp * model_ranks, job->gpus);
    if (pp > m->layers)
        return ts_err_at(err, file, "parallel.pp", "%d exceeds layers (%d)", pp, m->layers);
    int rc_moe = moe_validate(job, file, err);
    if (rc_moe)
        return rc_moe;

    if (p->first_stage_layers || p->last_stage_layers) {
        if (pp == 1)
            return ts_err_at(err, file, "parallel.first_stage_layers",
                             "uneven stage sizes need pp > 1");
        int first = p->first_stage_layers, last = p->last_stage_layers;
        int middle_stages = pp - (first ? 1 : 0) - (last ? 1 : 0);
        int rest = m->layers - first - last;
        if (rest < 0 || (middle_stages == 0 && rest != 0) ||
            (middle_stages > 0 && (rest <= 0 || rest % middle_stages)))
            return ts_err_at(err, file, "parallel.first_stage_layers",
                             "first %d + last %d layers leave %d layers, which do not split evenly "
                             "over the other %d stages", first, last, rest, middle_stages);
    } else if (m->layers % pp) {
        return ts_err_at(err, file, "parallel.pp",
                         "%d does not divide layers (%d); choose another pp, or state an uneven "
                         "split with first_stage_layers / last_stage_layers", pp, m->layers);
    }

    if (p->offload_layers > 0) {
        /* Megatron-Core's own limits (megatron/core/transformer/transformer_config.py
         * __post_init__): fewer layers than the model has, no pipeline parallelism, no
         * recomputation. */
        if (p->offload_layers >= m->layers)
            return ts_err_at(err, file, "parallel.offload_layers",
                             "%d: offload fewer layers than the model has (%d), as Megatron-Core "
                             "requires", p->offload_layers, m->layers);
        if (pp > 1)
            return ts_err_at(err, file, "parallel.offload_layers",
                             "activation offload needs pp 1 (Megatron-Core has no activation "
                             "offload with pipeline parallelism); this job has pp %d", pp);
        if (p->recompute != TS_RECOMPUTE_NONE || p->recompute_policy.custom)
            return ts_err_at(err, file, "parallel.offload_layers",
                             "activation offload needs \"recompute\": \"none\" (Megatron-Core "
                             "does not offload with recomputation)");
        if (job->system.host_bandwidth <= 0)
            return ts_err_at(err, file, "parallel.offload_layers",
                             "system %s states no host_link (the GPU-host bandwidth the copies "
                             "run at): add \"host_link\": {\"bandwidth\": ...} to the system",
                             job->system.name);
    }

    int every = p->recompute_policy.custom ? p->recompute_policy.full_every : 0;
    for (int k = 0; every > 0 && k < pp; k++)
        if (every > ts_job_stage_layers(job, k))
            return ts_err_at(err, file, "parallel.recompute.full_every",
                             "%d exceeds the %d layers of stage %d, so no layer there would be "
                             "recomputed; give at most %d (or leave full_every out)", every,
                             ts_job_stage_layers(job, k), k, ts_job_stage_layers(job, k));

    if (p->zero_group) {
        long ranks = (long)dp * cp;
        if (p->zero < 1)
            return ts_err_at(err, file, "parallel.zero_group",
                             "%d shards nothing with zero 0; give zero 1-3 or drop zero_group",
                             p->zero_group);
        if (p->zero_group > ranks || ranks % p->zero_group)
            return ts_err_at(err, file, "parallel.zero_group",
                             "%d does not divide the dp x cp = %ld ranks that share the sharded "
                             "state", p->zero_group, ranks);
    }

    int v = p->virtual_stages;
    if (p->schedule == TS_SCHED_INTERLEAVED) {
        if (pp < 2)
            return ts_err_at(err, file, "parallel.schedule", "\"interleaved\" needs pp > 1");
        if (v < 2)
            return ts_err_at(err, file, "parallel.virtual_stages",
                             "%d; the interleaved schedule needs virtual_stages >= 2", v);
        bool uneven = p->first_stage_layers || p->last_stage_layers;
        if (!uneven && (m->layers / pp) % v)
            return ts_err_at(err, file, "parallel.virtual_stages",
                             "%d does not divide the %d layers per stage", v, m->layers / pp);
        /* Uneven stages split their layers over the chunks as evenly as they can (chunk
         * sizes differ by at most one); every chunk needs a layer. */
        for (int k = 0; uneven && k < pp; k++)
            if (ts_job_stage_layers(job, k) < v)
                return ts_err_at(err, file, "parallel.virtual_stages",
                                 "%d exceeds the %d layers of stage %d (every chunk needs a layer)",
                                 v, ts_job_stage_layers(job, k), k);
    } else if (v != 1) {
        return ts_err_at(err, file, "parallel.virtual_stages",
                         "%d needs \"schedule\": \"interleaved\"", v);
    }

    long per_step = (long)dp * p->microbatch;
    if (job->global_batch % per_step)
        return ts_err_at(err, file, "global_batch",
                         "%d is not divisible by dp x microbatch = %d x %d = %ld", job->global_batch,
                         dp, p->microbatch, per_step);
    long micro = job->global_batch / per_step;
    if (p->schedule == TS_SCHED_INTERLEAVED && micro % pp)
        return ts_err_at(err, file, "global_batch",
                         "the interleaved schedule needs the number of microbatches (%ld) to be a "
                         "multiple of pp (%d), as Megatron-LM requires", micro, pp);
    /* The iteration simulation's task storage is bounded before anything is allocated. */
    return ts_step_check_size(job, file, err);
}

/* Whether the caller named `key` in extra_keys, and so parses it itself. */
static bool caller_parses(const char *const extra_keys[], const char *key)
{
    for (int i = 0; extra_keys && extra_keys[i]; i++)
        if (strcmp(extra_keys[i], key) == 0)
            return true;
    return false;
}

int ts_job_parse(const struct ts_jnode *root, const char *const extra_keys[], struct ts_job *job,
                 struct ts_err *err)
{
    int rc;
    memset(job, 0, sizeof *job);
    const char *keys[32];
    int nk = 0;
    for (int i = 0; job_keys[i]; i++)
        keys[nk++] = job_keys[i];
    for (int i = 0; extra_keys && extra_keys[i] && nk < 31; i++)
        keys[nk++] = extra_keys[i];
    keys[nk] = NULL;
    if ((rc = ts_jnode_check_keys(root, keys, err)))
        return rc;

    /* Free text, not used by the simulation, but a typed input all the same. */
    if ((rc = ts_jnode_get_text(root, "name", TS_OPTIONAL, NULL, err)) ||
        (rc = ts_jnode_get_text(root, "description", TS_OPTIONAL, NULL, err)))
        return rc;

    struct ts_jnode c;
    if (!ts_jnode_child(root, "model", &c))
        return ts_err_at(err, root->file, c.path, "required key is missing (a model name, path or object)");
    if ((rc = ts_model_parse_ref(&c, &job->model, err)))
        return rc;
    if (!ts_jnode_child(root, "system", &c))
        return ts_err_at(err, root->file, c.path, "required key is missing (a system name, path or object)");
    if ((rc = ts_system_parse_ref(&c, &job->system, err)))
        return rc;

    int prec = TS_PREC_BF16;
    if ((rc = ts_jnode_get_int(root, "global_batch", TS_REQUIRED, 1, 1 << 26, &job->global_batch,
                               err)) ||
        (rc = ts_jnode_get_enum(root, "precision", TS_OPTIONAL, ts_precision_names, TS_PREC_COUNT,
                                &prec, err)))
        return rc;
    job->precision = (enum ts_precision)prec;

    int gpn = job->system.gpus_per_node;
    bool has_gpus = cJSON_GetObjectItemCaseSensitive(root->json, "gpus") != NULL;
    bool has_nodes = cJSON_GetObjectItemCaseSensitive(root->json, "nodes") != NULL;
    if (!has_gpus && !has_nodes)
        return ts_err_at(err, root->file, "gpus", "required key is missing (give gpus or nodes)");
    if ((rc = ts_jnode_get_int(root, "gpus", TS_OPTIONAL, 1, 1 << 24, &job->gpus, err)) ||
        (rc = ts_jnode_get_int(root, "nodes", TS_OPTIONAL, 1, 1 << 22, &job->nodes, err)))
        return rc;
    if (has_nodes) {
        long g = (long)job->nodes * gpn;
        if (has_gpus && g != job->gpus)
            return ts_err_at(err, root->file, "gpus", "%d disagrees with nodes x gpus_per_node = %d x %d",
                             job->gpus, job->nodes, gpn);
        if (g > (1 << 24))
            return ts_err_at(err, root->file, "nodes", "%d nodes is out of range", job->nodes);
        job->gpus = (int)g;
    } else {
        job->nodes = (job->gpus + gpn - 1) / gpn;
    }

    ts_parallel_defaults(&job->parallel);
    struct ts_parallel *p = &job->parallel;
    if (ts_jnode_child(root, "parallel", &c)) {
        if ((rc = ts_parallel_parse(&c, p, err)))
            return rc;
    } else {
        p->scatter_gather = p->tp > 1;  /* the documented default, as ts_parallel_parse sets it */
    }
    /* The software stack: its mechanisms, and the switches the job did not give. Without a
     * "software" key the job runs on megatron-core (the catalogue file when present, else
     * the same built-in mechanisms). */
    if (ts_jnode_child(root, "software", &c)) {
        if ((rc = ts_software_parse_ref(&c, &job->software, err)))
            return rc;
    } else {
        struct ts_err ignored;
        if (ts_software_load("megatron-core", &job->software, &ignored)) {
            ts_software_defaults(&job->software);
            ts_strlcpy(job->software.name, "megatron-core", sizeof job->software.name);
        }
    }
    ts_software_apply(&job->software, p);
    if (p->bucket_bytes == 0)
        p->bucket_bytes = 40e6 * (p->fp32_grads ? 4.0 : 2.0);   /* Megatron-LM bucket: 40M elements */
    long model_ranks = (long)p->tp * p->cp * p->pp;
    if (p->dp == 0) {
        if (model_ranks > job->gpus || job->gpus % model_ranks)
            return ts_err_at(err, root->file, "parallel",
                             "tp x cp x pp = %d x %d x %d = %ld does not divide gpus (%d)", p->tp,
                             p->cp, p->pp, model_ranks, job->gpus);
        p->dp = (int)(job->gpus / model_ranks);
    }
    if (p->tp == 1)
        p->sequence_parallel = false;   /* a no-op without TP, as Megatron-LM treats it */

    if (ts_jnode_child(root, "training", &c)) {
        if ((rc = ts_jnode_check_keys(&c, training_keys, err)) ||
            (rc = ts_jnode_get_quantity(&c, "tokens", TS_REQUIRED, TS_DIM_NUMBER, 1.0, 1e17,
                                        &job->training.tokens, err)))
            return rc;
        job->has_training = true;
    }
    /* Failures are always on (issue 13): without the key the job gets the default processes
     * of its accelerator's fleet; "reliability": "none" is the failure-free what-if. */
    if (!caller_parses(extra_keys, "reliability")) {
        ts_reliability_defaults(&job->reliability);
        if (ts_jnode_child(root, "reliability", &c) &&
            (rc = ts_reliability_parse(&c, &job->reliability, err)))
            return rc;
        ts_reliability_apply_defaults(&job->reliability, job->system.accel.generation);
        job->has_reliability = true;
    }
    if (!caller_parses(extra_keys, "cost") && ts_jnode_child(root, "cost", &c)) {
        ts_cost_config_defaults(&job->cost);
        if ((rc = ts_cost_config_parse(&c, &job->cost, err)))
            return rc;
        job->has_cost = true;
    }
    return ts_job_validate(job, root->file, err);
}

int ts_job_shard_ranks(const struct ts_job *job)
{
    const struct ts_parallel *p = &job->parallel;
    return p->zero_group ? p->zero_group : p->dp * p->cp;
}
