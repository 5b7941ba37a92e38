/* aclnn-front helpers for the unit tests: dense tensor creation and a plan + execute runner. */
#ifndef POOLGRAD_TESTS_ACLNN_RUNNER_H
#define POOLGRAD_TESTS_ACLNN_RUNNER_H

#include <stdint.h>
#include <stdlib.h>

#include "acl/acl.h"
#include "aclnnop/aclnn_avgpool2d_backward.h"
#include "aclnnop/aclnn_avgpool3d_backward.h"

static inline aclDataType pgt_acl_dtype(poolgrad_dtype dt)
{
    return dt == POOLGRAD_F32 ? ACL_FLOAT : dt == POOLGRAD_F16 ? ACL_FLOAT16 : ACL_BF16;
}

/* Dense row-major tensor over data (storage dims = view dims). */
static inline aclTensor *pgt_acl_dense(const int64_t *dims, int rank, aclDataType dt, aclFormat fmt, void *data)
{
    return aclCreateTensor(dims, (uint64_t)rank, dt, NULL, 0, fmt, dims, (uint64_t)rank, data);
}

typedef struct pgt_acl_result {
    aclnnStatus plan;    /* GetWorkspaceSize */
    aclnnStatus exec;    /* execute (only if plan succeeded; else -1) */
    uint64_t workspace;  /* the planned workspace size */
} pgt_acl_result;

/*
 * Plan and run one operator (sd = 2 or 3). stride may be NULL (2D: = kernel; 3D: a NULL-pointer error).
 * On a successful plan the workspace is allocated and the executor is run (which consumes it).
 */
static inline pgt_acl_result pgt_acl_run(int sd, const aclTensor *go, const aclTensor *self, aclTensor *gi,
                                       const aclIntArray *k, const aclIntArray *s, const aclIntArray *p, bool ceil_mode,
                                       bool cip, int64_t div, int8_t cube)
{
    pgt_acl_result r = { -1, -1, 0 };
    aclOpExecutor *ex = NULL;
    if (sd == 2)
        r.plan = aclnnAvgPool2dBackwardGetWorkspaceSize(go, self, k, s, p, ceil_mode, cip, div, cube, gi, &r.workspace,
                                                        &ex);
    else
        r.plan = aclnnAvgPool3dBackwardGetWorkspaceSize(go, self, k, s, p, ceil_mode, cip, div, gi, &r.workspace, &ex);
    if (r.plan != ACLNN_SUCCESS)
        return r;
    void *ws = NULL;
    if (r.workspace > 0)
        ws = malloc((size_t)r.workspace);
    aclrtStream stream = NULL;
    aclrtCreateStream(&stream);
    r.exec = sd == 2 ? aclnnAvgPool2dBackward(ws, r.workspace, ex, stream) : aclnnAvgPool3dBackward(ws, r.workspace, ex, stream);
    aclrtSynchronizeStream(stream);
    aclrtDestroyStream(stream);
    if (r.exec != ACLNN_SUCCESS)
        aclDestroyAclOpExecutor(ex);
    free(ws);
    return r;
}

/* Same with plain arrays (nk/ns/np lengths; ns < 0: stride NULL). */
static inline pgt_acl_result pgt_acl_run_arrays(int sd, const aclTensor *go, const aclTensor *self, aclTensor *gi,
                                              const int64_t *k, int nk, const int64_t *s, int ns, const int64_t *p,
                                              int np, bool ceil_mode, bool cip, int64_t div, int8_t cube)
{
    aclIntArray *ka = aclCreateIntArray(k, (uint64_t)nk);
    aclIntArray *sa = ns < 0 ? NULL : aclCreateIntArray(s, (uint64_t)ns);
    aclIntArray *pa = aclCreateIntArray(p, (uint64_t)np);
    pgt_acl_result r = pgt_acl_run(sd, go, self, gi, ka, sa, pa, ceil_mode, cip, div, cube);
    aclDestroyIntArray(ka);
    aclDestroyIntArray(sa);
    aclDestroyIntArray(pa);
    return r;
}

#endif
