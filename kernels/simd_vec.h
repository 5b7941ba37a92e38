/*
 * Internal: a tiny vector layer over SIMDe's x86 API (simde_-prefixed intrinsics only), selected by
 * PG_VEC_LEVEL before inclusion:
 *   1 = 128-bit (simde_mm_*, SSE2 subset only; also used by the NEON translation unit, where SIMDe
 *       lowers it to Advanced SIMD),
 *   2 = 256-bit (simde_mm256_*, AVX2),
 *   3 = 512-bit (simde_mm512_*, AVX-512 F+BW+VL).
 * Only IEEE add/sub/mul/div are used on floats (never FMA); integer code does the f16/bf16 bits.
 * Every function is static inline: each ISA translation unit gets its own copy.
 */
#ifndef POOLGRAD_KERNELS_SIMD_VEC_H
#define POOLGRAD_KERNELS_SIMD_VEC_H

#include <stdint.h>
#include <string.h>

#ifndef PG_VEC_LEVEL
#error "define PG_VEC_LEVEL (1, 2 or 3) before including simd_vec.h"
#endif

#define PG_AI static inline __attribute__((always_inline))

#if PG_VEC_LEVEL == 1
#include <simde/x86/sse2.h>
#define VL 4
typedef simde__m128 vf;
typedef simde__m128i vi;
PG_AI vf vf_zero(void) { return simde_mm_setzero_ps(); }
PG_AI vf vf_set1(float x) { return simde_mm_set1_ps(x); }
PG_AI vf vf_add(vf a, vf b) { return simde_mm_add_ps(a, b); }
PG_AI vf vf_sub(vf a, vf b) { return simde_mm_sub_ps(a, b); }
PG_AI vf vf_mul(vf a, vf b) { return simde_mm_mul_ps(a, b); }
PG_AI vf vf_div(vf a, vf b) { return simde_mm_div_ps(a, b); }
PG_AI vf vf_loadu(const float *p) { return simde_mm_loadu_ps(p); }
PG_AI void vf_storeu(float *p, vf v) { simde_mm_storeu_ps(p, v); }
PG_AI vi vi_set1(int32_t x) { return simde_mm_set1_epi32(x); }
PG_AI vi vi_loadu(const int32_t *p) { return simde_mm_loadu_si128((const simde__m128i *)(const void *)p); }
PG_AI vi vi_and(vi a, vi b) { return simde_mm_and_si128(a, b); }
PG_AI vi vi_or(vi a, vi b) { return simde_mm_or_si128(a, b); }
PG_AI vi vi_add(vi a, vi b) { return simde_mm_add_epi32(a, b); }
PG_AI vi vi_sub(vi a, vi b) { return simde_mm_sub_epi32(a, b); }
#define vi_slli(a, n) simde_mm_slli_epi32((a), (n))
#define vi_srli(a, n) simde_mm_srli_epi32((a), (n))
#define vi_srai(a, n) simde_mm_srai_epi32((a), (n))
PG_AI vf vi_as_f(vi a) { return simde_mm_castsi128_ps(a); }
PG_AI vi vf_as_i(vf a) { return simde_mm_castps_si128(a); }
/* a > b (signed) ? x : y */
PG_AI vi vi_sel_gt(vi a, vi b, vi x, vi y)
{
    vi m = simde_mm_cmpgt_epi32(a, b);
    return simde_mm_or_si128(simde_mm_and_si128(m, x), simde_mm_andnot_si128(m, y));
}
/* every lane lo <= a <= hi (signed) */
PG_AI int vi_all_in(vi a, int32_t lo, int32_t hi)
{
    vi m = simde_mm_and_si128(simde_mm_cmpgt_epi32(a, simde_mm_set1_epi32(lo - 1)),
                              simde_mm_cmpgt_epi32(simde_mm_set1_epi32(hi + 1), a));
    return simde_mm_movemask_epi8(m) == 0xffff;
}
/* VL uint16 -> zero-extended lanes */
PG_AI vi vi_load_u16(const void *p)
{
    return simde_mm_unpacklo_epi16(simde_mm_loadl_epi64((const simde__m128i *)p), simde_mm_setzero_si128());
}
/* low 16 bits of each lane -> VL uint16 */
PG_AI void vi_store_u16(void *p, vi v)
{
    v = vi_srai(vi_slli(v, 16), 16); /* sign-extend so the signed pack never saturates */
    simde_mm_storel_epi64((simde__m128i *)p, simde_mm_packs_epi32(v, v));
}

#elif PG_VEC_LEVEL == 2
#include <simde/x86/avx2.h>
#define VL 8
typedef simde__m256 vf;
typedef simde__m256i vi;
PG_AI vf vf_zero(void) { return simde_mm256_setzero_ps(); }
PG_AI vf vf_set1(float x) { return simde_mm256_set1_ps(x); }
PG_AI vf vf_add(vf a, vf b) { return simde_mm256_add_ps(a, b); }
PG_AI vf vf_sub(vf a, vf b) { return simde_mm256_sub_ps(a, b); }
PG_AI vf vf_mul(vf a, vf b) { return simde_mm256_mul_ps(a, b); }
PG_AI vf vf_div(vf a, vf b) { return simde_mm256_div_ps(a, b); }
PG_AI vf vf_loadu(const float *p) { return simde_mm256_loadu_ps(p); }
PG_AI void vf_storeu(float *p, vf v) { simde_mm256_storeu_ps(p, v); }
PG_AI vi vi_set1(int32_t x) { return simde_mm256_set1_epi32(x); }
PG_AI vi vi_loadu(const int32_t *p) { return simde_mm256_loadu_si256((const void *)p); }
PG_AI vi vi_and(vi a, vi b) { return simde_mm256_and_si256(a, b); }
PG_AI vi vi_or(vi a, vi b) { return simde_mm256_or_si256(a, b); }
PG_AI vi vi_add(vi a, vi b) { return simde_mm256_add_epi32(a, b); }
PG_AI vi vi_sub(vi a, vi b) { return simde_mm256_sub_epi32(a, b); }
#define vi_slli(a, n) simde_mm256_slli_epi32((a), (n))
#define vi_srli(a, n) simde_mm256_srli_epi32((a), (n))
#define vi_srai(a, n) simde_mm256_srai_epi32((a), (n))
PG_AI vf vi_as_f(vi a) { return simde_mm256_castsi256_ps(a); }
PG_AI vi vf_as_i(vf a) { return simde_mm256_castps_si256(a); }
PG_AI vi vi_sel_gt(vi a, vi b, vi x, vi y)
{
    vi m = simde_mm256_cmpgt_epi32(a, b);
    return simde_mm256_or_si256(simde_mm256_and_si256(m, x), simde_mm256_andnot_si256(m, y));
}
PG_AI int vi_all_in(vi a, int32_t lo, int32_t hi)
{
    vi m = simde_mm256_and_si256(simde_mm256_cmpgt_epi32(a, simde_mm256_set1_epi32(lo - 1)),
                                 simde_mm256_cmpgt_epi32(simde_mm256_set1_epi32(hi + 1), a));
    return simde_mm256_movemask_epi8(m) == -1;
}
PG_AI vi vi_load_u16(const void *p)
{
    return simde_mm256_cvtepu16_epi32(simde_mm_loadu_si128((const simde__m128i *)p));
}
PG_AI void vi_store_u16(void *p, vi v)
{
    v = vi_srai(vi_slli(v, 16), 16);
    simde__m128i lo = simde_mm256_castsi256_si128(v), hi = simde_mm256_extracti128_si256(v, 1);
    simde_mm_storeu_si128((simde__m128i *)p, simde_mm_packs_epi32(lo, hi));
}

#elif PG_VEC_LEVEL == 3
#include <simde/x86/avx512.h>
#define VL 16
typedef simde__m512 vf;
typedef simde__m512i vi;
PG_AI vf vf_zero(void) { return simde_mm512_setzero_ps(); }
PG_AI vf vf_set1(float x) { return simde_mm512_set1_ps(x); }
PG_AI vf vf_add(vf a, vf b) { return simde_mm512_add_ps(a, b); }
PG_AI vf vf_sub(vf a, vf b) { return simde_mm512_sub_ps(a, b); }
PG_AI vf vf_mul(vf a, vf b) { return simde_mm512_mul_ps(a, b); }
PG_AI vf vf_div(vf a, vf b) { return simde_mm512_div_ps(a, b); }
PG_AI vf vf_loadu(const float *p) { return simde_mm512_loadu_ps(p); }
PG_AI void vf_storeu(float *p, vf v) { simde_mm512_storeu_ps(p, v); }
PG_AI vi vi_set1(int32_t x) { return simde_mm512_set1_epi32(x); }
PG_AI vi vi_loadu(const int32_t *p) { return simde_mm512_loadu_si512((const void *)p); }
PG_AI vi vi_and(vi a, vi b) { return simde_mm512_and_si512(a, b); }
PG_AI vi vi_or(vi a, vi b) { return simde_mm512_or_si512(a, b); }
PG_AI vi vi_add(vi a, vi b) { return simde_mm512_add_epi32(a, b); }
PG_AI vi vi_sub(vi a, vi b) { return simde_mm512_sub_epi32(a, b); }
#define vi_slli(a, n) simde_mm512_slli_epi32((a), (n))
#define vi_srli(a, n) simde_mm512_srli_epi32((a), (n))
PG_AI vf vi_as_f(vi a) { return simde_mm512_castsi512_ps(a); }
PG_AI vi vf_as_i(vf a) { return simde_mm512_castps_si512(a); }
PG_AI vi vi_sel_gt(vi a, vi b, vi x, vi y)
{
    return simde_mm512_mask_blend_epi32(simde_mm512_cmpgt_epi32_mask(a, b), y, x);
}
PG_AI int vi_all_in(vi a, int32_t lo, int32_t hi)
{
    return (simde_mm512_cmpgt_epi32_mask(a, simde_mm512_set1_epi32(lo - 1)) &
            simde_mm512_cmpgt_epi32_mask(simde_mm512_set1_epi32(hi + 1), a)) == 0xffff;
}
PG_AI vi vi_load_u16(const void *p)
{
    const simde__m128i *q = (const simde__m128i *)p;
    simde__m256i lo = simde_mm256_cvtepu16_epi32(simde_mm_loadu_si128(q));
    simde__m256i hi = simde_mm256_cvtepu16_epi32(simde_mm_loadu_si128(q + 1));
    return simde_mm512_inserti64x4(simde_mm512_castsi256_si512(lo), hi, 1);
}
PG_AI void vi_store_u16(void *p, vi v)
{
    /* v - 0x8000 fits int16, so the saturating vpmovsdw is exact; xor restores the top bit */
    simde__m256i r = simde_mm512_cvtsepi32_epi16(vi_sub(v, vi_set1(0x8000)));
    simde_mm256_storeu_si256((simde__m256i *)p, simde_mm256_xor_si256(r, simde_mm256_set1_epi16((int16_t)0x8000)));
}
#else
#error "PG_VEC_LEVEL must be 1, 2 or 3"
#endif

/* ---- f16 / bf16 <-> f32, lane-wise, reproducing convert.h bit for bit ---- */

/* IEEE binary16 bits (zero-extended lanes) -> f32 */
PG_AI vf vf_from_f16(vi h)
{
    vi a = vi_and(h, vi_set1(0x7fff));
    vi sign = vi_slli(vi_and(h, vi_set1(0x8000)), 16);
    vi norm = vi_add(vi_slli(a, 13), vi_set1(0x38000000));
    if (vi_all_in(a, 0x400, 0x7bff)) /* all normal: the common case */
        return vi_as_f(vi_or(norm, sign));
    vi infnan = vi_or(vi_slli(a, 13), vi_set1(0x7f800000));
    infnan = vi_sel_gt(a, vi_set1(0x7c00), vi_or(infnan, vi_set1(0x00400000)), infnan);
    /* subnormal/zero: man * 2^-24 exactly = (0.5 + man * 2^-24) - 0.5, no denormal intermediate */
    vi sub = vf_as_i(vf_sub(vi_as_f(vi_or(a, vi_set1(0x3f000000))), vf_set1(0.5f)));
    vi r = vi_sel_gt(a, vi_set1(0x3ff), norm, sub);
    r = vi_sel_gt(a, vi_set1(0x7bff), infnan, r);
    return vi_as_f(vi_or(r, sign));
}

/* A stored result: NaN lanes become the canonical quiet NaN 0x7fc00000 (docs/SEMANTICS.md, "NaN"). */
PG_AI vf vf_canonical_nan(vf v)
{
    vi x = vf_as_i(v);
    return vi_as_f(vi_sel_gt(vi_and(x, vi_set1(0x7fffffff)), vi_set1(0x7f800000), vi_set1(0x7fc00000), x));
}

/* f32 result -> IEEE binary16 bits in the low half of each lane (round to nearest even; every NaN
 * becomes the canonical 0x7e00, as convert.h's poolgrad_f32_to_f16_result) */
PG_AI vi vf_to_f16(vf f)
{
    vi x = vf_as_i(f);
    vi sign = vi_and(vi_srli(x, 16), vi_set1(0x8000));
    vi ax = vi_and(x, vi_set1(0x7fffffff));
    if (vi_all_in(ax, 0x38800000, 0x477fefff)) { /* all results normal: the common case */
        vi r = vi_sub(ax, vi_set1(0x38000000));
        r = vi_srli(vi_add(vi_add(r, vi_set1(0xfff)), vi_and(vi_srli(r, 13), vi_set1(1))), 13);
        return vi_or(r, sign);
    }
    vi r = vi_sub(ax, vi_set1(0x38000000));
    r = vi_srli(vi_add(vi_add(r, vi_set1(0xfff)), vi_and(vi_srli(r, 13), vi_set1(1))), 13);
    /* subnormal results: |f| + 0.5 rounds |f| to a multiple of 2^-24 (nearest even) in the FPU */
    vi sub = vi_sub(vf_as_i(vf_add(vi_as_f(ax), vf_set1(0.5f))), vi_set1(0x3f000000));
    vi res = vi_sel_gt(ax, vi_set1(0x387fffff), r, sub);
    res = vi_or(vi_sel_gt(ax, vi_set1(0x477fefff), vi_set1(0x7c00), res), sign);
    return vi_sel_gt(ax, vi_set1(0x7f800000), vi_set1(0x7e00), res); /* canonical NaN, no sign */
}

PG_AI vf vf_from_bf16(vi b)
{
    vi bits = vi_slli(b, 16);
    vi ax = vi_and(bits, vi_set1(0x7fffffff));
    return vi_as_f(vi_sel_gt(ax, vi_set1(0x7f800000), vi_or(bits, vi_set1(0x00400000)), bits));
}

/* f32 result -> bfloat16 bits (round to nearest even; every NaN becomes the canonical 0x7fc0) */
PG_AI vi vf_to_bf16(vf f)
{
    vi x = vf_as_i(f);
    vi ax = vi_and(x, vi_set1(0x7fffffff));
    vi r = vi_srli(vi_add(vi_add(x, vi_set1(0x7fff)), vi_and(vi_srli(x, 16), vi_set1(1))), 16);
    return vi_sel_gt(ax, vi_set1(0x7f800000), vi_set1(0x7fc0), r);
}

/* ---- dtype-generic loads/stores (dt is a compile-time constant after inlining) ---- */

/*
 * Loads of gradOutput values, which only ever feed an IEEE division (x / divisor): bf16 is widened by
 * the shift alone. A signaling NaN stays signaling here and the division quiets it exactly as
 * convert.h does (quiet bit set, sign and payload kept), so the quotient's bits are the reference's.
 */
PG_AI vf pg_ld(const char *p, int dt)
{
    if (dt == 0)
        return vf_loadu((const float *)(const void *)p);
    vi h = vi_load_u16(p);
    return dt == 1 ? vf_from_f16(h) : vi_as_f(vi_slli(h, 16));
}

/* results (and f32 workspace tails) are stored with canonical NaNs */
PG_AI void pg_st(char *p, vf v, int dt)
{
    if (dt == 0)
        vf_storeu((float *)(void *)p, vf_canonical_nan(v));
    else
        vi_store_u16(p, dt == 1 ? vf_to_f16(v) : vf_to_bf16(v));
}

/* copy nbytes (< 128) with constant-size moves: no libc call on the hot path */
PG_AI void pg_copy_small(char *dst, const char *src, size_t nbytes)
{
    size_t o = 0;
    if (VL * 4 >= 64 && (nbytes & 64)) { memcpy(dst + o, src + o, 64); o += 64; }
    if (VL * 4 >= 32 && (nbytes & 32)) { memcpy(dst + o, src + o, 32); o += 32; }
    if (nbytes & 16) { memcpy(dst + o, src + o, 16); o += 16; }
    if (nbytes & 8) { memcpy(dst + o, src + o, 8); o += 8; }
    if (nbytes & 4) { memcpy(dst + o, src + o, 4); o += 4; }
    if (nbytes & 2) { memcpy(dst + o, src + o, 2); o += 2; }
}

/* min(n, VL) elements (n <= 0: none); the rest of the lanes read as +0.0 */
PG_AI vf pg_ld_n(const char *p, int64_t n, int dt)
{
    float buf[VL];
    memset(buf, 0, sizeof buf);
    if (n > VL)
        n = VL;
    if (n > 0)
        pg_copy_small((char *)buf, p, (size_t)n * (dt == 0 ? 4u : 2u));
    return pg_ld((const char *)buf, dt);
}

/* store the first n lanes (0 < n <= VL): one full store to the stack, then constant-size moves */
PG_AI void pg_st_n(char *p, vf v, int64_t n, int dt)
{
    float buf[VL];
    pg_st((char *)buf, v, dt);
    pg_copy_small(p, (const char *)buf, (size_t)n * (dt == 0 ? 4u : 2u));
}

#endif
