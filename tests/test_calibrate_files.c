/*
 * Tests of calibration from files people already have: nccl-tests output (parsing a real
 * two-node file; a round trip where tables printed from known level parameters are fitted
 * back to them) and measured GEMM tables in CSV (efficiency = 2mnk / time / peak by hand,
 * binning, refusals).
 */
#include "test_helpers.h"

#include "calibrate/gemmcsv.h"
#include "calibrate/nccl.h"

static char *read_data(const char *name, size_t *len)
{
    const char *dir = getenv("TS_TEST_DATA");
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir ? dir : "tests/data", name);
    char *text;
    struct ts_err err;
    if (ts_file_read(path, &text, len, &err)) {
        print_error("%s\n", err.msg);
        fail();
    }
    return text;
}

/* ---------------------------------------------------------------- nccl-tests */

static void real_two_node_file_parses_to_its_ranks_hosts_and_rows(void **state)
{
    (void)state;
    size_t len;
    char *text = read_data("nccl/gcp-a3-mega-2x8-all_reduce_perf.txt", &len);
    struct ts_nccl_table t;
    struct ts_err err;
    assert_int_equal(ts_nccl_parse(text, len, "gcp-a3-mega-2x8-all_reduce_perf.txt", -1, &t, &err),
                     TS_OK);
    assert_int_equal(t.coll, TS_COLL_ALLREDUCE);
    assert_int_equal(t.ranks, 16);
    assert_int_equal(t.nodes, 2);
    assert_int_equal(t.n, 31);                      /* 8 B .. 8 GiB in powers of two */
    assert_close(t.pts[0].bytes, 8, 0, 0);
    assert_close(t.pts[0].time_s, 135.8e-6, 1e-12, 0);
    assert_close(t.pts[30].bytes, 8589934592.0, 0, 0);
    assert_close(t.pts[30].time_s, 47535e-6, 1e-12, 0);
    assert_close(t.pts[30].busbw, 338.82e9, 1e-12, 0);
    free(text);
}

static void mpi_launcher_prefixes_are_stripped(void **state)
{
    (void)state;
    size_t len;
    char *text = read_data("nccl/gcp-a3-mega-2x8-all_reduce_perf.txt", &len);
    struct ts_buf b;
    ts_buf_init(&b);
    for (size_t i = 0; i < len;) {
        size_t e = i;
        while (e < len && text[e] != '\n')
            e++;
        ts_buf_printf(&b, "[1,0]<stdout>:%.*s\n", (int)(e - i), text + i);
        if (i == 0)
            ts_buf_printf(&b, "host:21:27 [0] NCCL INFO Launch mode Parallel\n");
        i = e + 1;
    }
    struct ts_nccl_table a, c;
    struct ts_err err;
    assert_int_equal(ts_nccl_parse(text, len, "x", TS_COLL_ALLREDUCE, &a, &err), TS_OK);
    assert_int_equal(ts_nccl_parse(b.data, b.len, "x", TS_COLL_ALLREDUCE, &c, &err), TS_OK);
    assert_int_equal(a.n, c.n);
    assert_int_equal(a.ranks, c.ranks);
    for (int i = 0; i < a.n; i++)
        assert_close(a.pts[i].time_s, c.pts[i].time_s, 0, 0);
    ts_buf_free(&b);
    free(text);
}

static void a_table_whose_bus_factor_is_another_collectives_is_refused(void **state)
{
    (void)state;
    size_t len;
    char *text = read_data("nccl/gcp-a3-mega-2x8-all_reduce_perf.txt", &len);
    struct ts_nccl_table t;
    struct ts_err err;
    /* Named all_gather, but busbw / algbw = 2(n-1)/n = 1.875, not (n-1)/n. */
    assert_int_equal(ts_nccl_parse(text, len, "all_gather_perf.log", -1, &t, &err), TS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "another collective"));
    /* No name, no kind. */
    assert_int_equal(ts_nccl_parse(text, len, "results.txt", -1, &t, &err), TS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "KIND:FILE"));
    free(text);
    const char *no_ranks = "#       size count type redop root time algbw busbw #wrong time algbw busbw #wrong\n"
                           "  1048576 262144 float sum -1 203.2 5.16 9.68 0 207.2 5.06 9.49 0\n";
    assert_int_equal(ts_nccl_parse(no_ranks, strlen(no_ranks), "r", TS_COLL_ALLREDUCE, &t, &err),
                     TS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "Rank"));
    const char *short_line = "#  Rank  0 Group  0 Pid 1 on h device  0 [0x19] GPU\n"
                             "#  Rank  1 Group  0 Pid 2 on h device  1 [0x19] GPU\n"
                             "  1048576 262144 float sum -1 203.2\n";
    assert_int_equal(ts_nccl_parse(short_line, strlen(short_line), "s", TS_COLL_ALLREDUCE, &t, &err),
                     TS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "s:3:"));
}

/* Print a table in nccl-tests' format from the model on `sys` (the oracle's measurements). */
static void print_table(const struct ts_system *sys, enum ts_coll coll, int ranks, int nodes,
                        struct ts_buf *b)
{
    ts_buf_printf(b, "# nThread 1 nGpus 1 minBytes 1024 maxBytes 4294967296 step: 4(factor)\n");
    for (int r = 0; r < ranks; r++)
        ts_buf_printf(b, "#  Rank %2d Group  0 Pid %5d on node-%d device %2d [0x19] GPU\n", r,
                      100 + r, r / (ranks / nodes), r % (ranks / nodes));
    ts_buf_printf(b, "#       size         count      type   redop    root     time   algbw   "
                     "busbw #wrong     time   algbw   busbw #wrong\n");
    struct ts_nccl_table t = {.coll = coll, .ranks = ranks, .nodes = nodes};
    double factor = coll == TS_COLL_ALLREDUCE ? 2.0 * (ranks - 1) / ranks
                                              : (double)(ranks - 1) / ranks;
    for (double s = 1024; s <= 4294967296.0; s *= 4) {
        double tm = ts_nccl_predict(sys, &t, s);
        double alg = s / tm / 1e9;
        ts_buf_printf(b, "%12.0f %13.0f     float     sum      -1 %8.6g %7.2f %7.2f      0 "
                         "%8.6g %7.2f %7.2f      0\n", s, s / 4, tm * 1e6, alg, alg * factor,
                      tm * 1e6, alg, alg * factor);
    }
}

static void tables_printed_from_known_levels_fit_back_to_them(void **state)
{
    (void)state;
    struct ts_system truth;
    struct ts_err err;
    assert_int_equal(ts_system_load("dgx-a100-80g", &truth, &err), TS_OK);
    truth.scale_up.efficiency = 0.7;
    truth.scale_up.latency = 7e-6;
    truth.scale_out.efficiency = 0.6;
    truth.scale_out.latency = 30e-6;
    struct ts_nccl_table tables[3];
    struct {
        enum ts_coll coll;
        int ranks, nodes;
    } runs[3] = {{TS_COLL_ALLREDUCE, 8, 1}, {TS_COLL_ALLGATHER, 8, 1}, {TS_COLL_ALLREDUCE, 32, 4}};
    for (int i = 0; i < 3; i++) {
        struct ts_buf b;
        ts_buf_init(&b);
        print_table(&truth, runs[i].coll, runs[i].ranks, runs[i].nodes, &b);
        assert_int_equal(ts_nccl_parse(b.data, b.len, "synthetic", (int)runs[i].coll, &tables[i],
                                       &err), TS_OK);
        assert_int_equal(tables[i].ranks, runs[i].ranks);
        assert_int_equal(tables[i].nodes, runs[i].nodes);
        ts_buf_free(&b);
    }
    struct ts_system base, fitted;
    assert_int_equal(ts_system_load("dgx-a100-80g", &base, &err), TS_OK);
    struct ts_nccl_fit_report rep;
    assert_int_equal(ts_nccl_fit(&base, tables, 3, &fitted, &rep, &err), TS_OK);
    assert_true(rep.up.fitted && rep.out.fitted);
    assert_int_equal(rep.up.points, 2 * 12);
    /* Times are printed with 6 significant digits: the parameters come back to ~1e-3. */
    assert_close(fitted.scale_up.efficiency, 0.7, 2e-3, 0);
    assert_close(fitted.scale_up.latency, 7e-6, 2e-2, 0);
    assert_close(fitted.scale_out.efficiency, 0.6, 2e-3, 0);
    assert_close(fitted.scale_out.latency, 30e-6, 2e-2, 0);
    assert_true(rep.up.rms_log_after < 1e-3);
    assert_true(rep.out.rms_log_after < 1e-3);
    assert_true(rep.up.rms_log_before > rep.up.rms_log_after);
    assert_false(rep.up.at_bound);
}

/* The real two-node file: its 338.8 GB/s at 8 GiB needs the tree's one crossing per node and
 * direction (tests/data/nccl/README.md), so the scale-out fit must end inside its bounds and
 * reduce the error. With NCCL's protocols (LL / LL128 below ~32 MiB, Simple above) the RMS
 * log error must stay below 0.30 (35% in time), under the 0.328 (38.8%) of the Simple-only
 * model this file was first fitted with; the protocol model with NCCL's tree correction
 * reaches 25.1% from the catalogue's 8.7 / 159 us alphas (26.3% from 8.7 / 179 us without
 * the correction, 31.7% from the earlier 5 / 75 us). */
static void real_two_node_all_reduce_fits_inside_the_bounds(void **state)
{
    (void)state;
    size_t len;
    char *text = read_data("nccl/gcp-a3-mega-2x8-all_reduce_perf.txt", &len);
    struct ts_nccl_table t;
    struct ts_err err;
    ts_err_clear(&err);
    assert_int_equal(ts_nccl_parse(text, len, "all_reduce_perf.txt", -1, &t, &err), TS_OK);
    free(text);
    struct ts_system base, fitted;
    assert_int_equal(ts_system_load("gcp-a3-mega", &base, &err), TS_OK);
    struct ts_nccl_fit_report rep;
    assert_int_equal(ts_nccl_fit(&base, &t, 1, &fitted, &rep, &err), TS_OK);
    assert_true(rep.out.fitted);
    assert_false(rep.out.at_bound);
    assert_true(fitted.scale_out.efficiency > 0.05 && fitted.scale_out.efficiency < 1.0);
    assert_true(rep.out.rms_log_after < rep.out.rms_log_before);
    if (!(rep.out.rms_log_after < 0.30)) {
        print_error("RMS log error %.4f after the fit, bound 0.30\n", rep.out.rms_log_after);
        fail();
    }
}

static void a_multi_node_table_must_fill_its_nodes(void **state)
{
    (void)state;
    struct ts_system sys;
    struct ts_err err;
    assert_int_equal(ts_system_load("dgx-h100", &sys, &err), TS_OK);
    struct ts_nccl_table t = {.coll = TS_COLL_ALLREDUCE, .ranks = 8, .nodes = 2, .n = 1};
    snprintf(t.file, sizeof t.file, "half.txt");
    t.pts[0].bytes = 1e6;
    t.pts[0].time_s = 1e-4;
    struct ts_system fitted;
    struct ts_nccl_fit_report rep;
    assert_int_equal(ts_nccl_fit(&sys, &t, 1, &fitted, &rep, &err), TS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "half.txt"));
    assert_non_null(strstr(err.msg, "every GPU of each node"));
}

/* ---------------------------------------------------------------- GEMM CSV */

static void gemm_rows_become_efficiencies_of_the_peak(void **state)
{
    (void)state;
    struct ts_accel a;
    struct ts_err err;
    assert_int_equal(ts_accel_load("h100-sxm", &a, &err), TS_OK);   /* bf16 989, fp8 1979 TFLOP/s */
    const char *csv = "# a cuBLAS sweep\n"
                      "M,N,K,dtype,time_us\n"
                      "8192,8192,8192,bf16,1600\n"             /* 2 x 8192^3 / 1.6 ms = 687.2 TF */
                      "4096,4096,4096,\"torch.bfloat16\",250\n" /* 549.8 TF */
                      "8192,8192,8192,fp8,900\n";               /* 1221.7 TF */
    struct ts_gemmcsv t;
    assert_int_equal(ts_gemmcsv_parse(csv, strlen(csv), "g.csv", &a, -1, &t, &err), TS_OK);
    assert_int_equal(t.n, 3);
    assert_int_equal(t.per_precision[TS_PREC_BF16], 2);
    assert_int_equal(t.per_precision[TS_PREC_FP8], 1);
    double f = 2.0 * 8192.0 * 8192.0 * 8192.0;
    assert_close(t.rows[0].efficiency, f / 1600e-6 / 989e12, 1e-12, 0);
    assert_close(t.rows[1].efficiency, 2.0 * 4096.0 * 4096.0 * 4096.0 / 250e-6 / 989e12, 1e-12, 0);
    assert_close(t.rows[2].efficiency, f / 900e-6 / 1979e12, 1e-12, 0);
    cJSON *curve = ts_gemmcsv_curve_json(&t, TS_PREC_BF16);
    assert_int_equal(cJSON_GetArraySize(curve), 2);
    assert_close(cJSON_GetObjectItem(cJSON_GetArrayItem(curve, 0), "m")->valuedouble, 8192, 0, 0);
    cJSON_Delete(curve);
    ts_gemmcsv_free(&t);
    /* TFLOP/s column and the default precision. */
    const char *tf = "m,n,k,tflops\n1024,1024,1024,494.5\n";
    assert_int_equal(ts_gemmcsv_parse(tf, strlen(tf), "t.csv", &a, TS_PREC_BF16, &t, &err), TS_OK);
    assert_close(t.rows[0].efficiency, 494.5 / 989.0, 1e-12, 0);
    ts_gemmcsv_free(&t);
}

static void many_gemm_sizes_are_binned_by_quarter_decades(void **state)
{
    (void)state;
    struct ts_accel a;
    struct ts_err err;
    assert_int_equal(ts_accel_load("h100-sxm", &a, &err), TS_OK);
    struct ts_buf b;
    ts_buf_init(&b);
    ts_buf_printf(&b, "m,n,k,dtype,tflops\n");
    for (int m = 64; m <= 64 * 100; m += 64)           /* 100 distinct sizes */
        ts_buf_printf(&b, "%d,4096,4096,bf16,%.1f\n", m, 400.0);
    struct ts_gemmcsv t;
    assert_int_equal(ts_gemmcsv_parse(b.data, b.len, "many.csv", &a, -1, &t, &err), TS_OK);
    cJSON *curve = ts_gemmcsv_curve_json(&t, TS_PREC_BF16);
    /* FLOPs from 2*64*4096^2 = 2.1e9 to 2.1e11: two decades -> 9 quarter-decade bins at most */
    int n = cJSON_GetArraySize(curve);
    assert_true(n >= 8 && n <= 9);
    for (int i = 0; i < n; i++)
        assert_close(cJSON_GetArrayItem(cJSON_GetArrayItem(curve, i), 1)->valuedouble,
                     0.4044, 0, 1e-4);              /* 400 / 989, rounded to 4 digits */
    cJSON_Delete(curve);
    ts_gemmcsv_free(&t);
    ts_buf_free(&b);
}

static void impossible_gemm_rows_are_refused_with_their_line(void **state)
{
    (void)state;
    struct ts_accel a;
    struct ts_err err;
    struct ts_gemmcsv t;
    assert_int_equal(ts_accel_load("h100-sxm", &a, &err), TS_OK);
    const char *fast = "m,n,k,dtype,tflops\n8192,8192,8192,bf16,1200\n";
    assert_int_equal(ts_gemmcsv_parse(fast, strlen(fast), "f.csv", &a, -1, &t, &err), TS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "f.csv:2:"));
    assert_non_null(strstr(err.msg, "faster than"));
    const char *tf32 = "m,n,k,dtype,time_ms\n8192,8192,8192,tf32,3\n";
    assert_int_equal(ts_gemmcsv_parse(tf32, strlen(tf32), "t.csv", &a, -1, &t, &err), TS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "tf32"));
    const char *nomeas = "m,n,k,dtype\n1,1,1,bf16\n";
    assert_int_equal(ts_gemmcsv_parse(nomeas, strlen(nomeas), "n.csv", &a, -1, &t, &err), TS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "exactly one measurement column"));
    const char *nodtype = "m,n,k,time_s\n1,1,1,1\n";
    assert_int_equal(ts_gemmcsv_parse(nodtype, strlen(nodtype), "d.csv", &a, -1, &t, &err), TS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "--precision"));
    const char *frac = "m,n,k,dtype,time_s\n1.5,1,1,bf16,1\n";
    assert_int_equal(ts_gemmcsv_parse(frac, strlen(frac), "x.csv", &a, -1, &t, &err), TS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "x.csv:2: m:"));
    const char *ragged = "m,n,k,dtype,time_s\n1,1,1,bf16\n";
    assert_int_equal(ts_gemmcsv_parse(ragged, strlen(ragged), "r.csv", &a, -1, &t, &err), TS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "4 fields, the header has 5"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(real_two_node_file_parses_to_its_ranks_hosts_and_rows),
        cmocka_unit_test(mpi_launcher_prefixes_are_stripped),
        cmocka_unit_test(a_table_whose_bus_factor_is_another_collectives_is_refused),
        cmocka_unit_test(tables_printed_from_known_levels_fit_back_to_them),
        cmocka_unit_test(real_two_node_all_reduce_fits_inside_the_bounds),
        cmocka_unit_test(a_multi_node_table_must_fill_its_nodes),
        cmocka_unit_test(gemm_rows_become_efficiencies_of_the_peak),
        cmocka_unit_test(many_gemm_sizes_are_binned_by_quarter_decades),
        cmocka_unit_test(impossible_gemm_rows_are_refused_with_their_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
