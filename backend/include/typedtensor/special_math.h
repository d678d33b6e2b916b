#pragma once
// NOTE [ Special functions ]
// The special functions of torch.special that libm lacks -- digamma, trigamma, the Hurwitz zeta
// that polygamma is made of, the modified Bessel functions I0 / I1 and their exponentially scaled
// forms, erfcx and ndtri -- written once for the CPU kernels and the CUDA functors. Each works in
// double and the caller rounds to its element type, so a float32 result is the correctly rounded
// double one (within an ulp or two), and the values at the poles and infinities are torch's.
// The functions are the textbook expansions: recurrence to a large argument, then the asymptotic
// series with Bernoulli coefficients (digamma, trigamma, Euler-Maclaurin for zeta); the power
// series below 20 and the Hankel asymptotic series above for the Bessel functions; erfc scaled by
// an exact exp(x^2) for erfcx; Newton steps on log ndtr (tails) or erf (centre) for ndtri.
#include <math.h>

#if defined(__CUDACC__)
#define TT_SPECIAL_FN __host__ __device__ inline
#else
#define TT_SPECIAL_FN inline
#endif

namespace tt::special {
// internal linkage: the baseline and the AVX-512 translation units each keep their own copies
namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kEps = 1.1102230246251565e-16;  // 2^-53
constexpr double kInvSqrtPi = 0.56418958354775628695;
constexpr double kInvSqrt2 = 0.70710678118654752440;
constexpr double kSqrt2OverPi = 0.79788456080286535588;
constexpr double kInvSqrt2Pi = 0.39894228040143267794;

TT_SPECIAL_FN double inf() { return HUGE_VAL; }
TT_SPECIAL_FN double nan() { return NAN; }

// exp(x * x) without the rounding of x * x (whose error e^x^2 would magnify x^2 times)
TT_SPECIAL_FN double exp_square(double x) {
  double h = x * x, l = ::fma(x, x, -h);
  return ::exp(h) * (1.0 + l);
}

// digamma for x > 0 (and NaN, +inf): up past 10 by psi(x) = psi(x + 1) - 1/x, then
// psi(x) ~ ln x - 1/(2x) - sum B_2k / (2k x^2k)
TT_SPECIAL_FN double digamma_positive(double x) {
  double acc = 0;
  while (x < 10) {
    acc -= 1 / x;
    x += 1;
  }
  double z = 1 / (x * x);
  double tail =
      z * (1.0 / 12 - z * (1.0 / 120 - z * (1.0 / 252 - z * (1.0 / 240 - z * (1.0 / 132 - z * (691.0 / 32760 - z / 12))))));
  return acc + ::log(x) - 0.5 / x - tail;
}

// torch's values at the poles: digamma(+-0) = -+inf, a negative integer or -inf gives NaN
TT_SPECIAL_FN double digamma(double x) {
  if (x == 0) return ::copysign(inf(), -x);
  if (x < 0) {
    if (x == ::floor(x)) return nan();
    // reflection psi(1 - x) - psi(x) = pi / tan(pi x), with tan of the fractional part (exact),
    // not of pi * x (rounded)
    return digamma_positive(1 - x) - kPi / ::tan(kPi * (x - ::trunc(x)));
  }
  return digamma_positive(x);
}

// trigamma for x >= 1/2: up past 10 by psi1(x) = psi1(x + 1) + 1/x^2, then
// psi1(x) ~ 1/x + 1/(2x^2) + sum B_2k / x^(2k+1)
TT_SPECIAL_FN double trigamma_positive(double x) {
  double acc = 0;
  while (x < 10) {
    acc += 1 / (x * x);
    x += 1;
  }
  double z = 1 / (x * x);
  double s = 1 + 0.5 / x +
             z * (1.0 / 6 - z * (1.0 / 30 - z * (1.0 / 42 - z * (1.0 / 30 - z * (5.0 / 66 - z * (691.0 / 2730 - z * 7 / 6))))));
  return acc + s / x;
}

// polygamma(1, x); the poles (0 and the negative integers) are +inf, -inf gives NaN
TT_SPECIAL_FN double trigamma(double x) {
  if (x != x) return x;
  if (x <= 0 && x == ::floor(x)) return x == -inf() ? nan() : inf();
  if (x < 0.5) {  // reflection psi1(1 - x) + psi1(x) = pi^2 / sin^2(pi x)
    double s = ::sin(kPi * (x - ::trunc(x)));
    return kPi * kPi / (s * s) - trigamma_positive(1 - x);
  }
  return trigamma_positive(x);
}

// The Hurwitz zeta function sum_k (q + k)^-s, torch.special.zeta's conventions: s = 1 is +inf,
// s < 1 NaN; q a non-positive integer +inf; q < 0 with a non-integer s NaN. Direct summation to
// q + k > 9 (stopping early when the terms fall below an ulp, as for large s), then
// Euler-Maclaurin: (q+N)^(1-s)/(s-1) + (q+N)^-s/2 + sum B_2j/(2j)! s(s+1)..(s+2j-2) (q+N)^(1-s-2j).
TT_SPECIAL_FN double zeta(double s, double q) {
  if (s == 1) return inf();
  if (s < 1) return nan();
  if (q <= 0) {
    if (q == ::floor(q)) return inf();
    if (s != ::floor(s)) return nan();
    if (q < -1e6) return nan();  // the direct sum would need more terms than are worth summing
  }
  double sum = ::pow(q, -s), a = q, b = 0;
  for (int i = 0; i < 9 || a <= 9; ++i) {
    a += 1;
    b = ::pow(a, -s);
    sum += b;
    if (::fabs(b) < kEps * ::fabs(sum)) return sum;
  }
  // B_2j / (2j)! for j = 1..12
  const double c[12] = {1.0 / 12,
                        -1.0 / 720,
                        1.0 / 30240,
                        -1.0 / 1209600,
                        1.0 / 47900160,
                        -691.0 / 1307674368000.0,
                        1.0 / 74724249600.0,
                        -3617.0 / 10670622842880000.0,
                        43867.0 / 5109094217170944000.0,
                        -174611.0 / 802857662698291200000.0,
                        854513.0 / 1551121004333098598400000.0,
                        -236364091.0 / 1693824136731743669452800000.0};
  double w = a;
  sum += b * w / (s - 1) - 0.5 * b;
  double f = s * b / w;  // s(s+1)..(s+2j-2) w^(1-s-2j), j = 1
  for (int j = 0; j < 12; ++j) {
    double t = c[j] * f;
    sum += t;
    if (::fabs(t) < kEps * ::fabs(sum)) break;
    f *= (s + 2 * j + 1) * (s + 2 * j + 2) / (w * w);
  }
  return sum;
}

// The modified Bessel functions I0 and I1 of x >= 0: the power series below 20, Hankel's
// asymptotic series e^x / sqrt(2 pi x) sum_k t_k above, returned without the factor e^x in
// `scaled` (x > 20) so i0e / i1e do not overflow.
constexpr double kBesselSwitch = 20.0;

// sum_k (x^2/4)^k / (k! (k + nu)!) for nu = 0 or 1 (times (x/2)^nu by the caller)
TT_SPECIAL_FN double bessel_series(double x, int nu) {
  double y = 0.25 * x * x, t = 1, sum = 1;
  for (int k = 1; k < 500; ++k) {
    t *= y / (static_cast<double>(k) * (k + nu));
    sum += t;
    if (t < kEps * sum) break;
  }
  return sum;
}

// sum_k t_k of I_nu(x) ~ e^x / sqrt(2 pi x) sum_k t_k, t_k = t_(k-1) ((2k-1)^2 - 4 nu^2) / (8 k x)
TT_SPECIAL_FN double bessel_asymptotic(double x, int nu) {
  double mu = 4.0 * nu * nu, t = 1, sum = 1;
  for (int k = 1; k < 60; ++k) {
    double r = ((2.0 * k - 1) * (2.0 * k - 1) - mu) / (8.0 * k * x);
    t *= r;
    sum += t;
    if (::fabs(t) < kEps * ::fabs(sum)) break;
  }
  return sum;
}

TT_SPECIAL_FN double i0(double x) {
  double ax = ::fabs(x);
  if (ax <= kBesselSwitch) return bessel_series(ax, 0);  // NaN stays NaN
  return ::exp(ax) * bessel_asymptotic(ax, 0) / ::sqrt(2 * kPi * ax);
}
TT_SPECIAL_FN double i0e(double x) {
  double ax = ::fabs(x);
  if (ax <= kBesselSwitch) return ::exp(-ax) * bessel_series(ax, 0);
  return bessel_asymptotic(ax, 0) / ::sqrt(2 * kPi * ax);
}
TT_SPECIAL_FN double i1(double x) {
  double ax = ::fabs(x);
  if (!(ax > kBesselSwitch)) return 0.5 * x * bessel_series(ax, 1);
  return ::copysign(::exp(ax) * bessel_asymptotic(ax, 1) / ::sqrt(2 * kPi * ax), x);
}
TT_SPECIAL_FN double i1e(double x) {
  double ax = ::fabs(x);
  if (!(ax > kBesselSwitch)) return 0.5 * x * ::exp(-ax) * bessel_series(ax, 1);
  return ::copysign(bessel_asymptotic(ax, 1) / ::sqrt(2 * kPi * ax), x);
}

// erfcx(x) = e^(x^2) erfc(x) for x >= 0: erfc times the exact exponential while erfc(x) is a
// normal number, the asymptotic series 1/(x sqrt(pi)) sum (-1)^k (2k-1)!! / (2x^2)^k beyond
TT_SPECIAL_FN double erfcx_nonnegative(double x) {
  if (x < 26) return exp_square(x) * ::erfc(x);
  if (x > 1e8) return kInvSqrtPi / x;  // +inf gives 0
  double z = 0.5 / (x * x), t = 1, sum = 1;
  for (int k = 1; k < 20; ++k) {
    t *= -(2.0 * k - 1) * z;
    sum += t;
    if (::fabs(t) < kEps * sum) break;
  }
  return kInvSqrtPi / x * sum;
}

// erfcx(x) = e^(x^2) erfc(x); for x < 0, 2 e^(x^2) - erfcx(-x), +inf below -26.7 (as torch)
TT_SPECIAL_FN double erfcx(double x) {
  if (x != x) return x;
  if (x >= 0) return erfcx_nonnegative(x);
  if (x < -26.7) return inf();
  return 2 * exp_square(x) - erfcx_nonnegative(-x);
}

// log ndtr(x) for x <= 0 through erfcx: ndtr(x) = erfcx(t) e^(-t^2) / 2 with t = -x / sqrt(2)
TT_SPECIAL_FN double log_ndtr_negative(double x) {
  double t = -x * kInvSqrt2;
  return ::log(0.5 * erfcx_nonnegative(t)) - t * t;
}

// The inverse of the standard normal CDF. The tails (p < 1/4 or p > 3/4): the classic rational
// guess (error below 5e-4) refined by Newton steps on log ndtr(x) = log q, whose slope
// sqrt(2/pi) / erfcx(-x/sqrt(2)) never underflows; the centre: Newton on erf(x/sqrt(2))/2 = p - 1/2,
// exact in relative terms near p = 1/2.
TT_SPECIAL_FN double ndtri(double p) {
  if (p != p) return p;
  if (p <= 0) return p == 0 ? -inf() : nan();
  if (p >= 1) return p == 1 ? inf() : nan();
  if (p >= 0.25 && p <= 0.75) {
    double y = p - 0.5, x = y * 2.50662827463100050242;  // sqrt(2 pi) (p - 1/2)
    for (int i = 0; i < 8; ++i) {
      double f = 0.5 * ::erf(x * kInvSqrt2) - y;
      double step = f / (kInvSqrt2Pi * ::exp(-0.5 * x * x));
      x -= step;
      if (::fabs(step) <= kEps * ::fabs(x)) break;
    }
    return x;
  }
  double q = p < 0.5 ? p : 1 - p;  // exact for p >= 1/2
  double t = ::sqrt(-2 * ::log(q));
  double x = -(t - (2.515517 + t * (0.802853 + t * 0.010328)) / (1 + t * (1.432788 + t * (0.189269 + t * 0.001308))));
  double lq = ::log(q);
  for (int i = 0; i < 8; ++i) {
    double u = -x * kInvSqrt2;
    double f = ::log(0.5 * erfcx_nonnegative(u)) - u * u - lq;
    double step = f * erfcx_nonnegative(u) / kSqrt2OverPi;
    x -= step;
    if (::fabs(step) <= kEps * ::fabs(x)) break;
  }
  return p < 0.5 ? x : -x;
}

}  // namespace
}  // namespace tt::special
