/*
 * Error messages: every validation failure class of both APIs, each a row (mutation of a valid problem,
 * expected status, the exact message poolgrad_last_error_message() / aclGetRecentErrMsg() must give).
 */
#include "base_problem.h"

#include "acl/acl.h"
#include "aclnnop/aclnn_avgpool2d_backward.h"
#include "aclnnop/aclnn_avgpool3d_backward.h"

typedef struct native_row {
    const char *what;
    void (*mutate)(pgt_base_problem *h);
    poolgrad_status status;
    const char *message;
} native_row;

static void m_kernel0(pgt_base_problem *h) { h->pa.kernel[1] = 0; }
static void m_stride_neg(pgt_base_problem *h) { h->pa.stride[0] = -2; }
static void m_pad_neg(pgt_base_problem *h) { h->pa.padding[1] = -1; }
static void m_pad_big(pgt_base_problem *h) { h->pa.kernel[1] = 3; h->pa.padding[1] = 2; }
static void m_spatial(pgt_base_problem *h) { h->pa.spatial_dims = 4; }
static void m_dtype(pgt_base_problem *h) { h->go.dtype = (poolgrad_dtype)7; }
static void m_dtype_mix(pgt_base_problem *h) { h->go.dtype = POOLGRAD_BF16; }
static void m_rank(pgt_base_problem *h) { h->gi.rank = 9; }
static void m_rank_2d(pgt_base_problem *h) { h->gi.rank = 5; h->go.rank = 5; h->gi.shape[4] = 1; h->go.shape[4] = 1; }
static void m_rank_mix(pgt_base_problem *h) { h->go.rank = 3; }
static void m_neg_dim(pgt_base_problem *h) { h->gi.shape[2] = -6; }
static void m_go_shape(pgt_base_problem *h) { h->go.shape[3] = 4; h->go.storage_numel = 2 * 3 * 3 * 4; }
static void m_view(pgt_base_problem *h) { h->gi.storage_numel = 200; }
static void m_offset(pgt_base_problem *h) { h->gi.offset = -1; }
static void m_reach(pgt_base_problem *h) { h->gi.strides[3] = INT64_MAX; }
static void m_alias(pgt_base_problem *h) { h->gi.strides[3] = 0; }
static void m_overlap(pgt_base_problem *h) { h->go.storage = h->gi_data; }
static void m_null_storage(pgt_base_problem *h) { h->gi.storage = NULL; }
static void m_divisor(pgt_base_problem *h)
{
    h->pa.kernel[0] = h->pa.kernel[1] = INT64_MAX / 2;
    h->pa.stride[0] = h->pa.stride[1] = INT64_MAX / 2;
    h->gi.shape[2] = h->gi.shape[3] = INT64_MAX / 4;
}

static const native_row native_rows[] = {
    { "kernel 0", m_kernel0, POOLGRAD_ERR_PARAM, "kernel[1] = 0 is not positive" },
    { "negative stride", m_stride_neg, POOLGRAD_ERR_PARAM, "stride[0] = -2 is not positive" },
    { "negative padding", m_pad_neg, POOLGRAD_ERR_PARAM, "padding[1] = -1 is negative" },
    { "padding > kernel/2", m_pad_big, POOLGRAD_ERR_PARAM, "padding[1] = 2 exceeds kernel[1] / 2 = 1" },
    { "spatial_dims", m_spatial, POOLGRAD_ERR_PARAM, "spatial_dims = 4 is not 2 or 3" },
    { "unknown dtype", m_dtype, POOLGRAD_ERR_DTYPE, "gradOutput dtype = 7 is not POOLGRAD_F32, POOLGRAD_F16 or POOLGRAD_BF16" },
    { "mixed dtypes", m_dtype_mix, POOLGRAD_ERR_DTYPE, "gradOutput dtype bf16 differs from gradInput dtype f32" },
    { "rank out of range", m_rank, POOLGRAD_ERR_RANK, "gradInput rank = 9 is outside 1..5" },
    { "rank for 2D", m_rank_2d, POOLGRAD_ERR_RANK, "gradInput rank 5 is not 3 (unbatched) or 4 (batched) for 2D pooling" },
    { "ranks differ", m_rank_mix, POOLGRAD_ERR_RANK, "gradOutput rank 3 differs from gradInput rank 4" },
    { "negative dim", m_neg_dim, POOLGRAD_ERR_SHAPE, "gradInput shape[2] = -6 is negative" },
    { "gradOutput shape", m_go_shape, POOLGRAD_ERR_SHAPE, "gradOutput shape [2, 3, 3, 4] differs from the expected [2, 3, 3, 3]" },
    { "view beyond storage", m_view, POOLGRAD_ERR_VIEW, "gradInput view reaches element 215 of a storage of 200" },
    { "negative offset", m_offset, POOLGRAD_ERR_VIEW, "gradInput offset = -1 is negative" },
    { "reach overflow", m_reach, POOLGRAD_ERR_OVERFLOW,
      "gradInput view: the span of dim 3 (size 6, stride 9223372036854775807) overflows int64" },
    { "self overlap", m_alias, POOLGRAD_ERR_ALIAS, "gradInput view (shape [2, 3, 6, 6], strides [108, 36, 6, 0]) reaches some element twice" },
    { "overlaps gradOutput", m_overlap, POOLGRAD_ERR_ALIAS, "gradInput's storage range overlaps gradOutput's" },
    { "NULL storage", m_null_storage, POOLGRAD_ERR_NULL_POINTER, "gradInput storage is NULL for a view of 216 elements" },
    { "axis overflow", m_divisor, POOLGRAD_ERR_OVERFLOW,
      "spatial axis 0: input 2305843009213693951 + 2 * padding 0 + kernel 4611686018427387903 + stride 4611686018427387903 overflows int64" },
};

Test(error_messages, native_validation_table)
{
    for (size_t i = 0; i < sizeof native_rows / sizeof native_rows[0]; i++) {
        const native_row *r = &native_rows[i];
        pgt_base_problem h;
        pgt_base_init(&h);
        r->mutate(&h);
        poolgrad_plan *plan = NULL;
        poolgrad_status st = poolgrad_plan_create(&h.pa, &h.go, &h.gi, &plan);
        cr_expect_eq(st, r->status, "%s: status %s, expected %s", r->what, poolgrad_status_string(st),
                     poolgrad_status_string(r->status));
        cr_expect_str_eq(poolgrad_last_error_message(), r->message, "%s: message \"%s\", expected \"%s\"", r->what,
                         poolgrad_last_error_message(), r->message);
        poolgrad_plan_destroy(plan);
    }
}

Test(error_messages, execute_and_misc)
{
    pgt_base_problem h;
    pgt_base_init(&h);
    cr_assert_eq(poolgrad_execute(NULL, NULL, 0, 1), POOLGRAD_ERR_NULL_POINTER);
    cr_expect_str_eq(poolgrad_last_error_message(), "plan is NULL");
    poolgrad_plan *plan;
    cr_assert_eq(poolgrad_plan_create(&h.pa, &h.go, &h.gi, &plan), POOLGRAD_OK);
    cr_assert_eq(poolgrad_execute(plan, NULL, 0, -3), POOLGRAD_ERR_THREADS);
    cr_expect_str_eq(poolgrad_last_error_message(), "num_threads = -3 is negative (0 = the OpenMP default)");
    /* a successful call leaves the message alone */
    cr_assert_eq(poolgrad_execute(plan, NULL, 0, 1), POOLGRAD_OK);
    cr_expect_str_eq(poolgrad_last_error_message(), "num_threads = -3 is negative (0 = the OpenMP default)");
    poolgrad_plan_destroy(plan);
    int64_t out[4];
    cr_assert_eq(poolgrad_output_shape(&h.pa, 4, NULL, out), POOLGRAD_ERR_NULL_POINTER);
    cr_expect_str_eq(poolgrad_last_error_message(), "input_shape is NULL");
    poolgrad_tensor t;
    const int64_t shape[4] = { 1, 2, -3, 4 };
    cr_assert_eq(poolgrad_tensor_init_contiguous(&t, POOLGRAD_F32, 4, shape, NULL), POOLGRAD_ERR_SHAPE);
    cr_expect_str_eq(poolgrad_last_error_message(), "shape[2] = -3 is negative");
    cr_assert_eq(poolgrad_tensor_init_channels_last(&t, POOLGRAD_F32, 6, 2, shape, NULL), POOLGRAD_ERR_RANK);
    cr_expect_str_eq(poolgrad_last_error_message(), "rank = 6 is not 3 (unbatched) or 4 (batched) for 2D pooling");
    poolgrad_compare_result cr;
    poolgrad_tensor a = h.gi, e = h.go;
    cr_assert_eq(poolgrad_compare(&a, &e, &cr), POOLGRAD_ERR_SHAPE);
    cr_expect_str_eq(poolgrad_last_error_message(), "actual shape [2, 3, 6, 6] differs from expected shape [2, 3, 3, 3]");
}

/* The message belongs to the thread that failed. */
static void *fail_in_thread(void *arg)
{
    (void)arg;
    pgt_base_problem h;
    pgt_base_init(&h);
    h.pa.stride[1] = 0;
    poolgrad_plan *plan;
    poolgrad_plan_create(&h.pa, &h.go, &h.gi, &plan);
    return NULL;
}

#include <pthread.h>
Test(error_messages, thread_local)
{
    pgt_base_problem h;
    pgt_base_init(&h);
    h.pa.kernel[0] = -1;
    poolgrad_plan *plan;
    cr_assert_eq(poolgrad_plan_create(&h.pa, &h.go, &h.gi, &plan), POOLGRAD_ERR_PARAM);
    pthread_t th;
    pthread_create(&th, NULL, fail_in_thread, NULL);
    pthread_join(th, NULL);
    cr_expect_str_eq(poolgrad_last_error_message(), "kernel[0] = -1 is not positive");
}

/* ---------------------------------------------------------------- aclnn front */

typedef struct acl_case {
    int64_t go_dims[5], gi_dims[5];
    int rank;
    aclDataType go_dt, self_dt, gi_dt;
    aclFormat go_fmt, self_fmt, gi_fmt;
    int64_t k[3], s[3], p[3];
    uint64_t nk, ns, np;
    int8_t cube;
} acl_case;

static acl_case acl_base2d(void)
{
    acl_case c = { { 1, 2, 3, 3 }, { 1, 2, 6, 6 }, 4, ACL_FLOAT, ACL_FLOAT, ACL_FLOAT, ACL_FORMAT_NCHW, ACL_FORMAT_NCHW,
                   ACL_FORMAT_NCHW, { 2, 2 }, { 2, 2 }, { 0, 0 }, 2, 2, 2, 0 };
    return c;
}

static float acl_go[64], acl_gi[256];

static aclnnStatus acl_run2d(const acl_case *c)
{
    aclTensor *go = aclCreateTensor(c->go_dims, (uint64_t)c->rank, c->go_dt, NULL, 0, c->go_fmt, c->go_dims, (uint64_t)c->rank, acl_go);
    aclTensor *self = aclCreateTensor(c->gi_dims, (uint64_t)c->rank, c->self_dt, NULL, 0, c->self_fmt, c->gi_dims, (uint64_t)c->rank, NULL);
    aclTensor *gi = aclCreateTensor(c->gi_dims, (uint64_t)c->rank, c->gi_dt, NULL, 0, c->gi_fmt, c->gi_dims, (uint64_t)c->rank, acl_gi);
    aclIntArray *k = aclCreateIntArray(c->k, c->nk), *s = aclCreateIntArray(c->s, c->ns), *p = aclCreateIntArray(c->p, c->np);
    uint64_t wsz = 0;
    aclOpExecutor *ex = NULL;
    aclnnStatus st = aclnnAvgPool2dBackwardGetWorkspaceSize(go, self, k, s, p, false, true, 0, c->cube, gi, &wsz, &ex);
    if (st == ACLNN_SUCCESS)
        aclDestroyAclOpExecutor(ex);
    aclDestroyTensor(go);
    aclDestroyTensor(self);
    aclDestroyTensor(gi);
    aclDestroyIntArray(k);
    aclDestroyIntArray(s);
    aclDestroyIntArray(p);
    return st;
}

#define ACL_EXPECT(c, status, msg)                                                                              \
    do {                                                                                                         \
        aclnnStatus st_ = acl_run2d(c);                                                                          \
        cr_expect_eq(st_, (status), "status %d, expected %d (%s)", (int)st_, (int)(status), msg);               \
        cr_expect_str_eq(aclGetRecentErrMsg(), msg, "message \"%s\", expected \"%s\"", aclGetRecentErrMsg(), msg); \
    } while (0)

Test(error_messages, aclnn_2d_table)
{
    acl_case c = acl_base2d();
    cr_assert_eq(acl_run2d(&c), ACLNN_SUCCESS);
    c = acl_base2d(); c.self_dt = ACL_DOUBLE;
    ACL_EXPECT(&c, 161002, "self dtype 11 is not ACL_FLOAT, ACL_FLOAT16 or ACL_BF16");
    c = acl_base2d(); c.gi_dt = ACL_FLOAT16;
    ACL_EXPECT(&c, 161002, "gradOutput dtype 0 differs from gradInput dtype 1");
    c = acl_base2d(); c.gi_fmt = ACL_FORMAT_ND;
    ACL_EXPECT(&c, 161002, "gradInput format 2 is not ACL_FORMAT_NCHW or ACL_FORMAT_NCL");
    c = acl_base2d(); c.nk = 3;
    ACL_EXPECT(&c, 161002, "kernelSize has 3 values, not 1 or 2");
    c = acl_base2d(); c.cube = 4;
    ACL_EXPECT(&c, 161002, "cubeMathType = 4 is outside 0..3");
    c = acl_base2d(); c.k[1] = 3; c.p[1] = 2;
    ACL_EXPECT(&c, 161002, "padding[1] = 2 exceeds kernel[1] / 2 = 1");
    c = acl_base2d(); c.go_dims[3] = 4;
    ACL_EXPECT(&c, 161002, "gradOutput shape [1, 2, 3, 4] differs from the expected [1, 2, 3, 3]");
    c = acl_base2d(); c.go_fmt = c.self_fmt = c.gi_fmt = ACL_FORMAT_NCL;
    ACL_EXPECT(&c, 161002, "a 4-D gradOutput needs gradOutput and gradInput in ACL_FORMAT_NCHW");
}

Test(error_messages, aclnn_3d_and_execute)
{
    int64_t go_dims[5] = { 1, 1, 1, 1, 1 }, gi_dims[5] = { 1, 1, 2, 2, 2 }, k[1] = { 2 }, s[1] = { 2 }, p[1] = { 0 };
    aclTensor *go = aclCreateTensor(go_dims, 5, ACL_FLOAT, NULL, 0, ACL_FORMAT_NCDHW, go_dims, 5, acl_go);
    aclTensor *self = aclCreateTensor(gi_dims, 5, ACL_FLOAT, NULL, 0, ACL_FORMAT_NCDHW, gi_dims, 5, NULL);
    aclTensor *out = aclCreateTensor(gi_dims, 5, ACL_FLOAT, NULL, 0, ACL_FORMAT_NDHWC, gi_dims, 5, acl_gi);
    aclIntArray *ka = aclCreateIntArray(k, 1), *sa = aclCreateIntArray(s, 1), *pa = aclCreateIntArray(p, 1);
    uint64_t wsz = 0;
    aclOpExecutor *ex = NULL;
    cr_expect_eq(aclnnAvgPool3dBackwardGetWorkspaceSize(go, self, ka, sa, pa, false, true, 0, out, &wsz, &ex), 161002);
    cr_expect_str_eq(aclGetRecentErrMsg(), "gradOutput format 30 differs from output format 27");
    cr_expect_eq(aclnnAvgPool3dBackwardGetWorkspaceSize(go, self, ka, NULL, pa, false, true, 0, out, &wsz, &ex), 161001);
    cr_expect_str_eq(aclGetRecentErrMsg(), "stride is NULL");
    /* the native planner's findings in the 3D operator's words: its gradInput is called output */
    int64_t small[1] = { 4 };
    aclTensor *out_small = aclCreateTensor(gi_dims, 5, ACL_FLOAT, NULL, 0, ACL_FORMAT_NCDHW, small, 1, acl_gi);
    cr_expect_eq(aclnnAvgPool3dBackwardGetWorkspaceSize(go, self, ka, sa, pa, false, true, 0, out_small, &wsz, &ex), 161002);
    cr_expect_str_eq(aclGetRecentErrMsg(), "output view reaches element 7 of a storage of 4");
    aclDestroyTensor(out_small);
    cr_expect_eq(aclnnAvgPool3dBackward(NULL, 0, NULL, NULL), 161001);
    cr_expect_str_eq(aclGetRecentErrMsg(), "executor is NULL");
    cr_expect_null(aclCreateIntArray(NULL, 3));
    cr_expect_str_eq(aclGetRecentErrMsg(), "aclCreateIntArray: value is NULL with size 3");
    aclDestroyTensor(go);
    aclDestroyTensor(self);
    aclDestroyTensor(out);
    aclDestroyIntArray(ka);
    aclDestroyIntArray(sa);
    aclDestroyIntArray(pa);
}
