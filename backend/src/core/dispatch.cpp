#include <atomic>
#include <stdexcept>

#include "../cpu/kernels.h"
#include "internal.h"
#include "typedtensor/device.h"
#include "typedtensor/primitive.h"

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
void check_not_tracing(const char* op, const char* why) {
  if (!t_tracer) return;
  std::string where = source_location();
  throw NotImplementedError(std::string("tt.compile: [") + op + "] cannot be captured (" +
                            (why ? why : "a random op: the graph would replay one sample") +
                            "); call it outside the compiled function" + (where.empty() ? "" : " (at " + where + ")"));
}

namespace {
std::atomic<SourceLocator> g_locator{nullptr};
}
void set_source_locator(SourceLocator f) { g_locator.store(f); }
std::string source_location() {
  SourceLocator f = g_locator.load(std::memory_order_relaxed);
  return f ? f() : std::string();
}

// The primitive's own body, run under apply()'s DeviceScope: its allocations land on the device and
// its kernel calls reach the CUDA table (NOTE [ Device dispatch ] in typedtensor/device.h).
TensorList Primitive::eval_cuda(const TensorList& inputs) { return eval_cpu(inputs); }

namespace {
// A CPU tensor that may stand next to CUDA tensors: one element seen through every index (a 0-d
// tensor, or a Python number broadcast with zero strides) -- torch's CPU-scalar rule.
bool cpu_scalar(const Tensor& t) {
  if (t.numel() <= 1) return t.dim() == 0 || t.numel() == 1;
  for (int64_t s : t.strides())
    if (s != 0) return false;
  return true;
}

// The device the op runs on; throws when the inputs live on different devices.
Device dispatch_device(const char* op, const TensorList& inputs) {
  Device dev = inputs[0].defined() ? inputs[0].device() : Device{};
  bool all_same = true;
  for (const auto& t : inputs)
    if (t.defined() && t.device() != dev) all_same = false;
  if (all_same) return dev;
  Device cuda{};
  bool have_cuda = false;
  for (const auto& t : inputs) {
    if (!t.defined() || t.device().type != DeviceType::CUDA) continue;
    if (have_cuda && t.device() != cuda)
      throw std::runtime_error(std::string("[") + op + "] expected all tensors on the same device, got " +
                               device_str(cuda) + " and " + device_str(t.device()));
    cuda = t.device();
    have_cuda = true;
  }
  for (const auto& t : inputs)
    if (t.defined() && t.device().type == DeviceType::CPU && !cpu_scalar(t))
      throw std::runtime_error(std::string("[") + op + "] expected all tensors on the same device, got cpu and " +
                               device_str(cuda));
  return cuda;
}

// CPU scalars next to CUDA tensors are filled into a one-element device tensor (a kernel launch
// with the value as argument: no host synchronisation) and viewed with the same geometry.
Tensor upload_scalar(const Tensor& t, Device dev) {
  Tensor one = empty(Shape{}, t.dtype(), dev);
  Scalar v = visit_dtype(t.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T x = *t.data<T>();
    if constexpr (std::is_same_v<T, bool>) return Scalar::from_bool(x);
    else if constexpr (std::is_integral_v<T>) return Scalar::from_int(static_cast<int64_t>(x));
    else return Scalar::from_double(static_cast<double>(x));
  });
  cuda_kernels().fill(one, v);
  Tensor view = make_view(one, t.shape(), Strides(t.shape().size(), 0), 0);
  view.impl()->wrapped_number = t.impl()->wrapped_number;
  return view;
}
}  // namespace

namespace detail {
Tensor convert_wrapped(const Tensor& t, DType d) {
  Tensor out = empty(Shape{}, d, Device{});
  cpu::copy(out, t);  // the conversion every cast kernel makes (wrapping, as torch, for integers)
  out.impl()->wrapped_number = true;
  return out;
}

Tensor match_device(const Tensor& t, Device d, const char* op) {
  if (!t.defined() || t.device() == d) return t;
  if (d.type == DeviceType::CUDA && t.device().type == DeviceType::CPU && cpu_scalar(t)) return upload_scalar(t, d);
  throw std::runtime_error(std::string("[") + op + "] expected all tensors on the same device, got " +
                           device_str(d) + " and " + device_str(t.device()));
}
}  // namespace detail

TensorList Primitive::vjp(const TensorList&, const TensorList&, const std::vector<int>&, const TensorList&) {
  throw NotImplementedError(std::string("[") + name() + "] " +
                            (differentiable() ? "has no VJP yet" : "is not differentiable"));
}

void set_autograd_recorder(RecordFn fn) { g_recorder.store(fn); }
bool grad_mode_enabled() { return t_grad_enabled; }
void set_grad_mode(bool enabled) { t_grad_enabled = enabled; }

namespace {
std::atomic<bool> g_check_output_types{false};

// Outputs of an eval that differ from what the primitive's output_types says: a bug in one of the two.
void check_output_types(const Primitive& p, const TensorList& inputs, const TensorList& out) {
  TypeList want = p.output_types(types_of(inputs));
  bool same = want.size() == out.size();
  for (size_t i = 0; same && i < out.size(); ++i)
    same = out[i].defined() && out[i].shape() == want[i].shape && out[i].dtype() == want[i].dtype;
  if (same) return;
  std::string msg = std::string("[") + p.name() + "] eval returned";
  for (const Tensor& t : out) msg += " " + (t.defined() ? dtype_name(t.dtype()) + shape_str(t.shape()) : std::string("none"));
  msg += " but output_types says";
  for (const TensorType& t : want) msg += std::string(" ") + dtype_name(t.dtype) + shape_str(t.shape);
  throw std::logic_error(msg);
}
}  // namespace

void set_check_output_types(bool on) { g_check_output_types.store(on); }

TensorList apply(const std::shared_ptr<Primitive>& p, const TensorList& inputs) {
  Device dev = inputs.empty() ? Device{} : dispatch_device(p->name(), inputs);
  bool cuda = dev.type == DeviceType::CUDA;
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
    if (cuda) {
      OpScope op(p->name());
      DeviceScope scope(dev);
      TensorList in = inputs;
      for (auto& t : in)
        if (t.defined() && t.device().type == DeviceType::CPU) t = upload_scalar(t, dev);
      out = p->eval_cuda(in);
    } else if (default_device().type != DeviceType::CPU) {
      DeviceScope scope(Device{});  // a CPU op inside a device= creation call stays on the CPU
      out = p->eval_cpu(inputs);
    } else {
      out = p->eval_cpu(inputs);
    }
  }
  if (g_check_output_types.load(std::memory_order_relaxed)) check_output_types(*p, inputs, out);
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

bool plain_cpu_call(const Tensor& a) {
  if (t_tracer || a.device().type != DeviceType::CPU || default_device().type != DeviceType::CPU) return false;
  return !t_grad_enabled || !g_recorder.load(std::memory_order_relaxed) || !a.requires_grad();
}
bool plain_cpu_call(const Tensor& a, const Tensor& b) { return plain_cpu_call(a) && plain_cpu_call(b); }

TypeList types_of(const TensorList& ts) {
  TypeList r;
  r.reserve(ts.size());
  for (const Tensor& t : ts) r.push_back(t.defined() ? TensorType{t.shape(), t.dtype()} : TensorType{Shape{}, DType::Float32, false});
  return r;
}

std::shared_ptr<Primitive> make_primitive(const std::string& name, const Params& attrs) {
  using Factory = std::shared_ptr<Primitive> (*)(const std::string&, const Params&);
  static const Factory kFactories[] = {detail::make_elementwise_primitive, detail::make_shape_primitive,
                                       detail::make_reduce_primitive, detail::make_linalg_primitive,
                                       detail::make_norm_loss_primitive, detail::make_conv_pool_primitive,
                                       detail::make_index_primitive, detail::make_attention_primitive,
                                       detail::make_rnn_primitive};
  for (Factory f : kFactories)
    if (auto p = f(name, attrs)) return p;
  return nullptr;
}

Tensor apply1(const std::shared_ptr<Primitive>& p, const TensorList& inputs) {
  return std::move(apply(p, inputs)[0]);
}

}  // namespace tt
