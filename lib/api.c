/* Version, status strings and dtype sizes of the native API. */
#include "internal.h"

unsigned poolgrad_version_number(void) { return POOLGRAD_VERSION_NUMBER; }
const char *poolgrad_version_string(void) { return POOLGRAD_VERSION_STRING; }

const char *poolgrad_status_string(poolgrad_status status)
{
    switch (status) {
    case POOLGRAD_OK: return "success";
    case POOLGRAD_ERR_NULL_POINTER: return "a required pointer is NULL";
    case POOLGRAD_ERR_DTYPE: return "unsupported dtype, or gradOutput and gradInput dtypes differ";
    case POOLGRAD_ERR_RANK: return "unsupported rank, or tensor ranks differ";
    case POOLGRAD_ERR_PARAM: return "invalid pooling parameter (kernel, stride, padding, spatial_dims)";
    case POOLGRAD_ERR_SHAPE: return "negative dimension, or gradOutput shape differs from the inferred one";
    case POOLGRAD_ERR_OVERFLOW: return "a size, offset or index overflows 64-bit arithmetic";
    case POOLGRAD_ERR_VIEW: return "a tensor view reaches outside its storage";
    case POOLGRAD_ERR_ALIAS: return "gradInput overlaps itself or gradOutput";
    case POOLGRAD_ERR_WORKSPACE: return "workspace missing or smaller than planned";
    case POOLGRAD_ERR_OUT_OF_MEMORY: return "out of memory";
    case POOLGRAD_ERR_THREADS: return "invalid thread count";
    }
    return "unknown status";
}

size_t poolgrad_dtype_size(poolgrad_dtype dtype)
{
    switch (dtype) {
    case POOLGRAD_F32: return 4;
    case POOLGRAD_F16:
    case POOLGRAD_BF16: return 2;
    }
    return 0;
}

const char *poolgrad_dtype_name(poolgrad_dtype dtype)
{
    switch (dtype) {
    case POOLGRAD_F32: return "f32";
    case POOLGRAD_F16: return "f16";
    case POOLGRAD_BF16: return "bf16";
    }
    return "unknown";
}
