/* aclCreateTensor / aclCreateIntArray and their destructors; executors are released here too. */
#include <stdlib.h>
#include <string.h>

#include "aclnn_internal.h"

aclTensor *aclCreateTensor(const int64_t *viewDims, uint64_t viewDimsNum, aclDataType dataType, const int64_t *stride,
                           int64_t offset, aclFormat format, const int64_t *storageDims, uint64_t storageDimsNum,
                           void *tensorData)
{
    if ((viewDimsNum > 0 && !viewDims) || (storageDimsNum > 0 && !storageDims)) {
        poolgrad_fail(POOLGRAD_ERR_NULL_POINTER, "aclCreateTensor: %s is NULL with a count of %llu",
                      viewDimsNum > 0 && !viewDims ? "viewDims" : "storageDims",
                      (unsigned long long)(viewDimsNum > 0 && !viewDims ? viewDimsNum : storageDimsNum));
        return NULL;
    }
    if (viewDimsNum > POOLGRAD_ACLNN_MAX_DIMS || storageDimsNum > POOLGRAD_ACLNN_MAX_DIMS) {
        poolgrad_fail(POOLGRAD_ERR_RANK, "aclCreateTensor: %s = %llu exceeds %d", viewDimsNum > POOLGRAD_ACLNN_MAX_DIMS ?
                      "viewDimsNum" : "storageDimsNum", (unsigned long long)(viewDimsNum > POOLGRAD_ACLNN_MAX_DIMS ?
                      viewDimsNum : storageDimsNum), POOLGRAD_ACLNN_MAX_DIMS);
        return NULL;
    }
    aclTensor *t = calloc(1, sizeof *t);
    if (!t) {
        poolgrad_fail(POOLGRAD_ERR_OUT_OF_MEMORY, "aclCreateTensor: out of memory");
        return NULL;
    }
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
    if (size > 0 && !value) {
        poolgrad_fail(POOLGRAD_ERR_NULL_POINTER, "aclCreateIntArray: value is NULL with size %llu", (unsigned long long)size);
        return NULL;
    }
    if (size > (1u << 20)) {
        poolgrad_fail(POOLGRAD_ERR_PARAM, "aclCreateIntArray: size %llu exceeds 2^20", (unsigned long long)size);
        return NULL;
    }
    aclIntArray *a = malloc(sizeof *a + (size_t)size * sizeof(int64_t));
    if (!a) {
        poolgrad_fail(POOLGRAD_ERR_OUT_OF_MEMORY, "aclCreateIntArray: out of memory");
        return NULL;
    }
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
    if (executor->magic != EXECUTOR_MAGIC) {
        poolgrad_fail(POOLGRAD_ERR_PARAM, "aclDestroyAclOpExecutor: not a live executor of this library");
        return ACLNN_ERR_PARAM_INVALID;
    }
    executor->magic = 0;
    poolgrad_plan_destroy(executor->plan);
    free(executor);
    return ACLNN_SUCCESS;
}
