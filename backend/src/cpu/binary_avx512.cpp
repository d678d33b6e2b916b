// The binary span kernels compiled for AVX-512 (CMake adds -march=x86-64-v4 to this file alone,
// as to unary_avx512.cpp). Include nothing that defines inline functions outside the isa_avx512
// namespace: see vmath.h.
// (GCC 12 warns about the undefined pass-through operand inside its own AVX-512 intrinsics.)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#define TT_VMATH_ISA isa_avx512
#include "binary_span.h"
#include "unary_wide.h"

namespace tt::cpu {

bool binary_span_wide(BinaryOp op, float* o, const float* x, const float* y, int64_t n) {
  return isa_avx512::binary_span<float>(op, o, x, y, n);
}
bool binary_span_wide(BinaryOp op, double* o, const double* x, const double* y, int64_t n) {
  return isa_avx512::binary_span<double>(op, o, x, y, n);
}

}  // namespace tt::cpu
