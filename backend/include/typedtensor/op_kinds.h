#pragma once
// The elementwise op kinds, apart from the rest of ops.h: the kernels compiled for a wider
// instruction set (backend/src/cpu/unary_avx512.cpp) include this and nothing that defines inline
// functions on tensors, so no inline function is ever emitted with those instructions and then
// picked by the linker for a machine without them.
#include <cstdint>

namespace tt {

enum class BinaryOp : uint8_t {
  Add, Sub, Mul, Div, FloorDiv, Remainder, Pow, Maximum, Minimum, Atan2,
  Eq, Ne, Lt, Le, Gt, Ge, LogicalAnd, LogicalOr, LogicalXor, BitAnd, BitOr, BitXor,
  Fmod, Hypot, Copysign
};
enum class UnaryOp : uint8_t {
  Neg, Abs, Exp, Exp2, Expm1, Log, Log2, Log10, Log1p, Sqrt, Rsqrt, Sin, Cos, Tan, Asin, Acos,
  Atan, Sinh, Cosh, Tanh, Asinh, Acosh, Atanh, Sigmoid, Relu, Gelu, GeluTanh, Silu, Erf, Erfc,
  Floor, Ceil, Round, Trunc, Frac, Sign, Reciprocal, Square, LogicalNot, BitNot, IsNan, IsInf,
  IsFinite, Softplus, Mish, Logsigmoid, Relu6, Hardsigmoid, Hardswish
};

}  // namespace tt
