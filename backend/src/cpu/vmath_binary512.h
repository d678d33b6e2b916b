#pragma once
// AVX-512 lanes of the binary math in vmath_binary.h, for binary_span.h's kernels in the AVX-512
// build (binary_avx512.cpp): written with masks and explicit lanes because GCC's if-conversion of
// the scalar forms evaluates both sides of their selects (vatan2f: three divisions and three
// polynomials per vector).
#include "vmath_binary.h"

#if defined(__AVX512F__) && defined(__AVX512DQ__)
#include <immintrin.h>

namespace tt::cpu {
inline namespace TT_VMATH_ISA {

// Sixteen lanes of vatan2f(y, x): the same reduction, polynomial and hi + lo constants, so the same
// results bit for bit.
TT_VBIN_INLINE __m512 vatan2f16_of(__m512 y, __m512 x) {
  const __m512 one = _mm512_set1_ps(1.0f), inf = _mm512_set1_ps(std::numeric_limits<float>::infinity());
  __m512 a = _mm512_abs_ps(y), b = _mm512_abs_ps(x);
  __mmask16 both_inf = _mm512_cmp_ps_mask(a, inf, _CMP_EQ_OQ) & _mm512_cmp_ps_mask(b, inf, _CMP_EQ_OQ);
  a = _mm512_mask_mov_ps(a, both_inf, one);
  b = _mm512_mask_mov_ps(b, both_inf, one);
  __mmask16 swap = _mm512_cmp_ps_mask(a, b, _CMP_GT_OQ);
  __m512 mn = _mm512_mask_mov_ps(a, swap, b), mx = _mm512_mask_mov_ps(b, swap, a);
  __mmask16 mid = _mm512_cmp_ps_mask(mn, _mm512_mul_ps(_mm512_set1_ps(0.41421356237309504880f), mx), _CMP_GT_OQ);
  __m512 num = _mm512_mask_sub_ps(mn, mid, mn, mx);
  __m512 den = _mm512_mask_add_ps(mx, mid, mn, mx);
  den = _mm512_mask_mov_ps(den, _mm512_cmp_ps_mask(mx, _mm512_setzero_ps(), _CMP_EQ_OQ), one);
  __m512 t = _mm512_div_ps(num, den);
  __m512 z = _mm512_mul_ps(t, t);
  __m512 p = _mm512_set1_ps(-0.0606607124209404f);
  p = _mm512_fmadd_ps(p, z, _mm512_set1_ps(0.10588572174310684f));
  p = _mm512_fmadd_ps(p, z, _mm512_set1_ps(-0.1424274444580078f));
  p = _mm512_fmadd_ps(p, z, _mm512_set1_ps(0.19998423755168915f));
  p = _mm512_fmadd_ps(p, z, _mm512_set1_ps(-0.3333331346511841f));
  __m512 r = _mm512_fmadd_ps(_mm512_mul_ps(p, z), t, t);
  r = _mm512_mask_add_ps(r, mid, _mm512_set1_ps(0.785398185253143310546875f),
                         _mm512_add_ps(_mm512_set1_ps(-2.1855695e-08f), r));
  r = _mm512_mask_add_ps(r, swap, _mm512_sub_ps(_mm512_set1_ps(1.57079637050628662109375f), r),
                         _mm512_set1_ps(-4.37113900018624283e-08f));
  __mmask16 xneg = _mm512_movepi32_mask(_mm512_castps_si512(x));
  r = _mm512_mask_add_ps(r, xneg, _mm512_sub_ps(_mm512_set1_ps(3.1415927410125732421875f), r),
                         _mm512_set1_ps(-8.74227800037248566e-08f));
  r = _mm512_xor_ps(r, _mm512_and_ps(y, _mm512_set1_ps(-0.0f)));  // r >= 0 here: signed like y
  return _mm512_mask_add_ps(r, _mm512_cmp_ps_mask(x, y, _CMP_UNORD_Q), x, y);
}

// Eight lanes of vatan2(y, x) for double: the same steps and constants (atan_small_d's rational
// form), so the same results bit for bit.
TT_VBIN_INLINE __m512d vatan2d8_of(__m512d y, __m512d x) {
  const __m512d one = _mm512_set1_pd(1.0), inf = _mm512_set1_pd(std::numeric_limits<double>::infinity());
  __m512d a = _mm512_abs_pd(y), b = _mm512_abs_pd(x);
  __mmask8 both_inf = _mm512_cmp_pd_mask(a, inf, _CMP_EQ_OQ) & _mm512_cmp_pd_mask(b, inf, _CMP_EQ_OQ);
  a = _mm512_mask_mov_pd(a, both_inf, one);
  b = _mm512_mask_mov_pd(b, both_inf, one);
  __mmask8 swap = _mm512_cmp_pd_mask(a, b, _CMP_GT_OQ);
  __m512d mn = _mm512_mask_mov_pd(a, swap, b), mx = _mm512_mask_mov_pd(b, swap, a);
  __mmask8 mid = _mm512_cmp_pd_mask(mn, _mm512_mul_pd(_mm512_set1_pd(0.41421356237309504880), mx), _CMP_GT_OQ);
  __m512d num = _mm512_mask_sub_pd(mn, mid, mn, mx);
  __m512d den = _mm512_mask_add_pd(mx, mid, mn, mx);
  den = _mm512_mask_mov_pd(den, _mm512_cmp_pd_mask(mx, _mm512_setzero_pd(), _CMP_EQ_OQ), one);
  __m512d t = _mm512_div_pd(num, den);
  __m512d z = _mm512_mul_pd(t, t);
  __m512d p = _mm512_set1_pd(-8.750608600031904122785E-1);
  p = _mm512_fmadd_pd(p, z, _mm512_set1_pd(-1.615753718733365076637E1));
  p = _mm512_fmadd_pd(p, z, _mm512_set1_pd(-7.500855792314704667340E1));
  p = _mm512_fmadd_pd(p, z, _mm512_set1_pd(-1.228866684490136173410E2));
  p = _mm512_fmadd_pd(p, z, _mm512_set1_pd(-6.485021904942025371773E1));
  __m512d q = _mm512_add_pd(z, _mm512_set1_pd(2.485846490142306297962E1));
  q = _mm512_fmadd_pd(q, z, _mm512_set1_pd(1.650270098316988542046E2));
  q = _mm512_fmadd_pd(q, z, _mm512_set1_pd(4.328810604912902668951E2));
  q = _mm512_fmadd_pd(q, z, _mm512_set1_pd(4.853903996359136964868E2));
  q = _mm512_fmadd_pd(q, z, _mm512_set1_pd(1.945506571482613964425E2));
  __m512d r = _mm512_fmadd_pd(_mm512_mul_pd(t, z), _mm512_div_pd(p, q), t);
  r = _mm512_mask_add_pd(r, mid, _mm512_set1_pd(7.85398163397448278999e-01),
                         _mm512_add_pd(_mm512_set1_pd(3.06161699786838301793e-17), r));
  r = _mm512_mask_add_pd(r, swap, _mm512_sub_pd(_mm512_set1_pd(1.57079632679489655800e+00), r),
                         _mm512_set1_pd(6.12323399573676603587e-17));
  __mmask8 xneg = _mm512_movepi64_mask(_mm512_castpd_si512(x));
  r = _mm512_mask_add_pd(r, xneg, _mm512_sub_pd(_mm512_set1_pd(3.14159265358979311600e+00), r),
                         _mm512_set1_pd(1.22464679914735317723e-16));
  r = _mm512_xor_pd(r, _mm512_and_pd(y, _mm512_set1_pd(-0.0)));
  return _mm512_mask_add_pd(r, _mm512_cmp_pd_mask(x, y, _CMP_UNORD_Q), x, y);
}

}  // inline namespace TT_VMATH_ISA
}  // namespace tt::cpu
#endif
