#pragma once
// The op families' enums, expanded from the op table's lists (generated/ops.inc), apart from the
// rest of ops.h: the kernels compiled for a wider instruction set (backend/src/cpu/unary_avx512.cpp)
// include this and nothing that defines inline functions, so no inline function is ever emitted with
// those instructions and then picked by the linker for a machine without them. The per-op facts
// (names, dtype rules, ...) are in typedtensor/op_info.h.
#include <cstdint>

#include "typedtensor/generated/ops.inc"

namespace tt {

#define TT_OP_ENUM_ENTRY(E, ...) E,
enum class BinaryOp : uint8_t { TT_BINARY_OPS(TT_OP_ENUM_ENTRY) };
enum class UnaryOp : uint8_t { TT_UNARY_OPS(TT_OP_ENUM_ENTRY) };
enum class ReduceOp : uint8_t { TT_REDUCE_OPS(TT_OP_ENUM_ENTRY) };
#undef TT_OP_ENUM_ENTRY

// The columns of the op table's lists (generated/ops.inc explains each value).
enum class DTypeRule : uint8_t { Same, Float, FloatOnly, Accumulate, Compare, Logical, Integral };
enum class OpDevice : uint8_t { Cuda, HostFallback, CpuOnly };
enum class OpKind : uint8_t { Elementwise, View, StridedView, Reduction, Index, Other };

}  // namespace tt
