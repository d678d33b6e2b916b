#pragma once
// AVX-512 lanes of the binary math in vmath_binary.h, for binary_span.h's kernels in the AVX-512
// build (binary_avx512.cpp): atan2 with masks, because GCC's if-conversion of the scalar form
// evaluates both sides of its selects (vatan2f: three divisions and three polynomials per vector);
// float pow on table lookups in registers (vpermt2pd), which the scalar form cannot express.
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

// pow(x, y) for float where pow_plain(x, y), sixteen lanes as two halves of eight doubles:
// 2^t with t = y log2 x, in double. log2 x = k + log2 c + log2(1 + r): x = 2^k z with z in
// [0.699, 1.398), c from a 16-entry table on z's top 4 mantissa bits (c = 1 around z = 1, so
// log2 x is exact for powers of two), r = z / c - 1 with |r| < 0.0306, a degree-7 polynomial.
// 2^t = 2^e 2^(j/16) 2^r with |r| <= 1/32, a degree-4 polynomial. Relative error before the one
// rounding to float about 1e-11 (as the baseline's vpowf_log / vpowf_exp): the float result is
// the correctly rounded one except within 1e-4 ulp of a rounding tie.
// Lookups are vpermt2pd on tables held in registers; no division. Tables and coefficients:
// scripts/gen_powf512_tables.py.
namespace powf512 {
alignas(64) constexpr double kInvC[16] = {
    0x1.664a99209a6d7p+0, 0x1.57455e6e8b2fep+0, 0x1.4975b1d6b37cep+0, 0x1.3cb7a0cd99367p+0,
    0x1.30ec9506f9944p+0, 0x1.25fa5dcb4760cp+0, 0x1.1bca6cad51a29p+0, 0x1.1249398e8dd07p+0,
    0x1.0965c50333d4dp+0, 0x1.0000000000000p+0, 0x1.e5e0df9813753p-1, 0x1.caa70ef261995p-1,
    0x1.b2516983210b2p-1, 0x1.9c6fe78507e4bp-1, 0x1.88a80a36930b5p-1, 0x1.76afeb4225b83p-1};
// -log2(kInvC[i]), correctly rounded
alignas(64) constexpr double kLog2C[16] = {
    -0x1.f0a11d2f0cf85p-2, -0x1.b15c6754b4656p-2, -0x1.74b18211e6492p-2, -0x1.3a6bccf35007cp-2,
    -0x1.025ca96444db9p-2, -0x1.98b5320da0f26p-3, -0x1.308107ff607c6p-3, -0x1.97b47c08628efp-4,
    -0x1.aa13566f4689dp-5, 0x0.0p+0, 0x1.357251ee14df2p-4, 0x1.451a916ba4c6ep-3,
    0x1.e62dc8553e774p-3, 0x1.3f74f5bde67cdp-2, 0x1.8810beb05e8c9p-2, 0x1.cd44a5a6da8efp-2};
// 2^(j/16), correctly rounded
alignas(64) constexpr double kExp2[16] = {
    0x1.0000000000000p+0, 0x1.0b5586cf9890fp+0, 0x1.172b83c7d517bp+0, 0x1.2387a6e756238p+0,
    0x1.306fe0a31b715p+0, 0x1.3dea64c123422p+0, 0x1.4bfdad5362a27p+0, 0x1.5ab07dd485429p+0,
    0x1.6a09e667f3bcdp+0, 0x1.7a11473eb0187p+0, 0x1.8ace5422aa0dbp+0, 0x1.9c49182a3f090p+0,
    0x1.ae89f995ad3adp+0, 0x1.c199bdd85529cp+0, 0x1.d5818dcfba487p+0, 0x1.ea4afa2a490dap+0};

// t = y log2 x for eight lanes, clamped to +-300 (past float's range either way, inside double's)
TT_VBIN_INLINE __m512d log2_times(__m256 xf, __m256 yf) {
  __m512d x = _mm512_cvtps_pd(xf);  // float subnormals become normal doubles
  __m512i ix = _mm512_castpd_si512(x);
  __m512i tmp = _mm512_sub_epi64(ix, _mm512_set1_epi64(0x3fe6600000000000LL));  // bits of 0.69921875
  // vpermt2pd reads the index's low 4 bits: the top 4 bits of tmp's mantissa
  __m512i idx = _mm512_srli_epi64(tmp, 48);
  __m512d k = _mm512_cvtepi64_pd(_mm512_srai_epi64(tmp, 52));
  __m512d z = _mm512_castsi512_pd(
      _mm512_sub_epi64(ix, _mm512_and_si512(tmp, _mm512_set1_epi64(static_cast<int64_t>(0xfff0000000000000ULL)))));
  __m512d invc = _mm512_permutex2var_pd(_mm512_load_pd(kInvC), idx, _mm512_load_pd(kInvC + 8));
  __m512d logc = _mm512_permutex2var_pd(_mm512_load_pd(kLog2C), idx, _mm512_load_pd(kLog2C + 8));
  __m512d r = _mm512_fmsub_pd(z, invc, _mm512_set1_pd(1.0));
  // log2(1 + r) = r q(r), q a degree-6 Chebyshev fit of log2(1 + r) / r on |r| <= 0.0306 (5e-14)
  __m512d p = _mm512_set1_pd(0x1.a6a13b9dc6c2fp-3);
  p = _mm512_fmadd_pd(p, r, _mm512_set1_pd(-0x1.ed0bb100186e0p-3));
  p = _mm512_fmadd_pd(p, r, _mm512_set1_pd(0x1.2776bccb9ad7ap-2));
  p = _mm512_fmadd_pd(p, r, _mm512_set1_pd(-0x1.71546d06fe46dp-2));
  p = _mm512_fmadd_pd(p, r, _mm512_set1_pd(0x1.ec709dc3dfa3bp-2));
  p = _mm512_fmadd_pd(p, r, _mm512_set1_pd(-0x1.71547652dbd7cp-1));
  p = _mm512_fmadd_pd(p, r, _mm512_set1_pd(0x1.71547652b82fep+0));
  __m512d l = _mm512_fmadd_pd(p, r, _mm512_add_pd(k, logc));
  __m512d t = _mm512_mul_pd(_mm512_cvtps_pd(yf), l);
  return _mm512_range_pd(t, _mm512_set1_pd(300.0), 0x2);  // the smaller magnitude, t's sign
}

// 2^t rounded to float for eight lanes, |t| <= 300
TT_VBIN_INLINE __m256 exp2_to_float(__m512d t) {
  const __m512d shifter = _mm512_set1_pd(0x1.8p48);  // adding it rounds t to a multiple of 1/16
  __m512d ks = _mm512_add_pd(t, shifter);
  __m512d r = _mm512_sub_pd(t, _mm512_sub_pd(ks, shifter));  // exact, |r| <= 1/32
  __m512i kb = _mm512_castpd_si512(ks);  // low bits: m = 16 t rounded, two's complement
  __m512d tj = _mm512_permutex2var_pd(_mm512_load_pd(kExp2), kb, _mm512_load_pd(kExp2 + 8));  // 2^((m mod 16)/16)
  // 2^r = 1 + r q(r), q a degree-3 Chebyshev fit of (2^r - 1) / r on |r| <= 1/32 (2^r: 7e-12)
  __m512d p = _mm512_set1_pd(0x1.3b2bfa0553142p-7);
  p = _mm512_fmadd_pd(p, r, _mm512_set1_pd(0x1.c6b3488206d06p-5));
  p = _mm512_fmadd_pd(p, r, _mm512_set1_pd(0x1.ebfbdff78ad41p-3));
  p = _mm512_fmadd_pd(p, r, _mm512_set1_pd(0x1.62e42fee4615fp-1));
  p = _mm512_fmadd_pd(p, r, _mm512_set1_pd(1.0));
  // floor(m / 16) into the exponent field: (m << 48) with m's low 4 bits cleared
  __m512i e = _mm512_and_si512(_mm512_slli_epi64(kb, 48), _mm512_set1_epi64(static_cast<int64_t>(0xfff0000000000000ULL)));
  __m512d y = _mm512_castsi512_pd(_mm512_add_epi64(_mm512_castpd_si512(_mm512_mul_pd(tj, p)), e));
  return _mm512_cvtpd_ps(y);
}
}  // namespace powf512

TT_VBIN_INLINE __m512 vpowf16_of(__m512 x, __m512 y) {
  __m256 lo = powf512::exp2_to_float(powf512::log2_times(_mm512_castps512_ps256(x), _mm512_castps512_ps256(y)));
  __m256 hi = powf512::exp2_to_float(powf512::log2_times(_mm512_extractf32x8_ps(x, 1), _mm512_extractf32x8_ps(y, 1)));
  return _mm512_insertf32x8(_mm512_castps256_ps512(lo), hi, 1);
}

// The lanes where pow_plain(x, y): x > 0 and finite, y finite.
TT_VBIN_INLINE __mmask16 pow_plain16(__m512 x, __m512 y) {
  const __m512 inf = _mm512_set1_ps(std::numeric_limits<float>::infinity());
  return _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_GT_OQ) & _mm512_cmp_ps_mask(x, inf, _CMP_LT_OQ) &
         _mm512_cmp_ps_mask(_mm512_abs_ps(y), inf, _CMP_LT_OQ);
}

}  // inline namespace TT_VMATH_ISA
}  // namespace tt::cpu
#endif
