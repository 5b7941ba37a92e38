/*
 * timing.c — the clock, medians, and the memcpy that a row's bandwidth is compared with.
 */
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

/* memcpy of `bytes`, split into `threads` contiguous pieces */
void par_memcpy(char *dst, const char *src, size_t bytes, int threads)
{
#ifdef _OPENMP
    if (threads > 1) {
#pragma omp parallel for num_threads(threads) schedule(static, 1)
        for (int t = 0; t < threads; t++) {
            size_t b = bytes / 64 * (size_t)t / (size_t)threads * 64;
            size_t e = t + 1 == threads ? bytes : bytes / 64 * (size_t)(t + 1) / (size_t)threads * 64;
            memcpy(dst + b, src + b, e - b);
        }
        return;
    }
#endif
    (void)threads;
    memcpy(dst, src, bytes);
}
