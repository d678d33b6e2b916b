# Rule family: torch.linalg and the top-level linear-algebra ops (typedtensor/shapes/rules/decompositions.py).
# A solver's right-hand side must have the matrix's rows (shape-matmul), a square-matrix op a square
# matrix (shape-arg), a matrix op at least two dims (shape-rank).
import typedtensor as tt
from typedtensor import Dim, Tensor


class N(Dim): ...
class M(Dim): ...
class K(Dim): ...
class B(Dim): ...


def solve(A: Tensor[N, N], b: Tensor[N, K], wrong: Tensor[M, K], v: Tensor[N]) -> Tensor[N, K]:
    x: Tensor[N, K] = tt.linalg.solve(A, b)  # ok
    tt.linalg.solve(A, v)  # ok
    tt.linalg.solve(A, wrong)  # E: shape-matmul
    tt.linalg.solve_triangular(A, wrong, upper=True)  # E: shape-matmul
    tt.cholesky_solve(wrong, A)  # E: shape-matmul
    bad: Tensor[N, M] = tt.linalg.solve(A, b)  # E: shape-assign
    return x


def square(A: Tensor[B, N, N], R: Tensor[N, M], v: Tensor[N]) -> None:
    inv: Tensor[B, N, N] = tt.linalg.inv(A)  # ok
    d: Tensor[B] = tt.linalg.det(A)  # ok
    tt.inverse(R)  # E: shape-arg
    tt.linalg.cholesky(R)  # E: shape-arg
    tt.det(v)  # E: shape-rank
    tt.linalg.eigh(R)  # E: shape-arg
    p: Tensor[M, N] = tt.linalg.pinv(R)  # ok
    s: Tensor[B, N] = tt.linalg.eigvalsh(A)  # ok
    tt.linalg.svd(v)  # E: shape-rank
    tt.linalg.cross(v, v)  # ok
    tt.linalg.cross(tt.zeros(2, 4), tt.zeros(2, 4))  # E: shape-arg
