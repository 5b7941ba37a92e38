/* The native API: validation, planning, execution, conversions, comparison. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "convert.h"
#include "internal.h"

unsigned poolgrad_version_number(void) { return POOLGRAD_VERSION_NUMBER; }
const char *poolgrad_version_string(void) { return POOLGRAD_VERSION_STRING; }

const char *poolgrad_status_string(poolgrad_status status)
{
    switch (status) {
    case POOLGRAD_OK: return "success";
    case POOLGRAD_ERR_NULL_POINTER: return "a required pointer is NULL";
    case POOLGRAD_ERR_DTYPE: return "unsupported dtype, or gradOutput and gradInput dtypes differ";
    case POOLGRAD_ERR_RANK: return "unsupported rank, or tensor ranks differ";
    case POOLGRAD_ERR_PARAM: return "invalid pooling parameter (kernel, stride, padding, spatial_dims)";
    case POOLGRAD_ERR_SHAPE: return "negative dimension, or gradOutput shape differs from the inferred one";
    case POOLGRAD_ERR_OVERFLOW: return "a size, offset or index overflows 64-bit arithmetic";
    case POOLGRAD_ERR_VIEW: return "a tensor view reaches outside its storage";
    case POOLGRAD_ERR_ALIAS: return "gradInput overlaps itself or gradOutput";
    case POOLGRAD_ERR_WORKSPACE: return "workspace missing or smaller than planned";
    case POOLGRAD_ERR_OUT_OF_MEMORY: return "out of memory";
    case POOLGRAD_ERR_THREADS: return "invalid thread count";
    }
    return "unknown status";
}

size_t poolgrad_dtype_size(poolgrad_dtype dtype)
{
    switch (dtype) {
    case POOLGRAD_F32: return 4;
    case POOLGRAD_F16:
    case POOLGRAD_BF16: return 2;
    }
    return 0;
}

float poolgrad_f16_to_f32(uint16_t h) { return poolgrad_f16_to_f32_inline(h); }
uint16_t poolgrad_f32_to_f16(float f) { return poolgrad_f32_to_f16_inline(f); }
float poolgrad_bf16_to_f32(uint16_t b) { return poolgrad_bf16_to_f32_inline(b); }
uint16_t poolgrad_f32_to_bf16(float f) { return poolgrad_f32_to_bf16_inline(f); }

/* ---------------------------------------------------------------- tensor views */

/* channel_dim < 0: row-major; else that dim is innermost in memory, the others row-major around it. */
static poolgrad_status init_with_order(poolgrad_tensor *t, poolgrad_dtype dtype, int32_t rank, const int64_t *shape,
                                       void *data, int channel_dim)
{
    if (!t || !shape)
        return POOLGRAD_ERR_NULL_POINTER;
    if (poolgrad_dtype_size(dtype) == 0)
        return POOLGRAD_ERR_DTYPE;
    if (rank < 1 || rank > POOLGRAD_MAX_RANK || channel_dim >= rank)
        return POOLGRAD_ERR_RANK;
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
            return POOLGRAD_ERR_SHAPE;
        t->shape[d] = shape[d];
        t->strides[d] = stride;
        if (!poolgrad_mul_ok(stride, shape[d] > 0 ? shape[d] : 1, &stride) || !poolgrad_mul_ok(numel, shape[d], &numel))
            return POOLGRAD_ERR_OVERFLOW;
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
    if ((spatial_dims != 2 && spatial_dims != 3) || (rank != spatial_dims + 1 && rank != spatial_dims + 2))
        return POOLGRAD_ERR_RANK;
    return init_with_order(t, dtype, rank, shape, data, rank - spatial_dims - 1);
}

/* Element count of a view; false on overflow. Negative dims must have been rejected. */
static bool view_numel(const poolgrad_tensor *t, int64_t *numel)
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
static poolgrad_status view_reach(const poolgrad_tensor *t, int64_t *lo, int64_t *hi)
{
    if (t->offset < 0 || t->storage_numel < 0)
        return POOLGRAD_ERR_VIEW;
    int64_t l = t->offset, h = t->offset;
    for (int d = 0; d < t->rank; d++) {
        int64_t span;
        if (!poolgrad_mul_ok(t->shape[d] - 1, t->strides[d], &span))
            return POOLGRAD_ERR_OVERFLOW;
        if (!poolgrad_add_ok(span < 0 ? l : h, span, span < 0 ? &l : &h))
            return POOLGRAD_ERR_OVERFLOW;
    }
    int64_t bytes;
    if (!poolgrad_mul_ok(t->storage_numel, (int64_t)poolgrad_dtype_size(t->dtype), &bytes) ||
        (uint64_t)bytes > (uint64_t)SIZE_MAX / 2)
        return POOLGRAD_ERR_OVERFLOW;
    if (l < 0 || h >= t->storage_numel)
        return POOLGRAD_ERR_VIEW;
    if (t->storage == NULL)
        return POOLGRAD_ERR_NULL_POINTER;
    *lo = l;
    *hi = h;
    return POOLGRAD_OK;
}

/*
 * Sufficient test that no two indices of a non-empty view reach the same element: with the
 * dims of size > 1 sorted by |stride|, each |stride| exceeds the reach of all smaller ones.
 * (Refuses some exotic interleaved views that do not overlap; documented.)
 */
static bool view_is_one_to_one(const poolgrad_tensor *t)
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

/* ---------------------------------------------------------------- shapes */

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

static poolgrad_status check_params(const poolgrad_params *pa)
{
    if (pa->spatial_dims != 2 && pa->spatial_dims != 3)
        return POOLGRAD_ERR_PARAM;
    for (int a = 0; a < pa->spatial_dims; a++) {
        if (pa->kernel[a] <= 0 || pa->stride[a] <= 0 || pa->padding[a] < 0)
            return POOLGRAD_ERR_PARAM;
        if (pa->padding[a] > pa->kernel[a] / 2) /* 2*pad <= kernel, without overflow */
            return POOLGRAD_ERR_PARAM;
    }
    return POOLGRAD_OK;
}

/* Expand params to the 3-axis form (2D: a D axis of size-1 kernel). */
static void params_3d(const poolgrad_params *pa, int64_t k[3], int64_t s[3], int64_t p[3])
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
        return POOLGRAD_ERR_NULL_POINTER;
    poolgrad_status st = check_params(params);
    if (st != POOLGRAD_OK)
        return st;
    int sd = params->spatial_dims;
    if (rank != sd + 1 && rank != sd + 2)
        return POOLGRAD_ERR_RANK;
    for (int d = 0; d < rank; d++)
        if (input_shape[d] < 0)
            return POOLGRAD_ERR_SHAPE;
    int lead = rank - sd;
    for (int d = 0; d < lead; d++)
        out_shape[d] = input_shape[d];
    for (int a = 0; a < sd; a++) {
        int64_t o;
        if (!poolgrad_axis_output_size(input_shape[lead + a], params->kernel[a], params->stride[a], params->padding[a],
                                       params->ceil_mode, &o))
            return POOLGRAD_ERR_OVERFLOW;
        out_shape[lead + a] = o;
    }
    return POOLGRAD_OK;
}

/* ---------------------------------------------------------------- planning */

static poolgrad_status check_tensor_basics(const poolgrad_tensor *t)
{
    if (poolgrad_dtype_size(t->dtype) == 0)
        return POOLGRAD_ERR_DTYPE;
    if (t->rank < 1 || t->rank > POOLGRAD_MAX_RANK)
        return POOLGRAD_ERR_RANK;
    for (int d = 0; d < t->rank; d++)
        if (t->shape[d] < 0)
            return POOLGRAD_ERR_SHAPE;
    return POOLGRAD_OK;
}

/* Copy a view's shape/strides into 5-D N,C,D,H,W order (size-1 dims with stride 0 where missing). */
static void to_5d(const poolgrad_tensor *t, int sd, int64_t shape[5], int64_t stride[5])
{
    int ti = 0;
    for (int d = 0; d < 5; d++) {
        bool absent = (d == PG_N && t->rank == sd + 1) || (d == PG_D && sd == 2);
        if (absent) {
            shape[d] = 1;
            stride[d] = 0;
        } else {
            shape[d] = t->shape[ti];
            stride[d] = t->strides[ti];
            ti++;
        }
    }
}

/*
 * gradOutput base of a problem with no windows (empty gradOutput): never read, but kernels form
 * addresses from it (go + 0 * stride), and arithmetic on a NULL pointer is undefined behaviour.
 */
static const uint64_t no_grad_output[8];

static poolgrad_status plan_alloc(poolgrad_plan **plan)
{
    *plan = calloc(1, sizeof **plan);
    return *plan ? POOLGRAD_OK : POOLGRAD_ERR_OUT_OF_MEMORY;
}

static poolgrad_status finish_plan(poolgrad_problem *pr, int64_t gi_numel, poolgrad_plan **plan)
{
    poolgrad_status st = plan_alloc(plan);
    if (st != POOLGRAD_OK)
        return st;
    (*plan)->problem = *pr;
    static const char *const dtype_names[] = { "f32", "f16", "bf16" };
    if (gi_numel == 0) {
        (*plan)->kernel = NULL;
        snprintf((*plan)->kernel_name, sizeof (*plan)->kernel_name, "avgpool%dd_bwd_%s__none", (int)pr->spatial_dims,
                 dtype_names[pr->dtype]);
        return POOLGRAD_OK;
    }
    const poolgrad_kernel *k = poolgrad_select_kernel(pr);
    (*plan)->kernel = k;
    (*plan)->workspace_size = k->workspace_size ? k->workspace_size(pr) : 0;
    snprintf((*plan)->kernel_name, sizeof (*plan)->kernel_name, "avgpool%dd_bwd_%s__%s", (int)pr->spatial_dims,
             dtype_names[pr->dtype], k->name);
    return POOLGRAD_OK;
}

/*
 * Most elements a planned tensor may have. Far beyond any real memory (2^56 bf16 = 128 PiB), and it
 * leaves kernels 8 bits of headroom: any size they derive (workspace = count * 4 + slack, ...)
 * fits size_t and int64 without checks of their own, even for a broadcast (zero-stride) gradOutput
 * whose element count is not bounded by its storage.
 */
#define POOLGRAD_MAX_ELEMENTS ((int64_t)1 << 56)

/* Validate grad_input on its own: basics, view inside storage, one-to-one. */
static poolgrad_status check_grad_input_view(const poolgrad_tensor *gi, int64_t *numel, int64_t *lo, int64_t *hi)
{
    poolgrad_status st = check_tensor_basics(gi);
    if (st != POOLGRAD_OK)
        return st;
    if (!view_numel(gi, numel) || *numel > POOLGRAD_MAX_ELEMENTS)
        return POOLGRAD_ERR_OVERFLOW;
    if (*numel == 0)
        return POOLGRAD_OK;
    st = view_reach(gi, lo, hi);
    if (st != POOLGRAD_OK)
        return st;
    if (!view_is_one_to_one(gi))
        return POOLGRAD_ERR_ALIAS;
    return POOLGRAD_OK;
}

poolgrad_status poolgrad_plan_create(const poolgrad_params *params, const poolgrad_tensor *grad_output,
                                     const poolgrad_tensor *grad_input, poolgrad_plan **plan)
{
    if (plan)
        *plan = NULL;
    if (!params || !grad_output || !grad_input || !plan)
        return POOLGRAD_ERR_NULL_POINTER;
    const poolgrad_tensor *go = grad_output, *gi = grad_input;
    poolgrad_status st;
    if ((st = check_tensor_basics(go)) != POOLGRAD_OK || (st = check_tensor_basics(gi)) != POOLGRAD_OK)
        return st;
    if (go->dtype != gi->dtype)
        return POOLGRAD_ERR_DTYPE;
    if ((st = check_params(params)) != POOLGRAD_OK)
        return st;
    const int sd = params->spatial_dims;
    if (go->rank != gi->rank || (gi->rank != sd + 1 && gi->rank != sd + 2))
        return POOLGRAD_ERR_RANK;

    int64_t expect[POOLGRAD_MAX_RANK];
    if ((st = poolgrad_output_shape(params, gi->rank, gi->shape, expect)) != POOLGRAD_OK)
        return st;
    for (int d = 0; d < go->rank; d++)
        if (go->shape[d] != expect[d])
            return POOLGRAD_ERR_SHAPE;

    int64_t gi_numel, go_numel, gi_lo = 0, gi_hi = -1, go_lo = 0, go_hi = -1;
    if ((st = check_grad_input_view(gi, &gi_numel, &gi_lo, &gi_hi)) != POOLGRAD_OK)
        return st;
    if (!view_numel(go, &go_numel) || go_numel > POOLGRAD_MAX_ELEMENTS)
        return POOLGRAD_ERR_OVERFLOW;
    if (go_numel > 0 && (st = view_reach(go, &go_lo, &go_hi)) != POOLGRAD_OK)
        return st;
    if (gi_numel > 0 && go_numel > 0) {
        const size_t es = poolgrad_dtype_size(gi->dtype);
        uintptr_t a0 = (uintptr_t)gi->storage + (uintptr_t)gi_lo * es, a1 = (uintptr_t)gi->storage + (uintptr_t)(gi_hi + 1) * es;
        uintptr_t b0 = (uintptr_t)go->storage + (uintptr_t)go_lo * es, b1 = (uintptr_t)go->storage + (uintptr_t)(go_hi + 1) * es;
        if (a0 < b1 && b0 < a1)
            return POOLGRAD_ERR_ALIAS;
    }

    poolgrad_problem pr;
    memset(&pr, 0, sizeof pr);
    pr.dtype = gi->dtype;
    pr.spatial_dims = sd;
    params_3d(params, pr.k, pr.s, pr.p);
    pr.count_include_pad = params->count_include_pad;
    pr.divisor_override = params->divisor_override;
    int64_t gi_shape[5], go_shape[5];
    to_5d(gi, sd, gi_shape, pr.gi_stride);
    to_5d(go, sd, go_shape, pr.go_stride);
    pr.n = gi_shape[PG_N];
    pr.c = gi_shape[PG_C];
    for (int a = 0; a < 3; a++) {
        pr.in[a] = gi_shape[PG_D + a];
        pr.out[a] = go_shape[PG_D + a];
    }
    /* The largest divisor must fit int64: per axis a window spans at most min(k, I + 2p). */
    if (pr.divisor_override == 0) {
        int64_t prod = 1;
        for (int a = 0; a < 3; a++) {
            int64_t span = pr.k[a];
            int64_t ip;
            if (poolgrad_add_ok(pr.in[a], pr.p[a], &ip) && poolgrad_add_ok(ip, pr.p[a], &ip) && ip < span)
                span = ip;
            if (span < 1)
                span = 1;
            if (!poolgrad_mul_ok(prod, span, &prod))
                return POOLGRAD_ERR_OVERFLOW;
        }
    }
    const int64_t es = (int64_t)poolgrad_dtype_size(pr.dtype);
    pr.gi = gi_numel > 0 ? (char *)gi->storage + gi->offset * es : NULL;
    pr.go = go_numel > 0 ? (const char *)go->storage + go->offset * es : (const char *)no_grad_output;
    if (go_numel == 0) { /* nothing covers anything: the kernels write +0.0 everywhere */
        for (int a = 0; a < 3; a++)
            pr.out[a] = 0;
        memset(pr.go_stride, 0, sizeof pr.go_stride);
    }
    return finish_plan(&pr, gi_numel, plan);
}

poolgrad_status poolgrad_plan_create_zero_fill(const poolgrad_tensor *grad_input, poolgrad_plan **plan)
{
    if (plan)
        *plan = NULL;
    if (!grad_input || !plan)
        return POOLGRAD_ERR_NULL_POINTER;
    const poolgrad_tensor *gi = grad_input;
    int64_t numel, lo, hi;
    poolgrad_status st = check_grad_input_view(gi, &numel, &lo, &hi);
    if (st != POOLGRAD_OK)
        return st;
    if (gi->rank != 4 && gi->rank != 5)
        return POOLGRAD_ERR_RANK;
    poolgrad_problem pr;
    memset(&pr, 0, sizeof pr);
    pr.dtype = gi->dtype;
    pr.spatial_dims = 3;
    int64_t shape[5];
    to_5d(gi, 3, shape, pr.gi_stride);
    pr.n = shape[PG_N];
    pr.c = shape[PG_C];
    for (int a = 0; a < 3; a++) {
        pr.in[a] = shape[PG_D + a];
        pr.out[a] = 0;
        pr.k[a] = pr.s[a] = 1;
    }
    pr.gi = numel > 0 ? (char *)gi->storage + gi->offset * (int64_t)poolgrad_dtype_size(gi->dtype) : NULL;
    pr.go = (const char *)no_grad_output;
    return finish_plan(&pr, numel, plan);
}

size_t poolgrad_plan_workspace_size(const poolgrad_plan *plan) { return plan ? plan->workspace_size : 0; }

const char *poolgrad_plan_kernel_name(const poolgrad_plan *plan) { return plan ? plan->kernel_name : "none"; }

void poolgrad_plan_destroy(poolgrad_plan *plan) { free(plan); }

/* ---------------------------------------------------------------- execution */

/* More threads than this are never started (a hostile num_threads must not exhaust the process). */
#define POOLGRAD_THREAD_CAP 256

static void run_parallel(const poolgrad_problem *pr, void *ws, int64_t items, int threads,
                         void (*fn)(const poolgrad_problem *, void *, int64_t, int64_t))
{
    if (items <= 0)
        return;
    /* contiguous chunks, a few per thread; which thread runs a chunk never changes the bits */
    if ((int64_t)threads > items)
        threads = (int)items;
    int64_t chunks = (int64_t)threads * 4;
    if (chunks > items)
        chunks = items;
    /* chunk i is [i*q + min(i, r), (i+1)*q + min(i+1, r)): no items*i product that could overflow */
    const int64_t q = items / chunks, r = items % chunks;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) if (threads > 1 && chunks > 1)
#endif
    for (int64_t i = 0; i < chunks; i++)
        fn(pr, ws, i * q + (i < r ? i : r), (i + 1) * q + (i + 1 < r ? i + 1 : r));
}

poolgrad_status poolgrad_execute(const poolgrad_plan *plan, void *workspace, size_t workspace_size, int num_threads)
{
    if (!plan)
        return POOLGRAD_ERR_NULL_POINTER;
    if (num_threads < 0)
        return POOLGRAD_ERR_THREADS;
    if (plan->workspace_size > 0 && (!workspace || workspace_size < plan->workspace_size))
        return POOLGRAD_ERR_WORKSPACE;
    if (!plan->kernel)
        return POOLGRAD_OK;
    int threads = 1;
#ifdef _OPENMP
    threads = num_threads > 0 ? num_threads : omp_get_max_threads();
    if (threads > POOLGRAD_THREAD_CAP)
        threads = POOLGRAD_THREAD_CAP;
    if (threads < 1)
        threads = 1;
#endif
    const poolgrad_kernel *k = plan->kernel;
    const poolgrad_problem *pr = &plan->problem;
    if (k->prepare)
        run_parallel(pr, workspace, k->prepare_items(pr), threads, k->prepare);
    run_parallel(pr, workspace, k->work_items(pr), threads, k->run);
    return POOLGRAD_OK;
}

poolgrad_status poolgrad_avgpool_backward(const poolgrad_params *params, const poolgrad_tensor *grad_output,
                                          const poolgrad_tensor *grad_input, int num_threads)
{
    if (num_threads < 0)
        return POOLGRAD_ERR_THREADS;
    poolgrad_plan *plan;
    poolgrad_status st = poolgrad_plan_create(params, grad_output, grad_input, &plan);
    if (st != POOLGRAD_OK)
        return st;
    void *ws = NULL;
    size_t wsz = poolgrad_plan_workspace_size(plan);
    if (wsz > 0 && !(ws = malloc(wsz))) {
        poolgrad_plan_destroy(plan);
        return POOLGRAD_ERR_OUT_OF_MEMORY;
    }
    st = poolgrad_execute(plan, ws, wsz, num_threads);
    free(ws);
    poolgrad_plan_destroy(plan);
    return st;
}

/* ---------------------------------------------------------------- comparison */

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
        return POOLGRAD_ERR_NULL_POINTER;
    poolgrad_status st;
    if ((st = check_tensor_basics(actual)) != POOLGRAD_OK || (st = check_tensor_basics(expected)) != POOLGRAD_OK)
        return st;
    if (actual->dtype != expected->dtype)
        return POOLGRAD_ERR_DTYPE;
    if (actual->rank != expected->rank)
        return POOLGRAD_ERR_RANK;
    for (int d = 0; d < actual->rank; d++)
        if (actual->shape[d] != expected->shape[d])
            return POOLGRAD_ERR_SHAPE;
    int64_t numel, lo, hi;
    if (!view_numel(actual, &numel))
        return POOLGRAD_ERR_OVERFLOW;
    if (numel > 0 && ((st = view_reach(actual, &lo, &hi)) != POOLGRAD_OK ||
                      (st = view_reach(expected, &lo, &hi)) != POOLGRAD_OK))
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
