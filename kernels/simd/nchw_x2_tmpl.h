/*
 * Template: _nchw_x2, the W-vectorized kernel for non-overlapping windows of two columns (k = s = 2, p = 0
 * along W) with at most one window row per gradInput row (k <= s along D and H). Included once per ISA
 * translation unit by kernels_tmpl.h, after nchw_tmpl.h (it shares the row work items of pg_nchw_conf).
 *
 * Template parameters (defined by the including translation unit):
 *   PG_ISA        the poolgrad_isa the kernel is dispatched as
 *   PG_ISA_NAME   the kernel name prefix, used through PG_NAME
 *   PG_KSYM(x)    the symbol of kernel x
 * Defines: const poolgrad_kernel PG_KSYM(nchw_x2).
 *
 * Column w of a covered row has the one window ow = w / 2 (none when ow >= OW: the last column of an odd
 * width without ceil mode). So a row is its window row's q, each value twice: VL gradOutput values, divided
 * once, give 2 VL gradInput columns by two lane duplications (vf_dup2_lo/hi), and a 16-bit dtype is
 * narrowed once per VL values and doubled in the integer lanes (pg_st_dup2). The sum of one term is
 * +0.0 + q, as in the reference (a -0.0 quotient stores +0.0). Lanes past OW divide by 1: they load +0.0 when
 * a column past 2 OW is stored (an odd width without ceil mode), else whatever the view holds there, never stored.
 * A row without a window row (padding, k < s gaps) or with an empty gradOutput is +0.0.
 *
 * Streaming (f32 gradInputs too large to stay cached, rows contiguous in their plane): the rows sharing a
 * window row are identical and adjacent, so when the block starts on a 64-byte line and spans whole lines
 * (k2s2 rows of 56 floats: a pair is 7 lines) one row is built on the stack and the block is streamed from
 * it line after line; a pair of such rows, half a vector past whole vectors, is streamed from registers.
 * Rows of 56 floats cannot stream one by one (a row ends mid-line), and a write to a gradInput that is not
 * cached costs a read for ownership: measured on an Intel Xeon (AVX-512, one thread),
 * k2s2 f32 NCHW took 3.5 ms right after a memcpy of its size and 1.2 ms call after call. Other blocks store
 * as usual; a streamed block owns its lines, so no line is written partly streamed.
 */
#ifndef PG_KSYM
#error "nchw_x2_tmpl.h is a template: include it from kernels_tmpl.h"
#endif

/* rows adjacent in their plane, at least a vector and at most the stack row wide: what a streamed block
 * needs (the run checks it too: tests may set stream_stores on any problem) */
PG_AI bool x2_rows_adjacent(const poolgrad_problem *pr)
{
    return pr->in[2] >= VL && pr->in[2] <= PG_X2SW && pr->gi_stride[PG_H] == pr->in[2];
}

/* ... and an f32 gradInput large enough (PG_STREAM_MIN_BYTES), with line-wide vectors (PG_X2_STREAM_MIN_VECTOR_BYTES):
 * blocks of rows are then streamed whole (which ones is decided per block) */
static bool x2_stream_worth(const poolgrad_problem *pr)
{
    return pr->dtype == POOLGRAD_F32 && pg_stream_big(pr) &&
           VL * (int64_t)sizeof(float) >= PG_X2_STREAM_MIN_VECTOR_BYTES && x2_rows_adjacent(pr);
}

static bool nchw_x2_configure(const poolgrad_problem *pr, poolgrad_kernel_conf *conf)
{
    if (!(pg_gi_rows(pr) && pg_div_small(pr) && pr->k[2] == 2 && pr->s[2] == 2 && pr->p[2] == 0 &&
          pr->k[1] <= pr->s[1] && pr->k[0] <= pr->s[0] && pr->out[2] <= PG_X2OW &&
          (pg_go_empty(pr) || pg_unit(pr->out[2], pr->go_stride[PG_W]))))
        return false;
    *conf = pg_nchw_conf(pr);
    conf->w_block = pr->in[2];
    conf->stream_stores = x2_stream_worth(pr);
    return true;
}

/* The q of gradOutput values o .. o + VL - 1 of row g (D x H factor dvh, W factors fw): past_ok, a whole-vector
 * load may read past OW (inside the view) when those lanes are never stored (no column past 2 OW; levels
 * without masked loads build a partial one through the stack, a store-forwarding stall) */
PG_AI vf x2_q(const poolgrad_problem *pr, const char *g, int64_t o, vf dvh, const float *fw, const char *go_end,
              bool past_ok, poolgrad_dtype dt)
{
    const int64_t es = pg_es(dt), nl = pr->out[2] - o; /* gradOutput values, <= 0: none */
    const vf x = (nl >= VL || (past_ok && nl > 0)) && g + (o + VL) * es <= go_end ? pg_ld(g + o * es, dt)
                                                                              : pg_ld_n(g + o * es, nl, dt);
    const vf dv = pr->divisor_override != 0 ? dvh : vf_mul(dvh, vf_loadu(fw + o));
    return vf_add(vf_zero(), pg_quot(pr, x, dv));
}

/* One window row's q (gradOutput row g, D x H divisor factor dvh, W factors fw) doubled into the nr gradInput
 * rows dst; NR is nr when a constant (the stores unroll), else 0. stream (f32): the rows are adjacent
 * (x2_stream_worth), and when they start on a line and end on one, the row is built in sbuf and streamed. */
PG_AI void nchw_x2_rows(const poolgrad_problem *pr, const char *g, vf dvh, const float *fw, const char *go_end,
                        char *const *dst, int nr, const int NR, float *sbuf, const bool stream, poolgrad_dtype dt)
{
    const int64_t es = pg_es(dt), IW = pr->in[2];
    const int n = NR ? NR : nr;
    const bool whole = stream && dt == POOLGRAD_F32 && x2_rows_adjacent(pr) && ((uintptr_t)dst[0] & 63) == 0 &&
                       (n * IW) % 16 == 0;
    char *const *out = whole ? (char *const[]){ (char *)sbuf } : dst;
    const int nout = whole ? 1 : n;
    const bool past_ok = 2 * pr->out[2] >= IW;
#if PG_VEC_LEVEL >= 3
    if (whole && n == 2 && IW % VL == VL / 2) {
        /* A pair of rows half a vector longer than whole vectors (56 floats at 16 lanes), streamed from
         * registers: no round trip through sbuf, whose reloads straddle the stores that just wrote it
         * (k2s2 f32 NCDHW, Zen 4, one thread: 2.1-2.2 ms against 2.9-3.0). Row 1's vectors are its dup2
         * vectors D_i (the last one half); row 2 starts half a vector into a vector: its vectors are
         * [D_(i-1) hi | D_i lo], and [D_last lo | D_0 lo] joins the rows. (Narrower levels never get here:
         * a whole pair of 16-float lines has IW a multiple of 8.) */
        float *const d = (float *)(void *)dst[0];
        vf d0 = vf_zero(), prev = vf_zero();
        for (int64_t w = 0; w < IW; w += 2 * VL) {
            const vf b = vi_as_f(vf_to_bits(x2_q(pr, g, w / 2, dvh, fw, go_end, past_ok, dt), dt));
            for (int half = 0; half < 2 && w + half * VL < IW; half++) {
                const int64_t c = w + half * VL;
                const vf di = half ? vf_dup2_hi(b) : vf_dup2_lo(b);
                vf_stream(d + c, c + VL <= IW ? di : vf_cat_lo_lo(di, d0));
                if (c == 0)
                    d0 = di;
                else
                    vf_stream(d + IW + c - VL / 2, vf_cat_hi_lo(prev, di));
                prev = di;
            }
        }
        return;
    }
#endif
    for (int64_t w = 0; w < IW; w += 2 * VL) {
        const vf v = x2_q(pr, g, w / 2, dvh, fw, go_end, past_ok, dt);
        const int64_t m = pg_min(2 * VL, IW - w);
        for (int r = 0; r < nout; r++)
            pg_st_dup2(out[r] + w * es, v, m, dt);
    }
    if (whole) { /* the row, then its first vector again, so that a vector may wrap into the next row */
        for (int64_t i = 0; i < VL; i++)
            sbuf[IW + i] = sbuf[i];
        float *const d = (float *)(void *)dst[0];
        for (int64_t i = 0; i < n * IW; i += VL)
            vf_stream(d + i, vf_loadu(sbuf + i % IW));
    }
}

/* The D x H divisor factor of window row oh in a plane of D factor fd (fdf: its pg_dfac); fh: the H factors
 * as pg_dfac, or NULL when not tabulated; ovf: the divisor override's. */
PG_AI float x2_fdh(const poolgrad_problem *pr, const pg_axis *axh, const float *fh, float ovf, float fdf, int64_t fd,
                   int64_t oh)
{
    if (pr->divisor_override != 0)
        return ovf;
    return fh ? fdf * fh[oh] : pg_dfac(pr, fd * pg_axis_factor(axh, pr, oh));
}

PG_AI void nchw_x2_run_dt(const poolgrad_problem *pr, int64_t begin, int64_t end, const bool stream, poolgrad_dtype dt)
{
    float sbuf[PG_X2SW + 16]; /* stream: the row and its first vector again (VL <= 16) */
    const int64_t es = pg_es(dt);
    const int64_t C = pr->c, ID = pr->in[0], IH = pr->in[1], IW = pr->in[2], OW = pr->out[2];
    const int64_t *gs = pr->gi_stride, *os = pr->go_stride;
    const bool ovr = pr->divisor_override != 0, empty = pg_go_empty(pr);
    const float ovf = pg_dfac(pr, pr->divisor_override);
    const char *const go_end = pg_go_end(pr, es);
    float fw[PG_X2OW + VL]; /* the W factor of window ow (1.0 past OW: those lanes divide +0.0) */
    for (int64_t ow = 0; ow < OW + VL; ow++)
        fw[ow] = !ovr && ow < OW ? pg_dfac(pr, pg_factor(pr, 2, ow)) : 1.0f;
    pg_axis axes[2];
    pg_axis_init(&axes[0], pr, 0);
    pg_axis_init(&axes[1], pr, 1);
    /* the H factor of window row oh as a divisor factor (pg_dfac); a product of two such factors is the
     * factor of the product (powers of two, or integers whose product is exact in float: pg_div_small) */
    float fh[PG_AXMAX];
    const bool fh_tab = axes[1].tab && !ovr;
    for (int64_t oh = 0; fh_tab && oh < pr->out[1]; oh++)
        fh[oh] = pg_dfac(pr, axes[1].f[oh]);
    /* window row oh has rows 2 oh, 2 oh + 1 (k = s = 2, p = 0 along H): these pairs are walked without the
     * per-row window lookups. 16-bit rows, half the bytes, were bound by that work (k2s2 f16/bf16 NCHW and
     * NCDHW, one thread: 0.78-1.00 of the time over three interleaved runs, AVX-512 and AVX2 caps); f32 rows are
     * bound by memory and took 1.02-1.16 of the time, so they keep the row walk */
    const bool pairs = dt != POOLGRAD_F32 && pr->k[1] == 2 && pr->s[1] == 2 && pr->p[1] == 0;
    pg_pos pos = pg_pos_of(begin, IH, ID, C);
    for (int64_t row = begin; row < end;) { /* one plane (n, c, d), rows [pos.h, hend) */
        int64_t od0, od1;
        pg_axis_range(&axes[0], pr, pos.d, &od0, &od1);
        const bool dnone = empty || od0 >= od1;
        const int64_t gi_plane = pos.n * gs[PG_N] + pos.c * gs[PG_C] + pos.d * gs[PG_D];
        const int64_t go_plane = dnone ? 0 : pos.n * os[PG_N] + pos.c * os[PG_C] + od0 * os[PG_D];
        const int64_t fd = ovr || dnone ? 1 : pg_axis_factor(&axes[0], pr, od0);
        const float fdf = pg_dfac(pr, fd);
        const int64_t hend = pg_min(IH, pos.h + (end - row));
        for (int64_t h = pos.h; h < hend;) {
            if (pairs && !dnone && h % 2 == 0) {
                for (; h + 2 <= hend; h += 2) { /* a last odd row has no window or one of one row */
                    const int64_t oh = h / 2;
                    char *dst[2] = { pr->gi + (gi_plane + h * gs[PG_H]) * es,
                                     pr->gi + (gi_plane + (h + 1) * gs[PG_H]) * es };
                    const vf dvh = vf_set1(x2_fdh(pr, &axes[1], fh_tab ? fh : NULL, ovf, fdf, fd, oh));
                    nchw_x2_rows(pr, pr->go + (go_plane + oh * os[PG_H]) * es, dvh, fw, go_end, dst, 2, 2, sbuf,
                                 stream, dt);
                }
                if (h >= hend)
                    break;
            }
            int64_t oh0, oh1;
            pg_axis_range(&axes[1], pr, h, &oh0, &oh1);
            const bool none = dnone || oh0 >= oh1;
            /* the run of the next rows (up to PG_X2R) with the same window row (k <= s: the rest of the
             * window's rows), or none */
            int nr = none ? 1 : (int)pg_min(PG_X2R, pg_min(oh0 * pr->s[1] - pr->p[1] + pr->k[1], hend) - h);
            while (none && nr < PG_X2R && h + nr < hend) {
                int64_t b, e;
                pg_axis_range(&axes[1], pr, h + nr, &b, &e);
                if (!dnone && b < e)
                    break;
                nr++;
            }
            char *dst[PG_X2R];
            for (int r = 0; r < nr; r++)
                dst[r] = pr->gi + (gi_plane + (h + r) * gs[PG_H]) * es;
            if (none) {
                for (int r = 0; r < nr; r++)
                    pg_fill_bits(dst[r], IW, 0, dt); /* +0.0: all-zero bits in every dtype */
            } else {
                const char *g = pr->go + (go_plane + oh0 * os[PG_H]) * es;
                const float fdh = x2_fdh(pr, &axes[1], fh_tab ? fh : NULL, ovf, fdf, fd, oh0);
                switch (nr) {
                case 1: nchw_x2_rows(pr, g, vf_set1(fdh), fw, go_end, dst, 1, 1, sbuf, stream, dt); break;
                case 2: nchw_x2_rows(pr, g, vf_set1(fdh), fw, go_end, dst, 2, 2, sbuf, stream, dt); break;
                default: nchw_x2_rows(pr, g, vf_set1(fdh), fw, go_end, dst, nr, 0, sbuf, stream, dt); break;
                }
            }
            h += nr;
        }
        row += hend - pos.h;
        pg_pos_advance(&pos, (int)(hend - pos.h), IH, ID, C);
    }
    if (stream)
        v_stream_fence();
}

_Static_assert((PG_X2OW + 64 + PG_AXMAX + PG_X2SW + 16) * 4 + 2 * sizeof(pg_axis) < PG_STACK_BUDGET,
               "_nchw_x2 run: stack buffers over the budget");

static void nchw_x2_run(const poolgrad_problem *pr, const poolgrad_kernel_conf *conf, void *ws, int64_t begin,
                        int64_t end)
{
    (void)ws;
    PG_DT_DISPATCH_STREAM(pr->dtype, conf->stream_stores, nchw_x2_run_dt, pr, begin, end);
}

const poolgrad_kernel PG_KSYM(nchw_x2) = {
    .name = PG_NAME("nchw_x2"), .isa = PG_ISA, .configure = nchw_x2_configure,
    .prepare = NULL, .run = nchw_x2_run,
};
