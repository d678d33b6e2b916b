#pragma once
// im2col for conv2d's forward and weight-gradient GEMMs: each (channel, ky, kx) row of `col` holds
// the input pixels that kernel tap sees at every output position (zeros where it reads padding).
#include <algorithm>
#include <cstdint>
#include <cstring>

namespace tt::cpu {

// Output rows [oy0, oy1) only: `col` is (c kh kw) x ((oy1 - oy0) ow), so a forward pass can work
// through the image in tiles whose columns stay in L2 between im2col and the GEMM that reads them.
template <class T>
void im2col_rows(const T* x, int64_t c, int64_t h, int64_t w, int64_t kh, int64_t kw, int64_t sh, int64_t sw,
                 int64_t ph, int64_t pw, int64_t dh, int64_t dw, int64_t oy0, int64_t oy1, int64_t ow, T* col) {
  int64_t cols = (oy1 - oy0) * ow;
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
