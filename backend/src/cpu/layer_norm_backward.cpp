// layer_norm backward fused: per row, the mean and 1/std (recomputed exactly as the forward
// computes them, rowwise.cpp's lane helpers), xhat = (x - mean) rstd, gw = g * w, then
// dx = rstd (gw - mean(gw) - xhat mean(gw xhat)); the weight and bias gradients are column sums of
// g xhat and g. One read of x and g per row instead of the dozen whole-tensor passes of the
// composite.
//
// Every loop runs in the tensor's type over independent lanes: the row statistics in the forward's
// vector lanes, the two row means in 8 float lanes, and the column sums in float over blocks of
// kFlushRows rows, each block added into a double per column (kept per thread, then added in a
// fixed order). A serial double accumulator per row here cost a float add's latency per element
// and made the backward three times torch's.
#include "layer_norm_backward.h"

#include <cmath>
#include <vector>

#include "reduce_lanes.h"

namespace tt::cpu {
namespace {

constexpr int64_t kFlushRows = 32;  // rows summed in float before the column sums go to double

template <class T>
double row_sqdev(const T* row, int64_t cols, double mean) {
  if constexpr (std::is_same_v<T, float>) return contiguous_sqdev_lanes(row, cols, static_cast<float>(mean));
  else return contiguous_sqdev(row, cols, mean);
}

template <class T>
void run(const Tensor& dx, const Tensor* dw, const Tensor* db, const Tensor& x, const Tensor* w, const Tensor& g,
         int64_t rows, int64_t cols, double eps) {
  const T* xp = x.data<T>();
  const T* gp = g.data<T>();
  const T* wp = w ? w->data<T>() : nullptr;
  T* dxp = dx.data<T>();
  const bool sums = dw || db;
  const int nt = std::max(1, num_threads());
  const int64_t per = (rows + nt - 1) / nt;
  std::vector<double> part(sums ? static_cast<size_t>(nt) * 2 * cols : 0, 0.0);  // [thread][dw | db][cols]
  parallel_for(0, nt, 1, [&](int64_t tb, int64_t te) {
    std::vector<T> xhat(cols), gw(cols), bw(sums ? cols : 0), bb(sums ? cols : 0);
    T* xh = xhat.data();
    T* gv = gw.data();
    T* fw = bw.data();
    T* fb = bb.data();
    for (int64_t t = tb; t < te; ++t) {
      double* pw = sums ? part.data() + t * 2 * cols : nullptr;
      double* pb = sums ? pw + cols : nullptr;
      const int64_t r0 = t * per, r1 = std::min(rows, (t + 1) * per);
      for (int64_t blk = r0; blk < r1; blk += kFlushRows) {
        if (sums)
          for (int64_t j = 0; j < cols; ++j) fw[j] = fb[j] = T(0);
        for (int64_t i = blk; i < std::min(r1, blk + kFlushRows); ++i) {
          const T* row = xp + i * cols;
          const T* gr = gp + i * cols;
          const double mean = static_cast<double>(contiguous_sum(row, cols)) / static_cast<double>(cols);
          const double ss = row_sqdev(row, cols, mean);
          const T rstd = static_cast<T>(1.0 / std::sqrt(ss / static_cast<double>(cols) + eps));
          const T mf = static_cast<T>(mean);
          if (wp) {
#pragma omp simd
            for (int64_t j = 0; j < cols; ++j) gv[j] = gr[j] * wp[j];
          } else {
#pragma omp simd
            for (int64_t j = 0; j < cols; ++j) gv[j] = gr[j];
          }
#pragma omp simd
          for (int64_t j = 0; j < cols; ++j) xh[j] = (row[j] - mf) * rstd;
          const T m1 = static_cast<T>(contiguous_sum(gv, cols) / static_cast<double>(cols));
          T m2 = 0;
#pragma omp simd reduction(+ : m2)
          for (int64_t j = 0; j < cols; ++j) m2 += gv[j] * xh[j];
          m2 /= static_cast<T>(cols);
          T* d = dxp + i * cols;
#pragma omp simd
          for (int64_t j = 0; j < cols; ++j) d[j] = rstd * (gv[j] - m1 - xh[j] * m2);
          if (sums) {
#pragma omp simd
            for (int64_t j = 0; j < cols; ++j) {
              fw[j] += gr[j] * xh[j];
              fb[j] += gr[j];
            }
          }
        }
        if (sums)
          for (int64_t j = 0; j < cols; ++j) {
            pw[j] += static_cast<double>(fw[j]);
            pb[j] += static_cast<double>(fb[j]);
          }
      }
    }
  });
  if (!sums) return;
  T* dwp = dw ? dw->data<T>() : nullptr;
  T* dbp = db ? db->data<T>() : nullptr;
  for (int64_t j = 0; j < cols; ++j) {
    double a = 0, b = 0;
    for (int t = 0; t < nt; ++t) {
      a += part[(static_cast<size_t>(t) * 2) * cols + j];
      b += part[(static_cast<size_t>(t) * 2 + 1) * cols + j];
    }
    if (dwp) dwp[j] = static_cast<T>(a);
    if (dbp) dbp[j] = static_cast<T>(b);
  }
}

}  // namespace

void layer_norm_backward(const Tensor& dx, const Tensor* dw, const Tensor* db, const Tensor& x, const Tensor* w,
                         const Tensor& g, int64_t rows, int64_t cols, double eps) {
  if (x.dtype() == DType::Float32) return run<float>(dx, dw, db, x, w, g, rows, cols, eps);
  if (x.dtype() == DType::Float64) return run<double>(dx, dw, db, x, w, g, rows, cols, eps);
  throw TypeError("[layer_norm] needs a floating point tensor");
}

}  // namespace tt::cpu
