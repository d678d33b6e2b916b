#pragma once
// Shared between the graph files (not installed): the fused-kernel primitive and small helpers.
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "typedtensor/graph.h"

namespace tt::graph {

// Grad mode off and no tracer while the graph runs its primitives (like apply's own guard).
struct EvalGuard {
  bool prev_grad;
  Tracer* prev_tracer;
  EvalGuard() : prev_grad(grad_mode_enabled()), prev_tracer(set_tracer(nullptr)) { set_grad_mode(false); }
  ~EvalGuard() {
    set_grad_mode(prev_grad);
    set_tracer(prev_tracer);
  }
  EvalGuard(const EvalGuard&) = delete;
  EvalGuard& operator=(const EvalGuard&) = delete;
};

TensorList eval_primitive(Primitive& p, const TensorList& inputs);  // picks the device kernel

// A group of elementwise nodes (plus the expand views that broadcast its inputs) run as one loop:
// generated C++ compiled with the system compiler on first use, else interpreted node by node.
class FusedKernel : public Primitive {
 public:
  FusedKernel(std::vector<Node> body, std::vector<int> inputs, std::vector<int> outputs, const Graph& g);
  const char* name() const override { return "fused"; }
  bool differentiable() const override { return false; }
  TensorList eval_cpu(const TensorList& in) override;
  TensorList eval_cuda(const TensorList& in) override { return interpret(in); }
  // Writes the outputs into `out` (preallocated, contiguous, right shape/dtype).
  void run_into(const TensorList& in, const TensorList& out);

  const std::vector<Node>& body() const { return body_; }
  const std::vector<int>& input_ids() const { return in_ids_; }
  const std::vector<int>& output_ids() const { return out_ids_; }
  const Shape& shape() const { return shape_; }
  DType dtype() const { return dtype_; }
  const std::string& source() const { return src_; }
  // "compiled", "interpreted" or "pending" (not run yet)
  std::string mode() const;

 private:
  TensorList interpret(const TensorList& in);
  std::string generate() const;
  void ensure_compiled();

  std::vector<Node> body_;
  std::vector<int> in_ids_, out_ids_;
  std::vector<Shape> in_shapes_;  // each input's own shape (broadcast to shape_ where smaller)
  std::vector<bool> in_broadcast_;
  std::vector<Shape> out_shapes_;
  std::vector<DType> in_dtypes_, out_dtypes_;
  std::string reduce_;    // "" or the reduction (sum/mean/amax/amin) the group ends in
  int64_t reduce_len_ = 1;  // elements per reduced row (the trailing reduced dims)
  Shape shape_;  // the elementwise part's shape
  DType dtype_;
  std::string src_;
  using KernelFn = void (*)(void* const*, int64_t);
  KernelFn fn_ = nullptr;
  std::once_flag once_;
  bool tried_ = false;
};

// Compiles `source` (cached on disk by hash) and returns the symbol tt_kernel, or nullptr with the
// reason in compiler_status().last_error.
void* compile_kernel(const std::string& source);
void note_interpreted();

// Ops the fuser and the simplifier understand.
bool is_elementwise(const std::string& op);
bool is_view(const std::string& op);  // output aliases input 0
std::string attrs_str(const Params& p);
std::string value_type_str(const Value& v);

}  // namespace tt::graph
