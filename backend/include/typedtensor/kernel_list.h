#pragma once
// NOTE [ One kernel list ]
// Every kernel a device implements, written once: X(return type, name, (parameters), (arguments)); those
// named after an op are written in its op-table entry (`kernel`) and come from generated/kernels.inc.
// Expanded by the CPU kernels' declarations (backend/src/cpu/kernels.h), the device kernel table
// (DeviceKernels in typedtensor/device.h, whose defaults throw "[op] no CUDA kernel for op"), the
// CUDA backend's declarations and its table entry (backend/src/cuda/kernels.h, backend.cu) and the
// host-emulated device (backend/src/core/device_emulator.cpp). The arguments are the parameters'
// names, in order. Contracts: callers (the primitives in src/core) have checked shapes and dtypes;
// operands have the output's shape (broadcast views allowed) and the kernel's compute dtype.
// "Middle axis" means the r axis of a contiguous [outer, r, inner] block.
#include <cstdint>
#include <optional>

#include "typedtensor/generated/kernels.inc"
#include "typedtensor/op_kinds.h"
#include "typedtensor/tensor.h"

#define TT_DEVICE_KERNELS(X)                                                                                         \
  /* ---- elementwise ---- */                                                                                        \
  X(void, binary, (BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b), (op, out, a, b))               \
  X(void, unary, (UnaryOp op, const Tensor& out, const Tensor& a), (op, out, a))                                     \
  /* same shape; casts between any dtypes */                                                                         \
  X(void, copy, (const Tensor& dst, const Tensor& src), (dst, src))                                                  \
  X(void, fill, (const Tensor& dst, Scalar v), (dst, v))                                                             \
  X(bool, any_zero, (const Tensor& a), (a))                                                                          \
  X(bool, any_nonfinite, (const Tensor& a), (a))                                                                     \
  /* out = g * f'(x) for op in {Gelu, GeluTanh, Silu}; for Relu, x is relu's output and out = x > 0 ? g : 0 */      \
  X(void, activation_backward, (UnaryOp op, const Tensor& out, const Tensor& g, const Tensor& x), (op, out, g, x))   \
  /* ---- reductions and row-wise ops over the middle axis ---- */                                                   \
  X(void, reduce, (ReduceOp op, const Tensor& out, const Tensor& in, int64_t outer, int64_t r, int64_t inner),       \
    (op, out, in, outer, r, inner))                                                                                  \
  X(void, arg_reduce,                                                                                                \
    (bool is_max, const Tensor& values, const Tensor& indices, const Tensor& in, int64_t outer, int64_t r,           \
     int64_t inner),                                                                                                 \
    (is_max, values, indices, in, outer, r, inner))                                                                  \
  X(void, cumulative, (bool prod, const Tensor& out, const Tensor& in, int64_t outer, int64_t r, int64_t inner),     \
    (prod, out, in, outer, r, inner))                                                                                \
  /* the variance (with sd, the standard deviation: the root taken before rounding to the dtype) */                 \
  X(void, variance,                                                                                                  \
    (const Tensor& out, const Tensor& in, int64_t outer, int64_t r, int64_t inner, double correction, bool sd),      \
    (out, in, outer, r, inner, correction, sd))                                                                      \
  /* ---- linear algebra and nn ---- */                                                                              \
  /* C[b] = A[b] @ B[b]; each operand is a [batch, rows, cols] strided view; float32/64 */                           \
  X(void, gemm_batched, (const Tensor& c, const Tensor& a, const Tensor& b), (c, a, b))                              \
  /* backward: outputs are written, not accumulated into */                                                          \
  X(void, conv2d_backward_input,                                                                                     \
    (const Tensor& dx, const Tensor& g, const Tensor& w, int64_t sh, int64_t sw, int64_t ph, int64_t pw, int64_t dh, \
     int64_t dw, int64_t groups),                                                                                    \
    (dx, g, w, sh, sw, ph, pw, dh, dw, groups))                                                                      \
  X(void, conv2d_backward_weight,                                                                                    \
    (const Tensor& dw, const Tensor& g, const Tensor& x, int64_t sh, int64_t sw, int64_t ph, int64_t pw, int64_t dh, \
     int64_t dw_, int64_t groups),                                                                                   \
    (dw, g, x, sh, sw, ph, pw, dh, dw_, groups))                                                                     \
  X(void, avg_pool2d_backward,                                                                                       \
    (const Tensor& dx, const Tensor& g, int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t ph, int64_t pw,      \
     bool count_include_pad, int64_t divisor),                                                                       \
    (dx, g, kh, kw, sh, sw, ph, pw, count_include_pad, divisor))                                                     \
  X(void, adaptive_avg_pool2d_backward, (const Tensor& dx, const Tensor& g), (dx, g))                                \
  /* dx (zeroed here) += g at the flat in-plane positions idx (all contiguous NCHW) */                               \
  X(void, max_pool2d_backward, (const Tensor& dx, const Tensor& g, const Tensor& idx), (dx, g, idx))                 \
  /* ---- indexing ---- */                                                                                            \
  X(void, tri, (const Tensor& out, const Tensor& in, int64_t k, bool lower), (out, in, k, lower))                    \
  /* ---- random ---- */                                                                                             \
  X(void, rand_uniform, (const Tensor& out, double lo, double hi), (out, lo, hi))                                    \
  X(void, rand_normal, (const Tensor& out, double mean, double std), (out, mean, std))                               \
  X(void, rand_int, (const Tensor& out, int64_t lo, int64_t hi), (out, lo, hi))                                      \
  X(void, bernoulli_scalar, (const Tensor& out, double p), (out, p))                                                 \
  /* ---- the kernels named after an op (their table entries' `kernel`; index tensors are int64 and  */         \
  /* already bounds-checked) ---- */                                                                                 \
  TT_OP_KERNELS(X)

// The parenthesised argument list of an entry, unwrapped: f(TT_KERNEL_ARGS args).
#define TT_KERNEL_ARGS(...) __VA_ARGS__
