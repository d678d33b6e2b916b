#pragma once
// Host entry points of the CUDA kernels (one .cu file per family). Same contracts as the CPU
// kernels in src/cpu/kernels.h; backend.cu puts them in the DeviceKernels table.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "typedtensor/device.h"
#include "typedtensor/ops.h"

namespace tt::cuda {

// ---- device.cu / allocator.cu ----
int device_count();
std::string last_status();
std::shared_ptr<Storage> allocate(size_t nbytes, Device d);
void memcpy_h2d(void* dst, const void* src, size_t nbytes);
void memcpy_d2h(void* dst, const void* src, size_t nbytes);
void memcpy_d2d(void* dst, const void* src, size_t nbytes);
void synchronize();
size_t memory_allocated();
size_t max_memory_allocated();
size_t memory_reserved();
void reset_peak_memory_stats();
void empty_cache();

// ---- elementwise.cu ----
void binary(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b);
void unary(UnaryOp op, const Tensor& out, const Tensor& a);
void leaky_relu(const Tensor& out, const Tensor& a, double slope);
void elu(const Tensor& out, const Tensor& a, double alpha);
void where(const Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b);
void clamp(const Tensor& out, const Tensor& a, std::optional<double> lo, std::optional<double> hi);
bool any_zero(const Tensor& a);
bool any_nonfinite(const Tensor& a);
// ---- copy.cu ----
void copy(const Tensor& dst, const Tensor& src);
void fill(const Tensor& dst, Scalar v);

// ---- reduce.cu ----
void reduce(ReduceOp op, const Tensor& out, const Tensor& in, int64_t outer, int64_t r, int64_t inner);
void arg_reduce(bool is_max, const Tensor& values, const Tensor& indices, const Tensor& in, int64_t outer,
                int64_t r, int64_t inner);
void cumulative(bool prod, const Tensor& out, const Tensor& in, int64_t outer, int64_t r, int64_t inner);
void variance(const Tensor& out, const Tensor& in, int64_t outer, int64_t r, int64_t inner, double correction);
// ---- rowwise.cu ----
void softmax(const Tensor& out, const Tensor& in, int64_t outer, int64_t r, int64_t inner, bool log);
void logsumexp(const Tensor& out, const Tensor& in, int64_t outer, int64_t r, int64_t inner);
void layer_norm(const Tensor& out, const Tensor& in, const Tensor* w, const Tensor* b, int64_t rows, int64_t cols,
                double eps);

// ---- blas.cu (cuBLAS, loaded at run time) ----
void gemm_batched(const Tensor& c, const Tensor& a, const Tensor& b);
// C[i] = op(A[i]) @ op(B[i]) on raw row-major device buffers (used by conv2d).
void gemm_raw(DType dt, bool ta, bool tb, int64_t m, int64_t n, int64_t k, const void* a, int64_t lda, int64_t sa,
              const void* b, int64_t ldb, int64_t sb, void* c, int64_t ldc, int64_t sc, int64_t batch);
bool cublas_available();
std::string cublas_status();  // where it was loaded from, or why it was not
void set_cublas_search_path(const std::string& dirs);  // ':'-separated folders tried before the default
std::string library_search_path();  // those folders (NVRTC is looked for there too)

// ---- nvrtc.cu (graph mode's generated kernels; NVRTC loaded at run time) ----
void* load_generated(const std::string& source, const std::string& cache_dir, std::string* why);
void launch_generated(void* kernel, std::vector<void*>& args, int64_t grid, int block);
std::string nvrtc_status();  // where NVRTC was loaded from, or why it was not
void set_allow_tf32(bool allow);
bool allow_tf32();

// ---- conv.cu ----
void conv2d(const Tensor& out, const Tensor& x, const Tensor& w, const Tensor* bias, int64_t sh, int64_t sw,
            int64_t ph, int64_t pw, int64_t dh, int64_t dw, int64_t groups);
void max_pool2d(const Tensor& out, const Tensor& idx, const Tensor& x, int64_t kh, int64_t kw, int64_t sh,
                int64_t sw, int64_t ph, int64_t pw, int64_t dh, int64_t dw);
void avg_pool2d(const Tensor& out, const Tensor& x, int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t ph,
                int64_t pw, bool count_include_pad, int64_t divisor);
void adaptive_avg_pool2d(const Tensor& out, const Tensor& x);
// ---- conv_backward.cu ----
void conv2d_backward_input(const Tensor& dx, const Tensor& g, const Tensor& w, int64_t sh, int64_t sw, int64_t ph,
                           int64_t pw, int64_t dh, int64_t dw, int64_t groups);
void conv2d_backward_weight(const Tensor& dw, const Tensor& g, const Tensor& x, int64_t sh, int64_t sw, int64_t ph,
                            int64_t pw, int64_t dh, int64_t dw_, int64_t groups);
void avg_pool2d_backward(const Tensor& dx, const Tensor& g, int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t ph,
                         int64_t pw, bool count_include_pad, int64_t divisor);
void adaptive_avg_pool2d_backward(const Tensor& dx, const Tensor& g);
void index_add(const Tensor& out, int64_t dim, const Tensor& index, const Tensor& src);  // index.cu
void max_pool2d_backward(const Tensor& dx, const Tensor& g, const Tensor& idx);
void activation_backward(UnaryOp op, const Tensor& out, const Tensor& g, const Tensor& x);  // elementwise.cu

// ---- index.cu ----
void index_select(const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index);
void gather(const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index);
void scatter(const Tensor& out, int64_t dim, const Tensor& index, const Tensor& src, int reduce);
void masked_fill(const Tensor& out, const Tensor& mask, const Tensor& value);
void tri(const Tensor& out, const Tensor& in, int64_t k, bool lower);

// ---- random.cu (Philox4x32-10) ----
void seed(uint64_t s);
uint64_t seed_value();
void rand_uniform(const Tensor& out, double lo, double hi);
void rand_normal(const Tensor& out, double mean, double sd);
void rand_int(const Tensor& out, int64_t lo, int64_t hi);
void bernoulli(const Tensor& out, const Tensor& p);
void bernoulli_scalar(const Tensor& out, double p);

// ---- backend.cu ----
void register_backend();  // fills tt::cuda_kernels(); called when typedtensor._C is imported

}  // namespace tt::cuda
