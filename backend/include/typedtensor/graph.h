#pragma once
// NOTE [ Graph mode ]
// tt.compile captures a function into a Graph: an SSA program over the same primitives eager mode
// runs. Values are numbered once and never reassigned; a value is a graph input, a capture (a tensor
// the function closed over, e.g. a parameter: read by reference at every run, so in-place
// optimiser updates are seen), a constant (a Python number, or a capture frozen with freeze=True;
// passes may fold through it) or the output of a node. Passes rewrite the node list and keep value
// ids stable where they can; verify() runs between passes. Fused elementwise groups are nodes too
// (op "fused"), whose kernel keeps the original nodes, so a graph can always be un-fused for saving
// and interpreted when no compiler is present.
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "typedtensor/primitive.h"
#include "typedtensor/tensor.h"

namespace tt::graph {

// A malformed graph (verifier failure, a bad saved file).
class GraphError : public std::runtime_error {
  using std::runtime_error::runtime_error;
};

enum class ValueKind : uint8_t { Input, Capture, Const, Node };
const char* kind_name(ValueKind k);

struct Value {
  ValueKind kind = ValueKind::Node;
  Shape shape;
  DType dtype = DType::Float32;
  Tensor data;    // Capture / Const: the tensor
  int slot = -1;  // memory planning: the reused buffer this value is written to (-1: fresh)
};

struct Node {
  std::string op;             // the primitive's name(); "fused" for a fused group
  std::optional<Params> attrs;  // nullopt: opaque primitive
  std::shared_ptr<Primitive> prim;
  std::vector<int> inputs;   // value ids; -1 = no tensor
  std::vector<int> outputs;  // value ids
  std::string where;         // captured nodes: the user's source line that made them ("" if unknown)
};

class FusedKernel;

class Graph {
 public:
  std::vector<Value> values;
  std::vector<int> inputs;
  std::vector<int> outputs;
  std::vector<Node> nodes;
  std::vector<std::string> passes_run;
  std::vector<std::string> saved_pipeline;  // a loaded graph: the passes its saver had run
  int num_slots = 0;
  // (input or capture value id, output position): the tensors the traced function wrote in place,
  // whose final values are those outputs (GraphTracer::writebacks(); NOTE [ Write-backs ] in
  // typedtensor/graph/compiled.py)
  std::vector<std::pair<int, int>> writebacks;
  // memplan: per value, the capture a fused kernel writes it into directly, or -1 (NOTE [ In-place
  // write-backs ] in backend/src/graph/executor.cpp)
  std::vector<int> write_into;

  int add_value(ValueKind k, const Shape& s, DType d, Tensor data = {});
  std::string str() const;
  void verify() const;  // throws GraphError
  // Deep enough copy for passes: values and nodes are copied, tensors and primitives shared.
  std::shared_ptr<Graph> clone() const;
  // Runs the graph on `inputs` (one tensor per graph input, same shapes and dtypes).
  TensorList run(const TensorList& inputs);
  // Counts of nodes per op name (tests and docs).
  std::vector<std::pair<std::string, int>> op_counts() const;

 private:
  struct RunState;
  std::shared_ptr<RunState> state_;
  std::mutex run_mutex_;
  friend std::shared_ptr<Graph> clone_graph(const Graph&);
};

// ---- capture ----
// In-place ops are functionalized: NOTE [ Functionalization ] in backend/src/graph/trace.cpp.
class GraphTracer : public Tracer {
 public:
  GraphTracer();
  ~GraphTracer() override;
  // Registers the inputs; returns fresh aliases of them that the traced function must receive.
  TensorList begin(const TensorList& inputs);
  void record(const std::shared_ptr<Primitive>& p, const TensorList& inputs, const TensorList& outputs) override;
  void assign(const Tensor& self, const Tensor& value, const char* op) override;
  void wrote(const Tensor& t) override;
  void host_data(const Tensor& t, const std::string& what, const std::string& where) override;
  int64_t private_aliases(const Tensor& t) override;
  // `what` (item(), tolist() ...) reads t's values on the host: refused when t is an input or
  // computed from one (the graph would keep the first call's number).
  void host_read(const Tensor& t, const char* what);
  // t, made by the traced function without a primitive (an optimizer's state, created on its first
  // step), outlives the call: it is captured by reference like a tensor made before the trace, not
  // kept as a constant, so the function's writes to it become write-backs and the trace's eager
  // writes are undone (NOTE [ Functionalization ]).
  void persist(const Tensor& t);
  // The graph's outputs: `outputs`, then the final value of every input and captured tensor the
  // function wrote in place (see writebacks()). Puts back what the trace's eager run wrote.
  std::shared_ptr<Graph> finish(const TensorList& outputs);
  void abort();  // uninstalls the tracer after the traced function raised
  // (input or capture value id, graph output position) for every tensor the function wrote: after
  // a run, that output is copied into the tensor (tt.compile does it; torch.compile does the same).
  std::vector<std::pair<int, int>> writebacks() const;

 private:
  int value_for(const Tensor& t, const std::string& user);
  int current(const Tensor& t, const std::string& user);
  Tensor scatter_into_source(int view_id, const Tensor& value, const std::string& op);
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// ---- passes ----
// Names: "simplify", "fold", "cse", "dce", "relu_pool", "split_sums", "hoist_scalars", "fuse",
// "epilogue", "memplan" (default_pipeline's order). Each returns whether it changed the graph.
bool dce(Graph& g);
bool cse(Graph& g);
bool fold_constants(Graph& g);
bool simplify(Graph& g);
bool fuse(Graph& g);
// NOTE [ GEMM epilogues ] (epilogue.cpp): a 2-D matmul read only by a fused kernel joins it.
bool epilogue(Graph& g);
// Rows per block of a GEMM epilogue's product; 0 (the default) sizes blocks to the cache. For tests
// and measurements.
void set_epilogue_block_rows(int64_t rows);
// Whether a GEMM epilogue's blocks share one MKL-packed B (where MKL is the BLAS); on by default.
void set_epilogue_packed(bool on);
bool plan_memory(Graph& g);
const std::vector<std::string>& default_pipeline();
bool run_pass(Graph& g, const std::string& name);  // throws ValueError for an unknown name
// Replaces every fused node by the nodes it was built from (for saving).
void unfuse(Graph& g);
// Stable topological re-order of the nodes.
void toposort(Graph& g);

// ---- profiling: per-op wall time of Graph::run (off by default) ----
bool profiling_enabled();
void set_profiling(bool on);
void profile_add(const std::string& op, double seconds);
std::vector<std::tuple<std::string, int64_t, double>> profile_report(bool reset);  // (op, calls, seconds)

// ---- fused kernels ----
// For a fused node: the nodes it was built from, "compiled"/"interpreted"/"pending", and the
// generated C++ source. nullptr / "" for any other node.
const std::vector<Node>* fused_body(const Node& n);
std::string fused_mode(const Node& n);
std::string fused_source(const Node& n);
std::string fused_cuda_source(const Node& n);  // the same group as CUDA C (what NVRTC compiles)
struct CompilerStatus {
  bool available = false;
  std::string compiler;
  std::string cache_dir;
  std::string last_error;
  int64_t compiled = 0, cache_hits = 0, interpreted = 0;
};
CompilerStatus compiler_status();
void reset_compiler_probe();  // re-reads TYPEDTENSOR_CXX next time (tests)

// ---- save / load ----
void save(const Graph& g, const std::string& path);
std::shared_ptr<Graph> load(const std::string& path);  // throws GraphError on a malformed file
std::shared_ptr<Graph> load_bytes(const std::string& bytes, const std::string& what);

}  // namespace tt::graph
