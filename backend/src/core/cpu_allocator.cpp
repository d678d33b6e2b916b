#include "cpu_allocator.h"

#include "typedtensor/tensor.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <deque>
#include <limits>
#include <list>
#include <mutex>
#include <new>
#include <unordered_map>
#include <vector>

namespace tt {

// NOTE [ CPU caching allocator ]
// A training step frees and re-allocates the same activations and gradients every iteration.
// Handed back to glibc, the large ones are returned to the kernel (mmapped blocks are unmapped
// on free, and the heap top is trimmed), so each is page-faulted and zeroed again on first touch
// in the next step: that was 17% of an MLP step in kernel time (6% in torch), and a 16 MB result
// costs ~1 ms of page faults, as much as the kernel that fills it. So every buffer of at least
// kCpuCachedMin (64 KB) goes back to this cache when it dies and the next request of the same
// size class takes it. Smaller blocks stay with malloc: glibc serves them from its heap bins and
// neither mmaps them nor trims them away while they are in use, and a cache for them would cost
// more than it saves. The cache changes nothing about malloc for the rest of the process (it used
// to be tuned with mallopt instead, which changed every other library's heap too).
//
// Size classes: 4 per power of two (a request in [2^k, 2^(k+1)) is rounded up to a multiple of
// 2^(k-2)), like PyTorch's CUDA caching allocator's roundup_power2_divisions = 4. At most 25% (on
// average ~12%) is wasted, and the few classes per octave let one freed block serve requests of
// slightly different sizes (a last, shorter batch; a sequence of another length) where exact sizes
// would miss. From kCpuHugeThreshold (4 MB) up the class is also rounded to 2 MB and the block is
// 2 MB-aligned and advised MADV_HUGEPAGE: one fault per 2 MB instead of per 4 KB.
//
// Bounded: at most `limit` bytes are held (TYPEDTENSOR_CPU_CACHE_MB, default 256; 0 disables the
// cache; TYPEDTENSOR_NO_HEAP_TUNING, which used to turn the mallopt tuning off, is an alias of
// TYPEDTENSOR_CPU_CACHE_MB=0: both mean "glibc's own behaviour"). A miss first releases cached
// blocks (oldest first) until the bytes in use, the bytes held and the new block together fit
// under twice the most bytes ever in use at once (or under in-use + new, which the program needs
// anyway), so the cache at most doubles the program's own peak of large buffers, and never by
// more than the limit. Why not under the peak itself: a step's demand per class changes within
// the step (three 512 KB blocks live at one point, four 1 MB ones at the peak), and exact-class
// blocks cannot be split or merged like heap memory, so with no headroom every step's misses
// evict blocks a later request of the same step needs, which then miss in turn: a small CNN step
// missed 12 of 18 requests per step that way, and only reached no misses with twice the peak.
// glibc's heap tuned to never trim (the previous scheme) likewise kept its high-water mark.
// Contents are not cleared: zeros() and friends fill explicitly.
// Thread-safe: buffers die on any thread (one mutex; taken once per allocation of >= 64 KB, which
// is cheap next to filling 64 KB).

namespace {

size_t physical_memory() {
  static const size_t mem = [] {
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    return pages > 0 && page > 0 ? static_cast<size_t>(pages) * static_cast<size_t>(page)
                                 : std::numeric_limits<size_t>::max();
  }();
  return mem;
}

constexpr size_t kHugePage = size_t(2) << 20;
constexpr size_t kMaxBytes = std::numeric_limits<size_t>::max();

size_t round_up(size_t n, size_t align) {  // align is a power of two
  if (n > std::numeric_limits<size_t>::max() - (align - 1)) throw std::bad_alloc();
  return (n + align - 1) & ~(align - 1);
}

size_t floor_pow2(size_t n) {
  size_t p = 1;
  while (p <= n / 2) p <<= 1;
  return p;
}

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};

size_t limit_from_env() {
  const char* off = std::getenv("TYPEDTENSOR_NO_HEAP_TUNING");
  if (off && *off) return 0;
  const char* env = std::getenv("TYPEDTENSOR_CPU_CACHE_MB");
  size_t mb = 256;
  if (env && *env) {
    char* end = nullptr;
    unsigned long long v = std::strtoull(env, &end, 10);
    if (end && *end == '\0') mb = static_cast<size_t>(std::min<unsigned long long>(v, 1ull << 20));
  }
  return mb << 20;
}

// A block the cache owns (freed with std::free when released).
using Block = std::unique_ptr<void, FreeDeleter>;

class CachingAllocator {
 public:
  CachingAllocator() : limit_(limit_from_env()) {}
  CachingAllocator(const CachingAllocator&) = delete;
  CachingAllocator& operator=(const CachingAllocator&) = delete;

  // A cached block of class `size`, or a null Block (after releasing room for a fresh one).
  Block take(size_t size) {
    std::vector<Block> drop;
    std::lock_guard<std::mutex> lock(mu_);
    auto bin = bins_.find(size);
    if (bin != bins_.end() && !bin->second.empty()) {
      auto it = bin->second.back();  // the most recently freed: likeliest still in cache
      bin->second.pop_back();
      Block b = std::move(it->block);
      lru_.erase(it);
      held_ -= size;
      ++hits_;
      note_live(size);
      return b;
    }
    ++misses_;
    // Release cached blocks until live + held + this block fit under twice the most ever live (or
    // under live + this block, which the program needs anyway). See the NOTE for why twice.
    const size_t need = live_ + size;
    const size_t room = std::max(peak_live_ > kMaxBytes / 2 ? kMaxBytes : 2 * peak_live_, need);
    while (!lru_.empty() && need + held_ > room) pop_oldest(drop);
    note_live(size);
    return Block();  // `drop` is freed after the lock is released (declared first, destroyed last)
  }

  // Counts a block handed out by take()'s caller. Caller holds mu_.
  void note_live(size_t size) {
    live_ += size;
    peak_live_ = std::max(peak_live_, live_);
  }

  // Keeps `b` (class `size`) for reuse, or frees it when the cache is full or disabled.
  void give(Block b, size_t size) {
    std::vector<Block> drop;
    std::lock_guard<std::mutex> lock(mu_);
    live_ -= size;
    if (size > limit_) {
      drop.push_back(std::move(b));
      return;
    }
    while (held_ + size > limit_ && !lru_.empty()) pop_oldest(drop);
    lru_.push_back(Entry{std::move(b), size});
    bins_[size].push_back(std::prev(lru_.end()));
    held_ += size;
  }

  void trim_to(size_t bytes) {
    std::vector<Block> drop;
    std::lock_guard<std::mutex> lock(mu_);
    while (held_ > bytes && !lru_.empty()) pop_oldest(drop);
  }

  // Uncounts a block take() counted whose fresh allocation then failed.
  void forget(size_t size) {
    std::lock_guard<std::mutex> lock(mu_);
    live_ -= size;
  }

  // Releases every cached block and restarts the high-water mark from the bytes in use.
  void empty() {
    trim_to(0);
    std::lock_guard<std::mutex> lock(mu_);
    peak_live_ = live_;
  }

  CpuCacheStats stats() {
    std::lock_guard<std::mutex> lock(mu_);
    return {held_, lru_.size(), hits_, misses_, limit_};
  }

  void set_limit(size_t bytes) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      limit_ = bytes;
    }
    trim_to(bytes);
  }

 private:
  struct Entry {
    Block block;
    size_t size;
  };
  using Lru = std::list<Entry>;

  // Moves the oldest cached block into `drop`; returns its size. Caller holds mu_.
  size_t pop_oldest(std::vector<Block>& drop) {
    Entry& e = lru_.front();
    size_t size = e.size;
    auto bin = bins_.find(size);
    bin->second.pop_front();  // the oldest block overall is the oldest of its class
    if (bin->second.empty()) bins_.erase(bin);
    drop.push_back(std::move(e.block));
    lru_.pop_front();
    held_ -= size;
    return size;
  }

  std::mutex mu_;
  Lru lru_;                                                  // oldest first
  std::unordered_map<size_t, std::deque<Lru::iterator>> bins_;  // per class, oldest first
  size_t held_ = 0, limit_ = 0;
  size_t live_ = 0, peak_live_ = 0;  // bytes of cache-class blocks in use; their high-water mark
  uint64_t hits_ = 0, misses_ = 0;
};

// Each cached block's deleter holds the allocator, so it outlives every buffer (static
// destruction order at exit cannot leave a deleter with a dead cache).
const std::shared_ptr<CachingAllocator>& allocator() {
  static const std::shared_ptr<CachingAllocator> a = std::make_shared<CachingAllocator>();
  return a;
}

struct CacheDeleter {
  std::shared_ptr<CachingAllocator> cache;
  size_t size;
  void operator()(void* p) const { cache->give(Block(p), size); }
};

Block fresh_block(size_t size) {
  const bool huge = size >= kCpuHugeThreshold;
  Block b(std::aligned_alloc(huge ? kHugePage : 64, size));
  if (!b) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
  if (huge) madvise(b.get(), size, MADV_HUGEPAGE);  // fewer page faults
#endif
  return b;
}
}  // namespace

size_t cpu_size_class(size_t nbytes) {
  if (nbytes < kCpuCachedMin) return round_up(nbytes, 64);
  size_t cls = round_up(nbytes, floor_pow2(nbytes) / 4);
  return cls >= kCpuHugeThreshold ? round_up(cls, kHugePage) : cls;
}

std::shared_ptr<void> cpu_allocate(size_t nbytes) {
  if (nbytes > physical_memory())
    throw std::bad_alloc();  // reported as MemoryError; overcommit would kill us later instead
  const size_t size = cpu_size_class(nbytes);
  if (size < kCpuCachedMin) {
    void* p = std::aligned_alloc(64, size);
    if (!p) throw std::bad_alloc();
    return std::shared_ptr<void>(p, FreeDeleter());
  }
  const auto& cache = allocator();
  Block b = cache->take(size);
  if (!b) {
    try {
      b = fresh_block(size);
    } catch (...) {
      cache->forget(size);
      throw;
    }
  }
  // If making the control block throws, the deleter runs: the block goes back to the cache.
  return std::shared_ptr<void>(b.release(), CacheDeleter{cache, size});
}

CpuCacheStats cpu_cache_stats() { return allocator()->stats(); }
void cpu_cache_empty() { allocator()->empty(); }
void cpu_cache_set_limit(size_t bytes) { allocator()->set_limit(bytes); }

}  // namespace tt
