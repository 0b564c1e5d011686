/*
 * Helpers shared by the cmocka tests: double comparison with a tolerance that prints both
 * values (cmocka 1.1 has none), and loading jobs from inline JSON text.
 */
#ifndef TS_TEST_HELPERS_H
#define TS_TEST_HELPERS_H

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "util/util.h"

/* Fail unless |actual - expected| <= rel * |expected| + abs_tol. */
#define assert_close(actual, expected, rel, abs_tol) \
    ts_test_assert_close((actual), (expected), (rel), (abs_tol), #actual, __FILE__, __LINE__)

static inline void ts_test_assert_close(double actual, double expected, double rel, double abs_tol,
                                        const char *expr, const char *file, int line)
{
    double tol = rel * fabs(expected) + abs_tol;
    if (!(fabs(actual - expected) <= tol)) {
        print_error("%s:%d: %s = %.10g, expected %.10g (tolerance %.3g, relative error %.4g)\n",
                    file, line, expr, actual, expected, tol,
                    expected != 0 ? (actual - expected) / expected : actual);
        _fail(file, line);
    }
}

/* True under tests/valgrind.sh (TS_VALGRIND=1), where code runs ~50x slower. */
static inline bool ts_test_under_valgrind(void)
{
    const char *v = getenv("TS_VALGRIND");
    return v && v[0] == '1';
}

/* Statistical oracles that need thousands of Monte Carlo replications (or many sweeps) are
 * skipped under valgrind: their code paths run there through the smaller tests, and the
 * sanitizer run executes them in full. */
#define skip_when_slow()                                                                       \
    do {                                                                                       \
        if (ts_test_under_valgrind()) {                                                        \
            print_message("  (a statistical check: skipped under valgrind; the sanitizer run " \
                          "executes it)\n");                                                   \
            skip();                                                                            \
        }                                                                                      \
    } while (0)

/* Parse JSON text (must be valid) and return the document; aborts the test otherwise. */
static inline cJSON *ts_test_json(const char *text)
{
    cJSON *doc = cJSON_Parse(text);
    if (!doc) {
        print_error("test JSON does not parse: %s\n", text);
        fail();
    }
    return doc;
}

/* Assert that err holds an input error whose message contains `needle`. */
#define assert_input_error(rc, err, needle) \
    ts_test_assert_input_error((rc), (err), (needle), __FILE__, __LINE__)

static inline void ts_test_assert_input_error(int rc, const struct ts_err *err, const char *needle,
                                              const char *file, int line)
{
    if (rc != TS_ERR_INPUT || err->status != TS_ERR_INPUT || !strstr(err->msg, needle)) {
        print_error("%s:%d: expected an input error containing \"%s\"; got rc=%d, message \"%s\"\n",
                    file, line, needle, rc, err->msg);
        _fail(file, line);
    }
}

#endif
