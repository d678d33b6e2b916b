// Row-wise softmax / log_softmax / logsumexp / layer_norm. For the last dim (inner == 1) a row is
// owned by one warp (rows up to 1024 elements, 8 rows per block) or by one 256-thread block:
// a single pass computes the row's running (max, sum of exp) with the online-softmax update,
// warp shuffles merge the partial states, and a second sweep writes the outputs (the row is
// then hot in L1/L2). Other dims (inner > 1) use one thread per output column.
#include "reduce.cuh"

namespace tt::cuda {
namespace {

// online softmax state: running max m and sum s of exp(x - m)
template <class T>
struct MS {
  T m, s;
};
template <class T>
__device__ __forceinline__ MS<T> ms_add(MS<T> a, T x) {
  if (x == -std::numeric_limits<T>::infinity()) return a;  // contributes exp(-inf) = 0
  if (x > a.m) return {x, a.s * exp(a.m - x) + T(1)};
  return {a.m, a.s + exp(x - a.m)};
}
template <class T>
__device__ __forceinline__ MS<T> ms_merge(MS<T> a, MS<T> b) {
  if (a.m == -std::numeric_limits<T>::infinity()) return b;
  if (b.m == -std::numeric_limits<T>::infinity()) return a;
  T m = a.m > b.m ? a.m : b.m;
  if (a.m != a.m || b.m != b.m) m = a.m != a.m ? a.m : b.m;
  return {m, a.s * exp(a.m - m) + b.s * exp(b.m - m)};
}

// Reduce over a group of G threads (G = 32: the warp; G = blockDim.x: the block).
template <int G, class T>
__device__ __forceinline__ MS<T> group_ms(MS<T> v, MS<T>* smem) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v = ms_merge(v, MS<T>{shfl_xor(v.m, o), shfl_xor(v.s, o)});
  if constexpr (G > 32) {
    int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
    if (lane == 0) smem[wid] = v;
    __syncthreads();
    MS<T> w{-std::numeric_limits<T>::infinity(), T(0)};
    if (lane < G / 32) w = smem[lane];
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) w = ms_merge(w, MS<T>{shfl_xor(w.m, o), shfl_xor(w.s, o)});
    __syncthreads();
    return w;
  } else {
    return v;
  }
}
template <int G, class T>
__device__ __forceinline__ T group_sum(T v, T* smem) {
  if constexpr (G > 32) return block_reduce(v, SumOp{}, T(0), smem);
  else return warp_reduce(v, SumOp{});
}

// mode: 0 softmax, 1 log_softmax, 2 logsumexp (one value per row)
template <int G, class T>
__global__ void k_softmax_rows(const T* x, T* o, int64_t rows, int64_t r, int mode) {
  __shared__ MS<T> smem[32];
  constexpr int per_block = kThreads / G;
  int sub = G == 32 ? static_cast<int>(threadIdx.x) / 32 : 0, t = G == 32 ? threadIdx.x & 31 : threadIdx.x;
  for (int64_t base = static_cast<int64_t>(blockIdx.x) * per_block; base < rows;
       base += static_cast<int64_t>(gridDim.x) * per_block) {
    int64_t row = base + sub;
    bool active = row < rows;  // (warp mode: a whole warp is in or out, so shuffles stay full)
    const T* p = x + (active ? row : 0) * r;
    MS<T> st{-std::numeric_limits<T>::infinity(), T(0)};
    if (active)
      for (int64_t j = t; j < r; j += G) st = ms_add(st, p[j]);
    st = group_ms<G>(st, smem);
    if (!active) continue;
    if (mode == 2) {
      if (t == 0) o[row] = isinf(st.m) ? st.m : st.m + log(st.s);
      continue;
    }
    T* q = o + row * r;
    if (mode == 1) {
      T ls = log(st.s);  // (x - m) - log(sum): m + log(sum) would round log(sum) away for large m
      for (int64_t j = t; j < r; j += G) q[j] = (p[j] - st.m) - ls;
    } else {
      T inv = T(1) / st.s;
      for (int64_t j = t; j < r; j += G) q[j] = exp(p[j] - st.m) * inv;
    }
  }
}

template <class T>
__global__ void k_softmax_cols(const T* x, T* o, int64_t outer, int64_t r, int64_t inner, int mode) {
  int64_t n = outer * inner, step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t k = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; k < n; k += step) {
    int64_t oi = k / inner, ii = k - oi * inner;
    const T* p = x + oi * r * inner + ii;
    MS<T> st{-std::numeric_limits<T>::infinity(), T(0)};
    for (int64_t j = 0; j < r; ++j) st = ms_add(st, p[j * inner]);
    if (mode == 2) {
      o[k] = isinf(st.m) ? st.m : st.m + log(st.s);
      continue;
    }
    T* q = o + oi * r * inner + ii;
    if (mode == 1) {
      T ls = log(st.s);
      for (int64_t j = 0; j < r; ++j) q[j * inner] = (p[j * inner] - st.m) - ls;
    } else {
      T inv = T(1) / st.s;
      for (int64_t j = 0; j < r; ++j) q[j * inner] = exp(p[j * inner] - st.m) * inv;
    }
  }
}

template <class T>
void softmax_like(const Tensor& out, const Tensor& in, int64_t outer, int64_t r, int64_t inner, int mode,
                  const char* name) {
  const T* x = static_cast<const T*>(in.raw());
  T* o = static_cast<T*>(out.raw());
  if (inner == 1) {
    if (r <= 1024) {
      int64_t blocks = (outer + kThreads / 32 - 1) / (kThreads / 32);
      k_softmax_rows<32, T><<<grid_for(blocks * kThreads), kThreads, 0, kStream>>>(x, o, outer, r, mode);
    } else {
      k_softmax_rows<kThreads, T><<<grid_for(outer * kThreads), kThreads, 0, kStream>>>(x, o, outer, r, mode);
    }
  } else {
    k_softmax_cols<T><<<grid_for(outer * inner), kThreads, 0, kStream>>>(x, o, outer, r, inner, mode);
  }
  check_launch(name);
}

// ---- layer norm over the last `cols` elements ----
template <int G, class T>
__global__ void k_layer_norm(const T* x, T* o, const T* w, const T* b, int64_t rows, int64_t cols, T eps) {
  __shared__ T smem[32];
  constexpr int per_block = kThreads / G;
  int sub = G == 32 ? static_cast<int>(threadIdx.x) / 32 : 0, t = G == 32 ? threadIdx.x & 31 : threadIdx.x;
  for (int64_t base = static_cast<int64_t>(blockIdx.x) * per_block; base < rows;
       base += static_cast<int64_t>(gridDim.x) * per_block) {
    int64_t row = base + sub;
    bool active = row < rows;
    const T* p = x + (active ? row : 0) * cols;
    T s = 0;
    if (active)
      for (int64_t j = t; j < cols; j += G) s += p[j];
    T mean = group_sum<G>(s, smem) / static_cast<T>(cols);
    T ss = 0;
    if (active)
      for (int64_t j = t; j < cols; j += G) {
        T d = p[j] - mean;
        ss += d * d;
      }
    T var = group_sum<G>(ss, smem) / static_cast<T>(cols);
    if (!active) continue;
    T rstd = T(1) / sqrt(var + eps);
    T* q = o + row * cols;
    for (int64_t j = t; j < cols; j += G) {
      T v = (p[j] - mean) * rstd;
      if (w) v *= w[j];
      if (b) v += b[j];
      q[j] = v;
    }
  }
}

}  // namespace

void softmax(const Tensor& out, const Tensor& in, int64_t outer, int64_t r, int64_t inner, bool log) {
  const char* name = log ? "log_softmax" : "softmax";
  visit_float(in.dtype(), name,
              [&](auto tag) { softmax_like<decltype(tag)>(out, in, outer, r, inner, log ? 1 : 0, name); });
}

void logsumexp(const Tensor& out, const Tensor& in, int64_t outer, int64_t r, int64_t inner) {
  visit_float(in.dtype(), "logsumexp",
              [&](auto tag) { softmax_like<decltype(tag)>(out, in, outer, r, inner, 2, "logsumexp"); });
}

void layer_norm(const Tensor& out, const Tensor& in, const Tensor* w, const Tensor* b, int64_t rows, int64_t cols,
                double eps) {
  visit_float(in.dtype(), "layer_norm", [&](auto tag) {
    using T = decltype(tag);
    const T* x = static_cast<const T*>(in.raw());
    T* o = static_cast<T*>(out.raw());
    const T* pw = w ? static_cast<const T*>(w->raw()) : nullptr;
    const T* pb = b ? static_cast<const T*>(b->raw()) : nullptr;
    if (cols <= 1024) {
      int64_t blocks = (rows + kThreads / 32 - 1) / (kThreads / 32);
      k_layer_norm<32, T><<<grid_for(blocks * kThreads), kThreads, 0, kStream>>>(x, o, pw, pb, rows, cols,
                                                                                 static_cast<T>(eps));
    } else {
      k_layer_norm<kThreads, T><<<grid_for(rows * kThreads), kThreads, 0, kStream>>>(x, o, pw, pb, rows, cols,
                                                                                     static_cast<T>(eps));
    }
    check_launch("layer_norm");
  });
}

}  // namespace tt::cuda
