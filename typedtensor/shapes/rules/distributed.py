"""The collectives of ``typedtensor.distributed`` whose tensors' shapes depend on each other:
``all_gather_into_tensor`` (every rank's ``[Batch, D]`` into ``[Mul[World, Batch], D]``) and its
inverse ``reduce_scatter_tensor``. ``World`` is a dim the program declares for the number of
ranks; the checkers cannot know its value, so the rule asks that the gathered dim be a multiple of
the input's (``Mul[World, Batch]``, ``Mul[Literal[2], Batch]``, or any literal multiple) and that
the other dims agree. The stacked form torch also accepts (``[World, Batch, D]``) passes too.

``all_reduce``, ``broadcast`` and ``reduce`` take one tensor and keep its shape (they write in
place and return a ``Work`` or None), so there is nothing for a rule to relate; ranks that pass
different shapes are a run-time error naming the dim (``distributed/_mpi.py``).

These entries expose no ``typedtensor.X`` form: ``shapes/api.py`` maps ``typedtensor.distributed.X``
to the ops tagged ``distributed``. Each rule returns UNKNOWN when the shapes agree, as the call's
result is a ``Work`` or None, not a tensor.
"""

from __future__ import annotations

from ..dims import UNKNOWN, Poly, Unknown, d_exact_div, differs, fmt_dim, same
from ..issue import Issue
from ..registry import Args, Result, op
from ..shape import ShapeLike, fmt_shape

_COLLECTIVE = "a collective: it moves data between processes, outside autograd"


def _over_axis_names(*dims: object) -> bool:
    """A jaxtyping axis name may stand for any size, a multiple included (NOTE [ Axis names ])."""
    return any(isinstance(d, Poly) and any(s.kind == "axis" for s in d.all_symbols()) for d in dims)


def _gathered(op_name: str, whole_name: str, whole: ShapeLike, share_name: str, share: ShapeLike) -> Result:
    """``whole`` holds every rank's ``share`` along dim 0: ``[Mul[World, N], *rest]`` for a share
    ``[N, *rest]``, or stacked ``[World, N, *rest]``."""
    if isinstance(whole, Unknown) or isinstance(share, Unknown) or not whole.is_fixed or not share.is_fixed:
        return UNKNOWN
    w, s = whole.dims, share.dims
    shapes = f"{whole_name} {fmt_shape(whole)}, {share_name} {fmt_shape(share)}"
    if len(w) == len(s) + 1:  # stacked: [World, *share]
        pairs = list(zip(w[1:], s, strict=True))
        offset = 1
    elif len(w) == len(s) and s:
        first_w, first_s = w[0], s[0]
        quotient = d_exact_div(first_w, first_s)
        if quotient is None and not _over_axis_names(first_w, first_s):
            return Issue("shape-arg", f"{op_name}: {whole_name} dim 0 ({fmt_dim(first_w)}) must be the world size times "
                                      f"{share_name} dim 0 ({fmt_dim(first_s)}), e.g. Mul[World, {fmt_dim(first_s)}]; "
                                      f"{shapes}")
        if isinstance(first_s, Poly) and same(first_w, first_s):
            return Issue("shape-arg", f"{op_name}: {whole_name} dim 0 is {share_name} dim 0 ({fmt_dim(first_s)}), "
                                      f"which holds one rank's share; the ranks' shares together are "
                                      f"Mul[World, {fmt_dim(first_s)}]; {shapes}")
        pairs = list(zip(w[1:], s[1:], strict=True))
        offset = 1
    else:
        return Issue("shape-rank", f"{op_name}: {whole_name} must have the rank of {share_name} (the shares joined "
                                   f"along dim 0) or one more (stacked); {shapes}")
    for i, (a, b) in enumerate(pairs):
        if differs(a, b):
            return Issue("shape-arg", f"{op_name}: {whole_name} dim {i + offset} ({fmt_dim(a)}) differs from "
                                      f"{share_name} dim {i + offset - (len(w) - len(s))} ({fmt_dim(b)}); {shapes}")
    return UNKNOWN


@op("all_gather_into_tensor", "output_tensor:tensor, input_tensor:tensor, group:any=None, async_op:bool=False",
    tags=("distributed",), differentiable=False, gradient=_COLLECTIVE, dtype_rule="same")
def all_gather_into_tensor(args: Args) -> Result:
    """Every rank's ``input_tensor [N, *rest]`` into ``output_tensor [Mul[World, N], *rest]``."""
    return _gathered("all_gather_into_tensor", "output_tensor", args["output_tensor"], "input_tensor",
                     args["input_tensor"])


@op("reduce_scatter_tensor", "output:tensor, input:tensor, op:any=None, group:any=None, async_op:bool=False",
    tags=("distributed",), differentiable=False, gradient=_COLLECTIVE, dtype_rule="same")
def reduce_scatter_tensor(args: Args) -> Result:
    """``input [Mul[World, N], *rest]`` reduced across ranks, rank r keeping share r ``output [N, *rest]``."""
    return _gathered("reduce_scatter_tensor", "input", args["input"], "output", args["output"])

