"""Cross-checks against PyTorch (skipped when torch is not importable): f32 bit-identical to torch's CPU
gradient; f16/bf16 equal to torch's float64 gradient rounded once; torch tensors in and out, any strides."""
import numpy as np
import pytest

import poolgrad
from helpers import bf16_bits, bits_to_f64, round_bf16

torch = pytest.importorskip("torch", reason="python3-torch is not importable: torch cross-checks skipped")
F = torch.nn.functional


def random_case(rng, sd):
    while True:
        k = tuple(int(x) for x in rng.integers(1, 5, sd))
        s = tuple(int(x) for x in rng.integers(1, 4, sd))
        p = tuple(int(rng.integers(0, kk // 2 + 1)) for kk in k)
        ceil = bool(rng.integers(0, 2))
        cip = bool(rng.integers(0, 2))
        div = int(rng.integers(-3, 10)) if rng.integers(0, 4) == 0 else None
        if div == 0:
            div = None
        sp = tuple(int(x) for x in rng.integers(1, 9 if sd == 2 else 6, sd))
        sp = tuple(max(a, b) for a, b in zip(sp, k))
        batched = bool(rng.integers(0, 3))
        shape = ((int(rng.integers(1, 3)),) if batched else ()) + (int(rng.integers(1, 4)),) + sp
        return shape, k, s, p, ceil, cip, div


def torch_grad(x_shape, go, k, s, p, ceil, cip, div, dtype=torch.float32, sd=2):
    x = torch.zeros(x_shape, dtype=dtype, requires_grad=True)
    f = F.avg_pool2d if sd == 2 else F.avg_pool3d
    y = f(x, k, s, p, ceil_mode=ceil, count_include_pad=cip, divisor_override=div)
    y.backward(go.to(dtype))
    return x.grad


def layout(t, rng, sd):
    """The same values in a random memory layout: contiguous, channels-last, strided slice or transposed."""
    which = int(rng.integers(0, 4))
    if which == 1 and t.dim() == sd + 2:
        return t.contiguous(memory_format=torch.channels_last if sd == 2 else torch.channels_last_3d)
    if which == 2:
        big = torch.zeros([2 * n for n in t.shape], dtype=t.dtype)
        sl = tuple(slice(None, None, 2) for _ in t.shape)
        big[sl] = t
        return big[sl]
    if which == 3:
        return t.transpose(-1, -2).contiguous().transpose(-1, -2)
    return t


@pytest.mark.parametrize("sd", [2, 3])
def test_f32_bit_identical_to_torch(rng, sd):
    checked = 0
    for _ in range(60 if sd == 2 else 30):
        shape, k, s, p, ceil, cip, div = random_case(rng, sd)
        f = F.avg_pool2d if sd == 2 else F.avg_pool3d
        try:
            yshape = f(torch.zeros(shape), k, s, p, ceil_mode=ceil, count_include_pad=cip, divisor_override=div).shape
        except RuntimeError:
            continue
        go = torch.randn(yshape, generator=torch.Generator().manual_seed(int(rng.integers(1 << 30))))
        want = torch_grad(shape, go, k, s, p, ceil, cip, div, sd=sd)
        fn = poolgrad.avg_pool2d_backward if sd == 2 else poolgrad.avg_pool3d_backward
        got = fn(layout(go, rng, sd), shape, k, s, p, ceil, cip, div)
        assert isinstance(got, torch.Tensor) and got.dtype == torch.float32
        assert torch.equal(got.view(torch.int32), want.contiguous().view(torch.int32)), (shape, k, s, p, ceil, cip, div)
        # numpy in, numpy out, same bits
        gn = fn(go.numpy(), shape, k, s, p, ceil, cip, div)
        assert isinstance(gn, np.ndarray) and np.array_equal(gn.view(np.uint32), want.numpy().view(np.uint32))
        checked += 1
    print(f"{checked} {sd}D cases bit-identical to torch")
    assert checked >= (40 if sd == 2 else 20)  # invalid random parameter sets are few


def round_once(x64, dtype):
    if dtype == "f16":
        return x64.astype(np.float16).view(np.uint16)
    return bf16_bits(round_bf16(x64))


@pytest.mark.parametrize("dtype", ["f16", "bf16"])
@pytest.mark.parametrize("sd", [2, 3])
def test_half_types_equal_float64_rounded_once(rng, dtype, sd):
    """Exact case: power-of-two divisors and few-bit data make the f32 sum exact, so poolgrad's result must be
    the float64 gradient rounded once, bit for bit. General case: a 1-ulp difference is allowed only where the
    float64 value lies within f32 rounding of a rounding midpoint."""
    tdt = torch.float16 if dtype == "f16" else torch.bfloat16
    fn = poolgrad.avg_pool2d_backward if sd == 2 else poolgrad.avg_pool3d_backward
    for exact in (True, False):
        for _ in range(20):
            if exact:
                shape = (2, 3) + (8,) * sd
                k, s, p, ceil, cip, div = (2,) * sd, (1,) * sd, (1,) * sd, False, True, None
            else:
                shape, k, s, p, ceil, cip, div = random_case(rng, sd)
            f = F.avg_pool2d if sd == 2 else F.avg_pool3d
            try:
                yshape = f(torch.zeros(shape), k, s, p, ceil_mode=ceil, count_include_pad=cip,
                           divisor_override=div).shape
            except RuntimeError:
                continue
            if exact:
                go = torch.from_numpy(rng.integers(-64, 64, yshape).astype(np.float32) / 8)
            else:
                go = torch.randn(yshape).to(tdt).float()
            want64 = torch_grad(shape, go, k, s, p, ceil, cip, div, dtype=torch.float64, sd=sd).numpy()
            got = fn(layout(go.to(tdt), rng, sd), shape, k, s, p, ceil, cip, div)
            assert got.dtype == tdt
            gbits = got.view(torch.int16).numpy().view(np.uint16)
            wbits = round_once(want64, dtype)
            diff = gbits != wbits
            if exact:
                assert not diff.any(), (shape, k, s, p)
                continue
            if diff.any():
                g = bits_to_f64(gbits[diff], dtype)
                w = bits_to_f64(wbits[diff], dtype)
                mid = (g + w) / 2
                x = want64[diff]
                assert (np.abs(x - mid) <= np.abs(x) * 2.0 ** -20).all(), (shape, k, s, p, x, g, w)


def test_bf16_more_accurate_than_torch_2d(rng):
    go = torch.randn(4, 8, 16, 16).to(torch.bfloat16)
    shape = (4, 8, 31, 31)
    want64 = torch_grad(shape, go.float(), 3, 2, 1, False, True, None, dtype=torch.float64).numpy()
    ours = bits_to_f64(poolgrad.avg_pool2d_backward(go, shape, 3, 2, 1).view(torch.int16).numpy().view(np.uint16),
                       "bf16")
    theirs = torch_grad(shape, go.float(), 3, 2, 1, False, True, None, dtype=torch.bfloat16).float().numpy()
    assert np.abs(ours - want64).max() <= np.abs(theirs - want64).max()


def test_torch_out_and_strided_out(rng):
    go = torch.randn(2, 3, 4, 4)
    want = poolgrad.avg_pool2d_backward(go, (2, 3, 8, 8), 2)
    out = torch.full((2, 3, 8, 8), 5.0).contiguous(memory_format=torch.channels_last)
    r = poolgrad.avg_pool2d_backward(go, (2, 3, 8, 8), 2, out=out)
    assert r is out and torch.equal(out, want)
    with pytest.raises(TypeError):
        poolgrad.avg_pool2d_backward(go, (2, 3, 8, 8), 2, out=np.zeros((2, 3, 8, 8), np.float32))


def test_torch_requires_grad_and_bf16_3d(rng):
    go = torch.randn(1, 2, 2, 2, 2, requires_grad=True).to(torch.bfloat16)
    g = poolgrad.avg_pool3d_backward(go, torch.zeros(1, 2, 4, 4, 4), 2)
    assert g.dtype == torch.bfloat16 and g.shape == (1, 2, 4, 4, 4)
    assert torch.equal(g.float(), poolgrad.avg_pool3d_backward(go.float(), (1, 2, 4, 4, 4), 2))  # /8: exact


def test_torch_compare_and_assert_close(rng):
    a = torch.randn(2, 3, 4).to(torch.bfloat16)
    b = a.clone()
    b.view(torch.int16)[1, 2, 3] += 1
    r = poolgrad.compare(b, a)
    assert not r.passed and r.worst[0].multi_index == (1, 2, 3) and r.worst[0].ulp == 1
    poolgrad.testing.assert_close(b, a, max_ulp=1)
    with pytest.raises(ValueError, match="dtype"):
        poolgrad.compare(a.float(), a)
