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

#include "typedtensor/kernel_list.h"
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

  // the kernels of NOTE [ One kernel list ] (typedtensor/kernel_list.h)
#define TT_DEVICE_KERNEL_DEFAULT(ret, name, params, args) \
  virtual ret name params { missing(#name); }
  TT_DEVICE_KERNELS(TT_DEVICE_KERNEL_DEFAULT)
#undef TT_DEVICE_KERNEL_DEFAULT

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

  // the device generator, seeded by manual_seed together with the CPU one
  virtual void seed(uint64_t) {}
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
