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
 * job MTBF when nothing can fail, no best/closest configuration. */
static bool null_allowed(const char *key)
{
    static const char *const ok[] = {"reason", "limit", "job_mtbf_s", "job_mtbf_failures_s",
                                     "best", "closest", NULL};
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
