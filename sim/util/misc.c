/*
 * Files (reading inputs, writing outputs safely), input fingerprints, clocks, allocation,
 * growable buffers, statistics and seeding helpers.
 */
#define _XOPEN_SOURCE 700   /* realpath */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/types.h>

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

void ts_csv_field(struct ts_buf *b, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        ts_buf_append(b, s, strlen(s));
        return;
    }
    ts_buf_append(b, "\"", 1);
    for (const char *p = s; *p; p++) {
        if (*p == '"')
            ts_buf_append(b, "\"", 1);
        ts_buf_append(b, p, 1);
    }
    ts_buf_append(b, "\"", 1);
}

void ts_csv_number(struct ts_buf *b, double v)
{
    char t[40];
    if (!isfinite(v))
        return;
    ts_json_format_double(v, t, sizeof t);
    ts_buf_append(b, t, strlen(t));
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
    /* "-" is the standard input (a pipe or a redirected file). O_NONBLOCK: opening a FIFO
     * nobody writes to must not wait for a writer. */
    int fd = strcmp(path, "-") == 0 ? dup(STDIN_FILENO)
                                    : open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
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

/* ---------------------------------------------------------------- output files */

/* What an output path names, links followed (util.h, "Output files"). */
enum out_kind {
    OUT_NEW,        // nothing: created through a temporary file
    OUT_REPLACE,    // a regular file: replaced through a temporary file
    OUT_THROUGH,    // a device or a FIFO: opened and written
    OUT_FD,         // /dev/stdout, /dev/stderr, /dev/fd/N: that descriptor
};

struct out_target {
    enum out_kind kind;
    int fd;                     // OUT_FD: the descriptor
    char file[PATH_MAX];        // OUT_NEW / OUT_REPLACE: the file to create or replace (a
                                //   link's final target)
    mode_t mode;                // OUT_REPLACE: its permission bits, kept
};

/* The directory part of path ("." for a bare name). */
static void dir_of(const char *path, char *dir, size_t n)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        ts_strlcpy(dir, ".", n);
    else if (slash == path)
        ts_strlcpy(dir, "/", n);
    else
        snprintf(dir, n, "%.*s", (int)(slash - path), path);
}

/* The directory that will hold file must exist and take new files. */
static int check_dir(const char *shown, const char *file, struct ts_err *err)
{
    char dir[PATH_MAX];
    dir_of(file, dir, sizeof dir);
    struct stat st;
    if (stat(dir, &st) != 0) {
        if (errno == ENOENT)
            return ts_err_set(err, TS_ERR_INPUT, "%s: the directory %s does not exist (create it "
                              "or name a file in another directory)", shown, dir);
        return ts_err_set(err, TS_ERR_INPUT, "%s: cannot use the directory %s: %s", shown, dir,
                          strerror(errno));
    }
    if (!S_ISDIR(st.st_mode))
        return ts_err_set(err, TS_ERR_INPUT, "%s: %s is not a directory", shown, dir);
    if (access(dir, W_OK | X_OK) != 0)
        return ts_err_set(err, TS_ERR_INPUT, "%s: cannot create files in the directory %s: %s "
                          "(the file is written beside its final name first, then renamed)",
                          shown, dir, strerror(errno));
    return TS_OK;
}

/* /dev/stdout, /dev/stderr and /dev/fd/N: the descriptor, or -1 for any other path. */
static int fd_name(const char *path)
{
    if (strcmp(path, "/dev/stdout") == 0)
        return STDOUT_FILENO;
    if (strcmp(path, "/dev/stderr") == 0)
        return STDERR_FILENO;
    if (strncmp(path, "/dev/fd/", 8) == 0 && path[8] >= '0' && path[8] <= '9') {
        char *end;
        long fd = strtol(path + 8, &end, 10);
        if (*end == '\0' && fd >= 0 && fd <= 1 << 20)
            return (int)fd;
    }
    return -1;
}

/* What path names and how it is written; TS_ERR_INPUT when it cannot be. */
static int out_classify(const char *path, struct out_target *t, struct ts_err *err)
{
    memset(t, 0, sizeof *t);
    if (!path[0])
        return ts_err_set(err, TS_ERR_INPUT, "an output file name is empty");
    if (strlen(path) >= sizeof t->file - 32)
        return ts_err_set(err, TS_ERR_INPUT, "%.80s...: output path too long", path);
    int fd = fd_name(path);
    if (fd >= 0) {
        int fl = fcntl(fd, F_GETFL);
        if (fl < 0 || (fl & O_ACCMODE) == O_RDONLY)
            return ts_err_set(err, TS_ERR_INPUT, "%s: descriptor %d is not open for writing",
                              path, fd);
        t->kind = OUT_FD;
        t->fd = fd;
        return TS_OK;
    }
    struct stat st;
    if (lstat(path, &st) != 0) {
        if (errno == ENOTDIR)   /* a file where a directory should be: check_dir says which */
            return check_dir(path, path, err);
        if (errno != ENOENT)
            return ts_err_set(err, TS_ERR_INPUT, "%s: cannot write there: %s", path,
                              strerror(errno));
        t->kind = OUT_NEW;
        ts_strlcpy(t->file, path, sizeof t->file);
        return check_dir(path, path, err);
    }
    bool link = S_ISLNK(st.st_mode);
    if (link && stat(path, &st) != 0) {
        if (errno == ENOENT)
            return ts_err_set(err, TS_ERR_INPUT, "%s: a symbolic link to a file that does not "
                              "exist; trainsim does not create files through a dangling link "
                              "(remove the link or name another file)", path);
        return ts_err_set(err, TS_ERR_INPUT, "%s: cannot follow the symbolic link: %s", path,
                          strerror(errno));
    }
    if (S_ISDIR(st.st_mode))
        return ts_err_set(err, TS_ERR_INPUT, "%s: is a directory (name a file, e.g. %s/out.json)",
                          path, path);
    if (S_ISSOCK(st.st_mode))
        return ts_err_set(err, TS_ERR_INPUT, "%s: is a socket; trainsim writes files, devices "
                          "and FIFOs only", path);
    if (access(path, W_OK) != 0)
        return ts_err_set(err, TS_ERR_INPUT, "%s: not writable: %s", path, strerror(errno));
    if (!S_ISREG(st.st_mode)) {
        t->kind = OUT_THROUGH;  /* character or block device, FIFO */
        return TS_OK;
    }
    t->kind = OUT_REPLACE;
    t->mode = st.st_mode & 07777;
    if (!link) {
        ts_strlcpy(t->file, path, sizeof t->file);
    } else if (!realpath(path, t->file)) {
        return ts_err_set(err, TS_ERR_INPUT, "%s: cannot follow the symbolic link: %s", path,
                          strerror(errno));
    }
    return check_dir(path, t->file, err);
}

int ts_file_check_output(const char *path, struct ts_err *err)
{
    struct out_target t;
    return out_classify(path, &t, err);
}

/* Write all of data to fd, retrying short writes and interruptions. 0 or an errno value. */
static int write_all(int fd, const char *data, size_t len)
{
    while (len > 0) {
        ssize_t w = write(fd, data, len);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return errno;
        }
        data += w;
        len -= (size_t)w;
    }
    return 0;
}

/* The signals whose default action ends the process and that a user or scheduler sends. */
static void fatal_signals(sigset_t *set)
{
    sigemptyset(set);
    sigaddset(set, SIGINT);
    sigaddset(set, SIGTERM);
    sigaddset(set, SIGHUP);
    sigaddset(set, SIGQUIT);
}

/* Create file's temporary sibling exclusively: "FILE.tmp.PID.XXXXXXXX", another name if one
 * is taken (a planted file or link is never opened). The fd, or -1 with errno set. */
static int create_temp(const char *file, char *tmp, size_t n)
{
    static _Atomic unsigned long counter;
    uint64_t salt = ts_rng_mix64((uint64_t)getpid() ^ (uint64_t)(ts_time_now() * 1e9));
    for (int attempt = 0; attempt < 100; attempt++) {
        uint64_t r = ts_rng_mix64(salt ^ counter++);
        snprintf(tmp, n, "%s.tmp.%ld.%08lx", file, (long)getpid(),
                 (unsigned long)(r & 0xffffffffUL));
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd >= 0 || errno != EEXIST)
            return fd;
    }
    errno = EEXIST;
    return -1;
}

/* Write data to a temporary file next to t->file and rename it over t->file. */
static int write_replace(const char *path, const struct out_target *t, const char *data,
                         size_t len, struct ts_err *err)
{
    sigset_t block, old;
    fatal_signals(&block);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    char tmp[PATH_MAX + 64];
    int rc = TS_OK;
    int fd = create_temp(t->file, tmp, sizeof tmp);
    if (fd < 0) {
        char dir[PATH_MAX];
        dir_of(t->file, dir, sizeof dir);
        rc = ts_err_set(err, TS_ERR_RUNTIME, "%s: cannot create a temporary file in %s: %s",
                        path, dir, strerror(errno));
        goto done;
    }
    if (t->kind == OUT_REPLACE)
        (void)fchmod(fd, t->mode);  /* keep the file's permissions (best effort) */
    int e = write_all(fd, data, len);
    if (!e && fsync(fd) != 0 && errno != EINVAL && errno != EROFS)
        e = errno;
    if (close(fd) != 0 && !e)
        e = errno;
    if (!e && rename(tmp, t->file) != 0)
        e = errno;
    if (e) {
        unlink(tmp);
        rc = ts_err_set(err, TS_ERR_RUNTIME, "%s: cannot write: %s", path, strerror(e));
        goto done;
    }
    /* The rename itself reaches the disk with the directory (best effort). */
    char dir[PATH_MAX];
    dir_of(t->file, dir, sizeof dir);
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        (void)fsync(dfd);
        close(dfd);
    }
done:
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc;
}

int ts_file_write_atomic(const char *path, const char *data, size_t len, struct ts_err *err)
{
    struct out_target t;
    if (out_classify(path, &t, err)) {
        /* Checked before the work (ts_file_check_output): what fails now changed since. */
        if (err)
            err->status = TS_ERR_RUNTIME;
        return TS_ERR_RUNTIME;
    }
    if (t.kind == OUT_NEW || t.kind == OUT_REPLACE)
        return write_replace(path, &t, data, len, err);
    int fd = t.fd, e = 0;
    if (t.kind == OUT_FD) {
        /* What stdio holds for the same descriptor goes first. */
        fflush(fd == STDOUT_FILENO ? stdout : fd == STDERR_FILENO ? stderr : NULL);
    }
    if (t.kind == OUT_THROUGH) {
        do
            fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
        while (fd < 0 && errno == EINTR);
        if (fd < 0)
            return ts_err_set(err, TS_ERR_RUNTIME, "%s: cannot open for writing: %s", path,
                              strerror(errno));
    }
    e = write_all(fd, data, len);
    if (t.kind == OUT_THROUGH) {
        if (close(fd) != 0 && !e && errno != EINTR)
            e = errno;
    }
    if (e)
        return ts_err_set(err, TS_ERR_RUNTIME, "%s: cannot write: %s", path, strerror(e));
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

/* ---------------------------------------------------------------- input fingerprints */

uint64_t ts_fnv1a64(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ULL;     /* the 64-bit FNV prime, 2^40 + 2^8 + 0xb3 */
    }
    return h;
}

uint64_t ts_fnv1a64_u64(uint64_t h, uint64_t v)
{
    unsigned char b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)(v >> (8 * i));
    return ts_fnv1a64(h, b, sizeof b);
}

void ts_inputs_init(struct ts_inputs *in)
{
    memset(in, 0, sizeof *in);
    in->hash = TS_FNV1A64_INIT;
}

void ts_inputs_record(struct ts_inputs *in, const char *path, const cJSON *doc)
{
    if (!in)
        return;
    char *text = cJSON_PrintUnformatted(doc);
    TS_ASSERT(text != NULL, "out of memory printing %s", path);
    uint64_t h = ts_fnv1a64(TS_FNV1A64_INIT, text, strlen(text));
    cJSON_free(text);
    in->hash = ts_fnv1a64_u64(in->hash, h);
    in->recorded++;
    for (int i = 0; i < in->n; i++)
        if (in->files[i].hash == h &&
            strncmp(in->files[i].path, path, sizeof in->files[i].path - 1) == 0)
            return;
    if (in->n < TS_INPUTS_MAX) {
        ts_strlcpy(in->files[in->n].path, path, sizeof in->files[in->n].path);
        in->files[in->n].hash = h;
        in->n++;
    }
}

/* ---------------------------------------------------------------- warnings */

static char *warnings[TS_WARNINGS_MAX];
static int warnings_n;

void ts_warning_add(const char *text)
{
#pragma omp critical(ts_warnings)
    {
        bool seen = false;
        for (int i = 0; i < warnings_n && !seen; i++)
            seen = strcmp(warnings[i], text) == 0;
        if (!seen && warnings_n < TS_WARNINGS_MAX) {
            size_t n = strlen(text) + 1;
            char *copy = malloc(n);
            TS_ASSERT(copy != NULL, "out of memory keeping a warning");
            memcpy(copy, text, n);
            warnings[warnings_n++] = copy;
        }
    }
}

int ts_warning_count(void)
{
    int n;
#pragma omp critical(ts_warnings)
    n = warnings_n;
    return n;
}

const char *ts_warning_get(int i)
{
    const char *w = NULL;
#pragma omp critical(ts_warnings)
    w = i >= 0 && i < warnings_n ? warnings[i] : NULL;
    return w;
}

void ts_warning_clear(void)
{
#pragma omp critical(ts_warnings)
    {
        for (int i = 0; i < warnings_n; i++)
            free(warnings[i]);
        warnings_n = 0;
    }
}

/* ---------------------------------------------------------------- CSV */

int ts_csv_split(char *line, char **f, int max)
{
    int n = 0;
    char *p = line;
    while (n < max) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '"') {
            char *w = ++p;
            f[n++] = w;
            while (*p) {
                if (p[0] == '"' && p[1] == '"') {
                    *w++ = '"';
                    p += 2;
                } else if (*p == '"') {
                    p++;
                    break;
                } else {
                    *w++ = *p++;
                }
            }
            *w = '\0';
            while (*p && *p != ',')
                p++;
        } else {
            f[n++] = p;
            while (*p && *p != ',')
                p++;
        }
        char *end = p;
        if (*p == ',')
            *p++ = '\0';
        else
            p = NULL;
        /* trim trailing blanks of an unquoted field */
        while (end > f[n - 1] && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
            *--end = '\0';
        if (!p)
            break;
    }
    return n;
}


bool ts_text_number(const char *s, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || !isfinite(v))
        return false;
    *out = v;
    return true;
}
