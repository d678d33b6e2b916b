// Copy and cast kernels on the host. Three shapes of work:
//  * both operands contiguous and of one dtype: a parallel memcpy;
//  * a unit-stride run in both (contiguous casts, row-wise strided copies): a plain loop the
//    compiler vectorises (the strided loop of NOTE [ Strided loops ]);
//  * a permuted copy (x.t().contiguous(), x.permute(...).contiguous(), casts of such views):
//    the source's unit-stride dim is not the destination's. Walking the destination in order then
//    reads the source a cache line per element; instead the two dims are cut into tiles small
//    enough that every source line a tile touches stays in L1 while the tile is written.
#include "copy.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#include "cast.h"
#include "loops.h"

#if defined(__AVX2__) || defined(__F16C__)
#include <immintrin.h>
#endif

namespace tt::cpu {
namespace {

// Same-dtype copies move bits: one unsigned type per element size keeps the instantiations few.
template <size_t N>
using Bits = std::conditional_t<N == 1, uint8_t, std::conditional_t<N == 2, uint16_t, std::conditional_t<N == 4, uint32_t, uint64_t>>>;

// 16 x 16 elements, blocks walked source row by source row: on a 1024 x 1024 float transpose
// (rows 4 KB apart, so every row of a tile falls in one L1 set) this beat 32 and 64 and the
// destination-row order by 1.2-1.6x in a standalone benchmark.
constexpr int64_t kTile = 16;

// dst[i, k] = src[i, k] over an [ni, nk] tile of B-byte elements moved as bits; dst is unit-stride
// along k (row stride dsi bytes), src has byte strides ssi (the small one) and ssk.
template <class B>
inline void tile_scalar(char* d, const char* s, int64_t ni, int64_t nk, int64_t dsi, int64_t ssi, int64_t ssk) {
  for (int64_t i = 0; i < ni; ++i) {
    B* __restrict o = reinterpret_cast<B*>(d + i * dsi);
    const char* q = s + i * ssi;
    for (int64_t k = 0; k < nk; ++k) std::memcpy(o + k, q + k * ssk, sizeof(B));
  }
}

#ifdef __AVX2__
// An 8 x 8 block of 4-byte elements: source rows k (byte stride ssk) hold 8 consecutive i, the
// destination rows i (byte stride dsi) get 8 consecutive k. Unpack/shuffle/permute move bits
// untouched (NaN payloads included), so this serves every 4-byte dtype.
inline void transpose8x8(char* d, const char* s, int64_t dsi, int64_t ssk) {
  __m256 r0 = _mm256_loadu_ps(reinterpret_cast<const float*>(s));
  __m256 r1 = _mm256_loadu_ps(reinterpret_cast<const float*>(s + ssk));
  __m256 r2 = _mm256_loadu_ps(reinterpret_cast<const float*>(s + 2 * ssk));
  __m256 r3 = _mm256_loadu_ps(reinterpret_cast<const float*>(s + 3 * ssk));
  __m256 r4 = _mm256_loadu_ps(reinterpret_cast<const float*>(s + 4 * ssk));
  __m256 r5 = _mm256_loadu_ps(reinterpret_cast<const float*>(s + 5 * ssk));
  __m256 r6 = _mm256_loadu_ps(reinterpret_cast<const float*>(s + 6 * ssk));
  __m256 r7 = _mm256_loadu_ps(reinterpret_cast<const float*>(s + 7 * ssk));
  __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1);
  __m256 t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3);
  __m256 t4 = _mm256_unpacklo_ps(r4, r5), t5 = _mm256_unpackhi_ps(r4, r5);
  __m256 t6 = _mm256_unpacklo_ps(r6, r7), t7 = _mm256_unpackhi_ps(r6, r7);
  __m256 u0 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0)), u1 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));
  __m256 u2 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0)), u3 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2));
  __m256 u4 = _mm256_shuffle_ps(t4, t6, _MM_SHUFFLE(1, 0, 1, 0)), u5 = _mm256_shuffle_ps(t4, t6, _MM_SHUFFLE(3, 2, 3, 2));
  __m256 u6 = _mm256_shuffle_ps(t5, t7, _MM_SHUFFLE(1, 0, 1, 0)), u7 = _mm256_shuffle_ps(t5, t7, _MM_SHUFFLE(3, 2, 3, 2));
  _mm256_storeu_ps(reinterpret_cast<float*>(d), _mm256_permute2f128_ps(u0, u4, 0x20));
  _mm256_storeu_ps(reinterpret_cast<float*>(d + dsi), _mm256_permute2f128_ps(u1, u5, 0x20));
  _mm256_storeu_ps(reinterpret_cast<float*>(d + 2 * dsi), _mm256_permute2f128_ps(u2, u6, 0x20));
  _mm256_storeu_ps(reinterpret_cast<float*>(d + 3 * dsi), _mm256_permute2f128_ps(u3, u7, 0x20));
  _mm256_storeu_ps(reinterpret_cast<float*>(d + 4 * dsi), _mm256_permute2f128_ps(u0, u4, 0x31));
  _mm256_storeu_ps(reinterpret_cast<float*>(d + 5 * dsi), _mm256_permute2f128_ps(u1, u5, 0x31));
  _mm256_storeu_ps(reinterpret_cast<float*>(d + 6 * dsi), _mm256_permute2f128_ps(u2, u6, 0x31));
  _mm256_storeu_ps(reinterpret_cast<float*>(d + 7 * dsi), _mm256_permute2f128_ps(u3, u7, 0x31));
}

// The same for a 4 x 4 block of 8-byte elements.
inline void transpose4x4(char* d, const char* s, int64_t dsi, int64_t ssk) {
  __m256d r0 = _mm256_loadu_pd(reinterpret_cast<const double*>(s));
  __m256d r1 = _mm256_loadu_pd(reinterpret_cast<const double*>(s + ssk));
  __m256d r2 = _mm256_loadu_pd(reinterpret_cast<const double*>(s + 2 * ssk));
  __m256d r3 = _mm256_loadu_pd(reinterpret_cast<const double*>(s + 3 * ssk));
  __m256d t0 = _mm256_unpacklo_pd(r0, r1), t1 = _mm256_unpackhi_pd(r0, r1);
  __m256d t2 = _mm256_unpacklo_pd(r2, r3), t3 = _mm256_unpackhi_pd(r2, r3);
  _mm256_storeu_pd(reinterpret_cast<double*>(d), _mm256_permute2f128_pd(t0, t2, 0x20));
  _mm256_storeu_pd(reinterpret_cast<double*>(d + dsi), _mm256_permute2f128_pd(t1, t3, 0x20));
  _mm256_storeu_pd(reinterpret_cast<double*>(d + 2 * dsi), _mm256_permute2f128_pd(t0, t2, 0x31));
  _mm256_storeu_pd(reinterpret_cast<double*>(d + 3 * dsi), _mm256_permute2f128_pd(t1, t3, 0x31));
}
#endif

// A tile of B-byte elements: W x W blocks through registers where the source is unit-stride along
// i (W = 8 for 4-byte, 4 for 8-byte elements), the ragged edges (and other sizes) element by
// element. Blocks go along the source rows first, so each source line is used up while in L1.
template <class B>
inline void tile_bits(char* d, const char* s, int64_t ni, int64_t nk, int64_t dsi, int64_t ssi, int64_t ssk) {
#ifdef __AVX2__
  if constexpr (sizeof(B) == 4 || sizeof(B) == 8) {
    constexpr int64_t W = sizeof(B) == 4 ? 8 : 4;
    constexpr int64_t E = static_cast<int64_t>(sizeof(B));
    if (ssi == E) {
      int64_t niw = ni / W * W, nkw = nk / W * W;
      for (int64_t k = 0; k < nkw; k += W)
        for (int64_t i = 0; i < niw; i += W) {
          if constexpr (W == 8) transpose8x8(d + i * dsi + k * E, s + i * E + k * ssk, dsi, ssk);
          else transpose4x4(d + i * dsi + k * E, s + i * E + k * ssk, dsi, ssk);
        }
      if (nkw < nk) tile_scalar<B>(d + nkw * E, s + nkw * ssk, niw, nk - nkw, dsi, ssi, ssk);
      if (niw < ni) tile_scalar<B>(d + niw * dsi, s + niw * ssi, ni - niw, nk, dsi, ssi, ssk);
      return;
    }
  }
#endif
  tile_scalar<B>(d, s, ni, nk, dsi, ssi, ssk);
}

// A unit-stride run converted element by element; float/double <-> half goes through F16C (round
// to nearest even like float_to_half, double via float as cast_value; NaN stays NaN, its payload
// is not kept).
template <class D, class S>
inline void cast_run(D* __restrict o, const S* __restrict x, int64_t n) {
  int64_t i = 0;
#ifdef __F16C__
  if constexpr (std::is_same_v<D, float> && std::is_same_v<S, Half>) {
    for (; i + 8 <= n; i += 8)
      _mm256_storeu_ps(o + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(x + i))));
  } else if constexpr (std::is_same_v<D, Half> && std::is_same_v<S, float>) {
    for (; i + 8 <= n; i += 8)
      _mm_storeu_si128(reinterpret_cast<__m128i*>(o + i), _mm256_cvtps_ph(_mm256_loadu_ps(x + i), _MM_FROUND_TO_NEAREST_INT));
  } else if constexpr (std::is_same_v<D, Half> && std::is_same_v<S, double>) {
    for (; i + 4 <= n; i += 4)  // through float, as cast_value (and torch) round it
      _mm_storel_epi64(reinterpret_cast<__m128i*>(o + i), _mm_cvtps_ph(_mm256_cvtpd_ps(_mm256_loadu_pd(x + i)), _MM_FROUND_TO_NEAREST_INT));
  } else if constexpr (std::is_same_v<D, double> && std::is_same_v<S, Half>) {
    for (; i + 4 <= n; i += 4)
      _mm256_storeu_pd(o + i, _mm256_cvtps_pd(_mm_cvtph_ps(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(x + i)))));
  }
#endif
#ifdef __AVX2__
  // float/double -> int32/int64: 8 (4) lanes truncated at once while every lane is inside the
  // int32 range (no NaN, no saturation); a block with any other value takes the scalar rule.
  if constexpr ((std::is_same_v<S, float> || std::is_same_v<S, double>) &&
                (std::is_same_v<D, int32_t> || std::is_same_v<D, int64_t>)) {
    constexpr int64_t W = std::is_same_v<S, float> ? 8 : 4;
    for (; i + W <= n; i += W) {
      __m128i lo, hi = _mm_setzero_si128();
      bool ok;
      if constexpr (std::is_same_v<S, float>) {
        __m256 v = _mm256_loadu_ps(x + i);
        __m256 a = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), v);
        ok = _mm256_movemask_ps(_mm256_cmp_ps(a, _mm256_set1_ps(2147483520.0f), _CMP_LE_OQ)) == 0xff;
        __m256i r = _mm256_cvttps_epi32(v);
        lo = _mm256_castsi256_si128(r);
        hi = _mm256_extracti128_si256(r, 1);
      } else {
        __m256d v = _mm256_loadu_pd(x + i);
        __m256d a = _mm256_andnot_pd(_mm256_set1_pd(-0.0), v);
        ok = _mm256_movemask_pd(_mm256_cmp_pd(a, _mm256_set1_pd(2147483647.0), _CMP_LE_OQ)) == 0xf;
        lo = _mm256_cvttpd_epi32(v);
      }
      if (!ok) {
        for (int64_t k = 0; k < W; ++k) o[i + k] = cast_value<D>(x[i + k]);
        continue;
      }
      if constexpr (std::is_same_v<D, int32_t>) {
        _mm_storeu_si128(reinterpret_cast<__m128i*>(o + i), lo);
        if constexpr (W == 8) _mm_storeu_si128(reinterpret_cast<__m128i*>(o + i + 4), hi);
      } else {
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(o + i), _mm256_cvtepi32_epi64(lo));
        if constexpr (W == 8) _mm256_storeu_si256(reinterpret_cast<__m256i*>(o + i + 4), _mm256_cvtepi32_epi64(hi));
      }
    }
  }
#endif
  for (; i < n; ++i) o[i] = cast_value<D>(x[i]);
}

// A tile of a permuted copy. Same dtype: moved as bits straight into place. A cast: transposed as
// bits into an L1 buffer first, then each of its rows converted by the contiguous cast loop.
template <class D, class S>
inline void tile(char* d, const char* s, int64_t ni, int64_t nk, int64_t dsi, int64_t ssi, int64_t ssk) {
  if constexpr (std::is_same_v<D, S>) {
    tile_bits<D>(d, s, ni, nk, dsi, ssi, ssk);
  } else {
    constexpr int64_t row = kTile * static_cast<int64_t>(sizeof(S));
    alignas(32) char buf[kTile * row];  // raw bytes: no per-tile construction of Half / BFloat16
    tile_bits<Bits<sizeof(S)>>(buf, s, ni, nk, row, ssi, ssk);
    for (int64_t i = 0; i < ni; ++i) cast_run<D, S>(reinterpret_cast<D*>(d + i * dsi), reinterpret_cast<const S*>(buf + i * row), nk);
  }
}

// The permuted case, or false when the geometry is not one (then the strided loop runs).
template <class D, class S>
bool permuted_copy(const Geometry<2>& g) {
  size_t nd = g.shape.size();
  if (nd < 2) return false;
  size_t last = nd - 1;
  const auto& ds = g.strides[0];
  const auto& ss = g.strides[1];
  if (ds[last] != static_cast<int64_t>(sizeof(D))) return false;
  int64_t sl = std::llabs(ss[last]);
  if (sl <= static_cast<int64_t>(sizeof(S)) * 2) return false;  // source already (nearly) unit-stride along the row
  size_t j = last;
  for (size_t d = 0; d < last; ++d)
    if (g.shape[d] >= 8 && std::llabs(ss[d]) < sl && (j == last || std::llabs(ss[d]) < std::llabs(ss[j]))) j = d;
  if (j == last || g.shape[last] < 8) return false;
  // the other dims, walked as an odometer per job
  SmallVec<int64_t> oshape, ods, oss;
  for (size_t d = 0; d < last; ++d)
    if (d != j) {
      oshape.push_back(g.shape[d]);
      ods.push_back(ds[d]);
      oss.push_back(ss[d]);
    }
  int64_t outer = 1;
  for (int64_t v : oshape) outer *= v;
  int64_t ni = g.shape[j], nk = g.shape[last];
  int64_t iblocks = (ni + kTile - 1) / kTile;
  int64_t jobs = outer * iblocks;
  int64_t grain = std::max<int64_t>(1, kGrain / (kTile * nk));
  parallel_for(0, jobs, grain, [&](int64_t b, int64_t e) {
    for (int64_t job = b; job < e; ++job) {
      int64_t o = job / iblocks, i0 = (job % iblocks) * kTile, i1 = std::min(ni, i0 + kTile);
      char* d = g.base[0];
      const char* s = g.base[1];
      for (size_t k = oshape.size(); k-- > 0;) {
        int64_t idx = o % oshape[k];
        o /= oshape[k];
        d += idx * ods[k];
        s += idx * oss[k];
      }
      d += i0 * ds[j];
      s += i0 * ss[j];
      for (int64_t k0 = 0; k0 < nk; k0 += kTile)
        tile<D, S>(d + k0 * ds[last], s + k0 * ss[last], i1 - i0, std::min(kTile, nk - k0), ds[j], ss[j], ss[last]);
    }
  });
  return true;
}

template <class D, class S>
void copy_typed(const Tensor& dst, const Tensor& src) {
  if constexpr (std::is_same_v<D, S>) {
    if (dst.is_contiguous() && src.is_contiguous()) {
      const char* s = static_cast<const char*>(src.raw());
      char* d = static_cast<char*>(dst.raw());
      int64_t nb = dst.numel() * static_cast<int64_t>(sizeof(D));
      parallel_for(0, nb, kGrain * 16, [&](int64_t b, int64_t e) { std::memcpy(d + b, s + b, static_cast<size_t>(e - b)); });
      return;
    }
  }
  if (permuted_copy<D, S>(make_geometry<2>({&dst, &src}))) return;
  for_each<2>({&dst, &src}, [](char** p, const int64_t* s, int64_t n) {
    if (s[0] == sizeof(D) && s[1] == sizeof(S)) {
      cast_run<D, S>(reinterpret_cast<D*>(p[0]), reinterpret_cast<const S*>(p[1]), n);
    } else {
      char *po = p[0], *ps = p[1];
      for (int64_t i = 0; i < n; ++i, po += s[0], ps += s[1])
        *reinterpret_cast<D*>(po) = cast_value<D>(*reinterpret_cast<const S*>(ps));
    }
  });
}

}  // namespace

void copy_host(const Tensor& dst, const Tensor& src) {
  if (dst.numel() == 0) return;
  if (dst.dtype() == src.dtype()) {
    switch (dst.itemsize()) {
      case 1: return copy_typed<Bits<1>, Bits<1>>(dst, src);
      case 2: return copy_typed<Bits<2>, Bits<2>>(dst, src);
      case 4: return copy_typed<Bits<4>, Bits<4>>(dst, src);
      case 8: return copy_typed<Bits<8>, Bits<8>>(dst, src);
      default: break;
    }
  }
  visit_dtype(dst.dtype(), [&](auto dtag) {
    visit_dtype(src.dtype(), [&](auto stag) { copy_typed<decltype(dtag), decltype(stag)>(dst, src); });
  });
}

}  // namespace tt::cpu
