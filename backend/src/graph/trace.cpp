// Capture: a Tracer installed on this thread sees every top-level primitive application, and every
// in-place write, which it functionalizes.
//
// NOTE [ Functionalization ]
// The traced function runs eagerly, so an in-place op really writes memory. The graph instead gets
// the op's out-of-place result as a new SSA value: the op computes it with primitives and calls
// assign() before it writes (torch.compile functionalizes the same way). From then on every tensor
// over that memory reads the new value:
//  - per storage the tracer keeps a root (the first tensor seen over it, whose geometry is "the whole
//    memory") and the root's current value. A write through the root, or through any tensor of the
//    same geometry, makes the written value the root's. A write through a view (`x[:, 0]`, `x.t()`,
//    `x.view(...)`) scatters the written value into the view's source, up the chain of view
//    primitives to the root (the views' own VJPs do the scatter; a partial view keeps the rest
//    of its source through a `where`).
//  - the write moves the storage's epoch on: a tensor over that memory seen before is stale, and
//    on its next use its view primitives are replayed on the root's new value.
//  - an input or a captured tensor (a parameter, a BatchNorm running statistic) that the function
//    writes gets a write-back: its final value becomes an extra graph output (writebacks()), which
//    tt.compile copies into the tensor after every call. Its contents before the trace are
//    restored when the trace ends, so the first call, which also runs the graph, updates it once.
//  - a tensor the function made itself (a storage created during the trace, without a primitive:
//    tt.zeros, arange ...) is a constant of the graph; the constant keeps its contents from before
//    the write, which only changes the later values. Unless the function declares it persistent
//    (persist(): an optimizer's state made on its first step): then it is a capture like a tensor
//    made before the trace, written back, and its contents are restored when the trace ends.
// A version bump the tracer was not told about (wrote()) is a write it cannot capture: refused.
#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "internal.h"
#include "typedtensor/device.h"
#include "typedtensor/ops.h"

namespace tt::graph {
namespace {

bool same_geometry(const Tensor& a, const Tensor& b) {
  return a.shape() == b.shape() && a.strides() == b.strides() && a.offset() == b.offset() && a.dtype() == b.dtype();
}

// Every refusal names the op and the user's line.
[[noreturn]] void refuse(const std::string& op, const std::string& what) {
  std::string where = source_location();
  throw NotImplementedError("tt.compile: [" + op + "] " + what + (where.empty() ? "" : " (at " + where + ")"));
}

}  // namespace

struct GraphTracer::Impl {
  std::shared_ptr<Graph> g = std::make_shared<Graph>();
  // Every TensorImpl seen, with the value it holds as of its storage's epoch `epoch`. The tracer's
  // only strong reference to it: kept alive until the trace ends, so no address is reused.
  struct Known {
    Tensor t;
    int id;
    uint64_t epoch;
  };
  std::unordered_map<const TensorImpl*, Known> known;
  // Every storage seen (NOTE [ Functionalization ]).
  struct Mem {
    const TensorImpl* root = nullptr;
    int root_id = -1;   // the root's current value
    int first_id = -1;  // its value when first seen (an input or capture: the write-back target)
    uint64_t epoch = 0;  // moved on by every traced write
    std::vector<const TensorImpl*> impls;
    std::unordered_set<int> root_values;  // every value the root has held
    Tensor snapshot;  // an input's or capture's contents before the first write (restored at the end)
  };
  std::unordered_map<const Storage*, Mem> mems;
  struct Link {
    int src;
    std::shared_ptr<Primitive> prim;
  };
  std::unordered_map<int, Link> view_of;  // a view node's output -> its source value and primitive
  std::unordered_map<int, const TensorImpl*> tensor_of;  // value -> a tensor that held it when it was made
  std::unordered_set<const TensorImpl*> in_graph;  // impls that captures and constants hold too
  struct Host {
    Tensor t;
    std::string what, where;
  };
  std::unordered_map<const Storage*, Host> host;  // tensors made from host data while tracing
  std::vector<std::pair<int, int>> writebacks;
  // storages the traced function made that outlive the call (persist(): optimizer state)
  std::unordered_set<const Storage*> persistent;
  uint64_t first_serial = 0;  // storages created from here on were made by the traced function
  const Storage* announced = nullptr;  // the storage assign() was told is about to be written
  Tracer* prev = nullptr;
  bool active = false;

  const Tensor& tensor(int id) const { return known.at(tensor_of.at(id)).t; }
  const Tensor& root_tensor(const Mem& m) const { return known.at(m.root).t; }

  // t holds value `id` from now on.
  void bind(const Tensor& t, int id) {
    Mem& m = mems[t.storage().get()];
    if (!m.root) {
      m.root = t.impl();
      m.root_id = m.first_id = id;
      m.root_values.insert(id);
    }
    auto it = known.find(t.impl());
    if (it == known.end()) {
      known.emplace(t.impl(), Known{t, id, m.epoch});
      m.impls.push_back(t.impl());
    } else {
      it->second.id = id;
      it->second.epoch = m.epoch;
    }
    tensor_of.try_emplace(id, t.impl());
  }

  // Puts back what the trace's eager run wrote into inputs and captures (idempotent).
  void restore() {
    EvalGuard untraced;
    for (auto& [s, m] : mems) {
      if (!m.snapshot.defined()) continue;
      Tensor root = root_tensor(m);
      copy_(root, m.snapshot);
      m.snapshot = Tensor();
    }
  }
};

GraphTracer::GraphTracer() : impl_(std::make_unique<Impl>()) {}
GraphTracer::~GraphTracer() {
  if (impl_->active) {
    set_tracer(impl_->prev);
    impl_->restore();
  }
}

TensorList GraphTracer::begin(const TensorList& inputs) {
  auto& I = *impl_;
  if (I.active) throw ValueError("tt.compile: this tracer is already active");
  I.first_serial = next_storage_serial();
  TensorList aliases;
  for (const Tensor& t : inputs) {
    if (!t.defined()) throw ValueError("tt.compile: an input is not a tensor");
    Tensor a = make_view(t, t.shape(), t.strides(), t.offset());
    if (t.requires_grad()) a.autograd_meta().requires_grad = true;
    int id = I.g->add_value(ValueKind::Input, t.shape(), t.dtype());
    I.g->inputs.push_back(id);
    I.bind(a, id);
    aliases.push_back(a);
  }
  I.prev = set_tracer(this);
  I.active = true;
  return aliases;
}

int GraphTracer::current(const Tensor& t, const std::string& user) {
  auto& I = *impl_;
  Impl::Mem& m = I.mems.at(t.storage().get());
  {
    const Impl::Known& k = I.known.at(t.impl());
    if (k.epoch == m.epoch) return k.id;
  }
  int id = -1;
  if (same_geometry(t, I.root_tensor(m))) {
    id = m.root_id;
  } else {
    // a view made before the write: replay its view primitives on the root's new value
    std::vector<Impl::Link> chain;
    for (int v = I.known.at(t.impl()).id; !m.root_values.count(v);) {
      auto l = I.view_of.find(v);
      if (l == I.view_of.end())
        refuse(user, "reads a tensor whose memory an in-place write changed, through an alias the graph cannot "
                     "follow (made outside the backend's view ops); write the function out of place");
      chain.push_back(l->second);
      v = l->second.src;
    }
    Tensor cur = I.tensor(m.root_id);
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      const OpInfo* info = primitive_info(it->prim->name());
      if (info && info->kind == OpKind::StridedView && cur.strides() != I.tensor(it->src).strides())
        refuse(user, "reads a view of a tensor that an in-place write replaced by one of another memory layout; "
                     "write the function out of place");
      cur = apply(it->prim, {cur})[0];  // recorded: a view node of the new value
    }
    id = I.known.at(cur.impl()).id;
  }
  Impl::Known& k = I.known.at(t.impl());
  k.id = id;
  k.epoch = m.epoch;
  return id;
}

int GraphTracer::value_for(const Tensor& t, const std::string& user) {
  auto& I = *impl_;
  if (I.known.count(t.impl())) return current(t, user);
  if (auto ms = I.mems.find(t.storage().get()); ms != I.mems.end()) {
    Impl::Mem& m = ms->second;
    // a fresh TensorImpl over a traced value's memory (detach(), autograd's saved-tensor aliases)
    // is that value
    for (const TensorImpl* u : m.impls) {
      const Tensor& ut = I.known.at(u).t;
      if (same_geometry(ut, t)) {
        Tensor keep = ut;  // current() may grow `known`
        int id = current(keep, user);
        I.bind(t, id);
        return id;
      }
    }
    ValueKind root_kind = I.g->values[m.first_id].kind;
    if (root_kind == ValueKind::Input || root_kind == ValueKind::Node)
      refuse(user, "reads a view of a traced tensor made outside the backend's primitives (shape " +
                       shape_str(t.shape()) + "); it cannot be captured");
    // another tensor over a captured tensor's memory (parameters that are views of one buffer): a
    // capture of its own, which a write to that memory leaves unreadable (current() refuses)
  } else if (auto h = I.host.find(t.storage().get()); h != I.host.end()) {
    refuse(user, "reads a tensor made from host data by " + h->second.what +
                     (h->second.where.empty() ? "" : " at " + h->second.where) +
                     ": the graph would keep its values from the first call. Make it outside the compiled "
                     "function (a buffer or a captured tensor) or pass it in as an argument");
  }
  // Not produced by the trace: a Python number (constant) or a tensor the function closed over.
  // The front end broadcasts a Python number by a stride-0 view of a one-element buffer made
  // without a primitive: captured as the constant plus an explicit expand node.
  bool all_zero = t.dim() > 0 && t.numel() > 0 && t.storage()->nbytes == t.itemsize();
  for (int64_t i = 0; all_zero && i < t.dim(); ++i) all_zero = t.stride(i) == 0;
  if (all_zero) {
    Tensor base = make_view(t, Shape{}, Strides{}, t.offset());
    int c = I.g->add_value(ValueKind::Const, Shape{}, t.dtype(), base);
    I.in_graph.insert(base.impl());
    I.bind(base, c);
    Node n;
    n.op = "expand";
    n.attrs = Params{{"shape", t.shape().vec()}};
    n.prim = make_primitive("expand", *n.attrs);
    n.inputs = {c};
    n.where = source_location();
    int id = I.g->add_value(ValueKind::Node, t.shape(), t.dtype());
    n.outputs = {id};
    I.view_of[id] = Impl::Link{c, n.prim};
    I.g->nodes.push_back(std::move(n));
    I.bind(t, id);
    return id;
  }
  // A tensor made by the traced function without a primitive (tt.zeros, arange ...) is a constant
  // of the graph; one that existed before is a capture, read by reference at every run.
  bool fresh = t.storage()->serial >= I.first_serial && !I.persistent.count(t.storage().get());
  ValueKind k = t.impl()->wrapped_number || fresh ? ValueKind::Const : ValueKind::Capture;
  int id = I.g->add_value(k, t.shape(), t.dtype(), t);
  I.in_graph.insert(t.impl());
  I.bind(t, id);
  return id;
}

void GraphTracer::record(const std::shared_ptr<Primitive>& p, const TensorList& inputs, const TensorList& outputs) {
  auto& I = *impl_;
  Node n;
  n.op = p->name();
  n.attrs = p->attrs();
  n.prim = p;
  for (const Tensor& t : inputs) n.inputs.push_back(t.defined() ? value_for(t, n.op) : -1);
  n.where = source_location();
  for (const Tensor& t : outputs) {
    if (!t.defined()) refuse(n.op, "returned an undefined tensor");
    int id = I.g->add_value(ValueKind::Node, t.shape(), t.dtype());
    n.outputs.push_back(id);
    bool view = p->is_view() && !inputs.empty() && inputs[0].defined() && n.inputs[0] >= 0 &&
                inputs[0].storage() == t.storage();
    if (view) I.view_of[id] = Impl::Link{n.inputs[0], p};
    // An op may return one of its inputs unchanged; the newest definition wins from here on (the
    // root's too: a write after it starts from this value).
    auto ms = I.mems.find(t.storage().get());
    if (!view && ms != I.mems.end() && ms->second.root == t.impl()) {
      ms->second.root_id = id;
      ms->second.root_values.insert(id);
    }
    I.bind(t, id);
  }
  I.g->nodes.push_back(std::move(n));
}

Tensor GraphTracer::scatter_into_source(int view_id, const Tensor& value, const std::string& op) {
  auto& I = *impl_;
  const Impl::Link link = I.view_of.at(view_id);  // a copy: the primitives below are recorded
  Tensor src = I.tensor(link.src), view = I.tensor(view_id);
  for (int64_t d = 0; d < view.dim(); ++d)
    if (view.shape()[d] > 1 && view.strides()[d] == 0)
      refuse(op, "writes into a broadcast (expanded) view, where several elements share one memory location");
  const OpInfo* info = primitive_info(link.prim->name());
  OpKind kind = info ? info->kind : OpKind::Other;
  if (kind == OpKind::View && view.numel() == src.numel())  // reshape, permute: the whole source
    return link.prim->vjp({src}, {value}, {0}, {view})[0];
  if (kind != OpKind::StridedView)
    refuse(op, std::string("writes into the result of [") + link.prim->name() +
                   "], which the graph cannot write through to the tensor it views");
  // zeros of the source's shape with the view's region set, then the rest of the source kept
  Tensor placed = link.prim->vjp({src}, {value}, {0}, {view})[0];
  Tensor ones;
  {
    DeviceScope on(view.device());
    ones = full(view.shape(), Scalar::from_bool(true), DType::Bool);
  }
  Tensor mask = link.prim->vjp({src}, {ones}, {0}, {view})[0];
  return where(mask, placed, src);
}

void GraphTracer::assign(const Tensor& self, const Tensor& r, const char* op_name) {
  auto& I = *impl_;
  if (!I.active) return;
  const std::string op = op_name ? op_name : "an in-place op";
  if (r.shape() != self.shape() || r.dtype() != self.dtype())
    refuse(op, "writes a " + shape_str(r.shape()) + " value into a " + shape_str(self.shape()) + " tensor");
  int rv = value_for(r, op);
  int cur = value_for(self, op);  // a capture on first sight; a stale view re-derived
  Impl::Mem& m = I.mems.at(self.storage().get());
  const Tensor root = I.root_tensor(m);
  int new_root = rv;
  if (!same_geometry(self, root)) {
    if (!root.is_contiguous())
      refuse(op, "writes into part of a tensor whose memory layout is not contiguous, which the graph cannot "
                 "follow; write the function out of place (torch.where, index_put, cat)");
    Tensor val = r;
    int v = cur;
    while (!m.root_values.count(v)) {
      if (!I.view_of.count(v))
        refuse(op, "writes into memory it shares with another tensor through an alias the graph cannot follow "
                   "(made outside the backend's view ops); write the function out of place");
      val = scatter_into_source(v, val, op);
      v = I.view_of.at(v).src;
    }
    new_root = value_for(val, op);
  }
  // before the memory changes: what the graph must still read as it was
  Impl::Mem& mm = I.mems.at(self.storage().get());  // value_for may have grown `mems`
  Value& first = I.g->values[mm.first_id];
  if ((first.kind == ValueKind::Input || first.kind == ValueKind::Capture) && !mm.snapshot.defined()) {
    EvalGuard untraced;
    mm.snapshot = clone(root);
  }
  for (const TensorImpl* u : mm.impls) {
    Value& v = I.g->values[I.known.at(u).id];
    if (v.kind == ValueKind::Const && v.data.defined() && v.data.storage() == self.storage()) {
      EvalGuard untraced;
      I.in_graph.erase(v.data.impl());
      v.data = clone(v.data);  // a constant the function made keeps its contents from before the write
    }
  }
  if (first.kind == ValueKind::Const && first.data.defined() && first.data.storage() == self.storage()) {
    EvalGuard untraced;
    I.in_graph.erase(first.data.impl());
    first.data = clone(first.data);
  }
  mm.root_id = new_root;
  mm.root_values.insert(new_root);
  ++mm.epoch;  // every tensor over this memory (self included) now re-derives its value
  I.announced = self.storage().get();
}

void GraphTracer::wrote(const Tensor& t) {
  auto& I = *impl_;
  if (!I.active) return;
  if (I.announced == t.storage().get()) {
    I.announced = nullptr;
    return;
  }
  // the primitive being applied, when the write happens inside one
  const std::string op = current_op();
  refuse(op == "op" ? "in-place write" : op,
         "modified a tensor in place by an op that cannot be captured; use the out-of-place form");
}

void GraphTracer::persist(const Tensor& t) {
  auto& I = *impl_;
  if (!I.active || !t.defined() || !t.storage()) return;
  if (I.known.count(t.impl()) || I.mems.count(t.storage().get()))
    throw ValueError("tt.compile: persist() takes a tensor the traced function made and has not used yet");
  I.persistent.insert(t.storage().get());
}

void GraphTracer::host_data(const Tensor& t, const std::string& what, const std::string& where) {
  auto& I = *impl_;
  if (I.active) I.host[t.storage().get()] = Impl::Host{t, what, where};
}

int64_t GraphTracer::private_aliases(const Tensor& t) {
  auto& I = *impl_;
  auto ms = I.mems.find(t.storage().get());
  if (ms == I.mems.end()) return 0;
  int64_t n = 0;
  for (const TensorImpl* u : ms->second.impls) {
    if (u == t.impl()) continue;
    long held = 1 + (I.in_graph.count(u) ? 1 : 0);  // the tracer's reference, and a capture's or constant's
    if (I.known.at(u).t.impl_ptr().use_count() <= held) ++n;
  }
  return n;
}

void GraphTracer::host_read(const Tensor& t, const char* what) {
  auto& I = *impl_;
  if (!I.active || !t.defined() || !t.storage()) return;
  // a tensor over no traced memory is a capture or a constant: its value is no input's
  if (!I.known.count(t.impl()) && !I.mems.count(t.storage().get())) return;
  ValueKind k = I.g->values[value_for(t, what)].kind;
  if (k == ValueKind::Input || k == ValueKind::Node)
    refuse(what, "reads a traced tensor's values on the host: the graph would keep the first call's number (a "
                 "Python `if` on it, a number computed from it); compute with tensor ops, or do it outside the "
                 "compiled function");
}

void GraphTracer::abort() {
  if (!impl_->active) return;
  set_tracer(impl_->prev);
  impl_->active = false;
  impl_->restore();
}

std::shared_ptr<Graph> GraphTracer::finish(const TensorList& outputs) {
  auto& I = *impl_;
  if (!I.active) throw ValueError("tt.compile: the tracer is not active");
  auto& g = *I.g;
  try {
    for (const Tensor& t : outputs) {
      if (!t.defined()) throw ValueError("tt.compile: an output is not a tensor");
      g.outputs.push_back(value_for(t, "return"));
    }
  } catch (...) {
    abort();
    throw;
  }
  set_tracer(I.prev);
  I.active = false;
  // inputs and captures the function wrote: their final values are extra outputs, copied back
  std::vector<std::pair<int, int>> written;  // (first value, final value)
  for (const auto& [s, m] : I.mems) {
    ValueKind k = g.values[m.first_id].kind;
    if ((k == ValueKind::Input || k == ValueKind::Capture) && m.root_id != m.first_id) written.emplace_back(m.first_id, m.root_id);
  }
  std::sort(written.begin(), written.end());
  for (const auto& [target, value] : written) {
    I.writebacks.emplace_back(target, static_cast<int>(g.outputs.size()));
    g.outputs.push_back(value);
  }
  g.writebacks = I.writebacks;
  I.restore();
  g.verify();
  return I.g;
}

std::vector<std::pair<int, int>> GraphTracer::writebacks() const { return impl_->writebacks; }

}  // namespace tt::graph
