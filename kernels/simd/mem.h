/*
 * Internal, part of the SIMD kernel template (kernels_tmpl.h): the memory operations of every kernel,
 * dtype-generic (dt is a compile-time constant after inlining): gradOutput loads (full, partial,
 * strided), result stores with canonical NaNs (full, partial, the same vector to several rows) and the
 * libc-free small copies of the tails.
 */
#ifndef POOLGRAD_KERNELS_SIMD_MEM_H
#define POOLGRAD_KERNELS_SIMD_MEM_H

#include "convert.h"

static inline int64_t pg_es(poolgrad_dtype dt) { return dt == POOLGRAD_F32 ? 4 : 2; }

/* A hint to bring bytes [p, p + n) into the cache ahead of their loads (a prefetch never faults). */
PG_AI void pg_prefetch_range(const char *p, int64_t n)
{
    for (int64_t i = 0; i < n; i += 64)
        __builtin_prefetch(p + i, 0, 3);
    if (n > 0)
        __builtin_prefetch(p + n - 1, 0, 3);
}

/* one gradOutput element, widened exactly in scalar code (convert.h) */
PG_AI float pg_sc_load(const char *p, poolgrad_dtype dt) { return poolgrad_load_f32(dt, p); }

/* the bits one result v is stored as in dtype dt, in scalar code (convert.h; a NaN the canonical one),
 * for pg_fill_bits: f32 bits, or the 16-bit bits in the low half */
PG_AI uint32_t pg_sc_bits(float v, poolgrad_dtype dt)
{
    v = poolgrad_canonical_nan_f32(v);
    switch (dt) {
    case POOLGRAD_F16: return poolgrad_f32_to_f16_inline(v);
    case POOLGRAD_BF16: return poolgrad_f32_to_bf16_inline(v);
    default: return poolgrad_f32_bits(v);
    }
}

/*
 * Loads of gradOutput values, which only ever feed an IEEE division (x / divisor): bf16 is widened by
 * the shift alone. A signaling NaN stays signaling here and the division quiets it exactly as
 * convert.h does (quiet bit set, sign and payload kept), so the quotient's bits are the reference's.
 */
PG_AI vf pg_widen(vh h, poolgrad_dtype dt) { return dt == POOLGRAD_F16 ? vf_from_f16_vh(h) : vi_as_f(vi_slli(vh_widen(h), 16)); }

PG_AI vf pg_ld(const char *p, poolgrad_dtype dt)
{
    if (dt == POOLGRAD_F32)
        return vf_loadu((const float *)(const void *)p);
    return pg_widen(vh_loadu(p), dt);
}

/* stored bits (vf_to_bits) of VL results */
PG_AI void pg_st_bits(char *p, vi bits, poolgrad_dtype dt)
{
    if (dt == POOLGRAD_F32)
        vf_storeu((float *)(void *)p, vi_as_f(bits));
    else
        vh_storeu(p, vh_narrow(bits));
}

/* the first n (1 <= n <= VL) of them */
PG_AI void pg_st_bits_n(char *p, vi bits, int64_t n, poolgrad_dtype dt)
{
    if (dt == POOLGRAD_F32)
        vf_storeu_part((float *)(void *)p, vi_as_f(bits), n);
    else
        vh_storeu_part(p, vh_narrow(bits), n);
}

/* results (and f32 workspace tails) are stored with canonical NaNs */
PG_AI void pg_st(char *p, vf v, poolgrad_dtype dt)
{
    if (dt == POOLGRAD_F32)
        vf_storeu((float *)(void *)p, vf_canonical_nan(v));
    else
        vh_storeu(p, vh_from_vf(v, dt));
}

/* pg_st, but with stream (conf->stream_stores) a vector aligned to its width is stored non-temporally: no
 * read for ownership of the line, and the gradOutput being read stays cached. The run ends with
 * v_stream_fence. f16/bf16 only in the kinds dispatched with PG_DT_DISPATCH_STREAM_ANY. */
PG_AI void pg_st_stream(char *p, vf v, poolgrad_dtype dt, bool stream)
{
    if (dt == POOLGRAD_F32 && stream && ((uintptr_t)p & (VL * sizeof(float) - 1)) == 0)
        vf_stream((float *)(void *)p, vf_canonical_nan(v));
    else if (dt != POOLGRAD_F32 && stream && ((uintptr_t)p & (VL * 2 - 1)) == 0)
        vh_stream(p, vh_from_vf(v, dt));
    else
        pg_st(p, v, dt);
}

/* min(n, VL) elements (n <= 0: none); the rest of the lanes read as +0.0 */
PG_AI vf pg_ld_n(const char *p, int64_t n, poolgrad_dtype dt)
{
    if (n <= 0)
        return vf_zero();
    if (n > VL)
        n = VL;
    if (dt == POOLGRAD_F32)
        return vf_loadu_part((const float *)(const void *)p, n);
    return pg_widen(vh_loadu_part(p, n), dt);
}

/* store the first n lanes (0 < n <= VL) */
PG_AI void pg_st_n(char *p, vf v, int64_t n, poolgrad_dtype dt)
{
    if (dt == POOLGRAD_F32)
        vf_storeu_part((float *)(void *)p, vf_canonical_nan(v), n);
    else
        vh_storeu_part(p, vh_from_vf(v, dt), n);
}

/* n (<= VL) elements at a byte stride, widened exactly in scalar code; other lanes +0.0. PG_RARE: inlined at 512
 * bits, gcc hoisted its 16 lane offsets out of the callers' loops, a chain of adds through spilled registers
 * before every contiguous row too (resnet k3s2p1 bf16 NCHW: a third of _nchw_s2's time); out of line at 256
 * bits, 3D k3s1p1 ceil f32 NCDHW was 3-5% slower. */
PG_RARE vf pg_ld_strided(const char *p, int64_t stride_bytes, int64_t n, poolgrad_dtype dt)
{
    float t[VL];
    for (int l = 0; l < VL; l++)
        t[l] = l < n ? pg_sc_load(p + l * stride_bytes, dt) : 0.0f;
    return vf_loadu(t);
}

/*
 * Elements i .. i + nl - 1 (nl <= VL) of a gradOutput line whose elements are `stride` apart (unit:
 * contiguous, see pg_unit), other lanes +0.0: one full load when the caller knows VL elements are
 * readable (full), else a partial copy; a strided line is gathered in scalar code.
 */
PG_AI vf pg_ld_line(const char *line, int64_t i, int64_t stride, bool unit, bool full, int64_t nl, poolgrad_dtype dt)
{
    const int64_t es = pg_es(dt);
    if (!unit)
        return pg_ld_strided(line + i * stride * es, stride * es, nl, dt);
    return full ? pg_ld(line + i * es, dt) : pg_ld_n(line + i * es, nl, dt);
}

/* VL elements at p when they end inside the gradOutput view (go_end: pg_go_end), else the first n */
PG_AI vf pg_ld_view(const char *p, const char *go_end, int64_t n, poolgrad_dtype dt)
{
    return p + VL * pg_es(dt) <= go_end ? pg_ld(p, dt) : pg_ld_n(p, n, dt);
}

/* n >= 1 elements at p, each the stored bits `bits` (f32 bits; a 16-bit dtype's in the low half): whole
 * vectors of VL 32-bit lanes (16-bit bits twice per lane), the last one ending at element n and overlapping
 * the one before it with the same bits, so nothing past the n elements is written; a span shorter than a
 * vector is stored through the level's partial store. Bit patterns only: never an arithmetic operand. */
PG_AI void pg_fill_bits(char *p, int64_t n, uint32_t bits, poolgrad_dtype dt)
{
    const int64_t nb = n * pg_es(dt), vb = VL * (int64_t)sizeof(float);
    const vf v = vi_as_f(vi_set1((int32_t)(dt == POOLGRAD_F32 ? bits : (bits & 0xffffu) * 0x10001u)));
    if (nb >= vb) {
        for (int64_t o = 0; o + vb < nb; o += vb)
            vf_storeu((float *)(void *)(p + o), v);
        vf_storeu((float *)(void *)(p + nb - vb), v);
        return;
    }
    if (nb >= 4)
        vf_storeu_part((float *)(void *)p, v, nb / 4);
    if (nb & 2) { /* an odd count of 16-bit elements: the last one */
        const uint16_t h = (uint16_t)bits;
        memcpy(p + nb - 2, &h, 2);
    }
}

/* nb bytes from src to dst (not overlapping) through vector registers: whole vectors, the last one ending at
 * byte nb; fewer bytes than a vector by memcpy. Bit patterns only. */
PG_AI void pg_copy_bytes(char *dst, const char *src, int64_t nb)
{
    const int64_t vb = VL * (int64_t)sizeof(float);
    if (nb < vb) {
        memcpy(dst, src, (size_t)nb);
        return;
    }
    for (int64_t o = 0; o + vb < nb; o += vb)
        vf_storeu((float *)(void *)(dst + o), vf_loadu((const float *)(const void *)(src + o)));
    vf_storeu((float *)(void *)(dst + nb - vb), vf_loadu((const float *)(const void *)(src + nb - vb)));
}

/* results v with every lane twice (lane l to elements 2 l and 2 l + 1): the first n (1 <= n <= 2 VL) elements at p.
 * A 16-bit dtype is narrowed once and doubled in the integer lanes (two copies per 32-bit lane). */
PG_AI void pg_st_dup2(char *p, vf v, int64_t n, poolgrad_dtype dt)
{
    const vi b = vf_to_bits(v, dt);
    float *const f = (float *)(void *)p;
    if (dt == POOLGRAD_F32) {
        const vf lo = vf_dup2_lo(vi_as_f(b)), hi = vf_dup2_hi(vi_as_f(b));
        /* whole vectors stored as such: levels without masked stores copy a part through the stack */
        if (n < VL) {
            vf_storeu_part(f, lo, n);
            return;
        }
        vf_storeu(f, lo);
        if (n == 2 * VL)
            vf_storeu(f + VL, hi);
        else if (n > VL)
            vf_storeu_part(f + VL, hi, n - VL);
        return;
    }
    const vf d = vi_as_f(vi_or(b, vi_slli(b, 16))); /* bit patterns only: never an arithmetic operand */
    if (n == 2 * VL) {
        vf_storeu(f, d);
        return;
    }
    if (n >= 2)
        vf_storeu_part(f, d, n / 2);
    if (n & 1) { /* the last element alone: row tails only */
        float t[VL];
        vf_storeu(t, d);
        memcpy(p + (n - 1) * 2, &t[n / 2], 2);
    }
}

/* a partial vector to n rows (tails only): out of line, so its stack buffer round trip never sits
 * in the hot loop (inlined, the compiler hoisted the buffer load into every chunk: a store-forwarding stall) */
static __attribute__((noinline)) void pg_st_n_rows(char *const *dst, int g, int64_t o, vf v, int64_t nl, poolgrad_dtype dt)
{
    for (int r = 0; r < g; r++)
        pg_st_n(dst[r] + o, v, nl, dt);
}

/* the same vector to g rows at byte offset o: narrowed once */
PG_AI void pg_st_rows(char *const *dst, int g, int64_t o, vf acc, int64_t nl, poolgrad_dtype dt)
{
    if (nl != VL) {
        pg_st_n_rows(dst, g, o, acc, nl, dt);
    } else if (dt == POOLGRAD_F32 || g == 1) {
        for (int r = 0; r < g; r++)
            pg_st(dst[r] + o, acc, dt);
    } else {
        const vh bits = vh_from_vf(acc, dt);
        for (int r = 0; r < g; r++)
            vh_storeu(dst[r] + o, bits);
    }
}

#endif
