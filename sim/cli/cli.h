/*
 * cli: the subcommands behind `trainsim`. Each takes argv starting at the subcommand name and
 * returns an exit status (0, 1 runtime failure, 2 bad usage or input); messages go to stderr,
 * results to stdout.
 */
#ifndef TS_CLI_H
#define TS_CLI_H

#include <stdbool.h>
#include <stddef.h>
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
/* calibrate --nccl-tests / --gemm-csv (sim/cli/calibrate_files.c). */
bool ts_cli_calibrate_is_files(int argc, char **argv);
int ts_cli_calibrate_files(int argc, char **argv);
int ts_cli_import(int argc, char **argv);
void ts_cli_import_help(FILE *f);
/* import skypilot (sim/cli/import_skypilot.c): argv after the file name. */
int ts_cli_import_skypilot(const char *file, int argc, char **argv);
int ts_cli_list(int argc, char **argv);
int ts_cli_show(int argc, char **argv);
void ts_cli_list_help(FILE *f);
int ts_cli_new(int argc, char **argv);
void ts_cli_new_help(FILE *f);

/* Parse "--format X" values; prints an error and returns -1 if unknown. */
int ts_cli_parse_format(const char *value, enum ts_format *out);

/* The default format: table on a terminal, JSON otherwise. */
enum ts_format ts_cli_default_format(void);

/* Write buf to stdout (or a file when path is not NULL, atomically). Returns an exit code. */
int ts_cli_emit(const struct ts_buf *buf, const char *path);

/* "--opt N": a whole number in [lo, hi]. Prints "trainsim CMD: OPT: ..." and returns -1 if
 * not. */
int ts_cli_parse_long(const char *cmd, const char *opt, const char *value, long lo, long hi,
                      long *out);
int ts_cli_parse_int(const char *cmd, const char *opt, const char *value, int lo, int hi, int *out);

/* An argument that is not a known option: the subcommand's one FILE (what: "job", "sweep").
 * Prints why and returns -1 for an unknown option or a second file. */
int ts_cli_positional(const char *cmd, const char *what, const char *arg, const char **file);

/* Prints "missing FILE" and returns -1 when no FILE was given. */
int ts_cli_need_file(const char *cmd, const char *file);

/* Check an output path before the work (ts_file_check_output), and that it is not one of the
 * NULL-terminated `others` (the input files, and the outputs already checked): a regular file
 * named twice would be overwritten. Devices and FIFOs may be named more than once. Prints
 * "trainsim CMD: OPT: why" and returns the exit status (0 when the path is fine). */
int ts_cli_check_output(const char *cmd, const char *opt, const char *path,
                        const char *const others[]);

/* A file named after another: path (or, with base_only, its last component) without a
 * trailing ".json", plus suffix. out is "" if it does not fit. */
void ts_cli_derived_path(const char *path, bool base_only, const char *suffix, char *out, size_t n);

/* Print the warnings met while reading inputs (ts_warning_add) on stderr, once, and forget
 * them. */
void ts_cli_print_warnings(void);

#endif
