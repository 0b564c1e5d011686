/*
 * --report FILE.html on run, sweep and sensitivity: build the page and write it.
 */
#include <stdlib.h>

#include "cli/cli.h"
#include "report/audit.h"
#include "search/sensitivity.h"

int ts_cli_write_report(const char *path, const struct ts_html_input *in)
{
    struct ts_buf page;
    ts_buf_init(&page);
    int missing = 0;
    char why[256] = "";
    ts_report_html(in, &page, &missing, why, sizeof why);
    if (missing)
        fprintf(stderr, "trainsim %s: warning: --report: %d chart%s not drawn (%s); the page "
                "says so in their place\n", in->command, missing, missing == 1 ? "" : "s", why);
    int rc = ts_cli_emit(&page, path);
    ts_buf_free(&page);
    return rc;
}

int ts_cli_report_answer(const char *path, const char *command, const char *file,
                         const struct ts_job *job, const cJSON *result,
                         const struct ts_sensitivity *sens)
{
    struct ts_err err;
    ts_err_clear(&err);
    int rc = TS_OK;
    struct ts_job_eval *e = ts_xmalloc(sizeof *e);
    struct ts_trace trace;
    ts_trace_init(&trace);
    double *samples = NULL, *bills = NULL;
    int n = 0, n_bills = 0;
    cJSON *own = NULL;
    if (job) {
        n = job->reliability.replications > 0 ? job->reliability.replications : 1;
        samples = ts_xmalloc((size_t)n * sizeof *samples);
        if ((rc = ts_job_eval_full(job, e, samples, &trace, &err))) {
            fprintf(stderr, "trainsim: %s: --report: %s\n", file, err.msg);
        } else {
            if (!e->have_run)
                n = 0;
            if (n > 1 && e->have_cost) {
                bills = ts_xmalloc((size_t)n * sizeof *bills);
                if ((rc = ts_job_replication_bills(job, &e->it, &e->run, e->checkpoint_bytes, samples, n,
                                                   bills, &err)))
                    fprintf(stderr, "trainsim: %s: --report: %s\n", file, err.msg);
                else
                    n_bills = n;
            }
            if (!result) {      /* a job's page: its run result, as `trainsim run` prints it */
                struct ts_run_output ro = {file, job, &e->it, NULL, NULL, e->have_run ? &e->run : NULL,
                                           e->have_cost ? &e->cost : NULL, NULL};
                result = own = ts_report_run_json(&ro);
            }
        }
    }
    if (rc == TS_OK) {
        struct ts_html_input hi = {command, file, result, sens, samples, n, &trace, bills, n_bills};
        rc = ts_cli_write_report(path, &hi);
    }
    cJSON_Delete(own);
    free(samples);
    free(bills);
    ts_trace_free(&trace);
    free(e);
    return rc;
}
