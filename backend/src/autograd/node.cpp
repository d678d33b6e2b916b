// Graph nodes: the primitive node the recorder builds, AccumulateGrad, and the iterative deleter.
#include <algorithm>
#include <atomic>
#include <cctype>
#include <unordered_set>

#include "typedtensor/autograd.h"
#include "typedtensor/device.h"
#include "typedtensor/gil.h"
#include "typedtensor/ops.h"
#include "../cpu/kernels.h"

namespace tt {

// NOTE [ Iterative graph deletion ]
// A node owns its input edges (shared_ptr) and its saved tensors (whose grad_fn is the previous
// node), so freeing the tail of a 10^5-op chain would recurse 10^5 deep. The outermost ~Node moves
// what it owns into thread-local lists and frees them one by one; nested ~Node calls (triggered by
// that loop) only append to the lists.
Node::~Node() {
  thread_local std::vector<std::shared_ptr<Node>> pending_nodes;
  thread_local std::vector<Tensor> pending_tensors;
  thread_local bool active = false;
  for (auto& e : next)
    if (e.fn) pending_nodes.push_back(std::move(e.fn));
  for (auto& t : saved_)
    if (t.defined()) pending_tensors.push_back(std::move(t));
  if (active) return;
  active = true;
  while (!pending_nodes.empty() || !pending_tensors.empty()) {
    if (!pending_tensors.empty()) {
      Tensor t = std::move(pending_tensors.back());
      pending_tensors.pop_back();
    } else {
      std::shared_ptr<Node> n = std::move(pending_nodes.back());
      pending_nodes.pop_back();
    }
  }
  active = false;
}

namespace {

bool dense_and_unique(const Tensor& t) {
  return t.impl_ptr().use_count() == 1 && t.storage().use_count() == 1 && t.is_contiguous() && t.offset() == 0 &&
         !t.requires_grad() && t.storage()->nbytes == static_cast<size_t>(t.numel()) * t.itemsize();
}

}  // namespace

TensorList AccumulateGrad::apply(TensorList&& grads) {
  Tensor g = std::move(grads[0]);
  if (!g.defined()) return {};
  AutogradMeta& m = Tensor(leaf_).autograd_meta();
  // copies: a hook may add or remove hooks (NOTE [ Tensor hooks ])
  std::shared_ptr<LeafHooks> hooks = m.hooks;
  if (hooks && !hooks->grad.empty()) g = autograd::run_grad_hooks(std::vector(hooks->grad), std::move(g));
  if (g.dtype() != leaf_->dtype) g = to_dtype(g, leaf_->dtype);
  {
    // read-add-write of .grad, atomic for other Python threads: two backward passes into one leaf
    // must not lose an addition (NOTE [ The GIL ] in typedtensor/gil.h)
    GilKeep keep;
    if (grad_mode_enabled()) {  // create_graph: keep the gradient's own history
      if (!m.grad) m.grad = (g.impl_ptr().use_count() == 1 ? g : clone(g)).impl_ptr();
      else m.grad = binary(BinaryOp::Add, Tensor(m.grad), g).impl_ptr();
    } else if (!m.grad) {
      m.grad = (dense_and_unique(g) ? g : clone(g)).impl_ptr();
    } else {
      Tensor acc(m.grad);
      if (acc.requires_grad()) m.grad = binary(BinaryOp::Add, acc, g).impl_ptr();
      else binary_(BinaryOp::Add, acc, g);  // in place, like torch: a held reference to .grad sees it
    }
  }
  if (hooks && !hooks->post_accumulate.empty()) {
    Tensor leaf(leaf_);
    for (const auto& [id, fn] : std::vector(hooks->post_accumulate)) fn(leaf);
  }
  return {};
}

namespace {

std::string camel(const char* s) {
  if (std::string(s) == "matmul") return "MatMul";
  std::string r;
  bool up = true;
  for (const char* p = s; *p; ++p) {
    if (*p == '_') {
      up = true;
      continue;
    }
    r += up ? static_cast<char>(std::toupper(static_cast<unsigned char>(*p))) : *p;
    up = false;
  }
  return r;
}

Tensor meta_tensor(const TensorGeom& g) {
  auto impl = std::make_shared<TensorImpl>();
  impl->storage = std::make_shared<Storage>();
  impl->storage->device = g.device;
  impl->shape = g.shape;
  impl->strides = g.strides;
  impl->dtype = g.dtype;
  return Tensor(std::move(impl));
}

TensorGeom geom_of(const Tensor& t) { return {t.shape(), t.strides(), t.dtype(), t.device()}; }

// A fresh TensorImpl over the same memory with no autograd fields (breaks node <-> output cycles).
Tensor plain_alias(const Tensor& t) { return make_view(t, t.shape(), t.strides(), t.offset()); }

const char* kFreedMessage =
    "Trying to backward through the graph a second time (or directly access saved tensors after they have already "
    "been freed). Saved intermediate values of the graph are freed when you call .backward() or autograd.grad(). "
    "Specify retain_graph=True if you need to backward through the graph a second time or if you need to access "
    "saved tensors after calling backward.";

class PrimNode : public Node {
 public:
  PrimNode(std::shared_ptr<Primitive> p, const TensorList& inputs, const TensorList& outputs)
      : prim_(std::move(p)), n_out_(static_cast<uint32_t>(outputs.size())) {
    for (const auto& t : inputs) in_geom_.push_back(geom_of(t));
    saves_in_ = prim_->vjp_needs_inputs();
    saves_out_ = prim_->vjp_needs_outputs();
    if (saves_in_)
      for (const auto& t : inputs) {
        saved_.push_back(t);
        versions_.push_back(t.version());
      }
    if (saves_out_)
      for (const auto& t : outputs) {
        saved_.push_back(t.defined() ? plain_alias(t) : Tensor());
        versions_.push_back(t.defined() ? t.version() : 0);
      }
  }

  std::string name() const override { return camel(prim_->name()) + "Backward"; }
  uint32_t num_outputs() const override { return n_out_; }
  bool accumulate_into(const TensorList& grads, Tensor& acc) override {
    if (released_ || in_geom_.size() != 1 || grads.size() != 1 || !grads[0].defined()) return false;
    const Tensor& g = grads[0];
    if (g.dtype() != in_geom_[0].dtype || g.device() != in_geom_[0].device || on_cuda(g)) return false;
    if (acc.defined() && (acc.shape() != in_geom_[0].shape || acc.dtype() != g.dtype() || acc.device() != g.device()))
      return false;
    return prim_->vjp_accumulate(g, in_geom_[0].shape, acc);
  }
  void release_saved() override {
    if (saves_in_ || saves_out_) {
      released_ = true;
      saved_.clear();
    }
  }

  TensorList apply(TensorList&& grads) override {
    if (released_) throw std::runtime_error(kFreedMessage);
    size_t n_in = in_geom_.size();
    for (size_t i = 0; i < saved_.size(); ++i) {
      const Tensor& t = saved_[i];
      if (t.defined() && t.version() != versions_[i])
        throw std::runtime_error(
            "one of the variables needed for gradient computation has been modified by an inplace operation: [" +
            std::string(dtype_name(t.dtype())) + " " + shape_str(t.shape()) + "], which is " +
            (i < (saves_in_ ? n_in : 0) ? "input " + std::to_string(i) : "output " + std::to_string(i - (saves_in_ ? n_in : 0))) +
            " of " + name() + ", is at version " + std::to_string(t.version()) + "; expected version " +
            std::to_string(versions_[i]) + " instead. Hint: replace the in-place operation by an out-of-place one.");
    }
    TensorList primals, outputs;
    size_t k = 0;
    for (size_t i = 0; i < n_in; ++i) primals.push_back(saves_in_ ? saved_[k++] : meta_tensor(in_geom_[i]));
    if (saves_out_) {
      bool graph = grad_mode_enabled();
      for (uint32_t i = 0; i < n_out_; ++i, ++k) {
        Tensor o = saved_[k];
        if (graph && o.defined() && is_floating(o.dtype())) {  // create_graph: the output is this node's output
          o = plain_alias(o);
          AutogradMeta& m = o.autograd_meta();
          m.requires_grad = true;
          m.grad_fn = shared_from_this();
          m.output_nr = i;
        }
        outputs.push_back(o);
      }
    }
    std::vector<int> argnums;
    for (size_t i = 0; i < n_in; ++i)
      if (input_needed(i)) argnums.push_back(static_cast<int>(i));
    // Tensors a VJP creates (zeros to scatter into, masks) belong on the cotangents' device.
    Device dev = default_device();
    for (const auto& g : grads)
      if (g.defined()) {
        dev = g.device();
        break;
      }
    DeviceScope on_device(dev);
    TensorList res = prim_->vjp(primals, grads, argnums, outputs);
    if (res.size() != argnums.size())
      throw std::logic_error(std::string("[") + prim_->name() + "] VJP returned " + std::to_string(res.size()) +
                             " gradients for " + std::to_string(argnums.size()) + " inputs");
    TensorList out(n_in);
    for (size_t j = 0; j < argnums.size(); ++j) {
      Tensor g = std::move(res[j]);
      const TensorGeom& geom = in_geom_[argnums[j]];
      if (!g.defined()) continue;
      if (g.shape() != geom.shape)
        throw std::logic_error(std::string("[") + prim_->name() + "] VJP gave a gradient of shape " +
                               shape_str(g.shape()) + " for an input of shape " + shape_str(geom.shape));
      if (g.dtype() != geom.dtype) g = to_dtype(g, geom.dtype);
      out[argnums[j]] = std::move(g);
    }
    return out;
  }

 private:
  std::shared_ptr<Primitive> prim_;
  std::vector<TensorGeom> in_geom_;
  std::vector<uint64_t> versions_;
  uint32_t n_out_;
  bool saves_in_ = false, saves_out_ = false, released_ = false;
};

std::atomic<uint64_t> g_seq{0};

void record(const std::shared_ptr<Primitive>& p, const TensorList& inputs, TensorList& outputs) {
  if (!p->differentiable()) return;  // comparisons, argmax, ...: the outputs are constants
  bool any_float = false;
  for (const auto& o : outputs) any_float = any_float || (o.defined() && is_floating(o.dtype()));
  if (!any_float) return;
  for (auto& o : outputs) {  // an output must own its TensorImpl (its grad_fn is about to be set)
    if (!o.defined()) continue;
    bool shared = o.impl()->autograd != nullptr;
    for (const auto& t : inputs) shared = shared || (t.defined() && o.is_same(t));
    if (shared) o = plain_alias(o);
  }
  auto node = std::make_shared<PrimNode>(p, inputs, outputs);
  node->seq = g_seq.fetch_add(1, std::memory_order_relaxed);
  node->next.resize(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i].defined() && inputs[i].requires_grad()) node->next[i] = autograd::gradient_edge(inputs[i]);
  for (uint32_t i = 0; i < outputs.size(); ++i) {
    Tensor& o = outputs[i];
    if (!o.defined() || !is_floating(o.dtype())) continue;
    AutogradMeta& m = o.autograd_meta();
    m.requires_grad = true;
    m.grad_fn = node;
    m.output_nr = i;
  }
}

}  // namespace

namespace autograd {

void install() { set_autograd_recorder(&record); }

Edge gradient_edge(const Tensor& t) {
  if (!t.requires_grad()) return {};
  AutogradMeta& m = *t.impl()->autograd;
  if (m.grad_fn) return {m.grad_fn, m.output_nr};
  std::shared_ptr<Node> acc = m.grad_accumulator.lock();
  if (!acc) {
    acc = std::make_shared<AccumulateGrad>(t.impl_ptr());
    acc->seq = g_seq.fetch_add(1, std::memory_order_relaxed);
    m.grad_accumulator = acc;
  }
  return {acc, 0};
}

Tensor detach(const Tensor& t) { return plain_alias(t); }

namespace {
std::atomic<uint64_t> g_hook_id{1};

void require_grad_for_hook(const Tensor& t) {
  if (!t.requires_grad())
    throw std::runtime_error("cannot register a hook on a tensor that doesn't require gradient");
}
}  // namespace

uint64_t add_grad_hook(const Tensor& t, GradHook fn) {
  require_grad_for_hook(t);
  uint64_t id = g_hook_id.fetch_add(1, std::memory_order_relaxed);
  AutogradMeta& m = *t.impl()->autograd;
  if (m.grad_fn) {
    m.grad_fn->pre_hooks.push_back({m.output_nr, id, std::move(fn)});
  } else {
    if (!m.hooks) m.hooks = std::make_shared<LeafHooks>();
    m.hooks->grad.emplace_back(id, std::move(fn));
  }
  return id;
}

uint64_t add_post_accumulate_hook(const Tensor& t, PostAccumulateHook fn) {
  require_grad_for_hook(t);
  AutogradMeta& m = *t.impl()->autograd;
  if (m.grad_fn) throw std::runtime_error("post accumulate grad hooks cannot be registered on non-leaf tensors");
  uint64_t id = g_hook_id.fetch_add(1, std::memory_order_relaxed);
  if (!m.hooks) m.hooks = std::make_shared<LeafHooks>();
  m.hooks->post_accumulate.emplace_back(id, std::move(fn));
  return id;
}

void remove_hook(const Tensor& t, uint64_t id) {
  if (!t.impl()->autograd) return;
  AutogradMeta& m = *t.impl()->autograd;
  auto drop = [id](auto& v) { v.erase(std::remove_if(v.begin(), v.end(), [id](const auto& h) { return h.first == id; }), v.end()); };
  if (m.hooks) {
    drop(m.hooks->grad);
    drop(m.hooks->post_accumulate);
  }
  if (m.grad_fn) {
    auto& pre = m.grad_fn->pre_hooks;
    pre.erase(std::remove_if(pre.begin(), pre.end(), [id](const Node::PreHook& h) { return h.id == id; }), pre.end());
  }
}

Tensor run_grad_hooks(const std::vector<std::pair<uint64_t, GradHook>>& hooks, Tensor g) {
  for (const auto& [id, fn] : hooks) {
    Tensor r = fn(g);
    if (!r.defined()) continue;
    if (r.shape() != g.shape())
      throw std::runtime_error("hook returned a gradient of shape " + shape_str(r.shape()) + " for a gradient of shape " +
                               shape_str(g.shape()));
    g = std::move(r);
  }
  return g;
}

std::vector<bool> reaches_leaves(const TensorList& roots, const TensorList& leaves) {
  std::unordered_set<const TensorImpl*> found;
  std::unordered_set<Node*> seen;
  std::vector<Node*> stack;
  auto visit = [&](const Edge& e) {
    if (e.fn && seen.insert(e.fn.get()).second) stack.push_back(e.fn.get());
  };
  for (const Tensor& r : roots)
    if (r.defined()) visit(gradient_edge(r));
  while (!stack.empty()) {
    Node* n = stack.back();
    stack.pop_back();
    if (auto* acc = dynamic_cast<AccumulateGrad*>(n)) found.insert(acc->leaf().get());
    for (const Edge& e : n->next) visit(e);
  }
  std::vector<bool> out;
  out.reserve(leaves.size());
  for (const Tensor& l : leaves) out.push_back(l.defined() && found.count(l.impl()) > 0);
  return out;
}

void retain_grad(const Tensor& t) {
  if (!t.requires_grad())
    throw std::runtime_error("can't retain_grad on Tensor that has requires_grad=False");
  AutogradMeta& m = *t.impl()->autograd;
  if (!m.grad_fn || m.retains_grad) return;  // leaves keep .grad anyway
  m.retains_grad = true;
  m.grad_fn->retained.emplace_back(m.output_nr, t.impl_ptr());
}

bool inplace_needs_graph(const Tensor& self, const Tensor* other) {
  return grad_mode_enabled() && (self.requires_grad() || (other && other->defined() && other->requires_grad()));
}

void check_inplace(const Tensor& self, const char* op) {
  if (!grad_mode_enabled()) return;
  if (self.requires_grad() && !self.impl()->autograd->grad_fn)
    throw std::runtime_error(std::string("[") + op +
                             "] a leaf Variable that requires grad is being used in an in-place operation.");
  // while tracing, aliases that only the tracer keeps alive would be gone in eager mode
  int64_t uses = self.storage().use_count();
  if (Tracer* t = current_tracer()) uses -= t->private_aliases(self);
  if (uses > 1)
    throw std::runtime_error(std::string("[") + op +
                             "] in-place operation on a tensor that shares its memory with another tensor (a view "
                             "of it, or a value saved for backward) while gradients are recorded; use the "
                             "out-of-place op instead (e.g. `x = x + y` rather than `x += y`)");
}

Tensor alias_for_inplace(const Tensor& self) {
  Tensor old = plain_alias(self);
  if (self.requires_grad()) {
    const AutogradMeta& s = *self.impl()->autograd;
    AutogradMeta& m = old.autograd_meta();
    m.requires_grad = true;
    m.grad_fn = s.grad_fn;
    m.output_nr = s.output_nr;
    if (!s.grad_fn) m.grad_accumulator = s.grad_accumulator;
  }
  return old;
}

Tensor& commit_inplace(Tensor& self, const Tensor& r, const char* op) {
  if (Tracer* t = current_tracer()) t->assign(self, r, op);
  cpu::copy(self, r);
  AutogradMeta& m = self.autograd_meta();
  m.retains_grad = false;
  m.grad_accumulator.reset();
  if (r.requires_grad()) {
    const AutogradMeta& rm = *r.impl()->autograd;
    m.requires_grad = true;
    m.grad_fn = rm.grad_fn;
    m.output_nr = rm.output_nr;
  } else {  // overwritten by a constant: the old value's history no longer matters
    m.requires_grad = false;
    m.grad_fn.reset();
  }
  self.bump_version();
  return self;
}

Tensor& write_inplace(Tensor& self, const Tensor& r, const char* op, bool graph) {
  if (graph) return commit_inplace(self, r, op);
  if (Tracer* t = current_tracer()) t->assign(self, r, op);
  cpu::copy(self, r);
  self.bump_version();
  return self;
}

Tensor& assign_positions_(Tensor& self, const Tensor& positions, const Tensor& value, bool accumulate, const char* op) {
  bool graph = inplace_needs_graph(self, &value);
  if (graph) check_inplace(self, op);
  Tensor v = value.dtype() == self.dtype() ? value : to_dtype(value, self.dtype());
  Tensor flat_pos = reshape(positions, Shape{positions.numel()});
  Tensor flat_val = reshape(contiguous(expand(v, positions.shape())), Shape{positions.numel()});
  // a copy: scatter saves its input, and self is about to be overwritten
  Tensor flat_self = reshape(graph ? clone(alias_for_inplace(self)) : contiguous(self), Shape{self.numel()});
  Tensor r = reshape(scatter(flat_self, 0, flat_pos, flat_val, accumulate ? "add" : ""), self.shape());
  return write_inplace(self, r, op, graph);
}

}  // namespace autograd
}  // namespace tt
