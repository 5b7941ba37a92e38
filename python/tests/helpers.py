"""Shared helpers of the pytest suite: a float64 model of avg-pool backward that can sum in any window order,
with f32/f16/bf16 rounding done once (numpy, no poolgrad code)."""
import itertools
import os
import subprocess

import numpy as np

CLI = os.environ.get("POOLGRAD_CLI", "poolgrad")


def run_cli(*args, check=None):
    r = subprocess.run([CLI, *map(str, args)], capture_output=True, text=True, errors="replace", timeout=120)
    assert r.returncode >= 0, f"poolgrad {' '.join(map(str, args))} died with signal {-r.returncode}\n{r.stderr}"
    if check is not None:
        assert r.returncode == check, f"exit {r.returncode}, expected {check}\nstdout:\n{r.stdout}\nstderr:\n{r.stderr}"
    return r


def as_tuple(v, n):
    if isinstance(v, int):
        return (v,) * n
    v = tuple(v)
    return v * n if len(v) == 1 else v


def out_size(i, k, s, p, ceil):
    o = (i + 2 * p - k + (s - 1 if ceil else 0)) // s + 1
    if ceil and (o - 1) * s >= i + p:
        o -= 1
    return o


def windows(in_sp, k, s, p, ceil, cip, divisor):
    """[(out index tuple, input slices, divisor)] in ascending order (docs/SEMANTICS.md section 3)."""
    axes = []
    for i, kk, ss, pp in zip(in_sp, k, s, p):
        o = out_size(i, kk, ss, pp, ceil)
        ax = []
        for oo in range(o):
            start = oo * ss - pp
            end = min(start + kk, i + pp)
            lo, hi = max(start, 0), min(end, i)
            ax.append((oo, slice(lo, hi), end - start, hi - lo))
        axes.append(ax)
    res = []
    for combo in itertools.product(*axes):
        pool = np.prod([c[2] for c in combo])
        cnt = np.prod([c[3] for c in combo])
        d = divisor if divisor else (pool if cip else cnt)
        res.append((tuple(c[0] for c in combo), tuple(c[1] for c in combo), int(d)))
    return res


def round_bf16(x):
    """float64 -> nearest bfloat16 value (ties to even), as float64; normal range only."""
    x = np.asarray(x, np.float64)
    m, e = np.frexp(x)
    return np.ldexp(np.round(m * 256.0) / 256.0, e)


def round_f16(x):
    return np.asarray(x, np.float64).astype(np.float16).astype(np.float64)


def bf16_bits(x64):
    """bfloat16 values held exactly in float64 -> uint16 bits."""
    return (np.asarray(x64, np.float64).astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)


def bits_to_f64(bits, dtype):
    with np.errstate(invalid="ignore"):  # signalling NaN patterns widen quietly
        return _bits_to_f64(bits, dtype)


def _bits_to_f64(bits, dtype):
    if dtype == "bf16":
        return (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    if dtype == "f16":
        return bits.view(np.float16).astype(np.float64)
    return bits.view(np.float32).astype(np.float64)


def simulate(go64, input_shape, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
             divisor_override=None, order="forward", division="true", accumulate="f32", rng=None, drop=None,
             spatial_dims=2):
    """A correct-but-different implementation: terms g/d by true division or by g * fl(1/d), summed over
    the windows in `order` ("forward", "reverse", "random") in f32 ("f32") or rounded to the data dtype at
    every step ("f16", "bf16"). Returns float64 values (f32 sums; round afterwards for f16/bf16 outputs
    when accumulate == "f32"). drop: (out index tuple) of one window whose term is left out everywhere."""
    sd = spatial_dims
    k = as_tuple(kernel_size, sd)
    s = as_tuple(stride if stride not in (None, ()) else kernel_size, sd)
    p = as_tuple(padding, sd)
    lead = len(input_shape) - sd
    ws = windows(input_shape[lead:], k, s, p, ceil_mode, count_include_pad, divisor_override)
    if order == "reverse":
        ws = ws[::-1]
    elif order == "random":
        rng.shuffle(ws)
    if accumulate == "f32":
        acc = np.zeros(input_shape, np.float32)
    else:
        acc = np.zeros(input_shape, np.float64)
    rnd = {"f16": round_f16, "bf16": round_bf16}.get(accumulate)
    for oidx, sl, d in ws:
        if drop is not None and oidx == drop:
            continue
        g = go64[(Ellipsis,) + oidx]
        if accumulate == "f32":
            g32 = g.astype(np.float32)
            t = g32 / np.float32(d) if division == "true" else g32 * (np.float32(1.0) / np.float32(d))
            t = t.astype(np.float32)
            region = acc[(Ellipsis,) + sl]
            acc[(Ellipsis,) + sl] = region + t.reshape(t.shape + (1,) * sd)
        else:
            t = rnd(g / d) if division == "true" else rnd(g * rnd(1.0 / d))
            region = acc[(Ellipsis,) + sl]
            acc[(Ellipsis,) + sl] = rnd(region + t.reshape(t.shape + (1,) * sd))
    return acc.astype(np.float64)
