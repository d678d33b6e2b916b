#pragma once
// CPU kernels. Callers (the primitives in src/core) have already checked shapes and dtypes:
// operands have the output's shape (broadcast views allowed) and the kernel's compute dtype.
#include <cstdint>
#include <optional>

#include "typedtensor/device.h"
#include "typedtensor/ops.h"

namespace tt::cpu {

void binary(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b);
void unary(UnaryOp op, const Tensor& out, const Tensor& a);
// out = g * f'(x) for op in {Gelu, GeluTanh, Silu}; for Relu, x is relu's output and out = x > 0 ? g : 0;
void activation_backward(UnaryOp op, const Tensor& out, const Tensor& g, const Tensor& x);
// y += alpha * x; y, x contiguous CPU tensors of one shape and dtype (float32/64), not overlapping
void axpy(const Tensor& y, const Tensor& x, double alpha);
void leaky_relu(const Tensor& out, const Tensor& a, double slope);
void elu(const Tensor& out, const Tensor& a, double alpha);
void copy(const Tensor& dst, const Tensor& src);  // same shape; casts between any dtypes
void fill(const Tensor& dst, Scalar v);
void where(const Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b);
void clamp(const Tensor& out, const Tensor& a, std::optional<double> lo, std::optional<double> hi);
// out = lerp(a, b, w) for float tensors of out's shape, torch's formula (exact at w = 0 and 1)
void lerp(const Tensor& out, const Tensor& a, const Tensor& b, double w);
bool any_zero(const Tensor& a);
bool any_nonfinite(const Tensor& a);

// reductions over the middle axis of a contiguous [outer, r, inner] block
void reduce(ReduceOp op, const Tensor& out, const Tensor& in, int64_t outer, int64_t r, int64_t inner);
void arg_reduce(bool is_max, const Tensor& values, const Tensor& indices, const Tensor& in,
                int64_t outer, int64_t r, int64_t inner);
void cumulative(bool prod, const Tensor& out, const Tensor& in, int64_t outer, int64_t r, int64_t inner);

// softmax / log_softmax along the middle axis of contiguous [outer, r, inner]
void softmax(const Tensor& out, const Tensor& in, int64_t outer, int64_t r, int64_t inner, bool log);
void logsumexp(const Tensor& out, const Tensor& in, int64_t outer, int64_t r, int64_t inner);
// cross-entropy of contiguous [n, c] float logits and [n] int64 class indices in [0, c) or equal
// to ignore_index (loss.cpp): per-row losses (0 where ignored), and dx = (softmax - onehot) * scale
// per row (0 where ignored)
void cross_entropy_rows(const Tensor& loss, const Tensor& x, const Tensor& t, int64_t ignore_index);
void cross_entropy_backward(const Tensor& dx, const Tensor& x, const Tensor& t, int64_t ignore_index, double scale);
void layer_norm(const Tensor& out, const Tensor& in, const Tensor* w, const Tensor* b, int64_t rows,
                int64_t cols, double eps);
// the variance (or, with sd, the standard deviation: the root taken before rounding to the dtype)
void variance(const Tensor& out, const Tensor& in, int64_t outer, int64_t r, int64_t inner, double correction,
              bool sd = false);
// sqrt of the sum of squares over the middle axis (the 2-norm), accumulated in double
void norm2(const Tensor& out, const Tensor& in, int64_t outer, int64_t r, int64_t inner);

// C[b] = A[b] @ B[b]; each operand is a [batch, rows, cols] strided view; float32/64 via BLAS
void gemm_batched(const Tensor& c, const Tensor& a, const Tensor& b);
// NOTE [ One thread pool ]: OpenBLAS runs single-threaded; a large GEMM is split into row (or
// column) blocks over parallel_for, so OpenMP's pool is the only one (two pools spinning against
// each other stalled a loaded 2-core machine for milliseconds per op). Row-major C = op(A) op(B)
// (alpha 1, beta 0 or 1); serial inside a parallel region.
template <class T>
void blas_gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, const T* b,
               int64_t ldb, T beta, T* c, int64_t ldc);

void conv2d(const Tensor& out, const Tensor& x, const Tensor& w, const Tensor* bias, int64_t sh, int64_t sw,
            int64_t ph, int64_t pw, int64_t dh, int64_t dw, int64_t groups);
void max_pool2d(const Tensor& out, const Tensor& idx, const Tensor& x, int64_t kh, int64_t kw, int64_t sh,
                int64_t sw, int64_t ph, int64_t pw, int64_t dh, int64_t dw);
void avg_pool2d(const Tensor& out, const Tensor& x, int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t ph,
                int64_t pw, bool count_include_pad, int64_t divisor);
void adaptive_avg_pool2d(const Tensor& out, const Tensor& x);
// backward (conv_backward.cpp): outputs are written, not accumulated into
void conv2d_backward_input(const Tensor& dx, const Tensor& g, const Tensor& w, int64_t sh, int64_t sw, int64_t ph,
                           int64_t pw, int64_t dh, int64_t dw, int64_t groups);
void conv2d_backward_weight(const Tensor& dw, const Tensor& g, const Tensor& x, int64_t sh, int64_t sw, int64_t ph,
                            int64_t pw, int64_t dh, int64_t dw_, int64_t groups);
void avg_pool2d_backward(const Tensor& dx, const Tensor& g, int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t ph,
                         int64_t pw, bool count_include_pad, int64_t divisor);
void adaptive_avg_pool2d_backward(const Tensor& dx, const Tensor& g);
// dx (zeroed here) += g at the flat in-plane positions idx (all contiguous NCHW)
void max_pool2d_backward(const Tensor& dx, const Tensor& g, const Tensor& idx);
// out[..., index[j], ...] += src[..., j, ...] along dim (out, src contiguous; index int64, checked)
void index_add(const Tensor& out, int64_t dim, const Tensor& index, const Tensor& src);

// indexing (index tensors are int64 and already bounds-checked)
void index_select(const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index);
void gather(const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index);
void scatter(const Tensor& out, int64_t dim, const Tensor& index, const Tensor& src, int reduce);  // 0 set 1 add 2 mul
void masked_fill(const Tensor& out, const Tensor& mask, const Tensor& value);  // out broadcast-shaped, in place
void tri(const Tensor& out, const Tensor& in, int64_t k, bool lower);

// random
void rand_uniform(const Tensor& out, double lo, double hi);
void rand_normal(const Tensor& out, double mean, double std);
void rand_int(const Tensor& out, int64_t lo, int64_t hi);
void bernoulli(const Tensor& out, const Tensor& p);
void bernoulli_scalar(const Tensor& out, double p);
void seed(uint64_t s);
uint64_t seed_value();
uint64_t next_u64();

}  // namespace tt::cpu
