#pragma once
// Shared by the fusion pass (fusion.cpp), its code generator (fusion_codegen.cpp) and the fused-kernel
// runtime (fused_kernel.cpp); not installed.
#include <string>
#include <variant>

#include "internal.h"

namespace tt::graph {

template <class T>
const T* attr(const Node& n, const char* key) {
  if (!n.attrs) return nullptr;
  for (const auto& kv : *n.attrs)
    if (kv.first == key && std::holds_alternative<T>(kv.second)) return &std::get<T>(kv.second);
  return nullptr;
}

// C++ expression of a fusible node over operand names a, b; empty when the node is not fusible.
std::string expr(const Node& n, const std::string& a, const std::string& b, const std::string& c = "");
// The floating type a node computes in: its output's, or its operands' for a comparison (bool out).
DType compute_dtype(const Graph& g, const Node& n);
// A reduction the fuser can fold into a kernel: sum/mean/amax/amin over trailing dims.
bool is_reduction_tail(const Node& n);

}  // namespace tt::graph
