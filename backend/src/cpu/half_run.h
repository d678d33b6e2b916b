#pragma once
// float16 / bfloat16 runs widened to float32 and float32 runs rounded back to the half type (nearest
// even; NaN stays NaN, its payload not kept): the conversions cpu::copy makes, so a kernel that
// computes a half op on float32 chunks gives the bits of the cast, compute, cast composition.
#include <cstdint>
#include <cstring>

#ifdef __F16C__
#include <immintrin.h>
#endif

#include "typedtensor/dtype.h"

namespace tt::cpu {

inline void widen_run(const BFloat16* __restrict x, float* __restrict o, int64_t n) {
  const auto* s = reinterpret_cast<const uint16_t*>(x);
  for (int64_t i = 0; i < n; ++i) {
    uint32_t u = static_cast<uint32_t>(s[i]) << 16;
    std::memcpy(o + i, &u, 4);
  }
}

// BFloat16(float) without its branch, so the loop vectorises.
inline void narrow_run(const float* __restrict x, BFloat16* __restrict o, int64_t n) {
  auto* d = reinterpret_cast<uint16_t*>(o);
  for (int64_t i = 0; i < n; ++i) {
    uint32_t u;
    std::memcpy(&u, x + i, 4);
    uint32_t r = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
    d[i] = (u & 0x7fffffffu) > 0x7f800000u ? uint16_t{0x7fc0} : static_cast<uint16_t>(r);
  }
}

inline void widen_run(const Half* __restrict x, float* __restrict o, int64_t n) {
  int64_t i = 0;
#ifdef __F16C__
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(o + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(x + i))));
#endif
  for (; i < n; ++i) o[i] = static_cast<float>(x[i]);
}

inline void narrow_run(const float* __restrict x, Half* __restrict o, int64_t n) {
  int64_t i = 0;
#ifdef __F16C__
  for (; i + 8 <= n; i += 8)
    _mm_storeu_si128(reinterpret_cast<__m128i*>(o + i), _mm256_cvtps_ph(_mm256_loadu_ps(x + i), _MM_FROUND_TO_NEAREST_INT));
#endif
  for (; i < n; ++i) o[i] = Half(x[i]);
}

}  // namespace tt::cpu
