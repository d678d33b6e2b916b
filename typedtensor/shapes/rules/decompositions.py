"""``torch.linalg`` and the top-level linear-algebra ops (inverses, determinants, solvers,
factorizations, norms): NOTE [ Linear algebra ] in ``typedtensor/_runtime/linalg.py``.

Their operands are (batches of) matrices ``[*b, m, n]``: a rule checks the rank (``shape-rank``),
squareness (``shape-arg``) and, for a solver, that the right-hand side's rows are the matrix's
(``shape-matmul``, as the inner dims of a product); batch dims broadcast. The ``typedtensor.linalg``
functions are the entries exposed in the ``linalg`` form, ``linalg_X`` for ``typedtensor.linalg.X``
(``shapes/api.py``). All run on the CPU only (LAPACK).
"""

from __future__ import annotations

from typing import Final

from ..broadcast import broadcast_shapes
from ..dims import UNKNOWN, DimExpr, Unknown, as_int, differs, fmt_dim, same
from ..issue import Issue
from ..registry import Args, Outputs, Result, Rule, op
from ..shape import Shape, ShapeLike, fmt_shape
from ._common import norm_axis

_CPU: Final = "cpu"
_NOT_DIFF_INFO = "an integer status code"


def _matrix(name: str, what: str, x: ShapeLike, square: bool) -> Issue | tuple[DimExpr, DimExpr] | None:
    """``x``'s last two dims (None when they are not spelled out), or the Issue that it is not a
    (batch of) matrix, square where asked."""
    if isinstance(x, Unknown):
        return None
    if x.is_fixed and len(x.dims) < 2:
        return Issue("shape-rank", f"{name}: {what} must have at least 2 dimensions (a matrix or a batch of "
                                   f"matrices), got {len(x.dims)}; shape {fmt_shape(x)}")
    if len(x.tail) < 2:
        return None
    m, n = x.tail[-2], x.tail[-1]
    if square and differs(m, n):
        return Issue("shape-arg", f"{name}: {what} must be batches of square matrices, but they are {fmt_dim(m)} by "
                                  f"{fmt_dim(n)} matrices; shape {fmt_shape(x)}")
    return m, n


def _batch(x: Shape) -> Shape:
    return x.with_tail(x.tail[:-2])


def _square_same(name: str, arg: str) -> Rule:
    """An op of one square matrix whose result has its shape (inverse, Cholesky factor, power)."""
    def rule(args: Args) -> Result:
        x: ShapeLike = args[arg]
        got = _matrix(name.replace("linalg_", "linalg."), arg, x, True)
        if isinstance(got, Issue):
            return got
        return x if got is not None else UNKNOWN
    return rule


def _square_batch(name: str, arg: str) -> Rule:
    """An op of one square matrix with one number per matrix (determinants)."""
    def rule(args: Args) -> Result:
        x = args[arg]
        got = _matrix(name.replace("linalg_", "linalg."), arg, x, True)
        if isinstance(got, Issue):
            return got
        return _batch(x) if got is not None else UNKNOWN
    return rule


def _min(m: DimExpr, n: DimExpr) -> DimExpr:
    if same(m, n):
        return m
    a, b = as_int(m), as_int(n)
    return min(a, b) if a is not None and b is not None else UNKNOWN


def _solve_shape(name: str, A: ShapeLike, B: ShapeLike, left: bool = True, vector_ok: bool = True) -> Result:
    """``A [*b, n, n]`` and ``B [*b, n, k]`` (``[*b, k, n]`` with left=False; a vector ``[*b, n]``
    where torch reads B as one): B's shape with the batch dims broadcast."""
    shown = f"{name}: "
    got = _matrix(name, "A", A, True)
    if isinstance(got, Issue) or got is None or isinstance(B, Unknown):
        return got if isinstance(got, Issue) else UNKNOWN
    assert isinstance(A, Shape)
    n = got[1]
    if B.is_fixed and len(B.dims) == 0:
        return Issue("shape-rank", f"{shown}B must have at least 1 dimension; shapes A {fmt_shape(A)}, B {fmt_shape(B)}")
    vector = vector_ok and B.is_fixed and A.is_fixed and (
        len(B.dims) == 1 or (len(B.dims) == len(A.dims) - 1 and all(same(a, b) for a, b in zip(A.dims[:-1], B.dims, strict=True))))
    if vector:
        if differs(B.dims[-1], n):
            return Issue("shape-matmul", f"{shown}A is {fmt_dim(n)} by {fmt_dim(n)} but the vector B has "
                                         f"{fmt_dim(B.dims[-1])} entries; shapes A {fmt_shape(A)}, B {fmt_shape(B)}")
        rows = Shape(A.dims[:-1])
        return rows if len(B.dims) == len(A.dims) - 1 else Shape((n,)) if len(A.dims) == 2 else rows
    if len(B.tail) < 2:
        if B.is_fixed:
            return Issue("shape-rank", f"{shown}B must have at least 2 dimensions here; shapes A {fmt_shape(A)}, "
                                       f"B {fmt_shape(B)}")
        return UNKNOWN
    inner = B.tail[-2] if left else B.tail[-1]
    if differs(inner, n):
        where = "rows (dim -2)" if left else "columns (dim -1)"
        eq = "A X = B" if left else "X A = B"
        return Issue("shape-matmul", f"{shown}incompatible shapes for {eq}: A is {fmt_dim(n)} by {fmt_dim(n)} but B "
                                     f"has {fmt_dim(inner)} {where}; shapes A {fmt_shape(A)}, B {fmt_shape(B)}")
    batch = broadcast_shapes(_batch(A), _batch(B), name)
    if isinstance(batch, Issue):
        return Issue(batch.code, f"{shown}the batch dimensions of A and B do not broadcast; shapes A {fmt_shape(A)}, "
                                 f"B {fmt_shape(B)}")
    if not isinstance(batch, Shape):
        return batch
    return batch.with_tail((*batch.tail, B.tail[-2], B.tail[-1]))


# ---------------- inverses and determinants ----------------
for _name, _params, _arg, _expose in (
    ("linalg_inv", "A:tensor", "A", "linalg"),
    ("inverse", "input:tensor", "input", "tt method"),
    ("linalg_cholesky", "A:tensor, *, upper:bool=False", "A", "linalg"),
    ("cholesky", "input:tensor, upper:bool=False", "input", "tt method"),
    ("cholesky_inverse", "input:tensor, upper:bool=False", "input", "tt method"),
):
    op(_name, _params, expose=_expose, python=_expose, tags=("linalg",), cuda=_CPU, dtype_rule="float_only",
       signature="(*b, n, n) -> (*b, n, n)")(_square_same(_name, _arg))

for _name, _params, _arg, _expose in (
    ("linalg_det", "A:tensor", "A", "linalg"),
    ("det", "input:tensor", "input", "tt method"),
    ("logdet", "input:tensor", "input", "tt method"),
):
    op(_name, _params, expose=_expose, python=_expose, tags=("linalg",), cuda=_CPU, dtype_rule="float_only",
       signature="(*b, n, n) -> (*b)")(_square_batch(_name, _arg))


def _pair_rule(name: str, arg: str) -> Rule:
    def rule(args: Args) -> Result:
        got = _square_batch(name, arg)(args)
        if isinstance(got, Issue):
            return got
        return Outputs((got, got) if isinstance(got, Shape) else (UNKNOWN, UNKNOWN), names)
    names = ("sign", "logabsdet")
    return rule


op("linalg_slogdet", "A:tensor", expose="linalg", python="linalg", tags=("linalg",), cuda=_CPU,
   dtype_rule="float_only", returns="tuple[_AnyTensor, _AnyTensor]")(_pair_rule("linalg_slogdet", "A"))
op("slogdet", "input:tensor", expose="tt method", python="tt method", tags=("linalg",), cuda=_CPU, dtype_rule="float_only",
   returns="tuple[_AnyTensor, _AnyTensor]")(_pair_rule("slogdet", "input"))


def _with_info(name: str, arg: str, field: str) -> Rule:
    def rule(args: Args) -> Result:
        x = args[arg]
        got = _matrix(name, arg, x, True)
        if isinstance(got, Issue):
            return got
        if got is None:
            return Outputs((UNKNOWN, UNKNOWN), (field, "info"))
        return Outputs((x, _batch(x)), (field, "info"))
    return rule


op("linalg_inv_ex", "A:tensor, *, check_errors:bool=False", expose="linalg", python="linalg",
   tags=("linalg",), cuda=_CPU, dtype_rule="float_only",
   returns="tuple[_AnyTensor, _AnyTensor]")(_with_info("linalg.inv_ex", "A", "inverse"))
op("linalg_cholesky_ex", "A:tensor, *, upper:bool=False, check_errors:bool=False", expose="linalg",
   python="linalg", tags=("linalg",), cuda=_CPU, dtype_rule="float_only",
   returns="tuple[_AnyTensor, _AnyTensor]")(_with_info("linalg.cholesky_ex", "A", "L"))


# ---------------- solvers ----------------
@op("linalg_solve", "A:tensor, B:tensor, *, left:bool=True", expose="linalg", python="linalg",
    tags=("linalg",), cuda=_CPU, dtype_rule="float_only",
    overloads=("(A: Tensor[Unpack[_Bs], _N, _N], B: Tensor[Unpack[_Bs], _N, _K], *, left: _bool = True)"
               " -> Tensor[Unpack[_Bs], _N, _K]",
               "(A: _AnyTensor, B: _AnyTensor, *, left: _bool = True) -> _AnyTensor"))
def linalg_solve(args: Args) -> Result:
    """X with ``A X = B``: ``A [*b, n, n]``, ``B [*b, n, k]`` (or a vector ``[*b, n]``) -> B's shape."""
    return _solve_shape("linalg.solve", args["A"], args["B"], bool(args.get("left", True)))


@op("linalg_solve_ex", "A:tensor, B:tensor, *, left:bool=True, check_errors:bool=False",
    expose="linalg", python="linalg", tags=("linalg",), cuda=_CPU, dtype_rule="float_only",
    returns="tuple[_AnyTensor, _AnyTensor]")
def linalg_solve_ex(args: Args) -> Result:
    """``solve`` and an info code per matrix."""
    x = _solve_shape("linalg.solve_ex", args["A"], args["B"], bool(args.get("left", True)))
    if isinstance(x, Issue):
        return x
    A = args["A"]
    info: ShapeLike = _batch(A) if isinstance(A, Shape) and len(A.tail) >= 2 else UNKNOWN  # one per matrix of A
    return Outputs((x if isinstance(x, (Shape, Unknown)) else UNKNOWN, info), ("result", "info"))


@op("linalg_solve_triangular", "A:tensor, B:tensor, *, upper:bool, left:bool=True, unitriangular:bool=False", expose="linalg", python="linalg", tags=("linalg",), cuda=_CPU, dtype_rule="float_only",
    overloads=("(A: Tensor[Unpack[_Bs], _N, _N], B: Tensor[Unpack[_Bs], _N, _K], *, upper: _bool, left: _bool = True, "
               "unitriangular: _bool = False) -> Tensor[Unpack[_Bs], _N, _K]",
               "(A: _AnyTensor, B: _AnyTensor, *, upper: _bool, left: _bool = True, unitriangular: _bool = False) "
               "-> _AnyTensor"))
def linalg_solve_triangular(args: Args) -> Result:
    """X with ``A X = B`` for triangular ``A [*b, n, n]`` and ``B [*b, n, k]``."""
    return _solve_shape("linalg.solve_triangular", args["A"], args["B"], bool(args.get("left", True)), vector_ok=False)


@op("cholesky_solve", "input:tensor, input2:tensor, upper:bool=False", expose="tt method",
    python="tt method", tags=("linalg",), cuda=_CPU, dtype_rule="float_only")
def cholesky_solve(args: Args) -> Result:
    """X with ``L L^T X = input`` for the factor ``input2 [*b, n, n]`` and ``input [*b, n, k]``."""
    return _solve_shape("cholesky_solve", args["input2"], args["input"], vector_ok=False)


@op("triangular_solve", "input:tensor, A:tensor, upper:bool=True, transpose:bool=False, unitriangular:bool=False", expose="tt method", python="tt method", tags=("linalg",), cuda=_CPU, dtype_rule="float_only",
    returns="tuple[_AnyTensor, _AnyTensor]")
def triangular_solve(args: Args) -> Result:
    """``(solution, cloned_coefficient)`` of ``A X = input``: ``A [*b, n, n]``, ``input [*b, n, k]``."""
    x = _solve_shape("triangular_solve", args["A"], args["input"], vector_ok=False)
    if isinstance(x, Issue):
        return x
    A = args["A"]
    return Outputs((x if isinstance(x, (Shape, Unknown)) else UNKNOWN, A if isinstance(A, Shape) else UNKNOWN),
                   ("solution", "cloned_coefficient"))


@op("linalg_lstsq", "A:tensor, B:tensor, rcond:float=None, *, driver:str=None", expose="linalg", python="linalg",
    tags=("linalg",), cuda=_CPU, dtype_rule="float_only", returns="tuple[_AnyTensor, _AnyTensor, _AnyTensor, _AnyTensor]")
def linalg_lstsq(args: Args) -> Result:
    """The least-squares X of ``A X = B``: ``A [*b, m, n]``, ``B [*b, m, k]`` -> ``X [*b, n, k]``."""
    A, B = args["A"], args["B"]
    got = _matrix("linalg.lstsq", "A", A, False)
    if isinstance(got, Issue) or got is None or isinstance(B, Unknown) or len(B.tail) < 1:
        return got if isinstance(got, Issue) else UNKNOWN
    assert isinstance(A, Shape)
    m, n = got
    vector = B.is_fixed and A.is_fixed and len(B.dims) == len(A.dims) - 1
    rows = B.tail[-1] if vector else (B.tail[-2] if len(B.tail) >= 2 else None)
    if rows is None:
        return UNKNOWN
    if differs(rows, m):
        return Issue("shape-matmul", f"linalg.lstsq: A has {fmt_dim(m)} rows but B has {fmt_dim(rows)}; shapes "
                                     f"A {fmt_shape(A)}, B {fmt_shape(B)}")
    x = Shape((*A.dims[:-2], n)) if vector and A.is_fixed else None
    if x is None:
        batch = broadcast_shapes(_batch(A), B.with_tail(B.tail[:-2]), "linalg.lstsq")
        if not isinstance(batch, Shape):
            return batch
        x = batch.with_tail((*batch.tail, n, B.tail[-1]))
    return Outputs((x, UNKNOWN, UNKNOWN, UNKNOWN), ("solution", "residuals", "rank", "singular_values"))


# ---------------- factorizations ----------------
def _qr_shapes(name: str, x: ShapeLike, complete: bool, r_only: bool = False) -> Result:
    got = _matrix(name, "A", x, False)
    if isinstance(got, Issue):
        return got
    if got is None:
        return Outputs((UNKNOWN, UNKNOWN), ("Q", "R"))
    assert isinstance(x, Shape)
    m, n = got
    k = m if complete else _min(m, n)
    q: ShapeLike = Shape((0,)) if r_only else _batch(x).with_tail((*_batch(x).tail, m, k))
    return Outputs((q, _batch(x).with_tail((*_batch(x).tail, k, n))), ("Q", "R"))


@op("linalg_qr", "A:tensor, mode:str='reduced'", expose="linalg", python="linalg", tags=("linalg",),
    cuda=_CPU, dtype_rule="float_only", returns="tuple[_AnyTensor, _AnyTensor]")
def linalg_qr(args: Args) -> Result:
    """``A [*b, m, n] = Q R``: reduced Q ``[*b, m, k]``, R ``[*b, k, n]`` (k = min(m, n)); complete
    Q ``[*b, m, m]``, R ``[*b, m, n]``."""
    mode = args.get("mode", "reduced")
    return _qr_shapes("linalg.qr", args["A"], mode == "complete", mode == "r")


@op("qr", "input:tensor, some:bool=True", expose="tt method", python="tt method", tags=("linalg",),
    cuda=_CPU, dtype_rule="float_only", returns="tuple[_AnyTensor, _AnyTensor]")
def qr(args: Args) -> Result:
    """torch.qr: ``linalg.qr`` with ``some`` (reduced) or not (complete)."""
    return _qr_shapes("qr", args["input"], args.get("some", True) is False)


def _eigh(name: str, values_only: bool) -> Rule:
    def rule(args: Args) -> Result:
        x = args["A"]
        got = _matrix(name, "A", x, True)
        if isinstance(got, Issue):
            return got
        if got is None:
            return UNKNOWN if values_only else Outputs((UNKNOWN, UNKNOWN), ("eigenvalues", "eigenvectors"))
        assert isinstance(x, Shape)
        values = x.with_tail(x.tail[:-1])
        return values if values_only else Outputs((values, x), ("eigenvalues", "eigenvectors"))
    return rule


op("linalg_eigh", "A:tensor, UPLO:str='L'", expose="linalg", python="linalg", tags=("linalg",),
   cuda=_CPU, dtype_rule="float_only", returns="tuple[_AnyTensor, _AnyTensor]")(_eigh("linalg.eigh", False))
op("linalg_eigvalsh", "A:tensor, UPLO:str='L'", expose="linalg", python="linalg", tags=("linalg",),
   cuda=_CPU, dtype_rule="float_only")(_eigh("linalg.eigvalsh", True))


def _svd_shapes(name: str, x: ShapeLike, full: bool, v_not_vh: bool = False) -> Result:
    names = ("U", "S", "V" if v_not_vh else "Vh")
    got = _matrix(name, "A" if not v_not_vh else "input", x, False)
    if isinstance(got, Issue):
        return got
    if got is None:
        return Outputs((UNKNOWN, UNKNOWN, UNKNOWN), names)
    assert isinstance(x, Shape)
    m, n = got
    k = _min(m, n)
    b = _batch(x)
    u = b.with_tail((*b.tail, m, m if full else k))
    v = b.with_tail((*b.tail, n, n if full else k)) if v_not_vh else b.with_tail((*b.tail, n if full else k, n))
    return Outputs((u, b.with_tail((*b.tail, k)), v), names)


@op("linalg_svd", "A:tensor, full_matrices:bool=True, *, driver:str=None", expose="linalg",
    python="linalg", tags=("linalg",), cuda=_CPU, dtype_rule="float_only",
    returns="tuple[_AnyTensor, _AnyTensor, _AnyTensor]")
def linalg_svd(args: Args) -> Result:
    """``A [*b, m, n] = U diag(S) Vh``: U ``[*b, m, k]``, S ``[*b, k]``, Vh ``[*b, k, n]`` (k = min(m, n);
    m and n in place of k for U and Vh with full_matrices)."""
    return _svd_shapes("linalg.svd", args["A"], args.get("full_matrices", True) is not False)


@op("svd", "input:tensor, some:bool=True, compute_uv:bool=True", expose="tt method",
    python="tt method", tags=("linalg",), cuda=_CPU, dtype_rule="float_only",
    returns="tuple[_AnyTensor, _AnyTensor, _AnyTensor]")
def svd(args: Args) -> Result:
    """torch.svd: U, S and V (not Vh); ``some=False`` or ``compute_uv=False`` the full sizes."""
    full = args.get("some", True) is False or args.get("compute_uv", True) is False
    return _svd_shapes("svd", args["input"], full, v_not_vh=True)


@op("linalg_svdvals", "A:tensor, *, driver:str=None", expose="linalg", python="linalg",
    tags=("linalg",), cuda=_CPU, dtype_rule="float_only")
def linalg_svdvals(args: Args) -> Result:
    """The singular values ``[*b, min(m, n)]`` of ``A [*b, m, n]``."""
    got = _svd_shapes("linalg.svdvals", args["A"], False)
    if isinstance(got, Outputs) and not isinstance(got.shapes, Unknown):
        s = got.shapes[1]
        return s if isinstance(s, (Shape, Unknown)) else UNKNOWN
    return got


def _transposed(name: str, arg: str) -> Rule:
    def rule(args: Args) -> Result:
        x = args[arg]
        got = _matrix(name, arg, x, False)
        if isinstance(got, Issue) or got is None:
            return got if got is not None else UNKNOWN
        assert isinstance(x, Shape)
        return x.with_tail((*x.tail[:-2], got[1], got[0]))
    return rule


op("linalg_pinv", "A:tensor, *, atol:any=None, rtol:any=None, hermitian:bool=False", expose="linalg",
   python="linalg", tags=("linalg",), cuda=_CPU, dtype_rule="float_only", autocast="cpu=lower",  # its products
   signature="(*b, m, n) -> (*b, n, m)")(_transposed("linalg.pinv", "A"))
op("pinverse", "input:tensor, rcond:float=1e-15", expose="tt method", python="tt method", tags=("linalg",), cuda=_CPU,
   dtype_rule="float_only", signature="(*b, m, n) -> (*b, n, m)")(_transposed("pinverse", "input"))

for _name, _params, _arg, _expose in (
    ("linalg_matrix_power", "A:tensor, n:int", "A", "linalg"),
    ("matrix_power", "input:tensor, n:int", "input", "tt method"),
):
    op(_name, _params, expose=_expose, python=_expose, tags=("linalg",), cuda=_CPU, autocast="cpu=lower",
       signature="(*b, n, n) -> (*b, n, n)")(_square_same(_name, _arg))


# ---------------- norms and products ----------------
def _reduce_dims(name: str, x: ShapeLike, dim: object, keepdim: object) -> Result:
    if isinstance(x, Unknown) or not x.is_fixed:
        return UNKNOWN
    if dim is None:
        return Shape((1,) * len(x.dims)) if keepdim is True else Shape(())
    dims = (dim,) if isinstance(dim, int) else tuple(dim) if isinstance(dim, (tuple, list)) else None
    if dims is None or any(as_int(d) is None for d in dims):
        return UNKNOWN
    pos: list[int] = []
    for d in dims:
        p = norm_axis(name, x, d)
        if isinstance(p, Issue):
            return p
        if p is None:
            return UNKNOWN
        pos.append(p)
    if keepdim is True:
        return Shape(tuple(1 if i in pos else d for i, d in enumerate(x.dims)))
    return Shape(tuple(d for i, d in enumerate(x.dims) if i not in pos))


@op("linalg_vector_norm", "x:tensor, ord:any=2, dim:any=None, keepdim:bool=False, *, dtype:dtype=None",
    expose="linalg", python="linalg", tags=("linalg", "reduction"), cuda=_CPU, dtype_rule="float_only")
def linalg_vector_norm(args: Args) -> Result:
    """A vector norm over ``dim`` (every dim when None)."""
    return _reduce_dims("linalg.vector_norm", args["x"], args.get("dim"), args.get("keepdim", False))


@op("linalg_matrix_norm", "A:tensor, ord:any='fro', dim:any=(-2, -1), keepdim:bool=False, *, dtype:dtype=None", expose="linalg", python="linalg", tags=("linalg", "reduction"), cuda=_CPU, dtype_rule="float_only")
def linalg_matrix_norm(args: Args) -> Result:
    """A matrix norm over the two dims ``dim``."""
    x = args["A"]
    got = _matrix("linalg.matrix_norm", "A", x, False)
    if isinstance(got, Issue):
        return got
    return _reduce_dims("linalg.matrix_norm", x, args.get("dim", (-2, -1)), args.get("keepdim", False))


@op("linalg_norm", "A:tensor, ord:any=None, dim:any=None, keepdim:bool=False, *, dtype:dtype=None",
    expose="linalg", python="linalg", tags=("linalg", "reduction"), cuda=_CPU, dtype_rule="float_only")
def linalg_norm(args: Args) -> Result:
    """A vector norm (one dim, or everything) or a matrix norm (two dims)."""
    return _reduce_dims("linalg.norm", args["A"], args.get("dim"), args.get("keepdim", False))


@op("linalg_matrix_rank", "A:tensor, *, atol:any=None, rtol:any=None, hermitian:bool=False, tol:any=None",
    expose="linalg", python="linalg", tags=("linalg",), cuda=_CPU, differentiable=False, gradient="an integer count",
    dtype_rule="int64")
def linalg_matrix_rank(args: Args) -> Result:
    """One rank per matrix of ``A [*b, m, n]``: ``[*b]``."""
    x = args["A"]
    got = _matrix("linalg.matrix_rank", "A", x, False)
    if isinstance(got, Issue) or got is None:
        return got if got is not None else UNKNOWN
    assert isinstance(x, Shape)
    return _batch(x)


@op("linalg_cond", "A:tensor, p:any=None", expose="linalg", python="linalg", tags=("linalg",),
    cuda=_CPU, dtype_rule="float_only")
def linalg_cond(args: Args) -> Result:
    """One condition number per matrix of ``A [*b, m, n]``: ``[*b]``."""
    x = args["A"]
    got = _matrix("linalg.cond", "A", x, False)
    if isinstance(got, Issue) or got is None:
        return got if got is not None else UNKNOWN
    assert isinstance(x, Shape)
    return _batch(x)


@op("linalg_cross", "input:tensor, other:tensor, *, dim:int=-1", expose="linalg", python="linalg",
    tags=("linalg",), cuda=_CPU, dtype_rule="promote")
def linalg_cross(args: Args) -> Result:
    """The cross product along ``dim`` (size 3) of two broadcast tensors."""
    a, b = args["input"], args["other"]
    if isinstance(a, Unknown) or isinstance(b, Unknown):
        return UNKNOWN
    if a.is_fixed and b.is_fixed and len(a.dims) != len(b.dims):
        return Issue("shape-rank", f"linalg.cross: the inputs must have the same number of dimensions; shapes "
                                   f"{fmt_shape(a)}, {fmt_shape(b)}")
    out = broadcast_shapes(a, b, "linalg.cross")
    if not isinstance(out, Shape) or not out.is_fixed:
        return out
    p = norm_axis("linalg.cross", out, args.get("dim", -1))
    if isinstance(p, Issue):
        return p
    sizes = [as_int(x.dims[p]) for x in (a, b)] if p is not None and a.is_fixed and b.is_fixed else []
    size = next((v for v in sizes if v is not None and v != 3), None)  # a named dim may be 3
    if size is not None:  # each input needs 3 there: torch does not broadcast the vectors themselves
        return Issue("shape-arg", f"linalg.cross: dim {args.get('dim', -1)} must have size 3 in both inputs, got "
                                  f"{size}; shapes {fmt_shape(a)}, {fmt_shape(b)}")
    return out


@op("linalg_vecdot", "x:tensor, y:tensor, *, dim:int=-1", expose="linalg", python="linalg",
    tags=("linalg",), cuda=_CPU, dtype_rule="promote", autocast="cpu=lower")
def linalg_vecdot(args: Args) -> Result:
    """The dot product along ``dim`` of two broadcast tensors: that dim removed."""
    a, b = args["x"], args["y"]
    if isinstance(a, Unknown) or isinstance(b, Unknown):
        return UNKNOWN
    out = broadcast_shapes(a, b, "linalg.vecdot", ",")
    if not isinstance(out, Shape):
        return out
    dim = as_int(args.get("dim", -1))
    da, db = (x.dim(dim) if dim is not None else None for x in (a, b))
    vectors = a.is_fixed and b.is_fixed and len(a.dims) == len(b.dims) == 1  # torch.dot then: no broadcasting
    if vectors and da is not None and db is not None and differs(da, db):
        return Issue("shape-arg", f"linalg.vecdot: the vectors along dim {dim} differ in size: {fmt_dim(da)} vs "
                                  f"{fmt_dim(db)}; shapes {fmt_shape(a)}, {fmt_shape(b)}")
    return _reduce_dims("linalg.vecdot", out, args.get("dim", -1), False)


@op("linalg_multi_dot", "tensors:any", expose="linalg", python="linalg", tags=("linalg",),
    cuda=_CPU, dtype_rule="promote", autocast="cpu=lower")
def linalg_multi_dot(args: Args) -> Result:
    """The product of a chain ``[a, b] @ [b, c] @ ...`` (the first may be 1-d, the last 1-d)."""
    from .linalg import matmul_shapes

    ts = args["tensors"]
    if not isinstance(ts, (list, tuple)) or not ts:
        return UNKNOWN
    acc: Result = ts[0]
    for t in ts[1:]:
        if not isinstance(acc, (Shape, Unknown)):
            return acc
        acc = matmul_shapes(acc, t, "linalg.multi_dot")
    return acc


@op("linalg_matmul", "input:tensor, other:tensor", expose="linalg", python="linalg", tags=("linalg",),
    autocast="cpu=lower", signature="(*b, m, k), (*b, k, n) -> (*b, m, n)")
def linalg_matmul(args: Args) -> Result:
    """``torch.matmul``."""
    from .linalg import matmul_shapes

    return matmul_shapes(args["input"], args["other"], "linalg.matmul")


@op("linalg_diagonal", "A:tensor, *, offset:int=0, dim1:int=-2, dim2:int=-1", expose="linalg", python="linalg",
    tags=("linalg", "view"))
def linalg_diagonal(args: Args) -> Result:
    """``torch.diagonal`` over the last two dims by default."""
    from ..registry import get_op

    return get_op("diagonal").rule({"input": args["A"], "offset": args.get("offset", 0), "dim1": args.get("dim1", -2),
                                    "dim2": args.get("dim2", -1)})
