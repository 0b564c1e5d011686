/*
 * Pieces the subcommands share: option values, the one positional FILE, output.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "cli/cli.h"

int ts_cli_parse_format(const char *value, enum ts_format *out)
{
    for (int i = 0; i < TS_FORMAT_COUNT; i++)
        if (strcmp(value, ts_format_names[i]) == 0) {
            *out = (enum ts_format)i;
            return 0;
        }
    fprintf(stderr, "trainsim: --format: \"%s\" is not one of table, json, csv\n", value);
    return -1;
}

enum ts_format ts_cli_default_format(void)
{
    return isatty(STDOUT_FILENO) ? TS_FORMAT_TABLE : TS_FORMAT_JSON;
}

/* Where stdout output goes instead, when set (compare captures run's answers). */
static struct ts_buf *capture;

void ts_cli_capture_stdout(struct ts_buf *b)
{
    capture = b;
}

int ts_cli_emit(const struct ts_buf *buf, const char *path)
{
    if (!path && capture) {
        ts_buf_append(capture, buf->data ? buf->data : "", buf->len);
        return TS_OK;
    }
    if (path) {
        struct ts_err err;
        if (ts_file_write_atomic(path, buf->data, buf->len, &err)) {
            fprintf(stderr, "trainsim: %s\n", err.msg);
            return err.status;
        }
        return TS_OK;
    }
    errno = 0;
    if (fwrite(buf->data, 1, buf->len, stdout) != buf->len || fflush(stdout) != 0) {
        fprintf(stderr, "trainsim: cannot write to standard output: %s\n",
                errno ? strerror(errno) : "write error");
        return TS_ERR_RUNTIME;
    }
    return TS_OK;
}

/* Whether a and b name the same regular file (or the same absent path). */
static bool same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    bool ha = stat(a, &sa) == 0, hb = stat(b, &sb) == 0;
    if (ha && hb)
        return S_ISREG(sa.st_mode) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    return !ha && !hb && strcmp(a, b) == 0;
}

int ts_cli_check_output(const char *cmd, const char *opt, const char *path,
                        const char *const others[])
{
    struct ts_err err;
    if (ts_file_check_output(path, &err)) {
        fprintf(stderr, "trainsim %s: %s: %s\n", cmd, opt, err.msg);
        return err.status;
    }
    for (int i = 0; others && others[i]; i++)
        if (same_file(path, others[i])) {
            fprintf(stderr, "trainsim %s: %s: %s is the same file as %s, another input or "
                    "output of this command: writing it would destroy the other (name another "
                    "file)\n", cmd, opt, path, others[i]);
            return TS_ERR_INPUT;
        }
    return TS_OK;
}

int ts_cli_parse_long(const char *cmd, const char *opt, const char *value, long lo, long hi,
                      long *out)
{
    char *end;
    errno = 0;
    long v = strtol(value, &end, 10);
    if (errno || end == value || *end || v < lo || v > hi) {
        fprintf(stderr, "trainsim %s: %s: \"%s\" is not a whole number from %ld to %ld\n", cmd,
                opt, value, lo, hi);
        return -1;
    }
    *out = v;
    return 0;
}

int ts_cli_parse_int(const char *cmd, const char *opt, const char *value, int lo, int hi, int *out)
{
    long v;
    if (ts_cli_parse_long(cmd, opt, value, lo, hi, &v))
        return -1;
    *out = (int)v;
    return 0;
}

int ts_cli_positional(const char *cmd, const char *what, const char *arg, const char **file)
{
    if (arg[0] == '-' && arg[1] != '\0') {
        fprintf(stderr, "trainsim %s: unknown option or missing value: %s (see trainsim %s --help)\n",
                cmd, arg, cmd);
        return -1;
    }
    if (*file) {
        fprintf(stderr, "trainsim %s: one %s file at a time (got \"%s\" and \"%s\")\n", cmd, what,
                *file, arg);
        return -1;
    }
    *file = arg;
    return 0;
}

int ts_cli_need_file(const char *cmd, const char *file)
{
    if (file)
        return 0;
    fprintf(stderr, "trainsim %s: missing FILE (see trainsim %s --help)\n", cmd, cmd);
    return -1;
}

void ts_cli_derived_path(const char *path, bool base_only, const char *suffix, char *out, size_t n)
{
    if (base_only) {
        const char *slash = strrchr(path, '/');
        path = slash ? slash + 1 : path;
    }
    size_t len = strlen(path);
    if (len > 5 && strcmp(path + len - 5, ".json") == 0)
        len -= 5;
    int w = snprintf(out, n, "%.*s%s", (int)len, path, suffix);
    if (w < 0 || (size_t)w >= n)
        out[0] = '\0';
}

void ts_cli_print_warnings(void)
{
    int n = ts_warning_count();
    for (int i = 0; i < n; i++)
        fprintf(stderr, "trainsim: warning: %s\n", ts_warning_get(i));
    ts_warning_clear();
}
