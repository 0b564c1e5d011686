/*
 * nccl-tests output: reading and fitting (nccl.h is the manual).
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate/nccl.h"

static const struct {
    const char *name;
    enum ts_coll coll;
} coll_names[] = {
    {"all_reduce", TS_COLL_ALLREDUCE},     {"all-reduce", TS_COLL_ALLREDUCE},
    {"allreduce", TS_COLL_ALLREDUCE},      {"all_gather", TS_COLL_ALLGATHER},
    {"all-gather", TS_COLL_ALLGATHER},     {"allgather", TS_COLL_ALLGATHER},
    {"reduce_scatter", TS_COLL_REDUCESCATTER}, {"reduce-scatter", TS_COLL_REDUCESCATTER},
    {"reducescatter", TS_COLL_REDUCESCATTER},  {"alltoall", TS_COLL_ALLTOALL},
    {"all_to_all", TS_COLL_ALLTOALL},      {"all-to-all", TS_COLL_ALLTOALL},
    {"sendrecv", TS_COLL_SENDRECV},        {"send_recv", TS_COLL_SENDRECV},
};

int ts_nccl_coll_from_name(const char *name)
{
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    char low[512];
    size_t i = 0;
    for (; base[i] && i + 1 < sizeof low; i++)
        low[i] = (char)tolower((unsigned char)base[i]);
    low[i] = '\0';
    for (size_t k = 0; k < TS_ARRAY_LEN(coll_names); k++)
        if (strstr(low, coll_names[k].name))
            return (int)coll_names[k].coll;
    return -1;
}

/* busbw / algbw that nccl-tests prints for a collective on n ranks (its PERFORMANCE.md). */
static double bus_factor(enum ts_coll coll, int n)
{
    switch (coll) {
    case TS_COLL_ALLREDUCE:
        return 2.0 * (n - 1) / n;
    case TS_COLL_ALLGATHER:
    case TS_COLL_REDUCESCATTER:
    case TS_COLL_ALLTOALL:
        return (double)(n - 1) / n;
    default:
        return 1.0;
    }
}

/* Split a line into whitespace-separated tokens (in place). */
static int tokenize(char *line, char **tok, int max)
{
    int n = 0;
    char *save = NULL;
    for (char *t = strtok_r(line, " \t\r", &save); t && n < max; t = strtok_r(NULL, " \t\r", &save))
        tok[n++] = t;
    return n;
}

int ts_nccl_parse(const char *text, size_t len, const char *file, int coll,
                  struct ts_nccl_table *out, struct ts_err *err)
{
    memset(out, 0, sizeof *out);
    ts_strlcpy(out->file, file, sizeof out->file);
    if (coll < 0)
        coll = ts_nccl_coll_from_name(file);
    if (coll < 0)
        return ts_err_set(err, TS_ERR_INPUT,
                          "%s: cannot tell which collective this is from its name; say it as "
                          "KIND:FILE (all_reduce, all_gather, reduce_scatter, alltoall, sendrecv)",
                          file);
    out->coll = (enum ts_coll)coll;
    enum { MAX_HOSTS = 1024, MAX_RANKS = 65536 };
    char(*hosts)[128] = ts_xcalloc(MAX_HOSTS, sizeof *hosts);
    short *seen = ts_xcalloc(MAX_RANKS, sizeof *seen);     // host index + 1 of each rank
    int n_hosts = 0, ranks = 0, rc = TS_OK;
    size_t pos = 0;
    long lineno = 0;
    while (pos < len && rc == TS_OK) {
        size_t end = pos;
        while (end < len && text[end] != '\n')
            end++;
        lineno++;
        char line[1024];
        bool cut = end - pos > sizeof line - 1;     // only text lines may be this long
        size_t n = cut ? sizeof line - 1 : end - pos;
        memcpy(line, text + pos, n);
        line[n] = '\0';
        pos = end + 1;
        char *p = line;
        /* An MPI launcher's tag: "[1,0]<stdout>:" */
        if (p[0] == '[') {
            char *tag = strstr(p, "]<stdout>:");
            if (tag)
                p = tag + strlen("]<stdout>:");
        }
        while (*p == ' ' || *p == '\t')
            p++;
        char *tok[32];
        if (p[0] == '#') {
            int nt = tokenize(p + 1, tok, 32);
            if (nt >= 2 && strcmp(tok[0], "Rank") == 0) {
                char *e;
                long r = strtol(tok[1], &e, 10);
                const char *host = NULL;
                for (int k = 2; k + 1 < nt; k++)
                    if (strcmp(tok[k], "on") == 0)
                        host = tok[k + 1];
                if (*e || r < 0 || r >= MAX_RANKS || !host)
                    continue;
                int h = 0;
                while (h < n_hosts && strncmp(hosts[h], host, sizeof hosts[0] - 1) != 0)
                    h++;
                if (h == MAX_HOSTS) {
                    rc = ts_err_set(err, TS_ERR_INPUT, "%s:%ld: more than %d hosts", file,
                                    lineno, MAX_HOSTS);
                    break;
                }
                if (h == n_hosts)
                    ts_strlcpy(hosts[n_hosts++], host, sizeof hosts[0]);
                if (seen[r] && seen[r] != h + 1) {
                    /* One rank on two hosts: two runs' outputs in one file? */
                    rc = ts_err_set(err, TS_ERR_INPUT,
                                    "%s:%ld: rank %ld is listed on %s and on %s (one run's "
                                    "output per file)", file, lineno, r, hosts[seen[r] - 1],
                                    hosts[h]);
                    break;
                }
                if (!seen[r]) {
                    seen[r] = (short)(h + 1);
                    ranks++;
                }
            }
            continue;
        }
        int nt = tokenize(p, tok, 32);
        if (nt == 0)
            continue;
        double size;
        /* A data line starts with the size in bytes; anything else (NCCL INFO lines, the
         * command line) is not a measurement. */
        if (!isdigit((unsigned char)tok[0][0]) || !ts_text_number(tok[0], &size))
            continue;
        if (cut) {
            rc = ts_err_set(err, TS_ERR_INPUT, "%s:%ld: a data line longer than %zu bytes", file,
                            lineno, sizeof line - 1);
            break;
        }
        if (nt < 11) {
            rc = ts_err_set(err, TS_ERR_INPUT,
                            "%s:%ld: a data line with %d columns (nccl-tests prints size, count, "
                            "type, redop, root, then time, algbw, busbw, #wrong out of place and "
                            "in place)", file, lineno, nt);
            break;
        }
        double t_us, algbw, busbw;
        if (!ts_text_number(tok[nt - 8], &t_us) || !ts_text_number(tok[nt - 7], &algbw) ||
            !ts_text_number(tok[nt - 6], &busbw) || t_us <= 0 || algbw < 0 || busbw < 0) {
            rc = ts_err_set(err, TS_ERR_INPUT,
                            "%s:%ld: the out-of-place time, algbw and busbw (\"%s %s %s\") are "
                            "not positive numbers", file, lineno, tok[nt - 8], tok[nt - 7],
                            tok[nt - 6]);
            break;
        }
        if (size <= 0)
            continue;
        if (out->n == TS_NCCL_POINTS_MAX) {
            rc = ts_err_set(err, TS_ERR_INPUT, "%s:%ld: more than %d sizes in one table", file,
                            lineno, TS_NCCL_POINTS_MAX);
            break;
        }
        struct ts_nccl_point *pt = &out->pts[out->n++];
        pt->bytes = size;
        pt->time_s = t_us * 1e-6;
        pt->algbw = algbw * 1e9;
        pt->busbw = busbw * 1e9;
    }
    if (rc == TS_OK && ranks == 0)
        rc = ts_err_set(err, TS_ERR_INPUT,
                        "%s: no \"#  Rank N ... on HOST device D\" lines: cannot tell how many "
                        "GPUs ran (keep the header nccl-tests prints)", file);
    if (rc == TS_OK && out->n == 0)
        rc = ts_err_set(err, TS_ERR_INPUT, "%s: no data lines (size, count, type, ..., time, "
                                           "algbw, busbw)", file);
    out->ranks = ranks;
    out->nodes = n_hosts;
    /* The file's own bus factor must be the collective's. */
    if (rc == TS_OK && ranks > 1) {
        double want = bus_factor(out->coll, ranks);
        for (int i = 0; i < out->n; i++) {
            const struct ts_nccl_point *pt = &out->pts[i];
            if (pt->algbw < 1e9)
                continue;       /* printed with two decimals: too coarse below 1 GB/s */
            double f = pt->busbw / pt->algbw;
            if (fabs(f / want - 1.0) > 0.03) {
                rc = ts_err_set(err, TS_ERR_INPUT,
                                "%s: busbw / algbw is %.3f at %.0f bytes, but %s on %d ranks "
                                "prints %.3f: is this another collective? (name it as KIND:FILE)",
                                file, f, pt->bytes, ts_coll_names[out->coll], ranks, want);
                break;
            }
        }
    }
    free(hosts);
    free(seen);
    return rc;
}

/* ---------------------------------------------------------------- fitting */

double ts_nccl_predict(const struct ts_system *sys, const struct ts_nccl_table *t, double bytes)
{
    struct ts_group g;
    ts_comm_group_strided(sys, t->ranks, 1, &g);
    struct ts_coll_cost c;
    if (t->coll == TS_COLL_SENDRECV) {
        /* sendrecv_perf: every rank sends to the next one and receives from the previous;
         * across nodes when the ring steps over a node boundary, which bounds the time. */
        long distance = t->nodes > 1 ? sys->gpus_per_node : 1;
        ts_comm_p2p(sys, distance, bytes, &c);
    } else {
        ts_comm_collective(sys, t->coll, &g, bytes, &c);
    }
    return c.time_s;
}

struct fit_ctx {
    struct ts_system sys;
    const struct ts_nccl_table *tables;
    int n_tables;
    bool out_level;     // the tables of this level span nodes
    int points;
};

static double objective(struct fit_ctx *f)
{
    double s = 0.0;
    int n = 0;
    for (int i = 0; i < f->n_tables; i++) {
        const struct ts_nccl_table *t = &f->tables[i];
        if ((t->nodes > 1) != f->out_level)
            continue;
        for (int k = 0; k < t->n; k++) {
            double pred = ts_nccl_predict(&f->sys, t, t->pts[k].bytes);
            double e = log(pred / t->pts[k].time_s);
            s += e * e;
            n++;
        }
    }
    f->points = n;
    return n ? s / n : 0.0;
}

/* Golden-section search of *param in [lo, hi] (log space) minimising the objective. */
static void search(struct fit_ctx *f, double *param, double lo, double hi)
{
    const double g = 0.6180339887498949;    /* (sqrt 5 - 1) / 2 */
    double a = log(lo), b = log(hi);
    double c = b - g * (b - a), d = a + g * (b - a);
    *param = exp(c);
    double fc = objective(f);
    *param = exp(d);
    double fd = objective(f);
    for (int it = 0; it < 60; it++) {
        if (fc < fd) {
            b = d;
            d = c;
            fd = fc;
            c = b - g * (b - a);
            *param = exp(c);
            fc = objective(f);
        } else {
            a = c;
            c = d;
            fc = fd;
            d = a + g * (b - a);
            *param = exp(d);
            fd = objective(f);
        }
    }
    *param = exp(fc < fd ? c : d);
}

static void fit_level(struct fit_ctx *f, bool out_level, struct ts_nccl_fit_level *rep)
{
    f->out_level = out_level;
    struct ts_level *L = out_level ? &f->sys.scale_out : &f->sys.scale_up;
    double before = objective(f);
    if (f->points == 0)
        return;
    rep->fitted = true;
    rep->points = f->points;
    rep->efficiency_before = L->efficiency;
    rep->latency_before_s = L->latency;
    rep->reduction_before = L->reduction_efficiency;
    rep->rms_log_before = sqrt(before);
    for (int sweep = 0; sweep < 4; sweep++) {
        search(f, &L->efficiency, 0.05, 1.0);
        search(f, &L->latency, 1e-7, 2e-3);
        if (L->in_network_reduction)
            search(f, &L->reduction_efficiency, 0.05, 1.0);
    }
    rep->efficiency_after = L->efficiency;
    rep->latency_after_s = L->latency;
    rep->reduction_after = L->reduction_efficiency;
    rep->rms_log_after = sqrt(objective(f));
    rep->at_bound = L->efficiency > 0.999 || L->efficiency < 0.0501 || L->latency < 1.001e-7 ||
                    L->latency > 1.999e-3 ||
                    (L->in_network_reduction &&
                     (L->reduction_efficiency > 0.999 || L->reduction_efficiency < 0.0501));
}

int ts_nccl_fit(const struct ts_system *base, const struct ts_nccl_table *tables, int n_tables,
                struct ts_system *fitted, struct ts_nccl_fit_report *report, struct ts_err *err)
{
    memset(report, 0, sizeof *report);
    for (int i = 0; i < n_tables; i++) {
        const struct ts_nccl_table *t = &tables[i];
        int per_node = (t->ranks + t->nodes - 1) / t->nodes;
        if (t->ranks < 2)
            return ts_err_set(err, TS_ERR_INPUT, "%s: one rank measures no communication",
                              t->file);
        if (per_node > base->gpus_per_node)
            return ts_err_set(err, TS_ERR_INPUT,
                              "%s: %d ranks on %d node(s), but %s has %d GPUs per node", t->file,
                              t->ranks, t->nodes, base->name, base->gpus_per_node);
        if (t->nodes > 1 && (t->ranks % t->nodes || per_node != base->gpus_per_node))
            return ts_err_set(err, TS_ERR_INPUT,
                              "%s: a multi-node table must use every GPU of each node (%d ranks "
                              "on %d nodes; %s has %d GPUs per node): the model places ranks "
                              "node by node", t->file, t->ranks, t->nodes, base->name,
                              base->gpus_per_node);
    }
    struct fit_ctx f = {.sys = *base, .tables = tables, .n_tables = n_tables};
    fit_level(&f, false, &report->up);
    fit_level(&f, true, &report->out);
    *fitted = f.sys;
    return TS_OK;
}
