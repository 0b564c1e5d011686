/*
 * trainsim calibrate --nccl-tests FILE... --system BASE and
 * trainsim calibrate --gemm-csv FILE --accelerator BASE: calibration from measurements people
 * already have (sim/calibrate/nccl.h, gemmcsv.h). Each writes the base catalogue file with the
 * fitted parts replaced and its source extended by what was fitted, from which files, and
 * how well (the report).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate/gemmcsv.h"
#include "calibrate/gpu.h"
#include "calibrate/nccl.h"
#include "cli/cli.h"

struct fopts {
    const char *nccl[TS_NCCL_TABLES_MAX];
    int n_nccl;
    const char *gemm_csv, *system, *accelerator, *out, *name;
    int precision;      // -1: none given
    enum ts_format format;
    bool has_format;
    bool gpu;           // --gpu: time cuBLAS GEMMs instead of reading --gemm-csv
    int device, max_dim;
    const char *csv_out;
};

bool ts_cli_calibrate_is_files(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--nccl-tests") == 0 || strcmp(argv[i], "--gemm-csv") == 0 ||
            strcmp(argv[i], "--gpu") == 0)
            return true;
    return false;
}

static int parse(int argc, char **argv, struct fopts *o)
{
    memset(o, 0, sizeof *o);
    o->precision = -1;
    o->max_dim = 16384;
    bool gpu_opts = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--gpu") == 0) {
            o->gpu = true;
        } else if (v && strcmp(a, "--device") == 0) {
            if (ts_cli_parse_int("calibrate", a, argv[++i], 0, 1024, &o->device))
                return -1;
            gpu_opts = true;
        } else if (v && strcmp(a, "--max-dim") == 0) {
            if (ts_cli_parse_int("calibrate", a, argv[++i], 256, 65536, &o->max_dim))
                return -1;
            gpu_opts = true;
        } else if (v && strcmp(a, "--csv-out") == 0) {
            o->csv_out = argv[++i];
            gpu_opts = true;
        } else if (strcmp(a, "--nccl-tests") == 0) {
            while (i + 1 < argc && strncmp(argv[i + 1], "--", 2) != 0) {
                if (o->n_nccl == TS_NCCL_TABLES_MAX) {
                    fprintf(stderr, "trainsim calibrate: --nccl-tests: at most %d files\n",
                            TS_NCCL_TABLES_MAX);
                    return -1;
                }
                o->nccl[o->n_nccl++] = argv[++i];
            }
            if (o->n_nccl == 0) {
                fprintf(stderr, "trainsim calibrate: --nccl-tests: name the nccl-tests output "
                                "files ([KIND:]FILE ...)\n");
                return -1;
            }
        } else if (v && strcmp(a, "--gemm-csv") == 0) {
            o->gemm_csv = argv[++i];
        } else if (v && strcmp(a, "--system") == 0) {
            o->system = argv[++i];
        } else if (v && strcmp(a, "--accelerator") == 0) {
            o->accelerator = argv[++i];
        } else if (v && strcmp(a, "--out") == 0) {
            o->out = argv[++i];
        } else if (v && strcmp(a, "--name") == 0) {
            o->name = argv[++i];
        } else if (v && strcmp(a, "--precision") == 0) {
            i++;
            for (int p = 0; p < TS_PREC_COUNT; p++)
                if (strcmp(argv[i], ts_precision_names[p]) == 0)
                    o->precision = p;
            if (o->precision < 0) {
                fprintf(stderr, "trainsim calibrate: --precision: \"%s\" is not bf16, fp16, fp8 "
                                "or fp32\n", argv[i]);
                return -1;
            }
        } else if (v && strcmp(a, "--format") == 0) {
            if (ts_cli_calibrate_format(argv[++i], &o->format))
                return -1;
            o->has_format = true;
        } else {
            fprintf(stderr, "trainsim calibrate: unknown option, missing value or stray argument "
                            "with --nccl-tests / --gemm-csv: %s (see trainsim calibrate --help)\n",
                    a);
            return -1;
        }
    }
    if (gpu_opts && !o->gpu) {
        fprintf(stderr, "trainsim calibrate: --device, --max-dim and --csv-out go with --gpu "
                        "here\n");
        return -1;
    }
    if (o->gpu && (o->n_nccl || o->gemm_csv)) {
        fprintf(stderr, "trainsim calibrate: --gpu measures the GEMM table itself: give it "
                        "without --nccl-tests or --gemm-csv\n");
        return -1;
    }
    if (o->gpu && !o->accelerator) {
        fprintf(stderr, "trainsim calibrate: --gpu needs --accelerator NAME (the catalogue part "
                        "the GPU is: its peaks turn times into efficiencies, e.g. h100-sxm)\n");
        return -1;
    }
    if (o->gpu && o->precision == TS_PREC_FP8) {
        fprintf(stderr, "trainsim calibrate: --gpu --precision: bf16, fp16 or fp32 (fp8 GEMMs "
                        "need cublasLt, which --gpu does not use)\n");
        return -1;
    }
    if (o->n_nccl && o->gemm_csv) {
        fprintf(stderr, "trainsim calibrate: --nccl-tests writes a system file and --gemm-csv an "
                        "accelerator file: run them one at a time\n");
        return -1;
    }
    if (o->n_nccl && !o->system) {
        fprintf(stderr, "trainsim calibrate: --nccl-tests needs --system NAME (the system the "
                        "measurements were taken on, as the starting point)\n");
        return -1;
    }
    if (o->gemm_csv && !o->accelerator) {
        fprintf(stderr, "trainsim calibrate: --gemm-csv needs --accelerator NAME (its peaks turn "
                        "times into efficiencies)\n");
        return -1;
    }
    if (o->n_nccl && (o->accelerator || o->precision >= 0)) {
        fprintf(stderr, "trainsim calibrate: --accelerator and --precision go with --gemm-csv\n");
        return -1;
    }
    if ((o->gemm_csv || o->gpu) && o->system) {
        fprintf(stderr, "trainsim calibrate: --system goes with --nccl-tests\n");
        return -1;
    }
    if (o->name && !ts_spec_name_valid(o->name)) {
        fprintf(stderr, "trainsim calibrate: --name: \"%s\" is not a catalogue name (letters, "
                        "digits, '-', '_', '.')\n", o->name);
        return -1;
    }
    return 0;
}

/* The catalogue file behind a reference, loaded as JSON (to be written back modified). */
static int load_doc(enum ts_catalog cat, const char *ref, cJSON **doc, char *path, size_t n,
                    struct ts_err *err)
{
    int rc = ts_spec_resolve(cat, ref, NULL, path, n, err);
    if (rc)
        return rc;
    return ts_json_load(path, doc, err);
}

static void set_item(cJSON *o, const char *key, cJSON *v)
{
    if (cJSON_GetObjectItemCaseSensitive(o, key))
        cJSON_ReplaceItemInObjectCaseSensitive(o, key, v);
    else
        cJSON_AddItemToObject(o, key, v);
}

static void set_name_source(cJSON *doc, const char *name, const char *base, const char *what)
{
    char nm[TS_NAME_MAX];
    if (name)
        ts_strlcpy(nm, name, sizeof nm);
    else
        snprintf(nm, sizeof nm, "%s-calibrated", base);
    set_item(doc, "name", cJSON_CreateString(nm));
    const cJSON *src = cJSON_GetObjectItemCaseSensitive(doc, "source");
    struct ts_buf b;
    ts_buf_init(&b);
    ts_buf_printf(&b, "%s Base file %s: %s", what, base,
                  src && cJSON_IsString(src) ? src->valuestring : "(no source)");
    char text[TS_SOURCE_MAX];
    ts_strlcpy(text, b.data, sizeof text);  /* the parser keeps TS_SOURCE_MAX bytes */
    ts_buf_free(&b);
    set_item(doc, "source", cJSON_CreateString(text));
}

static int write_doc(const cJSON *doc, const char *out)
{
    struct ts_buf b;
    ts_buf_init(&b);
    ts_report_json_print(doc, &b);
    int rc = ts_cli_emit(&b, out);
    ts_buf_free(&b);
    return rc;
}

static void latency_text(double s, char *buf, size_t n)
{
    snprintf(buf, n, "%.3g us", s * 1e6);
}

static void level_json(cJSON *o, const char *key, const struct ts_nccl_fit_level *l, bool red)
{
    cJSON *j = cJSON_AddObjectToObject(o, key);
    cJSON_AddBoolToObject(j, "fitted", l->fitted);
    if (!l->fitted)
        return;
    cJSON_AddNumberToObject(j, "points", l->points);
    cJSON_AddNumberToObject(j, "efficiency_before", l->efficiency_before);
    cJSON_AddNumberToObject(j, "efficiency", l->efficiency_after);
    cJSON_AddNumberToObject(j, "latency_before_s", l->latency_before_s);
    cJSON_AddNumberToObject(j, "latency_s", l->latency_after_s);
    if (red) {
        cJSON_AddNumberToObject(j, "reduction_efficiency_before", l->reduction_before);
        cJSON_AddNumberToObject(j, "reduction_efficiency", l->reduction_after);
    }
    cJSON_AddNumberToObject(j, "rms_log_error_before", l->rms_log_before);
    cJSON_AddNumberToObject(j, "rms_log_error", l->rms_log_after);
    cJSON_AddBoolToObject(j, "at_bound", l->at_bound);
}

static void level_text(struct ts_buf *b, const char *what, const struct ts_nccl_fit_level *l,
                       bool red)
{
    if (!l->fitted) {
        ts_buf_printf(b, "  %-10s not measured (kept)\n", what);
        return;
    }
    char lb[32], la[32];
    latency_text(l->latency_before_s, lb, sizeof lb);
    latency_text(l->latency_after_s, la, sizeof la);
    ts_buf_printf(b, "  %-10s %d points: efficiency %.3f -> %.3f, latency %s -> %s", what,
                  l->points, l->efficiency_before, l->efficiency_after, lb, la);
    if (red)
        ts_buf_printf(b, ", reduction %.3f -> %.3f", l->reduction_before, l->reduction_after);
    ts_buf_printf(b, "; RMS time error %.1f%% -> %.1f%%\n", 100.0 * (exp(l->rms_log_before) - 1),
                  100.0 * (exp(l->rms_log_after) - 1));
    if (l->at_bound)
        ts_buf_printf(b, "  warning: a %s value ended at the edge of its range: trainsim's "
                         "collective model cannot reproduce these measurements (another "
                         "algorithm or topology than it assumes?); check the error above\n", what);
}

static int run_nccl(const struct fopts *o)
{
    struct ts_err err;
    ts_err_clear(&err);
    struct ts_nccl_table *tables = ts_xcalloc(TS_NCCL_TABLES_MAX, sizeof *tables);
    int rc = TS_OK;
    for (int i = 0; i < o->n_nccl && rc == TS_OK; i++) {
        const char *arg = o->nccl[i], *file = arg;
        int coll = -1;
        const char *colon = strchr(arg, ':');
        if (colon && colon > arg) {
            char kind[64];
            snprintf(kind, sizeof kind, "%.*s", (int)(colon - arg), arg);
            int k = ts_nccl_coll_from_name(kind);
            if (k >= 0) {
                coll = k;
                file = colon + 1;
            }
        }
        char *text;
        size_t len;
        if ((rc = ts_file_read(file, &text, &len, &err)))
            break;
        rc = ts_nccl_parse(text, len, file, coll, &tables[i], &err);
        free(text);
    }
    struct ts_system *base = ts_xmalloc(sizeof *base), *fitted = ts_xmalloc(sizeof *fitted);
    cJSON *doc = NULL;
    char path[2048];
    struct ts_nccl_fit_report rep;
    if (rc == TS_OK)
        rc = ts_system_load(o->system, base, &err);
    if (rc == TS_OK)
        rc = load_doc(TS_CAT_SYSTEM, o->system, &doc, path, sizeof path, &err);
    if (rc == TS_OK)
        rc = ts_nccl_fit(base, tables, o->n_nccl, fitted, &rep, &err);
    if (rc) {
        fprintf(stderr, "trainsim calibrate: %s\n", err.msg);
        goto done;
    }
    const struct ts_nccl_fit_level *lv[2] = {&rep.up, &rep.out};
    const struct ts_level *L[2] = {&fitted->scale_up, &fitted->scale_out};
    const char *keys[2] = {"scale_up", "scale_out"};
    struct ts_buf what;
    ts_buf_init(&what);
    ts_buf_printf(&what, "Calibrated by trainsim calibrate --nccl-tests from");
    for (int i = 0; i < o->n_nccl; i++)
        ts_buf_printf(&what, "%s %s (%s, %d ranks on %d node%s)", i ? ";" : "", tables[i].file,
                      ts_coll_names[tables[i].coll], tables[i].ranks, tables[i].nodes,
                      tables[i].nodes == 1 ? "" : "s");
    ts_buf_printf(&what, ":");
    for (int k = 0; k < 2; k++) {
        if (!lv[k]->fitted)
            continue;
        cJSON *lj = cJSON_GetObjectItemCaseSensitive(doc, keys[k]);
        if (!lj || !cJSON_IsObject(lj))
            continue;
        char lat[32];
        latency_text(L[k]->latency, lat, sizeof lat);
        set_item(lj, "efficiency", cJSON_CreateNumber(round(L[k]->efficiency * 1e4) / 1e4));
        set_item(lj, "latency", cJSON_CreateString(lat));
        if (L[k]->in_network_reduction)
            set_item(lj, "reduction_efficiency",
                     cJSON_CreateNumber(round(L[k]->reduction_efficiency * 1e4) / 1e4));
        ts_buf_printf(&what, " %s efficiency %.4f, latency %s%s (RMS time error %.1f%% -> %.1f%% "
                             "over %d points);", keys[k], L[k]->efficiency, lat,
                      L[k]->in_network_reduction ? ", reduction_efficiency refitted" : "",
                      100.0 * (exp(lv[k]->rms_log_before) - 1),
                      100.0 * (exp(lv[k]->rms_log_after) - 1), lv[k]->points);
    }
    set_name_source(doc, o->name, base->name, what.data);
    ts_buf_free(&what);

    /* The report: stdout when the file goes to --out, else stderr. */
    struct ts_buf b;
    ts_buf_init(&b);
    if (o->has_format && o->format == TS_FORMAT_JSON) {
        cJSON *r = cJSON_CreateObject();
        cJSON_AddStringToObject(r, "base", base->name);
        cJSON *files = cJSON_AddArrayToObject(r, "files");
        for (int i = 0; i < o->n_nccl; i++) {
            cJSON *f = cJSON_CreateObject();
            cJSON_AddStringToObject(f, "file", tables[i].file);
            cJSON_AddStringToObject(f, "collective", ts_coll_names[tables[i].coll]);
            cJSON_AddNumberToObject(f, "ranks", tables[i].ranks);
            cJSON_AddNumberToObject(f, "nodes", tables[i].nodes);
            cJSON_AddNumberToObject(f, "points", tables[i].n);
            cJSON_AddItemToArray(files, f);
        }
        level_json(r, "scale_up", &rep.up, fitted->scale_up.in_network_reduction);
        level_json(r, "scale_out", &rep.out, fitted->scale_out.in_network_reduction);
        ts_report_json_print(r, &b);
        cJSON_Delete(r);
    } else {
        ts_buf_printf(&b, "calibrate %s from %d nccl-tests table%s:\n", base->name, o->n_nccl,
                      o->n_nccl == 1 ? "" : "s");
        for (int i = 0; i < o->n_nccl; i++)
            ts_buf_printf(&b, "  %s: %s, %d ranks on %d node%s, %d sizes\n", tables[i].file,
                          ts_coll_names[tables[i].coll], tables[i].ranks, tables[i].nodes,
                          tables[i].nodes == 1 ? "" : "s", tables[i].n);
        level_text(&b, "scale-up", &rep.up, fitted->scale_up.in_network_reduction);
        level_text(&b, "scale-out", &rep.out, fitted->scale_out.in_network_reduction);
    }
    FILE *rf = o->out ? stdout : stderr;
    fwrite(b.data, 1, b.len, rf);
    fflush(rf);
    ts_buf_free(&b);
    rc = write_doc(doc, o->out);
done:
    cJSON_Delete(doc);
    free(tables);
    free(base);
    free(fitted);
    return rc;
}

/* calibrate --gpu: time the default grid with cuBLAS (sim/calibrate/gpu.h) and give the
 * timings as the CSV text --gemm-csv reads, so that both take one path to the curve. The
 * precisions: --precision, else those of bf16, fp16, fp32 the accelerator has a peak for.
 * *label names the measurement for the report and the file's source. */
static int gpu_table(const struct fopts *o, const struct ts_accel *a, char **text, size_t *len,
                     char *label, size_t label_n, struct ts_err *err)
{
    int precs[3], n_prec = 0;
    static const int all[] = {TS_PREC_BF16, TS_PREC_FP16, TS_PREC_FP32};
    for (int i = 0; i < 3; i++)
        if ((o->precision < 0 || o->precision == all[i]) && a->peak_flops[all[i]] > 0)
            precs[n_prec++] = all[i];
    if (n_prec == 0)
        return ts_err_set(err, TS_ERR_INPUT, "%s has no %s peak to measure against",
                          a->name, o->precision >= 0 ? ts_precision_names[o->precision]
                                                     : "bf16, fp16 or fp32");
    struct ts_gpu_shape *shapes = ts_xmalloc(TS_GPU_SHAPES_MAX * sizeof *shapes);
    int n = ts_gpu_grid(o->max_dim, precs, n_prec, shapes, TS_GPU_SHAPES_MAX);
    double *sec = ts_xcalloc((size_t)n, sizeof *sec);
    struct ts_gpu_lib *lib = NULL;
    int rc = ts_gpu_open(&lib, err);
    if (rc == TS_OK) {
        struct ts_gpu_options go;
        ts_gpu_options_default(&go);
        go.device = o->device;
        go.progress = stderr;
        fprintf(stderr, "calibrate --gpu: %d GEMMs on CUDA device %d (%s)\n", n, o->device,
                ts_gpu_lib_names(lib));
        rc = ts_gpu_measure(lib, &go, shapes, n, sec, err);
        snprintf(label, label_n, "cuBLAS on CUDA device %d (%s)", o->device,
                 ts_gpu_lib_names(lib));
    }
    ts_gpu_close(lib);
    if (rc == TS_OK) {
        struct ts_buf csv;
        ts_buf_init(&csv);
        ts_buf_printf(&csv, "# trainsim calibrate --gpu: %s, median time per call\n", label);
        ts_gpu_csv(shapes, sec, n, &csv);
        if (o->csv_out)
            rc = ts_file_write_atomic(o->csv_out, csv.data, csv.len, err);
        *text = csv.data;
        *len = csv.len;
    }
    free(sec);
    free(shapes);
    return rc;
}

static int run_gemm(const struct fopts *o)
{
    struct ts_err err;
    ts_err_clear(&err);
    struct ts_accel *a = ts_xmalloc(sizeof *a);
    cJSON *doc = NULL;
    char path[2048];
    char *text = NULL;
    size_t len;
    struct ts_gemmcsv t = {0};
    int rc = ts_accel_load(o->accelerator, a, &err);
    if (rc == TS_OK)
        rc = load_doc(TS_CAT_ACCEL, o->accelerator, &doc, path, sizeof path, &err);
    char label[512];
    snprintf(label, sizeof label, "%s", o->gpu ? "cuBLAS" : o->gemm_csv);
    if (rc == TS_OK && o->gpu)
        rc = gpu_table(o, a, &text, &len, label, sizeof label, &err);
    else if (rc == TS_OK)
        rc = ts_file_read(o->gemm_csv, &text, &len, &err);
    if (rc == TS_OK)
        rc = ts_gemmcsv_parse(text, len, label, a, o->precision, &t, &err);
    free(text);
    if (rc) {
        fprintf(stderr, "trainsim calibrate: %s\n", err.msg);
        cJSON_Delete(doc);
        free(a);
        return rc;
    }
    /* gemm_efficiency as an object by precision; the measured precisions replaced. */
    cJSON *ge = cJSON_GetObjectItemCaseSensitive(doc, "gemm_efficiency");
    if (!ge || !cJSON_IsObject(ge)) {
        cJSON *obj = cJSON_CreateObject();
        if (ge)
            cJSON_AddItemToObject(obj, "bf16", cJSON_Duplicate(ge, true));
        set_item(doc, "gemm_efficiency", obj);
        ge = obj;
    }
    struct ts_buf what, b;
    ts_buf_init(&what);
    ts_buf_init(&b);
    ts_buf_printf(&what, "GEMM efficiency calibrated by trainsim calibrate %s from %s:",
                  o->gpu ? "--gpu" : "--gemm-csv", label);
    ts_buf_printf(&b, "calibrate %s from %s:\n", a->name, label);
    cJSON *rep = cJSON_CreateObject();
    cJSON_AddStringToObject(rep, "base", a->name);
    cJSON_AddStringToObject(rep, o->gpu ? "measured" : "file", label);
    cJSON *per = cJSON_AddObjectToObject(rep, "precisions");
    for (int p = 0; p < TS_PREC_COUNT; p++) {
        if (t.per_precision[p] == 0)
            continue;
        double best = 0.0;
        for (int i = 0; i < t.n; i++)
            if (t.rows[i].precision == p && t.rows[i].efficiency > best)
                best = t.rows[i].efficiency;
        set_item(ge, ts_precision_names[p], ts_gemmcsv_curve_json(&t, p));
        ts_buf_printf(&what, " %s %d rows (best %.1f%% of peak_flops.%s);", ts_precision_names[p],
                      t.per_precision[p], 100.0 * best, ts_precision_names[p]);
        ts_buf_printf(&b, "  %s: %d measurements, best %.1f%% of %.0f TFLOP/s\n",
                      ts_precision_names[p], t.per_precision[p], 100.0 * best,
                      a->peak_flops[p] / 1e12);
        cJSON *pj = cJSON_AddObjectToObject(per, ts_precision_names[p]);
        cJSON_AddNumberToObject(pj, "rows", t.per_precision[p]);
        cJSON_AddNumberToObject(pj, "best_efficiency", best);
    }
    set_name_source(doc, o->name, a->name, what.data);
    ts_buf_free(&what);
    /* The result must load as an accelerator file (e.g. a curve the spline cannot take). */
    struct ts_accel *check = ts_xmalloc(sizeof *check);
    struct ts_jnode root = ts_jnode_root(doc, label);
    rc = ts_accel_parse(&root, check, &err);
    free(check);
    if (rc) {
        fprintf(stderr, "trainsim calibrate: the calibrated file would not load: %s\n", err.msg);
    } else {
        if (o->has_format && o->format == TS_FORMAT_JSON) {
            ts_buf_free(&b);
            ts_buf_init(&b);
            ts_report_json_print(rep, &b);
        }
        FILE *rf = o->out ? stdout : stderr;
        fwrite(b.data, 1, b.len, rf);
        fflush(rf);
        rc = write_doc(doc, o->out);
    }
    ts_buf_free(&b);
    cJSON_Delete(rep);
    cJSON_Delete(doc);
    ts_gemmcsv_free(&t);
    free(a);
    return rc;
}

int ts_cli_calibrate_files(int argc, char **argv)
{
    struct fopts o;
    if (parse(argc, argv, &o))
        return TS_ERR_INPUT;
    if (o.out) {
        const char *others[TS_NCCL_TABLES_MAX + 2] = {o.gemm_csv};
        int k = o.gemm_csv ? 1 : 0;
        for (int i = 0; i < o.n_nccl; i++) {
            const char *c = strchr(o.nccl[i], ':');
            others[k++] = c && ts_nccl_coll_from_name(o.nccl[i]) >= 0 && c > o.nccl[i] ? c + 1
                                                                                    : o.nccl[i];
        }
        others[k] = NULL;
        int rc = ts_cli_check_output("calibrate", "--out", o.out, others);
        if (rc)
            return rc;
    }
    if (o.csv_out) {
        const char *others[] = {o.out, NULL};
        int rc = ts_cli_check_output("calibrate", "--csv-out", o.csv_out, others);
        if (rc)
            return rc;
    }
    return o.n_nccl ? run_nccl(&o) : run_gemm(&o);
}
