/*
 * `trainsim sensitivity FILE`: how the answer of a job or a sweep moves with its uncertain
 * inputs (sim/search/sensitivity.h), as a tornado, with break-evens.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <omp.h>

#include "cli/cli.h"
#include "report/audit.h"
#include "search/sensitivity.h"
#include "search/shard.h"

void ts_cli_sensitivity_help(FILE *f)
{
    fprintf(f,
            "usage: trainsim sensitivity FILE [--format table|json|csv] [--csv OUT.csv]\n"
            "                            [--report OUT.html] [--threads N] [--no-progress]\n"
            "                            [--inputs NAME,NAME,...] [--wide]\n"
            "\n"
            "Perturb the uncertain inputs of a job or a sweep one at a time over stated ranges\n"
            "and report, for each, the cost and time at both ends and whether the answer (for a\n"
            "sweep: the purchase, system x nodes x pricing) changes, sorted by the swing of the\n"
            "objective (a tornado), with break-evens found by bisection (\"spot stays the answer\n"
            "unless preemptions exceed one per node every N h\").\n"
            "\n"
            "inputs and ranges (multipliers of the value the file resolves to):\n"
            "  throughput            the validation band of the software profile on the device\n"
            "                        (x0.8 .. x1.2 where it is not validated)\n"
            "  failure_rate          reliability.rate_scale x0.5 .. x2\n"
            "  recovery_time         restart_overhead and recovery phases x0.5 .. x2\n"
            "  spot_preemption_rate  preemptions per node x0.5 .. x2 (spot only)\n"
            "  prices                every price x0.8 .. x1.2\n"
            "  spot_price            spot prices x0.8 .. x1.2 (spot only)\n"
            "  checkpoint_bandwidth  checkpoint write / read / snapshot bandwidth x0.5 .. x2\n"
            "  tokens                the token budget x0.8 .. x1.2\n"
            "\n"
            "A job is evaluated in full per point (the failure Monte Carlo with the same seed);\n"
            "a sweep is re-run per point (about 15 to 60 sweeps). The result does not depend\n"
            "on the thread count. Under MPI (a -DTS_MPI=ON build started by mpirun -np N or\n"
            "srun) the perturbed points are shared out over the ranks by index, with the\n"
            "bytes of one process.\n"
            "\n"
            "options:\n"
            "  --format F     table (default on a terminal), json (default otherwise), csv\n"
            "  --csv OUT      also write the CSV to OUT\n"
            "  --report OUT   also write an HTML page with the tornado chart (opens offline)\n"
            "  --threads N    OpenMP threads\n"
            "  --inputs LIST  vary only these inputs (comma-separated names from the list above)\n"
            "  --no-progress  no progress line on stderr\n"
            "  --wide         the table's sentences unwrapped (default: wrapped at 100 columns)\n"
            "\n"
            "examples:\n"
            "  trainsim sensitivity configs/quickstart-sweep.json\n"
            "  trainsim sensitivity configs/gpt3-175b-a100.json --format json\n");
}

/* "--inputs a,b": the bits of the named inputs. Prints why and returns -1 on a bad name. */
static int parse_inputs(const char *list, unsigned *out)
{
    *out = 0;
    const char *p = list;
    while (*p) {
        size_t n = strcspn(p, ",");
        int k = 0;
        while (k < TS_SENS_COUNT && !(strlen(ts_sens_input_names[k]) == n &&
                                       strncmp(ts_sens_input_names[k], p, n) == 0))
            k++;
        if (k == TS_SENS_COUNT) {
            fprintf(stderr, "trainsim sensitivity: --inputs: \"%.*s\" is not an input (one of "
                    "throughput, failure_rate, recovery_time, spot_preemption_rate, prices, "
                    "spot_price, checkpoint_bandwidth, tokens)\n", (int)n, p);
            return -1;
        }
        *out |= 1u << k;
        p += n;
        if (*p == ',')
            p++;
    }
    if (!*out) {
        fprintf(stderr, "trainsim sensitivity: --inputs: name at least one input\n");
        return -1;
    }
    return 0;
}

/* A sweep file names "systems"; a job file "system". */
static int is_sweep_file(const char *file, bool *sweep, struct ts_err *err)
{
    cJSON *doc;
    int rc = ts_json_load(file, &doc, err);
    if (rc)
        return rc;
    *sweep = cJSON_IsObject(doc) && cJSON_GetObjectItemCaseSensitive(doc, "systems") != NULL;
    cJSON_Delete(doc);
    return TS_OK;
}

/* The outputs; with a report, the page of the base answer: the job, or the sweep's result. */
static int sensitivity_write(const char *file, const struct ts_sensitivity *s, enum ts_format format,
                             const char *csv, const char *report, const struct ts_job *job,
                             const struct ts_sweep *sw, const struct ts_sweep_result *res)
{
    struct ts_buf buf;
    ts_buf_init(&buf);
    int rc = TS_OK;
    bool writer = ts_shard_rank() == 0;     /* under MPI rank 0 writes the files */
    if (csv && writer) {
        ts_report_sensitivity_csv(s, &buf);
        rc = ts_cli_emit(&buf, csv);
        buf.len = 0;
    }
    if (rc == TS_OK && report && writer) {
        if (sw && res) {
            cJSON *o = ts_report_sweep_json(sw, res);
            rc = ts_cli_report_answer(report, "sensitivity", file, res->found ? &res->best_job : NULL,
                                      o, s);
            cJSON_Delete(o);
        } else {
            rc = ts_cli_report_answer(report, "sensitivity", file, job, NULL, s);
        }
    }
    if (rc == TS_OK) {
        buf.len = 0;
        if (format == TS_FORMAT_TABLE) {
            ts_report_sensitivity_table(file, s, &buf);
        } else if (format == TS_FORMAT_CSV) {
            ts_report_sensitivity_csv(s, &buf);
        } else {
            cJSON *o = ts_report_sensitivity_json(file, s);
            ts_report_json_print(o, &buf);
            cJSON_Delete(o);
        }
        if (format == TS_FORMAT_TABLE && !ts_report_wide)
            ts_report_wrap_prose(&buf, TS_REPORT_WIDTH);
        rc = ts_cli_emit(&buf, NULL);
    }
    ts_buf_free(&buf);
    return rc;
}

/* Set when the ranks have already agreed on the final status (the setup check). */
static bool shard_agreed;

static int sensitivity_command(int argc, char **argv)
{
    const char *file = NULL, *csv = NULL, *report = NULL;
    enum ts_format format = ts_cli_default_format();
    struct ts_sens_options opt;
    memset(&opt, 0, sizeof opt);
    opt.progress = isatty(STDERR_FILENO);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool has_value = i + 1 < argc;
        if (strcmp(a, "--format") == 0 && has_value) {
            if (ts_cli_parse_format(argv[++i], &format))
                return TS_ERR_INPUT;
        } else if (strcmp(a, "--csv") == 0 && has_value) {
            csv = argv[++i];
        } else if (strcmp(a, "--report") == 0 && has_value) {
            report = argv[++i];
        } else if (strcmp(a, "--threads") == 0 && has_value) {
            if (ts_cli_parse_int("sensitivity", a, argv[++i], 1, 4096, &opt.threads))
                return TS_ERR_INPUT;
        } else if (strcmp(a, "--inputs") == 0 && has_value) {
            if (parse_inputs(argv[++i], &opt.only))
                return TS_ERR_INPUT;
        } else if (strcmp(a, "--no-progress") == 0) {
            opt.progress = false;
        } else if (strcmp(a, "--wide") == 0) {
            ts_report_wide = true;
        } else if (ts_cli_positional("sensitivity", "job or sweep", a, &file)) {
            return TS_ERR_INPUT;
        }
    }
    if (ts_cli_need_file("sensitivity", file))
        return TS_ERR_INPUT;
    struct ts_err err;
    ts_err_clear(&err);
    bool sweep = false;
    int rc = is_sweep_file(file, &sweep, &err);
    if (rc) {
        fprintf(stderr, "trainsim: %s\n", err.msg);
        return rc;
    }
    /* Outputs are checked before the work. */
    const char *not_csv[] = {file, NULL};
    const char *not_report[] = {file, csv, NULL};
    if ((csv && (rc = ts_cli_check_output("sensitivity", "--csv", csv, not_csv))) ||
        (report && (rc = ts_cli_check_output("sensitivity", "--report", report, not_report))))
        return rc;
    if (opt.threads)
        omp_set_num_threads(opt.threads);
    struct ts_sensitivity *s = ts_xmalloc(sizeof *s);
    struct ts_sweep *sw = NULL;
    struct ts_sweep_result *res = NULL;
    struct ts_job *job = NULL;
    if (sweep) {
        sw = ts_xmalloc(sizeof *sw);
        rc = ts_sweep_load(file, sw, &err);
    } else {
        job = ts_xmalloc(sizeof *job);
        cJSON *doc;
        rc = ts_json_load(file, &doc, &err);
        if (rc == TS_OK) {
            struct ts_jnode root = ts_jnode_root(doc, file);
            rc = ts_job_parse(&root, NULL, job, &err);
            cJSON_Delete(doc);
        }
    }
    /* Under MPI every rank has read the same input; one that could not ends every rank here,
     * before the collectives of the work. */
    int all = ts_shard_agree(rc);
    shard_agreed = all != TS_OK;
    if (rc == TS_OK && all) {
        fprintf(stderr, "trainsim sensitivity: another MPI rank could not read the input "
                "(status %d): every rank reads FILE and the catalogue, so they must be visible on "
                "every node\n", all);
        free(sw);
        free(job);
        free(s);
        return all;
    }
    if (rc) {
        /* reported below */
    } else if (sweep) {
        /* The base sweep is run here and handed over: the page shows its answer in full. */
        res = ts_xcalloc(1, sizeof *res);
        struct ts_sweep_options so;
        memset(&so, 0, sizeof so);
        so.threads = opt.threads;
        rc = ts_sweep_run(sw, &so, res, &err);
        opt.base_result = res;
        if (rc == TS_OK)
            rc = ts_sensitivity_sweep(sw, &opt, s, &err);
    } else {
        rc = ts_sensitivity_job(job, &opt, s, &err);
    }
    if (rc) {
        fprintf(stderr, "trainsim: %s%s%s\n", strncmp(err.msg, file, strlen(file)) ? file : "",
                strncmp(err.msg, file, strlen(file)) ? ": " : "", err.msg);
    } else {
        rc = sensitivity_write(file, s, format, csv, report, job, sw, res);
    }
    if (res)
        ts_sweep_result_free(res);
    free(res);
    free(sw);
    free(job);
    free(s);
    return rc;
}

/* The command under MPI (README "MPI"), as `trainsim sweep`: every rank runs it on the same
 * input and the perturbed points are shared out by index (search/sensitivity.h); ranks other
 * than 0 print nothing and write no files, and all end with the same status. */
int ts_cli_sensitivity(int argc, char **argv)
{
    struct ts_err err;
    ts_err_clear(&err);
    int rc = ts_shard_init(&argc, &argv, &err);
    if (rc) {
        fprintf(stderr, "trainsim sensitivity: %s\n", err.msg);
        return rc;
    }
    if (ts_shard_rank() > 0) {
        if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr))
            rc = TS_ERR_RUNTIME;
    }
    shard_agreed = false;
    if (!rc)
        rc = sensitivity_command(argc, argv);
    fflush(stdout);
    if (!shard_agreed)
        rc = ts_shard_agree(rc);
    ts_shard_finalize();
    return rc;
}
