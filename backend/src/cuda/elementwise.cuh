#pragma once
// Elementwise launchers: out[i] = f(in0[i], ..., inK[i]) for operands already broadcast to the
// output's shape (strided views). Two kernels per arity:
//   - contiguous: every operand dense with the output's shape -> grid-stride loop with vectorised
//     16-byte loads/stores when the pointers are aligned (the common case: the allocator's blocks
//     are 512-byte aligned), plain loads otherwise;
//   - strided: offsets from the coalesced geometry (32-bit index math when it fits).
#include "common.cuh"

namespace tt::cuda {

template <class A, class B = A, class C = A, class D = A>
constexpr int vec_width() {
  constexpr size_t m = sizeof(A) > sizeof(B) ? (sizeof(A) > sizeof(C) ? (sizeof(A) > sizeof(D) ? sizeof(A) : sizeof(D))
                                                                       : (sizeof(C) > sizeof(D) ? sizeof(C) : sizeof(D)))
                                             : (sizeof(B) > sizeof(C) ? (sizeof(B) > sizeof(D) ? sizeof(B) : sizeof(D))
                                                                      : (sizeof(C) > sizeof(D) ? sizeof(C) : sizeof(D)));
  return m >= 8 ? 2 : 4;
}

inline bool aligned(const void* p, size_t a) { return (reinterpret_cast<uintptr_t>(p) % a) == 0; }

// ---------------- arity 1 ----------------
template <int V, class O, class A, class F>
__global__ void k_contig1(O* __restrict__ o, const A* __restrict__ a, int64_t n, F f) {
  int64_t tid = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  int64_t nv = n / V;
  for (int64_t i = tid; i < nv; i += step) {
    Vec<A, V> va = reinterpret_cast<const Vec<A, V>*>(a)[i];
    Vec<O, V> vo;
#pragma unroll
    for (int k = 0; k < V; ++k) vo.v[k] = f(va.v[k]);
    reinterpret_cast<Vec<O, V>*>(o)[i] = vo;
  }
  for (int64_t i = nv * V + tid; i < n; i += step) o[i] = f(a[i]);
}

template <class O, class A, class F>
__global__ void k_strided1(O* o, const A* a, Geometry<2> g, int64_t n, bool small, F f) {
  int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n; i += step) {
    int64_t off[2];
    offsets_of<2>(g, i, off, small);
    o[off[0]] = f(a[off[1]]);
  }
}

template <class O, class A, class F>
void launch1(const Tensor& out, const Tensor& a, F f, const char* what) {
  int64_t n = out.numel();
  if (n == 0) return;
  O* po = static_cast<O*>(out.raw());
  const A* pa = static_cast<const A*>(a.raw());
  if (all_contiguous({&out, &a})) {
    constexpr int V = vec_width<O, A>();
    if (aligned(po, sizeof(O) * V) && aligned(pa, sizeof(A) * V))
      k_contig1<V><<<grid_for(n / V + 1), kThreads, 0, kStream>>>(po, pa, n, f);
    else
      k_contig1<1><<<grid_for(n), kThreads, 0, kStream>>>(po, pa, n, f);
  } else {
    const Tensor* ts[2] = {&out, &a};
    Geometry<2> g = make_geometry<2>(ts);
    k_strided1<<<grid_for(n), kThreads, 0, kStream>>>(po, pa, g, n, n < (int64_t(1) << 32), f);
  }
  check_launch(what);
}

// ---------------- arity 2 ----------------
template <int V, class O, class A, class B, class F>
__global__ void k_contig2(O* __restrict__ o, const A* __restrict__ a, const B* __restrict__ b, int64_t n, F f) {
  int64_t tid = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  int64_t nv = n / V;
  for (int64_t i = tid; i < nv; i += step) {
    Vec<A, V> va = reinterpret_cast<const Vec<A, V>*>(a)[i];
    Vec<B, V> vb = reinterpret_cast<const Vec<B, V>*>(b)[i];
    Vec<O, V> vo;
#pragma unroll
    for (int k = 0; k < V; ++k) vo.v[k] = f(va.v[k], vb.v[k]);
    reinterpret_cast<Vec<O, V>*>(o)[i] = vo;
  }
  for (int64_t i = nv * V + tid; i < n; i += step) o[i] = f(a[i], b[i]);
}

template <class O, class A, class B, class F>
__global__ void k_strided2(O* o, const A* a, const B* b, Geometry<3> g, int64_t n, bool small, F f) {
  int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n; i += step) {
    int64_t off[3];
    offsets_of<3>(g, i, off, small);
    o[off[0]] = f(a[off[1]], b[off[2]]);
  }
}

template <class O, class A, class B, class F>
void launch2(const Tensor& out, const Tensor& a, const Tensor& b, F f, const char* what) {
  int64_t n = out.numel();
  if (n == 0) return;
  O* po = static_cast<O*>(out.raw());
  const A* pa = static_cast<const A*>(a.raw());
  const B* pb = static_cast<const B*>(b.raw());
  if (all_contiguous({&out, &a, &b})) {
    constexpr int V = vec_width<O, A, B>();
    if (aligned(po, sizeof(O) * V) && aligned(pa, sizeof(A) * V) && aligned(pb, sizeof(B) * V))
      k_contig2<V><<<grid_for(n / V + 1), kThreads, 0, kStream>>>(po, pa, pb, n, f);
    else
      k_contig2<1><<<grid_for(n), kThreads, 0, kStream>>>(po, pa, pb, n, f);
  } else {
    const Tensor* ts[3] = {&out, &a, &b};
    Geometry<3> g = make_geometry<3>(ts);
    k_strided2<<<grid_for(n), kThreads, 0, kStream>>>(po, pa, pb, g, n, n < (int64_t(1) << 32), f);
  }
  check_launch(what);
}

// ---------------- arity 3 (where) ----------------
template <class O, class A, class B, class C, class F>
__global__ void k_strided3(O* o, const A* a, const B* b, const C* c, Geometry<4> g, int64_t n, bool small, F f) {
  int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n; i += step) {
    int64_t off[4];
    offsets_of<4>(g, i, off, small);
    o[off[0]] = f(a[off[1]], b[off[2]], c[off[3]]);
  }
}

template <class O, class A, class B, class C, class F>
void launch3(const Tensor& out, const Tensor& a, const Tensor& b, const Tensor& c, F f, const char* what) {
  int64_t n = out.numel();
  if (n == 0) return;
  const Tensor* ts[4] = {&out, &a, &b, &c};
  Geometry<4> g = make_geometry<4>(ts);
  k_strided3<<<grid_for(n), kThreads, 0, kStream>>>(static_cast<O*>(out.raw()), static_cast<const A*>(a.raw()),
                                                    static_cast<const B*>(b.raw()), static_cast<const C*>(c.raw()),
                                                    g, n, n < (int64_t(1) << 32), f);
  check_launch(what);
}

}  // namespace tt::cuda
