#include "typedtensor/tensor.h"

#include "typedtensor/device.h"
#include "typedtensor/primitive.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <list>
#include <mutex>
#include <vector>
#include <limits>
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

namespace {
size_t physical_memory() {
  static const size_t mem = [] {
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    return pages > 0 && page > 0 ? static_cast<size_t>(pages) * static_cast<size_t>(page)
                                 : std::numeric_limits<size_t>::max();
  }();
  return mem;
}

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};

constexpr size_t kHugeThreshold = size_t(4) << 20;

// NOTE [ Heap churn ]: a training step frees and re-allocates the same few-MB activations and
// gradients every iteration. With glibc's defaults the heap top is trimmed back to the kernel after
// each step and every buffer is page-faulted and zeroed again on first touch (17% of an MLP step
// was kernel time, against 6% in torch). Keeping blocks under 32 MB in the heap and trimming only
// above 256 MB of free top makes them reusable; the high-water mark is unchanged (freed memory
// only stays resident). Set once, and not where the user chose either setting by environment.
void tune_heap_once() {
#if defined(__GLIBC__) && defined(M_TRIM_THRESHOLD) && defined(M_MMAP_THRESHOLD)
  static const bool done = [] {
    if (!std::getenv("MALLOC_TRIM_THRESHOLD_") && !std::getenv("MALLOC_MMAP_THRESHOLD_") &&
        !std::getenv("TYPEDTENSOR_NO_HEAP_TUNING")) {
      mallopt(M_MMAP_THRESHOLD, 32 << 20);
      mallopt(M_TRIM_THRESHOLD, 256 << 20);
    }
    return true;
  }();
  (void)done;
#endif
}

constexpr size_t kHugePage = size_t(2) << 20;

// NOTE [ Large-buffer cache ]
// A freed CPU buffer of >= 4 MB goes back to a small cache instead of to the OS, keyed by its size
// rounded to 2 MB; the next allocation of that size takes it. Without it every large result is
// mapped anew and the first write to each page faults (a 16 MB output costs ~1 ms of zeroing
// page faults, as much as the kernel that fills it). Bounded: at most `limit` bytes are held
// (TYPEDTENSOR_CPU_CACHE_MB, default 256, 0 disables), and a miss first releases cached buffers of
// at least the size it is about to map, oldest first, so the cache does not raise the process's
// peak memory above what the same program would reach without it. Contents are not cleared:
// zeros() and friends fill explicitly. Thread-safe (buffers die on any thread).
class BufferCache {
 public:
  BufferCache() {
    const char* env = std::getenv("TYPEDTENSOR_CPU_CACHE_MB");
    size_t mb = 256;
    if (env && *env) {
      char* end = nullptr;
      unsigned long long v = std::strtoull(env, &end, 10);
      if (end && *end == '\0') mb = static_cast<size_t>(v);
    }
    limit_ = std::min(mb, size_t(1) << 20) << 20;
  }
  ~BufferCache() { release_all(); }
  BufferCache(const BufferCache&) = delete;
  BufferCache& operator=(const BufferCache&) = delete;

  // A cached buffer of exactly `size` bytes, or nullptr (after making room for a fresh one).
  void* take(size_t size) {
    std::vector<void*> drop;
    void* p = nullptr;
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (auto it = entries_.rbegin(); it != entries_.rend(); ++it)
        if (it->second == size) {
          p = it->first;
          held_ -= size;
          entries_.erase(std::next(it).base());
          ++hits_;
          return p;
        }
      ++misses_;
      size_t freed = 0;
      while (!entries_.empty() && freed < size) {
        freed += entries_.front().second;
        held_ -= entries_.front().second;
        drop.push_back(entries_.front().first);
        entries_.pop_front();
      }
    }
    for (void* d : drop) std::free(d);
    return nullptr;
  }

  // Keeps p (size bytes) for reuse, or frees it when the cache is full or disabled.
  void give(void* p, size_t size) {
    std::vector<void*> drop;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (size > limit_) {
        drop.push_back(p);
      } else {
        while (held_ + size > limit_ && !entries_.empty()) {
          held_ -= entries_.front().second;
          drop.push_back(entries_.front().first);
          entries_.pop_front();
        }
        entries_.emplace_back(p, size);
        held_ += size;
      }
    }
    for (void* d : drop) std::free(d);
  }

  void release_all() {
    std::list<std::pair<void*, size_t>> all;
    {
      std::lock_guard<std::mutex> lock(mu_);
      all.swap(entries_);
      held_ = 0;
    }
    for (auto& e : all) std::free(e.first);
  }

  CpuCacheStats stats() {
    std::lock_guard<std::mutex> lock(mu_);
    return {held_, entries_.size(), hits_, misses_, limit_};
  }

  void set_limit(size_t bytes) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      limit_ = bytes;
    }
    if (bytes == 0) release_all();
  }

 private:
  std::mutex mu_;
  std::list<std::pair<void*, size_t>> entries_;  // oldest first
  size_t held_ = 0, limit_ = 0;
  uint64_t hits_ = 0, misses_ = 0;
};

// Shared by the cache's users: each large buffer's deleter holds it, so it outlives every buffer
// (static destruction order at exit cannot leave a deleter with a dead cache).
const std::shared_ptr<BufferCache>& buffer_cache() {
  static const std::shared_ptr<BufferCache> c = std::make_shared<BufferCache>();
  return c;
}

struct CacheDeleter {
  std::shared_ptr<BufferCache> cache;
  size_t size;
  void operator()(void* p) const { cache->give(p, size); }
};
}  // namespace

CpuCacheStats cpu_cache_stats() { return buffer_cache()->stats(); }
void cpu_cache_empty() { buffer_cache()->release_all(); }
void cpu_cache_set_limit(size_t bytes) { buffer_cache()->set_limit(bytes); }

std::shared_ptr<Storage> allocate_storage(size_t nbytes) {
  auto st = std::make_shared<Storage>();
  if (nbytes > 0) {
    tune_heap_once();
    if (nbytes > physical_memory())
      throw std::bad_alloc();  // reported as MemoryError; overcommit would kill us later instead
    size_t rounded = (nbytes + 63) & ~size_t(63);
    if (rounded >= kHugeThreshold) {
      rounded = (rounded + kHugePage - 1) & ~(kHugePage - 1);
      const auto& cache = buffer_cache();
      void* p = cache->take(rounded);
      if (!p) {
        p = std::aligned_alloc(kHugePage, rounded);
        if (!p) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
        madvise(p, rounded, MADV_HUGEPAGE);  // fewer page faults
#endif
      }
      st->data = p;
      st->owner = std::shared_ptr<void>(p, CacheDeleter{cache, rounded});
    } else {
      void* p = std::aligned_alloc(64, rounded);
      if (!p) throw std::bad_alloc();
      st->data = p;
      st->owner = std::shared_ptr<void>(p, FreeDeleter());
    }
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
