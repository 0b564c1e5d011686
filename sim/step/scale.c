/*
 * Effects of scale: a synchronous job runs at the pace of its slowest GPU.
 *
 * Identical GPUs do not run a training step in identical time: manufacturing spread and each
 * chip's power management (clocks under the power cap), plus kernel jitter and OS noise, make
 * one GPU's compute time over an iteration T (1 + cv Z) with Z ~ N(0, 1), independent across
 * GPUs. Sinha et al. (SC'22, "Not All GPUs Are Created Equal", arXiv 2208.11035) measured this
 * on over 90% of the GPUs of five clusters: 8% (max 22%) average performance variation between
 * GPUs of one SKU, and the identity of a slow GPU persists over time (it is the chip, not the
 * moment). The per-device cv lives in the accelerator file (`step_time_cv`,
 * hardware/README.md says how each value follows from its source).
 *
 * Every rank of a job synchronises at least once per iteration (data-parallel gradient
 * reduction, the pipeline flush, the optimizer step after it), so the iteration cannot end
 * before the slowest of the job's N GPUs has done its compute. Synchronisations inside the
 * step add nothing under this model: a persistently slow GPU slows its tensor-parallel group
 * at every layer and its pipeline stage at every microbatch by the same factor, so the whole
 * job runs at the slowest GPU's pace, whichever group it sits in. (Purely transient per-kernel
 * jitter would instead average out over the kernels between two synchronisations, by
 * 1/sqrt(kernels); the measured spread is dominated by the persistent part, so that term is
 * not modelled.) The expected cost per iteration is then
 *
 *     sync_wait = compute_s x cv x E[max of N standard normals],
 *
 * compute_s the critical stage's busy compute time. E[max of 1] = 0: one GPU waits for no one.
 * E[max of N] grows like sqrt(2 ln N): 1.42 at 8 GPUs, 2.59 at 128, 3.04 at 512, 3.44 at 2048.
 */
#include <math.h>

#include <gsl/gsl_cdf.h>

#include "step/step.h"

/* E[max of n iid N(0,1)] = integral of x n phi(x) Phi(x)^(n-1) over the real line (the density
 * of the largest order statistic; David & Nagaraja, "Order Statistics", 3rd ed., eq. 2.1.5),
 * by composite Simpson on [-10, 10] with step 1/128. The integrand is smooth and negligible
 * outside that range for any n below 1e12 (the maximum's mode sits near Phi^-1(1 - 1/n) < 7.1,
 * its spread below 1); the quadrature error is below 1e-9. */
static double normal_max_mean_uncached(long n)
{
    const double lo = -10.0, hi = 10.0;
    const int steps = 2560;     // even, h = 20 / 2560 = 1/128
    const double h = (hi - lo) / steps, inv_sqrt_2pi = 0.39894228040143267794;
    double s = 0.0;
    for (int i = 0; i <= steps; i++) {
        double x = lo + i * h;
        double cdf = gsl_cdf_ugaussian_P(x);
        double f = 0.0;
        if (cdf > 0.0) {
            double log_f = log((double)n) - 0.5 * x * x + (double)(n - 1) * log(cdf);
            f = x * inv_sqrt_2pi * exp(log_f);
        }
        double w = (i == 0 || i == steps) ? 1.0 : (i % 2 ? 4.0 : 2.0);
        s += w * f;
    }
    return s * h / 3.0;
}

/* A few values per thread: a sweep asks for the same GPU counts over and over. The cached
 * value is the computed one, so results do not depend on the order of calls. */
#define MAX_MEMO 8
static _Thread_local long memo_n[MAX_MEMO];
static _Thread_local double memo_v[MAX_MEMO];
static _Thread_local int memo_next;

double ts_step_normal_max_mean(long n)
{
    TS_ASSERT(n >= 1, "the maximum of %ld samples", n);
    if (n == 1)
        return 0.0;
    for (int i = 0; i < MAX_MEMO; i++)
        if (memo_n[i] == n)
            return memo_v[i];
    double v = normal_max_mean_uncached(n);
    memo_n[memo_next] = n;
    memo_v[memo_next] = v;
    memo_next = (memo_next + 1) % MAX_MEMO;
    return v;
}

double ts_step_sync_wait(double compute_s, double cv, long ranks)
{
    TS_ASSERT(compute_s >= 0.0 && cv >= 0.0 && ranks >= 1, "sync wait of %g s, cv %g, %ld ranks",
              compute_s, cv, ranks);
    if (cv == 0.0 || ranks == 1)
        return 0.0;
    return compute_s * cv * ts_step_normal_max_mean(ranks);
}
