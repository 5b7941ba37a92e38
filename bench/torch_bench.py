#!/usr/bin/env python3
"""torch_bench.py — the PyTorch column of poolgrad_bench: PyTorch's CPU avg_pool2d/3d backward on the
same problems and the same gradOutput, checked bit for bit against poolgrad's scalar reference.

Optional: without an importable torch it prints "skipped: torch not importable" and exits 0. Debian's
python3-torch installs into /usr/bin/python3; when the python3 running this script cannot import torch and
/usr/bin/python3 is another interpreter, the script re-runs itself once with it.

USAGE
  python3 bench/torch_bench.py --bench build/bench/poolgrad_bench [SUITE OPTIONS] --json TORCH.json
      runs `poolgrad_bench --dump DIR SUITE OPTIONS` first (DIR: a temporary directory, or --inputs DIR),
      SUITE OPTIONS being poolgrad_bench's own (--quick, --problem ..., --filter, --dtype, --layout, ...:
      everything after --)
  python3 bench/torch_bench.py --inputs DIR --json TORCH.json
      uses a DIR written earlier by `poolgrad_bench --dump DIR ...`
  then: poolgrad_bench [the same SUITE OPTIONS] --torch TORCH.json   adds the torch and x_torch columns

  --threads LIST   torch.set_num_threads for each entry of LIST (default 1); rows are per thread count
  --budget S       seconds of timed repetitions per row (default 1.0; 0.05 with --quick in the options)
  --reps N         fixed timed repetitions instead (at least 1)

WHAT IT MEASURES
  For every problem of DIR/manifest.json: gradOutput is read from the dumped file (the exact bytes
  poolgrad_bench generated, in memory order: NCHW/NCDHW contiguous, or NHWC/NDHWC, which becomes a
  channels_last / channels_last_3d tensor), `self` is an empty tensor of gradInput's shape and memory
  format, and torch.ops.aten.avg_pool{2,3}d_backward(grad_output, self, kernel, stride, padding, ceil_mode,
  count_include_pad, divisor_override) is timed: one warm-up, then repetitions (adaptive: about --budget
  seconds, 5..101) timed with time.perf_counter; time_s is the median. It runs in its own process, so it
  does not alternate with poolgrad as oneDNN does: take the ratio on a quiet machine.

  check: the gradInput PyTorch returned (rearranged to memory order) is compared bit for bit (integer
  views, whole buffer) with the dumped reference gradInput — the output every poolgrad row is verified
  against with memcmp — so "bit-identical" means identical to poolgrad on these inputs. f16/bf16 are timed
  and compared the same way where PyTorch has a CPU kernel for them; otherwise the row says why.

OUTPUT (TORCH.json)
  {"program": "torch_bench.py", "torch_version", "threads", "rows": [{"case", "op", "dtype", "layout",
   "threads", "gi_numel", "go_numel", "time_s", "time_min_s", "reps", "check"}]}; poolgrad_bench --torch
  matches rows on case, dtype, layout, threads and the element counts.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def reexec_or_skip():
    alt = "/usr/bin/python3"
    if (os.environ.get("TORCH_BENCH_REEXEC") != "1" and os.path.exists(alt)
            and os.path.realpath(alt) != os.path.realpath(sys.executable)):
        os.environ["TORCH_BENCH_REEXEC"] = "1"
        try:
            os.execv(alt, [alt] + sys.argv)
        except OSError:
            pass
    print("torch_bench.py: skipped: torch not importable (%s)" % sys.executable)
    sys.exit(0)


try:
    import numpy as np
    import torch
except ImportError:
    reexec_or_skip()

NP_INT = {"f32": np.int32, "f16": np.int16, "bf16": np.int16}
TORCH_DT = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}
TORCH_INT = {"f32": torch.int32, "f16": torch.int16, "bf16": torch.int16}


def load(path, dtype, shape, layout):
    """A tensor of logical shape N, C, (D,) H, W from raw bytes in the layout's memory order."""
    raw = torch.from_numpy(np.fromfile(path, dtype=NP_INT[dtype]))
    t = raw.view(TORCH_DT[dtype])
    if layout in ("nhwc", "ndhwc"):
        n, c, *sp = shape
        t = t.reshape([n] + sp + [c])
        return t.permute([0, len(shape) - 1] + list(range(1, len(shape) - 1)))
    return t.reshape(shape)


def memory_order(t, layout):
    """The elements of t in the layout's memory order, as a flat contiguous tensor."""
    if layout in ("nhwc", "ndhwc"):
        t = t.permute([0] + list(range(2, t.dim())) + [1])
    return t.contiguous().reshape(-1)


def run_problem(p, inputs, threads, budget, fixed_reps):
    dt, lay = p["dtype"], p["layout"]
    row = {k: p[k] for k in ("case", "op", "dtype", "layout", "gi_numel", "go_numel")}
    row.update(threads=threads, time_s=None, time_min_s=None, reps=0)
    go = load(os.path.join(inputs, p["go_file"]), dt, p["go_shape"], lay)
    fmt = torch.contiguous_format
    if lay == "nhwc":
        fmt = torch.channels_last
    elif lay == "ndhwc":
        fmt = torch.channels_last_3d
    inp = torch.empty(p["gi_shape"], dtype=TORCH_DT[dt]).contiguous(memory_format=fmt)
    go = go.contiguous(memory_format=fmt)  # already in that format: no copy
    div = p["divisor_override"] or None
    if p["spatial_dims"] == 2:
        fn = torch.ops.aten.avg_pool2d_backward
    else:
        fn = torch.ops.aten.avg_pool3d_backward
    args = (go, inp, p["kernel"], p["stride"], p["padding"], p["ceil_mode"], p["count_include_pad"], div)
    try:
        gi = fn(*args)  # warm-up, and the result that is checked
    except RuntimeError as e:
        row["check"] = "n/a: " + str(e).split("\n")[0][:60]
        return row
    ref = torch.from_numpy(np.fromfile(os.path.join(inputs, p["gi_ref_file"]), dtype=NP_INT[dt]))
    got = memory_order(gi, lay).view(TORCH_INT[dt])
    if got.numel() != ref.numel():
        row["check"] = "shape differs"
    else:
        diff = int((got != ref).sum())
        row["check"] = "bit-identical" if diff == 0 else "differs (%d of %d)" % (diff, ref.numel())
    times = []
    spent = 0.0
    while True:
        t0 = time.perf_counter()
        fn(*args)
        t = time.perf_counter() - t0
        times.append(t)
        spent += t
        n = len(times)
        if fixed_reps:
            if n >= fixed_reps:
                break
        elif n >= 101 or (n >= 5 and spent >= budget) or (n >= 3 and t > 0.25 and spent >= budget):
            break
    row.update(time_s=statistics.median(times), time_min_s=min(times), reps=len(times))
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 epilog="Everything after -- goes to poolgrad_bench --dump (with --bench).")
    ap.add_argument("--inputs", help="directory written by poolgrad_bench --dump (kept)")
    ap.add_argument("--bench", help="poolgrad_bench to run with --dump first")
    ap.add_argument("--json", required=True, help="TORCH.json to write")
    ap.add_argument("--threads", default="1")
    ap.add_argument("--budget", type=float)
    ap.add_argument("--reps", type=int, default=0)
    args, rest = ap.parse_known_args()
    if rest and rest[0] == "--":
        rest = rest[1:]
    if not args.inputs and not args.bench:
        ap.error("give --inputs DIR (from poolgrad_bench --dump DIR) or --bench PATH")
    budget = args.budget if args.budget is not None else (0.05 if "--quick" in rest else 1.0)
    tmp = None
    inputs = args.inputs
    if args.bench:
        if not inputs:
            tmp = inputs = tempfile.mkdtemp(prefix="torch_bench.")
        cmd = [args.bench, "--dump", inputs, "--no-onednn"] + rest
        print("torch_bench.py: " + " ".join(cmd), file=sys.stderr)
        r = subprocess.run(cmd, stdout=subprocess.DEVNULL)
        if r.returncode != 0:
            sys.exit("torch_bench.py: poolgrad_bench --dump failed (status %d)" % r.returncode)
    try:
        with open(os.path.join(inputs, "manifest.json")) as f:
            manifest = json.load(f)
        thread_list = [int(x) for x in args.threads.replace(" ", ",").split(",") if x]
        rows = []
        print("%-22s %-9s %-4s %-5s %3s %10s %5s  %s" % ("case", "op", "type", "lay", "thr", "torch", "reps",
                                                          "check vs poolgrad reference"))
        for th in thread_list:
            torch.set_num_threads(th)
            for p in manifest["problems"]:
                row = run_problem(p, inputs, th, budget, args.reps)
                rows.append(row)
                t = row["time_s"]
                ts = "-" if t is None else ("%.1fus" % (t * 1e6) if t < 1e-3 else "%.3fms" % (t * 1e3))
                print("%-22s %-9s %-4s %-5s %3d %10s %5d  %s" % (row["case"], row["op"], row["dtype"], row["layout"],
                                                                 th, ts, row["reps"], row["check"]), flush=True)
        out = {"program": "torch_bench.py", "torch_version": torch.__version__, "python": sys.version.split()[0],
               "threads": thread_list, "inputs": os.path.abspath(inputs), "manifest_command": manifest.get("command"),
               "rows": rows}
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)
        same = sum(r["check"] == "bit-identical" for r in rows)
        f32 = [r for r in rows if r["dtype"] == "f32"]
        f32_same = sum(r["check"] == "bit-identical" for r in f32)
        print("torch %s: %d rows, %d bit-identical to the poolgrad reference (f32: %d of %d); wrote %s"
              % (torch.__version__, len(rows), same, f32_same, len(f32), args.json))
        return 0 if f32_same == len(f32) else 1
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
