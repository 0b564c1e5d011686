/*
 * --report FILE.html on run, sweep and sensitivity: build the page and write it.
 */
#include <stdlib.h>

#include "cli/cli.h"
#include "report/audit.h"

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
