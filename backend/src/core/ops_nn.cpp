// Linear algebra (matmul family, einsum), nn ops (softmax, layer_norm, conv2d, pooling, embedding,
// dropout) and random tensors.
#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <set>

#include "../cpu/kernels.h"
#include "internal.h"
#include "typedtensor/device.h"

namespace tt {
using detail::dim_arg;
using detail::shape_error;

namespace {

// [B, r, c] view of a tensor whose leading `nb` dims are batch dims (copies if they can't merge).
Tensor batch_view(const Tensor& t0, int64_t nb) {
  Tensor t = t0;
  int64_t r = t.shape()[nb], c = t.shape()[nb + 1];
  int64_t B = 1;
  for (int64_t i = 0; i < nb; ++i) B *= t.shape()[i];
  int64_t bstride = 0;
  bool ok = true;
  int64_t expect = -1;
  for (int64_t i = nb - 1; i >= 0; --i) {
    int64_t s = t.shape()[i], st = t.strides()[i];
    if (s == 1) continue;
    if (expect < 0) {
      bstride = st;
      expect = st * s;
    } else if (st != expect) {
      ok = false;
      break;
    } else {
      expect = st * s;
    }
  }
  if (!ok) {
    Tensor c2 = empty(t.shape(), t.dtype());
    cpu::copy(c2, t);
    t = c2;
    bstride = r * c;
  }
  return make_view(t, Shape{B, r, c}, Strides{bstride, t.strides()[nb], t.strides()[nb + 1]}, t.offset());
}

// A matrix stored column-major (a transposed view): its gradient is computed transposed so that,
// after the transpose's own VJP, it lands contiguous (no copy when it is accumulated).
bool col_major(const Tensor& t) {
  int64_t n = t.dim();
  return t.stride(n - 2) == 1 && t.size(n - 1) > 1 && t.size(n - 2) > 1;
}

Tensor mT(const Tensor& t) { return transpose(t, -1, -2); }

class MatMul : public Primitive {
 public:
  const char* name() const override { return "matmul"; }
  TensorList vjp(const TensorList& x, const TensorList& ct, const std::vector<int>& argnums, const TensorList&) override {
    const Tensor &a = x[0], &b = x[1], &g = ct[0];
    TensorList r;
    for (int i : argnums) {
      if (i == 0) r.push_back(col_major(a) ? mT(matmul(b, mT(g))) : matmul(g, mT(b)));  // g b^T
      else r.push_back(col_major(b) ? mT(matmul(mT(g), a)) : matmul(mT(a), g));        // a^T g
    }
    return r;
  }
  TensorList eval_cpu(const TensorList& in) override {
    const Tensor &a = in[0], &b = in[1];
    int64_t nb = a.dim() - 2;
    Shape os = a.shape();
    os[nb + 1] = b.shape()[nb + 1];
    Tensor out = empty(os, a.dtype());
    if (out.numel() == 0) return {out};
    Tensor o3 = make_view(out, Shape{out.numel() / std::max<int64_t>(os[nb] * os[nb + 1], 1), os[nb], os[nb + 1]},
                          Strides{os[nb] * os[nb + 1], os[nb + 1], 1}, 0);
    cpu::gemm_batched(o3, batch_view(a, nb), batch_view(b, nb));
    return {out};
  }
 public:  // graph mode
  std::optional<Params> attrs() const override { return Params{}; }
};

class Softmax : public Primitive {
 public:
  Softmax(int64_t dim, bool log) : dim_(dim), log_(log) {}
  const char* name() const override { return log_ ? "log_softmax" : "softmax"; }
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
    Tensor out = empty(x.shape(), x.dtype());
    if (out.numel() > 0) cpu::softmax(out, x, outer, r, inner, log_);
    return {out};
  }

 private:
  int64_t dim_;
  bool log_;
 public:  // graph mode
  std::optional<Params> attrs() const override { return Params{{"dim", dim_}}; }
};

class LayerNorm : public Primitive {
 public:
  LayerNorm(int64_t cols, double eps, bool w, bool b) : cols_(cols), eps_(eps), w_(w), b_(b) {}
  const char* name() const override { return "layer_norm"; }
  TensorList vjp(const TensorList& in, const TensorList& ct, const std::vector<int>& argnums, const TensorList&) override {
    // recomputes the row statistics; written with front-end ops so it is differentiable again
    using namespace vjp;
    const Tensor& x = in[0];
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
    Tensor out = empty(x.shape(), x.dtype());
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

class CrossEntropyBackward : public Primitive {
 public:
  CrossEntropyBackward(int64_t ignore, bool mean) : ignore_(ignore), mean_(mean) {}
  const char* name() const override { return "cross_entropy_backward"; }
  TensorList eval_cpu(const TensorList& in) override {  // (logits, targets, g) -> dlogits
    Tensor x = contiguous(in[0]), t = contiguous(in[1]);
    check_targets(x, t, ignore_);
    double scale = host_scalar(in[2]);
    if (mean_) scale /= static_cast<double>(count_valid(t, ignore_));
    Tensor dx = empty(x.shape(), x.dtype());
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
  TensorList eval_cpu(const TensorList& in) override {  // (logits [n, c], targets [n]) -> scalar
    Tensor x = contiguous(in[0]), t = contiguous(in[1]);
    check_targets(x, t, ignore_);
    Tensor rows = empty(Shape{x.size(0)}, x.dtype());
    cpu::cross_entropy_rows(rows, x, t, ignore_);
    double total = host_scalar(reduce(ReduceOp::Sum, rows, std::nullopt, false, DType::Float64));
    if (mean_) total /= static_cast<double>(count_valid(t, ignore_));  // 0/0: nan, as in torch
    return {full(Shape{}, Scalar::from_double(total), x.dtype())};
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

struct ConvParams {
  int64_t sh, sw, ph, pw, dh, dw, g;
};

Tensor conv_of(const Tensor& x, const Tensor& w, const ConvParams& p) {
  return conv2d(x, w, nullptr, {p.sh, p.sw}, {p.ph, p.pw}, {p.dh, p.dw}, p.g);
}

class Conv2dBackwardWeight;

// Graph mode: a conv VJP piece's geometry and the shape of the tensor it produces.
Params conv_backward_attrs(const ConvParams& p, const Shape& s) {
  return Params{{"geom", std::vector<int64_t>{p.sh, p.sw, p.ph, p.pw, p.dh, p.dw, p.g}}, {"shape", s.vec()}};
}

// conv2d's VJP pieces. Both are bilinear: dx = convT(g, w) and dw = corr(g, x), so their own VJPs
// (double backward) are conv2d and the other piece.
class Conv2dBackwardInput : public Primitive {
 public:
  Conv2dBackwardInput(ConvParams p, Shape xs) : p_(p), xs_(std::move(xs)) {}
  const char* name() const override { return "conv2d_backward_input"; }
  TensorList vjp(const TensorList& in, const TensorList& ct, const std::vector<int>& argnums, const TensorList&) override;
  TensorList eval_cpu(const TensorList& in) override {
    Tensor g = contiguous(in[0]), w = contiguous(in[1]);
    Tensor dx = empty(xs_, g.dtype());
    cpu::conv2d_backward_input(dx, g, w, p_.sh, p_.sw, p_.ph, p_.pw, p_.dh, p_.dw, p_.g);
    return {dx};
  }

 private:
  ConvParams p_;
  Shape xs_;
 public:  // graph mode
  std::optional<Params> attrs() const override { return conv_backward_attrs(p_, xs_); }
};

class Conv2dBackwardWeight : public Primitive {
 public:
  Conv2dBackwardWeight(ConvParams p, Shape ws) : p_(p), ws_(std::move(ws)) {}
  const char* name() const override { return "conv2d_backward_weight"; }
  TensorList vjp(const TensorList& in, const TensorList& ct, const std::vector<int>& argnums, const TensorList&) override {
    // dw = W(g, x): <c, W(g, x)> = <conv(x, c), g> = <x, I(g, c)>
    TensorList r;
    for (int i : argnums)
      r.push_back(i == 0 ? conv_of(in[1], ct[0], p_)
                         : apply1(std::make_shared<Conv2dBackwardInput>(p_, in[1].shape()), {in[0], ct[0]}));
    return r;
  }
  TensorList eval_cpu(const TensorList& in) override {
    Tensor g = contiguous(in[0]), x = contiguous(in[1]);
    Tensor dw = empty(ws_, g.dtype());
    cpu::conv2d_backward_weight(dw, g, x, p_.sh, p_.sw, p_.ph, p_.pw, p_.dh, p_.dw, p_.g);
    return {dw};
  }

 private:
  ConvParams p_;
  Shape ws_;
 public:  // graph mode
  std::optional<Params> attrs() const override { return conv_backward_attrs(p_, ws_); }
};

// dx = I(g, w): <c, I(g, w)> = <conv(c, w), g> = <w, W(g, c)>
TensorList Conv2dBackwardInput::vjp(const TensorList& in, const TensorList& ct, const std::vector<int>& argnums,
                                    const TensorList&) {
  TensorList r;
  for (int i : argnums)
    r.push_back(i == 0 ? conv_of(ct[0], in[1], p_)
                       : apply1(std::make_shared<Conv2dBackwardWeight>(p_, in[1].shape()), {in[0], ct[0]}));
  return r;
}

class Conv2d : public Primitive {
 public:
  TensorList vjp(const TensorList& in, const TensorList& ct, const std::vector<int>& argnums, const TensorList&) override {
    ConvParams p{sh_, sw_, ph_, pw_, dh_, dw_, g_};
    TensorList r;
    for (int i : argnums) {
      if (i == 0) r.push_back(apply1(std::make_shared<Conv2dBackwardInput>(p, in[0].shape()), {ct[0], in[1]}));
      else if (i == 1) r.push_back(apply1(std::make_shared<Conv2dBackwardWeight>(p, in[1].shape()), {ct[0], in[0]}));
      else r.push_back(reduce(ReduceOp::Sum, ct[0], Dims{0, 2, 3}, false, std::nullopt));
    }
    return r;
  }
  Conv2d(int64_t sh, int64_t sw, int64_t ph, int64_t pw, int64_t dh, int64_t dw, int64_t g, int64_t oh, int64_t ow, bool bias)
      : sh_(sh), sw_(sw), ph_(ph), pw_(pw), dh_(dh), dw_(dw), g_(g), oh_(oh), ow_(ow), bias_(bias) {}
  const char* name() const override { return "conv2d"; }
  TensorList eval_cpu(const TensorList& in) override {
    Tensor x = contiguous(in[0]), w = contiguous(in[1]);
    Tensor b = bias_ ? contiguous(in[2]) : Tensor();
    Tensor out = empty(Shape{x.size(0), w.size(0), oh_, ow_}, x.dtype());
    cpu::conv2d(out, x, w, bias_ ? &b : nullptr, sh_, sw_, ph_, pw_, dh_, dw_, g_);
    return {out};
  }

 private:
  int64_t sh_, sw_, ph_, pw_, dh_, dw_, g_, oh_, ow_;
  bool bias_;
 public:  // graph mode
  std::optional<Params> attrs() const override { return Params{{"geom", std::vector<int64_t>{sh_, sw_, ph_, pw_, dh_, dw_, g_, oh_, ow_}}, {"bias", bias_}}; }
};

// avg_pool2d / adaptive_avg_pool2d VJP; linear, so its own VJP is the forward pool again.
class AvgPoolBackward : public Primitive {
 public:
  AvgPoolBackward(bool adaptive, int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t ph, int64_t pw, bool cip,
                  int64_t div, Shape xs)
      : adaptive_(adaptive), kh_(kh), kw_(kw), sh_(sh), sw_(sw), ph_(ph), pw_(pw), cip_(cip), div_(div), xs_(std::move(xs)) {}
  const char* name() const override { return adaptive_ ? "adaptive_avg_pool2d_backward" : "avg_pool2d_backward"; }
  bool vjp_needs_inputs() const override { return false; }
  TensorList eval_cpu(const TensorList& in) override {
    Tensor g = contiguous(in[0]);
    Tensor dx = empty(xs_, g.dtype());
    if (dx.numel() == 0) return {dx};
    if (adaptive_) cpu::adaptive_avg_pool2d_backward(dx, g);
    else cpu::avg_pool2d_backward(dx, g, kh_, kw_, sh_, sw_, ph_, pw_, cip_, div_);
    return {dx};
  }
  TensorList vjp(const TensorList& x, const TensorList& ct, const std::vector<int>&, const TensorList&) override {
    if (adaptive_) return {adaptive_avg_pool2d(ct[0], {x[0].size(2), x[0].size(3)})};
    return {avg_pool2d(ct[0], {kh_, kw_}, {sh_, sw_}, {ph_, pw_}, false, cip_,
                       div_ > 0 ? std::optional<int64_t>(div_) : std::nullopt)};
  }

 private:
  bool adaptive_;
  int64_t kh_, kw_, sh_, sw_, ph_, pw_;
  bool cip_;
  int64_t div_;
  Shape xs_;
 public:  // graph mode
  std::optional<Params> attrs() const override {
    return Params{{"geom", std::vector<int64_t>{kh_, kw_, sh_, sw_, ph_, pw_, div_}}, {"count_include_pad", cip_}, {"shape", xs_.vec()}};
  }
};

// Every argmax index must address the input plane (H * W elements).
void check_plane_index(const Tensor& idx, int64_t plane) {
  const int64_t* p = idx.data<int64_t>();
  for (int64_t i = 0, n = idx.numel(); i < n; ++i)
    if (p[i] < 0 || p[i] >= plane)
      throw IndexError("[max_pool2d_backward] index " + std::to_string(p[i]) + " is outside the input plane of " +
                       std::to_string(plane) + " elements");
}

// max_pool2d's VJP: each output's gradient added at its argmax; linear in g, so its VJP is a gather.
class MaxPoolBackward : public Primitive {
 public:
  explicit MaxPoolBackward(Shape xs) : xs_(std::move(xs)) {}
  const char* name() const override { return "max_pool2d_backward"; }
  TensorList eval_cpu(const TensorList& in) override {
    Tensor g = contiguous(in[0]), idx = contiguous(in[1]);
    if (!on_cuda(idx)) check_plane_index(idx, xs_[2] * xs_[3]);  // a loaded graph may wire any int64 tensor here
    Tensor dx = empty(xs_, g.dtype());
    if (dx.numel() > 0) cpu::max_pool2d_backward(dx, g, idx);
    return {dx};
  }
  TensorList vjp(const TensorList& in, const TensorList& ct, const std::vector<int>& argnums, const TensorList&) override {
    TensorList r;
    for (int i : argnums) {
      if (i != 0) {
        r.emplace_back();
        continue;
      }
      const Shape& gs = in[0].shape();
      Tensor c = reshape(ct[0], Shape{xs_[0], xs_[1], -1}), idx = reshape(in[1], Shape{gs[0], gs[1], -1});
      r.push_back(reshape(gather(c, 2, idx), gs));
    }
    return r;
  }

 private:
  Shape xs_;
 public:  // graph mode
  std::optional<Params> attrs() const override { return Params{{"shape", xs_.vec()}}; }
};

class Pool2d : public Primitive {
 public:
  enum Kind { Max, Avg, AdaptiveAvg };
  bool vjp_needs_inputs() const override { return false; }
  bool vjp_needs_outputs() const override { return kind_ == Max; }
  TensorList vjp(const TensorList& x, const TensorList& ct, const std::vector<int>&, const TensorList& out) override {
    const Shape& xs = x[0].shape();
    if (kind_ != Max)
      return {apply1(std::make_shared<AvgPoolBackward>(kind_ == AdaptiveAvg, kh_, kw_, sh_, sw_, ph_, pw_, cip_, div_, xs),
                     {ct[0]})};
    if (!ct[0].defined()) return {Tensor()};
    return {apply1(std::make_shared<MaxPoolBackward>(xs), {ct[0], out[1]})};
  }
  Pool2d(Kind k, int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t ph, int64_t pw, int64_t dh, int64_t dw,
         int64_t oh, int64_t ow, bool cip, int64_t div)
      : kind_(k), kh_(kh), kw_(kw), sh_(sh), sw_(sw), ph_(ph), pw_(pw), dh_(dh), dw_(dw), oh_(oh), ow_(ow), cip_(cip), div_(div) {}
  const char* name() const override {
    return kind_ == Max ? "max_pool2d" : kind_ == Avg ? "avg_pool2d" : "adaptive_avg_pool2d";
  }
  TensorList eval_cpu(const TensorList& in) override {
    Tensor x = contiguous(in[0]);
    Shape os{x.size(0), x.size(1), oh_, ow_};
    Tensor out = empty(os, x.dtype());
    if (out.numel() == 0) return kind_ == Max ? TensorList{out, empty(os, DType::Int64)} : TensorList{out};
    if (kind_ == Max) {
      Tensor idx = empty(os, DType::Int64);
      cpu::max_pool2d(out, idx, x, kh_, kw_, sh_, sw_, ph_, pw_, dh_, dw_);
      return {out, idx};
    }
    if (kind_ == Avg) cpu::avg_pool2d(out, x, kh_, kw_, sh_, sw_, ph_, pw_, cip_, div_);
    else cpu::adaptive_avg_pool2d(out, x);
    return {out};
  }

 private:
  Kind kind_;
  int64_t kh_, kw_, sh_, sw_, ph_, pw_, dh_, dw_, oh_, ow_;
  bool cip_;
  int64_t div_;
 public:  // graph mode
  std::optional<Params> attrs() const override { return Params{{"geom", std::vector<int64_t>{kh_, kw_, sh_, sw_, ph_, pw_, dh_, dw_, oh_, ow_, div_}}, {"count_include_pad", cip_}}; }
};

void check_same_float(const char* op, const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype())
    throw TypeError(std::string("[") + op + "] expected both inputs to have the same dtype, but got " + dtype_name(a.dtype()) +
                    " and " + dtype_name(b.dtype()));
}

}  // namespace

// ---------------- matmul family ----------------
Tensor matmul(const Tensor& a0, const Tensor& b0) {
  if (a0.dim() == 0 || b0.dim() == 0)
    shape_error("matmul", {a0.shape(), b0.shape()}, {}, "both arguments to matmul need to be at least 1D");
  check_same_float("matmul", a0, b0);
  bool va = a0.dim() == 1, vb = b0.dim() == 1;
  Tensor a = va ? unsqueeze(a0, 0) : a0;
  Tensor b = vb ? unsqueeze(b0, 1) : b0;
  int64_t k1 = a.shape()[a.dim() - 1], k2 = b.shape()[b.dim() - 2];
  if (k1 != k2)
    shape_error("matmul", {a0.shape(), b0.shape()}, {},
                "inner dimensions differ: " + std::to_string(k1) + " (left, dim -1) vs " + std::to_string(k2) +
                    " (right, dim " + std::string(vb ? "-1" : "-2") + "); shapes " + shape_str(a0.shape()) + " @ " +
                    shape_str(b0.shape()));
  Shape ba(a.shape().begin(), a.shape().end() - 2), bb(b.shape().begin(), b.shape().end() - 2);
  Shape batch;
  try {
    batch = broadcast_shapes(ba, bb, "matmul");
  } catch (const ShapeError&) {
    shape_error("matmul", {a0.shape(), b0.shape()}, {},
                "batch dimensions " + shape_str(ba) + " and " + shape_str(bb) + " do not broadcast; shapes " +
                    shape_str(a0.shape()) + " @ " + shape_str(b0.shape()));
  }
  DType dt = a.dtype();
  bool half = is_half(dt);
  // fold [*, m, k] @ [k, n] into one GEMM when the left batch is contiguous
  if (b.dim() == 2 && a.dim() > 2 && a.is_contiguous()) {
    int64_t rows = 1;
    for (int64_t i = 0; i + 1 < a.dim(); ++i) rows *= a.shape()[i];
    Tensor a2 = reshape(a, Shape{rows, k1});
    Tensor r = matmul(half ? to_dtype(a2, DType::Float32) : a2, half ? to_dtype(b, DType::Float32) : b);
    Shape os = a.shape();
    os[os.size() - 1] = b.shape()[1];
    r = reshape(r, os);
    if (vb) r = squeeze(r, Dims{-1});
    return half ? to_dtype(r, dt) : r;
  }
  Shape sa = batch, sb = batch;
  sa.push_back(a.shape()[a.dim() - 2]);
  sa.push_back(k1);
  sb.push_back(k2);
  sb.push_back(b.shape()[b.dim() - 1]);
  if (a.shape() != sa) a = expand(a, sa);
  if (b.shape() != sb) b = expand(b, sb);
  if (half) {
    a = to_dtype(a, DType::Float32);
    b = to_dtype(b, DType::Float32);
  }
  Tensor r = apply1(std::make_shared<MatMul>(), {a, b});
  if (va) r = squeeze(r, Dims{-2});
  if (vb) r = squeeze(r, Dims{-1});
  return half ? to_dtype(r, dt) : r;
}

Tensor mm(const Tensor& a, const Tensor& b) {
  if (a.dim() != 2 || b.dim() != 2)
    shape_error("mm", {a.shape(), b.shape()}, {}, "mm expects 2-D tensors, got shapes " + shape_str(a.shape()) + " and " + shape_str(b.shape()));
  if (a.shape()[1] != b.shape()[0])
    shape_error("mm", {a.shape(), b.shape()}, {},
                "inner dimensions differ: " + std::to_string(a.shape()[1]) + " vs " + std::to_string(b.shape()[0]) +
                    "; shapes " + shape_str(a.shape()) + " @ " + shape_str(b.shape()));
  return matmul(a, b);
}

Tensor bmm(const Tensor& a, const Tensor& b) {
  if (a.dim() != 3 || b.dim() != 3)
    shape_error("bmm", {a.shape(), b.shape()}, {}, "bmm expects 3-D tensors, got shapes " + shape_str(a.shape()) + " and " + shape_str(b.shape()));
  if (a.shape()[0] != b.shape()[0] || a.shape()[2] != b.shape()[1])
    shape_error("bmm", {a.shape(), b.shape()}, {},
                "shapes " + shape_str(a.shape()) + " and " + shape_str(b.shape()) + " cannot be multiplied batch-wise");
  return matmul(a, b);
}

Tensor linear(const Tensor& x, const Tensor& w, const Tensor* b) {
  if (w.dim() != 2 && w.dim() != 1)
    shape_error("linear", {x.shape(), w.shape()}, {}, "weight must be 1-D or 2-D, got " + shape_str(w.shape()));
  if (x.dim() == 0) shape_error("linear", {x.shape(), w.shape()}, {}, "input must be at least 1-D");
  int64_t in = w.shape()[w.dim() - 1];
  if (x.shape()[x.dim() - 1] != in)
    shape_error("linear", {x.shape(), w.shape()}, {},
                "input features " + std::to_string(x.shape()[x.dim() - 1]) + " (dim -1) vs weight in_features " +
                    std::to_string(in) + "; shapes " + shape_str(x.shape()) + " and " + shape_str(w.shape()));
  Tensor r = matmul(x, w.dim() == 2 ? transpose(w, 0, 1) : w);
  if (b) {
    Shape bs = broadcast_shapes(r.shape(), b->shape(), "linear");
    if (bs != r.shape())
      shape_error("linear", {x.shape(), w.shape(), b->shape()}, {}, "bias of shape " + shape_str(b->shape()) + " does not match output " + shape_str(r.shape()));
    r = binary(BinaryOp::Add, r, *b);
  }
  return r;
}

// ---------------- einsum ----------------
namespace {
struct Operand {
  Tensor t;
  std::string idx;
};

// Sum out letters of `o` not in `keep`, and take diagonals of repeated letters.
Operand reduce_operand(Operand o, const std::set<char>& keep) {
  // diagonals for repeated letters
  for (size_t i = 0; i < o.idx.size(); ++i)
    for (size_t j = i + 1; j < o.idx.size(); ++j)
      if (o.idx[i] == o.idx[j]) {
        if (o.t.shape()[i] != o.t.shape()[j])
          shape_error("einsum", {o.t.shape()}, {}, std::string("subscript ") + o.idx[i] + " is repeated with different sizes");
        o.t = diagonal(o.t, 0, static_cast<int64_t>(i), static_cast<int64_t>(j));
        std::string ni;
        for (size_t k = 0; k < o.idx.size(); ++k)
          if (k != i && k != j) ni += o.idx[k];
        ni += o.idx[i];
        o.idx = ni;
        return reduce_operand(o, keep);
      }
  Dims sum_dims;
  std::string ni;
  for (size_t i = 0; i < o.idx.size(); ++i) {
    if (keep.count(o.idx[i])) ni += o.idx[i];
    else sum_dims.push_back(static_cast<int64_t>(i));
  }
  if (!sum_dims.empty()) o.t = reduce(ReduceOp::Sum, o.t, sum_dims, false, std::nullopt);
  o.idx = ni;
  return o;
}

Operand contract(const Operand& a0, const Operand& b0, const std::set<char>& keep) {
  std::set<char> in_a(a0.idx.begin(), a0.idx.end()), in_b(b0.idx.begin(), b0.idx.end());
  std::set<char> ka = keep, kb = keep;
  for (char c : b0.idx) ka.insert(c);
  for (char c : a0.idx) kb.insert(c);
  Operand a = reduce_operand(a0, ka), b = reduce_operand(b0, kb);
  std::string batch, left, right, con;
  for (char c : a.idx) {
    bool ib = b.idx.find(c) != std::string::npos;
    if (ib && keep.count(c)) batch += c;
    else if (ib) con += c;
    else left += c;
  }
  for (char c : b.idx)
    if (a.idx.find(c) == std::string::npos) right += c;
  auto size_of = [](const Operand& o, char c) { return o.t.shape()[o.idx.find(c)]; };
  auto perm_of = [](const Operand& o, const std::string& order) {
    Dims p;
    for (char c : order) p.push_back(static_cast<int64_t>(o.idx.find(c)));
    return p;
  };
  Shape bs;
  int64_t B = 1, L = 1, R = 1, C = 1;
  for (char c : batch) {
    int64_t sa = size_of(a, c), sb = size_of(b, c);
    if (sa != sb && sa != 1 && sb != 1)
      shape_error("einsum", {a0.t.shape(), b0.t.shape()}, {}, std::string("operands do not broadcast on subscript ") + c);
    bs.push_back(std::max(sa, sb));
    B *= std::max(sa, sb);
  }
  Shape ls, rs;
  for (char c : left) { ls.push_back(size_of(a, c)); L *= size_of(a, c); }
  for (char c : right) { rs.push_back(size_of(b, c)); R *= size_of(b, c); }
  for (char c : con) {
    if (size_of(a, c) != size_of(b, c))
      shape_error("einsum", {a0.t.shape(), b0.t.shape()}, {},
                  std::string("subscript ") + c + " has size " + std::to_string(size_of(a, c)) + " in one operand and " +
                      std::to_string(size_of(b, c)) + " in another");
    C *= size_of(a, c);
  }
  Tensor ta = permute(a.t, perm_of(a, batch + left + con));
  Tensor tb = permute(b.t, perm_of(b, batch + con + right));
  Shape ea = bs, eb = bs;
  for (auto s : ls) ea.push_back(s);
  for (char c : con) { ea.push_back(size_of(a, c)); eb.push_back(size_of(b, c)); }
  for (auto s : rs) eb.push_back(s);
  ta = reshape(expand(ta, ea), Shape{B, L, C});
  tb = reshape(expand(tb, eb), Shape{B, C, R});
  Tensor r = matmul(ta, tb);
  Shape os = bs;
  for (auto s : ls) os.push_back(s);
  for (auto s : rs) os.push_back(s);
  return {reshape(r, os), batch + left + right};
}
}  // namespace

Tensor einsum(const std::string& eq0, const TensorList& xs) {
  std::string eq;
  for (char c : eq0)
    if (c != ' ') eq += c;
  auto arrow = eq.find("->");
  std::string lhs = arrow == std::string::npos ? eq : eq.substr(0, arrow);
  std::vector<std::string> terms;
  size_t start = 0;
  for (size_t i = 0; i <= lhs.size(); ++i)
    if (i == lhs.size() || lhs[i] == ',') {
      terms.push_back(lhs.substr(start, i - start));
      start = i + 1;
    }
  if (terms.size() != xs.size())
    throw ValueError("[einsum] equation has " + std::to_string(terms.size()) + " operands but " + std::to_string(xs.size()) + " tensors were given");
  std::string out;
  if (arrow != std::string::npos) {
    out = eq.substr(arrow + 2);
  } else {
    std::map<char, int> count;
    for (auto& t : terms)
      for (char c : t) count[c]++;
    for (auto& [c, n] : count)
      if (n == 1) out += c;
  }
  // expand '...' into upper-case letters
  int64_t ell = -1;
  for (size_t i = 0; i < terms.size(); ++i) {
    auto p = terms[i].find("...");
    if (p != std::string::npos) {
      int64_t n = xs[i].dim() - static_cast<int64_t>(terms[i].size() - 3);
      if (n < 0) shape_error("einsum", {xs[i].shape()}, {}, "ellipsis covers a negative number of dims");
      ell = std::max(ell, n);
      std::string rep;
      for (int64_t k = 0; k < n; ++k) rep += static_cast<char>('Z' - (n - 1 - k));
      terms[i] = terms[i].substr(0, p) + rep + terms[i].substr(p + 3);
    }
  }
  if (ell >= 0) {
    std::string rep;
    for (int64_t k = 0; k < ell; ++k) rep += static_cast<char>('Z' - (ell - 1 - k));
    auto p = out.find("...");
    if (p != std::string::npos) out = out.substr(0, p) + rep + out.substr(p + 3);
    else if (arrow == std::string::npos) out = rep + out;
  }
  std::vector<Operand> ops;
  for (size_t i = 0; i < xs.size(); ++i) {
    if (static_cast<int64_t>(terms[i].size()) != xs[i].dim())
      shape_error("einsum", {xs[i].shape()}, {{"equation", eq0}},
                  "subscripts '" + terms[i] + "' do not match the rank of operand " + std::to_string(i) + " " + shape_str(xs[i].shape()));
    for (char c : terms[i])
      if (!std::isalpha(static_cast<unsigned char>(c))) throw ValueError(std::string("[einsum] invalid subscript '") + c + "'");
    ops.push_back({xs[i], terms[i]});
  }
  std::set<char> final_keep(out.begin(), out.end());
  Operand acc = ops[0];
  for (size_t i = 1; i < ops.size(); ++i) {
    std::set<char> keep = final_keep;
    for (size_t j = i + 1; j < ops.size(); ++j) keep.insert(ops[j].idx.begin(), ops[j].idx.end());
    acc = contract(acc, ops[i], keep);
  }
  acc = reduce_operand(acc, final_keep);
  Dims perm;
  for (char c : out) {
    auto p = acc.idx.find(c);
    if (p == std::string::npos) throw ValueError(std::string("[einsum] output subscript '") + c + "' does not appear in the inputs");
    perm.push_back(static_cast<int64_t>(p));
  }
  return perm.empty() ? acc.t : permute(acc.t, perm);
}

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
Tensor softmax(const Tensor& a, int64_t dim, std::optional<DType> dtype) { return softmax_common(false, a, dim, dtype); }
Tensor log_softmax(const Tensor& a, int64_t dim, std::optional<DType> dtype) { return softmax_common(true, a, dim, dtype); }

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

Tensor conv2d(const Tensor& x0, const Tensor& w, const Tensor* b, std::pair<int64_t, int64_t> stride,
              std::pair<int64_t, int64_t> padding, std::pair<int64_t, int64_t> dilation, int64_t groups) {
  Params params{{"stride", std::vector<int64_t>{stride.first, stride.second}},
                {"padding", std::vector<int64_t>{padding.first, padding.second}},
                {"dilation", std::vector<int64_t>{dilation.first, dilation.second}},
                {"groups", groups}};
  std::vector<Shape> shapes{x0.shape(), w.shape()};
  if (b) shapes.push_back(b->shape());
  if (x0.dim() != 3 && x0.dim() != 4)
    shape_error("conv2d", shapes, params, "expected 3-D (unbatched) or 4-D (batched) input, got input of shape " + shape_str(x0.shape()));
  if (w.dim() != 4) shape_error("conv2d", shapes, params, "weight must be 4-D, got " + shape_str(w.shape()));
  if (stride.first <= 0 || stride.second <= 0) throw ValueError("[conv2d] stride must be positive");
  if (dilation.first <= 0 || dilation.second <= 0) throw ValueError("[conv2d] dilation must be positive");
  if (padding.first < 0 || padding.second < 0) throw ValueError("[conv2d] padding must be non-negative");
  if (groups <= 0) throw ValueError("[conv2d] groups must be positive");
  bool unbatched = x0.dim() == 3;
  Tensor x = unbatched ? unsqueeze(x0, 0) : x0;
  int64_t c = x.size(1), o = w.size(0);
  if (c != w.size(1) * groups)
    shape_error("conv2d", shapes, params,
                "expected input " + shape_str(x0.shape()) + " to have " + std::to_string(w.size(1) * groups) +
                    " channels, but got " + std::to_string(c) + " channels");
  if (o % groups != 0) shape_error("conv2d", shapes, params, "out_channels must be divisible by groups");
  if (b && (b->dim() != 1 || b->size(0) != o))
    shape_error("conv2d", shapes, params, "bias must have shape [" + std::to_string(o) + "], got " + shape_str(b->shape()));
  int64_t eh = dilation.first * (w.size(2) - 1) + 1, ew = dilation.second * (w.size(3) - 1) + 1;
  int64_t oh = (x.size(2) + 2 * padding.first - eh) / stride.first + 1;
  int64_t ow = (x.size(3) + 2 * padding.second - ew) / stride.second + 1;
  if (x.size(2) + 2 * padding.first < eh || x.size(3) + 2 * padding.second < ew || oh < 1 || ow < 1)
    shape_error("conv2d", shapes, params,
                "calculated output size (" + std::to_string(oh) + " x " + std::to_string(ow) + ") is too small");
  if (!is_floating(x.dtype())) throw TypeError(std::string("[conv2d] needs floating point tensors, got ") + dtype_name(x.dtype()));
  check_same_float("conv2d", x, w);
  if (b) check_same_float("conv2d", x, *b);
  DType dt = x.dtype(), cdt = is_half(dt) ? DType::Float32 : dt;
  TensorList in{detail::cast(x, cdt), detail::cast(w, cdt)};
  if (b) in.push_back(detail::cast(*b, cdt));
  Tensor r = apply1(std::make_shared<Conv2d>(stride.first, stride.second, padding.first, padding.second, dilation.first,
                                             dilation.second, groups, oh, ow, b != nullptr), in);
  r = detail::cast(r, dt);
  return unbatched ? squeeze(r, Dims{0}) : r;
}

// padding='same' as torch: total t = dilation * (k - 1) per spatial dim, t / 2 before and the
// rest after. An odd t is run as the symmetric padding t / 2 + 1 (one extra output row/column at
// the top/left) and that first row/column is dropped: the same windows as the asymmetric pad,
// shape errors name the caller's input, and the gradient flows through narrow.
Tensor conv2d_same(const Tensor& x, const Tensor& w, const Tensor* b, std::pair<int64_t, int64_t> dilation, int64_t groups) {
  if (w.dim() != 4 || (x.dim() != 3 && x.dim() != 4) || dilation.first <= 0 || dilation.second <= 0)
    return conv2d(x, w, b, {1, 1}, {0, 0}, dilation, groups);  // its error for the bad argument
  int64_t th = dilation.first * (w.size(2) - 1), tw = dilation.second * (w.size(3) - 1);
  Tensor y = conv2d(x, w, b, {1, 1}, {th / 2 + th % 2, tw / 2 + tw % 2}, dilation, groups);
  if (th % 2) y = narrow(y, y.dim() - 2, 1, x.size(-2));
  if (tw % 2) y = narrow(y, y.dim() - 1, 1, x.size(-1));
  return y;
}

static int64_t pool_out(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil_mode) {
  int64_t eff = d * (k - 1) + 1;
  int64_t num = in + 2 * p - eff;
  int64_t out = (num < 0 ? -((-num + s - 1) / s) : (ceil_mode ? (num + s - 1) / s : num / s)) + 1;
  if (ceil_mode && (out - 1) * s >= in + p) --out;
  return out;
}

static void pool_checks(const char* op, const Tensor& x, Params params, std::pair<int64_t, int64_t> k,
                        std::pair<int64_t, int64_t> s, std::pair<int64_t, int64_t> p, std::pair<int64_t, int64_t> d,
                        bool ceil_mode, int64_t* oh, int64_t* ow) {
  if (x.dim() != 3 && x.dim() != 4)
    shape_error(op, {x.shape()}, params, "expected 3-D or 4-D input, got input of shape " + shape_str(x.shape()));
  if (k.first <= 0 || k.second <= 0) throw ValueError(std::string("[") + op + "] kernel_size must be positive");
  if (s.first <= 0 || s.second <= 0) throw ValueError(std::string("[") + op + "] stride must be positive");
  if (d.first <= 0 || d.second <= 0) throw ValueError(std::string("[") + op + "] dilation must be positive");
  if (p.first < 0 || p.second < 0) throw ValueError(std::string("[") + op + "] padding must be non-negative");
  if (p.first > k.first / 2 || p.second > k.second / 2)
    shape_error(op, {x.shape()}, params, "pad should be at most half of effective kernel size");
  int64_t h = x.size(-2), w = x.size(-1);
  *oh = pool_out(h, k.first, s.first, p.first, d.first, ceil_mode);
  *ow = pool_out(w, k.second, s.second, p.second, d.second, ceil_mode);
  if (*oh < 1 || *ow < 1)
    shape_error(op, {x.shape()}, params,
                "output size is too small: input " + shape_str(x.shape()) + " gives (" + std::to_string(*oh) + " x " +
                    std::to_string(*ow) + ")");
}

std::pair<Tensor, Tensor> max_pool2d(const Tensor& x0, std::pair<int64_t, int64_t> k, std::pair<int64_t, int64_t> s,
                                     std::pair<int64_t, int64_t> p, std::pair<int64_t, int64_t> d, bool ceil_mode) {
  Params params{{"kernel_size", std::vector<int64_t>{k.first, k.second}}, {"stride", std::vector<int64_t>{s.first, s.second}},
                {"padding", std::vector<int64_t>{p.first, p.second}}, {"dilation", std::vector<int64_t>{d.first, d.second}},
                {"ceil_mode", ceil_mode}};
  int64_t oh, ow;
  pool_checks("max_pool2d", x0, params, k, s, p, d, ceil_mode, &oh, &ow);
  if (x0.dtype() == DType::Bool) throw TypeError("[max_pool2d] not supported for bool tensors");
  bool unbatched = x0.dim() == 3;
  Tensor x = unbatched ? unsqueeze(x0, 0) : x0;
  DType dt = x.dtype();
  if (is_half(dt)) x = to_dtype(x, DType::Float32);
  TensorList r = apply(std::make_shared<Pool2d>(Pool2d::Max, k.first, k.second, s.first, s.second, p.first, p.second,
                                                d.first, d.second, oh, ow, false, 0), {x});
  Tensor v = detail::cast(r[0], dt), i = r[1];
  if (unbatched) return {squeeze(v, Dims{0}), squeeze(i, Dims{0})};
  return {v, i};
}

Tensor avg_pool2d(const Tensor& x0, std::pair<int64_t, int64_t> k, std::pair<int64_t, int64_t> s,
                  std::pair<int64_t, int64_t> p, bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor) {
  Params params{{"kernel_size", std::vector<int64_t>{k.first, k.second}}, {"stride", std::vector<int64_t>{s.first, s.second}},
                {"padding", std::vector<int64_t>{p.first, p.second}}, {"ceil_mode", ceil_mode}};
  int64_t oh, ow;
  pool_checks("avg_pool2d", x0, params, k, s, p, {1, 1}, ceil_mode, &oh, &ow);
  if (divisor && *divisor == 0) throw ValueError("[avg_pool2d] divisor must be not zero");
  if (!is_floating(x0.dtype())) throw TypeError("[avg_pool2d] needs a floating point tensor");
  bool unbatched = x0.dim() == 3;
  Tensor x = unbatched ? unsqueeze(x0, 0) : x0;
  DType dt = x.dtype();
  if (is_half(dt)) x = to_dtype(x, DType::Float32);
  Tensor r = apply1(std::make_shared<Pool2d>(Pool2d::Avg, k.first, k.second, s.first, s.second, p.first, p.second, 1, 1,
                                             oh, ow, count_include_pad, divisor.value_or(0)), {x});
  r = detail::cast(r, dt);
  return unbatched ? squeeze(r, Dims{0}) : r;
}

Tensor adaptive_avg_pool2d(const Tensor& x0, std::pair<int64_t, int64_t> out) {
  Params params{{"output_size", std::vector<int64_t>{out.first, out.second}}};
  if (x0.dim() != 3 && x0.dim() != 4)
    shape_error("adaptive_avg_pool2d", {x0.shape()}, params, "expected 3-D or 4-D input, got input of shape " + shape_str(x0.shape()));
  if (out.first < 0 || out.second < 0) throw ValueError("[adaptive_avg_pool2d] output size must be non-negative");
  if (x0.size(-1) == 0 || x0.size(-2) == 0)
    shape_error("adaptive_avg_pool2d", {x0.shape()}, params, "input spatial dims must be non-empty");
  if (!is_floating(x0.dtype())) throw TypeError("[adaptive_avg_pool2d] needs a floating point tensor");
  bool unbatched = x0.dim() == 3;
  Tensor x = unbatched ? unsqueeze(x0, 0) : x0;
  DType dt = x.dtype();
  if (is_half(dt)) x = to_dtype(x, DType::Float32);
  Tensor r = apply1(std::make_shared<Pool2d>(Pool2d::AdaptiveAvg, 0, 0, 0, 0, 0, 0, 0, 0, out.first, out.second, false, 0), {x});
  r = detail::cast(r, dt);
  return unbatched ? squeeze(r, Dims{0}) : r;
}

Tensor embedding(const Tensor& weight, const Tensor& idx, std::optional<int64_t>) {
  if (weight.dim() != 2) shape_error("embedding", {weight.shape(), idx.shape()}, {}, "weight must be 2-D, got " + shape_str(weight.shape()));
  if (idx.dtype() != DType::Int64 && idx.dtype() != DType::Int32)
    throw TypeError(std::string("[embedding] indices must be int64 or int32, got ") + dtype_name(idx.dtype()));
  Tensor flat = reshape(idx, Shape{idx.numel()});
  Tensor r = index_select(weight, 0, flat);
  Shape os = idx.shape();
  os.push_back(weight.size(1));
  return reshape(r, os);
}

// ---------------- random ----------------
void manual_seed(uint64_t seed) { cpu::seed(seed); }
uint64_t initial_seed() { return cpu::seed_value(); }

static void check_float(const char* op, DType d) {
  if (!is_floating(d)) throw TypeError(std::string("[") + op + "] expected a floating point dtype, got " + dtype_name(d));
}

Tensor rand(const Shape& shape, DType dtype) {
  check_not_tracing("rand");
  check_float("rand", dtype);
  Tensor t = empty(shape, is_half(dtype) ? DType::Float32 : dtype);
  cpu::rand_uniform(t, 0.0, 1.0);
  return detail::cast(t, dtype);
}

Tensor randn(const Shape& shape, DType dtype) {
  check_not_tracing("randn");
  check_float("randn", dtype);
  Tensor t = empty(shape, is_half(dtype) ? DType::Float32 : dtype);
  cpu::rand_normal(t, 0.0, 1.0);
  return detail::cast(t, dtype);
}

Tensor randint(int64_t low, int64_t high, const Shape& shape, DType dtype) {
  check_not_tracing("randint");
  if (high <= low) throw ValueError("[randint] expected low < high, got low=" + std::to_string(low) + ", high=" + std::to_string(high));
  Tensor t = empty(shape, DType::Int64);
  cpu::rand_int(t, low, high);
  return detail::cast(t, dtype);
}

Tensor randperm(int64_t n, DType dtype) {
  check_not_tracing("randperm");
  if (n < 0) throw ValueError("[randperm] n must be non-negative");
  Tensor t = empty(Shape{n}, DType::Int64, Device{});  // shuffled on the host
  int64_t* p = t.data<int64_t>();
  std::iota(p, p + n, 0);
  for (int64_t i = n - 1; i > 0; --i) {
    int64_t j = static_cast<int64_t>(cpu::next_u64() % static_cast<uint64_t>(i + 1));
    std::swap(p[i], p[j]);
  }
  return detail::cast(t, dtype);
}

Tensor bernoulli(const Tensor& p) {
  check_not_tracing("bernoulli");
  check_float("bernoulli", p.dtype());
  Tensor pc = contiguous(detail::cast(p, p.dtype() == DType::Float64 ? DType::Float64 : DType::Float32));
  Tensor out = empty(p.shape(), p.dtype(), p.device());
  cpu::bernoulli(out, pc);
  return out;
}

Tensor dropout(const Tensor& x, double p, bool training) {
  if (p < 0 || p > 1) throw ValueError("[dropout] probability has to be between 0 and 1, but got " + std::to_string(p));
  if (!training || p == 0) return x;
  check_not_tracing("dropout");
  check_float("dropout", x.dtype());
  if (p == 1) return binary(BinaryOp::Mul, x, Scalar::from_double(0.0));
  Tensor mask = empty(x.shape(), is_half(x.dtype()) ? DType::Float32 : x.dtype(), x.device());
  cpu::bernoulli_scalar(mask, 1 - p);
  return binary(BinaryOp::Mul, x, binary(BinaryOp::Mul, detail::cast(mask, x.dtype()), Scalar::from_double(1.0 / (1 - p))));
}

Tensor dropout2d(const Tensor& x, double p, bool training) {
  if (x.dim() != 3 && x.dim() != 4)
    shape_error("dropout2d", {x.shape()}, {{"p", p}}, "expected 3-D or 4-D input, got input of shape " + shape_str(x.shape()));
  if (p < 0 || p > 1) throw ValueError("[dropout2d] probability has to be between 0 and 1, but got " + std::to_string(p));
  if (!training || p == 0) return x;
  check_not_tracing("dropout2d");
  check_float("dropout2d", x.dtype());
  Shape ms = x.shape();
  ms[ms.size() - 1] = 1;
  ms[ms.size() - 2] = 1;
  if (p == 1) return binary(BinaryOp::Mul, x, Scalar::from_double(0.0));
  Tensor mask = empty(ms, is_half(x.dtype()) ? DType::Float32 : x.dtype(), x.device());
  cpu::bernoulli_scalar(mask, 1 - p);
  return binary(BinaryOp::Mul, x, binary(BinaryOp::Mul, detail::cast(mask, x.dtype()), Scalar::from_double(1.0 / (1 - p))));
}

// ---------------- graph mode: rebuild a primitive from its name and attributes ----------------
std::shared_ptr<Primitive> detail::make_nn_primitive(const std::string& name, const Params& attrs) {
  AttrReader r(name, attrs);
  if (name == "matmul") return std::make_shared<MatMul>();
  if (name == "softmax" || name == "log_softmax") return std::make_shared<Softmax>(r.i("dim"), name == "log_softmax");
  if (name == "layer_norm") return std::make_shared<LayerNorm>(r.i("cols"), r.f("eps"), r.b("weight"), r.b("bias"));
  if (name == "cross_entropy") return std::make_shared<CrossEntropy>(r.i("ignore_index"), r.b("mean"));
  if (name == "cross_entropy_backward") return std::make_shared<CrossEntropyBackward>(r.i("ignore_index"), r.b("mean"));
  if (name == "conv2d") {
    auto g = r.ints("geom");
    if (g.size() != 9) throw ValueError("primitive 'conv2d': malformed attribute 'geom'");
    return std::make_shared<Conv2d>(g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[7], g[8], r.b("bias"));
  }
  if (name == "max_pool2d" || name == "avg_pool2d" || name == "adaptive_avg_pool2d") {
    auto g = r.ints("geom");
    if (g.size() != 11) throw ValueError("primitive '" + name + "': malformed attribute 'geom'");
    auto kind = name == "max_pool2d" ? Pool2d::Max : name == "avg_pool2d" ? Pool2d::Avg : Pool2d::AdaptiveAvg;
    return std::make_shared<Pool2d>(kind, g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[7], g[8], g[9],
                                    r.b("count_include_pad"), g[10]);
  }
  if (name == "conv2d_backward_input" || name == "conv2d_backward_weight") {
    auto g = r.ints("geom");
    if (g.size() != 7) throw ValueError("primitive '" + name + "': malformed attribute 'geom'");
    ConvParams p{g[0], g[1], g[2], g[3], g[4], g[5], g[6]};
    if (name == "conv2d_backward_input") return std::make_shared<Conv2dBackwardInput>(p, r.shape("shape"));
    return std::make_shared<Conv2dBackwardWeight>(p, r.shape("shape"));
  }
  if (name == "avg_pool2d_backward" || name == "adaptive_avg_pool2d_backward") {
    auto g = r.ints("geom");
    if (g.size() != 7) throw ValueError("primitive '" + name + "': malformed attribute 'geom'");
    return std::make_shared<AvgPoolBackward>(name == "adaptive_avg_pool2d_backward", g[0], g[1], g[2], g[3], g[4], g[5],
                                             r.b("count_include_pad"), g[6], r.shape("shape"));
  }
  if (name == "max_pool2d_backward") return std::make_shared<MaxPoolBackward>(r.shape("shape"));
  return nullptr;
}

}  // namespace tt
