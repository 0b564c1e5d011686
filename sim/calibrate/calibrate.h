/*
 * calibrate: measure this host's CPU with OpenBLAS and describe it as an accelerator, so that
 * trainsim's GEMM model can be checked against real kernels (DESIGN section 3,
 * "BLAS-calibrated kernel"). Behind `trainsim calibrate`.
 *
 * What is measured (ts_calibrate_measure), within a time budget:
 *   - kernel latency: the median time of an 8 x 8 x 8 SGEMM call (the fixed cost of one
 *     BLAS call: argument checks, dispatch, packing), the CPU's "kernel launch";
 *   - memory bandwidth: STREAM copy (c = a) and triad (a = b + s c; McCalpin, "Memory
 *     Bandwidth and Machine Balance", IEEE TCCA newsletter 1995) over three arrays sized well
 *     above the last-level cache, with OpenMP over the BLAS thread count; bytes counted the
 *     STREAM way (reads + writes, no write-allocate), as trainsim counts a kernel's traffic;
 *     median of repeats;
 *   - single-precision GEMMs (cblas_sgemm, row major, the one CBLAS the project links):
 *     a model layer's shapes first when given, then a generic grid, ascending in FLOPs:
 *     square M = N = K from 64 to max_dim in steps of sqrt(2) (rounded to multiples of 16),
 *     and skinny shapes with one dimension S in {64, 256} and two L in {1024, 4096}.
 *     A discovery pass warms each shape up and takes its first sample (a sample batches
 *     calls until it lasts >= 5 ms, so small GEMMs are not below the clock's resolution),
 *     within 60% of the time left; shapes whose estimated cost no longer fits are skipped
 *     and counted. Rounds over all shapes then add samples until the budget ends (9 per
 *     shape, 5 for samples over 0.1 s): a burst of other work on the host spoils one sample
 *     of many shapes, not all of one. A point's time is the median of its samples.
 *
 * How it is fitted (ts_calibrate_fit, a pure function). trainsim prices a GEMM of F FLOPs
 * (compute.h) as
 *     t = max(F / (P e(F)), input bytes / B) + output bytes / B + L
 * with P the peak, e the efficiency curve, B the memory bandwidth and L the kernel latency.
 * The fit inverts that formula, so a measured shape is predicted back at its measured time:
 * each point's main-loop time is t_measured - output bytes / B - L, its main-loop rate F /
 * that time. The time is floored at half the measurement: a GEMM whose output would take
 * longer than that to stream at B kept it in cache (small GEMMs on a CPU), where the formula
 * over-predicts anyway, and the floor keeps such a point from inflating the peak. A CPU has no published tensor-core peak, so
 * the reference peak P is the best main-loop rate measured and efficiencies are relative to
 * it (the best shape sits at 1.0; on large GEMMs this P is within ~1-2% of the best raw
 * FLOP/s). The efficiencies are binned by log10(FLOPs) in bins of a quarter decade: each
 * non-empty bin gives one curve point, [geometric-mean FLOPs, median efficiency].
 *
 * The accelerator file (ts_calibrate_accel_json) holds peak_flops.fp32 only: the host runs
 * everything in single precision, so a job on it must say "precision": "fp32" (a bf16 job is
 * rejected by the job validator instead of being silently priced at fp32 rates).
 * memory_bandwidth = triad, memory_efficiency 1.0 (already a measured rate), kernel_latency
 * as measured, memory = physical RAM, memory_reserved 0, flash_attention fwd = bwd = the
 * large-GEMM end of the curve (a CPU has no fused attention kernel; attention is
 * GEMM-shaped work at best). The system file (ts_calibrate_system_json,
 * ts_calibrate_host_system) is one "GPU" per node with nominal links (see there).
 *
 * The layer check (ts_calibrate_layer_*) executes one transformer layer's forward and
 * backward GEMMs with BLAS and compares their measured time with trainsim's prediction for
 * the same GEMMs on an accelerator: a job on the host system, precision fp32, whose
 * struct ts_layer_cost gives fwd.gemm_s + bwd.gemm_s (flash attention, so the attention
 * core is not among the GEMMs).
 *
 * Thread safety: the measuring functions set OpenBLAS's process-wide thread count and use
 * every core they are given; run them alone (timings of concurrent work are noise). The fit
 * and the JSON builders are pure and thread safe.
 */
#ifndef TS_CALIBRATE_H
#define TS_CALIBRATE_H

#include <stdbool.h>
#include <stdio.h>

#include "spec/spec.h"
#include "util/util.h"

#define TS_CALIBRATE_POINTS_MAX 64      // measured shapes at most (grid + a layer's)
#define TS_CALIBRATE_LAYER_GEMMS 16     // GEMMs of one layer's forward + backward at most

/* ---------------------------------------------------------------- shapes and points */

/* One single-precision GEMM, row major: C (m x n) = A (m x k) B (k x n), or C += A B. */
struct ts_calibrate_gemm {
    char label[24];         // what it is, e.g. "square", "skinny", "qkv", "fc1 wgrad"
    int m, n, k;            // dimensions, e.g. 1024 x 2304 x 768
    bool trans_a, trans_b;  // operands stored transposed, as a framework stores them (weights
                            //   out x in: forward X W^T, weight gradient dY^T X)
    bool accumulate;        // C += A B (beta 1): a weight gradient added into fp32 main grads
};

/* Bytes per output element the GEMM's epilogue moves: 4 for a store, 8 for an accumulation
 * (read and write), the out_bytes of compute.h's GEMM formula at fp32. */
double ts_calibrate_gemm_out_bytes(const struct ts_calibrate_gemm *g);

/* 2 m n k. */
double ts_calibrate_gemm_flops(const struct ts_calibrate_gemm *g);

/* One measured GEMM shape. */
struct ts_calibrate_point {
    struct ts_calibrate_gemm gemm;
    double flops;           // 2 m n k, e.g. 2.1e9
    double seconds;         // median time of one call, s
    double flops_per_s;     // flops / seconds, the raw measured rate
    int samples;            // timed samples behind the median
    double efficiency;      // set by ts_calibrate_fit: main-loop rate / peak, in (0, 1]
};

/* ---------------------------------------------------------------- measuring */

struct ts_calibrate_options {
    double seconds;             // time budget of all measurements, s; default 20
    int threads;                // BLAS and STREAM threads; 0 (default) = all online cores
    int max_dim;                // largest dimension of the generic grid, default 4096;
                                //   0 = no generic grid (only the extra shapes)
    double stream_array_bytes;  // bytes per STREAM array; 0 (default) = 4/3 of the last-level
                                //   cache, within [64 MiB, 512 MiB] and at most RAM / 12
    int n_extra;                // shapes measured before the grid (a model layer's GEMMs)
    struct ts_calibrate_gemm extra[TS_CALIBRATE_LAYER_GEMMS];
    FILE *progress;             // one line per phase and per shape; NULL = quiet
};

void ts_calibrate_options_default(struct ts_calibrate_options *o);

/* Everything ts_calibrate_measure learnt about the host. */
struct ts_calibrate_result {
    int n_points;                                   // measured shapes
    struct ts_calibrate_point points[TS_CALIBRATE_POINTS_MAX]; // in measurement order
    int skipped;                                    // shapes left out for lack of time
    double best_flops_per_s;                        // fastest raw rate, FLOP/s, e.g. 5.7e10
    double peak_flops;                              // fitted reference peak (the file's fp32)
    struct ts_gemm_curve curve;                     // fitted efficiency curve
    double copy_bytes_per_s;                        // STREAM copy, median, bytes/s
    double triad_bytes_per_s;                       // STREAM triad, median (memory_bandwidth)
    double stream_array_bytes;                      // bytes per STREAM array used
    double kernel_latency_s;                        // median 8 x 8 x 8 SGEMM call, s
    double memory_bytes;                            // physical RAM, bytes
    int threads;                                    // threads used
    double elapsed_s;                               // wall time of the measurements
    double cpu_share;                               // CPU time / (wall time x threads) while
                                                    //   timing GEMMs: ~1 on an idle host, lower
                                                    //   when other work shared the cores
    char host[64];                                  // host name
    char cpu[128];                                  // "model name" of /proc/cpuinfo
    char blas[192];                                 // openblas_get_config(), e.g.
                                                    //   "OpenBLAS 0.3.21 DYNAMIC_ARCH ... Haswell"
    char date[32];                                  // UTC, e.g. "2025-01-31 12:00 UTC"
};

/* A cpu_share below this means other work shared the cores during the timings (BLAS
 * threads busy-wait between calls, so an idle host gives ~1). */
#define TS_CALIBRATE_BUSY_SHARE 0.85

/* Measure the host and fit (see the top of this file). `r` may be large: allocate it.
 * Fails with TS_ERR_INPUT on bad options, TS_ERR_RUNTIME if memory cannot be allocated or
 * no GEMM could be measured within the budget. */
int ts_calibrate_measure(const struct ts_calibrate_options *o, struct ts_calibrate_result *r,
                         struct ts_err *err);

/* Number of threads a request means: `threads` if > 0, else all online cores. */
int ts_calibrate_threads(int threads);

/* ---------------------------------------------------------------- fitting (pure) */

/* Bin width of the efficiency curve, in decades of FLOPs. */
#define TS_CALIBRATE_BIN_DECADES 0.25

/* Fit trainsim's GEMM model to n measured points (their flops and seconds must be set):
 * sets every point's efficiency, *peak (FLOP/s) and *curve (fitted, ready for
 * ts_gemm_curve_eval). `bandwidth` (bytes/s) and `latency` (s) are the ones the prediction
 * will use. Fails with TS_ERR_INPUT if n < 1 or a point is not positive. */
int ts_calibrate_fit(struct ts_calibrate_point *pts, int n, double bandwidth, double latency,
                     double *peak, struct ts_gemm_curve *curve, struct ts_err *err);

/* ---------------------------------------------------------------- files */

/* The accelerator document for a result (caller frees with cJSON_Delete). `name` is the
 * accelerator's name, e.g. "host-mybox". Loads with ts_accel_parse. */
cJSON *ts_calibrate_accel_json(const struct ts_calibrate_result *r, const char *name);

/* Interconnect of the host as a system: one "GPU" (the whole CPU) per node. scale_up:
 * domain of 1 at the measured memory bandwidth (a copy between two processes on the host is
 * a memory copy), 1 us; scale_out: nominal 10 Gb/s Ethernet, 50 us, fat tree. A one-GPU job
 * (the only honest host run) never uses either; they exist so the file is a valid system. */
#define TS_CALIBRATE_SCALE_OUT_BYTES_PER_S (10e9 / 8)
#define TS_CALIBRATE_SCALE_OUT_LATENCY_S 50e-6
#define TS_CALIBRATE_SCALE_UP_LATENCY_S 1e-6

/* The system document: `accel_ref` is a reference string (a path) to the accelerator file,
 * or NULL to embed `accel` inline. `memory_bandwidth` sets scale_up's bandwidth. */
cJSON *ts_calibrate_system_json(const char *name, const char *accel_ref, const cJSON *accel,
                                double memory_bandwidth);

/* The same system as a struct, around an accelerator already loaded. */
void ts_calibrate_host_system(const struct ts_accel *a, struct ts_system *out);

/* Print a document (2-space indentation) and write it to path atomically. TS_ERR_RUNTIME if
 * the file cannot be written. */
int ts_calibrate_json_write(const cJSON *doc, const char *path, struct ts_err *err);

/* ---------------------------------------------------------------- layer check */

/* One transformer layer's GEMMs for one microbatch on one GPU of a tp-way group, measured and
 * predicted. */
struct ts_calibrate_layer {
    struct ts_model model;          // the model, seq_len set to the checked sequence length
    int tp;                         // tensor-parallel size the shapes are sharded for, e.g. 1
    int microbatch;                 // sequences per microbatch, e.g. 1
    int n;                          // GEMMs: 4 forward + 8 backward
    struct ts_calibrate_gemm gemm[TS_CALIBRATE_LAYER_GEMMS];
    double measured_s[TS_CALIBRATE_LAYER_GEMMS];  // median time of each GEMM
    double predicted_s[TS_CALIBRATE_LAYER_GEMMS]; // trainsim's time of each GEMM
    double measured_total_s;        // median time of the whole sequence of GEMMs
    double predicted_total_s;       // fwd.gemm_s + bwd.gemm_s of the layer's struct ts_layer_cost
    double flops;                   // FLOPs of all the GEMMs
    int samples;                    // timed passes behind the medians
    double cpu_share;               // CPU time / (wall time x threads) over the timed passes
};

/* The GEMMs of one layer of `m` at tensor parallelism tp, `microbatch` sequences of `seq`
 * tokens (0 = the model's seq_len), in execution order: forward QKV, projection, MLP (fc1,
 * fc2; SwiGLU: gate+up, down), then backward in reverse, data gradient then weight gradient
 * of each: the shapes of compute.c. Writes *n GEMMs to out. TS_ERR_INPUT if tp does not
 * divide heads and ffn_hidden, or a size is out of range. */
int ts_calibrate_layer_gemms(const struct ts_model *m, int tp, int microbatch, int seq,
                             struct ts_calibrate_gemm out[TS_CALIBRATE_LAYER_GEMMS], int *n,
                             struct ts_err *err);

/* Set up a check of one layer (fills model, tp, microbatch, n, gemm; zeroes the rest). */
int ts_calibrate_layer_init(struct ts_calibrate_layer *L, const struct ts_model *m, int tp,
                            int microbatch, int seq, struct ts_err *err);

/* Execute the layer's GEMMs with BLAS on `threads` threads (0 = all cores): one warm-up
 * pass, then up to 7 timed passes within `seconds` (at least one). Fills measured_s,
 * measured_total_s, samples. TS_ERR_RUNTIME if memory cannot be allocated. */
int ts_calibrate_layer_measure(struct ts_calibrate_layer *L, int threads, double seconds,
                               struct ts_err *err);

/* trainsim's prediction on accelerator `a`: builds a job (the host system around `a`,
 * precision fp32, tp GPUs, pp 1, flash attention) and fills predicted_total_s from the
 * compute module's layer cost and predicted_s from ts_compute_gemm_time. TS_ERR_INPUT if
 * the accelerator has no fp32 peak or the job does not validate. */
int ts_calibrate_layer_predict(struct ts_calibrate_layer *L, const struct ts_accel *a,
                               struct ts_err *err);

#endif
