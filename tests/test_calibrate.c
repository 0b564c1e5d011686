/*
 * Tests of the calibrate module: the fit of trainsim's GEMM model to measurements (pure, on
 * synthetic data generated from that model), the accelerator and system files it writes,
 * the layer's GEMM list against the compute module, and short real runs on this host (a
 * calibration with a small budget, its files loaded back and run, a small layer's GEMMs
 * executed with BLAS) that check only what does not depend on the host's speed or load.
 */
#include "test_helpers.h"

#include <unistd.h>

#include "calibrate/calibrate.h"
#include "compute/compute.h"
#include "step/step.h"

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

/* A timing table in which one shape ran slow (a burst of other work during all its samples):
 * the fit gives that point, and only that point, the efficiency its time implies. This is the
 * host-independent version of "a bin of the measured curve dips": the dip is in the data, the
 * fit neither hides it nor lets it spill into the neighbouring bins. */
static void fit_should_keep_a_slow_shape_in_its_own_bin(void **state)
{
    (void)state;
    struct ts_calibrate_point p[16];
    int n = syn_points(p);
    p[1].seconds *= 10.0;                   /* 128^3, the bin of the reported flake */
    double peak;
    struct ts_gemm_curve c;
    struct ts_err err;
    assert_int_equal(ts_calibrate_fit(p, n, SYN_BW, SYN_LAT, &peak, &c, &err), TS_OK);
    assert_close(peak, SYN_PEAK * syn_eff(p[5].flops), 1e-12, 0);
    /* Hand-computed: main-loop time = 10 t - out / B - L, efficiency = rate / peak. */
    const struct ts_calibrate_gemm *g = &p[1].gemm;
    double out = 4.0 * g->m * (double)g->n;
    double main_s = fmax(p[1].seconds - out / SYN_BW - SYN_LAT, 0.5 * p[1].seconds);
    assert_close(p[1].efficiency, p[1].flops / main_s / peak, 1e-12, 0);
    assert_close(c.efficiency[1], p[1].efficiency, 1e-12, 0);     /* a dip, kept */
    assert_true(c.efficiency[1] < c.efficiency[0] && c.efficiency[1] < c.efficiency[2]);
    /* Every other bin is what it is without the slow shape. */
    assert_int_equal(c.n, 6);
    for (int i = 0; i < c.n; i++)   /* bin i holds square i (bin 2: the median of three) */
        if (i != 1)
            assert_close(c.efficiency[i], syn_eff(p[i].flops) / syn_eff(p[5].flops), 1e-12, 0);
}

/* Steffen's interpolant (spec/curve.c) never overshoots: points that rise give a curve that
 * rises everywhere between them and stays within their range. */
static void fitted_curve_should_rise_between_rising_points(void **state)
{
    (void)state;
    struct ts_calibrate_point p[16];
    int n = syn_points(p);
    double peak;
    struct ts_gemm_curve c;
    struct ts_err err;
    assert_int_equal(ts_calibrate_fit(p, n, SYN_BW, SYN_LAT, &peak, &c, &err), TS_OK);
    double lo = log10(c.flops[0]), hi = log10(c.flops[c.n - 1]), prev = 0.0;
    for (int i = 0; i <= 2000; i++) {
        double e = ts_gemm_curve_eval(&c, pow(10.0, lo + (hi - lo) * i / 2000.0));
        assert_true(e >= prev - 1e-15);
        assert_true(e >= c.efficiency[0] - 1e-12 && e <= c.efficiency[c.n - 1] + 1e-12);
        prev = e;
    }
}

/* xorshift64*: the noisy tables below are the same on every machine. */
static double syn_uniform(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return (double)((*s * 2685821657736338717ULL) >> 11) / 9007199254740992.0;
}

/* Whatever timings a busy host produces (each shape off by up to 20x either way, shapes
 * missing), the fit gives a valid curve: efficiencies in (0, 1], strictly increasing FLOPs,
 * the best point at 1, an interpolant that stays in (0, 1], and a peak no lower than the
 * best raw rate. */
static void fit_of_noisy_timings_should_always_give_a_valid_curve(void **state)
{
    (void)state;
    uint64_t seed = 0x9e3779b97f4a7c15ULL;
    struct ts_calibrate_gemm grid[TS_CALIBRATE_POINTS_MAX];
    int n_grid = 0;
    for (int d = 64; d <= 4096; d = d * 3 / 2 / 16 * 16) {     /* 64, 96, 144, ... 3840 */
        memset(&grid[n_grid], 0, sizeof grid[n_grid]);
        grid[n_grid].m = grid[n_grid].n = grid[n_grid].k = d;
        n_grid++;
    }
    for (int i = 0; i < 6; i++) {                               /* skinny: 4096 x 4096 x 64.. */
        memset(&grid[n_grid], 0, sizeof grid[n_grid]);
        grid[n_grid].m = i % 3 == 0 ? 64 << (i / 3 * 2) : 4096;
        grid[n_grid].n = i % 3 == 1 ? 64 << (i / 3 * 2) : 4096;
        grid[n_grid].k = i % 3 == 2 ? 64 << (i / 3 * 2) : 4096;
        n_grid++;
    }
    for (int trial = 0; trial < 500; trial++) {
        struct ts_calibrate_point p[TS_CALIBRATE_POINTS_MAX];
        int n = 0;
        double best_raw = 0.0;
        for (int i = 0; i < n_grid; i++) {
            if (syn_uniform(&seed) < 0.3 && !(n == 0 && i == n_grid - 1))
                continue;                   /* skipped for lack of time (one shape at least) */
            const struct ts_calibrate_gemm *g = &grid[i];
            syn_point(&p[n], "noisy", g->m, g->n, g->k, syn_uniform(&seed) < 0.2);
            p[n].seconds *= pow(20.0, 2.0 * syn_uniform(&seed) - 1.0);
            p[n].flops_per_s = p[n].flops / p[n].seconds;
            best_raw = fmax(best_raw, p[n].flops_per_s);
            n++;
        }
        double peak;
        struct ts_gemm_curve c;
        struct ts_err err;
        int rc = ts_calibrate_fit(p, n, SYN_BW, SYN_LAT, &peak, &c, &err);
        if (rc)
            print_error("trial %d: %s\n", trial, err.msg);
        assert_int_equal(rc, TS_OK);
        assert_true(isfinite(peak) && peak >= best_raw);
        double top = 0.0;
        for (int i = 0; i < c.n; i++) {
            assert_true(c.efficiency[i] > 0 && c.efficiency[i] <= 1.0);
            if (i > 0)
                assert_true(c.flops[i] > c.flops[i - 1]);
        }
        for (int i = 0; i < n; i++)
            top = fmax(top, p[i].efficiency);
        assert_close(top, 1.0, 1e-15, 0);
        for (int i = 0; i <= 100; i++) {
            double e = ts_gemm_curve_eval(&c, c.flops[0] * pow(c.flops[c.n - 1] / c.flops[0],
                                                                i / 100.0));
            assert_true(isfinite(e) && e > 0 && e <= 1.0 + 1e-12);
        }
    }
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

/* What a real measurement gives depends on the host and on what else it runs, so these tests
 * assert only what cannot vary: the numbers are finite and positive, the curve is valid, the
 * files load back and `run` accepts them. How well the measured times match the predictions
 * is an experiment (experiments/host-calibration), not a pass/fail check. */

static struct ts_calibrate_result *timed_result;

/* One short calibration shared by the tests below: grid up to 256, small STREAM arrays, 1 s. */
static struct ts_calibrate_result *timed_calibration(void)
{
    if (timed_result)
        return timed_result;
    struct ts_calibrate_options o;
    ts_calibrate_options_default(&o);
    o.seconds = 1.0;
    o.max_dim = 256;
    o.stream_array_bytes = 8.0 * 1024 * 1024;
    o.progress = getenv("TS_TEST_VERBOSE") ? stderr : NULL;
    struct ts_calibrate_result *r = timed_result = ts_xcalloc(1, sizeof *r);
    struct ts_err err;
    int rc = ts_calibrate_measure(&o, r, &err);
    if (rc)
        print_error("%s\n", err.msg);
    assert_int_equal(rc, TS_OK);
    print_message("  calibration: %d shapes (%d skipped), peak %.4g GFLOP/s, triad %.4g GB/s, "
                  "latency %.3g us, CPU share %.2f\n", r->n_points, r->skipped,
                  r->peak_flops / 1e9, r->triad_bytes_per_s / 1e9, r->kernel_latency_s * 1e6,
                  r->cpu_share);
    return r;
}

static bool finite_positive(double v)
{
    return isfinite(v) && v > 0;
}

static void real_measurement_should_give_finite_positive_numbers_and_a_valid_curve(void **state)
{
    (void)state;
    const struct ts_calibrate_result *r = timed_calibration();
    /* The first (smallest) shape is always measured, whatever the budget left. */
    assert_true(r->n_points >= 1 && r->n_points + r->skipped == 5);
    assert_int_equal(r->points[0].gemm.m, 64);
    for (int i = 0; i < r->n_points; i++) {
        const struct ts_calibrate_point *p = &r->points[i];
        assert_true(p->samples >= 1 && p->samples <= 9);
        assert_close(p->flops, ts_calibrate_gemm_flops(&p->gemm), 0, 0);
        assert_true(finite_positive(p->seconds) && finite_positive(p->flops_per_s));
        assert_true(p->efficiency > 0 && p->efficiency <= 1.0);
    }
    assert_true(finite_positive(r->peak_flops) && finite_positive(r->best_flops_per_s));
    /* The fit's main-loop time is at most the measured time: the peak is no lower than the
     * best raw rate. */
    assert_true(r->best_flops_per_s <= r->peak_flops * (1 + 1e-12));
    assert_true(finite_positive(r->triad_bytes_per_s) && finite_positive(r->copy_bytes_per_s));
    assert_true(finite_positive(r->kernel_latency_s) && finite_positive(r->memory_bytes));
    assert_true(finite_positive(r->elapsed_s));
    assert_true(isfinite(r->cpu_share) && r->cpu_share >= 0);
    assert_true(r->threads >= 1);
    const struct ts_gemm_curve *c = &r->curve;
    assert_true(c->n >= 1 && c->n <= r->n_points);
    for (int i = 0; i < c->n; i++) {
        print_message("  curve %2d: %10.4g FLOPs  efficiency %.3f\n", i, c->flops[i],
                      c->efficiency[i]);
        assert_true(c->efficiency[i] > 0 && c->efficiency[i] <= 1.0);
        if (i > 0)
            assert_true(c->flops[i] > c->flops[i - 1]);
    }
}

static void measured_files_should_load_back_and_run_a_job(void **state)
{
    (void)state;
    const struct ts_calibrate_result *r = timed_calibration();
    char dir[64], apath[128], spath[128], jpath[128];
    temp_dir(dir, sizeof dir);
    snprintf(apath, sizeof apath, "%s/host.json", dir);
    snprintf(spath, sizeof spath, "%s/host-system.json", dir);
    snprintf(jpath, sizeof jpath, "%s/job.json", dir);
    struct ts_err err;
    cJSON *acc = ts_calibrate_accel_json(r, "host-test");
    assert_int_equal(ts_calibrate_json_write(acc, apath, &err), TS_OK);
    cJSON *sys = ts_calibrate_system_json("host-test-node", "host.json", acc,
                                          r->triad_bytes_per_s);
    assert_int_equal(ts_calibrate_json_write(sys, spath, &err), TS_OK);
    cJSON_Delete(sys);
    cJSON_Delete(acc);

    /* The accelerator reads back as measured (to the file's 4 digits). */
    struct ts_accel a;
    int rc = ts_accel_load(apath, &a, &err);
    if (rc)
        print_error("%s\n", err.msg);
    assert_int_equal(rc, TS_OK);
    assert_close(a.peak_flops[TS_PREC_FP32], r->peak_flops, 5e-4, 0);
    assert_close(a.memory_bandwidth, r->triad_bytes_per_s, 5e-4, 0);
    assert_int_equal(a.gemm[TS_PREC_FP32].n, r->curve.n);

    /* A job file naming the system file, loaded as `trainsim run` loads it, evaluates to a
     * feasible iteration with finite positive times. */
    char job_text[1200];
    job_json(job_text, sizeof job_text, spath, "fp32");
    FILE *f = fopen(jpath, "w");
    assert_non_null(f);
    fputs(job_text, f);
    fclose(f);
    cJSON *doc;
    assert_int_equal(ts_json_load(jpath, &doc, &err), TS_OK);
    struct ts_jnode root = ts_jnode_root(doc, jpath);
    struct ts_job *job = ts_xcalloc(1, sizeof *job);
    rc = ts_job_parse(&root, NULL, job, &err);
    if (rc)
        print_error("%s\n", err.msg);
    assert_int_equal(rc, TS_OK);
    cJSON_Delete(doc);
    struct ts_eval_scratch scratch;
    assert_int_equal(ts_eval_scratch_init(&scratch), 0);
    struct ts_iteration it;
    ts_step_evaluate(job, TS_METHOD_DISCRETE_EVENT, &scratch, &it, NULL, NULL);
    assert_true(it.feasible);
    assert_true(finite_positive(it.iteration_s) && finite_positive(it.tokens_per_s));
    assert_true(it.mfu > 0 && it.mfu <= 1.0);
    ts_eval_scratch_free(&scratch);
    free(job);
    remove_files(dir, (const char *const[]){"host.json", "host-system.json", "job.json", NULL});
}

static void layer_measurement_should_give_finite_positive_times(void **state)
{
    (void)state;
    const struct ts_calibrate_result *r = timed_calibration();
    cJSON *doc = ts_calibrate_accel_json(r, "host-test");
    struct ts_jnode root = ts_jnode_root(doc, "host.json");
    struct ts_accel a;
    struct ts_err err;
    assert_int_equal(ts_accel_parse(&root, &a, &err), TS_OK);
    cJSON_Delete(doc);

    struct ts_model m = small_model(256, 4, 4, TS_FFN_GELU, 128);
    struct ts_calibrate_layer *L = ts_xcalloc(1, sizeof *L);
    assert_int_equal(ts_calibrate_layer_init(L, &m, 1, 1, 0, &err), TS_OK);
    assert_int_equal(ts_calibrate_layer_predict(L, &a, &err), TS_OK);
    assert_int_equal(ts_calibrate_layer_measure(L, 0, 0.5, &err), TS_OK);
    assert_true(L->samples >= 1 && L->samples <= 7);
    double sum_median = 0.0;
    for (int i = 0; i < L->n; i++) {
        assert_true(finite_positive(L->measured_s[i]) && finite_positive(L->predicted_s[i]));
        sum_median += L->measured_s[i];
    }
    assert_true(finite_positive(L->measured_total_s) && finite_positive(L->predicted_total_s));
    /* With one pass the total is exactly the sum of the GEMMs; with more, the medians of the
     * parts and of the whole need not agree, but each is a time of this same work. */
    if (L->samples == 1)
        assert_close(L->measured_total_s, sum_median, 1e-9, 0);
    assert_true(isfinite(L->cpu_share) && L->cpu_share >= 0);
    print_message("  layer (%.3g GFLOP, %d passes): measured %.3f ms, predicted %.3f ms\n",
                  L->flops / 1e9, L->samples, L->measured_total_s * 1e3,
                  L->predicted_total_s * 1e3);
    free(L);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fit_should_give_each_point_the_efficiency_that_reproduces_its_time),
        cmocka_unit_test(fit_should_bin_points_per_quarter_decade_with_the_median_efficiency),
        cmocka_unit_test(fit_should_reject_no_points_and_nonpositive_times),
        cmocka_unit_test(fit_should_keep_a_slow_shape_in_its_own_bin),
        cmocka_unit_test(fitted_curve_should_rise_between_rising_points),
        cmocka_unit_test(fit_of_noisy_timings_should_always_give_a_valid_curve),
        cmocka_unit_test(written_accelerator_file_should_load_with_the_measured_values),
        cmocka_unit_test(reloaded_file_should_predict_the_measured_times_back),
        cmocka_unit_test(system_file_should_load_and_run_a_fp32_job_on_the_host),
        cmocka_unit_test(layer_gemms_should_be_the_compute_modules_gemms),
        cmocka_unit_test(layer_check_should_reject_a_tp_that_does_not_divide_heads),
        cmocka_unit_test(real_measurement_should_give_finite_positive_numbers_and_a_valid_curve),
        cmocka_unit_test(measured_files_should_load_back_and_run_a_job),
        cmocka_unit_test(layer_measurement_should_give_finite_positive_times),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    free(timed_result);
    return failed;
}
