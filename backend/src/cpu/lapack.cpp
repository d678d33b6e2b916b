// The LAPACK routines behind torch.linalg (lapack.h): thin overloads over the linked OpenBLAS's
// LAPACKE in row-major layout (LAPACKE transposes to LAPACK's column-major order itself).
#include "lapack.h"

#include <complex>
#define lapack_complex_float std::complex<float>
#define lapack_complex_double std::complex<double>
#include <cblas.h>
#include <lapacke.h>

namespace tt::cpu::lapack {
namespace {
constexpr int kRow = LAPACK_ROW_MAJOR;
CBLAS_UPLO uplo_of(bool upper) { return upper ? CblasUpper : CblasLower; }
CBLAS_DIAG diag_of(bool unit) { return unit ? CblasUnit : CblasNonUnit; }
}  // namespace

lint getrf(lint n, float* a, lint* ipiv) { return scipy_LAPACKE_sgetrf(kRow, n, n, a, n, ipiv); }
lint getrf(lint n, double* a, lint* ipiv) { return scipy_LAPACKE_dgetrf(kRow, n, n, a, n, ipiv); }
lint getrs(lint n, lint nrhs, const float* lu, const lint* ipiv, float* b) {
  return scipy_LAPACKE_sgetrs(kRow, 'N', n, nrhs, lu, n, ipiv, b, nrhs);
}
lint getrs(lint n, lint nrhs, const double* lu, const lint* ipiv, double* b) {
  return scipy_LAPACKE_dgetrs(kRow, 'N', n, nrhs, lu, n, ipiv, b, nrhs);
}
lint potrf(lint n, float* a) { return scipy_LAPACKE_spotrf(kRow, 'L', n, a, n); }
lint potrf(lint n, double* a) { return scipy_LAPACKE_dpotrf(kRow, 'L', n, a, n); }
void trsm(bool upper, bool unit, lint n, lint nrhs, const float* a, float* b) {
  scipy_cblas_strsm(CblasRowMajor, CblasLeft, uplo_of(upper), CblasNoTrans, diag_of(unit), n, nrhs, 1.0f, a, n, b, nrhs);
}
void trsm(bool upper, bool unit, lint n, lint nrhs, const double* a, double* b) {
  scipy_cblas_dtrsm(CblasRowMajor, CblasLeft, uplo_of(upper), CblasNoTrans, diag_of(unit), n, nrhs, 1.0, a, n, b, nrhs);
}
lint syevd(bool vectors, char uplo, lint n, float* a, float* w) {
  return scipy_LAPACKE_ssyevd(kRow, vectors ? 'V' : 'N', uplo, n, a, n, w);
}
lint syevd(bool vectors, char uplo, lint n, double* a, double* w) {
  return scipy_LAPACKE_dsyevd(kRow, vectors ? 'V' : 'N', uplo, n, a, n, w);
}
namespace {
lint ldu(char jobz, lint m, lint n) { return jobz == 'A' ? m : jobz == 'S' ? (m < n ? m : n) : 1; }
lint ldvt(char jobz, lint n) { return jobz == 'N' ? 1 : n; }
}  // namespace
lint gesdd(char jobz, lint m, lint n, float* a, float* s, float* u, float* vt) {
  return scipy_LAPACKE_sgesdd(kRow, jobz, m, n, a, n, s, u, ldu(jobz, m, n), vt, ldvt(jobz, n));
}
lint gesdd(char jobz, lint m, lint n, double* a, double* s, double* u, double* vt) {
  return scipy_LAPACKE_dgesdd(kRow, jobz, m, n, a, n, s, u, ldu(jobz, m, n), vt, ldvt(jobz, n));
}
lint geqrf(lint m, lint n, lint lda, float* a, float* tau) { return scipy_LAPACKE_sgeqrf(kRow, m, n, a, lda, tau); }
lint geqrf(lint m, lint n, lint lda, double* a, double* tau) { return scipy_LAPACKE_dgeqrf(kRow, m, n, a, lda, tau); }
lint orgqr(lint m, lint ncols, lint k, lint lda, float* a, const float* tau) {
  return scipy_LAPACKE_sorgqr(kRow, m, ncols, k, a, lda, tau);
}
lint orgqr(lint m, lint ncols, lint k, lint lda, double* a, const double* tau) {
  return scipy_LAPACKE_dorgqr(kRow, m, ncols, k, a, lda, tau);
}

}  // namespace tt::cpu::lapack
