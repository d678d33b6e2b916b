// Copies (contiguous, strided, casting) and fill. A same-dtype dense copy is one cudaMemcpyAsync;
// a same-dtype strided copy moves raw 1/2/4/8-byte words (no per-dtype kernels); only casts
// instantiate a kernel per (destination, source) dtype pair.
#include "elementwise.cuh"

namespace tt::cuda {
namespace {

template <class D, class S>
struct CastF {
  __device__ D operator()(S v) const { return cast_to<D>(v); }
};

template <class T>
struct Ident {
  __device__ T operator()(T v) const { return v; }
};

template <class T>
__global__ void k_fill_contig(T* o, int64_t n, T v) {
  int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n; i += step) o[i] = v;
}
template <class T>
__global__ void k_fill_strided(T* o, Geometry<1> g, int64_t n, bool small, T v) {
  int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n; i += step) {
    int64_t off[1];
    offsets_of<1>(g, i, off, small);
    o[off[0]] = v;
  }
}

template <class W>
void raw_copy(const Tensor& dst, const Tensor& src) {
  launch1<W, W>(dst, src, Ident<W>{}, "copy");
}

}  // namespace

void copy(const Tensor& dst, const Tensor& src) {
  if (dst.numel() == 0) return;
  if (dst.dtype() == src.dtype()) {
    size_t isz = dst.itemsize();
    if (all_contiguous({&dst, &src})) {
      memcpy_d2d(dst.raw(), src.raw(), static_cast<size_t>(dst.numel()) * isz);
      return;
    }
    switch (isz) {
      case 1: return raw_copy<uint8_t>(dst, src);
      case 2: return raw_copy<uint16_t>(dst, src);
      case 4: return raw_copy<uint32_t>(dst, src);
      default: return raw_copy<uint64_t>(dst, src);
    }
  }
  visit_all(dst.dtype(), [&](auto dtag) {
    using D = decltype(dtag);
    visit_all(src.dtype(), [&](auto stag) {
      using S = decltype(stag);
      if constexpr (!std::is_same_v<D, S>) launch1<D, S>(dst, src, CastF<D, S>{}, "to");
    });
  });
}

void fill(const Tensor& dst, Scalar v) {
  int64_t n = dst.numel();
  if (n == 0) return;
  visit_all(dst.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T val{};
    if constexpr (is_half_v<T>) {  // rounded on the host with the CPU backend's conversions
      float f = v.kind == Scalar::Float ? static_cast<float>(v.d) : static_cast<float>(v.i);
      if constexpr (std::is_same_v<T, __half>) {
        __half_raw r;
        r.x = tt::Half(f).bits;
        val = __half(r);
      } else {
        __nv_bfloat16_raw r;
        r.x = tt::BFloat16(f).bits;
        val = __nv_bfloat16(r);
      }
    } else if constexpr (std::is_same_v<T, bool>) {
      val = v.kind == Scalar::Float ? v.d != 0.0 : v.i != 0;
    } else if constexpr (is_fp_v<T>) {
      val = v.kind == Scalar::Float ? static_cast<T>(v.d) : static_cast<T>(v.i);
    } else {
      if (v.kind == Scalar::Float) {
        double d = v.d;
        if (!(d == d)) val = std::numeric_limits<T>::min();
        else if (d >= static_cast<double>(std::numeric_limits<T>::max())) val = std::numeric_limits<T>::max();
        else if (d <= static_cast<double>(std::numeric_limits<T>::min())) val = std::numeric_limits<T>::min();
        else val = static_cast<T>(d);
      } else {
        val = static_cast<T>(v.i);
      }
    }
    T* o = static_cast<T*>(dst.raw());
    if (dst.is_contiguous()) {
      k_fill_contig<T><<<grid_for(n), kThreads, 0, kStream>>>(o, n, val);
    } else {
      const Tensor* ts[1] = {&dst};
      Geometry<1> g = make_geometry<1>(ts);
      k_fill_strided<T><<<grid_for(n), kThreads, 0, kStream>>>(o, g, n, n < (int64_t(1) << 32), val);
    }
    check_launch("fill");
  });
}

}  // namespace tt::cuda
