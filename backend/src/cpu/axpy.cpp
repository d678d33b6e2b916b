// y += alpha * x in one pass: the optimisers' update (SGD's step, momentum, weight decay) without
// the temporary that `mul` then `add_` would allocate and stream through.
#include "kernels.h"
#include "parallel.h"

namespace tt::cpu {
namespace {

template <class T>
void run(const Tensor& y, const Tensor& x, double alpha) {
  T* py = y.data<T>();
  const T* px = x.data<T>();
  const T a = static_cast<T>(alpha);
  parallel_for(0, y.numel(), kGrain, [py, px, a](int64_t b, int64_t e) {
    T* __restrict yy = py;  // locals, not captured references, so the loop vectorises
    const T* __restrict xx = px;
    for (int64_t i = b; i < e; ++i) yy[i] += a * xx[i];
  });
}

}  // namespace

void axpy(const Tensor& y, const Tensor& x, double alpha) {
  if (y.numel() == 0) return;
  if (y.dtype() == DType::Float32) return run<float>(y, x, alpha);
  if (y.dtype() == DType::Float64) return run<double>(y, x, alpha);
  throw TypeError(std::string("[axpy] needs float32 or float64, got ") + dtype_name(y.dtype()));
}

}  // namespace tt::cpu
