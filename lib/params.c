/* Pooling parameters and the forward output shape (docs/SEMANTICS.md section 3). */
#include "internal.h"

/*
 * Also refuses (false) parameters for which in + 2p + k + s overflows int64: that sum bounds every
 * window quantity a kernel computes (o*s, o*s - p, start + k, x + p, ...), so once an axis passes
 * here no kernel index math on it can overflow. Expects in >= 0, k > 0, s > 0, p >= 0.
 */
bool poolgrad_axis_output_size(int64_t in, int64_t k, int64_t s, int64_t p, bool ceil_mode, int64_t *out)
{
    int64_t bound;
    if (in < 0 || k <= 0 || s <= 0 || p < 0)
        return false;
    if (!poolgrad_add_ok(in, p, &bound) || !poolgrad_add_ok(bound, p, &bound) || !poolgrad_add_ok(bound, k, &bound) ||
        !poolgrad_add_ok(bound, s, &bound))
        return false;
    int64_t num = in + 2 * p - k; /* all below `bound` from here on */
    if (ceil_mode)
        num += s - 1;
    int64_t o = num / s + 1;
    if (ceil_mode && (o - 1) * s >= in + p)
        o -= 1;
    *out = o;
    return true;
}

poolgrad_status poolgrad_check_params(const poolgrad_params *pa)
{
    if (pa->spatial_dims != 2 && pa->spatial_dims != 3)
        return poolgrad_fail(POOLGRAD_ERR_PARAM, "spatial_dims = %d is not 2 or 3", (int)pa->spatial_dims);
    for (int a = 0; a < pa->spatial_dims; a++) {
        if (pa->kernel[a] <= 0)
            return poolgrad_fail(POOLGRAD_ERR_PARAM, "kernel[%d] = %lld is not positive", a, (long long)pa->kernel[a]);
        if (pa->stride[a] <= 0)
            return poolgrad_fail(POOLGRAD_ERR_PARAM, "stride[%d] = %lld is not positive", a, (long long)pa->stride[a]);
        if (pa->padding[a] < 0)
            return poolgrad_fail(POOLGRAD_ERR_PARAM, "padding[%d] = %lld is negative", a, (long long)pa->padding[a]);
        if (pa->padding[a] > pa->kernel[a] / 2) /* 2*pad <= kernel, without overflow */
            return poolgrad_fail(POOLGRAD_ERR_PARAM, "padding[%d] = %lld exceeds kernel[%d] / 2 = %lld", a,
                                 (long long)pa->padding[a], a, (long long)(pa->kernel[a] / 2));
    }
    return POOLGRAD_OK;
}

/* Expand params to the 3-axis form (2D: a D axis of size-1 kernel). */
void poolgrad_params_3d(const poolgrad_params *pa, int64_t k[3], int64_t s[3], int64_t p[3])
{
    int off = 3 - pa->spatial_dims;
    for (int a = 0; a < 3; a++) {
        k[a] = a < off ? 1 : pa->kernel[a - off];
        s[a] = a < off ? 1 : pa->stride[a - off];
        p[a] = a < off ? 0 : pa->padding[a - off];
    }
}

poolgrad_status poolgrad_output_shape(const poolgrad_params *params, int32_t rank, const int64_t *input_shape,
                                      int64_t *out_shape)
{
    if (!params || !input_shape || !out_shape)
        return poolgrad_fail(POOLGRAD_ERR_NULL_POINTER, "%s is NULL",
                             !params ? "params" : !input_shape ? "input_shape" : "out_shape");
    poolgrad_status st = poolgrad_check_params(params);
    if (st != POOLGRAD_OK)
        return st;
    int sd = params->spatial_dims;
    if (rank != sd + 1 && rank != sd + 2)
        return poolgrad_fail(POOLGRAD_ERR_RANK, "rank = %d is not %d (unbatched) or %d (batched) for %dD pooling", (int)rank,
                             sd + 1, sd + 2, sd);
    for (int d = 0; d < rank; d++)
        if (input_shape[d] < 0)
            return poolgrad_fail(POOLGRAD_ERR_SHAPE, "input shape[%d] = %lld is negative", d, (long long)input_shape[d]);
    int lead = rank - sd;
    for (int d = 0; d < lead; d++)
        out_shape[d] = input_shape[d];
    for (int a = 0; a < sd; a++) {
        int64_t o;
        if (!poolgrad_axis_output_size(input_shape[lead + a], params->kernel[a], params->stride[a], params->padding[a],
                                       params->ceil_mode, &o))
            return poolgrad_fail(POOLGRAD_ERR_OVERFLOW,
                                 "spatial axis %d: input %lld + 2 * padding %lld + kernel %lld + stride %lld overflows int64", a,
                                 (long long)input_shape[lead + a], (long long)params->padding[a],
                                 (long long)params->kernel[a], (long long)params->stride[a]);
        out_shape[lead + a] = o;
    }
    return POOLGRAD_OK;
}
