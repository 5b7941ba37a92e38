/*
 * Vector layer, level 1: 128-bit, SIMDe's SSE2 API (simde_mm_*, SSE2 subset only). Also the level of
 * the NEON translation unit, where SIMDe lowers it to Advanced SIMD. Included by vec.h only.
 * SSE2 has no variable lane permute: the lane selector keeps pointers to the lane table and a pick is
 * a scalar gather from a stack copy of the segment.
 */
#include <simde/x86/sse2.h>

#define VL 4
typedef simde__m128 vf;
typedef simde__m128i vi;
typedef simde__m128 vm; /* lanes all ones (true) or zero */

PG_AI vf vf_zero(void) { return simde_mm_setzero_ps(); }
PG_AI vf vf_set1(float x) { return simde_mm_set1_ps(x); }
PG_AI vf vf_add(vf a, vf b) { return simde_mm_add_ps(a, b); }
PG_AI vf vf_sub(vf a, vf b) { return simde_mm_sub_ps(a, b); }
PG_AI vf vf_mul(vf a, vf b) { return simde_mm_mul_ps(a, b); }
PG_AI vf vf_div(vf a, vf b) { return simde_mm_div_ps(a, b); }
PG_AI vf vf_loadu(const float *p) { return simde_mm_loadu_ps(p); }
PG_AI void vf_storeu(float *p, vf v) { simde_mm_storeu_ps(p, v); }
PG_AI void vf_stream(float *p, vf v) { simde_mm_stream_ps(p, v); } /* p 16-byte aligned; NEON: a plain store */
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

/* ---- masks */

PG_AI vm vm_gt(vi a, vi b) { return simde_mm_castsi128_ps(simde_mm_cmpgt_epi32(a, b)); }
/* m ? acc + x : acc, as acc + (x and m) */
PG_AI vf vf_add_if(vf acc, vm m, vf x) { return simde_mm_add_ps(acc, simde_mm_and_ps(x, m)); }

/* a > b (signed) ? x : y */
PG_AI vi vi_sel_gt(vi a, vi b, vi x, vi y)
{
    vi m = simde_mm_cmpgt_epi32(a, b);
    return simde_mm_or_si128(simde_mm_and_si128(m, x), simde_mm_andnot_si128(m, y));
}
/* lanes of v that are NaN (any sign, payload, quiet or signalling) replaced by c */
PG_AI vf vf_nan_to(vf v, vf c)
{
    vf m = simde_mm_cmpunord_ps(v, v);
    return simde_mm_or_ps(simde_mm_and_ps(m, c), simde_mm_andnot_ps(m, v));
}
/* every lane lo <= a <= hi (signed) */
PG_AI int vi_all_in(vi a, int32_t lo, int32_t hi)
{
    vi m = simde_mm_and_si128(simde_mm_cmpgt_epi32(a, simde_mm_set1_epi32(lo - 1)),
                              simde_mm_cmpgt_epi32(simde_mm_set1_epi32(hi + 1), a));
    return simde_mm_movemask_epi8(m) == 0xffff;
}

/* ---- 16-bit values: vh holds VL of them (the low 64 bits of a register) */

typedef simde__m128i vh;
PG_AI vh vh_loadu(const void *p) { return simde_mm_loadl_epi64((const simde__m128i *)p); }
PG_AI void vh_storeu(void *p, vh h) { simde_mm_storel_epi64((simde__m128i *)p, h); }
PG_AI void vh_stream(void *p, vh h) { vh_storeu(p, h); } /* 8 bytes: a plain store */
/* zero-extended to 32-bit lanes */
PG_AI vi vh_widen(vh h) { return simde_mm_unpacklo_epi16(h, simde_mm_setzero_si128()); }
/* the low 16 bits of each lane */
PG_AI vh vh_narrow(vi v)
{
    v = vi_srai(vi_slli(v, 16), 16); /* sign-extend so the signed pack never saturates */
    return simde_mm_packs_epi32(v, v);
}

/* IEEE binary16 <-> f32 in hardware on AArch64 (Advanced SIMD fcvtl / fcvtn, round to nearest even under
 * the default FPCR): vec.h uses these instead of its integer code; SSE2 has no such instruction, and
 * -Dportable keeps the integer code */
#if defined(SIMDE_ARM_NEON_A64V8_NATIVE)
#include <arm_neon.h>
#define PG_HW_F16 1
PG_AI vf vf_cvt_f16_hw(vh h)
{
    return simde__m128_from_neon_f32(vcvt_f32_f16(vreinterpret_f16_u16(vget_low_u16(simde__m128i_to_neon_u16(h)))));
}
PG_AI vh vh_cvt_f16_hw(vf f)
{
    const uint16x4_t h = vreinterpret_u16_f16(vcvt_f16_f32(simde__m128_to_neon_f32(f)));
    return simde__m128i_from_neon_u16(vcombine_u16(h, vdup_n_u16(0)));
}
#endif

/* the lanes of the low (lo) or high (hi) halves of a and b interleaved, a at the even lanes (zip2), or of v
 * at both (dup2) */
PG_AI vf vf_zip2_lo(vf a, vf b) { return simde_mm_unpacklo_ps(a, b); }
PG_AI vf vf_zip2_hi(vf a, vf b) { return simde_mm_unpackhi_ps(a, b); }
PG_AI vf vf_dup2_lo(vf v) { return simde_mm_unpacklo_ps(v, v); }
PG_AI vf vf_dup2_hi(vf v) { return simde_mm_unpackhi_ps(v, v); }

/* ---- lane selectors and masked picks (see vec.h) */

typedef struct vlanes {
    const int32_t *rel, *cnt;
} vlanes;
typedef struct vsel {
    const int32_t *rel, *cnt;
    int j;
} vsel;

PG_AI vlanes vlanes_load(const int32_t *rel, const int32_t *cnt) { return (vlanes){ rel, cnt }; }
PG_AI vsel vsel_at(vlanes t, int j) { return (vsel){ t.rel, t.cnt, j }; }

/* a kept selector: nothing to keep, vsel_get rebuilds it from the lane table (no loads from a copy) */
typedef struct vsel_keep {
    char unused;
} vsel_keep;
PG_AI void vsel_put(vsel_keep *k, vsel s)
{
    (void)k;
    (void)s;
}
PG_AI vsel vsel_get(const vsel_keep *k, vlanes t, int j)
{
    (void)k;
    return vsel_at(t, j);
}

#include "gather.h" /* vf_pick_mem: the picks below are that gather from a stack copy */

PG_AI vf vf_pick1(vsel s, vf a)
{
    float seg[VL];
    vf_storeu(seg, a);
    return vf_pick_mem(seg, s.rel, s.cnt, s.j);
}

PG_AI vf vf_pick2(vsel s, vf a, vf b)
{
    float seg[2 * VL];
    vf_storeu(seg, a);
    vf_storeu(seg + VL, b);
    return vf_pick_mem(seg, s.rel, s.cnt, s.j);
}

/* a, or a ++ b when two: the gather does not care, so no branch (GCC then unswitches the callers'
 * loops on their row masks, as it did before the picks moved here) */
PG_AI vf vf_pick(vsel s, vf a, vf b, bool two)
{
    (void)two;
    return vf_pick2(s, a, b);
}
