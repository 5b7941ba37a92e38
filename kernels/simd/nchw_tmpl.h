/*
 * Template: the W-vectorized kernels (_nchw, _nchw_b, _nchw_q). Included once per ISA translation unit
 * by kernels_tmpl.h, after the vector layer, the axis tables and the q sources.
 *
 * Template parameters (defined by the including translation unit):
 *   PG_ISA        the poolgrad_isa the kernels are dispatched as
 *   PG_ISA_NAME   the kernel name prefix, used through PG_NAME
 *   PG_KSYM(x)    the symbol of kernel x
 * Defines: const poolgrad_kernel PG_KSYM(nchw), PG_KSYM(nchw_b), PG_KSYM(nchw_q).
 *
 * gradInput rows contiguous along W (NCHW / NCDHW, other strides free); work items are the rows
 * (n, c, d, h). Each run walks W blocks of PG_WCH chunks of VL lanes (pg_wchunk: each lane's windows),
 * then the rows; a lane's terms are picked from a segment of q values (vf_pick1 / vf_pick) per window
 * row (od, oh), in ascending (od, oh, ow) order.
 *   _nchw    direct: per window row a gradOutput segment (contiguous along W) is divided in registers
 *            and picked; consecutive rows with the same windows are computed once (groups of
 *            PG_GROUP). With one window per lane (k <= s on every axis) a tight path picks, then
 *            divides each lane by its own divisor (the same division).
 *   _nchw_b  banded: q rows are divided inside run into a tagged stack band (qsource.h), blocks of
 *            PG_RB rows share the loads and picks of their window rows; no workspace. When the band
 *            holds whole od slabs (every oh row), a slab is divided at once and the blocks' oh rows
 *            come from a schedule planned once per run call.
 *   _nchw_q  workspace: a prepare pass writes q (PG_QW order), the run only picks and adds; same blocks.
 * _nchw_b and _nchw_q are one run (nchw_block_run_dt) on one row-block planner (pg_nchw_block).
 */
#ifndef PG_KSYM
#error "nchw_tmpl.h is a template: include it from kernels_tmpl.h"
#endif

/* window j of every lane from the segment q0 (++ q1 when two), its selector kept in L[j] (j < PG_JMAX) */
PG_AI vf pg_pick_kept(const vsel_keep *L, vlanes lanes, int j, vf q0, vf q1, bool two)
{
    return vf_pick(vsel_get(&L[j], lanes, j), q0, q1, two);
}

/* the lanes of chunk k, and the selectors of windows j < PG_JMAX kept in L (once per chunk) */
PG_AI vlanes pg_chunk_keep(const pg_wchunk *k, vsel_keep *L)
{
    const vlanes lanes = pg_chunk_lanes(k);
    for (int j = 0; j < PG_JMAX; j++) /* all of them: no maybe-uninitialized lanes */
        vsel_put(&L[j], vsel_at(lanes, j));
    return lanes;
}

/* ================================================================ _nchw: direct */

/* the blocking every W-vectorized kind shares: rows (n, c, d, h), W blocks of PG_WCH chunks */
static inline poolgrad_kernel_conf pg_nchw_conf(const poolgrad_problem *pr)
{
    return (poolgrad_kernel_conf){ .work_items = pr->n * pr->c * pr->in[0] * pr->in[1], .w_block = PG_WCH * VL };
}

static bool nchw_configure(const poolgrad_problem *pr, poolgrad_kernel_conf *conf)
{
    if (!(pg_gi_rows(pr) && pg_div_small(pr) && pg_terms_ok(pr) &&
          (pg_go_empty(pr) || pg_unit(pr->out[2], pr->go_stride[PG_W])) && pg_span_bound(pr) <= 2 * VL))
        return false;
    *conf = pg_nchw_conf(pr);
    return true;
}

/*
 * The one-window-per-lane path's tables for a W block (every chunk has at most one window per lane and
 * one gradOutput vector): each lane's W divisor factor and the chunk's selector. False if it does not apply.
 */
PG_AI bool nchw_simple_setup(const poolgrad_problem *pr, const pg_wchunk *ch, int nch, const float *fwt, int64_t owlo,
                             vf *sdw, vsel_keep *ssel)
{
    const bool ovr = pr->divisor_override != 0;
    bool simple = true;
    for (int i = 0; i < nch; i++)
        simple = simple && ch[i].maxc <= 1 && ch[i].span <= VL;
    if (simple) {
        for (int i = 0; i < nch; i++) {
            const pg_wchunk *k = &ch[i];
            float t[VL];
            for (int l = 0; l < VL; l++)
                t[l] = !ovr && k->cnt[l] ? fwt[k->base - owlo + k->rel[l]] : 1.0f;
            sdw[i] = vf_loadu(t);
            vsel_put(&ssel[i], vsel_at(pg_chunk_lanes(k), 0));
        }
    }
    return simple;
}

/*
 * The group planner: the row at p and the following rows of its (n, c) plane with the same windows
 * (D range [od0, od1), H range [oh0, oh1)), at most PG_GROUP and `left`; their d and h in gd, gh.
 * Moves p past the group and returns its size.
 */
PG_AI int nchw_group(const poolgrad_problem *pr, const pg_axis *axd, const pg_axis *axh, pg_pos *p, int64_t left,
                     int64_t od0, int64_t od1, int64_t oh0, int64_t oh1, int64_t *gd, int64_t *gh)
{
    const int64_t C = pr->c, ID = pr->in[0], IH = pr->in[1];
    int g = 0;
    gh[0] = p->h;
    gd[0] = p->d;
    for (;;) {
        g++;
        pg_pos_advance(p, 1, IH, ID, C);
        if (p->h == 0 && p->d == 0) /* the next row is in the next plane */
            break;
        if (g >= left || g == PG_GROUP)
            break;
        int64_t a0, a1, b0, b1;
        pg_axis_range(axd, pr, p->d, &a0, &a1);
        pg_axis_range(axh, pr, p->h, &b0, &b1);
        if (a0 != od0 || a1 != od1 || b0 != oh0 || b1 != oh1)
            break;
        gh[g] = p->h;
        gd[g] = p->d;
    }
    return g;
}

/* The chunk loop of the one-window-per-lane path: T <= 1 window rows, the first at gradOutput gp0 with
 * D x H divisor factor tdiv0 (1 when T == 0); lanes picked first, then divided by their own divisor. */
PG_AI void nchw_chunks_simple(const poolgrad_problem *pr, const pg_wchunk *ch, int nch, char *const *dst, int g, int T,
                              const char *gp0, float tdiv0, const vf *sdw, const vsel_keep *ssel, const char *go_end,
                              poolgrad_dtype dt)
{
    const int64_t es = pg_es(dt), OW = pr->out[2];
    const bool ovr = pr->divisor_override != 0;
    const vf dd = vf_set1(tdiv0);
    for (int i = 0; i < nch; i++) {
        const pg_wchunk *k = &ch[i];
        vf acc = vf_zero();
        if (T && k->maxc > 0) {
            const char *gp = gp0 + k->base * es;
            const vf g0 = pg_ld_view(gp, go_end, OW - k->base, dt);
            const vf x = vf_pick1(vsel_get(&ssel[i], pg_chunk_lanes(k), 0), g0);
            acc = vf_add(acc, pg_quot(pr, x, ovr ? dd : vf_mul(dd, sdw[i])));
        }
        pg_st_rows(dst, g, (int64_t)i * VL * es, acc, k->nl, dt);
    }
}

/* The chunk loop: per chunk, the T window rows' gradOutput segments (toff: byte offsets, tdiv: D x H
 * factors) divided in registers (fwt: W factors of columns owlo ..), each lane's windows picked in order. */
PG_AI void nchw_chunks(const poolgrad_problem *pr, const pg_wchunk *ch, int nch, char *const *dst, int g, int T,
                       const int64_t *toff, const float *tdiv, const float *fwt, int64_t owlo, const char *go_end,
                       poolgrad_dtype dt)
{
    const int64_t es = pg_es(dt), OW = pr->out[2];
    const bool ovr = pr->divisor_override != 0;
    for (int i = 0; i < nch; i++) {
        const pg_wchunk *k = &ch[i];
        vf acc = vf_zero();
        if (k->maxc > 0) {
            vsel_keep L[PG_JMAX];
            const vlanes lanes = pg_chunk_keep(k, L);
            const bool two = k->span > VL;
            for (int tt = 0; tt < T; tt++) {
                const char *gp = pr->go + toff[tt] + k->base * es;
                const int64_t n0 = OW - k->base;
                const vf dd = vf_set1(tdiv[tt]);
                const vf g0 = pg_ld_view(gp, go_end, n0, dt);
                const vf q0 = pg_quot(pr, g0, ovr ? dd : vf_mul(dd, vf_loadu(fwt + (k->base - owlo))));
                vf q1 = q0;
                if (two) {
                    const char *g1p = gp + VL * es;
                    const vf g1 = pg_ld_view(g1p, go_end, n0 - VL, dt);
                    q1 = pg_quot(pr, g1, ovr ? dd : vf_mul(dd, vf_loadu(fwt + (k->base - owlo) + VL)));
                }
                switch (k->maxc) { /* windows j = 0, 1, ... of each lane, in order */
                case 1:
                    acc = vf_add(acc, pg_pick_kept(L, lanes, 0, q0, q1, two));
                    break;
                case 2:
                    acc = vf_add(acc, pg_pick_kept(L, lanes, 0, q0, q1, two));
                    acc = vf_add(acc, pg_pick_kept(L, lanes, 1, q0, q1, two));
                    break;
                case 3:
                    acc = vf_add(acc, pg_pick_kept(L, lanes, 0, q0, q1, two));
                    acc = vf_add(acc, pg_pick_kept(L, lanes, 1, q0, q1, two));
                    acc = vf_add(acc, pg_pick_kept(L, lanes, 2, q0, q1, two));
                    break;
                default:
                    for (int j = 0; j < k->maxc; j++)
                        acc = vf_add(acc, vf_pick(vsel_at(lanes, j), q0, q1, two));
                    break;
                }
            }
        }
        pg_st_rows(dst, g, (int64_t)i * VL * es, acc, k->nl, dt); /* narrowed once for the group */
    }
}

PG_AI void nchw_run_dt(const poolgrad_problem *pr, const poolgrad_kernel_conf *conf, int64_t begin, int64_t end,
                       poolgrad_dtype dt)
{
    const int64_t es = pg_es(dt);
    const int64_t C = pr->c, ID = pr->in[0], IH = pr->in[1], IW = pr->in[2], OW = pr->out[2];
    const int64_t *gs = pr->gi_stride, *os = pr->go_stride;
    const bool ovr = pr->divisor_override != 0;
    const float ovf = pg_dfac(pr, pr->divisor_override);
    const char *const go_end = pg_go_end(pr, es);
    pg_wchunk ch[PG_WCH];
    float fwt[PG_WCH * VL + 4 * VL];
    int64_t toff[PG_TMAX];
    float tdiv[PG_TMAX];
    vf sdw[PG_WCH];
    vsel_keep ssel[PG_WCH];
    pg_axis axes[2];
    const pg_axis *axd = &axes[0], *axh = &axes[1];
    pg_axis_init(&axes[0], pr, 0);
    pg_axis_init(&axes[1], pr, 1);
    float fdbuf[PG_AXMAX], fhbuf[PG_AXMAX];
    const float *fdt = pg_axis_dfacs(axd, pr, fdbuf), *fht = pg_axis_dfacs(axh, pr, fhbuf);
    for (int64_t wb = 0; wb < IW; wb += conf->w_block) {
        const int64_t we = pg_min(IW, wb + conf->w_block);
        const int nch = pg_build_chunks(pr, wb, we, ch);
        const int64_t owlo = ch[0].base;
        if (!ovr) {
            int64_t len = ch[nch - 1].base - owlo + 2 * VL;
            for (int64_t t = 0; t < len; t++)
                fwt[t] = owlo + t < OW ? pg_dfac(pr, pg_factor(pr, 2, owlo + t)) : 1.0f;
        }
        const bool simple = nchw_simple_setup(pr, ch, nch, fwt, owlo, sdw, ssel);
        pg_pos p = pg_pos_of(begin, IH, ID, C);
        for (int64_t row = begin; row < end;) {
            int64_t od0, od1, oh0, oh1;
            pg_axis_range(axd, pr, p.d, &od0, &od1);
            pg_axis_range(axh, pr, p.h, &oh0, &oh1);
            /* following rows of the same (n, c) plane with the same windows get the same bits: compute once */
            int64_t gh[PG_GROUP], gd[PG_GROUP];
            const int64_t gc = p.c, gn = p.n; /* the group never leaves its (n, c) plane */
            const int g = nchw_group(pr, axd, axh, &p, end - row, od0, od1, oh0, oh1, gd, gh);
            /* the window rows of this group, in ascending (od, oh) order */
            int T = 0;
            for (int64_t od = od0; od < od1; od++) {
                const int64_t fd = ovr ? 1 : pg_axis_factor(axd, pr, od);
                for (int64_t oh = oh0; oh < oh1; oh++, T++) {
                    toff[T] = (gn * os[PG_N] + gc * os[PG_C] + od * os[PG_D] + oh * os[PG_H]) * es;
                    tdiv[T] = ovr ? ovf : fdt && fht ? fdt[od] * fht[oh] : pg_dfac(pr, fd * pg_axis_factor(axh, pr, oh));
                }
            }
            char *dst[PG_GROUP];
            for (int r = 0; r < g; r++)
                dst[r] = pr->gi + (gn * gs[PG_N] + gc * gs[PG_C] + gd[r] * gs[PG_D] + gh[r] * gs[PG_H] + wb) * es;
            if (simple && T <= 1)
                nchw_chunks_simple(pr, ch, nch, dst, g, T, T ? pr->go + toff[0] : NULL, T ? tdiv[0] : 1.0f, sdw, ssel, go_end,
                                   dt);
            else
                nchw_chunks(pr, ch, nch, dst, g, T, toff, tdiv, fwt, owlo, go_end, dt);
            row += g;
        }
    }
}

static void nchw_run(const poolgrad_problem *pr, const poolgrad_kernel_conf *conf, void *ws, int64_t begin, int64_t end)
{
    (void)ws;
    PG_DT_DISPATCH(pr->dtype, nchw_run_dt, pr, conf, begin, end);
}

/* ================================================================ _nchw_b, _nchw_q: row blocks */

/*
 * The pre-divided W-row run, blocked over up to PG_RB consecutive rows of one (n, c, d) plane: the window
 * rows of the block are walked once in ascending (od, oh) order; each picked vector is added to the
 * accumulator of every row of the block that the window row covers, so each accumulator still receives
 * its own terms in ascending (od, oh, ow) order, while loads and picks are shared between rows.
 * The q rows come from the workspace (_nchw_q) or from a band of the W block's q rows (_nchw_b): the
 * band's rows are direct-mapped with tags; SD >= the od rows of one gradInput row and SH >= the oh rows
 * of a row block, so the rows of one block never evict each other.
 */

/* the row blocks of _nchw_b and _nchw_q: at most PG_RB rows of one (n, c, d) plane */
static inline poolgrad_kernel_conf pg_nchw_block_conf(const poolgrad_problem *pr)
{
    poolgrad_kernel_conf conf = pg_nchw_conf(pr);
    conf.row_block = pg_min(PG_RB, pr->in[1]);
    return conf;
}

/* what both row-block kinds need */
static inline bool pg_nchw_block_ok(const poolgrad_problem *pr)
{
    return pg_gi_rows(pr) && pg_div_small(pr) && pg_terms_ok(pr);
}

static bool nchw_q_configure(const poolgrad_problem *pr, poolgrad_kernel_conf *conf)
{
    if (!pg_nchw_block_ok(pr))
        return false;
    *conf = pg_nchw_block_conf(pr);
    conf->workspace_size = pg_q_workspace(pr, PG_QW);
    conf->prepare_items = pg_q_items(pr, PG_QW);
    return true;
}

/*
 * The band of one W block: band_sd x band_sh slots of band_len floats. A slot holds the q row (od, oh) of
 * the W block's columns: the chunk bases of a W block of w_block columns lie within (w_block - 1) / s + 1
 * columns and a chunk spans at most max(2 VL, pg_span_bound) from its base, rounded up to whole vectors.
 * Windows covering one index: <= ceil(k / s); covering one of row_block consecutive indices:
 * <= ceil((k + row_block - 1) / s); the slots along oh are as many as the band holds beyond that.
 */
static bool nchw_b_configure(const poolgrad_problem *pr, poolgrad_kernel_conf *conf)
{
    if (!pg_nchw_block_ok(pr) || !pg_band_k_ok(pr))
        return false;
    *conf = pg_nchw_block_conf(pr);
    const int64_t wblk = pg_min(pr->in[2], conf->w_block);
    const int64_t len = pg_ceil_div((wblk - 1) / pr->s[2] + 1 + pg_max(2 * VL, pg_span_bound(pr)), VL) * VL;
    const int64_t sd = pg_ceil_div(pr->k[0], pr->s[0]), sh = pg_ceil_div(pr->k[1] + conf->row_block - 1, pr->s[1]);
    if (len > PG_BL || sd * sh > PG_BSLOTS || sd * sh * len > PG_BQ)
        return false;
    conf->band_len = len;
    conf->band_sd = pg_min(sd, pg_max(pr->out[0], 1));
    conf->band_sh = pg_min(pg_min(pg_max(pr->out[1], 1), PG_BQ / (conf->band_sd * len)), PG_BSLOTS / conf->band_sd);
    conf->band_slabs = conf->band_sh >= pg_max(pr->out[1], 1);
    return true;
}

/* the band of one W block: window rows of columns [owlo, owhi) */
typedef struct pg_nchw_band {
    pg_qband b;
    int64_t owlo, owhi;
    const float *fwt; /* W factors of columns owlo .. */
    const char *go_end;
    const char *pf_g;       /* slab mode: the next slab's gradOutput (column owlo), NULL when prefetched */
    int64_t pf_oh, pf_rows; /* its next row to prefetch; rows per row block */
} pg_nchw_band;

/* the band row of window row (od, oh) of plane (n, c), divided in on a miss: its offset in the band */
PG_AI int64_t pg_nchw_band_row(const poolgrad_problem *pr, pg_nchw_band *bd, int64_t n, int64_t c, int64_t od,
                               int64_t oh, poolgrad_dtype dt)
{
    const int64_t es = pg_es(dt);
    const int64_t *os = pr->go_stride;
    const int64_t key = ((n * pr->c + c) * pr->out[0] + od) * pr->out[1] + oh;
    int64_t sl;
    if (pg_qband_claim(&bd->b, key, od, oh, &sl)) { /* the same division as the prepare pass */
        const char *g = pr->go + (n * os[PG_N] + c * os[PG_C] + od * os[PG_D] + oh * os[PG_H]) * es;
        const int64_t fdh = pr->divisor_override != 0 ? 1 : pg_factor(pr, 0, od) * pg_factor(pr, 1, oh);
        /* lanes past OW (full loads that stay inside the view, or the zeroed slack) are never picked */
        pg_q_divide(pr, PG_QW, g, bd->owlo, bd->owhi, fdh, bd->fwt, NULL, bd->go_end, bd->b.q + sl * bd->b.len, 0,
                    PG_QD_BAND, dt);
    }
    return sl * bd->b.len; /* column ow lives at ow - owlo */
}

/*
 * The row-block planner: the block of rows h .. h + R - 1 of plane (n, c, d) at p (R <= row_block, <= rows
 * left), and its T window rows in ascending (od, oh) order: q row offset toff and the mask of the block
 * rows each covers. A block whose window rows exceed PG_TMAX (or the band's SH) is cut to one row.
 * Returns R; bd is NULL for the workspace.
 */
PG_AI int pg_nchw_block(const poolgrad_problem *pr, const poolgrad_kernel_conf *conf, const pg_axis *axd,
                        const pg_axis *axh, pg_pos p, int64_t left, pg_nchw_band *bd, int64_t *toff, unsigned *tmask,
                        int *nterms, poolgrad_dtype dt)
{
    const int64_t C = pr->c, OD = pr->out[0], OH = pr->out[1], OW = pr->out[2];
    int64_t od0, od1;
    pg_axis_range(axd, pr, p.d, &od0, &od1);
    int R = (int)pg_min(pg_min(conf->row_block, pr->in[1] - p.h), left);
    int64_t ob[PG_RB] = { 0 }, oe[PG_RB] = { 0 };
    int T;
    for (;;) {
        int64_t u0, u1;
        pg_block_h_ranges(axh, pr, p.h, R, ob, oe, &u0, &u1);
        T = 0;
        const int64_t cnt = (od1 - od0) * pg_max(0, u1 - u0);
        if ((cnt > PG_TMAX || (bd && u1 - u0 > bd->b.SH)) && R > 1) {
            R = 1;
            continue;
        }
        for (int64_t od = od0; od < od1; od++)
            for (int64_t oh = u0; oh < u1; oh++) {
                const unsigned m = pg_block_row_mask(ob, oe, R, oh);
                if (!m)
                    continue;
                toff[T] = bd ? pg_nchw_band_row(pr, bd, p.n, p.c, od, oh, dt)
                             : (((p.n * C + p.c) * OD + od) * OH + oh) * OW;
                tmask[T] = m;
                T++;
            }
        break;
    }
    *nterms = T;
    return R;
}

/*
 * Slab mode (conf->band_slabs): the band holds every oh row of band_sd od slabs, slot (od % SD) * OH + oh,
 * and a slab is divided whole when a row first needs it (no per-row tags). A row block's window rows are
 * then its od rows times its oh rows, in that (ascending) order, and the oh rows with the block rows each
 * covers depend only on h: the blocks at multiples of row_block are planned once per run call
 * (pg_hsched_init) and every plane reuses them.
 */
typedef struct pg_hblock {
    uint16_t first, n; /* its oh rows: entries first .. first + n - 1 */
    uint8_t R;         /* its rows */
} pg_hblock;

typedef struct pg_hsched {
    int64_t nb; /* planned: the blocks at h = b * row_block for b < nb */
    pg_hblock blk[PG_HSB];
    uint16_t oh[PG_HSE];
    uint8_t m[PG_HSE]; /* bit r: the window row covers block row r */
} pg_hsched;

/* The oh rows (ascending) of the block of rows h .. h + R - 1 and the block rows each covers; their
 * number, or -1 when there are more than cap. */
PG_AI int pg_hblock_rows(const pg_axis *axh, const poolgrad_problem *pr, int64_t h, int R, uint16_t *oh, uint8_t *m,
                         int cap)
{
    int64_t ob[PG_RB] = { 0 }, oe[PG_RB] = { 0 }, u0, u1;
    pg_block_h_ranges(axh, pr, h, R, ob, oe, &u0, &u1);
    int n = 0;
    for (int64_t o = u0; o < u1; o++) {
        const unsigned mm = pg_block_row_mask(ob, oe, R, o);
        if (!mm)
            continue;
        if (n == cap)
            return -1;
        oh[n] = (uint16_t)o; /* OH <= PG_BQ in slab mode */
        m[n] = (uint8_t)mm;
        n++;
    }
    return n;
}

/* Plans the blocks at multiples of row_block while they fit (their od x oh rows too: <= PG_TMAX). */
static void pg_hsched_init(pg_hsched *hs, const pg_axis *axh, const poolgrad_problem *pr,
                           const poolgrad_kernel_conf *conf)
{
    int used = 0;
    hs->nb = 0;
    for (int64_t h = 0; h < pr->in[1] && hs->nb < PG_HSB; h += conf->row_block) {
        const int R = (int)pg_min(conf->row_block, pr->in[1] - h);
        const int n = pg_hblock_rows(axh, pr, h, R, hs->oh + used, hs->m + used, PG_HSE - used);
        if (n < 0 || conf->band_sd * n > PG_TMAX)
            break;
        hs->blk[hs->nb++] = (pg_hblock){ .first = (uint16_t)used, .n = (uint16_t)n, .R = (uint8_t)R };
        used += n;
    }
}

/* Slab od of plane (n, c) divided into slot slab sl: the same division as the prepare pass, row by row. */
PG_AI void pg_nchw_slab_divide(const poolgrad_problem *pr, pg_nchw_band *bd, const pg_axis *axd, const pg_axis *axh,
                               int64_t n, int64_t c, int64_t od, int64_t sl, poolgrad_dtype dt)
{
    const int64_t es = pg_es(dt), OH = pr->out[1];
    const int64_t *os = pr->go_stride;
    const bool ovr = pr->divisor_override != 0;
    const char *g = pr->go + (n * os[PG_N] + c * os[PG_C] + od * os[PG_D]) * es;
    const int64_t fd = ovr ? 1 : pg_axis_factor(axd, pr, od);
    float *q = bd->b.q + sl * OH * bd->b.len;
    for (int64_t oh = 0; oh < OH; oh++)
        pg_q_divide(pr, PG_QW, g + oh * os[PG_H] * es, bd->owlo, bd->owhi, ovr ? 1 : fd * pg_axis_factor(axh, pr, oh),
                    bd->fwt, NULL, bd->go_end, q + oh * bd->b.len, 0, PG_QD_BAND, dt);
}

/*
 * The gradOutput rows of the slab divided after (n, c, od) are prefetched a few per row block (od + 1,
 * or the next plane's first slab): by the next division they are in cache, and the prefetches overlap
 * the blocks' arithmetic instead of queueing behind each other. pg_nchw_slab_prefetch_from names the
 * slab, pg_nchw_slab_prefetch_step issues the next rows.
 */
PG_AI void pg_nchw_slab_prefetch_from(const poolgrad_problem *pr, pg_nchw_band *bd, int64_t n, int64_t c, int64_t od,
                                      poolgrad_dtype dt)
{
    const int64_t es = pg_es(dt);
    const int64_t *os = pr->go_stride;
    bd->pf_g = NULL;
    if (!pg_unit(pr->out[2], os[PG_W]))
        return;
    if (++od == pr->out[0]) {
        od = 0;
        if (++c == pr->c) {
            c = 0;
            if (++n == pr->n)
                return;
        }
    }
    bd->pf_g = pr->go + (n * os[PG_N] + c * os[PG_C] + od * os[PG_D] + bd->owlo) * es;
    bd->pf_oh = 0;
}

PG_AI void pg_nchw_slab_prefetch_step(const poolgrad_problem *pr, pg_nchw_band *bd, poolgrad_dtype dt)
{
    if (!bd->pf_g)
        return;
    const int64_t es = pg_es(dt), e = pg_min(pr->out[1], bd->pf_oh + bd->pf_rows);
    for (; bd->pf_oh < e; bd->pf_oh++)
        pg_prefetch_range(bd->pf_g + bd->pf_oh * pr->go_stride[PG_H] * es, (bd->owhi - bd->owlo) * es);
    if (bd->pf_oh == pr->out[1])
        bd->pf_g = NULL;
}

/*
 * The slab-mode row-block planner: like pg_nchw_block (same blocks where the schedule has them, and the
 * same window rows in the same order), with the block's oh rows from the schedule and its od slabs
 * divided on a miss.
 */
PG_AI int pg_nchw_slab_block(const poolgrad_problem *pr, const poolgrad_kernel_conf *conf, const pg_axis *axd,
                             const pg_axis *axh, const pg_hsched *hs, pg_pos p, int64_t left, pg_nchw_band *bd,
                             uint16_t *foh, uint8_t *fm, int64_t *toff, unsigned *tmask, int *nterms, poolgrad_dtype dt)
{
    const int64_t RB = conf->row_block, SD = bd->b.SD, OD = pr->out[0], OH = pr->out[1], len = bd->b.len;
    const int64_t b = p.h / RB;
    const uint16_t *hoh = foh;
    const uint8_t *hm = fm;
    int R, nh;
    if (p.h % RB == 0 && b < hs->nb && hs->blk[b].R <= left) {
        R = hs->blk[b].R;
        nh = hs->blk[b].n;
        hoh = hs->oh + hs->blk[b].first;
        hm = hs->m + hs->blk[b].first;
    } else { /* up to the next planned block start, or a run's last rows */
        R = (int)pg_min(pg_min(RB - p.h % RB, pr->in[1] - p.h), left);
        for (;;) {
            nh = pg_hblock_rows(axh, pr, p.h, R, foh, fm, PG_TMAX);
            if ((nh >= 0 && SD * nh <= PG_TMAX) || R == 1)
                break; /* one row: <= ceil(kh / sh) oh rows, and SD x that <= PG_TMAX (pg_terms_ok) */
            R = 1;
        }
    }
    int64_t od0, od1;
    pg_axis_range(axd, pr, p.d, &od0, &od1);
    int T = 0;
    for (int64_t od = od0; od < od1; od++) {
        const int64_t sl = od % SD, key = (p.n * pr->c + p.c) * OD + od;
        if (bd->b.tag[sl] != key) {
            pg_nchw_slab_divide(pr, bd, axd, axh, p.n, p.c, od, sl, dt);
            pg_nchw_slab_prefetch_from(pr, bd, p.n, p.c, od, dt);
            bd->b.tag[sl] = key;
        }
        const int64_t base = sl * OH * len;
        for (int e = 0; e < nh; e++, T++) {
            toff[T] = base + hoh[e] * len;
            tmask[T] = hm[e];
        }
    }
    pg_nchw_slab_prefetch_step(pr, bd, dt);
    *nterms = T;
    return R;
}

/*
 * The window rows of one chunk, for chunks whose lanes have at most J (a constant: the picks unroll)
 * windows within two vectors: each of the R accumulators receives the picked q values of the T window
 * rows that cover its row (tmask), in ascending window-row order.
 */
PG_AI void pg_nchw_chunk_rows(vf *acc, const float *qbase, const int64_t *toff, const unsigned *tmask, int T,
                              int64_t qoff, const vsel_keep *L, vlanes lanes, bool two, const int J)
{
    for (int tt = 0; tt < T; tt++) {
        const float *qb = qbase + toff[tt] + qoff; /* q at the chunk's first window */
        const unsigned m = tmask[tt];
        const vf q0 = vf_loadu(qb);
        const vf q1 = two ? vf_loadu(qb + VL) : q0;
        for (int j = 0; j < J; j++) {
            const vf v = pg_pick_kept(L, lanes, j, q0, q1, two);
            for (int r = 0; r < PG_RB; r++)
                if (m & (1u << r))
                    acc[r] = vf_add(acc[r], v);
        }
    }
}

/*
 * The chunk loop of a row block: for every chunk of the W block, each of the R accumulators receives the
 * picked q values of the T window rows that cover its row (tmask), in ascending window-row order, then
 * one store per row. Window row tt holds column ow at qbase[toff[tt] + ow - col0].
 */
PG_AI void pg_nchw_block_chunks(const float *qbase, const int64_t *toff, const unsigned *tmask, int T, int64_t col0,
                                const pg_wchunk *ch, int nch, char *const *dst, int R, int64_t es, poolgrad_dtype dt)
{
    for (int i = 0; i < nch; i++) {
        const pg_wchunk *k = &ch[i];
        vf acc[PG_RB];
        for (int r = 0; r < PG_RB; r++)
            acc[r] = vf_zero();
        if (k->maxc > 0) {
            vsel_keep L[PG_JMAX];
            const vlanes lanes = pg_chunk_keep(k, L);
            const bool two = k->span > VL;
            const int64_t qoff = k->base - col0;
            if (k->span > 2 * VL || k->maxc > PG_JMAX) {
                for (int tt = 0; tt < T; tt++) {
                    const float *qb = qbase + toff[tt] + qoff;
                    const unsigned m = tmask[tt];
                    for (int j = 0; j < k->maxc; j++) {
                        const vf v = k->span > 2 * VL ? vf_pick_mem(qb, k->rel, k->cnt, j)
                                                      : vf_pick(vsel_at(lanes, j), vf_loadu(qb), vf_loadu(qb + VL), two);
                        for (int r = 0; r < R; r++)
                            if (m & (1u << r))
                                acc[r] = vf_add(acc[r], v);
                    }
                }
            } else {
                _Static_assert(PG_JMAX == 4, "pg_nchw_block_chunks unrolls 1 .. 4 windows per lane");
                switch (k->maxc) {
                case 1: pg_nchw_chunk_rows(acc, qbase, toff, tmask, T, qoff, L, lanes, two, 1); break;
                case 2: pg_nchw_chunk_rows(acc, qbase, toff, tmask, T, qoff, L, lanes, two, 2); break;
                case 3: pg_nchw_chunk_rows(acc, qbase, toff, tmask, T, qoff, L, lanes, two, 3); break;
                default: pg_nchw_chunk_rows(acc, qbase, toff, tmask, T, qoff, L, lanes, two, 4); break;
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

/* _nchw_b (banded: q divided here into the stack band) or _nchw_q (qws: the prepared workspace) */
PG_AI void nchw_block_run_dt(const poolgrad_problem *pr, const poolgrad_kernel_conf *conf, const float *qws,
                             int64_t begin, int64_t end, bool banded, poolgrad_dtype dt)
{
    const int64_t es = pg_es(dt);
    const int64_t C = pr->c, ID = pr->in[0], IH = pr->in[1], IW = pr->in[2];
    const int64_t OW = pr->out[2];
    const int64_t *gs = pr->gi_stride;
    const bool ovr = pr->divisor_override != 0;
    pg_wchunk ch[PG_WCH];
    int64_t toff[PG_TMAX];
    unsigned tmask[PG_TMAX];
    pg_axis axes[2];
    const pg_axis *axd = &axes[0], *axh = &axes[1];
    pg_axis_init(&axes[0], pr, 0);
    pg_axis_init(&axes[1], pr, 1);
    /* the band (used when banded) */
    _Alignas(64) float qc[PG_BQ];
    float fwt[PG_BL];
    int64_t tag[PG_BSLOTS];
    pg_nchw_band band = { .b = { .q = qc, .tag = tag, .SD = conf->band_sd, .SH = conf->band_sh, .len = conf->band_len },
                          .fwt = fwt, .go_end = banded ? pg_go_end(pr, es) : NULL };
    const bool slabs = banded && conf->band_slabs;
    pg_hsched hs;
    uint16_t foh[PG_TMAX];
    uint8_t fm[PG_TMAX];
    if (slabs) {
        pg_hsched_init(&hs, axh, pr, conf);
        band.pf_rows = pg_ceil_div(pr->out[1] * conf->row_block, pg_max(IH, 1)) + 1; /* a slab per plane's rows */
    }
    for (int64_t wb = 0; wb < IW; wb += conf->w_block) {
        const int64_t we = pg_min(IW, wb + conf->w_block);
        const int nch = pg_build_chunks(pr, wb, we, ch);
        const int64_t owlo = ch[0].base;
        if (banded) { /* the band: q rows (od, oh) of this W block's columns [owlo, owlo + len) */
            const int64_t len = band.b.len;
            band.owlo = owlo;
            band.owhi = pg_min(OW, owlo + len);
            for (int64_t t = 0; t < len; t++)
                fwt[t] = !ovr && owlo + t < OW ? pg_dfac(pr, pg_factor(pr, 2, owlo + t)) : 1.0f;
            pg_qband_clear(&band.b);
            memset(qc, 0, (size_t)(band.b.SD * band.b.SH * len) * sizeof(float));
        }
        pg_pos p = pg_pos_of(begin, IH, ID, C);
        for (int64_t row = begin; row < end;) {
            int T;
            const int R = slabs ? pg_nchw_slab_block(pr, conf, axd, axh, &hs, p, end - row, &band, foh, fm, toff, tmask, &T, dt)
                                : pg_nchw_block(pr, conf, axd, axh, p, end - row, banded ? &band : NULL, toff, tmask, &T, dt);
            char *dst[PG_RB];
            for (int r = 0; r < R; r++)
                dst[r] = pr->gi + (p.n * gs[PG_N] + p.c * gs[PG_C] + p.d * gs[PG_D] + (p.h + r) * gs[PG_H] + wb) * es;
            pg_nchw_block_chunks(banded ? qc : qws, toff, tmask, T, banded ? owlo : 0, ch, nch, dst, R, es, dt);
            row += R;
            pg_pos_advance(&p, R, IH, ID, C);
        }
    }
}

_Static_assert(PG_BQ * 4 + PG_BL * 4 + PG_BSLOTS * 8 + PG_WCH * sizeof(pg_wchunk) + PG_TMAX * (8 + 4 + 3) +
                   sizeof(pg_hsched) + 2 * sizeof(pg_axis) < PG_STACK_BUDGET,
               "_nchw_b run: stack buffers over the budget");
_Static_assert(PG_WCH * (sizeof(pg_wchunk) + sizeof(vf) + sizeof(vsel_keep) + VL * 4) + PG_TMAX * (8 + 4) +
                   2 * sizeof(pg_axis) + 2 * PG_AXMAX * 4 < PG_STACK_BUDGET,
               "_nchw run: stack buffers over the budget");

static void nchw_b_run(const poolgrad_problem *pr, const poolgrad_kernel_conf *conf, void *ws, int64_t begin,
                       int64_t end)
{
    (void)ws;
    PG_DT_DISPATCH(pr->dtype, nchw_block_run_dt, pr, conf, NULL, begin, end, true);
}

static void nchw_q_prepare(const poolgrad_problem *pr, const poolgrad_kernel_conf *conf, void *ws, int64_t begin,
                           int64_t end)
{
    PG_DT_DISPATCH(pr->dtype, pg_q_prepare_dt, pr, conf, ws, begin, end, PG_QW);
}

static void nchw_q_run(const poolgrad_problem *pr, const poolgrad_kernel_conf *conf, void *ws, int64_t begin,
                       int64_t end)
{
    PG_DT_DISPATCH(pr->dtype, nchw_block_run_dt, pr, conf, ws, begin, end, false);
}

/* ================================================================ the kernel table entries */

const poolgrad_kernel PG_KSYM(nchw) = {
    .name = PG_NAME("nchw"), .isa = PG_ISA, .configure = nchw_configure,
    .prepare = NULL, .run = nchw_run,
};

const poolgrad_kernel PG_KSYM(nchw_b) = {
    .name = PG_NAME("nchw_b"), .isa = PG_ISA, .configure = nchw_b_configure,
    .prepare = NULL, .run = nchw_b_run,
};

const poolgrad_kernel PG_KSYM(nchw_q) = {
    .name = PG_NAME("nchw_q"), .isa = PG_ISA, .configure = nchw_q_configure,
    .prepare = nchw_q_prepare, .run = nchw_q_run,
};
