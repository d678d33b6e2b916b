// Elementwise CUDA kernels: binary, unary, activations, where, clamp, and the any_zero /
// any_nonfinite checks. One kernel per compute dtype; the op is a (warp-uniform) switch inside,
// which keeps the build small and costs nothing measurable in these memory-bound loops.
// The numerics mirror src/cpu/elementwise.cpp (floor division, remainder sign, NaN-propagating
// maximum/minimum, saturating casts).
#include "elementwise.cuh"
#include "typedtensor/op_info.h"
#include "typedtensor/special_math.h"

namespace tt::cuda {
namespace {

template <class T>
__device__ __forceinline__ T floordiv(T a, T b) {
  if constexpr (is_fp_v<T>) {
    if (b == 0) return a / b;
    T m = fmod(a, b);
    T d = (a - m) / b;
    if (m != 0 && ((b < 0) != (m < 0))) d -= 1;
    T fl = floor(d);
    if (d - fl > T(0.5)) fl += 1;
    return d == 0 ? copysign(T(0), a / b) : fl;
  } else if constexpr (std::is_same_v<T, bool>) {
    return a;
  } else if constexpr (std::is_unsigned_v<T>) {
    return b == 0 ? T(0) : T(a / b);
  } else {
    if (b == 0) return T(0);  // cpu::binary rejects integer division by zero before launching
    using U = std::make_unsigned_t<T>;
    if (b == T(-1)) return static_cast<T>(U(0) - static_cast<U>(a));  // MIN / -1 overflows: MIN, as torch gives
    T q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
    return q;
  }
}
template <class T>
__device__ __forceinline__ T remainder(T a, T b) {
  if constexpr (is_fp_v<T>) {
    T r = fmod(a, b);
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
  } else if constexpr (std::is_same_v<T, bool>) {
    return false;
  } else if constexpr (std::is_unsigned_v<T>) {
    return b == 0 ? T(0) : T(a % b);
  } else {
    if (b == 0 || b == T(-1)) return T(0);  // MIN % -1 overflows; the remainder is 0
    T r = a % b;
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
  }
}
template <class T>
__device__ __forceinline__ T ipow(T a, T b) {
  if constexpr (is_fp_v<T>) {
    return pow(a, b);
  } else if constexpr (std::is_same_v<T, bool>) {
    return a || !b;
  } else {
    if constexpr (std::is_signed_v<T>) {
      if (b < 0) return a == 1 ? T(1) : (a == T(-1) ? ((b & 1) ? T(-1) : T(1)) : T(0));
    }
    T r = 1;
    while (b) {
      if (b & 1) r = static_cast<T>(r * a);
      a = static_cast<T>(a * a);
      b >>= 1;
    }
    return r;
  }
}

template <class T>
struct BinaryF {
  BinaryOp op;
  __device__ T operator()(T x, T y) const {
    switch (op) {
      case BinaryOp::Add:
        if constexpr (std::is_same_v<T, bool>) return x || y;
        else return T(x + y);
      case BinaryOp::Sub: return T(x - y);
      case BinaryOp::Mul:
        if constexpr (std::is_same_v<T, bool>) return x && y;
        else return T(x * y);
      case BinaryOp::Div: return T(x / (std::is_same_v<T, bool> ? T(1) : y));
      case BinaryOp::FloorDiv: return floordiv(x, y);
      case BinaryOp::Remainder: return remainder(x, y);
      case BinaryOp::Pow: return ipow(x, y);
      case BinaryOp::Maximum:
        if constexpr (is_fp_v<T>) return (x != x || x > y) ? x : y;
        else return x > y ? x : y;
      case BinaryOp::Minimum:
        if constexpr (is_fp_v<T>) return (x != x || x < y) ? x : y;
        else return x < y ? x : y;
      case BinaryOp::Fmax: return (x > y || y != y) ? x : y;
      case BinaryOp::Fmin: return (x < y || y != y) ? x : y;
      case BinaryOp::BitAnd:
        if constexpr (!is_fp_v<T>) return T(x & y);
        else return T(0);
      case BinaryOp::BitOr:
        if constexpr (!is_fp_v<T>) return T(x | y);
        else return T(0);
      case BinaryOp::BitXor:
        if constexpr (!is_fp_v<T>) return T(x ^ y);
        else return T(0);
      case BinaryOp::Atan2:
        if constexpr (is_fp_v<T>) return atan2(x, y);
        else return T(0);
      case BinaryOp::Fmod:
        if constexpr (is_fp_v<T>) return fmod(x, y);
        else if constexpr (std::is_same_v<T, bool>) return T(0);
        else if constexpr (std::is_signed_v<T>) return y == 0 || y == T(-1) ? T(0) : T(x % y);  // MIN % -1 overflows
        else return y == 0 ? T(0) : T(x % y);
      case BinaryOp::Hypot:
        if constexpr (is_fp_v<T>) return hypot(x, y);
        else return T(0);
      case BinaryOp::Copysign:
        if constexpr (is_fp_v<T>) return copysign(x, y);
        else return T(0);
      case BinaryOp::Zeta:
        if constexpr (is_fp_v<T>) return T(special::zeta(x, y));
        else return T(0);
      default: return T(0);
    }
  }
};

template <class T>
struct CompareF {
  BinaryOp op;
  __device__ bool operator()(T x, T y) const {
    switch (op) {
      case BinaryOp::Eq: return x == y;
      case BinaryOp::Ne: return x != y;
      case BinaryOp::Lt: return x < y;
      case BinaryOp::Le: return x <= y;
      case BinaryOp::Gt: return x > y;
      case BinaryOp::Ge: return x >= y;
      case BinaryOp::LogicalAnd: return x != T(0) && y != T(0);
      case BinaryOp::LogicalOr: return x != T(0) || y != T(0);
      default: return (x != T(0)) != (y != T(0));  // LogicalXor
    }
  }
};

// The compute dtypes the kernels take (the front end has promoted: a Float-rule op sees floats).
bool valid_binary(BinaryOp op, DType d) {
  bool fp = is_floating(d);
  switch (op_info(op).dtype) {
    case DTypeRule::Float: return fp;
    case DTypeRule::Integral: return !fp;
    default: return op != BinaryOp::Fmod || d != DType::Bool;
  }
}

template <class T>
__device__ __forceinline__ T sigmoid(T x) {
  return T(1) / (T(1) + exp(-x));
}
template <class T>
__device__ __forceinline__ T softplus(T x) {
  return x > T(20) ? x : log1p(exp(x));
}

template <class T>
struct UnaryF {
  UnaryOp op;
  __device__ T operator()(T x) const {
    if constexpr (is_fp_v<T>) {
      switch (op) {
        case UnaryOp::Neg: return -x;
        case UnaryOp::Abs: return fabs(x);
        case UnaryOp::Exp: return exp(x);
        case UnaryOp::Exp2: return exp2(x);
        case UnaryOp::Expm1: return expm1(x);
        case UnaryOp::Log: return log(x);
        case UnaryOp::Log2: return log2(x);
        case UnaryOp::Log10: return log10(x);
        case UnaryOp::Log1p: return log1p(x);
        case UnaryOp::Sqrt: return sqrt(x);
        case UnaryOp::Rsqrt: return T(1) / sqrt(x);
        case UnaryOp::Sin: return sin(x);
        case UnaryOp::Cos: return cos(x);
        case UnaryOp::Tan: return tan(x);
        case UnaryOp::Asin: return asin(x);
        case UnaryOp::Acos: return acos(x);
        case UnaryOp::Atan: return atan(x);
        case UnaryOp::Sinh: return sinh(x);
        case UnaryOp::Cosh: return cosh(x);
        case UnaryOp::Tanh: return tanh(x);
        case UnaryOp::Asinh: return asinh(x);
        case UnaryOp::Acosh: return acosh(x);
        case UnaryOp::Atanh: return atanh(x);
        case UnaryOp::Sigmoid: return sigmoid(x);
        case UnaryOp::Relu: return x > T(0) ? x : (x != x ? x : T(0));
        case UnaryOp::Gelu: return T(0.5) * x * (T(1) + erf(x * T(0.70710678118654752440)));
        case UnaryOp::GeluTanh: {
          const T k = T(0.79788456080286535588), c = T(0.044715);
          return T(0.5) * x * (T(1) + tanh(k * (x + c * x * x * x)));
        }
        case UnaryOp::Silu: return x * sigmoid(x);
        case UnaryOp::Erf: return erf(x);
        case UnaryOp::Erfc: return erfc(x);
        case UnaryOp::Erfinv: return erfinv(x);
        case UnaryOp::Lgamma: return lgamma(x);
        case UnaryOp::Digamma: return T(special::digamma(x));  // NOTE [ Special functions ]
        case UnaryOp::Trigamma: return T(special::trigamma(x));
        case UnaryOp::I0: return T(special::i0(x));
        case UnaryOp::I0e: return T(special::i0e(x));
        case UnaryOp::I1: return T(special::i1(x));
        case UnaryOp::I1e: return T(special::i1e(x));
        case UnaryOp::Erfcx: return T(special::erfcx(x));
        case UnaryOp::Ndtri: return T(special::ndtri(x));
        case UnaryOp::Floor: return floor(x);
        case UnaryOp::Ceil: return ceil(x);
        case UnaryOp::Round: return nearbyint(x);
        case UnaryOp::Trunc: return trunc(x);
        case UnaryOp::Frac: return x - trunc(x);
        case UnaryOp::Sign: return T((T(0) < x) - (x < T(0)));
        case UnaryOp::Reciprocal: return T(1) / x;
        case UnaryOp::Square: return x * x;
        case UnaryOp::Softplus: return softplus(x);
        case UnaryOp::Mish: return x * tanh(softplus(x));
        case UnaryOp::Logsigmoid: return fmin(x, T(0)) - log1p(exp(-fabs(x)));
        case UnaryOp::Relu6: return fmin(fmax(x, T(0)), T(6));
        case UnaryOp::Hardsigmoid: return fmin(fmax(x + T(3), T(0)), T(6)) / T(6);
        case UnaryOp::Hardswish: return x * fmin(fmax(x + T(3), T(0)), T(6)) / T(6);
        default: return x;
      }
    } else {
      switch (op) {
        case UnaryOp::Neg:
          if constexpr (std::is_same_v<T, bool>) return x;
          else return T(-x);
        case UnaryOp::Abs:
          if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, uint8_t>) return x;
          else return x < T(0) ? T(-x) : x;
        case UnaryOp::Relu: return x > T(0) ? x : T(0);
        case UnaryOp::Relu6:
          if constexpr (std::is_unsigned_v<T>) return x > T(6) ? T(6) : x;
          else return x < T(0) ? T(0) : (x > T(6) ? T(6) : x);
        case UnaryOp::Sign:
          if constexpr (std::is_unsigned_v<T>) return T(x != T(0));
          else return T((T(0) < x) - (x < T(0)));
        case UnaryOp::Square:
          if constexpr (std::is_same_v<T, bool>) return x;
          else return T(x * x);
        case UnaryOp::BitNot:
          if constexpr (std::is_same_v<T, bool>) return !x;
          else return T(~x);
        default: return x;  // floor/ceil/round/trunc of an integer
      }
    }
  }
};

template <class T>
struct PredicateF {
  UnaryOp op;
  __device__ bool operator()(T x) const {
    switch (op) {
      case UnaryOp::LogicalNot: return x == T(0);
      case UnaryOp::IsNan:
        if constexpr (is_fp_v<T>) return x != x;
        else return false;
      case UnaryOp::IsInf:
        if constexpr (is_fp_v<T>) return isinf(x);
        else return false;
      default:  // IsFinite
        if constexpr (is_fp_v<T>) return isfinite(x);
        else return true;
    }
  }
};

bool is_predicate(UnaryOp op) { return bool_result(op_info(op).dtype); }
// Integer inputs: the ops whose dtype rule keeps them (and bitwise_not); neg refuses bool.
bool valid_unary(UnaryOp op, DType d) {
  DTypeRule r = op_info(op).dtype;
  if (is_floating(d) || is_predicate(op)) return r != DTypeRule::Integral;
  if (op == UnaryOp::Neg) return d != DType::Bool;
  return r == DTypeRule::Same || r == DTypeRule::Integral;
}

template <class T>
struct LeakyF {
  T s;
  bool elu;
  __device__ T operator()(T x) const { return x > T(0) ? x : (elu ? s * expm1(x) : x * s); }
};

template <class T>
struct ClampF {
  T lo, hi;
  bool has_lo, has_hi, nan;
  __device__ T operator()(T x) const {
    if constexpr (is_fp_v<T>) {
      if (nan) return lo;  // a NaN bound: every element is NaN (lo holds NaN then)
      if (x != x) return x;
    }
    if (has_lo && x < lo) x = lo;
    if (has_hi && x > hi) x = hi;
    return x;
  }
};

// dx = g * f'(x) for the fused activation VJPs (formulas of src/cpu/act_backward.cpp)
template <class T>
struct ActBackwardF {
  UnaryOp op;
  __device__ T operator()(T g, T x) const {
    switch (op) {
      case UnaryOp::Gelu: {
        T cdf = T(0.5) * (T(1) + erf(x * T(0.70710678118654752440)));
        T pdf = exp(T(-0.5) * x * x) * T(0.39894228040143267794);
        return g * (cdf + x * pdf);
      }
      case UnaryOp::GeluTanh: {
        const T k = T(0.79788456080286535588), c = T(0.044715);
        T x2 = x * x, t = tanh(k * x * (T(1) + c * x2));
        return g * (T(0.5) * (T(1) + t) + T(0.5) * x * (T(1) - t * t) * k * (T(1) + T(3) * c * x2));
      }
      default: {  // Silu
        T s = sigmoid(x);
        return g * (s * (T(1) + x * (T(1) - s)));
      }
    }
  }
};

template <class T>
struct WhereF {
  __device__ T operator()(bool c, T a, T b) const { return c ? a : b; }
};

template <class T>
__global__ void k_flag_zero(const T* a, Geometry<1> g, int64_t n, bool small, int* flag) {
  int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n; i += step) {
    int64_t off[1];
    offsets_of<1>(g, i, off, small);
    if (a[off[0]] == T(0)) *flag = 1;
  }
}
template <class T>
__global__ void k_flag_nonfinite(const T* a, Geometry<1> g, int64_t n, bool small, int* flag) {
  int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n; i += step) {
    int64_t off[1];
    offsets_of<1>(g, i, off, small);
    if (!isfinite(a[off[0]])) *flag = 1;
  }
}

template <class Launch>
bool run_flag(const Tensor& a, Launch launch) {
  int64_t n = a.numel();
  if (n == 0) return false;
  Scratch s(sizeof(int));
  check(cudaMemsetAsync(s.as<int>(), 0, sizeof(int), kStream), "any");
  const Tensor* ts[1] = {&a};
  Geometry<1> g = make_geometry<1>(ts);
  launch(g, n, s.as<int>());
  check_launch("any");
  int h = 0;
  memcpy_d2h(&h, s.as<int>(), sizeof(int));
  return h != 0;
}

}  // namespace

void binary(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b) {
  const char* name = binary_name(op);
  if (!valid_binary(op, a.dtype()))
    throw TypeError(std::string("[") + name + "] not supported for dtype " + dtype_name(a.dtype()));
  visit_compute(a.dtype(), name, [&](auto tag) {
    using T = decltype(tag);
    if (out.dtype() == DType::Bool && bool_result(op_info(op).dtype))
      launch2<bool, T, T>(out, a, b, CompareF<T>{op}, name);
    else
      launch2<T, T, T>(out, a, b, BinaryF<T>{op}, name);
  });
}

void unary(UnaryOp op, const Tensor& out, const Tensor& a) {
  const char* name = unary_name(op);
  if (!valid_unary(op, a.dtype()))
    throw TypeError(std::string("[") + name + "] not supported for dtype " + dtype_name(a.dtype()));
  visit_compute(a.dtype(), name, [&](auto tag) {
    using T = decltype(tag);
    if (is_predicate(op)) launch1<bool, T>(out, a, PredicateF<T>{op}, name);
    else launch1<T, T>(out, a, UnaryF<T>{op}, name);
  });
}

void leaky_relu(const Tensor& out, const Tensor& a, double slope) {
  visit_float(a.dtype(), "leaky_relu", [&](auto tag) {
    using T = decltype(tag);
    launch1<T, T>(out, a, LeakyF<T>{static_cast<T>(slope), false}, "leaky_relu");
  });
}

void elu(const Tensor& out, const Tensor& a, double alpha) {
  visit_float(a.dtype(), "elu", [&](auto tag) {
    using T = decltype(tag);
    launch1<T, T>(out, a, LeakyF<T>{static_cast<T>(alpha), true}, "elu");
  });
}

void where(const Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b) {
  visit_all(out.dtype(), [&](auto tag) {
    using T = decltype(tag);
    launch3<T, bool, T, T>(out, cond, a, b, WhereF<T>{}, "where");
  });
}

void clamp(const Tensor& out, const Tensor& a, std::optional<double> lo, std::optional<double> hi) {
  if (a.dtype() == DType::Bool) throw TypeError("[clamp] not supported for bool tensors");
  visit_compute(a.dtype(), "clamp", [&](auto tag) {
    using T = decltype(tag);
    ClampF<T> f{};
    f.has_lo = lo.has_value();
    f.has_hi = hi.has_value();
    bool nan = (lo && *lo != *lo) || (hi && *hi != *hi);
    if constexpr (is_fp_v<T>) {
      f.lo = lo ? static_cast<T>(*lo) : T(0);
      f.hi = hi ? static_cast<T>(*hi) : T(0);
      f.nan = nan;
      if (nan) f.lo = std::numeric_limits<T>::quiet_NaN();
    } else {
      // saturate the bounds into T's range (like the CPU's cast_value)
      auto sat = [](double v) -> T {
        if (v >= static_cast<double>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
        if (v <= static_cast<double>(std::numeric_limits<T>::lowest())) return std::numeric_limits<T>::lowest();
        return static_cast<T>(v);
      };
      f.lo = lo ? sat(*lo) : T(0);
      f.hi = hi ? sat(*hi) : T(0);
      f.nan = false;
    }
    launch1<T, T>(out, a, f, "clamp");
  });
}

bool any_zero(const Tensor& a) {
  return visit_compute(a.dtype(), "any_zero", [&](auto tag) {
    using T = decltype(tag);
    return run_flag(a, [&](const Geometry<1>& g, int64_t n, int* flag) {
      k_flag_zero<T><<<grid_for(n), kThreads, 0, kStream>>>(static_cast<const T*>(a.raw()), g, n,
                                                            n < (int64_t(1) << 32), flag);
    });
  });
}

bool any_nonfinite(const Tensor& a) {
  if (!is_floating(a.dtype())) return false;
  return visit_float(a.dtype(), "any_nonfinite", [&](auto tag) {
    using T = decltype(tag);
    return run_flag(a, [&](const Geometry<1>& g, int64_t n, int* flag) {
      k_flag_nonfinite<T><<<grid_for(n), kThreads, 0, kStream>>>(static_cast<const T*>(a.raw()), g, n,
                                                                 n < (int64_t(1) << 32), flag);
    });
  });
}

void activation_backward(UnaryOp op, const Tensor& out, const Tensor& g, const Tensor& x) {
  if (op != UnaryOp::Gelu && op != UnaryOp::GeluTanh && op != UnaryOp::Silu)
    throw NotImplementedError(std::string("[") + unary_name(op) + "] has no fused backward kernel");
  visit_float(out.dtype(), unary_name(op), [&](auto tag) {
    using T = decltype(tag);
    launch2<T, T, T>(out, g, x, ActBackwardF<T>{op}, unary_name(op));
  });
}

}  // namespace tt::cuda
