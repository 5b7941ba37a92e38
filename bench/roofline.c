/*
 * roofline.c — the limit of a row: the larger of its memory time and the arithmetic time that poolgrad's
 * exactness contract cannot avoid, with the arithmetic priced per lane by small in-cache loops measured on
 * this CPU at start-up, at the vector width of the ISA that ran.
 *
 * THE MODEL
 *   memory time      = (gradOutput bytes read + gradInput bytes written) / the row's memcpy bandwidth (the
 *                      memcpy of a gradInput-sized buffer at the row's thread count, same run: timing.c)
 *   arithmetic time  = ( go_numel x div(dtype)          per gradOutput element: its load, the f16/bf16
 *                                                       widening, one IEEE f32 division, a store (mul(dtype),
 *                                                       a multiplication, when every divisor is a power of
 *                                                       two: the kernels then multiply by the exact
 *                                                       reciprocal, docs/SEMANTICS.md section 6)
 *                      + adds     x addload             one load and one f32 add per term
 *                      + results  x narrow(dtype) )     f16/bf16: narrowing each distinct result
 *                      / threads
 *   limit            = max(memory time, arithmetic time);  % of limit = limit / poolgrad time
 *   A term is one (gradInput element, window covering it) pair: per spatial axis the windows covering each
 *   position, summed, multiplied over the axes and by N*C — the exact count for the geometry (ceil-mode
 *   windows included, padding excluded). An element that one window alone covers is 0 + that window's
 *   quotient: every such element of the window has the same bits, so it is computed (one add) and narrowed
 *   once per window, and storing it is memory time (the global and k <= s kernels do exactly that; pricing
 *   it per element put those rows at up to 189% of their limit). So
 *     adds    = terms - single + single_windows
 *     results = (covered - single) + single_windows
 *   with single / covered the elements covered by exactly one / at least one window and single_windows the
 *   windows covering at least one single-covered element (each a product over the axes, roof_count). An
 *   uncovered element is +0.0: a store only.
 *
 * THE PER-LANE COSTS (ns per lane; the fastest of ROOF_SAMPLES timed batches, ROOF_LANES floats = 8 KB per
 *   buffer, in L1; each pass ends with a compiler barrier that takes the buffers' addresses, so no pass is hoisted
 *   or deleted, by gcc or clang)
 *   div      f32: y[i] = x[i] / d, d a run-time divisor (9, not a power of two: no multiply can replace
 *            it); f16: y[i] = widen(h[i]) / d (a conversion instruction, or on the normal range and,
 *            shift, add, or: the data are normal; subnormals, inf and NaN only cost more); bf16:
 *            y[i] = (h[i] << 16) / d (gradOutput values only feed a division, which quiets a signalling
 *            NaN as the reference does). The widening is
 *            priced fused with the division, as a kernel does it: it runs on other ports than the divider
 *   mul      the same three loops with y = x * r, r = 1/8 (the power-of-two rows)
 *   addload  8 independent vector accumulators a_j += x[i + j]: one load and one add per lane, as many in
 *            flight as the add latency needs
 *   narrow   f32 -> f16 (canonical NaN and a conversion instruction, or on the normal range rebias and
 *            round to nearest even) and f32 -> bf16 complete (round to nearest even, canonical NaN),
 *            each with its f32 load and 16-bit store
 *   Written with GCC vector types at the ISA's width (SSE2 16 bytes, AVX2 32, AVX-512 64 via function target
 *   attributes; scalar: plain C with vectorization off), compiled with -ffp-contract=off (no FMA). The f16
 *   conversions are the kernels' own: the conversion instructions where the kernels use them (F16C at avx2,
 *   AVX-512F at avx512, fcvtl/fcvtn at neon; narrowing after a canonical-NaN blend), integer code at sse2 and
 *   scalar. No AVX512-BF16: only what reproduces the library's conversions bit for bit on every input.
 *   (objdump of roofline.c.o: vdivps/vaddps on zmm for avx512, ymm for avx2, divss/addss for scalar, one
 *   pass per iteration of the outer loop.)
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#elif defined(__aarch64__)
#include <arm_neon.h>
#endif

#define ROOF_LANES 2048   /* floats per buffer: 8 KB, and 4 KB of 16-bit values */
#define ROOF_SAMPLES 9
#define ROOF_BATCH_S 4e-4 /* seconds per timed batch (passes chosen from one untimed pass) */

static float roof_x[ROOF_LANES] __attribute__((aligned(64)));
static float roof_y[ROOF_LANES] __attribute__((aligned(64)));
static uint16_t roof_h[ROOF_LANES] __attribute__((aligned(64)));
static volatile float roof_divisor = 9.0f;
static volatile float roof_recip = 0.125f;

/* After each pass: the buffers' addresses go into the asm, so that every compiler must assume it reads and
 * writes them (with the clobber alone, clang treated the static buffers as untouched and hoisted the passes
 * out of the loop: every cost read 0.0002 ns per lane) */
static inline void barrier(void) { __asm__ volatile("" : : "r"(roof_x), "r"(roof_y), "r"(roof_h) : "memory"); }

/*
 * One quotient loop at width S: y[i] = LOAD OP c, LOAD an expression of i over the f32 buffer x or the 16-bit
 * buffer h, c = roof_divisor (OP /) or roof_recip (OP *). The division and multiplication prices of every
 * dtype come from this one loop.
 */
#define ROOF_QUOT(S, ATTR, NAME, LOAD, OP, C)                                                                     \
    ATTR __attribute__((noinline)) static void roof_##NAME##_##S(int passes)                                     \
    {                                                                                                            \
        const vf_##S c = (vf_##S){ 0 } + (C);                                                                   \
        const vf_##S *x = (const vf_##S *)(const void *)roof_x;                                                \
        const vh_##S *h = (const vh_##S *)(const void *)roof_h;                                                \
        vf_##S *y = (vf_##S *)(void *)roof_y;                                                                  \
        (void)x;                                                                                                 \
        (void)h;                                                                                                 \
        for (int p = 0; p < passes; p++) {                                                                      \
            for (int i = 0; i < ROOF_LANES / VL_##S; i++)                                                       \
                y[i] = (LOAD)OP c;                                                                               \
            barrier();                                                                                           \
        }                                                                                                        \
    }

/*
 * The loops at one width. VB: vector bytes; ATTR: the function attributes (target ISA).
 * Each function runs `passes` passes over the buffers.
 */
#define ROOF_LOOPS(S, VB, ATTR)                                                                                   \
    enum { VL_##S = (VB) / 4 };                                                                                  \
    ROOF_QUOT(S, ATTR, div, x[i], /, roof_divisor)                                                               \
    ROOF_QUOT(S, ATTR, mul, x[i], *, roof_recip)                                                                 \
    ROOF_QUOT(S, ATTR, widen_f16, F16W_##S(h[i]), /, roof_divisor)                                               \
    ROOF_QUOT(S, ATTR, widen_mul_f16, F16W_##S(h[i]), *, roof_recip)                                             \
    ROOF_QUOT(S, ATTR, widen_bf16, ASF_##S(CVT_##S(h[i], vu_##S) << 16), /, roof_divisor)                        \
    ROOF_QUOT(S, ATTR, widen_mul_bf16, ASF_##S(CVT_##S(h[i], vu_##S) << 16), *, roof_recip)                      \
    ATTR __attribute__((noinline)) static void roof_addload_##S(int passes)                                      \
    {                                                                                                            \
        const vf_##S *x = (const vf_##S *)(const void *)roof_x;                                                \
        vf_##S *y = (vf_##S *)(void *)roof_y;                                                                  \
        vf_##S a0 = { 0 }, a1 = { 0 }, a2 = { 0 }, a3 = { 0 }, a4 = { 0 }, a5 = { 0 }, a6 = { 0 }, a7 = { 0 }; \
        for (int p = 0; p < passes; p++) {                                                                      \
            for (int i = 0; i < ROOF_LANES / VL_##S; i += 8) {                                                  \
                a0 += x[i];                                                                                      \
                a1 += x[i + 1];                                                                                  \
                a2 += x[i + 2];                                                                                  \
                a3 += x[i + 3];                                                                                  \
                a4 += x[i + 4];                                                                                  \
                a5 += x[i + 5];                                                                                  \
                a6 += x[i + 6];                                                                                  \
                a7 += x[i + 7];                                                                                  \
            }                                                                                                    \
            barrier();                                                                                           \
        }                                                                                                        \
        y[0] = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;                                                          \
    }                                                                                                            \
    ATTR __attribute__((noinline)) static void roof_narrow_f16_##S(int passes)                                   \
    {                                                                                                            \
        const vu_##S *x = (const vu_##S *)(const void *)roof_x;                                                \
        vh_##S *h = (vh_##S *)(void *)roof_h;                                                                  \
        for (int p = 0; p < passes; p++) {                                                                      \
            for (int i = 0; i < ROOF_LANES / VL_##S; i++) {                                                     \
                h[i] = F16N_##S(x[i]);                                                                           \
            }                                                                                                    \
            barrier();                                                                                           \
        }                                                                                                        \
    }                                                                                                            \
    ATTR __attribute__((noinline)) static void roof_narrow_bf16_##S(int passes)                                  \
    {                                                                                                            \
        const vu_##S *x = (const vu_##S *)(const void *)roof_x;                                                \
        vh_##S *h = (vh_##S *)(void *)roof_h;                                                                  \
        for (int p = 0; p < passes; p++) {                                                                      \
            for (int i = 0; i < ROOF_LANES / VL_##S; i++) {                                                     \
                vu_##S u = x[i], nan = MASK_##S((u & 0x7fffffff) > 0x7f800000);                                \
                vu_##S r = (u + 0x7fff + ((u >> 16) & 1)) >> 16;                                                \
                h[i] = CVT_##S((nan & 0x7fc0) | (~nan & r), vh_##S);                                            \
            }                                                                                                    \
            barrier();                                                                                           \
        }                                                                                                        \
    }                                                                                                            \
    static const roof_fns roof_fns_##S = { VL_##S,           roof_div_##S,         roof_addload_##S,           \
                                           roof_widen_f16_##S, roof_narrow_f16_##S, roof_widen_bf16_##S,        \
                                           roof_narrow_bf16_##S, roof_mul_##S,    roof_widen_mul_f16_##S,      \
                                           roof_widen_mul_bf16_##S };

typedef void (*roof_loop)(int passes);
typedef struct roof_fns {
    int lanes;
    roof_loop div, addload, widen_div_f16, narrow_f16, widen_div_bf16, narrow_bf16, mul, widen_mul_f16, widen_mul_bf16;
} roof_fns;

/*
 * The types of one width S and its helpers: CVT_S (lane-wise u16 <-> u32), MASK_S (a comparison as an all-ones
 * lane mask), ASF_S (u32 bits as f32). Vectors: GCC vector types; scalar: plain C types (GCC keeps one-lane
 * vectors in memory, which would price the scalar ISA by store forwarding).
 */
#define ROOF_VEC_TYPES(S, VB)                                                                                     \
    typedef float vf_##S __attribute__((vector_size(VB)));                                                      \
    typedef uint32_t vu_##S __attribute__((vector_size(VB)));                                                   \
    typedef uint16_t vh_##S __attribute__((vector_size((VB) / 2)));
#define VCVT(x, T) __builtin_convertvector(x, T)
/* f16 widening and narrowing on the normal range in integer code (what the kernels do where the ISA has
 * no conversion instructions): S's types, CVT_S and ASF_S */
#define F16W_INT(S, hv) ({ vu_##S u_ = CVT_##S(hv, vu_##S); ASF_##S((((u_ & 0x7fff) << 13) + 0x38000000) | ((u_ & 0x8000) << 16)); })
#define F16N_INT(S, xv) ({ vu_##S u_ = (xv), r_ = (u_ & 0x7fffffff) - 0x38000000;                                  \
                           CVT_##S(((r_ + 0xfff + ((r_ >> 13) & 1)) >> 13) | ((u_ >> 16) & 0x8000), vh_##S); })
/* the same with conversion instructions (F16C / AVX-512F, AArch64 fcvtl/fcvtn), as the kernels do: the
 * narrowing first makes NaN lanes canonical (a compare and a blend), then converts */
#define F16N_HW(S, xv, CVT_PS_PH) ({ vu_##S u_ = (xv), nan_ = MASK_##S((u_ & 0x7fffffff) > 0x7f800000);             \
                                     (vh_##S)CVT_PS_PH(ASF_##S((nan_ & 0x7fc00000) | (~nan_ & u_))); })
typedef float vf_scalar;
typedef uint32_t vu_scalar;
typedef uint16_t vh_scalar;
static inline float asf_scalar(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}
#define CVT_scalar(x, T) ((T)(x))
#define MASK_scalar(c) (-(uint32_t)(c))
#define ASF_scalar(u) asf_scalar(u)
#define F16W_scalar(h) F16W_INT(scalar, h)
#define F16N_scalar(x) F16N_INT(scalar, x)
ROOF_LOOPS(scalar, 4, __attribute__((optimize("no-tree-vectorize", "no-tree-slp-vectorize"))))
#if defined(__x86_64__) || defined(__i386__)
ROOF_VEC_TYPES(sse2, 16)
ROOF_VEC_TYPES(avx2, 32)
ROOF_VEC_TYPES(avx512, 64)
#define CVT_sse2 VCVT
#define CVT_avx2 VCVT
#define CVT_avx512 VCVT
#define MASK_sse2(c) ((vu_sse2)(c))
#define MASK_avx2(c) ((vu_avx2)(c))
#define MASK_avx512(c) ((vu_avx512)(c))
#define ASF_sse2(u) ((vf_sse2)(u))
#define ASF_avx2(u) ((vf_avx2)(u))
#define ASF_avx512(u) ((vf_avx512)(u))
#define F16W_sse2(h) F16W_INT(sse2, h)
#define F16N_sse2(x) F16N_INT(sse2, x)
#define F16W_avx2(h) ((vf_avx2)_mm256_cvtph_ps((__m128i)(h)))
#define CVT_PS_PH_avx2(f) _mm256_cvtps_ph((__m256)(f), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)
#define F16N_avx2(x) F16N_HW(avx2, x, CVT_PS_PH_avx2)
#define F16W_avx512(h) ((vf_avx512)_mm512_cvtph_ps((__m256i)(h)))
#define CVT_PS_PH_avx512(f) _mm512_cvtps_ph((__m512)(f), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)
#define F16N_avx512(x) F16N_HW(avx512, x, CVT_PS_PH_avx512)
ROOF_LOOPS(sse2, 16, __attribute__((target("sse2"))))
ROOF_LOOPS(avx2, 32, __attribute__((target("avx2,f16c"))))
ROOF_LOOPS(avx512, 64, __attribute__((target("avx512f,avx512bw,avx512vl"))))
#else
ROOF_VEC_TYPES(neon, 16)
#define CVT_neon VCVT
#define MASK_neon(c) ((vu_neon)(c))
#define ASF_neon(u) ((vf_neon)(u))
#define F16W_neon(h) ((vf_neon)vcvt_f32_f16((float16x4_t)(h)))
#define CVT_PS_PH_neon(f) vcvt_f16_f32((float32x4_t)(f))
#define F16N_neon(x) F16N_HW(neon, x, CVT_PS_PH_neon)
ROOF_LOOPS(neon, 16, )
#endif

static const roof_fns *fns_for(const char *isa, const char **name)
{
#if defined(__x86_64__) || defined(__i386__)
    if (!strcmp(isa, "avx512"))
        return *name = "avx512", &roof_fns_avx512;
    if (!strcmp(isa, "avx2"))
        return *name = "avx2", &roof_fns_avx2;
    if (!strcmp(isa, "sse2"))
        return *name = "sse2", &roof_fns_sse2;
#else
    if (!strcmp(isa, "neon"))
        return *name = "neon", &roof_fns_neon;
#endif
    return *name = "scalar", &roof_fns_scalar;
}

/* ns per lane of one loop: the fastest of ROOF_SAMPLES batches of about ROOF_BATCH_S each */
static double per_lane(roof_loop f, int lanes_per_pass)
{
    f(1); /* warm: the buffers into L1, the code into the caches, the clock up */
    double t0 = now_s();
    f(16);
    double one = (now_s() - t0) / 16;
    int passes = one > 0 ? (int)(ROOF_BATCH_S / one) : 1000;
    if (passes < 1)
        passes = 1;
    double best = INFINITY;
    for (int s = 0; s < ROOF_SAMPLES; s++) {
        t0 = now_s();
        f(passes);
        double t = now_s() - t0;
        if (t < best)
            best = t;
    }
    return best / passes / lanes_per_pass * 1e9;
}

roof_costs roof_table[8];
int n_roof;

const roof_costs *roof_costs_for(const char *isa)
{
    const char *name;
    const roof_fns *fn = fns_for(isa, &name);
    for (int i = 0; i < n_roof; i++)
        if (!strcmp(roof_table[i].isa, name))
            return &roof_table[i];
    if (n_roof == (int)(sizeof roof_table / sizeof roof_table[0]))
        die("roofline: too many ISAs");
    for (int i = 0; i < ROOF_LANES; i++) { /* normal values of both signs, as the rows' data */
        roof_x[i] = (float)((i * 37) % 1999 - 999) / 1000.0f + (i % 2 ? 0.0005f : -0.0005f);
        roof_h[i] = (uint16_t)(0x3000 + (i * 7) % 0x1000 + (i % 2 ? 0x8000 : 0));
    }
    roof_costs *c = &roof_table[n_roof++];
    memset(c, 0, sizeof *c);
    snprintf(c->isa, sizeof c->isa, "%s", name);
    c->lanes = fn->lanes;
    c->div[POOLGRAD_F32] = per_lane(fn->div, ROOF_LANES);
    c->addload = per_lane(fn->addload, ROOF_LANES);
    c->narrow[POOLGRAD_F32] = 0;
    c->div[POOLGRAD_F16] = per_lane(fn->widen_div_f16, ROOF_LANES);
    c->narrow[POOLGRAD_F16] = per_lane(fn->narrow_f16, ROOF_LANES);
    c->div[POOLGRAD_BF16] = per_lane(fn->widen_div_bf16, ROOF_LANES);
    c->narrow[POOLGRAD_BF16] = per_lane(fn->narrow_bf16, ROOF_LANES);
    c->mul[POOLGRAD_F32] = per_lane(fn->mul, ROOF_LANES);
    c->mul[POOLGRAD_F16] = per_lane(fn->widen_mul_f16, ROOF_LANES);
    c->mul[POOLGRAD_BF16] = per_lane(fn->widen_mul_bf16, ROOF_LANES);
    return c;
}

static bool is_pow2(int64_t v)
{
    const uint64_t m = v < 0 ? 0u - (uint64_t)v : (uint64_t)v;
    return m != 0 && (m & (m - 1)) == 0;
}

/* every window's divisor a power of two (the override, or every per-axis factor: padded extents with
 * count_include_pad, clipped ones without, ceil-mode windows ending at I + p) */
static bool divisors_pow2_of(int sd, const int64_t *I, const int64_t *O, const int64_t *k, const int64_t *s,
                             const int64_t *p, bool cip, int64_t divisor)
{
    if (divisor)
        return is_pow2(divisor);
    for (int a = 0; a < sd; a++) {
        for (int64_t o = 0; o < O[a]; o++) {
            const int64_t b = o * s[a] - p[a], e = b + k[a] < I[a] + p[a] ? b + k[a] : I[a] + p[a];
            const int64_t f = cip ? e - b : (e < I[a] ? e : I[a]) - (b > 0 ? b : 0);
            if (!is_pow2(f))
                return false;
        }
    }
    return true;
}

bool roof_divisors_pow2(const group *g)
{
    const bench_case *bc = g->bc;
    return divisors_pow2_of(bc->sd, g->gi_shape + 2, g->go_shape + 2, bc->k, bc->s, bc->p, bc->cip, bc->divisor);
}

static int64_t floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

/* the windows covering position i of one axis: o with o*s - p <= i < o*s - p + k, 0 <= o < O */
static int64_t axis_cover(int64_t i, int64_t O, int64_t k, int64_t s, int64_t p)
{
    int64_t lo = floor_div(i + p - k, s) + 1, hi = floor_div(i + p, s);
    if (lo < 0)
        lo = 0;
    if (hi > O - 1)
        hi = O - 1;
    return hi >= lo ? hi - lo + 1 : 0;
}

/* the counts of one axis (positions, not elements); each field of the whole problem is the product of the
 * axes' and N*C, since both coverage and a window's positions are products over the axes */
static roof_counts axis_counts(int64_t I, int64_t O, int64_t k, int64_t s, int64_t p)
{
    roof_counts a = { 0, 0, 0, 0 };
    for (int64_t i = 0; i < I; i++) {
        const int64_t c = axis_cover(i, O, k, s, p);
        a.terms += c;
        a.single += c == 1;
        a.covered += c > 0;
    }
    /* windows holding a single-covered position: nx, the first such position at or after the window's start,
     * only moves forward (windows start in ascending order), so the walk is O(I + O) */
    int64_t nx = 0;
    for (int64_t o = 0; o < O; o++) {
        const int64_t b = o * s - p > 0 ? o * s - p : 0, e = o * s - p + k < I ? o * s - p + k : I;
        if (nx < b)
            nx = b;
        while (nx < I && axis_cover(nx, O, k, s, p) != 1)
            nx++;
        a.single_windows += nx < e;
    }
    return a;
}

static roof_counts counts_of(int sd, int64_t nc, const int64_t *I, const int64_t *O, const int64_t *k,
                             const int64_t *s, const int64_t *p)
{
    roof_counts n = { nc, nc, nc, nc };
    for (int a = 0; a < sd; a++) {
        const roof_counts x = axis_counts(I[a], O[a], k[a], s[a], p[a]);
        n.terms *= x.terms;
        n.single *= x.single;
        n.covered *= x.covered;
        n.single_windows *= x.single_windows;
    }
    return n;
}

roof_counts roof_count(const group *g)
{
    const bench_case *bc = g->bc;
    return counts_of(bc->sd, g->gi_shape[0] * g->gi_shape[1], g->gi_shape + 2, g->go_shape + 2, bc->k, bc->s, bc->p);
}

/* roof_count's counts against brute-force ones (every window, every input element inside it) */
bool selftest_roofline(void)
{
    static const struct {
        int sd;
        int64_t in[3], k[3], s[3], p[3];
        bool ceil;
    } t[] = {
        { 2, { 35, 35 }, { 3, 3 }, { 1, 1 }, { 1, 1 }, false },     /* inception: 103 per axis */
        { 2, { 56, 56 }, { 3, 3 }, { 2, 2 }, { 1, 1 }, false },     /* resnet */
        { 2, { 9, 8 }, { 2, 2 }, { 2, 2 }, { 0, 0 }, false },
        { 2, { 7, 7 }, { 7, 7 }, { 7, 7 }, { 0, 0 }, false },       /* global */
        { 2, { 10, 10 }, { 3, 3 }, { 2, 2 }, { 0, 0 }, true },      /* ceil overhang */
        { 2, { 9, 8 }, { 3, 2 }, { 2, 1 }, { 1, 0 }, false },
        { 3, { 8, 15, 13 }, { 3, 3, 3 }, { 1, 1, 1 }, { 1, 1, 1 }, true },
        { 3, { 6, 14, 33 }, { 3, 3, 3 }, { 2, 2, 2 }, { 1, 1, 1 }, false },
        { 2, { 11, 11 }, { 5, 4 }, { 3, 3 }, { 2, 1 }, true },
        { 2, { 8, 8 }, { 2, 2 }, { 3, 3 }, { 0, 0 }, false },       /* k < s: uncovered elements */
    };
    bool ok = true;
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        poolgrad_params prm;
        memset(&prm, 0, sizeof prm);
        prm.spatial_dims = t[i].sd;
        prm.ceil_mode = t[i].ceil;
        prm.count_include_pad = true;
        for (int a = 0; a < t[i].sd; a++) {
            prm.kernel[a] = t[i].k[a];
            prm.stride[a] = t[i].s[a];
            prm.padding[a] = t[i].p[a];
        }
        int64_t shape[5] = { 1, 1, t[i].in[0], t[i].in[1], t[i].in[2] }, oshape[5];
        if (poolgrad_output_shape(&prm, 2 + t[i].sd, shape, oshape) != POOLGRAD_OK) {
            printf("selftest roof_count case %zu: output shape refused\n", i);
            ok = false;
            continue;
        }
        int64_t O[3] = { 1, 1, 1 }, I[3] = { 1, 1, 1 };
        for (int a = 0; a < t[i].sd; a++) {
            O[a] = oshape[2 + a];
            I[a] = t[i].in[a];
        }
        /* per element, the windows covering it; then the four counts */
        const int64_t ne = I[0] * I[1] * I[2];
        int64_t *cover = calloc((size_t)ne, sizeof *cover);
        if (!cover)
            die("out of memory");
        roof_counts brute = { 0, 0, 0, 0 };
        for (int pass = 0; pass < 2; pass++) /* pass 0 counts coverage, pass 1 the windows with a single */
            for (int64_t o0 = 0; o0 < O[0]; o0++)
                for (int64_t o1 = 0; o1 < O[1]; o1++)
                    for (int64_t o2 = 0; o2 < O[2]; o2++) {
                        bool single = false;
                        for (int64_t x0 = 0; x0 < I[0]; x0++)
                            for (int64_t x1 = 0; x1 < I[1]; x1++)
                                for (int64_t x2 = 0; x2 < I[2]; x2++) {
                                    const int64_t o[3] = { o0, o1, o2 }, x[3] = { x0, x1, x2 };
                                    bool in = true;
                                    for (int a = 0; a < t[i].sd; a++)
                                        in &= x[a] >= o[a] * t[i].s[a] - t[i].p[a] &&
                                              x[a] < o[a] * t[i].s[a] - t[i].p[a] + t[i].k[a];
                                    const int64_t e = (x0 * I[1] + x1) * I[2] + x2;
                                    if (in && pass == 0)
                                        cover[e]++;
                                    single |= in && pass == 1 && cover[e] == 1;
                                }
                        brute.single_windows += single;
                    }
        for (int64_t e = 0; e < ne; e++) {
            brute.terms += cover[e];
            brute.single += cover[e] == 1;
            brute.covered += cover[e] > 0;
        }
        free(cover);
        for (int cip = 0; cip < 2; cip++) { /* every window's divisor, as docs/SEMANTICS.md section 3 defines it */
            bool all = true;
            for (int64_t o0 = 0; o0 < O[0]; o0++)
                for (int64_t o1 = 0; o1 < O[1]; o1++)
                    for (int64_t o2 = 0; o2 < O[2]; o2++) {
                        const int64_t o[3] = { o0, o1, o2 };
                        int64_t d = 1;
                        for (int a = 0; a < t[i].sd; a++) {
                            const int64_t b = o[a] * t[i].s[a] - t[i].p[a];
                            const int64_t e = b + t[i].k[a] < I[a] + t[i].p[a] ? b + t[i].k[a] : I[a] + t[i].p[a];
                            d *= cip ? e - b : (e < I[a] ? e : I[a]) - (b > 0 ? b : 0);
                        }
                        all &= is_pow2(d);
                    }
            if (divisors_pow2_of(t[i].sd, I, O, t[i].k, t[i].s, t[i].p, cip, 0) != all) {
                printf("selftest roof_divisors_pow2 case %zu (count_include_pad %d): %d, brute force %d\n", i, cip,
                       !all, all);
                ok = false;
            }
        }
        const roof_counts got = counts_of(t[i].sd, 3, I, O, t[i].k, t[i].s, t[i].p);
        if (got.terms != 3 * brute.terms || got.single != 3 * brute.single || got.covered != 3 * brute.covered ||
            got.single_windows != 3 * brute.single_windows) {
            printf("selftest roof_count case %zu: terms %lld, single %lld, covered %lld, single windows %lld; brute "
                   "force %lld, %lld, %lld, %lld\n",
                   i, (long long)got.terms, (long long)got.single, (long long)got.covered, (long long)got.single_windows,
                   (long long)(3 * brute.terms), (long long)(3 * brute.single), (long long)(3 * brute.covered),
                   (long long)(3 * brute.single_windows));
            ok = false;
        }
    }
    return ok;
}

void roof_row(row *r, const group *g)
{
    const roof_costs *c = roof_costs_for(r->isa);
    snprintf(r->limit_isa, sizeof r->limit_isa, "%s", c->isa);
    const roof_counts n = roof_count(g);
    r->terms = n.terms;
    r->adds = n.terms - n.single + n.single_windows;
    r->results = n.covered - n.single + n.single_windows;
    r->t_lim_mem = r->bytes / (r->memcpy_gbs * 1e9);
    const double go = (double)r->go_numel;
    r->divisors_pow2 = roof_divisors_pow2(g);
    r->t_lim_div = go * (r->divisors_pow2 ? c->mul : c->div)[g->dt] * 1e-9 / r->threads;
    r->t_lim_add = (double)r->adds * c->addload * 1e-9 / r->threads;
    r->t_lim_conv = (double)r->results * c->narrow[g->dt] * 1e-9 / r->threads;
    r->t_lim_arith = r->t_lim_div + r->t_lim_add + r->t_lim_conv;
    r->arith_bound = r->t_lim_arith > r->t_lim_mem;
    r->t_limit = r->arith_bound ? r->t_lim_arith : r->t_lim_mem;
    r->frac_limit = r->t_limit / r->t_pg;
}

void roof_describe(char *buf, size_t n, const roof_costs *c)
{
    snprintf(buf, n,
             "%s, %d-byte vectors (%d f32 lane%s): div f32 %.4f, f16 widen+div %.4f, bf16 widen+div %.4f; "
             "mul (power-of-two divisors) f32 %.4f, f16 %.4f, bf16 %.4f; add+load %.4f; narrow f16 %.4f, bf16 %.4f "
             "ns per lane",
             c->isa, 4 * c->lanes, c->lanes, c->lanes == 1 ? "" : "s", c->div[POOLGRAD_F32], c->div[POOLGRAD_F16],
             c->div[POOLGRAD_BF16], c->mul[POOLGRAD_F32], c->mul[POOLGRAD_F16], c->mul[POOLGRAD_BF16], c->addload,
             c->narrow[POOLGRAD_F16], c->narrow[POOLGRAD_BF16]);
}
