# torch.linalg and the top-level linear-algebra ops (typedtensor/shapes/rules/decompositions.py).
import typedtensor as tt
from typedtensor import Dim, Tensor


class N(Dim): ...
class M(Dim): ...
class K(Dim): ...
class B(Dim): ...


def solve(A: Tensor[N, N], b: Tensor[N, K], wrong: Tensor[M, K], v: Tensor[N]) -> Tensor[N, K]:
    x = tt.linalg.solve(A, b)
    reveal_type(x)  # R: Tensor[N, K]
    tt.linalg.solve(A, wrong)  # E: shape-matmul
    tt.linalg.solve_triangular(A, wrong, upper=True)  # E: shape-matmul
    tt.cholesky_solve(wrong, A)  # E: shape-matmul
    return x


def square(A: Tensor[B, N, N], R: Tensor[N, M], v: Tensor[N]) -> None:
    reveal_type(tt.linalg.inv(A))  # R: Tensor[B, N, N]
    reveal_type(tt.linalg.det(A))  # R: Tensor[B]
    reveal_type(tt.linalg.pinv(R))  # R: Tensor[M, N]
    tt.inverse(R)  # E: shape-arg
    tt.linalg.cholesky(R)  # E: shape-arg
    tt.det(v)  # E: shape-rank
    tt.linalg.svd(v)  # E: shape-rank
