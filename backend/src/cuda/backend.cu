// The CUDA entry in the device kernel table (NOTE [ Device dispatch ] in typedtensor/device.h):
// every kernel of the list (NOTE [ One kernel list ]) forwards to the kernel of the same name in
// this folder.
#include "kernels.h"

namespace tt::cuda {
namespace {

// Every operand of a device kernel must be on the device: a CPU pointer would fault inside the
// kernel (a sticky error that ends the CUDA context), so refuse it here with a message.
const Tensor& dev(const Tensor& t) {
  if (t.defined() && t.device().type != DeviceType::CUDA)
    throw std::logic_error(std::string("[") + current_op() + "] a CPU tensor was passed to a CUDA kernel");
  return t;
}
const Tensor* dev(const Tensor* t) {
  if (t) dev(*t);
  return t;
}
template <class T>
T dev(T v) {  // a non-tensor argument
  return v;
}

// f(dev(args)...): every tensor operand checked to be on the device.
template <class F, class... A>
decltype(auto) on_device(F&& f, A&&... a) {
  return f(dev(std::forward<A>(a))...);
}

class CudaKernels final : public DeviceKernels {
 public:
  int device_count() override { return cuda::device_count(); }
  std::shared_ptr<Storage> allocate(size_t nbytes, Device d) override { return cuda::allocate(nbytes, d); }
  void* load_generated(const std::string& src, const std::string& cache, std::string* why) override {
    return cuda::load_generated(src, cache, why);
  }
  void launch_generated(void* k, std::vector<void*>& args, int64_t grid, int block) override {
    cuda::launch_generated(k, args, grid, block);
  }
  void memcpy_h2d(void* d, const void* s, size_t n) override { cuda::memcpy_h2d(d, s, n); }
  void memcpy_d2h(void* d, const void* s, size_t n) override { cuda::memcpy_d2h(d, s, n); }
  void memcpy_d2d(void* d, const void* s, size_t n) override { cuda::memcpy_d2d(d, s, n); }

  void seed(uint64_t s) override { cuda::seed(s); }

#define TT_CUDA_KERNEL_ENTRY(ret, name, params, args)                                             \
  ret name params override {                                                                      \
    return on_device([](auto&&... a) -> ret { return cuda::name(a...); }, TT_KERNEL_ARGS args); \
  }
  TT_DEVICE_KERNELS(TT_CUDA_KERNEL_ENTRY)
#undef TT_CUDA_KERNEL_ENTRY
};

}  // namespace

void register_backend() {
  register_cuda_kernels(std::make_unique<CudaKernels>());
  seed(tt::initial_seed());  // start where the CPU generator is
}

}  // namespace tt::cuda
