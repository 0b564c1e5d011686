/*
 * Test fixtures for jobs shared by the cmocka tests: parse a job from JSON text (as given, or
 * also validated as the command line validates it before a run) and build its compute model
 * and step plan, failing the test with the parser's message and the text otherwise.
 */
#ifndef TS_TEST_JOB_H
#define TS_TEST_JOB_H

#include "test_helpers.h"

#include "compute/compute.h"
#include "spec/spec.h"
#include "step/step.h"

static inline void ts_test_job(const char *text, bool validate, struct ts_job *job)
{
    cJSON *doc = ts_test_json(text);
    struct ts_jnode root = ts_jnode_root(doc, "test.json");
    struct ts_err err;
    ts_err_clear(&err);
    int rc = ts_job_parse(&root, NULL, job, &err);
    if (rc == TS_OK && validate)
        rc = ts_job_validate(job, "test.json", &err);
    cJSON_Delete(doc);
    if (rc != TS_OK) {
        print_error("job does not %s: %s\n%s\n", validate ? "parse and validate" : "parse",
                    err.msg, text);
        fail();
    }
}

/* The job of JSON text `text`, parsed (ts_job_parse). */
static inline void parse_job(const char *text, struct ts_job *job)
{
    ts_test_job(text, false, job);
}

/* The job of JSON text `text`, parsed and validated (ts_job_parse, ts_job_validate). */
static inline void parse_valid_job(const char *text, struct ts_job *job)
{
    ts_test_job(text, true, job);
}

/* The job's compute model in *c and its step plan (one chunk per stage, one stage) in *pl;
 * the caller frees the plan with ts_step_plan_free. */
static inline void build_plan(const struct ts_job *job, struct ts_compute *c,
                              struct ts_step_plan *pl)
{
    ts_compute_build(job, c);
    assert_int_equal(ts_step_plan_init(pl, 1, 1), 0);
    ts_step_plan_build(job, c, pl);
}

#endif
