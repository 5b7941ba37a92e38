/*
 * timing.c — the clock, medians, the number of repetitions, and the memcpy limit that a row's bandwidth is
 * compared with.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "bench.h"

double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double median(double *v, int n)
{
    if (n <= 0)
        return NAN;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int adaptive_reps(double est, double budget)
{
    int reps = est > 0 ? (int)(budget / est) : 101;
    int min_reps = est > 0.25 ? 3 : 5; /* slow rows (the scalar kernel on big cases): fewer */
    if (reps < min_reps)
        reps = min_reps;
    if (reps > 101)
        reps = 101;
    return reps;
}

#ifdef _OPENMP
/* the share [b, e) of thread t of T: contiguous, cut at multiples of 64 bytes */
static void share(size_t bytes, int t, int T, size_t *b, size_t *e)
{
    *b = bytes / 64 * (size_t)t / (size_t)T * 64;
    *e = t + 1 == T ? bytes : bytes / 64 * (size_t)(t + 1) / (size_t)T * 64;
}
#endif

/* keeps the compiler from merging or dropping repeated copies of the same buffer */
static inline void clobber(void) { __asm__ volatile("" ::: "memory"); }

void par_memcpy(char *dst, const char *src, size_t bytes, int threads)
{
#ifdef _OPENMP
    if (threads > 1) {
#pragma omp parallel for num_threads(threads) schedule(static, 1)
        for (int t = 0; t < threads; t++) {
            size_t b, e;
            share(bytes, t, threads, &b, &e);
            memcpy(dst + b, src + b, e - b);
        }
        return;
    }
#endif
    (void)threads;
    memcpy(dst, src, bytes);
}

/*
 * `inner` copies of [b, e) in MEMCPY_SAMPLES (or fewer) timed batches: the median seconds per copy. Batches,
 * not single copies, so that reading the clock (~20 ns) does not count against an in-cache copy of a few
 * hundred nanoseconds.
 */
static double timed_copies(char *dst, const char *src, size_t b, size_t e, int inner, double *t)
{
    const int samples = inner < MEMCPY_SAMPLES ? inner : MEMCPY_SAMPLES, per = inner / samples;
    for (int i = 0; i < samples; i++) {
        double t0 = now_s();
        for (int j = 0; j < per; j++) {
            memcpy(dst + b, src + b, e - b);
            clobber();
        }
        t[i] = (now_s() - t0) / per;
    }
    return median(t, samples);
}

double memcpy_limit_time(char *dst, const char *src, size_t bytes, int threads, int inner)
{
    if (inner < 1)
        inner = 1;
#ifdef _OPENMP
    if (threads > 1) {
        double worst = 0;
#pragma omp parallel num_threads(threads) reduction(max : worst)
        {
            const int T = omp_get_num_threads(), t = omp_get_thread_num();
            size_t b, e;
            share(bytes, t, T, &b, &e);
            double tt[MEMCPY_SAMPLES];
#pragma omp barrier
            worst = timed_copies(dst, src, b, e, inner, tt);
        }
        return worst;
    }
#endif
    (void)threads;
    double tt[MEMCPY_SAMPLES];
    return timed_copies(dst, src, 0, bytes, inner, tt);
}

int memcpy_limit_inner(double t_one_copy)
{
    if (!(t_one_copy > 0))
        return MEMCPY_INNER_MAX;
    if (t_one_copy >= MEMCPY_SINGLE_S)
        return 1;
    double n = MEMCPY_BATCH_S / t_one_copy;
    return n < 1 ? 1 : n > MEMCPY_INNER_MAX ? MEMCPY_INNER_MAX : (int)ceil(n);
}
