"""typedtensor.linalg and the top-level linear-algebra ops against torch (NOTE [ Linear algebra ] in
typedtensor/_runtime/linalg.py): values in float32 and float64, batched and non-contiguous inputs,
gradients against torch's and against finite differences, the errors LAPACK reports, shape errors
and empty batches."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

tt: Any = pytest.importorskip("typedtensor._runtime")
torch: Any = pytest.importorskip("torch")
import typedtensor  # noqa: E402
import typedtensor.linalg as ttl  # noqa: E402

DTYPES = [("float32", 2e-4), ("float64", 1e-9)]
BATCHES = [(), (3,), (2, 2)]


# ---------------- inputs ----------------
def general(rng: np.random.Generator, batch: tuple[int, ...], n: int) -> np.ndarray:
    """Well-conditioned square matrices: a random one plus n on the diagonal."""
    return rng.standard_normal((*batch, n, n)) + n * np.eye(n)


def spd(rng: np.random.Generator, batch: tuple[int, ...], n: int) -> np.ndarray:
    m = rng.standard_normal((*batch, n, n))
    return m @ np.swapaxes(m, -1, -2) + n * np.eye(n)


def symmetric(rng: np.random.Generator, batch: tuple[int, ...], n: int) -> np.ndarray:
    m = rng.standard_normal((*batch, n, n))
    return (m + np.swapaxes(m, -1, -2)) / 2


def lower(rng: np.random.Generator, batch: tuple[int, ...], n: int) -> np.ndarray:
    return np.tril(rng.standard_normal((*batch, n, n))) + n * np.eye(n)


def rect(rng: np.random.Generator, batch: tuple[int, ...], m: int, n: int) -> np.ndarray:
    return rng.standard_normal((*batch, m, n))


def pair(a: np.ndarray, dtype: str, contiguous: bool = True, grad: bool = False) -> tuple[Any, Any]:
    """The same matrices as a typedtensor and a torch tensor; not contiguous: a transposed view."""
    a = a.astype(dtype)
    if contiguous:
        x, t = tt.tensor(a), torch.tensor(a)
    else:
        x, t = tt.tensor(np.ascontiguousarray(np.swapaxes(a, -1, -2))).mT, torch.tensor(a)
        assert not x.is_contiguous()
    if grad:
        x.requires_grad_(True)
        t.requires_grad_(True)
    return x, t


def close(ours: Any, theirs: Any, tol: float) -> None:
    o = ours.detach().numpy() if hasattr(ours, "detach") else np.asarray(ours)
    t = theirs.detach().numpy() if hasattr(theirs, "detach") else np.asarray(theirs)
    assert o.shape == t.shape, (o.shape, t.shape)
    np.testing.assert_allclose(o, t, rtol=tol * 10, atol=tol * 10, equal_nan=True)


# ---------------- forward against torch ----------------
# name -> (input maker, typedtensor call, torch call); each result compared as it is
SQUARE_CASES: dict[str, tuple[Callable[..., np.ndarray], Callable[[Any, Any], Any], Callable[[Any], Any]]] = {
    "linalg.inv": (general, lambda m, x: m.linalg.inv(x), lambda t: torch.linalg.inv(t)),
    "inverse": (general, lambda m, x: m.inverse(x), lambda t: torch.inverse(t)),
    "Tensor.inverse": (general, lambda m, x: x.inverse(), lambda t: t.inverse()),
    "linalg.inv_ex": (general, lambda m, x: m.linalg.inv_ex(x).inverse, lambda t: torch.linalg.inv_ex(t).inverse),
    "linalg.det": (general, lambda m, x: m.linalg.det(x), lambda t: torch.linalg.det(t)),
    "det": (general, lambda m, x: m.det(x), lambda t: torch.det(t)),
    "Tensor.det": (general, lambda m, x: x.det(), lambda t: t.det()),
    "logdet": (spd, lambda m, x: m.logdet(x), lambda t: torch.logdet(t)),
    "logdet-negative": (general, lambda m, x: m.logdet(-x[..., :3, :3]), lambda t: torch.logdet(-t[..., :3, :3])),
    "slogdet.sign": (general, lambda m, x: m.slogdet(-x).sign, lambda t: torch.slogdet(-t).sign),
    "slogdet.logabsdet": (general, lambda m, x: m.linalg.slogdet(x).logabsdet, lambda t: torch.linalg.slogdet(t).logabsdet),
    "linalg.cholesky": (spd, lambda m, x: m.linalg.cholesky(x), lambda t: torch.linalg.cholesky(t)),
    "linalg.cholesky-upper": (spd, lambda m, x: m.linalg.cholesky(x, upper=True), lambda t: torch.linalg.cholesky(t, upper=True)),
    "cholesky": (spd, lambda m, x: m.cholesky(x), lambda t: torch.cholesky(t)),
    "linalg.cholesky_ex": (spd, lambda m, x: m.linalg.cholesky_ex(x).L, lambda t: torch.linalg.cholesky_ex(t).L),
    "cholesky_inverse": (lower, lambda m, x: m.cholesky_inverse(x), lambda t: torch.cholesky_inverse(t)),
    "cholesky_inverse-upper": (lower, lambda m, x: m.cholesky_inverse(x.mT, upper=True),
                               lambda t: torch.cholesky_inverse(t.mT, upper=True)),
    "linalg.eigvalsh": (symmetric, lambda m, x: m.linalg.eigvalsh(x), lambda t: torch.linalg.eigvalsh(t)),
    "linalg.eigvalsh-U": (symmetric, lambda m, x: m.linalg.eigvalsh(x.triu(), UPLO="U"),
                          lambda t: torch.linalg.eigvalsh(t.triu(), UPLO="U")),
    "linalg.matrix_power-3": (general, lambda m, x: m.linalg.matrix_power(x, 3), lambda t: torch.linalg.matrix_power(t, 3)),
    "matrix_power-0": (general, lambda m, x: m.matrix_power(x, 0), lambda t: torch.matrix_power(t, 0)),
    "Tensor.matrix_power--2": (general, lambda m, x: x.matrix_power(-2), lambda t: t.matrix_power(-2)),
    "linalg.pinv-hermitian": (spd, lambda m, x: m.linalg.pinv(x, hermitian=True), lambda t: torch.linalg.pinv(t, hermitian=True)),
    "linalg.matrix_rank": (general, lambda m, x: m.linalg.matrix_rank(x), lambda t: torch.linalg.matrix_rank(t)),
    "linalg.cond": (general, lambda m, x: m.linalg.cond(x), lambda t: torch.linalg.cond(t)),
    "linalg.cond-fro": (general, lambda m, x: m.linalg.cond(x, "fro"), lambda t: torch.linalg.cond(t, "fro")),
    "linalg.diagonal": (general, lambda m, x: m.linalg.diagonal(x, offset=1), lambda t: torch.linalg.diagonal(t, offset=1)),
    **{f"linalg.matrix_norm-{o}": (general, (lambda p: lambda m, x: m.linalg.matrix_norm(x, p))(o),
                                   (lambda p: lambda t: torch.linalg.matrix_norm(t, p))(o))
       for o in ("fro", "nuc", 1, -1, 2, -2, float("inf"), float("-inf"))},
    "linalg.norm-2d": (general, lambda m, x: m.linalg.norm(x, dim=(-2, -1)), lambda t: torch.linalg.norm(t, dim=(-2, -1))),
    "linalg.norm-vec": (general, lambda m, x: m.linalg.norm(x, 3, dim=-1), lambda t: torch.linalg.norm(t, 3, dim=-1)),
    "linalg.vector_norm": (general, lambda m, x: m.linalg.vector_norm(x), lambda t: torch.linalg.vector_norm(t)),
    "linalg.vector_norm-inf": (general, lambda m, x: m.linalg.vector_norm(x, float("inf"), dim=(-2, -1), keepdim=True),
                               lambda t: torch.linalg.vector_norm(t, float("inf"), dim=(-2, -1), keepdim=True)),
    "linalg.vector_norm-0": (general, lambda m, x: m.linalg.vector_norm(x, 0, dim=-1),
                             lambda t: torch.linalg.vector_norm(t, 0, dim=-1)),
    "linalg.vector_norm-1": (general, lambda m, x: m.linalg.vector_norm(x, 1, dim=0),
                             lambda t: torch.linalg.vector_norm(t, 1, dim=0)),
    "linalg.matmul": (general, lambda m, x: m.linalg.matmul(x, x), lambda t: torch.linalg.matmul(t, t)),
    "linalg.multi_dot": (general, lambda m, x: m.linalg.multi_dot([x[..., 0, :], x, x, x[..., 0]]) if x.ndim == 2
                         else m.linalg.multi_dot([x.reshape(-1, 4), x.reshape(4, -1)]),
                         lambda t: torch.linalg.multi_dot([t[..., 0, :], t, t, t[..., 0]]) if t.ndim == 2
                         else torch.linalg.multi_dot([t.reshape(-1, 4), t.reshape(4, -1)])),
    "linalg.vecdot": (general, lambda m, x: m.linalg.vecdot(x, x.mT), lambda t: torch.linalg.vecdot(t, t.mT)),
    "linalg.cross": (general, lambda m, x: m.linalg.cross(x[..., :3], x[..., 1:]),
                     lambda t: torch.linalg.cross(t[..., :3], t[..., 1:])),
}


@pytest.mark.parametrize("name", sorted(SQUARE_CASES))
@pytest.mark.parametrize("batch", BATCHES)
@pytest.mark.parametrize(("dtype", "tol"), DTYPES)
@pytest.mark.parametrize("contiguous", [True, False])
def test_square_forward(name: str, batch: tuple[int, ...], dtype: str, tol: float, contiguous: bool) -> None:
    make, ours, theirs = SQUARE_CASES[name]
    a = make(np.random.default_rng(len(name)), batch, 4)
    x, t = pair(a, dtype, contiguous)
    close(ours(typedtensor, x), theirs(t), tol)


@pytest.mark.parametrize("batch", BATCHES)
@pytest.mark.parametrize(("dtype", "tol"), DTYPES)
@pytest.mark.parametrize("contiguous", [True, False])
def test_solvers_forward(batch: tuple[int, ...], dtype: str, tol: float, contiguous: bool) -> None:
    rng = np.random.default_rng(1)
    (A, tA), (B, tB) = pair(general(rng, batch, 4), dtype, contiguous), pair(rect(rng, batch, 4, 2), dtype, contiguous)
    (L, tL) = pair(lower(rng, batch, 4), dtype, contiguous)
    close(ttl.solve(A, B), torch.linalg.solve(tA, tB), tol)
    close(ttl.solve(A, B.mT, left=False), torch.linalg.solve(tA, tB.mT, left=False), tol)
    close(ttl.solve(A, B[..., 0]), torch.linalg.solve(tA, tB[..., 0]), tol)  # a batch of vectors
    close(ttl.solve(A, B[(0,) * len(batch)]), torch.linalg.solve(tA, tB[(0,) * len(batch)]), tol)  # broadcast B
    close(ttl.solve_ex(A, B).result, torch.linalg.solve_ex(tA, tB).result, tol)
    for upper in (False, True):
        for unit in (False, True):
            M, tM = (L.mT, tL.mT) if upper else (L, tL)
            close(ttl.solve_triangular(M, B, upper=upper, unitriangular=unit),
                  torch.linalg.solve_triangular(tM, tB, upper=upper, unitriangular=unit), tol)
            close(ttl.solve_triangular(M, B.mT, upper=upper, left=False, unitriangular=unit),
                  torch.linalg.solve_triangular(tM, tB.mT, upper=upper, left=False, unitriangular=unit), tol)
            for transpose in (False, True):
                r, tr = typedtensor.triangular_solve(B, M, upper, transpose, unit), torch.triangular_solve(tB, tM, upper, transpose, unit)
                close(r.solution, tr.solution, tol)
                close(r.cloned_coefficient, tr.cloned_coefficient, tol)
    close(typedtensor.cholesky_solve(B, L), torch.cholesky_solve(tB, tL), tol)
    close(B.cholesky_solve(L.mT, upper=True), tB.cholesky_solve(tL.mT, upper=True), tol)


@pytest.mark.parametrize("batch", BATCHES)
@pytest.mark.parametrize(("dtype", "tol"), DTYPES)
@pytest.mark.parametrize("mn", [(5, 3), (3, 5), (4, 4)])
@pytest.mark.parametrize("contiguous", [True, False])
def test_decompositions_forward(batch: tuple[int, ...], dtype: str, tol: float, mn: tuple[int, int], contiguous: bool) -> None:
    m, n = mn
    x, t = pair(rect(np.random.default_rng(2), batch, m, n), dtype, contiguous)
    # QR: R's diagonal signs are LAPACK's in both libraries; check the factors and Q R = A
    for mode in ("reduced", "complete", "r"):
        Q, R = ttl.qr(x, mode)
        tQ, tR = torch.linalg.qr(t, mode)
        close(R, tR, tol)
        if mode != "r":
            close(Q, tQ, tol)
            close(Q @ R, t, tol)
    Q, R = typedtensor.qr(x, some=False)
    close(R, torch.qr(t, some=False).R, tol)
    # SVD: S exactly; the vectors up to sign, through U diag(S) Vh = A and |U|, |Vh|
    for full in (False, True):
        U, S, Vh = ttl.svd(x, full_matrices=full)
        tU, tS, tVh = torch.linalg.svd(t, full_matrices=full)
        close(S, tS, tol)
        assert tuple(U.shape) == tuple(tU.shape) and tuple(Vh.shape) == tuple(tVh.shape)
        k = min(m, n)
        close((U[..., :k] * S.unsqueeze(-2)) @ Vh[..., :k, :], t, tol)
        close(U[..., :k].abs(), tU[..., :k].abs(), tol * 100)
    close(ttl.svdvals(x), torch.linalg.svdvals(t), tol)
    U, S, V = typedtensor.svd(x)
    close(S, torch.svd(t).S, tol)
    close((U * S.unsqueeze(-2)) @ V.mT, t, tol)
    for part, tpart in zip(x.svd(compute_uv=False), t.svd(compute_uv=False), strict=True):
        close(part, tpart, tol)
    close(ttl.pinv(x), torch.linalg.pinv(t), tol * 10)
    close(typedtensor.pinverse(x), torch.pinverse(t), tol * 10)
    close(ttl.matrix_rank(x), torch.linalg.matrix_rank(t), 0)
    close(ttl.matrix_norm(x, "nuc"), torch.linalg.matrix_norm(t, "nuc"), tol)


@pytest.mark.parametrize(("dtype", "tol"), DTYPES)
@pytest.mark.parametrize("mn", [(6, 3), (3, 3)])
def test_lstsq_forward(dtype: str, tol: float, mn: tuple[int, int]) -> None:
    rng = np.random.default_rng(3)
    (A, tA), (B, tB) = pair(rect(rng, (2,), *mn), dtype), pair(rect(rng, (2,), mn[0], 2), dtype)
    ours, theirs = ttl.lstsq(A, B), torch.linalg.lstsq(tA, tB)
    close(ours.solution, theirs.solution, tol * 10)
    close(ours.rank, theirs.rank, 0)
    assert tuple(ours.residuals.shape) == tuple(theirs.residuals.shape)
    assert tuple(ours.singular_values.shape) == tuple(theirs.singular_values.shape)


@pytest.mark.parametrize(("dtype", "tol"), DTYPES)
@pytest.mark.parametrize("batch", BATCHES)
def test_eigh_forward(dtype: str, tol: float, batch: tuple[int, ...]) -> None:
    x, t = pair(symmetric(np.random.default_rng(4), batch, 5), dtype)
    L, V = ttl.eigh(x)
    tL, tV = torch.linalg.eigh(t)
    close(L, tL, tol)
    close(V.abs(), tV.abs(), tol * 100)
    close((V * L.unsqueeze(-2)) @ V.mT, t, tol)


# ---------------- gradients ----------------
def _numeric_grad(f: Callable[[np.ndarray], float], a: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    g = np.zeros_like(a)
    flat, gf = a.reshape(-1), g.reshape(-1)
    for i in range(flat.size):
        old = flat[i]
        flat[i] = old + eps
        hi = f(a)
        flat[i] = old - eps
        lo = f(a)
        flat[i] = old
        gf[i] = (hi - lo) / (2 * eps)
    return g


def _sym(t: Any) -> Any:
    return (t + t.mT) / 2


def _gauge_eigh(m: Any, A: Any) -> Any:
    """Functions of eigh's results that do not depend on the eigenvectors' signs."""
    L, V = m.linalg.eigh(A)
    return L.sum() + ((V * L.unsqueeze(-2).sin()) @ V.mT).sum() + (V[..., :2] @ V[..., :2].mT).cos().sum()


def _gauge_svd(m: Any, A: Any) -> Any:
    U, S, Vh = m.linalg.svd(A, full_matrices=False)
    k = S.shape[-1]
    return (S * S.cos()).sum() + (U[..., :2] @ U[..., :2].mT).exp().sum() + (Vh[..., :k - 1, :].mT @ Vh[..., :k - 1, :]).sin().sum()


def _gauge_qr(m: Any, A: Any) -> Any:
    Q, R = m.linalg.qr(A)
    return (Q * Q.cos()).sum() + R.sin().sum()


# name -> (input maker (rng, batch) -> array, loss over (module, tensor))
GRAD_CASES: dict[str, tuple[Callable[[np.random.Generator, tuple[int, ...]], np.ndarray], Callable[[Any, Any], Any]]] = {
    "inv": (lambda r, b: general(r, b, 3), lambda m, A: (m.linalg.inv(A) ** 2).sum()),
    "inverse": (lambda r, b: general(r, b, 3), lambda m, A: m.inverse(A).sin().sum()),
    "det": (lambda r, b: general(r, b, 3), lambda m, A: m.linalg.det(A).sum()),
    "slogdet": (lambda r, b: general(r, b, 3), lambda m, A: m.linalg.slogdet(A).logabsdet.sum()),
    "logdet": (lambda r, b: spd(r, b, 3), lambda m, A: m.logdet(A).sum()),
    "solve": (lambda r, b: general(r, b, 3), lambda m, A: (m.linalg.solve(A, A[..., :2].cos()) ** 2).sum()),
    "solve-left-false": (lambda r, b: general(r, b, 3), lambda m, A: m.linalg.solve(A, A[..., :2, :].sin(), left=False).sum()),
    "cholesky": (lambda r, b: spd(r, b, 3), lambda m, A: (m.linalg.cholesky(_sym(A)) ** 2).sum()),
    "cholesky-upper": (lambda r, b: spd(r, b, 3), lambda m, A: m.linalg.cholesky(_sym(A), upper=True).sin().sum()),
    "solve_triangular": (lambda r, b: lower(r, b, 3),
                         lambda m, A: (m.linalg.solve_triangular(A, A[..., :2].cos(), upper=False) ** 2).sum()),
    "solve_triangular-unit": (lambda r, b: lower(r, b, 3),
                              lambda m, A: m.linalg.solve_triangular(A.mT, A.sin(), upper=True, unitriangular=True).sum()),
    "cholesky_solve": (lambda r, b: lower(r, b, 3), lambda m, A: m.cholesky_solve(A.cos(), A).sum()),
    "cholesky_inverse": (lambda r, b: lower(r, b, 3), lambda m, A: (m.cholesky_inverse(A) ** 2).sum()),
    "eigh": (lambda r, b: symmetric(r, b, 4), lambda m, A: _gauge_eigh(m, _sym(A))),
    "eigvalsh": (lambda r, b: symmetric(r, b, 4), lambda m, A: (m.linalg.eigvalsh(_sym(A)) ** 3).sum()),
    "svd-tall": (lambda r, b: rect(r, b, 5, 3), lambda m, A: _gauge_svd(m, A)),
    "svd-wide": (lambda r, b: rect(r, b, 3, 5), lambda m, A: _gauge_svd(m, A)),
    "svdvals": (lambda r, b: rect(r, b, 4, 3), lambda m, A: (m.linalg.svdvals(A) ** 2).cos().sum()),
    "qr": (lambda r, b: rect(r, b, 5, 3), lambda m, A: _gauge_qr(m, A)),
    "qr-square": (lambda r, b: rect(r, b, 3, 3), lambda m, A: _gauge_qr(m, A)),
    "pinv": (lambda r, b: rect(r, b, 4, 3), lambda m, A: (m.linalg.pinv(A) ** 2).sum()),
    "pinv-wide": (lambda r, b: rect(r, b, 2, 4), lambda m, A: m.linalg.pinv(A).sin().sum()),
    "matrix_power": (lambda r, b: general(r, b, 3) / 3, lambda m, A: m.linalg.matrix_power(A, 3).sum()),
    "matrix_power-neg": (lambda r, b: general(r, b, 3), lambda m, A: m.matrix_power(A, -2).sum()),
    "norm-fro": (lambda r, b: rect(r, b, 3, 4), lambda m, A: m.linalg.norm(A)),
    "norm-nuc": (lambda r, b: rect(r, b, 3, 4), lambda m, A: m.linalg.matrix_norm(A, "nuc").sum()),
    "norm-2": (lambda r, b: rect(r, b, 3, 4), lambda m, A: m.linalg.matrix_norm(A, 2).sum()),
    "norm-inf": (lambda r, b: rect(r, b, 3, 4), lambda m, A: m.linalg.matrix_norm(A, float("inf")).sum()),
    "vector_norm-3": (lambda r, b: rect(r, b, 3, 4), lambda m, A: m.linalg.vector_norm(A, 3, dim=-1).sum()),
    "cond": (lambda r, b: general(r, b, 3), lambda m, A: m.linalg.cond(A).sum()),
    "cross": (lambda r, b: rect(r, b, 2, 3), lambda m, A: m.linalg.cross(A, A.cos()).sin().sum()),
}


@pytest.mark.parametrize("name", sorted(GRAD_CASES))
@pytest.mark.parametrize("batch", [(), (2,)])
def test_gradients(name: str, batch: tuple[int, ...]) -> None:
    """float64 gradients against torch's and against central differences of our own forward."""
    make, loss = GRAD_CASES[name]
    a = make(np.random.default_rng(5), batch)
    x, t = pair(a, "float64", grad=True)
    ours = loss(typedtensor, x)
    ours.backward()
    theirs = loss(torch, t)
    theirs.backward()
    close(ours, theirs, 1e-9)
    if name.startswith("cholesky_"):
        # torch's formula also fills the triangle of L these ops never read (its entries do not
        # change the result: the finite differences below are 0 there); ours is that derivative
        close(x.grad.tril(), t.grad.tril(), 1e-7)
    else:
        close(x.grad, t.grad, 1e-7)

    def f(arr: np.ndarray) -> float:
        with typedtensor.no_grad():
            return float(loss(typedtensor, tt.tensor(arr)).item())
    np.testing.assert_allclose(x.grad.numpy(), _numeric_grad(f, a.copy()), rtol=1e-5, atol=1e-5)


def test_det_gradient_at_a_singular_matrix() -> None:
    """The gradient of det at a singular matrix is finite, torch's (not an error from the inverse)."""
    a = np.array([[1.0, 2.0], [2.0, 4.0]])
    x, t = pair(a, "float64", grad=True)
    ttl.det(x).backward()
    torch.linalg.det(t).backward()
    close(x.grad, t.grad, 1e-12)


def test_second_order_gradient() -> None:
    """The VJPs are written with differentiable ops: a gradient of a gradient works."""
    a = general(np.random.default_rng(6), (), 3)
    x, t = pair(a, "float64", grad=True)
    (gx,) = typedtensor.autograd.grad(typedtensor.linalg.det(x), x, create_graph=True)
    gx.sum().backward()
    (gt,) = torch.autograd.grad(torch.linalg.det(t), t, create_graph=True)
    gt.sum().backward()
    close(x.grad, t.grad, 1e-8)


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 6), k=st.integers(1, 3), batch=st.sampled_from([(), (2,), (1, 3)]), seed=st.integers(0, 2**16))
def test_hypothesis_well_conditioned(n: int, k: int, batch: tuple[int, ...], seed: int) -> None:
    """Random well-conditioned systems: inverse, solve, det, Cholesky and eigh agree with torch."""
    rng = np.random.default_rng(seed)
    (A, tA), (B, tB), (S, tS) = pair(general(rng, batch, n), "float64"), pair(rect(rng, batch, n, k), "float64"), \
        pair(spd(rng, batch, n), "float64")
    close(ttl.inv(A), torch.linalg.inv(tA), 1e-9)
    close(ttl.solve(A, B), torch.linalg.solve(tA, tB), 1e-9)
    close(ttl.det(A), torch.linalg.det(tA), 1e-9)
    close(ttl.cholesky(S), torch.linalg.cholesky(tS), 1e-9)
    close(ttl.eigvalsh(S), torch.linalg.eigvalsh(tS), 1e-9)
    close(ttl.svdvals(B), torch.linalg.svdvals(tB), 1e-9)
    close(ttl.inv(A) @ A, np.broadcast_to(np.eye(n), A.shape), 1e-9)


# ---------------- errors ----------------
def test_singular_and_not_positive_definite() -> None:
    singular = tt.tensor([[1.0, 2.0], [2.0, 4.0]])
    with pytest.raises(ttl.LinAlgError, match=r"linalg.inv: The diagonal element 2 is zero"):
        ttl.inv(singular)
    with pytest.raises(RuntimeError, match=r"linalg.solve: The solver failed because the input matrix is singular"):
        ttl.solve(singular, tt.ones(2, 1))
    batched = tt.stack([tt.eye(2), singular])
    with pytest.raises(ttl.LinAlgError, match=r"\(Batch element 1\): The diagonal element 2 is zero"):
        typedtensor.inverse(batched)
    info = ttl.inv_ex(batched).info
    assert info.tolist() == torch.linalg.inv_ex(torch.tensor(batched.numpy())).info.tolist() == [0, 2]
    assert str(info.dtype).endswith("int32")
    not_pd = tt.tensor([[1.0, 2.0], [2.0, 1.0]])
    expected = ("linalg.cholesky: The factorization could not be completed because the input is not positive-definite "
                "(the leading minor of order 2 is not positive-definite).")
    with pytest.raises(ttl.LinAlgError) as err:
        ttl.cholesky(not_pd)
    assert str(err.value) == expected
    with pytest.raises(torch.linalg.LinAlgError) as terr:
        torch.linalg.cholesky(torch.tensor(not_pd.numpy()))
    assert str(terr.value) == expected
    assert ttl.cholesky_ex(not_pd).info.item() == 2
    assert issubclass(ttl.LinAlgError, RuntimeError)
    assert ttl.det(singular).item() == 0.0
    sign, logabsdet = ttl.slogdet(singular)
    assert sign.item() == 0.0 and logabsdet.item() == float("-inf")
    close(ttl.pinv(singular), torch.linalg.pinv(torch.tensor(singular.numpy())), 1e-6)
    assert ttl.matrix_rank(singular).item() == 1


@pytest.mark.parametrize(("call", "op", "shapes"), [
    (lambda: ttl.inv(tt.zeros(3, 4)), "linalg_inv", "[3, 4]"),
    (lambda: ttl.solve(tt.eye(3), tt.zeros(4, 2)), "linalg_solve", "B [4, 2]"),
    (lambda: ttl.solve(tt.zeros(2, 3, 3), tt.zeros(4, 3, 1)), "linalg_solve", "[4, 3, 1]"),
    (lambda: ttl.cholesky(tt.zeros(3)), "linalg_cholesky", "[3]"),
    (lambda: typedtensor.det(tt.zeros(2, 3)), "det", "[2, 3]"),
    (lambda: ttl.solve_triangular(tt.eye(3), tt.zeros(2, 2), upper=True), "linalg_solve_triangular", "[2, 2]"),
    (lambda: ttl.eigh(tt.zeros(2, 3)), "linalg_eigh", "[2, 3]"),
    (lambda: ttl.svd(tt.zeros(3)), "linalg_svd", "[3]"),
    (lambda: ttl.cross(tt.zeros(4), tt.zeros(4)), "linalg_cross", "[4]"),
])
def test_shape_errors(call: Callable[[], Any], op: str, shapes: str) -> None:
    with pytest.raises(typedtensor.ShapeError) as err:
        call()
    assert err.value.op == op  # type: ignore[attr-defined]
    assert shapes in str(err.value)
    assert op.replace("linalg_", "linalg.") in str(err.value)


def test_dtype_errors() -> None:
    with pytest.raises(TypeError, match="float32 or float64"):
        ttl.inv(tt.eye(2).long())
    with pytest.raises(TypeError, match="same dtype"):
        ttl.solve(tt.eye(2), tt.ones(2, 1, dtype=tt.float64))


@pytest.mark.parametrize("batch", [(0,), (2, 0)])
def test_empty_batches(batch: tuple[int, ...]) -> None:
    x, t = pair(np.zeros((*batch, 3, 3)), "float32")
    for ours, theirs in (
        (ttl.inv(x), torch.linalg.inv(t)), (ttl.det(x), torch.linalg.det(t)), (ttl.cholesky(x), torch.linalg.cholesky(t)),
        (ttl.eigvalsh(x), torch.linalg.eigvalsh(t)), (ttl.svdvals(x), torch.linalg.svdvals(t)),
        (ttl.qr(x).R, torch.linalg.qr(t).R), (ttl.solve(x, x), torch.linalg.solve(t, t)),
    ):
        assert tuple(ours.shape) == tuple(theirs.shape)


def test_empty_matrices() -> None:
    x, t = pair(np.zeros((2, 0, 0)), "float64")
    close(ttl.det(x), torch.linalg.det(t), 0)
    close(ttl.inv(x), torch.linalg.inv(t), 0)
    y, u = pair(np.zeros((3, 0)), "float64")
    for ours, theirs in zip(ttl.svd(y), torch.linalg.svd(u), strict=True):
        close(ours, theirs, 0)
    for ours, theirs in zip(ttl.qr(y, "complete"), torch.linalg.qr(u, "complete"), strict=True):
        close(ours, theirs, 0)


def test_named_results_and_names() -> None:
    x = tt.tensor(spd(np.random.default_rng(7), (), 3))
    assert set(ttl.eigh(x)._fields) == {"eigenvalues", "eigenvectors"}
    assert ttl.svd(x)._fields == ("U", "S", "Vh")
    assert typedtensor.svd(x)._fields == ("U", "S", "V")
    assert ttl.qr(x)._fields == ("Q", "R")
    assert ttl.slogdet(x)._fields == ("sign", "logabsdet")
    assert ttl.cholesky_ex(x)._fields == ("L", "info")
    assert ttl.inv_ex(x)._fields == ("inverse", "info")
    assert ttl.solve_ex(x, x)._fields == ("result", "info")
    assert ttl.lstsq(x, x)._fields == ("solution", "residuals", "rank", "singular_values")
    assert ttl.det.__name__ == "det" and typedtensor.qr.__name__ == "qr"
    with pytest.raises(RuntimeError, match="mode='r'"):
        ttl.qr(x.requires_grad_(), "r").R.sum().backward()


def test_large_batches_run_in_parallel_and_report_the_first_failure() -> None:
    """Batches big enough to be split across threads: the same values as torch, and the first
    failing matrix is the one named."""
    rng = np.random.default_rng(8)
    a = general(rng, (300,), 8)
    s = spd(rng, (300,), 8)
    for dtype, tol in DTYPES:
        (x, t), (y, u) = pair(a, dtype), pair(s, dtype)
        close(ttl.inv(x), torch.linalg.inv(t), tol)
        close(ttl.det(x), torch.linalg.det(t), tol * 100)
        close(ttl.cholesky(y), torch.linalg.cholesky(u), tol)
        close(ttl.eigvalsh(y), torch.linalg.eigvalsh(u), tol)
        close(ttl.svdvals(x), torch.linalg.svdvals(t), tol)
        close(ttl.qr(x).R, torch.linalg.qr(t).R, tol)
        close(ttl.solve_triangular(x.tril(), y, upper=False), torch.linalg.solve_triangular(t.tril(), u, upper=False), tol)
    bad = a.copy()
    bad[250] = 0.0
    bad[270] = 0.0
    with pytest.raises(ttl.LinAlgError, match=r"^linalg.inv: \(Batch element 250\): The diagonal element 1 is zero"):
        ttl.inv(tt.tensor(bad))
    with pytest.raises(ttl.LinAlgError, match=r"^linalg.cholesky: \(Batch element 250\)"):
        ttl.cholesky(tt.tensor(bad))


def test_cuda_tensors_are_refused() -> None:
    """CPU only: a CUDA tensor (the host-emulated device here) raises NotImplementedError naming the
    function, never a crash."""
    tt._C._testing_emulate_cuda(True)
    try:
        x = tt.eye(3).to("cuda")
        for call, name in ((ttl.inv, "linalg.inv"), (ttl.det, "linalg.det"), (ttl.cholesky, "linalg.cholesky"),
                           (ttl.eigh, "linalg.eigh"), (ttl.svd, "linalg.svd"), (ttl.qr, "linalg.qr")):
            with pytest.raises(NotImplementedError, match=f"{name}: no CUDA kernel"):
                call(x)
    finally:
        tt._C._testing_emulate_cuda(False)


@pytest.mark.parametrize(("a", "b"), [((2, 3, 3), (4, 2, 3, 1)), ((3, 3), (5, 3, 2)), ((2, 3, 3), (3,)),
                                      ((4, 1, 3, 3), (2, 3, 1)), ((0, 0), (0, 0, 0))])
def test_solve_ex_info_has_the_batch_of_A(a: tuple[int, ...], b: tuple[int, ...]) -> None:
    x, t = pair(np.broadcast_to(np.eye(a[-1]), a).copy(), "float64")
    y, u = pair(np.ones(b), "float64")
    ours, theirs = ttl.solve_ex(x, y), torch.linalg.solve_ex(t, u)
    close(ours.result, theirs.result, 1e-12)
    close(ours.info, theirs.info, 0)


def test_every_linalg_entry_is_a_function_with_its_parameters() -> None:
    """The op table's ``linalg`` form (typedtensor.linalg.X for the entry linalg_X) exists at run
    time, with the table's parameters in order and their kinds (the stub is generated from them)."""
    import inspect

    from typedtensor.shapes import api

    for name, op in api.ops_with("linalg").items():
        fn = getattr(ttl, name.removeprefix("linalg_"))
        params = list(inspect.signature(fn).parameters.values())
        assert [p.name for p in params] == [p.name for p in op.params], name
        assert [p.kind == inspect.Parameter.KEYWORD_ONLY for p in params] == [p.keyword_only for p in op.params], name
    assert sorted(n for n in ttl.__all__ if n != "LinAlgError") == sorted(
        n.removeprefix("linalg_") for n in api.ops_with("linalg"))
