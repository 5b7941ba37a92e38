/*
 * poolgrad_error_bound: per gradInput element, the exact value and the largest error a correct
 * implementation could make under an error model. The derivation is docs/ERROR_BOUNDS.md.
 */
#include <math.h>
#include <string.h>

#include "convert.h"
#include "internal.h"

static const char *const model_names[] = { "none", "f32-any-order", "f32-any-order-div", "dtype-any-order",
                                           "dtype-any-order-div" };
#define N_MODELS ((int)(sizeof model_names / sizeof model_names[0]))

const char *poolgrad_bound_model_name(poolgrad_bound_model model)
{
    return (int)model >= 0 && (int)model < N_MODELS ? model_names[model] : "unknown";
}

poolgrad_status poolgrad_bound_model_parse(const char *name, poolgrad_bound_model *model)
{
    if (!name || !model)
        return poolgrad_fail(POOLGRAD_ERR_NULL_POINTER, "%s is NULL", !name ? "name" : "model");
    for (int m = 0; m < N_MODELS; m++)
        if (strcmp(name, model_names[m]) == 0) {
            *model = (poolgrad_bound_model)m;
            return POOLGRAD_OK;
        }
    return poolgrad_fail(POOLGRAD_ERR_PARAM,
                         "bound model \"%.64s\" is unknown (expected f32-any-order, f32-any-order-div, "
                         "dtype-any-order or dtype-any-order-div)", name);
}

/* Unit roundoff u, half the smallest subnormal (absolute error floor of one rounding) and the smallest
 * magnitude that rounds to infinity, per dtype (docs/ERROR_BOUNDS.md section 2). */
typedef struct fmt_consts { double u, eta, overflow, min_normal, exact_int; } fmt_consts;

static fmt_consts consts_of(poolgrad_dtype dt)
{
    switch (dt) {
    case POOLGRAD_F16: return (fmt_consts){ 0x1p-11, 0x1p-25, 65520.0, 0x1p-14, 0x1p11 };
    case POOLGRAD_BF16: return (fmt_consts){ 0x1p-8, 0x1p-134, (2.0 - 0x1p-8) * 0x1p127, 0x1p-126, 0x1p8 };
    default: return (fmt_consts){ 0x1p-24, 0x1p-150, (2.0 - 0x1p-24) * 0x1p127, 0x1p-126, 0x1p24 };
    }
}

static double load_value(poolgrad_dtype dt, const char *p) { return poolgrad_load_f32(dt, p); }

/* gamma_k = k u / (1 - k u), +inf when k u >= 1 */
static double gamma_of(int64_t k, double u)
{
    double ku = (double)k * u;
    return ku >= 1.0 ? INFINITY : ku / (1.0 - ku);
}

poolgrad_status poolgrad_error_bound(const poolgrad_params *params, const poolgrad_tensor *grad_output, int32_t rank,
                                     const int64_t *input_shape, poolgrad_bound_model model, double *reference,
                                     double *bound)
{
    if (!params || !grad_output || !input_shape || !reference || !bound)
        return poolgrad_fail(POOLGRAD_ERR_NULL_POINTER, "%s is NULL",
                             !params ? "params" : !grad_output ? "grad_output" : !input_shape ? "input_shape"
                                                                 : !reference ? "reference" : "bound");
    if (model <= POOLGRAD_BOUND_NONE || (int)model >= N_MODELS)
        return poolgrad_fail(POOLGRAD_ERR_PARAM, "bound model %d is not one of 1..%d", (int)model, N_MODELS - 1);
    poolgrad_status st = poolgrad_check_tensor_basics(grad_output, "grad_output");
    if (st != POOLGRAD_OK)
        return st;
    int64_t out_shape[POOLGRAD_MAX_RANK];
    if ((st = poolgrad_output_shape(params, rank, input_shape, out_shape)) != POOLGRAD_OK)
        return st;
    if (grad_output->rank != rank)
        return poolgrad_fail(POOLGRAD_ERR_RANK, "grad_output rank %d differs from input rank %d", (int)grad_output->rank,
                             (int)rank);
    for (int d = 0; d < rank; d++)
        if (grad_output->shape[d] != out_shape[d]) {
            char a[POOLGRAD_DIMS_BUF], e[POOLGRAD_DIMS_BUF];
            return poolgrad_fail(POOLGRAD_ERR_SHAPE, "grad_output shape %s differs from the inferred shape %s",
                                 poolgrad_format_dims(a, sizeof a, grad_output->shape, rank),
                                 poolgrad_format_dims(e, sizeof e, out_shape, rank));
        }
    int64_t go_numel, lo, hi;
    if (!poolgrad_view_numel(grad_output, &go_numel))
        return poolgrad_fail(POOLGRAD_ERR_OVERFLOW, "the element count of grad_output overflows int64");
    if (go_numel > 0 && (st = poolgrad_view_reach(grad_output, "grad_output", &lo, &hi)) != POOLGRAD_OK)
        return st;

    /* normalize to N, C, D, H, W */
    const int sd = params->spatial_dims, lead = rank - sd;
    int64_t k[3], s[3], p[3], in[5] = { 1, 1, 1, 1, 1 }, out[5] = { 1, 1, 1, 1, 1 }, gs[5] = { 0, 0, 0, 0, 0 };
    poolgrad_params_3d(params, k, s, p);
    for (int d = 0; d < rank; d++) {
        int nd = d >= lead ? 5 - (rank - d) : lead == 2 ? d : 1; /* unbatched: the one leading dim is C */
        in[nd] = input_shape[d];
        out[nd] = out_shape[d];
        gs[nd] = grad_output->strides[d];
    }
    const poolgrad_dtype dt = grad_output->dtype;
    const int64_t es = (int64_t)poolgrad_dtype_size(dt);
    const bool in_dtype = model == POOLGRAD_BOUND_DTYPE_ANY_ORDER || model == POOLGRAD_BOUND_DTYPE_ANY_ORDER_DIV;
    /* reciprocal multiplies allowed unless the model says true division only */
    const bool recip = model == POOLGRAD_BOUND_F32_ANY_ORDER || model == POOLGRAD_BOUND_DTYPE_ANY_ORDER;
    const fmt_consts acc = consts_of(in_dtype ? dt : POOLGRAD_F32), res = consts_of(dt);
    const bool final_rounding = !in_dtype && dt != POOLGRAD_F32;
    const double div_rel = recip ? 2.0 * acc.u + acc.u * acc.u : acc.u;
    const poolgrad_problem pr = { .in = { in[2], in[3], in[4] }, .k = { k[0], k[1], k[2] }, .s = { s[0], s[1], s[2] },
                                  .p = { p[0], p[1], p[2] }, .count_include_pad = params->count_include_pad,
                                  .divisor_override = params->divisor_override };
    const char *base = (const char *)grad_output->storage + grad_output->offset * es;
    int64_t x = 0;
    for (int64_t n = 0; n < in[0]; n++)
        for (int64_t c = 0; c < in[1]; c++)
            for (int64_t id = 0; id < in[2]; id++)
                for (int64_t ih = 0; ih < in[3]; ih++)
                    for (int64_t iw = 0; iw < in[4]; iw++, x++) {
                        int64_t b[3], e[3];
                        const int64_t xi[3] = { id, ih, iw };
                        for (int a = 0; a < 3; a++)
                            poolgrad_window_range(xi[a], k[a], s[a], p[a], out[2 + a], &b[a], &e[a]);
                        double sum = 0.0, abs_sum = 0.0, big_div = 0.0, extra = 0.0;
                        int64_t terms = 0;
                        bool finite = true;
                        if (go_numel > 0)
                            for (int64_t od = b[0]; od < e[0]; od++)
                                for (int64_t oh = b[1]; oh < e[1]; oh++)
                                    for (int64_t ow = b[2]; ow < e[2]; ow++) {
                                        int64_t off = n * gs[0] + c * gs[1] + od * gs[2] + oh * gs[3] + ow * gs[4];
                                        double g = load_value(dt, base + off * es);
                                        int64_t dv = poolgrad_divisor(&pr, od, oh, ow);
                                        double t = g / (double)dv;
                                        finite = finite && isfinite(t);
                                        sum += t;
                                        abs_sum += fabs(t);
                                        const double ad = fabs((double)dv);
                                        /* the divisor converted to the accumulation type rounds: one more u */
                                        if (ad > acc.exact_int)
                                            big_div = fmax(big_div, fabs(t));
                                        if (ad >= acc.overflow)
                                            extra += fabs(t); /* divisor overflows: the term may vanish */
                                        else if (recip && 1.0 / ad < acc.min_normal)
                                            extra += fabs(g) * acc.eta; /* subnormal reciprocal: absolute error */
                                        terms++;
                                    }
                        reference[x] = sum;
                        if (!finite || terms == 0) {
                            bound[x] = 0.0; /* non-finite terms: the exact infinity/NaN; no term: exactly 0 */
                            continue;
                        }
                        /* terms: |t^ - t| <= div_rel |t| + eta (+ u |t| for a rounded divisor) */
                        double term_err = div_rel * abs_sum + acc.u * (1.0 + div_rel) * big_div * (double)terms +
                                          (double)terms * acc.eta + extra;
                        double abs_hat = abs_sum + term_err;
                        double sum_err = gamma_of(terms - 1, acc.u) * abs_hat;
                        double e1 = term_err + sum_err;
                        double bnd = e1;
                        if (final_rounding)
                            bnd = e1 + res.u * (fabs(sum) + e1) + res.eta;
                        /* float64 evaluation of sum and abs_sum: at most terms * 2^-52 relative, plus margin */
                        bnd += ((double)terms + 1.0) * 0x1p-52 * abs_sum;
                        if (abs_hat >= acc.overflow || fabs(sum) + e1 >= res.overflow || !isfinite(bnd))
                            bnd = INFINITY; /* overflow to infinity is possible */
                        bound[x] = bnd;
                    }
    return POOLGRAD_OK;
}
