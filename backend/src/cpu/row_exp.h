#pragma once
// A row's exps and their sum, shared by softmax (rowwise.cpp) and the fused cross-entropy
// (loss.cpp): summed by contiguous_sum's float lanes flushed into a double, so a row of one exp
// near 1 and many tiny ones keeps the tiny ones (a float running sum rounds each away against the 1).
#include <algorithm>
#include <cstdint>

#include "reduce_lanes.h"
#include "unary_span.h"
#include "unary_wide.h"

namespace tt::cpu {

// exp(x[j] - shift) into dst[j] and their sum: the subtraction, then the unary exp span kernel
// (its AVX-512 copy where the CPU has one: twice the rate of rowwise.cpp's 8-lane
// AVX2 exp_sum), then a lane-parallel sum, all while the row sits in L1/L2. dst is softmax's output
// row (log_softmax's as scratch before it is overwritten; cross-entropy's gradient row, or scratch).
template <class T>
inline Acc<T> row_exp_sum(const T* x, T* dst, int64_t n, T shift) {
  constexpr int64_t kChunk = 512;
  alignas(64) T shifted[kChunk];
  const bool wide = wide_unary_enabled();
  for (int64_t j0 = 0; j0 < n; j0 += kChunk) {
    int64_t k = std::min(kChunk, n - j0);
    for (int64_t j = 0; j < k; ++j) shifted[j] = x[j0 + j] - shift;
    if (wide) unary_span_wide(UnaryOp::Exp, dst + j0, shifted, k);
    else unary_span<T>(UnaryOp::Exp, dst + j0, shifted, k);
  }
  return contiguous_sum(dst, n);
}

}  // namespace tt::cpu
