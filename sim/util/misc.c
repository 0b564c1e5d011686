/*
 * Files, clocks, allocation, growable buffers, statistics and seeding helpers.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "util/util.h"

/* ---------------------------------------------------------------- allocation */

void *ts_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    TS_ASSERT(p != NULL, "out of memory allocating %zu bytes", n);
    return p;
}

void *ts_xcalloc(size_t count, size_t n)
{
    void *p = calloc(count ? count : 1, n ? n : 1);
    TS_ASSERT(p != NULL, "out of memory allocating %zu x %zu bytes", count, n);
    return p;
}

void *ts_xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    TS_ASSERT(q != NULL, "out of memory reallocating %zu bytes", n);
    return q;
}

void ts_strlcpy(char *dst, const char *src, size_t n)
{
    if (n == 0)
        return;
    size_t len = strlen(src);
    if (len >= n)
        len = n - 1;
    memcpy(dst, src, len);
    dst[len] = '\0';
}

/* ---------------------------------------------------------------- buffers */

void ts_buf_init(struct ts_buf *b)
{
    b->cap = 256;
    b->len = 0;
    b->data = ts_xmalloc(b->cap);
    b->data[0] = '\0';
}

void ts_buf_free(struct ts_buf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

static void buf_reserve(struct ts_buf *b, size_t extra)
{
    if (b->len + extra + 1 <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 256;
    while (b->len + extra + 1 > cap)
        cap *= 2;
    b->data = ts_xrealloc(b->data, cap);
    b->cap = cap;
}

void ts_buf_append(struct ts_buf *b, const char *s, size_t n)
{
    buf_reserve(b, n);
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void ts_buf_printf(struct ts_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int need = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    TS_ASSERT(need >= 0, "bad format %s", fmt);
    buf_reserve(b, (size_t)need);
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)need + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)need;
}

/* ---------------------------------------------------------------- files */

int ts_file_read(const char *path, char **out, size_t *len, struct ts_err *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return ts_err_set(err, TS_ERR_INPUT, "%s: cannot open: %s", path, strerror(errno));
    struct ts_buf b;
    ts_buf_init(&b);
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        ts_buf_append(&b, chunk, n);
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        ts_buf_free(&b);
        return ts_err_set(err, TS_ERR_INPUT, "%s: read error", path);
    }
    *out = b.data;
    if (len)
        *len = b.len;
    return TS_OK;
}

int ts_file_write_atomic(const char *path, const char *data, size_t len, struct ts_err *err)
{
    char tmp[4096];
    int w = snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    if (w < 0 || (size_t)w >= sizeof tmp)
        return ts_err_set(err, TS_ERR_INPUT, "%s: path too long", path);
    FILE *f = fopen(tmp, "wb");
    if (!f)
        return ts_err_set(err, TS_ERR_RUNTIME, "%s: cannot write: %s", path, strerror(errno));
    size_t put = fwrite(data, 1, len, f);
    int bad = put != len || fflush(f) != 0;
    if (!bad)
        fsync(fileno(f));
    bad |= fclose(f) != 0;
    if (bad) {
        remove(tmp);
        return ts_err_set(err, TS_ERR_RUNTIME, "%s: write failed", path);
    }
    if (rename(tmp, path) != 0) {
        int e = errno;
        remove(tmp);
        return ts_err_set(err, TS_ERR_RUNTIME, "%s: cannot rename into place: %s", path, strerror(e));
    }
    return TS_OK;
}

bool ts_file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

double ts_time_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---------------------------------------------------------------- statistics */

double ts_stats_mean(const double *x, size_t n)
{
    if (n == 0)
        return 0.0;
    double s = 0.0;
    for (size_t i = 0; i < n; i++)
        s += x[i];
    return s / (double)n;
}

double ts_stats_stddev(const double *x, size_t n)
{
    if (n < 2)
        return 0.0;
    double m = ts_stats_mean(x, n), s = 0.0;
    for (size_t i = 0; i < n; i++)
        s += (x[i] - m) * (x[i] - m);
    return sqrt(s / (double)(n - 1));
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void ts_stats_sort(double *x, size_t n)
{
    qsort(x, n, sizeof *x, cmp_double);
}

double ts_stats_percentile_sorted(const double *sorted, size_t n, double q)
{
    if (n == 0)
        return 0.0;
    if (q <= 0.0)
        return sorted[0];
    if (q >= 1.0)
        return sorted[n - 1];
    double h = q * (double)(n - 1);
    size_t lo = (size_t)floor(h);
    size_t hi = lo + 1 < n ? lo + 1 : lo;
    return sorted[lo] + (h - (double)lo) * (sorted[hi] - sorted[lo]);
}

/* ---------------------------------------------------------------- seeding */

/* SplitMix64 finalizer (Steele, Lea, Flood, "Fast splittable pseudorandom number
 * generators", OOPSLA 2014). */
uint64_t ts_rng_mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

uint64_t ts_rng_stream_seed(uint64_t seed, uint64_t index, uint64_t purpose)
{
    return ts_rng_mix64(ts_rng_mix64(ts_rng_mix64(seed) ^ index) ^ (purpose * 0x632be59bd9b4e019ULL));
}
