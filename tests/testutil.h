/*
 * Shared test helpers: a seeded RNG (seed printed, overridable with POOLGRAD_TEST_SEED),
 * sentinel-guarded storage, random values including specials, and problem set-up shortcuts.
 * Header-only so every test program stays a single translation unit.
 */
#ifndef POOLGRAD_TESTS_TESTUTIL_H
#define POOLGRAD_TESTS_TESTUTIL_H

#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "poolgrad/poolgrad.h"

/* ---- RNG: splitmix64 ---- */
typedef struct pgt_rng {
    uint64_t s;
} pgt_rng;

static inline uint64_t pgt_next(pgt_rng *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* uniform integer in [lo, hi] */
static inline int64_t pgt_range(pgt_rng *r, int64_t lo, int64_t hi)
{
    return lo + (int64_t)(pgt_next(r) % (uint64_t)(hi - lo + 1));
}

/* uniform float in [-1, 1) */
static inline float pgt_unit(pgt_rng *r) { return (float)((int64_t)(pgt_next(r) >> 40) - (1 << 23)) / (float)(1 << 23); }

/*
 * The test seed: POOLGRAD_TEST_SEED if set, else `fallback`. Printed once per call with the
 * test's name so any failure can be replayed.
 */
static inline uint64_t pgt_seed(const char *what, uint64_t fallback)
{
    const char *e = getenv("POOLGRAD_TEST_SEED");
    uint64_t seed = e && *e ? strtoull(e, NULL, 0) : fallback;
    fprintf(stderr, "# %s: seed 0x%" PRIx64 " (set POOLGRAD_TEST_SEED to override)\n", what, seed);
    return seed;
}

/* ---- element access by dtype (values go through the library's own conversions) ---- */
static inline void pgt_store(poolgrad_dtype dt, void *base, int64_t i, float v)
{
    if (dt == POOLGRAD_F32) {
        ((float *)base)[i] = v;
    } else {
        uint16_t h = dt == POOLGRAD_F16 ? poolgrad_f32_to_f16(v) : poolgrad_f32_to_bf16(v);
        ((uint16_t *)base)[i] = h;
    }
}

static inline float pgt_load(poolgrad_dtype dt, const void *base, int64_t i)
{
    if (dt == POOLGRAD_F32)
        return ((const float *)base)[i];
    uint16_t h = ((const uint16_t *)base)[i];
    return dt == POOLGRAD_F16 ? poolgrad_f16_to_f32(h) : poolgrad_bf16_to_f32(h);
}

/*
 * Two poolgrad results are the same when their bytes are: every stored NaN is canonical
 * (docs/SEMANTICS.md section 4). Tolerant comparison is only for foreign results (PyTorch).
 */
static inline bool pgt_same_results(poolgrad_dtype dt, const void *a, const void *b, int64_t n)
{
    return memcmp(a, b, (size_t)n * poolgrad_dtype_size(dt)) == 0;
}

/* True if the bits of element i are a NaN that is not the dtype's canonical one. */
static inline bool pgt_noncanonical_nan(poolgrad_dtype dt, const void *base, int64_t i)
{
    if (dt == POOLGRAD_F32) {
        uint32_t v;
        memcpy(&v, (const char *)base + 4 * i, 4);
        return (v & 0x7fffffffu) > 0x7f800000u && v != 0x7fc00000u;
    }
    uint16_t h;
    memcpy(&h, (const char *)base + 2 * i, 2);
    if (dt == POOLGRAD_F16)
        return (h & 0x7fffu) > 0x7c00u && h != 0x7e00u;
    return (h & 0x7fffu) > 0x7f80u && h != 0x7fc0u;
}

/* A random value: mostly ordinary, sometimes a special (NaN, +-inf, subnormal, +-0, large). */
static inline float pgt_value(pgt_rng *r, bool specials)
{
    if (specials) {
        switch (pgt_next(r) % 64) {
        case 0: return NAN;
        case 1: return INFINITY;
        case 2: return -INFINITY;
        case 3: return 0.0f;
        case 4: return -0.0f;
        case 5: return 1e-40f;                   /* f32 subnormal */
        case 6: return 3e-6f * pgt_unit(r);      /* f16 subnormal range */
        case 7: return 65504.0f * 0.999f;        /* near f16 max: sums overflow */
        case 8: return 3.0e38f;
        default: break;
        }
    }
    return pgt_unit(r) * 4.0f;
}

/* ---- sentinel-guarded storage ---- */
#define PGT_GUARD 64 /* guard elements before and after */

typedef struct pgt_buffer {
    poolgrad_dtype dtype;
    int64_t numel;    /* usable elements */
    unsigned char *raw;
    void *data;       /* raw + guard, 64-byte aligned */
    size_t es;
} pgt_buffer;

static inline uint8_t pgt_sentinel_byte(size_t i) { return (uint8_t)(0xA5u ^ (i * 31u)); }

/* Allocate numel elements plus guards, everything filled with a byte pattern; data 64-byte aligned. */
static inline pgt_buffer pgt_alloc(poolgrad_dtype dt, int64_t numel)
{
    pgt_buffer b;
    b.dtype = dt;
    b.numel = numel;
    b.es = poolgrad_dtype_size(dt);
    size_t bytes = ((size_t)numel + 2 * PGT_GUARD) * b.es;
    /* 64-byte aligned (the guard is a multiple of 64 bytes too), so that kernels' aligned-only paths, such as
     * non-temporal stores, are reached; views at offsets still give every misalignment */
    b.raw = aligned_alloc(64, (bytes + 63) / 64 * 64 + (bytes ? 0 : 64));
    for (size_t i = 0; i < bytes; i++)
        b.raw[i] = pgt_sentinel_byte(i);
    b.data = b.raw + PGT_GUARD * b.es;
    return b;
}

/* True if the guard zones still hold the sentinel. */
static inline bool pgt_guards_intact(const pgt_buffer *b)
{
    size_t head = PGT_GUARD * b->es, tail0 = ((size_t)b->numel + PGT_GUARD) * b->es;
    for (size_t i = 0; i < head; i++)
        if (b->raw[i] != pgt_sentinel_byte(i))
            return false;
    for (size_t i = tail0; i < tail0 + head; i++)
        if (b->raw[i] != pgt_sentinel_byte(i))
            return false;
    return true;
}

/* True if element i still holds the sentinel bytes (was not written). */
static inline bool pgt_untouched(const pgt_buffer *b, int64_t i)
{
    size_t off = ((size_t)PGT_GUARD + (size_t)i) * b->es;
    for (size_t k = 0; k < b->es; k++)
        if (b->raw[off + k] != pgt_sentinel_byte(off + k))
            return false;
    return true;
}

#define PGT_NO_DIFFERENCE INT64_MIN

/* First element (guards included: -PGT_GUARD .. numel + PGT_GUARD - 1) whose bytes differ between two
 * buffers of the same size, or PGT_NO_DIFFERENCE. */
static inline int64_t pgt_first_difference(const pgt_buffer *a, const pgt_buffer *b)
{
    size_t bytes = ((size_t)a->numel + 2 * PGT_GUARD) * a->es;
    if (memcmp(a->raw, b->raw, bytes) == 0)
        return PGT_NO_DIFFERENCE;
    for (size_t i = 0; i < bytes; i += a->es)
        if (memcmp(a->raw + i, b->raw + i, a->es) != 0)
            return (int64_t)(i / a->es) - PGT_GUARD;
    return PGT_NO_DIFFERENCE;
}

static inline void pgt_free(pgt_buffer *b)
{
    free(b->raw);
    b->raw = NULL;
    b->data = NULL;
}

/* ---- random views ---- */

/* Memory orders of random views: W innermost (row-major) or C innermost (channels-last), each also with
 * unused elements between rows / planes (gapped), or the dims in a random order. */
enum { PGT_LAYOUT_ROWMAJOR, PGT_LAYOUT_CHANNELS_LAST, PGT_LAYOUT_GAPPED, PGT_LAYOUT_GAPPED_CL, PGT_LAYOUT_RANDOM };

typedef struct pgt_view {
    poolgrad_tensor t;
    pgt_buffer buf;
} pgt_view;

/*
 * A view of logical `shape` (rank dims, the last sd spatial, C just before them) in a fresh sentinel-filled
 * buffer, in memory order `layout`, at a small random offset with a little unused storage after it. With
 * broadcast_one_in = n > 0, one view in n gets a zero C stride (every channel reads the same values); with
 * reverse_one_in = n > 0, one in n gets one axis with a negative stride.
 */
static inline void pgt_make_view(pgt_rng *r, pgt_view *v, poolgrad_dtype dt, int rank, int sd, const int64_t *shape,
                                 int layout, unsigned broadcast_one_in, unsigned reverse_one_in)
{
    int order[POOLGRAD_MAX_RANK], no = 0; /* innermost first */
    const int cdim = rank - sd - 1;
    if (layout == PGT_LAYOUT_CHANNELS_LAST || layout == PGT_LAYOUT_GAPPED_CL) {
        order[no++] = cdim;
        for (int d = rank - 1; d >= 0; d--)
            if (d != cdim)
                order[no++] = d;
    } else {
        for (int d = rank - 1; d >= 0; d--)
            order[no++] = d;
        if (layout == PGT_LAYOUT_RANDOM)
            for (int i = rank - 1; i > 0; i--) {
                int j = (int)pgt_range(r, 0, i);
                int x = order[i]; order[i] = order[j]; order[j] = x;
            }
    }
    const bool gapped = layout == PGT_LAYOUT_GAPPED || layout == PGT_LAYOUT_GAPPED_CL;
    int64_t stride = 1, strides[POOLGRAD_MAX_RANK];
    bool empty = false;
    for (int i = 0; i < rank; i++) {
        int d = order[i];
        strides[d] = stride;
        if (gapped && i > 0 && (pgt_next(r) % 3) == 0)
            strides[d] += pgt_range(r, 1, 3);
        stride = strides[d] * (shape[d] > 0 ? shape[d] : 1);
        if (gapped && (pgt_next(r) % 3) == 0)
            stride += pgt_range(r, 1, 5);
        empty = empty || shape[d] == 0;
    }
    if (broadcast_one_in && (pgt_next(r) % broadcast_one_in) == 0)
        strides[cdim] = 0;
    int64_t offset = pgt_range(r, 0, 3), numel = 0;
    if (reverse_one_in && (pgt_next(r) % reverse_one_in) == 0) {
        int d = (int)pgt_range(r, 0, rank - 1);
        if (shape[d] > 0)
            offset += (shape[d] - 1) * strides[d];
        strides[d] = -strides[d];
    }
    if (!empty) {
        int64_t hi = offset;
        for (int d = 0; d < rank; d++)
            if (strides[d] > 0)
                hi += (shape[d] - 1) * strides[d];
        numel = hi + 1 + pgt_range(r, 0, 2);
    }
    v->buf = pgt_alloc(dt, numel);
    memset(&v->t, 0, sizeof v->t);
    v->t.dtype = dt;
    v->t.rank = rank;
    for (int d = 0; d < rank; d++) {
        v->t.shape[d] = shape[d];
        v->t.strides[d] = strides[d];
    }
    v->t.offset = offset;
    v->t.storage_numel = numel;
    v->t.storage = v->buf.data;
}

/* Parameters shortcut: same k, s, p on every axis. */
static inline poolgrad_params pgt_params(int sd, int64_t k, int64_t s, int64_t p, bool ceil_mode, bool cip, int64_t div)
{
    poolgrad_params pa;
    memset(&pa, 0, sizeof pa);
    pa.spatial_dims = sd;
    for (int a = 0; a < 3; a++) {
        pa.kernel[a] = k;
        pa.stride[a] = s;
        pa.padding[a] = p;
    }
    pa.ceil_mode = ceil_mode;
    pa.count_include_pad = cip;
    pa.divisor_override = div;
    return pa;
}

#endif
