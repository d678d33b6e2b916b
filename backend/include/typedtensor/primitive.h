#pragma once
// NOTE [ Primitives and dispatch ]
// Every op is a Primitive with the same slots (MLX's habit), so a declaration reads as a checklist:
//   - argument checks, promotion and broadcasting: done by the front-end function in ops.h *before*
//     the primitive is built (ShapeError on mismatch, worded for the caller's arguments), so
//     kernels and VJPs see inputs of matching shape and dtype;
//   - output_types: the outputs' shapes and dtypes from the inputs' -- the op's one shape
//     computation in C++, used by eval to allocate its outputs and by the graph verifier to check
//     a node (it refuses inputs and attributes the kernels cannot take: a loaded graph is
//     untrusted);
//   - eval_cpu: the CPU kernel;
//   - eval_cuda: by default eval_cpu run under apply()'s DeviceScope, so its allocations land on
//     the device and its kernel calls reach the CUDA table (a kernel the table lacks throws
//     "[op] no CUDA kernel for op"); overridden where the device path differs;
//   - vjp: the vector-Jacobian product, or the default which throws "[op] not differentiable".
// Every front-end op ends in `apply(primitive, inputs)`: the single dispatch point. It picks the
// device kernel and then calls the autograd recorder (if one is installed and an input requires
// grad), which is where backend/src/autograd records a Node holding the primitive, its inputs and
// its outputs. Views are primitives too (their eval returns a view), so gradients flow through them.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "typedtensor/tensor.h"

namespace tt {

using TensorList = std::vector<Tensor>;

// A tensor's type, without its data: what output_types computes.
struct TensorType {
  Shape shape;
  DType dtype = DType::Float32;
  bool defined = true;  // false for an absent optional operand
};
using TypeList = std::vector<TensorType>;
TypeList types_of(const TensorList& ts);

class Primitive {
 public:
  virtual ~Primitive() = default;
  virtual const char* name() const = 0;
  // The outputs' types for inputs of these types; throws ValueError (TypeError, ShapeError) naming
  // the op for inputs or attributes its kernels cannot take.
  virtual TypeList output_types(const TypeList& inputs) const = 0;
  virtual TensorList eval_cpu(const TensorList& inputs) = 0;
  virtual TensorList eval_cuda(const TensorList& inputs);
  // Cotangents of the inputs listed in argnums, given the outputs' cotangents. Default: throws.
  virtual TensorList vjp(const TensorList& primals, const TensorList& cotangents,
                         const std::vector<int>& argnums, const TensorList& outputs);
  virtual bool differentiable() const { return true; }
  // Graph mode (backend/src/graph): the primitive's parameters as named attributes, so a captured
  // graph can print, compare (CSE), save and rebuild it with make_primitive(name(), attrs).
  // nullopt: the primitive is opaque (printed by name only, never merged, not saveable).
  virtual std::optional<Params> attrs() const { return std::nullopt; }
  // What the VJP reads (the engine keeps only that, so a node holds no more memory than needed).
  // Unsaved inputs reach the VJP as metadata-only tensors: shape, strides and dtype, no data.
  virtual bool vjp_needs_inputs() const { return true; }
  virtual bool vjp_needs_outputs() const { return false; }
  // Views share the input's memory (in-place ops on them are refused while recording).
  virtual bool is_view() const { return false; }
  // The backward sweep's shortcut for views (NOTE [ Autograd engine ]): adds the output's cotangent
  // `ct` in place into `acc`, the input's gradient being summed (shape `in`; zeros first when `acc`
  // is undefined), instead of scattering it into a fresh zero tensor of the input's shape that the
  // sweep then adds. False when the primitive has no such form (then its vjp runs).
  virtual bool vjp_accumulate(const Tensor& /*ct*/, const Shape& /*in*/, Tensor& /*acc*/) { return false; }
};

// The autograd recorder: called after eval when grad mode is on and an input requires grad.
// It may replace an output by a fresh alias (so an output never shares its TensorImpl with an input).
using RecordFn = void (*)(const std::shared_ptr<Primitive>& p, const TensorList& inputs, TensorList& outputs);
void set_autograd_recorder(RecordFn fn);
bool grad_mode_enabled();
void set_grad_mode(bool enabled);  // thread-local, like torch.no_grad

// The graph tracer (backend/src/graph): a thread-local hook that sees every top-level primitive
// application (not the ones a kernel makes internally) with its inputs and outputs.
//
// In-place ops are functionalized while a tracer is installed (NOTE [ Functionalization ] in
// backend/src/graph/trace.cpp): the op computes its result out of place with primitives, calls
// assign(), and only then writes the memory and bumps its version. A version bump the tracer was not
// told about (wrote()) is a write it cannot capture, and it throws instead of baking the trace-time
// result into the graph.
class Tracer {
 public:
  virtual ~Tracer() = default;
  virtual void record(const std::shared_ptr<Primitive>& p, const TensorList& inputs, const TensorList& outputs) = 0;
  // `value` (a traced result of self's shape and dtype) is about to be written into `self` by `op`.
  virtual void assign(const Tensor& /*self*/, const Tensor& /*value*/, const char* /*op*/) {}
  // `t`'s memory was just written (Tensor::bump_version).
  virtual void wrote(const Tensor& /*t*/) {}
  // `t` was made from host data (a Python list, a numpy array) by `what` at the user's line `where`.
  virtual void host_data(const Tensor& /*t*/, const std::string& /*what*/, const std::string& /*where*/) {}
  // How many other TensorImpls over t's memory only the tracer keeps alive (autograd's in-place
  // check discounts them: they would be gone in eager mode).
  virtual int64_t private_aliases(const Tensor& /*t*/) { return 0; }
};
Tracer* set_tracer(Tracer* t);  // returns the previous one (thread-local)
Tracer* current_tracer();
// Ops that cannot be captured (random sampling, data-dependent output sizes) call this: it throws
// NotImplementedError naming the op and the user's source line while a tracer is installed.
void check_not_tracing(const char* op, const char* why = nullptr);

// The user's source line making the current call ("model.py:12 in forward"; "" when unknown): the
// Python bindings install a locator that walks the Python stack to the first frame outside the
// library. Graph capture puts it in every refusal and on every captured node.
using SourceLocator = std::string (*)();
void set_source_locator(SourceLocator f);
std::string source_location();

// Rebuilds a primitive from its name() and attrs() (graph load); nullptr when the name is unknown.
// Throws ValueError when the attributes are malformed.
std::shared_ptr<Primitive> make_primitive(const std::string& name, const Params& attrs);

TensorList apply(const std::shared_ptr<Primitive>& p, const TensorList& inputs);
// Tests: apply() then holds every eval's outputs to the primitive's output_types (std::logic_error
// naming the op when they differ).
void set_check_output_types(bool on);
Tensor apply1(const std::shared_ptr<Primitive>& p, const TensorList& inputs);
// True when apply() on these CPU inputs would do nothing but run the primitive's eval_cpu: every
// input on the CPU and the default device the CPU, no tracer installed, and nothing for autograd
// to record. The hottest elementwise ops then call their kernel directly, skipping the primitive
// object and the input/output lists -- about a fifth of a tiny op's latency.
bool plain_cpu_call(const Tensor& a);
bool plain_cpu_call(const Tensor& a, const Tensor& b);

}  // namespace tt
