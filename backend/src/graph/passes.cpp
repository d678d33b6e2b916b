// Rewrites: dead-code and common-subexpression elimination, constant folding, algebraic rules.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <set>

#include "internal.h"
#include "typedtensor/device.h"
#include "typedtensor/ops.h"

namespace tt::graph {

std::vector<int> producers(const Graph& g) {
  std::vector<int> p(g.values.size(), -1);
  for (size_t i = 0; i < g.nodes.size(); ++i)
    for (int o : g.nodes[i].outputs) p[o] = static_cast<int>(i);
  return p;
}

namespace {

// Replaces uses of value `from` by `to` in every node input (also inside fused bodies) and output.
void replace_uses(Graph& g, const std::map<int, int>& m) {
  if (m.empty()) return;
  auto f = [&](int id) {
    auto it = m.find(id);
    return it == m.end() ? id : it->second;
  };
  for (Node& n : g.nodes)
    for (int& id : n.inputs) id = f(id);
  for (int& id : g.outputs) id = f(id);
}

// The value of a one-element constant, looking through expand/reshape views of it.
// The value of a one-element constant seen through expand/reshape views, and through add/sub/mul of
// such constants (a VJP's `c - 1` exponent, before `fold` runs): these are exact in double for
// float32/float64 operands, so an identity test (== 0, 1, 2) on the result is exact too.
std::optional<double> scalar_const(const Graph& g, const std::vector<int>& prod, int v, int depth = 0) {
  for (; depth < 8 && v >= 0; ++depth) {
    const Value& val = g.values[v];
    if (val.kind == ValueKind::Const && val.data.defined() && val.data.numel() == 1) {
      return scalar_value(val.data);
    }
    int p = prod[v];
    if (p < 0) return std::nullopt;
    const Node& n = g.nodes[p];
    if ((n.op == "add" || n.op == "sub" || n.op == "mul") && n.inputs.size() == 2 && shape_numel(val.shape) >= 1 &&
        (val.dtype == DType::Float32 || val.dtype == DType::Float64)) {
      auto a = scalar_const(g, prod, n.inputs[0], depth + 1), b = scalar_const(g, prod, n.inputs[1], depth + 1);
      if (!a || !b) return std::nullopt;
      return n.op == "add" ? *a + *b : n.op == "sub" ? *a - *b : *a * *b;
    }
    if (n.op != "expand" && n.op != "reshape") return std::nullopt;
    v = n.inputs[0];
  }
  return std::nullopt;
}

// true / false when v is a bool constant (seen through expand/reshape views) whose elements are all
// that value; nullopt otherwise.
std::optional<bool> uniform_bool_const(const Graph& g, const std::vector<int>& prod, int v) {
  for (int depth = 0; depth < 8 && v >= 0; ++depth) {
    const Value& val = g.values[v];
    if (val.kind == ValueKind::Const && val.data.defined() && val.dtype == DType::Bool) {
      EvalGuard guard;
      Tensor c = contiguous(val.data.device().type == DeviceType::CPU ? val.data : to_device(val.data, Device{}));
      const bool* p = c.data<bool>();
      int64_t n = c.numel();
      if (n == 0) return std::nullopt;
      for (int64_t i = 1; i < n; ++i)
        if (p[i] != p[0]) return std::nullopt;
      return p[0];
    }
    int p = prod[v];
    if (p < 0) return std::nullopt;
    const Node& n = g.nodes[p];
    auto bop = binary_op_named(n.op);
    if (bop && op_info(*bop).dtype == DTypeRule::Compare && n.inputs.size() == 2) {  // a comparison of constants, before `fold`
      auto a = scalar_const(g, prod, n.inputs[0]), b = scalar_const(g, prod, n.inputs[1]);
      if (!a || !b) return std::nullopt;
      const std::string& o = n.op;
      return o == "eq" ? *a == *b : o == "ne" ? *a != *b : o == "lt" ? *a < *b : o == "le" ? *a <= *b
                                                                          : o == "gt" ? *a > *b : *a >= *b;
    }
    if (n.op != "expand" && n.op != "reshape") return std::nullopt;
    v = n.inputs[0];
  }
  return std::nullopt;
}

template <class T>
const T* attr(const Node& n, const char* key) {
  if (!n.attrs) return nullptr;
  for (const auto& kv : *n.attrs)
    if (kv.first == key && std::holds_alternative<T>(kv.second)) return &std::get<T>(kv.second);
  return nullptr;
}

void remake(Node& n, Params attrs) {
  n.prim = make_primitive(n.op, attrs);
  if (!n.prim) throw GraphError("graph: cannot rebuild primitive " + n.op);
  n.attrs = std::move(attrs);
}

}  // namespace

bool dce(Graph& g) {
  std::vector<char> live(g.values.size(), 0);
  for (int o : g.outputs) live[o] = 1;
  std::vector<char> keep(g.nodes.size(), 0);
  for (size_t k = g.nodes.size(); k-- > 0;) {
    const Node& n = g.nodes[k];
    bool used = false;
    for (int o : n.outputs) used = used || live[o];
    if (!used) continue;
    keep[k] = 1;
    for (int i : n.inputs)
      if (i >= 0) live[i] = 1;
  }
  std::vector<Node> out;
  for (size_t k = 0; k < g.nodes.size(); ++k)
    if (keep[k]) out.push_back(std::move(g.nodes[k]));
  bool changed = out.size() != g.nodes.size();
  g.nodes = std::move(out);
  return changed;
}

bool cse(Graph& g) {
  std::map<int, int> rename;
  // equal one-element constants first (the same Python number written twice)
  std::map<std::string, int> consts;
  for (size_t i = 0; i < g.values.size(); ++i) {
    const Value& v = g.values[i];
    if (v.kind != ValueKind::Const || !v.data.defined() || v.data.numel() != 1) continue;
    double d = scalar_value(v.data);
    if (d != d) continue;  // NaN
    // the exact value (std::to_string's six decimals made 1e-8 and 0 one constant)
    char exact[40];
    std::snprintf(exact, sizeof exact, "%a", d);
    std::string key = value_type_str(v) + "=" + exact;
    auto [it, fresh] = consts.emplace(key, static_cast<int>(i));
    if (!fresh) rename[static_cast<int>(i)] = it->second;
  }
  replace_uses(g, rename);
  bool changed = !rename.empty();
  std::map<std::string, const Node*> seen;
  for (Node& n : g.nodes) {
    if (!rename.empty())
      for (int& id : n.inputs) {
        auto it = rename.find(id);
        if (it != rename.end()) id = it->second;
      }
    if (!n.attrs || n.op == "fused") continue;
    std::string key = n.op + "{" + attrs_str(*n.attrs) + "}(";
    for (int id : n.inputs) key += std::to_string(id) + ",";
    auto [it, fresh] = seen.emplace(key, &n);
    if (fresh) continue;
    for (size_t i = 0; i < n.outputs.size(); ++i) rename[n.outputs[i]] = it->second->outputs[i];
    changed = true;
  }
  replace_uses(g, rename);
  if (changed) dce(g);
  return changed;
}

bool fold_constants(Graph& g) {
  constexpr int64_t kMaxFold = int64_t(1) << 16;
  bool changed = false;
  // views of constants stay views in the graph (free at run time; a broadcast would only bloat
  // the constant) but their values feed the folding of the compute nodes that read them
  std::map<int, Tensor> const_view;
  auto value_of = [&](int id) -> const Tensor* {
    if (id < 0) return nullptr;
    if (g.values[id].kind == ValueKind::Const) return &g.values[id].data;
    auto it = const_view.find(id);
    return it == const_view.end() ? nullptr : &it->second;
  };
  std::vector<Node> out;
  for (Node& n : g.nodes) {
    bool all_const = !n.inputs.empty() && n.attrs && n.op != "fused";
    TensorList ins;
    for (int id : n.inputs) {
      const Tensor* t = value_of(id);
      all_const = all_const && t != nullptr;
      if (t) ins.push_back(*t);
    }
    int64_t numel = 0;
    for (int o : n.outputs) numel += shape_numel(g.values[o].shape);
    if (!all_const || (!is_view(n.op) && numel > kMaxFold)) {
      out.push_back(std::move(n));
      continue;
    }
    TensorList res;
    {
      EvalGuard guard;
      res = eval_primitive(n.prim, ins);
      if (!is_view(n.op))
        for (Tensor& t : res) t = contiguous(t);
    }
    if (is_view(n.op)) {
      for (size_t i = 0; i < n.outputs.size(); ++i) const_view[n.outputs[i]] = res[i];
      out.push_back(std::move(n));
      continue;
    }
    for (size_t i = 0; i < n.outputs.size(); ++i) {
      Value& v = g.values[n.outputs[i]];
      v.kind = ValueKind::Const;
      v.data = res[i];
    }
    changed = true;
  }
  g.nodes = std::move(out);
  if (changed) dce(g);
  return changed;
}

bool simplify(Graph& g) {
  bool changed_any = false;
  for (int round = 0; round < 16; ++round) {
    bool changed = false;
    std::vector<int> prod = producers(g);
    std::map<int, int> rename;
    auto same_type = [&](int a, int b) {
      return g.values[a].shape == g.values[b].shape && g.values[a].dtype == g.values[b].dtype;
    };
    auto forward = [&](const Node& n, int to) {
      if (to >= 0 && same_type(n.outputs[0], to)) {
        rename[n.outputs[0]] = to;
        changed = true;
      }
    };
    for (Node& n : g.nodes) {
      for (int& id : n.inputs) {
        auto it = rename.find(id);
        if (it != rename.end()) id = it->second;
      }
      if (!n.attrs || n.outputs.size() != 1) continue;
      const std::string& op = n.op;
      auto c = [&](size_t i) { return i < n.inputs.size() ? scalar_const(g, prod, n.inputs[i]) : std::nullopt; };
      auto is = [&](size_t i, double v) {
        auto x = c(i);
        return x && *x == v;
      };
      if (op == "add") {
        if (is(1, 0)) forward(n, n.inputs[0]);
        else if (is(0, 0)) forward(n, n.inputs[1]);
      } else if (op == "sub") {
        if (is(1, 0)) forward(n, n.inputs[0]);
      } else if (op == "mul") {
        if (is(1, 1)) forward(n, n.inputs[0]);
        else if (is(0, 1)) forward(n, n.inputs[1]);
      } else if (op == "div" || op == "pow") {
        if (is(1, 1)) {
          forward(n, n.inputs[0]);
        } else if (op == "pow" && is(1, 2) && same_type(n.outputs[0], n.inputs[0])) {
          // x ** 2 -> x * x: exact for every float (signs, zeros, infinities, NaN), and a multiply
          // instead of a libm pow per element (the MSE losses' square)
          n.op = "mul";
          n.inputs[1] = n.inputs[0];
          remake(n, Params{});
          changed = true;
        }
      } else if (op == "where" && n.inputs.size() == 3) {
        // a constant condition (a VJP's mask of a constant, e.g. `b != 0` for pow's exponent)
        if (auto all = uniform_bool_const(g, prod, n.inputs[0])) forward(n, n.inputs[*all ? 1 : 2]);
      } else if (op == "neg") {
        int p = prod[n.inputs[0]];
        if (p >= 0 && g.nodes[p].op == "neg") forward(n, g.nodes[p].inputs[0]);
      } else if (op == "expand" || op == "reshape" || op == "to") {
        int x = n.inputs[0];
        if (same_type(n.outputs[0], x)) {
          forward(n, x);
        } else if (op == "reshape") {
          int p = prod[x];
          if (p >= 0 && g.nodes[p].op == "reshape") {  // reshape chain: keep the last
            n.inputs[0] = g.nodes[p].inputs[0];
            if (same_type(n.outputs[0], n.inputs[0])) forward(n, n.inputs[0]);
            changed = true;
          }
        }
      } else if (op == "contiguous") {
        int p = prod[n.inputs[0]];
        if (p >= 0 && !is_view(g.nodes[p].op)) forward(n, n.inputs[0]);
      } else if (op == "permute") {
        int p = prod[n.inputs[0]];
        const auto* q = attr<std::vector<int64_t>>(n, "dims");
        if (p >= 0 && g.nodes[p].op == "permute" && q) {
          const auto* first = attr<std::vector<int64_t>>(g.nodes[p], "dims");
          std::vector<int64_t> r(q->size());
          bool identity = true;
          for (size_t i = 0; i < q->size(); ++i) {
            r[i] = (*first)[(*q)[i]];
            identity = identity && r[i] == static_cast<int64_t>(i);
          }
          int x = g.nodes[p].inputs[0];
          if (identity) {
            forward(n, x);
          } else {
            n.inputs[0] = x;
            remake(n, Params{{"dims", r}});
            changed = true;
          }
        } else if (q) {
          bool identity = true;
          for (size_t i = 0; i < q->size(); ++i) identity = identity && (*q)[i] == static_cast<int64_t>(i);
          if (identity) forward(n, n.inputs[0]);
        }
      }
    }
    replace_uses(g, rename);
    if (!changed) break;
    changed_any = true;
    dce(g);
  }
  return changed_any;
}

void unfuse(Graph& g) {
  // An expand absorbed into a kernel may also stay in the graph or in another kernel's body: each
  // value is defined once, by its first definition in program order.
  std::vector<char> defined(g.values.size(), 0);
  std::vector<Node> out;
  auto emit = [&](Node n) {
    bool dup = !n.outputs.empty();
    for (int o : n.outputs) dup = dup && defined[o];
    if (dup) return;
    for (int o : n.outputs) defined[o] = 1;
    out.push_back(std::move(n));
  };
  for (Node& n : g.nodes) {
    if (auto* fk = dynamic_cast<FusedKernel*>(n.prim.get())) {
      for (const Node& b : fk->body()) emit(b);
    } else {
      emit(std::move(n));
    }
  }
  g.nodes = std::move(out);
  for (Value& v : g.values) v.slot = -1;
  g.num_slots = 0;
}

const std::vector<std::string>& default_pipeline() {
  static const std::vector<std::string> p = {"simplify",   "fold",          "cse",  "dce",     "relu_pool", "pool_sums",
                                             "conv_pool",  "split_sums",    "hoist_scalars",  "fuse", "epilogue",
                                             "memplan"};
  return p;
}

bool run_pass(Graph& g, const std::string& name) {
  bool changed;
  if (name != "memplan") g.write_into.clear();  // planned for the node list memplan saw
  if (name == "dce") changed = dce(g);
  else if (name == "cse") changed = cse(g);
  else if (name == "fold") changed = fold_constants(g);
  else if (name == "simplify") changed = simplify(g);
  else if (name == "relu_pool") changed = swap_relu_max_pool(g);
  else if (name == "pool_sums") changed = sum_pool_gradients(g);
  else if (name == "conv_pool") changed = fuse_conv_max_pool(g);
  else if (name == "split_sums") changed = split_strided_sums(g);
  else if (name == "hoist_scalars") changed = hoist_scalar_nodes(g);
  else if (name == "fuse") changed = fuse(g);
  else if (name == "epilogue") changed = epilogue(g);
  else if (name == "memplan") changed = plan_memory(g);
  else {
    std::string known;
    for (const std::string& p : default_pipeline()) known += (known.empty() ? "" : ", ") + p;
    throw ValueError("tt.compile: unknown pass '" + name + "' (known: " + known + ")");
  }
  g.passes_run.push_back(name);
  g.verify();
  return changed;
}

}  // namespace tt::graph
