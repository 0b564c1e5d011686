/*
 * Errors, status names and the always-on assertion.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

void ts_err_clear(struct ts_err *err)
{
    if (!err)
        return;
    err->status = TS_OK;
    err->msg[0] = '\0';
}

int ts_err_set(struct ts_err *err, enum ts_status status, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        err->status = status;
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return status;
}

int ts_err_at(struct ts_err *err, const char *file, const char *path, const char *fmt, ...)
{
    if (err) {
        char detail[TS_ERR_MSG_MAX];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(detail, sizeof detail, fmt, ap);
        va_end(ap);
        err->status = TS_ERR_INPUT;
        if (path && path[0])
            snprintf(err->msg, sizeof err->msg, "%s: %s: %s", file ? file : "<input>", path, detail);
        else
            snprintf(err->msg, sizeof err->msg, "%s: %s", file ? file : "<input>", detail);
    }
    return TS_ERR_INPUT;
}

const char *ts_status_name(enum ts_status status)
{
    switch (status) {
#define TS_STATUS_CASE(name, value, text) \
    case name:                            \
        return #name;
        TS_STATUS_LIST(TS_STATUS_CASE)
#undef TS_STATUS_CASE
    }
    return "TS_STATUS_UNKNOWN";
}

void ts_assert_fail(const char *file, int line, const char *cond, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "trainsim: internal error at %s:%d: assertion `%s' failed: ", file, line, cond);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    abort();
}
