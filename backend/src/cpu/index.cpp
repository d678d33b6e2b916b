// Indexing kernels: index_select, gather, scatter, masked_fill, tril/triu.
#include <cstring>
#include <type_traits>

#include "kernels.h"
#include "loops.h"

namespace tt::cpu {

void index_select(const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index) {
  // in and out contiguous; view both as [outer, r, inner]
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < dim; ++d) outer *= in.size(d);
  for (int64_t d = dim + 1; d < in.dim(); ++d) inner *= in.size(d);
  int64_t rin = in.dim() ? in.size(dim) : 1, rout = index.numel();
  size_t isz = in.itemsize();
  const char* src = static_cast<const char*>(in.raw());
  char* dst = static_cast<char*>(out.raw());
  const int64_t* ix = index.data<int64_t>();
  size_t chunk = static_cast<size_t>(inner) * isz;
  parallel_for(0, outer * rout, std::max<int64_t>(1, kGrain / std::max<int64_t>(inner, 1)), [&](int64_t b, int64_t e) {
    for (int64_t k = b; k < e; ++k) {
      int64_t o = k / rout, j = k % rout;
      std::memcpy(dst + k * chunk, src + (o * rin + ix[j]) * chunk, chunk);
    }
  });
}

namespace {
// Calls f(linear position in `index`, offset (elements) in `t` for that position with dim replaced)
template <class F>
void walk(const Tensor& index, const Tensor& t, int64_t dim, F&& f) {
  int64_t n = index.numel(), nd = index.dim();
  if (n == 0) return;
  SmallVec<int64_t> idx(static_cast<size_t>(nd), 0);
  const int64_t* ip = index.data<int64_t>();
  for (int64_t k = 0; k < n; ++k) {
    int64_t off = 0;
    for (int64_t d = 0; d < nd; ++d) off += (d == dim ? ip[k] : idx[d]) * t.stride(d);
    f(k, idx, off);
    for (int64_t d = nd - 1; d >= 0; --d) {
      if (++idx[d] < index.size(d)) break;
      idx[d] = 0;
    }
  }
}
}  // namespace

void gather(const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index) {
  size_t isz = in.itemsize();
  const char* src = static_cast<const char*>(in.raw());
  char* dst = static_cast<char*>(out.raw());  // contiguous, index's shape
  walk(index, in, dim, [&](int64_t k, const SmallVec<int64_t>&, int64_t off) {
    std::memcpy(dst + k * isz, src + off * static_cast<int64_t>(isz), isz);
  });
}

void scatter(const Tensor& out, int64_t dim, const Tensor& index, const Tensor& src, int reduce) {
  visit_dtype(out.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* o = out.data<T>();
    const T* s = src.data<T>();
    walk(index, out, dim, [&](int64_t, const SmallVec<int64_t>& idx, int64_t off) {
      int64_t soff = 0;
      for (int64_t d = 0; d < index.dim(); ++d) soff += idx[d] * src.stride(d);
      if (reduce == 0) {
        o[off] = s[soff];
      } else if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
        o[off] = T(reduce == 1 ? float(o[off]) + float(s[soff]) : float(o[off]) * float(s[soff]));
      } else if constexpr (std::is_same_v<T, bool>) {
        o[off] = reduce == 1 ? (o[off] || s[soff]) : (o[off] && s[soff]);
      } else {
        o[off] = reduce == 1 ? T(o[off] + s[soff]) : T(o[off] * s[soff]);
      }
    });
  });
}

void masked_fill(const Tensor& out, const Tensor& mask, const Tensor& value) {
  size_t isz = out.itemsize();
  char val[8];
  std::memcpy(val, value.raw(), isz);
  for_each<2>({&out, &mask}, [&](char** p, const int64_t* s, int64_t n) {
    char *po = p[0], *pm = p[1];
    if ((isz == 4 || isz == 8) && s[0] == static_cast<int64_t>(isz) && s[1] == 1) {  // branch-free, vectorises
      auto run = [&](auto tag) {
        using U = decltype(tag);
        U v;
        std::memcpy(&v, val, sizeof(U));
        U* o = reinterpret_cast<U*>(po);
        const uint8_t* m = reinterpret_cast<const uint8_t*>(pm);
        for (int64_t i = 0; i < n; ++i) {
          U k = static_cast<U>(U(0) - static_cast<U>(m[i] != 0));
          o[i] = static_cast<U>((v & k) | (o[i] & static_cast<U>(~k)));
        }
      };
      if (isz == 4) run(uint32_t{});
      else run(uint64_t{});
      return;
    }
    for (int64_t i = 0; i < n; ++i, po += s[0], pm += s[1])
      if (*reinterpret_cast<const bool*>(pm)) std::memcpy(po, val, isz);
  });
}

void tri(const Tensor& out, const Tensor& in, int64_t k, bool lower) {
  int64_t r = in.size(-2), c = in.size(-1), batch = in.numel() / std::max<int64_t>(r * c, 1);
  if (in.numel() == 0) return;
  size_t isz = in.itemsize();
  const char* src = static_cast<const char*>(in.raw());
  char* dst = static_cast<char*>(out.raw());
  parallel_for(0, batch * r, std::max<int64_t>(1, kGrain / std::max<int64_t>(c, 1)), [&](int64_t b, int64_t e) {
    for (int64_t row = b; row < e; ++row) {
      int64_t i = row % r;
      const char* s = src + row * c * static_cast<int64_t>(isz);
      char* d = dst + row * c * static_cast<int64_t>(isz);
      for (int64_t j = 0; j < c; ++j) {
        bool keep = lower ? (j - i <= k) : (j - i >= k);
        if (keep) std::memcpy(d + j * isz, s + j * isz, isz);
        else std::memset(d + j * isz, 0, isz);
      }
    }
  });
}

}  // namespace tt::cpu
