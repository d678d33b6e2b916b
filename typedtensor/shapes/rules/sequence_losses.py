"""Losses over sequences and large vocabularies: ``ctc_loss`` (``nn.CTCLoss``) and
``nn.AdaptiveLogSoftmaxWithLoss``, with torch's shapes and errors."""

from __future__ import annotations

from typing import Any

from ..dims import UNKNOWN, DimExpr, as_int, d_prod, differs, fmt_dim
from ..issue import Issue
from ..registry import Args, Outputs, Result, module, op
from ..shape import Shape, fmt_shape
from ._common import need_rank
from .nn import _reduced


def _lengths_issue(what: str, v: Any, n: DimExpr) -> Issue | None:
    """``input_lengths`` / ``target_lengths``: a tensor or a sequence holding one length per example."""
    if isinstance(v, Shape) and v.is_fixed:
        count = d_prod(v.dims)
        if differs(count, n):
            return Issue("shape-arg", f"ctc_loss: {what} must be of size batch_size ({fmt_dim(n)}), got a tensor of "
                                      f"shape {fmt_shape(v)}")
    elif isinstance(v, (tuple, list)) and as_int(n) is not None and len(v) != as_int(n):
        return Issue("shape-arg", f"ctc_loss: {what} must be of size batch_size ({fmt_dim(n)}), got {len(v)} lengths")
    return None


@op("ctc_loss", "log_probs:tensor, targets:tensor, input_lengths:any, target_lengths:any, blank:int=0, "
    "reduction:str='mean', zero_infinity:bool=False", expose="F", python="F", tags=("nn", "loss"))
def ctc_loss(args: Args) -> Result:
    """``log_probs`` ``[T, N, C]`` (or ``[T, C]``), ``targets`` ``[N, S]`` or concatenated ``[sum(target_lengths)]``,
    one input and one target length per example: the loss ``[N]`` (``[]`` unbatched) or its reduction."""
    lp, tg, red = args["log_probs"], args["targets"], args["reduction"]
    if not isinstance(lp, Shape):
        return _reduced(UNKNOWN, red)
    issue = need_rank("ctc_loss", lp, (2, 3), "log_probs")
    if issue:
        return issue
    if not lp.is_fixed:
        return _reduced(UNKNOWN, red)
    if any(as_int(d) == 0 for d in lp.dims):
        return Issue("shape-arg", f"ctc_loss: log_probs tensor must not be empty; shape {fmt_shape(lp)}")
    batched = len(lp.dims) == 3
    n: DimExpr = lp.dims[1] if batched else 1
    if isinstance(tg, Shape):
        issue = need_rank("ctc_loss", tg, (1, 2), "targets")
        if issue:
            return issue
        if tg.is_fixed and len(tg.dims) == 2 and differs(tg.dims[0], n):
            return Issue("shape-arg", f"ctc_loss: padded targets need one row per example: expected "
                                      f"{fmt_dim(n)} rows (dim 0), got {fmt_dim(tg.dims[0])}; log_probs "
                                      f"{fmt_shape(lp)}, targets {fmt_shape(tg)}")
    for what in ("input_lengths", "target_lengths"):
        issue = _lengths_issue(what, args[what], n)
        if issue:
            return issue
    return _reduced(Shape((n,)) if batched else Shape(()), red)


@module("typedtensor.nn.CTCLoss", "blank:int=0, reduction:str='mean', zero_infinity:bool=False", (),
        "log_probs:tensor, targets:tensor, input_lengths:any, target_lengths:any", ops=("ctc_loss",))
def ctc_loss_module(c: Args, args: Args) -> Result:
    return ctc_loss({**args, "blank": c["blank"], "reduction": c["reduction"], "zero_infinity": c["zero_infinity"]})



@module("typedtensor.nn.AdaptiveLogSoftmaxWithLoss", "in_features:size, n_classes:size, cutoffs:any, "
        "div_value:float=4.0, head_bias:bool=False, device:any=None, dtype:any=None", ("in_features", "n_classes"),
        "input:tensor, target:tensor", ops=("linear", "log_softmax", "gather", "index_select"))
def adaptive_log_softmax_module(c: Args, args: Args) -> Result:
    """``input [N, in_features]`` and class indices ``target [N]`` (or ``[in_features]`` and ``[]``) give the
    named pair ``(output [N] (or []), loss [])``."""
    x, y = args["input"], args["target"]
    names = ("output", "loss")
    if isinstance(y, Shape) and y.is_fixed and len(y.dims) > 1:
        return Issue("shape-rank", f"AdaptiveLogSoftmaxWithLoss: 0D or 1D target tensor expected, multi-target not "
                                   f"supported; target {fmt_shape(y)}")
    if not (isinstance(x, Shape) and x.is_fixed):
        per = Shape(y.dims) if isinstance(y, Shape) and y.is_fixed else UNKNOWN
        return Outputs((per, Shape(())), names)
    if x.dims and differs(x.dims[-1], c["in_features"]):
        return Issue("shape-arg", f"AdaptiveLogSoftmaxWithLoss: input has {fmt_dim(x.dims[-1])} features (dim -1), "
                                  f"expected in_features = {fmt_dim(c['in_features'])}; shape {fmt_shape(x)}")
    if not (isinstance(y, Shape) and y.is_fixed):
        if len(x.dims) not in (1, 2):
            return Issue("shape-rank", f"AdaptiveLogSoftmaxWithLoss: expected a 1-d or 2-d input, got "
                                       f"{len(x.dims)}-d; shape {fmt_shape(x)}")
        return Outputs((Shape(x.dims[:1]) if len(x.dims) == 2 else Shape(()), Shape(())), names)
    if len(y.dims) == 1:
        if not x.dims or differs(x.dims[0], y.dims[0]):
            return Issue("shape-arg", "AdaptiveLogSoftmaxWithLoss: Input and target should have the same size in the "
                                      f"batch dimension; shapes {fmt_shape(x)}, target {fmt_shape(y)}")
        if len(x.dims) != 2:
            return Issue("shape-rank", f"AdaptiveLogSoftmaxWithLoss: 1D target tensor expects 2D input tensors, but "
                                       f"found input {fmt_shape(x)}")
        return Outputs((Shape(x.dims[:1]), Shape(())), names)
    if len(x.dims) != 1:
        return Issue("shape-rank", f"AdaptiveLogSoftmaxWithLoss: 0D target tensor expects 1D input tensors, but found "
                                   f"input {fmt_shape(x)}")
    return Outputs((Shape(()), Shape(())), names)
