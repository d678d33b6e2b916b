#pragma once
// The op table's per-op facts (generated/ops.inc) as data: every list of op names, dtype rules,
// gradient status, devices, graph-file support and fusion expressions in the backend reads them
// here, so an op is described once.
#include <cstddef>
#include <iterator>
#include <optional>
#include <string_view>

#include "typedtensor/op_kinds.h"

namespace tt {

struct OpInfo {
  const char* name;  // the registry name
  OpKind kind;
  DTypeRule dtype;
  bool differentiable;
  OpDevice device;
  bool saveable;       // graph files can hold it
  const char* fusion;  // its expression in a fused kernel ("" when it is not fused)
};

namespace detail {
#define TT_OP_INFO(kind, name, dt, diff, dev, save, fusion) \
  OpInfo{name, OpKind::kind, DTypeRule::dt, diff, OpDevice::dev, save, fusion},
#define TT_ELEMENTWISE_OP_INFO(E, ...) TT_OP_INFO(Elementwise, __VA_ARGS__)
#define TT_REDUCTION_OP_INFO(E, ...) TT_OP_INFO(Reduction, __VA_ARGS__)
#define TT_PRIMITIVE_INFO(name, kind, ...) TT_OP_INFO(kind, name, Same, __VA_ARGS__)
inline constexpr OpInfo kUnaryInfo[] = {TT_UNARY_OPS(TT_ELEMENTWISE_OP_INFO)};
inline constexpr OpInfo kBinaryInfo[] = {TT_BINARY_OPS(TT_ELEMENTWISE_OP_INFO)};
inline constexpr OpInfo kReduceInfo[] = {TT_REDUCE_OPS(TT_REDUCTION_OP_INFO)};
inline constexpr OpInfo kPrimitiveInfo[] = {TT_PRIMITIVES(TT_PRIMITIVE_INFO)};
#undef TT_PRIMITIVE_INFO
#undef TT_REDUCTION_OP_INFO
#undef TT_ELEMENTWISE_OP_INFO
#undef TT_OP_INFO
}  // namespace detail

constexpr int kNumUnaryOps = static_cast<int>(std::size(detail::kUnaryInfo));
constexpr int kNumBinaryOps = static_cast<int>(std::size(detail::kBinaryInfo));
constexpr int kNumReduceOps = static_cast<int>(std::size(detail::kReduceInfo));

constexpr const OpInfo& op_info(UnaryOp op) { return detail::kUnaryInfo[static_cast<int>(op)]; }
constexpr const OpInfo& op_info(BinaryOp op) { return detail::kBinaryInfo[static_cast<int>(op)]; }
constexpr const OpInfo& op_info(ReduceOp op) { return detail::kReduceInfo[static_cast<int>(op)]; }

// The enum value of a registry name, if it names one (graph load, bindings).
std::optional<UnaryOp> unary_op_named(std::string_view name);
std::optional<BinaryOp> binary_op_named(std::string_view name);
std::optional<ReduceOp> reduce_op_named(std::string_view name);
// Any primitive by its registry name (the enum families' ops too); nullptr for an unknown name.
const OpInfo* primitive_info(std::string_view name);

// Bool-valued ops (comparisons, logical ops, isnan / isinf / isfinite).
constexpr bool bool_result(DTypeRule r) { return r == DTypeRule::Compare || r == DTypeRule::Logical; }

}  // namespace tt
