// Backward kernels of conv2d (col2im + BLAS GEMM), avg pooling, and index_add. Inputs contiguous.
#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

#include "../core/cpu_allocator.h"
#include "im2col.h"
#include "half_run.h"
#include "kernels.h"
#include "parallel.h"
#include "typedtensor/blas.h"

namespace tt::cpu {
namespace {

// The adjoint of im2col: adds each column entry back into the image position it was read from.
// `ld` is the distance between two rows of `col` (oh * ow for one sample's columns; more when the
// columns of several samples sit side by side, NOTE [ Sample blocks ]).
template <class T>
void col2im(const T* col, int64_t ld, int64_t c, int64_t h, int64_t w, int64_t kh, int64_t kw, int64_t sh, int64_t sw,
            int64_t ph, int64_t pw, int64_t dh, int64_t dw, int64_t oh, int64_t ow, T* x) {
  for (int64_t ci = 0; ci < c; ++ci)
    for (int64_t ki = 0; ki < kh; ++ki)
      for (int64_t kj = 0; kj < kw; ++kj) {
        const T* src = col + ((ci * kh + ki) * kw + kj) * ld;
        T* dst = x + ci * h * w;
        for (int64_t oy = 0; oy < oh; ++oy) {
          int64_t iy = oy * sh - ph + ki * dh;
          if (iy < 0 || iy >= h) continue;
          T* __restrict drow = dst + iy * w;
          const T* __restrict srow = src + oy * ow;
          int64_t off = kj * dw - pw;
          if (sw == 1) {  // the in-bounds run, without a test per element (as in im2col)
            int64_t lo = std::max<int64_t>(0, -off), hi = std::min<int64_t>(ow, w - off);
            for (int64_t ox = lo; ox < hi; ++ox) drow[ox + off] += srow[ox];
          } else {
            for (int64_t ox = 0; ox < ow; ++ox) {
              int64_t ix = ox * sw + off;
              if (ix >= 0 && ix < w) drow[ix] += srow[ox];
            }
          }
        }
      }
}

// Samples are split across threads (one parallel region per call, each thread with its own
// column buffer and serial GEMMs: NOTE [ One thread pool ]) when there are at least as many samples
// as threads; otherwise samples run in turn and each GEMM is split across the threads instead.
inline bool per_sample_threads(int64_t n) {
  int nt = num_threads();
#ifdef _OPENMP
  if (omp_in_parallel()) return false;
#endif
  return nt > 1 && n >= nt;
}

// dx from the output gradient of each sample, given as conv_bwd_weight_from's is (grad.sample).
template <class T, class Grad>
void conv_bwd_input_from(const Tensor& dx, const Tensor& wt, int64_t oh, int64_t ow, const Grad& grad, int64_t sh,
                         int64_t sw, int64_t ph, int64_t pw, int64_t dh, int64_t dw, int64_t groups) {
  int64_t n = dx.size(0), c = dx.size(1), h = dx.size(2), w = dx.size(3);
  int64_t o = wt.size(0), kh = wt.size(2), kw = wt.size(3);
  int64_t cg = c / groups, og = o / groups, kk = cg * kh * kw, sp = oh * ow;
  const T* pwt = wt.data<T>();
  T* px = dx.data<T>();
  bool direct = kh == 1 && kw == 1 && sh == 1 && sw == 1 && ph == 0 && pw == 0;
  bool threads = per_sample_threads(n);
  int64_t nb = direct ? 1 : sample_block(sp, threads ? (n + num_threads() - 1) / num_threads() : n);
  auto samples = [&](int64_t lo, int64_t hi) {
    CpuScratch<T> col(direct ? 0 : static_cast<size_t>(kk * sp * nb));
    CpuScratch<T> block(nb > 1 ? static_cast<size_t>(og * sp * nb) : 0);
    CpuScratch<T> buf(grad.scratch() * static_cast<size_t>(nb));
    std::vector<const T*> gs(static_cast<size_t>(nb));  // the block's samples' gradients
    for (int64_t n0 = lo; n0 < hi; n0 += nb) {
      int64_t m = std::min(nb, hi - n0), cols = m * sp;
      for (int64_t b = 0; b < m; ++b)
        gs[static_cast<size_t>(b)] = grad.sample(n0 + b, buf.data() + static_cast<size_t>(b) * grad.scratch());
      if (!direct) std::memset(px + n0 * c * h * w, 0, static_cast<size_t>(m * c * h * w) * sizeof(T));
      for (int64_t gi = 0; gi < groups; ++gi) {
        const T* gg = gs[0] + gi * og * sp;
        T* xg = px + (n0 * c + gi * cg) * h * w;
        if (m > 1) {  // block[oi, (b, s)] = g[n0 + b, gi * og + oi, s]
          for (int64_t oi = 0; oi < og; ++oi)
            for (int64_t b = 0; b < m; ++b)
              std::memcpy(block.data() + oi * cols + b * sp, gs[static_cast<size_t>(b)] + (gi * og + oi) * sp,
                          static_cast<size_t>(sp) * sizeof(T));
          gg = block.data();
        }
        // col[kk, cols] = W_g^T [kk, og] @ g_g [og, cols]
        blas_gemm<T>(true, false, kk, cols, og, pwt + gi * og * kk, kk, gg, cols, T(0), direct ? xg : col.data(), cols);
        if (!direct)
          for (int64_t b = 0; b < m; ++b)
            col2im(col.data() + b * sp, cols, cg, h, w, kh, kw, sh, sw, ph, pw, dh, dw, oh, ow, xg + b * c * h * w);
      }
    }
  };
  if (threads) parallel_for(0, n, 1, samples);
  else samples(0, n);
}

// dW from the output gradient of each sample: grad.sample(ni, buf) is sample ni's [o, oh * ow]
// gradient, either in place (DirectGradient) or made into buf, a per-thread buffer of
// grad.scratch() elements (PooledGradient).
template <class T, class Grad>
void conv_bwd_weight_from(const Tensor& dwt, const Tensor& x, int64_t oh, int64_t ow, const Grad& grad, int64_t sh,
                          int64_t sw, int64_t ph, int64_t pw, int64_t dh, int64_t dw, int64_t groups) {
  int64_t n = x.size(0), c = x.size(1), h = x.size(2), w = x.size(3);
  int64_t o = dwt.size(0), kh = dwt.size(2), kw = dwt.size(3);
  int64_t cg = c / groups, og = o / groups, kk = cg * kh * kw, sp = oh * ow;
  const T* px = x.data<T>();
  T* pd = dwt.data<T>();
  int64_t wn = dwt.numel();
  bool direct = kh == 1 && kw == 1 && sh == 1 && sw == 1 && ph == 0 && pw == 0;
  // dW accumulated over samples [lo, hi) into acc (written, not added to)
  auto samples = [&](int64_t lo, int64_t hi, T* acc) {
    std::memset(acc, 0, static_cast<size_t>(wn) * sizeof(T));
    CpuScratch<T> col(direct ? 0 : static_cast<size_t>(kk * sp));
    CpuScratch<T> buf(grad.scratch());
    for (int64_t ni = lo; ni < hi; ++ni) {
      const T* pg = grad.sample(ni, buf.data());
      for (int64_t gi = 0; gi < groups; ++gi) {
        const T* xg = px + (ni * c + gi * cg) * h * w;
        const T* src = xg;
        if (!direct) {
          im2col(xg, cg, h, w, kh, kw, sh, sw, ph, pw, dh, dw, oh, ow, col.data());
          src = col.data();
        }
        // dW_g [og, kk] += g_g [og, sp] @ col^T [sp, kk]
        blas_gemm<T>(false, true, og, kk, sp, pg + gi * og * sp, sp, src, sp, T(1), acc + gi * og * kk, kk);
      }
    }
  };
  if (!per_sample_threads(n)) return samples(0, n, pd);
  // one contiguous range of samples per thread, each into its own partial dW (part 0 is dW
  // itself); the partials are then summed in part order, so the result does not depend on timing
  int64_t parts = num_threads();
  std::vector<T> partial(static_cast<size_t>((parts - 1) * wn));
  parallel_for(0, parts, 1, [&](int64_t lo, int64_t hi) {
    for (int64_t p = lo; p < hi; ++p)
      samples(p * n / parts, (p + 1) * n / parts, p == 0 ? pd : partial.data() + (p - 1) * wn);
  });
  for (int64_t p = 1; p < parts; ++p) {
    const T* src = partial.data() + (p - 1) * wn;
    for (int64_t i = 0; i < wn; ++i) pd[i] += src[i];
  }
}

// max_pool2d's VJP over `planes` planes: dx (zeroed here, `plane` elements each) += g at the in-plane
// positions idx (`pooled` per plane); a negative index adds nothing.
template <class T>
void scatter_pooled(T* dx, const T* g, const int64_t* idx, int64_t planes, int64_t plane, int64_t pooled) {
  std::memset(dx, 0, static_cast<size_t>(planes * plane) * sizeof(T));
  for (int64_t p = 0; p < planes; ++p)
    for (int64_t j = 0; j < pooled; ++j) {
      int64_t k = idx[p * pooled + j];
      if (k >= 0) dx[p * plane + k] += g[p * pooled + j];
    }
}

// The output gradient as given: sample ni's rows of g.
template <class T>
struct DirectGradient {
  using Value = T;
  const T* g;
  int64_t per_sample;
  size_t scratch() const { return 0; }
  const T* sample(int64_t ni, T*) const { return g + ni * per_sample; }
};

template <class T>
void conv_bwd_weight(const Tensor& dwt, const Tensor& g, const Tensor& x, int64_t sh, int64_t sw, int64_t ph,
                     int64_t pw, int64_t dh, int64_t dw, int64_t groups) {
  DirectGradient<T> grad{g.data<T>(), g.size(1) * g.size(2) * g.size(3)};
  conv_bwd_weight_from<T>(dwt, x, g.size(2), g.size(3), grad, sh, sw, ph, pw, dh, dw, groups);
}

template <class T>
void conv_bwd_input(const Tensor& dx, const Tensor& g, const Tensor& wt, int64_t sh, int64_t sw, int64_t ph,
                    int64_t pw, int64_t dh, int64_t dw, int64_t groups) {
  DirectGradient<T> grad{g.data<T>(), g.size(1) * g.size(2) * g.size(3)};
  conv_bwd_input_from<T>(dx, wt, g.size(2), g.size(3), grad, sh, sw, ph, pw, dh, dw, groups);
}

// NOTE [ Gradients behind a max-pooling ]
// The convolution's output gradient is max_pool2d_backward(gp, idx): gp added at each window's
// argmax of a zeroed [o, oh, ow] plane. Made per sample into a per-thread buffer (L2-sized for a
// CNN's early layers: 32x28x28 float32 is 100 KB) right before that sample's GEMM reads it, instead
// of the whole batch's conv-sized gradient being written to memory and read back by the weight
// and the input gradient (NOTE [ Fused convolution and pooling ] in graph/conv_pool.cpp). Each of
// the two makes it for itself: the scatter is cheap next to the GEMM and the memory it saves. The
// additions happen in max_pool2d_backward's order, so the gradient, dW and dx are the same bits.
template <class T>
struct PooledGradient {
  using Value = T;
  const T* gp;
  const int64_t* idx;
  int64_t planes, plane, pooled;  // o; oh * ow; the pooled plane's size
  size_t scratch() const { return static_cast<size_t>(planes * plane); }
  const T* sample(int64_t ni, T* d) const {
    scatter_pooled(d, gp + ni * planes * pooled, idx + ni * planes * pooled, planes, plane, pooled);
    return d;
  }
};

// NOTE [ bfloat16 input gradient ]
// With stride 1 the input gradient is itself a convolution: dx = conv2d(g, W') with W'[c, o] the
// kernel flipped in both spatial dims and its channel axes swapped (per group), padding
// d (k - 1) - p. That runs the forward kernel, whose GEMM has k = o kh kw, where W^T @ g has only
// k = o and writes kh kw times the image in float32 columns for col2im (three to four times the
// forward's time at 64 channels). Same float32 sum, rounded once; other strides take col2im.
bool conv_bwd_input_by_conv(const Tensor& dx, const Tensor& g, const Tensor& wt, int64_t sh, int64_t sw, int64_t ph,
                            int64_t pw, int64_t dh, int64_t dw, int64_t groups) {
  int64_t c = dx.size(1), o = wt.size(0), kh = wt.size(2), kw = wt.size(3);
  int64_t qh = dh * (kh - 1) - ph, qw = dw * (kw - 1) - pw;  // the flipped convolution's padding
  // its GEMM has c / groups rows: a handful (an RGB input's gradient) wastes AMX's 16-row tiles
  // and reads o kh kw columns per pixel, where W^T @ g has kh kw c rows. Its GEMMs have one
  // sample's pixels as columns: on maps under ~128 pixels (a generator's 1x1 -> 4x4) col2im, whose
  // GEMM takes several samples' columns at once (NOTE [ Sample blocks ]), was as fast or faster.
  constexpr int64_t kMinRows = 16, kMinPixels = 128;
  if (sh != 1 || sw != 1 || qh < 0 || qw < 0 || c / groups < kMinRows || dx.size(2) * dx.size(3) < kMinPixels)
    return false;
  // a conv_transpose2d's output_padding widens dx past what g reaches: col2im writes those zeros
  if (dx.size(2) != g.size(2) + dh * (kh - 1) - 2 * ph || dx.size(3) != g.size(3) + dw * (kw - 1) - 2 * pw) return false;
  int64_t cg = c / groups, og = o / groups, khw = kh * kw;
  Tensor flipped = empty(Shape{c, og, kh, kw}, DType::BFloat16);
  const BFloat16* src = wt.data<BFloat16>();
  BFloat16* dst = flipped.data<BFloat16>();
  for (int64_t gi = 0; gi < groups; ++gi)
    for (int64_t oi = 0; oi < og; ++oi)
      for (int64_t ci = 0; ci < cg; ++ci) {
        const BFloat16* s = src + ((gi * og + oi) * cg + ci) * khw;
        BFloat16* d = dst + ((gi * cg + ci) * og + oi) * khw;
        for (int64_t j = 0; j < khw; ++j) d[j] = s[khw - 1 - j];
      }
  conv2d(dx, g, flipped, nullptr, 1, 1, qh, qw, dh, dw, groups);
  return true;
}

// NOTE [ bfloat16 convolution ] in conv.cpp: dx at strides above 1 (NOTE [ bfloat16 input
// gradient ]) is col2im(W^T @ g), the columns and the image accumulated in float32 and rounded once.
void conv_bwd_input_bf16(const Tensor& dx, const Tensor& g, const Tensor& wt, int64_t sh, int64_t sw, int64_t ph,
                         int64_t pw, int64_t dh, int64_t dw, int64_t groups) {
  if (conv_bwd_input_by_conv(dx, g, wt, sh, sw, ph, pw, dh, dw, groups)) return;
  int64_t n = dx.size(0), c = dx.size(1), h = dx.size(2), w = dx.size(3);
  int64_t o = wt.size(0), kh = wt.size(2), kw = wt.size(3), oh = g.size(2), ow = g.size(3);
  int64_t cg = c / groups, og = o / groups, kk = cg * kh * kw, sp = oh * ow, chw = c * h * w;
  const BFloat16* pg = g.data<BFloat16>();
  const BFloat16* pwt = wt.data<BFloat16>();
  BFloat16* px = dx.data<BFloat16>();
  // (a 1x1 kernel with stride 1 and no padding went through conv_bwd_input_by_conv)
  bool threads = per_sample_threads(n);
  int64_t nb = sample_block(sp, threads ? (n + num_threads() - 1) / num_threads() : n);
  auto samples = [&](int64_t lo, int64_t hi) {
    CpuScratch<float> col(static_cast<size_t>(kk * sp * nb));
    CpuScratch<float> image(static_cast<size_t>(chw * nb));  // the block's dx in float32
    CpuScratch<BFloat16> block(nb > 1 ? static_cast<size_t>(og * sp * nb) : 0);
    for (int64_t n0 = lo; n0 < hi; n0 += nb) {
      int64_t m = std::min(nb, hi - n0), cols = m * sp;
      std::fill(image.data(), image.data() + m * chw, 0.0f);
      for (int64_t gi = 0; gi < groups; ++gi) {
        const BFloat16* gg = pg + (n0 * o + gi * og) * sp;
        float* xg = image.data() + gi * cg * h * w;
        if (m > 1) {  // block[oi, (b, s)] = g[n0 + b, gi * og + oi, s]
          for (int64_t oi = 0; oi < og; ++oi)
            for (int64_t b = 0; b < m; ++b)
              std::memcpy(block.data() + oi * cols + b * sp, gg + (b * o + oi) * sp,
                          static_cast<size_t>(sp) * sizeof(BFloat16));
          gg = block.data();
        }
        // col[kk, cols] = W_g^T [kk, og] @ g_g [og, cols], in float32
        blas_gemm_bf16(true, false, kk, cols, og, pwt + gi * og * kk, kk, gg, cols, 0.0f, col.data(), cols);
        for (int64_t b = 0; b < m; ++b)
          col2im(col.data() + b * sp, cols, cg, h, w, kh, kw, sh, sw, ph, pw, dh, dw, oh, ow, xg + b * chw);
      }
      narrow_run(image.data(), px + n0 * chw, m * chw);
    }
  };
  if (threads) parallel_for(0, n, 1, samples);
  else samples(0, n);
}

// dW = sum over samples of g @ cols^T, accumulated in float32 (per thread, then summed in part
// order) and rounded once
void conv_bwd_weight_bf16(const Tensor& dwt, const Tensor& g, const Tensor& x, int64_t sh, int64_t sw, int64_t ph,
                          int64_t pw, int64_t dh, int64_t dw, int64_t groups) {
  int64_t n = x.size(0), c = x.size(1), h = x.size(2), w = x.size(3);
  int64_t o = dwt.size(0), kh = dwt.size(2), kw = dwt.size(3), oh = g.size(2), ow = g.size(3);
  int64_t cg = c / groups, og = o / groups, kk = cg * kh * kw, sp = oh * ow;
  const BFloat16* pg = g.data<BFloat16>();
  const BFloat16* px = x.data<BFloat16>();
  int64_t wn = dwt.numel();
  bool direct = kh == 1 && kw == 1 && sh == 1 && sw == 1 && ph == 0 && pw == 0;
  auto samples = [&](int64_t lo, int64_t hi, float* acc) {
    std::fill(acc, acc + wn, 0.0f);
    CpuScratch<BFloat16> col(direct ? 0 : static_cast<size_t>(kk * sp));
    for (int64_t ni = lo; ni < hi; ++ni)
      for (int64_t gi = 0; gi < groups; ++gi) {
        const BFloat16* xg = px + (ni * c + gi * cg) * h * w;
        const BFloat16* src = xg;
        if (!direct) {
          im2col(xg, cg, h, w, kh, kw, sh, sw, ph, pw, dh, dw, oh, ow, col.data());
          src = col.data();
        }
        // dW_g [og, kk] += g_g [og, sp] @ col^T [sp, kk]
        blas_gemm_bf16(false, true, og, kk, sp, pg + (ni * o + gi * og) * sp, sp, src, sp, 1.0f, acc + gi * og * kk, kk);
      }
  };
  int64_t parts = per_sample_threads(n) ? num_threads() : 1;
  std::vector<float> partial(static_cast<size_t>(parts * wn));
  if (parts == 1) {
    samples(0, n, partial.data());
  } else {
    parallel_for(0, parts, 1, [&](int64_t lo, int64_t hi) {
      for (int64_t p = lo; p < hi; ++p) samples(p * n / parts, (p + 1) * n / parts, partial.data() + p * wn);
    });
    for (int64_t p = 1; p < parts; ++p) {
      const float* src = partial.data() + p * wn;
      for (int64_t i = 0; i < wn; ++i) partial[static_cast<size_t>(i)] += src[i];
    }
  }
  narrow_run(partial.data(), dwt.data<BFloat16>(), wn);
}


}  // namespace

void conv2d_backward_input(const Tensor& dx, const Tensor& g, const Tensor& w, int64_t sh, int64_t sw, int64_t ph,
                           int64_t pw, int64_t dh, int64_t dw, int64_t groups) {
  if (on_cuda(dx)) return cuda_kernels().conv2d_backward_input(dx, g, w, sh, sw, ph, pw, dh, dw, groups);  // NOTE [ Device dispatch ]
  if (dx.numel() == 0) return;
  if (dx.dtype() == DType::Float32) return conv_bwd_input<float>(dx, g, w, sh, sw, ph, pw, dh, dw, groups);
  if (dx.dtype() == DType::Float64) return conv_bwd_input<double>(dx, g, w, sh, sw, ph, pw, dh, dw, groups);
  if (dx.dtype() == DType::BFloat16) {  // NOTE [ bfloat16 convolution ] in conv.cpp
    if (blas_has_bf16_gemm()) return conv_bwd_input_bf16(dx, g, w, sh, sw, ph, pw, dh, dw, groups);
    return run_widened(dx, {g, w}, [&](const Tensor& o, const std::vector<Tensor>& in) {
      conv_bwd_input<float>(o, in[0], in[1], sh, sw, ph, pw, dh, dw, groups);
    });
  }
  throw TypeError(std::string("[conv2d] no CPU backward kernel for dtype ") + dtype_name(dx.dtype()));
}

void conv2d_backward_weight(const Tensor& dw_, const Tensor& g, const Tensor& x, int64_t sh, int64_t sw, int64_t ph,
                            int64_t pw, int64_t dh, int64_t dw, int64_t groups) {
  if (on_cuda(dw_)) return cuda_kernels().conv2d_backward_weight(dw_, g, x, sh, sw, ph, pw, dh, dw, groups);  // NOTE [ Device dispatch ]
  if (dw_.numel() == 0) return;
  if (dw_.dtype() == DType::Float32) return conv_bwd_weight<float>(dw_, g, x, sh, sw, ph, pw, dh, dw, groups);
  if (dw_.dtype() == DType::Float64) return conv_bwd_weight<double>(dw_, g, x, sh, sw, ph, pw, dh, dw, groups);
  if (dw_.dtype() == DType::BFloat16) {  // NOTE [ bfloat16 convolution ] in conv.cpp
    if (blas_has_bf16_gemm()) return conv_bwd_weight_bf16(dw_, g, x, sh, sw, ph, pw, dh, dw, groups);
    return run_widened(dw_, {g, x}, [&](const Tensor& o, const std::vector<Tensor>& in) {
      conv_bwd_weight<float>(o, in[0], in[1], sh, sw, ph, pw, dh, dw, groups);
    });
  }
  throw TypeError(std::string("[conv2d] no CPU backward kernel for dtype ") + dtype_name(dw_.dtype()));
}

namespace {
// Runs body(PooledGradient<T>) for float32 / float64 (NOTE [ Gradients behind a max-pooling ]).
template <class Body>
void with_pooled_gradient(const char* op, DType dt, const Tensor& gp, const Tensor& idx, int64_t oh, int64_t ow,
                          const Body& body) {
  auto run = [&](auto tag) {
    using T = decltype(tag);
    const int64_t planes = gp.size(1), pooled = gp.size(2) * gp.size(3);
    const int64_t plane = planes ? shape_numel(Shape{planes, oh, ow}) / planes : 0;  // throws where o oh ow overflows
    body(PooledGradient<T>{gp.data<T>(), idx.data<int64_t>(), planes, plane, pooled});
  };
  if (dt == DType::Float32) return run(float{});
  if (dt == DType::Float64) return run(double{});
  throw TypeError(std::string("[") + op + "] no CPU kernel for dtype " + dtype_name(dt));
}
}  // namespace

void conv2d_backward_weight_pooled(const Tensor& dw_, const Tensor& gp, const Tensor& idx, const Tensor& x, int64_t oh,
                                   int64_t ow, const int64_t (&conv)[7]) {
  if (dw_.numel() == 0) return;
  with_pooled_gradient("conv2d_backward_weight_pooled", dw_.dtype(), gp, idx, oh, ow, [&](const auto& grad) {
    using T = typename std::decay_t<decltype(grad)>::Value;
    conv_bwd_weight_from<T>(dw_, x, oh, ow, grad, conv[0], conv[1], conv[2], conv[3], conv[4], conv[5], conv[6]);
  });
}

void conv2d_backward_input_pooled(const Tensor& dx, const Tensor& gp, const Tensor& idx, const Tensor& w, int64_t oh,
                                  int64_t ow, const int64_t (&conv)[7]) {
  if (dx.numel() == 0) return;
  with_pooled_gradient("conv2d_backward_input_pooled", dx.dtype(), gp, idx, oh, ow, [&](const auto& grad) {
    using T = typename std::decay_t<decltype(grad)>::Value;
    conv_bwd_input_from<T>(dx, w, oh, ow, grad, conv[0], conv[1], conv[2], conv[3], conv[4], conv[5], conv[6]);
  });
}

void avg_pool2d_backward(const Tensor& dx, const Tensor& g, int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t ph,
                         int64_t pw, bool count_include_pad, int64_t divisor) {
  if (on_cuda(dx)) return cuda_kernels().avg_pool2d_backward(dx, g, kh, kw, sh, sw, ph, pw, count_include_pad, divisor);  // NOTE [ Device dispatch ]
  int64_t planes = dx.size(0) * dx.size(1), h = dx.size(2), w = dx.size(3), oh = g.size(2), ow = g.size(3);
  auto run = [&](auto tag) {
    using T = decltype(tag);
    T* px = dx.data<T>();
    const T* pg = g.data<T>();
    std::memset(px, 0, static_cast<size_t>(dx.numel()) * sizeof(T));
    parallel_for(0, planes, 1, [&](int64_t b, int64_t e) {
      for (int64_t p = b; p < e; ++p) {
        T* dst = px + p * h * w;
        for (int64_t oy = 0; oy < oh; ++oy)
          for (int64_t ox = 0; ox < ow; ++ox) {
            int64_t y0 = oy * sh - ph, x0 = ox * sw - pw;
            int64_t y1 = std::min(y0 + kh, h + ph), x1 = std::min(x0 + kw, w + pw);
            int64_t pool = (y1 - y0) * (x1 - x0);
            y0 = std::max<int64_t>(y0, 0);
            x0 = std::max<int64_t>(x0, 0);
            y1 = std::min(y1, h);
            x1 = std::min(x1, w);
            int64_t div = divisor > 0 ? divisor : (count_include_pad ? pool : (y1 - y0) * (x1 - x0));
            T v = static_cast<T>(pg[(p * oh + oy) * ow + ox] / static_cast<double>(div));
            for (int64_t iy = y0; iy < y1; ++iy)
              for (int64_t ix = x0; ix < x1; ++ix) dst[iy * w + ix] += v;
          }
      }
    });
  };
  if (dx.dtype() == DType::Float32) return run(float{});
  if (dx.dtype() == DType::Float64) return run(double{});
  throw TypeError("[avg_pool2d] needs a floating point tensor");
}

void adaptive_avg_pool2d_backward(const Tensor& dx, const Tensor& g) {
  if (on_cuda(dx)) return cuda_kernels().adaptive_avg_pool2d_backward(dx, g);  // NOTE [ Device dispatch ]
  int64_t planes = dx.size(0) * dx.size(1), h = dx.size(2), w = dx.size(3), oh = g.size(2), ow = g.size(3);
  auto run = [&](auto tag) {
    using T = decltype(tag);
    T* px = dx.data<T>();
    const T* pg = g.data<T>();
    std::memset(px, 0, static_cast<size_t>(dx.numel()) * sizeof(T));
    parallel_for(0, planes, 1, [&](int64_t b, int64_t e) {
      for (int64_t p = b; p < e; ++p) {
        T* dst = px + p * h * w;
        for (int64_t oy = 0; oy < oh; ++oy) {
          int64_t y0 = (oy * h) / oh, y1 = ((oy + 1) * h + oh - 1) / oh;
          for (int64_t ox = 0; ox < ow; ++ox) {
            int64_t x0 = (ox * w) / ow, x1 = ((ox + 1) * w + ow - 1) / ow;
            T v = static_cast<T>(pg[(p * oh + oy) * ow + ox] / static_cast<double>((y1 - y0) * (x1 - x0)));
            for (int64_t iy = y0; iy < y1; ++iy)
              for (int64_t ix = x0; ix < x1; ++ix) dst[iy * w + ix] += v;
          }
        }
      }
    });
  };
  if (dx.dtype() == DType::Float32) return run(float{});
  if (dx.dtype() == DType::Float64) return run(double{});
  throw TypeError("[adaptive_avg_pool2d] needs a floating point tensor");
}

void max_pool2d_backward(const Tensor& dx, const Tensor& g, const Tensor& idx) {
  if (on_cuda(dx)) return cuda_kernels().max_pool2d_backward(dx, g, idx);  // NOTE [ Device dispatch ]
  int64_t planes = dx.size(0) * dx.size(1), hw = dx.size(2) * dx.size(3), ohw = g.size(2) * g.size(3);
  auto run = [&](auto tag) {
    using T = decltype(tag);
    T* px = dx.data<T>();
    const T* pg = g.data<T>();
    const int64_t* pi = idx.data<int64_t>();
    parallel_for(0, planes, std::max<int64_t>(1, kGrain / std::max<int64_t>(hw, 1)), [&](int64_t b, int64_t e) {
      scatter_pooled(px + b * hw, pg + b * ohw, pi + b * ohw, e - b, hw, ohw);  // zeroed by the thread that adds
    });
  };
  if (dx.dtype() == DType::Float32) return run(float{});
  if (dx.dtype() == DType::Float64) return run(double{});
  throw TypeError("[max_pool2d] backward needs float32 or float64");
}

void index_add(const Tensor& out, int64_t dim, const Tensor& index, const Tensor& src) {
  if (on_cuda(out)) return cuda_kernels().index_add(out, dim, index, src);  // NOTE [ Device dispatch ]
  // out and src contiguous, viewed as [outer, r, inner]; out[o, ix[j], i] += src[o, j, i]
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < dim; ++d) outer *= out.size(d);
  for (int64_t d = dim + 1; d < out.dim(); ++d) inner *= out.size(d);
  int64_t rout = out.dim() ? out.size(dim) : 1, n = index.numel();
  const int64_t* ix = index.data<int64_t>();
  visit_dtype(out.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16> || std::is_same_v<T, bool>) {
      throw TypeError("[index_add] no CPU kernel for this dtype");
    } else {
      T* po = out.data<T>();
      const T* ps = src.data<T>();
      parallel_for(0, outer, 1, [&](int64_t b, int64_t e) {
        for (int64_t o = b; o < e; ++o)
          for (int64_t j = 0; j < n; ++j) {
            T* dst = po + (o * rout + ix[j]) * inner;
            const T* s = ps + (o * n + j) * inner;
            for (int64_t i = 0; i < inner; ++i) dst[i] += s[i];
          }
      });
    }
  });
}

}  // namespace tt::cpu
