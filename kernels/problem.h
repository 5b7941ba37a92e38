/*
 * Internal: the normalized problem every kernel receives, and the kernel table entry.
 * A 2D problem is a 3D one with D = 1, kD = sD = 1, pD = 0; an unbatched one has N = 1.
 * Not installed; all external names carry the poolgrad_ prefix.
 */
#ifndef POOLGRAD_KERNELS_PROBLEM_H
#define POOLGRAD_KERNELS_PROBLEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "poolgrad/poolgrad.h"

enum { PG_N = 0, PG_C = 1, PG_D = 2, PG_H = 3, PG_W = 4 };

typedef struct poolgrad_problem {
    poolgrad_dtype dtype;
    int32_t spatial_dims;   /* 2 or 3, for kernel names only */
    int64_t n, c;
    int64_t in[3];          /* ID, IH, IW */
    int64_t out[3];         /* OD, OH, OW */
    int64_t k[3], s[3], p[3];
    bool count_include_pad;
    int64_t divisor_override;
    /* every divisor is + or - a power of two (poolgrad_divisors_pow2, set at planning): the SIMD kernels
     * multiply by the exact reciprocal instead of dividing, which gives the same bits (simd/common.h) */
    bool divisors_pow2;
    /* strides in elements, order N, C, D, H, W; bases point at element [0,0,0,0,0] */
    int64_t gi_stride[5];
    int64_t go_stride[5];
    char *gi;
    const char *go;
} poolgrad_problem;

/* Per axis: covering-window range of input index x (windows o with o*s - p <= x < o*s - p + k). */
static inline void poolgrad_window_range(int64_t x, int64_t k, int64_t s, int64_t p, int64_t o_count,
                                         int64_t *o_begin, int64_t *o_end)
{
    int64_t xp = x + p;
    int64_t b = xp < k ? 0 : (xp - k) / s + 1;
    int64_t e = xp / s + 1;
    *o_begin = b;
    *o_end = e < o_count ? e : o_count;
}

/* Per axis: the window's padded extent (pool) and its clipped extent (cnt), section 3 of docs/SEMANTICS.md. */
static inline void poolgrad_window_extent(int64_t o, int64_t i_size, int64_t k, int64_t s, int64_t p,
                                          int64_t *pool, int64_t *cnt)
{
    int64_t start = o * s - p;
    int64_t end = start + k < i_size + p ? start + k : i_size + p;
    int64_t lo = start > 0 ? start : 0;
    int64_t hi = end < i_size ? end : i_size;
    *pool = end - start;
    *cnt = hi - lo;
}

/* Divisor of window (od, oh, ow). */
static inline int64_t poolgrad_divisor(const poolgrad_problem *pr, int64_t od, int64_t oh, int64_t ow)
{
    if (pr->divisor_override != 0)
        return pr->divisor_override;
    const int64_t o[3] = { od, oh, ow };
    int64_t prod = 1;
    for (int a = 0; a < 3; a++) {
        int64_t pool, cnt;
        poolgrad_window_extent(o[a], pr->in[a], pr->k[a], pr->s[a], pr->p[a], &pool, &cnt);
        prod *= pr->count_include_pad ? pool : cnt;
    }
    return prod;
}

static inline bool poolgrad_is_pow2(uint64_t m) { return m != 0 && (m & (m - 1)) == 0; }

/* ceil(a / b) for b > 0 and any a, without overflow */
static inline int64_t poolgrad_ceil_div_any(int64_t a, int64_t b) { return a / b + (a % b > 0); }

/*
 * True if every window's divisor is + or - a power of two. Without an override the divisor is a product
 * of per-axis factors (padded or clipped extents), so each axis's factors are checked, in bounded work for
 * any size: three cuts (the window's start reaches 0, its end reaches in, its end reaches in + p) split the
 * windows o = 0 .. out - 1 into at most four runs, and within a run the factor is linear in o. Three
 * consecutive powers of two are never equally spaced (2^j + 2^j = 2^(j+1) < 2^i + 2^k when i < j < k), so a
 * run whose first three factors are powers of two is constant; a run's first three windows and its last
 * one are checked.
 */
static inline bool poolgrad_divisors_pow2(const poolgrad_problem *pr)
{
    if (pr->divisor_override != 0) {
        const uint64_t m = pr->divisor_override < 0 ? 0u - (uint64_t)pr->divisor_override : (uint64_t)pr->divisor_override;
        return poolgrad_is_pow2(m);
    }
    for (int a = 0; a < 3; a++) {
        const int64_t k = pr->k[a], s = pr->s[a], p = pr->p[a], out = pr->out[a], in = pr->in[a];
        if (k > ((int64_t)1 << 40) || p > ((int64_t)1 << 40))
            return false;
        int64_t cut[5] = { 0, poolgrad_ceil_div_any(p, s), poolgrad_ceil_div_any(in + p - k, s),
                           poolgrad_ceil_div_any(in + 2 * p - k, s), out };
        for (int i = 0; i < 5; i++)
            cut[i] = cut[i] < 0 ? 0 : cut[i] > out ? out : cut[i];
        for (int i = 1; i < 4; i++) /* sort the three inner cuts */
            for (int j = i; j > 1 && cut[j] < cut[j - 1]; j--) {
                const int64_t t = cut[j];
                cut[j] = cut[j - 1];
                cut[j - 1] = t;
            }
        for (int r = 0; r < 4; r++) {
            const int64_t lo = cut[r], hi = cut[r + 1];
            const int64_t probe[4] = { lo, lo + 1, lo + 2, hi - 1 };
            for (int q = 0; q < 4; q++) {
                if (probe[q] < lo || probe[q] >= hi)
                    continue;
                int64_t pool, cnt;
                poolgrad_window_extent(probe[q], in, k, s, p, &pool, &cnt);
                const int64_t f = pr->count_include_pad ? pool : cnt;
                if (f < 1 || !poolgrad_is_pow2((uint64_t)f))
                    return false;
            }
        }
    }
    return true;
}

/*
 * The blocking of one problem, decided once when it is planned (the kernel's configure()), stored in the
 * plan and read by prepare() and run(): kernels never recompute it, so there is one formula for each value.
 * Fields a kind does not use stay 0.
 */
typedef struct poolgrad_kernel_conf {
    int64_t work_items;    /* independent work items of run() (rows, see the kernel) */
    int64_t prepare_items; /* items of the prepare pass; 0 when the kernel has none */
    size_t workspace_size; /* bytes of scratch prepare() and run() need (slack for full-vector loads included); 0 if none */
    size_t scratch_size;   /* bytes of per-thread scratch run() uses when it gets it (then workspace_size is 0 and there
                            * is no prepare()): its workspace argument is the calling thread's own slot of this size,
                            * or NULL when the execution has more threads than the plan has slots, and then run()
                            * computes without it (same bits, slower); 0 if none */
    int64_t row_block;     /* _nchw_b, _nchw_q: consecutive gradInput rows run as one block (at most) */
    int64_t w_block;       /* W-vectorized kinds: gradInput columns per W block */
    int64_t band_sd;       /* banded kinds: band slots along od (>= the od rows of one gradInput row) */
    int64_t band_sh;       /* banded kinds: band slots along oh (>= the oh rows of one row block) */
    int64_t band_len;      /* banded kinds: floats per slot (_nchw_b: a W block's q row; _nhwc_b: OW x channel block) */
    bool band_slabs;       /* _nchw_b: the band holds every oh row of band_sd od slabs (band_sh == OH), divided a slab
                            * at a time, and the run reuses each row block's oh rows from a per-call schedule;
                            * _nchw_s1: one tile holds every row (tile_h == IH) */
    int64_t channel_block; /* _nhwc_b: channels per band block, a multiple of the vector length */
    int64_t tile_h;        /* _nchw_s1: gradInput rows along H per tile (the band holds the tile's oh rows) */
    int64_t pipeline_items; /* kernels with prepare_needed: run items per step when execute() alternates the passes
                            * (each step prepares the items its rows need, then runs them, so the q it writes is read
                            * while still cached); 0: the whole prepare pass first */
    bool stream_stores;    /* channels-last kinds, _nchw_s1, _nchw_s2, _nchw_x2: f32 gradInput vectors stored
                            * non-temporally (aligned ones, whole lines; a gradInput too large to stay cached,
                            * pg_stream_worth, x2_stream_worth); never changes a bit */
} poolgrad_kernel_conf;

/*
 * A kernel computes the gradInput elements of work items [begin, end). Work items are defined by the
 * kernel (the reference uses rows n, c, d, h of IW elements). Kernels never fail and never allocate.
 */
typedef struct poolgrad_kernel {
    const char *name;
    poolgrad_isa isa;
    /* true if this kernel handles the problem (layout, dtype, buffers that fit); then *conf is its blocking */
    bool (*configure)(const poolgrad_problem *pr, poolgrad_kernel_conf *conf);
    /* optional first pass filling the workspace, items [begin, end) of conf->prepare_items, run in
     * parallel before run(); NULL if the kernel has no such pass */
    void (*prepare)(const poolgrad_problem *pr, const poolgrad_kernel_conf *conf, void *workspace, int64_t begin,
                    int64_t end);
    void (*run)(const poolgrad_problem *pr, const poolgrad_kernel_conf *conf, void *workspace, int64_t begin,
                int64_t end);
    /* optional, with prepare: how many prepare items, a prefix of them, run items [0, item] read (nondecreasing in
     * item); lets execute() alternate the passes in steps of conf->pipeline_items; NULL: prepare all first */
    int64_t (*prepare_needed)(const poolgrad_problem *pr, int64_t item);
    /* with prepare_needed: the first prepare item run items [item, work_items) read (nondecreasing in item; a
     * lower bound), so that threads running consecutive row ranges can tell which items only they read */
    int64_t (*prepare_first)(const poolgrad_problem *pr, int64_t item);
} poolgrad_kernel;

/*
 * One ISA's vector-layer operations that the kernels' bits rest on, as array functions over n values,
 * n a multiple of 64, for exhaustive tests (simd/exact_tmpl.h): the f16/bf16 conversions (the code its
 * kernels load and store with) and the quotients of pg_quot.
 */
typedef struct poolgrad_vec_exact {
    poolgrad_isa isa;
    const char *f16_by; /* how the f16 conversions are done: "conversion instructions" or "integer code" */
    void (*widen_f16)(const uint16_t *src, float *dst, int64_t n);                 /* gradOutput loads */
    void (*narrow)(poolgrad_dtype dt, const float *src, uint16_t *dst, int64_t n); /* result stores */
    /* q = x / d (recip false) or x * r (recip true) */
    void (*quotients)(const float *x, float *q, int64_t n, float d, float r, bool recip);
    /* the reciprocal the kernels multiply by when every divisor is + or - 2^j (pg_recip_pow2) */
    float (*recip_pow2)(int64_t f);
} poolgrad_vec_exact;

/* The scalar golden reference over rows [begin, end) of N*C*ID*IH rows. */
void poolgrad_reference_rows(const poolgrad_problem *pr, int64_t begin, int64_t end);
/* The whole problem, single-threaded. */
void poolgrad_reference(const poolgrad_problem *pr);

#endif
