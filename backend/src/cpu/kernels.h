#pragma once
// CPU kernels: the device kernel list (NOTE [ One kernel list ] in typedtensor/kernel_list.h) and
// the kernels only the CPU has. Each listed kernel forwards a call on a CUDA tensor to the device
// table (NOTE [ Device dispatch ] in typedtensor/device.h).
#include <cstdint>
#include <optional>
#include <vector>

#include "typedtensor/device.h"
#include "typedtensor/kernel_list.h"
#include "typedtensor/ops.h"

namespace tt::cpu {

#define TT_CPU_KERNEL_DECL(ret, name, params, args) ret name params;
TT_DEVICE_KERNELS(TT_CPU_KERNEL_DECL)
#undef TT_CPU_KERNEL_DECL

// NOTE [ Convolution then max-pooling ] (conv.cpp): out, idx = max_pool2d(conv2d(x, w, bias)), with
// relu applied to the pooled values when `relu`; the convolution's output is made a few samples at a
// time in a scratch buffer and never written whole. conv = {sh, sw, ph, pw, dh, dw, groups}, pool =
// {kh, kw, sh, sw, ph, pw, dh, dw}, (oh, ow) the convolution's output size. Contiguous float32 or
// float64 CPU tensors, shapes checked by the caller.
void conv2d_max_pool2d(const Tensor& out, const Tensor& idx, const Tensor& x, const Tensor& w, const Tensor* bias,
                       const int64_t (&conv)[7], const int64_t (&pool)[8], int64_t oh, int64_t ow, bool relu);

// NOTE [ Gradients behind a max-pooling ] (conv_backward.cpp): dw = conv2d_backward_weight(g, x) and
// dx = conv2d_backward_input(g, w) of g = max_pool2d_backward(gp, idx), a [n, o, oh, ow] gradient
// made a sample at a time. Contiguous float32 or float64 CPU tensors, idx checked to lie in the
// oh * ow plane.
void conv2d_backward_weight_pooled(const Tensor& dw, const Tensor& gp, const Tensor& idx, const Tensor& x, int64_t oh,
                                   int64_t ow, const int64_t (&conv)[7]);
void conv2d_backward_input_pooled(const Tensor& dx, const Tensor& gp, const Tensor& idx, const Tensor& w, int64_t oh,
                                  int64_t ow, const int64_t (&conv)[7]);

// y += alpha * x; y, x contiguous CPU tensors of one shape and dtype (float32/64), not overlapping
void axpy(const Tensor& y, const Tensor& x, double alpha);
// out = lerp(a, b, w) for float tensors of out's shape, torch's formula (exact at w = 0 and 1)
void lerp(const Tensor& out, const Tensor& a, const Tensor& b, double w);
// cross-entropy of contiguous [n, c] float logits and [n] int64 class indices in [0, c) or equal
// to ignore_index (loss.cpp): per-row losses (0 where ignored), and dx = (softmax - onehot) * scale
// per row (0 where ignored)
void cross_entropy_rows(const Tensor& loss, const Tensor& x, const Tensor& t, int64_t ignore_index);
void cross_entropy_backward(const Tensor& dx, const Tensor& x, const Tensor& t, int64_t ignore_index, double scale);
// sqrt of the sum of squares over the middle axis (the 2-norm), accumulated in double
void norm2(const Tensor& out, const Tensor& in, int64_t outer, int64_t r, int64_t inner);

// NOTE [ One thread pool ]: OpenBLAS runs single-threaded; a large GEMM is split into row (or
// column) blocks over parallel_for, so OpenMP's pool is the only one (two pools spinning against
// each other stalled a loaded 2-core machine for milliseconds per op). Row-major C = op(A) op(B)
// (alpha 1, beta 0 or 1); serial inside a parallel region.
template <class T>
void blas_gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, const T* b,
               int64_t ldb, T beta, T* c, int64_t ldc);
// NOTE [ bfloat16 GEMM ] (gemm.cpp): row-major float32 C = op(A) op(B) + beta C for bfloat16 A and B,
// accumulated in float32, split over threads as blas_gemm; only where blas_has_bf16_gemm() (throws
// otherwise). half_run.h's narrow_run rounds the float32 results to bfloat16.
void blas_gemm_bf16(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const BFloat16* a, int64_t lda,
                    const BFloat16* b, int64_t ldb, float beta, float* c, int64_t ldc);
// float32 matrices rounded (nearest even) to bfloat16 for the bfloat16 GEMM (NOTE [ float32 matmul
// precision ] in gemm.cpp): op(X) is [rows, cols] at p, stored transposed when `trans`, with leading
// dimension ld; `batch` of them batch_stride apart (0: one matrix shared by the batch). The copy is
// compact with the same transposition: ld is its stored row length, batch_stride 0 when shared.
struct Bf16Matrices {
  Tensor keep;
  int64_t ld = 1, batch_stride = 0;
  const BFloat16* data() const { return keep.data<BFloat16>(); }
};
Bf16Matrices round_to_bf16(const float* p, bool trans, int64_t ld, int64_t rows, int64_t cols, int64_t batch = 1,
                           int64_t batch_stride = 0);
// A bfloat16 op run by its float32 kernel on widened copies of its operands (an undefined one, a
// missing bias, stays undefined), the kernel's result rounded into `out` once: the bfloat16 GEMM
// and convolutions where the BLAS has no bfloat16 GEMM (NOTE [ bfloat16 GEMM ] in gemm.cpp).
template <class Kernel>
void run_widened(const Tensor& out, const std::vector<Tensor>& in, const Kernel& kernel) {
  std::vector<Tensor> wide;
  for (const Tensor& t : in) {
    Tensor f = t;
    if (t.defined()) {
      f = empty(t.shape(), DType::Float32);
      copy(f, t);
    }
    wide.push_back(f);
  }
  Tensor wide_out = empty(out.shape(), DType::Float32);
  kernel(wide_out, wide);
  copy(out, wide_out);
}
// c [batch, m, n] (contiguous) += a [batch, m, k] @ b [batch, k, n], float32 / float64: BLAS with
// beta = 1 over what c holds; k = 0 leaves c as it is. bfloat16 where the BLAS multiplies it (NOTE
// [ bfloat16 GEMM ] in gemm.cpp): c widened, accumulated in float32, rounded once.
void gemm_accumulate(const Tensor& c, const Tensor& a, const Tensor& b);
// Whether BLAS reads a [rows, cols] view with strides (rs, cs) as it is: then its transposition
// and leading dimension (the one rule of gemm.cpp and of the graph's GEMM epilogues).
bool blas_readable(int64_t rows, int64_t cols, int64_t rs, int64_t cs, bool* trans, int64_t* ld);

// the random generator
void seed(uint64_t s);
uint64_t seed_value();
uint64_t next_u64();  // torch's random64()
uint32_t next_u32();  // torch's random()

}  // namespace tt::cpu
