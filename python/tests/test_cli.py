"""The `poolgrad` command over .npy files: golden, compare (exit 0/1/2), --bound, info; hostile files."""
import os
import struct

import numpy as np
import pytest

from helpers import bf16_bits, round_bf16, run_cli, simulate

pytestmark = pytest.mark.skipif(not os.path.exists(os.environ.get("POOLGRAD_CLI", "/nonexistent")),
                                reason="POOLGRAD_CLI does not name the built poolgrad command")


def npy_bytes(arr, version=(1, 0), descr=None, fortran=False, header=None):
    """A .npy file written by hand (so tests control every header byte)."""
    data = np.asfortranarray(arr) if fortran else np.ascontiguousarray(arr)
    d = descr or data.dtype.str
    h = header if header is not None else \
        f"{{'descr': '{d}', 'fortran_order': {fortran}, 'shape': {tuple(arr.shape)}, }}"
    pre = 10 if version[0] == 1 else 12
    pad = (64 - (pre + len(h) + 1) % 64) % 64
    h = h + " " * pad + "\n"
    ln = struct.pack("<H", len(h)) if version[0] == 1 else struct.pack("<I", len(h))
    return b"\x93NUMPY" + bytes(version) + ln + h.encode("latin1") + data.tobytes(order="F" if fortran else "C")


@pytest.fixture
def torch_case(tmp_path):
    torch = pytest.importorskip("torch", reason="python3-torch is not importable")
    torch.manual_seed(7)
    x = torch.zeros(2, 3, 9, 11, requires_grad=True)
    y = torch.nn.functional.avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False)
    go = torch.randn(y.shape)
    y.backward(go)
    np.save(tmp_path / "go.npy", go.numpy())
    np.save(tmp_path / "torch.npy", x.grad.numpy())
    return tmp_path, ["--input-shape", "2,3,9,11", "-k", "3", "-s", "2", "-p", "1", "--ceil-mode", "--exclude-pad"]


def test_golden_reproduces_torch_bit_for_bit_and_compare_verdicts(torch_case):
    d, args = torch_case
    run_cli("golden", d / "go.npy", *args, "-o", d / "gi.npy", check=0)
    gi = np.load(d / "gi.npy")
    want = np.load(d / "torch.npy")
    assert gi.dtype == np.float32 and np.array_equal(gi.view(np.uint32), want.view(np.uint32))
    r = run_cli("compare", d / "gi.npy", d / "torch.npy", check=0)
    assert r.stdout.rstrip().endswith("PASS")
    bad = want.copy()
    bad[1, 2, 4, 7] = np.nextafter(bad[1, 2, 4, 7], np.float32(np.inf))
    np.save(d / "bad.npy", bad)
    r = run_cli("compare", d / "bad.npy", d / "torch.npy", check=1)
    assert "index [1, 2, 4, 7]" in r.stdout and "ulp 1 " in r.stdout and r.stdout.rstrip().endswith("FAIL")
    assert "1 of 594" in r.stdout
    run_cli("compare", d / "bad.npy", d / "torch.npy", "--max-ulp", "1", check=0)


def test_bound_passes_reverse_reciprocal_and_fails_dropped_term(torch_case):
    d, args = torch_case
    go = np.load(d / "go.npy").astype(np.float64)
    pool = dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False)
    rev = simulate(go, (2, 3, 9, 11), **pool, order="reverse", division="recip").astype(np.float32)
    want = np.load(d / "torch.npy")
    assert not np.array_equal(rev, want)  # a genuinely different result
    np.save(d / "rev.npy", rev)
    dropped = simulate(go, (2, 3, 9, 11), **pool, drop=(2, 3)).astype(np.float32)
    np.save(d / "dropped.npy", dropped)
    bound = ["--bound", "f32-any-order", "--grad-output", d / "go.npy", *args]
    r = run_cli("compare", d / "rev.npy", d / "torch.npy", *bound, check=0)
    assert "per-element error bound f32-any-order" in r.stdout
    run_cli("compare", d / "rev.npy", d / "torch.npy", check=1)  # not bit-identical
    r = run_cli("compare", d / "dropped.npy", d / "torch.npy", *bound, check=1)
    assert "FAIL index [" in r.stdout and "bound" in r.stdout


@pytest.mark.parametrize("variant", ["v1", "v2", "fortran", "f16", "bf16_u2", "bf16_i2", "3d", "unbatched"])
def test_golden_file_variants_agree_with_the_module(tmp_path, rng, variant):
    import poolgrad
    sd = 3 if variant == "3d" else 2
    shape = (2, 3, 6, 7, 5) if sd == 3 else ((3, 9, 11) if variant == "unbatched" else (2, 3, 9, 11))
    oshape = poolgrad.output_shape(shape, 3, 2, 1, spatial_dims=sd)
    go = rng.standard_normal(oshape).astype(np.float32)
    dtype = None
    if variant == "f16":
        go = go.astype(np.float16)
    elif variant.startswith("bf16"):
        go = bf16_bits(round_bf16(go.astype(np.float64)))
        if variant == "bf16_i2":
            go = go.view(np.int16)
        dtype = "bfloat16"
    raw = npy_bytes(go, version=(2, 0) if variant == "v2" else (1, 0), fortran=variant == "fortran")
    (tmp_path / "go.npy").write_bytes(raw)
    extra = ["--dtype", "bf16"] if dtype else []
    run_cli("golden", tmp_path / "go.npy", "--input-shape", ",".join(map(str, shape)), "-k", "3", "-s", "2",
            "-p", "1", *extra, *(["--3d"] if sd == 3 else []), "-o", tmp_path / "gi.npy", check=0)
    gi = np.load(tmp_path / "gi.npy")
    fn = poolgrad.avg_pool2d_backward if sd == 2 else poolgrad.avg_pool3d_backward
    want = fn(go.view(np.uint16) if dtype else go, shape, 3, 2, 1, dtype=dtype)
    assert gi.shape == shape and gi.tobytes() == want.tobytes()
    if dtype:
        assert gi.dtype == np.uint16
        run_cli("compare", tmp_path / "gi.npy", tmp_path / "gi.npy", check=2)  # u2 without --dtype bf16
        run_cli("compare", tmp_path / "gi.npy", tmp_path / "gi.npy", "--dtype", "bf16", check=0)


def test_info_and_usage():
    r = run_cli("info", check=0)
    assert "poolgrad " in r.stdout and "ISAs built: scalar" in r.stdout and "active ISA: " in r.stdout
    run_cli(check=2)
    run_cli("frobnicate", check=2)
    run_cli("golden", check=2)
    run_cli("compare", "a.npy", check=2)


def test_bad_arguments_exit_2_with_a_message(tmp_path):
    np.save(tmp_path / "go.npy", np.ones((1, 1, 2, 2), np.float32))
    base = ["golden", tmp_path / "go.npy", "-o", tmp_path / "gi.npy"]
    for extra, msg in [
        (["--input-shape", "1,1,4,4", "-k", "3", "-p", "2"], "padding[0] = 2 exceeds kernel[0] / 2 = 1"),
        (["--input-shape", "1,1,6,4", "-k", "2"], "differs from the expected"),
        (["--input-shape", "1,1,4,4"], "-k (kernel size) is required"),
        (["--input-shape", "1,x,4,4", "-k", "2"], "expected comma-separated integers"),
        (["--input-shape", "1,1,4,4", "-k", "2,2,2,2"], "expected comma-separated integers"),
        (["--input-shape", "1,1,4,4", "-k", "2", "--divisor", "0"], "divisor override must be non-zero"),
        (["--input-shape", "1,1,4,4", "-k", "2", "--bogus"], "unknown option --bogus"),
    ]:
        r = run_cli(*base, *extra, check=2)
        assert msg in r.stderr, (extra, r.stderr)
    r = run_cli("golden", tmp_path / "missing.npy", "--input-shape", "1,1,4,4", "-k", "2", "-o", tmp_path / "x.npy",
                check=2)
    assert "No such file" in r.stderr
    np.save(tmp_path / "a.npy", np.ones((2, 2), np.float32))
    np.save(tmp_path / "b.npy", np.ones((2, 3), np.float32))
    np.save(tmp_path / "c.npy", np.ones((2, 2), np.float16))
    assert "shape" in run_cli("compare", tmp_path / "a.npy", tmp_path / "b.npy", check=2).stderr
    assert "'<f4'" in run_cli("compare", tmp_path / "a.npy", tmp_path / "c.npy", check=2).stderr
    assert "unknown" in run_cli("compare", tmp_path / "a.npy", tmp_path / "a.npy", "--bound", "nope", check=2).stderr
    assert "--grad-output" in run_cli("compare", tmp_path / "a.npy", tmp_path / "a.npy", "--bound", "f32-any-order",
                                      check=2).stderr


HOSTILE = {
    "empty": b"",
    "short": b"\x93NUMPY\x01",
    "magic": b"\x93NUMPZ\x01\x00\x10\x00" + b"{}".ljust(16),
    "version": None,  # filled below
    "big_endian": None,
    "float64": None,
    "u2_without_dtype": None,
    "truncated_data": None,
    "excess_data": None,
    "header_len_past_eof": b"\x93NUMPY\x01\x00\xff\xff{'descr': '<f4'",
    "v2_header_len_huge": b"\x93NUMPY\x02\x00\xff\xff\xff\x7f{'descr'",
    "structured": None,
    "not_dict": None,
    "shape_overflow": None,
    "shape_negative": None,
    "rank_6": None,
    "nul_in_header": None,
    "missing_key": None,
    "unknown_key": None,
    "unterminated_string": None,
}


def hostile_files():
    a = np.ones((1, 1, 2, 2), np.float32)
    good = npy_bytes(a)
    f = dict(HOSTILE)
    f["version"] = good[:6] + b"\x04\x00" + good[8:]
    f["big_endian"] = npy_bytes(a.astype(">f4"), descr=">f4")
    f["float64"] = npy_bytes(a.astype(np.float64))
    f["u2_without_dtype"] = npy_bytes(a.astype(np.uint16))
    f["truncated_data"] = good[:-3]
    f["excess_data"] = good + b"\0\0\0\0"
    f["structured"] = npy_bytes(a, header="{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1, 1, 2, 2), }")
    f["not_dict"] = npy_bytes(a, header="['descr', '<f4']")
    f["shape_overflow"] = npy_bytes(a, header="{'descr': '<f4', 'fortran_order': False, "
                                              "'shape': (99999999999, 99999999999, 2, 2), }")
    f["shape_negative"] = npy_bytes(a, header="{'descr': '<f4', 'fortran_order': False, 'shape': (1, -1, 2, 2), }")
    f["rank_6"] = npy_bytes(a, header="{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1, 1, 1, 2, 2), }")
    f["nul_in_header"] = npy_bytes(a, header="{'descr': '<f4\0', 'fortran_order': False, 'shape': (1, 1, 2, 2), }")
    f["missing_key"] = npy_bytes(a, header="{'descr': '<f4', 'shape': (1, 1, 2, 2), }")
    f["unknown_key"] = npy_bytes(a, header="{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1, 2, 2), 'x': 1}")
    f["unterminated_string"] = npy_bytes(a, header="{'descr': '<f4, 'fortran_order': False, 'shape': (1, 1, 2, 2)}")
    return f


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_files_exit_2_with_a_message(tmp_path, name):
    p = tmp_path / f"{name}.npy"
    p.write_bytes(hostile_files()[name])
    r = run_cli("golden", p, "--input-shape", "1,1,4,4", "-k", "2", "-o", tmp_path / "out.npy", check=2)
    assert r.stderr.startswith("poolgrad: ") and str(p) in r.stderr, r.stderr
    np.save(tmp_path / "ok.npy", np.ones((1, 1, 2, 2), np.float32))
    run_cli("compare", p, tmp_path / "ok.npy", check=2)
    run_cli("compare", tmp_path / "ok.npy", p, check=2)


def test_fuzzed_headers_never_crash(tmp_path, rng):
    """Random byte flips, insertions and truncations of valid files: exit 0 (still valid) or 2, never a signal."""
    seeds = [npy_bytes(np.ones((1, 1, 2, 2), np.float32)),
             npy_bytes(np.ones((2, 3, 2, 2), np.float16), version=(2, 0), fortran=True)]
    p = tmp_path / "f.npy"
    counts = {0: 0, 2: 0}
    for i in range(400):
        b = bytearray(seeds[i % 2])
        hdr_end = b.index(b"\n") + 1
        op = i % 4
        if op == 0:
            for _ in range(int(rng.integers(1, 4))):
                b[int(rng.integers(0, hdr_end))] = int(rng.integers(0, 256))
        elif op == 1:
            pos = int(rng.integers(0, hdr_end))
            b[pos:pos] = bytes(rng.integers(0, 256, int(rng.integers(1, 6))).astype(np.uint8))
        elif op == 2:
            b = b[: int(rng.integers(0, len(b)))]
        else:
            k = int(rng.integers(10, hdr_end))
            b[k] = ord(rng.choice(list("(),:'\"{} 0123456789-TrueFalse<>f4u2")))
        p.write_bytes(bytes(b))
        r = run_cli("compare", p, p)
        assert r.returncode in (0, 2), (bytes(b), r.returncode, r.stdout, r.stderr)
        assert r.returncode == 0 or r.stderr.startswith("poolgrad: ")
        counts[r.returncode] += 1
    assert counts[2] > 200
