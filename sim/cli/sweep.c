/*
 * `trainsim sweep FILE`: search clusters and layouts.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "search/search.h"

void ts_cli_sweep_help(FILE *f)
{
    fprintf(f,
            "usage: trainsim sweep FILE [--format table|json|csv] [--csv OUT.csv] [--threads N]\n"
            "                      [--top K] [--exhaustive] [--no-progress]\n"
            "\n"
            "Search GPU types, node counts, pricing models and parallel layouts for the cheapest\n"
            "(or fastest) setup that trains the sweep's model on its token budget while meeting\n"
            "its constraint (a throughput target or a deadline), failures and restarts included.\n"
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
            "\n"
            "examples:\n"
            "  trainsim sweep configs/quickstart-sweep.json\n"
            "  trainsim sweep configs/llama3-70b-sizing-sweep.json --format json > answer.json\n"
            "  trainsim sweep configs/gpt3-175b-layout-sweep.json --csv all.csv\n");
}

int ts_cli_sweep(int argc, char **argv)
{
    const char *file = NULL, *csv = NULL;
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
        } else if ((strcmp(a, "--threads") == 0 || strcmp(a, "--top") == 0) && has_value) {
            char *end;
            long v = strtol(argv[++i], &end, 10);
            if (*end || v < 1 || v > 4096) {
                fprintf(stderr, "trainsim sweep: %s: \"%s\" is not a whole number from 1 to 4096\n", a, argv[i]);
                return TS_ERR_INPUT;
            }
            if (a[2] == 't' && a[3] == 'h')
                opt.threads = (int)v;
            else
                top = (int)v;
        } else if (strcmp(a, "--exhaustive") == 0) {
            opt.exhaustive = true;
        } else if (strcmp(a, "--no-progress") == 0) {
            opt.progress = false;
        } else if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "trainsim sweep: unknown option or missing value: %s (see trainsim sweep --help)\n", a);
            return TS_ERR_INPUT;
        } else if (!file) {
            file = a;
        } else {
            fprintf(stderr, "trainsim sweep: one sweep file at a time (got \"%s\" and \"%s\")\n", file, a);
            return TS_ERR_INPUT;
        }
    }
    if (!file) {
        fprintf(stderr, "trainsim sweep: missing FILE (see trainsim sweep --help)\n");
        return TS_ERR_INPUT;
    }
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
    struct ts_sweep_result *res = ts_xmalloc(sizeof *res);
    rc = ts_sweep_run(sw, &opt, res, &err);
    if (rc) {
        fprintf(stderr, "trainsim: %s\n", err.msg);
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
