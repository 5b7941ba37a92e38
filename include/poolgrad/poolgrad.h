/**
 * @file
 * poolgrad — bit-exact, deterministic backward pass of average pooling (2D and 3D) on the CPU.
 *
 * Native C API. Every external symbol of libpoolgrad starts with `poolgrad_` (macros with POOLGRAD_),
 * so the library links into processes that also load the vendor's aclnn libraries.
 *
 * Flow: describe gradOutput and gradInput as poolgrad_tensor views, fill a poolgrad_params,
 * poolgrad_plan_create() validates everything and sizes the workspace, poolgrad_execute() runs.
 * Nothing that planning could have rejected makes execute fail.
 */
#ifndef POOLGRAD_POOLGRAD_H
#define POOLGRAD_POOLGRAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifndef POOLGRAD_API
#  if defined(_WIN32)
#    define POOLGRAD_API
#  elif defined(__GNUC__) || defined(__clang__)
#    define POOLGRAD_API __attribute__((visibility("default")))
#  else
#    define POOLGRAD_API
#  endif
#endif

/* POOLGRAD_VERSION_MAJOR/MINOR/PATCH/NUMBER/STRING, generated from the Meson project version. */
#include "poolgrad/version.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Status codes. Values are stable and will never be renumbered. */
typedef enum poolgrad_status {
    POOLGRAD_OK = 0,
    POOLGRAD_ERR_NULL_POINTER = 1,      /**< a required pointer argument is NULL */
    POOLGRAD_ERR_DTYPE = 2,             /**< unsupported dtype, or gradOutput/gradInput dtypes differ */
    POOLGRAD_ERR_RANK = 3,              /**< rank not 3/4 (2D) or 4/5 (3D), or ranks differ */
    POOLGRAD_ERR_PARAM = 4,             /**< kernel/stride <= 0, padding < 0 or 2*pad > kernel, bad spatial_dims */
    POOLGRAD_ERR_SHAPE = 5,             /**< negative dim, or gradOutput shape != the inferred one */
    POOLGRAD_ERR_OVERFLOW = 6,          /**< a size, offset or index would overflow int64 / size_t */
    POOLGRAD_ERR_VIEW = 7,              /**< a view reaches outside its storage, or negative offset */
    POOLGRAD_ERR_ALIAS = 8,             /**< gradInput elements overlap each other or gradOutput's storage */
    POOLGRAD_ERR_WORKSPACE = 9,         /**< workspace NULL while needed, or smaller than planned */
    POOLGRAD_ERR_OUT_OF_MEMORY = 10,    /**< allocation failed */
    POOLGRAD_ERR_THREADS = 11           /**< negative thread count */
} poolgrad_status;

/** Element types. Values are stable. */
typedef enum poolgrad_dtype {
    POOLGRAD_F32 = 0,
    POOLGRAD_F16 = 1,  /**< IEEE binary16, stored as uint16_t bits */
    POOLGRAD_BF16 = 2  /**< bfloat16, stored as uint16_t bits */
} poolgrad_dtype;

/** Most dims a poolgrad_tensor has (batched 3D: N, C, D, H, W). */
#define POOLGRAD_MAX_RANK 5

/**
 * A strided view of a tensor in host memory.
 * Element (i0, ..., i{rank-1}) lives at storage + (offset + sum(ik * strides[k])) * elemsize.
 * storage_numel is the number of elements the caller owns from `storage`; planning refuses any view
 * that reaches outside [0, storage_numel). Strides may be zero or any sign for gradOutput;
 * gradInput must not reach one element twice. Unused trailing entries of shape/strides are ignored.
 */
typedef struct poolgrad_tensor {
    poolgrad_dtype dtype;               /**< element type */
    int32_t rank;                       /**< number of dims, 1..POOLGRAD_MAX_RANK */
    int64_t shape[POOLGRAD_MAX_RANK];   /**< logical shape, (N,) C, (D,) H, W */
    int64_t strides[POOLGRAD_MAX_RANK]; /**< in elements */
    int64_t offset;                     /**< in elements, >= 0 */
    int64_t storage_numel;              /**< elements available from storage, >= 0 */
    void *storage;                      /**< start of the caller's storage (not owned) */
} poolgrad_tensor;

/**
 * Pooling parameters, axes in order (D,) H, W. spatial_dims is 2 (avg_pool2d) or 3 (avg_pool3d);
 * entries past spatial_dims are ignored. A zero divisor_override means "no override";
 * any other value (negative too) is the divisor of every window.
 */
typedef struct poolgrad_params {
    int32_t spatial_dims;     /**< 2 or 3 */
    int64_t kernel[3];        /**< window size per axis, > 0 */
    int64_t stride[3];        /**< window step per axis, > 0 */
    int64_t padding[3];       /**< implicit padding per axis, 0 <= padding <= kernel / 2 */
    bool ceil_mode;           /**< output size rounded up instead of down */
    bool count_include_pad;   /**< padded elements count in the divisor */
    int64_t divisor_override; /**< 0: none; else the divisor of every window */
} poolgrad_params;

/** Opaque execution plan. */
typedef struct poolgrad_plan poolgrad_plan;

/** Runtime version, POOLGRAD_VERSION_NUMBER of the library actually linked. Thread-safe. */
POOLGRAD_API unsigned poolgrad_version_number(void);
/** Runtime version string ("MAJOR.MINOR.PATCH"), static storage. Thread-safe. */
POOLGRAD_API const char *poolgrad_version_string(void);
/**
 * What the calling thread's most recent failing poolgrad call found wrong: the argument, the axis, the
 * expected and actual values, e.g. "padding[1] = 2 exceeds kernel[1] / 2 = 1". Set by every call that
 * returns an error status, left unchanged by successful calls (like errno); "" before any failure.
 * Thread-local storage, valid until the thread's next failing call. Never NULL.
 */
POOLGRAD_API const char *poolgrad_last_error_message(void);
/** Human-readable name of a status, static storage, never NULL ("unknown status" for others). */
POOLGRAD_API const char *poolgrad_status_string(poolgrad_status status);
/** Size in bytes of one element of dtype, 0 for an unknown dtype. */
POOLGRAD_API size_t poolgrad_dtype_size(poolgrad_dtype dtype);

/**
 * Fill *t as a dense row-major (NCHW / NCDHW) view of `data` with `rank` dims of `shape`.
 * Fails with POOLGRAD_ERR_RANK, POOLGRAD_ERR_SHAPE or POOLGRAD_ERR_OVERFLOW. Thread-safe.
 */
POOLGRAD_API poolgrad_status poolgrad_tensor_init_contiguous(poolgrad_tensor *t, poolgrad_dtype dtype,
                                                             int32_t rank, const int64_t *shape, void *data);
/**
 * Same, channels-last: NHWC / NDHWC memory order for a logical NCHW / NCDHW shape
 * (unbatched, rank = spatial_dims + 1: HWC / DHWC). spatial_dims is 2 or 3. Thread-safe.
 */
POOLGRAD_API poolgrad_status poolgrad_tensor_init_channels_last(poolgrad_tensor *t, poolgrad_dtype dtype,
                                                                int32_t rank, int32_t spatial_dims,
                                                                const int64_t *shape, void *data);

/**
 * Infer the gradOutput (= forward output) shape for an input of `rank` dims `input_shape`.
 * Writes `rank` entries to out_shape. Validates params like poolgrad_plan_create. Thread-safe.
 */
POOLGRAD_API poolgrad_status poolgrad_output_shape(const poolgrad_params *params, int32_t rank,
                                                   const int64_t *input_shape, int64_t *out_shape);

/**
 * Validate everything and build a plan computing grad_input from grad_output.
 * The plan keeps copies of the descriptors (not of the data): the tensors' storage must stay valid
 * until the last execute. On success *plan owns a new plan (free with poolgrad_plan_destroy);
 * on failure *plan is set to NULL when plan is not NULL. Thread-safe.
 */
POOLGRAD_API poolgrad_status poolgrad_plan_create(const poolgrad_params *params, const poolgrad_tensor *grad_output,
                                                  const poolgrad_tensor *grad_input, poolgrad_plan **plan);
/**
 * Bytes of scratch execute needs (may be 0). For kernels with per-thread scratch it holds one slot per
 * thread an execution would start by default when the plan is made (omp_get_max_threads(), at most 256);
 * an execution with more threads runs the extra ones without a slot: slower, the same bytes. Thread-safe.
 */
POOLGRAD_API size_t poolgrad_plan_workspace_size(const poolgrad_plan *plan);
/** Name of the kernel the plan selected, e.g. "avgpool3d_bwd_f32__avx512_nchw". Valid while the plan lives. */
POOLGRAD_API const char *poolgrad_plan_kernel_name(const poolgrad_plan *plan);
/**
 * Compute grad_input. workspace must hold poolgrad_plan_workspace_size() bytes (may be NULL when 0),
 * any alignment. Fails only with POOLGRAD_ERR_NULL_POINTER, POOLGRAD_ERR_WORKSPACE or
 * POOLGRAD_ERR_THREADS, before writing anything. num_threads: 0 = OpenMP default (OMP_NUM_THREADS),
 * n > 0 = at most n threads (capped at 256). A plan may be executed any number of times.
 * Executions of different plans may run concurrently when their gradInput views and workspaces
 * are distinct; two concurrent executions of one plan write the same gradInput (a data race).
 * Results are byte-identical whatever the thread count, ISA and machine: every NaN stored is the
 * dtype's canonical quiet NaN (f32 0x7fc00000, f16 0x7e00, bf16 0x7fc0; docs/SEMANTICS.md).
 */
POOLGRAD_API poolgrad_status poolgrad_execute(const poolgrad_plan *plan, void *workspace, size_t workspace_size,
                                              int num_threads);
/** Free a plan (NULL is fine). Not concurrently with an execute of the same plan. */
POOLGRAD_API void poolgrad_plan_destroy(poolgrad_plan *plan);

/**
 * One-shot convenience: plan, allocate the workspace, execute, free. Thread-safe.
 */
POOLGRAD_API poolgrad_status poolgrad_avgpool_backward(const poolgrad_params *params, const poolgrad_tensor *grad_output,
                                                       const poolgrad_tensor *grad_input, int num_threads);

/* ---- conversions (round-to-nearest-even, the library's own bit-exact code) ---- */

/** Exact widening of IEEE binary16 bits. NaN stays NaN (quieted, payload kept). */
POOLGRAD_API float poolgrad_f16_to_f32(uint16_t h);
/** Round to nearest even; overflow to +-inf, subnormals kept, NaN becomes a quiet NaN (sign and top payload kept:
 *  a conversion, unlike results, which store the canonical NaN). */
POOLGRAD_API uint16_t poolgrad_f32_to_f16(float f);
/** Exact widening of bfloat16 bits. */
POOLGRAD_API float poolgrad_bf16_to_f32(uint16_t b);
/** Round to nearest even (carry into the exponent, overflow to +-inf); NaN becomes a quiet NaN (sign and
 *  payload kept: a conversion, unlike results, which store the canonical NaN). */
POOLGRAD_API uint16_t poolgrad_f32_to_bf16(float f);

/* ---- comparison, for conformance testing ---- */

/** Result of poolgrad_compare. Index = row-major position in the logical shape. */
typedef struct poolgrad_compare_result {
    int64_t count;          /**< elements compared */
    int64_t mismatches;     /**< elements whose bits differ (any NaN equals any NaN: meant for foreign results) */
    int64_t first_mismatch; /**< index of the first mismatch, -1 if none */
    uint64_t max_ulp;       /**< largest distance in units in the last place of dtype
                                 (+0 and -0 are 0 apart; NaN vs number = UINT64_MAX) */
    int64_t max_ulp_index;  /**< where max_ulp occurs, -1 if no mismatch */
    double max_abs_error;   /**< largest |actual - expected| over finite pairs */
    double max_rel_error;   /**< largest |actual - expected| / |expected| over finite pairs, expected != 0 */
} poolgrad_compare_result;

/**
 * Compare two views of the same dtype, rank and shape element by element.
 * Fails with POOLGRAD_ERR_NULL_POINTER, POOLGRAD_ERR_DTYPE, POOLGRAD_ERR_RANK, POOLGRAD_ERR_SHAPE,
 * POOLGRAD_ERR_VIEW or POOLGRAD_ERR_OVERFLOW. Reads only. Thread-safe.
 */
POOLGRAD_API poolgrad_status poolgrad_compare(const poolgrad_tensor *actual, const poolgrad_tensor *expected,
                                              poolgrad_compare_result *result);

/* ---- comparison report: tolerances, NaN/inf positions, worst elements, error bounds (docs/ERROR_BOUNDS.md) ---- */

/**
 * Error models for poolgrad_error_bound: what a *correct* implementation may do differently from the golden
 * order of docs/SEMANTICS.md section 4. Values are stable.
 */
typedef enum poolgrad_bound_model {
    POOLGRAD_BOUND_NONE = 0,
    POOLGRAD_BOUND_F32_ANY_ORDER = 1,     /**< "f32-any-order": each term g/d in f32 by true division or as
                                               g * fl(1/d), summed in f32 in any order, one rounding to the output dtype */
    POOLGRAD_BOUND_F32_ANY_ORDER_DIV = 2, /**< "f32-any-order-div": as 1 with true division only (tighter) */
    POOLGRAD_BOUND_DTYPE_ANY_ORDER = 3,   /**< "dtype-any-order": terms and every partial sum rounded to the data
                                               dtype (f16/bf16 accumulation; for f32 the same as 1) */
    POOLGRAD_BOUND_DTYPE_ANY_ORDER_DIV = 4 /**< "dtype-any-order-div": as 3 with true division only */
} poolgrad_bound_model;

/** Name of a model ("f32-any-order", ...), "unknown" otherwise. */
POOLGRAD_API const char *poolgrad_bound_model_name(poolgrad_bound_model model);
/** Parse a model name; POOLGRAD_ERR_PARAM (with a message listing the names) if unknown. */
POOLGRAD_API poolgrad_status poolgrad_bound_model_parse(const char *name, poolgrad_bound_model *model);

/**
 * For every gradInput element (row-major over input_shape, `rank` dims as for poolgrad_output_shape), the exact
 * value (float64 sum of the float64 terms g/d) into reference[] and the largest |result - exact| a correct
 * implementation under `model` could produce into bound[] (+inf where overflow to infinity is possible).
 * The data and output dtype is grad_output->dtype; grad_output must have the inferred shape. Reads only.
 * Fails like poolgrad_plan_create on bad params/views, POOLGRAD_ERR_PARAM on an unknown model,
 * POOLGRAD_ERR_OUT_OF_MEMORY. Thread-safe.
 */
POOLGRAD_API poolgrad_status poolgrad_error_bound(const poolgrad_params *params, const poolgrad_tensor *grad_output,
                                                  int32_t rank, const int64_t *input_shape, poolgrad_bound_model model,
                                                  double *reference, double *bound);

/**
 * Tolerances of poolgrad_compare_report_run. Set size = sizeof(poolgrad_compare_options) (ABI: later versions
 * only append fields). An element passes when its bits are equal (any NaN equals any NaN), or both values are
 * finite and any given criterion holds: ULP distance <= max_ulp; |a - e| <= atol + rtol * |e| (atol is the
 * absolute floor for near-zero values); |a - reference| <= bound. With reference/bound the verdict is taken
 * against the exact reference instead of `expected` (which is still shown).
 */
typedef struct poolgrad_compare_options {
    size_t size;              /**< sizeof(poolgrad_compare_options) */
    int64_t max_ulp;          /**< < 0: no ULP criterion */
    double atol;              /**< <= 0 and rtol <= 0: no abs/rel criterion */
    double rtol;              /**< relative tolerance, scaled by |expected| */
    const double *reference;  /**< NULL, or row-major exact values (poolgrad_error_bound) */
    const double *bound;      /**< with reference: allowed |actual - reference| per element */
    int32_t bound_model;      /**< poolgrad_bound_model the bound came from, for the report text */
} poolgrad_compare_options;

/** How many worst elements a report keeps. */
#define POOLGRAD_COMPARE_WORST 8

/** One element of a report. */
typedef struct poolgrad_compare_element {
    int64_t index;                         /**< row-major position */
    int64_t multi_index[POOLGRAD_MAX_RANK]; /**< position per dim */
    uint32_t actual_bits;                  /**< raw bits of the actual element (low 16 for f16/bf16) */
    uint32_t expected_bits;                /**< raw bits of the expected element */
    double actual;                         /**< actual value, widened exactly */
    double expected;                       /**< expected value, widened exactly */
    uint64_t ulp;                          /**< ordered-integer distance; UINT64_MAX when exactly one is NaN */
    double abs_error;                      /**< |actual - expected| */
    double rel_error;                      /**< vs expected; +inf when expected is 0 and they differ */
    double reference;                      /**< exact value; NaN without a bound */
    double bound;                          /**< allowed |actual - reference|; NaN without a bound */
    bool passed;                           /**< within the tolerance */
} poolgrad_compare_element;

/**
 * Report of poolgrad_compare_report_run. Set size = sizeof(poolgrad_compare_report) before the call.
 * ULP distances are measured on the ordered integer line of the dtype: +0 and -0 are 0 apart and the
 * distance from -x to +y is ulps(x) + ulps(y).
 */
typedef struct poolgrad_compare_report {
    size_t size;              /**< sizeof(poolgrad_compare_report), set by the caller */
    poolgrad_dtype dtype;     /**< dtype of both tensors */
    int32_t rank;             /**< rank of both tensors */
    int64_t shape[POOLGRAD_MAX_RANK]; /**< their shape */
    int64_t count;            /**< elements compared */
    int64_t differing;        /**< elements whose bits differ (NaN vs NaN does not) */
    int64_t failed;           /**< elements outside the tolerance (includes the NaN/inf mismatches) */
    int64_t nan_mismatches;   /**< NaN on one side only */
    int64_t inf_mismatches;   /**< an infinity on one side, not the same infinity on the other (and not allowed) */
    uint64_t max_ulp;         /**< over pairs of numbers */
    int64_t max_ulp_index;    /**< -1 if no pair differs */
    double max_abs_error;     /**< over finite pairs */
    double max_rel_error;     /**< over finite pairs */
    double max_bound_ratio;   /**< largest |actual - reference| / bound (0 when none), with a bound */
    poolgrad_compare_options options; /**< the tolerance applied (pointers not kept) */
    int32_t worst_count;      /**< entries used in worst[] */
    poolgrad_compare_element worst[POOLGRAD_COMPARE_WORST]; /**< failing first, then by ULP (bound ratio) */
    bool passed;              /**< no element outside the tolerance */
} poolgrad_compare_report;

/**
 * Compare like poolgrad_compare, with tolerances (NULL options: bit equality) and a full report.
 * Fails like poolgrad_compare, and with POOLGRAD_ERR_PARAM if a size field is too small. Thread-safe.
 */
POOLGRAD_API poolgrad_status poolgrad_compare_report_run(const poolgrad_tensor *actual, const poolgrad_tensor *expected,
                                                         const poolgrad_compare_options *options,
                                                         poolgrad_compare_report *report);
/**
 * The report as text (like snprintf: returns the length it needs, writes at most size bytes, terminated).
 * Ends with "PASS" or "FAIL" on its last line.
 */
POOLGRAD_API size_t poolgrad_compare_report_format(const poolgrad_compare_report *report, char *buf, size_t size);

/* ---- run-time dispatch introspection ---- */

/** Instruction-set levels, in increasing order on each architecture. Values are stable. */
typedef enum poolgrad_isa {
    POOLGRAD_ISA_SCALAR = 0,
    POOLGRAD_ISA_SSE2 = 1,
    POOLGRAD_ISA_AVX2 = 2,
    POOLGRAD_ISA_AVX512 = 3,
    POOLGRAD_ISA_NEON = 4
} poolgrad_isa;

/** Best ISA usable now: built in, supported by the CPU, and not above the POOLGRAD_ISA cap. */
POOLGRAD_API poolgrad_isa poolgrad_active_isa(void);
/** Name of an ISA ("scalar", "sse2", "avx2", "avx512", "neon"), "unknown" otherwise. */
POOLGRAD_API const char *poolgrad_isa_name(poolgrad_isa isa);
/** True if the library contains that ISA's kernels (whether or not this CPU runs them). */
POOLGRAD_API bool poolgrad_isa_built(poolgrad_isa isa);

#ifdef __cplusplus
}
#endif

#endif /* POOLGRAD_POOLGRAD_H */
