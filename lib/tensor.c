/* Tensor views: initializers, element counts, storage reach, the one-to-one (no self-overlap) test. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* channel_dim < 0: row-major; else that dim is innermost in memory, the others row-major around it. */
static poolgrad_status init_with_order(poolgrad_tensor *t, poolgrad_dtype dtype, int32_t rank, const int64_t *shape,
                                       void *data, int channel_dim)
{
    if (!t || !shape)
        return poolgrad_fail(POOLGRAD_ERR_NULL_POINTER, "%s is NULL", !t ? "the tensor" : "shape");
    if (poolgrad_dtype_size(dtype) == 0)
        return poolgrad_fail(POOLGRAD_ERR_DTYPE, "dtype = %d is not POOLGRAD_F32, POOLGRAD_F16 or POOLGRAD_BF16", (int)dtype);
    if (rank < 1 || rank > POOLGRAD_MAX_RANK)
        return poolgrad_fail(POOLGRAD_ERR_RANK, "rank = %d is outside 1..%d", (int)rank, POOLGRAD_MAX_RANK);
    memset(t, 0, sizeof *t);
    t->dtype = dtype;
    t->rank = rank;
    int order[POOLGRAD_MAX_RANK]; /* memory order, innermost first */
    int nord = 0;
    if (channel_dim >= 0)
        order[nord++] = channel_dim;
    for (int d = rank - 1; d >= 0; d--)
        if (d != channel_dim)
            order[nord++] = d;
    int64_t stride = 1, numel = 1;
    for (int i = 0; i < rank; i++) {
        int d = order[i];
        if (shape[d] < 0)
            return poolgrad_fail(POOLGRAD_ERR_SHAPE, "shape[%d] = %lld is negative", d, (long long)shape[d]);
        t->shape[d] = shape[d];
        t->strides[d] = stride;
        if (!poolgrad_mul_ok(stride, shape[d] > 0 ? shape[d] : 1, &stride) || !poolgrad_mul_ok(numel, shape[d], &numel))
            return poolgrad_fail(POOLGRAD_ERR_OVERFLOW, "the element count of the shape overflows int64 at dim %d", d);
    }
    t->offset = 0;
    t->storage_numel = numel;
    t->storage = data;
    return POOLGRAD_OK;
}

poolgrad_status poolgrad_tensor_init_contiguous(poolgrad_tensor *t, poolgrad_dtype dtype, int32_t rank,
                                                const int64_t *shape, void *data)
{
    return init_with_order(t, dtype, rank, shape, data, -1);
}

poolgrad_status poolgrad_tensor_init_channels_last(poolgrad_tensor *t, poolgrad_dtype dtype, int32_t rank,
                                                   int32_t spatial_dims, const int64_t *shape, void *data)
{
    if (spatial_dims != 2 && spatial_dims != 3)
        return poolgrad_fail(POOLGRAD_ERR_RANK, "spatial_dims = %d is not 2 or 3", (int)spatial_dims);
    if (rank != spatial_dims + 1 && rank != spatial_dims + 2)
        return poolgrad_fail(POOLGRAD_ERR_RANK, "rank = %d is not %d (unbatched) or %d (batched) for %dD pooling", (int)rank,
                             (int)spatial_dims + 1, (int)spatial_dims + 2, (int)spatial_dims);
    return init_with_order(t, dtype, rank, shape, data, rank - spatial_dims - 1);
}

/* Element count of a view; false on overflow. Negative dims must have been rejected. */
bool poolgrad_view_numel(const poolgrad_tensor *t, int64_t *numel)
{
    int64_t n = 1;
    for (int d = 0; d < t->rank; d++)
        if (!poolgrad_mul_ok(n, t->shape[d], &n))
            return false;
    *numel = n;
    return true;
}

/*
 * The element range [*lo, *hi] (relative to storage, in elements) a non-empty view reaches,
 * and checks it lies inside [0, storage_numel) and that byte offsets fit.
 */
poolgrad_status poolgrad_view_reach(const poolgrad_tensor *t, const char *name, int64_t *lo, int64_t *hi)
{
    if (t->offset < 0)
        return poolgrad_fail(POOLGRAD_ERR_VIEW, "%s offset = %lld is negative", name, (long long)t->offset);
    if (t->storage_numel < 0)
        return poolgrad_fail(POOLGRAD_ERR_VIEW, "%s storage_numel = %lld is negative", name, (long long)t->storage_numel);
    int64_t l = t->offset, h = t->offset;
    for (int d = 0; d < t->rank; d++) {
        int64_t span;
        if (!poolgrad_mul_ok(t->shape[d] - 1, t->strides[d], &span))
            return poolgrad_fail(POOLGRAD_ERR_OVERFLOW, "%s view: the span of dim %d (size %lld, stride %lld) overflows int64",
                                 name, d, (long long)t->shape[d], (long long)t->strides[d]);
        if (!poolgrad_add_ok(span < 0 ? l : h, span, span < 0 ? &l : &h))
            return poolgrad_fail(POOLGRAD_ERR_OVERFLOW,
                                 "%s view: offset %lld plus the spans of dims 0..%d overflows int64", name,
                                 (long long)t->offset, d);
    }
    int64_t bytes;
    if (!poolgrad_mul_ok(t->storage_numel, (int64_t)poolgrad_dtype_size(t->dtype), &bytes) ||
        (uint64_t)bytes > (uint64_t)SIZE_MAX / 2)
        return poolgrad_fail(POOLGRAD_ERR_OVERFLOW, "%s storage of %lld elements exceeds SIZE_MAX / 2 bytes", name,
                             (long long)t->storage_numel);
    if (l < 0)
        return poolgrad_fail(POOLGRAD_ERR_VIEW, "%s view reaches element %lld, before the start of its storage", name,
                             (long long)l);
    if (h >= t->storage_numel)
        return poolgrad_fail(POOLGRAD_ERR_VIEW, "%s view reaches element %lld of a storage of %lld", name, (long long)h,
                             (long long)t->storage_numel);
    if (t->storage == NULL)
        return poolgrad_fail(POOLGRAD_ERR_NULL_POINTER, "%s storage is NULL for a view of %lld elements", name,
                             (long long)(h - l + 1));
    *lo = l;
    *hi = h;
    return POOLGRAD_OK;
}

/*
 * Sufficient test that no two indices of a non-empty view reach the same element: with the
 * dims of size > 1 sorted by |stride|, each |stride| exceeds the reach of all smaller ones.
 * (Refuses some exotic interleaved views that do not overlap; documented.)
 */
bool poolgrad_view_is_one_to_one(const poolgrad_tensor *t)
{
    int64_t st[POOLGRAD_MAX_RANK], sh[POOLGRAD_MAX_RANK];
    int n = 0;
    for (int d = 0; d < t->rank; d++) {
        if (t->shape[d] <= 1)
            continue;
        int64_t a = t->strides[d];
        if (a == 0)
            return false;
        if (a == INT64_MIN)
            return false;
        st[n] = a < 0 ? -a : a;
        sh[n] = t->shape[d];
        n++;
    }
    for (int i = 1; i < n; i++) /* insertion sort by |stride| */
        for (int j = i; j > 0 && st[j] < st[j - 1]; j--) {
            int64_t x = st[j]; st[j] = st[j - 1]; st[j - 1] = x;
            x = sh[j]; sh[j] = sh[j - 1]; sh[j - 1] = x;
        }
    int64_t reach = 0; /* max |offset| reachable by the smaller dims */
    for (int i = 0; i < n; i++) {
        if (st[i] <= reach)
            return false;
        int64_t span;
        if (!poolgrad_mul_ok(sh[i] - 1, st[i], &span) || !poolgrad_add_ok(reach, span, &reach))
            return false;
    }
    return true;
}

/* dtype, rank and non-negative dims of a view */
poolgrad_status poolgrad_check_tensor_basics(const poolgrad_tensor *t, const char *name)
{
    if (poolgrad_dtype_size(t->dtype) == 0)
        return poolgrad_fail(POOLGRAD_ERR_DTYPE, "%s dtype = %d is not POOLGRAD_F32, POOLGRAD_F16 or POOLGRAD_BF16", name,
                             (int)t->dtype);
    if (t->rank < 1 || t->rank > POOLGRAD_MAX_RANK)
        return poolgrad_fail(POOLGRAD_ERR_RANK, "%s rank = %d is outside 1..%d", name, (int)t->rank, POOLGRAD_MAX_RANK);
    for (int d = 0; d < t->rank; d++)
        if (t->shape[d] < 0)
            return poolgrad_fail(POOLGRAD_ERR_SHAPE, "%s shape[%d] = %lld is negative", name, d, (long long)t->shape[d]);
    return POOLGRAD_OK;
}
