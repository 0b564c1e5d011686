/*
 * trainsim list KIND and trainsim show NAME: what the catalogue holds (models, accelerators,
 * systems, software profiles, price files, attention kernel tables), with each entry's key
 * figures, source and date, read from the files themselves (so a file added to the catalogue
 * is listed without a rebuild). Values are shown as the files give them ("80 GiB").
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

/* One catalogue kind: its directory, its list name, and the key figures a listing shows
 * (JSON paths inside an entry, "a.b" for nested keys) with their column titles. */
struct kind {
    const char *name;       // "models"
    const char *dir;        // under the catalogue home
    const char *keys[8];
    const char *titles[8];
};

static const struct kind kinds[] = {
    {"models", "models",
     {"layers", "hidden", "heads", "kv_heads", "ffn_hidden", "vocab", "moe.experts", "moe.top_k"},
     {"layers", "hidden", "heads", "kv", "ffn", "vocab", "experts", "top_k"}},
    {"accelerators", "hardware/accelerators",
     {"generation", "peak_flops.bf16", "peak_flops.fp8", "memory", "memory_bandwidth", NULL},
     {"generation", "bf16", "fp8", "memory", "bandwidth", NULL}},
    {"systems", "hardware/systems",
     {"accelerator", "gpus_per_node", "scale_up.bandwidth", "scale_up.domain_size",
      "scale_out.bandwidth", "scale_out.topology", NULL},
     {"accelerator", "gpus/node", "scale-up", "domain", "scale-out/GPU", "fabric", NULL}},
    {"software", "configs/software", {"optimizer", "grad_reduce_dtype", "master_weights", NULL},
     {"optimizer", "grad reduce", "master weights", NULL}},
    {"prices", "configs/prices",
     {"gpu_hour.on_demand", "gpu_hour.reserved", "gpu_hour.spot", NULL},
     {"on-demand $/GPU-h", "reserved", "spot", NULL}},
    {"attention", "hardware/attention", {"kernel", "generation", NULL}, {"kernel", "generation", NULL}},
};

void ts_cli_list_help(FILE *f)
{
    fprintf(f,
            "usage: trainsim list models|accelerators|systems|software|prices|attention\n"
            "                     [--format table|json|csv]\n"
            "       trainsim show NAME [--format table|json]\n"
            "\n"
            "list: the catalogue entries of one kind with their key figures, source and date,\n"
            "read from the catalogue files (TRAINSIM_HOME, else the installed or source tree).\n"
            "show: one entry (searched in every kind; KIND/NAME when a name is in several) with\n"
            "its file and every key as the file gives it.\n"
            "\n"
            "examples:\n"
            "  trainsim list systems\n"
            "  trainsim list prices --format csv\n"
            "  trainsim show h100-sxm\n"
            "  trainsim show models/llama3-70b\n");
}

/* The value at a dotted path, or NULL. */
static const cJSON *at_path(const cJSON *o, const char *path)
{
    char part[64];
    const char *p = path;
    while (o && *p) {
        const char *dot = strchr(p, '.');
        size_t n = dot ? (size_t)(dot - p) : strlen(p);
        if (n >= sizeof part)
            return NULL;
        memcpy(part, p, n);
        part[n] = '\0';
        o = cJSON_GetObjectItemCaseSensitive(o, part);
        p = dot ? dot + 1 : p + n;
    }
    return o;
}

/* A value as text for a listing: strings as written, numbers in the shortest exact form,
 * absent as "-". */
static void value_text(const cJSON *v, char *buf, size_t n)
{
    if (!v || cJSON_IsNull(v))
        snprintf(buf, n, "-");
    else if (cJSON_IsString(v))
        snprintf(buf, n, "%s", v->valuestring);
    else if (cJSON_IsNumber(v))
        ts_json_format_double(v->valuedouble, buf, n);
    else if (cJSON_IsBool(v))
        snprintf(buf, n, "%s", cJSON_IsTrue(v) ? "true" : "false");
    else
        snprintf(buf, n, "%s", cJSON_IsObject(v) ? "{...}" : "[...]");
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted names (file stems) of the .json files in dir; the caller frees each and the array. */
static int list_dir(const char *dir, char ***out)
{
    *out = NULL;
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int n = 0, cap = 0;
    char **names = NULL;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len <= 5 || strcmp(e->d_name + len - 5, ".json") != 0 || e->d_name[0] == '.')
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 32;
            names = realloc(names, (size_t)cap * sizeof *names);
            TS_ASSERT(names != NULL, "out of memory listing %s", dir);
        }
        names[n] = malloc(len - 4);
        TS_ASSERT(names[n] != NULL, "out of memory listing %s", dir);
        memcpy(names[n], e->d_name, len - 5);
        names[n][len - 5] = '\0';
        n++;
    }
    closedir(d);
    if (n > 1)
        qsort(names, (size_t)n, sizeof *names, cmp_names);
    *out = names;
    return n;
}

static void free_names(char **names, int n)
{
    for (int i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

/* The date of an entry: its "date" key, else none. */
static const char *entry_date(const cJSON *doc)
{
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(doc, "date");
    return d && cJSON_IsString(d) ? d->valuestring : "";
}

static const char *entry_source(const cJSON *doc)
{
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(doc, "source");
    return s && cJSON_IsString(s) ? s->valuestring : "";
}

/* A CSV field in the one dialect of every command (util.h), then its separator. */
static void csv_field(struct ts_buf *b, const char *s, bool last)
{
    ts_csv_field(b, s);
    ts_buf_append(b, last ? "\n" : ",", 1);
}

/* End a table line: drop the padding after the last cell. */
static void end_line(struct ts_buf *b)
{
    while (b->len > 0 && b->data[b->len - 1] == ' ')
        b->data[--b->len] = '\0';
    ts_buf_append(b, "\n", 1);
}

static int nkeys(const struct kind *k)
{
    int n = 0;
    while (n < 8 && k->keys[n])
        n++;
    return n;
}

static int list_kind(const struct kind *k, enum ts_format format)
{
    char dir[2048];
    snprintf(dir, sizeof dir, "%s/%s", ts_spec_home(), k->dir);
    char **names;
    int n = list_dir(dir, &names);
    int nk = nkeys(k);
    cJSON *arr = cJSON_CreateArray();
    TS_ASSERT(arr != NULL, "out of memory");
    int rc = TS_OK;
    for (int i = 0; i < n; i++) {
        char path[2300];
        snprintf(path, sizeof path, "%s/%s.json", dir, names[i]);
        cJSON *doc;
        struct ts_err err;
        if (ts_json_load(path, &doc, &err)) {
            fprintf(stderr, "trainsim list: %s\n", err.msg);
            rc = TS_ERR_INPUT;
            continue;
        }
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "name", names[i]);
        cJSON_AddStringToObject(e, "file", path);
        for (int j = 0; j < nk; j++) {
            const cJSON *v = at_path(doc, k->keys[j]);
            cJSON_AddItemToObject(e, k->keys[j], v ? cJSON_Duplicate(v, true) : cJSON_CreateNull());
        }
        cJSON_AddStringToObject(e, "date", entry_date(doc));
        cJSON_AddStringToObject(e, "source", entry_source(doc));
        cJSON_AddItemToArray(arr, e);
        cJSON_Delete(doc);
    }
    free_names(names, n);

    struct ts_buf b;
    ts_buf_init(&b);
    int rows = cJSON_GetArraySize(arr);
    if (format == TS_FORMAT_JSON) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "kind", k->name);
        cJSON_AddStringToObject(o, "directory", dir);
        cJSON_AddItemToObject(o, "entries", arr);
        ts_report_json_print(o, &b);
        cJSON_Delete(o);
    } else if (format == TS_FORMAT_CSV) {
        csv_field(&b, "name", false);
        for (int j = 0; j < nk; j++)
            csv_field(&b, k->keys[j], false);
        csv_field(&b, "date", false);
        csv_field(&b, "source", true);
        for (int r = 0; r < rows; r++) {
            const cJSON *e = cJSON_GetArrayItem(arr, r);
            char v[512];
            csv_field(&b, cJSON_GetObjectItemCaseSensitive(e, "name")->valuestring, false);
            for (int j = 0; j < nk; j++) {
                value_text(cJSON_GetObjectItemCaseSensitive(e, k->keys[j]), v, sizeof v);
                csv_field(&b, v, false);
            }
            csv_field(&b, cJSON_GetObjectItemCaseSensitive(e, "date")->valuestring, false);
            csv_field(&b, cJSON_GetObjectItemCaseSensitive(e, "source")->valuestring, true);
        }
        cJSON_Delete(arr);
    } else {
        /* A table within 100 columns: name, the key figures, then as much of the source (and
         * date) as fits. */
        int w[10] = {4};
        char cell[64][10][48];
        int shown = rows < 64 ? rows : 64;
        for (int j = 0; j < nk; j++)
            w[j + 1] = (int)strlen(k->titles[j]);
        for (int r = 0; r < rows; r++) {
            const cJSON *e = cJSON_GetArrayItem(arr, r);
            char v[48];
            snprintf(v, sizeof v, "%s", cJSON_GetObjectItemCaseSensitive(e, "name")->valuestring);
            if ((int)strlen(v) > w[0])
                w[0] = (int)strlen(v);
            if (r < shown)
                memcpy(cell[r][0], v, sizeof v);
            for (int j = 0; j < nk; j++) {
                value_text(cJSON_GetObjectItemCaseSensitive(e, k->keys[j]), v, sizeof v);
                if ((int)strlen(v) > w[j + 1])
                    w[j + 1] = (int)strlen(v);
                if (r < shown)
                    memcpy(cell[r][j + 1], v, sizeof v);
            }
        }
        int used = 0;
        for (int j = 0; j <= nk; j++)
            used += w[j] + 2;
        int rest = 100 - used;
        ts_buf_printf(&b, "%d %s in %s\n", rows, k->name, dir);
        ts_buf_printf(&b, "%-*s", w[0] + 2, "name");
        for (int j = 0; j < nk; j++)
            ts_buf_printf(&b, "%-*s", w[j + 1] + 2, k->titles[j]);
        ts_buf_printf(&b, "%s", rest >= 12 ? "source" : "");
        end_line(&b);
        for (int r = 0; r < shown; r++) {
            const cJSON *e = cJSON_GetArrayItem(arr, r);
            for (int j = 0; j <= nk; j++)
                ts_buf_printf(&b, "%-*s", w[j] + 2, cell[r][j]);
            if (rest >= 12) {
                const char *date = cJSON_GetObjectItemCaseSensitive(e, "date")->valuestring;
                const char *src = cJSON_GetObjectItemCaseSensitive(e, "source")->valuestring;
                char s[256];
                snprintf(s, sizeof s, "%s%s%s", date, date[0] ? ": " : "", src);
                if ((int)strlen(s) > rest) {
                    s[rest - 3] = '\0';
                    strcat(s, "...");
                }
                ts_buf_printf(&b, "%s", s);
            }
            end_line(&b);
        }
        if (rows > shown)
            ts_buf_printf(&b, "(%d more: --format json lists all)\n", rows - shown);
        ts_buf_printf(&b, "full sources: trainsim show NAME\n");
        cJSON_Delete(arr);
    }
    int erc = ts_cli_emit(&b, NULL);
    ts_buf_free(&b);
    return rc ? rc : erc;
}

static int parse_args(const char *cmd, int argc, char **argv, const char **what,
                      enum ts_format *format)
{
    *what = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--format") == 0 && i + 1 < argc) {
            if (ts_cli_parse_format(argv[++i], format))
                return TS_ERR_INPUT;
        } else if (strncmp(a, "--format=", 9) == 0) {
            if (ts_cli_parse_format(a + 9, format))
                return TS_ERR_INPUT;
        } else if (a[0] == '-') {
            fprintf(stderr, "trainsim %s: unknown option \"%s\" (try trainsim %s --help)\n", cmd,
                    a, cmd);
            return TS_ERR_INPUT;
        } else if (!*what) {
            *what = a;
        } else {
            fprintf(stderr, "trainsim %s: one name at a time (got \"%s\" and \"%s\")\n", cmd,
                    *what, a);
            return TS_ERR_INPUT;
        }
    }
    return TS_OK;
}

int ts_cli_list(int argc, char **argv)
{
    const char *what;
    enum ts_format format = ts_cli_default_format();
    int rc = parse_args("list", argc, argv, &what, &format);
    if (rc)
        return rc;
    for (size_t i = 0; what && i < TS_ARRAY_LEN(kinds); i++)
        if (strcmp(what, kinds[i].name) == 0)
            return list_kind(&kinds[i], format);
    fprintf(stderr, "trainsim list: %s%s%s (one of models, accelerators, systems, software, "
                    "prices, attention)\n",
            what ? "unknown kind \"" : "say what to list", what ? what : "", what ? "\"" : "");
    return TS_ERR_INPUT;
}

int ts_cli_show(int argc, char **argv)
{
    const char *what;
    enum ts_format format = ts_cli_default_format();
    int rc = parse_args("show", argc, argv, &what, &format);
    if (rc)
        return rc;
    if (!what) {
        fprintf(stderr, "trainsim show: name an entry (trainsim list KIND shows the names)\n");
        return TS_ERR_INPUT;
    }
    const char *slash = strchr(what, '/');
    char found[8][2300];
    int nfound = 0;
    for (size_t i = 0; i < TS_ARRAY_LEN(kinds); i++) {
        const char *name = what;
        if (slash) {
            if (strncmp(what, kinds[i].name, (size_t)(slash - what)) != 0 ||
                kinds[i].name[slash - what] != '\0')
                continue;
            name = slash + 1;
        }
        if (!name[0] || strchr(name, '/') || name[0] == '.')
            continue;
        char path[2300];
        snprintf(path, sizeof path, "%s/%s/%s.json", ts_spec_home(), kinds[i].dir, name);
        FILE *f = fopen(path, "r");
        if (f) {
            fclose(f);
            if (nfound < 8)
                snprintf(found[nfound++], sizeof found[0], "%s", path);
        }
    }
    if (nfound == 0) {
        fprintf(stderr, "trainsim show: no catalogue entry \"%s\" (trainsim list KIND shows the "
                        "names)\n", what);
        return TS_ERR_INPUT;
    }
    if (nfound > 1) {
        fprintf(stderr, "trainsim show: \"%s\" is in several kinds; say which:", what);
        for (int i = 0; i < nfound; i++)
            fprintf(stderr, " %s", found[i]);
        fprintf(stderr, " (e.g. trainsim show models/%s)\n", what);
        return TS_ERR_INPUT;
    }
    cJSON *doc;
    struct ts_err err;
    if ((rc = ts_json_load(found[0], &doc, &err))) {
        fprintf(stderr, "trainsim show: %s\n", err.msg);
        return rc;
    }
    struct ts_buf b;
    ts_buf_init(&b);
    if (format == TS_FORMAT_JSON) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "file", found[0]);
        cJSON_AddItemToObject(o, "entry", doc);
        ts_report_json_print(o, &b);
        cJSON_Delete(o);
    } else {
        if (format == TS_FORMAT_CSV)
            fprintf(stderr, "trainsim show: CSV has no nested form; showing the table\n");
        ts_buf_printf(&b, "%s\n", found[0]);
        for (const cJSON *it = doc->child; it; it = it->next) {
            if (cJSON_IsObject(it) || cJSON_IsArray(it)) {
                char *t = cJSON_PrintUnformatted(it);
                TS_ASSERT(t != NULL, "out of memory");
                ts_buf_printf(&b, "  %-22s %s\n", it->string, t);
                cJSON_free(t);
            } else {
                char v[4096];
                value_text(it, v, sizeof v);
                ts_buf_printf(&b, "  %-22s %s\n", it->string, v);
            }
        }
        cJSON_Delete(doc);
    }
    rc = ts_cli_emit(&b, NULL);
    ts_buf_free(&b);
    return rc;
}
