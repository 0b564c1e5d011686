/*
 * `trainsim sweep FILE`: search clusters and layouts.
 */
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "search/search.h"

void ts_cli_sweep_help(FILE *f)
{
    fprintf(f,
            "usage: trainsim sweep FILE [--format table|json|csv] [--csv OUT.csv] [--threads N]\n"
            "                      [--top K] [--exhaustive] [--no-progress] [--max-configs N]\n"
            "                      [--partial OUT.partial.json] [--resume PARTIAL]\n"
            "\n"
            "Search GPU types, node counts, pricing models, software profiles and parallel layouts\n"
            "for the cheapest (or fastest) setup that trains the sweep's model on its token budget\n"
            "while meeting its constraint (a throughput target or a deadline), failures and\n"
            "restarts included.\n"
            "\n"
            "Every valid layout is screened with a lower bound; the promising ones are simulated\n"
            "(discrete-event iteration, analytic run model, the bill) in parallel; the top K get\n"
            "a failure Monte Carlo. The answer is the same as evaluating every layout, and the\n"
            "same for any thread count.\n"
            "\n"
            "options:\n"
            "  --format F       table (default on a terminal), json (default otherwise), csv (top K)\n"
            "  --csv OUT        also write every screened configuration with its status to OUT\n"
            "  --threads N      OpenMP threads (default: all cores)\n"
            "  --top K          report the K best (default: the file's \"top\", else 10)\n"
            "  --exhaustive     simulate every layout that fits (no pruning; slower, same answer)\n"
            "  --no-progress    no progress bar on stderr\n"
            "  --max-configs N  refuse (exit 2) a sweep that enumerates more than N layouts\n"
            "                   (default 4000000; the shipped sweeps enumerate up to 1.6 M);\n"
            "                   the message gives the count. Memory does not grow with the\n"
            "                   count, time does (about 250,000 layouts a second per core)\n"
            "  --partial P      where an interrupted sweep saves its finished work (default:\n"
            "                   NAME.partial.json in the working directory, NAME being FILE's\n"
            "                   base name without .json)\n"
            "  --resume P       continue the interrupted sweep whose work P holds; the answer is\n"
            "                   the same as an uninterrupted run's. P must come from the same\n"
            "                   FILE, unchanged (exit 2 otherwise); it is left in place\n"
            "\n"
            "Ctrl-C (SIGINT) stops the sweep within a second, in screening, simulation or the\n"
            "finalists' Monte Carlo: it writes the finished work to the partial file (marked\n"
            "\"trainsim_partial_sweep\"), says how to resume, and exits with status 130. A second Ctrl-C stops at once. Output files are\n"
            "written to a temporary name and renamed when complete. (For tests, the environment\n"
            "variables TRAINSIM_TEST_STOP_AFTER_BATCHES=N and TRAINSIM_TEST_STOP_AFTER_FINALISTS=N\n"
            "act as a Ctrl-C after N batches or N finalists' Monte Carlo runs.)\n"
            "\n"
            "examples:\n"
            "  trainsim sweep configs/quickstart-sweep.json\n"
            "  trainsim sweep configs/llama3-70b-sizing-sweep.json --format json > answer.json\n"
            "  trainsim sweep configs/gpt3-175b-layout-sweep.json --csv all.csv\n");
}

/* Raised by SIGINT; the sweep polls it between batches. */
static volatile sig_atomic_t stop_flag;

static void on_sigint(int sig)
{
    (void)sig;
    stop_flag = 1;     /* SA_RESETHAND: a second Ctrl-C takes the default action */
}

int ts_cli_sweep(int argc, char **argv)
{
    const char *file = NULL, *csv = NULL, *partial = NULL, *resume = NULL;
    enum ts_format format = ts_cli_default_format();
    struct ts_sweep_options opt;
    memset(&opt, 0, sizeof opt);
    opt.progress = isatty(STDERR_FILENO);
    int top = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool has_value = i + 1 < argc;
        if (strcmp(a, "--format") == 0 && has_value) {
            if (ts_cli_parse_format(argv[++i], &format))
                return TS_ERR_INPUT;
        } else if (strcmp(a, "--csv") == 0 && has_value) {
            csv = argv[++i];
        } else if (strcmp(a, "--partial") == 0 && has_value) {
            partial = argv[++i];
        } else if (strcmp(a, "--resume") == 0 && has_value) {
            resume = argv[++i];
        } else if (strcmp(a, "--threads") == 0 && has_value) {
            if (ts_cli_parse_int("sweep", a, argv[++i], 1, 4096, &opt.threads))
                return TS_ERR_INPUT;
        } else if (strcmp(a, "--top") == 0 && has_value) {
            if (ts_cli_parse_int("sweep", a, argv[++i], 1, 4096, &top))
                return TS_ERR_INPUT;
        } else if (strcmp(a, "--max-configs") == 0 && has_value) {
            long n;
            if (ts_cli_parse_long("sweep", a, argv[++i], 1, LONG_MAX, &n))
                return TS_ERR_INPUT;
            opt.max_configs = (uint64_t)n;
        } else if (strcmp(a, "--exhaustive") == 0) {
            opt.exhaustive = true;
        } else if (strcmp(a, "--no-progress") == 0) {
            opt.progress = false;
        } else if (ts_cli_positional("sweep", "sweep", a, &file)) {
            return TS_ERR_INPUT;
        }
    }
    if (ts_cli_need_file("sweep", file))
        return TS_ERR_INPUT;
    opt.csv_path = csv;

    struct ts_err err;
    ts_err_clear(&err);
    struct ts_sweep *sw = ts_xmalloc(sizeof *sw);
    int rc = ts_sweep_load(file, sw, &err);
    if (rc) {
        fprintf(stderr, "trainsim: %s\n", err.msg);
        free(sw);
        return rc;
    }
    if (top)
        sw->top = top;
    struct ts_sweep_progress done;
    memset(&done, 0, sizeof done);
    if (resume) {
        if ((rc = ts_sweep_progress_load(resume, sw, &done, &err))) {
            fprintf(stderr, "trainsim: %s\n", err.msg);
            free(sw);
            return rc;
        }
        opt.resume = &done;
    }
    char partial_buf[1024];
    if (!partial) {
        ts_cli_derived_path(file, true, ".partial.json", partial_buf, sizeof partial_buf);
        partial = partial_buf;
    }
    const char *after = getenv("TRAINSIM_TEST_STOP_AFTER_BATCHES");
    if (after && after[0])
        opt.stop_after_batches = strtol(after, NULL, 10);
    const char *after_mc = getenv("TRAINSIM_TEST_STOP_AFTER_FINALISTS");
    if (after_mc && after_mc[0])
        opt.stop_after_finalists = strtol(after_mc, NULL, 10);
    stop_flag = 0;
    opt.stop = &stop_flag;
    struct sigaction sa, old_sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESETHAND;
    sigaction(SIGINT, &sa, &old_sa);

    struct ts_sweep_result *res = ts_xmalloc(sizeof *res);
    rc = ts_sweep_run(sw, &opt, res, &err);
    sigaction(SIGINT, &old_sa, NULL);
    ts_sweep_progress_free(&done);
    if (rc) {
        fprintf(stderr, "trainsim: %s%s%s\n", resume && rc == TS_ERR_INPUT ? resume : "",
                resume && rc == TS_ERR_INPUT ? ": " : "", err.msg);
    } else if (res->interrupted) {
        if (opt.progress)
            fputc('\n', stderr);
        if ((rc = ts_sweep_progress_write(partial, sw, &res->progress, &err))) {
            fprintf(stderr, "trainsim: interrupted; could not save the finished work: %s\n", err.msg);
        } else {
            fprintf(stderr, "trainsim: interrupted after simulating %ld of at most %ld candidate "
                    "layouts; the finished work is in %s\n"
                    "continue with: trainsim sweep %s --resume %s (and the same options)\n",
                    res->progress.n, res->candidates, partial, file, partial);
            rc = 130;   /* 128 + SIGINT, as a shell reports a job ended by Ctrl-C */
        }
    } else {
        struct ts_buf buf;
        ts_buf_init(&buf);
        if (format == TS_FORMAT_TABLE) {
            ts_report_sweep_table(sw, res, &buf);
        } else if (format == TS_FORMAT_CSV) {
            ts_report_sweep_csv(sw, res, &buf);
        } else {
            cJSON *o = ts_report_sweep_json(sw, res);
            ts_report_json_print(o, &buf);
            cJSON_Delete(o);
        }
        rc = ts_cli_emit(&buf, NULL);
        ts_buf_free(&buf);
    }
    ts_sweep_result_free(res);
    free(res);
    free(sw);
    return rc;
}
