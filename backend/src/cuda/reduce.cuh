#pragma once
// Warp-shuffle and block reductions shared by reduce.cu and rowwise.cu.
#include "common.cuh"

namespace tt::cuda {

// __shfl_xor_sync for every element type (bool and uint8 travel as int).
template <class T>
__device__ __forceinline__ T shfl_xor(T v, int o) {
  if constexpr (sizeof(T) < 4) return static_cast<T>(__shfl_xor_sync(0xffffffffu, static_cast<int>(v), o));
  else return __shfl_xor_sync(0xffffffffu, v, o);
}

template <class T, class Op>
__device__ __forceinline__ T warp_reduce(T v, Op op) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v = op(v, shfl_xor(v, o));
  return v;
}

// Reduces v over the block; every thread gets the result. `smem` holds 32 values; the trailing
// __syncthreads lets the caller reuse it right away.
template <class T, class Op>
__device__ __forceinline__ T block_reduce(T v, Op op, T identity, T* smem) {
  int lane = threadIdx.x & 31, wid = threadIdx.x >> 5, nw = (blockDim.x + 31) >> 5;
  v = warp_reduce(v, op);
  if (lane == 0) smem[wid] = v;
  __syncthreads();
  T w = lane < nw ? smem[lane] : identity;
  w = warp_reduce(w, op);
  __syncthreads();
  return w;
}

struct SumOp {
  template <class T>
  __device__ __forceinline__ T operator()(T a, T b) const {
    return a + b;
  }
};
struct MaxOp {
  template <class T>
  __device__ __forceinline__ T operator()(T a, T b) const {
    return (a != a || a > b) ? a : b;  // NaN propagates
  }
};

// The accumulator of a reduction over T (floats accumulate in their own type, like torch's CUDA
// backend; integers and bool in int64).
template <class T>
using AccT = std::conditional_t<std::is_floating_point_v<T>, T, int64_t>;

}  // namespace tt::cuda
