/*
 * Internal: the project's own scalar f16/bf16 <-> f32 conversions. These define the bits;
 * SIMD kernels must reproduce them exactly. Round-to-nearest-even, overflow to +-inf,
 * f16 subnormals kept, NaN quieted with sign and top payload kept (these are conversions).
 * Results poolgrad stores go through poolgrad_canonical_nan_f32 first: every stored NaN is the
 * dtype's canonical quiet NaN (docs/SEMANTICS.md, "NaN").
 */
#ifndef POOLGRAD_KERNELS_CONVERT_H
#define POOLGRAD_KERNELS_CONVERT_H

#include <float.h>
#include <stdint.h>
#include <string.h>

#include "poolgrad/poolgrad.h"

/* The golden numerics are binary32 operations rounded once each: excess precision (x87) would change the bits. */
#if !defined(FLT_EVAL_METHOD) || FLT_EVAL_METHOD != 0
#error "poolgrad needs FLT_EVAL_METHOD == 0 (float arithmetic in float): on 32-bit x86 build with -msse2 -mfpmath=sse"
#endif

static inline uint32_t poolgrad_f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static inline float poolgrad_bits_f32(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* The canonical quiet NaN of f32 (0x7fc00000) for any NaN; any other value unchanged. Its f16 and
 * bf16 conversions are the canonical 0x7e00 and 0x7fc0. */
static inline float poolgrad_canonical_nan_f32(float f)
{
    return (poolgrad_f32_bits(f) & 0x7fffffffu) > 0x7f800000u ? poolgrad_bits_f32(0x7fc00000u) : f;
}

static inline float poolgrad_f16_to_f32_inline(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t man = h & 0x3ffu;
    uint32_t bits;
    if (exp == 0x1f) {
        bits = sign | 0x7f800000u | (man << 13) | (man ? 0x00400000u : 0u); /* inf, or quiet NaN */
    } else if (exp == 0) {
        if (man == 0) {
            bits = sign;
        } else { /* subnormal: man * 2^-24, normalize */
            uint32_t e = 0;
            while (!(man & 0x400u)) {
                man <<= 1;
                e++;
            }
            bits = sign | ((113u - e) << 23) | ((man & 0x3ffu) << 13);
        }
    } else {
        bits = sign | ((exp + 112u) << 23) | (man << 13);
    }
    return poolgrad_bits_f32(bits);
}

static inline uint16_t poolgrad_f32_to_f16_inline(float f)
{
    uint32_t x = poolgrad_f32_bits(f);
    uint32_t sign = (x >> 16) & 0x8000u;
    uint32_t ax = x & 0x7fffffffu;
    if (ax > 0x7f800000u) /* NaN: quiet, keep the top payload bits */
        return (uint16_t)(sign | 0x7e00u | ((ax >> 13) & 0x3ffu));
    if (ax >= 0x477ff000u) /* >= 65520 rounds to infinity (and inf itself) */
        return (uint16_t)(sign | 0x7c00u);
    if (ax >= 0x38800000u) { /* normal result: rebias, round the 13 dropped bits to nearest even */
        uint32_t r = ax - 0x38000000u;
        r += 0xfffu + ((r >> 13) & 1u);
        return (uint16_t)(sign | (r >> 13));
    }
    if (ax <= 0x33000000u) /* <= 2^-25: rounds to zero (the tie goes to even 0) */
        return (uint16_t)sign;
    /* subnormal result in units of 2^-24 (may round up to the smallest normal 0x0400) */
    uint32_t e = ax >> 23;
    uint32_t m = (ax & 0x7fffffu) | 0x800000u;
    uint32_t shift = 126u - e; /* 14..24 */
    uint32_t q = m >> shift;
    uint32_t rem = m & ((1u << shift) - 1u);
    uint32_t half = 1u << (shift - 1u);
    if (rem > half || (rem == half && (q & 1u)))
        q++;
    return (uint16_t)(sign | q);
}

static inline float poolgrad_bf16_to_f32_inline(uint16_t b)
{
    uint32_t bits = (uint32_t)b << 16;
    if ((bits & 0x7fffffffu) > 0x7f800000u)
        bits |= 0x00400000u; /* quiet NaN */
    return poolgrad_bits_f32(bits);
}

static inline uint16_t poolgrad_f32_to_bf16_inline(float f)
{
    uint32_t x = poolgrad_f32_bits(f);
    if ((x & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((x >> 16) | 0x0040u);
    return (uint16_t)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

/* One stored element of dtype dt at p, widened exactly to f32 (f16 and bf16 widen exactly). */
static inline float poolgrad_load_f32(poolgrad_dtype dt, const void *p)
{
    switch (dt) {
    case POOLGRAD_F16: { uint16_t h; memcpy(&h, p, 2); return poolgrad_f16_to_f32_inline(h); }
    case POOLGRAD_BF16: { uint16_t b; memcpy(&b, p, 2); return poolgrad_bf16_to_f32_inline(b); }
    default: { float f; memcpy(&f, p, 4); return f; }
    }
}

#endif
