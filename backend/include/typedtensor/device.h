#pragma once
// NOTE [ Device dispatch ]
// The CPU kernels (backend/src/cpu, declared in src/cpu/kernels.h) are the kernel layer every
// primitive calls. Each of them starts by asking the tensor it writes which device it lives on;
// for a CUDA tensor it forwards the call, with the same arguments, to the DeviceKernels table
// below. The CUDA backend (backend/src/cuda, compiled only when nvcc is found) fills that table
// when typedtensor._C is imported. So:
//   - apply() (the single dispatch point) checks that the inputs share one device, uploads CPU
//     scalars (0-d or fully broadcast tensors, like torch's CPU-scalar rule) next to CUDA
//     inputs, and then runs the primitive's eval_cpu under a DeviceScope: `empty()` allocates on
//     that device, and every kernel the primitive calls lands in the CUDA table. No primitive
//     class needs a CUDA-specific body, and attributes (BinaryOp, clamp bounds, strides, ...) flow
//     through the kernel arguments exactly as on CPU.
//   - a kernel the CUDA table lacks throws "[op] no CUDA kernel for op" naming the registry op
//     being evaluated (the innermost primitive on this thread).
//   - a build without CUDA has an empty table: moving a tensor to "cuda" raises a clear error
//     and nothing else changes (one predictable branch per kernel call on CPU).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "typedtensor/ops.h"

namespace tt {

// ---- the device an allocation without an explicit device goes to (default_device(), tensor.h) ----
class DeviceScope {
 public:
  explicit DeviceScope(Device d);
  ~DeviceScope();
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

 private:
  Device prev_;
};

// The registry op whose kernels run on this thread (for "no CUDA kernel for X" messages).
const char* current_op();
class OpScope {
 public:
  explicit OpScope(const char* name);
  ~OpScope();
  OpScope(const OpScope&) = delete;
  OpScope& operator=(const OpScope&) = delete;

 private:
  const char* prev_;
};

std::string device_str(Device d);  // "cpu", "cuda:0"

// ---- the device kernel table ----
// Same contracts as the tt::cpu kernels (see src/cpu/kernels.h); every default throws
// NotImplementedError("[op] no CUDA kernel for op").
class DeviceKernels {
 public:
  virtual ~DeviceKernels() = default;
  [[noreturn]] static void missing(const char* kernel);

  // devices and memory
  virtual int device_count() { return 0; }
  virtual std::shared_ptr<Storage> allocate(size_t nbytes, Device d);
  // Contiguous byte copies between host and device (or device and device); synchronous for D2H.
  virtual void memcpy_h2d(void* dst, const void* src, size_t nbytes);
  virtual void memcpy_d2h(void* dst, const void* src, size_t nbytes);
  virtual void memcpy_d2d(void* dst, const void* src, size_t nbytes);

  // elementwise
  virtual void binary(BinaryOp, const Tensor&, const Tensor&, const Tensor&) { missing("binary"); }
  virtual void unary(UnaryOp, const Tensor&, const Tensor&) { missing("unary"); }
  virtual void leaky_relu(const Tensor&, const Tensor&, double) { missing("leaky_relu"); }
  virtual void elu(const Tensor&, const Tensor&, double) { missing("elu"); }
  virtual void copy(const Tensor&, const Tensor&) { missing("copy"); }
  virtual void fill(const Tensor&, Scalar) { missing("fill"); }
  virtual void where(const Tensor&, const Tensor&, const Tensor&, const Tensor&) { missing("where"); }
  virtual void clamp(const Tensor&, const Tensor&, std::optional<double>, std::optional<double>) { missing("clamp"); }
  virtual bool any_zero(const Tensor&) { missing("any_zero"); }
  virtual bool any_nonfinite(const Tensor&) { missing("any_nonfinite"); }

  // reductions and row-wise ops
  virtual void reduce(ReduceOp, const Tensor&, const Tensor&, int64_t, int64_t, int64_t) { missing("reduce"); }
  virtual void arg_reduce(bool, const Tensor&, const Tensor&, const Tensor&, int64_t, int64_t, int64_t) {
    missing("arg_reduce");
  }
  virtual void cumulative(bool, const Tensor&, const Tensor&, int64_t, int64_t, int64_t) { missing("cumulative"); }
  virtual void softmax(const Tensor&, const Tensor&, int64_t, int64_t, int64_t, bool) { missing("softmax"); }
  virtual void logsumexp(const Tensor&, const Tensor&, int64_t, int64_t, int64_t) { missing("logsumexp"); }
  virtual void layer_norm(const Tensor&, const Tensor&, const Tensor*, const Tensor*, int64_t, int64_t, double) {
    missing("layer_norm");
  }
  virtual void variance(const Tensor&, const Tensor&, int64_t, int64_t, int64_t, double) { missing("variance"); }

  // linear algebra and nn
  virtual void gemm_batched(const Tensor&, const Tensor&, const Tensor&) { missing("gemm"); }
  virtual void conv2d(const Tensor&, const Tensor&, const Tensor&, const Tensor*, int64_t, int64_t, int64_t, int64_t,
                      int64_t, int64_t, int64_t) {
    missing("conv2d");
  }
  virtual void max_pool2d(const Tensor&, const Tensor&, const Tensor&, int64_t, int64_t, int64_t, int64_t, int64_t,
                          int64_t, int64_t, int64_t) {
    missing("max_pool2d");
  }
  virtual void avg_pool2d(const Tensor&, const Tensor&, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, bool,
                          int64_t) {
    missing("avg_pool2d");
  }
  virtual void adaptive_avg_pool2d(const Tensor&, const Tensor&) { missing("adaptive_avg_pool2d"); }
  virtual void conv2d_backward_input(const Tensor&, const Tensor&, const Tensor&, int64_t, int64_t, int64_t, int64_t,
                                     int64_t, int64_t, int64_t) {
    missing("conv2d_backward_input");
  }
  virtual void conv2d_backward_weight(const Tensor&, const Tensor&, const Tensor&, int64_t, int64_t, int64_t, int64_t,
                                      int64_t, int64_t, int64_t) {
    missing("conv2d_backward_weight");
  }
  virtual void avg_pool2d_backward(const Tensor&, const Tensor&, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                                   bool, int64_t) {
    missing("avg_pool2d_backward");
  }
  virtual void adaptive_avg_pool2d_backward(const Tensor&, const Tensor&) { missing("adaptive_avg_pool2d_backward"); }
  virtual void index_add(const Tensor&, int64_t, const Tensor&, const Tensor&) { missing("index_add"); }
  virtual void max_pool2d_backward(const Tensor&, const Tensor&, const Tensor&) { missing("max_pool2d_backward"); }
  virtual void activation_backward(UnaryOp, const Tensor&, const Tensor&, const Tensor&) {
    missing("activation_backward");
  }

  // indexing
  virtual void index_select(const Tensor&, const Tensor&, int64_t, const Tensor&) { missing("index_select"); }
  virtual void gather(const Tensor&, const Tensor&, int64_t, const Tensor&) { missing("gather"); }
  virtual void scatter(const Tensor&, int64_t, const Tensor&, const Tensor&, int) { missing("scatter"); }
  virtual void masked_fill(const Tensor&, const Tensor&, const Tensor&) { missing("masked_fill"); }
  virtual void tri(const Tensor&, const Tensor&, int64_t, bool) { missing("tri"); }

  // graph mode (backend/src/graph): a generated kernel, CUDA C source with the entry point
  // `tt_kernel`, compiled at run time (NVRTC) and cached as PTX under cache_dir by source hash.
  // nullptr (with the reason in *why) when it cannot be compiled or loaded, e.g. without NVRTC:
  // the caller then runs its ops one by one.
  virtual void* load_generated(const std::string&, const std::string&, std::string* why) {
    *why = "no CUDA backend";
    return nullptr;
  }
  // Launches a kernel from load_generated; args[i] points at the i-th kernel parameter.
  virtual void launch_generated(void*, std::vector<void*>&, int64_t, int) { missing("generated kernel"); }

  // random (the device generator is seeded by manual_seed together with the CPU one)
  virtual void seed(uint64_t) {}
  virtual void rand_uniform(const Tensor&, double, double) { missing("rand"); }
  virtual void rand_normal(const Tensor&, double, double) { missing("randn"); }
  virtual void rand_int(const Tensor&, int64_t, int64_t) { missing("randint"); }
  virtual void bernoulli(const Tensor&, const Tensor&) { missing("bernoulli"); }
  virtual void bernoulli_scalar(const Tensor&, double) { missing("bernoulli"); }
};

// The CUDA table: the base class (every kernel missing) until a backend registers itself.
DeviceKernels& cuda_kernels();
void register_cuda_kernels(std::unique_ptr<DeviceKernels> k);
// Installs `k` and returns the previous table (tests swap the host emulation in and out).
std::unique_ptr<DeviceKernels> swap_cuda_kernels(std::unique_ptr<DeviceKernels> k);
// A "CUDA" device emulated in host memory: every kernel the CUDA backend has runs the CPU kernel on
// the same bytes. Lets machines without a GPU test the device plumbing (dispatch, device checks,
// scalar uploads, host fallbacks, device= creation) through the real code paths.
std::unique_ptr<DeviceKernels> make_host_emulated_cuda();
bool cuda_backend_compiled();  // a backend was registered (the build had nvcc)
inline bool on_cuda(const Tensor& t) { return t.device().type == DeviceType::CUDA; }

// ---- moving tensors ----
// A copy of `a` on `d` (the same tensor when it is already there). Differentiable.
Tensor to_device(const Tensor& a, Device d);
// `t` itself on the CPU, or a host copy of it (for host-side checks and fallbacks).
Tensor host(const Tensor& t);

}  // namespace tt
