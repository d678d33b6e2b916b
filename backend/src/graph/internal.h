#pragma once
// Shared between the graph files (not installed): the fused-kernel primitive and small helpers.
#include <functional>
#include <map>
#include <ostream>
#include <mutex>
#include <string>
#include <vector>

#include "typedtensor/graph.h"
#include "typedtensor/op_info.h"

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

TensorList eval_primitive(const std::shared_ptr<Primitive>& p, const TensorList& inputs);  // picks the device kernel

// A group of elementwise nodes (plus the expand views that broadcast its inputs) run as one loop:
// generated C++ compiled with the system compiler on first use, else interpreted node by node.
// With a GEMM epilogue (NOTE [ GEMM epilogues ] in epilogue.cpp) the body starts with a 2-D matmul
// whose product only the loop reads: the node's inputs are the matmul's two operands, then the
// loop's other inputs; the loop (input 0: the product) runs on each block of the product's rows
// right after the GEMM wrote it.
class FusedKernel : public Primitive {
 public:
  FusedKernel(std::vector<Node> body, std::vector<int> inputs, std::vector<int> outputs, const Graph& g);
  const char* name() const override { return "fused"; }
  TypeList output_types(const TypeList& in) const override;
  bool differentiable() const override { return false; }
  TensorList eval_cpu(const TensorList& in) override;
  // CUDA: the group's generated CUDA kernel (NVRTC, PTX cached on disk), else the ops one by one.
  TensorList eval_cuda(const TensorList& in) override;
  // Writes the outputs into `out` (preallocated, contiguous, right shape/dtype).
  void run_into(const TensorList& in, const TensorList& out);

  const std::vector<Node>& body() const { return body_; }
  const std::vector<int>& input_ids() const { return node_in_ids_; }  // the node's operands
  const std::vector<int>& output_ids() const { return out_ids_; }
  const Shape& shape() const { return shape_; }
  DType dtype() const { return dtype_; }
  const std::string& source() const { return src_; }
  // The same group as CUDA C source (generated on demand; what eval_cuda hands to NVRTC).
  std::string cuda_source() const { return generate_cuda(); }
  static constexpr int kCudaBlock = 256;  // threads per block of the generated CUDA kernels
  // "compiled", "interpreted" or "pending" (not run yet)
  std::string mode() const;
  // Lets an output share memory with an input read at the same index (an in-place write-back):
  // the generated source drops its no-alias promises. False once the kernel was compiled.
  bool allow_aliasing();
  bool reduces() const { return !reduce_.empty(); }
  const std::vector<Shape>& input_shapes() const { return node_in_shapes_; }  // per node operand
  bool has_gemm() const { return gemm_; }  // a GEMM epilogue: node operands 0 and 1 are the matmul's
  // Rows of the product per block of a GEMM epilogue (m rows of n elements of `itemsize` bytes),
  // with B packed once for all blocks or not (NOTE [ GEMM epilogues ] in epilogue.cpp).
  static int64_t gemm_block_rows(int64_t m, int64_t n, int64_t itemsize, int threads, bool packed);

 private:
  // How the generated loop reads input k: by the flat index, or (broadcast) at a per-row base
  // computed from the row index `o`, plus the column when the input varies along the last dim.
  struct Load {
    bool broadcast = false, column = false;
    std::string base;
  };
  TensorList interpret(const TensorList& in);
  TensorList loop_inputs(const TensorList& in);  // a GEMM epilogue's loop operands (the product computed)
  template <class T>
  void run_gemm_blocks(const TensorList& in, const TensorList& out);
  std::vector<Load> loads() const;
  std::map<int, std::string> emit_body(std::ostream& os, const std::string& indent) const;
  std::string accumulate(const std::map<int, std::string>& name) const;
  std::string generate() const;
  std::string generate_cuda() const;
  void ensure_compiled();
  void* ensure_cuda();
  void launch_cuda(void* fn, const TensorList& in, const TensorList& out);

  std::vector<Node> body_;
  // in_*: the loop's inputs (what the generated source reads); node_in_*: the node's operands.
  // The same, except with a GEMM epilogue: loop input 0 is the product, node operands 0 and 1 the
  // matmul's, and loop input k >= 1 is node operand k + 1.
  std::vector<int> in_ids_, out_ids_, node_in_ids_;
  std::vector<Shape> node_in_shapes_;
  std::vector<DType> node_in_dtypes_;
  bool gemm_ = false;
  std::vector<Shape> in_shapes_;  // each input's own shape (broadcast to shape_ where smaller)
  std::vector<bool> in_broadcast_;
  std::vector<Shape> out_shapes_;
  std::vector<DType> in_dtypes_, out_dtypes_;
  std::string reduce_;    // "" or the reduction (sum/mean/amax/amin) the group ends in
  int64_t reduce_len_ = 1;  // elements per reduced row (the trailing reduced dims)
  Shape shape_;  // the elementwise part's shape
  DType dtype_;
  std::string src_;
  bool aliasing_ = false;  // allow_aliasing(): no __restrict on the pointers
  using KernelFn = void (*)(void* const*, int64_t);
  using RangeFn = void (*)(void* const*, int64_t, int64_t);  // a GEMM epilogue's: elements [lo, hi)
  KernelFn fn_ = nullptr;
  std::shared_ptr<void> lib_;  // keeps fn_'s library loaded (compile_kernel)
  std::once_flag once_;
  bool tried_ = false;
  std::once_flag cuda_once_;
  void* cuda_fn_ = nullptr;  // the loaded CUDA kernel, or nullptr (no NVRTC: per-op kernels)
  bool cuda_tried_ = false;
};

// The graph rewrites that prepare the fuser's groups, each its own pass (run before `fuse`):
// "relu_pool": NOTE [ ReLU before max-pooling ]; "split_sums": a sum over leading and trailing dims
// split in two; "hoist_scalars": one-element nodes moved next to their operands. In fusion.cpp.
bool swap_relu_max_pool(Graph& g);
bool split_strided_sums(Graph& g);
bool hoist_scalar_nodes(Graph& g);
// "pool_sums": NOTE [ Pooled bias gradients ]; "conv_pool": NOTE [ Fused convolution and pooling ].
// In conv_pool.cpp.
bool sum_pool_gradients(Graph& g);
bool fuse_conv_max_pool(Graph& g);

// Compiles `source` (cached on disk by hash) and returns the symbol tt_kernel, or nullptr with the
// reason in compiler_status().last_error. The pointer owns the library: it is closed when the last
// one goes.
std::shared_ptr<void> compile_kernel(const std::string& source);
std::string kernel_cache_dir();  // where compiled kernels (and PTX) are cached
void note_interpreted();

// Ops the fuser and the simplifier understand.
bool is_elementwise(const std::string& op);
bool is_view(const std::string& op);  // output aliases input 0
// For each value, the index of the node that makes it (-1 for inputs and constants).
std::vector<int> producers(const Graph& g);
std::string attrs_str(const Params& p);
// A one-element tensor's value, read on the host (a CUDA graph's constants are copied over first).
double scalar_value(const Tensor& t);
std::string value_type_str(const Value& v);

}  // namespace tt::graph
