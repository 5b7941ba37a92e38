/*
 * Vector layer, level 3: 512-bit, SIMDe's AVX-512 F+BW+VL API (simde_mm512_*). Included by vec.h only.
 * Masks are mask registers; a masked pick is one zero-masking vpermps / vpermt2ps.
 */
#include <simde/x86/avx512.h>

#define VL 16
typedef simde__m512 vf;
typedef simde__m512i vi;
typedef simde__mmask16 vm; /* one bit per lane */

PG_AI vf vf_zero(void) { return simde_mm512_setzero_ps(); }
PG_AI vf vf_set1(float x) { return simde_mm512_set1_ps(x); }
PG_AI vf vf_add(vf a, vf b) { return simde_mm512_add_ps(a, b); }
PG_AI vf vf_sub(vf a, vf b) { return simde_mm512_sub_ps(a, b); }
PG_AI vf vf_mul(vf a, vf b) { return simde_mm512_mul_ps(a, b); }
PG_AI vf vf_div(vf a, vf b) { return simde_mm512_div_ps(a, b); }
PG_AI vf vf_loadu(const float *p) { return simde_mm512_loadu_ps(p); }
PG_AI void vf_storeu(float *p, vf v) { simde_mm512_storeu_ps(p, v); }
/* p 64-byte aligned; two 256-bit halves (SIMDe has no 512-bit streaming store; they fill one line) */
PG_AI void vf_stream(float *p, vf v)
{
    simde_mm256_stream_ps(p, simde_mm512_castps512_ps256(v));
    simde_mm256_stream_ps(p + 8, simde_mm256_castpd_ps(simde_mm512_extractf64x4_pd(simde_mm512_castps_pd(v), 1)));
}
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

/* ---- masks */

PG_AI vm vm_gt(vi a, vi b) { return simde_mm512_cmpgt_epi32_mask(a, b); }
/* a > b (signed) ? x : y */
PG_AI vi vi_sel_gt(vi a, vi b, vi x, vi y) { return simde_mm512_mask_blend_epi32(vm_gt(a, b), y, x); }
/* m ? acc + x : acc (one masked vaddps) */
PG_AI vf vf_add_if(vf acc, vm m, vf x) { return simde_mm512_mask_add_ps(acc, m, acc, x); }
/* lanes of v that are NaN (any sign, payload, quiet or signalling) replaced by c */
PG_AI vf vf_nan_to(vf v, vf c) { return simde_mm512_mask_mov_ps(v, simde_mm512_cmp_ps_mask(v, v, SIMDE_CMP_UNORD_Q), c); }
/* every lane lo <= a <= hi (signed) */
PG_AI int vi_all_in(vi a, int32_t lo, int32_t hi)
{
    return (vm_gt(a, vi_set1(lo - 1)) & vm_gt(vi_set1(hi + 1), a)) == 0xffff;
}

/* ---- 16-bit values: vh holds VL of them (a 256-bit register) */

typedef simde__m256i vh;
PG_AI vh vh_loadu(const void *p) { return simde_mm256_loadu_si256((const simde__m256i *)p); }
PG_AI void vh_storeu(void *p, vh h) { simde_mm256_storeu_si256((simde__m256i *)p, h); }
PG_AI void vh_stream(void *p, vh h) { simde_mm256_stream_si256((simde__m256i *)p, h); } /* p 32-byte aligned */
/* zero-extended to 32-bit lanes; the low 16 bits of each lane. Native: vpmovzxwd / vpmovdw (SIMDe 0.7
 * has neither at 512 bits); else two halves, and a saturating pack made exact by a bias */
#if defined(SIMDE_X86_AVX512F_NATIVE)
#include <immintrin.h>
PG_AI vi vh_widen(vh h) { return _mm512_cvtepu16_epi32(h); }
PG_AI vh vh_narrow(vi v) { return _mm512_cvtepi32_epi16(v); }
#else
PG_AI vi vh_widen(vh h)
{
    simde__m256i lo = simde_mm256_cvtepu16_epi32(simde_mm256_castsi256_si128(h));
    simde__m256i hi = simde_mm256_cvtepu16_epi32(simde_mm256_extracti128_si256(h, 1));
    return simde_mm512_inserti64x4(simde_mm512_castsi256_si512(lo), hi, 1);
}
PG_AI vh vh_narrow(vi v)
{
    /* v - 0x8000 fits int16, so the saturating vpmovsdw is exact; xor restores the top bit */
    simde__m256i r = simde_mm512_cvtsepi32_epi16(vi_sub(v, vi_set1(0x8000)));
    return simde_mm256_xor_si256(r, simde_mm256_set1_epi16((int16_t)0x8000));
}
#endif

/* IEEE binary16 <-> f32 in hardware (AVX-512F vcvtph2ps / vcvtps2ph, round to nearest even): vec.h uses
 * these instead of its integer code; only where SIMDe compiles to native AVX-512 (not -Dportable) */
#if defined(SIMDE_X86_AVX512F_NATIVE)
#define PG_HW_F16 1
PG_AI vf vf_cvt_f16_hw(vh h) { return _mm512_cvtph_ps(h); }
PG_AI vh vh_cvt_f16_hw(vf f) { return _mm512_cvtps_ph(f, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
#endif

/* f32 results -> bfloat16 bits, round to nearest even, every NaN the canonical 0x7fc0 (vec.h's vf_to_bf16
 * narrowed, in 5 instructions instead of 9): the rounding increment's low bit is a masked add, and one
 * masked vpermw both takes each lane's high half and puts 0x7fc0 in the NaN lanes (the 16 low word lanes
 * of the result correspond one to one to the 16 f32 lanes, so the f32 compare mask selects them) */
#if defined(SIMDE_X86_AVX512F_NATIVE)
#define PG_LEVEL_BF16_NARROW 1
PG_AI vh vh_bf16_narrow_level(vf f)
{
    const __m512i x = _mm512_castps_si512(f);
    const __m512i r = _mm512_add_epi32(x, _mm512_set1_epi32(0x7fff));
    const __m512i rr = _mm512_mask_add_epi32(r, _mm512_test_epi32_mask(x, _mm512_set1_epi32(0x10000)), r,
                                             _mm512_set1_epi32(1));
    const __m512i hi = _mm512_set_epi16(31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 29, 27,
                                        25, 23, 21, 19, 17, 15, 13, 11, 9, 7, 5, 3, 1);
    const __mmask32 ordered = _mm512_cmp_ps_mask(f, f, _CMP_ORD_Q);
    return _mm512_castsi512_si256(_mm512_mask_permutexvar_epi16(_mm512_set1_epi16(0x7fc0), ordered, hi, rr));
}
#endif

/* The first n lanes (1 <= n <= VL) of memory, straight from the register: lanes past n are neither read (a
 * masked load suppresses their faults; they read as +0.0) nor written. vec.h uses these for row tails
 * instead of a copy through the stack (a store-forwarding stall); only where SIMDe compiles to native
 * AVX-512 (its emulation of a masked store writes the whole vector back). f32 lanes: one masked store,
 * measured faster than the 256-, 128-, 64- and 32-bit pieces it replaced, cached or not, on AMD Zen 4
 * (medians of 4-6 interleaved rounds; 16-bit results doubled into f32 lanes use it too): k2s2 N 32 C 64
 * 56x56 NCHW f16 0.73 -> 0.58 ms, bf16 0.69 -> 0.59, resnet k3s2p1 f32 NCHW 3.05 -> 2.71 ms. 16-bit lanes:
 * still the pieces (a masked store there was 9% slower on 3D k3s2p1 bf16 NCDHW and 9% faster in f16, one
 * run). */
#if defined(SIMDE_X86_AVX512F_NATIVE)
#define PG_HW_PART 1
#include "v128_part.h"
PG_AI __mmask16 vm_first(int64_t n) { return (__mmask16)((1u << n) - 1u); }
PG_AI vf vf_loadu_part(const float *p, int64_t n) { return _mm512_maskz_loadu_ps(vm_first(n), p); }
PG_AI void vf_storeu_part(float *p, vf v, int64_t n) { _mm512_mask_storeu_ps(p, vm_first(n), v); }
PG_AI vh vh_loadu_part(const void *p, int64_t n) { return _mm256_maskz_loadu_epi16(vm_first(n), p); }
PG_AI void vh_storeu_part(void *p, vh h, int64_t n) { v256_storeu_first_bytes((char *)p, h, n * 2); }
#endif

/* ---- permutes, zero-masking: lanes off in m are +0.0 */

/* lane l = a[idx[l]] (idx < VL) */
PG_AI vf vf_permz1(vm m, vi idx, vf a) { return simde_mm512_maskz_permutexvar_ps(m, idx, a); }
/* lane l = (a ++ b)[idx[l]] (idx < 2 VL) */
PG_AI vf vf_permz2(vm m, vi idx, vf a, vf b) { return simde_mm512_maskz_permutex2var_ps(m, a, idx, b); }

/* the lanes of the low (lo) or high (hi) halves of a and b interleaved, a at the even lanes (zip2), or of v
 * at both (dup2) (the index vectors from memory: gcc builds a simde_mm512_set_epi32 lane by lane, 16 masked
 * broadcasts per call) */
static const int32_t pg_zip2_idx[2 * VL] = { 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23,
                                             8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31 };
static const int32_t pg_dup2_idx[2 * VL] = { 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7,
                                             8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13, 14, 14, 15, 15 };
PG_AI vf vf_zip2_lo(vf a, vf b) { return simde_mm512_permutex2var_ps(a, vi_loadu(pg_zip2_idx), b); }
PG_AI vf vf_zip2_hi(vf a, vf b) { return simde_mm512_permutex2var_ps(a, vi_loadu(pg_zip2_idx + VL), b); }
PG_AI vf vf_dup2_lo(vf v) { return simde_mm512_permutexvar_ps(vi_loadu(pg_dup2_idx), v); }
PG_AI vf vf_dup2_hi(vf v) { return simde_mm512_permutexvar_ps(vi_loadu(pg_dup2_idx + VL), v); }
/* the high half of a then the low half of b (hi_lo), or the low halves of a and b (lo_lo): 256-bit halves */
PG_AI vf vf_cat_hi_lo(vf a, vf b) { return simde_mm512_shuffle_f32x4(a, b, 0x4E); }
PG_AI vf vf_cat_lo_lo(vf a, vf b) { return simde_mm512_shuffle_f32x4(a, b, 0x44); }

/* ---- lane selectors and masked picks (see vec.h): selectors in registers, shared with the other
 * wide level */
#include "vsel_reg.h"
PG_AI vf vf_pick1(vsel s, vf a) { return vf_permz1(s.m, s.idx, a); }
PG_AI vf vf_pick2(vsel s, vf a, vf b) { return vf_permz2(s.m, s.idx, a, b); }
/* a, or a ++ b when two */
PG_AI vf vf_pick(vsel s, vf a, vf b, bool two) { return two ? vf_pick2(s, a, b) : vf_pick1(s, a); }
