#include <atomic>

#include "typedtensor/primitive.h"
#include "internal.h"

namespace tt {
namespace {
std::atomic<RecordFn> g_recorder{nullptr};
thread_local bool t_grad_enabled = true;
thread_local Tracer* t_tracer = nullptr;
}  // namespace

Tracer* set_tracer(Tracer* t) {
  Tracer* prev = t_tracer;
  t_tracer = t;
  return prev;
}
Tracer* current_tracer() { return t_tracer; }
void check_not_tracing(const char* op) {
  if (t_tracer)
    throw NotImplementedError(std::string("[") + op +
                              "] cannot be captured by tt.compile (random or in-place op); call it outside the compiled function");
}

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
      Tracer* prev_tracer = t_tracer;  // nor traced
      NoGrad() {
        t_grad_enabled = false;
        t_tracer = nullptr;
      }
      ~NoGrad() {
        t_grad_enabled = prev;
        t_tracer = prev_tracer;
      }
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
  if (Tracer* tr = t_tracer) tr->record(p, inputs, out);
  return out;
}

std::shared_ptr<Primitive> make_primitive(const std::string& name, const Params& attrs) {
  using Factory = std::shared_ptr<Primitive> (*)(const std::string&, const Params&);
  static const Factory kFactories[] = {detail::make_elementwise_primitive, detail::make_shape_primitive,
                                       detail::make_reduce_primitive, detail::make_nn_primitive,
                                       detail::make_index_primitive};
  for (Factory f : kFactories)
    if (auto p = f(name, attrs)) return p;
  return nullptr;
}

Tensor apply1(const std::shared_ptr<Primitive>& p, const TensorList& inputs) {
  return std::move(apply(p, inputs)[0]);
}

}  // namespace tt
