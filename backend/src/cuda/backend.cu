// The CUDA entry in the device kernel table (NOTE [ Device dispatch ] in typedtensor/device.h):
// every method forwards to the kernel of the same name in this folder.
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

  void binary(BinaryOp op, const Tensor& o, const Tensor& a, const Tensor& b) override { cuda::binary(op, dev(o), dev(a), dev(b)); }
  void unary(UnaryOp op, const Tensor& o, const Tensor& a) override { cuda::unary(op, dev(o), dev(a)); }
  void leaky_relu(const Tensor& o, const Tensor& a, double s) override { cuda::leaky_relu(dev(o), dev(a), s); }
  void elu(const Tensor& o, const Tensor& a, double s) override { cuda::elu(dev(o), dev(a), s); }
  void copy(const Tensor& d, const Tensor& s) override { cuda::copy(dev(d), dev(s)); }
  void fill(const Tensor& d, Scalar v) override { cuda::fill(dev(d), v); }
  void where(const Tensor& o, const Tensor& c, const Tensor& a, const Tensor& b) override { cuda::where(dev(o), dev(c), dev(a), dev(b)); }
  void clamp(const Tensor& o, const Tensor& a, std::optional<double> lo, std::optional<double> hi) override {
    cuda::clamp(dev(o), dev(a), lo, hi);
  }
  bool any_zero(const Tensor& a) override { return cuda::any_zero(dev(a)); }
  bool any_nonfinite(const Tensor& a) override { return cuda::any_nonfinite(dev(a)); }

  void reduce(ReduceOp op, const Tensor& o, const Tensor& i, int64_t a, int64_t r, int64_t b) override {
    cuda::reduce(op, dev(o), dev(i), a, r, b);
  }
  void arg_reduce(bool mx, const Tensor& v, const Tensor& ix, const Tensor& i, int64_t a, int64_t r,
                  int64_t b) override {
    cuda::arg_reduce(mx, dev(v), dev(ix), dev(i), a, r, b);
  }
  void cumulative(bool p, const Tensor& o, const Tensor& i, int64_t a, int64_t r, int64_t b) override {
    cuda::cumulative(p, dev(o), dev(i), a, r, b);
  }
  void softmax(const Tensor& o, const Tensor& i, int64_t a, int64_t r, int64_t b, bool log) override {
    cuda::softmax(dev(o), dev(i), a, r, b, log);
  }
  void logsumexp(const Tensor& o, const Tensor& i, int64_t a, int64_t r, int64_t b) override {
    cuda::logsumexp(dev(o), dev(i), a, r, b);
  }
  void layer_norm(const Tensor& o, const Tensor& i, const Tensor* w, const Tensor* b, int64_t rows, int64_t cols,
                  double eps) override {
    cuda::layer_norm(dev(o), dev(i), dev(w), dev(b), rows, cols, eps);
  }
  void variance(const Tensor& o, const Tensor& i, int64_t a, int64_t r, int64_t b, double c) override {
    cuda::variance(dev(o), dev(i), a, r, b, c);
  }

  void gemm_batched(const Tensor& c, const Tensor& a, const Tensor& b) override { cuda::gemm_batched(dev(c), dev(a), dev(b)); }
  void conv2d(const Tensor& o, const Tensor& x, const Tensor& w, const Tensor* b, int64_t sh, int64_t sw, int64_t ph,
              int64_t pw, int64_t dh, int64_t dw, int64_t g) override {
    cuda::conv2d(dev(o), dev(x), dev(w), dev(b), sh, sw, ph, pw, dh, dw, g);
  }
  void max_pool2d(const Tensor& o, const Tensor& ix, const Tensor& x, int64_t kh, int64_t kw, int64_t sh, int64_t sw,
                  int64_t ph, int64_t pw, int64_t dh, int64_t dw) override {
    cuda::max_pool2d(dev(o), dev(ix), dev(x), kh, kw, sh, sw, ph, pw, dh, dw);
  }
  void avg_pool2d(const Tensor& o, const Tensor& x, int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t ph,
                  int64_t pw, bool cip, int64_t div) override {
    cuda::avg_pool2d(dev(o), dev(x), kh, kw, sh, sw, ph, pw, cip, div);
  }
  void adaptive_avg_pool2d(const Tensor& o, const Tensor& x) override { cuda::adaptive_avg_pool2d(dev(o), dev(x)); }
  void conv2d_backward_input(const Tensor& dx, const Tensor& g, const Tensor& w, int64_t sh, int64_t sw, int64_t ph,
                             int64_t pw, int64_t dh, int64_t dw, int64_t groups) override {
    cuda::conv2d_backward_input(dev(dx), dev(g), dev(w), sh, sw, ph, pw, dh, dw, groups);
  }
  void conv2d_backward_weight(const Tensor& dwt, const Tensor& g, const Tensor& x, int64_t sh, int64_t sw, int64_t ph,
                              int64_t pw, int64_t dh, int64_t dw, int64_t groups) override {
    cuda::conv2d_backward_weight(dev(dwt), dev(g), dev(x), sh, sw, ph, pw, dh, dw, groups);
  }
  void avg_pool2d_backward(const Tensor& dx, const Tensor& g, int64_t kh, int64_t kw, int64_t sh, int64_t sw,
                           int64_t ph, int64_t pw, bool cip, int64_t div) override {
    cuda::avg_pool2d_backward(dev(dx), dev(g), kh, kw, sh, sw, ph, pw, cip, div);
  }
  void adaptive_avg_pool2d_backward(const Tensor& dx, const Tensor& g) override {
    cuda::adaptive_avg_pool2d_backward(dev(dx), dev(g));
  }
  void index_add(const Tensor& o, int64_t d, const Tensor& ix, const Tensor& s) override { cuda::index_add(dev(o), d, dev(ix), dev(s)); }
  void max_pool2d_backward(const Tensor& dx, const Tensor& g, const Tensor& ix) override {
    cuda::max_pool2d_backward(dev(dx), dev(g), dev(ix));
  }
  void activation_backward(UnaryOp op, const Tensor& o, const Tensor& g, const Tensor& x) override {
    cuda::activation_backward(op, dev(o), dev(g), dev(x));
  }

  void index_select(const Tensor& o, const Tensor& i, int64_t d, const Tensor& ix) override {
    cuda::index_select(dev(o), dev(i), d, dev(ix));
  }
  void gather(const Tensor& o, const Tensor& i, int64_t d, const Tensor& ix) override { cuda::gather(dev(o), dev(i), d, dev(ix)); }
  void scatter(const Tensor& o, int64_t d, const Tensor& ix, const Tensor& s, int r) override {
    cuda::scatter(dev(o), d, dev(ix), dev(s), r);
  }
  void masked_fill(const Tensor& o, const Tensor& m, const Tensor& v) override { cuda::masked_fill(dev(o), dev(m), dev(v)); }
  void tri(const Tensor& o, const Tensor& i, int64_t k, bool lower) override { cuda::tri(dev(o), dev(i), k, lower); }

  void seed(uint64_t s) override { cuda::seed(s); }
  void rand_uniform(const Tensor& o, double lo, double hi) override { cuda::rand_uniform(dev(o), lo, hi); }
  void rand_normal(const Tensor& o, double m, double s) override { cuda::rand_normal(dev(o), m, s); }
  void rand_int(const Tensor& o, int64_t lo, int64_t hi) override { cuda::rand_int(dev(o), lo, hi); }
  void bernoulli(const Tensor& o, const Tensor& p) override { cuda::bernoulli(dev(o), dev(p)); }
  void bernoulli_scalar(const Tensor& o, double p) override { cuda::bernoulli_scalar(dev(o), p); }
};

}  // namespace

void register_backend() {
  register_cuda_kernels(std::make_unique<CudaKernels>());
  seed(tt::initial_seed());  // start where the CPU generator is
}

}  // namespace tt::cuda
