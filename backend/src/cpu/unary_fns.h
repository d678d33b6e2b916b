#pragma once
// The floating-point unary ops as per-element functions: one table for the baseline kernels
// (elementwise.cpp) and the AVX-512 copy (unary_avx512.cpp), so an op's formula is written once.
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "typedtensor/op_kinds.h"
#include "typedtensor/special_math.h"
#include "vmath.h"
#include "vmath_more.h"

namespace tt::cpu {

// The unary ops with one parameter: F.leaky_relu's slope, F.elu's alpha.
enum class ParamUnaryOp : uint8_t { LeakyRelu, Elu };

inline namespace TT_VMATH_ISA {

// std::min / std::max semantics (NaN in the first operand passes through) without their
// out-of-line template copies, which must not be shared between the baseline and AVX-512 files.
template <class T>
TT_VMATH_INLINE T vmin(T a, T b) { return b < a ? b : a; }
template <class T>
TT_VMATH_INLINE T vmax(T a, T b) { return a < b ? b : a; }

template <class T>
TT_VMATH_INLINE T gelu_erf(T x) {
  return T(0.5) * x * (T(1) + verf(x * T(0.70710678118654752440)));
}
template <class T>
TT_VMATH_INLINE T gelu_tanh(T x) {
  const T k = T(0.79788456080286535588), c = T(0.044715);
  return T(0.5) * x * (T(1) + vtanh(k * (x + c * x * x * x)));
}

// erfinv: Giles' single-precision approximation ("Approximating the erfinv function", GPU Gems
// 2012), then Newton steps in double on erf (erfc for |y| > 0.5, whose 1 - |y| is exact), so the
// result is right to double precision; +-inf at +-1, NaN outside [-1, 1].
template <class T>
TT_VMATH_INLINE T verfinv(T y0) {
  double y = static_cast<double>(y0), a = y < 0 ? -y : y;
  if (!(a <= 1.0)) return std::numeric_limits<T>::quiet_NaN();
  if (a == 1.0) return y > 0 ? std::numeric_limits<T>::infinity() : -std::numeric_limits<T>::infinity();
  double w = -std::log((1.0 - a) * (1.0 + a)), p;
  if (w < 5.0) {
    w -= 2.5;
    p = 2.81022636e-08;
    for (double c : {3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503, -0.00417768164,
                     0.246640727, 1.50140941})
      p = p * w + c;
  } else {
    w = std::sqrt(w) - 3.0;
    p = -0.000200214257;
    for (double c : {0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613, 0.00943887047,
                     1.00167406, 2.83297682})
      p = p * w + c;
  }
  double x = p * a;
  constexpr double kSqrtPiOverTwo = 0.88622692545275801365;
  for (int i = 0; i < 3; ++i) {  // f(x) = erf(x) - a, as erfc's (1 - a) - erfc(x) near 1
    double r = a > 0.5 ? (1.0 - a) - std::erfc(x) : std::erf(x) - a;
    double step = r * kSqrtPiOverTwo * std::exp(x * x);
    if (!std::isfinite(step)) break;
    x -= step;
  }
  return static_cast<T>(y < 0 ? -x : x);
}

// Calls run(f) with the T -> T function of `op` and returns true; false when `op` is not a
// floating-point math op (the bool-valued tests and the ops shared with integers are elsewhere).
// sin / cos / tan here are the reduced forms, exact only below trig_limit<T>: callers
// recompute larger arguments with libm (see trig_span).
template <class T, class Run>
bool fp_unary_fn(UnaryOp op, Run&& run) {
  static_assert(std::is_floating_point_v<T>);
  switch (op) {
    case UnaryOp::Exp: run([](T x) { return vexp(x); }); return true;
    case UnaryOp::Exp2: run([](T x) { return vexp2(x); }); return true;
    case UnaryOp::Expm1: run([](T x) { return vexpm1(x); }); return true;
    case UnaryOp::Log: run([](T x) { if constexpr (std::is_same_v<T, float>) return vlogf(x); else return vlog(x); }); return true;
    case UnaryOp::Log2: run([](T x) { return vlog2(x); }); return true;
    case UnaryOp::Log10: run([](T x) { return vlog10(x); }); return true;
    case UnaryOp::Log1p: run([](T x) { return vlog1p(x); }); return true;
    case UnaryOp::Sqrt: run([](T x) { return std::sqrt(x); }); return true;
    case UnaryOp::Rsqrt: run([](T x) { return T(1) / std::sqrt(x); }); return true;
    case UnaryOp::Sin: run([](T x) { return vsin_reduced(x); }); return true;
    case UnaryOp::Cos: run([](T x) { return vcos_reduced(x); }); return true;
    case UnaryOp::Tan: run([](T x) { return vtan_reduced(x); }); return true;
    case UnaryOp::Asin: run([](T x) { return vasin(x); }); return true;
    case UnaryOp::Acos: run([](T x) { return vacos(x); }); return true;
    case UnaryOp::Atan: run([](T x) { return vatan(x); }); return true;
    case UnaryOp::Sinh: run([](T x) { return vsinh(x); }); return true;
    case UnaryOp::Cosh: run([](T x) { return vcosh(x); }); return true;
    case UnaryOp::Tanh: run([](T x) { return vtanh(x); }); return true;
    case UnaryOp::Asinh: run([](T x) { return vasinh(x); }); return true;
    case UnaryOp::Acosh: run([](T x) { return vacosh(x); }); return true;
    case UnaryOp::Atanh: run([](T x) { return vatanh(x); }); return true;
    case UnaryOp::Sigmoid: run([](T x) { return vsigmoid(x); }); return true;
    case UnaryOp::Gelu: run([](T x) { return gelu_erf(x); }); return true;
    case UnaryOp::GeluTanh: run([](T x) { return gelu_tanh(x); }); return true;
    case UnaryOp::Silu: run([](T x) { return x * vsigmoid(x); }); return true;
    case UnaryOp::Erf: run([](T x) { return verf(x); }); return true;
    case UnaryOp::Erfc: run([](T x) { return verfc(x); }); return true;
    case UnaryOp::Erfinv: run([](T x) { return verfinv(x); }); return true;
    // NOTE [ Special functions ]: computed in double, rounded once
    case UnaryOp::Lgamma: run([](T x) { return static_cast<T>(std::lgamma(static_cast<double>(x))); }); return true;
    case UnaryOp::Digamma: run([](T x) { return static_cast<T>(special::digamma(x)); }); return true;
    case UnaryOp::Trigamma: run([](T x) { return static_cast<T>(special::trigamma(x)); }); return true;
    case UnaryOp::I0: run([](T x) { return static_cast<T>(special::i0(x)); }); return true;
    case UnaryOp::I0e: run([](T x) { return static_cast<T>(special::i0e(x)); }); return true;
    case UnaryOp::I1: run([](T x) { return static_cast<T>(special::i1(x)); }); return true;
    case UnaryOp::I1e: run([](T x) { return static_cast<T>(special::i1e(x)); }); return true;
    case UnaryOp::Erfcx: run([](T x) { return static_cast<T>(special::erfcx(x)); }); return true;
    case UnaryOp::Ndtri: run([](T x) { return static_cast<T>(special::ndtri(x)); }); return true;
    case UnaryOp::Floor: run([](T x) { return std::floor(x); }); return true;
    case UnaryOp::Ceil: run([](T x) { return std::ceil(x); }); return true;
    case UnaryOp::Round: run([](T x) { return std::nearbyint(x); }); return true;
    case UnaryOp::Trunc: run([](T x) { return std::trunc(x); }); return true;
    case UnaryOp::Frac: run([](T x) { return x - std::trunc(x); }); return true;
    case UnaryOp::Reciprocal: run([](T x) { return T(1) / x; }); return true;
    case UnaryOp::Relu: run([](T x) { return x > T(0) ? x : (x != x ? x : T(0)); }); return true;
    case UnaryOp::Neg: run([](T x) { return -x; }); return true;
    case UnaryOp::Abs: run([](T x) { return std::fabs(x); }); return true;
    case UnaryOp::Square: run([](T x) { return x * x; }); return true;
    case UnaryOp::Sign: run([](T x) { return x > T(0) ? T(1) : (x < T(0) ? T(-1) : T(0)); }); return true;  // NaN -> 0, as torch
    case UnaryOp::Softplus: run([](T x) { return vsoftplus(x); }); return true;
    case UnaryOp::Mish: run([](T x) { return vmish(x); }); return true;
    case UnaryOp::Logsigmoid: run([](T x) { return vlogsigmoid(x); }); return true;
    case UnaryOp::Hardsigmoid: run([](T x) { return vmin(vmax(x + T(3), T(0)), T(6)) / T(6); }); return true;
    case UnaryOp::Hardswish: run([](T x) { return x * vmin(vmax(x + T(3), T(0)), T(6)) / T(6); }); return true;
    default: return false;
  }
}

// Ops cheap enough per element that a thread needs the full grain of work to pay for itself.
inline bool unary_is_cheap(UnaryOp op) {
  switch (op) {
    case UnaryOp::Relu: case UnaryOp::Neg: case UnaryOp::Abs: case UnaryOp::Square: case UnaryOp::Sign:
    case UnaryOp::Sqrt: case UnaryOp::Rsqrt: case UnaryOp::Floor: case UnaryOp::Ceil:
    case UnaryOp::Round: case UnaryOp::Trunc: case UnaryOp::Frac: case UnaryOp::Reciprocal:
    case UnaryOp::Hardsigmoid: case UnaryOp::Hardswish: return true;
    default: return false;
  }
}

}  // inline namespace TT_VMATH_ISA
}  // namespace tt::cpu
