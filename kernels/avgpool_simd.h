/*
 * The SIMD gather kernels, written once and compiled once per ISA translation unit
 * (avgpool_bwd_{sse2,avx2,avx512,neon}.c). The including file defines:
 *   PG_VEC_LEVEL   1 (128-bit), 2 (256-bit) or 3 (512-bit), see simd_vec.h
 *   PG_ISA         the poolgrad_isa the kernels are dispatched as
 *   PG_ISA_NAME    "sse2", "avx2", "avx512", "neon" (kernel name prefix)
 *   PG_KSYM(x)     the symbol of kernel x, e.g. poolgrad_kernel_avx512_##x
 *
 * Exactness (docs/SEMANTICS.md section 4): every gradInput element is produced once, by one work item:
 *   acc = +0.0f; for each covering window in ascending (od, oh, ow): acc = acc + (float)g / (float)divisor;
 *   one round-to-nearest-even store.
 * Vector lanes are independent gradInput elements; a lane without a j-th window adds +0.0, which is
 * exact because acc is never -0.0 (it starts at +0.0 and x + y is -0.0 only if both are -0.0).
 * Divisions are IEEE divisions of the same operands (the divisor is the exact integer in float: either
 * (float)int64 computed in scalar code like the reference, or a product of two exact float factors whose
 * integer product is <= 2^24, hence exact). The "_q" kernels divide once per gradOutput element in a
 * prepare pass (same division) into an f32 workspace, then only add.
 *
 * Kernels (name = PG_ISA_NAME "_" suffix), in dispatch order:
 *   _global  one window covering the whole input, or an empty gradOutput: a per-(n, c) constant fill
 *            (any gradOutput view; gradInput contiguous along W or C)
 *   _nchw    gradInput rows contiguous along W (NCHW / NCDHW, other strides free), gradOutput contiguous
 *            along W: per window row a gradOutput segment is divided in registers and the lanes are picked
 *            with a permute (vpermps / vpermt2ps on AVX-512, vpermps+blend on AVX2, scalar on 128-bit);
 *            consecutive rows with the same windows are computed once. Preferred when each row has a single
 *            window row (k <= s on D and H).
 *            With one window per lane (k <= s on every axis) a tight path picks, then divides each lane.
 *   _nchw_b  same rows, more window rows: q = go / divisor rows are divided inside run into a tagged 16 KiB
 *            stack band (the prepare pass's division), blocks of 4 rows share the picks; no workspace.
 *   _nchw_q  same rows, any gradOutput view: a prepare pass writes q = go / divisor (f32, NCDHW order) to
 *            the workspace, the run only permutes and adds (when the band cannot hold a block's rows).
 *   _nhwc    gradInput channels-last (C contiguous), gradOutput C contiguous: all lanes share windows and
 *            divisor; blocks of up to 4 vectors along C. Preferred up to 8 terms per element in f32 and
 *            1 term in f16/bf16 (where pixels sharing their windows are computed and narrowed once).
 *   _nhwc_b  gradInput channels-last, any gradOutput view: q divided inside run into a 24 KiB stack band
 *            (groups of 16 rows x channel blocks); preferred with one od row per gradInput row (2D).
 *   _nhwc_q  gradInput channels-last, any gradOutput view: pre-divided f32 workspace (NDHWC order).
 * All kernels handle any C / W (vector tails), empty gradOutput (out size 0: every element +0.0, gradOutput
 * never read), gapped views. Full-vector loads never leave the gradOutput view or the workspace (+ slack);
 * stores never touch an element outside the work item. Stack use per call is below 64 KiB.
 * Work items: rows (n, c, d, h) for the W-vectorized kernels, rows (n, d, h) for the channels-last ones,
 * so batch 1 with few channels still splits over all threads; items are independent, so the bits do not
 * depend on how they are split.
 */
#include "simd_vec.h"

#include "convert.h"
#include "problem.h"

#define PG_NAME(suffix) PG_ISA_NAME "_" suffix

/* W-blocking of the per-chunk window tables (stack only, execute never allocates) */
#define PG_WCH 64

typedef struct pg_wchunk {
    int64_t base;    /* first window index of lane 0 (windows are non-decreasing along W) */
    int32_t maxc;    /* max windows per lane */
    int32_t span;    /* windows touched: base .. base + span - 1 */
    int32_t nl;      /* lanes in the row (tail chunk may be short) */
    int32_t rel[VL]; /* first window of each lane, minus base */
    int32_t cnt[VL]; /* windows of each lane (0 outside the row) */
} pg_wchunk;

static inline int64_t pg_es(int dt) { return dt == POOLGRAD_F32 ? 4 : 2; }
static inline int64_t pg_min(int64_t a, int64_t b) { return a < b ? a : b; }
static inline int64_t pg_max(int64_t a, int64_t b) { return a > b ? a : b; }

PG_AI float pg_sc_load(const char *p, int dt)
{
    if (dt == POOLGRAD_F32) {
        float f;
        memcpy(&f, p, 4);
        return f;
    }
    uint16_t h;
    memcpy(&h, p, 2);
    return dt == POOLGRAD_F16 ? poolgrad_f16_to_f32_inline(h) : poolgrad_bf16_to_f32_inline(h);
}

/* n (<= VL) elements at a byte stride, widened exactly in scalar code; other lanes +0.0 */
PG_AI vf pg_ld_strided(const char *p, int64_t stride_bytes, int64_t n, int dt)
{
    float t[VL];
    for (int l = 0; l < VL; l++)
        t[l] = l < n ? pg_sc_load(p + l * stride_bytes, dt) : 0.0f;
    return vf_loadu(t);
}

static inline bool pg_unit(int64_t size, int64_t stride) { return size <= 1 || stride == 1; }

/* gradInput vectorized along C (channels-last) */
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

static inline int64_t pg_factor(const poolgrad_problem *pr, int a, int64_t o)
{
    int64_t pool, cnt;
    poolgrad_window_extent(o, pr->in[a], pr->k[a], pr->s[a], pr->p[a], &pool, &cnt);
    return pr->count_include_pad ? pool : cnt;
}

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

static inline int64_t pg_ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

/* ================================================================ global pooling */

static bool pg_is_global(const poolgrad_problem *pr)
{
    if (pg_go_empty(pr))
        return true;
    for (int a = 0; a < 3; a++) {
        int64_t pool, cnt;
        if (pr->out[a] != 1)
            return false;
        poolgrad_window_extent(0, pr->in[a], pr->k[a], pr->s[a], pr->p[a], &pool, &cnt);
        if (cnt != pr->in[a])
            return false;
    }
    return true;
}

static bool global_supports(const poolgrad_problem *pr)
{
    return pg_is_global(pr) && (pg_gi_cl(pr) || pg_gi_rows(pr));
}

static int64_t global_items(const poolgrad_problem *pr)
{
    return pg_gi_cl(pr) ? pr->n * pr->in[0] * pr->in[1] : pr->n * pr->c * pr->in[0] * pr->in[1];
}

PG_AI void pg_fill(char *p, int64_t n, vf v, int dt)
{
    const int64_t es = pg_es(dt);
    int64_t i = 0;
    for (; i + VL <= n; i += VL)
        pg_st(p + i * es, v, dt);
    if (i < n)
        pg_st_n(p + i * es, v, n - i, dt);
}

/* bits[l] = stored bits of 0 + go[plane pl + l] / divf (0 past the last plane or for an empty gradOutput) */
PG_AI void pg_plane_bits(const poolgrad_problem *pr, int64_t pl, int64_t planes, bool dense, bool empty, float divf,
                         int dt, int32_t *bits)
{
    const int64_t es = pg_es(dt), C = pr->c;
    const int64_t nl = empty ? 0 : pg_min(VL, planes - pl);
    vf x;
    if (dense) {
        const char *g = pr->go + pl * es;
        x = nl == VL ? pg_ld(g, dt) : pg_ld_n(g, nl, dt);
    } else {
        float t[VL];
        for (int l = 0; l < VL; l++) {
            const int64_t q = pl + l;
            t[l] = l < nl ? pg_sc_load(pr->go + ((q / C) * pr->go_stride[PG_N] + (q % C) * pr->go_stride[PG_C]) * es, dt)
                          : 0.0f;
        }
        x = vf_loadu(t);
    }
    const vf v = vf_add(vf_zero(), vf_div(x, vf_set1(divf)));
    const vi b = dt == POOLGRAD_F32 ? vf_as_i(vf_canonical_nan(v)) : dt == POOLGRAD_F16 ? vf_to_f16(v) : vf_to_bf16(v);
    _Alignas(64) int32_t tmp[VL];
    memcpy(tmp, &b, sizeof tmp);
    for (int l = 0; l < VL; l++)
        bits[l] = l < nl ? tmp[l] : 0;
}

#define PG_GCB 4096 /* channels per pattern block (one block for usual C: each pixel is one contiguous copy) */

PG_AI void global_run_dt(const poolgrad_problem *pr, int64_t begin, int64_t end, int dt)
{
    const int64_t es = pg_es(dt);
    const int64_t ID = pr->in[0], IH = pr->in[1], IW = pr->in[2], C = pr->c;
    const int64_t *gs = pr->gi_stride, *os = pr->go_stride;
    const bool empty = pg_go_empty(pr);
    const float divf = empty ? 1.0f : (float)poolgrad_divisor(pr, 0, 0, 0);
    if (pg_gi_cl(pr)) {
        /* rows (n, d, h): every pixel of image n gets the same channel vector; build it once per image
         * and channel block, then copy it to the pixels of this call's rows */
        _Alignas(64) char pattern[PG_GCB * 4];
        const int64_t img_rows = ID * IH;
        for (int64_t r0 = begin; r0 < end;) {
            const int64_t n = r0 / img_rows, r1 = pg_min(end, (n + 1) * img_rows);
            for (int64_t c0 = 0; c0 < C; c0 += PG_GCB) {
                const int64_t cb = pg_min(PG_GCB, C - c0);
                if (empty) {
                    memset(pattern, 0, (size_t)(cb * es));
                } else {
                    const char *g = pr->go + (n * os[PG_N] + c0 * os[PG_C]) * es;
                    const bool unit = pg_unit(C, os[PG_C]);
                    for (int64_t cc = 0; cc < cb; cc += VL) {
                        int64_t nl = pg_min(VL, cb - cc);
                        vf x = unit ? (nl == VL ? pg_ld(g + cc * es, dt) : pg_ld_n(g + cc * es, nl, dt))
                                    : pg_ld_strided(g + cc * os[PG_C] * es, os[PG_C] * es, nl, dt);
                        vf q = vf_add(vf_zero(), vf_div(x, vf_set1(divf)));
                        pg_st(pattern + cc * es, q, dt); /* pattern has room for whole vectors */
                    }
                }
                for (int64_t row = r0; row < r1; row++) {
                    const int64_t h = row % IH, d = (row / IH) % ID;
                    char *gi_row = pr->gi + (n * gs[PG_N] + d * gs[PG_D] + h * gs[PG_H] + c0) * es;
                    for (int64_t w = 0; w < IW; w++)
                        memcpy(gi_row + w * gs[PG_W] * es, pattern, (size_t)(cb * es));
                }
            }
            r0 = r1;
        }
        return;
    }
    /* rows (n, c, d, h); consecutive rows of one dense (n, c) plane are filled in one go */
    const int64_t plane_rows = ID * IH;
    const bool dense = (IH == 1 || gs[PG_H] == IW) && (ID == 1 || gs[PG_D] == IH * IW);
    const int64_t P = ID * IH * IW, planes = pr->n * C;
    if (dense && P >= VL && (C == 1 || gs[PG_C] == P) && (pr->n == 1 || gs[PG_N] == C * P)) {
        /* the whole tensor is one dense run: whole vectors, a lane blend where a plane ends */
        static const int32_t iota[16] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 };
        const vi lane = vi_loadu(iota);
        int64_t e = begin * IW;
        const int64_t e_end = end * IW;
        int64_t p = e / P;
        /* stored bits of the plane values, VL planes at a time (vector division and narrowing) */
        int32_t pbits[VL] = { 0 };
        int64_t pb = -2 * (int64_t)VL;
        const bool pdense = (C == 1 || os[PG_C] == 1) && (pr->n == 1 || os[PG_N] == C);
#define PG_PBITS(pl) ((pl) - pb < VL ? pbits[(pl) - pb] : (pg_plane_bits(pr, (pl), planes, pdense, empty, divf, dt, pbits), \
                                                              pb = (pl), pbits[0]))
        int32_t b0 = PG_PBITS(p), b1 = PG_PBITS(p + 1);
        while (e < e_end) {
            const int64_t bnd = (p + 1) * P - e; /* lanes >= bnd belong to plane p + 1 */
            vi v = bnd >= VL ? vi_set1(b0) : vi_sel_gt(lane, vi_set1((int32_t)bnd - 1), vi_set1(b1), vi_set1(b0));
            char *dst = pr->gi + e * es;
            if (e_end - e >= VL) {
                if (dt == POOLGRAD_F32)
                    vf_storeu((float *)(void *)dst, vi_as_f(v));
                else
                    vi_store_u16(dst, v);
            } else {
                char buf[VL * 4];
                if (dt == POOLGRAD_F32)
                    vf_storeu((float *)(void *)buf, vi_as_f(v));
                else
                    vi_store_u16(buf, v);
                pg_copy_small(dst, buf, (size_t)((e_end - e) * es));
            }
            e += VL;
            if (e >= (p + 1) * P) {
                p++;
                b0 = b1;
                b1 = PG_PBITS(p + 1);
            }
        }
#undef PG_PBITS
        return;
    }
    for (int64_t row = begin; row < end;) {
        int64_t plane = row / plane_rows, r = row % plane_rows;
        int64_t h = r % IH, d = r / IH, c = plane % C, n = plane / C;
        int64_t stop = pg_min(end, (plane + 1) * plane_rows);
        float v = 0.0f;
        if (!empty)
            v = 0.0f + pg_sc_load(pr->go + (n * os[PG_N] + c * os[PG_C]) * es, dt) / divf;
        vf vv = vf_set1(v);
        if (dense) {
            char *p = pr->gi + (n * gs[PG_N] + c * gs[PG_C] + d * gs[PG_D] + h * gs[PG_H]) * es;
            pg_fill(p, (stop - row) * IW, vv, dt);
        } else {
            for (int64_t rr = row; rr < stop; rr++) {
                int64_t rh = (rr % plane_rows) % IH, rd = (rr % plane_rows) / IH;
                char *p = pr->gi + (n * gs[PG_N] + c * gs[PG_C] + rd * gs[PG_D] + rh * gs[PG_H]) * es;
                pg_fill(p, IW, vv, dt);
            }
        }
        row = stop;
    }
}

static void global_run(const poolgrad_problem *pr, void *ws, int64_t begin, int64_t end)
{
    (void)ws;
    switch (pr->dtype) {
    case POOLGRAD_F16: global_run_dt(pr, begin, end, POOLGRAD_F16); break;
    case POOLGRAD_BF16: global_run_dt(pr, begin, end, POOLGRAD_BF16); break;
    default: global_run_dt(pr, begin, end, POOLGRAD_F32); break;
    }
}

/* ================================================================ W-vectorized rows (NCHW / NCDHW) */

/* Window tables for W chunks of [w0, w1); returns the number of chunks (<= PG_WCH). */
static int pg_build_chunks(const poolgrad_problem *pr, int64_t w0, int64_t w1, pg_wchunk *ch)
{
    const int64_t k = pr->k[2], s = pr->s[2], p = pr->p[2], OW = pr->out[2];
    int nch = 0;
    for (int64_t w = w0; w < w1; w += VL, nch++) {
        pg_wchunk *c = &ch[nch];
        int64_t nl = pg_min(VL, w1 - w);
        int64_t b0, e0;
        poolgrad_window_range(w, k, s, p, OW, &b0, &e0);
        c->base = b0;
        c->nl = (int32_t)nl;
        c->maxc = 0;
        c->span = 0;
        for (int l = 0; l < VL; l++) {
            int64_t b = 0, e = 0;
            if (l < nl)
                poolgrad_window_range(w + l, k, s, p, OW, &b, &e);
            int64_t cnt = e > b ? e - b : 0;
            c->cnt[l] = (int32_t)cnt;
            c->rel[l] = cnt ? (int32_t)(b - b0) : 0;
            if (cnt > c->maxc)
                c->maxc = (int32_t)cnt;
            if (cnt && b - b0 + cnt > c->span)
                c->span = (int32_t)(b - b0 + cnt);
        }
    }
    return nch;
}

/* An upper bound of pg_wchunk.span for any chunk. */
static inline int64_t pg_span_bound(const poolgrad_problem *pr)
{
    return (VL - 1) / pr->s[2] + 1 + pg_ceil_div(pr->k[2], pr->s[2]) + 1;
}

/* Lane l = seg[rel[l] + j] if j < cnt[l] else +0.0, seg = q0 ++ q1 (span <= 2 VL). */
PG_AI vf pg_expand(vf q0, vf q1, vi rel, vi cnt, const pg_wchunk *c, int j)
{
#if PG_VEC_LEVEL == 3
    vi idx = vi_add(rel, vi_set1(j));
    simde__mmask16 m = simde_mm512_cmpgt_epi32_mask(cnt, vi_set1(j));
    if (c->span <= VL)
        return simde_mm512_maskz_permutexvar_ps(m, idx, q0);
    return simde_mm512_maskz_permutex2var_ps(m, q0, idx, q1);
#elif PG_VEC_LEVEL == 2
    vi idx = vi_add(rel, vi_set1(j));
    vf r = simde_mm256_permutevar8x32_ps(q0, idx);
    if (c->span > VL) {
        vf r1 = simde_mm256_permutevar8x32_ps(q1, idx);
        r = simde_mm256_blendv_ps(r, r1, simde_mm256_castsi256_ps(simde_mm256_cmpgt_epi32(idx, vi_set1(VL - 1))));
    }
    return simde_mm256_and_ps(r, simde_mm256_castsi256_ps(simde_mm256_cmpgt_epi32(cnt, vi_set1(j))));
#else
    (void)rel;
    (void)cnt;
    float seg[2 * VL], t[VL];
    vf_storeu(seg, q0);
    vf_storeu(seg + VL, q1);
    for (int l = 0; l < VL; l++)
        t[l] = j < c->cnt[l] ? seg[c->rel[l] + j] : 0.0f;
    return vf_loadu(t);
#endif
}

/* Lanes from memory (any span): seg points at the q row's element c->base. */
PG_AI vf pg_expand_mem(const float *seg, const pg_wchunk *c, int j)
{
    float t[VL];
    for (int l = 0; l < VL; l++)
        t[l] = j < c->cnt[l] ? seg[c->rel[l] + j] : 0.0f;
    return vf_loadu(t);
}

/* Per-chunk lane selectors for windows j < PG_JMAX, computed once per chunk, used for every window row. */
#define PG_JMAX 4
#if PG_VEC_LEVEL == 3
typedef simde__mmask16 pg_mask;
#elif PG_VEC_LEVEL == 2
typedef vf pg_mask;
#else
typedef int pg_mask;
#endif
typedef struct pg_lanes {
    vi idx[PG_JMAX];
    pg_mask m[PG_JMAX];
} pg_lanes;

PG_AI void pg_lanes_init(pg_lanes *L, const pg_wchunk *c)
{
#if PG_VEC_LEVEL >= 2
    const vi rel = vi_loadu(c->rel), cnt = vi_loadu(c->cnt);
    for (int j = 0; j < PG_JMAX; j++) { /* all of them: no maybe-uninitialized lanes */
        L->idx[j] = vi_add(rel, vi_set1(j));
#if PG_VEC_LEVEL == 3
        L->m[j] = simde_mm512_cmpgt_epi32_mask(cnt, vi_set1(j));
#else
        L->m[j] = simde_mm256_castsi256_ps(simde_mm256_cmpgt_epi32(cnt, vi_set1(j)));
#endif
    }
#else
    (void)L;
    (void)c;
#endif
}

/* lane l = (q0 ++ q1)[rel[l] + j] if j < cnt[l] else +0.0 (j < PG_JMAX, span <= 2 VL) */
PG_AI vf pg_pick(vf q0, vf q1, const pg_lanes *L, const pg_wchunk *c, int j, bool two)
{
#if PG_VEC_LEVEL == 3
    (void)c;
    return two ? simde_mm512_maskz_permutex2var_ps(L->m[j], q0, L->idx[j], q1)
               : simde_mm512_maskz_permutexvar_ps(L->m[j], L->idx[j], q0);
#elif PG_VEC_LEVEL == 2
    (void)c;
    vf r = simde_mm256_permutevar8x32_ps(q0, L->idx[j]);
    if (two) {
        vf r1 = simde_mm256_permutevar8x32_ps(q1, L->idx[j]);
        r = simde_mm256_blendv_ps(r, r1, simde_mm256_castsi256_ps(simde_mm256_cmpgt_epi32(L->idx[j], vi_set1(VL - 1))));
    }
    return simde_mm256_and_ps(r, L->m[j]);
#else
    (void)L;
    (void)two;
    float seg[2 * VL], t[VL];
    vf_storeu(seg, q0);
    vf_storeu(seg + VL, q1);
    for (int l = 0; l < VL; l++)
        t[l] = j < c->cnt[l] ? seg[c->rel[l] + j] : 0.0f;
    return vf_loadu(t);
#endif
}

/*
 * Per-axis tables for one run call (stack only): covering-window range of every input index and the
 * divisor factor of every window. Axes longer than PG_AXMAX fall back to computing on the fly.
 */
#define PG_AXMAX 512

typedef struct pg_axis {
    bool tab;
    int a;
    int32_t o0[PG_AXMAX], o1[PG_AXMAX];
    int64_t f[PG_AXMAX];
} pg_axis;

static void pg_axis_init(pg_axis *ax, const poolgrad_problem *pr, int a)
{
    ax->a = a;
    ax->tab = pr->in[a] <= PG_AXMAX && pr->out[a] <= PG_AXMAX;
    if (!ax->tab)
        return;
    for (int64_t x = 0; x < pr->in[a]; x++) {
        int64_t b, e;
        poolgrad_window_range(x, pr->k[a], pr->s[a], pr->p[a], pr->out[a], &b, &e);
        if (e < b)
            e = b;
        ax->o0[x] = (int32_t)b;
        ax->o1[x] = (int32_t)e;
    }
    for (int64_t o = 0; o < pr->out[a]; o++)
        ax->f[o] = pg_factor(pr, a, o);
}

PG_AI void pg_axis_range(const pg_axis *ax, const poolgrad_problem *pr, int64_t x, int64_t *b, int64_t *e)
{
    if (ax->tab) {
        *b = ax->o0[x];
        *e = ax->o1[x];
        return;
    }
    const int a = ax->a;
    poolgrad_window_range(x, pr->k[a], pr->s[a], pr->p[a], pr->out[a], b, e);
    if (*e < *b)
        *e = *b;
}

PG_AI int64_t pg_axis_factor(const pg_axis *ax, const poolgrad_problem *pr, int64_t o)
{
    return ax->tab ? ax->f[o] : pg_factor(pr, ax->a, o);
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

/* a partial vector to n rows (tails only): out of line, so its stack buffer round trip never sits
 * in the hot loop (inlined, the compiler hoisted the buffer load into every chunk: a store-forwarding stall) */
static __attribute__((noinline)) void pg_st_n_rows(char *const *dst, int g, int64_t o, vf v, int64_t nl, int dt)
{
    for (int r = 0; r < g; r++)
        pg_st_n(dst[r] + o, v, nl, dt);
}

/* the same vector to g rows at byte offset o: narrowed once */
PG_AI void pg_st_rows(char *const *dst, int g, int64_t o, vf acc, int64_t nl, int dt)
{
    if (nl != VL) {
        pg_st_n_rows(dst, g, o, acc, nl, dt);
    } else if (dt == POOLGRAD_F32 || g == 1) {
        for (int r = 0; r < g; r++)
            pg_st(dst[r] + o, acc, dt);
    } else {
        const vi bits = dt == POOLGRAD_F16 ? vf_to_f16(acc) : vf_to_bf16(acc);
        for (int r = 0; r < g; r++)
            vi_store_u16(dst[r] + o, bits);
    }
}

#define PG_TMAX 512 /* window rows (od, oh) per gradInput row handled by the row kernels */
#define PG_GROUP 8  /* rows sharing their windows, computed once */

PG_AI void rows_run_dt(const poolgrad_problem *pr, const float *qws, int64_t begin, int64_t end, int dt, bool use_q)
{
    const int64_t es = pg_es(dt);
    const int64_t C = pr->c, ID = pr->in[0], IH = pr->in[1], IW = pr->in[2];
    const int64_t OD = pr->out[0], OH = pr->out[1], OW = pr->out[2];
    const int64_t *gs = pr->gi_stride, *os = pr->go_stride;
    const bool ovr = pr->divisor_override != 0;
    const float ovf = (float)pr->divisor_override;
    const char *const go_end = use_q ? NULL : pg_go_end(pr, es);
    pg_wchunk ch[PG_WCH];
    float fwt[PG_WCH * VL + 4 * VL];
    int64_t toff[PG_TMAX];
    float tdiv[PG_TMAX];
    vf sdw[PG_WCH];
#if PG_VEC_LEVEL >= 2
    vi sidx[PG_WCH];
    pg_mask smask[PG_WCH];
#endif
    pg_axis axes[2];
    const pg_axis *axd = &axes[0], *axh = &axes[1];
    pg_axis_init(&axes[0], pr, 0);
    pg_axis_init(&axes[1], pr, 1);
    for (int64_t wb = 0; wb < IW; wb += PG_WCH * VL) {
        const int64_t we = pg_min(IW, wb + PG_WCH * VL);
        const int nch = pg_build_chunks(pr, wb, we, ch);
        const int64_t owlo = ch[0].base;
        if (!use_q && !ovr) {
            int64_t len = ch[nch - 1].base - owlo + 2 * VL;
            for (int64_t t = 0; t < len; t++)
                fwt[t] = owlo + t < OW ? (float)pg_factor(pr, 2, owlo + t) : 1.0f;
        }
        /* one window per lane and one gradOutput vector per chunk (k <= s along W): the lanes are picked
         * from the gradOutput vector first, then divided by their own divisor (the same division) */
        bool simple = !use_q;
        for (int i = 0; i < nch; i++)
            simple = simple && ch[i].maxc <= 1 && ch[i].span <= VL;
        if (simple) {
            for (int i = 0; i < nch; i++) {
                const pg_wchunk *k = &ch[i];
                float t[VL];
                for (int l = 0; l < VL; l++)
                    t[l] = !ovr && k->cnt[l] ? fwt[k->base - owlo + k->rel[l]] : 1.0f;
                sdw[i] = vf_loadu(t);
#if PG_VEC_LEVEL == 3
                sidx[i] = vi_loadu(k->rel);
                smask[i] = simde_mm512_cmpgt_epi32_mask(vi_loadu(k->cnt), vi_set1(0));
#elif PG_VEC_LEVEL == 2
                sidx[i] = vi_loadu(k->rel);
                smask[i] = simde_mm256_castsi256_ps(simde_mm256_cmpgt_epi32(vi_loadu(k->cnt), vi_set1(0)));
#endif
            }
        }
        int64_t h = begin % IH, t0 = begin / IH, d = t0 % ID;
        t0 /= ID;
        int64_t c = t0 % C, n = t0 / C;
        for (int64_t row = begin; row < end;) {
            int64_t od0, od1, oh0, oh1;
            pg_axis_range(axd, pr, d, &od0, &od1);
            pg_axis_range(axh, pr, h, &oh0, &oh1);
            /* following rows of the same (n, c) plane with the same windows get the same bits: compute once */
            int64_t gh[PG_GROUP], gd[PG_GROUP];
            const int64_t gc = c, gn = n; /* the group never leaves its (n, c) plane */
            int g = 0;
            gh[0] = h;
            gd[0] = d;
            for (;;) {
                g++;
                if (++h == IH) {
                    h = 0;
                    if (++d == ID) {
                        d = 0;
                        if (++c == C) {
                            c = 0;
                            n++;
                        }
                        break;
                    }
                }
                if (row + g >= end || g == PG_GROUP)
                    break;
                int64_t a0, a1, b0, b1;
                pg_axis_range(axd, pr, d, &a0, &a1);
                pg_axis_range(axh, pr, h, &b0, &b1);
                if (a0 != od0 || a1 != od1 || b0 != oh0 || b1 != oh1)
                    break;
                gh[g] = h;
                gd[g] = d;
            }
            /* the window rows of this group, in ascending (od, oh) order */
            int T = 0;
            for (int64_t od = od0; od < od1; od++) {
                const int64_t fd = ovr ? 1 : pg_axis_factor(axd, pr, od);
                for (int64_t oh = oh0; oh < oh1; oh++, T++) {
                    toff[T] = use_q ? (((gn * C + gc) * OD + od) * OH + oh) * OW
                                    : (gn * os[PG_N] + gc * os[PG_C] + od * os[PG_D] + oh * os[PG_H]) * es;
                    tdiv[T] = ovr ? ovf : (float)(fd * pg_axis_factor(axh, pr, oh));
                }
            }
            char *dst[PG_GROUP];
            for (int r = 0; r < g; r++)
                dst[r] = pr->gi + (gn * gs[PG_N] + gc * gs[PG_C] + gd[r] * gs[PG_D] + gh[r] * gs[PG_H] + wb) * es;
            if (simple && T <= 1) {
                const char *gp0 = T ? pr->go + toff[0] : NULL;
                const vf dd = vf_set1(T ? tdiv[0] : 1.0f);
                for (int i = 0; i < nch; i++) {
                    const pg_wchunk *k = &ch[i];
                    vf acc = vf_zero();
                    if (T && k->maxc > 0) {
                        const char *gp = gp0 + k->base * es;
                        const vf g0 = gp + VL * es <= go_end ? pg_ld(gp, dt) : pg_ld_n(gp, OW - k->base, dt);
#if PG_VEC_LEVEL == 3
                        const vf x = simde_mm512_maskz_permutexvar_ps(smask[i], sidx[i], g0);
#elif PG_VEC_LEVEL == 2
                        const vf x = simde_mm256_and_ps(simde_mm256_permutevar8x32_ps(g0, sidx[i]), smask[i]);
#else
                        float sg[VL], t[VL];
                        vf_storeu(sg, g0);
                        for (int l = 0; l < VL; l++)
                            t[l] = k->cnt[l] ? sg[k->rel[l]] : 0.0f;
                        const vf x = vf_loadu(t);
#endif
                        acc = vf_add(acc, vf_div(x, ovr ? dd : vf_mul(dd, sdw[i])));
                    }
                    pg_st_rows(dst, g, (int64_t)i * VL * es, acc, k->nl, dt);
                }
                row += g;
                continue;
            }
            for (int i = 0; i < nch; i++) {
                const pg_wchunk *k = &ch[i];
                vf acc = vf_zero();
                if (k->maxc > 0) {
                    const vi rel = vi_loadu(k->rel), cnt = vi_loadu(k->cnt);
                    const bool two = k->span > VL;
                    pg_lanes L;
                    pg_lanes_init(&L, k);
                    for (int tt = 0; tt < T; tt++) {
                        vf q0, q1;
                        if (use_q) {
                            const float *qr = qws + toff[tt];
                            if (k->span > 2 * VL) {
                                for (int j = 0; j < k->maxc; j++)
                                    acc = vf_add(acc, pg_expand_mem(qr + k->base, k, j));
                                continue;
                            }
                            q0 = vf_loadu(qr + k->base);
                            q1 = two ? vf_loadu(qr + k->base + VL) : q0;
                        } else {
                            const char *gp = pr->go + toff[tt] + k->base * es;
                            const int64_t n0 = OW - k->base;
                            vf dd = vf_set1(tdiv[tt]);
                            vf g0 = gp + VL * es <= go_end ? pg_ld(gp, dt) : pg_ld_n(gp, n0, dt);
                            q0 = vf_div(g0, ovr ? dd : vf_mul(dd, vf_loadu(fwt + (k->base - owlo))));
                            if (two) {
                                const char *g1p = gp + VL * es;
                                vf g1 = g1p + VL * es <= go_end ? pg_ld(g1p, dt) : pg_ld_n(g1p, n0 - VL, dt);
                                q1 = vf_div(g1, ovr ? dd : vf_mul(dd, vf_loadu(fwt + (k->base - owlo) + VL)));
                            } else {
                                q1 = q0;
                            }
                        }
                        switch (k->maxc) { /* windows j = 0, 1, ... of each lane, in order */
                        case 1:
                            acc = vf_add(acc, pg_pick(q0, q1, &L, k, 0, two));
                            break;
                        case 2:
                            acc = vf_add(acc, pg_pick(q0, q1, &L, k, 0, two));
                            acc = vf_add(acc, pg_pick(q0, q1, &L, k, 1, two));
                            break;
                        case 3:
                            acc = vf_add(acc, pg_pick(q0, q1, &L, k, 0, two));
                            acc = vf_add(acc, pg_pick(q0, q1, &L, k, 1, two));
                            acc = vf_add(acc, pg_pick(q0, q1, &L, k, 2, two));
                            break;
                        default:
                            for (int j = 0; j < k->maxc; j++)
                                acc = vf_add(acc, pg_expand(q0, q1, rel, cnt, k, j));
                            break;
                        }
                    }
                }
                pg_st_rows(dst, g, (int64_t)i * VL * es, acc, k->nl, dt); /* narrowed once for the group */
            }
            row += g;
        }
    }
}

static int64_t rows_items(const poolgrad_problem *pr) { return pr->n * pr->c * pr->in[0] * pr->in[1]; }

/* direct: no workspace */
static bool pg_rows_terms_ok(const poolgrad_problem *pr)
{
    return pg_ceil_div(pr->k[0], pr->s[0]) * pg_ceil_div(pr->k[1], pr->s[1]) <= PG_TMAX;
}

static bool rows_supports(const poolgrad_problem *pr)
{
    return pg_gi_rows(pr) && pg_div_small(pr) && pg_rows_terms_ok(pr) && (pg_go_empty(pr) || pg_unit(pr->out[2], pr->go_stride[PG_W])) &&
           pg_span_bound(pr) <= 2 * VL;
}


/* measured: the direct kernel wins while every gradInput row has a single window row (k <= s on D and H);
 * with more, dividing once into the workspace wins */
static bool rows_preferred(const poolgrad_problem *pr)
{
    return pg_ceil_div(pr->k[0], pr->s[0]) * pg_ceil_div(pr->k[1], pr->s[1]) <= 1;
}

static void rows_run(const poolgrad_problem *pr, void *ws, int64_t begin, int64_t end)
{
    (void)ws;
    switch (pr->dtype) {
    case POOLGRAD_F16: rows_run_dt(pr, NULL, begin, end, POOLGRAD_F16, false); break;
    case POOLGRAD_BF16: rows_run_dt(pr, NULL, begin, end, POOLGRAD_BF16, false); break;
    default: rows_run_dt(pr, NULL, begin, end, POOLGRAD_F32, false); break;
    }
}

/* pre-divided: q[n, c, od, oh, ow] = (float)go / (float)divisor in f32, plus 2 VL floats of slack */
static bool rowsq_supports(const poolgrad_problem *pr)
{
    return pg_gi_rows(pr) && pg_div_small(pr) && pg_rows_terms_ok(pr);
}

static int64_t rowsq_qcount(const poolgrad_problem *pr)
{
    return pg_go_empty(pr) ? 0 : pr->n * pr->c * pr->out[0] * pr->out[1] * pr->out[2];
}

static size_t rowsq_workspace(const poolgrad_problem *pr) { return (size_t)(rowsq_qcount(pr) + 2 * VL) * 4u; }

static int64_t rowsq_prepare_items(const poolgrad_problem *pr)
{
    return pg_go_empty(pr) ? 0 : pr->n * pr->c * pr->out[0] * pr->out[1];
}

#define PG_OWB 1024

PG_AI void rowsq_prepare_dt(const poolgrad_problem *pr, float *qws, int64_t begin, int64_t end, int dt)
{
    const int64_t es = pg_es(dt);
    const int64_t C = pr->c, OD = pr->out[0], OH = pr->out[1], OW = pr->out[2];
    const int64_t *os = pr->go_stride;
    const bool ovr = pr->divisor_override != 0;
    const float ovf = (float)pr->divisor_override;
    const bool unit = pg_unit(OW, os[PG_W]);
    float fwt[PG_OWB + VL];
    for (int64_t ob = 0; ob < OW; ob += PG_OWB) {
        const int64_t oe = pg_min(OW, ob + PG_OWB);
        if (!ovr)
            for (int64_t t = 0; t < PG_OWB + VL; t++)
                fwt[t] = ob + t < OW ? (float)pg_factor(pr, 2, ob + t) : 1.0f;
        for (int64_t r = begin; r < end; r++) {
            int64_t oh = r % OH, t = r / OH, od = t % OD;
            t /= OD;
            int64_t c = t % C, n = t / C;
            const char *g = pr->go + (n * os[PG_N] + c * os[PG_C] + od * os[PG_D] + oh * os[PG_H]) * es;
            float *qr = qws + r * OW;
            vf fdh = vf_set1(ovr ? ovf : (float)(pg_factor(pr, 0, od) * pg_factor(pr, 1, oh)));
            for (int64_t ow = ob; ow < oe; ow += VL) {
                int64_t nl = pg_min(VL, oe - ow);
                vf x = unit ? (nl == VL ? pg_ld(g + ow * es, dt) : pg_ld_n(g + ow * es, nl, dt))
                            : pg_ld_strided(g + ow * os[PG_W] * es, os[PG_W] * es, nl, dt);
                vf dv = ovr ? fdh : vf_mul(fdh, vf_loadu(fwt + (ow - ob)));
                vf q = vf_div(x, dv);
                if (nl == VL)
                    vf_storeu(qr + ow, q);
                else
                    pg_st_n((char *)(qr + ow), q, nl, POOLGRAD_F32);
            }
        }
    }
    if (end == rowsq_prepare_items(pr))
        memset(qws + rowsq_qcount(pr), 0, 2 * VL * sizeof(float));
}

static void rowsq_prepare(const poolgrad_problem *pr, void *ws, int64_t begin, int64_t end)
{
    switch (pr->dtype) {
    case POOLGRAD_F16: rowsq_prepare_dt(pr, ws, begin, end, POOLGRAD_F16); break;
    case POOLGRAD_BF16: rowsq_prepare_dt(pr, ws, begin, end, POOLGRAD_BF16); break;
    default: rowsq_prepare_dt(pr, ws, begin, end, POOLGRAD_F32); break;
    }
}

/*
 * The pre-divided W-row run, blocked over up to PG_RB consecutive rows of one (n, c, d) plane: the window
 * rows of the block are walked once in ascending (od, oh) order; each picked vector is added to the
 * accumulator of every row of the block that the window row covers, so each accumulator still receives
 * its own terms in ascending (od, oh, ow) order, while loads and permutes are shared between rows.
 */
#define PG_RB 4

/* H window ranges of gradInput rows h .. h + R - 1 of one plane, and the union [u0, u1) of the non-empty ones. */
PG_AI void pg_block_h_ranges(const pg_axis *axh, const poolgrad_problem *pr, int64_t h, int R, int64_t *ob,
                             int64_t *oe, int64_t *u0, int64_t *u1)
{
    for (int r = 0; r < R; r++)
        pg_axis_range(axh, pr, h + r, &ob[r], &oe[r]);
    int64_t lo = ob[0], hi = oe[R - 1];
    for (int r = 0; r < R; r++) {
        if (oe[r] > ob[r]) {
            lo = pg_min(lo, ob[r]);
            hi = pg_max(hi, oe[r]);
        }
    }
    *u0 = lo;
    *u1 = hi;
}

/* Move the (n, c, d, h) position of the row walk R rows on (a block never crosses a plane). */
PG_AI void pg_block_advance(int R, int64_t IH, int64_t ID, int64_t C, int64_t *h, int64_t *d, int64_t *c, int64_t *n)
{
    *h += R;
    if (*h == IH) {
        *h = 0;
        if (++*d == ID) {
            *d = 0;
            if (++*c == C) {
                *c = 0;
                ++*n;
            }
        }
    }
}

/*
 * The chunk loop shared by the blocked W-row runs: for every chunk of the W block, each of the R
 * accumulators receives the picked q values of the T window rows that cover its row (tmask), in ascending
 * window-row order, then one store per row. Window row tt holds column ow at qbase[toff[tt] + ow - col0].
 */
PG_AI void pg_rows_block_chunks(const float *qbase, const int64_t *toff, const unsigned *tmask, int T, int64_t col0,
                                const pg_wchunk *ch, int nch, char *const *dst, int R, int64_t es, int dt)
{
    for (int i = 0; i < nch; i++) {
        const pg_wchunk *k = &ch[i];
        vf acc[PG_RB];
        for (int r = 0; r < PG_RB; r++)
            acc[r] = vf_zero();
        if (k->maxc > 0) {
            const vi rel = vi_loadu(k->rel), cnt = vi_loadu(k->cnt);
            const bool two = k->span > VL;
            pg_lanes L;
            pg_lanes_init(&L, k);
            for (int tt = 0; tt < T; tt++) {
                const float *qb = qbase + toff[tt] + (k->base - col0); /* q at column k->base */
                const unsigned m = tmask[tt];
                if (k->span > 2 * VL || k->maxc > PG_JMAX) {
                    for (int j = 0; j < k->maxc; j++) {
                        const vf v = k->span > 2 * VL ? pg_expand_mem(qb, k, j)
                                                      : pg_expand(vf_loadu(qb), vf_loadu(qb + VL), rel, cnt, k, j);
                        for (int r = 0; r < R; r++)
                            if (m & (1u << r))
                                acc[r] = vf_add(acc[r], v);
                    }
                    continue;
                }
                const vf q0 = vf_loadu(qb);
                const vf q1 = two ? vf_loadu(qb + VL) : q0;
                for (int j = 0; j < k->maxc; j++) {
                    const vf v = pg_pick(q0, q1, &L, k, j, two);
                    for (int r = 0; r < PG_RB; r++)
                        if (m & (1u << r))
                            acc[r] = vf_add(acc[r], v);
                }
            }
        }
        for (int r = 0; r < R; r++) {
            if (k->nl == VL)
                pg_st(dst[r] + (int64_t)i * VL * es, acc[r], dt);
            else
                pg_st_n(dst[r] + (int64_t)i * VL * es, acc[r], k->nl, dt);
        }
    }
}

PG_AI void rowsq_block_run_dt(const poolgrad_problem *pr, const float *qws, int64_t begin, int64_t end, int dt)
{
    const int64_t es = pg_es(dt);
    const int64_t C = pr->c, ID = pr->in[0], IH = pr->in[1], IW = pr->in[2];
    const int64_t OD = pr->out[0], OH = pr->out[1], OW = pr->out[2];
    const int64_t *gs = pr->gi_stride;
    pg_wchunk ch[PG_WCH];
    int64_t toff[PG_TMAX];
    unsigned tmask[PG_TMAX];
    pg_axis axes[2];
    const pg_axis *axd = &axes[0], *axh = &axes[1];
    pg_axis_init(&axes[0], pr, 0);
    pg_axis_init(&axes[1], pr, 1);
    for (int64_t wb = 0; wb < IW; wb += PG_WCH * VL) {
        const int64_t we = pg_min(IW, wb + PG_WCH * VL);
        const int nch = pg_build_chunks(pr, wb, we, ch);
        int64_t h = begin % IH, t0 = begin / IH, d = t0 % ID;
        t0 /= ID;
        int64_t c = t0 % C, n = t0 / C;
        for (int64_t row = begin; row < end;) {
            int64_t od0, od1;
            pg_axis_range(axd, pr, d, &od0, &od1);
            /* the block: rows h .. h + R - 1 of this plane, R limited by the term budget */
            int R = (int)pg_min(pg_min(PG_RB, IH - h), end - row);
            int64_t ob[PG_RB] = { 0 }, oe[PG_RB] = { 0 };
            int T;
            for (;;) {
                int64_t u0, u1;
                pg_block_h_ranges(axh, pr, h, R, ob, oe, &u0, &u1);
                T = 0;
                const int64_t cnt = (od1 - od0) * pg_max(0, u1 - u0);
                if (cnt > PG_TMAX && R > 1) {
                    R = 1;
                    continue;
                }
                for (int64_t od = od0; od < od1; od++)
                    for (int64_t oh = u0; oh < u1; oh++) {
                        unsigned m = 0;
                        for (int r = 0; r < R; r++)
                            if (oh >= ob[r] && oh < oe[r])
                                m |= 1u << r;
                        if (!m)
                            continue;
                        toff[T] = (((n * C + c) * OD + od) * OH + oh) * OW;
                        tmask[T] = m;
                        T++;
                    }
                break;
            }
            char *dst[PG_RB];
            for (int r = 0; r < R; r++)
                dst[r] = pr->gi + (n * gs[PG_N] + c * gs[PG_C] + d * gs[PG_D] + (h + r) * gs[PG_H] + wb) * es;
            pg_rows_block_chunks(qws, toff, tmask, T, 0, ch, nch, dst, R, es, dt);
            row += R;
            pg_block_advance(R, IH, ID, C, &h, &d, &c, &n);
        }
    }
}

/*
 * The banded pre-divided run (_nchw_b): the same blocked walk as rowsq_block_run_dt, but the q rows come
 * from a small stack cache filled inside run (same division as the prepare pass), so q never goes to
 * memory and there is no prepare pass. Rows of the cache are W blocks of q rows (od, oh), direct-mapped
 * with tags; SD >= the od rows of one gradInput row and SH >= the oh rows of a row block, so the rows of
 * one block never evict each other.
 */
#define PG_BQ 4096    /* cached q floats (16 KiB) */
#define PG_BL 1024    /* longest cached row */
#define PG_BSLOTS 512 /* cached rows */

/* windows covering one index: <= ceil(k / s); covering one of PG_RB consecutive indices: <= ceil((k + PG_RB - 1) / s) */
static inline int64_t pg_band_sd(const poolgrad_problem *pr) { return pg_ceil_div(pr->k[0], pr->s[0]); }
static inline int64_t pg_band_sh(const poolgrad_problem *pr) { return pg_ceil_div(pr->k[1] + PG_RB - 1, pr->s[1]); }

static bool rowsb_supports(const poolgrad_problem *pr)
{
    if (!(pg_gi_rows(pr) && pg_div_small(pr) && pg_rows_terms_ok(pr)))
        return false;
    if (pr->k[0] > (1 << 20) || pr->k[1] > (1 << 20))
        return false;
    const int64_t wblk = pg_min(pr->in[2], PG_WCH * VL);
    const int64_t lb = pg_ceil_div((wblk - 1) / pr->s[2] + 1 + pg_max(2 * VL, pg_span_bound(pr)), VL) * VL;
    const int64_t sd = pg_band_sd(pr), sh = pg_band_sh(pr);
    return lb <= PG_BL && sd * sh <= PG_BSLOTS && sd * sh * lb <= PG_BQ;
}

PG_AI void rowsb_run_dt(const poolgrad_problem *pr, int64_t begin, int64_t end, int dt)
{
    const int64_t es = pg_es(dt);
    const int64_t C = pr->c, ID = pr->in[0], IH = pr->in[1], IW = pr->in[2];
    const int64_t OD = pr->out[0], OH = pr->out[1], OW = pr->out[2];
    const int64_t *gs = pr->gi_stride, *os = pr->go_stride;
    const bool ovr = pr->divisor_override != 0;
    const float ovf = (float)pr->divisor_override;
    const bool unit = pg_unit(OW, os[PG_W]);
    const int64_t SD = pg_min(pg_band_sd(pr), pg_max(OD, 1));
    const char *const go_end = pg_go_end(pr, es);
    _Alignas(64) float qc[PG_BQ];
    float fwt[PG_BL];
    int64_t tag[PG_BSLOTS];
    pg_wchunk ch[PG_WCH];
    int64_t toff[PG_TMAX];
    unsigned tmask[PG_TMAX];
    pg_axis axes[2];
    const pg_axis *axd = &axes[0], *axh = &axes[1];
    pg_axis_init(&axes[0], pr, 0);
    pg_axis_init(&axes[1], pr, 1);
    for (int64_t wb = 0; wb < IW; wb += PG_WCH * VL) {
        const int64_t we = pg_min(IW, wb + PG_WCH * VL);
        const int nch = pg_build_chunks(pr, wb, we, ch);
        /* the band: q rows (od, oh) of this W block, slot (od % SD) * SH + oh % SH, tagged */
        const int64_t owlo = ch[0].base;
        int64_t maxspan = 2 * VL;
        for (int i = 0; i < nch; i++)
            maxspan = pg_max(maxspan, ch[i].span);
        const int64_t Lr = pg_ceil_div(ch[nch - 1].base - owlo + maxspan, VL) * VL;
        const int64_t SH = pg_min(pg_min(pg_max(OH, 1), PG_BQ / (SD * Lr)), PG_BSLOTS / SD);
        for (int64_t t = 0; t < Lr; t++)
            fwt[t] = !ovr && owlo + t < OW ? (float)pg_factor(pr, 2, owlo + t) : 1.0f;
        for (int64_t sl = 0; sl < SD * SH; sl++)
            tag[sl] = -1;
        memset(qc, 0, (size_t)(SD * SH * Lr) * sizeof(float));
        int64_t h = begin % IH, t0 = begin / IH, d = t0 % ID;
        t0 /= ID;
        int64_t c = t0 % C, n = t0 / C;
        for (int64_t row = begin; row < end;) {
            int64_t od0, od1;
            pg_axis_range(axd, pr, d, &od0, &od1);
            /* the block: rows h .. h + R - 1 of this plane, R limited by the term budget */
            int R = (int)pg_min(pg_min(PG_RB, IH - h), end - row);
            int64_t ob[PG_RB] = { 0 }, oe[PG_RB] = { 0 };
            int T;
            for (;;) {
                int64_t u0, u1;
                pg_block_h_ranges(axh, pr, h, R, ob, oe, &u0, &u1);
                T = 0;
                const int64_t cnt = (od1 - od0) * pg_max(0, u1 - u0);
                if ((cnt > PG_TMAX || u1 - u0 > SH) && R > 1) {
                    R = 1;
                    continue;
                }
                for (int64_t od = od0; od < od1; od++)
                    for (int64_t oh = u0; oh < u1; oh++) {
                        unsigned m = 0;
                        for (int r = 0; r < R; r++)
                            if (oh >= ob[r] && oh < oe[r])
                                m |= 1u << r;
                        if (!m)
                            continue;
                        const int64_t key = ((n * C + c) * OD + od) * OH + oh;
                        const int64_t sl = (od % SD) * SH + oh % SH;
                        float *qrow = qc + sl * Lr;
                        if (tag[sl] != key) { /* divide the row once: the same division as the prepare pass */
                            tag[sl] = key;
                            const char *g = pr->go + (n * os[PG_N] + c * os[PG_C] + od * os[PG_D] + oh * os[PG_H]) * es;
                            const vf fdh = vf_set1(ovr ? ovf : (float)(pg_factor(pr, 0, od) * pg_factor(pr, 1, oh)));
                            /* lanes past OW (full loads that stay inside the view, or the zeroed slack)
                             * are never picked */
                            for (int64_t t = 0; t < Lr && owlo + t < OW; t += VL) {
                                const int64_t ow = owlo + t, nl = pg_min(VL, OW - ow);
                                const char *gp = g + ow * es;
                                const vf x = unit ? (gp + VL * es <= go_end ? pg_ld(gp, dt) : pg_ld_n(gp, nl, dt))
                                                  : pg_ld_strided(g + ow * os[PG_W] * es, os[PG_W] * es, nl, dt);
                                const vf dv = ovr ? fdh : vf_mul(fdh, vf_loadu(fwt + t));
                                vf_storeu(qrow + t, vf_div(x, dv));
                            }
                        }
                        toff[T] = sl * Lr; /* band row start; column ow lives at ow - owlo */
                        tmask[T] = m;
                        T++;
                    }
                break;
            }
            char *dst[PG_RB];
            for (int r = 0; r < R; r++)
                dst[r] = pr->gi + (n * gs[PG_N] + c * gs[PG_C] + d * gs[PG_D] + (h + r) * gs[PG_H] + wb) * es;
            pg_rows_block_chunks(qc, toff, tmask, T, owlo, ch, nch, dst, R, es, dt);
            row += R;
            pg_block_advance(R, IH, ID, C, &h, &d, &c, &n);
        }
    }
}

static void rowsb_run(const poolgrad_problem *pr, void *ws, int64_t begin, int64_t end)
{
    (void)ws;
    switch (pr->dtype) {
    case POOLGRAD_F16: rowsb_run_dt(pr, begin, end, POOLGRAD_F16); break;
    case POOLGRAD_BF16: rowsb_run_dt(pr, begin, end, POOLGRAD_BF16); break;
    default: rowsb_run_dt(pr, begin, end, POOLGRAD_F32); break;
    }
}

static void rowsq_run(const poolgrad_problem *pr, void *ws, int64_t begin, int64_t end)
{
    switch (pr->dtype) {
    case POOLGRAD_F16: rowsq_block_run_dt(pr, ws, begin, end, POOLGRAD_F16); break;
    case POOLGRAD_BF16: rowsq_block_run_dt(pr, ws, begin, end, POOLGRAD_BF16); break;
    default: rowsq_block_run_dt(pr, ws, begin, end, POOLGRAD_F32); break;
    }
}

/* ================================================================ channels-last (NHWC / NDHWC) */

#define PG_CU 4 /* vectors per channel block */
#define PG_CLG 8   /* rows sharing their windows, computed once */
#define PG_CLP 32  /* pixels sharing their windows, computed once */

/*
 * One channel block of nv (1..PG_CU, a constant after inlining) full vectors, or one partial vector of nl
 * lanes when nv == 0, at channel c of one pixel. Terms: window rows tt (od, oh) of the pixel's row, then ow.
 */
PG_AI void cl_block(const poolgrad_problem *pr, const float *qws, const char *go_end, char *const *dst, int ndst,
                    int64_t c, int nv, int64_t nl, int T, const int64_t *tbase, const int64_t *tfd, int64_t ow0,
                    int64_t ow1, const pg_axis *axw, int dt, bool use_q, int64_t qpitch)
{
    const int64_t es = pg_es(dt);
    const int64_t wstep = pr->go_stride[PG_W] * es;
    const bool ovr = pr->divisor_override != 0;
    const float ovf = (float)pr->divisor_override;
    vf acc[PG_CU];
    for (int u = 0; u < PG_CU; u++)
        acc[u] = vf_zero();
    for (int tt = 0; tt < T; tt++) {
        for (int64_t ow = ow0; ow < ow1; ow++) {
            if (use_q) {
                const float *q = qws + (tbase[tt] + ow * qpitch + c); /* the workspace has VL floats of slack */
                if (nv == 0) {
                    acc[0] = vf_add(acc[0], vf_loadu(q));
                } else {
                    for (int u = 0; u < nv; u++)
                        acc[u] = vf_add(acc[u], vf_loadu(q + u * VL));
                }
            } else {
                const vf dv = vf_set1(ovr ? ovf : (float)(tfd[tt] * pg_axis_factor(axw, pr, ow)));
                const char *g = pr->go + tbase[tt] + ow * wstep + c * es;
                if (nv == 0) {
                    vf x = g + VL * es <= go_end ? pg_ld(g, dt) : pg_ld_n(g, nl, dt);
                    acc[0] = vf_add(acc[0], vf_div(x, dv));
                } else {
                    for (int u = 0; u < nv; u++)
                        acc[u] = vf_add(acc[u], vf_div(pg_ld(g + u * VL * es, dt), dv));
                }
            }
        }
    }
    if (nv == 0) {
        if (dt == POOLGRAD_F32) {
            for (int r = 0; r < ndst; r++)
                pg_st_n(dst[r] + c * es, acc[0], nl, dt);
        } else { /* narrow once */
            char buf[VL * 4];
            pg_st(buf, acc[0], dt);
            for (int r = 0; r < ndst; r++)
                pg_copy_small(dst[r] + c * es, buf, (size_t)(nl * es));
        }
    } else {
        if (dt == POOLGRAD_F32 || ndst == 1) {
            for (int r = 0; r < ndst; r++) /* pixel by pixel: sequential stores */
                for (int u = 0; u < nv; u++)
                    pg_st(dst[r] + (c + u * VL) * es, acc[u], dt);
        } else { /* narrow once, store the same bits to every pixel */
            vi bits[PG_CU];
            for (int u = 0; u < nv; u++)
                bits[u] = dt == POOLGRAD_F16 ? vf_to_f16(acc[u]) : vf_to_bf16(acc[u]);
            for (int r = 0; r < ndst; r++)
                for (int u = 0; u < nv; u++)
                    vi_store_u16(dst[r] + (c + u * VL) * es, bits[u]);
        }
    }
}

PG_AI void cl_run_dt(const poolgrad_problem *pr, const float *qws, int64_t begin, int64_t end, int dt, bool use_q)
{
    const int64_t es = pg_es(dt);
    const int64_t C = pr->c, ID = pr->in[0], IH = pr->in[1], IW = pr->in[2];
    const int64_t OD = pr->out[0], OH = pr->out[1], OW = pr->out[2];
    const int64_t *gs = pr->gi_stride, *os = pr->go_stride;
    const bool ovr = pr->divisor_override != 0;
    const char *const go_end = use_q ? NULL : pg_go_end(pr, es);
    pg_axis axes[3];
    for (int a = 0; a < 3; a++)
        pg_axis_init(&axes[a], pr, a);
    const pg_axis *axd = &axes[0], *axh = &axes[1], *axw = &axes[2];
    int64_t tbase[PG_TMAX], tfd[PG_TMAX];
    int64_t h = begin % IH, t0 = begin / IH, d = t0 % ID, n = t0 / ID;
    for (int64_t row = begin; row < end;) {
        int64_t od0, od1, oh0, oh1;
        pg_axis_range(axd, pr, d, &od0, &od1);
        pg_axis_range(axh, pr, h, &oh0, &oh1);
        /* one gradInput row at a time: grouping rows that share their windows (computing them once)
         * interleaves stores to several rows, measured slower in every dtype than recomputing
         * (k2s2 bf16: 857 -> 642 us); pixels sharing their windows are still grouped below */
        char *grow[PG_CLG];
        const int64_t gn = n;
        int g = 0;
        for (;;) {
            grow[g++] = pr->gi + (n * gs[PG_N] + d * gs[PG_D] + h * gs[PG_H]) * es;
            bool wrap = false;
            if (++h == IH) {
                h = 0;
                if (++d == ID) {
                    d = 0;
                    n++;
                    wrap = true;
                }
            }
            if (wrap || row + g >= end || g == 1)
                break;
            int64_t a0, a1, b0, b1;
            pg_axis_range(axd, pr, d, &a0, &a1);
            pg_axis_range(axh, pr, h, &b0, &b1);
            if (a0 != od0 || a1 != od1 || b0 != oh0 || b1 != oh1)
                break;
        }
        int T = 0;
        for (int64_t od = od0; od < od1; od++) {
            const int64_t fd = ovr ? 1 : pg_axis_factor(axd, pr, od);
            for (int64_t oh = oh0; oh < oh1; oh++, T++) {
                tbase[T] = use_q ? ((gn * OD + od) * OH + oh) * OW * C
                                 : (gn * os[PG_N] + od * os[PG_D] + oh * os[PG_H]) * es;
                tfd[T] = ovr ? 1 : fd * pg_axis_factor(axh, pr, oh);
            }
        }
        for (int64_t w = 0; w < IW;) {
            int64_t ow0, ow1;
            pg_axis_range(axw, pr, w, &ow0, &ow1);
            /* and following pixels with the same windows */
            int64_t w2 = w + 1;
            while (dt != POOLGRAD_F32 && w2 < IW && (w2 - w + 1) * g <= PG_CLP) {
                int64_t b0, b1;
                pg_axis_range(axw, pr, w2, &b0, &b1);
                if (b0 != ow0 || b1 != ow1)
                    break;
                w2++;
            }
            char *dst[PG_CLP];
            int nd = 0;
            for (int r = 0; r < g; r++)
                for (int64_t ww = w; ww < w2; ww++)
                    dst[nd++] = grow[r] + ww * gs[PG_W] * es;
            int64_t c = 0;
            for (; c + PG_CU * VL <= C; c += PG_CU * VL)
                cl_block(pr, qws, go_end, dst, nd, c, PG_CU, VL, T, tbase, tfd, ow0, ow1, axw, dt, use_q, C);
            switch ((C - c) / VL) {
            case 3: cl_block(pr, qws, go_end, dst, nd, c, 3, VL, T, tbase, tfd, ow0, ow1, axw, dt, use_q, C); c += 3 * VL; break;
            case 2: cl_block(pr, qws, go_end, dst, nd, c, 2, VL, T, tbase, tfd, ow0, ow1, axw, dt, use_q, C); c += 2 * VL; break;
            case 1: cl_block(pr, qws, go_end, dst, nd, c, 1, VL, T, tbase, tfd, ow0, ow1, axw, dt, use_q, C); c += VL; break;
            default: break;
            }
            if (c < C)
                cl_block(pr, qws, go_end, dst, nd, c, 0, C - c, T, tbase, tfd, ow0, ow1, axw, dt, use_q, C);
            w = w2;
        }
        row += g;
    }
}

static int64_t cl_items(const poolgrad_problem *pr) { return pr->n * pr->in[0] * pr->in[1]; }

static bool pg_cl_terms_ok(const poolgrad_problem *pr)
{
    return pg_ceil_div(pr->k[0], pr->s[0]) * pg_ceil_div(pr->k[1], pr->s[1]) <= PG_TMAX;
}

static bool cl_supports(const poolgrad_problem *pr)
{
    return pg_gi_cl(pr) && pg_cl_terms_ok(pr) && (pg_go_empty(pr) || pg_unit(pr->c, pr->go_stride[PG_C]));
}

/* measured: the direct kernel divides (and widens f16/bf16) once per term; in f32 that beats the extra
 * workspace pass up to about 8 terms per element, in f16/bf16 only with one term */
static bool cl_preferred(const poolgrad_problem *pr)
{
    int64_t terms = pg_ceil_div(pr->k[0], pr->s[0]) * pg_ceil_div(pr->k[1], pr->s[1]) * pg_ceil_div(pr->k[2], pr->s[2]);
    return terms <= (pr->dtype == POOLGRAD_F32 ? 8 : 1);
}

static void cl_run(const poolgrad_problem *pr, void *ws, int64_t begin, int64_t end)
{
    (void)ws;
    switch (pr->dtype) {
    case POOLGRAD_F16: cl_run_dt(pr, NULL, begin, end, POOLGRAD_F16, false); break;
    case POOLGRAD_BF16: cl_run_dt(pr, NULL, begin, end, POOLGRAD_BF16, false); break;
    default: cl_run_dt(pr, NULL, begin, end, POOLGRAD_F32, false); break;
    }
}

static bool clq_supports(const poolgrad_problem *pr) { return pg_gi_cl(pr) && pg_cl_terms_ok(pr); }

/* q[n, od, oh, ow, c] in f32, plus VL floats of slack for full-vector loads of a channel tail */
static size_t clq_workspace(const poolgrad_problem *pr)
{
    return (size_t)((pg_go_empty(pr) ? 0 : pr->n * pr->out[0] * pr->out[1] * pr->out[2] * pr->c) + VL) * 4u;
}

static int64_t clq_prepare_items(const poolgrad_problem *pr)
{
    return pg_go_empty(pr) ? 0 : pr->n * pr->out[0] * pr->out[1];
}

PG_AI void clq_prepare_dt(const poolgrad_problem *pr, float *qws, int64_t begin, int64_t end, int dt)
{
    const int64_t es = pg_es(dt);
    const int64_t C = pr->c, OD = pr->out[0], OH = pr->out[1], OW = pr->out[2];
    const int64_t *os = pr->go_stride;
    const bool ovr = pr->divisor_override != 0;
    const float ovf = (float)pr->divisor_override;
    const bool unit = pg_unit(C, os[PG_C]);
    for (int64_t r = begin; r < end; r++) {
        int64_t oh = r % OH, t = r / OH, od = t % OD, n = t / OD;
        const int64_t fdh = ovr ? 1 : pg_factor(pr, 0, od) * pg_factor(pr, 1, oh);
        for (int64_t ow = 0; ow < OW; ow++) {
            const vf dv = vf_set1(ovr ? ovf : (float)(fdh * pg_factor(pr, 2, ow)));
            const char *g = pr->go + (n * os[PG_N] + od * os[PG_D] + oh * os[PG_H] + ow * os[PG_W]) * es;
            float *q = qws + (r * OW + ow) * C;
            for (int64_t c = 0; c < C; c += VL) {
                int64_t nl = pg_min(VL, C - c);
                vf x = unit ? (nl == VL ? pg_ld(g + c * es, dt) : pg_ld_n(g + c * es, nl, dt))
                            : pg_ld_strided(g + c * os[PG_C] * es, os[PG_C] * es, nl, dt);
                vf v = vf_div(x, dv);
                if (nl == VL)
                    vf_storeu(q + c, v);
                else
                    pg_st_n((char *)(q + c), v, nl, POOLGRAD_F32);
            }
        }
    }
}

static void clq_prepare(const poolgrad_problem *pr, void *ws, int64_t begin, int64_t end)
{
    if (end == clq_prepare_items(pr)) /* defined slack for the full-vector loads of a channel tail */
        memset((float *)ws + pr->n * pr->out[0] * pr->out[1] * pr->out[2] * pr->c, 0, VL * sizeof(float));
    switch (pr->dtype) {
    case POOLGRAD_F16: clq_prepare_dt(pr, ws, begin, end, POOLGRAD_F16); break;
    case POOLGRAD_BF16: clq_prepare_dt(pr, ws, begin, end, POOLGRAD_BF16); break;
    default: clq_prepare_dt(pr, ws, begin, end, POOLGRAD_F32); break;
    }
}

static void clq_run(const poolgrad_problem *pr, void *ws, int64_t begin, int64_t end)
{
    switch (pr->dtype) {
    case POOLGRAD_F16: cl_run_dt(pr, ws, begin, end, POOLGRAD_F16, true); break;
    case POOLGRAD_BF16: cl_run_dt(pr, ws, begin, end, POOLGRAD_BF16, true); break;
    default: cl_run_dt(pr, ws, begin, end, POOLGRAD_F32, true); break;
    }
}

/*
 * The banded channels-last run (_nhwc_b): like _nhwc_q, but the q values are divided inside run into a
 * 24 KiB stack band (same division as the prepare pass), so q never goes to memory. Rows are taken in
 * groups of PG_CBR; within a group, channel blocks of Cb channels (so that one gradInput row's window
 * rows of one block fit the band), then rows. The band holds the window rows (od, oh) x OW x Cb,
 * direct-mapped (od % SD) * SH + oh % SH with tags; SD, SH >= the window rows of one gradInput row, so a
 * row's own rows never evict each other. The gradInput rows of a group stay in cache between blocks.
 */
#define PG_CBQ 6144 /* band floats */
#define PG_CBS 64   /* band slots */
#define PG_CBR 16   /* rows per group */

static inline int64_t pg_clb_sd(const poolgrad_problem *pr) { return pg_min(pg_ceil_div(pr->k[0], pr->s[0]), pg_max(pr->out[0], 1)); }
static inline int64_t pg_clb_sh(const poolgrad_problem *pr) { return pg_min(pg_ceil_div(pr->k[1], pr->s[1]), pg_max(pr->out[1], 1)); }

/* channels per block (a multiple of VL), 0 if the band cannot hold VL channels */
static int64_t pg_clb_cb(const poolgrad_problem *pr)
{
    if (pr->k[0] > (1 << 20) || pr->k[1] > (1 << 20) || pr->out[2] > PG_CBQ)
        return 0;
    const int64_t slots = pg_clb_sd(pr) * pg_clb_sh(pr);
    if (slots > PG_CBS)
        return 0;
    const int64_t cmax = (PG_CBQ - VL) / (slots * pg_max(pr->out[2], 1)) / VL * VL;
    if (cmax < VL)
        return 0;
    const int64_t nb = pg_ceil_div(pr->c, cmax); /* as few blocks as fit, of even size */
    return pg_ceil_div(pg_ceil_div(pr->c, nb), VL) * VL;
}

static bool clb_supports(const poolgrad_problem *pr)
{
    return pg_gi_cl(pr) && pg_cl_terms_ok(pr) && pg_clb_cb(pr) >= VL;
}

/* measured: with one od row per gradInput row (2D) the band wins over the workspace pass; with more
 * (3D k3s2), the rows of the other od planes are evicted while h sweeps, and recomputing them loses */
static bool clb_preferred(const poolgrad_problem *pr) { return pg_clb_sd(pr) == 1; }

PG_AI void clb_run_dt(const poolgrad_problem *pr, int64_t begin, int64_t end, int dt)
{
    const int64_t es = pg_es(dt);
    const int64_t C = pr->c, ID = pr->in[0], IH = pr->in[1], IW = pr->in[2];
    const int64_t OW = pr->out[2];
    const int64_t *gs = pr->gi_stride, *os = pr->go_stride;
    const bool ovr = pr->divisor_override != 0;
    const float ovf = (float)pr->divisor_override;
    const bool unit = pg_unit(C, os[PG_C]);
    const int64_t SD = pg_clb_sd(pr), SH = pg_clb_sh(pr), Cb = pg_clb_cb(pr);
    _Alignas(64) float qc[PG_CBQ];
    int64_t tag[PG_CBS];
    pg_axis axes[3];
    for (int a = 0; a < 3; a++)
        pg_axis_init(&axes[a], pr, a);
    const pg_axis *axd = &axes[0], *axh = &axes[1], *axw = &axes[2];
    int64_t tbase[PG_TMAX], tfd[PG_TMAX];
    memset(qc, 0, sizeof qc); /* defined slack lanes */
    for (int64_t r0 = begin; r0 < end; r0 += PG_CBR) {
        const int64_t r1 = pg_min(end, r0 + PG_CBR);
        for (int64_t cb0 = 0; cb0 < C; cb0 += Cb) {
            const int64_t cbn = pg_min(Cb, C - cb0), ce = cb0 + cbn;
            for (int64_t sl = 0; sl < SD * SH; sl++)
                tag[sl] = -1;
            for (int64_t row = r0; row < r1; row++) {
                const int64_t h = row % IH, t0 = row / IH, d = t0 % ID, n = t0 / ID;
                int64_t od0, od1, oh0, oh1;
                pg_axis_range(axd, pr, d, &od0, &od1);
                pg_axis_range(axh, pr, h, &oh0, &oh1);
                char *grow = pr->gi + (n * gs[PG_N] + d * gs[PG_D] + h * gs[PG_H]) * es;
                int T = 0;
                for (int64_t od = od0; od < od1; od++) {
                    for (int64_t oh = oh0; oh < oh1; oh++, T++) {
                        const int64_t key = (n * pr->out[0] + od) * pr->out[1] + oh;
                        const int64_t sl = (od % SD) * SH + oh % SH;
                        float *qrow = qc + sl * OW * Cb;
                        if (tag[sl] != key) { /* divide the row's block once: the prepare pass's division */
                            tag[sl] = key;
                            const int64_t fdh = ovr ? 1 : pg_axis_factor(axd, pr, od) * pg_axis_factor(axh, pr, oh);
                            for (int64_t ow = 0; ow < OW; ow++) {
                                const vf dv = vf_set1(ovr ? ovf : (float)(fdh * pg_axis_factor(axw, pr, ow)));
                                const char *g = pr->go + (n * os[PG_N] + od * os[PG_D] + oh * os[PG_H] + ow * os[PG_W] + cb0 * os[PG_C]) * es;
                                float *q = qrow + ow * Cb;
                                for (int64_t c = 0; c < cbn; c += VL) {
                                    const int64_t nl = pg_min(VL, cbn - c);
                                    const vf x = unit ? (nl == VL ? pg_ld(g + c * es, dt) : pg_ld_n(g + c * es, nl, dt))
                                                      : pg_ld_strided(g + c * os[PG_C] * es, os[PG_C] * es, nl, dt);
                                    vf_storeu(q + c, vf_div(x, dv));
                                }
                            }
                        }
                        tbase[T] = sl * OW * Cb - cb0;
                        tfd[T] = 1;
                    }
                }
                for (int64_t w = 0; w < IW;) {
                    int64_t ow0, ow1;
                    pg_axis_range(axw, pr, w, &ow0, &ow1);
                    /* following pixels with the same windows get the same bits */
                    int64_t w2 = w + 1;
                    while (dt != POOLGRAD_F32 && w2 < IW && w2 - w + 1 <= PG_CLP) {
                        int64_t b0, b1;
                        pg_axis_range(axw, pr, w2, &b0, &b1);
                        if (b0 != ow0 || b1 != ow1)
                            break;
                        w2++;
                    }
                    char *dst[PG_CLP];
                    int nd = 0;
                    for (int64_t ww = w; ww < w2; ww++)
                        dst[nd++] = grow + ww * gs[PG_W] * es;
                    int64_t c = cb0;
                    for (; c + PG_CU * VL <= ce; c += PG_CU * VL)
                        cl_block(pr, qc, NULL, dst, nd, c, PG_CU, VL, T, tbase, tfd, ow0, ow1, axw, dt, true, Cb);
                    switch ((ce - c) / VL) {
                    case 3: cl_block(pr, qc, NULL, dst, nd, c, 3, VL, T, tbase, tfd, ow0, ow1, axw, dt, true, Cb); c += 3 * VL; break;
                    case 2: cl_block(pr, qc, NULL, dst, nd, c, 2, VL, T, tbase, tfd, ow0, ow1, axw, dt, true, Cb); c += 2 * VL; break;
                    case 1: cl_block(pr, qc, NULL, dst, nd, c, 1, VL, T, tbase, tfd, ow0, ow1, axw, dt, true, Cb); c += VL; break;
                    default: break;
                    }
                    if (c < ce)
                        cl_block(pr, qc, NULL, dst, nd, c, 0, ce - c, T, tbase, tfd, ow0, ow1, axw, dt, true, Cb);
                    w = w2;
                }
            }
        }
    }
}

static void clb_run(const poolgrad_problem *pr, void *ws, int64_t begin, int64_t end)
{
    (void)ws;
    switch (pr->dtype) {
    case POOLGRAD_F16: clb_run_dt(pr, begin, end, POOLGRAD_F16); break;
    case POOLGRAD_BF16: clb_run_dt(pr, begin, end, POOLGRAD_BF16); break;
    default: clb_run_dt(pr, begin, end, POOLGRAD_F32); break;
    }
}

/* ================================================================ the kernel table entries */

const poolgrad_kernel PG_KSYM(global) = {
    .name = PG_NAME("global"), .isa = PG_ISA, .supports = global_supports, .preferred = NULL,
    .workspace_size = NULL, .prepare_items = NULL, .prepare = NULL, .work_items = global_items, .run = global_run,
};

const poolgrad_kernel PG_KSYM(nchw) = {
    .name = PG_NAME("nchw"), .isa = PG_ISA, .supports = rows_supports, .preferred = rows_preferred,
    .workspace_size = NULL, .prepare_items = NULL, .prepare = NULL, .work_items = rows_items, .run = rows_run,
};

const poolgrad_kernel PG_KSYM(nchw_b) = {
    .name = PG_NAME("nchw_b"), .isa = PG_ISA, .supports = rowsb_supports, .preferred = NULL,
    .workspace_size = NULL, .prepare_items = NULL, .prepare = NULL, .work_items = rows_items, .run = rowsb_run,
};

const poolgrad_kernel PG_KSYM(nchw_q) = {
    .name = PG_NAME("nchw_q"), .isa = PG_ISA, .supports = rowsq_supports, .preferred = NULL,
    .workspace_size = rowsq_workspace, .prepare_items = rowsq_prepare_items, .prepare = rowsq_prepare,
    .work_items = rows_items, .run = rowsq_run,
};

const poolgrad_kernel PG_KSYM(nhwc) = {
    .name = PG_NAME("nhwc"), .isa = PG_ISA, .supports = cl_supports, .preferred = cl_preferred,
    .workspace_size = NULL, .prepare_items = NULL, .prepare = NULL, .work_items = cl_items, .run = cl_run,
};

const poolgrad_kernel PG_KSYM(nhwc_b) = {
    .name = PG_NAME("nhwc_b"), .isa = PG_ISA, .supports = clb_supports, .preferred = clb_preferred,
    .workspace_size = NULL, .prepare_items = NULL, .prepare = NULL, .work_items = cl_items, .run = clb_run,
};

const poolgrad_kernel PG_KSYM(nhwc_q) = {
    .name = PG_NAME("nhwc_q"), .isa = PG_ISA, .supports = clq_supports, .preferred = NULL,
    .workspace_size = clq_workspace, .prepare_items = clq_prepare_items, .prepare = clq_prepare,
    .work_items = cl_items, .run = clq_run,
};
