/**
 * @file
 * poolgrad-aclnn: the aclnn tensor / int-array / executor objects and status codes.
 * Objects are opaque; create and destroy them with the calls below. None is thread-safe to
 * destroy while another thread uses it; distinct objects may be used from different threads.
 */
#ifndef POOLGRAD_ACLNN_ACLNN_BASE_H
#define POOLGRAD_ACLNN_ACLNN_BASE_H

#include <stdbool.h>
#include <stdint.h>

#ifndef POOLGRAD_ACLNN_API
#  if defined(__GNUC__) || defined(__clang__)
#    define POOLGRAD_ACLNN_API __attribute__((visibility("default")))
#  else
#    define POOLGRAD_ACLNN_API
#  endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** Status of the aclnn calls (ACLNN_SUCCESS or an ACLNN_ERR_* value). */
typedef int32_t aclnnStatus;

#define ACLNN_SUCCESS 0 /**< the call succeeded */
#define ACLNN_ERR_PARAM_NULLPTR 161001 /**< a required pointer argument is NULL */
#define ACLNN_ERR_PARAM_INVALID 161002 /**< an argument is invalid (dtype, shape, parameter, view...) */
#define ACLNN_ERR_RUNTIME_ERROR 361001 /**< the run-time failed */
#define ACLNN_ERR_INNER 561000 /**< internal error (e.g. out of memory) */
#define ACLNN_ERR_INNER_CREATE_EXECUTOR 561101 /**< the executor could not be created */
#define ACLNN_ERR_INNER_NULLPTR 561103 /**< an internal pointer is NULL */

/** Element types (CANN's values; the operators accept ACL_FLOAT, ACL_FLOAT16 and ACL_BF16). */
typedef enum aclDataType {
    ACL_DT_UNDEFINED = -1,
    ACL_FLOAT = 0,
    ACL_FLOAT16 = 1,
    ACL_INT8 = 2,
    ACL_INT32 = 3,
    ACL_UINT8 = 4,
    ACL_INT16 = 6,
    ACL_UINT16 = 7,
    ACL_UINT32 = 8,
    ACL_INT64 = 9,
    ACL_UINT64 = 10,
    ACL_DOUBLE = 11,
    ACL_BOOL = 12,
    ACL_BF16 = 27
} aclDataType;

/** Memory formats (CANN's values; see the operators for those they accept). */
typedef enum aclFormat {
    ACL_FORMAT_UNDEFINED = -1,
    ACL_FORMAT_NCHW = 0,
    ACL_FORMAT_NHWC = 1,
    ACL_FORMAT_ND = 2,
    ACL_FORMAT_NC1HWC0 = 3,
    ACL_FORMAT_FRACTAL_Z = 4,
    ACL_FORMAT_NC1HWC0_C04 = 12,
    ACL_FORMAT_HWCN = 16,
    ACL_FORMAT_NDHWC = 27,
    ACL_FORMAT_FRACTAL_NZ = 29,
    ACL_FORMAT_NCDHW = 30,
    ACL_FORMAT_NDC1HWC0 = 32,
    ACL_FRACTAL_Z_3D = 33,
    ACL_FORMAT_NC = 35,
    ACL_FORMAT_NCL = 47
} aclFormat;

/** Opaque tensor descriptor (aclCreateTensor). */
typedef struct aclTensor aclTensor;
/** Opaque array of int64 values (aclCreateIntArray). */
typedef struct aclIntArray aclIntArray;
/** Opaque single-use executor made by a ...GetWorkspaceSize call. */
typedef struct aclOpExecutor aclOpExecutor;

/** Most dims a tensor may have (aclCreateTensor returns NULL beyond). */
#define POOLGRAD_ACLNN_MAX_DIMS 16

/**
 * Describe a view of caller-owned memory (the storage starts at tensorData; stride and offset
 * in elements; stride NULL = contiguous). The dims/strides are copied; the data is not owned.
 * Returns NULL only for NULL viewDims/storageDims with a non-zero count, more than
 * POOLGRAD_ACLNN_MAX_DIMS dims, or out of memory. Everything else (negative dims, offsets,
 * views that leave their storage) is refused by the operators with ACLNN_ERR_PARAM_INVALID.
 */
POOLGRAD_ACLNN_API aclTensor *aclCreateTensor(const int64_t *viewDims, uint64_t viewDimsNum, aclDataType dataType,
                                              const int64_t *stride, int64_t offset, aclFormat format,
                                              const int64_t *storageDims, uint64_t storageDimsNum, void *tensorData);
/** Copies the values. NULL value with size > 0 returns NULL. */
POOLGRAD_ACLNN_API aclIntArray *aclCreateIntArray(const int64_t *value, uint64_t size);
/** Frees the descriptor (not the data). NULL is accepted. */
POOLGRAD_ACLNN_API aclnnStatus aclDestroyTensor(const aclTensor *tensor);
/** Frees the array. NULL is accepted. */
POOLGRAD_ACLNN_API aclnnStatus aclDestroyIntArray(const aclIntArray *array);
/** Releases an executor that will not be run (a successful execute consumes it). NULL is accepted. */
POOLGRAD_ACLNN_API aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor *executor);

#ifdef __cplusplus
}
#endif

#endif
