/*
 * cli: the subcommands behind `trainsim`. Each takes argv starting at the subcommand name and
 * returns an exit status (0, 1 runtime failure, 2 bad usage or input); messages go to stderr,
 * results to stdout.
 */
#ifndef TS_CLI_H
#define TS_CLI_H

#include <stdio.h>

#include "report/report.h"

struct ts_cli_command {
    const char *name;
    const char *summary;
    int (*main)(int argc, char **argv);
    void (*help)(FILE *f);
};

int ts_cli_run(int argc, char **argv);
void ts_cli_run_help(FILE *f);
int ts_cli_sweep(int argc, char **argv);
void ts_cli_sweep_help(FILE *f);
int ts_cli_calibrate(int argc, char **argv);
void ts_cli_calibrate_help(FILE *f);

/* Parse "--format X" values; prints an error and returns -1 if unknown. */
int ts_cli_parse_format(const char *value, enum ts_format *out);

/* The default format: table on a terminal, JSON otherwise. */
enum ts_format ts_cli_default_format(void);

/* Write buf to stdout (or a file when path is not NULL, atomically). Returns an exit code. */
int ts_cli_emit(const struct ts_buf *buf, const char *path);

#endif
