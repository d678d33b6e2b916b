#pragma once
// Lane helpers shared by the reduction, row-wise and scan kernels (reduce.cpp, rowwise.cpp,
// scan.cpp): vectorised contiguous sums / extremes / squared deviations and the dtype visitor.
// Internal linkage (an unnamed namespace): each kernel file gets its own copy, built with its flags.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "kernels.h"
#include "parallel.h"
#include "vmath.h"

namespace tt::cpu {
namespace {

template <class T>
using Acc = std::conditional_t<std::is_floating_point_v<T>, double, std::conditional_t<std::is_same_v<T, bool>, int64_t, T>>;

// Sum (Square: sum of squares) of n contiguous floats in 4 x 8 float lanes (vector extensions:
// the auto-vectoriser only managed one of two loops here), flushed into a double every 2048
// elements so long rows keep double-like accuracy (and a square overflows exactly where torch's
// float norm does).
template <bool Square>
double float_lanes_sum(const float* x, int64_t n) {
  typedef float V __attribute__((vector_size(32)));
  double total = 0;
  int64_t j = 0;
  while (j + 32 <= n) {
    V a0 = {}, a1 = {}, a2 = {}, a3 = {};
    int64_t stop = std::min(n - 31, j + 2048);
    for (; j < stop; j += 32) {
      V v0, v1, v2, v3;
      std::memcpy(&v0, x + j, sizeof(V));
      std::memcpy(&v1, x + j + 8, sizeof(V));
      std::memcpy(&v2, x + j + 16, sizeof(V));
      std::memcpy(&v3, x + j + 24, sizeof(V));
      if constexpr (Square) {
        a0 += v0 * v0;
        a1 += v1 * v1;
        a2 += v2 * v2;
        a3 += v3 * v3;
      } else {
        a0 += v0;
        a1 += v1;
        a2 += v2;
        a3 += v3;
      }
    }
    V a = (a0 + a1) + (a2 + a3);
    double s = 0;
    for (int k = 0; k < 8; ++k) s += a[k];
    total += s;
  }
  for (; j < n; ++j) total += static_cast<double>(Square ? x[j] * x[j] : x[j]);
  return total;
}

// The same in 16 double lanes (four independent vector chains), combined pairwise.
template <bool Square, class T>
double double_lanes_sum(const T* x, int64_t n) {
  constexpr int L = 16;
  double acc[L] = {0};
  int64_t j = 0;
  auto term = [](T v) { return Square ? static_cast<double>(v) * static_cast<double>(v) : static_cast<double>(v); };
  for (; j + L <= n; j += L)
    for (int k = 0; k < L; ++k) acc[k] += term(x[j + k]);
  for (int w = L / 2; w > 0; w /= 2)
    for (int k = 0; k < w; ++k) acc[k] += acc[k + w];
  double s = acc[0];
  for (; j < n; ++j) s += term(x[j]);
  return s;
}

template <class T>
Acc<T> contiguous_sum(const T* x, int64_t n) {
  if constexpr (std::is_same_v<T, float>) {
    return float_lanes_sum<false>(x, n);
  } else if constexpr (std::is_same_v<T, double>) {
    return double_lanes_sum<false>(x, n);
  } else {
    Acc<T> s = 0;
    for (int64_t j = 0; j < n; ++j) s += x[j];
    return s;
  }
}

// Product of n contiguous values in independent lanes (floats: 4 AVX vectors; integers: 32 lanes):
// a single running product is one long chain of dependent multiplies (a multiply's latency per
// element). Integers multiply as their unsigned type, which wraps exactly as the serial product
// does (and without signed overflow).
template <class T, bool = std::is_integral_v<T> && !std::is_same_v<T, bool>>
struct ProdLane {
  using type = T;
};
template <class T>
struct ProdLane<T, true> {
  using type = std::make_unsigned_t<T>;
};

template <class T>
T contiguous_prod(const T* x, int64_t n) {
  if constexpr (std::is_floating_point_v<T>) {  // 4 AVX vectors of lanes (vector extensions)
    constexpr int W = 32 / sizeof(T);
    typedef T V __attribute__((vector_size(32)));
    V a0, a1, a2, a3;
    for (int k = 0; k < W; ++k) a0[k] = T(1);
    a1 = a2 = a3 = a0;
    int64_t j = 0;
    for (; j + 4 * W <= n; j += 4 * W) {
      V v0, v1, v2, v3;
      std::memcpy(&v0, x + j, sizeof(V));
      std::memcpy(&v1, x + j + W, sizeof(V));
      std::memcpy(&v2, x + j + 2 * W, sizeof(V));
      std::memcpy(&v3, x + j + 3 * W, sizeof(V));
      a0 *= v0;
      a1 *= v1;
      a2 *= v2;
      a3 *= v3;
    }
    V a = (a0 * a1) * (a2 * a3);
    T p = a[0];
    for (int k = 1; k < W; ++k) p *= a[k];
    for (; j < n; ++j) p *= x[j];
    return p;
  }
  using U = typename ProdLane<T>::type;
  constexpr int L = 32;
  U acc[L];
  for (int k = 0; k < L; ++k) acc[k] = U(1);
  int64_t j = 0;
  for (; j + L <= n; j += L)
    for (int k = 0; k < L; ++k) acc[k] = static_cast<U>(acc[k] * static_cast<U>(x[j + k]));
  for (int w = L / 2; w > 0; w /= 2)  // pairwise, so the lanes combine in log2(L) steps
    for (int k = 0; k < w; ++k) acc[k] = static_cast<U>(acc[k] * acc[k + w]);
  U p = acc[0];
  for (; j < n; ++j) p = static_cast<U>(p * static_cast<U>(x[j]));
  return static_cast<T>(p);
}

// Sum of squares of n contiguous values (norm2): float in float lanes, the rest in double lanes.
template <class T>
double contiguous_sumsq(const T* x, int64_t n) {
  if constexpr (std::is_same_v<T, float>) return float_lanes_sum<true>(x, n);
  else return double_lanes_sum<true>(x, n);
}

// The same for a float row in float lanes (4 x 8, flushed into a double every 2048 elements, as
// contiguous_sum): layer_norm's rows are short, and float lanes do twice the work per instruction.
inline double contiguous_sqdev_lanes(const float* x, int64_t n, float mean) {
  typedef float V __attribute__((vector_size(32)));
  V m = {mean, mean, mean, mean, mean, mean, mean, mean};
  double total = 0;
  int64_t j = 0;
  while (j + 32 <= n) {
    V a0 = {}, a1 = {}, a2 = {}, a3 = {};
    int64_t stop = std::min(n - 31, j + 2048);
    for (; j < stop; j += 32) {
      V v0, v1, v2, v3;
      std::memcpy(&v0, x + j, sizeof(V));
      std::memcpy(&v1, x + j + 8, sizeof(V));
      std::memcpy(&v2, x + j + 16, sizeof(V));
      std::memcpy(&v3, x + j + 24, sizeof(V));
      v0 -= m;
      v1 -= m;
      v2 -= m;
      v3 -= m;
      a0 += v0 * v0;
      a1 += v1 * v1;
      a2 += v2 * v2;
      a3 += v3 * v3;
    }
    V a = (a0 + a1) + (a2 + a3);
    double s = 0;
    for (int k = 0; k < 8; ++k) s += a[k];
    total += s;
  }
  for (; j < n; ++j) {
    float d = x[j] - mean;
    total += static_cast<double>(d * d);
  }
  return total;
}

// Sum of (x - mean)^2 over n contiguous values, in double, 16 independent lanes (the second pass
// of a two-pass variance; a single double accumulator would make it one serial add chain).
template <class T>
double contiguous_sqdev(const T* x, int64_t n, double mean) {
  constexpr int L = 16;
  double acc[L] = {0};
  int64_t j = 0;
  for (; j + L <= n; j += L)
    for (int k = 0; k < L; ++k) {
      double d = static_cast<double>(x[j + k]) - mean;
      acc[k] += d * d;
    }
  for (int w = L / 2; w > 0; w /= 2)
    for (int k = 0; k < w; ++k) acc[k] += acc[k + w];
  double s = acc[0];
  for (; j < n; ++j) {
    double d = static_cast<double>(x[j]) - mean;
    s += d * d;
  }
  return s;
}

// Max (or min) of n contiguous floating values; a NaN anywhere wins, as in torch. Written with
// GCC/Clang vector extensions: a compare-and-select reduction with NaN semantics is not something
// the auto-vectoriser will do on its own, and this is the inner loop of amax/max and softmax.
template <class T, bool IsMax>
T contiguous_extreme(const T* x, int64_t n);

template <class T, bool IsMax>
T contiguous_extreme_exact(const T* x, int64_t n) {
  constexpr int W = 32 / sizeof(T);
  typedef T V __attribute__((vector_size(32)));
  const T start = IsMax ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::infinity();
  constexpr int U = 4;  // independent accumulators hide the compare+blend latency
  V acc[U], nan[U];
  for (int u = 0; u < U; ++u) {
    for (int k = 0; k < W; ++k) acc[u][k] = start;
    nan[u] = V{};
  }
  int64_t j = 0;
  for (; j + U * W <= n; j += U * W) {
    for (int u = 0; u < U; ++u) {
      V v;
      std::memcpy(&v, x + j + u * W, sizeof(V));
      if constexpr (IsMax) {
        acc[u] = v > acc[u] ? v : acc[u];
      } else {
        acc[u] = v < acc[u] ? v : acc[u];
      }
      nan[u] = v != v ? v : nan[u];
    }
  }
  T best = start;
  bool any_nan = false;
  for (int u = 0; u < U; ++u) {
    for (int k = 0; k < W; ++k) {
      best = (IsMax ? acc[u][k] > best : acc[u][k] < best) ? acc[u][k] : best;
      any_nan = any_nan || nan[u][k] != nan[u][k];
    }
  }
  for (; j < n; ++j) {
    T v = x[j];
    any_nan = any_nan || v != v;
    best = (IsMax ? v > best : v < best) ? v : best;
  }
  return any_nan ? std::numeric_limits<T>::quiet_NaN() : best;
}

#if defined(__AVX2__) && defined(__FMA__)
// Horizontal max/min/sum of the 8 lanes of v: two shuffles, not eight scalar steps (the per-row
// epilogue matters on 1K-element rows).
template <int Kind>  // 0 max, 1 min, 2 sum
inline float hreduce(__m256 v) {
  auto op = [](__m128 a, __m128 b) {
    if constexpr (Kind == 0) return _mm_max_ps(a, b);
    else if constexpr (Kind == 1) return _mm_min_ps(a, b);
    else return _mm_add_ps(a, b);
  };
  __m128 q = op(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  q = op(q, _mm_movehl_ps(q, q));
  q = op(q, _mm_shuffle_ps(q, q, 1));
  return _mm_cvtss_f32(q);
}

// Max (or min) of n contiguous floats without a NaN test per element: one vmaxps per vector plus
// a running sum of v * 0, whose lanes turn NaN if any input is NaN or infinite. Returns false
// then, and the caller takes the exact NaN-aware path; true with the result otherwise.
template <bool IsMax>
inline bool fast_extreme_f32(const float* x, int64_t n, float& out) {
  const float start = IsMax ? -std::numeric_limits<float>::infinity() : std::numeric_limits<float>::infinity();
  __m256 a0 = _mm256_set1_ps(start), a1 = a0, a2 = a0, a3 = a0;
  __m256 z = _mm256_setzero_ps(), u0 = z, u1 = z, u2 = z, u3 = z;
  auto f = [](__m256 a, __m256 v) { return IsMax ? _mm256_max_ps(a, v) : _mm256_min_ps(a, v); };
  int64_t j = 0;
  for (; j + 32 <= n; j += 32) {
    __m256 v0 = _mm256_loadu_ps(x + j), v1 = _mm256_loadu_ps(x + j + 8);
    __m256 v2 = _mm256_loadu_ps(x + j + 16), v3 = _mm256_loadu_ps(x + j + 24);
    a0 = f(a0, v0);
    a1 = f(a1, v1);
    a2 = f(a2, v2);
    a3 = f(a3, v3);
    u0 = _mm256_add_ps(u0, _mm256_mul_ps(v0, z));
    u1 = _mm256_add_ps(u1, _mm256_mul_ps(v1, z));
    u2 = _mm256_add_ps(u2, _mm256_mul_ps(v2, z));
    u3 = _mm256_add_ps(u3, _mm256_mul_ps(v3, z));
  }
  for (; j + 8 <= n; j += 8) {
    __m256 v0 = _mm256_loadu_ps(x + j);
    a0 = f(a0, v0);
    u0 = _mm256_add_ps(u0, _mm256_mul_ps(v0, z));
  }
  __m256 u = _mm256_add_ps(_mm256_add_ps(u0, u1), _mm256_add_ps(u2, u3));
  if (_mm256_movemask_ps(_mm256_cmp_ps(u, u, _CMP_UNORD_Q)) != 0) return false;
  float best = hreduce<IsMax ? 0 : 1>(f(f(a0, a1), f(a2, a3)));
  for (; j < n; ++j) {
    float v = x[j];
    if (v != v) return false;
    best = (IsMax ? v > best : v < best) ? v : best;
  }
  out = best;
  return true;
}
#endif

template <class T, bool IsMax>
T contiguous_extreme(const T* x, int64_t n) {
#if defined(__AVX2__) && defined(__FMA__)
  if constexpr (std::is_same_v<T, float>) {
    float r;
    if (fast_extreme_f32<IsMax>(x, n, r)) return r;
  }
#endif
  return contiguous_extreme_exact<T, IsMax>(x, n);
}

// The row reduction for one op, dispatched once per row rather than per element.
template <class T>
T row_extreme(ReduceOp op, const T* x, int64_t n) {
  if constexpr (std::is_floating_point_v<T>) {
    return op == ReduceOp::Max ? contiguous_extreme<T, true>(x, n) : contiguous_extreme<T, false>(x, n);
  } else {
    T acc = op == ReduceOp::Max ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
    if (op == ReduceOp::Max) {
      for (int64_t j = 0; j < n; ++j) acc = x[j] > acc ? x[j] : acc;
    } else {
      for (int64_t j = 0; j < n; ++j) acc = x[j] < acc ? x[j] : acc;
    }
    return acc;
  }
}

// dst[i] = op(dst[i], row[i]) over w lanes, NaN-propagating, vectorisable (one op per call).
template <class T>
void lanes_extreme(ReduceOp op, T* dst, const T* row, int64_t w) {
  if (op == ReduceOp::Max) {
    for (int64_t i = 0; i < w; ++i) dst[i] = (row[i] > dst[i] || row[i] != row[i]) ? row[i] : dst[i];
  } else {
    for (int64_t i = 0; i < w; ++i) dst[i] = (row[i] < dst[i] || row[i] != row[i]) ? row[i] : dst[i];
  }
}

// dst[i] = op(dst[i], rows[0][i], ..., rows[3][i]) for the 4 rows at base + j * stride, j < 4: one
// load and store of dst per 4 input rows (the column reductions are bound by those otherwise).
template <class T, bool IsMax>
void lanes_extreme4(T* dst, const T* base, int64_t stride, int64_t w) {
  const T *r0 = base, *r1 = base + stride, *r2 = base + 2 * stride, *r3 = base + 3 * stride;
  auto pick = [](T d, T x) { return ((IsMax ? x > d : x < d) || x != x) ? x : d; };
  for (int64_t i = 0; i < w; ++i) dst[i] = pick(pick(pick(pick(dst[i], r0[i]), r1[i]), r2[i]), r3[i]);
}

// All r rows of a [r, stride] block folded into dst[0, w) (max or min, NaN-propagating).
template <class T>
void rows_extreme(ReduceOp op, T* dst, const T* base, int64_t r, int64_t stride, int64_t w) {
  int64_t j = 0;
  if constexpr (std::is_floating_point_v<T>) {
    for (; j + 4 <= r; j += 4) {
      if (op == ReduceOp::Max) lanes_extreme4<T, true>(dst, base + j * stride, stride, w);
      else lanes_extreme4<T, false>(dst, base + j * stride, stride, w);
    }
  }
  for (; j < r; ++j) lanes_extreme<T>(op, dst, base + j * stride, w);
}

template <class T>
struct Ops {
  static T init(ReduceOp op) {
    switch (op) {
      case ReduceOp::Prod:
      case ReduceOp::All: return T(1);
      case ReduceOp::Max: return std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                                                        : std::numeric_limits<T>::lowest();
      case ReduceOp::Min: return std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity()
                                                                        : std::numeric_limits<T>::max();
      default: return T(0);
    }
  }
};

template <class T>
inline T combine(ReduceOp op, T acc, T x) {
  switch (op) {
    case ReduceOp::Prod: return T(acc * x);
    case ReduceOp::Max:
      if constexpr (std::is_floating_point_v<T>) return (x > acc || x != x || acc != acc) ? (acc != acc ? acc : x) : acc;
      else return x > acc ? x : acc;
    case ReduceOp::Min:
      if constexpr (std::is_floating_point_v<T>) return (x < acc || x != x || acc != acc) ? (acc != acc ? acc : x) : acc;
      else return x < acc ? x : acc;
    case ReduceOp::All: return T(acc && x);
    case ReduceOp::Any: return T(acc || x);
    case ReduceOp::NanSum:
      if constexpr (std::is_floating_point_v<T>) return x != x ? acc : acc + x;
      else return T(acc + x);
    default: return T(acc + x);
  }
}

template <class F>
decltype(auto) visit_num(DType d, F&& f) {
  switch (d) {
    case DType::Bool: return f(bool{});
    case DType::UInt8: return f(uint8_t{});
    case DType::Int32: return f(int32_t{});
    case DType::Int64: return f(int64_t{});
    case DType::Float32: return f(float{});
    case DType::Float64: return f(double{});
    default: throw TypeError(std::string("no CPU reduction kernel for dtype ") + dtype_name(d));
  }
}

}  // namespace
}  // namespace tt::cpu
