// The unary span kernels compiled for AVX-512 (CMake adds -march=x86-64-v4 to this file alone).
// Include nothing that defines inline functions outside the isa_avx512 namespace: see vmath.h.
// (GCC 12 warns about the undefined pass-through operand inside its own AVX-512 intrinsics.)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#define TT_VMATH_ISA isa_avx512
#include "unary_span.h"
#include "unary_wide.h"

namespace tt::cpu {

bool unary_span_wide(UnaryOp op, float* o, const float* x, int64_t n) {
  return isa_avx512::unary_span<float>(op, o, x, n);
}
bool unary_span_wide(UnaryOp op, double* o, const double* x, int64_t n) {
  return isa_avx512::unary_span<double>(op, o, x, n);
}

void param_unary_span_wide(ParamUnaryOp op, float* o, const float* x, int64_t n, float p) {
  isa_avx512::param_unary_span<float>(op, o, x, n, p);
}
void param_unary_span_wide(ParamUnaryOp op, double* o, const double* x, int64_t n, double p) {
  isa_avx512::param_unary_span<double>(op, o, x, n, p);
}

// gelu'(x) = Phi(x) + x phi(x) = (1 + erf(x / sqrt 2)) / 2 + x exp(-x^2 / 2) / sqrt(2 pi): verf's
// rational fit and vexp16_of in the same lanes, g multiplied in, one load of x and g and one store
// per sixteen elements. The span kernels' form (erf and exp as two spans over an L1 block, then a
// combining pass) took 1.4 ns an element at one thread, about 2.2x the forward's erf.
static inline __m512 gelu_erf_grad16(__m512 x) {
  const __m512 t = _mm512_mul_ps(x, _mm512_set1_ps(0.70710678118654752440f));
  const __m512 tc = _mm512_min_ps(_mm512_set1_ps(poly::kErfMax), _mm512_max_ps(_mm512_set1_ps(-poly::kErfMax), t));
  const __m512 t2 = _mm512_mul_ps(tc, tc);
  const __m512 erf = _mm512_div_ps(_mm512_mul_ps(tc, horner16(t2, poly::kErfP)), horner16(t2, poly::kErfQ));
  const __m512 pdf = vexp16_of(_mm512_mul_ps(_mm512_set1_ps(-0.5f), _mm512_mul_ps(x, x)));
  const __m512 cdf = _mm512_mul_ps(_mm512_set1_ps(0.5f), _mm512_add_ps(_mm512_set1_ps(1.0f), erf));
  return _mm512_fmadd_ps(x, _mm512_mul_ps(pdf, _mm512_set1_ps(0.39894228040143267794f)), cdf);
}

void gelu_erf_backward_wide(float* o, const float* g, const float* x, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16)
    _mm512_storeu_ps(o + i, _mm512_mul_ps(_mm512_loadu_ps(g + i), gelu_erf_grad16(_mm512_loadu_ps(x + i))));
  if (i < n) {  // the tail under a mask
    const __mmask16 m = static_cast<__mmask16>((1u << (n - i)) - 1u);
    const __m512 d = gelu_erf_grad16(_mm512_maskz_loadu_ps(m, x + i));
    _mm512_mask_storeu_ps(o + i, m, _mm512_mul_ps(_mm512_maskz_loadu_ps(m, g + i), d));
  }
}

// One pass where attention.cpp's shifted_exp takes four (clamp, exp, flush, then the row sum).
float shifted_exp_sum_wide(float* x, int64_t n, float shift, float floor, float flush_below) {
  const __m512 s = _mm512_set1_ps(shift), lo = _mm512_set1_ps(floor), flush = _mm512_set1_ps(flush_below);
  auto one = [&](__m512 v) {
    const __m512 e = vexp16_of(_mm512_max_ps(lo, _mm512_sub_ps(v, s)));  // NaN: max returns its second operand
    return _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(e, flush, _CMP_NLE_UQ), e);  // <= flush -> 0
  };
  __m512 acc = _mm512_setzero_ps();
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512 e = one(_mm512_loadu_ps(x + i));
    _mm512_storeu_ps(x + i, e);
    acc = _mm512_add_ps(acc, e);
  }
  if (i < n) {
    const __mmask16 m = static_cast<__mmask16>((1u << (n - i)) - 1u);
    const __m512 e = _mm512_maskz_mov_ps(m, one(_mm512_maskz_loadu_ps(m, x + i)));
    _mm512_mask_storeu_ps(x + i, m, e);
    acc = _mm512_add_ps(acc, e);
  }
  return _mm512_reduce_add_ps(acc);
}

// NOTE [ Half elementwise kernels ] (elementwise.cpp): the widening and rounding of half runs, 16
// lanes at a time, the tail under a mask. The bits of half_run.h's loops (round to nearest even,
// every NaN to 0x7fc0 for bfloat16; F16C's rounding for float16). Raw uint16_t, so no inline
// function of dtype.h is compiled here.
void widen_bf16_wide(const uint16_t* x, float* o, int64_t n) {
  for (int64_t i = 0; i < n; i += 16) {
    __mmask16 m = n - i >= 16 ? __mmask16(0xffff) : static_cast<__mmask16>((1u << (n - i)) - 1u);
    __m512i v = _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(m, x + i));
    _mm512_mask_storeu_ps(o + i, m, _mm512_castsi512_ps(_mm512_slli_epi32(v, 16)));
  }
}
void narrow_bf16_wide(const float* x, uint16_t* o, int64_t n) {
  const __m512i bias = _mm512_set1_epi32(0x7fff), one = _mm512_set1_epi32(1), qnan = _mm512_set1_epi32(0x7fc0);
  for (int64_t i = 0; i < n; i += 16) {
    __mmask16 m = n - i >= 16 ? __mmask16(0xffff) : static_cast<__mmask16>((1u << (n - i)) - 1u);
    __m512 f = _mm512_maskz_loadu_ps(m, x + i);
    __m512i u = _mm512_castps_si512(f);
    __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(u, 16), one);
    __m512i r = _mm512_srli_epi32(_mm512_add_epi32(_mm512_add_epi32(u, bias), lsb), 16);
    r = _mm512_mask_mov_epi32(r, _mm512_cmp_ps_mask(f, f, _CMP_UNORD_Q), qnan);
    _mm256_mask_storeu_epi16(o + i, m, _mm512_cvtepi32_epi16(r));
  }
}
void widen_f16_wide(const uint16_t* x, float* o, int64_t n) {
  for (int64_t i = 0; i < n; i += 16) {
    __mmask16 m = n - i >= 16 ? __mmask16(0xffff) : static_cast<__mmask16>((1u << (n - i)) - 1u);
    _mm512_mask_storeu_ps(o + i, m, _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(m, x + i)));
  }
}
void narrow_f16_wide(const float* x, uint16_t* o, int64_t n) {
  for (int64_t i = 0; i < n; i += 16) {
    __mmask16 m = n - i >= 16 ? __mmask16(0xffff) : static_cast<__mmask16>((1u << (n - i)) - 1u);
    __m256i h = _mm512_cvtps_ph(_mm512_maskz_loadu_ps(m, x + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    _mm256_mask_storeu_epi16(o + i, m, h);
  }
}

}  // namespace tt::cpu
