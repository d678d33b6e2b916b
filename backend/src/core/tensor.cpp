#include "typedtensor/tensor.h"

#include "typedtensor/device.h"
#include "typedtensor/primitive.h"
#include "cpu_allocator.h"

#include <limits>
#include <memory>
#include <new>
#include <string>

namespace tt {

size_t itemsize(DType d) {
  switch (d) {
    case DType::Bool:
    case DType::UInt8: return 1;
    case DType::Float16:
    case DType::BFloat16: return 2;
    case DType::Int32:
    case DType::Float32: return 4;
    default: return 8;
  }
}

const char* dtype_name(DType d) {
  static const char* names[] = {"bool", "uint8", "int32", "int64", "float16", "bfloat16", "float32", "float64"};
  return names[static_cast<int>(d)];
}

DType promote_types(DType a, DType b) {
  if (a == b) return a;
  if (a == DType::Bool) return b;
  if (b == DType::Bool) return a;
  bool fa = is_floating(a), fb = is_floating(b);
  if (fa && !fb) return a;
  if (fb && !fa) return b;
  if (fa && fb) {
    if (is_half(a) && is_half(b)) return DType::Float32;  // float16 + bfloat16
    return static_cast<int>(a) > static_cast<int>(b) ? a : b;
  }
  // both integral (uint8, int32, int64): uint8 with a signed type gives the signed type
  return static_cast<int>(a) > static_cast<int>(b) ? a : b;
}

std::string shape_str(const Shape& s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i) {
    if (i) r += ", ";
    r += std::to_string(s[i]);
  }
  return r + "]";
}

uint64_t next_storage_serial() {
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

void Tensor::bump_version() const {
  impl_->storage->version.fetch_add(1, std::memory_order_relaxed);
  if (Tracer* t = current_tracer()) t->wrote(*this);
}

void throw_host_access() {
  throw std::runtime_error(std::string("[") + current_op() +
                           "] host code read a CUDA tensor's memory (no CPU path for this op on CUDA tensors)");
}

// A 0-d tensor has no dim to ask about (wrap_dim accepts 0 and -1 there, for the ops that do).
int64_t Tensor::size(int64_t d) const {
  if (dim() == 0) throw IndexError("[size] dimension specified as " + std::to_string(d) + " but tensor has no dimensions");
  return impl_->shape[wrap_dim(d, dim(), "size")];
}
int64_t Tensor::stride(int64_t d) const {
  if (dim() == 0) throw IndexError("[stride] dimension specified as " + std::to_string(d) + " but tensor has no dimensions");
  return impl_->strides[wrap_dim(d, dim(), "stride")];
}

int64_t Tensor::numel() const {
  int64_t n = 1;
  for (int64_t s : impl_->shape) n *= s;
  return n;
}

bool Tensor::is_contiguous() const {
  int64_t expected = 1;
  const auto& sh = impl_->shape;
  const auto& st = impl_->strides;
  for (size_t i = sh.size(); i-- > 0;) {
    if (sh[i] == 1) continue;
    if (sh[i] == 0) return true;
    if (st[i] != expected) return false;
    expected *= sh[i];
  }
  return true;
}

AutogradMeta& Tensor::autograd_meta() const {
  if (!impl_->autograd) impl_->autograd = std::make_unique<AutogradMeta>();
  return *impl_->autograd;
}

Strides contiguous_strides(const Shape& shape) {
  Strides st(shape.size());
  int64_t acc = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    st[i] = acc;
    acc *= shape[i] > 0 ? shape[i] : 1;
  }
  return st;
}

int64_t shape_numel(const Shape& shape) {
  int64_t n = 1;
  for (int64_t s : shape) {
    if (s < 0) throw ValueError("negative dimension " + std::to_string(s) + " in shape " + shape_str(shape));
    if (s != 0 && n > std::numeric_limits<int64_t>::max() / s)
      throw ValueError("shape " + shape_str(shape) + " has too many elements");
    n *= s;
  }
  return n;
}

std::shared_ptr<Storage> allocate_storage(size_t nbytes) {
  auto st = std::make_shared<Storage>();
  if (nbytes > 0) {
    st->owner = cpu_allocate(nbytes);  // NOTE [ CPU caching allocator ] in cpu_allocator.cpp
    st->data = st->owner.get();
  }
  st->nbytes = nbytes;
  return st;
}

Tensor empty(const Shape& shape, DType dtype, Device device) {
  int64_t n = shape_numel(shape);
  size_t isz = itemsize(dtype);
  if (static_cast<uint64_t>(n) > std::numeric_limits<size_t>::max() / isz) throw std::bad_alloc();
  auto impl = std::make_shared<TensorImpl>();
  impl->storage = device.type == DeviceType::CPU ? allocate_storage(static_cast<size_t>(n) * isz)
                                                 : cuda_kernels().allocate(static_cast<size_t>(n) * isz, device);
  impl->shape = shape;
  impl->strides = contiguous_strides(shape);
  impl->dtype = dtype;
  return Tensor(std::move(impl));
}

Tensor make_view(const Tensor& base, Shape shape, Strides strides, int64_t offset) {
  auto impl = std::make_shared<TensorImpl>();
  impl->storage = base.storage();
  impl->shape = std::move(shape);
  impl->strides = std::move(strides);
  impl->offset = offset;
  impl->dtype = base.dtype();
  return Tensor(std::move(impl));
}

Tensor from_blob(void* data, const Shape& shape, const Strides& strides, DType dtype,
                 std::shared_ptr<void> owner, bool writable, Device device) {
  auto st = std::make_shared<Storage>();
  st->data = data;
  st->owner = std::move(owner);
  st->device = device;
  st->writable = writable;
  // nbytes: extent reachable from data (non-negative strides only)
  int64_t extent = 0;
  bool empty_t = false;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 0) empty_t = true;
    extent += (shape[i] - 1) * strides[i];
  }
  st->nbytes = empty_t ? 0 : static_cast<size_t>(extent + 1) * itemsize(dtype);
  auto impl = std::make_shared<TensorImpl>();
  impl->storage = std::move(st);
  impl->shape = shape;
  impl->strides = strides;
  impl->dtype = dtype;
  return Tensor(std::move(impl));
}

int64_t wrap_dim(int64_t d, int64_t ndim, const char* op) {
  int64_t n = ndim > 0 ? ndim : 1;  // a 0-d tensor accepts dim 0 and -1, like torch
  if (d < -n || d >= n)
    throw IndexError(std::string("[") + op + "] dimension out of range (expected to be in range of [" +
                     std::to_string(-n) + ", " + std::to_string(n - 1) + "], but got " + std::to_string(d) + ")");
  return d < 0 ? d + n : d;
}

}  // namespace tt
