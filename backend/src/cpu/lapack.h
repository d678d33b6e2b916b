#pragma once
// LAPACK routines of the linked OpenBLAS (its LAPACKE, symbols prefixed scipy_), overloaded on
// float and double so that the batched drivers in core/ops_lapack.cpp are written once. Every
// matrix is row-major and dense; each returns LAPACK's info (0: done; > 0: the routine's failure).
#include <cstdint>

namespace tt::cpu::lapack {

using lint = int32_t;  // scipy-openblas32: 32-bit LAPACK integers

lint getrf(lint n, float* a, lint* ipiv);
lint getrf(lint n, double* a, lint* ipiv);
// solves A X = B with A's getrf factors; b [n, nrhs]
lint getrs(lint n, lint nrhs, const float* lu, const lint* ipiv, float* b);
lint getrs(lint n, lint nrhs, const double* lu, const lint* ipiv, double* b);
lint potrf(lint n, float* a);  // lower: A = L L^T in a's lower triangle
lint potrf(lint n, double* a);
// A X = B in place in b [n, nrhs], A triangular (BLAS trsm: no singularity check)
void trsm(bool upper, bool unit, lint n, lint nrhs, const float* a, float* b);
void trsm(bool upper, bool unit, lint n, lint nrhs, const double* a, double* b);
// eigenvalues w ascending, and eigenvectors (columns of a) when vectors; uplo 'L' or 'U'
lint syevd(bool vectors, char uplo, lint n, float* a, float* w);
lint syevd(bool vectors, char uplo, lint n, double* a, double* w);
// jobz 'S' (u [m, k], vt [k, n]), 'A' (u [m, m], vt [n, n]) or 'N' (s only); a [m, n] is destroyed
lint gesdd(char jobz, lint m, lint n, float* a, float* s, float* u, float* vt);
lint gesdd(char jobz, lint m, lint n, double* a, double* s, double* u, double* vt);
// a [m, n] (leading dimension lda) -> R above the diagonal and the reflectors below, tau [min(m, n)]
lint geqrf(lint m, lint n, lint lda, float* a, float* tau);
lint geqrf(lint m, lint n, lint lda, double* a, double* tau);
// the first ncols columns of Q from k reflectors in a [m, ncols] (leading dimension lda)
lint orgqr(lint m, lint ncols, lint k, lint lda, float* a, const float* tau);
lint orgqr(lint m, lint ncols, lint k, lint lda, double* a, const double* tau);

}  // namespace tt::cpu::lapack
