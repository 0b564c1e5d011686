/*
 * trainsim: the command-line front end. Dispatches subcommands from a table, parses their
 * options, chooses exit codes (0 success, 1 runtime failure, 2 bad usage or input), and
 * writes outputs. All modelling lives in the library.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"

static const struct ts_cli_command commands[] = {
    {"run", "simulate one job: iteration, memory, training time, failures, cost",
     ts_cli_run, ts_cli_run_help},
    {"sweep", "search clusters and layouts for the cheapest setup that meets a target",
     ts_cli_sweep, ts_cli_sweep_help},
    {"compare", "jobs side by side: iteration, memory, run, bill, differences highlighted",
     ts_cli_compare, ts_cli_compare_help},
    {"sensitivity", "how the answer moves with each uncertain input: tornado and break-evens",
     ts_cli_sensitivity, ts_cli_sensitivity_help},
    {"calibrate", "measure this host's GEMMs with OpenBLAS and write an accelerator file",
     ts_cli_calibrate, ts_cli_calibrate_help},
    {"import", "translate a Hugging Face config.json into a trainsim model file",
     ts_cli_import, ts_cli_import_help},
    {"list", "list the catalogue: models, accelerators, systems, software, prices",
     ts_cli_list, ts_cli_list_help},
    {"show", "one catalogue entry with its source", ts_cli_show, ts_cli_list_help},
    {"new", "write a minimal system file for your own cluster", ts_cli_new, ts_cli_new_help},
};

static void usage(FILE *f)
{
    fprintf(f,
            "trainsim %s: price large-model training runs before you buy the GPUs.\n"
            "\n"
            "usage: trainsim SUBCOMMAND [OPTIONS] [FILE]\n"
            "       trainsim SUBCOMMAND --help\n"
            "       trainsim --version\n"
            "\n"
            "subcommands:\n",
            TS_VERSION);
    for (size_t i = 0; i < TS_ARRAY_LEN(commands); i++)
        fprintf(f, "  %-12s %s\n", commands[i].name, commands[i].summary);
    fprintf(f,
            "\n"
            "examples:\n"
            "  trainsim sweep configs/quickstart-sweep.json      cheapest cluster for a target\n"
            "  trainsim run configs/gpt3-175b-a100.json          one job, as a table\n"
            "  trainsim run configs/gpt3-175b-a100.json --format json\n"
            "  trainsim run configs/gpt3-175b-a100.json --set parallel.tp=4 --set parallel.pp=16\n"
            "  trainsim compare configs/gpt3-175b-a100.json mine.json\n"
            "  trainsim sensitivity configs/quickstart-sweep.json  what moves the answer\n"
            "  trainsim calibrate --out host.json                 measure this CPU's GEMMs\n"
            "\n"
            "Catalogue: models/, hardware/accelerators/, hardware/systems/ under %s\n"
            "(set TRAINSIM_HOME to use another). Exit status: 0 ok, 1 runtime failure, 2 bad input.\n",
            ts_spec_home());
}

/* "--option=value" is "--option value" for every command (GNU style): split it in place
 * into a fresh argument vector (the strings stay argv's; the '=' becomes a terminator). */
static char **split_equals(int *argc, char **argv)
{
    int n = *argc, extra = 0;
    for (int i = 1; i < n; i++)
        extra += strncmp(argv[i], "--", 2) == 0 && strchr(argv[i], '=') != NULL;
    if (!extra)
        return argv;
    char **v = ts_xmalloc((size_t)(n + extra + 1) * sizeof *v);
    int k = 0;
    for (int i = 0; i < n; i++) {
        char *eq = i > 0 && strncmp(argv[i], "--", 2) == 0 ? strchr(argv[i], '=') : NULL;
        v[k++] = argv[i];
        if (eq) {
            *eq = '\0';
            v[k++] = eq + 1;
        }
    }
    v[k] = NULL;
    *argc = k;
    return v;
}

static int dispatch(int argc, char **argv);

int main(int argc, char **argv)
{
    ts_gsl_errors_install();    /* GSL must never abort the process: its errors become ours */
    char **args = split_equals(&argc, argv);
    int rc = dispatch(argc, args);
    if (args != argv)
        free(args);
    return rc;
}

static int dispatch(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return TS_ERR_INPUT;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        usage(stdout);
        return TS_OK;
    }
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0) {
        printf("trainsim %s\n", TS_VERSION);
        return TS_OK;
    }
    for (size_t i = 0; i < TS_ARRAY_LEN(commands); i++) {
        if (strcmp(cmd, commands[i].name) != 0)
            continue;
        for (int a = 2; a < argc; a++)
            if (strcmp(argv[a], "--help") == 0 || strcmp(argv[a], "-h") == 0) {
                commands[i].help(stdout);
                return TS_OK;
            }
        return commands[i].main(argc - 1, argv + 1);
    }
    fprintf(stderr, "trainsim: unknown subcommand \"%s\" (try trainsim --help)\n", cmd);
    return TS_ERR_INPUT;
}
