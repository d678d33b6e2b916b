// conv2d as im2col + cuBLAS GEMM (per group, batched over images, in chunks that keep the column
// buffer under 256 MiB; a 1x1 / stride-1 / unpadded conv multiplies the input directly), and the
// 2-d pools (one thread per output element). Index and padding rules mirror src/cpu/conv.cpp.
#include <algorithm>

#include "common.cuh"

namespace tt::cuda {
namespace {

template <class T>
__global__ void k_im2col(const T* x, T* col, int64_t nb, int64_t C, int64_t H, int64_t W, int64_t c0, int64_t Cg,
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

template <class T>
__global__ void k_add_bias(T* out, const T* bias, int64_t n, int64_t O, int64_t L) {
  int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n; i += step)
    out[i] += bias[(i / L) % O];
}

template <class T>
__global__ void k_max_pool(const T* x, T* out, int64_t* idx, int64_t planes, int64_t H, int64_t W, int64_t OH,
                           int64_t OW, int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t ph, int64_t pw,
                           int64_t dh, int64_t dw) {
  int64_t n = planes * OH * OW, step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n; i += step) {
    int64_t ox = i % OW, oy = (i / OW) % OH, p = i / (OH * OW);
    const T* src = x + p * H * W;
    T best = std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                                  : std::numeric_limits<T>::lowest();
    int64_t bi = -1;
    bool stop = false;
    for (int64_t ki = 0; ki < kh && !stop; ++ki) {
      int64_t iy = oy * sh - ph + ki * dh;
      if (iy < 0 || iy >= H) continue;
      for (int64_t kj = 0; kj < kw; ++kj) {
        int64_t ix = ox * sw - pw + kj * dw;
        if (ix < 0 || ix >= W) continue;
        T v = src[iy * W + ix];
        bool nan = false;
        if constexpr (std::is_floating_point_v<T>) nan = v != v;
        if (bi < 0 || v > best || nan) {
          best = v;
          bi = iy * W + ix;
          if (nan) {
            stop = true;
            break;
          }
        }
      }
    }
    out[i] = best;
    idx[i] = bi;
  }
}

template <class T>
__global__ void k_avg_pool(const T* x, T* out, int64_t planes, int64_t H, int64_t W, int64_t OH, int64_t OW,
                           int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t ph, int64_t pw, bool cip,
                           int64_t divisor) {
  int64_t n = planes * OH * OW, step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n; i += step) {
    int64_t ox = i % OW, oy = (i / OW) % OH, p = i / (OH * OW);
    const T* src = x + p * H * W;
    int64_t y0 = oy * sh - ph, x0 = ox * sw - pw;
    int64_t y1 = y0 + kh < H + ph ? y0 + kh : H + ph, x1 = x0 + kw < W + pw ? x0 + kw : W + pw;
    int64_t pool = (y1 - y0) * (x1 - x0);
    y0 = y0 > 0 ? y0 : 0;
    x0 = x0 > 0 ? x0 : 0;
    y1 = y1 < H ? y1 : H;
    x1 = x1 < W ? x1 : W;
    double s = 0;
    for (int64_t iy = y0; iy < y1; ++iy)
      for (int64_t ix = x0; ix < x1; ++ix) s += static_cast<double>(src[iy * W + ix]);
    int64_t div = divisor > 0 ? divisor : (cip ? pool : (y1 - y0) * (x1 - x0));
    out[i] = static_cast<T>(s / static_cast<double>(div));
  }
}

template <class T>
__global__ void k_adaptive_avg(const T* x, T* out, int64_t planes, int64_t H, int64_t W, int64_t OH, int64_t OW) {
  int64_t n = planes * OH * OW, step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n; i += step) {
    int64_t ox = i % OW, oy = (i / OW) % OH, p = i / (OH * OW);
    const T* src = x + p * H * W;
    int64_t y0 = (oy * H) / OH, y1 = ((oy + 1) * H + OH - 1) / OH;
    int64_t x0 = (ox * W) / OW, x1 = ((ox + 1) * W + OW - 1) / OW;
    double s = 0;
    for (int64_t iy = y0; iy < y1; ++iy)
      for (int64_t ix = x0; ix < x1; ++ix) s += static_cast<double>(src[iy * W + ix]);
    out[i] = static_cast<T>(s / static_cast<double>((y1 - y0) * (x1 - x0)));
  }
}

}  // namespace

void conv2d(const Tensor& out, const Tensor& x, const Tensor& w, const Tensor* bias, int64_t sh, int64_t sw,
            int64_t ph, int64_t pw, int64_t dh, int64_t dw, int64_t groups) {
  if (out.numel() == 0) return;
  int64_t N = x.size(0), C = x.size(1), H = x.size(2), W = x.size(3);
  int64_t O = w.size(0), KH = w.size(2), KW = w.size(3), OH = out.size(2), OW = out.size(3);
  int64_t Cg = C / groups, Og = O / groups, K = Cg * KH * KW, L = OH * OW;
  if (K == 0) {
    fill(out, Scalar::from_int(0));
  } else {
    visit_float(x.dtype(), "conv2d", [&](auto tag) {
      using T = decltype(tag);
      const T* px = static_cast<const T*>(x.raw());
      const T* pw_ = static_cast<const T*>(w.raw());
      T* po = static_cast<T*>(out.raw());
      bool direct = KH == 1 && KW == 1 && sh == 1 && sw == 1 && ph == 0 && pw == 0;
      int64_t per_image = K * L * static_cast<int64_t>(sizeof(T));
      int64_t chunk = direct ? N : std::max<int64_t>(1, (int64_t(256) << 20) / std::max<int64_t>(per_image, 1));
      if (chunk > N) chunk = N;
      Scratch col(direct ? 1 : static_cast<size_t>(chunk * K * L) * sizeof(T));
      for (int64_t n0 = 0; n0 < N; n0 += chunk) {
        int64_t nb = std::min(chunk, N - n0);
        for (int64_t g = 0; g < groups; ++g) {
          const T* bmat;
          int64_t ldb, sbat;
          if (direct) {
            bmat = px + (n0 * C + g * Cg) * H * W;
            ldb = L;
            sbat = C * H * W;
          } else {
            k_im2col<T><<<grid_for(nb * K * L), kThreads, 0, kStream>>>(px + n0 * C * H * W, col.as<T>(), nb, C, H, W,
                                                                        g * Cg, Cg, KH, KW, OH, OW, sh, sw, ph, pw,
                                                                        dh, dw);
            check_launch("conv2d");
            bmat = col.as<T>();
            ldb = L;
            sbat = K * L;
          }
          gemm_raw(x.dtype(), false, false, Og, L, K, pw_ + g * Og * K, K, 0, bmat, ldb, sbat,
                   po + (n0 * O + g * Og) * L, L, O * L, nb);
        }
      }
    });
  }
  if (bias) {
    visit_float(x.dtype(), "conv2d", [&](auto tag) {
      using T = decltype(tag);
      int64_t n = out.numel();
      k_add_bias<T><<<grid_for(n), kThreads, 0, kStream>>>(static_cast<T*>(out.raw()),
                                                           static_cast<const T*>(bias->raw()), n, O, L);
      check_launch("conv2d");
    });
  }
}

void max_pool2d(const Tensor& out, const Tensor& idx, const Tensor& x, int64_t kh, int64_t kw, int64_t sh,
                int64_t sw, int64_t ph, int64_t pw, int64_t dh, int64_t dw) {
  int64_t planes = x.size(0) * x.size(1), H = x.size(2), W = x.size(3), OH = out.size(2), OW = out.size(3);
  if (x.dtype() == DType::Bool) throw TypeError("[max_pool2d] not supported for bool tensors");
  visit_compute(x.dtype(), "max_pool2d", [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!std::is_same_v<T, bool>) {
      k_max_pool<T><<<grid_for(planes * OH * OW), kThreads, 0, kStream>>>(
          static_cast<const T*>(x.raw()), static_cast<T*>(out.raw()), static_cast<int64_t*>(idx.raw()), planes, H, W,
          OH, OW, kh, kw, sh, sw, ph, pw, dh, dw);
      check_launch("max_pool2d");
    }
  });
}

void avg_pool2d(const Tensor& out, const Tensor& x, int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t ph,
                int64_t pw, bool count_include_pad, int64_t divisor) {
  int64_t planes = x.size(0) * x.size(1), H = x.size(2), W = x.size(3), OH = out.size(2), OW = out.size(3);
  visit_float(x.dtype(), "avg_pool2d", [&](auto tag) {
    using T = decltype(tag);
    k_avg_pool<T><<<grid_for(planes * OH * OW), kThreads, 0, kStream>>>(
        static_cast<const T*>(x.raw()), static_cast<T*>(out.raw()), planes, H, W, OH, OW, kh, kw, sh, sw, ph, pw,
        count_include_pad, divisor);
    check_launch("avg_pool2d");
  });
}

void adaptive_avg_pool2d(const Tensor& out, const Tensor& x) {
  int64_t planes = x.size(0) * x.size(1), H = x.size(2), W = x.size(3), OH = out.size(2), OW = out.size(3);
  if (out.numel() == 0) return;
  visit_float(x.dtype(), "adaptive_avg_pool2d", [&](auto tag) {
    using T = decltype(tag);
    k_adaptive_avg<T><<<grid_for(planes * OH * OW), kThreads, 0, kStream>>>(
        static_cast<const T*>(x.raw()), static_cast<T*>(out.raw()), planes, H, W, OH, OW);
    check_launch("adaptive_avg_pool2d");
  });
}

}  // namespace tt::cuda
