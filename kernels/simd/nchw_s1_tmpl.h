/*
 * Template: _nchw_s1 and _nchw_s2, the W-vectorized kernels for stride 1 and 2 along W (one code, S a
 * constant). Included once per ISA translation unit
 * by kernels_tmpl.h, after nchw_tmpl.h (it shares the W-row blocking pg_nchw_conf).
 *
 * Template parameters (defined by the including translation unit):
 *   PG_ISA        the poolgrad_isa the kernel is dispatched as
 *   PG_ISA_NAME   the kernel name prefix, used through PG_NAME
 *   PG_KSYM(x)    the symbol of kernel x
 * Defines: const poolgrad_kernel PG_KSYM(nchw_s1), PG_KSYM(nchw_s2).
 *
 * With stride 1 along W the windows covering column w are ow = w + p - k + 1 + j for j = 0 .. k - 1
 * (those inside [0, OW)), ascending with j. In a q row Q that is zero outside [0, OW), the j-th term of
 * VL consecutive columns is then one unaligned load at offset j: no lane selection, no per-lane window
 * tables. An absent window adds +0.0, which is exact (acc is never -0.0). Each gradInput row walks its
 * window rows (od, oh) in ascending order, so every element gets the reference's terms in its order.
 * With stride 2 (and k = 3) along W the even and odd columns of a block are summed apart, in the two
 * halves of a pair of accumulators, and interleaved when stored: with band column 0 at window lo =
 * ceil((wb + p - 2) / 2) (wb even), columns wb + 2 m and wb + 2 m + 1 take the band's columns m and m + 1
 * as the phase mask says (p odd: the even column m, the odd one m then m + 1; p even: the even one m then
 * m + 1, the odd one m + 1). So VL loads at offsets 0 and 1 give 2 VL columns every real term, in
 * ascending ow, and no add of a +0.0 that only spaces them.
 *
 * The band, for one W block (w_block columns, w_block / VL chunks) and one tile of tile_h gradInput rows
 * along H: the tile's oh rows of band_sd od slabs, slab od in slot od % band_sd with a tag, divided when
 * a row first needs it; then a zero row. A band row holds band_len floats (whole vectors): columns
 * lo .. lo + band_len - 1 of the gradOutput row (lo = wb + p - k + 1 with stride 1), zero outside it (the band is
 * zeroed once per W block and the division writes only the columns inside). Tiles keep the band small enough
 * for L1D while every slab of the tile is reused by the d planes that need it.
 * Rows run in blocks of PG_S1R (or PG_S1R / 2) of one (n, c, d) plane, so that rows x chunks accumulators
 * are in flight (one element's sum is a chain of dependent adds); a block row with fewer window rows than
 * another adds the zero row instead, unless the block's rows have the shape of a pattern with its own code
 * (nchw_s1_block_cover). The walk: planes (n, c), W blocks, tiles, d, row blocks.
 */
#ifndef PG_KSYM
#error "nchw_s1_tmpl.h is a template: include it from kernels_tmpl.h"
#endif

/* floats per band row for G chunks per W block: whole vectors, so that every row starts aligned and the
 * j = 0 loads never cross a cache line (stride 2: a vector and one float per pair of chunks) */
static inline int64_t pg_s1_len(const poolgrad_problem *pr, int64_t G, int S)
{
    return S == 1 ? pg_ceil_div(G * VL + pr->k[2] - 1, VL) * VL : ((G + 1) / 2 + 1) * VL;
}

/* band column 0 of the W block at wb: gradOutput column wb + p - k + 1 (stride 1), ceil((wb + p - 2) / 2) (stride 2) */
static inline int64_t pg_s1_lo(const poolgrad_problem *pr, int64_t wb, int S)
{
    const int64_t x = wb + pr->p[2] - pr->k[2] + 1; /* stride 2 takes k = 3 only: x >= -2 there */
    return S == 1 ? x : (x + 3) / 2 - 1;
}

/* the stride-2 phase mask: bit 0 / 1, the even column adds band column m / m + 1; bits 2 / 3, the odd one */
#define PG_S2_PODD 0xdu  /* p odd: even m; odd m, m + 1 */
#define PG_S2_PEVEN 0xbu /* p even: even m, m + 1; odd m + 1 */

/* oh rows that th consecutive gradInput rows need, at most */
static inline int64_t pg_s1_tile_rows(const poolgrad_problem *pr, int64_t th)
{
    return pg_min(pg_ceil_div(pr->k[1] + th - 1, pr->s[1]), pg_max(pr->out[1], 1));
}

PG_AI bool nchw_s1_configure_s(const poolgrad_problem *pr, poolgrad_kernel_conf *conf, const int S)
{
    if (!(pg_gi_rows(pr) && pg_div_small(pr) && pg_band_k_ok(pr) && pr->s[2] == S && (S == 1 ? pr->k[2] <= PG_S1K : pr->k[2] == 3)))
        return false;
    const int64_t sd = pg_min(pg_ceil_div(pr->k[0], pr->s[0]), pg_max(pr->out[0], 1));
    const int64_t IH = pg_max(pr->in[1], 1);
    if (sd > PG_S1SD)
        return false;
    /* the widest W block (fewest halo columns) whose band holds tiles of at least PG_S1TH rows (or every
     * row), then the tallest tile, then both spread evenly */
    const int64_t chunks = pg_max(pg_ceil_div(pr->in[2], VL), 1), s1 = pg_min(pr->s[1], (int64_t)1 << 30);
    for (int64_t G = pg_min(PG_S1G, chunks); G >= 1; G--) {
        const int64_t len = pg_s1_len(pr, G, S), cap = (PG_S1Q - len) / (sd * len); /* oh rows per slot */
        const int64_t th = pg_s1_tile_rows(pr, IH) <= cap ? IH : pg_min(IH, cap * s1 - pr->k[1] + 1);
        if (th < 1 || (th < pg_min(IH, PG_S1TH) && G > 1))
            continue;
        const int64_t gb = pg_ceil_div(chunks, pg_ceil_div(chunks, G)), R = PG_S1RG(gb);
        const int64_t even = pg_ceil_div(IH, pg_ceil_div(IH, th)), whole = pg_ceil_div(even, R) * R;
        /* whole blocks of rows in every tile but the last where the band has room: a tile's partial block
         * (and the pattern blocks it breaks) costs as much as a full one */
        const int64_t tb = even < IH && whole <= th ? whole : even;
        *conf = pg_nchw_conf(pr);
        conf->w_block = gb * VL;
        conf->tile_h = tb;
        conf->band_sd = sd;
        conf->band_sh = pg_s1_tile_rows(pr, tb);
        conf->band_len = pg_s1_len(pr, gb, S);
        conf->band_slabs = tb == IH;
        conf->stream_stores = pg_stream_worth(pr, conf->w_block);
        return true;
    }
    return false;
}
static bool nchw_s1_configure(const poolgrad_problem *pr, poolgrad_kernel_conf *conf) { return nchw_s1_configure_s(pr, conf, 1); }
static bool nchw_s2_configure(const poolgrad_problem *pr, poolgrad_kernel_conf *conf) { return nchw_s1_configure_s(pr, conf, 2); }

/* The sums of a block's first nr rows into gradInput: G chunks each, the last one nlast lanes wide (stride 2:
 * each pair of accumulators, even and odd columns, interleaved first). */
PG_AI void nchw_s1_store(vf (*acc)[PG_S1G], char *const *dst, int nr, int64_t nlast, const int G, const int R,
                         const int S, int64_t es, bool stream, poolgrad_dtype dt)
{
    if (S == 2)
        for (int r = 0; r < R; r++)
            for (int i = 0; i < G; i += 2) {
                const vf e = acc[r][i], o = acc[r][i + 1];
                acc[r][i] = vf_zip2_lo(e, o);
                acc[r][i + 1] = vf_zip2_hi(e, o);
            }
    for (int r = 0; r < R; r++)
        for (int i = 0; i < G; i++)
            if (r < nr) {
                char *d = dst[r] + (int64_t)i * VL * es;
                if (i < G - 1 || nlast == VL)
                    pg_st_stream(d, acc[r][i], dt, stream);
                else
                    pg_st_n(d, acc[r][i], nlast, dt);
            }
}

/* Stride 2: one pair of chunks' terms from a band row's vectors a (offset 0) and b (offset 1), as the phase mask
 * PH says */
PG_AI void nchw_s2_add_pair(vf *acc, const vf a, const vf b, const unsigned PH)
{
    if (PH & 1u)
        acc[0] = vf_add(acc[0], a);
    if (PH & 2u)
        acc[0] = vf_add(acc[0], b);
    if (PH & 4u)
        acc[1] = vf_add(acc[1], a);
    if (PH & 8u)
        acc[1] = vf_add(acc[1], b);
}

/* Stride 2: the terms of band row q for the pairs of chunks of a row's accumulators */
PG_AI void nchw_s2_add(vf *acc, const float *q, const int G, const unsigned PH)
{
    for (int i = 0; i < G; i += 2)
        nchw_s2_add_pair(acc + i, vf_in_reg(vf_loadu(q + i / 2 * VL)), vf_in_reg(vf_loadu(q + i / 2 * VL + 1)), PH);
}

/*
 * A block of R rows (nr of them real) of one plane, G chunks each: row r adds, for od in [od0, od1) and
 * t < nhmax, the band row (od, oh0[r] + t) (the zero row when t >= nh[r]) at offsets j = 0 .. k - 1 (stride 2:
 * nchw_s2_add). G and R are constants at every call, so the accumulators live in registers.
 */
PG_AI void nchw_s1_block(const float *qb, const float *zrow, int64_t SD, int64_t slab, int64_t len, int64_t od0,
                         int64_t od1, int64_t sl0, const int64_t *oh0, const int64_t *nh, int64_t nhmax, int64_t k, char *const *dst,
                         int nr, int64_t nlast, const int G, const int R, const int S, const unsigned PH, int64_t es,
                         bool stream, poolgrad_dtype dt)
{
    vf acc[PG_S1R][PG_S1G];
    for (int r = 0; r < R; r++)
        for (int i = 0; i < G + (S == 2 && G % 2); i++) /* stride 2: pairs */
            acc[r][i] = vf_zero();
    for (int64_t od = od0, sl = sl0; od < od1; od++, sl = sl + 1 == SD ? 0 : sl + 1) {
        const float *s = qb + sl * slab;
        for (int64_t t = 0; t < nhmax; t++) {
            const float *q[PG_S1R];
            for (int r = 0; r < R; r++)
                q[r] = t < nh[r] ? s + (oh0[r] + t) * len : zrow;
            if (S == 2)
                for (int r = 0; r < R; r++)
                    nchw_s2_add(acc[r], q[r], G, PH);
            else
                for (int64_t j = 0; j < k; j++)
                    for (int r = 0; r < R; r++)
                        for (int i = 0; i < G; i++)
                            acc[r][i] = vf_add(acc[r][i], vf_loadu(q[r] + i * VL + j));
        }
    }
    nchw_s1_store(acc, dst, nr, nlast, G, R, S, es, stream, dt);
}

/*
 * The same sums when all R rows are real and their oh rows are consecutive and known at compile time: row r
 * covers band rows oh0 + u for the u with bit r set in cover nibble u (covers, NU nibbles). Each of the
 * NU oh rows is loaded once and added to the rows it covers, in ascending (od, oh, ow) order for each of them.
 * The patterns (PG_S1_SLIDE4 ... below): stride 1 and k = 3 along H (a sliding window: half the loads of nchw_s1_block
 * at R = 4), and stride 2 with k = 3 (rows of one and two oh rows alternating: no zero row added).
 * covers, NU, G and R are constants at every call (the branches fold away).
 */
PG_AI void nchw_s1_cover_row(vf (*acc)[PG_S1G], const float *q, int64_t k, const unsigned cover, const int G, const int R,
                              const int S, const unsigned PH)
{
    if (S == 2) { /* each pair of vectors loaded once for all the rows it covers */
        for (int i = 0; i < G; i += 2) {
            const vf a = vf_in_reg(vf_loadu(q + i / 2 * VL)), b = vf_in_reg(vf_loadu(q + i / 2 * VL + 1));
            for (int r = 0; r < R; r++)
                if (cover >> r & 1u)
                    nchw_s2_add_pair(acc[r] + i, a, b, PH);
        }
        return;
    }
    for (int64_t j = 0; j < k; j++)
        for (int i = 0; i < G; i++) {
            const vf v = vf_in_reg(vf_loadu(q + i * VL + j));
            for (int r = 0; r < R; r++)
                if (cover >> r & 1u)
                    acc[r][i] = vf_add(acc[r][i], v);
        }
}

PG_AI void nchw_s1_block_cover(const float *qb, int64_t SD, int64_t slab, int64_t len, int64_t od0, int64_t od1,
                               int64_t sl0, int64_t oh0, int64_t k, char *const *dst, int64_t nlast, const unsigned covers,
                               const int NU, const int G, const int R, const int S, const unsigned PH, int64_t es, bool stream,
                               poolgrad_dtype dt)
{
    vf acc[PG_S1R][PG_S1G];
    for (int r = 0; r < R; r++)
        for (int i = 0; i < G + (S == 2 && G % 2); i++) /* stride 2: pairs */
            acc[r][i] = vf_zero();
    for (int64_t od = od0, sl = sl0; od < od1; od++, sl = sl + 1 == SD ? 0 : sl + 1) {
        const float *s = qb + sl * slab + oh0 * len;
        /* written out: a loop over u is not unrolled, and the cover tests stay branches */
        nchw_s1_cover_row(acc, s, k, covers & 15u, G, R, S, PH);
        if (NU > 1)
            nchw_s1_cover_row(acc, s + len, k, covers >> 4 & 15u, G, R, S, PH);
        if (NU > 2)
            nchw_s1_cover_row(acc, s + 2 * len, k, covers >> 8 & 15u, G, R, S, PH);
        if (NU > 3)
            nchw_s1_cover_row(acc, s + 3 * len, k, covers >> 12 & 15u, G, R, S, PH);
        if (NU > 4)
            nchw_s1_cover_row(acc, s + 4 * len, k, covers >> 16 & 15u, G, R, S, PH);
        if (NU > 5)
            nchw_s1_cover_row(acc, s + 5 * len, k, covers >> 20 & 15u, G, R, S, PH);
    }
    nchw_s1_store(acc, dst, R, nlast, G, R, S, es, stream, dt);
}

/* The block's rows (all R real) have the shape of a pattern with its own code: 1 for PG_S1_SLIDE4/2 (k = 3 and
 * stride 1 along H), 4 and 5 for PG_S1_TOP4/2 and PG_S1_BOT4/2 (the same at the plane's first and last row,
 * which have two window rows), 2 and 3 for PG_S1_ALT4A/2A and PG_S1_ALT4B/2B (k = 3 and stride 2), else 0.
 * Direct tests: this runs once per block. */
static inline int nchw_s1_shape(const int64_t *oh0, const int64_t *nh, int R)
{
    bool slide = true, alta = true, altb = true, top = true, bot = true;
    for (int r = 0; r < R; r++) {
        slide = slide && nh[r] == 3 && oh0[r] == oh0[0] + r;
        alta = alta && nh[r] == 1 + (r & 1) && oh0[r] == oh0[0] + r / 2;
        altb = altb && nh[r] == 2 - (r & 1) && oh0[r] == oh0[0] + (r + 1) / 2;
        top = top && (r == 0 ? nh[0] == 2 : nh[r] == 3 && oh0[r] == oh0[0] + r - 1);
        bot = bot && nh[r] == (r == R - 1 ? 2 : 3) && oh0[r] == oh0[0] + r;
    }
    return slide ? 1 : alta ? 2 : altb ? 3 : top ? 4 : bot ? 5 : 0;
}

/* whether the kernel of stride S along W has its own code for the block shape */
static inline bool nchw_s1_patterned(int S, int shape)
{
    return S == 1 ? shape == 1 || shape == 4 || shape == 5 : shape == 2 || shape == 3;
}

/* nchw_s1_shape of the R rows from row h of the plane; 0 when they pass its end */
static inline int nchw_s1_shape_from(const pg_axis *axh, const poolgrad_problem *pr, int64_t h, int R)
{
    int64_t oh0[PG_S1R], nh[PG_S1R];
    if (h + R > pr->in[1])
        return 0;
    for (int r = 0; r < R; r++) {
        int64_t e;
        pg_axis_range(axh, pr, h + r, &oh0[r], &e);
        nh[r] = e - oh0[r];
    }
    return nchw_s1_shape(oh0, nh, R);
}

/* the patterns with their own code: NU in the top nibble, the cover nibbles below */
#define PG_S1_PAT(nu, covers) ((unsigned)(nu) << 28 | (covers))
#define PG_S1_SLIDE4 PG_S1_PAT(6, 0x8ce731u) /* stride 1, k 3, R 4: rows 0-2, 1-3, 2-4, 3-5 */
#define PG_S1_SLIDE2 PG_S1_PAT(4, 0x2331u)   /* stride 1, k 3, R 2 */
#define PG_S1_TOP4 PG_S1_PAT(5, 0x8ce73u)    /* stride 1, k 3, R 4, from the first row: rows 0-1, 0-2, 1-3, 2-4 */
#define PG_S1_TOP2 PG_S1_PAT(3, 0x233u)      /* ... R 2: rows 0-1, 0-2 */
#define PG_S1_BOT4 PG_S1_PAT(5, 0xce731u)    /* stride 1, k 3, R 4, to the last row: rows 0-2, 1-3, 2-4, 3-4 */
#define PG_S1_BOT2 PG_S1_PAT(3, 0x331u)      /* ... R 2: rows 0-2, 1-2 */
#define PG_S1_ALT4A PG_S1_PAT(3, 0x8e3u)     /* stride 2, k 3, R 4, from a row of one oh row: 0, 0-1, 1, 1-2 */
#define PG_S1_ALT4B PG_S1_PAT(3, 0xc71u)     /* ... from a row of two: 0-1, 1, 1-2, 2 */
#define PG_S1_ALT2A PG_S1_PAT(2, 0x23u)      /* stride 2, k 3, R 2: 0, 0-1 */
#define PG_S1_ALT2B PG_S1_PAT(2, 0x31u)      /* 0-1, 1 */
#define PG_S1_SLIDE(R) ((R) == 4 ? PG_S1_SLIDE4 : PG_S1_SLIDE2)
#define PG_S1_TOP(R) ((R) == 4 ? PG_S1_TOP4 : PG_S1_TOP2)
#define PG_S1_BOT(R) ((R) == 4 ? PG_S1_BOT4 : PG_S1_BOT2)
#define PG_S1_ALTA(R) ((R) == 4 ? PG_S1_ALT4A : PG_S1_ALT2A)
#define PG_S1_ALTB(R) ((R) == 4 ? PG_S1_ALT4B : PG_S1_ALT2B)

/* Rows [u0, u1) of slab od of plane (n, c) into a slot: columns [c0, c1) of each at their band offsets
 * (ow - lo), the same division as the prepare pass; the floats outside them keep their zeros. */
PG_AI void nchw_s1_divide(const poolgrad_problem *pr, float *slab, const float *fwt, const pg_axis *axd,
                          const pg_axis *axh, int64_t n, int64_t c, int64_t od, int64_t u0, int64_t u1, int64_t lo,
                          int64_t c0, int64_t c1, int64_t len, const char *go_end, poolgrad_dtype dt)
{
    const int64_t es = pg_es(dt);
    const int64_t *os = pr->go_stride;
    const bool ovr = pr->divisor_override != 0;
    const char *g = pr->go + (n * os[PG_N] + c * os[PG_C] + od * os[PG_D]) * es;
    const int64_t fd = ovr ? 1 : pg_axis_factor(axd, pr, od);
    for (int64_t oh = u0; oh < u1; oh++)
        pg_q_divide(pr, PG_QW, g + oh * os[PG_H] * es, c0, c1, ovr ? 1 : fd * pg_axis_factor(axh, pr, oh), fwt, NULL,
                    go_end, slab + (oh - u0) * len + (c0 - lo), 0, PG_QD_KEEP, dt);
}

/* Row u0, column c0 of the slab after (n, c, od): od + 1 of the plane, or when last (the plane's last tile
 * and W block) the next plane's first slab at row 0, column 0; NULL past the end or when W is strided. */
PG_AI const char *nchw_s1_next_slab(const poolgrad_problem *pr, int64_t n, int64_t c, int64_t od, int64_t u0, int64_t c0,
                                    bool last, int64_t es)
{
    const int64_t *os = pr->go_stride;
    if (!pg_unit(pr->out[2], os[PG_W]))
        return NULL;
    if (++od == pr->out[0]) {
        if (!last)
            return NULL;
        od = u0 = c0 = 0;
        if (++c == pr->c) {
            c = 0;
            if (++n == pr->n)
                return NULL;
        }
    }
    return pr->go + (n * os[PG_N] + c * os[PG_C] + od * os[PG_D] + u0 * os[PG_H] + c0) * es;
}

PG_AI void nchw_s1_run_dt(const poolgrad_problem *pr, const poolgrad_kernel_conf *conf, int64_t begin, int64_t end,
                          const int S, const unsigned PH, const bool stream, poolgrad_dtype dt)
{
    const int64_t es = pg_es(dt);
    const int64_t C = pr->c, ID = pr->in[0], IH = pr->in[1], IW = pr->in[2];
    const int64_t OW = pr->out[2], k = pr->k[2];
    const int64_t *gs = pr->gi_stride;
    const bool ovr = pr->divisor_override != 0, empty = pg_go_empty(pr);
    const char *const go_end = pg_go_end(pr, es); /* full-vector loads end inside the view (the lanes past c1 are not stored) */
    const int64_t SD = conf->band_sd, len = conf->band_len, slab = conf->band_sh * len;
    _Alignas(64) float qb[PG_S1Q];
    float fwt[PG_S1G * VL + PG_S1K + 2 * VL]; /* W factors of the divided columns (<= band_len), + a vector of slack */
    /* the W factors of the whole row when it is short enough: computed once, not again at every W block of
     * every plane (the lanes a division takes past c1 are not stored, so a row table serves every block) */
    float fwr[PG_S1FW + VL];
    const bool fw_row = OW <= PG_S1FW;
    for (int64_t ow = 0; fw_row && ow < OW + VL; ow++)
        fwr[ow] = !ovr && ow < OW ? pg_dfac(pr, pg_factor(pr, 2, ow)) : 1.0f;
    int64_t tag[PG_S1SD];
    float *const zrow = qb + SD * slab;
    pg_axis axes[2];
    const pg_axis *axd = &axes[0], *axh = &axes[1];
    pg_axis_init(&axes[0], pr, 0);
    pg_axis_init(&axes[1], pr, 1);
    /* the pattern of the block of PG_S1R (bits 0-2) and PG_S1R / 2 (bits 3-5) rows from row h, when H is tabulated:
     * the same in every plane and W block, so the blocks read it instead of testing their rows */
    uint8_t shp[PG_AXMAX];
    const bool shp_tab = axh->tab;
    for (int64_t h = 0; shp_tab && h < IH; h++)
        shp[h] = (uint8_t)(nchw_s1_shape_from(axh, pr, h, PG_S1R) | nchw_s1_shape_from(axh, pr, h, PG_S1R / 2) << 3);
    memset(qb, 0, (size_t)(SD * slab + len) * sizeof(float));
    int64_t zc0 = 0, zc1 = 0; /* the band's rows are +0.0 outside columns [zc0, zc1) (the zero row everywhere) */
    int64_t fwt_wb = -1;      /* the W block fwt holds */
    /* plane by plane (n, c), then W blocks, then tiles of rows along H: the band holds the tile's oh rows of
     * band_sd od slabs, and the plane's gradOutput is still in cache for its next W block */
    for (int64_t sb = begin; sb < end;) {
        const int64_t plane = sb / (ID * IH), pn = plane / C, pc = plane % C;
        const int64_t r0 = sb - plane * ID * IH, r1 = pg_min(end - plane * ID * IH, ID * IH); /* (d, h) rows */
        const int64_t dlo = r0 / IH, dhi = (r1 - 1) / IH;
        for (int64_t wb = 0; wb < IW; wb += conf->w_block) {
            const int G = (int)pg_min(conf->w_block / VL, pg_ceil_div(IW - wb, VL));
            const int64_t nlast = IW - wb - (int64_t)(G - 1) * VL < VL ? IW - wb - (int64_t)(G - 1) * VL : VL;
            const int64_t lo = pg_s1_lo(pr, wb, S); /* band column 0: ow = lo */
            const int64_t c0 = pg_max(lo, 0), c1 = pg_min(OW, lo + len);
            const int64_t nz0 = c0 - lo, nz1 = c1 > c0 ? c1 - lo : nz0; /* band columns written */
            if (!fw_row && wb != fwt_wb) { /* the same for every plane: a plane of a few rows would spend more on it than on its sums */
                for (int64_t t = 0; t < c1 - c0 + VL; t++)
                    fwt[t] = !ovr && c0 + t < c1 ? pg_dfac(pr, pg_factor(pr, 2, c0 + t)) : 1.0f;
                fwt_wb = wb;
            }
            const float *const fw = fw_row ? fwr + c0 : fwt;
            /* band columns [nz0, nz1) of every row are divided into; the others must read +0.0 */
            if (zc0 < zc1 && (nz0 > zc0 || nz1 < zc1)) {
                for (int64_t row = 0; row < SD * conf->band_sh; row++) { /* vector stores: a memset call per row cost more */
                    if (nz0 > zc0)
                        pg_fill_bits((char *)(qb + row * len + zc0), pg_min(nz0, zc1) - zc0, 0, POOLGRAD_F32);
                    if (nz1 < zc1)
                        pg_fill_bits((char *)(qb + row * len + pg_max(nz1, zc0)), zc1 - pg_max(nz1, zc0), 0, POOLGRAD_F32);
                }
            }
            zc0 = nz0;
            zc1 = nz1;
            for (int64_t h0 = 0; h0 < IH; h0 += conf->tile_h) {
                const int64_t h1 = pg_min(IH, h0 + conf->tile_h);
                int64_t u0, u1, a, b;
                pg_axis_range(axh, pr, h0, &u0, &b);
                pg_axis_range(axh, pr, h1 - 1, &a, &u1);
                u1 = pg_max(u0, u1); /* the tile's oh rows, <= band_sh */
                const int64_t pf_rows = pg_ceil_div((u1 - u0) * PG_S1R, h1 - h0) + 1; /* a slab over the tile's blocks */
                for (int64_t s = 0; s < SD; s++)
                    tag[s] = -1;
                const bool last = wb + conf->w_block >= IW && h1 == IH;
                const char *pf = NULL; /* the slab after the last one divided, its rows from pf_i on to prefetch */
                int64_t pf_i = 0;
                for (int64_t d = dlo; d <= dhi; d++) {
                    const int64_t hs = d == dlo ? pg_max(h0, r0 - d * IH) : h0, he = d == dhi ? pg_min(h1, r1 - d * IH) : h1;
                    if (hs >= he)
                        continue;
                    int64_t od0, od1;
                    pg_axis_range(axd, pr, d, &od0, &od1);
                    const int64_t sl0 = od0 % SD; /* the slot of od0 (the blocks step on without a division) */
                    if (!empty)
                        for (int64_t od = od0; od < od1; od++) {
                            const int64_t sl = od % SD;
                            if (tag[sl] != od) {
                                nchw_s1_divide(pr, qb + sl * slab, fw, axd, axh, pn, pc, od, u0, u1, lo, c0, c1, len, go_end, dt);
                                tag[sl] = od;
                                pf = nchw_s1_next_slab(pr, pn, pc, od, u0, c0, last, es);
                                pf_i = 0;
                            }
                        }
                    char *const row0 = pr->gi + (pn * gs[PG_N] + pc * gs[PG_C] + d * gs[PG_D] + wb) * es;
                    for (int64_t h = hs; h < he;) {
                        const int R = PG_S1RG(G);
                        const int nr = (int)pg_min(R, he - h);
                        int64_t oh0[PG_S1R], nh[PG_S1R], nhmax = 0; /* oh0: band rows (oh - u0) */
                        int shape = -1;                              /* unknown */
                        if (nr == R && shp_tab) {
                            int64_t e;
                            pg_axis_range(axh, pr, h, &oh0[0], &e);
                            oh0[0] -= u0;
                            shape = shp[h] >> (R == PG_S1R ? 0 : 3) & 7;
                        }
                        if (!nchw_s1_patterned(S, shape)) { /* not a pattern: every row's window rows */
                            for (int r = 0; r < PG_S1R; r++) {
                                int64_t e = 0;
                                oh0[r] = u0;
                                if (r < nr)
                                    pg_axis_range(axh, pr, h + r, &oh0[r], &e);
                                nh[r] = r < nr ? e - oh0[r] : 0;
                                oh0[r] -= u0;
                                nhmax = pg_max(nhmax, nh[r]);
                            }
                            if (shape < 0)
                                shape = nr == R ? nchw_s1_shape(oh0, nh, R) : 0;
                        }
                        if (pf && S == 1) { /* the next slab's gradOutput rows, a few per block: in cache by its division */
                            const int64_t e = pg_min(u1 - u0, pf_i + pf_rows);
                            for (; pf_i < e; pf_i++)
                                pg_prefetch_range(pf + pf_i * pr->go_stride[PG_H] * es, (c1 - c0) * es);
                            if (pf_i == u1 - u0)
                                pf = NULL;
                        }
                        char *dst[PG_S1R];
                        for (int r = 0; r < nr; r++)
                            dst[r] = row0 + (h + r) * gs[PG_H] * es;
                        if (nchw_s1_patterned(S, shape)) {
/* the pattern's block for G = g (R = PG_S1RG(g)): stride 1 has three patterns, stride 2 two */
#define PG_S1_COVER_CALL(g, P) \
    nchw_s1_block_cover(qb, SD, slab, len, od0, od1, sl0, oh0[0], k, dst, nlast, (P) & 0xfffffffu, (int)((P) >> 28), g, PG_S1RG(g), S, PH, es, stream, dt)
#define PG_S1_COVER_G(g) \
    do { \
        if (S == 1 && shape == 1) \
            PG_S1_COVER_CALL(g, PG_S1_SLIDE(PG_S1RG(g))); \
        else if (S == 1 && shape == 4) \
            PG_S1_COVER_CALL(g, PG_S1_TOP(PG_S1RG(g))); \
        else if (S == 1) \
            PG_S1_COVER_CALL(g, PG_S1_BOT(PG_S1RG(g))); \
        else if (shape == 2) \
            PG_S1_COVER_CALL(g, PG_S1_ALTA(PG_S1RG(g))); \
        else \
            PG_S1_COVER_CALL(g, PG_S1_ALTB(PG_S1RG(g))); \
    } while (0)
                            switch (G) {
                            case 1: PG_S1_COVER_G(1); break;
                            case 2: PG_S1_COVER_G(2); break;
                            case 3: PG_S1_COVER_G(3); break;
                            default: PG_S1_COVER_G(4); break;
                            }
#undef PG_S1_COVER_G
#undef PG_S1_COVER_CALL
                        } else {
                            switch (G) { /* constant G and R: the accumulators in registers */
                            case 1: nchw_s1_block(qb, zrow, SD, slab, len, od0, od1, sl0, oh0, nh, nhmax, k, dst, nr, nlast, 1, PG_S1RG(1), S, PH, es, stream, dt); break;
                            case 2: nchw_s1_block(qb, zrow, SD, slab, len, od0, od1, sl0, oh0, nh, nhmax, k, dst, nr, nlast, 2, PG_S1RG(2), S, PH, es, stream, dt); break;
                            case 3: nchw_s1_block(qb, zrow, SD, slab, len, od0, od1, sl0, oh0, nh, nhmax, k, dst, nr, nlast, 3, PG_S1RG(3), S, PH, es, stream, dt); break;
                            default: nchw_s1_block(qb, zrow, SD, slab, len, od0, od1, sl0, oh0, nh, nhmax, k, dst, nr, nlast, 4, PG_S1RG(4), S, PH, es, stream, dt); break;
                            }
                        }
                        h += nr;
                    }
                }
            }
        }
        sb = plane * ID * IH + r1;
    }
    if (stream)
        v_stream_fence();
}

_Static_assert(PG_S1G == 4, "nchw_s1_run_dt dispatches G = 1 .. 4 chunks per W block");
_Static_assert(PG_S1Q * 4 + (PG_S1G * VL + PG_S1K + 2 * VL + PG_S1FW + VL) * 4 + PG_S1SD * 8 + PG_AXMAX + 2 * sizeof(pg_axis) < PG_STACK_BUDGET,
               "_nchw_s1 run: stack buffers over the budget");

static void nchw_s1_run(const poolgrad_problem *pr, const poolgrad_kernel_conf *conf, void *ws, int64_t begin,
                        int64_t end)
{
    (void)ws;
    PG_DT_DISPATCH_STREAM(pr->dtype, conf->stream_stores, nchw_s1_run_dt, pr, conf, begin, end, 1, 0u);
}

/* One outlined function per (phase mask, dtype, streaming), each holding one band: inlined together, the
 * compiler need not share their stack slots (with SIMDe's portable vectors it did not, over the stack limit). */
#define PG_S2_OUTLINE(ph, dt, st) \
    static __attribute__((noinline)) void nchw_s2_##ph##_##dt##st(const poolgrad_problem *pr, \
                                                                  const poolgrad_kernel_conf *conf, int64_t b, int64_t e) \
    { \
        nchw_s1_run_dt(pr, conf, b, e, 2, PG_S2_##ph, st, POOLGRAD_##dt); \
    }
#define PG_S2_OUTLINE_ALL(ph) \
    PG_S2_OUTLINE(ph, F32, true) PG_S2_OUTLINE(ph, F32, false) PG_S2_OUTLINE(ph, F16, false) PG_S2_OUTLINE(ph, BF16, false)
PG_S2_OUTLINE_ALL(PODD)
PG_S2_OUTLINE_ALL(PEVEN)
#undef PG_S2_OUTLINE_ALL
#undef PG_S2_OUTLINE

static void nchw_s2_run(const poolgrad_problem *pr, const poolgrad_kernel_conf *conf, void *ws, int64_t begin,
                        int64_t end)
{
    (void)ws;
    const bool odd = pr->p[2] & 1;
    switch (pr->dtype) {
    case POOLGRAD_F16: (odd ? nchw_s2_PODD_F16false : nchw_s2_PEVEN_F16false)(pr, conf, begin, end); break;
    case POOLGRAD_BF16: (odd ? nchw_s2_PODD_BF16false : nchw_s2_PEVEN_BF16false)(pr, conf, begin, end); break;
    default:
        if (conf->stream_stores)
            (odd ? nchw_s2_PODD_F32true : nchw_s2_PEVEN_F32true)(pr, conf, begin, end);
        else
            (odd ? nchw_s2_PODD_F32false : nchw_s2_PEVEN_F32false)(pr, conf, begin, end);
        break;
    }
}

const poolgrad_kernel PG_KSYM(nchw_s1) = {
    .name = PG_NAME("nchw_s1"), .isa = PG_ISA, .configure = nchw_s1_configure,
    .prepare = NULL, .run = nchw_s1_run,
};

const poolgrad_kernel PG_KSYM(nchw_s2) = {
    .name = PG_NAME("nchw_s2"), .isa = PG_ISA, .configure = nchw_s2_configure,
    .prepare = NULL, .run = nchw_s2_run,
};
