// Fused cross-entropy over [n, c] logits with class-index targets: the forward is a row's
// logsumexp minus its target logit, the backward (softmax - onehot) * scale, each one pass per row
// (the composite was log_softmax, a gather, masks and reductions: about ten ops each way).
// A row's exps are summed by softmax's helper (row_exp_sum in row_exp.h), not one by one into a
// float: with a confident prediction the row is one exp of 1 and many tiny ones, and a float
// running sum rounds each tiny one against the 1, which moved the loss and the target's gradient
// by thousands of ulps of (1 - p) over 1000 classes.
#include <algorithm>
#include <cmath>
#include <vector>

#include "kernels.h"
#include "parallel.h"
#include "row_exp.h"

namespace tt::cpu {
namespace {

template <class T>
T row_max(const T* row, int64_t c) {
  T m = row[0];
  for (int64_t j = 1; j < c; ++j) m = row[j] > m ? row[j] : m;
  return m;
}

template <class T>
void rows_fwd(const Tensor& loss, const Tensor& x, const Tensor& t, int64_t ignore) {
  int64_t n = x.size(0), c = x.size(1);
  const T* px = x.data<T>();
  const int64_t* pt = t.data<int64_t>();
  T* pl = loss.data<T>();
  parallel_for(0, n, std::max<int64_t>(1, kGrain / std::max<int64_t>(c, 1)), [=](int64_t b, int64_t e) {
    std::vector<T> exps(static_cast<size_t>(c));  // the row's exps, only summed
    for (int64_t i = b; i < e; ++i) {
      if (pt[i] == ignore) {
        pl[i] = T(0);
        continue;
      }
      const T* row = px + i * c;
      T m = row_max(row, c);
      T ls = static_cast<T>(std::log(row_exp_sum(row, exps.data(), c, m)));
      pl[i] = (m - row[pt[i]]) + ls;  // not m + log(s) - x: m + log(s) rounds log(s) away for huge logits
    }
  });
}

template <class T>
void rows_bwd(const Tensor& dx, const Tensor& x, const Tensor& t, int64_t ignore, double scale) {
  int64_t n = x.size(0), c = x.size(1);
  const T* px = x.data<T>();
  const int64_t* pt = t.data<int64_t>();
  T* pd = dx.data<T>();
  const T k = static_cast<T>(scale);
  parallel_for(0, n, std::max<int64_t>(1, kGrain / std::max<int64_t>(c, 1)), [=](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      T* __restrict d = pd + i * c;
      if (pt[i] == ignore) {
        std::fill(d, d + c, T(0));
        continue;
      }
      const T* __restrict row = px + i * c;
      T m = row_max(row, c);
      T r = static_cast<T>(scale / row_exp_sum(row, d, c, m));  // d: the row's exps
      for (int64_t j = 0; j < c; ++j) d[j] *= r;
      d[pt[i]] -= k;
    }
  });
}

}  // namespace

void cross_entropy_rows(const Tensor& loss, const Tensor& x, const Tensor& t, int64_t ignore_index) {
  if (x.numel() == 0) return;
  if (x.dtype() == DType::Float32) return rows_fwd<float>(loss, x, t, ignore_index);
  if (x.dtype() == DType::Float64) return rows_fwd<double>(loss, x, t, ignore_index);
  throw TypeError(std::string("[cross_entropy] needs float32 or float64, got ") + dtype_name(x.dtype()));
}

void cross_entropy_backward(const Tensor& dx, const Tensor& x, const Tensor& t, int64_t ignore_index, double scale) {
  if (x.numel() == 0) return;
  if (x.dtype() == DType::Float32) return rows_bwd<float>(dx, x, t, ignore_index, scale);
  if (x.dtype() == DType::Float64) return rows_bwd<double>(dx, x, t, ignore_index, scale);
  throw TypeError(std::string("[cross_entropy] needs float32 or float64, got ") + dtype_name(x.dtype()));
}

}  // namespace tt::cpu
