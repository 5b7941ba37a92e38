/*
 * common.c — what every file of the benchmark uses: errors, aligned first-touched allocation, the random
 * fill of gradOutput (fixed seed), dtype names, the thread count, and the progress line on stderr.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "poolgrad_bench: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    exit(2);
}

void *xalloc(size_t bytes)
{
    size_t sz = (bytes + 63) / 64 * 64;
    if (sz == 0)
        sz = 64;
    void *p = aligned_alloc(64, sz);
    if (!p)
        die("out of memory (%zu bytes)", sz);
    memset(p, 0, sz); /* first touch */
    return p;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rng_next(void)
{
    uint64_t x = rng_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return rng_state = x;
}

void fill_random(void *buf, poolgrad_dtype dt, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        float f = (float)((double)(rng_next() >> 40) / (double)(1ull << 24) * 2.0 - 1.0);
        switch (dt) {
        case POOLGRAD_F32: ((float *)buf)[i] = f; break;
        case POOLGRAD_F16: ((uint16_t *)buf)[i] = poolgrad_f32_to_f16(f); break;
        case POOLGRAD_BF16: ((uint16_t *)buf)[i] = poolgrad_f32_to_bf16(f); break;
        }
    }
}

const char *dtype_name(poolgrad_dtype dt)
{
    return dt == POOLGRAD_F32 ? "f32" : dt == POOLGRAD_F16 ? "f16" : "bf16";
}

/* omp_get_max_threads() at start-up (the oneDNN rows change the OpenMP default with omp_set_num_threads) */
int initial_max_threads = 1;

int max_threads(void) { return initial_max_threads; }

/* ------------------------------------------------------------------ progress (stderr) */

bool stderr_tty;
int progress_total, progress_done;

static void progress_v(bool major, const char *fmt, va_list ap)
{
    char buf[256];
    if (!stderr_tty && !major)
        return;
    vsnprintf(buf, sizeof buf, fmt, ap);
    if (stderr_tty)
        fprintf(stderr, "\r\033[K[%d/%d] %s", progress_done + 1, progress_total, buf);
    else
        fprintf(stderr, "[%d/%d] %s\n", progress_done + 1, progress_total, buf);
    fflush(stderr);
}

/* a phase of a row: shown on a terminal only */
void progress(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    progress_v(false, fmt, ap);
    va_end(ap);
}

/* the start of a row: also logged when stderr is not a terminal */
void progress_major(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    progress_v(true, fmt, ap);
    va_end(ap);
}

void progress_end(void)
{
    if (stderr_tty)
        fprintf(stderr, "\r\033[K");
}
