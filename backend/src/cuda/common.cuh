#pragma once
// Shared device helpers: error checks, dtype dispatch, saturating casts, launch sizes and the
// strided-geometry description the elementwise kernels walk.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "kernels.h"

namespace tt::cuda {

[[noreturn]] void throw_cuda(cudaError_t e, const char* what);
inline void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw_cuda(e, what);
}
// After a launch: configuration errors surface here (asynchronous faults surface at the next sync).
inline void check_launch(const char* what) { check(cudaGetLastError(), what); }

// All work goes to the legacy default stream, so freed blocks are reusable at once (stream order).
constexpr cudaStream_t kStream = 0;
int sm_count();

constexpr int kThreads = 256;
// Grid for a grid-stride loop over n work items.
inline unsigned grid_for(int64_t n, int threads = kThreads) {
  int64_t blocks = (n + threads - 1) / threads;
  int64_t cap = static_cast<int64_t>(sm_count()) * 32;
  if (blocks > cap) blocks = cap;
  return static_cast<unsigned>(blocks < 1 ? 1 : blocks);
}

// ---- dtypes: the device types for each tt::DType ----
template <class F>
decltype(auto) visit_all(DType d, F&& f) {
  switch (d) {
    case DType::Bool: return f(bool{});
    case DType::UInt8: return f(uint8_t{});
    case DType::Int32: return f(int32_t{});
    case DType::Int64: return f(int64_t{});
    case DType::Float16: return f(__half{});
    case DType::BFloat16: return f(__nv_bfloat16{});
    case DType::Float32: return f(float{});
    default: return f(double{});
  }
}
// The compute dtypes of the elementwise kernels (the front-end computes half in float32).
template <class F>
decltype(auto) visit_compute(DType d, const char* op, F&& f) {
  switch (d) {
    case DType::Bool: return f(bool{});
    case DType::UInt8: return f(uint8_t{});
    case DType::Int32: return f(int32_t{});
    case DType::Int64: return f(int64_t{});
    case DType::Float32: return f(float{});
    case DType::Float64: return f(double{});
    default: throw TypeError(std::string("[") + op + "] no CUDA kernel for dtype " + dtype_name(d));
  }
}
template <class F>
decltype(auto) visit_float(DType d, const char* op, F&& f) {
  switch (d) {
    case DType::Float32: return f(float{});
    case DType::Float64: return f(double{});
    default: throw TypeError(std::string("[") + op + "] no CUDA kernel for dtype " + dtype_name(d));
  }
}

template <class T>
constexpr bool is_fp_v = std::is_floating_point_v<T>;
template <class T>
constexpr bool is_half_v = std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>;

template <class T>
__device__ __forceinline__ float to_f(T v) {
  if constexpr (std::is_same_v<T, __half>) return __half2float(v);
  else if constexpr (std::is_same_v<T, __nv_bfloat16>) return __bfloat162float(v);
  else return static_cast<float>(v);
}

// Casts with the CPU backend's rules: bool is "!= 0", float -> int saturates and NaN -> min.
template <class To, class From>
__device__ __forceinline__ To cast_to(From v) {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (is_half_v<From>) {
    return cast_to<To>(to_f(v));
  } else if constexpr (std::is_same_v<To, bool>) {
    return v != From(0);
  } else if constexpr (std::is_same_v<To, __half>) {
    return __float2half_rn(static_cast<float>(v));
  } else if constexpr (std::is_same_v<To, __nv_bfloat16>) {
    return __float2bfloat16_rn(static_cast<float>(v));
  } else if constexpr (std::is_integral_v<To> && std::is_floating_point_v<From>) {
    if (!(v == v)) return std::numeric_limits<To>::min();
    if (v >= static_cast<From>(std::numeric_limits<To>::max())) return std::numeric_limits<To>::max();
    if (v <= static_cast<From>(std::numeric_limits<To>::min())) return std::numeric_limits<To>::min();
    return static_cast<To>(v);
  } else {
    return static_cast<To>(v);
  }
}

// ---- strided geometry ----
constexpr int kMaxDims = 16;
template <int N>
struct Geometry {
  int ndim = 0;
  int64_t sizes[kMaxDims];
  int64_t strides[N][kMaxDims];  // elements
};

// Coalesces the iteration space of `t[0]` (the output's shape) over N operands viewed with that
// shape: drops size-1 dims and merges dims that are contiguous in every operand.
template <int N>
Geometry<N> make_geometry(const Tensor* const* t) {
  const Shape& shape = t[0]->shape();
  int nd = static_cast<int>(shape.size());
  int64_t sz[64];
  int64_t st[N][64];
  int m = 0;
  if (nd > 64) throw NotImplementedError("[cuda] tensors with more than 64 dims are not supported");
  for (int d = 0; d < nd; ++d) {
    if (shape[d] == 1) continue;
    sz[m] = shape[d];
    for (int k = 0; k < N; ++k) st[k][m] = t[k]->strides()[d];
    ++m;
  }
  // merge from the innermost dim outwards
  Geometry<N> g;
  int out = 0;
  int64_t msz[64];
  int64_t mst[N][64];
  for (int d = m - 1; d >= 0; --d) {
    if (out > 0) {
      bool ok = true;
      for (int k = 0; k < N; ++k)
        if (st[k][d] != mst[k][out - 1] * msz[out - 1]) ok = false;
      if (ok) {
        msz[out - 1] *= sz[d];
        continue;
      }
    }
    msz[out] = sz[d];
    for (int k = 0; k < N; ++k) mst[k][out] = st[k][d];
    ++out;
  }
  if (out > kMaxDims)
    throw NotImplementedError("[cuda] more than 16 non-mergeable dims in one elementwise op; call .contiguous() first");
  g.ndim = out;  // stored innermost first
  for (int d = 0; d < out; ++d) {
    g.sizes[d] = msz[d];
    for (int k = 0; k < N; ++k) g.strides[k][d] = mst[k][d];
  }
  return g;
}

// Element offsets of linear index i (innermost dim first in the geometry).
template <int N>
__device__ __forceinline__ void offsets_of(const Geometry<N>& g, int64_t i, int64_t* off, bool small) {
#pragma unroll
  for (int k = 0; k < N; ++k) off[k] = 0;
  if (small) {  // 32-bit divisions when the whole index space fits
    uint32_t li = static_cast<uint32_t>(i);
    for (int d = 0; d < g.ndim; ++d) {
      uint32_t s = static_cast<uint32_t>(g.sizes[d]);
      uint32_t q = li / s, r = li - q * s;
      li = q;
#pragma unroll
      for (int k = 0; k < N; ++k) off[k] += static_cast<int64_t>(r) * g.strides[k][d];
    }
  } else {
    for (int d = 0; d < g.ndim; ++d) {
      int64_t q = i / g.sizes[d], r = i - q * g.sizes[d];
      i = q;
#pragma unroll
      for (int k = 0; k < N; ++k) off[k] += r * g.strides[k][d];
    }
  }
}

// Every operand laid out contiguously with the output's shape (no broadcasting, no gaps).
inline bool all_contiguous(std::initializer_list<const Tensor*> ts) {
  const Shape& s = (*ts.begin())->shape();
  for (const Tensor* t : ts)
    if (t->shape() != s || !t->is_contiguous()) return false;
  return true;
}

template <class T, int V>
struct alignas(sizeof(T) * V) Vec {
  T v[V];
};

// A scratch device buffer from the caching allocator (freed back to it on scope exit).
struct Scratch {
  std::shared_ptr<Storage> st;
  explicit Scratch(size_t nbytes) : st(allocate(nbytes, Device{DeviceType::CUDA, 0})) {}
  template <class T>
  T* as() const {
    return static_cast<T*>(st->data);
  }
};

}  // namespace tt::cuda
