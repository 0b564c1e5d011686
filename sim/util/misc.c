/*
 * Files, clocks, allocation, growable buffers, statistics and seeding helpers.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
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

int ts_file_read_limited(const char *path, size_t limit, char **out, size_t *len,
                         struct ts_err *err)
{
    char lim[48];
    ts_quantity_format((double)limit, TS_DIM_BYTES, lim, sizeof lim);
    /* O_NONBLOCK: opening a FIFO nobody writes to must not wait for a writer. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return ts_err_at(err, path, "", "cannot open: %s", strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return ts_err_at(err, path, "", "cannot open: %s", strerror(e));
    }
    if (S_ISDIR(st.st_mode)) {
        close(fd);
        return ts_err_at(err, path, "", "is a directory, not a file");
    }
    if (S_ISREG(st.st_mode) && (uintmax_t)st.st_size > (uintmax_t)limit) {
        char have[48];
        ts_quantity_format((double)st.st_size, TS_DIM_BYTES, have, sizeof have);
        close(fd);
        return ts_err_at(err, path, "", "the file is %s, more than the %s limit for input files",
                         have, lim);
    }
    /* Blocking reads from here: a pipe with a writer (a shell's <(...)) is read to its end,
     * and a FIFO without one reads as empty at once. */
    int flags = fcntl(fd, F_GETFL);
    if (flags >= 0)
        fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    /* A regular file gets its size (+1 to see the end) at once; streams and devices grow
     * the buffer, never past the limit + 1 byte that proves the input too long. */
    size_t cap = S_ISREG(st.st_mode) ? (size_t)st.st_size + 1 : 65536;
    if (cap > limit + 1)
        cap = limit + 1;
    char *data = malloc(cap + 1);
    size_t used = 0;
    int rc = TS_OK;
    while (data) {
        if (used == cap) {
            if (cap == limit + 1)
                break;
            size_t grown = cap > (limit + 1) / 2 ? limit + 1 : 2 * cap;
            char *more = realloc(data, grown + 1);
            if (!more) {
                free(data);
                data = NULL;
                break;
            }
            data = more;
            cap = grown;
        }
        ssize_t got = read(fd, data + used, cap - used);
        if (got == 0)
            break;
        if (got < 0) {
            if (errno == EINTR)
                continue;
            rc = ts_err_at(err, path, "", "read error: %s", strerror(errno));
            break;
        }
        used += (size_t)got;
    }
    close(fd);
    if (!data)
        return ts_err_at(err, path, "", "out of memory reading the file (at most %s are read)",
                         lim);
    if (rc == TS_OK && used > limit)
        rc = ts_err_at(err, path, "",
                       "more than %s read; input files are limited to %s (is it a device or an "
                       "endless stream?)", lim, lim);
    if (rc == TS_OK && used == 0 && S_ISFIFO(st.st_mode))
        rc = ts_err_at(err, path, "", "is a FIFO or pipe that delivered nothing (no process "
                       "writes to it)");
    if (rc) {
        free(data);
        return rc;
    }
    data[used] = '\0';
    *out = data;
    if (len)
        *len = used;
    return TS_OK;
}

int ts_file_read(const char *path, char **out, size_t *len, struct ts_err *err)
{
    return ts_file_read_limited(path, TS_INPUT_MAX_BYTES, out, len, err);
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
