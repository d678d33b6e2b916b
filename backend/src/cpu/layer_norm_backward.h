#pragma once
// layer_norm's backward in one pass over the rows (layer_norm_backward.cpp).
#include "typedtensor/tensor.h"

namespace tt::cpu {

// For contiguous x and g [rows, cols] (float32/64) and weight w [cols] (or none): dx [rows, cols],
// and, when given, dw = sum_rows(g * xhat) and db = sum_rows(g) [cols]; the row statistics are
// recomputed from x as the forward computed them.
void layer_norm_backward(const Tensor& dx, const Tensor* dw, const Tensor* db, const Tensor& x, const Tensor* w,
                         const Tensor& g, int64_t rows, int64_t cols, double eps);

}  // namespace tt::cpu
