/*
 * Template: the global-pooling kernel (_global). Included once per ISA translation unit by
 * kernels_tmpl.h, after the vector layer and the shared helpers.
 *
 * Template parameters (defined by the including translation unit):
 *   PG_ISA        the poolgrad_isa the kernel is dispatched as
 *   PG_ISA_NAME   the kernel name prefix ("avx512", ...), used through PG_NAME
 *   PG_KSYM(x)    the symbol of kernel x
 * Defines: const poolgrad_kernel PG_KSYM(global).
 *
 * One window covering the whole input, or an empty gradOutput: gradInput is a per-(n, c) constant,
 * 0 + go[n, c] / divisor (+0.0 for an empty gradOutput, which is never read). Any gradOutput view;
 * gradInput contiguous along W (work items: rows (n, c, d, h)) or along C (rows (n, d, h)).
 */
#ifndef PG_KSYM
#error "global_tmpl.h is a template: include it from kernels_tmpl.h"
#endif

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

static bool global_configure(const poolgrad_problem *pr, poolgrad_kernel_conf *conf)
{
    if (!pg_is_global(pr) || !(pg_gi_cl(pr) || pg_gi_rows(pr)))
        return false;
    *conf = (poolgrad_kernel_conf){
        .work_items = pg_gi_cl(pr) ? pr->n * pr->in[0] * pr->in[1] : pr->n * pr->c * pr->in[0] * pr->in[1],
    };
    return true;
}

/* lane l = stored bits of 0 + go[plane pl + l] / divf (0 past the last plane or for an empty gradOutput;
 * a 16-bit dtype's bits zero-extended) */
PG_AI vi pg_plane_vbits(const poolgrad_problem *pr, int64_t pl, int64_t planes, bool dense, bool empty, float divf,
                        poolgrad_dtype dt)
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
    const vf v = vf_add(vf_zero(), pg_quot(pr, x, vf_set1(divf)));
    const vi b = vf_to_bits(v, dt);
    /* lanes past the last plane hold 0 / divf + 0 = +0.0, whose bits are 0 */
    return b;
}

/* the same bits in an array */
PG_AI void pg_plane_bits(const poolgrad_problem *pr, int64_t pl, int64_t planes, bool dense, bool empty, float divf,
                         poolgrad_dtype dt, int32_t *bits)
{
    const int64_t nl = empty ? 0 : pg_min(VL, planes - pl);
    const vi b = pg_plane_vbits(pr, pl, planes, dense, empty, divf, dt);
    _Alignas(64) int32_t tmp[VL];
    memcpy(tmp, &b, sizeof tmp);
    for (int l = 0; l < VL; l++)
        bits[l] = l < nl ? tmp[l] : 0;
}

/* channels-last: every pixel of image n gets the same channel vector; built once per image and
 * channel block, then copied to the pixels of rows [begin, end) */
PG_AI void global_cl_dt(const poolgrad_problem *pr, int64_t begin, int64_t end, bool empty, float divf, poolgrad_dtype dt)
{
    const int64_t es = pg_es(dt);
    const int64_t ID = pr->in[0], IH = pr->in[1], IW = pr->in[2], C = pr->c;
    const int64_t *gs = pr->gi_stride, *os = pr->go_stride;
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
                    vf x = pg_ld_line(g, cc, os[PG_C], unit, nl == VL, nl, dt);
                    vf q = vf_add(vf_zero(), pg_quot(pr, x, vf_set1(divf)));
                    pg_st(pattern + cc * es, q, dt); /* pattern has room for whole vectors */
                }
            }
            for (int64_t row = r0; row < r1; row++) {
                const int64_t h = row % IH, d = (row / IH) % ID;
                char *gi_row = pr->gi + (n * gs[PG_N] + d * gs[PG_D] + h * gs[PG_H] + c0) * es;
                for (int64_t w = 0; w < IW; w++) {
                    if (cb * es >= PG_GCOPY_MEMCPY_MIN_BYTES)
                        memcpy(gi_row + w * gs[PG_W] * es, pattern, (size_t)(cb * es));
                    else
                        pg_copy_bytes(gi_row + w * gs[PG_W] * es, pattern, cb * es);
                }
            }
        }
        r0 = r1;
    }
}

/* Elements [e, e_end) of the whole tensor as one dense run. Planes of at least one vector's bytes: each
 * plane's part of the run filled with its bits (pg_fill_bits: whole vectors, the last one overlapping).
 * Shorter planes: whole vectors along the run, a lane blend where a plane ends. */
PG_AI void global_span_dt(const poolgrad_problem *pr, int64_t e, int64_t e_end, bool pdense, bool empty, float divf,
                          poolgrad_dtype dt)
{
    const int64_t es = pg_es(dt);
    const int64_t P = pr->in[0] * pr->in[1] * pr->in[2], planes = pr->n * pr->c;
    int64_t p = e / P;
    /* stored bits of the plane values, VL planes at a time (vector division and narrowing) */
    int32_t pbits[VL] = { 0 };
    int64_t pb = -2 * (int64_t)VL;
#define PG_PBITS(pl) ((pl) - pb < VL ? pbits[(pl) - pb] : (pg_plane_bits(pr, (pl), planes, pdense, empty, divf, dt, pbits), \
                                                          pb = (pl), pbits[0]))
    if (P * es >= VL * (int64_t)sizeof(float)) {
        while (e < e_end) {
            pg_plane_bits(pr, p, planes, pdense, empty, divf, dt, pbits);
            for (int j = 0; j < VL && e < e_end; j++, p++) {
                const int64_t stop = pg_min((p + 1) * P, e_end);
                pg_fill_bits(pr->gi + e * es, stop - e, (uint32_t)pbits[j], dt);
                e = stop;
            }
        }
        return;
    }
    static const int32_t iota[16] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 };
    const vi lane = vi_loadu(iota);
    int32_t b0 = PG_PBITS(p), b1 = PG_PBITS(p + 1);
    while (e < e_end) {
        const int64_t bnd = (p + 1) * P - e; /* lanes >= bnd belong to plane p + 1 */
        vi v = bnd >= VL ? vi_set1(b0) : vi_sel_gt(lane, vi_set1((int32_t)bnd - 1), vi_set1(b1), vi_set1(b0));
        char *dst = pr->gi + e * es;
        if (e_end - e >= VL)
            pg_st_bits(dst, v, dt);
        else
            pg_st_bits_n(dst, v, e_end - e, dt);
        e += VL;
        if (e >= (p + 1) * P) {
            p++;
            b0 = b1;
            b1 = PG_PBITS(p + 1);
        }
    }
#undef PG_PBITS
}

#if PG_VEC_LEVEL >= 3
/*
 * 16-bit short planes (P <= PG_GTAB_P elements), elements [e, e_end), both multiples of a superblock:
 * 2 VL planes, 2 VL P elements, P whole vectors of 64 bytes (so stores keep gi's alignment). Each vector
 * is picked from the superblock's plane bits by two lane index vectors (even and odd elements) from a
 * table built once per call: no per-plane branch and no unaligned plane ends stored twice. Measured
 * slower at 256 bits (a two-register pick there is two permutes, a blend and an and) and no faster for
 * f32, whose fill is bound by its stores.
 */
PG_AI void global_tab16_dt(const poolgrad_problem *pr, int64_t e, int64_t e_end, bool pdense, bool empty, float divf,
                           poolgrad_dtype dt)
{
    const int64_t P = pr->in[0] * pr->in[1] * pr->in[2], planes = pr->n * pr->c;
    const int64_t sb = 2 * (int64_t)VL * P; /* elements per superblock */
    /* tab[k VL + l]: the plane (0 .. 2 VL - 1) of lane l of index vector k. Element el of a superblock is
     * in vector el / 2 VL, whose even elements come from index vector 2 (el / 2 VL), odd ones from the next. */
    _Alignas(64) int32_t tab[2 * PG_GTAB_P * VL];
    for (int32_t el = 0, plane = 0, rem = 0; el < (int32_t)sb; el++) {
        tab[((el / (2 * VL)) * 2 + (el & 1)) * VL + (el % (2 * VL)) / 2] = plane;
        if (++rem == P) {
            rem = 0;
            plane++;
        }
    }
    const vm all = vm_gt(vi_set1(1), vi_set1(0));
    for (; e < e_end; e += sb) {
        const int64_t p = e / P;
        const vf a = vi_as_f(pg_plane_vbits(pr, p, planes, pdense, empty, divf, dt));
        const vf b = vi_as_f(pg_plane_vbits(pr, p + VL, planes, pdense, empty, divf, dt));
        float *d = (float *)(void *)(pr->gi + e * 2);
        for (int64_t v = 0; v < P; v++) {
            const vi lo = vf_as_i(vf_pick2((vsel){ vi_loadu(tab + 2 * v * VL), all }, a, b));
            const vi hi = vf_as_i(vf_pick2((vsel){ vi_loadu(tab + (2 * v + 1) * VL), all }, a, b));
            vf_storeu(d + v * VL, vi_as_f(vi_or(lo, vi_slli(hi, 16))));
        }
    }
}
#endif

/* W rows [begin, end) of the whole tensor as one dense run */
PG_AI void global_dense_dt(const poolgrad_problem *pr, int64_t begin, int64_t end, bool empty, float divf, poolgrad_dtype dt)
{
    const int64_t C = pr->c, IW = pr->in[2];
    const int64_t *os = pr->go_stride;
    const bool pdense = (C == 1 || os[PG_C] == 1) && (pr->n == 1 || os[PG_N] == C);
    int64_t e = begin * IW;
    const int64_t e_end = end * IW;
#if PG_VEC_LEVEL >= 3
    const int64_t P = pr->in[0] * pr->in[1] * IW;
    if (dt != POOLGRAD_F32 && P <= PG_GTAB_P) {
        const int64_t sb = 2 * (int64_t)VL * P;
        const int64_t s0 = (e + sb - 1) / sb * sb, s1 = e_end / sb * sb;
        if (s0 < s1) {
            if (e < s0)
                global_span_dt(pr, e, s0, pdense, empty, divf, dt);
            global_tab16_dt(pr, s0, s1, pdense, empty, divf, dt);
            e = s1;
        }
    }
#endif
    if (e < e_end)
        global_span_dt(pr, e, e_end, pdense, empty, divf, dt);
}

PG_AI void global_run_dt(const poolgrad_problem *pr, int64_t begin, int64_t end, poolgrad_dtype dt)
{
    const int64_t es = pg_es(dt);
    const int64_t ID = pr->in[0], IH = pr->in[1], IW = pr->in[2], C = pr->c;
    const int64_t *gs = pr->gi_stride, *os = pr->go_stride;
    const bool empty = pg_go_empty(pr);
    const float divf = empty ? 1.0f : pg_dfac(pr, poolgrad_divisor(pr, 0, 0, 0));
    if (pg_gi_cl(pr)) {
        global_cl_dt(pr, begin, end, empty, divf, dt);
        return;
    }
    /* rows (n, c, d, h); consecutive rows of one dense (n, c) plane are filled in one go */
    const int64_t plane_rows = ID * IH;
    const bool dense = (IH == 1 || gs[PG_H] == IW) && (ID == 1 || gs[PG_D] == IH * IW);
    const int64_t P = ID * IH * IW;
    if (dense && P >= VL && (C == 1 || gs[PG_C] == P) && (pr->n == 1 || gs[PG_N] == C * P)) {
        global_dense_dt(pr, begin, end, empty, divf, dt);
        return;
    }
    for (int64_t row = begin; row < end;) {
        int64_t plane = row / plane_rows, r = row % plane_rows;
        int64_t h = r % IH, d = r / IH, c = plane % C, n = plane / C;
        int64_t stop = pg_min(end, (plane + 1) * plane_rows);
        float v = 0.0f;
        if (!empty)
            v = 0.0f + pg_quot1(pr, pg_sc_load(pr->go + (n * os[PG_N] + c * os[PG_C]) * es, dt), divf);
        const uint32_t bits = pg_sc_bits(v, dt);
        if (dense) {
            char *p = pr->gi + (n * gs[PG_N] + c * gs[PG_C] + d * gs[PG_D] + h * gs[PG_H]) * es;
            pg_fill_bits(p, (stop - row) * IW, bits, dt);
        } else {
            for (int64_t rr = row; rr < stop; rr++) {
                int64_t rh = (rr % plane_rows) % IH, rd = (rr % plane_rows) / IH;
                char *p = pr->gi + (n * gs[PG_N] + c * gs[PG_C] + rd * gs[PG_D] + rh * gs[PG_H]) * es;
                pg_fill_bits(p, IW, bits, dt);
            }
        }
        row = stop;
    }
}

static void global_run(const poolgrad_problem *pr, const poolgrad_kernel_conf *conf, void *ws, int64_t begin,
                       int64_t end)
{
    (void)conf;
    (void)ws;
    PG_DT_DISPATCH(pr->dtype, global_run_dt, pr, begin, end);
}

const poolgrad_kernel PG_KSYM(global) = {
    .name = PG_NAME("global"), .isa = PG_ISA, .configure = global_configure,
    .prepare = NULL, .run = global_run,
};
