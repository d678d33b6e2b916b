// Random tensors (rand, randn, randint, randperm, bernoulli) and dropout.
#include <limits>
#include <numeric>

#include "../cpu/kernels.h"
#include "internal.h"
#include "typedtensor/device.h"

namespace tt {
using detail::dim_arg;
using detail::shape_error;

// ---------------- random ----------------
void manual_seed(uint64_t seed) { cpu::seed(seed); }
uint64_t initial_seed() { return cpu::seed_value(); }

static void check_float(const char* op, DType d) {
  if (!is_floating(d)) throw TypeError(std::string("[") + op + "] expected a floating point dtype, got " + dtype_name(d));
}

// A fresh tensor of `shape` filled by `fill`. Under a tt.Generator a tensor for a CUDA device is
// drawn on the host from the generator's stream and copied there (NOTE [ Generators ]).
template <class F>
static Tensor drawn(const Shape& shape, DType dtype, F fill, Device dev) {
  Tensor t = empty(shape, dtype, dev);
  fill(t);
  return t;
}
template <class F>
static Tensor drawn(const Shape& shape, DType dtype, F fill) {
  Device dev = default_device();
  if (generator_override_active() && dev.type == DeviceType::CUDA)
    return to_device(drawn(shape, dtype, fill, Device{}), dev);
  return drawn(shape, dtype, fill, dev);
}

Tensor rand(const Shape& shape, DType dtype, double low, double high) {
  check_not_tracing("rand");
  check_float("rand", dtype);
  Tensor t = drawn(shape, is_half(dtype) ? DType::Float32 : dtype,
                   [low, high](const Tensor& x) { cpu::rand_uniform(x, low, high); });
  return detail::cast(t, dtype);
}

Tensor randn(const Shape& shape, DType dtype, double mean, double std) {
  check_not_tracing("randn");
  check_float("randn", dtype);
  Tensor t = drawn(shape, is_half(dtype) ? DType::Float32 : dtype,
                   [mean, std](const Tensor& x) { cpu::rand_normal(x, mean, std); });
  return detail::cast(t, dtype);
}

Tensor randint(int64_t low, int64_t high, const Shape& shape, DType dtype) {
  check_not_tracing("randint");
  if (high <= low) throw ValueError("[randint] expected low < high, got low=" + std::to_string(low) + ", high=" + std::to_string(high));
  Tensor t = drawn(shape, DType::Int64, [low, high](const Tensor& x) { cpu::rand_int(x, low, high); });
  return detail::cast(t, dtype);
}

Tensor randperm(int64_t n, DType dtype) {
  check_not_tracing("randperm");
  if (n < 0) throw ValueError("[randperm] n must be non-negative");
  Tensor t = empty(Shape{n}, DType::Int64, Device{});  // shuffled on the host
  int64_t* p = t.data<int64_t>();
  std::iota(p, p + n, 0);
  // torch's randperm_cpu: position i swaps with i + draw % (n - i), a 32-bit draw while n is small
  const bool small = n < static_cast<int64_t>(std::numeric_limits<uint32_t>::max() / 20);
  for (int64_t i = 0; i + 1 < n; ++i) {
    const uint64_t draw = small ? cpu::next_u32() : cpu::next_u64();
    const int64_t z = static_cast<int64_t>(draw % static_cast<uint64_t>(n - i));
    std::swap(p[i], p[z + i]);
  }
  return detail::cast(t, dtype);
}

Tensor bernoulli(const Tensor& p) {
  check_not_tracing("bernoulli");
  check_float("bernoulli", p.dtype());
  Tensor pc = contiguous(detail::cast(p, p.dtype() == DType::Float64 ? DType::Float64 : DType::Float32));
  if (generator_override_active() && on_cuda(p)) return to_device(bernoulli(to_device(p, Device{})), p.device());
  Tensor out = empty(p.shape(), p.dtype(), p.device());
  cpu::bernoulli(out, pc);
  return out;
}

Tensor bernoulli(const Tensor& like, double p) {
  check_not_tracing("bernoulli");
  if (!(p >= 0.0 && p <= 1.0)) throw ValueError("bernoulli_ expects p to be in [0, 1], but got p=" + std::to_string(p));
  if (generator_override_active() && on_cuda(like)) return to_device(bernoulli(to_device(like, Device{}), p), like.device());
  Tensor out = empty(like.shape(), like.dtype(), like.device());
  cpu::bernoulli_scalar(out, p);
  return out;
}

Tensor dropout(const Tensor& x, double p, bool training) {
  if (p < 0 || p > 1) throw ValueError("[dropout] probability has to be between 0 and 1, but got " + std::to_string(p));
  if (!training || p == 0) return x;
  check_not_tracing("dropout");
  check_float("dropout", x.dtype());
  if (p == 1) return binary(BinaryOp::Mul, x, Scalar::from_double(0.0));
  Tensor mask = empty(x.shape(), is_half(x.dtype()) ? DType::Float32 : x.dtype(), x.device());
  cpu::bernoulli_scalar(mask, 1 - p);
  return binary(BinaryOp::Mul, x, binary(BinaryOp::Mul, detail::cast(mask, x.dtype()), Scalar::from_double(1.0 / (1 - p))));
}

Tensor dropout2d(const Tensor& x, double p, bool training) {
  if (x.dim() != 3 && x.dim() != 4)
    shape_error("dropout2d", {x.shape()}, {{"p", p}}, "expected 3-D or 4-D input, got input of shape " + shape_str(x.shape()));
  if (p < 0 || p > 1) throw ValueError("[dropout2d] probability has to be between 0 and 1, but got " + std::to_string(p));
  if (!training || p == 0) return x;
  check_not_tracing("dropout2d");
  check_float("dropout2d", x.dtype());
  Shape ms = x.shape();
  ms[ms.size() - 1] = 1;
  ms[ms.size() - 2] = 1;
  if (p == 1) return binary(BinaryOp::Mul, x, Scalar::from_double(0.0));
  Tensor mask = empty(ms, is_half(x.dtype()) ? DType::Float32 : x.dtype(), x.device());
  cpu::bernoulli_scalar(mask, 1 - p);
  return binary(BinaryOp::Mul, x, binary(BinaryOp::Mul, detail::cast(mask, x.dtype()), Scalar::from_double(1.0 / (1 - p))));
}
}  // namespace tt
