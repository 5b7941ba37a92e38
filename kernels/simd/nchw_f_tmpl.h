/*
 * Template: _nchw_f, the flat-plane kernel for narrow planes with stride 1 along H and W and "same"
 * width (OW == IW: 2 p = k - 1 along W). Included once per ISA translation unit by kernels_tmpl.h, after
 * nchw_tmpl.h (it shares the row work items of pg_nchw_conf).
 *
 * Template parameters (defined by the including translation unit):
 *   PG_ISA        the poolgrad_isa the kernel is dispatched as
 *   PG_ISA_NAME   the kernel name prefix, used through PG_NAME
 *   PG_KSYM(x)    the symbol of kernel x
 * Defines: const poolgrad_kernel PG_KSYM(nchw_f).
 *
 * A plane's gradInput is one flat array (e = h IW + w), and so is its q: the band holds q(oh, ow) at
 * (oh + A) IW + ow + B with A = kh - 1 - ph, B = kw - 1 - pw, +0.0 in the A rows above and below. Then
 * term (i, j) of element e (window oh = h - A + i, ow = w - B + j, i and j ascending) is band[e + i IW + j]:
 * VL consecutive elements of the plane, across row ends, take each term with one shifted load. A row
 * outside [0, OH) reads the zero rows (+0.0: exact, acc is never -0.0); a column outside [0, OW) would
 * read the neighbouring row's q, so that term is masked off in those lanes (vf_add_if, the same as adding
 * +0.0). Each lane sums the reference's terms in its order. No lane is spent on a row tail, except the
 * range's last vector: narrow rows (35 columns: 48 lanes in whole vectors per row) fill every lane.
 * The q of the rows a range needs are divided flat, one pass over the contiguous gradOutput plane, by a
 * divisor plane computed once per call (the exact float products pg_q_divide uses). D is trivial
 * (k = s = 1, p = 0 along D: od = d).
 */
#ifndef PG_KSYM
#error "nchw_f_tmpl.h is a template: include it from kernels_tmpl.h"
#endif

/* band floats: the plane's rows with kh - 1 zero rows, kw - 1 columns of overhang, and the loads of a
 * block's PG_FR vectors past the plane's end */
static inline int64_t pg_f_band(const poolgrad_problem *pr)
{
    return (pr->in[1] + pr->k[1] - 1) * pr->in[2] + pr->k[2] + PG_FR * VL;
}

static bool nchw_f_configure(const poolgrad_problem *pr, poolgrad_kernel_conf *conf)
{
    const int64_t IH = pr->in[1], IW = pr->in[2], OH = pr->out[1], OW = pr->out[2];
    if (!(pg_gi_rows(pr) && pg_div_small(pr) && pr->k[0] == 1 && pr->s[0] == 1 && pr->p[0] == 0 && pr->s[1] == 1 &&
          pr->s[2] == 1 && OW == IW && pr->k[2] <= PG_FK && pr->k[2] % 2 == 1 && IW >= 1 && IH >= 1))
        return false;
    /* flat planes: rows back to back in gradInput, and in gradOutput when it is read */
    if (!((IH <= 1 || pr->gi_stride[PG_H] == IW) && pr->gi_stride[PG_W] == 1))
        return false;
    if (!pg_go_empty(pr) && !(pr->go_stride[PG_W] == 1 && (OH <= 1 || pr->go_stride[PG_H] == OW)))
        return false;
    if (pg_f_band(pr) > PG_FQ || OH * OW + VL > PG_FQ)
        return false;
    *conf = pg_nchw_conf(pr);
    conf->w_block = IW;
    conf->band_sd = conf->band_sh = 1; /* one slot: the plane */
    conf->band_len = pg_f_band(pr);
    return true;
}

/*
 * Elements [e0, e1) of a plane from the band zb: PG_FR vectors in flight (one element's sum is a chain of
 * dependent adds). Lane columns: col (e mod IW of lane 0 .. VL - 1), advanced by VL mod IW per vector.
 * KW (k along W, odd) is a constant at every call, and so is KH unless 0 (then kh): the term loops unroll
 * and the lane masks stay in registers.
 */
PG_AI void nchw_f_sums(const float *zb, char *gi, int64_t e0, int64_t e1, int64_t IW, int64_t kh, const int KW,
                       const int KH, int64_t es, poolgrad_dtype dt)
{
    const int B = KW / 2;
    const int64_t nh = KH ? KH : kh;
    int32_t c0[VL];
    for (int64_t l = 0, x = e0 % IW; l < VL; l++, x = x + 1 == IW ? 0 : x + 1)
        c0[l] = (int32_t)x;
    vi col = vi_loadu(c0);
    const vi step = vi_set1((int32_t)(VL % IW)), wv = vi_set1((int32_t)IW), wm1 = vi_set1((int32_t)IW - 1);
    vi lim[PG_FK]; /* term j kept in the lanes whose column w has w - B + j in [0, IW): w > lim[j] (j < B), lim[j] > w (j > B) */
    for (int j = 0; j < KW; j++)
        lim[j] = vi_set1(j < B ? B - j - 1 : (int32_t)IW - j + B);
    for (int64_t e = e0; e < e1; e += PG_FR * VL) {
        const int nv = (int)pg_min(PG_FR, pg_ceil_div(e1 - e, VL));
        vf acc[PG_FR];
        vm keep[PG_FR][PG_FK];
        for (int r = 0; r < PG_FR; r++) {
            acc[r] = vf_zero();
            for (int j = 0; j < KW; j++)
                keep[r][j] = j < B ? vm_gt(col, lim[j]) : vm_gt(lim[j], col); /* (j == B: not read) */
            col = vi_add(col, step);
            col = vi_sel_gt(col, wm1, vi_sub(col, wv), col);
        }
        for (int64_t i = 0; i < nh; i++) {
            const float *q = zb + e + i * IW;
            for (int j = 0; j < KW; j++)
                for (int r = 0; r < PG_FR; r++) {
                    const vf x = vf_loadu(q + r * VL + j);
                    acc[r] = j == B ? vf_add(acc[r], x) : vf_add_if(acc[r], keep[r][j], x);
                }
        }
        for (int r = 0; r < nv; r++) {
            const int64_t o = e + r * VL, n = pg_min(VL, e1 - o);
            if (n == VL)
                pg_st(gi + o * es, acc[r], dt);
            else
                pg_st_n(gi + o * es, acc[r], n, dt);
        }
    }
}

PG_AI void nchw_f_run_dt(const poolgrad_problem *pr, const poolgrad_kernel_conf *conf, int64_t begin, int64_t end,
                         poolgrad_dtype dt)
{
    const int64_t es = pg_es(dt);
    const int64_t C = pr->c, ID = pr->in[0], IH = pr->in[1], IW = pr->in[2], OH = pr->out[1], OW = pr->out[2];
    const int64_t kh = pr->k[1], kw = pr->k[2], A = kh - 1 - pr->p[1], B = kw - 1 - pr->p[2];
    const int64_t *gs = pr->gi_stride, *os = pr->go_stride;
    const bool ovr = pr->divisor_override != 0, empty = pg_go_empty(pr);
    _Alignas(64) float zb[PG_FQ];
    _Alignas(64) float dvp[PG_FQ]; /* the divisor factor of (oh, ow) at oh OW + ow */
    memset(zb, 0, (size_t)conf->band_len * sizeof(float));
    if (!empty) { /* row 0 holds the W factors first; the slack past the plane divides the tail's unused lanes */
        const float ovf = pg_dfac(pr, pr->divisor_override);
        for (int l = 0; l < VL; l++)
            dvp[OH * OW + l] = 1.0f;
        for (int64_t ow = 0; ow < OW; ow++)
            dvp[ow] = ovr ? ovf : pg_dfac(pr, pg_factor(pr, 2, ow));
        for (int64_t oh = OH - 1; oh >= 0; oh--) {
            const float fh = ovr ? 1.0f : pg_dfac(pr, pg_factor(pr, 1, oh));
            for (int64_t ow = 0; ow < OW; ow++)
                dvp[oh * OW + ow] = ovr ? ovf : fh * dvp[ow];
        }
    }
    float *const q0 = zb + A * IW + B; /* q(0, 0) */
    for (int64_t sb = begin; sb < end;) {
        const int64_t plane = sb / IH, hs = sb - plane * IH, he = pg_min(end - plane * IH, IH);
        const int64_t d = plane % ID, c = plane / ID % C, n = plane / ID / C;
        if (!empty) { /* the oh rows of gradInput rows [hs, he), flat */
            const int64_t u0 = pg_max(0, hs - A), u1 = pg_min(OH, he - 1 - A + kh);
            const char *g = pr->go + (n * os[PG_N] + c * os[PG_C] + d * os[PG_D]) * es;
            for (int64_t e = u0 * OW; e < u1 * OW; e += VL) {
                const int64_t nl = pg_min(VL, u1 * OW - e);
                const vf x = nl == VL ? pg_ld(g + e * es, dt) : pg_ld_n(g + e * es, nl, dt);
                const vf v = pg_quot(pr, x, vf_loadu(dvp + e));
                if (nl == VL)
                    vf_storeu(q0 + e, v);
                else
                    vf_storeu_part(q0 + e, v, nl); /* the zero rows below stay +0.0 */
            }
        }
        char *gi = pr->gi + (n * gs[PG_N] + c * gs[PG_C] + d * gs[PG_D]) * es;
        switch (kw) { /* odd: 2 p = k - 1 */
        case 1: nchw_f_sums(zb, gi, hs * IW, he * IW, IW, kh, 1, 0, es, dt); break;
        case 3: if (kh == 3) nchw_f_sums(zb, gi, hs * IW, he * IW, IW, kh, 3, 3, es, dt);
                else nchw_f_sums(zb, gi, hs * IW, he * IW, IW, kh, 3, 0, es, dt);
                break;
        case 5: nchw_f_sums(zb, gi, hs * IW, he * IW, IW, kh, 5, 0, es, dt); break;
        default: nchw_f_sums(zb, gi, hs * IW, he * IW, IW, kh, 7, 0, es, dt); break;
        }
        sb = plane * IH + he;
    }
}

_Static_assert(2 * PG_FQ * 4 + 4096 < PG_STACK_BUDGET, "_nchw_f run: stack buffers over the budget");

static void nchw_f_run(const poolgrad_problem *pr, const poolgrad_kernel_conf *conf, void *ws, int64_t begin,
                       int64_t end)
{
    (void)ws;
    PG_DT_DISPATCH(pr->dtype, nchw_f_run_dt, pr, conf, begin, end);
}

const poolgrad_kernel PG_KSYM(nchw_f) = {
    .name = PG_NAME("nchw_f"), .isa = PG_ISA, .configure = nchw_f_configure,
    .prepare = NULL, .run = nchw_f_run,
};
