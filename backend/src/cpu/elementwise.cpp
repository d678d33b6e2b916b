// Elementwise CPU kernels: binary, unary, copy/cast, fill, where, clamp.
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "kernels.h"
#include "loops.h"
#include "vmath.h"

namespace tt::cpu {
namespace {

template <class T>
constexpr bool is_fp = std::is_floating_point_v<T>;

// ---- binary functors ----
template <class T>
T floordiv(T a, T b) {
  if constexpr (is_fp<T>) {
    if (b == 0) return a / b;
    T m = std::fmod(a, b);
    T d = (a - m) / b;
    if (m != 0 && ((b < 0) != (m < 0))) d -= 1;
    T fl = std::floor(d);
    if (d - fl > T(0.5)) fl += 1;
    return d == 0 ? std::copysign(T(0), a / b) : fl;
  } else if constexpr (std::is_same_v<T, bool>) {
    return a;
  } else {
    T q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
    return q;
  }
}
template <class T>
T remainder(T a, T b) {
  if constexpr (is_fp<T>) {
    T r = std::fmod(a, b);
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
  } else if constexpr (std::is_same_v<T, bool>) {
    return false;
  } else {
    T r = a % b;
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
  }
}
template <class T>
T ipow(T a, T b) {
  if constexpr (is_fp<T>) {
    return std::pow(a, b);
  } else if constexpr (std::is_same_v<T, bool>) {
    return a || !b;
  } else {
    if (b < 0) return a == 1 ? 1 : (a == -1 ? ((b & 1) ? -1 : 1) : 0);
    T r = 1;
    while (b) {
      if (b & 1) r = static_cast<T>(r * a);
      a = static_cast<T>(a * a);
      b >>= 1;
    }
    return r;
  }
}

template <class T, class O, class F>
void binary_loop(char** p, const int64_t* s, int64_t n, F f) {
  constexpr int64_t so = sizeof(O), st = sizeof(T);
  O* __restrict o = reinterpret_cast<O*>(p[0]);
  const T* __restrict a = reinterpret_cast<const T*>(p[1]);
  const T* __restrict b = reinterpret_cast<const T*>(p[2]);
  if (s[0] == so && s[1] == st && s[2] == st) {
    for (int64_t i = 0; i < n; ++i) o[i] = f(a[i], b[i]);
  } else if (s[0] == so && s[1] == st && s[2] == 0) {
    const T bv = *b;
    for (int64_t i = 0; i < n; ++i) o[i] = f(a[i], bv);
  } else if (s[0] == so && s[1] == 0 && s[2] == st) {
    const T av = *a;
    for (int64_t i = 0; i < n; ++i) o[i] = f(av, b[i]);
  } else {
    char *po = p[0], *pa = p[1], *pb = p[2];
    for (int64_t i = 0; i < n; ++i, po += s[0], pa += s[1], pb += s[2])
      *reinterpret_cast<O*>(po) = f(*reinterpret_cast<const T*>(pa), *reinterpret_cast<const T*>(pb));
  }
}

template <class T, class O, class F>
void run_binary(const Tensor& out, const Tensor& a, const Tensor& b, F f) {
  int64_t n = out.numel();
  if (n <= kGrain && out.is_contiguous() && a.is_contiguous() && b.is_contiguous() &&
      a.shape() == out.shape() && b.shape() == out.shape()) {
    O* __restrict o = out.data<O>();
    const T* __restrict x = a.data<T>();
    const T* __restrict y = b.data<T>();
    for (int64_t i = 0; i < n; ++i) o[i] = f(x[i], y[i]);
    return;
  }
  for_each<3>({&out, &a, &b}, [&](char** p, const int64_t* s, int64_t m) { binary_loop<T, O>(p, s, m, f); });
}

template <class T>
void binary_typed(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b) {
  using B = bool;
  switch (op) {
    case BinaryOp::Add:
      if constexpr (std::is_same_v<T, bool>) return run_binary<T, T>(out, a, b, [](T x, T y) { return T(x || y); });
      else return run_binary<T, T>(out, a, b, [](T x, T y) { return T(x + y); });
    case BinaryOp::Sub: return run_binary<T, T>(out, a, b, [](T x, T y) { return T(x - y); });
    case BinaryOp::Mul:
      if constexpr (std::is_same_v<T, bool>) return run_binary<T, T>(out, a, b, [](T x, T y) { return T(x && y); });
      else return run_binary<T, T>(out, a, b, [](T x, T y) { return T(x * y); });
    case BinaryOp::Div:
      if constexpr (is_fp<T>) return run_binary<T, T>(out, a, b, [](T x, T y) { return x / y; });
      else break;
    case BinaryOp::FloorDiv: return run_binary<T, T>(out, a, b, [](T x, T y) { return floordiv(x, y); });
    case BinaryOp::Remainder: return run_binary<T, T>(out, a, b, [](T x, T y) { return remainder(x, y); });
    case BinaryOp::Pow: return run_binary<T, T>(out, a, b, [](T x, T y) { return ipow(x, y); });
    case BinaryOp::Maximum:
      if constexpr (is_fp<T>) return run_binary<T, T>(out, a, b, [](T x, T y) { return (x != x || x > y) ? x : y; });
      else return run_binary<T, T>(out, a, b, [](T x, T y) { return x > y ? x : y; });
    case BinaryOp::Minimum:
      if constexpr (is_fp<T>) return run_binary<T, T>(out, a, b, [](T x, T y) { return (x != x || x < y) ? x : y; });
      else return run_binary<T, T>(out, a, b, [](T x, T y) { return x < y ? x : y; });
    case BinaryOp::Eq: return run_binary<T, B>(out, a, b, [](T x, T y) { return x == y; });
    case BinaryOp::Ne: return run_binary<T, B>(out, a, b, [](T x, T y) { return x != y; });
    case BinaryOp::Lt: return run_binary<T, B>(out, a, b, [](T x, T y) { return x < y; });
    case BinaryOp::Le: return run_binary<T, B>(out, a, b, [](T x, T y) { return x <= y; });
    case BinaryOp::Gt: return run_binary<T, B>(out, a, b, [](T x, T y) { return x > y; });
    case BinaryOp::Ge: return run_binary<T, B>(out, a, b, [](T x, T y) { return x >= y; });
    case BinaryOp::LogicalAnd: return run_binary<T, B>(out, a, b, [](T x, T y) { return x != T(0) && y != T(0); });
    case BinaryOp::LogicalOr: return run_binary<T, B>(out, a, b, [](T x, T y) { return x != T(0) || y != T(0); });
    case BinaryOp::LogicalXor: return run_binary<T, B>(out, a, b, [](T x, T y) { return (x != T(0)) != (y != T(0)); });
    case BinaryOp::BitAnd:
      if constexpr (!is_fp<T>) return run_binary<T, T>(out, a, b, [](T x, T y) { return T(x & y); });
      else break;
    case BinaryOp::BitOr:
      if constexpr (!is_fp<T>) return run_binary<T, T>(out, a, b, [](T x, T y) { return T(x | y); });
      else break;
    case BinaryOp::BitXor:
      if constexpr (!is_fp<T>) return run_binary<T, T>(out, a, b, [](T x, T y) { return T(x ^ y); });
      else break;
    case BinaryOp::Atan2:
      if constexpr (is_fp<T>) return run_binary<T, T>(out, a, b, [](T x, T y) { return std::atan2(x, y); });
      else break;
    case BinaryOp::Fmod:
      if constexpr (is_fp<T>) return run_binary<T, T>(out, a, b, [](T x, T y) { return std::fmod(x, y); });
      else if constexpr (!std::is_same_v<T, bool>) return run_binary<T, T>(out, a, b, [](T x, T y) { return T(x % y); });
      else break;
    case BinaryOp::Hypot:
      if constexpr (is_fp<T>) return run_binary<T, T>(out, a, b, [](T x, T y) { return std::hypot(x, y); });
      else break;
    case BinaryOp::Copysign:
      if constexpr (is_fp<T>) return run_binary<T, T>(out, a, b, [](T x, T y) { return std::copysign(x, y); });
      else break;
  }
  throw TypeError(std::string("[") + binary_name(op) + "] not supported for dtype " + dtype_name(a.dtype()));
}

// ---- unary ----
// flatten: the per-element functor (vexp, verf, ...) must be inlined into both the serial and the
// OpenMP copies of the loop, or the serial one calls it per element and stays scalar (3x slower).
template <class T, class O, class F>
__attribute__((flatten)) void run_unary(const Tensor& out, const Tensor& a, F f) {
  int64_t n = out.numel();
  if (out.is_contiguous() && a.is_contiguous() && a.shape() == out.shape()) {
    O* __restrict o = out.data<O>();
    const T* __restrict x = a.data<T>();
    parallel_for(0, n, kGrain / 4, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) o[i] = f(x[i]);
    });
    return;
  }
  for_each<2>({&out, &a}, [&](char** p, const int64_t* s, int64_t m) {
    if (s[0] == sizeof(O) && s[1] == sizeof(T)) {
      O* __restrict o = reinterpret_cast<O*>(p[0]);
      const T* __restrict x = reinterpret_cast<const T*>(p[1]);
      for (int64_t i = 0; i < m; ++i) o[i] = f(x[i]);
    } else {
      char *po = p[0], *pa = p[1];
      for (int64_t i = 0; i < m; ++i, po += s[0], pa += s[1])
        *reinterpret_cast<O*>(po) = f(*reinterpret_cast<const T*>(pa));
    }
  }, kGrain / 4);
}

template <class T>
TT_VMATH_INLINE T gelu_erf(T x) {
  return T(0.5) * x * (T(1) + verf(x * T(0.70710678118654752440)));
}
template <class T>
TT_VMATH_INLINE T gelu_tanh(T x) {
  const T k = T(0.79788456080286535588), c = T(0.044715);
  return T(0.5) * x * (T(1) + vtanh(k * (x + c * x * x * x)));
}
template <class T>
TT_VMATH_INLINE T softplus(T x) {
  return x > T(20) ? x : vlog1p(vexp(x));
}

// float sigmoid / silu on contiguous data: eight lanes of vexp8_of (whose common case scales once)
// and a vector divide; other layouts and the tail take the scalar form, which GCC vectorises less well.
template <bool Silu>
bool run_sigmoid8(const Tensor& out, const Tensor& a) {
#if defined(__AVX2__) && defined(__FMA__)
  if (!(out.is_contiguous() && a.is_contiguous() && a.shape() == out.shape())) return false;
  float* __restrict o = out.data<float>();
  const float* __restrict x = a.data<float>();
  parallel_for(0, out.numel(), kGrain / 4, [&](int64_t b, int64_t e) {
    int64_t i = b;
    const __m256 one = _mm256_set1_ps(1.0f), zero = _mm256_setzero_ps();
    for (; i + 8 <= e; i += 8) {
      __m256 v = _mm256_loadu_ps(x + i);
      __m256 s = _mm256_div_ps(one, _mm256_add_ps(one, vexp8_of(_mm256_sub_ps(zero, v))));
      __m256 far = _mm256_cmp_ps(v, _mm256_set1_ps(-80.0f), _CMP_LT_OQ);
      if (__builtin_expect(_mm256_movemask_ps(far) != 0, 0)) {  // exp(-x) would clamp: e / (1 + e), e = exp(x)
        __m256 ex = vexp8_of(v);
        s = _mm256_blendv_ps(s, _mm256_div_ps(ex, _mm256_add_ps(one, ex)), far);
      }
      _mm256_storeu_ps(o + i, Silu ? _mm256_mul_ps(v, s) : s);
    }
    for (; i < e; ++i) o[i] = Silu ? x[i] * vsigmoid(x[i]) : vsigmoid(x[i]);
  });
  return true;
#else
  (void)out;
  (void)a;
  return false;
#endif
}

// sin / cos: the vectorised reduced form everywhere, then a (predictable, read-only unless it
// fires) pass that recomputes with libm where |x| >= the reduced form's limit (kTrigReduced for
// float, kTrigReduced64 for double) or x is not finite.
template <class T, bool Cos>
void run_trig(const Tensor& out, const Tensor& a) {
  constexpr T limit = std::is_same_v<T, float> ? T(kTrigReduced) : T(kTrigReduced64);
  if (out.is_contiguous() && a.is_contiguous() && a.shape() == out.shape()) {  // blocks checked in L1
    T* __restrict o = out.data<T>();
    const T* __restrict x = a.data<T>();
    parallel_for(0, out.numel(), kGrain / 4, [&](int64_t b, int64_t e) {
      for (int64_t i0 = b; i0 < e; i0 += 1024) {
        int64_t i1 = std::min(e, i0 + 1024);
        int outside = 0;
        for (int64_t i = i0; i < i1; ++i) {
          o[i] = Cos ? vcos_reduced(x[i]) : vsin_reduced(x[i]);
          outside |= !(std::fabs(x[i]) < limit);
        }
        if (outside)
          for (int64_t i = i0; i < i1; ++i)
            if (!(std::fabs(x[i]) < limit)) o[i] = Cos ? std::cos(x[i]) : std::sin(x[i]);
      }
    });
    return;
  }
  run_unary<T, T>(out, a, [](T x) { return Cos ? vcos_reduced(x) : vsin_reduced(x); });
  for_each<2>({&out, &a}, [&](char** p, const int64_t* s, int64_t m) {
    char *po = p[0], *pa = p[1];
    for (int64_t i = 0; i < m; ++i, po += s[0], pa += s[1]) {
      T x = *reinterpret_cast<const T*>(pa);
      if (!(std::fabs(x) < limit)) *reinterpret_cast<T*>(po) = Cos ? std::cos(x) : std::sin(x);
    }
  });
}

template <class T>
void unary_typed(UnaryOp op, const Tensor& out, const Tensor& a) {
  using B = bool;
  if constexpr (is_fp<T>) {
    switch (op) {
      case UnaryOp::Exp: return run_unary<T, T>(out, a, [](T x) { return vexp(x); });
      case UnaryOp::Exp2: return run_unary<T, T>(out, a, [](T x) { if constexpr (std::is_same_v<T, double>) return vexp2(x); else return std::exp2(x); });
      case UnaryOp::Expm1: return run_unary<T, T>(out, a, [](T x) { return vexpm1(x); });
      case UnaryOp::Log: return run_unary<T, T>(out, a, [](T x) { return vlog(x); });
      case UnaryOp::Log2: return run_unary<T, T>(out, a, [](T x) { if constexpr (std::is_same_v<T, double>) return vlog2(x); else return std::log2(x); });
      case UnaryOp::Log10: return run_unary<T, T>(out, a, [](T x) { if constexpr (std::is_same_v<T, double>) return vlog10(x); else return std::log10(x); });
      case UnaryOp::Log1p: return run_unary<T, T>(out, a, [](T x) { return vlog1p(x); });
      case UnaryOp::Sqrt: return run_unary<T, T>(out, a, [](T x) { return std::sqrt(x); });
      case UnaryOp::Rsqrt: return run_unary<T, T>(out, a, [](T x) { return T(1) / std::sqrt(x); });
      case UnaryOp::Sin: return run_trig<T, false>(out, a);
      case UnaryOp::Cos: return run_trig<T, true>(out, a);
      case UnaryOp::Tan: return run_unary<T, T>(out, a, [](T x) { return std::tan(x); });
      case UnaryOp::Asin: return run_unary<T, T>(out, a, [](T x) { return std::asin(x); });
      case UnaryOp::Acos: return run_unary<T, T>(out, a, [](T x) { return std::acos(x); });
      case UnaryOp::Atan: return run_unary<T, T>(out, a, [](T x) { return std::atan(x); });
      case UnaryOp::Sinh: return run_unary<T, T>(out, a, [](T x) { return std::sinh(x); });
      case UnaryOp::Cosh: return run_unary<T, T>(out, a, [](T x) { return std::cosh(x); });
      case UnaryOp::Tanh: return run_unary<T, T>(out, a, [](T x) { return vtanh(x); });
      case UnaryOp::Asinh: return run_unary<T, T>(out, a, [](T x) { return std::asinh(x); });
      case UnaryOp::Acosh: return run_unary<T, T>(out, a, [](T x) { return std::acosh(x); });
      case UnaryOp::Atanh: return run_unary<T, T>(out, a, [](T x) { return std::atanh(x); });
      case UnaryOp::Sigmoid:
        if constexpr (std::is_same_v<T, float>)
          if (run_sigmoid8<false>(out, a)) return;
        return run_unary<T, T>(out, a, [](T x) { return vsigmoid(x); });
      case UnaryOp::Gelu: return run_unary<T, T>(out, a, [](T x) { return gelu_erf(x); });
      case UnaryOp::GeluTanh: return run_unary<T, T>(out, a, [](T x) { return gelu_tanh(x); });
      case UnaryOp::Silu:
        if constexpr (std::is_same_v<T, float>)
          if (run_sigmoid8<true>(out, a)) return;
        return run_unary<T, T>(out, a, [](T x) { return x * vsigmoid(x); });
      case UnaryOp::Erf: return run_unary<T, T>(out, a, [](T x) { return verf(x); });
      case UnaryOp::Erfc: return run_unary<T, T>(out, a, [](T x) { return std::erfc(x); });
      case UnaryOp::Floor: return run_unary<T, T>(out, a, [](T x) { return std::floor(x); });
      case UnaryOp::Ceil: return run_unary<T, T>(out, a, [](T x) { return std::ceil(x); });
      case UnaryOp::Round: return run_unary<T, T>(out, a, [](T x) { return std::nearbyint(x); });
      case UnaryOp::Trunc: return run_unary<T, T>(out, a, [](T x) { return std::trunc(x); });
      case UnaryOp::Frac: return run_unary<T, T>(out, a, [](T x) { return x - std::trunc(x); });
      case UnaryOp::Reciprocal: return run_unary<T, T>(out, a, [](T x) { return T(1) / x; });
      case UnaryOp::IsNan: return run_unary<T, B>(out, a, [](T x) { return x != x; });
      case UnaryOp::IsInf: return run_unary<T, B>(out, a, [](T x) { return std::isinf(x); });
      case UnaryOp::IsFinite: return run_unary<T, B>(out, a, [](T x) { return std::isfinite(x); });
      case UnaryOp::Softplus: return run_unary<T, T>(out, a, [](T x) { return softplus(x); });
      case UnaryOp::Mish: return run_unary<T, T>(out, a, [](T x) { return x * vtanh(softplus(x)); });
      case UnaryOp::Logsigmoid:
        return run_unary<T, T>(out, a, [](T x) { return std::min(x, T(0)) - vlog1p(vexp(-std::abs(x))); });
      case UnaryOp::Hardsigmoid:
        return run_unary<T, T>(out, a, [](T x) { return std::min(std::max(x + T(3), T(0)), T(6)) / T(6); });
      case UnaryOp::Hardswish:
        return run_unary<T, T>(out, a, [](T x) { return x * std::min(std::max(x + T(3), T(0)), T(6)) / T(6); });
      default: break;
    }
  } else {
    switch (op) {
      case UnaryOp::IsNan:
      case UnaryOp::IsInf: return run_unary<T, B>(out, a, [](T) { return false; });
      case UnaryOp::IsFinite: return run_unary<T, B>(out, a, [](T) { return true; });
      case UnaryOp::Floor:
      case UnaryOp::Ceil:
      case UnaryOp::Round:
      case UnaryOp::Trunc: return run_unary<T, T>(out, a, [](T x) { return x; });
      case UnaryOp::BitNot:
        if constexpr (std::is_same_v<T, bool>) return run_unary<T, T>(out, a, [](T x) { return !x; });
        else return run_unary<T, T>(out, a, [](T x) { return T(~x); });
      default: break;
    }
  }
  switch (op) {
    case UnaryOp::Neg:
      if constexpr (!std::is_same_v<T, bool>) return run_unary<T, T>(out, a, [](T x) { return T(-x); });
      break;
    case UnaryOp::Abs:
      if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, uint8_t>) return run_unary<T, T>(out, a, [](T x) { return x; });
      else return run_unary<T, T>(out, a, [](T x) { return x < T(0) ? T(-x) : x; });
    case UnaryOp::Relu:
      if constexpr (is_fp<T>) return run_unary<T, T>(out, a, [](T x) { return x > T(0) ? x : (x != x ? x : T(0)); });
      else return run_unary<T, T>(out, a, [](T x) { return x > T(0) ? x : T(0); });
    case UnaryOp::Relu6: return run_unary<T, T>(out, a, [](T x) { return std::min(std::max(x, T(0)), T(6)); });
    case UnaryOp::Sign:
      return run_unary<T, T>(out, a, [](T x) { return T((T(0) < x) - (x < T(0))); });
    case UnaryOp::Square: return run_unary<T, T>(out, a, [](T x) { return T(x * x); });
    case UnaryOp::LogicalNot: return run_unary<T, B>(out, a, [](T x) { return x == T(0); });
    default: break;
  }
  throw TypeError(std::string("[") + unary_name(op) + "] not supported for dtype " + dtype_name(a.dtype()));
}

template <class F>
decltype(auto) visit_compute(DType d, F&& f) {
  switch (d) {
    case DType::Bool: return f(bool{});
    case DType::UInt8: return f(uint8_t{});
    case DType::Int32: return f(int32_t{});
    case DType::Int64: return f(int64_t{});
    case DType::Float32: return f(float{});
    case DType::Float64: return f(double{});
    default: throw TypeError(std::string("no CPU kernel for dtype ") + dtype_name(d));
  }
}

template <class To, class From>
inline To cast_value(From v) {
  if constexpr (std::is_same_v<To, bool>) {
    return static_cast<float>(v) != 0.0f;
  } else if constexpr (std::is_same_v<From, Half> || std::is_same_v<From, BFloat16>) {
    return static_cast<To>(static_cast<float>(v));
  } else if constexpr (std::is_same_v<To, Half> || std::is_same_v<To, BFloat16>) {
    return To(static_cast<float>(v));
  } else if constexpr (std::is_integral_v<To> && std::is_floating_point_v<From>) {
    // out-of-range float -> int is UB in C++; saturate (NaN -> 0... torch gives INT_MIN; use that)
    if (!(v == v)) return std::numeric_limits<To>::min();
    if (v >= static_cast<From>(std::numeric_limits<To>::max())) return std::numeric_limits<To>::max();
    if (v <= static_cast<From>(std::numeric_limits<To>::min())) return std::numeric_limits<To>::min();
    return static_cast<To>(v);
  } else {
    return static_cast<To>(v);
  }
}

}  // namespace

void binary(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b) {
  if (on_cuda(out)) return cuda_kernels().binary(op, out, a, b);  // NOTE [ Device dispatch ]
  visit_compute(a.dtype(), [&](auto tag) { binary_typed<decltype(tag)>(op, out, a, b); });
}

void unary(UnaryOp op, const Tensor& out, const Tensor& a) {
  if (on_cuda(out)) return cuda_kernels().unary(op, out, a);  // NOTE [ Device dispatch ]
  visit_compute(a.dtype(), [&](auto tag) { unary_typed<decltype(tag)>(op, out, a); });
}

void leaky_relu(const Tensor& out, const Tensor& a, double slope) {
  if (on_cuda(out)) return cuda_kernels().leaky_relu(out, a, slope);  // NOTE [ Device dispatch ]
  visit_compute(a.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (is_fp<T>) {
      T s = static_cast<T>(slope);
      run_unary<T, T>(out, a, [s](T x) { return x > T(0) ? x : x * s; });
    } else {
      throw TypeError("[leaky_relu] needs a floating point tensor");
    }
  });
}

void elu(const Tensor& out, const Tensor& a, double alpha) {
  if (on_cuda(out)) return cuda_kernels().elu(out, a, alpha);  // NOTE [ Device dispatch ]
  visit_compute(a.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (is_fp<T>) {
      T al = static_cast<T>(alpha);
      // computed unconditionally: with a branch around vexpm1 GCC leaves this loop scalar
      run_unary<T, T>(out, a, [al](T x) { T e = al * vexpm1(x); return x > T(0) ? x : e; });
    } else {
      throw TypeError("[elu] needs a floating point tensor");
    }
  });
}

void copy(const Tensor& dst, const Tensor& src) {
  if (dst.numel() == 0) return;
  if (on_cuda(dst) || on_cuda(src)) {  // NOTE [ Device dispatch ]; copy_ may cross devices
    if (dst.device() == src.device()) return cuda_kernels().copy(dst, src);
    Tensor s = to_device(contiguous(src), dst.device());  // contiguous on its own device first
    if (on_cuda(dst)) return cuda_kernels().copy(dst, s);
    return copy(dst, s);
  }
  visit_dtype(dst.dtype(), [&](auto dtag) {
    using D = decltype(dtag);
    visit_dtype(src.dtype(), [&](auto stag) {
      using S = decltype(stag);
      if constexpr (std::is_same_v<D, S>) {
        if (dst.is_contiguous() && src.is_contiguous()) {
          const char* s = static_cast<const char*>(src.raw());
          char* d = static_cast<char*>(dst.raw());
          int64_t nb = dst.numel() * static_cast<int64_t>(sizeof(D));
          parallel_for(0, nb, kGrain * 16, [&](int64_t b, int64_t e) { std::memcpy(d + b, s + b, e - b); });
          return;
        }
      }
      for_each<2>({&dst, &src}, [](char** p, const int64_t* s, int64_t n) {
        if (s[0] == sizeof(D) && s[1] == sizeof(S)) {
          D* __restrict o = reinterpret_cast<D*>(p[0]);
          const S* __restrict x = reinterpret_cast<const S*>(p[1]);
          for (int64_t i = 0; i < n; ++i) o[i] = cast_value<D>(x[i]);
        } else {
          char *po = p[0], *ps = p[1];
          for (int64_t i = 0; i < n; ++i, po += s[0], ps += s[1])
            *reinterpret_cast<D*>(po) = cast_value<D>(*reinterpret_cast<const S*>(ps));
        }
      });
    });
  });
}

void fill(const Tensor& dst, Scalar v) {
  if (on_cuda(dst)) return cuda_kernels().fill(dst, v);  // NOTE [ Device dispatch ]
  visit_dtype(dst.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T val = v.kind == Scalar::Float ? cast_value<T>(v.d) : cast_value<T>(v.i);
    for_each<1>({&dst}, [val](char** p, const int64_t* s, int64_t n) {
      if (s[0] == sizeof(T)) {
        T* o = reinterpret_cast<T*>(p[0]);
        for (int64_t i = 0; i < n; ++i) o[i] = val;
      } else {
        char* po = p[0];
        for (int64_t i = 0; i < n; ++i, po += s[0]) *reinterpret_cast<T*>(po) = val;
      }
    });
  });
}

namespace {
// c ? a : b with bit masks: no branch (a random mask mispredicts one every other element) and the
// loop vectorises.
template <class T>
inline T select_bits(bool c, T a, T b) {
  using U = std::conditional_t<sizeof(T) == 8, uint64_t,
                               std::conditional_t<sizeof(T) == 4, uint32_t,
                                                  std::conditional_t<sizeof(T) == 2, uint16_t, uint8_t>>>;
  U ua, ub;
  std::memcpy(&ua, &a, sizeof(T));
  std::memcpy(&ub, &b, sizeof(T));
  U m = static_cast<U>(U(0) - static_cast<U>(c));
  U r = static_cast<U>((ua & m) | (ub & static_cast<U>(~m)));
  T out;
  std::memcpy(&out, &r, sizeof(T));
  return out;
}
}  // namespace

void where(const Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b) {
  if (on_cuda(out)) return cuda_kernels().where(out, cond, a, b);  // NOTE [ Device dispatch ]
  visit_dtype(out.dtype(), [&](auto tag) {
    using T = decltype(tag);
    for_each<4>({&out, &cond, &a, &b}, [](char** p, const int64_t* s, int64_t n) {
      char *po = p[0], *pc = p[1], *pa = p[2], *pb = p[3];
      if (s[0] == sizeof(T) && s[1] == 1 && s[2] == sizeof(T) && s[3] == sizeof(T)) {
        T* __restrict o = reinterpret_cast<T*>(po);
        const bool* __restrict c = reinterpret_cast<const bool*>(pc);
        const T* __restrict x = reinterpret_cast<const T*>(pa);
        const T* __restrict y = reinterpret_cast<const T*>(pb);
        // both loads unconditional: a branch-free select (a random mask mispredicts a branch)
        for (int64_t i = 0; i < n; ++i) o[i] = select_bits<T>(c[i], x[i], y[i]);
        return;
      }
      // one side a broadcast scalar (masking a gradient: where(mask, g, 0)): keep it vectorisable
      if (s[0] == sizeof(T) && s[1] == 1 && (s[2] == 0 || s[2] == sizeof(T)) && (s[3] == 0 || s[3] == sizeof(T))) {
        T* __restrict o = reinterpret_cast<T*>(po);
        const bool* __restrict c = reinterpret_cast<const bool*>(pc);
        const T* __restrict x = reinterpret_cast<const T*>(pa);
        const T* __restrict y = reinterpret_cast<const T*>(pb);
        if (s[2] == 0 && s[3] == 0) {
          T xv = x[0], yv = y[0];
          for (int64_t i = 0; i < n; ++i) o[i] = select_bits<T>(c[i], xv, yv);
        } else if (s[3] == 0) {
          T yv = y[0];
          for (int64_t i = 0; i < n; ++i) o[i] = select_bits<T>(c[i], x[i], yv);
        } else {
          T xv = x[0];
          for (int64_t i = 0; i < n; ++i) o[i] = select_bits<T>(c[i], xv, y[i]);
        }
        return;
      }
      for (int64_t i = 0; i < n; ++i, po += s[0], pc += s[1], pa += s[2], pb += s[3])
        *reinterpret_cast<T*>(po) = *reinterpret_cast<const bool*>(pc) ? *reinterpret_cast<const T*>(pa)
                                                                       : *reinterpret_cast<const T*>(pb);
    });
  });
}

void clamp(const Tensor& out, const Tensor& a, std::optional<double> lo, std::optional<double> hi) {
  if (on_cuda(out)) return cuda_kernels().clamp(out, a, lo, hi);  // NOTE [ Device dispatch ]
  visit_compute(a.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, bool>) {
      throw TypeError("[clamp] not supported for bool tensors");
    } else {
      T l = lo ? cast_value<T>(*lo) : std::numeric_limits<T>::lowest();
      T h = hi ? cast_value<T>(*hi) : std::numeric_limits<T>::max();
      bool hl = lo.has_value(), hh = hi.has_value();
      if (is_fp<T> && ((hl && *lo != *lo) || (hh && *hi != *hi))) {
        T nanv = std::numeric_limits<T>::quiet_NaN();
        run_unary<T, T>(out, a, [nanv](T) { return nanv; });
        return;
      }
      if (hl && hh) {
        run_unary<T, T>(out, a, [l, h](T x) { return x != x ? x : std::min(std::max(x, l), h); });
      } else if (hl) {
        run_unary<T, T>(out, a, [l](T x) { return x != x ? x : std::max(x, l); });
      } else {
        run_unary<T, T>(out, a, [h](T x) { return x != x ? x : std::min(x, h); });
      }
    }
  });
}

bool any_zero(const Tensor& a) {
  if (on_cuda(a)) return cuda_kernels().any_zero(a);  // NOTE [ Device dispatch ]
  bool found = false;
  visit_compute(a.dtype(), [&](auto tag) {
    using T = decltype(tag);
    for_each<1>({&a}, [&](char** p, const int64_t* s, int64_t n) {
      char* q = p[0];
      for (int64_t i = 0; i < n; ++i, q += s[0])
        if (*reinterpret_cast<const T*>(q) == T(0)) found = true;
    }, std::numeric_limits<int64_t>::max());
  });
  return found;
}

bool any_nonfinite(const Tensor& a) {
  if (on_cuda(a)) return cuda_kernels().any_nonfinite(a);  // NOTE [ Device dispatch ]
  bool found = false;
  visit_compute(a.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (is_fp<T>) {
      for_each<1>({&a}, [&](char** p, const int64_t* s, int64_t n) {
        char* q = p[0];
        for (int64_t i = 0; i < n; ++i, q += s[0])
          if (!std::isfinite(*reinterpret_cast<const T*>(q))) found = true;
      }, std::numeric_limits<int64_t>::max());
    }
  });
  return found;
}

}  // namespace tt::cpu
