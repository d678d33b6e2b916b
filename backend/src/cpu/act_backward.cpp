// Fused activation VJPs: dx = g * f'(x) in one pass (the same formula as a chain of front-end ops
// would be eight passes over the tensor).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "kernels.h"
#include "parallel.h"
#include "vmath.h"

namespace tt::cpu {
namespace {

template <class T>
T dgelu_erf(T x) {  // Phi(x) + x phi(x)
  T cdf = T(0.5) * (T(1) + verf(x * T(0.70710678118654752440)));
  T pdf = vexp(T(-0.5) * x * x) * T(0.39894228040143267794);
  return cdf + x * pdf;
}

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

template <class T>
void dispatch(UnaryOp op, const Tensor& out, const Tensor& g, const Tensor& x) {
  switch (op) {
    case UnaryOp::Gelu: return run<T>(out, g, x, [](T v) { return dgelu_erf(v); });
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
