/*
 * trainsim new system: describe your own cluster in a minute. Flags give the few things that
 * cannot be defaulted (the GPU - a catalogue part or its peak, memory and bandwidth -, GPUs per
 * node, the scale-up kind, the NICs per node and their rate); on a terminal the missing ones
 * are asked for. The file written is a minimal system file (README "Your own cluster"): every
 * other key takes its documented default. It is parsed before it is written, so it loads.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"

/* Scale-up kinds, per GPU per direction, with the efficiency the catalogue measured for them
 * (hardware/systems: dgx-a100-80g, dgx-h100, dgx-b200 nccl-tests rows; PCIe and Infinity
 * Fabric at the 0.8 rule of thumb). */
static const struct {
    const char *kind;
    const char *bandwidth;
    double efficiency;
    int domain;         // 0: the node
    const char *what;
} up_kinds[] = {
    {"nvlink3", "300 GB/s", 0.78, 0, "NVLink 3 / NVSwitch (A100): nccl-tests 8x A100 234.9 / 300"},
    {"nvlink4", "450 GB/s", 0.82, 0, "NVLink 4 / NVSwitch (H100, H200): nccl-tests 8x H200 367.6 / 450"},
    {"nvlink5", "900 GB/s", 0.76, 0, "NVLink 5 / NVSwitch (B200, B300): nccl-tests 8x B200 682 / 900"},
    {"nvlink-bridge", "300 GB/s", 0.8, 2, "NVLink bridge pairs (H100 NVL): 600 GB/s bidirectional per pair"},
    {"pcie4", "32 GB/s", 0.8, 0, "PCIe Gen4 x16 (L40S, A100 PCIe): 64 GB/s bidirectional"},
    {"pcie5", "64 GB/s", 0.8, 0, "PCIe Gen5 x16 (H100 PCIe): 128 GB/s bidirectional"},
    {"xgmi", "448 GB/s", 0.8, 0, "Infinity Fabric mesh (MI300X): 7 x 64 GB/s"},
};

void ts_cli_new_help(FILE *f)
{
    fprintf(f,
            "usage: trainsim new system [--name NAME] [--gpu NAME | --peak-bf16 R --memory M\n"
            "                           --memory-bandwidth B [--generation G]]\n"
            "                           [--gpus-per-node N] [--scale-up KIND|RATE] [--domain-size N]\n"
            "                           [--nics N --nic-rate RATE | --per-gpu RATE]\n"
            "                           [--out FILE] [--accelerator-out FILE]\n"
            "\n"
            "Write a minimal system file for your cluster. Required: the GPU (a catalogue part,\n"
            "see trainsim list accelerators, or --peak-bf16/--memory/--memory-bandwidth for a part\n"
            "the catalogue lacks: its GEMM curve is then derived from the peak and flagged\n"
            "unvalidated), GPUs per node, the scale-up kind, and the network as vendors quote it:\n"
            "NICs per node and their rate, or --per-gpu for a rate per GPU. On a terminal the\n"
            "missing values are asked for; otherwise they are an error. Everything else takes the\n"
            "documented default (README, \"Your own cluster\"; trainsim run --explain shows them).\n"
            "\n"
            "scale-up kinds: nvlink3 (300 GB/s), nvlink4 (450 GB/s), nvlink5 (900 GB/s),\n"
            "nvlink-bridge (300 GB/s, pairs), pcie4 (32 GB/s), pcie5 (64 GB/s), xgmi (448 GB/s),\n"
            "or a rate per GPU per direction such as \"100 GB/s\".\n"
            "\n"
            "examples:\n"
            "  trainsim new system --name my-l40s --gpu l40s --gpus-per-node 8 --scale-up pcie4 \\\n"
            "      --nics 1 --nic-rate \"100 Gb/s\" --out my-l40s.json\n"
            "  trainsim new system --name my-h100 --gpu h100-sxm --gpus-per-node 8 \\\n"
            "      --scale-up nvlink4 --nics 8 --nic-rate \"400 Gb/s\" --out my-h100.json\n");
}

struct nopts {
    const char *name, *gpu, *peak, *memory, *membw, *generation, *gpn, *up, *domain, *nics,
        *nic_rate, *per_gpu, *out, *accel_out;
};

/* Ask for a value on the terminal; NULL at end of input. */
static const char *ask(const char *question, char *buf, size_t n)
{
    fprintf(stderr, "%s: ", question);
    fflush(stderr);
    if (!fgets(buf, (int)n, stdin))
        return NULL;
    buf[strcspn(buf, "\r\n")] = '\0';
    return buf[0] ? buf : NULL;
}

int ts_cli_new(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "system") != 0) {
        fprintf(stderr, "trainsim new: say what to create: trainsim new system [OPTIONS] (see "
                        "trainsim new --help)\n");
        return TS_ERR_INPUT;
    }
    struct nopts o;
    memset(&o, 0, sizeof o);
    struct {
        const char *flag;
        const char **dst;
    } flags[] = {
        {"--name", &o.name},       {"--gpu", &o.gpu},           {"--peak-bf16", &o.peak},
        {"--memory", &o.memory},   {"--memory-bandwidth", &o.membw},
        {"--generation", &o.generation}, {"--gpus-per-node", &o.gpn}, {"--scale-up", &o.up},
        {"--domain-size", &o.domain}, {"--nics", &o.nics},      {"--nic-rate", &o.nic_rate},
        {"--per-gpu", &o.per_gpu}, {"--out", &o.out},           {"--accelerator-out", &o.accel_out},
    };
    for (int i = 2; i < argc; i++) {
        size_t k = 0;
        while (k < TS_ARRAY_LEN(flags) && strcmp(argv[i], flags[k].flag) != 0)
            k++;
        if (k == TS_ARRAY_LEN(flags) || i + 1 >= argc) {
            fprintf(stderr, "trainsim new system: unknown option or missing value: %s (see "
                            "trainsim new --help)\n", argv[i]);
            return TS_ERR_INPUT;
        }
        *flags[k].dst = argv[++i];
    }
    bool tty = isatty(STDIN_FILENO) && isatty(STDERR_FILENO);
    char b_name[128], b_gpu[128], b_gpn[32], b_up[64], b_nics[32], b_rate[64];
    if (!o.name && tty)
        o.name = ask("system name (letters, digits, -, _)", b_name, sizeof b_name);
    if (!o.gpu && !o.peak && tty)
        o.gpu = ask("GPU (a catalogue name, e.g. h100-sxm; trainsim list accelerators)", b_gpu,
                    sizeof b_gpu);
    if (!o.gpn && tty)
        o.gpn = ask("GPUs per node (e.g. 8)", b_gpn, sizeof b_gpn);
    if (!o.up && tty)
        o.up = ask("scale-up kind (nvlink3, nvlink4, nvlink5, nvlink-bridge, pcie4, pcie5, xgmi, "
                   "or a rate per GPU)", b_up, sizeof b_up);
    if (!o.nics && !o.per_gpu && tty) {
        o.nics = ask("NICs per node (e.g. 8)", b_nics, sizeof b_nics);
        if (o.nics && !o.nic_rate)
            o.nic_rate = ask("rate of one NIC (e.g. 400 Gb/s)", b_rate, sizeof b_rate);
    }
    const char *missing[8];
    int nm = 0;
    if (!o.name)
        missing[nm++] = "--name";
    if (!o.gpu && !o.peak)
        missing[nm++] = "--gpu (or --peak-bf16, --memory, --memory-bandwidth)";
    if (!o.gpn)
        missing[nm++] = "--gpus-per-node";
    if (!o.up)
        missing[nm++] = "--scale-up";
    if (!o.nics && !o.per_gpu)
        missing[nm++] = "--nics and --nic-rate (or --per-gpu)";
    if (o.nics && !o.nic_rate)
        missing[nm++] = "--nic-rate";
    if (nm) {
        fprintf(stderr, "trainsim new system: missing");
        for (int i = 0; i < nm; i++)
            fprintf(stderr, "%s %s", i ? "," : "", missing[i]);
        fprintf(stderr, " (see trainsim new --help)\n");
        return TS_ERR_INPUT;
    }
    if (o.gpu && o.peak) {
        fprintf(stderr, "trainsim new system: give --gpu (a catalogue part) or --peak-bf16 and "
                        "friends (your own part), not both\n");
        return TS_ERR_INPUT;
    }
    if (o.peak && (!o.memory || !o.membw)) {
        fprintf(stderr, "trainsim new system: a part of your own needs --peak-bf16, --memory and "
                        "--memory-bandwidth\n");
        return TS_ERR_INPUT;
    }
    if (o.nics && o.per_gpu) {
        fprintf(stderr, "trainsim new system: give the network once: --nics and --nic-rate (per "
                        "node, as vendors quote it) or --per-gpu\n");
        return TS_ERR_INPUT;
    }
    if (!ts_spec_name_valid(o.name)) {
        fprintf(stderr, "trainsim new system: --name: \"%s\" is not a catalogue name (letters, "
                        "digits, '-', '_', '.')\n", o.name);
        return TS_ERR_INPUT;
    }
    if (o.peak && !o.accel_out) {
        fprintf(stderr, "trainsim new system: a part of your own is written to its own file: "
                        "give --accelerator-out FILE\n");
        return TS_ERR_INPUT;
    }
    const char *others[3] = {o.accel_out, NULL, NULL};
    int rc;
    if (o.out && (rc = ts_cli_check_output("new", "--out", o.out, others + 1)))
        return rc;
    if (o.accel_out && (rc = ts_cli_check_output("new", "--accelerator-out", o.accel_out,
                                                 (const char *[]){o.out, NULL})))
        return rc;

    char date[16];
    time_t now = time(NULL);
    struct tm tmv;
    strftime(date, sizeof date, "%Y-%m-%d", gmtime_r(&now, &tmv));
    cJSON *accel_doc = NULL;
    if (o.peak) {
        accel_doc = cJSON_CreateObject();
        char an[TS_NAME_MAX];
        snprintf(an, sizeof an, "%s-gpu", o.name);
        cJSON_AddStringToObject(accel_doc, "name", an);
        if (o.generation)
            cJSON_AddStringToObject(accel_doc, "generation", o.generation);
        cJSON *pk = cJSON_AddObjectToObject(accel_doc, "peak_flops");
        cJSON_AddStringToObject(pk, "bf16", o.peak);
        cJSON_AddStringToObject(accel_doc, "memory", o.memory);
        cJSON_AddStringToObject(accel_doc, "memory_bandwidth", o.membw);
        char src[256];
        snprintf(src, sizeof src, "written by trainsim new system on %s from the user's figures; "
                                  "GEMM curve derived from the peak (unvalidated)", date);
        cJSON_AddStringToObject(accel_doc, "source", src);
    }
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "name", o.name);
    cJSON_AddStringToObject(doc, "accelerator", o.gpu ? o.gpu : o.accel_out);
    char *end;
    long gpn = strtol(o.gpn, &end, 10);
    if (*end || gpn < 1 || gpn > 4096) {
        fprintf(stderr, "trainsim new system: --gpus-per-node: \"%s\" is not a whole number in "
                        "1..4096\n", o.gpn);
        cJSON_Delete(doc);
        cJSON_Delete(accel_doc);
        return TS_ERR_INPUT;
    }
    cJSON_AddNumberToObject(doc, "gpus_per_node", (double)gpn);
    cJSON *up = cJSON_AddObjectToObject(doc, "scale_up");
    const char *up_what = NULL;
    for (size_t k = 0; k < TS_ARRAY_LEN(up_kinds); k++)
        if (strcmp(o.up, up_kinds[k].kind) == 0) {
            cJSON_AddStringToObject(up, "bandwidth", up_kinds[k].bandwidth);
            cJSON_AddNumberToObject(up, "efficiency", up_kinds[k].efficiency);
            if (up_kinds[k].domain)
                cJSON_AddNumberToObject(up, "domain_size", up_kinds[k].domain);
            up_what = up_kinds[k].what;
        }
    if (!up_what)
        cJSON_AddStringToObject(up, "bandwidth", o.up);
    if (o.domain) {
        long d = strtol(o.domain, &end, 10);
        if (*end || d < 1) {
            fprintf(stderr, "trainsim new system: --domain-size: \"%s\" is not a whole number\n",
                    o.domain);
            cJSON_Delete(doc);
            cJSON_Delete(accel_doc);
            return TS_ERR_INPUT;
        }
        cJSON_DeleteItemFromObjectCaseSensitive(up, "domain_size");
        cJSON_AddNumberToObject(up, "domain_size", (double)d);
    }
    cJSON *out = cJSON_AddObjectToObject(doc, "scale_out");
    if (o.nics) {
        long n = strtol(o.nics, &end, 10);
        if (*end || n < 1) {
            fprintf(stderr, "trainsim new system: --nics: \"%s\" is not a whole number\n", o.nics);
            cJSON_Delete(doc);
            cJSON_Delete(accel_doc);
            return TS_ERR_INPUT;
        }
        cJSON_AddNumberToObject(out, "nics_per_node", (double)n);
        cJSON_AddStringToObject(out, "nic_bandwidth", o.nic_rate);
    } else {
        cJSON_AddStringToObject(out, "bandwidth", o.per_gpu);
    }
    char src[512];
    snprintf(src, sizeof src,
             "written by trainsim new system on %s: %ld x %s per node, scale-up %s%s%s, scale-out "
             "%s%s%s; latencies, efficiencies, topology and leaf size at their documented "
             "defaults (README, Your own cluster)", date, gpn, o.gpu ? o.gpu : "own GPU", o.up,
             up_what ? ": " : "", up_what ? up_what : "", o.nics ? o.nics : o.per_gpu,
             o.nics ? " NICs x " : " per GPU", o.nics ? o.nic_rate : "");
    cJSON_AddStringToObject(doc, "source", src);

    /* Parse before writing: the file must load (the accelerator from its own file). */
    struct ts_err err;
    ts_err_clear(&err);
    struct ts_buf ab, sb;
    ts_buf_init(&ab);
    ts_buf_init(&sb);
    rc = TS_OK;
    if (accel_doc) {
        struct ts_accel *a = ts_xmalloc(sizeof *a);
        struct ts_jnode r = ts_jnode_root(accel_doc, "(--peak-bf16 ...)");
        rc = ts_accel_parse(&r, a, &err);
        free(a);
        if (!rc) {
            ts_report_json_print(accel_doc, &ab);
            rc = ts_cli_emit(&ab, o.accel_out);
        }
    }
    if (!rc) {
        struct ts_system *s = ts_xmalloc(sizeof *s);
        struct ts_jnode r = ts_jnode_root(doc, o.out ? o.out : "(new system)");
        rc = ts_system_parse(&r, s, &err);
        free(s);
        if (!rc) {
            ts_report_json_print(doc, &sb);
            ts_cli_print_warnings();
            rc = ts_cli_emit(&sb, o.out);
            if (!rc && o.out)
                fprintf(stderr, "wrote %s: use it as \"system\": \"%s\" in a job or sweep\n",
                        o.out, o.out);
        }
    }
    if (rc && err.msg[0])
        fprintf(stderr, "trainsim new system: %s\n", err.msg);
    ts_buf_free(&ab);
    ts_buf_free(&sb);
    cJSON_Delete(doc);
    cJSON_Delete(accel_doc);
    return rc;
}
