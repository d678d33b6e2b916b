// Reduction kernels over the middle axis of a contiguous [outer, r, inner] block.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "kernels.h"
#include "parallel.h"
#include "unary_span.h"
#include "unary_wide.h"
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

// sum_j exp(x[j] - shift) over n contiguous values, storing nothing (logsumexp: no row to write;
// softmax stores its exps and uses row_exp_sum). Float lanes flushed into a double every 2048
// elements, like contiguous_sum.
template <class T>
Acc<T> exp_sum(const T* x, int64_t n, T shift) {
  Acc<T> total = 0;
  int64_t j = 0;
#if defined(__AVX2__) && defined(__FMA__)
  if constexpr (std::is_same_v<T, float>) {
    while (j + 8 <= n) {
      __m256 acc = _mm256_setzero_ps();
      int64_t stop = std::min(n, j + 2048);
      for (; j + 8 <= stop; j += 8) {
        __m256 e = vexp8(x + j, shift).v;
        acc = _mm256_add_ps(acc, e);
      }
      total += hreduce<2>(acc);
    }
  }
#endif
  if constexpr (std::is_same_v<T, double>) {  // 8 lanes of the vectorised double vexp, summed apart
    constexpr int L = 8;
    double acc[L] = {0};
    for (; j + L <= n; j += L)
      for (int k = 0; k < L; ++k) {
        acc[k] += vexp(x[j + k] - shift);
      }
    for (int w = L / 2; w > 0; w /= 2)
      for (int k = 0; k < w; ++k) acc[k] += acc[k + w];
    total = acc[0];
  }
  for (; j < n; ++j) {
    total += vexp(x[j] - shift);
  }
  return total;
}

// part[i] += exp(row[i] - shift[i]) over w lanes, each exp also stored to dst when Store.
template <bool Store, class T>
void lanes_exp_acc(T* part, const T* row, const T* shift, T* dst, int64_t w) {
  int64_t i = 0;
#if defined(__AVX2__) && defined(__FMA__)
  if constexpr (std::is_same_v<T, float>) {
    for (; i + 8 <= w; i += 8) {
      __m256 e = vexp8(row + i, shift + i).v;
      if constexpr (Store) _mm256_storeu_ps(dst + i, e);
      _mm256_storeu_ps(part + i, _mm256_add_ps(_mm256_loadu_ps(part + i), e));
    }
  }
#endif
  for (; i < w; ++i) {
    T e = vexp(row[i] - shift[i]);
    if constexpr (Store) dst[i] = e;
    part[i] += e;
  }
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

template <class T>
void reduce_typed(ReduceOp op, const Tensor& out, const Tensor& in, int64_t outer, int64_t r, int64_t inner) {
  const T* x = in.data<T>();
  T* o = out.data<T>();
  bool sumlike = op == ReduceOp::Sum || op == ReduceOp::Mean;
  bool extreme = (op == ReduceOp::Max || op == ReduceOp::Min) && !std::is_same_v<T, bool>;
  auto finish = [&](Acc<T> s) -> T {
    if (op == ReduceOp::Mean) {
      if constexpr (std::is_floating_point_v<T>) return static_cast<T>(r == 0 ? std::numeric_limits<T>::quiet_NaN() : s / static_cast<double>(r));
    }
    return static_cast<T>(s);
  };
  if (inner == 1) {
    if (outer < num_threads() && r > kGrain) {
      // few long rows: split each row across threads
      for (int64_t oi = 0; oi < outer; ++oi) {
        const T* row = x + oi * r;
        int nt = num_threads();
        std::vector<Acc<T>> part(static_cast<size_t>(nt), Acc<T>(Ops<T>::init(op)));
        int64_t per = (r + nt - 1) / nt;
        parallel_for(0, nt, 1, [&](int64_t b, int64_t e) {
          for (int64_t t = b; t < e; ++t) {
            int64_t lo = t * per, hi = std::min(r, lo + per);
            if (lo >= hi) continue;
            if (sumlike) {
              part[t] = contiguous_sum(row + lo, hi - lo);
            } else if (extreme) {
              part[t] = row_extreme<T>(op, row + lo, hi - lo);
            } else if (op == ReduceOp::Prod && !std::is_same_v<T, bool>) {
              part[t] = contiguous_prod(row + lo, hi - lo);
            } else {
              T acc = Ops<T>::init(op);
              for (int64_t j = lo; j < hi; ++j) acc = combine(op, acc, row[j]);
              part[t] = acc;
            }
          }
        });
        if (sumlike) {
          Acc<T> s = 0;
          for (auto v : part) s += v;
          o[oi] = finish(s);
        } else {
          T acc = Ops<T>::init(op);
          for (auto v : part) acc = combine(op, acc, static_cast<T>(v));
          o[oi] = acc;
        }
      }
      return;
    }
    parallel_for(0, outer, std::max<int64_t>(1, kGrain / std::max<int64_t>(r, 1)), [&](int64_t b, int64_t e) {
      for (int64_t oi = b; oi < e; ++oi) {
        const T* row = x + oi * r;
        if (sumlike) {
          o[oi] = finish(contiguous_sum(row, r));
        } else if (extreme) {
          o[oi] = row_extreme<T>(op, row, r);
        } else if (op == ReduceOp::Prod && !std::is_same_v<T, bool>) {
          o[oi] = contiguous_prod(row, r);
        } else {
          T acc = Ops<T>::init(op);
          for (int64_t j = 0; j < r; ++j) acc = combine(op, acc, row[j]);
          o[oi] = acc;
        }
      }
    });
    return;
  }
  // One wide slab reduced over its leading dim ([r, inner] -> [inner], e.g. sum(dim=0) of a
  // matrix): each thread sweeps a block of whole rows front to back into its own full-width
  // partial, so every row is read as one sequential stream; the partials are combined at the end.
  // (Column strips walked down all r rows instead read 1 KB per row at a stride of a row: a
  // prefetch and TLB miss every row, ~1.7x slower than numpy's row sweep at 4096 x 4096.)
  if constexpr (!std::is_same_v<T, bool>) {
  if (outer == 1 && inner >= 512 && inner <= 16384 && r >= 16 && (sumlike || extreme)) {
    int64_t blocks = std::max<int64_t>(1, std::min<int64_t>(num_threads(), r * inner / kGrain));
    int64_t per = (r + blocks - 1) / blocks;
    std::vector<std::vector<Acc<T>>> sums(static_cast<size_t>(sumlike ? blocks : 0));
    std::vector<std::vector<T>> extremes(static_cast<size_t>(sumlike ? 0 : blocks));
    parallel_for(0, blocks, 1, [&](int64_t b, int64_t e) {
      for (int64_t blk = b; blk < e; ++blk) {
        int64_t lo = blk * per, hi = std::min(r, lo + per);
        const T* base = x + lo * inner;
        if (sumlike) {
          auto& acc = sums[static_cast<size_t>(blk)];
          acc.assign(static_cast<size_t>(inner), Acc<T>(0));
          if constexpr (std::is_same_v<T, float>) {
            std::vector<float> part(static_cast<size_t>(inner));  // float lanes per 64 rows, then double
            for (int64_t j0 = lo; j0 < hi; j0 += 64) {
              int64_t j1 = std::min(hi, j0 + 64);
              std::fill(part.begin(), part.end(), 0.0f);
              float* __restrict pp = part.data();
              int64_t j = j0;
              for (; j + 4 <= j1; j += 4) {  // one load and store of the partial per 4 rows
                const float* __restrict r0 = x + j * inner;
                const float *__restrict r1 = r0 + inner, *__restrict r2 = r1 + inner, *__restrict r3 = r2 + inner;
                for (int64_t i = 0; i < inner; ++i) pp[i] += (r0[i] + r1[i]) + (r2[i] + r3[i]);
              }
              for (; j < j1; ++j) {
                const float* __restrict row = x + j * inner;
                for (int64_t i = 0; i < inner; ++i) pp[i] += row[i];
              }
              Acc<T>* ap = acc.data();
              for (int64_t i = 0; i < inner; ++i) ap[i] += pp[i];
            }
          } else {
            Acc<T>* ap = acc.data();
            for (int64_t j = lo; j < hi; ++j) {
              const T* row = x + j * inner;
              for (int64_t i = 0; i < inner; ++i) ap[i] += row[i];
            }
          }
        } else {
          auto& dst = extremes[static_cast<size_t>(blk)];
          dst.assign(static_cast<size_t>(inner), Ops<T>::init(op));
          if (hi > lo) rows_extreme<T>(op, dst.data(), base, hi - lo, inner, inner);
        }
      }
    });
    for (int64_t i = 0; i < inner; ++i) {
      if (sumlike) {
        Acc<T> s = 0;
        for (const auto& p : sums) s += p[static_cast<size_t>(i)];
        o[i] = finish(s);
      } else {
        T acc = extremes[0][static_cast<size_t>(i)];
        for (size_t k = 1; k < extremes.size(); ++k) acc = combine(op, acc, extremes[k][static_cast<size_t>(i)]);
        o[i] = acc;
      }
    }
    return;
  }
  }
  // inner > 1: accumulate whole rows (vectorised over inner)
  int64_t jobs = outer * ((inner + 255) / 256);
  int64_t ichunks = (inner + 255) / 256;
  parallel_for(0, jobs, std::max<int64_t>(1, kGrain / std::max<int64_t>(r * 256, 1)), [&](int64_t b, int64_t e) {
    std::vector<Acc<T>> acc(256);
    for (int64_t job = b; job < e; ++job) {
      int64_t oi = job / ichunks, i0 = (job % ichunks) * 256, i1 = std::min(inner, i0 + 256), w = i1 - i0;
      for (int64_t i = 0; i < w; ++i) acc[i] = sumlike ? Acc<T>(0) : Acc<T>(Ops<T>::init(op));
      const T* base = x + oi * r * inner + i0;
      if (sumlike) {
        if constexpr (std::is_same_v<T, float>) {
          // float lanes over blocks of 64 rows (full-width SIMD), each block added in double
          float part[256];
          for (int64_t j0 = 0; j0 < r; j0 += 64) {
            int64_t j1 = std::min(r, j0 + 64);
            for (int64_t i = 0; i < w; ++i) part[i] = 0.0f;
            for (int64_t j = j0; j < j1; ++j) {
              const float* row = base + j * inner;
              for (int64_t i = 0; i < w; ++i) part[i] += row[i];
            }
            for (int64_t i = 0; i < w; ++i) acc[i] += part[i];
          }
        } else {
          for (int64_t j = 0; j < r; ++j) {
            const T* row = base + j * inner;
            for (int64_t i = 0; i < w; ++i) acc[i] += row[i];
          }
        }
        for (int64_t i = 0; i < w; ++i) o[oi * inner + i0 + i] = finish(acc[i]);
      } else {
        T* dst = o + oi * inner + i0;
        for (int64_t i = 0; i < w; ++i) dst[i] = Ops<T>::init(op);
        if (extreme) {
          rows_extreme<T>(op, dst, base, r, inner, w);
        } else if (op == ReduceOp::Prod && !std::is_same_v<T, bool>) {
          using U = typename ProdLane<T>::type;  // the op's switch out of the loop, so it vectorises
          U* __restrict acc = reinterpret_cast<U*>(dst);
          for (int64_t j = 0; j < r; ++j) {
            const T* __restrict row = base + j * inner;
            for (int64_t i = 0; i < w; ++i) acc[i] = static_cast<U>(acc[i] * static_cast<U>(row[i]));
          }
        } else {
          for (int64_t j = 0; j < r; ++j) {
            const T* row = base + j * inner;
            for (int64_t i = 0; i < w; ++i) dst[i] = combine(op, dst[i], row[i]);
          }
        }
      }
    }
  });
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

void reduce(ReduceOp op, const Tensor& out, const Tensor& in, int64_t outer, int64_t r, int64_t inner) {
  if (on_cuda(out)) return cuda_kernels().reduce(op, out, in, outer, r, inner);  // NOTE [ Device dispatch ]
  visit_num(in.dtype(), [&](auto tag) { reduce_typed<decltype(tag)>(op, out, in, outer, r, inner); });
}

// Index of the first element of row[0, n) equal to v (bitwise-NaN-aware: v NaN finds the first
// NaN). The row is known to contain it.
template <class T>
int64_t find_first(const T* row, int64_t n, T v) {
  int64_t j = 0;
  bool nan = v != v;
#if defined(__AVX2__) && defined(__FMA__)
  if constexpr (std::is_same_v<T, float>) {
    __m256 t = _mm256_set1_ps(v);
    for (; j + 8 <= n; j += 8) {
      __m256 x = _mm256_loadu_ps(row + j);
      int m = _mm256_movemask_ps(nan ? _mm256_cmp_ps(x, x, _CMP_UNORD_Q) : _mm256_cmp_ps(x, t, _CMP_EQ_OQ));
      if (m) return j + __builtin_ctz(static_cast<unsigned>(m));
    }
  }
#endif
  for (; j < n; ++j)
    if (nan ? row[j] != row[j] : row[j] == v) return j;
  return 0;
}

template <class T, bool IsMax>
void arg_reduce_typed(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t outer, int64_t r,
                      int64_t inner) {
  const T* x = in.data<T>();
  T* v = values.defined() ? values.data<T>() : nullptr;
  int64_t* ix = indices.data<int64_t>();
  if (inner == 1) {
    // contiguous rows: the vectorised extreme, then a vectorised search for its first position
    parallel_for(0, outer, std::max<int64_t>(1, kGrain / std::max<int64_t>(r, 1)), [&](int64_t b, int64_t e) {
      for (int64_t oi = b; oi < e; ++oi) {
        const T* row = x + oi * r;
        int64_t bi;
        if constexpr (std::is_floating_point_v<T>) {
          bi = find_first(row, r, contiguous_extreme<T, IsMax>(row, r));
        } else {
          bi = 0;
          for (int64_t j = 1; j < r; ++j)
            if (IsMax ? row[j] > row[bi] : row[j] < row[bi]) bi = j;
        }
        if (v) v[oi] = row[bi];
        ix[oi] = bi;
      }
    });
    return;
  }
  // inner > 1: whole rows of up to 256 lanes at a time (contiguous loads, branch-free updates)
  constexpr int64_t kLanes = 256;
  int64_t ichunks = (inner + kLanes - 1) / kLanes;
  parallel_for(0, outer * ichunks, std::max<int64_t>(1, kGrain / std::max<int64_t>(r * kLanes, 1)), [&](int64_t b, int64_t e) {
    T best[kLanes];
    int64_t bi[kLanes];
    for (int64_t job = b; job < e; ++job) {
      int64_t oi = job / ichunks, i0 = (job % ichunks) * kLanes, w = std::min(inner, i0 + kLanes) - i0;
      const T* base = x + oi * r * inner + i0;
      for (int64_t i = 0; i < w; ++i) {
        best[i] = base[i];
        bi[i] = 0;
      }
      for (int64_t j = 1; j < r; ++j) {
        const T* row = base + j * inner;
        for (int64_t i = 0; i < w; ++i) {
          T val = row[i], cur = best[i];
          bool take = IsMax ? val > cur : val < cur;
          if constexpr (std::is_floating_point_v<T>) take = cur == cur && (take || val != val);
          best[i] = take ? val : cur;
          bi[i] = take ? j : bi[i];
        }
      }
      int64_t k0 = oi * inner + i0;
      if (v) std::memcpy(v + k0, best, static_cast<size_t>(w) * sizeof(T));
      std::memcpy(ix + k0, bi, static_cast<size_t>(w) * sizeof(int64_t));
    }
  });
}

void arg_reduce(bool is_max, const Tensor& values, const Tensor& indices, const Tensor& in, int64_t outer,
                int64_t r, int64_t inner) {
  if (on_cuda(indices)) return cuda_kernels().arg_reduce(is_max, values, indices, in, outer, r, inner);  // NOTE [ Device dispatch ]
  visit_num(in.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if (is_max) arg_reduce_typed<T, true>(values, indices, in, outer, r, inner);
    else arg_reduce_typed<T, false>(values, indices, in, outer, r, inner);
  });
}

#if defined(__AVX2__)
// Inclusive prefix sums of the 4 lanes: two shift-and-add steps.
inline __m256d prefix4(__m256d v) {
  __m256d s1 = _mm256_blend_pd(_mm256_permute4x64_pd(v, _MM_SHUFFLE(2, 1, 0, 0)), _mm256_setzero_pd(), 0x1);
  v = _mm256_add_pd(v, s1);                                  // v0, v0+v1, v1+v2, v2+v3
  return _mm256_add_pd(v, _mm256_permute2f128_pd(v, v, 0x08));  // + (0, 0, v0, v0+v1)
}
template <class T>
inline __m256d load4_as_double(const T* p) {
  if constexpr (std::is_same_v<T, float>) return _mm256_cvtps_pd(_mm_loadu_ps(p));
  else return _mm256_loadu_pd(p);
}
template <class T>
inline void store4_from_double(T* p, __m256d v) {
  if constexpr (std::is_same_v<T, float>) _mm_storeu_ps(p, _mm256_cvtpd_ps(v));
  else _mm256_storeu_pd(p, v);
}
#endif

// Running sum of one contiguous row in double. A serial sum is one dependent add per element
// (its latency, ~3 cycles); here each 8 elements are two in-register prefix sums, joined, and only
// the carry into the next 8 is serial: about four times the rate. The sums associate differently
// from a serial loop (a few ulps in double; float results round the same nearly always).
template <class T>
void cumsum_row(const T* x, T* o, int64_t r) {
  double carry = 0;
  int64_t j = 0;
#if defined(__AVX2__)
  __m256d c = _mm256_setzero_pd();
  for (; j + 8 <= r; j += 8) {
    __m256d a = prefix4(load4_as_double(x + j));
    __m256d b = prefix4(load4_as_double(x + j + 4));
    b = _mm256_add_pd(b, _mm256_permute4x64_pd(a, 0xFF));  // off the carry chain
    a = _mm256_add_pd(a, c);
    b = _mm256_add_pd(b, c);
    store4_from_double(o + j, a);
    store4_from_double(o + j + 4, b);
    c = _mm256_permute4x64_pd(b, 0xFF);
  }
  carry = _mm256_cvtsd_f64(c);
#endif
  for (; j < r; ++j) {
    carry += static_cast<double>(x[j]);
    o[j] = static_cast<T>(carry);
  }
}

void cumulative(bool prod, const Tensor& out, const Tensor& in, int64_t outer, int64_t r, int64_t inner) {
  if (on_cuda(out)) return cuda_kernels().cumulative(prod, out, in, outer, r, inner);  // NOTE [ Device dispatch ]
  visit_num(in.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* x = in.data<T>();
    T* o = out.data<T>();
    if constexpr (std::is_floating_point_v<T>) {
      if (!prod && inner == 1) {
        parallel_for(0, outer, std::max<int64_t>(1, kGrain / std::max<int64_t>(r, 1)), [&](int64_t b, int64_t e) {
          for (int64_t oi = b; oi < e; ++oi) cumsum_row(x + oi * r, o + oi * r, r);
        });
        return;
      }
    }
    if (inner > 1) {  // whole rows of up to 256 lanes: o[j] = o[j - 1] op x[j], contiguous and vectorised
      constexpr int64_t kLanes = 256;
      int64_t ichunks = (inner + kLanes - 1) / kLanes;
      parallel_for(0, outer * ichunks, std::max<int64_t>(1, kGrain / std::max<int64_t>(r * kLanes, 1)), [&](int64_t b, int64_t e) {
        Acc<T> acc[kLanes];
        for (int64_t job = b; job < e; ++job) {
          int64_t oi = job / ichunks, i0 = (job % ichunks) * kLanes, w = std::min(inner, i0 + kLanes) - i0;
          const T* p = x + oi * r * inner + i0;
          T* q = o + oi * r * inner + i0;
          for (int64_t i = 0; i < w; ++i) acc[i] = prod ? 1 : 0;
          for (int64_t j = 0; j < r; ++j) {
            const T* pj = p + j * inner;
            T* qj = q + j * inner;
            if (prod) {
              for (int64_t i = 0; i < w; ++i) {
                acc[i] = Acc<T>(acc[i] * pj[i]);
                qj[i] = static_cast<T>(acc[i]);
              }
            } else {
              for (int64_t i = 0; i < w; ++i) {
                acc[i] = Acc<T>(acc[i] + pj[i]);
                qj[i] = static_cast<T>(acc[i]);
              }
            }
          }
        }
      });
      return;
    }
    parallel_for(0, outer, std::max<int64_t>(1, kGrain / std::max<int64_t>(r, 1)), [&](int64_t b, int64_t e) {
      for (int64_t oi = b; oi < e; ++oi) {
        const T* p = x + oi * r;
        T* q = o + oi * r;
        Acc<T> acc = prod ? 1 : 0;
        for (int64_t j = 0; j < r; ++j) {
          acc = prod ? Acc<T>(acc * p[j]) : Acc<T>(acc + p[j]);
          q[j] = static_cast<T>(acc);
        }
      }
    });
  });
}

// The row's max as the shift for exp: a NaN stays (it poisons the row, as in torch), +-inf
// becomes 0 so exp(x - shift) is not inf - inf.
// exp(x[j] - shift) into dst[j] and their sum: the subtraction, then the unary exp span kernel
// (its AVX-512 copy where the CPU has one: twice the rate of exp_sum's 8-lane AVX2 body), then a
// lane-parallel sum, all while the row sits in L1/L2. dst is the output row (log_softmax's too,
// as scratch before it is overwritten).
template <class T>
Acc<T> row_exp_sum(const T* x, T* dst, int64_t n, T shift) {
  constexpr int64_t kChunk = 512;
  alignas(64) T shifted[kChunk];
  const bool wide = wide_unary_enabled();
  for (int64_t j0 = 0; j0 < n; j0 += kChunk) {
    int64_t k = std::min(kChunk, n - j0);
    for (int64_t j = 0; j < k; ++j) shifted[j] = x[j0 + j] - shift;
    if (wide) unary_span_wide(UnaryOp::Exp, dst + j0, shifted, k);
    else unary_span<T>(UnaryOp::Exp, dst + j0, shifted, k);
  }
  return contiguous_sum(dst, n);
}

template <class T>
inline T softmax_shift(T m) {
  if (std::isfinite(m)) return m;
  return (m != m) ? m : (m > 0 ? m : T(0));
}

// Softmax over the middle axis of [outer, r, inner], as ATen does it: per row, the max, then one
// fused pass that stores exp(x - max) and sums it, then a scale (log_softmax: the max, a fused
// exp-sum that stores nothing, then x - logsumexp). inner > 1 works on blocks of up to 256 lanes
// so both the outer rows and the lanes are spread over threads.
template <class T>
static void softmax_typed(const Tensor& out, const Tensor& in, int64_t outer, int64_t r, int64_t inner, bool log) {
  const T* x = in.data<T>();
  T* o = out.data<T>();
  if (inner == 1) {
    parallel_for(0, outer, std::max<int64_t>(1, kGrain / std::max<int64_t>(4 * r, 1)), [&](int64_t b, int64_t e) {
      for (int64_t oi = b; oi < e; ++oi) {
        const T* row = x + oi * r;
        T* dst = o + oi * r;
        T m = softmax_shift(contiguous_extreme<T, true>(row, r));
        if (log) {
          Acc<T> sum = row_exp_sum(row, dst, r, m);
          T lse = m + static_cast<T>(std::log(sum));
          for (int64_t j = 0; j < r; ++j) dst[j] = row[j] - lse;
        } else {
          T inv = static_cast<T>(1.0 / row_exp_sum(row, dst, r, m));
          for (int64_t j = 0; j < r; ++j) dst[j] *= inv;
        }
      }
    });
    return;
  }
  constexpr int64_t kLanes = 64;  // a job reads and writes r x 64 lanes three times: kept within L2
  int64_t ichunks = (inner + kLanes - 1) / kLanes;
  parallel_for(0, outer * ichunks, std::max<int64_t>(1, kGrain / std::max<int64_t>(4 * r * kLanes, 1)), [&](int64_t b, int64_t e) {
    T mx[kLanes];
    Acc<T> sm[kLanes];
    for (int64_t job = b; job < e; ++job) {
      int64_t oi = job / ichunks, i0 = (job % ichunks) * kLanes, w = std::min(inner, i0 + kLanes) - i0;
      const T* base = x + oi * r * inner + i0;
      T* dst = o + oi * r * inner + i0;
      for (int64_t i = 0; i < w; ++i) {
        mx[i] = -std::numeric_limits<T>::infinity();
        sm[i] = 0;
      }
      rows_extreme<T>(ReduceOp::Max, mx, base, r, inner, w);
      for (int64_t i = 0; i < w; ++i) mx[i] = softmax_shift(mx[i]);
      // exp sums in T lanes over blocks of 64 rows (full-width SIMD), each block added into Acc
      T part[kLanes];
      for (int64_t j0 = 0; j0 < r; j0 += 64) {
        int64_t j1 = std::min(r, j0 + 64);
        for (int64_t i = 0; i < w; ++i) part[i] = 0;
        for (int64_t j = j0; j < j1; ++j) {
          const T* row = base + j * inner;
          T* d = dst + j * inner;
          if (log) lanes_exp_acc<false>(part, row, mx, d, w);
          else lanes_exp_acc<true>(part, row, mx, d, w);
        }
        for (int64_t i = 0; i < w; ++i) sm[i] += part[i];
      }
      if (log) {
        for (int64_t i = 0; i < w; ++i) mx[i] += static_cast<T>(std::log(sm[i]));
        for (int64_t j = 0; j < r; ++j)
          for (int64_t i = 0; i < w; ++i) dst[j * inner + i] = base[j * inner + i] - mx[i];
      } else {
        for (int64_t i = 0; i < w; ++i) mx[i] = static_cast<T>(1.0 / sm[i]);
        for (int64_t j = 0; j < r; ++j)
          for (int64_t i = 0; i < w; ++i) dst[j * inner + i] *= mx[i];
      }
    }
  });
}

void softmax(const Tensor& out, const Tensor& in, int64_t outer, int64_t r, int64_t inner, bool log) {
  if (on_cuda(out)) return cuda_kernels().softmax(out, in, outer, r, inner, log);  // NOTE [ Device dispatch ]
  if (in.dtype() == DType::Float32) return softmax_typed<float>(out, in, outer, r, inner, log);
  if (in.dtype() == DType::Float64) return softmax_typed<double>(out, in, outer, r, inner, log);
  throw TypeError("[softmax] needs a floating point tensor");
}

// log(sum(exp(x))) = m + log(sum(exp(x - m))) with m the max: NaN anywhere gives NaN, an
// infinite max is the answer itself. Rows (inner == 1) use the fused vector exp-sum; inner > 1
// works on blocks of up to 256 lanes.
template <class T>
static void logsumexp_typed(const Tensor& out, const Tensor& in, int64_t outer, int64_t r, int64_t inner) {
  const T* x = in.data<T>();
  T* o = out.data<T>();
  if (inner == 1) {
    parallel_for(0, outer, std::max<int64_t>(1, kGrain / std::max<int64_t>(2 * r, 1)), [&](int64_t b, int64_t e) {
      for (int64_t oi = b; oi < e; ++oi) {
        const T* row = x + oi * r;
        T m = contiguous_extreme<T, true>(row, r);
        o[oi] = (m != m || std::isinf(m)) ? m : m + static_cast<T>(std::log(exp_sum(row, r, m)));
      }
    });
    return;
  }
  constexpr int64_t kLanes = 256;
  int64_t ichunks = (inner + kLanes - 1) / kLanes;
  parallel_for(0, outer * ichunks, std::max<int64_t>(1, kGrain / std::max<int64_t>(2 * r * kLanes, 1)), [&](int64_t b, int64_t e) {
    T mx[kLanes], sh[kLanes];
    Acc<T> sm[kLanes];
    for (int64_t job = b; job < e; ++job) {
      int64_t oi = job / ichunks, i0 = (job % ichunks) * kLanes, w = std::min(inner, i0 + kLanes) - i0;
      const T* base = x + oi * r * inner + i0;
      for (int64_t i = 0; i < w; ++i) {
        mx[i] = -std::numeric_limits<T>::infinity();
        sm[i] = 0;
      }
      rows_extreme<T>(ReduceOp::Max, mx, base, r, inner, w);
      for (int64_t i = 0; i < w; ++i) sh[i] = std::isfinite(mx[i]) ? mx[i] : T(0);
      T part[kLanes];
      for (int64_t j0 = 0; j0 < r; j0 += 64) {
        int64_t j1 = std::min(r, j0 + 64);
        for (int64_t i = 0; i < w; ++i) part[i] = 0;
        for (int64_t j = j0; j < j1; ++j) {
          const T* row = base + j * inner;
          lanes_exp_acc<false>(part, row, sh, static_cast<T*>(nullptr), w);
        }
        for (int64_t i = 0; i < w; ++i) sm[i] += part[i];
      }
      T* dst = o + oi * inner + i0;
      for (int64_t i = 0; i < w; ++i)
        dst[i] = (mx[i] != mx[i] || std::isinf(mx[i])) ? mx[i] : mx[i] + static_cast<T>(std::log(sm[i]));
    }
  });
}

void logsumexp(const Tensor& out, const Tensor& in, int64_t outer, int64_t r, int64_t inner) {
  if (on_cuda(out)) return cuda_kernels().logsumexp(out, in, outer, r, inner);  // NOTE [ Device dispatch ]
  if (in.dtype() == DType::Float32) return logsumexp_typed<float>(out, in, outer, r, inner);
  if (in.dtype() == DType::Float64) return logsumexp_typed<double>(out, in, outer, r, inner);
  throw TypeError("[logsumexp] needs a floating point tensor");
}

void variance(const Tensor& out, const Tensor& in, int64_t outer, int64_t r, int64_t inner, double correction, bool sd) {
  if (on_cuda(out)) {  // NOTE [ Device dispatch ]
    cuda_kernels().variance(out, in, outer, r, inner, correction);
    if (sd) unary(UnaryOp::Sqrt, out, out);
    return;
  }
  // the root is taken in double: a float32 std of 1e20-sized values is finite, its variance not
  auto fin = [sd](double v) { return sd ? std::sqrt(v) : v; };
  // Two passes (mean, then the sum of squared deviations, both in double): as accurate as
  // Welford and, with independent lanes, as fast as a plain sum.
  auto run = [&](auto tag) {
    using T = decltype(tag);
    const T* x = in.data<T>();
    T* o = out.data<T>();
    double denom = std::max(0.0, static_cast<double>(r) - correction);
    if (inner == 1 && outer < num_threads() && r > kGrain) {
      // few long rows (a full reduction): split each row across the threads, pass by pass
      int nt = num_threads();
      int64_t per = (r + nt - 1) / nt;
      std::vector<double> part(static_cast<size_t>(nt));
      for (int64_t oi = 0; oi < outer; ++oi) {
        const T* row = x + oi * r;
        auto split = [&](auto&& f) {
          std::fill(part.begin(), part.end(), 0.0);
          parallel_for(0, nt, 1, [&](int64_t b, int64_t e) {
            for (int64_t t = b; t < e; ++t) {
              int64_t lo = t * per, hi = std::min(r, lo + per);
              if (lo < hi) part[static_cast<size_t>(t)] = f(row + lo, hi - lo);
            }
          });
          double s = 0;
          for (double v : part) s += v;
          return s;
        };
        double mean = split([](const T* p, int64_t n) { return static_cast<double>(contiguous_sum(p, n)); }) / static_cast<double>(r);
        double ss = split([mean](const T* p, int64_t n) { return contiguous_sqdev(p, n, mean); });
        o[oi] = static_cast<T>(fin(ss / denom));  // IEEE: inf or nan when denom is 0, like torch
      }
      return;
    }
    if (inner > 1) {
      // columns in chunks of 256, each pass sweeping whole rows (a column walk would read a cache
      // line per element)
      constexpr int64_t C = 256;
      int64_t ichunks = (inner + C - 1) / C;
      parallel_for(0, outer * ichunks, std::max<int64_t>(1, kGrain / std::max<int64_t>(2 * r * C, 1)), [&](int64_t b, int64_t e) {
        double mean[C], ss[C];
        for (int64_t job = b; job < e; ++job) {
          int64_t oi = job / ichunks, i0 = (job % ichunks) * C, w = std::min(inner, i0 + C) - i0;
          const T* base = x + oi * r * inner + i0;
          std::fill(mean, mean + w, 0.0);
          std::fill(ss, ss + w, 0.0);
          for (int64_t j = 0; j < r; ++j) {
            const T* __restrict row = base + j * inner;
            for (int64_t i = 0; i < w; ++i) mean[i] += static_cast<double>(row[i]);
          }
          for (int64_t i = 0; i < w; ++i) mean[i] /= static_cast<double>(r);
          for (int64_t j = 0; j < r; ++j) {
            const T* __restrict row = base + j * inner;
            for (int64_t i = 0; i < w; ++i) {
              double d = static_cast<double>(row[i]) - mean[i];
              ss[i] += d * d;
            }
          }
          for (int64_t i = 0; i < w; ++i) o[oi * inner + i0 + i] = static_cast<T>(fin(ss[i] / denom));
        }
      });
      return;
    }
    // inner == 1: one contiguous row per output
    parallel_for(0, outer, std::max<int64_t>(1, kGrain / std::max<int64_t>(2 * r, 1)), [&](int64_t b, int64_t e) {
      for (int64_t oi = b; oi < e; ++oi) {
        const T* p = x + oi * r;
        double mean = static_cast<double>(contiguous_sum(p, r)) / static_cast<double>(r);
        o[oi] = static_cast<T>(fin(contiguous_sqdev(p, r, mean) / denom));  // IEEE: inf or nan when denom is 0, like torch
      }
    });
  };
  if (in.dtype() == DType::Float32) return run(float{});
  if (in.dtype() == DType::Float64) return run(double{});
  throw TypeError("[var] needs a floating point tensor");
}

void norm2(const Tensor& out, const Tensor& in, int64_t outer, int64_t r, int64_t inner) {
  auto run = [&](auto tag) {
    using T = decltype(tag);
    const T* x = in.data<T>();
    T* o = out.data<T>();
    if (inner == 1 && outer < num_threads() && r > kGrain) {  // few long rows: split each across the threads
      int nt = num_threads();
      int64_t per = (r + nt - 1) / nt;
      std::vector<double> part(static_cast<size_t>(nt));
      for (int64_t oi = 0; oi < outer; ++oi) {
        const T* row = x + oi * r;
        std::fill(part.begin(), part.end(), 0.0);
        parallel_for(0, nt, 1, [&](int64_t b, int64_t e) {
          for (int64_t t = b; t < e; ++t) {
            int64_t lo = t * per, hi = std::min(r, lo + per);
            if (lo < hi) part[static_cast<size_t>(t)] = contiguous_sumsq(row + lo, hi - lo);
          }
        });
        double s = 0;
        for (double v : part) s += v;
        o[oi] = static_cast<T>(std::sqrt(s));
      }
      return;
    }
    if (inner == 1) {
      parallel_for(0, outer, std::max<int64_t>(1, kGrain / std::max<int64_t>(r, 1)), [&](int64_t b, int64_t e) {
        for (int64_t oi = b; oi < e; ++oi) o[oi] = static_cast<T>(std::sqrt(contiguous_sumsq(x + oi * r, r)));
      });
      return;
    }
    // inner > 1: whole rows of the slab accumulated into a double row per outer index
    parallel_for(0, outer, std::max<int64_t>(1, kGrain / std::max<int64_t>(r * inner, 1)), [&](int64_t b, int64_t e) {
      std::vector<double> acc(static_cast<size_t>(inner));
      for (int64_t oi = b; oi < e; ++oi) {
        std::fill(acc.begin(), acc.end(), 0.0);
        double* __restrict a = acc.data();
        for (int64_t j = 0; j < r; ++j) {
          const T* __restrict row = x + (oi * r + j) * inner;
          for (int64_t i = 0; i < inner; ++i) a[i] += static_cast<double>(row[i]) * static_cast<double>(row[i]);
        }
        for (int64_t i = 0; i < inner; ++i) o[oi * inner + i] = static_cast<T>(std::sqrt(a[i]));
      }
    });
  };
  if (in.dtype() == DType::Float32) return run(float{});
  if (in.dtype() == DType::Float64) return run(double{});
  throw TypeError("[norm] needs a float32 or float64 tensor");
}

void layer_norm(const Tensor& out, const Tensor& in, const Tensor* w, const Tensor* b, int64_t rows, int64_t cols,
                double eps) {
  if (on_cuda(out)) return cuda_kernels().layer_norm(out, in, w, b, rows, cols, eps);  // NOTE [ Device dispatch ]
  auto run = [&](auto tag) {
    using T = decltype(tag);
    const T* x = in.data<T>();
    T* o = out.data<T>();
    const T* wp = w ? w->data<T>() : nullptr;
    const T* bp = b ? b->data<T>() : nullptr;
    parallel_for(0, rows, std::max<int64_t>(1, kGrain / std::max<int64_t>(3 * cols, 1)), [&](int64_t rb, int64_t re) {
      for (int64_t i = rb; i < re; ++i) {
        const T* row = x + i * cols;
        T* dst = o + i * cols;
        double mean = static_cast<double>(contiguous_sum(row, cols)) / static_cast<double>(cols);
        T mf = static_cast<T>(mean);
        double ss;
        if constexpr (std::is_same_v<T, float>) ss = contiguous_sqdev_lanes(row, cols, mf);
        else ss = contiguous_sqdev(row, cols, mean);
        T rstd = static_cast<T>(1.0 / std::sqrt(ss / static_cast<double>(cols) + eps));
        if (wp && bp) for (int64_t j = 0; j < cols; ++j) dst[j] = (row[j] - mf) * rstd * wp[j] + bp[j];
        else if (wp) for (int64_t j = 0; j < cols; ++j) dst[j] = (row[j] - mf) * rstd * wp[j];
        else if (bp) for (int64_t j = 0; j < cols; ++j) dst[j] = (row[j] - mf) * rstd + bp[j];
        else for (int64_t j = 0; j < cols; ++j) dst[j] = (row[j] - mf) * rstd;
      }
    });
  };
  if (in.dtype() == DType::Float32) return run(float{});
  if (in.dtype() == DType::Float64) return run(double{});
  throw TypeError("[layer_norm] needs a floating point tensor");
}

}  // namespace tt::cpu
