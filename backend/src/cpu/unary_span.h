#pragma once
// Floating-point unary ops over one contiguous run: the kernels every unary call ends in (strided
// operands are gathered into runs first). Compiled twice: for the baseline instruction set in
// elementwise.cpp and for AVX-512 in unary_avx512.cpp (wider lanes, chosen at run time).
// `o` may be `x` (in-place ops): every loop reads an element before it writes the same element.
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "unary_fns.h"

namespace tt::cpu {
inline namespace TT_VMATH_ISA {

#if defined(__AVX2__) && defined(__FMA__)
// Lane arithmetic for the double exp cores below, overloaded on the vector width, so each core's
// polynomial and constants are written once for the AVX2 (4-lane) and AVX-512 (8-lane) forms.
TT_VMATH_INLINE __m256d lane_fma(__m256d a, __m256d b, __m256d c) { return _mm256_fmadd_pd(a, b, c); }
TT_VMATH_INLINE __m256d lane_fms(__m256d a, __m256d b, __m256d c) { return _mm256_fmsub_pd(a, b, c); }
TT_VMATH_INLINE __m256d lane_mul(__m256d a, __m256d b) { return _mm256_mul_pd(a, b); }
TT_VMATH_INLINE __m256d lane_add(__m256d a, __m256d b) { return _mm256_add_pd(a, b); }
TT_VMATH_INLINE __m256d lane_sub(__m256d a, __m256d b) { return _mm256_sub_pd(a, b); }
TT_VMATH_INLINE void lane_set(__m256d& v, double c) { v = _mm256_set1_pd(c); }
#if defined(__AVX512F__) && defined(__AVX512DQ__)
TT_VMATH_INLINE __m512d lane_fma(__m512d a, __m512d b, __m512d c) { return _mm512_fmadd_pd(a, b, c); }
TT_VMATH_INLINE __m512d lane_fms(__m512d a, __m512d b, __m512d c) { return _mm512_fmsub_pd(a, b, c); }
TT_VMATH_INLINE __m512d lane_mul(__m512d a, __m512d b) { return _mm512_mul_pd(a, b); }
TT_VMATH_INLINE __m512d lane_add(__m512d a, __m512d b) { return _mm512_add_pd(a, b); }
TT_VMATH_INLINE __m512d lane_sub(__m512d a, __m512d b) { return _mm512_sub_pd(a, b); }
TT_VMATH_INLINE void lane_set(__m512d& v, double c) { v = _mm512_set1_pd(c); }
#endif

// exp(x) = 2^n (1 + expm1(s)): from the reduced s = x - n ln2 (hi + lo), 1 + expm1(s) by vexp's
// polynomial in Estrin's scheme (as expm1_poly_estrin). The caller rounds n and scales by 2^n.
template <class V>
TT_VMATH_INLINE V exp_core(V x, V n) {
  auto c = [](double v) { V r; lane_set(r, v); return r; };
  V s = lane_fma(n, c(-f64::kLn2Hi), x);
  s = lane_fma(n, c(-f64::kLn2Lo), s);
  V s2 = lane_mul(s, s), s4 = lane_mul(s2, s2), s8 = lane_mul(s4, s4);
  V c01 = lane_fma(s, c(0.166666666666666851703837), c(0.5));
  V c23 = lane_fma(s, c(0.00833333333331652721664984), c(0.0416666666666665047591422));
  V c45 = lane_fma(s, c(0.000198412698960509205564975), c(0.00138888888889774492207962));
  V c67 = lane_fma(s, c(2.75572362911928827629423e-06), c(2.4801587159235472998791e-05));
  V c89 = lane_fma(s, c(2.51112930892876518610661e-08), c(2.75573911234900471893338e-07));
  V u = lane_fma(s8, lane_fma(s2, c(2.08860621107283687536341e-09), c89),
                 lane_fma(s4, lane_fma(s2, c67, c45), lane_fma(s2, c23, c01)));
  V p = lane_fma(s2, u, s);  // expm1(s)
  return lane_add(c(1.0), p);
}

// 2^r for r = x - round(x) in [-1/2, 1/2], < 1 ulp before scaling: 1 + r ln2 + r^2 Q(r) (Taylor
// through r^13, Estrin) with r ln2 exact as hi + lo and 1 + hi summed exactly, one rounding.
template <class V>
TT_VMATH_INLINE V exp2_core(V r) {
  auto c = [](double v) { V t; lane_set(t, v); return t; };
  V r2 = lane_mul(r, r), r4 = lane_mul(r2, r2);
  // Q(r) = sum ln2^k / k! r^(k-2) for k = 2..13: the next term is below 2^-57 for |r| <= 1/2
  V q01 = lane_fma(r, c(0.05550410866482158), c(0.24022650695910072));
  V q23 = lane_fma(r, c(0.0013333558146428443), c(0.009618129107628477));
  V q45 = lane_fma(r, c(1.5252733804059841e-05), c(0.0001540353039338161));
  V q67 = lane_fma(r, c(1.01780860092397e-07), c(1.321548679014431e-06));
  V q89 = lane_fma(r, c(4.4455382718708116e-10), c(7.054911620801123e-09));
  V q1011 = lane_fma(r, c(1.3691488853904128e-12), c(2.5678435993488206e-11));
  V q = lane_fma(r4, lane_fma(r4, lane_fma(r2, q1011, q89), lane_fma(r2, q67, q45)), lane_fma(r2, q23, q01));
  constexpr double ln2 = 0.69314718055994528623, ln2_lo = 2.3190468138462995584e-17;
  V a = lane_mul(r, c(ln2));
  V a_err = lane_fms(r, c(ln2), a);                  // r ln2 = a + a_err exactly
  V s = lane_add(c(1.0), a);
  V e = lane_add(lane_sub(c(1.0), s), a);            // Fast2Sum: 1 + a = s + e, |a| < 1
  V tail = lane_fma(r2, q, lane_fma(r, c(ln2_lo), lane_add(a_err, e)));
  return lane_add(s, tail);
}
#endif

#if defined(__AVX512F__) && defined(__AVX512DQ__)
// horner() over sixteen lanes
template <size_t N, size_t... K>
TT_VMATH_INLINE __m512 horner16_of(__m512 x, const float (&c)[N], std::index_sequence<K...>) {
  __m512 p = _mm512_set1_ps(c[0]);
  ((p = _mm512_fmadd_ps(p, x, _mm512_set1_ps(c[K + 1]))), ...);
  return p;
}
template <size_t N>
TT_VMATH_INLINE __m512 horner16(__m512 x, const float (&c)[N]) {
  return horner16_of(x, c, std::make_index_sequence<N - 1>{});
}

// Sixteen lanes of vexp: the same clamps, reduction and polynomial as the scalar form; the
// scaling by 2^n is one vscalefps, which rounds subnormal results once (the scalar form's
// two-step product can round twice there) and overflows to inf past the clamp.
TT_VMATH_INLINE __m512 vexp16_of(__m512 x) {
  // exp(x) < 2^-150 rounds to 0: such lanes (a masked -inf score, say) are computed as exp(0) and
  // set to 0 at the end, since letting vscalefps underflow them costs a microcode assist per
  // element on Intel cores (exp of -inf ran 12x slower than of 0). Same results as before.
  const __mmask16 zero = _mm512_cmp_ps_mask(x, _mm512_set1_ps(-103.972084f), _CMP_LT_OQ);
  x = _mm512_mask_mov_ps(x, zero, _mm512_setzero_ps());
  x = _mm512_max_ps(_mm512_set1_ps(poly::kExpLo), x);  // NaN (second operand) passes through
  x = _mm512_min_ps(_mm512_set1_ps(poly::kExpHi), x);
  __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(poly::kLog2e)),
                                  _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fmadd_ps(n, _mm512_set1_ps(-poly::kLn2Hi), x);
  r = _mm512_fmadd_ps(n, _mm512_set1_ps(-poly::kLn2Lo), r);
  __m512 q = horner16(r, poly::kExp);
  __m512 y = _mm512_add_ps(_mm512_fmadd_ps(_mm512_mul_ps(q, r), r, r), _mm512_set1_ps(1.0f));
  return _mm512_mask_mov_ps(_mm512_scalef_ps(y, n), zero, _mm512_setzero_ps());
}

// 1 / (1 + e) with e = exp(-|x|), times e where x < 0: no overflow, subnormal results kept.
TT_VMATH_INLINE __m512 vsigmoid16_of(__m512 x) {
  __m512 e = vexp16_of(_mm512_sub_ps(_mm512_setzero_ps(), _mm512_abs_ps(x)));
  __m512 s = _mm512_div_ps(_mm512_set1_ps(1.0f), _mm512_add_ps(_mm512_set1_ps(1.0f), e));
  return _mm512_mask_mul_ps(s, _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_LT_OQ), e, s);
}

// x = (1 + f) 2^e split as vlog_parts does, in sixteen lanes: vgetexpps / vgetmantps take x apart
// (subnormals included) where the scalar form needs bit arithmetic, a subnormal scaling and their
// selects. Returns y, the rest of log(1 + f) beyond f (vlog_parts' Cephes polynomial, Estrin).
// Meaningful for finite x > 0; log16_edges patches the rest.
TT_VMATH_INLINE __m512 vlog_parts16(__m512 x, __m512& e, __m512& f) {
  const float* k = poly::kLog;
  auto c = [](float v) { return _mm512_set1_ps(v); };
  const __m512 m = _mm512_getmant_ps(x, _MM_MANT_NORM_p5_1, _MM_MANT_SIGN_zero);  // [0.5, 1)
  e = _mm512_add_ps(_mm512_getexp_ps(x), c(1.0f));
  const __mmask16 low = _mm512_cmp_ps_mask(m, c(0.707106781186547524f), _CMP_LT_OQ);
  e = _mm512_mask_sub_ps(e, low, e, c(1.0f));
  f = _mm512_sub_ps(m, c(1.0f));
  f = _mm512_mask_add_ps(f, low, f, m);  // m + m - 1 below sqrt(1/2)
  const __m512 f2 = _mm512_mul_ps(f, f), f4 = _mm512_mul_ps(f2, f2);
  const __m512 lo = _mm512_fmadd_ps(_mm512_fmadd_ps(c(k[5]), f, c(k[6])), f2, _mm512_fmadd_ps(c(k[7]), f, c(k[8])));
  const __m512 hi = _mm512_fmadd_ps(c(k[0]), f4,
                                    _mm512_fmadd_ps(_mm512_fmadd_ps(c(k[1]), f, c(k[2])), f2,
                                                    _mm512_fmadd_ps(c(k[3]), f, c(k[4]))));
  return _mm512_fmadd_ps(f2, c(-0.5f), _mm512_mul_ps(_mm512_fmadd_ps(hi, f4, lo), _mm512_mul_ps(f2, f)));
}

// vlog_edges in lanes: inf -> inf, 0 -> -inf, x < 0 and NaN -> NaN, as libm.
TT_VMATH_INLINE __m512 log16_edges(__m512 x, __m512 r) {
  constexpr float inf = std::numeric_limits<float>::infinity();
  r = _mm512_mask_mov_ps(r, _mm512_cmp_ps_mask(x, _mm512_set1_ps(inf), _CMP_EQ_OQ), x);
  r = _mm512_mask_mov_ps(r, _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_EQ_OQ), _mm512_set1_ps(-inf));
  return _mm512_mask_mov_ps(r, _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_NGE_UQ),
                            _mm512_set1_ps(std::numeric_limits<float>::quiet_NaN()));
}

// log, log2 and log10 of sixteen lanes, each combining e, f and y as its scalar form (vlogf,
// vlog2, vlog10) does: the same results, about 30% fewer cycles an element.
template <UnaryOp Op>
TT_VMATH_INLINE __m512 vlog16_of(__m512 x) {
  auto c = [](float v) { return _mm512_set1_ps(v); };
  __m512 e, f;
  const __m512 y = vlog_parts16(x, e, f);
  __m512 r;
  if constexpr (Op == UnaryOp::Log) {
    r = _mm512_fmadd_ps(e, c(poly::kLn2Hi), _mm512_add_ps(f, _mm512_fmadd_ps(e, c(poly::kLn2Lo), y)));
  } else if constexpr (Op == UnaryOp::Log2) {
    constexpr float A = 0.44269504088896340736f;  // log2(e) - 1
    r = _mm512_fmadd_ps(f, c(A), _mm512_fmadd_ps(y, c(A), y));
    r = _mm512_add_ps(_mm512_add_ps(r, f), e);
  } else {
    constexpr float L102A = 3.0078125E-1f, L102B = 2.48745663981195213739E-4f;
    constexpr float L10EA = 4.3359375E-1f, L10EB = 7.00731903251827651129E-4f;
    r = _mm512_fmadd_ps(y, c(L10EB), _mm512_fmadd_ps(f, c(L10EB), _mm512_mul_ps(e, c(L102B))));
    r = _mm512_fmadd_ps(y, c(L10EA), r);
    r = _mm512_fmadd_ps(f, c(L10EA), r);
    r = _mm512_fmadd_ps(e, c(L102A), r);
  }
  return log16_edges(x, r);
}

// Eight lanes of exp2 for double, < 1 ulp: n = round(x), r = x - n exact, exp2_core(r), then
// vscalefpd by n (subnormal results, overflow to inf and +-inf / NaN inputs come out of the
// scaling). A third fewer instructions than the auto-vectorised vexp2, whose clamps and two-step
// scaling do what vscalefpd does in one.
TT_VMATH_INLINE __m512d vexp2_8d_of(__m512d x) {
  __m512d n = _mm512_roundscale_pd(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512d r = _mm512_sub_pd(x, n);
  // integer x (+-inf included, where x - n is NaN): r = 0, and 2^0 scaled by n is exact, inf or 0
  r = _mm512_mask_mov_pd(r, _mm512_cmp_pd_mask(x, n, _CMP_EQ_OQ), _mm512_setzero_pd());
  return _mm512_scalef_pd(exp2_core(r), n);
}

// Eight lanes of vexp for double, < 1 ulp: vexp's clamps, Cody-Waite reduction and polynomial
// (exp_core), then one vscalefpd for 2^n where vexp takes two multiplies. The auto-vectorised
// vexp runs at about 4 cycles an element here; this at about half.
TT_VMATH_INLINE __m512d vexp_8d_of(__m512d x) {
  x = _mm512_max_pd(_mm512_set1_pd(-746.0), x);  // NaN (second operand) passes through both clamps
  x = _mm512_min_pd(_mm512_set1_pd(710.0), x);
  __m512d n = _mm512_roundscale_pd(_mm512_mul_pd(x, _mm512_set1_pd(f64::kLog2e)),
                                   _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  return _mm512_scalef_pd(exp_core(x, n), n);
}

// vsigmoid in eight double lanes, on vexp_8d_of (as vsigmoid16_of is on vexp16_of).
TT_VMATH_INLINE __m512d vsigmoid_8d_of(__m512d x) {
  __m512d e = vexp_8d_of(_mm512_sub_pd(_mm512_setzero_pd(), _mm512_abs_pd(x)));
  __m512d s = _mm512_div_pd(_mm512_set1_pd(1.0), _mm512_add_pd(_mm512_set1_pd(1.0), e));
  return _mm512_mask_mul_pd(s, _mm512_cmp_pd_mask(x, _mm512_setzero_pd(), _CMP_LT_OQ), e, s);
}
#endif

#if defined(__AVX2__) && defined(__FMA__) && !(defined(__AVX512F__) && defined(__AVX512DQ__))
// The same four functions in four AVX2 lanes, for CPUs without AVX-512. AVX2 has neither
// vscalefpd nor a double -> int64 conversion, so y 2^n is two multiplies by powers of two built
// in the exponent field (n + 1023 + 1.5 2^52 puts n + 1023 in the low mantissa bits; a 52-bit
// shift moves it to the exponent). With h = floor(n / 2) both factors are normal and the first
// product is exact, so the result rounds once, as vscalefpd's does: the lanes give the AVX-512
// lanes' results bit for bit (test_cpu_capability). n must lie in [-1080, 1030].
TT_VMATH_INLINE __m256d scale_pow2_4d(__m256d y, __m256d n) {
  const __m256d bias = _mm256_set1_pd(6755399441055744.0 + 1023.0);  // 1.5 2^52 + 1023
  auto pow2 = [&](__m256d e) {
    return _mm256_castsi256_pd(_mm256_slli_epi64(_mm256_castpd_si256(_mm256_add_pd(e, bias)), 52));
  };
  __m256d h = _mm256_floor_pd(_mm256_mul_pd(n, _mm256_set1_pd(0.5)));
  return _mm256_mul_pd(_mm256_mul_pd(y, pow2(h)), pow2(_mm256_sub_pd(n, h)));
}

TT_VMATH_INLINE __m256d round_4d(__m256d v) {
  return _mm256_round_pd(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
}

// vexp_8d_of in four lanes: the clamps keep n = round(x log2 e) in [-1077, 1025].
TT_VMATH_INLINE __m256d vexp_4d_of(__m256d x) {
  x = _mm256_max_pd(_mm256_set1_pd(-746.0), x);  // NaN (second operand) passes through both clamps
  x = _mm256_min_pd(_mm256_set1_pd(710.0), x);
  __m256d n = round_4d(_mm256_mul_pd(x, _mm256_set1_pd(f64::kLog2e)));
  return scale_pow2_4d(exp_core(x, n), n);
}

// vexp2_8d_of in four lanes. The clamps to [-1080, 1030] (results 0 and inf there) replace what
// vscalefpd does with a huge n; +-inf land on them and NaN passes through.
TT_VMATH_INLINE __m256d vexp2_4d_of(__m256d x) {
  x = _mm256_max_pd(_mm256_set1_pd(-1080.0), x);
  x = _mm256_min_pd(_mm256_set1_pd(1030.0), x);
  __m256d n = round_4d(x);
  return scale_pow2_4d(exp2_core(_mm256_sub_pd(x, n)), n);
}

TT_VMATH_INLINE __m256d vsigmoid_4d_of(__m256d x) {
  const __m256d zero = _mm256_setzero_pd(), one = _mm256_set1_pd(1.0);
  __m256d ax = _mm256_andnot_pd(_mm256_set1_pd(-0.0), x);
  __m256d e = vexp_4d_of(_mm256_sub_pd(zero, ax));
  __m256d s = _mm256_div_pd(one, _mm256_add_pd(one, e));
  return _mm256_blendv_pd(s, _mm256_mul_pd(e, s), _mm256_cmp_pd(x, zero, _CMP_LT_OQ));
}
#endif

// exp, exp2, sigmoid and silu for double in explicit AVX-512 or AVX2 lanes; false where there is
// no such path (the auto-vectorised scalar forms are used there).
template <UnaryOp Op>
bool double_lanes_span(double* o, const double* x, int64_t n) {
#if defined(__AVX512F__) && defined(__AVX512DQ__)
  auto f = [](__m512d v) {
    if constexpr (Op == UnaryOp::Exp) return vexp_8d_of(v);
    else if constexpr (Op == UnaryOp::Exp2) return vexp2_8d_of(v);
    else if constexpr (Op == UnaryOp::Sigmoid) return vsigmoid_8d_of(v);
    else return _mm512_mul_pd(v, vsigmoid_8d_of(v));
  };
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm512_storeu_pd(o + i, f(_mm512_loadu_pd(x + i)));
  if (i < n) {  // the tail under a mask
    __mmask8 m = static_cast<__mmask8>((1u << (n - i)) - 1u);
    _mm512_mask_storeu_pd(o + i, m, f(_mm512_maskz_loadu_pd(m, x + i)));
  }
  return true;
#elif defined(__AVX2__) && defined(__FMA__)
  auto f = [](__m256d v) {
    if constexpr (Op == UnaryOp::Exp) return vexp_4d_of(v);
    else if constexpr (Op == UnaryOp::Exp2) return vexp2_4d_of(v);
    else if constexpr (Op == UnaryOp::Sigmoid) return vsigmoid_4d_of(v);
    else return _mm256_mul_pd(v, vsigmoid_4d_of(v));
  };
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) _mm256_storeu_pd(o + i, f(_mm256_loadu_pd(x + i)));
  if (i < n) {  // the tail through a zero-padded block
    alignas(32) double in[4] = {0.0, 0.0, 0.0, 0.0}, res[4];
    for (int64_t j = i; j < n; ++j) in[j - i] = x[j];
    _mm256_store_pd(res, f(_mm256_load_pd(in)));
    for (int64_t j = i; j < n; ++j) o[j] = res[j - i];
  }
  return true;
#else
  (void)o;
  (void)x;
  (void)n;
  return false;
#endif
}

// exp / sigmoid / silu in explicit lanes (the auto-vectorised scalar forms are slower: GCC keeps
// the general two-step scaling and the selects), and log / log2 / log10 in AVX-512 lanes only.
// False: no such path on this instruction set.
template <UnaryOp Op>
bool float_lanes_span(float* o, const float* x, int64_t n) {
  constexpr bool kLog = Op == UnaryOp::Log || Op == UnaryOp::Log2 || Op == UnaryOp::Log10;
#if defined(__AVX512F__) && defined(__AVX512DQ__)
  auto f = [](__m512 v) {
    if constexpr (Op == UnaryOp::Exp) return vexp16_of(v);
    else if constexpr (Op == UnaryOp::Sigmoid) return vsigmoid16_of(v);
    else if constexpr (kLog) return vlog16_of<Op>(v);
    else return _mm512_mul_ps(v, vsigmoid16_of(v));
  };
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(o + i, f(_mm512_loadu_ps(x + i)));
  if (i < n) {  // the tail under a mask: no scalar loop, same results
    __mmask16 m = static_cast<__mmask16>((1u << (n - i)) - 1u);
    _mm512_mask_storeu_ps(o + i, m, f(_mm512_maskz_loadu_ps(m, x + i)));
  }
  return true;
#elif defined(__AVX2__) && defined(__FMA__)
  if constexpr (kLog) return false;  // the auto-vectorised vlogf, vlog2, vlog10
  const __m256 one = _mm256_set1_ps(1.0f), zero = _mm256_setzero_ps();
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256 v = _mm256_loadu_ps(x + i);
    __m256 r;
    if constexpr (Op == UnaryOp::Exp) {
      r = vexp8_of(v);
    } else {
      r = _mm256_div_ps(one, _mm256_add_ps(one, vexp8_of(_mm256_sub_ps(zero, v))));
      __m256 far = _mm256_cmp_ps(v, _mm256_set1_ps(-80.0f), _CMP_LT_OQ);
      if (__builtin_expect(_mm256_movemask_ps(far) != 0, 0)) {  // exp(-x) would clamp: e / (1 + e), e = exp(x)
        __m256 ex = vexp8_of(v);
        r = _mm256_blendv_ps(r, _mm256_div_ps(ex, _mm256_add_ps(one, ex)), far);
      }
      if constexpr (Op == UnaryOp::Silu) r = _mm256_mul_ps(v, r);
    }
    _mm256_storeu_ps(o + i, r);
  }
  for (; i < n; ++i) {
    float v = x[i];
    o[i] = Op == UnaryOp::Exp ? vexp(v) : Op == UnaryOp::Sigmoid ? vsigmoid(v) : v * vsigmoid(v);
  }
  return true;
#else
  (void)kLog;
  (void)o;
  (void)x;
  (void)n;
  return false;
#endif
}

// Below this |x| the reduced sin/cos forms are exact; above (and for NaN / inf) libm takes over.
template <class T>
constexpr T trig_limit = std::is_same_v<T, float> ? T(kTrigReduced) : T(kTrigReduced64);

// sin / cos / tan: the vectorised reduced form, per 1K block; a block holding |x| >= trig_limit
// (or NaN / inf) takes libm for those elements. The block is scanned before anything is written.
template <class T, UnaryOp K>
TT_VMATH_INLINE T trig_reduced(T x) {
  if constexpr (K == UnaryOp::Sin) return vsin_reduced(x);
  else if constexpr (K == UnaryOp::Cos) return vcos_reduced(x);
  else return vtan_reduced(x);
}
template <class T, UnaryOp K>
T trig_libm(T x) {
  if constexpr (K == UnaryOp::Sin) return std::sin(x);
  else if constexpr (K == UnaryOp::Cos) return std::cos(x);
  else return std::tan(x);
}
template <class T, UnaryOp K>
void trig_span(T* o, const T* x, int64_t n) {
  constexpr T limit = trig_limit<T>;
  for (int64_t i0 = 0; i0 < n; i0 += 1024) {
    int64_t i1 = n < i0 + 1024 ? n : i0 + 1024;
    int outside = 0;
    for (int64_t i = i0; i < i1; ++i) outside |= !(std::fabs(x[i]) < limit);
    if (!outside) {
#pragma GCC ivdep
      for (int64_t i = i0; i < i1; ++i) o[i] = trig_reduced<T, K>(x[i]);
    } else {
      for (int64_t i = i0; i < i1; ++i) {
        T v = x[i];
        o[i] = std::fabs(v) < limit ? trig_reduced<T, K>(v) : trig_libm<T, K>(v);
      }
    }
  }
}

// Whether `op` has a T -> T kernel here (then unary_span handles it).
template <class T>
bool has_unary_span(UnaryOp op) {
  return fp_unary_fn<T>(op, [](auto) {});
}

// o[i] = op(x[i]) for i < n; false when `op` has no floating-point kernel.
template <class T>
__attribute__((flatten)) bool unary_span(UnaryOp op, T* o, const T* x, int64_t n) {
  if (op == UnaryOp::Sin) return trig_span<T, UnaryOp::Sin>(o, x, n), true;
  if (op == UnaryOp::Cos) return trig_span<T, UnaryOp::Cos>(o, x, n), true;
  if (op == UnaryOp::Tan) return trig_span<T, UnaryOp::Tan>(o, x, n), true;
  if constexpr (std::is_same_v<T, double>) {
    if (op == UnaryOp::Exp && double_lanes_span<UnaryOp::Exp>(o, x, n)) return true;
    if (op == UnaryOp::Exp2 && double_lanes_span<UnaryOp::Exp2>(o, x, n)) return true;
    if (op == UnaryOp::Sigmoid && double_lanes_span<UnaryOp::Sigmoid>(o, x, n)) return true;
    if (op == UnaryOp::Silu && double_lanes_span<UnaryOp::Silu>(o, x, n)) return true;
  }
  if constexpr (std::is_same_v<T, float>) {
    switch (op) {
      case UnaryOp::Exp: if (float_lanes_span<UnaryOp::Exp>(o, x, n)) return true; break;
      case UnaryOp::Sigmoid: if (float_lanes_span<UnaryOp::Sigmoid>(o, x, n)) return true; break;
      case UnaryOp::Silu: if (float_lanes_span<UnaryOp::Silu>(o, x, n)) return true; break;
      case UnaryOp::Log: if (float_lanes_span<UnaryOp::Log>(o, x, n)) return true; break;
      case UnaryOp::Log2: if (float_lanes_span<UnaryOp::Log2>(o, x, n)) return true; break;
      case UnaryOp::Log10: if (float_lanes_span<UnaryOp::Log10>(o, x, n)) return true; break;
      default: break;
    }
  }
  return fp_unary_fn<T>(op, [&](auto f) {
#pragma GCC ivdep
    for (int64_t i = 0; i < n; ++i) o[i] = f(x[i]);
  });
}

// leaky_relu(x, slope) and elu(x, alpha) over one run, as selects (the branchy form stays scalar).
template <class T>
__attribute__((flatten)) void param_unary_span(ParamUnaryOp op, T* o, const T* x, int64_t n, T p) {
  if (op == ParamUnaryOp::LeakyRelu) {
#pragma GCC ivdep
    for (int64_t i = 0; i < n; ++i) {
      T v = x[i];
      o[i] = v > T(0) ? v : v * p;
    }
  } else {
#pragma GCC ivdep
    for (int64_t i = 0; i < n; ++i) {
      T v = x[i];
      T neg = p * vexpm1(v);
      o[i] = v > T(0) ? v : neg;
    }
  }
}

}  // inline namespace TT_VMATH_ISA
}  // namespace tt::cpu
