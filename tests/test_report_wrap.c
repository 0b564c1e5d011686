/*
 * Prose wrapping of table output (sim/report/wrap.c): what fits is left byte for byte, what
 * does not is broken at spaces into pieces within the width whose words, joined, are the
 * line's words; continuation pieces are indented 4 more than the line; a word wider than the
 * width stays whole; columns are UTF-8 code points.
 */
#include "test_helpers.h"

#include "report/report.h"

static char *wrapped(const char *text, int width)
{
    struct ts_buf b;
    ts_buf_init(&b);
    ts_buf_append(&b, text, strlen(text));
    ts_report_wrap_prose(&b, width);
    char *s = strdup(b.data ? b.data : "");
    ts_buf_free(&b);
    return s;
}

/* Code points of s[0..n). */
static size_t columns(const char *s, size_t n)
{
    size_t c = 0;
    for (size_t i = 0; i < n; i++)
        c += ((unsigned char)s[i] & 0xC0) != 0x80;
    return c;
}

/* The words of s (runs of non-space, non-newline) joined by one space. */
static void words(const char *s, char *out, size_t n)
{
    size_t k = 0;
    bool gap = false;
    for (; *s && k + 1 < n; s++) {
        if (*s == ' ' || *s == '\n') {
            gap = k > 0;
            continue;
        }
        if (gap && k + 2 < n)
            out[k++] = ' ';
        gap = false;
        out[k++] = *s;
    }
    out[k] = '\0';
}

static void lines_that_fit_are_left_byte_for_byte(void **state)
{
    (void)state;
    const char *t = "short line\n  indented  with  double  spaces\n\nlast without newline";
    char *w = wrapped(t, 40);
    assert_string_equal(w, t);
    free(w);
}

static void a_long_sentence_breaks_at_the_last_space_within_the_width(void **state)
{
    (void)state;
    /* width 20: "alpha beta gamma" (16) + " delta" would be 22 > 20 */
    char *w = wrapped("alpha beta gamma delta epsilon zeta eta theta\n", 20);
    /* pieces: "alpha beta gamma" | "    delta epsilon" (17) | "    zeta eta theta" (18) */
    assert_string_equal(w, "alpha beta gamma\n    delta epsilon\n    zeta eta theta\n");
    free(w);
}

static void every_piece_fits_and_keeps_the_words_and_the_indent(void **state)
{
    (void)state;
    char line[2048] = "   ";
    for (int i = 0; i < 60; i++) {
        char wd[32];
        snprintf(wd, sizeof wd, "%sword%d", i ? " " : "", i * 37 % 1000);
        strcat(line, wd);
    }
    strcat(line, "\n");
    char *w = wrapped(line, 100);
    char a[2048], b[2048];
    words(line, a, sizeof a);
    words(w, b, sizeof b);
    assert_string_equal(a, b);
    int pieces = 0;
    for (const char *p = w; *p; pieces++) {
        const char *nl = strchr(p, '\n');
        assert_non_null(nl);
        size_t n = (size_t)(nl - p);
        assert_true(columns(p, n) <= 100);
        /* the first piece keeps the line's 3 spaces, the others have 3 + 4 */
        size_t lead = strspn(p, " ");
        assert_int_equal(lead, pieces == 0 ? 3 : 7);
        assert_true(n > 0 && p[n - 1] != ' ');
        p = nl + 1;
    }
    /* 60 words of 5 to 7 characters are about 420 columns: five pieces of <= 100 */
    assert_true(pieces >= 5);
    free(w);
}

static void a_word_wider_than_the_width_stays_whole(void **state)
{
    (void)state;
    char *w = wrapped("see /a/very/long/path/that/does/not/fit/in/twenty/columns now\n", 20);
    assert_string_equal(w, "see\n    /a/very/long/path/that/does/not/fit/in/twenty/columns\n    now\n");
    free(w);
}

static void columns_are_code_points_not_bytes(void **state)
{
    (void)state;
    /* 10 x "±5% " = 40 columns but 50 bytes: fits 40, not 39 */
    char line[128] = "";
    for (int i = 0; i < 10; i++)
        strcat(line, i < 9 ? "\xc2\xb1" "5% " : "\xc2\xb1" "50%");
    assert_int_equal(columns(line, strlen(line)), 40);
    char *w = wrapped(line, 40);
    assert_string_equal(w, line);
    free(w);
    w = wrapped(line, 39);
    assert_non_null(strchr(w, '\n'));
    free(w);
}

static void a_wrapped_last_line_without_newline_stays_without(void **state)
{
    (void)state;
    char *w = wrapped("one two three four five six", 20);
    assert_string_equal(w, "one two three four\n    five six");
    free(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lines_that_fit_are_left_byte_for_byte),
        cmocka_unit_test(a_long_sentence_breaks_at_the_last_space_within_the_width),
        cmocka_unit_test(every_piece_fits_and_keeps_the_words_and_the_indent),
        cmocka_unit_test(a_word_wider_than_the_width_stays_whole),
        cmocka_unit_test(columns_are_code_points_not_bytes),
        cmocka_unit_test(a_wrapped_last_line_without_newline_stays_without),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
