/*
 * Quantities: numbers in SI base units, or strings with a unit of the expected dimension.
 *
 * Decimal prefixes (k, M, G, T, P, E) are powers of 1000 and binary ones (Ki, Mi, Gi, Ti, Pi,
 * Ei) powers of 1024, as IEC 80000-13 defines them. A lower-case "b" is a bit, an upper-case
 * "B" a byte. "Gb/s" and "Gbps" are the same. Years are Julian years (365.25 days).
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

struct prefix {
    const char *name;
    double factor;
};

static const struct prefix prefixes[] = {
    {"", 1.0},       {"k", 1e3},    {"K", 1e3},    {"M", 1e6},    {"G", 1e9},
    {"T", 1e12},     {"P", 1e15},   {"E", 1e18},   {"Ki", 1024.0}, {"Mi", 1048576.0},
    {"Gi", 1073741824.0}, {"Ti", 1099511627776.0}, {"Pi", 1125899906842624.0},
    {"Ei", 1152921504606846976.0},
};

struct suffix {
    const char *name;
    double factor;      // SI base units per (unprefixed) unit
    bool prefixed;      // whether a prefix may precede it
};

static const struct suffix byte_suffixes[] = {
    {"B", 1.0, true}, {"byte", 1.0, true}, {"bytes", 1.0, true},
    {"b", 0.125, true}, {"bit", 0.125, true}, {"bits", 0.125, true},
    {NULL, 0, false},
};

static const struct suffix rate_suffixes[] = {
    {"B/s", 1.0, true}, {"Bps", 1.0, true}, {"byte/s", 1.0, true}, {"bytes/s", 1.0, true},
    {"b/s", 0.125, true}, {"bps", 0.125, true}, {"bit/s", 0.125, true},
    {NULL, 0, false},
};

static const struct suffix flops_suffixes[] = {
    {"FLOP/s", 1.0, true}, {"FLOPS", 1.0, true}, {"flop/s", 1.0, true}, {"flops", 1.0, true},
    {"FLOP/S", 1.0, true},
    {NULL, 0, false},
};

static const struct suffix time_suffixes[] = {
    {"ns", 1e-9, false}, {"us", 1e-6, false}, {"\xc2\xb5s", 1e-6, false}, {"ms", 1e-3, false},
    {"s", 1.0, false}, {"sec", 1.0, false}, {"second", 1.0, false}, {"seconds", 1.0, false},
    {"min", 60.0, false}, {"minute", 60.0, false}, {"minutes", 60.0, false},
    {"h", 3600.0, false}, {"hr", 3600.0, false}, {"hour", 3600.0, false}, {"hours", 3600.0, false},
    {"d", 86400.0, false}, {"day", 86400.0, false}, {"days", 86400.0, false},
    {"w", 604800.0, false}, {"week", 604800.0, false}, {"weeks", 604800.0, false},
    {"y", 31557600.0, false}, {"year", 31557600.0, false}, {"years", 31557600.0, false},
    {NULL, 0, false},
};

static const struct suffix number_suffixes[] = {
    {"", 1.0, false}, {"K", 1e3, false}, {"k", 1e3, false}, {"M", 1e6, false},
    {"B", 1e9, false}, {"G", 1e9, false}, {"T", 1e12, false}, {"%", 0.01, false},
    {NULL, 0, false},
};

static const struct suffix *suffixes_for(enum ts_dim dim)
{
    switch (dim) {
    case TS_DIM_BYTES: return byte_suffixes;
    case TS_DIM_BYTES_PER_S: return rate_suffixes;
    case TS_DIM_FLOPS_PER_S: return flops_suffixes;
    case TS_DIM_SECONDS: return time_suffixes;
    case TS_DIM_NUMBER: return number_suffixes;
    case TS_DIM_COUNT: break;
    }
    return number_suffixes;
}

const char *ts_dim_describe(enum ts_dim dim)
{
    switch (dim) {
    case TS_DIM_NUMBER: return "a number (or a string like \"300B\", \"2T\")";
    case TS_DIM_BYTES: return "a size in bytes (a number, or a string like \"80 GiB\", \"13.8 TB\")";
    case TS_DIM_BYTES_PER_S:
        return "a bandwidth in bytes/s (a number, or a string like \"3.35 TB/s\", \"400 Gb/s\")";
    case TS_DIM_FLOPS_PER_S:
        return "a rate in FLOP/s (a number, or a string like \"312 TFLOP/s\")";
    case TS_DIM_SECONDS:
        return "a duration in seconds (a number, or a string like \"5 us\", \"30 min\", \"54 d\")";
    case TS_DIM_COUNT: break;
    }
    return "a number";
}

/* Factor of a unit string for a dimension, or NAN if it is not one. */
static double unit_factor(const char *unit, enum ts_dim dim)
{
    const struct suffix *s = suffixes_for(dim);
    size_t ulen = strlen(unit);
    for (; s->name; s++) {
        size_t slen = strlen(s->name);
        if (slen > ulen || strcmp(unit + ulen - slen, s->name) != 0)
            continue;
        size_t plen = ulen - slen;
        if (plen == 0)
            return s->factor;
        if (!s->prefixed)
            continue;
        for (size_t i = 0; i < TS_ARRAY_LEN(prefixes); i++)
            if (strlen(prefixes[i].name) == plen && strncmp(unit, prefixes[i].name, plen) == 0)
                return s->factor * prefixes[i].factor;
    }
    return NAN;
}

int ts_quantity_parse(const char *text, enum ts_dim dim, double *out, struct ts_err *err)
{
    const char *p = text;
    while (isspace((unsigned char)*p))
        p++;
    /* strtod also takes "nan", "inf" and hex floats; a quantity must start like a decimal. */
    if (!(isdigit((unsigned char)*p) || *p == '.' || *p == '+' || *p == '-'))
        return ts_err_set(err, TS_ERR_INPUT, "\"%s\" is not %s", text, ts_dim_describe(dim));
    if ((p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) ||
        ((p[0] == '+' || p[0] == '-') && p[1] == '0' && (p[2] == 'x' || p[2] == 'X')))
        return ts_err_set(err, TS_ERR_INPUT, "\"%s\" is not %s", text, ts_dim_describe(dim));
    /* After an optional sign, a digit or a point: "-nan" and "+inf" are not quantities. */
    const char *q = p + (*p == '+' || *p == '-');
    if (!(isdigit((unsigned char)*q) || (*q == '.' && isdigit((unsigned char)q[1]))))
        return ts_err_set(err, TS_ERR_INPUT, "\"%s\" is not %s", text, ts_dim_describe(dim));
    char *end;
    double v = strtod(p, &end);
    if (end == p)
        return ts_err_set(err, TS_ERR_INPUT, "\"%s\" is not %s", text, ts_dim_describe(dim));
    if (!isfinite(v))
        return ts_err_set(err, TS_ERR_INPUT, "\"%s\" is out of range (a finite number is needed)",
                          text);
    while (isspace((unsigned char)*end))
        end++;
    char unit[32];
    size_t ulen = strlen(end);
    while (ulen > 0 && isspace((unsigned char)end[ulen - 1]))
        ulen--;
    if (ulen >= sizeof unit)
        return ts_err_set(err, TS_ERR_INPUT, "\"%s\": unknown unit; expected %s", text,
                          ts_dim_describe(dim));
    memcpy(unit, end, ulen);
    unit[ulen] = '\0';
    double f = unit_factor(unit, dim);
    if (isnan(f)) {
        if (ulen == 0)
            f = 1.0;    /* a bare number in a string is in the base unit */
        else
            return ts_err_set(err, TS_ERR_INPUT, "\"%s\": unknown unit \"%s\"; expected %s", text,
                              unit, ts_dim_describe(dim));
    }
    double r = v * f;
    if (!isfinite(r))
        return ts_err_set(err, TS_ERR_INPUT, "\"%s\" is out of range (a finite number is needed)",
                          text);
    *out = r;
    return TS_OK;
}

char *ts_quantity_format(double value, enum ts_dim dim, char *buf, size_t n)
{
    double a = fabs(value);
    if (!isfinite(value)) {     /* words, never "inf d" or "nan" in a message or a table */
        snprintf(buf, n, "%s", isnan(value) ? "undefined" : value > 0 ? "unbounded" : "-unbounded");
        return buf;
    }
    switch (dim) {
    case TS_DIM_BYTES: {
        static const char *const names[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
        int i = 0;
        while (a >= 1024.0 && i < 6) {
            a /= 1024.0;
            value /= 1024.0;
            i++;
        }
        snprintf(buf, n, i == 0 ? "%.0f %s" : "%.3g %s", value, names[i]);
        break;
    }
    case TS_DIM_BYTES_PER_S: {
        static const char *const names[] = {"B/s", "kB/s", "MB/s", "GB/s", "TB/s", "PB/s"};
        int i = 0;
        while (a >= 1000.0 && i < 5) {
            a /= 1000.0;
            value /= 1000.0;
            i++;
        }
        snprintf(buf, n, "%.3g %s", value, names[i]);
        break;
    }
    case TS_DIM_FLOPS_PER_S: {
        static const char *const names[] = {"FLOP/s", "kFLOP/s", "MFLOP/s", "GFLOP/s", "TFLOP/s",
                                            "PFLOP/s", "EFLOP/s"};
        int i = 0;
        while (a >= 1000.0 && i < 6) {
            a /= 1000.0;
            value /= 1000.0;
            i++;
        }
        snprintf(buf, n, "%.4g %s", value, names[i]);
        break;
    }
    case TS_DIM_SECONDS:
        if (a == 0.0)
            snprintf(buf, n, "0 s");
        else if (a < 1e-3)
            snprintf(buf, n, "%.3g us", value * 1e6);
        else if (a < 1.0)
            snprintf(buf, n, "%.3g ms", value * 1e3);
        else if (a < 120.0)
            snprintf(buf, n, "%.3g s", value);
        else if (a < 7200.0)
            snprintf(buf, n, "%.3g min", value / 60.0);
        else if (a < 3.0 * 86400.0)
            snprintf(buf, n, "%.3g h", value / 3600.0);
        else
            snprintf(buf, n, "%.3g d", value / 86400.0);
        break;
    case TS_DIM_NUMBER:
    case TS_DIM_COUNT:
        snprintf(buf, n, "%.6g", value);
        break;
    }
    return buf;
}
