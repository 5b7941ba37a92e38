/* Planning: validates everything once, normalizes the problem, selects the kernel, sizes the workspace. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "internal.h"

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
    return *plan ? POOLGRAD_OK : poolgrad_fail(POOLGRAD_ERR_OUT_OF_MEMORY, "cannot allocate a plan");
}

static poolgrad_status finish_plan(poolgrad_problem *pr, int64_t gi_numel, poolgrad_plan **plan)
{
    poolgrad_status st = plan_alloc(plan);
    if (st != POOLGRAD_OK)
        return st;
    (*plan)->problem = *pr;
    if (gi_numel == 0) {
        (*plan)->kernel = NULL;
        snprintf((*plan)->kernel_name, sizeof (*plan)->kernel_name, "avgpool%dd_bwd_%s__none", (int)pr->spatial_dims,
                 poolgrad_dtype_name(pr->dtype));
        return POOLGRAD_OK;
    }
    const poolgrad_kernel *k = poolgrad_select_kernel(pr, &(*plan)->conf);
    (*plan)->kernel = k;
    size_t ws = (*plan)->conf.workspace_size;
    if ((*plan)->conf.scratch_size > 0) {
        /* a slot per thread an execution starts by default now; kernels bound scratch_size (tuning.h), so
         * slots x stride cannot overflow. More threads at execution run without a slot: same bits. */
        int slots = 1;
#ifdef _OPENMP
        slots = omp_get_max_threads();
#endif
        if (slots > POOLGRAD_THREAD_CAP)
            slots = POOLGRAD_THREAD_CAP;
        if (slots < 1)
            slots = 1;
        const size_t a = POOLGRAD_WORKSPACE_ALIGN;
        (*plan)->scratch_slots = slots;
        (*plan)->scratch_stride = ((*plan)->conf.scratch_size + a - 1) / a * a;
        ws = (size_t)slots * (*plan)->scratch_stride;
    }
    /* room to align the caller's workspace (any address) to POOLGRAD_WORKSPACE_ALIGN for the kernels */
    (*plan)->workspace_size = ws ? ws + POOLGRAD_WORKSPACE_ALIGN - 1 : 0;
    snprintf((*plan)->kernel_name, sizeof (*plan)->kernel_name, "avgpool%dd_bwd_%s__%s", (int)pr->spatial_dims,
             poolgrad_dtype_name(pr->dtype), k->name);
    return POOLGRAD_OK;
}

/*
 * Most elements a planned tensor may have. Far beyond any real memory (2^56 bf16 = 128 PiB), and it
 * leaves kernels 8 bits of headroom: any size they derive (workspace = count * 4 + slack, ...)
 * fits size_t and int64 without checks of their own, even for a broadcast (zero-stride) gradOutput
 * whose element count is not bounded by its storage.
 */
#define POOLGRAD_MAX_ELEMENTS ((int64_t)1 << 56)

/* Element count of a view, at most POOLGRAD_MAX_ELEMENTS. */
static poolgrad_status check_numel(const poolgrad_tensor *t, const char *name, int64_t *numel)
{
    if (!poolgrad_view_numel(t, numel))
        return poolgrad_fail(POOLGRAD_ERR_OVERFLOW, "%s element count overflows int64", name);
    if (*numel > POOLGRAD_MAX_ELEMENTS)
        return poolgrad_fail(POOLGRAD_ERR_OVERFLOW, "%s has %lld elements, more than the 2^56 a tensor may have", name,
                             (long long)*numel);
    return POOLGRAD_OK;
}

/* Validate grad_input on its own: basics, view inside storage, one-to-one. */
static poolgrad_status check_grad_input_view(const poolgrad_tensor *gi, int64_t *numel, int64_t *lo, int64_t *hi)
{
    poolgrad_status st = poolgrad_check_tensor_basics(gi, "gradInput");
    if (st != POOLGRAD_OK)
        return st;
    if ((st = check_numel(gi, "gradInput", numel)) != POOLGRAD_OK)
        return st;
    if (*numel == 0)
        return POOLGRAD_OK;
    st = poolgrad_view_reach(gi, "gradInput", lo, hi);
    if (st != POOLGRAD_OK)
        return st;
    if (!poolgrad_view_is_one_to_one(gi)) {
        char sh[POOLGRAD_DIMS_BUF], sr[POOLGRAD_DIMS_BUF];
        return poolgrad_fail(POOLGRAD_ERR_ALIAS, "gradInput view (shape %s, strides %s) reaches some element twice",
                             poolgrad_format_dims(sh, sizeof sh, gi->shape, gi->rank),
                             poolgrad_format_dims(sr, sizeof sr, gi->strides, gi->rank));
    }
    return POOLGRAD_OK;
}

poolgrad_status poolgrad_plan_create(const poolgrad_params *params, const poolgrad_tensor *grad_output,
                                     const poolgrad_tensor *grad_input, poolgrad_plan **plan)
{
    if (plan)
        *plan = NULL;
    if (!params || !grad_output || !grad_input || !plan)
        return poolgrad_fail(POOLGRAD_ERR_NULL_POINTER, "%s is NULL",
                             !params ? "params" : !grad_output ? "grad_output" : !grad_input ? "grad_input" : "plan");
    const poolgrad_tensor *go = grad_output, *gi = grad_input;
    poolgrad_status st;
    if ((st = poolgrad_check_tensor_basics(go, "gradOutput")) != POOLGRAD_OK ||
        (st = poolgrad_check_tensor_basics(gi, "gradInput")) != POOLGRAD_OK)
        return st;
    if (go->dtype != gi->dtype)
        return poolgrad_fail(POOLGRAD_ERR_DTYPE, "gradOutput dtype %s differs from gradInput dtype %s",
                             poolgrad_dtype_name(go->dtype), poolgrad_dtype_name(gi->dtype));
    if ((st = poolgrad_check_params(params)) != POOLGRAD_OK)
        return st;
    const int sd = params->spatial_dims;
    if (gi->rank != sd + 1 && gi->rank != sd + 2)
        return poolgrad_fail(POOLGRAD_ERR_RANK, "gradInput rank %d is not %d (unbatched) or %d (batched) for %dD pooling",
                             (int)gi->rank, sd + 1, sd + 2, sd);
    if (go->rank != gi->rank)
        return poolgrad_fail(POOLGRAD_ERR_RANK, "gradOutput rank %d differs from gradInput rank %d", (int)go->rank,
                             (int)gi->rank);

    int64_t expect[POOLGRAD_MAX_RANK];
    if ((st = poolgrad_output_shape(params, gi->rank, gi->shape, expect)) != POOLGRAD_OK)
        return st;
    for (int d = 0; d < go->rank; d++)
        if (go->shape[d] != expect[d]) {
            char a[POOLGRAD_DIMS_BUF], e[POOLGRAD_DIMS_BUF];
            return poolgrad_fail(POOLGRAD_ERR_SHAPE, "gradOutput shape %s differs from the expected %s",
                                 poolgrad_format_dims(a, sizeof a, go->shape, go->rank),
                                 poolgrad_format_dims(e, sizeof e, expect, go->rank));
        }

    int64_t gi_numel, go_numel, gi_lo = 0, gi_hi = -1, go_lo = 0, go_hi = -1;
    if ((st = check_grad_input_view(gi, &gi_numel, &gi_lo, &gi_hi)) != POOLGRAD_OK)
        return st;
    if ((st = check_numel(go, "gradOutput", &go_numel)) != POOLGRAD_OK)
        return st;
    if (go_numel > 0 && (st = poolgrad_view_reach(go, "gradOutput", &go_lo, &go_hi)) != POOLGRAD_OK)
        return st;
    if (gi_numel > 0 && go_numel > 0) {
        const size_t es = poolgrad_dtype_size(gi->dtype);
        uintptr_t a0 = (uintptr_t)gi->storage + (uintptr_t)gi_lo * es, a1 = (uintptr_t)gi->storage + (uintptr_t)(gi_hi + 1) * es;
        uintptr_t b0 = (uintptr_t)go->storage + (uintptr_t)go_lo * es, b1 = (uintptr_t)go->storage + (uintptr_t)(go_hi + 1) * es;
        if (a0 < b1 && b0 < a1)
            return poolgrad_fail(POOLGRAD_ERR_ALIAS, "gradInput's storage range overlaps gradOutput's");
    }

    poolgrad_problem pr;
    memset(&pr, 0, sizeof pr);
    pr.dtype = gi->dtype;
    pr.spatial_dims = sd;
    poolgrad_params_3d(params, pr.k, pr.s, pr.p);
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
                return poolgrad_fail(POOLGRAD_ERR_OVERFLOW,
                                     "the largest window's divisor (product of per-axis extents) overflows int64; "
                                     "set divisor_override");
        }
    }
    pr.divisors_pow2 = poolgrad_divisors_pow2(&pr);
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
        return poolgrad_fail(POOLGRAD_ERR_NULL_POINTER, "%s is NULL", !grad_input ? "grad_input" : "plan");
    const poolgrad_tensor *gi = grad_input;
    int64_t numel, lo, hi;
    poolgrad_status st = check_grad_input_view(gi, &numel, &lo, &hi);
    if (st != POOLGRAD_OK)
        return st;
    if (gi->rank != 4 && gi->rank != 5)
        return poolgrad_fail(POOLGRAD_ERR_RANK, "gradInput rank %d is not 4 or 5 for 3D pooling", (int)gi->rank);
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
