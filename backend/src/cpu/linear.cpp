// linear with a bias on the CPU: NOTE [ Linear with bias ] in core/ops_linalg.cpp.
#include "linear.h"

#include <algorithm>

#include "kernels.h"
#include "parallel.h"

namespace tt::cpu {
namespace {

// Every row of out [m, n] (contiguous) set to the bias b [n] (any stride).
template <class T>
void fill_rows(const Tensor& out, const Tensor& b) {
  const int64_t m = out.size(0), n = out.size(1), bs = b.stride(0);
  const T* pb = b.data<T>();
  T* o = out.data<T>();
  parallel_for(0, m, std::max<int64_t>(1, kGrain / std::max<int64_t>(n, 1)), [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) {
      T* row = o + i * n;
      if (bs == 1) std::copy(pb, pb + n, row);
      else
        for (int64_t j = 0; j < n; ++j) row[j] = pb[j * bs];
    }
  });
}

}  // namespace

void linear_bias(const Tensor& out, const Tensor& x, const Tensor& w, const Tensor& b) {
  const int64_t m = x.size(0), k = x.size(1), n = w.size(0);
  if (out.dtype() == DType::Float32) fill_rows<float>(out, b);
  else if (out.dtype() == DType::Float64) fill_rows<double>(out, b);
  else if (out.dtype() == DType::BFloat16) fill_rows<BFloat16>(out, b);  // MKL's bfloat16 GEMM (ops_linalg.cpp)
  else throw TypeError("[linear] the fused CPU kernel needs float32, float64 or bfloat16");
  // out += [1, m, k] @ [1, k, n] through the matmul kernel (its BLAS layouts and thread split), beta = 1
  gemm_accumulate(make_view(out, Shape{1, m, n}, Strides{m * n, n, 1}, out.offset()),
                  make_view(x, Shape{1, m, k}, Strides{m * k, x.stride(0), x.stride(1)}, x.offset()),
                  make_view(w, Shape{1, k, n}, Strides{k * n, w.stride(1), w.stride(0)}, w.offset()));
}

}  // namespace tt::cpu
