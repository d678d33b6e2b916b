#pragma once
// Branch-free float math that GCC auto-vectorises inside plain loops.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <utility>

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#endif

// Every definition below sits in an inline namespace named after the instruction set the including
// file is compiled for (TT_VMATH_ISA, set by unary_avx512.cpp before its includes): the wide copy
// and the baseline copy get different symbol names, so the linker can never merge an AVX-512
// body into the baseline kernels (an illegal instruction on CPUs without it).
#ifndef TT_VMATH_ISA
#define TT_VMATH_ISA isa_baseline
#endif

// Always inlined: a call per element stops the loop around it from vectorising, and GCC's
// inliner declines these bodies in some of the many unary-kernel instantiations.
#define TT_VMATH_INLINE inline __attribute__((always_inline))

// the double versions (vexp, vexp2, vexpm1, vlog, vlog2, vlog10, vlog1p, vtanh, verf,
// vsin/vcos_reduced)
#include "vmath_f64.h"
#include "vmath_poly.h"

namespace tt::cpu {
inline namespace TT_VMATH_ISA {

// p = c[0], then p = p x + c[k] for each further coefficient (Horner, one fma each), unrolled at
// compile time: the polynomials of vmath_poly.h.
template <size_t N, size_t... K>
TT_VMATH_INLINE float horner_of(float x, const float (&c)[N], std::index_sequence<K...>) {
  float p = c[0];
  ((p = std::fma(p, x, c[K + 1])), ...);
  return p;
}
template <size_t N>
TT_VMATH_INLINE float horner(float x, const float (&c)[N]) {
  return horner_of(x, c, std::make_index_sequence<N - 1>{});
}

// exp(x) for float, ~1 ulp (Cephes polynomial, range reduction by ln 2, two-step scaling so
// subnormal results and overflow to inf come out right).
TT_VMATH_INLINE float vexp(float x) {
  x = x < poly::kExpLo ? poly::kExpLo : x;
  x = x > poly::kExpHi ? poly::kExpHi : x;
  float n = std::nearbyint(x * poly::kLog2e);
  float r = std::fma(n, -poly::kLn2Hi, x);
  r = std::fma(n, -poly::kLn2Lo, r);
  float p = horner(r, poly::kExp);
  float y = std::fma(p * r, r, r) + 1.0f;
  int32_t ni = static_cast<int32_t>(n);
  int32_t n1 = ni / 2, n2 = ni - n1;
  int32_t b1 = (n1 + 127) << 23, b2 = (n2 + 127) << 23;
  float s1, s2;
  std::memcpy(&s1, &b1, 4);
  std::memcpy(&s2, &b2, 4);
  return y * s1 * s2;
}

// Eight lanes of vexp at once, bit-identical to the scalar vexp (same clamps, polynomial and
// two-step scaling): for fused loops (softmax, logsumexp) that keep an exp and a running sum
// in registers, which the auto-vectoriser does not produce from the scalar form.
struct F8 {
#if defined(__AVX2__) && defined(__FMA__)
  __m256 v;
#else
  float v[8];
#endif
};
#if defined(__AVX2__) && defined(__FMA__)
// horner() over eight lanes
template <size_t N, size_t... K>
TT_VMATH_INLINE __m256 horner8_of(__m256 x, const float (&c)[N], std::index_sequence<K...>) {
  __m256 p = _mm256_set1_ps(c[0]);
  ((p = _mm256_fmadd_ps(p, x, _mm256_set1_ps(c[K + 1]))), ...);
  return p;
}
template <size_t N>
TT_VMATH_INLINE __m256 horner8(__m256 x, const float (&c)[N]) {
  return horner8_of(x, c, std::make_index_sequence<N - 1>{});
}

TT_VMATH_INLINE __m256 vexp8_of(__m256 x) {
  // lanes whose exp rounds to 0 (x < -150 ln 2, e.g. a masked -inf) are computed as exp(0) and
  // zeroed at the end: the two-step scaling below would underflow them through subnormal
  // products, a microcode assist each on Intel cores. Same results as before.
  const __m256 zero = _mm256_cmp_ps(x, _mm256_set1_ps(-103.972084f), _CMP_LT_OQ);
  x = _mm256_andnot_ps(zero, x);
  // max/min return their second operand when either is NaN: x goes second so NaN passes through
  x = _mm256_max_ps(_mm256_set1_ps(poly::kExpLo), x);
  x = _mm256_min_ps(_mm256_set1_ps(poly::kExpHi), x);
  __m256 n = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(poly::kLog2e)),
                             _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256 r = _mm256_fmadd_ps(n, _mm256_set1_ps(-poly::kLn2Hi), x);
  r = _mm256_fmadd_ps(n, _mm256_set1_ps(-poly::kLn2Lo), r);
  __m256 q = horner8(r, poly::kExp);
  __m256 y = _mm256_add_ps(_mm256_fmadd_ps(_mm256_mul_ps(q, r), r, r), _mm256_set1_ps(1.0f));
  __m256i ni = _mm256_cvttps_epi32(n);
  __m256i bias = _mm256_set1_epi32(127);
  __m256 out_of_range = _mm256_or_ps(_mm256_cmp_ps(n, _mm256_set1_ps(-126.0f), _CMP_LT_OQ),
                                     _mm256_cmp_ps(n, _mm256_set1_ps(127.0f), _CMP_GT_OQ));
  if (__builtin_expect(_mm256_movemask_ps(out_of_range) == 0, 1)) {
    // 2^n is a normal float: one scaling, the same rounding as the two-step product below
    return _mm256_andnot_ps(zero, _mm256_mul_ps(y, _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(ni, bias), 23))));
  }
  __m256i n1 = _mm256_srai_epi32(_mm256_add_epi32(ni, _mm256_srli_epi32(ni, 31)), 1);  // ni / 2 toward 0
  __m256i n2 = _mm256_sub_epi32(ni, n1);
  __m256 s1 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(n1, bias), 23));
  __m256 s2 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(n2, bias), 23));
  return _mm256_andnot_ps(zero, _mm256_mul_ps(_mm256_mul_ps(y, s1), s2));
}
#endif

// exp(p[k] - shift) and exp(p[k] - shift[k]) for k < 8.
TT_VMATH_INLINE F8 vexp8(const float* p, float shift) {
#if defined(__AVX2__) && defined(__FMA__)
  return F8{vexp8_of(_mm256_sub_ps(_mm256_loadu_ps(p), _mm256_set1_ps(shift)))};
#else
  F8 r;
  for (int k = 0; k < 8; ++k) r.v[k] = vexp(p[k] - shift);
  return r;
#endif
}
TT_VMATH_INLINE F8 vexp8(const float* p, const float* shift) {
#if defined(__AVX2__) && defined(__FMA__)
  return F8{vexp8_of(_mm256_sub_ps(_mm256_loadu_ps(p), _mm256_loadu_ps(shift)))};
#else
  F8 r;
  for (int k = 0; k < 8; ++k) r.v[k] = vexp(p[k] - shift[k]);
  return r;
#endif
}

// erf(x) for float: a rational minimax fit x P(x^2) / Q(x^2) on [-4, 4] (erf is 1 to float
// precision beyond), the approximation Eigen and XLA use; a few ulp, no branches, vectorises.
// NaN passes through (the clamps compare false).
TT_VMATH_INLINE float verf(float x) {
  x = x < -poly::kErfMax ? -poly::kErfMax : x;
  x = x > poly::kErfMax ? poly::kErfMax : x;
  float x2 = x * x;
  float p = horner(x2, poly::kErfP);
  float q = horner(x2, poly::kErfQ);
  return x * p / q;
}

// e ln 2 + log(1 + f) for float with f in [sqrt(1/2) - 1, sqrt(2) - 1]: Cephes' logf polynomial,
// ln 2 split in two so e ln 2 adds no rounding.
TT_VMATH_INLINE float vlog_reduced(float e, float f) {
  float z = f * f;
  float y = horner(f, poly::kLog);
  y = y * f * z;
  y = std::fma(e, poly::kLn2Lo, y);
  y = std::fma(z, -0.5f, y);
  return std::fma(e, poly::kLn2Hi, f + y);
}

// x = (1 + f) 2^e with f in [sqrt(1/2) - 1, sqrt(2) - 1) for finite x > 0 (subnormals scaled
// first); f is exact.
TT_VMATH_INLINE void vlog_split(float x, float& e, float& f) {
  bool tiny = x < 1.17549435e-38f;
  float xs = tiny ? x * 8388608.0f : x;  // 2^23
  int32_t bits;
  std::memcpy(&bits, &xs, 4);
  e = static_cast<float>(((bits >> 23) & 0xff) - 126) - (tiny ? 23.0f : 0.0f);
  int32_t mb = (bits & 0x807fffff) | 0x3f000000;  // mantissa in [0.5, 1)
  float m;
  std::memcpy(&m, &mb, 4);
  bool low = m < 0.707106781186547524f;
  e = low ? e - 1.0f : e;
  f = low ? m + m - 1.0f : m - 1.0f;
}

// log(x) for float (Cephes logf: ~1 ulp): branch-free, so the loops around it vectorise.
// x < 0 and NaN give NaN, 0 gives -inf, inf gives inf.
TT_VMATH_INLINE float vlog(float x) {
  float e, f;
  vlog_split(x, e, f);
  float r = vlog_reduced(e, f);
  r = x == std::numeric_limits<float>::infinity() ? x : r;
  r = x == 0.0f ? -std::numeric_limits<float>::infinity() : r;
  return (x < 0.0f || x != x) ? std::numeric_limits<float>::quiet_NaN() : r;
}

// log1p(x) without a divide: u = 1 + x = (1 + f) 2^e as in vlog, and the part of x that rounding
// dropped from u, x - (u - 1) (exact), goes back into f scaled by 2^-e: for |x| small e = 0 and
// f + that part is x itself, so tiny x keep full precision; elsewhere it is a sub-ulp correction.
// ~1 ulp. log1p(-1) = -inf, x < -1 and NaN give NaN, +-0 and +inf give themselves.
TT_VMATH_INLINE float vlog1p(float x) {
  float u = 1.0f + x;
  float e, f;
  vlog_split(u, e, f);
  int32_t sb = (127 - static_cast<int32_t>(e)) << 23;  // 2^-e; e <= 126 past which it is moot
  sb = e > 126.0f ? (1 << 23) : sb;
  float scale;
  std::memcpy(&scale, &sb, 4);
  f = std::fma(x - (u - 1.0f), scale, f);
  float r = vlog_reduced(e, f);
  r = x == std::numeric_limits<float>::infinity() ? x : r;
  r = x == 0.0f ? x : r;
  r = u == 0.0f ? -std::numeric_limits<float>::infinity() : r;
  return (u < 0.0f || x != x) ? std::numeric_limits<float>::quiet_NaN() : r;
}

// tanh(x) for |x| < 0.625: Cephes' odd polynomial x + x^3 P(x^2), accurate to an ulp or two.
TT_VMATH_INLINE float tanh_small(float x) {
  float z = x * x;
  float p = horner(z, poly::kTanhSmall);
  float r = std::fma(p * z, x, x);
  return x == 0.0f ? x : r;  // the fma's exact zero product would turn -0 into +0
}

// expm1(x): below |x| = 1 as 2t / (1 - t) with t = tanh(x / 2) from Cephes' tanh polynomial (no
// cancellation near 0), above as exp(x) - 1 (none there either); both computed, one selected, so
// it vectorises. NaN passes through, +-inf give inf and -1.
TT_VMATH_INLINE float vexpm1(float x) {
  float t = tanh_small(0.5f * x);
  float small = 2.0f * t / (1.0f - t);
  float big = vexp(x) - 1.0f;
  return std::fabs(x) < 1.0f ? small : big;
}

// exp(r) for |r| <= ln(2)/2: vexp's Cephes polynomial, 1 + r + r^2 P(r), in Estrin's form (pairs,
// then powers r^2, r^4): half Horner's dependency chain, which is what bounds these loops.
TT_VMATH_INLINE float exp_poly(float r) {
  float r2 = r * r;
  const float* k = poly::kExp;
  float a = std::fma(k[0], r, k[1]);
  float b = std::fma(k[2], r, k[3]);
  float c = std::fma(k[4], r, k[5]);
  float p = std::fma(std::fma(a, r2, b), r2, c);
  return std::fma(p, r2, r) + 1.0f;
}

// tanh(x) for float: Cephes' odd polynomial below |x| = 0.625, 1 - 2 / (exp(2|x|) + 1) above,
// sign restored; both computed and one selected, so it vectorises. 2|x| is clamped to 20 (tanh
// rounds to 1 from |x| = 9.01), so exp(2|x|) = y 2^n needs none of vexp's range handling: n <= 29,
// and 2^n is built in the exponent bits in one step (vexp's clamps and two-step scaling made this
// 1.6x torch's tanh). NaN passes through.
TT_VMATH_INLINE float vtanh(float x) {
  float ax = std::fabs(x);
  float small = tanh_small(x);
  float a2 = 2.0f * (ax < 10.0f ? ax : 10.0f);
  float n = std::nearbyint(a2 * poly::kLog2e);
  float r = std::fma(n, -poly::kLn2Hi, a2);
  r = std::fma(n, -poly::kLn2Lo, r);
  int32_t bits = (static_cast<int32_t>(n) + 127) << 23;
  float scale;
  std::memcpy(&scale, &bits, 4);
  float big = 1.0f - 2.0f / std::fma(exp_poly(r), scale, 1.0f);
  big = std::copysign(big, x);
  float res = ax < poly::kTanhSmallMax ? small : big;
  return x != x ? x : res;
}

// sin / cos for float with |x| < kTrigReduced: the quadrant by x * 2/pi rounded, reduced in double
// against a two-part pi/2 (exact to far below a float ulp there), then Cephes' sinf / cosf
// polynomials on [-pi/4, pi/4]; branch-free, so the loops around them vectorise. Larger |x| (and
// NaN / inf, which come out NaN here as in libm) are recomputed with libm by the caller.
constexpr float kTrigReduced = 524288.0f;  // 2^19
template <bool Cos>
TT_VMATH_INLINE float vsincos_reduced(float xf) {
  double x = xf;
  double j = std::nearbyint(x * 0.63661977236758134308);
  double r = std::fma(j, -1.5707963267948966192, x);
  r = std::fma(j, -6.123233995736766036e-17, r);
  float rf = static_cast<float>(r), z = rf * rf;
  float sp = -1.9515295891E-4f;
  sp = std::fma(sp, z, 8.3321608736E-3f);
  sp = std::fma(sp, z, -1.6666654611E-1f);
  float sn = std::fma(sp * z, rf, rf);
  sn = xf == 0.0f ? xf : sn;  // sin(-0) = -0 (the reduction's exact zero products give +0)
  float cp = 2.443315711809948E-5f;
  cp = std::fma(cp, z, -1.388731625493765E-3f);
  cp = std::fma(cp, z, 4.166664568298827E-2f);
  float cs = std::fma(cp * z, z, std::fma(z, -0.5f, 1.0f));
  // the quadrant j mod 4 (plus one for cos), kept in floating point: AVX2 has no double -> int64
  double q = j + (Cos ? 1.0 : 0.0);
  q = q - 4.0 * std::floor(q * 0.25);
  float v = (q == 1.0 || q == 3.0) ? cs : sn;
  return q >= 2.0 ? -v : v;
}
TT_VMATH_INLINE float vsin_reduced(float x) { return vsincos_reduced<false>(x); }
TT_VMATH_INLINE float vcos_reduced(float x) { return vsincos_reduced<true>(x); }

// 1 / (1 + exp(-x)) as e / (1 + e) with e = exp(x) for x < 0: no overflow, subnormal results kept.
template <class T>
TT_VMATH_INLINE T vsigmoid(T x) {
  T e = vexp(-std::fabs(x));
  T s = T(1) / (T(1) + e);
  return x < T(0) ? e * s : s;
}

}  // inline namespace TT_VMATH_ISA
}  // namespace tt::cpu
