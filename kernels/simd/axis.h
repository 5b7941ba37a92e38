/*
 * Internal, part of the SIMD kernel template (kernels_tmpl.h): the window tables of one run call,
 * all on the stack.
 *   pg_axis    per axis: the covering-window range of every input index and the divisor factor of
 *              every window (axes longer than PG_AXMAX compute them on the fly); the H ranges of a
 *              block of consecutive rows and their union (pg_block_h_ranges), and the block rows one window
 *              row covers (pg_block_row_mask)
 *   pg_wchunk  per W chunk of VL gradInput lanes: each lane's first window and window count, for the
 *              masked picks of the W-vectorized kinds (vlanes_load)
 */
#ifndef POOLGRAD_KERNELS_SIMD_AXIS_H
#define POOLGRAD_KERNELS_SIMD_AXIS_H

/* divisor factor of window o along axis a: its padded or clipped extent */
static inline int64_t pg_factor(const poolgrad_problem *pr, int a, int64_t o)
{
    int64_t pool, cnt;
    poolgrad_window_extent(o, pr->in[a], pr->k[a], pr->s[a], pr->p[a], &pool, &cnt);
    return pr->count_include_pad ? pool : cnt;
}

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

/* the windows [*b, *e) covering input index x (empty: *e == *b) */
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

/*
 * t[o] = pg_dfac of axis factor o for every window o, when the axis is tabulated and every divisor is
 * exact in float (pg_div_small): then a divisor's factor is the product of its axes' t entries, exactly
 * (integers up to 2^24, or powers of two), and the row walks multiply two floats instead of computing
 * pg_dfac of an int64 product. Returns t, or NULL (t unused).
 */
PG_AI const float *pg_axis_dfacs(const pg_axis *ax, const poolgrad_problem *pr, float *t)
{
    if (!ax->tab || !pg_div_small(pr))
        return NULL;
    for (int64_t o = 0; o < pr->out[ax->a]; o++)
        t[o] = pg_dfac(pr, ax->f[o]);
    return t;
}

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

/* The block rows (bit r: row h + r) whose H windows [ob[r], oe[r]) include window row o. */
PG_AI unsigned pg_block_row_mask(const int64_t *ob, const int64_t *oe, int R, int64_t o)
{
    unsigned m = 0;
    for (int r = 0; r < R; r++)
        if (o >= ob[r] && o < oe[r])
            m |= 1u << r;
    return m;
}

/* ---- W chunks */

typedef struct pg_wchunk {
    int64_t base;    /* first window index of lane 0 (windows are non-decreasing along W) */
    int32_t maxc;    /* max windows per lane */
    int32_t span;    /* windows touched: base .. base + span - 1 */
    int32_t nl;      /* lanes in the row (tail chunk may be short) */
    int32_t rel[VL]; /* first window of each lane, minus base */
    int32_t cnt[VL]; /* windows of each lane (0 outside the row) */
} pg_wchunk;

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

PG_AI vlanes pg_chunk_lanes(const pg_wchunk *c) { return vlanes_load(c->rel, c->cnt); }

#endif
