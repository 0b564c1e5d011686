/*
 * cuBLAS GEMM timing through a CUDA runtime loaded at run time (gpu.h is the manual).
 */
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate/gpu.h"

/* ---------------------------------------------------------------- the grid */

static int add_shape(struct ts_gpu_shape *out, int n, int cap, int m, int nn, int k, int prec)
{
    for (int i = 0; i < n; i++)
        if (out[i].m == m && out[i].n == nn && out[i].k == k && out[i].precision == prec)
            return n;
    if (n < cap)
        out[n++] = (struct ts_gpu_shape){.m = m, .n = nn, .k = k, .precision = prec};
    return n;
}

int ts_gpu_grid(int max_dim, const int *precisions, int n_prec, struct ts_gpu_shape *out,
                int cap)
{
    int n = 0;
    for (int p = 0; p < n_prec; p++) {
        for (int i = 0;; i++) {
            double d = 256.0 * pow(2.0, 0.5 * i);
            int dim = (int)(64.0 * floor(d / 64.0 + 0.5));
            if (dim > max_dim)
                break;
            n = add_shape(out, n, cap, dim, dim, dim, precisions[p]);
        }
        static const int S[] = {256, 1024}, L[] = {4096, 16384};
        for (int s = 0; s < 2; s++)
            for (int l = 0; l < 2; l++) {
                if (L[l] > max_dim)
                    continue;
                n = add_shape(out, n, cap, S[s], L[l], L[l], precisions[p]);
                n = add_shape(out, n, cap, L[l], S[s], L[l], precisions[p]);
                n = add_shape(out, n, cap, L[l], L[l], S[s], precisions[p]);
            }
    }
    return n;
}

/* ---------------------------------------------------------------- loading */

/* NVIDIA's types, as the entry points below use them (gpu.h cites the documentation). */
typedef int cuda_error;             // cudaError_t
typedef void *cuda_event;           // cudaEvent_t (a pointer to an opaque struct)
typedef void *cublas_handle;        // cublasHandle_t
enum {
    CUDA_SUCCESS_ = 0, CUDA_MEMCPY_HOST_TO_DEVICE = 1,
    CUDA_R_32F_ = 0, CUDA_R_16F_ = 2, CUDA_R_16BF_ = 14,
    CUBLAS_OP_N_ = 0, CUBLAS_COMPUTE_32F_ = 68, CUBLAS_GEMM_DEFAULT_ = -1,
};

struct ts_gpu_lib {
    void *cudart, *cublas;
    char names[256];
    cuda_error (*get_device_count)(int *);
    cuda_error (*set_device)(int);
    cuda_error (*malloc_)(void **, size_t);
    cuda_error (*free_)(void *);
    cuda_error (*memcpy_)(void *, const void *, size_t, int);
    cuda_error (*device_synchronize)(void);
    cuda_error (*event_create)(cuda_event *);
    cuda_error (*event_record)(cuda_event, void *);
    cuda_error (*event_synchronize)(cuda_event);
    cuda_error (*event_elapsed_time)(float *, cuda_event, cuda_event);
    cuda_error (*event_destroy)(cuda_event);
    const char *(*get_error_string)(cuda_error);
    int (*cublas_create)(cublas_handle *);
    int (*cublas_destroy)(cublas_handle);
    int (*gemm_ex)(cublas_handle, int, int, int, int, int, const void *, const void *, int, int,
                   const void *, int, int, const void *, void *, int, int, int, int);
};

/* dlopen `name` from `dir` when given, else by the loader's search; a failure appends the
 * path tried to `tried`. */
static void *open_lib(const char *dir, const char *name, struct ts_buf *tried)
{
    char path[4096];
    if (dir)
        snprintf(path, sizeof path, "%s/%s", dir, name);
    else
        snprintf(path, sizeof path, "%s", name);
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h)
        ts_buf_printf(tried, "%s%s", tried->len ? ", " : "", path);
    return h;
}

/* Look up one symbol into a function pointer (memcpy: ISO C has no cast from void * to a
 * function pointer; POSIX guarantees the representations agree). */
static bool sym(void *lib, const char *name, void *fn_ptr, size_t size, const char **missing)
{
    void *p = dlsym(lib, name);
    if (!p) {
        *missing = name;
        return false;
    }
    memcpy(fn_ptr, &p, size);
    return true;
}
#define SYM(lib, name, field) sym(lib, name, &(field), sizeof(field), &missing)

int ts_gpu_open(struct ts_gpu_lib **out, struct ts_err *err)
{
    *out = NULL;
    /* The runtime and cuBLAS of one CUDA major version, newest first (CUDA 11's runtime
     * soname is libcudart.so.11.0); the unversioned names of a toolkit's development
     * links last. */
    static const char *const pairs[][2] = {
        {"libcudart.so.13", "libcublas.so.13"},
        {"libcudart.so.12", "libcublas.so.12"},
        {"libcudart.so.11.0", "libcublas.so.11"},
        {"libcudart.so", "libcublas.so"},
    };
    const char *dir = getenv("TRAINSIM_CUDA_PATH");
    if (dir && !dir[0])
        dir = NULL;
    struct ts_gpu_lib *L = ts_xcalloc(1, sizeof *L);
    struct ts_buf tried_rt, tried_bl;
    ts_buf_init(&tried_rt);
    ts_buf_init(&tried_bl);
    const char *rt_name = NULL, *bl_name = NULL, *missing = NULL, *some_rt = NULL;
    int rc = TS_OK;
    for (size_t i = 0; i < TS_ARRAY_LEN(pairs) && !L->cublas; i++) {
        void *rt = open_lib(dir, pairs[i][0], &tried_rt);
        if (!rt)
            continue;
        some_rt = pairs[i][0];
        void *bl = open_lib(dir, pairs[i][1], &tried_bl);
        if (!bl)
            continue;   /* the runtime stays loaded: CUDA libraries are not unloaded */
        L->cudart = rt;
        L->cublas = bl;
        rt_name = pairs[i][0];
        bl_name = pairs[i][1];
    }
    const char *where = dir ? " (in TRAINSIM_CUDA_PATH)" : "";
    if (!some_rt) {
        rc = ts_err_set(err, TS_ERR_RUNTIME,
                        "no CUDA runtime found: tried %s%s (calibrate --gpu needs an NVIDIA "
                        "driver and the CUDA runtime and cuBLAS libraries of CUDA 11, 12 or 13; "
                        "point TRAINSIM_CUDA_PATH or LD_LIBRARY_PATH at their directory)",
                        tried_rt.data, where);
        goto fail;
    }
    if (!L->cublas) {
        rc = ts_err_set(err, TS_ERR_RUNTIME,
                        "no cuBLAS found for the CUDA runtime %s: tried %s%s (install the cuBLAS "
                        "of the same CUDA version, or point TRAINSIM_CUDA_PATH or "
                        "LD_LIBRARY_PATH at its directory)", some_rt, tried_bl.data, where);
        goto fail;
    }
    if (!SYM(L->cudart, "cudaGetDeviceCount", L->get_device_count) ||
        !SYM(L->cudart, "cudaSetDevice", L->set_device) ||
        !SYM(L->cudart, "cudaMalloc", L->malloc_) || !SYM(L->cudart, "cudaFree", L->free_) ||
        !SYM(L->cudart, "cudaMemcpy", L->memcpy_) ||
        !SYM(L->cudart, "cudaDeviceSynchronize", L->device_synchronize) ||
        !SYM(L->cudart, "cudaEventCreate", L->event_create) ||
        !SYM(L->cudart, "cudaEventRecord", L->event_record) ||
        !SYM(L->cudart, "cudaEventSynchronize", L->event_synchronize) ||
        !SYM(L->cudart, "cudaEventElapsedTime", L->event_elapsed_time) ||
        !SYM(L->cudart, "cudaEventDestroy", L->event_destroy) ||
        !SYM(L->cudart, "cudaGetErrorString", L->get_error_string)) {
        rc = ts_err_set(err, TS_ERR_RUNTIME, "%s has no %s: not a CUDA runtime", rt_name,
                        missing);
        goto fail;
    }
    if (!SYM(L->cublas, "cublasCreate_v2", L->cublas_create) ||
        !SYM(L->cublas, "cublasDestroy_v2", L->cublas_destroy) ||
        !SYM(L->cublas, "cublasGemmEx", L->gemm_ex)) {
        rc = ts_err_set(err, TS_ERR_RUNTIME, "%s has no %s: not cuBLAS 11, 12 or 13", bl_name,
                        missing);
        goto fail;
    }
    snprintf(L->names, sizeof L->names, "%s + %s", rt_name, bl_name);
    ts_buf_free(&tried_rt);
    ts_buf_free(&tried_bl);
    *out = L;
    return TS_OK;
fail:
    ts_buf_free(&tried_rt);
    ts_buf_free(&tried_bl);
    ts_gpu_close(L);
    return rc;
}

const char *ts_gpu_lib_names(const struct ts_gpu_lib *lib)
{
    return lib->names;
}

void ts_gpu_close(struct ts_gpu_lib *lib)
{
    /* The libraries stay loaded until the process exits: the CUDA runtime keeps state (its
     * context, allocations of its own) that an unload would strand. */
    free(lib);
}

/* ---------------------------------------------------------------- timing */

void ts_gpu_options_default(struct ts_gpu_options *o)
{
    memset(o, 0, sizeof *o);
    o->samples = 5;
    o->min_sample_s = 0.02;
}

static int cuda_check(const struct ts_gpu_lib *L, cuda_error e, const char *what,
                      struct ts_err *err)
{
    if (e == CUDA_SUCCESS_)
        return TS_OK;
    const char *s = L->get_error_string(e);
    return ts_err_set(err, TS_ERR_RUNTIME, "%s failed: CUDA error %d (%s)", what, e,
                      s ? s : "no description");
}

static size_t elem_bytes(int prec)
{
    return prec == TS_PREC_FP32 ? 4 : 2;
}

/* IEEE half of a float in +-[0.25, 1) (normal, no rounding subtleties needed for test data). */
static uint16_t to_half(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    uint32_t sign = (u >> 16) & 0x8000u;
    int exp = (int)((u >> 23) & 0xff) - 127 + 15;
    uint32_t mant = (u >> 13) & 0x3ffu;
    return (uint16_t)(sign | ((uint32_t)exp << 10) | mant);
}

/* Fill a host buffer with `count` elements of precision `prec`: values in +-[0.25, 1) from a
 * fixed linear congruential sequence (Knuth's MMIX constants). */
static void fill_host(unsigned char *buf, size_t count, int prec)
{
    uint64_t x = 0x9e3779b97f4a7c15u;
    for (size_t i = 0; i < count; i++) {
        x = x * 6364136223846793005u + 1442695040888963407u;
        float v = 0.25f + 0.75f * (float)((x >> 40) & 0xffffff) / 16777216.0f;
        if (x >> 63)
            v = -v;
        if (prec == TS_PREC_FP32) {
            memcpy(buf + 4 * i, &v, 4);
        } else {
            uint16_t h;
            if (prec == TS_PREC_BF16) {
                uint32_t u;
                memcpy(&u, &v, sizeof u);
                h = (uint16_t)(u >> 16);
            } else {
                h = to_half(v);
            }
            memcpy(buf + 2 * i, &h, 2);
        }
    }
}

/* Copy pseudo-random values into a device buffer of `bytes`, in chunks of the host buffer. */
static int fill_device(const struct ts_gpu_lib *L, void *dev, size_t bytes,
                       const unsigned char *host, size_t host_bytes, struct ts_err *err)
{
    for (size_t off = 0; off < bytes; off += host_bytes) {
        size_t n = bytes - off < host_bytes ? bytes - off : host_bytes;
        int rc = cuda_check(L, L->memcpy_((char *)dev + off, host, n, CUDA_MEMCPY_HOST_TO_DEVICE),
                            "cudaMemcpy", err);
        if (rc)
            return rc;
    }
    return TS_OK;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

struct gemm_ctx {
    const struct ts_gpu_lib *L;
    cublas_handle h;
    void *a, *b, *c;
    cuda_event start, stop;
};

static int gemm_once(const struct gemm_ctx *g, const struct ts_gpu_shape *s, struct ts_err *err)
{
    static const float one = 1.0f, zero = 0.0f;
    int type = s->precision == TS_PREC_BF16 ? CUDA_R_16BF_
               : s->precision == TS_PREC_FP16 ? CUDA_R_16F_ : CUDA_R_32F_;
    int st = g->L->gemm_ex(g->h, CUBLAS_OP_N_, CUBLAS_OP_N_, s->m, s->n, s->k, &one, g->a, type,
                           s->m, g->b, type, s->k, &zero, g->c, type, s->m, CUBLAS_COMPUTE_32F_,
                           CUBLAS_GEMM_DEFAULT_);
    if (st == 15)   /* CUBLAS_STATUS_NOT_SUPPORTED */
        return ts_err_set(err, TS_ERR_RUNTIME,
                          "cublasGemmEx %d x %d x %d %s: not supported on this GPU (cuBLAS status "
                          "15; bf16 GEMMs need compute capability 8.0 or newer): time the other "
                          "precisions with --precision fp16 or fp32", s->m, s->n, s->k,
                          ts_precision_names[s->precision]);
    if (st != 0)
        return ts_err_set(err, TS_ERR_RUNTIME,
                          "cublasGemmEx %d x %d x %d %s failed: cuBLAS status %d", s->m, s->n,
                          s->k, ts_precision_names[s->precision], st);
    return TS_OK;
}

/* Time `reps` back-to-back calls between two events; *per_call = elapsed / reps, s. */
static int time_batch(const struct gemm_ctx *g, const struct ts_gpu_shape *s, int reps,
                      double *per_call, struct ts_err *err)
{
    const struct ts_gpu_lib *L = g->L;
    int rc = cuda_check(L, L->event_record(g->start, NULL), "cudaEventRecord", err);
    for (int r = 0; r < reps && rc == TS_OK; r++)
        rc = gemm_once(g, s, err);
    if (rc == TS_OK)
        rc = cuda_check(L, L->event_record(g->stop, NULL), "cudaEventRecord", err);
    if (rc == TS_OK)
        rc = cuda_check(L, L->event_synchronize(g->stop), "cudaEventSynchronize", err);
    float ms = 0.0f;
    if (rc == TS_OK)
        rc = cuda_check(L, L->event_elapsed_time(&ms, g->start, g->stop), "cudaEventElapsedTime",
                        err);
    if (rc == TS_OK && !(ms > 0.0f))
        rc = ts_err_set(err, TS_ERR_RUNTIME,
                        "%d x %d x %d %s: the CUDA events measured %g ms for %d calls", s->m,
                        s->n, s->k, ts_precision_names[s->precision], (double)ms, reps);
    if (rc == TS_OK)
        *per_call = (double)ms * 1e-3 / reps;
    return rc;
}

/* Time the shapes of one precision with buffers sized for the largest of them. */
static int measure_precision(struct gemm_ctx *g, const struct ts_gpu_options *o,
                             const struct ts_gpu_shape *shapes, int n, int prec,
                             double *seconds, struct ts_err *err)
{
    const struct ts_gpu_lib *L = g->L;
    size_t ea = 0, eb = 0, ec = 0;
    for (int i = 0; i < n; i++) {
        if (shapes[i].precision != prec)
            continue;
        size_t m = (size_t)shapes[i].m, nn = (size_t)shapes[i].n, k = (size_t)shapes[i].k;
        ea = m * k > ea ? m * k : ea;
        eb = k * nn > eb ? k * nn : eb;
        ec = m * nn > ec ? m * nn : ec;
    }
    if (ea == 0)
        return TS_OK;
    size_t es = elem_bytes(prec);
    g->a = g->b = g->c = NULL;
    int rc = TS_OK;
    void **bufs[3] = {&g->a, &g->b, &g->c};
    size_t sizes[3] = {ea * es, eb * es, ec * es};
    for (int i = 0; i < 3 && rc == TS_OK; i++)
        if (L->malloc_(bufs[i], sizes[i]) != CUDA_SUCCESS_ || !*bufs[i]) {
            *bufs[i] = NULL;
            rc = ts_err_set(err, TS_ERR_RUNTIME,
                            "cudaMalloc of %.0f MiB for the %s operands failed: the GPU is out "
                            "of memory (a smaller --max-dim needs less)",
                            (double)sizes[i] / 1048576.0, ts_precision_names[prec]);
        }
    size_t host_elems = (size_t)1 << 22;
    unsigned char *host = ts_xmalloc(host_elems * es);
    fill_host(host, host_elems, prec);
    for (int i = 0; i < 3 && rc == TS_OK; i++)
        rc = fill_device(L, *bufs[i], sizes[i], host, host_elems * es, err);
    free(host);
    double samples[64];
    int ns = o->samples < 1 ? 1 : o->samples > 64 ? 64 : o->samples;
    for (int i = 0; i < n && rc == TS_OK; i++) {
        const struct ts_gpu_shape *s = &shapes[i];
        if (s->precision != prec)
            continue;
        double t1 = 0.0;
        for (int w = 0; w < 2 && rc == TS_OK; w++)
            rc = gemm_once(g, s, err);
        if (rc == TS_OK)
            rc = cuda_check(L, L->device_synchronize(), "cudaDeviceSynchronize", err);
        if (rc == TS_OK)
            rc = time_batch(g, s, 1, &t1, err);
        if (rc)
            break;
        double want = ceil(o->min_sample_s / t1);
        int reps = want < 1.0 ? 1 : want > 100000.0 ? 100000 : (int)want;
        for (int j = 0; j < ns && rc == TS_OK; j++)
            rc = time_batch(g, s, reps, &samples[j], err);
        if (rc)
            break;
        qsort(samples, (size_t)ns, sizeof samples[0], cmp_double);
        seconds[i] = ns % 2 ? samples[ns / 2] : 0.5 * (samples[ns / 2 - 1] + samples[ns / 2]);
        if (o->progress) {
            double flops = 2.0 * s->m * s->n * s->k;
            fprintf(o->progress, "  %5d x %5d x %5d %s: %10.2f us, %7.1f TFLOP/s (%d x %d calls)\n",
                    s->m, s->n, s->k, ts_precision_names[prec], seconds[i] * 1e6,
                    flops / seconds[i] / 1e12, ns, reps);
            fflush(o->progress);
        }
    }
    for (int i = 0; i < 3; i++)
        if (*bufs[i])
            L->free_(*bufs[i]);
    g->a = g->b = g->c = NULL;
    return rc;
}

int ts_gpu_measure(struct ts_gpu_lib *lib, const struct ts_gpu_options *o,
                   const struct ts_gpu_shape *shapes, int n, double *seconds,
                   struct ts_err *err)
{
    for (int i = 0; i < n; i++) {
        seconds[i] = 0.0;
        int p = shapes[i].precision;
        if (p != TS_PREC_BF16 && p != TS_PREC_FP16 && p != TS_PREC_FP32)
            return ts_err_set(err, TS_ERR_INPUT,
                              "calibrate --gpu times bf16, fp16 and fp32 GEMMs (fp8 GEMMs need "
                              "cublasLt), not %s", ts_precision_names[p]);
        if (shapes[i].m < 1 || shapes[i].n < 1 || shapes[i].k < 1)
            return ts_err_set(err, TS_ERR_INPUT, "GEMM %d x %d x %d: dimensions must be >= 1",
                              shapes[i].m, shapes[i].n, shapes[i].k);
    }
    int count = 0;
    int rc = cuda_check(lib, lib->get_device_count(&count), "no usable CUDA device: "
                        "cudaGetDeviceCount", err);
    if (rc)
        return rc;
    if (o->device < 0 || o->device >= count)
        return ts_err_set(err, TS_ERR_INPUT, "--device %d: the CUDA runtime sees %d device%s",
                          o->device, count, count == 1 ? "" : "s");
    if ((rc = cuda_check(lib, lib->set_device(o->device), "cudaSetDevice", err)))
        return rc;
    struct gemm_ctx g = {.L = lib};
    int st = lib->cublas_create(&g.h);
    if (st != 0)
        return ts_err_set(err, TS_ERR_RUNTIME, "cublasCreate failed: cuBLAS status %d", st);
    rc = cuda_check(lib, lib->event_create(&g.start), "cudaEventCreate", err);
    if (rc == TS_OK)
        rc = cuda_check(lib, lib->event_create(&g.stop), "cudaEventCreate", err);
    static const int precs[] = {TS_PREC_BF16, TS_PREC_FP16, TS_PREC_FP32};
    for (size_t p = 0; p < TS_ARRAY_LEN(precs) && rc == TS_OK; p++)
        rc = measure_precision(&g, o, shapes, n, precs[p], seconds, err);
    if (g.start)
        lib->event_destroy(g.start);
    if (g.stop)
        lib->event_destroy(g.stop);
    lib->cublas_destroy(g.h);
    return rc;
}

/* ---------------------------------------------------------------- the table */

void ts_gpu_csv(const struct ts_gpu_shape *shapes, const double *seconds, int n,
                struct ts_buf *out)
{
    ts_buf_printf(out, "m,n,k,dtype,time_us\n");
    for (int i = 0; i < n; i++) {
        ts_buf_printf(out, "%d,%d,%d,%s,", shapes[i].m, shapes[i].n, shapes[i].k,
                      ts_precision_names[shapes[i].precision]);
        ts_csv_number(out, seconds[i] * 1e6);
        ts_buf_printf(out, "\n");
    }
}
