/*
 * Vector layer, level 2: 256-bit, SIMDe's AVX2 API (simde_mm256_*). Included by vec.h only.
 * Masks are float vectors with all-ones lanes; a masked pick is vpermps (two of them and a blend for
 * a two-register segment) and an and with the mask.
 */
#include <simde/x86/avx2.h>

#define VL 8
typedef simde__m256 vf;
typedef simde__m256i vi;
typedef simde__m256 vm; /* lanes all ones (true) or zero */

PG_AI vf vf_zero(void) { return simde_mm256_setzero_ps(); }
PG_AI vf vf_set1(float x) { return simde_mm256_set1_ps(x); }
PG_AI vf vf_add(vf a, vf b) { return simde_mm256_add_ps(a, b); }
PG_AI vf vf_sub(vf a, vf b) { return simde_mm256_sub_ps(a, b); }
PG_AI vf vf_mul(vf a, vf b) { return simde_mm256_mul_ps(a, b); }
PG_AI vf vf_div(vf a, vf b) { return simde_mm256_div_ps(a, b); }
PG_AI vf vf_loadu(const float *p) { return simde_mm256_loadu_ps(p); }
PG_AI void vf_storeu(float *p, vf v) { simde_mm256_storeu_ps(p, v); }
PG_AI void vf_stream(float *p, vf v) { simde_mm256_stream_ps(p, v); } /* p 32-byte aligned */
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

/* ---- masks */

PG_AI vm vm_gt(vi a, vi b) { return simde_mm256_castsi256_ps(simde_mm256_cmpgt_epi32(a, b)); }
/* m ? acc + x : acc, as acc + (x and m) */
PG_AI vf vf_add_if(vf acc, vm m, vf x) { return simde_mm256_add_ps(acc, simde_mm256_and_ps(x, m)); }
/* a > b (signed) ? x : y */
PG_AI vi vi_sel_gt(vi a, vi b, vi x, vi y)
{
    vi m = simde_mm256_cmpgt_epi32(a, b);
    return simde_mm256_or_si256(simde_mm256_and_si256(m, x), simde_mm256_andnot_si256(m, y));
}
/* lanes of v that are NaN (any sign, payload, quiet or signalling) replaced by c */
PG_AI vf vf_nan_to(vf v, vf c) { return simde_mm256_blendv_ps(v, c, simde_mm256_cmp_ps(v, v, SIMDE_CMP_UNORD_Q)); }
/* every lane lo <= a <= hi (signed) */
PG_AI int vi_all_in(vi a, int32_t lo, int32_t hi)
{
    vi m = simde_mm256_and_si256(simde_mm256_cmpgt_epi32(a, simde_mm256_set1_epi32(lo - 1)),
                                 simde_mm256_cmpgt_epi32(simde_mm256_set1_epi32(hi + 1), a));
    return simde_mm256_movemask_epi8(m) == -1;
}

/* ---- 16-bit values: vh holds VL of them (a 128-bit register) */

typedef simde__m128i vh;
PG_AI vh vh_loadu(const void *p) { return simde_mm_loadu_si128((const simde__m128i *)p); }
PG_AI void vh_storeu(void *p, vh h) { simde_mm_storeu_si128((simde__m128i *)p, h); }
PG_AI void vh_stream(void *p, vh h) { simde_mm_stream_si128((simde__m128i *)p, h); } /* p 16-byte aligned */
/* zero-extended to 32-bit lanes */
PG_AI vi vh_widen(vh h) { return simde_mm256_cvtepu16_epi32(h); }
/* the low 16 bits of each lane */
PG_AI vh vh_narrow(vi v)
{
    v = vi_srai(vi_slli(v, 16), 16); /* sign-extend so the signed pack never saturates */
    return simde_mm_packs_epi32(simde_mm256_castsi256_si128(v), simde_mm256_extracti128_si256(v, 1));
}

#include "v128_part.h"

/* the first n (1 <= n <= VL) lanes of v stored from the register's pieces, nothing past them: not through a stack
 * copy, which row tails reloaded (vec.h uses these instead of its copy) */
#define PG_LEVEL_STORE_PART 1
PG_AI void vf_storeu_part(float *p, vf v, int64_t n)
{
    v256_storeu_first_bytes((char *)p, simde_mm256_castps_si256(v), n * 4);
}

/* the first n (1 <= n <= VL) 16-bit lanes of h, the same way */
PG_AI void vh_storeu_part(void *p, vh h, int64_t n) { v128_storeu_first_bytes((char *)p, h, n * 2); }

/* the high 16 bits of each lane (vec.h narrows bf16 with it, skipping the shift down): one vpshufb gathers
 * them in each 128-bit half and one vpermq joins the halves, in place of a shift and vh_narrow's shift pair,
 * extract and pack */
#define PG_LEVEL_NARROW_HIGH 1
PG_AI vh vh_narrow_high(vi v)
{
    const vi hi = simde_mm256_shuffle_epi8(v, simde_mm256_setr_epi8(2, 3, 6, 7, 10, 11, 14, 15, -1, -1, -1, -1, -1, -1, -1, -1,
                                                                     2, 3, 6, 7, 10, 11, 14, 15, -1, -1, -1, -1, -1, -1, -1, -1));
    return simde_mm256_castsi256_si128(simde_mm256_permute4x64_epi64(hi, 0x08)); /* quadwords 0 and 2 */
}

/* IEEE binary16 <-> f32 in hardware (F16C vcvtph2ps / vcvtps2ph, round to nearest even; the avx2 ISA
 * requires F16C, lib/cpu.c): vec.h uses these instead of its integer code; only where SIMDe compiles to
 * native F16C (not -Dportable) */
#if defined(SIMDE_X86_F16C_NATIVE)
#include <simde/x86/f16c.h>
#define PG_HW_F16 1
PG_AI vf vf_cvt_f16_hw(vh h) { return simde_mm256_cvtph_ps(h); }
PG_AI vh vh_cvt_f16_hw(vf f) { return simde_mm256_cvtps_ph(f, SIMDE_MM_FROUND_TO_NEAREST_INT | SIMDE_MM_FROUND_NO_EXC); }
#endif

/* ---- permutes */

/* lane l = a[idx[l]] (idx < VL) */
PG_AI vf vf_perm1(vi idx, vf a) { return simde_mm256_permutevar8x32_ps(a, idx); }
/* lane l = (a ++ b)[idx[l]] (idx < 2 VL) */
PG_AI vf vf_perm2(vi idx, vf a, vf b)
{
    vf r = simde_mm256_permutevar8x32_ps(a, idx);
    vf r1 = simde_mm256_permutevar8x32_ps(b, idx);
    return simde_mm256_blendv_ps(r, r1, vm_gt(idx, vi_set1(VL - 1)));
}

/* the lanes of the low (lo) or high (hi) halves of a and b interleaved, a at the even lanes (zip2: the
 * unpacks interleave within 128-bit halves, one vperm2f128 takes the right halves), or of v at both (dup2) */
PG_AI vf vf_zip2_lo(vf a, vf b) { return simde_mm256_permute2f128_ps(simde_mm256_unpacklo_ps(a, b), simde_mm256_unpackhi_ps(a, b), 0x20); }
PG_AI vf vf_zip2_hi(vf a, vf b) { return simde_mm256_permute2f128_ps(simde_mm256_unpacklo_ps(a, b), simde_mm256_unpackhi_ps(a, b), 0x31); }
static const int32_t pg_dup2_idx[2 * VL] = { 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7 };
PG_AI vf vf_dup2_lo(vf v) { return vf_perm1(vi_loadu(pg_dup2_idx), v); }
PG_AI vf vf_dup2_hi(vf v) { return vf_perm1(vi_loadu(pg_dup2_idx + VL), v); }

/* ---- lane selectors and masked picks (see vec.h): selectors in registers, shared with the other
 * wide level */
#include "vsel_reg.h"
PG_AI vf vf_pick1(vsel s, vf a) { return simde_mm256_and_ps(vf_perm1(s.idx, a), s.m); }
PG_AI vf vf_pick2(vsel s, vf a, vf b) { return simde_mm256_and_ps(vf_perm2(s.idx, a, b), s.m); }
/* a, or a ++ b when two */
PG_AI vf vf_pick(vsel s, vf a, vf b, bool two)
{
    vf r = vf_perm1(s.idx, a);
    if (two)
        r = simde_mm256_blendv_ps(r, vf_perm1(s.idx, b), vm_gt(s.idx, vi_set1(VL - 1)));
    return simde_mm256_and_ps(r, s.m);
}
