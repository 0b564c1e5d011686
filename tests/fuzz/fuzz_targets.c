/*
 * The fuzz targets of fuzz_targets.h.
 *
 * Work limits (so one execution stays in milliseconds; inputs above them are parsed but not
 * evaluated): at most 4096 GPUs, at most 100,000 gradient buckets (the pipeline tasks of an
 * iteration are bounded by the job validator itself, TS_STEP_TASKS_MAX, so every job it
 * accepts is simulated: a fuzzer input may take seconds, never unbounded memory), Monte Carlo replications cut to
 * 4; a sweep at most 2,000 layouts, 3 finalists. The command-line target maps every path
 * into its temporary directory, caps --replications at 4 (and gives a run --replications 4
 * when its arguments do not) and --threads at 1, and runs
 * `calibrate` only up to its option parsing (a calibration measures for seconds).
 *
 * Speed (each harness should run ~10^4 inputs per second, so that a minute or two reaches a
 * million): the JSON targets parse from memory with ts_json_parse, the parser every file goes
 * through (file reading itself is the command-line target's and the tests' business); the
 * model, accelerator and system targets evaluate their file inside a job that reduces its
 * gradients in one bucket per chunk (a 175B model otherwise has thousands of bucket flows per
 * iteration: a profile of the model harness spent 70% of its time in those events), and only
 * the job target writes trace files (on tmpfs when there is one, where fsync costs nothing).
 */
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <omp.h>

#include "calibrate/gemmcsv.h"
#include "calibrate/nccl.h"
#include "cli/cli.h"
#include "cost/cost.h"
#include "report/report.h"
#include "run/run.h"
#include "search/search.h"
#include "spec/spec.h"
#include "step/step.h"

#include "fuzz_targets.h"

#define MAX_GPUS 4096
#define MAX_BUCKETS 100000.0
#define MAX_REPLICATIONS 4
#define MAX_LAYOUTS 2000.0
#define MAX_TRACED_TASKS 1000.0

/* ---------------------------------------------------------------- setup */

static char tmpdir[256];
static struct ts_system base_system;    // dgx-h100
static struct ts_model base_model;      // gpt2-124m

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "fuzz invariant broken: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    abort();
}

static void remove_tmpdir(void)
{
    DIR *d = opendir(tmpdir);
    if (!d)
        return;
    struct dirent *e;
    char path[512];
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", tmpdir, e->d_name);
        unlink(path);
    }
    closedir(d);
    rmdir(tmpdir);
}

static void write_text(const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "wb");
    if (!f)
        fail("cannot write %s", path);
    fputs(text, f);
    fclose(f);
}

/* Small files the command-line target can name. */
static const char tiny_job[] =
    "{\"model\": \"gpt2-124m\", \"system\": \"dgx-h100\", \"nodes\": 1, \"global_batch\": 16,\n"
    " \"parallel\": {\"tp\": 2, \"pp\": 2, \"microbatch\": 1},\n"
    " \"training\": {\"tokens\": \"1B\"},\n"
    " \"reliability\": {\"replications\": 4, \"seed\": 3},\n"
    " \"cost\": {\"gpu_hour\": {\"on_demand\": 2.5}}}\n";
/* Every searched dimension fixed but tp and pp: 4 layouts x 2 pricing models, so a sweep
 * through the command line stays in milliseconds. */
static const char tiny_sweep[] =
    "{\"name\": \"tiny\", \"model\": \"gpt2-124m\", \"tokens\": \"1B\", \"global_batch\": 32,\n"
    " \"systems\": [\"dgx-h100\"], \"nodes\": [1], \"pricing\": [\"on_demand\", \"spot\"],\n"
    " \"parallel\": {\"tp\": [1, 2], \"pp\": [1, 2], \"cp\": 1, \"microbatch\": 1, \"zero\": 0,\n"
    "              \"schedule\": \"1f1b\", \"virtual_stages\": 1, \"recompute\": \"none\",\n"
    "              \"sequence_parallel\": false, \"tp_comm_overlap\": false},\n"
    " \"reliability\": {\"replications\": 4},\n"
    " \"cost\": {\"gpu_hour\": {\"on_demand\": 2.5, \"spot\": 1.0}},\n"
    " \"constraint\": {\"deadline\": \"30 d\"}, \"objective\": \"cost\", \"top\": 3}\n";

static void init(void)
{
    static int done;
    if (done)
        return;
    done = 1;
    setenv("TRAINSIM_HOME", TS_SOURCE_DIR, 0);
    /* tmpfs when there is one: the trace writer fsyncs every file it writes. */
    const char *base = getenv("TMPDIR");
    struct stat st;
    if (!(base && base[0]))
        base = stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) && access("/dev/shm", W_OK) == 0
                   ? "/dev/shm"
                   : "/tmp";
    snprintf(tmpdir, sizeof tmpdir, "%s/trainsim-fuzz.XXXXXX", base);
    if (!mkdtemp(tmpdir))
        fail("mkdtemp %s failed", tmpdir);
    atexit(remove_tmpdir);
    omp_set_num_threads(1);
    struct ts_err err;
    if (ts_system_load("dgx-h100", &base_system, &err) || ts_model_load("gpt2-124m", &base_model, &err))
        fail("catalogue: %s", err.msg);
    write_text("job.json", tiny_job);
    write_text("sweep.json", tiny_sweep);
}

/* Write the input to a file of the temporary directory; returns its path (static buffer). */
static const char *write_input(const char *name, const uint8_t *data, size_t n)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "wb");
    if (!f)
        fail("cannot write %s", path);
    if (n && fwrite(data, 1, n, f) != n)
        fail("short write to %s", path);
    fclose(f);
    return path;
}

/* write_input, then the file read back as the CLI reads it (its text is the caller's to
 * free): the calibration readers parse text, not paths. */
static char *input_text(const char *name, const uint8_t *data, size_t n, const char **path,
                        size_t *len)
{
    *path = write_input(name, data, n);
    char *text;
    struct ts_err err;
    ts_err_clear(&err);
    if (ts_file_read(*path, &text, len, &err))
        fail("cannot read back %s: %s", *path, err.msg);
    return text;
}

/* ---------------------------------------------------------------- invariants */

static void check_finite(const char *what, double v)
{
    if (!isfinite(v))
        fail("%s = %g is not finite", what, v);
}

static void check_nonneg(const char *what, double v)
{
    check_finite(what, v);
    if (v < 0)
        fail("%s = %g is negative", what, v);
}

/* Sum check with a relative tolerance (rounding of a sum of positive parts). */
static void check_sum(const char *what, double sum, double total)
{
    if (!(fabs(sum - total) <= 1e-9 * fabs(total) + 1e-9))
        fail("%s: parts sum to %.17g, total %.17g", what, sum, total);
}

static void check_iteration(const struct ts_job *job, const struct ts_iteration *it)
{
    if (!(it->iteration_s > 0) || !isfinite(it->iteration_s))
        fail("iteration_s = %g (feasible %d)", it->iteration_s, it->feasible);
    check_nonneg("tokens_per_s", it->tokens_per_s);
    check_nonneg("model_flops", it->model_flops);
    check_nonneg("hardware_flops", it->hardware_flops);
    check_nonneg("model_tflops_per_gpu", it->model_tflops_per_gpu);
    check_nonneg("hardware_tflops_per_gpu", it->hardware_tflops_per_gpu);
    check_nonneg("mfu", it->mfu);
    check_nonneg("hfu", it->hfu);
    check_nonneg("data_stall_s", it->data_stall_s);
    if (it->hfu > 1 + 1e-9)
        fail("hfu = %.17g exceeds 1 (%s on %s)", it->hfu, job->model.name, job->system.name);
    if (it->mfu > it->hfu * (1 + 1e-9))
        fail("mfu %.17g exceeds hfu %.17g", it->mfu, it->hfu);
    if (!(it->bubble_fraction >= 0 && it->bubble_fraction < 1))
        fail("bubble_fraction = %g", it->bubble_fraction);
    check_nonneg("memory", it->memory.total_bytes);
    check_nonneg("params", it->params);
    check_nonneg("layer_fwd_s", it->layer_fwd_s);
    check_nonneg("layer_bwd_s", it->layer_bwd_s);
    check_nonneg("layer_recompute_s", it->layer_recompute_s);
    if (job->has_training) {
        check_nonneg("iterations", it->iterations);
        check_nonneg("time_to_train_s", it->time_to_train_s);
    }
}

static void check_run(const struct ts_run_result *r)
{
    check_nonneg("run mean_s", r->mean_s);
    check_nonneg("run p50_s", r->p50_s);
    check_nonneg("run p90_s", r->p90_s);
    check_nonneg("run p99_s", r->p99_s);
    check_nonneg("run stderr_s", r->stderr_s);
    check_nonneg("failures_mean", r->failures_mean);
    check_nonneg("checkpoints_mean", r->checkpoints_mean);
    if (!(r->goodput > 0 && r->goodput <= 1 + 1e-12))
        fail("goodput = %g", r->goodput);
    if (r->mean_s < r->params.solve_s * (1 - 1e-9))
        fail("expected time %.17g below the failure-free time %.17g", r->mean_s, r->params.solve_s);
}

static void check_cost(const struct ts_cost_result *c)
{
    double sum = 0, gh = 0;
    for (int i = 0; i < TS_COST_COUNT; i++) {
        check_finite(ts_cost_category_names[i], c->breakdown_usd[i]);
        sum += c->breakdown_usd[i];
    }
    check_sum("cost breakdown", sum, c->total_usd);
    for (int i = 0; i < TS_GPUH_COUNT; i++) {
        check_finite(ts_gpuh_names[i], c->gpu_hours[i]);
        gh += c->gpu_hours[i];
    }
    check_sum("GPU-hour attribution", gh, c->gpu_hours_billed);
    check_finite("cost p90", c->p90_usd);
    check_finite("cost per hour", c->per_hour_usd);
    check_finite("cost per million tokens", c->per_million_tokens_usd);
}

/* Keys whose value may be null in a report: no reason when feasible, no budget limit, no
 * job MTBF when nothing can fail, no best/closest configuration, no miss message when a sweep
 * has an answer; in an imported model, an MLA attention without query compression
 * (q_lora_rank null, DeepSeek-V2-Lite). */
static bool null_allowed(const char *key)
{
    static const char *const ok[] = {"reason", "limit", "job_mtbf_s", "job_mtbf_failures_s",
                                     "best", "closest", "message", "q_lora_rank", NULL};
    for (int i = 0; key && ok[i]; i++)
        if (strcmp(key, ok[i]) == 0)
            return true;
    return false;
}

static void check_json(const cJSON *o, const char *where)
{
    for (const cJSON *c = o ? o->child : NULL; c; c = c->next) {
        if (cJSON_IsNull(c) && !null_allowed(c->string))
            fail("%s: \"%s\" is null (a non-finite number reached the output)", where,
                 c->string ? c->string : "[item]");
        if (cJSON_IsNumber(c) && !isfinite(c->valuedouble))
            fail("%s: \"%s\" is not finite", where, c->string ? c->string : "[item]");
        if (cJSON_IsObject(c) || cJSON_IsArray(c))
            check_json(c, where);
    }
}

/* ---------------------------------------------------------------- evaluation of a job */

/* Whether a validated job is small enough to evaluate here. */
static bool job_small(const struct ts_job *job, struct ts_eval_scratch *s)
{
    if (job->gpus > MAX_GPUS)
        return false;
    ts_compute_build(job, &s->compute);
    ts_step_plan_build(job, &s->compute, &s->plan);
    double buckets = 0;
    for (int i = 0; i < s->plan.p * s->plan.v; i++)
        buckets += s->plan.chunk[i].buckets;
    return buckets <= MAX_BUCKETS;
}

/* Evaluate a validated job as `trainsim run` does and check every result. */
static struct ts_eval_scratch scratch;     // reused, as the sweep's workers reuse theirs

static void free_scratch(void)
{
    ts_eval_scratch_free(&scratch);
}

static void eval_job(struct ts_job *job, bool write_traces)
{
    static bool ready;
    if (!ready) {
        if (ts_eval_scratch_init(&scratch))
            fail("out of memory");
        atexit(free_scratch);
        ready = true;
    }
    struct ts_eval_scratch *const s = &scratch;
    if (!job_small(job, s))
        return;
    int p = job->parallel.pp;
    double *arrays = ts_xcalloc(4 * (size_t)p, sizeof *arrays);
    struct ts_step_stages stages = {arrays, arrays + p, arrays + 2 * p};
    double *stage_mem = arrays + 3 * p;
    struct ts_trace trace;
    ts_trace_init(&trace);
    struct ts_iteration it, cf;
    ts_step_evaluate(job, TS_METHOD_CLOSED_FORM, s, &cf, NULL, NULL);
    check_iteration(job, &cf);
    /* Traces only of small iterations: they are written out, and the writer is what is
     * under test (a trace of thousands of events tests nothing more, slowly). */
    const struct ts_parallel *par = &job->parallel;
    double tasks = (double)job->global_batch / ((double)par->dp * par->microbatch) * par->pp *
                   par->virtual_stages;
    bool tracing = write_traces && tasks <= MAX_TRACED_TASKS;
    ts_step_evaluate(job, TS_METHOD_DISCRETE_EVENT, s, &it, &stages, tracing ? &trace : NULL);
    check_iteration(job, &it);
    for (int k = 0; k < p; k++) {
        struct ts_memory m;
        ts_memory_stage(job, &s->compute, k, &m);
        stage_mem[k] = m.total_bytes;
        check_nonneg("stage memory", m.total_bytes);
        check_nonneg("stage busy", stages.busy_s[k]);
        check_nonneg("stage idle", stages.idle_s[k]);
        check_nonneg("stage end", stages.end_s[k]);
    }
    struct ts_err err;
    struct ts_run_result run;
    struct ts_cost_result cost;
    bool have_run = false, have_cost = false;
    double samples[MAX_REPLICATIONS];
    double ckpt = ts_compute_checkpoint_bytes(job, &s->compute);
    check_nonneg("checkpoint bytes", ckpt);
    struct ts_run_timeline timeline = {0};
    if (job->has_reliability && job->has_training) {
        struct ts_run_input in;
        memset(&in, 0, sizeof in);
        in.iteration_s = it.iteration_s;
        in.iterations = it.iterations;
        in.gpus = job->gpus;
        in.nodes = job->nodes;
        in.gpus_per_node = job->system.gpus_per_node;
        in.dp = job->parallel.dp;
        in.checkpoint_bytes = ckpt;
        in.rel = job->reliability;
        if (in.rel.replications > MAX_REPLICATIONS || in.rel.replications < 1)
            in.rel.replications = MAX_REPLICATIONS;
        struct ts_run_result est;
        if (ts_run_estimate(&in, &est, &err) == TS_OK)
            check_run(&est);
        if (ts_run_simulate(&in, &run, samples, &timeline, &err) == TS_OK) {
            check_run(&run);
            have_run = true;
        }
    }
    if (job->has_cost) {
        struct ts_cost_input ci = {job, &it, have_run ? &run : NULL, have_run ? samples : NULL,
                                   have_run ? run.replications : 0, ckpt};
        if (ts_cost_compute(&ci, &cost, &err) == TS_OK) {
            check_cost(&cost);
            have_cost = true;
        }
    }
    struct ts_run_output out = {"fuzz.json", job, &it, &stages, stage_mem, have_run ? &run : NULL,
                                have_cost ? &cost : NULL, NULL};
    cJSON *o = ts_report_run_json(&out);
    check_json(o, "run report");
    struct ts_buf buf;
    ts_buf_init(&buf);
    ts_report_json_print(o, &buf);
    cJSON_Delete(o);
    ts_report_run_table(&out, &buf);
    ts_report_run_csv(&out, &buf);
    ts_buf_free(&buf);
    char path[512];
    snprintf(path, sizeof path, "%s/trace.json", tmpdir);
    if (tracing && trace.len < 5000 && ts_report_trace_write(path, &trace, job, &err))
        fail("trace write: %s", err.msg);
    if (write_traces && have_run && timeline.len < 5000 &&
        ts_report_run_trace_write(path, &timeline, job, &err))
        fail("run trace write: %s", err.msg);
    ts_run_timeline_free(&timeline);
    ts_trace_free(&trace);
    free(arrays);
}

/* ---------------------------------------------------------------- JSON targets */

typedef int (*parse_fn)(const struct ts_jnode *node, void *out, struct ts_err *err);

/* Parse the input as the JSON document of a file (as ts_json_load does after reading it);
 * returns TS_OK when it is a valid document. References to other files resolve as from a
 * file in the temporary directory. */
static int load(const uint8_t *data, size_t n, parse_fn parse, void *out)
{
    init();
    static char path[512];
    if (!path[0])
        snprintf(path, sizeof path, "%s/input.json", tmpdir);
    char *text = ts_xmalloc(n + 1);
    if (n)
        memcpy(text, data, n);
    text[n] = '\0';
    struct ts_err err;
    ts_err_clear(&err);
    cJSON *doc;
    int rc = ts_json_parse(text, n, path, &doc, &err);
    free(text);
    if (rc == TS_OK) {
        struct ts_jnode root = ts_jnode_root(doc, path);
        rc = parse(&root, out, &err);
        cJSON_Delete(doc);
    }
    if (rc != TS_OK && (rc != (int)err.status || rc != TS_ERR_INPUT || !err.msg[0]))
        fail("a failed parse must be an input error with a message (rc %d, \"%s\")", rc, err.msg);
    return rc;
}

static int parse_model(const struct ts_jnode *node, void *out, struct ts_err *err)
{
    return ts_model_parse(node, out, err);
}

static int parse_accel(const struct ts_jnode *node, void *out, struct ts_err *err)
{
    return ts_accel_parse(node, out, err);
}

static int parse_system(const struct ts_jnode *node, void *out, struct ts_err *err)
{
    return ts_system_parse(node, out, err);
}

static int parse_job(const struct ts_jnode *node, void *out, struct ts_err *err)
{
    return ts_job_parse(node, NULL, out, err);
}

static int parse_sweep(const struct ts_jnode *node, void *out, struct ts_err *err)
{
    return ts_sweep_parse(node, out, err);
}

/* A plain job around a model and a system: `gpus` GPUs, pp stages, data parallel. */
static void make_job(struct ts_job *job, const struct ts_model *m, const struct ts_system *sys,
                     int gpus, int pp)
{
    memset(job, 0, sizeof *job);
    job->model = *m;
    job->system = *sys;
    job->gpus = gpus;
    job->nodes = (gpus + sys->gpus_per_node - 1) / sys->gpus_per_node;
    ts_parallel_defaults(&job->parallel);
    job->parallel.pp = pp;
    job->parallel.dp = gpus / pp;
    job->parallel.scatter_gather = false;
    job->parallel.bucket_bytes = 1e13;     /* one bucket per chunk: the file is under test, not DP */
    job->global_batch = 4 * pp * job->parallel.dp;
    job->precision = TS_PREC_BF16;
    for (int i = 0; i < TS_PREC_COUNT; i++)
        if (sys->accel.peak_flops[i] > 0) {
            job->precision = (enum ts_precision)i;
            break;
        }
    job->has_training = true;
    job->training.tokens = 1e9;
}

/* The inputs' structs, reused by every execution (fresh allocations of these sizes cost page
 * faults each time under AddressSanitizer); each parser clears its struct first. */
static struct ts_model in_model;
static struct ts_system in_system;
static struct ts_job in_job;
static struct ts_sweep in_sweep;
static struct ts_sweep_result in_result;

int ts_fuzz_model(const uint8_t *data, size_t n)
{
    struct ts_model *m = &in_model;
    if (load(data, n, parse_model, m) == TS_OK) {
        struct ts_job *job = &in_job;
        struct ts_err err;
        for (int pp = 1; pp <= 2; pp++) {
            make_job(job, m, &base_system, 8, pp);
            if (ts_job_validate(job, "fuzz", &err) == TS_OK)
                eval_job(job, false);
        }
    }
    return 0;
}

int ts_fuzz_accel(const uint8_t *data, size_t n)
{
    struct ts_system *sys = &in_system;
    *sys = base_system;
    if (load(data, n, parse_accel, &sys->accel) == TS_OK) {
        struct ts_job *job = &in_job;
        struct ts_err err;
        make_job(job, &base_model, sys, 16, 2);
        if (ts_job_validate(job, "fuzz", &err) == TS_OK)
            eval_job(job, false);
    }
    return 0;
}

int ts_fuzz_system(const uint8_t *data, size_t n)
{
    struct ts_system *sys = &in_system;
    if (load(data, n, parse_system, sys) == TS_OK && sys->gpus_per_node <= MAX_GPUS / 2) {
        struct ts_job *job = &in_job;
        struct ts_err err;
        make_job(job, &base_model, sys, 2 * sys->gpus_per_node, 2);
        if (ts_job_validate(job, "fuzz", &err) == TS_OK)
            eval_job(job, false);
    }
    return 0;
}

int ts_fuzz_job(const uint8_t *data, size_t n)
{
    struct ts_job *job = &in_job;
    if (load(data, n, parse_job, job) == TS_OK)
        eval_job(job, true);
    return 0;
}

/* Upper bound of a sweep's layouts and of one layout's pipeline tasks. */
static double list_max(const struct ts_int_list *l, double auto_max)
{
    if (l->is_auto)
        return auto_max;
    double m = 0;
    for (int i = 0; i < l->n; i++)
        m = fmax(m, l->v[i]);
    return m;
}

static double list_n(const struct ts_int_list *l, double n_auto)
{
    return l->is_auto ? n_auto : l->n;
}

static bool sweep_small(const struct ts_sweep *sw)
{
    double layouts = sw->n_systems * list_n(&sw->nodes, 1) * list_n(&sw->global_batch, 1) *
                     list_n(&sw->tp, 16) * list_n(&sw->pp, 16) * list_n(&sw->cp, 5) *
                     list_n(&sw->microbatch, 5) * list_n(&sw->schedule, 2) *
                     list_n(&sw->virtual_stages, 8) * list_n(&sw->sequence_parallel, 2) *
                     list_n(&sw->recompute, 3) * list_n(&sw->zero, 4) *
                     list_n(&sw->tp_comm_overlap, 2);
    if (!(layouts <= MAX_LAYOUTS))
        return false;
    double gpn = 0;
    for (int s = 0; s < sw->n_systems; s++)
        gpn = fmax(gpn, sw->systems[s].gpus_per_node);
    return list_max(&sw->nodes, 1) * gpn <= MAX_GPUS;
}

static void check_outcome(const struct ts_outcome *o)
{
    if (!(o->iteration_s > 0) || !isfinite(o->iteration_s))
        fail("outcome iteration_s = %g", o->iteration_s);
    check_nonneg("outcome tokens_per_s", o->tokens_per_s);
    check_nonneg("outcome time_s", o->time_s);
    check_nonneg("outcome cost_usd", o->cost_usd);
    check_nonneg("outcome memory", o->memory_bytes);
    if (!(o->mfu > 0 && o->mfu <= 1 + 1e-9))
        fail("outcome mfu = %g", o->mfu);
}

int ts_fuzz_sweep(const uint8_t *data, size_t n)
{
    struct ts_sweep *sw = &in_sweep;
    if (load(data, n, parse_sweep, sw) == TS_OK && sweep_small(sw)) {
        if (sw->top > 3)
            sw->top = 3;
        if (sw->reliability.replications > MAX_REPLICATIONS)
            sw->reliability.replications = MAX_REPLICATIONS;
        struct ts_sweep_options opt;
        memset(&opt, 0, sizeof opt);
        opt.threads = 1;
        opt.batch = 16;
        struct ts_sweep_result *res = &in_result;
        struct ts_err err;
        ts_err_clear(&err);
        if (ts_sweep_run(sw, &opt, res, &err) == TS_OK) {
            for (int i = 0; i < res->n_top; i++)
                check_outcome(&res->top[i]);
            for (int i = 0; i < res->n_pareto; i++)
                check_outcome(&res->pareto[i]);
            cJSON *o = ts_report_sweep_json(sw, res);
            check_json(o, "sweep report");
            struct ts_buf buf;
            ts_buf_init(&buf);
            ts_report_json_print(o, &buf);
            cJSON_Delete(o);
            ts_report_sweep_table(sw, res, &buf);
            ts_report_sweep_csv(sw, res, &buf);
            ts_buf_free(&buf);
        } else if (err.status == TS_OK || !err.msg[0]) {
            fail("a failed sweep must say why");
        }
        ts_sweep_result_free(res);
    }
    return 0;
}

/* ---------------------------------------------------------------- units */

int ts_fuzz_units(const uint8_t *data, size_t n)
{
    init();
    if (n < 1)
        return 0;
    enum ts_dim dim = (enum ts_dim)(data[0] % TS_DIM_COUNT);
    char *text = ts_xmalloc(n);
    memcpy(text, data + 1, n - 1);
    text[n - 1] = '\0';
    struct ts_err err;
    ts_err_clear(&err);
    double v = 0;
    char buf[64], tiny[6];
    if (ts_quantity_parse(text, dim, &v, &err) == TS_OK) {
        check_finite("quantity", v);
        ts_quantity_format(v, dim, buf, sizeof buf);
        ts_quantity_format(v, dim, tiny, sizeof tiny);
    } else if (err.status != TS_ERR_INPUT || !err.msg[0]) {
        fail("a rejected quantity must be an input error with a message");
    }
    /* The same text as a JSON string through the typed getters. */
    cJSON *s = cJSON_CreateString(text);
    if (s) {
        struct ts_jnode node = ts_jnode_root(s, "fuzz.json");
        double q;
        long l;
        if (ts_jnode_to_quantity(&node, dim, 0.0, 1e30, &q, &err) == TS_OK && !(q >= 0 && q <= 1e30))
            fail("quantity %g outside its range", q);
        if (ts_jnode_to_long(&node, -1000000, 1000000, &l, &err) == TS_OK && (l < -1000000 || l > 1000000))
            fail("integer %ld outside its range", l);
        cJSON_Delete(s);
    }
    /* Raw bytes as a double: formatting must stay in the buffer and round-trip. */
    if (n >= 9) {
        double d;
        memcpy(&d, data + 1, sizeof d);
        ts_quantity_format(d, dim, buf, sizeof buf);
        ts_quantity_format(d, dim, tiny, sizeof tiny);
        char js[64];
        ts_json_format_double(d, js, sizeof js);
        if (isfinite(d) && strtod(js, NULL) != d)
            fail("ts_json_format_double(%.17g) = \"%s\" does not round-trip", d, js);
        if (!isfinite(d) && strcmp(js, "null") != 0)
            fail("non-finite formatted as \"%s\"", js);
        cJSON *num = cJSON_CreateNumber(d);
        struct ts_jnode node = ts_jnode_root(num, "fuzz.json");
        double q;
        long l;
        if (ts_jnode_to_quantity(&node, dim, -1e300, 1e300, &q, &err) == TS_OK && !isfinite(q))
            fail("non-finite quantity accepted");
        if (ts_jnode_to_long(&node, -(1L << 40), 1L << 40, &l, &err) == TS_OK && (double)l != d)
            fail("integer %ld from %.17g", l, d);
        cJSON_Delete(num);
    }
    free(text);
    return 0;
}

/* ---------------------------------------------------------------- command line */

#define CLI_ARGS_MAX 24
#define CLI_ARG_LEN 256

static bool takes_path(const char *opt)
{
    static const char *const opts[] = {"--csv", "--trace", "--run-trace", "--out", "--system-out",
                                       "--partial", "--resume", "--accel", NULL};
    for (int i = 0; opts[i]; i++)
        if (strcmp(opt, opts[i]) == 0)
            return true;
    return false;
}

/* A path argument mapped into the temporary directory: a base name of safe characters. */
static void safe_name(char *arg)
{
    bool slash = strchr(arg, '/') != NULL;
    if (!slash && strlen(arg) > 0)
        return;     /* relative to the temporary directory already */
    unsigned h = 0;
    for (const char *p = arg; *p; p++)
        h = h * 31 + (unsigned char)*p;
    static const char *const names[] = {"job.json", "sweep.json", "input.json", "out0.json",
                                        "out1.csv", "out2.json", "missing.json", "sub/x.json"};
    snprintf(arg, CLI_ARG_LEN, "%s", names[h % TS_ARRAY_LEN(names)]);
}

static void cap_number(char *arg, long cap)
{
    char *end;
    long v = strtol(arg, &end, 10);
    if (end != arg && v > cap)
        snprintf(arg, CLI_ARG_LEN, "%ld", cap);
}

int ts_fuzz_cli(const uint8_t *data, size_t n)
{
    init();
    if (n < 1)
        return 0;
    /* Bytes after the first NUL are a file the arguments can name as "input.json". */
    const uint8_t *nul = memchr(data, 0, n);
    size_t argn = nul ? (size_t)(nul - data) : n;
    if (nul)
        write_input("input.json", nul + 1, n - argn - 1);
    static const char *const cmds[] = {"run", "sweep", "calibrate"};
    int cmd = data[0] % 3;
    char store[CLI_ARGS_MAX][CLI_ARG_LEN];
    char *argv[CLI_ARGS_MAX + 3];
    int argc = 0;
    argv[argc++] = (char *)cmds[cmd];
    size_t i = 1;
    while (i <= argn && argc < CLI_ARGS_MAX) {
        size_t j = i;
        while (j < argn && data[j] != '\n')
            j++;
        if (i == argn)
            break;
        size_t len = j - i < CLI_ARG_LEN - 1 ? j - i : CLI_ARG_LEN - 1;
        char *a = store[argc];
        memcpy(a, data + i, len);
        a[len] = '\0';
        argv[argc++] = a;
        i = j + 1;
    }
    bool help = false, replications = false;
    for (int k = 1; k < argc; k++) {
        if (strcmp(argv[k], "--help") == 0 || strcmp(argv[k], "-h") == 0)
            help = true;
        if (strchr(argv[k], '/'))
            safe_name(argv[k]);
        if (k > 1 && takes_path(argv[k - 1]))
            safe_name(argv[k]);
        if (k > 1 && strcmp(argv[k - 1], "--replications") == 0)
            cap_number(argv[k], MAX_REPLICATIONS);
        if (k > 1 && strcmp(argv[k - 1], "--threads") == 0)
            cap_number(argv[k], 1);
        replications |= strcmp(argv[k], "--replications") == 0;
    }
    /* A run of a fuzzed job file does at most MAX_REPLICATIONS Monte Carlo replications. */
    if (cmd == 0 && !replications && !help) {
        argv[argc++] = "--replications";
        argv[argc++] = "4";
    }
    if (cmd == 2) {
        /* Stop calibrate at its option parser: an unknown trailing option always fails it. */
        argv[argc++] = "--fuzz-end";
        argv[argc++] = "--fuzz-end";
    }
    argv[argc] = NULL;

    int cwd = open(".", O_RDONLY | O_DIRECTORY);
    int saved_out = dup(STDOUT_FILENO);
    int devnull = open("/dev/null", O_WRONLY);
    if (cwd < 0 || saved_out < 0 || devnull < 0 || chdir(tmpdir) != 0)
        fail("cannot set up the command-line target");
    fflush(stdout);
    dup2(devnull, STDOUT_FILENO);
    int rc;
    if (help) {
        static void (*const helps[])(FILE *) = {ts_cli_run_help, ts_cli_sweep_help,
                                                 ts_cli_calibrate_help};
        helps[cmd](stdout);
        rc = 0;
    } else {
        static int (*const mains[])(int, char **) = {ts_cli_run, ts_cli_sweep, ts_cli_calibrate};
        rc = mains[cmd](argc, argv);
    }
    fflush(stdout);
    dup2(saved_out, STDOUT_FILENO);
    close(saved_out);
    close(devnull);
    if (fchdir(cwd) != 0)
        fail("cannot return to the working directory");
    close(cwd);
    if (rc != TS_OK && rc != TS_ERR_RUNTIME && rc != TS_ERR_INPUT && rc != 130)
        fail("exit status %d is not 0, 1, 2 or 130", rc);
    return 0;
}


/* ---------------------------------------------------------------- importers and calibration files
 *
 * These entry points read a file by its path (or text named by a path), so each target writes
 * its input to the temporary directory first. A failure must be an input error whose message
 * names that file; an accepted input must give a consistent object, and what an importer writes
 * must load with the catalogue's own parsers.
 */

/* A refused input: exit-2 kind, with a message that names the file it read. */
static void check_refusal_of(int rc, const struct ts_err *err, const char *file,
                             const char *other, const char *what)
{
    if (rc != TS_ERR_INPUT || err->status != TS_ERR_INPUT || !err->msg[0])
        fail("%s: a failed read must be an input error with a message (rc %d, \"%s\")", what, rc,
             err->msg);
    const char *base = strrchr(file, '/');
    base = base ? base + 1 : file;
    if (!strstr(err->msg, base) && !(other && strstr(err->msg, other)))
        fail("%s: the message \"%s\" does not name the file %s", what, err->msg, base);
}

static void check_refusal(int rc, const struct ts_err *err, const char *file, const char *what)
{
    check_refusal_of(rc, err, file, NULL, what);
}

static void check_model(const struct ts_model *m)
{
    if (m->layers < 1 || m->hidden < 1 || m->heads < 1 || m->kv_heads < 1 || m->head_dim < 1 ||
        m->ffn_hidden < 1 || m->vocab < 1 || m->seq_len < 1)
        fail("model %s: a size is not positive (layers %d hidden %d heads %d kv %d head_dim %d "
             "ffn %d vocab %d seq %d)", m->name, m->layers, m->hidden, m->heads, m->kv_heads,
             m->head_dim, m->ffn_hidden, m->vocab, m->seq_len);
    if (m->heads % m->kv_heads)
        fail("model %s: kv_heads %d does not divide heads %d", m->name, m->kv_heads, m->heads);
    check_nonneg("model dropout", m->dropout);
}

/* Evaluate a model inside a plain job on the base system (as the model target does). */
static void eval_model(const struct ts_model *m)
{
    struct ts_job *job = &in_job;
    struct ts_err err;
    for (int pp = 1; pp <= 2; pp++) {
        make_job(job, m, &base_system, 8, pp);
        if (ts_job_validate(job, "fuzz", &err) == TS_OK)
            eval_job(job, false);
    }
}

int ts_fuzz_hf(const uint8_t *data, size_t n)
{
    init();
    const char *path = write_input("config.json", data, n);
    /* trainsim import hf: the translated document, written as JSON. */
    cJSON *doc = NULL;
    char warning[1024];
    struct ts_err err;
    ts_err_clear(&err);
    int rc = ts_hf_model_doc(path, &doc, warning, sizeof warning, &err);
    if (rc != TS_OK) {
        check_refusal(rc, &err, path, "hf import");
        if (doc)
            fail("hf import: a document with a failed import");
    } else {
        if (!doc || !cJSON_IsObject(doc))
            fail("hf import: no model document");
        check_json(doc, "imported model");
        cJSON_Delete(doc);
    }
    /* "model": "hf:PATH": translated and read by the model parser. */
    char ref[600];
    snprintf(ref, sizeof ref, "hf:%s", path);
    ts_err_clear(&err);
    rc = ts_model_load(ref, &in_model, &err);
    ts_warning_clear();
    if (rc != TS_OK) {
        check_refusal(rc, &err, path, "hf model");
        return 0;
    }
    check_model(&in_model);
    eval_model(&in_model);
    return 0;
}

/* The prices of a cost config: each NAN (not given) or a finite price >= 0. */
static void check_prices(const struct ts_cost_config *c)
{
    for (int i = 0; i < TS_PRICING_COUNT; i++) {
        if (!isnan(c->gpu_hour[i]))
            check_nonneg("gpu_hour", c->gpu_hour[i]);
        if (!isnan(c->node_hour[i]))
            check_nonneg("node_hour", c->node_hour[i]);
    }
    for (int t = 0; t < TS_TIER_COUNT; t++)
        check_nonneg("storage_gb_month", c->storage_gb_month[t]);
    const double v[] = {c->fixed_per_hour, c->budget, c->dataset_bytes, c->inter_node_gb,
                        c->egress_bytes, c->egress_gb, c->cross_region_bytes, c->cross_region_gb,
                        c->data_bytes_per_token, c->loader_bytes_per_s, c->loader_host_hour,
                        c->monitoring_node_hour, c->log_ingest_gb, c->ops_hours_per_incident,
                        c->ops_hours_per_restart, c->ops_hourly_rate, c->log_bytes_per_step_node};
    for (size_t i = 0; i < TS_ARRAY_LEN(v); i++)
        check_nonneg("cost value", v[i]);
    if (c->loader_hosts < 0)
        fail("loader_hosts %d", c->loader_hosts);
    if (!c->price_source[0])
        fail("no price source");
}

static struct ts_cost_config in_cost;

/* Load the price file at `path` as a job's {"prices": PATH} would, price a small job with it;
 * returns the status of the load. */
static int price_with(const char *path, const char *what, struct ts_err *out_err)
{
    cJSON *cost = cJSON_CreateObject();
    cJSON_AddStringToObject(cost, "prices", path);
    static char job_path[512];
    snprintf(job_path, sizeof job_path, "%s/job.json", tmpdir);
    struct ts_jnode root = ts_jnode_root(cost, job_path);
    struct ts_err err;
    ts_err_clear(&err);
    struct ts_cost_config *c = &in_cost;
    ts_cost_config_defaults(c);
    int rc = ts_cost_config_parse(&root, c, &err);
    cJSON_Delete(cost);
    if (out_err)
        *out_err = err;
    if (rc != TS_OK) {
        /* The merged checks (no price for the job's pricing) name the job's cost key. */
        check_refusal_of(rc, &err, path, job_path, what);
        return rc;
    }
    check_prices(c);
    struct ts_job *job = &in_job;
    make_job(job, &base_model, &base_system, 8, 1);
    job->has_cost = true;
    job->cost = *c;
    if (ts_job_validate(job, "fuzz", &err) == TS_OK)
        eval_job(job, false);
    return TS_OK;
}

int ts_fuzz_prices(const uint8_t *data, size_t n)
{
    init();
    price_with(write_input("prices.json", data, n), "price file", NULL);
    return 0;
}

static struct ts_software in_software;

static int parse_software(const struct ts_jnode *node, void *out, struct ts_err *err)
{
    return ts_software_parse(node, out, err);
}

int ts_fuzz_software(const uint8_t *data, size_t n)
{
    struct ts_software *sw = &in_software;
    if (load(data, n, parse_software, sw) != TS_OK)
        return 0;
    if (sw->n_bands < 0 || sw->n_bands > TS_SW_BANDS_MAX || sw->n_mfu < 0 ||
        sw->n_mfu > TS_SW_BANDS_MAX)
        fail("software: %d bands, %d MFU rows", sw->n_bands, sw->n_mfu);
    for (int i = 0; i < sw->n_bands; i++) {
        check_finite("band min_error", sw->bands[i].min_error);
        check_finite("band max_error", sw->bands[i].max_error);
        if (sw->bands[i].min_error > sw->bands[i].max_error || sw->bands[i].n_rows < 1)
            fail("software band %d: %g..%g over %d rows", i, sw->bands[i].min_error,
                 sw->bands[i].max_error, sw->bands[i].n_rows);
    }
    for (int i = 0; i < sw->n_mfu; i++)
        if (!(sw->max_mfu[i].mfu > 0 && sw->max_mfu[i].mfu <= 1) ||
            sw->max_mfu[i].precision < 0 || sw->max_mfu[i].precision >= TS_PREC_COUNT)
            fail("software max_mfu %d: %g (precision %d)", i, sw->max_mfu[i].mfu,
                 sw->max_mfu[i].precision);
    struct ts_job *job = &in_job;
    struct ts_err err;
    for (int pp = 1; pp <= 2; pp++) {
        make_job(job, &base_model, &base_system, 8, pp);
        job->software = *sw;
        ts_software_apply(sw, &job->parallel);
        if (ts_job_validate(job, "fuzz", &err) == TS_OK)
            eval_job(job, false);
    }
    return 0;
}

/* ---------------------------------------------------------------- calibration files */

static struct ts_nccl_table nccl_table;
static struct ts_system nccl_fitted;

/* The collective comes from the first byte (as KIND:FILE names it, or -1: from the file's
 * name, all_reduce_perf.txt); the rest is the output. Tables of at most 8 sizes are also
 * fitted (the fit predicts every point ~1000 times). */
int ts_fuzz_nccl(const uint8_t *data, size_t n)
{
    init();
    if (n < 1)
        return 0;
    int coll = data[0] % 8;
    if (coll >= TS_COLL_COUNT)
        coll = -1;
    const char *path;
    size_t len;
    char *text = input_text("all_reduce_perf.txt", data + 1, n - 1, &path, &len);
    struct ts_err err;
    ts_err_clear(&err);
    struct ts_nccl_table *t = &nccl_table;
    int rc = ts_nccl_parse(text, len, path, coll, t, &err);
    free(text);
    if (rc != TS_OK) {
        check_refusal(rc, &err, path, "nccl-tests");
        return 0;
    }
    if (t->ranks < 1 || t->nodes < 1 || t->nodes > t->ranks || t->n < 1 ||
        t->n > TS_NCCL_POINTS_MAX)
        fail("nccl-tests table: %d ranks on %d nodes, %d points", t->ranks, t->nodes, t->n);
    for (int i = 0; i < t->n; i++) {
        const struct ts_nccl_point *pt = &t->pts[i];
        if (!(pt->bytes > 0) || !(pt->time_s > 0))
            fail("nccl-tests point %d: %g bytes in %g s", i, pt->bytes, pt->time_s);
        check_finite("bytes", pt->bytes);
        check_finite("time_s", pt->time_s);
        check_nonneg("algbw", pt->algbw);
        check_nonneg("busbw", pt->busbw);
    }
    if (t->n > 8)
        return 0;
    struct ts_nccl_fit_report rep;
    ts_err_clear(&err);
    rc = ts_nccl_fit(&base_system, t, 1, &nccl_fitted, &rep, &err);
    if (rc != TS_OK) {
        check_refusal(rc, &err, path, "nccl-tests fit");
        return 0;
    }
    const struct ts_nccl_fit_level *lv[2] = {&rep.up, &rep.out};
    const struct ts_level *L[2] = {&nccl_fitted.scale_up, &nccl_fitted.scale_out};
    for (int k = 0; k < 2; k++) {
        if (!lv[k]->fitted)
            continue;
        if (!(L[k]->efficiency >= 0.05 && L[k]->efficiency <= 1) ||
            !(L[k]->latency >= 1e-7 && L[k]->latency <= 2e-3))
            fail("nccl fit: efficiency %g, latency %g outside the search bounds",
                 L[k]->efficiency, L[k]->latency);
        check_nonneg("rms before", lv[k]->rms_log_before);
        check_nonneg("rms after", lv[k]->rms_log_after);
    }
    return 0;
}

static struct ts_accel gemm_check;
static struct ts_gemmcsv gemm_table;

/* The default precision comes from the first byte (none, or one of the precisions); the rest
 * is the CSV, read against the H100's peaks. Every precision's curve must load as an
 * accelerator file's gemm_efficiency (what calibrate --gemm-csv writes). */
int ts_fuzz_gemmcsv(const uint8_t *data, size_t n)
{
    init();
    if (n < 1)
        return 0;
    int prec = (int)(data[0] % (TS_PREC_COUNT + 1)) - 1;
    const char *path;
    size_t len;
    char *text = input_text("gemm.csv", data + 1, n - 1, &path, &len);
    struct ts_err err;
    ts_err_clear(&err);
    struct ts_gemmcsv *t = &gemm_table;
    const struct ts_accel *a = &base_system.accel;
    int rc = ts_gemmcsv_parse(text, len, path, a, prec, t, &err);
    free(text);
    if (rc != TS_OK) {
        check_refusal(rc, &err, path, "gemm csv");
        return 0;
    }
    int total = 0;
    for (int p = 0; p < TS_PREC_COUNT; p++)
        total += t->per_precision[p];
    if (t->n < 1 || total != t->n)
        fail("gemm csv: %d rows, %d by precision", t->n, total);
    for (int i = 0; i < t->n; i++)
        if (!(t->rows[i].efficiency > 0 && t->rows[i].efficiency <= 1))
            fail("gemm csv row %d: efficiency %g", i, t->rows[i].efficiency);
    /* The accelerator file calibrate writes: the base part's, the curves replaced. */
    char apath[600];
    if (ts_spec_resolve(TS_CAT_ACCEL, a->name, NULL, apath, sizeof apath, &err))
        fail("catalogue: %s", err.msg);
    cJSON *doc;
    if (ts_json_load(apath, &doc, &err))
        fail("catalogue: %s", err.msg);
    /* As sim/cli/calibrate_files.c does: gemm_efficiency by precision, the measured ones
     * replaced, the base part's other curves kept. */
    cJSON *ge = cJSON_GetObjectItemCaseSensitive(doc, "gemm_efficiency");
    if (!cJSON_IsObject(ge)) {
        cJSON *obj = cJSON_CreateObject();
        if (ge)
            cJSON_AddItemToObject(obj, "bf16", cJSON_DetachItemFromObjectCaseSensitive(doc, "gemm_efficiency"));
        cJSON_AddItemToObject(doc, "gemm_efficiency", obj);
        ge = obj;
    }
    for (int p = 0; p < TS_PREC_COUNT; p++)
        if (t->per_precision[p]) {
            cJSON_DeleteItemFromObjectCaseSensitive(ge, ts_precision_names[p]);
            cJSON_AddItemToObject(ge, ts_precision_names[p], ts_gemmcsv_curve_json(t, p));
        }
    check_json(doc, "calibrated accelerator");
    struct ts_jnode root = ts_jnode_root(doc, "calibrated.json");
    if (ts_accel_parse(&root, &gemm_check, &err))
        fail("the curves of an accepted GEMM table do not load: %s", err.msg);
    cJSON_Delete(doc);
    ts_gemmcsv_free(t);
    return 0;
}

/* ---------------------------------------------------------------- importers with a command line */

/* Split bytes into at most max arguments, one a line, into store; returns how many. */
static int split_args(const uint8_t *data, size_t n, char store[][CLI_ARG_LEN], char **argv,
                      int max)
{
    int argc = 0;
    size_t i = 0;
    while (i < n && argc < max) {
        size_t j = i;
        while (j < n && data[j] != '\n')
            j++;
        size_t len = j - i < CLI_ARG_LEN - 1 ? j - i : CLI_ARG_LEN - 1;
        memcpy(store[argc], data + i, len);
        store[argc][len] = '\0';
        argv[argc] = store[argc];
        argc++;
        i = j + 1;
    }
    return argc;
}

/* Run a command with standard output captured into out (and standard input at end of file:
 * nothing is asked) in the temporary directory; returns its status. */
static int run_captured(int (*cmd)(const char *, int, char **), const char *file, int argc,
                        char **argv, struct ts_buf *out)
{
    int cwd = open(".", O_RDONLY | O_DIRECTORY);
    int saved_in = dup(STDIN_FILENO);
    int devnull = open("/dev/null", O_RDONLY);
    if (cwd < 0 || saved_in < 0 || devnull < 0 || chdir(tmpdir) != 0)
        fail("cannot set up a command");
    dup2(devnull, STDIN_FILENO);
    ts_cli_capture_stdout(out);
    int rc = cmd(file, argc, argv);
    ts_cli_capture_stdout(NULL);
    ts_cli_print_warnings();
    dup2(saved_in, STDIN_FILENO);
    close(saved_in);
    close(devnull);
    if (fchdir(cwd) != 0)
        fail("cannot return to the working directory");
    close(cwd);
    if (rc != TS_OK && rc != TS_ERR_INPUT && rc != TS_ERR_RUNTIME)
        fail("exit status %d is not 0, 1 or 2", rc);
    return rc;
}

static int skypilot_cmd(const char *file, int argc, char **argv)
{
    return ts_cli_import_skypilot(file, argc, argv);
}

static int new_cmd(const char *file, int argc, char **argv)
{
    (void)file;
    return ts_cli_new(argc, argv);
}

/* The catalogue listing, then the price file of the first instance type it lists (and of
 * the type named on the input's first line when it starts with "#instance "); that file must
 * load as a price file and price a job. */
int ts_fuzz_skypilot(const uint8_t *data, size_t n)
{
    init();
    const char *path = write_input("vms.csv", data, n);
    static char file[512];
    snprintf(file, sizeof file, "%s", path);
    struct ts_buf out;
    ts_buf_init(&out);
    int rc = run_captured(skypilot_cmd, file, 0, NULL, &out);
    if (rc != TS_OK) {
        ts_buf_free(&out);
        return 0;
    }
    /* Lines: a header, then "TYPE ACC COUNT OD SPOT OFFERS" per instance type. */
    char type[CLI_ARG_LEN] = "";
    const char *line = out.data ? strchr(out.data, '\n') : NULL;
    for (; line && line[1]; line = strchr(line + 1, '\n')) {
        char t[CLI_ARG_LEN], acc[CLI_ARG_LEN], od[64], sp[64];
        double count;
        int offers;
        /* Only lines of six tokens: a name with blanks shifts the columns. */
        int tokens = 0;
        for (const char *q = line + 1; *q && *q != '\n';) {
            while (*q == ' ' || (*q >= '\t' && *q <= '\r' && *q != '\n'))
                q++;
            if (!*q || *q == '\n')
                break;
            tokens++;
            while (*q && !(*q == ' ' || (*q >= '\t' && *q <= '\r')))
                q++;
        }
        if (tokens != 6 ||
            sscanf(line + 1, "%255s %255s %lf %63s %63s %d", t, acc, &count, od, sp, &offers) != 6)
            continue;
        if (!(count > 0) || offers < 1)
            fail("skypilot listing: count %g, %d offers in \"%.80s\"", count, offers, line + 1);
        const char *prices[2] = {od, sp};
        for (int k = 0; k < 2; k++) {
            if (strcmp(prices[k], "-") == 0)
                continue;
            char *end;
            double v = strtod(prices[k], &end);
            if (*end || !isfinite(v) || v < 0)
                fail("skypilot listing: price \"%s\" in \"%.80s\"", prices[k], line + 1);
        }
        if (!type[0])
            snprintf(type, sizeof type, "%s", t);
    }
    ts_buf_free(&out);
    if (!type[0])
        return 0;
    static char out_path[512];
    snprintf(out_path, sizeof out_path, "%s/imported-prices.json", tmpdir);
    unlink(out_path);
    char *argv[] = {"--instance", type, "--out", out_path, "--date", "2026-12-01", NULL};
    ts_buf_init(&out);
    rc = run_captured(skypilot_cmd, file, 6, argv, &out);
    ts_buf_free(&out);
    /* The file must load; it may still not price a job whose pricing it lacks (an instance
     * with a spot price only), an error at the job's cost key. */
    struct ts_err err;
    if (rc == TS_OK && price_with(out_path, "imported price file", &err) != TS_OK &&
        strstr(err.msg, "imported-prices.json"))
        fail("import skypilot wrote a price file that does not load: %s", err.msg);
    return 0;
}

/* trainsim new system with the input's lines as flags (after "system"); paths are mapped into
 * the temporary directory. What it writes must load as a system file. */
int ts_fuzz_new(const uint8_t *data, size_t n)
{
    init();
    char store[CLI_ARGS_MAX][CLI_ARG_LEN];
    char *argv[CLI_ARGS_MAX + 3];
    argv[0] = "new";
    argv[1] = "system";
    int argc = 2 + split_args(data, n, store + 2, argv + 2, CLI_ARGS_MAX - 2);
    static char sys_path[512];
    snprintf(sys_path, sizeof sys_path, "%s/new-system.json", tmpdir);
    bool out = false;
    for (int k = 3; k < argc; k++) {
        if (strcmp(argv[k - 1], "--out") == 0) {
            snprintf(argv[k], CLI_ARG_LEN, "new-system.json");
            out = true;
        } else if (strcmp(argv[k - 1], "--accelerator-out") == 0) {
            snprintf(argv[k], CLI_ARG_LEN, "new-accel.json");
        }
    }
    argv[argc] = NULL;
    unlink(sys_path);
    struct ts_buf buf;
    ts_buf_init(&buf);
    int rc = run_captured(new_cmd, NULL, argc, argv, &buf);
    ts_buf_free(&buf);
    if (rc == TS_OK && out) {
        struct ts_err err;
        struct ts_system *sys = &in_system;
        if (ts_system_load(sys_path, sys, &err))
            fail("trainsim new system wrote a file that does not load: %s", err.msg);
        if (sys->gpus_per_node < 1)
            fail("new system: %d GPUs per node", sys->gpus_per_node);
    }
    return 0;
}
