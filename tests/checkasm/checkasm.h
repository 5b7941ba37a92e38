/*
 * A minimal test runner for checkasm, so the program needs no test framework (it also runs under
 * qemu-user and in cross builds where only the library exists). Modelled on dav1d's tests/checkasm.
 *
 *   tests are rows of a table (ca_test: name, family or NULL, function), run in order, filtered by
 *   --test / --family; each is one TAP test point ("ok N - name" / "not ok N - name");
 *   CA_ASSERT(cond, fmt, ...)  records "file:line: message" and aborts the current test (longjmp);
 *   CA_EXPECT(cond, fmt, ...)  records and continues;
 *   CA_FAIL(fmt, ...)          an assertion that always fails;
 *   ca_note(fmt, ...)          a "# ..." line printed after the test's result line.
 * A crash (SIGSEGV, SIGBUS, SIGILL, SIGFPE) inside a test on the main thread is caught and fails that test,
 * naming what ca_set_context() last described (the kernel being called), then the run goes on; on another
 * thread (the library's OpenMP workers) it names the same and ends the process.
 * Diagnostics follow the result line as "# ..." lines; the run ends with "# checkasm: P passed, F failed"
 * and exit status 1 if anything failed.
 *
 * An aborted test leaks what it had allocated: the process ends soon after anyway.
 * Single-threaded: tests run one after the other on the main thread (the library's own threads never
 * call these macros).
 */
#ifndef POOLGRAD_TESTS_CHECKASM_H
#define POOLGRAD_TESTS_CHECKASM_H

#include <fnmatch.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct ca_test {
    const char *name;
    const char *family; /* kernel family the test checks (a kernel-name suffix), NULL for others */
    void (*fn)(void);
} ca_test;

/* Options (set by ca_main before any test runs). */
typedef struct ca_options {
    const char *test;   /* --test NAME: only tests whose name matches (fnmatch pattern) */
    const char *family; /* --family NAME: only the tests of that kernel family (and its benchmarks) */
    unsigned long long seed; /* --seed N, else POOLGRAD_TEST_SEED, else a fixed default */
    int cases;          /* --cases N, else POOLGRAD_CHECKASM_CASES, else -1 (each test's default) */
    bool list, bench, verbose;
} ca_options;
static ca_options ca_opt;

static void ca_record_failure(const char *file, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void ca_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void ca_set_context(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
_Noreturn static void ca_abort_test(void);

#define CA_EXPECT(cond, ...) \
    do { \
        if (!(cond)) \
            ca_record_failure(__FILE__, __LINE__, __VA_ARGS__); \
    } while (0)

#define CA_ASSERT(cond, ...) \
    do { \
        if (!(cond)) { \
            ca_record_failure(__FILE__, __LINE__, __VA_ARGS__); \
            ca_abort_test(); \
        } \
    } while (0)

#define CA_FAIL(...) CA_ASSERT(0, __VA_ARGS__)

/* ------------------------------------------------------------------ runner state */

#define CA_LOG_MAX 16384   /* diagnostics kept per test (the rest are counted) */
#define CA_FAILS_SHOWN 12  /* failures printed per test */

static struct {
    sigjmp_buf abort_point;
    bool in_test;
    int failures;          /* of the current test */
    size_t log_len;
    char log[CA_LOG_MAX];
    char context[256];
} ca_state;

static void ca_log_v(const char *prefix, const char *fmt, va_list ap)
{
    if (ca_state.log_len + 2 >= sizeof ca_state.log)
        return;
    size_t room = sizeof ca_state.log - ca_state.log_len;
    int n = snprintf(ca_state.log + ca_state.log_len, room, "# %s", prefix);
    if (n < 0 || (size_t)n >= room)
        return;
    ca_state.log_len += (size_t)n;
    room -= (size_t)n;
    n = vsnprintf(ca_state.log + ca_state.log_len, room, fmt, ap);
    if (n < 0 || (size_t)n >= room - 1)
        n = (int)room - 2;
    ca_state.log_len += (size_t)n;
    ca_state.log[ca_state.log_len++] = '\n';
    ca_state.log[ca_state.log_len] = '\0';
}

static void ca_record_failure(const char *file, int line, const char *fmt, ...)
{
    ca_state.failures++;
    if (ca_state.failures > CA_FAILS_SHOWN)
        return;
    char where[160];
    const char *base = strrchr(file, '/');
    snprintf(where, sizeof where, "%s:%d: ", base ? base + 1 : file, line);
    va_list ap;
    va_start(ap, fmt);
    ca_log_v(where, fmt, ap);
    va_end(ap);
}

static void ca_note(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ca_log_v("", fmt, ap);
    va_end(ap);
}

static void ca_set_context(const char *fmt, ...)
{
    if (!fmt) {
        ca_state.context[0] = '\0';
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ca_state.context, sizeof ca_state.context, fmt, ap);
    va_end(ap);
}

_Noreturn static void ca_abort_test(void)
{
    if (!ca_state.in_test) { /* an assertion outside any test (--bench): report and stop */
        fputs(ca_state.log, stdout);
        printf("# checkasm: aborted\n");
        exit(1);
    }
    siglongjmp(ca_state.abort_point, 1);
}

static _Thread_local bool ca_main_thread; /* set in ca_main: the only thread that may jump back */

static void ca_signal(int sig)
{
    if (!ca_main_thread && ca_state.in_test) { /* a library thread: cannot unwind it; name the culprit, stop */
        static const char head[] = "# checkasm: crash in a worker thread while running ";
        ssize_t rc = write(1, head, sizeof head - 1);
        rc = write(1, ca_state.context, strlen(ca_state.context));
        rc = write(1, "\n", 1);
        (void)rc;
        _exit(1);
    }
    if (!ca_state.in_test) {
        signal(sig, SIG_DFL);
        raise(sig);
        return;
    }
    siglongjmp(ca_state.abort_point, 100 + sig);
}

/* Case count of a loop: --cases / POOLGRAD_CHECKASM_CASES replace each loop's default. */
static int ca_cases(int default_count) { return ca_opt.cases >= 0 ? ca_opt.cases : default_count; }

/* A seed per purpose: the run's seed mixed with the name, so one test replays alone (--test). */
static uint64_t ca_seed_for(const char *what)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (const char *p = what; *p; p++)
        h = (h ^ (uint8_t)*p) * 0x100000001b3ull;
    return h ^ (ca_opt.seed * 0x9e3779b97f4a7c15ull);
}

static bool ca_selected(const ca_test *t)
{
    if (ca_opt.family && (!t->family || strcmp(ca_opt.family, t->family) != 0))
        return false;
    if (ca_opt.test && fnmatch(ca_opt.test, t->name, 0) != 0)
        return false;
    return true;
}

static double ca_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void ca_usage(FILE *f, const char *argv0)
{
    fprintf(f,
            "usage: %s [--test PATTERN] [--family NAME] [--seed N] [--cases N] [--list] [--bench] [--verbose]\n"
            "  --test PATTERN  run the tests whose name matches (fnmatch pattern)\n"
            "  --family NAME   run the tests (or with --bench the benchmarks) of one kernel family\n"
            "  --seed N        random seed (default POOLGRAD_TEST_SEED, else fixed); printed at the start\n"
            "  --cases N       random cases per loop (default POOLGRAD_CHECKASM_CASES, else each test's own)\n"
            "  --list          print the test names (and families) and exit\n"
            "  --bench         time every kernel the CPU runs on fixed problems (verified byte-exact)\n"
            "  --verbose       print the per-kernel counts of every test\n", argv0);
}

/* Parses the options, runs the selected tests (or bench()), prints TAP; returns the exit status. */
static int ca_main(int argc, char **argv, const ca_test *tests, int ntests, int (*bench)(void), void (*header)(void))
{
    const char *e = getenv("POOLGRAD_TEST_SEED");
    ca_opt.seed = e && *e ? strtoull(e, NULL, 0) : 0x5eedc4a5ull;
    e = getenv("POOLGRAD_CHECKASM_CASES");
    ca_opt.cases = e && *e ? atoi(e) : -1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--test") && v) {
            ca_opt.test = v;
            i++;
        } else if (!strcmp(a, "--family") && v) {
            ca_opt.family = v;
            i++;
        } else if (!strcmp(a, "--seed") && v) {
            ca_opt.seed = strtoull(v, NULL, 0);
            i++;
        } else if (!strcmp(a, "--cases") && v) {
            ca_opt.cases = atoi(v);
            i++;
        } else if (!strcmp(a, "--list")) {
            ca_opt.list = true;
        } else if (!strcmp(a, "--bench")) {
            ca_opt.bench = true;
        } else if (!strcmp(a, "--verbose") || !strcmp(a, "-v")) {
            ca_opt.verbose = true;
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            ca_usage(stdout, argv[0]);
            return 0;
        } else {
            fprintf(stderr, "checkasm: unknown or incomplete option '%s'\n", a);
            ca_usage(stderr, argv[0]);
            return 2;
        }
    }
    ca_main_thread = true;
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (ca_opt.list) {
        for (int i = 0; i < ntests; i++)
            if (ca_selected(&tests[i]))
                printf("%s%s%s\n", tests[i].name, tests[i].family ? "  family " : "", tests[i].family ? tests[i].family : "");
        return 0;
    }
    if (ca_opt.family) { /* a typo must not pass as "nothing to do" */
        bool known = false;
        for (int i = 0; i < ntests; i++)
            known |= tests[i].family && !strcmp(tests[i].family, ca_opt.family);
        if (!known) {
            fprintf(stderr, "checkasm: no kernel family '%s' (--list shows them)\n", ca_opt.family);
            return 2;
        }
    }
    if (ca_opt.bench)
        return bench() ? 1 : 0;

    int selected = 0;
    for (int i = 0; i < ntests; i++)
        selected += ca_selected(&tests[i]);
    if (selected == 0) {
        fprintf(stderr, "checkasm: no test matches\n");
        return 2;
    }
    printf("1..%d\n", selected);
    printf("# checkasm: seed 0x%llx (--seed or POOLGRAD_TEST_SEED to replay)\n", ca_opt.seed);
    if (header)
        header();
    static const int sigs[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE };
    for (size_t s = 0; s < sizeof sigs / sizeof sigs[0]; s++)
        signal(sigs[s], ca_signal);

    int passed = 0, failed = 0, index = 0;
    const double t_start = ca_now();
    for (int i = 0; i < ntests; i++) {
        const ca_test *t = &tests[i];
        if (!ca_selected(t))
            continue;
        index++;
        ca_state.failures = 0;
        ca_state.log_len = 0;
        ca_state.log[0] = '\0';
        ca_state.context[0] = '\0';
        const double t0 = ca_now();
        int jumped = sigsetjmp(ca_state.abort_point, 1);
        if (jumped == 0) {
            ca_state.in_test = true;
            t->fn();
        } else if (jumped >= 100) {
            ca_state.failures++;
            char msg[400];
            snprintf(msg, sizeof msg, "signal %d (%s) while running %s", jumped - 100,
                     jumped - 100 == SIGILL ? "illegal instruction" : jumped - 100 == SIGSEGV ? "segmentation fault" : "crash",
                     ca_state.context[0] ? ca_state.context : "the test");
            ca_note("%s: %s", t->name, msg);
        } else {
            ca_note("%s: aborted%s%s", t->name, ca_state.context[0] ? " while running " : "", ca_state.context);
        }
        ca_state.in_test = false;
        const double secs = ca_now() - t0;
        if (ca_state.failures > CA_FAILS_SHOWN)
            ca_note("%s: %d more failures not shown", t->name, ca_state.failures - CA_FAILS_SHOWN);
        if (ca_state.failures) {
            failed++;
            printf("not ok %d - %s (%d failure%s, %.1f s)\n", index, t->name, ca_state.failures,
                   ca_state.failures == 1 ? "" : "s", secs);
        } else {
            passed++;
            printf("ok %d - %s (%.1f s)\n", index, t->name, secs);
        }
        fputs(ca_state.log, stdout);
    }
    printf("# checkasm: %d passed, %d failed (%.1f s)\n", passed, failed, ca_now() - t_start);
    return failed ? 1 : 0;
}

#endif
