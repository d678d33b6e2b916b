// Memory planning (buffer reuse by liveness) and the executor.
#include <algorithm>
#include <atomic>
#include <ctime>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "../core/internal.h"  // checked_index
#include "internal.h"
#include "typedtensor/checked.h"
#include "typedtensor/device.h"
#include "typedtensor/gil.h"
#include "typedtensor/ops.h"

namespace tt::graph {
namespace {

template <class T>
const T* attr(const Node& n, const char* key) {
  if (!n.attrs) return nullptr;
  for (const auto& kv : *n.attrs)
    if (kv.first == key && std::holds_alternative<T>(kv.second)) return &std::get<T>(kv.second);
  return nullptr;
}

// root[v]: the value whose buffer v lives in (views alias their input).
std::vector<int> alias_roots(const Graph& g) {
  std::vector<int> root(g.values.size());
  for (size_t i = 0; i < root.size(); ++i) root[i] = static_cast<int>(i);
  for (const Node& n : g.nodes)
    if (is_view(n.op) && !n.inputs.empty() && n.inputs[0] >= 0)
      for (int o : n.outputs) root[o] = root[n.inputs[0]];
  return root;
}

// Last node index reading each value (-1: never read by a node).
std::vector<int> last_uses(const Graph& g) {
  std::vector<int> last(g.values.size(), -1);
  for (size_t k = 0; k < g.nodes.size(); ++k)
    for (int v : g.nodes[k].inputs)
      if (v >= 0) last[v] = static_cast<int>(k);
  return last;
}

// Storage bounds of a strided view (a loaded graph is untrusted): every element it can read,
// computed without wrapping (typedtensor/checked.h), lies inside its input's storage.
void check_view_bounds(const Node& n, const Tensor& in) {
  const auto* shape = attr<std::vector<int64_t>>(n, "shape");
  const auto* strides = attr<std::vector<int64_t>>(n, "strides");
  const auto* off = attr<int64_t>(n, "offset");
  if (!shape || !strides || !off || shape->size() != strides->size()) throw GraphError("graph: malformed view " + n.op);
  int64_t start;
  int64_t cap = static_cast<int64_t>(in.storage()->nbytes / in.itemsize());
  if (!checked::add(in.offset(), *off, &start) ||
      !checked::view_in_bounds(shape->data(), strides->data(), shape->size(), start, cap))
    throw GraphError("graph: view " + n.op + " reads outside its input's storage");
}

}  // namespace

// NOTE [ In-place write-backs ]
// A captured tensor the function writes (a parameter and its optimizer state in a compiled training
// step; NOTE [ Write-backs ] in typedtensor/graph/compiled.py) gets its final value as a graph
// output, which tt.compile copies into it after the run: for an optimizer, one more pass over every
// parameter and state tensor. Where a fused kernel computes that final value, and nothing after it
// reads the tensor's old value, the kernel writes it straight into the captured tensor's memory
// instead (the output is then that tensor, and the copy finds nothing to do) -- torch.compile's
// in-place optimizer updates. Safe because a fused kernel reads all its operands at an index before
// it writes that index: the capture must be one of its same-shaped (not broadcast) operands or
// none, not be read through a view there, and no later node may read it or a view of it; no other
// capture may share its memory, and at run time no input may (else the output gets a buffer). A run of
// the graph itself (Graph.run, not only tt.compile's call) then updates the captured tensor.
static bool plan_write_backs(Graph& g, const std::vector<int>& root, const std::vector<int>& root_last) {
  g.write_into.assign(g.values.size(), -1);
  const std::vector<int> prod = producers(g);
  std::vector<int> out_count(g.values.size(), 0), out_root(g.values.size(), 0);
  for (int o : g.outputs) {
    ++out_count[o];
    ++out_root[root[o]];
  }
  bool any = false;
  for (const auto& [target, pos] : g.writebacks) {
    if (target < 0 || target >= static_cast<int>(g.values.size()) || pos < 0 || pos >= static_cast<int>(g.outputs.size()))
      continue;
    const Value& tv = g.values[target];
    const int o = g.outputs[pos];
    if (tv.kind != ValueKind::Capture || !tv.data.defined() || out_root[target] || out_count[o] != 1 || root[o] != o) continue;
    // another capture or constant over its memory would see the write early (the tracer refuses a
    // write into memory another capture shares, so this guards graphs built otherwise)
    bool shared = false;
    for (size_t u = 0; u < g.values.size() && !shared; ++u)
      shared = static_cast<int>(u) != target && g.values[u].data.defined() && g.values[u].data.storage() == tv.data.storage();
    if (shared) continue;
    const Value& ov = g.values[o];
    if (ov.shape != tv.shape || ov.dtype != tv.dtype || ov.slot >= 0) continue;
    const int k = prod[o];
    if (k < 0 || root_last[target] > k) continue;
    const Node& n = g.nodes[k];
    auto* fk = dynamic_cast<FusedKernel*>(n.prim.get());
    if (!fk || fk->reduces()) continue;
    bool safe = true;
    for (size_t i = 0; i < n.inputs.size() && safe; ++i) {
      int v = n.inputs[i];
      if (v < 0 || root[v] != target) continue;
      // a GEMM epilogue's matmul operands (0 and 1) are read by every later block's GEMM
      safe = v == target && fk->input_shapes().at(i) == fk->shape() && !(fk->has_gemm() && i < 2);
    }
    if (!safe || !fk->allow_aliasing()) continue;
    g.write_into[o] = target;
    any = true;
  }
  return any;
}

bool plan_memory(Graph& g) {
  for (Value& v : g.values) v.slot = -1;
  std::vector<int> root = alias_roots(g);
  std::vector<int> last = last_uses(g);
  // a buffer is live until the last read of any view of it; outputs' buffers are never reused
  std::vector<int> root_last(g.values.size(), -1);
  for (size_t v = 0; v < g.values.size(); ++v) root_last[root[v]] = std::max(root_last[root[v]], last[v]);
  std::vector<char> pinned(g.values.size(), 0);
  for (int o : g.outputs) pinned[root[o]] = 1;
  struct Slot {
    DType dtype;
    int64_t numel;
    int occupant;
  };
  std::vector<Slot> slots;
  for (size_t k = 0; k < g.nodes.size(); ++k) {
    const Node& n = g.nodes[k];
    if (n.op != "fused") continue;
    for (int o : n.outputs) {
      if (pinned[o] || root[o] != o) continue;
      const Value& v = g.values[o];
      int64_t numel = shape_numel(v.shape);
      int chosen = -1;
      for (size_t s = 0; s < slots.size(); ++s) {
        const Slot& sl = slots[s];
        bool free = sl.occupant < 0 || root_last[sl.occupant] < static_cast<int>(k);
        if (free && sl.dtype == v.dtype && sl.numel == numel) {
          chosen = static_cast<int>(s);
          break;
        }
      }
      if (chosen < 0) {
        slots.push_back({v.dtype, numel, -1});
        chosen = static_cast<int>(slots.size()) - 1;
      }
      slots[chosen].occupant = o;
      g.values[o].slot = chosen;
    }
  }
  g.num_slots = static_cast<int>(slots.size());
  return plan_write_backs(g, root, root_last) || g.num_slots > 0;
}

namespace {
// Per-op time of graph runs, in process CPU time (all threads; like time.process_time, so it is
// comparable with benchmarks run on the CPU clock), off by default: one branch per node when off.
// For finding where a compiled step's time goes: _graph_profile(True), run, _graph_profile_report().
double process_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

struct Profile {
  std::mutex mu;
  std::atomic<bool> on{false};
  std::map<std::string, std::pair<int64_t, double>> ops;  // op -> (calls, seconds)
};
Profile& profile() {
  static Profile p;
  return p;
}
}  // namespace

bool profiling_enabled() { return profile().on.load(std::memory_order_relaxed); }
void set_profiling(bool on) { profile().on.store(on); }
void profile_add(const std::string& op, double seconds) {
  Profile& p = profile();
  std::lock_guard<std::mutex> lock(p.mu);
  auto& e = p.ops[op];
  ++e.first;
  e.second += seconds;
}
std::vector<std::tuple<std::string, int64_t, double>> profile_report(bool reset) {
  Profile& p = profile();
  std::lock_guard<std::mutex> lock(p.mu);
  std::vector<std::tuple<std::string, int64_t, double>> r;
  for (const auto& [op, e] : p.ops) r.emplace_back(op, e.first, e.second);
  if (reset) p.ops.clear();
  return r;
}

namespace {
// An index primitive checks (and wraps) a CPU index itself at every run; a CUDA index is checked by
// the eager front end only (a host round trip per op), so a graph run checks it here: a compiled or
// loaded CUDA graph fed out-of-range ids raises IndexError instead of reading outside the tensor.
void check_device_index(const Node& n, TensorList& ins) {
  const OpInfo* info = primitive_info(n.op);
  if (!info || info->kind != OpKind::Index || ins.size() < 2 || !ins[1].defined() || !on_cuda(ins[1]) || !n.attrs) return;
  int64_t dim = 0;
  for (const auto& [k, v] : *n.attrs)
    if (k == "dim" && std::holds_alternative<int64_t>(v)) dim = std::get<int64_t>(v);
  const Tensor& a = ins[0];
  int64_t size = a.dim() ? a.size(dim) : 1;
  ins[1] = checked_index(n.op.c_str(), ins[1], size, dim, /*allow_negative=*/false);
}
}  // namespace

struct Graph::RunState {
  std::vector<Tensor> slots;
  // Graph outputs written by fused kernels, from the last call: reused as the next call's buffer
  // when nothing else holds them any more (the caller dropped the result), which saves the
  // allocation and its page faults; a result still referenced anywhere is never touched.
  std::map<int, Tensor> recycled;
};

TensorList Graph::run(const TensorList& in) {
  auto lock = lock_releasing_gil(run_mutex_);  // its kernels release the GIL: NOTE [ The GIL ]
  if (in.size() != inputs.size())
    throw ValueError("compiled graph: expected " + std::to_string(inputs.size()) + " inputs, got " + std::to_string(in.size()));
  if (!state_) state_ = std::make_shared<RunState>();
  state_->slots.resize(static_cast<size_t>(num_slots));
  // Called while another function is being traced (a compiled function inside a compiled one):
  // run every node through apply() so that the outer tracer records it (a fused node as an opaque
  // node), and autograd too where an input requires grad.
  const bool nested = current_tracer() != nullptr;
  std::optional<EvalGuard> guard;
  if (!nested) guard.emplace();
  std::vector<Tensor> env(values.size());
  for (size_t i = 0; i < in.size(); ++i) {
    const Value& v = values[inputs[i]];
    if (!in[i].defined() || in[i].shape() != v.shape || in[i].dtype() != v.dtype)
      throw ValueError("compiled graph: input " + std::to_string(i) + " must be " + value_type_str(v) + ", got " +
                       (in[i].defined() ? std::string(dtype_name(in[i].dtype())) + shape_str(in[i].shape()) : "None"));
    env[inputs[i]] = in[i].is_contiguous() ? in[i] : contiguous(in[i]);
  }
  for (size_t i = 0; i < values.size(); ++i)
    if (values[i].kind == ValueKind::Capture || values[i].kind == ValueKind::Const) env[i] = values[i].data;
  std::vector<int> last = last_uses(*this);
  std::vector<char> is_out(values.size(), 0);
  for (int o : outputs) is_out[o] = 1;
  const bool prof = profiling_enabled();
  for (size_t k = 0; k < nodes.size(); ++k) {
    const Node& n = nodes[k];
    const double t0 = prof ? process_seconds() : 0.0;
    TensorList ins;
    for (int v : n.inputs) ins.push_back(v >= 0 ? env[v] : Tensor());
    auto* fk = dynamic_cast<FusedKernel*>(n.prim.get());
    if (nested) {  // a fused node runs the nodes it was built from, so the outer trace sees those
      std::vector<const Node*> todo;
      if (fk) {
        for (const Node& b : fk->body()) todo.push_back(&b);
      } else {
        todo.push_back(&n);
      }
      for (const Node* b : todo) {
        TensorList bins;
        for (int v : b->inputs) bins.push_back(v >= 0 ? env[v] : Tensor());
        TensorList outs = tt::apply(b->prim, bins);
        for (size_t i = 0; i < outs.size() && i < b->outputs.size(); ++i) env[b->outputs[i]] = outs[i];
      }
    } else if (fk) {
      TensorList outs;
      Device dev = ins.empty() ? Device{} : ins[0].device();  // outputs live where the operands do
      for (int o : n.outputs) {
        const Value& v = values[o];
        const int into = static_cast<size_t>(o) < write_into.size() ? write_into[o] : -1;
        if (into >= 0) {  // NOTE [ In-place write-backs ]
          const Tensor& c = values[into].data;
          bool aliased = false;  // an argument over the same memory reads it after this write
          for (size_t i = 0; i < in.size() && !aliased; ++i) aliased = in[i].storage() == c.storage();
          if (!aliased && c.defined() && c.is_contiguous() && c.shape() == v.shape && c.dtype() == v.dtype &&
              c.device() == dev) {
            c.bump_version();
            outs.push_back(c);
            continue;
          }
        }
        if (v.slot >= 0) {
          Tensor& buf = state_->slots[v.slot];
          if (!buf.defined() || buf.numel() != shape_numel(v.shape) || buf.dtype() != v.dtype || buf.device() != dev)
            buf = empty(Shape{shape_numel(v.shape)}, v.dtype, dev);
          outs.push_back(make_view(buf, v.shape, contiguous_strides(v.shape), 0));
        } else if (!is_out[o]) {
          outs.push_back(empty(v.shape, v.dtype, dev));
        } else {
          auto it = state_->recycled.find(o);
          Tensor& r = it == state_->recycled.end() ? state_->recycled[o] : it->second;
          bool free = r.defined() && r.impl_ptr().use_count() == 1 && r.storage().use_count() == 1 &&
                      r.shape() == v.shape && r.dtype() == v.dtype && !r.impl()->autograd && r.device() == dev;
          outs.push_back(free ? r : empty(v.shape, v.dtype, dev));
        }
      }
      fk->run_into(ins, outs);
      for (size_t i = 0; i < outs.size(); ++i) env[n.outputs[i]] = outs[i];
    } else {
      const OpInfo* info = primitive_info(n.op);
      if (info && info->kind == OpKind::StridedView) check_view_bounds(n, ins.at(0));
      check_device_index(n, ins);
      TensorList outs = eval_primitive(n.prim, ins);
      if (outs.size() != n.outputs.size()) throw GraphError("graph: node " + n.op + " returned a wrong number of outputs");
      for (size_t i = 0; i < outs.size(); ++i) {
        const Value& v = values[n.outputs[i]];
        if (outs[i].shape() != v.shape || outs[i].dtype() != v.dtype)
          throw GraphError("graph: node " + n.op + " produced " + shape_str(outs[i].shape()) + " where the graph says " +
                           value_type_str(v));
        env[n.outputs[i]] = outs[i];
      }
    }
    for (int v : n.inputs)  // free what no later node reads
      if (v >= 0 && last[v] == static_cast<int>(k) && !is_out[v] && values[v].kind == ValueKind::Node) env[v] = Tensor();
    if (prof) {
      std::string key = n.op;
      if (fk) {  // which group: its ops, so one slow kernel stands out
        key += "(";
        for (const Node& b : fk->body())
          if (b.op != "expand") key += b.op + (&b == &fk->body().back() ? "" : " ");
        key += ")";
      }
      profile_add(key, process_seconds() - t0);
    }
  }
  TensorList res;
  for (int o : outputs) res.push_back(env[o]);
  for (auto& [id, t] : state_->recycled) t = env[id];  // graph outputs only (see above)
  return res;
}

}  // namespace tt::graph
