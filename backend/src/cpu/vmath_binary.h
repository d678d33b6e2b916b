#pragma once
// Branch-free binary float math (pow, atan2, hypot, fmod) that GCC auto-vectorises inside plain
// loops, for the binary kernels in elementwise.cpp. The float forms work in double: the extra
// 29 bits make a short polynomial good to well under 1e-9 relative, so the result rounds to the
// nearest float (at most 1 ulp off, and only near a rounding tie).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "vmath.h"

#ifndef TT_VMATH_ISA
#define TT_VMATH_ISA isa_baseline
#endif

namespace tt::cpu {
inline namespace TT_VMATH_ISA {

#define TT_VBIN_INLINE inline __attribute__((always_inline))

namespace vbin {
// the bit casts of vmath_f64.h
TT_VBIN_INLINE uint64_t bits(double x) { return f64::to_bits(x); }
using f64::from_bits;
TT_VBIN_INLINE bool signbit(double x) { return (bits(x) >> 63) != 0; }
TT_VBIN_INLINE bool signbit(float x) {
  uint32_t u;
  std::memcpy(&u, &x, 4);
  return (u >> 31) != 0;
}

// log(x) for a normal double x > 0, absolute error < 2e-12 (ample for a float result): x = m 2^e
// with m in [sqrt(1/2), sqrt(2)), log m = 2 atanh(s), s = (m - 1) / (m + 1), |s| < 0.172, a
// series in s^2 of 7 terms.
// Zero, subnormals, inf and NaN give garbage: the caller selects those.
TT_VBIN_INLINE double log_normal(double x) {
  uint64_t u = bits(x);
  uint64_t mb = (u & 0x000fffffffffffffULL) | 0x3ff0000000000000ULL;  // [1, 2)
  uint64_t ef = u >> 52;
  bool big = mb > 0x3ff6a09e667f3bcdULL;  // m > sqrt(2)
  mb = big ? mb - 0x0010000000000000ULL : mb;
  ef = big ? ef + 1 : ef;
  // exponent field to double without a 64-bit int conversion (not in AVX2): 2^52 + ef - 2^52
  double e = from_bits(0x4330000000000000ULL | ef) - 4503599627370496.0 - 1023.0;
  double f = from_bits(mb) - 1.0;
  double s = f / (2.0 + f);
  double z = s * s;
  double p = 1.0 / 13;
  p = std::fma(p, z, 1.0 / 11);
  p = std::fma(p, z, 1.0 / 9);
  p = std::fma(p, z, 1.0 / 7);
  p = std::fma(p, z, 1.0 / 5);
  p = std::fma(p, z, 1.0 / 3);
  double lm = 2.0 * s + 2.0 * s * z * p;
  return std::fma(e, 6.93147180369123816490e-01, std::fma(e, 1.90821492927058770002e-10, lm));
}

// exp(t) for |t| <= 200 (the caller clamps), relative error < 1e-11: t = n ln2 + r,
// |r| <= ln2/2, a degree-9 Taylor polynomial, 2^n from the exponent bits.
TT_VBIN_INLINE double exp_clamped(double t) {
  const double shifter = 6755399441055744.0;  // 1.5 * 2^52: adding it rounds to an integer
  double k = std::fma(t, 1.4426950408889634, shifter);
  double n = k - shifter;
  double r = std::fma(n, -6.93147180369123816490e-01, t);
  r = std::fma(n, -1.90821492927058770002e-10, r);
  double p = 1.0 / 362880;
  p = std::fma(p, r, 1.0 / 40320);
  p = std::fma(p, r, 1.0 / 5040);
  p = std::fma(p, r, 1.0 / 720);
  p = std::fma(p, r, 1.0 / 120);
  p = std::fma(p, r, 1.0 / 24);
  p = std::fma(p, r, 1.0 / 6);
  p = std::fma(p, r, 0.5);
  p = std::fma(p, r, 1.0);
  p = std::fma(p, r, 1.0);
  double scale = from_bits((bits(k) + 1023) << 52);  // low bits of k hold n
  return p * scale;
}
}  // namespace vbin

// pow(x, y) for float x > 0 finite and y finite (pow_plain): exp(y log x) in double, <= 1 ulp,
// as vpowf_exp(vpowf_log(x, y)).
// The caller sends every other pair (zeros, infinities, NaN, negative bases) to std::pow, which
// has all of C99's special cases.
TT_VBIN_INLINE bool pow_plain(float x, float y) {
  const float inf = std::numeric_limits<float>::infinity();
  return (x > 0.0f) & (x < inf) & (std::fabs(y) < inf);
}
// pow's two halves, for loops that run them as two passes over a short run (a quarter faster than
// one loop holding both polynomials in registers): t = y log x clamped, then exp(t) as a float.
TT_VBIN_INLINE double vpowf_log(float x, float y) {
  double t = static_cast<double>(y) * vbin::log_normal(static_cast<double>(x));
  return std::min(std::max(t, -200.0), 200.0);
}
TT_VBIN_INLINE float vpowf_exp(double t) { return static_cast<float>(vbin::exp_clamped(t)); }

// atan(t) for |t| <= tan(pi/8): Cephes' rational approximation (~1e-16).
TT_VBIN_INLINE double atan_small_d(double t) {
  double z = t * t;
  double p = -8.750608600031904122785E-1;
  p = std::fma(p, z, -1.615753718733365076637E1);
  p = std::fma(p, z, -7.500855792314704667340E1);
  p = std::fma(p, z, -1.228866684490136173410E2);
  p = std::fma(p, z, -6.485021904942025371773E1);
  double q = z + 2.485846490142306297962E1;
  q = std::fma(q, z, 1.650270098316988542046E2);
  q = std::fma(q, z, 4.328810604912902668951E2);
  q = std::fma(q, z, 4.853903996359136964868E2);
  q = std::fma(q, z, 1.945506571482613964425E2);
  return std::fma(t * z, p / q, t);
}

// atan2(y, x) for double (float has vatan2f) with the C99 special cases; <= 2 ulp. With a = |y|,
// b = |x|: the angle of (b, a) in [0, pi/2] from t = min/max (or (min - max)/(min + max) + pi/4 past tan(pi/8): one divide either way),
// reflected to pi/2 - angle when a > b, to pi - angle when x is negative (or -0), signed like y.
TT_VBIN_INLINE double vatan2(double y, double x) {
  const double inf = std::numeric_limits<double>::infinity();
  double a = std::fabs(y), b = std::fabs(x);
  bool both_inf = a == inf && b == inf;
  a = both_inf ? 1.0 : a;
  b = both_inf ? 1.0 : b;
  bool swap = a > b;
  double mn = swap ? b : a, mx = swap ? a : b;
  bool mid = mn > 0.41421356237309504880 * mx;
  double num = mid ? mn - mx : mn;
  double den = mid ? mn + mx : mx;
  den = mx == 0.0 ? 1.0 : den;
  double t = num / den;
  // pi/4, pi/2 and pi as hi + lo so the reflections keep the last bits
  double r = atan_small_d(t);
  r = mid ? (7.85398163397448278999e-01 + (3.06161699786838301793e-17 + r)) : r;
  r = swap ? (1.57079632679489655800e+00 - r) + 6.12323399573676603587e-17 : r;
  r = vbin::signbit(x) ? (3.14159265358979311600e+00 - r) + 1.22464679914735317723e-16 : r;
  r = vbin::signbit(y) ? -r : r;
  return (x != x || y != y) ? x + y : r;
}

// atan2 for float in float arithmetic (eight lanes per AVX2 op, twice the double form's rate):
// the same reduction as vatan2, a degree-9 odd polynomial on |t| <= tan(pi/8), pi/4, pi/2 and pi
// as hi + lo pairs; <= 2 ulp (the rounding of t dominates).
TT_VBIN_INLINE float vatan2f(float y, float x) {
  const float inf = std::numeric_limits<float>::infinity();
  float a = std::fabs(y), b = std::fabs(x);
  bool both_inf = (a == inf) & (b == inf);
  a = both_inf ? 1.0f : a;
  b = both_inf ? 1.0f : b;
  bool swap = a > b;
  float mn = swap ? b : a, mx = swap ? a : b;
  bool mid = mn > 0.41421356237309504880f * mx;
  float num = mid ? mn - mx : mn;
  float den = mid ? mn + mx : mx;
  den = mx == 0.0f ? 1.0f : den;
  float t = num / den;
  float z = t * t;
  float p = -0.0606607124209404f;  // least-squares fit of (atan t - t) / t^3 in t^2: 0.03 ulp
  p = std::fma(p, z, 0.10588572174310684f);
  p = std::fma(p, z, -0.1424274444580078f);
  p = std::fma(p, z, 0.19998423755168915f);
  p = std::fma(p, z, -0.3333331346511841f);
  float r = std::fma(p * z, t, t);
  r = mid ? 0.785398185253143310546875f + (-2.1855695e-08f + r) : r;
  r = swap ? (1.57079637050628662109375f - r) + -4.37113900018624283e-08f : r;
  r = vbin::signbit(x) ? (3.1415927410125732421875f - r) + -8.74227800037248566e-08f : r;
  r = vbin::signbit(y) ? -r : r;
  return ((x != x) | (y != y)) ? x + y : r;
}

#if defined(__AVX2__) && defined(__FMA__)
// vatan2f and vatan2 in 8 / 4 AVX2 lanes with blends: the same steps and constants, so the same
// results bit for bit. GCC's if-conversion of the scalar forms computes both sides of their selects
// (three divisions and three polynomials per vector); vmath_binary512.h has the AVX-512 forms.
TT_VBIN_INLINE __m256 vatan2f8_of(__m256 y, __m256 x) {
  const __m256 one = _mm256_set1_ps(1.0f), sign = _mm256_set1_ps(-0.0f);
  const __m256 inf = _mm256_set1_ps(std::numeric_limits<float>::infinity());
  __m256 a = _mm256_andnot_ps(sign, y), b = _mm256_andnot_ps(sign, x);
  __m256 both_inf = _mm256_and_ps(_mm256_cmp_ps(a, inf, _CMP_EQ_OQ), _mm256_cmp_ps(b, inf, _CMP_EQ_OQ));
  a = _mm256_blendv_ps(a, one, both_inf);
  b = _mm256_blendv_ps(b, one, both_inf);
  __m256 swap = _mm256_cmp_ps(a, b, _CMP_GT_OQ);
  __m256 mn = _mm256_blendv_ps(a, b, swap), mx = _mm256_blendv_ps(b, a, swap);
  __m256 mid = _mm256_cmp_ps(mn, _mm256_mul_ps(_mm256_set1_ps(0.41421356237309504880f), mx), _CMP_GT_OQ);
  __m256 num = _mm256_blendv_ps(mn, _mm256_sub_ps(mn, mx), mid);
  __m256 den = _mm256_blendv_ps(mx, _mm256_add_ps(mn, mx), mid);
  den = _mm256_blendv_ps(den, one, _mm256_cmp_ps(mx, _mm256_setzero_ps(), _CMP_EQ_OQ));
  __m256 t = _mm256_div_ps(num, den);
  __m256 z = _mm256_mul_ps(t, t);
  __m256 p = _mm256_set1_ps(-0.0606607124209404f);
  p = _mm256_fmadd_ps(p, z, _mm256_set1_ps(0.10588572174310684f));
  p = _mm256_fmadd_ps(p, z, _mm256_set1_ps(-0.1424274444580078f));
  p = _mm256_fmadd_ps(p, z, _mm256_set1_ps(0.19998423755168915f));
  p = _mm256_fmadd_ps(p, z, _mm256_set1_ps(-0.3333331346511841f));
  __m256 r = _mm256_fmadd_ps(_mm256_mul_ps(p, z), t, t);
  r = _mm256_blendv_ps(r, _mm256_add_ps(_mm256_set1_ps(0.785398185253143310546875f),
                                        _mm256_add_ps(_mm256_set1_ps(-2.1855695e-08f), r)), mid);
  r = _mm256_blendv_ps(r, _mm256_add_ps(_mm256_sub_ps(_mm256_set1_ps(1.57079637050628662109375f), r),
                                        _mm256_set1_ps(-4.37113900018624283e-08f)), swap);
  r = _mm256_blendv_ps(r, _mm256_add_ps(_mm256_sub_ps(_mm256_set1_ps(3.1415927410125732421875f), r),
                                        _mm256_set1_ps(-8.74227800037248566e-08f)), x);  // x's sign bit
  r = _mm256_xor_ps(r, _mm256_and_ps(y, sign));  // r >= 0 here: signed like y
  return _mm256_blendv_ps(r, _mm256_add_ps(x, y), _mm256_cmp_ps(x, y, _CMP_UNORD_Q));
}

TT_VBIN_INLINE __m256d vatan2d4_of(__m256d y, __m256d x) {
  const __m256d one = _mm256_set1_pd(1.0), sign = _mm256_set1_pd(-0.0);
  const __m256d inf = _mm256_set1_pd(std::numeric_limits<double>::infinity());
  __m256d a = _mm256_andnot_pd(sign, y), b = _mm256_andnot_pd(sign, x);
  __m256d both_inf = _mm256_and_pd(_mm256_cmp_pd(a, inf, _CMP_EQ_OQ), _mm256_cmp_pd(b, inf, _CMP_EQ_OQ));
  a = _mm256_blendv_pd(a, one, both_inf);
  b = _mm256_blendv_pd(b, one, both_inf);
  __m256d swap = _mm256_cmp_pd(a, b, _CMP_GT_OQ);
  __m256d mn = _mm256_blendv_pd(a, b, swap), mx = _mm256_blendv_pd(b, a, swap);
  __m256d mid = _mm256_cmp_pd(mn, _mm256_mul_pd(_mm256_set1_pd(0.41421356237309504880), mx), _CMP_GT_OQ);
  __m256d num = _mm256_blendv_pd(mn, _mm256_sub_pd(mn, mx), mid);
  __m256d den = _mm256_blendv_pd(mx, _mm256_add_pd(mn, mx), mid);
  den = _mm256_blendv_pd(den, one, _mm256_cmp_pd(mx, _mm256_setzero_pd(), _CMP_EQ_OQ));
  __m256d t = _mm256_div_pd(num, den);
  __m256d z = _mm256_mul_pd(t, t);
  __m256d p = _mm256_set1_pd(-8.750608600031904122785E-1);
  p = _mm256_fmadd_pd(p, z, _mm256_set1_pd(-1.615753718733365076637E1));
  p = _mm256_fmadd_pd(p, z, _mm256_set1_pd(-7.500855792314704667340E1));
  p = _mm256_fmadd_pd(p, z, _mm256_set1_pd(-1.228866684490136173410E2));
  p = _mm256_fmadd_pd(p, z, _mm256_set1_pd(-6.485021904942025371773E1));
  __m256d q = _mm256_add_pd(z, _mm256_set1_pd(2.485846490142306297962E1));
  q = _mm256_fmadd_pd(q, z, _mm256_set1_pd(1.650270098316988542046E2));
  q = _mm256_fmadd_pd(q, z, _mm256_set1_pd(4.328810604912902668951E2));
  q = _mm256_fmadd_pd(q, z, _mm256_set1_pd(4.853903996359136964868E2));
  q = _mm256_fmadd_pd(q, z, _mm256_set1_pd(1.945506571482613964425E2));
  __m256d r = _mm256_fmadd_pd(_mm256_mul_pd(t, z), _mm256_div_pd(p, q), t);
  r = _mm256_blendv_pd(r, _mm256_add_pd(_mm256_set1_pd(7.85398163397448278999e-01),
                                        _mm256_add_pd(_mm256_set1_pd(3.06161699786838301793e-17), r)), mid);
  r = _mm256_blendv_pd(r, _mm256_add_pd(_mm256_sub_pd(_mm256_set1_pd(1.57079632679489655800e+00), r),
                                        _mm256_set1_pd(6.12323399573676603587e-17)), swap);
  r = _mm256_blendv_pd(r, _mm256_add_pd(_mm256_sub_pd(_mm256_set1_pd(3.14159265358979311600e+00), r),
                                        _mm256_set1_pd(1.22464679914735317723e-16)), x);
  r = _mm256_xor_pd(r, _mm256_and_pd(y, sign));
  return _mm256_blendv_pd(r, _mm256_add_pd(x, y), _mm256_cmp_pd(x, y, _CMP_UNORD_Q));
}
#endif

// hypot for float: sqrt(x^2 + y^2) in double (the squares are exact); inf wins over NaN.
TT_VBIN_INLINE float vhypotf(float x, float y) {
  double dx = x, dy = y;
  float r = static_cast<float>(std::sqrt(std::fma(dx, dx, dy * dy)));
  const float inf = std::numeric_limits<float>::infinity();
  return (std::fabs(x) == inf || std::fabs(y) == inf) ? inf : r;
}

// hypot for double: both scaled by the same power of two so the larger is near 1 (no overflow or
// underflow), sqrt(fma(a, a, b b)), scaled back; ~1 ulp. inf wins over NaN.
TT_VBIN_INLINE double vhypotd(double x, double y) {
  const double inf = std::numeric_limits<double>::infinity();
  double a = std::fabs(x), b = std::fabs(y);
  double mx = a > b ? a : b;
  int64_t ef = static_cast<int64_t>(vbin::bits(mx) >> 52);
  int64_t fs = 2046 - ef;
  fs = fs < 1 ? 1 : fs;
  fs = fs > 2045 ? 2045 : fs;
  double s = vbin::from_bits(static_cast<uint64_t>(fs) << 52);
  double inv = vbin::from_bits(static_cast<uint64_t>(2046 - fs) << 52);
  double as = a * s, bs = b * s;
  double r = std::sqrt(std::fma(as, as, bs * bs)) * inv;
  r = (x != x || y != y) ? x + y : r;
  return (a == inf || b == inf) ? inf : r;
}

// fmod(x, y) when it can be had exactly without a loop: n = trunc(x / y), r = fma(-n, y, x).
// When n is the true quotient's truncation, x - n y is the (exactly representable) fmod result
// and the fma returns it exactly; when x / y rounded across an integer, x - n y has the wrong sign
// or |r| >= |y|, and rounding cannot hide either. `ok` is false then, and for every special case
// (y = 0, inf or NaN operands, |x / y| >= 2^(mantissa bits)): the caller uses std::fmod there.
template <class T>
TT_VBIN_INLINE T fmod_fast(T x, T y, bool& ok) {
  constexpr T lim = sizeof(T) == 4 ? T(8388608.0) : T(4503599627370496.0);  // 2^23 / 2^52
  T q = x / y;
  T n = std::trunc(q);
  T r = std::fma(-n, y, x);
  // bitwise & and |: no short-circuit branches, so the loop around vectorises
  ok = (std::fabs(q) < lim) & ((r == T(0)) | (((r < T(0)) == (x < T(0))) & (std::fabs(r) < std::fabs(y))));
  return std::copysign(r, x);
}

}  // inline namespace TT_VMATH_ISA
}  // namespace tt::cpu
