// layer_norm backward fused: per row, the mean and 1/std (recomputed in double, as the forward),
// xhat = (x - mean) rstd, gw = g * w, then dx = rstd (gw - mean(gw) - xhat mean(gw xhat)); the
// weight and bias gradients are column sums of g xhat and g, kept per thread and added in a fixed
// order. One read of x and g per row instead of the dozen whole-tensor passes of the composite.
#include "layer_norm_backward.h"

#include <cmath>
#include <vector>

#include "parallel.h"

namespace tt::cpu {
namespace {

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
    std::vector<T> xhat(cols), gw(cols);
    for (int64_t t = tb; t < te; ++t) {
      double* pw = sums ? part.data() + t * 2 * cols : nullptr;
      double* pb = sums ? pw + cols : nullptr;
      for (int64_t i = t * per; i < std::min(rows, (t + 1) * per); ++i) {
        const T* row = xp + i * cols;
        const T* gr = gp + i * cols;
        double s = 0;
        for (int64_t j = 0; j < cols; ++j) s += row[j];
        const double mean = s / static_cast<double>(cols);
        double ss = 0;
        for (int64_t j = 0; j < cols; ++j) {
          const double d = row[j] - mean;
          ss += d * d;
        }
        const T rstd = static_cast<T>(1.0 / std::sqrt(ss / static_cast<double>(cols) + eps));
        const T mf = static_cast<T>(mean);
        T m1 = 0, m2 = 0;
#pragma omp simd reduction(+ : m1, m2)
        for (int64_t j = 0; j < cols; ++j) {
          xhat[j] = (row[j] - mf) * rstd;
          gw[j] = wp ? gr[j] * wp[j] : gr[j];
          m1 += gw[j];
          m2 += gw[j] * xhat[j];
        }
        m1 /= static_cast<T>(cols);
        m2 /= static_cast<T>(cols);
        T* d = dxp + i * cols;
#pragma omp simd
        for (int64_t j = 0; j < cols; ++j) d[j] = rstd * (gw[j] - m1 - xhat[j] * m2);
        if (sums)
          for (int64_t j = 0; j < cols; ++j) {
            pw[j] += static_cast<double>(gr[j]) * xhat[j];
            pb[j] += gr[j];
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
