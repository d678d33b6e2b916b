// The host-emulated CUDA device (make_host_emulated_cuda in typedtensor/device.h), for tests on
// machines without a GPU. "Device" memory is ordinary host memory labelled cuda:0; each kernel
// relabels its operands as CPU views of the same bytes and runs the CPU kernel. It mirrors the
// kernel set of backend/src/cuda/backend.cu (every DeviceKernels entry), so an op that reaches a
// kernel the CUDA backend lacks, or reads device memory from host code, fails here too.
#include <cstring>

#include "../cpu/kernels.h"
#include "typedtensor/device.h"

namespace tt {
std::shared_ptr<Storage> allocate_storage(size_t nbytes);  // tensor.cpp

namespace {

// The CPU view of an emulated device tensor. A CPU tensor reaching a device kernel is the bug a
// real GPU would answer with an illegal-address fault: refuse it here, where it is catchable.
Tensor h(const Tensor& t) {
  if (!t.defined()) return t;
  if (t.device().type == DeviceType::CPU)
    throw std::logic_error(std::string("[") + current_op() + "] a CPU tensor was passed to a CUDA kernel");
  const auto& st = t.storage();
  auto impl = std::make_shared<TensorImpl>();
  auto view = std::make_shared<Storage>();
  view->data = st->data;
  view->nbytes = st->nbytes;
  view->owner = std::shared_ptr<void>(st, st->data);
  view->writable = st->writable;
  impl->storage = std::move(view);
  impl->shape = t.shape();
  impl->strides = t.strides();
  impl->offset = t.offset();
  impl->dtype = t.dtype();
  return Tensor(std::move(impl));
}
// An optional tensor operand's CPU view, alive as long as this object.
class HostPtr {
 public:
  explicit HostPtr(const Tensor* t) : has_(t != nullptr) {
    if (t) view_ = h(*t);
  }
  operator const Tensor*() const { return has_ ? &view_ : nullptr; }

 private:
  Tensor view_;
  bool has_;
};
Tensor host_arg(const Tensor& t) { return h(t); }
HostPtr host_arg(const Tensor* t) { return HostPtr(t); }
template <class T>
T host_arg(T v) {  // a non-tensor argument
  return v;
}

// f(host_arg(args)...): the CPU kernel on CPU views of the operands (they live until f returns).
template <class F, class... A>
decltype(auto) on_host(F&& f, A&&... a) {
  return f(host_arg(std::forward<A>(a))...);
}

class HostEmulatedCuda final : public DeviceKernels {
 public:
  int device_count() override { return 1; }
  std::shared_ptr<Storage> allocate(size_t nbytes, Device d) override {
    auto st = allocate_storage(nbytes);
    st->device = d;
    return st;
  }
  void memcpy_h2d(void* d, const void* s, size_t n) override { std::memcpy(d, s, n); }
  void memcpy_d2h(void* d, const void* s, size_t n) override { std::memcpy(d, s, n); }
  void memcpy_d2d(void* d, const void* s, size_t n) override { std::memmove(d, s, n); }

  void seed(uint64_t) override {}  // the CPU generator is seeded by the caller

#define TT_EMULATED_KERNEL(ret, name, params, args)                                           \
  ret name params override {                                                                  \
    return on_host([](auto&&... a) -> ret { return cpu::name(a...); }, TT_KERNEL_ARGS args); \
  }
  TT_DEVICE_KERNELS(TT_EMULATED_KERNEL)
#undef TT_EMULATED_KERNEL
};

}  // namespace

std::unique_ptr<DeviceKernels> make_host_emulated_cuda() { return std::make_unique<HostEmulatedCuda>(); }

}  // namespace tt
