/*
 * Validation: every rule of docs/SEMANTICS.md section 2 through the aclnn front with its exact status
 * (161001 / 161002 / 0), the ordering rules that are observable, the execute-phase checks; then the
 * native API's statuses for the same classes, status strings, versions, dtype sizes, tensor
 * initializers and poolgrad_compare on crafted inputs.
 */
#include <criterion/criterion.h>

#include "testutil.h"
#include "aclnn_runner.h"
#include "oracle.h"

#define NULLPTR ACLNN_ERR_PARAM_NULLPTR
#define INVALID ACLNN_ERR_PARAM_INVALID
#define OK ACLNN_SUCCESS

/* storage big enough for every configuration below */
static float go_buf[4096], gi_buf[4096];

enum { N_GO = 1, N_SELF = 2, N_K = 4, N_S = 8, N_P = 16, N_GI = 32, N_WS = 64, N_EX = 128 };

typedef struct cfg {
    int rank[3];        /* gradOutput, self, gradInput/output */
    int64_t dims[3][6];
    int dt[3];
    int fmt[3];
    int64_t k[4], s[4], p[4];
    int nk, ns, np;     /* lengths; ns < 0: stride NULL */
    bool ceil_mode, cip;
    int64_t div;
    int cube;
    unsigned nulls;     /* N_* bits: pass NULL for these */
} cfg;

/* 2D: gradOutput 1x1x2x2, self/gradInput 1x1x4x4, kernel 2, stride 2, padding 0, f32 NCHW */
static cfg base2(void)
{
    cfg c;
    memset(&c, 0, sizeof c);
    for (int t = 0; t < 3; t++) {
        c.rank[t] = 4;
        c.dt[t] = ACL_FLOAT;
        c.fmt[t] = ACL_FORMAT_NCHW;
        c.dims[t][0] = 1;
        c.dims[t][1] = 1;
        c.dims[t][2] = c.dims[t][3] = t == 0 ? 2 : 4;
    }
    c.k[0] = c.k[1] = 2;
    c.s[0] = c.s[1] = 2;
    c.nk = c.ns = c.np = 2;
    return c;
}

/* 3D: gradOutput 1x1x2x2x2, self/output 1x1x4x4x4, kernel 2, stride 2, padding 0, f32 NCDHW */
static cfg base3(void)
{
    cfg c;
    memset(&c, 0, sizeof c);
    for (int t = 0; t < 3; t++) {
        c.rank[t] = 5;
        c.dt[t] = ACL_FLOAT;
        c.fmt[t] = ACL_FORMAT_NCDHW;
        c.dims[t][0] = 1;
        c.dims[t][1] = 1;
        c.dims[t][2] = c.dims[t][3] = c.dims[t][4] = t == 0 ? 2 : 4;
    }
    c.k[0] = c.k[1] = c.k[2] = 2;
    c.s[0] = c.s[1] = c.s[2] = 2;
    c.nk = c.ns = c.np = 3;
    return c;
}

/*
 * Plan with the configuration; when planning succeeds, execute too and require success.
 * gradOutput is filled with 1.0 (f32 bits only meaningful for f32 configurations).
 */
static aclnnStatus run(int sd, const cfg *c)
{
    for (int i = 0; i < 4096; i++) {
        go_buf[i] = 1.0f;
        gi_buf[i] = -7.0f;
    }
    aclTensor *t[3];
    void *data[3] = { go_buf, NULL, gi_buf };
    for (int i = 0; i < 3; i++) {
        t[i] = aclCreateTensor(c->dims[i], (uint64_t)c->rank[i], (aclDataType)c->dt[i], NULL, 0, (aclFormat)c->fmt[i],
                               c->dims[i], (uint64_t)c->rank[i], data[i]);
        cr_assert(t[i] != NULL);
    }
    aclIntArray *k = aclCreateIntArray(c->k, (uint64_t)c->nk);
    aclIntArray *s = c->ns < 0 ? NULL : aclCreateIntArray(c->s, (uint64_t)c->ns);
    aclIntArray *p = aclCreateIntArray(c->p, (uint64_t)c->np);
    uint64_t ws = 12345;
    aclOpExecutor *ex = NULL;
    const unsigned nl = c->nulls;
    const aclTensor *go = nl & N_GO ? NULL : t[0], *self = nl & N_SELF ? NULL : t[1];
    aclTensor *gi = nl & N_GI ? NULL : t[2];
    const aclIntArray *ka = nl & N_K ? NULL : k, *sa = nl & N_S ? NULL : s, *pa = nl & N_P ? NULL : p;
    uint64_t *wsp = nl & N_WS ? NULL : &ws;
    aclOpExecutor **exp = nl & N_EX ? NULL : &ex;
    aclnnStatus st = sd == 2 ? aclnnAvgPool2dBackwardGetWorkspaceSize(go, self, ka, sa, pa, c->ceil_mode, c->cip, c->div,
                                                                      (int8_t)c->cube, gi, wsp, exp)
                             : aclnnAvgPool3dBackwardGetWorkspaceSize(go, self, ka, sa, pa, c->ceil_mode, c->cip, c->div,
                                                                      gi, wsp, exp);
    if (st == OK) {
        cr_assert(ex != NULL, "success without an executor");
        void *w = ws ? malloc(ws) : NULL;
        aclnnStatus e = sd == 2 ? aclnnAvgPool2dBackward(w, ws, ex, NULL) : aclnnAvgPool3dBackward(w, ws, ex, NULL);
        cr_assert_eq(e, OK, "execute after a successful plan: %d", e);
        free(w);
    }
    for (int i = 0; i < 3; i++)
        aclDestroyTensor(t[i]);
    aclDestroyIntArray(k);
    aclDestroyIntArray(s);
    aclDestroyIntArray(p);
    return st;
}

#define EXPECT2(c, want) cr_expect_eq(run(2, &(c)), (want), "2D line %d: expected %d", __LINE__, (want))
#define EXPECT3(c, want) cr_expect_eq(run(3, &(c)), (want), "3D line %d: expected %d", __LINE__, (want))

/* ================================================================== 2D */

Test(aclnn2d, baseline_and_values)
{
    cfg c = base2();
    cr_assert_eq(run(2, &c), OK);
    for (int i = 0; i < 16; i++)
        cr_assert_eq(gi_buf[i], 0.25f);
}

Test(aclnn2d, step1_null_pointers)
{
    const unsigned each[] = { N_GO, N_SELF, N_K, N_P, N_GI, N_WS, N_EX };
    for (size_t i = 0; i < sizeof each / sizeof each[0]; i++) {
        cfg c = base2();
        c.nulls = each[i];
        EXPECT2(c, NULLPTR);
    }
    /* the NULL check comes first: NULL gradInput beats an invalid gradOutput dtype, NULL executor
       beats everything else being wrong */
    cfg c = base2();
    c.nulls = N_GI;
    c.dt[0] = ACL_INT32;
    EXPECT2(c, NULLPTR);
    c = base2();
    c.nulls = N_EX;
    c.dt[0] = ACL_DOUBLE;
    c.fmt[1] = ACL_FORMAT_ND;
    c.nk = 0;
    c.cube = 9;
    EXPECT2(c, NULLPTR);
}

Test(aclnn2d, step1_stride_null_means_kernel)
{
    cfg c = base2();
    c.nulls = N_S;
    cr_assert_eq(run(2, &c), OK);
    for (int i = 0; i < 16; i++)
        cr_assert_eq(gi_buf[i], 0.25f, "stride NULL must equal stride = kernel");
    /* kernel 2, stride NULL: gradOutput must be 2x2 (stride 1 would need 3x3) */
    c.dims[0][2] = c.dims[0][3] = 3;
    EXPECT2(c, INVALID);
}

Test(aclnn2d, step2_dtypes)
{
    const int bad[] = { ACL_DT_UNDEFINED, ACL_INT8, ACL_INT32, ACL_UINT8, ACL_INT16, ACL_UINT16, ACL_UINT32,
                        ACL_INT64, ACL_UINT64, ACL_DOUBLE, ACL_BOOL, 5, 28, 1000 };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        for (int t = 0; t < 3; t++) {
            cfg c = base2();
            c.dt[t] = bad[i];
            EXPECT2(c, INVALID);
        }
    const int good[] = { ACL_FLOAT, ACL_FLOAT16, ACL_BF16 };
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
            for (int sdt = 0; sdt < 3; sdt++) {
                cfg c = base2();
                c.dt[0] = good[a];
                c.dt[2] = good[b];
                c.dt[1] = good[sdt]; /* self's dtype may differ */
                EXPECT2(c, a == b ? OK : INVALID);
            }
}

Test(aclnn2d, step3_formats)
{
    const int bad[] = { ACL_FORMAT_ND, ACL_FORMAT_NHWC, ACL_FORMAT_NCDHW, ACL_FORMAT_NDHWC, ACL_FORMAT_HWCN,
                        ACL_FORMAT_NC, ACL_FORMAT_UNDEFINED, ACL_FORMAT_NC1HWC0, ACL_FORMAT_FRACTAL_Z,
                        ACL_FORMAT_NC1HWC0_C04, ACL_FORMAT_FRACTAL_NZ, ACL_FORMAT_NDC1HWC0, ACL_FRACTAL_Z_3D, 50, 54 };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        for (int t = 0; t < 3; t++) {
            cfg c = base2();
            c.fmt[t] = bad[i];
            EXPECT2(c, INVALID);
        }
    /* 4-D: gradOutput and gradInput must be NCHW; self may be NCL */
    cfg c = base2();
    c.fmt[0] = ACL_FORMAT_NCL;
    EXPECT2(c, INVALID);
    c = base2();
    c.fmt[2] = ACL_FORMAT_NCL;
    EXPECT2(c, INVALID);
    c = base2();
    c.fmt[1] = ACL_FORMAT_NCL;
    EXPECT2(c, OK);
    /* 3-D (unbatched C,H,W): NCHW or NCL each */
    for (int m = 0; m < 8; m++) {
        c = base2();
        for (int t = 0; t < 3; t++) {
            c.rank[t] = 3;
            memmove(c.dims[t], c.dims[t] + 1, 3 * sizeof(int64_t));
            c.fmt[t] = (m >> t) & 1 ? ACL_FORMAT_NCL : ACL_FORMAT_NCHW;
        }
        EXPECT2(c, OK);
    }
    /* dtype is checked before format: both wrong is still 161002, never something else */
    c = base2();
    c.dt[0] = ACL_INT64;
    c.fmt[0] = ACL_FORMAT_ND;
    EXPECT2(c, INVALID);
}

Test(aclnn2d, step4_ranks_dims_arrays)
{
    cfg c;
    for (int r = 1; r <= 6; r++) {
        if (r == 3 || r == 4)
            continue;
        c = base2();
        for (int t = 0; t < 3; t++) {
            c.rank[t] = r;
            for (int d = 0; d < r; d++)
                c.dims[t][d] = 2;
        }
        EXPECT2(c, INVALID);
    }
    /* ranks differ */
    c = base2();
    c.rank[2] = 3;
    memmove(c.dims[2], c.dims[2] + 1, 3 * sizeof(int64_t));
    EXPECT2(c, INVALID);
    c = base2();
    c.rank[1] = 3;
    memmove(c.dims[1], c.dims[1] + 1, 3 * sizeof(int64_t));
    EXPECT2(c, INVALID);
    /* negative dims */
    for (int t = 0; t < 3; t++) {
        c = base2();
        c.dims[t][0] = -1;
        EXPECT2(c, INVALID);
    }
    /* kernelSize: length 1 or 2, values > 0 */
    c = base2();
    c.nk = 0;
    EXPECT2(c, INVALID);
    c = base2();
    c.nk = 3;
    c.k[2] = 2;
    EXPECT2(c, INVALID);
    c = base2();
    c.nk = 1;
    EXPECT2(c, OK);
    c = base2();
    c.k[1] = 0;
    EXPECT2(c, INVALID);
    c = base2();
    c.k[0] = -2;
    EXPECT2(c, INVALID);
    /* stride: length 0 (= kernel), 1 or 2, values > 0 */
    c = base2();
    c.ns = 0;
    EXPECT2(c, OK);
    for (int i = 0; i < 16; i++)
        cr_expect_eq(gi_buf[i], 0.25f, "empty stride must equal stride = kernel");
    c = base2();
    c.ns = 1;
    EXPECT2(c, OK);
    c = base2();
    c.ns = 3;
    c.s[2] = 2;
    EXPECT2(c, INVALID);
    c = base2();
    c.s[0] = 0;
    EXPECT2(c, INVALID);
    c = base2();
    c.s[1] = -1;
    EXPECT2(c, INVALID);
    /* padding: length 1 or 2 */
    c = base2();
    c.np = 0;
    EXPECT2(c, INVALID);
    c = base2();
    c.np = 3;
    EXPECT2(c, INVALID);
    c = base2();
    c.np = 1;
    EXPECT2(c, OK);
}

Test(aclnn2d, step5_padding)
{
    cfg c = base2();
    c.p[0] = -1;
    EXPECT2(c, INVALID);
    c = base2();
    c.p[1] = -1;
    EXPECT2(c, INVALID);
    /* 2*pad == kernel is fine: k 2 p 1 s 2 on 4: O = (4+2-2)/2+1 = 3 */
    c = base2();
    c.p[0] = c.p[1] = 1;
    c.dims[0][2] = c.dims[0][3] = 3;
    EXPECT2(c, OK);
    /* 2*pad > kernel: k 3 p 2 (the shape would be consistent: O = (4+4-3)/2+1 = 3) */
    c = base2();
    c.k[0] = c.k[1] = 3;
    c.p[0] = c.p[1] = 2;
    c.dims[0][2] = c.dims[0][3] = 3;
    EXPECT2(c, INVALID);
    /* per axis: W alone violates it */
    c = base2();
    c.k[0] = 4;
    c.k[1] = 3;
    c.s[0] = c.s[1] = 1;
    c.p[0] = 2;
    c.p[1] = 2;
    c.dims[0][2] = 5; /* (4+4-4)/1+1 */
    c.dims[0][3] = 6; /* (4+4-3)/1+1 */
    EXPECT2(c, INVALID);
    c.p[1] = 1;
    c.dims[0][3] = 4; /* (4+2-3)/1+1 */
    EXPECT2(c, OK);
}

Test(aclnn2d, step6_cube_math_type)
{
    for (int cube = -128; cube < 128; cube++) {
        cfg c = base2();
        c.cube = cube;
        aclnnStatus st = run(2, &c);
        cr_assert_eq(st, cube >= 0 && cube <= 3 ? OK : INVALID, "cubeMathType %d: %d", cube, st);
    }
}

Test(aclnn2d, step7_self_shape)
{
    cfg c = base2();
    c.dims[1][3] = 5;
    EXPECT2(c, INVALID);
    c = base2();
    c.dims[1][1] = 2;
    EXPECT2(c, INVALID);
    /* self's shape must equal gradInput's, even if gradOutput fits self */
    c = base2();
    c.dims[2][2] = c.dims[2][3] = 5; /* gradInput 5x5: O = (5-2)/2+1 = 2 fits too */
    EXPECT2(c, INVALID);
    c.dims[1][2] = c.dims[1][3] = 5;
    EXPECT2(c, OK);
}

Test(aclnn2d, step8_grad_output_shape)
{
    const int64_t bad[][4] = { { 1, 1, 3, 2 }, { 1, 1, 2, 3 }, { 1, 1, 1, 2 }, { 2, 1, 2, 2 }, { 1, 2, 2, 2 },
                               { 1, 1, 4, 4 }, { 1, 1, 0, 2 } };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cfg c = base2();
        memcpy(c.dims[0], bad[i], sizeof bad[i]);
        EXPECT2(c, INVALID);
    }
    /* ceil mode changes the inferred shape: 5 with k 2 s 2 gives 2 (floor) or 3 (ceil) */
    cfg c = base2();
    c.dims[1][2] = c.dims[1][3] = c.dims[2][2] = c.dims[2][3] = 5;
    EXPECT2(c, OK);
    c.ceil_mode = true;
    EXPECT2(c, INVALID);
    c.dims[0][2] = c.dims[0][3] = 3;
    EXPECT2(c, OK);
    /* unbatched too */
    c = base2();
    for (int t = 0; t < 3; t++) {
        c.rank[t] = 3;
        memmove(c.dims[t], c.dims[t] + 1, 3 * sizeof(int64_t));
    }
    c.dims[0][1] = 3;
    EXPECT2(c, INVALID);
}

Test(aclnn2d, step9_empty)
{
    /* N = 0 everywhere: success, workspace 0 */
    cfg c = base2();
    for (int t = 0; t < 3; t++)
        c.dims[t][0] = 0;
    EXPECT2(c, OK);
    c = base2();
    for (int t = 0; t < 3; t++)
        c.dims[t][1] = 0;
    EXPECT2(c, OK);
    /* H = 0 in the input: O = (0-2)/2+1 = 0 */
    c = base2();
    c.dims[1][2] = c.dims[2][2] = 0;
    c.dims[0][2] = 0;
    EXPECT2(c, OK);
    /* 2D checks the gradOutput shape (step 8) before the empty shortcut (step 9), unlike 3D */
    c = base2();
    for (int t = 0; t < 3; t++)
        c.dims[t][0] = 0;
    c.dims[0][2] = 3;
    EXPECT2(c, INVALID);
    c = base2();
    for (int t = 0; t < 3; t++)
        c.dims[t][0] = 0;
    c.k[0] = 0; /* kernel values (step 4) too */
    EXPECT2(c, INVALID);
    /* an empty gradOutput with a non-empty gradInput: W = 1, k 4, p 1, s 1: O = (1+2-4)/1+1 = 0;
       gradInput is filled with +0.0 */
    c = base2();
    c.k[0] = 1;
    c.k[1] = 4;
    c.s[0] = c.s[1] = 1;
    c.p[1] = 1;
    c.dims[1][3] = c.dims[2][3] = 1;
    c.dims[0][2] = 4;
    c.dims[0][3] = 0;
    cr_assert_eq(run(2, &c), OK);
    for (int i = 0; i < 4; i++)
        cr_assert_eq(pgt_f32_bits(gi_buf[i]), 0u, "gradInput[%d] = %a, expected +0.0", i, (double)gi_buf[i]);
    cr_assert_eq(gi_buf[4], -7.0f, "write past gradInput");
}

Test(aclnn2d, workspace_size_reported)
{
    cfg c = base2();
    uint64_t ws = 777;
    aclOpExecutor *ex = NULL;
    aclTensor *go = pgt_acl_dense(c.dims[0], 4, ACL_FLOAT, ACL_FORMAT_NCHW, go_buf);
    aclTensor *gi = pgt_acl_dense(c.dims[2], 4, ACL_FLOAT, ACL_FORMAT_NCHW, gi_buf);
    aclIntArray *k = aclCreateIntArray(c.k, 2), *p = aclCreateIntArray(c.p, 2);
    cr_assert_eq(aclnnAvgPool2dBackwardGetWorkspaceSize(go, gi, k, NULL, p, false, true, 0, 0, gi, &ws, &ex), OK);
    cr_assert_neq(ws, 777u, "workspaceSize not written");
    cr_assert_not_null(ex);
    cr_assert_eq(aclDestroyAclOpExecutor(ex), OK); /* a planned executor that is not run */
    cr_assert_eq(aclDestroyAclOpExecutor(NULL), OK);
    /* empty tensors: workspace 0 */
    int64_t z[4] = { 0, 1, 4, 4 }, zo[4] = { 0, 1, 2, 2 };
    aclTensor *ezi = pgt_acl_dense(z, 4, ACL_FLOAT, ACL_FORMAT_NCHW, gi_buf);
    aclTensor *ezo = pgt_acl_dense(zo, 4, ACL_FLOAT, ACL_FORMAT_NCHW, go_buf);
    ws = 777;
    cr_assert_eq(aclnnAvgPool2dBackwardGetWorkspaceSize(ezo, ezi, k, NULL, p, false, true, 0, 0, ezi, &ws, &ex), OK);
    cr_assert_eq(ws, 0u);
    cr_assert_eq(aclnnAvgPool2dBackward(NULL, 0, ex, NULL), OK);
    aclDestroyTensor(go);
    aclDestroyTensor(gi);
    aclDestroyTensor(ezi);
    aclDestroyTensor(ezo);
    aclDestroyIntArray(k);
    aclDestroyIntArray(p);
}

/* ================================================================== 3D */

Test(aclnn3d, baseline_and_values)
{
    cfg c = base3();
    cr_assert_eq(run(3, &c), OK);
    for (int i = 0; i < 64; i++)
        cr_assert_eq(gi_buf[i], 0.125f);
}

Test(aclnn3d, step1_null_pointers)
{
    const unsigned each[] = { N_WS, N_EX, N_GO, N_SELF, N_K, N_S, N_P, N_GI };
    for (size_t i = 0; i < sizeof each / sizeof each[0]; i++) {
        cfg c = base3();
        c.nulls = each[i];
        EXPECT3(c, NULLPTR);
    }
    /* NULL executor / workspaceSize come first: everything else NULL or invalid too */
    cfg c = base3();
    c.nulls = N_EX | N_GO | N_SELF | N_K | N_S | N_P | N_GI;
    EXPECT3(c, NULLPTR);
    c = base3();
    c.nulls = N_WS | N_GO;
    EXPECT3(c, NULLPTR);
    /* NULL stride with an invalid dtype: the NULL check wins */
    c = base3();
    c.nulls = N_S;
    c.dt[0] = ACL_INT32;
    EXPECT3(c, NULLPTR);
    /* stride is required, but an empty array is fine (= kernel) */
    c = base3();
    c.ns = 0;
    cr_assert_eq(run(3, &c), OK);
    for (int i = 0; i < 64; i++)
        cr_assert_eq(gi_buf[i], 0.125f, "empty stride must equal stride = kernel");
}

Test(aclnn3d, step2_dtypes)
{
    const int bad[] = { ACL_DT_UNDEFINED, ACL_INT8, ACL_INT32, ACL_DOUBLE, ACL_BOOL, ACL_INT64, 28 };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        for (int t = 0; t < 3; t++) {
            cfg c = base3();
            c.dt[t] = bad[i];
            EXPECT3(c, INVALID);
        }
    const int good[] = { ACL_FLOAT, ACL_FLOAT16, ACL_BF16 };
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
            for (int sdt = 0; sdt < 3; sdt++) {
                cfg c = base3();
                c.dt[0] = good[a];
                c.dt[2] = good[b];
                c.dt[1] = good[sdt];
                EXPECT3(c, a == b ? OK : INVALID);
            }
}

Test(aclnn3d, step3_ranks_shapes_arrays)
{
    cfg c;
    const int bad_ranks[] = { 2, 3, 6 };
    for (size_t i = 0; i < 3; i++) {
        c = base3();
        for (int t = 0; t < 3; t++) {
            c.rank[t] = bad_ranks[i];
            for (int d = 0; d < 6; d++)
                c.dims[t][d] = 2;
        }
        EXPECT3(c, INVALID);
    }
    /* rank 4 (unbatched C, D, H, W) is fine */
    c = base3();
    for (int t = 0; t < 3; t++) {
        c.rank[t] = 4;
        memmove(c.dims[t], c.dims[t] + 1, 4 * sizeof(int64_t));
    }
    EXPECT3(c, OK);
    /* self / output ranks differ from gradOutput's */
    for (int t = 1; t < 3; t++) {
        c = base3();
        c.rank[t] = 4;
        memmove(c.dims[t], c.dims[t] + 1, 4 * sizeof(int64_t));
        EXPECT3(c, INVALID);
    }
    /* self.shape != output.shape */
    c = base3();
    c.dims[1][4] = 5;
    EXPECT3(c, INVALID);
    /* kernelSize length 1 or 3 */
    c = base3();
    c.nk = 2;
    EXPECT3(c, INVALID);
    c = base3();
    c.nk = 0;
    EXPECT3(c, INVALID);
    c = base3();
    c.nk = 1;
    EXPECT3(c, OK);
    /* padding length 1 or 3 */
    c = base3();
    c.np = 2;
    EXPECT3(c, INVALID);
    c = base3();
    c.np = 0;
    EXPECT3(c, INVALID);
    c = base3();
    c.np = 1;
    EXPECT3(c, OK);
    /* stride length 0, 1 or 3 */
    c = base3();
    c.ns = 2;
    EXPECT3(c, INVALID);
    c = base3();
    c.ns = 4;
    c.s[3] = 2;
    EXPECT3(c, INVALID);
    c = base3();
    c.ns = 1;
    EXPECT3(c, OK);
    /* negative dims */
    for (int t = 0; t < 3; t++) {
        c = base3();
        c.dims[t][1] = -1;
        if (t >= 1) {
            c.dims[1][1] = -1;
            c.dims[2][1] = -1;
        }
        EXPECT3(c, INVALID);
    }
}

Test(aclnn3d, step4_formats)
{
    /* any common non-private format passes, including ND and 2D formats */
    const int ok[] = { ACL_FORMAT_ND, ACL_FORMAT_NCDHW, ACL_FORMAT_NDHWC, ACL_FORMAT_NCHW, ACL_FORMAT_NHWC,
                       ACL_FORMAT_NCL, ACL_FORMAT_NC, ACL_FORMAT_HWCN };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        cfg c = base3();
        c.fmt[0] = c.fmt[2] = ok[i];
        EXPECT3(c, OK);
    }
    /* gradOutput.format != output.format */
    cfg c = base3();
    c.fmt[2] = ACL_FORMAT_ND;
    EXPECT3(c, INVALID);
    c = base3();
    c.fmt[0] = ACL_FORMAT_NDHWC;
    EXPECT3(c, INVALID);
    /* private formats, even when equal */
    const int priv[] = { 3, 4, 12, 29, 32, 33, 50, 51, 52, 53, 54 };
    for (size_t i = 0; i < sizeof priv / sizeof priv[0]; i++) {
        c = base3();
        c.fmt[0] = c.fmt[2] = priv[i];
        EXPECT3(c, INVALID);
    }
    /* self's format is not part of the rule */
    c = base3();
    c.fmt[1] = ACL_FORMAT_NDC1HWC0;
    EXPECT3(c, OK);
}

/* Step 5: an empty gradOutput succeeds before the value checks and zero-fills the output. */
Test(aclnn3d, step5_empty_grad_output)
{
    const int64_t bad_k[][3] = { { 0, 0, 0 }, { -1, 2, 2 }, { 2, 0, 2 } };
    for (int i = 0; i < 3; i++) {
        cfg c = base3();
        c.dims[0][2] = 0;
        memcpy(c.k, bad_k[i], sizeof bad_k[i]);
        c.s[1] = 0;
        c.p[2] = 9; /* > k/2 */
        c.p[0] = -3;
        cr_assert_eq(run(3, &c), OK, "empty gradOutput with invalid values %d", i);
        for (int j = 0; j < 64; j++)
            cr_assert_eq(pgt_f32_bits(gi_buf[j]), 0u, "output[%d] = %a, expected +0.0", j, (double)gi_buf[j]);
        cr_assert_eq(gi_buf[64], -7.0f, "write past the output");
    }
    /* also with a gradOutput shape that does not match the output's (the shape check is step 7) */
    cfg c = base3();
    c.dims[0][0] = 3;
    c.dims[0][1] = 0;
    EXPECT3(c, OK);
    /* steps 1-4 still apply before */
    c = base3();
    c.dims[0][2] = 0;
    c.nk = 2;
    EXPECT3(c, INVALID);
    c = base3();
    c.dims[0][2] = 0;
    c.fmt[2] = ACL_FORMAT_ND;
    EXPECT3(c, INVALID);
    c = base3();
    c.dims[0][2] = 0;
    c.dt[2] = ACL_FLOAT16;
    EXPECT3(c, INVALID);
    c = base3();
    c.dims[0][2] = 0;
    c.nulls = N_K;
    EXPECT3(c, NULLPTR);
    /* in f16 and bf16 the zero fill is +0.0 bits too */
    const int halves[] = { ACL_FLOAT16, ACL_BF16 };
    for (int h = 0; h < 2; h++) {
        c = base3();
        c.dims[0][2] = 0;
        c.dt[0] = c.dt[1] = c.dt[2] = halves[h];
        c.k[0] = 0;
        cr_assert_eq(run(3, &c), OK);
        const uint16_t *u = (const uint16_t *)gi_buf;
        for (int j = 0; j < 64; j++)
            cr_assert_eq(u[j], 0u, "half output[%d] = 0x%04x", j, u[j]);
        cr_assert_eq(gi_buf[32], -7.0f, "write past the half output");
    }
}

Test(aclnn3d, step6_values)
{
    cfg c;
    for (int a = 0; a < 3; a++) {
        c = base3();
        c.k[a] = 0;
        EXPECT3(c, INVALID);
        c = base3();
        c.k[a] = -2;
        EXPECT3(c, INVALID);
        c = base3();
        c.s[a] = 0;
        EXPECT3(c, INVALID);
        c = base3();
        c.s[a] = -2;
        EXPECT3(c, INVALID);
        c = base3();
        c.p[a] = -1;
        EXPECT3(c, INVALID);
        /* 2*pad > kernel: k 3 p 2 */
        c = base3();
        c.k[a] = 3;
        c.s[a] = 1;
        c.p[a] = 2;
        c.dims[0][2 + a] = 4 + 4 - 3 + 1;
        EXPECT3(c, INVALID);
        /* 2*pad == kernel passes: k 2 p 1 s 2: O = (4+2-2)/2+1 = 3 */
        c = base3();
        c.p[a] = 1;
        c.dims[0][2 + a] = 3;
        EXPECT3(c, OK);
    }
    /* length-1 arrays expand: p {1} with k {2} */
    c = base3();
    c.np = 1;
    c.p[0] = 1;
    c.dims[0][2] = c.dims[0][3] = c.dims[0][4] = 3;
    EXPECT3(c, OK);
    c.p[0] = 2;
    EXPECT3(c, INVALID);
}

Test(aclnn3d, step7_shapes)
{
    const int64_t bad[][5] = { { 1, 1, 3, 2, 2 }, { 1, 1, 2, 2, 1 }, { 2, 1, 2, 2, 2 }, { 1, 2, 2, 2, 2 },
                               { 1, 1, 4, 4, 4 } };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cfg c = base3();
        memcpy(c.dims[0], bad[i], sizeof bad[i]);
        EXPECT3(c, INVALID);
    }
    /* a negative inferred size: output D = 0, k 2 s 1: O = (0-2)/1+1 = -1; gradOutput non-empty */
    cfg c = base3();
    c.dims[1][2] = c.dims[2][2] = 0;
    c.s[0] = 1;
    c.dims[0][2] = 1;
    EXPECT3(c, INVALID);
    /* ceil mode: 5 -> 3 */
    c = base3();
    for (int t = 1; t < 3; t++)
        c.dims[t][2] = c.dims[t][3] = c.dims[t][4] = 5;
    c.ceil_mode = true;
    EXPECT3(c, INVALID);
    c.dims[0][2] = c.dims[0][3] = c.dims[0][4] = 3;
    EXPECT3(c, OK);
}

/* ================================================================== execute phase */

static aclOpExecutor *plan_ok(int sd, aclTensor **keep)
{
    static int64_t go2[4] = { 1, 1, 2, 2 }, gi2[4] = { 1, 1, 4, 4 }, go3[5] = { 1, 1, 2, 2, 2 }, gi3[5] = { 1, 1, 4, 4, 4 };
    int64_t k[3] = { 2, 2, 2 }, p[3] = { 0, 0, 0 };
    keep[0] = sd == 2 ? pgt_acl_dense(go2, 4, ACL_FLOAT, ACL_FORMAT_NCHW, go_buf)
                      : pgt_acl_dense(go3, 5, ACL_FLOAT, ACL_FORMAT_NCDHW, go_buf);
    keep[1] = sd == 2 ? pgt_acl_dense(gi2, 4, ACL_FLOAT, ACL_FORMAT_NCHW, gi_buf)
                      : pgt_acl_dense(gi3, 5, ACL_FLOAT, ACL_FORMAT_NCDHW, gi_buf);
    aclIntArray *ka = aclCreateIntArray(k, (uint64_t)sd), *sa = aclCreateIntArray(k, (uint64_t)sd),
                *pa = aclCreateIntArray(p, (uint64_t)sd);
    uint64_t ws;
    aclOpExecutor *ex = NULL;
    aclnnStatus st = sd == 2 ? aclnnAvgPool2dBackwardGetWorkspaceSize(keep[0], keep[1], ka, sa, pa, false, true, 0, 0,
                                                                      keep[1], &ws, &ex)
                             : aclnnAvgPool3dBackwardGetWorkspaceSize(keep[0], keep[1], ka, sa, pa, false, true, 0,
                                                                      keep[1], &ws, &ex);
    cr_assert_eq(st, OK);
    aclDestroyIntArray(ka);
    aclDestroyIntArray(sa);
    aclDestroyIntArray(pa);
    return ex;
}

Test(execute, null_executor_and_workspace)
{
    char ws[64];
    cr_assert_eq(aclnnAvgPool2dBackward(ws, sizeof ws, NULL, NULL), NULLPTR);
    cr_assert_eq(aclnnAvgPool3dBackward(ws, sizeof ws, NULL, NULL), NULLPTR);
    cr_assert_eq(aclnnAvgPool2dBackward(NULL, 0, NULL, NULL), NULLPTR);
    for (int sd = 2; sd <= 3; sd++) {
        aclTensor *keep[2];
        aclOpExecutor *ex = plan_ok(sd, keep);
        /* workspaceSize > 0 with a NULL workspace */
        aclnnStatus st = sd == 2 ? aclnnAvgPool2dBackward(NULL, 64, ex, NULL) : aclnnAvgPool3dBackward(NULL, 64, ex, NULL);
        cr_assert_eq(st, NULLPTR, "%dD: workspaceSize 64 with NULL workspace: %d", sd, st);
        /* the failed call did not run it: it still runs, with a (larger than needed) workspace */
        for (int i = 0; i < 64; i++)
            gi_buf[i] = -7.0f;
        for (int i = 0; i < 8; i++)
            go_buf[i] = 1.0f;
        st = sd == 2 ? aclnnAvgPool2dBackward(ws, sizeof ws, ex, NULL) : aclnnAvgPool3dBackward(ws, sizeof ws, ex, NULL);
        cr_assert_eq(st, OK);
        cr_assert_eq(gi_buf[0], sd == 2 ? 0.25f : 0.125f);
        aclDestroyTensor(keep[0]);
        aclDestroyTensor(keep[1]);
    }
}

/* ================================================================== runtime stand-ins */

Test(runtime, calls)
{
    cr_assert_eq(aclInit(NULL), ACL_SUCCESS);
    cr_assert_eq(aclrtSetDevice(0), ACL_SUCCESS);
    aclrtStream s = NULL;
    cr_assert_eq(aclrtCreateStream(&s), ACL_SUCCESS);
    void *d = NULL;
    cr_assert_eq(aclrtMalloc(&d, 100, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    cr_assert_not_null(d);
    char src[100], dst[100];
    for (int i = 0; i < 100; i++)
        src[i] = (char)i;
    cr_assert_eq(aclrtMemcpy(d, 100, src, 100, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
    cr_assert_eq(aclrtMemcpy(dst, 100, d, 100, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    cr_assert_arr_eq(dst, src, 100);
    cr_assert_eq(aclrtMemcpy(dst, 10, d, 100, ACL_MEMCPY_DEVICE_TO_HOST), ACL_ERROR_INVALID_PARAM);
    int64_t v = 0;
    cr_assert_eq(aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, 1), ACL_SUCCESS);
    cr_assert_eq(aclrtGetSysParamOpt(ACL_OPT_DETERMINISTIC, &v), ACL_SUCCESS);
    cr_assert_eq(v, 1);
    cr_assert_eq(aclrtSynchronizeStream(s), ACL_SUCCESS);
    cr_assert_eq(aclrtFree(d), ACL_SUCCESS);
    cr_assert_eq(aclrtDestroyStream(s), ACL_SUCCESS);
    cr_assert_eq(aclrtResetDevice(0), ACL_SUCCESS);
    cr_assert_eq(aclFinalize(), ACL_SUCCESS);
}

/* ================================================================== native API */

typedef struct native_setup {
    poolgrad_params pa;
    poolgrad_tensor go, gi;
} native_setup;

/* 2D f32: gradOutput 1x1x2x2 over go_buf, gradInput 1x1x4x4 over gi_buf, kernel 2 stride 2. */
static native_setup nbase(void)
{
    native_setup s;
    s.pa = pgt_params(2, 2, 2, 0, false, true, 0);
    const int64_t o[4] = { 1, 1, 2, 2 }, i[4] = { 1, 1, 4, 4 };
    cr_assert_eq(poolgrad_tensor_init_contiguous(&s.go, POOLGRAD_F32, 4, o, go_buf), POOLGRAD_OK);
    cr_assert_eq(poolgrad_tensor_init_contiguous(&s.gi, POOLGRAD_F32, 4, i, gi_buf), POOLGRAD_OK);
    return s;
}

static poolgrad_status nplan(const native_setup *s)
{
    poolgrad_plan *plan = (poolgrad_plan *)&plan; /* garbage: must be reset to NULL on failure */
    poolgrad_status st = poolgrad_plan_create(&s->pa, &s->go, &s->gi, &plan);
    if (st != POOLGRAD_OK)
        cr_assert_null(plan, "plan not set to NULL on failure (status %d)", st);
    else
        poolgrad_plan_destroy(plan);
    return st;
}

#define NEXPECT(s, want) cr_expect_eq(nplan(&(s)), (want), "line %d: expected %s", __LINE__, #want)

Test(native, statuses)
{
    native_setup s = nbase();
    NEXPECT(s, POOLGRAD_OK);
    poolgrad_plan *plan = NULL;
    cr_assert_eq(poolgrad_plan_create(NULL, &s.go, &s.gi, &plan), POOLGRAD_ERR_NULL_POINTER);
    cr_assert_eq(poolgrad_plan_create(&s.pa, NULL, &s.gi, &plan), POOLGRAD_ERR_NULL_POINTER);
    cr_assert_eq(poolgrad_plan_create(&s.pa, &s.go, NULL, &plan), POOLGRAD_ERR_NULL_POINTER);
    cr_assert_eq(poolgrad_plan_create(&s.pa, &s.go, &s.gi, NULL), POOLGRAD_ERR_NULL_POINTER);
    /* NULL storage of a non-empty view */
    s = nbase();
    s.gi.storage = NULL;
    NEXPECT(s, POOLGRAD_ERR_NULL_POINTER);
    /* dtype */
    s = nbase();
    s.gi.dtype = POOLGRAD_F16;
    s.gi.storage_numel = 16;
    NEXPECT(s, POOLGRAD_ERR_DTYPE);
    s = nbase();
    s.go.dtype = (poolgrad_dtype)3;
    NEXPECT(s, POOLGRAD_ERR_DTYPE);
    /* rank */
    s = nbase();
    s.pa.spatial_dims = 3;
    s.go.rank = s.gi.rank = 3; /* 3D needs rank 4 or 5 */
    NEXPECT(s, POOLGRAD_ERR_RANK);
    s = nbase();
    s.go.rank = 3;
    NEXPECT(s, POOLGRAD_ERR_RANK);
    s = nbase();
    s.go.rank = s.gi.rank = 6;
    NEXPECT(s, POOLGRAD_ERR_RANK);
    s = nbase();
    s.go.rank = s.gi.rank = 2;
    NEXPECT(s, POOLGRAD_ERR_RANK);
    /* params */
    const struct { int64_t k, s, p; } badp[] = { { 0, 2, 0 }, { -1, 2, 0 }, { 2, 0, 0 }, { 2, -1, 0 }, { 2, 2, -1 },
                                                 { 3, 2, 2 }, { 1, 1, 1 } };
    for (size_t i = 0; i < sizeof badp / sizeof badp[0]; i++) {
        s = nbase();
        s.pa.kernel[1] = badp[i].k;
        s.pa.stride[1] = badp[i].s;
        s.pa.padding[1] = badp[i].p;
        NEXPECT(s, POOLGRAD_ERR_PARAM);
    }
    s = nbase();
    s.pa.spatial_dims = 1;
    NEXPECT(s, POOLGRAD_ERR_PARAM);
    s = nbase();
    s.pa.spatial_dims = 4;
    NEXPECT(s, POOLGRAD_ERR_PARAM);
    /* shape */
    s = nbase();
    s.go.shape[3] = 3;
    s.go.storage_numel = 6;
    NEXPECT(s, POOLGRAD_ERR_SHAPE);
    s = nbase();
    s.gi.shape[2] = -4;
    NEXPECT(s, POOLGRAD_ERR_SHAPE);
    /* overflow: 2^62 x 4 elements */
    s = nbase();
    s.pa.kernel[0] = s.pa.stride[0] = 1;
    s.gi.shape[2] = s.go.shape[2] = (int64_t)1 << 62;
    NEXPECT(s, POOLGRAD_ERR_OVERFLOW);
    /* view outside its storage, negative offset */
    s = nbase();
    s.gi.storage_numel = 15;
    NEXPECT(s, POOLGRAD_ERR_VIEW);
    s = nbase();
    s.gi.offset = 1;
    NEXPECT(s, POOLGRAD_ERR_VIEW);
    s = nbase();
    s.go.offset = -1;
    NEXPECT(s, POOLGRAD_ERR_VIEW);
    s = nbase();
    s.go.strides[3] = -1; /* reaches element -1 */
    NEXPECT(s, POOLGRAD_ERR_VIEW);
    /* alias: gradInput reaching an element twice, or overlapping gradOutput */
    s = nbase();
    s.gi.strides[3] = 0;
    NEXPECT(s, POOLGRAD_ERR_ALIAS);
    s = nbase();
    s.gi.strides[2] = 2; /* rows overlap */
    NEXPECT(s, POOLGRAD_ERR_ALIAS);
    s = nbase();
    s.go.storage = gi_buf + 12;
    NEXPECT(s, POOLGRAD_ERR_ALIAS);
    /* gradOutput may broadcast (stride 0): fine */
    s = nbase();
    s.go.strides[2] = s.go.strides[3] = 0;
    NEXPECT(s, POOLGRAD_OK);
}

Test(native, execute_statuses)
{
    native_setup s = nbase();
    poolgrad_plan *plan = NULL;
    cr_assert_eq(poolgrad_plan_create(&s.pa, &s.go, &s.gi, &plan), POOLGRAD_OK);
    cr_assert_not_null(plan);
    cr_assert_eq(poolgrad_execute(NULL, NULL, 0, 1), POOLGRAD_ERR_NULL_POINTER);
    for (int i = 0; i < 16; i++)
        gi_buf[i] = -7.0f;
    cr_assert_eq(poolgrad_execute(plan, NULL, 0, -1), POOLGRAD_ERR_THREADS);
    cr_assert_eq(gi_buf[0], -7.0f, "a failed execute wrote");
    size_t ws = poolgrad_plan_workspace_size(plan);
    if (ws > 0) {
        cr_assert_eq(poolgrad_execute(plan, NULL, ws, 1), POOLGRAD_ERR_WORKSPACE);
        char tiny[1];
        cr_assert_eq(poolgrad_execute(plan, tiny, ws - 1, 1), POOLGRAD_ERR_WORKSPACE);
        cr_assert_eq(gi_buf[0], -7.0f, "a failed execute wrote");
    }
    void *w = ws ? malloc(ws) : NULL;
    for (int i = 0; i < 4; i++)
        go_buf[i] = 1.0f;
    cr_assert_eq(poolgrad_execute(plan, w, ws, 1), POOLGRAD_OK);
    cr_assert_eq(gi_buf[5], 0.25f);
    cr_assert_eq(poolgrad_execute(plan, w, ws, 0), POOLGRAD_OK); /* executable again */
    cr_assert_eq(gi_buf[5], 0.25f);
    const char *name = poolgrad_plan_kernel_name(plan);
    cr_assert(name && strstr(name, "avgpool2d_bwd_f32") == name, "kernel name '%s'", name ? name : "(null)");
    free(w);
    poolgrad_plan_destroy(plan);
    poolgrad_plan_destroy(NULL);
    cr_assert_eq(poolgrad_avgpool_backward(&s.pa, &s.go, &s.gi, -1), POOLGRAD_ERR_THREADS);
    cr_assert_eq(poolgrad_avgpool_backward(&s.pa, &s.go, &s.gi, 2), POOLGRAD_OK);
}

Test(native, output_shape)
{
    poolgrad_params pa = pgt_params(2, 3, 2, 1, true, true, 0);
    int64_t in[4] = { 2, 3, 4, 5 }, out[4] = { -9, -9, -9, -9 };
    cr_assert_eq(poolgrad_output_shape(&pa, 4, in, out), POOLGRAD_OK);
    /* H: (4+2-3+1)/2+1 = 3, 2*2 < 5 keeps it; W: (5+2-3+1)/2+1 = 3, 2*2 < 6 keeps it */
    cr_assert(out[0] == 2 && out[1] == 3 && out[2] == 3 && out[3] == 3);
    cr_assert_eq(poolgrad_output_shape(&pa, 5, in, out), POOLGRAD_ERR_RANK);
    cr_assert_eq(poolgrad_output_shape(&pa, 2, in, out), POOLGRAD_ERR_RANK);
    cr_assert_eq(poolgrad_output_shape(NULL, 4, in, out), POOLGRAD_ERR_NULL_POINTER);
    in[2] = -1;
    cr_assert_eq(poolgrad_output_shape(&pa, 4, in, out), POOLGRAD_ERR_SHAPE);
    pa.padding[0] = 2;
    cr_assert_eq(poolgrad_output_shape(&pa, 4, in, out), POOLGRAD_ERR_PARAM);
}

Test(native, status_strings)
{
    const char *seen[12];
    for (int st = 0; st <= 11; st++) {
        const char *s = poolgrad_status_string((poolgrad_status)st);
        cr_assert(s != NULL && s[0] != '\0', "status %d", st);
        cr_assert_str_neq(s, "unknown status", "status %d has no string", st);
        for (int j = 0; j < st; j++)
            cr_assert_str_neq(s, seen[j], "statuses %d and %d share a string", j, st);
        seen[st] = s;
    }
    const int unknown[] = { 12, 13, 100, -1, 0x7fffffff };
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++)
        cr_assert_str_eq(poolgrad_status_string((poolgrad_status)unknown[i]), "unknown status");
    /* the explicit enum values are part of the ABI */
    cr_assert(POOLGRAD_OK == 0 && POOLGRAD_ERR_NULL_POINTER == 1 && POOLGRAD_ERR_DTYPE == 2 && POOLGRAD_ERR_RANK == 3 &&
              POOLGRAD_ERR_PARAM == 4 && POOLGRAD_ERR_SHAPE == 5 && POOLGRAD_ERR_OVERFLOW == 6 &&
              POOLGRAD_ERR_VIEW == 7 && POOLGRAD_ERR_ALIAS == 8 && POOLGRAD_ERR_WORKSPACE == 9 &&
              POOLGRAD_ERR_OUT_OF_MEMORY == 10 && POOLGRAD_ERR_THREADS == 11);
}

Test(native, version_and_sizes)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%d.%d.%d", POOLGRAD_VERSION_MAJOR, POOLGRAD_VERSION_MINOR, POOLGRAD_VERSION_PATCH);
    cr_assert_str_eq(POOLGRAD_VERSION_STRING, buf);
    cr_assert_str_eq(poolgrad_version_string(), POOLGRAD_VERSION_STRING);
    cr_assert_eq(poolgrad_version_number(), (unsigned)POOLGRAD_VERSION_NUMBER);
    cr_assert_eq(POOLGRAD_VERSION_NUMBER,
                 POOLGRAD_VERSION_MAJOR * 10000 + POOLGRAD_VERSION_MINOR * 100 + POOLGRAD_VERSION_PATCH);
#ifdef PGT_PROJECT_VERSION
    cr_assert_str_eq(poolgrad_version_string(), PGT_PROJECT_VERSION, "library version vs meson project version");
#endif
    cr_assert_eq(poolgrad_dtype_size(POOLGRAD_F32), 4u);
    cr_assert_eq(poolgrad_dtype_size(POOLGRAD_F16), 2u);
    cr_assert_eq(poolgrad_dtype_size(POOLGRAD_BF16), 2u);
    cr_assert_eq(poolgrad_dtype_size((poolgrad_dtype)3), 0u);
    cr_assert(POOLGRAD_F32 == 0 && POOLGRAD_F16 == 1 && POOLGRAD_BF16 == 2);
}

Test(native, tensor_initializers)
{
    poolgrad_tensor t;
    const int64_t shape[5] = { 2, 3, 4, 5, 6 };
    cr_assert_eq(poolgrad_tensor_init_contiguous(&t, POOLGRAD_F16, 5, shape, go_buf), POOLGRAD_OK);
    cr_assert(t.strides[4] == 1 && t.strides[3] == 6 && t.strides[2] == 30 && t.strides[1] == 120 && t.strides[0] == 360);
    cr_assert(t.offset == 0 && t.storage_numel == 720 && t.storage == go_buf && t.rank == 5 && t.dtype == POOLGRAD_F16);
    /* channels-last 3D: N, C, D, H, W in NDHWC memory order */
    cr_assert_eq(poolgrad_tensor_init_channels_last(&t, POOLGRAD_F32, 5, 3, shape, go_buf), POOLGRAD_OK);
    cr_assert(t.strides[1] == 1 && t.strides[4] == 3 && t.strides[3] == 18 && t.strides[2] == 90 && t.strides[0] == 360);
    /* channels-last 2D unbatched: C, H, W in HWC order */
    cr_assert_eq(poolgrad_tensor_init_channels_last(&t, POOLGRAD_F32, 3, 2, shape, go_buf), POOLGRAD_OK);
    cr_assert(t.strides[0] == 1 && t.strides[2] == 2 && t.strides[1] == 8 && t.storage_numel == 24);
    cr_assert_eq(poolgrad_tensor_init_channels_last(&t, POOLGRAD_F32, 5, 2, shape, go_buf), POOLGRAD_ERR_RANK);
    cr_assert_eq(poolgrad_tensor_init_contiguous(&t, POOLGRAD_F32, 6, shape, go_buf), POOLGRAD_ERR_RANK);
    cr_assert_eq(poolgrad_tensor_init_contiguous(&t, POOLGRAD_F32, 0, shape, go_buf), POOLGRAD_ERR_RANK);
    cr_assert_eq(poolgrad_tensor_init_contiguous(&t, (poolgrad_dtype)9, 2, shape, go_buf), POOLGRAD_ERR_DTYPE);
    const int64_t neg[2] = { 2, -1 }, big[3] = { (int64_t)1 << 40, (int64_t)1 << 40, 1 << 20 };
    cr_assert_eq(poolgrad_tensor_init_contiguous(&t, POOLGRAD_F32, 2, neg, go_buf), POOLGRAD_ERR_SHAPE);
    cr_assert_eq(poolgrad_tensor_init_contiguous(&t, POOLGRAD_F32, 3, big, go_buf), POOLGRAD_ERR_OVERFLOW);
    cr_assert_eq(poolgrad_tensor_init_contiguous(NULL, POOLGRAD_F32, 2, shape, go_buf), POOLGRAD_ERR_NULL_POINTER);
}

/* ================================================================== poolgrad_compare */

static poolgrad_compare_result cmp(poolgrad_dtype dt, const void *a, const void *e, int64_t n)
{
    poolgrad_tensor ta, te;
    int64_t shape[1] = { n };
    cr_assert_eq(poolgrad_tensor_init_contiguous(&ta, dt, 1, shape, (void *)a), POOLGRAD_OK);
    cr_assert_eq(poolgrad_tensor_init_contiguous(&te, dt, 1, shape, (void *)e), POOLGRAD_OK);
    poolgrad_compare_result r;
    memset(&r, 0x5a, sizeof r);
    cr_assert_eq(poolgrad_compare(&ta, &te, &r), POOLGRAD_OK);
    return r;
}

Test(compare, f32_crafted)
{
    float e[8] = { 1.0f, 2.0f, 3.0f, -4.0f, 0.0f, 5.0f, NAN, 8.0f };
    float a[8];
    memcpy(a, e, sizeof a);
    poolgrad_compare_result r = cmp(POOLGRAD_F32, a, e, 8);
    cr_assert(r.count == 8 && r.mismatches == 0 && r.first_mismatch == -1 && r.max_ulp == 0 && r.max_ulp_index == -1 &&
              r.max_abs_error == 0.0 && r.max_rel_error == 0.0);
    /* index 2: +3 ulps; index 5: -1 ulp; index 6: another NaN (equal) */
    a[2] = pgt_bits_f32(pgt_f32_bits(3.0f) + 3);
    a[5] = pgt_bits_f32(pgt_f32_bits(5.0f) - 1);
    a[6] = pgt_bits_f32(0xffc00001u);
    r = cmp(POOLGRAD_F32, a, e, 8);
    cr_assert_eq(r.mismatches, 2);
    cr_assert_eq(r.first_mismatch, 2);
    cr_assert_eq(r.max_ulp, 3u);
    cr_assert_eq(r.max_ulp_index, 2);
    cr_assert_eq(r.max_abs_error, 3.0 * 0x1p-22); /* ulp of 3.0 is 2^-22 */
    cr_assert_eq(r.max_rel_error, 3.0 * 0x1p-22 / 3.0);
    /* a sign flip across zero: 1 vs -1 is 2 * 0x3f800000 ulps apart; abs error 2, rel 2 */
    a[2] = 3.0f;
    a[5] = 5.0f;
    a[0] = -1.0f;
    r = cmp(POOLGRAD_F32, a, e, 8);
    cr_assert(r.mismatches == 1 && r.first_mismatch == 0 && r.max_ulp == 2u * 0x3f800000u && r.max_ulp_index == 0);
    cr_assert(r.max_abs_error == 2.0 && r.max_rel_error == 1.0 * 2.0);
    /* +0 vs -0: a mismatch of 0 ulps; expected 0 is excluded from the relative error */
    a[0] = 1.0f;
    a[4] = -0.0f;
    r = cmp(POOLGRAD_F32, a, e, 8);
    cr_assert(r.mismatches == 1 && r.first_mismatch == 4 && r.max_ulp == 0 && r.max_ulp_index == 4 &&
              r.max_abs_error == 0.0 && r.max_rel_error == 0.0);
    /* NaN vs a number: UINT64_MAX ulps, excluded from abs/rel errors */
    a[4] = 0.0f;
    a[7] = NAN;
    a[1] = 2.5f;
    r = cmp(POOLGRAD_F32, a, e, 8);
    cr_assert(r.mismatches == 2 && r.first_mismatch == 1 && r.max_ulp == UINT64_MAX && r.max_ulp_index == 7);
    cr_assert(r.max_abs_error == 0.5 && r.max_rel_error == 0.25);
}

Test(compare, halves_crafted)
{
    /* f16: 1.0 = 0x3c00; 0x3c01 is 1 ulp (2^-10) away; 0x0001 vs 0x8001 are 2 ulps apart */
    uint16_t e[4] = { 0x3c00, 0x4000, 0x0001, 0x7c00 }, a[4] = { 0x3c00, 0x4000, 0x0001, 0x7c00 };
    poolgrad_compare_result r = cmp(POOLGRAD_F16, a, e, 4);
    cr_assert(r.mismatches == 0 && r.first_mismatch == -1 && r.max_ulp == 0);
    a[1] = 0x4002;
    a[2] = 0x8001;
    r = cmp(POOLGRAD_F16, a, e, 4);
    cr_assert(r.mismatches == 2 && r.first_mismatch == 1 && r.max_ulp == 2 && r.max_ulp_index == 1);
    cr_assert_eq(r.max_abs_error, 2.0 * 0x1p-9); /* 2 ulps of 2.0 */
    cr_assert_eq(r.max_rel_error, 2.0);          /* 2^-24 vs -2^-24 */
    /* bf16: 1.0 = 0x3f80, 0x3f81 = 1 + 2^-7 */
    uint16_t eb[3] = { 0x3f80, 0xc000, 0x7fc0 }, ab[3] = { 0x3f81, 0xc000, 0x7fc1 };
    r = cmp(POOLGRAD_BF16, ab, eb, 3);
    cr_assert(r.mismatches == 1 && r.first_mismatch == 0 && r.max_ulp == 1 && r.max_ulp_index == 0);
    cr_assert(r.max_abs_error == 0x1p-7 && r.max_rel_error == 0x1p-7);
}

Test(compare, strided_and_errors)
{
    /* a 2x3 f32 view with row stride 4 against a dense 2x3: index is the logical row-major position */
    float dense[6] = { 0, 1, 2, 3, 4, 5 }, gapped[8] = { 0, 1, 2, 99, 3, 4, 7, 99 };
    poolgrad_tensor ta, te;
    int64_t shape[2] = { 2, 3 };
    cr_assert_eq(poolgrad_tensor_init_contiguous(&te, POOLGRAD_F32, 2, shape, dense), POOLGRAD_OK);
    ta = te;
    ta.storage = gapped;
    ta.strides[0] = 4;
    ta.storage_numel = 8;
    poolgrad_compare_result r;
    cr_assert_eq(poolgrad_compare(&ta, &te, &r), POOLGRAD_OK);
    cr_assert(r.count == 6 && r.mismatches == 1 && r.first_mismatch == 5 && r.max_abs_error == 2.0);
    /* errors */
    cr_assert_eq(poolgrad_compare(NULL, &te, &r), POOLGRAD_ERR_NULL_POINTER);
    cr_assert_eq(poolgrad_compare(&ta, &te, NULL), POOLGRAD_ERR_NULL_POINTER);
    poolgrad_tensor bad = ta;
    bad.dtype = POOLGRAD_F16;
    cr_assert_eq(poolgrad_compare(&bad, &te, &r), POOLGRAD_ERR_DTYPE);
    bad = ta;
    bad.rank = 1;
    cr_assert_eq(poolgrad_compare(&bad, &te, &r), POOLGRAD_ERR_RANK);
    bad = ta;
    bad.shape[1] = 2;
    cr_assert_eq(poolgrad_compare(&bad, &te, &r), POOLGRAD_ERR_SHAPE);
    bad = ta;
    bad.storage_numel = 6;
    cr_assert_eq(poolgrad_compare(&bad, &te, &r), POOLGRAD_ERR_VIEW);
}
