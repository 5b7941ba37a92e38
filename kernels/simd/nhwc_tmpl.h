/*
 * Template: the channels-last kernels (_nhwc, _nhwc_s1, _nhwc_w1, _nhwc_b, _nhwc_q). Included once per ISA
 * translation unit by kernels_tmpl.h, after the vector layer, the axis tables and the q sources.
 *
 * Template parameters (defined by the including translation unit):
 *   PG_ISA        the poolgrad_isa the kernels are dispatched as
 *   PG_ISA_NAME   the kernel name prefix, used through PG_NAME
 *   PG_KSYM(x)    the symbol of kernel x
 * Defines: const poolgrad_kernel PG_KSYM(nhwc), PG_KSYM(nhwc_s1), PG_KSYM(nhwc_w1), PG_KSYM(nhwc_b),
 * PG_KSYM(nhwc_q).
 *
 * gradInput channels-last (C contiguous); work items are the rows (n, d, h) of IW pixels. All lanes of
 * a vector share their windows and divisor. The kinds but _nhwc_s1 and _nhwc_w1 run one gradInput row at a
 * time through one pixel walker (nhwc_row): pixels in W order, f16/bf16 pixels sharing their windows
 * computed and narrowed once (up to PG_CLP), channel blocks of up to PG_CU vectors (nhwc_block), terms: the
 * row's window rows (od, oh), then ow; _nhwc_b and _nhwc_q take nhwc_row_few instead for k2s1 or k3s2 along W
 * (pixel bodies of constant shape).
 *   _nhwc    direct: gradOutput C contiguous, divided per term (the divisor is (float) of the int64
 *            product, as in the reference).
 *   _nhwc_b  banded: q divided inside run into a stack band (qsource.h): rows in groups of PG_CBR;
 *            within a group, channel blocks of Cb channels (so one row's window rows of one block fit
 *            the band), then rows. The band holds the window rows (od, oh) x OW x Cb, SD, SH >= the
 *            window rows of one gradInput row, so a row's own rows never evict each other; the group's
 *            gradInput rows stay in cache between blocks. Any gradOutput view.
 *   _nhwc_q  workspace: a prepare pass writes q in PG_QC order. Any gradOutput view.
 *   _nhwc_s1 stride 1 and k = 3 along W: its own walk, channel blocks outside, pixels inside, the q of a
 *            pixel's three windows kept in registers, read from a per-thread ring of divided window rows
 *            (below).
 *   _nhwc_w1 k <= s on every axis: its own walk, over a row's windows instead of its pixels (below).
 */
#ifndef PG_KSYM
#error "nhwc_tmpl.h is a template: include it from kernels_tmpl.h"
#endif

/* the blocking every channels-last kind shares: rows (n, d, h) */
static inline poolgrad_kernel_conf pg_nhwc_conf(const poolgrad_problem *pr)
{
    return (poolgrad_kernel_conf){ .work_items = pr->n * pr->in[0] * pr->in[1] };
}

/*
 * The divisors of the direct kind's terms: window row tt's D x H factor fdh[tt], and when every divisor is
 * exact in float (pg_div_small) and the W axis is tabulated, the float factors (pg_dfac) ffdh[tt] and fw[ow]
 * whose product is the term's divisor factor (exact: products of integers up to 2^24, or of powers of two),
 * so that a term costs a multiplication instead of a window-extent computation.
 */
typedef struct pg_tdiv {
    int64_t fdh[PG_TMAX];
    float ffdh[PG_TMAX];
    const float *fw; /* NULL: from fdh and the W axis */
} pg_tdiv;

/* Channels [c0, c1) in the block shapes a block function is inlined for: PG_CU vectors while they fit, then 3, 2
 * or 1 vectors, then fewer than VL lanes (nv 0); BLOCK(c, nv, nl) is expanded for each. */
_Static_assert(PG_CU == 4, "PG_CHANNEL_BLOCKS takes the vectors left after the full blocks as 3, 2 or 1");
#define PG_CHANNEL_BLOCKS(c0, c1, BLOCK) \
    do { \
        int64_t c_ = (c0); \
        for (; c_ + PG_CU * VL <= (c1); c_ += PG_CU * VL) \
            BLOCK(c_, PG_CU, VL); \
        switch (((c1) - c_) / VL) { \
        case 3: BLOCK(c_, 3, VL); c_ += 3 * VL; break; \
        case 2: BLOCK(c_, 2, VL); c_ += 2 * VL; break; \
        case 1: BLOCK(c_, 1, VL); c_ += VL; break; \
        default: break; \
        } \
        if (c_ < (c1)) \
            BLOCK(c_, 0, (c1) - c_); \
    } while (0)

/* Store a channel block's sums (nhwc_block's nv, nl) to ndst pixels: f32 pixel by pixel, 16-bit narrowed once */
PG_AI void nhwc_block_store(char *const *dst, int ndst, int64_t c, int nv, int64_t nl, const vf *acc, bool stream,
                            poolgrad_dtype dt)
{
    const int64_t es = pg_es(dt);
    if (nv == 0) {
        if (dt == POOLGRAD_F32) {
            for (int r = 0; r < ndst; r++)
                pg_st_n(dst[r] + c * es, acc[0], nl, dt);
        } else { /* narrow once */
            const vh bits = vh_from_vf(acc[0], dt);
            for (int r = 0; r < ndst; r++)
                vh_storeu_part(dst[r] + c * es, bits, nl);
        }
    } else {
        if (dt == POOLGRAD_F32 || ndst == 1) {
            for (int r = 0; r < ndst; r++) /* pixel by pixel: sequential stores */
                for (int u = 0; u < nv; u++)
                    pg_st_stream(dst[r] + (c + u * VL) * es, acc[u], dt, stream);
        } else { /* narrow once, store the same bits to every pixel */
            vh bits[PG_CU];
            for (int u = 0; u < nv; u++)
                bits[u] = vh_from_vf(acc[u], dt);
            for (int r = 0; r < ndst; r++)
                for (int u = 0; u < nv; u++)
                    vh_storeu(dst[r] + (c + u * VL) * es, bits[u]);
        }
    }
}

/*
 * One channel block of nv (1..PG_CU, a constant after inlining) full vectors, or one partial vector of nl
 * lanes when nv == 0, at channel c of ndst pixels sharing their windows. Terms: window rows tt (tbase:
 * gradOutput byte offset, or q offset when use_q; td: their divisors), then ow in
 * [ow0, ow1). q at (tt, ow, c) is qws[tbase[tt] + ow * qpitch + c].
 */
PG_AI void nhwc_block(const poolgrad_problem *pr, const float *qws, const char *go_end, char *const *dst, int ndst,
                    int64_t c, int nv, int64_t nl, int T, const int64_t *tbase, const pg_tdiv *td, int64_t ow0,
                    int64_t ow1, const pg_axis *axw, bool use_q, int64_t qpitch, bool stream, poolgrad_dtype dt)
{
    const int64_t es = pg_es(dt);
    const int64_t wstep = pr->go_stride[PG_W] * es;
    const bool ovr = pr->divisor_override != 0;
    const float ovf = pg_dfac(pr, pr->divisor_override);
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
                const vf dv = vf_set1(ovr ? ovf
                                          : td->fw ? td->ffdh[tt] * td->fw[ow]
                                                   : pg_dfac(pr, td->fdh[tt] * pg_axis_factor(axw, pr, ow)));
                const char *g = pr->go + tbase[tt] + ow * wstep + c * es;
                if (nv == 0) {
                    const vf x = pg_ld_view(g, go_end, nl, dt);
                    acc[0] = vf_add(acc[0], pg_quot(pr, x, dv));
                } else {
                    for (int u = 0; u < nv; u++)
                        acc[u] = vf_add(acc[u], pg_quot(pr, pg_ld(g + u * VL * es, dt), dv));
                }
            }
        }
    }
    nhwc_block_store(dst, ndst, c, nv, nl, acc, stream, dt);
}

/*
 * nhwc_block (use_q) for two pixels a, b of one row with nw windows each along W, from ow0 and ow0 + sh
 * (1 <= sh <= nw): their sums interleaved, so that twice as many independent adds are in flight, each pixel's
 * terms still in the reference's order, and the sh..nw - 1 windows they share loaded once.
 */
PG_AI void nhwc_block_px2(const float *qws, char *dsta, char *dstb, int64_t c, int nv, int64_t nl, int T,
                          const int64_t *tbase, int64_t ow0, int64_t nw, int64_t sh, int64_t qpitch, bool stream,
                          poolgrad_dtype dt)
{
    const int nr = nv == 0 ? 1 : nv;
    vf a[PG_CU], b[PG_CU];
    for (int u = 0; u < PG_CU; u++)
        a[u] = b[u] = vf_zero();
    for (int tt = 0; tt < T; tt++) {
        const float *q = qws + (tbase[tt] + ow0 * qpitch + c); /* the workspace has VL floats of slack */
        int64_t k = 0;
        for (; k < sh; k++, q += qpitch)
            for (int u = 0; u < nr; u++)
                a[u] = vf_add(a[u], vf_loadu(q + u * VL));
        for (; k < nw; k++, q += qpitch)
            for (int u = 0; u < nr; u++) {
                const vf x = vf_loadu(q + u * VL);
                a[u] = vf_add(a[u], x);
                b[u] = vf_add(b[u], x);
            }
        for (; k < nw + sh; k++, q += qpitch)
            for (int u = 0; u < nr; u++)
                b[u] = vf_add(b[u], vf_loadu(q + u * VL));
    }
    nhwc_block_store(&dsta, 1, c, nv, nl, a, stream, dt);
    nhwc_block_store(&dstb, 1, c, nv, nl, b, stream, dt);
}

/* nhwc_block_px2 over channels [c0, c1) */
PG_AI void nhwc_row_px2(const float *qws, char *da, char *db, int64_t c0, int64_t c1, int T, const int64_t *tbase,
                        int64_t ow0, int64_t nw, int64_t sh, int64_t qpitch, bool stream, poolgrad_dtype dt)
{
#define PG_PX2_BLOCK(c, nv, nl) nhwc_block_px2(qws, da, db, c, nv, nl, T, tbase, ow0, nw, sh, qpitch, stream, dt)
    PG_CHANNEL_BLOCKS(c0, c1, PG_PX2_BLOCK);
#undef PG_PX2_BLOCK
}

/* nhwc_row_px2 with k3s1's windows along W as constants (the loops unrolled) */
PG_AI void nhwc_row_px2_k3s1(const float *qws, char *da, char *db, int64_t c0, int64_t c1, int T,
                             const int64_t *tbase, int64_t ow0, int64_t qpitch, bool stream, poolgrad_dtype dt)
{
    nhwc_row_px2(qws, da, db, c0, c1, T, tbase, ow0, 3, 1, qpitch, stream, dt);
}

/*
 * k3s1 along W, four pixels of one row whose windows start at ow0, ow0 + 1, ow0 + 2, ow0 + 3: each of the six
 * windows loaded once and added to every pixel that has it (each pixel's terms still in the reference's order),
 * half a load per add instead of two thirds, and eight independent sums in flight. nr <= 2 vectors (16
 * registers hold the eight sums and a load).
 */
PG_AI void nhwc_block_px4_k3s1(const float *qws, char *const *dst, int64_t c, int nv, int64_t nl, int T,
                               const int64_t *tbase, int64_t ow0, int64_t qpitch, bool stream, poolgrad_dtype dt)
{
    const int nr = nv == 0 ? 1 : nv;
    vf a0[2], a1[2], a2[2], a3[2];
    for (int u = 0; u < 2; u++)
        a0[u] = a1[u] = a2[u] = a3[u] = vf_zero();
    for (int tt = 0; tt < T; tt++) {
        const float *q = qws + (tbase[tt] + ow0 * qpitch + c); /* the workspace has VL floats of slack */
        for (int u = 0; u < nr; u++) {
            const float *qu = q + u * VL;
            vf x = vf_loadu(qu);
            a0[u] = vf_add(a0[u], x);
            x = vf_loadu(qu + qpitch);
            a0[u] = vf_add(a0[u], x);
            a1[u] = vf_add(a1[u], x);
            x = vf_loadu(qu + 2 * qpitch);
            a0[u] = vf_add(a0[u], x);
            a1[u] = vf_add(a1[u], x);
            a2[u] = vf_add(a2[u], x);
            x = vf_loadu(qu + 3 * qpitch);
            a1[u] = vf_add(a1[u], x);
            a2[u] = vf_add(a2[u], x);
            a3[u] = vf_add(a3[u], x);
            x = vf_loadu(qu + 4 * qpitch);
            a2[u] = vf_add(a2[u], x);
            a3[u] = vf_add(a3[u], x);
            x = vf_loadu(qu + 5 * qpitch);
            a3[u] = vf_add(a3[u], x);
        }
    }
    const vf *const a[4] = { a0, a1, a2, a3 };
    for (int p = 0; p < 4; p++)
        nhwc_block_store(&dst[p], 1, c, nv, nl, a[p], stream, dt);
}

/* nhwc_block_px4_k3s1 over channels [c0, c1), two vectors at a time */
PG_AI void nhwc_row_px4_k3s1(const float *qws, char *const *dst, int64_t c0, int64_t c1, int T, const int64_t *tbase,
                             int64_t ow0, int64_t qpitch, bool stream, poolgrad_dtype dt)
{
    int64_t c = c0;
    for (; c + 2 * VL <= c1; c += 2 * VL)
        nhwc_block_px4_k3s1(qws, dst, c, 2, VL, T, tbase, ow0, qpitch, stream, dt);
    if (c + VL <= c1) {
        nhwc_block_px4_k3s1(qws, dst, c, 1, VL, T, tbase, ow0, qpitch, stream, dt);
        c += VL;
    }
    if (c < c1)
        nhwc_block_px4_k3s1(qws, dst, c, 0, c1 - c, T, tbase, ow0, qpitch, stream, dt);
}

/*
 * The pixel walks (nhwc_row_px2, nhwc_row_px2_k3s1 and nhwc_row_px4_k3s1 here; nhwc_row_few,
 * nhwc_row_few_pair and nhwc_row_few_quad below) outlined once per dtype and streaming choice: inlined into the
 * run loops, their pixel bodies took the portable build (SIMDe without native paths) over the stack budget
 * (68-81 KiB); a call per row (per pixel pair or quad in nhwc_row). PG_NHWC_OUTLINE(walk, PARAMS, ARGS) defines
 * the six bodies walk_<dt>[_stream] PARAMS and walk_call(PARAMS, stream, dt), which calls the one of (stream, dt)
 * with ARGS (PARAMS and ARGS parenthesized: the walk's parameters but stream and dt, and their names).
 */
#define PG_UNPAREN(...) __VA_ARGS__
#define PG_NHWC_OUTLINE(walk, PARAMS, ARGS) \
    static __attribute__((noinline)) void walk##_f32_stream PARAMS { walk(PG_UNPAREN ARGS, true, POOLGRAD_F32); } \
    static __attribute__((noinline)) void walk##_f32 PARAMS { walk(PG_UNPAREN ARGS, false, POOLGRAD_F32); } \
    static __attribute__((noinline)) void walk##_f16_stream PARAMS { walk(PG_UNPAREN ARGS, true, POOLGRAD_F16); } \
    static __attribute__((noinline)) void walk##_f16 PARAMS { walk(PG_UNPAREN ARGS, false, POOLGRAD_F16); } \
    static __attribute__((noinline)) void walk##_bf16_stream PARAMS { walk(PG_UNPAREN ARGS, true, POOLGRAD_BF16); } \
    static __attribute__((noinline)) void walk##_bf16 PARAMS { walk(PG_UNPAREN ARGS, false, POOLGRAD_BF16); } \
    PG_AI void walk##_call(PG_UNPAREN PARAMS, bool stream, poolgrad_dtype dt) \
    { \
        if (dt == POOLGRAD_F16) \
            (stream ? walk##_f16_stream : walk##_f16)ARGS; \
        else if (dt == POOLGRAD_BF16) \
            (stream ? walk##_bf16_stream : walk##_bf16)ARGS; \
        else \
            (stream ? walk##_f32_stream : walk##_f32)ARGS; \
    }
PG_NHWC_OUTLINE(nhwc_row_px2,
                (const float *qws, char *da, char *db, int64_t c0, int64_t c1, int T, const int64_t *tbase,
                 int64_t ow0, int64_t nw, int64_t sh, int64_t qpitch),
                (qws, da, db, c0, c1, T, tbase, ow0, nw, sh, qpitch))
PG_NHWC_OUTLINE(nhwc_row_px4_k3s1,
                (const float *qws, char *const *dst, int64_t c0, int64_t c1, int T, const int64_t *tbase, int64_t ow0,
                 int64_t qpitch),
                (qws, dst, c0, c1, T, tbase, ow0, qpitch))
PG_NHWC_OUTLINE(nhwc_row_px2_k3s1,
                (const float *qws, char *da, char *db, int64_t c0, int64_t c1, int T, const int64_t *tbase,
                 int64_t ow0, int64_t qpitch),
                (qws, da, db, c0, c1, T, tbase, ow0, qpitch))

/* Whether pixels w and w + 1 have the three windows from ow and from ow + 1 */
PG_AI bool nhwc_k3s1_next2(const poolgrad_problem *pr, const pg_axis *axw, int64_t w, int64_t ow)
{
    int64_t a0, a1, b0, b1;
    pg_axis_range(axw, pr, w, &a0, &a1);
    pg_axis_range(axw, pr, w + 1, &b0, &b1);
    return a0 == ow && a1 == ow + 3 && b0 == ow + 1 && b1 == ow + 4;
}

/* The pixel walker: channels [c0, c1) of every pixel of gradInput row grow, given the row's T window rows. */
PG_AI void nhwc_row(const poolgrad_problem *pr, const float *qws, const char *go_end, char *grow, int64_t c0, int64_t c1,
                  int T, const int64_t *tbase, const pg_tdiv *td, const pg_axis *axw, bool use_q, int64_t qpitch,
                  bool stream, poolgrad_dtype dt)
{
    const int64_t es = pg_es(dt), IW = pr->in[2], wstride = pr->gi_stride[PG_W];
    for (int64_t w = 0; w < IW;) {
        int64_t ow0, ow1;
        pg_axis_range(axw, pr, w, &ow0, &ow1);
        if (use_q && w + 1 < IW) { /* pixels w and w + 1 together when their windows overlap by shifting */
            int64_t b0, b1;
            pg_axis_range(axw, pr, w + 1, &b0, &b1);
            const int64_t nw = ow1 - ow0, sh = b0 - ow0;
            if (b1 - b0 == nw && sh >= 1 && sh <= nw) {
                char *da = grow + w * wstride * es, *db = da + wstride * es;
                if (nw == 3 && sh == 1 && w + 3 < IW && nhwc_k3s1_next2(pr, axw, w + 2, ow0 + 2)) {
                    char *const d4[4] = { da, db, db + wstride * es, db + 2 * wstride * es };
                    nhwc_row_px4_k3s1_call(qws, d4, c0, c1, T, tbase, ow0, qpitch, stream, dt);
                    w += 4;
                    continue;
                }
                if (nw == 3 && sh == 1) /* k3s1 inside the row */
                    nhwc_row_px2_k3s1_call(qws, da, db, c0, c1, T, tbase, ow0, qpitch, stream, dt);
                else
                    nhwc_row_px2_call(qws, da, db, c0, c1, T, tbase, ow0, nw, sh, qpitch, stream, dt);
                w += 2;
                continue;
            }
        }
        /* following pixels with the same windows get the same bits (narrowing once pays in f16/bf16) */
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
            dst[nd++] = grow + ww * wstride * es;
#define PG_ROW_BLOCK(c, nv, nl) \
    nhwc_block(pr, qws, go_end, dst, nd, c, nv, nl, T, tbase, td, ow0, ow1, axw, use_q, qpitch, stream, dt)
        PG_CHANNEL_BLOCKS(c0, c1, PG_ROW_BLOCK);
#undef PG_ROW_BLOCK
        w = w2;
    }
}

/* k2s1 or k3s2 along W: at most two windows per pixel, and no two neighbours with the same windows (nothing
 * for nhwc_row's grouping to find) */
static inline bool pg_few_w(const poolgrad_problem *pr)
{
    return pr->k[2] == pr->s[2] + 1 && pr->s[2] <= 2;
}

/*
 * A pixel whose T window rows (<= PG_FEWT) and n windows along W (<= 2) are compile-time constants after
 * inlining: channels [c0, c1) summed from pre-divided q (band or workspace) in the reference's order (window
 * rows, then ow) and stored once. q[2 tt + j] is window row tt's q at window j of the pixel, channel 0; the
 * rows have VL floats of slack past channel c1.
 */
PG_AI void nhwc_px(const float *const *q, int T, int n, int64_t c0, int64_t c1, char *dst, bool stream,
                   poolgrad_dtype dt)
{
    const int64_t es = pg_es(dt);
    int64_t c = c0;
    for (; c + PG_CU * VL <= c1; c += PG_CU * VL) {
        vf acc[PG_CU];
        for (int u = 0; u < PG_CU; u++)
            acc[u] = vf_zero();
        for (int tt = 0; tt < T; tt++)
            for (int j = 0; j < n; j++)
                for (int u = 0; u < PG_CU; u++)
                    acc[u] = vf_add(acc[u], vf_loadu(q[2 * tt + j] + c + u * VL));
        for (int u = 0; u < PG_CU; u++)
            pg_st_stream(dst + (c + u * VL) * es, acc[u], dt, stream);
    }
    for (; c < c1; c += VL) { /* whole-vector loads: the slack */
        vf acc = vf_zero();
        for (int tt = 0; tt < T; tt++)
            for (int j = 0; j < n; j++)
                acc = vf_add(acc, vf_loadu(q[2 * tt + j] + c));
        if (c + VL <= c1)
            pg_st_stream(dst + c * es, acc, dt, stream);
        else
            pg_st_n(dst + c * es, acc, c1 - c, dt);
    }
}

/*
 * The pixel walk of _nhwc_b and _nhwc_q when a row has at most PG_FEWT window rows and W is k2s1 or k3s2
 * (pg_few_w; resnet's pooling): per pixel a switch to one of nhwc_px's constant shapes instead of nhwc_row's
 * general loops and grouping.
 */
PG_AI void nhwc_row_few(const poolgrad_problem *pr, const float *qc, char *grow, int64_t c0, int64_t c1, int T,
                        const int64_t *tbase, const pg_axis *axw, int64_t qpitch, bool stream, poolgrad_dtype dt)
{
    const int64_t es = pg_es(dt), IW = pr->in[2], wstride = pr->gi_stride[PG_W];
    for (int64_t w = 0; w < IW; w++) {
        int64_t ow0, ow1;
        pg_axis_range(axw, pr, w, &ow0, &ow1);
        const float *q[2 * PG_FEWT];
        for (int tt = 0; tt < T; tt++)
            for (int j = 0; j < 2 && ow0 + j < ow1; j++)
                q[2 * tt + j] = qc + tbase[tt] + (ow0 + j) * qpitch;
        char *dst = grow + w * wstride * es;
        switch ((ow1 - ow0) * 8 + T) {
        case 1 * 8 + 1: nhwc_px(q, 1, 1, c0, c1, dst, stream, dt); break;
        case 1 * 8 + 2: nhwc_px(q, 2, 1, c0, c1, dst, stream, dt); break;
        case 1 * 8 + 3: nhwc_px(q, 3, 1, c0, c1, dst, stream, dt); break;
        case 1 * 8 + 4: nhwc_px(q, 4, 1, c0, c1, dst, stream, dt); break;
        case 2 * 8 + 1: nhwc_px(q, 1, 2, c0, c1, dst, stream, dt); break;
        case 2 * 8 + 2: nhwc_px(q, 2, 2, c0, c1, dst, stream, dt); break;
        case 2 * 8 + 3: nhwc_px(q, 3, 2, c0, c1, dst, stream, dt); break;
        case 2 * 8 + 4: nhwc_px(q, 4, 2, c0, c1, dst, stream, dt); break;
        default: nhwc_px(q, 0, 0, c0, c1, dst, stream, dt); break; /* no window: +0.0 */
        }
    }
}

/*
 * Two gradInput rows a and b of the same (n, d) whose window rows are [o, o + 1) and [o, o + 2) (k3s2 along H:
 * rows 2o and 2o + 1): row a's terms at a pixel are the first terms of row b's there, so row b's sum goes on
 * from row a's (same bits, a third fewer loads and adds than the two rows apart). q[j]: window row o at window
 * j of the pixel; q[2 + j]: window row o + 1. n (<= 2) is a compile-time constant after inlining.
 */
PG_AI void nhwc_px_pair(const float *const *q, int n, int64_t c0, int64_t c1, char *dsta, char *dstb, bool stream,
                        poolgrad_dtype dt)
{
    const int64_t es = pg_es(dt);
    int64_t c = c0;
    for (; c + PG_CU * VL <= c1; c += PG_CU * VL) {
        vf acc[PG_CU];
        for (int u = 0; u < PG_CU; u++)
            acc[u] = vf_zero();
        for (int j = 0; j < n; j++)
            for (int u = 0; u < PG_CU; u++)
                acc[u] = vf_add(acc[u], vf_loadu(q[j] + c + u * VL));
        for (int u = 0; u < PG_CU; u++)
            pg_st_stream(dsta + (c + u * VL) * es, acc[u], dt, stream);
        for (int j = 0; j < n; j++)
            for (int u = 0; u < PG_CU; u++)
                acc[u] = vf_add(acc[u], vf_loadu(q[2 + j] + c + u * VL));
        for (int u = 0; u < PG_CU; u++)
            pg_st_stream(dstb + (c + u * VL) * es, acc[u], dt, stream);
    }
    for (; c < c1; c += VL) { /* whole-vector loads: the slack */
        vf acc = vf_zero();
        for (int j = 0; j < n; j++)
            acc = vf_add(acc, vf_loadu(q[j] + c));
        if (c + VL <= c1)
            pg_st_stream(dsta + c * es, acc, dt, stream);
        else
            pg_st_n(dsta + c * es, acc, c1 - c, dt);
        for (int j = 0; j < n; j++)
            acc = vf_add(acc, vf_loadu(q[2 + j] + c));
        if (c + VL <= c1)
            pg_st_stream(dstb + c * es, acc, dt, stream);
        else
            pg_st_n(dstb + c * es, acc, c1 - c, dt);
    }
}

/* nhwc_row_few for a pair of rows (nhwc_px_pair): ta, tb the q offsets of window rows o and o + 1 */
PG_AI void nhwc_row_few_pair(const poolgrad_problem *pr, const float *qc, char *grow_a, char *grow_b, int64_t c0,
                             int64_t c1, int64_t ta, int64_t tb, const pg_axis *axw, int64_t qpitch, bool stream,
                             poolgrad_dtype dt)
{
    const int64_t es = pg_es(dt), IW = pr->in[2], wstride = pr->gi_stride[PG_W];
    for (int64_t w = 0; w < IW; w++) {
        int64_t ow0, ow1;
        pg_axis_range(axw, pr, w, &ow0, &ow1);
        const float *q[4] = { qc, qc, qc, qc }; /* set: gcc cannot tell that only the first n are read */
        for (int j = 0; j < 2 && ow0 + j < ow1; j++) {
            q[j] = qc + ta + (ow0 + j) * qpitch;
            q[2 + j] = qc + tb + (ow0 + j) * qpitch;
        }
        char *da = grow_a + w * wstride * es, *db = grow_b + w * wstride * es;
        switch (ow1 - ow0) {
        case 1: nhwc_px_pair(q, 1, c0, c1, da, db, stream, dt); break;
        case 2: nhwc_px_pair(q, 2, c0, c1, da, db, stream, dt); break;
        default: /* no window: +0.0 */
            nhwc_px(q, 0, 0, c0, c1, da, stream, dt);
            nhwc_px(q, 0, 0, c0, c1, db, stream, dt);
            break;
        }
    }
}

/* Whether gradInput row p (one window row: T == 1) and the next row form a pair for nhwc_row_few_pair: same
 * (n, d), and the next row's H windows are p's and the one after. */
PG_AI bool nhwc_pairs_next(const poolgrad_problem *pr, const pg_axis *axh, pg_pos p, int T)
{
    if (T != 1 || p.h + 1 >= pr->in[1])
        return false;
    int64_t a0, a1, b0, b1;
    pg_axis_range(axh, pr, p.h, &a0, &a1);
    pg_axis_range(axh, pr, p.h + 1, &b0, &b1);
    return a1 == a0 + 1 && b0 == a0 && b1 == a0 + 2;
}

/*
 * Four gradInput rows (d, h), (d, h + 1), (d + 1, h), (d + 1, h + 1) of one n whose window rows along D and H
 * are [a, a + 1), [a, a + 1), [a, a + 2), [a, a + 2) and [b, b + 1), [b, b + 2), [b, b + 1), [b, b + 2) (k3s2
 * along D and H): in the reference's order (od, then oh, then ow) each row's terms at a pixel begin with
 * another's, (a, b) -> (a, b + 1) -> (a + 1, b) (a + 1, b + 1) for rows 00, 01, 11, and (a, b) -> (a + 1, b)
 * for row 10, so the sums go on from one another (same bits, 5 instead of 9 adds per window along W). q[j],
 * q[2 + j], q[4 + j], q[6 + j]: window rows (a, b), (a, b + 1), (a + 1, b), (a + 1, b + 1) at window j of the
 * pixel; n (<= 2) a compile-time constant after inlining.
 */
PG_AI void nhwc_px_quad(const float *const *q, int n, int64_t c0, int64_t c1, char *const *d, bool stream,
                        poolgrad_dtype dt)
{
    const int64_t es = pg_es(dt);
    int64_t c = c0;
    for (; c + PG_CU * VL <= c1; c += PG_CU * VL) {
        vf acc[PG_CU], acc10[PG_CU];
        for (int u = 0; u < PG_CU; u++)
            acc[u] = vf_zero();
        for (int j = 0; j < n; j++)
            for (int u = 0; u < PG_CU; u++)
                acc[u] = vf_add(acc[u], vf_loadu(q[j] + c + u * VL));
        for (int u = 0; u < PG_CU; u++) {
            pg_st_stream(d[0] + (c + u * VL) * es, acc[u], dt, stream);
            acc10[u] = acc[u];
        }
        for (int j = 0; j < n; j++)
            for (int u = 0; u < PG_CU; u++)
                acc[u] = vf_add(acc[u], vf_loadu(q[2 + j] + c + u * VL));
        for (int u = 0; u < PG_CU; u++)
            pg_st_stream(d[1] + (c + u * VL) * es, acc[u], dt, stream);
        for (int t = 4; t <= 6; t += 2)
            for (int j = 0; j < n; j++)
                for (int u = 0; u < PG_CU; u++)
                    acc[u] = vf_add(acc[u], vf_loadu(q[t + j] + c + u * VL));
        for (int u = 0; u < PG_CU; u++)
            pg_st_stream(d[3] + (c + u * VL) * es, acc[u], dt, stream);
        for (int j = 0; j < n; j++)
            for (int u = 0; u < PG_CU; u++)
                acc10[u] = vf_add(acc10[u], vf_loadu(q[4 + j] + c + u * VL));
        for (int u = 0; u < PG_CU; u++)
            pg_st_stream(d[2] + (c + u * VL) * es, acc10[u], dt, stream);
    }
    for (; c < c1; c += VL) { /* whole-vector loads: the slack */
        const bool full = c + VL <= c1;
        vf acc = vf_zero();
        for (int j = 0; j < n; j++)
            acc = vf_add(acc, vf_loadu(q[j] + c));
        vf acc10 = acc;
        if (full)
            pg_st_stream(d[0] + c * es, acc, dt, stream);
        else
            pg_st_n(d[0] + c * es, acc, c1 - c, dt);
        for (int j = 0; j < n; j++)
            acc = vf_add(acc, vf_loadu(q[2 + j] + c));
        if (full)
            pg_st_stream(d[1] + c * es, acc, dt, stream);
        else
            pg_st_n(d[1] + c * es, acc, c1 - c, dt);
        for (int t = 4; t <= 6; t += 2)
            for (int j = 0; j < n; j++)
                acc = vf_add(acc, vf_loadu(q[t + j] + c));
        if (full)
            pg_st_stream(d[3] + c * es, acc, dt, stream);
        else
            pg_st_n(d[3] + c * es, acc, c1 - c, dt);
        for (int j = 0; j < n; j++)
            acc10 = vf_add(acc10, vf_loadu(q[4 + j] + c));
        if (full)
            pg_st_stream(d[2] + c * es, acc10, dt, stream);
        else
            pg_st_n(d[2] + c * es, acc10, c1 - c, dt);
    }
}

/* nhwc_row_few for four rows (nhwc_px_quad): grow[0..3] rows 00, 01, 10, 11; t00 the q offset of window row
 * (a, b), dh and dd the offsets from it to (a, b + 1) and to (a + 1, b) */
PG_AI void nhwc_row_few_quad(const poolgrad_problem *pr, const float *qc, char *const *grow, int64_t c0, int64_t c1,
                             int64_t t00, int64_t dh, int64_t dd, const pg_axis *axw, int64_t qpitch, bool stream,
                             poolgrad_dtype dt)
{
    const int64_t es = pg_es(dt), IW = pr->in[2], wstride = pr->gi_stride[PG_W];
    for (int64_t w = 0; w < IW; w++) {
        int64_t ow0, ow1;
        pg_axis_range(axw, pr, w, &ow0, &ow1);
        const float *q[8] = { qc, qc, qc, qc, qc, qc, qc, qc }; /* set: gcc cannot tell that only n per row are read */
        for (int j = 0; j < 2 && ow0 + j < ow1; j++) {
            const float *b = qc + t00 + (ow0 + j) * qpitch;
            q[j] = b;
            q[2 + j] = b + dh;
            q[4 + j] = b + dd;
            q[6 + j] = b + dd + dh;
        }
        char *d[4];
        for (int r = 0; r < 4; r++)
            d[r] = grow[r] + w * wstride * es;
        switch (ow1 - ow0) {
        case 1: nhwc_px_quad(q, 1, c0, c1, d, stream, dt); break;
        case 2: nhwc_px_quad(q, 2, c0, c1, d, stream, dt); break;
        default: /* no window: +0.0 */
            for (int r = 0; r < 4; r++)
                nhwc_px(q, 0, 0, c0, c1, d[r], stream, dt);
            break;
        }
    }
}

/* Whether the D windows of plane p.d are [a, a + 1) and those of the next plane [a, a + 2) (k3s2 along D:
 * planes 2a and 2a + 1), so that nhwc_row_few_quad can walk the two planes' rows four at a time; and at most
 * two windows along H, so that every row of the two planes has at most PG_FEWT window rows (the rows outside a
 * quad take nhwc_row_few) */
PG_AI bool nhwc_planes_pair(const poolgrad_problem *pr, const pg_axis *axd, pg_pos p)
{
    if (p.d + 1 >= pr->in[0] || pg_ceil_div(pr->k[1], pr->s[1]) > 2 || PG_FEWT < 4)
        return false;
    int64_t a0, a1, b0, b1;
    pg_axis_range(axd, pr, p.d, &a0, &a1);
    pg_axis_range(axd, pr, p.d + 1, &b0, &b1);
    return a1 == a0 + 1 && b0 == a0 && b1 == a0 + 2;
}

PG_NHWC_OUTLINE(nhwc_row_few,
                (const poolgrad_problem *pr, const float *qc, char *grow, int64_t c0, int64_t c1, int T,
                 const int64_t *tbase, const pg_axis *axw, int64_t qpitch),
                (pr, qc, grow, c0, c1, T, tbase, axw, qpitch))
PG_NHWC_OUTLINE(nhwc_row_few_pair,
                (const poolgrad_problem *pr, const float *qc, char *grow_a, char *grow_b, int64_t c0, int64_t c1,
                 int64_t ta, int64_t tb, const pg_axis *axw, int64_t qpitch),
                (pr, qc, grow_a, grow_b, c0, c1, ta, tb, axw, qpitch))
PG_NHWC_OUTLINE(nhwc_row_few_quad,
                (const poolgrad_problem *pr, const float *qc, char *const *grow, int64_t c0, int64_t c1, int64_t t00,
                 int64_t dh, int64_t dd, const pg_axis *axw, int64_t qpitch),
                (pr, qc, grow, c0, c1, t00, dh, dd, axw, qpitch))
#undef PG_NHWC_OUTLINE
#undef PG_UNPAREN

/* the band of a channel block: window rows x OW x Cb floats, channels [cb0, cb0 + cbn) */
typedef struct pg_nhwc_band {
    pg_qband b;
    int64_t cb0, cbn, Cb;
    const pg_axis *axw;
} pg_nhwc_band;

/*
 * The window rows (od, oh) of gradInput row (n, d, h), ascending: tbase (gradOutput byte offset; the
 * workspace offset with use_q; the band offset, the row divided in on a miss, with bd) and, direct only
 * (nhwc_block reads it only then), td: the divisors, and when wkey is not NULL, wkey: the window row's index
 * (n, od, oh) in gradOutput. Returns their number.
 */
PG_AI int nhwc_terms(const poolgrad_problem *pr, const pg_axis *axd, const pg_axis *axh, pg_pos p, bool use_q,
                   pg_nhwc_band *bd, int64_t *tbase, pg_tdiv *td, int64_t *wkey, poolgrad_dtype dt)
{
    const int64_t es = pg_es(dt);
    const int64_t C = pr->c, OD = pr->out[0], OH = pr->out[1], OW = pr->out[2];
    const int64_t *os = pr->go_stride;
    const bool ovr = pr->divisor_override != 0;
    int64_t od0, od1, oh0, oh1;
    pg_axis_range(axd, pr, p.d, &od0, &od1);
    pg_axis_range(axh, pr, p.h, &oh0, &oh1);
    int T = 0;
    for (int64_t od = od0; od < od1; od++) {
        const int64_t fd = ovr ? 1 : pg_axis_factor(axd, pr, od);
        for (int64_t oh = oh0; oh < oh1; oh++, T++) {
            const int64_t key = (p.n * OD + od) * OH + oh;
            if (wkey)
                wkey[T] = key;
            if (bd) {
                int64_t sl;
                if (pg_qband_claim(&bd->b, key, od, oh, &sl)) { /* divide the row's block once: the prepare pass's division */
                    const char *g = pr->go + (p.n * os[PG_N] + od * os[PG_D] + oh * os[PG_H] + bd->cb0 * os[PG_C]) * es;
                    const int64_t fdh = ovr ? 1 : fd * pg_axis_factor(axh, pr, oh);
                    pg_q_divide(pr, PG_QC, g, 0, bd->cbn, fdh, NULL, bd->axw, NULL, bd->b.q + sl * bd->b.len, bd->Cb,
                                PG_QD_BAND, dt);
                }
                tbase[T] = sl * bd->b.len - bd->cb0;
            } else if (use_q) {
                tbase[T] = ((p.n * OD + od) * OH + oh) * OW * C;
            } else {
                tbase[T] = (p.n * os[PG_N] + od * os[PG_D] + oh * os[PG_H]) * es;
                td->fdh[T] = ovr ? 1 : fd * pg_axis_factor(axh, pr, oh);
                td->ffdh[T] = pg_dfac(pr, td->fdh[T]);
            }
        }
    }
    return T;
}

/* _nhwc (direct) and _nhwc_q (use_q: qws is the prepared workspace), one gradInput row at a time:
 * grouping rows that share their windows (computing them once) interleaves stores to several rows,
 * measured slower in every dtype than recomputing (commit 3c81a51, k2s2 bf16: 857 -> 642 us) */
PG_AI void nhwc_run_dt(const poolgrad_problem *pr, const float *qws, int64_t begin, int64_t end, bool use_q,
                     const bool stream, poolgrad_dtype dt)
{
    const int64_t es = pg_es(dt);
    const int64_t C = pr->c, ID = pr->in[0], IH = pr->in[1];
    const int64_t *gs = pr->gi_stride;
    const char *const go_end = use_q ? NULL : pg_go_end(pr, es);
    pg_axis axes[3];
    for (int a = 0; a < 3; a++)
        pg_axis_init(&axes[a], pr, a);
    int64_t tbase[PG_TMAX];
    pg_tdiv td;
    float fw[PG_AXMAX];
    td.fw = use_q ? NULL : pg_axis_dfacs(&axes[2], pr, fw);
    const bool few = pg_few_w(pr);
    pg_pos p = pg_pos_of(begin, IH, ID, 1);
    for (int64_t row = begin; row < end; row++) {
        if (use_q && few && p.h == 0 && row + 2 * IH <= end && nhwc_planes_pair(pr, &axes[0], p)) {
            /* planes d and d + 1 together: rows four at a time where H pairs too, else one at a time */
            const int64_t OH = pr->out[1], OW = pr->out[2];
            for (int64_t h = 0; h < IH;) {
                pg_pos ph = p;
                ph.h = h;
                const int T = nhwc_terms(pr, &axes[0], &axes[1], ph, true, NULL, tbase, &td, NULL, dt);
                char *grow = pr->gi + (p.n * gs[PG_N] + p.d * gs[PG_D] + h * gs[PG_H]) * es;
                if (nhwc_pairs_next(pr, &axes[1], ph, T)) {
                    char *const g4[4] = { grow, grow + gs[PG_H] * es, grow + gs[PG_D] * es,
                                          grow + (gs[PG_D] + gs[PG_H]) * es };
                    nhwc_row_few_quad_call(pr, qws, g4, 0, C, tbase[0], OW * C, OH * OW * C, &axes[2], C, stream, dt);
                    h += 2;
                    continue;
                }
                for (int e = 0; e < 2; e++) { /* (d, h), then (d + 1, h) */
                    ph.d = p.d + e;
                    const int Te = nhwc_terms(pr, &axes[0], &axes[1], ph, true, NULL, tbase, &td, NULL, dt);
                    nhwc_row_few_call(pr, qws, grow + e * gs[PG_D] * es, 0, C, Te, tbase, &axes[2], C, stream, dt);
                }
                h++;
            }
            p.d += 2; /* p.d + 1 < ID, so at most ID */
            if (p.d == ID) {
                p.d = 0;
                p.n++;
            }
            row += 2 * IH - 1;
            continue;
        }
        const int T = nhwc_terms(pr, &axes[0], &axes[1], p, use_q, NULL, tbase, &td, NULL, dt);
        char *grow = pr->gi + (p.n * gs[PG_N] + p.d * gs[PG_D] + p.h * gs[PG_H]) * es;
        if (use_q && few && row + 1 < end && nhwc_pairs_next(pr, &axes[1], p, T)) {
            const int64_t OW = pr->out[2]; /* window row o + 1 of the same (n, od) follows o in the workspace */
            nhwc_row_few_pair_call(pr, qws, grow, grow + gs[PG_H] * es, 0, C, tbase[0], tbase[0] + OW * C, &axes[2],
                                   C, stream, dt);
            pg_pos_advance(&p, 2, IH, ID, 1);
            row++;
            continue;
        }
        if (use_q && few && T <= PG_FEWT)
            nhwc_row_few_call(pr, qws, grow, 0, C, T, tbase, &axes[2], C, stream, dt);
        else
            nhwc_row(pr, qws, go_end, grow, 0, C, T, tbase, &td, &axes[2], use_q, C, stream, dt);
        pg_pos_advance(&p, 1, IH, ID, 1);
    }
    if (stream)
        v_stream_fence();
}

static bool nhwc_configure(const poolgrad_problem *pr, poolgrad_kernel_conf *conf)
{
    if (!(pg_gi_cl(pr) && pg_terms_ok(pr) && (pg_go_empty(pr) || pg_unit(pr->c, pr->go_stride[PG_C]))))
        return false;
    *conf = pg_nhwc_conf(pr);
    conf->stream_stores = pg_stream_worth(pr, pr->c);
    return true;
}

static void nhwc_run(const poolgrad_problem *pr, const poolgrad_kernel_conf *conf, void *ws, int64_t begin, int64_t end)
{
    (void)ws;
    PG_DT_DISPATCH_STREAM(pr->dtype, conf->stream_stores, nhwc_run_dt, pr, NULL, begin, end, false);
}

static bool nhwc_q_configure(const poolgrad_problem *pr, poolgrad_kernel_conf *conf)
{
    if (!(pg_gi_cl(pr) && pg_terms_ok(pr)))
        return false;
    *conf = pg_nhwc_conf(pr);
    conf->stream_stores = pg_few_w(pr) ? pg_stream_worth_half(pr, pr->c) : pg_stream_worth(pr, pr->c);
    conf->workspace_size = pg_q_workspace(pr, PG_QC);
    conf->prepare_items = pg_q_items(pr, PG_QC);
    if (conf->workspace_size >= PG_QPIPE_MIN_BYTES)
        conf->pipeline_items = pg_max(1, PG_QPIPE / pg_max(1, pr->in[2] * pr->c));
    return true;
}

static void nhwc_q_prepare(const poolgrad_problem *pr, const poolgrad_kernel_conf *conf, void *ws, int64_t begin,
                           int64_t end)
{
    PG_DT_DISPATCH(pr->dtype, pg_q_prepare_dt, pr, conf, ws, begin, end, PG_QC);
}

static void nhwc_q_run(const poolgrad_problem *pr, const poolgrad_kernel_conf *conf, void *ws, int64_t begin,
                       int64_t end)
{
    PG_DT_DISPATCH_STREAM_ANY(pr->dtype, conf->stream_stores, nhwc_run_dt, pr, ws, begin, end, true);
}

/* ---- _nhwc_s1 */

/*
 * Stride 1 and k = 3 along W, at most PG_WS1T window rows (od, oh) per gradInput row, divisors exact in float:
 * a channel block (PG_WS1V vectors) walks the row's pixels keeping, per window row, the q of the pixel's three
 * windows in registers (q(ow - 2), q(ow - 1), q(ow) with ow = w + p, +0.0 outside [0, OW)): each pixel divides
 * only its new window ow = w + p, once per window row, where _nhwc divides every term (three times as many).
 * With its thread's scratch (conf->scratch_size: the ring, PG_WS1T slots of a window row's q, OW x Cp
 * floats) a window row is divided once per run call instead of once per gradInput row using it: a row
 * divides only the window rows the previous row did not have, into the slots they free, and the walk loads q
 * from the ring. Without it (more threads than the plan's slots, or a ring over PG_WS1_RING_MAX) it divides.
 */
static bool nhwc_s1_configure(const poolgrad_problem *pr, poolgrad_kernel_conf *conf)
{
    if (!(pg_gi_cl(pr) && pg_div_small(pr) && pr->s[2] == 1 && pr->k[2] == 3 &&
          pg_ceil_div(pr->k[0], pr->s[0]) * pg_ceil_div(pr->k[1], pr->s[1]) <= PG_WS1T && pr->in[2] <= PG_AXMAX &&
          pr->out[2] <= PG_AXMAX && (pg_go_empty(pr) || pg_unit(pr->c, pr->go_stride[PG_C]))))
        return false;
    *conf = pg_nhwc_conf(pr);
    /* the q ring: OW <= PG_AXMAX, so with C bounded first the product cannot overflow */
    if (!pg_go_empty(pr) && pr->c <= PG_WS1_RING_MAX) {
        const int64_t ring = PG_WS1T * pr->out[2] * pg_ceil_div(pr->c, VL) * VL * 4;
        if (ring <= PG_WS1_RING_MAX)
            conf->scratch_size = (size_t)ring;
    }
    /* channel blocks outside, pixels inside: whole lines per pixel with the ring's load walk, or PG_WS1V vectors */
    conf->stream_stores = pg_stream_worth(pr, (PG_WS1_RING_LOADS && conf->scratch_size ? PG_WS1L : PG_WS1V) * VL);
    return true;
}

/* One pixel's sums acc into gradInput at d: NV vectors, or when NV == 0 the nl-lane tail */
PG_AI void nhwc_s1_store(char *d, const vf *acc, const int NV, int64_t nl, bool stream, poolgrad_dtype dt)
{
    if (!NV) {
        pg_st_n(d, acc[0], nl, dt);
        return;
    }
    for (int u = 0; u < NV; u++)
        pg_st_stream(d + u * VL * pg_es(dt), acc[u], dt, stream);
}

/* Channels [c, c + NV VL) (or the nl-lane tail when NV == 0) of gradInput row grow, T window rows: their q in
 * ring slots qr[t] (pixel ow at qr[t] + ow * Cp) or, qr NULL, divided here (g[t]: their gradOutput rows at
 * channel 0; dq[t * OW + ow]: the divisor factor of window (t, ow)). */
PG_AI void nhwc_s1_block(const poolgrad_problem *pr, const char *const *g, const float *dq, const float *const *qr,
                         int64_t Cp, int T, char *grow, int64_t c, const int NV, int64_t nl, bool stream, poolgrad_dtype dt)
{
    const int64_t es = pg_es(dt), IW = pr->in[2], OW = pr->out[2], p = pr->p[2];
    const int64_t wstep = pr->go_stride[PG_W] * es, gstep = pr->gi_stride[PG_W] * es;
    const int nvec = NV ? NV : 1;
    vf q0[PG_WS1T][PG_WS1V], q1[PG_WS1T][PG_WS1V], q2[PG_WS1T][PG_WS1V];
    /* q(ow) of window row t, +0.0 outside [0, OW) */
#define PG_WS1_Q(t, ow, u) \
    ((ow) >= 0 && (ow) < OW \
         ? qr ? vf_loadu(qr[t] + (ow) * Cp + c + (u) * VL) : pg_quot(pr, NV ? pg_ld(g[t] + (ow) * wstep + (c + (u) * VL) * es, dt) : pg_ld_n(g[t] + (ow) * wstep + c * es, nl, dt), \
                   vf_set1(dq[(t) * OW + (ow)])) \
         : vf_zero())
    for (int t = 0; t < PG_WS1T; t++)
        for (int u = 0; u < nvec; u++) {
            q0[t][u] = vf_zero();
            q1[t][u] = t < T ? PG_WS1_Q(t, p - 2, u) : vf_zero();
            q2[t][u] = t < T ? PG_WS1_Q(t, p - 1, u) : vf_zero();
        }
    for (int64_t w = 0; w < IW; w++) {
        vf acc[PG_WS1V];
        for (int u = 0; u < nvec; u++)
            acc[u] = vf_zero();
        for (int t = 0; t < PG_WS1T; t++)
            if (t < T)
                for (int u = 0; u < nvec; u++) {
                    q0[t][u] = q1[t][u];
                    q1[t][u] = q2[t][u];
                    q2[t][u] = PG_WS1_Q(t, w + p, u);
                    acc[u] = vf_add(vf_add(vf_add(acc[u], q0[t][u]), q1[t][u]), q2[t][u]);
                }
        nhwc_s1_store(grow + w * gstep + c * es, acc, NV, nl, stream, dt);
    }
#undef PG_WS1_Q
}

/* nhwc_s1_block from the ring: every term loaded (a block's T ring rows stay in L1 while it walks the row), so
 * that a block holds PG_WS1L vectors, as many chains of adds in flight, where the rotated registers of
 * nhwc_s1_block allow PG_WS1V. Same order: window rows ascending, then ow; the windows past the row's ends are
 * skipped instead of added as +0.0 (a sum from +0.0 is never -0.0, so adding +0.0 changes no bit). T is a
 * compile-time constant after inlining. */
PG_AI void nhwc_s1_block_ring(const poolgrad_problem *pr, const float *const *qr, int64_t Cp, const int T,
                              char *grow, int64_t c, const int NV, int64_t nl, bool stream, poolgrad_dtype dt)
{
    const int64_t es = pg_es(dt), IW = pr->in[2], OW = pr->out[2], p = pr->p[2];
    const int64_t gstep = pr->gi_stride[PG_W] * es;
    const int nvec = NV ? NV : 1;
    for (int64_t w = 0; w < IW; w++) {
        const int64_t o0 = pg_max(0, w + p - 2), o1 = pg_min(OW, w + p + 1);
        vf acc[PG_WS1L];
        for (int u = 0; u < nvec; u++)
            acc[u] = vf_zero();
        if (o1 - o0 == 3) { /* the row's inside: three windows, unrolled */
            for (int t = 0; t < T; t++)
                for (int j = 0; j < 3; j++)
                    for (int u = 0; u < nvec; u++)
                        acc[u] = vf_add(acc[u], vf_loadu(qr[t] + (o0 + j) * Cp + c + u * VL));
        } else {
            for (int t = 0; t < T; t++)
                for (int64_t ow = o0; ow < o1; ow++)
                    for (int u = 0; u < nvec; u++)
                        acc[u] = vf_add(acc[u], vf_loadu(qr[t] + ow * Cp + c + u * VL));
        }
        nhwc_s1_store(grow + w * gstep + c * es, acc, NV, nl, stream, dt);
    }
}

/* every channel block of gradInput row grow from the ring, full ones first */
PG_AI void nhwc_s1_blocks_ring(const poolgrad_problem *pr, const float *const *qr, int64_t Cp, const int T,
                               char *grow, bool stream, poolgrad_dtype dt)
{
    const int64_t C = pr->c;
    int64_t c = 0;
    for (; c + PG_WS1L * VL <= C; c += PG_WS1L * VL)
        nhwc_s1_block_ring(pr, qr, Cp, T, grow, c, PG_WS1L, VL, stream, dt);
    for (; c + VL <= C; c += VL)
        nhwc_s1_block_ring(pr, qr, Cp, T, grow, c, 1, VL, stream, dt);
    if (c < C)
        nhwc_s1_block_ring(pr, qr, Cp, T, grow, c, 0, C - c, stream, dt);
}

/* every channel block of gradInput row grow, full ones first */
PG_AI void nhwc_s1_blocks(const poolgrad_problem *pr, const char *const *g, const float *dq, const float *const *qr,
                          int64_t Cp, int T, char *grow, bool stream, poolgrad_dtype dt)
{
    const int64_t C = pr->c;
    int64_t c = 0;
    for (; c + PG_WS1V * VL <= C; c += PG_WS1V * VL)
        nhwc_s1_block(pr, g, dq, qr, Cp, T, grow, c, PG_WS1V, VL, stream, dt);
    for (; c + VL <= C; c += VL)
        nhwc_s1_block(pr, g, dq, qr, Cp, T, grow, c, 1, VL, stream, dt);
    if (c < C)
        nhwc_s1_block(pr, g, dq, qr, Cp, T, grow, c, 0, C - c, stream, dt);
}

/* q of window row g (dqt: its divisor factors per ow) into a ring slot: OW pixels of Cp floats (C rounded up
 * to VL; the lanes past C hold quotients of +0.0, never stored) */
PG_AI void nhwc_s1_qrow(const poolgrad_problem *pr, const char *g, const float *dqt, float *slot, int64_t Cp,
                        poolgrad_dtype dt)
{
    const int64_t es = pg_es(dt), C = pr->c, OW = pr->out[2], wstep = pr->go_stride[PG_W] * es;
    for (int64_t ow = 0; ow < OW; ow++) {
        const vf d = vf_set1(dqt[ow]);
        const char *src = g + ow * wstep;
        float *q = slot + ow * Cp;
        int64_t c = 0;
        for (; c + VL <= C; c += VL)
            vf_storeu(q + c, pg_quot(pr, pg_ld(src + c * es, dt), d));
        if (c < C)
            vf_storeu(q + c, pg_quot(pr, pg_ld_n(src + c * es, C - c, dt), d));
    }
}

PG_AI void nhwc_s1_run_dt(const poolgrad_problem *pr, float *ring, int64_t begin, int64_t end, const bool stream,
                          poolgrad_dtype dt)
{
    const int64_t es = pg_es(dt);
    const int64_t C = pr->c, ID = pr->in[0], IH = pr->in[1], OW = pr->out[2];
    const int64_t *gs = pr->gi_stride;
    const bool ovr = pr->divisor_override != 0;
    const float ovf = pg_dfac(pr, pr->divisor_override);
    pg_axis axes[3];
    for (int a = 0; a < 3; a++)
        pg_axis_init(&axes[a], pr, a);
    int64_t tbase[PG_TMAX];
    pg_tdiv td;
    float fw[PG_AXMAX], dq[PG_WS1T * PG_AXMAX];
    td.fw = pg_axis_dfacs(&axes[2], pr, fw); /* tabulated and exact: configure() */
    const char *const go_end = pg_go_end(pr, es);
    const int64_t Cp = pg_ceil_div(C, VL) * VL;
    int64_t tag[PG_WS1T], wkey[PG_TMAX]; /* tag[s]: the window row (wkey) slot s holds */
    bool tag_ok[PG_WS1T] = { false };
    pg_pos pos = pg_pos_of(begin, IH, ID, 1);
    for (int64_t row = begin; row < end; row++) {
        const int T = pg_go_empty(pr) ? 0 : nhwc_terms(pr, &axes[0], &axes[1], pos, false, NULL, tbase, &td, wkey, dt);
        const char *g[PG_WS1T];
        for (int t = 0; t < T; t++) {
            g[t] = pr->go + tbase[t];
            for (int64_t ow = 0; ow < OW; ow++)
                dq[t * OW + ow] = ovr ? ovf : td.ffdh[t] * fw[ow];
        }
        char *grow = pr->gi + (pos.n * gs[PG_N] + pos.d * gs[PG_D] + pos.h * gs[PG_H]) * es;
        /* the channel blocks walk the row's pixels C apart: bring in the next row's new window row and its
         * gradInput row (when dense, and in this plane) ahead of them */
        if (T > 0 && g[T - 1] + pr->go_stride[PG_H] * es + OW * pr->go_stride[PG_W] * es <= go_end)
            pg_prefetch_range(g[T - 1] + pr->go_stride[PG_H] * es, OW * pr->go_stride[PG_W] * es);
        if (!stream && row + 1 < end && pos.h + 1 < IH && gs[PG_W] == C)
            for (int64_t i = 0; i < pr->in[2] * C * es; i += 64)
                __builtin_prefetch(grow + gs[PG_H] * es + i, 1, 3);
        const float *qr[PG_WS1T] = { NULL };
        if (ring) {
            /* keep the slots of window rows this row shares with the last one; divide the new ones in */
            bool used[PG_WS1T] = { false };
            int slot_of[PG_WS1T];
            for (int t = 0; t < T; t++) {
                slot_of[t] = -1;
                for (int s = 0; s < PG_WS1T; s++)
                    if (tag_ok[s] && tag[s] == wkey[t] && !used[s]) {
                        slot_of[t] = s;
                        used[s] = true;
                        break;
                    }
            }
            for (int t = 0; t < T; t++) {
                if (slot_of[t] < 0) {
                    int s = 0;
                    while (used[s])
                        s++;
                    used[s] = true;
                    slot_of[t] = s;
                    tag[s] = wkey[t];
                    tag_ok[s] = true;
                    nhwc_s1_qrow(pr, g[t], dq + t * OW, ring + s * OW * Cp, Cp, dt);
                }
                qr[t] = ring + slot_of[t] * OW * Cp;
            }
        }
        if (ring && PG_WS1_RING_LOADS) { /* each call inlined with its own T */
            switch (T) {
            case 1: nhwc_s1_blocks_ring(pr, qr, Cp, 1, grow, stream, dt); break;
            case 2: nhwc_s1_blocks_ring(pr, qr, Cp, 2, grow, stream, dt); break;
            case 3: nhwc_s1_blocks_ring(pr, qr, Cp, 3, grow, stream, dt); break;
            default: nhwc_s1_blocks_ring(pr, qr, Cp, 0, grow, stream, dt); break; /* no window row: +0.0 */
            }
        } else if (ring) /* each call inlined with its own q source */
            nhwc_s1_blocks(pr, g, dq, qr, Cp, T, grow, stream, dt);
        else
            nhwc_s1_blocks(pr, g, dq, NULL, 0, T, grow, stream, dt);
        pg_pos_advance(&pos, 1, IH, ID, 1);
    }
    if (stream)
        v_stream_fence();
}

_Static_assert((PG_AXMAX + PG_WS1T * PG_AXMAX) * 4 + 3 * sizeof(pg_axis) + 2 * PG_TMAX * 8 + sizeof(pg_tdiv) < PG_STACK_BUDGET,
               "_nhwc_s1 run: stack buffers over the budget");

static void nhwc_s1_run(const poolgrad_problem *pr, const poolgrad_kernel_conf *conf, void *ws, int64_t begin,
                        int64_t end)
{
    /* a thread without a ring slot walks with PG_WS1V vectors, which may not be whole lines */
    const bool stream = conf->stream_stores && (ws || !PG_WS1_RING_LOADS || pg_stream_worth(pr, PG_WS1V * VL));
    PG_DT_DISPATCH_STREAM(pr->dtype, stream, nhwc_s1_run_dt, pr, conf->scratch_size ? (float *)ws : NULL, begin, end);
}

/* ---- _nhwc_w1 */

/*
 * At most one window per element (k <= s on every axis): a gradInput row has at most one window row (od, oh),
 * and along W window ow covers the pixels [ow s - p, ow s - p + k) of the row, clipped; the other pixels are
 * +0.0. A row walks its windows in order: a window's channel block is divided (and narrowed) once and stored
 * to each pixel it covers, and the pixels between windows are zeroed. _nhwc's walker does the same work per
 * pixel and term: window ranges, pixel grouping and the divisor looked up for every pixel.
 */
static bool nhwc_w1_configure(const poolgrad_problem *pr, poolgrad_kernel_conf *conf)
{
    if (!(pg_gi_cl(pr) && pr->k[0] <= pr->s[0] && pr->k[1] <= pr->s[1] && pr->k[2] <= pr->s[2] &&
          (pg_go_empty(pr) || pg_unit(pr->c, pr->go_stride[PG_C]))))
        return false;
    *conf = pg_nhwc_conf(pr);
    conf->stream_stores = pg_stream_worth(pr, pr->c);
    return true;
}

/* Channels [c, c + NV VL) (NV == 0: the nl-lane tail) of the window at gradOutput pixel g (channel 0), divided by
 * dv (g == NULL: +0.0), stored to the npix pixels from dst, gstep bytes apart. */
PG_AI void nhwc_w1_block(const poolgrad_problem *pr, const char *g, const char *go_end, vf dv, char *dst, int64_t npix,
                         int64_t gstep, int64_t c, const int NV, int64_t nl, bool stream, poolgrad_dtype dt)
{
    const int64_t es = pg_es(dt);
    const int nvec = NV ? NV : 1;
    vf q[PG_CU];
    for (int u = 0; u < nvec; u++) /* the sum of one term, from +0.0 as in the reference: -0.0 becomes +0.0 */
        q[u] = !g ? vf_zero()
                  : vf_add(vf_zero(), pg_quot(pr, NV ? pg_ld(g + (c + u * VL) * es, dt)
                                                     : pg_ld_view(g + c * es, go_end, nl, dt), dv));
    if (dt == POOLGRAD_F32) {
        for (int64_t i = 0; i < npix; i++)
            for (int u = 0; u < nvec; u++) {
                char *d = dst + i * gstep + (c + u * VL) * es;
                if (NV)
                    pg_st_stream(d, q[u], dt, stream);
                else
                    pg_st_n(d, q[u], nl, dt);
            }
    } else { /* narrow once */
        vh h[PG_CU];
        for (int u = 0; u < nvec; u++)
            h[u] = vh_from_vf(q[u], dt);
        for (int64_t i = 0; i < npix; i++)
            for (int u = 0; u < nvec; u++) {
                char *d = dst + i * gstep + (c + u * VL) * es;
                if (NV)
                    vh_storeu(d, h[u]);
                else
                    vh_storeu_part(d, h[u], nl);
            }
    }
}

/* every channel of the npix pixels from dst: the window at g divided by dv, or +0.0 when g is NULL */
PG_AI void nhwc_w1_pixels(const poolgrad_problem *pr, const char *g, const char *go_end, vf dv, char *dst,
                          int64_t npix, int64_t gstep, bool stream, poolgrad_dtype dt)
{
    const int64_t C = pr->c;
#define PG_W1_BLOCK(c, nv, nl) nhwc_w1_block(pr, g, go_end, dv, dst, npix, gstep, c, nv, nl, stream, dt)
    PG_CHANNEL_BLOCKS(0, C, PG_W1_BLOCK);
#undef PG_W1_BLOCK
}

PG_AI void nhwc_w1_run_dt(const poolgrad_problem *pr, int64_t begin, int64_t end, const bool stream, poolgrad_dtype dt)
{
    const int64_t es = pg_es(dt);
    const int64_t ID = pr->in[0], IH = pr->in[1], IW = pr->in[2], OW = pr->out[2];
    const int64_t kw = pr->k[2], sw = pr->s[2], pw = pr->p[2];
    const int64_t *gs = pr->gi_stride, *os = pr->go_stride;
    const int64_t gstep = gs[PG_W] * es, wstep = os[PG_W] * es;
    const bool ovr = pr->divisor_override != 0;
    const char *const go_end = pg_go_end(pr, es);
    pg_axis axes[3];
    for (int a = 0; a < 3; a++)
        pg_axis_init(&axes[a], pr, a);
    pg_pos p = pg_pos_of(begin, IH, ID, 1);
    for (int64_t row = begin; row < end; row++) {
        char *grow = pr->gi + (p.n * gs[PG_N] + p.d * gs[PG_D] + p.h * gs[PG_H]) * es;
        int64_t od0, od1, oh0, oh1, w = 0;
        pg_axis_range(&axes[0], pr, p.d, &od0, &od1);
        pg_axis_range(&axes[1], pr, p.h, &oh0, &oh1);
        if (od0 < od1 && oh0 < oh1 && !pg_go_empty(pr)) {
            const char *g = pr->go + (p.n * os[PG_N] + od0 * os[PG_D] + oh0 * os[PG_H]) * es;
            const int64_t fdh = ovr ? 1 : pg_axis_factor(&axes[0], pr, od0) * pg_axis_factor(&axes[1], pr, oh0);
            for (int64_t ow = 0; ow < OW && w < IW; ow++) {
                const int64_t w0 = pg_max(ow * sw - pw, w), w1 = pg_min(ow * sw - pw + kw, IW);
                if (w1 <= w0)
                    continue;
                if (w < w0)
                    nhwc_w1_pixels(pr, NULL, go_end, vf_zero(), grow + w * gstep, w0 - w, gstep, stream, dt);
                const vf dv =
                    vf_set1(pg_dfac(pr, ovr ? pr->divisor_override : fdh * pg_axis_factor(&axes[2], pr, ow)));
                nhwc_w1_pixels(pr, g + ow * wstep, go_end, dv, grow + w0 * gstep, w1 - w0, gstep, stream, dt);
                w = w1;
            }
        }
        if (w < IW)
            nhwc_w1_pixels(pr, NULL, go_end, vf_zero(), grow + w * gstep, IW - w, gstep, stream, dt);
        pg_pos_advance(&p, 1, IH, ID, 1);
    }
    if (stream)
        v_stream_fence();
}

static void nhwc_w1_run(const poolgrad_problem *pr, const poolgrad_kernel_conf *conf, void *ws, int64_t begin,
                        int64_t end)
{
    (void)ws;
    PG_DT_DISPATCH_STREAM(pr->dtype, conf->stream_stores, nhwc_w1_run_dt, pr, begin, end);
}

/* ---- _nhwc_b */

/*
 * The band: band_sd x band_sh slots (the window rows of one gradInput row, so they never evict each other)
 * of band_len = OW x channel_block floats, plus VL floats of slack. The channel block is a multiple of VL:
 * as few blocks as fit, of even size. Not supported when the band cannot hold VL channels.
 */
static bool nhwc_b_configure(const poolgrad_problem *pr, poolgrad_kernel_conf *conf)
{
    if (!(pg_gi_cl(pr) && pg_terms_ok(pr)) || !pg_band_k_ok(pr) || pr->out[2] > PG_CBQ)
        return false;
    const int64_t sd = pg_min(pg_ceil_div(pr->k[0], pr->s[0]), pg_max(pr->out[0], 1));
    const int64_t sh = pg_min(pg_ceil_div(pr->k[1], pr->s[1]), pg_max(pr->out[1], 1));
    if (sd * sh > PG_CBS)
        return false;
    const int64_t cmax = (PG_CBQ - VL) / (sd * sh * pg_max(pr->out[2], 1)) / VL * VL;
    if (cmax < VL)
        return false;
    const int64_t nb = pg_ceil_div(pr->c, cmax);
    *conf = pg_nhwc_conf(pr);
    conf->channel_block = pg_ceil_div(pg_ceil_div(pr->c, nb), VL) * VL;
    conf->stream_stores = pg_few_w(pr) ? pg_stream_worth_half(pr, conf->channel_block)
                                       : pg_stream_worth(pr, conf->channel_block);
    conf->band_sd = sd;
    conf->band_sh = sh;
    conf->band_len = pr->out[2] * conf->channel_block;
    return true;
}

PG_AI void nhwc_b_run_dt(const poolgrad_problem *pr, const poolgrad_kernel_conf *conf, int64_t begin, int64_t end,
                         const bool stream, poolgrad_dtype dt)
{
    const int64_t es = pg_es(dt);
    const int64_t C = pr->c, ID = pr->in[0], IH = pr->in[1];
    const int64_t *gs = pr->gi_stride;
    const int64_t Cb = conf->channel_block;
    const bool few = pg_few_w(pr);
    _Alignas(64) float qc[PG_CBQ];
    int64_t tag[PG_CBS];
    pg_axis axes[3];
    for (int a = 0; a < 3; a++)
        pg_axis_init(&axes[a], pr, a);
    int64_t tbase[PG_TMAX];
    pg_tdiv td; /* not read: the band holds quotients */
    td.fw = NULL;
    pg_nhwc_band band = { .b = { .q = qc, .tag = tag, .SD = conf->band_sd, .SH = conf->band_sh, .len = conf->band_len },
                        .Cb = Cb, .axw = &axes[2] };
    memset(qc, 0, sizeof qc); /* defined slack lanes */
    for (int64_t r0 = begin; r0 < end; r0 += PG_CBR) {
        const int64_t r1 = pg_min(end, r0 + PG_CBR);
        for (int64_t cb0 = 0; cb0 < C; cb0 += Cb) {
            band.cb0 = cb0;
            band.cbn = pg_min(Cb, C - cb0);
            pg_qband_clear(&band.b);
            for (int64_t row = r0; row < r1; row++) {
                const pg_pos p = pg_pos_of(row, IH, ID, 1);
                const int T = nhwc_terms(pr, &axes[0], &axes[1], p, true, &band, tbase, &td, NULL, dt);
                char *grow = pr->gi + (p.n * gs[PG_N] + p.d * gs[PG_D] + p.h * gs[PG_H]) * es;
                if (few && row + 1 < r1 && nhwc_pairs_next(pr, &axes[1], p, T)) {
                    /* the next row's new window row goes to another slot (oh mod SH): row p's stays; its
                     * terms reuse tbase (no second PG_TMAX array: the portable build's stack budget) */
                    const int64_t ta = tbase[0];
                    pg_pos pb = p;
                    pb.h++;
                    nhwc_terms(pr, &axes[0], &axes[1], pb, true, &band, tbase, &td, NULL, dt);
                    nhwc_row_few_pair_call(pr, qc, grow, grow + gs[PG_H] * es, cb0, cb0 + band.cbn, ta, tbase[1],
                                           &axes[2], Cb, stream, dt);
                    row++;
                    continue;
                }
                if (few && T <= PG_FEWT)
                    nhwc_row_few_call(pr, qc, grow, cb0, cb0 + band.cbn, T, tbase, &axes[2], Cb, stream, dt);
                else
                    nhwc_row(pr, qc, NULL, grow, cb0, cb0 + band.cbn, T, tbase, &td, &axes[2], true, Cb, stream, dt);
            }
        }
    }
    if (stream)
        v_stream_fence();
}

_Static_assert(PG_CBQ * 4 + PG_CBS * 8 + 3 * sizeof(pg_axis) + PG_TMAX * 8 + sizeof(pg_tdiv) + PG_CLP * 8 < PG_STACK_BUDGET,
               "_nhwc_b run: stack buffers over the budget");

static void nhwc_b_run(const poolgrad_problem *pr, const poolgrad_kernel_conf *conf, void *ws, int64_t begin,
                       int64_t end)
{
    (void)ws;
    PG_DT_DISPATCH_STREAM_ANY(pr->dtype, conf->stream_stores, nhwc_b_run_dt, pr, conf, begin, end);
}

/* ================================================================ the kernel table entries */

const poolgrad_kernel PG_KSYM(nhwc) = {
    .name = PG_NAME("nhwc"), .isa = PG_ISA, .configure = nhwc_configure,
    .prepare = NULL, .run = nhwc_run,
};

const poolgrad_kernel PG_KSYM(nhwc_s1) = {
    .name = PG_NAME("nhwc_s1"), .isa = PG_ISA, .configure = nhwc_s1_configure,
    .prepare = NULL, .run = nhwc_s1_run,
};

const poolgrad_kernel PG_KSYM(nhwc_w1) = {
    .name = PG_NAME("nhwc_w1"), .isa = PG_ISA, .configure = nhwc_w1_configure,
    .prepare = NULL, .run = nhwc_w1_run,
};

const poolgrad_kernel PG_KSYM(nhwc_b) = {
    .name = PG_NAME("nhwc_b"), .isa = PG_ISA, .configure = nhwc_b_configure,
    .prepare = NULL, .run = nhwc_b_run,
};

const poolgrad_kernel PG_KSYM(nhwc_q) = {
    .name = PG_NAME("nhwc_q"), .isa = PG_ISA, .configure = nhwc_q_configure,
    .prepare = nhwc_q_prepare, .run = nhwc_q_run, .prepare_needed = pg_q_needed_qc,
    .prepare_first = pg_q_first_qc,
};
