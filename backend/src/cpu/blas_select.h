#pragma once
// The GEMM entry points of the BLAS chosen at run time (blas_select.cpp): row-major CBLAS sgemm /
// dgemm with 32-bit sizes, as OpenBLAS's scipy_cblas_* and MKL's LP64 cblas_* both take them.
#include <cblas.h>

#include <cstddef>
#include <cstdint>

namespace tt::cpu {

using SgemmFn = void (*)(CBLAS_ORDER, CBLAS_TRANSPOSE, CBLAS_TRANSPOSE, blasint, blasint, blasint, float,
                         const float*, blasint, const float*, blasint, float, float*, blasint);
using DgemmFn = void (*)(CBLAS_ORDER, CBLAS_TRANSPOSE, CBLAS_TRANSPOSE, blasint, blasint, blasint, double,
                         const double*, blasint, const double*, blasint, double, double*, blasint);

// MKL's packed-operand GEMM (cblas_?gemm_pack_get_size / _pack / _compute), for a GEMM epilogue's
// blocks that share one B (NOTE [ GEMM epilogues ] in graph/epilogue.cpp). The enums are MKL's:
// layout 101 (row major), identifier 162 (B), trans 111/112, and 151 (CblasPacked) for the operand
// that was packed. Null with OpenBLAS, which has no such API.
template <class T>
struct PackedGemm {
  size_t (*get_size)(int identifier, blasint m, blasint n, blasint k) = nullptr;
  void (*pack)(int layout, int identifier, int trans, blasint m, blasint n, blasint k, T alpha, const T* src, blasint ld,
               T* dest) = nullptr;
  void (*compute)(int layout, blasint transa, blasint transb, blasint m, blasint n, blasint k, const T* a, blasint lda,
                  const T* b, blasint ldb, T beta, T* c, blasint ldc) = nullptr;
  bool available() const { return get_size && pack && compute; }
};

// MKL's cblas_gemm_bf16bf16f32: C (float32) = alpha op(A) op(B) + beta C with bfloat16 A and B (raw
// bits), accumulated in float32 -- AMX tiles or AVX512_BF16 where the CPU has them (NOTE
// [ bfloat16 GEMM ] in gemm.cpp). Null with OpenBLAS (the scipy-openblas32 build exports no sbgemm).
using Bf16GemmFn = void (*)(CBLAS_ORDER, CBLAS_TRANSPOSE, CBLAS_TRANSPOSE, blasint, blasint, blasint, float,
                            const uint16_t*, blasint, const uint16_t*, blasint, float, float*, blasint);

struct GemmFns {
  SgemmFn sgemm;
  DgemmFn dgemm;
  PackedGemm<float> spacked{};
  PackedGemm<double> dpacked{};
  Bf16GemmFn bf16gemm = nullptr;
};

// The chosen library's GEMMs; single-threaded (NOTE [ One thread pool ] in kernels.h).
const GemmFns& gemm_fns();

// Whether float32 products run on the bfloat16 GEMM: the "medium" float32 matmul precision with a
// BLAS that has one (NOTE [ float32 matmul precision ] in gemm.cpp).
bool float32_gemm_in_bf16();

}  // namespace tt::cpu
