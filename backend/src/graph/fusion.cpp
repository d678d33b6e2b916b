// Elementwise fusion: groups of elementwise nodes of one shape (with the expand views that broadcast
// their inputs) become one FusedKernel node, run as one generated loop.
#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "fusion.h"
#include "typedtensor/ops.h"

namespace tt::graph {

DType compute_dtype(const Graph& g, const Node& n) {
  DType out = g.values[n.outputs[0]].dtype;
  return out == DType::Bool && !n.inputs.empty() && n.inputs[0] >= 0 ? g.values[n.inputs[0]].dtype : out;
}

namespace {

bool fusible(const Graph& g, const Node& n) {
  if (!n.attrs || n.outputs.size() != 1 || n.inputs.empty()) return false;
  DType d = compute_dtype(g, n);
  if (d != DType::Float32 && d != DType::Float64) return false;
  for (size_t k = 0; k < n.inputs.size(); ++k) {
    int i = n.inputs[k];
    DType want = n.op == "where" && k == 0 ? DType::Bool : d;
    if (i < 0 || g.values[i].dtype != want) return false;
  }
  return !expr(n, "a", "b", "c").empty();
}

}  // namespace

// A reduction the fuser can fold into a kernel: sum/mean/amax/amin over trailing dims.
bool is_reduction_tail(const Node& n) {
  auto op = reduce_op_named(n.op);
  if (!op || !*op_info(*op).fusion) return false;
  const auto* mask = attr<std::vector<int64_t>>(n, "mask");
  if (!mask || mask->empty() || n.inputs.size() != 1) return false;
  size_t first = 0;
  while (first < mask->size() && !(*mask)[first]) ++first;
  if (first == mask->size()) return false;
  for (size_t d = first; d < mask->size(); ++d)
    if (!(*mask)[d]) return false;
  return true;
}

// Moves every node that makes only one-element values to just after the last node it reads, so a
// group of large elementwise nodes is not cut by the small computations interleaved with it in
// trace order. An optimizer step's bias corrections (NOTE [ Compiled optimizer steps ] in
// typedtensor/optim/optimizer.py) sit between the ops of one parameter's update, and the group
// rule (operands made before the group starts) then split the update into four kernels. The moved
// nodes are cheap and keep no large buffer alive longer. Stable otherwise: a topological order.
bool hoist_scalar_nodes(Graph& g) {
  const size_t nn = g.nodes.size();
  const std::vector<int> prod = producers(g);
  // after[k + 1]: the hoisted nodes placed right after node k (after[0]: at the front)
  std::vector<std::vector<int>> after(nn + 1);
  std::vector<char> hoisted(nn, 0);
  bool moved = false;
  for (size_t k = 0; k < nn; ++k) {
    const Node& n = g.nodes[k];
    // pure ops only: moving a random op would change which numbers it draws
    bool small = !n.outputs.empty() && n.attrs.has_value() && (is_elementwise(n.op) || is_view(n.op) || n.op == "to");
    for (int o : n.outputs) small = small && shape_numel(g.values[o].shape) <= 1;
    if (!small) continue;
    int last = -1;
    for (int v : n.inputs)
      if (v >= 0) last = std::max(last, prod[v]);
    hoisted[k] = 1;
    after[static_cast<size_t>(last + 1)].push_back(static_cast<int>(k));
    moved = moved || last + 1 != static_cast<int>(k) || (last >= 0 && hoisted[static_cast<size_t>(last)]);
  }
  if (!moved) return false;
  std::vector<Node> out;
  out.reserve(nn);
  std::function<void(size_t)> emit_after = [&](size_t slot) {
    for (int h : after[slot]) {
      out.push_back(std::move(g.nodes[static_cast<size_t>(h)]));
      emit_after(static_cast<size_t>(h) + 1);
    }
  };
  emit_after(0);
  for (size_t k = 0; k < nn; ++k) {
    if (hoisted[k]) continue;
    out.push_back(std::move(g.nodes[k]));
    emit_after(k + 1);
  }
  g.nodes = std::move(out);
  // A hoisted node whose operands are hoisted nodes keyed after different places can land before
  // one of them (placed after its operand with the larger original index, which may itself have
  // moved ahead of the other): a stable topological sort puts it after both, moving nothing else.
  toposort(g);
  return true;
}

// A sum over leading and trailing dims but not the ones between (a convolution bias's gradient:
// dims 0, 2, 3 of N, C, H, W) walks the tensor with a stride per output element; split into a sum
// over the trailing dims (contiguous rows, which the fuser can also fold into a kernel) and a sum of
// the small result over the leading dims, it is 3.3x faster here (64x32x28x28 float32: 0.87 ms ->
// 0.26 ms at one thread), equal up to the order of the additions.
bool split_strided_sums(Graph& g) {
  const std::vector<int> prod = producers(g);
  std::vector<Node> out;
  bool changed = false;
  auto node = [&](const char* op, Params attrs, int in, const Shape& shape, DType dt, const std::string& where, int id) {
    Node m;
    m.op = op;
    m.prim = make_primitive(op, attrs);
    m.attrs = std::move(attrs);
    m.inputs = {in};
    m.outputs = {id >= 0 ? id : g.add_value(ValueKind::Node, shape, dt)};
    m.where = where;
    out.push_back(std::move(m));
    return out.back().outputs[0];
  };
  for (Node& n : g.nodes) {
    const auto* mask = attr<std::vector<int64_t>>(n, "mask");
    bool ok = n.op == "sum" && n.attrs && n.inputs.size() == 1 && n.outputs.size() == 1 && mask && n.inputs[0] >= 0;
    if (ok) {
      const Value& xv = g.values[n.inputs[0]];
      const Value& ov = g.values[n.outputs[0]];
      const int px = prod[n.inputs[0]];
      // rows of the input are contiguous at run time: a graph input or a computed (non-view) value
      ok = (xv.dtype == DType::Float32 || xv.dtype == DType::Float64) && ov.dtype == xv.dtype &&
           mask->size() == xv.shape.size() && shape_numel(xv.shape) >= 4096 &&
           (xv.kind == ValueKind::Input || (xv.kind == ValueKind::Node && px >= 0 && !is_view(g.nodes[px].op)));
    }
    size_t j = ok ? mask->size() : 0;
    while (j > 0 && (*mask)[j - 1]) --j;
    bool leading = false;
    for (size_t d = 0; ok && d < j; ++d) leading = leading || (*mask)[d];
    if (!ok || j == 0 || j == mask->size() || !leading) {
      out.push_back(std::move(n));
      continue;
    }
    const Value xv = g.values[n.inputs[0]];
    const Shape oshape = g.values[n.outputs[0]].shape;
    std::vector<int64_t> rows, kept, lead_mask;
    int64_t row = 1;
    for (size_t d = 0; d < xv.shape.size(); ++d) {
      if (d < j) {
        rows.push_back(xv.shape[d]);
        lead_mask.push_back((*mask)[d]);
        if (!(*mask)[d]) kept.push_back(xv.shape[d]);
      } else {
        row *= xv.shape[d];
      }
    }
    std::vector<int64_t> flat = rows;
    flat.push_back(row);
    std::vector<int64_t> tail_mask(rows.size(), 0);
    tail_mask.push_back(1);
    const DType dt = xv.dtype;
    const Shape kshape{kept};
    const bool reshape_out = kshape != oshape;
    int v = node("reshape", Params{{"shape", flat}}, n.inputs[0], Shape{flat}, dt, n.where, -1);
    v = node("sum", Params{{"mask", tail_mask}, {"keepdim", false}}, v, Shape{rows}, dt, n.where, -1);
    v = node("sum", Params{{"mask", lead_mask}, {"keepdim", false}}, v, kshape, dt, n.where,
             reshape_out ? -1 : n.outputs[0]);
    if (reshape_out) node("reshape", Params{{"shape", oshape.vec()}}, v, oshape, dt, n.where, n.outputs[0]);
    changed = true;
  }
  g.nodes = std::move(out);
  return changed;
}

// NOTE [ ReLU before max-pooling ]
// max_pool2d(relu(c)) = relu(max_pool2d(c)): max commutes with the monotone relu. The second form
// applies relu to the pooled tensor (a quarter of the elements for 2x2 pooling), and in the
// backward the relu mask moves with it, onto the pooled gradient:
//   relu_backward(max_pool2d_backward(g, idx_r), r)  ->  max_pool2d_backward(relu_backward(g, p), idx_c)
// which is the same gradient. A window whose max is positive has the same argmax in c and in r
// (the same positive values, the same first-wins ties) and a positive relu output there; a window
// whose max is <= 0 sends nothing back either way (the old mask is 0 at every element r of it
// picks, as no window containing a positive element has a max <= 0). So the relu output r, a
// conv-sized activation, is neither computed nor kept for the backward, and both relu passes run
// on a quarter of the data. Done when r feeds only the pooling and the masks of relu_backwards that
// read the pooling's gradient, and the pooling's indices feed only its backwards.
bool swap_relu_max_pool(Graph& g) {
  const size_t nn = g.nodes.size();
  std::vector<int> prod(g.values.size(), -1);
  std::vector<std::vector<std::pair<int, size_t>>> users(g.values.size());  // (node, operand slot)
  for (size_t i = 0; i < nn; ++i) {
    for (int o : g.nodes[i].outputs) prod[o] = static_cast<int>(i);
    for (size_t k = 0; k < g.nodes[i].inputs.size(); ++k)
      if (g.nodes[i].inputs[k] >= 0) users[static_cast<size_t>(g.nodes[i].inputs[k])].emplace_back(static_cast<int>(i), k);
  }
  std::vector<char> is_output(g.values.size(), 0);
  for (int o : g.outputs) is_output[o] = 1;
  std::vector<char> drop(nn, 0);
  std::map<size_t, std::vector<Node>> replace;  // node index -> the nodes in its place
  bool changed = false;
  for (size_t pi = 0; pi < nn; ++pi) {
    const Node& P = g.nodes[pi];
    if (P.op != "max_pool2d" || !P.attrs || P.inputs.size() != 1 || P.outputs.size() != 2 || P.inputs[0] < 0) continue;
    const int r = P.inputs[0], pv = P.outputs[0], idx = P.outputs[1];
    const int ri = prod[r];
    if (ri < 0 || drop[static_cast<size_t>(ri)] || g.nodes[ri].op != "relu" || !g.nodes[ri].attrs || is_output[r] || is_output[idx])
      continue;
    const Node& R = g.nodes[ri];
    if (R.inputs.size() != 1 || R.inputs[0] < 0 || g.values[r].dtype != g.values[R.inputs[0]].dtype) continue;
    // r: read by P and, as the mask, by relu_backward(max_pool2d_backward(g, idx), r) only
    std::vector<std::pair<size_t, size_t>> masks;  // (relu_backward node, its max_pool2d_backward node)
    bool ok = true;
    for (auto [u, k] : users[r]) {
      if (u == static_cast<int>(pi) && k == 0) continue;
      const Node& RB = g.nodes[u];
      if (RB.op != "relu_backward" || k != 1 || RB.inputs.size() != 2 || RB.inputs[0] < 0 || !RB.attrs) {
        ok = false;
        break;
      }
      const int gr = RB.inputs[0];
      const int bi = prod[gr];
      if (bi < 0 || g.nodes[bi].op != "max_pool2d_backward" || !g.nodes[bi].attrs || g.nodes[bi].inputs.size() != 2 ||
          g.nodes[bi].inputs[1] != idx || users[gr].size() != 1 || is_output[gr] ||
          g.values[g.nodes[bi].inputs[0]].shape != g.values[pv].shape) {
        ok = false;
        break;
      }
      masks.emplace_back(static_cast<size_t>(u), static_cast<size_t>(bi));
    }
    for (auto [u, k] : users[idx]) ok = ok && g.nodes[u].op == "max_pool2d_backward" && k == 1;
    if (!ok) continue;
    // forward: pooled = max_pool2d(c) (the same indices value), p = relu(pooled)
    const int c = R.inputs[0];
    const int pooled = g.add_value(ValueKind::Node, g.values[pv].shape, g.values[pv].dtype);
    Node P2 = g.nodes[pi];
    P2.inputs = {c};
    P2.outputs = {pooled, idx};
    P2.prim = make_primitive(P2.op, *P2.attrs);
    Node R2 = g.nodes[ri];
    R2.inputs = {pooled};
    R2.outputs = {pv};
    R2.prim = make_primitive(R2.op, *R2.attrs);
    replace[pi] = {std::move(P2), std::move(R2)};
    drop[static_cast<size_t>(ri)] = 1;
    // backward: relu_backward(g, p) on the pooled gradient, then the pooling's backward
    for (auto [u, bi] : masks) {
      const Node& B = g.nodes[bi];
      const Node& RB = g.nodes[u];
      const int gin = B.inputs[0];
      const int gs = g.add_value(ValueKind::Node, g.values[gin].shape, g.values[gin].dtype);
      Node RB2 = RB;
      RB2.inputs = {gin, pv};
      RB2.outputs = {gs};
      RB2.prim = make_primitive(RB2.op, *RB2.attrs);
      Node B2 = B;
      B2.inputs = {gs, idx};
      B2.outputs = {RB.outputs[0]};
      B2.prim = make_primitive(B2.op, *B2.attrs);
      replace[u] = {std::move(RB2), std::move(B2)};
      drop[bi] = 1;
    }
    changed = true;
  }
  if (!changed) return false;
  std::vector<Node> out;
  for (size_t i = 0; i < nn; ++i) {
    if (drop[i]) continue;
    auto it = replace.find(i);
    if (it == replace.end()) {
      out.push_back(std::move(g.nodes[i]));
    } else {
      for (Node& m : it->second) out.push_back(std::move(m));
    }
  }
  g.nodes = std::move(out);
  return true;
}

bool fuse(Graph& g) {
  const size_t nn = g.nodes.size();
  const std::vector<int> prod = producers(g);
  struct Group {
    int start;
    std::vector<int> members;  // compute nodes, in order
    Shape shape;
    DType dtype;
  };
  std::vector<Group> groups;
  std::vector<int> group_of(nn, -1);
  // the group input a node's operand stands for: an absorbed expand's source, or the operand
  auto source = [&](int v, int gid) -> std::pair<int, bool> {
    int p = prod[v];
    if (p >= 0 && g.nodes[p].op == "expand" && g.nodes[p].attrs) {
      int s = g.nodes[p].inputs[0];
      int ps = s >= 0 ? prod[s] : -1;
      bool inside = gid >= 0 && ps >= 0 && group_of[ps] == gid;
      if (s >= 0 && !inside && g.values[s].dtype == g.values[v].dtype) return {s, true};
    }
    return {v, false};
  };
  // Whether groups S plus node k form a valid group: every operand produced outside it (an absorbed
  // expand counts as its source) comes from a node before the group's first node, or from a group
  // that starts earlier. Keyed by index (a lone node) or start (a group), every dependency then
  // points to a smaller key, so the fused graph stays acyclic.
  auto valid = [&](const std::set<int>& S, int k, int start) {
    auto inside = [&](int p) { return p == k || (p >= 0 && group_of[p] >= 0 && S.count(group_of[p]) > 0); };
    auto check = [&](const Node& m) {
      for (int v : m.inputs) {
        int p = prod[v];
        if (inside(p)) continue;
        if (p >= 0 && g.nodes[p].op == "expand" && g.nodes[p].attrs) {
          int src = g.nodes[p].inputs[0];
          int ps = src >= 0 ? prod[src] : -1;
          if (!inside(ps) && g.values[src].dtype == g.values[v].dtype) p = ps;  // absorbed
        }
        // produced after the group starts: allowed only as the result of an older group, whose own
        // dependencies are older still (every edge then points to an earlier start: acyclic)
        if (p >= start) {
          int gx = group_of[p];
          if (gx < 0 || S.count(gx) > 0 || groups[gx].start >= start) return false;
        }
      }
      return true;
    };
    if (!check(g.nodes[k])) return false;
    for (int gid : S)
      for (int m : groups[gid].members)
        if (!check(g.nodes[m])) return false;
    return true;
  };
  for (size_t k = 0; k < nn; ++k) {
    const Node& n = g.nodes[k];
    if (!fusible(g, n)) continue;
    const Value& out = g.values[n.outputs[0]];
    const DType cd = compute_dtype(g, n);
    std::set<int> cands;
    for (int v : n.inputs) {
      int p = prod[v];
      if (p < 0 || group_of[p] < 0) continue;
      const Group& G = groups[group_of[p]];
      if (G.shape == out.shape && G.dtype == cd) cands.insert(group_of[p]);
    }
    int kk = static_cast<int>(k);
    auto start_of = [&](const std::set<int>& S) {
      int st = kk;
      for (int gid : S) st = std::min(st, groups[gid].start);
      return st;
    };
    std::set<int> chosen;
    if (!cands.empty() && valid(cands, kk, start_of(cands))) {
      chosen = cands;  // join (and merge) every producer group
    } else {
      for (auto it = cands.rbegin(); it != cands.rend(); ++it)  // else the newest one that fits
        if (valid({*it}, kk, groups[*it].start)) {
          chosen = {*it};
          break;
        }
    }
    if (chosen.empty()) {
      groups.push_back({kk, {kk}, out.shape, cd});
      group_of[k] = static_cast<int>(groups.size()) - 1;
      continue;
    }
    int target = *chosen.begin();
    Group& T = groups[target];
    T.start = start_of(chosen);
    for (int gid : chosen) {
      if (gid == target) continue;
      for (int m : groups[gid].members) {
        T.members.push_back(m);
        group_of[m] = target;
      }
      groups[gid].members.clear();
    }
    T.members.push_back(kk);
    group_of[k] = target;
    std::sort(T.members.begin(), T.members.end());
  }
  // values used outside their group
  std::vector<int> outside_use(g.values.size(), 0);
  for (size_t k = 0; k < nn; ++k)
    for (int v : g.nodes[k].inputs)
      if (v >= 0 && (prod[v] < 0 || group_of[prod[v]] < 0 || group_of[prod[v]] != group_of[k])) outside_use[v] = 1;
  for (int v : g.outputs) outside_use[v] = 1;

  // a group whose only result feeds one sum/mean/amax/amin over trailing dims takes that reduction in
  std::vector<int> uses(g.values.size(), 0), consumer(g.values.size(), -1);
  for (size_t k = 0; k < nn; ++k)
    for (int v : g.nodes[k].inputs)
      if (v >= 0) {
        ++uses[v];
        consumer[v] = static_cast<int>(k);
      }
  for (int v : g.outputs) uses[v] += 2;
  std::vector<int> tail(groups.size(), -1);
  for (size_t gid = 0; gid < groups.size(); ++gid) {
    const Group& G = groups[gid];
    if (G.members.empty()) continue;
    int v = g.nodes[G.members.back()].outputs[0];
    bool only_v = true;
    for (int k : G.members)
      for (int o : g.nodes[k].outputs) only_v = only_v && (o == v || !outside_use[o]);
    if (!only_v || uses[v] != 1 || shape_numel(G.shape) == 0) continue;
    int r = consumer[v];
    if (r < 0 || !is_reduction_tail(g.nodes[r]) || g.values[g.nodes[r].outputs[0]].dtype != G.dtype) continue;
    tail[gid] = r;
  }

  bool changed = false;
  std::vector<Node> fused_at(nn);
  std::vector<char> drop(nn, 0);
  for (size_t gid = 0; gid < groups.size(); ++gid) {
    const Group& G = groups[gid];
    // a lone node stays an eager kernel, except `where`: a ReLU backward's where(mask, g, 0) is
    // three times faster as a generated (vectorised) loop than through the generic kernel
    if (G.members.empty() || (G.members.size() < 2 && tail[gid] < 0 && g.nodes[G.members[0]].op != "where")) continue;
    std::vector<Node> body;
    std::vector<int> ins, outs;
    std::set<int> in_set, absorbed;
    for (int k : G.members) {
      const Node& n = g.nodes[k];
      for (int v : n.inputs) {
        int p = prod[v];
        if (p >= 0 && group_of[p] == static_cast<int>(gid)) continue;
        auto [s, is_expand] = source(v, static_cast<int>(gid));
        if (is_expand && absorbed.insert(v).second) body.push_back(g.nodes[prod[v]]);
        if (in_set.insert(s).second) ins.push_back(s);
      }
      body.push_back(n);
      if (outside_use[n.outputs[0]]) outs.push_back(n.outputs[0]);
      drop[k] = 1;
    }
    int at = G.members.back();
    if (tail[gid] >= 0) {
      const Node& r = g.nodes[tail[gid]];
      body.push_back(r);
      outs = {r.outputs[0]};
      at = tail[gid];
    }
    Node f;
    f.op = "fused";
    f.inputs = ins;
    f.outputs = outs;
    f.prim = std::make_shared<FusedKernel>(std::move(body), ins, outs, g);
    fused_at[at] = std::move(f);
    drop[at] = 2;
    changed = true;
  }
  if (!changed) return false;
  std::vector<Node> out;
  for (size_t k = 0; k < nn; ++k) {
    if (drop[k] == 2) out.push_back(std::move(fused_at[k]));
    else if (!drop[k]) out.push_back(std::move(g.nodes[k]));
  }
  g.nodes = std::move(out);
  toposort(g);
  dce(g);
  return true;
}

}  // namespace tt::graph
