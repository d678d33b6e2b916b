#pragma once
// parallel_for over [begin, end) in chunks of at least `grain` items (OpenMP when built with it).
#include <algorithm>
#include <cstdint>
#include <exception>
#include <optional>

#include "typedtensor/gil.h"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace tt::cpu {

constexpr int64_t kGrain = 32768;  // elements per thread below which we stay serial (like torch)

int num_threads();  // the cap set by tt::set_num_threads

template <class F>
void parallel_for(int64_t begin, int64_t end, int64_t grain, F&& f) {
  int64_t n = end - begin;
  if (n <= 0) return;
  // more than one grain of work: other Python threads run meanwhile (NOTE [ The GIL ])
  std::optional<GilRelease> no_gil;
  if (n > grain) no_gil.emplace();
#ifdef _OPENMP
  int nt = num_threads();
  if (nt > 1 && n > grain && !omp_in_parallel()) {
    int64_t chunks = std::min<int64_t>(nt, (n + grain - 1) / grain);
    std::exception_ptr err = nullptr;
#pragma omp parallel num_threads(static_cast<int>(chunks))
    {
      int64_t tid = omp_get_thread_num(), nth = omp_get_num_threads();
      int64_t per = (n + nth - 1) / nth;
      int64_t b = begin + tid * per, e = std::min(end, b + per);
      if (b < e) {
        try {
          f(b, e);
        } catch (...) {
#pragma omp critical(tt_parallel_error)
          err = std::current_exception();
        }
      }
    }
    if (err) std::rethrow_exception(err);
    return;
  }
#endif
  f(begin, end);
}

}  // namespace tt::cpu
