// GIL hooks for long kernels: NOTE [ The GIL ] in typedtensor/gil.h.
#include "typedtensor/gil.h"

#include <atomic>

namespace tt {
namespace {
std::atomic<void* (*)()> g_release{nullptr};
std::atomic<void (*)(void*)> g_reacquire{nullptr};
thread_local int t_keep = 0;
}  // namespace

void set_gil_hooks(GilHooks hooks) {
  g_reacquire.store(hooks.reacquire);
  g_release.store(hooks.release);
}

GilRelease::GilRelease() {
  if (t_keep) return;
  if (auto release = g_release.load(std::memory_order_relaxed)) token_ = release();
}

GilRelease::~GilRelease() {
  if (token_) g_reacquire.load(std::memory_order_relaxed)(token_);
}

GilKeep::GilKeep() { ++t_keep; }
GilKeep::~GilKeep() { --t_keep; }

std::unique_lock<std::mutex> lock_releasing_gil(std::mutex& m) {
  std::unique_lock<std::mutex> lock(m, std::try_to_lock);
  if (lock.owns_lock()) return lock;
  {
    GilRelease no_gil;  // the holder may be waiting for the GIL: do not keep it while blocked
    lock.lock();
  }
  return lock;
}

}  // namespace tt
