#pragma once
// Floating-point binary ops that have no one-instruction form (pow, atan2, hypot, fmod, remainder,
// floor_divide) over one contiguous run: the kernels those calls end in (elementwise.cpp's
// run_binary_span feeds them runs of at most kBinaryRun elements, broadcast and strided operands
// copied into local runs first). Compiled twice: for the baseline instruction set in
// elementwise.cpp and for AVX-512 in binary_avx512.cpp (wider lanes, chosen at run time).
// `o` shares no memory with `x` or `y` (the caller passes a local run where the output overlaps an
// input); `x` may equal `y`.
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "typedtensor/op_kinds.h"
#include "vmath_binary.h"
#include "vmath_binary512.h"
#include "vmath_pow.h"

namespace tt::cpu {

// The longest run binary_span takes (its scratch arrays are this long).
constexpr int64_t kBinaryRun = 256;

inline namespace TT_VMATH_ISA {

// o[i] = f(x[i], y[i]) for i < n in 512-bit vectors, the tail under a mask (its unused lanes
// computed on 1.0, a plain operand for every op here).
#if defined(__AVX512F__) && defined(__AVX512DQ__)
template <class T, class F>
TT_VMATH_INLINE void lanes512(T* o, const T* x, const T* y, int64_t n, F f) {
  if constexpr (std::is_same_v<T, float>) {
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) _mm512_storeu_ps(o + i, f(_mm512_loadu_ps(x + i), _mm512_loadu_ps(y + i)));
    if (i < n) {
      __mmask16 m = static_cast<__mmask16>((1u << (n - i)) - 1u);
      const __m512 one = _mm512_set1_ps(1.0f);
      _mm512_mask_storeu_ps(o + i, m, f(_mm512_mask_loadu_ps(one, m, x + i), _mm512_mask_loadu_ps(one, m, y + i)));
    }
  } else {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) _mm512_storeu_pd(o + i, f(_mm512_loadu_pd(x + i), _mm512_loadu_pd(y + i)));
    if (i < n) {
      __mmask8 m = static_cast<__mmask8>((1u << (n - i)) - 1u);
      const __m512d one = _mm512_set1_pd(1.0);
      _mm512_mask_storeu_pd(o + i, m, f(_mm512_mask_loadu_pd(one, m, x + i), _mm512_mask_loadu_pd(one, m, y + i)));
    }
  }
}
#endif

// pow for float: exp(y log x) in double where x > 0 and x, y finite (AVX-512: vpowf16_of); std::pow
// elsewhere. pow for double: vpow_log / vpow_exp (vmath_pow.h), std::pow where they do not apply.
template <class T>
void pow_span(T* __restrict o, const T* __restrict x, const T* __restrict y, int64_t n) {
  if constexpr (std::is_same_v<T, float>) {
#if defined(__AVX512F__) && defined(__AVX512DQ__)
    __mmask16 special = 0;
    lanes512(o, x, y, n, [&special](__m512 a, __m512 b) {
      special |= static_cast<__mmask16>(~pow_plain16(a, b));
      return vpowf16_of(a, b);
    });
#else
    alignas(64) double t[kBinaryRun];
    for (int64_t i = 0; i < n; ++i) t[i] = vpowf_log(x[i], y[i]);
    for (int64_t i = 0; i < n; ++i) o[i] = vpowf_exp(t[i]);
    int32_t special = 0;
    for (int64_t i = 0; i < n; ++i) special += !pow_plain(x[i], y[i]);
#endif
    if (special)
      for (int64_t i = 0; i < n; ++i)
        if (!pow_plain(x[i], y[i])) o[i] = std::pow(x[i], y[i]);
  } else {
    // two passes (vpow_log, vpow_exp: vmath_pow.h); std::pow for the pairs they mark NaN (x <= 0,
    // subnormal, inf or NaN operands, results near overflow / underflow; a true NaN is redone too)
    alignas(64) double eh[kBinaryRun], el[kBinaryRun];
    for (int64_t i = 0; i < n; ++i) eh[i] = vpow_log(x[i], y[i], el[i]);
    int64_t special = 0;  // int64_t: an int32_t count stops GCC vectorising the loop
    for (int64_t i = 0; i < n; ++i) {
      double r = vpow_exp(eh[i], el[i]);
      o[i] = r;
      special += r != r;
    }
    if (special)
      for (int64_t i = 0; i < n; ++i)
        if (o[i] != o[i]) o[i] = std::pow(x[i], y[i]);
  }
}

// fmod exactly (see fmod_fast); the pairs it cannot do are marked NaN and redone by std::fmod
// (a true NaN result is redone too: it is NaN again).
template <class T>
void fmod_span(T* __restrict o, const T* __restrict x, const T* __restrict y, int64_t n) {
  int32_t nan = 0;
  for (int64_t i = 0; i < n; ++i) {
    bool ok;
    T r = fmod_fast(x[i], y[i], ok);
    o[i] = ok ? r : std::numeric_limits<T>::quiet_NaN();
    nan += !ok;
  }
  if (nan)
    for (int64_t i = 0; i < n; ++i)
      if (o[i] != o[i]) o[i] = std::fmod(x[i], y[i]);
}

// torch's remainder and floor_divide for floats, from the exact fmod (same formulas, so the same
// results bit for bit).
template <class T>
void remainder_span(T* __restrict o, const T* __restrict x, const T* __restrict y, int64_t n) {
  fmod_span(o, x, y, n);
  for (int64_t i = 0; i < n; ++i) {
    T m = o[i];
    o[i] = (m != T(0) && ((y[i] < T(0)) != (m < T(0)))) ? m + y[i] : m;
  }
}
template <class T>
void floordiv_span(T* __restrict o, const T* __restrict x, const T* __restrict y, int64_t n) {
  fmod_span(o, x, y, n);
  for (int64_t i = 0; i < n; ++i) {
    T a = x[i], b = y[i], m = o[i];
    T d = (a - m) / b;
    d = (m != T(0) && ((b < T(0)) != (m < T(0)))) ? d - T(1) : d;
    T fl = std::floor(d);
    fl = (d - fl > T(0.5)) ? fl + T(1) : fl;
    T q = a / b;
    T r = d == T(0) ? std::copysign(T(0), q) : fl;
    o[i] = b == T(0) ? q : r;
  }
}

template <class T>
void atan2_span(T* __restrict o, const T* __restrict x, const T* __restrict y, int64_t n) {
#if defined(__AVX512F__) && defined(__AVX512DQ__)
  if constexpr (std::is_same_v<T, float>) lanes512(o, x, y, n, [](__m512 a, __m512 b) { return vatan2f16_of(a, b); });
  else lanes512(o, x, y, n, [](__m512d a, __m512d b) { return vatan2d8_of(a, b); });
#else
  int64_t i = 0;
#if defined(__AVX2__) && defined(__FMA__)
  if constexpr (std::is_same_v<T, float>) {
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(o + i, vatan2f8_of(_mm256_loadu_ps(x + i), _mm256_loadu_ps(y + i)));
  } else {
    for (; i + 4 <= n; i += 4) _mm256_storeu_pd(o + i, vatan2d4_of(_mm256_loadu_pd(x + i), _mm256_loadu_pd(y + i)));
  }
#endif
  if constexpr (std::is_same_v<T, float>) {
    for (; i < n; ++i) o[i] = vatan2f(x[i], y[i]);
  } else {
    for (; i < n; ++i) o[i] = vatan2(x[i], y[i]);
  }
#endif
}
template <class T>
void hypot_span(T* __restrict o, const T* __restrict x, const T* __restrict y, int64_t n) {
  if constexpr (std::is_same_v<T, float>) {
    for (int64_t i = 0; i < n; ++i) o[i] = vhypotf(x[i], y[i]);
  } else {
    for (int64_t i = 0; i < n; ++i) o[i] = vhypotd(x[i], y[i]);
  }
}

// o[i] = op(x[i], y[i]) for i < n <= kBinaryRun; false when `op` has no span kernel.
template <class T>
__attribute__((flatten)) bool binary_span(BinaryOp op, T* o, const T* x, const T* y, int64_t n) {
  switch (op) {
    case BinaryOp::Pow: return pow_span<T>(o, x, y, n), true;
    case BinaryOp::Atan2: return atan2_span<T>(o, x, y, n), true;
    case BinaryOp::Hypot: return hypot_span<T>(o, x, y, n), true;
    case BinaryOp::Fmod: return fmod_span<T>(o, x, y, n), true;
    case BinaryOp::Remainder: return remainder_span<T>(o, x, y, n), true;
    case BinaryOp::FloorDiv: return floordiv_span<T>(o, x, y, n), true;
    default: return false;
  }
}

}  // inline namespace TT_VMATH_ISA
}  // namespace tt::cpu
