// The CPU caching allocator: every CPU storage buffer comes from here (NOTE [ CPU caching
// allocator ] in cpu_allocator.cpp).
#pragma once

#include <cstddef>
#include <memory>

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

}  // namespace tt
