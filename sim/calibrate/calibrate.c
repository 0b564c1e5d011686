/*
 * Host calibration: time SGEMMs through OpenBLAS and a STREAM-like memory benchmark, fit
 * trainsim's GEMM model to the measurements, write accelerator and system files, and check a
 * transformer layer's measured GEMM time against trainsim's prediction (see calibrate.h).
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <cblas.h>

#include "calibrate/calibrate.h"
#include "compute/compute.h"

/* ---------------------------------------------------------------- constants */

#define MIN_SAMPLE_S 5e-3       // a timed sample batches calls until it lasts this long
#define MAX_SAMPLES 9           // timed samples per shape (5 when one lasts > 0.1 s)
#define WARMUP_COUNTS_S 0.25    // a warm-up call this long counts as a sample (caches and
                                //   threads are warm long before its end)
#define LATENCY_DIM 8           // the "empty kernel" whose time is the per-call latency
#define LATENCY_CALLS 1000
#define LATENCY_SAMPLES 9
#define STREAM_MAX_REPS 10
#define STREAM_MIN_REPS 3
#define LAYER_MAX_PASSES 7
#define MIB (1024.0 * 1024.0)

/* ---------------------------------------------------------------- small helpers */

double ts_calibrate_gemm_flops(const struct ts_calibrate_gemm *g)
{
    return 2.0 * g->m * (double)g->n * g->k;
}

double ts_calibrate_gemm_out_bytes(const struct ts_calibrate_gemm *g)
{
    return g->accumulate ? 8.0 : 4.0;
}

int ts_calibrate_threads(int threads)
{
    if (threads > 0)
        return threads;
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

void ts_calibrate_options_default(struct ts_calibrate_options *o)
{
    memset(o, 0, sizeof *o);
    o->seconds = 20.0;
    o->threads = 0;
    o->max_dim = 4096;
    o->stream_array_bytes = 0.0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of n values (sorts them). */
static double median(double *x, int n)
{
    TS_ASSERT(n >= 1, "median of %d values", n);
    qsort(x, (size_t)n, sizeof *x, cmp_double);
    return n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}

/* CPU time this process has used, s (all threads). */
static double cpu_seconds(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return 0.0;
    return (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
           (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
}

/* Fraction of `threads` cores this process had between (wall0, cpu0) and now. */
static double cpu_share_since(double wall0, double cpu0, int threads)
{
    double wall = ts_time_now() - wall0;
    return wall > 0 ? (cpu_seconds() - cpu0) / (wall * threads) : 1.0;
}

/* v rounded to `digits` significant digits, so files read cleanly. */
static double round_sig(double v, int digits)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%.*g", digits, v);
    return strtod(buf, NULL);
}

static void set_gemm(struct ts_calibrate_gemm *g, const char *label, int m, int n, int k,
                     bool ta, bool tb, bool acc)
{
    memset(g, 0, sizeof *g);
    ts_strlcpy(g->label, label, sizeof g->label);
    g->m = m;
    g->n = n;
    g->k = k;
    g->trans_a = ta;
    g->trans_b = tb;
    g->accumulate = acc;
}

/* ---------------------------------------------------------------- host description */

/* First value of `key` in /proc/cpuinfo into buf ("" if absent). */
static void cpuinfo_value(const char *key, char *buf, size_t n)
{
    buf[0] = '\0';
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char *line = NULL;
    size_t cap = 0;
    size_t klen = strlen(key);
    while (getline(&line, &cap, f) > 0) {
        if (strncmp(line, key, klen) != 0)
            continue;
        char *colon = strchr(line, ':');
        if (!colon)
            continue;
        char *v = colon + 1;
        while (*v == ' ' || *v == '\t')
            v++;
        v[strcspn(v, "\n")] = '\0';
        ts_strlcpy(buf, v, n);
        break;
    }
    free(line);
    fclose(f);
}

/* Whether the CPU flags list `flag` (e.g. "avx512f"). */
static bool cpu_has_flag(const char *flag)
{
    size_t cap = 16384, len = strlen(flag);
    char *flags = ts_xmalloc(cap);
    cpuinfo_value("flags", flags, cap);
    bool found = false;
    for (const char *p = flags; !found && (p = strstr(p, flag)) != NULL; p += len)
        found = (p == flags || p[-1] == ' ') && (p[len] == ' ' || p[len] == '\0');
    free(flags);
    return found;
}

static void describe_host(struct ts_calibrate_result *r)
{
    if (gethostname(r->host, sizeof r->host) != 0)
        ts_strlcpy(r->host, "unknown-host", sizeof r->host);
    r->host[sizeof r->host - 1] = '\0';
    cpuinfo_value("model name", r->cpu, sizeof r->cpu);
    if (!r->cpu[0])
        ts_strlcpy(r->cpu, "unknown CPU", sizeof r->cpu);
    const char *cfg = openblas_get_config();
    ts_strlcpy(r->blas, cfg ? cfg : "OpenBLAS (unknown build)", sizeof r->blas);
    r->blas[strcspn(r->blas, "\n")] = '\0';
    /* openblas_get_config names the kernel set chosen at load time (e.g. "Haswell") only
     * in some builds; append the core name when it is missing. */
    const char *core = openblas_get_corename();
    if (core && !strstr(r->blas, core)) {
        size_t len = strlen(r->blas);
        snprintf(r->blas + len, sizeof r->blas - len, " core %s", core);
    }
    time_t now = time(NULL);
    struct tm tm;
    if (gmtime_r(&now, &tm))
        strftime(r->date, sizeof r->date, "%Y-%m-%d %H:%M UTC", &tm);
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    r->memory_bytes = pages > 0 && page > 0 ? (double)pages * (double)page : 0.0;
}

/* OpenBLAS falls back to old generic kernels when it does not recognise the CPU (virtual
 * machines often hide the model): warn when the CPU could do far better. */
static void warn_generic_kernels(FILE *progress)
{
    static const char *const generic[] = {"Prescott", "Core2", "Penryn", "Dunnington", "Nehalem",
                                          "Atom", "Katmai", "Coppermine", "Northwood", "Banias",
                                          "generic", NULL};
    const char *core = openblas_get_corename();
    if (!progress || !core)
        return;
    bool is_generic = false;
    for (int i = 0; generic[i]; i++)
        is_generic |= strcmp(core, generic[i]) == 0;
    const char *better = cpu_has_flag("avx512f") ? "SkylakeX" : cpu_has_flag("avx2") ? "Haswell" : NULL;
    if (is_generic && better)
        fprintf(progress,
                "calibrate: warning: OpenBLAS runs its %s kernels, but this CPU has %s: it did not "
                "recognise the CPU. The file will describe the host as this BLAS runs it; to "
                "measure what the CPU can do, rerun with OPENBLAS_CORETYPE=%s.\n",
                core, strcmp(better, "SkylakeX") == 0 ? "AVX-512" : "AVX2", better);
}

/* ---------------------------------------------------------------- GEMM execution */

struct bufs {
    float *a, *b, *c;
};

static void bufs_free(struct bufs *b)
{
    free(b->a);
    free(b->b);
    free(b->c);
    memset(b, 0, sizeof *b);
}

/* Allocate operands big enough for every GEMM of g[0..n) and fill them with small values
 * (no denormals, no growth that matters over a few hundred accumulations). */
static int bufs_alloc(struct bufs *b, const struct ts_calibrate_gemm *g, int n, struct ts_err *err)
{
    size_t na = 1, nb = 1, nc = 1;
    for (int i = 0; i < n; i++) {
        size_t m = (size_t)g[i].m, nn = (size_t)g[i].n, k = (size_t)g[i].k;
        if (m * k > na)
            na = m * k;
        if (k * nn > nb)
            nb = k * nn;
        if (m * nn > nc)
            nc = m * nn;
    }
    memset(b, 0, sizeof *b);
    b->a = malloc(na * sizeof(float));
    b->b = malloc(nb * sizeof(float));
    b->c = malloc(nc * sizeof(float));
    if (!b->a || !b->b || !b->c) {
        bufs_free(b);
        return ts_err_set(err, TS_ERR_RUNTIME, "cannot allocate %.0f MiB of GEMM operands",
                          (double)(na + nb + nc) * sizeof(float) / MIB);
    }
    for (size_t i = 0; i < na; i++)
        b->a[i] = (float)((i * 2654435761u) % 1024) / 1024.0f - 0.5f;
    for (size_t i = 0; i < nb; i++)
        b->b[i] = (float)((i * 40503u + 7) % 1024) / 1024.0f - 0.5f;
    memset(b->c, 0, nc * sizeof(float));
    return TS_OK;
}

static void run_gemm(const struct ts_calibrate_gemm *g, const struct bufs *b)
{
    int lda = g->trans_a ? g->m : g->k;
    int ldb = g->trans_b ? g->k : g->n;
    cblas_sgemm(CblasRowMajor, g->trans_a ? CblasTrans : CblasNoTrans,
                g->trans_b ? CblasTrans : CblasNoTrans, g->m, g->n, g->k, 1.0f, b->a, lda, b->b,
                ldb, g->accumulate ? 1.0f : 0.0f, b->c, g->n);
}

/* Mean time of one call over `calls` back-to-back calls. */
static double time_calls(const struct ts_calibrate_gemm *g, const struct bufs *b, int calls)
{
    double t0 = ts_time_now();
    for (int i = 0; i < calls; i++)
        run_gemm(g, b);
    return (ts_time_now() - t0) / calls;
}

/* A shape being timed: its first sample comes from the discovery pass, the others from
 * rounds over all shapes, so a burst of other work on the host spoils one sample of many
 * shapes rather than every sample of one. */
struct timing {
    struct ts_calibrate_gemm gemm;
    int inner;                      // calls per sample
    int target;                     // samples wanted: MAX_SAMPLES, or 5 for samples > 0.1 s
    int ns;                         // samples taken
    double sample_s;                // duration of one sample (inner calls), s
    double samples[MAX_SAMPLES];    // mean time of one call in each sample, s
};

/* Warm up and take the first sample of a shape. Returns false (nothing measured) if its
 * estimated cost at `rate_est` FLOP/s (0 = unknown) does not fit before `deadline`. */
static bool timing_start(struct timing *t, const struct ts_calibrate_gemm *g, const struct bufs *b,
                         double deadline, double rate_est)
{
    double flops = ts_calibrate_gemm_flops(g);
    if (rate_est > 0 && ts_time_now() + 2.0 * flops / rate_est > deadline)
        return false;
    memset(t, 0, sizeof *t);
    t->gemm = *g;
    t->inner = 1;
    double t1 = time_calls(g, b, 1);
    if (t1 < MIN_SAMPLE_S) {
        double want = ceil(MIN_SAMPLE_S / fmax(t1, 1e-8));
        t->inner = want > 100000 ? 100000 : (int)want;
        time_calls(g, b, t->inner);                 /* warm-up at the sampling rhythm */
        t->samples[t->ns++] = time_calls(g, b, t->inner);
    } else if (t1 >= WARMUP_COUNTS_S) {
        t->samples[t->ns++] = t1;
    } else {
        t->samples[t->ns++] = time_calls(g, b, 1);
    }
    t->sample_s = t->samples[0] * t->inner;
    t->target = t->sample_s > 0.1 ? 5 : MAX_SAMPLES;
    return true;
}

static void timing_point(struct timing *t, struct ts_calibrate_point *p)
{
    memset(p, 0, sizeof *p);
    p->gemm = t->gemm;
    p->flops = ts_calibrate_gemm_flops(&t->gemm);
    p->samples = t->ns;
    p->seconds = median(t->samples, t->ns);
    p->flops_per_s = p->flops / p->seconds;
}

/* ---------------------------------------------------------------- kernel latency */

static int measure_latency(double *out, struct ts_err *err)
{
    struct ts_calibrate_gemm g;
    set_gemm(&g, "latency", LATENCY_DIM, LATENCY_DIM, LATENCY_DIM, false, false, false);
    struct bufs b;
    int rc = bufs_alloc(&b, &g, 1, err);
    if (rc)
        return rc;
    double s[LATENCY_SAMPLES];
    time_calls(&g, &b, LATENCY_CALLS);
    for (int i = 0; i < LATENCY_SAMPLES; i++)
        s[i] = time_calls(&g, &b, LATENCY_CALLS);
    *out = median(s, LATENCY_SAMPLES);
    bufs_free(&b);
    return TS_OK;
}

/* ---------------------------------------------------------------- memory bandwidth */

/* Bytes per STREAM array: 4/3 of the last-level cache (three arrays: 4x the cache in all),
 * within [64 MiB, 512 MiB] and at most RAM / 12 (a quarter of RAM in all). */
static double stream_default_bytes(double ram)
{
    long llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
    if (llc <= 0)
        llc = sysconf(_SC_LEVEL2_CACHE_SIZE);
    double bytes = llc > 0 ? 4.0 * (double)llc / 3.0 : 64 * MIB;
    bytes = fmin(fmax(bytes, 64 * MIB), 512 * MIB);
    if (ram > 0)
        bytes = fmin(bytes, ram / 12.0);
    return bytes;
}

enum stream_kernel { STREAM_COPY, STREAM_TRIAD };

static double stream_pass(enum stream_kernel kind, double *a, double *b, double *c, long n,
                          int threads)
{
    double t0 = ts_time_now();
    if (kind == STREAM_COPY) {
#pragma omp parallel for num_threads(threads) schedule(static)
        for (long i = 0; i < n; i++)
            c[i] = a[i];
    } else {
#pragma omp parallel for num_threads(threads) schedule(static)
        for (long i = 0; i < n; i++)
            a[i] = b[i] + 3.0 * c[i];
    }
    return ts_time_now() - t0;
}

/* Copy and triad medians (bytes/s) over three arrays of `bytes` each, within `budget` s. */
static int measure_stream(double bytes, int threads, double budget, double *copy, double *triad,
                          struct ts_err *err)
{
    long n = (long)(bytes / sizeof(double));
    if (n < 1024)
        n = 1024;
    double *a = malloc((size_t)n * sizeof *a), *b = malloc((size_t)n * sizeof *b),
           *c = malloc((size_t)n * sizeof *c);
    if (!a || !b || !c) {
        free(a);
        free(b);
        free(c);
        return ts_err_set(err, TS_ERR_RUNTIME,
                          "cannot allocate 3 x %.0f MiB for the memory-bandwidth test (use a "
                          "smaller array)", bytes / MIB);
    }
    /* First touch by the threads that stream later (pages land near them). */
#pragma omp parallel for num_threads(threads) schedule(static)
    for (long i = 0; i < n; i++) {
        a[i] = 1.0;
        b[i] = 2.0;
        c[i] = 0.5;
    }
    double t0 = ts_time_now();
    stream_pass(STREAM_COPY, a, b, c, n, threads);      /* warm-up */
    stream_pass(STREAM_TRIAD, a, b, c, n, threads);
    double tc[STREAM_MAX_REPS], tt[STREAM_MAX_REPS];
    int reps = 0;
    while (reps < STREAM_MAX_REPS &&
           (reps < STREAM_MIN_REPS || ts_time_now() - t0 < budget)) {
        tc[reps] = stream_pass(STREAM_COPY, a, b, c, n, threads);
        tt[reps] = stream_pass(STREAM_TRIAD, a, b, c, n, threads);
        reps++;
    }
    /* STREAM's byte counts: copy reads a and writes c, triad reads b and c and writes a. */
    *copy = 2.0 * sizeof(double) * (double)n / median(tc, reps);
    *triad = 3.0 * sizeof(double) * (double)n / median(tt, reps);
    free(a);
    free(b);
    free(c);
    return TS_OK;
}

/* ---------------------------------------------------------------- the grid */

/* Generic shapes up to max_dim, ascending in FLOPs. Returns how many were written. */
static int grid_shapes(int max_dim, struct ts_calibrate_gemm *out, int cap)
{
    int n = 0;
    for (int i = 0; n < cap; i++) {
        /* 64 x 2^(i/2), to the nearest multiple of 16 */
        int d = (int)(16.0 * floor(64.0 * pow(2.0, 0.5 * i) / 16.0 + 0.5));
        if (d > max_dim)
            break;
        set_gemm(&out[n++], "square", d, d, d, false, false, false);
    }
    static const int small[] = {64, 256}, large[] = {1024, 4096};
    for (int li = 0; li < 2; li++)
        for (int si = 0; si < 2; si++) {
            int L = large[li], S = small[si];
            if (L > max_dim || n + 3 > cap)
                continue;
            set_gemm(&out[n++], "skinny", L, L, S, false, false, false);
            set_gemm(&out[n++], "skinny", L, S, L, false, false, false);
            set_gemm(&out[n++], "skinny", S, L, L, false, false, false);
        }
    /* ascending FLOPs (insertion sort: a few dozen shapes) */
    for (int i = 1; i < n; i++) {
        struct ts_calibrate_gemm g = out[i];
        int j = i;
        while (j > 0 && ts_calibrate_gemm_flops(&out[j - 1]) > ts_calibrate_gemm_flops(&g)) {
            out[j] = out[j - 1];
            j--;
        }
        out[j] = g;
    }
    return n;
}

static void progress_point(FILE *f, int i, int n, const struct ts_calibrate_point *p)
{
    if (!f)
        return;
    const struct ts_calibrate_gemm *g = &p->gemm;
    fprintf(f, "calibrate: [%2d/%d] %-12s %5d x %5d x %5d  %9.4g GFLOP  %9.4g ms  %7.2f GFLOP/s\n",
            i, n, g->label, g->m, g->n, g->k, p->flops / 1e9, p->seconds * 1e3,
            p->flops_per_s / 1e9);
    fflush(f);
}

int ts_calibrate_measure(const struct ts_calibrate_options *o, struct ts_calibrate_result *r,
                         struct ts_err *err)
{
    memset(r, 0, sizeof *r);
    if (!(o->seconds > 0) || o->seconds > 86400)
        return ts_err_set(err, TS_ERR_INPUT, "the time budget must be in (0, 86400] s, got %g",
                          o->seconds);
    if (o->max_dim < 0 || o->max_dim > 65536)
        return ts_err_set(err, TS_ERR_INPUT, "the largest grid dimension must be in [0, 65536], "
                          "got %d", o->max_dim);
    if (o->n_extra < 0 || o->n_extra > TS_CALIBRATE_LAYER_GEMMS)
        return ts_err_set(err, TS_ERR_INPUT, "at most %d extra shapes, got %d",
                          TS_CALIBRATE_LAYER_GEMMS, o->n_extra);
    double t_start = ts_time_now(), deadline = t_start + o->seconds;
    FILE *pf = o->progress;
    describe_host(r);
    r->threads = ts_calibrate_threads(o->threads);
    openblas_set_num_threads(r->threads);
    if (pf) {
        fprintf(pf, "calibrate: %s, %s, %d thread%s, budget %.3g s\n", r->cpu, r->blas, r->threads,
                r->threads == 1 ? "" : "s", o->seconds);
        fflush(pf);
    }
    warn_generic_kernels(pf);

    struct ts_calibrate_gemm shapes[TS_CALIBRATE_POINTS_MAX];
    int n_shapes = 0;
    for (int i = 0; i < o->n_extra; i++) {
        const struct ts_calibrate_gemm *g = &o->extra[i];
        if (g->m < 1 || g->n < 1 || g->k < 1)
            return ts_err_set(err, TS_ERR_INPUT, "extra shape %d (%s) has a dimension < 1", i,
                              g->label);
        shapes[n_shapes++] = *g;
    }
    if (o->max_dim > 0)
        n_shapes += grid_shapes(o->max_dim, shapes + n_shapes, TS_CALIBRATE_POINTS_MAX - n_shapes);
    if (n_shapes == 0)
        return ts_err_set(err, TS_ERR_INPUT, "nothing to measure: the grid is off (max_dim 0) "
                          "and no extra shapes were given");

    int rc = measure_latency(&r->kernel_latency_s, err);
    if (rc)
        return rc;
    if (pf)
        fprintf(pf, "calibrate: kernel latency (%dx%dx%d SGEMM call): %.3g us\n", LATENCY_DIM,
                LATENCY_DIM, LATENCY_DIM, r->kernel_latency_s * 1e6);

    r->stream_array_bytes = o->stream_array_bytes > 0 ? o->stream_array_bytes
                                                      : stream_default_bytes(r->memory_bytes);
    double stream_budget = fmin(0.15 * o->seconds, 4.0);
    if ((rc = measure_stream(r->stream_array_bytes, r->threads, stream_budget,
                             &r->copy_bytes_per_s, &r->triad_bytes_per_s, err)))
        return rc;
    if (pf) {
        fprintf(pf, "calibrate: memory bandwidth (3 x %.0f MiB, %d threads): copy %.4g GB/s, "
                    "triad %.4g GB/s\n",
                r->stream_array_bytes / MIB, r->threads, r->copy_bytes_per_s / 1e9,
                r->triad_bytes_per_s / 1e9);
        fflush(pf);
    }

    struct bufs b;
    if ((rc = bufs_alloc(&b, shapes, n_shapes, err)))
        return rc;
    /* Discovery: every shape once, in order, within 60% of what is left; shapes that no
     * longer fit are skipped. Then rounds of further samples until the deadline. */
    struct timing *tm = ts_xcalloc((size_t)n_shapes, sizeof *tm);
    int n_tm = 0;
    double wall0 = ts_time_now(), cpu0 = cpu_seconds();
    double now = ts_time_now(), first_deadline = now + 0.6 * (deadline - now), rate_est = 0.0;
    for (int i = 0; i < n_shapes; i++) {
        const struct ts_calibrate_gemm *g = &shapes[i];
        if (!timing_start(&tm[n_tm], g, &b, first_deadline, rate_est)) {
            r->skipped++;
            if (pf)
                fprintf(pf, "calibrate: [%2d/%d] %-12s %5d x %5d x %5d  skipped: the budget is "
                            "spent (raise --seconds)\n",
                        i + 1, n_shapes, g->label, g->m, g->n, g->k);
            continue;
        }
        struct ts_calibrate_point first;
        timing_point(&tm[n_tm], &first);
        rate_est = first.flops_per_s;
        progress_point(pf, i + 1, n_shapes, &first);
        n_tm++;
    }
    int rounds = 0;
    while (rounds < MAX_SAMPLES - 1) {
        bool took = false;
        for (int i = 0; i < n_tm; i++) {
            struct timing *t = &tm[i];
            if (t->ns >= t->target || ts_time_now() + t->sample_s > deadline)
                continue;
            t->samples[t->ns++] = time_calls(&t->gemm, &b, t->inner);
            took = true;
        }
        if (!took)
            break;
        rounds++;
    }
    r->cpu_share = cpu_share_since(wall0, cpu0, r->threads);
    bufs_free(&b);
    for (int i = 0; i < n_tm; i++) {
        struct ts_calibrate_point *p = &r->points[r->n_points++];
        timing_point(&tm[i], p);
        r->best_flops_per_s = fmax(r->best_flops_per_s, p->flops_per_s);
    }
    free(tm);
    if (pf && n_tm > 0) {
        fprintf(pf, "calibrate: %d more sampling round%s over the %d shapes; this process had "
                    "%.0f%% of %d cores\n", rounds, rounds == 1 ? "" : "s", n_tm,
                100.0 * r->cpu_share, r->threads);
        if (r->cpu_share < TS_CALIBRATE_BUSY_SHARE)
            fprintf(pf, "calibrate: warning: other work shared the cores; the rates are low "
                        "(rerun on an idle host)\n");
    }
    if (r->n_points == 0)
        return ts_err_set(err, TS_ERR_RUNTIME, "no GEMM could be measured within %g s (raise "
                          "--seconds)", o->seconds);

    if ((rc = ts_calibrate_fit(r->points, r->n_points, r->triad_bytes_per_s, r->kernel_latency_s,
                               &r->peak_flops, &r->curve, err)))
        return rc;
    r->elapsed_s = ts_time_now() - t_start;
    if (pf) {
        fprintf(pf, "calibrate: peak %.4g GFLOP/s (best raw %.4g GFLOP/s), %d curve points, %d "
                    "shape%s skipped, %.3g s\n",
                r->peak_flops / 1e9, r->best_flops_per_s / 1e9, r->curve.n, r->skipped,
                r->skipped == 1 ? "" : "s", r->elapsed_s);
        fflush(pf);
    }
    return TS_OK;
}

/* ---------------------------------------------------------------- fitting */

int ts_calibrate_fit(struct ts_calibrate_point *pts, int n, double bandwidth, double latency,
                     double *peak, struct ts_gemm_curve *curve, struct ts_err *err)
{
    if (n < 1 || n > TS_CALIBRATE_POINTS_MAX)
        return ts_err_set(err, TS_ERR_INPUT, "fitting needs 1 to %d measured points, got %d",
                          TS_CALIBRATE_POINTS_MAX, n);
    if (!(bandwidth > 0) || !(latency >= 0))
        return ts_err_set(err, TS_ERR_INPUT, "fitting needs a positive bandwidth and a latency "
                          ">= 0 (got %g B/s, %g s)", bandwidth, latency);
    /* Main-loop rate of each point: trainsim's formula t = main + out/B + L solved for main. */
    double rate[TS_CALIBRATE_POINTS_MAX];
    double best = 0.0;
    for (int i = 0; i < n; i++) {
        struct ts_calibrate_point *p = &pts[i];
        if (!(p->flops > 0) || !(p->seconds > 0) || !isfinite(p->seconds))
            return ts_err_set(err, TS_ERR_INPUT, "point %d (%s): FLOPs and seconds must be > 0 "
                              "(got %g, %g)", i, p->gemm.label, p->flops, p->seconds);
        double out = ts_calibrate_gemm_out_bytes(&p->gemm) * p->gemm.m * (double)p->gemm.n;
        /* Floored at half the measurement: output traffic that would take longer than that
         * at memory bandwidth stayed in cache, where the formula does not apply. */
        double main_s = fmax(p->seconds - out / bandwidth - latency, 0.5 * p->seconds);
        rate[i] = p->flops / main_s;
        best = fmax(best, rate[i]);
    }
    *peak = best;
    for (int i = 0; i < n; i++)
        pts[i].efficiency = fmax(rate[i] / best, 1e-6);

    /* Bin by quarter decades of FLOPs: [mean log10 FLOPs, median efficiency] per bin. */
    int order[TS_CALIBRATE_POINTS_MAX];
    for (int i = 0; i < n; i++) {
        int j = i;
        while (j > 0 && pts[order[j - 1]].flops > pts[i].flops) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = i;
    }
    memset(curve, 0, sizeof *curve);
    for (int i = 0; i < n;) {
        long bin = (long)floor(log10(pts[order[i]].flops) / TS_CALIBRATE_BIN_DECADES + 1e-9);
        double effs[TS_CALIBRATE_POINTS_MAX], logsum = 0.0;
        int cnt = 0;
        while (i < n &&
               (long)floor(log10(pts[order[i]].flops) / TS_CALIBRATE_BIN_DECADES + 1e-9) == bin) {
            effs[cnt++] = pts[order[i]].efficiency;
            logsum += log10(pts[order[i]].flops);
            i++;
        }
        TS_ASSERT(curve->n < TS_CURVE_POINTS_MAX, "more bins (%d) than points", curve->n + 1);
        curve->flops[curve->n] = pow(10.0, logsum / cnt);
        curve->efficiency[curve->n] = fmin(1.0, median(effs, cnt));
        curve->n++;
    }
    return ts_gemm_curve_fit(curve, err);
}

/* ---------------------------------------------------------------- files */

static void add_unit(cJSON *o, const char *key, double v, double scale, const char *unit)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%.4g %s", v / scale, unit);
    cJSON_AddStringToObject(o, key, buf);
}

cJSON *ts_calibrate_accel_json(const struct ts_calibrate_result *r, const char *name)
{
    TS_ASSERT(r->curve.n >= 1 && r->peak_flops > 0, "writing an accelerator without a fit "
              "(%d curve points, peak %g)", r->curve.n, r->peak_flops);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", name);
    cJSON_AddStringToObject(o, "generation", "cpu");
    cJSON *pk = cJSON_AddObjectToObject(o, "peak_flops");
    add_unit(pk, "fp32", r->peak_flops, 1e9, "GFLOP/s");
    add_unit(o, "memory", r->memory_bytes, 1024.0 * MIB, "GiB");
    add_unit(o, "memory_bandwidth", r->triad_bytes_per_s, 1e9, "GB/s");
    cJSON_AddNumberToObject(o, "memory_efficiency", 1.0);
    cJSON_AddNumberToObject(o, "memory_reserved", 0.0);
    add_unit(o, "kernel_latency", r->kernel_latency_s, 1e-6, "us");
    double top = fmax(0.01, round_sig(r->curve.efficiency[r->curve.n - 1], 4));
    cJSON *fl = cJSON_AddObjectToObject(o, "flash_attention");
    cJSON_AddNumberToObject(fl, "fwd", top);
    cJSON_AddNumberToObject(fl, "bwd", top);
    cJSON *curve = cJSON_AddArrayToObject(o, "gemm_efficiency");
    for (int i = 0; i < r->curve.n; i++) {
        cJSON *pt = cJSON_CreateArray();
        cJSON_AddItemToArray(pt, cJSON_CreateNumber(round_sig(r->curve.flops[i], 4)));
        cJSON_AddItemToArray(pt, cJSON_CreateNumber(round_sig(r->curve.efficiency[i], 4)));
        cJSON_AddItemToArray(curve, pt);
    }
    char src[TS_SOURCE_MAX];
    snprintf(src, sizeof src,
             "trainsim calibrate on %s, %s, %s, %s, %d thread%s. fp32 SGEMM (cblas_sgemm) over %d "
             "shapes, median of repeats; peak_flops.fp32 = best measured main-loop rate (a CPU "
             "has no published tensor-core peak, so the curve is relative to the best measured "
             "GEMM and tops at 1.0); best raw rate %.4g GFLOP/s. No bf16/fp16 entries: the host "
             "computes in fp32, so jobs on it must say \"precision\": \"fp32\". memory_bandwidth "
             "= STREAM triad median over 3 x %.0f MiB (copy %.4g GB/s), memory_efficiency 1 (a "
             "measured rate); kernel_latency = median %dx%dx%d SGEMM call; memory = physical "
             "RAM; flash_attention = the large-GEMM efficiency.",
             r->host, r->cpu, r->date, r->blas, r->threads, r->threads == 1 ? "" : "s",
             r->n_points, r->best_flops_per_s / 1e9, r->stream_array_bytes / MIB,
             r->copy_bytes_per_s / 1e9, LATENCY_DIM, LATENCY_DIM, LATENCY_DIM);
    cJSON_AddStringToObject(o, "source", src);
    cJSON_AddStringToObject(
        o, "notes",
        "Efficiencies are main-loop rates (measured time minus output bytes / memory_bandwidth "
        "minus kernel_latency) over the peak, binned per quarter decade of FLOPs (median per "
        "bin), so trainsim's GEMM formula gives back the measured times. Regenerate with "
        "`trainsim calibrate`; the numbers describe this host, this BLAS build and this thread "
        "count only.");
    return o;
}

cJSON *ts_calibrate_system_json(const char *name, const char *accel_ref, const cJSON *accel,
                                double memory_bandwidth)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", name);
    if (accel_ref)
        cJSON_AddStringToObject(o, "accelerator", accel_ref);
    else
        cJSON_AddItemToObject(o, "accelerator", cJSON_Duplicate(accel, true));
    cJSON_AddNumberToObject(o, "gpus_per_node", 1);
    cJSON *up = cJSON_AddObjectToObject(o, "scale_up");
    add_unit(up, "bandwidth", memory_bandwidth, 1e9, "GB/s");
    add_unit(up, "latency", TS_CALIBRATE_SCALE_UP_LATENCY_S, 1e-6, "us");
    cJSON_AddNumberToObject(up, "domain_size", 1);
    cJSON_AddStringToObject(up, "topology", ts_up_topology_names[TS_UP_SWITCH]);
    cJSON *out = cJSON_AddObjectToObject(o, "scale_out");
    add_unit(out, "bandwidth", TS_CALIBRATE_SCALE_OUT_BYTES_PER_S * 8.0, 1e9, "Gb/s");
    add_unit(out, "latency", TS_CALIBRATE_SCALE_OUT_LATENCY_S, 1e-6, "us");
    cJSON_AddStringToObject(out, "topology", ts_out_topology_names[TS_OUT_FAT_TREE]);
    cJSON_AddStringToObject(
        o, "source",
        "trainsim calibrate: this host as one \"GPU\" per node. scale_up: a domain of 1 at the "
        "measured memory bandwidth (moving a tensor between processes on one host is a memory "
        "copy), 1 us; scale_out: nominal 10 Gb/s Ethernet loopback, 50 us, not measured. A "
        "one-GPU job (the honest host run) uses neither.");
    return o;
}

void ts_calibrate_host_system(const struct ts_accel *a, struct ts_system *s)
{
    memset(s, 0, sizeof *s);
    snprintf(s->name, sizeof s->name, "%.50s-node", a->name);
    s->accel = *a;
    s->gpus_per_node = 1;
    /* The parser's defaults for what the file leaves out (hardware.c parse_level). */
    struct ts_level base = {0};
    base.efficiency = 0.8;
    base.oversubscription = 1.0;
    base.leaf_nodes = 32;
    base.reduction_efficiency = 0.6;
    s->scale_up = base;
    s->scale_up.bandwidth = round_sig(a->memory_bandwidth / 1e9, 4) * 1e9;
    s->scale_up.latency = TS_CALIBRATE_SCALE_UP_LATENCY_S;
    s->scale_up.domain_size = 1;
    s->scale_up.topology = TS_UP_SWITCH;
    s->scale_out = base;
    s->scale_out.bandwidth = TS_CALIBRATE_SCALE_OUT_BYTES_PER_S;
    s->scale_out.latency = TS_CALIBRATE_SCALE_OUT_LATENCY_S;
    s->scale_out.topology = TS_OUT_FAT_TREE;
    ts_strlcpy(s->source, "trainsim calibrate host system (see ts_calibrate_system_json)",
               sizeof s->source);
}

int ts_calibrate_json_write(const cJSON *doc, const char *path, struct ts_err *err)
{
    char *text = cJSON_Print(doc);
    if (!text)
        return ts_err_set(err, TS_ERR_RUNTIME, "out of memory printing %s", path);
    struct ts_buf buf;
    ts_buf_init(&buf);
    for (const char *p = text; *p; p++) {
        if (*p == '\t')
            ts_buf_append(&buf, "  ", 2);     /* cJSON indents with tabs */
        else
            ts_buf_append(&buf, p, 1);
    }
    ts_buf_append(&buf, "\n", 1);
    free(text);
    int rc = ts_file_write_atomic(path, buf.data, buf.len, err);
    ts_buf_free(&buf);
    return rc;
}

/* ---------------------------------------------------------------- layer check */

int ts_calibrate_layer_gemms(const struct ts_model *m, int tp, int microbatch, int seq,
                             struct ts_calibrate_gemm out[TS_CALIBRATE_LAYER_GEMMS], int *n,
                             struct ts_err *err)
{
    *n = 0;
    if (seq <= 0)
        seq = m->seq_len;
    if (tp < 1 || m->heads % tp || m->ffn_hidden % tp || (m->kv_heads % tp && tp % m->kv_heads))
        return ts_err_set(err, TS_ERR_INPUT, "tp %d must divide heads (%d), kv_heads (%d) and "
                          "ffn_hidden (%d) of %s", tp, m->heads, m->kv_heads, m->ffn_hidden,
                          m->name);
    if (microbatch < 1)
        return ts_err_set(err, TS_ERR_INPUT, "microbatch must be >= 1, got %d", microbatch);
    /* Local sizes as compute.c's shape_init derives them (cp 1). */
    double T = (double)microbatch * seq;
    int a_l = m->heads / tp;
    int g_l = m->kv_heads >= tp ? m->kv_heads / tp : 1;
    double f_l = (double)m->ffn_hidden / tp * (ts_ffn_gated(m->ffn) ? 2.0 : 1.0);
    double qkv_n = (double)(a_l + 2 * g_l) * m->head_dim;
    double ctx = (double)a_l * m->head_dim, h = m->hidden, f = (double)m->ffn_hidden / tp;
    if (T > INT_MAX / 2 || qkv_n > INT_MAX / 2 || f_l > INT_MAX / 2)
        return ts_err_set(err, TS_ERR_INPUT, "layer too large to execute (%g tokens)", T);
    int Ti = (int)T, hi = (int)h, qi = (int)qkv_n, ci = (int)ctx, f1 = (int)f_l, f2 = (int)f;
    bool sw = ts_ffn_gated(m->ffn);
    int k = 0;
    /* forward, Y = X W^T with weights stored out x in */
    set_gemm(&out[k++], "qkv", Ti, qi, hi, false, true, false);
    set_gemm(&out[k++], "proj", Ti, hi, ci, false, true, false);
    set_gemm(&out[k++], sw ? "gate+up" : "fc1", Ti, f1, hi, false, true, false);
    set_gemm(&out[k++], sw ? "down" : "fc2", Ti, hi, f2, false, true, false);
    /* backward, reverse order: data gradient dX = dY W, weight gradient dW += X^T dY
     * (oriented as compute.c's wgrad(m, n, tokens)) accumulated into fp32 main grads */
    set_gemm(&out[k++], sw ? "down dgrad" : "fc2 dgrad", Ti, f2, hi, false, false, false);
    set_gemm(&out[k++], sw ? "down wgrad" : "fc2 wgrad", f2, hi, Ti, true, false, true);
    set_gemm(&out[k++], sw ? "gate+up dgrad" : "fc1 dgrad", Ti, hi, f1, false, false, false);
    set_gemm(&out[k++], sw ? "gate+up wgrad" : "fc1 wgrad", hi, f1, Ti, true, false, true);
    set_gemm(&out[k++], "proj dgrad", Ti, ci, hi, false, false, false);
    set_gemm(&out[k++], "proj wgrad", ci, hi, Ti, true, false, true);
    set_gemm(&out[k++], "qkv dgrad", Ti, hi, qi, false, false, false);
    set_gemm(&out[k++], "qkv wgrad", hi, qi, Ti, true, false, true);
    *n = k;
    return TS_OK;
}

int ts_calibrate_layer_init(struct ts_calibrate_layer *L, const struct ts_model *m, int tp,
                            int microbatch, int seq, struct ts_err *err)
{
    memset(L, 0, sizeof *L);
    L->model = *m;
    if (seq > 0)
        L->model.seq_len = seq;
    L->tp = tp;
    L->microbatch = microbatch;
    int rc = ts_calibrate_layer_gemms(&L->model, tp, microbatch, 0, L->gemm, &L->n, err);
    for (int i = 0; i < L->n; i++)
        L->flops += ts_calibrate_gemm_flops(&L->gemm[i]);
    return rc;
}

int ts_calibrate_layer_measure(struct ts_calibrate_layer *L, int threads, double seconds,
                               struct ts_err *err)
{
    if (L->n < 1)
        return ts_err_set(err, TS_ERR_INPUT, "the layer check has no GEMMs (call init first)");
    openblas_set_num_threads(ts_calibrate_threads(threads));
    struct bufs b;
    int rc = bufs_alloc(&b, L->gemm, L->n, err);
    if (rc)
        return rc;
    double per[LAYER_MAX_PASSES][TS_CALIBRATE_LAYER_GEMMS], total[LAYER_MAX_PASSES];
    double t_start = ts_time_now(), wall0 = 0.0, cpu0 = 0.0;
    int passes = 0, nthreads = ts_calibrate_threads(threads);
    /* pass -1 is the warm-up */
    for (int pass = -1; pass < LAYER_MAX_PASSES; pass++) {
        double now = ts_time_now(), last = passes > 0 ? total[passes - 1] : now - t_start;
        if (passes >= 1 && now + last > t_start + seconds)
            break;
        if (pass == 0) {
            wall0 = now;
            cpu0 = cpu_seconds();
        }
        double t0 = now, ti = now;
        for (int i = 0; i < L->n; i++) {
            run_gemm(&L->gemm[i], &b);
            double t = ts_time_now();
            if (pass >= 0)
                per[passes][i] = t - ti;
            ti = t;
        }
        if (pass >= 0)
            total[passes++] = ti - t0;
    }
    L->cpu_share = cpu_share_since(wall0, cpu0, nthreads);
    bufs_free(&b);
    for (int i = 0; i < L->n; i++) {
        double col[LAYER_MAX_PASSES];
        for (int p = 0; p < passes; p++)
            col[p] = per[p][i];
        L->measured_s[i] = median(col, passes);
    }
    L->measured_total_s = median(total, passes);
    L->samples = passes;
    return TS_OK;
}

int ts_calibrate_layer_predict(struct ts_calibrate_layer *L, const struct ts_accel *a,
                               struct ts_err *err)
{
    if (L->n < 1)
        return ts_err_set(err, TS_ERR_INPUT, "the layer check has no GEMMs (call init first)");
    if (!(a->peak_flops[TS_PREC_FP32] > 0))
        return ts_err_set(err, TS_ERR_INPUT, "accelerator %s has no fp32 peak (peak_flops.fp32); "
                          "the host runs its GEMMs in fp32", a->name);
    struct ts_job *job = ts_xcalloc(1, sizeof *job);
    job->model = L->model;
    ts_calibrate_host_system(a, &job->system);
    job->gpus = job->nodes = L->tp;
    job->global_batch = L->microbatch;
    job->precision = TS_PREC_FP32;
    ts_parallel_defaults(&job->parallel);
    job->parallel.tp = L->tp;
    job->parallel.dp = 1;
    job->parallel.microbatch = L->microbatch;
    job->parallel.attention = TS_ATTN_FLASH;
    job->parallel.scatter_gather = L->tp > 1;
    job->parallel.bucket_bytes = 40e6 * 4.0;    /* as the job parser defaults it */
    int rc = ts_job_validate(job, "layer check", err);
    if (rc) {
        free(job);
        return rc;
    }
    struct ts_compute *c = ts_xcalloc(1, sizeof *c);
    ts_compute_build(job, c);
    L->predicted_total_s = c->layer.fwd.gemm_s + c->layer.bwd.gemm_s;
    for (int i = 0; i < L->n; i++) {
        const struct ts_calibrate_gemm *g = &L->gemm[i];
        L->predicted_s[i] = ts_compute_gemm_time(job, g->m, g->n, g->k,
                                                 ts_calibrate_gemm_out_bytes(g));
    }
    free(c);
    free(job);
    return TS_OK;
}
