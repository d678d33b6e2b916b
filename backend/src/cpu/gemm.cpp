// Matrix products: float32/float64 through OpenBLAS (scipy-openblas32, `scipy_` prefix); integer
// types through a plain loop (BLAS has none).
#include <cblas.h>

#include <type_traits>

#include "kernels.h"
#include "parallel.h"

namespace tt::cpu {
namespace {

struct MatLayout {
  CBLAS_TRANSPOSE trans;
  int64_t ld;
};

// A [rows, cols] view with strides (rs, cs) that BLAS can read without a copy, if any.
bool blas_layout(int64_t rows, int64_t cols, int64_t rs, int64_t cs, MatLayout* l) {
  if (cols <= 1 && rows <= 1) { *l = {CblasNoTrans, std::max<int64_t>(cols, 1)}; return true; }
  if ((cs == 1 || cols == 1) && rs >= std::max<int64_t>(cols, 1)) { *l = {CblasNoTrans, rs}; return true; }
  if ((rs == 1 || rows == 1) && cs >= std::max<int64_t>(rows, 1)) { *l = {CblasTrans, cs}; return true; }
  return false;
}

template <class T>
void gemm_blas(const Tensor& c, const Tensor& a, const Tensor& b) {
  int64_t batch = c.size(0), m = c.size(1), n = c.size(2), k = a.size(2);
  Tensor aa = a, bb = b;
  MatLayout la, lb;
  if (!blas_layout(m, k, a.stride(1), a.stride(2), &la)) {
    aa = empty(a.shape(), a.dtype());
    copy(aa, a);
    blas_layout(m, k, aa.stride(1), aa.stride(2), &la);
  }
  if (!blas_layout(k, n, b.stride(1), b.stride(2), &lb)) {
    bb = empty(b.shape(), b.dtype());
    copy(bb, b);
    blas_layout(k, n, bb.stride(1), bb.stride(2), &lb);
  }
  const T* pa = aa.data<T>();
  const T* pb = bb.data<T>();
  T* pc = c.data<T>();
  int64_t sa = aa.stride(0), sb = bb.stride(0), sc = m * n;
  for (int64_t i = 0; i < batch; ++i) {
    if constexpr (std::is_same_v<T, float>) {
      scipy_cblas_sgemm(CblasRowMajor, la.trans, lb.trans, static_cast<blasint>(m), static_cast<blasint>(n),
                        static_cast<blasint>(k), 1.0f, pa + i * sa, static_cast<blasint>(la.ld), pb + i * sb,
                        static_cast<blasint>(lb.ld), 0.0f, pc + i * sc, static_cast<blasint>(n));
    } else {
      scipy_cblas_dgemm(CblasRowMajor, la.trans, lb.trans, static_cast<blasint>(m), static_cast<blasint>(n),
                        static_cast<blasint>(k), 1.0, pa + i * sa, static_cast<blasint>(la.ld), pb + i * sb,
                        static_cast<blasint>(lb.ld), 0.0, pc + i * sc, static_cast<blasint>(n));
    }
  }
}

template <class T>
void gemm_loop(const Tensor& c, const Tensor& a, const Tensor& b) {
  int64_t batch = c.size(0), m = c.size(1), n = c.size(2), k = a.size(2);
  const T* pa = a.data<T>();
  const T* pb = b.data<T>();
  T* pc = c.data<T>();
  int64_t a0 = a.stride(0), a1 = a.stride(1), a2 = a.stride(2);
  int64_t b0 = b.stride(0), b1 = b.stride(1), b2 = b.stride(2);
  parallel_for(0, batch * m, std::max<int64_t>(1, kGrain / std::max<int64_t>(n * k, 1)), [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) {
      int64_t bi = r / m, i = r % m;
      T* crow = pc + bi * m * n + i * n;
      for (int64_t j = 0; j < n; ++j) crow[j] = T(0);
      for (int64_t p = 0; p < k; ++p) {
        T av = pa[bi * a0 + i * a1 + p * a2];
        const T* brow = pb + bi * b0 + p * b1;
        if constexpr (std::is_same_v<T, bool>) {
          if (av) for (int64_t j = 0; j < n; ++j) crow[j] = crow[j] || brow[j * b2];
        } else {
          for (int64_t j = 0; j < n; ++j) crow[j] = static_cast<T>(crow[j] + av * brow[j * b2]);
        }
      }
    }
  });
}

}  // namespace

void gemm_batched(const Tensor& c, const Tensor& a, const Tensor& b) {
  if (on_cuda(c)) return cuda_kernels().gemm_batched(c, a, b);  // NOTE [ Device dispatch ]
  if (c.numel() == 0) return;
  if (a.size(2) == 0) {
    fill(c, Scalar::from_int(0));
    return;
  }
  switch (c.dtype()) {
    case DType::Float32: return gemm_blas<float>(c, a, b);
    case DType::Float64: return gemm_blas<double>(c, a, b);
    case DType::Int64: return gemm_loop<int64_t>(c, a, b);
    case DType::Int32: return gemm_loop<int32_t>(c, a, b);
    case DType::UInt8: return gemm_loop<uint8_t>(c, a, b);
    case DType::Bool: return gemm_loop<bool>(c, a, b);
    default: throw TypeError(std::string("[matmul] no CPU kernel for dtype ") + dtype_name(c.dtype()));
  }
}

}  // namespace tt::cpu
