/*
 * Interrupting a sweep and resuming it: a sweep stopped between batches (the stop flag the
 * CLI's SIGINT handler raises, here raised after N batches) keeps its finished work, a
 * partial file carries it exactly, and the resumed run reaches the same answer, bit for bit,
 * as an uninterrupted run, whatever the thread counts. The partial file refuses a changed
 * sweep or catalogue file (the fingerprint), an edited or damaged content (the checksum) and
 * values no simulation gives (the value checks).
 */
#include "test_helpers.h"

#include <dirent.h>
#include <unistd.h>

#include "search/search.h"

static char sweep_file[1024];
static char partial_file[1024];

static int setup(void **state)
{
    (void)state;
    const char *data = getenv("TS_TEST_DATA");
    snprintf(sweep_file, sizeof sweep_file, "%s/sweep_resume/p90-sweep.json",
             data ? data : "tests/data");
    snprintf(partial_file, sizeof partial_file, "test_sweep_resume.%ld.partial.json", (long)getpid());
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    remove(partial_file);
    return 0;
}

static struct ts_sweep *load_sweep(void)
{
    struct ts_sweep *sw = ts_xmalloc(sizeof *sw);
    struct ts_err err;
    int rc = ts_sweep_load(sweep_file, sw, &err);
    if (rc)
        print_error("%s\n", err.msg);
    assert_int_equal(rc, TS_OK);
    return sw;
}

static struct ts_sweep_options options(int threads, long stop_after, const struct ts_sweep_progress *resume)
{
    struct ts_sweep_options opt;
    memset(&opt, 0, sizeof opt);
    opt.threads = threads;
    opt.batch = 2;              /* many batches from a small sweep (it prunes well) */
    opt.stop_after_batches = stop_after;
    opt.resume = resume;
    return opt;
}

static void run(const struct ts_sweep *sw, const struct ts_sweep_options *opt,
                struct ts_sweep_result *r)
{
    struct ts_err err;
    int rc = ts_sweep_run(sw, opt, r, &err);
    if (rc)
        print_error("%s\n", err.msg);
    assert_int_equal(rc, TS_OK);
}

static bool same_double(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

static void assert_same_outcome(const struct ts_outcome *a, const struct ts_outcome *b)
{
    assert_memory_equal(&a->layout, &b->layout, sizeof a->layout);
    assert_int_equal(a->pricing, b->pricing);
    assert_int_equal(a->meets, b->meets);
    assert_int_equal(a->monte_carlo, b->monte_carlo);
    const double x[] = {a->iteration_s, a->tokens_per_s, a->mfu, a->time_s, a->cost_usd,
                        a->objective, a->memory_bytes, a->mc_time_mean_s, a->mc_time_p90_s,
                        a->mc_cost_mean_usd, a->mc_cost_p90_usd, a->goodput};
    const double y[] = {b->iteration_s, b->tokens_per_s, b->mfu, b->time_s, b->cost_usd,
                        b->objective, b->memory_bytes, b->mc_time_mean_s, b->mc_time_p90_s,
                        b->mc_cost_mean_usd, b->mc_cost_p90_usd, b->goodput};
    for (size_t i = 0; i < TS_ARRAY_LEN(x); i++)
        if (!same_double(x[i], y[i])) {
            print_error("outcome field %zu: %.17g vs %.17g\n", i, x[i], y[i]);
            fail();
        }
}

/* Everything a report shows, bit for bit (elapsed time aside). */
static void assert_same_result(const struct ts_sweep_result *a, const struct ts_sweep_result *b)
{
    assert_false(a->interrupted);
    assert_false(b->interrupted);
    assert_int_equal(a->enumerated, b->enumerated);
    assert_int_equal(a->evaluated, b->evaluated);
    assert_int_equal(a->simulated, b->simulated);
    assert_int_equal(a->feasible, b->feasible);
    for (int i = 0; i < TS_REJECT_COUNT; i++)
        assert_int_equal(a->rejected[i], b->rejected[i]);
    assert_int_equal(a->found, b->found);
    assert_int_equal(a->n_top, b->n_top);
    for (int i = 0; i < a->n_top; i++)
        assert_same_outcome(&a->top[i], &b->top[i]);
    assert_int_equal(a->n_pareto, b->n_pareto);
    for (int i = 0; i < a->n_pareto; i++)
        assert_same_outcome(&a->pareto[i], &b->pareto[i]);
    assert_true(same_double(a->best_it.iteration_s, b->best_it.iteration_s));
    assert_true(same_double(a->best_run.mean_s, b->best_run.mean_s));
    assert_true(same_double(a->best_run.p90_s, b->best_run.p90_s));
    assert_true(same_double(a->best_cost.total_usd, b->best_cost.total_usd));
    assert_true(same_double(a->best_cost.p90_usd, b->best_cost.p90_usd));
}

static void resume_test_sweep_takes_many_batches_and_replaces_finalists(void **state)
{
    (void)state;
    struct ts_sweep *sw = load_sweep();
    struct ts_sweep_options opt = options(2, 0, NULL);
    struct ts_sweep_result r;
    run(sw, &opt, &r);
    /* The test is only meaningful when the search takes many batches and some finalists
     * fail the deadline probability (their Monte Carlo state is in the partial file). */
    assert_true(r.found);
    assert_true(r.simulated > 5 * opt.batch);     /* about 8 batches */
    assert_true(r.rejected[TS_REJECT_DEADLINE_P] > 0);
    ts_sweep_result_free(&r);
    free(sw);
}

static void stopped_sweep_keeps_whole_batches_and_no_answer(void **state)
{
    (void)state;
    struct ts_sweep *sw = load_sweep();
    struct ts_sweep_options opt = options(2, 3, NULL);
    struct ts_sweep_result r;
    run(sw, &opt, &r);
    assert_true(r.interrupted);
    assert_false(r.found);
    assert_null(r.top);
    assert_int_equal(r.progress.n, 3 * opt.batch);
    assert_int_equal(r.simulated, 3 * opt.batch);
    assert_true(r.candidates > r.progress.n);
    ts_sweep_result_free(&r);
    free(sw);
}

/* Stop, save, load, resume, stop again, ..., resume to the end; compare with one run. */
static void stop_and_resume(bool exhaustive, int batch, const long *stops, int legs)
{
    struct ts_sweep *sw = load_sweep();
    struct ts_sweep_options opt = options(1, 0, NULL);
    opt.exhaustive = exhaustive;
    opt.batch = batch;
    struct ts_sweep_result full;
    run(sw, &opt, &full);

    struct ts_sweep_progress saved;
    memset(&saved, 0, sizeof saved);
    struct ts_err err;
    struct ts_sweep_result r;
    for (int leg = 0; leg < legs; leg++) {
        opt = options(leg % 2 ? 1 : 2, stops[leg], leg ? &saved : NULL);
        opt.exhaustive = exhaustive;
        opt.batch = batch;
        run(sw, &opt, &r);
        ts_sweep_progress_free(&saved);
        if (stops[leg] == 0)
            break;
        assert_true(r.interrupted);
        assert_int_equal(ts_sweep_progress_write(partial_file, sw, &r.progress, &err), TS_OK);
        ts_sweep_result_free(&r);
        int rc = ts_sweep_progress_load(partial_file, sw, &saved, &err);
        if (rc)
            print_error("%s\n", err.msg);
        assert_int_equal(rc, TS_OK);
    }
    assert_same_result(&full, &r);
    ts_sweep_result_free(&r);
    ts_sweep_result_free(&full);
    free(sw);
}

static void resumed_sweep_gives_the_uninterrupted_answer_bit_for_bit(void **state)
{
    (void)state;
    const long stops[] = {1, 2, 2, 0};  /* of about 8 batches, across Monte Carlo rounds */
    stop_and_resume(false, 2, stops, 4);
}

static void resumed_exhaustive_sweep_gives_the_uninterrupted_answer(void **state)
{
    (void)state;
    const long stops[] = {5, 9, 0};     /* of 26 batches */
    stop_and_resume(true, 64, stops, 3);
}

static void partial_file_holds_outcomes_exactly(void **state)
{
    (void)state;
    struct ts_sweep *sw = load_sweep();
    struct ts_sweep_options opt = options(2, 3, NULL);
    struct ts_sweep_result r;
    run(sw, &opt, &r);
    assert_true(r.interrupted);
    struct ts_err err;
    assert_int_equal(ts_sweep_progress_write(partial_file, sw, &r.progress, &err), TS_OK);
    /* Written through a temporary name: nothing but the file itself is left. */
    char prefix[1100];
    snprintf(prefix, sizeof prefix, "%s.tmp.", partial_file);
    DIR *d = opendir(".");
    assert_non_null(d);
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        if (strncmp(e->d_name, prefix, strlen(prefix)) == 0) {
            print_error("temporary file left: %s\n", e->d_name);
            fail();
        }
    closedir(d);
    char *text;
    assert_int_equal(ts_file_read(partial_file, &text, NULL, &err), TS_OK);
    assert_non_null(strstr(text, "\"trainsim_partial_sweep\": 2"));
    assert_non_null(strstr(text, "\"checksum\": \"fnv1a64:"));
    free(text);
    struct ts_sweep_progress back;
    assert_int_equal(ts_sweep_progress_load(partial_file, sw, &back, &err), TS_OK);
    assert_int_equal(back.n, r.progress.n);
    assert_int_equal(back.rejected_deadline_p, r.progress.rejected_deadline_p);
    int np = sw->n_pricing;
    for (long j = 0; j < back.n; j++) {
        assert_int_equal(back.layout[j], r.progress.layout[j]);
        for (int q = 0; q < np; q++) {
            assert_same_outcome(&back.outcomes[j * np + q], &r.progress.outcomes[j * np + q]);
            assert_int_equal(back.mc_failed[j * np + q], r.progress.mc_failed[j * np + q]);
        }
    }
    ts_sweep_progress_free(&back);
    ts_sweep_result_free(&r);
    free(sw);
}

static void partial_file_of_a_changed_sweep_is_refused(void **state)
{
    (void)state;
    struct ts_sweep *sw = load_sweep();
    struct ts_sweep_options opt = options(2, 1, NULL);
    struct ts_sweep_result r;
    run(sw, &opt, &r);
    struct ts_err err;
    assert_int_equal(ts_sweep_progress_write(partial_file, sw, &r.progress, &err), TS_OK);
    ts_sweep_result_free(&r);
    sw->fingerprint ^= 1;     /* as if a value in one of its files had changed */
    struct ts_sweep_progress back;
    int rc = ts_sweep_progress_load(partial_file, sw, &back, &err);
    assert_input_error(rc, &err, "the inputs changed since the partial was written");
    free(sw);
}

static void fingerprint_covers_every_catalogue_file_the_sweep_reads(void **state)
{
    (void)state;
    struct ts_sweep *sw = load_sweep();
    /* p90-sweep.json names one model and two systems, each with its accelerator; loading an
     * accelerator reads the attention-kernel tables of its generation (one per named fused
     * kernel, each recorded once however often it is read). */
    int k_tables = TS_ATTN_XLA - TS_ATTN_FA1 + 1;
    assert_int_equal(sw->inputs.n, 6 + k_tables);
    assert_int_equal(sw->inputs.recorded, 6 + 2 * k_tables);
    assert_string_equal(sw->inputs.files[0].path, sweep_file);
    char want[16][64];
    int w = 0;
    snprintf(want[w++], sizeof want[0], "models/gpt2-124m.json");
    snprintf(want[w++], sizeof want[0], "hardware/systems/dgx-a100-80g.json");
    snprintf(want[w++], sizeof want[0], "hardware/accelerators/a100-sxm-80g.json");
    for (int k = TS_ATTN_FA1; k <= TS_ATTN_XLA; k++)
        snprintf(want[w++], sizeof want[0], "hardware/attention/%s.json", ts_attention_names[k]);
    snprintf(want[w++], sizeof want[0], "hardware/systems/dgx-h100.json");
    snprintf(want[w++], sizeof want[0], "hardware/accelerators/h100-sxm.json");
    assert_int_equal(w + 1, sw->inputs.n);
    for (int i = 1; i < sw->inputs.n; i++) {
        const char *path = sw->inputs.files[i].path;
        size_t n = strlen(path), m = strlen(want[i - 1]);
        if (n < m || strcmp(path + n - m, want[i - 1]) != 0) {
            print_error("input %d is %s, expected .../%s\n", i, path, want[i - 1]);
            fail();
        }
    }
    /* The fingerprint continues the hash of the hashes over the version (independent: the
     * FNV-1a definition applied here by hand). */
    /* Files are hashed in the order they are read, repeats included: the sweep, the model,
     * each system, its accelerator and that accelerator's tables (read again for the second
     * accelerator). */
    int order[32], no = 0;
    for (int i = 0; i < 4 + k_tables; i++)
        order[no++] = i;
    order[no++] = 4 + k_tables;
    order[no++] = 5 + k_tables;
    for (int i = 4; i < 4 + k_tables; i++)
        order[no++] = i;
    assert_int_equal(no, sw->inputs.recorded);
    uint64_t h = 0xcbf29ce484222325ULL;
    for (int j = 0; j < no; j++)
        for (int b = 0; b < 8; b++) {
            h ^= (sw->inputs.files[order[j]].hash >> (8 * b)) & 0xff;
            h *= 0x100000001b3ULL;
        }
    assert_true(h == sw->inputs.hash);
    for (const char *c = TS_VERSION; *c; c++) {
        h ^= (unsigned char)*c;
        h *= 0x100000001b3ULL;
    }
    assert_true(h == sw->fingerprint);
    free(sw);
}

static void partial_file_names_the_catalogue_file_that_changed(void **state)
{
    (void)state;
    struct ts_sweep *sw = load_sweep();
    struct ts_sweep_options opt = options(2, 1, NULL);
    struct ts_sweep_result r;
    run(sw, &opt, &r);
    struct ts_err err;
    assert_int_equal(ts_sweep_progress_write(partial_file, sw, &r.progress, &err), TS_OK);
    ts_sweep_result_free(&r);
    /* As ts_sweep_load would find it had the H100 system file changed. */
    int h100_system = 4 + (TS_ATTN_XLA - TS_ATTN_FA1 + 1);   /* after the attention tables */
    sw->inputs.files[h100_system].hash ^= 0x10;
    sw->fingerprint ^= 0x10;
    struct ts_sweep_progress back;
    int rc = ts_sweep_progress_load(partial_file, sw, &back, &err);
    assert_input_error(rc, &err, "the inputs changed since the partial was written");
    assert_input_error(rc, &err, "hardware/systems/dgx-h100.json changed");
    free(sw);
}

static void fnv1a64_matches_the_published_test_vectors(void **state)
{
    (void)state;
    /* draft-eastlake-fnv-17, section 8 (test vectors for FNV-1a 64): "" and "a", "foobar". */
    assert_true(ts_fnv1a64(TS_FNV1A64_INIT, "", 0) == 0xcbf29ce484222325ULL);
    assert_true(ts_fnv1a64(TS_FNV1A64_INIT, "a", 1) == 0xaf63dc4c8601ec8cULL);
    assert_true(ts_fnv1a64(TS_FNV1A64_INIT, "foobar", 6) == 0x85944171f73967e8ULL);
}

/* An interrupted run's progress, written with a valid checksum after `edit` changed it: the
 * value checks must refuse it with `needle`. */
static void refuse_edited(void (*edit)(struct ts_sweep_progress *p, int np), const char *needle)
{
    struct ts_sweep *sw = load_sweep();
    struct ts_sweep_options opt = options(2, 3, NULL);
    struct ts_sweep_result r;
    run(sw, &opt, &r);
    assert_true(r.interrupted);
    struct ts_err err;
    /* Unedited, it loads. */
    assert_int_equal(ts_sweep_progress_write(partial_file, sw, &r.progress, &err), TS_OK);
    struct ts_sweep_progress back;
    assert_int_equal(ts_sweep_progress_load(partial_file, sw, &back, &err), TS_OK);
    ts_sweep_progress_free(&back);
    edit(&r.progress, sw->n_pricing);
    assert_int_equal(ts_sweep_progress_write(partial_file, sw, &r.progress, &err), TS_OK);
    int rc = ts_sweep_progress_load(partial_file, sw, &back, &err);
    assert_input_error(rc, &err, needle);
    assert_input_error(rc, &err, partial_file);
    ts_sweep_result_free(&r);
    free(sw);
}

static void edit_nan_time(struct ts_sweep_progress *p, int np)
{
    p->outcomes[np].time_s = NAN;
}
static void edit_negative_cost(struct ts_sweep_progress *p, int np)
{
    (void)np;
    p->outcomes[1].cost_usd = -1e308;
    p->outcomes[1].objective = -1e308;  /* the objective is the cost: still consistent */
}
static void edit_objective_divided(struct ts_sweep_progress *p, int np)
{
    (void)np;
    p->outcomes[0].objective /= 1000;
}
static void edit_mfu(struct ts_sweep_progress *p, int np)
{
    (void)np;
    p->outcomes[2].mfu = 2.0;
}
static void edit_counter(struct ts_sweep_progress *p, int np)
{
    (void)np;
    p->rejected_deadline_p += 1;
}
static void edit_duplicate(struct ts_sweep_progress *p, int np)
{
    (void)np;
    p->layout[2] = p->layout[1];
}
static void edit_mc_flag(struct ts_sweep_progress *p, int np)
{
    (void)np;
    p->mc_failed[0] = 1;            /* a deadline miss without a Monte Carlo */
    p->rejected_deadline_p += 1;    /* counted, so that only the flag is wrong */
}

static void partial_file_with_values_out_of_range_is_refused_even_with_a_valid_checksum(void **state)
{
    (void)state;
    refuse_edited(edit_nan_time, "evaluated[1].outcomes[0]: time_s: a value that is not a number is out of range");
    refuse_edited(edit_negative_cost, "outcomes[1]: cost_usd: -1e+308 is out of range");
    refuse_edited(edit_objective_divided, "outcomes[0]: objective: ");
    refuse_edited(edit_mfu, "outcomes[0]: mfu: 2 is out of range (expected a fraction");
}

static void partial_file_with_inconsistent_counters_is_refused_even_with_a_valid_checksum(void **state)
{
    (void)state;
    refuse_edited(edit_counter, "counter inconsistent: \"rejected_deadline_probability\"");
    refuse_edited(edit_duplicate, "is listed twice");
    refuse_edited(edit_mc_flag, "mc_failed: inconsistent");
}

/* The partial file's text with the first occurrence of `from` replaced by `to`. */
static void rewrite_partial(const char *from, const char *to)
{
    struct ts_err err;
    char *text;
    size_t len;
    assert_int_equal(ts_file_read(partial_file, &text, &len, &err), TS_OK);
    char *at = strstr(text, from);
    assert_non_null(at);
    struct ts_buf b;
    ts_buf_init(&b);
    ts_buf_append(&b, text, (size_t)(at - text));
    ts_buf_printf(&b, "%s%s", to, at + strlen(from));
    assert_int_equal(ts_file_write_atomic(partial_file, b.data, b.len, &err), TS_OK);
    ts_buf_free(&b);
    free(text);
}

static void edited_or_truncated_partial_file_is_refused_by_its_checksum(void **state)
{
    (void)state;
    struct ts_sweep *sw = load_sweep();
    struct ts_sweep_options opt = options(2, 3, NULL);
    struct ts_sweep_result r;
    run(sw, &opt, &r);
    struct ts_err err;
    struct ts_sweep_progress back;
    /* Counters, a layout index and the fingerprint changed in the text. */
    const char *edits[][2] = {{"\"rejected_deadline_probability\": 0", "\"rejected_deadline_probability\": 1"},
                              {"\"simulated\": 6", "\"simulated\": 5"},
                              {"{\"layout\": ", "{\"layout\": 1"},
                              {"\"fingerprint\": \"", "\"fingerprint\": \"0"}};
    for (size_t i = 0; i < TS_ARRAY_LEN(edits); i++) {
        assert_int_equal(ts_sweep_progress_write(partial_file, sw, &r.progress, &err), TS_OK);
        rewrite_partial(edits[i][0], edits[i][1]);
        int rc = ts_sweep_progress_load(partial_file, sw, &back, &err);
        assert_int_equal(rc, TS_ERR_INPUT);
        if (!strstr(err.msg, "checksum mismatch") && !strstr(err.msg, "no fingerprint")) {
            print_error("edit %zu: %s\n", i, err.msg);
            fail();
        }
    }
    /* Cut short. */
    assert_int_equal(ts_sweep_progress_write(partial_file, sw, &r.progress, &err), TS_OK);
    char *text;
    size_t len;
    assert_int_equal(ts_file_read(partial_file, &text, &len, &err), TS_OK);
    assert_int_equal(ts_file_write_atomic(partial_file, text, len / 2, &err), TS_OK);
    free(text);
    assert_input_error(ts_sweep_progress_load(partial_file, sw, &back, &err), &err,
                       "a truncated or damaged partial file cannot be resumed");
    ts_sweep_result_free(&r);
    free(sw);
}

static void partial_file_for_other_layouts_is_refused(void **state)
{
    (void)state;
    struct ts_sweep *sw = load_sweep();
    struct ts_sweep_options opt = options(2, 1, NULL);
    struct ts_sweep_result r;
    run(sw, &opt, &r);
    assert_true(r.interrupted);
    /* Same file, but the layouts enumerate differently (another catalogue or version). */
    r.progress.layout[0] = r.progress.layout[0] + 1;
    opt = options(2, 0, &r.progress);
    struct ts_sweep_result again;
    struct ts_err err;
    int rc = ts_sweep_run(sw, &opt, &again, &err);
    assert_input_error(rc, &err, "do not match this sweep's layouts");
    ts_sweep_result_free(&again);
    ts_sweep_result_free(&r);
    free(sw);
}

static void malformed_partial_file_is_an_input_error(void **state)
{
    (void)state;
    struct ts_sweep *sw = load_sweep();
    struct ts_err err;
    struct ts_sweep_progress back;
    const char *bad[] = {
        "{}",
        "{\"trainsim_partial_sweep\": 1}",
        "{\"trainsim_partial_sweep\": 2, \"trainsim_version\": \"0.0.0-other\"}",
        "[1, 2]",
        "{\"trainsim_partial_sweep\": 1, \"fingerprint\": \"x\"}",
    };
    for (size_t i = 0; i < TS_ARRAY_LEN(bad); i++) {
        assert_int_equal(ts_file_write_atomic(partial_file, bad[i], strlen(bad[i]), &err), TS_OK);
        int rc = ts_sweep_progress_load(partial_file, sw, &back, &err);
        assert_int_equal(rc, TS_ERR_INPUT);
        assert_non_null(strstr(err.msg, partial_file));
    }
    char good[512];
    snprintf(good, sizeof good, "{\"trainsim_partial_sweep\": 2, \"trainsim_version\": \"%s\", "
             "\"fingerprint\": \"%016llx\", \"checksum\": \"fnv1a64:0123456789abcdef\", "
             "\"simulated\": 1, \"rejected_deadline_probability\": 0, "
             "\"evaluated\": [{\"layout\": 1}]}", TS_VERSION, (unsigned long long)sw->fingerprint);
    assert_int_equal(ts_file_write_atomic(partial_file, good, strlen(good), &err), TS_OK);
    assert_input_error(ts_sweep_progress_load(partial_file, sw, &back, &err), &err,
                       "evaluated[0]: malformed entry");
    free(sw);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(resume_test_sweep_takes_many_batches_and_replaces_finalists),
        cmocka_unit_test(stopped_sweep_keeps_whole_batches_and_no_answer),
        cmocka_unit_test(resumed_sweep_gives_the_uninterrupted_answer_bit_for_bit),
        cmocka_unit_test(resumed_exhaustive_sweep_gives_the_uninterrupted_answer),
        cmocka_unit_test(partial_file_holds_outcomes_exactly),
        cmocka_unit_test(partial_file_of_a_changed_sweep_is_refused),
        cmocka_unit_test(fingerprint_covers_every_catalogue_file_the_sweep_reads),
        cmocka_unit_test(partial_file_names_the_catalogue_file_that_changed),
        cmocka_unit_test(fnv1a64_matches_the_published_test_vectors),
        cmocka_unit_test(partial_file_with_values_out_of_range_is_refused_even_with_a_valid_checksum),
        cmocka_unit_test(partial_file_with_inconsistent_counters_is_refused_even_with_a_valid_checksum),
        cmocka_unit_test(edited_or_truncated_partial_file_is_refused_by_its_checksum),
        cmocka_unit_test(partial_file_for_other_layouts_is_refused),
        cmocka_unit_test(malformed_partial_file_is_an_input_error),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
