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
#ifdef _OPENMP
  // Something process-wide (threadpoolctl limits *every* BLAS it finds, ours included) may have
  // given OpenBLAS threads again; then each of our GEMM blocks would fan out and oversubscribe the
  // cores (a 256x256 matmul took 8 ms instead of 0.18 on 2 threads). Re-assert it, from the
  // top-level thread only (reading the count is a plain load).
  if (!omp_in_parallel() && scipy_openblas_get_num_threads() != 1) scipy_openblas_set_num_threads(1);
#endif
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
