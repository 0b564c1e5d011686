/*
 * A stand-in for the CUDA runtime and cuBLAS, for tests only: it lets the tests of
 * `trainsim calibrate --gpu` run the real loader, timing loop and fit on a machine without a
 * GPU. It is built as libcudart.so.12 with libcublas.so.12 a link to the same file (so both
 * share one clock), exports the entry points sim/calibrate/gpu.h names with their
 * documented signatures, and computes nothing: a GEMM advances a virtual clock by the time
 * of a deterministic model, and CUDA events read that clock.
 *
 * The time model (tests/cli_calibrate_gpu.sh checks the curve it implies):
 *     t(m, n, k) = F / (R F / (F + F_HALF)) + LAUNCH_S,   F = 2 m n k
 * with R = 600 TFLOP/s for bf16, 500 for fp16 and 40 for fp32, F_HALF = 2e9 FLOPs and
 * LAUNCH_S = 4 us.
 *
 * It also checks how it is called, as the real libraries would fail: device pointers must
 * come from cudaMalloc and every operand must lie inside its allocation (lda >= m etc.), the
 * types must agree and be bf16, fp16 or fp32 with CUBLAS_COMPUTE_32F, and an elapsed time
 * is only available once the end event was synchronized. Environment: TS_STANDIN_DEVICES
 * (devices reported, default 1), TS_STANDIN_MEMORY (bytes the device holds, default 80 GiB).
 * Device memory is not allocated: pointers are addresses in a reserved-nowhere range.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define F_HALF 2e9
#define LAUNCH_S 4e-6

static double clock_s;              // the virtual GPU clock
static int current_device;

struct alloc {
    uintptr_t base;
    size_t bytes;
};
static struct alloc allocs[64];
static int n_allocs;
static uintptr_t next_base = (uintptr_t)1 << 40;
static size_t in_use;

struct event {
    double t;
    int recorded, synchronized;
};

static long env_long(const char *name, long dflt)
{
    const char *v = getenv(name);
    return v && *v ? strtol(v, NULL, 10) : dflt;
}

/* The allocation holding [p, p + bytes), or NULL. */
static const struct alloc *find(const void *p, size_t bytes)
{
    uintptr_t a = (uintptr_t)p;
    for (int i = 0; i < n_allocs; i++)
        if (a >= allocs[i].base && a + bytes <= allocs[i].base + allocs[i].bytes)
            return &allocs[i];
    return NULL;
}

/* ---------------------------------------------------------------- runtime */

int cudaGetDeviceCount(int *count);
int cudaSetDevice(int device);
int cudaMalloc(void **p, size_t bytes);
int cudaFree(void *p);
int cudaMemcpy(void *dst, const void *src, size_t bytes, int kind);
int cudaDeviceSynchronize(void);
int cudaEventCreate(void **e);
int cudaEventRecord(void *e, void *stream);
int cudaEventSynchronize(void *e);
int cudaEventElapsedTime(float *ms, void *start, void *end);
int cudaEventDestroy(void *e);
const char *cudaGetErrorString(int e);

int cudaGetDeviceCount(int *count)
{
    *count = (int)env_long("TS_STANDIN_DEVICES", 1);
    return *count > 0 ? 0 : 100;    /* cudaErrorNoDevice */
}

int cudaSetDevice(int device)
{
    if (device < 0 || device >= env_long("TS_STANDIN_DEVICES", 1))
        return 101;                 /* cudaErrorInvalidDevice */
    current_device = device;
    return 0;
}

int cudaMalloc(void **p, size_t bytes)
{
    size_t limit = (size_t)env_long("TS_STANDIN_MEMORY", 80L << 30);
    if (bytes == 0 || in_use + bytes > limit || n_allocs == 64)
        return 2;                   /* cudaErrorMemoryAllocation */
    allocs[n_allocs++] = (struct alloc){.base = next_base, .bytes = bytes};
    *p = (void *)next_base;
    next_base += (bytes + 4095) / 4096 * 4096 + 4096;
    in_use += bytes;
    return 0;
}

int cudaFree(void *p)
{
    for (int i = 0; i < n_allocs; i++)
        if (allocs[i].base == (uintptr_t)p) {
            in_use -= allocs[i].bytes;
            allocs[i] = allocs[--n_allocs];
            return 0;
        }
    return 1;                       /* cudaErrorInvalidValue */
}

int cudaMemcpy(void *dst, const void *src, size_t bytes, int kind)
{
    if (kind != 1 || bytes == 0 || !find(dst, bytes) || !src)
        return 1;
    /* Read the source across its whole length, as a copy would (a short host buffer shows
     * under ASan and valgrind): every 64th byte and the last. */
    volatile unsigned char sum = 0;
    const unsigned char *s = src;
    for (size_t i = 0; i < bytes; i += 64)
        sum = (unsigned char)(sum + s[i]);
    sum = (unsigned char)(sum + s[bytes - 1]);
    (void)sum;
    return 0;
}

int cudaDeviceSynchronize(void)
{
    return 0;
}

int cudaEventCreate(void **e)
{
    *e = calloc(1, sizeof(struct event));
    return *e ? 0 : 2;
}

int cudaEventRecord(void *e, void *stream)
{
    if (!e || stream)
        return 400;                 /* cudaErrorInvalidResourceHandle */
    struct event *ev = e;
    ev->t = clock_s;
    ev->recorded = 1;
    ev->synchronized = 0;
    return 0;
}

int cudaEventSynchronize(void *e)
{
    struct event *ev = e;
    if (!ev || !ev->recorded)
        return 400;
    ev->synchronized = 1;
    return 0;
}

int cudaEventElapsedTime(float *ms, void *start, void *end)
{
    struct event *a = start, *b = end;
    if (!a || !b || !a->recorded || !b->recorded)
        return 400;
    if (!b->synchronized)
        return 600;                 /* cudaErrorNotReady */
    *ms = (float)((b->t - a->t) * 1e3);
    return 0;
}

int cudaEventDestroy(void *e)
{
    free(e);
    return 0;
}

const char *cudaGetErrorString(int e)
{
    switch (e) {
    case 0: return "no error";
    case 1: return "invalid argument";
    case 2: return "out of memory";
    case 100: return "no CUDA-capable device is detected";
    case 101: return "invalid device ordinal";
    case 400: return "invalid resource handle";
    case 600: return "device not ready";
    default: return "unknown error";
    }
}

/* ---------------------------------------------------------------- cuBLAS */

static int handle_token;

int cublasCreate_v2(void **h);
int cublasDestroy_v2(void *h);
int cublasGemmEx(void *h, int ta, int tb, int m, int n, int k, const void *alpha, const void *A,
                 int at, int lda, const void *B, int bt, int ldb, const void *beta, void *C,
                 int ct, int ldc, int compute, int algo);

int cublasCreate_v2(void **h)
{
    *h = &handle_token;
    return 0;
}

int cublasDestroy_v2(void *h)
{
    return h == &handle_token ? 0 : 1;  /* CUBLAS_STATUS_NOT_INITIALIZED */
}

int cublasGemmEx(void *h, int ta, int tb, int m, int n, int k, const void *alpha, const void *A,
                 int at, int lda, const void *B, int bt, int ldb, const void *beta, void *C,
                 int ct, int ldc, int compute, int algo)
{
    enum { INVALID = 7, NOT_SUPPORTED = 15 };
    if (h != &handle_token)
        return 1;
    if (ta != 0 || tb != 0 || m < 1 || n < 1 || k < 1 || !alpha || !beta || lda < m ||
        ldb < k || ldc < m || algo != -1)
        return INVALID;
    if (at != bt || at != ct || compute != 68)
        return NOT_SUPPORTED;
    double rate, es;
    switch (at) {
    case 14: rate = 600e12; es = 2; break;     /* CUDA_R_16BF */
    case 2: rate = 500e12; es = 2; break;      /* CUDA_R_16F */
    case 0: rate = 40e12; es = 4; break;       /* CUDA_R_32F */
    default: return NOT_SUPPORTED;
    }
    if (!find(A, (size_t)((double)lda * k * es)) || !find(B, (size_t)((double)ldb * n * es)) ||
        !find(C, (size_t)((double)ldc * n * es)))
        return INVALID;
    float a, b;
    memcpy(&a, alpha, sizeof a);
    memcpy(&b, beta, sizeof b);
    if (a != 1.0f || b != 0.0f)
        return INVALID;
    double f = 2.0 * m * n * k;
    clock_s += f / (rate * f / (f + F_HALF)) + LAUNCH_S;
    return 0;
}
