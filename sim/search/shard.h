/*
 * shard: a sweep spread over processes with MPI (built with -DTS_MPI=ON; README "MPI").
 *
 * Every process (rank) runs the same sweep and holds the same search state; only the work
 * is split. Each parallel step of the sweep (a chunk of screened layouts, a batch of
 * simulations, a group of finalists' Monte Carlo runs) is an array of items indexed
 * 0..n-1: rank r computes the items i with i % size == r (round robin, so neighbouring
 * layouts of unequal cost spread over the ranks), and ts_shard_gather hands every rank the
 * whole array in index order. The steps that follow (sinks, bounds, pruning, ranking) then
 * run on identical data on every rank, in the same order as in one process, so the search
 * makes the same decisions, simulates the same candidates and gives the same bytes for any
 * number of ranks. Stop requests (signals) arrive on each rank at its own moment: every
 * place the sweep polls them is a collective ts_shard_any, so all ranks stop at the same
 * batch boundary with the same finished work.
 *
 * Without TS_MPI (the default build), or when the process was not started by an MPI
 * launcher (mpirun, mpiexec, srun), there is one rank and every function is trivial. MPI is
 * started only when a launcher's environment is present (OMPI_COMM_WORLD_SIZE, PMI_RANK,
 * PMI_SIZE or PMIX_RANK), so a TS_MPI build run plainly behaves as the default one.
 *
 * Thread safety: call from the main thread only (MPI_THREAD_FUNNELED); every function but
 * ts_shard_rank and ts_shard_size is collective (all ranks call it, in the same order).
 */
#ifndef TS_SHARD_H
#define TS_SHARD_H

#include <stdbool.h>
#include <stddef.h>

#include "util/util.h"

/* Start MPI when launched by an MPI launcher (see above). TS_ERR_INPUT, with a message, when
 * a launcher started several processes of a build without MPI (each would run the whole
 * sweep and print it). Call once, before any other ts_shard function. */
int ts_shard_init(int *argc, char ***argv, struct ts_err *err);

/* End MPI if ts_shard_init started it. */
void ts_shard_finalize(void);

int ts_shard_rank(void);    // this process's rank, 0..size-1 (0 without MPI)
int ts_shard_size(void);    // number of ranks (1 without MPI)

/* Complete base[0..n-1] (items of `size` bytes) on every rank, where rank r computed the
 * items i with i % ts_shard_size() == r. Returns at once with one rank. */
void ts_shard_gather(void *base, long n, size_t size);

/* Whether `local` is true on any rank (the same answer on every rank). */
bool ts_shard_any(bool local);

/* The largest of every rank's v. */
int ts_shard_max(int v);

/* The status to end with: the first non-zero rc in rank order (0 when all are 0). */
int ts_shard_agree(int rc);

/* Between ts_shard_local_begin and ts_shard_local_end this rank works alone: ts_shard_size()
 * is 1, ts_shard_rank() 0 and every collective returns at once, so a whole item of a coarser
 * split (one perturbed sweep of `trainsim sensitivity`, search/sensitivity.h) can run as a
 * one-process sweep on one rank while the other ranks run other items. The items are then
 * exchanged with ts_shard_gather after ts_shard_local_end. Not nested; not collective. */
void ts_shard_local_begin(void);
void ts_shard_local_end(void);

#endif
