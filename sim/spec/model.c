/*
 * Model files: the architecture of a decoder-only transformer.
 */
#include <stdlib.h>
#include <string.h>

#include "spec/spec.h"
#include "spec/spec_internal.h"

static const char *const model_keys[] = {
    "name", "layers", "hidden", "heads", "kv_heads", "head_dim", "ffn_hidden", "ffn", "vocab",
    "seq_len", "tied_embeddings", "bias", "dropout", "position_embedding", "source", "notes", NULL,
};

int ts_model_parse(const struct ts_jnode *node, struct ts_model *m, struct ts_err *err)
{
    int rc;
    memset(m, 0, sizeof *m);
    if ((rc = ts_jnode_check_keys(node, model_keys, err)))
        return rc;
    int ffn = TS_FFN_GELU;
    if ((rc = ts_jnode_get_string(node, "name", TS_REQUIRED, m->name, sizeof m->name, err)) ||
        (rc = ts_jnode_get_int(node, "layers", TS_REQUIRED, 1, 100000, &m->layers, err)) ||
        (rc = ts_jnode_get_int(node, "hidden", TS_REQUIRED, 1, 1 << 22, &m->hidden, err)) ||
        (rc = ts_jnode_get_int(node, "heads", TS_REQUIRED, 1, 1 << 20, &m->heads, err)) ||
        (rc = ts_jnode_get_enum(node, "ffn", TS_OPTIONAL, ts_ffn_names, TS_FFN_COUNT, &ffn, err)) ||
        (rc = ts_jnode_get_int(node, "vocab", TS_REQUIRED, 1, 1 << 28, &m->vocab, err)) ||
        (rc = ts_jnode_get_int(node, "seq_len", TS_REQUIRED, 1, 1 << 26, &m->seq_len, err)))
        return rc;
    m->ffn = (enum ts_ffn)ffn;
    m->kv_heads = m->heads;
    m->ffn_hidden = 4 * m->hidden;
    m->bias = m->ffn == TS_FFN_GELU;
    m->head_dim = 0;
    static const char *const pos_names[] = {"learned", "rope"};
    int pos = m->ffn == TS_FFN_GELU ? 0 : 1;
    if ((rc = ts_jnode_get_enum(node, "position_embedding", TS_OPTIONAL, pos_names, 2, &pos, err)))
        return rc;
    m->learned_positions = pos == 0;
    if ((rc = ts_jnode_get_int(node, "kv_heads", TS_OPTIONAL, 1, m->heads, &m->kv_heads, err)) ||
        (rc = ts_jnode_get_int(node, "head_dim", TS_OPTIONAL, 1, 1 << 16, &m->head_dim, err)) ||
        (rc = ts_jnode_get_int(node, "ffn_hidden", TS_OPTIONAL, 1, 1 << 24, &m->ffn_hidden, err)) ||
        (rc = ts_jnode_get_bool(node, "tied_embeddings", TS_OPTIONAL, &m->tied_embeddings, err)) ||
        (rc = ts_jnode_get_bool(node, "bias", TS_OPTIONAL, &m->bias, err)) ||
        (rc = ts_jnode_get_quantity(node, "dropout", TS_OPTIONAL, TS_DIM_NUMBER, 0.0, 0.99,
                                    &m->dropout, err)) ||
        (rc = ts_jnode_get_string(node, "source", TS_OPTIONAL, m->source, sizeof m->source, err)) ||
        (rc = ts_jnode_get_text(node, "notes", TS_OPTIONAL, NULL, err)))
        return rc;
    struct ts_jnode c;
    if (m->head_dim == 0) {
        if (m->hidden % m->heads != 0) {
            ts_jnode_child(node, "heads", &c);
            return ts_err_at(err, c.file, c.path,
                             "%d does not divide hidden (%d); give head_dim explicitly", m->heads,
                             m->hidden);
        }
        m->head_dim = m->hidden / m->heads;
    }
    if (m->heads % m->kv_heads != 0) {
        ts_jnode_child(node, "kv_heads", &c);
        return ts_err_at(err, c.file, c.path, "%d does not divide heads (%d)", m->kv_heads,
                         m->heads);
    }
    return TS_OK;
}

static int parse_model_any(const struct ts_jnode *n, void *out, struct ts_err *err)
{
    return ts_model_parse(n, out, err);
}

int ts_model_load(const char *ref, struct ts_model *out, struct ts_err *err)
{
    return ts__spec_load_ref(TS_CAT_MODEL, ref, parse_model_any, out, err);
}

int ts_model_parse_ref(const struct ts_jnode *node, struct ts_model *out, struct ts_err *err)
{
    return ts__spec_parse_ref(node, TS_CAT_MODEL, parse_model_any, out, err);
}
