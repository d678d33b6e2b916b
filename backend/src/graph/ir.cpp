// The IR: values, nodes, the text form and the verifier.
#include <algorithm>
#include <cstdio>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include "internal.h"
#include "typedtensor/op_info.h"
#include "typedtensor/device.h"
#include "typedtensor/ops.h"

namespace tt::graph {

const char* kind_name(ValueKind k) {
  switch (k) {
    case ValueKind::Input: return "input";
    case ValueKind::Capture: return "capture";
    case ValueKind::Const: return "const";
    default: return "node";
  }
}

namespace {
const char* short_dtype(DType d) {
  static const char* n[] = {"bool", "u8", "i32", "i64", "f16", "bf16", "f32", "f64"};
  return n[static_cast<int>(d)];
}

std::string fmt_double(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

std::string ints_str(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

// A one-element tensor's value as text (for printing constants).
std::string scalar_text(const Tensor& t) { return fmt_double(scalar_value(t)); }

bool has_kind(const std::string& op, OpKind k) {
  const OpInfo* info = primitive_info(op);
  return info && info->kind == k;
}

[[noreturn]] void fail(const Node& n, const std::string& msg) {
  throw GraphError("graph verifier: node " + n.op + ": " + msg);
}

// A node's outputs must have the types its primitive computes from its inputs' (output_types, the
// op's one shape computation): the primitive refuses inputs and attributes its kernels cannot take,
// so a loaded file (untrusted) can hold no node a kernel would misread.
void check_node(const Graph& g, const Node& n) {
  const int nv = static_cast<int>(g.values.size());
  TypeList in;
  for (int id : n.inputs) {
    if (id < 0) in.push_back({Shape{}, DType::Float32, false});
    else in.push_back({g.values[id].shape, g.values[id].dtype});
  }
  TypeList want;
  try {
    want = n.prim->output_types(in);
  } catch (const std::exception& e) {
    fail(n, e.what());
  }
  if (want.size() != n.outputs.size())
    fail(n, "expected " + std::to_string(want.size()) + " outputs, got " + std::to_string(n.outputs.size()));
  for (size_t i = 0; i < want.size(); ++i) {
    int id = n.outputs[i];
    if (id < 0 || id >= nv) fail(n, "output %" + std::to_string(id) + " does not exist");
    const Value& v = g.values[id];
    if (v.shape != want[i].shape)
      fail(n, "output " + std::to_string(i) + " shape " + shape_str(v.shape) + " != " + shape_str(want[i].shape));
    if (v.dtype != want[i].dtype)
      fail(n, "output " + std::to_string(i) + " dtype " + dtype_name(v.dtype) + " != " + dtype_name(want[i].dtype));
  }
}

}  // namespace

std::string attrs_str(const Params& p) {
  std::string s;
  for (const auto& [k, v] : p) {
    s += (s.empty() ? "" : ", ") + k + "=";
    if (auto i = std::get_if<int64_t>(&v)) s += std::to_string(*i);
    else if (auto d = std::get_if<double>(&v)) s += fmt_double(*d);
    else if (auto b = std::get_if<bool>(&v)) s += *b ? "true" : "false";
    else if (auto str = std::get_if<std::string>(&v)) s += *str;
    else s += ints_str(std::get<std::vector<int64_t>>(v));
  }
  return s;
}

std::string value_type_str(const Value& v) {
  std::string s = short_dtype(v.dtype);
  s += "[";
  for (size_t i = 0; i < v.shape.size(); ++i) s += (i ? ", " : "") + std::to_string(v.shape[i]);
  return s + "]";
}

bool is_elementwise(const std::string& op) { return has_kind(op, OpKind::Elementwise); }
bool is_view(const std::string& op) { return has_kind(op, OpKind::View) || has_kind(op, OpKind::StridedView); }

TensorList eval_primitive(const std::shared_ptr<Primitive>& p, const TensorList& inputs) {
  bool cuda = false;
  for (const auto& t : inputs)
    if (t.defined()) {
      cuda = t.device().type == DeviceType::CUDA;
      break;
    }
  // CUDA through the dispatch point: its device scope (allocations on the device) and its upload
  // of CPU scalars (a graph's constants live on the host); nothing is recorded (EvalGuard).
  return cuda ? apply(p, inputs) : p->eval_cpu(inputs);
}

int Graph::add_value(ValueKind k, const Shape& s, DType d, Tensor data) {
  Value v;
  v.kind = k;
  v.shape = s;
  v.dtype = d;
  v.data = std::move(data);
  values.push_back(std::move(v));
  return static_cast<int>(values.size()) - 1;
}

namespace {
void print_node(std::ostringstream& os, const Graph& g, const Node& n, const std::string& indent) {
  os << indent;
  for (size_t i = 0; i < n.outputs.size(); ++i) {
    const Value& v = g.values[n.outputs[i]];
    os << (i ? ", " : "") << "%" << n.outputs[i] << ": " << value_type_str(v);
    if (v.slot >= 0) os << " @buf" << v.slot;
  }
  os << " = " << n.op << "(";
  for (size_t i = 0; i < n.inputs.size(); ++i) os << (i ? ", " : "") << (n.inputs[i] < 0 ? "none" : "%" + std::to_string(n.inputs[i]));
  os << ")";
  if (n.attrs && !n.attrs->empty()) os << " {" << attrs_str(*n.attrs) << "}";
  if (!n.attrs && n.op != "fused") os << " {opaque}";
  if (auto* fk = dynamic_cast<const FusedKernel*>(n.prim.get())) {
    os << " [" << fk->mode() << "] {\n";
    for (const Node& b : fk->body()) print_node(os, g, b, indent + "    ");
    os << indent << "}";
  }
  os << "\n";
}
}  // namespace

std::string Graph::str() const {
  std::ostringstream os;
  os << "graph(";
  for (size_t i = 0; i < inputs.size(); ++i)
    os << (i ? ", " : "") << "%" << inputs[i] << ": " << value_type_str(values[inputs[i]]);
  os << ") {\n";
  // captures and constants used by the nodes or the outputs, in id order
  std::set<int> used(outputs.begin(), outputs.end());
  for (const Node& n : nodes) {
    used.insert(n.inputs.begin(), n.inputs.end());
    if (auto* fk = dynamic_cast<const FusedKernel*>(n.prim.get()))
      for (const Node& b : fk->body()) used.insert(b.inputs.begin(), b.inputs.end());
  }
  for (int id : used) {
    if (id < 0) continue;
    const Value& v = values[id];
    if (v.kind != ValueKind::Capture && v.kind != ValueKind::Const) continue;
    os << "  %" << id << ": " << value_type_str(v) << " = " << kind_name(v.kind);
    if (v.kind == ValueKind::Const && v.data.defined() && v.data.numel() == 1) os << " " << scalar_text(v.data);
    os << "\n";
  }
  for (const Node& n : nodes) print_node(os, *this, n, "  ");
  os << "  return (";
  for (size_t i = 0; i < outputs.size(); ++i) os << (i ? ", " : "") << "%" << outputs[i];
  os << ")\n}\n";
  return os.str();
}

void Graph::verify() const {
  const int nv = static_cast<int>(values.size());
  std::vector<char> defined(values.size(), 0);
  auto check_id = [&](int id, const char* what) {
    if (id < 0 || id >= nv) throw GraphError(std::string("graph verifier: ") + what + " refers to value %" + std::to_string(id) + " which does not exist");
  };
  std::set<int> seen_inputs;
  for (int id : inputs) {
    check_id(id, "an input");
    if (values[id].kind != ValueKind::Input || !seen_inputs.insert(id).second)
      throw GraphError("graph verifier: input %" + std::to_string(id) + " is not a distinct input value");
    defined[id] = 1;
  }
  for (int i = 0; i < nv; ++i) {
    const Value& v = values[i];
    if (v.kind == ValueKind::Capture || v.kind == ValueKind::Const) {
      if (!v.data.defined()) throw GraphError("graph verifier: %" + std::to_string(i) + " has no data");
      if (v.data.shape() != v.shape || v.data.dtype() != v.dtype)
        throw GraphError("graph verifier: %" + std::to_string(i) + " data does not match its type " + value_type_str(v));
      defined[i] = 1;
    }
  }
  auto define = [&](const Node& n, int id) {
    check_id(id, "a node output");
    if (values[id].kind != ValueKind::Node) fail(n, "output %" + std::to_string(id) + " is not a node value");
    if (defined[id]) fail(n, "value %" + std::to_string(id) + " is defined twice");
    defined[id] = 1;
  };
  auto use = [&](const Node& n, int id) {
    if (id == -1) return;
    check_id(id, "a node input");
    if (!defined[id]) fail(n, "uses %" + std::to_string(id) + " before it is defined");
  };
  for (const Node& n : nodes) {
    if (!n.prim) fail(n, "no primitive");
    for (int id : n.inputs) use(n, id);
    if (auto* fk = dynamic_cast<const FusedKernel*>(n.prim.get())) {
      if (fk->input_ids() != n.inputs || fk->output_ids() != n.outputs) fail(n, "kernel wiring differs from the node");
      std::vector<char> saved = defined;
      for (const Node& b : fk->body()) {
        for (int id : b.inputs) use(b, id);
        for (int id : b.outputs) {  // an absorbed expand may also stay in the graph: no twice-check here
          check_id(id, "a fused body output");
          defined[id] = 1;
        }
        check_node(*this, b);
      }
      defined = saved;
    } else {
      check_node(*this, n);
    }
    for (int id : n.outputs) define(n, id);
  }
  for (int id : outputs) {
    check_id(id, "an output");
    if (!defined[id]) throw GraphError("graph verifier: output %" + std::to_string(id) + " is never defined");
  }
}

std::shared_ptr<Graph> Graph::clone() const {
  auto g = std::make_shared<Graph>();
  g->values = values;
  g->inputs = inputs;
  g->outputs = outputs;
  g->nodes = nodes;
  g->passes_run = passes_run;
  g->saved_pipeline = saved_pipeline;
  g->num_slots = num_slots;
  g->writebacks = writebacks;
  g->write_into = write_into;
  return g;
}

std::vector<std::pair<std::string, int>> Graph::op_counts() const {
  std::map<std::string, int> m;
  for (const Node& n : nodes) ++m[n.op];
  return {m.begin(), m.end()};
}

void toposort(Graph& g) {
  std::vector<int> producer(g.values.size(), -1);
  for (size_t i = 0; i < g.nodes.size(); ++i)
    for (int o : g.nodes[i].outputs) producer[o] = static_cast<int>(i);
  std::vector<int> state(g.nodes.size(), 0);  // 0 new, 1 visiting, 2 done
  std::vector<Node> out;
  out.reserve(g.nodes.size());
  // iterative DFS in original order: a node is emitted after its producers
  for (size_t root = 0; root < g.nodes.size(); ++root) {
    if (state[root]) continue;
    std::vector<std::pair<int, size_t>> stack{{static_cast<int>(root), 0}};
    state[root] = 1;
    while (!stack.empty()) {
      auto& [ni, k] = stack.back();
      const Node& n = g.nodes[ni];
      if (k < n.inputs.size()) {
        int in = n.inputs[k++];
        int p = in >= 0 ? producer[in] : -1;
        if (p >= 0 && state[p] == 0) {
          state[p] = 1;
          stack.push_back({p, 0});
        } else if (p >= 0 && state[p] == 1) {
          throw GraphError("graph: cycle through node " + g.nodes[p].op);
        }
        continue;
      }
      state[ni] = 2;
      out.push_back(std::move(g.nodes[ni]));
      stack.pop_back();
    }
  }
  g.nodes = std::move(out);
}

double scalar_value(const Tensor& t) {
  EvalGuard guard;
  Tensor c = to_dtype(t, DType::Float64);
  if (c.device().type != DeviceType::CPU) c = to_device(c, Device{});  // a CUDA graph's constants
  return *contiguous(c).data<double>();
}

}  // namespace tt::graph
