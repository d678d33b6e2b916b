// Reduction kernels over the middle axis of a contiguous [outer, r, inner] block.
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

// Sum of n contiguous floats: 4 x 8 float lanes (vector extensions: the auto-vectoriser only
// managed one of two loops here), flushed into a double every 2048 elements so long rows keep
// double-like accuracy.
template <class T>
Acc<T> contiguous_sum(const T* x, int64_t n) {
  if constexpr (std::is_same_v<T, float>) {
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
        a0 += v0;
        a1 += v1;
        a2 += v2;
        a3 += v3;
      }
      V a = (a0 + a1) + (a2 + a3);
      double s = 0;
      for (int k = 0; k < 8; ++k) s += a[k];
      total += s;
    }
    for (; j < n; ++j) total += x[j];
    return total;
  } else if constexpr (std::is_same_v<T, double>) {
    double acc[8] = {0};
    int64_t j = 0;
    for (; j + 8 <= n; j += 8)
      for (int k = 0; k < 8; ++k) acc[k] += x[j + k];
    double s = 0;
    for (int k = 0; k < 8; ++k) s += acc[k];
    for (; j < n; ++j) s += x[j];
    return s;
  } else {
    Acc<T> s = 0;
    for (int64_t j = 0; j < n; ++j) s += x[j];
    return s;
  }
}

// Max (or min) of n contiguous floating values; a NaN anywhere wins, as in torch. Written with
// GCC/Clang vector extensions: a compare-and-select reduction with NaN semantics is not something
// the auto-vectoriser will do on its own, and this is the inner loop of amax/max and softmax.
template <class T, bool IsMax>
T contiguous_extreme(const T* x, int64_t n) {
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
        } else {
          T acc = Ops<T>::init(op);
          for (int64_t j = 0; j < r; ++j) acc = combine(op, acc, row[j]);
          o[oi] = acc;
        }
      }
    });
    return;
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
        for (int64_t j = 0; j < r; ++j) {
          const T* row = base + j * inner;
          if (extreme) {
            lanes_extreme<T>(op, dst, row, w);
          } else {
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

template <class T>
bool better(bool is_max, T x, T best) {
  if constexpr (std::is_floating_point_v<T>) {
    if (best != best) return false;
    if (x != x) return true;
  }
  return is_max ? x > best : x < best;
}

}  // namespace

void reduce(ReduceOp op, const Tensor& out, const Tensor& in, int64_t outer, int64_t r, int64_t inner) {
  if (on_cuda(out)) return cuda_kernels().reduce(op, out, in, outer, r, inner);  // NOTE [ Device dispatch ]
  visit_num(in.dtype(), [&](auto tag) { reduce_typed<decltype(tag)>(op, out, in, outer, r, inner); });
}

void arg_reduce(bool is_max, const Tensor& values, const Tensor& indices, const Tensor& in, int64_t outer,
                int64_t r, int64_t inner) {
  if (on_cuda(indices)) return cuda_kernels().arg_reduce(is_max, values, indices, in, outer, r, inner);  // NOTE [ Device dispatch ]
  visit_num(in.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* x = in.data<T>();
    T* v = values.defined() ? values.data<T>() : nullptr;
    int64_t* ix = indices.data<int64_t>();
    parallel_for(0, outer * inner, std::max<int64_t>(1, kGrain / std::max<int64_t>(r, 1)), [&](int64_t b, int64_t e) {
      for (int64_t k = b; k < e; ++k) {
        int64_t oi = k / inner, ii = k % inner;
        const T* p = x + oi * r * inner + ii;
        T best = p[0];
        int64_t bi = 0;
        for (int64_t j = 1; j < r; ++j) {
          T val = p[j * inner];
          if (better(is_max, val, best)) {
            best = val;
            bi = j;
          }
        }
        if (v) v[k] = best;
        ix[k] = bi;
      }
    });
  });
}

void cumulative(bool prod, const Tensor& out, const Tensor& in, int64_t outer, int64_t r, int64_t inner) {
  if (on_cuda(out)) return cuda_kernels().cumulative(prod, out, in, outer, r, inner);  // NOTE [ Device dispatch ]
  visit_num(in.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* x = in.data<T>();
    T* o = out.data<T>();
    parallel_for(0, outer * inner, std::max<int64_t>(1, kGrain / std::max<int64_t>(r, 1)), [&](int64_t b, int64_t e) {
      for (int64_t k = b; k < e; ++k) {
        int64_t oi = k / inner, ii = k % inner;
        const T* p = x + oi * r * inner + ii;
        T* q = o + oi * r * inner + ii;
        Acc<T> acc = prod ? 1 : 0;
        for (int64_t j = 0; j < r; ++j) {
          acc = prod ? Acc<T>(acc * p[j * inner]) : Acc<T>(acc + p[j * inner]);
          q[j * inner] = static_cast<T>(acc);
        }
      }
    });
  });
}

template <class T>
static void softmax_typed(const Tensor& out, const Tensor& in, int64_t outer, int64_t r, int64_t inner, bool log) {
  const T* x = in.data<T>();
  T* o = out.data<T>();
  if (inner == 1) {
    parallel_for(0, outer, std::max<int64_t>(1, kGrain / std::max<int64_t>(4 * r, 1)), [&](int64_t b, int64_t e) {
      for (int64_t oi = b; oi < e; ++oi) {
        const T* row = x + oi * r;
        T* dst = o + oi * r;
        T m = contiguous_extreme<T, true>(row, r);
        if (!std::isfinite(m)) m = (m != m) ? m : (m > 0 ? m : T(0));
        if (log) {
          for (int64_t j = 0; j < r; ++j) dst[j] = vexp(row[j] - m);  // dst as scratch
          T lse = m + static_cast<T>(std::log(contiguous_sum(dst, r)));
          for (int64_t j = 0; j < r; ++j) dst[j] = row[j] - lse;
        } else {
          for (int64_t j = 0; j < r; ++j) dst[j] = vexp(row[j] - m);
          Acc<T> s = contiguous_sum(dst, r);
          T inv = static_cast<T>(1.0 / s);
          for (int64_t j = 0; j < r; ++j) dst[j] *= inv;
        }
      }
    });
    return;
  }
  parallel_for(0, outer, std::max<int64_t>(1, kGrain / std::max<int64_t>(4 * r * inner, 1)), [&](int64_t b, int64_t e) {
    std::vector<T> mx(static_cast<size_t>(inner));
    std::vector<Acc<T>> sm(static_cast<size_t>(inner));
    for (int64_t oi = b; oi < e; ++oi) {
      const T* base = x + oi * r * inner;
      T* dst = o + oi * r * inner;
      std::fill(mx.begin(), mx.end(), -std::numeric_limits<T>::infinity());
      std::fill(sm.begin(), sm.end(), Acc<T>(0));
      for (int64_t j = 0; j < r; ++j)
        for (int64_t i = 0; i < inner; ++i) mx[i] = base[j * inner + i] > mx[i] ? base[j * inner + i] : mx[i];
      for (int64_t i = 0; i < inner; ++i)
        if (!std::isfinite(mx[i])) mx[i] = (mx[i] != mx[i]) ? mx[i] : (mx[i] > 0 ? mx[i] : T(0));
      for (int64_t j = 0; j < r; ++j)
        for (int64_t i = 0; i < inner; ++i) {
          T ev = vexp(base[j * inner + i] - mx[i]);
          if (!log) dst[j * inner + i] = ev;
          sm[i] += ev;
        }
      if (log) {
        for (int64_t i = 0; i < inner; ++i) mx[i] += static_cast<T>(std::log(sm[i]));
        for (int64_t j = 0; j < r; ++j)
          for (int64_t i = 0; i < inner; ++i) dst[j * inner + i] = base[j * inner + i] - mx[i];
      } else {
        for (int64_t i = 0; i < inner; ++i) mx[i] = static_cast<T>(1.0 / sm[i]);
        for (int64_t j = 0; j < r; ++j)
          for (int64_t i = 0; i < inner; ++i) dst[j * inner + i] *= mx[i];
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

void logsumexp(const Tensor& out, const Tensor& in, int64_t outer, int64_t r, int64_t inner) {
  if (on_cuda(out)) return cuda_kernels().logsumexp(out, in, outer, r, inner);  // NOTE [ Device dispatch ]
  auto run = [&](auto tag) {
    using T = decltype(tag);
    const T* x = in.data<T>();
    T* o = out.data<T>();
    parallel_for(0, outer * inner, std::max<int64_t>(1, kGrain / std::max<int64_t>(r, 1)), [&](int64_t b, int64_t e) {
      for (int64_t k = b; k < e; ++k) {
        int64_t oi = k / inner, ii = k % inner;
        const T* p = x + oi * r * inner + ii;
        T m = -std::numeric_limits<T>::infinity();
        bool nan = false;
        for (int64_t j = 0; j < r; ++j) {
          T v = p[j * inner];
          if (v != v) nan = true;
          m = v > m ? v : m;
        }
        if (nan) { o[k] = std::numeric_limits<T>::quiet_NaN(); continue; }
        if (std::isinf(m)) { o[k] = m; continue; }
        Acc<T> s = 0;
        for (int64_t j = 0; j < r; ++j) s += vexp(p[j * inner] - m);
        o[k] = m + static_cast<T>(std::log(s));
      }
    });
  };
  if (in.dtype() == DType::Float32) return run(float{});
  if (in.dtype() == DType::Float64) return run(double{});
  throw TypeError("[logsumexp] needs a floating point tensor");
}

void variance(const Tensor& out, const Tensor& in, int64_t outer, int64_t r, int64_t inner, double correction) {
  if (on_cuda(out)) return cuda_kernels().variance(out, in, outer, r, inner, correction);  // NOTE [ Device dispatch ]
  auto run = [&](auto tag) {
    using T = decltype(tag);
    const T* x = in.data<T>();
    T* o = out.data<T>();
    double denom = std::max(0.0, static_cast<double>(r) - correction);
    parallel_for(0, outer * inner, std::max<int64_t>(1, kGrain / std::max<int64_t>(2 * r, 1)), [&](int64_t b, int64_t e) {
      for (int64_t k = b; k < e; ++k) {
        int64_t oi = k / inner, ii = k % inner;
        const T* p = x + oi * r * inner + ii;
        double mean = 0;
        if (inner == 1) mean = static_cast<double>(contiguous_sum(p, r));
        else for (int64_t j = 0; j < r; ++j) mean += p[j * inner];
        mean /= static_cast<double>(r);
        double ss = 0;
        for (int64_t j = 0; j < r; ++j) {
          double d = p[j * inner] - mean;
          ss += d * d;
        }
        o[k] = static_cast<T>(ss / denom);  // IEEE: inf or nan when denom is 0, like torch
      }
    });
  };
  if (in.dtype() == DType::Float32) return run(float{});
  if (in.dtype() == DType::Float64) return run(double{});
  throw TypeError("[var] needs a floating point tensor");
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
        Acc<T> ss = 0;
        for (int64_t j = 0; j < cols; ++j) {
          T d = row[j] - mf;
          ss += d * d;
        }
        T rstd = static_cast<T>(1.0 / std::sqrt(static_cast<double>(ss) / static_cast<double>(cols) + eps));
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
