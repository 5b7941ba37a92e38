"""poolgrad: the bit-exact, deterministic backward pass of average pooling (2D/3D) on the CPU.

The functions mirror ``torch.nn.functional.avg_pool2d/avg_pool3d``'s argument conventions and take numpy
arrays (float32, float16, or bfloat16 bits as uint16 with ``dtype="bfloat16"``) or torch tensors
(float32, float16, bfloat16) of any strides, as zero-copy views; they return the kind they were given.
The numerics are docs/SEMANTICS.md: f32 accumulation in a fixed order, true division, one rounding.
"""
import numpy as _np

from . import _core

__version__ = _core.library_version
__all__ = ["avg_pool2d_backward", "avg_pool3d_backward", "compare", "error_bound", "ErrorBound", "Report",
           "active_isa", "isas_built", "last_kernel", "output_shape", "BOUND_MODELS", "__version__"]

BOUND_MODELS = ("f32-any-order", "f32-any-order-div", "dtype-any-order", "dtype-any-order-div")

_last_kernel = None


def active_isa():
    """The instruction set plans use now ("scalar", "sse2", "avx2", "avx512", "neon"); honours POOLGRAD_ISA."""
    return _core.active_isa()


def isas_built():
    """The instruction sets whose kernels are in the library."""
    return _core.isas_built()


def last_kernel():
    """Name of the kernel the last avg_pool*_backward call in this process ran (e.g. avgpool2d_bwd_f32__avx512_nchw)."""
    return _last_kernel


# ---- torch interop (torch is optional and imported only when a tensor is passed) ----

def _is_torch(x):
    return type(x).__module__.split(".")[0] == "torch" and hasattr(x, "dtype") and hasattr(x, "stride")


def _torch_as_numpy(t, name):
    """(numpy view sharing t's memory, bf16 flag). bfloat16 travels as int16 bits."""
    import torch
    if t.device.type != "cpu":
        raise ValueError(f"{name}: tensor is on {t.device}; poolgrad runs on the CPU (move it with .cpu())")
    t = t.detach()
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy(), True
    if t.dtype in (torch.float32, torch.float16):
        return t.numpy(), False
    raise ValueError(f"{name}: dtype {t.dtype} is not float32, float16 or bfloat16")


def _as_array(x, dtype, name):
    """(numpy array, bf16 flag, kind) for a numpy array or torch tensor; numpy arrays are not copied."""
    if _is_torch(x):
        if dtype is not None:
            raise ValueError(f"{name}: dtype= is for numpy arrays; a torch tensor carries its dtype")
        a, bf16 = _torch_as_numpy(x, name)
        return a, bf16, "torch"
    if not isinstance(x, _np.ndarray):
        raise TypeError(f"{name} must be a numpy array or a torch tensor, got {type(x).__name__}")
    if dtype is None:
        bf16 = False
    elif str(dtype) in ("bfloat16", "bf16"):
        bf16 = True
    elif _np.dtype(dtype) == x.dtype:
        bf16 = False
    else:
        raise ValueError(f"{name}: dtype={dtype!r} but the array holds {x.dtype}")
    return x, bf16, "numpy"


def _tuple(v, n, name, allow_empty=False):
    if v is None:
        return None
    if isinstance(v, (int, _np.integer)):
        return (int(v),) * n
    v = tuple(int(e) for e in v)
    if allow_empty and len(v) == 0:
        return None
    if len(v) == 1:
        return v * n
    if len(v) != n:
        raise ValueError(f"{name} has {len(v)} values; {n}D pooling takes 1 or {n}")
    return v


def _params(sd, kernel_size, stride, padding, divisor_override):
    k = _tuple(kernel_size, sd, "kernel_size")
    s = _tuple(stride, sd, "stride", allow_empty=True) or k
    p = _tuple(padding, sd, "padding")
    if divisor_override is None:
        d = 0
    else:
        d = int(divisor_override)
        if d == 0:
            raise ValueError("divisor_override = 0: the divisor must be non-zero (None means no override)")
    return k, s, p, d


def _shape_of(input_shape):
    if hasattr(input_shape, "shape") and not isinstance(input_shape, tuple):
        input_shape = input_shape.shape
    return tuple(int(e) for e in input_shape)


def output_shape(input_shape, kernel_size, stride=None, padding=0, ceil_mode=False, spatial_dims=None):
    """The forward output (= gradOutput) shape for an input shape, as avg_pool2d/3d would produce it."""
    shape = _shape_of(input_shape)
    sd = spatial_dims or _infer_sd(shape, kernel_size, stride, padding)
    k, s, p, _ = _params(sd, kernel_size, stride, padding, None)
    return _core.output_shape(sd, shape, k, s, p, bool(ceil_mode))


def _infer_sd(shape, kernel_size, stride, padding):
    if len(shape) == 5:
        return 3
    if len(shape) == 4:
        for v in (kernel_size, stride, padding):
            if v is not None and not isinstance(v, (int, _np.integer)) and len(tuple(v)) == 3:
                return 3
    return 2


def _backward(sd, grad_output, input_shape, kernel_size, stride, padding, ceil_mode, count_include_pad,
              divisor_override, out, threads, dtype):
    global _last_kernel
    go, bf16, kind = _as_array(grad_output, dtype, "grad_output")
    shape = _shape_of(input_shape)
    if len(shape) not in (sd + 1, sd + 2):
        raise ValueError(f"input_shape has {len(shape)} dims; {sd}D pooling needs {sd + 1} (unbatched) "
                         f"or {sd + 2} (batched)")
    k, s, p, d = _params(sd, kernel_size, stride, padding, divisor_override)
    if threads is None or int(threads) < 0:
        raise ValueError(f"threads = {threads}: expected 0 (OpenMP default) or a positive count")
    if any(st % go.itemsize for st in go.strides):
        go = go.copy()  # strides that are not whole elements (a view of a structured array): one copy
    if out is None:
        if kind == "torch":
            import torch
            result = torch.empty(shape, dtype=grad_output.dtype)
            gi = _torch_as_numpy(result, "out")[0]
        else:
            result = gi = _np.empty(shape, dtype=go.dtype)
    else:
        if kind == "torch":
            if not _is_torch(out):
                raise TypeError("out must be a torch tensor when grad_output is one")
            gi, obf16 = _torch_as_numpy(out, "out")
        else:
            if not isinstance(out, _np.ndarray):
                raise TypeError("out must be a numpy array when grad_output is one")
            gi, obf16 = out, bf16
        if obf16 != bf16 or gi.dtype.itemsize != go.dtype.itemsize or (not bf16 and gi.dtype != go.dtype):
            raise ValueError(f"out dtype {out.dtype} differs from grad_output dtype {grad_output.dtype}")
        if tuple(gi.shape) != shape:
            raise ValueError(f"out shape {tuple(gi.shape)} differs from input_shape {shape}")
        result = out
    _last_kernel = _core.backward(go, gi, sd, k, s, p, bool(ceil_mode), bool(count_include_pad), d, int(threads), bf16)
    return result


def avg_pool2d_backward(grad_output, input_shape, kernel_size, stride=None, padding=0, ceil_mode=False,
                        count_include_pad=True, divisor_override=None, *, out=None, threads=0, dtype=None):
    """gradInput of torch.nn.functional.avg_pool2d, bit-exact (docs/SEMANTICS.md).

    grad_output: (N, C, Hout, Wout) or (C, Hout, Wout), numpy float32/float16 (uint16 bits with
    dtype="bfloat16") or a torch float32/float16/bfloat16 CPU tensor, any strides (not copied).
    input_shape: the forward input's shape (or the input itself). kernel_size/stride/padding: int or
    pair; stride None (or empty) = kernel_size. out: optional destination of the same kind and dtype
    (any strides, written in place). threads: 0 = OpenMP default. The GIL is released while computing.
    Bad arguments raise ValueError with the library's message naming the argument.
    """
    return _backward(2, grad_output, input_shape, kernel_size, stride, padding, ceil_mode, count_include_pad,
                     divisor_override, out, threads, dtype)


def avg_pool3d_backward(grad_output, input_shape, kernel_size, stride=None, padding=0, ceil_mode=False,
                        count_include_pad=True, divisor_override=None, *, out=None, threads=0, dtype=None):
    """gradInput of torch.nn.functional.avg_pool3d; as avg_pool2d_backward with (N,) C, D, H, W."""
    return _backward(3, grad_output, input_shape, kernel_size, stride, padding, ceil_mode, count_include_pad,
                     divisor_override, out, threads, dtype)


# ---- comparisons ----

class ErrorBound:
    """Per-element exact value (float64) and the largest error a correct implementation could make
    (docs/ERROR_BOUNDS.md). Arrays in input_shape, C order."""

    def __init__(self, model, reference, bound):
        self.model, self.reference, self.bound = model, reference, bound

    def __repr__(self):
        return f"ErrorBound({self.model!r}, shape={self.reference.shape})"


def error_bound(model, grad_output, input_shape, kernel_size, stride=None, padding=0, ceil_mode=False,
                count_include_pad=True, divisor_override=None, *, spatial_dims=None, dtype=None):
    """The per-element error bound of `model` (one of BOUND_MODELS) for this pooling problem.
    The output dtype is grad_output's."""
    if model not in BOUND_MODELS:
        raise ValueError(f"bound model {model!r} is unknown (expected one of {', '.join(BOUND_MODELS)})")
    go, bf16, _ = _as_array(grad_output, dtype, "grad_output")
    shape = _shape_of(input_shape)
    sd = spatial_dims or _infer_sd(shape, kernel_size, stride, padding)
    k, s, p, d = _params(sd, kernel_size, stride, padding, divisor_override)
    ref, bnd = _core.error_bound(go, shape, sd, k, s, p, bool(ceil_mode), bool(count_include_pad), d, model, bf16)
    return ErrorBound(model, ref, bnd)


class Element:
    """One reported element: index (flat), multi_index, actual/expected values and bits, ulp, errors."""

    def __init__(self, d):
        self.__dict__.update(d)

    def __repr__(self):
        return (f"Element(multi_index={self.multi_index}, actual={self.actual!r} (0x{self.actual_bits:x}), "
                f"expected={self.expected!r} (0x{self.expected_bits:x}), ulp={self.ulp}, passed={self.passed})")


class Report:
    """The result of compare(): counts, worst elements and a verdict; str() is the text the C library
    and the `poolgrad compare` command print."""

    def __init__(self, d):
        self.count = d["count"]
        self.differing = d["differing"]
        self.mismatches = d["failed"]
        self.fraction = self.mismatches / self.count if self.count else 0.0
        self.nan_mismatches = d["nan_mismatches"]
        self.inf_mismatches = d["inf_mismatches"]
        self.max_ulp = d["max_ulp"]
        self.max_ulp_index = d["max_ulp_index"]
        self.max_abs_error = d["max_abs_error"]
        self.max_rel_error = d["max_rel_error"]
        self.max_bound_ratio = d["max_bound_ratio"]
        self.worst = [Element(e) for e in d["worst"]]
        self.passed = d["passed"]
        self.text = d["text"]

    def __bool__(self):
        return self.passed

    def __str__(self):
        return self.text

    def __repr__(self):
        return f"<poolgrad.Report {'PASS' if self.passed else 'FAIL'}: {self.mismatches} of {self.count} mismatches>"


def compare(actual, expected, *, max_ulp=None, atol=None, rtol=None, bound=None, dtype=None, grad_output=None,
            **pool):
    """Compare two results of the same dtype and shape element by element; returns a Report.

    An element passes when its bits are equal (any NaN equals any NaN), or, both finite, when any given
    criterion holds: ULP distance (on the dtype's ordered integer line) <= max_ulp; |a - e| <= atol +
    rtol * |e|; or, with bound, |a - exact| <= the element's error bound. bound is an ErrorBound, or a
    model name (BOUND_MODELS) together with grad_output= and the pooling arguments (input_shape=,
    kernel_size=, stride=, padding=, ceil_mode=, count_include_pad=, divisor_override=, spatial_dims=).
    """
    a, abf, _ = _as_array(actual, dtype, "actual")
    e, ebf, _ = _as_array(expected, dtype, "expected")
    if abf != ebf or a.dtype.itemsize != e.dtype.itemsize or (not abf and a.dtype != e.dtype):
        raise ValueError(f"actual dtype {actual.dtype} differs from expected dtype {expected.dtype}")
    if any(st % a.itemsize for st in a.strides):
        a = a.copy()
    if any(st % e.itemsize for st in e.strides):
        e = e.copy()
    ref = bnd = None
    model = 0
    if bound is not None:
        if isinstance(bound, str):
            if grad_output is None or "input_shape" not in pool or "kernel_size" not in pool:
                raise ValueError("bound=<model> needs grad_output=, input_shape= and kernel_size= "
                                 "(or pass an ErrorBound from poolgrad.error_bound)")
            bound = error_bound(bound, grad_output, dtype=dtype, **pool)
        if not isinstance(bound, ErrorBound):
            raise TypeError("bound must be a model name or an ErrorBound")
        if tuple(bound.reference.shape) != tuple(a.shape):
            raise ValueError(f"bound shape {bound.reference.shape} differs from actual shape {a.shape}")
        ref, bnd = bound.reference, bound.bound
        model = BOUND_MODELS.index(bound.model) + 1
    elif pool or grad_output is not None:
        raise ValueError("grad_output= and pooling arguments are only used with bound=")
    mu = -1 if max_ulp is None else int(max_ulp)
    if max_ulp is not None and mu < 0:
        raise ValueError(f"max_ulp = {max_ulp} is negative")
    at = 0.0 if atol is None else float(atol)
    rt = 0.0 if rtol is None else float(rtol)
    if at < 0 or rt < 0:
        raise ValueError("atol and rtol must be non-negative")
    return Report(_core.compare(a, e, abf, mu, at, rt, ref, bnd, model))


from . import testing  # noqa: E402  (poolgrad.testing.assert_close)
