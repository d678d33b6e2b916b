// Row-wise kernels over the middle axis of a contiguous [outer, r, inner] block (softmax /
// log_softmax, logsumexp) and over the rows of a [rows, cols] matrix (layer_norm).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "reduce_lanes.h"
#include "row_exp.h"

namespace tt::cpu {
namespace {

// sum_j exp(x[j] - shift) over n contiguous values, storing nothing (logsumexp: no row to write;
// softmax stores its exps and uses row_exp_sum, row_exp.h). Float lanes flushed into a double every 2048
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

}  // namespace

// The row's max as the shift for exp: a NaN stays (it poisons the row, as in torch), +-inf
// becomes 0 so exp(x - shift) is not inf - inf.
template <class T>
inline T softmax_shift(T m) {
  if (std::isfinite(m)) return m;
  return (m != m) ? m : (m > 0 ? m : T(0));
}

// Softmax over the middle axis of [outer, r, inner], as ATen does it: per row, the max, then one
// fused pass that stores exp(x - max) and sums it, then a scale (log_softmax: the max, a fused
// exp-sum that stores nothing, then (x - max) - log(sum)). inner > 1 works on blocks of up to 256 lanes
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
          // (x - m) - log(sum), as torch: x - (m + log(sum)) rounds log(sum) away when |m| is large
          T ls = static_cast<T>(std::log(row_exp_sum(row, dst, r, m)));
          for (int64_t j = 0; j < r; ++j) dst[j] = (row[j] - m) - ls;
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
      if (log) {  // (x - m) - log(sum), as the rows above
        for (int64_t i = 0; i < w; ++i) part[i] = static_cast<T>(std::log(sm[i]));
        for (int64_t j = 0; j < r; ++j)
          for (int64_t i = 0; i < w; ++i) dst[j * inner + i] = (base[j * inner + i] - mx[i]) - part[i];
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
