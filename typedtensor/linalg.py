"""typedtensor.linalg: torch.linalg's functions (NOTE [ Linear algebra ] in
``typedtensor/_runtime/linalg.py``): LAPACK factorizations and solvers, float32 and float64,
batched over leading dims, CPU only, differentiable."""

from __future__ import annotations

from typedtensor._runtime.autocast import autocast_op as _autocast_op
from typedtensor._runtime.linalg import (
    LinAlgError,
    cholesky_ex,
    cond,
    cross,
    diagonal,
    eigh,
    eigvalsh,
    inv,
    inv_ex,
    lstsq,
    matmul,
    matrix_norm,
    matrix_rank,
    multi_dot,
    norm,
    pinv,
    qr,
    solve,
    solve_ex,
    solve_triangular,
    svd,
    svdvals,
    vecdot,
    vector_norm,
)
from typedtensor._runtime.linalg import linalg_cholesky_fn as cholesky
from typedtensor._runtime.linalg import linalg_det_fn as det
from typedtensor._runtime.linalg import linalg_matrix_power_fn as matrix_power
from typedtensor._runtime.linalg import linalg_slogdet_fn as slogdet

for _f, _name in ((cholesky, "cholesky"), (det, "det"), (slogdet, "slogdet"), (matrix_power, "matrix_power")):
    _f.__name__ = _f.__qualname__ = _name  # torch.linalg's names, not the runtime module's
del _f, _name

# the products under tt.autocast as torch's (NOTE [ Autocast policy ]); pinv's policy is its inner
# products' own (its SVD takes float32 and float64 only)
matmul = _autocast_op("linalg_matmul", matmul)
matrix_power = _autocast_op("linalg_matrix_power", matrix_power)
multi_dot = _autocast_op("linalg_multi_dot", multi_dot)
vecdot = _autocast_op("linalg_vecdot", vecdot)

__all__ = [
    "LinAlgError", "cholesky", "cholesky_ex", "cond", "cross", "det", "diagonal", "eigh", "eigvalsh", "inv", "inv_ex",
    "lstsq", "matmul", "matrix_norm", "matrix_power", "matrix_rank", "multi_dot", "norm", "pinv", "qr", "slogdet",
    "solve", "solve_ex", "solve_triangular", "svd", "svdvals", "vecdot", "vector_norm",
]
