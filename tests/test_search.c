/*
 * Tests of the sweep (sim/search): the branch-and-bound search returns what evaluating every
 * layout returns (the whole report byte for byte but the counts of pruned work, with fewer
 * simulations), the bounds it screens and prunes with never exceed the simulated
 * iteration, the answer of
 * an exhaustive search is the minimum over every simulated row of its CSV dump and matches a
 * re-evaluation through the public API, results do not depend on the thread count, a tiny
 * sweep picks the answer found by hand, unreachable constraints report the closest miss,
 * rejections are counted by reason and add up, bad sweep files are refused with file and
 * JSON path, the CSV dump has one row per screened layout, and the JSON report carries the
 * keys of the interface contract (DESIGN.md section 4).
 *
 * Sweeps are small (a 1.7B or 8B model, up to 4 or 8 nodes, 20-30 Monte Carlo replications)
 * so the file runs in seconds; tests/data/search holds the sweep files shared with
 * tests/cli_sweep.sh.
 */
#include <dirent.h>
#include <unistd.h>

#include "test_helpers.h"

#include "cost/cost.h"
#include "report/report.h"
#include "run/run.h"
#include "search/search.h"
#include "spec/spec.h"
#include "step/step.h"

#define TEST_FILE "tests/sweep.json"

#define assert_ok(rc, err)                                                  \
    do {                                                                    \
        if ((rc) != TS_OK) {                                                \
            print_error("unexpected error (rc %d): %s\n", (rc), (err).msg); \
            fail();                                                         \
        }                                                                   \
    } while (0)

/* ---------------------------------------------------------------- sweeps */

/* Cost objective, expected-time deadline, on-demand and spot, two systems (the shared file
 * tests/data/search/small-cost.json). */
#define SMALL_COST_FILE "search/small-cost.json"

/* Time objective, throughput target, no cost section (so no Pareto front), interleaving. */
static const char *const sweep_time_throughput =
    "{\"name\": \"time-throughput\", \"model\": \"llama3-8b\", \"tokens\": \"50B\", \"global_batch\": 256,"
    " \"systems\": [\"dgx-h100\", \"aws-p4de\"], \"nodes\": [1, 2, 4], \"pricing\": [\"on_demand\", \"spot\"],"
    " \"parallel\": {\"tp\": [1, 2, 4, 8], \"pp\": [1, 2, 4], \"cp\": 1, \"microbatch\": [1, 2],"
    "              \"recompute\": [\"none\", \"selective\", \"full\"], \"zero\": [0, 1, 2],"
    "              \"schedule\": [\"1f1b\", \"interleaved\"], \"virtual_stages\": [2]},"
    " \"reliability\": {\"replications\": 20},"
    " \"constraint\": {\"min_tokens_per_s\": 5e4}, \"objective\": \"time\", \"top\": 4}";

/* Cost objective, deadline at the 90th percentile, shipped price files; probability_sweep()
 * tightens the deadline so that a finalist fails it. */
static const char *const sweep_probability =
    "{\"name\": \"probability\", \"model\": \"llama3-8b\", \"tokens\": \"100B\", \"global_batch\": 512,"
    " \"systems\": [\"aws-p4de\", \"aws-p5en\"], \"nodes\": [2, 4, 8], \"pricing\": [\"on_demand\", \"spot\"],"
    " \"parallel\": {\"tp\": [1, 2, 4, 8], \"pp\": [1, 2], \"cp\": 1, \"microbatch\": [1, 2, 4],"
    "              \"recompute\": [\"none\", \"selective\"], \"zero\": [0, 1], \"schedule\": [\"1f1b\"]},"
    " \"reliability\": {\"replications\": 30},"
    " \"cost\": {\"by_system\": {\"aws-p4de\": {\"prices\": \"aws-p4d-2024-09\"},"
    "                          \"aws-p5en\": {\"prices\": \"aws-p5en-2026-08\"}}},"
    " \"constraint\": {\"deadline\": \"14 d\", \"probability\": 0.9}, \"objective\": \"cost\", \"top\": 3}";

/* Cost objective with a throughput target, no reliability section (spot gets the default
 * preemption rate), on-demand and reserved prices. */
static const char *const sweep_cost_throughput =
    "{\"name\": \"cost-throughput\", \"model\": \"megatron-1.7b\", \"tokens\": \"10B\", \"global_batch\": [128, 256],"
    " \"systems\": [\"dgx-a100-80g\", \"dgx-h100\"], \"nodes\": {\"from\": 1, \"to\": 4, \"powers_of_two\": true},"
    " \"pricing\": [\"on_demand\", \"reserved\", \"spot\"],"
    " \"parallel\": {\"tp\": [1, 2, 4], \"pp\": [1, 2], \"microbatch\": [1, 2, 4], \"cp\": 1,"
    "              \"recompute\": [\"none\", \"full\"], \"zero\": [0, 1, 3], \"schedule\": [\"1f1b\"]},"
    " \"cost\": {\"gpu_hour\": {\"on_demand\": 4.0, \"reserved\": 2.5, \"spot\": 1.5},"
    "          \"by_system\": {\"dgx-h100\": {\"gpu_hour\": {\"on_demand\": 8.0, \"reserved\": 5.0, \"spot\": 3.0}}}},"
    " \"constraint\": {\"min_tokens_per_s\": 1.5e5}, \"objective\": \"cost\", \"top\": 4}";

/* Time objective with a cost section (a Pareto front under the time objective) and a deadline. */
static const char *const sweep_time_with_cost =
    "{\"name\": \"time-with-cost\", \"model\": \"megatron-1.7b\", \"tokens\": \"20B\", \"global_batch\": 256,"
    " \"systems\": [\"dgx-a100-80g\", \"dgx-h100\"], \"nodes\": [1, 2, 4], \"pricing\": [\"on_demand\", \"spot\"],"
    " \"parallel\": {\"tp\": [1, 2, 4, 8], \"pp\": [1, 2, 4], \"cp\": 1, \"microbatch\": [1, 2],"
    "              \"recompute\": [\"none\", \"selective\"], \"zero\": [0, 1], \"schedule\": [\"1f1b\"]},"
    " \"reliability\": {\"replications\": 20},"
    " \"cost\": {\"gpu_hour\": {\"on_demand\": 4.0, \"spot\": 1.6},"
    "          \"by_system\": {\"dgx-h100\": {\"gpu_hour\": {\"on_demand\": 9.0, \"spot\": 3.5}}}},"
    " \"constraint\": {\"deadline\": \"2 d\"}, \"objective\": \"time\", \"top\": 5}";

/* One layout (tp 8) on 1, 2, 4 and 8 nodes, time objective, no cost: the objectives lie a
 * factor of about 2 apart, so a search that pruned against the wrong k-th best would lose
 * a member of the top 3. */
static const char *const sweep_node_scaling =
    "{\"name\": \"node-scaling\", \"model\": \"megatron-1.7b\", \"tokens\": \"5B\", \"global_batch\": 64,"
    " \"systems\": [\"dgx-h100\"], \"nodes\": [1, 2, 4, 8],"
    " \"parallel\": {\"tp\": 8, \"pp\": 1, \"cp\": 1, \"microbatch\": 1, \"zero\": 0, \"recompute\": \"none\","
    "              \"schedule\": \"1f1b\", \"sequence_parallel\": true},"
    " \"reliability\": {\"replications\": 20},"
    " \"constraint\": {\"min_tokens_per_s\": 1}, \"objective\": \"time\", \"top\": 3}";

/* ---------------------------------------------------------------- fixtures */

static void data_path(char *buf, size_t n, const char *rel)
{
    const char *dir = getenv("TS_TEST_DATA");
    if (dir && dir[0])
        snprintf(buf, n, "%s/%s", dir, rel);
    else
        snprintf(buf, n, "%s/tests/data/%s", TS_SOURCE_DIR, rel);
}

/* Parse sweep text as the file TEST_FILE; the error, if any, goes to err. */
static int sweep_parse_text(const char *text, struct ts_sweep *sw, struct ts_err *err)
{
    cJSON *doc = ts_test_json(text);
    struct ts_jnode root = ts_jnode_root(doc, TEST_FILE);
    ts_err_clear(err);
    int rc = ts_sweep_parse(&root, sw, err);
    cJSON_Delete(doc);
    return rc;
}

/* A parsed sweep (heap: struct ts_sweep is large); the caller frees it. */
static struct ts_sweep *sweep_from_text(const char *text)
{
    struct ts_sweep *sw = ts_xmalloc(sizeof *sw);
    struct ts_err err;
    int rc = sweep_parse_text(text, sw, &err);
    assert_ok(rc, err);
    return sw;
}

static struct ts_sweep *sweep_from_file(const char *rel)
{
    char path[1024];
    data_path(path, sizeof path, rel);
    struct ts_sweep *sw = ts_xmalloc(sizeof *sw);
    struct ts_err err;
    ts_err_clear(&err);
    int rc = ts_sweep_load(path, sw, &err);
    assert_ok(rc, err);
    return sw;
}

/* Run a sweep; batch 0 is the default batch. */
static void sweep_run(const struct ts_sweep *sw, int threads, bool exhaustive, int batch, const char *csv,
                      struct ts_sweep_result *res)
{
    struct ts_sweep_options opt;
    memset(&opt, 0, sizeof opt);
    opt.threads = threads;
    opt.exhaustive = exhaustive;
    opt.batch = batch;
    opt.csv_path = csv;
    struct ts_err err;
    ts_err_clear(&err);
    int rc = ts_sweep_run(sw, &opt, res, &err);
    assert_ok(rc, err);
}

/* The JSON report with elapsed_s removed (the one key that depends on the machine). */
static char *report_without_elapsed(const struct ts_sweep *sw, const struct ts_sweep_result *r)
{
    cJSON *o = ts_report_sweep_json(sw, r);
    assert_non_null(cJSON_GetObjectItemCaseSensitive(o, "elapsed_s"));
    cJSON_DeleteItemFromObjectCaseSensitive(o, "elapsed_s");
    struct ts_buf b;
    ts_buf_init(&b);
    ts_report_json_print(o, &b);
    cJSON_Delete(o);
    return b.data;      // owned by the caller
}

static bool same_double(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/* Fail unless two outcomes agree bit for bit (layout, pricing, every metric). */
static void assert_same_outcome(const struct ts_outcome *a, const struct ts_outcome *b, const char *what,
                                int i, const char *sweep)
{
    const struct ts_layout *x = &a->layout, *y = &b->layout;
    bool same_layout = x->system == y->system && x->schedule == y->schedule && x->recompute == y->recompute &&
                       x->zero == y->zero && x->sp == y->sp && x->tp_overlap == y->tp_overlap &&
                       x->virtual_stages == y->virtual_stages && x->nodes == y->nodes &&
                       x->global_batch == y->global_batch && x->tp == y->tp && x->pp == y->pp &&
                       x->cp == y->cp && x->microbatch == y->microbatch;
    const double da[] = {a->iteration_s, a->tokens_per_s, a->mfu, a->time_s, a->cost_usd, a->objective,
                         a->memory_bytes, a->mc_time_mean_s, a->mc_time_p90_s, a->mc_cost_mean_usd,
                         a->mc_cost_p90_usd, a->goodput};
    const double db[] = {b->iteration_s, b->tokens_per_s, b->mfu, b->time_s, b->cost_usd, b->objective,
                         b->memory_bytes, b->mc_time_mean_s, b->mc_time_p90_s, b->mc_cost_mean_usd,
                         b->mc_cost_p90_usd, b->goodput};
    bool same_values = true;
    for (size_t k = 0; k < TS_ARRAY_LEN(da); k++)
        same_values &= same_double(da[k], db[k]);
    if (!same_layout || !same_values || a->pricing != b->pricing || a->meets != b->meets ||
        a->monte_carlo != b->monte_carlo) {
        print_error("sweep %s: %s[%d] differs:\n"
                    "  nodes %d/%d system %d/%d tp %d/%d pp %d/%d mb %d/%d zero %d/%d recompute %d/%d "
                    "pricing %d/%d\n  objective %.17g / %.17g, time %.17g / %.17g, cost %.17g / %.17g, "
                    "mc cost %.17g / %.17g\n",
                    sweep, what, i, x->nodes, y->nodes, x->system, y->system, x->tp, y->tp, x->pp, y->pp,
                    x->microbatch, y->microbatch, x->zero, y->zero, x->recompute, y->recompute, a->pricing,
                    b->pricing, a->objective, b->objective, a->time_s, b->time_s, a->cost_usd, b->cost_usd,
                    a->mc_cost_mean_usd, b->mc_cost_mean_usd);
        fail();
    }
}

/* A fresh empty directory under /tmp; the caller removes it with remove_dir. */
static void make_temp_dir(char *buf, size_t n)
{
    snprintf(buf, n, "/tmp/ts_test_search.XXXXXX");
    assert_non_null(mkdtemp(buf));
}

/* Names in a directory, other than . and .. (up to cap), and their count. */
static int list_dir(const char *dir, char names[][256], int cap)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (n < cap)
            snprintf(names[n], 256, "%s", e->d_name);
        n++;
    }
    closedir(d);
    return n;
}

static void remove_dir(const char *dir)
{
    char names[16][256], p[1024];
    int n = list_dir(dir, names, 16);
    for (int i = 0; i < n && i < 16; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, names[i]);
        remove(p);
    }
    rmdir(dir);
}

/* ---------------------------------------------------------------- CSV reading */

enum {
    CSV_SYSTEM = 0, CSV_NODES = 1, CSV_STATUS = 15, CSV_BOUND_TIME = 17, CSV_BOUND_COST = 18,
    CSV_PRICING = 19, CSV_TOKENS_PER_S = 21, CSV_FAILURE_FREE = 23, CSV_TIME = 24, CSV_COST = 25,
    CSV_MEETS = 26, CSV_WHY = 27, CSV_SOFTWARE = 28, CSV_FIELDS = 29,
};

static const char *const csv_header =
    "system,nodes,gpus,global_batch,tp,pp,dp,cp,microbatch,schedule,virtual_stages,"
    "sequence_parallel,recompute,zero,tp_comm_overlap,status,memory_gib,bound_time_s,"
    "bound_cost_usd,pricing,iteration_s,tokens_per_s,mfu,time_to_train_s,estimated_time_to_train_s,cost_usd,meets,why,software";

struct csv {
    char *text;
    int n_rows;                 // data rows (header excluded)
    char *(*rows)[CSV_FIELDS];  // fields of each row, pointers into text
};

/* Read a CSV written by the sweep: the header must be the documented one and every row must
 * have its 29 fields (the `why` column holds no comma, so plain splitting is exact). */
static void csv_read(const char *path, struct csv *c)
{
    size_t len;
    struct ts_err err;
    int rc = ts_file_read(path, &c->text, &len, &err);
    assert_ok(rc, err);
    int lines = 0;
    for (size_t i = 0; i < len; i++)
        lines += c->text[i] == '\n';
    assert_true(len > 0 && c->text[len - 1] == '\n');
    c->rows = ts_xcalloc((size_t)lines, sizeof *c->rows);
    c->n_rows = 0;
    char *line = c->text;
    for (int l = 0; l < lines; l++) {
        char *nl = strchr(line, '\n');
        *nl = '\0';
        if (l == 0) {
            assert_string_equal(line, csv_header);
        } else {
            int f = 0;
            char *p = line;
            for (;;) {
                assert_true(f < CSV_FIELDS);
                c->rows[c->n_rows][f++] = p;
                char *comma = strchr(p, ',');
                if (!comma)
                    break;
                *comma = '\0';
                p = comma + 1;
            }
            if (f != CSV_FIELDS) {
                print_error("%s: row %d has %d fields, expected %d\n", path, l + 1, f, CSV_FIELDS);
                fail();
            }
            c->n_rows++;
        }
        line = nl + 1;
    }
}

static void csv_free(struct csv *c)
{
    free(c->text);
    free(c->rows);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The probability sweep with its deadline between the analytic expected time and the Monte
 * Carlo p90 of the cheapest configuration: that configuration meets the deadline by the
 * analytic model, stays a finalist (a tighter deadline only removes competitors), and fails
 * at p90, so the search must replace it. */
static struct ts_sweep *probability_sweep(void)
{
    struct ts_sweep *sw = sweep_from_text(sweep_probability);
    struct ts_sweep_result r;
    sweep_run(sw, 1, false, 0, NULL, &r);
    assert_true(r.found);
    const struct ts_outcome *best = &r.top[0];
    assert_true(best->time_s < best->mc_time_p90_s);
    sw->deadline_s = 0.5 * (best->time_s + best->mc_time_p90_s);
    ts_sweep_result_free(&r);
    return sw;
}

/* Counts that must add up for any sweep: every screened layout is assessed at every pricing
 * and ends rejected by memory or constraint, pruned, or simulated. */
static void assert_counts_add_up(const struct ts_sweep *sw, const struct ts_sweep_result *r)
{
    long screened = r->enumerated - r->rejected[TS_REJECT_DIVISIBILITY];
    assert_int_equal(r->evaluated, screened * sw->n_pricing);
    assert_int_equal(r->evaluated, r->rejected[TS_REJECT_MEMORY] + r->rejected[TS_REJECT_CONSTRAINT] +
                                       r->rejected[TS_REJECT_PRUNED] + r->simulated * sw->n_pricing);
    /* Feasible = screened layouts x pricing that fit and are not excluded by the constraint
     * at their bound: independent of pruning. */
    assert_int_equal(r->feasible, r->evaluated - r->rejected[TS_REJECT_MEMORY] -
                                      r->rejected[TS_REJECT_CONSTRAINT]);
    assert_true(r->rejected[TS_REJECT_DEADLINE_P] <= r->simulated * sw->n_pricing);
}

/* ---------------------------------------------------------------- 1. pruning is exact */

/* The JSON report less what depends on how much was pruned: elapsed_s, the layouts
 * simulated and those pruned at their bound. Everything that describes the answer stays. */
static char *report_without_pruning_counts(const struct ts_sweep *sw, const struct ts_sweep_result *r)
{
    cJSON *o = ts_report_sweep_json(sw, r);
    cJSON *rej = cJSON_GetObjectItemCaseSensitive(o, "rejected");
    assert_non_null(cJSON_GetObjectItemCaseSensitive(o, "simulated"));
    assert_non_null(cJSON_GetObjectItemCaseSensitive(rej, "pruned_by_bound"));
    cJSON_DeleteItemFromObjectCaseSensitive(o, "elapsed_s");
    cJSON_DeleteItemFromObjectCaseSensitive(o, "simulated");
    cJSON_DeleteItemFromObjectCaseSensitive(rej, "pruned_by_bound");
    struct ts_buf b;
    ts_buf_init(&b);
    ts_report_json_print(o, &b);
    cJSON_Delete(o);
    return b.data;      // owned by the caller
}

/* Fail unless two sweeps report the same answer, byte for byte. */
static void assert_same_report(const struct ts_sweep *sw, const struct ts_sweep_result *a,
                               const struct ts_sweep_result *b, const char *what)
{
    char *ja = report_without_pruning_counts(sw, a), *jb = report_without_pruning_counts(sw, b);
    if (strcmp(ja, jb) != 0) {
        size_t k = 0;
        while (ja[k] && ja[k] == jb[k])
            k++;
        print_error("sweep %s (top %d): %s: JSON differs at byte %zu:\n%.160s\n%.160s\n", sw->name,
                    sw->top, what, k, ja + (k > 80 ? k - 80 : 0), jb + (k > 80 ? k - 80 : 0));
        fail();
    }
    free(ja);
    free(jb);
}

/* Branch and bound must return exactly what evaluating every layout returns; small batches
 * make the search go through many batches, so pruning decisions are taken with a partial
 * top-k and front. */
static void check_pruned_equals_exhaustive_at(const struct ts_sweep *sw, int batch)
{
    struct ts_sweep_result ex, pr;
    sweep_run(sw, 1, true, 0, NULL, &ex);
    sweep_run(sw, 1, false, batch, NULL, &pr);
    assert_true(ex.found);
    assert_int_equal(pr.found, ex.found);
    assert_int_equal(pr.n_top, ex.n_top);
    /* Distinct purchases: as many as the sweep offers, up to k. */
    assert_true(ex.n_top >= 1 && ex.n_top <= sw->top);
    for (int i = 0; i < ex.n_top; i++)
        assert_same_outcome(&pr.top[i], &ex.top[i], "top", i, sw->name);
    assert_int_equal(pr.n_pareto, ex.n_pareto);
    for (int i = 0; i < ex.n_pareto; i++)
        assert_same_outcome(&pr.pareto[i], &ex.pareto[i], "pareto", i, sw->name);
    if (sw->has_cost)
        assert_true(ex.n_pareto >= 1);
    /* The full best configuration is the same too. */
    assert_true(same_double(pr.best_run.mean_s, ex.best_run.mean_s));
    assert_true(same_double(pr.best_cost.total_usd, ex.best_cost.total_usd));
    assert_true(same_double(pr.best_it.iteration_s, ex.best_it.iteration_s));
    /* Same enumeration and screening; the deadline-probability replacements are the same. */
    assert_int_equal(pr.enumerated, ex.enumerated);
    assert_int_equal(pr.evaluated, ex.evaluated);
    for (int r = TS_REJECT_DIVISIBILITY; r <= TS_REJECT_CONSTRAINT; r++)
        assert_int_equal(pr.rejected[r], ex.rejected[r]);
    assert_int_equal(pr.rejected[TS_REJECT_DEADLINE_P], ex.rejected[TS_REJECT_DEADLINE_P]);
    /* The best of every system x pricing is exact too, and the layouts listed with each top
     * row are the same. */
    /* (A row for every system x pricing where some layout meets the constraint, also those
     * in neither the top nor the front.) */
    assert_true(pr.n_best_per_system >= 1);
    assert_int_equal(pr.n_best_per_system, ex.n_best_per_system);
    for (int i = 0; i < ex.n_best_per_system; i++)
        assert_same_outcome(&pr.best_per_system[i], &ex.best_per_system[i], "best_per_system", i,
                            sw->name);
    for (int i = 0; i <= ex.n_top; i++)
        assert_int_equal(pr.top_first[i], ex.top_first[i]);
    for (int i = 0; i < ex.top_first[ex.n_top]; i++)
        assert_same_outcome(&pr.top_layouts[i], &ex.top_layouts[i], "top_layouts", i, sw->name);
    if (sw->has_cost) {
        for (int i = 0; i <= ex.n_pareto; i++)
            assert_int_equal(pr.pareto_first[i], ex.pareto_first[i]);
        for (int i = 0; i < ex.pareto_first[ex.n_pareto]; i++)
            assert_same_outcome(&pr.pareto_layouts[i], &ex.pareto_layouts[i], "pareto_layouts", i,
                                sw->name);
    }
    /* And the whole report, byte for byte, but for the counts of the work pruning saves. */
    assert_same_report(sw, &pr, &ex, "pruned and exhaustive");
    /* ... with fewer simulations, once there are k purchases to beat (with fewer, the k-th
     * best is infinite and nothing can be pruned). */
    assert_int_equal(ex.rejected[TS_REJECT_PRUNED], 0);
    if (ex.n_top == sw->top && !(pr.simulated < ex.simulated)) {
        print_error("sweep %s: pruned search simulated %ld layouts, exhaustive %ld\n", sw->name,
                    pr.simulated, ex.simulated);
        fail();
    }
    assert_true(pr.simulated <= ex.simulated);
    if (ex.n_top == sw->top)
        assert_true(pr.rejected[TS_REJECT_PRUNED] > 0);
    assert_counts_add_up(sw, &ex);
    assert_counts_add_up(sw, &pr);
    ts_sweep_result_free(&ex);
    ts_sweep_result_free(&pr);
}

/* At the sweep's k, and at a larger k whose k-th best lies where the bounds crowd. */
static void check_pruned_equals_exhaustive(struct ts_sweep *sw, int large_k)
{
    check_pruned_equals_exhaustive_at(sw, 8);
    int k = sw->top;
    sw->top = large_k;
    check_pruned_equals_exhaustive_at(sw, 16);
    sw->top = k;
}

static void pruned_search_returns_the_exhaustive_top_k_and_pareto_front(void **state)
{
    (void)state;
    struct ts_sweep *sw = sweep_from_file(SMALL_COST_FILE);
    check_pruned_equals_exhaustive(sw, 30);
    /* Top 1: most purchases are pruned, yet each system x pricing keeps its exact best. */
    sw->top = 1;
    check_pruned_equals_exhaustive_at(sw, 8);
    struct ts_sweep_result one;
    sweep_run(sw, 1, false, 8, NULL, &one);
    assert_int_equal(one.n_top, 1);
    assert_int_equal(one.n_best_per_system, sw->n_systems * sw->n_pricing);
    ts_sweep_result_free(&one);
    free(sw);
    /* Under valgrind: the small sweep above and the one-per-batch case below. */
    if (!ts_test_under_valgrind()) {
        sw = probability_sweep();
        check_pruned_equals_exhaustive(sw, 30);
        free(sw);
    }
    /* (No reliability section: the finalists' Monte Carlo runs the default 1000 replications,
     * so a smaller k keeps this quick.) */
    const char *const texts[] = {sweep_time_throughput, sweep_cost_throughput, sweep_time_with_cost};
    const int large_k[] = {30, 8, 30};
    for (size_t i = 0; i < TS_ARRAY_LEN(texts) && !ts_test_under_valgrind(); i++) {
        sw = sweep_from_text(texts[i]);
        check_pruned_equals_exhaustive(sw, large_k[i]);
        free(sw);
    }
    /* One candidate per batch: 8, 4 and 2 nodes fill the top 3, then 1 node is pruned. */
    sw = sweep_from_text(sweep_node_scaling);
    check_pruned_equals_exhaustive_at(sw, 1);
    struct ts_sweep_result r;
    sweep_run(sw, 1, false, 1, NULL, &r);
    assert_int_equal(r.simulated, 3);
    assert_int_equal(r.rejected[TS_REJECT_PRUNED], 1);
    for (int i = 0; i < 3; i++)
        assert_int_equal(r.top[i].layout.nodes, 8 >> i);
    ts_sweep_result_free(&r);
    free(sw);
}

/* The bounds that screen and prune are lower bounds. On every valid layout of a grid over the
 * small sweep's systems, node counts, tp, pp, microbatch, schedule (1F1B, interleaved with 2
 * virtual stages), recomputation and ZeRO stage, the simulated iteration (ts_step_evaluate of
 * the layout's job) is at least the tighter bound, which is at least screening's; and the
 * tighter one is above screening's on most layouts (more than one GPU waits for the slowest;
 * a pipeline drains). */
static void iteration_bounds_never_exceed_the_simulated_iteration(void **state)
{
    (void)state;
    struct ts_sweep *sw = sweep_from_file(SMALL_COST_FILE);
    struct ts_eval_scratch scratch;
    assert_int_equal(ts_eval_scratch_init(&scratch), 0);
    struct ts_job *job = malloc(sizeof *job);
    assert_non_null(job);
    const int nodes[] = {1, 4}, tps[] = {1, 2, 4, 8}, pps[] = {1, 2, 4}, mbs[] = {1, 2, 4};
    const int scheds[] = {TS_SCHED_1F1B, TS_SCHED_INTERLEAVED};
    const int recs[] = {TS_RECOMPUTE_NONE, TS_RECOMPUTE_FULL}, zeros[] = {0, 3};
    long checked = 0, tighter = 0;
    double worst_gap = 0.0;     // largest (simulated - tighter) / simulated seen
    /* Under valgrind: one system at one node count (a quarter of the grid). */
    bool quick = ts_test_under_valgrind();
    for (int y = 0; y < (quick ? 1 : sw->n_systems); y++)
        for (size_t a = 0; a < (quick ? 1 : TS_ARRAY_LEN(nodes)); a++)
            for (size_t b = 0; b < TS_ARRAY_LEN(tps); b++)
                for (size_t c = 0; c < TS_ARRAY_LEN(pps); c++)
                    for (size_t d = 0; d < TS_ARRAY_LEN(mbs); d++)
                        for (size_t e = 0; e < TS_ARRAY_LEN(scheds); e++)
                            for (size_t f = 0; f < TS_ARRAY_LEN(recs); f++)
                                for (size_t g = 0; g < TS_ARRAY_LEN(zeros); g++) {
                                    struct ts_layout l;
                                    memset(&l, 0, sizeof l);
                                    l.system = (uint8_t)y;
                                    l.nodes = nodes[a];
                                    l.global_batch = 256;
                                    l.tp = tps[b];
                                    l.pp = pps[c];
                                    l.cp = 1;
                                    l.microbatch = mbs[d];
                                    l.schedule = (uint8_t)scheds[e];
                                    l.virtual_stages = scheds[e] == TS_SCHED_INTERLEAVED ? 2 : 1;
                                    l.recompute = (uint8_t)recs[f];
                                    l.zero = (uint8_t)zeros[g];
                                    l.sp = tps[b] > 1;
                                    l.ep = l.etp = 1;
                                    double lo, hi;
                                    struct ts_err err;
                                    if (ts_sweep_layout_bounds(sw, &l, &lo, &hi, &err) != TS_OK)
                                        continue;
                                    ts_sweep_layout_job(sw, &l, sw->pricing[0], job);
                                    struct ts_iteration it;
                                    ts_step_evaluate(job, TS_METHOD_DISCRETE_EVENT, &scratch, &it, NULL, NULL);
                                    if (!(lo <= hi && hi <= it.iteration_s)) {
                                        print_error("system %d, %d nodes, tp %d pp %d mb %d %s "
                                                    "recompute %d zero %d: bounds %.9g, %.9g; "
                                                    "simulated %.9g\n", y, l.nodes, l.tp, l.pp,
                                                    l.microbatch, ts_schedule_names[l.schedule],
                                                    l.recompute, l.zero, lo, hi, it.iteration_s);
                                        fail();
                                    }
                                    checked++;
                                    tighter += hi > lo;
                                    worst_gap = fmax(worst_gap, 1 - hi / it.iteration_s);
                                }
    print_message("%ld layouts, tighter bound above screening's on %ld; worst gap to the "
                  "simulation %.2f%%\n", checked, tighter, 100 * worst_gap);
    assert_true(checked >= (quick ? 50 : 200));
    assert_true(tighter >= checked * 9 / 10);
    free(job);
    ts_eval_scratch_free(&scratch);
    free(sw);
}

static void probability_sweep_replaces_a_finalist_that_misses_the_deadline_at_p90(void **state)
{
    (void)state;
    /* The pruned-equals-exhaustive check above covers this sweep; here: it really exercises
     * the replacement, and no reported configuration misses the deadline at p90. */
    struct ts_sweep *sw = probability_sweep();
    struct ts_sweep_result r;
    sweep_run(sw, 1, false, 8, NULL, &r);
    assert_true(r.found);
    assert_true(r.rejected[TS_REJECT_DEADLINE_P] >= 1);
    for (int i = 0; i < r.n_top; i++) {
        assert_true(r.top[i].monte_carlo);
        assert_true(r.top[i].mc_time_p90_s <= sw->deadline_s);
    }
    ts_sweep_result_free(&r);
    free(sw);
}

/* The job, iteration and run input of an outcome's layout and pricing, built through the
 * public API as the search builds them: the discrete-event iteration, and the run input
 * of the job's reliability section (no section: a run without failures). */
struct by_hand {
    struct ts_job job;
    struct ts_eval_scratch scratch;
    struct ts_iteration it;
    struct ts_run_input in;
};

static struct by_hand *by_hand_build(const struct ts_sweep *sw, const struct ts_outcome *o)
{
    struct by_hand *h = ts_xcalloc(1, sizeof *h);
    ts_sweep_layout_job(sw, &o->layout, (enum ts_pricing)o->pricing, &h->job);
    struct ts_err err;
    ts_err_clear(&err);
    int rc = ts_job_validate(&h->job, "by-hand", &err);
    assert_ok(rc, err);
    assert_int_equal(ts_eval_scratch_init(&h->scratch), 0);
    ts_step_evaluate(&h->job, TS_METHOD_DISCRETE_EVENT, &h->scratch, &h->it, NULL, NULL);
    assert_true(h->it.feasible);
    struct ts_run_input *in = &h->in;
    in->iteration_s = h->it.iteration_s;
    in->iterations = h->it.iterations;
    in->gpus = h->job.gpus;
    in->nodes = h->job.nodes;
    in->gpus_per_node = h->job.system.gpus_per_node;
    in->dp = h->job.parallel.dp;
    in->checkpoint_bytes = ts_compute_checkpoint_bytes(&h->job, &h->scratch.compute);
    in->rel = h->job.reliability;
    return h;
}

static void by_hand_free(struct by_hand *h)
{
    ts_eval_scratch_free(&h->scratch);
    free(h);
}

/* Evaluate an outcome's layout and pricing as the search does: the discrete-event
 * iteration, the analytic run model, the bill. */
static void evaluate_by_hand(const struct ts_sweep *sw, const struct ts_outcome *o, double *time_s,
                             double *cost_usd, double *tokens_per_s)
{
    struct by_hand *h = by_hand_build(sw, o);
    struct ts_err err;
    ts_err_clear(&err);
    struct ts_run_result run;
    int rc = ts_run_estimate(&h->in, &run, &err);
    assert_ok(rc, err);
    *time_s = run.mean_s;
    *cost_usd = 0;
    if (h->job.has_cost) {
        struct ts_cost_input ci = {&h->job, &h->it, &run, NULL, 0, h->in.checkpoint_bytes};
        struct ts_cost_result cr;
        rc = ts_cost_compute(&ci, &cr, &err);
        assert_ok(rc, err);
        *cost_usd = cr.total_usd;
    }
    *tokens_per_s = h->it.tokens_per_s;
    by_hand_free(h);
}

/* The q-quantile of an outcome's wall time over its Monte Carlo replications (the same
 * seeds as the search's). */
static double time_quantile_by_hand(const struct ts_sweep *sw, const struct ts_outcome *o, double q)
{
    struct by_hand *h = by_hand_build(sw, o);
    int reps = h->in.rel.replications;
    double *x = ts_xmalloc((size_t)reps * sizeof *x);
    struct ts_run_result run;
    struct ts_err err;
    ts_err_clear(&err);
    int rc = ts_run_simulate(&h->in, &run, x, NULL, &err);
    assert_ok(rc, err);
    ts_stats_sort(x, (size_t)reps);
    double v = ts_stats_percentile_sorted(x, (size_t)reps, q);
    free(x);
    by_hand_free(h);
    return v;
}

/* A deadline "with probability 0.1" is met by a configuration whose 10th percentile beats it
 * even when its expected time does not. The cheapest configuration of a loose sweep (top 1)
 * stays the cheapest under a tighter deadline that it still meets, so with the deadline
 * between its 10th percentile and its expected time it must remain the answer. */
/* Simulate the by-hand job with `reps` replications from `seed`; its bill too. */
static void run_by_hand(struct by_hand *h, int reps, uint64_t seed, struct ts_run_result *run,
                        struct ts_cost_result *cost)
{
    struct ts_run_input in = h->in;
    in.rel.replications = reps;
    in.rel.seed = seed;
    double *samples = ts_xmalloc((size_t)reps * sizeof *samples);
    struct ts_err err;
    ts_err_clear(&err);
    int rc = ts_run_simulate(&in, run, samples, NULL, &err);
    assert_ok(rc, err);
    struct ts_cost_input ci = {&h->job, &h->it, run, samples, reps, in.checkpoint_bytes};
    rc = ts_cost_compute(&ci, cost, &err);
    assert_ok(rc, err);
    free(samples);
}

/* `trainsim run` of the sweep's answer reproduces the sweep's expected time and cost: the
 * job rebuilt from the best layout through the public API, simulated with the sweep's seed,
 * gives the same numbers bit for bit, and with another seed and more replications agrees
 * within Monte Carlo error (4 combined standard errors; the cost's from the time's, since
 * the bill grows in proportion to the wall time). Both on-demand and spot rows carry
 * failures, so the answer has failures whatever its pricing. */
static void run_of_the_sweep_answer_reproduces_its_expected_time_and_cost(void **state)
{
    (void)state;
    struct ts_sweep *sw = sweep_from_file(SMALL_COST_FILE);
    struct ts_sweep_result r;
    sweep_run(sw, 2, false, 0, NULL, &r);
    assert_true(r.found);
    const struct ts_outcome *best = &r.top[0];
    assert_true(best->monte_carlo);
    assert_true(r.best_run.failures_mean > 0.0);
    assert_true(isfinite(r.best_run.params.job_mtbf_s));
    assert_false(r.best_job.reliability.none);
    struct by_hand *h = by_hand_build(sw, best);
    assert_int_equal(h->in.rel.n_failures, 5);  // the fleet defaults (no failures key)

    struct ts_run_result same, other;
    struct ts_cost_result same_cost, other_cost;
    run_by_hand(h, sw->reliability.replications, sw->reliability.seed, &same, &same_cost);
    assert_true(same.mean_s == best->mc_time_mean_s && same.p90_s == best->mc_time_p90_s);
    assert_true(same_cost.total_usd == best->mc_cost_mean_usd);
    assert_true(same.mean_s == r.best_run.mean_s && same.stderr_s == r.best_run.stderr_s);

    run_by_hand(h, ts_test_under_valgrind() ? 60 : 400, 12345, &other, &other_cost);
    double se = sqrt(other.stderr_s * other.stderr_s + r.best_run.stderr_s * r.best_run.stderr_s);
    print_message("sweep answer: sweep %.6g +- %.3g s, run %.6g +- %.3g s; cost $%.2f vs $%.2f\n",
                  r.best_run.mean_s, r.best_run.stderr_s, other.mean_s, other.stderr_s,
                  best->mc_cost_mean_usd, other_cost.total_usd);
    assert_true(se > 0.0);
    assert_close(other.mean_s, r.best_run.mean_s, 0.0, 4.0 * se);
    double cse = sqrt(pow(other_cost.total_usd * other.stderr_s / other.mean_s, 2) +
                      pow(best->mc_cost_mean_usd * r.best_run.stderr_s / r.best_run.mean_s, 2));
    assert_close(other_cost.total_usd, best->mc_cost_mean_usd, 0.0, 4.0 * cse);
    by_hand_free(h);
    ts_sweep_result_free(&r);
    free(sw);
}

/* Every row has failures, spot or not: the sweep's on-demand and spot rows of one layout see
 * the same failure processes (the asymmetry of issue 13 is gone), and "reliability": "none"
 * removes them from both (spot keeps its preemptions). */
static void on_demand_and_spot_rows_get_the_same_failure_processes(void **state)
{
    (void)state;
    struct ts_sweep *sw = sweep_from_file(SMALL_COST_FILE);
    struct ts_layout l;
    memset(&l, 0, sizeof l);
    l.system = 1;       // dgx-h100
    l.nodes = 2;
    l.global_batch = 256;
    l.tp = l.pp = l.cp = l.microbatch = l.virtual_stages = 1;
    struct ts_job *od = ts_xmalloc(sizeof *od), *sp = ts_xmalloc(sizeof *sp);
    ts_sweep_layout_job(sw, &l, TS_PRICING_ON_DEMAND, od);
    ts_sweep_layout_job(sw, &l, TS_PRICING_SPOT, sp);
    assert_true(od->has_reliability && sp->has_reliability);
    assert_int_equal(od->reliability.n_failures, 5);
    assert_memory_equal(od->reliability.failures, sp->reliability.failures,
                        sizeof od->reliability.failures);
    assert_false(od->reliability.spot.enabled);
    assert_true(sp->reliability.spot.enabled);
    assert_true(ts_run_job_mtbf(&od->reliability, od->gpus, od->nodes) >
                ts_run_job_mtbf(&sp->reliability, sp->gpus, sp->nodes));
    free(sw);
    sw = sweep_from_text("{\"name\": \"none\", \"model\": \"megatron-1.7b\", \"tokens\": \"1B\","
                         " \"global_batch\": 256, \"systems\": [\"dgx-h100\"], \"nodes\": [2],"
                         " \"pricing\": [\"on_demand\", \"spot\"],"
                         " \"parallel\": {\"tp\": 1, \"pp\": 1, \"cp\": 1, \"microbatch\": 1},"
                         " \"reliability\": \"none\", \"cost\": {\"gpu_hour\": {\"on_demand\": 4, \"spot\": 2}},"
                         " \"constraint\": {\"deadline\": \"30 d\"}, \"objective\": \"cost\"}");
    l.system = 0;
    ts_sweep_layout_job(sw, &l, TS_PRICING_ON_DEMAND, od);
    ts_sweep_layout_job(sw, &l, TS_PRICING_SPOT, sp);
    assert_true(od->reliability.none && od->reliability.n_failures == 0);
    assert_true(sp->reliability.none && sp->reliability.n_failures == 0);
    assert_true(isinf(ts_run_job_mtbf(&od->reliability, od->gpus, od->nodes)));
    assert_true(sp->reliability.spot.enabled);
    free(od);
    free(sp);
    free(sw);
}

static void low_probability_deadline_is_checked_on_the_quantile_not_the_expected_time(void **state)
{
    (void)state;
    struct ts_sweep *sw = sweep_from_text(sweep_probability);
    sw->probability = 0.1;
    sw->top = 1;
    struct ts_sweep_result loose, tight;
    sweep_run(sw, 1, false, 0, NULL, &loose);
    assert_true(loose.found);
    struct ts_outcome best = loose.top[0];
    double p10 = time_quantile_by_hand(sw, &best, 0.1);
    assert_true(p10 < best.time_s);
    sw->deadline_s = 0.5 * (p10 + best.time_s);
    sweep_run(sw, 2, false, 8, NULL, &tight);
    assert_true(tight.found);
    assert_same_outcome(&tight.top[0], &best, "best", 0, "probability 0.1");
    assert_true(tight.top[0].time_s > sw->deadline_s);
    ts_sweep_result_free(&loose);
    ts_sweep_result_free(&tight);
    free(sw);
}

/* Brute force: dump every simulated configuration of an exhaustive search to CSV; the
 * reported top-k must be the k smallest objectives over the rows that meet the constraint,
 * and every layout's screening bound must lie below its simulated time and cost. */
static void check_exhaustive_against_csv(const struct ts_sweep *sw)
{
    char dir[64], csv_path[128];
    make_temp_dir(dir, sizeof dir);
    snprintf(csv_path, sizeof csv_path, "%s/all.csv", dir);
    struct ts_sweep_result r;
    sweep_run(sw, 2, true, 0, csv_path, &r);
    assert_true(r.found);
    struct csv c;
    csv_read(csv_path, &c);
    int col = sw->objective == TS_OBJECTIVE_COST ? CSV_COST : CSV_TIME;
    double *obj = ts_xmalloc((size_t)c.n_rows * sizeof *obj);
    int n = 0, simulated_rows = 0;
    for (int i = 0; i < c.n_rows; i++) {
        if (strcmp(c.rows[i][CSV_STATUS], "simulated") != 0)
            continue;
        simulated_rows++;
        double t = atof(c.rows[i][CSV_TIME]), cost = atof(c.rows[i][CSV_COST]);
        double bt = atof(c.rows[i][CSV_BOUND_TIME]), bc = atof(c.rows[i][CSV_BOUND_COST]);
        /* Failures only add time: the failure-free time is no more than the estimate. */
        assert_true(atof(c.rows[i][CSV_FAILURE_FREE]) <= t * (1 + 2e-6));
        /* The bound is a lower bound (both printed with 6 significant digits). */
        if (!(bt <= t * (1 + 2e-6)) || !(bc <= cost * (1 + 2e-6))) {
            print_error("sweep %s: CSV row %d: bound time %g > time %g or bound cost %g > cost %g\n",
                        sw->name, i + 2, bt, t, bc, cost);
            fail();
        }
        if (strcmp(c.rows[i][CSV_MEETS], "true") == 0)
            obj[n++] = atof(c.rows[i][col]);
    }
    assert_int_equal(simulated_rows, r.simulated * sw->n_pricing);
    assert_true(n <= r.feasible);
    /* Brute force over the rows: the best objective of each purchase (system x nodes x
     * pricing), the k smallest of those. */
    int np_ = 0;
    double *pbest = ts_xmalloc((size_t)(n + 1) * sizeof *pbest);
    char (*pkey)[96] = ts_xmalloc((size_t)(n + 1) * sizeof *pkey);
    int *pcount = ts_xcalloc((size_t)(n + 1), sizeof *pcount);
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < c.n_rows; i++) {
            if (strcmp(c.rows[i][CSV_STATUS], "simulated") != 0 || strcmp(c.rows[i][CSV_MEETS], "true") != 0)
                continue;
            char key[96];
            snprintf(key, sizeof key, "%s/%s/%s", c.rows[i][CSV_SYSTEM], c.rows[i][CSV_NODES],
                     c.rows[i][CSV_PRICING]);
            double v = atof(c.rows[i][col]);
            int j = 0;
            while (j < np_ && strcmp(pkey[j], key) != 0)
                j++;
            if (pass == 0) {
                if (j == np_) {
                    snprintf(pkey[np_], sizeof pkey[np_], "%s", key);
                    pbest[np_++] = v;
                } else if (v < pbest[j]) {
                    pbest[j] = v;
                }
            } else if (v <= pbest[j] * (1 + TS_SWEEP_TIE_TOLERANCE)) {
                pcount[j]++;    /* a layout within the tie tolerance of its purchase's best */
            }
        }
    /* Each top row is a distinct purchase, its objective that purchase's best, and the
     * layouts listed with it are exactly those within the tolerance. */
    for (int i = 0; i < r.n_top; i++) {
        char key[96];
        snprintf(key, sizeof key, "%s/%d/%s", sw->systems[r.top[i].layout.system].name,
                 r.top[i].layout.nodes, ts_pricing_names[r.top[i].pricing]);
        int j = 0;
        while (j < np_ && strcmp(pkey[j], key) != 0)
            j++;
        assert_true(j < np_);
        assert_close(r.top[i].objective, pbest[j], 1e-12, 0);
        assert_int_equal(r.top_first[i + 1] - r.top_first[i], pcount[j]);
        for (int q = 0; q < i; q++)
            assert_false(r.top[q].layout.system == r.top[i].layout.system &&
                         r.top[q].layout.nodes == r.top[i].layout.nodes &&
                         r.top[q].pricing == r.top[i].pricing);
        for (int e = r.top_first[i]; e < r.top_first[i + 1]; e++) {
            const struct ts_outcome *x = &r.top_layouts[e];
            assert_true(x->layout.system == r.top[i].layout.system &&
                        x->layout.nodes == r.top[i].layout.nodes && x->pricing == r.top[i].pricing);
            assert_true(x->objective <= r.top[i].objective * (1 + TS_SWEEP_TIE_TOLERANCE));
        }
    }
    free(pkey);
    free(pcount);
    qsort(pbest, (size_t)np_, sizeof *pbest, cmp_double);
    /* The top-k by the analytic objective (the report orders it by the Monte Carlo one). */
    double *top = ts_xmalloc((size_t)r.n_top * sizeof *top);
    for (int i = 0; i < r.n_top; i++)
        top[i] = r.top[i].objective;
    qsort(top, (size_t)r.n_top, sizeof *top, cmp_double);
    assert_int_equal(r.n_top, np_ < sw->top ? np_ : sw->top);
    for (int i = 0; i < r.n_top; i++)
        assert_close(top[i], pbest[i], 1e-12, 0);
    free(pbest);
    /* The top configurations re-evaluated through the public API give the same numbers. */
    for (int i = 0; i < r.n_top; i++) {
        double t, cost, tps;
        evaluate_by_hand(sw, &r.top[i], &t, &cost, &tps);
        assert_close(r.top[i].time_s, t, 1e-12, 0);
        assert_close(r.top[i].cost_usd, cost, 1e-12, 0);
        assert_close(r.top[i].tokens_per_s, tps, 1e-12, 0);
        assert_true(r.top[i].meets);
        assert_true(sw->deadline_s == 0 || t <= sw->deadline_s);
        assert_true(tps >= sw->min_tokens_per_s);
    }
    free(top);
    free(obj);
    csv_free(&c);
    ts_sweep_result_free(&r);
    remove_dir(dir);
}

static void exhaustive_top_k_are_the_smallest_objectives_over_every_simulated_csv_row(void **state)
{
    (void)state;
    struct ts_sweep *sw = sweep_from_file(SMALL_COST_FILE);
    check_exhaustive_against_csv(sw);
    free(sw);
    if (ts_test_under_valgrind())
        return;     // the small sweep is enough to check memory there
    sw = sweep_from_text(sweep_time_throughput);
    check_exhaustive_against_csv(sw);
    free(sw);
    sw = sweep_from_text(sweep_cost_throughput);
    check_exhaustive_against_csv(sw);
    free(sw);
}

/* ---------------------------------------------------------------- 2. thread count */

static void check_same_json_on_one_and_two_threads(const struct ts_sweep *sw, bool exhaustive, int batch)
{
    struct ts_sweep_result r1, r2;
    sweep_run(sw, 1, exhaustive, batch, NULL, &r1);
    sweep_run(sw, 2, exhaustive, batch, NULL, &r2);
    char *j1 = report_without_elapsed(sw, &r1), *j2 = report_without_elapsed(sw, &r2);
    if (strcmp(j1, j2) != 0) {
        size_t k = 0;
        while (j1[k] && j1[k] == j2[k])
            k++;
        print_error("sweep %s: JSON on 1 and 2 threads differs at byte %zu:\n1: %.120s\n2: %.120s\n",
                    sw->name, k, j1 + (k > 60 ? k - 60 : 0), j2 + (k > 60 ? k - 60 : 0));
        fail();
    }
    assert_int_equal(r1.simulated, r2.simulated);
    free(j1);
    free(j2);
    ts_sweep_result_free(&r1);
    ts_sweep_result_free(&r2);
}

static void same_sweep_gives_byte_identical_json_on_one_and_two_threads(void **state)
{
    (void)state;
    struct ts_sweep *sw = sweep_from_file(SMALL_COST_FILE);
    check_same_json_on_one_and_two_threads(sw, false, 0);
    check_same_json_on_one_and_two_threads(sw, false, 8);
    free(sw);
    sw = probability_sweep();
    check_same_json_on_one_and_two_threads(sw, false, 8);
    check_same_json_on_one_and_two_threads(sw, true, 0);
    free(sw);
}

/* ---------------------------------------------------------------- 3. known answers */

/* Two systems with the same hardware (the DGX H100 numbers), one at $2 and one at $3 per
 * GPU-hour; one node, one layout (tp 8, dp 1, microbatch 1, no ZeRO, 1F1B), no failures.
 * Both train in the same time T, so the cheap one wins, and its bill is 8 GPUs x T x $2
 * (plus the same small storage); the runner-up is the same layout at 1.5 times the compute. */
#define TEST_SYSTEM(NAME)                                                                             \
    "{\"name\": \"" NAME "\", \"accelerator\": \"h100-sxm\", \"gpus_per_node\": 8,"                   \
    " \"scale_up\": {\"bandwidth\": \"450 GB/s\", \"latency\": \"5 us\", \"domain_size\": 8, \"topology\": \"switch\"}," \
    " \"scale_out\": {\"bandwidth\": \"400 Gb/s\", \"latency\": \"75 us\", \"topology\": \"rail_optimized\","     \
    " \"oversubscription\": 1}, \"source\": \"test: the DGX H100 numbers\"}"

#define ONE_LAYOUT                                                                                    \
    " \"parallel\": {\"tp\": 8, \"pp\": 1, \"cp\": 1, \"microbatch\": 1, \"zero\": 0, \"recompute\": \"none\"," \
    "              \"schedule\": \"1f1b\", \"sequence_parallel\": false},"

static void of_two_identical_systems_the_cheaper_one_wins(void **state)
{
    (void)state;
    const char *text =
        "{\"model\": \"megatron-1.7b\", \"tokens\": \"1B\", \"global_batch\": 8,"
        " \"systems\": [" TEST_SYSTEM("dear-h100") ", " TEST_SYSTEM("cheap-h100") "], \"nodes\": 1,"
        ONE_LAYOUT
        " \"reliability\": \"none\","     /* failure-free: the bill is GPU-hours x price exactly */
        " \"cost\": {\"gpu_hour\": {\"on_demand\": 3.0},"
        "          \"by_system\": {\"cheap-h100\": {\"gpu_hour\": {\"on_demand\": 2.0}}}},"
        " \"constraint\": {\"min_tokens_per_s\": 1}, \"objective\": \"cost\"}";
    struct ts_sweep *sw = sweep_from_text(text);
    struct ts_sweep_result r;
    sweep_run(sw, 1, false, 0, NULL, &r);
    assert_int_equal(r.enumerated, 2);
    assert_int_equal(r.evaluated, 2);
    assert_int_equal(r.simulated, 2);
    assert_int_equal(r.feasible, 2);
    assert_true(r.found);
    assert_int_equal(r.n_top, 2);
    assert_string_equal(sw->systems[r.top[0].layout.system].name, "cheap-h100");
    assert_string_equal(sw->systems[r.top[1].layout.system].name, "dear-h100");
    assert_string_equal(r.best_job.system.name, "cheap-h100");
    assert_int_equal(r.top[0].layout.tp, 8);
    assert_int_equal(r.top[0].pricing, TS_PRICING_ON_DEMAND);
    /* Same hardware, same layout: the same time to train. */
    assert_true(same_double(r.top[0].time_s, r.top[1].time_s));
    double T = r.best_run.mean_s;
    assert_close(r.best_cost.breakdown_usd[TS_COST_COMPUTE], 8 * T / 3600 * 2.0, 1e-9, 0);
    assert_close(r.top[1].cost_usd - r.top[0].cost_usd, 8 * T / 3600 * (3.0 - 2.0), 1e-9, 0);
    /* The cheap one is on the Pareto front alone: same time, lower cost. */
    assert_int_equal(r.n_pareto, 1);
    assert_string_equal(sw->systems[r.pareto[0].layout.system].name, "cheap-h100");
    ts_sweep_result_free(&r);
    free(sw);
}

#define SPOT_SWEEP(OBJECTIVE) \
    "{\"model\": \"megatron-1.7b\", \"tokens\": \"1B\", \"global_batch\": 8," \
    " \"systems\": [\"dgx-h100\"], \"nodes\": 1, \"pricing\": [\"on_demand\", \"spot\"]," \
        ONE_LAYOUT \
    " \"reliability\": {\"failures\": [], \"spot\": {\"preemption_mtbf\": \"1000000 h\"}, \"replications\": 20}," \
    " \"cost\": {\"gpu_hour\": {\"on_demand\": 10.0, \"spot\": 0.01}}," \
    " \"constraint\": {\"min_tokens_per_s\": 1}, \"objective\": \"" OBJECTIVE "\"}"

/* One system, one layout, on-demand at $10 and spot at $0.01 per GPU-hour, no failures and
 * a spot preemption once per million node-hours: spot costs a thousandth as much per hour
 * and takes about as long, so it is the cheapest; but preemptions, however rare, add
 * expected rework and checkpoints, so on-demand is the fastest. */
static void nearly_free_spot_wins_on_cost_and_on_demand_wins_on_time(void **state)
{
    (void)state;
    struct ts_sweep *sw = sweep_from_text(SPOT_SWEEP("cost"));
    struct ts_sweep_result r;
    sweep_run(sw, 1, false, 0, NULL, &r);
    assert_true(r.found);
    assert_int_equal(r.n_top, 2);
    assert_int_equal(r.top[0].pricing, TS_PRICING_SPOT);
    assert_int_equal(r.top[1].pricing, TS_PRICING_ON_DEMAND);
    assert_int_equal(r.best_job.cost.pricing, TS_PRICING_SPOT);
    assert_true(r.top[1].cost_usd > 900 * r.top[0].cost_usd);
    assert_close(r.top[0].time_s, r.top[1].time_s, 1e-3, 0);
    ts_sweep_result_free(&r);
    free(sw);

    sw = sweep_from_text(SPOT_SWEEP("time"));
    sweep_run(sw, 1, false, 0, NULL, &r);
    assert_true(r.found);
    assert_int_equal(r.top[0].pricing, TS_PRICING_ON_DEMAND);
    assert_true(r.top[0].time_s < r.top[1].time_s);
    /* Both are on the front: one is faster, the other cheaper. */
    assert_int_equal(r.n_pareto, 2);
    ts_sweep_result_free(&r);
    free(sw);
}

/* ---------------------------------------------------------------- 4. infeasible */

static char *message_of(const struct ts_sweep *sw, const struct ts_sweep_result *r, bool *best_is_null)
{
    cJSON *o = ts_report_sweep_json(sw, r);
    const cJSON *best = cJSON_GetObjectItemCaseSensitive(o, "best");
    assert_non_null(best);
    *best_is_null = cJSON_IsNull(best);
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(o, "message");
    const char *text = cJSON_IsString(m) ? m->valuestring : "";
    char *s = ts_xmalloc(strlen(text) + 1);
    memcpy(s, text, strlen(text) + 1);
    cJSON_Delete(o);
    return s;
}

static void assert_contains(const char *hay, const char *needle)
{
    if (!strstr(hay, needle)) {
        print_error("\"%s\" does not contain \"%s\"\n", hay, needle);
        fail();
    }
}

/* 300B tokens in one hour on at most 4 nodes is out of reach; the closest miss is the most
 * GPUs of the fastest GPU: 4 x dgx-h100 (H100 has about 3x the A100's bf16 peak). */
static void unreachable_deadline_reports_no_answer_and_the_closest_miss(void **state)
{
    (void)state;
    struct ts_sweep *sw = sweep_from_file("search/infeasible-deadline.json");
    struct ts_sweep_result r;
    sweep_run(sw, 2, false, 0, NULL, &r);
    assert_false(r.found);
    assert_int_equal(r.n_top, 0);
    assert_int_equal(r.feasible, 0);
    assert_true(r.rejected[TS_REJECT_CONSTRAINT] > 0);
    assert_true(r.has_closest);
    assert_int_equal(r.closest.layout.nodes, 4);
    assert_string_equal(sw->systems[r.closest.layout.system].name, "dgx-h100");
    assert_true(r.closest.time_s > sw->deadline_s);
    bool null_best;
    char *m = message_of(sw, &r, &null_best);
    assert_true(null_best);
    assert_contains(m, "no configuration meets the constraint (done within");
    assert_contains(m, "(4 x dgx-h100 nodes)");
    free(m);
    ts_sweep_result_free(&r);
    free(sw);
}

static void unreachable_throughput_reports_the_closest_throughput(void **state)
{
    (void)state;
    struct ts_sweep *sw = sweep_from_file("search/infeasible-deadline.json");
    sw->deadline_s = 0;
    sw->min_tokens_per_s = 1e9;
    struct ts_sweep_result r;
    sweep_run(sw, 1, false, 0, NULL, &r);
    assert_false(r.found);
    assert_true(r.has_closest);
    assert_int_equal(r.closest.layout.nodes, 4);
    assert_string_equal(sw->systems[r.closest.layout.system].name, "dgx-h100");
    assert_true(r.closest.tokens_per_s < 1e9);
    bool null_best;
    char *m = message_of(sw, &r, &null_best);
    assert_true(null_best);
    assert_contains(m, "no configuration meets the constraint (at least 1e+09 tokens/s); the closest reaches");
    assert_contains(m, "(4 x dgx-h100 nodes)");
    free(m);
    ts_sweep_result_free(&r);
    free(sw);
}

/* A deadline just below the fastest configuration's expected time: the screen lets layouts
 * through (their bounds meet it), the simulation finds none does, and the closest miss is
 * exactly the fastest configuration of a looser sweep. */
static void deadline_just_below_the_fastest_time_names_the_fastest_configuration(void **state)
{
    (void)state;
    struct ts_sweep *sw = sweep_from_text(sweep_time_with_cost);
    struct ts_sweep_result loose, tight;
    sweep_run(sw, 1, false, 8, NULL, &loose);
    assert_true(loose.found);
    /* The fastest by the analytic expected time (the objective) among the top-k. */
    const struct ts_outcome *fastest = &loose.top[0];
    for (int i = 1; i < loose.n_top; i++)
        if (loose.top[i].time_s < fastest->time_s)
            fastest = &loose.top[i];
    sw->deadline_s = fastest->time_s * (1 - 1e-9);
    sweep_run(sw, 2, false, 8, NULL, &tight);
    assert_false(tight.found);
    assert_true(tight.simulated > 0);
    assert_true(tight.has_closest);
    assert_true(same_double(tight.closest.time_s, fastest->time_s));
    assert_int_equal(tight.closest.layout.nodes, fastest->layout.nodes);
    assert_int_equal(tight.closest.layout.system, fastest->layout.system);
    bool null_best;
    char *m = message_of(sw, &tight, &null_best);
    assert_true(null_best);
    char want[128];
    snprintf(want, sizeof want, "(%d x %s nodes)", fastest->layout.nodes,
             sw->systems[fastest->layout.system].name);
    assert_contains(m, "no configuration meets the constraint");
    assert_contains(m, want);
    free(m);
    ts_sweep_result_free(&loose);
    ts_sweep_result_free(&tight);
    free(sw);
}

/* ---------------------------------------------------------------- 5. rejection counts */

/* Megatron 1.7B (24 heads, 24 layers) on 2 nodes (16 GPUs), one microbatch size, one
 * schedule, no ZeRO: tp in {1, 2, 4, 8, 16} with pp 1 and pp 16 with tp 1 are the layouts
 * whose product divides 16 (6 enumerated); tp 16 does not divide 24 heads and pp 16 does not
 * divide 24 layers (2 divisibility rejections); 4 are screened, at 2 pricings. */
static void divisibility_rejections_are_counted_by_hand(void **state)
{
    (void)state;
    const char *text =
        "{\"model\": \"megatron-1.7b\", \"tokens\": \"1B\", \"global_batch\": 32,"
        " \"systems\": [\"dgx-a100-80g\"], \"nodes\": [2], \"pricing\": [\"on_demand\", \"spot\"],"
        " \"parallel\": {\"tp\": [1, 2, 4, 8, 16], \"pp\": [1, 16], \"cp\": 1, \"microbatch\": 1, \"zero\": 0,"
        "              \"recompute\": \"none\", \"schedule\": \"1f1b\", \"sequence_parallel\": false},"
        " \"reliability\": {\"replications\": 20},"
        " \"constraint\": {\"min_tokens_per_s\": 1}, \"objective\": \"time\"}";
    struct ts_sweep *sw = sweep_from_text(text);
    struct ts_sweep_result r;
    sweep_run(sw, 1, false, 0, NULL, &r);
    assert_int_equal(r.enumerated, 6);
    assert_int_equal(r.rejected[TS_REJECT_DIVISIBILITY], 2);
    assert_int_equal(r.evaluated, 4 * 2);
    assert_int_equal(r.rejected[TS_REJECT_MEMORY], 0);
    assert_counts_add_up(sw, &r);
    assert_true(r.found);
    for (int i = 0; i < r.n_top; i++)
        assert_true(r.top[i].layout.tp <= 8 && r.top[i].layout.pp == 1);
    ts_sweep_result_free(&r);
    free(sw);
}

/* Llama 3 70B (70.6e9 parameters) with tp 8, pp 1 and no ZeRO holds 70.6e9 / 8 x 18 bytes
 * (bf16 weights 2, fp32 gradients 4, fp32 master weights and Adam moments 12) = 159 GB per
 * GPU before activations, more than an A100's 80 GiB, on 1 node (dp 1) as on 8 (dp 8);
 * tp 8 x pp 8 on 8 nodes splits the model 64 ways (20 GB) and fits. */
/* A listed pricing a system has no price for (spot exists for some instance types only) is
 * not offered there: never simulated, ranked or counted. The mixed sweep must count exactly
 * what its two offered halves count (both systems on demand, the H100 on spot), and no
 * A100 spot configuration may appear among its answers. */
#define OFFERED_SWEEP(systems, pricing) \
    "{\"model\": \"megatron-1.7b\", \"tokens\": \"2B\", \"global_batch\": 64," \
    " \"systems\": " systems ", \"nodes\": [1, 2], \"pricing\": " pricing "," \
    " \"parallel\": {\"tp\": [1, 2, 4, 8], \"pp\": [1, 2], \"cp\": 1, \"microbatch\": [1, 2], \"zero\": [0, 1]," \
    "              \"recompute\": \"none\", \"schedule\": \"1f1b\"}," \
    " \"reliability\": {\"replications\": 20}," \
    " \"cost\": {\"gpu_hour\": {\"on_demand\": 4.0}," \
    "          \"by_system\": {\"dgx-h100\": {\"gpu_hour\": {\"on_demand\": 8.0, \"spot\": 2.0}}}}," \
    " \"constraint\": {\"min_tokens_per_s\": 1e4}, \"objective\": \"cost\", \"top\": 30}"

static void a_pricing_without_a_price_is_not_offered_on_that_system(void **state)
{
    (void)state;
    struct ts_sweep *mixed = sweep_from_text(OFFERED_SWEEP("[\"dgx-a100-80g\", \"dgx-h100\"]",
                                                           "[\"on_demand\", \"spot\"]"));
    struct ts_sweep *od = sweep_from_text(OFFERED_SWEEP("[\"dgx-a100-80g\", \"dgx-h100\"]", "[\"on_demand\"]"));
    struct ts_sweep *spot = sweep_from_text(OFFERED_SWEEP("[\"dgx-h100\"]", "[\"spot\"]"));
    assert_false(mixed->offered[0][TS_PRICING_SPOT]);
    assert_true(mixed->offered[1][TS_PRICING_SPOT]);
    /* A system offered at none of the listed pricings is a mistake in the file. */
    struct ts_sweep *none = ts_xmalloc(sizeof *none);
    struct ts_err err;
    int rc = sweep_parse_text(OFFERED_SWEEP("[\"dgx-a100-80g\", \"dgx-h100\"]", "[\"spot\"]"), none, &err);
    assert_input_error(rc, &err, "cost.gpu_hour: system dgx-a100-80g has no price for any listed pricing");
    free(none);
    struct ts_sweep_result m, a, b;
    sweep_run(mixed, 1, true, 0, NULL, &m);
    sweep_run(od, 1, true, 0, NULL, &a);
    sweep_run(spot, 1, true, 0, NULL, &b);
    assert_int_equal(m.evaluated, a.evaluated + b.evaluated);
    assert_int_equal(m.feasible, a.feasible + b.feasible);
    for (int r = TS_REJECT_MEMORY; r < TS_REJECT_COUNT; r++)
        if (r != TS_REJECT_DEADLINE_P)
            assert_int_equal(m.rejected[r], a.rejected[r] + b.rejected[r]);
    assert_true(m.found && m.n_top > 0 && m.n_pareto > 0);
    int spot_seen = 0;
    for (int i = 0; i < m.n_top; i++) {
        assert_false(m.top[i].pricing == TS_PRICING_SPOT && m.top[i].layout.system == 0);
        assert_true(isfinite(m.top[i].cost_usd) && m.top[i].cost_usd > 0);
        spot_seen += m.top[i].pricing == TS_PRICING_SPOT;
    }
    for (int i = 0; i < m.n_pareto; i++)
        assert_false(m.pareto[i].pricing == TS_PRICING_SPOT && m.pareto[i].layout.system == 0);
    /* H100 spot at $2 undercuts every on-demand price: it is offered and it wins. */
    assert_true(spot_seen > 0);
    assert_int_equal(m.top[0].pricing, TS_PRICING_SPOT);
    assert_int_equal(m.top[0].layout.system, 1);
    ts_sweep_result_free(&m);
    ts_sweep_result_free(&a);
    ts_sweep_result_free(&b);
    free(mixed);
    free(od);
    free(spot);
}

static void layouts_that_do_not_fit_are_rejected_for_memory(void **state)
{
    (void)state;
    const char *text =
        "{\"model\": \"llama3-70b\", \"tokens\": \"10B\", \"global_batch\": 64,"
        " \"systems\": [\"dgx-a100-80g\"], \"nodes\": [1, 8],"
        " \"parallel\": {\"tp\": 8, \"pp\": [1, 8], \"cp\": 1, \"microbatch\": 1, \"zero\": 0,"
        "              \"recompute\": \"full\", \"schedule\": \"1f1b\", \"sequence_parallel\": true},"
        " \"constraint\": {\"min_tokens_per_s\": 1}, \"objective\": \"time\"}";
    struct ts_sweep *sw = sweep_from_text(text);
    struct ts_sweep_result r;
    sweep_run(sw, 1, false, 0, NULL, &r);
    assert_int_equal(r.enumerated, 3);
    assert_int_equal(r.rejected[TS_REJECT_DIVISIBILITY], 0);
    assert_int_equal(r.rejected[TS_REJECT_MEMORY], 2);
    assert_counts_add_up(sw, &r);
    assert_true(r.found);
    assert_int_equal(r.top[0].layout.pp, 8);
    assert_int_equal(r.top[0].layout.nodes, 8);
    ts_sweep_result_free(&r);

    /* On one node nothing fits: no answer, no closest miss, and the message says so. */
    sw->nodes.n = 1;
    sweep_run(sw, 1, false, 0, NULL, &r);
    assert_false(r.found);
    assert_false(r.has_closest);
    assert_int_equal(r.rejected[TS_REJECT_MEMORY], 1);
    bool null_best;
    char *m = message_of(sw, &r, &null_best);
    assert_true(null_best);
    assert_contains(m, "none even fits in memory");
    free(m);
    ts_sweep_result_free(&r);
    free(sw);
}

/* (Every sweep of the pruned-equals-exhaustive test also checks that its counts add up.) */
static void probability_sweep_has_every_kind_of_rejection_but_divisibility(void **state)
{
    (void)state;
    struct ts_sweep *sw = probability_sweep();
    struct ts_sweep_result r;
    sweep_run(sw, 2, false, 8, NULL, &r);
    assert_counts_add_up(sw, &r);
    assert_int_equal(r.rejected[TS_REJECT_DIVISIBILITY], 0);
    assert_true(r.rejected[TS_REJECT_MEMORY] > 0);
    assert_true(r.rejected[TS_REJECT_CONSTRAINT] > 0);
    assert_true(r.rejected[TS_REJECT_PRUNED] > 0);
    assert_true(r.rejected[TS_REJECT_DEADLINE_P] > 0);
    ts_sweep_result_free(&r);
    free(sw);
}

/* ---------------------------------------------------------------- 6. bad sweep files */

/* A valid sweep; each case below breaks one key of it. */
static const char *const base_sweep =
    "{\"name\": \"base\", \"model\": \"megatron-1.7b\", \"tokens\": \"1B\", \"global_batch\": 64,"
    " \"systems\": [\"dgx-a100-80g\", \"dgx-h100\"], \"nodes\": [1, 2], \"pricing\": [\"on_demand\", \"spot\"],"
    " \"parallel\": {\"tp\": [1, 2], \"pp\": 1, \"microbatch\": [1, 2], \"zero\": 0},"
    " \"reliability\": {\"replications\": 20},"
    " \"cost\": {\"gpu_hour\": {\"on_demand\": 4.0, \"spot\": 1.5},"
    "          \"by_system\": {\"dgx-h100\": {\"gpu_hour\": {\"on_demand\": 8.0}}}},"
    " \"constraint\": {\"deadline\": \"30 d\"}, \"objective\": \"cost\", \"top\": 3}";

/* The base sweep with the value at `path` ("a" or "a.b") set to the JSON `value`, or removed
 * when value is NULL; parsed as TEST_FILE. */
static int parse_modified(const char *path, const char *value, struct ts_err *err)
{
    cJSON *doc = ts_test_json(base_sweep);
    char key[128];
    snprintf(key, sizeof key, "%s", path);
    cJSON *parent = doc;
    char *leaf = key, *dot;
    while ((dot = strchr(leaf, '.'))) {
        *dot = '\0';
        parent = cJSON_GetObjectItemCaseSensitive(parent, leaf);
        assert_non_null(parent);
        leaf = dot + 1;
    }
    cJSON_DeleteItemFromObjectCaseSensitive(parent, leaf);
    if (value)
        cJSON_AddItemToObject(parent, leaf, ts_test_json(value));
    char *text = cJSON_PrintUnformatted(doc);
    cJSON_Delete(doc);
    struct ts_sweep *sw = ts_xmalloc(sizeof *sw);
    int rc = sweep_parse_text(text, sw, err);
    free(sw);
    free(text);
    return rc;
}

static void base_sweep_parses(void **state)
{
    (void)state;
    struct ts_err err;
    assert_int_equal(parse_modified("top", "3", &err), TS_OK);
    struct ts_sweep *sw = sweep_from_text(base_sweep);
    assert_int_equal(sw->n_systems, 2);
    assert_int_equal(sw->nodes.n, 2);
    assert_int_equal(sw->n_pricing, 2);
    assert_false(sw->tp.is_auto);
    assert_true(sw->cp.is_auto);
    assert_close(sw->deadline_s, 30 * 86400.0, 0, 0);
    /* by_system overrides one price and keeps the base's others. */
    assert_close(sw->cost[1].gpu_hour[TS_PRICING_ON_DEMAND], 8.0, 0, 0);
    assert_close(sw->cost[1].gpu_hour[TS_PRICING_SPOT], 1.5, 0, 0);
    assert_close(sw->cost[0].gpu_hour[TS_PRICING_ON_DEMAND], 4.0, 0, 0);
    free(sw);
}

struct bad_case {
    const char *path, *value, *message;
};

static void bad_sweep_keys_are_rejected_with_file_and_json_path(void **state)
{
    (void)state;
    static const struct bad_case cases[] = {
        {"tokenz", "1", "tests/sweep.json: tokenz: unknown key"},
        {"parallel.tpp", "2", "tests/sweep.json: parallel.tpp: unknown key"},
        {"constraint.deadlin", "1", "tests/sweep.json: constraint.deadlin: unknown key"},
        {"nodes", "{\"from\": 1, \"to\": 4, \"stp\": 1}", "tests/sweep.json: nodes.stp: unknown key"},
        {"nodes", "[]", "tests/sweep.json: nodes: an empty list searches nothing"},
        {"global_batch", "[]", "tests/sweep.json: global_batch: an empty list searches nothing"},
        {"parallel.tp", "[]", "tests/sweep.json: parallel.tp: an empty list searches nothing"},
        {"pricing", "[]", "tests/sweep.json: pricing: an empty list searches nothing"},
        {"systems", "[]", "tests/sweep.json: systems: give 1 to 16 systems"},
        {"nodes", "{\"from\": 3, \"to\": 16, \"powers_of_two\": true}",
         "tests/sweep.json: nodes: \"from\" (3) is not a power of two"},
        {"nodes", "{\"from\": 8, \"to\": 4}", "tests/sweep.json: nodes: \"to\" (4) is below \"from\" (8)"},
        {"nodes", "{\"from\": 1, \"to\": 8, \"step\": 2, \"powers_of_two\": true}",
         "tests/sweep.json: nodes: give \"step\" or \"powers_of_two\", not both"},
        {"nodes", "{\"from\": 1, \"to\": 100}", "tests/sweep.json: nodes: the range has more than 64 values"},
        {"nodes", "[1, 2, 1]", "tests/sweep.json: nodes[2]: value 1 appears twice"},
        {"nodes", "0", "tests/sweep.json: nodes"},
        {"parallel.tp", "[2, 2]", "tests/sweep.json: parallel.tp[1]: value 2 appears twice"},
        {"parallel.zero", "4", "tests/sweep.json: parallel.zero"},
        {"parallel.schedule", "[\"zigzag\"]", "tests/sweep.json: parallel.schedule[0]: \"zigzag\" is not one of"},
        {"parallel.recompute", "\"most\"", "tests/sweep.json: parallel.recompute: \"most\" is not one of"},
        {"parallel.dp", "2", "tests/sweep.json: parallel: \"dp\" is derived for each configuration"},
        {"parallel.first_stage_layers", "2", "tests/sweep.json: parallel: the sweep derives uneven stage splits"},
        {"pricing", "[\"on_demand\", \"spotty\"]", "tests/sweep.json: pricing[1]: \"spotty\" is not one of"},
        {"systems", "[\"dgx-h100\", \"dgx-h100\"]", "tests/sweep.json: systems[1]: system \"dgx-h100\" appears twice"},
        {"constraint", "{\"min_tokens_per_s\": 1e6, \"deadline\": \"30 d\"}",
         "tests/sweep.json: constraint: give min_tokens_per_s or deadline, not both"},
        /* No constraint (absent or {}) is valid: the sweep optimises the objective alone. */
        {"constraint", "{\"probability\": 0.9}",
         "tests/sweep.json: constraint.probability: a probability applies to a deadline"},
        {"constraint", "{\"min_tokens_per_s\": 1e6, \"probability\": 0.9}",
         "tests/sweep.json: constraint.probability: a probability applies to a deadline"},
        {"constraint", "{\"deadline\": \"30 d\", \"probability\": 1.5}", "tests/sweep.json: constraint.probability"},
        {"model", NULL, "tests/sweep.json: model: required key is missing"},
        {"tokens", NULL, "tests/sweep.json: tokens: required key is missing"},
        {"nodes", NULL, "tests/sweep.json: nodes: required key is missing"},
        {"systems", NULL, "tests/sweep.json: systems: required key is missing"},
        {"global_batch", NULL, "tests/sweep.json: global_batch: required key is missing"},
        {"cost", NULL, "tests/sweep.json: cost: the objective \"cost\" needs a cost section"},
        {"cost.by_system", "{\"dgx-b200\": {\"gpu_hour\": {\"on_demand\": 5}}}",
         "tests/sweep.json: cost.by_system.dgx-b200: not one of the sweep's systems"},
        {"cost.by_system", "[]", "tests/sweep.json: cost.by_system"},
        {"pricing", "[\"on_demand\", \"reserved\"]",
         "tests/sweep.json: pricing: no system has a reserved price"},
        {"objective", "\"speed\"", "tests/sweep.json: objective"},
        {"top", "0", "tests/sweep.json: top"},
    };
    for (size_t i = 0; i < TS_ARRAY_LEN(cases); i++) {
        struct ts_err err;
        int rc = parse_modified(cases[i].path, cases[i].value, &err);
        if (rc != TS_ERR_INPUT || !strstr(err.msg, cases[i].message)) {
            print_error("case %zu (%s = %s): expected an input error containing \"%s\"; got rc %d, \"%s\"\n",
                        i, cases[i].path, cases[i].value ? cases[i].value : "(removed)", cases[i].message,
                        rc, err.msg);
            fail();
        }
    }
}

static void missing_sweep_file_is_an_input_error_naming_it(void **state)
{
    (void)state;
    struct ts_sweep *sw = ts_xmalloc(sizeof *sw);
    struct ts_err err;
    ts_err_clear(&err);
    int rc = ts_sweep_load("/nonexistent/sweep.json", sw, &err);
    assert_input_error(rc, &err, "/nonexistent/sweep.json");
    free(sw);
}

/* ---------------------------------------------------------------- 7. CSV */

static void csv_has_a_row_per_screened_layout_and_pricing_and_no_temporary_file(void **state)
{
    (void)state;
    struct ts_sweep *sw = probability_sweep();
    char dir[64], path[128];
    make_temp_dir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/all.csv", dir);
    struct ts_sweep_result r;
    sweep_run(sw, 2, false, 8, path, &r);
    struct csv c;
    csv_read(path, &c);
    int np = sw->n_pricing;
    long screened = r.enumerated - r.rejected[TS_REJECT_DIVISIBILITY];
    assert_int_equal(c.n_rows, screened + r.simulated * (np - 1));
    /* Rows by status: rejected and pruned layouts once (their counts are x pricing). */
    long by[TS_REJECT_COUNT] = {0}, simulated = 0, meets = 0;
    for (int i = 0; i < c.n_rows; i++) {
        const char *s = c.rows[i][CSV_STATUS];
        assert_string_equal(c.rows[i][CSV_SOFTWARE], "megatron-core");  /* the default profile */
        if (strcmp(s, "simulated") == 0) {
            simulated++;
            meets += strcmp(c.rows[i][CSV_MEETS], "true") == 0;
            assert_true(strcmp(c.rows[i][CSV_PRICING], "on_demand") == 0 ||
                        strcmp(c.rows[i][CSV_PRICING], "spot") == 0);
            continue;
        }
        int k = -1;
        for (int j = 1; j < TS_REJECT_COUNT; j++)
            if (strcmp(s, ts_reject_names[j]) == 0)
                k = j;
        if (k < 0) {
            print_error("row %d: unknown status \"%s\"\n", i + 2, s);
            fail();
        }
        by[k]++;
        assert_string_equal(c.rows[i][CSV_PRICING], "");
    }
    assert_int_equal(simulated, r.simulated * np);
    assert_int_equal(by[TS_REJECT_MEMORY] * np, r.rejected[TS_REJECT_MEMORY]);
    assert_int_equal(by[TS_REJECT_CONSTRAINT] * np, r.rejected[TS_REJECT_CONSTRAINT]);
    assert_int_equal(by[TS_REJECT_PRUNED] * np, r.rejected[TS_REJECT_PRUNED]);
    assert_int_equal(by[TS_REJECT_DIVISIBILITY], 0);
    /* Outcomes that failed the deadline at p90 are marked as missing it. */
    assert_true(r.rejected[TS_REJECT_DEADLINE_P] > 0);
    assert_true(meets <= r.feasible);
    csv_free(&c);
    ts_sweep_result_free(&r);

    /* Written atomically: only the CSV is left in the directory, and a rerun replaces it. */
    sweep_run(sw, 1, false, 8, path, &r);
    ts_sweep_result_free(&r);
    char names[4][256];
    assert_int_equal(list_dir(dir, names, 4), 1);
    assert_string_equal(names[0], "all.csv");
    remove_dir(dir);
    free(sw);
}

static void csv_that_cannot_be_written_is_an_error(void **state)
{
    (void)state;
    struct ts_sweep *sw = sweep_from_text(base_sweep);
    struct ts_sweep_options opt;
    memset(&opt, 0, sizeof opt);
    opt.threads = 1;
    opt.csv_path = "/nonexistent-dir/all.csv";
    struct ts_sweep_result r;
    struct ts_err err;
    ts_err_clear(&err);
    int rc = ts_sweep_run(sw, &opt, &r, &err);
    assert_int_equal(rc, TS_ERR_RUNTIME);
    assert_contains(err.msg, "/nonexistent-dir/all.csv");
    ts_sweep_result_free(&r);
    free(sw);
}

/* ---------------------------------------------------------------- 8. JSON contract */

static const cJSON *need(const cJSON *o, const char *key, cJSON_bool (*is)(const cJSON *))
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v || !is(v)) {
        print_error("JSON key \"%s\" is missing or of the wrong type\n", key);
        fail();
    }
    return v;
}

static void sweep_json_has_the_contract_keys(void **state)
{
    (void)state;
    struct ts_sweep *sw = sweep_from_file(SMALL_COST_FILE);
    struct ts_sweep_result r;
    sweep_run(sw, 2, false, 0, NULL, &r);
    assert_true(r.found);
    cJSON *o = ts_report_sweep_json(sw, &r);
    const cJSON *best = need(o, "best", cJSON_IsObject);
    static const char *const run_keys[] = {
        "feasible", "iteration_time_s", "tokens_per_s", "model_flops_per_iteration",
        "hardware_flops_per_iteration", "model_tflops_per_gpu", "hardware_tflops_per_gpu", "mfu", "hfu",
        "bubble_fraction", "memory_per_gpu_bytes", "memory_capacity_bytes", "time_to_train_s",
        "expected_time_to_train_s", "p90_time_to_train_s", "goodput", "failures_expected", "cost_total",
    };
    for (size_t i = 0; i < TS_ARRAY_LEN(run_keys); i++)
        need(best, run_keys[i], i == 0 ? cJSON_IsBool : cJSON_IsNumber);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(best, "feasible")));
    need(best, "cost_breakdown", cJSON_IsObject);
    const cJSON *top = need(o, "top", cJSON_IsArray);
    assert_int_equal(cJSON_GetArraySize(top), r.n_top);
    const cJSON *pareto = need(o, "pareto", cJSON_IsArray);
    assert_int_equal(cJSON_GetArraySize(pareto), r.n_pareto);
    assert_int_equal(need(o, "evaluated", cJSON_IsNumber)->valuedouble, r.evaluated);
    assert_int_equal(need(o, "feasible", cJSON_IsNumber)->valuedouble, r.feasible);
    const cJSON *rej = need(o, "rejected", cJSON_IsObject);
    for (int i = 1; i < TS_REJECT_COUNT; i++)
        assert_int_equal(need(rej, ts_reject_names[i], cJSON_IsNumber)->valuedouble, r.rejected[i]);
    need(o, "elapsed_s", cJSON_IsNumber);
    need(o, "found", cJSON_IsTrue);

    /* "best" is top[0] in full: the same cluster, pricing, layout and Monte Carlo numbers. */
    const cJSON *t0 = cJSON_GetArrayItem(top, 0);
    assert_string_equal(need(best, "system", cJSON_IsString)->valuestring,
                        need(t0, "system", cJSON_IsString)->valuestring);
    assert_string_equal(need(best, "pricing", cJSON_IsString)->valuestring,
                        need(t0, "pricing", cJSON_IsString)->valuestring);
    assert_int_equal(need(best, "nodes", cJSON_IsNumber)->valuedouble, need(t0, "nodes", cJSON_IsNumber)->valuedouble);
    const cJSON *bl = need(best, "layout", cJSON_IsObject), *tl = need(t0, "parallel", cJSON_IsObject);
    static const char *const dims[] = {"tp", "pp", "dp", "cp", "microbatch", "virtual_stages", "zero"};
    for (size_t i = 0; i < TS_ARRAY_LEN(dims); i++)
        assert_int_equal(need(bl, dims[i], cJSON_IsNumber)->valuedouble, need(tl, dims[i], cJSON_IsNumber)->valuedouble);
    assert_string_equal(need(bl, "schedule", cJSON_IsString)->valuestring, need(tl, "schedule", cJSON_IsString)->valuestring);
    assert_string_equal(need(bl, "recompute", cJSON_IsString)->valuestring, need(tl, "recompute", cJSON_IsString)->valuestring);
    assert_true(same_double(need(best, "iteration_time_s", cJSON_IsNumber)->valuedouble,
                            need(t0, "iteration_time_s", cJSON_IsNumber)->valuedouble));
    assert_true(same_double(need(best, "expected_time_to_train_s", cJSON_IsNumber)->valuedouble,
                            need(t0, "expected_time_to_train_s", cJSON_IsNumber)->valuedouble));
    assert_true(same_double(need(best, "cost_total", cJSON_IsNumber)->valuedouble,
                            need(t0, "expected_cost", cJSON_IsNumber)->valuedouble));
    /* time_to_train_s means the failure-free time in both, as in `trainsim run`; the analytic
     * estimate with failures that the search ranks on lies between it and nothing below. */
    double free_s = need(best, "time_to_train_s", cJSON_IsNumber)->valuedouble;
    assert_close(need(t0, "time_to_train_s", cJSON_IsNumber)->valuedouble, free_s, 1e-12, 0);
    assert_true(need(t0, "estimated_time_to_train_s", cJSON_IsNumber)->valuedouble >= free_s);
    /* The top entries carry their configuration and metrics. */
    static const char *const top_keys[] = {"nodes", "gpus", "global_batch", "iteration_time_s", "tokens_per_s",
                                           "mfu", "memory_per_gpu_bytes", "time_to_train_s", "cost_total",
                                           "estimated_time_to_train_s", "expected_time_to_train_s", "p90_time_to_train_s", "expected_cost"};
    for (int i = 0; i < r.n_top; i++) {
        const cJSON *t = cJSON_GetArrayItem(top, i);
        need(t, "system", cJSON_IsString);
        need(t, "pricing", cJSON_IsString);
        need(t, "parallel", cJSON_IsObject);
        for (size_t k = 0; k < TS_ARRAY_LEN(top_keys); k++)
            need(t, top_keys[k], cJSON_IsNumber);
    }
    /* Best first by the Monte Carlo expected cost; the front is ordered by time. */
    for (int i = 1; i < r.n_top; i++)
        assert_true(r.top[i - 1].mc_cost_mean_usd <= r.top[i].mc_cost_mean_usd);
    for (int i = 1; i < r.n_pareto; i++) {
        assert_true(r.pareto[i - 1].time_s <= r.pareto[i].time_s);
        assert_true(r.pareto[i - 1].cost_usd > r.pareto[i].cost_usd);
    }
    cJSON_Delete(o);
    ts_sweep_result_free(&r);
    free(sw);
}


/* ---------------------------------------------------------------- bounded memory and stops */

/* A sweep run with options: threads, batch, exhaustive, kept-set size. */
static void sweep_run_kept(const struct ts_sweep *sw, int threads, bool exhaustive, int batch, long keep,
                           struct ts_sweep_result *res)
{
    struct ts_sweep_options opt;
    memset(&opt, 0, sizeof opt);
    opt.threads = threads;
    opt.exhaustive = exhaustive;
    opt.batch = batch;
    opt.keep = keep;
    struct ts_err err;
    ts_err_clear(&err);
    int rc = ts_sweep_run(sw, &opt, res, &err);
    assert_ok(rc, err);
}

/* The kept candidate set holds fewer candidates than the sweep has, so the search streams
 * the enumeration again when it runs out: the report is the same, byte for byte, as with
 * every candidate kept (pruned and exhaustive, one and two threads). */
static void check_small_kept_set_gives_the_same_report(const struct ts_sweep *sw, bool exhaustive, int batch)
{
    struct ts_sweep_result all;
    sweep_run_kept(sw, 1, exhaustive, batch, 0, &all);
    char *want = report_without_elapsed(sw, &all);
    /* A third and an eighth of the candidates: several streams, each screening every layout
     * again (so not 1: one stream per candidate would be slow). */
    const long keeps[] = {all.candidates / 3, all.candidates / 8};
    for (size_t i = 0; i < TS_ARRAY_LEN(keeps); i++) {
        if (!(keeps[i] >= 1 && all.candidates > 2 * keeps[i])) {
            print_error("sweep %s: %ld candidates do not exceed the kept set (%ld)\n", sw->name,
                        all.candidates, keeps[i]);
            fail();
        }
        struct ts_sweep_result r;
        sweep_run_kept(sw, 1 + (int)(i % 2), exhaustive, batch, keeps[i], &r);
        char *got = report_without_elapsed(sw, &r);
        if (strcmp(got, want) != 0) {
            print_error("sweep %s, kept set %ld, exhaustive %d: the report differs\n", sw->name,
                        keeps[i], exhaustive);
            fail();
        }
        assert_int_equal(r.simulated, all.simulated);
        free(got);
        ts_sweep_result_free(&r);
    }
    free(want);
    ts_sweep_result_free(&all);
}

static void streaming_with_a_kept_set_smaller_than_the_candidates_gives_the_same_report(void **state)
{
    (void)state;
    /* Six more sweeps of the paths the other search tests run: valgrind (50x slower) checks
     * those paths' memory there; the sanitizer run executes this one in full. */
    skip_when_slow();
    struct ts_sweep *sw = sweep_from_file(SMALL_COST_FILE);
    check_small_kept_set_gives_the_same_report(sw, false, 8);
    check_small_kept_set_gives_the_same_report(sw, true, 0);
    free(sw);
    /* Finalists that miss the p90 deadline: later rounds stream from the first candidate. */
    sw = probability_sweep();
    check_small_kept_set_gives_the_same_report(sw, false, 16);
    free(sw);
}

/* ---------------------------------------------------------------- software profiles */

/* sweep_time_throughput with a "software" key in front. */
static struct ts_sweep *sweep_with_software(const char *software)
{
    char text[2048];
    snprintf(text, sizeof text, "{\"software\": %s, %s", software, sweep_time_throughput + 1);
    return sweep_from_text(text);
}

/* Two profiles are a searched dimension: twice the layouts of one; the answer over both is
 * the better of the two single-profile answers (brute force over the union); every entry's
 * job, built as a job naming that profile, reproduces its iteration time; and a kept set
 * smaller than the candidates still gives the same report. */
static void two_software_profiles_are_searched_like_systems(void **state)
{
    (void)state;
    static const char *const names[] = {"megatron-core", "pytorch-fsdp"};
    struct ts_sweep *both = sweep_with_software("[\"megatron-core\", \"pytorch-fsdp\"]");
    assert_int_equal(both->n_software, 2);
    double best_single = HUGE_VAL;
    int best_k = -1;
    for (int k = 0; k < 2; k++) {
        char one[64];
        snprintf(one, sizeof one, "\"%s\"", names[k]);
        struct ts_sweep *sw = sweep_with_software(one);
        assert_int_equal(sw->n_software, 1);
        assert_string_equal(sw->software[0].name, names[k]);
        assert_int_equal(ts_sweep_count(sw) * 2, ts_sweep_count(both));
        struct ts_sweep_result r;
        sweep_run(sw, 1, false, 0, NULL, &r);
        assert_true(r.found);
        if (r.top[0].objective < best_single) {
            best_single = r.top[0].objective;
            best_k = k;
        }
        ts_sweep_result_free(&r);
        free(sw);
    }
    struct ts_sweep_result r;
    sweep_run(both, 2, false, 0, NULL, &r);
    assert_true(r.found);
    assert_true(r.top[0].objective == best_single);
    assert_int_equal(r.top[0].layout.software, best_k);
    assert_string_equal(r.best_job.software.name, names[best_k]);
    assert_int_equal(r.rejected[TS_REJECT_SOFTWARE], 0);
    for (int i = 0; i < r.n_top; i++) {
        struct by_hand *h = by_hand_build(both, &r.top[i]);
        assert_string_equal(h->job.software.name, names[r.top[i].layout.software]);
        assert_true(h->it.iteration_s == r.top[i].iteration_s);
        by_hand_free(h);
    }
    ts_sweep_result_free(&r);
    if (!ts_test_under_valgrind())
        check_small_kept_set_gives_the_same_report(both, false, 8);
    free(both);
}

/* The count stated up front is the number of layouts the enumeration generates. Hand count
 * for node-scaling: 4 node counts x 1 layout; for time-throughput, every combination the
 * loops admit is generated, so the count equals `enumerated`. */
static void sweep_count_is_the_number_of_layouts_enumerated(void **state)
{
    (void)state;
    struct ts_sweep *sw = sweep_from_text(sweep_node_scaling);
    assert_int_equal(ts_sweep_count(sw), 4);
    struct ts_sweep_result r;
    sweep_run(sw, 1, false, 0, NULL, &r);
    assert_int_equal(r.enumerated, 4);
    assert_int_equal(r.configurations, 4);
    ts_sweep_result_free(&r);
    free(sw);
    const char *const texts[] = {sweep_time_throughput, sweep_cost_throughput, sweep_probability};
    for (size_t i = 0; i < TS_ARRAY_LEN(texts); i++) {
        sw = sweep_from_text(texts[i]);
        uint64_t n = ts_sweep_count(sw);
        sweep_run(sw, 2, false, 0, NULL, &r);
        assert_int_equal(n, r.enumerated);
        assert_true(n > 100);
        ts_sweep_result_free(&r);
        free(sw);
    }
}

static void sweep_above_max_configs_is_refused_with_its_count_and_how_to_raise_it(void **state)
{
    (void)state;
    struct ts_sweep *sw = sweep_from_text(sweep_time_throughput);
    uint64_t n = ts_sweep_count(sw);
    struct ts_sweep_options opt;
    memset(&opt, 0, sizeof opt);
    opt.threads = 1;
    opt.max_configs = n - 1;
    struct ts_sweep_result r;
    struct ts_err err;
    ts_err_clear(&err);
    assert_int_equal(ts_sweep_run(sw, &opt, &r, &err), TS_ERR_INPUT);
    char count[64];
    snprintf(count, sizeof count, "enumerates %llu configurations", (unsigned long long)n);
    assert_contains(err.msg, count);
    snprintf(count, sizeof count, "limit of %llu", (unsigned long long)(n - 1));
    assert_contains(err.msg, count);
    assert_contains(err.msg, "--max-configs");
    assert_contains(err.msg, "auto");
    ts_sweep_result_free(&r);
    /* At the count itself it runs. */
    opt.max_configs = n;
    ts_err_clear(&err);
    int rc = ts_sweep_run(sw, &opt, &r, &err);
    assert_ok(rc, err);
    assert_int_equal(r.enumerated, n);
    ts_sweep_result_free(&r);
    /* The default admits it (and the shipped sweeps: at most 1.6 M). */
    assert_true(n < TS_SWEEP_MAX_CONFIGS_DEFAULT);
    free(sw);
}

/* global_batch 2^26 on one node with one sequence per microbatch: pp 1 x 2 x 2^26 x 1 = 2^27
 * tasks, above the 2^24 budget; 2^26 with microbatch 16 over dp 8 gives 2^19 microbatches:
 * 2^20 tasks, within it. Rejected layouts are counted by reason and change nothing else. */
static void layouts_above_the_task_budget_are_rejected_with_a_counted_reason(void **state)
{
    (void)state;
    static const char *const fmt =
        "{\"name\": \"tasks\", \"model\": \"megatron-1.7b\", \"tokens\": 1e6, \"global_batch\": %s,"
        " \"systems\": [\"dgx-h100\"], \"nodes\": [1],"
        " \"parallel\": {\"tp\": [1, 8], \"pp\": 1, \"cp\": 1, \"microbatch\": [1, 16], \"zero\": 0,"
        "              \"recompute\": \"none\", \"schedule\": \"1f1b\", \"sequence_parallel\": false},"
        " \"constraint\": {\"min_tokens_per_s\": 1}, \"objective\": \"time\", \"top\": 1}";
    char text[2048];
    snprintf(text, sizeof text, fmt, "[256, 67108864]");
    struct ts_sweep *sw = sweep_from_text(text);
    struct ts_sweep_result r;
    sweep_run(sw, 2, false, 1, NULL, &r);
    /* 2 batches x tp {1 (dp 8), 8 (dp 1)} x microbatch {1, 16} = 8 layouts. At 2^26: tp 1
     * mb 1 -> 2^23 microbatches, 2^24 tasks (at the limit: valid); tp 1 mb 16 -> 2^20 tasks;
     * tp 8 mb 1 -> 2^27 tasks and tp 8 mb 16 -> 2^23 tasks (valid). */
    assert_int_equal(r.enumerated, 8);
    assert_int_equal(r.rejected[TS_REJECT_TASKS], 1);
    assert_int_equal(r.rejected[TS_REJECT_DIVISIBILITY], 0);
    assert_int_equal(r.evaluated, 7);
    assert_true(r.found);
    /* A million tokens: two iterations at 256 sequences beat one of 2^26, whose bounds
     * prune them unsimulated (no 2^24-task simulation in a unit test). */
    assert_int_equal(r.top[0].layout.global_batch, 256);
    assert_true(r.simulated <= 4);
    assert_string_equal(ts_reject_names[TS_REJECT_TASKS], "too_many_tasks");
    ts_sweep_result_free(&r);
    free(sw);
}

/* The run simulation polls the stop flag between replications: raised, it returns at once
 * with a distinct status. */
static void run_simulation_returns_interrupted_when_the_stop_flag_is_up(void **state)
{
    (void)state;
    struct ts_run_input in;
    memset(&in, 0, sizeof in);
    in.iteration_s = 10.0;
    in.iterations = 1e5;
    in.gpus = 64;
    in.nodes = 8;
    in.gpus_per_node = 8;
    in.dp = 8;
    in.checkpoint_bytes = 1e12;
    ts_reliability_defaults(&in.rel);
    in.rel.replications = 50;
    struct ts_run_result out;
    struct ts_err err;
    ts_err_clear(&err);
    int rc = ts_run_simulate(&in, &out, NULL, NULL, &err);
    assert_ok(rc, err);
    assert_false(out.interrupted);
    volatile sig_atomic_t stop = 1;
    in.stop = &stop;
    assert_int_equal(ts_run_simulate(&in, &out, NULL, NULL, &err), TS_ERR_RUNTIME);
    assert_true(out.interrupted);
    assert_contains(err.msg, "interrupted");
}

/* Partial file round trip of a result's progress. */
static void progress_round_trip(const struct ts_sweep *sw, const struct ts_sweep_result *r,
                                struct ts_sweep_progress *out)
{
    char dir[512], path[600];
    make_temp_dir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/p.partial.json", dir);
    struct ts_err err;
    ts_err_clear(&err);
    int rc = ts_sweep_progress_write(path, sw, &r->progress, &err);
    assert_ok(rc, err);
    rc = ts_sweep_progress_load(path, sw, out, &err);
    assert_ok(rc, err);
    remove(path);
    remove_dir(dir);
}

/* Stopped while screening (the flag is up from the start: the first chunk ends it) and in
 * the finalists' Monte Carlo (after 1 and 2 finalists); resumed through the partial file, the
 * report is the uninterrupted one, byte for byte. */
static void stops_in_screening_and_in_monte_carlo_resume_to_the_same_report(void **state)
{
    (void)state;
    struct ts_sweep *sw = probability_sweep();
    struct ts_sweep_result full;
    sweep_run(sw, 1, false, 4, NULL, &full);
    char *want = report_without_elapsed(sw, &full);

    /* 1. Screening: nothing simulated, nothing lost. */
    volatile sig_atomic_t stop = 1;
    struct ts_sweep_options opt;
    memset(&opt, 0, sizeof opt);
    opt.threads = 2;
    opt.batch = 4;
    opt.stop = &stop;
    struct ts_sweep_result r;
    struct ts_err err;
    ts_err_clear(&err);
    int rc = ts_sweep_run(sw, &opt, &r, &err);
    assert_ok(rc, err);
    assert_true(r.interrupted);
    assert_int_equal(r.simulated, 0);
    assert_int_equal(r.progress.n, 0);
    assert_int_equal(r.n_top, 0);
    ts_sweep_result_free(&r);

    /* 2. Monte Carlo: after 1 finalist, then (resumed) after 2 more, then to the end. */
    stop = 0;
    struct ts_sweep_progress saved;
    memset(&saved, 0, sizeof saved);
    static const long after[] = {1, 2, 0};
    for (size_t leg = 0; leg < TS_ARRAY_LEN(after); leg++) {
        opt.stop_after_finalists = after[leg];
        opt.resume = leg ? &saved : NULL;
        opt.threads = 1 + (int)(leg % 2);
        ts_err_clear(&err);
        rc = ts_sweep_run(sw, &opt, &r, &err);
        assert_ok(rc, err);
        ts_sweep_progress_free(&saved);
        if (!after[leg])
            break;
        assert_true(r.interrupted);
        long mc = 0;
        for (long i = 0; i < r.progress.n * sw->n_pricing; i++)
            mc += r.progress.outcomes[i].monte_carlo;
        assert_true(mc >= after[leg]);
        progress_round_trip(sw, &r, &saved);
        ts_sweep_result_free(&r);
    }
    assert_false(r.interrupted);
    char *got = report_without_elapsed(sw, &r);
    assert_string_equal(got, want);
    free(got);
    free(want);
    ts_sweep_result_free(&r);
    ts_sweep_result_free(&full);
    free(sw);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pruned_search_returns_the_exhaustive_top_k_and_pareto_front),
        cmocka_unit_test(iteration_bounds_never_exceed_the_simulated_iteration),
        cmocka_unit_test(probability_sweep_replaces_a_finalist_that_misses_the_deadline_at_p90),
        cmocka_unit_test(low_probability_deadline_is_checked_on_the_quantile_not_the_expected_time),
        cmocka_unit_test(run_of_the_sweep_answer_reproduces_its_expected_time_and_cost),
        cmocka_unit_test(on_demand_and_spot_rows_get_the_same_failure_processes),
        cmocka_unit_test(exhaustive_top_k_are_the_smallest_objectives_over_every_simulated_csv_row),
        cmocka_unit_test(same_sweep_gives_byte_identical_json_on_one_and_two_threads),
        cmocka_unit_test(of_two_identical_systems_the_cheaper_one_wins),
        cmocka_unit_test(nearly_free_spot_wins_on_cost_and_on_demand_wins_on_time),
        cmocka_unit_test(unreachable_deadline_reports_no_answer_and_the_closest_miss),
        cmocka_unit_test(unreachable_throughput_reports_the_closest_throughput),
        cmocka_unit_test(deadline_just_below_the_fastest_time_names_the_fastest_configuration),
        cmocka_unit_test(divisibility_rejections_are_counted_by_hand),
        cmocka_unit_test(a_pricing_without_a_price_is_not_offered_on_that_system),
        cmocka_unit_test(layouts_that_do_not_fit_are_rejected_for_memory),
        cmocka_unit_test(probability_sweep_has_every_kind_of_rejection_but_divisibility),
        cmocka_unit_test(base_sweep_parses),
        cmocka_unit_test(bad_sweep_keys_are_rejected_with_file_and_json_path),
        cmocka_unit_test(missing_sweep_file_is_an_input_error_naming_it),
        cmocka_unit_test(csv_has_a_row_per_screened_layout_and_pricing_and_no_temporary_file),
        cmocka_unit_test(csv_that_cannot_be_written_is_an_error),
        cmocka_unit_test(sweep_json_has_the_contract_keys),
        cmocka_unit_test(streaming_with_a_kept_set_smaller_than_the_candidates_gives_the_same_report),
        cmocka_unit_test(sweep_count_is_the_number_of_layouts_enumerated),
        cmocka_unit_test(two_software_profiles_are_searched_like_systems),
        cmocka_unit_test(sweep_above_max_configs_is_refused_with_its_count_and_how_to_raise_it),
        cmocka_unit_test(layouts_above_the_task_budget_are_rejected_with_a_counted_reason),
        cmocka_unit_test(run_simulation_returns_interrupted_when_the_stop_flag_is_up),
        cmocka_unit_test(stops_in_screening_and_in_monte_carlo_resume_to_the_same_report),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
