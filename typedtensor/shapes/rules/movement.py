"""Movement ops: reshape/view, flatten, transpose/permute, squeeze/unsqueeze, expand/repeat,
cat/stack, split/chunk, flip/roll/narrow, tril/triu, gather/scatter/index_select."""

from __future__ import annotations

from typing import Any

from ..broadcast import broadcast_dim
from ..dims import (
    UNKNOWN,
    DimExpr,
    Poly,
    Unknown,
    as_int,
    d_add,
    d_ceildiv,
    d_exact_div,
    d_floordiv,
    d_mul,
    d_prod,
    d_sub,
    differs,
    fmt_dim,
    is_literal,
)
from ..issue import Issue
from ..registry import Args, Outputs, Result, Rule, module, op
from ..shape import Shape, ShapeLike, Star, fmt_shape
from ._common import dim_at, dim_position, fmt_dims, insert, need_rank, norm_axis, replace
from ._provable import counts_differ, sizes_differ, solve_hole


def _sizes(value: Any) -> tuple[Any, ...] | Unknown:
    if isinstance(value, Unknown):
        return UNKNOWN
    if isinstance(value, (tuple, list)) and len(value) == 1 and isinstance(value[0], (tuple, list, Unknown)):
        return UNKNOWN if isinstance(value[0], Unknown) else tuple(value[0])
    if isinstance(value, (tuple, list)):
        return tuple(value)
    return (value,)


def reshape_shape(name: str, x: ShapeLike, sizes: Any) -> Result:
    """Check that the element count is preserved; infer one ``-1``."""
    new = _sizes(sizes)
    if isinstance(new, Unknown):
        return UNKNOWN
    holes = [i for i, d in enumerate(new) if as_int(d) == -1]
    if len(holes) > 1:
        return Issue("shape-reshape", f"{name}: only one dimension can be inferred (-1); sizes {fmt_dims(new)}")
    for d in new:
        v = as_int(d)
        if v is not None and v < -1:
            return Issue("shape-reshape", f"{name}: invalid size {v}; sizes {fmt_dims(new)}")
    if isinstance(x, Unknown) or not x.is_fixed:
        return Shape(tuple(UNKNOWN if i in holes else d for i, d in enumerate(new)))
    old_count = d_prod(x.dims)
    known = d_prod([d for i, d in enumerate(new) if i not in holes])

    def shown() -> str:
        return f"shape {fmt_shape(x)} ({fmt_dim(old_count)} elements) -> {fmt_dims(new)}"

    if holes:
        inferred = solve_hole(old_count, known)  # NOTE [ Provable facts ]
        if inferred is None:
            return Issue("shape-reshape", f"{name}: {fmt_dim(old_count)} elements are not divisible by {fmt_dim(known)}; {shown()}")
        out = list(new)
        out[holes[0]] = inferred
        return Shape(tuple(out))
    if counts_differ(old_count, known):  # NOTE [ Provable facts ]
        return Issue("shape-reshape", f"{name}: the number of elements changes from {fmt_dim(old_count)} to {fmt_dim(known)}; {shown()}")
    return Shape(tuple(new))


def _reshape_rule(name: str) -> Rule:
    def rule(args: Args) -> Result:
        return reshape_shape(name, args["input"], args["shape"])

    return rule


for _name in ("reshape", "view"):
    op(_name, "input:tensor, *shape:sizes", expose="tt method" if _name == "reshape" else "method",
       function="input:tensor, shape:sizes", tags=("view", "movement"), graph=_name == "reshape",
       prim="View" if _name == "reshape" else None,
       overloads=("(input: _AnyTensor, shape: tuple[Unpack[_Bs]]) -> Tensor[Unpack[_Bs]]",
                  "(input: _AnyTensor, shape: Sequence[_int]) -> _AnyTensor"),
       method_overloads=("(self, shape: tuple[Unpack[_Bs]], /) -> Tensor[Unpack[_Bs]]",
                         "(self, *shape: Unpack[_Bs]) -> Tensor[Unpack[_Bs]]"))(_reshape_rule(_name))


@op("reshape_as", "input:tensor, other:tensor, /", expose="method", tags=("view", "movement"), aliases=("view_as",))
def reshape_as(args: Args) -> Result:
    other = args["other"]
    if isinstance(other, Unknown) or not other.is_fixed:
        return UNKNOWN
    return reshape_shape("reshape_as", args["input"], other.dims)


@op("flatten", "input:tensor, start_dim:int=0, end_dim:int=-1", cpp_fn="Tensor", expose="tt method", tags=("view", "movement"))
def flatten(args: Args) -> Result:
    """Merge dims ``start_dim..end_dim`` into their product."""
    x: ShapeLike = args["input"]
    if isinstance(x, Unknown) or not x.is_fixed:
        return UNKNOWN
    s = norm_axis("flatten", x, args["start_dim"])
    e = norm_axis("flatten", x, args["end_dim"])
    for p in (s, e):
        if isinstance(p, Issue):
            return p
    if len(x.dims) == 0:
        return Shape((1,))
    if s is None or e is None:
        return UNKNOWN
    assert isinstance(s, int) and isinstance(e, int)
    if s > e:
        return Issue("shape-axis", f"flatten: start_dim {s} comes after end_dim {e}; shape {fmt_shape(x)}")
    return Shape((*x.dims[:s], d_prod(x.dims[s:e + 1]), *x.dims[e + 1:]))


@op("unflatten", "input:tensor, dim:int, sizes:sizes", cpp_fn="Tensor(const Tensor&, int64_t, const Shape&)", expose="tt method", tags=("view", "movement"))
def unflatten(args: Args) -> Result:
    x: ShapeLike = args["input"]
    sizes = _sizes(args["sizes"])
    if isinstance(x, Unknown) or isinstance(sizes, Unknown):
        return UNKNOWN
    p = dim_position("unflatten", x, args["dim"])
    if not isinstance(p, int) or isinstance(p, bool):
        return p if isinstance(p, Issue) else UNKNOWN
    if not sizes:
        return Issue("shape-reshape", f"unflatten: sizes must be non-empty; shape {fmt_shape(x)}")
    piece = reshape_shape("unflatten", Shape((dim_at(x, p),)), sizes)
    if not isinstance(piece, Shape):
        return piece
    return replace(x, p, piece.dims)


@op("transpose", "input:tensor, dim0:int, dim1:int", cpp_fn="Tensor", expose="tt method inplace", tags=("view", "movement"),
    aliases=("swapdims",), alias_expose={"swapdims": "tt method"})
def transpose(args: Args) -> Result:
    """Swap two dims."""
    x: ShapeLike = args["input"]
    if isinstance(x, Unknown):
        return UNKNOWN
    a = norm_axis("transpose", x, args["dim0"])
    b = norm_axis("transpose", x, args["dim1"])
    for p in (a, b):
        if isinstance(p, Issue):
            return p
    if x.is_fixed and not x.dims:
        return x  # torch: a 0-d tensor transposes (dims 0/-1) to itself
    if a is None or b is None:
        return UNKNOWN if x.is_fixed else Shape((), Star(None), ())
    assert isinstance(a, int) and isinstance(b, int)
    da, db = dim_at(x, a), dim_at(x, b)
    return replace(replace(x, a, (db,)), b, (da,))


@op("swapaxes", "input:tensor, axis0:int, axis1:int", expose="tt method", tags=("view", "movement"))
def swapaxes(args: Args) -> Result:
    """``transpose`` under numpy's names for the two dims (torch's ``swapaxes``)."""
    return transpose({"input": args["input"], "dim0": args["axis0"], "dim1": args["axis1"]})


@op("permute", "input:tensor, *dims:ints", expose="tt method", function="input:tensor, dims:ints",
    tags=("view", "movement"), graph=True, prim="View", onnx="Transpose(perm=ints:dims)")
def permute(args: Args) -> Result:
    """Reorder all dims; ``dims`` must be a permutation of ``range(rank)``."""
    x: ShapeLike = args["input"]
    dims = _sizes(args["dims"])
    if isinstance(x, Unknown) or isinstance(dims, Unknown) or not x.is_fixed:
        return UNKNOWN
    if len(dims) != len(x.dims):
        return Issue("shape-axis", f"permute: {len(dims)} dims given for a tensor of rank {len(x.dims)}; shape {fmt_shape(x)}")
    pos: list[int] = []
    for d in dims:
        p = norm_axis("permute", x, d)
        if isinstance(p, Issue):
            return p
        if p is None:
            return UNKNOWN
        pos.append(p)
    if len(set(pos)) != len(pos):
        return Issue("shape-axis", f"permute: repeated dim in {tuple(dims)}; shape {fmt_shape(x)}")
    return Shape(tuple(x.dims[p] for p in pos))


@op("movedim", "input:tensor, source:any, destination:any", cpp_fn="Tensor(const Tensor&, const Dims&, const Dims&)", expose="tt method", tags=("view", "movement"),
    aliases=("moveaxis",))
def movedim(args: Args) -> Result:
    x: ShapeLike = args["input"]
    if isinstance(x, Unknown) or not x.is_fixed:
        return UNKNOWN
    src = _sizes(args["source"])
    dst = _sizes(args["destination"])
    if isinstance(src, Unknown) or isinstance(dst, Unknown) or len(src) != len(dst):
        return UNKNOWN
    ps, pd = [], []
    for a in src:
        p = norm_axis("movedim", x, a)
        if not isinstance(p, int):
            return p if isinstance(p, Issue) else UNKNOWN
        ps.append(p)
    for a in dst:
        p = norm_axis("movedim", x, a)
        if not isinstance(p, int):
            return p if isinstance(p, Issue) else UNKNOWN
        pd.append(p)
    for what, got in (("source", ps), ("destination", pd)):
        if len(set(got)) != len(got):
            return Issue("shape-axis", f"movedim: repeated dim in {what} {tuple(got)}; shape {fmt_shape(x)}")
    n = len(x.dims)
    if n == 0:
        return x
    order: list[int | None] = [None] * n
    for s, d in zip(ps, pd, strict=False):
        order[d] = s
    rest = iter(i for i in range(n) if i not in ps)
    return Shape(tuple(x.dims[o if o is not None else next(rest)] for o in order))


def _transpose_last(name: str) -> Any:
    def rule(args: Args) -> Result:
        x: ShapeLike = args["input"]
        if isinstance(x, Unknown):
            return UNKNOWN
        if (name == "T" and x.is_fixed) or (x.is_fixed and not x.dims):
            return Shape(tuple(reversed(x.dims)))  # torch lets a 0-d tensor's .mT be itself
        if len(x.tail) < 2:
            if x.is_fixed:
                return Issue("shape-rank", f"{name}: needs at least 2 dims; shape {fmt_shape(x)}")
            return UNKNOWN
        return x.with_tail((*x.tail[:-2], x.tail[-1], x.tail[-2]))

    return rule


op("T", "input:tensor", expose="property", tags=("view", "movement"))(_transpose_last("T"))
op("mT", "input:tensor", expose="property", tags=("view", "movement"))(_transpose_last("mT"))


@op("unsqueeze", "input:tensor, dim:int", cpp_fn="Tensor", expose="tt method inplace", tags=("view", "movement"))
def unsqueeze(args: Args) -> Result:
    """Insert a dim of size 1; ``dim`` ranges over ``rank + 1`` positions."""
    x: ShapeLike = args["input"]
    if isinstance(x, Unknown):
        return UNKNOWN
    p = norm_axis("unsqueeze", x, args["dim"], extra=1)
    if isinstance(p, Issue):
        return p
    if p is None:
        return UNKNOWN
    return insert(x, p, (1,))


@op("squeeze", "input:tensor, dim:any=None", cpp_fn="Tensor(const Tensor&, const OptDims&)", expose="tt method inplace", tags=("view", "movement"))
def squeeze(args: Args) -> Result:
    """Drop size-1 dims (all, or the given ones when they are 1)."""
    x: ShapeLike = args["input"]
    dim = args["dim"]
    if isinstance(x, Unknown) or not x.is_fixed:
        return UNKNOWN
    if dim is None:
        if any(isinstance(d, Unknown) for d in x.dims):
            return UNKNOWN
        return Shape(tuple(d for d in x.dims if d != 1))
    axes = _sizes(dim)
    if isinstance(axes, Unknown):
        return UNKNOWN
    drop: set[int] = set()
    kept: set[int] = set()
    for a in axes:
        p = norm_axis("squeeze", x, a)
        if isinstance(p, Issue):
            return p
        if p is None:
            return UNKNOWN
        if p in drop or p in kept:
            return Issue("shape-axis", f"squeeze: dim {a} appears more than once; shape {fmt_shape(x)}")
        kept.add(p)
        if not x.dims:
            continue  # a 0-d tensor squeezes (dim 0/-1) to itself
        if x.dims[p] == 1:
            drop.add(p)
        elif isinstance(x.dims[p], Unknown):
            return UNKNOWN
    return Shape(tuple(d for i, d in enumerate(x.dims) if i not in drop))


@op("expand", "input:tensor, *size:sizes", expose="method", tags=("view", "movement"), graph=True, prim="View",
    method_overloads=("(self, size: tuple[Unpack[_Bs]], /) -> Tensor[Unpack[_Bs]]",
                      "(self, *size: Unpack[_Bs]) -> Tensor[Unpack[_Bs]]"))
def expand(args: Args) -> Result:
    """Broadcast to ``size``; ``-1`` keeps a dim; only size-1 dims may grow."""
    x: ShapeLike = args["input"]
    size = _sizes(args["size"])
    if isinstance(x, Unknown) or isinstance(size, Unknown) or not x.is_fixed:
        return UNKNOWN
    if len(size) < len(x.dims):
        return Issue("shape-rank", f"expand: {len(size)} sizes for a tensor of rank {len(x.dims)}; shape {fmt_shape(x)}")
    lead = len(size) - len(x.dims)
    for i, want in enumerate(size):
        v = as_int(want)
        if v is not None and (v < -1 or (v == -1 and i < lead)):
            where = "a new leading dim" if i < lead else f"dim {i}"
            return Issue("shape-broadcast", f"expand: size {v} is not allowed for {where}; shape {fmt_shape(x)} -> {fmt_dims(size)}")
    out: list[DimExpr] = list(size[:lead])
    for i, d in enumerate(x.dims):
        want = size[lead + i]
        if as_int(want) == -1:
            out.append(d)
            continue
        if d == 1 or not differs(d, want):
            out.append(want)
            continue
        if not sizes_differ(d, want):
            out.append(d)  # a literal size against a named one: the tensor's own (NOTE [ Provable facts ])
            continue
        return Issue(
            "shape-broadcast",
            f"expand: dim {i} is {fmt_dim(d)} and cannot expand to {fmt_dim(want)}; shape {fmt_shape(x)} -> {fmt_dims(size)}",
        )
    return Shape(tuple(out))


@op("expand_as", "input:tensor, other:tensor, /", expose="method", tags=("view", "movement"))
def expand_as(args: Args) -> Result:
    other = args["other"]
    if isinstance(other, Unknown) or not other.is_fixed:
        return UNKNOWN
    return expand({"input": args["input"], "size": other.dims})


@op("broadcast_to", "input:tensor, size:sizes", expose="tt method", tags=("view", "movement"))
def broadcast_to(args: Args) -> Result:
    return expand({"input": args["input"], "size": args["size"]})


@op("repeat", "input:tensor, *repeats:sizes", expose="method", tags=("movement",), graph=True, prim="Other")
def repeat(args: Args) -> Result:
    """Tile; ``repeats`` may be longer than the rank (new leading dims)."""
    x: ShapeLike = args["input"]
    reps = _sizes(args["repeats"])
    if isinstance(x, Unknown) or isinstance(reps, Unknown) or not x.is_fixed:
        return UNKNOWN
    if len(reps) < len(x.dims):
        return Issue("shape-rank", f"repeat: {len(reps)} repeats for a tensor of rank {len(x.dims)}; shape {fmt_shape(x)}")
    lead = len(reps) - len(x.dims)
    return Shape(tuple(reps[:lead]) + tuple(d_mul(d, r) for d, r in zip(x.dims, reps[lead:], strict=True)))


def _tensors(value: Any) -> list[ShapeLike] | Unknown:
    if isinstance(value, Unknown):
        return UNKNOWN
    if isinstance(value, (tuple, list)) and len(value) == 1 and isinstance(value[0], (tuple, list)):
        value = value[0]
    return list(value) if isinstance(value, (tuple, list)) else UNKNOWN


@op("cat", "tensors:tensors, dim:int=0", expose="tt", tags=("movement", "join"), aliases=("concat", "concatenate"),
    graph=True, prim="Other", onnx="Concat(axis=int:dim)", autocast="promote")
def cat(args: Args) -> Result:
    """Join along ``dim``: ranks equal, other dims equal; the joined dim is the sum."""
    shapes = _tensors(args["tensors"])
    if isinstance(shapes, Unknown) or not shapes:
        return UNKNOWN
    known = [s for s in shapes if isinstance(s, Shape) and s.is_fixed]
    if len(known) != len(shapes):
        return UNKNOWN
    for i, s in enumerate(known):
        if not s.dims:
            return Issue("shape-concat", f"cat: tensor {i} is 0-d and cannot be concatenated; shapes {', '.join(fmt_shape(k) for k in known)}")
    # torch (legacy) skips 1-d empty tensors, whatever the other ranks
    nonempty = [s for s in known if s.dims != (0,)]
    if not nonempty:
        return Shape((0,))
    known = nonempty
    first = known[0]
    p = norm_axis("cat", first, args["dim"])
    if isinstance(p, Issue):
        return p  # shape-axis, as for every dim out of range (DESIGN §2)
    if p is None:
        return UNKNOWN
    shown = ", ".join(fmt_shape(s) for s in known)
    total: DimExpr = 0
    for i, s in enumerate(known):
        if len(s.dims) != len(first.dims):
            return Issue("shape-concat", f"cat: tensor {i} has rank {len(s.dims)}, tensor 0 has rank {len(first.dims)}; shapes {shown}")
        for k, (a, b) in enumerate(zip(first.dims, s.dims, strict=True)):
            if k != p and differs(a, b):
                return Issue(
                    "shape-concat",
                    f"cat: dimensions differ at dim {k}: {fmt_dim(a)} (tensor 0) vs {fmt_dim(b)} (tensor {i}); shapes {shown}",
                )
        total = d_add(total, s.dims[p])
    merged = tuple(next((s.dims[k] for s in known if not isinstance(s.dims[k], Unknown)), UNKNOWN)
                   for k in range(len(first.dims)))
    return Shape((*merged[:p], total, *merged[p + 1:]))


@op("stack", "tensors:tensors, dim:int=0", expose="tt", tags=("movement", "join"), autocast="promote")
def stack(args: Args) -> Result:
    """Join along a new dim: all shapes equal."""
    shapes = _tensors(args["tensors"])
    if isinstance(shapes, Unknown) or not shapes:
        return UNKNOWN
    known = [s for s in shapes if isinstance(s, Shape) and s.is_fixed]
    if len(known) != len(shapes):
        return UNKNOWN
    first = known[0]
    shown = ", ".join(fmt_shape(s) for s in known)
    for i, s in enumerate(known):
        if len(s.dims) != len(first.dims):
            return Issue("shape-concat", f"stack: tensor {i} has rank {len(s.dims)}, tensor 0 has rank {len(first.dims)}; shapes {shown}")
        for k, (a, b) in enumerate(zip(first.dims, s.dims, strict=True)):
            if differs(a, b):
                return Issue(
                    "shape-concat",
                    f"stack: dimensions differ at dim {k}: {fmt_dim(a)} (tensor 0) vs {fmt_dim(b)} (tensor {i}); shapes {shown}",
                )
    p = norm_axis("stack", first, args["dim"], extra=1)
    if isinstance(p, Issue):
        return Issue("shape-axis", p.message)
    if p is None:
        return UNKNOWN
    return insert(first, p, (len(known),))


def _promote_1d(shapes: list[ShapeLike], rank: int) -> list[ShapeLike]:
    return [Shape((1, *sh.dims)) if isinstance(sh, Shape) and sh.is_fixed and len(sh.dims) < rank else sh
            for sh in shapes]


@op("hstack", "tensors:tensors", expose="tt", tags=("movement", "join"))
def hstack(args: Args) -> Result:
    """``cat`` along dim 1, or dim 0 when the tensors are 1-d."""
    tensors = args["tensors"]
    if not isinstance(tensors, (tuple, list)) or not tensors:
        return UNKNOWN
    first = tensors[0]
    if not isinstance(first, Shape) or not first.is_fixed:
        return UNKNOWN
    return cat({"tensors": tensors, "dim": 0 if len(first.dims) == 1 else 1})


@op("vstack", "tensors:tensors", expose="tt", tags=("movement", "join"))
def vstack(args: Args) -> Result:
    """``cat`` along dim 0 after 1-d tensors become rows ``[1, n]``."""
    tensors = args["tensors"]
    if not isinstance(tensors, (tuple, list)):
        return UNKNOWN
    return cat({"tensors": _promote_1d(list(tensors), 2), "dim": 0})


@op("broadcast_tensors", "*tensors:tensors", expose="tt", tags=("movement", "view"), returns="tuple[_AnyTensor, ...]")
def broadcast_tensors(args: Args) -> Result:
    """Every tensor expanded to the shape they broadcast to."""
    from ..broadcast import broadcast_all

    tensors = args["tensors"]
    if not isinstance(tensors, (tuple, list)):
        return UNKNOWN
    shape = broadcast_all(list(tensors), "broadcast_tensors")
    if isinstance(shape, Issue):
        return shape
    return Outputs(tuple(shape for _ in tensors))


@op("split", "input:tensor, split_size_or_sections:any, dim:int=0", expose="tt method",
    function="tensor:tensor, split_size_or_sections:any, dim:int=0", method="split_size:any, dim:int=0",
    tags=("view", "movement"), returns="tuple[_AnyTensor, ...]")
def split(args: Args) -> Result:
    """Pieces of ``split_size`` (the last may be smaller) or of the given section sizes."""
    x: ShapeLike = args["input"]
    sizes = args["split_size_or_sections"]
    if isinstance(x, Unknown):
        return Outputs(UNKNOWN)
    p = dim_position("split", x, args["dim"])
    if isinstance(p, Issue):
        return p
    if p is None:
        return Outputs(UNKNOWN)
    length = dim_at(x, p)
    if isinstance(sizes, (tuple, list)):
        negative = [s for s in sizes if as_int(s) is not None and int(s) < 0]
        if negative:
            return Issue("shape-arg", f"split: section sizes must be non-negative, got {list(sizes)}; shape {fmt_shape(x)}")
        total: DimExpr = 0
        for s in sizes:
            total = d_add(total, s)
        if sizes_differ(total, length):
            return Issue("shape-reshape", f"split: sections {fmt_dims(tuple(sizes))} sum to {fmt_dim(total)}, not {fmt_dim(length)}; shape {fmt_shape(x)}")
        return Outputs(tuple(replace(x, p, (s,)) for s in sizes))
    n = as_int(sizes)
    total_len = as_int(length)
    if n == 0 and total_len is not None and total_len != 0:
        return Issue("shape-arg", f"split: split_size 0 needs an empty dim, dim {p} has size {total_len}; shape {fmt_shape(x)}")
    if n is not None and total_len is not None and n > 0:
        count = max(1, -(-total_len // n))
        pieces = [min(n, total_len - i * n) for i in range(count)]
        return Outputs(tuple(replace(x, p, (s,)) for s in pieces))
    exact = d_exact_div(length, sizes) if not isinstance(sizes, Unknown) else None
    if exact is not None and not isinstance(exact, Unknown) and as_int(exact) is not None:
        return Outputs(tuple(replace(x, p, (sizes,)) for _ in range(as_int(exact) or 0)))
    return Outputs(UNKNOWN, element=replace(x, p, (UNKNOWN,)))


@op("chunk", "input:tensor, chunks:int, dim:int=0", cpp_fn="TensorList", expose="tt method", tags=("view", "movement"),
    returns="tuple[_AnyTensor, ...]")
def chunk(args: Args) -> Result:
    """``chunks`` pieces of ceil(n / chunks) (PyTorch may return fewer)."""
    x: ShapeLike = args["input"]
    chunks = as_int(args["chunks"])
    if isinstance(x, Unknown):
        return Outputs(UNKNOWN)
    p = dim_position("chunk", x, args["dim"])
    if isinstance(p, Issue):
        return p
    if chunks is not None and chunks <= 0:
        return Issue("shape-arg", f"chunk: chunks must be positive, got {chunks}; shape {fmt_shape(x)}")
    if isinstance(p, Issue):
        return p
    if p is None or chunks is None or chunks <= 0:
        return Outputs(UNKNOWN)
    length = dim_at(x, p)
    n = as_int(length)
    if n is not None:
        size = -(-n // chunks) if n else 0
        if size == 0:
            return Outputs(tuple(replace(x, p, (0,)) for _ in range(chunks)))
        count = -(-n // size)
        return Outputs(tuple(replace(x, p, (min(size, n - i * size),)) for i in range(count)))
    exact = d_exact_div(length, chunks)
    if exact is not None:
        return Outputs(tuple(replace(x, p, (exact,)) for _ in range(chunks)))
    return Outputs(UNKNOWN, element=replace(x, p, (d_ceildiv(length, chunks),)))


@op("unbind", "input:tensor, dim:int=0", cpp_fn="TensorList", expose="tt method", tags=("view", "movement"), returns="tuple[_AnyTensor, ...]")
def unbind(args: Args) -> Result:
    x: ShapeLike = args["input"]
    if isinstance(x, Unknown):
        return Outputs(UNKNOWN)
    p = dim_position("unbind", x, args["dim"])
    if isinstance(p, Issue):
        return p
    if p is None:
        return Outputs(UNKNOWN)
    piece = replace(x, p, ())
    n = as_int(dim_at(x, p))
    return Outputs(tuple(piece for _ in range(n))) if n is not None else Outputs(UNKNOWN, element=piece)


@op("flip", "input:tensor, *dims:ints", expose="tt method", function="input:tensor, dims:ints", tags=("movement",),
    signature="(*s) -> (*s)", graph=True, prim="Other")
def flip(args: Args) -> Result:
    x: ShapeLike = args["input"]
    if isinstance(x, Unknown):
        return UNKNOWN
    seen: set[int] = set()
    dims = _sizes(args["dims"])
    if isinstance(dims, Unknown):
        return x
    for a in dims:
        p = norm_axis("flip", x, a)
        if isinstance(p, Issue):
            return p
        if p is not None and p in seen:
            return Issue("shape-axis", f"flip: dim {a} appears more than once; shape {fmt_shape(x)}")
        if p is not None:
            seen.add(p)
    return x


@op("roll", "input:tensor, shifts:any, dims:any=None", cpp_fn="Tensor(const Tensor&, const Dims&, const Dims&)", expose="tt method", tags=("movement",),
    signature="(*s) -> (*s)")
def roll(args: Args) -> Result:
    x: ShapeLike = args["input"]
    dims = _sizes(args["dims"]) if args["dims"] is not None else UNKNOWN
    if isinstance(x, Unknown) or isinstance(dims, Unknown):
        return x
    if x.is_fixed and not x.dims:
        return Issue("shape-axis", f"roll: a 0-d tensor has no dim {args['dims']} to roll; shape {fmt_shape(x)}")
    for a in dims:
        p = norm_axis("roll", x, a)
        if isinstance(p, Issue):
            return p
    return x


@op("narrow", "input:tensor, dim:int, start:any, length:size", cpp_fn="Tensor(const Tensor&, int64_t, int64_t, int64_t)", expose="tt method", tags=("view", "movement"))
def narrow(args: Args) -> Result:
    x: ShapeLike = args["input"]
    if isinstance(x, Unknown):
        return UNKNOWN
    p = dim_position("narrow", x, args["dim"])
    if isinstance(p, Issue):
        return p
    if p is None:
        return UNKNOWN
    length, start = args["length"], args["start"]
    n = as_int(dim_at(x, p))
    s, ln = as_int(start), as_int(length)
    if n is not None and s is not None and ln is not None and ((s < 0 and s + n < 0) or (s % max(n, 1) if s < 0 else s) + ln > n):
        return Issue("shape-axis", f"narrow: start {s} + length {ln} exceeds dim {p} of size {n}; shape {fmt_shape(x)}")
    return replace(x, p, (length,))


# ``Tensor.unfold`` is its own entry: the key ``unfold`` is ``F.unfold`` (im2col), NOTE [ Public names ].
@op("unfold_windows", "input:tensor, dimension:int, size:int, step:int", expose="method", python="method",
    public={"method": "unfold"}, tags=("movement",), dtype_rule="same")
def unfold_windows(args: Args) -> Result:
    """``x.unfold(d, size, step)``: dim ``d`` of length n becomes (n - size) // step + 1 windows and a
    last dim of length ``size`` is appended; a 0-d input gives ``[size]``. A copy of the windows, not
    torch's view of the input (NOTE [ unfold is a copy ] in ``_runtime/arrangement_ops.py``)."""
    x: ShapeLike = args["input"]
    size, step = as_int(args["size"]), as_int(args["step"])
    if step is not None and step <= 0:
        return Issue("shape-arg", f"unfold: step is {step} but must be > 0")
    if size is not None and size < 0:
        return Issue("shape-arg", f"unfold: size is {size} but must be >= 0")
    if isinstance(x, Unknown):
        return UNKNOWN
    p = norm_axis("unfold", x, args["dimension"])
    if isinstance(p, Issue):
        return p
    raw = args["size"]
    width: DimExpr = raw if isinstance(raw, (int, Poly)) and not isinstance(raw, bool) else UNKNOWN
    if x.is_fixed and not x.dims:
        if size is not None and size > 1:
            return Issue("shape-arg", f"unfold: maximum size for tensor at dimension 0 is 1 but size is {size}; "
                                      f"shape {fmt_shape(x)}")
        return Shape((width,))
    if p is None:  # which dim the windows run along is not known statically
        return UNKNOWN
    n = dim_at(x, p)
    n_int = as_int(n)
    if n_int is not None and size is not None and size > n_int:
        return Issue("shape-arg", f"unfold: maximum size for tensor at dimension {p} is {n_int} but size is "
                                  f"{size}; shape {fmt_shape(x)}")
    count = UNKNOWN if step is None else d_add(d_floordiv(d_sub(n, width), step), 1)
    out = replace(x, p, (count,))
    if out.is_fixed:
        return Shape((*out.dims, width))
    return Shape(out.prefix, out.star, (*out.suffix, width))


for _name in ("tril", "triu"):
    def _tri(args: Args, _n: str = _name) -> Result:
        x: ShapeLike = args["input"]
        if isinstance(x, Unknown):
            return UNKNOWN
        bad = x.is_fixed and len(x.dims) < 2
        if bad:
            return Issue("shape-rank", f"{_n}: needs at least 2 dims, got {len(x.dims)}; shape {fmt_shape(x)}")
        return x

    op(_name, "input:tensor, diagonal:int=0", cpp_fn="Tensor", expose="tt method inplace", python="inplace", tags=("elementwise",),
       signature="(*s) -> (*s)", graph=True, prim="Other")(_tri)


@op("diagonal", "input:tensor, offset:int=0, dim1:int=0, dim2:int=1", cpp_fn="Tensor", expose="tt method", tags=("view", "movement"),
    graph=True, prim="StridedView")
def diagonal(args: Args) -> Result:
    x: ShapeLike = args["input"]
    if isinstance(x, Unknown) or not x.is_fixed:
        return UNKNOWN
    r = need_rank("diagonal", x, tuple(range(2, 65)))
    if r:
        return r
    a, b = norm_axis("diagonal", x, args["dim1"]), norm_axis("diagonal", x, args["dim2"])
    if not isinstance(a, int) or not isinstance(b, int):
        return a if isinstance(a, Issue) else b if isinstance(b, Issue) else UNKNOWN
    if a == b:
        return Issue("shape-axis", f"diagonal: dim1 and dim2 are the same dim {a}; shape {fmt_shape(x)}")
    da, db = x.dims[a], x.dims[b]
    off = as_int(args["offset"]) or 0
    if off == 0 and not differs(da, db):
        size = da
    elif is_literal(da) and is_literal(db):
        size = max(0, min(int(da) + min(off, 0), int(db) - max(off, 0)))
    else:
        size = UNKNOWN
    rest = tuple(d for i, d in enumerate(x.dims) if i not in (a, b))
    return Shape((*rest, size))


def _index_fits(name: str, x: Shape, idx: Shape, p: int | None, src: Shape | None = None) -> Issue | None:
    """torch's gather/scatter contract: ranks agree (a 0-d tensor counts as 1-d); the index is no
    larger than the input off ``dim`` and no larger than ``src`` anywhere."""
    if not (x.is_fixed and idx.is_fixed):
        return None
    xd, idd = x.dims or (1,), idx.dims or (1,)
    shown = f"shapes {fmt_shape(x)}, index {fmt_shape(idx)}" + (f", src {fmt_shape(src)}" if src else "")
    if len(xd) != len(idd):
        return Issue("shape-rank", f"{name}: index has rank {len(idx.dims)}, input has rank {len(x.dims)}; {shown}")
    for k, (a, b) in enumerate(zip(idd, xd, strict=True)):
        if k != p and is_literal(a) and is_literal(b) and int(a) > int(b):
            return Issue("shape-arg", f"{name}: index dim {k} is {a}, larger than the input's {b}; {shown}")
    if src is not None and src.is_fixed:
        sd = src.dims or (1,)
        if len(sd) != len(idd):
            return Issue("shape-rank", f"{name}: src has rank {len(src.dims)}, index has rank {len(idx.dims)}; {shown}")
        for k, (a, b) in enumerate(zip(idd, sd, strict=True)):
            if is_literal(a) and is_literal(b) and int(a) > int(b):
                return Issue("shape-arg", f"{name}: index dim {k} is {a}, larger than src's {b}; {shown}")
    return None


@op("gather", "input:tensor, dim:int, index:tensor", cpp_fn="Tensor", kernel="(const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index)", expose="tt method", tags=("indexing",), graph=True, prim="Index",
    onnx="GatherElements(axis=int:dim)")
def gather(args: Args) -> Result:
    """Result has the index's shape; ranks must agree."""
    x: ShapeLike = args["input"]
    idx: ShapeLike = args["index"]
    if isinstance(x, Unknown) or isinstance(idx, Unknown):
        return idx
    p = norm_axis("gather", x, args["dim"])
    if isinstance(p, Issue):
        return p
    issue = _index_fits("gather", x, idx, p if isinstance(p, int) else None)
    return issue if issue else idx


# its kernel's reduce: 0 set, 1 add, 2 mul
@op("scatter", "input:tensor, dim:int, index:tensor, src:any=None, *, value:any=None, reduce:any=None",
    kernel="(const Tensor& out, int64_t dim, const Tensor& index, const Tensor& src, int reduce)", expose="tt method inplace", tags=("indexing",), graph=True, prim="Index")
def scatter(args: Args) -> Result:
    return scatter_contract("scatter", args)


def scatter_contract(name: str, args: Args) -> Result:
    """torch's scatter contract (``scatter`` and ``scatter_reduce``): the index has the input's rank
    and fits inside the input (off ``dim``) and inside ``src``; the result has the input's shape."""
    x: ShapeLike = args["input"]
    idx: ShapeLike = args["index"]
    if isinstance(x, Unknown):
        return UNKNOWN
    p = norm_axis(name, x, args["dim"])
    if isinstance(p, Issue):
        return p
    if isinstance(idx, Shape):
        src = args["src"] if isinstance(args["src"], Shape) else None
        issue = _index_fits(name, x, idx, p if isinstance(p, int) else None, src)
        if issue:
            return issue
    return x


op("scatter_add", "input:tensor, dim:int, index:tensor, src:tensor", expose="tt method inplace", tags=("indexing",),
   graph=True, prim="Index")(scatter)


# its kernel: out[..., index[j], ...] += src[..., j, ...] along dim (out, src contiguous)
@op("index_add", "input:tensor, dim:int, index:tensor, source:tensor, *, alpha:any=None", kernel="(const Tensor& out, int64_t dim, const Tensor& index, const Tensor& src)", expose="tt method inplace",
    tags=("indexing",), graph=True, prim="Index")
def index_add(args: Args) -> Result:
    """``source`` is ``input`` with ``dim`` replaced by the length of the 1-d ``index``."""
    x: ShapeLike = args["input"]
    idx: ShapeLike = args["index"]
    src: ShapeLike = args["source"]
    if isinstance(x, Unknown):
        return UNKNOWN
    p = norm_axis("index_add", x, args["dim"])
    if isinstance(p, Issue):
        return p
    if isinstance(idx, Shape):
        r = need_rank("index_add", idx, (0, 1), "index")
        if r:
            return r
    if p is not None and isinstance(idx, Shape) and isinstance(src, Shape) and x.is_fixed and src.is_fixed:
        n = idx.dims[0] if idx.dims else 1
        want = replace(x, p, (n,)) if x.dims else x
        if len(src.dims or (1,)) != len(want.dims or (1,)) or any(
            differs(a, b) for a, b in zip(src.dims, want.dims, strict=False)
        ):
            return Issue("shape-arg", f"index_add: source must have shape {fmt_shape(want)} (the input's with dim "
                         f"{args['dim']} the index's length), got {fmt_shape(src)}")
    return x


@op("select", "input:tensor, dim:int, index:int", cpp_fn="Tensor", expose="tt method", tags=("view", "movement"), graph=True,
    prim="StridedView")
def select(args: Args) -> Result:
    """Drop ``dim``; the index must lie inside it (negative counts from the end)."""
    x: ShapeLike = args["input"]
    if isinstance(x, Unknown):
        return UNKNOWN
    p = dim_position("select", x, args["dim"])
    if isinstance(p, Issue):
        return p
    if p is None:
        return UNKNOWN
    size, i = as_int(dim_at(x, p)), as_int(args["index"])
    if size is not None and i is not None and not -size <= i < size:
        return Issue("shape-axis", f"select: index {i} is out of range for dim {args['dim']} of size {size}; "
                     f"shape {fmt_shape(x)}")
    return replace(x, p, ())


@op("index_select", "input:tensor, dim:int, index:tensor", cpp_fn="Tensor", kernel="(const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index)", expose="tt method", tags=("indexing",), graph=True,
    prim="Index", onnx="Gather(axis=int:dim)")
def index_select(args: Args) -> Result:
    """Replace ``dim`` by the length of a 1-d index."""
    x: ShapeLike = args["input"]
    idx: ShapeLike = args["index"]
    if isinstance(x, Unknown):
        return UNKNOWN
    p = norm_axis("index_select", x, args["dim"])
    if isinstance(p, Issue):
        return p
    if p is None:
        return UNKNOWN
    if isinstance(idx, Unknown):
        return replace(x, p, (UNKNOWN,))
    r = need_rank("index_select", idx, (0, 1), "index")
    if r:
        return r
    if x.is_fixed and not x.dims:
        if idx.is_fixed and is_literal(count := d_prod(idx.dims)) and int(count) != 1:
            return Issue("shape-arg", f"index_select: a 0-d input takes exactly 1 index, got {count}; index {fmt_shape(idx)}")
        return x  # a 0-d input stays 0-d
    n = idx.dims[0] if idx.is_fixed and idx.dims else (1 if idx.is_fixed else UNKNOWN)
    return replace(x, p, (n,))


@op("masked_select", "input:tensor, mask:tensor", cpp_fn="Tensor", expose="tt method", tags=("indexing",), cuda="host")
def masked_select(args: Args) -> Result:
    x: ShapeLike = args["input"]
    mask: ShapeLike = args["mask"]
    from ..broadcast import broadcast_shapes

    if isinstance(x, Shape) and isinstance(mask, Shape):
        merged = broadcast_shapes(x, mask, "masked_select")
        if isinstance(merged, Issue):
            return merged
    return Shape((UNKNOWN,))


@op("nonzero", "input:tensor, *, as_tuple:bool=False", expose="tt method", tags=("indexing",), differentiable=False,
    gradient="integer result", cuda="host")
def nonzero(args: Args) -> Result:
    x: ShapeLike = args["input"]
    return Shape((UNKNOWN, len(x.dims))) if isinstance(x, Shape) and x.is_fixed else Shape((UNKNOWN, UNKNOWN))


@op("one_hot", "input:tensor, num_classes:size=-1", expose="F",
    python="F", tags=("nn",), differentiable=False, gradient="integer input")
def one_hot(args: Args) -> Result:
    x: ShapeLike = args["input"]
    n = args["num_classes"]
    if isinstance(x, Unknown):
        return UNKNOWN
    k = UNKNOWN if as_int(n) == -1 else n
    if as_int(n) == -1 and x.is_fixed and 0 in x.dims:
        return Issue("shape-arg", f"one_hot: cannot infer the number of classes from an empty tensor; shape {fmt_shape(x)}")
    return x.with_tail((*x.tail, k))


@op("pad", "input:tensor, pad:ints, mode:str='constant', value:float=None", expose="F", python="F", tags=("movement",))
def pad(args: Args) -> Result:
    """``pad`` lists (left, right) pairs starting from the last dim."""
    x: ShapeLike = args["input"]
    pads = args["pad"]
    if isinstance(x, Unknown) or isinstance(pads, Unknown) or not isinstance(pads, (tuple, list)):
        return UNKNOWN
    if len(pads) % 2:
        return Issue("shape-arg", f"pad: padding length must be even, got {len(pads)}")
    k = len(pads) // 2
    mode = args["mode"]
    if isinstance(mode, str) and mode != "constant":
        issue = _pad_mode_issue(x, pads, mode)
        if issue is not None:
            return issue
    if len(x.tail) < k:
        if x.is_fixed:
            return Issue("shape-rank", f"pad: {k} dims padded but the input has rank {len(x.dims)}; shape {fmt_shape(x)}")
        return UNKNOWN
    tail = list(x.tail)
    for i in range(k):
        j = len(tail) - 1 - i
        shrunk = d_add(tail[j], min(as_int(pads[2 * i]) or 0, 0) + min(as_int(pads[2 * i + 1]) or 0, 0))
        if is_literal(shrunk) and int(shrunk) < 0 and mode == "constant":  # other modes: checked above
            return Issue("shape-arg", f"pad: negative padding {tuple(pads)} removes more than dim {j} has; shape {fmt_shape(x)}")
        tail[j] = grown = d_add(d_add(tail[j], pads[2 * i]), pads[2 * i + 1])
        if is_literal(grown) and grown < 0:
            return Issue("shape-arg", f"pad: padding {tuple(pads)} makes dim {j} negative ({fmt_dim(tail[j])}); shape {fmt_shape(x)}")
    return x.with_tail(tuple(tail))


def _pad_mode_issue(x: Shape, pads: Any, mode: str) -> Issue | None:
    """torch's limits for reflect / replicate / circular: the last 1-3 dims of a rank k+1 or
    k+2 tensor; reflect pads below the dim size, circular at most the dim size, reflect and
    replicate need non-empty non-batch dims and a non-empty result."""
    k = len(pads) // 2
    if not x.is_fixed:
        return None
    dims, params = x.dims, tuple(pads)
    if k not in (1, 2, 3) or len(dims) not in (k + 1, k + 2):
        return Issue("shape-rank", f"pad: padding mode '{mode}' pads the last 1-3 dims of a (batched) tensor of rank 2-5, "
                     f"got {len(pads)} pads for shape {fmt_shape(x)}")
    features = dims[1:] if len(dims) == k + 2 else dims
    if mode != "circular" and any(is_literal(d) and int(d) == 0 for d in features):
        return Issue("shape-arg", f"pad: {mode} padding needs non-empty non-batch dims; shape {fmt_shape(x)}")
    outs: list[int] = []
    for i in range(k):
        j = len(dims) - 1 - i
        n, lo, hi = as_int(dims[j]), as_int(pads[2 * i]), as_int(pads[2 * i + 1])
        if n is None or lo is None or hi is None:
            return None
        outs.append(n + lo + hi)
        if mode == "reflect" and (lo >= n or hi >= n):
            return Issue("shape-arg", f"pad: reflect padding {params} must be less than dim {j} of size {n}; shape {fmt_shape(x)}")
        kept = n + min(lo, 0) + min(hi, 0)  # what negative padding leaves, circular wraps around it
        if mode == "circular" and (lo > n or hi > n or n + lo + hi < 0 or (n + lo + hi > 0 and (kept <= 0 or max(lo, hi) > kept))):
            return Issue("shape-arg", f"pad: circular padding {params} wraps around dim {j} of size {n} more than once; "
                         f"shape {fmt_shape(x)}")
    if mode != "circular" and (min(outs) < 0 or max(outs) < 1):  # torch: some padded dim stays non-empty
        return Issue("shape-arg", f"pad: {mode} padding {params} leaves the padded dims empty; shape {fmt_shape(x)}")
    return None


_ = (broadcast_dim, d_sub)


# ---------------------------------------------------------------------------------------------
# The padding modules (torch.nn.modules.padding): ``pad`` with the module's padding, an int
# standing for every side of each of the last ``dims`` dims.


def _padding_module(cls: str, mode: str, dims: int, constant: bool = False) -> None:
    def forward(c: Args, args: Args) -> Result:
        padding = c["padding"]
        if isinstance(padding, Unknown):
            return UNKNOWN
        pads = tuple(padding) if isinstance(padding, (tuple, list)) else (padding,) * (2 * dims)
        if len(pads) != 2 * dims:
            return Issue("shape-arg", f"{cls}: padding must be an int or {2 * dims} ints, got {len(pads)}")
        result = pad({"input": args["input"], "pad": pads, "mode": mode, "value": None})
        if isinstance(result, Issue) and result.code not in ("shape-arg", "shape-rank", "shape-axis"):
            return Issue("shape-arg", f"{cls}.forward: {result.message}")
        return result

    ctor = "padding:any, value:float" if constant else "padding:any"
    module(f"typedtensor.nn.{cls}", ctor, ("padding",), "input:tensor", ops=("pad",))(forward)


for _dims in (1, 2, 3):
    _padding_module(f"ReflectionPad{_dims}d", "reflect", _dims)
    _padding_module(f"ReplicationPad{_dims}d", "replicate", _dims)
    _padding_module(f"CircularPad{_dims}d", "circular", _dims)
    _padding_module(f"ZeroPad{_dims}d", "constant", _dims)
    _padding_module(f"ConstantPad{_dims}d", "constant", _dims, constant=True)
