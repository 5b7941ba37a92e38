#!/usr/bin/python3
"""Generate the PyTorch parity vectors for tests/numerics/test_torch.c.

Run once with Debian's python3-torch (torch 1.13, CPU) and commit the output:

    /usr/bin/python3 tests/numerics/torch/gen_vectors.py tests/numerics/torch/vectors.bin

The C test never needs Python: it reads the committed file.

For every random case (2D and 3D, batched and unbatched, contiguous and channels-last,
ceil_mode, count_include_pad, divisor_override positive and negative, padding) the file holds:
  - go32:  a random f32 gradOutput (mixed signs) and gi32, torch's f32 gradInput from
           torch.ops.aten.avg_pool{2,3}d_backward on CPU (poolgrad must match it bit for bit);
  - goh:   a second random f32 gradOutput for the half-precision checks, all of one sign
           (no cancellation, so the 1-ULP criterion below is always decidable), and its
           torch conversions to float16 (go16) and bfloat16 (gob16), both round-to-nearest-even;
  - gi64_f16 / gi64_bf16: torch's float64 gradInput computed from go16 / gob16 widened exactly
           to float64 (poolgrad's f16 / bf16 result must be within 1 ULP of it rounded once).

Binary layout, little endian:
  b"PGTV0001", int64 count, then per case 32 int64 fields:
    0 sd, 1 rank, 2-6 input shape (rank entries, zero padded), 7-11 output shape,
    12-14 kernel, 15-17 stride, 18-20 padding (sd entries, zero padded), 21 ceil_mode,
    22 count_include_pad, 23 divisor_override (0 = none), 24 layout (0 contiguous,
    1 channels-last), 25 sign of goh (+1/-1), 26-31 zero,
  followed by go32 f32[no], gi32 f32[ni], goh f32[no], go16 u16[no], gi64_f16 f64[ni],
  gob16 u16[no], gi64_bf16 f64[ni]; every array in logical row-major (N)C(D)HW order.
"""
import random
import struct
import sys

import numpy as np
import torch

SEED = 20261129
COUNT = 240


def out_size(i, k, s, p, ceil):
    num = i + 2 * p - k + (s - 1 if ceil else 0)
    if num < 0:
        return None  # torch floors here and rejects; C truncation would give 1
    o = num // s + 1
    if ceil and (o - 1) * s >= i + p:
        o -= 1
    return o if o >= 1 else None


def to_layout(t, sd, layout):
    """A tensor with the same values in channels-last memory order (layout 1)."""
    if layout == 0:
        return t.contiguous()
    if t.dim() == sd + 2:
        fmt = torch.channels_last if sd == 2 else torch.channels_last_3d
        return t.contiguous(memory_format=fmt)
    # unbatched C,(D),H,W: store as (D),H,W,C and permute back
    perm_to = list(range(1, t.dim())) + [0]
    perm_back = [t.dim() - 1] + list(range(0, t.dim() - 1))
    return t.permute(*perm_to).contiguous().permute(*perm_back)


def backward(go, ishape, sd, k, s, p, ceil, cip, div, layout):
    self_ = to_layout(torch.zeros(ishape, dtype=go.dtype), sd, layout)
    go = to_layout(go, sd, layout)
    d = div if div != 0 else None
    if sd == 2:
        gi = torch.ops.aten.avg_pool2d_backward(go, self_, k, s, p, ceil, cip, d)
    else:
        gi = torch.ops.aten.avg_pool3d_backward(go, self_, k, s, p, ceil, cip, d)
    return gi.contiguous()


def random_case(rng):
    while True:
        sd = rng.choice((2, 3))
        batched = rng.random() < 0.7
        layout = rng.choice((0, 1))
        n = rng.randint(1, 2)
        c = rng.randint(1, 3)
        ins, ks, ss, ps = [], [], [], []
        for _ in range(sd):
            i = rng.randint(1, 8 if sd == 2 else 5)
            # avg_pool3d (check_input_size) wants input >= kernel on every axis; 2D does not
            k = rng.randint(1, min(4, i + 2) if sd == 2 else min(4, i))
            ins.append(i)
            ks.append(k)
            ss.append(rng.randint(1, 3))
            ps.append(rng.randint(0, k // 2))
        ceil = rng.random() < 0.5
        cip = rng.random() < 0.5
        r = rng.random()
        div = 0 if r < 0.7 else (rng.randint(1, 7) if r < 0.85 else -rng.randint(1, 7))
        outs = [out_size(i, k, s, p, ceil) for i, k, s, p in zip(ins, ks, ss, ps)]
        if any(o is None for o in outs):
            continue
        lead = [n, c] if batched else [c]
        return sd, lead + ins, lead + outs, ks, ss, ps, ceil, cip, div, layout


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "vectors.bin"
    rng = random.Random(SEED)
    torch.manual_seed(SEED)
    out = bytearray(b"PGTV0001")
    out += struct.pack("<q", COUNT)
    for _ in range(COUNT):
        sd, ishape, oshape, k, s, p, ceil, cip, div, layout = random_case(rng)
        no = int(np.prod(oshape))
        ni = int(np.prod(ishape))
        go32 = (torch.rand(oshape, dtype=torch.float32) * 8 - 4)
        gi32 = backward(go32, ishape, sd, k, s, p, ceil, cip, div, layout)
        assert list(gi32.shape) == ishape
        sign = rng.choice((1, -1))
        goh = (torch.rand(oshape, dtype=torch.float32) * 3.9 + 0.1) * sign
        go16 = goh.to(torch.float16)
        gob16 = goh.to(torch.bfloat16)
        gi64_f16 = backward(go16.to(torch.float64), ishape, sd, k, s, p, ceil, cip, div, layout)
        gi64_bf16 = backward(gob16.to(torch.float64), ishape, sd, k, s, p, ceil, cip, div, layout)

        hdr = [sd, len(ishape)] + ishape + [0] * (5 - len(ishape)) + oshape + [0] * (5 - len(oshape))
        hdr += k + [0] * (3 - sd) + s + [0] * (3 - sd) + p + [0] * (3 - sd)
        hdr += [int(ceil), int(cip), div, layout, sign] + [0] * 6
        assert len(hdr) == 32
        out += struct.pack("<32q", *hdr)
        out += go32.contiguous().numpy().astype("<f4").tobytes()
        out += gi32.numpy().astype("<f4").tobytes()
        out += goh.contiguous().numpy().astype("<f4").tobytes()
        out += go16.contiguous().view(torch.int16).numpy().astype("<i2").tobytes()
        out += gi64_f16.numpy().astype("<f8").tobytes()
        out += gob16.contiguous().view(torch.int16).numpy().astype("<i2").tobytes()
        out += gi64_bf16.numpy().astype("<f8").tobytes()
        assert no > 0 and ni > 0
    with open(path, "wb") as f:
        f.write(out)
    print(f"{path}: {COUNT} cases, {len(out)} bytes (torch {torch.__version__})")


if __name__ == "__main__":
    main()
