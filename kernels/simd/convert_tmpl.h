/*
 * Template: the vector layer's f16/bf16 conversions of one ISA as array functions, for the exhaustive
 * comparison with convert.h (checkasm's "conversions" test). They run exactly the code the kernels run:
 * pg_ld for gradOutput loads, pg_st for result stores. Included once per ISA translation unit by
 * kernels_tmpl.h. Defines: const poolgrad_vec_convert PG_KSYM(convert).
 */
#ifndef PG_KSYM
#error "convert_tmpl.h is a template: include it from kernels_tmpl.h"
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

const poolgrad_vec_convert PG_KSYM(convert) = {
    .isa = PG_ISA,
#if defined(PG_HW_F16)
    .f16_by = "conversion instructions",
#else
    .f16_by = "integer code",
#endif
    .widen_f16 = vec_widen_f16,
    .narrow = vec_narrow,
};
