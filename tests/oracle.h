/*
 * Helpers shared by the unit tests, written independently of the library:
 *  - f16/bf16 decoders (ldexp based) and a double -> f16/bf16 round-to-nearest-even oracle,
 *  - the pooling geometry of docs/SEMANTICS.md section 3 (output sizes, window extents, divisors),
 *  - three oracles on dense row-major N,C,D,H,W data (a 2D problem is D = 1 with kD = sD = 1, pD = 0):
 *      pgt_scatter_f32   the golden numerics emulated as a scatter over windows in ascending
 *                       (od, oh, ow) order with f32 accumulation (bit-exact by construction),
 *      pgt_scatter_f64   the same scatter in double, plus the per-element error bound of f32 accumulation,
 *      pgt_forward_f64   the forward average pooling in double (for the adjoint identity),
 *  - an aclnn runner (GetWorkspaceSize + execute) for both operators.
 * Header-only; each test program is one translation unit.
 */
#ifndef POOLGRAD_TESTS_ORACLE_H
#define POOLGRAD_TESTS_ORACLE_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "poolgrad/poolgrad.h"

/* ------------------------------------------------------------------ independent conversions */

static inline uint32_t pgt_f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static inline float pgt_bits_f32(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* Exact value of binary16 bits: sign * (2^10 + m) * 2^(e - 25), subnormals m * 2^-24. */
static inline double pgt_f16_decode(uint16_t h)
{
    int e = (h >> 10) & 0x1f, m = h & 0x3ff;
    double s = (h & 0x8000) ? -1.0 : 1.0;
    if (e == 0x1f)
        return m ? (double)NAN : s * (double)INFINITY;
    if (e == 0)
        return s * ldexp((double)m, -24);
    return s * ldexp((double)(1024 + m), e - 25);
}

/* Exact value of bfloat16 bits: sign * (2^7 + m) * 2^(e - 134), subnormals m * 2^-133. */
static inline double pgt_bf16_decode(uint16_t b)
{
    int e = (b >> 7) & 0xff, m = b & 0x7f;
    double s = (b & 0x8000) ? -1.0 : 1.0;
    if (e == 0xff)
        return m ? (double)NAN : s * (double)INFINITY;
    if (e == 0)
        return s * ldexp((double)m, -133);
    return s * ldexp((double)(128 + m), e - 134);
}

/*
 * Round a double once to the nearest binary16 (mant_bits 10, emin -14, max 65504) or bfloat16
 * (mant_bits 7, emin -126) value, ties to even, overflow to inf. NaN gives the canonical quiet NaN.
 * Works on the value: quantum q = 2^(floor(log2|x|) - mant_bits), at least the subnormal quantum.
 */
static inline uint16_t pgt_round_half(double x, bool bf16)
{
    const int mb = bf16 ? 7 : 10, emin = bf16 ? -126 : -14, ebits_bias = bf16 ? 127 : 15;
    const uint16_t inf = bf16 ? 0x7f80 : 0x7c00, qnan = bf16 ? 0x7fc0 : 0x7e00;
    if (isnan(x))
        return qnan;
    uint16_t sign = signbit(x) ? 0x8000 : 0;
    double a = fabs(x);
    /* the midpoint between the largest finite value and 2^(emax+1) */
    const double maxf = bf16 ? ldexp(255.0, 120) : 65504.0; /* (2 - 2^-mb) * 2^emax */
    const double mid = maxf + ldexp(1.0, (bf16 ? 127 : 15) - mb - 1);
    if (a >= mid)
        return sign | inf; /* the tie goes to even = the infinity (max finite has an odd mantissa) */
    int e;
    (void)frexp(a, &e); /* a = f * 2^e, f in [0.5, 1): floor(log2 a) = e - 1 */
    int qe = (a == 0.0 ? emin : e - 1) - mb;
    if (qe < emin - mb)
        qe = emin - mb;
    double n = ldexp(a, -qe); /* exact */
    double lo = floor(n), frac = n - lo;
    if (frac > 0.5 || (frac == 0.5 && fmod(lo, 2.0) != 0.0))
        lo += 1.0;
    /* encode lo * 2^qe */
    if (lo == 0.0)
        return sign;
    double v = ldexp(lo, qe);
    if (v < ldexp(1.0, emin)) /* subnormal: lo units of 2^(emin - mb) */
        return (uint16_t)(sign | (uint16_t)lo);
    int ev;
    double f = frexp(v, &ev); /* v = f * 2^ev */
    int E = ev - 1 + ebits_bias;
    uint16_t M = (uint16_t)((f * 2.0 - 1.0) * (double)(1 << mb));
    return (uint16_t)(sign | (E << mb) | M);
}

static inline double pgt_decode(poolgrad_dtype dt, const void *base, int64_t i)
{
    if (dt == POOLGRAD_F32)
        return ((const float *)base)[i];
    uint16_t h = ((const uint16_t *)base)[i];
    return dt == POOLGRAD_F16 ? pgt_f16_decode(h) : pgt_bf16_decode(h);
}

/* Bits of element i as an integer (f32: 32 bits, halves: 16 bits). */
static inline uint32_t pgt_bits_at(poolgrad_dtype dt, const void *base, int64_t i)
{
    if (dt == POOLGRAD_F32) {
        uint32_t u;
        memcpy(&u, (const char *)base + 4 * i, 4);
        return u;
    }
    return ((const uint16_t *)base)[i];
}

/* Distance in ULPs between two finite encodings of the same width (sign-magnitude -> integer line). */
static inline int64_t pgt_ulp_diff(uint32_t a, uint32_t b, int width)
{
    uint32_t smask = width == 32 ? 0x80000000u : 0x8000u;
    int64_t ia = (a & smask) ? -(int64_t)(a & ~smask) : (int64_t)a;
    int64_t ib = (b & smask) ? -(int64_t)(b & ~smask) : (int64_t)b;
    return ia > ib ? ia - ib : ib - ia;
}

/* Store an f32 accumulator into dtype with one rounding (the independent oracle). */
static inline void pgt_store_rounded(poolgrad_dtype dt, void *base, int64_t i, float v)
{
    if (dt == POOLGRAD_F32)
        ((float *)base)[i] = v;
    else
        ((uint16_t *)base)[i] = pgt_round_half((double)v, dt == POOLGRAD_BF16);
}

/* ------------------------------------------------------------------ geometry (docs/SEMANTICS.md section 3) */

static inline int64_t pgt_out_size(int64_t in, int64_t k, int64_t s, int64_t p, bool ceil_mode)
{
    int64_t o = (in + 2 * p - k + (ceil_mode ? s - 1 : 0)) / s + 1;
    if (ceil_mode && (o - 1) * s >= in + p)
        o--;
    return o;
}

typedef struct pgt_problem {
    int64_t n, c;
    int64_t in[3], out[3]; /* D, H, W */
    int64_t k[3], s[3], p[3];
    bool ceil_mode, cip;
    int64_t div;
} pgt_problem;

/* Build from native params and an input shape of rank sd+1 or sd+2. */
static inline pgt_problem pgt_problem_make(const poolgrad_params *pa, int rank, const int64_t *shape)
{
    pgt_problem u;
    memset(&u, 0, sizeof u);
    int sd = pa->spatial_dims, lead = rank - sd;
    u.n = lead == 2 ? shape[0] : 1;
    u.c = shape[lead - 1];
    for (int a = 0; a < 3; a++) {
        int src = a - (3 - sd);
        if (src < 0) {
            u.in[a] = 1;
            u.k[a] = u.s[a] = 1;
            u.p[a] = 0;
        } else {
            u.in[a] = shape[lead + src];
            u.k[a] = pa->kernel[src];
            u.s[a] = pa->stride[src];
            u.p[a] = pa->padding[src];
        }
        u.out[a] = pgt_out_size(u.in[a], u.k[a], u.s[a], u.p[a], pa->ceil_mode);
    }
    u.ceil_mode = pa->ceil_mode;
    u.cip = pa->count_include_pad;
    u.div = pa->divisor_override;
    return u;
}

static inline int64_t pgt_in_numel(const pgt_problem *u) { return u->n * u->c * u->in[0] * u->in[1] * u->in[2]; }
static inline int64_t pgt_out_numel(const pgt_problem *u)
{
    if (u->out[0] <= 0 || u->out[1] <= 0 || u->out[2] <= 0)
        return 0;
    return u->n * u->c * u->out[0] * u->out[1] * u->out[2];
}

/* Window o on axis a: clipped [lo, hi) and its divisor factor. */
static inline void pgt_window(const pgt_problem *u, int a, int64_t o, int64_t *lo, int64_t *hi, int64_t *pool)
{
    int64_t start = o * u->s[a] - u->p[a];
    int64_t end = start + u->k[a];
    if (end > u->in[a] + u->p[a])
        end = u->in[a] + u->p[a];
    *pool = end - start;
    *lo = start < 0 ? 0 : start;
    *hi = end < u->in[a] ? end : u->in[a];
}

static inline int64_t pgt_divisor(const pgt_problem *u, const int64_t o[3])
{
    if (u->div != 0)
        return u->div;
    int64_t prod = 1;
    for (int a = 0; a < 3; a++) {
        int64_t lo, hi, pool;
        pgt_window(u, a, o[a], &lo, &hi, &pool);
        prod *= u->cip ? pool : hi - lo;
    }
    return prod;
}

#define PGT_FOR_WINDOWS(u, nc, od, oh, ow)                                                                       \
    for (int64_t nc = 0; nc < (u)->n * (u)->c; nc++)                                                         \
        for (int64_t od = 0; od < (u)->out[0]; od++)                                                         \
            for (int64_t oh = 0; oh < (u)->out[1]; oh++)                                                     \
                for (int64_t ow = 0; ow < (u)->out[2]; ow++)

#define PGT_GO_INDEX(u, nc, od, oh, ow) ((((nc) * (u)->out[0] + (od)) * (u)->out[1] + (oh)) * (u)->out[2] + (ow))
#define PGT_GI_INDEX(u, nc, d, h, w) ((((nc) * (u)->in[0] + (d)) * (u)->in[1] + (h)) * (u)->in[2] + (w))

/*
 * Golden numerics emulated by scattering: for every window in ascending (od, oh, ow) order add
 * (float)g / (float)divisor into an f32 accumulator per covered element (starting at +0.0f), then
 * round once into dtype. Each element thus sees exactly the additions of docs/SEMANTICS.md section 4 in
 * the same order, so this is bit-exact. go/gi are dense row-major in dtype.
 */
static inline void pgt_scatter_f32(const pgt_problem *u, poolgrad_dtype dt, const void *go, void *gi)
{
    int64_t ni = pgt_in_numel(u);
    float *acc = malloc((size_t)(ni > 0 ? ni : 1) * sizeof *acc);
    for (int64_t i = 0; i < ni; i++)
        acc[i] = +0.0f;
    PGT_FOR_WINDOWS(u, nc, od, oh, ow)
    {
        const int64_t o[3] = { od, oh, ow };
        int64_t lo[3], hi[3], pool;
        for (int a = 0; a < 3; a++)
            pgt_window(u, a, o[a], &lo[a], &hi[a], &pool);
        float g = (float)pgt_decode(dt, go, PGT_GO_INDEX(u, nc, od, oh, ow));
        float t = g / (float)pgt_divisor(u, o);
        for (int64_t d = lo[0]; d < hi[0]; d++)
            for (int64_t h = lo[1]; h < hi[1]; h++)
                for (int64_t w = lo[2]; w < hi[2]; w++) {
                    float *x = &acc[PGT_GI_INDEX(u, nc, d, h, w)];
                    *x = *x + t;
                }
    }
    for (int64_t i = 0; i < ni; i++)
        pgt_store_rounded(dt, gi, i, acc[i]);
    free(acc);
}

/*
 * The exact-ish gradient in double: sum of g/divisor over covering windows (exact[]), the sum of
 * |g/divisor| (mag[]) and the number of terms (terms[]). For finite inputs of moderate size the
 * double result is the exact real sum up to ~2^-50 relative, negligible against f32 errors.
 */
static inline void pgt_scatter_f64(const pgt_problem *u, poolgrad_dtype dt, const void *go, double *exact, double *mag,
                                  int64_t *terms)
{
    int64_t ni = pgt_in_numel(u);
    for (int64_t i = 0; i < ni; i++) {
        exact[i] = 0.0;
        mag[i] = 0.0;
        terms[i] = 0;
    }
    PGT_FOR_WINDOWS(u, nc, od, oh, ow)
    {
        const int64_t o[3] = { od, oh, ow };
        int64_t lo[3], hi[3], pool;
        for (int a = 0; a < 3; a++)
            pgt_window(u, a, o[a], &lo[a], &hi[a], &pool);
        double t = pgt_decode(dt, go, PGT_GO_INDEX(u, nc, od, oh, ow)) / (double)pgt_divisor(u, o);
        for (int64_t d = lo[0]; d < hi[0]; d++)
            for (int64_t h = lo[1]; h < hi[1]; h++)
                for (int64_t w = lo[2]; w < hi[2]; w++) {
                    int64_t i = PGT_GI_INDEX(u, nc, d, h, w);
                    exact[i] += t;
                    mag[i] += fabs(t);
                    terms[i]++;
                }
    }
}

/* Forward average pooling in double: y[o] = sum over the clipped window of x / divisor(o). */
static inline void pgt_forward_f64(const pgt_problem *u, const double *x, double *y)
{
    PGT_FOR_WINDOWS(u, nc, od, oh, ow)
    {
        const int64_t o[3] = { od, oh, ow };
        int64_t lo[3], hi[3], pool;
        for (int a = 0; a < 3; a++)
            pgt_window(u, a, o[a], &lo[a], &hi[a], &pool);
        double s = 0.0;
        for (int64_t d = lo[0]; d < hi[0]; d++)
            for (int64_t h = lo[1]; h < hi[1]; h++)
                for (int64_t w = lo[2]; w < hi[2]; w++)
                    s += x[PGT_GI_INDEX(u, nc, d, h, w)];
        y[PGT_GO_INDEX(u, nc, od, oh, ow)] = s / (double)pgt_divisor(u, o);
    }
}

/* ------------------------------------------------------------------ native helpers */

static inline poolgrad_params pgt_params_axes(int sd, const int64_t *k, const int64_t *s, const int64_t *p, bool ceil_mode,
                                        bool cip, int64_t div)
{
    poolgrad_params pa;
    memset(&pa, 0, sizeof pa);
    pa.spatial_dims = sd;
    for (int a = 0; a < sd; a++) {
        pa.kernel[a] = k[a];
        pa.stride[a] = s[a];
        pa.padding[a] = p[a];
    }
    pa.ceil_mode = ceil_mode;
    pa.count_include_pad = cip;
    pa.divisor_override = div;
    return pa;
}

#endif
