/*
 * poolgrad-aclnn: host-memory stand-in for the Ascend runtime calls that aclnn samples use.
 * "Device" memory is host memory, a stream runs work synchronously. Enum values match CANN.
 * Link with libpoolgrad-aclnn (pkg-config poolgrad-aclnn).
 */
#ifndef POOLGRAD_ACLNN_ACL_H
#define POOLGRAD_ACLNN_ACL_H

#include <stddef.h>
#include <stdint.h>

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef int aclError;
typedef void *aclrtStream;

#define ACL_SUCCESS 0
#define ACL_ERROR_INVALID_PARAM 100000
#define ACL_ERROR_BAD_ALLOC 200000

typedef enum aclrtMemcpyKind {
    ACL_MEMCPY_HOST_TO_HOST = 0,
    ACL_MEMCPY_HOST_TO_DEVICE = 1,
    ACL_MEMCPY_DEVICE_TO_HOST = 2,
    ACL_MEMCPY_DEVICE_TO_DEVICE = 3,
    ACL_MEMCPY_DEFAULT = 4
} aclrtMemcpyKind;

typedef enum aclrtMemMallocPolicy {
    ACL_MEM_MALLOC_HUGE_FIRST = 0,
    ACL_MEM_MALLOC_HUGE_ONLY = 1,
    ACL_MEM_MALLOC_NORMAL_ONLY = 2
} aclrtMemMallocPolicy;

typedef enum aclSysParamOpt {
    ACL_OPT_DETERMINISTIC = 0
} aclSysParamOpt;

/** Accepted and ignored (configPath may be NULL). Always ACL_SUCCESS. */
POOLGRAD_ACLNN_API aclError aclInit(const char *configPath);
POOLGRAD_ACLNN_API aclError aclFinalize(void);
/** Any deviceId >= 0 is accepted; negative ones are ACL_ERROR_INVALID_PARAM. */
POOLGRAD_ACLNN_API aclError aclrtSetDevice(int32_t deviceId);
POOLGRAD_ACLNN_API aclError aclrtResetDevice(int32_t deviceId);
/** Creates a stream token (free with aclrtDestroyStream); work submitted to it runs synchronously. */
POOLGRAD_ACLNN_API aclError aclrtCreateStream(aclrtStream *stream);
POOLGRAD_ACLNN_API aclError aclrtDestroyStream(aclrtStream stream);
/** Nothing is ever pending: returns ACL_SUCCESS. */
POOLGRAD_ACLNN_API aclError aclrtSynchronizeStream(aclrtStream stream);
/** 64-byte-aligned host memory; size 0 or NULL devPtr is ACL_ERROR_INVALID_PARAM. */
POOLGRAD_ACLNN_API aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy);
POOLGRAD_ACLNN_API aclError aclrtFree(void *devPtr);
/** memmove; count > destMax, NULL pointers with count > 0 or an unknown kind: ACL_ERROR_INVALID_PARAM. */
POOLGRAD_ACLNN_API aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count,
                                        aclrtMemcpyKind kind);
/** memset; count > maxCount or NULL with count > 0: ACL_ERROR_INVALID_PARAM. */
POOLGRAD_ACLNN_API aclError aclrtMemset(void *devPtr, size_t maxCount, int32_t value, size_t count);
/**
 * ACL_OPT_DETERMINISTIC is accepted with any value: poolgrad is always deterministic,
 * so aclrtGetSysParamOpt reports 1 for it. Other options: ACL_ERROR_INVALID_PARAM.
 */
POOLGRAD_ACLNN_API aclError aclrtCtxSetSysParamOpt(aclSysParamOpt opt, int64_t value);
/**
 * What the calling thread's most recent failing aclnn or aclCreate* call found wrong (the argument, the
 * axis, expected vs actual), as CANN's aclGetRecentErrMsg; the same text as poolgrad_last_error_message().
 * Thread-local, never NULL ("" before any failure).
 */
POOLGRAD_ACLNN_API const char *aclGetRecentErrMsg(void);
POOLGRAD_ACLNN_API aclError aclrtGetSysParamOpt(aclSysParamOpt opt, int64_t *value);

#ifdef __cplusplus
}
#endif

#endif
