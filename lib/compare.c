/* poolgrad_compare: ULP and error statistics of two views, for foreign results (any NaN equals any NaN). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "convert.h"
#include "internal.h"

static double load_f64(poolgrad_dtype dt, const char *p, uint32_t *bits)
{
    if (dt == POOLGRAD_F32) {
        float f;
        memcpy(&f, p, 4);
        memcpy(bits, &f, 4);
        return f;
    }
    uint16_t h;
    memcpy(&h, p, 2);
    *bits = h;
    return dt == POOLGRAD_F16 ? poolgrad_f16_to_f32_inline(h) : poolgrad_bf16_to_f32_inline(h);
}

/* Map sign-magnitude bits to a monotonic integer line (+0 and -0 both to 0). */
static int64_t ordered(uint32_t bits, int width)
{
    uint32_t sign = bits >> (width - 1);
    int64_t mag = (int64_t)(bits & ((width == 32 ? 0x7fffffffu : 0x7fffu)));
    return sign ? -mag : mag;
}

poolgrad_status poolgrad_compare(const poolgrad_tensor *actual, const poolgrad_tensor *expected,
                                 poolgrad_compare_result *result)
{
    if (!actual || !expected || !result)
        return poolgrad_fail(POOLGRAD_ERR_NULL_POINTER, "%s is NULL", !actual ? "actual" : !expected ? "expected" : "result");
    poolgrad_status st;
    if ((st = poolgrad_check_tensor_basics(actual, "actual")) != POOLGRAD_OK ||
        (st = poolgrad_check_tensor_basics(expected, "expected")) != POOLGRAD_OK)
        return st;
    if (actual->dtype != expected->dtype)
        return poolgrad_fail(POOLGRAD_ERR_DTYPE, "actual dtype %d differs from expected dtype %d", (int)actual->dtype,
                             (int)expected->dtype);
    if (actual->rank != expected->rank)
        return poolgrad_fail(POOLGRAD_ERR_RANK, "actual rank %d differs from expected rank %d", (int)actual->rank,
                             (int)expected->rank);
    for (int d = 0; d < actual->rank; d++)
        if (actual->shape[d] != expected->shape[d]) {
            char a[POOLGRAD_DIMS_BUF], e[POOLGRAD_DIMS_BUF];
            return poolgrad_fail(POOLGRAD_ERR_SHAPE, "actual shape %s differs from expected shape %s",
                                 poolgrad_format_dims(a, sizeof a, actual->shape, actual->rank),
                                 poolgrad_format_dims(e, sizeof e, expected->shape, expected->rank));
        }
    int64_t numel, lo, hi;
    if (!poolgrad_view_numel(actual, &numel))
        return poolgrad_fail(POOLGRAD_ERR_OVERFLOW, "the element count of actual overflows int64");
    if (numel > 0 && ((st = poolgrad_view_reach(actual, "actual", &lo, &hi)) != POOLGRAD_OK ||
                      (st = poolgrad_view_reach(expected, "expected", &lo, &hi)) != POOLGRAD_OK))
        return st;
    poolgrad_compare_result r = { numel, 0, -1, 0, -1, 0.0, 0.0 };
    const int rank = actual->rank;
    const int64_t es = (int64_t)poolgrad_dtype_size(actual->dtype);
    const int width = es == 4 ? 32 : 16;
    int64_t idx[POOLGRAD_MAX_RANK] = { 0 };
    for (int64_t i = 0; i < numel; i++) {
        int64_t oa = actual->offset, oe = expected->offset;
        for (int d = 0; d < rank; d++) {
            oa += idx[d] * actual->strides[d];
            oe += idx[d] * expected->strides[d];
        }
        uint32_t ba, be;
        double a = load_f64(actual->dtype, (const char *)actual->storage + oa * es, &ba);
        double e = load_f64(expected->dtype, (const char *)expected->storage + oe * es, &be);
        bool nan_a = isnan(a), nan_e = isnan(e);
        if (ba != be && !(nan_a && nan_e)) {
            r.mismatches++;
            if (r.first_mismatch < 0)
                r.first_mismatch = i;
            uint64_t ulp;
            if (nan_a || nan_e) {
                ulp = UINT64_MAX;
            } else {
                int64_t diff = ordered(ba, width) - ordered(be, width);
                ulp = (uint64_t)(diff < 0 ? -diff : diff);
            }
            if (ulp > r.max_ulp || r.max_ulp_index < 0) {
                r.max_ulp = ulp;
                r.max_ulp_index = i;
            }
            if (isfinite(a) && isfinite(e)) {
                double abs_err = fabs(a - e);
                if (abs_err > r.max_abs_error)
                    r.max_abs_error = abs_err;
                if (e != 0.0 && abs_err / fabs(e) > r.max_rel_error)
                    r.max_rel_error = abs_err / fabs(e);
            }
        }
        for (int d = rank - 1; d >= 0; d--) { /* row-major increment */
            if (++idx[d] < actual->shape[d])
                break;
            idx[d] = 0;
        }
    }
    *result = r;
    return POOLGRAD_OK;
}
