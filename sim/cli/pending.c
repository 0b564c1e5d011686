/*
 * Subcommands still being built.
 */
#include "cli/cli.h"

void ts_cli_sweep_help(FILE *f) { fprintf(f, "usage: trainsim sweep FILE\n"); }
int ts_cli_sweep(int argc, char **argv) { (void)argc; (void)argv; fprintf(stderr, "trainsim sweep: not built yet\n"); return 1; }
void ts_cli_calibrate_help(FILE *f) { fprintf(f, "usage: trainsim calibrate\n"); }
int ts_cli_calibrate(int argc, char **argv) { (void)argc; (void)argv; fprintf(stderr, "trainsim calibrate: not built yet\n"); return 1; }
