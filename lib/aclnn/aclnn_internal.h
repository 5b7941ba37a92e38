/* Internal to libpoolgrad-aclnn: the CANN objects over the native API. */
#ifndef POOLGRAD_LIB_ACLNN_INTERNAL_H
#define POOLGRAD_LIB_ACLNN_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "acl/acl.h"
#include "internal.h"

struct aclTensor {
    int64_t rank;
    int64_t dims[POOLGRAD_ACLNN_MAX_DIMS];
    int64_t strides[POOLGRAD_ACLNN_MAX_DIMS];
    int64_t offset;
    int64_t storage_numel; /* -1: the storage dims' product overflows */
    bool strides_overflow;  /* NULL strides whose contiguous values overflow */
    int32_t dtype;
    int32_t format;
    void *data;
};

struct aclIntArray {
    uint64_t size;
    int64_t values[]; /* flexible */
};

#define EXECUTOR_MAGIC 0x706f6f6c67726164ull /* "poolgrad" */

struct aclOpExecutor {
    uint64_t magic;
    poolgrad_plan *plan;
};

#endif
