/*
 * `trainsim calibrate`: measure this host's GEMMs and memory with OpenBLAS, write an
 * accelerator file (and optionally a system file) describing it, and check a model layer's
 * measured GEMM time against trainsim's prediction. The measuring and fitting live in
 * sim/calibrate; this file parses options, reports and chooses exit codes.
 */
#define _XOPEN_SOURCE 700     /* realpath */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "calibrate/calibrate.h"
#include "cli/cli.h"

void ts_cli_calibrate_help(FILE *f)
{
    fprintf(f,
            "usage: trainsim calibrate [--out FILE] [--system-out FILE] [--name NAME]\n"
            "                          [--model NAME [--tp N] [--microbatch N] [--seq N]]\n"
            "                          [--seconds S] [--threads N] [--max-dim N]\n"
            "                          [--format table|json]\n"
            "       trainsim calibrate --accel FILE --model NAME [--tp N] [--microbatch N] [--seq N]\n"
            "       trainsim calibrate --nccl-tests [KIND:]FILE... --system NAME [--out FILE]\n"
            "                          [--name NAME] [--format table|json]\n"
            "       trainsim calibrate --gemm-csv FILE --accelerator NAME [--precision P]\n"
            "                          [--out FILE] [--name NAME] [--format table|json]\n"
            "       trainsim calibrate --gpu --accelerator NAME [--device N] [--max-dim N]\n"
            "                          [--precision P] [--csv-out FILE] [--out FILE] [--name NAME]\n"
            "\n"
            "Measure this host: single-precision GEMMs through OpenBLAS over a grid of shapes\n"
            "(square 64..4096, skinny, and the GEMMs of one layer of --model), the memory\n"
            "bandwidth (STREAM copy and triad) and the cost of a tiny BLAS call. Fit trainsim's\n"
            "GEMM model to them and write an accelerator file for the host CPU: peak_flops.fp32\n"
            "= the best measured rate (a CPU has no published peak; the curve is relative to it),\n"
            "gemm_efficiency = measured efficiency by GEMM size. Jobs on it must use\n"
            "\"precision\": \"fp32\" (the host computes in fp32; there is no bf16 entry).\n"
            "\n"
            "With --model, the layer's forward and backward GEMMs are also executed and their\n"
            "measured time is compared with trainsim's prediction on the new file. With\n"
            "--accel, nothing is calibrated: the layer is checked against an existing file (a\n"
            "held-out check when that file was calibrated without --model).\n"
            "\n"
            "options:\n"
            "  --out FILE          write the accelerator file here (default: print it on stdout)\n"
            "  --system-out FILE   also write a system file: the host as one \"GPU\" per node,\n"
            "                      nominal 10 Gb/s scale-out (unused by a 1-GPU job); jobs use\n"
            "                      it as \"system\": \"FILE\"\n"
            "  --name NAME         accelerator name (default host-HOSTNAME)\n"
            "  --model NAME        add one layer of this model (name or path) to the grid, and\n"
            "                      check its GEMMs measured vs predicted\n"
            "  --tp N              tensor-parallel size the layer is sharded for (default 1)\n"
            "  --microbatch N      sequences per microbatch (default 1)\n"
            "  --seq N             sequence length (default the model's seq_len)\n"
            "  --accel FILE        check --model's layer against this accelerator file only\n"
            "  --seconds S         time budget of the measurements (default 20, at least ~5:\n"
            "                      the memory test alone takes about a second; a layer check\n"
            "                      gets the last fifth)\n"
            "  --threads N         BLAS and memory-test threads (default all cores)\n"
            "  --max-dim N         largest dimension of the generic grid (default 4096; 0: only\n"
            "                      the model's shapes)\n"
            "  --format F          report format: table or json. The report goes to stdout when\n"
            "                      --out or --accel is given, else to stderr (stdout holds the file)\n"
            "\n"
            );
    fprintf(f,
            "From measurements you already have:\n"
            "  --nccl-tests FILE...  nccl-tests output (all_reduce_perf, all_gather_perf,\n"
            "                      reduce_scatter_perf, alltoall_perf, sendrecv_perf; one or many\n"
            "                      nodes), KIND:FILE when the name does not say which; fits the\n"
            "                      efficiency and latency of the level each table exercises\n"
            "                      (scale-up for one node, scale-out across nodes) through\n"
            "                      trainsim's collective model, starting from --system, and\n"
            "                      writes that system file with the fitted values\n"
            "  --gemm-csv FILE     a measured GEMM table (columns m, n, k, dtype, and time_s,\n"
            "                      time_ms, time_us or tflops) into --accelerator's GEMM curve\n"
            "  --precision P       the dtype of a CSV without a dtype column (bf16, fp16, fp8, fp32);\n"
            "                      with --gpu, the one precision to time\n"
            "  --gpu               time cuBLAS GEMMs on an NVIDIA GPU (square 256..--max-dim, default\n"
            "                      16384, and a transformer's skinny shapes; bf16, fp16 and fp32) and\n"
            "                      fit them exactly as --gemm-csv fits a table into --accelerator's\n"
            "                      curve. The CUDA runtime and cuBLAS (11 or 12) are loaded when\n"
            "                      run: from TRAINSIM_CUDA_PATH if set, else the loader's path.\n"
            "                      Without them: \"no CUDA runtime found\", exit status 1\n"
            "  --device N          CUDA device to time (default 0)\n"
            "  --csv-out FILE      also write the timings as a --gemm-csv table\n"
            "\n"
            "Progress goes to stderr. OpenBLAS picks its kernels when it loads: if it does not\n"
            "recognise the CPU it falls back to slow generic ones (calibrate warns); set\n"
            "OPENBLAS_CORETYPE (e.g. Haswell, SkylakeX) to override. Timings are noise unless\n"
            "the host is otherwise idle.\n"
            "\n"
            "examples:\n"
            "  trainsim calibrate --out host.json --system-out host-system.json\n"
            "  trainsim calibrate --model gpt2-124m --seconds 30 --out host.json --format json\n"
            "  trainsim calibrate --accel host.json --model gpt2-124m --microbatch 2\n"
            "  trainsim calibrate --threads 1 --max-dim 1024 --seconds 5 > host-1t.json\n"
            "  then, in a job: \"system\": \"host-system.json\", \"gpus\": 1, \"precision\": \"fp32\"\n"
            "  trainsim calibrate --nccl-tests all_reduce_perf.txt all_gather_perf.txt \\\n"
            "      --system dgx-h100 --name my-cluster --out my-cluster.json\n"
            "  trainsim calibrate --gemm-csv gemms.csv --accelerator h100-sxm --out h100-mine.json\n"
            "  trainsim calibrate --gpu --accelerator h100-sxm --csv-out gemms.csv --out h100-mine.json\n");
}

/* ---------------------------------------------------------------- options */

int ts_cli_calibrate_format(const char *value, enum ts_format *out)
{
    if (ts_cli_parse_format(value, out))
        return -1;
    if (*out == TS_FORMAT_CSV) {
        fprintf(stderr, "trainsim calibrate: --format: the report is a table or json\n");
        return -1;
    }
    return 0;
}

struct options {
    const char *out, *system_out, *name, *model, *accel;
    int tp, microbatch, seq, threads, max_dim;
    double seconds;
    bool has_format, has_layer_opts;
    enum ts_format format;
};

static int parse_options(int argc, char **argv, struct options *o)
{
    memset(o, 0, sizeof *o);
    o->tp = o->microbatch = 1;
    o->seconds = 20.0;
    o->max_dim = 4096;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (v && strcmp(a, "--out") == 0)
            o->out = argv[++i];
        else if (v && strcmp(a, "--system-out") == 0)
            o->system_out = argv[++i];
        else if (v && strcmp(a, "--name") == 0)
            o->name = argv[++i];
        else if (v && strcmp(a, "--model") == 0)
            o->model = argv[++i];
        else if (v && strcmp(a, "--accel") == 0)
            o->accel = argv[++i];
        else if (v && strcmp(a, "--tp") == 0) {
            if (ts_cli_parse_int("calibrate", a, argv[++i], 1, 1 << 16, &o->tp))
                return -1;
            o->has_layer_opts = true;
        } else if (v && strcmp(a, "--microbatch") == 0) {
            if (ts_cli_parse_int("calibrate", a, argv[++i], 1, 1 << 16, &o->microbatch))
                return -1;
            o->has_layer_opts = true;
        } else if (v && strcmp(a, "--seq") == 0) {
            if (ts_cli_parse_int("calibrate", a, argv[++i], 1, 1 << 24, &o->seq))
                return -1;
            o->has_layer_opts = true;
        } else if (v && strcmp(a, "--threads") == 0) {
            if (ts_cli_parse_int("calibrate", a, argv[++i], 1, 4096, &o->threads))
                return -1;
        } else if (v && strcmp(a, "--max-dim") == 0) {
            if (ts_cli_parse_int("calibrate", a, argv[++i], 0, 65536, &o->max_dim))
                return -1;
        } else if (v && strcmp(a, "--seconds") == 0) {
            char *end;
            o->seconds = strtod(argv[++i], &end);
            if (end == argv[i] || *end || !(o->seconds > 0) || o->seconds > 86400) {
                fprintf(stderr, "trainsim calibrate: --seconds: \"%s\" is not a number of "
                                "seconds in (0, 86400]\n", argv[i]);
                return -1;
            }
        } else if (v && strcmp(a, "--format") == 0) {
            if (ts_cli_calibrate_format(argv[++i], &o->format))
                return -1;
            o->has_format = true;
        } else {
            fprintf(stderr, "trainsim calibrate: unknown option, missing value or stray argument: "
                            "%s (see trainsim calibrate --help)\n", a);
            return -1;
        }
    }
    if (o->has_layer_opts && !o->model) {
        fprintf(stderr, "trainsim calibrate: --tp, --microbatch and --seq size --model's layer; "
                        "give --model NAME\n");
        return -1;
    }
    if (o->accel && !o->model) {
        fprintf(stderr, "trainsim calibrate: --accel checks a model layer against a file; give "
                        "--model NAME too\n");
        return -1;
    }
    if (o->accel && (o->out || o->system_out || o->name)) {
        fprintf(stderr, "trainsim calibrate: --accel only checks an existing file; it cannot be "
                        "combined with --out, --system-out or --name\n");
        return -1;
    }
    if (o->max_dim == 0 && !o->model) {
        fprintf(stderr, "trainsim calibrate: --max-dim 0 leaves nothing to measure without "
                        "--model\n");
        return -1;
    }
    return 0;
}

/* ---------------------------------------------------------------- helpers */

/* "host-" + the host name reduced to letters, digits, '.', '_' and '-'. */
static void default_name(const char *host, char *buf, size_t n)
{
    snprintf(buf, n, "host-%.48s", host);
    for (char *p = buf; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '.' || *p == '_' || *p == '-'))
            *p = '-';
}

/* How the system file at system_path refers to the accelerator file at accel_path: its
 * base name when both sit in one directory (the pair can move together), else its absolute
 * path. */
static void accel_ref(const char *accel_path, const char *system_path, char *out, size_t n)
{
    char abs_a[PATH_MAX], abs_dir[PATH_MAX], dir[PATH_MAX];
    ts_strlcpy(dir, system_path, sizeof dir);
    char *slash = strrchr(dir, '/');
    if (slash == dir)
        dir[1] = '\0';
    else if (slash)
        *slash = '\0';
    else
        ts_strlcpy(dir, ".", sizeof dir);
    if (!realpath(accel_path, abs_a) || !realpath(dir, abs_dir)) {
        ts_strlcpy(out, accel_path, n);
        return;
    }
    char *base = strrchr(abs_a, '/');
    *base = '\0';
    bool same = strcmp(abs_a, abs_dir) == 0;
    *base = '/';
    if (!same)
        ts_strlcpy(out, abs_a, n);
    else if (strlen(base + 1) > 5 && strcmp(base + strlen(base) - 5, ".json") == 0)
        ts_strlcpy(out, base + 1, n);
    else
        snprintf(out, n, ".%s", base);      /* "./NAME": a path, not a catalogue name */
}

/* ---------------------------------------------------------------- report */

static void add_num(cJSON *o, const char *key, double v)
{
    cJSON_AddItemToObject(o, key, isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull());
}

static cJSON *gemm_json(const struct ts_calibrate_gemm *g)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "label", g->label);
    add_num(o, "m", g->m);
    add_num(o, "n", g->n);
    add_num(o, "k", g->k);
    cJSON_AddBoolToObject(o, "accumulate", g->accumulate);
    add_num(o, "flops", ts_calibrate_gemm_flops(g));
    return o;
}

static cJSON *report_json(const struct ts_calibrate_result *r, const struct ts_calibrate_layer *L,
                          const char *accel_name, const struct options *o)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "trainsim_version", TS_VERSION);
    cJSON_AddStringToObject(j, "accelerator", accel_name);
    if (r) {
        cJSON_AddStringToObject(j, "host", r->host);
        cJSON_AddStringToObject(j, "cpu", r->cpu);
        cJSON_AddStringToObject(j, "blas", r->blas);
        cJSON_AddStringToObject(j, "date", r->date);
        add_num(j, "threads", r->threads);
        add_num(j, "elapsed_s", r->elapsed_s);
        add_num(j, "cpu_share", r->cpu_share);
        add_num(j, "peak_flops", r->peak_flops);
        add_num(j, "best_flops_per_s", r->best_flops_per_s);
        add_num(j, "memory_bandwidth", r->triad_bytes_per_s);
        add_num(j, "copy_bandwidth", r->copy_bytes_per_s);
        add_num(j, "stream_array_bytes", r->stream_array_bytes);
        add_num(j, "kernel_latency_s", r->kernel_latency_s);
        add_num(j, "memory_bytes", r->memory_bytes);
        add_num(j, "skipped", r->skipped);
        cJSON *pts = cJSON_AddArrayToObject(j, "points");
        for (int i = 0; i < r->n_points; i++) {
            const struct ts_calibrate_point *p = &r->points[i];
            cJSON *pj = gemm_json(&p->gemm);
            add_num(pj, "seconds", p->seconds);
            add_num(pj, "flops_per_s", p->flops_per_s);
            add_num(pj, "efficiency", p->efficiency);
            add_num(pj, "samples", p->samples);
            cJSON_AddItemToArray(pts, pj);
        }
        cJSON *curve = cJSON_AddArrayToObject(j, "curve");
        for (int i = 0; i < r->curve.n; i++) {
            cJSON *pt = cJSON_CreateArray();
            cJSON_AddItemToArray(pt, cJSON_CreateNumber(r->curve.flops[i]));
            cJSON_AddItemToArray(pt, cJSON_CreateNumber(r->curve.efficiency[i]));
            cJSON_AddItemToArray(curve, pt);
        }
    }
    if (L) {
        cJSON *lj = cJSON_AddObjectToObject(j, "layer_check");
        cJSON_AddStringToObject(lj, "model", L->model.name);
        add_num(lj, "tp", L->tp);
        add_num(lj, "microbatch", L->microbatch);
        add_num(lj, "seq", L->model.seq_len);
        add_num(lj, "passes", L->samples);
        add_num(lj, "cpu_share", L->cpu_share);
        add_num(lj, "flops", L->flops);
        add_num(lj, "measured_s", L->measured_total_s);
        add_num(lj, "predicted_s", L->predicted_total_s);
        add_num(lj, "ratio", L->predicted_total_s / L->measured_total_s);
        add_num(lj, "error", L->predicted_total_s / L->measured_total_s - 1.0);
        cJSON *gs = cJSON_AddArrayToObject(lj, "gemms");
        for (int i = 0; i < L->n; i++) {
            cJSON *gj = gemm_json(&L->gemm[i]);
            add_num(gj, "measured_s", L->measured_s[i]);
            add_num(gj, "predicted_s", L->predicted_s[i]);
            add_num(gj, "ratio", L->predicted_s[i] / L->measured_s[i]);
            cJSON_AddItemToArray(gs, gj);
        }
    }
    if (o->out)
        cJSON_AddStringToObject(j, "accelerator_file", o->out);
    if (o->system_out)
        cJSON_AddStringToObject(j, "system_file", o->system_out);
    if (o->accel)
        cJSON_AddStringToObject(j, "accelerator_file", o->accel);
    return j;
}

static void report_table(const struct ts_calibrate_result *r, const struct ts_calibrate_layer *L,
                         const char *accel_name, const struct options *o, struct ts_buf *b)
{
    if (r) {
        ts_buf_printf(b, "trainsim calibrate: %s on %s (%s)\n", accel_name, r->host, r->cpu);
        ts_buf_printf(b, "  %s, %d thread%s, %s, %.1f s, %d shapes measured, %d skipped\n\n",
                      r->blas, r->threads, r->threads == 1 ? "" : "s", r->date, r->elapsed_s,
                      r->n_points, r->skipped);
        ts_buf_printf(b, "host\n");
        ts_buf_printf(b, "  %-36s %10.4g GFLOP/s\n", "peak fp32 (best main-loop rate)",
                      r->peak_flops / 1e9);
        ts_buf_printf(b, "  %-36s %10.4g GFLOP/s\n", "best raw SGEMM rate",
                      r->best_flops_per_s / 1e9);
        ts_buf_printf(b, "  %-36s %10.4g GB/s  (copy %.4g GB/s, 3 x %.0f MiB)\n",
                      "memory bandwidth (STREAM triad)", r->triad_bytes_per_s / 1e9,
                      r->copy_bytes_per_s / 1e9, r->stream_array_bytes / (1024.0 * 1024.0));
        ts_buf_printf(b, "  %-36s %10.4g us\n", "kernel latency (8x8x8 SGEMM call)",
                      r->kernel_latency_s * 1e6);
        ts_buf_printf(b, "  %-36s %10.4g GiB\n", "memory",
                      r->memory_bytes / (1024.0 * 1024.0 * 1024.0));
        ts_buf_printf(b, "  %-36s %10.0f %%%s\n\n", "CPU share while timing GEMMs",
                      100.0 * r->cpu_share,
                      r->cpu_share < TS_CALIBRATE_BUSY_SHARE ? "  (host busy: rates are low)" : "");
        ts_buf_printf(b, "measured SGEMMs\n  %-13s %6s %6s %6s %11s %11s %9s %10s\n", "shape", "M",
                      "N", "K", "GFLOP", "ms", "GFLOP/s", "efficiency");
        for (int i = 0; i < r->n_points; i++) {
            const struct ts_calibrate_point *p = &r->points[i];
            ts_buf_printf(b, "  %-13s %6d %6d %6d %11.4g %11.4g %9.2f %10.3f\n", p->gemm.label,
                          p->gemm.m, p->gemm.n, p->gemm.k, p->flops / 1e9, p->seconds * 1e3,
                          p->flops_per_s / 1e9, p->efficiency);
        }
        ts_buf_printf(b, "\nefficiency curve (median per quarter decade of FLOPs)\n  %12s %10s\n",
                      "GEMM FLOPs", "efficiency");
        for (int i = 0; i < r->curve.n; i++)
            ts_buf_printf(b, "  %12.4g %10.3f\n", r->curve.flops[i], r->curve.efficiency[i]);
    }
    if (L) {
        ts_buf_printf(b, "%slayer check: %s, tp %d, microbatch %d, seq %d: forward + backward "
                         "GEMMs, median of %d pass%s, CPU share %.0f%%%s\n",
                      r ? "\n" : "", L->model.name, L->tp, L->microbatch, L->model.seq_len,
                      L->samples, L->samples == 1 ? "" : "es", 100.0 * L->cpu_share,
                      L->cpu_share < TS_CALIBRATE_BUSY_SHARE ? " (host busy)" : "");
        ts_buf_printf(b, "  %-14s %6s %6s %6s %9s %12s %13s %10s\n", "GEMM", "M", "N", "K",
                      "GFLOP", "measured ms", "predicted ms", "pred/meas");
        for (int i = 0; i < L->n; i++) {
            const struct ts_calibrate_gemm *g = &L->gemm[i];
            ts_buf_printf(b, "  %-14s %6d %6d %6d %9.4g %12.4g %13.4g %10.3f\n", g->label, g->m,
                          g->n, g->k, ts_calibrate_gemm_flops(g) / 1e9, L->measured_s[i] * 1e3,
                          L->predicted_s[i] * 1e3, L->predicted_s[i] / L->measured_s[i]);
        }
        double ratio = L->predicted_total_s / L->measured_total_s;
        ts_buf_printf(b, "  %-14s %6s %6s %6s %9.4g %12.4g %13.4g %10.3f  (error %+.1f%%)\n",
                      "total", "", "", "", L->flops / 1e9, L->measured_total_s * 1e3,
                      L->predicted_total_s * 1e3, ratio, 100.0 * (ratio - 1.0));
    }
    if (o->out || o->system_out || o->accel) {
        ts_buf_printf(b, "\nfiles:");
        if (o->out)
            ts_buf_printf(b, " accelerator %s", o->out);
        if (o->system_out)
            ts_buf_printf(b, ", system %s", o->system_out);
        if (o->accel)
            ts_buf_printf(b, " accelerator %s (checked, not written)", o->accel);
        ts_buf_printf(b, "\n");
    }
}

/* ---------------------------------------------------------------- main */

/* Write the accelerator (and system) files; parse the accelerator back into *acc. */
static int write_files(const struct ts_calibrate_result *r, const char *name,
                       const struct options *o, struct ts_accel *acc, struct ts_err *err)
{
    cJSON *doc = ts_calibrate_accel_json(r, name);
    int rc = TS_OK;
    struct ts_buf text;
    ts_buf_init(&text);
    if (o->out) {
        rc = ts_calibrate_json_write(doc, o->out, err);
    } else {
        ts_report_json_print(doc, &text);
        rc = ts_cli_emit(&text, NULL);     /* prints its own message */
    }
    if (rc == TS_OK) {
        /* What was written must load: parse it back (an error here is a bug). */
        struct ts_jnode root = ts_jnode_root(doc, o->out ? o->out : "<stdout>");
        struct ts_err perr;
        if (ts_accel_parse(&root, acc, &perr))
            rc = ts_err_set(err, TS_ERR_RUNTIME, "the calibrated file does not load: %s", perr.msg);
    }
    if (rc == TS_OK && o->system_out) {
        char ref[PATH_MAX + 8], sys_name[TS_NAME_MAX];
        if (o->out)
            accel_ref(o->out, o->system_out, ref, sizeof ref);
        snprintf(sys_name, sizeof sys_name, "%.50s-node", name);
        cJSON *sys = ts_calibrate_system_json(sys_name, o->out ? ref : NULL, doc, acc->memory_bandwidth);
        rc = ts_calibrate_json_write(sys, o->system_out, err);
        cJSON_Delete(sys);
    }
    ts_buf_free(&text);
    cJSON_Delete(doc);
    return rc;
}

int ts_cli_calibrate(int argc, char **argv)
{
    if (ts_cli_calibrate_is_files(argc, argv))
        return ts_cli_calibrate_files(argc, argv);
    struct options o;
    if (parse_options(argc, argv, &o))
        return TS_ERR_INPUT;

    /* The outputs are checked first: a calibration should not run for minutes before
     * finding out that it cannot write its result. */
    const char *not_system[] = {o.out, NULL};
    int checked;
    if ((o.out && (checked = ts_cli_check_output("calibrate", "--out", o.out, NULL))) ||
        (o.system_out &&
         (checked = ts_cli_check_output("calibrate", "--system-out", o.system_out, not_system))))
        return checked;

    struct ts_err err;
    ts_err_clear(&err);
    int rc = TS_OK;
    double t_start = ts_time_now();
    struct ts_calibrate_layer *L = NULL;
    struct ts_calibrate_result *r = NULL;
    struct ts_accel *acc = ts_xcalloc(1, sizeof *acc);
    char name[TS_NAME_MAX] = "";

    if (o.model) {
        struct ts_model m;
        L = ts_xcalloc(1, sizeof *L);
        if ((rc = ts_model_load(o.model, &m, &err)) ||
            (rc = ts_calibrate_layer_init(L, &m, o.tp, o.microbatch, o.seq, &err)))
            goto done;
    }

    if (o.accel) {
        if ((rc = ts_accel_load(o.accel, acc, &err)))
            goto done;
        ts_strlcpy(name, acc->name, sizeof name);
    } else {
        struct ts_calibrate_options co;
        ts_calibrate_options_default(&co);
        co.seconds = L ? 0.8 * o.seconds : o.seconds;
        co.threads = o.threads;
        co.max_dim = o.max_dim;
        co.progress = stderr;
        if (L) {
            co.n_extra = L->n;
            memcpy(co.extra, L->gemm, sizeof L->gemm);
        }
        r = ts_xcalloc(1, sizeof *r);
        if ((rc = ts_calibrate_measure(&co, r, &err)))
            goto done;
        if (o.name)
            ts_strlcpy(name, o.name, sizeof name);
        else
            default_name(r->host, name, sizeof name);
        if ((rc = write_files(r, name, &o, acc, &err)))
            goto done;
    }

    if (L) {
        double left = o.seconds - (ts_time_now() - t_start);
        if ((rc = ts_calibrate_layer_predict(L, acc, &err)) ||
            (rc = ts_calibrate_layer_measure(L, o.threads, fmax(left, 0.0), &err)))
            goto done;
        fprintf(stderr, "calibrate: layer check %s: measured %.4g ms, predicted %.4g ms "
                        "(predicted/measured %.3f)\n",
                L->model.name, L->measured_total_s * 1e3, L->predicted_total_s * 1e3,
                L->predicted_total_s / L->measured_total_s);
        if (L->cpu_share < TS_CALIBRATE_BUSY_SHARE)
            fprintf(stderr, "calibrate: warning: during the layer check this process had only "
                            "%.0f%% of its cores: other work slowed the measured times\n",
                    100.0 * L->cpu_share);
    }

    {
        bool to_stdout = o.out || o.accel;
        enum ts_format fmt = o.has_format ? o.format
                             : to_stdout  ? ts_cli_default_format()
                                          : TS_FORMAT_TABLE;
        struct ts_buf buf;
        ts_buf_init(&buf);
        if (fmt == TS_FORMAT_JSON) {
            cJSON *j = report_json(r, L, name, &o);
            ts_report_json_print(j, &buf);
            cJSON_Delete(j);
        } else {
            report_table(r, L, name, &o, &buf);
        }
        if (to_stdout) {
            rc = ts_cli_emit(&buf, NULL);
        } else {
            fputs("\n", stderr);
            fwrite(buf.data, 1, buf.len, stderr);
        }
        ts_buf_free(&buf);
    }

done:
    if (rc && err.msg[0])
        fprintf(stderr, "trainsim calibrate: %s\n", err.msg);
    free(r);
    free(L);
    free(acc);
    return rc;
}
