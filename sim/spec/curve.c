/*
 * GEMM efficiency curves: measured (FLOPs, efficiency) points, fitted with GSL's monotone
 * Steffen interpolant in log10(FLOPs) and tabulated for fast, thread-safe lookups.
 *
 * Steffen's method (M. Steffen, "A simple method for monotonic interpolation in one
 * dimension", A&A 239, 1990) never overshoots the data, so the fitted efficiency stays
 * within the measured range and rises monotonically where the measurements do.
 */
#include <math.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_interp.h>

#include "spec/spec.h"

int ts_gemm_curve_fit(struct ts_gemm_curve *c, struct ts_err *err)
{
    if (c->n < 1 || c->n > TS_CURVE_POINTS_MAX)
        return ts_err_set(err, TS_ERR_INPUT, "a GEMM efficiency curve needs 1 to %d points, got %d",
                          TS_CURVE_POINTS_MAX, c->n);
    double x[TS_CURVE_POINTS_MAX] = {0.0};  /* GCC with -fsanitize cannot see the loop fills it */
    for (int i = 0; i < c->n; i++) {
        if (!(c->flops[i] > 0.0) || !(c->efficiency[i] > 0.0) || c->efficiency[i] > 1.0)
            return ts_err_set(err, TS_ERR_INPUT,
                              "point %d: FLOPs must be > 0 and efficiency in (0, 1]", i);
        x[i] = log10(c->flops[i]);
        if (i > 0 && !(x[i] > x[i - 1]))
            return ts_err_set(err, TS_ERR_INPUT,
                              "point %d: points must have strictly increasing FLOPs", i);
    }
    c->log_lo = x[0];
    c->log_hi = x[c->n - 1];
    if (c->n == 1) {
        for (int i = 0; i < TS_CURVE_TABLE; i++)
            c->table[i] = c->efficiency[0];
        return TS_OK;
    }
    const gsl_interp_type *type = c->n >= 3 ? gsl_interp_steffen : gsl_interp_linear;
    gsl_interp *interp = gsl_interp_alloc(type, (size_t)c->n);
    if (!interp)
        return ts_err_set(err, TS_ERR_RUNTIME, "out of memory fitting a GEMM curve");
    ts_gsl_errors_install();    /* so the handler restored below never is GSL's aborting default */
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    int rc = gsl_interp_init(interp, x, c->efficiency, (size_t)c->n);
    for (int i = 0; rc == GSL_SUCCESS && i < TS_CURVE_TABLE; i++) {
        double xi = c->log_lo + (c->log_hi - c->log_lo) * i / (TS_CURVE_TABLE - 1);
        if (i == TS_CURVE_TABLE - 1)
            xi = c->log_hi;
        double y;
        rc = gsl_interp_eval_e(interp, x, c->efficiency, xi, NULL, &y);
        c->table[i] = y;
    }
    gsl_set_error_handler(old);
    gsl_interp_free(interp);
    if (rc != GSL_SUCCESS)
        return ts_err_set(err, TS_ERR_INPUT, "cannot fit the GEMM curve: %s", gsl_strerror(rc));
    return TS_OK;
}

double ts_gemm_curve_eval(const struct ts_gemm_curve *c, double flops)
{
    TS_ASSERT(c->n >= 1, "evaluating an empty GEMM curve");
    TS_ASSERT(flops > 0.0, "GEMM of %g FLOPs", flops);
    double lx = log10(flops);
    if (lx <= c->log_lo) {
        /* Smaller than anything measured: as slow as the smallest measured GEMM. */
        return c->table[0] * pow(10.0, lx - c->log_lo);
    }
    if (lx >= c->log_hi)
        return c->table[TS_CURVE_TABLE - 1];
    double pos = (lx - c->log_lo) / (c->log_hi - c->log_lo) * (TS_CURVE_TABLE - 1);
    int i = (int)pos;
    if (i >= TS_CURVE_TABLE - 1)
        i = TS_CURVE_TABLE - 2;
    double f = pos - i;
    return c->table[i] + f * (c->table[i + 1] - c->table[i]);
}
