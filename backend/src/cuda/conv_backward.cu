// Backward kernels of conv2d and the average pools (the autograd branch's CPU kernels in
// src/cpu/conv_backward.cpp, on the GPU). conv2d: per group, a batched cuBLAS GEMM over a chunk of
// images, then col2im as a gather (each input pixel sums the column entries that read it: no
// atomics); the weight gradient sums per-image GEMM products over the batch. Pools: each output
// gradient is added into its window with atomicAdd (windows overlap when stride < kernel).
#include <algorithm>

#include "common.cuh"

namespace tt::cuda {
namespace {

template <class T>
__global__ void k_im2col_b(const T* x, T* col, int64_t nb, int64_t C, int64_t H, int64_t W, int64_t c0, int64_t Cg,
                           int64_t KH, int64_t KW, int64_t OH, int64_t OW, int64_t sh, int64_t sw, int64_t ph,
                           int64_t pw, int64_t dh, int64_t dw) {
  int64_t L = OH * OW, K = Cg * KH * KW, n = nb * K * L, step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n; i += step) {
    int64_t l = i % L, kk = (i / L) % K, b = i / (K * L);
    int64_t c = kk / (KH * KW), ki = (kk / KW) % KH, kj = kk % KW;
    int64_t oy = l / OW, ox = l % OW;
    int64_t iy = oy * sh - ph + ki * dh, ix = ox * sw - pw + kj * dw;
    col[i] = (iy >= 0 && iy < H && ix >= 0 && ix < W) ? x[((b * C) + c0 + c) * H * W + iy * W + ix] : T(0);
  }
}

// dx[b, c0 + c, y, x] = sum of col[b, (c, ki, kj), (oy, ox)] over the taps that read (y, x)
template <class T>
__global__ void k_col2im(const T* col, T* dx, int64_t nb, int64_t C, int64_t H, int64_t W, int64_t c0, int64_t Cg,
                         int64_t KH, int64_t KW, int64_t OH, int64_t OW, int64_t sh, int64_t sw, int64_t ph,
                         int64_t pw, int64_t dh, int64_t dw) {
  int64_t L = OH * OW, K = Cg * KH * KW, n = nb * Cg * H * W, step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n; i += step) {
    int64_t x = i % W, y = (i / W) % H, c = (i / (H * W)) % Cg, b = i / (Cg * H * W);
    T s = 0;
    for (int64_t ki = 0; ki < KH; ++ki) {
      int64_t ty = y + ph - ki * dh;
      if (ty < 0 || ty % sh) continue;
      int64_t oy = ty / sh;
      if (oy >= OH) continue;
      for (int64_t kj = 0; kj < KW; ++kj) {
        int64_t tx = x + pw - kj * dw;
        if (tx < 0 || tx % sw) continue;
        int64_t ox = tx / sw;
        if (ox >= OW) continue;
        s += col[(b * K + (c * KH + ki) * KW + kj) * L + oy * OW + ox];
      }
    }
    dx[((b * C) + c0 + c) * H * W + y * W + x] = s;
  }
}

// out[i] += sum_b part[b * m + i]
template <class T>
__global__ void k_sum_batches(const T* part, T* out, int64_t nb, int64_t m) {
  int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < m; i += step) {
    T s = 0;
    for (int64_t b = 0; b < nb; ++b) s += part[b * m + i];
    out[i] += s;
  }
}

template <class T>
__global__ void k_avg_pool_bwd(T* dx, const T* g, int64_t planes, int64_t H, int64_t W, int64_t OH, int64_t OW,
                               int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t ph, int64_t pw, bool cip,
                               int64_t divisor, bool adaptive) {
  int64_t n = planes * OH * OW, step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n; i += step) {
    int64_t ox = i % OW, oy = (i / OW) % OH, p = i / (OH * OW);
    int64_t y0, y1, x0, x1, div;
    if (adaptive) {
      y0 = (oy * H) / OH, y1 = ((oy + 1) * H + OH - 1) / OH;
      x0 = (ox * W) / OW, x1 = ((ox + 1) * W + OW - 1) / OW;
      div = (y1 - y0) * (x1 - x0);
    } else {
      y0 = oy * sh - ph, x0 = ox * sw - pw;
      y1 = y0 + kh < H + ph ? y0 + kh : H + ph;
      x1 = x0 + kw < W + pw ? x0 + kw : W + pw;
      int64_t pool = (y1 - y0) * (x1 - x0);
      y0 = y0 > 0 ? y0 : 0;
      x0 = x0 > 0 ? x0 : 0;
      y1 = y1 < H ? y1 : H;
      x1 = x1 < W ? x1 : W;
      div = divisor > 0 ? divisor : (cip ? pool : (y1 - y0) * (x1 - x0));
    }
    T v = static_cast<T>(static_cast<double>(g[i]) / static_cast<double>(div));
    T* dst = dx + p * H * W;
    for (int64_t iy = y0; iy < y1; ++iy)
      for (int64_t ix = x0; ix < x1; ++ix) atomicAdd(dst + iy * W + ix, v);
  }
}

template <class T>
void pool_bwd(const Tensor& dx, const Tensor& g, int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t ph,
              int64_t pw, bool cip, int64_t divisor, bool adaptive, const char* name) {
  int64_t planes = dx.size(0) * dx.size(1), H = dx.size(2), W = dx.size(3), OH = g.size(2), OW = g.size(3);
  check(cudaMemsetAsync(dx.raw(), 0, static_cast<size_t>(dx.numel()) * sizeof(T), kStream), name);
  if (g.numel() == 0) return;
  k_avg_pool_bwd<T><<<grid_for(planes * OH * OW), kThreads, 0, kStream>>>(
      static_cast<T*>(dx.raw()), static_cast<const T*>(g.raw()), planes, H, W, OH, OW, kh, kw, sh, sw, ph, pw, cip,
      divisor, adaptive);
  check_launch(name);
}

// dx[p, idx] += g[p, j] for every pooled output j (the argmax positions; -1: empty window)
template <class T>
__global__ void k_max_pool_bwd(T* dx, const T* g, const int64_t* idx, int64_t planes, int64_t hw, int64_t ohw) {
  int64_t n = planes * ohw, step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n; i += step) {
    int64_t k = idx[i];
    if (k >= 0) atomicAdd(dx + (i / ohw) * hw + k, g[i]);
  }
}

int64_t chunk_for(int64_t per_image_bytes, int64_t n) {
  int64_t c = std::max<int64_t>(1, (int64_t(256) << 20) / std::max<int64_t>(per_image_bytes, 1));
  return std::min(c, n);
}

}  // namespace

void conv2d_backward_input(const Tensor& dx, const Tensor& g, const Tensor& w, int64_t sh, int64_t sw, int64_t ph,
                           int64_t pw, int64_t dh, int64_t dw, int64_t groups) {
  if (dx.numel() == 0) return;
  int64_t N = dx.size(0), C = dx.size(1), H = dx.size(2), W = dx.size(3);
  int64_t O = w.size(0), KH = w.size(2), KW = w.size(3), OH = g.size(2), OW = g.size(3);
  int64_t Cg = C / groups, Og = O / groups, K = Cg * KH * KW, L = OH * OW;
  if (Og == 0 || L == 0) {
    fill(dx, Scalar::from_int(0));
    return;
  }
  visit_float(dx.dtype(), "conv2d", [&](auto tag) {
    using T = decltype(tag);
    T* px = static_cast<T*>(dx.raw());
    const T* pg = static_cast<const T*>(g.raw());
    const T* pw_ = static_cast<const T*>(w.raw());
    bool direct = KH == 1 && KW == 1 && sh == 1 && sw == 1 && ph == 0 && pw == 0;
    int64_t chunk = direct ? N : chunk_for(K * L * static_cast<int64_t>(sizeof(T)), N);
    Scratch col(direct ? 1 : static_cast<size_t>(chunk * K * L) * sizeof(T));
    for (int64_t n0 = 0; n0 < N; n0 += chunk) {
      int64_t nb = std::min(chunk, N - n0);
      for (int64_t gi = 0; gi < groups; ++gi) {
        // col[b] [K, L] = W_g^T [K, Og] @ g[b, group] [Og, L]   (W_g is stored [Og, K]: column-major W_g^T)
        const T* gb = pg + (n0 * O + gi * Og) * L;
        if (direct) {
          gemm_raw(dx.dtype(), true, false, K, L, Og, pw_ + gi * Og * K, K, 0, gb, L, O * L,
                   px + (n0 * C + gi * Cg) * H * W, L, C * H * W, nb);
        } else {
          gemm_raw(dx.dtype(), true, false, K, L, Og, pw_ + gi * Og * K, K, 0, gb, L, O * L, col.as<T>(), L, K * L, nb);
          k_col2im<T><<<grid_for(nb * Cg * H * W), kThreads, 0, kStream>>>(col.as<T>(), px + n0 * C * H * W, nb, C, H,
                                                                           W, gi * Cg, Cg, KH, KW, OH, OW, sh, sw, ph,
                                                                           pw, dh, dw);
          check_launch("conv2d");
        }
      }
    }
  });
}

void conv2d_backward_weight(const Tensor& dwt, const Tensor& g, const Tensor& x, int64_t sh, int64_t sw, int64_t ph,
                            int64_t pw, int64_t dh, int64_t dw, int64_t groups) {
  if (dwt.numel() == 0) return;
  int64_t N = x.size(0), C = x.size(1), H = x.size(2), W = x.size(3);
  int64_t O = dwt.size(0), KH = dwt.size(2), KW = dwt.size(3), OH = g.size(2), OW = g.size(3);
  int64_t Cg = C / groups, Og = O / groups, K = Cg * KH * KW, L = OH * OW;
  visit_float(dwt.dtype(), "conv2d", [&](auto tag) {
    using T = decltype(tag);
    T* pd = static_cast<T*>(dwt.raw());
    check(cudaMemsetAsync(pd, 0, static_cast<size_t>(dwt.numel()) * sizeof(T), kStream), "conv2d");
    if (N == 0 || L == 0) return;
    const T* pg = static_cast<const T*>(g.raw());
    const T* px = static_cast<const T*>(x.raw());
    bool direct = KH == 1 && KW == 1 && sh == 1 && sw == 1 && ph == 0 && pw == 0;
    int64_t per_image = (direct ? 0 : K * L) + Og * K;
    int64_t chunk = chunk_for(per_image * static_cast<int64_t>(sizeof(T)), N);
    Scratch col(direct ? 1 : static_cast<size_t>(chunk * K * L) * sizeof(T));
    Scratch part(static_cast<size_t>(chunk * Og * K) * sizeof(T));
    for (int64_t n0 = 0; n0 < N; n0 += chunk) {
      int64_t nb = std::min(chunk, N - n0);
      for (int64_t gi = 0; gi < groups; ++gi) {
        const T* src;
        int64_t sb;
        if (direct) {
          src = px + (n0 * C + gi * Cg) * H * W;
          sb = C * H * W;
        } else {
          k_im2col_b<T><<<grid_for(nb * K * L), kThreads, 0, kStream>>>(px + n0 * C * H * W, col.as<T>(), nb, C, H, W,
                                                                         gi * Cg, Cg, KH, KW, OH, OW, sh, sw, ph, pw,
                                                                         dh, dw);
          check_launch("conv2d");
          src = col.as<T>();
          sb = K * L;
        }
        // part[b] [Og, K] = g[b, group] [Og, L] @ col[b]^T [L, K]   (col[b] is [K, L]: column-major col^T)
        gemm_raw(dwt.dtype(), false, true, Og, K, L, pg + (n0 * O + gi * Og) * L, L, O * L, src, L, sb, part.as<T>(),
                 K, Og * K, nb);
        k_sum_batches<T><<<grid_for(Og * K), kThreads, 0, kStream>>>(part.as<T>(), pd + gi * Og * K, nb, Og * K);
        check_launch("conv2d");
      }
    }
  });
}

void avg_pool2d_backward(const Tensor& dx, const Tensor& g, int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t ph,
                         int64_t pw, bool count_include_pad, int64_t divisor) {
  visit_float(dx.dtype(), "avg_pool2d", [&](auto tag) {
    pool_bwd<decltype(tag)>(dx, g, kh, kw, sh, sw, ph, pw, count_include_pad, divisor, false, "avg_pool2d");
  });
}

void adaptive_avg_pool2d_backward(const Tensor& dx, const Tensor& g) {
  visit_float(dx.dtype(), "adaptive_avg_pool2d", [&](auto tag) {
    pool_bwd<decltype(tag)>(dx, g, 0, 0, 1, 1, 0, 0, false, 0, true, "adaptive_avg_pool2d");
  });
}

void max_pool2d_backward(const Tensor& dx, const Tensor& g, const Tensor& idx) {
  int64_t planes = dx.size(0) * dx.size(1), hw = dx.size(2) * dx.size(3), ohw = g.size(2) * g.size(3);
  visit_float(dx.dtype(), "max_pool2d", [&](auto tag) {
    using T = decltype(tag);
    check(cudaMemsetAsync(dx.raw(), 0, static_cast<size_t>(dx.numel()) * sizeof(T), kStream), "max_pool2d");
    if (planes * ohw == 0) return;
    k_max_pool_bwd<T><<<grid_for(planes * ohw), kThreads, 0, kStream>>>(
        static_cast<T*>(dx.raw()), static_cast<const T*>(g.raw()), static_cast<const int64_t*>(idx.raw()), planes, hw,
        ohw);
    check_launch("max_pool2d");
  });
}

}  // namespace tt::cuda
