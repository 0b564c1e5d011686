/*
 * Prose wrapping of table output (report.h, ts_report_wrap_prose): the tables themselves fit
 * 100 columns by default, the sentences around them (notes, warnings, explanations, the
 * answer line) are broken at spaces so that no line passes the width; --wide leaves them.
 */
#include <string.h>

#include "report/report.h"

/* Columns of s[0..n): UTF-8 code points (continuation bytes 10xxxxxx do not count). */
static size_t columns(const char *s, size_t n)
{
    size_t c = 0;
    for (size_t i = 0; i < n; i++)
        c += ((unsigned char)s[i] & 0xC0) != 0x80;
    return c;
}

/* The byte offset in s[0..n) where column `col` starts (n when the text is shorter). */
static size_t byte_at_column(const char *s, size_t n, size_t col)
{
    size_t c = 0;
    for (size_t i = 0; i < n; i++) {
        if (((unsigned char)s[i] & 0xC0) != 0x80) {
            if (c == col)
                return i;
            c++;
        }
    }
    return n;
}

/* Append line[0..n) wrapped to `width` columns: break at the last space that keeps a piece
 * within the width (at the first space after, when a word alone is wider), continuation
 * pieces indented 4 more than the line. */
static void wrap_line(struct ts_buf *out, const char *line, size_t n, size_t width)
{
    size_t indent = 0;
    while (indent < n && line[indent] == ' ')
        indent++;
    size_t cont = indent + 4 < width / 2 ? indent + 4 : width / 2;
    size_t start = 0, prefix = 0;      /* piece line[start..), after `prefix` spaces */
    bool first = true;
    while (start < n) {
        size_t avail = width - prefix;
        size_t rest = n - start;
        if (columns(line + start, rest) <= avail) {
            ts_buf_printf(out, "%*s%.*s\n", (int)prefix, "", (int)rest, line + start);
            return;
        }
        /* Spaces of the first piece's own indentation are no break point. */
        size_t from = first ? indent : 0;
        size_t limit = byte_at_column(line + start, rest, avail);   /* a space here still fits */
        size_t brk = 0;
        for (size_t i = limit < rest ? limit : rest - 1; i > from; i--)
            if (line[start + i] == ' ') {
                brk = i;
                break;
            }
        if (!brk) {
            for (size_t i = limit; i < rest; i++)
                if (line[start + i] == ' ') {
                    brk = i;
                    break;
                }
            if (!brk) {
                ts_buf_printf(out, "%*s%.*s\n", (int)prefix, "", (int)rest, line + start);
                return;
            }
        }
        size_t end = brk;
        while (end > from && line[start + end - 1] == ' ')
            end--;
        ts_buf_printf(out, "%*s%.*s\n", (int)prefix, "", (int)end, line + start);
        start += brk;
        while (start < n && line[start] == ' ')
            start++;
        prefix = cont;
        first = false;
    }
}

void ts_report_wrap_prose(struct ts_buf *b, int width)
{
    if (!b->data || b->len == 0 || width < 20)
        return;
    struct ts_buf out;
    ts_buf_init(&out);
    const char *p = b->data, *end = b->data + b->len;
    bool changed = false;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        if (columns(p, n) > (size_t)width) {
            wrap_line(&out, p, n, (size_t)width);
            changed = true;
            if (!nl)                    /* the input's last line had no newline: keep it so */
                out.data[--out.len] = '\0';
        } else {
            ts_buf_append(&out, p, n + (nl ? 1 : 0));
        }
        p += n + (nl ? 1 : 0);
    }
    if (changed) {
        struct ts_buf t = *b;
        *b = out;
        out = t;
    }
    ts_buf_free(&out);
}
