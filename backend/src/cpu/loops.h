#pragma once
// NOTE [ Strided loops ]
// An elementwise kernel is an *inner loop* `f(char** ptrs, const int64_t* byte_strides, int64_t n)`
// over N operands of the same shape (operand 0 is the output). `for_each` coalesces adjacent
// dimensions, runs the inner loop along the last one, and splits the outer rows across threads.
// Inner loops test for unit/zero strides so the common cases are plain vectorisable loops.
#include <array>
#include <cstdint>

#include "parallel.h"
#include "typedtensor/tensor.h"

namespace tt::cpu {

template <int N>
struct Geometry {
  Shape shape;                             // coalesced shape
  std::array<SmallVec<int64_t>, N> strides;  // byte strides per operand
  std::array<char*, N> base;
};

template <int N>
Geometry<N> make_geometry(const std::array<const Tensor*, N>& ts) {
  Geometry<N> g;
  const Shape& shape = ts[0]->shape();
  size_t nd = shape.size();
  for (int k = 0; k < N; ++k) g.base[k] = static_cast<char*>(ts[k]->raw());
  // drop size-1 dims, then merge dims contiguous in every operand
  Shape sh;
  std::array<SmallVec<int64_t>, N> st;
  for (size_t d = 0; d < nd; ++d) {
    if (shape[d] == 1) continue;
    sh.push_back(shape[d]);
    for (int k = 0; k < N; ++k)
      st[k].push_back(ts[k]->strides()[d] * static_cast<int64_t>(ts[k]->itemsize()));
  }
  if (sh.empty()) {
    sh.push_back(1);
    for (int k = 0; k < N; ++k) st[k].push_back(0);
  }
  g.shape.push_back(sh[0]);
  for (int k = 0; k < N; ++k) g.strides[k].push_back(st[k][0]);
  for (size_t d = 1; d < sh.size(); ++d) {
    bool merge = true;
    for (int k = 0; k < N; ++k)
      if (g.strides[k].back() != st[k][d] * sh[d]) merge = false;
    if (merge) {
      g.shape.back() *= sh[d];
      for (int k = 0; k < N; ++k) g.strides[k].back() = st[k][d];
    } else {
      g.shape.push_back(sh[d]);
      for (int k = 0; k < N; ++k) g.strides[k].push_back(st[k][d]);
    }
  }
  return g;
}

// Runs inner(ptrs, strides, n) over all elements of operands that share ts[0]'s shape.
template <int N, class Inner>
void for_each(const std::array<const Tensor*, N>& ts, Inner&& inner, int64_t grain = kGrain) {
  int64_t numel = ts[0]->numel();
  if (numel == 0) return;
  Geometry<N> g = make_geometry<N>(ts);
  size_t nd = g.shape.size();
  int64_t inner_n = g.shape[nd - 1];
  std::array<int64_t, N> inner_st;
  for (int k = 0; k < N; ++k) inner_st[k] = g.strides[k][nd - 1];
  if (nd == 1) {  // one flat run: split it
    parallel_for(0, inner_n, grain, [&](int64_t b, int64_t e) {
      std::array<char*, N> p;
      for (int k = 0; k < N; ++k) p[k] = g.base[k] + b * inner_st[k];
      inner(p.data(), inner_st.data(), e - b);
    });
    return;
  }
  int64_t rows = numel / inner_n;
  int64_t row_grain = std::max<int64_t>(1, grain / std::max<int64_t>(inner_n, 1));
  parallel_for(0, rows, row_grain, [&](int64_t rb, int64_t re) {
    // multi-index of row rb over dims [0, nd-1)
    SmallVec<int64_t> idx(nd - 1, 0);
    int64_t r = rb;
    for (size_t d = nd - 1; d-- > 0;) {
      idx[d] = r % g.shape[d];
      r /= g.shape[d];
    }
    std::array<char*, N> p;
    for (int k = 0; k < N; ++k) {
      p[k] = g.base[k];
      for (size_t d = 0; d + 1 < nd; ++d) p[k] += idx[d] * g.strides[k][d];
    }
    for (int64_t row = rb; row < re; ++row) {
      inner(p.data(), inner_st.data(), inner_n);
      for (size_t d = nd - 1; d-- > 0;) {  // advance the odometer
        for (int k = 0; k < N; ++k) p[k] += g.strides[k][d];
        if (++idx[d] < g.shape[d]) break;
        for (int k = 0; k < N; ++k) p[k] -= g.strides[k][d] * g.shape[d];
        idx[d] = 0;
      }
    }
  });
}

}  // namespace tt::cpu
