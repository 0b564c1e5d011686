/*
 * Tests of the calibrate module: the fit of trainsim's GEMM model to measurements (pure, on
 * synthetic data generated from that model), the accelerator and system files it writes,
 * the layer's GEMM list against the compute module, and two short real runs on this host:
 * a calibration with a small budget, and a small layer's GEMMs executed with BLAS against
 * trainsim's prediction on that calibration (held out: the layer's shapes are not in it).
 */
#include "test_helpers.h"

#include <unistd.h>

#include "calibrate/calibrate.h"
#include "compute/compute.h"

/* ---------------------------------------------------------------- synthetic host */

/* The host the synthetic measurements come from. */
#define SYN_PEAK 100e9
#define SYN_BW 10e9
#define SYN_LAT 2e-6

static double syn_eff(double flops)
{
    return 0.95 * flops / (flops + 1e7);
}

/* Time trainsim's formula gives a GEMM on the synthetic host (compute-bound by construction). */
static double syn_time(const struct ts_calibrate_gemm *g)
{
    double f = ts_calibrate_gemm_flops(g);
    return f / (SYN_PEAK * syn_eff(f)) + ts_calibrate_gemm_out_bytes(g) * g->m * (double)g->n / SYN_BW +
           SYN_LAT;
}

static void syn_point(struct ts_calibrate_point *p, const char *label, int m, int n, int k, bool acc)
{
    memset(p, 0, sizeof *p);
    ts_strlcpy(p->gemm.label, label, sizeof p->gemm.label);
    p->gemm.m = m;
    p->gemm.n = n;
    p->gemm.k = k;
    p->gemm.accumulate = acc;
    p->flops = ts_calibrate_gemm_flops(&p->gemm);
    p->seconds = syn_time(&p->gemm);
    p->flops_per_s = p->flops / p->seconds;
    p->samples = 5;
}

/* Squares of 64..2048 (one per bin) and two more shapes in the 256^3 bin. */
static int syn_points(struct ts_calibrate_point *p)
{
    int n = 0;
    static const int dims[] = {64, 128, 256, 512, 1024, 2048};
    for (size_t i = 0; i < TS_ARRAY_LEN(dims); i++)
        syn_point(&p[n++], "square", dims[i], dims[i], dims[i], false);
    syn_point(&p[n++], "skinny", 256, 256, 248, false);     /* log10 FLOPs 7.51 */
    syn_point(&p[n++], "wgrad", 272, 256, 256, true);       /* log10 FLOPs 7.55 */
    return n;
}

static void syn_result(struct ts_calibrate_result *r)
{
    memset(r, 0, sizeof *r);
    r->n_points = syn_points(r->points);
    struct ts_err err;
    assert_int_equal(ts_calibrate_fit(r->points, r->n_points, SYN_BW, SYN_LAT, &r->peak_flops,
                                      &r->curve, &err), TS_OK);
    r->best_flops_per_s = r->points[5].flops_per_s;
    r->triad_bytes_per_s = SYN_BW;
    r->copy_bytes_per_s = 0.9 * SYN_BW;
    r->stream_array_bytes = 256.0 * 1024 * 1024;
    r->kernel_latency_s = SYN_LAT;
    r->memory_bytes = 16.0 * 1024 * 1024 * 1024;
    r->threads = 2;
    ts_strlcpy(r->host, "testhost", sizeof r->host);
    ts_strlcpy(r->cpu, "Test CPU", sizeof r->cpu);
    ts_strlcpy(r->blas, "OpenBLAS test", sizeof r->blas);
    ts_strlcpy(r->date, "2025-01-01 00:00 UTC", sizeof r->date);
}

/* A fresh temporary directory; *path holds it. */
static void temp_dir(char *path, size_t n)
{
    snprintf(path, n, "/tmp/ts_test_calibrate_XXXXXX");
    assert_non_null(mkdtemp(path));
}

static void remove_files(const char *dir, const char *const names[])
{
    char p[512];
    for (int i = 0; names[i]; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, names[i]);
        remove(p);
    }
    rmdir(dir);
}

static struct ts_model small_model(int hidden, int heads, int kv_heads, enum ts_ffn ffn, int seq)
{
    struct ts_model m;
    memset(&m, 0, sizeof m);
    ts_strlcpy(m.name, "test-layer", sizeof m.name);
    m.layers = 2;
    m.hidden = hidden;
    m.heads = heads;
    m.kv_heads = kv_heads;
    m.head_dim = hidden / heads;
    m.ffn_hidden = ffn == TS_FFN_GELU ? 4 * hidden : 8 * hidden / 3 / 64 * 64;
    m.ffn = ffn;
    m.vocab = 1000;
    m.seq_len = seq;
    m.learned_positions = ffn == TS_FFN_GELU;
    m.bias = ffn == TS_FFN_GELU;
    return m;
}

/* ---------------------------------------------------------------- fit (pure) */

static void fit_should_give_each_point_the_efficiency_that_reproduces_its_time(void **state)
{
    (void)state;
    struct ts_calibrate_point p[16];
    int n = syn_points(p);
    double peak;
    struct ts_gemm_curve curve;
    struct ts_err err;
    assert_int_equal(ts_calibrate_fit(p, n, SYN_BW, SYN_LAT, &peak, &curve, &err), TS_OK);
    /* The best main-loop rate is the synthetic peak times the best efficiency (2048^3). */
    assert_close(peak, SYN_PEAK * syn_eff(p[5].flops), 1e-12, 0);
    for (int i = 0; i < n; i++) {
        const struct ts_calibrate_gemm *g = &p[i].gemm;
        assert_true(p[i].efficiency > 0 && p[i].efficiency <= 1.0);
        assert_close(p[i].efficiency, syn_eff(p[i].flops) / syn_eff(p[5].flops), 1e-12, 0);
        double t = p[i].flops / (peak * p[i].efficiency) +
                   ts_calibrate_gemm_out_bytes(g) * g->m * (double)g->n / SYN_BW + SYN_LAT;
        assert_close(t, p[i].seconds, 1e-12, 0);
    }
    assert_close(p[5].efficiency, 1.0, 1e-15, 0);
}

static void fit_should_bin_points_per_quarter_decade_with_the_median_efficiency(void **state)
{
    (void)state;
    struct ts_calibrate_point p[16];
    int n = syn_points(p);
    double peak;
    struct ts_gemm_curve c;
    struct ts_err err;
    assert_int_equal(ts_calibrate_fit(p, n, SYN_BW, SYN_LAT, &peak, &c, &err), TS_OK);
    /* 8 points, three of them in [10^7.5, 10^7.75): 6 bins. */
    assert_int_equal(c.n, 6);
    for (int i = 1; i < c.n; i++)
        assert_true(c.flops[i] > c.flops[i - 1]);
    for (int i = 0; i < c.n; i++)
        assert_true(c.efficiency[i] > 0 && c.efficiency[i] <= 1.0);
    /* The shared bin: geometric-mean FLOPs, median efficiency (of 256^3, 256x256x248,
     * 272x256x256: the middle one is 256^3). */
    double geo = pow(p[2].flops * p[6].flops * p[7].flops, 1.0 / 3.0);
    assert_close(c.flops[2], geo, 1e-12, 0);
    double e[3] = {p[2].efficiency, p[6].efficiency, p[7].efficiency};
    double med = e[0] + e[1] + e[2] - fmin(e[0], fmin(e[1], e[2])) - fmax(e[0], fmax(e[1], e[2]));
    assert_close(c.efficiency[2], med, 1e-12, 0);
    assert_close(c.efficiency[2], p[2].efficiency, 1e-12, 0);
    /* Single-point bins keep their point. */
    assert_close(c.flops[0], p[0].flops, 1e-12, 0);
    assert_close(c.efficiency[5], 1.0, 1e-15, 0);
    /* The curve is fitted and evaluates to its end points there. */
    assert_close(ts_gemm_curve_eval(&c, c.flops[5]), 1.0, 1e-12, 0);
    assert_close(ts_gemm_curve_eval(&c, c.flops[0]), c.efficiency[0], 1e-12, 0);
}

static void fit_should_reject_no_points_and_nonpositive_times(void **state)
{
    (void)state;
    struct ts_calibrate_point p[2];
    double peak;
    struct ts_gemm_curve c;
    struct ts_err err;
    assert_input_error(ts_calibrate_fit(p, 0, SYN_BW, SYN_LAT, &peak, &c, &err), &err,
                       "1 to 64 measured points");
    syn_point(&p[0], "square", 64, 64, 64, false);
    p[0].seconds = 0;
    assert_input_error(ts_calibrate_fit(p, 1, SYN_BW, SYN_LAT, &peak, &c, &err), &err,
                       "must be > 0");
    syn_point(&p[0], "square", 64, 64, 64, false);
    assert_input_error(ts_calibrate_fit(p, 1, 0.0, SYN_LAT, &peak, &c, &err), &err,
                       "positive bandwidth");
}

/* ---------------------------------------------------------------- files */

static void written_accelerator_file_should_load_with_the_measured_values(void **state)
{
    (void)state;
    struct ts_calibrate_result *r = ts_xcalloc(1, sizeof *r);
    syn_result(r);
    char dir[64], path[128];
    temp_dir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/host.json", dir);
    cJSON *doc = ts_calibrate_accel_json(r, "host-test");
    struct ts_err err;
    assert_int_equal(ts_calibrate_json_write(doc, path, &err), TS_OK);
    cJSON_Delete(doc);

    struct ts_accel a;
    ts_err_clear(&err);
    int rc = ts_accel_load(path, &a, &err);
    if (rc)
        print_error("%s\n", err.msg);
    assert_int_equal(rc, TS_OK);
    assert_string_equal(a.name, "host-test");
    assert_close(a.peak_flops[TS_PREC_FP32], r->peak_flops, 5e-4, 0);
    assert_true(a.peak_flops[TS_PREC_BF16] == 0 && a.peak_flops[TS_PREC_FP16] == 0);
    assert_close(a.memory_bandwidth, SYN_BW, 5e-4, 0);
    assert_close(a.memory_efficiency, 1.0, 0, 0);
    assert_close(a.memory_reserved, 0.0, 0, 0);
    assert_close(a.kernel_latency, SYN_LAT, 5e-4, 0);
    assert_close(a.memory_bytes, r->memory_bytes, 5e-4, 0);
    assert_close(a.flash_fwd_efficiency, 1.0, 5e-4, 0);
    const struct ts_gemm_curve *c = &a.gemm[TS_PREC_FP32];
    assert_int_equal(c->n, r->curve.n);
    for (int i = 0; i < c->n; i++) {
        assert_close(c->flops[i], r->curve.flops[i], 5e-4, 0);
        assert_close(c->efficiency[i], r->curve.efficiency[i], 5e-4, 0);
    }
    assert_non_null(strstr(a.source, "testhost"));
    assert_non_null(strstr(a.source, "\"precision\": \"fp32\""));
    remove_files(dir, (const char *const[]){"host.json", NULL});
    free(r);
}

/* A job around the host system, precision fp32, one GPU, microbatch b. */
static struct ts_job *host_job(const struct ts_accel *a, const struct ts_model *m, int b)
{
    struct ts_job *job = ts_xcalloc(1, sizeof *job);
    job->model = *m;
    ts_calibrate_host_system(a, &job->system);
    job->gpus = job->nodes = 1;
    job->global_batch = b;
    job->precision = TS_PREC_FP32;
    ts_parallel_defaults(&job->parallel);
    job->parallel.dp = 1;
    job->parallel.microbatch = b;
    job->parallel.bucket_bytes = 160e6;
    struct ts_err err;
    assert_int_equal(ts_job_validate(job, "test", &err), TS_OK);
    return job;
}

static void reloaded_file_should_predict_the_measured_times_back(void **state)
{
    (void)state;
    struct ts_calibrate_result *r = ts_xcalloc(1, sizeof *r);
    syn_result(r);
    char dir[64], path[128];
    temp_dir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/host.json", dir);
    cJSON *doc = ts_calibrate_accel_json(r, "host-test");
    struct ts_err err;
    assert_int_equal(ts_calibrate_json_write(doc, path, &err), TS_OK);
    cJSON_Delete(doc);
    struct ts_accel a;
    assert_int_equal(ts_accel_load(path, &a, &err), TS_OK);
    struct ts_model m = small_model(256, 4, 4, TS_FFN_GELU, 256);
    struct ts_job *job = host_job(&a, &m, 1);
    /* Through compute's GEMM formula: the 4-digit rounding of the file and the curve's
     * tabulation are the only differences. Single-point bins only (the shared bin's median
     * belongs to one of its three points). */
    static const int single[] = {0, 1, 3, 4, 5};
    for (size_t i = 0; i < TS_ARRAY_LEN(single); i++) {
        const struct ts_calibrate_point *p = &r->points[single[i]];
        double t = ts_compute_gemm_time(job, p->gemm.m, p->gemm.n, p->gemm.k,
                                        ts_calibrate_gemm_out_bytes(&p->gemm));
        print_message("  %-8s %5d^3: predicted %.6g s, measured %.6g s\n", p->gemm.label,
                      p->gemm.m, t, p->seconds);
        assert_close(t, p->seconds, 0.02, 0);
    }
    free(job);
    remove_files(dir, (const char *const[]){"host.json", NULL});
    free(r);
}

/* A one-GPU job on the system file at `system` in `precision`. */
static void job_json(char *buf, size_t n, const char *system, const char *precision)
{
    snprintf(buf, n,
             "{\"model\": {\"name\": \"t\", \"layers\": 2, \"hidden\": 256, \"heads\": 4, "
             "\"vocab\": 1000, \"seq_len\": 256}, \"system\": \"%s\", \"gpus\": 1, "
             "\"global_batch\": 4, \"precision\": \"%s\"}", system, precision);
}

static void system_file_should_load_and_run_a_fp32_job_on_the_host(void **state)
{
    (void)state;
    struct ts_calibrate_result *r = ts_xcalloc(1, sizeof *r);
    syn_result(r);
    char dir[64], apath[128], spath[128];
    temp_dir(dir, sizeof dir);
    snprintf(apath, sizeof apath, "%s/host.json", dir);
    snprintf(spath, sizeof spath, "%s/host-system.json", dir);
    struct ts_err err;
    cJSON *acc = ts_calibrate_accel_json(r, "host-test");
    assert_int_equal(ts_calibrate_json_write(acc, apath, &err), TS_OK);
    cJSON *sys = ts_calibrate_system_json("host-test-node", "host.json", acc, SYN_BW);
    assert_int_equal(ts_calibrate_json_write(sys, spath, &err), TS_OK);
    cJSON_Delete(sys);
    cJSON_Delete(acc);

    struct ts_system s, expect;
    int rc = ts_system_load(spath, &s, &err);
    if (rc)
        print_error("%s\n", err.msg);
    assert_int_equal(rc, TS_OK);
    ts_calibrate_host_system(&s.accel, &expect);
    assert_string_equal(s.name, expect.name);
    assert_int_equal(s.gpus_per_node, 1);
    assert_int_equal(s.scale_up.domain_size, 1);
    const struct ts_level *lv[2][2] = {{&s.scale_up, &expect.scale_up},
                                       {&s.scale_out, &expect.scale_out}};
    for (int i = 0; i < 2; i++) {
        assert_close(lv[i][0]->bandwidth, lv[i][1]->bandwidth, 1e-12, 0);
        assert_close(lv[i][0]->latency, lv[i][1]->latency, 1e-12, 0);
        assert_close(lv[i][0]->efficiency, lv[i][1]->efficiency, 0, 0);
        assert_int_equal(lv[i][0]->topology, lv[i][1]->topology);
        assert_close(lv[i][0]->oversubscription, lv[i][1]->oversubscription, 0, 0);
        assert_int_equal(lv[i][0]->leaf_nodes, lv[i][1]->leaf_nodes);
    }

    /* A job naming the system file by path runs in fp32 and is refused in bf16. */
    char job_text[1200];
    job_json(job_text, sizeof job_text, spath, "fp32");
    cJSON *doc = ts_test_json(job_text);
    struct ts_jnode root = ts_jnode_root(doc, "job.json");
    struct ts_job *job = ts_xcalloc(1, sizeof *job);
    rc = ts_job_parse(&root, NULL, job, &err);
    if (rc)
        print_error("%s\n", err.msg);
    assert_int_equal(rc, TS_OK);
    struct ts_compute *c = ts_xcalloc(1, sizeof *c);
    ts_compute_build(job, c);
    assert_true(c->layer.fwd.gemm_s > 0 && c->layer.bwd.gemm_s > c->layer.fwd.gemm_s);
    cJSON_Delete(doc);
    job_json(job_text, sizeof job_text, spath, "bf16");
    doc = ts_test_json(job_text);
    root = ts_jnode_root(doc, "job.json");
    assert_input_error(ts_job_parse(&root, NULL, job, &err), &err, "\"bf16\" is not supported");
    cJSON_Delete(doc);
    free(c);
    free(job);
    remove_files(dir, (const char *const[]){"host.json", "host-system.json", NULL});
    free(r);
}

/* ---------------------------------------------------------------- layer GEMMs vs compute */

static void check_layer_against_compute(const struct ts_model *m, int tp, int b)
{
    struct ts_calibrate_result *r = ts_xcalloc(1, sizeof *r);
    syn_result(r);
    cJSON *doc = ts_calibrate_accel_json(r, "host-test");
    struct ts_jnode root = ts_jnode_root(doc, "host.json");
    struct ts_accel a;
    struct ts_err err;
    assert_int_equal(ts_accel_parse(&root, &a, &err), TS_OK);
    cJSON_Delete(doc);

    struct ts_calibrate_layer *L = ts_xcalloc(1, sizeof *L);
    assert_int_equal(ts_calibrate_layer_init(L, m, tp, b, 0, &err), TS_OK);
    assert_int_equal(L->n, 12);
    int rc = ts_calibrate_layer_predict(L, &a, &err);
    if (rc)
        print_error("%s\n", err.msg);
    assert_int_equal(rc, TS_OK);
    double sum = 0.0;
    for (int i = 0; i < L->n; i++) {
        assert_true(L->predicted_s[i] > 0);
        sum += L->predicted_s[i];
    }
    /* The same GEMMs as compute.c's layer: per-GEMM times add up to fwd + bwd gemm_s. */
    assert_close(sum, L->predicted_total_s, 1e-12, 0);
    /* And the same FLOPs: 3x the forward matmul FLOPs without attention. */
    double h = m->hidden, d = m->head_dim, T = (double)b * m->seq_len;
    double fwd = 2.0 * T * h * (m->heads + 2.0 * m->kv_heads) * d + 2.0 * T * m->heads * d * h +
                 (m->ffn == TS_FFN_GELU ? 4.0 : 6.0) * T * h * m->ffn_hidden;
    if (tp == 1)
        assert_close(L->flops, 3.0 * fwd, 1e-12, 0);
    free(L);
    free(r);
}

static void layer_gemms_should_be_the_compute_modules_gemms(void **state)
{
    (void)state;
    struct ts_model gpt = small_model(512, 8, 8, TS_FFN_GELU, 256);
    check_layer_against_compute(&gpt, 1, 2);
    struct ts_model llama = small_model(512, 8, 2, TS_FFN_SWIGLU, 128);
    check_layer_against_compute(&llama, 1, 1);
    check_layer_against_compute(&llama, 2, 1);
    check_layer_against_compute(&llama, 4, 1);    /* kv heads replicated */
}

static void layer_check_should_reject_a_tp_that_does_not_divide_heads(void **state)
{
    (void)state;
    struct ts_model m = small_model(512, 8, 8, TS_FFN_GELU, 256);
    struct ts_calibrate_layer *L = ts_xcalloc(1, sizeof *L);
    struct ts_err err;
    assert_input_error(ts_calibrate_layer_init(L, &m, 3, 1, 0, &err), &err, "tp 3 must divide");
    free(L);
}

/* ---------------------------------------------------------------- real runs on this host */

static struct ts_calibrate_result *timed_result;

/* One short calibration shared by the timed tests: generic grid up to 512, 2 s. */
static struct ts_calibrate_result *timed_calibration(void)
{
    if (timed_result)
        return timed_result;
    struct ts_calibrate_result *r;
    struct ts_calibrate_options o;
    ts_calibrate_options_default(&o);
    o.seconds = 2.0;
    o.max_dim = 512;
    o.stream_array_bytes = 32.0 * 1024 * 1024;
    o.progress = getenv("TS_TEST_VERBOSE") ? stderr : NULL;
    r = timed_result = ts_xcalloc(1, sizeof *r);
    struct ts_err err;
    double t0 = ts_time_now();
    /* Other work on the host (a parallel build) slows some shapes and not others: measure
     * again, up to three times, while this process did not get its cores. */
    for (int attempt = 0; attempt < 3; attempt++) {
        int rc = ts_calibrate_measure(&o, r, &err);
        if (rc)
            print_error("%s\n", err.msg);
        assert_int_equal(rc, TS_OK);
        if (r->cpu_share >= TS_CALIBRATE_BUSY_SHARE)
            break;
        print_message("  host busy (CPU share %.2f): calibrating again\n", r->cpu_share);
    }
    print_message("  calibration: %d shapes in %.2f s, peak %.4g GFLOP/s, triad %.4g GB/s, "
                  "latency %.3g us\n", r->n_points, ts_time_now() - t0, r->peak_flops / 1e9,
                  r->triad_bytes_per_s / 1e9, r->kernel_latency_s * 1e6);
    return r;
}

static void short_calibration_should_give_a_valid_rising_curve(void **state)
{
    (void)state;
    const struct ts_calibrate_result *r = timed_calibration();
    assert_true(r->n_points >= 5);
    assert_true(r->elapsed_s < 6.0);
    assert_true(r->peak_flops > 1e8 && r->peak_flops < 1e15);
    assert_true(r->best_flops_per_s <= r->peak_flops * 1.0000001);
    assert_true(r->triad_bytes_per_s > 1e8 && r->copy_bytes_per_s > 1e8);
    assert_true(r->kernel_latency_s > 0 && r->kernel_latency_s < 1e-3);
    assert_true(r->memory_bytes > 1e8);
    const struct ts_gemm_curve *c = &r->curve;
    assert_true(c->n >= 3);
    for (int i = 0; i < c->n; i++) {
        print_message("  curve %2d: %10.4g FLOPs  efficiency %.3f\n", i, c->flops[i],
                      c->efficiency[i]);
        assert_true(c->efficiency[i] > 0 && c->efficiency[i] <= 1.0);
        if (i > 0)
            assert_true(c->flops[i] > c->flops[i - 1]);
    }
    /* Monotone-ish: the largest GEMMs run at a good fraction of the best rate, and no bin
     * dips far below the bins before it. A CPU's curve is nearly flat above ~64^3 (its
     * "kernel launch" is a function call), so timing noise and cache steps decide the order
     * of neighbouring bins; only wild swings would mean a broken measurement. */
    if (r->cpu_share >= TS_CALIBRATE_BUSY_SHARE) {
        assert_true(c->efficiency[c->n - 1] >= 0.3);
        double best = c->efficiency[0];
        for (int i = 1; i < c->n; i++) {
            assert_true(c->efficiency[i] > 0.2 * best);
            best = fmax(best, c->efficiency[i]);
        }
    } else {
        /* While other work held the cores, each shape got a different slice of them: the
         * curve's shape says nothing about the host, only its validity is judged. */
        print_message("  host stayed busy (CPU share %.2f): curve shape not judged\n",
                      r->cpu_share);
    }
    /* It writes a file that loads. */
    cJSON *doc = ts_calibrate_accel_json(r, "host-test");
    struct ts_jnode root = ts_jnode_root(doc, "host.json");
    struct ts_accel a;
    struct ts_err err;
    int rc = ts_accel_parse(&root, &a, &err);
    if (rc)
        print_error("%s\n", err.msg);
    assert_int_equal(rc, TS_OK);
    cJSON_Delete(doc);
}

static void small_layer_gemms_measured_and_predicted_should_agree(void **state)
{
    (void)state;
    const struct ts_calibrate_result *r = timed_calibration();
    cJSON *doc = ts_calibrate_accel_json(r, "host-test");
    struct ts_jnode root = ts_jnode_root(doc, "host.json");
    struct ts_accel a;
    struct ts_err err;
    assert_int_equal(ts_accel_parse(&root, &a, &err), TS_OK);
    cJSON_Delete(doc);

    struct ts_model m = small_model(512, 8, 8, TS_FFN_GELU, 256);
    struct ts_calibrate_layer *L = ts_xcalloc(1, sizeof *L);
    assert_int_equal(ts_calibrate_layer_init(L, &m, 1, 1, 0, &err), TS_OK);
    assert_int_equal(ts_calibrate_layer_predict(L, &a, &err), TS_OK);
    for (int attempt = 0; attempt < 3; attempt++) {
        assert_int_equal(ts_calibrate_layer_measure(L, 0, 1.0, &err), TS_OK);
        if (L->cpu_share >= TS_CALIBRATE_BUSY_SHARE)
            break;
        print_message("  host busy (CPU share %.2f): measuring again\n", L->cpu_share);
    }
    assert_true(L->samples >= 1);
    for (int i = 0; i < L->n; i++)
        print_message("  %-10s %4d x %4d x %4d  measured %8.3f ms  predicted %8.3f ms  (%.2f)\n",
                      L->gemm[i].label, L->gemm[i].m, L->gemm[i].n, L->gemm[i].k,
                      L->measured_s[i] * 1e3, L->predicted_s[i] * 1e3,
                      L->predicted_s[i] / L->measured_s[i]);
    double ratio = L->predicted_total_s / L->measured_total_s;
    print_message("  layer (%.3g GFLOP, %d passes): measured %.3f ms, predicted %.3f ms, "
                  "predicted/measured %.3f (error %+.1f%%)\n", L->flops / 1e9, L->samples,
                  L->measured_total_s * 1e3, L->predicted_total_s * 1e3, ratio,
                  100.0 * (ratio - 1.0));
    double layer_share = L->cpu_share;
    free(L);
    if (r->cpu_share < TS_CALIBRATE_BUSY_SHARE || layer_share < TS_CALIBRATE_BUSY_SHARE) {
        /* Timings taken while other work had the cores compare nothing. */
        print_message("  host stayed busy (CPU share %.2f calibrating, %.2f measuring): not "
                      "judged\n", r->cpu_share, layer_share);
        skip();
    }
    assert_true(ratio >= 0.5 && ratio <= 2.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fit_should_give_each_point_the_efficiency_that_reproduces_its_time),
        cmocka_unit_test(fit_should_bin_points_per_quarter_decade_with_the_median_efficiency),
        cmocka_unit_test(fit_should_reject_no_points_and_nonpositive_times),
        cmocka_unit_test(written_accelerator_file_should_load_with_the_measured_values),
        cmocka_unit_test(reloaded_file_should_predict_the_measured_times_back),
        cmocka_unit_test(system_file_should_load_and_run_a_fp32_job_on_the_host),
        cmocka_unit_test(layer_gemms_should_be_the_compute_modules_gemms),
        cmocka_unit_test(layer_check_should_reject_a_tp_that_does_not_divide_heads),
        cmocka_unit_test(short_calibration_should_give_a_valid_rising_curve),
        cmocka_unit_test(small_layer_gemms_measured_and_predicted_should_agree),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    free(timed_result);
    return failed;
}
