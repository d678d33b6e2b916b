#pragma once
// More branch-free float math for the unary kernels (exp2, log2, log10, tan, the inverse and
// hyperbolic trigonometric functions, erfc), in the style of vmath.h: plain scalar code with fma
// and selects, every branch computed and one selected, no libm call inside, so GCC vectorises
// the loops around them (at any vector width). The double versions are in vmath_f64.h (asinh
// and acosh still call libm).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "vmath.h"

namespace tt::cpu {
inline namespace TT_VMATH_ISA {

// Polynomials in Estrin's form (pairs, then powers r^2, r^4): a dependency chain of about half
// Horner's length. These loops are latency-bound (the FP scheduler holds only a few iterations),
// so the shorter chain is what makes them fast.

// log(1 + f) - f + f^2 / 2 = f^3 P(f) for f in [sqrt(1/2) - 1, sqrt(2) - 1]: vlog's Cephes P.
TT_VMATH_INLINE float log_poly(float f) {
  float f2 = f * f, f4 = f2 * f2;
  const float* k = poly::kLog;
  float p01 = std::fma(k[7], f, k[8]);
  float p23 = std::fma(k[5], f, k[6]);
  float p45 = std::fma(k[3], f, k[4]);
  float p67 = std::fma(k[1], f, k[2]);
  float lo = std::fma(p23, f2, p01);
  float hi = std::fma(k[0], f4, std::fma(p67, f2, p45));
  return std::fma(hi, f4, lo) * (f2 * f);
}

// exp(x) = y * 2^n with y in [1/sqrt(2), sqrt(2)] (vexp's Cephes polynomial and reduction), for
// callers that scale the result before it can overflow or round to a subnormal.
TT_VMATH_INLINE float vexp_parts(float x, float& n) {
  n = std::nearbyint(x * poly::kLog2e);
  float r = std::fma(n, -poly::kLn2Hi, x);
  r = std::fma(n, -poly::kLn2Lo, r);
  return exp_poly(r);
}

// y * 2^n for integral n in [-252, 254] in two exact power-of-two steps, so a subnormal or
// overflowing result is rounded once, by the last multiplication.
TT_VMATH_INLINE float vscale2(float y, float n) {
  int32_t ni = static_cast<int32_t>(n);
  int32_t n1 = ni >> 1, n2 = ni - n1;  // arithmetic shift: floor(n / 2), cheaper than n / 2
  int32_t b1 = (n1 + 127) << 23, b2 = (n2 + 127) << 23;
  float s1, s2;
  std::memcpy(&s1, &b1, 4);
  std::memcpy(&s2, &b2, 4);
  return y * s1 * s2;
}

// x with |x| clamped to `lim` on the bits (an integer min: GCC vectorises a float clamp as three
// compares and two blends); NaN becomes +-lim, callers restore it.
TT_VMATH_INLINE float clamp_abs_bits(float x, int32_t lim) {
  int32_t bits;
  std::memcpy(&bits, &x, 4);
  int32_t ab = bits & 0x7fffffff;
  ab = ab < lim ? ab : lim;
  ab |= bits & static_cast<int32_t>(0x80000000u);
  float r;
  std::memcpy(&r, &ab, 4);
  return r;
}

// exp(x) as vexp (its polynomial in Estrin's form, so within an ulp of it) with the cheaper clamp
// of clamp_abs_bits: |x| to 104 (exp(104) overflows, exp(-104) rounds to 0), NaN restored.
TT_VMATH_INLINE float vexpf(float x) {
  float n;
  float y = vexp_parts(clamp_abs_bits(x, 0x42d00000), n);  // 104.0f
  y = vscale2(y, n);
  return x != x ? x : y;
}

// 2^x: n = round(x) and 2^(x - n) (x - n exact) by Cephes' exp2f polynomial on [-1/2, 1/2];
// exact for integral x.
TT_VMATH_INLINE float vexp2(float x) {
  float xc = clamp_abs_bits(x, 0x43170000);  // 151.0f: 2^+-151 overflows / rounds to 0
  float n = std::nearbyint(xc);
  float r = xc - n;
  float p = 1.535336188319500E-4f;
  p = std::fma(p, r, 1.339887440266574E-3f);
  p = std::fma(p, r, 9.618437357674640E-3f);
  p = std::fma(p, r, 5.550332471162809E-2f);
  p = std::fma(p, r, 2.402264791363012E-1f);
  p = std::fma(p, r, 6.931472028550421E-1f);
  float y = vscale2(std::fma(p, r, 1.0f), n);
  return x != x ? x : y;
}

// log(x) split as e * ln 2 + f + y with f = m - 1, m in [sqrt(1/2), sqrt(2)) the mantissa and y
// the (small) rest of log(1 + f) (vlog's Cephes polynomial). Meaningful for finite x > 0 only;
// callers patch 0, inf, negatives and NaN. Subnormal x is scaled first unless the caller knows
// x is not subnormal (Subnormals = false: the inverse hyperbolic functions, arguments >= 1/3).
template <bool Subnormals = true>
TT_VMATH_INLINE float vlog_parts(float x, float& e, float& f) {
  int32_t bits;
  if constexpr (Subnormals) {
    bool tiny = x < 1.17549435e-38f;
    float xs = tiny ? x * 8388608.0f : x;  // 2^23
    std::memcpy(&bits, &xs, 4);
    e = static_cast<float>(((bits >> 23) & 0xff) - 126) - (tiny ? 23.0f : 0.0f);
  } else {
    std::memcpy(&bits, &x, 4);
    e = static_cast<float>(((bits >> 23) & 0xff) - 126);
  }
  int32_t mb = (bits & 0x807fffff) | 0x3f000000;  // mantissa in [0.5, 1)
  float m;
  std::memcpy(&m, &mb, 4);
  bool low = m < 0.707106781186547524f;
  e = low ? e - 1.0f : e;
  f = low ? m + m - 1.0f : m - 1.0f;
  return std::fma(f * f, -0.5f, log_poly(f));
}

// libm's answers outside the finite positive numbers: inf -> inf, 0 -> -inf, x < 0 or NaN -> NaN.
TT_VMATH_INLINE float vlog_edges(float x, float r) {
  r = x == std::numeric_limits<float>::infinity() ? x : r;
  r = x == 0.0f ? -std::numeric_limits<float>::infinity() : r;
  return (x < 0.0f || x != x) ? std::numeric_limits<float>::quiet_NaN() : r;
}

// log(x) as vlog (the same Cephes polynomial, in Estrin's form, so within an ulp of it) for the
// functions below: e ln 2 + f + y with ln 2 split so e ln 2 enters exactly.
template <bool Subnormals = true>
TT_VMATH_INLINE float vlogf(float x) {
  float e, f;
  float y = vlog_parts<Subnormals>(x, e, f);
  float r = std::fma(e, poly::kLn2Hi, f + std::fma(e, poly::kLn2Lo, y));
  return vlog_edges(x, r);
}

// log1p(x) for x > -1/2 (asinh's argument) as vlog1p (Goldberg's u = 1 + x, log(u) x / (u - 1)).
TT_VMATH_INLINE float vlog1pf(float x) {
  float u = 1.0f + x, d = u - 1.0f;
  float r = d == 0.0f ? x : vlogf<false>(u) * (x / d);  // u >= 1/2 wherever it is used
  return x == std::numeric_limits<float>::infinity() ? x : r;
}

// log2(x) = e + (f + y) log2(e), log2(e) as 1 + A so f enters exactly (Cephes' log2f order):
// exact e at powers of two.
TT_VMATH_INLINE float vlog2(float x) {
  float e, f;
  float y = vlog_parts(x, e, f);
  constexpr float A = 0.44269504088896340736f;  // log2(e) - 1
  float r = std::fma(f, A, std::fma(y, A, y));
  r = (r + f) + e;
  return vlog_edges(x, r);
}

// log10(x) = e log10(2) + (f + y) log10(e), both constants split in a short head (products with
// e exact) and a tail, small terms summed first (Cephes' log10f order, with fma).
TT_VMATH_INLINE float vlog10(float x) {
  float e, f;
  float y = vlog_parts(x, e, f);
  constexpr float L102A = 3.0078125E-1f, L102B = 2.48745663981195213739E-4f;
  constexpr float L10EA = 4.3359375E-1f, L10EB = 7.00731903251827651129E-4f;
  float r = std::fma(y, L10EB, std::fma(f, L10EB, e * L102B));
  r = std::fma(y, L10EA, r);
  r = std::fma(f, L10EA, r);
  r = std::fma(e, L102A, r);
  return vlog_edges(x, r);
}

// tan for |x| < kTrigReduced: reduced by pi/2 in double as vsincos_reduced, Cephes' tanf
// polynomial on [-pi/4, pi/4], -1/tan(r) in odd quadrants. Larger |x|, inf and NaN are the
// caller's (libm), as for sin / cos.
TT_VMATH_INLINE float vtan_reduced(float xf) {
  double x = xf;
  double j = std::nearbyint(x * 0.63661977236758134308);
  double rd = std::fma(j, -1.5707963267948966192, x);
  rd = std::fma(j, -6.123233995736766036e-17, rd);
  float r = static_cast<float>(rd), z = r * r;
  float p = 9.38540185543E-3f;
  p = std::fma(p, z, 3.11992232697E-3f);
  p = std::fma(p, z, 2.44301354525E-2f);
  p = std::fma(p, z, 5.34112807005E-2f);
  p = std::fma(p, z, 1.33387994085E-1f);
  p = std::fma(p, z, 3.33331568548E-1f);
  float t = std::fma(p * z, r, r);
  bool odd = j - 2.0 * std::floor(j * 0.5) != 0.0;
  t = xf == 0.0f ? xf : t;  // tan(-0) = -0 (the reduction gives +0)
  return odd ? -1.0f / t : t;
}

// asin kernel on [0, 1/2]: Cephes' asinf, s + s z P(z) with z = s^2 given.
TT_VMATH_INLINE float asin_small(float s, float z) {
  float p = 4.2163199048E-2f;
  p = std::fma(p, z, 2.4181311049E-2f);
  p = std::fma(p, z, 4.5470025998E-2f);
  p = std::fma(p, z, 7.4953002686E-2f);
  p = std::fma(p, z, 1.6666752422E-1f);
  return std::fma(p * z, s, s);
}

constexpr float kPio2Hi = 1.57079637050628662109375f;    // float(pi/2)
constexpr float kPio2Lo = -4.37113900018624283e-8f;      // pi/2 - kPio2Hi
constexpr float kPiHi = 3.1415927410125732421875f;       // float(pi)
constexpr float kPiLo = -8.74227800037248566e-8f;        // pi - kPiHi
constexpr float kPio4Hi = 0.785398185253143310546875f;  // float(pi/4)
constexpr float kPio4Lo = -2.18556950009312141e-8f;     // pi/4 - kPio4Hi

// asin: |x| <= 1/2 directly, above as pi/2 - 2 asin(sqrt((1 - |x|) / 2)); |x| > 1 gives NaN
// through the square root, signed zeros and NaN pass through.
TT_VMATH_INLINE float vasin(float x) {
  float a = std::fabs(x);
  bool big = a > 0.5f;
  float z = big ? 0.5f * (1.0f - a) : a * a;
  float s = big ? std::sqrt(z) : a;
  float p = asin_small(s, z);
  float r = big ? kPio2Hi - (p + p - kPio2Lo) : p;
  return std::copysign(r, x);
}

// acos: 2 asin(sqrt((1 - x) / 2)) above 1/2, pi - that below -1/2, pi/2 - asin(x) between.
TT_VMATH_INLINE float vacos(float x) {
  float a = std::fabs(x);
  bool big = a > 0.5f;
  float z = big ? 0.5f * (1.0f - a) : a * a;
  float s = big ? std::sqrt(z) : x;
  float p = asin_small(s, z);
  float r = kPio2Hi - (p - kPio2Lo);
  r = x > 0.5f ? p + p : r;
  return x < -0.5f ? kPiHi - (p + p - kPiLo) : r;
}

// atan (Cephes' atanf): |x| reduced to [0, tan(pi/8)] by -1/|x| above tan(3pi/8) (pi/2 added
// back) or (|x| - 1) / (|x| + 1) above tan(pi/8) (pi/4): one divide, selected operands.
TT_VMATH_INLINE float vatan(float x) {
  float a = std::fabs(x);
  bool big = a > 2.414213562373095f, mid = a > 0.4142135623730950f;
  float num = big ? -1.0f : a - 1.0f;
  float den = big ? a : a + 1.0f;
  float q = num / den;
  float t = mid ? q : a;
  float hi = big ? kPio2Hi : (mid ? kPio4Hi : 0.0f);
  float lo = big ? kPio2Lo : (mid ? kPio4Lo : 0.0f);
  float z = t * t;
  float p = 8.05374449538e-2f;
  p = std::fma(p, z, -1.38776856032E-1f);
  p = std::fma(p, z, 1.99777106478E-1f);
  p = std::fma(p, z, -3.33329491539E-1f);
  float r = hi + (std::fma(p * z, t, t) + lo);
  return std::copysign(r, x);
}

// exp(|x|) / 2 for sinh / cosh, scaled by 2^(n-1) so it stays finite up to sinh's own overflow.
TT_VMATH_INLINE float vexp_half(float a) {
  a = a > 90.0f ? 90.0f : a;
  float n;
  float y = vexp_parts(a, n);
  return vscale2(y, n - 1.0f);
}

// sinh: Cephes' odd polynomial below |x| = 1 (no cancellation), h - 1/(4h) with h = exp(|x|)/2
// above; sign restored.
TT_VMATH_INLINE float vsinh(float x) {
  float a = std::fabs(x);
  float z = x * x;
  float p = 2.03721912945E-4f;
  p = std::fma(p, z, 8.33028376239E-3f);
  p = std::fma(p, z, 1.66667160211E-1f);
  float small = std::fma(p * z, x, x);
  float h = vexp_half(a);
  float big = std::copysign(h - 0.25f / h, x);
  return a < 1.0f ? small : big;
}

// cosh = h + 1/(4h) with h = exp(|x|)/2.
TT_VMATH_INLINE float vcosh(float x) {
  float h = vexp_half(std::fabs(x));
  return h + 0.25f / h;
}

// asinh: Cephes' odd polynomial below |x| = 1/2, log1p(|x| + x^2 / (1 + sqrt(x^2 + 1))) up to
// 2^12 (log(|x| + sqrt(x^2 + 1)) loses ~3 ulp near 1/2), log1p(|x| - 1) + ln 2 = log(2|x|) above
// (the rest is below float precision); sign restored.
TT_VMATH_INLINE float vasinh(float x) {
  float a = std::fabs(x);
  float z = a * a;
  float p = 2.0122003309E-2f;
  p = std::fma(p, z, -4.2699340972E-2f);
  p = std::fma(p, z, 7.4847586088E-2f);
  p = std::fma(p, z, -1.6666288134E-1f);
  float small = std::fma(p * z, a, a);
  bool huge = a > 4096.0f;
  float u = huge ? a - 1.0f : a + z / (1.0f + std::sqrt(z + 1.0f));
  float big = vlog1pf(u) + (huge ? 0.693147180559945309f : 0.0f);
  return std::copysign(a < 0.5f ? small : big, x);
}

// acosh: Cephes' sqrt(2 z) P(z) for z = x - 1 < 1/2, log(x + sqrt((x - 1)(x + 1))) up to 2^12,
// log(x) + ln 2 above; x < 1 gives NaN through the square roots.
TT_VMATH_INLINE float vacosh(float x) {
  float z = x - 1.0f;
  float p = 1.7596881071E-3f;
  p = std::fma(p, z, -7.5272886713E-3f);
  p = std::fma(p, z, 2.6454905019E-2f);
  p = std::fma(p, z, -1.1784741703E-1f);
  p = std::fma(p, z, 1.4142135263E0f);
  float small = p * std::sqrt(z);
  bool huge = x > 4096.0f;
  float u = huge ? x : x + std::sqrt(z * (x + 1.0f));
  float big = vlogf<false>(u) + (huge ? 0.693147180559945309f : 0.0f);
  return z < 0.5f ? small : big;
}

// atanh: Cephes' odd polynomial below |x| = 1/2, log((1 + |x|) / (1 - |x|)) / 2 above (1 - |x|
// exact there); +-1 give +-inf, |x| > 1 NaN.
TT_VMATH_INLINE float vatanh(float x) {
  float a = std::fabs(x);
  float z = x * x;
  float p = 1.81740078349E-1f;
  p = std::fma(p, z, 8.24370301058E-2f);
  p = std::fma(p, z, 1.46691431730E-1f);
  p = std::fma(p, z, 1.99782164500E-1f);
  p = std::fma(p, z, 3.33337300303E-1f);
  float small = std::fma(p * z, x, x);
  float big = std::copysign(0.5f * vlogf<false>((1.0f + a) / (1.0f - a)), x);
  return a < 0.5f ? small : big;
}

// erfc(x) = exp(-x^2) t h(t) for |x|, t = 1 / (1 + |x| / 2), h a degree-10 polynomial (a relative
// least-squares fit of erfc(x) exp(x^2) / t on |x| in [0, 10.1], 3.5e-9), 2 - that for x < 0. t
// and h in double (in float, their roundings alone cost ~5 ulp), t h rounded once to float; x^2
// split exactly (hi + lo) and reduced by ln 2 as in vexp (lo folded into the reduced argument), so
// exp(-x^2) is as accurate as vexp; the 2^n scaling last, in two exact steps (results in the
// subnormal range round once more; erfc is 0 in float from 10.06). No cancellation anywhere; NaN
// passes through (the clamp compares false).
TT_VMATH_INLINE float verfc(float x) {
  float af = std::fabs(x);
  af = af > 10.5f ? 10.5f : af;
  double a = af, d = std::fma(0.5, a, 1.0);
  double t = 1.0 / d;  // a double divide: a shorter chain than a float one refined by Newton
  double t2 = t * t, t4 = t2 * t2, t8 = t4 * t4;
  double h01 = std::fma(0.28225803761758894, t, 0.2820882782784893);
  double h23 = std::fma(0.18591513652398967, t, 0.2451227507801389);
  double h45 = std::fma(0.038106136712994614, t, 0.053733193439030165);
  double h67 = std::fma(-0.28512004791462825, t, -0.02622720914162175);
  double h89 = std::fma(-0.1898878453424827, t, 0.3784373484450425);
  double h03 = std::fma(h23, t2, h01), h47 = std::fma(h67, t2, h45);
  double h8a = std::fma(0.03557422404627435, t2, h89);
  double h = std::fma(h8a, t8, std::fma(h47, t4, h03));
  float m = static_cast<float>(t * h);
  float hi = af * af, lo = std::fma(af, af, -hi);
  float n = std::nearbyint(hi * -1.44269504088896341f);
  float r = std::fma(n, -0.693359375f, -hi);  // exact (Cody-Waite head)
  r = std::fma(n, 2.12194440e-4f, r) - lo;
  float e = vscale2(exp_poly(r) * m, n);
  return x < 0.0f ? 2.0f - e : e;
}

// c ? a : b on the bits: GCC sinks a plain select on a polynomial's input into two copies of the
// polynomial and a blend of their results; a mask select it leaves alone.
TT_VMATH_INLINE float vselect(bool c, float a, float b) {
  uint32_t ua, ub;
  std::memcpy(&ua, &a, 4);
  std::memcpy(&ub, &b, 4);
  uint32_t m = 0u - static_cast<uint32_t>(c);
  uint32_t r = (ua & m) | (ub & ~m);
  float out;
  std::memcpy(&out, &r, 4);
  return out;
}

// log1p(e) for e in [0, 1] (softplus, logsigmoid: e = exp(-|x|)) without vlog1p's divide: below
// sqrt(2) - 1, f = e exactly; above, 1 + e = 2 (1 + f) with f = (e - 1) / 2 (one rounding, 2^-26
// absolute). Then vlog's polynomial on f in [sqrt(1/2) - 1, sqrt(2) - 1], k ln 2 added.
TT_VMATH_INLINE float vlog1p_unit(float e) {
  bool up = e > 0.41421356237309505f;
  float f = vselect(up, std::fma(e, 0.5f, -0.5f), e);
  float y = log_poly(f) + std::fma(f * f, -0.5f, f);
  return up ? y + 0.693147180559945309f : y;
}

// exp(-|x|) for softplus / logsigmoid: |x| clamped to 104 on the bits, no NaN restore (NaN comes
// out as a number here; the callers' final selects pass x's NaN through instead).
TT_VMATH_INLINE float vexp_negabs(float x) {
  int32_t bits;
  std::memcpy(&bits, &x, 4);
  int32_t ab = bits & 0x7fffffff;
  ab = (ab < 0x42d00000 ? ab : 0x42d00000) | static_cast<int32_t>(0x80000000u);  // 104.0f
  float xc;
  std::memcpy(&xc, &ab, 4);
  float n;
  float y = vexp_parts(xc, n);
  return vscale2(y, n);
}

// softplus(x) = log(1 + exp(x)) = max(x, 0) + log1p(exp(-|x|)), x itself above 20 (torch's
// threshold). NaN passes through.
TT_VMATH_INLINE float vsoftplus(float x) {
  float r = (x > 0.0f ? x : 0.0f) + vlog1p_unit(vexp_negabs(x));
  return x <= 20.0f ? r : x;  // NaN: x
}
inline double vsoftplus(double x) { return x > 20.0 ? x : vlog1p(vexp(x)); }

// logsigmoid(x) = min(x, 0) - log1p(exp(-|x|)).
TT_VMATH_INLINE float vlogsigmoid(float x) {
  return (x >= 0.0f ? 0.0f : x) - vlog1p_unit(vexp_negabs(x));  // NaN: x - ...
}
inline double vlogsigmoid(double x) { return (x < 0.0 ? x : 0.0) - vlog1p(vexp(-std::fabs(x))); }

// mish(x) = x tanh(softplus(x)) = x w / (w + 2) with w = n (n + 2), n = exp(x): tanh(log(1 + n))
// written out, one exp and one divide, no cancellation (n small: w / (w + 2) ~ n). Above x = 20
// the factor is 1 in float (n clamped there so w stays finite).
TT_VMATH_INLINE float vmish(float x) {
  float n = vexpf(x > 20.0f ? 20.0f : x);
  float w = std::fma(n, n, n + n);  // n (n + 2) rounded once
  return x * (w / (w + 2.0f));
}
inline double vmish(double x) { return x * vtanh(vsoftplus(x)); }

}  // inline namespace TT_VMATH_ISA
}  // namespace tt::cpu
