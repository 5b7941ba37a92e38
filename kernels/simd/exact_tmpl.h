/*
 * Template: the operations of one ISA's vector layer whose bits the exactness argument rests on, as array
 * functions for exhaustive tests (checkasm's "conversions" and "pow2_reciprocals"): the f16/bf16
 * conversions, compared with convert.h (exactly the code the kernels run: pg_ld for gradOutput loads,
 * pg_st for result stores), the quotient pg_quot computes either way, a division or a multiplication
 * by the reciprocal, and that reciprocal (pg_recip_pow2). Included once per ISA translation unit by kernels_tmpl.h.
 * Defines: const poolgrad_vec_exact PG_KSYM(exact).
 */
#ifndef PG_KSYM
#error "exact_tmpl.h is a template: include it from kernels_tmpl.h"
#endif

/* n (a multiple of 64) f16 values, loaded as the kernels load gradOutput */
static void vec_widen_f16(const uint16_t *src, float *dst, int64_t n)
{
    for (int64_t i = 0; i < n; i += VL)
        vf_storeu(dst + i, pg_ld((const char *)(src + i), POOLGRAD_F16));
}

/* n (a multiple of 64) f32 results, stored as the kernels store them in dtype dt (f16 or bf16) */
static void vec_narrow(poolgrad_dtype dt, const float *src, uint16_t *dst, int64_t n)
{
    for (int64_t i = 0; i < n; i += VL) {
        if (dt == POOLGRAD_F16)
            pg_st((char *)(dst + i), vf_loadu(src + i), POOLGRAD_F16);
        else
            pg_st((char *)(dst + i), vf_loadu(src + i), POOLGRAD_BF16);
    }
}

/* n (a multiple of 64) quotients x / d: recip false divides by d, recip true multiplies by r = 1/d */
static void vec_quotients(const float *x, float *q, int64_t n, float d, float r, bool recip)
{
    const vf vd = vf_set1(d), vr = vf_set1(r);
    for (int64_t i = 0; i < n; i += VL)
        vf_storeu(q + i, recip ? vf_mul(vf_loadu(x + i), vr) : vf_div(vf_loadu(x + i), vd));
}

static float vec_recip_pow2(int64_t f) { return pg_recip_pow2(f); }

const poolgrad_vec_exact PG_KSYM(exact) = {
    .isa = PG_ISA,
#if defined(PG_HW_F16)
    .f16_by = "conversion instructions",
#else
    .f16_by = "integer code",
#endif
    .widen_f16 = vec_widen_f16,
    .narrow = vec_narrow,
    .quotients = vec_quotients,
    .recip_pow2 = vec_recip_pow2,
};
