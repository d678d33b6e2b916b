#pragma once
// The AVX-512 copies of the unary span kernels (unary_avx512.cpp) and of the binary span kernels
// (binary_avx512.cpp), and the switch that picks them.
#include <cstdint>

#include "typedtensor/op_kinds.h"
#include "unary_fns.h"

namespace tt::cpu {

// True when the AVX-512 kernels were compiled in, this CPU (and OS) runs them, and they are not
// switched off (TYPEDTENSOR_CPU_CAPABILITY=avx2 in the environment, or set_wide_unary(false)).
bool wide_unary_enabled();
// Turns the AVX-512 kernels on or off (on only where supported); returns the new state.
bool set_wide_unary(bool on);
// "avx512" or "avx2" (or "default" off x86): the kernels unary ops run on now.
const char* cpu_capability();

// Only to be called when wide_unary_enabled(): same contract as unary_span in unary_span.h.
bool unary_span_wide(UnaryOp op, float* o, const float* x, int64_t n);
bool unary_span_wide(UnaryOp op, double* o, const double* x, int64_t n);
void param_unary_span_wide(ParamUnaryOp op, float* o, const float* x, int64_t n, float p);
void param_unary_span_wide(ParamUnaryOp op, double* o, const double* x, int64_t n, double p);
// Only to be called when wide_unary_enabled(): o[i] = g[i] * gelu'(x[i]) (the exact, erf form) for
// i < n, in one pass of AVX-512 lanes (act_backward.cpp).
void gelu_erf_backward_wide(float* o, const float* g, const float* x, int64_t n);
// Only to be called when wide_unary_enabled(): x[i] = exp(max(x[i] - shift, floor)) for i < n,
// results at or below flush set to 0 (attention.cpp's shifted_exp and its limits), in one pass of
// AVX-512 lanes; returns the sum of the results.
float shifted_exp_sum_wide(float* x, int64_t n, float shift, float floor, float flush);
// Only to be called when wide_unary_enabled(): same contract as binary_span in binary_span.h.
bool binary_span_wide(BinaryOp op, float* o, const float* x, const float* y, int64_t n);
bool binary_span_wide(BinaryOp op, double* o, const double* x, const double* y, int64_t n);
// Only to be called when wide_unary_enabled(): half_run.h's widen_run / narrow_run on the raw bits
// of bfloat16 and float16 runs, in AVX-512 lanes.
void widen_bf16_wide(const uint16_t* x, float* o, int64_t n);
void narrow_bf16_wide(const float* x, uint16_t* o, int64_t n);
void widen_f16_wide(const uint16_t* x, float* o, int64_t n);
void narrow_f16_wide(const float* x, uint16_t* o, int64_t n);

}  // namespace tt::cpu
