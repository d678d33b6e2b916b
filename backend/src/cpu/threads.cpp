// One thread cap: OpenMP's pool does all the parallel work; OpenBLAS stays single-threaded
// (NOTE [ One thread pool ] in kernels.h).
#include <cblas.h>

#include <algorithm>
#include <atomic>

#if defined(__x86_64__) || defined(_M_X64)
#include <xmmintrin.h>
#define TT_HAS_MXCSR 1
#endif

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
std::atomic<bool> g_flush_denormal{false};

// NOTE [ Flushing subnormals ]
// On some x86 CPUs an arithmetic instruction that meets a subnormal operand takes a microcode
// assist: on the Emerald Rapids Xeon here a conv2d or a 512x512 matmul on subnormal inputs ran
// 140-200x slower (torch's the same). torch.set_flush_denormal sets DAZ (subnormal inputs read as
// zero) and FTZ (subnormal results written as zero) in MXCSR, a per-thread register. Here the work
// runs on OpenMP's pool, so the bits go to every pool thread as well as the caller; threads the
// pool makes later copy their creator's floating-point environment (pthread_create), and a pool
// that grows past the threads set here gets the bits again from set_num_threads.
void apply_flush_denormal(bool on) {
#ifdef TT_HAS_MXCSR
  constexpr unsigned kFtzDaz = 0x8040;  // FTZ (bit 15) | DAZ (bit 6)
  auto set = [on] {
    unsigned csr = _mm_getcsr();
    _mm_setcsr(on ? (csr | kFtzDaz) : (csr & ~kFtzDaz));
  };
  set();
#ifdef _OPENMP
  int n = std::max(omp_get_max_threads(), g_threads.load(std::memory_order_relaxed));
#pragma omp parallel num_threads(n)
  set();
#endif
#else
  (void)on;
#endif
}
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
  if (g_flush_denormal.load()) apply_flush_denormal(true);  // NOTE [ Flushing subnormals ]
}

int get_num_threads() { return cpu::num_threads(); }

bool set_flush_denormal(bool mode) {
#ifdef TT_HAS_MXCSR
  g_flush_denormal.store(mode);
  apply_flush_denormal(mode);
  return true;
#else
  (void)mode;
  return false;
#endif
}

}  // namespace tt
