// The CPU caching allocator: every CPU storage buffer comes from here (NOTE [ CPU caching
// allocator ] in cpu_allocator.cpp).
#pragma once

#include <cstddef>
#include <limits>
#include <memory>
#include <new>

namespace tt {

// Allocates `nbytes` (> 0) of CPU memory, 64-byte aligned (2 MB-aligned from kCpuHugeThreshold
// up), and returns its owner: dropping the last reference hands the block back to the cache.
// Throws std::bad_alloc for sizes the machine cannot hold.
std::shared_ptr<void> cpu_allocate(size_t nbytes);

// Blocks below this size are plain malloc blocks and are never cached.
constexpr size_t kCpuCachedMin = size_t(64) << 10;
// Blocks from this size up are rounded to 2 MB, 2 MB-aligned and advised as huge pages.
constexpr size_t kCpuHugeThreshold = size_t(4) << 20;

// The size a request of `nbytes` is served with (its size class); throws std::bad_alloc on overflow.
size_t cpu_size_class(size_t nbytes);

// A kernel's temporary buffer of `n` uninitialised T from the caching allocator. Per-call scratch
// of a few hundred KB (conv's im2col columns) would otherwise be mmapped, page-faulted and
// unmapped by malloc on every call (NOTE [ CPU caching allocator ]).
template <class T>
class CpuScratch {
 public:
  explicit CpuScratch(size_t n) : owner_(n ? cpu_allocate(checked_bytes(n)) : nullptr) {}
  T* data() const { return static_cast<T*>(owner_.get()); }

 private:
  static size_t checked_bytes(size_t n) {
    if (n > std::numeric_limits<size_t>::max() / sizeof(T)) throw std::bad_alloc();
    return n * sizeof(T);
  }
  std::shared_ptr<void> owner_;
};

}  // namespace tt
