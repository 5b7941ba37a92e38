/*
 * The f16/bf16 <-> f32 conversions, checked against decoders and a rounding oracle written here
 * (unit_common.h: ldexp-based decode, value-based round-to-nearest-even), exhaustively where
 * possible. Both the public functions and the inline versions the kernels use (kernels/convert.h).
 */
#include <float.h>

#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "convert.h"
#include "testutil.h"
#include "oracle.h"

typedef float (*dec_fn)(uint16_t);
typedef uint16_t (*enc_fn)(float);

static float inl_f16_dec(uint16_t h) { return poolgrad_f16_to_f32_inline(h); }
static float inl_bf16_dec(uint16_t h) { return poolgrad_bf16_to_f32_inline(h); }
static uint16_t inl_f16_enc(float f) { return poolgrad_f32_to_f16_inline(f); }
static uint16_t inl_bf16_enc(float f) { return poolgrad_f32_to_bf16_inline(f); }

typedef struct fmt {
    const char *name;
    bool bf16;
    dec_fn dec[2];
    enc_fn enc[2];
} fmt;

static const fmt F16 = { "f16", false, { poolgrad_f16_to_f32, inl_f16_dec }, { poolgrad_f32_to_f16, inl_f16_enc } };
static const fmt BF16 = { "bf16", true, { poolgrad_bf16_to_f32, inl_bf16_dec }, { poolgrad_f32_to_bf16, inl_bf16_enc } };

static double decode(const fmt *f, uint16_t h) { return f->bf16 ? pgt_bf16_decode(h) : pgt_f16_decode(h); }
static bool is_nan_bits(const fmt *f, uint16_t h)
{
    return f->bf16 ? ((h & 0x7f80) == 0x7f80 && (h & 0x7f)) : ((h & 0x7c00) == 0x7c00 && (h & 0x3ff));
}
static bool is_quiet_nan_bits(const fmt *f, uint16_t h) { return is_nan_bits(f, h) && (h & (f->bf16 ? 0x40 : 0x200)); }

/* ------------------------------------------------------------------ decoding, all 65536 patterns */

static void decode_all(const fmt *f)
{
    for (uint32_t h = 0; h < 65536; h++) {
        for (int impl = 0; impl < 2; impl++) {
            float got = f->dec[impl]((uint16_t)h);
            uint32_t gb = pgt_f32_bits(got);
            if (is_nan_bits(f, (uint16_t)h)) {
                /* NaN: stays NaN, quiet, sign and payload kept in the top mantissa bits */
                uint32_t payload = f->bf16 ? (h & 0x7fu) << 16 : (h & 0x3ffu) << 13;
                uint32_t want = ((h & 0x8000u) << 16) | 0x7f800000u | payload | 0x00400000u;
                cr_assert_eq(gb, want, "%s decode(0x%04x) impl %d = 0x%08x, expected quiet NaN 0x%08x", f->name, h,
                             impl, gb, want);
            } else {
                double want = decode(f, (uint16_t)h);
                cr_assert((double)got == want && !signbit(got) == !signbit(want),
                          "%s decode(0x%04x) impl %d = %a, expected %a", f->name, h, impl, (double)got, want);
            }
        }
    }
}

Test(convert, f16_decode_all_65536) { decode_all(&F16); }
Test(convert, bf16_decode_all_65536) { decode_all(&BF16); }

/* Every non-NaN pattern goes through f32 and back unchanged; NaNs come back as quiet NaNs of the same sign. */
static void round_trip_all(const fmt *f)
{
    for (uint32_t h = 0; h < 65536; h++)
        for (int impl = 0; impl < 2; impl++) {
            uint16_t back = f->enc[impl](f->dec[impl]((uint16_t)h));
            if (is_nan_bits(f, (uint16_t)h)) {
                cr_assert(is_quiet_nan_bits(f, back) && (back & 0x8000) == (h & 0x8000),
                          "%s NaN 0x%04x came back as 0x%04x", f->name, h, back);
                /* quieting is idempotent and keeps the payload */
                uint16_t quiet = (uint16_t)(h | (f->bf16 ? 0x40 : 0x200));
                cr_assert_eq(back, quiet, "%s NaN 0x%04x -> 0x%04x, expected 0x%04x", f->name, h, back, quiet);
            } else {
                cr_assert_eq(back, h, "%s round trip 0x%04x -> 0x%04x (impl %d)", f->name, h, back, impl);
            }
        }
}

Test(convert, f16_round_trip_all) { round_trip_all(&F16); }
Test(convert, bf16_round_trip_all) { round_trip_all(&BF16); }

/* ------------------------------------------------------------------ encoding, hand-picked points */

typedef struct enc_case {
    uint32_t in;   /* f32 bits */
    uint16_t want; /* expected result bits */
    char what[64];
} enc_case;

#define F(x) pgt_f32_bits(x)

static void check_enc_table(const fmt *f, const enc_case *t, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (int impl = 0; impl < 2; impl++) {
            uint16_t got = f->enc[impl](pgt_bits_f32(t[i].in));
            cr_assert_eq(got, t[i].want, "%s encode %s (0x%08x): got 0x%04x, expected 0x%04x", f->name, t[i].what,
                         t[i].in, got, t[i].want);
            /* the oracle agrees with the hand-written expectation (keeps the oracle honest) */
            if (!isnan(pgt_bits_f32(t[i].in)))
                cr_assert_eq(pgt_round_half(pgt_bits_f32(t[i].in), f->bf16), t[i].want, "oracle disagrees on %s",
                             t[i].what);
        }
}

Test(convert, f16_encode_points)
{
    const enc_case t[] = {
        { 0x00000000u, 0x0000, "+0" },
        { 0x80000000u, 0x8000, "-0" },
        { 0x7f800000u, 0x7c00, "+inf" },
        { 0xff800000u, 0xfc00, "-inf" },
        { F(1.0f), 0x3c00, "1" },
        { F(-2.0f), 0xc000, "-2" },
        { F(0.1f), 0x2e66, "0.1" },
        { F(65504.0f), 0x7bff, "max 65504" },
        { F(65519.99f), 0x7bff, "65519.99 -> 65504" },
        { F(65520.0f), 0x7c00, "65520 tie -> inf" },
        { F(-65520.0f), 0xfc00, "-65520 -> -inf" },
        { F(65536.0f), 0x7c00, "65536 -> inf" },
        { F(FLT_MAX), 0x7c00, "FLT_MAX -> inf" },
        { F(1.0f + 0x1p-11f), 0x3c00, "1+2^-11 tie -> even 1" },
        { F(1.0f + 3 * 0x1p-11f), 0x3c02, "1+3*2^-11 tie -> even up" },
        { F(1.0f + 0x1p-11f + 0x1p-23f), 0x3c01, "just above tie" },
        { F(1.0f + 0x1p-11f - 0x1p-23f), 0x3c00, "just below tie" },
        { F(2049.0f), 0x6800, "2049 tie -> 2048" },
        { F(2051.0f), 0x6802, "2051 tie -> 2052" },
        { F(2047.5f), 0x6800, "2047.5 tie -> 2048 (carry into exponent)" },
        { F(0x1p-14f), 0x0400, "smallest normal" },
        { F(0x1p-24f), 0x0001, "smallest subnormal" },
        { F(-0x1p-24f), 0x8001, "-smallest subnormal" },
        { F(0x1p-25f), 0x0000, "2^-25 tie -> 0" },
        { F(-0x1p-25f), 0x8000, "-2^-25 tie -> -0" },
        { F(0x1p-25f * (1.0f + 0x1p-23f)), 0x0001, "just above 2^-25" },
        { F(0x1p-26f), 0x0000, "2^-26 -> 0" },
        { F(3 * 0x1p-25f), 0x0002, "1.5 units tie -> 2" },
        { F(5 * 0x1p-25f), 0x0002, "2.5 units tie -> 2" },
        { F(7 * 0x1p-25f), 0x0004, "3.5 units tie -> 4" },
        { F(1023 * 0x1p-24f), 0x03ff, "largest subnormal" },
        { F(0x1p-14f - 0x1p-25f), 0x0400, "1023.5 units tie -> smallest normal" },
        { F(0x1p-14f - 0x1p-26f), 0x0400, "1023.75 units -> smallest normal" },
        { F(0x1p-14f - 0x1p-24f - 0x1p-26f), 0x03ff, "1022.75 units -> 1023" },
        { 0x00000001u, 0x0000, "f32 smallest subnormal -> 0" },
        { 0x80000001u, 0x8000, "-f32 subnormal -> -0" },
        { F(1e-40f), 0x0000, "1e-40 -> 0" },
        { F(6e-8f), 0x0001, "6e-8 -> 2^-24" },
    };
    check_enc_table(&F16, t, sizeof t / sizeof t[0]);
}

Test(convert, bf16_encode_points)
{
    const enc_case t[] = {
        { 0x00000000u, 0x0000, "+0" },
        { 0x80000000u, 0x8000, "-0" },
        { 0x7f800000u, 0x7f80, "+inf" },
        { 0xff800000u, 0xff80, "-inf" },
        { F(1.0f), 0x3f80, "1" },
        { F(1.0f + 0x1p-8f), 0x3f80, "1+2^-8 tie -> even 1" },
        { F(1.0f + 3 * 0x1p-8f), 0x3f82, "1+3*2^-8 tie -> even up" },
        { 0x3f808001u, 0x3f81, "just above tie" },
        { 0x3f807fffu, 0x3f80, "just below tie" },
        { 0x3fff8000u, 0x4000, "tie with odd mantissa carries into the exponent" },
        { 0x3fff7fffu, 0x3fff, "below that tie" },
        { 0x7f7f7fffu, 0x7f7f, "just below the overflow midpoint -> max" },
        { 0x7f7f8000u, 0x7f80, "overflow midpoint tie -> inf" },
        { 0x7f7fffffu, 0x7f80, "FLT_MAX -> inf" },
        { 0xff7fffffu, 0xff80, "-FLT_MAX -> -inf" },
        { 0x00008000u, 0x0000, "subnormal tie -> 0" },
        { 0x80008000u, 0x8000, "negative subnormal tie -> -0" },
        { 0x00008001u, 0x0001, "subnormal above tie" },
        { 0x00018000u, 0x0002, "subnormal tie odd -> even up" },
        { 0x007fffffu, 0x0080, "largest f32 subnormal rounds into the smallest normal" },
        { 0x007f7fffu, 0x007f, "largest bf16 subnormal" },
        { 0x00800000u, 0x0080, "smallest normal" },
    };
    check_enc_table(&BF16, t, sizeof t / sizeof t[0]);
}

/* NaN inputs: the result is a quiet NaN with the sign and the top payload bits, never an infinity. */
static void check_nan(const fmt *f)
{
    const uint32_t nans[] = { 0x7fc00000u, 0xffc00000u, 0x7f800001u, 0xff800001u, 0x7fa00000u, 0x7fbfffffu,
                              0x7fffffffu, 0x7f802000u, 0x7f801fffu };
    for (size_t i = 0; i < sizeof nans / sizeof nans[0]; i++)
        for (int impl = 0; impl < 2; impl++) {
            uint32_t x = nans[i];
            uint16_t got = f->enc[impl](pgt_bits_f32(x));
            cr_assert(is_quiet_nan_bits(f, got), "%s encode NaN 0x%08x -> 0x%04x: not a quiet NaN", f->name, x, got);
            cr_assert_eq(got & 0x8000, (x >> 16) & 0x8000, "%s NaN sign lost (0x%08x -> 0x%04x)", f->name, x, got);
            uint16_t payload = f->bf16 ? (uint16_t)((x >> 16) & 0x7f) : (uint16_t)((x >> 13) & 0x3ff);
            uint16_t want = (uint16_t)(((x >> 16) & 0x8000) | (f->bf16 ? 0x7fc0 : 0x7e00) | payload);
            cr_assert_eq(got, want, "%s encode NaN 0x%08x -> 0x%04x, expected 0x%04x", f->name, x, got, want);
        }
}

Test(convert, f16_encode_nan) { check_nan(&F16); }
Test(convert, bf16_encode_nan) { check_nan(&BF16); }

/* ------------------------------------------------------------------ brute force */

/*
 * For an f32 x (not NaN) and the library's result r: r equals the oracle's, and (oracle-free) r is
 * a nearest representable value: no neighbour (r +- 1 ulp, computed in double) is strictly closer;
 * on an exact tie r has an even mantissa; infinity only at or beyond the overflow midpoint.
 */
static void check_one(const fmt *f, uint32_t xb)
{
    float x = pgt_bits_f32(xb);
    if (isnan(x))
        return;
    for (int impl = 0; impl < 2; impl++) {
        uint16_t r = f->enc[impl](x);
        uint16_t want = pgt_round_half(x, f->bf16);
        if (r != want)
            cr_assert_fail("%s encode(%a = 0x%08x) impl %d = 0x%04x, oracle 0x%04x", f->name, (double)x, xb, impl, r,
                           want);
        if (impl)
            continue;
        double v = decode(f, r), dx = (double)x;
        cr_assert(!signbit(v) == !signbit(dx), "%s sign of %a", f->name, dx);
        uint16_t mag = r & 0x7fff, sign = r & 0x8000;
        uint16_t inf = f->bf16 ? 0x7f80 : 0x7c00;
        if (mag == inf) {
            double maxf = decode(f, (uint16_t)(inf - 1));
            double mid = maxf + (maxf - decode(f, (uint16_t)(inf - 2))) / 2.0;
            cr_assert(fabs(dx) >= mid || isinf(dx), "%s %a overflowed below the midpoint", f->name, dx);
            continue;
        }
        double err = fabs(dx - v);
        if (mag + 1 < inf) { /* the neighbour away from zero */
            double up = decode(f, (uint16_t)(sign | (mag + 1)));
            cr_assert(err <= fabs(dx - up), "%s %a -> %a but %a is closer", f->name, dx, v, up);
            if (err != 0.0 && err == fabs(dx - up))
                cr_assert((mag & 1) == 0, "%s tie %a not to even", f->name, dx);
        }
        if (mag > 0) { /* the neighbour towards zero */
            double down = decode(f, (uint16_t)(sign | (mag - 1)));
            cr_assert(err <= fabs(dx - down), "%s %a -> %a but %a is closer", f->name, dx, v, down);
            if (err != 0.0 && err == fabs(dx - down))
                cr_assert((mag & 1) == 0, "%s tie %a not to even", f->name, dx);
        }
    }
}

static void brute(const fmt *f, uint64_t seed_fallback)
{
    pgt_rng rng = { pgt_seed(f->bf16 ? "convert bf16 brute force" : "convert f16 brute force", seed_fallback) };
    /* uniformly random bit patterns */
    for (int i = 0; i < (1 << 21); i++)
        check_one(f, (uint32_t)pgt_next(&rng));
    /* the interesting exponent range of the target format, random mantissas, plus ties and near-ties */
    int elo = f->bf16 ? 0 : 127 - 26, ehi = f->bf16 ? 255 : 127 + 17;
    for (int i = 0; i < (1 << 21); i++) {
        uint32_t e = (uint32_t)pgt_range(&rng, elo, ehi - 1);
        uint32_t m = (uint32_t)pgt_next(&rng) & 0x7fffffu;
        switch (i & 3) {
        case 1: m = (m & ~0x1fffu) | 0x1000u; break; /* an f16-normal tie */
        case 2: m = (m & ~0xffffu) | 0x8000u; break; /* a bf16 tie */
        case 3: m ^= (uint32_t)pgt_range(&rng, 0, 1); break;
        default: break;
        }
        check_one(f, ((uint32_t)pgt_range(&rng, 0, 1) << 31) | (e << 23) | m);
    }
    /* a strided sweep over all patterns */
    for (uint64_t x = 0; x < (1ull << 32); x += 4093)
        check_one(f, (uint32_t)x);
}

Test(convert, f16_encode_brute_force, .timeout = 60) { brute(&F16, 0x16); }
Test(convert, bf16_encode_brute_force, .timeout = 60) { brute(&BF16, 0xbf16); }

/* Every f16 value is exactly representable in f32 and the f16 subnormal range lies inside bf16's normals:
   the encoders must be exact on every decoded pattern of the other format that they can represent. */
Test(convert, f16_values_through_bf16)
{
    for (uint32_t h = 0; h < 65536; h++) {
        if (is_nan_bits(&F16, (uint16_t)h))
            continue;
        float x = poolgrad_f16_to_f32((uint16_t)h);
        uint16_t b = poolgrad_f32_to_bf16(x);
        cr_assert_eq(b, pgt_round_half(x, true), "f16 0x%04x -> bf16 0x%04x", h, b);
    }
}
