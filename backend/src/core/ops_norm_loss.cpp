// Normalisation and losses: softmax / log_softmax, layer_norm and the fused cross-entropy.
#include <algorithm>
#include <cmath>

#include "typedtensor/autocast.h"
#include "../cpu/kernels.h"
#include "../cpu/layer_norm_backward.h"
#include "internal.h"
#include "typedtensor/device.h"

namespace tt {
using detail::dim_arg;
using detail::shape_error;

namespace {

class Softmax : public Primitive {
 public:
  Softmax(int64_t dim, bool log) : dim_(dim), log_(log) {}
  const char* name() const override { return log_ ? "log_softmax" : "softmax"; }
  TypeList output_types(const TypeList& in) const override {
    detail::TypeCheck c(name(), in);
    c.count(1);
    c.real(0);
    c.dim(dim_, in[0].shape.size());
    return {in[0]};
  }
  bool vjp_needs_inputs() const override { return false; }
  bool vjp_needs_outputs() const override { return true; }
  TensorList vjp(const TensorList&, const TensorList& ct, const std::vector<int>&, const TensorList& out) override {
    using namespace vjp;
    const Tensor &g = ct[0], &y = out[0];
    if (log_) return {sub(g, mul(unary(UnaryOp::Exp, y), sum_keep(g, Dims{dim_})))};  // g - p sum(g)
    return {mul(y, sub(g, sum_keep(mul(g, y), Dims{dim_})))};                           // y (g - sum(g y))
  }
  TensorList eval_cpu(const TensorList& in) override {
    Tensor x = contiguous(in[0]);
    int64_t outer, r, inner;
    detail::split_at(x.shape(), dim_, &outer, &r, &inner);
    Tensor out = detail::alloc_output(*this, in);
    if (out.numel() > 0) cpu::softmax(out, x, outer, r, inner, log_);
    return {out};
  }

 private:
  int64_t dim_;
  bool log_;
 public:  // graph mode
  std::optional<Params> attrs() const override { return Params{{"dim", dim_}}; }
};

// (x, [w], g) -> (dx, [dw], [db]) in one pass over the rows (cpu/layer_norm_backward.cpp). CPU only;
// not differentiable itself (a double backward takes LayerNorm's composite VJP instead).
class LayerNormBackward : public Primitive {
 public:
  LayerNormBackward(int64_t cols, double eps, bool w, bool b) : cols_(cols), eps_(eps), w_(w), b_(b) {}
  const char* name() const override { return "layer_norm_backward"; }
  bool differentiable() const override { return false; }
  TypeList output_types(const TypeList& in) const override {  // (x, [w], g) -> (dx, [dw], [db])
    detail::TypeCheck c(name(), in);
    c.count(w_ ? 3 : 2);
    c.real(0);
    const Shape& x = in[0].shape;
    if (cols_ <= 0 || x.empty() || shape_numel(x) % cols_ != 0) c.fail("geometry");
    if (x.back() <= 0 || x.back() > cols_ || cols_ % x.back() != 0) c.fail("normalized shape");
    c.shape(w_ ? 2 : 1, x, "gradient");
    c.same_dtype(0, w_ ? 2 : 1);
    TypeList out{in[0]};
    if (w_) {
      if (shape_numel(in[1].shape) != cols_) c.fail("weight");
      c.same_dtype(0, 1);
      out.push_back({Shape{cols_}, in[0].dtype});
    }
    if (b_) out.push_back({Shape{cols_}, in[0].dtype});
    return out;
  }
  TensorList eval_cpu(const TensorList& in) override {
    for (const auto& t : in)
      if (on_cuda(t)) throw NotImplementedError("[layer_norm_backward] has no CUDA implementation");
    Tensor x = contiguous(in[0]), g = contiguous(in[w_ ? 2 : 1]);
    Tensor w = w_ ? contiguous(in[1]) : Tensor();
    TensorList out = detail::alloc_outputs(*this, in);
    Tensor dx = out[0], dw = w_ ? out[1] : Tensor(), db = b_ ? out.back() : Tensor();
    int64_t rows = cols_ ? x.numel() / cols_ : 0;
    if (rows == 0) {
      for (auto& t : out) cpu::fill(t, Scalar::from_int(0));
      return out;
    }
    cpu::layer_norm_backward(dx, w_ ? &dw : nullptr, b_ ? &db : nullptr, x, w_ ? &w : nullptr, g, rows, cols_, eps_);
    return out;
  }
  std::optional<Params> attrs() const override { return Params{{"cols", cols_}, {"eps", eps_}, {"weight", w_}, {"bias", b_}}; }

 private:
  int64_t cols_;
  double eps_;
  bool w_, b_;
};

class LayerNorm : public Primitive {
 public:
  LayerNorm(int64_t cols, double eps, bool w, bool b) : cols_(cols), eps_(eps), w_(w), b_(b) {}
  const char* name() const override { return "layer_norm"; }
  // (x, weight?, bias?): x's rows of `cols` trailing elements; the affine parameters hold cols each
  TypeList output_types(const TypeList& in) const override {
    detail::TypeCheck c(name(), in);
    size_t k = 1 + (w_ ? 1 : 0) + (b_ ? 1 : 0);
    c.count(k);
    c.real(0);
    const Shape& x = in[0].shape;
    if (cols_ <= 0 || x.empty() || shape_numel(x) % cols_ != 0) c.fail("geometry");
    if (x.back() <= 0 || x.back() > cols_ || cols_ % x.back() != 0) c.fail("normalized shape");
    for (size_t i = 1; i < k; ++i) {
      if (shape_numel(in[i].shape) != cols_) c.fail("affine parameters");
      c.same_dtype(0, i);
    }
    return {in[0]};
  }
  TensorList vjp(const TensorList& in, const TensorList& ct, const std::vector<int>& argnums, const TensorList&) override {
    const Tensor& x = in[0];
    if (!grad_mode_enabled() && !on_cuda(x) && (x.dtype() == DType::Float32 || x.dtype() == DType::Float64)) {
      // the fused kernel; its outputs are dx, then dw and db where the primitive has them
      TensorList args{x};
      if (w_) args.push_back(in[1]);
      args.push_back(ct[0]);
      TensorList g = tt::apply(std::make_shared<LayerNormBackward>(cols_, eps_, w_, b_), args);
      TensorList r;
      for (int i : argnums) {
        if (i == 0) r.push_back(g[0]);
        else if (i == 1 && w_) r.push_back(reshape(g[1], in[1].shape()));
        else r.push_back(reshape(g[w_ ? 2 : 1], in[i].shape()));
      }
      return r;
    }
    // create_graph (or CUDA): recomputes the row statistics with front-end ops, differentiable again
    using namespace vjp;
    int64_t rows = cols_ ? x.numel() / cols_ : 0;
    Shape s2{rows, cols_};
    Tensor x2 = reshape(x, s2), g2 = reshape(ct[0], s2);
    Tensor xc = sub(x2, reduce(ReduceOp::Mean, x2, Dims{1}, true, std::nullopt));
    Tensor var = reduce(ReduceOp::Mean, mul(xc, xc), Dims{1}, true, std::nullopt);
    Tensor rstd = unary(UnaryOp::Rsqrt, add(var, eps_));
    Tensor xhat = mul(xc, rstd);
    TensorList r;
    for (int i : argnums) {
      if (i == 0) {
        Tensor gw = w_ ? mul(g2, reshape(in[1], Shape{cols_})) : g2;
        Tensor m1 = reduce(ReduceOp::Mean, gw, Dims{1}, true, std::nullopt);
        Tensor m2 = reduce(ReduceOp::Mean, mul(gw, xhat), Dims{1}, true, std::nullopt);
        r.push_back(reshape(mul(rstd, sub(sub(gw, m1), mul(xhat, m2))), x.shape()));
      } else if (i == 1 && w_) {
        r.push_back(reshape(reduce(ReduceOp::Sum, mul(g2, xhat), Dims{0}, false, std::nullopt), in[1].shape()));
      } else {
        r.push_back(reshape(reduce(ReduceOp::Sum, g2, Dims{0}, false, std::nullopt), in[i].shape()));
      }
    }
    return r;
  }
  TensorList eval_cpu(const TensorList& in) override {
    Tensor x = contiguous(in[0]);
    Tensor w = w_ ? contiguous(in[1]) : Tensor();
    Tensor b = b_ ? contiguous(in[w_ ? 2 : 1]) : Tensor();
    Tensor out = detail::alloc_output(*this, in);
    int64_t rows = cols_ ? x.numel() / cols_ : 0;
    if (out.numel() > 0) cpu::layer_norm(out, x, w_ ? &w : nullptr, b_ ? &b : nullptr, rows, cols_, eps_);
    return {out};
  }

 private:
  int64_t cols_;
  double eps_;
  bool w_, b_;
 public:  // graph mode
  std::optional<Params> attrs() const override { return Params{{"cols", cols_}, {"eps", eps_}, {"weight", w_}, {"bias", b_}}; }
};

// Cross-entropy of [n, c] logits and class indices, fused (cpu/loss.cpp). The backward recomputes
// the softmax from the logits rather than keeping an [n, c] log-probability tensor alive.
double host_scalar(const Tensor& t) { return *contiguous(to_dtype(t, DType::Float64)).data<double>(); }

int64_t count_valid(const Tensor& t, int64_t ignore) {
  const int64_t* p = t.data<int64_t>();
  return std::count_if(p, p + t.numel(), [ignore](int64_t v) { return v != ignore; });
}

// Every class index in range (or the ignored one). Checked where the kernel runs, not only in the
// front end: a compiled or loaded graph feeds new targets to the same primitive.
void check_targets(const Tensor& x, const Tensor& t, int64_t ignore) {
  if (x.size(1) == 0) throw ValueError("[cross_entropy] needs at least one class");
  const int64_t* p = t.data<int64_t>();
  int64_t c = x.size(1);
  for (int64_t i = 0; i < t.numel(); ++i)
    if (p[i] != ignore && (p[i] < 0 || p[i] >= c))
      throw IndexError("Target " + std::to_string(p[i]) + " is out of bounds (number of classes: " + std::to_string(c) + ")");
}

// (logits [n, c] float, targets [n] int64[, a 0-d gradient]): the checks of the fused kernels (the
// target values are checked where they run).
void check_cross_entropy_types(const detail::TypeCheck& c, bool backward) {
  c.count(backward ? 3 : 2);
  c.real(0);
  c.rank(0, 2, "logits");
  c.rank(1, 1, "targets");
  c.dtype(1, DType::Int64, "targets");
  if (c[1].shape[0] != c[0].shape[0]) c.fail("targets must be int64 [n]");
  if (backward) {
    c.shape(2, Shape{}, "gradient");
    c.same_dtype(0, 2);
  }
}

class CrossEntropyBackward : public Primitive {
 public:
  CrossEntropyBackward(int64_t ignore, bool mean) : ignore_(ignore), mean_(mean) {}
  const char* name() const override { return "cross_entropy_backward"; }
  TypeList output_types(const TypeList& in) const override {  // -> dlogits
    check_cross_entropy_types(detail::TypeCheck(name(), in), true);
    return {in[0]};
  }
  TensorList eval_cpu(const TensorList& in) override {  // (logits, targets, g) -> dlogits
    Tensor x = contiguous(in[0]), t = contiguous(in[1]);
    check_targets(x, t, ignore_);
    double scale = host_scalar(in[2]);
    if (mean_) scale /= static_cast<double>(count_valid(t, ignore_));
    Tensor dx = detail::alloc_output(*this, in);
    cpu::cross_entropy_backward(dx, x, t, ignore_, scale);
    return {dx};
  }
  TensorList vjp(const TensorList& in, const TensorList& ct, const std::vector<int>& argnums, const TensorList&) override {
    // dx = w (s - onehot) per row, w = g k valid: d/dx = w s (c - sum(c s)); d/dg = <c, dx / g>
    using namespace vjp;
    const Tensor &x = in[0], &t = in[1], &g = in[2], &c = ct[0];
    TensorList r;
    for (int i : argnums) {
      if (i == 0) {
        Tensor valid = reshape(as(binary(BinaryOp::Ne, t, Scalar::from_int(ignore_)), x), Shape{x.size(0), 1});
        Tensor w = mul(mean_ ? div(valid, reduce(ReduceOp::Sum, valid, std::nullopt, false, std::nullopt)) : valid, g);
        Tensor s = softmax(x, 1, std::nullopt);
        r.push_back(mul(w, mul(s, sub(c, sum_keep(mul(c, s), Dims{1})))));
      } else if (i == 2) {
        Tensor unit = apply1(std::make_shared<CrossEntropyBackward>(ignore_, mean_), {x, t, ones(Shape{}, g.dtype())});
        r.push_back(reduce(ReduceOp::Sum, mul(c, unit), std::nullopt, false, std::nullopt));
      } else {
        r.emplace_back();
      }
    }
    return r;
  }
  std::optional<Params> attrs() const override { return Params{{"ignore_index", ignore_}, {"mean", mean_}}; }

 private:
  int64_t ignore_;
  bool mean_;
};

class CrossEntropy : public Primitive {
 public:
  CrossEntropy(int64_t ignore, bool mean) : ignore_(ignore), mean_(mean) {}
  const char* name() const override { return "cross_entropy"; }
  TypeList output_types(const TypeList& in) const override {  // -> the 0-d loss
    check_cross_entropy_types(detail::TypeCheck(name(), in), false);
    return {{Shape{}, in[0].dtype}};
  }
  TensorList eval_cpu(const TensorList& in) override {  // (logits [n, c], targets [n]) -> scalar
    Tensor x = contiguous(in[0]), t = contiguous(in[1]);
    check_targets(x, t, ignore_);
    Tensor rows = empty(Shape{x.size(0)}, x.dtype());
    cpu::cross_entropy_rows(rows, x, t, ignore_);
    double total = host_scalar(reduce(ReduceOp::Sum, rows, std::nullopt, false, DType::Float64));
    if (mean_) total /= static_cast<double>(count_valid(t, ignore_));  // 0/0: nan, as in torch
    const TensorType out = output_types(types_of(in))[0];
    return {full(out.shape, Scalar::from_double(total), out.dtype)};
  }
  TensorList vjp(const TensorList& in, const TensorList& ct, const std::vector<int>& argnums, const TensorList&) override {
    TensorList r;
    for (int i : argnums) {
      if (i == 0) r.push_back(apply1(std::make_shared<CrossEntropyBackward>(ignore_, mean_), {in[0], in[1], ct[0]}));
      else r.emplace_back();
    }
    return r;
  }
  std::optional<Params> attrs() const override { return Params{{"ignore_index", ignore_}, {"mean", mean_}}; }

 private:
  int64_t ignore_;
  bool mean_;
};
}  // namespace

// ---------------- nn ----------------
static Tensor softmax_common(bool log, const Tensor& a, int64_t dim, std::optional<DType> dtype) {
  const char* name = log ? "log_softmax" : "softmax";
  int64_t d = dim_arg(name, a, dim);
  Tensor x = dtype ? to_dtype(a, *dtype) : a;
  if (!is_floating(x.dtype())) throw TypeError(std::string("[") + name + "] needs a floating point tensor, got " + dtype_name(x.dtype()));
  DType out = x.dtype();
  if (is_half(out)) x = to_dtype(x, DType::Float32);
  Tensor r = apply1(std::make_shared<Softmax>(a.dim() == 0 ? 0 : d, log), {x});
  return detail::cast(r, out);
}
Tensor softmax(const Tensor& a, int64_t dim, std::optional<DType> dtype) {
  TT_AUTOCAST("softmax", softmax, a, dim, dtype);
  return softmax_common(false, a, dim, dtype);
}
Tensor log_softmax(const Tensor& a, int64_t dim, std::optional<DType> dtype) {
  TT_AUTOCAST("log_softmax", log_softmax, a, dim, dtype);
  return softmax_common(true, a, dim, dtype);
}

Tensor cross_entropy_indices(const Tensor& x, const Tensor& t, int64_t ignore_index, bool mean) {
  if (x.dim() != 2 || t.dim() != 1 || t.size(0) != x.size(0))
    shape_error("cross_entropy", {x.shape(), t.shape()}, {},
                "the fused kernel takes [n, c] logits and [n] class indices, got " + shape_str(x.shape()) + " and " +
                    shape_str(t.shape()));
  if (x.dtype() != DType::Float32 && x.dtype() != DType::Float64)
    throw TypeError(std::string("[cross_entropy] needs float32 or float64 logits, got ") + dtype_name(x.dtype()));
  if (t.dtype() != DType::Int64) throw TypeError(std::string("[cross_entropy] needs int64 targets, got ") + dtype_name(t.dtype()));
  if (on_cuda(x) || on_cuda(t)) throw NotImplementedError("[cross_entropy] the fused kernel is CPU-only");
  // the class indices are checked where the kernel runs (CrossEntropy::eval_cpu), once
  return apply1(std::make_shared<CrossEntropy>(ignore_index, mean), {x, contiguous(t)});
}

Tensor layer_norm(const Tensor& x, const Shape& ns, const Tensor* w, const Tensor* b, double eps) {
  TT_AUTOCAST("layer_norm", layer_norm, x, ns, w, b, eps);
  int64_t k = static_cast<int64_t>(ns.size());
  bool ok = k <= x.dim() && k > 0;
  for (int64_t i = 0; ok && i < k; ++i)
    if (x.shape()[x.dim() - k + i] != ns[i]) ok = false;
  if (!ok)
    shape_error("layer_norm", {x.shape()}, {{"normalized_shape", ns.vec()}},
                "input shape " + shape_str(x.shape()) + " does not end with normalized_shape " + shape_str(ns));
  if (w && w->shape() != ns)
    shape_error("layer_norm", {x.shape(), w->shape()}, {{"normalized_shape", ns.vec()}}, "weight shape " + shape_str(w->shape()) + " != normalized_shape " + shape_str(ns));
  if (b && b->shape() != ns)
    shape_error("layer_norm", {x.shape(), b->shape()}, {{"normalized_shape", ns.vec()}}, "bias shape " + shape_str(b->shape()) + " != normalized_shape " + shape_str(ns));
  if (!is_floating(x.dtype())) throw TypeError("[layer_norm] needs a floating point tensor");
  DType dt = x.dtype(), c = is_half(dt) ? DType::Float32 : dt;
  int64_t cols = 1;
  for (auto s : ns) cols *= s;
  TensorList in{detail::cast(x, c)};
  if (w) in.push_back(detail::cast(*w, c));
  if (b) in.push_back(detail::cast(*b, c));
  return detail::cast(apply1(std::make_shared<LayerNorm>(cols, eps, w != nullptr, b != nullptr), in), dt);
}
// ---------------- graph mode: rebuild a primitive from its name and attributes ----------------
std::shared_ptr<Primitive> detail::make_norm_loss_primitive(const std::string& name, const Params& attrs) {
  AttrReader r(name, attrs);
  if (name == "softmax" || name == "log_softmax") return std::make_shared<Softmax>(r.i("dim"), name == "log_softmax");
  if (name == "layer_norm") return std::make_shared<LayerNorm>(r.i("cols"), r.f("eps"), r.b("weight"), r.b("bias"));
  if (name == "layer_norm_backward")
    return std::make_shared<LayerNormBackward>(r.i("cols"), r.f("eps"), r.b("weight"), r.b("bias"));
  if (name == "cross_entropy") return std::make_shared<CrossEntropy>(r.i("ignore_index"), r.b("mean"));
  if (name == "cross_entropy_backward") return std::make_shared<CrossEntropyBackward>(r.i("ignore_index"), r.b("mean"));
  return nullptr;
}

}  // namespace tt
