"""Torch-oracle cases (see ``oracle_cases``) for torch.linalg and the top-level linear-algebra ops
(rules/decompositions.py). Imported at the end of ``oracle_cases``, into whose ``CASES`` it
registers. The matrices torch gets are well conditioned (symmetric positive-definite where square),
so that torch raises only for shapes, never for values (a singular matrix is not a shape fact)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis import strategies as st
from oracle_cases import (  # type: ignore[import-not-found]
    CASES,
    DELIBERATE,
    SIZE,
    Case,
    Draw,
    F,
    S,
    T,
    axis,
    case,
    nn,
    partner,
    shape,
    torch,
)

Dims = tuple[int, ...]
__all__ = ["F", "nn"]  # swapped for typedtensor's with `torch` by tests/backend/test_output_types.py


def W(dims: Dims) -> Any:
    """A well-conditioned tensor of these dims: 3 I plus small symmetric noise where square."""
    if len(dims) >= 2 and dims[-1] == dims[-2]:
        noise = 0.1 * torch.randn(dims)
        return 3 * torch.eye(dims[-1]) + noise + noise.mT
    return torch.randn(dims)


def matrix(draw: Draw, square: bool = True) -> Dims:
    """Mostly a (batch of) matrix, square when asked (now and then not, or of rank 0 or 1)."""
    if draw(st.integers(0, 9)) == 0:
        return shape(draw, 0, 1)
    m = draw(SIZE)
    n = m if square and draw(st.integers(0, 5)) else draw(SIZE)
    return (*shape(draw, 0, 2), m, n)


DELIBERATE["cholesky-empty"] = (
    "torch.cholesky (the deprecated spelling) returns an empty non-square input as it is; typedtensor "
    "reports shape-arg as for any non-square matrix (torch.linalg.cholesky raises there too).")


def _one(name: str, fn: Callable[..., Any], square: bool, *extra: Any) -> None:
    @case(name)
    def gen(draw: Draw) -> Case:
        a = matrix(draw, square)
        c = Case("", (S(a), *extra), {}, lambda: fn(W(a), *extra))
        if name == "cholesky" and len(a) >= 2 and a[-1] != a[-2] and 0 in a:
            c.deliberate = "cholesky-empty"
        return c


for _name, _fn in (
    ("linalg_inv", torch.linalg.inv), ("inverse", torch.inverse), ("linalg_det", torch.linalg.det),
    ("det", torch.det), ("logdet", torch.logdet), ("linalg_cholesky", torch.linalg.cholesky),
    ("cholesky", torch.cholesky), ("cholesky_inverse", torch.cholesky_inverse), ("linalg_slogdet", torch.linalg.slogdet),
    ("slogdet", torch.slogdet), ("linalg_inv_ex", torch.linalg.inv_ex), ("linalg_cholesky_ex", torch.linalg.cholesky_ex),
    ("linalg_eigh", torch.linalg.eigh), ("linalg_eigvalsh", torch.linalg.eigvalsh),
):
    _one(_name, _fn, True)
_one("linalg_matrix_power", torch.linalg.matrix_power, True, 2)
_one("matrix_power", torch.matrix_power, True, 3)
for _name, _fn in (
    ("linalg_pinv", torch.linalg.pinv), ("pinverse", torch.pinverse), ("linalg_svdvals", torch.linalg.svdvals),
    ("svd", torch.svd), ("qr", torch.qr),
    ("linalg_matrix_rank", torch.linalg.matrix_rank), ("linalg_matrix_norm", torch.linalg.matrix_norm),
):
    _one(_name, _fn, False)


@case("linalg_cond")
def _cond(draw: Draw) -> Case:
    a = matrix(draw, True)
    return Case("", (S(a),), {}, lambda: torch.linalg.cond(W(a)))


@case("linalg_svd")
def _svd_full(draw: Draw) -> Case:
    a = matrix(draw, False)
    full = draw(st.booleans())
    return Case("", (S(a),), {"full_matrices": full}, lambda: torch.linalg.svd(W(a), full_matrices=full))


@case("linalg_qr")
def _qr_mode(draw: Draw) -> Case:
    a = matrix(draw, False)
    mode = draw(st.sampled_from(["reduced", "complete", "r"]))
    return Case("", (S(a),), {"mode": mode}, lambda: torch.linalg.qr(W(a), mode))


def _rhs(draw: Draw, a: Dims, vectors: bool) -> Dims:
    """A right-hand side for A ``a``: mostly fitting rows and a broadcasting batch."""
    n = a[-1] if a else draw(SIZE)
    rows = n if draw(st.integers(0, 5)) else draw(SIZE)
    batch = partner(draw, a[:-2], hi=2) if len(a) > 2 else shape(draw, 0, 1)
    if vectors and draw(st.integers(0, 3)) == 0:
        return (rows,) if draw(st.booleans()) else (*a[:-1],)
    return (*batch, rows, draw(SIZE))


@case("linalg_solve", "linalg_solve_ex")
def _solve(draw: Draw) -> Case:
    a = matrix(draw, True)
    b = _rhs(draw, a, True)
    c = Case("", (S(a), S(b)), {}, lambda: None)
    c.torch_fn = lambda: getattr(torch.linalg, c.op.removeprefix("linalg_"))(W(a), W(b))
    return c


@case("linalg_solve_triangular")
def _solve_triangular(draw: Draw) -> Case:
    a = matrix(draw, True)
    b = _rhs(draw, a, False)
    upper = draw(st.booleans())
    return Case("", (S(a), S(b)), {"upper": upper}, lambda: torch.linalg.solve_triangular(W(a), W(b), upper=upper))


@case("cholesky_solve")
def _cholesky_solve(draw: Draw) -> Case:
    a = matrix(draw, True)
    b = _rhs(draw, a, False)
    return Case("", (S(b), S(a)), {}, lambda: torch.cholesky_solve(W(b), W(a)))


@case("triangular_solve")
def _triangular_solve(draw: Draw) -> Case:
    a = matrix(draw, True)
    b = _rhs(draw, a, False)
    return Case("", (S(b), S(a)), {}, lambda: torch.triangular_solve(W(b), W(a)))


@case("linalg_lstsq")
def _lstsq(draw: Draw) -> Case:
    a = (*shape(draw, 0, 1), draw(SIZE), draw(SIZE))
    rows = a[-2] if draw(st.integers(0, 5)) else draw(SIZE)
    b = (*a[:-2], rows, draw(SIZE))
    return Case("", (S(a), S(b)), {}, lambda: torch.linalg.lstsq(W(a), W(b)))


@case("linalg_vector_norm", "linalg_norm")
def _vector_norm(draw: Draw) -> Case:
    s = shape(draw, 1, 3)
    dim = axis(draw, len(s)) if draw(st.booleans()) else None
    keepdim = draw(st.booleans())
    c = Case("", (S(s),), {"dim": dim, "keepdim": keepdim}, lambda: None)
    c.torch_fn = lambda: getattr(torch.linalg, c.op.removeprefix("linalg_"))(W(s), dim=dim, keepdim=keepdim)
    return c


@case("linalg_cross")
def _cross(draw: Draw) -> Case:
    a = (*shape(draw, 0, 2), 3 if draw(st.integers(0, 5)) else draw(SIZE))
    b = partner(draw, a, hi=3) or a
    return Case("", (S(a), S(b)), {}, lambda: torch.linalg.cross(T(a), T(b)))


@case("linalg_vecdot")
def _vecdot(draw: Draw) -> Case:
    a = shape(draw, 1, 3)
    b = partner(draw, a, hi=3) or a
    return Case("", (S(a), S(b)), {}, lambda: torch.linalg.vecdot(T(a), T(b)))


@case("linalg_multi_dot")
def _multi_dot(draw: Draw) -> Case:
    k = [draw(SIZE) for _ in range(4)]
    shapes: list[Dims] = [(k[0], k[1]), (k[1] if draw(st.integers(0, 5)) else draw(SIZE), k[2]), (k[2], k[3])]
    if draw(st.booleans()):
        shapes[0] = shapes[0][1:]
    if draw(st.booleans()):
        shapes[-1] = shapes[-1][:1]
    return Case("", ([S(s) for s in shapes],), {}, lambda: torch.linalg.multi_dot([T(s) for s in shapes]))


@case("linalg_matmul")
def _matmul(draw: Draw) -> Case:
    c = CASES["matmul"](draw)
    pos = c.pos
    inner = c.torch_fn
    c.torch_fn = inner  # torch.linalg.matmul is torch.matmul
    c.pos = pos
    return c


@case("linalg_diagonal")
def _diagonal(draw: Draw) -> Case:
    a = matrix(draw, False)
    offset = draw(st.integers(-2, 2))
    return Case("", (S(a),), {"offset": offset}, lambda: torch.linalg.diagonal(T(a), offset=offset))
