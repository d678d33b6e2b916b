#pragma once
// NOTE [ The GIL ]
// The core links no Python, yet long CPU kernels should let other Python threads run (torch
// releases the GIL in its kernels). The bindings register two hooks at import: `release` gives up
// the GIL when the calling thread holds it and returns a token (nullptr: nothing was released),
// `reacquire` takes it back. A kernel wraps its work in a GilRelease scope when the work is large
// (cpu::parallel_for above one grain, a BLAS call): the scope is a no-op without hooks (the
// typedtensor-run tool), when this thread does not hold the GIL (an OpenMP worker, a nested scope)
// or inside a GilKeep scope. Nothing Python is touched while released: kernels read and write
// tensor memory only. State shared between threads is guarded (the allocator's cache and the RNG
// by mutexes; grad mode and the tracer are thread-local), and work that must look atomic to other
// Python threads (a leaf's gradient accumulation) runs in a GilKeep scope. A mutex that is held
// across a kernel (a graph's run lock) is taken with lock_releasing_gil, or a thread waiting for
// it while holding the GIL would deadlock with the holder waiting to get the GIL back.
#include <mutex>

namespace tt {

struct GilHooks {
  void* (*release)() = nullptr;
  void (*reacquire)(void* token) = nullptr;
};
void set_gil_hooks(GilHooks hooks);

// Releases the GIL for its lifetime (see NOTE [ The GIL ]).
class GilRelease {
 public:
  GilRelease();
  ~GilRelease();
  GilRelease(const GilRelease&) = delete;
  GilRelease& operator=(const GilRelease&) = delete;

 private:
  void* token_ = nullptr;
};

// While one is alive on this thread, GilRelease does nothing.
class GilKeep {
 public:
  GilKeep();
  ~GilKeep();
  GilKeep(const GilKeep&) = delete;
  GilKeep& operator=(const GilKeep&) = delete;
};

// Locks m; when it is busy, waits with the GIL released.
std::unique_lock<std::mutex> lock_releasing_gil(std::mutex& m);

}  // namespace tt
