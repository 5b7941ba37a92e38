/*
 * Golden values computed by hand (the numbers in the tables below were worked out on paper from
 * docs/SEMANTICS.md sections 3-5, not produced by the library). Every value is a small dyadic number,
 * exact in f32, f16 and bf16, so each case runs in all three dtypes, through the native API and the
 * aclnn front, batched and unbatched, and the results must match bit for bit (sign of zero included).
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "testutil.h"
#include "aclnn_runner.h"
#include "oracle.h"

#define MAXV 64

/* ------------------------------------------------------------------ the checker */

typedef struct gcase {
    int sd;
    int64_t n, c;
    int64_t in[3];            /* D, H, W (2D: D = 1) */
    int64_t k[3], s[3], p[3]; /* per axis D, H, W (2D: D entries ignored) */
    bool ceil_mode, cip;
    int64_t div;
    int64_t out[3];           /* hand-computed output size */
    float go[MAXV];           /* dense N, C, OD, OH, OW */
    float gi[MAXV * 4];       /* dense N, C, ID, IH, IW; -0.0f never expected */
} gcase;

static const poolgrad_dtype all_dtypes[3] = { POOLGRAD_F32, POOLGRAD_F16, POOLGRAD_BF16 };
static const char *const dtype_name[3] = { "f32", "f16", "bf16" };

static void encode(poolgrad_dtype dt, void *base, int64_t i, double v)
{
    if (dt == POOLGRAD_F32)
        ((float *)base)[i] = (float)v;
    else
        ((uint16_t *)base)[i] = pgt_round_half(v, dt == POOLGRAD_BF16);
}

/* Compare every element's bits with the expected value's encoding and the guard zones. */
static void expect_bits(const gcase *g, poolgrad_dtype dt, const pgt_buffer *b, int64_t numel, const char *api)
{
    cr_assert(pgt_guards_intact(b), "%s %s: write outside gradInput", api, dtype_name[dt]);
    uint16_t tmp16[1];
    float tmp32[1];
    for (int64_t i = 0; i < numel; i++) {
        void *t = dt == POOLGRAD_F32 ? (void *)tmp32 : (void *)tmp16;
        encode(dt, t, 0, g->gi[i]);
        uint32_t want = pgt_bits_at(dt, t, 0), got = pgt_bits_at(dt, b->data, i);
        cr_assert_eq(got, want, "%s %s: gradInput[%" PRId64 "] bits 0x%x (%g), expected 0x%x (%g)", api, dtype_name[dt],
                     i, got, pgt_decode(dt, b->data, i), want, (double)g->gi[i]);
    }
}

static void run_case(const gcase *g)
{
    const int sd = g->sd, off = 3 - sd;
    int64_t k[3], s[3], p[3];
    for (int a = 0; a < sd; a++) {
        k[a] = g->k[off + a];
        s[a] = g->s[off + a];
        p[a] = g->p[off + a];
    }
    poolgrad_params pa = pgt_params_axes(sd, k, s, p, g->ceil_mode, g->cip, g->div);
    int64_t in_numel = g->n * g->c, out_numel = g->n * g->c;
    for (int a = off; a < 3; a++) {
        in_numel *= g->in[a];
        out_numel *= g->out[a];
    }
    cr_assert(in_numel <= MAXV * 4 && out_numel <= MAXV);

    for (int unbatched = 0; unbatched <= (g->n == 1); unbatched++) {
        const int rank = sd + 2 - unbatched;
        int64_t ishape[5], oshape[5], got_shape[5];
        int r = 0;
        if (!unbatched) {
            ishape[r] = oshape[r] = g->n;
            r++;
        }
        ishape[r] = oshape[r] = g->c;
        r++;
        for (int a = off; a < 3; a++, r++) {
            ishape[r] = g->in[a];
            oshape[r] = g->out[a];
        }
        /* the output size, hand-computed */
        cr_assert_eq(poolgrad_output_shape(&pa, rank, ishape, got_shape), POOLGRAD_OK);
        for (int d = 0; d < rank; d++)
            cr_assert_eq(got_shape[d], oshape[d], "rank %d dim %d: inferred %" PRId64 ", hand-computed %" PRId64, rank,
                         d, got_shape[d], oshape[d]);

        for (int di = 0; di < 3; di++) {
            poolgrad_dtype dt = all_dtypes[di];
            pgt_buffer go = pgt_alloc(dt, out_numel);
            for (int64_t i = 0; i < out_numel; i++)
                encode(dt, go.data, i, g->go[i]);

            /* native API */
            pgt_buffer gi = pgt_alloc(dt, in_numel);
            poolgrad_tensor tgo, tgi;
            cr_assert_eq(poolgrad_tensor_init_contiguous(&tgo, dt, rank, oshape, go.data), POOLGRAD_OK);
            cr_assert_eq(poolgrad_tensor_init_contiguous(&tgi, dt, rank, ishape, gi.data), POOLGRAD_OK);
            cr_assert_eq(poolgrad_avgpool_backward(&pa, &tgo, &tgi, 1), POOLGRAD_OK);
            expect_bits(g, dt, &gi, in_numel, unbatched ? "native unbatched" : "native");
            pgt_free(&gi);

            /* aclnn front */
            gi = pgt_alloc(dt, in_numel);
            aclFormat fmt = sd == 2 ? (unbatched ? ACL_FORMAT_NCL : ACL_FORMAT_NCHW) : ACL_FORMAT_NCDHW;
            aclTensor *ago = pgt_acl_dense(oshape, rank, pgt_acl_dtype(dt), fmt, go.data);
            aclTensor *agi = pgt_acl_dense(ishape, rank, pgt_acl_dtype(dt), fmt, gi.data);
            aclTensor *aself = pgt_acl_dense(ishape, rank, ACL_FLOAT, fmt, NULL); /* self is never read */
            pgt_acl_result res = pgt_acl_run_arrays(sd, ago, aself, agi, k, sd, s, sd, p, sd, g->ceil_mode, g->cip, g->div, 0);
            cr_assert_eq(res.plan, ACLNN_SUCCESS, "aclnn %dD plan: %d", sd, res.plan);
            cr_assert_eq(res.exec, ACLNN_SUCCESS, "aclnn %dD execute: %d", sd, res.exec);
            expect_bits(g, dt, &gi, in_numel, unbatched ? "aclnn unbatched" : "aclnn");
            aclDestroyTensor(ago);
            aclDestroyTensor(agi);
            aclDestroyTensor(aself);
            pgt_free(&gi);
            pgt_free(&go);
        }
    }
}

/* ------------------------------------------------------------------ 1-D examples placed on one axis */

typedef struct ex1d {
    char name[40];
    int64_t i, k, s, p;
    bool ceil_mode, cip;
    int64_t div;
    int64_t o;
    float go[8];
    float gi[8];
} ex1d;

/*
 * Hand computations (window o: start = o*s - p, end = min(start + k, I + p), pool = end - start,
 * clipped [max(start,0), min(end,I)), cnt = its length).
 */
static const ex1d examples[] = {
    /* SEMANTICS 5.1: I=5 k=2 s=2 ceil: O = (5-2+1)/2+1 = 3; windows [0,2) [2,4) [4,5): last pool 1, not 2 */
    { "I5k2s2 ceil cip", 5, 2, 2, 0, true, true, 0, 3, { 1, 2, 4 }, { 0.5f, 0.5f, 1, 1, 4 } },
    { "I5k2s2 ceil nocip", 5, 2, 2, 0, true, false, 0, 3, { 1, 2, 4 }, { 0.5f, 0.5f, 1, 1, 4 } },
    /* floor: O = 3/2+1 = 2, element 4 uncovered */
    { "I5k2s2 floor", 5, 2, 2, 0, false, true, 0, 2, { 1, 2 }, { 0.5f, 0.5f, 1, 1, 0 } },
    /* SEMANTICS 5.2: I=4 k=3 p=1 s=2 ceil: O=3; [-1,2) pool 3 cnt 2, [1,4) 3/3, [3,5) pool 2 cnt 1.
       go 3,6,2 / (3,3,2) = 1,2,1: x0=1, x1=1+2, x2=2, x3=2+1 */
    { "I4k3s2p1 ceil cip", 4, 3, 2, 1, true, true, 0, 3, { 3, 6, 2 }, { 1, 3, 2, 3 } },
    /* / (2,3,1) = 1.5,2,2: x0=1.5, x1=3.5, x2=2, x3=4 */
    { "I4k3s2p1 ceil nocip", 4, 3, 2, 1, true, false, 0, 3, { 3, 6, 2 }, { 1.5f, 3.5f, 2, 4 } },
    /* floor: O = 3/2+1 = 2 */
    { "I4k3s2p1 floor cip", 4, 3, 2, 1, false, true, 0, 2, { 3, 6 }, { 1, 3, 2, 2 } },
    { "I4k3s2p1 floor nocip", 4, 3, 2, 1, false, false, 0, 2, { 3, 6 }, { 1.5f, 3.5f, 2, 2 } },
    /* SEMANTICS 5.3: I=5 k=3 p=1 s=3 ceil: raw O = 6/3+1 = 3, (3-1)*3 = 6 >= 5+1 -> 2.
       [-1,2) pool 3 cnt 2, [2,5) pool 3 cnt 3 */
    { "I5k3s3p1 ceil cip", 5, 3, 3, 1, true, true, 0, 2, { 6, 9 }, { 2, 2, 3, 3, 3 } },
    { "I5k3s3p1 ceil nocip", 5, 3, 3, 1, true, false, 0, 2, { 6, 9 }, { 3, 3, 3, 3, 3 } },
    { "I5k3s3p1 floor cip", 5, 3, 3, 1, false, true, 0, 2, { 6, 9 }, { 2, 2, 3, 3, 3 } },
    /* SEMANTICS 5.4: I=7 k=2 s=2 floor: O=3, input 6 uncovered -> +0.0 */
    { "I7k2s2 floor", 7, 2, 2, 0, false, true, 0, 3, { 2, 4, 6 }, { 1, 1, 2, 2, 3, 3, 0 } },
    /* ceil: O = 6/2+1 = 4, 3*2 = 6 < 7 keeps it; [6,8) -> end 7, pool 1 */
    { "I7k2s2 ceil cip", 7, 2, 2, 0, true, true, 0, 4, { 2, 4, 6, 8 }, { 1, 1, 2, 2, 3, 3, 8 } },
    /* stride > kernel: I=7 k=2 s=3: O = 5/3+1 = 2, windows [0,2) [3,5); 2, 5, 6 uncovered stay +0.0
       although every gradient is negative */
    { "gap I7k2s3 floor", 7, 2, 3, 0, false, true, 0, 2, { -2, -4 }, { -1, -1, 0, -2, -2, 0, 0 } },
    /* ceil: O = 7/3+1 = 3, 2*3 = 6 < 7 keeps it; [6,8) -> [6,7) pool 1 */
    { "gap I7k2s3 ceil", 7, 2, 3, 0, true, true, 0, 3, { -2, -4, -6 }, { -1, -1, 0, -2, -2, 0, -6 } },
    /* I=6 k=3 s=4 p=1: O = 5/4+1 = 2: [-1,2) pool 3 cnt 2, [3,6) 3/3; element 2 uncovered */
    { "gap I6k3s4p1 cip", 6, 3, 4, 1, false, true, 0, 2, { -3, -6 }, { -1, -1, 0, -2, -2, -2 } },
    { "gap I6k3s4p1 nocip", 6, 3, 4, 1, false, false, 0, 2, { -3, -6 }, { -1.5f, -1.5f, 0, -2, -2, -2 } },
    /* ceil: raw O = 8/4+1 = 3, 2*4 = 8 >= 6+1 -> 2: same as floor */
    { "gap I6k3s4p1 ceil", 6, 3, 4, 1, true, true, 0, 2, { -3, -6 }, { -1, -1, 0, -2, -2, -2 } },
    /* the accumulator starts at +0.0: a -0.0 gradient gives +0.0 (+0 + -0 = +0) */
    { "negzero I3k2s1", 3, 2, 1, 0, false, true, 0, 2, { -0.0f, -0.0f }, { 0, 0, 0 } },
    { "negzero mixed", 3, 2, 1, 0, false, true, 0, 2, { -0.0f, 2 }, { 0, 1, 1 } },
    /* divisorOverride on 5.2's geometry: every divisor 4 (also where pool is 2): 1,2,3 */
    { "div +4 ceil cip", 4, 3, 2, 1, true, true, 4, 3, { 4, 8, 12 }, { 1, 3, 2, 5 } },
    { "div +4 ceil nocip", 4, 3, 2, 1, true, false, 4, 3, { 4, 8, 12 }, { 1, 3, 2, 5 } },
    /* negative override: -1,-2,-3 */
    { "div -2 ceil", 4, 3, 2, 1, true, true, -2, 3, { 2, 4, 6 }, { -1, -3, -2, -5 } },
    { "div -2 floor nocip", 4, 3, 2, 1, false, false, -2, 2, { 2, 4 }, { -1, -3, -2, -2 } },
    /* I=5 k=3 s=2 p=1 floor: O = 4/2+1 = 3: [-1,2) [1,4) [3,6) -> [3,5); override 8: 1,2,3 */
    { "div 8 I5k3s2p1", 5, 3, 2, 1, false, true, 8, 3, { 8, 16, 24 }, { 1, 3, 2, 5, 3 } },
    /* global pooling in 1-D: k = I */
    { "global I4k4", 4, 4, 1, 0, false, true, 0, 1, { 8 }, { 2, 2, 2, 2 } },
    /* kernel 1, stride 1: identity */
    { "identity", 3, 1, 1, 0, true, false, 0, 3, { 1, -2, 4 }, { 1, -2, 4 } },
};
#define N_EXAMPLES (sizeof examples / sizeof examples[0])

typedef struct placement_param {
    int example;
    int sd;
    int axis; /* 0 D, 1 H, 2 W */
} placement_param;

ParameterizedTestParameters(golden, one_axis)
{
    static placement_param params[N_EXAMPLES * 5];
    size_t n = 0;
    for (size_t e = 0; e < N_EXAMPLES; e++) {
        params[n++] = (placement_param){ (int)e, 2, 1 };
        params[n++] = (placement_param){ (int)e, 2, 2 };
        params[n++] = (placement_param){ (int)e, 3, 0 };
        params[n++] = (placement_param){ (int)e, 3, 1 };
        params[n++] = (placement_param){ (int)e, 3, 2 };
    }
    return cr_make_param_array(placement_param, params, n);
}

/* The 1-D example on one axis; the other axes have size 1 (or 2 with kernel 1: two independent copies). */
ParameterizedTest(placement_param *pp, golden, one_axis)
{
    const ex1d *e = &examples[pp->example];
    cr_log_info("example '%s', %dD axis %d", e->name, pp->sd, pp->axis);
    for (int other = 1; other <= 2; other++) {
        gcase g;
        memset(&g, 0, sizeof g);
        g.sd = pp->sd;
        g.n = 1;
        g.c = 1;
        for (int a = 0; a < 3; a++) {
            g.in[a] = (a == 0 && pp->sd == 2) ? 1 : other;
            g.k[a] = g.s[a] = 1;
            g.p[a] = 0;
            g.out[a] = g.in[a];
        }
        const int ax = pp->axis;
        g.in[ax] = e->i;
        g.k[ax] = e->k;
        g.s[ax] = e->s;
        g.p[ax] = e->p;
        g.out[ax] = e->o;
        g.ceil_mode = e->ceil_mode;
        g.cip = e->cip;
        g.div = e->div;
        /* with a size-2 other axis (kernel 1, stride 1) the second copy gets the gradients doubled */
        int64_t total_o = g.out[0] * g.out[1] * g.out[2], total_i = g.in[0] * g.in[1] * g.in[2];
        for (int64_t idx = 0; idx < total_o; idx++) {
            int64_t c3[3] = { idx / (g.out[1] * g.out[2]), (idx / g.out[2]) % g.out[1], idx % g.out[2] };
            int copy = 0;
            for (int a = 0; a < 3; a++)
                if (a != ax && c3[a] == 1)
                    copy++;
            g.go[idx] = e->go[c3[ax]] * (float)(1 << copy);
        }
        for (int64_t idx = 0; idx < total_i; idx++) {
            int64_t c3[3] = { idx / (g.in[1] * g.in[2]), (idx / g.in[2]) % g.in[1], idx % g.in[2] };
            int copy = 0;
            for (int a = 0; a < 3; a++)
                if (a != ax && c3[a] == 1)
                    copy++;
            g.gi[idx] = e->gi[c3[ax]] * (float)(1 << copy);
        }
        run_case(&g);
    }
}

/* ------------------------------------------------------------------ multi-axis cases */

/*
 * 2D, H: SEMANTICS 5.2 (I=4 k=3 s=2 p=1 ceil), W: 5.1 (I=5 k=2 s=2 ceil), countIncludePad.
 * Divisors pool_h * pool_w = {3,3,2} x {2,2,1}:
 *   div = [6 6 3; 6 6 3; 4 4 2], go = [6 12 3; 12 24 6; 4 8 2], go/div = [1 2 1; 2 4 2; 1 2 1].
 * gi[h][w] sums go/div over oh covering h ({0}, {0,1}, {1}, {1,2}) and ow covering w ({0},{0},{1},{1},{2}).
 * E.g. gi[1][2] = (go/div)[0][1] + (go/div)[1][1] = 2 + 4 = 6; gi[3][4] = 2 + 1 = 3.
 */
Test(golden, two_axes_count_include_pad)
{
    gcase g = { .sd = 2, .n = 1, .c = 1, .in = { 1, 4, 5 }, .k = { 1, 3, 2 }, .s = { 1, 2, 2 }, .p = { 0, 1, 0 },
                .ceil_mode = true, .cip = true, .div = 0, .out = { 1, 3, 3 },
                .go = { 6, 12, 3, 12, 24, 6, 4, 8, 2 },
                .gi = { 1, 1, 2, 2, 1,
                        3, 3, 6, 6, 3,
                        2, 2, 4, 4, 2,
                        3, 3, 6, 6, 3 } };
    run_case(&g);
}

/*
 * Same without countIncludePad: divisors cnt_h * cnt_w = {2,3,1} x {2,2,1}:
 *   div = [4 4 2; 6 6 3; 2 2 1], go/div = [1.5 3 1.5; 2 4 2; 2 4 2].
 * gi[0][*] = row 0 = [1.5 1.5 3 3 1.5]; gi[1][*] = row0+row1 = [3.5 3.5 7 7 3.5];
 * gi[2][*] = row1 = [2 2 4 4 2]; gi[3][*] = row1+row2 = [4 4 8 8 4].
 */
Test(golden, two_axes_exclude_pad)
{
    gcase g = { .sd = 2, .n = 1, .c = 1, .in = { 1, 4, 5 }, .k = { 1, 3, 2 }, .s = { 1, 2, 2 }, .p = { 0, 1, 0 },
                .ceil_mode = true, .cip = false, .div = 0, .out = { 1, 3, 3 },
                .go = { 6, 12, 3, 12, 24, 6, 4, 8, 2 },
                .gi = { 1.5f, 1.5f, 3, 3, 1.5f,
                        3.5f, 3.5f, 7, 7, 3.5f,
                        2, 2, 4, 4, 2,
                        4, 4, 8, 8, 4 } };
    run_case(&g);
}

/*
 * Same geometry in floor mode: O = 2 x 2 (H: 3/2+1, W: 3/2+1); column 4 uncovered (+0.0).
 * countIncludePad: div = 3*2 = 6 everywhere; go = [6 12; 18 -24] -> go/div = [1 2; 3 -4].
 */
Test(golden, two_axes_floor)
{
    gcase g = { .sd = 2, .n = 1, .c = 1, .in = { 1, 4, 5 }, .k = { 1, 3, 2 }, .s = { 1, 2, 2 }, .p = { 0, 1, 0 },
                .ceil_mode = false, .cip = true, .div = 0, .out = { 1, 2, 2 },
                .go = { 6, 12, 18, -24 },
                .gi = { 1, 1, 2, 2, 0,
                        4, 4, -2, -2, 0,
                        3, 3, -4, -4, 0,
                        3, 3, -4, -4, 0 } };
    run_case(&g);
}

/* Global 2D pooling, N=2 C=2: kernel = (H, W) = (3, 4), divisor 12: each plane gets go/12. */
Test(golden, global_2d)
{
    gcase g = { .sd = 2, .n = 2, .c = 2, .in = { 1, 3, 4 }, .k = { 1, 3, 4 }, .s = { 1, 1, 1 }, .p = { 0, 0, 0 },
                .ceil_mode = false, .cip = false, .div = 0, .out = { 1, 1, 1 }, .go = { 24, -12, 48, 6 } };
    for (int i = 0; i < 48; i++)
        g.gi[i] = (float[]){ 2, -1, 4, 0.5f }[i / 12];
    run_case(&g);
    /* the same with ceil mode and stride 2: O = (3-3+1)/2+1 = 1, 0*2 < 3 keeps it: identical */
    g.ceil_mode = true;
    g.s[1] = g.s[2] = 2;
    run_case(&g);
}

/* Global 3D pooling: kernel = (2, 3, 4), divisor 24; N=1 C=2. */
Test(golden, global_3d)
{
    gcase g = { .sd = 3, .n = 1, .c = 2, .in = { 2, 3, 4 }, .k = { 2, 3, 4 }, .s = { 2, 3, 4 }, .p = { 0, 0, 0 },
                .ceil_mode = false, .cip = true, .div = 0, .out = { 1, 1, 1 }, .go = { 48, -6 } };
    for (int i = 0; i < 48; i++)
        g.gi[i] = i < 24 ? 2.0f : -0.25f;
    run_case(&g);
    g.div = -3; /* override: 48/-3 = -16, -6/-3 = 2 */
    for (int i = 0; i < 48; i++)
        g.gi[i] = i < 24 ? -16.0f : 2.0f;
    run_case(&g);
}

/*
 * 3D, every axis different, countIncludePad on/off, negative override, ceil mode. Separable, so the
 * expected tensor is the outer product of hand-computed 1-D vectors.
 *   D: I=3 k=3 s=2 p=1: O = (3+2-3+1)/2+1 = 2, (2-1)*2 = 2 < 3+1 keeps it;
 *      od0 [-1,2) pool 3 cnt 2 covers d0 d1; od1 [1,4) -> end min(4, 4) = 4, pool 3, clipped [1,3) cnt 2 covers d1 d2.
 *   H: I=4 k=2 s=3 p=0: O = (4-2+2)/3+1 = 2, 1*3 < 4 keeps it; oh0 [0,2) pool 2 cnt 2 covers h0 h1,
 *      h2 uncovered, oh1 [3,5) -> end 4, pool 1 cnt 1 covers h3 (its gradients are 0 here).
 *   W: I=3 k=2 s=1 p=1: O = (3+2-2+0)/1+1 = 4, 3*1 < 4 keeps it; ow0 [-1,1) pool 2 cnt 1, ow1 [0,2) 2/2,
 *      ow2 [1,3) 2/2, ow3 [2,4) pool 2 cnt 1; w0 by ow0 ow1, w1 by ow1 ow2, w2 by ow2 ow3.
 * go[od][0][ow] = gd[od] * gw[ow], gd = (6, 12), gw = (2, 4, 4, 2); go[.][1][.] = 0 (gives +0.0: +0 + 0/div).
 * gi[d][h][w] = 0 for h = 2, 3; else Dsum[d] * Wsum[w] with
 *  countIncludePad, divisor 3*2*2 = 12 = 3 * 4: (gd/3) x (gw/4) = (2, 4) x (0.5, 1, 1, 0.5)
 *      Dsum = (2, 2+4, 4) = (2, 6, 4); Wsum = (0.5+1, 1+1, 1+0.5) = (1.5, 2, 1.5)
 *  exclude pad, divisor cnt = 2 * 2 * (1, 2, 2, 1): (gd/2) x (gw/(2*cnt_w)) = (3, 6) x (1, 1, 1, 1)
 *      Dsum = (3, 9, 6); Wsum = (2, 2, 2)
 *  override -8: gd*gw/-8 = (-gd/4) x (gw/2) = (-1.5, -3) x (1, 2, 2, 1)
 *      Dsum = (-1.5, -4.5, -3); Wsum = (3, 4, 3)
 */
static void separable_3d(bool cip, int64_t div, const float fd[3], const float fw[3])
{
    gcase g = { .sd = 3, .n = 1, .c = 1, .in = { 3, 4, 3 }, .k = { 3, 2, 2 }, .s = { 2, 3, 1 }, .p = { 1, 0, 1 },
                .ceil_mode = true, .cip = cip, .div = div, .out = { 2, 2, 4 } };
    const float gd[2] = { 6, 12 }, gw[4] = { 2, 4, 4, 2 };
    for (int od = 0; od < 2; od++)
        for (int oh = 0; oh < 2; oh++)
            for (int ow = 0; ow < 4; ow++)
                g.go[(od * 2 + oh) * 4 + ow] = oh == 0 ? gd[od] * gw[ow] : 0.0f;
    for (int d = 0; d < 3; d++)
        for (int h = 0; h < 4; h++)
            for (int w = 0; w < 3; w++)
                g.gi[(d * 4 + h) * 3 + w] = h < 2 ? fd[d] * fw[w] : 0.0f;
    run_case(&g);
}

Test(golden, three_axes_count_include_pad)
{
    separable_3d(true, 0, (const float[]){ 2, 6, 4 }, (const float[]){ 1.5f, 2, 1.5f });
}

Test(golden, three_axes_exclude_pad)
{
    separable_3d(false, 0, (const float[]){ 3, 9, 6 }, (const float[]){ 2, 2, 2 });
}

Test(golden, three_axes_override_negative)
{
    separable_3d(true, -8, (const float[]){ -1.5f, -4.5f, -3 }, (const float[]){ 3, 4, 3 });
}

/*
 * Canonical NaN (docs/SEMANTICS.md section 4), by hand: W = 6, k = 2, s = 1, no padding, divisor 2.
 * gradOutput (5 windows) = [qNaN with payload, negative signalling NaN, +inf, -inf, 1]:
 * gi[0] = NaN/2, gi[1] = NaN/2 + NaN/2, gi[2] = NaN/2 + inf/2, gi[3] = inf/2 + -inf/2 (x86's default
 * NaN is 0xffc00000, Arm's 0x7fc00000), gi[4] = -inf/2 + 1/2 = -inf, gi[5] = 1/2.
 * Every NaN is stored as the canonical quiet NaN, under every ISA cap and thread count.
 */
Test(golden, canonical_nan)
{
    static const uint32_t go_bits[3][5] = {
        { 0x7fa00001u, 0xff800001u, 0x7f800000u, 0xff800000u, 0x3f800000u },
        { 0x7d01u, 0xfc01u, 0x7c00u, 0xfc00u, 0x3c00u },
        { 0x7fa1u, 0xff81u, 0x7f80u, 0xff80u, 0x3f80u },
    };
    static const uint32_t gi_bits[3][6] = {
        { 0x7fc00000u, 0x7fc00000u, 0x7fc00000u, 0x7fc00000u, 0xff800000u, 0x3f000000u },
        { 0x7e00u, 0x7e00u, 0x7e00u, 0x7e00u, 0xfc00u, 0x3800u },
        { 0x7fc0u, 0x7fc0u, 0x7fc0u, 0x7fc0u, 0xff80u, 0x3f00u },
    };
    static const char *const caps[] = { "scalar", "sse2", "avx2", "avx512", "neon", "auto" };
    const int64_t C = 19; /* channels-last runs vectorize along C: every lane sees the same column */
    int64_t ishape[4] = { 1, C, 1, 6 }, oshape[4] = { 1, C, 1, 5 };
    int64_t k[2] = { 1, 2 }, s[2] = { 1, 1 }, p[2] = { 0, 0 };
    poolgrad_params pa = pgt_params_axes(2, k, s, p, false, true, 0);
    for (int di = 0; di < 3; di++) {
        poolgrad_dtype dt = all_dtypes[di];
        for (int layout = 0; layout < 2; layout++) {
            pgt_buffer go = pgt_alloc(dt, C * 5), gi = pgt_alloc(dt, C * 6);
            poolgrad_tensor tgo, tgi;
            if (layout == 0) {
                cr_assert_eq(poolgrad_tensor_init_contiguous(&tgo, dt, 4, oshape, go.data), POOLGRAD_OK);
                cr_assert_eq(poolgrad_tensor_init_contiguous(&tgi, dt, 4, ishape, gi.data), POOLGRAD_OK);
            } else {
                cr_assert_eq(poolgrad_tensor_init_channels_last(&tgo, dt, 4, 2, oshape, go.data), POOLGRAD_OK);
                cr_assert_eq(poolgrad_tensor_init_channels_last(&tgi, dt, 4, 2, ishape, gi.data), POOLGRAD_OK);
            }
            for (int64_t c = 0; c < C; c++)
                for (int64_t w = 0; w < 5; w++) {
                    char *e = (char *)go.data + (c * tgo.strides[1] + w * tgo.strides[3]) * (int64_t)go.es;
                    memcpy(e, &go_bits[di][w], go.es); /* little-endian: the low bytes */
                }
            for (size_t ci = 0; ci < sizeof caps / sizeof caps[0]; ci++)
                for (int threads = 1; threads <= 3; threads += 2) {
                    setenv("POOLGRAD_ISA", caps[ci], 1);
                    cr_assert_eq(poolgrad_avgpool_backward(&pa, &tgo, &tgi, threads), POOLGRAD_OK);
                    unsetenv("POOLGRAD_ISA");
                    cr_assert(pgt_guards_intact(&gi));
                    for (int64_t c = 0; c < C; c++)
                        for (int64_t w = 0; w < 6; w++) {
                            uint32_t got = 0;
                            memcpy(&got, (char *)gi.data + (c * tgi.strides[1] + w * tgi.strides[3]) * (int64_t)gi.es,
                                   gi.es);
                            cr_assert_eq(got, gi_bits[di][w], "%s layout %d cap %s, %d threads: gi[c=%lld][w=%lld] = 0x%x, "
                                         "expected 0x%x", dtype_name[di], layout, caps[ci], threads, (long long)c,
                                         (long long)w, got, gi_bits[di][w]);
                        }
                }
            pgt_free(&go);
            pgt_free(&gi);
        }
    }
}
