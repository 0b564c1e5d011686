/*
 * JSON access that carries the JSON path, so that every input error names file and path.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

/* ---------------------------------------------------------------- nodes and paths */

struct ts_jnode ts_jnode_root(const cJSON *json, const char *file)
{
    struct ts_jnode n;
    n.json = json;
    n.file = file;
    n.path[0] = '\0';
    n.inputs = NULL;
    return n;
}

static void path_join_key(char *out, size_t n, const char *parent, const char *key)
{
    if (parent[0])
        snprintf(out, n, "%s.%s", parent, key);
    else
        snprintf(out, n, "%s", key);
}

bool ts_jnode_child(const struct ts_jnode *obj, const char *key, struct ts_jnode *out)
{
    out->file = obj->file;
    out->inputs = obj->inputs;
    path_join_key(out->path, sizeof out->path, obj->path, key);
    out->json = cJSON_IsObject(obj->json) ? cJSON_GetObjectItemCaseSensitive(obj->json, key) : NULL;
    return out->json != NULL;
}

struct ts_jnode ts_jnode_item(const struct ts_jnode *arr, int index)
{
    struct ts_jnode n;
    n.file = arr->file;
    n.inputs = arr->inputs;
    snprintf(n.path, sizeof n.path, "%s[%d]", arr->path, index);
    n.json = cJSON_GetArrayItem(arr->json, index);
    return n;
}

void ts_jnode_describe(const cJSON *json, char *buf, size_t n)
{
    if (!json)
        snprintf(buf, n, "nothing");
    else if (cJSON_IsNumber(json)) {
        char num[64];
        ts_json_format_double(json->valuedouble, num, sizeof num);
        snprintf(buf, n, "%s", num);
    } else if (cJSON_IsString(json)) {
        const char *s = json->valuestring;
        if (strlen(s) > 60)
            snprintf(buf, n, "\"%.57s...\"", s);
        else
            snprintf(buf, n, "\"%s\"", s);
    } else if (cJSON_IsBool(json))
        snprintf(buf, n, "%s", cJSON_IsTrue(json) ? "true" : "false");
    else if (cJSON_IsNull(json))
        snprintf(buf, n, "null");
    else if (cJSON_IsArray(json))
        snprintf(buf, n, "an array");
    else if (cJSON_IsObject(json))
        snprintf(buf, n, "an object");
    else
        snprintf(buf, n, "an invalid value");
}

int ts_jnode_expect_object(const struct ts_jnode *node, struct ts_err *err)
{
    if (cJSON_IsObject(node->json))
        return TS_OK;
    char d[96];
    ts_jnode_describe(node->json, d, sizeof d);
    return ts_err_at(err, node->file, node->path, "expected an object, got %s", d);
}

int ts_jnode_expect_array(const struct ts_jnode *node, struct ts_err *err)
{
    if (cJSON_IsArray(node->json))
        return TS_OK;
    char d[96];
    ts_jnode_describe(node->json, d, sizeof d);
    return ts_err_at(err, node->file, node->path, "expected an array, got %s", d);
}

int ts_jnode_check_keys(const struct ts_jnode *obj, const char *const allowed[], struct ts_err *err)
{
    int rc = ts_jnode_expect_object(obj, err);
    if (rc)
        return rc;
    for (const cJSON *c = obj->json->child; c; c = c->next) {
        const char *key = c->string ? c->string : "";
        for (const cJSON *d = obj->json->child; d != c; d = d->next)
            if (d->string && strcmp(d->string, key) == 0) {
                char p[TS_PATH_MAX];
                path_join_key(p, sizeof p, obj->path, key);
                return ts_err_at(err, obj->file, p, "key appears twice");
            }
        bool ok = false;
        for (int i = 0; allowed[i]; i++)
            if (strcmp(allowed[i], key) == 0) {
                ok = true;
                break;
            }
        if (!ok) {
            char list[512] = "";
            size_t used = 0;
            for (int i = 0; allowed[i] && used + 1 < sizeof list; i++) {
                int w = snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", allowed[i]);
                if (w < 0)
                    break;
                used += (size_t)w;
            }
            char p[TS_PATH_MAX];
            path_join_key(p, sizeof p, obj->path, key);
            return ts_err_at(err, obj->file, p, "unknown key (allowed here: %s)", list);
        }
    }
    return TS_OK;
}

/* ---------------------------------------------------------------- typed getters */

int ts_jnode_to_quantity(const struct ts_jnode *node, enum ts_dim dim, double lo, double hi,
                         double *out, struct ts_err *err)
{
    double v;
    char d[96];
    if (cJSON_IsNumber(node->json)) {
        v = node->json->valuedouble;
    } else if (cJSON_IsString(node->json)) {
        struct ts_err inner;
        if (ts_quantity_parse(node->json->valuestring, dim, &v, &inner))
            return ts_err_at(err, node->file, node->path, "%s", inner.msg);
    } else {
        ts_jnode_describe(node->json, d, sizeof d);
        return ts_err_at(err, node->file, node->path, "expected %s, got %s", ts_dim_describe(dim), d);
    }
    if (!isfinite(v)) {
        ts_jnode_describe(node->json, d, sizeof d);
        return ts_err_at(err, node->file, node->path, "%s is not a finite number", d);
    }
    if (v < lo || v > hi) {
        char a[48], b[48];
        ts_jnode_describe(node->json, d, sizeof d);
        ts_quantity_format(lo, dim, a, sizeof a);
        ts_quantity_format(hi, dim, b, sizeof b);
        if (v < lo && lo == 0.0)
            return ts_err_at(err, node->file, node->path, "%s must not be negative", d);
        return ts_err_at(err, node->file, node->path, "%s is out of range (allowed %s to %s)", d, a, b);
    }
    *out = v;
    return TS_OK;
}

int ts_jnode_to_long(const struct ts_jnode *node, long lo, long hi, long *out, struct ts_err *err)
{
    double v;
    int rc = ts_jnode_to_quantity(node, TS_DIM_NUMBER, (double)lo, (double)hi, &v, err);
    if (rc)
        return rc;
    if (v != floor(v)) {
        char d[96];
        ts_jnode_describe(node->json, d, sizeof d);
        return ts_err_at(err, node->file, node->path, "%s must be a whole number", d);
    }
    *out = (long)v;
    return TS_OK;
}

static int missing(const struct ts_jnode *obj, const char *key, struct ts_err *err)
{
    char p[TS_PATH_MAX];
    path_join_key(p, sizeof p, obj->path, key);
    return ts_err_at(err, obj->file, p, "required key is missing");
}

int ts_jnode_get_long(const struct ts_jnode *obj, const char *key, enum ts_need need, long lo,
                      long hi, long *out, struct ts_err *err)
{
    struct ts_jnode c;
    if (!ts_jnode_child(obj, key, &c))
        return need == TS_REQUIRED ? missing(obj, key, err) : TS_OK;
    return ts_jnode_to_long(&c, lo, hi, out, err);
}

int ts_jnode_get_int(const struct ts_jnode *obj, const char *key, enum ts_need need, int lo,
                     int hi, int *out, struct ts_err *err)
{
    long v = *out;
    int rc = ts_jnode_get_long(obj, key, need, lo, hi, &v, err);
    if (rc == TS_OK)
        *out = (int)v;
    return rc;
}

int ts_jnode_get_quantity(const struct ts_jnode *obj, const char *key, enum ts_need need,
                          enum ts_dim dim, double lo, double hi, double *out, struct ts_err *err)
{
    struct ts_jnode c;
    if (!ts_jnode_child(obj, key, &c))
        return need == TS_REQUIRED ? missing(obj, key, err) : TS_OK;
    return ts_jnode_to_quantity(&c, dim, lo, hi, out, err);
}

int ts_jnode_get_bool(const struct ts_jnode *obj, const char *key, enum ts_need need, bool *out,
                      struct ts_err *err)
{
    struct ts_jnode c;
    if (!ts_jnode_child(obj, key, &c))
        return need == TS_REQUIRED ? missing(obj, key, err) : TS_OK;
    if (!cJSON_IsBool(c.json)) {
        char d[96];
        ts_jnode_describe(c.json, d, sizeof d);
        return ts_err_at(err, c.file, c.path, "expected true or false, got %s", d);
    }
    *out = cJSON_IsTrue(c.json);
    return TS_OK;
}

int ts_jnode_get_string(const struct ts_jnode *obj, const char *key, enum ts_need need, char *buf,
                        size_t n, struct ts_err *err)
{
    struct ts_jnode c;
    if (!ts_jnode_child(obj, key, &c))
        return need == TS_REQUIRED ? missing(obj, key, err) : TS_OK;
    if (!cJSON_IsString(c.json)) {
        char d[96];
        ts_jnode_describe(c.json, d, sizeof d);
        return ts_err_at(err, c.file, c.path, "expected a string, got %s", d);
    }
    if (strlen(c.json->valuestring) >= n)
        return ts_err_at(err, c.file, c.path, "string is too long (at most %zu characters)", n - 1);
    ts_strlcpy(buf, c.json->valuestring, n);
    return TS_OK;
}

int ts_jnode_get_enum(const struct ts_jnode *obj, const char *key, enum ts_need need,
                      const char *const names[], int count, int *out, struct ts_err *err)
{
    struct ts_jnode c;
    if (!ts_jnode_child(obj, key, &c))
        return need == TS_REQUIRED ? missing(obj, key, err) : TS_OK;
    if (cJSON_IsString(c.json))
        for (int i = 0; i < count; i++)
            if (names[i] && strcmp(names[i], c.json->valuestring) == 0) {
                *out = i;
                return TS_OK;
            }
    char d[96], list[256] = "";
    size_t used = 0;
    for (int i = 0; i < count; i++) {
        if (!names[i])
            continue;
        int w = snprintf(list + used, sizeof list - used, "%s\"%s\"", used ? " | " : "", names[i]);
        if (w < 0 || (size_t)w >= sizeof list - used)
            break;
        used += (size_t)w;
    }
    ts_jnode_describe(c.json, d, sizeof d);
    return ts_err_at(err, c.file, c.path, "%s is not one of %s", d, list);
}

/* ---------------------------------------------------------------- documents */

int ts_json_load(const char *file, cJSON **out, struct ts_err *err)
{
    char *text;
    size_t len;
    int rc = ts_file_read(file, &text, &len, err);
    if (rc)
        return rc;
    if (strlen(text) != len) {
        free(text);
        return ts_err_at(err, file, "", "file contains a NUL byte; not a JSON text");
    }
    const char *end = NULL;
    /* The length includes the NUL: with require_null_terminated, cJSON looks for it inside
     * the buffer and would reject every document otherwise. */
    cJSON *doc = cJSON_ParseWithLengthOpts(text, len + 1, &end, 1);
    if (!doc) {
        size_t off = end && end >= text && end <= text + len ? (size_t)(end - text) : 0;
        int line = 1, col = 1;
        for (size_t i = 0; i < off; i++) {
            if (text[i] == '\n') {
                line++;
                col = 1;
            } else
                col++;
        }
        free(text);
        return ts_err_at(err, file, "", "malformed JSON at line %d, column %d", line, col);
    }
    free(text);
    *out = doc;
    return TS_OK;
}

void ts_json_format_double(double v, char *buf, size_t n)
{
    if (!isfinite(v)) {
        snprintf(buf, n, "null");
        return;
    }
    if (v == floor(v) && fabs(v) < 9007199254740992.0) {
        snprintf(buf, n, "%.0f", v);
        return;
    }
    /* Shortest of %.15g / %.17g that round-trips. */
    snprintf(buf, n, "%.15g", v);
    if (strtod(buf, NULL) != v)
        snprintf(buf, n, "%.17g", v);
}
