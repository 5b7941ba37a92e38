"""The Python API: conventions, dtypes, views, out=, threads, errors, introspection."""
import threading

import numpy as np
import pytest

import poolgrad
from helpers import bits_to_f64, simulate


def test_acceptance_ones():
    g = poolgrad.avg_pool2d_backward(np.ones((1, 16, 1, 1), np.float32), (1, 16, 4, 4), 4, 1, 0)
    assert g.shape == (1, 16, 4, 4) and g.dtype == np.float32
    assert (g == 0.0625).all()


def test_version_isa_kernel():
    assert poolgrad.__version__.count(".") == 2
    assert poolgrad.active_isa() in poolgrad.isas_built()
    assert "scalar" in poolgrad.isas_built()
    poolgrad.avg_pool3d_backward(np.ones((1, 1, 1, 1, 1), np.float16), (1, 1, 2, 2, 2), 2)
    assert poolgrad.last_kernel().startswith("avgpool3d_bwd_f16_")


def test_matches_f32_model_forward_order(rng):
    go = rng.standard_normal((2, 3, 5, 6)).astype(np.float32)
    g = poolgrad.avg_pool2d_backward(go, (2, 3, 9, 11), 3, 2, 1, ceil_mode=True, count_include_pad=False)
    ref = simulate(go.astype(np.float64), (2, 3, 9, 11), 3, 2, 1, True, False).astype(np.float32)
    assert np.array_equal(g.view(np.uint32), ref.view(np.uint32))


def test_unbatched_equals_batched(rng):
    go = rng.standard_normal((3, 5, 5)).astype(np.float32)
    a = poolgrad.avg_pool2d_backward(go, (3, 8, 10), (2, 3), 2, 1)
    b = poolgrad.avg_pool2d_backward(go[None], (1, 3, 8, 10), (2, 3), 2, 1)
    assert a.shape == (3, 8, 10) and np.array_equal(a, b[0])
    go3 = rng.standard_normal((2, 2, 2, 2)).astype(np.float32)
    c = poolgrad.avg_pool3d_backward(go3, (2, 4, 4, 4), 2)
    d = poolgrad.avg_pool3d_backward(go3[None], (1, 2, 4, 4, 4), 2)
    assert np.array_equal(c, d[0])


@pytest.mark.parametrize("layout", ["c", "fortran", "channels_last", "sliced", "negative", "broadcast"])
def test_numpy_views_are_read_in_place(rng, layout):
    base = rng.standard_normal((2, 3, 5, 6)).astype(np.float32)
    if layout == "c":
        go = base
    elif layout == "fortran":
        go = np.asfortranarray(base)
    elif layout == "channels_last":
        go = np.ascontiguousarray(base.transpose(0, 2, 3, 1)).transpose(0, 3, 1, 2)
    elif layout == "sliced":
        big = np.zeros((2, 6, 10, 12), np.float32)
        big[:, ::2, ::2, ::2] = base
        go = big[:, ::2, ::2, ::2]
    elif layout == "negative":
        go = np.ascontiguousarray(base[:, :, ::-1, ::-1])[:, :, ::-1, ::-1]
    else:
        base = np.broadcast_to(base[:, :, :1, :], base.shape)
        go = base
    assert np.array_equal(go, base)
    want = poolgrad.avg_pool2d_backward(np.ascontiguousarray(base), (2, 3, 10, 12), 2)
    got = poolgrad.avg_pool2d_backward(go, (2, 3, 10, 12), 2)
    assert np.array_equal(got.view(np.uint32), want.view(np.uint32))


def test_out_any_strides_written_in_place(rng):
    go = rng.standard_normal((2, 3, 4, 4)).astype(np.float16)
    want = poolgrad.avg_pool2d_backward(go, (2, 3, 8, 8), 2)
    store = np.full((2, 8, 8, 3), 7, np.float16)
    out = store.transpose(0, 3, 1, 2)
    r = poolgrad.avg_pool2d_backward(go, (2, 3, 8, 8), 2, out=out)
    assert r is out
    assert np.array_equal(store.transpose(0, 3, 1, 2).view(np.uint16), want.view(np.uint16))
    assert "nhwc" in poolgrad.last_kernel() or poolgrad.last_kernel()


def test_bf16_as_uint16(rng):
    go = rng.standard_normal((1, 2, 3, 3)).astype(np.float32)
    bits = (go.view(np.uint32) >> 16).astype(np.uint16)
    g = poolgrad.avg_pool2d_backward(bits, (1, 2, 6, 6), 2, dtype="bfloat16")
    assert g.dtype == np.uint16
    g32 = poolgrad.avg_pool2d_backward(bits_to_f64(bits, "bf16").astype(np.float32), (1, 2, 6, 6), 2)
    assert np.array_equal(g, (g32.view(np.uint32) >> 16).astype(np.uint16))  # /4: exact, no rounding
    with pytest.raises(ValueError, match="bfloat16"):
        poolgrad.avg_pool2d_backward(bits, (1, 2, 6, 6), 2)


def test_threads_give_identical_bytes(rng):
    go = rng.standard_normal((4, 8, 17, 17)).astype(np.float32)
    ref = poolgrad.avg_pool2d_backward(go, (4, 8, 33, 33), 3, 2, 1, threads=1)
    for t in (2, 3, 0):
        assert np.array_equal(poolgrad.avg_pool2d_backward(go, (4, 8, 33, 33), 3, 2, 1, threads=t).view(np.uint32),
                              ref.view(np.uint32))


def test_gil_released_concurrent_calls(rng):
    go = rng.standard_normal((8, 16, 32, 32)).astype(np.float32)
    ref = poolgrad.avg_pool2d_backward(go, (8, 16, 64, 64), 2, threads=1)
    results = [None] * 4

    def work(i):
        results[i] = poolgrad.avg_pool2d_backward(go, (8, 16, 64, 64), 2, threads=1)

    ts = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert all(np.array_equal(r, ref) for r in results)


@pytest.mark.parametrize("call, message", [
    (lambda go: poolgrad.avg_pool2d_backward(go, (1, 1, 4, 4), 3, 1, 2), r"padding\[0\] = 2 exceeds kernel\[0\] / 2 = 1"),
    (lambda go: poolgrad.avg_pool2d_backward(go, (1, 1, 4, 4), 0), r"kernel\[0\] = 0 is not positive"),
    (lambda go: poolgrad.avg_pool2d_backward(go, (1, 1, 4, 4), 2, -1), r"stride\[0\] = -1 is not positive"),
    (lambda go: poolgrad.avg_pool2d_backward(go, (1, 1, 6, 6), 2), r"gradOutput shape \[1, 1, 2, 2\] differs from the expected \[1, 1, 3, 3\]"),
    (lambda go: poolgrad.avg_pool2d_backward(go, (1, 1, 4, 4), (2, 2, 2)), r"kernel_size has 3 values"),
    (lambda go: poolgrad.avg_pool2d_backward(go, (1, 4, 4), 2), r"grad_?[oO]utput|rank"),
    (lambda go: poolgrad.avg_pool2d_backward(go, (1, 1, 4, 4), 2, divisor_override=0), r"divisor_override = 0"),
    (lambda go: poolgrad.avg_pool2d_backward(go.astype(np.float64), (1, 1, 4, 4), 2), r"float64"),
    (lambda go: poolgrad.avg_pool2d_backward(go, (1, 1, 4, 4), 2, threads=-1), r"threads"),
    (lambda go: poolgrad.avg_pool2d_backward(go, (1, 1, 4, 4), 2, out=np.zeros((1, 1, 4, 5), np.float32)), r"out shape"),
    (lambda go: poolgrad.avg_pool2d_backward(go, (1, 1, 4, 4), 2, out=np.zeros((1, 1, 4, 4), np.float16)), r"out dtype"),
])
def test_bad_arguments_raise_value_error_with_the_library_message(call, message):
    go = np.ones((1, 1, 2, 2), np.float32)
    with pytest.raises(ValueError, match=message):
        call(go)


def test_read_only_out_and_aliasing_rejected():
    go = np.ones((1, 1, 2, 2), np.float32)
    out = np.zeros((1, 1, 4, 4), np.float32)
    out.setflags(write=False)
    with pytest.raises(ValueError, match="read-only"):
        poolgrad.avg_pool2d_backward(go, (1, 1, 4, 4), 2, out=out)
    bad = np.lib.stride_tricks.as_strided(np.zeros(4, np.float32), (1, 1, 4, 4), (0, 0, 4, 0), writeable=True)
    with pytest.raises(ValueError, match="reaches some element twice"):
        poolgrad.avg_pool2d_backward(go, (1, 1, 4, 4), 2, out=bad)


def test_output_shape_matches_torch_rule():
    assert poolgrad.output_shape((2, 3, 5, 5), 2, 2, 0, ceil_mode=True) == (2, 3, 3, 3)
    assert poolgrad.output_shape((1, 1, 5, 4, 7), (3, 2, 2), 3, (1, 1, 1), ceil_mode=True) == (1, 1, 2, 2, 3)


def test_empty_grad_output_gives_zeros():
    g = poolgrad.avg_pool2d_backward(np.ones((0, 3, 2, 2), np.float32), (0, 3, 4, 4), 2)
    assert g.shape == (0, 3, 4, 4)
