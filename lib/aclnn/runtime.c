/* The aclInit / aclrt* runtime over host memory: streams run synchronously, memory is host memory. */
#include <stdlib.h>
#include <string.h>

#include "aclnn_internal.h"

struct poolgrad_aclnn_stream {
    int unused;
};

aclError aclInit(const char *configPath) { (void)configPath; return ACL_SUCCESS; }
aclError aclFinalize(void) { return ACL_SUCCESS; }
aclError aclrtSetDevice(int32_t deviceId) { return deviceId < 0 ? ACL_ERROR_INVALID_PARAM : ACL_SUCCESS; }
aclError aclrtResetDevice(int32_t deviceId) { return deviceId < 0 ? ACL_ERROR_INVALID_PARAM : ACL_SUCCESS; }

aclError aclrtCreateStream(aclrtStream *stream)
{
    if (!stream)
        return ACL_ERROR_INVALID_PARAM;
    *stream = calloc(1, sizeof(struct poolgrad_aclnn_stream));
    return *stream ? ACL_SUCCESS : ACL_ERROR_BAD_ALLOC;
}

aclError aclrtDestroyStream(aclrtStream stream)
{
    free(stream);
    return ACL_SUCCESS;
}

aclError aclrtSynchronizeStream(aclrtStream stream) { (void)stream; return ACL_SUCCESS; }

aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy)
{
    (void)policy;
    if (!devPtr || size == 0)
        return ACL_ERROR_INVALID_PARAM;
    if (size > SIZE_MAX - 63)
        return ACL_ERROR_BAD_ALLOC;
    void *p = aligned_alloc(64, (size + 63) & ~(size_t)63);
    if (!p)
        return ACL_ERROR_BAD_ALLOC;
    *devPtr = p;
    return ACL_SUCCESS;
}

aclError aclrtFree(void *devPtr)
{
    free(devPtr);
    return ACL_SUCCESS;
}

aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count, aclrtMemcpyKind kind)
{
    if ((unsigned)kind > (unsigned)ACL_MEMCPY_DEFAULT || count > destMax || (count > 0 && (!dst || !src)))
        return ACL_ERROR_INVALID_PARAM;
    if (count)
        memmove(dst, src, count);
    return ACL_SUCCESS;
}

aclError aclrtMemset(void *devPtr, size_t maxCount, int32_t value, size_t count)
{
    if (count > maxCount || (count > 0 && !devPtr))
        return ACL_ERROR_INVALID_PARAM;
    if (count)
        memset(devPtr, value, count);
    return ACL_SUCCESS;
}

aclError aclrtCtxSetSysParamOpt(aclSysParamOpt opt, int64_t value)
{
    (void)value;
    return opt == ACL_OPT_DETERMINISTIC ? ACL_SUCCESS : ACL_ERROR_INVALID_PARAM;
}

aclError aclrtGetSysParamOpt(aclSysParamOpt opt, int64_t *value)
{
    if (opt != ACL_OPT_DETERMINISTIC || !value)
        return ACL_ERROR_INVALID_PARAM;
    *value = 1;
    return ACL_SUCCESS;
}

const char *aclGetRecentErrMsg(void) { return poolgrad_last_error_message(); }
