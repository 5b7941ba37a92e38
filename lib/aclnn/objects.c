/* aclCreateTensor / aclCreateIntArray and their destructors; executors are released here too. */
#include <stdlib.h>
#include <string.h>

#include "aclnn_internal.h"

aclTensor *aclCreateTensor(const int64_t *viewDims, uint64_t viewDimsNum, aclDataType dataType, const int64_t *stride,
                           int64_t offset, aclFormat format, const int64_t *storageDims, uint64_t storageDimsNum,
                           void *tensorData)
{
    if ((viewDimsNum > 0 && !viewDims) || (storageDimsNum > 0 && !storageDims) || viewDimsNum > POOLGRAD_ACLNN_MAX_DIMS ||
        storageDimsNum > POOLGRAD_ACLNN_MAX_DIMS)
        return NULL;
    aclTensor *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->rank = (int64_t)viewDimsNum;
    for (uint64_t i = 0; i < viewDimsNum; i++)
        t->dims[i] = viewDims[i];
    if (stride) {
        for (uint64_t i = 0; i < viewDimsNum; i++)
            t->strides[i] = stride[i];
    } else {
        int64_t s = 1;
        for (int64_t i = t->rank - 1; i >= 0; i--) {
            t->strides[i] = s;
            if (!poolgrad_mul_ok(s, t->dims[i] > 0 ? t->dims[i] : 1, &s))
                t->strides_overflow = true;
        }
    }
    int64_t numel = 1;
    for (uint64_t i = 0; i < storageDimsNum && numel >= 0; i++) {
        if (storageDims[i] < 0 || !poolgrad_mul_ok(numel, storageDims[i], &numel))
            numel = -1;
    }
    t->storage_numel = numel;
    t->offset = offset;
    t->dtype = (int32_t)dataType;
    t->format = (int32_t)format;
    t->data = tensorData;
    return t;
}

aclIntArray *aclCreateIntArray(const int64_t *value, uint64_t size)
{
    if ((size > 0 && !value) || size > (1u << 20))
        return NULL;
    aclIntArray *a = malloc(sizeof *a + (size_t)size * sizeof(int64_t));
    if (!a)
        return NULL;
    a->size = size;
    if (size)
        memcpy(a->values, value, (size_t)size * sizeof(int64_t));
    return a;
}

aclnnStatus aclDestroyTensor(const aclTensor *tensor)
{
    free((void *)tensor);
    return ACLNN_SUCCESS;
}

aclnnStatus aclDestroyIntArray(const aclIntArray *array)
{
    free((void *)array);
    return ACLNN_SUCCESS;
}

aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor *executor)
{
    if (!executor)
        return ACLNN_SUCCESS;
    if (executor->magic != EXECUTOR_MAGIC)
        return ACLNN_ERR_PARAM_INVALID;
    executor->magic = 0;
    poolgrad_plan_destroy(executor->plan);
    free(executor);
    return ACLNN_SUCCESS;
}
