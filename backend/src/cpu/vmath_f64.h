#pragma once
// Branch-free double-precision math that GCC auto-vectorises inside plain loops (included from
// vmath.h, which defines TT_VMATH_INLINE).
//
// Every function is plain scalar code: fma, selects (?:) and bit casts, no calls into libm, no
// intrinsics, so the same source vectorises for AVX2 and AVX-512 alike. AVX2 has no double <->
// int64 conversion and no 64-bit arithmetic shift, so integers never leave floating point: 2^n
// is built by adding n to 0x1.8p52 (n lands in the low mantissa bits) and shifting those bits
// into the exponent field (pow2i), and an exponent field is read back by OR-ing it into the
// mantissa of 2^52 and subtracting 2^52.
//
// Accuracy against the correctly rounded result, measured over dense grids of the whole double
// range (tests/backend/test_vmath_f64.py checks them): vexp, vexp2, vexpm1, vlog, vlog2, vlog10,
// vlog1p, verf, vsin/vcos/vtan_reduced, vatan, vasin, vacos < 1 ulp (max seen 0.98); vtanh, vcosh
// < 1.5 ulp (max seen 1.38); vsinh, vatanh, vasinh, vacosh < 2 ulp (1.60, 1.69, 1.16, 1.04);
// verfc < 3 ulp (2.7, just below 1.25, where fdlibm's (1 - erx) - P/Q cancels; glibc's erfc is 4
// ulp off there).
// Special values (NaN, +-inf, +-0, the domain edges) come out as libm gives them.
//
// The polynomials and rational approximations are the published ones: Sleef's exp kernel,
// Cephes' tanh rational, and fdlibm's log, erf / erfc, atan, asin / acos, asinh / acosh (the
// argument forms) and sin/cos kernels, whose notice is preserved here as it asks:
//   Copyright (C) 1993 by Sun Microsystems, Inc. All rights reserved.
//   Developed at SunPro, a Sun Microsystems, Inc. business.
//   Permission to use, copy, modify, and distribute this software is freely granted, provided
//   that this notice is preserved.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#ifndef TT_VMATH_INLINE
#define TT_VMATH_INLINE inline __attribute__((always_inline))
#endif
#ifndef TT_VMATH_ISA  // the per-instruction-set inline namespace: see vmath.h
#define TT_VMATH_ISA isa_baseline
#endif

namespace tt::cpu {
inline namespace TT_VMATH_ISA {

namespace f64 {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kLog2e = 1.4426950408889634074;
// ln 2 in two parts for Cody-Waite reduction: n * kLn2Hi is exact for |n| < 2^11 (Sleef's L2U/L2L)
constexpr double kLn2Hi = .69314718055966295651160180568695068359375;
constexpr double kLn2Lo = .28235290563031577122588448175013436025525412068e-12;

TT_VMATH_INLINE double from_bits(uint64_t b) {
  double d;
  std::memcpy(&d, &b, 8);
  return d;
}
TT_VMATH_INLINE uint64_t to_bits(double d) {
  uint64_t b;
  std::memcpy(&b, &d, 8);
  return b;
}

// 2^n for integer-valued n in [-1022, 1023]: n + 1023 in the low bits of 0x1.8p52 + n + 1023,
// shifted into the exponent field (the 0x1.8p52 bits shift out).
TT_VMATH_INLINE double pow2i(double n) {
  return from_bits(to_bits(n + 6755399441056767.0) << 52);  // 0x1.8p52 + 1023
}

// expm1(s) for |s| <= ln2 / 2 (plus rounding slack): s + s^2 P(s), Sleef's minimax coefficients
// for exp; the result is rounded once (the final fma).
TT_VMATH_INLINE double expm1_p(double s) {
  double u = 2.08860621107283687536341e-09;
  u = std::fma(u, s, 2.51112930892876518610661e-08);
  u = std::fma(u, s, 2.75573911234900471893338e-07);
  u = std::fma(u, s, 2.75572362911928827629423e-06);
  u = std::fma(u, s, 2.4801587159235472998791e-05);
  u = std::fma(u, s, 0.000198412698960509205564975);
  u = std::fma(u, s, 0.00138888888889774492207962);
  u = std::fma(u, s, 0.00833333333331652721664984);
  u = std::fma(u, s, 0.0416666666666665047591422);
  u = std::fma(u, s, 0.166666666666666851703837);
  u = std::fma(u, s, 0.5);
  return u;
}
TT_VMATH_INLINE double expm1_poly(double s) { return std::fma(s * s, expm1_p(s), s); }

// expm1_poly's polynomial by Estrin's scheme: a shorter dependency chain for a few more
// multiplies, for callers that are latency-bound (verf).
TT_VMATH_INLINE double expm1_poly_estrin(double s) {
  double s2 = s * s, s4 = s2 * s2, s8 = s4 * s4;
  double c01 = std::fma(s, 0.166666666666666851703837, 0.5);
  double c23 = std::fma(s, 0.00833333333331652721664984, 0.0416666666666665047591422);
  double c45 = std::fma(s, 0.000198412698960509205564975, 0.00138888888889774492207962);
  double c67 = std::fma(s, 2.75572362911928827629423e-06, 2.4801587159235472998791e-05);
  double c89 = std::fma(s, 2.51112930892876518610661e-08, 2.75573911234900471893338e-07);
  double c10 = 2.08860621107283687536341e-09;
  double u = std::fma(s8, std::fma(s2, c10, c89),
                      std::fma(s4, std::fma(s2, c67, c45), std::fma(s2, c23, c01)));
  return std::fma(s2, u, s);
}

// exp(a + b) for a + b in about [-700, 700] (2^n normal) and |b| < 1: b joins after the
// reduction of a (exact), so it keeps its precision. Used by verf.
TT_VMATH_INLINE double exp_hilo(double a, double b) {
  double n = std::nearbyint((a + b) * kLog2e);
  double s = std::fma(n, -kLn2Hi, a);
  s = std::fma(n, -kLn2Lo, s) + b;
  double p = expm1_poly_estrin(s);
  double s1 = pow2i(n);
  return std::fma(s1, p, s1);
}

// a + b = s + err exactly (Knuth's TwoSum, no ordering needed); returns err.
TT_VMATH_INLINE double two_sum_err(double a, double b, double s) {
  double bb = s - a;
  return (a - (s - bb)) + (b - bb);
}

// expm1(s) for |s| <= ln2 / 2 as s + q, q = s^2 P(s) (the same polynomial, left unrounded).
TT_VMATH_INLINE double expm1_poly_tail(double s) { return (s * s) * expm1_p(s); }

// expm1 for x in [-40, 710] given n = round(x / ln 2) <= 1024: (2^n - 1) + 2^n s + 2^n q with the
// first two summed exactly (TwoSum; 2^n - 1 is exact wherever it is not negligible), one rounding.
// (n = 1024 is reduced with n but scaled by 2^1023; the caller doubles the result.)
// The reduced argument stays as sh + sl (sh = x - n ln2_hi is exact): its rounding would be
// scaled by 2^n against a result that can be smaller than 2^n s.
TT_VMATH_INLINE double expm1_core(double x, double n) {
  double sh = std::fma(n, -kLn2Hi, x);
  double sl = n * -kLn2Lo;
  double q = expm1_poly_tail(sh + sl);
  double s1 = pow2i(n > 1023.0 ? 1023.0 : n);
  double a = s1 - 1.0, b = s1 * sh;
  double a_err = (s1 - a) - 1.0;  // exact: Fast2Sum for n >= 0, 0 for -53 <= n < 0
  double hi = a + b;
  double err = two_sum_err(a, b, hi) + a_err;
  return hi + std::fma(s1, q + sl, err);
}

// x = 2^e (1 + f) for normal or subnormal x >= 0, 1 + f in [sqrt(1/2), sqrt(2)), and the parts of
// fdlibm's __ieee754_log kernel: log(1 + f) = f - hfsq + sr with hfsq = f^2 / 2,
// sr = s (hfsq + R(s^2)), s = f / (2 + f). No special values.
TT_VMATH_INLINE void log_parts(double x, double& e, double& f, double& hfsq, double& sr) {
  bool tiny = x < 2.2250738585072014e-308;             // subnormal: scale into the normal range
  double xs = tiny ? x * 18014398509481984.0 : x;      // 2^54
  uint64_t bits = to_bits(xs);
  // the biased exponent as a double: OR it into the mantissa of 2^52, subtract 2^52 (+ 1022)
  e = from_bits((bits >> 52) | 0x4330000000000000ULL) - 4503599627371518.0;
  e = tiny ? e - 54.0 : e;
  double m = from_bits((bits & 0x000fffffffffffffULL) | 0x3fe0000000000000ULL);  // [0.5, 1)
  bool low = m < 0.70710678118654752440;
  e = low ? e - 1.0 : e;
  f = low ? m + m - 1.0 : m - 1.0;  // both exact
  double s = f / (2.0 + f);
  double z = s * s, w = z * z;
  double t1 = w * std::fma(w, std::fma(w, 1.531383769920937332e-01, 2.222219843214978396e-01),
                           3.999999999940941908e-01);
  double t2 = z * std::fma(w, std::fma(w, std::fma(w, 1.479819860511658591e-01, 1.818357216161805012e-01),
                                       2.857142874366239149e-01),
                           6.666666666666735130e-01);
  hfsq = 0.5 * f * f;
  sr = s * (hfsq + (t2 + t1));
}

// log(x) + c (c: log1p's rounding correction, |c| << ulp), without the special values.
TT_VMATH_INLINE double log_core(double x, double c) {
  double e, f, hfsq, sr;
  log_parts(x, e, f, hfsq, sr);
  constexpr double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;
  return e * ln2_hi - ((hfsq - (sr + std::fma(e, ln2_lo, c))) - f);
}

// e * k + log(1 + f) * m for log2 / log10, with k = log_b(2) as kh + kl (kh * e exact) and
// m = 1 / ln(b) as mh + ml: log(1 + f) is carried as hi + lo (hi = f - hfsq, lo its exact
// rounding error plus sr; FreeBSD's e_log2.c / e_log10.c, with fma for the products).
TT_VMATH_INLINE double log_base_core(double x, double kh, double kl, double mh, double ml) {
  double e, f, hfsq, sr;
  log_parts(x, e, f, hfsq, sr);
  double hi = f - hfsq;
  double lo = ((f - hi) - hfsq) + sr;  // f - hi and the subtraction of hfsq are exact
  double vh = hi * mh;
  double vl = std::fma(hi, mh, -vh) + std::fma(lo, mh, std::fma(hi + lo, ml, e * kl));
  double y = e * kh;
  double w = y + vh;
  vl += (y - w) + vh;  // Fast2Sum: |y| >= 0.3 > |vh| unless y = 0
  return w + vl;
}

// fdlibm's __kernel_sin / __kernel_cos (FreeBSD's branch-free forms) on hi + lo, |hi| <~ pi/4.
TT_VMATH_INLINE double kernel_sin(double x, double y) {
  double z = x * x, w = z * z;
  double r = std::fma(z, std::fma(z, 2.75573137070700676789e-06, -1.98412698298579493134e-04),
                      8.33333333332248946124e-03) +
             z * w * std::fma(z, 1.58969099521155010221e-10, -2.50507602534068634195e-08);
  double v = z * x;
  return x - ((z * (0.5 * y - v * r) - y) - v * -1.66666666666666324348e-01);
}
TT_VMATH_INLINE double kernel_cos(double x, double y) {
  double z = x * x, w = z * z;
  double r = z * std::fma(z, std::fma(z, 2.48015872894767294178e-05, -1.38888888888741095749e-03),
                          4.16666666666666019037e-02) +
             w * w * std::fma(z, std::fma(z, -1.13596475577881948265e-11, 2.08757232129817482790e-09),
                              -2.75573143513906633035e-07);
  double hz = 0.5 * z;
  double one_m = 1.0 - hz;
  return one_m + (((1.0 - one_m) - hz) + (z * r - x * y));
}

// fdlibm's erf rational for |x| < 0.84375, erf(x) = x + x pp(z) / qq(z) with z = x^2 (erfc uses
// it on the same range).
TT_VMATH_INLINE void erf_small_pq(double z, double& pp, double& qq) {
  pp = std::fma(z, std::fma(z, std::fma(z, std::fma(z, -2.37630166566501626084e-05,
                                                           -5.77027029648944159157e-03),
                                               -2.84817495755985104766e-02),
                                   -3.25042107247001499370e-01),
                       1.28379167095512558561e-01);
  qq = std::fma(z, std::fma(z, std::fma(z, std::fma(z, std::fma(z, -3.96022827877536812320e-06,
                                                                       1.32494738004321644526e-04),
                                                           5.08130628187576562776e-03),
                                               6.50222499887672944485e-02),
                                   3.97917223959155352819e-01),
                       1.0);
}

}  // namespace f64

// exp(x), < 1 ulp: Cody-Waite reduction by ln 2, Sleef's polynomial, 2^n applied in two halves so
// subnormal results (one rounding after an exact scaling) and overflow to inf come out right.
// NaN passes through the clamps (comparisons with NaN are false).
TT_VMATH_INLINE double vexp(double x) {
  x = x < -746.0 ? -746.0 : x;  // exp(-746) rounds to 0, exp(710) overflows
  x = x > 710.0 ? 710.0 : x;
  double n = std::nearbyint(x * f64::kLog2e);  // [-1076, 1024]
  double s = std::fma(n, -f64::kLn2Hi, x);
  s = std::fma(n, -f64::kLn2Lo, s);
  double p = f64::expm1_poly(s);
  double n1 = std::floor(n * 0.5);
  double s1 = f64::pow2i(n1), s2 = f64::pow2i(n - n1);
  return std::fma(s1, p, s1) * s2;
}

// exp2(x), < 1 ulp: n = round(x), r = x - n exact, exp(r ln 2) with r ln 2 carried as hi + lo,
// 1 + r ln 2 summed exactly, then vexp's two-step scaling.
TT_VMATH_INLINE double vexp2(double x) {
  x = x < -1080.0 ? -1080.0 : x;
  x = x > 1025.0 ? 1025.0 : x;
  double n = std::nearbyint(x);
  double r = x - n;
  constexpr double ln2 = 0.69314718055994528623, ln2_lo = 2.3190468138462995584e-17;
  double sh = r * ln2;
  double sl = std::fma(r, ln2, -sh) + r * ln2_lo;
  double q = f64::expm1_poly_tail(sh);  // expm1(sh) = sh + q
  double n1 = std::floor(n * 0.5);
  double s1 = f64::pow2i(n1), s2 = f64::pow2i(n - n1);
  // s1 (1 + sh + q + sl (1 + sh)) with s1 + s1 sh summed exactly: one rounding before s2
  double b = s1 * sh;
  double hi = s1 + b;
  double err = f64::two_sum_err(s1, b, hi);
  return (hi + std::fma(s1, q + std::fma(sl, sh, sl), err)) * s2;
}

// expm1(x), < 1 ulp: 2^n expm1(s) + (2^n - 1) in one fma (2^n - 1 is exact for the n where it
// matters); n = 1024 (x > 709.4) applies the last factor 2 separately. -0 stays -0.
TT_VMATH_INLINE double vexpm1(double x) {
  double xc = x < -40.0 ? -40.0 : x;  // expm1(-40) rounds to -1
  xc = xc > 710.0 ? 710.0 : xc;
  double n = std::nearbyint(xc * f64::kLog2e);  // [-58, 1024]
  bool top = n > 1023.0;
  double r = f64::expm1_core(xc, n);
  r = top ? r * 2.0 : r;
  return x == 0.0 ? x : r;
}

// log(x), < 1 ulp (fdlibm's kernel): x < 0 and NaN give NaN, +-0 gives -inf, inf gives inf.
TT_VMATH_INLINE double vlog(double x) {
  double r = f64::log_core(x, 0.0);
  r = x == f64::kInf ? x : r;
  r = x == 0.0 ? -f64::kInf : r;
  return (x < 0.0 || x != x) ? f64::kNaN : r;
}

// log2(x) and log10(x), < 1 ulp, special values as vlog.
TT_VMATH_INLINE double vlog2(double x) {
  double r = f64::log_base_core(x, 1.0, 0.0, 1.4426950408889634074, 2.0355273740931033e-17);
  r = x == f64::kInf ? x : r;
  r = x == 0.0 ? -f64::kInf : r;
  return (x < 0.0 || x != x) ? f64::kNaN : r;
}
TT_VMATH_INLINE double vlog10(double x) {
  double r = f64::log_base_core(x, 3.01029995663611771306e-01, 3.69423907715893078616e-13,
                                0.43429448190325182765, 1.0983196502167651e-17);
  r = x == f64::kInf ? x : r;
  r = x == 0.0 ? -f64::kInf : r;
  return (x < 0.0 || x != x) ? f64::kNaN : r;
}

// log1p(x), < 1 ulp: u = 1 + x rounded, c its exact rounding error (Fast2Sum, larger operand
// first), log1p(x) = log(u) + c / u to well below an ulp. -1 gives -inf, below it NaN, +-0 stay.
TT_VMATH_INLINE double vlog1p(double x) {
  double u = 1.0 + x;
  double c = std::fabs(x) < 1.0 ? x - (u - 1.0) : 1.0 - (u - x);
  double r = f64::log_core(u, c / u);
  r = x == f64::kInf ? x : r;
  r = u == 0.0 ? -f64::kInf : r;
  r = (u < 0.0 || x != x) ? f64::kNaN : r;
  return x == 0.0 ? x : r;
}

// tanh(x), < 1.5 ulp: below |x| = 0.625 Cephes' rational x + x z P(z) / Q(z), z = x^2; above,
// 1 - 2 / (e + 2) with e = expm1(2|x|) and the sign restored (|x| > 20 is +-1 in double); both
// computed, one selected. NaN passes through, +-0 stay.
TT_VMATH_INLINE double vtanh(double x) {
  double z = x * x;
  double p = std::fma(std::fma(z, -9.64399179425052238628e-1, -9.92877231001918586564e1), z,
                      -1.61468768441708447952e3);
  double q = std::fma(std::fma(z + 1.12811678491632931402e2, z, 2.23548839060100448583e3), z,
                      4.84406305325125486048e3);
  double small = std::fma(x, z * p / q, x);
  double ax = std::fabs(x);
  ax = ax > 20.0 ? 20.0 : ax;
  double y = 2.0 * ax;
  double e = f64::expm1_core(y, std::nearbyint(y * f64::kLog2e));
  double big = std::copysign(1.0 - 2.0 / (e + 2.0), x);
  return ax < 0.625 ? (x == 0.0 ? x : small) : big;  // fma(-0, -0, -0) is +0
}

// erf(x), < 1 ulp: fdlibm's ranges, one rational P(t)/Q(t) whose coefficients are selected per
// lane for the two ranges above 0.84375 (t = |x| - 1 below 1.25, 1/x^2 above), plus the small-|x|
// rational x + x R(x^2). Above 1.25, erf = 1 - exp(-x^2 - 0.5625 + P/Q) / |x| with x^2
// carried as hi + lo. |x| >= 6 is +-1; NaN passes through.
TT_VMATH_INLINE double verf(double x) {
  double ax = std::fabs(x);
  // |x| < 0.84375: x + x pp(z) / qq(z), z = x^2 (divided below, with the other range's P / Q)
  double z = x * x;
  double pp, qq;
  f64::erf_small_pq(z, pp, qq);
  // 0.84375 <= |x| < 6: P(t) / Q(t) with per-range coefficients, one select each (mid: fdlibm's
  // pa/qa on t = |x| - 1; far: ra/sa on t = 1/x^2, fitted on [1.25, 2.857] but good to < 0.1 ulp
  // of erf up to 6, which saves fdlibm's third range)
  bool mid = ax < 1.25;
  double ia = 1.0 / ax;
  double t = mid ? ax - 1.0 : ia * ia;
  // Estrin's scheme (pairs, then t^2, then t^4): erf is latency-bound with Horner's long chains
  double t2 = t * t, t4 = t2 * t2;
  double p01 = std::fma(t, mid ? 4.14856118683748331666e-01 : -6.93858572707181764372e-01,
                        mid ? -2.36211856075265944077e-03 : -9.86494403484714822705e-03);
  double p23 = std::fma(t, mid ? 3.18346619901161753674e-01 : -6.23753324503260060396e+01,
                        mid ? -3.72207876035701323847e-01 : -1.05586262253232909814e+01);
  double p45 = std::fma(t, mid ? 3.54783043256182359371e-02 : -1.84605092906711035994e+02,
                        mid ? -1.10894694282396677476e-01 : -1.62396669462573470355e+02);
  double p67 = std::fma(t, mid ? 0.0 : -9.81432934416914548592e+00,
                        mid ? -2.16637559486879084300e-03 : -8.12874355063065934246e+01);
  double p = std::fma(t4, std::fma(t2, p67, p45), std::fma(t2, p23, p01));
  double q01 = std::fma(t, mid ? 1.06420880400844228286e-01 : 1.96512716674392571292e+01, 1.0);
  double q23 = std::fma(t, mid ? 7.18286544141962662868e-02 : 4.34565877475229228821e+02,
                        mid ? 5.40397917702171048937e-01 : 1.37657754143519042600e+02);
  double q45 = std::fma(t, mid ? 1.36370839120290507362e-02 : 4.29008140027567833386e+02,
                        mid ? 1.26171219808761642112e-01 : 6.45387271733267880336e+02);
  double q67 = std::fma(t, mid ? 0.0 : 6.57024977031928170135e+00,
                        mid ? 1.19844998467991074170e-02 : 1.08635005541779435134e+02);
  double q8 = mid ? 0.0 : -6.04244152148580987438e-02;
  double q = std::fma(t4, std::fma(t4, q8, std::fma(t2, q67, q45)), std::fma(t2, q23, q01));
  bool small = ax < 0.84375;
  double ratio = (small ? pp : p) / (small ? qq : q);  // one division for both rationals
  double erf_mid = 8.45062911510467529297e-01 + ratio;  // erx = erf(1) rounded to float
  // exp(-0.5625) as a constant factor: its rounding shrinks with erfc in 1 - erfc; keeping x^2
  // as hi + lo makes the argument exact (written so that fp contraction cannot fuse hi away)
  double hi = ax * ax, lo = std::fma(ax, ax, -hi);
  double erfc = f64::exp_hilo(-hi, ratio - lo) * (ia * 0.56978282473092300977);
  double big = mid ? erf_mid : 1.0 - erfc;
  big = ax >= 6.0 ? 1.0 : big;
  big = std::copysign(big, x);
  return small ? std::fma(x, ratio, x) : big;
}

// sin / cos for |x| < kTrigReduced64, < 1 ulp: the quadrant j = round(x 2/pi), x - j pi/2
// against pi/2 in three 33-bit parts and a tail (fdlibm's pio2_1..pio2_3t: each j * part is exact
// for |j| < 2^20, the sums carried as hi + lo with TwoSum, ~150 bits of pi/2, enough for the
// closest approach of a double to a multiple of pi/2), then fdlibm's kernels on hi + lo. Larger
// |x| (and NaN / inf) are recomputed with libm by the caller.
constexpr double kTrigReduced64 = 1048576.0;  // 2^20
template <bool Cos>
TT_VMATH_INLINE double vsincos_reduced(double x) {
  double j = std::nearbyint(x * 0.63661977236758134308);
  double t1 = std::fma(j, -1.57079632673412561417e+00, x);  // exact (Sterbenz)
  double w = j * 6.07710050630396597660e-11;                 // exact
  double a = t1 - w;
  double e1 = f64::two_sum_err(t1, -w, a);
  double v = j * 2.02226624871116645580e-21;  // exact
  double b = a - v;
  double e2 = f64::two_sum_err(a, -v, b);
  double lo = std::fma(j, -8.47842766036889956997e-32, e1 + e2);
  double hi = b + lo;
  lo = (b - hi) + lo;
  double sn = f64::kernel_sin(hi, lo);
  double cs = f64::kernel_cos(hi, lo);
  // the quadrant j mod 4 (plus one for cos), kept in floating point: AVX2 has no double -> int64
  double qd = j + (Cos ? 1.0 : 0.0);
  qd = qd - 4.0 * std::floor(qd * 0.25);
  double r = (qd == 1.0 || qd == 3.0) ? cs : sn;
  r = qd >= 2.0 ? -r : r;
  return (!Cos && x == 0.0) ? x : r;  // sin(-0) = -0
}
TT_VMATH_INLINE double vsin_reduced(double x) { return vsincos_reduced<false>(x); }
TT_VMATH_INLINE double vcos_reduced(double x) { return vsincos_reduced<true>(x); }


// tan for |x| < kTrigReduced64, < 1 ulp: vsincos_reduced's reduction, fdlibm's sin / cos kernels
// with their results left as head + tail (sin = hi + ts, cos = (1 - z/2) + tc), and the quotient
// (cos / -sin in the odd quadrants) q = n / d corrected by its residual: one division. Larger |x|
// (and NaN / inf) are recomputed with libm by the caller (trig_span).
TT_VMATH_INLINE double vtan_reduced(double x) {
  double j = std::nearbyint(x * 0.63661977236758134308);
  double t1 = std::fma(j, -1.57079632673412561417e+00, x);
  double w = j * 6.07710050630396597660e-11;
  double a = t1 - w;
  double e1 = f64::two_sum_err(t1, -w, a);
  double v = j * 2.02226624871116645580e-21;
  double b = a - v;
  double e2 = f64::two_sum_err(a, -v, b);
  double lo = std::fma(j, -8.47842766036889956997e-32, e1 + e2);
  double hi = b + lo;
  lo = (b - hi) + lo;
  double z = hi * hi, zw = z * z;
  // kernel_sin: hi + ts
  double rs = std::fma(z, std::fma(z, 2.75573137070700676789e-06, -1.98412698298579493134e-04),
                       8.33333333332248946124e-03) +
              z * zw * std::fma(z, 1.58969099521155010221e-10, -2.50507602534068634195e-08);
  double vs = z * hi;
  double ts = -((z * (0.5 * lo - vs * rs) - lo) - vs * -1.66666666666666324348e-01);
  // kernel_cos: ch + tc
  double rc = z * std::fma(z, std::fma(z, 2.48015872894767294178e-05, -1.38888888888741095749e-03),
                           4.16666666666666019037e-02) +
              zw * zw * std::fma(z, std::fma(z, -1.13596475577881948265e-11, 2.08757232129817482790e-09),
                                 -2.75573143513906633035e-07);
  double hz = 0.5 * z;
  double ch = 1.0 - hz;
  double tc = ((1.0 - ch) - hz) + (z * rc - hi * lo);
  bool odd = j - 2.0 * std::floor(j * 0.5) != 0.0;
  double nh = odd ? -ch : hi, nl = odd ? -tc : ts;
  double dh = odd ? hi : ch, dl = odd ? ts : tc;
  double n = nh + nl, d = dh + dl;
  double inv = 1.0 / d;
  double q = n * inv;
  double res = std::fma(-q, dh, nh) + (nl - q * dl);  // n - q d, to well below ulp(n)
  double r = std::fma(res, inv, q);
  return x == 0.0 ? x : r;  // tan(-0) = -0
}

namespace f64 {
// exp(a) / 2 for a in [0, 711] (inf above sinh's overflow threshold): vexp with 2^(n-1) applied
// in two halves, so it stays finite up to 710.47. NaN passes through.
TT_VMATH_INLINE double exp_half(double a) {
  a = a > 711.0 ? 711.0 : a;
  double n = std::nearbyint(a * kLog2e);  // <= 1026
  double s = std::fma(n, -kLn2Hi, a);
  s = std::fma(n, -kLn2Lo, s);
  double p = expm1_poly(s);
  double m = n - 1.0;
  double n1 = std::floor(m * 0.5);
  double s1 = pow2i(n1), s2 = pow2i(m - n1);
  return std::fma(s1, p, s1) * s2;
}
}  // namespace f64

// sinh: below |x| = 1 the Taylor series x + x z P(z), z = x^2 (through x^19 / 19!, no
// cancellation); above, h - 1 / (4h) with h = exp(|x|) / 2, sign restored. Overflows where libm does.
TT_VMATH_INLINE double vsinh(double x) {
  double a = std::fabs(x);
  double z = x * x, z2 = z * z, z4 = z2 * z2;
  double c01 = std::fma(z, 1.0 / 5040.0, 1.0 / 120.0);
  double c23 = std::fma(z, 1.0 / 39916800.0, 1.0 / 362880.0);
  double c45 = std::fma(z, 1.0 / 1307674368000.0, 1.0 / 6227020800.0);
  double c67 = std::fma(z, 1.0 / 121645100408832000.0, 1.0 / 355687428096000.0);
  double p = std::fma(z4, std::fma(z2, c67, c45), std::fma(z2, c23, c01));
  p = std::fma(z, p, 1.0 / 6.0);
  double small = std::fma(x * z, p, x);
  double h = f64::exp_half(a);
  double big = std::copysign(h - 0.25 / h, x);
  return a < 1.0 ? small : big;
}

// cosh = h + 1 / (4h) with h = exp(|x|) / 2 (no cancellation anywhere).
TT_VMATH_INLINE double vcosh(double x) {
  double h = f64::exp_half(std::fabs(x));
  return h + 0.25 / h;
}

// atanh (fdlibm): log1p(2a + 2a^2 / (1 - a)) / 2 below a = |x| = 1/2, log1p(2a / (1 - a)) / 2
// above (one division, selected numerator), sign restored; tiny x is x, +-1 gives +-inf, |x| > 1
// and NaN give NaN (through log1p of a value below -1, or inf / -inf).
TT_VMATH_INLINE double vatanh(double x) {
  double a = std::fabs(x);
  double t = a + a;
  bool low = a < 0.5;
  double q = (low ? t * a : t) / (1.0 - a);
  double u = low ? t + q : q;
  double r = std::copysign(0.5 * vlog1p(u), x);
  return a < 3.7252902984619140625e-09 ? x : r;  // 2^-28: atanh(x) rounds to x
}

namespace f64 {
// fdlibm's atan polynomial: t - t (s1 + s2) without the leading t, i.e. returns t (s1 + s2).
TT_VMATH_INLINE double atan_tail(double t) {
  double z = t * t, w = z * z;
  double s1 = z * std::fma(w, std::fma(w, std::fma(w, std::fma(w, std::fma(w, 1.62858201153657823623e-02,
                                                                            4.97687799461593236017e-02),
                                                               6.66107313738753120669e-02),
                                                   9.09088713343650656196e-02),
                                       1.42857142725034663711e-01),
                          3.33333333333329318027e-01);
  double s2 = w * std::fma(w, std::fma(w, std::fma(w, std::fma(w, -3.65315727442169155270e-02,
                                                               -5.83357013379057348645e-02),
                                                   -7.69187620504482999495e-02),
                                       -1.11111104054623557880e-01),
                           -1.99999999998764832476e-01);
  return t * (s1 + s2);
}

// fdlibm's asin / acos rational R(t) = t P(t) / Q(t).
TT_VMATH_INLINE double asin_rational(double t) {
  double p = t * std::fma(t, std::fma(t, std::fma(t, std::fma(t, std::fma(t, 3.47933107596021167570e-05,
                                                                          7.91534994289814532176e-04),
                                                              -4.00555345006794114027e-02),
                                                  2.01212532134862925881e-01),
                                      -3.25565818622400915405e-01),
                          1.66666666666666657415e-01);
  double q = std::fma(t, std::fma(t, std::fma(t, std::fma(t, 7.70381505559019352791e-02,
                                                          -6.88283971605453293030e-01),
                                              2.02094576023350569471e+00),
                                  -2.40339491173441421878e+00),
                      1.0);
  return p / q;
}
constexpr double kPio2Hi = 1.57079632679489655800e+00, kPio2Lo = 6.12323399573676603587e-17;
constexpr double kPio4Hi = 7.85398163397448278999e-01, kPi = 3.14159265358979311600e+00;
// s with its low 32 bits cleared (exactly squarable)
TT_VMATH_INLINE double trunc32(double s) { return from_bits(to_bits(s) & 0xffffffff00000000ULL); }
}  // namespace f64

// atan (fdlibm): |x| reduced by atan(a) = atan(c) + atan((a - c) / (1 + a c)) for c in
// {1/2, 1, 3/2} or -1/a above 2.4375 (c = inf), every reduction one selected division.
TT_VMATH_INLINE double vatan(double x) {
  double a = std::fabs(x);
  bool r0 = a >= 0.4375, r1 = a >= 0.6875, r2 = a >= 1.1875, r3 = a >= 2.4375;
  double num = r3 ? -1.0 : (r2 ? a - 1.5 : (r1 ? a - 1.0 : 2.0 * a - 1.0));
  double den = r3 ? a : (r2 ? std::fma(1.5, a, 1.0) : (r1 ? a + 1.0 : 2.0 + a));
  double t = r0 ? num / den : a;
  double hi = r3 ? 1.57079632679489655800e+00
                 : (r2 ? 9.82793723247329054082e-01 : (r1 ? 7.85398163397448278999e-01 : 4.63647609000806093515e-01));
  double lo = r3 ? 6.12323399573676603587e-17
                 : (r2 ? 1.39033110312309984516e-17 : (r1 ? 3.06161699786838301793e-17 : 2.26987774529616870924e-17));
  double tail = f64::atan_tail(t);
  double r = r0 ? hi - ((tail - lo) - t) : t - tail;
  return std::copysign(r, x);
}

// asin (fdlibm): x + x R(x^2) below |x| = 1/2; above, with t = (1 - |x|) / 2 and s = sqrt(t),
// pi/2 - 2 (s + s R(t)) (|x| >= 0.975) or fdlibm's split form with s's high half (below): both
// computed, one selected. |x| > 1 gives NaN through the square root.
TT_VMATH_INLINE double vasin(double x) {
  double a = std::fabs(x);
  bool big = a >= 0.5;
  double t = big ? 0.5 * (1.0 - a) : x * x;
  double r = f64::asin_rational(t);
  double s = std::sqrt(t);
  double near1 = f64::kPio2Hi - (2.0 * std::fma(s, r, s) - f64::kPio2Lo);
  double w = f64::trunc32(s);
  double c = (t - w * w) / (s + w);
  double p = 2.0 * s * r - (f64::kPio2Lo - 2.0 * c);
  double q = f64::kPio4Hi - 2.0 * w;
  double mid = f64::kPio4Hi - (p - q);
  double bigr = std::copysign(a >= 0.975 ? near1 : mid, x);
  return big ? bigr : std::fma(x, r, x);
}

// acos (fdlibm): pi/2 - (x - (pio2_lo - x R(x^2))) below |x| = 1/2; with z = (1 -+ x) / 2 and
// s = sqrt(z), pi - 2 (s + s R(z) - pio2_lo) below -1/2 and 2 (s_hi + s R(z) + c) above 1/2 (c the
// correction for s's low half). acos(1) = +0; |x| > 1 gives NaN through the square root.
TT_VMATH_INLINE double vacos(double x) {
  double a = std::fabs(x);
  bool big = a >= 0.5;
  double z = big ? 0.5 * (1.0 - a) : x * x;
  double r = f64::asin_rational(z);
  double mid = f64::kPio2Hi - (x - (f64::kPio2Lo - x * r));
  double s = std::sqrt(z);
  double neg = f64::kPi - 2.0 * (s + (r * s - f64::kPio2Lo));
  double df = f64::trunc32(s);
  double c = (z - df * df) / (s + df);
  double pos = 2.0 * (df + std::fma(r, s, c));
  pos = x == 1.0 ? 0.0 : pos;
  return big ? (x < 0.0 ? neg : pos) : mid;
}

// asinh (fdlibm's forms, branch-free): log1p(|x| + x^2 / (1 + sqrt(x^2 + 1))) below |x| = 2,
// log(2|x| + 1 / (sqrt(x^2 + 1) + |x|)) up to 2^28, log(|x|) + ln 2 above (no overflow); one
// log kernel for all three (log1p as log(u) + c / u, u = 1 + arg rounded, c its error), sign
// restored. |x| < 2^-28 gives x (+-0 included); +-inf and NaN pass through. < 2 ulp.
TT_VMATH_INLINE double vasinh(double x) {
  double a = std::fabs(x);
  double t = a * a;
  double s = std::sqrt(t + 1.0);  // inf for |x| > 1e154: only the log(|x|) + ln 2 range uses it
  bool small = a < 2.0, huge = a >= 268435456.0;  // 2^28
  double q = (small ? t : 1.0) / (small ? 1.0 + s : s + a);
  double arg = a + q;  // small: asinh = log1p(arg)
  double arg_err = (a - arg) + q;  // Fast2Sum: q < a
  double u = 1.0 + arg;
  double c = (arg < 1.0 ? arg - (u - 1.0) : 1.0 - (u - arg)) + arg_err;  // 1 + a + q = u + c
  double v = huge ? a : (small ? u : 2.0 * a + q);
  double r = f64::log_core(v, small ? c / u : 0.0) + (huge ? 0.69314718055994530942 : 0.0);
  r = a == f64::kInf ? a : r;
  r = std::copysign(r, x);
  r = a < 3.7252902984619140625e-09 ? x : r;  // 2^-28: asinh(x) rounds to x
  return x != x ? x : r;
}

// acosh (fdlibm's forms): with t = x - 1 (exact below 2) and w = sqrt(t (x + 1)), log1p(t + w)
// below 2, log(2x - 1 / (x + w)) up to 2^28, log(x) + ln 2 above; one log kernel for all. Below
// 2, t^2 + 2t, its square root and t + w are carried with their rounding errors into log1p's
// correction (near 1 acosh ~ sqrt(2t), and each rounding would count in full). x < 1 (and -inf)
// give NaN, acosh(1) = +0, inf and NaN pass through. < 2 ulp.
TT_VMATH_INLINE double vacosh(double x) {
  double t = x - 1.0;
  double tt = t * t;
  double tt_err = std::fma(t, t, -tt);
  double p = 2.0 * t + tt;  // = (x - 1)(x + 1); overflows only in the log(x) + ln 2 range
  double p_err = (2.0 * t - p) + tt + tt_err;  // Fast2Sum (2t >= t^2 below 2), exact there
  double w = std::sqrt(p);
  bool small = x < 2.0, huge = x >= 268435456.0;  // 2^28
  // small: sqrt(p + p_err) - w = (p - w^2 + p_err) / 2w; above: 1 / (x + w). One division.
  double q = (small ? std::fma(-w, w, p) + p_err : 2.0) / (small ? w + w : 2.0 * (x + w));
  double arg = t + w;  // small: acosh = log1p(arg + q)
  double arg_err = (w - arg) + t;  // Fast2Sum: w >= t
  double u = 1.0 + arg;
  double c = (arg < 1.0 ? arg - (u - 1.0) : 1.0 - (u - arg)) + (arg_err + q);
  double v = huge ? x : (small ? u : 2.0 * x - q);
  double r = f64::log_core(v, small ? c / u : 0.0) + (huge ? 0.69314718055994530942 : 0.0);
  r = x == f64::kInf ? x : r;
  r = x == 1.0 ? 0.0 : r;
  return (x < 1.0 || x != x) ? f64::kNaN : r;
}

namespace f64 {
// m where `mid`, else b where `far`, else a (erfc's per-range coefficients). The selects are
// taken on doubles (not on the bools, which GCC turns into a table lookup that stays scalar).
TT_VMATH_INLINE double sel3(double mid, double far, double m, double a, double b) {
  double ab = far != 0.0 ? b : a;
  return mid != 0.0 ? m : ab;
}

// exp(-hi - lo - 0.5625 + r) / d for hi + lo = x^2 in [1.5, 790) and |r| < 1, vexp's two-step
// scaling with the division before the last step. hi - n ln2_hi and then - 0.5625 are exact (all
// multiples of 2^-52 below 1 in magnitude), so the reduced argument is rounded once.
TT_VMATH_INLINE double erfc_exp_div(double hi, double lo, double r, double d) {
  double n = std::nearbyint((r - 0.5625 - hi) * kLog2e);
  double t = std::fma(n, -kLn2Hi, -hi);
  double s = (t - 0.5625) + ((r - lo) - n * kLn2Lo);
  double p = expm1_poly_estrin(s);
  double n1 = std::floor(n * 0.5);
  double s1 = pow2i(n1), s2 = pow2i(n - n1);
  return (std::fma(s1, p, s1) / d) * s2;
}
}  // namespace f64

// erfc(x) (fdlibm's ranges, branch-free): below |x| = 0.84375 1 - (x + x R) (|x| < 1/4) or
// 0.5 - (x R + (x - 0.5)), R = pp(x^2) / qq(x^2); below 1.25 (1 - erx) - P / Q or 1 + (erx + P / Q)
// on t = |x| - 1; above, exp(-x^2 - 0.5625 + P / Q) / |x| on t = 1 / x^2 with fdlibm's ra / sa
// (below 1 / 0.35) or rb / sb coefficients, 2 - that for x < 0; x^2 carried as hi + lo. One P / Q
// division for all ranges, coefficients selected per lane. |x| is clamped at 28 (erfc(28) = 0).
TT_VMATH_INLINE double verfc(double x) {
  double ax = std::fabs(x);
  ax = ax > 28.0 ? 28.0 : ax;
  double z = x * x;
  double pp, qq;
  f64::erf_small_pq(z, pp, qq);
  bool mid = ax < 1.25;
  double midd = mid ? 1.0 : 0.0, far = ax >= 2.857142857142857 ? 1.0 : 0.0;  // fdlibm: 1 / 0.35
  double ia = 1.0 / ax;
  double t = mid ? ax - 1.0 : ia * ia;
  double t2 = t * t, t4 = t2 * t2;
  double p01 = std::fma(t, f64::sel3(midd, far, 4.14856118683748331666e-01, -6.93858572707181764372e-01, -7.99283237680523006574e-01),
                        f64::sel3(midd, far, -2.36211856075265944077e-03, -9.86494403484714822705e-03, -9.86494292470009928597e-03));
  double p23 = std::fma(t, f64::sel3(midd, far, 3.18346619901161753674e-01, -6.23753324503260060396e+01, -1.60636384855821916062e+02),
                        f64::sel3(midd, far, -3.72207876035701323847e-01, -1.05586262253232909814e+01, -1.77579549177547519889e+01));
  double p45 = std::fma(t, f64::sel3(midd, far, 3.54783043256182359371e-02, -1.84605092906711035994e+02, -1.02509513161107724954e+03),
                        f64::sel3(midd, far, -1.10894694282396677476e-01, -1.62396669462573470355e+02, -6.37566443368389627722e+02));
  double p67 = std::fma(t, f64::sel3(midd, far, 0.0, -9.81432934416914548592e+00, 0.0),
                        f64::sel3(midd, far, -2.16637559486879084300e-03, -8.12874355063065934246e+01, -4.83519191608651397019e+02));
  double p = std::fma(t4, std::fma(t2, p67, p45), std::fma(t2, p23, p01));
  double q01 = std::fma(t, f64::sel3(midd, far, 1.06420880400844228286e-01, 1.96512716674392571292e+01, 3.03380607434824582924e+01), 1.0);
  double q23 = std::fma(t, f64::sel3(midd, far, 7.18286544141962662868e-02, 4.34565877475229228821e+02, 1.53672958608443695994e+03),
                        f64::sel3(midd, far, 5.40397917702171048937e-01, 1.37657754143519042600e+02, 3.25792512996573918826e+02));
  double q45 = std::fma(t, f64::sel3(midd, far, 1.36370839120290507362e-02, 4.29008140027567833386e+02, 2.55305040643316442583e+03),
                        f64::sel3(midd, far, 1.26171219808761642112e-01, 6.45387271733267880336e+02, 3.19985821950859553908e+03));
  double q67 = std::fma(t, f64::sel3(midd, far, 0.0, 6.57024977031928170135e+00, -2.24409524465858183362e+01),
                        f64::sel3(midd, far, 1.19844998467991074170e-02, 1.08635005541779435134e+02, 4.74528541206955367215e+02));
  double q8 = f64::sel3(midd, far, 0.0, -6.04244152148580987438e-02, 0.0);
  double q = std::fma(t4, std::fma(t4, q8, std::fma(t2, q67, q45)), std::fma(t2, q23, q01));
  bool small = ax < 0.84375;
  double ratio = (small ? pp : p) / (small ? qq : q);  // one division for all ranges
  // |x| < 0.84375
  double xr = x * ratio;
  double r_small = x < 0.25 ? 1.0 - (x + xr) : 0.5 - (xr + (x - 0.5));  // x < 0 included
  // 0.84375 <= |x| < 1.25: erx = erf(1) rounded to float, 1 - erx exact
  constexpr double erx = 8.45062911510467529297e-01;
  double r_mid = x < 0.0 ? 1.0 + (erx + ratio) : (1.0 - erx) - ratio;
  // |x| >= 1.25 (written as in verf so that fp contraction cannot fuse hi away)
  double hi = ax * ax, lo = std::fma(ax, ax, -hi);
  double e = f64::erfc_exp_div(hi, lo, ratio, ax);
  double r_big = x < 0.0 ? 2.0 - e : e;
  return small ? r_small : (mid ? r_mid : r_big);
}

}  // inline namespace TT_VMATH_ISA
}  // namespace tt::cpu
