/*
 * Tests of the util module's numeric edge: quantity strings ("80 GiB", "400 Gb/s", "5 us")
 * in every dimension, their formatting, the round-trip JSON number writer, the statistics
 * helpers and the deterministic stream seeding.
 */
#include "test_helpers.h"

/* ---------------------------------------------------------------- helpers */

/* Parse text as dimension dim; fail the test with the message if it does not parse. */
#define assert_quantity(text, dim, expected) \
    check_quantity((text), (dim), (expected), __FILE__, __LINE__)

static void check_quantity(const char *text, enum ts_dim dim, double expected, const char *file,
                           int line)
{
    struct ts_err err;
    ts_err_clear(&err);
    double v = -12345.0;
    int rc = ts_quantity_parse(text, dim, &v, &err);
    if (rc != TS_OK) {
        print_error("%s:%d: \"%s\" did not parse: %s\n", file, line, text, err.msg);
        _fail(file, line);
    }
    ts_test_assert_close(v, expected, 1e-12, 0.0, text, file, line);
}

/* Assert that text is rejected as dimension dim with a message containing needle. */
#define assert_quantity_rejected(text, dim, needle) \
    check_quantity_rejected((text), (dim), (needle), __FILE__, __LINE__)

static void check_quantity_rejected(const char *text, enum ts_dim dim, const char *needle,
                                    const char *file, int line)
{
    struct ts_err err;
    ts_err_clear(&err);
    double v = -12345.0;
    int rc = ts_quantity_parse(text, dim, &v, &err);
    ts_test_assert_input_error(rc, &err, needle, file, line);
    if (v != -12345.0) {
        print_error("%s:%d: rejected \"%s\" still wrote the output (%g)\n", file, line, text, v);
        _fail(file, line);
    }
}

/* ---------------------------------------------------------------- bytes */

static void bytes_with_decimal_prefixes_are_powers_of_1000(void **state)
{
    (void)state;
    assert_quantity("512 B", TS_DIM_BYTES, 512.0);
    assert_quantity("1 kB", TS_DIM_BYTES, 1e3);
    assert_quantity("1 KB", TS_DIM_BYTES, 1e3);
    assert_quantity("512 MB", TS_DIM_BYTES, 512e6);
    assert_quantity("80 GB", TS_DIM_BYTES, 80e9);
    assert_quantity("13.8 TB", TS_DIM_BYTES, 13.8e12);
    assert_quantity("2 PB", TS_DIM_BYTES, 2e15);
    assert_quantity("1 EB", TS_DIM_BYTES, 1e18);
    assert_quantity("3 bytes", TS_DIM_BYTES, 3.0);
    assert_quantity("1 byte", TS_DIM_BYTES, 1.0);
    assert_quantity("4 Gbytes", TS_DIM_BYTES, 4e9);
}

static void bytes_with_binary_prefixes_are_powers_of_1024(void **state)
{
    (void)state;
    assert_quantity("1 KiB", TS_DIM_BYTES, 1024.0);
    assert_quantity("1 MiB", TS_DIM_BYTES, 1048576.0);
    assert_quantity("80 GiB", TS_DIM_BYTES, 80.0 * 1073741824.0);
    assert_quantity("1.5 TiB", TS_DIM_BYTES, 1.5 * 1099511627776.0);
    assert_quantity("1 PiB", TS_DIM_BYTES, 1125899906842624.0);
    assert_quantity("1 EiB", TS_DIM_BYTES, 1152921504606846976.0);
}

static void bits_are_an_eighth_of_a_byte(void **state)
{
    (void)state;
    assert_quantity("8 b", TS_DIM_BYTES, 1.0);
    assert_quantity("16 bits", TS_DIM_BYTES, 2.0);
    assert_quantity("1 Gb", TS_DIM_BYTES, 125e6);
    assert_quantity("8 Gibit", TS_DIM_BYTES, 1073741824.0);
}

static void a_bare_number_in_a_string_is_in_the_base_unit(void **state)
{
    (void)state;
    assert_quantity("1e9", TS_DIM_BYTES, 1e9);
    assert_quantity("2.5e-6", TS_DIM_SECONDS, 2.5e-6);
    assert_quantity("3.35e12", TS_DIM_BYTES_PER_S, 3.35e12);
    assert_quantity("989e12", TS_DIM_FLOPS_PER_S, 989e12);
}

/* ---------------------------------------------------------------- bandwidth */

static void bandwidth_in_bits_per_second_is_divided_by_eight(void **state)
{
    (void)state;
    assert_quantity("400 Gb/s", TS_DIM_BYTES_PER_S, 50e9);
    assert_quantity("100 Gbps", TS_DIM_BYTES_PER_S, 12.5e9);
    assert_quantity("800 Gbit/s", TS_DIM_BYTES_PER_S, 100e9);
    assert_quantity("10 Mbps", TS_DIM_BYTES_PER_S, 1.25e6);
    assert_quantity("8 b/s", TS_DIM_BYTES_PER_S, 1.0);
}

static void bandwidth_in_bytes_per_second_keeps_its_value(void **state)
{
    (void)state;
    assert_quantity("3.35 TB/s", TS_DIM_BYTES_PER_S, 3.35e12);
    assert_quantity("25 GB/s", TS_DIM_BYTES_PER_S, 25e9);
    assert_quantity("25 GBps", TS_DIM_BYTES_PER_S, 25e9);
    assert_quantity("900 GB/s", TS_DIM_BYTES_PER_S, 900e9);
    assert_quantity("1 GiB/s", TS_DIM_BYTES_PER_S, 1073741824.0);
    assert_quantity("5 kbytes/s", TS_DIM_BYTES_PER_S, 5e3);
    assert_quantity("7 B/s", TS_DIM_BYTES_PER_S, 7.0);
}

/* ---------------------------------------------------------------- FLOP/s */

static void flop_rates_accept_every_spelling(void **state)
{
    (void)state;
    assert_quantity("312 TFLOP/s", TS_DIM_FLOPS_PER_S, 312e12);
    assert_quantity("989 TFLOPS", TS_DIM_FLOPS_PER_S, 989e12);
    assert_quantity("1.979 PFLOP/s", TS_DIM_FLOPS_PER_S, 1.979e15);
    assert_quantity("19.5 TFLOP/S", TS_DIM_FLOPS_PER_S, 19.5e12);
    assert_quantity("100 Gflop/s", TS_DIM_FLOPS_PER_S, 100e9);
    assert_quantity("100 Gflops", TS_DIM_FLOPS_PER_S, 100e9);
    assert_quantity("5 FLOP/s", TS_DIM_FLOPS_PER_S, 5.0);
    assert_quantity("1 EFLOP/s", TS_DIM_FLOPS_PER_S, 1e18);
}

/* ---------------------------------------------------------------- durations */

static void durations_from_nanoseconds_to_years(void **state)
{
    (void)state;
    assert_quantity("5 ns", TS_DIM_SECONDS, 5e-9);
    assert_quantity("5 us", TS_DIM_SECONDS, 5e-6);
    assert_quantity("5 \xc2\xb5s", TS_DIM_SECONDS, 5e-6);
    assert_quantity("2.5 ms", TS_DIM_SECONDS, 2.5e-3);
    assert_quantity("3 s", TS_DIM_SECONDS, 3.0);
    assert_quantity("3 sec", TS_DIM_SECONDS, 3.0);
    assert_quantity("1 second", TS_DIM_SECONDS, 1.0);
    assert_quantity("4 seconds", TS_DIM_SECONDS, 4.0);
    assert_quantity("30 min", TS_DIM_SECONDS, 1800.0);
    assert_quantity("1 minute", TS_DIM_SECONDS, 60.0);
    assert_quantity("2 minutes", TS_DIM_SECONDS, 120.0);
    assert_quantity("3 h", TS_DIM_SECONDS, 10800.0);
    assert_quantity("3 hr", TS_DIM_SECONDS, 10800.0);
    assert_quantity("1 hour", TS_DIM_SECONDS, 3600.0);
    assert_quantity("2 hours", TS_DIM_SECONDS, 7200.0);
    assert_quantity("54 d", TS_DIM_SECONDS, 54.0 * 86400.0);
    assert_quantity("1 day", TS_DIM_SECONDS, 86400.0);
    assert_quantity("2 days", TS_DIM_SECONDS, 172800.0);
    assert_quantity("1 w", TS_DIM_SECONDS, 604800.0);
    assert_quantity("2 weeks", TS_DIM_SECONDS, 1209600.0);
    assert_quantity("1 week", TS_DIM_SECONDS, 604800.0);
    /* Julian years: 365.25 days. */
    assert_quantity("1 y", TS_DIM_SECONDS, 365.25 * 86400.0);
    assert_quantity("1 year", TS_DIM_SECONDS, 365.25 * 86400.0);
    assert_quantity("2 years", TS_DIM_SECONDS, 2.0 * 365.25 * 86400.0);
}

static void durations_take_no_metric_prefix(void **state)
{
    (void)state;
    /* "ks" or "Gs" is not a way anyone writes a duration; it is a typo. */
    assert_quantity_rejected("5 ks", TS_DIM_SECONDS, "unknown unit \"ks\"");
    assert_quantity_rejected("5 Mmin", TS_DIM_SECONDS, "unknown unit \"Mmin\"");
}

/* ---------------------------------------------------------------- plain numbers */

static void numbers_accept_thousand_million_billion_trillion_suffixes(void **state)
{
    (void)state;
    assert_quantity("42", TS_DIM_NUMBER, 42.0);
    assert_quantity("5K", TS_DIM_NUMBER, 5e3);
    assert_quantity("5k", TS_DIM_NUMBER, 5e3);
    assert_quantity("1.5M", TS_DIM_NUMBER, 1.5e6);
    assert_quantity("300B", TS_DIM_NUMBER, 300e9);
    assert_quantity("7 G", TS_DIM_NUMBER, 7e9);
    assert_quantity("2T", TS_DIM_NUMBER, 2e12);
    assert_quantity("-3K", TS_DIM_NUMBER, -3e3);
}

static void numbers_accept_a_percent_sign(void **state)
{
    (void)state;
    assert_quantity("50%", TS_DIM_NUMBER, 0.5);
    assert_quantity("2.5 %", TS_DIM_NUMBER, 0.025);
    assert_quantity("100%", TS_DIM_NUMBER, 1.0);
}

static void numbers_do_not_combine_suffixes(void **state)
{
    (void)state;
    assert_quantity_rejected("5 KM", TS_DIM_NUMBER, "unknown unit \"KM\"");
    assert_quantity_rejected("5 %%", TS_DIM_NUMBER, "unknown unit");
    assert_quantity_rejected("5 Ki", TS_DIM_NUMBER, "unknown unit \"Ki\"");
}

/* ---------------------------------------------------------------- whitespace */

static void whitespace_around_and_between_number_and_unit_is_ignored(void **state)
{
    (void)state;
    assert_quantity("80GiB", TS_DIM_BYTES, 80.0 * 1073741824.0);
    assert_quantity("  80 GiB  ", TS_DIM_BYTES, 80.0 * 1073741824.0);
    assert_quantity("\t400\tGb/s\n", TS_DIM_BYTES_PER_S, 50e9);
    assert_quantity("30   min", TS_DIM_SECONDS, 1800.0);
    assert_quantity(" 7 ", TS_DIM_NUMBER, 7.0);
    assert_quantity(".5 s", TS_DIM_SECONDS, 0.5);
    assert_quantity("+2 h", TS_DIM_SECONDS, 7200.0);
}

/* ---------------------------------------------------------------- rejections */

static void empty_and_blank_strings_are_rejected(void **state)
{
    (void)state;
    for (int d = 0; d < TS_DIM_COUNT; d++) {
        assert_quantity_rejected("", (enum ts_dim)d, "\"\" is not");
        assert_quantity_rejected("   ", (enum ts_dim)d, "\"   \" is not");
    }
}

static void nan_and_infinity_are_rejected_in_every_spelling(void **state)
{
    (void)state;
    static const char *const bad[] = {"nan", "NaN", "-nan", "+nan", "inf", "Infinity", "-inf",
                                      "+INF", "nan GB", "inf s"};
    for (size_t i = 0; i < TS_ARRAY_LEN(bad); i++) {
        assert_quantity_rejected(bad[i], TS_DIM_BYTES, "is not a size in bytes");
        assert_quantity_rejected(bad[i], TS_DIM_NUMBER, "is not a number");
    }
}

static void numbers_that_overflow_a_double_are_rejected(void **state)
{
    (void)state;
    assert_quantity_rejected("1e400", TS_DIM_NUMBER,
                             "\"1e400\" is out of range (a finite number is needed)");
    assert_quantity_rejected("-1e400", TS_DIM_NUMBER, "\"-1e400\" is out of range");
    assert_quantity_rejected("1e999 GiB", TS_DIM_BYTES,
                             "\"1e999 GiB\" is out of range (a finite number is needed)");
    assert_quantity_rejected("1e999 s", TS_DIM_SECONDS, "\"1e999 s\" is out of range");
    /* Finite as a number, infinite once scaled by the unit. */
    assert_quantity_rejected("1e300 EiB", TS_DIM_BYTES, "\"1e300 EiB\" is out of range");
}

static void hexadecimal_numbers_are_rejected(void **state)
{
    (void)state;
    assert_quantity_rejected("0x10", TS_DIM_NUMBER, "\"0x10\" is not");
    assert_quantity_rejected("0X10", TS_DIM_NUMBER, "\"0X10\" is not");
    assert_quantity_rejected("-0x10", TS_DIM_NUMBER, "\"-0x10\" is not");
    assert_quantity_rejected("+0x1p4", TS_DIM_NUMBER, "\"+0x1p4\" is not");
    assert_quantity_rejected(" 0x10 GB", TS_DIM_BYTES, "is not a size in bytes");
}

static void words_without_a_number_are_rejected(void **state)
{
    (void)state;
    assert_quantity_rejected("GB", TS_DIM_BYTES, "\"GB\" is not a size in bytes");
    assert_quantity_rejected("abc", TS_DIM_NUMBER, "\"abc\" is not a number");
    assert_quantity_rejected("-", TS_DIM_NUMBER, "\"-\" is not");
    assert_quantity_rejected(".", TS_DIM_NUMBER, "\".\" is not");
    assert_quantity_rejected("- 5", TS_DIM_NUMBER, "\"- 5\" is not");
}

static void unknown_units_are_rejected_with_the_expected_dimension(void **state)
{
    (void)state;
    assert_quantity_rejected("80 GiG", TS_DIM_BYTES, "unknown unit \"GiG\"; expected a size in bytes");
    assert_quantity_rejected("5 parsecs", TS_DIM_SECONDS, "unknown unit \"parsecs\"");
    assert_quantity_rejected("3 XB/s", TS_DIM_BYTES_PER_S, "unknown unit \"XB/s\"");
    assert_quantity_rejected("3 gb", TS_DIM_BYTES, "unknown unit \"gb\"");
    assert_quantity_rejected("312 TOPS", TS_DIM_FLOPS_PER_S, "unknown unit \"TOPS\"");
    /* A unit longer than any real one is rejected, not truncated. */
    assert_quantity_rejected("5 GiBGiBGiBGiBGiBGiBGiBGiBGiBGiBGiBGiB", TS_DIM_BYTES,
                             "unknown unit");
}

static void units_of_the_wrong_dimension_are_rejected(void **state)
{
    (void)state;
    assert_quantity_rejected("5 GB", TS_DIM_SECONDS, "unknown unit \"GB\"; expected a duration");
    assert_quantity_rejected("30 min", TS_DIM_BYTES, "unknown unit \"min\"; expected a size in bytes");
    assert_quantity_rejected("400 Gb/s", TS_DIM_BYTES, "unknown unit \"Gb/s\"");
    assert_quantity_rejected("80 GiB", TS_DIM_BYTES_PER_S, "unknown unit \"GiB\"; expected a bandwidth");
    assert_quantity_rejected("312 TFLOP/s", TS_DIM_BYTES_PER_S, "unknown unit \"TFLOP/s\"");
    assert_quantity_rejected("3.35 TB/s", TS_DIM_FLOPS_PER_S, "expected a rate in FLOP/s");
    assert_quantity_rejected("5 us", TS_DIM_NUMBER, "unknown unit \"us\"");
    assert_quantity_rejected("50%", TS_DIM_BYTES, "unknown unit \"%\"");
}

static void trailing_garbage_is_rejected(void **state)
{
    (void)state;
    assert_quantity_rejected("80 GiB x", TS_DIM_BYTES, "unknown unit \"GiB x\"");
    assert_quantity_rejected("5 5 s", TS_DIM_SECONDS, "unknown unit \"5 s\"");
    assert_quantity_rejected("12abc", TS_DIM_NUMBER, "unknown unit \"abc\"");
    assert_quantity_rejected("1.2.3", TS_DIM_NUMBER, "unknown unit \".3\"");
    assert_quantity_rejected("3 h,", TS_DIM_SECONDS, "unknown unit \"h,\"");
}

static void every_dimension_has_a_description_with_an_example(void **state)
{
    (void)state;
    assert_non_null(strstr(ts_dim_describe(TS_DIM_BYTES), "\"80 GiB\""));
    assert_non_null(strstr(ts_dim_describe(TS_DIM_BYTES_PER_S), "\"400 Gb/s\""));
    assert_non_null(strstr(ts_dim_describe(TS_DIM_FLOPS_PER_S), "\"312 TFLOP/s\""));
    assert_non_null(strstr(ts_dim_describe(TS_DIM_SECONDS), "\"30 min\""));
    assert_non_null(strstr(ts_dim_describe(TS_DIM_NUMBER), "\"300B\""));
}

/* ---------------------------------------------------------------- formatting */

static void quantity_format_picks_a_readable_unit(void **state)
{
    (void)state;
    char buf[64];
    assert_string_equal(ts_quantity_format(80.0 * 1073741824.0, TS_DIM_BYTES, buf, sizeof buf),
                        "80 GiB");
    assert_string_equal(ts_quantity_format(512.0, TS_DIM_BYTES, buf, sizeof buf), "512 B");
    assert_string_equal(ts_quantity_format(3.35e12, TS_DIM_BYTES_PER_S, buf, sizeof buf),
                        "3.35 TB/s");
    assert_string_equal(ts_quantity_format(312e12, TS_DIM_FLOPS_PER_S, buf, sizeof buf),
                        "312 TFLOP/s");
    assert_string_equal(ts_quantity_format(5e-6, TS_DIM_SECONDS, buf, sizeof buf), "5 us");
    assert_string_equal(ts_quantity_format(0.25, TS_DIM_SECONDS, buf, sizeof buf), "250 ms");
    assert_string_equal(ts_quantity_format(1800.0, TS_DIM_SECONDS, buf, sizeof buf), "30 min");
    assert_string_equal(ts_quantity_format(2.5e4, TS_DIM_SECONDS, buf, sizeof buf), "6.94 h");
    assert_string_equal(ts_quantity_format(54.0 * 86400.0, TS_DIM_SECONDS, buf, sizeof buf),
                        "54 d");
    assert_string_equal(ts_quantity_format(42.0, TS_DIM_NUMBER, buf, sizeof buf), "42");
}

static void quantity_format_output_parses_back_to_nearly_the_same_value(void **state)
{
    (void)state;
    static const double values[] = {0.0,    1.0,    999.0,   1023.0,  1024.0,   1500.0,
                                    4.2e5,  8.6e10, 1.3e13,  7.7e15,  1.2e18,   3.0e-9,
                                    4.5e-4, 0.07,   12.0,    119.0,   121.0,    3599.0,
                                    7300.0, 2.5e4,  3.0e5,   4.7e6,   1.0e8,    1023.99 * 1024.0};
    for (int d = 0; d < TS_DIM_COUNT; d++) {
        for (size_t i = 0; i < TS_ARRAY_LEN(values); i++) {
            for (int sign = 1; sign >= -1; sign -= 2) {
                double v = sign * values[i];
                /* Below a KiB bytes print whole ("512 B"); a fraction of a byte means nothing. */
                if (d == TS_DIM_BYTES && fabs(v) < 1024.0 && v != floor(v))
                    continue;
                char buf[64];
                ts_quantity_format(v, (enum ts_dim)d, buf, sizeof buf);
                struct ts_err err;
                double back = -1.0;
                int rc = ts_quantity_parse(buf, (enum ts_dim)d, &back, &err);
                if (rc != TS_OK)
                    print_error("dimension %d, value %.17g: \"%s\" does not parse: %s\n", d, v,
                                buf, err.msg);
                assert_int_equal(rc, TS_OK);
                /* Three significant digits (four for FLOP/s, six for numbers). */
                assert_close(back, v, 5.01e-3, 1e-300);
            }
        }
    }
}

/* ---------------------------------------------------------------- JSON numbers */

static double bits_to_double(uint64_t bits)
{
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

static uint64_t double_to_bits(double d)
{
    uint64_t bits;
    memcpy(&bits, &d, sizeof bits);
    return bits;
}

static void check_json_double_round_trip(double v)
{
    char buf[64];
    ts_json_format_double(v, buf, sizeof buf);
    char *end;
    double back = strtod(buf, &end);
    if (*end != '\0' || double_to_bits(back) != double_to_bits(v)) {
        print_error("%.17g (bits %016llx) formats as \"%s\", which reads back as %.17g\n", v,
                    (unsigned long long)double_to_bits(v), buf, back);
        fail();
    }
}

static void json_format_double_round_trips_random_doubles_exactly(void **state)
{
    (void)state;
    uint64_t x = 0x1234567890abcdefULL;
    int checked = 0, scale = ts_test_under_valgrind() ? 20 : 1;   // fewer draws under valgrind
    for (int i = 0; i < 200000 / scale; i++) {
        x = ts_rng_mix64(x);
        double v = bits_to_double(x);
        if (!isfinite(v))
            continue;
        check_json_double_round_trip(v);
        checked++;
    }
    /* Doubles of everyday magnitude, where %.15g is tried first. */
    for (int i = 0; i < 100000 / scale; i++) {
        x = ts_rng_mix64(x);
        double u = (double)(x >> 11) / 9007199254740992.0;   /* [0, 1) */
        check_json_double_round_trip(u);
        check_json_double_round_trip(u * 1e6 - 5e5);
        check_json_double_round_trip(u * 1e-12);
        checked += 3;
    }
    assert_true(checked > 400000 / scale);
}

static void json_format_double_writes_integers_and_special_values_plainly(void **state)
{
    (void)state;
    char buf[64];
    ts_json_format_double(3.0, buf, sizeof buf);
    assert_string_equal(buf, "3");
    ts_json_format_double(-160000000.0, buf, sizeof buf);
    assert_string_equal(buf, "-160000000");
    ts_json_format_double(9007199254740991.0, buf, sizeof buf);
    assert_string_equal(buf, "9007199254740991");
    ts_json_format_double(0.1, buf, sizeof buf);
    assert_string_equal(buf, "0.1");
    ts_json_format_double(0.1 + 0.2, buf, sizeof buf);
    assert_string_equal(buf, "0.30000000000000004");
    ts_json_format_double(NAN, buf, sizeof buf);
    assert_string_equal(buf, "null");
    ts_json_format_double(-INFINITY, buf, sizeof buf);
    assert_string_equal(buf, "null");
    check_json_double_round_trip(-0.0);
    check_json_double_round_trip(1e300);
    check_json_double_round_trip(5e-324);
    check_json_double_round_trip(1.7976931348623157e308);
}

/* ---------------------------------------------------------------- statistics */

static void mean_and_stddev_match_hand_computed_values(void **state)
{
    (void)state;
    static const double x[] = {2, 4, 4, 4, 5, 5, 7, 9};
    assert_close(ts_stats_mean(x, 8), 5.0, 1e-15, 0.0);
    /* Sum of squared deviations 32, n - 1 = 7. */
    assert_close(ts_stats_stddev(x, 8), sqrt(32.0 / 7.0), 1e-15, 0.0);
    static const double y[] = {1.5, 2.5};
    assert_close(ts_stats_mean(y, 2), 2.0, 1e-15, 0.0);
    assert_close(ts_stats_stddev(y, 2), sqrt(0.5), 1e-15, 0.0);
}

static void mean_and_stddev_of_too_few_values_are_zero(void **state)
{
    (void)state;
    static const double one[] = {42.0};
    assert_close(ts_stats_mean(one, 0), 0.0, 0.0, 0.0);
    assert_close(ts_stats_mean(one, 1), 42.0, 0.0, 0.0);
    assert_close(ts_stats_stddev(one, 0), 0.0, 0.0, 0.0);
    assert_close(ts_stats_stddev(one, 1), 0.0, 0.0, 0.0);
}

static void percentile_interpolates_between_order_statistics_like_r_type_7(void **state)
{
    (void)state;
    double x[] = {4, 1, 3, 2};
    ts_stats_sort(x, 4);
    assert_close(x[0], 1.0, 0.0, 0.0);
    assert_close(x[3], 4.0, 0.0, 0.0);
    assert_close(ts_stats_percentile_sorted(x, 4, 0.5), 2.5, 1e-15, 0.0);
    assert_close(ts_stats_percentile_sorted(x, 4, 0.9), 3.7, 1e-14, 0.0);
    assert_close(ts_stats_percentile_sorted(x, 4, 0.25), 1.75, 1e-15, 0.0);
    assert_close(ts_stats_percentile_sorted(x, 4, 0.0), 1.0, 0.0, 0.0);
    assert_close(ts_stats_percentile_sorted(x, 4, 1.0), 4.0, 0.0, 0.0);
    /* R: quantile(c(10, 20, 30, 40, 50), 0.1) = 14 */
    double y[] = {50, 10, 40, 30, 20};
    ts_stats_sort(y, 5);
    assert_close(ts_stats_percentile_sorted(y, 5, 0.1), 14.0, 1e-14, 0.0);
    assert_close(ts_stats_percentile_sorted(y, 5, 0.5), 30.0, 1e-15, 0.0);
    assert_close(ts_stats_percentile_sorted(y, 5, 0.99), 49.6, 1e-14, 0.0);
}

static void percentile_of_one_value_is_that_value(void **state)
{
    (void)state;
    double x[] = {7.5};
    assert_close(ts_stats_percentile_sorted(x, 1, 0.0), 7.5, 0.0, 0.0);
    assert_close(ts_stats_percentile_sorted(x, 1, 0.37), 7.5, 0.0, 0.0);
    assert_close(ts_stats_percentile_sorted(x, 1, 1.0), 7.5, 0.0, 0.0);
}

/* ---------------------------------------------------------------- seeding */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static void stream_seeds_differ_for_every_index_and_purpose(void **state)
{
    (void)state;
    enum { INDICES = 256, PURPOSES = 16 };
    static uint64_t seeds[INDICES * PURPOSES];
    size_t n = 0;
    for (uint64_t i = 0; i < INDICES; i++)
        for (uint64_t p = 0; p < PURPOSES; p++)
            seeds[n++] = ts_rng_stream_seed(42, i, p);
    qsort(seeds, n, sizeof seeds[0], cmp_u64);
    for (size_t k = 1; k < n; k++)
        assert_true(seeds[k] != seeds[k - 1]);
}

static void stream_seed_is_a_pure_function_of_its_inputs(void **state)
{
    (void)state;
    assert_true(ts_rng_stream_seed(7, 3, 1) == ts_rng_stream_seed(7, 3, 1));
    /* Swapping index and purpose, or changing the master seed, gives another stream. */
    assert_true(ts_rng_stream_seed(7, 3, 1) != ts_rng_stream_seed(7, 1, 3));
    assert_true(ts_rng_stream_seed(7, 3, 1) != ts_rng_stream_seed(8, 3, 1));
    assert_true(ts_rng_stream_seed(0, 0, 0) != 0);
    /* Published SplitMix64 output for state 0: first value 0xe220a8397b1dcdaf. */
    assert_true(ts_rng_mix64(0) == 0xe220a8397b1dcdafULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bytes_with_decimal_prefixes_are_powers_of_1000),
        cmocka_unit_test(bytes_with_binary_prefixes_are_powers_of_1024),
        cmocka_unit_test(bits_are_an_eighth_of_a_byte),
        cmocka_unit_test(a_bare_number_in_a_string_is_in_the_base_unit),
        cmocka_unit_test(bandwidth_in_bits_per_second_is_divided_by_eight),
        cmocka_unit_test(bandwidth_in_bytes_per_second_keeps_its_value),
        cmocka_unit_test(flop_rates_accept_every_spelling),
        cmocka_unit_test(durations_from_nanoseconds_to_years),
        cmocka_unit_test(durations_take_no_metric_prefix),
        cmocka_unit_test(numbers_accept_thousand_million_billion_trillion_suffixes),
        cmocka_unit_test(numbers_accept_a_percent_sign),
        cmocka_unit_test(numbers_do_not_combine_suffixes),
        cmocka_unit_test(whitespace_around_and_between_number_and_unit_is_ignored),
        cmocka_unit_test(empty_and_blank_strings_are_rejected),
        cmocka_unit_test(nan_and_infinity_are_rejected_in_every_spelling),
        cmocka_unit_test(numbers_that_overflow_a_double_are_rejected),
        cmocka_unit_test(hexadecimal_numbers_are_rejected),
        cmocka_unit_test(words_without_a_number_are_rejected),
        cmocka_unit_test(unknown_units_are_rejected_with_the_expected_dimension),
        cmocka_unit_test(units_of_the_wrong_dimension_are_rejected),
        cmocka_unit_test(trailing_garbage_is_rejected),
        cmocka_unit_test(every_dimension_has_a_description_with_an_example),
        cmocka_unit_test(quantity_format_picks_a_readable_unit),
        cmocka_unit_test(quantity_format_output_parses_back_to_nearly_the_same_value),
        cmocka_unit_test(json_format_double_round_trips_random_doubles_exactly),
        cmocka_unit_test(json_format_double_writes_integers_and_special_values_plainly),
        cmocka_unit_test(mean_and_stddev_match_hand_computed_values),
        cmocka_unit_test(mean_and_stddev_of_too_few_values_are_zero),
        cmocka_unit_test(percentile_interpolates_between_order_statistics_like_r_type_7),
        cmocka_unit_test(percentile_of_one_value_is_that_value),
        cmocka_unit_test(stream_seeds_differ_for_every_index_and_purpose),
        cmocka_unit_test(stream_seed_is_a_pure_function_of_its_inputs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
