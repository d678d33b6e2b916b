"""Tensor and top-level ops that training programs use, written in Python out of the backend's
primitives (``_runtime/surface_ops.py``): the ``addc*`` / ``add*mm`` family, ``clamp_min`` /
``clamp_max``, ``trace`` / ``diag``, ``tile`` / ``ravel`` / ``rot90`` / ``kron`` / ``diff`` /
``cross``, ``take`` / ``take_along_dim`` / ``index_fill`` / ``index_copy`` / ``masked_scatter``,
``repeat_interleave``, ``triu_indices`` / ``tril_indices``, ``meshgrid`` / ``cartesian_prod``, and
the value-dependent ones (``unique``, ``unique_consecutive``, ``bincount``, ``histc``,
``searchsorted``, ``bucketize``).

Rules that need every dim as a number (a shape that depends on more than broadcasting) answer
UNKNOWN for symbolic dims; those whose size depends on the values (``unique``, ``bincount``) give
an unknown dim."""

from __future__ import annotations

from typing import Any

from ..broadcast import broadcast_all, broadcast_shapes
from ..dims import UNKNOWN, Unknown, as_int, differs
from ..issue import Issue
from ..registry import Args, Outputs, Result, op
from ..shape import Shape, ShapeLike, fmt_shape
from ._common import is_scalar, norm_axis

_SAME = "(*s) -> (*s)"
_INT = "integer result"


def _ints(x: Any) -> tuple[int, ...] | None:
    """A fixed shape's dims as numbers, else None."""
    if not isinstance(x, Shape) or not x.is_fixed:
        return None
    dims = tuple(as_int(d) for d in x.dims)
    return None if any(d is None for d in dims) else dims  # type: ignore[return-value]


def _rank(name: str, x: ShapeLike, ranks: tuple[int, ...], what: str = "input") -> Issue | None:
    if isinstance(x, Shape) and x.is_fixed and len(x.dims) not in ranks:
        want = " or ".join(str(r) for r in ranks)
        return Issue("shape-rank", f"{name}: {what} must be {want}-d, got {len(x.dims)}-d; shape {fmt_shape(x)}")
    return None


# ---- pointwise ----


@op("addcdiv", "input:tensor, tensor1:tensor, tensor2:tensor, *, value:any=1", expose="tt method inplace",
    python="tt method inplace", tags=("elementwise",), autocast="cuda=promote")
def addcdiv(args: Args) -> Result:
    """``input + value * tensor1 / tensor2``: the three broadcast together."""
    return broadcast_all([args["input"], args["tensor1"], args["tensor2"]], "addcdiv")


for _name, _bound in (("clamp_min", "min"), ("clamp_max", "max")):
    def _clamp_side(args: Args, _b: str = _bound, _n: str = _name) -> Result:
        x, bound = args["input"], args[_b]
        if isinstance(bound, (Shape, Unknown)) and isinstance(x, (Shape, Unknown)):
            return broadcast_all([x, bound], _n)
        return x  # type: ignore[no-any-return]

    op(_name, f"input:tensor, {_bound}:any", expose="tt method inplace", python="tt method inplace",
       tags=("elementwise",))(_clamp_side)


# ---- linear algebra ----


@op("trace", "input:tensor", expose="tt method", python="tt method", tags=("linalg",), signature="(m, n) -> ()",
    autocast="cpu=float32")
def trace(args: Args) -> Result:
    """The sum of the main diagonal of a matrix: ``[]``."""
    return _rank("trace", args["input"], (2,)) or Shape(())


@op("diag", "input:tensor, diagonal:int=0", expose="tt method", python="tt method", tags=("linalg",))
def diag(args: Args) -> Result:
    """A vector ``[n]`` -> the ``[n + |k|, n + |k|]`` matrix with it on diagonal ``k``; a matrix
    ``[m, n]`` -> its diagonal ``k`` as a vector."""
    x, k = args["input"], as_int(args["diagonal"])
    bad = _rank("diag", x, (1, 2))
    if bad:
        return bad
    dims = _ints(x)
    if dims is None or k is None:
        return UNKNOWN
    if len(dims) == 1:
        return Shape((dims[0] + abs(k),) * 2)
    return Shape((max(0, min(dims[0] + min(k, 0), dims[1] - max(k, 0))),))


@op("diag_embed", "input:tensor, offset:int=0, dim1:int=-2, dim2:int=-1", expose="tt method", python="tt method",
    tags=("linalg",))
def diag_embed(args: Args) -> Result:
    """The last dim of ``input`` ``[*b, n]`` placed on diagonal ``offset`` of new dims ``dim1``,
    ``dim2`` (each ``n + |offset|``)."""
    dims, k = _ints(args["input"]), as_int(args["offset"])
    if dims is None or k is None:
        return UNKNOWN
    out_rank = len(dims) + 1
    d1, d2 = as_int(args["dim1"]), as_int(args["dim2"])
    if d1 is None or d2 is None:
        return UNKNOWN
    if not (-out_rank <= d1 < out_rank and -out_rank <= d2 < out_rank):
        return Issue("shape-axis", f"diag_embed: dim1={d1}, dim2={d2} out of range for a {out_rank}-d result")
    d1, d2 = d1 % out_rank, d2 % out_rank
    if d1 == d2:
        return Issue("shape-axis", f"diag_embed: dim1 and dim2 are the same dim {d1}")
    if not dims:
        return Issue("shape-rank", "diag_embed: input needs at least 1 dim")
    n = dims[-1] + abs(k)
    rest = list(dims[:-1])
    out: list[int] = []
    for i in range(out_rank):
        out.append(n if i in (d1, d2) else rest.pop(0))
    return Shape(tuple(out))


def _addmm_like(name: str, sig: str, first: str, second: str, ranks: tuple[int, int]) -> None:
    def rule(args: Args) -> Result:
        a, b = args[first], args[second]
        for what, x, r in ((first, a, ranks[0]), (second, b, ranks[1])):
            bad = _rank(name, x, (r,), what)
            if bad:
                return bad
        da, db = _ints(a), _ints(b)
        if da is None or db is None:
            return UNKNOWN
        inner_a, inner_b = da[-1], db[0] if ranks[1] == 1 else db[-2]
        if inner_a != inner_b:
            return Issue("shape-matmul", f"{name}: inner dimensions differ: {inner_a} vs {inner_b}; shapes "
                         f"{fmt_shape(a)}, {fmt_shape(b)}")
        if ranks[0] == 3 and da[0] != db[0]:
            return Issue("shape-matmul", f"{name}: batch sizes differ: {da[0]} vs {db[0]}")
        product = Shape((*da[:-1], db[-1]) if ranks[1] != 1 else da[:-1])
        x = args["input"]
        if isinstance(x, Unknown):
            return product
        merged = broadcast_shapes(x, product, name)
        if isinstance(merged, Shape) and merged.is_fixed and _ints(merged) != _ints(product):
            return Issue("shape-broadcast", f"{name}: input {fmt_shape(x)} does not broadcast to the product's "
                         f"shape {fmt_shape(product)}")
        return merged if isinstance(merged, Issue) else product

    op(name, f"input:tensor, {first}:tensor, {second}:tensor, *, beta:any=1, alpha:any=1",
       expose="tt method inplace", python="tt method inplace", tags=("linalg",), signature=sig,
       autocast="cuda=lower" if name == "addmv" else "lower")(rule)


_addmm_like("addmm", "(m, n), (m, k), (k, n) -> (m, n)", "mat1", "mat2", (2, 2))
_addmm_like("addmv", "(m), (m, k), (k) -> (m)", "mat", "vec", (2, 1))
_addmm_like("baddbmm", "(b, m, n), (b, m, k), (b, k, n) -> (b, m, n)", "batch1", "batch2", (3, 3))


@op("kron", "input:tensor, other:tensor", expose="tt method", python="tt method", tags=("linalg",))
def kron(args: Args) -> Result:
    """The Kronecker product: ranks padded with leading 1s, then each dim the product."""
    a, b = _ints(args["input"]), _ints(args["other"])
    if a is None or b is None:
        return UNKNOWN
    n = max(len(a), len(b))
    a, b = (1,) * (n - len(a)) + a, (1,) * (n - len(b)) + b
    return Shape(tuple(x * y for x, y in zip(a, b, strict=True)))


@op("cross", "input:tensor, other:tensor, dim:int=None", expose="tt method", python="tt method", tags=("linalg",),
    autocast="cuda=promote")
def cross(args: Args) -> Result:
    """The cross product of 3-vectors along ``dim`` (default: the first dim of size 3; torch
    warns that the default will become -1)."""
    x, y = args["input"], args["other"]
    if not isinstance(x, Shape) or not isinstance(y, Shape):
        return UNKNOWN
    if x.is_fixed and y.is_fixed and len(x.dims) != len(y.dims):
        return Issue("shape-rank", f"cross: inputs must have the same number of dims, got {fmt_shape(x)} and "
                     f"{fmt_shape(y)}")
    out = broadcast_shapes(x, y, "cross")
    dims = _ints(out)
    if dims is None or not isinstance(out, Shape):
        return out
    d = as_int(args["dim"]) if args["dim"] is not None else next((i for i, s in enumerate(dims) if s == 3), None)
    if d is None:
        return Issue("shape-arg", f"cross: no dim of size 3 in {fmt_shape(out)}")
    p = norm_axis("cross", out, d)
    if isinstance(p, Issue):
        return p
    if p is not None and dims[p] != 3:
        return Issue("shape-arg", f"cross: dim {d} must have size 3, got {dims[p]}; shape {fmt_shape(out)}")
    return out


# ---- movement ----


@op("tile", "input:tensor, dims:sizes", expose="tt method", python="tt method", tags=("movement",))
def tile(args: Args) -> Result:
    """``repeat`` with ``dims`` padded with leading 1s to the input's rank."""
    x, reps = _ints(args["input"]), args["dims"]
    reps = tuple(as_int(r) for r in (reps if isinstance(reps, (tuple, list)) else (reps,)))
    if x is None or any(r is None for r in reps):
        return UNKNOWN
    if any(r < 0 for r in reps if r is not None):
        return Issue("shape-arg", f"tile: negative repeats {reps}")
    n = max(len(x), len(reps))
    xs, rs = (1,) * (n - len(x)) + x, (1,) * (n - len(reps)) + reps
    return Shape(tuple(a * r for a, r in zip(xs, rs, strict=True) if r is not None))


@op("ravel", "input:tensor", expose="tt method", python="tt method", tags=("movement",))
def ravel(args: Args) -> Result:
    """The elements as one dim."""
    x = _ints(args["input"])
    if x is None:
        return Shape((UNKNOWN,))
    total = 1
    for d in x:
        total *= d
    return Shape((total,))


@op("rot90", "input:tensor, k:int=1, dims:any=None", expose="tt method", python="tt method", tags=("movement",))
def rot90(args: Args) -> Result:
    """Rotate by ``k`` quarter turns in the plane ``dims``: odd ``k`` swaps the two dims."""
    x, k, dims = args["input"], as_int(args["k"]), args["dims"]
    dims = (0, 1) if dims is None else tuple(dims)  # torch's default plane
    if not isinstance(x, Shape) or not x.is_fixed or k is None:
        return UNKNOWN
    if len(dims) != 2:
        return Issue("shape-arg", f"rot90: expected 2 dims, got {len(dims)}")
    if len(x.dims) < 2:
        return Issue("shape-rank", f"rot90: needs at least 2 dims, got {len(x.dims)}; shape {fmt_shape(x)}")
    a, b = norm_axis("rot90", x, dims[0]), norm_axis("rot90", x, dims[1])
    if isinstance(a, Issue):
        return a
    if isinstance(b, Issue):
        return b
    if a is None or b is None:
        return UNKNOWN
    if a == b:
        return Issue("shape-axis", f"rot90: the two dims are the same dim {a}")
    out = list(x.dims)
    if k % 2:
        out[a], out[b] = out[b], out[a]
    return Shape(tuple(out))


@op("diff", "input:tensor, n:int=1, dim:int=-1, prepend:tensor=None, append:tensor=None", expose="tt method",
    python="tt method", tags=("movement",))
def diff(args: Args) -> Result:
    """The ``n``-th forward difference along ``dim``, after ``prepend`` / ``append`` are joined
    there: that dim shrinks by ``n`` (not below 0)."""
    x, n = args["input"], as_int(args["n"])
    dims = _ints(x)
    if dims is None or n is None:
        return UNKNOWN
    if not dims:
        return Issue("shape-rank", "diff: expects input to be at least one-dimensional")
    if n < 0:
        return Issue("shape-arg", f"diff: order must be non-negative but got {n}")
    if n == 0:
        return x  # type: ignore[no-any-return]  # torch returns the input as it is (prepend/append unused)
    p = norm_axis("diff", x, args["dim"])
    if not isinstance(p, int):
        return p if isinstance(p, Issue) else UNKNOWN
    size = dims[p]
    for what in ("prepend", "append"):
        extra = args[what]
        if extra is None:
            continue
        e = _ints(extra)
        if e is None:
            return UNKNOWN
        if len(e) != len(dims) or any(a != b for i, (a, b) in enumerate(zip(e, dims, strict=True)) if i != p):
            return Issue("shape-arg", f"diff: {what} {fmt_shape(extra)} must match the input {fmt_shape(x)} "
                         f"except along dim {p}")
        size += e[p]
    out = list(dims)
    out[p] = max(0, size - n)
    return Shape(tuple(out))


# ---- indexing ----


@op("take", "input:tensor, index:tensor", expose="tt method", python="tt method", tags=("indexing",))
def take(args: Args) -> Result:
    """The input read as one dim at ``index``: the index's shape."""
    return args["index"]  # type: ignore[no-any-return]


@op("take_along_dim", "input:tensor, indices:tensor, dim:int=None", expose="tt method", python="tt method",
    tags=("indexing",))
def take_along_dim(args: Args) -> Result:
    """``gather`` along ``dim`` after the input and the indices broadcast (all but ``dim``); with
    no ``dim``, ``take`` of the flattened input."""
    x, idx, d = args["input"], args["indices"], args["dim"]
    if d is None:
        dims = _ints(idx)
        return Shape((_prod(dims) if dims is not None else UNKNOWN,))
    a, b = _ints(x), _ints(idx)
    if a is None or b is None:
        return UNKNOWN
    if len(a) != len(b):
        return Issue("shape-rank", f"take_along_dim: input and indices should have the same number of dims, got "
                     f"{len(a)} and {len(b)}")
    p = norm_axis("take_along_dim", x, d)
    if not isinstance(p, int):
        return p if isinstance(p, Issue) else UNKNOWN
    out = []
    for i, (u, v) in enumerate(zip(a, b, strict=True)):
        if i == p:
            out.append(v)
        elif u == v or u == 1 or v == 1:
            out.append(max(u, v) if min(u, v) != 0 else 0)
        else:
            return Issue("shape-broadcast", f"take_along_dim: input {fmt_shape(x)} and indices {fmt_shape(idx)} do not "
                         f"broadcast outside dim {p}")
    return Shape(tuple(out))


def _prod(dims: tuple[int, ...]) -> int:
    total = 1
    for d in dims:
        total *= d
    return total


def _index_dim(name: str, args: Args, source: str | None) -> Result:
    x, idx = args["input"], args["index"]
    if not isinstance(x, Shape) or not x.is_fixed:
        return x  # type: ignore[no-any-return]
    p = norm_axis(name, x, args["dim"]) if x.dims else (0 if as_int(args["dim"]) in (0, -1) else None)
    if isinstance(p, Issue):
        return p
    i = _ints(idx)
    if i is not None and len(i) > 1:
        return Issue("shape-rank", f"{name}: index must be 0-d or 1-d, got {fmt_shape(idx)}")
    if source is not None and p is not None and x.dims:
        s = _ints(args[source])
        xd = _ints(x)
        if s is not None and xd is not None and i is not None:
            n = i[0] if i else 1
            want = tuple(n if j == p else d for j, d in enumerate(xd))
            if s != want and not (len(s) == 0 and n == 1):
                return Issue("shape-arg", f"{name}: source {fmt_shape(args[source])} must be the input's shape "
                             f"with dim {p} the index's length {n}")
    return x


op("index_fill", "input:tensor, dim:int, index:tensor, value:any", expose="tt method inplace",
   python="tt method inplace", tags=("indexing",), signature=_SAME)(lambda args: _index_dim("index_fill", args, None))
op("index_copy", "input:tensor, dim:int, index:tensor, source:tensor", expose="tt method inplace",
   python="tt method inplace", tags=("indexing",), signature=_SAME, autocast="promote")(
    lambda args: _index_dim("index_copy", args, "source"))


@op("masked_scatter", "input:tensor, mask:tensor, source:tensor", expose="tt method inplace",
    python="tt method inplace", tags=("indexing",))
def masked_scatter(args: Args) -> Result:
    """The input and the mask broadcast; the source gives as many values as the mask selects."""
    return broadcast_all([args["input"], args["mask"]], "masked_scatter")


@op("repeat_interleave", "input:tensor, repeats:any=None, dim:int=None, *, output_size:int=None", expose="tt method",
    python="tt method", tags=("movement",))
def repeat_interleave(args: Args) -> Result:
    """Each element (or slice along ``dim``) repeated: a number of times known statically when
    ``repeats`` is a number, else as many as the repeats tensor sums to."""
    x, reps, d = args["input"], args["repeats"], args["dim"]
    dims = _ints(x)
    if dims is None:
        return UNKNOWN
    r = as_int(reps) if is_scalar(reps) else None
    if d is None:
        return Shape((_prod(dims) * r if r is not None else as_int(args["output_size"]) or UNKNOWN,))
    if not dims:
        return Issue("shape-axis", f"repeat_interleave: dim {d} given for a 0-d input")
    p = norm_axis("repeat_interleave", x, d)
    if not isinstance(p, int):
        return p if isinstance(p, Issue) else UNKNOWN
    out: list[Any] = list(dims)
    out[p] = dims[p] * r if r is not None else (as_int(args["output_size"]) or UNKNOWN)
    return Shape(tuple(out))


def _tri_indices(name: str) -> None:
    def rule(args: Args) -> Result:
        row, col, k = as_int(args["row"]), as_int(args["col"]), as_int(args["offset"])
        if row is None or col is None or k is None:
            return Shape((2, UNKNOWN))
        if row < 0 or col < 0:
            return Issue("shape-arg", f"{name}: row and col must be non-negative, got {row}, {col}")
        upper = name == "triu_indices"
        count = sum(1 for i in range(row) for j in range(col) if (j - i >= k if upper else j - i <= k))
        return Shape((2, count))

    op(name, "row:int, col:int, offset:int=0, *, dtype:dtype=None, device:any=None", expose="tt", python="tt",
       tags=("creation",), differentiable=False, gradient=_INT, dtype_rule="int64")(rule)


_tri_indices("triu_indices")
_tri_indices("tril_indices")


@op("meshgrid", "*tensors:tensor, indexing:str=None", expose="tt", python="tt", tags=("creation",))
def meshgrid(args: Args) -> Result:
    """One ``[n1, ..., nk]`` grid per 1-d input (``indexing="xy"`` swaps the first two)."""
    ts = args["tensors"]
    if len(ts) == 1 and isinstance(ts[0], (list, tuple)):
        ts = ts[0]
    sizes = []
    for t in ts:
        d = _ints(t)
        if d is None:
            return UNKNOWN
        if len(d) > 1:
            return Issue("shape-rank", f"meshgrid: expects 0-d or 1-d tensors, got {fmt_shape(t)}")
        sizes.append(d[0] if d else 1)
    if not sizes:
        return Issue("shape-arg", "meshgrid: expects a non-empty list of tensors")
    if args["indexing"] == "xy" and len(sizes) >= 2:
        sizes[0], sizes[1] = sizes[1], sizes[0]
    return Outputs(tuple(Shape(tuple(sizes)) for _ in ts))


@op("cartesian_prod", "*tensors:tensor", expose="tt", python="tt", tags=("creation",))
def cartesian_prod(args: Args) -> Result:
    """Every combination of the 1-d inputs' elements: ``[n1 * ... * nk, k]`` (one input: itself)."""
    ts = args["tensors"]
    sizes = []
    for t in ts:
        d = _ints(t)
        if d is None:
            return UNKNOWN
        if len(d) != 1:
            return Issue("shape-rank", f"cartesian_prod: expects 1-d tensors, got {fmt_shape(t)}")
        sizes.append(d[0])
    if len(sizes) == 1:
        return Shape((sizes[0],))
    return Shape((_prod(tuple(sizes)), len(sizes)))


# ---- value-dependent sizes ----


@op("unique", "input:tensor, sorted:bool=True, return_inverse:bool=False, return_counts:bool=False, dim:int=None",
    expose="tt method", python="tt method", tags=("indexing",), differentiable=False,
    gradient="torch defines no gradient for unique", cuda="host")
def unique(args: Args) -> Result:
    """The distinct values (or slices along ``dim``): that dim's size depends on the values;
    ``return_inverse`` adds the input's shape (or ``[size of dim]``), ``return_counts`` one count
    per distinct value."""
    return _unique_shapes("unique", args)


@op("unique_consecutive", "input:tensor, return_inverse:bool=False, return_counts:bool=False, dim:int=None",
    expose="tt method", python="tt method", tags=("indexing",), differentiable=False,
    gradient="torch defines no gradient for unique_consecutive", cuda="host")
def unique_consecutive(args: Args) -> Result:
    """As ``unique``, for runs of equal neighbours."""
    return _unique_shapes("unique_consecutive", args)


def _unique_shapes(name: str, args: Args) -> Result:
    x, d = args["input"], args["dim"]
    if not isinstance(x, Shape):
        return UNKNOWN
    if d is None:
        values: ShapeLike = Shape((UNKNOWN,))
        inverse: ShapeLike = x
    else:
        if not x.is_fixed:
            return UNKNOWN
        p = norm_axis(name, x, d)
        if not isinstance(p, int):
            return p if isinstance(p, Issue) else UNKNOWN
        values = Shape(tuple(UNKNOWN if i == p else s for i, s in enumerate(x.dims)))
        inverse = Shape((x.dims[p],))
    out: list[ShapeLike] = [values]
    if args["return_inverse"]:
        out.append(inverse)
    if args["return_counts"]:
        out.append(Shape((UNKNOWN,)))
    return out[0] if len(out) == 1 else Outputs(tuple(out))


@op("bincount", "input:tensor, weights:tensor=None, minlength:int=0", expose="tt method", python="tt method",
    tags=("reduction",), differentiable=False, gradient="counts of integer values", cuda="host")
def bincount(args: Args) -> Result:
    """Counts of each value of a 1-d non-negative integer tensor: ``[max(max + 1, minlength)]``."""
    x, w = args["input"], args["weights"]
    bad = _rank("bincount", x, (1,))
    if bad:
        return bad
    if isinstance(w, Shape) and isinstance(x, Shape) and x.is_fixed and w.is_fixed and (
            len(w.dims) != 1 or differs(w.dims[0], x.dims[0])):
        return Issue("shape-arg", f"bincount: weights {fmt_shape(w)} must have the input's shape {fmt_shape(x)}")
    return Shape((UNKNOWN,))


@op("histc", "input:tensor, bins:int=100, min:any=0, max:any=0", expose="tt method", python="tt method",
    tags=("reduction",), differentiable=False, gradient="counts", cuda="host")
def histc(args: Args) -> Result:
    """A histogram with ``bins`` equal bins: ``[bins]``."""
    bins = as_int(args["bins"])
    if bins is not None and bins <= 0:
        return Issue("shape-arg", f"histc: bins must be > 0, but got {bins}")
    return Shape((bins if bins is not None else UNKNOWN,))


@op("searchsorted", "sorted_sequence:tensor, input:any, *, out_int32:bool=False, right:bool=False, side:str=None, "
    "sorter:tensor=None", expose="tt", python="tt", tags=("indexing",), differentiable=False, gradient=_INT,
    dtype_rule="int64", cuda="host")
def searchsorted(args: Args) -> Result:
    """Where each value would go in the sorted last dim: the values' shape (the leading dims of a
    multi-dim sequence must be the values')."""
    seq, x = args["sorted_sequence"], args["input"]
    if not isinstance(x, Shape):
        return Shape(()) if is_scalar(x) else UNKNOWN
    s, v = _ints(seq), _ints(x)
    if s is not None and v is not None and len(s) > 1 and (len(s) != len(v) or s[:-1] != v[:-1]):
        return Issue("shape-arg", f"searchsorted: boundaries {fmt_shape(seq)} and input {fmt_shape(x)} must have "
                     "the same leading dims (or the boundaries 1-d)")
    return x


@op("bucketize", "input:any, boundaries:tensor, *, out_int32:bool=False, right:bool=False", expose="tt method",
    python="tt method", tags=("indexing",), differentiable=False, gradient=_INT, dtype_rule="int64", cuda="host")
def bucketize(args: Args) -> Result:
    """The bucket of each value among the 1-d ``boundaries``: the values' shape."""
    bad = _rank("bucketize", args["boundaries"], (1,), "boundaries")
    if bad:
        return bad
    x = args["input"]
    return x if isinstance(x, (Shape, Unknown)) else Shape(())



# ---- nn.functional ----


def _channel_dropout(name: str, ranks: tuple[int, ...]) -> None:
    def rule(args: Args) -> Result:
        x: ShapeLike = args["input"]
        if isinstance(x, Shape) and x.is_fixed and len(x.dims) not in ranks:
            return Issue("shape-rank", f"{name}: expected {' or '.join(map(str, ranks))}-d input, got "
                         f"{len(x.dims)}-d; shape {fmt_shape(x)}")
        return x

    op(name, "input:tensor, p:float=0.5, training:bool=True, inplace:bool=False", expose="F", python="F",
       tags=("nn", "random"), signature=_SAME)(rule)


_channel_dropout("dropout1d", (2, 3))
_channel_dropout("dropout3d", tuple(range(1, 65)))  # torch warns for ranks other than 4 and 5
