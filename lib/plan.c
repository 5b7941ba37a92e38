/* Planning: validates everything once, normalizes the problem, selects the kernel, sizes the workspace. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    poolgrad_status st = poolgrad_check_tensor_basics(gi);
    if (st != POOLGRAD_OK)
        return st;
    if (!poolgrad_view_numel(gi, numel) || *numel > POOLGRAD_MAX_ELEMENTS)
        return POOLGRAD_ERR_OVERFLOW;
    if (*numel == 0)
        return POOLGRAD_OK;
    st = poolgrad_view_reach(gi, lo, hi);
    if (st != POOLGRAD_OK)
        return st;
    if (!poolgrad_view_is_one_to_one(gi))
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
    if ((st = poolgrad_check_tensor_basics(go)) != POOLGRAD_OK || (st = poolgrad_check_tensor_basics(gi)) != POOLGRAD_OK)
        return st;
    if (go->dtype != gi->dtype)
        return POOLGRAD_ERR_DTYPE;
    if ((st = poolgrad_check_params(params)) != POOLGRAD_OK)
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
    if (!poolgrad_view_numel(go, &go_numel) || go_numel > POOLGRAD_MAX_ELEMENTS)
        return POOLGRAD_ERR_OVERFLOW;
    if (go_numel > 0 && (st = poolgrad_view_reach(go, &go_lo, &go_hi)) != POOLGRAD_OK)
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
