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
const Tensor* hp(const Tensor* t, Tensor& keep) {
  if (!t) return nullptr;
  keep = h(*t);
  return &keep;
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

  void binary(BinaryOp op, const Tensor& o, const Tensor& a, const Tensor& b) override { cpu::binary(op, h(o), h(a), h(b)); }
  void unary(UnaryOp op, const Tensor& o, const Tensor& a) override { cpu::unary(op, h(o), h(a)); }
  void leaky_relu(const Tensor& o, const Tensor& a, double s) override { cpu::leaky_relu(h(o), h(a), s); }
  void elu(const Tensor& o, const Tensor& a, double s) override { cpu::elu(h(o), h(a), s); }
  void copy(const Tensor& d, const Tensor& s) override { cpu::copy(h(d), h(s)); }
  void fill(const Tensor& d, Scalar v) override { cpu::fill(h(d), v); }
  void where(const Tensor& o, const Tensor& c, const Tensor& a, const Tensor& b) override {
    cpu::where(h(o), h(c), h(a), h(b));
  }
  void clamp(const Tensor& o, const Tensor& a, std::optional<double> lo, std::optional<double> hi) override {
    cpu::clamp(h(o), h(a), lo, hi);
  }
  bool any_zero(const Tensor& a) override { return cpu::any_zero(h(a)); }
  bool any_nonfinite(const Tensor& a) override { return cpu::any_nonfinite(h(a)); }

  void reduce(ReduceOp op, const Tensor& o, const Tensor& i, int64_t a, int64_t r, int64_t b) override {
    cpu::reduce(op, h(o), h(i), a, r, b);
  }
  void arg_reduce(bool mx, const Tensor& v, const Tensor& ix, const Tensor& i, int64_t a, int64_t r,
                  int64_t b) override {
    cpu::arg_reduce(mx, h(v), h(ix), h(i), a, r, b);
  }
  void cumulative(bool p, const Tensor& o, const Tensor& i, int64_t a, int64_t r, int64_t b) override {
    cpu::cumulative(p, h(o), h(i), a, r, b);
  }
  void softmax(const Tensor& o, const Tensor& i, int64_t a, int64_t r, int64_t b, bool log) override {
    cpu::softmax(h(o), h(i), a, r, b, log);
  }
  void logsumexp(const Tensor& o, const Tensor& i, int64_t a, int64_t r, int64_t b) override {
    cpu::logsumexp(h(o), h(i), a, r, b);
  }
  void layer_norm(const Tensor& o, const Tensor& i, const Tensor* w, const Tensor* b, int64_t rows, int64_t cols,
                  double eps) override {
    Tensor kw, kb;
    cpu::layer_norm(h(o), h(i), hp(w, kw), hp(b, kb), rows, cols, eps);
  }
  void variance(const Tensor& o, const Tensor& i, int64_t a, int64_t r, int64_t b, double c) override {
    cpu::variance(h(o), h(i), a, r, b, c);
  }
  void gemm_batched(const Tensor& c, const Tensor& a, const Tensor& b) override { cpu::gemm_batched(h(c), h(a), h(b)); }
  void conv2d(const Tensor& o, const Tensor& x, const Tensor& w, const Tensor* b, int64_t sh, int64_t sw, int64_t ph,
              int64_t pw, int64_t dh, int64_t dw, int64_t g) override {
    Tensor kb;
    cpu::conv2d(h(o), h(x), h(w), hp(b, kb), sh, sw, ph, pw, dh, dw, g);
  }
  void max_pool2d(const Tensor& o, const Tensor& ix, const Tensor& x, int64_t kh, int64_t kw, int64_t sh, int64_t sw,
                  int64_t ph, int64_t pw, int64_t dh, int64_t dw) override {
    cpu::max_pool2d(h(o), h(ix), h(x), kh, kw, sh, sw, ph, pw, dh, dw);
  }
  void avg_pool2d(const Tensor& o, const Tensor& x, int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t ph,
                  int64_t pw, bool cip, int64_t div) override {
    cpu::avg_pool2d(h(o), h(x), kh, kw, sh, sw, ph, pw, cip, div);
  }
  void adaptive_avg_pool2d(const Tensor& o, const Tensor& x) override { cpu::adaptive_avg_pool2d(h(o), h(x)); }
  void conv2d_backward_input(const Tensor& dx, const Tensor& g, const Tensor& w, int64_t sh, int64_t sw, int64_t ph,
                             int64_t pw, int64_t dh, int64_t dw, int64_t groups) override {
    cpu::conv2d_backward_input(h(dx), h(g), h(w), sh, sw, ph, pw, dh, dw, groups);
  }
  void conv2d_backward_weight(const Tensor& dwt, const Tensor& g, const Tensor& x, int64_t sh, int64_t sw, int64_t ph,
                              int64_t pw, int64_t dh, int64_t dw, int64_t groups) override {
    cpu::conv2d_backward_weight(h(dwt), h(g), h(x), sh, sw, ph, pw, dh, dw, groups);
  }
  void avg_pool2d_backward(const Tensor& dx, const Tensor& g, int64_t kh, int64_t kw, int64_t sh, int64_t sw,
                           int64_t ph, int64_t pw, bool cip, int64_t div) override {
    cpu::avg_pool2d_backward(h(dx), h(g), kh, kw, sh, sw, ph, pw, cip, div);
  }
  void adaptive_avg_pool2d_backward(const Tensor& dx, const Tensor& g) override {
    cpu::adaptive_avg_pool2d_backward(h(dx), h(g));
  }
  void index_add(const Tensor& o, int64_t d, const Tensor& ix, const Tensor& s) override {
    cpu::index_add(h(o), d, h(ix), h(s));
  }
  void max_pool2d_backward(const Tensor& dx, const Tensor& g, const Tensor& ix) override {
    cpu::max_pool2d_backward(h(dx), h(g), h(ix));
  }
  void activation_backward(UnaryOp op, const Tensor& o, const Tensor& g, const Tensor& x) override {
    cpu::activation_backward(op, h(o), h(g), h(x));
  }
  void index_select(const Tensor& o, const Tensor& i, int64_t d, const Tensor& ix) override {
    cpu::index_select(h(o), h(i), d, h(ix));
  }
  void gather(const Tensor& o, const Tensor& i, int64_t d, const Tensor& ix) override { cpu::gather(h(o), h(i), d, h(ix)); }
  void scatter(const Tensor& o, int64_t d, const Tensor& ix, const Tensor& s, int r) override {
    cpu::scatter(h(o), d, h(ix), h(s), r);
  }
  void masked_fill(const Tensor& o, const Tensor& m, const Tensor& v) override { cpu::masked_fill(h(o), h(m), h(v)); }
  void tri(const Tensor& o, const Tensor& i, int64_t k, bool lower) override { cpu::tri(h(o), h(i), k, lower); }

  void seed(uint64_t) override {}  // the CPU generator is seeded by the caller
  void rand_uniform(const Tensor& o, double lo, double hi) override { cpu::rand_uniform(h(o), lo, hi); }
  void rand_normal(const Tensor& o, double m, double s) override { cpu::rand_normal(h(o), m, s); }
  void rand_int(const Tensor& o, int64_t lo, int64_t hi) override { cpu::rand_int(h(o), lo, hi); }
  void bernoulli(const Tensor& o, const Tensor& p) override { cpu::bernoulli(h(o), h(p)); }
  void bernoulli_scalar(const Tensor& o, double p) override { cpu::bernoulli_scalar(h(o), p); }
};

}  // namespace

std::unique_ptr<DeviceKernels> make_host_emulated_cuda() { return std::make_unique<HostEmulatedCuda>(); }

}  // namespace tt
