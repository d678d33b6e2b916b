// Reductions over the middle axis of a contiguous [outer, r, inner] block: sum/mean/prod/amax/
// amin/all/any/nansum, arg max/min, variance, cumulative sum/prod.
//   inner == 1 (reducing the last dims): one block per row (grid-stride over rows), warp shuffles
//     + a block reduction; a few very long rows are split across blocks and finished by a second
//     pass over the partials.
//   inner > 1: one thread per output element walking r (reads coalesced across inner).
#include "reduce.cuh"

namespace tt::cuda {
const char* reduce_op_name(ReduceOp op);

namespace {

template <class A>
struct Combine {
  ReduceOp op;
  __device__ __forceinline__ A operator()(A acc, A x) const {
    switch (op) {
      case ReduceOp::Prod: return A(acc * x);
      case ReduceOp::Max:
        if constexpr (is_fp_v<A>) return (x > acc || x != x || acc != acc) ? (acc != acc ? acc : x) : acc;
        else return x > acc ? x : acc;
      case ReduceOp::Min:
        if constexpr (is_fp_v<A>) return (x < acc || x != x || acc != acc) ? (acc != acc ? acc : x) : acc;
        else return x < acc ? x : acc;
      case ReduceOp::All: return A(acc && x);
      case ReduceOp::Any: return A(acc || x);
      case ReduceOp::NanSum:
        if constexpr (is_fp_v<A>) return x != x ? acc : acc + x;
        else return A(acc + x);
      default: return A(acc + x);
    }
  }
};

template <class T, class A>
A init_of(ReduceOp op) {
  switch (op) {
    case ReduceOp::Prod: case ReduceOp::All: return A(1);
    case ReduceOp::Max:
      if constexpr (is_fp_v<T>) return -std::numeric_limits<A>::infinity();
      else return static_cast<A>(std::numeric_limits<T>::lowest());
    case ReduceOp::Min:
      if constexpr (is_fp_v<T>) return std::numeric_limits<A>::infinity();
      else return static_cast<A>(std::numeric_limits<T>::max());
    default: return A(0);
  }
}

// Rows of length r (inner == 1). Block (s, row) covers [s * chunk, min(r, (s + 1) * chunk)).
// final: apply the mean's division (by `count`) and write Out; else write the partial.
template <class In, class A, class Out>
__global__ void k_reduce_rows(const In* x, Out* o, int64_t rows, int64_t r, int64_t splits, int64_t chunk,
                              Combine<A> f, A init, bool mean, int64_t count) {
  __shared__ A smem[32];
  for (int64_t row = blockIdx.y; row < rows; row += gridDim.y) {
    int64_t lo = blockIdx.x * chunk, hi = lo + chunk < r ? lo + chunk : r;
    const In* p = x + row * r;
    A acc = init;
    for (int64_t j = lo + threadIdx.x; j < hi; j += blockDim.x) acc = f(acc, static_cast<A>(p[j]));
    acc = block_reduce(acc, f, init, smem);
    if (threadIdx.x == 0) {
      if constexpr (is_fp_v<A>) {
        if (mean) acc = count == 0 ? std::numeric_limits<A>::quiet_NaN() : acc / static_cast<A>(count);
      }
      o[row * splits + blockIdx.x] = static_cast<Out>(acc);
    }
  }
}

template <class T, class A>
__global__ void k_reduce_cols(const T* x, T* o, int64_t outer, int64_t r, int64_t inner, Combine<A> f, A init,
                              bool mean) {
  int64_t n = outer * inner, step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t k = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; k < n; k += step) {
    int64_t oi = k / inner, ii = k - oi * inner;
    const T* p = x + oi * r * inner + ii;
    A acc = init;
    for (int64_t j = 0; j < r; ++j) acc = f(acc, static_cast<A>(p[j * inner]));
    if constexpr (is_fp_v<A>) {
      if (mean) acc = r == 0 ? std::numeric_limits<A>::quiet_NaN() : acc / static_cast<A>(r);
    }
    o[k] = static_cast<T>(acc);
  }
}

dim3 row_grid(int64_t splits, int64_t rows) {
  return dim3(static_cast<unsigned>(splits), static_cast<unsigned>(rows < 65535 ? rows : 65535));
}

template <class T>
void reduce_typed(ReduceOp op, const Tensor& out, const Tensor& in, int64_t outer, int64_t r, int64_t inner) {
  using A = AccT<T>;
  Combine<A> f{op};
  A init = init_of<T, A>(op);
  bool mean = op == ReduceOp::Mean;
  const T* x = static_cast<const T*>(in.raw());
  T* o = static_cast<T*>(out.raw());
  if (inner == 1) {
    // split long rows when there are too few rows to fill the GPU
    int64_t want = static_cast<int64_t>(sm_count()) * 4;
    int64_t splits = 1;
    if (outer < want && r > 8 * kThreads * 4) {
      splits = (want + outer - 1) / outer;
      int64_t max_splits = (r + 4 * kThreads - 1) / (4 * kThreads);
      if (splits > max_splits) splits = max_splits;
      if (splits > 1024) splits = 1024;
    }
    if (splits == 1) {
      k_reduce_rows<T, A, T><<<row_grid(1, outer), kThreads, 0, kStream>>>(x, o, outer, r, 1, r, f, init, mean, r);
    } else {
      int64_t chunk = (r + splits - 1) / splits;
      Scratch part(static_cast<size_t>(outer * splits) * sizeof(A));
      k_reduce_rows<T, A, A><<<row_grid(splits, outer), kThreads, 0, kStream>>>(x, part.as<A>(), outer, r, splits,
                                                                                 chunk, f, init, false, r);
      check_launch(reduce_op_name(op));
      k_reduce_rows<A, A, T><<<row_grid(1, outer), kThreads, 0, kStream>>>(part.as<A>(), o, outer, splits, 1, splits,
                                                                           f, init, mean, r);
    }
  } else {
    k_reduce_cols<T, A><<<grid_for(outer * inner), kThreads, 0, kStream>>>(x, o, outer, r, inner, f, init, mean);
  }
  check_launch("reduce");
}

// ---- arg max / min ----
template <class T>
__device__ __forceinline__ bool better(bool is_max, T x, T best) {
  if constexpr (is_fp_v<T>) {
    if (best != best) return false;
    if (x != x) return true;
  }
  return is_max ? x > best : x < best;
}

template <class T>
__global__ void k_arg_rows(const T* x, T* vals, int64_t* idx, int64_t rows, int64_t r, bool is_max) {
  __shared__ T sv[32];
  __shared__ int64_t si[32];
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const T* p = x + row * r;
    T best = p[0];
    int64_t bi = INT64_MAX;  // INT64_MAX: this thread saw nothing (loses every comparison)
    for (int64_t j = threadIdx.x; j < r; j += blockDim.x) {
      T v = p[j];
      if (bi == INT64_MAX || better(is_max, v, best)) {
        best = v;
        bi = j;
      }
    }
    // merge (value, index): the better value wins, ties go to the smaller index
    auto merge = [&](T v2, int64_t i2) {
      if (i2 == INT64_MAX) return;
      if (bi == INT64_MAX || better(is_max, v2, best) || (!better(is_max, best, v2) && i2 < bi)) {
        best = v2;
        bi = i2;
      }
    };
    for (int o = 16; o > 0; o >>= 1) {
      T v2 = shfl_xor(best, o);
      int64_t i2 = shfl_xor(bi, o);
      merge(v2, i2);
    }
    int lane = threadIdx.x & 31, wid = threadIdx.x >> 5, nw = (blockDim.x + 31) >> 5;
    if (lane == 0) {
      sv[wid] = best;
      si[wid] = bi;
    }
    __syncthreads();
    if (wid == 0) {
      best = lane < nw ? sv[lane] : best;
      bi = lane < nw ? si[lane] : INT64_MAX;
      for (int o = 16; o > 0; o >>= 1) {
        T v2 = shfl_xor(best, o);
        int64_t i2 = shfl_xor(bi, o);
        merge(v2, i2);
      }
      if (lane == 0) {
        if (vals) vals[row] = best;
        idx[row] = bi;
      }
    }
    __syncthreads();
  }
}

template <class T>
__global__ void k_arg_cols(const T* x, T* vals, int64_t* idx, int64_t outer, int64_t r, int64_t inner, bool is_max) {
  int64_t n = outer * inner, step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t k = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; k < n; k += step) {
    int64_t oi = k / inner, ii = k - oi * inner;
    const T* p = x + oi * r * inner + ii;
    T best = p[0];
    int64_t bi = 0;
    for (int64_t j = 1; j < r; ++j) {
      T v = p[j * inner];
      if (better(is_max, v, best)) {
        best = v;
        bi = j;
      }
    }
    if (vals) vals[k] = best;
    idx[k] = bi;
  }
}

// ---- variance (two passes in double) ----
template <class T>
__global__ void k_var_rows(const T* x, T* o, int64_t rows, int64_t r, double denom) {
  __shared__ double smem[32];
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const T* p = x + row * r;
    double s = 0;
    for (int64_t j = threadIdx.x; j < r; j += blockDim.x) s += static_cast<double>(p[j]);
    double mean = block_reduce(s, SumOp{}, 0.0, smem) / static_cast<double>(r);
    double ss = 0;
    for (int64_t j = threadIdx.x; j < r; j += blockDim.x) {
      double d = static_cast<double>(p[j]) - mean;
      ss += d * d;
    }
    ss = block_reduce(ss, SumOp{}, 0.0, smem);
    if (threadIdx.x == 0) o[row] = static_cast<T>(ss / denom);
  }
}

template <class T>
__global__ void k_var_cols(const T* x, T* o, int64_t outer, int64_t r, int64_t inner, double denom) {
  int64_t n = outer * inner, step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t k = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; k < n; k += step) {
    int64_t oi = k / inner, ii = k - oi * inner;
    const T* p = x + oi * r * inner + ii;
    double mean = 0;
    for (int64_t j = 0; j < r; ++j) mean += static_cast<double>(p[j * inner]);
    mean /= static_cast<double>(r);
    double ss = 0;
    for (int64_t j = 0; j < r; ++j) {
      double d = static_cast<double>(p[j * inner]) - mean;
      ss += d * d;
    }
    o[k] = static_cast<T>(ss / denom);
  }
}

// ---- cumulative sum / product (one thread per line) ----
template <class T>
__global__ void k_scan(const T* x, T* o, int64_t outer, int64_t r, int64_t inner, bool prod) {
  using A = std::conditional_t<is_fp_v<T>, double, int64_t>;
  int64_t n = outer * inner, step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t k = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; k < n; k += step) {
    int64_t oi = k / inner, ii = k - oi * inner;
    const T* p = x + oi * r * inner + ii;
    T* q = o + oi * r * inner + ii;
    A acc = prod ? A(1) : A(0);
    for (int64_t j = 0; j < r; ++j) {
      acc = prod ? A(acc * static_cast<A>(p[j * inner])) : A(acc + static_cast<A>(p[j * inner]));
      q[j * inner] = static_cast<T>(acc);
    }
  }
}

}  // namespace

const char* reduce_op_name(ReduceOp op) {
  static const char* n[] = {"sum", "mean", "prod", "amax", "amin", "all", "any", "nansum"};
  return n[static_cast<int>(op)];
}

void reduce(ReduceOp op, const Tensor& out, const Tensor& in, int64_t outer, int64_t r, int64_t inner) {
  visit_compute(in.dtype(), reduce_op_name(op), [&](auto tag) { reduce_typed<decltype(tag)>(op, out, in, outer, r, inner); });
}

void arg_reduce(bool is_max, const Tensor& values, const Tensor& indices, const Tensor& in, int64_t outer, int64_t r,
                int64_t inner) {
  const char* name = is_max ? "argmax" : "argmin";
  visit_compute(in.dtype(), name, [&](auto tag) {
    using T = decltype(tag);
    const T* x = static_cast<const T*>(in.raw());
    T* v = values.defined() ? static_cast<T*>(values.raw()) : nullptr;
    int64_t* ix = static_cast<int64_t*>(indices.raw());
    if (inner == 1)
      k_arg_rows<T><<<grid_for(outer * kThreads), kThreads, 0, kStream>>>(x, v, ix, outer, r, is_max);
    else
      k_arg_cols<T><<<grid_for(outer * inner), kThreads, 0, kStream>>>(x, v, ix, outer, r, inner, is_max);
    check_launch(name);
  });
}

void variance(const Tensor& out, const Tensor& in, int64_t outer, int64_t r, int64_t inner, double correction,
              bool sd) {
  double denom = static_cast<double>(r) - correction;
  if (denom < 0) denom = 0;
  visit_float(in.dtype(), "var", [&](auto tag) {
    using T = decltype(tag);
    const T* x = static_cast<const T*>(in.raw());
    T* o = static_cast<T*>(out.raw());
    if (inner == 1) k_var_rows<T><<<grid_for(outer * kThreads), kThreads, 0, kStream>>>(x, o, outer, r, denom);
    else k_var_cols<T><<<grid_for(outer * inner), kThreads, 0, kStream>>>(x, o, outer, r, inner, denom);
    check_launch("var");
  });
  if (sd) unary(UnaryOp::Sqrt, out, out);
}

void cumulative(bool prod, const Tensor& out, const Tensor& in, int64_t outer, int64_t r, int64_t inner) {
  const char* name = prod ? "cumprod" : "cumsum";
  visit_compute(in.dtype(), name, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, bool>) {
      throw TypeError(std::string("[") + name + "] no CUDA kernel for bool");
    } else {
      k_scan<T><<<grid_for(outer * inner), kThreads, 0, kStream>>>(static_cast<const T*>(in.raw()),
                                                                   static_cast<T*>(out.raw()), outer, r, inner, prod);
      check_launch(name);
    }
  });
}

}  // namespace tt::cuda
