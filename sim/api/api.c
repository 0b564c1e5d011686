/*
 * The library interface (trainsim.h is the manual): each call runs the command's own code with
 * its standard output captured (ts_cli_capture_stdout) and its standard error redirected to a
 * temporary file for the call, so the answer and the messages come back as values.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/trainsim.h"
#include "cli/cli.h"

#define ARGS_MAX 256

/* Read a whole stream from the start into a NUL-terminated string. */
static char *slurp(FILE *f)
{
    struct ts_buf b;
    ts_buf_init(&b);
    rewind(f);
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        ts_buf_append(&b, chunk, n);
    char *s = ts_xmalloc(b.len + 1);
    memcpy(s, b.data ? b.data : "", b.len);
    s[b.len] = '\0';
    ts_buf_free(&b);
    return s;
}

static void result_fail(struct trainsim_result *out, int status, const char *msg)
{
    out->status = status;
    out->json = NULL;
    size_t n = strlen(msg);
    out->messages = ts_xmalloc(n + 1);
    memcpy(out->messages, msg, n + 1);
}

/* Run command `main` with argv {cmd, fixed..., input, options...}; the input is a path, or
 * JSON text written to a temporary file first. */
static int call(int (*main_fn)(int, char **), const char *cmd, const char *const *fixed,
                const char *input, const char *const *options, struct trainsim_result *out)
{
    memset(out, 0, sizeof *out);
    char tmp_json[1024];
    const char *tmpdir = getenv("TMPDIR");
    snprintf(tmp_json, sizeof tmp_json, "%s/trainsim-api-XXXXXX",
             tmpdir && tmpdir[0] ? tmpdir : "/tmp");
    bool wrote = false;
    if (input && input[0] == '{') {
        int fd = mkstemp(tmp_json);
        if (fd < 0) {
            result_fail(out, TRAINSIM_ERR_RUNTIME, "trainsim: cannot create a temporary file\n");
            return out->status;
        }
        size_t n = strlen(input);
        bool ok = write(fd, input, n) == (ssize_t)n;
        close(fd);
        if (!ok) {
            unlink(tmp_json);
            result_fail(out, TRAINSIM_ERR_RUNTIME, "trainsim: cannot write a temporary file\n");
            return out->status;
        }
        wrote = true;
    }
    char *argv[ARGS_MAX + 1];
    int argc = 0;
    argv[argc++] = (char *)cmd;
    for (int i = 0; fixed && fixed[i] && argc < ARGS_MAX; i++)
        argv[argc++] = (char *)fixed[i];
    if (input && argc < ARGS_MAX)
        argv[argc++] = wrote ? tmp_json : (char *)input;
    for (int i = 0; options && options[i]; i++) {
        if (argc >= ARGS_MAX) {
            if (wrote)
                unlink(tmp_json);
            result_fail(out, TRAINSIM_ERR_INPUT, "trainsim: too many options\n");
            return out->status;
        }
        argv[argc++] = (char *)options[i];
    }
    argv[argc] = NULL;

    /* Standard error into a temporary file for the call. */
    fflush(stderr);
    FILE *err = tmpfile();
    int saved = err ? dup(STDERR_FILENO) : -1;
    if (err && saved >= 0)
        dup2(fileno(err), STDERR_FILENO);
    struct ts_buf cap;
    ts_buf_init(&cap);
    ts_cli_capture_stdout(&cap);
    int rc = main_fn(argc, argv);
    ts_cli_capture_stdout(NULL);
    fflush(stderr);
    if (err && saved >= 0) {
        dup2(saved, STDERR_FILENO);
        close(saved);
    }
    out->messages = err ? slurp(err) : NULL;
    if (!out->messages) {
        out->messages = ts_xmalloc(1);
        out->messages[0] = '\0';
    }
    if (err)
        fclose(err);
    if (wrote)
        unlink(tmp_json);
    out->status = rc;
    if (rc == TS_OK) {
        out->json = ts_xmalloc(cap.len + 1);
        memcpy(out->json, cap.data ? cap.data : "", cap.len);
        out->json[cap.len] = '\0';
    }
    ts_buf_free(&cap);
    return rc;
}

int trainsim_run(const char *job, const char *const *options, struct trainsim_result *out)
{
    static const char *const fixed[] = {"--format", "json", NULL};
    if (!job) {
        memset(out, 0, sizeof *out);
        result_fail(out, TRAINSIM_ERR_INPUT, "trainsim run: no job given\n");
        return out->status;
    }
    return call(ts_cli_run, "run", fixed, job, options, out);
}

int trainsim_sweep(const char *sweep, const char *const *options, struct trainsim_result *out)
{
    static const char *const fixed[] = {"--format", "json", "--no-progress", NULL};
    if (!sweep) {
        memset(out, 0, sizeof *out);
        result_fail(out, TRAINSIM_ERR_INPUT, "trainsim sweep: no sweep given\n");
        return out->status;
    }
    return call(ts_cli_sweep, "sweep", fixed, sweep, options, out);
}

int trainsim_list(const char *kind, struct trainsim_result *out)
{
    static const char *const opts[] = {"--format", "json", NULL};
    return call(ts_cli_list, "list", NULL, kind ? kind : "", opts, out);
}

int trainsim_show(const char *name, struct trainsim_result *out)
{
    static const char *const opts[] = {"--format", "json", NULL};
    return call(ts_cli_show, "show", NULL, name ? name : "", opts, out);
}

void trainsim_result_free(struct trainsim_result *r)
{
    if (!r)
        return;
    free(r->json);
    free(r->messages);
    r->json = r->messages = NULL;
}

const char *trainsim_version(void)
{
    return TS_VERSION;
}
