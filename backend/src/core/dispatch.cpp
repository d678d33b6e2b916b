#include <atomic>

#include "typedtensor/primitive.h"

namespace tt {
namespace {
std::atomic<RecordFn> g_recorder{nullptr};
thread_local bool t_grad_enabled = true;
}  // namespace

TensorList Primitive::eval_cuda(const TensorList&) {
  throw NotImplementedError(std::string("[") + name() + "] no CUDA kernel");
}

TensorList Primitive::vjp(const TensorList&, const TensorList&, const std::vector<int>&, const TensorList&) {
  throw NotImplementedError(std::string("[") + name() + "] " +
                            (differentiable() ? "has no VJP yet" : "is not differentiable"));
}

void set_autograd_recorder(RecordFn fn) { g_recorder.store(fn); }
bool grad_mode_enabled() { return t_grad_enabled; }
void set_grad_mode(bool enabled) { t_grad_enabled = enabled; }

TensorList apply(const std::shared_ptr<Primitive>& p, const TensorList& inputs) {
  bool cuda = !inputs.empty() && inputs[0].device().type == DeviceType::CUDA;
  TensorList out;
  {
    // ops called inside a kernel are implementation details: never recorded
    struct NoGrad {
      bool prev = t_grad_enabled;
      NoGrad() { t_grad_enabled = false; }
      ~NoGrad() { t_grad_enabled = prev; }
    } guard;
    out = cuda ? p->eval_cuda(inputs) : p->eval_cpu(inputs);
  }
  RecordFn rec = g_recorder.load(std::memory_order_relaxed);
  if (rec && t_grad_enabled) {
    for (const auto& t : inputs) {
      if (t.defined() && t.requires_grad()) {
        rec(p, inputs, out);
        break;
      }
    }
  }
  return out;
}

Tensor apply1(const std::shared_ptr<Primitive>& p, const TensorList& inputs) {
  return std::move(apply(p, inputs)[0]);
}

}  // namespace tt
