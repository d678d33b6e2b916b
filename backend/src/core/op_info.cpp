// Name lookups over the op table's lists (typedtensor/op_info.h).
#include "typedtensor/op_info.h"

#include <string>
#include <unordered_map>

namespace tt {
namespace {

constexpr bool same_name(const char* a, const char* b) {
  while (*a && *a == *b) ++a, ++b;
  return *a == *b;
}

// Every registry name appears once across the lists (a name -> op lookup must be unambiguous).
constexpr bool names_unique() {
  const OpInfo* tables[] = {detail::kUnaryInfo, detail::kBinaryInfo, detail::kReduceInfo, detail::kPrimitiveInfo};
  const size_t sizes[] = {std::size(detail::kUnaryInfo), std::size(detail::kBinaryInfo), std::size(detail::kReduceInfo),
                          std::size(detail::kPrimitiveInfo)};
  for (size_t t = 0; t < 4; ++t)
    for (size_t i = 0; i < sizes[t]; ++i)
      for (size_t u = t; u < 4; ++u)
        for (size_t j = u == t ? i + 1 : 0; j < sizes[u]; ++j)
          if (same_name(tables[t][i].name, tables[u][j].name)) return false;
  return true;
}
static_assert(names_unique(), "generated/ops.inc names an op twice");

template <class Op, size_t N>
std::optional<Op> find_named(const OpInfo (&table)[N], std::string_view name) {
  for (size_t i = 0; i < N; ++i)
    if (name == table[i].name) return static_cast<Op>(i);
  return std::nullopt;
}

}  // namespace

std::optional<UnaryOp> unary_op_named(std::string_view name) { return find_named<UnaryOp>(detail::kUnaryInfo, name); }
std::optional<BinaryOp> binary_op_named(std::string_view name) { return find_named<BinaryOp>(detail::kBinaryInfo, name); }
std::optional<ReduceOp> reduce_op_named(std::string_view name) { return find_named<ReduceOp>(detail::kReduceInfo, name); }

const OpInfo* primitive_info(std::string_view name) {
  static const std::unordered_map<std::string_view, const OpInfo*> by_name = [] {
    std::unordered_map<std::string_view, const OpInfo*> m;
    auto add = [&m](const auto& table) {
      for (const OpInfo& info : table) m.emplace(info.name, &info);
    };
    add(detail::kUnaryInfo);
    add(detail::kBinaryInfo);
    add(detail::kReduceInfo);
    add(detail::kPrimitiveInfo);
    return m;
  }();
  auto it = by_name.find(name);
  return it == by_name.end() ? nullptr : it->second;
}

}  // namespace tt
