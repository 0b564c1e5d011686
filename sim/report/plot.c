/*
 * gnuplot as the report's plotting library (audit.h): data and script go to a private
 * temporary directory (mkdtemp, mode 0700), gnuplot runs as a child process with no terminal
 * and no network (`set terminal svg`), and its SVG comes back as text for inlining.
 *
 * Why gnuplot: a maintained plotting program in every distribution (Debian gnuplot-nox, no
 * X11), scriptable, whose SVG terminal needs no JavaScript or fonts at view time, so the page
 * stays one offline file; the experiments already draw their figures with it.
 */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "report/audit.h"

extern char **environ;

static int write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    size_t n = strlen(text);
    int rc = fwrite(text, 1, n, f) == n ? 0 : -1;
    if (fclose(f) != 0)
        rc = -1;
    return rc;
}

/* The script with every @DIR@ replaced by dir. */
static void expand(struct ts_buf *out, const char *script, const char *dir)
{
    const char *p = script, *q;
    while ((q = strstr(p, "@DIR@")) != NULL) {
        ts_buf_append(out, p, (size_t)(q - p));
        ts_buf_append(out, dir, strlen(dir));
        p = q + 5;
    }
    ts_buf_append(out, p, strlen(p));
}

/* Remove the attribute ` NAME="..."` wherever it occurs. */
static void drop_attribute(char *s, const char *name)
{
    size_t nl = strlen(name);
    char *p = s;
    while ((p = strstr(p, name)) != NULL) {
        if (p > s && p[-1] == ' ' && p[nl] == '=' && p[nl + 1] == '"') {
            char *end = strchr(p + nl + 2, '"');
            if (!end)
                return;
            memmove(p - 1, end + 1, strlen(end + 1) + 1);
            p = p - 1;
        } else {
            p += nl;
        }
    }
}

int ts_plot_svg(const char *script, const char *const data[], int n_data, int w, int h,
                struct ts_buf *svg, char *why, size_t n_why)
{
    const char *tmp = getenv("TMPDIR");
    char dir[512];
    snprintf(dir, sizeof dir, "%s/trainsim-plot-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        snprintf(why, n_why, "cannot create a temporary directory: %s", strerror(errno));
        return -1;
    }
    int rc = -1;
    char path[640], script_path[640], svg_path[640], err_path[640];
    snprintf(script_path, sizeof script_path, "%s/plot.gp", dir);
    snprintf(svg_path, sizeof svg_path, "%s/out.svg", dir);
    snprintf(err_path, sizeof err_path, "%s/err.txt", dir);
    for (int i = 0; i < n_data; i++) {
        snprintf(path, sizeof path, "%s/d%d.dat", dir, i);
        if (write_text(path, data[i])) {
            snprintf(why, n_why, "cannot write %s: %s", path, strerror(errno));
            goto cleanup;
        }
    }
    struct ts_buf s;
    ts_buf_init(&s);
    /* Fixed size and font: the same data draw the same SVG. */
    ts_buf_printf(&s, "set terminal svg size %d,%d noenhanced font 'sans,11' background rgb 'white'\n"
                      "set output '%s'\n", w, h, svg_path);
    expand(&s, script, dir);
    ts_buf_printf(&s, "\nset output\n");
    int wr = write_text(script_path, s.data);
    ts_buf_free(&s);
    if (wr) {
        snprintf(why, n_why, "cannot write %s: %s", script_path, strerror(errno));
        goto cleanup;
    }
    const char *prog = getenv("TRAINSIM_GNUPLOT");
    if (!prog || !prog[0])
        prog = "gnuplot";
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    char *argv[] = {(char *)prog, script_path, NULL};
    pid_t pid;
    int sp = posix_spawnp(&pid, prog, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (sp != 0) {
        snprintf(why, n_why, sp == ENOENT ? "gnuplot is not installed (install gnuplot-nox)"
                                          : "cannot run gnuplot: %s", strerror(sp));
        goto cleanup;
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
            snprintf(why, n_why, "gnuplot is not installed (install gnuplot-nox)");
            goto cleanup;
        }
        char *err = NULL;
        size_t len = 0;
        struct ts_err e;
        if (ts_file_read(err_path, &err, &len, &e) == TS_OK) {
            char *line = err;
            while (*line == '\n' || *line == ' ')
                line++;
            line[strcspn(line, "\n")] = '\0';
            snprintf(why, n_why, "gnuplot failed: %s", line[0] ? line : "no message");
            free(err);
        } else {
            snprintf(why, n_why, "gnuplot failed");
        }
        goto cleanup;
    }
    char *text = NULL;
    size_t len = 0;
    struct ts_err e;
    if (ts_file_read(svg_path, &text, &len, &e) != TS_OK) {
        snprintf(why, n_why, "gnuplot wrote no SVG");
        goto cleanup;
    }
    char *start = strstr(text, "<svg");
    if (!start) {
        snprintf(why, n_why, "gnuplot's output is not SVG");
        free(text);
        goto cleanup;
    }
    drop_attribute(start, "xmlns");
    drop_attribute(start, "xmlns:xlink");
    ts_buf_append(svg, start, strlen(start));
    free(text);
    rc = 0;
cleanup:
    for (int i = 0; i < n_data; i++) {
        snprintf(path, sizeof path, "%s/d%d.dat", dir, i);
        unlink(path);
    }
    unlink(script_path);
    unlink(svg_path);
    unlink(err_path);
    rmdir(dir);
    return rc;
}
