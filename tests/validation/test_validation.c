/*
 * Validation: every rule of docs/SEMANTICS.md section 2 through the aclnn front as rows of a table (a
 * mutation of a valid base problem, the exact status 161001 / 161002 / 0 and the exact text
 * aclGetRecentErrMsg() must give), including the observable ordering rules; the execute-phase checks;
 * then the native API's statuses and messages for the same classes, status strings, versions, dtype
 * sizes, tensor initializers and poolgrad_compare on crafted inputs.
 */
#include "expected_message.h"
#include <criterion/criterion.h>

#include "testutil.h"
#include "aclnn_runner.h"
#include "oracle.h"

/* table rows leave their trailing fields (values, checks) to the zero default */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

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

/* 2D: gradOutput 1x1x2x2, self/gradInput 1x1x4x4, kernel 2, stride 2, padding 0, f32 NCHW.
   3D: gradOutput 1x1x2x2x2, self/output 1x1x4x4x4, kernel 2, stride 2, padding 0, f32 NCDHW. */
static cfg base(int op)
{
    cfg c;
    memset(&c, 0, sizeof c);
    for (int t = 0; t < 3; t++) {
        c.rank[t] = op + 2;
        c.dt[t] = ACL_FLOAT;
        c.fmt[t] = op == 2 ? ACL_FORMAT_NCHW : ACL_FORMAT_NCDHW;
        c.dims[t][0] = c.dims[t][1] = 1;
        for (int a = 0; a < op; a++)
            c.dims[t][2 + a] = t == 0 ? 2 : 4;
    }
    for (int a = 0; a < op; a++)
        c.k[a] = c.s[a] = 2;
    c.nk = c.ns = c.np = op;
    return c;
}

/*
 * A message no validation failure gives, set before every call so that a stale message cannot pass:
 * in both error states (the aclnn front's and the native API's are separate storage when the two
 * shared libraries are loaded).
 */
static void reset_message(void)
{
    aclnnAvgPool2dBackward(NULL, 0, NULL, NULL);
    cr_assert_str_eq(aclGetRecentErrMsg(), "executor is NULL");
    poolgrad_execute(NULL, NULL, 0, 1);
    cr_assert_str_eq(poolgrad_last_error_message(), "plan is NULL");
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
    reset_message();
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

/* ================================================================== the table machinery */

/* A row runs once per value: the listed values V(...), the range R(lo, hi), or once with v = 0. */
typedef struct row {
    const char *what;
    int op;                                /* 2 or 3 */
    void (*mutate)(cfg *c, int64_t v);     /* applied to base(op) */
    aclnnStatus want;
    const char *msg;                       /* exact aclGetRecentErrMsg() text, "{}" = v; NULL: success */
    void (*post)(const char *what);        /* optional: checks of the written gradInput after success */
    const int64_t *vals;
    size_t nvals;
    bool range;
    int64_t lo, hi;
} row;

#define V(...) .vals = (const int64_t[]){ __VA_ARGS__ }, .nvals = sizeof((const int64_t[]){ __VA_ARGS__ }) / sizeof(int64_t)
#define R(a, b) .range = true, .lo = (a), .hi = (b)
#define M(name, ...) \
    static void name(cfg *c, int64_t v) { (void)c; (void)v; __VA_ARGS__; }
#define ROWS(t) t, sizeof t / sizeof t[0]

static void walk(const row *rows, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const row *r = &rows[i];
        const size_t count = r->range ? (size_t)(r->hi - r->lo + 1) : r->nvals ? r->nvals : 1;
        for (size_t j = 0; j < count; j++) {
            const int64_t v = r->range ? r->lo + (int64_t)j : r->nvals ? r->vals[j] : 0;
            cfg c = base(r->op);
            r->mutate(&c, v);
            const aclnnStatus st = run(r->op, &c);
            cr_expect_eq(st, r->want, "%dD %s (v = %lld): status %d, expected %d", r->op, r->what, (long long)v, (int)st,
                         (int)r->want);
            if (r->msg) {
                char want[512];
                pgt_expand_msg(want, sizeof want, r->msg, v);
                cr_expect_str_eq(aclGetRecentErrMsg(), want, "%dD %s (v = %lld): message \"%s\", expected \"%s\"", r->op,
                                 r->what, (long long)v, aclGetRecentErrMsg(), want);
            } else {
                cr_expect_eq(r->want, OK, "%dD %s: a failing row needs its message", r->op, r->what);
            }
            if (st == OK && r->post)
                r->post(r->what);
        }
    }
}

/* ---- post-success checks */
static void all_quarter(const char *what)
{
    for (int i = 0; i < 16; i++)
        cr_expect_eq(gi_buf[i], 0.25f, "%s: gradInput[%d] = %a, expected 0.25", what, i, (double)gi_buf[i]);
}
static void all_eighth(const char *what)
{
    for (int i = 0; i < 64; i++)
        cr_expect_eq(gi_buf[i], 0.125f, "%s: output[%d] = %a, expected 0.125", what, i, (double)gi_buf[i]);
}
static void zero_f32(const char *what, int n)
{
    for (int i = 0; i < n; i++)
        cr_expect_eq(pgt_f32_bits(gi_buf[i]), 0u, "%s: gradInput[%d] = %a, expected +0.0", what, i, (double)gi_buf[i]);
    cr_expect_eq(gi_buf[n], -7.0f, "%s: write past gradInput", what);
}
static void zero4(const char *what) { zero_f32(what, 4); }
static void zero64(const char *what) { zero_f32(what, 64); }
static void zero64_half(const char *what)
{
    const uint16_t *u = (const uint16_t *)gi_buf;
    for (int j = 0; j < 64; j++)
        cr_expect_eq(u[j], 0u, "%s: half output[%d] = 0x%04x", what, j, u[j]);
    cr_expect_eq(gi_buf[32], -7.0f, "%s: write past the half output", what);
}

/* ---- mutations (v is the row's value) */
M(m_none)
M(m_nulls, c->nulls = (unsigned)v)
M(m_dt_go, c->dt[0] = (int)v)
M(m_dt_self, c->dt[1] = (int)v)
M(m_dt_gi, c->dt[2] = (int)v)
M(m_dt3, c->dt[0] = (int)(v & 0xff), c->dt[2] = (int)(v >> 8 & 0xff), c->dt[1] = (int)(v >> 16)) /* DT3(go, gi, self) */
#define DT3(a, b, s) ((int64_t)(a) | (int64_t)(b) << 8 | (int64_t)(s) << 16)
#define SELF_ANY(a, b) V(DT3(a, b, ACL_FLOAT), DT3(a, b, ACL_FLOAT16), DT3(a, b, ACL_BF16))
M(m_fmt_go, c->fmt[0] = (int)v)
M(m_fmt_self, c->fmt[1] = (int)v)
M(m_fmt_gi, c->fmt[2] = (int)v)
M(m_fmt_go_gi, c->fmt[0] = c->fmt[2] = (int)v)
M(m_nk, c->nk = (int)v)
M(m_ns, c->ns = (int)v)
M(m_np, c->np = (int)v)
M(m_k0, c->k[0] = v)
M(m_k1, c->k[1] = v)
M(m_s0, c->s[0] = v)
M(m_s1, c->s[1] = v)
M(m_p0, c->p[0] = v)
M(m_p1, c->p[1] = v)
M(m_cube, c->cube = (int)v)
M(m_neg_dim, c->dims[v][0] = -1)
M(m_neg_dim3, c->dims[v][1] = -1; if (v >= 1) c->dims[1][1] = c->dims[2][1] = -1)
M(m_self_w5, c->dims[1][3] = 5)
M(m_self_c2, c->dims[1][1] = 2)
M(m_gi_5x5, c->dims[2][2] = c->dims[2][3] = 5)
M(m_gi_self_5x5, c->dims[1][2] = c->dims[1][3] = c->dims[2][2] = c->dims[2][3] = 5)
M(m_gi_self_5x5_ceil, m_gi_self_5x5(c, 0); c->ceil_mode = true)
M(m_gi_self_5x5_ceil_go3, m_gi_self_5x5_ceil(c, 0); c->dims[0][2] = c->dims[0][3] = 3)

/* all tensors of rank r, every dim 2 */
M(m_rank_all, for (int t = 0; t < 3; t++) { c->rank[t] = (int)v; for (int d = 0; d < 6; d++) c->dims[t][d] = 2; })
/* drop the N dim of the tensors in the mask v (bit t = tensor t) */
M(m_unbatch, for (int t = 0; t < 3; t++) if (v >> t & 1) {
        c->rank[t]--;
        memmove(c->dims[t], c->dims[t] + 1, 5 * sizeof(int64_t));
    })
/* unbatched 2D with format bit t of v: NCL, else NCHW */
M(m_unbatched_fmt, m_unbatch(c, 7); for (int t = 0; t < 3; t++) c->fmt[t] = (v >> t) & 1 ? ACL_FORMAT_NCL : ACL_FORMAT_NCHW)
M(m_unbatched_go_h3, m_unbatch(c, 7); c->dims[0][1] = 3)

/* gradOutput dims from the decimal digits of v: D4(n, c, h, w), D5(n, c, d, h, w) (digits 0-9) */
#define D4(a, b, d, e) ((a) * 1000 + (b) * 100 + (d) * 10 + (e))
#define D5(a, b, d, e, f) ((a) * 10000 + (b) * 1000 + (d) * 100 + (e) * 10 + (f))
M(m_go_dims, for (int d = c->rank[0] - 1; d >= 0; d--, v /= 10) c->dims[0][d] = v % 10)

M(m_null_gi_bad_dtype, c->nulls = N_GI; c->dt[0] = ACL_INT32)
M(m_null_ex_all_bad, c->nulls = N_EX; c->dt[0] = ACL_DOUBLE; c->fmt[1] = ACL_FORMAT_ND; c->nk = 0; c->cube = 9)
M(m_null_stride_go3, c->nulls = N_S; c->dims[0][2] = c->dims[0][3] = 3)
M(m_dt_and_fmt, c->dt[0] = ACL_INT64; c->fmt[0] = ACL_FORMAT_ND)
M(m_nk3, c->nk = 3; c->k[2] = 2)
M(m_ns3, c->ns = 3; c->s[2] = 2)
M(m_pad1_go3, c->p[0] = c->p[1] = 1; c->dims[0][2] = c->dims[0][3] = 3)
M(m_k3_p2, c->k[0] = c->k[1] = 3; c->p[0] = c->p[1] = 2; c->dims[0][2] = c->dims[0][3] = 3)
/* k {4, 3}, s 1, p {2, v}: H = (4+4-4)/1+1 = 5, W = (4+2v-3)/1+1 */
M(m_pad_w, c->k[0] = 4; c->k[1] = 3; c->s[0] = c->s[1] = 1; c->p[0] = 2; c->p[1] = v; c->dims[0][2] = 5;
  c->dims[0][3] = 4 + 2 * v - 3 + 1)
M(m_empty_n, for (int t = 0; t < 3; t++) c->dims[t][0] = 0)
M(m_empty_c, for (int t = 0; t < 3; t++) c->dims[t][1] = 0)
M(m_empty_h, c->dims[0][2] = c->dims[1][2] = c->dims[2][2] = 0)
M(m_empty_n_go_h3, m_empty_n(c, 0); c->dims[0][2] = 3)
M(m_empty_n_k0, m_empty_n(c, 0); c->k[0] = 0)
/* W = 1, k {1, 4}, p {0, 1}, s 1: O = (1+2-4)/1+1 = 0: gradOutput 1x1x4x0, gradInput 1x1x4x1 */
M(m_empty_go_only, c->k[0] = 1; c->k[1] = 4; c->s[0] = c->s[1] = 1; c->p[1] = 1; c->dims[1][3] = c->dims[2][3] = 1;
  c->dims[0][2] = 4; c->dims[0][3] = 0)

/* ================================================================== 2D */

static const row rows2d[] = {
    { "baseline", 2, m_none, OK, NULL, all_quarter },
    /* step 1: NULL pointers (stride may be NULL = kernel), before everything else */
    { "NULL gradOutput", 2, m_nulls, NULLPTR, "gradOutput is NULL", V(N_GO) },
    { "NULL self", 2, m_nulls, NULLPTR, "self is NULL", V(N_SELF) },
    { "NULL kernelSize", 2, m_nulls, NULLPTR, "kernelSize is NULL", V(N_K) },
    { "NULL padding", 2, m_nulls, NULLPTR, "padding is NULL", V(N_P) },
    { "NULL gradInput", 2, m_nulls, NULLPTR, "gradInput is NULL", V(N_GI) },
    { "NULL workspaceSize", 2, m_nulls, NULLPTR, "workspaceSize is NULL", V(N_WS) },
    { "NULL executor", 2, m_nulls, NULLPTR, "executor is NULL", V(N_EX) },
    { "NULL gradInput beats a bad gradOutput dtype", 2, m_null_gi_bad_dtype, NULLPTR, "gradInput is NULL" },
    { "NULL executor beats everything else wrong", 2, m_null_ex_all_bad, NULLPTR, "executor is NULL" },
    { "NULL stride = kernel", 2, m_nulls, OK, NULL, all_quarter, V(N_S) },
    { "NULL stride = kernel 2, not 1 (gradOutput 3x3)", 2, m_null_stride_go3, INVALID,
      "gradOutput shape [1, 1, 3, 3] differs from the expected [1, 1, 2, 2]" },
    /* step 2: dtypes; gradOutput and gradInput equal, self's may differ */
#define BAD_DT2 V(ACL_DT_UNDEFINED, ACL_INT8, ACL_INT32, ACL_UINT8, ACL_INT16, ACL_UINT16, ACL_UINT32, ACL_INT64, \
                  ACL_UINT64, ACL_DOUBLE, ACL_BOOL, 5, 28, 1000)
    { "gradOutput dtype", 2, m_dt_go, INVALID, "gradOutput dtype {} is not ACL_FLOAT, ACL_FLOAT16 or ACL_BF16", BAD_DT2 },
    { "self dtype", 2, m_dt_self, INVALID, "self dtype {} is not ACL_FLOAT, ACL_FLOAT16 or ACL_BF16", BAD_DT2 },
    { "gradInput dtype", 2, m_dt_gi, INVALID, "gradInput dtype {} is not ACL_FLOAT, ACL_FLOAT16 or ACL_BF16", BAD_DT2 },
    { "f32 / f32", 2, m_dt3, OK, NULL, NULL, SELF_ANY(ACL_FLOAT, ACL_FLOAT) },
    { "f16 / f16", 2, m_dt3, OK, NULL, NULL, SELF_ANY(ACL_FLOAT16, ACL_FLOAT16) },
    { "bf16 / bf16", 2, m_dt3, OK, NULL, NULL, SELF_ANY(ACL_BF16, ACL_BF16) },
    { "f32 / f16", 2, m_dt3, INVALID, "gradOutput dtype 0 differs from gradInput dtype 1", SELF_ANY(ACL_FLOAT, ACL_FLOAT16) },
    { "f32 / bf16", 2, m_dt3, INVALID, "gradOutput dtype 0 differs from gradInput dtype 27", SELF_ANY(ACL_FLOAT, ACL_BF16) },
    { "f16 / f32", 2, m_dt3, INVALID, "gradOutput dtype 1 differs from gradInput dtype 0", SELF_ANY(ACL_FLOAT16, ACL_FLOAT) },
    { "f16 / bf16", 2, m_dt3, INVALID, "gradOutput dtype 1 differs from gradInput dtype 27", SELF_ANY(ACL_FLOAT16, ACL_BF16) },
    { "bf16 / f32", 2, m_dt3, INVALID, "gradOutput dtype 27 differs from gradInput dtype 0", SELF_ANY(ACL_BF16, ACL_FLOAT) },
    { "bf16 / f16", 2, m_dt3, INVALID, "gradOutput dtype 27 differs from gradInput dtype 1", SELF_ANY(ACL_BF16, ACL_FLOAT16) },
    /* step 3: formats NCHW or NCL; a 4-D gradOutput needs gradOutput and gradInput NCHW */
#define BAD_FMT2 V(ACL_FORMAT_ND, ACL_FORMAT_NHWC, ACL_FORMAT_NCDHW, ACL_FORMAT_NDHWC, ACL_FORMAT_HWCN, ACL_FORMAT_NC, \
                   ACL_FORMAT_UNDEFINED, ACL_FORMAT_NC1HWC0, ACL_FORMAT_FRACTAL_Z, ACL_FORMAT_NC1HWC0_C04,         \
                   ACL_FORMAT_FRACTAL_NZ, ACL_FORMAT_NDC1HWC0, ACL_FRACTAL_Z_3D, 50, 54)
    { "gradOutput format", 2, m_fmt_go, INVALID, "gradOutput format {} is not ACL_FORMAT_NCHW or ACL_FORMAT_NCL", BAD_FMT2 },
    { "self format", 2, m_fmt_self, INVALID, "self format {} is not ACL_FORMAT_NCHW or ACL_FORMAT_NCL", BAD_FMT2 },
    { "gradInput format", 2, m_fmt_gi, INVALID, "gradInput format {} is not ACL_FORMAT_NCHW or ACL_FORMAT_NCL", BAD_FMT2 },
    { "4-D gradOutput NCL", 2, m_fmt_go, INVALID, "a 4-D gradOutput needs gradOutput and gradInput in ACL_FORMAT_NCHW",
      V(ACL_FORMAT_NCL) },
    { "4-D gradInput NCL", 2, m_fmt_gi, INVALID, "a 4-D gradOutput needs gradOutput and gradInput in ACL_FORMAT_NCHW",
      V(ACL_FORMAT_NCL) },
    { "4-D self NCL", 2, m_fmt_self, OK, NULL, NULL, V(ACL_FORMAT_NCL) },
    { "unbatched: NCHW or NCL each", 2, m_unbatched_fmt, OK, NULL, NULL, R(0, 7) },
    { "dtype checked before format", 2, m_dt_and_fmt, INVALID, "gradOutput dtype 9 is not ACL_FLOAT, ACL_FLOAT16 or ACL_BF16" },
    /* step 4: ranks 3 or 4 alike, no negative dim, array lengths and values */
    { "rank", 2, m_rank_all, INVALID, "gradOutput has {} dims, not 3 (C, H, W) or 4 (N, C, H, W)", V(1, 2, 5, 6) },
    { "gradInput rank differs", 2, m_unbatch, INVALID, "gradInput has 3 dims, gradOutput 4", V(4) },
    { "self rank differs", 2, m_unbatch, INVALID, "self has 3 dims, gradOutput 4", V(2) },
    { "negative gradOutput dim", 2, m_neg_dim, INVALID, "gradOutput shape[0] = -1 is negative", V(0) },
    { "negative self dim", 2, m_neg_dim, INVALID, "self shape[0] = -1 is negative", V(1) },
    { "negative gradInput dim", 2, m_neg_dim, INVALID, "gradInput shape[0] = -1 is negative", V(2) },
    { "kernelSize empty", 2, m_nk, INVALID, "kernelSize has 0 values, not 1 or 2", V(0) },
    { "kernelSize of 3", 2, m_nk3, INVALID, "kernelSize has 3 values, not 1 or 2" },
    { "kernelSize of 1", 2, m_nk, OK, NULL, NULL, V(1) },
    { "kernel[1] = 0", 2, m_k1, INVALID, "kernel[1] = 0 is not positive", V(0) },
    { "kernel[0] < 0", 2, m_k0, INVALID, "kernel[0] = -2 is not positive", V(-2) },
    { "stride empty = kernel", 2, m_ns, OK, NULL, all_quarter, V(0) },
    { "stride of 1", 2, m_ns, OK, NULL, NULL, V(1) },
    { "stride of 3", 2, m_ns3, INVALID, "stride has 3 values, not 0, 1 or 2" },
    { "stride[0] = 0", 2, m_s0, INVALID, "stride[0] = 0 is not positive", V(0) },
    { "stride[1] < 0", 2, m_s1, INVALID, "stride[1] = -1 is not positive", V(-1) },
    { "padding empty", 2, m_np, INVALID, "padding has 0 values, not 1 or 2", V(0) },
    { "padding of 3", 2, m_np, INVALID, "padding has 3 values, not 1 or 2", V(3) },
    { "padding of 1", 2, m_np, OK, NULL, NULL, V(1) },
    /* step 5: 0 <= pad, 2 * pad <= kernel, per axis */
    { "padding[0] < 0", 2, m_p0, INVALID, "padding[0] = -1 is negative", V(-1) },
    { "padding[1] < 0", 2, m_p1, INVALID, "padding[1] = -1 is negative", V(-1) },
    { "2 * pad == kernel", 2, m_pad1_go3, OK },
    { "2 * pad > kernel (shape consistent)", 2, m_k3_p2, INVALID, "padding[0] = 2 exceeds kernel[0] / 2 = 1" },
    { "2 * pad > kernel on W alone", 2, m_pad_w, INVALID, "padding[1] = 2 exceeds kernel[1] / 2 = 1", V(2) },
    { "2 * pad <= kernel on both axes", 2, m_pad_w, OK, NULL, NULL, V(1) },
    /* step 6: cubeMathType 0..3 */
    { "cubeMathType < 0", 2, m_cube, INVALID, "cubeMathType = {} is outside 0..3", R(-128, -1) },
    { "cubeMathType 0..3", 2, m_cube, OK, NULL, NULL, R(0, 3) },
    { "cubeMathType > 3", 2, m_cube, INVALID, "cubeMathType = {} is outside 0..3", R(4, 127) },
    /* step 7: self.shape == gradInput.shape */
    { "self W", 2, m_self_w5, INVALID, "self shape [1, 1, 4, 5] differs from gradInput shape [1, 1, 4, 4]" },
    { "self C", 2, m_self_c2, INVALID, "self shape [1, 2, 4, 4] differs from gradInput shape [1, 1, 4, 4]" },
    { "gradInput 5x5, gradOutput fits it, self 4x4", 2, m_gi_5x5, INVALID,
      "self shape [1, 1, 4, 4] differs from gradInput shape [1, 1, 5, 5]" },
    { "self and gradInput 5x5", 2, m_gi_self_5x5, OK },
    /* step 8: the inferred gradOutput shape */
    { "gradOutput H", 2, m_go_dims, INVALID, "gradOutput shape [1, 1, 3, 2] differs from the expected [1, 1, 2, 2]", V(D4(1, 1, 3, 2)) },
    { "gradOutput W", 2, m_go_dims, INVALID, "gradOutput shape [1, 1, 2, 3] differs from the expected [1, 1, 2, 2]", V(D4(1, 1, 2, 3)) },
    { "gradOutput H small", 2, m_go_dims, INVALID, "gradOutput shape [1, 1, 1, 2] differs from the expected [1, 1, 2, 2]", V(D4(1, 1, 1, 2)) },
    { "gradOutput N", 2, m_go_dims, INVALID, "gradOutput shape [2, 1, 2, 2] differs from the expected [1, 1, 2, 2]", V(D4(2, 1, 2, 2)) },
    { "gradOutput C", 2, m_go_dims, INVALID, "gradOutput shape [1, 2, 2, 2] differs from the expected [1, 1, 2, 2]", V(D4(1, 2, 2, 2)) },
    { "gradOutput = input size", 2, m_go_dims, INVALID, "gradOutput shape [1, 1, 4, 4] differs from the expected [1, 1, 2, 2]", V(D4(1, 1, 4, 4)) },
    { "gradOutput H empty", 2, m_go_dims, INVALID, "gradOutput shape [1, 1, 0, 2] differs from the expected [1, 1, 2, 2]", V(D4(1, 1, 0, 2)) },
    { "floor mode: 5 -> 2", 2, m_gi_self_5x5, OK },
    { "ceil mode: 5 -> 3, not 2", 2, m_gi_self_5x5_ceil, INVALID, "gradOutput shape [1, 1, 2, 2] differs from the expected [1, 1, 3, 3]" },
    { "ceil mode: 5 -> 3", 2, m_gi_self_5x5_ceil_go3, OK },
    { "unbatched gradOutput H", 2, m_unbatched_go_h3, INVALID, "gradOutput shape [1, 3, 2] differs from the expected [1, 2, 2]" },
    /* step 9: empty tensors succeed with workspace 0 (after the step 4 and 8 checks, unlike 3D) */
    { "N = 0", 2, m_empty_n, OK },
    { "C = 0", 2, m_empty_c, OK },
    { "H = 0", 2, m_empty_h, OK },
    { "N = 0 with a wrong gradOutput shape", 2, m_empty_n_go_h3, INVALID,
      "gradOutput shape [0, 1, 3, 2] differs from the expected [0, 1, 2, 2]" },
    { "N = 0 with kernel 0", 2, m_empty_n_k0, INVALID, "kernel[0] = 0 is not positive" },
    { "empty gradOutput, gradInput zero-filled", 2, m_empty_go_only, OK, NULL, zero4 },
};

Test(aclnn2d, validation_table) { walk(ROWS(rows2d)); }


/* workspaceSize is written; a planned executor may be destroyed unrun; empty tensors plan a workspace of 0 */
Test(aclnn2d, workspace_size_reported)
{
    cfg c = base(2);
    uint64_t ws = 777;
    aclOpExecutor *ex = NULL;
    aclTensor *go = pgt_acl_dense(c.dims[0], 4, ACL_FLOAT, ACL_FORMAT_NCHW, go_buf);
    aclTensor *gi = pgt_acl_dense(c.dims[2], 4, ACL_FLOAT, ACL_FORMAT_NCHW, gi_buf);
    aclIntArray *k = aclCreateIntArray(c.k, 2), *p = aclCreateIntArray(c.p, 2);
    cr_assert_eq(aclnnAvgPool2dBackwardGetWorkspaceSize(go, gi, k, NULL, p, false, true, 0, 0, gi, &ws, &ex), OK);
    cr_assert_neq(ws, 777u, "workspaceSize not written");
    cr_assert_not_null(ex);
    cr_assert_eq(aclDestroyAclOpExecutor(ex), OK);
    cr_assert_eq(aclDestroyAclOpExecutor(NULL), OK);
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

M(m_null_stride_bad_dtype, c->nulls = N_S; c->dt[0] = ACL_INT32)
M(m_self_w5_3d, c->dims[1][4] = 5)
M(m_ns4, c->ns = 4; c->s[3] = 2)
/* an empty gradOutput (D = 0) with invalid values: kernel row v, stride[1] 0, padding[2] 9 > k/2, padding[0] < 0 */
M(m_empty_bad_values, static const int64_t bad_k[][3] = { { 0, 0, 0 }, { -1, 2, 2 }, { 2, 0, 2 } };
  c->dims[0][2] = 0; memcpy(c->k, bad_k[v], sizeof bad_k[v]); c->s[1] = 0; c->p[2] = 9; c->p[0] = -3)
M(m_empty_d_nk2, c->dims[0][2] = 0; c->nk = 2)
M(m_empty_d_fmt, c->dims[0][2] = 0; c->fmt[2] = ACL_FORMAT_ND)
M(m_empty_d_dt, c->dims[0][2] = 0; c->dt[2] = ACL_FLOAT16)
M(m_empty_d_null_k, c->dims[0][2] = 0; c->nulls = N_K)
M(m_empty_d_half, c->dims[0][2] = 0; c->dt[0] = c->dt[1] = c->dt[2] = (int)v; c->k[0] = 0)
M(m_k_axis, c->k[v] = 0)
M(m_k_axis_neg, c->k[v] = -2)
M(m_s_axis, c->s[v] = 0)
M(m_s_axis_neg, c->s[v] = -2)
M(m_p_axis_neg, c->p[v] = -1)
/* k 3, s 1, p 2 on axis v: the shape is consistent, O = (4+4-3)/1+1 = 6 */
M(m_p_axis_big, c->k[v] = 3; c->s[v] = 1; c->p[v] = 2; c->dims[0][2 + v] = 6)
/* k 2, p 1, s 2 on axis v: O = (4+2-2)/2+1 = 3 */
M(m_p_axis_half, c->p[v] = 1; c->dims[0][2 + v] = 3)
/* padding {v} expands to all axes, gradOutput 3x3x3 */
M(m_p_one, c->np = 1; c->p[0] = v; c->dims[0][2] = c->dims[0][3] = c->dims[0][4] = 3)
/* output D = 0, k 2 s 1: O = (0-2)/1+1 = -1, gradOutput D = 1 */
M(m_neg_inferred, c->dims[1][2] = c->dims[2][2] = 0; c->s[0] = 1; c->dims[0][2] = 1)
M(m_3d_5_ceil, for (int t = 1; t < 3; t++) c->dims[t][2] = c->dims[t][3] = c->dims[t][4] = 5; c->ceil_mode = true)
M(m_3d_5_ceil_go3, m_3d_5_ceil(c, 0); c->dims[0][2] = c->dims[0][3] = c->dims[0][4] = 3)

#define BAD_DT3 V(ACL_DT_UNDEFINED, ACL_INT8, ACL_INT32, ACL_DOUBLE, ACL_BOOL, ACL_INT64, 28)
#define PRIVATE_FMT V(3, 4, 12, 29, 32, 33, 50, 51, 52, 53, 54)

static const row rows3d[] = {
    { "baseline", 3, m_none, OK, NULL, all_eighth },
    /* step 1: NULL workspaceSize or executor first, then the inputs; stride is required */
    { "NULL workspaceSize", 3, m_nulls, NULLPTR, "workspaceSize is NULL", V(N_WS) },
    { "NULL executor", 3, m_nulls, NULLPTR, "executor is NULL", V(N_EX) },
    { "NULL gradOutput", 3, m_nulls, NULLPTR, "gradOutput is NULL", V(N_GO) },
    { "NULL self", 3, m_nulls, NULLPTR, "self is NULL", V(N_SELF) },
    { "NULL kernelSize", 3, m_nulls, NULLPTR, "kernelSize is NULL", V(N_K) },
    { "NULL stride", 3, m_nulls, NULLPTR, "stride is NULL", V(N_S) },
    { "NULL padding", 3, m_nulls, NULLPTR, "padding is NULL", V(N_P) },
    { "NULL output", 3, m_nulls, NULLPTR, "output is NULL", V(N_GI) },
    { "NULL executor before all the inputs", 3, m_nulls, NULLPTR, "executor is NULL",
      V(N_EX | N_GO | N_SELF | N_K | N_S | N_P | N_GI) },
    { "NULL workspaceSize before gradOutput", 3, m_nulls, NULLPTR, "workspaceSize is NULL", V(N_WS | N_GO) },
    { "NULL stride beats a bad dtype", 3, m_null_stride_bad_dtype, NULLPTR, "stride is NULL" },
    { "empty stride = kernel", 3, m_ns, OK, NULL, all_eighth, V(0) },
    /* step 2: dtypes; poolgrad also requires gradOutput.dtype == output.dtype */
    { "gradOutput dtype", 3, m_dt_go, INVALID, "gradOutput dtype {} is not ACL_FLOAT, ACL_FLOAT16 or ACL_BF16", BAD_DT3 },
    { "self dtype", 3, m_dt_self, INVALID, "self dtype {} is not ACL_FLOAT, ACL_FLOAT16 or ACL_BF16", BAD_DT3 },
    { "output dtype", 3, m_dt_gi, INVALID, "output dtype {} is not ACL_FLOAT, ACL_FLOAT16 or ACL_BF16", BAD_DT3 },
    { "f32 / f32", 3, m_dt3, OK, NULL, NULL, SELF_ANY(ACL_FLOAT, ACL_FLOAT) },
    { "f16 / f16", 3, m_dt3, OK, NULL, NULL, SELF_ANY(ACL_FLOAT16, ACL_FLOAT16) },
    { "bf16 / bf16", 3, m_dt3, OK, NULL, NULL, SELF_ANY(ACL_BF16, ACL_BF16) },
    { "f32 / f16", 3, m_dt3, INVALID, "gradOutput dtype 0 differs from output dtype 1", SELF_ANY(ACL_FLOAT, ACL_FLOAT16) },
    { "f32 / bf16", 3, m_dt3, INVALID, "gradOutput dtype 0 differs from output dtype 27", SELF_ANY(ACL_FLOAT, ACL_BF16) },
    { "f16 / f32", 3, m_dt3, INVALID, "gradOutput dtype 1 differs from output dtype 0", SELF_ANY(ACL_FLOAT16, ACL_FLOAT) },
    { "f16 / bf16", 3, m_dt3, INVALID, "gradOutput dtype 1 differs from output dtype 27", SELF_ANY(ACL_FLOAT16, ACL_BF16) },
    { "bf16 / f32", 3, m_dt3, INVALID, "gradOutput dtype 27 differs from output dtype 0", SELF_ANY(ACL_BF16, ACL_FLOAT) },
    { "bf16 / f16", 3, m_dt3, INVALID, "gradOutput dtype 27 differs from output dtype 1", SELF_ANY(ACL_BF16, ACL_FLOAT16) },
    /* step 3: ranks 4 or 5 alike, self.shape == output.shape, array lengths, no negative dim */
    { "rank", 3, m_rank_all, INVALID, "gradOutput has {} dims, not 4 (C, D, H, W) or 5 (N, C, D, H, W)", V(2, 3, 6) },
    { "unbatched (rank 4)", 3, m_unbatch, OK, NULL, NULL, V(7) },
    { "self rank differs", 3, m_unbatch, INVALID, "self has 4 dims, gradOutput 5", V(2) },
    { "output rank differs", 3, m_unbatch, INVALID, "output has 4 dims, gradOutput 5", V(4) },
    { "self shape", 3, m_self_w5_3d, INVALID, "self shape [1, 1, 4, 4, 5] differs from output shape [1, 1, 4, 4, 4]" },
    { "kernelSize of 2", 3, m_nk, INVALID, "kernelSize has 2 values, not 1 or 3", V(2) },
    { "kernelSize empty", 3, m_nk, INVALID, "kernelSize has 0 values, not 1 or 3", V(0) },
    { "kernelSize of 1", 3, m_nk, OK, NULL, NULL, V(1) },
    { "padding of 2", 3, m_np, INVALID, "padding has 2 values, not 1 or 3", V(2) },
    { "padding empty", 3, m_np, INVALID, "padding has 0 values, not 1 or 3", V(0) },
    { "padding of 1", 3, m_np, OK, NULL, NULL, V(1) },
    { "stride of 2", 3, m_ns, INVALID, "stride has 2 values, not 0, 1 or 3", V(2) },
    { "stride of 4", 3, m_ns4, INVALID, "stride has 4 values, not 0, 1 or 3" },
    { "stride of 1", 3, m_ns, OK, NULL, NULL, V(1) },
    { "negative gradOutput dim", 3, m_neg_dim3, INVALID, "gradOutput shape[1] = -1 is negative", V(0) },
    { "negative self and output dim", 3, m_neg_dim3, INVALID, "output shape[1] = -1 is negative", V(1, 2) },
    /* step 4: gradOutput.format == output.format, not private; anything else passes */
    { "common formats", 3, m_fmt_go_gi, OK, NULL, NULL,
      V(ACL_FORMAT_ND, ACL_FORMAT_NCDHW, ACL_FORMAT_NDHWC, ACL_FORMAT_NCHW, ACL_FORMAT_NHWC, ACL_FORMAT_NCL, ACL_FORMAT_NC,
        ACL_FORMAT_HWCN) },
    { "output format differs", 3, m_fmt_gi, INVALID, "gradOutput format 30 differs from output format 2", V(ACL_FORMAT_ND) },
    { "gradOutput format differs", 3, m_fmt_go, INVALID, "gradOutput format 27 differs from output format 30",
      V(ACL_FORMAT_NDHWC) },
    { "private formats", 3, m_fmt_go_gi, INVALID, "format {} is a device-only (private) format", PRIVATE_FMT },
    { "self's format is not checked", 3, m_fmt_self, OK, NULL, NULL, V(ACL_FORMAT_NDC1HWC0) },
    /* step 5: an empty gradOutput succeeds before the value and shape checks, zero-filling the output */
    { "empty gradOutput, invalid values", 3, m_empty_bad_values, OK, NULL, zero64, V(0, 1, 2) },
    { "empty gradOutput of the wrong shape", 3, m_go_dims, OK, NULL, NULL, V(D5(3, 0, 2, 2, 2)) },
    { "empty gradOutput after step 3", 3, m_empty_d_nk2, INVALID, "kernelSize has 2 values, not 1 or 3" },
    { "empty gradOutput after step 4", 3, m_empty_d_fmt, INVALID, "gradOutput format 30 differs from output format 2" },
    { "empty gradOutput after step 2", 3, m_empty_d_dt, INVALID, "gradOutput dtype 0 differs from output dtype 1" },
    { "empty gradOutput after step 1", 3, m_empty_d_null_k, NULLPTR, "kernelSize is NULL" },
    { "empty gradOutput, half zero fill", 3, m_empty_d_half, OK, NULL, zero64_half, V(ACL_FLOAT16, ACL_BF16) },
    /* step 6: k > 0, s > 0, 0 <= p <= k / 2 per axis (v = the axis) */
    { "kernel 0", 3, m_k_axis, INVALID, "kernel[{}] = 0 is not positive", V(0, 1, 2) },
    { "kernel < 0", 3, m_k_axis_neg, INVALID, "kernel[{}] = -2 is not positive", V(0, 1, 2) },
    { "stride 0", 3, m_s_axis, INVALID, "stride[{}] = 0 is not positive", V(0, 1, 2) },
    { "stride < 0", 3, m_s_axis_neg, INVALID, "stride[{}] = -2 is not positive", V(0, 1, 2) },
    { "padding < 0", 3, m_p_axis_neg, INVALID, "padding[{}] = -1 is negative", V(0, 1, 2) },
    { "2 * pad > kernel", 3, m_p_axis_big, INVALID, "padding[{}] = 2 exceeds kernel[{}] / 2 = 1", V(0, 1, 2) },
    { "2 * pad == kernel", 3, m_p_axis_half, OK, NULL, NULL, V(0, 1, 2) },
    { "padding {1} expands", 3, m_p_one, OK, NULL, NULL, V(1) },
    { "padding {2} expands, > kernel / 2", 3, m_p_one, INVALID, "padding[0] = 2 exceeds kernel[0] / 2 = 1", V(2) },
    /* step 7: inferred sizes >= 0 and equal to gradOutput's */
    { "gradOutput D", 3, m_go_dims, INVALID, "gradOutput shape [1, 1, 3, 2, 2] differs from the expected [1, 1, 2, 2, 2]", V(D5(1, 1, 3, 2, 2)) },
    { "gradOutput W", 3, m_go_dims, INVALID, "gradOutput shape [1, 1, 2, 2, 1] differs from the expected [1, 1, 2, 2, 2]", V(D5(1, 1, 2, 2, 1)) },
    { "gradOutput N", 3, m_go_dims, INVALID, "gradOutput shape [2, 1, 2, 2, 2] differs from the expected [1, 1, 2, 2, 2]", V(D5(2, 1, 2, 2, 2)) },
    { "gradOutput C", 3, m_go_dims, INVALID, "gradOutput shape [1, 2, 2, 2, 2] differs from the expected [1, 1, 2, 2, 2]", V(D5(1, 2, 2, 2, 2)) },
    { "gradOutput = input size", 3, m_go_dims, INVALID, "gradOutput shape [1, 1, 4, 4, 4] differs from the expected [1, 1, 2, 2, 2]", V(D5(1, 1, 4, 4, 4)) },
    { "negative inferred size", 3, m_neg_inferred, INVALID,
      "gradOutput shape [1, 1, 1, 2, 2] differs from the expected [1, 1, -1, 2, 2]" },
    { "ceil mode: 5 -> 3, not 2", 3, m_3d_5_ceil, INVALID, "gradOutput shape [1, 1, 2, 2, 2] differs from the expected [1, 1, 3, 3, 3]" },
    { "ceil mode: 5 -> 3", 3, m_3d_5_ceil_go3, OK },
};

Test(aclnn3d, validation_table) { walk(ROWS(rows3d)); }

/* ================================================================== execute phase */

/* A planned f32 executor for the base problem of op (2 or 3); keep[] holds the tensors to destroy. */
static aclOpExecutor *plan_ok(int op, aclTensor **keep)
{
    const cfg c = base(op);
    keep[0] = pgt_acl_dense(c.dims[0], c.rank[0], ACL_FLOAT, (aclFormat)c.fmt[0], go_buf);
    keep[1] = pgt_acl_dense(c.dims[2], c.rank[2], ACL_FLOAT, (aclFormat)c.fmt[2], gi_buf);
    aclIntArray *ka = aclCreateIntArray(c.k, (uint64_t)op), *sa = aclCreateIntArray(c.s, (uint64_t)op),
                *pa = aclCreateIntArray(c.p, (uint64_t)op);
    uint64_t ws;
    aclOpExecutor *ex = NULL;
    aclnnStatus st = op == 2 ? aclnnAvgPool2dBackwardGetWorkspaceSize(keep[0], keep[1], ka, sa, pa, false, true, 0, 0,
                                                                      keep[1], &ws, &ex)
                             : aclnnAvgPool3dBackwardGetWorkspaceSize(keep[0], keep[1], ka, sa, pa, false, true, 0,
                                                                      keep[1], &ws, &ex);
    cr_assert_eq(st, OK);
    aclDestroyIntArray(ka);
    aclDestroyIntArray(sa);
    aclDestroyIntArray(pa);
    return ex;
}

typedef struct exec_row {
    const char *what;
    int op;
    bool planned;        /* false: a NULL executor */
    bool workspace;      /* false: a NULL workspace */
    uint64_t size;
    aclnnStatus want;
    const char *msg;
} exec_row;

static const exec_row exec_rows[] = {
    { "NULL executor", 2, false, true, 64, NULLPTR, "executor is NULL" },
    { "NULL executor", 3, false, true, 64, NULLPTR, "executor is NULL" },
    { "NULL executor and workspace", 2, false, false, 0, NULLPTR, "executor is NULL" },
    { "workspaceSize > 0 with a NULL workspace", 2, true, false, 64, NULLPTR, "workspace is NULL with workspaceSize = 64" },
    { "workspaceSize > 0 with a NULL workspace", 3, true, false, 64, NULLPTR, "workspace is NULL with workspaceSize = 64" },
};

Test(execute, table)
{
    static char ws[64];
    for (size_t i = 0; i < sizeof exec_rows / sizeof exec_rows[0]; i++) {
        const exec_row *r = &exec_rows[i];
        aclTensor *keep[2] = { NULL, NULL };
        aclOpExecutor *ex = r->planned ? plan_ok(r->op, keep) : NULL;
        void *w = r->workspace ? ws : NULL;
        reset_message();
        aclnnStatus st = r->op == 2 ? aclnnAvgPool2dBackward(w, r->size, ex, NULL) : aclnnAvgPool3dBackward(w, r->size, ex, NULL);
        cr_expect_eq(st, r->want, "%dD %s: status %d, expected %d", r->op, r->what, (int)st, (int)r->want);
        cr_expect_str_eq(aclGetRecentErrMsg(), r->msg, "%dD %s: message \"%s\", expected \"%s\"", r->op, r->what,
                         aclGetRecentErrMsg(), r->msg);
        if (ex) {
            /* the failed call did not consume it: it still runs, with a (larger than needed) workspace */
            for (int j = 0; j < 64; j++)
                gi_buf[j] = -7.0f;
            for (int j = 0; j < 8; j++)
                go_buf[j] = 1.0f;
            st = r->op == 2 ? aclnnAvgPool2dBackward(ws, sizeof ws, ex, NULL) : aclnnAvgPool3dBackward(ws, sizeof ws, ex, NULL);
            cr_expect_eq(st, OK, "%dD %s: the executor after the failed call", r->op, r->what);
            cr_expect_eq(gi_buf[0], r->op == 2 ? 0.25f : 0.125f, "%dD %s", r->op, r->what);
        }
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

enum { NN_PARAMS = 1, NN_GO = 2, NN_GI = 4, NN_PLAN = 8 };

typedef struct native_setup {
    poolgrad_params pa;
    poolgrad_tensor go, gi;
    unsigned nulls; /* NN_* bits: pass NULL for these */
} native_setup;

/* 2D f32: gradOutput 1x1x2x2 over go_buf, gradInput 1x1x4x4 over gi_buf, kernel 2 stride 2. */
static native_setup nbase(void)
{
    native_setup s;
    memset(&s, 0, sizeof s);
    s.pa = pgt_params(2, 2, 2, 0, false, true, 0);
    const int64_t o[4] = { 1, 1, 2, 2 }, i[4] = { 1, 1, 4, 4 };
    cr_assert_eq(poolgrad_tensor_init_contiguous(&s.go, POOLGRAD_F32, 4, o, go_buf), POOLGRAD_OK);
    cr_assert_eq(poolgrad_tensor_init_contiguous(&s.gi, POOLGRAD_F32, 4, i, gi_buf), POOLGRAD_OK);
    return s;
}

typedef struct nrow {
    const char *what;
    void (*mutate)(native_setup *s, int64_t v);
    poolgrad_status want;
    const char *msg; /* exact poolgrad_last_error_message(), "{}" = v; NULL: success */
    const int64_t *vals;
    size_t nvals;
} nrow;

#define NM(name, ...) \
    static void name(native_setup *s, int64_t v) { (void)s; (void)v; __VA_ARGS__; }

NM(n_none)
NM(n_nulls, s->nulls = (unsigned)v)
NM(n_gi_storage_null, s->gi.storage = NULL)
NM(n_gi_f16, s->gi.dtype = POOLGRAD_F16; s->gi.storage_numel = 16)
NM(n_go_dtype3, s->go.dtype = (poolgrad_dtype)3)
NM(n_3d_rank3, s->pa.spatial_dims = 3; s->go.rank = s->gi.rank = 3)
NM(n_go_rank3, s->go.rank = 3)
NM(n_ranks, s->go.rank = s->gi.rank = (int32_t)v)
/* kernel, stride, padding of axis 1 from row v of the table */
NM(n_params1, static const int64_t ksp[][3] = { { 0, 2, 0 }, { -1, 2, 0 }, { 2, 0, 0 }, { 2, -1, 0 }, { 2, 2, -1 },
                                               { 3, 2, 2 }, { 1, 1, 1 } };
   s->pa.kernel[1] = ksp[v][0]; s->pa.stride[1] = ksp[v][1]; s->pa.padding[1] = ksp[v][2])
NM(n_spatial, s->pa.spatial_dims = (int32_t)v)
NM(n_go_w3, s->go.shape[3] = 3; s->go.storage_numel = 6)
NM(n_gi_h_neg, s->gi.shape[2] = -4)
NM(n_huge_h, s->pa.kernel[0] = s->pa.stride[0] = 1; s->gi.shape[2] = s->go.shape[2] = (int64_t)1 << 62)
NM(n_gi_numel15, s->gi.storage_numel = 15)
NM(n_gi_offset1, s->gi.offset = 1)
NM(n_go_offset_neg, s->go.offset = -1)
NM(n_go_stride_neg, s->go.strides[3] = -1)
NM(n_gi_stride0, s->gi.strides[3] = 0)
NM(n_gi_rows_overlap, s->gi.strides[2] = 2)
NM(n_go_in_gi, s->go.storage = gi_buf + 12)
NM(n_go_broadcast, s->go.strides[2] = s->go.strides[3] = 0)

static const nrow native_rows[] = {
    { "baseline", n_none, POOLGRAD_OK },
    { "NULL params", n_nulls, POOLGRAD_ERR_NULL_POINTER, "params is NULL", V(NN_PARAMS) },
    { "NULL gradOutput", n_nulls, POOLGRAD_ERR_NULL_POINTER, "grad_output is NULL", V(NN_GO) },
    { "NULL gradInput", n_nulls, POOLGRAD_ERR_NULL_POINTER, "grad_input is NULL", V(NN_GI) },
    { "NULL plan", n_nulls, POOLGRAD_ERR_NULL_POINTER, "plan is NULL", V(NN_PLAN) },
    { "NULL storage of a non-empty view", n_gi_storage_null, POOLGRAD_ERR_NULL_POINTER,
      "gradInput storage is NULL for a view of 16 elements" },
    { "mixed dtypes", n_gi_f16, POOLGRAD_ERR_DTYPE, "gradOutput dtype f32 differs from gradInput dtype f16" },
    { "unknown dtype", n_go_dtype3, POOLGRAD_ERR_DTYPE,
      "gradOutput dtype = 3 is not POOLGRAD_F32, POOLGRAD_F16 or POOLGRAD_BF16" },
    { "3D needs rank 4 or 5", n_3d_rank3, POOLGRAD_ERR_RANK, "gradInput rank 3 is not 4 (unbatched) or 5 (batched) for 3D pooling" },
    { "ranks differ", n_go_rank3, POOLGRAD_ERR_RANK, "gradOutput rank 3 differs from gradInput rank 4" },
    { "rank 6", n_ranks, POOLGRAD_ERR_RANK, "gradOutput rank = 6 is outside 1..5", V(6) },
    { "rank 2 for 2D", n_ranks, POOLGRAD_ERR_RANK, "gradInput rank 2 is not 3 (unbatched) or 4 (batched) for 2D pooling", V(2) },
    { "kernel[1] 0", n_params1, POOLGRAD_ERR_PARAM, "kernel[1] = 0 is not positive", V(0) },
    { "kernel[1] < 0", n_params1, POOLGRAD_ERR_PARAM, "kernel[1] = -1 is not positive", V(1) },
    { "stride[1] 0", n_params1, POOLGRAD_ERR_PARAM, "stride[1] = 0 is not positive", V(2) },
    { "stride[1] < 0", n_params1, POOLGRAD_ERR_PARAM, "stride[1] = -1 is not positive", V(3) },
    { "padding[1] < 0", n_params1, POOLGRAD_ERR_PARAM, "padding[1] = -1 is negative", V(4) },
    { "padding[1] > kernel 3 / 2", n_params1, POOLGRAD_ERR_PARAM, "padding[1] = 2 exceeds kernel[1] / 2 = 1", V(5) },
    { "padding[1] > kernel 1 / 2", n_params1, POOLGRAD_ERR_PARAM, "padding[1] = 1 exceeds kernel[1] / 2 = 0", V(6) },
    { "spatial_dims", n_spatial, POOLGRAD_ERR_PARAM, "spatial_dims = {} is not 2 or 3", V(1, 4) },
    { "gradOutput shape", n_go_w3, POOLGRAD_ERR_SHAPE, "gradOutput shape [1, 1, 2, 3] differs from the expected [1, 1, 2, 2]" },
    { "negative dim", n_gi_h_neg, POOLGRAD_ERR_SHAPE, "gradInput shape[2] = -4 is negative" },
    { "2^62 x 4 elements", n_huge_h, POOLGRAD_ERR_OVERFLOW, "gradInput element count overflows int64" },
    { "view outside its storage", n_gi_numel15, POOLGRAD_ERR_VIEW, "gradInput view reaches element 15 of a storage of 15" },
    { "view shifted past its storage", n_gi_offset1, POOLGRAD_ERR_VIEW, "gradInput view reaches element 16 of a storage of 16" },
    { "negative offset", n_go_offset_neg, POOLGRAD_ERR_VIEW, "gradOutput offset = -1 is negative" },
    { "negative stride below the storage", n_go_stride_neg, POOLGRAD_ERR_VIEW,
      "gradOutput view reaches element -1, before the start of its storage" },
    { "gradInput zero stride", n_gi_stride0, POOLGRAD_ERR_ALIAS,
      "gradInput view (shape [1, 1, 4, 4], strides [16, 16, 4, 0]) reaches some element twice" },
    { "gradInput rows overlap", n_gi_rows_overlap, POOLGRAD_ERR_ALIAS,
      "gradInput view (shape [1, 1, 4, 4], strides [16, 16, 2, 1]) reaches some element twice" },
    { "gradOutput inside gradInput", n_go_in_gi, POOLGRAD_ERR_ALIAS, "gradInput's storage range overlaps gradOutput's" },
    { "gradOutput broadcast (stride 0)", n_go_broadcast, POOLGRAD_OK },
};

Test(native, validation_table)
{
    for (size_t i = 0; i < sizeof native_rows / sizeof native_rows[0]; i++) {
        const nrow *r = &native_rows[i];
        for (size_t j = 0; j < (r->nvals ? r->nvals : 1); j++) {
            const int64_t v = r->nvals ? r->vals[j] : 0;
            native_setup s = nbase();
            r->mutate(&s, v);
            poolgrad_plan *plan = (poolgrad_plan *)&plan; /* garbage: must be reset to NULL on failure */
            reset_message();
            const unsigned nl = s.nulls;
            poolgrad_status st = poolgrad_plan_create(nl & NN_PARAMS ? NULL : &s.pa, nl & NN_GO ? NULL : &s.go,
                                                      nl & NN_GI ? NULL : &s.gi, nl & NN_PLAN ? NULL : &plan);
            cr_expect_eq(st, r->want, "native %s (v = %lld): status %s, expected %s", r->what, (long long)v,
                         poolgrad_status_string(st), poolgrad_status_string(r->want));
            if (st != POOLGRAD_OK && !(nl & NN_PLAN))
                cr_expect_null(plan, "native %s: plan not set to NULL on failure", r->what);
            if (st == POOLGRAD_OK)
                poolgrad_plan_destroy(plan);
            if (r->msg) {
                char want[512];
                pgt_expand_msg(want, sizeof want, r->msg, v);
                cr_expect_str_eq(poolgrad_last_error_message(), want, "native %s (v = %lld): message \"%s\", expected \"%s\"",
                                 r->what, (long long)v, poolgrad_last_error_message(), want);
            } else {
                cr_expect_eq(r->want, POOLGRAD_OK, "native %s: a failing row needs its message", r->what);
            }
        }
    }
}

Test(native, execute_statuses)
{
    native_setup s = nbase();
    poolgrad_plan *plan = NULL;
    cr_assert_eq(poolgrad_plan_create(&s.pa, &s.go, &s.gi, &plan), POOLGRAD_OK);
    cr_assert_not_null(plan);
    cr_assert_eq(poolgrad_execute(NULL, NULL, 0, 1), POOLGRAD_ERR_NULL_POINTER);
    cr_expect_str_eq(poolgrad_last_error_message(), "plan is NULL");
    for (int i = 0; i < 16; i++)
        gi_buf[i] = -7.0f;
    cr_assert_eq(poolgrad_execute(plan, NULL, 0, -1), POOLGRAD_ERR_THREADS);
    cr_expect_str_eq(poolgrad_last_error_message(), "num_threads = -1 is negative (0 = the OpenMP default)");
    cr_assert_eq(gi_buf[0], -7.0f, "a failed execute wrote");
    size_t ws = poolgrad_plan_workspace_size(plan);
    if (ws > 0) {
        char want[128];
        cr_assert_eq(poolgrad_execute(plan, NULL, ws, 1), POOLGRAD_ERR_WORKSPACE);
        snprintf(want, sizeof want, "workspace is NULL but the plan needs %zu bytes", ws);
        cr_expect_str_eq(poolgrad_last_error_message(), want);
        char tiny[1];
        cr_assert_eq(poolgrad_execute(plan, tiny, ws - 1, 1), POOLGRAD_ERR_WORKSPACE);
        snprintf(want, sizeof want, "workspace_size = %zu is smaller than the planned %zu bytes", ws - 1, ws);
        cr_expect_str_eq(poolgrad_last_error_message(), want);
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
    cr_expect_str_eq(poolgrad_last_error_message(), "num_threads = -1 is negative (0 = the OpenMP default)");
    cr_assert_eq(poolgrad_avgpool_backward(&s.pa, &s.go, &s.gi, 2), POOLGRAD_OK);
}

Test(native, output_shape)
{
    poolgrad_params pa = pgt_params(2, 3, 2, 1, true, true, 0);
    int64_t in[4] = { 2, 3, 4, 5 }, out[4] = { -9, -9, -9, -9 };
    cr_assert_eq(poolgrad_output_shape(&pa, 4, in, out), POOLGRAD_OK);
    /* H: (4+2-3+1)/2+1 = 3, 2*2 < 5 keeps it; W: (5+2-3+1)/2+1 = 3, 2*2 < 6 keeps it */
    cr_assert(out[0] == 2 && out[1] == 3 && out[2] == 3 && out[3] == 3);
    const struct {
        int32_t rank;
        bool null_params;
        int64_t h, pad;
        poolgrad_status want;
        const char *msg;
    } rows[] = {
        { 5, false, 4, 1, POOLGRAD_ERR_RANK, "rank = 5 is not 3 (unbatched) or 4 (batched) for 2D pooling" },
        { 2, false, 4, 1, POOLGRAD_ERR_RANK, "rank = 2 is not 3 (unbatched) or 4 (batched) for 2D pooling" },
        { 4, true, 4, 1, POOLGRAD_ERR_NULL_POINTER, "params is NULL" },
        { 4, false, -1, 1, POOLGRAD_ERR_SHAPE, "input shape[2] = -1 is negative" },
        { 4, false, -1, 2, POOLGRAD_ERR_PARAM, "padding[0] = 2 exceeds kernel[0] / 2 = 1" },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        in[2] = rows[i].h;
        pa.padding[0] = rows[i].pad;
        reset_message();
        cr_expect_eq(poolgrad_output_shape(rows[i].null_params ? NULL : &pa, rows[i].rank, in, out), rows[i].want,
                     "output_shape row %zu", i);
        cr_expect_str_eq(poolgrad_last_error_message(), rows[i].msg, "output_shape row %zu", i);
    }
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
