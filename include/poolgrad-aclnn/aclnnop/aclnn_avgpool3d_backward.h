/**
 * @file
 * poolgrad-aclnn: aclnnAvgPool3dBackward over host memory (see docs/SEMANTICS.md and README).
 * Phase one validates everything and plans; phase two computes, deterministically and bit-exactly
 * (gather order, one rounding), synchronously on the calling thread plus OpenMP workers.
 * Distinct executors may run concurrently on different threads.
 */
#ifndef POOLGRAD_ACLNN_AVGPOOL3D_BACKWARD_H
#define POOLGRAD_ACLNN_AVGPOOL3D_BACKWARD_H

#include "aclnn/aclnn_base.h"
#include "acl/acl.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Validate and plan. On success *executor is a new single-use executor (run it with
 * aclnnAvgPool3dBackward, or release it with aclDestroyAclOpExecutor) and *workspaceSize the
 * bytes of workspace it needs. The tensors' data must stay valid until execution; the
 * tensor and array descriptors may be destroyed right after this call.
 */
POOLGRAD_ACLNN_API aclnnStatus aclnnAvgPool3dBackwardGetWorkspaceSize(
    const aclTensor *gradOutput, const aclTensor *self, const aclIntArray *kernelSize, const aclIntArray *stride,
    const aclIntArray *padding, bool ceilMode, bool countIncludePad, int64_t divisorOverride, aclTensor *output,
    uint64_t *workspaceSize, aclOpExecutor **executor);

/**
 * Execute and consume the executor. NULL executor: ACLNN_ERR_PARAM_NULLPTR; NULL workspace while
 * workspaceSize > 0: ACLNN_ERR_PARAM_NULLPTR; workspaceSize below the planned size:
 * ACLNN_ERR_PARAM_INVALID. On these failures the executor is not consumed.
 */
POOLGRAD_ACLNN_API aclnnStatus aclnnAvgPool3dBackward(void *workspace, uint64_t workspaceSize,
                                                       aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif
