"""Random draws that take a tensor or fill one: ``normal``, the in-place fills (``uniform_``,
``normal_``, ``exponential_``, ``random_``, ``bernoulli_``) and ``multinomial``. Each takes torch's
``generator=`` (NOTE [ Generators ] in backend/include/typedtensor/ops.h). The factories of a given
size (``rand``, ``randn``, ``randint``, ``randperm``) are in ``creation.py``."""

from __future__ import annotations

from ..broadcast import broadcast_all
from ..dims import UNKNOWN, Unknown, as_int
from ..issue import Issue
from ..registry import Args, Result, op
from ..shape import Shape, ShapeLike, fmt_shape
from ._common import is_scalar
from .creation import sizes_shape

_FILLS = "fills with random values: no gradient"


@op("normal", "mean:any, std:any=1.0, size:sizes=None, *, generator:any=None, dtype:dtype=None, device:any=None, "
    "requires_grad:bool=False", expose="tt inplace", inplace="mean:float=0.0, std:float=1.0, *, generator:any=None",
    python="tt inplace", tags=("creation", "random"), dtype_rule="factory")
def normal(args: Args) -> Result:
    """``normal(mean, std, size)`` of numbers has ``size``; a tensor ``mean`` and/or ``std`` gives
    their broadcast shape (the draw is ``mean + std * randn``, differentiable in both)."""
    if args["size"] is not None:
        return sizes_shape("normal", args["size"])
    parts = [v for v in (args["mean"], args["std"]) if isinstance(v, (Shape, Unknown))]
    if not parts:
        return UNKNOWN if not all(is_scalar(v) for v in (args["mean"], args["std"])) else Issue(
            "shape-arg", "normal: numbers for mean and std need a size")
    return broadcast_all(parts, "normal")


def _fill(name: str, params: str) -> None:
    op(name, f"input:tensor, {params}", expose="inplace", python="inplace", tags=("random",), differentiable=False,
       gradient=_FILLS, dtype_rule="same", signature="(*s) -> (*s)")(lambda args: args["input"])


# its kernel draws elementwise P(1) = p
op("bernoulli", "input:tensor, p:float=None, *, generator:any=None", kernel="(const Tensor& out, const Tensor& p)", expose="tt method inplace",
   inplace="p:any=0.5, *, generator:any=None", python="method inplace", tags=("creation", "random"), differentiable=False,
   gradient="a random draw", dtype_rule="same", signature="(*s) -> (*s)")(lambda args: args["input"])
_fill("uniform", "from_:float=0.0, to:float=1.0, *, generator:any=None")
_fill("exponential", "lambd:float=1.0, *, generator:any=None")
_fill("random", "from_:int=0, to:int=None, *, generator:any=None")


@op("multinomial", "input:tensor, num_samples:size, replacement:bool=False, *, generator:any=None",
    expose="tt method", python="tt method", tags=("random",), differentiable=False, gradient="integer result",
    dtype_rule="int64")
def multinomial(args: Args) -> Result:
    """Rows of probabilities ``[n]`` or ``[m, n]`` -> ``num_samples`` indices per row."""
    x: ShapeLike = args["input"]
    k = args["num_samples"]
    if isinstance(x, Unknown):
        return UNKNOWN
    if x.is_fixed and len(x.dims) not in (1, 2):
        return Issue("shape-rank", f"multinomial: prob_dist must be 1 or 2 dim, got {len(x.dims)}; shape {fmt_shape(x)}")
    if as_int(k) is not None and as_int(k) <= 0:  # type: ignore[operator]
        return Issue("shape-arg", f"multinomial: cannot sample n_sample <= 0 samples, got {k}")
    if not x.is_fixed:
        return UNKNOWN
    return Shape((*x.dims[:-1], k))
