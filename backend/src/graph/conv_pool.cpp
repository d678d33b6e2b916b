// The graph rewrites around max-pooling that follow `relu_pool` (NOTE [ ReLU before max-pooling ] in
// fusion.cpp): `pool_sums` and `conv_pool`.
#include <map>

#include "fusion.h"
#include "typedtensor/ops.h"

namespace tt::graph {
namespace {

bool is_float(DType d) { return d == DType::Float32 || d == DType::Float64; }

// The nodes that read each value (a node once per operand slot).
std::vector<std::vector<size_t>> readers(const Graph& g) {
  std::vector<std::vector<size_t>> users(g.values.size());
  for (size_t i = 0; i < g.nodes.size(); ++i)
    for (int v : g.nodes[i].inputs)
      if (v >= 0) users[static_cast<size_t>(v)].push_back(i);
  return users;
}

}  // namespace

// NOTE [ Pooled bias gradients ]
// A convolution's bias gradient sums its output gradient over N, H and W. Behind a max-pooling that
// gradient is max_pool2d_backward(g, idx): each pooled gradient added at its window's argmax, zeros
// elsewhere. Every element of g lands at exactly one position of its own plane (the indices are
// checked per run), so the plane's sum is g's plane sum:
//   sum(max_pool2d_backward(g, idx), dims incl. H and W)  ->  sum(g, the same dims)
// which reads the pooled gradient (a quarter of the elements for 2x2 pooling) instead of the
// conv-sized one. Equal up to the order of the additions.
bool sum_pool_gradients(Graph& g) {
  const std::vector<int> prod = producers(g);
  bool changed = false;
  for (Node& n : g.nodes) {
    const auto* mask = attr<std::vector<int64_t>>(n, "mask");
    if (n.op != "sum" || !mask || mask->size() != 4 || !(*mask)[2] || !(*mask)[3] || n.inputs.size() != 1 ||
        n.inputs[0] < 0)
      continue;
    const int b = prod[static_cast<size_t>(n.inputs[0])];
    if (b < 0) continue;
    const Node& B = g.nodes[static_cast<size_t>(b)];
    if (B.op != "max_pool2d_backward" || B.inputs.size() != 2 || B.inputs[0] < 0) continue;
    const Value& gv = g.values[static_cast<size_t>(B.inputs[0])];
    if (gv.shape.size() != 4 || gv.dtype != g.values[static_cast<size_t>(n.inputs[0])].dtype) continue;
    n.inputs[0] = B.inputs[0];  // the same mask and keepdim: the summed dims are gone either way
    changed = true;
  }
  return changed;
}

// NOTE [ Fused convolution and pooling ]
// The `conv_pool` pass. Forward: conv2d -> max_pool2d, and the relu `relu_pool` moved behind the
// pooling, become one conv2d_max_pool2d node when the pooling is the convolution's only reader
// (and the relu the pooled values' only one). The convolution's output then never exists whole:
// each thread convolves a few samples into a scratch buffer that stays in L2 and pools from it
// (NOTE [ Convolution then max-pooling ] in cpu/conv.cpp). Nothing else needs it: conv2d's
// gradients read its input and weight, the pooling's backward reads its argmax indices, and after
// `relu_pool` the relu mask is the pooled output. The values and indices are conv2d's and
// max_pool2d's bits.
// Backward: where every reader of g = max_pool2d_backward(gp, idx) is a conv2d_backward_weight or
// conv2d_backward_input (after `pool_sums` has moved the bias gradient onto gp), each becomes its
// `_pooled` form, reading gp and idx, and g is never made whole: each of them scatters it a sample
// at a time into a buffer in cache right before the GEMM that reads it (NOTE [ Gradients behind a
// max-pooling ] in cpu/conv_backward.cpp). The same bits.
namespace {
bool fuse_pooled_gradients(Graph& g) {
  const std::vector<std::vector<size_t>> users = readers(g);
  std::vector<char> is_output(g.values.size(), 0);
  for (int o : g.outputs) is_output[static_cast<size_t>(o)] = 1;
  std::vector<char> drop(g.nodes.size(), 0);
  bool changed = false;
  for (size_t bi = 0; bi < g.nodes.size(); ++bi) {
    const Node& B = g.nodes[bi];
    if (B.op != "max_pool2d_backward" || !B.attrs || B.inputs.size() != 2 || B.inputs[0] < 0 || B.inputs[1] < 0 ||
        B.outputs.size() != 1)
      continue;
    const auto d = static_cast<size_t>(B.outputs[0]);
    if (is_output[d] || users[d].empty() || !is_float(g.values[d].dtype)) continue;
    bool ok = true;
    for (size_t u : users[d]) {
      const Node& R = g.nodes[u];
      ok = ok && (R.op == "conv2d_backward_weight" || R.op == "conv2d_backward_input") && R.inputs.size() == 2 &&
           R.inputs[0] == static_cast<int>(d) && R.inputs[1] >= 0 && attr<std::vector<int64_t>>(R, "geom") &&
           attr<std::vector<int64_t>>(R, "shape");
    }
    if (!ok) continue;
    for (size_t u : users[d]) {
      Node& R = g.nodes[u];
      Params attrs{{"geom", *attr<std::vector<int64_t>>(R, "geom")},
                   {"shape", *attr<std::vector<int64_t>>(R, "shape")},
                   {"conv_shape", g.values[d].shape.vec()}};
      const std::string op = R.op + "_pooled";
      R.prim = make_primitive(op, attrs);
      R.op = op;
      R.attrs = std::move(attrs);
      R.inputs = {B.inputs[0], B.inputs[1], R.inputs[1]};
    }
    drop[bi] = 1;
    changed = true;
  }
  if (!changed) return false;
  std::vector<Node> out;
  for (size_t i = 0; i < g.nodes.size(); ++i)
    if (!drop[i]) out.push_back(std::move(g.nodes[i]));
  g.nodes = std::move(out);
  return true;
}

bool fuse_forward_conv_max_pool(Graph& g) {
  const size_t nn = g.nodes.size();
  const std::vector<int> prod = producers(g);
  const std::vector<std::vector<size_t>> users = readers(g);
  std::vector<char> is_output(g.values.size(), 0);
  for (int o : g.outputs) is_output[static_cast<size_t>(o)] = 1;
  std::vector<char> drop(nn, 0);
  std::map<size_t, Node> replace;  // the pooling's index -> the fused node in its place
  for (size_t pi = 0; pi < nn; ++pi) {
    const Node& P = g.nodes[pi];
    const auto* pool = attr<std::vector<int64_t>>(P, "geom");
    if (P.op != "max_pool2d" || !pool || pool->size() != 11 || P.inputs.size() != 1 || P.outputs.size() != 2 ||
        P.inputs[0] < 0)
      continue;
    const auto c = static_cast<size_t>(P.inputs[0]);
    const int ci = prod[c];
    if (ci < 0 || is_output[c] || users[c].size() != 1 || drop[static_cast<size_t>(ci)]) continue;
    const Node& C = g.nodes[static_cast<size_t>(ci)];
    const auto* geom = attr<std::vector<int64_t>>(C, "geom");
    const auto* bias = attr<bool>(C, "bias");
    if (C.op != "conv2d" || !geom || geom->size() != 9 || !bias || C.outputs.size() != 1 || !is_float(g.values[c].dtype))
      continue;
    // the relu behind the pooling joins when it is the pooled values' only reader
    const auto pooled = static_cast<size_t>(P.outputs[0]);
    int ri = -1;
    if (!is_output[pooled] && users[pooled].size() == 1) {
      const size_t u = users[pooled][0];
      const Node& R = g.nodes[u];
      if (R.op == "relu" && R.attrs && R.inputs.size() == 1 && R.outputs.size() == 1 &&
          g.values[static_cast<size_t>(R.outputs[0])].dtype == g.values[pooled].dtype && !drop[u])
        ri = static_cast<int>(u);
    }
    Node F;
    F.op = "conv2d_max_pool2d";
    Params attrs{{"conv", *geom},
                 {"bias", *bias},
                 {"pool", std::vector<int64_t>(pool->begin(), pool->begin() + 10)},  // less the avg-pool divisor
                 {"relu", ri >= 0}};
    F.prim = make_primitive(F.op, attrs);
    F.attrs = std::move(attrs);
    F.inputs = C.inputs;
    F.outputs = {ri >= 0 ? g.nodes[static_cast<size_t>(ri)].outputs[0] : P.outputs[0], P.outputs[1]};
    F.where = C.where;
    replace[pi] = std::move(F);
    drop[static_cast<size_t>(ci)] = 1;
    if (ri >= 0) drop[static_cast<size_t>(ri)] = 1;
  }
  if (replace.empty()) return false;
  std::vector<Node> out;
  for (size_t i = 0; i < nn; ++i) {
    if (drop[i]) continue;
    auto it = replace.find(i);
    out.push_back(std::move(it == replace.end() ? g.nodes[i] : it->second));
  }
  g.nodes = std::move(out);
  return true;
}
}  // namespace

bool fuse_conv_max_pool(Graph& g) {
  const bool backward = fuse_pooled_gradients(g);
  return fuse_forward_conv_max_pool(g) || backward;
}

}  // namespace tt::graph
