#pragma once
// im2col for conv2d's forward and weight-gradient GEMMs: each (channel, ky, kx) row of `col` holds
// the input pixels that kernel tap sees at every output position (zeros where it reads padding).
#include <algorithm>
#include <cstdint>
#include <cstring>

namespace tt::cpu {

// NOTE [ Sample blocks ]
// A GEMM per sample has oh * ow columns: for small feature maps (a ResNet's 7x7 last stage, a
// generator's 1x1 to 8x8 first layers: a transposed convolution is the input-gradient kernel, NOTE
// [ Transposed convolution ] in conv_backward.cpp) that is a thin GEMM, far from the BLAS's speed.
// So samples go through in blocks whose columns sit side by side in one [c kh kw, nb * sp] matrix:
// - the forward: im2col writes each sample's columns at its offset (`ld` = nb * sp), one GEMM makes
//   the block's [o, nb * sp] product, and each sample's rows are copied (with the bias) into place;
// - the input gradient: the block's g rows are gathered into one [o, nb * sp] matrix, one GEMM makes
//   the columns of all nb samples, and col2im reads each sample's part with the block's row stride.
// The forward blocks only where one sample's columns outgrow L2 already (kBlockColumnBytes): columns
// that fitted L2 one sample at a time (a 64x64x7x7 3x3 convolution's 110 KB, 128x8x8's 288 KB) ran
// 5-25% slower as blocks that did not. At one thread on an AMD EPYC (Zen 3) the forward of 8x512x7x7
// (3x3, 512 out) took 0.72-0.91 of the per-sample time in four interleaved runs. The weight gradient
// keeps one GEMM per sample: blocks measured 0.93-1.42 of its time on the same shapes.
constexpr int64_t kBlockColumnBytes = int64_t(512) << 10;
inline int64_t sample_block(int64_t sp, int64_t n) {
  constexpr int64_t kColumns = 512;  // enough columns for a GEMM near its peak
  return std::max<int64_t>(1, std::min<int64_t>(n, kColumns / std::max<int64_t>(sp, 1)));
}

// Output rows [oy0, oy1) only: `col` is (c kh kw) x ((oy1 - oy0) ow) with rows `ld` apart (0: the
// row length itself), so a forward pass can work through the image in tiles whose columns stay in
// L2 between im2col and the GEMM that reads them, or write one sample's part of a sample block.
template <class T>
void im2col_rows(const T* x, int64_t c, int64_t h, int64_t w, int64_t kh, int64_t kw, int64_t sh, int64_t sw,
                 int64_t ph, int64_t pw, int64_t dh, int64_t dw, int64_t oy0, int64_t oy1, int64_t ow, T* col,
                 int64_t ld = 0) {
  int64_t cols = ld > 0 ? ld : (oy1 - oy0) * ow;
  for (int64_t ci = 0; ci < c; ++ci)
    for (int64_t ki = 0; ki < kh; ++ki)
      for (int64_t kj = 0; kj < kw; ++kj) {
        T* dst = col + ((ci * kh + ki) * kw + kj) * cols;
        const T* src = x + ci * h * w;
        for (int64_t oy = oy0; oy < oy1; ++oy) {
          int64_t iy = oy * sh - ph + ki * dh;
          T* drow = dst + (oy - oy0) * ow;
          if (iy < 0 || iy >= h) {
            for (int64_t ox = 0; ox < ow; ++ox) drow[ox] = T(0);
            continue;
          }
          const T* srow = src + iy * w;
          int64_t off = kj * dw - pw;
          if (sw == 1) {
            int64_t lo = std::max<int64_t>(0, -off), hi = std::min<int64_t>(ow, w - off);
            // the in-bounds run as one memcpy: a plain loop over bfloat16 (a struct) stayed scalar
            for (int64_t ox = 0; ox < std::min(lo, ow); ++ox) drow[ox] = T(0);
            if (hi > lo) std::memcpy(drow + lo, srow + lo + off, static_cast<size_t>(hi - lo) * sizeof(T));
            for (int64_t ox = std::max(hi, lo); ox < ow; ++ox) drow[ox] = T(0);
          } else {
            for (int64_t ox = 0; ox < ow; ++ox) {
              int64_t ix = ox * sw + off;
              drow[ox] = (ix >= 0 && ix < w) ? srow[ix] : T(0);
            }
          }
        }
      }
}

template <class T>
void im2col(const T* x, int64_t c, int64_t h, int64_t w, int64_t kh, int64_t kw, int64_t sh, int64_t sw,
            int64_t ph, int64_t pw, int64_t dh, int64_t dw, int64_t oh, int64_t ow, T* col) {
  im2col_rows(x, c, h, w, kh, kw, sh, sw, ph, pw, dh, dw, 0, oh, ow, col);
}

}  // namespace tt::cpu
