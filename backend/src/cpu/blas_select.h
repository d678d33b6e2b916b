#pragma once
// The GEMM entry points of the BLAS chosen at run time (blas_select.cpp): row-major CBLAS sgemm /
// dgemm with 32-bit sizes, as OpenBLAS's scipy_cblas_* and MKL's LP64 cblas_* both take them.
#include <cblas.h>

namespace tt::cpu {

using SgemmFn = void (*)(CBLAS_ORDER, CBLAS_TRANSPOSE, CBLAS_TRANSPOSE, blasint, blasint, blasint, float,
                         const float*, blasint, const float*, blasint, float, float*, blasint);
using DgemmFn = void (*)(CBLAS_ORDER, CBLAS_TRANSPOSE, CBLAS_TRANSPOSE, blasint, blasint, blasint, double,
                         const double*, blasint, const double*, blasint, double, double*, blasint);

struct GemmFns {
  SgemmFn sgemm;
  DgemmFn dgemm;
};

// The chosen library's GEMMs; single-threaded (NOTE [ One thread pool ] in kernels.h).
const GemmFns& gemm_fns();

}  // namespace tt::cpu
