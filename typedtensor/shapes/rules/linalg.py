"""Matrix products: matmul (1-d/2-d/n-d with batch broadcasting), mm, bmm, mv, dot, outer,
linear, tensordot, einsum."""

from __future__ import annotations

from ..broadcast import broadcast_into, broadcast_shapes
from ..dims import UNKNOWN, DimExpr, Unknown, as_int, d_floordiv, d_mul, d_sub, differs, fmt_dim
from ..issue import Issue
from ..registry import Args, Result, op
from ..shape import Shape, ShapeLike, Star, fmt_shape
from ..signature import signature_rule
from ._common import norm_axis


def matmul_shapes(a: ShapeLike, b: ShapeLike, name: str = "matmul", code: str = "shape-matmul") -> Result:
    """PyTorch's matmul: 1-d operands gain and lose a dim; batch dims broadcast."""
    if isinstance(a, Unknown) or isinstance(b, Unknown):
        return UNKNOWN
    def shown() -> str:
        return f"{fmt_shape(a)} @ {fmt_shape(b)}"
    if (a.is_fixed and len(a.dims) == 0) or (b.is_fixed and len(b.dims) == 0):
        return Issue("shape-rank", f"{name}: both arguments need at least 1 dim; shapes {shown()}")
    a_vec = a.is_fixed and len(a.dims) == 1
    b_vec = b.is_fixed and len(b.dims) == 1
    if not a.is_fixed and len(a.tail) == 1 and b.is_fixed and len(b.dims) == 2:
        # [*Bs, k] @ [k, n] is [*Bs, n] whether or not Bs is empty
        if differs(a.tail[-1], b.dims[0]):
            return Issue(
                code,
                f"{name}: inner dimensions differ: {fmt_dim(a.tail[-1])} (left, dim -1) vs "
                f"{fmt_dim(b.dims[0])} (right, dim -2); shapes {shown()}",
            )
        return a.with_tail((b.dims[1],))
    if len(a.tail) < (1 if a_vec else 2) or len(b.tail) < (1 if b_vec else 2):
        return UNKNOWN  # a variadic operand whose last two dims are not spelled out
    k_a = a.tail[-1]
    k_b = b.tail[0] if b_vec else b.tail[-2]
    if differs(k_a, k_b):
        return Issue(
            code,
            f"{name}: inner dimensions differ: {fmt_dim(k_a)} (left, dim -1) vs {fmt_dim(k_b)} "
            f"(right, dim {0 if b_vec else -2}); shapes {shown()}",
        )
    if a_vec and b_vec:
        return Shape(())
    if a_vec:
        batch_b = b.with_tail(b.tail[:-2])
        return batch_b.with_tail((*batch_b.tail, b.tail[-1]))
    if b_vec:
        return a.with_tail(a.tail[:-1])
    batch = broadcast_shapes(a.with_tail(a.tail[:-2]), b.with_tail(b.tail[:-2]), name, "@", code)
    if isinstance(batch, Issue):
        return Issue(code, batch.message.replace("dimensions do not broadcast", "batch dimensions do not broadcast"))
    if isinstance(batch, Unknown):
        return UNKNOWN
    return batch.with_tail((*batch.tail, a.tail[-2], b.tail[-1]))


@op("matmul", "input:tensor, other:tensor", cpp_fn="Tensor", expose="tt method", tags=("linalg", "matmul"), autocast="lower",
    signature="(*b, m, k), (*b, k, n) -> (*b, m, n)", operators=("__matmul__", "__rmatmul__"), graph=True, prim="Other",
    onnx="MatMul",
    overloads=("(input: Tensor[_M, _K], other: Tensor[_K, _N]) -> Tensor[_M, _N]",
               "(input: _AnyTensor, other: _AnyTensor) -> _AnyTensor"))
def matmul(args: Args) -> Result:
    """PyTorch matmul semantics, including 1-d operands and batch broadcasting."""
    return matmul_shapes(args["input"], args["other"])


def _sig_op(name: str, sig: str, other: str, code: str = "shape-matmul", symbol: str = "@",
            python: str = "", overloads: tuple[str, ...] = (), cpp_fn: str | None = None, autocast: str = "") -> None:
    rule = signature_rule(sig, name, code, symbol)

    def apply(args: Args) -> Result:
        return rule((args["input"], args[other]))

    op(name, f"input:tensor, {other}:tensor", expose="tt method", tags=("linalg",), signature=sig, python=python,
       overloads=overloads, cpp_fn=cpp_fn, autocast=autocast)(apply)


_sig_op("mm", "(m, k), (k, n) -> (m, n)", "mat2", cpp_fn="Tensor", autocast="lower",
        overloads=("(input: Tensor[_M, _K], mat2: Tensor[_K, _N]) -> Tensor[_M, _N]",
                   "(input: _AnyTensor, mat2: _AnyTensor) -> _AnyTensor"))
_sig_op("bmm", "(b, m, k), (b, k, n) -> (b, m, n)", "mat2", cpp_fn="Tensor", autocast="lower")
_sig_op("mv", "(m, k), (k) -> (m)", "vec", python="tt method", autocast="cuda=lower")
_sig_op("dot", "(k), (k) -> ()", "tensor", autocast="cuda=promote")  # torch's schema: dot(self, tensor)
_sig_op("outer", "(m), (n) -> (m, n)", "vec2", symbol=",")


@op("t", "input:tensor", expose="tt method inplace", tags=("view", "movement"), signature="(m, n) -> (n, m)",
    overloads=("(input: Tensor[_M, _N]) -> Tensor[_N, _M]", "(input: _AnyTensor) -> _AnyTensor"))
def t(args: Args) -> Result:
    """Transpose of a tensor with at most 2 dims."""
    x: ShapeLike = args["input"]
    if isinstance(x, Unknown):
        return UNKNOWN
    if x.is_fixed and len(x.dims) > 2:
        return Issue("shape-rank", f"t: expects a tensor with at most 2 dims, got {len(x.dims)}; shape {fmt_shape(x)}")
    if not x.is_fixed:
        return UNKNOWN
    return Shape(tuple(reversed(x.dims)))


@op("linear", "input:tensor, weight:tensor, bias:optional_tensor=None", expose="tt F", torch_functional_only=True, graph=True, tags=("linalg", "nn"),
    signature="(*b, i), (o, i), (o) -> (*b, o)", autocast="lower")
def linear(args: Args) -> Result:
    """``input @ weight.T + bias`` with ``weight`` of shape ``[out, in]``."""
    x, w, b = args["input"], args["weight"], args["bias"]
    if isinstance(x, Unknown) or isinstance(w, Unknown):
        return UNKNOWN
    if w.is_fixed and len(w.dims) not in (1, 2):
        return Issue("shape-rank", f"linear: weight must be 1-d or 2-d, got {len(w.dims)}-d; shape {fmt_shape(w)}")
    if not w.is_fixed:
        return UNKNOWN
    wt = Shape(tuple(reversed(w.dims)))
    out = matmul_shapes(x, wt, "linear")
    if isinstance(b, Shape) and isinstance(out, Shape):
        issue = broadcast_into(out, b, "linear (bias)", "+")
        if issue:
            return issue
    return out


@op("cdist", "x1:tensor, x2:tensor, p:float=2.0, compute_mode:str='use_mm_for_euclid_dist_if_necessary'",
    expose="tt", python="tt", tags=("linalg",), dtype_rule="float_only", signature="(*b, p, m), (*b, r, m) -> (*b, p, r)",
    autocast="float32")
def cdist(args: Args) -> Result:
    """The ``p``-norm distance of every row of ``x1`` ``[*b, P, M]`` to every row of ``x2``
    ``[*b, R, M]``: ``[*b, P, R]``, the batch dims broadcast."""
    x1, x2 = args["x1"], args["x2"]
    if isinstance(x1, Unknown) or isinstance(x2, Unknown):
        return UNKNOWN
    for what, x in (("x1", x1), ("x2", x2)):
        if x.is_fixed and len(x.dims) < 2:
            return Issue("shape-rank", f"cdist: {what} needs at least 2 dims ([..., rows, features]), got "
                         f"{len(x.dims)}; shape {fmt_shape(x)}")
    if len(x1.tail) < 2 or len(x2.tail) < 2:
        return UNKNOWN
    if differs(x1.tail[-1], x2.tail[-1]):
        return Issue("shape-arg", f"cdist: x1 and x2 must have the same number of features (last dim): "
                     f"{fmt_dim(x1.tail[-1])} vs {fmt_dim(x2.tail[-1])}; shapes {fmt_shape(x1)}, {fmt_shape(x2)}")
    batch = broadcast_shapes(x1.with_tail(x1.tail[:-2]), x2.with_tail(x2.tail[:-2]), "cdist")
    if not isinstance(batch, Shape):
        return batch
    return batch.with_tail((*batch.tail, x1.tail[-2], x2.tail[-2]))


@op("bilinear", "input1:tensor, input2:tensor, weight:tensor, bias:optional_tensor=None", expose="tt F", python="tt F",
    tags=("linalg", "nn"))
def bilinear(args: Args) -> Result:
    """``y[..., o] = input1[..., i] weight[o, i, j] input2[..., j] + bias[o]``: ``[*b, in1]`` and ``[*b, in2]``
    (the same batch dims, no broadcasting) with ``weight`` ``[out, in1, in2]`` give ``[*b, out]``."""
    x1, x2, w, b = args["input1"], args["input2"], args["weight"], args["bias"]
    if isinstance(w, Shape) and w.is_fixed and len(w.dims) != 3:
        return Issue("shape-rank", f"bilinear(): weight must be 3-d ([out, in1, in2]), got {len(w.dims)}-d; "
                                   f"shape {fmt_shape(w)}")
    for what, x in (("input1", x1), ("input2", x2)):
        if isinstance(x, Shape) and x.is_fixed and not x.dims:
            return Issue("shape-rank", f"bilinear(): {what} must have at least 1 dim, got a 0-d tensor")
    if isinstance(x1, Shape) and isinstance(x2, Shape) and x1.is_fixed and x2.is_fixed:
        if len(x1.dims) != len(x2.dims):
            return Issue("shape-rank", f"bilinear(): input dimensions do not match: got {len(x1.dims)} and "
                                       f"{len(x2.dims)}; shapes {fmt_shape(x1)}, {fmt_shape(x2)}")
        for i, (d1, d2) in enumerate(zip(x1.dims[:-1], x2.dims[:-1], strict=True)):
            if differs(d1, d2):
                return Issue("shape-arg", f"bilinear(): input batch dimensions do not match at dim {i}: got "
                                          f"{fmt_dim(d1)} and {fmt_dim(d2)}; shapes {fmt_shape(x1)}, {fmt_shape(x2)}")
    if not isinstance(w, Shape) or not w.is_fixed:
        return UNKNOWN
    out, in1, in2 = w.dims
    for what, x, want in (("input1", x1, in1), ("input2", x2, in2)):
        if isinstance(x, Shape) and x.tail and differs(x.tail[-1], want):
            return Issue("shape-arg", f"bilinear(): {what} size does not match weight size: got {fmt_dim(x.tail[-1])} "
                                      f"but expected {fmt_dim(want)}; shapes {fmt_shape(x)}, weight {fmt_shape(w)}")
    if isinstance(b, Shape) and b.is_fixed and (not b.dims or differs(b.dims[0], out)):
        got = fmt_dim(b.dims[0]) if b.dims else "a 0-d bias"
        return Issue("shape-arg", f"bilinear(): bias size does not match weight size: got {got} but expected "
                                  f"{fmt_dim(out)}; shapes bias {fmt_shape(b)}, weight {fmt_shape(w)}")
    x = x1 if isinstance(x1, Shape) else x2
    if not isinstance(x, Shape):
        return UNKNOWN
    return x.with_tail((*x.tail[:-1], out)) if x.tail else UNKNOWN


@op("pdist", "input:tensor, p:float=2.0", expose="tt F", python="tt F", tags=("linalg",), dtype_rule="float_only")
def pdist(args: Args) -> Result:
    """The ``p``-norm distance between every two rows of ``input`` ``[N, M]``: ``[N (N - 1) / 2]``, the
    pairs ``i < j`` in row-major order (the upper triangle of ``cdist(input, input)``)."""
    x, p = args["input"], args["p"]
    if isinstance(p, (int, float)) and not isinstance(p, bool) and p < 0:
        return Issue("shape-arg", f"pdist: only supports non-negative p values, got {p}")
    if isinstance(x, Unknown):
        return UNKNOWN
    if x.is_fixed and len(x.dims) != 2:
        return Issue("shape-rank", f"pdist: only supports 2D tensors, got: {len(x.dims)}D; shape {fmt_shape(x)}")
    if not x.is_fixed:
        return Shape((UNKNOWN,))
    n = x.dims[0]
    return Shape((d_floordiv(d_mul(n, d_sub(n, 1)), 2),))


@op("tensordot", "a:tensor, b:tensor, dims:any=2", expose="tt", tags=("linalg",), autocast="cpu=lower cuda=promote")
def tensordot(args: Args) -> Result:
    """Contract the last ``dims`` of ``a`` with the first of ``b`` (or explicit dim lists)."""
    a, b, dims = args["a"], args["b"], args["dims"]
    if not isinstance(a, Shape) or not isinstance(b, Shape) or not a.is_fixed or not b.is_fixed:
        return UNKNOWN
    n = as_int(dims)
    if n is not None:
        da = list(range(len(a.dims) - n, len(a.dims)))
        db = list(range(n))
    elif isinstance(dims, (tuple, list)) and len(dims) == 2:
        xa, xb = dims
        xa = list(xa) if isinstance(xa, (tuple, list)) else [xa]
        xb = list(xb) if isinstance(xb, (tuple, list)) else [xb]
        if any(as_int(v) is None for v in xa + xb) or len(xa) != len(xb):
            return UNKNOWN
        da, db = [], []
        for v in xa:
            p = norm_axis("tensordot", a, v)
            if isinstance(p, Issue):
                return p
            da.append(p if p is not None else 0)
        for v in xb:
            p = norm_axis("tensordot", b, v)
            if isinstance(p, Issue):
                return p
            db.append(p if p is not None else 0)
    else:
        return UNKNOWN
    if len(set(da)) != len(da) or len(set(db)) != len(db):
        return Issue("shape-axis", f"tensordot: a contraction dim appears more than once in {dims}; shapes {fmt_shape(a)}, {fmt_shape(b)}")
    if any(i < 0 or i >= len(a.dims) for i in da) or any(i < 0 or i >= len(b.dims) for i in db):
        return Issue("shape-axis", f"tensordot: contraction dims out of range; shapes {fmt_shape(a)}, {fmt_shape(b)}")
    for i, j in zip(da, db, strict=False):
        if differs(a.dims[i], b.dims[j]) and a.dims[i] != 1 and b.dims[j] != 1:  # torch broadcasts 1s
            return Issue(
                "shape-matmul",
                f"tensordot: contracted dimensions differ: {fmt_dim(a.dims[i])} (left, dim {i}) vs "
                f"{fmt_dim(b.dims[j])} (right, dim {j}); shapes {fmt_shape(a)}, {fmt_shape(b)}",
            )
    keep_a = tuple(d for i, d in enumerate(a.dims) if i not in da)
    keep_b = tuple(d for j, d in enumerate(b.dims) if j not in db)
    return Shape(keep_a + keep_b)


@op("einsum", "equation:str, *operands:tensors", expose="tt", tags=("linalg",), autocast="cuda=lower")
def einsum(args: Args) -> Result:
    """Subscript letters bind dims consistently (``...`` broadcasts); the output follows the
    explicit ``->`` part or, implicitly, the letters used once in alphabetical order."""
    eq, operands = args["equation"], args["operands"]
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    if not isinstance(eq, str):
        return UNKNOWN
    eq = eq.replace(" ", "")
    lhs, _, rhs = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(operands):
        return Issue("shape-arg", f"einsum: {len(terms)} subscripts for {len(operands)} operands in {eq!r}")
    letters: dict[str, tuple[DimExpr, str]] = {}
    ell: ShapeLike = Shape(())
    counts: dict[str, int] = {}
    for i, (term, shape) in enumerate(zip(terms, operands, strict=False)):
        for ch in term.replace("...", ""):
            counts[ch] = counts.get(ch, 0) + 1
        if not isinstance(shape, Shape) or not shape.is_fixed:
            return UNKNOWN
        has_ell = "..." in term
        before, _, after = term.partition("...")
        named = len(before) + len(after)
        if (not has_ell and named != len(shape.dims)) or (has_ell and named > len(shape.dims)):
            return Issue(
                "shape-rank",
                f"einsum: subscripts {term!r} do not fit operand {i} of rank {len(shape.dims)}; shape {fmt_shape(shape)}",
            )
        dims = shape.dims
        pairs = list(zip(before, dims[: len(before)], strict=True)) + list(zip(after, dims[len(dims) - len(after):], strict=True))
        if has_ell:
            ell_dims = Shape(dims[len(before): len(dims) - len(after)])
            merged = broadcast_shapes(ell, ell_dims, "einsum")
            if isinstance(merged, Issue):
                return merged
            ell = merged
        own: dict[str, DimExpr] = {}
        for ch, d in pairs:
            if ch in own and differs(own[ch], d):
                return Issue(
                    "shape-matmul",
                    f"einsum: subscript {ch!r} is repeated in operand {i} with sizes {fmt_dim(own[ch])} and {fmt_dim(d)}; equation {eq!r}",
                )
            own[ch] = d
        for ch, d in pairs:
            if ch in letters and letters[ch][0] == 1 and d != 1:
                letters[ch] = (d, f"operand {i}")  # a size-1 subscript broadcasts (torch.einsum)
                continue
            if ch in letters and differs(letters[ch][0], d) and d != 1:
                return Issue(
                    "shape-matmul",
                    f"einsum: subscript {ch!r} is {fmt_dim(letters[ch][0])} ({letters[ch][1]}) but "
                    f"{fmt_dim(d)} (operand {i}); equation {eq!r}",
                )
            if ch not in letters or isinstance(letters[ch][0], Unknown):
                letters[ch] = (d, f"operand {i}")
    if "->" in eq:
        out_terms = rhs
    else:
        out_terms = ("..." if "..." in lhs else "") + "".join(sorted(c for c, n in counts.items() if n == 1))
    before, _, after = out_terms.partition("...")
    for ch in before + after:
        if ch not in letters:
            return Issue("shape-axis", f"einsum: output subscript {ch!r} does not appear in the inputs; equation {eq!r}")
    head = tuple(letters[c][0] for c in before)
    tail = tuple(letters[c][0] for c in after)
    if "..." in out_terms:
        if isinstance(ell, Unknown):
            return Shape(head, Star(None), tail)
        return Shape(head + ell.dims + tail)
    return Shape(head + tail)
