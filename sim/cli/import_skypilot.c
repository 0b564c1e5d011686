/*
 * trainsim import skypilot vms.csv: prices from a SkyPilot catalogue file (the public
 * skypilot-org/skypilot-catalog format: columns InstanceType, AcceleratorName,
 * AcceleratorCount, Price, SpotPrice, Region, AvailabilityZone among others, found by their
 * header names). Without --instance it lists the GPU instance types with their cheapest price
 * per GPU-hour; with --instance TYPE it writes a price file (configs/prices format): the
 * on-demand price per GPU-hour = Price / AcceleratorCount in the region (the cheapest region
 * when none is given), spot likewise from the cheapest zone's SpotPrice when the catalogue has
 * one. A catalogue states no date, so the price file's date is the one given (--date) or the
 * day of the import, said so in its source.
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
    char type[96], acc[48], region[64];
    double count, price, spot;     // spot NaN when absent
};

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
    int n = 0, cap = 0, nh = 0;
    struct sky_row *rows = NULL;
    bool header = false;
    long lineno = 0;
    for (size_t pos = 0; pos < len && rc == TS_OK;) {
        size_t end = pos;
        while (end < len && text[end] != '\n')
            end++;
        lineno++;
        char line[4096];
        size_t l = end - pos < sizeof line - 1 ? end - pos : sizeof line - 1;
        memcpy(line, text + pos, l);
        line[l] = '\0';
        pos = end + 1;
        if (line[0] == '\0' || line[0] == '\r')
            continue;
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
        if (!f[idx[C_ACC]][0] || !f[idx[C_COUNT]][0] || !f[idx[C_PRICE]][0])
            continue;       /* a CPU instance, or no price: nothing to price a GPU-hour by */
        struct sky_row r;
        memset(&r, 0, sizeof r);
        ts_strlcpy(r.type, f[idx[C_TYPE]], sizeof r.type);
        ts_strlcpy(r.acc, f[idx[C_ACC]], sizeof r.acc);
        ts_strlcpy(r.region, idx[C_REGION] >= 0 ? f[idx[C_REGION]] : "", sizeof r.region);
        if (!ts_text_number(f[idx[C_COUNT]], &r.count) ||
            !ts_text_number(f[idx[C_PRICE]], &r.price) || !(r.count > 0) || !(r.price >= 0)) {
            rc = ts_err_set(err, TS_ERR_INPUT,
                            "%s:%ld: AcceleratorCount \"%s\" or Price \"%s\" is not a number",
                            file, lineno, f[idx[C_COUNT]], f[idx[C_PRICE]]);
            break;
        }
        r.spot = NAN;
        if (idx[C_SPOT] >= 0 && f[idx[C_SPOT]][0]) {
            double s;
            if (ts_text_number(f[idx[C_SPOT]], &s) && s >= 0)
                r.spot = s;
        }
        if (n == cap) {
            cap = cap ? 2 * cap : 256;
            rows = realloc(rows, (size_t)cap * sizeof *rows);
            TS_ASSERT(rows != NULL, "out of memory reading %s", file);
        }
        rows[n++] = r;
    }
    free(text);
    if (rc == TS_OK && !header)
        rc = ts_err_set(err, TS_ERR_INPUT, "%s: empty (no header line)", file);
    if (rc) {
        free(rows);
        return rc;
    }
    *out = rows;
    *n_out = n;
    return TS_OK;
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
                od = fmin(od, rows[j].price / rows[j].count);
                if (!isnan(rows[j].spot))
                    sp = fmin(sp, rows[j].spot / rows[j].count);
            }
            char sps[32];
            if (isinf(sp))
                snprintf(sps, sizeof sps, "-");
            else
                snprintf(sps, sizeof sps, "%.3f", sp);
            ts_buf_printf(&b, "%-28s %-12s %5.0f %14.3f %10s  %d\n", rows[i].type, rows[i].acc,
                          rows[i].count, od, sps, regions);
        }
        rc = ts_cli_emit(&b, NULL);
        ts_buf_free(&b);
        free(rows);
        return rc;
    }
    /* The price file of one instance type. */
    int best = -1, matches = 0;
    double spot = INFINITY;
    const char *spot_region = NULL;
    for (int i = 0; i < n; i++) {
        if (strcmp(rows[i].type, instance) != 0 || (region && strcmp(rows[i].region, region) != 0))
            continue;
        matches++;
        if (best < 0 || rows[i].price < rows[best].price)
            best = i;
        if (!isnan(rows[i].spot) && rows[i].spot < spot) {
            spot = rows[i].spot;
            spot_region = rows[i].region;
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
    snprintf(src, sizeof src,
             "SkyPilot catalogue %s: %s (%.0f x %s) in %s%s: on-demand $%.4g/h = $%.4f per "
             "GPU-hour%s", file, instance, r->count, r->acc, r->region[0] ? r->region : "(no region)",
             region ? "" : matches > 1 ? " (its cheapest offer)" : "", r->price,
             r->price / r->count, "");
    if (!isinf(spot)) {
        size_t l = strlen(src);
        snprintf(src + l, sizeof src - l, "; spot $%.4g/h = $%.4f per GPU-hour (cheapest zone, %s)",
                 spot, spot / r->count, spot_region);
    }
    snprintf(desc, sizeof desc,
             "LIST PRICES imported from a SkyPilot catalogue: replace them with your contract "
             "prices (a job's own cost keys override this file key by key). %s has %.0f %s per "
             "instance.", instance, r->count, r->acc);
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "name", nm);
    cJSON_AddStringToObject(doc, "description", desc);
    cJSON_AddStringToObject(doc, "date", dt);
    cJSON_AddStringToObject(doc, "source", src);
    cJSON *gh = cJSON_AddObjectToObject(doc, "gpu_hour");
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
