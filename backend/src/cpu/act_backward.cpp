// Fused activation VJPs: dx = g * f'(x) in one pass (the same formula as a chain of front-end ops
// would be eight passes over the tensor).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "kernels.h"
#include "parallel.h"
#include "unary_span.h"
#include "unary_wide.h"
#include "vmath.h"

namespace tt::cpu {
namespace {

template <class T>
T dgelu_tanh(T x) {
  const T k = T(0.79788456080286535588), c = T(0.044715);
  T x2 = x * x;
  T t = vtanh(k * x * (T(1) + c * x2));
  return T(0.5) * (T(1) + t) + T(0.5) * x * (T(1) - t * t) * k * (T(1) + T(3) * c * x2);
}

template <class T>
T dsilu(T x) {  // s (1 + x (1 - s))
  T s = vsigmoid(x);
  return s * (T(1) + x * (T(1) - s));
}

template <class T, class F>
void run(const Tensor& out, const Tensor& g, const Tensor& x, F f) {
  T* po = out.data<T>();
  const T* pgs = g.data<T>();
  const T* pxs = x.data<T>();
  parallel_for(0, out.numel(), kGrain / 4, [po, pgs, pxs, f](int64_t b, int64_t e) {
    T* __restrict o = po;  // locals, not captured references: those are reloaded every element
    const T* __restrict pg = pgs;
    const T* __restrict px = pxs;
    for (int64_t i = b; i < e; ++i) o[i] = pg[i] * f(px[i]);
  });
}

// gelu's derivative Phi(x) + x phi(x). With AVX-512, float runs in one pass of explicit lanes
// (gelu_erf_backward_wide). Otherwise its erf and exp go through the unary span kernels over blocks
// that stay in L1: written as one per-element function the loop is not vectorised (erf's
// polynomial with its clamps), and was 1.4x torch's backward.
constexpr int64_t kGeluBlock = 512;

template <class T>
void run_gelu_erf(const Tensor& out, const Tensor& g, const Tensor& x) {
  T* po = out.data<T>();
  const T* pgs = g.data<T>();
  const T* pxs = x.data<T>();
  if constexpr (std::is_same_v<T, float>) {
    if (wide_unary_enabled()) {  // one pass in AVX-512 lanes (unary_avx512.cpp)
      parallel_for(0, out.numel(), kGrain / 4, [po, pgs, pxs](int64_t b, int64_t e) {
        gelu_erf_backward_wide(po + b, pgs + b, pxs + b, e - b);
      });
      return;
    }
  }
  parallel_for(0, out.numel(), kGrain / 4, [po, pgs, pxs](int64_t b, int64_t e) {
    T cdf[kGeluBlock], pdf[kGeluBlock];
    const bool wide = wide_unary_enabled();
    for (int64_t i0 = b; i0 < e; i0 += kGeluBlock) {
      const int64_t n = std::min(kGeluBlock, e - i0);
      T* __restrict o = po + i0;
      const T* __restrict pg = pgs + i0;
      const T* __restrict px = pxs + i0;
      for (int64_t i = 0; i < n; ++i) {
        cdf[i] = px[i] * T(0.70710678118654752440);
        pdf[i] = T(-0.5) * px[i] * px[i];
      }
      if (wide) {
        unary_span_wide(UnaryOp::Erf, cdf, cdf, n);
        unary_span_wide(UnaryOp::Exp, pdf, pdf, n);
      } else {
        unary_span<T>(UnaryOp::Erf, cdf, cdf, n);
        unary_span<T>(UnaryOp::Exp, pdf, pdf, n);
      }
      for (int64_t i = 0; i < n; ++i)
        o[i] = pg[i] * (T(0.5) * (T(1) + cdf[i]) + px[i] * (pdf[i] * T(0.39894228040143267794)));
    }
  });
}

template <class T>
void dispatch(UnaryOp op, const Tensor& out, const Tensor& g, const Tensor& x) {
  switch (op) {
    case UnaryOp::Gelu: return run_gelu_erf<T>(out, g, x);
    case UnaryOp::GeluTanh: return run<T>(out, g, x, [](T v) { return dgelu_tanh(v); });
    case UnaryOp::Silu: return run<T>(out, g, x, [](T v) { return dsilu(v); });
    case UnaryOp::Relu: {  // x is relu's output here; a select, so a NaN gradient stays NaN where x > 0
      // the select as a bit mask over local restrict pointers: GCC compiled the ternary to a
      // branch (mispredicted on activations) and reloaded captured pointers every element
      using U = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
      T* po = out.data<T>();
      const T* pgs = g.data<T>();
      const T* pxs = x.data<T>();
      parallel_for(0, out.numel(), kGrain, [po, pgs, pxs](int64_t b, int64_t e) {
        T* __restrict o = po;
        const T* __restrict pg = pgs;
        const T* __restrict px = pxs;
        for (int64_t i = b; i < e; ++i) {
          U gb, mask = U(0) - static_cast<U>(px[i] > T(0));
          std::memcpy(&gb, &pg[i], sizeof(T));
          gb &= mask;
          std::memcpy(&o[i], &gb, sizeof(T));
        }
      });
      return;
    }
    default: throw NotImplementedError(std::string("[") + unary_name(op) + "] has no fused backward kernel");
  }
}

}  // namespace

void activation_backward(UnaryOp op, const Tensor& out, const Tensor& g, const Tensor& x) {
  if (on_cuda(out)) return cuda_kernels().activation_backward(op, out, g, x);  // NOTE [ Device dispatch ]
  if (out.numel() == 0) return;
  if (out.dtype() == DType::Float32) return dispatch<float>(op, out, g, x);
  if (out.dtype() == DType::Float64) return dispatch<double>(op, out, g, x);
  throw TypeError(std::string("[") + unary_name(op) + "] backward needs float32 or float64");
}

}  // namespace tt::cpu
