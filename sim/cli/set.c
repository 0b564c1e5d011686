/*
 * `--set PATH=VALUE`: what-ifs without editing files. Each override replaces (or adds) one key
 * of the input document, by JSON path, before the document is parsed, so the value meets the
 * same validation as the file's own and a bad one gets the same message (with the --set named).
 *
 * PATH is the path trainsim's messages print: keys joined by '.', array elements as [N]
 * ("parallel.tp", "cost.gpu_hour.spot", "reliability.failures[0].mtbf", "systems[1]").
 * Missing objects on the way are created; [N] may name an element or, with N the array's
 * length, append one. A catalogue reference on the way ("model": "gpt3-175b",
 * "system": ..., "software": ..., an element of "systems") is replaced by the content of the
 * file it names, so `--set model.layers=48` changes one key of a catalogue model.
 * VALUE is JSON when it parses as JSON (4, 2.5, true, "text", {"tp": 2}, [1, 2]), otherwise the
 * text itself as a string (--set system=dgx-h100, --set 'training.tokens=300B').
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "spec/spec.h"

int ts_cli_sets_add(struct ts_cli_sets *s, const char *cmd, const char *arg)
{
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg) {
        fprintf(stderr, "trainsim %s: --set %s: expected PATH=VALUE, e.g. --set parallel.tp=4\n",
                cmd, arg);
        return -1;
    }
    if ((size_t)(eq - arg) >= TS_PATH_MAX) {
        fprintf(stderr, "trainsim %s: --set %s: the path is longer than %d characters\n", cmd,
                arg, TS_PATH_MAX - 1);
        return -1;
    }
    if (s->n >= TS_CLI_SETS_MAX) {
        fprintf(stderr, "trainsim %s: --set %s: at most %d --set options\n", cmd, arg,
                TS_CLI_SETS_MAX);
        return -1;
    }
    s->arg[s->n++] = arg;
    return 0;
}

/* The path part of a --set argument, into buf (TS_PATH_MAX). */
static void set_path(const char *arg, char *buf)
{
    size_t n = (size_t)(strchr(arg, '=') - arg);
    memcpy(buf, arg, n);
    buf[n] = '\0';
}

const char *ts_cli_sets_find(const struct ts_cli_sets *s, const char *path)
{
    for (int i = s ? s->n - 1 : -1; i >= 0; i--) {
        char p[TS_PATH_MAX];
        set_path(s->arg[i], p);
        if (strcmp(p, path) == 0)
            return s->arg[i];
    }
    return NULL;
}

/* Whether `outer` is `inner` or a path above it ("cost" above "cost.gpu_hour.spot"). */
static bool path_contains(const char *outer, const char *inner)
{
    size_t n = strlen(outer);
    return strncmp(outer, inner, n) == 0 && (inner[n] == '\0' || inner[n] == '.' || inner[n] == '[');
}

void ts_cli_sets_note(const struct ts_cli_sets *s, const char *file, struct ts_err *err)
{
    if (!s || s->n == 0 || err->status != TS_ERR_INPUT || !file)
        return;
    /* The message is "FILE: PATH: what"; PATH is the node the parser complained about. */
    size_t fl = strlen(file);
    if (strncmp(err->msg, file, fl) != 0 || strncmp(err->msg + fl, ": ", 2) != 0)
        return;
    const char *p = err->msg + fl + 2;
    const char *end = strstr(p, ": ");
    if (!end || (size_t)(end - p) >= TS_PATH_MAX)
        return;
    char where[TS_PATH_MAX];
    memcpy(where, p, (size_t)(end - p));
    where[end - p] = '\0';
    /* The latest --set at that node, else one below it (an unknown key it added), else one
     * above it (an object it replaced). */
    const char *hit = ts_cli_sets_find(s, where);
    for (int pass = 0; pass < 2 && !hit; pass++)
        for (int i = s->n - 1; i >= 0 && !hit; i--) {
            char sp[TS_PATH_MAX];
            set_path(s->arg[i], sp);
            if (pass == 0 ? path_contains(where, sp) : path_contains(sp, where))
                hit = s->arg[i];
        }
    if (!hit)
        return;
    size_t used = strlen(err->msg);
    snprintf(err->msg + used, sizeof err->msg - used, " (from --set %s)", hit);
}

/* ---------------------------------------------------------------- applying one override */

/* One step of a path: a key, or an array index. */
struct step {
    bool is_index;
    long index;
    char key[TS_PATH_MAX];
};

#define STEPS_MAX 32

/* Split "a.b[2].c" into steps. Returns the count, or -1 when malformed (why in *why). */
static int split_path(const char *path, struct step *steps, const char **why)
{
    int n = 0;
    const char *p = path;
    bool need_key = true;   /* at the start and after '.' a key must follow */
    while (*p) {
        if (n >= STEPS_MAX) {
            *why = "more than 32 steps";
            return -1;
        }
        if (*p == '[') {
            if (n == 0) {
                *why = "starts with an index (the document is an object: start with a key)";
                return -1;
            }
            char *end;
            if (!isdigit((unsigned char)p[1])) {
                *why = "an index is a whole number in brackets, e.g. failures[0]";
                return -1;
            }
            long v = strtol(p + 1, &end, 10);
            if (*end != ']' || v > 1000000) {
                *why = "an index is a whole number in brackets, e.g. failures[0]";
                return -1;
            }
            steps[n].is_index = true;
            steps[n].index = v;
            n++;
            p = end + 1;
            need_key = false;
            if (*p && *p != '.' && *p != '[') {
                *why = "expected '.' or '[' after an index";
                return -1;
            }
            continue;
        }
        if (*p == '.') {
            if (need_key) {
                *why = "an empty key (two dots, or a dot at the start)";
                return -1;
            }
            p++;
            need_key = true;
            if (!*p) {
                *why = "ends with a dot";
                return -1;
            }
            continue;
        }
        size_t len = strcspn(p, ".[");
        if (!need_key) {
            *why = "expected '.' before a key";
            return -1;
        }
        memcpy(steps[n].key, p, len);
        steps[n].key[len] = '\0';
        steps[n].is_index = false;
        n++;
        p += len;
        need_key = false;
    }
    if (n == 0)
        *why = "the path is empty";
    return n ? n : -1;
}

/* The catalogue a string at this place of a document refers to (-1: none): "model",
 * "system" and "software" at the top, elements of "systems" and "software" lists. */
static int ref_catalog(const struct step *steps, int i)
{
    if (i == 0 && !steps[0].is_index) {
        if (strcmp(steps[0].key, "model") == 0)
            return TS_CAT_MODEL;
        if (strcmp(steps[0].key, "system") == 0)
            return TS_CAT_SYSTEM;
        if (strcmp(steps[0].key, "software") == 0)
            return TS_CAT_SOFTWARE;
    }
    if (i == 1 && steps[1].is_index) {
        if (strcmp(steps[0].key, "systems") == 0)
            return TS_CAT_SYSTEM;
        if (strcmp(steps[0].key, "software") == 0)
            return TS_CAT_SOFTWARE;
    }
    return -1;
}

/* The path of steps[0..n-1] as text. */
static void steps_text(const struct step *steps, int n, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && used < size; i++) {
        int w = steps[i].is_index ? snprintf(buf + used, size - used, "[%ld]", steps[i].index)
                                  : snprintf(buf + used, size - used, "%s%s", i ? "." : "",
                                             steps[i].key);
        if (w < 0)
            break;
        used += (size_t)w;
    }
}

static void describe_kind(const cJSON *j, char *buf, size_t n)
{
    char d[96];
    ts_jnode_describe(j, d, sizeof d);
    snprintf(buf, n, "%s", d);
}

/* Replace the reference string *slot (in parent) by the document it names. */
static int inline_ref(cJSON *parent, cJSON *slot, const struct step *st, int cat,
                      const char *file, cJSON **out, struct ts_err *err)
{
    char path[2048];
    struct ts_err inner;
    if (ts_spec_resolve((enum ts_catalog)cat, slot->valuestring, file, path, sizeof path, &inner))
        return ts_err_set(err, TS_ERR_INPUT, "%s", inner.msg);
    cJSON *doc;
    int rc = ts_json_load(path, &doc, err);
    if (rc)
        return rc;
    if (st->is_index)
        cJSON_ReplaceItemInArray(parent, (int)st->index, doc);
    else
        cJSON_ReplaceItemInObjectCaseSensitive(parent, st->key, doc);
    *out = doc;
    return TS_OK;
}

/* Apply one "PATH=VALUE" to doc. Errors name the --set (the caller prefixes the file). */
static int apply_one(cJSON *doc, const char *arg, const char *file, struct ts_err *err)
{
    char path[TS_PATH_MAX];
    set_path(arg, path);
    const char *text = strchr(arg, '=') + 1;
    struct step steps[STEPS_MAX];
    const char *why = "";
    int n = split_path(path, steps, &why);
    if (n < 0)
        return ts_err_set(err, TS_ERR_INPUT, "--set %s: %s: %s (paths look like parallel.tp, "
                          "cost.gpu_hour.spot or reliability.failures[0].mtbf)", arg, path, why);
    cJSON *value;
    struct ts_err ignored;
    if (ts_json_parse(text, strlen(text), "--set", &value, &ignored) != TS_OK)
        value = cJSON_CreateString(text);
    if (!value)
        return ts_err_set(err, TS_ERR_RUNTIME, "out of memory");

    cJSON *cur = doc;
    for (int i = 0; i < n; i++) {
        char at[TS_PATH_MAX], kind[96];
        steps_text(steps, i, at, sizeof at);
        const struct step *st = &steps[i];
        bool last = i == n - 1;
        if (st->is_index) {
            if (!cJSON_IsArray(cur)) {
                describe_kind(cur, kind, sizeof kind);
                cJSON_Delete(value);
                return ts_err_set(err, TS_ERR_INPUT, "--set %s: %s: %s is not a list, so it has "
                                  "no element [%ld]", arg, at, kind, st->index);
            }
            long size = cJSON_GetArraySize(cur);
            if (st->index > size) {
                cJSON_Delete(value);
                return ts_err_set(err, TS_ERR_INPUT, "--set %s: %s: the list has %ld element%s: "
                                  "[%ld] is out of range (give [0] to [%ld], or [%ld] to append)",
                                  arg, at, size, size == 1 ? "" : "s", st->index,
                                  size ? size - 1 : 0, size);
            }
            if (last) {
                if (st->index == size)
                    cJSON_AddItemToArray(cur, value);
                else
                    cJSON_ReplaceItemInArray(cur, (int)st->index, value);
                return TS_OK;
            }
            cJSON *next = st->index < size ? cJSON_GetArrayItem(cur, (int)st->index) : NULL;
            if (!next) {
                next = steps[i + 1].is_index ? cJSON_CreateArray() : cJSON_CreateObject();
                cJSON_AddItemToArray(cur, next);
            }
            int cat = ref_catalog(steps, i);
            if (cJSON_IsString(next) && cat >= 0) {
                struct ts_err e;
                int rc = inline_ref(cur, next, st, cat, file, &next, &e);
                if (rc) {
                    cJSON_Delete(value);
                    return ts_err_set(err, rc, "--set %s: %s: %s", arg, path, e.msg);
                }
            }
            cur = next;
            continue;
        }
        if (!cJSON_IsObject(cur)) {
            describe_kind(cur, kind, sizeof kind);
            cJSON_Delete(value);
            return ts_err_set(err, TS_ERR_INPUT, "--set %s: %s: %s is not an object, so it has "
                              "no key \"%s\" (replace the whole value: --set %s=...)", arg, at,
                              kind, st->key, at);
        }
        cJSON *next = cJSON_GetObjectItemCaseSensitive(cur, st->key);
        if (last) {
            if (next)
                cJSON_ReplaceItemInObjectCaseSensitive(cur, st->key, value);
            else
                cJSON_AddItemToObject(cur, st->key, value);
            return TS_OK;
        }
        if (!next) {
            next = steps[i + 1].is_index ? cJSON_CreateArray() : cJSON_CreateObject();
            cJSON_AddItemToObject(cur, st->key, next);
        }
        int cat = ref_catalog(steps, i);
        if (cJSON_IsString(next) && cat >= 0) {
            struct ts_err e;
            int rc = inline_ref(cur, next, st, cat, file, &next, &e);
            if (rc) {
                cJSON_Delete(value);
                return ts_err_set(err, rc, "--set %s: %s: %s", arg, path, e.msg);
            }
        }
        cur = next;
    }
    cJSON_Delete(value);
    return TS_OK;
}

int ts_cli_sets_apply(const struct ts_cli_sets *s, cJSON *doc, const char *file,
                      struct ts_err *err)
{
    if (!s || s->n == 0)
        return TS_OK;
    if (!cJSON_IsObject(doc))
        return ts_err_set(err, TS_ERR_INPUT, "%s: --set %s: the document is not an object", file,
                          s->arg[0]);
    for (int i = 0; i < s->n; i++) {
        struct ts_err e;
        ts_err_clear(&e);
        int rc = apply_one(doc, s->arg[i], file, &e);
        if (rc)
            return ts_err_set(err, rc, "%s: %s", file, e.msg);
    }
    return TS_OK;
}

int ts_cli_doc_load(const char *file, const struct ts_cli_sets *s, cJSON **doc,
                    struct ts_err *err)
{
    int rc = ts_json_load(file, doc, err);
    if (rc)
        return rc;
    if ((rc = ts_cli_sets_apply(s, *doc, file, err))) {
        cJSON_Delete(*doc);
        *doc = NULL;
    }
    return rc;
}
