/*
 * The golden scalar reference: section 4 of docs/SEMANTICS.md, literally.
 * Every gradInput element gathers the windows whose clipped box contains it, in ascending
 * od, oh, ow order: acc = acc + (float)g / (float)divisor, one rounding at the store, where a NaN
 * becomes the dtype's canonical quiet NaN.
 * Built with -ffp-contract=off; must never be built with fast-math or flush-to-zero.
 */
#include "convert.h"
#include "problem.h"

/* One rounding to the dtype; a NaN sum is stored as the canonical NaN (docs/SEMANTICS.md section 4). */
static void store(poolgrad_dtype dt, char *p, float v)
{
    v = poolgrad_canonical_nan_f32(v);
    switch (dt) {
    case POOLGRAD_F16: { uint16_t h = poolgrad_f32_to_f16_inline(v); memcpy(p, &h, 2); break; }
    case POOLGRAD_BF16: { uint16_t b = poolgrad_f32_to_bf16_inline(v); memcpy(p, &b, 2); break; }
    default: memcpy(p, &v, 4); break;
    }
}

void poolgrad_reference_rows(const poolgrad_problem *pr, int64_t begin, int64_t end)
{
    const int64_t es = (int64_t)poolgrad_dtype_size(pr->dtype);
    const int64_t ID = pr->in[0], IH = pr->in[1], IW = pr->in[2];
    for (int64_t row = begin; row < end; row++) {
        /* row = ((n * C + c) * ID + d) * IH + h */
        int64_t h = row % IH, t = row / IH;
        int64_t d = t % ID;
        t /= ID;
        int64_t c = t % pr->c, n = t / pr->c;
        int64_t od0, od1, oh0, oh1;
        poolgrad_window_range(d, pr->k[0], pr->s[0], pr->p[0], pr->out[0], &od0, &od1);
        poolgrad_window_range(h, pr->k[1], pr->s[1], pr->p[1], pr->out[1], &oh0, &oh1);
        const char *go_nc = pr->go + (n * pr->go_stride[PG_N] + c * pr->go_stride[PG_C]) * es;
        char *gi_row = pr->gi + (n * pr->gi_stride[PG_N] + c * pr->gi_stride[PG_C] + d * pr->gi_stride[PG_D] +
                                 h * pr->gi_stride[PG_H]) * es;
        for (int64_t w = 0; w < IW; w++) {
            int64_t ow0, ow1;
            poolgrad_window_range(w, pr->k[2], pr->s[2], pr->p[2], pr->out[2], &ow0, &ow1);
            float acc = +0.0f;
            for (int64_t od = od0; od < od1; od++)
                for (int64_t oh = oh0; oh < oh1; oh++)
                    for (int64_t ow = ow0; ow < ow1; ow++) {
                        const char *g = go_nc + (od * pr->go_stride[PG_D] + oh * pr->go_stride[PG_H] +
                                                 ow * pr->go_stride[PG_W]) * es;
                        acc = acc + poolgrad_load_f32(pr->dtype, g) / (float)poolgrad_divisor(pr, od, oh, ow);
                    }
            store(pr->dtype, gi_row + w * pr->gi_stride[PG_W] * es, acc);
        }
    }
}

void poolgrad_reference(const poolgrad_problem *pr)
{
    poolgrad_reference_rows(pr, 0, pr->n * pr->c * pr->in[0] * pr->in[1]);
}

static bool reference_configure(const poolgrad_problem *pr, poolgrad_kernel_conf *conf)
{
    *conf = (poolgrad_kernel_conf){ .work_items = pr->n * pr->c * pr->in[0] * pr->in[1] };
    return true;
}

static void reference_run(const poolgrad_problem *pr, const poolgrad_kernel_conf *conf, void *ws, int64_t begin,
                          int64_t end)
{
    (void)conf;
    (void)ws;
    poolgrad_reference_rows(pr, begin, end);
}

const poolgrad_kernel poolgrad_kernel_reference = {
    .name = "scalar",
    .isa = POOLGRAD_ISA_SCALAR,
    .configure = reference_configure,
    .prepare = NULL,
    .run = reference_run,
};
