// One thread cap: OpenMP's pool does all the parallel work; OpenBLAS stays single-threaded
// (NOTE [ One thread pool ] in kernels.h).
#include <cblas.h>

#include <algorithm>
#include <atomic>

#include "parallel.h"
#include "typedtensor/ops.h"

namespace tt {
namespace {
int default_threads() {
#ifdef _OPENMP
  return std::max(1, omp_get_max_threads());
#else
  return 1;
#endif
}
std::atomic<int> g_threads{0};
}  // namespace

namespace cpu {
int num_threads() {
  int n = g_threads.load(std::memory_order_relaxed);
  if (n == 0) {
    n = default_threads();
    g_threads.store(n);
    scipy_openblas_set_num_threads(1);  // NOTE [ One thread pool ] in kernels.h
  }
  return n;
}
}  // namespace cpu

void set_num_threads(int n) {
  if (n < 1) throw ValueError("set_num_threads: expected a positive number of threads, got " + std::to_string(n));
  g_threads.store(n);
#ifdef _OPENMP
  omp_set_num_threads(n);
#endif
  scipy_openblas_set_num_threads(1);  // NOTE [ One thread pool ] in kernels.h
}

int get_num_threads() { return cpu::num_threads(); }

}  // namespace tt
