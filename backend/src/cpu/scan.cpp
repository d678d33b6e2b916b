// Scan kernels over the middle axis of a contiguous [outer, r, inner] block: cumsum and cumprod.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "reduce_lanes.h"

namespace tt::cpu {

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

}  // namespace tt::cpu
