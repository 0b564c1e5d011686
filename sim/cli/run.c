/*
 * `trainsim run FILE`: one job.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <omp.h>

#include "cli/cli.h"
#include "cost/cost.h"
#include "report/audit.h"
#include "run/run.h"
#include "search/sensitivity.h"
#include "spec/spec.h"
#include "step/step.h"

void ts_cli_run_help(FILE *f)
{
    fprintf(f,
            "usage: trainsim run FILE [--format table|json|csv] [--trace OUT.json]\n"
            "                    [--run-trace OUT.json] [--method discrete-event|closed-form]\n"
            "                    [--replications N] [--seed S] [--threads N] [--report OUT.html]\n"
            "                    [--set PATH=VALUE ...] [--explain] [--emit job OUT.json | megatron]\n"
            "                    [--no-model-uncertainty] [--wide]\n"
            "\n"
            "Simulate one job file (configs/*.json): one training iteration as a discrete-event\n"
            "simulation of the pipeline schedule with TP/PP/DP/CP traffic, memory per GPU,\n"
            "time to train, and (with a training section) the whole run with failures: the\n"
            "default failure processes of the accelerator's fleet unless the job's reliability\n"
            "section gives others, or \"reliability\": \"none\" for a failure-free what-if;\n"
            "the assumptions used are printed; with a cost section also the bill.\n"
            "\n"
            "options:\n"
            "  --format F     table (default on a terminal), json (default otherwise), csv\n"
            "  --trace OUT    write a Chrome trace of the iteration (open in ui.perfetto.dev);\n"
            "                 with a training section also one replication of the whole run\n"
            "                 to OUT.run.json (failures, checkpoints, restarts; 1 s = 1 hour)\n"
            "  --run-trace OUT  write the run timeline to OUT instead\n"
            "  --method M     discrete-event (default) or closed-form (the screening estimate)\n"
            "  --replications N, --seed S   override the reliability section's Monte Carlo\n"
            "  --threads N    OpenMP threads for the Monte Carlo (results do not depend on it)\n"
            "  --set P=V      override key P of the job before it is read, e.g. --set parallel.tp=4,\n"
            "                 --set cost.gpu_hour.spot=2.5, --set model.layers=48 (a catalogue\n"
            "                 model's key), --set 'reliability.failures[0].mtbf=\"5 y\"'; V is JSON when\n"
            "                 it parses as JSON, else text; repeatable, later ones win; checked as\n"
            "                 the file is (exit 2, the message names the --set)\n"
            "  --explain      list every input key with its value and where it came from (file,\n"
            "                 --set, catalogue file, software profile, default, derived); JSON: an\n"
            "                 \"explain\" key. The defaults are always in assumptions.defaults\n"
            "  --emit job OUT write the job with the --set overrides applied as a job file\n"
            "  --emit megatron  print the Megatron-LM / NeMo arguments of the job instead\n"
            "  --report OUT   also write an HTML page (opens offline): the answer, assumptions,\n"
            "                 the bill, the finish-time CDF, the cost distribution and the iteration\n"
            "                 timeline\n"
            "  --no-model-uncertainty  time_quantiles / cost_quantiles from failures only,\n"
            "                 without the model's validation band (default: both combined)\n"
            "  --wide         the table's sentences unwrapped (default: wrapped at 100 columns)\n"
            "\n"
            "An infeasible job (out of memory) is a result: exit 0 with \"feasible\": false.\n"
            "\n"
            "Trace paths are checked before the simulation (exit 2: missing or unwritable\n"
            "directory, a directory, an unwritable file). A regular file is written to a\n"
            "temporary file beside it and renamed when complete; a device or FIFO (/dev/null,\n"
            "/dev/stdout) is written through, never replaced; a failed write exits 1 with the\n"
            "reason. Ctrl-C, SIGTERM and SIGHUP end the run at once (nothing is saved; the shell\n"
            "reports 130, 143, 129) and never leave a temporary or half-written trace.\n"
            "\n"
            "examples:\n"
            "  trainsim run configs/gpt3-175b-a100.json\n"
            "  trainsim run configs/validation/korthikanti-175b-seqsel.json --format json\n"
            "  trainsim run configs/gpt3-175b-a100.json --trace iteration.json\n"
            "  trainsim run configs/gpt3-175b-a100.json --set parallel.tp=4 --set parallel.pp=16\n"
            "  trainsim run configs/gpt3-175b-a100.json --emit megatron\n");
}

int ts_cli_run(int argc, char **argv)
{
    const char *file = NULL, *trace_path = NULL, *run_trace_path = NULL, *report = NULL;
    long replications = 0, seed = -1, threads = 0;
    enum ts_format format = ts_cli_default_format();
    enum ts_method method = TS_METHOD_DISCRETE_EVENT;
    struct ts_cli_whatif whatif = {0};
    bool model_uncertainty = true;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool has_value = i + 1 < argc;
        int w = ts_cli_whatif_option(&whatif, "run", argc, argv, &i);
        if (w < 0)
            return TS_ERR_INPUT;
        if (w > 0)
            continue;
        if (strcmp(a, "--no-model-uncertainty") == 0) {
            model_uncertainty = false;
            continue;
        }
        if (strcmp(a, "--wide") == 0) {
            ts_report_wide = true;
            continue;
        }
        if (strcmp(a, "--format") == 0 && has_value) {
            if (ts_cli_parse_format(argv[++i], &format))
                return TS_ERR_INPUT;
        } else if (strcmp(a, "--trace") == 0 && has_value) {
            trace_path = argv[++i];
        } else if (strcmp(a, "--report") == 0 && has_value) {
            report = argv[++i];
        } else if (strcmp(a, "--run-trace") == 0 && has_value) {
            run_trace_path = argv[++i];
        } else if (strcmp(a, "--replications") == 0 && has_value) {
            if (ts_cli_parse_long("run", a, argv[++i], 1, 1000000, &replications))
                return TS_ERR_INPUT;
        } else if (strcmp(a, "--seed") == 0 && has_value) {
            if (ts_cli_parse_long("run", a, argv[++i], 0, 9007199254740991L, &seed))
                return TS_ERR_INPUT;
        } else if (strcmp(a, "--threads") == 0 && has_value) {
            if (ts_cli_parse_long("run", a, argv[++i], 1, 4096, &threads))
                return TS_ERR_INPUT;
        } else if (strcmp(a, "--method") == 0 && has_value) {
            const char *mv = argv[++i];
            if (strcmp(mv, "discrete-event") == 0 || strcmp(mv, "discrete_event") == 0)
                method = TS_METHOD_DISCRETE_EVENT;
            else if (strcmp(mv, "closed-form") == 0 || strcmp(mv, "closed_form") == 0)
                method = TS_METHOD_CLOSED_FORM;
            else {
                fprintf(stderr, "trainsim run: --method: \"%s\" is not discrete-event or closed-form\n", mv);
                return TS_ERR_INPUT;
            }
        } else if (ts_cli_positional("run", "job", a, &file)) {
            return TS_ERR_INPUT;
        }
    }
    if (ts_cli_need_file("run", file))
        return TS_ERR_INPUT;
    /* With a reliability section, --trace OUT.json also writes the run timeline to
     * OUT.run.json (unless --run-trace names a file). */
    char run_trace_buf[4096];
    if (trace_path && !run_trace_path) {
        ts_cli_derived_path(trace_path, false, ".run.json", run_trace_buf, sizeof run_trace_buf);
        if (run_trace_buf[0])
            run_trace_path = run_trace_buf;
    }
    bool run_trace_implicit = run_trace_path == run_trace_buf;
    if (trace_path && method != TS_METHOD_DISCRETE_EVENT) {
        fprintf(stderr, "trainsim run: --trace needs the discrete-event method\n");
        return TS_ERR_INPUT;
    }

    if (ts_cli_whatif_check(&whatif, "run", file, format))
        return TS_ERR_INPUT;

    struct ts_err err;
    ts_err_clear(&err);
    struct ts_job *job = ts_xmalloc(sizeof *job);
    int rc = ts_cli_run_load(&whatif, file, job, &err);
    ts_cli_print_warnings();
    if (rc) {
        fprintf(stderr, "trainsim: %s\n", err.msg);
        ts_cli_whatif_free(&whatif);
        free(job);
        return rc;
    }

    /* The outputs are checked before the work (the implicit OUT.run.json only when the job
     * will write it). */
    const char *outputs[2][2] = {{"--trace", trace_path},
                                 {"--run-trace", job->has_reliability || !run_trace_implicit
                                                     ? run_trace_path : NULL}};
    const char *others[] = {file, trace_path, NULL};
    for (int k = 0; k < 2; k++) {
        others[1] = k ? trace_path : NULL;
        if (outputs[k][1] && (rc = ts_cli_check_output("run", outputs[k][0], outputs[k][1], others))) {
            ts_cli_whatif_free(&whatif);
            free(job);
            return rc;
        }
    }
    const char *not_report[] = {file, trace_path, run_trace_path, NULL};
    if (report && (rc = ts_cli_check_output("run", "--report", report, not_report))) {
        ts_cli_whatif_free(&whatif);
        free(job);
        return rc;
    }

    struct ts_eval_scratch scratch;
    if (ts_eval_scratch_init(&scratch)) {
        fprintf(stderr, "trainsim: out of memory\n");
        ts_cli_whatif_free(&whatif);
        free(job);
        return TS_ERR_RUNTIME;
    }
    int p = job->parallel.pp;
    double *arrays = ts_xcalloc(4 * (size_t)p, sizeof *arrays);
    struct ts_step_stages stages = {arrays, arrays + p, arrays + 2 * p};
    double *stage_mem = arrays + 3 * p;
    struct ts_trace trace;
    ts_trace_init(&trace);
    struct ts_iteration it;
    ts_step_evaluate(job, method, &scratch, &it, method == TS_METHOD_DISCRETE_EVENT ? &stages : NULL,
                     trace_path || (report && method == TS_METHOD_DISCRETE_EVENT) ? &trace : NULL);
    for (int k = 0; k < p; k++) {
        struct ts_memory m;
        ts_memory_stage(job, &scratch.compute, k, &m);
        stage_mem[k] = m.total_bytes;
    }

    rc = TS_OK;
    /* The whole run (Monte Carlo) and the bill. */
    struct ts_run_result run;
    struct ts_cost_result cost;
    struct ts_run_timeline timeline = {0};
    bool have_run = false, have_cost = false;
    double *samples = NULL;
    int n_samples = 0;
    if (job->has_reliability && it.feasible && (job->has_training || job->reliability.section_given)) {
        if (replications)
            job->reliability.replications = (int)replications;
        if (seed >= 0)
            job->reliability.seed = (uint64_t)seed;
        if (threads)
            omp_set_num_threads((int)threads);
        struct ts_run_input in;
        memset(&in, 0, sizeof in);
        in.iteration_s = it.iteration_s;
        in.iterations = job->has_training ? it.iterations : 1.0;
        in.gpus = job->gpus;
        in.nodes = job->nodes;
        in.gpus_per_node = job->system.gpus_per_node;
        in.dp = job->parallel.dp;
        in.checkpoint_bytes = ts_compute_checkpoint_bytes(job, &scratch.compute);
        in.rel = job->reliability;
        /* Elastic: with k replicas missing the same global batch runs on dp - k replicas,
         * so an iteration takes dp / (dp - k) as long (gradient accumulation absorbs it). */
        double *elastic = NULL;
        if (job->reliability.elastic) {
            elastic = ts_xmalloc((size_t)in.dp * sizeof *elastic);
            for (int k = 0; k < in.dp; k++)
                elastic[k] = it.iteration_s * in.dp / (double)(in.dp - k);
            in.elastic_iteration_s = elastic;
        }
        n_samples = in.rel.replications > 0 ? in.rel.replications : 1;
        samples = ts_xmalloc((size_t)n_samples * sizeof *samples);
        if (!job->has_training) {
            fprintf(stderr, "trainsim: %s: reliability: the whole-run simulation needs a training "
                    "section (\"training\": {\"tokens\": ...})\n", file);
            rc = TS_ERR_INPUT;
        } else if ((rc = ts_run_simulate(&in, &run, samples, run_trace_path ? &timeline : NULL, &err))) {
            fprintf(stderr, "trainsim: %s: %s\n", file, err.msg);
        } else {
            have_run = true;
        }
        free(elastic);
    } else if (job->has_reliability && !it.feasible) {
        if (run_trace_path && !run_trace_implicit)
            fprintf(stderr, "trainsim run: the job does not fit in memory: no run timeline written "
                    "to %s\n", run_trace_path);
        run_trace_path = NULL;
    } else if (run_trace_path && !run_trace_implicit) {
        fprintf(stderr, "trainsim run: --run-trace needs a training section in the job (the "
                "whole run is simulated for a number of tokens)\n");
        rc = TS_ERR_INPUT;
    }
    if (rc == TS_OK && job->has_cost && it.feasible) {
        struct ts_cost_input ci = {job, &it, have_run ? &run : NULL, have_run ? samples : NULL,
                                   have_run ? n_samples : 0,
                                   ts_compute_checkpoint_bytes(job, &scratch.compute)};
        if ((rc = ts_cost_compute(&ci, &cost, &err)))
            fprintf(stderr, "trainsim: %s: %s\n", file, err.msg);
        else
            have_cost = true;
    }
    /* The finish-time and cost distribution with the model's own error (run.h). */
    struct ts_run_distribution dist;
    bool have_dist = false;
    if (rc == TS_OK && have_run) {
        struct ts_run_band band;
        ts_run_model_band(job, model_uncertainty, &band);
        if ((rc = ts_run_distribution_compute(&band, job, &it, &run, samples, n_samples,
                                              ts_compute_checkpoint_bytes(job, &scratch.compute),
                                              0.0, &dist, &err)))
            fprintf(stderr, "trainsim: %s: %s\n", file, err.msg);
        else
            have_dist = true;
    }
    if (rc == TS_OK && trace_path && ts_report_trace_write(trace_path, &trace, job, &err)) {
        fprintf(stderr, "trainsim: %s\n", err.msg);
        rc = err.status;
    }
    if (rc == TS_OK && have_run && run_trace_path &&
        ts_report_run_trace_write(run_trace_path, &timeline, job, &err)) {
        fprintf(stderr, "trainsim: %s\n", err.msg);
        rc = err.status;
    }
    if (rc == TS_OK) {
        struct ts_run_output out = {file, job, &it,
                                    method == TS_METHOD_DISCRETE_EVENT ? &stages : NULL, stage_mem,
                                    have_run ? &run : NULL, have_cost ? &cost : NULL,
                                    have_dist ? &dist : NULL};
        if (report) {
            cJSON *o = ts_report_run_json(&out);
            /* The cost distribution: each replication's bill (search/sensitivity.h). */
            double *bills = have_run && have_cost ? ts_xmalloc((size_t)n_samples * sizeof *bills) : NULL;
            if (bills && (rc = ts_job_replication_bills(job, &it, &run,
                                                        ts_compute_checkpoint_bytes(job, &scratch.compute),
                                                        samples, n_samples, bills, &err)))
                fprintf(stderr, "trainsim: %s: --report: %s\n", file, err.msg);
            struct ts_html_input hi = {"run", file, o, NULL, have_run ? samples : NULL,
                                       have_run ? n_samples : 0, &trace, bills,
                                       bills ? n_samples : 0};
            if (rc == TS_OK)
                rc = ts_cli_write_report(report, &hi);
            free(bills);
            cJSON_Delete(o);
        }
        if (rc == TS_OK)
            rc = ts_cli_run_answer(&whatif, file, &out, format);
    }
    ts_cli_whatif_free(&whatif);
    ts_trace_free(&trace);
    ts_run_timeline_free(&timeline);
    free(samples);
    free(arrays);
    ts_eval_scratch_free(&scratch);
    free(job);
    return rc;
}
