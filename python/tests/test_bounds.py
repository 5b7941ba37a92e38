"""Per-element error bounds (docs/ERROR_BOUNDS.md), tested both ways: every correct-but-different
implementation simulated here (any window order, true division or reciprocal multiply, f32 or in-dtype
accumulation) stays inside; an error one ulp larger where the bound is tight, and a dropped term, are caught."""
import numpy as np
import pytest

import poolgrad
from helpers import bf16_bits, bits_to_f64, round_bf16, simulate

CASES = [  # input shape, kernel, stride, padding, ceil, count_include_pad, divisor, spatial dims
    ((2, 3, 9, 11), 3, 2, 1, True, False, None, 2),
    ((1, 4, 12, 12), 4, 1, 2, False, True, None, 2),
    ((2, 2, 7, 7), (3, 2), (1, 2), (1, 0), True, True, None, 2),
    ((3, 10, 10), 5, 1, 2, False, False, None, 2),
    ((1, 2, 6, 7, 5), 3, 1, 1, False, True, None, 3),
    ((2, 5, 5, 6), (2, 3, 2), (1, 1, 2), 1, True, False, None, 3),
    ((1, 2, 9, 9), 3, 1, 1, False, True, 7, 2),
]
DTYPES = ["f32", "f16", "bf16"]


def data(rng, shape, dtype, spread):
    """Random gradOutput exactly representable in dtype (as float64), values over `spread` binades."""
    x = rng.standard_normal(shape) * np.exp2(rng.integers(-spread, spread + 1, shape))
    if dtype == "f32":
        return x.astype(np.float32).astype(np.float64)
    if dtype == "f16":
        return x.astype(np.float16).astype(np.float64)
    return round_bf16(x)


def to_dtype(x64, dtype):
    """float64 values -> array handed to poolgrad (bf16 as uint16 bits), one rounding."""
    if dtype == "f32":
        return x64.astype(np.float32)
    if dtype == "f16":
        return x64.astype(np.float16)
    return bf16_bits(round_bf16(x64))


def kw(dtype):
    return {"dtype": "bfloat16"} if dtype == "bf16" else {}


def problem(case):
    shape, k, s, p, ceil, cip, div, sd = case
    return shape, dict(kernel_size=k, stride=s, padding=p, ceil_mode=ceil, count_include_pad=cip,
                       divisor_override=div), sd


def golden(go, shape, pool, sd, dtype):
    fn = poolgrad.avg_pool2d_backward if sd == 2 else poolgrad.avg_pool3d_backward
    return fn(go, shape, **pool, **kw(dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("ci", range(len(CASES)))
def test_correct_variants_stay_inside(rng, ci, dtype):
    shape, pool, sd = problem(CASES[ci])
    oshape = poolgrad.output_shape(shape, pool["kernel_size"], pool["stride"], pool["padding"], pool["ceil_mode"],
                                   spatial_dims=sd)
    for spread in (0, 6):
        go64 = data(rng, oshape, dtype, spread)
        go = to_dtype(go64, dtype)
        ref = golden(go, shape, pool, sd, dtype)
        bounds = {m: poolgrad.error_bound(m, go, shape, **pool, spatial_dims=sd, **kw(dtype))
                  for m in poolgrad.BOUND_MODELS}
        # the golden result itself is a correct implementation
        for m, b in bounds.items():
            poolgrad.testing.assert_close(ref, ref, bound=b, **kw(dtype))
        for order in ("forward", "reverse", "random", "random"):
            for division in ("true", "recip"):
                sim = simulate(go64, shape, **pool, order=order, division=division, rng=rng, spatial_dims=sd)
                actual = to_dtype(sim, dtype)
                models = ["f32-any-order"] + (["f32-any-order-div"] if division == "true" else [])
                if dtype == "f32":
                    models += ["dtype-any-order"] + (["dtype-any-order-div"] if division == "true" else [])
                for m in models:
                    poolgrad.testing.assert_close(actual, ref, bound=bounds[m], **kw(dtype),
                                                  msg=f"{m} {order} {division} spread {spread}")
                if dtype != "f32":  # accumulation in the data dtype
                    sim = simulate(go64, shape, **pool, order=order, division=division, rng=rng, spatial_dims=sd,
                                   accumulate=dtype)
                    actual = to_dtype(sim, dtype)
                    for m in ["dtype-any-order"] + (["dtype-any-order-div"] if division == "true" else []):
                        poolgrad.testing.assert_close(actual, ref, bound=bounds[m], **kw(dtype),
                                                      msg=f"{m} {order} {division} in {dtype}")


def step_away(bits, x_exact, value, dtype):
    """bits moved one ulp further from the exact value (on the ordered integer line)."""
    width = 32 if dtype == "f32" else 16
    b = bits.astype(np.int64)
    sign = b >> (width - 1)
    mag = b & ((1 << (width - 1)) - 1)
    ordered = np.where(sign == 1, -mag, mag)
    ordered = ordered + np.where(value >= x_exact, 1, -1)
    out = np.where(ordered < 0, (1 << (width - 1)) | (-ordered), ordered)
    return out.astype(np.uint32 if width == 32 else np.uint16)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("ci", [0, 1, 4])
def test_one_ulp_larger_error_caught_where_tight(rng, ci, dtype):
    shape, pool, sd = problem(CASES[ci])
    oshape = poolgrad.output_shape(shape, pool["kernel_size"], pool["stride"], pool["padding"], pool["ceil_mode"],
                                   spatial_dims=sd)
    go64 = data(rng, oshape, dtype, 2)
    go = to_dtype(go64, dtype)
    ref = golden(go, shape, pool, sd, dtype)
    model = "f32-any-order-div"
    b = poolgrad.error_bound(model, go, shape, **pool, spatial_dims=sd, **kw(dtype))
    ubits = {"f32": np.uint32, "f16": np.uint16, "bf16": np.uint16}[dtype]
    bits = ref.view(ubits) if dtype != "bf16" else ref
    val = bits_to_f64(bits, dtype)
    bad_bits = step_away(bits, b.reference, val, dtype)
    dev = np.abs(bits_to_f64(bad_bits, dtype) - b.reference)
    tight = dev > b.bound  # where the golden result plus one ulp (away from exact) leaves the bound
    if dtype != "f32":
        # one ulp of f16/bf16 is far above the f32 summation error: nearly every element is tight
        assert tight.mean() > 0.9, f"only {tight.mean():.2%} of elements are tight"
    # move every element out to the edge of its bound (binary search on the ordered integer line): the last
    # value inside passes, one ulp more fails
    width = 32 if dtype == "f32" else 16
    sign_bit = 1 << (width - 1)

    def to_ordered(bb):
        bb = bb.astype(np.int64)
        return np.where(bb & sign_bit, -(bb & (sign_bit - 1)), bb)

    def from_ordered(o):
        return np.where(o < 0, sign_bit | (-o), o).astype(bits.dtype)

    o0 = to_ordered(bits)
    direction = np.where(val >= b.reference, 1, -1)
    lo = np.zeros(bits.shape, np.int64)          # inside
    hi = np.full(bits.shape, 2 * sign_bit, np.int64)  # past the end of the integer line: outside
    for _ in range(width + 1):
        mid = (lo + hi) // 2
        o = o0 + direction * mid
        in_range = np.abs(o) < sign_bit
        cand = bits_to_f64(from_ordered(np.where(in_range, o, 0)), dtype)
        with np.errstate(invalid="ignore"):  # the search may probe past infinity (NaN patterns: outside)
            ok = in_range & (np.abs(cand - b.reference) <= b.bound)
        lo = np.where(ok, mid, lo)
        hi = np.where(ok, hi, mid)
    inside = from_ordered(o0 + direction * lo)
    outside = step_away(inside, b.reference, bits_to_f64(inside, dtype), dtype)
    view = (lambda x: x) if dtype == "bf16" else (lambda x: x.view(ref.dtype))
    assert poolgrad.compare(view(inside), ref, bound=b, **kw(dtype)).passed
    r = poolgrad.compare(view(outside), ref, bound=b, **kw(dtype))
    assert r.mismatches == r.count
    # one element at a time, named by its index
    for i in range(0, bits.size, max(1, bits.size // 25)):
        injected = bits.copy()
        injected.flat[i] = outside.flat[i]
        r = poolgrad.compare(view(injected), ref, bound=b, **kw(dtype))
        assert not r.passed and r.mismatches == 1 and r.worst[0].index == i
        assert tuple(int(x) for x in np.unravel_index(i, shape)) == r.worst[0].multi_index


@pytest.mark.parametrize("dtype", DTYPES)
def test_dropped_term_fails(rng, dtype):
    shape, pool, sd = problem(CASES[0])
    oshape = poolgrad.output_shape(shape, 3, 2, 1, True, spatial_dims=2)
    go64 = data(rng, oshape, dtype, 0)
    go = to_dtype(go64, dtype)
    ref = golden(go, shape, pool, sd, dtype)
    sim = simulate(go64, shape, **pool, order="reverse", division="recip", drop=(2, 3), spatial_dims=sd)
    actual = to_dtype(sim, dtype)
    for m in poolgrad.BOUND_MODELS:
        r = poolgrad.compare(actual, ref, bound=m, grad_output=go, input_shape=shape, **pool, **kw(dtype))
        assert not r.passed and r.mismatches >= 1, m
        # every failing element lies inside the dropped window (rows 3..5, columns 5..7 at stride 2, pad 1)
        for w in r.worst:
            if not w.passed:
                assert 3 <= w.multi_index[2] <= 5 and 5 <= w.multi_index[3] <= 7


def test_bound_report_text_and_errors(rng):
    go = np.ones((1, 1, 2, 2), np.float32)
    ref = poolgrad.avg_pool2d_backward(go, (1, 1, 4, 4), 2)
    r = poolgrad.compare(ref, ref, bound="f32-any-order", grad_output=go, input_shape=(1, 1, 4, 4), kernel_size=2)
    assert r.passed and "per-element error bound f32-any-order" in str(r)
    with pytest.raises(ValueError, match="unknown"):
        poolgrad.error_bound("f64-any-order", go, (1, 1, 4, 4), 2)
    with pytest.raises(ValueError, match="grad_output="):
        poolgrad.compare(ref, ref, bound="f32-any-order")


def test_nonfinite_terms_need_the_exact_infinity_or_nan():
    go = np.array([[[[np.inf, 1.0], [np.nan, 2.0]]]], np.float32)
    ref = poolgrad.avg_pool2d_backward(go, (1, 1, 4, 4), 2)
    b = poolgrad.error_bound("f32-any-order", go, (1, 1, 4, 4), 2)
    assert poolgrad.compare(ref, ref, bound=b).passed
    bad = ref.copy()
    bad[0, 0, 0, 0] = 1.0
    bad[0, 0, 2, 0] = 0.0
    r = poolgrad.compare(bad, ref, bound=b)
    assert r.inf_mismatches == 1 and r.nan_mismatches == 1
