/*
 * Independent checks on randomized shapes, both operators, all three dtypes.
 *
 * For every random problem (seeded; the seed is printed, POOLGRAD_TEST_SEED replays it):
 *  1. bit-exact: the library (native API with 1, the default and 5 threads, and the aclnn front)
 *     equals pgt_scatter_f32 (unit_common.h), a scatter over windows in ascending
 *     (od, oh, ow) order with f32 accumulation and one final rounding, written here from
 *     docs/SEMANTICS.md section 4; all four runs are bit-identical (determinism).
 *  2. against the exact sum: `exact` = sum of g/div over the covering windows in double, `mag` = sum
 *     of |g/div|, n = number of terms. The f32 accumulation (n roundings of the quotients, n-1 of the
 *     additions) is within E32 = (n + 1) * 2^-24 * mag of exact (the classical recursive-summation
 *     bound n*u*sum|t| (1 + O(nu)); the +1 absorbs the O(nu) term for n <= 64). Asserted:
 *       f32:       |got - exact| <= E32
 *       f16/bf16:  |got - exact| <= ulp(|exact| + E32)/2 + E32        (one rounding of the f32 sum), and
 *                  got is within 1 ULP of round_once(exact) whenever E32 <= ulp(exact)/8 (no cancellation
 *                  large enough to move the f32 sum by a quarter of the smaller adjacent spacing).
 *  3. the adjoint identity <avgpool_forward(x), g> = <x, backward(g)> for a random x, with the forward
 *     pass computed in double by an independent gather, within sum_i |x_i| * bound_i + 1e-12 * scale.
 * A second test feeds specials (NaN, inf, subnormals, -0, huge values) and checks (1) only, NaN-aware.
 */
#include <float.h>

#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "testutil.h"
#include "aclnn_runner.h"
#include "oracle.h"

static const char *const dtype_name[3] = { "f32", "f16", "bf16" };

typedef struct rcase {
    poolgrad_params pa;
    int rank;
    int64_t ishape[5], oshape[5];
    pgt_problem u;
} rcase;

/* A random valid problem; output sizes >= 0 (an empty gradOutput happens now and then). */
static rcase random_case(pgt_rng *r, int sd)
{
    for (;;) {
        rcase c;
        memset(&c, 0, sizeof c);
        c.pa.spatial_dims = sd;
        const bool batched = pgt_range(r, 0, 3) != 0;
        const bool wide = pgt_range(r, 0, 3) == 0; /* long rows / many channels: vector kernels' main loops */
        c.rank = sd + (batched ? 2 : 1);
        int i = 0;
        if (batched)
            c.ishape[i++] = pgt_range(r, 1, 3);
        c.ishape[i++] = pgt_range(r, 1, wide ? 19 : 4);
        for (int a = 0; a < sd; a++) {
            int64_t in = pgt_range(r, 1, sd == 2 ? 11 : 6);
            if (wide && a == sd - 1)
                in = pgt_range(r, 1, sd == 2 ? 70 : 40);
            c.ishape[i++] = in;
            int64_t k = pgt_range(r, 1, sd == 2 ? 5 : 4);
            c.pa.kernel[a] = k;
            c.pa.stride[a] = pgt_range(r, 1, 4);
            c.pa.padding[a] = pgt_range(r, 0, k / 2);
        }
        c.pa.ceil_mode = pgt_range(r, 0, 1);
        c.pa.count_include_pad = pgt_range(r, 0, 1);
        switch (pgt_range(r, 0, 7)) {
        case 0: c.pa.divisor_override = pgt_range(r, 1, 9); break;
        case 1: c.pa.divisor_override = -pgt_range(r, 1, 9); break;
        default: c.pa.divisor_override = 0; break;
        }
        c.u = pgt_problem_make(&c.pa, c.rank, c.ishape);
        bool ok = true;
        for (int a = 0; a < 3; a++)
            if (c.u.out[a] < 0)
                ok = false;
        if (!ok)
            continue;
        int lead = c.rank - sd;
        for (int d = 0; d < lead; d++)
            c.oshape[d] = c.ishape[d];
        for (int a = 0; a < sd; a++)
            c.oshape[lead + a] = c.u.out[3 - sd + a];
        return c;
    }
}

/* Spacing of the half format at magnitude x (finite, >= 0). */
static double half_ulp(double x, bool bf16)
{
    const int mb = bf16 ? 7 : 10, emin = bf16 ? -126 : -14;
    int e;
    if (x < ldexp(1.0, emin))
        return ldexp(1.0, emin - mb);
    (void)frexp(x, &e);
    return ldexp(1.0, e - 1 - mb);
}

static bool same_or_both_nan(poolgrad_dtype dt, const void *a, const void *b, int64_t i)
{
    if (pgt_bits_at(dt, a, i) == pgt_bits_at(dt, b, i))
        return true;
    return isnan(pgt_decode(dt, a, i)) && isnan(pgt_decode(dt, b, i));
}

#define NRUNS 4
static const int run_threads[NRUNS - 1] = { 1, 0, 5 };

/* Run the library NRUNS ways (native with 1, default and 5 threads; aclnn), check guards and agreement. */
static void run_library(const rcase *c, poolgrad_dtype dt, const pgt_buffer *go, pgt_buffer out[NRUNS], int sd)
{
    const int64_t ni = pgt_in_numel(&c->u);
    poolgrad_tensor tgo, tgi;
    for (int v = 0; v < NRUNS; v++) {
        out[v] = pgt_alloc(dt, ni);
        cr_assert_eq(poolgrad_tensor_init_contiguous(&tgo, dt, c->rank, c->oshape, go->data), POOLGRAD_OK);
        cr_assert_eq(poolgrad_tensor_init_contiguous(&tgi, dt, c->rank, c->ishape, out[v].data), POOLGRAD_OK);
        if (v < NRUNS - 1) {
            poolgrad_status st = poolgrad_avgpool_backward(&c->pa, &tgo, &tgi, run_threads[v]);
            cr_assert_eq(st, POOLGRAD_OK, "native: %s", poolgrad_status_string(st));
        } else {
            aclFormat fmt = sd == 3 ? ACL_FORMAT_NCDHW : (c->rank == 4 ? ACL_FORMAT_NCHW : ACL_FORMAT_NCL);
            aclTensor *ago = pgt_acl_dense(c->oshape, c->rank, pgt_acl_dtype(dt), fmt, go->data);
            aclTensor *agi = pgt_acl_dense(c->ishape, c->rank, pgt_acl_dtype(dt), fmt, out[v].data);
            pgt_acl_result r = pgt_acl_run_arrays(sd, ago, agi, agi, c->pa.kernel, sd, c->pa.stride, sd, c->pa.padding, sd,
                                                c->pa.ceil_mode, c->pa.count_include_pad, c->pa.divisor_override, 0);
            cr_assert(r.plan == ACLNN_SUCCESS && r.exec == ACLNN_SUCCESS, "aclnn: plan %d exec %d", r.plan, r.exec);
            aclDestroyTensor(ago);
            aclDestroyTensor(agi);
        }
        cr_assert(pgt_guards_intact(&out[v]), "write outside gradInput (run %d)", v);
    }
    for (int v = 1; v < NRUNS; v++)
        for (int64_t i = 0; i < ni; i++)
            cr_assert(same_or_both_nan(dt, out[0].data, out[v].data, i),
                      "run %d differs from the 1-thread native run at %" PRId64 " (non-deterministic?)", v, i);
}

static void describe(const rcase *c, poolgrad_dtype dt, int idx)
{
    cr_log_info("case %d %s rank %d in [%" PRId64 " %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64 "] k %" PRId64
                ",%" PRId64 ",%" PRId64 " s %" PRId64 ",%" PRId64 ",%" PRId64 " p %" PRId64 ",%" PRId64 ",%" PRId64
                " ceil %d cip %d div %" PRId64,
                idx, dtype_name[dt], c->rank, c->ishape[0], c->ishape[1], c->ishape[2], c->ishape[3], c->ishape[4],
                c->pa.kernel[0], c->pa.kernel[1], c->pa.kernel[2], c->pa.stride[0], c->pa.stride[1], c->pa.stride[2],
                c->pa.padding[0], c->pa.padding[1], c->pa.padding[2], c->pa.ceil_mode, c->pa.count_include_pad,
                c->pa.divisor_override);
}

typedef struct nparam {
    int sd;
    int dtype;
    int block;
} nparam;

ParameterizedTestParameters(naive, random_ordinary)
{
    static nparam p[12];
    int n = 0;
    for (int sd = 2; sd <= 3; sd++)
        for (int dt = 0; dt < 3; dt++)
            for (int b = 0; b < 2; b++)
                p[n++] = (nparam){ sd, dt, b };
    return cr_make_param_array(nparam, p, (size_t)n);
}

ParameterizedTest(nparam *np, naive, random_ordinary, .timeout = 60)
{
    const poolgrad_dtype dt = (poolgrad_dtype)np->dtype;
    const bool half = dt != POOLGRAD_F32, bf16 = dt == POOLGRAD_BF16;
    char what[64];
    snprintf(what, sizeof what, "naive %dD %s block %d", np->sd, dtype_name[dt], np->block);
    pgt_rng rng = { pgt_seed(what, 0x5eed0000u + (uint64_t)np->sd * 100 + (uint64_t)np->dtype * 10 + (uint64_t)np->block) };
    const double u32 = 0x1p-24;
    int checked_1ulp = 0, total = 0;
    cr_log_info("%s: active ISA %s", what, poolgrad_isa_name(poolgrad_active_isa()));
    for (int it = 0; it < 120; it++) {
        rcase c = random_case(&rng, np->sd);
        const int64_t ni = pgt_in_numel(&c.u), no = pgt_out_numel(&c.u);
        pgt_buffer go = pgt_alloc(dt, no);
        for (int64_t i = 0; i < no; i++)
            pgt_store(dt, go.data, i, pgt_value(&rng, false));
        pgt_buffer out[NRUNS];
        run_library(&c, dt, &go, out, np->sd);

        /* 1. bit-exact against the scatter emulation */
        pgt_buffer emu = pgt_alloc(dt, ni);
        pgt_scatter_f32(&c.u, dt, go.data, emu.data);
        for (int64_t i = 0; i < ni; i++)
            if (pgt_bits_at(dt, out[0].data, i) != pgt_bits_at(dt, emu.data, i)) {
                describe(&c, dt, it);
                cr_assert_fail("gradInput[%" PRId64 "] = %a (0x%x), golden emulation %a (0x%x)", i,
                               pgt_decode(dt, out[0].data, i), pgt_bits_at(dt, out[0].data, i),
                               pgt_decode(dt, emu.data, i), pgt_bits_at(dt, emu.data, i));
            }

        /* 2. against the exact sum */
        double *exact = malloc(sizeof(double) * (size_t)(ni + 1)), *mag = malloc(sizeof(double) * (size_t)(ni + 1)),
               *bound = malloc(sizeof(double) * (size_t)(ni + 1));
        int64_t *terms = malloc(sizeof(int64_t) * (size_t)(ni + 1));
        pgt_scatter_f64(&c.u, dt, go.data, exact, mag, terms);
        for (int64_t i = 0; i < ni; i++) {
            const double got = pgt_decode(dt, out[0].data, i);
            const double e32 = (double)(terms[i] + 1) * u32 * mag[i] + (double)terms[i] * 0x1p-149;
            double b = e32;
            if (half)
                b += half_ulp(fabs(exact[i]) + e32, bf16) / 2;
            bound[i] = b;
            if (!(fabs(got - exact[i]) <= b)) {
                describe(&c, dt, it);
                cr_assert_fail("gradInput[%" PRId64 "] = %.17g, exact %.17g, |err| %.3g > bound %.3g (%" PRId64
                               " terms, sum|t| %.6g)",
                               i, got, exact[i], fabs(got - exact[i]), b, terms[i], mag[i]);
            }
            if (half) {
                total++;
                if (e32 <= half_ulp(fabs(exact[i]), bf16) / 8) {
                    checked_1ulp++;
                    uint16_t once = pgt_round_half(exact[i], bf16);
                    int64_t d = pgt_ulp_diff(pgt_bits_at(dt, out[0].data, i), once, 16);
                    if (d > 1) {
                        describe(&c, dt, it);
                        cr_assert_fail("gradInput[%" PRId64 "] = 0x%04x is %" PRId64
                                       " ULP from the exact %.17g rounded once (0x%04x)",
                                       i, pgt_bits_at(dt, out[0].data, i), d, exact[i], once);
                    }
                }
            }
        }

        /* 3. the adjoint identity */
        if (no > 0) {
            double *x = malloc(sizeof(double) * (size_t)ni), *y = malloc(sizeof(double) * (size_t)no);
            for (int64_t i = 0; i < ni; i++)
                x[i] = (double)pgt_unit(&rng);
            pgt_forward_f64(&c.u, x, y);
            double lhs = 0, rhs = 0, tol = 0, scale = 0;
            for (int64_t o = 0; o < no; o++) {
                double g = pgt_decode(dt, go.data, o);
                lhs += y[o] * g;
                scale += fabs(y[o] * g);
            }
            for (int64_t i = 0; i < ni; i++) {
                double gi = pgt_decode(dt, out[0].data, i);
                rhs += x[i] * gi;
                tol += fabs(x[i]) * bound[i];
                scale += fabs(x[i] * gi);
            }
            tol += 1e-12 * scale;
            if (!(fabs(lhs - rhs) <= tol)) {
                describe(&c, dt, it);
                cr_assert_fail("adjoint: <fwd(x), g> = %.17g, <x, bwd(g)> = %.17g, diff %.3g > %.3g", lhs, rhs,
                               fabs(lhs - rhs), tol);
            }
            free(x);
            free(y);
        }
        free(exact);
        free(mag);
        free(bound);
        free(terms);
        for (int v = 0; v < NRUNS; v++)
            pgt_free(&out[v]);
        pgt_free(&emu);
        pgt_free(&go);
    }
    if (half) {
        cr_log_info("%s: 1-ULP check applied to %d of %d elements", what, checked_1ulp, total);
        cr_assert(checked_1ulp * 4 >= total, "the 1-ULP check covered too few elements (%d of %d)", checked_1ulp, total);
    }
}

ParameterizedTestParameters(naive, random_specials)
{
    static nparam p[6];
    int n = 0;
    for (int sd = 2; sd <= 3; sd++)
        for (int dt = 0; dt < 3; dt++)
            p[n++] = (nparam){ sd, dt, 0 };
    return cr_make_param_array(nparam, p, (size_t)n);
}

/* NaN, +-inf, +-0, subnormals (f32 and f16 range), values near the f16 maximum and 3e38 (overflowing sums). */
ParameterizedTest(nparam *np, naive, random_specials, .timeout = 60)
{
    const poolgrad_dtype dt = (poolgrad_dtype)np->dtype;
    char what[64];
    snprintf(what, sizeof what, "naive specials %dD %s", np->sd, dtype_name[dt]);
    pgt_rng rng = { pgt_seed(what, 0x5bec0000u + (uint64_t)np->sd * 10 + (uint64_t)np->dtype) };
    for (int it = 0; it < 80; it++) {
        rcase c = random_case(&rng, np->sd);
        const int64_t ni = pgt_in_numel(&c.u), no = pgt_out_numel(&c.u);
        pgt_buffer go = pgt_alloc(dt, no);
        for (int64_t i = 0; i < no; i++)
            pgt_store(dt, go.data, i, pgt_value(&rng, true));
        pgt_buffer out[NRUNS];
        run_library(&c, dt, &go, out, np->sd);
        pgt_buffer emu = pgt_alloc(dt, ni);
        pgt_scatter_f32(&c.u, dt, go.data, emu.data);
        for (int64_t i = 0; i < ni; i++)
            if (!same_or_both_nan(dt, out[0].data, emu.data, i)) {
                describe(&c, dt, it);
                cr_assert_fail("gradInput[%" PRId64 "] = %a (0x%x), golden emulation %a (0x%x)", i,
                               pgt_decode(dt, out[0].data, i), pgt_bits_at(dt, out[0].data, i),
                               pgt_decode(dt, emu.data, i), pgt_bits_at(dt, emu.data, i));
            }
        for (int v = 0; v < NRUNS; v++)
            pgt_free(&out[v]);
        pgt_free(&emu);
        pgt_free(&go);
    }
}

/* Subnormal quotients are kept (no flush to zero): 2^-149 / 1 and 2^-140 / 3 in f32. */
Test(naive, no_flush_to_zero)
{
    float go[2] = { 0x1p-149f, 0x1p-140f }, gi[2] = { -1, -1 };
    poolgrad_params pa = pgt_params(2, 1, 1, 0, false, true, 0);
    pa.divisor_override = 0;
    int64_t shape[3] = { 1, 1, 2 };
    poolgrad_tensor tgo, tgi;
    cr_assert_eq(poolgrad_tensor_init_contiguous(&tgo, POOLGRAD_F32, 3, shape, go), POOLGRAD_OK);
    cr_assert_eq(poolgrad_tensor_init_contiguous(&tgi, POOLGRAD_F32, 3, shape, gi), POOLGRAD_OK);
    cr_assert_eq(poolgrad_avgpool_backward(&pa, &tgo, &tgi, 1), POOLGRAD_OK);
    cr_assert_eq(pgt_f32_bits(gi[0]), 1u, "2^-149 flushed: %a", (double)gi[0]);
    cr_assert_eq(gi[1], 0x1p-140f);
    pa.divisor_override = 3;
    cr_assert_eq(poolgrad_avgpool_backward(&pa, &tgo, &tgi, 1), POOLGRAD_OK);
    cr_assert_eq(gi[1], 0x1p-140f / 3.0f); /* a subnormal, rounded once by the division */
    cr_assert_eq(pgt_f32_bits(gi[0]), 0u, "2^-149 / 3 rounds to +0");
    /* f16: the subnormal 2^-24 survives a division by 1, 3 * 2^-24 / 2 = 1.5 units rounds (from f32) to 2 units */
    uint16_t h_go[2] = { 0x0001, 0x0003 }, h_gi[2] = { 0xffff, 0xffff };
    cr_assert_eq(poolgrad_tensor_init_contiguous(&tgo, POOLGRAD_F16, 3, shape, h_go), POOLGRAD_OK);
    cr_assert_eq(poolgrad_tensor_init_contiguous(&tgi, POOLGRAD_F16, 3, shape, h_gi), POOLGRAD_OK);
    pa.divisor_override = 1;
    cr_assert_eq(poolgrad_avgpool_backward(&pa, &tgo, &tgi, 1), POOLGRAD_OK);
    cr_assert(h_gi[0] == 0x0001 && h_gi[1] == 0x0003);
    pa.divisor_override = 2;
    cr_assert_eq(poolgrad_avgpool_backward(&pa, &tgo, &tgi, 1), POOLGRAD_OK);
    cr_assert_eq(h_gi[0], 0x0000, "2^-25 ties to even 0");
    cr_assert_eq(h_gi[1], 0x0002, "1.5 units ties to even 2");
}
