// Indexing kernels: index_select, gather, scatter (set / add / multiply with atomics), masked_fill
// and tril/triu. Pure data movement runs on raw 1/2/4/8-byte words, so one kernel serves every
// dtype of that size. Index tensors arrive as contiguous, bounds-checked, non-negative int64.
#include "elementwise.cuh"

namespace tt::cuda {
namespace {

template <int N>
struct Walk {  // an index tensor's shape and, per operand, its strides (elements)
  int nd;
  int64_t sizes[kMaxDims];
  int64_t strides[N][kMaxDims];
};

template <class W>
__global__ void k_index_select(const W* in, W* out, const int64_t* idx, int64_t outer, int64_t rin, int64_t rout,
                               int64_t inner) {
  int64_t n = outer * rout * inner, step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t k = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; k < n; k += step) {
    int64_t i = k % inner, j = (k / inner) % rout, o = k / (inner * rout);
    out[k] = in[(o * rin + idx[j]) * inner + i];
  }
}

// offset into operand 0 (with `dim` replaced by the index value) and operand 1 (plain position)
__device__ __forceinline__ void walk_offsets(const Walk<2>& w, int dim, int64_t k, int64_t iv, int64_t* o0,
                                             int64_t* o1) {
  int64_t a = 0, b = 0;
  for (int d = w.nd - 1; d >= 0; --d) {
    int64_t s = w.sizes[d], q = k / s, r = k - q * s;
    k = q;
    a += (d == dim ? iv : r) * w.strides[0][d];
    b += r * w.strides[1][d];
  }
  *o0 = a;
  *o1 = b;
}

template <class W>
__global__ void k_gather(const W* in, W* out, const int64_t* idx, Walk<2> w, int dim, int64_t n) {
  int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t k = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; k < n; k += step) {
    int64_t src, unused;
    walk_offsets(w, dim, k, idx[k], &src, &unused);
    out[k] = in[src];
  }
}

// atomically *addr = f(*addr) for any 1/2/4/8-byte T (compare-and-swap on the containing word)
template <class T, class F>
__device__ void atomic_update(T* addr, F f) {
  if constexpr (sizeof(T) == 8) {
    auto* p = reinterpret_cast<unsigned long long*>(addr);
    unsigned long long old = *p, assumed;
    do {
      assumed = old;
      T v = f(*reinterpret_cast<T*>(&assumed));
      old = atomicCAS(p, assumed, *reinterpret_cast<unsigned long long*>(&v));
    } while (assumed != old);
  } else if constexpr (sizeof(T) == 4) {
    auto* p = reinterpret_cast<unsigned int*>(addr);
    unsigned int old = *p, assumed;
    do {
      assumed = old;
      T v = f(*reinterpret_cast<T*>(&assumed));
      old = atomicCAS(p, assumed, *reinterpret_cast<unsigned int*>(&v));
    } while (assumed != old);
  } else {
    uintptr_t a = reinterpret_cast<uintptr_t>(addr);
    auto* p = reinterpret_cast<unsigned int*>(a & ~uintptr_t(3));
    unsigned shift = static_cast<unsigned>(a & 3) * 8;
    unsigned mask = (sizeof(T) == 1 ? 0xffu : 0xffffu) << shift;
    unsigned int old = *p, assumed;
    do {
      assumed = old;
      T cur;
      unsigned bits = (assumed & mask) >> shift;
      if constexpr (sizeof(T) == 1) {
        uint8_t b8 = static_cast<uint8_t>(bits);
        memcpy(&cur, &b8, 1);
      } else {
        uint16_t b16 = static_cast<uint16_t>(bits);
        memcpy(&cur, &b16, 2);
      }
      T v = f(cur);
      unsigned nb = 0;
      if constexpr (sizeof(T) == 1) {
        uint8_t b8;
        memcpy(&b8, &v, 1);
        nb = b8;
      } else {
        uint16_t b16;
        memcpy(&b16, &v, 2);
        nb = b16;
      }
      old = atomicCAS(p, assumed, (assumed & ~mask) | (nb << shift));
    } while (assumed != old);
  }
}

template <class T>
__device__ __forceinline__ T red_add(T a, T b) {
  if constexpr (std::is_same_v<T, bool>) return a || b;
  else if constexpr (is_half_v<T>) return cast_to<T>(to_f(a) + to_f(b));
  else return T(a + b);
}
template <class T>
__device__ __forceinline__ T red_mul(T a, T b) {
  if constexpr (std::is_same_v<T, bool>) return a && b;
  else if constexpr (is_half_v<T>) return cast_to<T>(to_f(a) * to_f(b));
  else return T(a * b);
}

template <class T>
__global__ void k_scatter(T* out, const T* src, const int64_t* idx, Walk<2> w, int dim, int64_t n, int reduce) {
  int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t k = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; k < n; k += step) {
    int64_t dst, so;
    walk_offsets(w, dim, k, idx[k], &dst, &so);
    T v = src[so];
    if (reduce == 0) {
      out[dst] = v;  // duplicate indices: one of the writes wins (unspecified, like torch)
    } else if (reduce == 1) {
      if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, int32_t>)
        atomicAdd(out + dst, v);
      else
        atomic_update(out + dst, [v](T cur) { return red_add(cur, v); });
    } else {
      atomic_update(out + dst, [v](T cur) { return red_mul(cur, v); });
    }
  }
}

template <class T>
__global__ void k_index_add(T* out, const T* src, const int64_t* idx, int64_t outer, int64_t rout, int64_t n,
                            int64_t inner) {
  int64_t total = outer * n * inner, step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t k = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; k < total; k += step) {
    int64_t i = k % inner, j = (k / inner) % n, o = k / (inner * n);
    T* dst = out + (o * rout + idx[j]) * inner + i;
    T v = src[k];
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, int32_t>)
      atomicAdd(dst, v);
    else
      atomic_update(dst, [v](T cur) { return red_add(cur, v); });
  }
}

template <class W>
struct MaskedF {
  const W* value;
  __device__ W operator()(W a, bool m) const { return m ? *value : a; }
};

template <class W>
__global__ void k_tri(const W* in, W* out, int64_t n, int64_t r, int64_t c, int64_t k, bool lower) {
  int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n; i += step) {
    int64_t j = i % c, row = (i / c) % r;
    bool keep = lower ? (j - row <= k) : (j - row >= k);
    out[i] = keep ? in[i] : W(0);
  }
}

template <class F>
void by_size(size_t isz, F&& f) {
  switch (isz) {
    case 1: return f(uint8_t{});
    case 2: return f(uint16_t{});
    case 4: return f(uint32_t{});
    default: return f(uint64_t{});
  }
}

Walk<2> make_walk(const Tensor& index, const Tensor& a, const Tensor& b) {
  Walk<2> w{};
  if (index.dim() > kMaxDims) throw NotImplementedError("[cuda] gather/scatter over more than 16 dims");
  w.nd = static_cast<int>(index.dim());
  for (int d = 0; d < w.nd; ++d) {
    w.sizes[d] = index.size(d);
    w.strides[0][d] = a.stride(d);
    w.strides[1][d] = b.stride(d);
  }
  return w;
}

}  // namespace

void index_select(const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index) {
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < dim; ++d) outer *= in.size(d);
  for (int64_t d = dim + 1; d < in.dim(); ++d) inner *= in.size(d);
  int64_t rin = in.dim() ? in.size(dim) : 1, rout = index.numel();
  int64_t n = outer * rout * inner;
  if (n == 0) return;
  by_size(in.itemsize(), [&](auto tag) {
    using W = decltype(tag);
    k_index_select<W><<<grid_for(n), kThreads, 0, kStream>>>(static_cast<const W*>(in.raw()), static_cast<W*>(out.raw()),
                                                             static_cast<const int64_t*>(index.raw()), outer, rin, rout,
                                                             inner);
  });
  check_launch("index_select");
}

void gather(const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index) {
  int64_t n = index.numel();
  if (n == 0) return;
  Walk<2> w = make_walk(index, in, out);
  by_size(in.itemsize(), [&](auto tag) {
    using W = decltype(tag);
    k_gather<W><<<grid_for(n), kThreads, 0, kStream>>>(static_cast<const W*>(in.raw()), static_cast<W*>(out.raw()),
                                                       static_cast<const int64_t*>(index.raw()), w,
                                                       static_cast<int>(dim), n);
  });
  check_launch("gather");
}

void scatter(const Tensor& out, int64_t dim, const Tensor& index, const Tensor& src, int reduce) {
  int64_t n = index.numel();
  if (n == 0) return;
  Walk<2> w = make_walk(index, out, src);
  visit_all(out.dtype(), [&](auto tag) {
    using T = decltype(tag);
    k_scatter<T><<<grid_for(n), kThreads, 0, kStream>>>(static_cast<T*>(out.raw()), static_cast<const T*>(src.raw()),
                                                        static_cast<const int64_t*>(index.raw()), w,
                                                        static_cast<int>(dim), n, reduce);
  });
  check_launch("scatter");
}

void masked_fill(const Tensor& out, const Tensor& mask, const Tensor& value) {
  by_size(out.itemsize(), [&](auto tag) {
    using W = decltype(tag);
    launch2<W, W, bool>(out, out, mask, MaskedF<W>{static_cast<const W*>(value.raw())}, "masked_fill");
  });
}

void tri(const Tensor& out, const Tensor& in, int64_t k, bool lower) {
  int64_t n = in.numel();
  if (n == 0) return;
  int64_t r = in.size(-2), c = in.size(-1);
  by_size(in.itemsize(), [&](auto tag) {
    using W = decltype(tag);
    k_tri<W><<<grid_for(n), kThreads, 0, kStream>>>(static_cast<const W*>(in.raw()), static_cast<W*>(out.raw()), n, r,
                                                     c, k, lower);
  });
  check_launch(lower ? "tril" : "triu");
}

void index_add(const Tensor& out, int64_t dim, const Tensor& index, const Tensor& src) {
  // out and src contiguous, viewed as [outer, r, inner]; out[o, ix[j], i] += src[o, j, i]
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < dim; ++d) outer *= out.size(d);
  for (int64_t d = dim + 1; d < out.dim(); ++d) inner *= out.size(d);
  int64_t rout = out.dim() ? out.size(dim) : 1, n = index.numel();
  if (outer * n * inner == 0) return;
  if (is_half(out.dtype()) || out.dtype() == DType::Bool)
    throw TypeError(std::string("[index_add] no CUDA kernel for dtype ") + dtype_name(out.dtype()));
  visit_compute(out.dtype(), "index_add", [&](auto tag) {
    using T = decltype(tag);
    k_index_add<T><<<grid_for(outer * n * inner), kThreads, 0, kStream>>>(
        static_cast<T*>(out.raw()), static_cast<const T*>(src.raw()), static_cast<const int64_t*>(index.raw()), outer,
        rout, n, inner);
  });
  check_launch("index_add");
}

}  // namespace tt::cuda
