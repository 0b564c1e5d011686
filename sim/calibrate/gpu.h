/*
 * gpu: time cuBLAS GEMMs on an NVIDIA GPU and hand the timings to the measured-table path
 * (gemmcsv.h), so that `trainsim calibrate --gpu` writes an accelerator's efficiency curve
 * through the very code that reads a CSV from `calibrate --gemm-csv`.
 *
 * No CUDA header or library is needed to build trainsim: the CUDA runtime (libcudart) and
 * cuBLAS (libcublas) are loaded when a calibration asks for them, with dlopen, and only the
 * entry points below are looked up. Their signatures and enum values are NVIDIA's public
 * API, restated here from its documentation:
 *   CUDA Runtime API (docs.nvidia.com/cuda/cuda-runtime-api): cudaGetDeviceCount(int *),
 *     cudaSetDevice(int), cudaMalloc(void **, size_t), cudaFree(void *),
 *     cudaMemcpy(void *, const void *, size_t, enum cudaMemcpyKind) with
 *     cudaMemcpyHostToDevice = 1, cudaDeviceSynchronize(void), cudaEventCreate(cudaEvent_t *),
 *     cudaEventRecord(cudaEvent_t, cudaStream_t) (stream 0: the default stream),
 *     cudaEventSynchronize(cudaEvent_t), cudaEventElapsedTime(float *ms, cudaEvent_t start,
 *     cudaEvent_t end), cudaEventDestroy(cudaEvent_t), cudaGetErrorString(cudaError_t);
 *     every call returns cudaError_t, cudaSuccess = 0.
 *   cuBLAS (docs.nvidia.com/cuda/cublas, "cublasGemmEx", "cudaDataType_t",
 *     "cublasComputeType_t"): cublasCreate_v2(cublasHandle_t *), cublasDestroy_v2(handle)
 *     (the exported names behind cublas_v2.h's cublasCreate / cublasDestroy) and
 *     cublasGemmEx(handle, transa, transb, m, n, k, const void *alpha, const void *A,
 *     cudaDataType Atype, int lda, const void *B, cudaDataType Btype, int ldb,
 *     const void *beta, void *C, cudaDataType Ctype, int ldc, cublasComputeType_t
 *     computeType, cublasGemmAlgo_t algo), column major; CUBLAS_OP_N = 0;
 *     CUDA_R_32F = 0, CUDA_R_16F = 2, CUDA_R_16BF = 14; CUBLAS_COMPUTE_32F = 68 (fp32
 *     accumulation, no TF32: the fp32 peak is the one a pure fp32 GEMM runs at);
 *     CUBLAS_GEMM_DEFAULT = -1; CUBLAS_STATUS_SUCCESS = 0. The computeType argument has been
 *     a cublasComputeType_t since CUDA 11.0, so the call is the same for CUDA 11, 12 and 13.
 *
 * Where the libraries are looked for (ts_gpu_open): in the directory named by the
 * TRAINSIM_CUDA_PATH environment variable when it is set (and only there), else by the
 * dynamic loader's search (LD_LIBRARY_PATH, the ld.so cache), as pairs of one CUDA major
 * version, newest first: libcudart.so.13 + libcublas.so.13, .12 + .12, libcudart.so.11.0 +
 * libcublas.so.11, then the unversioned libcudart.so + libcublas.so. Without them the error
 * says "no CUDA runtime found" (or "no cuBLAS found") and lists every name tried. The
 * libraries stay loaded until the process exits (ts_gpu_close does not unload them).
 *
 * What is timed (ts_gpu_measure): per shape, C (m x n) = A (m x k) B (k x n) with
 * cublasGemmEx, A, B and C of the shape's precision (bf16, fp16 or fp32; fp8 GEMMs need
 * cublasLt, which is not used), fp32 accumulation, alpha 1, beta 0, on operands filled
 * with pseudo-random values in +-[0.25, 1) (zeros would let the tensor cores idle at lower
 * power than real data). Two warm-up calls; one timed call sizes a batch of calls lasting
 * at least min_sample_s; `samples` batches are timed between CUDA events on the default
 * stream, and a shape's time is the median batch time per call. Times include the launch
 * of each call, as a training step's GEMMs do.
 *
 * Thread safety: measuring uses the process's CUDA context; run one calibration at a time.
 * The grid and the CSV builder are pure.
 */
#ifndef TS_CALIBRATE_GPU_H
#define TS_CALIBRATE_GPU_H

#include <stdio.h>

#include "spec/spec.h"
#include "util/util.h"

#define TS_GPU_SHAPES_MAX 256

/* One GEMM of the grid. */
struct ts_gpu_shape {
    int m, n, k;        // dimensions, e.g. 4096 x 4096 x 4096
    int precision;      // enum ts_precision: TS_PREC_BF16, TS_PREC_FP16 or TS_PREC_FP32
};

/* The default grid, for each precision of `precisions` (n_prec of them) in that order:
 * square m = n = k from 256 to max_dim in steps of sqrt(2) (rounded to multiples of 64),
 * then the skinny shapes of a transformer's GEMMs, one dimension S in {256, 1024} and two
 * L in {4096, 16384} (S x L x L, L x S x L, L x L x S) with L <= max_dim. Writes at most
 * `cap` shapes and returns how many. */
int ts_gpu_grid(int max_dim, const int *precisions, int n_prec, struct ts_gpu_shape *out,
                int cap);

/* The loaded runtime (opaque). */
struct ts_gpu_lib;

/* Load libcudart and libcublas (see the top of this file). TS_ERR_RUNTIME with the names
 * tried when either is missing or lacks an entry point. Not thread safe (getenv, dlopen). */
int ts_gpu_open(struct ts_gpu_lib **out, struct ts_err *err);

/* The files loaded, e.g. "libcudart.so.12 + libcublas.so.12". */
const char *ts_gpu_lib_names(const struct ts_gpu_lib *lib);

void ts_gpu_close(struct ts_gpu_lib *lib);

struct ts_gpu_options {
    int device;             // CUDA device index, default 0
    int samples;            // timed batches per shape, default 5
    double min_sample_s;    // shortest batch, s, default 0.02
    FILE *progress;         // one line per shape; NULL = quiet
};

void ts_gpu_options_default(struct ts_gpu_options *o);

/* Time every shape (see the top of this file); seconds[i] = the median time of one call of
 * shapes[i]. TS_ERR_INPUT for a shape of another precision or an absent device;
 * TS_ERR_RUNTIME when a CUDA or cuBLAS call fails (its message included). */
int ts_gpu_measure(struct ts_gpu_lib *lib, const struct ts_gpu_options *o,
                   const struct ts_gpu_shape *shapes, int n, double *seconds,
                   struct ts_err *err);

/* The measurements as the table `calibrate --gemm-csv` reads: header m,n,k,dtype,time_us,
 * one row per shape (times at full precision). Appended to out. */
void ts_gpu_csv(const struct ts_gpu_shape *shapes, const double *seconds, int n,
                struct ts_buf *out);

#endif
