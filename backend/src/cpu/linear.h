#pragma once
// The CPU half of linear with a bias (linear.cpp; NOTE [ Linear with bias ] in core/ops_linalg.cpp).
#include "typedtensor/tensor.h"

namespace tt::cpu {

// out [m, n] (contiguous) = x [m, k] @ w[n, k]^T + b [n], float32 / float64 (bfloat16 where the
// BLAS has a bfloat16 GEMM: the bias and product summed in float32, rounded once), as torch's addmm: out
// prefilled with the bias rows, then one GEMM with beta = 1 accumulating into them (no separate
// bias pass; k = 0 leaves the bias). x, w and b any strides (a layout BLAS cannot read is copied).
void linear_bias(const Tensor& out, const Tensor& x, const Tensor& w, const Tensor& b);

}  // namespace tt::cpu
