/*
 * `trainsim sweep FILE`: search clusters and layouts.
 */
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "report/audit.h"
#include "search/search.h"
#include "search/sensitivity.h"
#include "search/shard.h"

void ts_cli_sweep_help(FILE *f)
{
    fprintf(f,
            "usage: trainsim sweep FILE [--format table|json|csv] [--csv OUT.csv] [--threads N]\n"
            "                      [--top K] [--exhaustive] [--no-progress] [--max-configs N]\n"
            "                      [--partial OUT.partial.json] [--resume PARTIAL]\n"
            "                      [--set PATH=VALUE ...] [--explain] [--emit job OUT.json | megatron]\n"
            "                      [--sensitivity] [--report OUT.html] [--no-model-uncertainty] [--wide]\n"
            "                      [--search-software]\n"
            "\n"
            "Search GPU types, node counts, pricing models, software profiles and parallel layouts\n"
            "for the cheapest (or fastest) setup that trains the sweep's model on its token budget\n"
            "while meeting its constraint (a throughput target or a deadline), failures and\n"
            "restarts included. Without a constraint it finds the cheapest (or fastest) setup.\n"
            "\n"
            "Lists compare: \"model\", \"tokens\", \"precision\", \"software\", \"constraint.deadline\"\n"
            "and \"constraint.min_tokens_per_s\" may each list several values; the sweep answers\n"
            "every combination (table: one section each; JSON: the first at the top level and all\n"
            "in \"scenarios\", each with a \"scenario\" key; CSV: a leading scenario column).\n"
            "With --search-software a \"software\" list is searched instead, like the systems:\n"
            "one answer, the best profile's.\n"
            "--csv and --resume take one combination; an interrupted multi-combination sweep\n"
            "saves no partial work.\n"
            "\n"
            "Every valid layout is screened with a lower bound; the promising ones are simulated\n"
            "(discrete-event iteration, analytic run model, the bill) in parallel; the top K get\n"
            "a failure Monte Carlo. The answer is the same as evaluating every layout, and the\n"
            "same for any thread count.\n"
            "\n");
    fprintf(f,
            "options:\n"
            "  --format F       table (default on a terminal), json (default otherwise), csv (top K)\n"
            "  --csv OUT        also write every screened configuration with its status to OUT\n"
            "  --threads N      OpenMP threads (default: all cores)\n"
            "  --top K          report the K best (default: the file's \"top\", else 10)\n"
            "  --exhaustive     simulate every layout that fits (no pruning; slower, same answer)\n"
            "  --no-progress    no progress bar on stderr\n"
            "  --no-model-uncertainty  finalists' Monte Carlo without the model's own error\n"
            "                   (the validation band of each profile x device; default on)\n"
            "  --wide           tables with every layout column and prose unwrapped (default:\n"
            "                   fit 100 columns, sentences wrapped at 100)\n"
            "  --search-software  a \"software\" list is one searched dimension (every layout\n"
            "                   once per profile; the answer names the best profile) instead\n"
            "                   of one answer per profile\n"
            "  --max-configs N  refuse (exit 2) a sweep that enumerates more than N layouts\n"
            "                   (default 4000000; the shipped sweeps enumerate up to 1.6 M);\n"
            "                   the message gives the count. Memory does not grow with the\n"
            "                   count, time does (about 250,000 layouts a second per core)\n"
            "  --set P=V        override key P of the sweep file (as in trainsim run; repeatable)\n"
            "  --explain        list every input key, its value and where it came from; JSON:\n"
            "                   an \"explain\" key\n"
            "  --emit job OUT   write the best configuration as a job file: trainsim run OUT\n"
            "                   reproduces the answer\n"
            "  --emit megatron  print the best layout's Megatron-LM / NeMo arguments instead\n");
    fprintf(f,
            "  --sensitivity    also perturb the uncertain inputs one at a time and re-run the\n"
            "                   sweep per point (trainsim sensitivity --help): JSON gains\n"
            "                   `sensitivity`, `not_varied` and `break_even`, the table a tornado\n"
            "                   (the CSV stays the sweep's: trainsim sensitivity --format csv)\n"
            "  --report OUT     also write an HTML page (opens offline): the question, the answer,\n"
            "                   assumptions, bill, Pareto front, finish-time CDF and cost\n"
            "                   distribution, tornado (with\n"
            "                   --sensitivity), best per system and the iteration timeline\n"
            "  --partial P      where an interrupted sweep saves its finished work (default:\n"
            "                   NAME.partial.json in the working directory, NAME being FILE's\n"
            "                   base name without .json)\n"
            "  --resume P       continue the interrupted sweep whose work P holds; the answer is\n"
            "                   the same as an uninterrupted run's. P must come from the same\n"
            "                   FILE and catalogue files, unchanged (exit 2 otherwise); it is\n"
            "                   left in place\n"
            "\n"
            "Ctrl-C (SIGINT), SIGTERM and SIGHUP (as sent by timeout, Slurm or Kubernetes) stop\n"
            "the sweep within a second, in screening, simulation or the finalists' Monte Carlo:\n"
            "it writes the finished work to the partial file (marked\n"
            "\"trainsim_partial_sweep\", with a checksum and a fingerprint of the sweep file, every\n"
            "catalogue file it reads and the trainsim version), names it on stderr with how to\n"
            "resume, and exits with status 128 + the signal: 130, 143, 129. A second signal of\n"
            "the same kind stops at once. --resume refuses (exit 2) a partial file whose inputs\n"
            "changed or whose content was edited or damaged, saying which check failed.\n"
            "\n"
            "Output paths (--csv, --partial) are checked before the sweep starts: a missing or\n"
            "unwritable directory, a directory, an unwritable file, or an input file is refused\n"
            "with exit 2 (for the default partial file, a warning). A regular file is written to\n"
            "a temporary file beside it and renamed when complete; a device or FIFO (/dev/null,\n"
            "/dev/stdout) is written through, never replaced; a failed write exits 1 with the\n"
            "reason. (For tests, the environment variables TRAINSIM_TEST_STOP_AFTER_BATCHES=N and\n"
            "TRAINSIM_TEST_STOP_AFTER_FINALISTS=N act as a Ctrl-C after N batches or N finalists'\n"
            "Monte Carlo runs.)\n"
            "\n"
            "examples:\n"
            "  trainsim sweep configs/quickstart-sweep.json\n"
            "  trainsim sweep configs/llama3-70b-sizing-sweep.json --format json > answer.json\n"
            "  trainsim sweep configs/gpt3-175b-layout-sweep.json --csv all.csv\n");
}

/* Set when the ranks have already agreed on the final status (sweep_command's setup check
 * found a failure elsewhere), so ts_cli_sweep must not ask again. */
static bool shard_agreed;

/* The signal that asked the sweep to stop (0: none); the sweep polls it. */
static volatile sig_atomic_t stop_flag;

static void on_stop_signal(int sig)
{
    stop_flag = sig;    /* SA_RESETHAND: a second one takes the default action */
}

/* The signals that save progress: Ctrl-C, and what timeout(1), Slurm and Kubernetes send
 * (SIGTERM) or a closed terminal or ssh session (SIGHUP). */
static const int stop_signals[] = {SIGINT, SIGTERM, SIGHUP};
#define N_STOP_SIGNALS ((int)TS_ARRAY_LEN(stop_signals))

static const char *signal_name(int sig)
{
    return sig == SIGTERM ? "SIGTERM" : sig == SIGHUP ? "SIGHUP" : "SIGINT";
}

/* The sweep's answer on stdout, with --sensitivity its tornado and with --report the page. */
static int sweep_outputs(const char *file, const struct ts_sweep *sw, const struct ts_sweep_result *res,
                         const struct ts_sweep_options *opt, enum ts_format format, bool sensitivity,
                         const char *report)
{
    struct ts_err err;
    ts_err_clear(&err);
    int rc = TS_OK;
    struct ts_sensitivity *sens = NULL;
    if (sensitivity) {
        sens = ts_xmalloc(sizeof *sens);
        struct ts_sens_options so = {opt->threads, 0, opt->progress, 0, opt->stop, res};
        if ((rc = ts_sensitivity_sweep(sw, &so, sens, &err))) {
            free(sens);
            if (*opt->stop) {   /* the sweep's answer is done; its sensitivity is not */
                fprintf(stderr, "\ntrainsim: interrupted by %s during --sensitivity: nothing "
                        "printed (run the sweep again, or trainsim sensitivity %s)\n",
                        signal_name((int)*opt->stop), file);
                return 128 + (int)*opt->stop;
            }
            fprintf(stderr, "trainsim: %s: --sensitivity: %s\n", file, err.msg);
            return rc;
        }
    }
    cJSON *o = ts_report_sweep_json(sw, res);
    if (sens) {
        cJSON *sj = ts_report_sensitivity_json(file, sens);
        const char *keys[] = {"sensitivity", "not_varied", "break_even"};
        for (int k = 0; k < 3; k++)
            cJSON_AddItemToObject(o, keys[k], cJSON_DetachItemFromObjectCaseSensitive(sj, keys[k]));
        cJSON_Delete(sj);
    }
    if (report && ts_shard_rank() == 0)
        rc = ts_cli_report_answer(report, "sweep", file, res->found ? &res->best_job : NULL, o, sens);
    if (rc == TS_OK) {
        struct ts_buf buf;
        ts_buf_init(&buf);
        if (format == TS_FORMAT_TABLE) {
            ts_report_sweep_table(sw, res, &buf);
            if (sens) {
                ts_buf_printf(&buf, "\n");
                ts_report_sensitivity_table(file, sens, &buf);
            }
        } else if (format == TS_FORMAT_CSV) {
            ts_report_sweep_csv(sw, res, &buf);
        } else {
            ts_report_json_print(o, &buf);
        }
        if (format == TS_FORMAT_TABLE && !ts_report_wide)
            ts_report_wrap_prose(&buf, TS_REPORT_WIDTH);
        rc = ts_cli_emit(&buf, NULL);
        ts_buf_free(&buf);
    }
    cJSON_Delete(o);
    free(sens);
    return rc;
}

static int sweep_command(int argc, char **argv)
{
    const char *file = NULL, *csv = NULL, *partial = NULL, *resume = NULL, *report = NULL;
    bool sensitivity = false;
    enum ts_format format = ts_cli_default_format();
    struct ts_sweep_options opt;
    memset(&opt, 0, sizeof opt);
    opt.progress = isatty(STDERR_FILENO);
    opt.model_uncertainty = true;
    int top = 0;
    struct ts_cli_whatif whatif = {0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool has_value = i + 1 < argc;
        int w = ts_cli_whatif_option(&whatif, "sweep", argc, argv, &i);
        if (w < 0)
            return TS_ERR_INPUT;
        if (w > 0)
            continue;
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
        } else if (strcmp(a, "--report") == 0 && has_value) {
            report = argv[++i];
        } else if (strcmp(a, "--sensitivity") == 0) {
            sensitivity = true;
        } else if (strcmp(a, "--exhaustive") == 0) {
            opt.exhaustive = true;
        } else if (strcmp(a, "--no-progress") == 0) {
            opt.progress = false;
        } else if (strcmp(a, "--no-model-uncertainty") == 0) {
            opt.model_uncertainty = false;
        } else if (strcmp(a, "--wide") == 0) {
            ts_report_wide = true;
        } else if (strcmp(a, "--search-software") == 0) {
            whatif.search_software = true;
        } else if (ts_cli_positional("sweep", "sweep", a, &file)) {
            return TS_ERR_INPUT;
        }
    }
    if (ts_cli_need_file("sweep", file))
        return TS_ERR_INPUT;
    opt.csv_path = csv;
    if (ts_cli_whatif_check(&whatif, "sweep", file, format))
        return TS_ERR_INPUT;

    struct ts_err err;
    ts_err_clear(&err);
    struct ts_sweep *sw = ts_xmalloc(sizeof *sw);
    int rc = ts_cli_sweep_load(&whatif, file, sw, &err);
    if (rc == TS_OK && whatif.n_scenarios > 1 && (csv || resume))
        rc = ts_err_set(&err, TS_ERR_INPUT, "%s: %s takes a sweep of one combination (this one "
                        "lists %d; run them one at a time with --set)", file,
                        csv ? "--csv" : "--resume", whatif.n_scenarios);
    if (rc == TS_OK && (sensitivity || report) &&
        (whatif.n_scenarios > 1 || whatif.explain || whatif.emit_job || whatif.emit_megatron))
        rc = ts_err_set(&err, TS_ERR_INPUT, "%s: %s takes a sweep of one combination without "
                        "--explain or --emit (run those separately)", file,
                        sensitivity ? "--sensitivity" : "--report");
    ts_cli_print_warnings();
    if (rc) {
        fprintf(stderr, "trainsim: %s\n", err.msg);
        ts_cli_whatif_free(&whatif);
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
            ts_cli_whatif_free(&whatif);
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
    /* Every output is checked before the work: a bad path must not cost a finished sweep. */
    /* --partial may name the --resume file (it then holds the newer work). */
    const char *not_partial[] = {file, NULL};
    const char *not_csv[] = {file, partial, resume, NULL};
    const char *not_report[] = {file, partial, resume, csv, NULL};
    if ((partial != partial_buf &&
         (rc = ts_cli_check_output("sweep", "--partial", partial, not_partial))) ||
        (csv && (rc = ts_cli_check_output("sweep", "--csv", csv, not_csv))) ||
        (report && (rc = ts_cli_check_output("sweep", "--report", report, not_report)))) {
        ts_sweep_progress_free(&done);
        ts_cli_whatif_free(&whatif);
        free(sw);
        return rc;
    }
    /* The default partial file is only needed if the sweep is interrupted: a directory that
     * cannot take it (a read-only working directory) is worth a warning, not a refusal. */
    if (partial == partial_buf && ts_file_check_output(partial, &err))
        fprintf(stderr, "trainsim sweep: warning: an interrupted sweep could not save its work: "
                "%s (name another place with --partial)\n", err.msg);
    /* Under MPI every rank has read the same inputs; one that failed to (an input only some
     * nodes see) ends every rank here, before the sweep's collectives. */
    if ((rc = ts_shard_agree(TS_OK))) {
        fprintf(stderr, "trainsim sweep: another MPI rank could not set up the sweep (status %d): "
                "every rank reads FILE, the catalogue and --resume P, so they must be visible on "
                "every node\n", rc);
        shard_agreed = true;
        ts_sweep_progress_free(&done);
        free(sw);
        return rc;
    }
    const char *after = getenv("TRAINSIM_TEST_STOP_AFTER_BATCHES");
    if (after && after[0])
        opt.stop_after_batches = strtol(after, NULL, 10);
    const char *after_mc = getenv("TRAINSIM_TEST_STOP_AFTER_FINALISTS");
    if (after_mc && after_mc[0])
        opt.stop_after_finalists = strtol(after_mc, NULL, 10);
    stop_flag = 0;
    opt.stop = &stop_flag;
    struct sigaction sa, old_sa[N_STOP_SIGNALS];
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < N_STOP_SIGNALS; i++)
        sigaddset(&sa.sa_mask, stop_signals[i]);
    sa.sa_flags = SA_RESETHAND;
    for (int i = 0; i < N_STOP_SIGNALS; i++) {
        sigaction(stop_signals[i], NULL, &old_sa[i]);
        /* Under nohup a hangup stays ignored. */
        if (stop_signals[i] == SIGHUP && old_sa[i].sa_handler == SIG_IGN)
            continue;
        sigaction(stop_signals[i], &sa, NULL);
    }

    struct ts_sweep_result *res = ts_xmalloc(sizeof *res);
    rc = ts_sweep_run(sw, &opt, res, &err);
    ts_sweep_progress_free(&done);
    if (rc) {
        fprintf(stderr, "trainsim: %s%s%s\n", resume && rc == TS_ERR_INPUT ? resume : "",
                resume && rc == TS_ERR_INPUT ? ": " : "", err.msg);
    } else if (res->interrupted) {
        if (opt.progress)
            fputc('\n', stderr);
        /* The stand-in for tests stops as Ctrl-C does. Under MPI: the signal any rank got;
         * rank 0 holds every rank's finished work and writes it. */
        int sig = ts_shard_max((int)stop_flag);
        if (!sig)
            sig = SIGINT;
        if (ts_shard_rank() > 0) {
            rc = 128 + sig;
        } else if ((rc = ts_sweep_progress_write(partial, sw, &res->progress, &err))) {
            fprintf(stderr, "trainsim: interrupted by %s; could not save the finished work: %s\n",
                    signal_name(sig), err.msg);
        } else {
            fprintf(stderr, "trainsim: interrupted by %s after simulating %ld of at most %ld "
                    "candidate layouts; the finished work is in %s\n"
                    "continue with: trainsim sweep %s --resume %s (and the same options)\n",
                    signal_name(sig), res->progress.n, res->candidates, partial, file, partial);
            rc = 128 + sig;  /* as a shell reports a job ended by that signal: 130, 143, 129 */
        }
    } else {
        if (sensitivity || report)
            rc = sweep_outputs(file, sw, res, &opt, format, sensitivity, report);
        else
            rc = ts_cli_sweep_answer(&whatif, file, sw, res, &opt, top, format);
    }
    /* Until here a stop signal only asks the sweep to stop; from here it ends the process. */
    for (int i = 0; i < N_STOP_SIGNALS; i++)
        sigaction(stop_signals[i], &old_sa[i], NULL);
    ts_sweep_result_free(res);
    free(res);
    free(sw);
    ts_cli_whatif_free(&whatif);
    return rc;
}

/* The command under MPI (README "MPI"): every rank runs it on the same inputs; ranks other
 * than 0 print nothing (their stdout and stderr go to /dev/null: rank 0 prints the same
 * messages) and write no files, and all end with the same status. */
int ts_cli_sweep(int argc, char **argv)
{
    struct ts_err err;
    ts_err_clear(&err);
    int rc = ts_shard_init(&argc, &argv, &err);
    if (rc) {
        fprintf(stderr, "trainsim sweep: %s\n", err.msg);
        return rc;
    }
    if (ts_shard_rank() > 0) {
        if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr))
            rc = TS_ERR_RUNTIME;
    }
    if (!rc)
        rc = sweep_command(argc, argv);
    fflush(stdout);
    /* Collective: no rank ends (and has the launcher stop the others) before rank 0 has
     * written its output and files. A rank that failed in its setup meets the others'
     * setup check here. */
    if (!shard_agreed)
        rc = ts_shard_agree(rc);
    ts_shard_finalize();
    return rc;
}
