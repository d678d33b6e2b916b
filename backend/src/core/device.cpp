// Devices: the thread-local allocation device, the CUDA kernel table, and moving tensors between
// devices (the ToDevice primitive). See NOTE [ Device dispatch ] in typedtensor/device.h.
#include "typedtensor/device.h"

#include <mutex>
#include <stdexcept>

#include "internal.h"

namespace tt {
namespace {
thread_local Device t_default_device{};
thread_local const char* t_op = nullptr;

std::unique_ptr<DeviceKernels>& table() {
  static auto* t = new std::unique_ptr<DeviceKernels>(std::make_unique<DeviceKernels>());  // leaked: outlives tensors
  return *t;
}
bool g_compiled = false;

[[noreturn]] void no_backend(const char* what) {
  throw std::runtime_error(std::string("[") + what +
                           "] CUDA is not available: this build of typedtensor has no CUDA backend "
                           "(it was built without nvcc); tensors can only live on the cpu");
}
}  // namespace

Device default_device() { return t_default_device; }
DeviceScope::DeviceScope(Device d) : prev_(t_default_device) { t_default_device = d; }
DeviceScope::~DeviceScope() { t_default_device = prev_; }

const char* current_op() { return t_op ? t_op : "op"; }
OpScope::OpScope(const char* name) : prev_(t_op) { t_op = name; }
OpScope::~OpScope() { t_op = prev_; }

std::string device_str(Device d) {
  return d.type == DeviceType::CPU ? std::string("cpu") : "cuda:" + std::to_string(d.index);
}

void DeviceKernels::missing(const char*) {
  std::string op = current_op();
  throw NotImplementedError("[" + op + "] no CUDA kernel for " + op);
}
std::shared_ptr<Storage> DeviceKernels::allocate(size_t, Device) { no_backend("to"); }
void DeviceKernels::memcpy_h2d(void*, const void*, size_t) { no_backend("to"); }
void DeviceKernels::memcpy_d2h(void*, const void*, size_t) { no_backend("to"); }
void DeviceKernels::memcpy_d2d(void*, const void*, size_t) { no_backend("to"); }

DeviceKernels& cuda_kernels() { return *table(); }
void register_cuda_kernels(std::unique_ptr<DeviceKernels> k) {
  table() = std::move(k);
  g_compiled = true;
}
bool cuda_backend_compiled() { return g_compiled; }
std::unique_ptr<DeviceKernels> swap_cuda_kernels(std::unique_ptr<DeviceKernels> k) {
  std::swap(table(), k);
  return k;
}

// ---------------- moving tensors ----------------
namespace {

class ToDevice : public Primitive {
 public:
  explicit ToDevice(Device d) : dst_(d) {}
  const char* name() const override { return "to"; }
  TypeList output_types(const TypeList& in) const override {  // the same type on another device
    detail::TypeCheck(name(), in).count(1);
    return {in[0]};
  }
  TensorList eval_cpu(const TensorList& in) override { return {move(in[0])}; }
  TensorList eval_cuda(const TensorList& in) override { return {move(in[0])}; }
  TensorList vjp(const TensorList& primals, const TensorList& cotangents, const std::vector<int>&,
                 const TensorList&) override {
    return {to_device(cotangents[0], primals[0].device())};
  }

 private:
  Tensor move(const Tensor& a) const {
    Device src = a.device();
    Tensor c = contiguous(a);  // on the source device
    const TensorType type = output_types(types_of({a}))[0];
    Tensor out = empty(type.shape, type.dtype, dst_);
    size_t nbytes = static_cast<size_t>(a.numel()) * a.itemsize();
    if (nbytes == 0) return out;
    DeviceKernels& k = cuda_kernels();
    if (src.type == DeviceType::CPU) k.memcpy_h2d(out.raw(), c.raw(), nbytes);
    else if (dst_.type == DeviceType::CPU) k.memcpy_d2h(out.raw(), c.raw(), nbytes);
    else k.memcpy_d2d(out.raw(), c.raw(), nbytes);
    return out;
  }
  Device dst_;
};

}  // namespace

Tensor to_device(const Tensor& a, Device d) {
  if (a.device() == d) return a;
  if (a.device().type == DeviceType::CUDA && cuda_kernels().device_count() == 0)
    throw std::runtime_error("[to] CUDA is not available: this tensor claims " + device_str(a.device()) +
                             " but no CUDA device was found");
  if (d.type == DeviceType::CUDA) {
    int n = cuda_kernels().device_count();
    if (n == 0 && !cuda_backend_compiled()) no_backend("to");
    if (n == 0)
      throw std::runtime_error("[to] CUDA is not available: no CUDA device was found (no driver, or no GPU)");
    if (d.index < 0 || d.index >= n)
      throw std::runtime_error("[to] invalid device " + device_str(d) + ": " + std::to_string(n) +
                               " CUDA device(s) available");
    if (d.index != 0)
      throw NotImplementedError("[to] only cuda:0 is supported (multi-GPU placement is not implemented)");
  }
  return apply1(std::make_shared<ToDevice>(d), {a});
}

Tensor host(const Tensor& t) {
  if (!t.defined() || t.device().type == DeviceType::CPU) return t;
  return to_device(t, Device{});
}

}  // namespace tt
