/*
 * Sensitivity analysis (sim/search/sensitivity.h): the perturbations do what they say
 * (closed forms), the tornado rows of a job, and a break-even found by bisection against a
 * brute-force scan of the same sweep.
 */
#include "test_helpers.h"

#include "search/sensitivity.h"

#define assert_ok(rc, err)                                                  \
    do {                                                                    \
        if ((rc) != TS_OK) {                                                \
            print_error("unexpected error (rc %d): %s\n", (rc), (err).msg); \
            fail();                                                         \
        }                                                                   \
    } while (0)

static void data_path(char *buf, size_t n, const char *rel)
{
    const char *dir = getenv("TS_TEST_DATA");
    if (dir && dir[0])
        snprintf(buf, n, "%s/%s", dir, rel);
    else
        snprintf(buf, n, "%s/tests/data/%s", TS_SOURCE_DIR, rel);
}

static struct ts_job *job_from_file(const char *rel)
{
    char path[1024];
    data_path(path, sizeof path, rel);
    struct ts_err err;
    ts_err_clear(&err);
    cJSON *doc;
    int rc = ts_json_load(path, &doc, &err);
    assert_ok(rc, err);
    struct ts_job *job = ts_xmalloc(sizeof *job);
    struct ts_jnode root = ts_jnode_root(doc, path);
    rc = ts_job_parse(&root, NULL, job, &err);
    cJSON_Delete(doc);
    assert_ok(rc, err);
    return job;
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

static const struct ts_sens_row *row_of(const struct ts_sensitivity *s, enum ts_sens_input in)
{
    for (int i = 0; i < s->n_rows; i++)
        if (s->rows[i].input == in)
            return &s->rows[i];
    fail_msg("no row for %s", ts_sens_input_names[in]);
    return NULL;
}

/* ---------------------------------------------------------------- closed forms */

/* Every price x f: the bill is linear in the prices (compute, storage, network, operations
 * are each price x quantity), and nothing else moves, so the cost is exactly f x the base. */
static void prices_swing_the_bill_by_exactly_the_price_factor(void **state)
{
    (void)state;
    struct ts_job *job = job_from_file("report/tiny-job.json");
    struct ts_sens_options opt = {0};
    struct ts_sensitivity *s = ts_xmalloc(sizeof *s);
    struct ts_err err;
    ts_err_clear(&err);
    int rc = ts_sensitivity_job(job, &opt, s, &err);
    assert_ok(rc, err);
    const struct ts_sens_row *r = row_of(s, TS_SENS_PRICES);
    assert_true(r->applicable);
    assert_close(r->low, 0.8, 0, 0);
    assert_close(r->high, 1.2, 0, 0);
    assert_close(r->at_low.cost_usd, 0.8 * s->base.cost_usd, 1e-12, 0);
    assert_close(r->at_high.cost_usd, 1.2 * s->base.cost_usd, 1e-12, 0);
    /* time does not depend on money: the same bits */
    assert_true(r->at_low.time_s == s->base.time_s);
    assert_true(r->at_high.time_s == s->base.time_s);
    assert_false(r->answer_changes);
    /* the tornado is sorted by the swing of the objective (cost here) */
    for (int i = 1; i < s->n_rows; i++)
        if (s->rows[i].applicable)
            assert_true(s->rows[i - 1].swing >= s->rows[i].swing);
    free(s);
    free(job);
}

/* rate_scale x1 is the base: the same inputs, so the same bits of cost and time. */
static void rate_scale_one_reproduces_the_base_answer(void **state)
{
    (void)state;
    struct ts_job *job = job_from_file("report/tiny-job.json");
    struct ts_job *one = ts_xmalloc(sizeof *one);
    *one = *job;
    ts_sens_apply_job(one, TS_SENS_FAILURE_RATE, 1.0);
    struct ts_job_eval *a = ts_xmalloc(sizeof *a), *b = ts_xmalloc(sizeof *b);
    struct ts_err err;
    ts_err_clear(&err);
    int rc = ts_job_eval_full(job, a, NULL, NULL, &err);
    assert_ok(rc, err);
    rc = ts_job_eval_full(one, b, NULL, NULL, &err);
    assert_ok(rc, err);
    assert_true(a->have_run && a->have_cost);
    assert_true(a->run.mean_s == b->run.mean_s);
    assert_true(a->cost.total_usd == b->cost.total_usd);
    assert_true(a->run.p90_s == b->run.p90_s);

    /* and in a sweep: the same purchase at the same expected cost */
    struct ts_sweep *sw = sweep_from_file("report/tiny-sweep.json");
    struct ts_sweep *sw1 = ts_xmalloc(sizeof *sw1);
    *sw1 = *sw;
    ts_sens_apply_sweep(sw1, TS_SENS_FAILURE_RATE, 1.0);
    struct ts_sweep_options o;
    memset(&o, 0, sizeof o);
    struct ts_sweep_result *ra = ts_xmalloc(sizeof *ra), *rb = ts_xmalloc(sizeof *rb);
    rc = ts_sweep_run(sw, &o, ra, &err);
    assert_ok(rc, err);
    rc = ts_sweep_run(sw1, &o, rb, &err);
    assert_ok(rc, err);
    assert_true(ra->found && rb->found);
    assert_memory_equal(&ra->top[0].layout, &rb->top[0].layout, sizeof ra->top[0].layout);
    assert_int_equal(ra->top[0].pricing, rb->top[0].pricing);
    assert_true(ra->top[0].mc_cost_mean_usd == rb->top[0].mc_cost_mean_usd);
    ts_sweep_result_free(ra);
    ts_sweep_result_free(rb);
    free(ra);
    free(rb);
    free(sw1);
    free(sw);
    free(a);
    free(b);
    free(one);
    free(job);
}

/* failure_rate x2 doubles every failure process's rate and leaves spot preemption alone;
 * spot_preemption_rate x2 doubles only the preemption part (ts_run_job_mtbf: 1/M is the sum
 * of the rates). */
static void rate_perturbations_double_the_right_part_of_the_job_rate(void **state)
{
    (void)state;
    struct ts_job *job = job_from_file("report/tiny-job.json");
    const struct ts_reliability *rel = &job->reliability;
    double total = 1.0 / ts_run_job_mtbf(rel, job->gpus, job->nodes);
    double spot = job->nodes / rel->spot.preemption_mtbf_s;       /* nodes / preemption MTBF */
    double failures = total - spot;
    assert_true(failures > 0 && spot > 0);
    struct ts_job *p = ts_xmalloc(sizeof *p);
    *p = *job;
    ts_sens_apply_job(p, TS_SENS_FAILURE_RATE, 2.0);
    assert_close(1.0 / ts_run_job_mtbf(&p->reliability, p->gpus, p->nodes), 2 * failures + spot, 1e-12, 0);
    *p = *job;
    ts_sens_apply_job(p, TS_SENS_PREEMPTION, 2.0);
    assert_close(1.0 / ts_run_job_mtbf(&p->reliability, p->gpus, p->nodes), failures + 2 * spot, 1e-12, 0);
    /* tokens x1.2: the failure-free time grows with the iterations (ceil of tokens / batch) */
    *p = *job;
    ts_sens_apply_job(p, TS_SENS_TOKENS, 1.2);
    assert_close(p->training.tokens, 1.2 * job->training.tokens, 1e-15, 0);
    free(p);
    free(job);
}

/* The geometric bisection finds the flip of a step function to its resolution. */
static bool below_threshold(double x, void *ctx)
{
    return x < *(const double *)ctx;
}

static void bisection_brackets_a_known_threshold(void **state)
{
    (void)state;
    double t = 3.1415;
    double b;
    double a = ts_sens_bisect(1.0, 8.0, 20, below_threshold, &t, &b);
    assert_true(a < t && t <= b);
    assert_close(b / a, pow(8.0, 1.0 / (1 << 20)), 1e-9, 0);
}

/* ---------------------------------------------------------------- break-even vs brute force */

struct scan_ctx {
    const struct ts_sweep *sw;
    struct ts_sweep *work;
    struct ts_sens_answer base;
};

/* Whether the sweep's answer is the base purchase with spot prices x m. */
static bool answer_holds(struct scan_ctx *c, double m)
{
    *c->work = *c->sw;
    ts_sens_apply_sweep(c->work, TS_SENS_SPOT_PRICE, m);
    struct ts_sweep_options o;
    memset(&o, 0, sizeof o);
    struct ts_sweep_result *r = ts_xmalloc(sizeof *r);
    struct ts_err err;
    ts_err_clear(&err);
    int rc = ts_sweep_run(c->work, &o, r, &err);
    assert_ok(rc, err);
    bool same = r->found && r->top[0].layout.system == c->base.system &&
                r->top[0].layout.nodes == c->base.nodes && r->top[0].pricing == c->base.pricing;
    ts_sweep_result_free(r);
    free(r);
    return same;
}

static void spot_price_break_even_matches_a_brute_force_scan(void **state)
{
    (void)state;
    skip_when_slow();
    struct ts_sweep *sw = sweep_from_file("report/tiny-sweep.json");
    struct ts_sens_options opt = {0};
    opt.bisect_steps = 7;
    opt.only = 1u << TS_SENS_SPOT_PRICE;
    struct ts_sensitivity *s = ts_xmalloc(sizeof *s);
    struct ts_err err;
    ts_err_clear(&err);
    int rc = ts_sensitivity_sweep(sw, &opt, s, &err);
    assert_ok(rc, err);
    assert_true(s->base.found);
    assert_int_equal(s->base.pricing, TS_PRICING_SPOT);   /* the test sweep's answer is spot */
    const struct ts_sens_break_even *be = NULL;
    for (int i = 0; i < s->n_break_even; i++)
        if (s->break_even[i].input == TS_SENS_SPOT_PRICE)
            be = &s->break_even[i];
    assert_non_null(be);
    assert_true(be->found);
    assert_true(be->multiplier < be->multiplier_flip);
    /* Brute force: 24 spot-price factors spaced evenly in log from 1 to 4.8 (the widest the
     * search goes). Every factor at or below the bisection's last hold keeps the answer, every
     * factor at or above its first flip changes it. */
    struct scan_ctx c = {sw, ts_xmalloc(sizeof *c.work), s->base};
    int n = 24, first_flip = -1;
    for (int k = 0; k < n; k++) {
        double m = pow(4.8, k / (double)(n - 1));
        bool h = answer_holds(&c, m);
        if (!h && first_flip < 0)
            first_flip = k;
        if (m <= be->multiplier)
            assert_true(h);
        if (m >= be->multiplier_flip)
            assert_false(h);
    }
    assert_true(first_flip > 0);
    double lo = pow(4.8, (first_flip - 1) / (double)(n - 1)), hi = pow(4.8, first_flip / (double)(n - 1));
    assert_true(lo <= be->multiplier_flip && be->multiplier <= hi);
    print_message("  break-even: bisection x%.4f .. x%.4f, scan x%.4f .. x%.4f\n", be->multiplier,
                  be->multiplier_flip, lo, hi);
    free(c.work);
    free(s);
    free(sw);
}

/* A deadline met with little to spare: the answer holds until its expected time reaches the
 * deadline. Time is proportional to the iterations (ceil of tokens / tokens per iteration)
 * and the analytic run model stretches it by a factor that hardly moves with the length of
 * the run, so the token break-even is deadline / expected time, to about 1e-4. */
static void token_break_even_is_the_deadline_over_the_expected_time(void **state)
{
    (void)state;
    struct ts_sweep *sw = sweep_from_file("report/tiny-deadline-sweep.json");
    struct ts_sweep_options o;
    memset(&o, 0, sizeof o);
    struct ts_sweep_result *r = ts_xmalloc(sizeof *r);
    struct ts_err err;
    ts_err_clear(&err);
    int rc = ts_sweep_run(sw, &o, r, &err);
    assert_ok(rc, err);
    assert_true(r->found);
    double expected = sw->deadline_s / r->top[0].time_s;   /* the analytic time the deadline checks */
    assert_true(expected > 1.0 && expected < 1.2);          /* inside the tokens range */
    struct ts_sens_options opt = {0};
    opt.only = 1u << TS_SENS_TOKENS;
    opt.base_result = r;
    struct ts_sensitivity *s = ts_xmalloc(sizeof *s);
    rc = ts_sensitivity_sweep(sw, &opt, s, &err);
    assert_ok(rc, err);
    assert_int_equal(s->n_break_even, 1);
    const struct ts_sens_break_even *be = &s->break_even[0];
    assert_int_equal(be->input, TS_SENS_TOKENS);
    assert_true(be->found);
    print_message("  tokens break-even x%.5f .. x%.5f, deadline / time x%.5f\n", be->multiplier,
                  be->multiplier_flip, expected);
    assert_true(be->multiplier <= expected * (1 + 1e-3));
    assert_true(be->multiplier_flip >= expected * (1 - 1e-3));
    /* 7 halvings of the log range from 1 to 1.2 */
    assert_close(be->multiplier_flip / be->multiplier, pow(1.2, 1.0 / 128), 1e-9, 0);
    const struct ts_sens_row *row = row_of(s, TS_SENS_TOKENS);
    assert_true(row->answer_changes);
    assert_true(row->at_high.ok && row->at_high.nodes != s->base.nodes);
    ts_sweep_result_free(r);
    free(r);
    free(s);
    free(sw);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(prices_swing_the_bill_by_exactly_the_price_factor),
        cmocka_unit_test(rate_scale_one_reproduces_the_base_answer),
        cmocka_unit_test(rate_perturbations_double_the_right_part_of_the_job_rate),
        cmocka_unit_test(bisection_brackets_a_known_threshold),
        cmocka_unit_test(spot_price_break_even_matches_a_brute_force_scan),
        cmocka_unit_test(token_break_even_is_the_deadline_over_the_expected_time),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
