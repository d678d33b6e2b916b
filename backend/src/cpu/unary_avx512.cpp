// The unary span kernels compiled for AVX-512 (CMake adds -march=x86-64-v4 to this file alone).
// (GCC 12 warns about the undefined pass-through operand inside its own AVX-512 intrinsics.)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
// Include nothing that defines inline functions outside the isa_avx512 namespace: see vmath.h.
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

}  // namespace tt::cpu
