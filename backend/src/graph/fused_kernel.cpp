// The fused-kernel primitive at run time: builds a group from its nodes, compiles its generated
// source on first use (else interprets the nodes one by one), and runs it on the CPU or CUDA.
#include <algorithm>
#include <map>

#include "fusion.h"
#include "typedtensor/device.h"
#include "typedtensor/ops.h"

namespace tt::graph {

FusedKernel::FusedKernel(std::vector<Node> body, std::vector<int> inputs, std::vector<int> outputs, const Graph& g)
    : body_(std::move(body)), in_ids_(std::move(inputs)), out_ids_(std::move(outputs)) {
  node_in_ids_ = in_ids_;
  if (body_.size() > 1 && body_.front().op == "matmul") {  // a GEMM epilogue (epilogue.cpp)
    const Node& mm = body_.front();
    if (mm.inputs.size() != 2 || mm.outputs.size() != 1 || node_in_ids_.size() < 2 || node_in_ids_[0] != mm.inputs[0] ||
        node_in_ids_[1] != mm.inputs[1])
      throw GraphError("graph: a GEMM epilogue's operands must start with its matmul's");
    gemm_ = true;
    in_ids_.assign(1, mm.outputs[0]);
    in_ids_.insert(in_ids_.end(), node_in_ids_.begin() + 2, node_in_ids_.end());
  }
  for (int id : node_in_ids_) {
    node_in_shapes_.push_back(g.values[id].shape);
    node_in_dtypes_.push_back(g.values[id].dtype);
  }
  const Node& last = body_.back();
  if (is_reduction_tail(last)) {
    reduce_ = last.op;
    const Value& src = g.values[last.inputs[0]];
    shape_ = src.shape;
    const auto* mask = attr<std::vector<int64_t>>(last, "mask");
    for (size_t d = 0; d < mask->size(); ++d)
      if ((*mask)[d]) reduce_len_ *= shape_[d];
  } else {
    shape_ = g.values[out_ids_.at(0)].shape;
  }
  for (int id : out_ids_) {
    out_shapes_.push_back(g.values[id].shape);
    out_dtypes_.push_back(g.values[id].dtype);
  }
  for (const Node& n : body_)  // the floating type the group computes in (T in the source)
    if (n.op != "expand" && n.op != "matmul") {
      dtype_ = compute_dtype(g, n);
      break;
    }
  for (int id : in_ids_) {
    in_dtypes_.push_back(g.values[id].dtype);
    in_shapes_.push_back(g.values[id].shape);
    in_broadcast_.push_back(g.values[id].shape != shape_);
  }
  src_ = generate();
}

TypeList FusedKernel::output_types(const TypeList& in) const {  // the group's, as it was built
  if (in.size() != node_in_ids_.size())
    throw ValueError("[fused] expected " + std::to_string(node_in_ids_.size()) + " inputs");
  for (size_t k = 0; k < in.size(); ++k)
    if (!in[k].defined || in[k].shape != node_in_shapes_[k] || in[k].dtype != node_in_dtypes_[k])
      throw ValueError("[fused] input " + std::to_string(k) + " differs from the group's");
  TypeList out;
  for (size_t k = 0; k < out_ids_.size(); ++k) out.push_back({out_shapes_[k], out_dtypes_[k]});
  return out;
}

std::string FusedKernel::mode() const {
  if (fn_ || cuda_fn_) return "compiled";
  return tried_ || cuda_tried_ ? "interpreted" : "pending";
}

bool FusedKernel::allow_aliasing() {
  if (aliasing_) return true;
  if (tried_ || cuda_tried_) return false;
  aliasing_ = true;
  src_ = generate();
  return true;
}

void FusedKernel::ensure_compiled() {
  std::call_once(once_, [this] {
    lib_ = compile_kernel(src_);
    fn_ = reinterpret_cast<KernelFn>(lib_.get());
    tried_ = true;
  });
}

TensorList FusedKernel::interpret(const TensorList& in) {
  note_interpreted();
  std::map<int, Tensor> env;
  for (size_t k = 0; k < node_in_ids_.size(); ++k) env[node_in_ids_[k]] = in[k];
  for (const Node& n : body_) {
    TensorList ins;
    for (int id : n.inputs) ins.push_back(env.at(id));
    TensorList outs = eval_primitive(n.prim, ins);
    for (size_t i = 0; i < n.outputs.size(); ++i) env[n.outputs[i]] = outs[i];
  }
  TensorList res;
  for (int id : out_ids_) res.push_back(env.at(id));
  return res;
}

TensorList FusedKernel::loop_inputs(const TensorList& in) {
  TensorList loop = eval_primitive(body_.front().prim, {in.at(0), in.at(1)});
  loop.insert(loop.end(), in.begin() + 2, in.end());
  return loop;
}

void FusedKernel::run_into(const TensorList& in, const TensorList& out) {
  bool cpu = true;
  for (const auto& t : in) cpu = cpu && t.device().type == DeviceType::CPU;
  if (!cpu) {
    if (void* k = ensure_cuda()) return launch_cuda(k, gemm_ ? loop_inputs(in) : in, out);
  }
  if (cpu) ensure_compiled();
  if (cpu && fn_ && gemm_) {
    if (dtype_ == DType::Float64) return run_gemm_blocks<double>(in, out);
    return run_gemm_blocks<float>(in, out);
  }
  if (!cpu || !fn_) {
    TensorList res = interpret(in);
    for (size_t k = 0; k < out.size(); ++k) {
      Tensor o = out[k];
      copy_(o, res[k]);
    }
    return;
  }
  TensorList keep;
  std::vector<void*> args;
  for (const Tensor& t : in) {
    Tensor c = t.is_contiguous() ? t : contiguous(t);
    keep.push_back(c);
    args.push_back(c.raw());
  }
  for (const Tensor& t : out) args.push_back(t.raw());
  fn_(args.data(), get_num_threads());
}

void* FusedKernel::ensure_cuda() {
  std::call_once(cuda_once_, [this] {
    std::string why;
    cuda_fn_ = cuda_kernels().load_generated(generate_cuda(), kernel_cache_dir(), &why);
    cuda_tried_ = true;
  });
  return cuda_fn_;
}

void FusedKernel::launch_cuda(void* fn, const TensorList& in, const TensorList& out) {
  TensorList keep;
  std::vector<void*> ptrs;
  for (const Tensor& t : in) {
    Tensor c = t.is_contiguous() ? t : contiguous(t);
    keep.push_back(c);
    ptrs.push_back(c.raw());
  }
  for (const Tensor& t : out) ptrs.push_back(t.raw());
  // the kernel's parameters are the pointers themselves: pass their addresses
  std::vector<void*> args;
  for (void*& p : ptrs) args.push_back(&p);
  const int64_t n = shape_numel(shape_);
  const int64_t rows = reduce_.empty() ? 0 : n / std::max<int64_t>(reduce_len_, 1);
  const int64_t work = reduce_.empty() ? (n + kCudaBlock - 1) / kCudaBlock : rows;
  if (work > 0) cuda_kernels().launch_generated(fn, args, std::min<int64_t>(work, 65535), kCudaBlock);
}

TensorList FusedKernel::eval_cuda(const TensorList& in) {
  void* fn = ensure_cuda();
  if (!fn) return interpret(in);
  TensorList out;
  for (const TensorType& t : output_types(types_of(in))) out.push_back(empty(t.shape, t.dtype, in.at(0).device()));
  launch_cuda(fn, gemm_ ? loop_inputs(in) : in, out);
  return out;
}

TensorList FusedKernel::eval_cpu(const TensorList& in) {
  TensorList out;
  for (const TensorType& t : output_types(types_of(in))) out.push_back(empty(t.shape, t.dtype));
  run_into(in, out);
  return out;
}

const std::vector<Node>* fused_body(const Node& n) {
  auto* fk = dynamic_cast<const FusedKernel*>(n.prim.get());
  return fk ? &fk->body() : nullptr;
}
std::string fused_mode(const Node& n) {
  auto* fk = dynamic_cast<const FusedKernel*>(n.prim.get());
  return fk ? fk->mode() : "";
}
std::string fused_source(const Node& n) {
  auto* fk = dynamic_cast<const FusedKernel*>(n.prim.get());
  return fk ? fk->source() : "";
}

std::string fused_cuda_source(const Node& n) {
  auto* fk = dynamic_cast<const FusedKernel*>(n.prim.get());
  return fk ? fk->cuda_source() : "";
}

}  // namespace tt::graph
