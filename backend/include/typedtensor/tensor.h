#pragma once
// Storage and tensors: a reference-counted buffer, and strided views of it.
#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "typedtensor/dtype.h"
#include "typedtensor/errors.h"
#include "typedtensor/small_vec.h"

namespace tt {

enum class DeviceType : uint8_t { CPU, CUDA };
struct Device {
  DeviceType type = DeviceType::CPU;
  int index = 0;
  bool operator==(const Device& o) const { return type == o.type && index == o.index; }
  bool operator!=(const Device& o) const { return !(*this == o); }
};

uint64_t next_storage_serial();  // tensor.cpp: a process-wide allocation counter

// A buffer of bytes. `owner` keeps the memory alive (our allocation, a numpy array, a DLPack
// producer); the data pointer is freed when the last Storage and view is gone.
struct Storage {
  void* data = nullptr;
  size_t nbytes = 0;
  Device device;
  std::shared_ptr<void> owner;
  // Version counter shared by every view of this storage; bumped by in-place ops (autograd
  // checks that a saved tensor was not modified before backward).
  std::atomic<uint64_t> version{0};
  bool writable = true;
  // Creation order, process-wide: graph capture tells a tensor the traced function made (a
  // constant of the graph) from one that existed before the trace (a capture, read by reference).
  uint64_t serial = next_storage_serial();
};

class Node;  // autograd graph node (backend/src/autograd)
struct LeafHooks;  // a leaf's gradient hooks (typedtensor/autograd.h)

// Autograd fields, allocated on first use so a plain tensor stays small.
struct AutogradMeta {
  bool requires_grad = false;
  bool retains_grad = false;
  std::shared_ptr<struct TensorImpl> grad;
  std::shared_ptr<Node> grad_fn;  // the node that produced this tensor (null for leaves)
  uint32_t output_nr = 0;         // which output of grad_fn this tensor is
  std::weak_ptr<Node> grad_accumulator;  // a leaf's AccumulateGrad node, shared by all its uses
  std::shared_ptr<LeafHooks> hooks;      // a leaf's register_hook / post-accumulate-grad hooks
};

struct TensorImpl {
  std::shared_ptr<Storage> storage;
  Shape shape;
  Strides strides;  // in elements
  int64_t offset = 0;  // in elements
  DType dtype = DType::Float32;
  bool wrapped_number = false;  // a Python scalar turned into a 0-d tensor (type promotion)
  std::unique_ptr<AutogradMeta> autograd;
};

[[noreturn]] void throw_host_access();  // tensor.cpp

class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(std::shared_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}

  bool defined() const { return impl_ != nullptr; }
  TensorImpl* impl() const { return impl_.get(); }
  const std::shared_ptr<TensorImpl>& impl_ptr() const { return impl_; }

  const Shape& shape() const { return impl_->shape; }
  const Strides& strides() const { return impl_->strides; }
  int64_t dim() const { return static_cast<int64_t>(impl_->shape.size()); }
  int64_t size(int64_t d) const;  // negative d allowed
  int64_t stride(int64_t d) const;
  int64_t numel() const;
  DType dtype() const { return impl_->dtype; }
  size_t itemsize() const { return tt::itemsize(impl_->dtype); }
  int64_t offset() const { return impl_->offset; }
  Device device() const { return impl_->storage->device; }
  const std::shared_ptr<Storage>& storage() const { return impl_->storage; }
  bool is_contiguous() const;
  bool is_same(const Tensor& o) const { return impl_ == o.impl_; }

  // Pointer to element 0 (offset applied).
  void* raw() const {
    return static_cast<char*>(impl_->storage->data) + impl_->offset * static_cast<int64_t>(itemsize());
  }
  // Typed host pointer; a CUDA tensor's memory is not host-addressable (raw() gives the device
  // pointer to CUDA kernels), so host code asking for it gets an exception instead of a crash.
  template <class T>
  T* data() const {
    if (impl_->storage->device.type != DeviceType::CPU) throw_host_access();
    return static_cast<T*>(raw());
  }

  // Every in-place write ends here; while a graph tracer is installed it is told (tensor.cpp), so a
  // write the tracer did not capture is refused instead of silently baked into the graph.
  void bump_version() const;
  uint64_t version() const { return impl_->storage->version.load(std::memory_order_relaxed); }

  AutogradMeta& autograd_meta() const;  // creates it on first use
  bool requires_grad() const { return impl_->autograd && impl_->autograd->requires_grad; }

 private:
  std::shared_ptr<TensorImpl> impl_;
};

// ---- construction ----
Strides contiguous_strides(const Shape& shape);
int64_t shape_numel(const Shape& shape);  // throws ValueError on negative dims / overflow
// The device allocations without an explicit device go to: the CPU, except while a DeviceScope
// (typedtensor/device.h) is active on this thread -- e.g. while a primitive runs on CUDA.
Device default_device();
// Uninitialised contiguous tensor.
Tensor empty(const Shape& shape, DType dtype, Device device = default_device());

// The CPU caching allocator's cache (NOTE [ CPU caching allocator ] in backend/src/core/cpu_allocator.cpp).
struct CpuCacheStats {
  size_t held_bytes, buffers;
  uint64_t hits, misses;
  size_t limit_bytes;
};
CpuCacheStats cpu_cache_stats();
void cpu_cache_empty();                   // frees every cached buffer; restarts the peak in use
void cpu_cache_set_limit(size_t bytes);  // releases what is held above it; 0 disables the cache
// A tensor sharing `base`'s storage with a new geometry.
Tensor make_view(const Tensor& base, Shape shape, Strides strides, int64_t offset);
// Wrap foreign memory (numpy, DLPack); `owner` is released when the storage dies.
Tensor from_blob(void* data, const Shape& shape, const Strides& strides, DType dtype,
                 std::shared_ptr<void> owner, bool writable, Device device = {});

int64_t wrap_dim(int64_t d, int64_t ndim, const char* op);  // negative index -> positive, or IndexError

}  // namespace tt
