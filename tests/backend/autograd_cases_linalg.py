"""Sample invocations of the top-level linear-algebra ops (merged into autograd_cases.CASES; same
conventions). The drawn inputs are made well conditioned inside each call (plus 3 I, A A^T + I,
a triangle), and the decompositions return what does not depend on their vectors' signs."""

from __future__ import annotations

from typing import Any

from .autograd_cases import Case, c


def _eye(L: Any, a: Any) -> Any:
    return L.t.eye(a.shape[-1], dtype=a.dtype)


def _well(L: Any, a: Any) -> Any:
    return a + 3 * _eye(L, a)


def _spd(L: Any, a: Any) -> Any:
    return a @ a.mT + _eye(L, a)


def _svd(L: Any, a: Any) -> Any:
    u, s, v = L.t.svd(a)
    return s, (u * s.unsqueeze(-2)) @ v.mT, u[..., :2] @ u[..., :2].mT


CASES: dict[str, list[Case]] = {
    "inverse": [c(lambda L, a: L.t.inverse(_well(L, a)), (3, 3)), c(lambda L, a: _well(L, a).inverse(), (2, 3, 3))],
    "det": [c(lambda L, a: L.t.det(_well(L, a)), (3, 3)), c(lambda L, a: _well(L, a).det(), (2, 2, 2))],
    "logdet": [c(lambda L, a: L.t.logdet(_spd(L, a)), (3, 3))],
    "slogdet": [c(lambda L, a: L.t.slogdet(_well(L, a)), (2, 3, 3))],
    "cholesky": [c(lambda L, a: L.t.cholesky(_spd(L, a)), (3, 3)),
                 c(lambda L, a: _spd(L, a).cholesky(upper=True), (2, 3, 3))],
    "cholesky_inverse": [c(lambda L, a: L.t.cholesky_inverse(_well(L, a.tril())), (3, 3))],
    "cholesky_solve": [c(lambda L, b, a: L.t.cholesky_solve(b, _well(L, a.tril())), (3, 2), (3, 3))],
    "triangular_solve": [c(lambda L, b, a: L.t.triangular_solve(b, _well(L, a.triu())).solution, (3, 2), (3, 3)),
                         c(lambda L, b, a: L.t.triangular_solve(b, _well(L, a.tril()), upper=False, transpose=True)
                           .solution, (2, 3, 2), (3, 3))],
    "matrix_power": [c(lambda L, a: L.t.matrix_power(a, 3), (3, 3)), c(lambda L, a: _well(L, a).matrix_power(-2), (3, 3))],
    "pinverse": [c(lambda L, a: L.t.pinverse(a), (4, 3))],
    "qr": [c(lambda L, a: L.t.qr(a), (4, 3)), c(lambda L, a: a.qr(), (2, 3, 3))],
    "svd": [c(lambda L, a: _svd(L, a), (4, 3)), c(lambda L, a: _svd(L, a), (3, 5))],
}
