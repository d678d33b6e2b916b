"""Normalisation ops and modules beyond ``batch_norm`` / ``layer_norm`` / ``group_norm`` (nn.py):
``instance_norm``, ``local_response_norm``, ``rms_norm``; the modules ``GroupNorm``,
``InstanceNorm1d/2d/3d``, ``BatchNorm3d``, ``LocalResponseNorm`` and ``RMSNorm``. All keep their
input's shape."""

from __future__ import annotations

from typing import Any

from ..dims import UNKNOWN, DimExpr, Unknown, as_int, d_prod, differs, fmt_dim
from ..issue import Issue
from ..registry import Args, Result, module, op
from ..shape import Shape, ShapeLike, fmt_shape
from ._common import need_rank


def _channels(name: str, x: Shape, v: Any, what: str, c: DimExpr) -> Issue | None:
    if isinstance(v, Shape) and v.is_fixed and (len(v.dims) != 1 or differs(v.dims[0], c)):
        return Issue("shape-arg", f"{name}: {what} has shape {fmt_shape(v)}, expected [{fmt_dim(c)}] for input "
                                  f"{fmt_shape(x)} (channels at dim 1)")
    return None


@op("instance_norm", "input:tensor, running_mean:optional_tensor=None, running_var:optional_tensor=None, "
    "weight:optional_tensor=None, bias:optional_tensor=None, use_input_stats:bool=True, momentum:float=0.1, "
    "eps:float=1e-05", expose="tt F", python="tt F", tags=("nn", "normalization"), signature="(*s) -> (*s)")
def instance_norm(args: Args) -> Result:
    """Statistics per (example, channel) over the spatial dims of ``[N, C, *s]``; the parameters are ``[C]``."""
    x: ShapeLike = args["input"]
    if isinstance(x, Unknown):
        return UNKNOWN
    r = need_rank("instance_norm", x, (3, 4, 5))
    if r:
        return r
    if not x.is_fixed:
        return x
    for what in ("running_mean", "running_var", "weight", "bias"):
        issue = _channels("instance_norm", x, args[what], what, x.dims[1])
        if issue:
            return issue
    spatial = as_int(d_prod(x.dims[2:]))
    if spatial is not None and spatial <= 1 and args["use_input_stats"] is not False:
        return Issue("shape-arg", f"instance_norm: expected more than 1 spatial element when training, got input "
                                  f"{fmt_shape(x)}")
    return x


@op("local_response_norm", "input:tensor, size:int, alpha:float=0.0001, beta:float=0.75, k:float=1.0", expose="F",
    python="F", tags=("nn", "normalization"), signature="(*s) -> (*s)")
def local_response_norm(args: Args) -> Result:
    """Each value divided by a power of the mean square over ``size`` neighbouring channels (dim 1)."""
    x: ShapeLike = args["input"]
    if isinstance(x, Unknown):
        return UNKNOWN
    if x.is_fixed and len(x.dims) < 3:
        return Issue("shape-rank", f"local_response_norm: expected at least 3 dims ([N, C, *]), got {len(x.dims)}; "
                                   f"shape {fmt_shape(x)}")
    if x.is_fixed and any(d == 0 for d in x.dims):
        return Issue("shape-arg", f"local_response_norm: expected a non-empty input; shape {fmt_shape(x)}")
    return x


@op("rms_norm", "input:tensor, normalized_shape:sizes, weight:optional_tensor=None, eps:float=None", expose="tt F",
    python="tt F", tags=("nn", "normalization"), signature="(*s) -> (*s)")
def rms_norm(args: Args) -> Result:
    """``x / sqrt(mean(x^2) + eps)`` over the trailing ``normalized_shape`` dims (as layer_norm's rule)."""
    from .nn import layer_norm

    return layer_norm({"input": args["input"], "normalized_shape": args["normalized_shape"], "weight": args["weight"],
                       "bias": None, "eps": args["eps"]})


# ---------------------------------------------------------------------------------------------
# Modules


def _as_arg(issue: Result, module_name: str) -> Result:
    if isinstance(issue, Issue) and issue.code not in ("shape-arg", "shape-rank", "shape-axis"):
        return Issue("shape-arg", f"{module_name}.forward: {issue.message}")
    return issue


@module("typedtensor.nn.GroupNorm", "num_groups:int, num_channels:size, eps:float=1e-05, affine:bool=True, "
        "device:any=None, dtype:any=None, *, bias:bool=True", ("num_groups", "num_channels"), "input:tensor", ops=("group_norm",))
def group_norm_module(c: Args, args: Args) -> Result:
    """``[N, C, *]`` with ``C == num_channels``, divisible into ``num_groups``."""
    from .nn import group_norm

    x = args["input"]
    if isinstance(x, Shape) and x.is_fixed and len(x.dims) >= 2 and differs(x.dims[1], c["num_channels"]):
        return Issue("shape-arg", f"GroupNorm.forward: input has {fmt_dim(x.dims[1])} channels (dim 1) but the module "
                                  f"expects num_channels = {fmt_dim(c['num_channels'])}; shape {fmt_shape(x)}")
    return _as_arg(group_norm({"input": x, "num_groups": c["num_groups"], "weight": None, "bias": None,
                               "eps": c["eps"]}), "GroupNorm")


def _instance_norm_module(cls: str, nd: int) -> None:
    def forward(c: Args, args: Args) -> Result:
        x: ShapeLike = args["input"]
        if isinstance(x, Unknown):
            return UNKNOWN
        r = need_rank(cls, x, (nd + 1, nd + 2))
        if r:
            return r
        if not x.is_fixed:
            return x
        batched = x if len(x.dims) == nd + 2 else Shape((1, *x.dims))
        ch = batched.dims[1]
        if c["affine"] is True and differs(ch, c["num_features"]):
            return Issue("shape-arg", f"{cls}.forward: input has {fmt_dim(ch)} channels but the module expects "
                                      f"num_features = {fmt_dim(c['num_features'])}; shape {fmt_shape(x)}")
        got = _as_arg(instance_norm({"input": batched, "running_mean": None, "running_var": None, "weight": None,
                                     "bias": None, "use_input_stats": True, "momentum": 0.1, "eps": 1e-5}), cls)
        return got if isinstance(got, Issue) else x

    module(f"typedtensor.nn.{cls}", "num_features:size, eps:float=1e-05, momentum:float=0.1, affine:bool=False, "
           "track_running_stats:bool=False, device:any=None, dtype:any=None, *, bias:bool=True", ("num_features", "affine"),
           "input:tensor", ops=("instance_norm",))(forward)


_instance_norm_module("InstanceNorm1d", 1)
_instance_norm_module("InstanceNorm2d", 2)
_instance_norm_module("InstanceNorm3d", 3)


@module("typedtensor.nn.BatchNorm3d", "num_features:size, eps:float=1e-05, momentum:float=0.1, affine:bool=True, "
        "track_running_stats:bool=True, device:any=None, dtype:any=None, *, bias:bool=True", ("num_features",),
        "input:tensor",
        ops=("batch_norm",))
def batch_norm3d_module(c: Args, args: Args) -> Result:
    """``[N, C, D, H, W]`` with ``C == num_features``."""
    from .nn import batch_norm

    x = args["input"]
    if isinstance(x, Unknown):
        return UNKNOWN
    r = need_rank("BatchNorm3d", x, (5,))
    if r:
        return r
    stats = Shape((c["num_features"],))
    return _as_arg(batch_norm({"input": x, "running_mean": stats, "running_var": stats, "weight": None, "bias": None,
                               "training": False, "momentum": 0.1, "eps": 1e-5}), "BatchNorm3d")


@module("typedtensor.nn.LocalResponseNorm", "size:int, alpha:float=0.0001, beta:float=0.75, k:float=1.0",
        ("size",), "input:tensor", ops=("local_response_norm",))
def lrn_module(c: Args, args: Args) -> Result:
    return _as_arg(local_response_norm({"input": args["input"], "size": c["size"], "alpha": c["alpha"],
                                        "beta": c["beta"], "k": c["k"]}), "LocalResponseNorm")


@module("typedtensor.nn.RMSNorm", "normalized_shape:sizes, eps:float=None, elementwise_affine:bool=True, *, "
        "device:any=None, dtype:any=None", ("normalized_shape",), "input:tensor", ops=("rms_norm",))
def rms_norm_module(c: Args, args: Args) -> Result:
    return _as_arg(rms_norm({"input": args["input"], "normalized_shape": c["normalized_shape"], "weight": None,
                             "eps": None}), "RMSNorm")
