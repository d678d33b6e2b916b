// Elementwise CPU kernels: binary, unary, copy/cast, fill, where, clamp.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "binary_span.h"
#include "cast.h"
#include "copy.h"
#include "half_run.h"
#include "kernels.h"
#include "loops.h"
#include "unary_span.h"
#include "unary_wide.h"
#include "vmath.h"

namespace tt::cpu {
namespace {

template <class T>
constexpr bool is_fp = std::is_floating_point_v<T>;

// ---- binary functors ----
// integer forms; the float ones are floordiv_span / remainder_span in binary_span.h. The callers
// refuse a zero divisor; a divisor of -1 is answered without dividing, since MIN / -1 traps
// (SIGFPE) on x86: the quotient wraps to MIN and the remainder is 0, as torch gives.
template <class T>
T negate_wrapping(T a) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(U(0) - static_cast<U>(a));
}
template <class T>
T floordiv(T a, T b) {
  if constexpr (std::is_same_v<T, bool>) {
    return a;
  } else {
    if (std::is_signed_v<T> && b == T(-1)) return negate_wrapping(a);
    T q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
    return q;
  }
}
template <class T>
T remainder(T a, T b) {
  if constexpr (std::is_same_v<T, bool>) {
    return false;
  } else {
    if (std::is_signed_v<T> && b == T(-1)) return T(0);
    T r = a % b;
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
  }
}
template <class T>
T truncmod(T a, T b) {  // fmod of integers
  if (std::is_signed_v<T> && b == T(-1)) return T(0);
  return T(a % b);
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

// ---- float binary ops with no one-instruction form (pow, fmod, atan2, ...) ----
// Operands are fed to the span kernels of binary_span.h in runs of kBinaryRun elements: contiguous
// ones straight from memory, broadcast scalars and strided ones copied into a local run first. The
// kernel writes straight into a contiguous output run that shares no memory with its input runs,
// else into a local run copied out after (in-place calls: every input is read before the run's
// results land). The AVX-512 copy of the kernels runs where the CPU has it.
template <class T>
bool apart(const T* o, const T* x, int64_t k) {
  auto ao = reinterpret_cast<uintptr_t>(o), ax = reinterpret_cast<uintptr_t>(x);
  uintptr_t len = static_cast<uintptr_t>(k) * sizeof(T);
  return ao + len <= ax || ax + len <= ao;
}

template <class T>
void run_binary_span(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b) {
  const bool wide = wide_unary_enabled();
  for_each<3>({&out, &a, &b}, [&](char** p, const int64_t* s, int64_t m) {
    alignas(64) T xa[kBinaryRun], xb[kBinaryRun], res[kBinaryRun];
    if (s[1] == 0) std::fill(xa, xa + kBinaryRun, *reinterpret_cast<const T*>(p[1]));
    if (s[2] == 0) std::fill(xb, xb + kBinaryRun, *reinterpret_cast<const T*>(p[2]));
    auto operand = [](char* base, int64_t st, int64_t i0, int64_t k, T* buf) -> const T* {
      if (st == static_cast<int64_t>(sizeof(T))) return reinterpret_cast<const T*>(base) + i0;
      if (st != 0)
        for (int64_t j = 0; j < k; ++j) buf[j] = *reinterpret_cast<const T*>(base + (i0 + j) * st);
      return buf;
    };
    for (int64_t i0 = 0; i0 < m; i0 += kBinaryRun) {
      int64_t k = std::min(kBinaryRun, m - i0);
      const T* x = operand(p[1], s[1], i0, k, xa);
      const T* y = operand(p[2], s[2], i0, k, xb);
      T* o = reinterpret_cast<T*>(p[0]) + i0;
      // a contiguous output run apart from both input runs takes the results directly
      bool direct = s[0] == static_cast<int64_t>(sizeof(T)) && apart(o, x, k) && apart(o, y, k);
      T* dst = direct ? o : res;
      if (wide) binary_span_wide(op, dst, x, y, k);
      else binary_span<T>(op, dst, x, y, k);
      if (direct) continue;
      if (s[0] == static_cast<int64_t>(sizeof(T))) {
        std::memcpy(o, res, static_cast<size_t>(k) * sizeof(T));
      } else {
        for (int64_t j = 0; j < k; ++j) *reinterpret_cast<T*>(p[0] + (i0 + j) * s[0]) = res[j];
      }
    }
  }, kGrain / 4);
}

// The value of an operand that is one element broadcast (every stride 0), as a Python-number
// exponent arrives.
template <class T>
bool broadcast_value(const Tensor& t, T& v) {
  if (t.numel() == 0) return false;
  for (size_t d = 0; d < t.shape().size(); ++d)
    if (t.shape()[d] != 1 && t.strides()[d] != 0) return false;
  v = *t.data<T>();
  return true;
}

template <class T>
void run_unary_span(UnaryOp op, const Tensor& out, const Tensor& a);

// x ** c for a broadcast constant c: torch's special forms (2, 3, -2 as products, 0.5, -0.5, -1
// as sqrt / reciprocal, 1 as a copy), so the results match it bit for bit. False: no special form.
template <class T>
bool pow_by_constant(const Tensor& out, const Tensor& a, const Tensor& b) {
  T c;
  if (!broadcast_value(b, c)) return false;
  if constexpr (is_fp<T>) {
    if (a.shape() == out.shape()) {  // the unary span kernels (wider lanes, no broadcast operand)
      if (c == T(2)) return run_unary_span<T>(UnaryOp::Square, out, a), true;
      if (c == T(0.5)) return run_unary_span<T>(UnaryOp::Sqrt, out, a), true;
      if (c == T(-0.5)) return run_unary_span<T>(UnaryOp::Rsqrt, out, a), true;
      if (c == T(-1)) return run_unary_span<T>(UnaryOp::Reciprocal, out, a), true;
    }
    if (c == T(2)) return run_binary<T, T>(out, a, b, [](T x, T) { return x * x; }), true;
    if (c == T(3)) return run_binary<T, T>(out, a, b, [](T x, T) { return x * x * x; }), true;
    if (c == T(-2)) return run_binary<T, T>(out, a, b, [](T x, T) { return T(1) / (x * x); }), true;
    if (c == T(0.5)) return run_binary<T, T>(out, a, b, [](T x, T) { return std::sqrt(x); }), true;
    if (c == T(-0.5)) return run_binary<T, T>(out, a, b, [](T x, T) { return T(1) / std::sqrt(x); }), true;
    if (c == T(-1)) return run_binary<T, T>(out, a, b, [](T x, T) { return T(1) / x; }), true;
    if (c == T(1)) return run_binary<T, T>(out, a, b, [](T x, T) { return x; }), true;
  } else if constexpr (std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t>) {
    // wrapping products, as ipow's loop gives
    using U = std::make_unsigned_t<T>;
    if (c == 2) return run_binary<T, T>(out, a, b, [](T x, T) { return static_cast<T>(U(x) * U(x)); }), true;
    if (c == 3) return run_binary<T, T>(out, a, b, [](T x, T) { return static_cast<T>(U(x) * U(x) * U(x)); }), true;
  }
  return false;
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
    case BinaryOp::FloorDiv:
      if constexpr (is_fp<T>) return run_binary_span<T>(op, out, a, b);
      else return run_binary<T, T>(out, a, b, [](T x, T y) { return floordiv(x, y); });
    case BinaryOp::Remainder:
      if constexpr (is_fp<T>) return run_binary_span<T>(op, out, a, b);
      else return run_binary<T, T>(out, a, b, [](T x, T y) { return remainder(x, y); });
    case BinaryOp::Pow:
      if (pow_by_constant<T>(out, a, b)) return;
      if constexpr (is_fp<T>) return run_binary_span<T>(op, out, a, b);
      else return run_binary<T, T>(out, a, b, [](T x, T y) { return ipow(x, y); });
    case BinaryOp::Maximum:
      if constexpr (is_fp<T>) return run_binary<T, T>(out, a, b, [](T x, T y) { return (x != x || x > y) ? x : y; });
      else return run_binary<T, T>(out, a, b, [](T x, T y) { return x > y ? x : y; });
    case BinaryOp::Minimum:
      if constexpr (is_fp<T>) return run_binary<T, T>(out, a, b, [](T x, T y) { return (x != x || x < y) ? x : y; });
      else return run_binary<T, T>(out, a, b, [](T x, T y) { return x < y ? x : y; });
    case BinaryOp::Fmax:  // NaN loses: y when x is NaN, x when y is
      return run_binary<T, T>(out, a, b, [](T x, T y) { return (x > y || y != y) ? x : y; });
    case BinaryOp::Fmin:
      return run_binary<T, T>(out, a, b, [](T x, T y) { return (x < y || y != y) ? x : y; });
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
      if constexpr (is_fp<T>) return run_binary_span<T>(op, out, a, b);
      else break;
    case BinaryOp::Fmod:
      if constexpr (is_fp<T>) return run_binary_span<T>(op, out, a, b);
      else if constexpr (!std::is_same_v<T, bool>) return run_binary<T, T>(out, a, b, [](T x, T y) { return truncmod(x, y); });
      else break;
    case BinaryOp::Hypot:
      if constexpr (is_fp<T>) return run_binary_span<T>(op, out, a, b);
      else break;
    case BinaryOp::Copysign:
      if constexpr (is_fp<T>) return run_binary<T, T>(out, a, b, [](T x, T y) { return std::copysign(x, y); });
      else break;
    case BinaryOp::Zeta:  // NOTE [ Special functions ]
      if constexpr (is_fp<T>) return run_binary<T, T>(out, a, b, [](T x, T y) { return static_cast<T>(special::zeta(x, y)); });
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
      F g = f;  // a local copy: a captured parameter (elu's alpha) read through the closure may alias o
      for (int64_t i = b; i < e; ++i) o[i] = g(x[i]);
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

// Floating-point math ops: contiguous runs go straight to the span kernels (AVX-512 copies where
// the CPU has them); strided operands are gathered into short runs so every layout takes the same
// kernels and the same results.
template <class T>
void run_span(UnaryOp op, T* o, const T* x, int64_t n) {
  if (wide_unary_enabled()) unary_span_wide(op, o, x, n);
  else unary_span<T>(op, o, x, n);
}

// span(o, x, n) over every element of out = f(a): contiguous runs directly, strided operands
// gathered into short runs, so every layout takes the same kernel and gives the same result.
template <class T, class Span>
void run_spans(const Tensor& out, const Tensor& a, int64_t grain, Span&& span) {
  if (out.is_contiguous() && a.is_contiguous() && a.shape() == out.shape()) {
    T* o = out.data<T>();
    const T* x = a.data<T>();
    parallel_for(0, out.numel(), grain, [&](int64_t b, int64_t e) { span(o + b, x + b, e - b); });
    return;
  }
  for_each<2>({&out, &a}, [&](char** p, const int64_t* s, int64_t m) {
    if (s[0] == sizeof(T) && s[1] == sizeof(T))
      return span(reinterpret_cast<T*>(p[0]), reinterpret_cast<const T*>(p[1]), m);
    constexpr int64_t kRun = 256;
    T in[kRun], res[kRun];
    for (int64_t i0 = 0; i0 < m; i0 += kRun) {
      int64_t k = std::min(kRun, m - i0);
      for (int64_t j = 0; j < k; ++j) in[j] = *reinterpret_cast<const T*>(p[1] + (i0 + j) * s[1]);
      span(res, in, k);
      for (int64_t j = 0; j < k; ++j) *reinterpret_cast<T*>(p[0] + (i0 + j) * s[0]) = res[j];
    }
  }, grain);
}

template <class T>
void run_unary_span(UnaryOp op, const Tensor& out, const Tensor& a) {
  run_spans<T>(out, a, unary_is_cheap(op) ? kGrain : kGrain / 4,
               [op](T* o, const T* x, int64_t n) { run_span<T>(op, o, x, n); });
}

template <class T>
void run_param_span(ParamUnaryOp op, const Tensor& out, const Tensor& a, double param) {
  T p = static_cast<T>(param);
  run_spans<T>(out, a, op == ParamUnaryOp::LeakyRelu ? kGrain : kGrain / 4, [op, p](T* o, const T* x, int64_t n) {
    if (wide_unary_enabled()) param_unary_span_wide(op, o, x, n, p);
    else param_unary_span<T>(op, o, x, n, p);
  });
}

template <class T>
void unary_typed(UnaryOp op, const Tensor& out, const Tensor& a) {
  using B = bool;
  if constexpr (is_fp<T>) {
    if (has_unary_span<T>(op)) return run_unary_span<T>(op, out, a);
    switch (op) {
      case UnaryOp::IsNan: return run_unary<T, B>(out, a, [](T x) { return x != x; });
      case UnaryOp::IsInf: return run_unary<T, B>(out, a, [](T x) { return std::isinf(x); });
      case UnaryOp::IsFinite: return run_unary<T, B>(out, a, [](T x) { return std::isfinite(x); });
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

// ---- float16 / bfloat16 ----
// NOTE [ Half elementwise kernels ]: a half op is its float32 op with the result rounded once. Same-layout operands (contiguous, or a
// broadcast single value) are widened kHalfRun elements at a time into float32 runs on the stack,
// the float32 span runs on them and its results are rounded into the output: one pass, no
// temporary tensors. Other layouts, and the ops that have no span form here (pow's constant
// exponents, isnan...), widen whole operands into float32 tensors and call the float32 kernel --
// the same conversions, so the same bits either way.
constexpr int64_t kHalfRun = 1024;  // a run per call of the span kernels: 12 KiB of stack, L1-resident

// A half-layout operand: the element pointer of a contiguous run, or one broadcast value read as
// float (a half value, or the float32 of a Python number kept at float32 precision).
struct HalfOperand {
  const void* data = nullptr;
  float value = 0.0f;
  bool broadcast = false;
};

bool all_broadcast(const Tensor& t) {
  for (size_t d = 0; d < t.shape().size(); ++d)
    if (t.shape()[d] != 1 && t.strides()[d] != 0) return false;
  return true;
}

template <class H>
bool half_operand(const Tensor& t, const Tensor& out, HalfOperand& r) {
  if (t.numel() == 0) return false;
  if (t.dtype() == DType::Float32 || all_broadcast(t)) {
    if (!all_broadcast(t)) return false;
    r.broadcast = true;
    r.value = t.dtype() == DType::Float32 ? *t.data<float>() : static_cast<float>(*t.data<H>());
    return true;
  }
  if (!t.is_contiguous() || t.shape() != out.shape()) return false;
  r.data = t.data<H>();
  return true;
}

// o[i] = op(x[i], y[i]) in float32 for the ops the chunked half path takes; false: not taken.
bool half_binary_span(BinaryOp op, float* __restrict o, const float* __restrict x, const float* __restrict y,
                      int64_t n) {
  switch (op) {
    case BinaryOp::Add: for (int64_t i = 0; i < n; ++i) o[i] = x[i] + y[i]; return true;
    case BinaryOp::Sub: for (int64_t i = 0; i < n; ++i) o[i] = x[i] - y[i]; return true;
    case BinaryOp::Mul: for (int64_t i = 0; i < n; ++i) o[i] = x[i] * y[i]; return true;
    case BinaryOp::Div: for (int64_t i = 0; i < n; ++i) o[i] = x[i] / y[i]; return true;
    // the functors of binary_typed<float>
    case BinaryOp::Maximum:
      for (int64_t i = 0; i < n; ++i) o[i] = (x[i] != x[i] || x[i] > y[i]) ? x[i] : y[i];
      return true;
    case BinaryOp::Minimum:
      for (int64_t i = 0; i < n; ++i) o[i] = (x[i] != x[i] || x[i] < y[i]) ? x[i] : y[i];
      return true;
    case BinaryOp::Fmax: for (int64_t i = 0; i < n; ++i) o[i] = (x[i] > y[i] || y[i] != y[i]) ? x[i] : y[i]; return true;
    case BinaryOp::Fmin: for (int64_t i = 0; i < n; ++i) o[i] = (x[i] < y[i] || y[i] != y[i]) ? x[i] : y[i]; return true;
    case BinaryOp::Copysign: for (int64_t i = 0; i < n; ++i) o[i] = std::copysign(x[i], y[i]); return true;
    case BinaryOp::Atan2: case BinaryOp::Hypot: case BinaryOp::Fmod: case BinaryOp::Remainder: case BinaryOp::FloorDiv:
      for (int64_t i = 0; i < n; i += kBinaryRun) {  // binary_span takes at most kBinaryRun
        int64_t k = std::min(kBinaryRun, n - i);
        if (wide_unary_enabled()) binary_span_wide(op, o + i, x + i, y + i, k);
        else binary_span<float>(op, o + i, x + i, y + i, k);
      }
      return true;
    default: return false;
  }
}

bool half_compare_span(BinaryOp op, bool* __restrict o, const float* __restrict x, const float* __restrict y,
                       int64_t n) {
  switch (op) {
    case BinaryOp::Eq: for (int64_t i = 0; i < n; ++i) o[i] = x[i] == y[i]; return true;
    case BinaryOp::Ne: for (int64_t i = 0; i < n; ++i) o[i] = x[i] != y[i]; return true;
    case BinaryOp::Lt: for (int64_t i = 0; i < n; ++i) o[i] = x[i] < y[i]; return true;
    case BinaryOp::Le: for (int64_t i = 0; i < n; ++i) o[i] = x[i] <= y[i]; return true;
    case BinaryOp::Gt: for (int64_t i = 0; i < n; ++i) o[i] = x[i] > y[i]; return true;
    case BinaryOp::Ge: for (int64_t i = 0; i < n; ++i) o[i] = x[i] >= y[i]; return true;
    default: return false;
  }
}

// The ops half_binary_span and half_compare_span take.
bool half_binary_chunked(BinaryOp op) {
  switch (op) {
    case BinaryOp::Add: case BinaryOp::Sub: case BinaryOp::Mul: case BinaryOp::Div: case BinaryOp::Maximum:
    case BinaryOp::Minimum: case BinaryOp::Fmax: case BinaryOp::Fmin: case BinaryOp::Copysign: case BinaryOp::Atan2:
    case BinaryOp::Hypot: case BinaryOp::Fmod: case BinaryOp::Remainder: case BinaryOp::FloorDiv: case BinaryOp::Eq:
    case BinaryOp::Ne: case BinaryOp::Lt: case BinaryOp::Le: case BinaryOp::Gt: case BinaryOp::Ge:
      return true;
    default:
      return false;
  }
}

// half_run.h's conversions, in AVX-512 lanes where the CPU has them (the same bits)
template <class H>
void widen(const H* x, float* o, int64_t n, bool wide) {
  if (!wide) return widen_run(x, o, n);
  if constexpr (std::is_same_v<H, BFloat16>) widen_bf16_wide(reinterpret_cast<const uint16_t*>(x), o, n);
  else widen_f16_wide(reinterpret_cast<const uint16_t*>(x), o, n);
}
template <class H>
void narrow(const float* x, H* o, int64_t n, bool wide) {
  if (!wide) return narrow_run(x, o, n);
  if constexpr (std::is_same_v<H, BFloat16>) narrow_bf16_wide(x, reinterpret_cast<uint16_t*>(o), n);
  else narrow_f16_wide(x, reinterpret_cast<uint16_t*>(o), n);
}

// The operand widened into `run` (k elements from i), or its broadcast run.
template <class H>
const float* widened(const HalfOperand& v, int64_t i, int64_t k, float* run, bool wide) {
  if (v.broadcast) return run;
  widen(static_cast<const H*>(v.data) + i, run, k, wide);
  return run;
}

template <class H>
bool half_binary_runs(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b) {
  HalfOperand x, y;
  if (!out.is_contiguous() || !half_binary_chunked(op) || !half_operand<H>(a, out, x) || !half_operand<H>(b, out, y))
    return false;
  const bool compare = out.dtype() == DType::Bool;
  const bool cheap = op <= BinaryOp::Div || compare || op == BinaryOp::Maximum || op == BinaryOp::Minimum;
  char* o = static_cast<char*>(out.raw());
  const bool wide = wide_unary_enabled();
  parallel_for(0, out.numel(), cheap ? kGrain : kGrain / 4, [&](int64_t lo, int64_t hi) {
    alignas(64) float xa[kHalfRun], xb[kHalfRun], res[kHalfRun];
    if (x.broadcast) std::fill(xa, xa + kHalfRun, x.value);
    if (y.broadcast) std::fill(xb, xb + kHalfRun, y.value);
    for (int64_t i = lo; i < hi; i += kHalfRun) {
      int64_t k = std::min(kHalfRun, hi - i);
      const float* xs = widened<H>(x, i, k, xa, wide);
      const float* ys = widened<H>(y, i, k, xb, wide);
      if (compare) {
        half_compare_span(op, reinterpret_cast<bool*>(o) + i, xs, ys, k);
      } else {
        half_binary_span(op, res, xs, ys, k);
        narrow(res, reinterpret_cast<H*>(o) + i, k, wide);
      }
    }
  });
  return true;
}

// o[i] = op(x[i]) in float32 for the ops the chunked half path takes; false: not taken.
bool half_unary_span(UnaryOp op, float* __restrict o, const float* __restrict x, int64_t n) {
  if (has_unary_span<float>(op)) return run_span<float>(op, o, x, n), true;
  switch (op) {  // the functors of unary_typed<float>
    case UnaryOp::Neg: for (int64_t i = 0; i < n; ++i) o[i] = -x[i]; return true;
    case UnaryOp::Abs: for (int64_t i = 0; i < n; ++i) o[i] = x[i] < 0.0f ? -x[i] : x[i]; return true;
    case UnaryOp::Relu:
      for (int64_t i = 0; i < n; ++i) o[i] = x[i] > 0.0f ? x[i] : (x[i] != x[i] ? x[i] : 0.0f);
      return true;
    case UnaryOp::Relu6: for (int64_t i = 0; i < n; ++i) o[i] = std::min(std::max(x[i], 0.0f), 6.0f); return true;
    case UnaryOp::Sign: for (int64_t i = 0; i < n; ++i) o[i] = static_cast<float>((0.0f < x[i]) - (x[i] < 0.0f)); return true;
    case UnaryOp::Square: for (int64_t i = 0; i < n; ++i) o[i] = x[i] * x[i]; return true;
    default: return false;
  }
}

// The ops half_unary_span takes.
bool half_unary_chunked(UnaryOp op) {
  if (has_unary_span<float>(op)) return true;
  switch (op) {
    case UnaryOp::Neg: case UnaryOp::Abs: case UnaryOp::Relu: case UnaryOp::Relu6: case UnaryOp::Sign:
    case UnaryOp::Square:
      return true;
    default:
      return false;
  }
}

template <class H>
bool half_unary_runs(UnaryOp op, const Tensor& out, const Tensor& a) {
  if (out.dtype() != a.dtype() || !out.is_contiguous() || !a.is_contiguous() || a.shape() != out.shape() ||
      !half_unary_chunked(op))
    return false;
  H* o = out.data<H>();
  const H* x = a.data<H>();
  const bool wide = wide_unary_enabled();
  parallel_for(0, out.numel(), unary_is_cheap(op) ? kGrain : kGrain / 4, [&](int64_t lo, int64_t hi) {
    alignas(64) float xa[kHalfRun], res[kHalfRun];
    for (int64_t i = lo; i < hi; i += kHalfRun) {
      int64_t k = std::min(kHalfRun, hi - i);
      widen(x + i, xa, k, wide);
      half_unary_span(op, res, xa, k);
      narrow(res, o + i, k, wide);
    }
  });
  return true;
}

// A half (or float32) operand as a float32 tensor of its shape: a broadcast operand is widened
// once, at its unexpanded size, and expanded again.
Tensor widened_tensor(const Tensor& t) {
  if (t.dtype() == DType::Float32) return t;
  Shape compact = t.shape();
  Strides st = t.strides();
  for (size_t d = 0; d < compact.size(); ++d)
    if (st[d] == 0) compact[d] = 1;
  Tensor w = empty(compact, DType::Float32);
  copy_host(w, make_view(t, compact, st, t.offset()));
  Strides ws = w.strides();
  for (size_t d = 0; d < compact.size(); ++d)
    if (compact[d] != t.shape()[d]) ws[d] = 0;
  return make_view(w, t.shape(), ws, w.offset());
}

// The float32 kernel on widened operands; a half result rounded into out.
template <class Kernel>
void half_via_float(const Tensor& out, Kernel kernel) {
  if (!is_half(out.dtype())) return kernel(out);
  Tensor r = empty(out.shape(), DType::Float32);
  kernel(r);
  copy_host(out, r);
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

}  // namespace

void binary(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b) {
  // every path reaches this (eager, in-place, a compiled or loaded graph's node): an integer
  // division by zero raises here instead of trapping (SIGFPE); an empty result divides nothing
  if ((op == BinaryOp::FloorDiv || op == BinaryOp::Remainder || op == BinaryOp::Fmod) && !is_floating(b.dtype()) &&
      b.dtype() != DType::Bool && out.numel() > 0 && any_zero(b))
    throw ValueError(std::string("[") + binary_name(op) + "] integer division by zero");
  if (on_cuda(out)) return cuda_kernels().binary(op, out, a, b);  // NOTE [ Device dispatch ]
  if (is_half(a.dtype())) {  // NOTE [ Half elementwise kernels ]; b: the same half type, or a float32 scalar
    if (out.numel() == 0) return;
    bool done = a.dtype() == DType::Float16 ? half_binary_runs<Half>(op, out, a, b) : half_binary_runs<BFloat16>(op, out, a, b);
    if (!done) {
      Tensor fa = widened_tensor(a), fb = widened_tensor(b);
      half_via_float(out, [&](const Tensor& o) { binary_typed<float>(op, o, fa, fb); });
    }
    return;
  }
  visit_compute(a.dtype(), [&](auto tag) { binary_typed<decltype(tag)>(op, out, a, b); });
}

void unary(UnaryOp op, const Tensor& out, const Tensor& a) {
  if (on_cuda(out)) return cuda_kernels().unary(op, out, a);  // NOTE [ Device dispatch ]
  if (is_half(a.dtype())) {  // NOTE [ Half elementwise kernels ]
    if (out.numel() == 0) return;
    bool done = a.dtype() == DType::Float16 ? half_unary_runs<Half>(op, out, a) : half_unary_runs<BFloat16>(op, out, a);
    if (!done) {
      Tensor fa = widened_tensor(a);
      half_via_float(out, [&](const Tensor& o) { unary_typed<float>(op, o, fa); });
    }
    return;
  }
  visit_compute(a.dtype(), [&](auto tag) { unary_typed<decltype(tag)>(op, out, a); });
}

void leaky_relu(const Tensor& out, const Tensor& a, double slope) {
  if (on_cuda(out)) return cuda_kernels().leaky_relu(out, a, slope);  // NOTE [ Device dispatch ]
  visit_compute(a.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (is_fp<T>) {
      run_param_span<T>(ParamUnaryOp::LeakyRelu, out, a, slope);
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
      run_param_span<T>(ParamUnaryOp::Elu, out, a, alpha);
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
  copy_host(dst, src);
}

namespace {
// torch's checked conversion of a fill value (c10::checked_convert): an integer type takes the
// value only if it is in range (an unsigned one also wraps a negative value down to -max, as torch
// does: full(-1, uint8) is 255), never a NaN; a float type takes any finite value in its range,
// inf and NaN; bool takes anything.
bool fill_value_fits(Scalar v, DType d) {
  auto in_range = [&](double lo, double hi) {
    double x = v.kind == Scalar::Float ? v.d : static_cast<double>(v.i);
    return x == x && x >= lo && x <= hi;
  };
  switch (d) {
    case DType::UInt8: return in_range(-255.0, 255.0);
    case DType::Int32: return in_range(-2147483648.0, 2147483647.0);
    case DType::Int64: return v.kind != Scalar::Float || (v.d == v.d && v.d >= -9223372036854775808.0 && v.d < 9223372036854775808.0);
    case DType::Float32:
      return v.kind != Scalar::Float || !std::isfinite(v.d) || std::fabs(v.d) <= std::numeric_limits<float>::max();
    case DType::Float16: return v.kind != Scalar::Float || !std::isfinite(v.d) || std::fabs(v.d) <= 65504.0;
    case DType::BFloat16: return v.kind != Scalar::Float || !std::isfinite(v.d) || std::fabs(v.d) <= 3.3895313892515355e38;
    default: return true;
  }
}
}  // namespace

void fill(const Tensor& dst, Scalar v) {
  // (torch fills a one-element half tensor without the check: an overflow becomes inf there)
  bool half_one = (dst.dtype() == DType::Float16 || dst.dtype() == DType::BFloat16) && dst.numel() == 1;
  if (!half_one && !fill_value_fits(v, dst.dtype()))
    throw ValueError(std::string("value cannot be converted to type ") + dtype_name(dst.dtype()) + " without overflow");
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
  std::memcpy(static_cast<void*>(&out), &r, sizeof(T));  // Half / BFloat16 have constructors, but plain bits
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

namespace {
// out = f(a) for clamp: the functor is copied into a local inside the parallel body, so its
// bounds live in registers; read through the closure GCC must assume a store to out may change
// them, and the loop stays scalar (5x slower).
template <class T, class F>
void run_map(const Tensor& out, const Tensor& a, F f) {
  if (out.is_contiguous() && a.is_contiguous() && a.shape() == out.shape()) {
    T* o = out.data<T>();
    const T* x = a.data<T>();
    parallel_for(0, out.numel(), kGrain, [o, x, f](int64_t b, int64_t e) {
      const F g = f;
      T* __restrict po = o;
      const T* __restrict px = x;
      for (int64_t i = b; i < e; ++i) po[i] = g(px[i]);
    });
    return;
  }
  for_each<2>({&out, &a}, [f](char** p, const int64_t* s, int64_t m) {
    const F g = f;
    char *po = p[0], *pa = p[1];
    for (int64_t i = 0; i < m; ++i, po += s[0], pa += s[1])
      *reinterpret_cast<T*>(po) = g(*reinterpret_cast<const T*>(pa));
  });
}
}  // namespace

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
        run_map<T>(out, a, [nanv](T) { return nanv; });
        return;
      }
      // selects, not std::min/max: NaN passes through and the loop vectorises
      if (hl && hh) {
        run_map<T>(out, a, [l, h](T x) {
          T r = x < l ? l : x;
          return r > h ? h : r;
        });
      } else if (hl) {
        run_map<T>(out, a, [l](T x) { return x < l ? l : x; });
      } else {
        run_map<T>(out, a, [h](T x) { return x > h ? h : x; });
      }
    }
  });
}

void lerp(const Tensor& out, const Tensor& a, const Tensor& b, double w) {
  visit_compute(a.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (is_fp<T>) {
      // torch's two forms: from a for small weights, from b otherwise, so w = 1 gives b exactly
      T wt = static_cast<T>(w), wm1 = wt - T(1);
      // explicit fmas (as torch's vector path): the same rounding in every layout
      if (std::fabs(w) < 0.5) run_binary<T, T>(out, a, b, [wt](T x, T y) { return std::fma(wt, y - x, x); });
      else run_binary<T, T>(out, a, b, [wm1](T x, T y) { return std::fma(wm1, y - x, y); });
    } else {
      throw TypeError("[lerp] needs floating point tensors");
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
