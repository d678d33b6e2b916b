#pragma once
// Dense linear algebra through LAPACK (backend/src/core/ops_lapack.cpp): the factorizations and
// solvers torch.linalg is built on, batched over leading dims, float32 and float64, CPU only. Each
// front end takes matrices [*, m, n] (any strides), returns fresh tensors, and is differentiable
// (its VJP is written with the other front-end ops, so gradients of gradients work).
#include <stdexcept>
#include <string>

#include "typedtensor/ops.h"

namespace tt {

// A factorization or solve that LAPACK reports as impossible (a singular matrix, one that is not
// positive-definite, no convergence): torch.linalg.LinAlgError, a RuntimeError in Python.
class LinAlgError : public std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A X = B for square A [*, n, n] and B [*, n, k] (batch dims broadcast): {X, info}. info [*] (int32)
// is LAPACK's getrf code per matrix (0: solved; i > 0: U[i-1, i-1] is zero); with check_errors a
// nonzero one throws LinAlgError worded for `op` ("linalg.inv" or "linalg.solve").
TensorList linalg_solve_ex(const Tensor& A, const Tensor& B, bool check_errors, const std::string& op);
// {sign, logabsdet} of square A [*, n, n]: sign 0 and logabsdet -inf for a singular matrix; `op`
// names the caller in errors.
TensorList linalg_slogdet(const Tensor& A, const std::string& op);
// {L, info}: A = L L^T for symmetric positive-definite A [*, n, n], read from its lower triangle;
// info is potrf's code (i > 0: the leading minor of order i is not positive-definite).
TensorList linalg_cholesky_ex(const Tensor& A, bool check_errors, const std::string& op);
// X with A X = B for triangular A [*, n, n] (upper or lower; unitriangular: its diagonal read as
// ones) and B [*, n, k], batch dims broadcast. A zero on the diagonal gives inf/nan, as BLAS's trsm.
Tensor linalg_solve_triangular(const Tensor& A, const Tensor& B, bool upper, bool unitriangular);
// {eigenvalues ascending [*, n], eigenvectors [*, n, n] (columns)} of symmetric A, read from its
// lower (or upper) triangle. compute_v false: {eigenvalues} only.
TensorList linalg_eigh(const Tensor& A, bool upper, const std::string& op);
// A = U diag(S) Vh for A [*, m, n]: {U [*, m, k], S [*, k], Vh [*, k, n]} with k = min(m, n), or
// U [*, m, m] and Vh [*, n, n] with full_matrices.
TensorList linalg_svd(const Tensor& A, bool full_matrices, const std::string& op);
// A = Q R for A [*, m, n]; mode "reduced" (Q [*, m, k], R [*, k, n]), "complete" (Q [*, m, m],
// R [*, m, n]) or "r" (R only, Q empty), as torch.linalg.qr.
TensorList linalg_qr(const Tensor& A, const std::string& mode);

}  // namespace tt
