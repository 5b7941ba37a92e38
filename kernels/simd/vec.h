/*
 * Internal: the vector layer, the only place that names SIMDe (XNNPACK src/xnnpack/simd style). The
 * including translation unit selects the level with PG_VEC_LEVEL before inclusion:
 *   1 = 128-bit (vec128.h: simde_mm_*, SSE2 subset; also the NEON translation unit, where SIMDe lowers
 *       it to Advanced SIMD),
 *   2 = 256-bit (vec256.h: simde_mm256_*, AVX2),
 *   3 = 512-bit (vec512.h: simde_mm512_*, AVX-512 F+BW+VL).
 * Every level provides the same names:
 *   VL, vf (VL floats), vi (VL int32)
 *   vf_zero vf_set1 vf_add vf_sub vf_mul vf_div vf_loadu vf_storeu          IEEE float lanes
 *   vf_stream vh_stream                                                       a non-temporal store (p aligned to the
 *                                                                             vector; vec.h's v_stream_fence orders them)
 *   vi_set1 vi_loadu vi_and vi_or vi_add vi_sub vi_slli vi_srli vi_srai      int32 lanes
 *   vi_as_f vf_as_i                                                           bit casts
 *   vi_sel_gt vi_all_in vf_nan_to                                             masks (compare and select)
 *   vm vm_gt vf_add_if                                                        a lane mask, a masked add (lanes
 *                                                                             outside it keep acc: the same as adding
 *                                                                             +0.0 there, acc never being -0.0)
 *   vh vh_loadu vh_storeu vh_widen vh_narrow                                  VL 16-bit values (vh), to and from lanes
 *   vlanes vlanes_load, vsel vsel_at, vf_pick1 vf_pick2 vf_pick, vsel_keep vsel_put vsel_get   masked picks
 *   vf_zip2_lo vf_zip2_hi                                                     half the lanes of two vectors, interleaved
 *   vf_dup2_lo vf_dup2_hi                                                     half the lanes, each twice
 *   PG_AI (always inline), PG_RARE (a rarely taken helper: out of line at 512 bits only)
 * the 512-bit level alone (the one whose vectors are whole cache lines, for streaming):
 *   vf_cat_hi_lo vf_cat_lo_lo                                                 a half of a, then the low half of b
 * and this file adds, on top of them and identical at every level:
 *   vf_pick_mem                                 the scalar gather for segments longer than two registers
 *   vf_canonical_nan vf_from_f16_vh vh_from_vf vf_to_bits   conversions (f16: the level's hardware
 *                                               instructions where it has them, PG_HW_F16, else integer code)
 *   vf_loadu_part vf_storeu_part vh_loadu_part vh_storeu_part   the first n lanes of memory, nothing past
 *                                               them (masked loads and stores where the level has them,
 *                                               PG_HW_PART; stores of register pieces at 256 bits,
 *                                               PG_LEVEL_STORE_PART; else a copy through the stack); v_copy_small
 *   vf_in_reg                                   the vector, held in a register: a loaded vector used by
 *                                               several adds is loaded once (see below)
 *
 * Masked picks. A W chunk's lane table gives each lane l the start rel[l] of its windows in a segment
 * of q values and their count cnt[l]. vlanes_load takes the table into registers (at 128 bits: keeps
 * pointers), vsel_at(t, j) selects window j of every lane, and
 *   vf_pick1(s, a)     lane l = a[rel[l] + j]          if j < cnt[l], else +0.0 (segment of one register)
 *   vf_pick2(s, a, b)  lane l = (a ++ b)[rel[l] + j]   if j < cnt[l], else +0.0 (two registers)
 *   vf_pick(s, a, b, two)  vf_pick2 if two, else vf_pick1 (at 128 bits always the gather, no branch)
 * (AVX-512: one zero-masking vpermps / vpermt2ps; AVX2: vpermps (+ blend) and an and; 128-bit: a
 * scalar gather from a stack copy). Selectors reused across window rows are kept in a vsel_keep:
 * vsel_put(&k, vsel_at(t, j)) once, vsel_get(&k, t, j) per use (at 128 bits nothing is kept and
 * vsel_get is vsel_at: the gather reads the lane table directly).
 *
 * Only IEEE add/sub/mul/div are used on floats (never FMA); integer code does the bf16 bits, and the f16
 * bits where the level has no conversion instructions (checkasm's conversions test checks both against convert.h
 * on every input).
 * Every function is static inline: each ISA translation unit gets its own copy.
 */
#ifndef POOLGRAD_KERNELS_SIMD_VEC_H
#define POOLGRAD_KERNELS_SIMD_VEC_H

#include <stdint.h>
#include <string.h>

#include "poolgrad/poolgrad.h"

#ifndef PG_VEC_LEVEL
#error "define PG_VEC_LEVEL (1, 2 or 3) before including simd/vec.h"
#endif

#define PG_AI static inline __attribute__((always_inline))
/* a helper on a rarely taken path inside hot loops: out of line at 512 bits, where gcc, inlining it, hoisted its
 * loop-invariant work out of the callers' loops into spilled registers; inlined at the narrower levels, where a
 * call costs more (every vector register is the caller's to save around it) */
#if PG_VEC_LEVEL == 3
#define PG_RARE static __attribute__((noinline, cold, unused))
#else
#define PG_RARE PG_AI
#endif

#if PG_VEC_LEVEL == 1
#include "vec128.h"
#elif PG_VEC_LEVEL == 2
#include "vec256.h"
#elif PG_VEC_LEVEL == 3
#include "vec512.h"
#else
#error "PG_VEC_LEVEL must be 1, 2 or 3"
#endif

#include "gather.h"

/* v unchanged, but the compiler must hold it in a register: without this GCC folds a load that feeds
 * several adds into each of them as a memory operand, loading it (often across a cache line) once per add.
 * An empty asm on native x86 and NEON; nothing otherwise (no bits change either way). */
PG_AI vf vf_in_reg(vf v)
{
#if (PG_VEC_LEVEL == 3 && defined(SIMDE_X86_AVX512F_NATIVE)) || \
    (PG_VEC_LEVEL == 2 && defined(SIMDE_X86_AVX_NATIVE)) || (PG_VEC_LEVEL == 1 && defined(SIMDE_X86_SSE_NATIVE))
    __asm__("" : "+v"(v));
#elif PG_VEC_LEVEL == 1 && defined(SIMDE_ARM_NEON_A32V7_NATIVE)
    __asm__("" : "+w"(v));
#endif
    return v;
}

/* ---- the first n lanes of memory (row tails) */

/* copy nbytes (<= cap, the size of the smaller buffer: a constant) with constant-size moves: no libc call
 * on the hot path */
PG_AI void v_copy_small(char *dst, const char *src, size_t nbytes, size_t cap)
{
    size_t o = 0;
    if (cap >= 64 && (nbytes & 64)) { memcpy(dst + o, src + o, 64); o += 64; }
    if (cap >= 32 && (nbytes & 32)) { memcpy(dst + o, src + o, 32); o += 32; }
    if (cap >= 16 && (nbytes & 16)) { memcpy(dst + o, src + o, 16); o += 16; }
    if (nbytes & 8) { memcpy(dst + o, src + o, 8); o += 8; }
    if (nbytes & 4) { memcpy(dst + o, src + o, 4); o += 4; }
    if (nbytes & 2) { memcpy(dst + o, src + o, 2); o += 2; }
}

#if !defined(PG_HW_PART)
/* 1 <= n <= VL; the other lanes read as +0.0 */
PG_AI vf vf_loadu_part(const float *p, int64_t n)
{
    float buf[VL] = { 0 };
    v_copy_small((char *)buf, (const char *)p, (size_t)n * 4u, sizeof buf);
    return vf_loadu(buf);
}
#if !defined(PG_LEVEL_STORE_PART)
PG_AI void vf_storeu_part(float *p, vf v, int64_t n)
{
    float buf[VL];
    vf_storeu(buf, v);
    v_copy_small((char *)p, (const char *)buf, (size_t)n * 4u, sizeof buf);
}
#endif
PG_AI vh vh_loadu_part(const void *p, int64_t n)
{
    uint16_t buf[VL] = { 0 };
    v_copy_small((char *)buf, (const char *)p, (size_t)n * 2u, sizeof buf);
    return vh_loadu(buf);
}
#if !defined(PG_LEVEL_STORE_PART)
PG_AI void vh_storeu_part(void *p, vh h, int64_t n)
{
    uint16_t buf[VL];
    vh_storeu(buf, h);
    v_copy_small((char *)p, (const char *)buf, (size_t)n * 2u, sizeof buf);
}
#endif
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
PG_AI vf vf_canonical_nan(vf v) { return vf_nan_to(v, vi_as_f(vi_set1(0x7fc00000))); }

/* orders a run's vf_stream stores before anything after it (the run's end and the join that follows) */
PG_AI void v_stream_fence(void) { simde_mm_sfence(); }

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

/* f32 result -> bfloat16 bits in the high half of each lane, the low half garbage (round to nearest even;
 * every NaN becomes the canonical 0x7fc0: the canonical f32 NaN 0x7fc00000 rounds to it, its low half
 * being zero) */
PG_AI vi vf_to_bf16_high(vf f)
{
    vi x = vf_as_i(vf_canonical_nan(f));
    return vi_add(vi_add(x, vi_set1(0x7fff)), vi_and(vi_srli(x, 16), vi_set1(1)));
}

/* the same bits in the low half, zero-extended */
PG_AI vi vf_to_bf16(vf f) { return vi_srli(vf_to_bf16_high(f), 16); }

/* ---- VL 16-bit values <-> f32 lanes */

/* f16 bits -> f32, exactly (a NaN is quieted, sign and payload kept) */
PG_AI vf vf_from_f16_vh(vh h)
{
#if defined(PG_HW_F16)
    return vf_cvt_f16_hw(h);
#else
    return vf_from_f16(vh_widen(h));
#endif
}

/* f32 results -> the stored 16-bit values of dtype dt (f16 or bf16; a compile-time constant after
 * inlining): round to nearest even, every NaN the canonical one */
PG_AI vh vh_from_vf(vf v, poolgrad_dtype dt)
{
    if (dt == POOLGRAD_BF16) {
#if defined(PG_LEVEL_BF16_NARROW)
        return vh_bf16_narrow_level(v);
#elif defined(PG_LEVEL_NARROW_HIGH)
        return vh_narrow_high(vf_to_bf16_high(v));
#else
        return vh_narrow(vf_to_bf16(v));
#endif
    }
#if defined(PG_HW_F16)
    return vh_cvt_f16_hw(vf_canonical_nan(v)); /* the canonical f32 NaN narrows to the canonical 0x7e00 */
#else
    return vh_narrow(vf_to_f16(v));
#endif
}

/* f32 results -> the bits stored for dtype dt, one per 32-bit lane (f32: canonical NaN; f16/bf16: in the
 * low half, zero-extended) */
PG_AI vi vf_to_bits(vf v, poolgrad_dtype dt)
{
    if (dt == POOLGRAD_F32)
        return vf_as_i(vf_canonical_nan(v));
    return vh_widen(vh_from_vf(v, dt));
}

#endif
