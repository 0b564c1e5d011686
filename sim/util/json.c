/*
 * JSON access that carries the JSON path, so that every input error names file and path.
 */
#include <math.h>
#include <pthread.h>
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
    else if (cJSON_IsNumber(json) && !isfinite(json->valuedouble))
        snprintf(buf, n, "%s", json->valuedouble > 0 ? "a number beyond the double range"
                                                     : "a negative number beyond the double range");
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
        return ts_err_at(err, node->file, node->path, "%s is out of range (a finite number is "
                         "needed)", d);
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

int ts_jnode_get_text(const struct ts_jnode *obj, const char *key, enum ts_need need,
                      const char **out, struct ts_err *err)
{
    struct ts_jnode c;
    if (!ts_jnode_child(obj, key, &c))
        return need == TS_REQUIRED ? missing(obj, key, err) : TS_OK;
    if (!cJSON_IsString(c.json)) {
        char d[96];
        ts_jnode_describe(c.json, d, sizeof d);
        return ts_err_at(err, c.file, c.path, "expected a string, got %s", d);
    }
    if (out)
        *out = c.json->valuestring;
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

/* Allocation accounting for cJSON. The hooks are installed once, before main (and again,
 * idempotently, by the first parse), so no thread ever sees them change. While a thread
 * parses, its allocations count against the document's memory limit; any allocation that
 * fails (by the limit or by malloc) is recorded, so that a NULL from cJSON can be told
 * apart from malformed text. */
struct parse_mem {
    bool active;        // this thread is inside ts_json_parse
    bool failed;        // an allocation failed while active
    bool over_limit;    // ... because of the limit
    size_t used;        // bytes allocated while active (a free does not give them back:
                        //   cJSON frees only when it gives up)
    size_t limit;
};

static _Thread_local struct parse_mem parse_mem;

/* malloc's bookkeeping per block, counted with each allocation (glibc: 16 bytes). */
#define ALLOC_OVERHEAD 16

static void *hook_malloc(size_t n)
{
    struct parse_mem *m = &parse_mem;
    if (m->active) {
        size_t need = n + ALLOC_OVERHEAD;
        if (need < n || need > m->limit - m->used) {
            m->failed = m->over_limit = true;
            return NULL;
        }
        m->used += need;
    }
    void *p = malloc(n);
    if (!p)
        m->failed = true;
    return p;
}

static void hook_free(void *p)
{
    free(p);
}

static void install_hooks(void)
{
    cJSON_Hooks hooks = {hook_malloc, hook_free};
    cJSON_InitHooks(&hooks);
}

static pthread_once_t hooks_once = PTHREAD_ONCE_INIT;

__attribute__((constructor)) static void install_hooks_early(void)
{
    pthread_once(&hooks_once, install_hooks);
}

/* A lexical pass over the text before cJSON parses it finds what cJSON accepts or misreads
 * although RFC 8259 does not allow it (a "\u0000" cJSON would cut the string at, a raw
 * control character or invalid UTF-8 in a string, a number like 01 or 1.), what cJSON cannot
 * read (a number longer than its 63-character buffer), and nesting deeper than
 * TS_JSON_DEPTH_MAX. The pass knows strings (with their escapes), numbers and brackets only;
 * cJSON judges the grammar, and of its complaint and the pass's first finding the one earlier
 * in the text is reported. The pass also keeps the text of the first number that is infinite
 * as a double (1e999), for the message of the tree check. */
#define NONE SIZE_MAX
#define NUMBER_TEXT_MAX 63      // cJSON copies at most 63 characters of a number

enum lex_problem {
    LEX_NUL_BYTE, LEX_NUL_ESCAPE, LEX_CONTROL, LEX_UTF8, LEX_TOO_DEEP, LEX_LONG_NUMBER,
    LEX_BAD_NUMBER, LEX_COUNT
};

struct scan {
    size_t at;              // offset of the first problem, NONE if the text has none
    enum lex_problem what;
    unsigned char byte;     // LEX_CONTROL: the character
    char number[NUMBER_TEXT_MAX + 1];  // LEX_BAD_NUMBER: the token
    char huge_text[NUMBER_TEXT_MAX + 1];  // first number infinite as a double, "" if none
};

static bool number_char(char c)
{
    return (c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.' || c == 'e' || c == 'E';
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* Whether s is a JSON number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? (RFC 8259 sec. 6). */
static bool json_number(const char *s)
{
    if (*s == '-')
        s++;
    if (*s == '0')
        s++;
    else if (is_digit(*s))
        while (is_digit(*s))
            s++;
    else
        return false;
    if (*s == '.') {
        if (!is_digit(*++s))
            return false;
        while (is_digit(*s))
            s++;
    }
    if (*s == 'e' || *s == 'E') {
        s++;
        if (*s == '+' || *s == '-')
            s++;
        if (!is_digit(*s))
            return false;
        while (is_digit(*s))
            s++;
    }
    return *s == '\0';
}

/* Length of the well-formed UTF-8 sequence at t[0..n) (RFC 3629 sec. 4: no overlong forms,
 * no surrogates, nothing above U+10FFFF), or 0. t[0] is not ASCII. */
static size_t utf8_length(const unsigned char *t, size_t n)
{
    unsigned char c = t[0];
    size_t len;
    unsigned char lo = 0x80, hi = 0xbf;     // range of the second byte
    if (c >= 0xc2 && c <= 0xdf)
        len = 2;
    else if (c >= 0xe0 && c <= 0xef) {
        len = 3;
        if (c == 0xe0)
            lo = 0xa0;
        else if (c == 0xed)
            hi = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        len = 4;
        if (c == 0xf0)
            lo = 0x90;
        else if (c == 0xf4)
            hi = 0x8f;
    } else
        return 0;
    if (n < len || t[1] < lo || t[1] > hi)
        return 0;
    for (size_t i = 2; i < len; i++)
        if (t[i] < 0x80 || t[i] > 0xbf)
            return 0;
    return len;
}

static void scan_text(const char *t, size_t len, struct scan *sc)
{
    const unsigned char *u = (const unsigned char *)t;
    sc->at = NONE;
    sc->huge_text[0] = '\0';
    int depth = 0;
    size_t i = 0;
#define PROBLEM(off, kind) do { sc->at = (off); sc->what = (kind); return; } while (0)
    while (i < len) {
        char c = t[i];
        if (c == '"') {
            for (i++; i < len && t[i] != '"';) {
                if (u[i] == 0)
                    PROBLEM(i, LEX_NUL_BYTE);
                if (u[i] < 0x20) {
                    sc->byte = u[i];
                    PROBLEM(i, LEX_CONTROL);
                }
                if (u[i] >= 0x80) {
                    size_t n = utf8_length(u + i, len - i);
                    if (!n)
                        PROBLEM(i, LEX_UTF8);
                    i += n;
                    continue;
                }
                if (t[i] == '\\') {
                    if (i + 5 < len && t[i + 1] == 'u' && memcmp(t + i + 2, "0000", 4) == 0)
                        PROBLEM(i, LEX_NUL_ESCAPE);
                    i++;    // the escaped character never ends the string
                    if (i < len && u[i] < 0x20)
                        continue;   // let the checks above see it
                }
                i++;
            }
            i++;
            continue;
        }
        if (c == '-' || is_digit(c)) {
            size_t j = i;
            while (j < len && number_char(t[j]))
                j++;
            if (j - i > NUMBER_TEXT_MAX)
                PROBLEM(i, LEX_LONG_NUMBER);
            char num[NUMBER_TEXT_MAX + 1];
            memcpy(num, t + i, j - i);
            num[j - i] = '\0';
            if (!json_number(num)) {
                memcpy(sc->number, num, j - i + 1);
                PROBLEM(i, LEX_BAD_NUMBER);
            }
            if (!sc->huge_text[0] && isinf(strtod(num, NULL)))
                memcpy(sc->huge_text, num, j - i + 1);
            i = j;
            continue;
        }
        if ((c == '[' || c == '{') && ++depth > TS_JSON_DEPTH_MAX)
            PROBLEM(i, LEX_TOO_DEEP);
        if ((c == ']' || c == '}') && depth > 0)
            depth--;
        if (c == '\0')
            PROBLEM(i, LEX_NUL_BYTE);
        i++;
    }
#undef PROBLEM
}

/* Line and column (1-based, in bytes) of offset `off`. */
static void line_col(const char *t, size_t off, int *line, int *col)
{
    *line = 1;
    *col = 1;
    for (size_t i = 0; i < off; i++) {
        if (t[i] == '\n') {
            (*line)++;
            *col = 1;
        } else
            (*col)++;
    }
}

/* Whole-document checks of a parsed tree, in document order: keys given twice in one object
 * and numbers beyond the double range. `path` holds the node's JSON path (len bytes). */
struct tree_check {
    const char *file;
    const char *huge_text;      // the literal of the first infinite number
    struct ts_err *err;
};

struct keyed {
    const char *key;
    int index;          // position in the object
};

static int cmp_keyed(const void *a, const void *b)
{
    const struct keyed *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    return c ? c : (x->index > y->index) - (x->index < y->index);
}

/* Of an object's keys, the first (in order) that repeats an earlier one, or NULL. */
static const cJSON *first_repeated_key(const cJSON *obj)
{
    int n = 0;
    for (const cJSON *c = obj->child; c; c = c->next)
        n++;
    if (n <= 16) {
        for (const cJSON *c = obj->child; c; c = c->next)
            for (const cJSON *d = obj->child; d != c; d = d->next)
                if (strcmp(d->string, c->string) == 0)
                    return c;
        return NULL;
    }
    /* Large objects in O(n log n): sort the keys, ties by position; every element equal to
     * its predecessor repeats an earlier key, and the one of lowest position is the answer. */
    struct keyed *k = ts_xmalloc((size_t)n * sizeof *k);
    int i = 0;
    for (const cJSON *c = obj->child; c; c = c->next, i++)
        k[i] = (struct keyed){c->string, i};
    qsort(k, (size_t)n, sizeof *k, cmp_keyed);
    int first = n;
    for (i = 1; i < n; i++)
        if (strcmp(k[i].key, k[i - 1].key) == 0 && k[i].index < first)
            first = k[i].index;
    free(k);
    const cJSON *c = obj->child;
    for (i = 0; c && i < first; i++)
        c = c->next;
    return first < n ? c : NULL;
}

/* Append ".key" (or "key" at the root) or "[index]" to the path of length len. */
static void path_append(char *path, size_t len, const char *key, int index)
{
    if (key)
        snprintf(path + len, TS_PATH_MAX - len, len ? ".%s" : "%s", key);
    else
        snprintf(path + len, TS_PATH_MAX - len, "[%d]", index);
}

static int check_tree(const cJSON *node, char *path, struct tree_check *tc)
{
    size_t len = strlen(path);
    if (cJSON_IsNumber(node) && !isfinite(node->valuedouble))
        return ts_err_at(tc->err, tc->file, path,
                         "%s is out of range (a finite number is needed)",
                         tc->huge_text[0] ? tc->huge_text : "the number");
    if (cJSON_IsObject(node)) {
        const cJSON *dup = first_repeated_key(node);
        if (dup) {
            path_append(path, len, dup->string, 0);
            return ts_err_at(tc->err, tc->file, path,
                             "key appears twice (give each key once; which one counts would be "
                             "a guess)");
        }
    }
    int index = 0, rc;
    for (const cJSON *c = node->child; c; c = c->next, index++) {
        path_append(path, len, cJSON_IsObject(node) ? c->string : NULL, index);
        if ((rc = check_tree(c, path, tc)))
            return rc;
        path[len] = '\0';
    }
    return TS_OK;
}
int ts_json_parse_limited(const char *text, size_t len, const char *file, size_t memory_max,
                          cJSON **out, struct ts_err *err)
{
    pthread_once(&hooks_once, install_hooks);
    size_t ws = 0;
    while (ws < len && (text[ws] == ' ' || text[ws] == '\t' || text[ws] == '\n' || text[ws] == '\r'))
        ws++;
    if (ws == len)
        return ts_err_at(err, file, "", "no JSON document (the file is empty)");
    struct scan sc;
    scan_text(text, len, &sc);

    struct parse_mem *m = &parse_mem;
    *m = (struct parse_mem){true, false, false, 0, memory_max};
    const char *end = NULL;
    /* The length includes the NUL: with require_null_terminated, cJSON looks for it inside
     * the buffer and would reject every document otherwise. (cJSON stops nesting at its own
     * limit, CJSON_NESTING_LIMIT = 1000 levels, so deeper text cannot exhaust the stack.) */
    cJSON *doc = cJSON_ParseWithLengthOpts(text, len + 1, &end, 1);
    struct parse_mem mem = *m;
    m->active = false;
    if (!doc && mem.failed) {
        char lim[48];
        ts_quantity_format((double)memory_max, TS_DIM_BYTES, lim, sizeof lim);
        if (mem.over_limit)
            return ts_err_at(err, file, "", "out of memory while parsing: the document needs more "
                             "than the %s a JSON input may use (too many values)", lim);
        return ts_err_set(err, TS_ERR_RUNTIME, "%s: out of memory while parsing", file);
    }

    /* The earlier of cJSON's complaint and the lexical pass's finding is reported. */
    size_t bad = NONE;
    if (!doc)
        bad = end && end >= text && end <= text + len ? (size_t)(end - text) : 0;
    bool lexical = sc.at != NONE && sc.at <= bad;
    if (lexical || !doc) {
        int line, col;
        line_col(text, lexical ? sc.at : bad, &line, &col);
        cJSON_Delete(doc);
        if (!lexical)
            return ts_err_at(err, file, "", "malformed JSON at line %d, column %d", line, col);
        switch (sc.what) {
        case LEX_NUL_BYTE:
            return ts_err_at(err, file, "", "NUL byte at line %d, column %d; not a JSON text", line,
                             col);
        case LEX_NUL_ESCAPE:
            return ts_err_at(err, file, "", "\"\\u0000\" in a string at line %d, column %d (a NUL "
                             "character cannot be part of a name or value)", line, col);
        case LEX_CONTROL:
            return ts_err_at(err, file, "", "control character 0x%02x in a string at line %d, "
                             "column %d (write it as an escape, e.g. \\n or \\t)", sc.byte, line,
                             col);
        case LEX_UTF8:
            return ts_err_at(err, file, "", "invalid UTF-8 in a string at line %d, column %d "
                             "(save the file as UTF-8)", line, col);
        case LEX_TOO_DEEP:
            return ts_err_at(err, file, "", "nesting deeper than %d levels at line %d, column %d",
                             TS_JSON_DEPTH_MAX, line, col);
        case LEX_LONG_NUMBER:
            return ts_err_at(err, file, "", "number longer than %d characters at line %d, column %d",
                             NUMBER_TEXT_MAX, line, col);
        case LEX_BAD_NUMBER:
        case LEX_COUNT:
            break;
        }
        return ts_err_at(err, file, "", "malformed number %s at line %d, column %d (JSON numbers "
                         "look like 12, -0.5 or 1e-3)", sc.number, line, col);
    }
    char path[TS_PATH_MAX] = "";
    struct tree_check tc = {file, sc.huge_text, err};
    int rc = check_tree(doc, path, &tc);
    if (rc) {
        cJSON_Delete(doc);
        return rc;
    }
    *out = doc;
    return TS_OK;
}

int ts_json_parse(const char *text, size_t len, const char *file, cJSON **out, struct ts_err *err)
{
    return ts_json_parse_limited(text, len, file, TS_JSON_MEMORY_MAX, out, err);
}

int ts_json_load(const char *file, cJSON **out, struct ts_err *err)
{
    char *text;
    size_t len;
    int rc = ts_file_read(file, &text, &len, err);
    if (rc)
        return rc;
    rc = ts_json_parse(text, len, file, out, err);
    free(text);
    return rc;
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
