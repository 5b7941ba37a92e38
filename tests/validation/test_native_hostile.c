/*
 * Hostile arguments to the native API: each case asserts its exact poolgrad_status.
 * Planning validates everything before touching data, so most cases never need real storage.
 */
#include <limits.h>

#include "base_problem.h"

/* ---------------------------------------------------------------- pointers, dtypes, ranks */

Test(native_hostile, null_pointers)
{
    pgt_base_problem h;
    pgt_base_init(&h);
    poolgrad_plan *plan = (poolgrad_plan *)(uintptr_t)1;
    cr_assert_eq(poolgrad_plan_create(NULL, &h.go, &h.gi, &plan), POOLGRAD_ERR_NULL_POINTER);
    cr_assert_null(plan);
    cr_assert_eq(poolgrad_plan_create(&h.pa, NULL, &h.gi, &plan), POOLGRAD_ERR_NULL_POINTER);
    cr_assert_eq(poolgrad_plan_create(&h.pa, &h.go, NULL, &plan), POOLGRAD_ERR_NULL_POINTER);
    cr_assert_eq(poolgrad_plan_create(&h.pa, &h.go, &h.gi, NULL), POOLGRAD_ERR_NULL_POINTER);
    cr_assert_eq(poolgrad_avgpool_backward(NULL, &h.go, &h.gi, 1), POOLGRAD_ERR_NULL_POINTER);
    cr_assert_eq(poolgrad_execute(NULL, NULL, 0, 1), POOLGRAD_ERR_NULL_POINTER);
    int64_t out[5];
    cr_assert_eq(poolgrad_output_shape(NULL, 4, h.gi.shape, out), POOLGRAD_ERR_NULL_POINTER);
    cr_assert_eq(poolgrad_output_shape(&h.pa, 4, NULL, out), POOLGRAD_ERR_NULL_POINTER);
    cr_assert_eq(poolgrad_output_shape(&h.pa, 4, h.gi.shape, NULL), POOLGRAD_ERR_NULL_POINTER);
    poolgrad_compare_result r;
    cr_assert_eq(poolgrad_compare(NULL, &h.gi, &r), POOLGRAD_ERR_NULL_POINTER);
    cr_assert_eq(poolgrad_tensor_init_contiguous(NULL, POOLGRAD_F32, 4, h.gi.shape, h.gi_data), POOLGRAD_ERR_NULL_POINTER);
    poolgrad_plan_destroy(NULL);
}

Test(native_hostile, null_storage_of_nonempty_view)
{
    pgt_base_problem h;
    pgt_base_init(&h);
    h.gi.storage = NULL;
    PGT_EXPECT_PLAN(&h, POOLGRAD_ERR_NULL_POINTER);
    pgt_base_init(&h);
    h.go.storage = NULL;
    PGT_EXPECT_PLAN(&h, POOLGRAD_ERR_NULL_POINTER);
}

Test(native_hostile, bad_dtypes)
{
    const int bad[] = { -1, 3, 4, 11, 27, INT_MAX, INT_MIN };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        pgt_base_problem h;
        pgt_base_init(&h);
        h.gi.dtype = h.go.dtype = (poolgrad_dtype)bad[i];
        PGT_EXPECT_PLAN(&h, POOLGRAD_ERR_DTYPE);
        pgt_base_init(&h);
        h.go.dtype = (poolgrad_dtype)bad[i];
        PGT_EXPECT_PLAN(&h, POOLGRAD_ERR_DTYPE);
        cr_assert_eq(poolgrad_dtype_size((poolgrad_dtype)bad[i]), 0);
    }
    pgt_base_problem h;
    pgt_base_init(&h);
    h.go.dtype = POOLGRAD_F16; /* mixed */
    PGT_EXPECT_PLAN(&h, POOLGRAD_ERR_DTYPE);
}

Test(native_hostile, bad_ranks)
{
    const int32_t bad[] = { 0, -1, 1, 2, 6, 7, INT32_MAX, INT32_MIN };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        pgt_base_problem h;
        pgt_base_init(&h);
        h.gi.rank = h.go.rank = bad[i];
        PGT_EXPECT_PLAN(&h, POOLGRAD_ERR_RANK);
    }
    pgt_base_problem h;
    pgt_base_init(&h);
    h.go.rank = 3; /* ranks differ */
    PGT_EXPECT_PLAN(&h, POOLGRAD_ERR_RANK);
    pgt_base_init(&h);
    h.gi.rank = h.go.rank = 5; /* 2D takes rank 3 or 4 */
    PGT_EXPECT_PLAN(&h, POOLGRAD_ERR_RANK);
    pgt_base_init(&h);
    h.pa = pgt_params(3, 2, 2, 0, false, true, 0); /* 3D takes rank 4 or 5 */
    h.gi.rank = h.go.rank = 3;
    PGT_EXPECT_PLAN(&h, POOLGRAD_ERR_RANK);
    int64_t out[5];
    cr_assert_eq(poolgrad_output_shape(&h.pa, 6, h.gi.shape, out), POOLGRAD_ERR_RANK);
    cr_assert_eq(poolgrad_output_shape(&h.pa, 2, h.gi.shape, out), POOLGRAD_ERR_RANK);
}

/* ---------------------------------------------------------------- parameters and output sizes */

Test(native_hostile, bad_parameter_values)
{
    struct {
        int field; /* 0 kernel, 1 stride, 2 padding */
        int64_t v;
    } cases[] = {
        { 0, 0 }, { 0, -1 }, { 0, INT64_MIN }, { 1, 0 }, { 1, -1 }, { 1, INT64_MIN },
        { 2, -1 }, { 2, INT64_MIN }, { 2, 2 } /* 2*pad > kernel 2 */, { 2, INT64_MAX },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        for (int axis = 0; axis < 2; axis++) {
            pgt_base_problem h;
            pgt_base_init(&h);
            int64_t *f = cases[i].field == 0 ? h.pa.kernel : cases[i].field == 1 ? h.pa.stride : h.pa.padding;
            f[axis] = cases[i].v;
            PGT_EXPECT_PLAN(&h, POOLGRAD_ERR_PARAM);
            int64_t out[5];
            cr_assert_eq(poolgrad_output_shape(&h.pa, 4, h.gi.shape, out), POOLGRAD_ERR_PARAM);
        }
    const int32_t sds[] = { 0, 1, 4, -1, INT32_MAX, INT32_MIN };
    for (size_t i = 0; i < sizeof sds / sizeof sds[0]; i++) {
        pgt_base_problem h;
        pgt_base_init(&h);
        h.pa.spatial_dims = sds[i];
        PGT_EXPECT_PLAN(&h, POOLGRAD_ERR_PARAM);
    }
}

/* INT64_MAX kernel or stride, huge padding: every window computation would overflow -> refused. */
Test(native_hostile, extreme_kernel_stride_padding_overflow)
{
    int64_t out[5];
    for (int ceil = 0; ceil < 2; ceil++) {
        pgt_base_problem h;
        pgt_base_init(&h);
        h.pa.ceil_mode = ceil;
        h.pa.kernel[1] = INT64_MAX;
        PGT_EXPECT_PLAN(&h, POOLGRAD_ERR_OVERFLOW);
        cr_assert_eq(poolgrad_output_shape(&h.pa, 4, h.gi.shape, out), POOLGRAD_ERR_OVERFLOW);

        pgt_base_init(&h);
        h.pa.ceil_mode = ceil;
        h.pa.stride[0] = INT64_MAX;
        PGT_EXPECT_PLAN(&h, POOLGRAD_ERR_OVERFLOW);

        pgt_base_init(&h); /* the global-pooling trick with k = s = INT64_MAX in ceil mode */
        h.pa.ceil_mode = ceil;
        h.pa.kernel[0] = h.pa.kernel[1] = INT64_MAX;
        h.pa.stride[0] = h.pa.stride[1] = INT64_MAX;
        PGT_EXPECT_PLAN(&h, POOLGRAD_ERR_OVERFLOW);

        pgt_base_init(&h); /* padding just within 2p <= k, in + 2p overflows */
        h.pa.ceil_mode = ceil;
        h.pa.kernel[1] = INT64_MAX - 1;
        h.pa.padding[1] = INT64_MAX / 2;
        PGT_EXPECT_PLAN(&h, POOLGRAD_ERR_OVERFLOW);
    }
    /* large but representable parameters stay valid: k = s = 2^40 on a 6-wide axis, ceil -> 1 window */
    pgt_base_problem h;
    pgt_base_init(&h);
    h.pa.ceil_mode = true;
    h.pa.kernel[1] = h.pa.stride[1] = (int64_t)1 << 40;
    h.go.shape[3] = 1;
    h.go.strides[2] = 1;
    h.go.strides[1] = 3;
    h.go.strides[0] = 9;
    h.go.storage_numel = 18;
    PGT_EXPECT_PLAN(&h, POOLGRAD_OK);
}

Test(native_hostile, negative_and_mismatched_shapes)
{
    const int64_t bad[] = { -1, INT64_MIN, -((int64_t)1 << 40) };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        for (int d = 0; d < 4; d++) {
            pgt_base_problem h;
            pgt_base_init(&h);
            h.gi.shape[d] = bad[i];
            PGT_EXPECT_PLAN(&h, POOLGRAD_ERR_SHAPE);
            pgt_base_init(&h);
            h.go.shape[d] = bad[i];
            PGT_EXPECT_PLAN(&h, POOLGRAD_ERR_SHAPE);
            int64_t in[4] = { 2, 3, 6, 6 }, out[4];
            in[d] = bad[i];
            cr_assert_eq(poolgrad_output_shape(&h.pa, 4, in, out), POOLGRAD_ERR_SHAPE);
        }
    pgt_base_problem h;
    pgt_base_init(&h);
    h.go.shape[3] = 4; /* gradOutput not the inferred (2,3,3,3) */
    PGT_EXPECT_PLAN(&h, POOLGRAD_ERR_SHAPE);
    pgt_base_init(&h);
    h.go.shape[0] = 1;
    PGT_EXPECT_PLAN(&h, POOLGRAD_ERR_SHAPE);
    /* a negative inferred size (kernel wider than input plus padding) can never match */
    pgt_base_init(&h);
    h.pa.kernel[1] = 9;
    h.pa.stride[1] = 1;
    int64_t out[4];
    cr_assert_eq(poolgrad_output_shape(&h.pa, 4, h.gi.shape, out), POOLGRAD_OK);
    cr_assert_lt(out[3], 0);
    h.go.shape[3] = 0;
    PGT_EXPECT_PLAN(&h, POOLGRAD_ERR_SHAPE);
}

/* Dims whose product overflows int64, and element counts whose byte size overflows size_t. */
Test(native_hostile, element_count_and_byte_overflow)
{
    pgt_base_problem h;
    pgt_base_init(&h);
    h.pa = pgt_params(2, 1, 1, 0, false, true, 0);
    const int64_t big = (int64_t)1 << 32;
    int64_t shape[4] = { big, big, 1, 1 }; /* 2^64 elements */
    for (int d = 0; d < 4; d++) {
        h.gi.shape[d] = h.go.shape[d] = shape[d];
        h.gi.strides[d] = h.go.strides[d] = 1;
    }
    h.gi.storage_numel = h.go.storage_numel = INT64_MAX;
    PGT_EXPECT_PLAN(&h, POOLGRAD_ERR_OVERFLOW);
    int64_t three[4] = { INT64_MAX, 2, 1, 1 };
    for (int d = 0; d < 4; d++)
        h.gi.shape[d] = h.go.shape[d] = three[d];
    PGT_EXPECT_PLAN(&h, POOLGRAD_ERR_OVERFLOW);

    /* the count fits int64 but not as bytes (2^62 f32 elements = 2^64 bytes) */
    pgt_base_init(&h);
    h.pa = pgt_params(2, 1, 1, 0, false, true, 0);
    int64_t s62[4] = { 1, 1, (int64_t)1 << 31, (int64_t)1 << 31 };
    poolgrad_tensor t;
    cr_assert_eq(poolgrad_tensor_init_contiguous(&t, POOLGRAD_F32, 4, s62, h.gi_data), POOLGRAD_OK);
    h.gi = t;
    cr_assert_eq(poolgrad_tensor_init_contiguous(&t, POOLGRAD_F32, 4, s62, h.go_data), POOLGRAD_OK);
    h.go = t;
    PGT_EXPECT_PLAN(&h, POOLGRAD_ERR_OVERFLOW);
    /* a storage claim whose byte size overflows, for a tiny view */
    pgt_base_init(&h);
    h.gi.storage_numel = INT64_MAX;
    PGT_EXPECT_PLAN(&h, POOLGRAD_ERR_OVERFLOW);
    pgt_base_init(&h);
    h.go.storage_numel = INT64_MAX / 2;
    PGT_EXPECT_PLAN(&h, POOLGRAD_ERR_OVERFLOW);

    /* the descriptor helpers */
    int64_t ov[4] = { big, big, 2, 2 };
    cr_assert_eq(poolgrad_tensor_init_contiguous(&t, POOLGRAD_F32, 4, ov, NULL), POOLGRAD_ERR_OVERFLOW);
    cr_assert_eq(poolgrad_tensor_init_channels_last(&t, POOLGRAD_BF16, 4, 2, ov, NULL), POOLGRAD_ERR_OVERFLOW);
    int64_t neg[4] = { 1, -1, 2, 2 };
    cr_assert_eq(poolgrad_tensor_init_contiguous(&t, POOLGRAD_F32, 4, neg, NULL), POOLGRAD_ERR_SHAPE);
    cr_assert_eq(poolgrad_tensor_init_contiguous(&t, POOLGRAD_F32, 6, neg, NULL), POOLGRAD_ERR_RANK);
    cr_assert_eq(poolgrad_tensor_init_contiguous(&t, POOLGRAD_F32, 0, neg, NULL), POOLGRAD_ERR_RANK);
    cr_assert_eq(poolgrad_tensor_init_contiguous(&t, (poolgrad_dtype)9, 4, neg, NULL), POOLGRAD_ERR_DTYPE);
    cr_assert_eq(poolgrad_tensor_init_channels_last(&t, POOLGRAD_F32, 4, 4, neg, NULL), POOLGRAD_ERR_RANK);
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
    cr_assert_eq(poolgrad_plan_create(&pa, &go, &gi, &plan), POOLGRAD_ERR_OVERFLOW); /* 2^66 */
    pa.count_include_pad = false; /* still refused: the bound is on the padded span */
    cr_assert_eq(poolgrad_plan_create(&pa, &go, &gi, &plan), POOLGRAD_ERR_OVERFLOW);
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

/* ---------------------------------------------------------------- views and storage */

Test(native_hostile, views_outside_storage)
{
    pgt_base_problem h;
    const int64_t offs[] = { -1, INT64_MIN, -((int64_t)1 << 40) };
    for (size_t i = 0; i < sizeof offs / sizeof offs[0]; i++) {
        pgt_base_init(&h);
        h.gi.offset = offs[i];
        PGT_EXPECT_PLAN(&h, POOLGRAD_ERR_VIEW);
        pgt_base_init(&h);
        h.go.offset = offs[i];
        PGT_EXPECT_PLAN(&h, POOLGRAD_ERR_VIEW);
    }
    /* the furthest element one past the storage */
    pgt_base_init(&h);
    h.gi.storage_numel -= 1;
    PGT_EXPECT_PLAN(&h, POOLGRAD_ERR_VIEW);
    pgt_base_init(&h);
    h.go.storage_numel -= 1;
    PGT_EXPECT_PLAN(&h, POOLGRAD_ERR_VIEW);
    pgt_base_init(&h);
    h.gi.offset = 1;
    PGT_EXPECT_PLAN(&h, POOLGRAD_ERR_VIEW);
    pgt_base_init(&h);
    h.gi.storage_numel = 0;
    PGT_EXPECT_PLAN(&h, POOLGRAD_ERR_VIEW);
    pgt_base_init(&h);
    h.gi.storage_numel = -1;
    PGT_EXPECT_PLAN(&h, POOLGRAD_ERR_VIEW);
    pgt_base_init(&h);
    h.go.storage_numel = INT64_MIN;
    PGT_EXPECT_PLAN(&h, POOLGRAD_ERR_VIEW);
    /* a negative stride walking below the storage start */
    pgt_base_init(&h);
    h.gi.strides[3] = -1;
    PGT_EXPECT_PLAN(&h, POOLGRAD_ERR_VIEW);
    pgt_base_init(&h);
    h.go.strides[1] = -9;
    PGT_EXPECT_PLAN(&h, POOLGRAD_ERR_VIEW);
    /* a huge stride */
    pgt_base_init(&h);
    h.gi.strides[0] = (int64_t)1 << 40;
    PGT_EXPECT_PLAN(&h, POOLGRAD_ERR_VIEW);
    pgt_base_init(&h);
    h.gi.strides[0] = INT64_MAX; /* (2-1)*INT64_MAX plus the other dims' reach overflows */
    PGT_EXPECT_PLAN(&h, POOLGRAD_ERR_OVERFLOW);
    pgt_base_init(&h);
    h.go.strides[2] = INT64_MIN; /* offset + (3-1)*INT64_MIN overflows */
    PGT_EXPECT_PLAN(&h, POOLGRAD_ERR_OVERFLOW);
    pgt_base_init(&h);
    h.gi.offset = INT64_MAX; /* offset + positive reach overflows */
    PGT_EXPECT_PLAN(&h, POOLGRAD_ERR_OVERFLOW);
    pgt_base_init(&h);
    h.gi.strides[0] = h.gi.strides[1] = INT64_MAX / 2; /* the reach sums overflow */
    PGT_EXPECT_PLAN(&h, POOLGRAD_ERR_OVERFLOW);
    /* poolgrad_compare validates views the same way */
    pgt_base_init(&h);
    poolgrad_tensor a = h.gi, b = h.gi;
    b.offset = -3;
    poolgrad_compare_result r;
    cr_assert_eq(poolgrad_compare(&a, &b, &r), POOLGRAD_ERR_VIEW);
    b = h.gi;
    b.storage_numel = 5;
    cr_assert_eq(poolgrad_compare(&a, &b, &r), POOLGRAD_ERR_VIEW);
}

Test(native_hostile, grad_input_self_overlap)
{
    pgt_base_problem h;
    /* zero stride on a dim of size > 1 */
    for (int d = 0; d < 4; d++) {
        pgt_base_init(&h);
        h.gi.strides[d] = 0;
        PGT_EXPECT_PLAN(&h, POOLGRAD_ERR_ALIAS);
    }
    /* overlapping rows: W stride 1, H stride 3 < W = 6 */
    pgt_base_init(&h);
    h.gi.strides[2] = 3;
    PGT_EXPECT_PLAN(&h, POOLGRAD_ERR_ALIAS);
    /* N and C swapped onto the same stride */
    pgt_base_init(&h);
    h.gi.strides[0] = h.gi.strides[1];
    PGT_EXPECT_PLAN(&h, POOLGRAD_ERR_ALIAS);
    /* negative stride whose magnitude collides */
    pgt_base_init(&h);
    h.gi.strides[3] = -6;
    h.gi.offset = 30;
    h.gi.storage_numel = 300; /* would fit a storage; still two indices per element */
    PGT_EXPECT_PLAN(&h, POOLGRAD_ERR_ALIAS);
    /* INT64_MIN stride (no magnitude) */
    pgt_base_init(&h);
    h.gi.shape[0] = 1; /* N=1 to let the reach fit */
    h.go.shape[0] = 1;
    h.gi.strides[1] = INT64_MIN;
    PGT_EXPECT_PLAN(&h, POOLGRAD_ERR_OVERFLOW);
    /* zero strides on gradOutput are fine (a broadcast gradient) */
    pgt_base_init(&h);
    memset(h.go.strides, 0, sizeof h.go.strides);
    PGT_EXPECT_PLAN(&h, POOLGRAD_OK);
    /* size-1 dims may carry any stride, even zero */
    pgt_base_init(&h);
    h.gi.shape[0] = h.go.shape[0] = 1;
    h.gi.strides[0] = 0;
    PGT_EXPECT_PLAN(&h, POOLGRAD_OK);
}

Test(native_hostile, grad_input_overlaps_grad_output)
{
    pgt_base_problem h;
    pgt_base_init(&h);
    h.go.storage = h.gi.storage; /* same storage, overlapping ranges */
    h.go.storage_numel = h.gi.storage_numel;
    PGT_EXPECT_PLAN(&h, POOLGRAD_ERR_ALIAS);
    /* gradOutput inside gradInput's storage range, last element only */
    pgt_base_init(&h);
    h.go.storage = h.gi_data + 2 * 3 * 6 * 6 - 54; /* ends on gi's last element */
    PGT_EXPECT_PLAN(&h, POOLGRAD_ERR_ALIAS);
    /* gradOutput's range overlapping only through a strided reach */
    pgt_base_init(&h);
    float shared[200];
    const int64_t gi_shape[4] = { 1, 3, 6, 6 }, go_shape[4] = { 1, 3, 3, 3 };
    poolgrad_tensor_init_contiguous(&h.gi, POOLGRAD_F32, 4, gi_shape, shared);      /* [0, 108) */
    poolgrad_tensor_init_contiguous(&h.go, POOLGRAD_F32, 4, go_shape, shared);      /* [off, off+27) */
    h.gi.storage_numel = h.go.storage_numel = 200;
    h.go.offset = 107;
    PGT_EXPECT_PLAN(&h, POOLGRAD_ERR_ALIAS);
    h.go.offset = 108; /* disjoint: fine, and computes */
    PGT_EXPECT_PLAN(&h, POOLGRAD_OK);
    for (int i = 0; i < 27; i++)
        shared[108 + i] = (float)i;
    cr_assert_eq(poolgrad_avgpool_backward(&h.pa, &h.go, &h.gi, 2), POOLGRAD_OK);
    for (int i = 0; i < 108; i++) {
        int c = i / 36, y = i / 6 % 6, x = i % 6;
        float want = shared[108 + c * 9 + (y / 2) * 3 + x / 2] / 4.0f;
        cr_assert_eq(shared[i], want, "element %d", i);
    }
    /* gradOutput before gradInput in the same storage, touching */
    h.go.offset = 0;
    h.gi.offset = 26;
    PGT_EXPECT_PLAN(&h, POOLGRAD_ERR_ALIAS);
    h.gi.offset = 27;
    PGT_EXPECT_PLAN(&h, POOLGRAD_OK);
}

/* ---------------------------------------------------------------- execute */

Test(native_hostile, execute_misuse)
{
    pgt_base_problem h;
    pgt_base_init(&h);
    poolgrad_plan *plan;
    cr_assert_eq(poolgrad_plan_create(&h.pa, &h.go, &h.gi, &plan), POOLGRAD_OK);
    cr_assert_eq(poolgrad_execute(plan, NULL, 0, -1), POOLGRAD_ERR_THREADS);
    cr_assert_eq(poolgrad_execute(plan, NULL, 0, INT_MIN), POOLGRAD_ERR_THREADS);
    cr_assert_eq(poolgrad_avgpool_backward(&h.pa, &h.go, &h.gi, -5), POOLGRAD_ERR_THREADS);
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
    cr_assert_eq(poolgrad_execute(plan, NULL, wsz, 1), POOLGRAD_ERR_WORKSPACE);
    cr_assert_eq(poolgrad_execute(plan, ws, wsz - 1, 1), POOLGRAD_ERR_WORKSPACE);
    cr_assert_eq(poolgrad_execute(plan, ws, 0, 1), POOLGRAD_ERR_WORKSPACE);
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
