/*
 * Hostile arguments to the native API. Planning cases are rows of one table (a mutation of the valid
 * base problem, the exact poolgrad_status and the exact poolgrad_last_error_message() text, and
 * optionally what poolgrad_output_shape must say about the same parameters); calls that do not fit a
 * plan row (other entry points, execute misuse, computed results) are small dedicated tests.
 * Planning validates everything before touching data, so most cases never need real storage.
 */
#include "expected_message.h"
#include <limits.h>

#include "base_problem.h"
#include "problem.h"

/* table rows leave their trailing fields (values, output_shape check) to the zero default */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

/* A message no validation failure gives: set before every call, so a stale message cannot pass. */
static void reset_message(void)
{
    poolgrad_execute(NULL, NULL, 0, 1);
    cr_assert_str_eq(poolgrad_last_error_message(), "plan is NULL");
}

static void expect_message(const char *what, int64_t v, const char *msg)
{
    char want[512];
    pgt_expand_msg(want, sizeof want, msg, v);
    cr_expect_str_eq(poolgrad_last_error_message(), want, "%s (v = %lld): message \"%s\", expected \"%s\"", what,
                     (long long)v, poolgrad_last_error_message(), want);
}

/* call, then its status and exact message */
#define EXPECT_CALL(call, status, msg)                                                                             \
    do {                                                                                                           \
        reset_message();                                                                                           \
        poolgrad_status st_ = (call);                                                                              \
        cr_expect_eq(st_, (status), "%s: status %s, expected %s", #call, poolgrad_status_string(st_),             \
                     poolgrad_status_string(status));                                                              \
        expect_message(#call, 0, (msg));                                                                           \
    } while (0)

/* A row runs once per listed value V(...), or once with v = 0. */
typedef struct row {
    const char *what;
    void (*mutate)(pgt_base_problem *h, int64_t v);
    poolgrad_status want;
    const char *msg;             /* exact poolgrad_last_error_message(), "{}" = v; NULL: success */
    const int64_t *vals;
    size_t nvals;
    bool check_shape;            /* also poolgrad_output_shape(pa, gi.rank, gi.shape): shape_want */
    poolgrad_status shape_want;
} row;

#define V(...) .vals = (const int64_t[]){ __VA_ARGS__ }, .nvals = sizeof((const int64_t[]){ __VA_ARGS__ }) / sizeof(int64_t)
#define SHAPE(st) .check_shape = true, .shape_want = (st)
#define M(name, ...) \
    static void name(pgt_base_problem *h, int64_t v) { (void)h; (void)v; __VA_ARGS__; }

static void walk(const row *rows, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const row *r = &rows[i];
        for (size_t j = 0; j < (r->nvals ? r->nvals : 1); j++) {
            const int64_t v = r->nvals ? r->vals[j] : 0;
            pgt_base_problem h;
            pgt_base_init(&h);
            r->mutate(&h, v);
            reset_message();
            const poolgrad_status st = pgt_base_plan(&h);
            cr_expect_eq(st, r->want, "%s (v = %lld): status %s, expected %s", r->what, (long long)v,
                         poolgrad_status_string(st), poolgrad_status_string(r->want));
            if (r->msg)
                expect_message(r->what, v, r->msg);
            else
                cr_expect_eq(r->want, POOLGRAD_OK, "%s: a failing row needs its message", r->what);
            if (r->check_shape) {
                int64_t out[POOLGRAD_MAX_RANK];
                const poolgrad_status ss = poolgrad_output_shape(&h.pa, h.gi.rank, h.gi.shape, out);
                cr_expect_eq(ss, r->shape_want, "%s (v = %lld): poolgrad_output_shape %s, expected %s", r->what,
                             (long long)v, poolgrad_status_string(ss), poolgrad_status_string(r->shape_want));
            }
        }
    }
}

/* ---------------------------------------------------------------- mutations (v is the row's value) */

M(m_gi_storage_null, h->gi.storage = NULL)
M(m_go_storage_null, h->go.storage = NULL)
M(m_both_dtype, h->gi.dtype = h->go.dtype = (poolgrad_dtype)v)
M(m_go_dtype, h->go.dtype = (poolgrad_dtype)v)
M(m_both_rank, h->gi.rank = h->go.rank = (int32_t)v)
M(m_go_rank, h->go.rank = (int32_t)v)
M(m_3d_rank3, h->pa = pgt_params(3, 2, 2, 0, false, true, 0); h->gi.rank = h->go.rank = 3)
M(m_kernel0, h->pa.kernel[0] = v)
M(m_kernel1, h->pa.kernel[1] = v)
M(m_stride0, h->pa.stride[0] = v)
M(m_stride1, h->pa.stride[1] = v)
M(m_padding0, h->pa.padding[0] = v)
M(m_padding1, h->pa.padding[1] = v)
M(m_spatial, h->pa.spatial_dims = (int32_t)v)
/* v = ceil mode */
M(m_kernel_max, h->pa.ceil_mode = v; h->pa.kernel[1] = INT64_MAX)
M(m_stride_max, h->pa.ceil_mode = v; h->pa.stride[0] = INT64_MAX)
M(m_global_max, h->pa.ceil_mode = v; h->pa.kernel[0] = h->pa.kernel[1] = h->pa.stride[0] = h->pa.stride[1] = INT64_MAX)
M(m_pad_huge, h->pa.ceil_mode = v; h->pa.kernel[1] = INT64_MAX - 1; h->pa.padding[1] = INT64_MAX / 2)
/* k = s = 2^40 on the 6-wide W axis, ceil: one window; gradOutput (2,3,3,1) */
M(m_k_s_2_40, h->pa.ceil_mode = true; h->pa.kernel[1] = h->pa.stride[1] = (int64_t)1 << 40; h->go.shape[3] = 1;
  h->go.strides[2] = 1; h->go.strides[1] = 3; h->go.strides[0] = 9; h->go.storage_numel = 18)
M(m_gi_dim0, h->gi.shape[0] = v)
M(m_gi_dim1, h->gi.shape[1] = v)
M(m_gi_dim2, h->gi.shape[2] = v)
M(m_gi_dim3, h->gi.shape[3] = v)
M(m_go_dim0, h->go.shape[0] = v)
M(m_go_dim1, h->go.shape[1] = v)
M(m_go_dim2, h->go.shape[2] = v)
M(m_go_dim3, h->go.shape[3] = v)
M(m_negative_inferred, h->pa.kernel[1] = 9; h->pa.stride[1] = 1; h->go.shape[3] = 0)
/* k = s = 1, every dim of both tensors from shape[v], unit strides, storage claims INT64_MAX */
M(m_count_overflow,
  static const int64_t shapes[][4] = { { (int64_t)1 << 32, (int64_t)1 << 32, 1, 1 }, { INT64_MAX, 2, 1, 1 } };
  h->pa = pgt_params(2, 1, 1, 0, false, true, 0);
  for (int d = 0; d < 4; d++) {
      h->gi.shape[d] = h->go.shape[d] = shapes[v][d];
      h->gi.strides[d] = h->go.strides[d] = 1;
  } h->gi.storage_numel = h->go.storage_numel = INT64_MAX)
/* 2^62 f32 elements: the count fits int64, the bytes do not */
M(m_bytes_overflow, const int64_t s62[4] = { 1, 1, (int64_t)1 << 31, (int64_t)1 << 31 };
  h->pa = pgt_params(2, 1, 1, 0, false, true, 0);
  cr_assert_eq(poolgrad_tensor_init_contiguous(&h->gi, POOLGRAD_F32, 4, s62, h->gi_data), POOLGRAD_OK);
  cr_assert_eq(poolgrad_tensor_init_contiguous(&h->go, POOLGRAD_F32, 4, s62, h->go_data), POOLGRAD_OK))
M(m_gi_numel, h->gi.storage_numel = v)
M(m_go_numel, h->go.storage_numel = v)
M(m_gi_numel_minus1, h->gi.storage_numel -= 1)
M(m_go_numel_minus1, h->go.storage_numel -= 1)
M(m_gi_offset, h->gi.offset = v)
M(m_go_offset, h->go.offset = v)
M(m_gi_stride0, h->gi.strides[0] = v)
M(m_gi_stride3, h->gi.strides[3] = v)
M(m_go_stride1, h->go.strides[1] = v)
M(m_go_stride2, h->go.strides[2] = v)
M(m_gi_strides01_half_max, h->gi.strides[0] = h->gi.strides[1] = INT64_MAX / 2)
M(m_gi_stride_d0, h->gi.strides[v] = 0)
M(m_gi_rows_overlap, h->gi.strides[2] = 3)
M(m_gi_n_on_c, h->gi.strides[0] = h->gi.strides[1])
M(m_gi_neg_collide, h->gi.strides[3] = -6; h->gi.offset = 30; h->gi.storage_numel = 300)
M(m_gi_stride_min, h->gi.shape[0] = h->go.shape[0] = 1; h->gi.strides[1] = INT64_MIN)
M(m_go_zero_strides, memset(h->go.strides, 0, sizeof h->go.strides))
M(m_size1_stride0, h->gi.shape[0] = h->go.shape[0] = 1; h->gi.strides[0] = 0)
M(m_go_same_storage, h->go.storage = h->gi.storage; h->go.storage_numel = h->gi.storage_numel)
M(m_go_at_gi_end, h->go.storage = h->gi_data + 2 * 3 * 6 * 6 - 54)
/* both in one storage of 200: gradInput (1,3,6,6) at offset v / 1000, gradOutput (1,3,3,3) at v % 1000 */
static float shared[200];
M(m_shared, const int64_t gi_shape[4] = { 1, 3, 6, 6 }, go_shape[4] = { 1, 3, 3, 3 };
  poolgrad_tensor_init_contiguous(&h->gi, POOLGRAD_F32, 4, gi_shape, shared);
  poolgrad_tensor_init_contiguous(&h->go, POOLGRAD_F32, 4, go_shape, shared);
  h->gi.storage_numel = h->go.storage_numel = 200; h->gi.offset = v / 1000; h->go.offset = v % 1000)
#define SHARED(gi_off, go_off) ((gi_off) * 1000 + (go_off))

#define BAD_DTYPES V(-1, 3, 4, 11, 27, INT_MAX, INT_MIN)
#define BAD_DIMS V(-1, INT64_MIN, -((int64_t)1 << 40))
#define BAD_OFFSETS V(-1, INT64_MIN, -((int64_t)1 << 40))
#define ALIAS_MSG(strides) "gradInput view (shape [2, 3, 6, 6], strides " strides ") reaches some element twice"

static const row rows[] = {
    /* pointers, dtypes, ranks */
    { "NULL gradInput storage", m_gi_storage_null, POOLGRAD_ERR_NULL_POINTER, "gradInput storage is NULL for a view of 216 elements" },
    { "NULL gradOutput storage", m_go_storage_null, POOLGRAD_ERR_NULL_POINTER, "gradOutput storage is NULL for a view of 54 elements" },
    { "bad dtype on both", m_both_dtype, POOLGRAD_ERR_DTYPE, "gradOutput dtype = {} is not POOLGRAD_F32, POOLGRAD_F16 or POOLGRAD_BF16", BAD_DTYPES },
    { "bad gradOutput dtype", m_go_dtype, POOLGRAD_ERR_DTYPE,
      "gradOutput dtype = {} is not POOLGRAD_F32, POOLGRAD_F16 or POOLGRAD_BF16", BAD_DTYPES },
    { "mixed dtypes", m_go_dtype, POOLGRAD_ERR_DTYPE, "gradOutput dtype f16 differs from gradInput dtype f32", V(POOLGRAD_F16) },
    { "rank outside 1..5", m_both_rank, POOLGRAD_ERR_RANK, "gradOutput rank = {} is outside 1..5", V(0, -1, 6, 7, INT32_MAX, INT32_MIN) },
    { "rank 1 or 2 for 2D", m_both_rank, POOLGRAD_ERR_RANK, "gradInput rank {} is not 3 (unbatched) or 4 (batched) for 2D pooling", V(1, 2) },
    { "ranks differ", m_go_rank, POOLGRAD_ERR_RANK, "gradOutput rank 3 differs from gradInput rank 4", V(3) },
    { "rank 5 for 2D", m_both_rank, POOLGRAD_ERR_RANK, "gradInput rank 5 is not 3 (unbatched) or 4 (batched) for 2D pooling", V(5) },
    { "rank 3 for 3D", m_3d_rank3, POOLGRAD_ERR_RANK, "gradInput rank 3 is not 4 (unbatched) or 5 (batched) for 3D pooling" },
    /* parameter values (the same verdict from poolgrad_output_shape) */
    { "kernel[0]", m_kernel0, POOLGRAD_ERR_PARAM, "kernel[0] = {} is not positive", V(0, -1, INT64_MIN), SHAPE(POOLGRAD_ERR_PARAM) },
    { "kernel[1]", m_kernel1, POOLGRAD_ERR_PARAM, "kernel[1] = {} is not positive", V(0, -1, INT64_MIN), SHAPE(POOLGRAD_ERR_PARAM) },
    { "stride[0]", m_stride0, POOLGRAD_ERR_PARAM, "stride[0] = {} is not positive", V(0, -1, INT64_MIN), SHAPE(POOLGRAD_ERR_PARAM) },
    { "stride[1]", m_stride1, POOLGRAD_ERR_PARAM, "stride[1] = {} is not positive", V(0, -1, INT64_MIN), SHAPE(POOLGRAD_ERR_PARAM) },
    { "padding[0] < 0", m_padding0, POOLGRAD_ERR_PARAM, "padding[0] = {} is negative", V(-1, INT64_MIN), SHAPE(POOLGRAD_ERR_PARAM) },
    { "padding[1] < 0", m_padding1, POOLGRAD_ERR_PARAM, "padding[1] = {} is negative", V(-1, INT64_MIN), SHAPE(POOLGRAD_ERR_PARAM) },
    { "2 * padding[0] > kernel", m_padding0, POOLGRAD_ERR_PARAM,
      "padding[0] = {} exceeds kernel[0] / 2 = 1", V(2, INT64_MAX),
      SHAPE(POOLGRAD_ERR_PARAM) },
    { "2 * padding[1] > kernel", m_padding1, POOLGRAD_ERR_PARAM,
      "padding[1] = {} exceeds kernel[1] / 2 = 1", V(2, INT64_MAX),
      SHAPE(POOLGRAD_ERR_PARAM) },
    { "spatial_dims", m_spatial, POOLGRAD_ERR_PARAM, "spatial_dims = {} is not 2 or 3", V(0, 1, 4, -1, INT32_MAX, INT32_MIN) },
    /* INT64_MAX kernel or stride, huge padding (v = ceil mode): every window computation would overflow */
    { "kernel INT64_MAX", m_kernel_max, POOLGRAD_ERR_OVERFLOW,
      "spatial axis 1: input 6 + 2 * padding 0 + kernel 9223372036854775807 + stride 2 overflows int64",
      V(0, 1), SHAPE(POOLGRAD_ERR_OVERFLOW) },
    { "stride INT64_MAX", m_stride_max, POOLGRAD_ERR_OVERFLOW,
      "spatial axis 0: input 6 + 2 * padding 0 + kernel 2 + stride 9223372036854775807 overflows int64", V(0, 1) },
    { "k = s = INT64_MAX (global pooling trick)", m_global_max, POOLGRAD_ERR_OVERFLOW,
      "spatial axis 0: input 6 + 2 * padding 0 + kernel 9223372036854775807 + stride 9223372036854775807 overflows int64",
      V(0, 1) },
    { "2p <= k but in + 2p overflows", m_pad_huge, POOLGRAD_ERR_OVERFLOW,
      "spatial axis 1: input 6 + 2 * padding 4611686018427387903 + kernel 9223372036854775806 + stride 2 overflows int64",
      V(0, 1) },
    { "k = s = 2^40 stays valid", m_k_s_2_40, POOLGRAD_OK },
    /* negative and mismatched shapes */
    { "negative gradInput shape[0]", m_gi_dim0, POOLGRAD_ERR_SHAPE, "gradInput shape[0] = {} is negative", BAD_DIMS, SHAPE(POOLGRAD_ERR_SHAPE) },
    { "negative gradInput shape[1]", m_gi_dim1, POOLGRAD_ERR_SHAPE, "gradInput shape[1] = {} is negative", BAD_DIMS, SHAPE(POOLGRAD_ERR_SHAPE) },
    { "negative gradInput shape[2]", m_gi_dim2, POOLGRAD_ERR_SHAPE, "gradInput shape[2] = {} is negative", BAD_DIMS, SHAPE(POOLGRAD_ERR_SHAPE) },
    { "negative gradInput shape[3]", m_gi_dim3, POOLGRAD_ERR_SHAPE, "gradInput shape[3] = {} is negative", BAD_DIMS, SHAPE(POOLGRAD_ERR_SHAPE) },
    { "negative gradOutput shape[0]", m_go_dim0, POOLGRAD_ERR_SHAPE, "gradOutput shape[0] = {} is negative", BAD_DIMS },
    { "negative gradOutput shape[1]", m_go_dim1, POOLGRAD_ERR_SHAPE, "gradOutput shape[1] = {} is negative", BAD_DIMS },
    { "negative gradOutput shape[2]", m_go_dim2, POOLGRAD_ERR_SHAPE, "gradOutput shape[2] = {} is negative", BAD_DIMS },
    { "negative gradOutput shape[3]", m_go_dim3, POOLGRAD_ERR_SHAPE, "gradOutput shape[3] = {} is negative", BAD_DIMS },
    { "gradOutput W not the inferred 3", m_go_dim3, POOLGRAD_ERR_SHAPE,
      "gradOutput shape [2, 3, 3, 4] differs from the expected [2, 3, 3, 3]", V(4) },
    { "gradOutput N not the inferred 2", m_go_dim0, POOLGRAD_ERR_SHAPE,
      "gradOutput shape [1, 3, 3, 3] differs from the expected [2, 3, 3, 3]", V(1) },
    { "a negative inferred size never matches", m_negative_inferred, POOLGRAD_ERR_SHAPE,
      "gradOutput shape [2, 3, 3, 0] differs from the expected [2, 3, 3, -2]" },
    /* element counts that overflow int64, byte sizes that overflow size_t */
    { "2^64 elements", m_count_overflow, POOLGRAD_ERR_OVERFLOW, "gradInput element count overflows int64", V(0) },
    { "INT64_MAX x 2 elements", m_count_overflow, POOLGRAD_ERR_OVERFLOW, "gradInput element count overflows int64", V(1) },
    { "2^62 f32 elements = 2^64 bytes", m_bytes_overflow, POOLGRAD_ERR_OVERFLOW,
      "gradInput has 4611686018427387904 elements, more than the 2^56 a tensor may have" },
    { "gradInput storage claim of INT64_MAX elements", m_gi_numel, POOLGRAD_ERR_OVERFLOW,
      "gradInput storage of 9223372036854775807 elements exceeds SIZE_MAX / 2 bytes", V(INT64_MAX) },
    { "gradOutput storage claim of INT64_MAX / 2 elements", m_go_numel, POOLGRAD_ERR_OVERFLOW,
      "gradOutput storage of 4611686018427387903 elements exceeds SIZE_MAX / 2 bytes", V(INT64_MAX / 2) },
    /* views outside their storage */
    { "negative gradInput offset", m_gi_offset, POOLGRAD_ERR_VIEW, "gradInput offset = {} is negative", BAD_OFFSETS },
    { "negative gradOutput offset", m_go_offset, POOLGRAD_ERR_VIEW, "gradOutput offset = {} is negative", BAD_OFFSETS },
    { "gradInput one past its storage", m_gi_numel_minus1, POOLGRAD_ERR_VIEW, "gradInput view reaches element 215 of a storage of 215" },
    { "gradOutput one past its storage", m_go_numel_minus1, POOLGRAD_ERR_VIEW, "gradOutput view reaches element 53 of a storage of 53" },
    { "gradInput offset 1", m_gi_offset, POOLGRAD_ERR_VIEW, "gradInput view reaches element 216 of a storage of 216", V(1) },
    { "gradInput storage of 0", m_gi_numel, POOLGRAD_ERR_VIEW, "gradInput view reaches element 215 of a storage of 0", V(0) },
    { "gradInput storage_numel < 0", m_gi_numel, POOLGRAD_ERR_VIEW, "gradInput storage_numel = -1 is negative", V(-1) },
    { "gradOutput storage_numel INT64_MIN", m_go_numel, POOLGRAD_ERR_VIEW, "gradOutput storage_numel = {} is negative", V(INT64_MIN) },
    { "gradInput negative stride below the start", m_gi_stride3, POOLGRAD_ERR_VIEW,
      "gradInput view reaches element -5, before the start of its storage", V(-1) },
    { "gradOutput negative stride below the start", m_go_stride1, POOLGRAD_ERR_VIEW,
      "gradOutput view reaches element -18, before the start of its storage", V(-9) },
    { "gradInput huge stride", m_gi_stride0, POOLGRAD_ERR_VIEW,
      "gradInput view reaches element 1099511627883 of a storage of 216", V((int64_t)1 << 40) },
    { "gradInput stride INT64_MAX", m_gi_stride0, POOLGRAD_ERR_OVERFLOW,
      "gradInput view: offset 0 plus the spans of dims 0..1 overflows int64", V(INT64_MAX) },
    { "gradOutput stride INT64_MIN", m_go_stride2, POOLGRAD_ERR_OVERFLOW,
      "gradOutput view: the span of dim 2 (size 3, stride -9223372036854775808) overflows int64", V(INT64_MIN) },
    { "gradInput offset INT64_MAX", m_gi_offset, POOLGRAD_ERR_OVERFLOW,
      "gradInput view: offset 9223372036854775807 plus the spans of dims 0..0 overflows int64", V(INT64_MAX) },
    { "gradInput reach sums overflow", m_gi_strides01_half_max, POOLGRAD_ERR_OVERFLOW,
      "gradInput view: offset 0 plus the spans of dims 0..1 overflows int64" },
    /* gradInput reaching an element twice */
    { "gradInput zero stride on N", m_gi_stride_d0, POOLGRAD_ERR_ALIAS, ALIAS_MSG("[0, 36, 6, 1]"), V(0) },
    { "gradInput zero stride on C", m_gi_stride_d0, POOLGRAD_ERR_ALIAS, ALIAS_MSG("[108, 0, 6, 1]"), V(1) },
    { "gradInput zero stride on H", m_gi_stride_d0, POOLGRAD_ERR_ALIAS, ALIAS_MSG("[108, 36, 0, 1]"), V(2) },
    { "gradInput zero stride on W", m_gi_stride_d0, POOLGRAD_ERR_ALIAS, ALIAS_MSG("[108, 36, 6, 0]"), V(3) },
    { "gradInput rows overlap", m_gi_rows_overlap, POOLGRAD_ERR_ALIAS, ALIAS_MSG("[108, 36, 3, 1]") },
    { "gradInput N and C on one stride", m_gi_n_on_c, POOLGRAD_ERR_ALIAS, ALIAS_MSG("[36, 36, 6, 1]") },
    { "gradInput negative stride colliding", m_gi_neg_collide, POOLGRAD_ERR_ALIAS, ALIAS_MSG("[108, 36, 6, -6]") },
    { "gradInput stride INT64_MIN", m_gi_stride_min, POOLGRAD_ERR_OVERFLOW,
      "gradInput view: the span of dim 1 (size 3, stride -9223372036854775808) overflows int64" },
    { "gradOutput zero strides (broadcast)", m_go_zero_strides, POOLGRAD_OK },
    { "size-1 dim with stride 0", m_size1_stride0, POOLGRAD_OK },
    /* gradInput overlapping gradOutput */
    { "gradOutput on gradInput's storage", m_go_same_storage, POOLGRAD_ERR_ALIAS, "gradInput's storage range overlaps gradOutput's" },
    { "gradOutput ending on gradInput's last element", m_go_at_gi_end, POOLGRAD_ERR_ALIAS, "gradInput's storage range overlaps gradOutput's" },
    { "gradOutput at 107 in one storage", m_shared, POOLGRAD_ERR_ALIAS, "gradInput's storage range overlaps gradOutput's", V(SHARED(0, 107)) },
    { "gradOutput at 108 in one storage", m_shared, POOLGRAD_OK, NULL, V(SHARED(0, 108)) },
    { "gradInput at 26 after gradOutput", m_shared, POOLGRAD_ERR_ALIAS, "gradInput's storage range overlaps gradOutput's", V(SHARED(26, 0)) },
    { "gradInput at 27 after gradOutput", m_shared, POOLGRAD_OK, NULL, V(SHARED(27, 0)) },
};

Test(native_hostile, plan_table) { walk(rows, sizeof rows / sizeof rows[0]); }

/* ---------------------------------------------------------------- other entry points */

Test(native_hostile, null_pointers)
{
    pgt_base_problem h;
    pgt_base_init(&h);
    poolgrad_plan *plan = (poolgrad_plan *)(uintptr_t)1;
    EXPECT_CALL(poolgrad_plan_create(NULL, &h.go, &h.gi, &plan), POOLGRAD_ERR_NULL_POINTER, "params is NULL");
    cr_assert_null(plan);
    EXPECT_CALL(poolgrad_plan_create(&h.pa, NULL, &h.gi, &plan), POOLGRAD_ERR_NULL_POINTER, "grad_output is NULL");
    EXPECT_CALL(poolgrad_plan_create(&h.pa, &h.go, NULL, &plan), POOLGRAD_ERR_NULL_POINTER, "grad_input is NULL");
    EXPECT_CALL(poolgrad_plan_create(&h.pa, &h.go, &h.gi, NULL), POOLGRAD_ERR_NULL_POINTER, "plan is NULL");
    EXPECT_CALL(poolgrad_avgpool_backward(NULL, &h.go, &h.gi, 1), POOLGRAD_ERR_NULL_POINTER, "params is NULL");
    EXPECT_CALL(poolgrad_execute(NULL, NULL, 0, 1), POOLGRAD_ERR_NULL_POINTER, "plan is NULL");
    int64_t out[5];
    EXPECT_CALL(poolgrad_output_shape(NULL, 4, h.gi.shape, out), POOLGRAD_ERR_NULL_POINTER, "params is NULL");
    EXPECT_CALL(poolgrad_output_shape(&h.pa, 4, NULL, out), POOLGRAD_ERR_NULL_POINTER, "input_shape is NULL");
    EXPECT_CALL(poolgrad_output_shape(&h.pa, 4, h.gi.shape, NULL), POOLGRAD_ERR_NULL_POINTER, "out_shape is NULL");
    poolgrad_compare_result r;
    EXPECT_CALL(poolgrad_compare(NULL, &h.gi, &r), POOLGRAD_ERR_NULL_POINTER, "actual is NULL");
    EXPECT_CALL(poolgrad_tensor_init_contiguous(NULL, POOLGRAD_F32, 4, h.gi.shape, h.gi_data), POOLGRAD_ERR_NULL_POINTER,
                "the tensor is NULL");
    poolgrad_plan_destroy(NULL);
}

Test(native_hostile, dtype_sizes_and_output_shape)
{
    const int bad[] = { -1, 3, 4, 11, 27, INT_MAX, INT_MIN };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        cr_expect_eq(poolgrad_dtype_size((poolgrad_dtype)bad[i]), 0, "dtype %d", bad[i]);
    pgt_base_problem h;
    pgt_base_init(&h);
    h.pa = pgt_params(3, 2, 2, 0, false, true, 0);
    int64_t out[5];
    EXPECT_CALL(poolgrad_output_shape(&h.pa, 6, h.gi.shape, out), POOLGRAD_ERR_RANK,
                "rank = 6 is not 4 (unbatched) or 5 (batched) for 3D pooling");
    EXPECT_CALL(poolgrad_output_shape(&h.pa, 2, h.gi.shape, out), POOLGRAD_ERR_RANK,
                "rank = 2 is not 4 (unbatched) or 5 (batched) for 3D pooling");
    /* a kernel wider than input plus padding: a negative size, which no gradOutput can match (plan_table) */
    pgt_base_init(&h);
    h.pa.kernel[1] = 9;
    h.pa.stride[1] = 1;
    cr_assert_eq(poolgrad_output_shape(&h.pa, 4, h.gi.shape, out), POOLGRAD_OK);
    cr_assert_lt(out[3], 0);
}

Test(native_hostile, tensor_descriptor_helpers)
{
    poolgrad_tensor t;
    const int64_t big = (int64_t)1 << 32, ov[4] = { big, big, 2, 2 }, neg[4] = { 1, -1, 2, 2 };
    EXPECT_CALL(poolgrad_tensor_init_contiguous(&t, POOLGRAD_F32, 4, ov, NULL), POOLGRAD_ERR_OVERFLOW,
                "the element count of the shape overflows int64 at dim 0");
    EXPECT_CALL(poolgrad_tensor_init_channels_last(&t, POOLGRAD_BF16, 4, 2, ov, NULL), POOLGRAD_ERR_OVERFLOW,
                "the element count of the shape overflows int64 at dim 0");
    EXPECT_CALL(poolgrad_tensor_init_contiguous(&t, POOLGRAD_F32, 4, neg, NULL), POOLGRAD_ERR_SHAPE,
                "shape[1] = -1 is negative");
    EXPECT_CALL(poolgrad_tensor_init_contiguous(&t, POOLGRAD_F32, 6, neg, NULL), POOLGRAD_ERR_RANK,
                "rank = 6 is outside 1..5");
    EXPECT_CALL(poolgrad_tensor_init_contiguous(&t, POOLGRAD_F32, 0, neg, NULL), POOLGRAD_ERR_RANK,
                "rank = 0 is outside 1..5");
    EXPECT_CALL(poolgrad_tensor_init_contiguous(&t, (poolgrad_dtype)9, 4, neg, NULL), POOLGRAD_ERR_DTYPE,
                "dtype = 9 is not POOLGRAD_F32, POOLGRAD_F16 or POOLGRAD_BF16");
    EXPECT_CALL(poolgrad_tensor_init_channels_last(&t, POOLGRAD_F32, 4, 4, neg, NULL), POOLGRAD_ERR_RANK,
                "spatial_dims = 4 is not 2 or 3");
    /* poolgrad_compare validates views the same way as planning */
    pgt_base_problem h;
    pgt_base_init(&h);
    poolgrad_tensor a = h.gi, b = h.gi;
    b.offset = -3;
    poolgrad_compare_result r;
    EXPECT_CALL(poolgrad_compare(&a, &b, &r), POOLGRAD_ERR_VIEW, "expected offset = -3 is negative");
    b = h.gi;
    b.storage_numel = 5;
    EXPECT_CALL(poolgrad_compare(&a, &b, &r), POOLGRAD_ERR_VIEW, "expected view reaches element 215 of a storage of 5");
}

/* The largest divisor (product of window spans) must fit int64 unless overridden. */
Test(native_hostile, divisor_product_overflow)
{
    const int64_t k = (int64_t)1 << 22, p = (int64_t)1 << 21;
    poolgrad_params pa = pgt_params(3, k, 1, p, false, true, 0);
    float gi_data[1], go_data[8];
    const int64_t gi_shape[5] = { 1, 1, 1, 1, 1 }, go_shape[5] = { 1, 1, 2, 2, 2 };
    int64_t out[5];
    cr_assert_eq(poolgrad_output_shape(&pa, 5, gi_shape, out), POOLGRAD_OK);
    for (int d = 0; d < 5; d++)
        cr_assert_eq(out[d], go_shape[d]);
    poolgrad_tensor gi, go;
    poolgrad_tensor_init_contiguous(&gi, POOLGRAD_F32, 5, gi_shape, gi_data);
    poolgrad_tensor_init_contiguous(&go, POOLGRAD_F32, 5, go_shape, go_data);
    poolgrad_plan *plan;
    EXPECT_CALL(poolgrad_plan_create(&pa, &go, &gi, &plan), POOLGRAD_ERR_OVERFLOW,
                "the largest window's divisor (product of per-axis extents) overflows int64; set divisor_override"); /* 2^66 */
    pa.count_include_pad = false; /* still refused: the bound is on the padded span */
    EXPECT_CALL(poolgrad_plan_create(&pa, &go, &gi, &plan), POOLGRAD_ERR_OVERFLOW,
                "the largest window's divisor (product of per-axis extents) overflows int64; set divisor_override");
    /* with an override the same huge windows are fine and exact: 8 windows cover the element */
    pa.divisor_override = -7;
    for (int i = 0; i < 8; i++)
        go_data[i] = (float)(i + 1);
    cr_assert_eq(poolgrad_avgpool_backward(&pa, &go, &gi, 1), POOLGRAD_OK);
    float acc = +0.0f;
    for (int i = 0; i < 8; i++)
        acc = acc + go_data[i] / -7.0f;
    cr_assert_eq(memcmp(&acc, &gi_data[0], 4), 0, "got %a want %a", (double)gi_data[0], (double)acc);
    /* one axis alone with a 2^61 span still fits (in + 2p + k + s = 2^62 + 2) */
    pa = pgt_params(2, (int64_t)1 << 61, 1, (int64_t)1 << 60, false, true, 0);
    const int64_t g2[4] = { 1, 1, 1, 1 };
    pa.kernel[1] = pa.stride[1] = 1;
    pa.padding[1] = 0;
    cr_assert_eq(poolgrad_output_shape(&pa, 4, g2, out), POOLGRAD_OK);
    cr_assert_eq(out[2], 2);
    cr_assert_eq(out[3], 1);
    int64_t go2_shape[4] = { 1, 1, out[2], out[3] };
    poolgrad_tensor_init_contiguous(&gi, POOLGRAD_F32, 4, g2, gi_data);
    poolgrad_tensor_init_contiguous(&go, POOLGRAD_F32, 4, go2_shape, go_data);
    cr_assert_eq(poolgrad_avgpool_backward(&pa, &go, &gi, 1), POOLGRAD_OK);
    /* 2 windows of padded span 2^61 each (pool = min(start + k, I + p) - start) */
    acc = +0.0f;
    acc = acc + go_data[0] / (float)((int64_t)1 << 61);
    acc = acc + go_data[1] / (float)((int64_t)1 << 61);
    cr_assert_eq(memcmp(&acc, &gi_data[0], 4), 0, "got %a want %a", (double)gi_data[0], (double)acc);
}

/* gradOutput right after gradInput in one storage (the plan_table row "gradOutput at 108"): computes */
Test(native_hostile, disjoint_in_one_storage_computes)
{
    pgt_base_problem h;
    pgt_base_init(&h);
    m_shared(&h, SHARED(0, 108));
    for (int i = 0; i < 27; i++)
        shared[108 + i] = (float)i;
    cr_assert_eq(poolgrad_avgpool_backward(&h.pa, &h.go, &h.gi, 2), POOLGRAD_OK);
    for (int i = 0; i < 108; i++) {
        int c = i / 36, y = i / 6 % 6, x = i % 6;
        float want = shared[108 + c * 9 + (y / 2) * 3 + x / 2] / 4.0f;
        cr_assert_eq(shared[i], want, "element %d", i);
    }
}

/* ---------------------------------------------------------------- execute */

Test(native_hostile, execute_misuse)
{
    pgt_base_problem h;
    pgt_base_init(&h);
    poolgrad_plan *plan;
    cr_assert_eq(poolgrad_plan_create(&h.pa, &h.go, &h.gi, &plan), POOLGRAD_OK);
    EXPECT_CALL(poolgrad_execute(plan, NULL, 0, -1), POOLGRAD_ERR_THREADS,
                "num_threads = -1 is negative (0 = the OpenMP default)");
    EXPECT_CALL(poolgrad_execute(plan, NULL, 0, INT_MIN), POOLGRAD_ERR_THREADS,
                "num_threads = -2147483648 is negative (0 = the OpenMP default)");
    EXPECT_CALL(poolgrad_avgpool_backward(&h.pa, &h.go, &h.gi, -5), POOLGRAD_ERR_THREADS,
                "num_threads = -5 is negative (0 = the OpenMP default)");
    size_t wsz = poolgrad_plan_workspace_size(plan);
    void *ws = malloc(wsz + 1);
    /* absurd thread counts are capped, not obeyed */
    cr_assert_eq(poolgrad_execute(plan, ws, wsz, INT_MAX), POOLGRAD_OK);
    cr_assert_eq(poolgrad_execute(plan, ws, wsz, 100000), POOLGRAD_OK);
    for (int i = 0; i < 2 * 3 * 6 * 6; i++) {
        int n = i / 108, c = i / 36 % 3, y = i / 6 % 6, x = i % 6;
        cr_assert_eq(h.gi_data[i], h.go_data[((n * 3 + c) * 3 + y / 2) * 3 + x / 2] / 4.0f);
    }
    /* the same plan executes again (plans are reusable) */
    cr_assert_eq(poolgrad_execute(plan, ws, wsz, 1), POOLGRAD_OK);
    if (wsz == 0) {
        cr_assert_eq(poolgrad_execute(plan, NULL, 0, 1), POOLGRAD_OK);
        cr_assert_eq(poolgrad_execute(plan, NULL, 12345, 1), POOLGRAD_OK); /* nothing needed */
        poolgrad_plan_destroy(plan);
        /* a gradOutput with gaps along W steers the dispatch to a pre-dividing kernel, if any */
        static float gapped[108];
        for (int j = 0; j < 54; j++)
            gapped[2 * j] = h.go_data[j], gapped[2 * j + 1] = -1e30f;
        h.go.storage = gapped;
        h.go.storage_numel = 108;
        for (int d = 0; d < 4; d++)
            h.go.strides[d] *= 2;
        cr_assert_eq(poolgrad_plan_create(&h.pa, &h.go, &h.gi, &plan), POOLGRAD_OK);
        wsz = poolgrad_plan_workspace_size(plan);
        free(ws);
        ws = malloc(wsz + 1);
    }
    if (wsz == 0) {
        char name[64];
        snprintf(name, sizeof name, "%s", poolgrad_plan_kernel_name(plan));
        free(ws);
        poolgrad_plan_destroy(plan);
        cr_skip("the selected kernel (%s) needs no workspace: the NULL/short workspace cases cannot arise", name);
    }
    char want[128];
    snprintf(want, sizeof want, "workspace is NULL but the plan needs %zu bytes", wsz);
    EXPECT_CALL(poolgrad_execute(plan, NULL, wsz, 1), POOLGRAD_ERR_WORKSPACE, want);
    snprintf(want, sizeof want, "workspace_size = %zu is smaller than the planned %zu bytes", wsz - 1, wsz);
    EXPECT_CALL(poolgrad_execute(plan, ws, wsz - 1, 1), POOLGRAD_ERR_WORKSPACE, want);
    snprintf(want, sizeof want, "workspace_size = 0 is smaller than the planned %zu bytes", wsz);
    EXPECT_CALL(poolgrad_execute(plan, ws, 0, 1), POOLGRAD_ERR_WORKSPACE, want);
    memset(h.gi_data, 0, sizeof h.gi_data);
    cr_assert_eq(poolgrad_execute(plan, ws, wsz, 2), POOLGRAD_OK);
    for (int i = 0; i < 2 * 3 * 6 * 6; i++) {
        int n = i / 108, c = i / 36 % 3, y = i / 6 % 6, x = i % 6;
        cr_assert_eq(h.gi_data[i], h.go_data[((n * 3 + c) * 3 + y / 2) * 3 + x / 2] / 4.0f);
    }
    free(ws);
    poolgrad_plan_destroy(plan);
}

Test(native_hostile, status_strings_total)
{
    for (int s = -3; s < 20; s++)
        cr_assert_not_null(poolgrad_status_string((poolgrad_status)s));
    cr_assert_str_eq(poolgrad_status_string((poolgrad_status)INT_MAX), "unknown status");
    cr_assert_str_eq(poolgrad_isa_name((poolgrad_isa)-1), "unknown");
}

/* Element counts above 2^56 are refused even when the views fit their (claimed) storage, e.g. a
 * broadcast gradOutput (zero strides, one element of storage): kernels size workspaces from counts. */
Test(native_hostile, element_count_cap)
{
    poolgrad_params pa = pgt_params(2, 1, 1, 0, false, true, 0);
    void *gi_fake = (void *)(uintptr_t)0x10000, *go_fake = (void *)((uintptr_t)1 << 62); /* never touched */
    for (int e = 28; e <= 29; e++) {
        const int64_t side = (int64_t)1 << e, shape[4] = { 1, 1, side, side };
        poolgrad_tensor gi, go;
        cr_assert_eq(poolgrad_tensor_init_contiguous(&gi, POOLGRAD_F32, 4, shape, gi_fake), POOLGRAD_OK);
        cr_assert_eq(poolgrad_tensor_init_contiguous(&go, POOLGRAD_F32, 4, shape, go_fake), POOLGRAD_OK);
        memset(go.strides, 0, sizeof go.strides);
        go.storage_numel = 1;
        poolgrad_plan *plan;
        poolgrad_status st = poolgrad_plan_create(&pa, &go, &gi, &plan);
        if (e == 28) { /* 2^56 elements: accepted, and the workspace (if any) is sized without wrapping */
            cr_assert_eq(st, POOLGRAD_OK);
            size_t wsz = poolgrad_plan_workspace_size(plan);
            cr_assert(wsz == 0 || wsz >= ((size_t)1 << 56), "workspace %zu for 2^56 elements", wsz);
            poolgrad_plan_destroy(plan);
        } else {
            cr_assert_eq(st, POOLGRAD_ERR_OVERFLOW);
            cr_expect_str_eq(poolgrad_last_error_message(),
                             "gradInput has 288230376151711744 elements, more than the 2^56 a tensor may have");
        }
    }
}

/* A non-empty gradInput whose gradOutput is empty (no window fits: I=1, k=4, p=1): gradInput is
 * zero-filled and gradOutput's storage (NULL here) is never used, not even for address arithmetic
 * (the fuzzer found `NULL + 0` UB in this path; UBSan in the sanitized build checks it). */
Test(native_hostile, empty_grad_output_null_storage)
{
    poolgrad_params pa = pgt_params(2, 4, 1, 1, false, true, 0);
    const int64_t gi_shape[4] = { 2, 3, 1, 1 };
    int64_t go_shape[4];
    cr_assert_eq(poolgrad_output_shape(&pa, 4, gi_shape, go_shape), POOLGRAD_OK);
    cr_assert_eq(go_shape[2], 0);
    cr_assert_eq(go_shape[3], 0);
    float gi_data[6];
    memset(gi_data, 0xff, sizeof gi_data);
    poolgrad_tensor gi, go;
    cr_assert_eq(poolgrad_tensor_init_contiguous(&gi, POOLGRAD_F32, 4, gi_shape, gi_data), POOLGRAD_OK);
    cr_assert_eq(poolgrad_tensor_init_contiguous(&go, POOLGRAD_F32, 4, go_shape, NULL), POOLGRAD_OK);
    go.offset = 5; /* offsets and storage of an empty view are not checked: nothing is read */
    go.storage_numel = 0;
    cr_assert_eq(poolgrad_avgpool_backward(&pa, &go, &gi, 2), POOLGRAD_OK);
    for (int i = 0; i < 6; i++)
        cr_assert_eq(memcmp(&gi_data[i], &(float){ +0.0f }, 4), 0);
}

/* a problem whose only non-trivial axis is W */
static poolgrad_problem w_axis_problem(int64_t in, int64_t k, int64_t s, int64_t p, int64_t out, bool cip)
{
    poolgrad_problem pr;
    memset(&pr, 0, sizeof pr);
    for (int a = 0; a < 2; a++)
        pr.in[a] = pr.k[a] = pr.s[a] = pr.out[a] = 1;
    pr.in[2] = in;
    pr.k[2] = k;
    pr.s[2] = s;
    pr.p[2] = p;
    pr.out[2] = out;
    pr.count_include_pad = cip;
    return pr;
}

/* Whether every divisor is a power of two is decided at planning in bounded work: against every window
 * enumerated on small geometries (floor and ceil output sizes, both count_include_pad), and quickly for
 * an axis of 2^40 windows (enumerating them, as planning once did, would take hours: found by the fuzzer). */
Test(native_hostile, divisors_pow2_bounded_and_exact)
{
    int checked = 0, pow2 = 0;
    for (int64_t in = 1; in <= 20; in++)
        for (int64_t k = 1; k <= 9; k++)
            for (int64_t s = 1; s <= 5; s++)
                for (int64_t p = 0; 2 * p <= k; p++)
                    for (int ceil_mode = 0; ceil_mode < 2; ceil_mode++)
                        for (int cip = 0; cip < 2; cip++) {
                            if (in + 2 * p < k)
                                continue;
                            int64_t out = (in + 2 * p - k + (ceil_mode ? s - 1 : 0)) / s + 1;
                            if (ceil_mode && (out - 1) * s >= in + p)
                                out--;
                            const poolgrad_problem pr = w_axis_problem(in, k, s, p, out, cip);
                            bool want = true;
                            for (int64_t o = 0; o < out; o++) {
                                int64_t pool, cnt;
                                poolgrad_window_extent(o, in, k, s, p, &pool, &cnt);
                                const int64_t f = cip ? pool : cnt;
                                want &= f >= 1 && poolgrad_is_pow2((uint64_t)f);
                            }
                            cr_expect_eq(poolgrad_divisors_pow2(&pr), want,
                                         "in %lld k %lld s %lld p %lld ceil %d cip %d: %d, every window says %d",
                                         (long long)in, (long long)k, (long long)s, (long long)p, ceil_mode, cip,
                                         !want, want);
                            checked++;
                            pow2 += want;
                        }
    cr_expect_gt(pow2, 100, "only %d of %d geometries have power-of-two divisors", pow2, checked);
    /* 2^40 + 1 windows of 2^40 along W, all inside the input: every divisor 2^40, planned through the API
     * (an empty batch needs no storage) */
    poolgrad_params pa = pgt_params(2, 1, 1, 0, false, true, 0);
    pa.kernel[1] = (int64_t)1 << 40;
    const int64_t gi_shape[4] = { 0, 1, 1, (int64_t)1 << 41 };
    int64_t go_shape[4];
    cr_assert_eq(poolgrad_output_shape(&pa, 4, gi_shape, go_shape), POOLGRAD_OK);
    cr_assert_eq(go_shape[3], ((int64_t)1 << 40) + 1);
    poolgrad_tensor gi, go;
    cr_assert_eq(poolgrad_tensor_init_contiguous(&gi, POOLGRAD_F32, 4, gi_shape, NULL), POOLGRAD_OK);
    cr_assert_eq(poolgrad_tensor_init_contiguous(&go, POOLGRAD_F32, 4, go_shape, NULL), POOLGRAD_OK);
    poolgrad_plan *plan = NULL;
    cr_assert_eq(poolgrad_plan_create(&pa, &go, &gi, &plan), POOLGRAD_OK, "%s", poolgrad_last_error_message());
    poolgrad_plan_destroy(plan);
    poolgrad_problem pr = w_axis_problem((int64_t)1 << 41, (int64_t)1 << 40, 1, 0, ((int64_t)1 << 40) + 1, true);
    cr_expect(poolgrad_divisors_pow2(&pr));
    /* the same run of windows, none a power of two */
    pr = w_axis_problem((int64_t)1 << 41, ((int64_t)1 << 40) - 1, 1, 0, ((int64_t)1 << 40) + 2, true);
    cr_expect(!poolgrad_divisors_pow2(&pr));
}
