/*
 * Internal, part of the SIMD kernel template (kernels_tmpl.h): where the pre-divided values
 * q = (float)go / (float)divisor come from. Both pre-divided families (_b and _q, W rows and
 * channels-last) use the same division, in one of two memory orders:
 *   PG_QW  q[n, c, od, oh, ow]   vectors along W (the W-vectorized kinds _nchw_b, _nchw_q)
 *   PG_QC  q[n, od, oh, ow, c]   vectors along C (the channels-last kinds _nhwc_b, _nhwc_q)
 * and in one of two places:
 *   the workspace  filled by a prepare pass over all of gradOutput (pg_q_prepare_dt), before run;
 *   a stack band   a small direct-mapped cache of window rows (pg_qband), filled inside run as the
 *                  row walk reaches them, so q never goes to memory.
 * pg_q_divide is the one division of a window row, used by both.
 */
#ifndef POOLGRAD_KERNELS_SIMD_QSOURCE_H
#define POOLGRAD_KERNELS_SIMD_QSOURCE_H

#define PG_QW 0
#define PG_QC 1

/*
 * q for window row (od, oh) of gradOutput line g (the element at ow = 0 and c = 0, or the first
 * channel of the block in PG_QC):
 *   PG_QW: columns ow in [i0, i1) -> q[ow - i0], lane divisor (float)fdh * fw[ow - i0] (products of
 *          exact float factors, exact by pg_div_small);
 *   PG_QC: every ow, channels c in [i0, i1) -> q[ow * pitch + c - i0], divisor (float)(fdh * f(ow)) with
 *          f the W factor (from axw, or computed when axw is NULL);
 * or the divisor override. mode:
 *   PG_QD_EXACT  whole-vector loads and stores only inside the range, tail lanes alone (go_end unused);
 *   PG_QD_BAND   q is a stack band with room for whole vectors: full stores; PG_QW also loads whole
 *                vectors wherever they end inside the gradOutput view (go_end; the lanes past i1 are
 *                never picked);
 *   PG_QD_KEEP   PG_QW: loads as PG_QD_BAND, stores as PG_QD_EXACT (the floats past i1 keep their value).
 */
#define PG_QD_EXACT 0
#define PG_QD_BAND 1
#define PG_QD_KEEP 2
PG_AI void pg_q_divide(const poolgrad_problem *pr, int order, const char *g, int64_t i0, int64_t i1, int64_t fdh,
                       const float *fw, const pg_axis *axw, const char *go_end, float *q, int64_t pitch, int mode,
                       poolgrad_dtype dt)
{
    const int64_t es = pg_es(dt);
    const int64_t *os = pr->go_stride;
    const bool ovr = pr->divisor_override != 0;
    const float ovf = pg_dfac(pr, pr->divisor_override);
    const int64_t vstride = order == PG_QW ? os[PG_W] : os[PG_C];
    const bool unit = pg_unit(order == PG_QW ? pr->out[2] : pr->c, vstride);
    const int64_t nouter = order == PG_QW ? 1 : pr->out[2];
    for (int64_t u = 0; u < nouter; u++) { /* PG_QC: ow = u */
        const char *gl = g + u * os[PG_W] * es;
        float *ql = q + u * pitch;
        const vf dvs = order == PG_QW ? vf_set1(ovr ? ovf : pg_dfac(pr, fdh))
                                      : vf_set1(ovr ? ovf : pg_dfac(pr, fdh * (axw ? pg_axis_factor(axw, pr, u) : pg_factor(pr, 2, u))));
        for (int64_t i = i0; i < i1; i += VL) {
            const int64_t nl = pg_min(VL, i1 - i);
            const bool full = order == PG_QW && mode != PG_QD_EXACT ? gl + (i + VL) * es <= go_end : nl == VL;
            const vf x = pg_ld_line(gl, i, vstride, unit, full, nl, dt);
            const vf dv = order == PG_QW && !ovr ? vf_mul(dvs, vf_loadu(fw + (i - i0))) : dvs;
            const vf v = pg_quot(pr, x, dv);
            if (mode == PG_QD_BAND || nl == VL)
                vf_storeu(ql + (i - i0), v);
            else
                pg_st_n((char *)(ql + (i - i0)), v, nl, POOLGRAD_F32);
        }
    }
}

/* ---- the workspace: q of all of gradOutput, plus slack floats for full-vector loads past the end */

static inline int64_t pg_q_count(const poolgrad_problem *pr)
{
    return pg_go_empty(pr) ? 0 : pr->n * pr->c * pr->out[0] * pr->out[1] * pr->out[2];
}

/* PG_QW: loads of two registers at a row's last chunk; PG_QC: one register at a channel tail */
static inline int64_t pg_q_slack(int order) { return order == PG_QW ? 2 * VL : VL; }

static inline size_t pg_q_workspace(const poolgrad_problem *pr, int order)
{
    return (size_t)(pg_q_count(pr) + pg_q_slack(order)) * 4u;
}

/* prepare items (configure() stores them in the conf): window rows (n, c, od, oh) in PG_QW, (n, od, oh) in PG_QC */
static inline int64_t pg_q_items(const poolgrad_problem *pr, int order)
{
    return pg_go_empty(pr) ? 0 : pr->n * (order == PG_QW ? pr->c : 1) * pr->out[0] * pr->out[1];
}

/* PG_QC: how many prepare items (n, od, oh) gradInput rows (n, d, h) [0, row] read: every item up to the last
 * od plane that covers d (whole planes: nondecreasing in row) */
static inline int64_t pg_q_needed_qc(const poolgrad_problem *pr, int64_t row)
{
    const int64_t ID = pr->in[0], IH = pr->in[1], OD = pr->out[0], OH = pr->out[1];
    const int64_t d = row / IH % ID, n = row / IH / ID;
    const int64_t od = pg_min(OD - 1, (d + pr->p[0]) / pr->s[0]); /* the last window along D starting at or before d */
    return pg_min(pg_q_items(pr, PG_QC), (n * OD + od + 1) * OH);
}

/* PG_QC: the first prepare item gradInput rows (n, d, h) from row on read: the first od plane whose window ends
 * after d (od s - p + k > d), in n's planes */
static inline int64_t pg_q_first_qc(const poolgrad_problem *pr, int64_t row)
{
    const int64_t ID = pr->in[0], IH = pr->in[1], OD = pr->out[0], OH = pr->out[1];
    const int64_t d = row / IH % ID, n = row / IH / ID, t = d + pr->p[0] - pr->k[0];
    const int64_t od = t < 0 ? 0 : pg_min(OD, t / pr->s[0] + 1);
    return pg_min(pg_q_items(pr, PG_QC), (n * OD + od) * OH);
}

/* The prepare pass over items [begin, end); the last item also zeroes the slack. */
PG_AI void pg_q_prepare_dt(const poolgrad_problem *pr, const poolgrad_kernel_conf *conf, float *qws, int64_t begin,
                           int64_t end, int order, poolgrad_dtype dt)
{
    const int64_t es = pg_es(dt);
    const int64_t C = pr->c, OD = pr->out[0], OH = pr->out[1], OW = pr->out[2];
    const int64_t *os = pr->go_stride;
    const bool ovr = pr->divisor_override != 0;
    const int64_t item_c = order == PG_QW ? C : 1;      /* channels per item row */
    const int64_t len = order == PG_QW ? OW : OW * C;   /* q floats per item */
    const int64_t vlen = order == PG_QW ? OW : C;       /* the vector axis */
    const int64_t blk = order == PG_QW ? PG_OWB : vlen; /* PG_QW: W factors tabulated per block */
    float fwt[PG_OWB + VL];
    for (int64_t ib = 0; ib < vlen; ib += blk) {
        const int64_t ie = pg_min(vlen, ib + blk);
        if (order == PG_QW && !ovr)
            for (int64_t t = 0; t < PG_OWB + VL; t++)
                fwt[t] = ib + t < OW ? pg_dfac(pr, pg_factor(pr, 2, ib + t)) : 1.0f;
        for (int64_t r = begin; r < end; r++) {
            int64_t oh = r % OH, t = r / OH, od = t % OD;
            t /= OD;
            const int64_t c = t % item_c, n = t / item_c;
            const char *g = pr->go + (n * os[PG_N] + c * os[PG_C] + od * os[PG_D] + oh * os[PG_H]) * es;
            const int64_t fdh = ovr ? 1 : pg_factor(pr, 0, od) * pg_factor(pr, 1, oh);
            pg_q_divide(pr, order, g, ib, ie, fdh, fwt, NULL, NULL, qws + r * len + ib, order == PG_QW ? 0 : C, PG_QD_EXACT, dt);
        }
    }
    if (end == conf->prepare_items)
        memset(qws + pg_q_count(pr), 0, (size_t)pg_q_slack(order) * sizeof(float));
}

/* ---- the stack band: window rows cached in slots */

typedef struct pg_qband {
    float *q;       /* SD * SH slots of len floats */
    int64_t *tag;   /* the key of the window row each slot holds, -1: none */
    int64_t SD, SH; /* slot (od % SD) * SH + oh % SH: the od and oh rows in use at once never share a slot */
    int64_t len;
} pg_qband;

PG_AI void pg_qband_clear(pg_qband *b)
{
    for (int64_t sl = 0; sl < b->SD * b->SH; sl++)
        b->tag[sl] = -1;
}

/* The slot of window row (od, oh) with key `key`; true when the slot did not hold it: the slot is now
 * tagged with key and the caller divides the row into it (pg_q_divide). */
PG_AI bool pg_qband_claim(pg_qband *b, int64_t key, int64_t od, int64_t oh, int64_t *slot)
{
    const int64_t sl = (od % b->SD) * b->SH + oh % b->SH;
    *slot = sl;
    if (b->tag[sl] == key)
        return false;
    b->tag[sl] = key;
    return true;
}

#endif
