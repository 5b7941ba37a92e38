/**
 * @file
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

/** Status of the acl / aclrt runtime calls (ACL_SUCCESS or an ACL_ERROR_* value). */
typedef int aclError;
/** Stream handle: a token, work submitted to it runs synchronously. */
typedef void *aclrtStream;

#define ACL_SUCCESS 0 /**< the call succeeded */
#define ACL_ERROR_INVALID_PARAM 100000 /**< an argument is invalid */
#define ACL_ERROR_BAD_ALLOC 200000 /**< out of memory */

/** Direction of an aclrtMemcpy (all are host-to-host here). */
typedef enum aclrtMemcpyKind {
    ACL_MEMCPY_HOST_TO_HOST = 0,
    ACL_MEMCPY_HOST_TO_DEVICE = 1,
    ACL_MEMCPY_DEVICE_TO_HOST = 2,
    ACL_MEMCPY_DEVICE_TO_DEVICE = 3,
    ACL_MEMCPY_DEFAULT = 4
} aclrtMemcpyKind;

/** aclrtMalloc policy (accepted and ignored: memory is host memory). */
typedef enum aclrtMemMallocPolicy {
    ACL_MEM_MALLOC_HUGE_FIRST = 0,
    ACL_MEM_MALLOC_HUGE_ONLY = 1,
    ACL_MEM_MALLOC_NORMAL_ONLY = 2
} aclrtMemMallocPolicy;

/** System parameters of aclrtCtxSetSysParamOpt / aclrtGetSysParamOpt. */
typedef enum aclSysParamOpt {
    ACL_OPT_DETERMINISTIC = 0
} aclSysParamOpt;

/** Accepted and ignored (configPath may be NULL). Always ACL_SUCCESS. */
POOLGRAD_ACLNN_API aclError aclInit(const char *configPath);
/** Accepted and ignored. Always ACL_SUCCESS. */
POOLGRAD_ACLNN_API aclError aclFinalize(void);
/** Any deviceId >= 0 is accepted; negative ones are ACL_ERROR_INVALID_PARAM. */
POOLGRAD_ACLNN_API aclError aclrtSetDevice(int32_t deviceId);
/** Same rule as aclrtSetDevice. */
POOLGRAD_ACLNN_API aclError aclrtResetDevice(int32_t deviceId);
/** Creates a stream token (free with aclrtDestroyStream); work submitted to it runs synchronously. */
POOLGRAD_ACLNN_API aclError aclrtCreateStream(aclrtStream *stream);
/** Frees a stream token from aclrtCreateStream. */
POOLGRAD_ACLNN_API aclError aclrtDestroyStream(aclrtStream stream);
/** Nothing is ever pending: returns ACL_SUCCESS. */
POOLGRAD_ACLNN_API aclError aclrtSynchronizeStream(aclrtStream stream);
/** 64-byte-aligned host memory; size 0 or NULL devPtr is ACL_ERROR_INVALID_PARAM. */
POOLGRAD_ACLNN_API aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy);
/** Frees memory from aclrtMalloc. */
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
 * axis, expected vs actual), as CANN's aclGetRecentErrMsg; in the native API's words where the native
 * planner found it. libpoolgrad-aclnn is self-contained: with the shared libraries its message is not
 * the one poolgrad_last_error_message() of libpoolgrad reports. Thread-local, never NULL ("" before any failure).
 */
POOLGRAD_ACLNN_API const char *aclGetRecentErrMsg(void);
/** Reads an option set by aclrtCtxSetSysParamOpt (see there). */
POOLGRAD_ACLNN_API aclError aclrtGetSysParamOpt(aclSysParamOpt opt, int64_t *value);

#ifdef __cplusplus
}
#endif

#endif
