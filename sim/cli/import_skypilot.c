/*
 * trainsim import skypilot vms.csv: prices from a SkyPilot catalogue file (the public
 * skypilot-org/skypilot-catalog format: columns InstanceType, AcceleratorName,
 * AcceleratorCount, Price, SpotPrice, Region, AvailabilityZone among others, found by their
 * header names). Without --instance it lists the GPU instance types with their cheapest price
 * per GPU-hour; with --instance TYPE it writes a price file (configs/prices format): the
 * on-demand price per GPU-hour = Price / AcceleratorCount in the region (the cheapest region
 * when none is given), spot likewise from the cheapest zone's SpotPrice when the catalogue has
 * one. A catalogue states no date, so the price file's date is the one given (--date) or the
 * day of the import, said so in its source. A line that is not UTF-8 or is longer than 4095
 * bytes, and a price above 1e6 USD per GPU-hour (a misread column), are errors naming the line.
 *
 * Two shapes of the real catalogues need more than one row per offer:
 *  - An instance sold without an on-demand price (AWS p5e.48xlarge: Capacity Blocks and spot
 *    only) has an empty Price; it is kept when it has a SpotPrice and priced as spot only.
 *  - Google Cloud's catalogue prices an accelerator-optimized VM in two rows of one zone: the
 *    machine type with no accelerator (its vCPUs and memory) and a row with no InstanceType
 *    for the attached GPUs (AcceleratorName, AcceleratorCount). The offer is their sum; the
 *    machine family says which GPU row belongs to it (gcp_family below).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "cli/cli.h"

enum { C_TYPE, C_ACC, C_COUNT, C_PRICE, C_SPOT, C_REGION, C_ZONE, C_N };
static const char *const col_name[C_N] = {"InstanceType", "AcceleratorName", "AcceleratorCount",
                                          "Price", "SpotPrice", "Region", "AvailabilityZone"};

struct sky_row {
    char type[96], acc[48], region[64], zone[64];
    double count;           // accelerators per instance, e.g. 8
    double price, spot;     // USD per instance-hour; NaN when the catalogue gives none
    bool summed;            // a Google Cloud VM row plus its GPU row
};

/* Google Cloud accelerator-optimized machine families and the catalogue's name for their
 * GPU (https://cloud.google.com/compute/docs/gpus: A4 = B200, A3 Ultra = H200 141GB, A3 Mega
 * = H100 80GB "Mega", A3 High and A3 Edge = H100 80GB, A2 Ultra = A100 80GB, A2 Standard =
 * A100 40GB). The GPU count is the name's "-Ng" part (a3-highgpu-8g: 8). Returns false for any
 * other machine type. */
static bool gcp_family(const char *type, const char **acc, double *count)
{
    static const struct { const char *prefix, *acc; } fam[] = {
        {"a4-highgpu-", "B200"},     {"a3-ultragpu-", "H200"}, {"a3-megagpu-", "H100-MEGA"},
        {"a3-highgpu-", "H100"},     {"a3-edgegpu-", "H100"},  {"a2-ultragpu-", "A100-80GB"},
        {"a2-highgpu-", "A100"},     {"a2-megagpu-", "A100"},
    };
    for (size_t i = 0; i < sizeof fam / sizeof fam[0]; i++) {
        size_t n = strlen(fam[i].prefix);
        if (strncmp(type, fam[i].prefix, n) != 0)
            continue;
        const char *p = type + n;
        char *end;
        long g = strtol(p, &end, 10);
        if (end == p || *end != 'g' || (end[1] != '\0' && end[1] != '-') || g < 1 || g > 64)
            return false;
        *acc = fam[i].acc;
        *count = (double)g;
        return true;
    }
    return false;
}

/* A price field: empty -> NaN (no price), else a non-negative number. Returns false on text
 * that is not one. */
static bool price_field(const char *s, double *out)
{
    if (!s[0]) {
        *out = (double)NAN;
        return true;
    }
    return ts_text_number(s, out) && *out >= 0.0;
}

/* A guard, not a market figure: a million dollars per GPU-hour is far above any list price
 * (the catalogue's dearest, configs/prices, are a few tens of dollars), so a larger quotient
 * is a misread file - and beyond ~1e304 it would not even survive the price file's rounding. */
#define PRICE_MAX 1e6

static bool too_dear(double price, double count)
{
    return price / count > PRICE_MAX;  /* NaN (no price) is not */
}

/* Whether s is well-formed UTF-8 (RFC 3629 section 4: no overlong forms, no surrogates,
 * nothing above U+10FFFF): the names of a row go into a JSON price file, which must load. */
static bool utf8_ok(const char *s)
{
    const unsigned char *u = (const unsigned char *)s;
    while (*u) {
        unsigned c = *u;
        int more = c < 0x80 ? 0 : c >= 0xC2 && c <= 0xDF ? 1 : c >= 0xE0 && c <= 0xEF ? 2
                 : c >= 0xF0 && c <= 0xF4 ? 3 : -1;
        if (more < 0)
            return false;
        unsigned lo = 0x80, hi = 0xBF;     // the second byte's range
        if (c == 0xE0)
            lo = 0xA0;
        else if (c == 0xED)
            hi = 0x9F;
        else if (c == 0xF0)
            lo = 0x90;
        else if (c == 0xF4)
            hi = 0x8F;
        u++;
        for (int i = 0; i < more; i++, u++)
            if (*u < (i == 0 ? lo : 0x80) || *u > (i == 0 ? hi : 0xBF))
                return false;
    }
    return true;
}

static void rows_push(struct sky_row **rows, int *n, int *cap, const struct sky_row *r,
                      const char *file)
{
    if (*n == *cap) {
        *cap = *cap ? 2 * *cap : 256;
        *rows = realloc(*rows, (size_t)*cap * sizeof **rows);
        TS_ASSERT(*rows != NULL, "out of memory reading %s", file);
    }
    (*rows)[(*n)++] = *r;
}

/* The offers of the file: its GPU instance rows, and each Google Cloud VM row summed with the
 * GPU row of its zone. Rows without a price or a spot price are left out. */
static int read_rows(const char *file, struct sky_row **out, int *n_out, struct ts_err *err)
{
    char *text;
    size_t len;
    int rc = ts_file_read(file, &text, &len, err);
    if (rc)
        return rc;
    int idx[C_N];
    for (int c = 0; c < C_N; c++)
        idx[c] = -1;
    int n = 0, cap = 0, nh = 0, nhost = 0, caphost = 0, npart = 0, cappart = 0;
    struct sky_row *rows = NULL, *hosts = NULL, *parts = NULL;
    bool header = false;
    long lineno = 0;
    for (size_t pos = 0; pos < len && rc == TS_OK;) {
        size_t end = pos;
        while (end < len && text[end] != '\n')
            end++;
        lineno++;
        char line[4096];
        if (end - pos >= sizeof line) {
            rc = ts_err_set(err, TS_ERR_INPUT, "%s:%ld: line longer than %zu bytes", file, lineno,
                            sizeof line - 1);
            break;
        }
        size_t l = end - pos;
        memcpy(line, text + pos, l);
        line[l] = '\0';
        pos = end + 1;
        if (line[0] == '\0' || line[0] == '\r')
            continue;
        if (!utf8_ok(line)) {
            rc = ts_err_set(err, TS_ERR_INPUT, "%s:%ld: not UTF-8 text (save the catalogue as "
                            "UTF-8)", file, lineno);
            break;
        }
        char *f[64];
        int nf = ts_csv_split(line, f, 64);
        if (!header) {
            for (int i = 0; i < nf; i++)
                for (int c = 0; c < C_N; c++)
                    if (strcasecmp(f[i], col_name[c]) == 0)
                        idx[c] = i;
            for (int c = 0; c <= C_PRICE; c++)
                if (idx[c] < 0) {
                    rc = ts_err_set(err, TS_ERR_INPUT,
                                    "%s:%ld: no %s column: not a SkyPilot catalogue vms.csv "
                                    "(InstanceType, AcceleratorName, AcceleratorCount, Price, "
                                    "SpotPrice, Region, ...)", file, lineno, col_name[c]);
                    break;
                }
            header = true;
            nh = nf;
            continue;
        }
        if (nf != nh) {
            rc = ts_err_set(err, TS_ERR_INPUT, "%s:%ld: %d fields, the header has %d", file,
                            lineno, nf, nh);
            break;
        }
        const char *type = f[idx[C_TYPE]], *acc = f[idx[C_ACC]], *count = f[idx[C_COUNT]];
        const char *fam_acc = NULL;
        struct sky_row r;
        memset(&r, 0, sizeof r);
        bool host = !acc[0] && type[0] && gcp_family(type, &fam_acc, &r.count);
        bool part = acc[0] && !type[0];
        if (!host && !(acc[0] && count[0]))
            continue;       /* a CPU instance: nothing to price a GPU-hour by */
        ts_strlcpy(r.type, type, sizeof r.type);
        ts_strlcpy(r.acc, host ? fam_acc : acc, sizeof r.acc);
        ts_strlcpy(r.region, idx[C_REGION] >= 0 ? f[idx[C_REGION]] : "", sizeof r.region);
        ts_strlcpy(r.zone, idx[C_ZONE] >= 0 ? f[idx[C_ZONE]] : "", sizeof r.zone);
        if ((!host && (!ts_text_number(count, &r.count) || !(r.count > 0))) ||
            !price_field(f[idx[C_PRICE]], &r.price)) {
            rc = ts_err_set(err, TS_ERR_INPUT,
                            "%s:%ld: AcceleratorCount \"%s\" or Price \"%s\" is not a number",
                            file, lineno, count, f[idx[C_PRICE]]);
            break;
        }
        r.spot = NAN;
        if (idx[C_SPOT] >= 0 && !price_field(f[idx[C_SPOT]], &r.spot))
            r.spot = NAN;   /* an unreadable spot price is no spot offer */
        if (!host && (too_dear(r.price, r.count) || too_dear(r.spot, r.count))) {
            rc = ts_err_set(err, TS_ERR_INPUT,
                            "%s:%ld: Price \"%s\" or SpotPrice over AcceleratorCount \"%s\" is "
                            "more than $%.0g per GPU-hour: not a price (a shifted column?)", file,
                            lineno, f[idx[C_PRICE]], count, PRICE_MAX);
            break;
        }
        if (host)
            rows_push(&hosts, &nhost, &caphost, &r, file);
        else if (part)
            rows_push(&parts, &npart, &cappart, &r, file);
        else if (!isnan(r.price) || !isnan(r.spot))
            rows_push(&rows, &n, &cap, &r, file);
    }
    free(text);
    if (rc == TS_OK && !header)
        rc = ts_err_set(err, TS_ERR_INPUT, "%s: empty (no header line)", file);
    /* Each VM with the GPU row of its zone (same accelerator and count). A missing price on
     * either row leaves the sum missing (NaN propagates). */
    for (int h = 0; rc == TS_OK && h < nhost; h++)
        for (int p = 0; p < npart; p++) {
            const struct sky_row *a = &hosts[h], *b = &parts[p];
            if (strcmp(a->acc, b->acc) != 0 || a->count != b->count ||
                strcmp(a->region, b->region) != 0 || strcmp(a->zone, b->zone) != 0)
                continue;
            struct sky_row s = *a;
            s.price = a->price + b->price;
            s.spot = a->spot + b->spot;
            s.summed = true;
            if (too_dear(s.price, s.count) || too_dear(s.spot, s.count)) {
                rc = ts_err_set(err, TS_ERR_INPUT,
                                "%s: %s in %s: its VM row and GPU row add up to more than $%.0g "
                                "per GPU-hour: not a price", file, a->type, a->zone, PRICE_MAX);
                break;
            }
            if (!isnan(s.price) || !isnan(s.spot))
                rows_push(&rows, &n, &cap, &s, file);
            break;
        }
    free(hosts);
    free(parts);
    if (rc) {
        free(rows);
        return rc;
    }
    *out = rows;
    *n_out = n;
    return TS_OK;
}

/* A listed price to 3 decimals, or "-" when there is none (INFINITY). */
static void fmt_price(char *out, size_t n, double v)
{
    if (isinf(v))
        snprintf(out, n, "-");
    else
        snprintf(out, n, "%.3f", v);
}

/* Advance *l by what snprintf wrote, never past the buffer's end. */
static void src_advance(int *l, int wrote, size_t cap)
{
    if (wrote > 0)
        *l += wrote;
    if (*l > (int)cap - 1)
        *l = (int)cap - 1;
}

int ts_cli_import_skypilot(const char *file, int argc, char **argv)
{
    const char *instance = NULL, *region = NULL, *name = NULL, *date = NULL, *out = NULL;
    for (int i = 0; i < argc; i++) {
        const char **dst = NULL;
        if (strcmp(argv[i], "--instance") == 0)
            dst = &instance;
        else if (strcmp(argv[i], "--region") == 0)
            dst = &region;
        else if (strcmp(argv[i], "--name") == 0)
            dst = &name;
        else if (strcmp(argv[i], "--date") == 0)
            dst = &date;
        else if (strcmp(argv[i], "--out") == 0)
            dst = &out;
        if (!dst || i + 1 >= argc) {
            fprintf(stderr, "trainsim import skypilot: unknown option or missing value: %s\n",
                    argv[i]);
            return TS_ERR_INPUT;
        }
        *dst = argv[++i];
    }
    if (name && !ts_spec_name_valid(name)) {
        fprintf(stderr, "trainsim import skypilot: --name: \"%s\" is not a catalogue name\n", name);
        return TS_ERR_INPUT;
    }
    if ((region || name || date || out) && !instance) {
        fprintf(stderr, "trainsim import skypilot: --region, --name, --date and --out go with "
                        "--instance TYPE\n");
        return TS_ERR_INPUT;
    }
    int rc;
    if (out) {
        const char *others[] = {file, NULL};
        if ((rc = ts_cli_check_output("import", "--out", out, others)))
            return rc;
    }
    struct ts_err err;
    ts_err_clear(&err);
    struct sky_row *rows = NULL;
    int n = 0;
    if ((rc = read_rows(file, &rows, &n, &err))) {
        fprintf(stderr, "trainsim: %s\n", err.msg);
        return rc;
    }
    struct ts_buf b;
    ts_buf_init(&b);
    if (!instance) {
        /* One line per GPU instance type, in the file's order of first appearance. */
        ts_buf_printf(&b, "%-28s %-12s %5s %14s %10s  %s\n", "instance", "accelerator", "count",
                      "$/GPU-h (min)", "spot (min)", "offers");
        for (int i = 0; i < n; i++) {
            bool seen = false;
            for (int j = 0; j < i && !seen; j++)
                seen = strcmp(rows[j].type, rows[i].type) == 0;
            if (seen)
                continue;
            double od = INFINITY, sp = INFINITY;
            int regions = 0;
            for (int j = i; j < n; j++) {
                if (strcmp(rows[j].type, rows[i].type) != 0)
                    continue;
                regions++;
                if (!isnan(rows[j].price))
                    od = fmin(od, rows[j].price / rows[j].count);
                if (!isnan(rows[j].spot))
                    sp = fmin(sp, rows[j].spot / rows[j].count);
            }
            char ods[32], sps[32];
            fmt_price(ods, sizeof ods, od);
            fmt_price(sps, sizeof sps, sp);
            ts_buf_printf(&b, "%-28s %-12s %5g %14s %10s  %d\n", rows[i].type, rows[i].acc,
                          rows[i].count, ods, sps, regions);
        }
        rc = ts_cli_emit(&b, NULL);
        ts_buf_free(&b);
        free(rows);
        return rc;
    }
    /* The price file of one instance type. */
    /* The cheapest on-demand offer (the first match when none has an on-demand price). */
    int best = -1, matches = 0, spot_at = -1;
    double spot = INFINITY;
    for (int i = 0; i < n; i++) {
        if (strcmp(rows[i].type, instance) != 0 || (region && strcmp(rows[i].region, region) != 0))
            continue;
        matches++;
        if (best < 0 || (!isnan(rows[i].price) &&
                         (isnan(rows[best].price) || rows[i].price < rows[best].price)))
            best = i;
        if (!isnan(rows[i].spot) && rows[i].spot < spot) {
            spot = rows[i].spot;
            spot_at = i;
        }
    }
    if (best < 0) {
        fprintf(stderr, "trainsim import skypilot: %s: no GPU instance \"%s\"%s%s (run without "
                        "--instance to list them)\n", file, instance, region ? " in region " : "",
                region ? region : "");
        ts_buf_free(&b);
        free(rows);
        return TS_ERR_INPUT;
    }
    const struct sky_row *r = &rows[best];
    char today[16];
    time_t now = time(NULL);
    struct tm tmv;
    strftime(today, sizeof today, "%Y-%m-%d", gmtime_r(&now, &tmv));
    char nm[TS_NAME_MAX], dt[96], src[1024], desc[512];
    if (name)
        ts_strlcpy(nm, name, sizeof nm);
    else {
        snprintf(nm, sizeof nm, "%s", instance);
        for (char *p = nm; *p; p++)
            if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
                  *p == '-' || *p == '_' || *p == '.'))
                *p = '-';
    }
    if (date)
        snprintf(dt, sizeof dt, "%s", date);
    else
        snprintf(dt, sizeof dt, "imported %s (the catalogue states no date)", today);
    bool od = !isnan(r->price);
    int l = 0;
    src_advance(&l, snprintf(src, sizeof src, "SkyPilot catalogue %s: %s (%g x %s)%s", file,
                             instance, r->count, r->acc,
                             r->summed ? " = its VM row + its GPU row (the catalogue prices "
                                         "them apart)" : ""), sizeof src);
    if (od)
        src_advance(&l, snprintf(src + l, sizeof src - (size_t)l,
                                 " in %s%s: on-demand $%.6g/h = $%.4f per GPU-hour",
                                 r->region[0] ? r->region : "(no region)",
                                 region ? "" : matches > 1 ? " (its cheapest offer)" : "",
                                 r->price, r->price / r->count), sizeof src);
    else
        src_advance(&l, snprintf(src + l, sizeof src - (size_t)l,
                                 ": no on-demand price in the catalogue (Price is empty)"),
                    sizeof src);
    if (!isinf(spot)) {
        const struct sky_row *z = &rows[spot_at];
        snprintf(src + l, sizeof src - (size_t)l,
                 "; spot $%.6g/h = $%.4f per GPU-hour (cheapest zone: %s%s%s)", spot,
                 spot / r->count, z->region, z->zone[0] ? " " : "", z->zone);
    }
    snprintf(desc, sizeof desc,
             "LIST PRICES imported from a SkyPilot catalogue: replace them with your contract "
             "prices (a job's own cost keys override this file key by key). %s has %g %s per "
             "instance.", instance, r->count, r->acc);
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "name", nm);
    cJSON_AddStringToObject(doc, "description", desc);
    cJSON_AddStringToObject(doc, "date", dt);
    cJSON_AddStringToObject(doc, "source", src);
    cJSON *gh = cJSON_AddObjectToObject(doc, "gpu_hour");
    if (od)
        cJSON_AddNumberToObject(gh, "on_demand", round(r->price / r->count * 1e4) / 1e4);
    if (!isinf(spot))
        cJSON_AddNumberToObject(gh, "spot", round(spot / r->count * 1e4) / 1e4);
    ts_report_json_print(doc, &b);
    cJSON_Delete(doc);
    rc = ts_cli_emit(&b, out);
    ts_buf_free(&b);
    free(rows);
    return rc;
}
