/*
 * nccl: measured collectives as people already have them - the text output of NVIDIA's
 * nccl-tests (all_reduce_perf, all_gather_perf, reduce_scatter_perf, alltoall_perf,
 * sendrecv_perf; single and multi node) - read and fitted into a system file. Behind
 * `trainsim calibrate --nccl-tests`.
 *
 * Reading (ts_nccl_parse): the format nccl-tests prints (its README, "Performance reported by
 * NCCL tests"): "#  Rank  N ... on HOST device D ..." lines name the ranks and their hosts,
 * then one line per size: size (B), count, type, redop, root, then out-of-place time (us),
 * algbw, busbw (GB/s), #wrong, and the same four in place. Lines may carry an MPI launcher's
 * prefix ("[1,0]<stdout>:"); comment lines, NCCL INFO lines and other text are skipped. The
 * out-of-place time of each size is used (in-place is the same collective on one buffer).
 * Sizes of 0 bytes are skipped. The collective is named by the caller or by the file's name
 * (all_reduce, all_gather, reduce_scatter, alltoall, sendrecv), checked against the ratio
 * busbw / algbw the file itself prints (2(n-1)/n for all-reduce, (n-1)/n for all-gather,
 * reduce-scatter and all-to-all, 1 for send/recv).
 *
 * Fitting (ts_nccl_fit): trainsim's own collective model (sim/comm: the algorithm and the
 * protocol - LL, LL128, Simple - NCCL would choose, alpha-beta per level) predicts every
 * measured point on the base system; the fitted latency stays the level's Simple step, LL /
 * LL128 steps following by NCCL's ratios, so system files keep their keys; the fit
 * adjusts the level each table exercises - scale-up for single-node tables, scale-out for
 * tables that span nodes - minimising the mean squared log error of the times over that
 * level's points: its bandwidth efficiency, its per-step latency and, where the level reduces
 * in the network, its reduction efficiency, by coordinate descent with golden-section
 * searches in log space (bounds: efficiency 0.05..1, latency 0.1 us..2 ms, reduction 0.05..1).
 * Single-node tables are fitted first, so the scale-out fit sees the fitted scale-up level.
 * Pure and thread safe.
 */
#ifndef TS_CALIBRATE_NCCL_H
#define TS_CALIBRATE_NCCL_H

#include "comm/comm.h"
#include "spec/spec.h"
#include "util/util.h"

#define TS_NCCL_POINTS_MAX 64
#define TS_NCCL_TABLES_MAX 16

struct ts_nccl_point {
    double bytes;       // the size column, e.g. 8589934592
    double time_s;      // out-of-place time, e.g. 47535e-6
    double algbw;       // bytes/s as printed (GB/s x 1e9)
    double busbw;       // bytes/s as printed
};

struct ts_nccl_table {
    char file[512];             // where it was read
    enum ts_coll coll;          // the collective
    int ranks;                  // ranks listed ("#  Rank N ..."), e.g. 16
    int nodes;                  // distinct hosts among them, e.g. 2
    int n;                      // points
    struct ts_nccl_point pts[TS_NCCL_POINTS_MAX];
};

/* The collective a file name names ("all_reduce_perf.txt" -> TS_COLL_ALLREDUCE; also
 * all-reduce / allreduce spellings), or -1. */
int ts_nccl_coll_from_name(const char *name);

/* Read nccl-tests output `text` (len bytes) of collective `coll` (-1: from `file`'s name).
 * Errors (exit-2 kind) name the file and the line: no rank lines, no data lines, a data line
 * that does not parse or is longer than 1023 bytes, a rank listed on two hosts, more than 1024
 * hosts, a busbw/algbw ratio that contradicts the collective, too many points. */
int ts_nccl_parse(const char *text, size_t len, const char *file, int coll,
                  struct ts_nccl_table *out, struct ts_err *err);

struct ts_nccl_fit_level {
    bool fitted;                // some table exercised this level
    int points;                 // measured points used
    double efficiency_before, efficiency_after;
    double latency_before_s, latency_after_s;
    double reduction_before, reduction_after;   // only with in-network reduction
    double rms_log_before, rms_log_after;       // RMS of ln(predicted / measured)
    bool at_bound;              // a fitted value ended at a search bound: the model cannot
                                //   reproduce these measurements with its algorithms
};

struct ts_nccl_fit_report {
    struct ts_nccl_fit_level up, out;
};

/* Fit `base` to the tables (see the header comment); *fitted is base with the fitted level
 * parameters. A table whose ranks do not fit the system (more ranks per node than GPUs per
 * node; a multi-node table whose ranks per node differ from gpus_per_node, since the model
 * places ranks node by node) is an error naming its file. */
int ts_nccl_fit(const struct ts_system *base, const struct ts_nccl_table *tables, int n_tables,
                struct ts_system *fitted, struct ts_nccl_fit_report *report, struct ts_err *err);

/* Predicted time of a table's point on `sys` (the model the fit uses). */
double ts_nccl_predict(const struct ts_system *sys, const struct ts_nccl_table *t, double bytes);

#endif
