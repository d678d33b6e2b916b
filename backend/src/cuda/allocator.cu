// The caching device allocator. Sizes are rounded into buckets (512 B steps up to 1 MiB, then
// 2 MiB steps); a freed block goes to its bucket's free list and is handed out again for the next
// request of that bucket. All kernels run on one stream, so a block freed by the host can be
// reused at once: later work on the stream runs after the work that used it (stream order).
// cudaMalloc failing empties the cache and retries once before raising "CUDA out of memory".
#include <mutex>
#include <unordered_map>
#include <vector>

#include "common.cuh"

namespace tt::cuda {
namespace {

size_t round_size(size_t n) {
  if (n == 0) n = 1;
  if (n <= (size_t(1) << 20)) return (n + 511) & ~size_t(511);
  return (n + (size_t(2) << 20) - 1) & ~((size_t(2) << 20) - 1);
}

struct Allocator {
  std::mutex mu;
  std::unordered_map<size_t, std::vector<void*>> free_blocks;  // bucket size -> blocks
  size_t allocated = 0, peak = 0, reserved = 0;

  void* get(size_t bucket) {
    {
      std::lock_guard<std::mutex> lk(mu);
      auto it = free_blocks.find(bucket);
      if (it != free_blocks.end() && !it->second.empty()) {
        void* p = it->second.back();
        it->second.pop_back();
        account(bucket);
        return p;
      }
    }
    void* p = nullptr;
    cudaError_t e = cudaMalloc(&p, bucket);
    if (e == cudaErrorMemoryAllocation) {
      cudaGetLastError();
      release_cached();
      e = cudaMalloc(&p, bucket);
    }
    if (e == cudaErrorMemoryAllocation) {
      cudaGetLastError();
      throw std::runtime_error("CUDA out of memory: tried to allocate " + std::to_string(bucket) + " bytes (" +
                               std::to_string(allocated) + " bytes allocated by tensors, " +
                               std::to_string(reserved) + " reserved)");
    }
    check(e, "cudaMalloc");
    std::lock_guard<std::mutex> lk(mu);
    reserved += bucket;
    account(bucket);
    return p;
  }
  void account(size_t bucket) {
    allocated += bucket;
    if (allocated > peak) peak = allocated;
  }
  void put(void* p, size_t bucket) {
    std::lock_guard<std::mutex> lk(mu);
    allocated -= bucket;
    free_blocks[bucket].push_back(p);
  }
  void release_cached() {
    cudaDeviceSynchronize();  // nothing queued may still use a cached block
    std::lock_guard<std::mutex> lk(mu);
    for (auto& [bucket, blocks] : free_blocks) {
      for (void* p : blocks) {
        cudaFree(p);
        reserved -= bucket;
      }
      blocks.clear();
    }
  }
};

Allocator& alloc() {
  static auto* a = new Allocator();  // leaked: tensors may be freed during interpreter shutdown
  return *a;
}

}  // namespace

std::shared_ptr<Storage> allocate(size_t nbytes, Device d) {
  if (device_count() == 0)
    throw std::runtime_error("CUDA is not available: no CUDA device was found (" + last_status() + ")");
  if (d.index != 0) throw NotImplementedError("only cuda:0 is supported (multi-GPU placement is not implemented)");
  auto st = std::make_shared<Storage>();
  st->device = d;
  st->nbytes = nbytes;
  size_t bucket = round_size(nbytes);
  void* p = alloc().get(bucket);
  st->data = p;
  st->owner = std::shared_ptr<void>(p, [bucket](void* q) { alloc().put(q, bucket); });
  return st;
}

size_t memory_allocated() {
  std::lock_guard<std::mutex> lk(alloc().mu);
  return alloc().allocated;
}
size_t max_memory_allocated() {
  std::lock_guard<std::mutex> lk(alloc().mu);
  return alloc().peak;
}
size_t memory_reserved() {
  std::lock_guard<std::mutex> lk(alloc().mu);
  return alloc().reserved;
}
void reset_peak_memory_stats() {
  std::lock_guard<std::mutex> lk(alloc().mu);
  alloc().peak = alloc().allocated;
}
void empty_cache() {
  if (device_count() == 0) return;
  alloc().release_cached();
}

}  // namespace tt::cuda
