/*
 * The sweep's processes (see shard.h): MPI when built with TS_MPI and launched by an MPI
 * launcher, one rank otherwise.
 */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "search/shard.h"

#ifdef TS_MPI
#include <mpi.h>
#endif

static int shard_rank_v, shard_size_v = 1;
static int saved_rank = -1, saved_size;     // during ts_shard_local_begin .. _end
#ifdef TS_MPI
static bool shard_started;
#endif

/* The environment an MPI launcher gives its processes: Open MPI's mpirun, and the PMI and
 * PMIx interfaces that MPICH's mpiexec and Slurm's srun (--mpi=pmi2, --mpi=pmix) use. */
static bool launched(long *size)
{
    static const char *const size_vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"};
    static const char *const rank_vars[] = {"PMI_RANK", "PMIX_RANK"};
    bool any = false;
    *size = 1;
    for (size_t i = 0; i < TS_ARRAY_LEN(size_vars); i++) {
        const char *v = getenv(size_vars[i]);
        if (v && v[0]) {
            any = true;
            long n = strtol(v, NULL, 10);
            if (n > *size)
                *size = n;
        }
    }
    for (size_t i = 0; i < TS_ARRAY_LEN(rank_vars); i++) {
        const char *v = getenv(rank_vars[i]);
        if (v && v[0]) {
            any = true;
            if (strtol(v, NULL, 10) > 0 && *size < 2)
                *size = 2;      /* a rank above 0: there are several */
        }
    }
    return any;
}

int ts_shard_init(int *argc, char ***argv, struct ts_err *err)
{
    long n;
    bool by_launcher = launched(&n);
#ifdef TS_MPI
    (void)n;
    if (!by_launcher || shard_started)
        return TS_OK;
    int provided;
    if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
        return ts_err_set(err, TS_ERR_RUNTIME, "MPI could not start (MPI_Init_thread failed)");
    shard_started = true;
    MPI_Comm_rank(MPI_COMM_WORLD, &shard_rank_v);
    MPI_Comm_size(MPI_COMM_WORLD, &shard_size_v);
    return TS_OK;
#else
    (void)argc;
    (void)argv;
    if (by_launcher && n > 1)
        return ts_err_set(err, TS_ERR_INPUT, "this trainsim was built without MPI, so each of the "
                          "%ld processes the launcher started would run the whole sweep; build "
                          "with cmake -DTS_MPI=ON (README \"MPI\") or run it as one process", n);
    return TS_OK;
#endif
}

void ts_shard_finalize(void)
{
#ifdef TS_MPI
    if (shard_started) {
        MPI_Finalize();
        shard_started = false;
        shard_rank_v = 0;
        shard_size_v = 1;
    }
#endif
}

int ts_shard_rank(void)
{
    return shard_rank_v;
}

int ts_shard_size(void)
{
    return shard_size_v;
}

#ifdef TS_MPI
/* Items of rank r among n dealt round robin over `size` ranks. */
static long items_of(long n, int r, int size)
{
    return n > r ? (n - r + size - 1) / size : 0;
}
#endif

void ts_shard_gather(void *base, long n, size_t size)
{
    if (shard_size_v == 1 || n <= 0)
        return;
#ifdef TS_MPI
    int np = shard_size_v, me = shard_rank_v;
    char *b = base;
    int *counts = ts_xmalloc((size_t)np * sizeof *counts);
    int *displs = ts_xmalloc((size_t)np * sizeof *displs);
    long total = 0;
    for (int r = 0; r < np; r++) {
        long bytes = items_of(n, r, np) * (long)size;
        TS_ASSERT(bytes <= INT_MAX && total <= INT_MAX - bytes,
                  "shard: %ld items of %zu bytes are too many for one exchange", n, size);
        counts[r] = (int)bytes;
        displs[r] = (int)total;
        total += bytes;
    }
    char *packed = ts_xmalloc((size_t)(total ? total : 1));
    char *mine = packed + displs[me];
    for (long i = me, j = 0; i < n; i += np, j++)
        memcpy(mine + (size_t)j * size, b + (size_t)i * size, size);
    MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, packed, counts, displs, MPI_BYTE,
                   MPI_COMM_WORLD);
    for (int r = 0; r < np; r++) {
        const char *from = packed + displs[r];
        for (long i = r, j = 0; i < n; i += np, j++)
            memcpy(b + (size_t)i * size, from + (size_t)j * size, size);
    }
    free(packed);
    free(displs);
    free(counts);
#else
    (void)base;
    (void)size;
#endif
}

bool ts_shard_any(bool local)
{
    if (shard_size_v == 1)
        return local;
#ifdef TS_MPI
    int v = local, any = 0;
    MPI_Allreduce(&v, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    return any != 0;
#else
    return local;
#endif
}

int ts_shard_max(int v)
{
    if (shard_size_v == 1)
        return v;
#ifdef TS_MPI
    int m = v;
    MPI_Allreduce(&v, &m, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return m;
#else
    return v;
#endif
}

int ts_shard_agree(int rc)
{
    if (shard_size_v == 1)
        return rc;
#ifdef TS_MPI
    int *all = ts_xmalloc((size_t)shard_size_v * sizeof *all);
    MPI_Allgather(&rc, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
    int first = 0;
    for (int r = 0; r < shard_size_v && !first; r++)
        first = all[r];
    free(all);
    return first;
#else
    return rc;
#endif
}

void ts_shard_local_begin(void)
{
    TS_ASSERT(saved_rank < 0, "shard: ts_shard_local_begin nested");
    saved_rank = shard_rank_v;
    saved_size = shard_size_v;
    shard_rank_v = 0;
    shard_size_v = 1;
}

void ts_shard_local_end(void)
{
    TS_ASSERT(saved_rank >= 0, "shard: ts_shard_local_end without ts_shard_local_begin");
    shard_rank_v = saved_rank;
    shard_size_v = saved_size;
    saved_rank = -1;
}
