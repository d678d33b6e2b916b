"""Convolutions and pools over 1, 2 or 3 spatial dims beyond ``conv2d`` and the 2-d pools of
``nn.py``: ``conv1d``, ``conv3d``, the transposed convolutions, the 1-d and 3-d pools, the adaptive
pools; and their ``nn`` modules. Output sizes follow torch's formulas (``conv_out`` in ``nn.py``;
a transposed convolution's is ``(in - 1) s - 2p + d (k - 1) + output_padding + 1``)."""

from __future__ import annotations

from typing import Any

from ..dims import (
    UNKNOWN,
    DimExpr,
    Unknown,
    as_int,
    d_add,
    d_exact_div,
    d_mul,
    d_sub,
    differs,
    fmt_dim,
    is_literal,
)
from ..issue import Issue
from ..registry import Args, Result, module, op
from ..shape import Shape, ShapeLike, fmt_shape
from ._common import dims_of, ints_of, need_rank
from .nn import conv_out


def _ranks(nd: int) -> tuple[int, int]:
    """A batched ``[N, C, *spatial]`` or an unbatched ``[C, *spatial]`` input."""
    return (nd + 1, nd + 2)


def _geometry(args: Args, nd: int, names: tuple[str, ...]) -> tuple[tuple[int | None, ...], ...] | None:
    out = []
    for n in names:
        v = ints_of(args[n], nd)
        if v is None:
            return None
        out.append(v)
    return tuple(out)


def _spatial_out(name: str, x: Shape, nd: int, kernel: tuple[DimExpr, ...], stride: tuple[int | None, ...],
                 padding: tuple[int | None, ...], dilation: tuple[int | None, ...], ceil_mode: bool = False) -> Result:
    out: list[DimExpr] = []
    for i, (size, k, s, p, d) in enumerate(zip(x.dims[-nd:], kernel, stride, padding, dilation, strict=True)):
        if s is None or p is None or d is None:
            out.append(UNKNOWN)
            continue
        if s <= 0 or d <= 0 or p < 0:
            return Issue("shape-arg", f"{name}: stride and dilation must be positive and padding non-negative")
        o = conv_out(size, k, s, p, d, ceil_mode)
        if is_literal(o) and int(o) < 1:
            return Issue(
                "shape-arg",
                f"{name}: output size {fmt_dim(o)} < 1 along spatial dim {i}: input {fmt_dim(size)}, kernel "
                f"{fmt_dim(k)}, stride {s}, padding {p}, dilation {d}; shape {fmt_shape(x)}",
            )
        out.append(o)
    return Shape(tuple(out))


def _conv_checks(name: str, args: Args, nd: int, transposed: bool) -> tuple[Shape, Shape, DimExpr] | Result:
    """The rank, channel and bias checks of a (transposed) convolution: (input, weight, out channels)."""
    x, w, b = args["input"], args["weight"], args["bias"]
    if isinstance(x, Unknown) or isinstance(w, Unknown):
        return UNKNOWN
    r = need_rank(name, x, _ranks(nd)) or need_rank(name, w, (nd + 2,), "weight")
    if r:
        return r
    if not x.is_fixed or not w.is_fixed:
        return UNKNOWN
    groups = as_int(args["groups"])
    if groups is not None and groups <= 0:
        return Issue("shape-arg", f"{name}: groups must be positive, got {groups}")
    channels = x.dims[-nd - 1]
    shown = f"shapes {fmt_shape(x)}, weight {fmt_shape(w)}"
    if transposed:
        if differs(channels, w.dims[0]):
            return Issue("shape-arg", f"{name}: input has {fmt_dim(channels)} channels but weight dim 0 is "
                                      f"{fmt_dim(w.dims[0])} (a transposed convolution's weight is [in, out / groups, "
                                      f"*kernel]); {shown}")
        c = as_int(channels)
        if c is not None and groups is not None and c % groups:
            return Issue("shape-arg", f"{name}: {c} input channels are not divisible into {groups} groups; {shown}")
        out_c: DimExpr = d_mul(w.dims[1], groups) if groups is not None else UNKNOWN
    else:
        expected = d_mul(w.dims[1], groups) if groups is not None else UNKNOWN
        if differs(channels, expected):
            return Issue("shape-arg", f"{name}: input has {fmt_dim(channels)} channels but weight expects "
                                      f"{fmt_dim(expected)} (weight dim 1 {fmt_dim(w.dims[1])} x groups {groups}); {shown}")
        out_c = w.dims[0]
        o = as_int(out_c)
        if o is not None and groups is not None and o % groups:
            return Issue("shape-arg", f"{name}: {o} output channels are not divisible into {groups} groups; {shown}")
    if isinstance(b, Shape) and b.is_fixed and (len(b.dims) != 1 or differs(b.dims[0], out_c)):
        return Issue("shape-arg", f"{name}: bias shape {fmt_shape(b)} does not match {fmt_dim(out_c)} output channels")
    return x, w, out_c


def conv_nd(name: str, args: Args, nd: int) -> Result:
    """``conv1d`` / ``conv3d`` (``conv2d`` has its own rule in nn.py): ``[N, C, *s]`` with weight
    ``[O, C / groups, *k]`` -> ``[N, O, *s']``; ``padding`` may be ``'same'`` or ``'valid'``."""
    got = _conv_checks(name, args, nd, False)
    if not isinstance(got, tuple):
        return got
    x, w, out_c = got
    lead = (*x.dims[: -nd - 1], out_c)
    padding_arg = args["padding"]
    if any(d == 0 for d in x.dims[-nd:]) and (padding_arg == "same" or all(d != 0 for d in x.dims[:-nd])):
        return Issue("shape-arg", f"{name}: empty spatial dims are not supported (only an empty batch or channel dim); "
                                  f"shape {fmt_shape(x)}")
    geom = _geometry(args, nd, ("stride", "dilation"))
    if geom is None:
        return UNKNOWN
    stride, dilation = geom
    if padding_arg == "same":
        if any(s is not None and s != 1 for s in stride):
            return Issue("shape-arg", f"{name}: padding='same' needs stride 1, got stride {args['stride']}; "
                                      f"shape {fmt_shape(x)}")
        return Shape(lead + x.dims[-nd:])
    padding = ints_of(padding_arg, nd) if padding_arg != "valid" else (0,) * nd
    if padding is None:
        return UNKNOWN
    spatial = _spatial_out(name, x, nd, w.dims[2:], stride, padding, dilation)
    return Shape(lead + spatial.dims) if isinstance(spatial, Shape) else spatial


def transposed_out(size: DimExpr, k: DimExpr, s: int, p: int, op: int, d: int) -> DimExpr:
    """``(size - 1) s - 2p + d (k - 1) + output_padding + 1``."""
    return d_add(d_sub(d_mul(d_sub(size, 1), s), 2 * p), d_add(d_mul(d, d_sub(k, 1)), op + 1))


def conv_transpose_nd(name: str, args: Args, nd: int) -> Result:
    """``[N, C_in, *s]`` with weight ``[C_in, C_out / groups, *k]`` -> ``[N, C_out, *s']``."""
    got = _conv_checks(name, args, nd, True)
    if not isinstance(got, tuple):
        return got
    x, w, out_c = got
    geom = _geometry(args, nd, ("stride", "padding", "output_padding", "dilation"))
    if geom is None:
        return UNKNOWN
    if any(d == 0 for d in x.dims[-nd:]):
        return Issue("shape-arg", f"{name}: empty spatial dims are not supported; shape {fmt_shape(x)}")
    out: list[DimExpr] = []
    for i, (size, k, s, p, o, d) in enumerate(zip(x.dims[-nd:], w.dims[2:], *geom, strict=True)):
        if s is None or p is None or o is None or d is None:
            out.append(UNKNOWN)
            continue
        if s <= 0 or d <= 0 or p < 0 or o < 0:
            return Issue("shape-arg", f"{name}: stride and dilation must be positive, padding and output_padding "
                                      "non-negative")
        if o >= max(s, d):
            return Issue("shape-arg", f"{name}: output_padding {o} must be smaller than either stride {s} or "
                                      f"dilation {d} (spatial dim {i})")
        size_out = transposed_out(size, k, s, p, o, d)
        if is_literal(size_out) and int(size_out) < 1:
            return Issue("shape-arg", f"{name}: output size {fmt_dim(size_out)} < 1 along spatial dim {i}: input "
                                      f"{fmt_dim(size)}, kernel {fmt_dim(k)}, stride {s}, padding {p}; shape {fmt_shape(x)}")
        out.append(size_out)
    return Shape((*x.dims[: -nd - 1], out_c, *out))


_CONV = "input:tensor, weight:tensor, bias:optional_tensor=None, stride:ints=1, padding:any=0, dilation:ints=1, groups:int=1"
_CONV_T = ("input:tensor, weight:tensor, bias:optional_tensor=None, stride:ints=1, padding:ints=0, "
           "output_padding:ints=0, groups:int=1, dilation:ints=1")


@op("conv1d", _CONV, expose="tt F", python="tt F", tags=("nn", "conv"), autocast="lower")
def conv1d(args: Args) -> Result:
    """``[N, C, L]`` (or ``[C, L]``) with weight ``[O, C / groups, k]``: conv2d over a height of 1."""
    return conv_nd("conv1d", args, 1)


@op("conv3d", _CONV, expose="tt F", python="tt F", tags=("nn", "conv"), autocast="lower")
def conv3d(args: Args) -> Result:
    """``[N, C, D, H, W]`` (or unbatched) with weight ``[O, C / groups, kD, kH, kW]``: one conv2d over
    the depth taps stacked as channels (NOTE [ conv3d from conv2d ] in _runtime/conv.py)."""
    return conv_nd("conv3d", args, 3)


@op("conv_transpose1d", _CONV_T, expose="tt F", python="tt F", tags=("nn", "conv"), autocast="lower")
def conv_transpose1d(args: Args) -> Result:
    """``[N, C_in, L]`` with weight ``[C_in, C_out / groups, k]``: conv_transpose2d over a height of 1."""
    return conv_transpose_nd("conv_transpose1d", args, 1)


@op("conv_transpose2d", _CONV_T, expose="tt F", tags=("nn", "conv"), autocast="lower")
def conv_transpose2d(args: Args) -> Result:
    """conv2d's input-gradient as an op: the ``conv2d_backward_input`` primitive (NOTE [ Transposed
    convolution ] in backend/src/core/ops_conv_pool.cpp)."""
    return conv_transpose_nd("conv_transpose2d", args, 2)


# ---------------------------------------------------------------------------------------------
# Pools


def _nonempty(name: str, x: Shape, nd: int) -> Issue | None:
    dims = x.dims[1:] if len(x.dims) == nd + 2 else x.dims
    if any(d == 0 for d in dims):
        return Issue("shape-arg", f"{name}: the channel and spatial dims must be non-empty; shape {fmt_shape(x)}")
    return None


def pool_nd(name: str, args: Args, nd: int, with_dilation: bool) -> Result:
    x: ShapeLike = args["input"]
    if isinstance(x, Unknown):
        return UNKNOWN
    r = need_rank(name, x, _ranks(nd))
    if r:
        return r
    if not x.is_fixed:
        return UNKNOWN
    r = _nonempty(name, x, nd)
    if r:
        return r
    kernel = dims_of(args["kernel_size"], nd) if not isinstance(args["kernel_size"], (tuple, list)) or \
        len(args["kernel_size"]) != 1 else dims_of(args["kernel_size"][0], nd)
    stride_arg = args["stride"]
    stride = ints_of(args["kernel_size"] if stride_arg in (None, ()) else stride_arg, nd)
    padding = ints_of(args["padding"], nd)
    dilation = ints_of(args["dilation"], nd) if with_dilation else (1,) * nd
    if kernel is None or stride is None or padding is None or dilation is None:
        return UNKNOWN
    for k, p in zip(kernel, padding, strict=True):
        kk = as_int(k)
        if kk is not None and kk <= 0:
            return Issue("shape-arg", f"{name}: kernel_size must be positive, got {kk}")
        if kk is not None and p is not None and p > kk // 2:
            return Issue("shape-arg", f"{name}: padding {p} must be at most half the kernel size {kk}; shape {fmt_shape(x)}")
    spatial = _spatial_out(name, x, nd, kernel, stride, padding, dilation, args["ceil_mode"] is True)
    return Shape(x.dims[:-nd] + spatial.dims) if isinstance(spatial, Shape) else spatial


_MAX = "input:tensor, kernel_size:any, stride:any=None, padding:any=0, dilation:any=1, ceil_mode:bool=False, " \
       "return_indices:bool=False"


@op("max_pool1d", _MAX, expose="tt F", python="tt F", tags=("nn", "pool"), returns="Any")
def max_pool1d(args: Args) -> Result:
    """``[N, C, L]`` (or ``[C, L]``): max_pool2d over a height of 1."""
    return pool_nd("max_pool1d", args, 1, True)


@op("max_pool3d", _MAX, expose="tt F", python="tt F", tags=("nn", "pool"), returns="Any")
def max_pool3d(args: Args) -> Result:
    """``[N, C, D, H, W]`` (or unbatched): a 2-d max pool over (H, W), then one over D (max is separable)."""
    return pool_nd("max_pool3d", args, 3, True)


@op("avg_pool1d", "input:tensor, kernel_size:any, stride:any=None, padding:any=0, ceil_mode:bool=False, "
    "count_include_pad:bool=True", expose="tt F", python="tt F", tags=("nn", "pool"))
def avg_pool1d(args: Args) -> Result:
    return pool_nd("avg_pool1d", {**args, "dilation": 1}, 1, False)


@op("avg_pool3d", "input:tensor, kernel_size:any, stride:any=None, padding:any=0, ceil_mode:bool=False, "
    "count_include_pad:bool=True, divisor_override:any=None", expose="F", python="F", tags=("nn", "pool"))
def avg_pool3d(args: Args) -> Result:
    """A 2-d average over (H, W), then one over D: the window's sum and its count both factor. Unlike
    the other pools, torch's 3-d average wants the unpadded input at least the kernel's size."""
    out = pool_nd("avg_pool3d", {**args, "dilation": 1}, 3, False)
    x, kernel = args["input"], args["kernel_size"]
    kernel = kernel[0] if isinstance(kernel, (tuple, list)) and len(kernel) == 1 else kernel
    ks = dims_of(kernel, 3)
    if isinstance(out, Shape) and isinstance(x, Shape) and ks is not None:
        for size, k in zip(x.dims[-3:], ks, strict=True):
            si, ki = as_int(size), as_int(k)
            if si is not None and ki is not None and si < ki:
                return Issue("shape-arg", f"avg_pool3d: input {fmt_shape(x)} is smaller than the kernel "
                                          f"{tuple(fmt_dim(d) for d in ks)} in a spatial dim")
    return out


def _one_of(value: Any) -> Any:
    """A 1-element sequence as its item (torch's ``_single`` / ``_pair`` / ``_triple`` repeat it)."""
    return value[0] if isinstance(value, (tuple, list)) and len(value) == 1 else value


def unpool_nd(name: str, args: Args, nd: int) -> Result:
    """``max_unpool{nd}d``: the pooled ``[N, C, *s]`` and its indices -> ``[N, C, *output_size]``, by
    default ``(s - 1) stride + kernel - 2 padding`` per dim (torch's ``_unpool_output_size``)."""
    x: ShapeLike = args["input"]
    idx: ShapeLike = args["indices"]
    if isinstance(x, Unknown):
        return UNKNOWN
    r = need_rank(name, x, _ranks(nd))
    if r:
        return r
    if not x.is_fixed:
        return UNKNOWN
    if isinstance(idx, Shape) and idx.is_fixed and (
            len(idx.dims) != len(x.dims) or any(differs(a, b) for a, b in zip(idx.dims, x.dims, strict=True))):
        return Issue("shape-arg", f"{name}: expected indices to have the input's shape, got input {fmt_shape(x)} and "
                                  f"indices {fmt_shape(idx)}")
    if any(as_int(d) == 0 for d in x.dims[1:]):
        return Issue("shape-arg", f"{name}: expected input to have non-zero size for non-batch dimensions; shape "
                                  f"{fmt_shape(x)}")
    kernel = ints_of(_one_of(args["kernel_size"]), nd)
    stride_arg = args["stride"]
    stride = ints_of(_one_of(args["kernel_size"] if stride_arg is None else stride_arg), nd)
    padding = ints_of(_one_of(args["padding"]), nd)
    if kernel is None or stride is None or padding is None:
        return UNKNOWN
    default: list[DimExpr] = []
    for size, k, st, p in zip(x.dims[-nd:], kernel, stride, padding, strict=True):
        if k is None or st is None or p is None:
            default.append(UNKNOWN)
            continue
        if k <= 0 or st <= 0 or p < 0:
            return Issue("shape-arg", f"{name}: kernel_size and stride must be positive and padding non-negative")
        default.append(d_add(d_mul(d_sub(size, 1), st), k - 2 * p))
    size_arg = args["output_size"]
    if size_arg is None:
        out = tuple(default)
    elif isinstance(size_arg, (tuple, list)):
        sizes = list(size_arg)[2:] if len(size_arg) == nd + 2 else list(size_arg)
        if len(sizes) != nd:
            return Issue("shape-arg", f"{name}: output_size should be a sequence containing {nd} or {nd + 2} "
                                      f"elements, but it has a length of {len(size_arg)}")
        got = dims_of(tuple(sizes), nd)
        if got is None:
            return UNKNOWN
        for i, (o, dflt, st) in enumerate(zip(got, default, stride, strict=True)):
            oi, di = as_int(o), as_int(dflt)
            if oi is not None and di is not None and st is not None and not di - st < oi < di + st:
                return Issue("shape-arg", f"{name}: invalid output_size {list(size_arg)} (dim {i} must be between "
                                          f"{di - st} and {di + st})")
        out = got
    else:
        return UNKNOWN
    for i, o in enumerate(out):
        oi = as_int(o)
        if oi is not None and oi < 0:
            return Issue("shape-arg", f"{name}: output_size must contain non-negative spatial dimensions, but got "
                                      f"output_size[{i}]={oi}; input {fmt_shape(x)}")
    return Shape(x.dims[:-nd] + tuple(out))


_UNPOOL = "input:tensor, indices:tensor, kernel_size:any, stride:any=None, padding:any=0, output_size:any=None"


@op("max_unpool1d", _UNPOOL, expose="F", python="F", tags=("nn", "pool"))
def max_unpool1d(args: Args) -> Result:
    """``[N, C, L]`` (or ``[C, L]``) and max_pool1d's indices -> ``[N, C, L_out]``."""
    return unpool_nd("max_unpool1d", args, 1)


@op("max_unpool2d", _UNPOOL, expose="F", python="F", tags=("nn", "pool"))
def max_unpool2d(args: Args) -> Result:
    """``[N, C, H, W]`` (or ``[C, H, W]``) and max_pool2d's indices -> ``[N, C, H_out, W_out]``."""
    return unpool_nd("max_unpool2d", args, 2)


@op("max_unpool3d", _UNPOOL, expose="F", python="F", tags=("nn", "pool"))
def max_unpool3d(args: Args) -> Result:
    """``[N, C, D, H, W]`` (or unbatched) and max_pool3d's indices -> ``[N, C, D_out, H_out, W_out]``."""
    return unpool_nd("max_unpool3d", args, 3)


def lp_nd(name: str, args: Args, nd: int) -> Result:
    """``lp_pool{nd}d``: the shape of the average pool it is made of (no padding)."""
    call = {"input": args["input"], "kernel_size": args["kernel_size"], "stride": args["stride"], "padding": 0,
            "dilation": 1, "ceil_mode": args["ceil_mode"]}
    out = avg_pool3d(call) if nd == 3 else pool_nd(name, call, nd, False)
    if isinstance(out, Issue) and nd == 3:
        return Issue(out.code, out.message.replace("avg_pool3d", name, 1))
    return out


_LP = "input:tensor, norm_type:float, kernel_size:any, stride:any=None, ceil_mode:bool=False"


@op("lp_pool1d", _LP, expose="F", python="F", tags=("nn", "pool"))
def lp_pool1d(args: Args) -> Result:
    """The power-average pool ``(sum over the window of x^p)^(1/p)`` over ``[N, C, L]``."""
    return lp_nd("lp_pool1d", args, 1)


@op("lp_pool2d", _LP, expose="F", python="F", tags=("nn", "pool"))
def lp_pool2d(args: Args) -> Result:
    """The power-average pool over ``[N, C, H, W]`` (or ``[C, H, W]``)."""
    return lp_nd("lp_pool2d", args, 2)


@op("lp_pool3d", _LP, expose="F", python="F", tags=("nn", "pool"))
def lp_pool3d(args: Args) -> Result:
    """The power-average pool over ``[N, C, D, H, W]`` (or unbatched)."""
    return lp_nd("lp_pool3d", args, 3)


def adaptive_nd(name: str, args: Args, nd: int) -> Result:
    """The last ``nd`` dims become ``output_size`` (None keeps a dim)."""
    x: ShapeLike = args["input"]
    if isinstance(x, Unknown):
        return UNKNOWN
    r = need_rank(name, x, _ranks(nd))
    if r:
        return r
    if not x.is_fixed:
        return UNKNOWN
    if any(d == 0 for d in x.dims[-nd:]):
        return Issue("shape-arg", f"{name}: the spatial dims must be non-empty; shape {fmt_shape(x)}")
    if (len(x.dims) == nd + 2 and x.dims[1] == 0) or (len(x.dims) == nd + 1 and x.dims[0] == 0):
        return Issue("shape-arg", f"{name}: the channel dim must be non-empty; shape {fmt_shape(x)}")
    size = args["output_size"]
    if isinstance(size, (tuple, list)) and len(size) == 1 and nd > 1:
        size = size[0]
    keep = tuple(s is None for s in size) if isinstance(size, (tuple, list)) else (size is None,) * nd
    sizes = dims_of(size, nd)
    if sizes is None or len(keep) != nd:
        return UNKNOWN if not isinstance(size, (tuple, list)) else Issue(
            "shape-arg", f"{name}: output_size must have {nd} values, got {len(size)}")
    for s in sizes:
        si = as_int(s)
        if si is not None and si < 0:
            return Issue("shape-arg", f"{name}: output_size must be non-negative, got {si}")
    out = tuple(x.dims[-nd + i] if keep[i] else s for i, s in enumerate(sizes))
    return Shape(x.dims[:-nd] + out)


@op("adaptive_avg_pool1d", "input:tensor, output_size:any", expose="tt F", python="tt F", tags=("nn", "pool"))
def adaptive_avg_pool1d(args: Args) -> Result:
    return adaptive_nd("adaptive_avg_pool1d", args, 1)


@op("adaptive_avg_pool3d", "input:tensor, output_size:any", expose="F", python="F", tags=("nn", "pool"))
def adaptive_avg_pool3d(args: Args) -> Result:
    return adaptive_nd("adaptive_avg_pool3d", args, 3)


@op("adaptive_max_pool1d", "input:tensor, output_size:any, return_indices:bool=False", expose="tt F", python="tt F",
    tags=("nn", "pool"), returns="Any")
def adaptive_max_pool1d(args: Args) -> Result:
    return adaptive_nd("adaptive_max_pool1d", args, 1)


@op("adaptive_max_pool2d", "input:tensor, output_size:any, return_indices:bool=False", expose="F", python="F",
    tags=("nn", "pool"), returns="Any")
def adaptive_max_pool2d(args: Args) -> Result:
    return adaptive_nd("adaptive_max_pool2d", args, 2)


@op("adaptive_max_pool3d", "input:tensor, output_size:any, return_indices:bool=False", expose="F", python="F",
    tags=("nn", "pool"), returns="Any")
def adaptive_max_pool3d(args: Args) -> Result:
    return adaptive_nd("adaptive_max_pool3d", args, 3)


# ---------------------------------------------------------------------------------------------
# Modules


def _as_arg(issue: Result, module_name: str) -> Result:
    if isinstance(issue, Issue) and issue.code not in ("shape-arg", "shape-rank", "shape-axis"):
        return Issue("shape-arg", f"{module_name}.forward: {issue.message}")
    return issue


def _in_channels_check(cls: str, x: Any, nd: int, in_channels: DimExpr) -> Issue | None:
    if isinstance(x, Shape) and x.is_fixed and len(x.dims) in _ranks(nd):
        c = x.dims[-nd - 1]
        if differs(c, in_channels):
            return Issue("shape-arg", f"{cls}.forward: input has {fmt_dim(c)} channels (dim {len(x.dims) - nd - 1}) but "
                                      f"the module expects in_channels = {fmt_dim(in_channels)}; shape {fmt_shape(x)}")
    return None


def _conv_module(cls: str, nd: int, transposed: bool) -> None:
    ctor = ("in_channels:size, out_channels:size, kernel_size:any, stride:any=1, padding:any=0, "
            + ("output_padding:any=0, groups:int=1, bias:bool=True, dilation:any=1, " if transposed else
               "dilation:any=1, groups:int=1, bias:bool=True, ")
            + "padding_mode:str='zeros', *, device:any=None, dtype:any=None")
    type_params = ("in_channels", "out_channels", "kernel_size", "stride", "padding", "dilation") + (
        ("output_padding",) if transposed else ())
    op_name = f"conv_transpose{nd}d" if transposed else f"conv{nd}d"

    def forward(c: Args, args: Args) -> Result:
        kernel = dims_of(c["kernel_size"], nd) or (UNKNOWN,) * nd
        groups = as_int(c["groups"])
        per_group: DimExpr = UNKNOWN
        if groups is not None and groups > 0:
            q = d_exact_div(c["out_channels"] if transposed else c["in_channels"], groups)
            per_group = q if q is not None else UNKNOWN
        weight = Shape((c["in_channels"], per_group, *kernel) if transposed else (c["out_channels"], per_group, *kernel))
        x = args["input"]
        issue = _in_channels_check(cls, x, nd, c["in_channels"])
        if issue:
            return issue
        call: Args = {"input": x, "weight": weight, "bias": None, "stride": c["stride"], "padding": c["padding"],
                      "dilation": c["dilation"], "groups": c["groups"]}
        if transposed:
            call["output_padding"] = c["output_padding"]
            if args.get("output_size") is not None:
                return _with_output_size(cls, conv_transpose_nd(op_name, call, nd), args["output_size"], nd)
            return _as_arg(conv_transpose_nd(op_name, call, nd), cls)
        if nd == 2:
            from .nn import conv2d

            return _as_arg(conv2d(call), cls)
        return _as_arg(conv_nd(op_name, call, nd), cls)

    forward_params = "input:tensor, output_size:any=None" if transposed else "input:tensor"
    module(f"typedtensor.nn.{cls}", ctor, type_params, forward_params, ops=(op_name,))(forward)


def _with_output_size(cls: str, result: Result, output_size: Any, nd: int) -> Result:
    """``forward(x, output_size=...)`` picks the output_padding that gives that size: the spatial dims
    are the requested ones (the run time checks that they are reachable)."""
    if not isinstance(result, Shape) or isinstance(output_size, Unknown):
        return _as_arg(result, cls)
    sizes = dims_of(tuple(output_size)[-nd:], nd) if isinstance(output_size, (tuple, list)) else None
    if sizes is None:
        return UNKNOWN
    return Shape((*result.dims[:-nd], *sizes))


_conv_module("Conv1d", 1, False)
_conv_module("Conv3d", 3, False)
_conv_module("ConvTranspose1d", 1, True)
_conv_module("ConvTranspose2d", 2, True)


def _pool_module(cls: str, op_name: str, ctor: str, type_params: tuple[str, ...], nd: int, kind: str) -> None:
    def forward(c: Args, args: Args) -> Result:
        call = {"input": args["input"], **c}
        if kind == "pool":
            call.setdefault("dilation", 1)
            call.setdefault("return_indices", False)
            call.setdefault("count_include_pad", True)
            if op_name == "avg_pool3d":
                return _as_arg(avg_pool3d(call), cls)
            return _as_arg(pool_nd(op_name, call, nd, "dilation" in c), cls)
        return _as_arg(adaptive_nd(op_name, call, nd), cls)

    module(f"typedtensor.nn.{cls}", ctor, type_params, "input:tensor", ops=(op_name,))(forward)


_MAXPOOL_CTOR = "kernel_size:any, stride:any=None, padding:any=0, dilation:any=1, return_indices:bool=False, ceil_mode:bool=False"
_MAXPOOL_TP = ("kernel_size", "stride", "padding", "dilation", "return_indices", "ceil_mode")
_pool_module("MaxPool1d", "max_pool1d", _MAXPOOL_CTOR, _MAXPOOL_TP, 1, "pool")
_pool_module("MaxPool3d", "max_pool3d", _MAXPOOL_CTOR, _MAXPOOL_TP, 3, "pool")
_pool_module("AvgPool1d", "avg_pool1d", "kernel_size:any, stride:any=None, padding:any=0, ceil_mode:bool=False, "
             "count_include_pad:bool=True", ("kernel_size", "stride", "padding", "ceil_mode"), 1, "pool")
_pool_module("AvgPool3d", "avg_pool3d", "kernel_size:any, stride:any=None, padding:any=0, ceil_mode:bool=False, "
             "count_include_pad:bool=True, divisor_override:any=None", ("kernel_size", "stride", "padding", "ceil_mode"),
             3, "pool")
_pool_module("AdaptiveAvgPool1d", "adaptive_avg_pool1d", "output_size:any", ("output_size",), 1, "adaptive")
_pool_module("AdaptiveAvgPool3d", "adaptive_avg_pool3d", "output_size:any", ("output_size",), 3, "adaptive")
_pool_module("AdaptiveMaxPool1d", "adaptive_max_pool1d", "output_size:any, return_indices:bool=False",
             ("output_size", "return_indices"), 1, "adaptive")
_pool_module("AdaptiveMaxPool2d", "adaptive_max_pool2d", "output_size:any, return_indices:bool=False",
             ("output_size", "return_indices"), 2, "adaptive")
_pool_module("AdaptiveMaxPool3d", "adaptive_max_pool3d", "output_size:any, return_indices:bool=False",
             ("output_size", "return_indices"), 3, "adaptive")


def _unpool_module(cls: str, nd: int) -> None:
    op_name = f"max_unpool{nd}d"

    def forward(c: Args, args: Args) -> Result:
        return _as_arg(unpool_nd(op_name, {"input": args["input"], "indices": args["indices"],
                                           "output_size": args["output_size"], **c}, nd), cls)

    module(f"typedtensor.nn.{cls}", "kernel_size:any, stride:any=None, padding:any=0",
           ("kernel_size", "stride", "padding"), "input:tensor, indices:tensor, output_size:any=None",
           ops=(op_name,))(forward)


def _lp_module(cls: str, nd: int) -> None:
    op_name = f"lp_pool{nd}d"

    def forward(c: Args, args: Args) -> Result:
        return _as_arg(lp_nd(op_name, {"input": args["input"], "kernel_size": c["kernel_size"], "stride": c["stride"],
                                       "ceil_mode": c["ceil_mode"]}, nd), cls)

    module(f"typedtensor.nn.{cls}", "norm_type:float, kernel_size:any, stride:any=None, ceil_mode:bool=False",
           ("kernel_size", "stride", "ceil_mode"), "input:tensor", ops=(op_name,))(forward)


for _nd in (1, 2, 3):
    _unpool_module(f"MaxUnpool{_nd}d", _nd)
    _lp_module(f"LPPool{_nd}d", _nd)
