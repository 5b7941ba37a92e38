/*
 * Internal, part of the SIMD kernel template (kernels_tmpl.h): integer helpers, the facts about a
 * problem that several kernel kinds test, and the dtype dispatch. ISA-independent except for VL.
 */
#ifndef POOLGRAD_KERNELS_SIMD_COMMON_H
#define POOLGRAD_KERNELS_SIMD_COMMON_H

#include "problem.h"
#include "tuning.h"

#define PG_NAME(suffix) PG_ISA_NAME "_" suffix

static inline int64_t pg_min(int64_t a, int64_t b) { return a < b ? a : b; }
static inline int64_t pg_max(int64_t a, int64_t b) { return a > b ? a : b; }
static inline int64_t pg_ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

/*
 * Calls fn(args..., dt) with dt a compile-time constant: the always-inline kernel bodies are
 * specialised once per dtype (each switch arm is its own copy).
 */
#define PG_DT_DISPATCH(dtype, fn, ...) \
    do { \
        switch (dtype) { \
        case POOLGRAD_F16: fn(__VA_ARGS__, POOLGRAD_F16); break; \
        case POOLGRAD_BF16: fn(__VA_ARGS__, POOLGRAD_BF16); break; \
        default: fn(__VA_ARGS__, POOLGRAD_F32); break; \
        } \
    } while (0)

/* PG_DT_DISPATCH with a compile-time `stream` (conf->stream_stores, f32 only) before dt: code that does not
 * stream is the code without the option */
#define PG_DT_DISPATCH_STREAM(dtype, stream, fn, ...) \
    do { \
        if ((dtype) == POOLGRAD_F32 && (stream)) \
            fn(__VA_ARGS__, true, POOLGRAD_F32); \
        else \
            PG_DT_DISPATCH(dtype, fn, __VA_ARGS__, false); \
    } while (0)

/* PG_DT_DISPATCH_STREAM for the kinds whose configure may stream f16/bf16 results too (pg_stream_worth_half) */
#define PG_DT_DISPATCH_STREAM_ANY(dtype, stream, fn, ...) \
    do { \
        if (stream) \
            PG_DT_DISPATCH(dtype, fn, __VA_ARGS__, true); \
        else \
            PG_DT_DISPATCH(dtype, fn, __VA_ARGS__, false); \
    } while (0)

/*
 * Division by a window's divisor. Kernels combine divisor factors as floats (products of exact factors)
 * and divide with pg_quot. When every divisor is + or - 2^j (pr->divisors_pow2) the factors are their
 * reciprocals instead, and pg_quot multiplies: 1/d = 2^-j is exact, so x * (1/d) is the exact x / d
 * rounded once, the same bits as the IEEE division for every x (subnormal results, zeros, infinities
 * and NaNs included), at the cost of a multiplication instead of a division.
 */
/* 1 / f, exact for f = + or - 2^j (j <= 62) and built from its bits: the row walks take reciprocals
 * per window row or term, where a scalar division would cost more than the multiplication saves. */
PG_AI float pg_recip_pow2(int64_t f)
{
    const uint64_t a = f < 0 ? 0u - (uint64_t)f : (uint64_t)f;
    if (!poolgrad_is_pow2(a) || a > ((uint64_t)1 << 62))
        return 1.0f / (float)f;
    union {
        uint32_t u;
        float x;
    } r = { .u = (uint32_t)(127 - __builtin_ctzll(a)) << 23 | (f < 0 ? 0x80000000u : 0u) };
    return r.x;
}
PG_AI float pg_dfac(const poolgrad_problem *pr, int64_t f) { return pr->divisors_pow2 ? pg_recip_pow2(f) : (float)f; }
PG_AI vf pg_quot(const poolgrad_problem *pr, vf x, vf d) { return pr->divisors_pow2 ? vf_mul(x, d) : vf_div(x, d); }
PG_AI float pg_quot1(const poolgrad_problem *pr, float x, float d) { return pr->divisors_pow2 ? x * d : x / d; }

static inline bool pg_unit(int64_t size, int64_t stride) { return size <= 1 || stride == 1; }

/* gradInput vectorized along C (channels-last); when both C and W are contiguous, the longer one */
static inline bool pg_gi_cl(const poolgrad_problem *pr)
{
    bool uc = pg_unit(pr->c, pr->gi_stride[PG_C]), uw = pg_unit(pr->in[2], pr->gi_stride[PG_W]);
    if (uc && uw)
        return pr->c > pr->in[2];
    return uc;
}

/* gradInput vectorized along W (NCHW / NCDHW rows, any other strides) */
static inline bool pg_gi_rows(const poolgrad_problem *pr)
{
    return pg_unit(pr->in[2], pr->gi_stride[PG_W]) && !pg_gi_cl(pr);
}

static inline bool pg_go_empty(const poolgrad_problem *pr)
{
    return pr->out[0] <= 0 || pr->out[1] <= 0 || pr->out[2] <= 0;
}

/* Window rows (od, oh) covering one gradInput row fit the row walks' tables. */
static inline bool pg_terms_ok(const poolgrad_problem *pr)
{
    return pg_ceil_div(pr->k[0], pr->s[0]) * pg_ceil_div(pr->k[1], pr->s[1]) <= PG_TMAX;
}

/* a gradInput of PG_STREAM_MIN_BYTES or more as f32, whatever the dtype (double: no overflow) */
static inline bool pg_stream_big(const poolgrad_problem *pr)
{
    const double f32_bytes =
        (double)pr->n * (double)pr->c * (double)pr->in[0] * (double)pr->in[1] * (double)pr->in[2] * 4.0;
    return f32_bytes >= (double)PG_STREAM_MIN_BYTES;
}

/* f32 gradInput large enough that non-temporal stores pay (PG_STREAM_MIN_BYTES; double: no overflow), vectors
 * wide enough (PG_STREAM_MIN_VECTOR_BYTES), and stored in whole 64-byte lines: the contiguous run (C
 * channels-last, else W) and every other stride a multiple of 16 floats, and the kind's store pass (the floats
 * of the run it stores before it moves to another run: `pass`) the whole run or a multiple of 16 floats, so
 * that with an aligned base no line is written partly streamed, partly not, nor in parts far apart in time.
 * Either measured 1.4-1.8x slower (resnet f32 NCHW, rows of 56 floats; inception f32 NHWC, _nhwc_s1 passes of
 * 8 channels under AVX2, 4 under SSE2). */
static inline bool pg_stream_lines(const poolgrad_problem *pr, int64_t pass, int64_t es)
{
    const int64_t line = 64 / es; /* elements per 64-byte line */
    if (!pg_stream_big(pr) || VL * es < PG_STREAM_MIN_VECTOR_BYTES)
        return false;
    const int unit = pg_gi_cl(pr) ? PG_C : PG_W;
    const int64_t run = unit == PG_C ? pr->c : pr->in[2];
    if (run % line != 0 || (pass < run && pass % line != 0))
        return false;
    for (int a = PG_N; a <= PG_W; a++)
        if (a != unit && pr->gi_stride[a] % line != 0)
            return false;
    return true;
}

static inline bool pg_stream_worth(const poolgrad_problem *pr, int64_t pass)
{
    return pr->dtype == POOLGRAD_F32 && pg_stream_lines(pr, pass, 4);
}

/* pg_stream_worth, and f16/bf16 results too (with vectors of PG_STREAM_MIN_VECTOR_BYTES of 16-bit lanes: AVX-512):
 * for the pixel walks of _nhwc_b and _nhwc_q with k2s1 or k3s2 along W (nhwc_row_few, nhwc_row_few_pair), where
 * it was measured faster (tuning.h); elsewhere 16-bit streaming did not pay (README, negative results) */
static inline bool pg_stream_worth_half(const poolgrad_problem *pr, int64_t pass)
{
    return pg_stream_worth(pr, pass) || (pr->dtype != POOLGRAD_F32 && pg_stream_lines(pr, pass, 2));
}

/* D and H kernel extents small enough for the band kinds' slot arithmetic (products of window counts) */
static inline bool pg_band_k_ok(const poolgrad_problem *pr) { return pr->k[0] <= (1 << 20) && pr->k[1] <= (1 << 20); }

/* All divisors are exact in float and any product of two per-axis partial products is exact too. */
static inline bool pg_div_small(const poolgrad_problem *pr)
{
    if (pr->divisor_override != 0)
        return true;
    int64_t prod = 1;
    for (int a = 0; a < 3; a++) {
        int64_t span = pr->k[a], ip = pr->in[a] + 2 * pr->p[a];
        if (ip < span)
            span = ip;
        if (span < 1)
            span = 1;
        if (span > (1 << 24))
            return false;
        prod *= span;
        if (prod > (1 << 24))
            return false;
    }
    return true;
}

/* One past the highest byte of the gradOutput view: full-vector loads that end below it are safe. */
static inline const char *pg_go_end(const poolgrad_problem *pr, int64_t es)
{
    if (pg_go_empty(pr))
        return pr->go;
    const int64_t size[5] = { pr->n, pr->c, pr->out[0], pr->out[1], pr->out[2] };
    int64_t hi = 0;
    for (int d = 0; d < 5; d++)
        if (pr->go_stride[d] > 0)
            hi += (size[d] - 1) * pr->go_stride[d];
    return pr->go + (hi + 1) * es;
}

/* ---- the row walk */

/* position (n, c, d, h) of a row; the channels-last kinds walk (n, d, h) with c fixed at 0 (C = 1) */
typedef struct pg_pos {
    int64_t n, c, d, h;
} pg_pos;

PG_AI pg_pos pg_pos_of(int64_t row, int64_t IH, int64_t ID, int64_t C)
{
    pg_pos p;
    int64_t t0 = row / IH;
    p.h = row % IH;
    p.d = t0 % ID;
    t0 /= ID;
    p.c = t0 % C;
    p.n = t0 / C;
    return p;
}

/* Move R rows on (R > 1 only within one (n, c, d) plane). */
PG_AI void pg_pos_advance(pg_pos *p, int R, int64_t IH, int64_t ID, int64_t C)
{
    p->h += R;
    if (p->h == IH) {
        p->h = 0;
        if (++p->d == ID) {
            p->d = 0;
            if (++p->c == C) {
                p->c = 0;
                ++p->n;
            }
        }
    }
}

#endif
