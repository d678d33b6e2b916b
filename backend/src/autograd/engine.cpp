// The backward sweep (see NOTE [ Autograd engine ] in autograd.h).
#include <unordered_map>
#include <unordered_set>

#include "typedtensor/autograd.h"
#include "typedtensor/gil.h"
#include "typedtensor/device.h"
#include "typedtensor/ops.h"

namespace tt {
namespace {
// NOTE [ Needed inputs ]
// autograd.grad(y, [x]) runs only the nodes with a path to x (`leads` in run_backward), but a node
// on that path made every input's gradient its edges allowed: for conv2d(x, w, b), the weight's and
// bias's too, which doubled the cost of an input gradient (a gradient penalty, a saliency map) with
// trainable weights. While such a sweep runs, this thread sees the nodes that reach a captured
// tensor, and a node's VJP is asked only for the inputs whose edges lead into them -- as torch's
// engine marks the outputs a task should compute.
thread_local const std::unordered_set<Node*>* t_reaching = nullptr;

struct ReachingScope {
  const std::unordered_set<Node*>* prev = t_reaching;
  explicit ReachingScope(const std::unordered_set<Node*>* set) { t_reaching = set; }
  ~ReachingScope() { t_reaching = prev; }
  ReachingScope(const ReachingScope&) = delete;
  ReachingScope& operator=(const ReachingScope&) = delete;
};
}  // namespace

bool Node::input_needed(size_t i) const {
  if (i >= next.size() || !next[i].fn) return false;
  return t_reaching == nullptr || t_reaching->count(next[i].fn.get()) > 0;
}

namespace autograd {
namespace {

struct GradModeGuard {
  bool prev = grad_mode_enabled();
  explicit GradModeGuard(bool on) { set_grad_mode(on); }
  ~GradModeGuard() { set_grad_mode(prev); }
};

// Whether t's memory is t's alone and dense: a sum may be written into it in place.
bool writable_sum(const Tensor& t, const Tensor& other) {
  return t.impl_ptr().use_count() == 1 && t.storage().use_count() == 1 && t.is_contiguous() && !t.requires_grad() &&
         t.dtype() == other.dtype() && t.shape() == other.shape();
}

// a + b, in place into `a` -- or into `b`, when a is not writable (an expanded gradient, say) and b
// is -- when nothing else can see that memory (no graph being built). Float addition commutes
// exactly, so which one holds the sum does not change it.
void accumulate(Tensor& slot, Tensor&& g, bool create_graph) {
  if (!slot.defined()) {
    slot = std::move(g);
    return;
  }
  if (!create_graph && writable_sum(slot, g)) {
    binary_(BinaryOp::Add, slot, g);
    return;
  }
  if (!create_graph && writable_sum(g, slot)) {
    binary_(BinaryOp::Add, g, slot);
    slot = std::move(g);
    return;
  }
  slot = binary(BinaryOp::Add, slot, g);
}

std::string shape_text(const Shape& s) { return shape_str(s); }

// A view node's gradient added in place into the buffer its input's gradient is summed in
// (Node::accumulate_into), where accumulate() above could add into that buffer in place too; not
// while building a graph of the backward (create_graph, or a tracer recording the primitives).
template <class BufferOf>
bool accumulate_in_place(Node* n, const TensorList& buf, BufferOf& buffer_of, bool create_graph) {
  if (create_graph || current_tracer() || n->next.size() != 1 || !n->next[0].fn) return false;
  const Edge& e = n->next[0];
  Tensor& slot = buffer_of(e.fn.get())[e.input_nr];
  if (slot.defined() && !(slot.impl_ptr().use_count() == 1 && slot.storage().use_count() == 1 &&
                          slot.is_contiguous() && !slot.requires_grad()))
    return false;
  return n->accumulate_into(buf, slot);
}

}  // namespace

TensorList run_backward(const TensorList& roots, const TensorList& grad_roots, bool retain_graph, bool create_graph,
                        const TensorList& inputs, bool allow_unused, bool accumulate_grad) {
  if (roots.size() != grad_roots.size())
    throw ValueError("grad_tensors has " + std::to_string(grad_roots.size()) + " entries but tensors has " +
                     std::to_string(roots.size()));
  GradModeGuard mode(create_graph);
  // ---- root edges and their gradients ----
  std::vector<std::pair<Edge, Tensor>> root_grads;
  for (size_t i = 0; i < roots.size(); ++i) {
    const Tensor& t = roots[i];
    if (!t.defined()) throw TypeError("element " + std::to_string(i) + " of tensors is None, not a Tensor");
    if (!t.requires_grad())
      throw std::runtime_error("element " + std::to_string(i) +
                               " of tensors does not require grad and does not have a grad_fn");
    Tensor g = grad_roots[i];
    if (!g.defined()) {
      if (t.numel() != 1) throw std::runtime_error("grad can be implicitly created only for scalar outputs");
      DeviceScope on_device(t.device());  // the seed lives with its output
      g = ones(t.shape(), t.dtype());
    } else if (g.shape() != t.shape()) {
      throw std::runtime_error("Mismatch in shape: grad_output[" + std::to_string(i) + "] has a shape of " +
                               shape_text(g.shape()) + " and output[" + std::to_string(i) + "] has a shape of " +
                               shape_text(t.shape()) + ".");
    }
    root_grads.emplace_back(gradient_edge(t), g);
  }
  // ---- discover the graph: dependency count of every reachable node ----
  std::unordered_map<Node*, int> deps;
  std::vector<Node*> order;  // discovery order (used only to prune for autograd.grad)
  {
    std::vector<Node*> stack;
    std::unordered_set<Node*> seen;
    for (auto& [e, g] : root_grads)
      if (seen.insert(e.fn.get()).second) stack.push_back(e.fn.get());
    while (!stack.empty()) {
      Node* n = stack.back();
      stack.pop_back();
      order.push_back(n);
      for (const Edge& e : n->next) {
        if (!e.fn) continue;
        ++deps[e.fn.get()];
        if (seen.insert(e.fn.get()).second) stack.push_back(e.fn.get());
      }
    }
  }
  // ---- autograd.grad: where to capture, and which nodes lead there ----
  bool capture_mode = !inputs.empty();
  std::unordered_map<Node*, std::vector<std::pair<uint32_t, size_t>>> captures;
  std::vector<Edge> input_edges;
  TensorList results(inputs.size());
  std::unordered_set<Node*> leads;  // nodes with a capture node strictly below them
  std::unordered_set<Node*> reaches;  // capture nodes and the nodes that lead to them
  if (capture_mode) {
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (!inputs[i].defined()) throw std::runtime_error("all inputs have to be Tensors or GradientEdges, but got NoneType");
      if (!inputs[i].requires_grad()) throw std::runtime_error("One of the differentiated Tensors does not require grad");
      input_edges.push_back(gradient_edge(inputs[i]));
      captures[input_edges.back().fn.get()].emplace_back(input_edges.back().input_nr, i);
    }
    // reverse topological order (Kahn on a copy of deps), then propagate "reaches a capture" upwards
    std::unordered_map<Node*, int> d = deps;
    std::vector<Node*> topo, ready;
    for (Node* n : order)
      if (!d.count(n)) ready.push_back(n);
    while (!ready.empty()) {
      Node* n = ready.back();
      ready.pop_back();
      topo.push_back(n);
      for (const Edge& e : n->next)
        if (e.fn && --d[e.fn.get()] == 0) ready.push_back(e.fn.get());
    }
    for (auto it = topo.rbegin(); it != topo.rend(); ++it) {
      Node* n = *it;
      bool below = false;
      for (const Edge& e : n->next) below = below || (e.fn && reaches.count(e.fn.get()));
      if (below) leads.insert(n);
      if (below || captures.count(n)) reaches.insert(n);
    }
  }
  // ---- the sweep ----
  ReachingScope only_needed(capture_mode ? &reaches : nullptr);  // NOTE [ Needed inputs ]
  std::unordered_map<Node*, TensorList> buffers;
  auto buffer_of = [&](Node* n) -> TensorList& {
    TensorList& b = buffers[n];
    if (b.empty()) b.resize(n->num_outputs());
    return b;
  };
  for (auto& [e, g] : root_grads) accumulate(buffer_of(e.fn.get())[e.input_nr], std::move(g), create_graph);
  std::vector<Node*> ready;
  {
    std::unordered_set<Node*> pushed;
    for (auto& [e, g] : root_grads)
      if (!deps.count(e.fn.get()) && pushed.insert(e.fn.get()).second) ready.push_back(e.fn.get());
  }
  while (!ready.empty()) {
    Node* n = ready.back();
    ready.pop_back();
    TensorList buf;
    if (auto it = buffers.find(n); it != buffers.end()) {
      buf = std::move(it->second);
      buffers.erase(it);
    }
    if (buf.empty()) buf.resize(n->num_outputs());
    if (!n->pre_hooks.empty()) {  // NOTE [ Tensor hooks ]: copies, a hook may remove hooks
      std::vector<Node::PreHook> hooks = n->pre_hooks;
      for (const auto& h : hooks)
        if (h.output_nr < buf.size() && buf[h.output_nr].defined())
          buf[h.output_nr] = run_grad_hooks({{h.id, h.fn}}, std::move(buf[h.output_nr]));
    }
    const bool leaf_sink = dynamic_cast<AccumulateGrad*>(n) != nullptr;
    if (capture_mode && accumulate_grad) {
      // backward(inputs=...): a leaf's AccumulateGrad runs below; a non-leaf's gradient is added
      // into its .grad here, as a retained gradient is
      if (auto it = captures.find(n); it != captures.end() && !leaf_sink)
        for (auto [nr, idx] : it->second)
          if (nr < buf.size() && buf[nr].defined()) {
            AutogradMeta& m = Tensor(inputs[idx]).autograd_meta();
            GilKeep keep;  // as AccumulateGrad::apply
            Tensor g = create_graph ? buf[nr] : clone(buf[nr]);
            m.grad = m.grad ? binary(BinaryOp::Add, Tensor(m.grad), g).impl_ptr() : g.impl_ptr();
          }
    } else if (capture_mode) {
      if (auto* acc = dynamic_cast<AccumulateGrad*>(n); acc && acc->leaf()->autograd && acc->leaf()->autograd->hooks &&
                                                        buf[0].defined() && captures.count(n))
        buf[0] = run_grad_hooks(std::vector(acc->leaf()->autograd->hooks->grad), std::move(buf[0]));
      if (auto it = captures.find(n); it != captures.end())
        for (auto [nr, idx] : it->second) results[idx] = buf[nr];
    } else {
      for (auto& [nr, wt] : n->retained)
        if (auto impl = wt.lock(); impl && nr < buf.size() && buf[nr].defined()) {
          Tensor t(impl);
          AutogradMeta& m = t.autograd_meta();
          GilKeep keep;  // as AccumulateGrad::apply
          Tensor g = create_graph ? buf[nr] : clone(buf[nr]);
          m.grad = m.grad ? binary(BinaryOp::Add, Tensor(m.grad), g).impl_ptr() : g.impl_ptr();
        }
    }
    bool any = false;
    for (const auto& g : buf) any = any || g.defined();
    bool run = !capture_mode || leads.count(n) > 0 || (accumulate_grad && leaf_sink && captures.count(n) > 0);
    if (run && any && accumulate_in_place(n, buf, buffer_of, create_graph)) {
      if (!retain_graph) n->release_saved();
    } else if (run && any) {
      TensorList outs = n->apply(std::move(buf));
      if (!retain_graph) n->release_saved();
      for (size_t i = 0; i < n->next.size() && i < outs.size(); ++i) {
        const Edge& e = n->next[i];
        if (e.fn && outs[i].defined()) accumulate(buffer_of(e.fn.get())[e.input_nr], std::move(outs[i]), create_graph);
      }
    }
    for (const Edge& e : n->next)
      if (e.fn && --deps[e.fn.get()] == 0) ready.push_back(e.fn.get());
  }
  if (!capture_mode || accumulate_grad) return {};  // backward(inputs=...): an unreachable input is left alone, as in torch
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (results[i].defined()) continue;
    bool reached = deps.count(input_edges[i].fn.get()) > 0;
    for (auto& [e, g] : root_grads) reached = reached || e.fn == input_edges[i].fn;
    if (!reached && !allow_unused)
      throw std::runtime_error(
          "One of the differentiated Tensors appears to not have been used in the graph. Set allow_unused=True if "
          "this is the desired behavior.");
    if (reached) results[i] = zeros(inputs[i].shape(), inputs[i].dtype());
  }
  return results;
}

}  // namespace autograd
}  // namespace tt
