"""``torch.linalg`` and the top-level linear-algebra ops (``inverse``, ``det``, ``svd``, ...).

NOTE [ Linear algebra ]
The factorizations and solvers are primitives of the C++ backend over LAPACK
(``backend/src/core/ops_lapack.cpp``: LU solve, log-determinant, Cholesky, triangular solve,
symmetric eigendecomposition, SVD, QR), float32 and float64, batched over the leading dims, CPU
only, each with its VJP. Everything else here is a composition of those and of ordinary tensor ops,
so autograd sees only primitives: ``inv`` is ``solve(A, I)``, ``det`` is ``sign * exp(logabsdet)``,
``pinv`` and the spectral norms go through the SVD. Each function checks its shapes against its
op-table rule first (``check``), so a bad call raises the registry's ``ShapeError`` naming the
function and the shapes; what LAPACK reports (a singular matrix, one that is not positive-definite)
is a ``LinAlgError`` with torch's wording.
"""

from __future__ import annotations

import math
from collections import namedtuple
from collections.abc import Sequence
from typing import Any

from typedtensor._runtime import _loader
from typedtensor._runtime.errors import check

_C = _loader.load_core()

LinAlgError = _C.LinAlgError
LinAlgError.__module__ = "typedtensor.linalg"
LinAlgError.__qualname__ = "LinAlgError"


def _result(name: str, fields: Sequence[str]) -> Any:
    t = namedtuple(name, list(fields))  # type: ignore[misc]
    t.__module__ = "typedtensor.return_types"
    return t


linalg_inv_ex = _result("linalg_inv_ex", ["inverse", "info"])
linalg_solve_ex = _result("linalg_solve_ex", ["result", "info"])
linalg_cholesky_ex = _result("linalg_cholesky_ex", ["L", "info"])
linalg_slogdet = _result("linalg_slogdet", ["sign", "logabsdet"])
linalg_qr = _result("linalg_qr", ["Q", "R"])
linalg_eigh = _result("linalg_eigh", ["eigenvalues", "eigenvectors"])
linalg_svd = _result("linalg_svd", ["U", "S", "Vh"])
linalg_lstsq = _result("linalg_lstsq", ["solution", "residuals", "rank", "singular_values"])
slogdet_result = _result("slogdet", ["sign", "logabsdet"])
qr_result = _result("qr", ["Q", "R"])
svd_result = _result("svd", ["U", "S", "V"])
triangular_solve_result = _result("triangular_solve", ["solution", "cloned_coefficient"])


def _mT(x: Any) -> Any:
    return x.transpose(-2, -1)


def _eye(n: int, like: Any) -> Any:
    return _C.eye(n, dtype=like.dtype)


def _eps(x: Any) -> float:
    return 2.220446049250313e-16 if x.dtype == _C.float64 else 1.1920928955078125e-07


# ---------------- inverses, determinants, solvers ----------------
def inv_ex(A: Any, *, check_errors: bool = False) -> Any:
    """The inverse and LAPACK's info per matrix (0: invertible); raises only with check_errors."""
    check("linalg_inv_ex", A=A)
    X, info = _C._linalg_solve_ex(A, _eye(A.shape[-1], A), check_errors, "linalg.inv")
    return linalg_inv_ex(X, info)


def inv(A: Any) -> Any:
    """The inverse of square matrices ``[*, n, n]``: LU-solve against the identity (getrf + getrs)."""
    check("linalg_inv", A=A)
    return _C._linalg_solve_ex(A, _eye(A.shape[-1], A), True, "linalg.inv")[0]


def inverse(input: Any) -> Any:
    """torch.inverse: ``linalg.inv``."""
    check("inverse", input=input)
    return _C._linalg_solve_ex(input, _eye(input.shape[-1], input), True, "linalg.inv")[0]


def _slogdet(A: Any, op: str = "linalg.slogdet") -> tuple[Any, Any]:
    sign, logabsdet = _C._linalg_slogdet(A, op)
    return sign, logabsdet


def slogdet(input: Any) -> Any:
    """torch.slogdet / Tensor.slogdet: the sign of the determinant and the log of its absolute value."""
    check("slogdet", input=input)
    return slogdet_result(*_slogdet(input))


def linalg_slogdet_fn(A: Any) -> Any:
    """torch.linalg.slogdet."""
    check("linalg_slogdet", A=A)
    return linalg_slogdet(*_slogdet(A))


def _det(A: Any) -> Any:
    sign, logabsdet = _slogdet(A, "linalg.det")
    return sign * logabsdet.exp()


def det(input: Any) -> Any:
    """torch.det / Tensor.det: ``sign * exp(logabsdet)`` of the LU factorization (0 when singular)."""
    check("det", input=input)
    return _det(input)


def linalg_det_fn(A: Any) -> Any:
    """torch.linalg.det."""
    check("linalg_det", A=A)
    return _det(A)


def logdet(input: Any) -> Any:
    """torch.logdet: the log of the determinant (nan when it is negative, -inf when it is 0)."""
    check("logdet", input=input)
    sign, logabsdet = _slogdet(input, "logdet")
    return logabsdet + sign.log()


def _vector_rhs(A: Any, B: Any) -> bool:
    """torch's rule for solve: B is a (batch of) vector(s) when it is 1-d or has A's batch shape
    and one dim fewer."""
    return B.ndim == 1 or (B.ndim == A.ndim - 1 and tuple(B.shape) == tuple(A.shape[:-1]))


def _solve(A: Any, B: Any, left: bool, check_errors: bool) -> tuple[Any, Any]:
    vec = _vector_rhs(A, B)
    b = B.unsqueeze(-1) if vec else B
    if left:
        X, info = _C._linalg_solve_ex(A, b, check_errors, "linalg.solve")
    else:  # X A = B  <=>  A^T X^T = B^T
        X, info = _C._linalg_solve_ex(_mT(A), _mT(b), check_errors, "linalg.solve")
        X = _mT(X)
    return (X.squeeze(-1) if vec else X), info


def solve(A: Any, B: Any, *, left: bool = True) -> Any:
    """X with ``A X = B`` (or ``X A = B`` with ``left=False``); B may be a batch of vectors."""
    check("linalg_solve", A=A, B=B, left=left)
    return _solve(A, B, left, True)[0]


def solve_ex(A: Any, B: Any, *, left: bool = True, check_errors: bool = False) -> Any:
    """``solve`` and LAPACK's info per matrix of A (its batch shape, as torch's, however B broadcasts
    it); raises only with check_errors."""
    check("linalg_solve_ex", A=A, B=B, left=left)
    X, info = _solve(A, B, left, check_errors)
    batch = tuple(A.shape[:-2])
    if tuple(info.shape) != batch:  # A's matrices repeated along B's batch: each copy has the same code
        if info.numel() == 0:
            info = _C.zeros(*batch, dtype=info.dtype)
        else:
            info = info[(0,) * (info.ndim - len(batch))]
            for i, size in enumerate(batch):
                if size == 1 and info.shape[i] != 1:
                    info = info.narrow(i, 0, 1)
    return linalg_solve_ex(X, info)


def _cholesky(A: Any, upper: bool, check_errors: bool) -> tuple[Any, Any]:
    L, info = _C._linalg_cholesky_ex(A, check_errors, "linalg.cholesky")
    return (_mT(L) if upper else L), info


def cholesky_ex(A: Any, *, upper: bool = False, check_errors: bool = False) -> Any:
    """``cholesky`` and potrf's info per matrix (i > 0: the leading minor of order i is not
    positive-definite); raises only with check_errors."""
    check("linalg_cholesky_ex", A=A, upper=upper)
    return linalg_cholesky_ex(*_cholesky(A, upper, check_errors))


def linalg_cholesky_fn(A: Any, *, upper: bool = False) -> Any:
    """torch.linalg.cholesky: L with ``A = L L^T`` (U = L^T with ``upper``), from A's lower triangle."""
    check("linalg_cholesky", A=A, upper=upper)
    return _cholesky(A, upper, True)[0]


def cholesky(input: Any, upper: bool = False) -> Any:
    """torch.cholesky (torch's older spelling of ``linalg.cholesky``)."""
    check("cholesky", input=input, upper=upper)
    return _cholesky(input, upper, True)[0]


def _solve_triangular(A: Any, B: Any, upper: bool, left: bool, unitriangular: bool) -> Any:
    if left:
        return _C._linalg_solve_triangular(A, B, upper, unitriangular)
    return _mT(_C._linalg_solve_triangular(_mT(A), _mT(B), not upper, unitriangular))


def solve_triangular(A: Any, B: Any, *, upper: bool, left: bool = True, unitriangular: bool = False) -> Any:
    """X with ``A X = B`` (``X A = B`` with ``left=False``) for triangular A (BLAS trsm: only A's
    triangle is read; a zero on its diagonal gives inf/nan, as in torch)."""
    check("linalg_solve_triangular", A=A, B=B, upper=upper, left=left)
    return _solve_triangular(A, B, upper, left, unitriangular)


def triangular_solve(input: Any, A: Any, upper: bool = True, transpose: bool = False,
                     unitriangular: bool = False) -> Any:
    """torch.triangular_solve: X with ``A X = input`` (``A^T X = input`` with ``transpose``), and a
    copy of A."""
    check("triangular_solve", input=input, A=A)
    a = _mT(A) if transpose else A
    X = _C._linalg_solve_triangular(a, input, upper != transpose, unitriangular)
    return triangular_solve_result(X, A.clone())


def cholesky_solve(input: Any, input2: Any, upper: bool = False) -> Any:
    """torch.cholesky_solve: X with ``A X = input`` for ``A = L L^T`` given ``L = input2`` (or
    ``A = U^T U`` with ``upper``): two triangular solves."""
    check("cholesky_solve", input=input, input2=input2)
    L = _mT(input2) if upper else input2
    y = _C._linalg_solve_triangular(L, input, False, False)
    return _C._linalg_solve_triangular(_mT(L), y, True, False)


def cholesky_inverse(input: Any, upper: bool = False) -> Any:
    """torch.cholesky_inverse: ``A^-1`` from A's Cholesky factor."""
    check("cholesky_inverse", input=input)
    return cholesky_solve(_eye(input.shape[-1], input).expand(*input.shape), input, upper)


# ---------------- decompositions ----------------
def qr(A: Any, mode: str = "reduced") -> Any:
    """torch.linalg.qr: ``A = Q R`` (geqrf + orgqr); ``mode`` reduced, complete or r (R only)."""
    check("linalg_qr", A=A, mode=mode)
    Q, R = _C._linalg_qr(A, mode)
    return linalg_qr(Q, R)


def qr_legacy(input: Any, some: bool = True) -> Any:
    """torch.qr / Tensor.qr: ``linalg.qr`` with ``some`` for reduced (True) or complete."""
    check("qr", input=input, some=some)
    Q, R = _C._linalg_qr(input, "reduced" if some else "complete")
    return qr_result(Q, R)


def eigh(A: Any, UPLO: str = "L") -> Any:
    """Eigenvalues (ascending) and eigenvectors (columns) of symmetric matrices, read from the
    ``UPLO`` triangle (syevd)."""
    check("linalg_eigh", A=A, UPLO=UPLO)
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    L, V = _C._linalg_eigh(A, UPLO == "U", "linalg.eigh")
    return linalg_eigh(L, V)


def eigvalsh(A: Any, UPLO: str = "L") -> Any:
    """The eigenvalues of ``eigh`` (the eigenvectors are computed too: the gradient needs them)."""
    check("linalg_eigvalsh", A=A, UPLO=UPLO)
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    return _C._linalg_eigh(A, UPLO == "U", "linalg.eigvalsh")[0]


def svd(A: Any, full_matrices: bool = True, *, driver: str | None = None) -> Any:
    """torch.linalg.svd: ``A = U diag(S) Vh`` (gesdd), S descending."""
    check("linalg_svd", A=A, full_matrices=full_matrices)
    full = full_matrices and A.shape[-1] != A.shape[-2]  # square: the reduced factors are the full ones
    U, S, Vh = _C._linalg_svd(A, full, "linalg.svd")
    return linalg_svd(U, S, Vh)


def svdvals(A: Any, *, driver: str | None = None) -> Any:
    """The singular values of ``svd``, descending (its vectors are computed for the gradient)."""
    check("linalg_svdvals", A=A)
    return _C._linalg_svd(A, False, "linalg.svdvals")[1]


def svd_legacy(input: Any, some: bool = True, compute_uv: bool = True) -> Any:
    """torch.svd / Tensor.svd: U, S and V (not Vh); without compute_uv, U and V are zeros
    ``[*, m, m]`` and ``[*, n, n]``."""
    check("svd", input=input, some=some, compute_uv=compute_uv)
    m, n = input.shape[-2], input.shape[-1]
    if not compute_uv:
        S = _C._linalg_svd(input, False, "linalg.svd")[1]
        batch = tuple(input.shape[:-2])
        return svd_result(_C.zeros(*batch, m, m, dtype=input.dtype), S, _C.zeros(*batch, n, n, dtype=input.dtype))
    U, S, Vh = _C._linalg_svd(input, not some and m != n, "linalg.svd")
    return svd_result(U, S, _mT(Vh))


# ---------------- built from the above ----------------
def _tolerance(S_max: Any, A: Any, atol: Any, rtol: Any) -> Any:
    """torch's ``max(atol, rtol * largest singular value)``; rtol defaults to eps * max(m, n) when
    neither is given, to 0 when only atol is."""
    if rtol is None:
        rtol = _eps(A) * max(A.shape[-1], A.shape[-2]) if atol is None or (isinstance(atol, (int, float)) and atol <= 0) else 0.0
    tol = S_max * rtol
    if atol is not None:
        tol = _C.maximum(tol, atol if isinstance(atol, _C.Tensor) else _C.full_like(tol, float(atol)))
    return tol


def pinv(A: Any, *, atol: Any = None, rtol: Any = None, hermitian: bool = False) -> Any:
    """The pseudo-inverse through the SVD (``eigh`` when hermitian): singular values at most
    ``max(atol, rtol * S_max)`` count as zero."""
    check("linalg_pinv", A=A)
    return _pinv(A, atol, rtol, hermitian)


def _pinv(A: Any, atol: Any, rtol: Any, hermitian: bool) -> Any:
    if A.numel() == 0:
        return _C.zeros(*A.shape[:-2], A.shape[-1], A.shape[-2], dtype=A.dtype)
    if hermitian:
        L, V = _C._linalg_eigh(A, False, "linalg.pinv")
        absL = L.abs()
        tol = _tolerance(absL.amax(-1, keepdim=True), A, atol, rtol)
        keep = absL > tol
        Linv = _C.where(keep, 1.0 / _C.where(keep, L, _C.ones_like(L)), _C.zeros_like(L))
        return V @ (Linv.unsqueeze(-1) * _mT(V))
    U, S, Vh = _C._linalg_svd(A, False, "linalg.pinv")
    tol = _tolerance(S.amax(-1, keepdim=True), A, atol, rtol)
    keep = tol < S
    Sinv = _C.where(keep, 1.0 / _C.where(keep, S, _C.ones_like(S)), _C.zeros_like(S))
    return _mT(Vh) @ (Sinv.unsqueeze(-1) * _mT(U))


def pinverse(input: Any, rcond: float = 1e-15) -> Any:
    """torch.pinverse: ``linalg.pinv`` with ``rtol = rcond``."""
    check("pinverse", input=input)
    return _pinv(input, None, rcond, False)


def lstsq(A: Any, B: Any, rcond: float | None = None, *, driver: str | None = None) -> Any:
    """The least-squares solution of ``A X = B`` through the pseudo-inverse (the minimum-norm one,
    as torch's default CPU driver gelsy); ``rank`` as gelsy reports it, ``residuals`` and
    ``singular_values`` empty (as with gelsy)."""
    check("linalg_lstsq", A=A, B=B)
    vec = B.ndim == A.ndim - 1
    b = B.unsqueeze(-1) if vec else B
    rtol = rcond if rcond is not None else _eps(A) * max(A.shape[-1], A.shape[-2])
    X = _pinv(A, None, rtol, False) @ b
    rank = matrix_rank(A, rtol=rtol) if A.numel() else _C.zeros(*A.shape[:-2], dtype=_C.int64)
    empty = _C.zeros(0, dtype=A.dtype)
    return linalg_lstsq(X.squeeze(-1) if vec else X, empty, rank, empty)


def linalg_matrix_power_fn(A: Any, n: int) -> Any:
    """torch.linalg.matrix_power."""
    check("linalg_matrix_power", A=A, n=n)
    return _matrix_power(A, n)


def matrix_power(input: Any, n: int) -> Any:
    """torch.matrix_power / Tensor.matrix_power."""
    check("matrix_power", input=input, n=n)
    return _matrix_power(input, n)


def _matrix_power(A: Any, n: int) -> Any:
    """``A^n`` by repeated squaring; ``n = 0`` the identity, ``n < 0`` powers of the inverse."""
    if not isinstance(n, int) or isinstance(n, bool):
        raise TypeError(f"matrix_power(): argument 'n' must be int, not {type(n).__name__}")
    if n == 0:
        return _eye(A.shape[-1], A).expand(*A.shape).clone()
    base = _C._linalg_solve_ex(A, _eye(A.shape[-1], A), True, "linalg.inv")[0] if n < 0 else A
    k = abs(n)
    result = None
    while k:
        if k & 1:
            result = base if result is None else result @ base
        k >>= 1
        if k:
            base = base @ base
    return result


def _dims(dim: Any) -> tuple[int, ...] | None:
    if dim is None:
        return None
    if isinstance(dim, int):
        return (dim,)
    return tuple(int(d) for d in dim)


def vector_norm(x: Any, ord: Any = 2, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Any:
    """``(sum |x|^ord)^(1/ord)`` over ``dim`` (all dims when None); ``ord`` inf / -inf the largest /
    smallest ``|x|``, 0 the count of nonzeros."""
    check("linalg_vector_norm", x=x, dim=dim, keepdim=keepdim)
    if dtype is not None:
        x = x.to(dtype)
    if not x.is_floating_point():
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as input. Got {x.dtype}")
    dims = _dims(dim)
    if dims is None:
        dims = tuple(range(x.ndim))
        if not keepdim:
            x = x.reshape(-1)
            dims = (0,) if x.ndim else ()
    if x.ndim == 0:
        dims = ()
    o = float(ord)
    a = x.abs()
    if o == math.inf:
        return a.amax(dims, keepdim=keepdim) if dims else a
    if o == -math.inf:
        return a.amin(dims, keepdim=keepdim) if dims else a
    if o == 0:
        return (x != 0).to(x.dtype).sum(dims, keepdim=keepdim) if dims else (x != 0).to(x.dtype)
    if not dims:
        return a
    return x.norm(o, list(dims), keepdim)


def matrix_norm(A: Any, ord: Any = "fro", dim: Any = (-2, -1), keepdim: bool = False, *, dtype: Any = None) -> Any:
    """The Frobenius, nuclear, 1 / -1 (column sums), inf / -inf (row sums) and 2 / -2 (singular
    value) norms over the two dims ``dim``."""
    check("linalg_matrix_norm", A=A, dim=dim, keepdim=keepdim)
    return _matrix_norm(A, ord, dim, keepdim, dtype)


def _matrix_norm(A: Any, ord: Any, dim: Any, keepdim: bool, dtype: Any) -> Any:
    if dtype is not None:
        A = A.to(dtype)
    d0, d1 = (int(d) % A.ndim for d in dim)
    if d0 == d1:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({dim[0]}, {dim[1]})")
    if ord == "fro":
        return A.norm(2.0, [d0, d1], keepdim)
    if isinstance(ord, str) and ord != "nuc":
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    if ord == "nuc" or abs(float(ord)) == 2:
        S = _C._linalg_svd(A.movedim((d0, d1), (-2, -1)), False, "linalg.matrix_norm")[1]
        r = S.sum(-1) if ord == "nuc" else (S.amax(-1) if float(ord) > 0 else S.amin(-1))
        if keepdim:
            r = r.unsqueeze(min(d0, d1)).unsqueeze(max(d0, d1))
        return r
    o = float(ord)
    if abs(o) == 1:  # the largest / smallest column sum
        s = A.abs().sum(d0, keepdim=True)
        r = s.amax(d1, keepdim=True) if o > 0 else s.amin(d1, keepdim=True)
    elif abs(o) == math.inf:  # the largest / smallest row sum
        s = A.abs().sum(d1, keepdim=True)
        r = s.amax(d0, keepdim=True) if o > 0 else s.amin(d0, keepdim=True)
    else:
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    return r if keepdim else r.squeeze(max(d0, d1)).squeeze(min(d0, d1))


def norm(A: Any, ord: Any = None, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Any:
    """torch.linalg.norm: a vector norm over one dim (or the whole flattened tensor when ``ord``
    and ``dim`` are None), a matrix norm over two."""
    check("linalg_norm", A=A, dim=dim, keepdim=keepdim)
    dims = _dims(dim)
    if dims is not None and len(dims) == 2:
        return _matrix_norm(A, "fro" if ord is None else ord, dims, keepdim, dtype)
    if dims is None and ord is not None:
        if A.ndim == 2:
            return _matrix_norm(A, ord, (-2, -1), keepdim, dtype)
        if A.ndim != 1:
            raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got {A.ndim}D.")
    if isinstance(ord, str):
        raise RuntimeError(f"linalg.vector_norm: Order {ord} not supported for vector norms.")
    return vector_norm(A, 2 if ord is None else ord, dims, keepdim, dtype=dtype)


def matrix_rank(A: Any, *, atol: Any = None, rtol: Any = None, hermitian: bool = False, tol: Any = None) -> Any:
    """The number of singular values (|eigenvalues| when hermitian) above ``max(atol, rtol * S_max)``."""
    check("linalg_matrix_rank", A=A)
    if tol is not None:
        atol, rtol = tol, 0.0
    if A.numel() == 0:
        return _C.zeros(*A.shape[:-2], dtype=_C.int64)
    S = _C._linalg_eigh(A, False, "linalg.matrix_rank")[0].abs() if hermitian else \
        _C._linalg_svd(A, False, "linalg.matrix_rank")[1]
    t = _tolerance(S.amax(-1, keepdim=True), A, atol, rtol)
    return (t < S).sum(-1)


def cond(A: Any, p: Any = None) -> Any:
    """The condition number: ``S_max / S_min`` for p None or 2 (its inverse for -2), else
    ``norm(A, p) * norm(inv(A), p)``."""
    check("linalg_cond", A=A)
    if p is None or (not isinstance(p, str) and abs(float(p)) == 2):
        S = _C._linalg_svd(A, False, "linalg.cond")[1]
        r = S.amax(-1) / S.amin(-1)
        return 1.0 / r if p is not None and float(p) < 0 else r
    return _matrix_norm(A, p, (-2, -1), False, None) * _matrix_norm(inv(A), p, (-2, -1), False, None)


def cross(input: Any, other: Any, *, dim: int = -1) -> Any:
    """The cross product of 3-vectors along ``dim`` (batch dims broadcast)."""
    check("linalg_cross", input=input, other=other, dim=dim)
    shape = _C.broadcast_shapes(tuple(input.shape), tuple(other.shape))
    a, b = input.expand(*shape), other.expand(*shape)
    if a.shape[dim] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got {input.shape[dim]} and "
                           f"{other.shape[dim]}")
    a0, a1, a2 = (a.narrow(dim, i, 1) for i in range(3))
    b0, b1, b2 = (b.narrow(dim, i, 1) for i in range(3))
    return _C.cat([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], dim)


def multi_dot(tensors: Sequence[Any]) -> Any:
    """The product of a chain of matrices (the first may be a row vector, the last a column vector)."""
    check("linalg_multi_dot", tensors=list(tensors))
    ts = list(tensors)
    if len(ts) < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {len(ts)}")
    r = ts[0]
    for t in ts[1:]:
        r = r @ t
    return r


def matmul(input: Any, other: Any) -> Any:
    """torch.linalg.matmul: ``torch.matmul``."""
    return _C.matmul(input, other)


def diagonal(A: Any, *, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Any:
    """torch.linalg.diagonal: ``torch.diagonal`` over the last two dims by default."""
    return _C.diagonal(A, offset, dim1, dim2)


def vecdot(x: Any, y: Any, *, dim: int = -1) -> Any:
    """The dot product of vectors along ``dim`` (batch dims broadcast)."""
    check("linalg_vecdot", x=x, y=y, dim=dim)
    return (x * y).sum(dim)


qr_legacy.__name__ = qr_legacy.__qualname__ = "qr"
svd_legacy.__name__ = svd_legacy.__qualname__ = "svd"
