"""Order statistics and moments written in Python out of the backend's primitives
(``_runtime/statistics_ops.py``): ``std_mean`` / ``var_mean``, ``kthvalue``, ``msort``, ``cummax`` /
``cummin``, ``nanmedian``, ``quantile`` / ``nanquantile``, ``cov`` / ``corrcoef`` and ``isin``.

Their shapes are a reduction's (one dim dropped or kept as 1), the input's, or, for ``quantile``
with a vector of ``q``, the reduction's with ``len(q)`` in front."""

from __future__ import annotations

from ..dims import UNKNOWN, Unknown, as_int
from ..issue import Issue
from ..registry import Args, Outputs, Result, op
from ..shape import Shape, fmt_shape
from ._common import norm_axis
from .reduce import reduce_shape

_VI = ("values", "indices")


def _pair(result: Result, names: tuple[str, str]) -> Result:
    if isinstance(result, Outputs):
        return UNKNOWN
    if isinstance(result, (Issue, Unknown)):
        return result
    return Outputs((result, result), names)


for _name in ("std_mean", "var_mean"):
    def _moments(args: Args, _n: str = _name) -> Result:
        """(spread, mean): both the shape of ``var`` over ``dim``."""
        return _pair(reduce_shape(_n, args["input"], args["dim"], args["keepdim"]), (_n[:3], "mean"))

    op(_name, "input:tensor, dim:any=None, unbiased:any=None, keepdim:bool=False, *, correction:any=None",
       expose="tt", python="tt", tags=("reduction",), dtype_rule="float", returns="Any")(_moments)


def _along(name: str, x: Shape | Unknown, dim: object, keepdim: object) -> Result:
    """A one-dim reduction that keeps a 0-d input 0-d (kthvalue, cummax's checks, nanmedian)."""
    if isinstance(x, Shape) and x.is_fixed and not x.dims:
        d = as_int(dim)
        if d is not None and d not in (0, -1):
            return Issue("shape-axis", f"{name}: dim {d} is out of range for a 0-d tensor")
        return Shape(())
    return reduce_shape(name, x, dim, keepdim)


@op("kthvalue", "input:tensor, k:int, dim:int=-1, keepdim:bool=False", expose="tt method", python="tt method",
    tags=("reduction",), dtype_rule="same", returns="Any")
def kthvalue(args: Args) -> Result:
    """(values, indices) of the k-th smallest along ``dim``: that dim dropped (kept as 1)."""
    x, k = args["input"], as_int(args["k"])
    if isinstance(x, Shape) and x.is_fixed and k is not None:
        p = norm_axis("kthvalue", x, args["dim"]) if x.dims else 0
        if isinstance(p, Issue):
            return p
        n = as_int(x.dims[p]) if x.dims and p is not None else 1
        if n == 0 or (n is not None and not 1 <= k <= max(n, 1)):
            return Issue("shape-arg", f"kthvalue: k = {k} is out of range for dimension {p} of size {n}; shape "
                         f"{fmt_shape(x)}")
    return _pair(_along("kthvalue", x, args["dim"], args["keepdim"]), _VI)


@op("msort", "input:tensor", expose="tt method", python="tt method", tags=("movement",), dtype_rule="same",
    signature="(*s) -> (*s)")
def msort(args: Args) -> Result:
    """The input sorted along dim 0: its shape."""
    return args["input"]  # type: ignore[no-any-return]


for _name in ("cummax", "cummin"):
    def _cumulative(args: Args, _n: str = _name) -> Result:
        """(values, indices) of the running extreme along ``dim``: both the input's shape."""
        x = args["input"]
        if isinstance(x, Shape) and x.is_fixed:
            p = norm_axis(_n, x, args["dim"]) if x.dims else (0 if as_int(args["dim"]) in (0, -1) else None)
            if isinstance(p, Issue):
                return p
            if not x.dims and p is None and as_int(args["dim"]) is not None:
                return Issue("shape-axis", f"{_n}: dim {args['dim']} is out of range for a 0-d tensor")
        if isinstance(x, Unknown):
            return UNKNOWN
        return Outputs((x, x), _VI)

    op(_name, "input:tensor, dim:int", expose="tt method", python="tt method", tags=("reduction",),
       dtype_rule="same", returns="Any")(_cumulative)


@op("nanmedian", "input:tensor, dim:any=None, keepdim:bool=False", expose="tt method", python="tt method",
    tags=("reduction",), dtype_rule="same", returns="Any")
def nanmedian(args: Args) -> Result:
    """The median ignoring NaNs: one 0-d value without ``dim``, else (values, indices) over ``dim``."""
    x, dim = args["input"], args["dim"]
    if dim is None:
        return Shape(()) if not isinstance(x, Unknown) else UNKNOWN
    return _pair(_along("nanmedian", x, dim, args["keepdim"]), _VI)


for _name in ("quantile", "nanquantile"):
    def _quantile(args: Args, _n: str = _name) -> Result:
        """The reduction's shape over ``dim`` (all dims without one), with ``len(q)`` in front when
        ``q`` is a vector."""
        x, q, dim, keepdim = args["input"], args["q"], args["dim"], args["keepdim"]
        if isinstance(x, Unknown) or isinstance(q, Unknown):
            return UNKNOWN
        lead: tuple[object, ...] = ()
        if isinstance(q, Shape):
            if not q.is_fixed:
                return UNKNOWN
            if len(q.dims) > 1:
                return Issue("shape-rank", f"{_n}: q must be a scalar or 1D tensor, got {len(q.dims)}-d")
            lead = tuple(q.dims)
        if isinstance(x, Shape) and x.is_fixed and any(as_int(d) == 0 for d in x.dims):
            return Issue("shape-arg", f"{_n}: input tensor must be non-empty; shape {fmt_shape(x)}")
        if dim is None:
            if not isinstance(x, Shape) or not x.is_fixed:
                return UNKNOWN
            red = Shape((1,) * len(x.dims)) if keepdim else Shape(())
        else:
            r = _along(_n, x, dim, keepdim)
            if not isinstance(r, Shape):
                return r
            red = r
        if not red.is_fixed:
            return Shape((), red.star, red.suffix) if not lead else UNKNOWN
        return Shape((*lead, *red.dims))  # type: ignore[arg-type]

    op(_name, "input:tensor, q:any, dim:int=None, keepdim:bool=False, *, interpolation:str='linear'",
       expose="tt method", python="tt method", tags=("reduction",), dtype_rule="same")(_quantile)


@op("cov", "input:tensor, *, correction:int=1, fweights:tensor=None, aweights:tensor=None", expose="tt method",
    python="tt method", tags=("reduction",), dtype_rule="float", autocast="cpu=lower")  # its product, as torch
def cov(args: Args) -> Result:
    """Variables in rows, observations in columns: ``[v, v]`` (0-d for one variable)."""
    x = args["input"]
    if not isinstance(x, Shape) or not x.is_fixed:
        return UNKNOWN
    if len(x.dims) > 2:
        return Issue("shape-rank", f"cov: expected input to have two or fewer dimensions but got an input with "
                     f"{len(x.dims)} dimensions; shape {fmt_shape(x)}")
    for what in ("fweights", "aweights"):
        w = args[what]
        if isinstance(w, Shape) and w.is_fixed:
            n = x.dims[-1] if x.dims else 1
            if len(w.dims) > 1:
                return Issue("shape-rank", f"cov: expected {what} to have one or fewer dimensions; shape {fmt_shape(w)}")
            if len(w.dims) == 1 and as_int(w.dims[0]) is not None and as_int(n) is not None and \
                    as_int(w.dims[0]) != as_int(n):
                return Issue("shape-arg", f"cov: expected {what} to have the same numel as there are observations "
                             f"in the input ({n}), but got {w.dims[0]}")
    if len(x.dims) < 2 or as_int(x.dims[0]) == 1:
        return Shape(())
    return Shape((x.dims[0], x.dims[0]))


@op("corrcoef", "input:tensor", expose="tt method", python="tt method", tags=("reduction",), dtype_rule="float",
    autocast="cpu=lower")
def corrcoef(args: Args) -> Result:
    """Pearson correlation of the rows: ``[v, v]`` (0-d for one variable)."""
    x = args["input"]
    if not isinstance(x, Shape) or not x.is_fixed:
        return UNKNOWN
    if len(x.dims) > 2:
        return Issue("shape-rank", f"corrcoef: expected input to have two or fewer dimensions but got an input "
                     f"with {len(x.dims)} dimensions; shape {fmt_shape(x)}")
    if len(x.dims) < 2 or as_int(x.dims[0]) == 1:
        return Shape(())
    return Shape((x.dims[0], x.dims[0]))


@op("isin", "elements:any, test_elements:any, *, assume_unique:bool=False, invert:bool=False", expose="tt",
    python="tt", tags=("logical",), differentiable=False, gradient="boolean result", dtype_rule="bool")
def isin(args: Args) -> Result:
    """Whether each of ``elements`` occurs in ``test_elements``: the shape of ``elements``."""
    e = args["elements"]
    if isinstance(e, (Shape, Unknown)):
        return e
    return Shape(())
