// conv2d (im2col + BLAS GEMM) and 2-d pooling. Inputs are contiguous NCHW.
#include <cblas.h>
#ifdef __AVX2__
#include <immintrin.h>
#endif

#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "../core/cpu_allocator.h"
#include "im2col.h"
#include "half_run.h"
#include "kernels.h"
#include "typedtensor/blas.h"
#include "parallel.h"
#include "vmath.h"

namespace tt::cpu {
namespace {

template <class T>
void gemm(int64_t m, int64_t n, int64_t k, const T* a, const T* b, T* c) {
  blas_gemm<T>(false, false, m, n, k, a, k, b, n, T(0), c, n);  // serial inside parallel_for
}

template <class T>
void conv2d_typed(const Tensor& out, const Tensor& x, const Tensor& wt, const Tensor* bias, int64_t sh, int64_t sw,
                  int64_t ph, int64_t pw, int64_t dh, int64_t dw, int64_t groups) {
  int64_t n = x.size(0), c = x.size(1), h = x.size(2), w = x.size(3);
  int64_t o = wt.size(0), kh = wt.size(2), kw = wt.size(3);
  int64_t oh = out.size(2), ow = out.size(3);
  int64_t cg = c / groups, og = o / groups, kk = cg * kh * kw, sp = oh * ow;
  const T* px = x.data<T>();
  const T* pwt = wt.data<T>();
  const T* pb = bias ? bias->data<T>() : nullptr;
  T* po = out.data<T>();
  bool direct = kh == 1 && kw == 1 && sh == 1 && sw == 1 && ph == 0 && pw == 0;
  // im2col in tiles of whole output rows whose columns fit in ~256 KB, each followed by its GEMM
  // while the tile is still in L2 (a whole image's columns, kk x oh ow, are megabytes).
  int64_t tile_rows = std::max<int64_t>(1, std::min<int64_t>(oh, (int64_t{1} << 18) / std::max<int64_t>(kk * ow, 1)));
  int64_t tile_cols = tile_rows * ow;
  auto one = [&](int64_t ni, CpuScratch<T>& col) {
    for (int64_t g = 0; g < groups; ++g) {
      const T* xg = px + (ni * c + g * cg) * h * w;
      T* dst = po + (ni * o + g * og) * sp;
      if (direct) {
        gemm<T>(og, sp, kk, pwt + g * og * kk, xg, dst);
      } else {
        for (int64_t oy0 = 0; oy0 < oh; oy0 += tile_rows) {
          int64_t oy1 = std::min(oh, oy0 + tile_rows), cols = (oy1 - oy0) * ow;
          im2col_rows(xg, cg, h, w, kh, kw, sh, sw, ph, pw, dh, dw, oy0, oy1, ow, col.data());
          blas_gemm<T>(false, false, og, cols, kk, pwt + g * og * kk, kk, col.data(), cols, T(0), dst + oy0 * ow, sp);
        }
      }
      if (pb)
        for (int64_t oc = 0; oc < og; ++oc) {
          T bv = pb[g * og + oc];
          T* row = dst + oc * sp;
          for (int64_t i = 0; i < sp; ++i) row[i] += bv;
        }
    }
  };
  // samples [n0, n0 + m) as one sample block (NOTE [ Sample blocks ] in im2col.h): their columns side
  // by side in `col`, one GEMM into `prod` [og, m sp], then each sample's rows copied into place
  auto block = [&](int64_t n0, int64_t m, CpuScratch<T>& col, CpuScratch<T>& prod) {
    const int64_t cols = m * sp;
    for (int64_t g = 0; g < groups; ++g) {
      for (int64_t b = 0; b < m; ++b)
        im2col_rows(px + ((n0 + b) * c + g * cg) * h * w, cg, h, w, kh, kw, sh, sw, ph, pw, dh, dw, int64_t(0), oh, ow,
                    col.data() + b * sp, cols);
      blas_gemm<T>(false, false, og, cols, kk, pwt + g * og * kk, kk, col.data(), cols, T(0), prod.data(), cols);
      for (int64_t b = 0; b < m; ++b)
        for (int64_t oc = 0; oc < og; ++oc) {
          const T* __restrict src = prod.data() + oc * cols + b * sp;
          T* __restrict row = po + ((n0 + b) * o + g * og + oc) * sp;
          const T bv = pb ? pb[g * og + oc] : T(0);
          for (int64_t i = 0; i < sp; ++i) row[i] = src[i] + bv;
        }
    }
  };
  int nt = num_threads();
  const bool threads = n >= nt && nt > 1;  // one sample per thread (BLAS is single-threaded: NOTE [ One thread pool ])
  // sample blocks where one sample's columns already outgrow L2 (NOTE [ Sample blocks ] in im2col.h)
  const bool blocks = !direct && tile_rows == oh && kk * sp * static_cast<int64_t>(sizeof(T)) >= kBlockColumnBytes;
  const int64_t nb = blocks ? sample_block(sp, threads ? (n + nt - 1) / nt : n) : 1;
  auto samples = [&](int64_t lo, int64_t hi) {
    if (nb > 1) {
      CpuScratch<T> col(static_cast<size_t>(kk * sp * nb)), prod(static_cast<size_t>(og * sp * nb));
      for (int64_t n0 = lo; n0 < hi; n0 += nb) block(n0, std::min(nb, hi - n0), col, prod);
      return;
    }
    CpuScratch<T> col(direct ? 0 : static_cast<size_t>(kk * tile_cols));
    for (int64_t ni = lo; ni < hi; ++ni) one(ni, col);
  };
  if (threads) parallel_for(0, n, 1, samples);
  else samples(0, n);
}

// NOTE [ bfloat16 convolution ]
// Where the BLAS multiplies bfloat16 (blas_has_bf16_gemm(): MKL, AMX on Sapphire Rapids and later;
// NOTE [ bfloat16 GEMM ] in gemm.cpp) a bfloat16 conv2d stays bfloat16: im2col writes bfloat16
// columns, the GEMM accumulates in a float32 tile prefilled with the bias (beta = 1), and the tile
// is rounded once to bfloat16 (nearest even) while it is still in cache -- the float32 sum of
// bias + product that torch's oneDNN convolution rounds once too. The backward (conv_backward.cpp)
// runs on the same GEMM: col2im and the weight gradient's sum over the batch accumulate in float32
// and are rounded once. Without that GEMM (OpenBLAS; float16; CUDA) the front end widens to float32
// (ops_conv_pool.cpp); a graph traced under MKL and run after set_blas("openblas") widens here.
void conv2d_bf16(const Tensor& out, const Tensor& x, const Tensor& wt, const Tensor* bias, int64_t sh, int64_t sw,
                 int64_t ph, int64_t pw, int64_t dh, int64_t dw, int64_t groups) {
  int64_t n = x.size(0), c = x.size(1), h = x.size(2), w = x.size(3);
  int64_t o = wt.size(0), kh = wt.size(2), kw = wt.size(3);
  int64_t oh = out.size(2), ow = out.size(3);
  int64_t cg = c / groups, og = o / groups, kk = cg * kh * kw, sp = oh * ow;
  const BFloat16* px = x.data<BFloat16>();
  const BFloat16* pwt = wt.data<BFloat16>();
  const BFloat16* pb = bias ? bias->data<BFloat16>() : nullptr;
  BFloat16* po = out.data<BFloat16>();
  bool direct = kh == 1 && kw == 1 && sh == 1 && sw == 1 && ph == 0 && pw == 0;
  // tiles of whole output rows, bfloat16 columns of ~512 KB (a few hundred columns: the bfloat16
  // GEMM ran at two thirds of its speed on the ~100 columns of 128 KB tiles), and the float32 tile
  // they feed
  int64_t tile_rows = std::max<int64_t>(1, std::min<int64_t>(oh, (int64_t{1} << 18) / std::max<int64_t>(kk * ow, 1)));
  int64_t tile_cols = tile_rows * ow;
  auto one = [&](int64_t ni, BFloat16* col, float* acc) {
    for (int64_t g = 0; g < groups; ++g) {
      const BFloat16* xg = px + (ni * c + g * cg) * h * w;
      BFloat16* dst = po + (ni * o + g * og) * sp;
      for (int64_t oy0 = 0; oy0 < oh; oy0 += tile_rows) {
        int64_t oy1 = std::min(oh, oy0 + tile_rows), cols = (oy1 - oy0) * ow;
        const BFloat16* src = xg + oy0 * ow;  // a 1x1 convolution reads the image as its columns
        int64_t ld = sp;
        if (!direct) {
          im2col_rows(xg, cg, h, w, kh, kw, sh, sw, ph, pw, dh, dw, oy0, oy1, ow, col);
          src = col;
          ld = cols;
        }
        for (int64_t oc = 0; oc < og; ++oc) {
          float bv = pb ? float(pb[g * og + oc]) : 0.0f;
          std::fill(acc + oc * cols, acc + (oc + 1) * cols, bv);
        }
        blas_gemm_bf16(false, false, og, cols, kk, pwt + g * og * kk, kk, src, ld, 1.0f, acc, cols);
        for (int64_t oc = 0; oc < og; ++oc) narrow_run(acc + oc * cols, dst + oc * sp + oy0 * ow, cols);
      }
    }
  };
  auto run = [&](int64_t lo, int64_t hi) {
    CpuScratch<BFloat16> col(direct ? 0 : static_cast<size_t>(kk * tile_cols));
    CpuScratch<float> acc(static_cast<size_t>(og * tile_cols));
    for (int64_t ni = lo; ni < hi; ++ni) one(ni, col.data(), acc.data());
  };
  int nt = num_threads();
  if (n >= nt && nt > 1) parallel_for(0, n, 1, run);  // one sample per thread, serial GEMMs
  else run(0, n);
}

// `v` replaces the running maximum `best` of a window: the first NaN wins (as on the general path),
// otherwise the first of equal maxima. Bitwise, not short-circuit, so loops stay branch-free.
template <class T>
TT_VMATH_INLINE bool pool_takes(T v, T best) {
  return static_cast<bool>((best == best) & ((v > best) | (v != v)));
}

#ifdef __AVX2__
// 2x2 windows with stride 2, eight outputs at a time; returns the outputs written (all). Same rule
// as pool_takes. `end` is the end of the input: the row's last, partial group loads whole vectors
// where they stay inside it (else a zero-padded copy on the stack) and stores its lanes one by one,
// rather than a scalar tail (GCC turns the scalar selects back into branches) or AVX2's masked
// loads and stores: on AMD Zen 3 those are microcoded, and a 14 x 14 image (7 outputs a row, every row one
// partial group) pooled 4.6x slower than a 16 x 16 one with more outputs (64x64x14x14 float32 at
// one thread: 2.8 ms, 64x64x16x16: 0.61 ms).
inline int64_t max_pool_2x2_avx2(const float* r0, const float* r1, const float* end, int64_t w, int64_t base,
                                 int64_t ow, float* __restrict out, int64_t* __restrict idx) {
  auto evens = [](__m256 lo, __m256 hi) {
    return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(_mm256_shuffle_ps(lo, hi, 0x88)), 0xd8));
  };
  auto odds = [](__m256 lo, __m256 hi) {
    return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(_mm256_shuffle_ps(lo, hi, 0xdd)), 0xd8));
  };
  auto takes = [](__m256 v, __m256 best) {
    __m256 newer = _mm256_or_ps(_mm256_cmp_ps(v, best, _CMP_GT_OQ), _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
    return _mm256_and_ps(_mm256_cmp_ps(best, best, _CMP_ORD_Q), newer);
  };
  const __m256 off_b = _mm256_castsi256_ps(_mm256_set1_epi32(1));
  const __m256 off_c = _mm256_castsi256_ps(_mm256_set1_epi32(static_cast<int32_t>(w)));
  const __m256 off_d = _mm256_castsi256_ps(_mm256_set1_epi32(static_cast<int32_t>(w + 1)));
  const __m256i step = _mm256_setr_epi64x(0, 2, 4, 6);
  for (int64_t ox = 0; ox < ow; ox += 8) {
    int64_t n = std::min<int64_t>(8, ow - ox);
    __m256 t0, t1, u0, u1;
    if (n == 8) {
      t0 = _mm256_loadu_ps(r0 + 2 * ox), t1 = _mm256_loadu_ps(r0 + 2 * ox + 8);
      u0 = _mm256_loadu_ps(r1 + 2 * ox), u1 = _mm256_loadu_ps(r1 + 2 * ox + 8);
    } else if (r1 + 2 * ox + 16 <= end) {  // the row's last group: the lanes past it read what follows, unused
      t0 = _mm256_loadu_ps(r0 + 2 * ox), t1 = _mm256_loadu_ps(r0 + 2 * ox + 8);
      u0 = _mm256_loadu_ps(r1 + 2 * ox), u1 = _mm256_loadu_ps(r1 + 2 * ox + 8);
    } else {  // ... or, at the end of the input, a zero-padded copy on the stack
      alignas(32) float s0[16] = {}, s1[16] = {};
      std::memcpy(s0, r0 + 2 * ox, static_cast<size_t>(2 * n) * sizeof(float));
      std::memcpy(s1, r1 + 2 * ox, static_cast<size_t>(2 * n) * sizeof(float));
      t0 = _mm256_load_ps(s0), t1 = _mm256_load_ps(s0 + 8);
      u0 = _mm256_load_ps(s1), u1 = _mm256_load_ps(s1 + 8);
    }
    __m256 a = evens(t0, t1), b = odds(t0, t1), c = evens(u0, u1), d = odds(u0, u1);
    __m256 m = a, off = _mm256_setzero_ps();
    __m256 k = takes(b, m);
    m = _mm256_blendv_ps(m, b, k);
    off = _mm256_blendv_ps(off, off_b, k);
    k = takes(c, m);
    m = _mm256_blendv_ps(m, c, k);
    off = _mm256_blendv_ps(off, off_c, k);
    k = takes(d, m);
    m = _mm256_blendv_ps(m, d, k);
    off = _mm256_blendv_ps(off, off_d, k);
    __m256i offi = _mm256_castps_si256(off);
    __m256i first = _mm256_add_epi64(_mm256_set1_epi64x(base + 2 * ox), step);
    __m256i lo = _mm256_add_epi64(first, _mm256_cvtepi32_epi64(_mm256_castsi256_si128(offi)));
    __m256i hi = _mm256_add_epi64(_mm256_add_epi64(first, _mm256_set1_epi64x(8)),
                                  _mm256_cvtepi32_epi64(_mm256_extracti128_si256(offi, 1)));
    if (n == 8) {
      _mm256_storeu_ps(out + ox, m);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(idx + ox), lo);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(idx + ox + 4), hi);
    } else {
      alignas(32) float so[8];
      alignas(32) int64_t si[8];
      _mm256_store_ps(so, m);
      _mm256_store_si256(reinterpret_cast<__m256i*>(si), lo);
      _mm256_store_si256(reinterpret_cast<__m256i*>(si + 4), hi);
      for (int64_t j = 0; j < n; ++j) {
        out[ox + j] = so[j];
        idx[ox + j] = si[j];
      }
    }
  }
  return ow;
}
#endif

// One plane of max pooling whose windows all lie inside the image, written as selects rather than
// data-dependent branches (which mispredict about half the time on real activations: pooling was a
// quarter of a small CNN's training step); the 2x2/stride-2 float case is explicit AVX2.
template <class T>
void max_pool_inside(const T* src, const T* end, int64_t w, int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t oh, int64_t ow,
                     T* __restrict out, int64_t* __restrict idx) {
  for (int64_t oy = 0; oy < oh; ++oy) {
    const T* row = src + oy * sh * w;
    int64_t base = oy * sh * w;
    T* __restrict orow = out + oy * ow;
    int64_t* __restrict irow = idx + oy * ow;
    if (kh == 2 && kw == 2 && sh == 2 && sw == 2) {  // the common case
      const T* r1 = row + w;
      int64_t ox = 0;
#ifdef __AVX2__
      if constexpr (std::is_same_v<T, float>)  // window offsets travel as int32 lanes
        if (w < (int64_t(1) << 30)) ox = max_pool_2x2_avx2(row, r1, end, w, base, ow, orow, irow);
#endif
      for (; ox < ow; ++ox) {
        T a = row[2 * ox], b = row[2 * ox + 1], c = r1[2 * ox], d = r1[2 * ox + 1];
        bool tb = pool_takes(b, a);
        T m = tb ? b : a;
        int64_t off = tb ? 1 : 0;
        bool tc = pool_takes(c, m);
        m = tc ? c : m;
        off = tc ? w : off;
        bool td = pool_takes(d, m);
        m = td ? d : m;
        off = td ? w + 1 : off;
        orow[ox] = m;
        irow[ox] = base + 2 * ox + off;
      }
      continue;
    }
    for (int64_t ox = 0; ox < ow; ++ox) {
      T best = row[ox * sw];
      int64_t bi = base + ox * sw;
      for (int64_t ki = 0; ki < kh; ++ki)
        for (int64_t kj = 0; kj < kw; ++kj) {
          T v = row[ki * w + ox * sw + kj];
          bool take = pool_takes(v, best);
          best = take ? v : best;
          bi = take ? base + ki * w + ox * sw + kj : bi;
        }
      orow[ox] = best;
      irow[ox] = bi;
    }
  }
}

}  // namespace

void conv2d(const Tensor& out, const Tensor& x, const Tensor& w, const Tensor* bias, int64_t sh, int64_t sw,
            int64_t ph, int64_t pw, int64_t dh, int64_t dw, int64_t groups) {
  if (on_cuda(out)) return cuda_kernels().conv2d(out, x, w, bias, sh, sw, ph, pw, dh, dw, groups);  // NOTE [ Device dispatch ]
  if (out.numel() == 0) return;
  if (w.size(1) * w.size(2) * w.size(3) == 0) {
    fill(out, Scalar::from_int(0));
    if (bias) {
      // out[:, o] = bias[o]
      int64_t n = out.size(0), o = out.size(1), sp = out.size(2) * out.size(3);
      visit_dtype(out.dtype(), [&](auto tag) {
        using T = decltype(tag);
        if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, BFloat16>) {
          for (int64_t i = 0; i < n * o; ++i)
            for (int64_t j = 0; j < sp; ++j) out.data<T>()[i * sp + j] = bias->data<T>()[i % o];
        }
      });
    }
    return;
  }
  if (x.dtype() == DType::Float32) return conv2d_typed<float>(out, x, w, bias, sh, sw, ph, pw, dh, dw, groups);
  if (x.dtype() == DType::BFloat16) {  // NOTE [ bfloat16 convolution ]
    // a GEMM whose inner size (c kh kw per group) is under one AMX tile's depth of 32 bfloat16
    // (a first layer on 1-3 channels, a depthwise 3x3) ran slower than float32 on widened operands
    constexpr int64_t kMinDepth = 32;
    if (blas_has_bf16_gemm() && w.size(1) * w.size(2) * w.size(3) >= kMinDepth)
      return conv2d_bf16(out, x, w, bias, sh, sw, ph, pw, dh, dw, groups);
    // without it: float32 on widened operands, rounded once
    return run_widened(out, {x, w, bias ? *bias : Tensor()}, [&](const Tensor& o, const std::vector<Tensor>& in) {
      conv2d_typed<float>(o, in[0], in[1], bias ? &in[2] : nullptr, sh, sw, ph, pw, dh, dw, groups);
    });
  }
  if (x.dtype() == DType::Float64) return conv2d_typed<double>(out, x, w, bias, sh, sw, ph, pw, dh, dw, groups);
  throw TypeError(std::string("[conv2d] no CPU kernel for dtype ") + dtype_name(x.dtype()));
}

void max_pool2d(const Tensor& out, const Tensor& idx, const Tensor& x, int64_t kh, int64_t kw, int64_t sh,
                int64_t sw, int64_t ph, int64_t pw, int64_t dh, int64_t dw) {
  if (on_cuda(out)) return cuda_kernels().max_pool2d(out, idx, x, kh, kw, sh, sw, ph, pw, dh, dw);  // NOTE [ Device dispatch ]
  int64_t planes = x.size(0) * x.size(1), h = x.size(2), w = x.size(3), oh = out.size(2), ow = out.size(3);
  visit_dtype(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16> || std::is_same_v<T, bool>) {
      throw TypeError("[max_pool2d] no CPU kernel for this dtype");
    } else {
      const T* px = x.data<T>();
      T* po = out.data<T>();
      int64_t* pi = idx.data<int64_t>();
      // windows wholly inside the image (no padding, no dilation, no ceil-mode overhang) take the
      // branch-free path
      bool inside = ph == 0 && pw == 0 && dh == 1 && dw == 1 && (oh - 1) * sh + kh <= h && (ow - 1) * sw + kw <= w;
      parallel_for(0, planes, std::max<int64_t>(1, kGrain / std::max<int64_t>(oh * ow * kh * kw, 1)), [&](int64_t b, int64_t e) {
        if (inside) {
          for (int64_t p = b; p < e; ++p)
            max_pool_inside<T>(px + p * h * w, px + planes * h * w, w, kh, kw, sh, sw, oh, ow, po + p * oh * ow, pi + p * oh * ow);
          return;
        }
        for (int64_t p = b; p < e; ++p) {
          const T* src = px + p * h * w;
          for (int64_t oy = 0; oy < oh; ++oy)
            for (int64_t ox = 0; ox < ow; ++ox) {
              T best = std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                                            : std::numeric_limits<T>::lowest();
              int64_t bi = -1;
              for (int64_t ki = 0; ki < kh; ++ki) {
                int64_t iy = oy * sh - ph + ki * dh;
                if (iy < 0 || iy >= h) continue;
                for (int64_t kj = 0; kj < kw; ++kj) {
                  int64_t ix = ox * sw - pw + kj * dw;
                  if (ix < 0 || ix >= w) continue;
                  T v = src[iy * w + ix];
                  bool nan = false;
                  if constexpr (std::is_floating_point_v<T>) nan = v != v;
                  if (bi < 0 || v > best || nan) {
                    best = v;
                    bi = iy * w + ix;
                    if (nan) goto done;
                  }
                }
              }
            done:
              po[(p * oh + oy) * ow + ox] = best;
              pi[(p * oh + oy) * ow + ox] = bi;
            }
        }
      });
    }
  });
}

// NOTE [ Convolution then max-pooling ]
// A CNN's conv -> (relu) -> max-pool wrote the whole convolution output (64x32x28x28 float32: 6.4 MB)
// and the pooling read it all back. The graph's `conv_pool` pass (NOTE [ Fused convolution and
// pooling ] in backend/src/graph/conv_pool.cpp) hands both to this function: each thread takes a
// range of samples and, a few at a time (their output within kChunkBytes, so it stays in L2),
// convolves them into a scratch buffer and pools from it, then applies relu to the pooled values.
// The convolution and pooling are the unfused kernels, run serially inside the thread (a sample's
// GEMM as conv2d runs it), so values and argmax indices are the same bits as conv2d then max_pool2d.
// The convolution's output is needed by nothing else: after `relu_pool` a relu's mask is on the
// pooled side, and conv2d's gradients read its input, not its output.
// Measured on an AMD EPYC (Zen 3), 2 threads, conv + relu + 2x2 pool forward: 64x1x28x28 -> 32
// channels 1.92 -> 1.63 ms; 64x32x14x14 -> 64 channels unchanged (7.97 ms): there the 2x2 pooling
// is bound by its compares, not by memory, and reading from L2 does not make it cheaper. What every
// size gains is memory: the conv-sized output is never allocated.
void conv2d_max_pool2d(const Tensor& out, const Tensor& idx, const Tensor& x, const Tensor& w, const Tensor* bias,
                       const int64_t (&conv)[7], const int64_t (&pool)[8], int64_t oh, int64_t ow, bool relu) {
  constexpr int64_t kChunkBytes = int64_t(1) << 18;
  const int64_t n = x.size(0), o = w.size(0);
  if (n == 0 || out.numel() == 0) return;
  const int64_t sample = shape_numel(Shape{o, oh, ow});  // throws past int64
  const int64_t per = std::max<int64_t>(1, kChunkBytes / std::max<int64_t>(1, sample * static_cast<int64_t>(x.itemsize())));
  // samples [s, s + m) of a contiguous [n, ...] tensor
  auto samples_of = [](const Tensor& t, int64_t s, int64_t m) {
    Shape sh = t.shape();
    sh[0] = m;
    return make_view(t, sh, t.strides(), t.offset() + s * t.stride(0));
  };
  auto run = [&](int64_t lo, int64_t hi) {
    Tensor scratch = empty(Shape{std::min(per, hi - lo), o, oh, ow}, x.dtype());
    for (int64_t s = lo; s < hi; s += per) {
      const int64_t m = std::min(per, hi - s);
      Tensor y = samples_of(scratch, 0, m);
      conv2d(y, samples_of(x, s, m), w, bias, conv[0], conv[1], conv[2], conv[3], conv[4], conv[5], conv[6]);
      Tensor pooled = samples_of(out, s, m);
      max_pool2d(pooled, samples_of(idx, s, m), y, pool[0], pool[1], pool[2], pool[3], pool[4], pool[5], pool[6], pool[7]);
      if (relu) unary(UnaryOp::Relu, pooled, pooled);
    }
  };
  const int nt = num_threads();
  if (n >= nt && nt > 1) parallel_for(0, n, 1, run);  // one range of samples per thread, serial kernels inside
  else run(0, n);                                    // few samples: each kernel uses the threads itself
}

void avg_pool2d(const Tensor& out, const Tensor& x, int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t ph,
                int64_t pw, bool count_include_pad, int64_t divisor) {
  if (on_cuda(out)) return cuda_kernels().avg_pool2d(out, x, kh, kw, sh, sw, ph, pw, count_include_pad, divisor);  // NOTE [ Device dispatch ]
  int64_t planes = x.size(0) * x.size(1), h = x.size(2), w = x.size(3), oh = out.size(2), ow = out.size(3);
  auto run = [&](auto tag) {
    using T = decltype(tag);
    const T* px = x.data<T>();
    T* po = out.data<T>();
    parallel_for(0, planes, std::max<int64_t>(1, kGrain / std::max<int64_t>(oh * ow * kh * kw, 1)), [&](int64_t b, int64_t e) {
      for (int64_t p = b; p < e; ++p) {
        const T* src = px + p * h * w;
        for (int64_t oy = 0; oy < oh; ++oy)
          for (int64_t ox = 0; ox < ow; ++ox) {
            int64_t y0 = oy * sh - ph, x0 = ox * sw - pw;
            int64_t y1 = std::min(y0 + kh, h + ph), x1 = std::min(x0 + kw, w + pw);
            int64_t pool = (y1 - y0) * (x1 - x0);
            y0 = std::max<int64_t>(y0, 0);
            x0 = std::max<int64_t>(x0, 0);
            y1 = std::min(y1, h);
            x1 = std::min(x1, w);
            double s = 0;
            for (int64_t iy = y0; iy < y1; ++iy)
              for (int64_t ix = x0; ix < x1; ++ix) s += src[iy * w + ix];
            int64_t div = divisor > 0 ? divisor : (count_include_pad ? pool : (y1 - y0) * (x1 - x0));
            po[(p * oh + oy) * ow + ox] = static_cast<T>(s / static_cast<double>(div));
          }
      }
    });
  };
  if (x.dtype() == DType::Float32) return run(float{});
  if (x.dtype() == DType::Float64) return run(double{});
  throw TypeError("[avg_pool2d] needs a floating point tensor");
}

void adaptive_avg_pool2d(const Tensor& out, const Tensor& x) {
  if (on_cuda(out)) return cuda_kernels().adaptive_avg_pool2d(out, x);  // NOTE [ Device dispatch ]
  int64_t planes = x.size(0) * x.size(1), h = x.size(2), w = x.size(3), oh = out.size(2), ow = out.size(3);
  auto run = [&](auto tag) {
    using T = decltype(tag);
    const T* px = x.data<T>();
    T* po = out.data<T>();
    parallel_for(0, planes, 1, [&](int64_t b, int64_t e) {
      for (int64_t p = b; p < e; ++p) {
        const T* src = px + p * h * w;
        for (int64_t oy = 0; oy < oh; ++oy) {
          int64_t y0 = (oy * h) / oh, y1 = ((oy + 1) * h + oh - 1) / oh;
          for (int64_t ox = 0; ox < ow; ++ox) {
            int64_t x0 = (ox * w) / ow, x1 = ((ox + 1) * w + ow - 1) / ow;
            double s = 0;
            for (int64_t iy = y0; iy < y1; ++iy)
              for (int64_t ix = x0; ix < x1; ++ix) s += src[iy * w + ix];
            po[(p * oh + oy) * ow + ox] = static_cast<T>(s / static_cast<double>((y1 - y0) * (x1 - x0)));
          }
        }
      }
    });
  };
  if (x.dtype() == DType::Float32) return run(float{});
  if (x.dtype() == DType::Float64) return run(double{});
  throw TypeError("[adaptive_avg_pool2d] needs a floating point tensor");
}

}  // namespace tt::cpu
