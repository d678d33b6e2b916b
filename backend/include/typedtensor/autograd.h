#pragma once
// NOTE [ Autograd engine ]
// Reverse mode over the primitives of primitive.h. `apply` calls the recorder installed here, which
// builds one Node per differentiable primitive call: the primitive itself, an Edge per input (to the
// input's grad_fn, or to the AccumulateGrad node of a leaf), and the tensors its VJP reads (saved
// with the storage version seen at record time). `backward` counts the dependencies of every node
// reachable from the roots, then runs ready nodes from a stack — no recursion, so a chain of 10^5
// ops is fine — summing the cotangents each node receives into one buffer per output before it runs.
// A node frees its saved tensors as soon as it has run (unless retain_graph). Destroying a long graph
// is iterative too (see ~Node). VJPs are written with front-end ops, so with create_graph the sweep
// simply leaves grad mode on and the gradients get graphs of their own.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "typedtensor/primitive.h"

namespace tt {

class Node;

// NOTE [ Tensor hooks ]
// torch's Tensor.register_hook and register_post_accumulate_grad_hook. A gradient hook sees the
// gradient flowing into a tensor and may return a replacement (an undefined Tensor keeps it): for a
// non-leaf it runs in the sweep on the cotangent of its grad_fn's output, before the node runs (and
// before autograd.grad captures it); for a leaf, in AccumulateGrad before the sum into .grad. A
// post-accumulate hook runs after a leaf's .grad has been updated, once per backward however many
// uses the leaf had (the sweep sums a node's cotangents first): the moment a data-parallel reducer
// can start sending that gradient while the rest of the backward runs. Hooks are the one place the
// sweep calls back into user code; the bindings wrap Python callables (taking the GIL).
using GradHook = std::function<Tensor(const Tensor& grad)>;
using PostAccumulateHook = std::function<void(const Tensor& leaf)>;

struct LeafHooks {
  std::vector<std::pair<uint64_t, GradHook>> grad;
  std::vector<std::pair<uint64_t, PostAccumulateHook>> post_accumulate;
};

// An input of a node: the node producing that input's gradient, and which of its outputs it is.
struct Edge {
  std::shared_ptr<Node> fn;
  uint32_t input_nr = 0;
};

// Geometry and dtype of a tensor, kept for every input so VJPs see shapes even of unsaved inputs.
struct TensorGeom {
  Shape shape;
  Strides strides;
  DType dtype = DType::Float32;
  Device device;
};

class Node : public std::enable_shared_from_this<Node> {
 public:
  virtual ~Node();
  // "MatMulBackward", "AccumulateGrad", ...
  virtual std::string name() const = 0;
  // Gradients of the inputs (one per edge, undefined = zero) given those of the outputs.
  virtual TensorList apply(TensorList&& grads) = 0;
  virtual void release_saved() {}
  virtual uint32_t num_outputs() const { return 1; }
  // Adds this node's gradient for its one input into `acc` in place instead of returning it
  // (Primitive::vjp_accumulate); false when the node has no such form or these gradients do not fit.
  virtual bool accumulate_into(const TensorList& /*grads*/, Tensor& /*acc*/) { return false; }

  std::vector<Edge> next;
  // Whether the sweep running now wants the gradient for input i: false for an input whose graph
  // leads to none of the tensors autograd.grad asked for (NOTE [ Needed inputs ] in engine.cpp).
  bool input_needed(size_t i) const;
  uint64_t seq = 0;  // creation order: later nodes run first when both are ready
  // Non-leaf tensors that asked for retain_grad(): (output index, tensor).
  std::vector<std::pair<uint32_t, std::weak_ptr<TensorImpl>>> retained;
  // Gradient hooks of non-leaf outputs (NOTE [ Tensor hooks ]): (output index, id, hook).
  struct PreHook {
    uint32_t output_nr;
    uint64_t id;
    GradHook fn;
  };
  std::vector<PreHook> pre_hooks;

 protected:
  // Tensors whose destruction could free the rest of the graph: ~Node hands them to the
  // iterative deleter instead of letting them unwind recursively.
  std::vector<Tensor> saved_;
};

// The leaf's sink: adds the incoming gradient into `.grad`.
class AccumulateGrad : public Node {
 public:
  explicit AccumulateGrad(std::shared_ptr<TensorImpl> leaf) : leaf_(std::move(leaf)) {}
  std::string name() const override { return "AccumulateGrad"; }
  TensorList apply(TensorList&& grads) override;
  const std::shared_ptr<TensorImpl>& leaf() const { return leaf_; }

 private:
  std::shared_ptr<TensorImpl> leaf_;
};

namespace autograd {

// Installs the recorder into dispatch (called once when the module loads).
void install();

// The edge a tensor's gradient flows into (null fn when it does not require grad).
Edge gradient_edge(const Tensor& t);

// Runs the backward sweep. With `inputs` empty, gradients accumulate into the leaves' .grad and the
// result is empty; otherwise only the nodes leading to `inputs` run, and their gradients are
// returned (undefined when unreachable) with no .grad touched -- or, with `accumulate_grad`
// (Tensor.backward(inputs=...)), added into those tensors' .grad alone (leaves through their
// AccumulateGrad, with its hooks; non-leaves as a retained gradient) and the result is empty.
TensorList run_backward(const TensorList& roots, const TensorList& grad_roots, bool retain_graph,
                        bool create_graph, const TensorList& inputs, bool allow_unused, bool accumulate_grad = false);

// In-place ops. `check_inplace` raises for the cases that would silently give a wrong gradient
// (a leaf that requires grad; memory aliased by a view or a saved output); `needs_graph` says
// whether the op must be recorded; `commit_inplace` writes the out-of-place result `r` into `self`
// and gives `self` r's place in the graph (torch's "rebase history").
bool inplace_needs_graph(const Tensor& self, const Tensor* other);
void check_inplace(const Tensor& self, const char* op);
// `self` with its current place in the graph, on a fresh TensorImpl: the input of the recorded op.
Tensor alias_for_inplace(const Tensor& self);
Tensor& commit_inplace(Tensor& self, const Tensor& r, const char* op = "an in-place op");
// The functional form of an in-place op: writes the out-of-place result `r` into `self`, through
// commit_inplace when autograd records the op (`graph`), else as a plain copy that leaves self's
// autograd state alone; a graph tracer is told first either way (NOTE [ Functionalization ]).
Tensor& write_inplace(Tensor& self, const Tensor& r, const char* op, bool graph);
// `self.view(-1)[positions] = value` (value broadcast to positions' shape; summed into it with
// `accumulate`), out of place and written back: the gradient-aware and traceable form of
// `t[key] = value` (positions = the key applied to arange(numel)).
Tensor& assign_positions_(Tensor& self, const Tensor& positions, const Tensor& value, bool accumulate = false,
                          const char* op = "setitem");

Tensor detach(const Tensor& t);  // shares storage and version counter, no history
void retain_grad(const Tensor& t);

// NOTE [ Tensor hooks ]. Each returns an id for remove_hook; both raise for a tensor that does not
// require grad, and the post-accumulate form for a non-leaf (as torch).
uint64_t add_grad_hook(const Tensor& t, GradHook fn);
uint64_t add_post_accumulate_hook(const Tensor& t, PostAccumulateHook fn);
void remove_hook(const Tensor& t, uint64_t id);  // no-op when already gone
// `g` passed through the hooks in registration order (each may replace it).
Tensor run_grad_hooks(const std::vector<std::pair<uint64_t, GradHook>>& hooks, Tensor g);

// Which of `leaves` the backward of `roots` would reach (their AccumulateGrad nodes are in the
// graph): what a data-parallel reducer with find_unused_parameters asks after each forward.
std::vector<bool> reaches_leaves(const TensorList& roots, const TensorList& leaves);

}  // namespace autograd
}  // namespace tt
