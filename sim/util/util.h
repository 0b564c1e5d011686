/*
 * util: the small things every module of trainsim needs.
 *
 *   - struct ts_err and the status codes that main turns into exit codes
 *     (0 success, 1 runtime failure, 2 bad usage or input);
 *   - TS_ASSERT, an always-on assertion for bugs (never for bad input);
 *   - quantities: numbers in SI base units or strings with a unit ("80 GiB", "400 Gb/s");
 *   - JSON access with the JSON path carried along, so every message can say
 *     "configs/x.json: parallel.tp: 3 does not divide heads (32)";
 *   - statistics helpers (mean, percentiles) and deterministic RNG seeding;
 *   - file helpers (read a whole file; check an output path before the work and write it
 *     safely after: see "output files" below);
 *   - input fingerprints: which files a parse read, and a hash of each.
 *
 * Library code never exits: fallible functions take `struct ts_err *err` last and return a
 * status (TS_OK on success). Only main chooses exit codes.
 * All functions are thread safe unless they say otherwise (no globals are written).
 */
#ifndef TS_UTIL_H
#define TS_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>

/* ---------------------------------------------------------------- status and errors */

/* X-macro list of status codes: value, name, meaning. One list, so names never drift. */
#define TS_STATUS_LIST(X)                                  \
    X(TS_OK, 0, "success")                                 \
    X(TS_ERR_RUNTIME, 1, "runtime failure")                \
    X(TS_ERR_INPUT, 2, "bad usage or input")

enum ts_status {
#define TS_STATUS_ENUM(name, value, text) name = value,
    TS_STATUS_LIST(TS_STATUS_ENUM)
#undef TS_STATUS_ENUM
};

#define TS_ERR_MSG_MAX 1024

struct ts_err {
    enum ts_status status;      // TS_OK until something fails
    char msg[TS_ERR_MSG_MAX];   // one line, e.g. "configs/x.json: parallel.tp: 3 does not divide heads (32)"
};

/* Reset err to TS_OK with an empty message. */
void ts_err_clear(struct ts_err *err);

/* Set err (if not NULL) to status with a printf-style message. Returns status. */
int ts_err_set(struct ts_err *err, enum ts_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Set an input error located at FILE: PATH: message. An empty path is left out. Returns
 * TS_ERR_INPUT. */
int ts_err_at(struct ts_err *err, const char *file, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Name of a status, e.g. "TS_ERR_INPUT". */
const char *ts_status_name(enum ts_status status);

/* ---------------------------------------------------------------- assertions */

/* Always-on assertion for programming errors (time going backwards, negative durations).
 * Prints file, line, the condition and a formatted context, then aborts. */
#define TS_ASSERT(cond, ...)                                                     \
    do {                                                                         \
        if (!(cond))                                                             \
            ts_assert_fail(__FILE__, __LINE__, #cond, __VA_ARGS__);              \
    } while (0)

_Noreturn void ts_assert_fail(const char *file, int line, const char *cond, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* ---------------------------------------------------------------- GSL errors */

/* Replace GSL's default error handler (print and abort) by one that only records the error
 * for the calling thread, so a GSL function returns its error status or a non-finite value
 * instead of killing the process. Idempotent and thread safe; main calls it first, and the
 * library functions that call GSL call it too (so tests and other embedders get it). */
void ts_gsl_errors_install(void);

/* The GSL error recorded on this thread since the last call (0 if none; `reason`, if not
 * NULL, receives GSL's text), and clear it. */
int ts_gsl_error_take(char *reason, size_t n);

/* ---------------------------------------------------------------- quantities */

/* The physical dimension a quantity must have. Strings carry a unit of this dimension; plain
 * JSON numbers are taken in the SI base unit. */
enum ts_dim {
    TS_DIM_NUMBER,          // plain number; strings may use K, M, B (1e9), T suffixes: "300B"
    TS_DIM_BYTES,           // "80 GiB", "13.8 TB", "512 MB"
    TS_DIM_BYTES_PER_S,     // "3.35 TB/s", "400 Gb/s", "25 GB/s", "100 Gbps"
    TS_DIM_FLOPS_PER_S,     // "312 TFLOP/s", "989 TFLOPS"
    TS_DIM_SECONDS,         // "5 us", "30 min", "54 d", "3 h"
    TS_DIM_COUNT
};

/* Human name of a dimension, e.g. "a byte count like \"80 GiB\"". */
const char *ts_dim_describe(enum ts_dim dim);

/* Parse a quantity string of the given dimension into SI base units. Returns TS_OK, or
 * TS_ERR_INPUT with a message (no location: callers prefix it) saying what was expected. */
int ts_quantity_parse(const char *text, enum ts_dim dim, double *out, struct ts_err *err);

/* Format a value of a dimension with a readable unit into buf, e.g. 8.59e10 bytes ->
 * "80.0 GiB", 2.5e4 s -> "6.94 h". Returns buf. */
char *ts_quantity_format(double value, enum ts_dim dim, char *buf, size_t n);

/* ---------------------------------------------------------------- JSON with paths */

#define TS_PATH_MAX 256

/* A JSON node together with where it came from. `file` is borrowed (must outlive the node);
 * `path` is the JSON path of the node, "" for the document root ("parallel.tp",
 * "reliability.failures[2].mtbf"). */
struct ts_inputs;

struct ts_jnode {
    const cJSON *json;
    const char *file;
    char path[TS_PATH_MAX];
    struct ts_inputs *inputs;   // where catalogue files loaded while parsing this node are
                                //   recorded (ts_inputs_record), or NULL; children inherit it
};

/* Make the node for a document root (inputs NULL: set it to record what the parse loads). */
struct ts_jnode ts_jnode_root(const cJSON *json, const char *file);

/* Child `key` of an object node. Returns true and fills *out if present; false otherwise
 * (out gets the would-be path either way, so callers can report a missing key). */
bool ts_jnode_child(const struct ts_jnode *obj, const char *key, struct ts_jnode *out);

/* Element `index` of an array node. */
struct ts_jnode ts_jnode_item(const struct ts_jnode *arr, int index);

/* Fail unless the node is an object / array / string. */
int ts_jnode_expect_object(const struct ts_jnode *node, struct ts_err *err);
int ts_jnode_expect_array(const struct ts_jnode *node, struct ts_err *err);

/* Reject keys of an object that are not in the NULL-terminated list `allowed` (a typo must
 * not be silently ignored) and keys that appear twice. The message lists the allowed keys. */
int ts_jnode_check_keys(const struct ts_jnode *obj, const char *const allowed[], struct ts_err *err);

/* Short description of a JSON value for messages, e.g. "3", "\"abc\"", "an object". */
void ts_jnode_describe(const cJSON *json, char *buf, size_t n);

/* Whether a value is required. Optional absent values leave *out untouched, so the caller
 * sets the documented default before the call. */
enum ts_need { TS_OPTIONAL, TS_REQUIRED };

/* Read an integer in [lo, hi] (a JSON number with no fraction, or a TS_DIM_NUMBER string
 * like "2T"). */
int ts_jnode_get_long(const struct ts_jnode *obj, const char *key, enum ts_need need,
                      long lo, long hi, long *out, struct ts_err *err);
int ts_jnode_get_int(const struct ts_jnode *obj, const char *key, enum ts_need need,
                     int lo, int hi, int *out, struct ts_err *err);

/* Read a finite quantity of dimension dim in [lo, hi] (SI units). */
int ts_jnode_get_quantity(const struct ts_jnode *obj, const char *key, enum ts_need need,
                          enum ts_dim dim, double lo, double hi, double *out, struct ts_err *err);

/* Parse a node itself (not a child) as a quantity / integer; used for array elements. */
int ts_jnode_to_quantity(const struct ts_jnode *node, enum ts_dim dim, double lo, double hi,
                         double *out, struct ts_err *err);
int ts_jnode_to_long(const struct ts_jnode *node, long lo, long hi, long *out, struct ts_err *err);

int ts_jnode_get_bool(const struct ts_jnode *obj, const char *key, enum ts_need need, bool *out,
                      struct ts_err *err);

/* Read a string into buf (fails if it does not fit). */
int ts_jnode_get_string(const struct ts_jnode *obj, const char *key, enum ts_need need, char *buf,
                        size_t n, struct ts_err *err);

/* Check that `key`, when present, is a string of any length, and point *out (if not NULL)
 * at it (borrowed from the document). For free text such as "description" and "notes". */
int ts_jnode_get_text(const struct ts_jnode *obj, const char *key, enum ts_need need,
                      const char **out, struct ts_err *err);

/* Read a string that must be one of names[0..count-1]; *out gets its index. */
int ts_jnode_get_enum(const struct ts_jnode *obj, const char *key, enum ts_need need,
                      const char *const names[], int count, int *out, struct ts_err *err);

/* Limits of a JSON document (README "Input files"). Deeper nesting is refused before cJSON
 * recurses into it; the memory limit bounds what parsing one document may allocate (a 64 MiB
 * array of small numbers would otherwise take gigabytes of cJSON nodes). */
#define TS_JSON_DEPTH_MAX 64
#define TS_JSON_MEMORY_MAX ((size_t)256 << 20)     // 256 MiB

/* Parse `len` bytes of JSON text (text[len] must be '\0') as the document of `file`, and
 * check it whole: malformed JSON (line and column), a NUL byte, nesting deeper than
 * TS_JSON_DEPTH_MAX, a "\u0000" escape in a string (cJSON would cut the string there), a
 * number too long for cJSON, out of memory, a key that appears twice in an object and a
 * number out of the double range (1e999) are input errors naming the file and the line and
 * column or JSON path. Every document trainsim reads comes through here, so the parsers of
 * each kind of file need not repeat these checks. The caller frees *out with cJSON_Delete.
 * Thread safe (the allocation accounting is per thread). */
int ts_json_parse(const char *text, size_t len, const char *file, cJSON **out, struct ts_err *err);

/* ts_json_parse with another limit on the memory parsing may allocate (for tests). */
int ts_json_parse_limited(const char *text, size_t len, const char *file, size_t memory_max,
                          cJSON **out, struct ts_err *err);

/* Read (ts_file_read) and parse (ts_json_parse) a JSON file. The caller frees *out with
 * cJSON_Delete. */
int ts_json_load(const char *file, cJSON **out, struct ts_err *err);

/* Write a double to JSON text the same way everywhere: integers exactly, others with 17
 * significant digits trimmed of noise ("%.10g" would lose bits; we keep round-trip). */
void ts_json_format_double(double v, char *buf, size_t n);

/* ---------------------------------------------------------------- statistics */

/* Arithmetic mean of n values (0 for n == 0), summed in index order. */
double ts_stats_mean(const double *x, size_t n);

/* Sample standard deviation (n - 1 denominator; 0 for n < 2). */
double ts_stats_stddev(const double *x, size_t n);

/* Percentile q in [0, 1] by linear interpolation between order statistics (type 7, as R and
 * NumPy's default). Sorts `x` in place. */
double ts_stats_percentile_sorted(const double *sorted, size_t n, double q);
void ts_stats_sort(double *x, size_t n);

/* ---------------------------------------------------------------- deterministic seeding */

/* SplitMix64 mixing: a well-distributed 64-bit hash. */
uint64_t ts_rng_mix64(uint64_t x);

/* Seed for the stream of (seed, index, purpose): different purposes and indices give
 * independent-looking seeds; the same triple always the same. */
uint64_t ts_rng_stream_seed(uint64_t seed, uint64_t index, uint64_t purpose);

/* ---------------------------------------------------------------- files and time */

/* Input files are at most this large (README "Input files"). */
#define TS_INPUT_MAX_BYTES ((size_t)64 << 20)      // 64 MiB

/* Read a whole input file into a NUL-terminated malloc'd buffer (*len excludes the NUL).
 * Never blocks on opening (a FIFO without a writer reads as empty), refuses a directory, a
 * regular file larger than TS_INPUT_MAX_BYTES before reading it, and stops a device or
 * stream (/dev/zero) once it has delivered more than the limit; each is TS_ERR_INPUT with a
 * message naming the file (and the limit). Every file trainsim reads goes through here. */
int ts_file_read(const char *path, char **out, size_t *len, struct ts_err *err);

/* ts_file_read with another size limit in bytes (for tests). */
int ts_file_read_limited(const char *path, size_t limit, char **out, size_t *len,
                         struct ts_err *err);

/* Output files. What happens depends on what the path names, links followed:
 *   - nothing, or a regular file: the data go to a temporary file created exclusively
 *     (O_EXCL, never following a planted file or link) in the same directory, are flushed to
 *     disk and renamed over the path, so a reader sees the old file or the whole new one, never
 *     a part. An existing file keeps its permission bits. On any failure the temporary file is
 *     removed and the old file left as it was; SIGINT, SIGTERM, SIGHUP and SIGQUIT are held
 *     back (blocked in the calling thread) from creating the temporary file until it is
 *     renamed or removed, so a signal cannot leave it behind.
 *   - a symbolic link to a regular file: the file it points to is replaced as above; the link
 *     stays a link.
 *   - a character or block device (/dev/null, a terminal), or a FIFO: opened and written
 *     through, never replaced (a FIFO blocks until it has a reader, as with `> fifo`).
 *   - /dev/stdout, /dev/stderr, /dev/fd/N: written to that open descriptor, where it points
 *     now (so `--csv /dev/stdout >> log` appends).
 * Refused (TS_ERR_INPUT, the message says why and what to do): a directory, a socket, a
 * symbolic link to nothing, a directory that does not exist or cannot be written, a file that
 * is not writable. A failed write is TS_ERR_RUNTIME with the system's reason ("PATH: cannot
 * write: No space left on device"). */

/* Check, before any work, that path can be written as above; creates and changes nothing.
 * TS_OK or TS_ERR_INPUT with a message starting with the path. */
int ts_file_check_output(const char *path, struct ts_err *err);

/* Write `len` bytes to the output path as above. Every failure, a refused path included, is
 * TS_ERR_RUNTIME here: callers check the path with ts_file_check_output before the work, so
 * what fails now is the system or a path that changed meanwhile. */
int ts_file_write_atomic(const char *path, const char *data, size_t len, struct ts_err *err);

/* Whether path names a regular file (links followed). */
bool ts_file_exists(const char *path);

/* ---------------------------------------------------------------- input fingerprints */

/* FNV-1a, 64-bit (Fowler, Noll, Vo; IETF draft-eastlake-fnv-17, section 2): continue the
 * hash h (TS_FNV1A64_INIT to start) over n bytes. Not cryptographic: it detects change and
 * corruption, not a forger. */
#define TS_FNV1A64_INIT 0xcbf29ce484222325ULL
uint64_t ts_fnv1a64(uint64_t h, const void *data, size_t n);

/* Continue h over a 64-bit value, least significant byte first (the same on every host). */
uint64_t ts_fnv1a64_u64(uint64_t h, uint64_t v);

#define TS_INPUTS_MAX 64

/* One input file a parse read. */
struct ts_input_file {
    char path[512];     // as resolved, e.g. "/opt/trainsim/configs/prices/aws-p5-2023.json"
                        //   (truncated if longer; for messages only)
    uint64_t hash;      // FNV-1a 64 of the parsed document printed canonically (cJSON,
                        //   unformatted): any change of a value changes it, whitespace does not
};

/* The files a parse read, in the order it read them: everything its result depends on. A
 * value in an inline object is part of the document that holds it. */
struct ts_inputs {
    int n;                                      // distinct (path, hash) pairs listed below
    long recorded;                              // files recorded, repeats included
    uint64_t hash;                              // FNV-1a 64 over the hash of every recorded
                                                //   file, repeats included, in order
    struct ts_input_file files[TS_INPUTS_MAX];  // the first TS_INPUTS_MAX distinct ones
};

/* Start an empty record. */
void ts_inputs_init(struct ts_inputs *in);

/* Record that the document doc was read from path (nothing when in is NULL). */
void ts_inputs_record(struct ts_inputs *in, const char *path, const cJSON *doc);

/* Warnings met while reading inputs (an imported file's fields that are not modelled), kept
 * for the command to print once on stderr: distinct texts in order of arrival, at most
 * TS_WARNINGS_MAX (later ones are counted, not kept). Thread safe. */
#define TS_WARNINGS_MAX 32
void ts_warning_add(const char *text);
int ts_warning_count(void);
const char *ts_warning_get(int i);   // i in [0, count); valid until ts_warning_clear
void ts_warning_clear(void);

/* Split one CSV record (RFC 4180 quoting; no line break inside a field) into at most `max`
 * fields, in place: quoted fields are unquoted ("" -> "), blanks around unquoted fields
 * trimmed. Returns the number of fields. */
int ts_csv_split(char *line, char **fields, int max);

/* A whole string as a finite number (strtod, nothing left over): true and *out, or false. */
bool ts_text_number(const char *s, double *out);

/* Monotonic wall clock in seconds (for elapsed-time reports only, never in results). */
double ts_time_now(void);

/* ---------------------------------------------------------------- growable string buffer */

/* A growable text buffer for building outputs. Functions abort on out-of-memory, which is
 * the only sane response in a CLI tool of this size. */
struct ts_buf {
    char *data;     // NUL-terminated text, owned
    size_t len;     // bytes used, excluding the NUL
    size_t cap;     // bytes allocated
};

void ts_buf_init(struct ts_buf *b);
void ts_buf_free(struct ts_buf *b);
void ts_buf_printf(struct ts_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void ts_buf_append(struct ts_buf *b, const char *s, size_t n);

/* CSV, one dialect for every command (RFC 4180): comma-separated, a header row, "\n" line
 * ends, a field quoted with '"' (inner quotes doubled) when it holds a comma, quote, CR or
 * LF; numbers in the C locale ('.' decimals) at full precision (ts_json_format_double); a
 * value that does not exist (not finite, not applicable) is an empty field. */
void ts_csv_field(struct ts_buf *b, const char *s);
void ts_csv_number(struct ts_buf *b, double v);

/* Allocation helpers that abort with a message on failure. */
void *ts_xmalloc(size_t n);
void *ts_xcalloc(size_t count, size_t n);
void *ts_xrealloc(void *p, size_t n);

/* Copy a C string into a fixed buffer, truncating; always NUL-terminates. */
void ts_strlcpy(char *dst, const char *src, size_t n);

#define TS_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

#endif
