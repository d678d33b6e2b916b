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

}  // namespace tt::cpu
