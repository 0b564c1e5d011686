/*
 * Resolution of catalogue references: a name, a path, or an inline object.
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "spec/spec.h"
#include "spec/spec_internal.h"

static const char *const cat_dirs[TS_CAT_COUNT] = {"models", "hardware/accelerators",
                                                   "hardware/systems", "configs/prices",
                                                   "configs/software", "hardware/attention"};
static const char *const cat_what[TS_CAT_COUNT] = {"model", "accelerator", "system",
                                                   "price", "software profile",
                                                   "attention kernel"};

/* Whether dir holds a catalogue (its models/ directory). */
static bool is_catalogue(const char *dir)
{
    char p[4096];
    struct stat st;
    int w = snprintf(p, sizeof p, "%s/models", dir);
    return w > 0 && (size_t)w < sizeof p && stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The catalogue of an installed binary: PREFIX/share/trainsim when the running executable is
 * PREFIX/bin/trainsim (found from /proc/self/exe), else "". */
static void beside_binary(char *out, size_t n)
{
    out[0] = '\0';
    char exe[4096];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len <= 0)
        return;
    exe[len] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash)
        return;
    *slash = '\0';                                  /* the binary's directory */
    size_t dl = strlen(exe), bl = strlen(TS_INSTALL_BINDIR);
    if (dl <= bl || strcmp(exe + dl - bl, TS_INSTALL_BINDIR) != 0 || exe[dl - bl - 1] != '/')
        return;
    exe[dl - bl - 1] = '\0';                        /* the prefix */
    int w = snprintf(out, n, "%s/%s", exe, TS_INSTALL_DATADIR);
    if (w < 0 || (size_t)w >= n || !is_catalogue(out))
        out[0] = '\0';
}

const char *ts_spec_home(void)
{
    const char *h = getenv("TRAINSIM_HOME");
    if (h && h[0])
        return h;
    static char home[4096];
    static int found;   /* 0 not yet looked, 1 looked */
#pragma omp critical(ts_spec_home)
    if (!found) {
        beside_binary(home, sizeof home);
        if (!home[0]) {
            if (is_catalogue(TS_SOURCE_DIR) || !is_catalogue(TS_INSTALL_PREFIX "/" TS_INSTALL_DATADIR))
                snprintf(home, sizeof home, "%s", TS_SOURCE_DIR);
            else
                snprintf(home, sizeof home, "%s", TS_INSTALL_PREFIX "/" TS_INSTALL_DATADIR);
        }
        found = 1;
    }
    return home;
}

/* Whether something is at `path`. Not only regular files: a directory, a FIFO or a device
 * there is then refused by ts_file_read with a message that says what it is, instead of
 * "not found". */
static bool path_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static bool looks_like_path(const char *ref)
{
    size_t n = strlen(ref);
    return strchr(ref, '/') != NULL || (n > 5 && strcmp(ref + n - 5, ".json") == 0);
}

static bool valid_name(const char *ref)
{
    if (!ref[0])
        return false;
    for (const char *p = ref; *p; p++) {
        char c = *p;
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '-' || c == '_' || c == '.'))
            return false;
    }
    return ref[0] != '.';
}

bool ts_spec_name_valid(const char *name)
{
    return valid_name(name);
}

/* List up to a few catalogue names into buf, for "not found" messages. */
static void list_names(const char *dir, char *buf, size_t n)
{
    buf[0] = '\0';
    DIR *d = opendir(dir);
    if (!d)
        return;
    char names[64][TS_NAME_MAX];
    int count = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && count < 64) {
        size_t len = strlen(e->d_name);
        if (len > 5 && len - 5 < TS_NAME_MAX && strcmp(e->d_name + len - 5, ".json") == 0) {
            memcpy(names[count], e->d_name, len - 5);
            names[count][len - 5] = '\0';
            count++;
        }
    }
    closedir(d);
    /* Sorted, so the message is the same on every file system. */
    for (int i = 1; i < count; i++)
        for (int j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
            char t[TS_NAME_MAX];
            memcpy(t, names[j], sizeof t);
            memcpy(names[j], names[j - 1], sizeof t);
            memcpy(names[j - 1], t, sizeof t);
        }
    size_t used = 0;
    for (int i = 0; i < count; i++) {
        int w = snprintf(buf + used, n - used, "%s%s", i ? ", " : "", names[i]);
        if (w < 0 || (size_t)w >= n - used) {
            buf[used] = '\0';
            break;
        }
        used += (size_t)w;
    }
}

int ts_spec_resolve_path(const char *ref, const char *from_file, char *out, size_t n)
{
    if (ref[0] != '/' && from_file) {
        const char *slash = strrchr(from_file, '/');
        if (slash) {
            int w = snprintf(out, n, "%.*s/%s", (int)(slash - from_file), from_file, ref);
            if (w > 0 && (size_t)w < n && path_exists(out))
                return TS_OK;
        }
    }
    if (ref[0] && path_exists(ref) && strlen(ref) < n) {
        ts_strlcpy(out, ref, n);
        return TS_OK;
    }
    return TS_ERR_INPUT;
}

int ts_spec_resolve(enum ts_catalog cat, const char *ref, const char *from_file, char *out,
                    size_t n, struct ts_err *err)
{
    if (looks_like_path(ref)) {
        if (ref[0] != '/' && from_file) {
            const char *slash = strrchr(from_file, '/');
            if (slash) {
                int w = snprintf(out, n, "%.*s/%s", (int)(slash - from_file), from_file, ref);
                if (w > 0 && (size_t)w < n && path_exists(out))
                    return TS_OK;
            }
        }
        if (path_exists(ref) && strlen(ref) < n) {
            ts_strlcpy(out, ref, n);
            return TS_OK;
        }
        return ts_err_set(err, TS_ERR_INPUT, "%s file \"%s\" not found", cat_what[cat], ref);
    }
    if (!valid_name(ref))
        return ts_err_set(err, TS_ERR_INPUT,
                          "\"%s\" is not a %s name (letters, digits, '-', '_', '.') or a path",
                          ref, cat_what[cat]);
    int w = snprintf(out, n, "%s/%s/%s.json", ts_spec_home(), cat_dirs[cat], ref);
    if (w > 0 && (size_t)w < n && path_exists(out))
        return TS_OK;
    char dir[1024], names[700];
    snprintf(dir, sizeof dir, "%s/%s", ts_spec_home(), cat_dirs[cat]);
    list_names(dir, names, sizeof names);
    return ts_err_set(err, TS_ERR_INPUT, "unknown %s \"%s\" (no %s/%s.json; known: %s)",
                      cat_what[cat], ref, dir, ref, names[0] ? names : "none");
}

/* ---------------------------------------------------------------- loading references */

static const char *const cat_hint[TS_CAT_COUNT] = {"a model name", "an accelerator name",
                                                   "a system name", "a price file name",
                                                   "a software profile name",
                                                   "an attention kernel name"};

int ts__spec_load_file(const char *path, struct ts_inputs *inputs, ts__spec_parse_fn parse,
                       void *out, struct ts_err *err)
{
    cJSON *doc;
    int rc = ts_json_load(path, &doc, err);
    if (rc)
        return rc;
    struct ts_jnode root = ts_jnode_root(doc, path);
    root.inputs = inputs;
    ts_inputs_record(inputs, path, doc);
    rc = parse(&root, out, err);
    cJSON_Delete(doc);
    return rc;
}

/* A Hugging Face config.json as a model: translate (sim/spec/hf.c), apply the job's overrides
 * of an {"hf": PATH, ...} object, record the translated document, parse it as a model file. */
static int load_hf(const char *path, struct ts_inputs *inputs, const cJSON *overrides,
                   ts__spec_parse_fn parse, void *out, struct ts_err *err)
{
    cJSON *doc;
    char warning[1400];
    int rc = ts_hf_model_doc(path, &doc, warning, sizeof warning, err);
    if (rc)
        return rc;
    if (warning[0])
        ts_warning_add(warning);
    for (const cJSON *it = overrides ? overrides->child : NULL; it; it = it->next) {
        if (strcmp(it->string, "hf") == 0)
            continue;
        cJSON *copy = cJSON_Duplicate(it, true);
        TS_ASSERT(copy != NULL, "out of memory");
        if (cJSON_GetObjectItemCaseSensitive(doc, it->string))
            cJSON_ReplaceItemInObjectCaseSensitive(doc, it->string, copy);
        else
            cJSON_AddItemToObject(doc, it->string, copy);
    }
    struct ts_jnode root = ts_jnode_root(doc, path);
    root.inputs = inputs;
    ts_inputs_record(inputs, path, doc);
    rc = parse(&root, out, err);
    cJSON_Delete(doc);
    return rc;
}

static bool is_hf_ref(enum ts_catalog cat, const char *ref)
{
    return cat == TS_CAT_MODEL && strncmp(ref, "hf:", 3) == 0;
}

int ts__spec_load_ref(enum ts_catalog cat, const char *ref, ts__spec_parse_fn parse, void *out,
                      struct ts_err *err)
{
    char path[2048];
    if (is_hf_ref(cat, ref)) {
        if (ts_spec_resolve_path(ref + 3, NULL, path, sizeof path) != TS_OK)
            return ts_err_set(err, TS_ERR_INPUT, "Hugging Face config \"%s\" not found", ref + 3);
        return load_hf(path, NULL, NULL, parse, out, err);
    }
    int rc = ts_spec_resolve(cat, ref, NULL, path, sizeof path, err);
    if (rc)
        return rc;
    return ts__spec_load_file(path, NULL, parse, out, err);
}

int ts__spec_parse_ref(const struct ts_jnode *node, enum ts_catalog cat, ts__spec_parse_fn parse,
                       void *out, struct ts_err *err)
{
    if (cat == TS_CAT_MODEL && cJSON_IsObject(node->json) &&
        cJSON_GetObjectItemCaseSensitive(node->json, "hf")) {
        /* {"hf": PATH, "seq_len": N, "name": ...}: an imported model with overrides of the
         * translated keys (checked by the model parser like any model key). */
        struct ts_jnode h;
        ts_jnode_child(node, "hf", &h);
        if (!cJSON_IsString(h.json) || !h.json->valuestring[0])
            return ts_err_at(err, h.file, h.path,
                             "expected the path of a Hugging Face config.json");
        char path[2048];
        if (ts_spec_resolve_path(h.json->valuestring, node->file, path, sizeof path) != TS_OK)
            return ts_err_at(err, h.file, h.path, "Hugging Face config \"%s\" not found",
                             h.json->valuestring);
        return load_hf(path, node->inputs, node->json, parse, out, err);
    }
    if (cJSON_IsObject(node->json))
        return parse(node, out, err);
    if (!cJSON_IsString(node->json)) {
        char d[96];
        ts_jnode_describe(node->json, d, sizeof d);
        return ts_err_at(err, node->file, node->path, "expected %s, a path or an object, got %s",
                         cat_hint[cat], d);
    }
    char path[2048];
    struct ts_err inner;
    if (is_hf_ref(cat, node->json->valuestring)) {
        if (ts_spec_resolve_path(node->json->valuestring + 3, node->file, path, sizeof path))
            return ts_err_at(err, node->file, node->path, "Hugging Face config \"%s\" not found",
                             node->json->valuestring + 3);
        return load_hf(path, node->inputs, NULL, parse, out, err);
    }
    if (ts_spec_resolve(cat, node->json->valuestring, node->file, path, sizeof path, &inner))
        return ts_err_at(err, node->file, node->path, "%s", inner.msg);
    return ts__spec_load_file(path, node->inputs, parse, out, err);
}
