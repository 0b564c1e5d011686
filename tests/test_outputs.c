/*
 * Output files (util.h, "Output files"): what ts_file_check_output accepts and refuses before
 * any work, and how ts_file_write_atomic writes each kind of target: a new or regular file
 * through an exclusive temporary file that never outlives the call, a link to a file by
 * replacing the file and keeping the link, a device or FIFO by writing through it, an open
 * descriptor where it points; a socket, a directory or a dangling link refused. Also the
 * record of input files behind a sweep's fingerprint.
 */
#define _XOPEN_SOURCE 700   /* symlink, mkdtemp, struct sockaddr_un */
#define _DEFAULT_SOURCE
#include "test_helpers.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>

static char dir[256];

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "%s/test_outputs.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* A path in the scratch directory. */
static const char *at(const char *name)
{
    static char buf[4][512];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
    return buf[k];
}

/* The names in a directory of the scratch area ("" for the scratch directory itself), sorted
 * and joined by spaces. */
static void listing(const char *sub, char *out, size_t n)
{
    char names[32][128];
    int count = 0;
    DIR *d = opendir(sub[0] ? at(sub) : dir);
    assert_non_null(d);
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 && count < 32)
            ts_strlcpy(names[count++], e->d_name, sizeof names[0]);
    closedir(d);
    for (int i = 1; i < count; i++)
        for (int j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
            char t[128];
            memcpy(t, names[j], sizeof t);
            memcpy(names[j], names[j - 1], sizeof t);
            memcpy(names[j - 1], t, sizeof t);
        }
    out[0] = '\0';
    for (int i = 0; i < count; i++)
        snprintf(out + strlen(out), n - strlen(out), "%s%s", i ? " " : "", names[i]);
}

static void assert_listing(const char *sub, const char *want)
{
    char got[2048];
    listing(sub, got, sizeof got);
    if (strcmp(got, want) != 0) {
        print_error("directory %s holds \"%s\", expected \"%s\"\n", sub[0] ? sub : dir, got, want);
        fail();
    }
}

static void assert_content(const char *path, const char *want)
{
    struct ts_err err;
    char *text;
    assert_int_equal(ts_file_read(path, &text, NULL, &err), TS_OK);
    assert_string_equal(text, want);
    free(text);
}

static void write_ok(const char *path, const char *text)
{
    struct ts_err err;
    ts_err_clear(&err);
    int rc = ts_file_write_atomic(path, text, strlen(text), &err);
    if (rc)
        print_error("%s\n", err.msg);
    assert_int_equal(rc, TS_OK);
}

static void new_file_is_written_whole_and_nothing_else_is_left(void **state)
{
    (void)state;
    struct ts_err err;
    assert_int_equal(ts_file_check_output(at("new.json"), &err), TS_OK);
    assert_listing("", "");     /* the check creates nothing */
    write_ok(at("new.json"), "{\"a\": 1}\n");
    assert_content(at("new.json"), "{\"a\": 1}\n");
    assert_listing("", "new.json");
    write_ok(at("new.json"), "second");
    assert_content(at("new.json"), "second");
    assert_listing("", "new.json");
}

static void replaced_file_keeps_its_permissions(void **state)
{
    (void)state;
    write_ok(at("perm.txt"), "one");
    assert_int_equal(chmod(at("perm.txt"), 0640), 0);
    write_ok(at("perm.txt"), "two");
    struct stat st;
    assert_int_equal(stat(at("perm.txt"), &st), 0);
    assert_int_equal(st.st_mode & 07777, 0640);
    assert_content(at("perm.txt"), "two");
}

static void link_to_a_file_stays_a_link_and_its_target_gets_the_data(void **state)
{
    (void)state;
    assert_int_equal(mkdir(at("a"), 0755), 0);
    assert_int_equal(mkdir(at("b"), 0755), 0);
    write_ok(at("b/target.json"), "old");
    assert_int_equal(symlink("../b/target.json", at("a/link.json")), 0);
    write_ok(at("a/link.json"), "new");
    struct stat st;
    assert_int_equal(lstat(at("a/link.json"), &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    assert_content(at("b/target.json"), "new");
    assert_listing("a", "link.json");
    assert_listing("b", "target.json");
}

static void dangling_link_directory_and_socket_are_refused(void **state)
{
    (void)state;
    struct ts_err err;
    assert_int_equal(symlink(at("nowhere"), at("dangling")), 0);
    assert_input_error(ts_file_check_output(at("dangling"), &err), &err,
                       "a symbolic link to a file that does not exist");
    assert_int_equal(ts_file_write_atomic(at("dangling"), "x", 1, &err), TS_ERR_RUNTIME);
    assert_false(ts_file_exists(at("nowhere")));

    assert_int_equal(mkdir(at("d"), 0755), 0);
    assert_input_error(ts_file_check_output(at("d"), &err), &err, "is a directory");

    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    assert_true(s >= 0);
    struct sockaddr_un addr;
    memset(&addr, 0, sizeof addr);
    addr.sun_family = AF_UNIX;
    ts_strlcpy(addr.sun_path, at("sock"), sizeof addr.sun_path);
    assert_int_equal(bind(s, (struct sockaddr *)&addr, sizeof addr), 0);
    assert_input_error(ts_file_check_output(at("sock"), &err), &err, "is a socket");
    assert_int_equal(ts_file_write_atomic(at("sock"), "x", 1, &err), TS_ERR_RUNTIME);
    struct stat st;
    assert_int_equal(lstat(at("sock"), &st), 0);
    assert_true(S_ISSOCK(st.st_mode));
    close(s);
}

static void missing_directory_and_file_as_directory_are_refused_before_and_after(void **state)
{
    (void)state;
    struct ts_err err;
    assert_input_error(ts_file_check_output(at("nodir/x.json"), &err), &err,
                       "nodir does not exist");
    assert_int_equal(ts_file_write_atomic(at("nodir/x.json"), "x", 1, &err), TS_ERR_RUNTIME);
    assert_non_null(strstr(err.msg, "nodir does not exist"));
    write_ok(at("plain"), "x");
    assert_input_error(ts_file_check_output(at("plain/x.json"), &err), &err,
                       "plain is not a directory");
    assert_input_error(ts_file_check_output("", &err), &err, "empty");
}

static void devices_are_written_through_and_stay_devices(void **state)
{
    (void)state;
    struct ts_err err;
    assert_int_equal(ts_file_check_output("/dev/null", &err), TS_OK);
    write_ok("/dev/null", "discarded");
    struct stat st;
    assert_int_equal(stat("/dev/null", &st), 0);
    assert_true(S_ISCHR(st.st_mode));
    /* /dev/full takes no data: a runtime failure with the system's reason. */
    assert_int_equal(ts_file_check_output("/dev/full", &err), TS_OK);
    int rc = ts_file_write_atomic("/dev/full", "data", 4, &err);
    assert_int_equal(rc, TS_ERR_RUNTIME);
    assert_int_equal(err.status, TS_ERR_RUNTIME);
    assert_non_null(strstr(err.msg, "/dev/full: cannot write: "));
    assert_non_null(strstr(err.msg, strerror(ENOSPC)));
    assert_int_equal(stat("/dev/full", &st), 0);
    assert_true(S_ISCHR(st.st_mode));
    /* A link to a device: written through, the link kept. */
    assert_int_equal(symlink("/dev/null", at("null-link")), 0);
    write_ok(at("null-link"), "discarded");
    assert_int_equal(lstat(at("null-link"), &st), 0);
    assert_true(S_ISLNK(st.st_mode));
}

static void fifo_is_written_through_to_its_reader(void **state)
{
    (void)state;
    assert_int_equal(mkfifo(at("fifo"), 0600), 0);
    const char *msg = "through the pipe\n";
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {   /* the reader: exit 0 when it got exactly msg */
        alarm(20);
        int fd = open(at("fifo"), O_RDONLY);
        char buf[256];
        size_t got = 0;
        ssize_t r;
        while (fd >= 0 && (r = read(fd, buf + got, sizeof buf - 1 - got)) > 0)
            got += (size_t)r;
        buf[got] = '\0';
        _exit(fd >= 0 && strcmp(buf, msg) == 0 ? 0 : 1);
    }
    write_ok(at("fifo"), msg);
    int status;
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    struct stat st;
    assert_int_equal(lstat(at("fifo"), &st), 0);
    assert_true(S_ISFIFO(st.st_mode));
    assert_listing("", "fifo");
}

static void descriptor_names_write_where_the_descriptor_points(void **state)
{
    (void)state;
    write_ok(at("log"), "first\n");
    int fd = open(at("log"), O_WRONLY | O_APPEND);
    assert_true(fd >= 0);
    char name[64];
    snprintf(name, sizeof name, "/dev/fd/%d", fd);
    write_ok(name, "second\n");
    close(fd);
    assert_content(at("log"), "first\nsecond\n");
    struct ts_err err;
    fd = open(at("log"), O_RDONLY);
    snprintf(name, sizeof name, "/dev/fd/%d", fd);
    assert_input_error(ts_file_check_output(name, &err), &err, "is not open for writing");
    close(fd);
}

static bool blocked(int sig)
{
    sigset_t now;
    sigprocmask(SIG_BLOCK, NULL, &now);
    return sigismember(&now, sig);
}

static void write_restores_the_callers_signal_mask(void **state)
{
    (void)state;
    /* Signals are held back only while the temporary file exists: afterwards the caller's
     * mask is back, whether a signal was blocked before or not, and a signal raised while
     * blocked is still pending (not lost). */
    assert_false(blocked(SIGINT));
    assert_false(blocked(SIGTERM));
    write_ok(at("sig.txt"), "one");
    assert_false(blocked(SIGINT));
    assert_false(blocked(SIGTERM));
    struct sigaction ign, old;
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    sigaction(SIGTERM, &ign, &old);
    sigset_t term, prev;
    sigemptyset(&term);
    sigaddset(&term, SIGTERM);
    sigprocmask(SIG_BLOCK, &term, &prev);
    raise(SIGTERM);
    write_ok(at("sig.txt"), "two");
    assert_true(blocked(SIGTERM));
    assert_false(blocked(SIGINT));
    sigset_t pending;
    sigpending(&pending);
    assert_true(sigismember(&pending, SIGTERM));
    sigprocmask(SIG_SETMASK, &prev, NULL);  /* delivered now, and ignored */
    sigaction(SIGTERM, &old, NULL);
    assert_content(at("sig.txt"), "two");
    assert_listing("", "sig.txt");
}

static void input_record_lists_each_file_once_and_hashes_every_read(void **state)
{
    (void)state;
    struct ts_inputs in;
    ts_inputs_init(&in);
    cJSON *a = ts_test_json("{\"x\": 1}");
    cJSON *a2 = ts_test_json("{ \"x\" :  1 }");   /* the same values: the same hash */
    cJSON *b = ts_test_json("{\"x\": 2}");
    ts_inputs_record(&in, "a.json", a);
    ts_inputs_record(&in, "a.json", a2);
    ts_inputs_record(&in, "b.json", b);
    ts_inputs_record(NULL, "ignored.json", b);
    assert_int_equal(in.n, 2);
    assert_int_equal(in.recorded, 3);
    assert_string_equal(in.files[0].path, "a.json");
    assert_string_equal(in.files[1].path, "b.json");
    /* FNV-1a 64 of the canonical text, by hand. */
    uint64_t h = 0xcbf29ce484222325ULL;
    for (const char *c = "{\"x\":1}"; *c; c++) {
        h ^= (unsigned char)*c;
        h *= 0x100000001b3ULL;
    }
    assert_true(in.files[0].hash == h);
    assert_true(in.files[1].hash != h);
    uint64_t all = ts_fnv1a64_u64(ts_fnv1a64_u64(ts_fnv1a64_u64(TS_FNV1A64_INIT, h), h),
                                  in.files[1].hash);
    assert_true(in.hash == all);
    cJSON_Delete(a);
    cJSON_Delete(a2);
    cJSON_Delete(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(new_file_is_written_whole_and_nothing_else_is_left, setup, teardown),
        cmocka_unit_test_setup_teardown(replaced_file_keeps_its_permissions, setup, teardown),
        cmocka_unit_test_setup_teardown(link_to_a_file_stays_a_link_and_its_target_gets_the_data, setup, teardown),
        cmocka_unit_test_setup_teardown(dangling_link_directory_and_socket_are_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(missing_directory_and_file_as_directory_are_refused_before_and_after, setup, teardown),
        cmocka_unit_test_setup_teardown(devices_are_written_through_and_stay_devices, setup, teardown),
        cmocka_unit_test_setup_teardown(fifo_is_written_through_to_its_reader, setup, teardown),
        cmocka_unit_test_setup_teardown(descriptor_names_write_where_the_descriptor_points, setup, teardown),
        cmocka_unit_test_setup_teardown(write_restores_the_callers_signal_mask, setup, teardown),
        cmocka_unit_test_setup_teardown(input_record_lists_each_file_once_and_hashes_every_read, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
