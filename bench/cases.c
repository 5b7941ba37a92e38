/*
 * cases.c — the problems the benchmark runs: the standard suite, the --quick suite (the same shapes scaled
 * down to odd sizes, plus a ceil-mode overhang case) and the --sweep sizes.
 */
#include <stdio.h>

#include "bench.h"

const bench_case standard_suite[] = {
    { "resnet_k3s2p1", 2, 32, 64, { 56, 56 }, 3, 2, 1, false, true },
    { "k2s2p0", 2, 32, 64, { 56, 56 }, 2, 2, 0, false, true },
    { "inception_k3s1p1_excl", 2, 32, 192, { 35, 35 }, 3, 1, 1, false, false },
    { "global_k7s7", 2, 32, 2048, { 7, 7 }, 7, 7, 0, false, true },
    { "3d_k3s2p1", 3, 4, 64, { 16, 56, 56 }, 3, 2, 1, false, true },
    { "3d_k2s2p0", 3, 4, 64, { 16, 56, 56 }, 2, 2, 0, false, true },
    { "3d_k3s1p1_ceil_excl", 3, 2, 32, { 32, 64, 64 }, 3, 1, 1, true, false },
};

const bench_case quick_suite[] = { /* odd sizes around the vector widths (C or W = 35, 37, 33) */
    { "resnet_k3s2p1", 2, 2, 35, { 15, 37 }, 3, 2, 1, false, true },
    { "k2s2p0", 2, 2, 35, { 17, 37 }, 2, 2, 0, false, true },
    { "inception_k3s1p1_excl", 2, 2, 19, { 13, 35 }, 3, 1, 1, false, false },
    { "global_k7s7", 2, 2, 35, { 7, 7 }, 7, 7, 0, false, true },
    { "3d_k3s2p1", 3, 1, 16, { 6, 14, 33 }, 3, 2, 1, false, true },
    { "3d_k2s2p0", 3, 1, 35, { 6, 14, 14 }, 2, 2, 0, false, true },
    { "3d_k3s1p1_ceil_excl", 3, 1, 8, { 8, 15, 13 }, 3, 1, 1, true, false },
    { "ceil_overhang_k3s2", 2, 1, 24, { 10, 10 }, 3, 2, 0, true, true },
};

const int n_standard_suite = (int)(sizeof standard_suite / sizeof standard_suite[0]);
const int n_quick_suite = (int)(sizeof quick_suite / sizeof quick_suite[0]);

/* Sweep cases: gradInput element count 2^e, e = 16..26 */
int make_sweep(bench_case *out, char names[][48])
{
    int n = 0;
    for (int e = 16; e <= 26; e++) { /* 2D: N=1, C=64, H*W = 2^(e-6) */
        int s = e - 6;
        bench_case bc = { NULL, 2, 1, 64, { 1LL << (s / 2), 1LL << (s - s / 2) }, 3, 2, 1, false, true };
        snprintf(names[n], 48, "sweep2d_k3s2p1_2^%d", e);
        bc.name = names[n];
        out[n++] = bc;
    }
    for (int e = 16; e <= 26; e++) { /* 3D: N=1, C=32, D*H*W = 2^(e-5) */
        int s = e - 5, d = s / 3, h = (s - d) / 2, w = s - d - h;
        bench_case bc = { NULL, 3, 1, 32, { 1LL << d, 1LL << h, 1LL << w }, 3, 2, 1, false, true };
        snprintf(names[n], 48, "sweep3d_k3s2p1_2^%d", e);
        bc.name = names[n];
        out[n++] = bc;
    }
    return n;
}
