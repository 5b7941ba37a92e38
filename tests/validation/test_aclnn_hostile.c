/*
 * Hostile arguments to the aclnn front: each case asserts its exact aclnnStatus (161001 / 161002),
 * plus executor misuse.
 */
#include <limits.h>

#include "acl/acl.h"
#include "aclnnop/aclnn_avgpool2d_backward.h"
#include "aclnnop/aclnn_avgpool3d_backward.h"
#include "base_problem.h"

#define NULLPTR ACLNN_ERR_PARAM_NULLPTR
#define INVALID ACLNN_ERR_PARAM_INVALID

/* One operator call's arguments, owned (descriptors destroyed by acase_free). */
typedef struct acase {
    int sd;
    int64_t gi_dims[5], go_dims[5], self_dims[5];
    int rank;
    int dt_go, dt_gi, dt_self;
    int fmt_go, fmt_gi, fmt_self;
    const int64_t *gi_strides, *go_strides; /* NULL = contiguous */
    int64_t gi_offset, go_offset;
    int64_t gi_storage[2], go_storage[2];
    uint64_t gi_nstorage, go_nstorage;
    int64_t k[1024], s[1024], p[1024]; /* long enough for the hostile array lengths */
    uint64_t nk, ns, np;
    bool null_stride;
    int8_t cube;
    int64_t divisor;
    bool ceil, cip;
    float go_data[2 * 3 * 3 * 3 * 3];
    int go_gap; /* check_result: dense gradOutput element j lives at go_data[j * go_gap] */
    float gi_data[2 * 3 * 6 * 6 * 6];
    void *gi_ptr, *go_ptr;
} acase;

static void base2d(acase *c)
{
    memset(c, 0, sizeof *c);
    c->sd = 2;
    c->rank = 4;
    int64_t gi[4] = { 2, 3, 6, 6 }, go[4] = { 2, 3, 3, 3 };
    memcpy(c->gi_dims, gi, sizeof gi);
    memcpy(c->self_dims, gi, sizeof gi);
    memcpy(c->go_dims, go, sizeof go);
    c->dt_go = c->dt_gi = c->dt_self = ACL_FLOAT;
    c->fmt_go = c->fmt_gi = c->fmt_self = ACL_FORMAT_NCHW;
    c->gi_storage[0] = 216;
    c->go_storage[0] = 54;
    c->gi_nstorage = c->go_nstorage = 1;
    c->k[0] = c->k[1] = 2;
    c->s[0] = c->s[1] = 2;
    c->nk = c->ns = c->np = 2;
    c->cip = true;
    c->gi_ptr = c->gi_data;
    c->go_ptr = c->go_data;
    for (int i = 0; i < 54; i++)
        c->go_data[i] = (float)(i % 5) + 0.5f;
}

static void base3d(acase *c)
{
    base2d(c);
    c->sd = 3;
    c->rank = 5;
    int64_t gi[5] = { 2, 3, 6, 6, 6 }, go[5] = { 2, 3, 3, 3, 3 };
    memcpy(c->gi_dims, gi, sizeof gi);
    memcpy(c->self_dims, gi, sizeof gi);
    memcpy(c->go_dims, go, sizeof go);
    c->fmt_go = c->fmt_gi = c->fmt_self = ACL_FORMAT_NCDHW;
    c->gi_storage[0] = 2 * 3 * 216;
    c->go_storage[0] = 2 * 3 * 27;
    c->k[2] = c->s[2] = 2;
    c->nk = c->ns = c->np = 3;
}

/* Plan (phase one). If ex is not NULL and planning succeeded, *ex gets the executor (else released). */
static aclnnStatus aplan(acase *c, aclOpExecutor **ex_out, uint64_t *ws_out)
{
    aclTensor *go = aclCreateTensor(c->go_dims, (uint64_t)c->rank, (aclDataType)c->dt_go, c->go_strides, c->go_offset,
                                    (aclFormat)c->fmt_go, c->go_storage, c->go_nstorage, c->go_ptr);
    aclTensor *gi = aclCreateTensor(c->gi_dims, (uint64_t)c->rank, (aclDataType)c->dt_gi, c->gi_strides, c->gi_offset,
                                    (aclFormat)c->fmt_gi, c->gi_storage, c->gi_nstorage, c->gi_ptr);
    aclTensor *self = aclCreateTensor(c->self_dims, (uint64_t)c->rank, (aclDataType)c->dt_self, NULL, 0,
                                      (aclFormat)c->fmt_self, c->gi_storage, c->gi_nstorage, NULL);
    cr_assert(go && gi && self);
    aclIntArray *k = aclCreateIntArray(c->k, c->nk), *s = aclCreateIntArray(c->s, c->ns),
                *p = aclCreateIntArray(c->p, c->np);
    cr_assert(k && s && p);
    uint64_t ws = 777;
    aclOpExecutor *ex = NULL;
    aclnnStatus r;
    if (c->sd == 2)
        r = aclnnAvgPool2dBackwardGetWorkspaceSize(go, self, k, c->null_stride ? NULL : s, p, c->ceil, c->cip,
                                                   c->divisor, c->cube, gi, &ws, &ex);
    else
        r = aclnnAvgPool3dBackwardGetWorkspaceSize(go, self, k, c->null_stride ? NULL : s, p, c->ceil, c->cip,
                                                   c->divisor, gi, &ws, &ex);
    cr_assert_eq(r == ACLNN_SUCCESS, ex != NULL, "status %d, executor %p", (int)r, (void *)ex);
    aclDestroyTensor(go);
    aclDestroyTensor(gi);
    aclDestroyTensor(self);
    aclDestroyIntArray(k);
    aclDestroyIntArray(s);
    aclDestroyIntArray(p);
    if (ws_out)
        *ws_out = ws;
    if (ex_out)
        *ex_out = ex;
    else
        cr_assert_eq(aclDestroyAclOpExecutor(ex), ACLNN_SUCCESS);
    return r;
}

#define AEXPECT(c, status) cr_assert_eq(aplan((c), NULL, NULL), (status), "expected %d", (int)(status))

static void both(void (*mod)(acase *), aclnnStatus want)
{
    acase c;
    base2d(&c);
    mod(&c);
    AEXPECT(&c, want);
    base3d(&c);
    mod(&c);
    AEXPECT(&c, want);
}

/* ---------------------------------------------------------------- phase one */

Test(aclnn_hostile, valid_baselines)
{
    acase c;
    base2d(&c);
    AEXPECT(&c, ACLNN_SUCCESS);
    c.null_stride = true;
    AEXPECT(&c, ACLNN_SUCCESS);
    base3d(&c);
    AEXPECT(&c, ACLNN_SUCCESS);
}

Test(aclnn_hostile, null_pointers_2d)
{
    acase c;
    base2d(&c);
    int64_t d[4] = { 2, 3, 6, 6 }, o[4] = { 2, 3, 3, 3 }, kv[2] = { 2, 2 };
    aclTensor *gi = aclCreateTensor(d, 4, ACL_FLOAT, NULL, 0, ACL_FORMAT_NCHW, d, 4, c.gi_data);
    aclTensor *go = aclCreateTensor(o, 4, ACL_FLOAT, NULL, 0, ACL_FORMAT_NCHW, o, 4, c.go_data);
    aclIntArray *k = aclCreateIntArray(kv, 2), *p = aclCreateIntArray(c.p, 2);
    uint64_t ws;
    aclOpExecutor *ex;
    cr_assert_eq(aclnnAvgPool2dBackwardGetWorkspaceSize(NULL, gi, k, k, p, 0, 1, 0, 0, gi, &ws, &ex), NULLPTR);
    cr_assert_eq(aclnnAvgPool2dBackwardGetWorkspaceSize(go, NULL, k, k, p, 0, 1, 0, 0, gi, &ws, &ex), NULLPTR);
    cr_assert_eq(aclnnAvgPool2dBackwardGetWorkspaceSize(go, gi, NULL, k, p, 0, 1, 0, 0, gi, &ws, &ex), NULLPTR);
    cr_assert_eq(aclnnAvgPool2dBackwardGetWorkspaceSize(go, gi, k, k, NULL, 0, 1, 0, 0, gi, &ws, &ex), NULLPTR);
    cr_assert_eq(aclnnAvgPool2dBackwardGetWorkspaceSize(go, gi, k, k, p, 0, 1, 0, 0, NULL, &ws, &ex), NULLPTR);
    cr_assert_eq(aclnnAvgPool2dBackwardGetWorkspaceSize(go, gi, k, k, p, 0, 1, 0, 0, gi, NULL, &ex), NULLPTR);
    cr_assert_eq(aclnnAvgPool2dBackwardGetWorkspaceSize(go, gi, k, k, p, 0, 1, 0, 0, gi, &ws, NULL), NULLPTR);
    /* NULL pointers win over invalid values */
    int64_t bad = -1;
    aclIntArray *kb = aclCreateIntArray(&bad, 1);
    cr_assert_eq(aclnnAvgPool2dBackwardGetWorkspaceSize(go, gi, kb, NULL, p, 0, 1, 0, 9, gi, &ws, NULL), NULLPTR);
    /* stride NULL = kernel: fine */
    ex = NULL;
    cr_assert_eq(aclnnAvgPool2dBackwardGetWorkspaceSize(go, gi, k, NULL, p, 0, 1, 0, 0, gi, &ws, &ex), ACLNN_SUCCESS);
    cr_assert_eq(aclDestroyAclOpExecutor(ex), ACLNN_SUCCESS);
    /* NULL tensor data of a non-empty view */
    aclTensor *gin = aclCreateTensor(d, 4, ACL_FLOAT, NULL, 0, ACL_FORMAT_NCHW, d, 4, NULL);
    cr_assert_eq(aclnnAvgPool2dBackwardGetWorkspaceSize(go, gi, k, k, p, 0, 1, 0, 0, gin, &ws, &ex), NULLPTR);
    aclDestroyTensor(gin);
    aclDestroyTensor(gi);
    aclDestroyTensor(go);
    aclDestroyIntArray(k);
    aclDestroyIntArray(kb);
    aclDestroyIntArray(p);
}

Test(aclnn_hostile, null_pointers_3d)
{
    acase c;
    base3d(&c);
    aclTensor *gi = aclCreateTensor(c.gi_dims, 5, ACL_FLOAT, NULL, 0, ACL_FORMAT_NCDHW, c.gi_storage, 1, c.gi_data);
    aclTensor *go = aclCreateTensor(c.go_dims, 5, ACL_FLOAT, NULL, 0, ACL_FORMAT_NCDHW, c.go_storage, 1, c.go_data);
    aclIntArray *k = aclCreateIntArray(c.k, 3), *p = aclCreateIntArray(c.p, 3);
    uint64_t ws;
    aclOpExecutor *ex;
    cr_assert_eq(aclnnAvgPool3dBackwardGetWorkspaceSize(NULL, gi, k, k, p, 0, 1, 0, gi, &ws, &ex), NULLPTR);
    cr_assert_eq(aclnnAvgPool3dBackwardGetWorkspaceSize(go, NULL, k, k, p, 0, 1, 0, gi, &ws, &ex), NULLPTR);
    cr_assert_eq(aclnnAvgPool3dBackwardGetWorkspaceSize(go, gi, NULL, k, p, 0, 1, 0, gi, &ws, &ex), NULLPTR);
    cr_assert_eq(aclnnAvgPool3dBackwardGetWorkspaceSize(go, gi, k, NULL, p, 0, 1, 0, gi, &ws, &ex), NULLPTR);
    cr_assert_eq(aclnnAvgPool3dBackwardGetWorkspaceSize(go, gi, k, k, NULL, 0, 1, 0, gi, &ws, &ex), NULLPTR);
    cr_assert_eq(aclnnAvgPool3dBackwardGetWorkspaceSize(go, gi, k, k, p, 0, 1, 0, NULL, &ws, &ex), NULLPTR);
    cr_assert_eq(aclnnAvgPool3dBackwardGetWorkspaceSize(go, gi, k, k, p, 0, 1, 0, gi, NULL, &ex), NULLPTR);
    cr_assert_eq(aclnnAvgPool3dBackwardGetWorkspaceSize(go, gi, k, k, p, 0, 1, 0, gi, &ws, NULL), NULLPTR);
    aclDestroyTensor(gi);
    aclDestroyTensor(go);
    aclDestroyIntArray(k);
    aclDestroyIntArray(p);
}

static int g_dtype;
static void set_all_dtypes(acase *c) { c->dt_go = c->dt_gi = c->dt_self = g_dtype; }
static void set_go_dtype(acase *c) { c->dt_go = g_dtype; }
static void set_gi_dtype(acase *c) { c->dt_gi = g_dtype; }
static void set_self_dtype(acase *c) { c->dt_self = g_dtype; }

Test(aclnn_hostile, unsupported_dtypes)
{
    const int bad[] = { ACL_DOUBLE, ACL_INT32, ACL_INT64, ACL_INT8, ACL_UINT8, ACL_INT16, ACL_UINT16, ACL_UINT32,
                        ACL_UINT64, ACL_BOOL, ACL_DT_UNDEFINED, 5, 13, 26, 28, 100, INT_MIN, INT_MAX };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        g_dtype = bad[i];
        both(set_all_dtypes, INVALID);
        both(set_go_dtype, INVALID);
        both(set_gi_dtype, INVALID);
        both(set_self_dtype, INVALID);
    }
    g_dtype = ACL_FLOAT16; /* gradOutput and gradInput must agree */
    both(set_gi_dtype, INVALID);
    both(set_self_dtype, ACLNN_SUCCESS); /* self's dtype may differ */
    g_dtype = ACL_BF16;
    both(set_go_dtype, INVALID);
}

Test(aclnn_hostile, formats)
{
    const int priv[] = { 3, 4, 12, 29, 32, 33, 50, 51, 52, 53, 54 };
    acase c;
    for (size_t i = 0; i < sizeof priv / sizeof priv[0]; i++) {
        base2d(&c);
        c.fmt_go = priv[i];
        AEXPECT(&c, INVALID);
        base2d(&c);
        c.fmt_gi = priv[i];
        AEXPECT(&c, INVALID);
        base2d(&c);
        c.fmt_self = priv[i];
        AEXPECT(&c, INVALID);
        base3d(&c);
        c.fmt_go = c.fmt_gi = priv[i];
        AEXPECT(&c, INVALID);
    }
    const int other2d[] = { ACL_FORMAT_ND, ACL_FORMAT_NHWC, ACL_FORMAT_HWCN, ACL_FORMAT_UNDEFINED, ACL_FORMAT_NCDHW,
                            ACL_FORMAT_NC, 1000, INT_MIN };
    for (size_t i = 0; i < sizeof other2d / sizeof other2d[0]; i++) {
        base2d(&c);
        c.fmt_gi = other2d[i];
        AEXPECT(&c, INVALID);
    }
    base2d(&c);
    c.fmt_go = ACL_FORMAT_NCL; /* 4-D gradOutput needs NCHW for gradOutput and gradInput */
    AEXPECT(&c, INVALID);
    base3d(&c);
    c.fmt_gi = ACL_FORMAT_ND; /* 3D: gradOutput.format == output.format */
    AEXPECT(&c, INVALID);
    c.fmt_go = ACL_FORMAT_ND;
    AEXPECT(&c, ACLNN_SUCCESS);
}

Test(aclnn_hostile, ranks)
{
    acase c;
    const int bad2d[] = { 0, 1, 2, 5, 6, 16 }, bad3d[] = { 0, 2, 3, 6, 16 };
    int64_t dims16[16], st16[16];
    for (int i = 0; i < 16; i++)
        dims16[i] = 1, st16[i] = 1;
    for (size_t i = 0; i < sizeof bad2d / sizeof bad2d[0]; i++) {
        int r = bad2d[i];
        aclTensor *t = aclCreateTensor(dims16, (uint64_t)r, ACL_FLOAT, st16, 0, ACL_FORMAT_NCHW, dims16, 1, st16);
        base2d(&c);
        aclTensor *go = aclCreateTensor(c.go_dims, 4, ACL_FLOAT, NULL, 0, ACL_FORMAT_NCHW, c.go_storage, 1, c.go_data);
        aclIntArray *k = aclCreateIntArray(c.k, 2), *p = aclCreateIntArray(c.p, 2);
        uint64_t ws;
        aclOpExecutor *ex = NULL;
        cr_assert_eq(aclnnAvgPool2dBackwardGetWorkspaceSize(t, t, k, NULL, p, 0, 1, 0, 0, t, &ws, &ex), INVALID, "rank %d", r);
        cr_assert_eq(aclnnAvgPool2dBackwardGetWorkspaceSize(go, go, k, NULL, p, 0, 1, 0, 0, t, &ws, &ex), INVALID);
        cr_assert_null(ex);
        aclDestroyTensor(t);
        aclDestroyTensor(go);
        aclDestroyIntArray(k);
        aclDestroyIntArray(p);
    }
    for (size_t i = 0; i < sizeof bad3d / sizeof bad3d[0]; i++) {
        int r = bad3d[i];
        aclTensor *t = aclCreateTensor(dims16, (uint64_t)r, ACL_FLOAT, st16, 0, ACL_FORMAT_ND, dims16, 1, st16);
        aclIntArray *k = aclCreateIntArray(dims16, 3);
        uint64_t ws;
        aclOpExecutor *ex = NULL;
        cr_assert_eq(aclnnAvgPool3dBackwardGetWorkspaceSize(t, t, k, k, k, 0, 1, 0, t, &ws, &ex), INVALID, "rank %d", r);
        aclDestroyTensor(t);
        aclDestroyIntArray(k);
    }
    /* rank-3 (unbatched C,H,W, NCL) with the batched gradOutput's leading dims: shapes wrong */
    base2d(&c);
    c.rank = 3;
    c.fmt_go = c.fmt_gi = c.fmt_self = ACL_FORMAT_NCL;
    AEXPECT(&c, INVALID);
    /* more than POOLGRAD_ACLNN_MAX_DIMS dims: no descriptor at all */
    int64_t d17[17];
    for (int i = 0; i < 17; i++)
        d17[i] = 1;
    cr_assert_null(aclCreateTensor(d17, 17, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, d17, 1, d17));
    cr_assert_null(aclCreateTensor(d17, UINT64_MAX, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, d17, 1, d17));
    cr_assert_null(aclCreateTensor(d17, 4, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, d17, 17, d17));
    cr_assert_null(aclCreateTensor(d17, 4, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, d17, UINT64_MAX, d17));
    cr_assert_null(aclCreateTensor(NULL, 4, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, d17, 1, d17));
    cr_assert_null(aclCreateTensor(d17, 4, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, NULL, 1, d17));
}

static int64_t g_val;
static int g_axis;
static void set_kernel(acase *c) { c->k[g_axis] = g_val; }
static void set_stride(acase *c) { c->s[g_axis] = g_val; }
static void set_padding(acase *c) { c->p[g_axis] = g_val; }
static void set_kernel_len(acase *c) { c->nk = (uint64_t)g_val; }
static void set_stride_len(acase *c) { c->ns = (uint64_t)g_val; }
static void set_padding_len(acase *c) { c->np = (uint64_t)g_val; }
static void set_gi_dim(acase *c) { c->gi_dims[g_axis] = c->self_dims[g_axis] = g_val; }
static void set_go_dim(acase *c) { c->go_dims[g_axis] = g_val; }
static void set_self_dim(acase *c) { c->self_dims[g_axis] = g_val; }

Test(aclnn_hostile, parameter_values)
{
    const int64_t bad_k[] = { 0, -1, INT64_MIN, INT64_MAX, INT64_MAX - 1 };
    const int64_t bad_s[] = { 0, -1, INT64_MIN, INT64_MAX };
    const int64_t bad_p[] = { -1, INT64_MIN, INT64_MAX, 2 /* 2p > k */ };
    for (g_axis = 0; g_axis < 2; g_axis++) {
        for (size_t i = 0; i < sizeof bad_k / sizeof bad_k[0]; i++) {
            g_val = bad_k[i];
            both(set_kernel, INVALID);
        }
        for (size_t i = 0; i < sizeof bad_s / sizeof bad_s[0]; i++) {
            g_val = bad_s[i];
            both(set_stride, INVALID);
        }
        for (size_t i = 0; i < sizeof bad_p / sizeof bad_p[0]; i++) {
            g_val = bad_p[i];
            both(set_padding, INVALID);
        }
    }
    /* array lengths */
    const int64_t bad_len[] = { 0, 4, 1000 };
    for (size_t i = 0; i < sizeof bad_len / sizeof bad_len[0]; i++) {
        g_val = bad_len[i];
        both(set_kernel_len, INVALID);
        both(set_padding_len, INVALID);
    }
    g_val = 4;
    both(set_stride_len, INVALID);
    g_val = 0; /* empty stride = kernel */
    both(set_stride_len, ACLNN_SUCCESS);
    acase c;
    base2d(&c);
    c.nk = 3;
    AEXPECT(&c, INVALID);
    base3d(&c);
    c.nk = 2;
    AEXPECT(&c, INVALID);
    /* cubeMathType */
    const int8_t cubes[] = { -1, 4, INT8_MIN, INT8_MAX };
    for (size_t i = 0; i < sizeof cubes / sizeof cubes[0]; i++) {
        base2d(&c);
        c.cube = cubes[i];
        AEXPECT(&c, INVALID);
    }
    for (int8_t q = 0; q <= 3; q++) {
        base2d(&c);
        c.cube = q;
        AEXPECT(&c, ACLNN_SUCCESS);
    }
    /* any divisorOverride is accepted, even INT64_MIN */
    base2d(&c);
    c.divisor = INT64_MIN;
    AEXPECT(&c, ACLNN_SUCCESS);
    /* INT64_MAX kernel and stride together in ceil mode (one window on paper): overflow, refused */
    base3d(&c);
    c.ceil = true;
    for (int a = 0; a < 3; a++)
        c.k[a] = c.s[a] = INT64_MAX;
    for (int a = 0; a < 3; a++)
        c.go_dims[2 + a] = 1;
    AEXPECT(&c, INVALID);
}

Test(aclnn_hostile, shapes_and_dims)
{
    const int64_t bad[] = { -1, INT64_MIN };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        for (g_axis = 0; g_axis < 4; g_axis++) {
            g_val = bad[i];
            both(set_gi_dim, INVALID);
            both(set_go_dim, INVALID);
            both(set_self_dim, INVALID);
        }
    g_axis = 3;
    g_val = 4;
    both(set_go_dim, INVALID); /* not the inferred gradOutput */
    both(set_self_dim, INVALID); /* self != gradInput */
    /* dims whose product overflows (storage claims as large) */
    acase c;
    base2d(&c);
    int64_t big = (int64_t)1 << 32;
    c.gi_dims[0] = c.gi_dims[1] = c.self_dims[0] = c.self_dims[1] = big;
    c.go_dims[0] = c.go_dims[1] = big;
    c.gi_storage[0] = c.go_storage[0] = INT64_MAX;
    AEXPECT(&c, INVALID);
    /* NULL strides whose contiguous values overflow */
    base2d(&c);
    c.gi_dims[2] = c.self_dims[2] = (int64_t)1 << 62;
    c.go_dims[2] = (int64_t)1 << 61;
    AEXPECT(&c, INVALID);
}

Test(aclnn_hostile, storage_and_views)
{
    acase c;
    /* storage dims: too small, negative, product overflowing, empty */
    base2d(&c);
    c.gi_storage[0] = 215;
    AEXPECT(&c, INVALID);
    base2d(&c);
    c.go_storage[0] = 53;
    AEXPECT(&c, INVALID);
    base2d(&c);
    c.gi_storage[0] = -216;
    AEXPECT(&c, INVALID);
    base2d(&c);
    c.gi_storage[0] = (int64_t)1 << 40;
    c.gi_storage[1] = (int64_t)1 << 40;
    c.gi_nstorage = 2;
    AEXPECT(&c, INVALID);
    base2d(&c);
    c.go_storage[0] = 0;
    AEXPECT(&c, INVALID);
    base2d(&c);
    c.gi_storage[0] = INT64_MAX; /* bytes overflow */
    AEXPECT(&c, INVALID);
    base2d(&c); /* storage given as 2 dims with the right product: fine */
    c.gi_storage[0] = 12;
    c.gi_storage[1] = 18;
    c.gi_nstorage = 2;
    AEXPECT(&c, ACLNN_SUCCESS);
    /* offsets */
    const int64_t offs[] = { -1, INT64_MIN, 1, INT64_MAX };
    for (size_t i = 0; i < sizeof offs / sizeof offs[0]; i++) {
        base2d(&c);
        c.gi_offset = offs[i];
        AEXPECT(&c, INVALID);
        base2d(&c);
        c.go_offset = offs[i];
        AEXPECT(&c, INVALID);
    }
    /* strides: self-overlap of gradInput, reach beyond storage, overflowing reach */
    const int64_t zero_w[4] = { 108, 36, 6, 0 }, overlap[4] = { 108, 36, 3, 1 }, beyond[4] = { 108, 36, 6, 2 },
                  huge[4] = { INT64_MAX, 36, 6, 1 }, neg_ok[4] = { 108, 36, -6, -1 };
    base2d(&c);
    c.gi_strides = zero_w;
    AEXPECT(&c, INVALID);
    base2d(&c);
    c.gi_strides = overlap;
    AEXPECT(&c, INVALID);
    base2d(&c);
    c.gi_strides = beyond;
    AEXPECT(&c, INVALID);
    base2d(&c);
    c.gi_strides = huge;
    AEXPECT(&c, INVALID);
    base2d(&c);
    c.gi_strides = neg_ok; /* negative strides are supported: offset puts element [*,*,0,0] at 35 */
    AEXPECT(&c, INVALID); /* without the offset the view walks below the storage */
    c.gi_offset = 35;
    AEXPECT(&c, ACLNN_SUCCESS);
    /* gradInput over gradOutput's storage */
    base2d(&c);
    c.go_ptr = c.gi_data + 100;
    AEXPECT(&c, INVALID);
    base2d(&c);
    c.go_ptr = c.gi_data + 216 - 54;
    AEXPECT(&c, INVALID);
    base2d(&c);
    c.gi_ptr = c.go_data; /* gradInput inside gradOutput's range (claims are trusted, data never touched) */
    c.gi_storage[0] = 216;
    AEXPECT(&c, INVALID);
}

Test(aclnn_hostile, int_arrays)
{
    cr_assert_null(aclCreateIntArray(NULL, 1));
    cr_assert_null(aclCreateIntArray(NULL, UINT64_MAX));
    int64_t v = 2;
    cr_assert_null(aclCreateIntArray(&v, UINT64_MAX)); /* refused before any allocation or copy */
    cr_assert_null(aclCreateIntArray(&v, (uint64_t)1 << 40));
    aclIntArray *e = aclCreateIntArray(NULL, 0);
    cr_assert_not_null(e);
    cr_assert_eq(aclDestroyIntArray(e), ACLNN_SUCCESS);
    cr_assert_eq(aclDestroyIntArray(NULL), ACLNN_SUCCESS);
    cr_assert_eq(aclDestroyTensor(NULL), ACLNN_SUCCESS);
}

/* ---------------------------------------------------------------- phase two: the executor */

typedef aclnnStatus (*run_fn)(void *, uint64_t, aclOpExecutor *, aclrtStream);

static void check_result(const acase *c)
{
    for (int i = 0; i < 216; i++) {
        int n = i / 108, ch = i / 36 % 3, y = i / 6 % 6, x = i % 6;
        float want = c->go_data[(((n * 3 + ch) * 3 + y / 2) * 3 + x / 2) * (c->go_gap ? c->go_gap : 1)] / 4.0f;
        cr_assert_eq(c->gi_data[i], want, "element %d: %a vs %a", i, (double)c->gi_data[i], (double)want);
    }
}

static void executor_misuse(int sd)
{
    acase c;
    base2d(&c);
    if (sd == 3) { /* 3D over a 2D-shaped problem: D = 1 with k = s = 1 on D */
        base3d(&c);
        int64_t gi[5] = { 2, 3, 1, 6, 6 }, go[5] = { 2, 3, 1, 3, 3 };
        memcpy(c.gi_dims, gi, sizeof gi);
        memcpy(c.self_dims, gi, sizeof gi);
        memcpy(c.go_dims, go, sizeof go);
        c.gi_storage[0] = 216;
        c.go_storage[0] = 54;
        c.k[0] = c.s[0] = 1;
    }
    run_fn run = sd == 2 ? aclnnAvgPool2dBackward : aclnnAvgPool3dBackward;
    aclrtStream stream;
    cr_assert_eq(aclrtCreateStream(&stream), ACL_SUCCESS);
    /* NULL executor */
    cr_assert_eq(run(NULL, 0, NULL, stream), NULLPTR);
    cr_assert_eq(run(c.gi_data, 64, NULL, stream), NULLPTR);
    /* a planned executor that will not run is released */
    aclOpExecutor *ex;
    uint64_t ws;
    cr_assert_eq(aplan(&c, &ex, &ws), ACLNN_SUCCESS);
    cr_assert_eq(aclDestroyAclOpExecutor(ex), ACLNN_SUCCESS);
    cr_assert_eq(aclDestroyAclOpExecutor(NULL), ACLNN_SUCCESS);
    /* NULL workspace with a non-zero size: 161001, executor not consumed */
    cr_assert_eq(aplan(&c, &ex, &ws), ACLNN_SUCCESS);
    cr_assert_eq(run(NULL, ws + 1, ex, stream), NULLPTR);
    cr_assert_eq(run(NULL, UINT64_MAX, ex, stream), NULLPTR);
    /* still usable: run it for real (consumes it) */
    void *w = ws ? malloc((size_t)ws) : NULL;
    memset(c.gi_data, 0xff, sizeof c.gi_data);
    cr_assert_eq(run(w, ws, ex, stream), ACLNN_SUCCESS);
    check_result(&c);
    /* a larger workspace than needed is fine */
    cr_assert_eq(aplan(&c, &ex, &ws), ACLNN_SUCCESS);
    void *big = malloc((size_t)ws + 4096);
    cr_assert_eq(run(big, ws + 4096, ex, stream), ACLNN_SUCCESS);
    free(big);
    /* too small a workspace: 161002 and not consumed. Needs a plan with a workspace: a gradOutput
     * with gaps along W steers the dispatch to a pre-dividing kernel, if the build has one. */
    cr_assert_eq(aplan(&c, &ex, &ws), ACLNN_SUCCESS);
    if (ws == 0) {
        cr_assert_eq(aclDestroyAclOpExecutor(ex), ACLNN_SUCCESS);
        static const int64_t gap2d[4] = { 54, 18, 6, 2 }, gap3d[5] = { 54, 18, 18, 6, 2 };
        c.go_strides = sd == 2 ? gap2d : gap3d;
        c.go_storage[0] = 108;
        c.go_gap = 2;
        for (int j = 53; j >= 0; j--)
            c.go_data[2 * j] = c.go_data[j], c.go_data[2 * j + 1] = -1e30f;
        cr_assert_eq(aplan(&c, &ex, &ws), ACLNN_SUCCESS);
        free(w);
        w = ws ? malloc((size_t)ws) : NULL;
    }
    if (ws == 0) {
        cr_assert_eq(run(NULL, 0, ex, stream), ACLNN_SUCCESS);
        check_result(&c);
        free(w);
        aclrtDestroyStream(stream);
        cr_skip("no %dD plan here needs a workspace (scalar or workspace-free kernels only): "
                "workspaceSize < planned cannot arise",
                sd);
    }
    memset(c.gi_data, 0xff, sizeof c.gi_data);
    cr_assert_eq(run(w, ws - 1, ex, stream), INVALID);
    cr_assert_eq(run(w, 0, ex, stream), INVALID);
    cr_assert_eq(run(NULL, 0, ex, stream), INVALID);
    cr_assert_eq(run(w, ws, ex, stream), ACLNN_SUCCESS);
    check_result(&c);
    free(w);
    aclrtDestroyStream(stream);
}

Test(aclnn_hostile, executor_misuse_2d) { executor_misuse(2); }
Test(aclnn_hostile, executor_misuse_3d) { executor_misuse(3); }

/* Empty gradOutput on the 3D front succeeds before value checks, and still validates output's view. */
Test(aclnn_hostile, empty_grad_output_3d)
{
    acase c;
    base3d(&c);
    c.go_dims[0] = 0;
    c.k[0] = -5; /* not checked: empty gradOutput returns first */
    AEXPECT(&c, ACLNN_SUCCESS);
    c.gi_storage[0] = 10; /* but the output view must fit its storage */
    AEXPECT(&c, INVALID);
    base3d(&c);
    c.go_dims[0] = 0;
    const int64_t zero[5] = { 0, 0, 0, 0, 0 };
    c.gi_strides = zero; /* output self-overlap */
    AEXPECT(&c, INVALID);
    /* the zero fill runs */
    base3d(&c);
    c.go_dims[0] = 0;
    c.go_ptr = NULL;
    aclOpExecutor *ex;
    uint64_t ws;
    cr_assert_eq(aplan(&c, &ex, &ws), ACLNN_SUCCESS);
    memset(c.gi_data, 0xff, sizeof c.gi_data);
    void *w = ws ? malloc((size_t)ws) : NULL;
    cr_assert_eq(aclnnAvgPool3dBackward(w, ws, ex, NULL), ACLNN_SUCCESS);
    free(w);
    for (int i = 0; i < 2 * 3 * 216; i++)
        cr_assert_eq(c.gi_data[i], 0.0f);
}
