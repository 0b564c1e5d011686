/*
 * trainsim import hf CONFIG.json [--out FILE]: translate a Hugging Face config.json into a
 * trainsim model file (sim/spec/hf.c holds the mapping). The result is checked by the model
 * parser before it is written, so a written file always loads.
 */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

void ts_cli_import_help(FILE *f)
{
    fprintf(f,
            "usage: trainsim import hf CONFIG.json [--out FILE]\n"
            "       trainsim import skypilot vms.csv [--instance TYPE [--region R] [--name NAME]\n"
            "                                [--date DATE] [--out FILE]]\n"
            "\n"
            "Translate a Hugging Face config.json (as shipped on the Hub) into a trainsim model\n"
            "file: layers, widths, heads, GQA, head_dim, gated or plain MLP, vocabulary, tied\n"
            "embeddings, rope, sliding-window layers, MoE fields and DeepSeek MLA mapped to\n"
            "trainsim's keys (README, \"Models from Hugging Face\"). Fields that are not modelled\n"
            "are listed in one warning; a missing required field is an error naming it.\n"
            "Architectures: Llama 2/3.x, Mistral, Mixtral, Qwen2/2.5, Qwen2-MoE, Qwen3, Qwen3-MoE,\n"
            "Gemma/2/3, GPT-2, GPT-NeoX, Phi-3, DeepSeek-V2/V3, GPT-OSS, Llama 4.\n"
            "\n"
            "The seq_len is the pre-training context (rope_scaling.original_max_position_embeddings\n"
            "or initial_context_length when the file gives one, else max_position_embeddings).\n"
            "A job can use the config directly: \"model\": \"hf:path/config.json\", or\n"
            "\"model\": {\"hf\": \"path/config.json\", \"seq_len\": 4096} to override a key.\n"
            "\n"
            "options:\n"
            "  --out FILE   write the model file there (atomically) instead of standard output\n"
            "\n"
            "skypilot: read a SkyPilot catalogue file (skypilot-org/skypilot-catalog,\n"
            "catalogs/vN/CLOUD/vms.csv). Without --instance it lists the GPU instance types with\n"
            "the cheapest on-demand and spot price per GPU-hour; with --instance it writes a price\n"
            "file for configs/prices: gpu_hour.on_demand = Price / AcceleratorCount in --region\n"
            "(else the cheapest region), gpu_hour.spot from the cheapest zone's SpotPrice. A\n"
            "Google Cloud VM is its machine-type row plus the GPU row of its zone; an instance\n"
            "with an empty Price (AWS p5e) gets a spot-only file. The catalogue states no date:\n"
            "--date gives it, else the price file says the import day.\n"
            "\n"
            "examples:\n"
            "  trainsim import hf tests/data/hf/qwen3-8b.json --out models/qwen3-8b.json\n"
            "  trainsim import skypilot vms.csv --instance gpu_8x_h100_sxm5 --region us-east-1 \\\n"
            "      --date 2026-11 --out configs/prices/lambda-h100-2026-11.json\n");
}

/* cJSON's formatted print indents with tabs and puts a tab after each colon; model files in
 * the catalogue use two spaces. Raw tabs occur nowhere else (cJSON escapes them in strings). */
static void untab(const char *in, struct ts_buf *out)
{
    bool line_start = true;
    for (const char *p = in; *p; p++) {
        if (*p == '\t') {
            ts_buf_append(out, line_start ? "  " : " ", line_start ? 2 : 1);
            continue;
        }
        line_start = *p == '\n';
        ts_buf_append(out, p, 1);
    }
    ts_buf_append(out, "\n", 1);
}

int ts_cli_import(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "skypilot") == 0) {
        if (argc < 3 || argv[2][0] == '-') {
            fprintf(stderr, "trainsim import skypilot: name the catalogue file (vms.csv)\n");
            return TS_ERR_INPUT;
        }
        return ts_cli_import_skypilot(argv[2], argc - 3, argv + 3);
    }
    const char *kind = NULL, *file = NULL, *out_path = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--out") == 0 && i + 1 < argc) {
            out_path = argv[++i];
        } else if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "trainsim import: unknown option \"%s\" (try trainsim import --help)\n",
                    a);
            return TS_ERR_INPUT;
        } else if (!kind) {
            kind = a;
        } else if (!file) {
            file = a;
        } else {
            fprintf(stderr, "trainsim import: one file at a time (got \"%s\" and \"%s\")\n", file,
                    a);
            return TS_ERR_INPUT;
        }
    }
    if (!kind || strcmp(kind, "hf") != 0) {
        fprintf(stderr, "trainsim import: %s (usage: trainsim import hf CONFIG.json [--out FILE] | "
                        "trainsim import skypilot vms.csv [--instance TYPE ...])\n",
                kind ? "the formats are \"hf\" (a Hugging Face config.json) and \"skypilot\" "
                       "(a SkyPilot catalogue vms.csv)"
                     : "say what to import");
        return TS_ERR_INPUT;
    }
    if (!file) {
        fprintf(stderr, "trainsim import hf: name the config.json to import\n");
        return TS_ERR_INPUT;
    }
    if (out_path) {
        const char *others[] = {file, NULL};
        int rc = ts_cli_check_output("import", "--out", out_path, others);
        if (rc)
            return rc;
    }
    struct ts_err err;
    ts_err_clear(&err);
    cJSON *doc;
    char warning[1400];
    int rc = ts_hf_model_doc(file, &doc, warning, sizeof warning, &err);
    if (rc) {
        fprintf(stderr, "trainsim: %s\n", err.msg);
        return rc;
    }
    if (warning[0])
        fprintf(stderr, "trainsim: warning: %s\n", warning);
    struct ts_model *m = ts_xmalloc(sizeof *m);
    struct ts_jnode root = ts_jnode_root(doc, file);
    rc = ts_model_parse(&root, m, &err);
    free(m);
    if (rc) {
        fprintf(stderr, "trainsim: %s (as translated to trainsim's model keys)\n", err.msg);
        cJSON_Delete(doc);
        return rc;
    }
    char *text = cJSON_Print(doc);
    cJSON_Delete(doc);
    TS_ASSERT(text != NULL, "out of memory printing the model");
    struct ts_buf buf;
    ts_buf_init(&buf);
    untab(text, &buf);
    cJSON_free(text);
    rc = ts_cli_emit(&buf, out_path);
    ts_buf_free(&buf);
    return rc;
}
