/*
 * GSL errors as trainsim errors. GSL's default error handler prints a line and aborts the
 * process (GSL manual, "Error handling"); a library that must never exit on bad input cannot
 * let it run. ts_gsl_errors_install replaces it, once per process, with a handler that only
 * records the error for the calling thread; the GSL function then returns its error status
 * (the _e variants) or a NaN/Inf value, which the caller checks and turns into a struct
 * ts_err with a message naming the input.
 */
#include <pthread.h>
#include <string.h>

#include <gsl/gsl_errno.h>

#include "util/util.h"

static _Thread_local int last_errno;
static _Thread_local char last_reason[160];

static void record_gsl_error(const char *reason, const char *file, int line, int gsl_errno)
{
    (void)file;
    (void)line;
    last_errno = gsl_errno ? gsl_errno : GSL_FAILURE;
    ts_strlcpy(last_reason, reason ? reason : "", sizeof last_reason);
}

static pthread_once_t install_once = PTHREAD_ONCE_INIT;

static void install(void)
{
    gsl_set_error_handler(record_gsl_error);
}

void ts_gsl_errors_install(void)
{
    pthread_once(&install_once, install);
}

int ts_gsl_error_take(char *reason, size_t n)
{
    int e = last_errno;
    if (reason && n > 0)
        ts_strlcpy(reason, e ? last_reason : "", n);
    last_errno = 0;
    last_reason[0] = '\0';
    return e;
}
