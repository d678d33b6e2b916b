#pragma once
// Branch-free float math that GCC auto-vectorises inside plain loops.
#include <cmath>
#include <cstdint>
#include <cstring>

namespace tt::cpu {

// Always inlined: a call per element stops the loop around it from vectorising, and GCC's
// inliner declines these bodies in some of the many unary-kernel instantiations.
#define TT_VMATH_INLINE inline __attribute__((always_inline))

// exp(x) for float, ~1 ulp (Cephes polynomial, range reduction by ln 2, two-step scaling so
// subnormal results and overflow to inf come out right).
TT_VMATH_INLINE float vexp(float x) {
  x = x < -104.0f ? -104.0f : x;
  x = x > 89.0f ? 89.0f : x;
  float n = std::nearbyint(x * 1.44269504088896341f);
  float r = std::fma(n, -0.693359375f, x);
  r = std::fma(n, 2.12194440e-4f, r);
  float p = 1.9875691500E-4f;
  p = std::fma(p, r, 1.3981999507E-3f);
  p = std::fma(p, r, 8.3334519073E-3f);
  p = std::fma(p, r, 4.1665795894E-2f);
  p = std::fma(p, r, 1.6666665459E-1f);
  p = std::fma(p, r, 5.0000001201E-1f);
  float y = std::fma(p * r, r, r) + 1.0f;
  int32_t ni = static_cast<int32_t>(n);
  int32_t n1 = ni / 2, n2 = ni - n1;
  int32_t b1 = (n1 + 127) << 23, b2 = (n2 + 127) << 23;
  float s1, s2;
  std::memcpy(&s1, &b1, 4);
  std::memcpy(&s2, &b2, 4);
  return y * s1 * s2;
}
inline double vexp(double x) { return std::exp(x); }

// erf(x) for float: a rational minimax fit x P(x^2) / Q(x^2) on [-4, 4] (erf is 1 to float
// precision beyond), the approximation Eigen and XLA use; a few ulp, no branches, vectorises.
// NaN passes through (the clamps compare false).
TT_VMATH_INLINE float verf(float x) {
  x = x < -4.0f ? -4.0f : x;
  x = x > 4.0f ? 4.0f : x;
  float x2 = x * x;
  float p = -2.72614225801306e-10f;
  p = std::fma(p, x2, 2.77068142495902e-08f);
  p = std::fma(p, x2, -2.10102402082508e-06f);
  p = std::fma(p, x2, -5.69250639462346e-05f);
  p = std::fma(p, x2, -7.34990630326855e-04f);
  p = std::fma(p, x2, -2.95459980854025e-03f);
  p = std::fma(p, x2, -1.60960333262415e-02f);
  float q = -1.45660718464996e-05f;
  q = std::fma(q, x2, -2.13374055278905e-04f);
  q = std::fma(q, x2, -1.68282697438203e-03f);
  q = std::fma(q, x2, -7.37332916720468e-03f);
  q = std::fma(q, x2, -1.42647390514189e-02f);
  return x * p / q;
}
inline double verf(double x) { return std::erf(x); }

template <class T>
TT_VMATH_INLINE T vsigmoid(T x) {
  return T(1) / (T(1) + vexp(-x));
}

}  // namespace tt::cpu
