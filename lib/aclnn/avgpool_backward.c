/*
 * aclnnAvgPool2dBackward / aclnnAvgPool3dBackward: CANN's validation order (docs/SEMANTICS.md sections 1-2)
 * as a thin layer over the native poolgrad API.
 */
#include <stdlib.h>
#include <string.h>

#include "aclnn_internal.h"
#include "aclnnop/aclnn_avgpool2d_backward.h"
#include "aclnnop/aclnn_avgpool3d_backward.h"

/* Record the message (read back by aclGetRecentErrMsg) and return the aclnn status. */
#define ACLNN_FAIL(status, ...) (poolgrad_fail(POOLGRAD_ERR_PARAM, __VA_ARGS__), (aclnnStatus)(status))

static bool dtype_of(int32_t acl_dtype, poolgrad_dtype *out)
{
    switch (acl_dtype) {
    case ACL_FLOAT: *out = POOLGRAD_F32; return true;
    case ACL_FLOAT16: *out = POOLGRAD_F16; return true;
    case ACL_BF16: *out = POOLGRAD_BF16; return true;
    default: return false;
    }
}

static bool is_private_format(int32_t f)
{
    /* 50-54 are device-only formats that aclnn_base.h does not name */
    return f == ACL_FORMAT_NC1HWC0 || f == ACL_FORMAT_FRACTAL_Z || f == ACL_FORMAT_NC1HWC0_C04 ||
           f == ACL_FORMAT_FRACTAL_NZ || f == ACL_FORMAT_NDC1HWC0 || f == ACL_FRACTAL_Z_3D || (f >= 50 && f <= 54);
}

/* index of the first negative dim, or -1 */
static int64_t negative_dim(const aclTensor *t)
{
    for (int64_t i = 0; i < t->rank; i++)
        if (t->dims[i] < 0)
            return i;
    return -1;
}

static bool same_shape(const aclTensor *a, const aclTensor *b)
{
    if (a->rank != b->rank)
        return false;
    for (int64_t i = 0; i < a->rank; i++)
        if (a->dims[i] != b->dims[i])
            return false;
    return true;
}

static bool is_empty(const aclTensor *t)
{
    for (int64_t i = 0; i < t->rank; i++)
        if (t->dims[i] == 0)
            return true;
    return false;
}

/* Native view of an aclTensor whose dtype and rank were checked. false if it cannot be described. */
static bool to_native(const aclTensor *t, poolgrad_tensor *out)
{
    if (t->storage_numel < 0 || t->strides_overflow || t->rank > POOLGRAD_MAX_RANK)
        return false;
    memset(out, 0, sizeof *out);
    if (!dtype_of(t->dtype, &out->dtype))
        return false;
    out->rank = (int32_t)t->rank;
    for (int64_t i = 0; i < t->rank; i++) {
        out->shape[i] = t->dims[i];
        out->strides[i] = t->strides[i];
    }
    out->offset = t->offset;
    out->storage_numel = t->storage_numel;
    out->storage = t->data;
    return true;
}

static aclnnStatus status_of(poolgrad_status st)
{
    switch (st) {
    case POOLGRAD_OK: return ACLNN_SUCCESS;
    case POOLGRAD_ERR_NULL_POINTER: return ACLNN_ERR_PARAM_NULLPTR;
    case POOLGRAD_ERR_OUT_OF_MEMORY: return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    default: return ACLNN_ERR_PARAM_INVALID;
    }
}

/* Expand an int array of length 0 (only if allow_empty: use `fallback`), 1 or `axes` to `axes` values. */
static bool expand(const aclIntArray *a, int axes, bool allow_empty, const int64_t *fallback, int64_t out[3])
{
    if (a->size == 0 && allow_empty) {
        for (int i = 0; i < axes; i++)
            out[i] = fallback[i];
        return true;
    }
    if (a->size != 1 && a->size != (uint64_t)axes)
        return false;
    for (int i = 0; i < axes; i++)
        out[i] = a->values[a->size == 1 ? 0 : i];
    return true;
}

static aclnnStatus make_executor(poolgrad_plan *plan, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    aclOpExecutor *e = malloc(sizeof *e);
    if (!e) {
        poolgrad_plan_destroy(plan);
        return ACLNN_FAIL(ACLNN_ERR_INNER_CREATE_EXECUTOR, "cannot allocate an executor");
    }
    e->magic = EXECUTOR_MAGIC;
    e->plan = plan;
    *workspaceSize = poolgrad_plan_workspace_size(plan);
    *executor = e;
    return ACLNN_SUCCESS;
}

/* gi_name: what this operator calls gradInput ("gradInput" in 2D, "output" in 3D) */
static aclnnStatus plan_native(const poolgrad_params *params, const aclTensor *gradOutput, const aclTensor *gradInput,
                               const char *gi_name, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    poolgrad_tensor go, gi;
    if (!to_native(gradOutput, &go))
        return ACLNN_FAIL(ACLNN_ERR_PARAM_INVALID, "gradOutput cannot be described: its storage dims' product or its strides overflow int64");
    if (!to_native(gradInput, &gi))
        return ACLNN_FAIL(ACLNN_ERR_PARAM_INVALID, "%s cannot be described: its storage dims' product or its strides overflow int64", gi_name);
    poolgrad_plan *plan;
    poolgrad_status st = poolgrad_plan_create(params, &go, &gi, &plan);
    if (st != POOLGRAD_OK) {
        /* the native planner's words for this operator's arguments */
        poolgrad_error_rename("gradInput", gi_name);
        return status_of(st);
    }
    return make_executor(plan, workspaceSize, executor);
}

static aclnnStatus run_executor(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor)
{
    if (!executor)
        return ACLNN_FAIL(ACLNN_ERR_PARAM_NULLPTR, "executor is NULL");
    if (executor->magic != EXECUTOR_MAGIC)
        return ACLNN_FAIL(ACLNN_ERR_PARAM_INVALID, "executor is not a live aclOpExecutor of this library");
    if (workspaceSize > 0 && !workspace)
        return ACLNN_FAIL(ACLNN_ERR_PARAM_NULLPTR, "workspace is NULL with workspaceSize = %llu", (unsigned long long)workspaceSize);
    if (workspaceSize < poolgrad_plan_workspace_size(executor->plan))
        return ACLNN_FAIL(ACLNN_ERR_PARAM_INVALID, "workspaceSize = %llu is smaller than the %zu bytes GetWorkspaceSize asked for",
                          (unsigned long long)workspaceSize, poolgrad_plan_workspace_size(executor->plan));
    size_t wsz = workspaceSize > SIZE_MAX ? SIZE_MAX : (size_t)workspaceSize;
    poolgrad_status st = poolgrad_execute(executor->plan, workspace, wsz, 0);
    if (st != POOLGRAD_OK)
        return status_of(st);
    aclDestroyAclOpExecutor(executor);
    return ACLNN_SUCCESS;
}

/* ---------------------------------------------------------------- AvgPool2dBackward */

aclnnStatus aclnnAvgPool2dBackwardGetWorkspaceSize(const aclTensor *gradOutput, const aclTensor *self,
                                                   const aclIntArray *kernelSize, const aclIntArray *stride,
                                                   const aclIntArray *padding, bool ceilMode, bool countIncludePad,
                                                   int64_t divisorOverride, int8_t cubeMathType, aclTensor *gradInput,
                                                   uint64_t *workspaceSize, aclOpExecutor **executor)
{
    /* 1. pointers */
    if (!gradOutput || !self || !kernelSize || !padding || !gradInput || !workspaceSize || !executor)
        return ACLNN_FAIL(ACLNN_ERR_PARAM_NULLPTR, "%s is NULL",
                          !gradOutput ? "gradOutput" : !self ? "self" : !kernelSize ? "kernelSize" : !padding ? "padding"
                          : !gradInput ? "gradInput" : !workspaceSize ? "workspaceSize" : "executor");
    /* 2. dtypes (self's may differ from the others) */
    const aclTensor *all[3] = { gradOutput, self, gradInput };
    static const char *const names[3] = { "gradOutput", "self", "gradInput" };
    for (int i = 0; i < 3; i++) {
        poolgrad_dtype dt;
        if (!dtype_of(all[i]->dtype, &dt))
            return ACLNN_FAIL(ACLNN_ERR_PARAM_INVALID, "%s dtype %d is not ACL_FLOAT, ACL_FLOAT16 or ACL_BF16", names[i],
                              (int)all[i]->dtype);
    }
    if (gradOutput->dtype != gradInput->dtype)
        return ACLNN_FAIL(ACLNN_ERR_PARAM_INVALID, "gradOutput dtype %d differs from gradInput dtype %d",
                          (int)gradOutput->dtype, (int)gradInput->dtype);
    /* 3. formats */
    for (int i = 0; i < 3; i++)
        if (all[i]->format != ACL_FORMAT_NCHW && all[i]->format != ACL_FORMAT_NCL)
            return ACLNN_FAIL(ACLNN_ERR_PARAM_INVALID, "%s format %d is not ACL_FORMAT_NCHW or ACL_FORMAT_NCL", names[i],
                              (int)all[i]->format);
    if (gradOutput->rank == 4 && (gradOutput->format != ACL_FORMAT_NCHW || gradInput->format != ACL_FORMAT_NCHW))
        return ACLNN_FAIL(ACLNN_ERR_PARAM_INVALID, "a 4-D gradOutput needs gradOutput and gradInput in ACL_FORMAT_NCHW");
    /* 4. ranks, dims, array lengths and values */
    const int64_t rank = gradOutput->rank;
    if (rank != 3 && rank != 4)
        return ACLNN_FAIL(ACLNN_ERR_PARAM_INVALID, "gradOutput has %lld dims, not 3 (C, H, W) or 4 (N, C, H, W)", (long long)rank);
    for (int i = 1; i < 3; i++)
        if (all[i]->rank != rank)
            return ACLNN_FAIL(ACLNN_ERR_PARAM_INVALID, "%s has %lld dims, gradOutput %lld", names[i], (long long)all[i]->rank,
                              (long long)rank);
    for (int i = 0; i < 3; i++) {
        const int64_t d = negative_dim(all[i]);
        if (d >= 0)
            return ACLNN_FAIL(ACLNN_ERR_PARAM_INVALID, "%s shape[%lld] = %lld is negative", names[i], (long long)d,
                              (long long)all[i]->dims[d]);
    }
    poolgrad_params params;
    memset(&params, 0, sizeof params);
    params.spatial_dims = 2;
    static const int64_t no_fallback[3] = { 0, 0, 0 };
    if (!expand(kernelSize, 2, false, no_fallback, params.kernel))
        return ACLNN_FAIL(ACLNN_ERR_PARAM_INVALID, "kernelSize has %llu values, not 1 or 2", (unsigned long long)kernelSize->size);
    const aclIntArray empty = { 0 };
    if (!expand(stride ? stride : &empty, 2, true, params.kernel, params.stride))
        return ACLNN_FAIL(ACLNN_ERR_PARAM_INVALID, "stride has %llu values, not 0, 1 or 2", (unsigned long long)stride->size);
    if (!expand(padding, 2, false, no_fallback, params.padding))
        return ACLNN_FAIL(ACLNN_ERR_PARAM_INVALID, "padding has %llu values, not 1 or 2", (unsigned long long)padding->size);
    /* 5.-6. kernel/stride/padding values are checked by the planner; cubeMathType here */
    if (cubeMathType < 0 || cubeMathType > 3)
        return ACLNN_FAIL(ACLNN_ERR_PARAM_INVALID, "cubeMathType = %d is outside 0..3", (int)cubeMathType);
    /* 7. self and gradInput shapes */
    if (!same_shape(self, gradInput)) {
        char a[POOLGRAD_DIMS_BUF], b[POOLGRAD_DIMS_BUF];
        return ACLNN_FAIL(ACLNN_ERR_PARAM_INVALID, "self shape %s differs from gradInput shape %s",
                          poolgrad_format_dims(a, sizeof a, self->dims, (int)self->rank),
                          poolgrad_format_dims(b, sizeof b, gradInput->dims, (int)gradInput->rank));
    }
    /* 8.-9. parameter values, the gradOutput shape, views: the native planner */
    params.ceil_mode = ceilMode;
    params.count_include_pad = countIncludePad;
    params.divisor_override = divisorOverride;
    return plan_native(&params, gradOutput, gradInput, "gradInput", workspaceSize, executor);
}

aclnnStatus aclnnAvgPool2dBackward(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    (void)stream;
    return run_executor(workspace, workspaceSize, executor);
}

/* ---------------------------------------------------------------- AvgPool3dBackward */

aclnnStatus aclnnAvgPool3dBackwardGetWorkspaceSize(const aclTensor *gradOutput, const aclTensor *self,
                                                   const aclIntArray *kernelSize, const aclIntArray *stride,
                                                   const aclIntArray *padding, bool ceilMode, bool countIncludePad,
                                                   int64_t divisorOverride, aclTensor *output, uint64_t *workspaceSize,
                                                   aclOpExecutor **executor)
{
    /* 1. pointers: the outputs first */
    if (!workspaceSize || !executor)
        return ACLNN_FAIL(ACLNN_ERR_PARAM_NULLPTR, "%s is NULL", !workspaceSize ? "workspaceSize" : "executor");
    if (!gradOutput || !self || !kernelSize || !stride || !padding || !output)
        return ACLNN_FAIL(ACLNN_ERR_PARAM_NULLPTR, "%s is NULL",
                          !gradOutput ? "gradOutput" : !self ? "self" : !kernelSize ? "kernelSize" : !stride ? "stride"
                          : !padding ? "padding" : "output");
    /* 2. dtypes; poolgrad also requires gradOutput.dtype == output.dtype */
    const aclTensor *all[3] = { gradOutput, self, output };
    static const char *const names[3] = { "gradOutput", "self", "output" };
    for (int i = 0; i < 3; i++) {
        poolgrad_dtype dt;
        if (!dtype_of(all[i]->dtype, &dt))
            return ACLNN_FAIL(ACLNN_ERR_PARAM_INVALID, "%s dtype %d is not ACL_FLOAT, ACL_FLOAT16 or ACL_BF16", names[i],
                              (int)all[i]->dtype);
    }
    if (gradOutput->dtype != output->dtype)
        return ACLNN_FAIL(ACLNN_ERR_PARAM_INVALID, "gradOutput dtype %d differs from output dtype %d", (int)gradOutput->dtype,
                          (int)output->dtype);
    /* 3. ranks, shapes, array lengths */
    const int64_t rank = gradOutput->rank;
    if (rank != 4 && rank != 5)
        return ACLNN_FAIL(ACLNN_ERR_PARAM_INVALID, "gradOutput has %lld dims, not 4 (C, D, H, W) or 5 (N, C, D, H, W)",
                          (long long)rank);
    for (int i = 1; i < 3; i++)
        if (all[i]->rank != rank)
            return ACLNN_FAIL(ACLNN_ERR_PARAM_INVALID, "%s has %lld dims, gradOutput %lld", names[i], (long long)all[i]->rank,
                              (long long)rank);
    if (!same_shape(self, output)) {
        char a[POOLGRAD_DIMS_BUF], b[POOLGRAD_DIMS_BUF];
        return ACLNN_FAIL(ACLNN_ERR_PARAM_INVALID, "self shape %s differs from output shape %s",
                          poolgrad_format_dims(a, sizeof a, self->dims, (int)self->rank),
                          poolgrad_format_dims(b, sizeof b, output->dims, (int)output->rank));
    }
    if (kernelSize->size != 1 && kernelSize->size != 3)
        return ACLNN_FAIL(ACLNN_ERR_PARAM_INVALID, "kernelSize has %llu values, not 1 or 3", (unsigned long long)kernelSize->size);
    if (padding->size != 1 && padding->size != 3)
        return ACLNN_FAIL(ACLNN_ERR_PARAM_INVALID, "padding has %llu values, not 1 or 3", (unsigned long long)padding->size);
    if (stride->size != 0 && stride->size != 1 && stride->size != 3)
        return ACLNN_FAIL(ACLNN_ERR_PARAM_INVALID, "stride has %llu values, not 0, 1 or 3", (unsigned long long)stride->size);
    for (int i = 0; i < 3; i += 2) {
        const int64_t d = negative_dim(all[i]);
        if (d >= 0)
            return ACLNN_FAIL(ACLNN_ERR_PARAM_INVALID, "%s shape[%lld] = %lld is negative", names[i], (long long)d,
                              (long long)all[i]->dims[d]);
    }
    /* 4. formats */
    if (gradOutput->format != output->format)
        return ACLNN_FAIL(ACLNN_ERR_PARAM_INVALID, "gradOutput format %d differs from output format %d",
                          (int)gradOutput->format, (int)output->format);
    if (is_private_format(gradOutput->format))
        return ACLNN_FAIL(ACLNN_ERR_PARAM_INVALID, "format %d is a device-only (private) format", (int)gradOutput->format);
    /* 5. empty gradOutput: success before the value checks; output gets +0.0 */
    if (is_empty(gradOutput)) {
        poolgrad_tensor out;
        if (!to_native(output, &out))
            return ACLNN_FAIL(ACLNN_ERR_PARAM_INVALID, "output cannot be described: its storage dims' product or its strides overflow int64");
        poolgrad_plan *plan;
        poolgrad_status st = poolgrad_plan_create_zero_fill(&out, &plan);
        if (st != POOLGRAD_OK)
            return status_of(st);
        return make_executor(plan, workspaceSize, executor);
    }
    /* 6.-7. values and the gradOutput shape: the native planner */
    poolgrad_params params;
    memset(&params, 0, sizeof params);
    params.spatial_dims = 3;
    static const int64_t no_fallback[3] = { 0, 0, 0 };
    expand(kernelSize, 3, false, no_fallback, params.kernel);
    expand(stride, 3, true, params.kernel, params.stride);
    expand(padding, 3, false, no_fallback, params.padding);
    params.ceil_mode = ceilMode;
    params.count_include_pad = countIncludePad;
    params.divisor_override = divisorOverride;
    return plan_native(&params, gradOutput, output, "output", workspaceSize, executor);
}

aclnnStatus aclnnAvgPool3dBackward(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    (void)stream;
    return run_executor(workspace, workspaceSize, executor);
}
