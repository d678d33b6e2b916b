#pragma once
// The CPU half of linear with a bias (linear.cpp; NOTE [ Linear with bias ] in core/ops_linalg.cpp).
#include "typedtensor/tensor.h"

namespace tt::cpu {

// out [m, n] = x [m, k] @ w[n, k]^T + b [n], float32 / float64: one GEMM, then the bias added in
// place into its result (no second output buffer). x has a unit last stride; w and b any strides.
void linear_bias(const Tensor& out, const Tensor& x, const Tensor& w, const Tensor& b);

}  // namespace tt::cpu
