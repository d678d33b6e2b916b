// Capture: a Tracer installed on this thread sees every top-level primitive application.
#include <unordered_map>

#include "internal.h"

namespace tt::graph {

struct GraphTracer::Impl {
  std::shared_ptr<Graph> g = std::make_shared<Graph>();
  std::unordered_map<const TensorImpl*, int> ids;
  // Every tensor seen stays alive until finish(), so no TensorImpl address is reused mid-trace;
  // with the storage version it had when first seen (an in-place write to it is not capturable).
  std::vector<std::pair<Tensor, uint64_t>> seen;
  // Inputs and node outputs by storage: a fresh TensorImpl over a traced value's memory (detach(),
  // autograd's saved-tensor aliases) is that value, not a new capture.
  std::unordered_map<const Storage*, std::vector<std::pair<Tensor, int>>> by_storage;
  Tracer* prev = nullptr;
  bool active = false;

  void index(const Tensor& t, int id) {
    if (t.storage()) by_storage[t.storage().get()].emplace_back(t, id);
  }
};

GraphTracer::GraphTracer() : impl_(std::make_unique<Impl>()) {}
GraphTracer::~GraphTracer() {
  if (impl_->active) set_tracer(impl_->prev);
}

TensorList GraphTracer::begin(const TensorList& inputs) {
  if (impl_->active) throw ValueError("tt.compile: this tracer is already active");
  TensorList aliases;
  for (const Tensor& t : inputs) {
    if (!t.defined()) throw ValueError("tt.compile: an input is not a tensor");
    Tensor a = make_view(t, t.shape(), t.strides(), t.offset());
    if (t.requires_grad()) a.autograd_meta().requires_grad = true;
    int id = impl_->g->add_value(ValueKind::Input, t.shape(), t.dtype());
    impl_->g->inputs.push_back(id);
    impl_->ids[a.impl()] = id;
    impl_->seen.emplace_back(a, a.version());
    impl_->index(a, id);
    aliases.push_back(a);
  }
  impl_->prev = set_tracer(this);
  impl_->active = true;
  return aliases;
}

int GraphTracer::value_for(const Tensor& t) {
  auto it = impl_->ids.find(t.impl());
  if (it != impl_->ids.end()) return it->second;
  if (t.storage()) {
    auto bs = impl_->by_storage.find(t.storage().get());
    if (bs != impl_->by_storage.end()) {
      for (const auto& [u, id] : bs->second)
        if (u.shape() == t.shape() && u.strides() == t.strides() && u.offset() == t.offset() && u.dtype() == t.dtype()) {
          impl_->ids[t.impl()] = id;
          impl_->seen.emplace_back(t, t.version());
          return id;
        }
      throw NotImplementedError(
          "tt.compile: a view of a traced tensor was made outside the backend's primitives (shape " +
          shape_str(t.shape()) + "); it cannot be captured");
    }
  }
  // Not produced by the trace: a Python number (constant) or a tensor the function closed over.
  // The front end broadcasts a Python number by a stride-0 view of a one-element buffer made
  // without a primitive: captured as the constant plus an explicit expand node.
  bool all_zero = t.dim() > 0 && t.numel() > 0 && t.storage()->nbytes == t.itemsize();
  for (int64_t i = 0; all_zero && i < t.dim(); ++i) all_zero = t.stride(i) == 0;
  if (all_zero) {
    Tensor base = make_view(t, Shape{}, Strides{}, t.offset());
    int c = impl_->g->add_value(ValueKind::Const, Shape{}, t.dtype(), base);
    impl_->seen.emplace_back(base, base.version());
    Node n;
    n.op = "expand";
    n.attrs = Params{{"shape", t.shape().vec()}};
    n.prim = make_primitive("expand", *n.attrs);
    n.inputs = {c};
    int id = impl_->g->add_value(ValueKind::Node, t.shape(), t.dtype());
    n.outputs = {id};
    impl_->g->nodes.push_back(std::move(n));
    impl_->ids[t.impl()] = id;
    impl_->seen.emplace_back(t, t.version());
    return id;
  }
  ValueKind k = t.impl()->wrapped_number ? ValueKind::Const : ValueKind::Capture;
  int id = impl_->g->add_value(k, t.shape(), t.dtype(), t);
  impl_->ids[t.impl()] = id;
  impl_->seen.emplace_back(t, t.version());
  return id;
}

void GraphTracer::record(const std::shared_ptr<Primitive>& p, const TensorList& inputs, const TensorList& outputs) {
  Node n;
  n.op = p->name();
  n.attrs = p->attrs();
  n.prim = p;
  for (const Tensor& t : inputs) n.inputs.push_back(t.defined() ? value_for(t) : -1);
  for (const Tensor& t : outputs) {
    if (!t.defined()) throw NotImplementedError(std::string("tt.compile: [") + n.op + "] returned an undefined tensor");
    int id = impl_->g->add_value(ValueKind::Node, t.shape(), t.dtype());
    // An op may return one of its inputs unchanged; the newest definition wins from here on.
    impl_->ids[t.impl()] = id;
    impl_->seen.emplace_back(t, t.version());
    impl_->index(t, id);
    n.outputs.push_back(id);
  }
  impl_->g->nodes.push_back(std::move(n));
}

void GraphTracer::abort() {
  if (!impl_->active) return;
  set_tracer(impl_->prev);
  impl_->active = false;
}

std::shared_ptr<Graph> GraphTracer::finish(const TensorList& outputs) {
  if (!impl_->active) throw ValueError("tt.compile: the tracer is not active");
  set_tracer(impl_->prev);
  impl_->active = false;
  for (const auto& [t, version] : impl_->seen)
    if (t.version() != version)
      throw NotImplementedError(
          "tt.compile: the function modified a tensor in place (an input, a captured tensor or an "
          "intermediate); in-place ops cannot be captured: use the out-of-place form");
  auto& g = *impl_->g;
  for (const Tensor& t : outputs) {
    if (!t.defined()) throw ValueError("tt.compile: an output is not a tensor");
    g.outputs.push_back(value_for(t));
  }
  g.verify();
  return impl_->g;
}

}  // namespace tt::graph
