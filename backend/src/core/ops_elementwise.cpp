// Front-end elementwise ops: promotion, explicit broadcasting, then the Binary/Unary/... primitives.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "../cpu/kernels.h"
#include "internal.h"
#include "typedtensor/autograd.h"
#include "typedtensor/device.h"
#include "typedtensor/op_info.h"

namespace tt {
using detail::cast;
using detail::shape_error;

const char* binary_name(BinaryOp op) { return op_info(op).name; }
const char* unary_name(UnaryOp op) { return op_info(op).name; }

// ---------------- primitives ----------------
namespace {

// The output dtype of an elementwise op on operands of dtype d: bool for comparisons and tests.
template <class Op>
DType out_dtype(Op op, DType d) {
  return bool_result(op_info(op).dtype) ? DType::Bool : d;
}

// The CPU kernels of Binary and Unary, also called directly (without the primitive) when
// plain_cpu_call says apply() would add nothing.
Tensor binary_on_cpu(BinaryOp op, const Tensor& a, const Tensor& b) {
  Tensor out = empty(a.shape(), out_dtype(op, a.dtype()));
  cpu::binary(op, out, a, b);
  return out;
}
Tensor unary_on_cpu(UnaryOp op, const Tensor& a) {
  Tensor out = empty(a.shape(), out_dtype(op, a.dtype()));
  cpu::unary(op, out, a);
  return out;
}

// Operands of one shape and dtype (the front end promoted and broadcast them): out is that shape.
TypeList same_shape_types(const char* op, const TypeList& in, size_t n) {
  detail::TypeCheck c(op, in);
  c.count(n);
  for (size_t i = 1; i < n; ++i) {
    c.shape(i, in[0].shape, "operand");
    c.same_dtype(0, i);
  }
  return {in[0]};
}

class Binary : public Primitive {
 public:
  // f32_second: a half first operand with a float32 second one (a number kept at float32
  // precision); eager only, never traced
  explicit Binary(BinaryOp op, bool f32_second = false) : op_(op), f32_second_(f32_second) {}
  const char* name() const override { return binary_name(op_); }
  TypeList output_types(const TypeList& in) const override {
    // a half operand with a float32 second operand of * and / (a Python number kept at float32
    // precision, NOTE [ Half elementwise kernels ] in cpu/elementwise.cpp)
    bool f32_second = in.size() == 2 && in[0].defined && in[1].defined && is_half(in[0].dtype) &&
                      in[1].dtype == DType::Float32 && (op_ == BinaryOp::Mul || op_ == BinaryOp::Div);
    TypeList out;
    if (f32_second) {
      detail::TypeCheck(name(), in).shape(1, in[0].shape, "operand");
      out = {in[0]};
    } else {
      out = same_shape_types(name(), in, 2);
    }
    out[0].dtype = out_dtype(op_, out[0].dtype);
    return out;
  }
  BinaryOp op() const { return op_; }
  bool differentiable() const override { return op_info(op_).differentiable; }
  bool vjp_needs_inputs() const override { return op_ != BinaryOp::Add && op_ != BinaryOp::Sub; }
  bool vjp_needs_outputs() const override { return op_ == BinaryOp::Hypot || op_ == BinaryOp::Copysign; }
  TensorList eval_cpu(const TensorList& in) override { return {binary_on_cpu(op_, in[0], in[1])}; }
  TensorList vjp(const TensorList& x, const TensorList& ct, const std::vector<int>& argnums,
                 const TensorList& out) override;

 private:
  BinaryOp op_;
  bool f32_second_;
 public:  // graph mode
  std::optional<Params> attrs() const override { return Params{}; }
};

class Unary : public Primitive {
 public:
  explicit Unary(UnaryOp op) : op_(op) {}
  const char* name() const override { return unary_name(op_); }
  TypeList output_types(const TypeList& in) const override {
    TypeList out = same_shape_types(name(), in, 1);
    out[0].dtype = out_dtype(op_, out[0].dtype);
    return out;
  }
  UnaryOp op() const { return op_; }
  bool differentiable() const override { return op_info(op_).differentiable; }
  bool vjp_needs_outputs() const override {
    switch (op_) {
      case UnaryOp::Exp: case UnaryOp::Exp2: case UnaryOp::Expm1: case UnaryOp::Sqrt: case UnaryOp::Rsqrt:
      case UnaryOp::Tan: case UnaryOp::Tanh: case UnaryOp::Sigmoid: case UnaryOp::Relu: case UnaryOp::Reciprocal:
      case UnaryOp::Erfinv: case UnaryOp::I1: case UnaryOp::I1e: case UnaryOp::I0e: case UnaryOp::Erfcx:
      case UnaryOp::Ndtri:
        return true;
      default:
        return false;
    }
  }
  bool vjp_needs_inputs() const override {
    switch (op_) {  // the ones whose gradient takes both
      case UnaryOp::I1: case UnaryOp::I1e: case UnaryOp::I0e: case UnaryOp::Erfcx: return true;
      default: break;
    }
    return !vjp_needs_outputs() && op_ != UnaryOp::Neg && op_ != UnaryOp::Frac;
  }
  TensorList vjp(const TensorList& x, const TensorList& ct, const std::vector<int>& argnums,
                 const TensorList& out) override;
  TensorList eval_cpu(const TensorList& in) override { return {unary_on_cpu(op_, in[0])}; }

 private:
  UnaryOp op_;
 public:  // graph mode
  std::optional<Params> attrs() const override { return Params{}; }
};

// out = kernel(ins) for contiguous half tensors of one shape, block by block: each block of the
// inputs widened into float32 buffers that stay in cache, the float32 kernel run on them, its result
// rounded into out. The float32 result rounded once, as the composition with float32 tensors gives.
template <class Kernel>
void in_float_blocks(const Tensor& out, const TensorList& ins, Kernel kernel) {
  constexpr int64_t kBlock = 16384;  // 64 KiB per float32 buffer
  const int64_t n = out.numel(), m = std::min(n, kBlock);
  Tensor o32 = empty(Shape{m}, DType::Float32);
  TensorList bufs;
  for (size_t j = 0; j < ins.size(); ++j) bufs.push_back(empty(Shape{m}, DType::Float32));
  auto part = [](const Tensor& t, int64_t at, int64_t k) { return make_view(t, Shape{k}, Strides{1}, t.offset() + at); };
  for (int64_t i = 0; i < n; i += kBlock) {
    const int64_t k = std::min(kBlock, n - i);
    TensorList wide;
    for (size_t j = 0; j < ins.size(); ++j) {
      wide.push_back(part(bufs[j], 0, k));
      cpu::copy(wide.back(), part(ins[j], i, k));
    }
    Tensor o = part(o32, 0, k);
    kernel(o, wide);
    cpu::copy(part(out, i, k), o);
  }
}

// g * f'(x) for gelu / gelu_tanh / silu in one kernel; its own VJP (double backward) is written
// with front-end ops: d/dg = f'(x), d/dx = g f''(x). float16 / bfloat16 on the CPU: the float32
// kernel over widened blocks (NOTE [ Half gradients ]).
class ActBackward : public Primitive {
 public:
  explicit ActBackward(UnaryOp op) : op_(op) {}
  const char* name() const override {
    return op_ == UnaryOp::Gelu       ? "gelu_backward"
           : op_ == UnaryOp::GeluTanh ? "gelu_tanh_backward"
           : op_ == UnaryOp::Relu     ? "relu_backward"
                                      : "silu_backward";
  }
  TypeList output_types(const TypeList& in) const override {  // (g, x) -> dx
    detail::TypeCheck c(name(), in);
    c.count(2);
    if (!is_half(in[0].dtype)) c.real(0);
    return same_shape_types(name(), in, 2);
  }
  TensorList eval_cpu(const TensorList& in) override {
    Tensor g = contiguous(in[0]), x = contiguous(in[1]);
    Tensor out = detail::alloc_output(*this, in);
    if (is_half(out.dtype()) && out.numel() > 0)
      in_float_blocks(out, {g, x}, [this](const Tensor& o, const TensorList& w) { cpu::activation_backward(op_, o, w[0], w[1]); });
    else
      cpu::activation_backward(op_, out, g, x);
    return {out};
  }
  TensorList vjp(const TensorList& in, const TensorList& ct, const std::vector<int>& argnums, const TensorList& out) override;
  TensorList float_vjp(const TensorList& in, const TensorList& ct, const std::vector<int>& argnums) {
    using namespace vjp;
    const Tensor &g = in[0], &x = in[1], &c = ct[0];
    TensorList r;
    for (int i : argnums) {
      if (i == 0) {
        r.push_back(apply1(std::make_shared<ActBackward>(op_), {c, x}));
        continue;
      }
      if (op_ == UnaryOp::Relu) {  // piecewise linear: no curvature
        r.push_back(zeros_as(x));
        continue;
      }
      Tensor f2;
      if (op_ == UnaryOp::Gelu) {  // phi(x) (2 - x^2)
        Tensor pdf = mul(unary(UnaryOp::Exp, mul(mul(x, x), -0.5)), 0.39894228040143267794);
        f2 = mul(pdf, add(neg(mul(x, x)), 2.0));
      } else if (op_ == UnaryOp::Silu) {  // s (1 - s) (2 + x (1 - 2 s))
        Tensor s = unary(UnaryOp::Sigmoid, x);
        f2 = mul(mul(s, add(neg(s), 1.0)), add(mul(x, add(mul(s, -2.0), 1.0)), 2.0));
      } else {  // (1 - t^2) (u' - x t u'^2 + x u'' / 2), u = k (x + c x^3)
        constexpr double k = 0.79788456080286535588, cc = 0.044715;
        Tensor x2 = mul(x, x);
        Tensor t = unary(UnaryOp::Tanh, mul(mul(x, add(mul(x2, cc), 1.0)), k));
        Tensor du = mul(add(mul(x2, 3 * cc), 1.0), k);
        Tensor inner = add(sub(du, mul(mul(x, t), mul(du, du))), mul(x2, 3 * k * cc));
        f2 = mul(add(neg(mul(t, t)), 1.0), inner);
      }
      r.push_back(mul(mul(c, g), f2));
    }
    return r;
  }

 private:
  UnaryOp op_;
 public:  // graph mode: the op is in the name
  std::optional<Params> attrs() const override { return Params{}; }
};

class AsType : public Primitive {
 public:
  explicit AsType(DType d) : dtype_(d) {}
  const char* name() const override { return "to"; }
  TypeList output_types(const TypeList& in) const override {
    detail::TypeCheck(name(), in).count(1);
    return {{in[0].shape, dtype_}};
  }
  bool vjp_needs_inputs() const override { return false; }
  TensorList vjp(const TensorList& x, const TensorList& ct, const std::vector<int>&, const TensorList&) override {
    return {to_dtype(ct[0], x[0].dtype())};
  }
  TensorList eval_cpu(const TensorList& in) override {
    Tensor out = detail::alloc_output(*this, in);
    cpu::copy(out, in[0]);
    return {out};
  }

 private:
  DType dtype_;
 public:  // graph mode
  std::optional<Params> attrs() const override { return Params{{"dtype", static_cast<int64_t>(dtype_)}}; }
};

class Contiguous : public Primitive {
 public:
  const char* name() const override { return "contiguous"; }
  TypeList output_types(const TypeList& in) const override { return same_shape_types(name(), in, 1); }
  bool vjp_needs_inputs() const override { return false; }
  TensorList vjp(const TensorList&, const TensorList& ct, const std::vector<int>&, const TensorList&) override {
    return {ct[0]};
  }
  TensorList eval_cpu(const TensorList& in) override {
    Tensor out = detail::alloc_output(*this, in);
    cpu::copy(out, in[0]);
    return {out};
  }
 public:  // graph mode
  std::optional<Params> attrs() const override { return Params{}; }
};

class Where : public Primitive {
 public:
  const char* name() const override { return "where"; }
  TypeList output_types(const TypeList& in) const override {  // (cond, a, b) of one shape
    detail::TypeCheck c(name(), in);
    c.count(3).dtype(0, DType::Bool, "condition");
    for (size_t i = 1; i < 3; ++i) c.shape(i, in[0].shape, "operand");
    c.same_dtype(1, 2);
    return {{in[1].shape, in[1].dtype}};
  }
  TensorList vjp(const TensorList& x, const TensorList& ct, const std::vector<int>& argnums, const TensorList&) override {
    TensorList r;
    for (int i : argnums) {
      if (i == 0) r.emplace_back();
      else if (i == 1) r.push_back(vjp::keep(x[0], ct[0]));
      else r.push_back(vjp::keep(unary(UnaryOp::LogicalNot, x[0]), ct[0]));
    }
    return r;
  }
  TensorList eval_cpu(const TensorList& in) override {
    Tensor out = detail::alloc_output(*this, in);
    cpu::where(out, in[0], in[1], in[2]);
    return {out};
  }
 public:  // graph mode
  std::optional<Params> attrs() const override { return Params{}; }
};

class Clamp : public Primitive {
 public:
  Clamp(std::optional<double> lo, std::optional<double> hi) : lo_(lo), hi_(hi) {}
  const char* name() const override { return "clamp"; }
  TypeList output_types(const TypeList& in) const override { return same_shape_types(name(), in, 1); }
  TensorList vjp(const TensorList& x, const TensorList& ct, const std::vector<int>&, const TensorList&) override {
    // like torch: the gradient passes where lo <= x <= hi (boundaries included)
    Tensor m;
    if (lo_) m = vjp::cmp(BinaryOp::Ge, x[0], *lo_);
    if (hi_) {
      Tensor h = vjp::cmp(BinaryOp::Le, x[0], *hi_);
      m = m.defined() ? binary(BinaryOp::LogicalAnd, m, h) : h;
    }
    return {vjp::keep(m, ct[0])};
  }
  TensorList eval_cpu(const TensorList& in) override {
    Tensor out = detail::alloc_output(*this, in);
    cpu::clamp(out, in[0], lo_, hi_);
    return {out};
  }

 private:
  std::optional<double> lo_, hi_;
 public:  // graph mode
  std::optional<Params> attrs() const override {
    Params p;
    if (lo_) p.emplace_back("lo", *lo_);
    if (hi_) p.emplace_back("hi", *hi_);
    return p;
  }
};

class LeakyRelu : public Primitive {
 public:
  explicit LeakyRelu(double s, bool elu) : slope_(s), elu_(elu) {}
  const char* name() const override { return elu_ ? "elu" : "leaky_relu"; }
  TypeList output_types(const TypeList& in) const override { return same_shape_types(name(), in, 1); }
  bool vjp_needs_outputs() const override { return elu_; }
  TensorList vjp(const TensorList& x, const TensorList& ct, const std::vector<int>&, const TensorList& out) override {
    const Tensor& g = ct[0];
    if (elu_) {  // x > 0: g; else g * (y + alpha)
      Tensor pos = vjp::cmp(BinaryOp::Gt, out[0], 0.0);
      return {where(pos, g, vjp::mul(g, vjp::add(out[0], slope_)))};
    }
    return {where(vjp::cmp(BinaryOp::Gt, x[0], 0.0), g, vjp::mul(g, slope_))};
  }
  TensorList eval_cpu(const TensorList& in) override {
    Tensor out = detail::alloc_output(*this, in);
    if (elu_) cpu::elu(out, in[0], slope_);
    else cpu::leaky_relu(out, in[0], slope_);
    return {out};
  }

 private:
  double slope_;
  bool elu_;
 public:  // graph mode
  std::optional<Params> attrs() const override { return Params{{"slope", slope_}}; }
};

// lerp(a, b, w) with a constant weight, fused: d/da = 1 - w, d/db = w. CPU only and never traced
// (the front end composes Sub/Mul/Add otherwise), so it needs no CUDA kernel or graph form.
class LerpScalar : public Primitive {
 public:
  explicit LerpScalar(double w) : w_(w) {}
  const char* name() const override { return "lerp"; }
  TypeList output_types(const TypeList& in) const override { return same_shape_types(name(), in, 2); }
  bool vjp_needs_inputs() const override { return false; }
  TensorList vjp(const TensorList&, const TensorList& ct, const std::vector<int>& argnums, const TensorList&) override {
    TensorList r;
    for (int i : argnums) r.push_back(vjp::mul(ct[0], i == 0 ? 1.0 - w_ : w_));
    return r;
  }
  TensorList eval_cpu(const TensorList& in) override {
    Tensor out = detail::alloc_output(*this, in);
    cpu::lerp(out, in[0], in[1], w_);
    return {out};
  }

 private:
  double w_;
};

// a + alpha * b in one rounding (cpu::axpy's fused multiply-add, as torch's add kernel): d/da = 1,
// d/db = alpha. CPU only and never traced (the front end composes Mul and Add otherwise).
class AddScaled : public Primitive {
 public:
  explicit AddScaled(double alpha) : alpha_(alpha) {}
  const char* name() const override { return "add"; }
  TypeList output_types(const TypeList& in) const override { return same_shape_types(name(), in, 2); }
  bool vjp_needs_inputs() const override { return false; }
  TensorList vjp(const TensorList&, const TensorList& ct, const std::vector<int>& argnums, const TensorList&) override {
    TensorList r;
    for (int i : argnums) r.push_back(i == 0 ? ct[0] : vjp::mul(ct[0], alpha_));
    return r;
  }
  TensorList eval_cpu(const TensorList& in) override {
    Tensor out = empty(in[0].shape(), in[0].dtype());
    cpu::copy(out, in[0]);
    Tensor b = in[1];
    if (!b.is_contiguous()) {
      b = empty(in[1].shape(), in[1].dtype());
      cpu::copy(b, in[1]);
    }
    cpu::axpy(out, b, alpha_);
    return {out};
  }

 private:
  double alpha_;
};

// NOTE [ Half gradients ]: the VJP of a float16 / bfloat16 Binary or Unary is its float32 formula
// on widened operands (and the widened half result, which is what torch saves too), each gradient
// rounded once to its input's type -- except where one op of the half type gives that very rounding
// (g, -g, g * b, g / b, g * y, relu's mask), which then runs directly.
// `grad_dtype[i]`: the dtype of input i's gradient (its inputs may not be saved).
TensorList half_vjp_in_float(Primitive& p, const TensorList& x, const TensorList& ct, const std::vector<int>& argnums,
                             const TensorList& out, const std::vector<DType>& grad_dtype) {
  auto widen = [](const TensorList& ts) {
    TensorList r;
    for (const Tensor& t : ts) r.push_back(t.defined() && is_half(t.dtype()) ? to_dtype(t, DType::Float32) : t);
    return r;
  };
  // inputs the VJP does not read are geometry-only tensors with no memory: passed as they are
  TensorList r = p.vjp(p.vjp_needs_inputs() ? widen(x) : x, widen(ct), argnums, widen(out));
  for (size_t k = 0; k < r.size(); ++k)
    if (r[k].defined()) r[k] = to_dtype(r[k], grad_dtype[static_cast<size_t>(argnums[k])]);
  return r;
}

TensorList ActBackward::vjp(const TensorList& in, const TensorList& ct, const std::vector<int>& argnums,
                            const TensorList& out) {
  if (is_half(ct[0].dtype())) {  // NOTE [ Half gradients ]
    ActBackward f(op_);
    return half_vjp_in_float(f, in, ct, argnums, out, {ct[0].dtype(), ct[0].dtype()});
  }
  return float_vjp(in, ct, argnums);
}

TensorList Binary::vjp(const TensorList& x, const TensorList& ct, const std::vector<int>& argnums, const TensorList& out) {
  using namespace vjp;
  const Tensor& g = ct[0];
  const Tensor &a = x[0], &b = x[1];
  if (is_half(g.dtype())) {  // NOTE [ Half gradients ]; the result's dtype is a's
    bool direct = !f32_second_ && (op_ == BinaryOp::Add || op_ == BinaryOp::Sub || op_ == BinaryOp::Mul);
    if (op_ == BinaryOp::Div && !f32_second_)
      direct = std::all_of(argnums.begin(), argnums.end(), [](int i) { return i == 0; });
    if (!direct) {
      Binary f(op_);
      return half_vjp_in_float(f, x, ct, argnums, out, {g.dtype(), f32_second_ ? DType::Float32 : g.dtype()});
    }
  }
  TensorList r;
  for (int i : argnums) {
    Tensor d;
    switch (op_) {
      case BinaryOp::Add: d = g; break;
      case BinaryOp::Sub: d = i == 0 ? g : neg(g); break;
      case BinaryOp::Mul: d = mul(g, i == 0 ? b : a); break;
      case BinaryOp::Div: d = i == 0 ? div(g, b) : neg(div(mul(g, a), mul(b, b))); break;
      case BinaryOp::Pow:
        if (i == 0) {  // b * a^(b-1), 0 where b == 0
          Tensor p = binary(BinaryOp::Pow, a, sub(b, scalar_tensor(Scalar::from_int(1), b.dtype(), true)));
          d = keep(binary(BinaryOp::Ne, b, scalar_tensor(Scalar::from_int(0), b.dtype(), true)), mul(g, mul(b, p)));
        } else {  // a^b * log(a), 0 where a == 0 and b >= 0
          Tensor y = binary(BinaryOp::Pow, a, b);
          Tensor zero = binary(BinaryOp::LogicalAnd, cmp(BinaryOp::Eq, a, 0.0), cmp(BinaryOp::Ge, b, 0.0));
          d = keep(unary(UnaryOp::LogicalNot, zero), mul(g, mul(y, un(UnaryOp::Log, a))));
        }
        break;
      case BinaryOp::Maximum:
      case BinaryOp::Minimum: {  // ties split the gradient in half, like torch
        BinaryOp wins = op_ == BinaryOp::Maximum ? BinaryOp::Gt : BinaryOp::Lt;
        Tensor w = add(as(binary(wins, a, b), g), mul(as(binary(BinaryOp::Eq, a, b), g), 0.5));
        Tensor ga = mul(g, w);
        d = i == 0 ? ga : sub(g, ga);
        break;
      }
      case BinaryOp::Fmax:
      case BinaryOp::Fmin: {  // as torch: the whole gradient to a where a >= b (fmin: <=) or b is NaN, else to b
        Tensor to_a = binary(BinaryOp::LogicalOr, binary(op_ == BinaryOp::Fmax ? BinaryOp::Ge : BinaryOp::Le, a, b),
                             binary(BinaryOp::Ne, b, b));
        d = keep(i == 0 ? to_a : unary(UnaryOp::LogicalNot, to_a), g);
        break;
      }
      case BinaryOp::Atan2: {
        Tensor den = add(mul(a, a), mul(b, b));
        d = i == 0 ? div(mul(g, b), den) : neg(div(mul(g, a), den));
        break;
      }
      case BinaryOp::Remainder:  // a - floor(a / b) * b
        d = i == 0 ? g : neg(mul(g, binary(BinaryOp::FloorDiv, a, b)));
        break;
      case BinaryOp::Fmod:  // a - trunc(a / b) * b
        d = i == 0 ? g : neg(mul(g, un(UnaryOp::Trunc, div(a, b))));
        break;
      case BinaryOp::Hypot: d = div(mul(g, i == 0 ? a : b), out[0]); break;
      case BinaryOp::Copysign:
        if (i == 0) d = keep(cmp(BinaryOp::Ne, a, 0.0), mul(g, div(out[0], a)));
        else d = zeros_as(b);
        break;
      case BinaryOp::Zeta:  // d/dq zeta(s, q) = -s zeta(s + 1, q); torch has none for s either
        if (i == 0) throw NotImplementedError("[zeta] the derivative with respect to its first argument is not implemented");
        d = neg(mul(g, mul(a, binary(BinaryOp::Zeta, add(a, 1.0), b))));
        break;
      default:
        throw NotImplementedError(std::string("[") + name() + "] is not differentiable");
    }
    r.push_back(std::move(d));
  }
  return r;
}

TensorList Unary::vjp(const TensorList& in, const TensorList& ct, const std::vector<int>&, const TensorList& out) {
  using namespace vjp;
  const Tensor& g = ct[0];
  const Tensor& x = in[0];
  const Tensor& y = out.empty() ? Tensor() : out[0];
  // gelu, gelu_tanh, silu: ActBackward widens blocks itself (on the CPU)
  bool fused_act = (op_ == UnaryOp::Gelu || op_ == UnaryOp::GeluTanh || op_ == UnaryOp::Silu) && !on_cuda(g);
  if (is_half(g.dtype()) && op_ != UnaryOp::Neg && op_ != UnaryOp::Exp && op_ != UnaryOp::Relu && !fused_act) {
    Unary f(op_);  // NOTE [ Half gradients ]; the result's dtype is x's
    return half_vjp_in_float(f, in, ct, {0}, out, {g.dtype()});
  }
  constexpr double kLn2 = 0.69314718055994530942, kLn10 = 2.30258509299404568402;
  constexpr double kTwoOverSqrtPi = 1.12837916709551257390;
  auto sq = [](const Tensor& t) { return mul(t, t); };
  auto one_minus = [](const Tensor& t) { return add(neg(t), 1.0); };
  switch (op_) {
    case UnaryOp::Neg: return {neg(g)};
    case UnaryOp::Abs: return {mul(g, un(UnaryOp::Sign, x))};
    case UnaryOp::Exp: return {mul(g, y)};
    case UnaryOp::Exp2: return {mul(g, mul(y, kLn2))};
    case UnaryOp::Expm1: return {mul(g, add(y, 1.0))};
    case UnaryOp::Log: return {div(g, x)};
    case UnaryOp::Log2: return {div(g, mul(x, kLn2))};
    case UnaryOp::Log10: return {div(g, mul(x, kLn10))};
    case UnaryOp::Log1p: return {div(g, add(x, 1.0))};
    case UnaryOp::Sqrt: return {div(g, mul(y, 2.0))};
    case UnaryOp::Rsqrt: return {mul(g, mul(mul(y, sq(y)), -0.5))};
    case UnaryOp::Sin: return {mul(g, un(UnaryOp::Cos, x))};
    case UnaryOp::Cos: return {neg(mul(g, un(UnaryOp::Sin, x)))};
    case UnaryOp::Tan: return {mul(g, add(sq(y), 1.0))};
    case UnaryOp::Asin: return {mul(g, un(UnaryOp::Rsqrt, one_minus(sq(x))))};
    case UnaryOp::Acos: return {neg(mul(g, un(UnaryOp::Rsqrt, one_minus(sq(x)))))};
    case UnaryOp::Atan: return {div(g, add(sq(x), 1.0))};
    case UnaryOp::Sinh: return {mul(g, un(UnaryOp::Cosh, x))};
    case UnaryOp::Cosh: return {mul(g, un(UnaryOp::Sinh, x))};
    case UnaryOp::Tanh: return {mul(g, one_minus(sq(y)))};
    case UnaryOp::Asinh: return {mul(g, un(UnaryOp::Rsqrt, add(sq(x), 1.0)))};
    case UnaryOp::Acosh: return {mul(g, un(UnaryOp::Rsqrt, add(sq(x), -1.0)))};
    case UnaryOp::Atanh: return {div(g, one_minus(sq(x)))};
    case UnaryOp::Sigmoid: return {mul(g, mul(y, one_minus(y)))};
    case UnaryOp::Relu:  // one fused pass on the CPU (mask and select were two, and a bool tensor)
      if (!on_cuda(y) && !is_half(y.dtype())) return {apply1(std::make_shared<ActBackward>(op_), {g, y})};
      return {keep(cmp(BinaryOp::Gt, y, 0.0), g)};
    case UnaryOp::Gelu:
    case UnaryOp::GeluTanh:
    case UnaryOp::Silu:
      return {apply1(std::make_shared<ActBackward>(op_), {g, x})};
    case UnaryOp::Erf: return {mul(g, mul(un(UnaryOp::Exp, neg(sq(x))), kTwoOverSqrtPi))};
    case UnaryOp::Erfc: return {mul(g, mul(un(UnaryOp::Exp, neg(sq(x))), -kTwoOverSqrtPi))};
    case UnaryOp::Erfinv: return {mul(g, mul(un(UnaryOp::Exp, sq(y)), 1.0 / kTwoOverSqrtPi))};  // sqrt(pi)/2 e^(y^2)
    // the special functions' derivatives, torch's formulas (NOTE [ Special functions ])
    case UnaryOp::Lgamma: return {mul(g, un(UnaryOp::Digamma, x))};
    case UnaryOp::Digamma: return {mul(g, un(UnaryOp::Trigamma, x))};
    case UnaryOp::Trigamma: {  // polygamma(2, x) = -2 zeta(3, x)
      Tensor three = scalar_tensor(Scalar::from_double(3.0), x.dtype());
      return {mul(g, mul(binary(BinaryOp::Zeta, three, x), -2.0))};
    }
    case UnaryOp::I0: return {mul(g, un(UnaryOp::I1, x))};
    case UnaryOp::I0e: return {mul(g, sub(un(UnaryOp::I1e, x), mul(un(UnaryOp::Sign, x), y)))};
    case UnaryOp::I1: {  // i0(x) - i1(x) / x; 1/2 at 0
      Tensor d = sub(un(UnaryOp::I0, x), div(y, x));
      return {mul(g, where(cmp(BinaryOp::Eq, x, 0.0), scalar_tensor(Scalar::from_double(0.5), d.dtype()), d))};
    }
    case UnaryOp::I1e: {  // i0e(x) - i1e(x) (sign(x) + 1/x); 1/2 at 0
      Tensor d = sub(un(UnaryOp::I0e, x), mul(y, add(un(UnaryOp::Sign, x), un(UnaryOp::Reciprocal, x))));
      return {mul(g, where(cmp(BinaryOp::Eq, x, 0.0), scalar_tensor(Scalar::from_double(0.5), d.dtype()), d))};
    }
    case UnaryOp::Erfcx: return {mul(g, add(mul(mul(x, y), 2.0), -kTwoOverSqrtPi))};  // 2 x erfcx(x) - 2/sqrt(pi)
    case UnaryOp::Ndtri:  // sqrt(2 pi) e^(y^2 / 2)
      return {mul(g, mul(un(UnaryOp::Exp, mul(sq(y), 0.5)), 2.50662827463100050242))};
    case UnaryOp::Frac: return {g};
    case UnaryOp::Reciprocal: return {neg(mul(g, sq(y)))};
    case UnaryOp::Square: return {mul(g, mul(x, 2.0))};
    case UnaryOp::Softplus: return {mul(g, un(UnaryOp::Sigmoid, x))};  // beta 1; above the threshold sigmoid is 1
    case UnaryOp::Mish: {
      Tensor t = un(UnaryOp::Tanh, un(UnaryOp::Softplus, x));
      return {mul(g, add(t, mul(mul(x, un(UnaryOp::Sigmoid, x)), one_minus(sq(t)))))};
    }
    case UnaryOp::Logsigmoid: return {mul(g, un(UnaryOp::Sigmoid, neg(x)))};
    case UnaryOp::Relu6:
      return {keep(binary(BinaryOp::LogicalAnd, cmp(BinaryOp::Gt, x, 0.0), cmp(BinaryOp::Lt, x, 6.0)), g)};
    case UnaryOp::Hardsigmoid:
      return {keep(binary(BinaryOp::LogicalAnd, cmp(BinaryOp::Gt, x, -3.0), cmp(BinaryOp::Lt, x, 3.0)), mul(g, 1.0 / 6))};
    case UnaryOp::Hardswish: {  // x < -3: 0; x <= 3: x/3 + 1/2; else 1
      Tensor mid = mul(g, add(mul(x, 1.0 / 3), 0.5));
      Tensor r = where(cmp(BinaryOp::Le, x, 3.0), mid, g);
      return {keep(cmp(BinaryOp::Ge, x, -3.0), r)};
    }
    default:
      throw NotImplementedError(std::string("[") + name() + "] is not differentiable");
  }
}

bool needs_float(BinaryOp op) { return op_info(op).dtype == DTypeRule::Float; }
bool is_compare(BinaryOp op) { return op_info(op).dtype == DTypeRule::Compare; }
bool is_logical(BinaryOp op) { return op_info(op).dtype == DTypeRule::Logical; }
bool is_bitwise(BinaryOp op) { return op_info(op).dtype == DTypeRule::Integral; }
// add, sub, mul, div
bool is_arith(BinaryOp op) {
  return op == BinaryOp::Add || op == BinaryOp::Sub || op == BinaryOp::Mul || op == BinaryOp::Div;
}

// float16 / bfloat16 operands that the CPU's Binary and Unary take directly (CUDA keeps the
// float32 composition)
bool half_on_cpu(const Tensor& a) { return !on_cuda(a) && default_device().type == DeviceType::CPU; }
bool half_on_cpu(const Tensor& a, const Tensor& b) { return half_on_cpu(a) && half_on_cpu(b); }

bool unary_needs_float(UnaryOp op) {
  DTypeRule r = op_info(op).dtype;
  return r == DTypeRule::Float || r == DTypeRule::FloatOnly;
}

// One-state result type as in PyTorch: tensors with dims > 0-dim tensors > wrapped Python numbers.
struct Promo {
  DType dim = DType::Bool, zero = DType::Bool, wrapped = DType::Bool;
  bool has_dim = false, has_zero = false, has_wrapped = false;
  void add(const Tensor& t) {
    if (t.impl()->wrapped_number) {  // a Python float (held as float64) counts as the default float, like torch
      DType d = is_floating(t.dtype()) ? kDefaultFloat : t.dtype();
      wrapped = has_wrapped ? promote_types(wrapped, d) : d;
      has_wrapped = true;
    } else if (t.dim() == 0) {
      zero = has_zero ? promote_types(zero, t.dtype()) : t.dtype();
      has_zero = true;
    } else {
      dim = has_dim ? promote_types(dim, t.dtype()) : t.dtype();
      has_dim = true;
    }
  }
  static std::pair<bool, DType> combine(bool hh, DType higher, bool hl, DType lower) {
    if (!hh) return {hl, lower};
    if (!hl) return {true, higher};
    if (is_floating(higher)) return {true, higher};
    if (higher == DType::Bool || is_floating(lower)) return {true, promote_types(higher, lower)};
    return {true, higher};
  }
  DType result() const {
    auto [h1, d1] = combine(has_zero, zero, has_wrapped, wrapped);
    auto [h2, d2] = combine(has_dim, dim, h1, d1);
    return h2 ? d2 : DType::Float32;
  }
};

}  // namespace

DType result_type(const Tensor& a, const Tensor& b) {
  if (a.dtype() == b.dtype()) return a.dtype();
  Promo p;
  p.add(a);
  p.add(b);
  return p.result();
}

Shape broadcast_shapes(const Shape& a, const Shape& b, const char* op) {
  if (a == b) return a;
  size_t n = std::max(a.size(), b.size());
  Shape out(n);
  for (size_t i = 0; i < n; ++i) {
    int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (da != db && da != 1 && db != 1)
      shape_error(op, {a, b}, {},
                  "shapes " + shape_str(a) + " and " + shape_str(b) + " do not broadcast (dim " +
                      std::to_string(static_cast<int64_t>(i) - static_cast<int64_t>(n)) + ": " + std::to_string(da) +
                      " vs " + std::to_string(db) + ")");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

// ---------------- creation ----------------
Tensor full(const Shape& shape, Scalar value, std::optional<DType> dtype) {
  Tensor t = empty(shape, dtype ? *dtype : value.dtype());
  cpu::fill(t, value);
  return t;
}
Tensor zeros(const Shape& shape, DType dtype) {
  Tensor t = empty(shape, dtype);
  if (t.device().type != DeviceType::CPU) cpu::fill(t, Scalar::from_int(0));
  else if (t.numel()) std::memset(t.raw(), 0, t.numel() * t.itemsize());
  return t;
}
Tensor ones(const Shape& shape, DType dtype) { return full(shape, Scalar::from_int(1), dtype); }

Tensor scalar_tensor(Scalar s, std::optional<DType> dtype, bool wrapped) {
  // A wrapped Python float keeps all its bits (float64), as torch's wrapped numbers do: promotion
  // still counts it as the default float (Promo), and the op casts it once, to the type it computes
  // in -- so 0.1 ** x64 sees 0.1, not 0.1 rounded to float32 first.
  DType d = dtype ? *dtype : wrapped && s.kind == Scalar::Float ? DType::Float64 : s.dtype();
  Tensor t = empty(Shape{}, d, Device{});  // host: apply() uploads CPU scalars next to CUDA tensors
  switch (d) {  // fast paths of cpu::fill for the common scalar dtypes
    case DType::Float32: *t.data<float>() = static_cast<float>(s.to_double()); break;
    case DType::Float64: *t.data<double>() = s.to_double(); break;
    case DType::Int64: *t.data<int64_t>() = s.kind == Scalar::Float ? static_cast<int64_t>(s.d) : s.i; break;
    default: cpu::fill(t, s);
  }
  t.impl()->wrapped_number = wrapped;
  return t;
}

Tensor arange(Scalar start, Scalar end, Scalar step, std::optional<DType> dtype) {
  bool any_float = start.kind == Scalar::Float || end.kind == Scalar::Float || step.kind == Scalar::Float;
  DType d = dtype ? *dtype : (any_float ? kDefaultFloat : DType::Int64);
  double s0 = start.to_double(), s1 = end.to_double(), st = step.to_double();
  if (st == 0) throw ValueError("[arange] step must be nonzero");
  if (!std::isfinite(s0) || !std::isfinite(s1)) throw ValueError("[arange] unsupported range: start and end must be finite");
  if ((st > 0 && s1 < s0) || (st < 0 && s1 > s0))
    throw ValueError("[arange] upper bound and larger bound inconsistent with step sign");
  int64_t n;
  if (!any_float && !dtype.has_value()) {
    int64_t a = start.i, b = end.i, s = step.i;
    n = s > 0 ? (b - a + s - 1) / s : (a - b + (-s) - 1) / (-s);
  } else {
    n = static_cast<int64_t>(std::ceil((s1 - s0) / st));
  }
  n = std::max<int64_t>(n, 0);
  Tensor t = empty(Shape{n}, d, Device{});  // filled on the host; device= moves it afterwards
  visit_dtype(d, [&](auto tag) {
    using T = decltype(tag);
    T* p = t.data<T>();
    if (!any_float) {
      for (int64_t i = 0; i < n; ++i) p[i] = T(static_cast<float>(start.i + i * step.i));
      if constexpr (std::is_integral_v<T>)
        for (int64_t i = 0; i < n; ++i) p[i] = static_cast<T>(start.i + i * step.i);
      else if constexpr (std::is_same_v<T, double>)
        for (int64_t i = 0; i < n; ++i) p[i] = static_cast<double>(start.i + i * step.i);
    } else {
      for (int64_t i = 0; i < n; ++i) p[i] = T(static_cast<float>(s0 + i * st));
      if constexpr (std::is_same_v<T, double>)
        for (int64_t i = 0; i < n; ++i) p[i] = s0 + i * st;
    }
  });
  return t;
}

Tensor linspace(double start, double end, int64_t steps, DType dtype) {
  if (steps < 0) throw ValueError("[linspace] number of steps must be non-negative");
  int64_t half = steps == 1 ? 1 : steps / 2;  // from both ends, as torch; one step is `start`
  if (dtype == DType::Float32) {  // torch computes a float32 linspace in float32: the same roundings
    Tensor t = empty(Shape{steps}, DType::Float32, Device{});
    float* p = t.data<float>();
    float a = static_cast<float>(start), b = static_cast<float>(end);
    float step = steps > 1 ? (b - a) / static_cast<float>(steps - 1) : 0.0f;
    for (int64_t i = 0; i < steps; ++i)
      p[i] = i < half ? a + step * static_cast<float>(i) : b - step * static_cast<float>(steps - 1 - i);
    return t;
  }
  Tensor t = empty(Shape{steps}, DType::Float64, Device{});
  double* p = t.data<double>();
  double step = steps > 1 ? (end - start) / static_cast<double>(steps - 1) : 0;
  for (int64_t i = 0; i < steps; ++i) p[i] = i < half ? start + step * i : end - step * (steps - 1 - i);
  return dtype == DType::Float64 ? t : to_dtype(t, dtype);
}

Tensor eye(int64_t n, int64_t m, DType dtype) {
  if (n < 0 || m < 0) throw ValueError("[eye] n and m must be non-negative");
  Tensor t = empty(Shape{n, m}, dtype, Device{});  // built on the host; device= moves it afterwards
  if (t.numel()) std::memset(t.raw(), 0, t.numel() * t.itemsize());
  Tensor one = scalar_tensor(Scalar::from_int(1), dtype);
  size_t isz = itemsize(dtype);
  for (int64_t i = 0; i < std::min(n, m); ++i)
    std::memcpy(static_cast<char*>(t.raw()) + (i * m + i) * isz, one.raw(), isz);
  return t;
}

// ---------------- binary ----------------
namespace {
Tensor binary_impl(BinaryOp op, const Tensor& a0, const Tensor& b0) {
  DType rt = result_type(a0, b0);
  const char* name = binary_name(op);
  if (op == BinaryOp::Sub && (a0.dtype() == DType::Bool || b0.dtype() == DType::Bool))
    throw TypeError("[sub] subtraction with a bool tensor is not supported; use logical_not / logical_xor");
  if (is_bitwise(op) && is_floating(rt))
    throw TypeError(std::string("[") + name + "] only integer and bool tensors are supported, got " + dtype_name(rt));
  if ((op == BinaryOp::FloorDiv || op == BinaryOp::Remainder || op == BinaryOp::Fmod) && rt == DType::Bool)
    rt = DType::Int64;
  DType compute = rt;
  if (needs_float(op) && !is_floating(compute)) compute = kDefaultFloat;
  DType out_half = DType::Bool;
  bool half = is_half(compute);
  if (half) {
    out_half = compute;
    compute = DType::Float32;
  }
  // a half result: the operands are rounded to the half type first, then computed in float32, as
  // torch does (bf16 x % 0.1 divides by 0.1 rounded to bf16; bf16 x + 0.1 adds 0.1 rounded to bf16,
  // so -inf + 1e30 is NaN in float16) -- except a 0-d second operand of * and /, which torch's
  // kernels take at float32 precision (x / 1e30 is not x / inf)
  bool exact_scalar = b0.dim() == 0 && (op == BinaryOp::Mul || op == BinaryOp::Div);
  if (half && half_on_cpu(a0, b0)) {  // NOTE [ Half elementwise kernels ] in cpu/elementwise.cpp
    // the same roundings without the float32 tensors: the kernel widens, computes and rounds;
    // a float32 scalar operand is not traced (an exported graph's ops take one dtype)
    bool f32_scalar = exact_scalar && b0.dtype() != out_half;
    if (!f32_scalar || current_tracer() == nullptr) {
      Tensor a = cast(a0, out_half), b = cast(b0, f32_scalar ? DType::Float32 : out_half);
      if (a.shape() != b.shape()) {
        Shape s = broadcast_shapes(a.shape(), b.shape(), name);
        if (a.shape() != s) a = expand(a, s);
        if (b.shape() != s) b = expand(b, s);
      }
      if (plain_cpu_call(a, b)) return binary_on_cpu(op, a, b);
      return apply1(std::make_shared<Binary>(op, f32_scalar), {a, b});
    }
  }
  Tensor a = half ? cast(cast(a0, out_half), compute) : cast(a0, compute);
  Tensor b = half && !exact_scalar ? cast(cast(b0, out_half), compute) : cast(b0, compute);
  // An integer tensor exponent may be negative (torch: 0 unless the base is +-1, as ipow gives);
  // only a negative Python-number exponent is refused, in binary(Tensor, Scalar).
  if (a.shape() != b.shape()) {
    Shape s = broadcast_shapes(a.shape(), b.shape(), name);
    if (a.shape() != s) a = expand(a, s);
    if (b.shape() != s) b = expand(b, s);
  }
  // an integer division by zero is refused by the kernel (cpu::binary), on every path
  Tensor out = apply1(std::make_shared<Binary>(op), {a, b});
  if (half && !is_compare(op) && !is_logical(op)) out = to_dtype(out, out_half);
  return out;
}
}  // namespace

Tensor binary(BinaryOp op, const Tensor& a, const Tensor& b) {
  // fast path: same dtype (not half) and shape
  if (a.dtype() == b.dtype() && a.shape() == b.shape() && (!is_half(a.dtype()) || half_on_cpu(a, b)) &&
      (is_floating(a.dtype()) || !needs_float(op)) && (is_arith(op) || op == BinaryOp::Maximum ||
                                                      op == BinaryOp::Minimum || is_compare(op)) &&
      !(op == BinaryOp::Sub && a.dtype() == DType::Bool)) {
    if (plain_cpu_call(a, b)) return binary_on_cpu(op, a, b);
    return apply1(std::make_shared<Binary>(op), {a, b});
  }
  return binary_impl(op, a, b);
}

namespace {
// Fast path for a Python number that keeps the tensor's dtype (float tensor, or int64 with an int):
// a constant needs no gradient, so its broadcast view is made directly and the op needs no
// promotion. Returns an undefined tensor when the general path must run.
Tensor binary_with_number(BinaryOp op, const Tensor& t, Scalar s, bool number_first) {
  DType d = t.dtype();
  bool keeps = (d == DType::Float32 || d == DType::Float64) ? s.kind != Scalar::Bool
                                                           : (d == DType::Int64 && s.kind == Scalar::Int);
  bool fast_op = (is_arith(op) && op != BinaryOp::Div) || (op == BinaryOp::Div && is_floating(d)) || is_compare(op) ||
                 op == BinaryOp::Maximum || op == BinaryOp::Minimum || (op == BinaryOp::Pow && !number_first);
  if (!keeps || t.dim() == 0 || !fast_op) return Tensor();
  Tensor sb = make_view(scalar_tensor(s, d), t.shape(), Strides(t.shape().size(), 0), 0);
  const Tensor& x = number_first ? sb : t;
  const Tensor& y = number_first ? t : sb;
  if (plain_cpu_call(t)) return binary_on_cpu(op, x, y);
  return apply1(std::make_shared<Binary>(op), {x, y});
}
}  // namespace

namespace {
// The wrapped tensor of a Python number next to tensor `t`: a float stays a double beside a float64
// tensor (as torch's scalar does); else the default dtype, which promotion then resolves.
Tensor wrapped_number(Scalar s, const Tensor& t) {
  bool keep_double = t.dtype() == DType::Float64 && s.kind == Scalar::Float;
  return scalar_tensor(s, keep_double ? std::optional<DType>(DType::Float64) : std::nullopt, /*wrapped=*/true);
}
}  // namespace

Tensor binary(BinaryOp op, const Tensor& a, Scalar b) {
  if (op == BinaryOp::Pow && !is_floating(a.dtype()) && b.kind != Scalar::Float && b.i < 0)
    throw ValueError("[pow] integers to negative integer powers are not allowed");
  if (Tensor r = binary_with_number(op, a, b, /*number_first=*/false); r.defined()) return r;
  return binary_impl(op, a, wrapped_number(b, a));
}
Tensor binary(BinaryOp op, Scalar a, const Tensor& b) {
  if (Tensor r = binary_with_number(op, b, a, /*number_first=*/true); r.defined()) return r;
  return binary_impl(op, wrapped_number(a, b), b);
}

Tensor add(const Tensor& a, const Tensor& b, Scalar alpha) {
  if (alpha.kind != Scalar::Float && alpha.i == 1) return binary(BinaryOp::Add, a, b);
  return binary(BinaryOp::Add, a, binary(BinaryOp::Mul, b, alpha));
}

namespace {
bool overlaps(const Tensor& a, const Tensor& b) {
  if (a.storage() != b.storage()) return false;
  return !(a.offset() == b.offset() && a.strides() == b.strides() && a.shape() == b.shape());
}
void check_writable(const Tensor& t, const char* op) {
  if (!t.storage()->writable)
    throw ValueError(std::string("[") + op + "] the tensor is read-only (it shares memory with a read-only array)");
}
// An op that reads each element before writing it must not write an expanded tensor (a dim of size
// > 1 with stride 0): every alias would apply the op again. torch's has_internal_overlap == YES
// check; fill_ and masked_fill_ write a value that does not depend on the old one and skip it.
void check_no_internal_overlap(const Tensor& t, const char* op) {
  for (int64_t d = 0; d < t.dim(); ++d)
    if (t.shape()[d] > 1 && t.strides()[d] == 0)
      throw ValueError(std::string("[") + op + "] unsupported operation: more than one element of the written-to "
                       "tensor refers to a single memory location; clone() the tensor first");
}
void check_writable_once(const Tensor& t, const char* op) {
  check_writable(t, op);
  check_no_internal_overlap(t, op);
}
}  // namespace

Tensor& binary_(BinaryOp op, Tensor& self, const Tensor& other0) {
  std::string name = std::string(binary_name(op)) + "_";
  check_writable_once(self, name.c_str());
  DType rt = result_type(self, other0);
  // a Python number (float64 when a float) in self's type when the op computes in that type
  // (x.mul_(0.9) on float32): the fast path below then writes in place, with no traced op. Not for
  // a half self's * and /: their number keeps float32 precision, as out of place (and in torch)
  const bool keeps_number = is_half(self.dtype()) && (op == BinaryOp::Mul || op == BinaryOp::Div);
  const Tensor& other =
      other0.impl()->wrapped_number && rt == self.dtype() && !keeps_number ? detail::cast(other0, rt) : other0;
  if (needs_float(op) && !is_floating(rt)) rt = kDefaultFloat;
  if (is_compare(op) || is_logical(op)) rt = DType::Bool;
  if (!detail::can_cast(rt, self.dtype()))
    throw TypeError("[" + name + "] result type " + dtype_name(rt) + " can't be cast to the desired output type " +
                    dtype_name(self.dtype()));
  Shape s = broadcast_shapes(self.shape(), other.shape(), name.c_str());
  if (s != self.shape())
    shape_error(name, {self.shape(), other.shape()}, {},
                "output with shape " + shape_str(self.shape()) + " doesn't match the broadcast shape " + shape_str(s));
  const bool graph = autograd::inplace_needs_graph(self, &other);
  if (graph || current_tracer()) {  // recorded or traced: out of place, then written back
    if (graph) autograd::check_inplace(self, name.c_str());
    // the recorded op may save its input, which the write-back would modify: give it a copy
    Tensor old = graph ? autograd::alias_for_inplace(self) : self;
    if (graph && op != BinaryOp::Add && op != BinaryOp::Sub) old = clone(old);
    Tensor r = binary(op, old, other);
    return autograd::write_inplace(self, detail::cast(r, self.dtype()), name.c_str(), graph);
  }
  if (self.numel() == 0) return self;
  // an op that computes in floating point (div, pow, atan2...) writes a floating self in place too
  // a half self on the CPU too (NOTE [ Half elementwise kernels ])
  const bool half_ok = is_half(self.dtype()) && half_on_cpu(self, other);
  if (self.dtype() == other.dtype() && (!is_half(self.dtype()) || half_ok) &&
      (is_floating(self.dtype()) || !needs_float(op)) &&
      !overlaps(self, other) &&
      !is_compare(op) && !is_logical(op) && !(op == BinaryOp::Sub && self.dtype() == DType::Bool) &&
      !(is_bitwise(op) && is_floating(self.dtype()))) {
    Tensor b = detail::match_device(other.shape() == s ? other : expand(other, s), self.device(), name.c_str());
    cpu::binary(op, self, self, b);
  } else {
    Tensor r = binary(op, self, other);
    cpu::copy(self, r);
  }
  self.bump_version();
  return self;
}

Tensor& add_scaled_(Tensor& self, const Tensor& other, Scalar alpha) {
  bool fused = (self.dtype() == DType::Float32 || self.dtype() == DType::Float64) && other.dtype() == self.dtype() &&
               self.shape() == other.shape() && self.is_contiguous() && other.is_contiguous() && !on_cuda(self) &&
               !on_cuda(other) && !autograd::inplace_needs_graph(self, &other) && !overlaps(self, other) &&
               !current_tracer();
  if (!fused) return binary_(BinaryOp::Add, self, binary(BinaryOp::Mul, other, alpha));
  check_writable_once(self, "add_");
  cpu::axpy(self, other, alpha.to_double());
  self.bump_version();
  return self;
}

Tensor add_scaled(const Tensor& a0, const Tensor& b0, Scalar alpha) {
  bool fused = a0.dtype() == b0.dtype() && (a0.dtype() == DType::Float32 || a0.dtype() == DType::Float64) &&
               alpha.kind != Scalar::Bool && !on_cuda(a0) && !on_cuda(b0) && current_tracer() == nullptr &&
               default_device().type == DeviceType::CPU;
  if (!fused) return binary(BinaryOp::Add, a0, binary(BinaryOp::Mul, b0, alpha));
  Tensor a = a0, b = b0;
  if (a.shape() != b.shape()) {
    Shape s = broadcast_shapes(a.shape(), b.shape(), "add");
    if (a.shape() != s) a = expand(a, s);
    if (b.shape() != s) b = expand(b, s);
  }
  return apply1(std::make_shared<AddScaled>(alpha.to_double()), {a, b});
}

Tensor& binary_(BinaryOp op, Tensor& self, Scalar other) {
  // wrapped_number: the default float32 wrapped number would round 0.9 before a float64 op
  // (x.mul_(0.9) on 3.0 was off by 7e-8)
  return binary_(op, self, wrapped_number(other, self));
}

// ---------------- unary ----------------
Tensor unary(UnaryOp op, const Tensor& a0) {
  Tensor a = a0;
  DType d = a.dtype();
  if (op_info(op).dtype == DTypeRule::FloatOnly && !is_floating(d))  // like torch: activations take floating point input only
    throw TypeError(std::string("[") + unary_name(op) + "] needs a floating point tensor, got " + dtype_name(d));
  if (unary_needs_float(op) && !is_floating(d)) a = to_dtype(a, kDefaultFloat);
  if (op == UnaryOp::Square && d == DType::Bool) a = to_dtype(a, DType::Int64);  // torch: x ** 2 promotes bool
  if (op == UnaryOp::Neg && d == DType::Bool)
    throw TypeError("[neg] negation of a bool tensor is not supported; use logical_not");
  if (op == UnaryOp::BitNot && is_floating(d)) throw TypeError("[bitwise_not] only integer and bool tensors are supported");
  bool half = is_half(a.dtype()) && !half_on_cpu(a);  // NOTE [ Half elementwise kernels ]
  if (half) a = to_dtype(a, DType::Float32);
  Tensor out = plain_cpu_call(a) ? unary_on_cpu(op, a) : apply1(std::make_shared<Unary>(op), {a});
  if (half && out.dtype() == DType::Float32) out = to_dtype(out, d);
  return out;
}

Tensor& unary_(UnaryOp op, Tensor& a) {
  check_writable_once(a, (std::string(unary_name(op)) + "_").c_str());
  bool graph = autograd::inplace_needs_graph(a, nullptr);
  if (graph) autograd::check_inplace(a, unary_name(op));
  Tensor r = unary(op, graph ? clone(autograd::alias_for_inplace(a)) : a);  // clone: see binary_
  if (!detail::can_cast(r.dtype(), a.dtype()))
    throw TypeError(std::string("[") + unary_name(op) + "_] result type " + dtype_name(r.dtype()) +
                    " can't be cast to the desired output type " + dtype_name(a.dtype()));
  if (graph || current_tracer())
    return autograd::write_inplace(a, detail::cast(r, a.dtype()), (std::string(unary_name(op)) + "_").c_str(), graph);
  cpu::copy(a, r);
  a.bump_version();
  return a;
}

Tensor leaky_relu(const Tensor& a, double slope) {
  if (!is_floating(a.dtype())) throw TypeError("[leaky_relu] needs a floating point tensor");
  Tensor x = is_half(a.dtype()) ? to_dtype(a, DType::Float32) : a;
  Tensor r = apply1(std::make_shared<LeakyRelu>(slope, false), {x});
  return is_half(a.dtype()) ? to_dtype(r, a.dtype()) : r;
}

Tensor elu(const Tensor& a, double alpha) {
  if (!is_floating(a.dtype())) throw TypeError("[elu] needs a floating point tensor");
  Tensor x = is_half(a.dtype()) ? to_dtype(a, DType::Float32) : a;
  Tensor r = apply1(std::make_shared<LeakyRelu>(alpha, true), {x});
  return is_half(a.dtype()) ? to_dtype(r, a.dtype()) : r;
}

// torch's softplus(x, beta, threshold) = log(1 + exp(beta x)) / beta, and x itself where beta x > threshold.
// The defaults are the Softplus kernel (fused, its own VJP). Other values compose that kernel as
// where(beta x > threshold, x, softplus(beta x) / beta): the kernel is stable for every beta x, so the
// gradient, sigmoid(beta x) below the threshold and 1 above it, is finite on both branches (a
// composition through exp(beta x) would give inf * 0 = NaN on the branch where() drops).
Tensor softplus(const Tensor& input, double beta, double threshold) {
  if ((beta == 1.0 && threshold == 20.0) || !is_floating(input.dtype())) return unary(UnaryOp::Softplus, input);
  Tensor bx = binary(BinaryOp::Mul, input, Scalar::from_double(beta));
  Tensor soft = binary(BinaryOp::Div, unary(UnaryOp::Softplus, bx), Scalar::from_double(beta));
  return where(binary(BinaryOp::Gt, bx, Scalar::from_double(threshold)), input, soft);
}

Tensor where(const Tensor& cond0, const Tensor& a0, const Tensor& b0) {
  if (cond0.dtype() != DType::Bool && cond0.dtype() != DType::UInt8)
    throw TypeError(std::string("[where] condition must be a bool tensor, got ") + dtype_name(cond0.dtype()));
  DType rt = result_type(a0, b0);
  Shape s = broadcast_shapes(broadcast_shapes(cond0.shape(), a0.shape(), "where"), b0.shape(), "where");
  Tensor c = cast(cond0, DType::Bool), a = cast(a0, rt), b = cast(b0, rt);
  if (c.shape() != s) c = expand(c, s);
  if (a.shape() != s) a = expand(a, s);
  if (b.shape() != s) b = expand(b, s);
  return apply1(std::make_shared<Where>(), {c, a, b});
}

Tensor clamp(const Tensor& a0, std::optional<Scalar> lo, std::optional<Scalar> hi) {
  if (!lo && !hi) throw ValueError("[clamp] at least one of 'min' or 'max' must not be None");
  DType d = a0.dtype();
  if (!is_floating(d) && ((lo && lo->kind == Scalar::Float) || (hi && hi->kind == Scalar::Float))) d = kDefaultFloat;
  if (d == DType::Bool && ((lo && lo->kind == Scalar::Int) || (hi && hi->kind == Scalar::Int))) d = DType::Int64;
  Tensor a = cast(a0, is_half(d) ? DType::Float32 : d);
  std::optional<double> l, h;
  if (lo) l = lo->to_double();
  if (hi) h = hi->to_double();
  Tensor r = apply1(std::make_shared<Clamp>(l, h), {a});
  return is_half(d) ? to_dtype(r, d) : r;
}

Tensor clamp_t(const Tensor& a, const Tensor* lo, const Tensor* hi) {
  if (!lo && !hi) throw ValueError("[clamp] at least one of 'min' or 'max' must not be None");
  Tensor r = a;
  if (lo) r = binary(BinaryOp::Maximum, r, *lo);
  if (hi) r = binary(BinaryOp::Minimum, r, *hi);
  return r;
}

Tensor& clamp_(Tensor& a, std::optional<Scalar> lo, std::optional<Scalar> hi) {
  check_writable_once(a, "clamp_");
  bool graph = autograd::inplace_needs_graph(a, nullptr);
  if (graph) autograd::check_inplace(a, "clamp_");
  Tensor r = clamp(graph ? clone(autograd::alias_for_inplace(a)) : a, lo, hi);  // clone: see binary_
  if (!detail::can_cast(r.dtype(), a.dtype()))
    throw TypeError(std::string("[clamp_] result type ") + dtype_name(r.dtype()) +
                    " can't be cast to the desired output type " + dtype_name(a.dtype()));
  if (graph || current_tracer()) return autograd::write_inplace(a, detail::cast(r, a.dtype()), "clamp_", graph);
  cpu::copy(a, r);
  a.bump_version();
  return a;
}

Tensor lerp(const Tensor& a, const Tensor& b, const Tensor& w) {
  return binary(BinaryOp::Add, a, binary(BinaryOp::Mul, w, binary(BinaryOp::Sub, b, a)));
}

Tensor lerp_scalar(const Tensor& a0, const Tensor& b0, double w) {
  // float16 / bfloat16: computed in float32 and rounded once, as torch does (b - a alone can overflow)
  if (a0.dtype() == b0.dtype() && is_half(a0.dtype()))
    return to_dtype(lerp_scalar(to_dtype(a0, DType::Float32), to_dtype(b0, DType::Float32), w), a0.dtype());
  bool fused = a0.dtype() == b0.dtype() && (a0.dtype() == DType::Float32 || a0.dtype() == DType::Float64) &&
               !on_cuda(a0) && !on_cuda(b0) && current_tracer() == nullptr;
  if (!fused) return binary(BinaryOp::Add, a0, binary(BinaryOp::Mul, binary(BinaryOp::Sub, b0, a0), Scalar::from_double(w)));
  Tensor a = a0, b = b0;
  if (a.shape() != b.shape()) {
    Shape s = broadcast_shapes(a.shape(), b.shape(), "lerp");
    if (a.shape() != s) a = expand(a, s);
    if (b.shape() != s) b = expand(b, s);
  }
  return apply1(std::make_shared<LerpScalar>(w), {a, b});
}

Tensor nan_to_num(const Tensor& a, double nan, std::optional<double> posinf, std::optional<double> neginf) {
  if (!is_floating(a.dtype())) return clone(a);
  double big = a.dtype() == DType::Float64 ? std::numeric_limits<double>::max()
               : a.dtype() == DType::Float16 ? 65504.0
               : static_cast<double>(std::numeric_limits<float>::max());
  Tensor r = where(unary(UnaryOp::IsNan, a), scalar_tensor(Scalar::from_double(nan), a.dtype()), a);
  Tensor pos = binary(BinaryOp::Eq, r, Scalar::from_double(std::numeric_limits<double>::infinity()));
  r = where(pos, scalar_tensor(Scalar::from_double(posinf ? *posinf : big), a.dtype()), r);
  Tensor neg = binary(BinaryOp::Eq, r, Scalar::from_double(-std::numeric_limits<double>::infinity()));
  return where(neg, scalar_tensor(Scalar::from_double(neginf ? *neginf : -big), a.dtype()), r);
}

// ---------------- casts and copies ----------------
Tensor to_dtype(const Tensor& a, DType dtype, bool copy) {
  if (a.dtype() == dtype && !copy) return a;
  return apply1(std::make_shared<AsType>(dtype), {a});
}

Tensor contiguous(const Tensor& a) {
  if (a.is_contiguous()) return a;
  return apply1(std::make_shared<Contiguous>(), {a});
}

Tensor clone(const Tensor& a) { return apply1(std::make_shared<Contiguous>(), {a}); }

Tensor& copy_(Tensor& dst, const Tensor& src) {
  check_writable_once(dst, "copy_");
  Shape s = broadcast_shapes(dst.shape(), src.shape(), "copy_");
  if (s != dst.shape())
    shape_error("copy_", {dst.shape(), src.shape()}, {},
                "source of shape " + shape_str(src.shape()) + " can't be broadcast to " + shape_str(dst.shape()));
  const bool graph = autograd::inplace_needs_graph(dst, &src);
  if (graph || current_tracer()) {  // dst's old value gets no gradient
    if (graph) autograd::check_inplace(dst, "copy_");
    return autograd::write_inplace(dst, clone(expand(detail::cast(src, dst.dtype()), s)), "copy_", graph);
  }
  Tensor b = src.shape() == s ? src : expand(src, s);
  if (dst.storage() == src.storage()) b = clone(b);  // overlapping copy: go through a temporary
  cpu::copy(dst, b);
  dst.bump_version();
  return dst;
}

Tensor& fill_(Tensor& dst, Scalar v) {
  check_writable(dst, "fill_");
  const bool graph = autograd::inplace_needs_graph(dst, nullptr);
  if (graph || current_tracer()) {
    if (graph) autograd::check_inplace(dst, "fill_");
    Tensor value;
    {
      DeviceScope on(dst.device());  // filled where dst lives
      value = full(dst.shape(), v, dst.dtype());
    }
    return autograd::write_inplace(dst, value, "fill_", graph);
  }
  cpu::fill(dst, v);
  dst.bump_version();
  return dst;
}

Tensor& zero_(Tensor& dst) { return fill_(dst, Scalar::from_int(0)); }

// ---------------- graph mode: rebuild a primitive from its name and attributes ----------------
std::shared_ptr<Primitive> detail::make_elementwise_primitive(const std::string& name, const Params& attrs) {
  AttrReader r(name, attrs);
  if (auto op = binary_op_named(name)) return std::make_shared<Binary>(*op);
  if (auto op = unary_op_named(name)) return std::make_shared<Unary>(*op);
  if (name == "to") {
    int64_t d = r.i("dtype");
    if (d < 0 || d >= kNumDTypes) throw ValueError("primitive 'to': dtype out of range");
    return std::make_shared<AsType>(static_cast<DType>(d));
  }
  if (name == "contiguous") return std::make_shared<Contiguous>();
  if (name == "gelu_backward") return std::make_shared<ActBackward>(UnaryOp::Gelu);
  if (name == "gelu_tanh_backward") return std::make_shared<ActBackward>(UnaryOp::GeluTanh);
  if (name == "silu_backward") return std::make_shared<ActBackward>(UnaryOp::Silu);
  if (name == "relu_backward") return std::make_shared<ActBackward>(UnaryOp::Relu);
  if (name == "where") return std::make_shared<Where>();
  if (name == "clamp") {
    std::optional<double> lo, hi;
    if (r.has("lo")) lo = r.f("lo");
    if (r.has("hi")) hi = r.f("hi");
    return std::make_shared<Clamp>(lo, hi);
  }
  if (name == "leaky_relu" || name == "elu") return std::make_shared<LeakyRelu>(r.f("slope"), name == "elu");
  return nullptr;
}

}  // namespace tt
