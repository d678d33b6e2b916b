// Reduction kernels over the middle axis of a contiguous [outer, r, inner] block: sum / mean / prod /
// max / min / all / any, arg-reductions, variance and the 2-norm.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "reduce_lanes.h"

namespace tt::cpu {
namespace {

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

void variance(const Tensor& out, const Tensor& in, int64_t outer, int64_t r, int64_t inner, double correction, bool sd) {
  if (on_cuda(out)) return cuda_kernels().variance(out, in, outer, r, inner, correction, sd);  // NOTE [ Device dispatch ]
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

}  // namespace tt::cpu
