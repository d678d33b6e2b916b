// Convolution and pooling: conv2d (and padding='same'), conv_transpose2d, max / avg / adaptive-avg
// pooling, and their VJP primitives.
#include <algorithm>
#include <initializer_list>

#include "typedtensor/autocast.h"
#include "../cpu/kernels.h"
#include "internal.h"
#include "typedtensor/blas.h"
#include "typedtensor/device.h"

namespace tt {
using detail::dim_arg;
using detail::shape_error;
using detail::check_same_float;

namespace {

struct ConvParams {
  int64_t sh, sw, ph, pw, dh, dw, g;
};

// The output size of a window sliding over `in` (padded by p each side; kernel k dilated by d,
// stride s): conv2d's formula, and pooling's with ceil_mode (torch: the last window must start
// inside the input or the left padding). The front ends and output_types both size with these.
int64_t conv_out(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d) { return (in + 2 * p - (d * (k - 1) + 1)) / s + 1; }
int64_t pool_out(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil_mode) {
  int64_t num = in + 2 * p - (d * (k - 1) + 1) + (ceil_mode ? s - 1 : 0);
  int64_t out = (num >= 0 ? num / s : -((-num + s - 1) / s)) + 1;  // rounded down, as torch
  if (ceil_mode && (out - 1) * s >= in + p) --out;
  return out;
}

constexpr int64_t kMaxGeom = int64_t{1} << 31;  // window parameters beyond this are not real (a loaded file)

bool in_range(std::initializer_list<int64_t> v, int64_t lo) {
  for (int64_t x : v)
    if (x < lo || x > kMaxGeom) return false;
  return true;
}

// The dtypes conv2d and its VJP pieces take: float32, float64, and bfloat16, which the CPU kernels
// multiply on the bfloat16 GEMM or widen themselves (NOTE [ bfloat16 convolution ] in cpu/conv.cpp)
void conv_dtype(const detail::TypeCheck& c, size_t i) {
  DType d = c[i].dtype;
  if (d != DType::Float32 && d != DType::Float64 && d != DType::BFloat16)
    c.fail(std::string("needs float32, float64 or bfloat16, got ") + dtype_name(d));
}

// conv2d and its two VJP pieces: x [N, C, H, W], w [O, C/g, kh, kw] -> y [N, O, oh, ow].
Shape conv_output_shape(const detail::TypeCheck& c, const ConvParams& p, const Shape& x, const Shape& w) {
  if (!in_range({p.sh, p.sw, p.dh, p.dw, p.g}, 1) || !in_range({p.ph, p.pw}, 0))
    c.fail("stride/padding/dilation/groups out of range");
  if (x.size() != 4 || w.size() != 4) c.fail("operands must be 4-D");
  if (x[1] != w[1] * p.g || w[0] % p.g != 0) c.fail("channels / groups do not match");
  if (w[2] < 1 || w[3] < 1 || w[2] > kMaxGeom || w[3] > kMaxGeom || x[2] + 2 * p.ph < p.dh * (w[2] - 1) + 1 ||
      x[3] + 2 * p.pw < p.dw * (w[3] - 1) + 1)
    c.fail("kernel larger than the padded input");
  return Shape{x[0], w[0], conv_out(x[2], w[2], p.sh, p.ph, p.dh), conv_out(x[3], w[3], p.sw, p.pw, p.dw)};
}

// conv2d's VJP pieces, given x (the larger side), w and gy: x's spatial size may exceed the
// smallest one that gives gy by less than max(stride, dilation) -- a conv2d's input by less than the
// stride (the rows its last window does not reach), a conv_transpose2d's output by its
// output_padding, which torch allows up to max(stride, dilation) - 1. The kernels loop over gy's
// positions and skip what falls outside x, so the extra rows get zero gradient.
void check_conv_grad_shapes(const detail::TypeCheck& c, const ConvParams& p, const Shape& x, const Shape& w,
                            const Shape& gy) {
  Shape full = conv_output_shape(c, p, x, w);  // also checks ranks, channels, groups, geometry
  if (gy.size() != 4 || gy[0] != full[0] || gy[1] != full[1]) c.fail("gradient shape");
  const int64_t s[2] = {p.sh, p.sw}, pad[2] = {p.ph, p.pw}, d[2] = {p.dh, p.dw};
  for (int a = 0; a < 2; ++a) {
    if (gy[2 + a] < 1 || gy[2 + a] > full[2 + a]) c.fail("gradient shape");
    int64_t reach = (gy[2 + a] - 1) * s[a] - 2 * pad[a] + d[a] * (w[2 + a] - 1) + 1;  // bounded: all <= 2^31
    int64_t extra = x[2 + a] - reach;
    if (extra < 0 || extra >= std::max(s[a], d[a])) c.fail("gradient shape");
  }
}

// max/avg pooling windows k = {kh, kw, sh, sw, ph, pw}: y's spatial sizes are the floor or the
// ceil_mode size of the formula.
void check_pool_window(const detail::TypeCheck& c, const int64_t* k, int64_t dh, int64_t dw, const Shape& x,
                       const Shape& y) {
  int64_t kh = k[0], kw = k[1], sh = k[2], sw = k[3], ph = k[4], pw = k[5];
  if (!in_range({kh, kw, sh, sw, dh, dw}, 1) || !in_range({ph, pw}, 0) || ph > kh / 2 || pw > kw / 2)
    c.fail("window parameters out of range");
  if (x.size() != 4 || y.size() != 4 || x[0] != y[0] || x[1] != y[1]) c.fail("operands must be 4-D with equal N, C");
  for (int a = 0; a < 2; ++a) {
    int64_t i = x[2 + a], o = y[2 + a], kk = a ? kw : kh, ss = a ? sw : sh, pp = a ? pw : ph, dd = a ? dw : dh;
    if ((o != pool_out(i, kk, ss, pp, dd, false) && o != pool_out(i, kk, ss, pp, dd, true)) || o < 1) c.fail("output size");
  }
}

// The dtype a convolution computes in: float16, and bfloat16 without a bfloat16 GEMM, widen to
// float32; bfloat16 on a CPU whose BLAS multiplies it stays bfloat16 (NOTE [ bfloat16 convolution ]
// in cpu/conv.cpp), as a bfloat16 matmul does.
DType conv_compute_dtype(const Tensor& x) {
  DType dt = x.dtype();
  if (dt == DType::BFloat16 && !on_cuda(x) && blas_has_bf16_gemm()) return dt;
  return is_half(dt) ? DType::Float32 : dt;
}

Tensor conv_of(const Tensor& x, const Tensor& w, const ConvParams& p) {
  return conv2d(x, w, nullptr, {p.sh, p.sw}, {p.ph, p.pw}, {p.dh, p.dw}, p.g);
}

// conv2d(x, w) cut to gy's spatial size: a conv_transpose2d output widened by an output_padding of
// at least the stride convolves to more rows than the gradient it stands for.
Tensor conv_to(const Tensor& x, const Tensor& w, const ConvParams& p, const Shape& gy) {
  Tensor y = conv_of(x, w, p);
  for (int64_t a = 2; a < 4; ++a)
    if (y.size(a) != gy[a]) y = narrow(y, a, 0, gy[a]);
  return y;
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
  TypeList output_types(const TypeList& in) const override {  // (gy, w) -> dx
    detail::TypeCheck c(name(), in);
    c.count(2);
    conv_dtype(c, 0);
    c.same_dtype(0, 1);
    check_conv_grad_shapes(c, p_, xs_, in[1].shape, in[0].shape);
    return {{xs_, in[0].dtype}};
  }
  TensorList vjp(const TensorList& in, const TensorList& ct, const std::vector<int>& argnums, const TensorList&) override;
  TensorList eval_cpu(const TensorList& in) override {
    Tensor g = contiguous(in[0]), w = contiguous(in[1]);
    Tensor dx = detail::alloc_output(*this, in);
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
  TypeList output_types(const TypeList& in) const override {  // (gy, x) -> dw
    detail::TypeCheck c(name(), in);
    c.count(2);
    conv_dtype(c, 0);
    c.same_dtype(0, 1);
    check_conv_grad_shapes(c, p_, in[1].shape, ws_, in[0].shape);
    return {{ws_, in[0].dtype}};
  }
  TensorList vjp(const TensorList& in, const TensorList& ct, const std::vector<int>& argnums, const TensorList&) override {
    // dw = W(g, x): <c, W(g, x)> = <conv(x, c), g> = <x, I(g, c)>
    TensorList r;
    for (int i : argnums)
      r.push_back(i == 0 ? conv_to(in[1], ct[0], p_, in[0].shape())
                         : apply1(std::make_shared<Conv2dBackwardInput>(p_, in[1].shape()), {in[0], ct[0]}));
    return r;
  }
  TensorList eval_cpu(const TensorList& in) override {
    Tensor g = contiguous(in[0]), x = contiguous(in[1]);
    Tensor dw = detail::alloc_output(*this, in);
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
    r.push_back(i == 0 ? conv_to(ct[0], in[1], p_, in[0].shape())
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
  TypeList output_types(const TypeList& in) const override {  // (x, w[, bias]) -> y
    detail::TypeCheck c(name(), in);
    c.count(bias_ ? 3 : 2);
    for (size_t i = 0; i < in.size(); ++i) {
      conv_dtype(c, i);
      c.same_dtype(0, i);
    }
    Shape y = conv_output_shape(c, ConvParams{sh_, sw_, ph_, pw_, dh_, dw_, g_}, in[0].shape, in[1].shape);
    if (y[2] != oh_ || y[3] != ow_) c.fail("output size differs from attribute");
    if (bias_) c.shape(2, Shape{in[1].shape[0]}, "bias");
    return {{y, in[0].dtype}};
  }
  TensorList eval_cpu(const TensorList& in) override {
    Tensor x = contiguous(in[0]), w = contiguous(in[1]);
    Tensor b = bias_ ? contiguous(in[2]) : Tensor();
    Tensor out = detail::alloc_output(*this, in);
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
  TypeList output_types(const TypeList& in) const override {  // gy -> dx of the input's shape
    detail::TypeCheck c(name(), in);
    c.count(1);
    c.real(0);
    c.rank(0, 4, "gradient");
    const Shape& gy = in[0].shape;
    if (xs_.size() != 4 || xs_[0] != gy[0] || xs_[1] != gy[1]) c.fail("input shape attribute");
    if (adaptive_) {
      if (xs_[2] < 1 || xs_[3] < 1) c.fail("sizes");
    } else {
      const int64_t k[] = {kh_, kw_, sh_, sw_, ph_, pw_};
      check_pool_window(c, k, 1, 1, xs_, gy);
    }
    return {{xs_, in[0].dtype}};
  }
  bool vjp_needs_inputs() const override { return false; }
  TensorList eval_cpu(const TensorList& in) override {
    Tensor g = contiguous(in[0]);
    Tensor dx = detail::alloc_output(*this, in);
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
  TypeList output_types(const TypeList& in) const override {  // (gy, argmax indices) -> dx
    detail::TypeCheck c(name(), in);
    c.count(2);
    c.real(0);
    c.rank(0, 4, "gradient");
    const Shape& gy = in[0].shape;
    if (xs_.size() != 4 || xs_[0] != gy[0] || xs_[1] != gy[1]) c.fail("input shape attribute");
    c.dtype(1, DType::Int64, "indices");
    c.shape(1, gy, "indices");  // their values are checked per run
    return {{xs_, in[0].dtype}};
  }
  TensorList eval_cpu(const TensorList& in) override {
    Tensor g = contiguous(in[0]), idx = contiguous(in[1]);
    if (!on_cuda(idx)) check_plane_index(idx, xs_[2] * xs_[3]);  // a loaded graph may wire any int64 tensor here
    Tensor dx = detail::alloc_output(*this, in);
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
  TypeList output_types(const TypeList& in) const override {  // x -> y (max: and its argmax indices)
    detail::TypeCheck c(name(), in);
    c.count(1);
    const TensorType& x = in[0];
    if (kind_ == Max ? x.dtype == DType::Bool : (x.dtype != DType::Float32 && x.dtype != DType::Float64))
      c.fail(std::string("dtype ") + dtype_name(x.dtype) + " not supported");
    c.rank(0, 4, "input");
    Shape y{x.shape[0], x.shape[1], oh_, ow_};
    if (kind_ == AdaptiveAvg) {
      if (oh_ < 0 || ow_ < 0 || x.shape[2] < 1 || x.shape[3] < 1) c.fail("sizes");
    } else {
      const int64_t k[] = {kh_, kw_, sh_, sw_, ph_, pw_};
      check_pool_window(c, k, dh_, dw_, x.shape, y);
    }
    if (kind_ == Max) return {{y, x.dtype}, {y, DType::Int64}};
    return {{y, x.dtype}};
  }
  TensorList eval_cpu(const TensorList& in) override {
    Tensor x = contiguous(in[0]);
    TensorList outs = detail::alloc_outputs(*this, in);
    Tensor out = outs[0];
    if (out.numel() == 0) return outs;
    if (kind_ == Max) {
      cpu::max_pool2d(out, outs[1], x, kh_, kw_, sh_, sw_, ph_, pw_, dh_, dw_);
      return outs;
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
// conv2d -> max_pool2d (-> relu on the pooled values) as one node: made by the graph's `conv_pool`
// pass only (NOTE [ Fused convolution and pooling ] in graph/conv_pool.cpp), never by a front end, so
// it has no VJP of its own (the graph holds the pooling's and the convolution's backward nodes).
// On the CPU the convolution's output is never written whole (NOTE [ Convolution then
// max-pooling ] in cpu/conv.cpp); on CUDA the two kernels run one after the other.
class Conv2dMaxPool2d : public Primitive {
 public:
  Conv2dMaxPool2d(ConvParams p, int64_t oh, int64_t ow, bool bias, std::vector<int64_t> pool, bool relu)
      : p_(p), oh_(oh), ow_(ow), bias_(bias), pool_(std::move(pool)), relu_(relu) {}
  const char* name() const override { return "conv2d_max_pool2d"; }
  bool differentiable() const override { return false; }
  TypeList output_types(const TypeList& in) const override {  // (x, w[, bias]) -> (pooled, argmax indices)
    detail::TypeCheck c(name(), in);
    c.count(bias_ ? 3 : 2);
    for (size_t i = 0; i < in.size(); ++i) {
      if (in[i].dtype != DType::Float32 && in[i].dtype != DType::Float64) c.fail("needs float32 or float64");
      c.same_dtype(0, i);
    }
    Shape y = conv_output_shape(c, p_, in[0].shape, in[1].shape);
    if (y[2] != oh_ || y[3] != ow_) c.fail("output size differs from attribute");
    if (bias_) c.shape(2, Shape{in[1].shape[0]}, "bias");
    if (pool_.size() != 10) c.fail("pooling attribute");
    Shape pooled{y[0], y[1], pool_[8], pool_[9]};
    const int64_t k[] = {pool_[0], pool_[1], pool_[2], pool_[3], pool_[4], pool_[5]};
    check_pool_window(c, k, pool_[6], pool_[7], y, pooled);
    return {{pooled, in[0].dtype}, {pooled, DType::Int64}};
  }
  TensorList eval_cpu(const TensorList& in) override {
    Tensor x = contiguous(in[0]), w = contiguous(in[1]);
    Tensor b = bias_ ? contiguous(in[2]) : Tensor();
    TensorList outs = detail::alloc_outputs(*this, in);
    if (outs[0].numel() == 0) return outs;
    const int64_t conv[7] = {p_.sh, p_.sw, p_.ph, p_.pw, p_.dh, p_.dw, p_.g};
    const int64_t pool[8] = {pool_[0], pool_[1], pool_[2], pool_[3], pool_[4], pool_[5], pool_[6], pool_[7]};
    if (!on_cuda(x)) {
      cpu::conv2d_max_pool2d(outs[0], outs[1], x, w, bias_ ? &b : nullptr, conv, pool, oh_, ow_, relu_);
      return outs;
    }
    Tensor y = empty(Shape{x.size(0), w.size(0), oh_, ow_}, x.dtype());  // on the device (DeviceScope)
    cpu::conv2d(y, x, w, bias_ ? &b : nullptr, p_.sh, p_.sw, p_.ph, p_.pw, p_.dh, p_.dw, p_.g);
    cpu::max_pool2d(outs[0], outs[1], y, pool[0], pool[1], pool[2], pool[3], pool[4], pool[5], pool[6], pool[7]);
    if (relu_) cpu::unary(UnaryOp::Relu, outs[0], outs[0]);
    return outs;
  }

 private:
  ConvParams p_;
  int64_t oh_, ow_;
  bool bias_;
  std::vector<int64_t> pool_;  // kh, kw, sh, sw, ph, pw, dh, dw, pooled oh, pooled ow
  bool relu_;
 public:  // graph mode
  std::optional<Params> attrs() const override {
    return Params{{"conv", std::vector<int64_t>{p_.sh, p_.sw, p_.ph, p_.pw, p_.dh, p_.dw, p_.g, oh_, ow_}},
                  {"bias", bias_}, {"pool", pool_}, {"relu", relu_}};
  }
};
// conv2d_backward_weight(g, x) or conv2d_backward_input(g, w) of g = max_pool2d_backward(gp, idx),
// as one node each, where those are the conv-sized gradient's only readers: made by the graph's
// `conv_pool` pass only (NOTE [ Fused convolution and pooling ] in graph/conv_pool.cpp). On the CPU
// each makes g a sample at a time (NOTE [ Gradients behind a max-pooling ] in
// cpu/conv_backward.cpp); on CUDA the kernels run one after the other.
class Conv2dBackwardPooled : public Primitive {
 public:
  // weight: dw from (gp, idx, x); otherwise dx from (gp, idx, w). `target` is dw's or dx's shape,
  // ys the convolution output's (the pooling's input).
  Conv2dBackwardPooled(bool weight, ConvParams p, Shape target, Shape ys)
      : weight_(weight), p_(p), target_(std::move(target)), ys_(std::move(ys)) {}
  const char* name() const override { return weight_ ? "conv2d_backward_weight_pooled" : "conv2d_backward_input_pooled"; }
  bool differentiable() const override { return false; }
  TypeList output_types(const TypeList& in) const override {  // (pooled gradient, argmax indices, x or w)
    detail::TypeCheck c(name(), in);
    c.count(3);
    if (in[0].dtype != DType::Float32 && in[0].dtype != DType::Float64) c.fail("needs float32 or float64");
    c.same_dtype(0, 2);
    c.rank(0, 4, "gradient");
    c.dtype(1, DType::Int64, "indices");
    c.shape(1, in[0].shape, "indices");  // their values are checked per run
    const Shape& gp = in[0].shape;
    if (ys_.size() != 4 || ys_[0] != gp[0] || ys_[1] != gp[1]) c.fail("convolution output shape attribute");
    if (weight_) check_conv_grad_shapes(c, p_, in[2].shape, target_, ys_);
    else check_conv_grad_shapes(c, p_, target_, in[2].shape, ys_);
    return {{target_, in[0].dtype}};
  }
  TensorList eval_cpu(const TensorList& in) override {
    Tensor gp = contiguous(in[0]), idx = contiguous(in[1]), other = contiguous(in[2]);
    Tensor out = detail::alloc_output(*this, in);
    if (!on_cuda(gp)) {
      check_plane_index(idx, ys_[2] * ys_[3]);  // a loaded graph may wire any int64 tensor here
      const int64_t conv[7] = {p_.sh, p_.sw, p_.ph, p_.pw, p_.dh, p_.dw, p_.g};
      if (weight_) cpu::conv2d_backward_weight_pooled(out, gp, idx, other, ys_[2], ys_[3], conv);
      else cpu::conv2d_backward_input_pooled(out, gp, idx, other, ys_[2], ys_[3], conv);
      return {out};
    }
    Tensor g = empty(ys_, gp.dtype());  // on the device (DeviceScope)
    if (g.numel() > 0) cpu::max_pool2d_backward(g, gp, idx);
    if (weight_) cpu::conv2d_backward_weight(out, g, other, p_.sh, p_.sw, p_.ph, p_.pw, p_.dh, p_.dw, p_.g);
    else cpu::conv2d_backward_input(out, g, other, p_.sh, p_.sw, p_.ph, p_.pw, p_.dh, p_.dw, p_.g);
    return {out};
  }

 private:
  bool weight_;
  ConvParams p_;
  Shape target_, ys_;
 public:  // graph mode
  std::optional<Params> attrs() const override {
    return Params{{"geom", std::vector<int64_t>{p_.sh, p_.sw, p_.ph, p_.pw, p_.dh, p_.dw, p_.g}},
                  {"shape", target_.vec()}, {"conv_shape", ys_.vec()}};
  }
};
}  // namespace

Tensor conv2d(const Tensor& x0, const Tensor& w, const Tensor* b, std::pair<int64_t, int64_t> stride,
              std::pair<int64_t, int64_t> padding, std::pair<int64_t, int64_t> dilation, int64_t groups) {
  TT_AUTOCAST("conv2d", conv2d, x0, w, b, stride, padding, dilation, groups);
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
  if (x0.size(-1) == 0 || x0.size(-2) == 0)
    shape_error("conv2d", shapes, params, "empty spatial dims are not supported (only an empty batch or channel dim)");
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
  int64_t oh = conv_out(x.size(2), w.size(2), stride.first, padding.first, dilation.first);
  int64_t ow = conv_out(x.size(3), w.size(3), stride.second, padding.second, dilation.second);
  if (x.size(2) + 2 * padding.first < eh || x.size(3) + 2 * padding.second < ew || oh < 1 || ow < 1)
    shape_error("conv2d", shapes, params,
                "calculated output size (" + std::to_string(oh) + " x " + std::to_string(ow) + ") is too small");
  if (!is_floating(x.dtype())) throw TypeError(std::string("[conv2d] needs floating point tensors, got ") + dtype_name(x.dtype()));
  check_same_float("conv2d", x, w);
  if (b) check_same_float("conv2d", x, *b);
  DType dt = x.dtype(), cdt = conv_compute_dtype(x);
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
  TT_AUTOCAST("conv2d", conv2d_same, x, w, b, dilation, groups);
  if (w.dim() != 4 || (x.dim() != 3 && x.dim() != 4) || dilation.first <= 0 || dilation.second <= 0)
    return conv2d(x, w, b, {1, 1}, {0, 0}, dilation, groups);  // its error for the bad argument
  int64_t th = dilation.first * (w.size(2) - 1), tw = dilation.second * (w.size(3) - 1);
  Tensor y = conv2d(x, w, b, {1, 1}, {th / 2 + th % 2, tw / 2 + tw % 2}, dilation, groups);
  if (th % 2) y = narrow(y, y.dim() - 2, 1, x.size(-2));
  if (tw % 2) y = narrow(y, y.dim() - 1, 1, x.size(-1));
  return y;
}

// NOTE [ Transposed convolution ]
// conv_transpose2d(x, w) is conv2d's input-gradient evaluated at x: x plays the output gradient's
// part ([N, C_in, H, W] against a conv2d weight [C_in, C_out / groups, kH, kW]) and the result the
// input's. So it is one Conv2dBackwardInput primitive (col2im + GEMM on the CPU, the same on CUDA)
// whose VJPs are conv2d (for x) and the weight-gradient piece (for w), already written for conv2d's
// double backward. output_padding only widens the result: the extra rows and columns are the
// positions no window of the stride reaches from the left/top, written by col2im like the others.
Tensor conv_transpose2d(const Tensor& x0, const Tensor& w, const Tensor* b, std::pair<int64_t, int64_t> stride,
                        std::pair<int64_t, int64_t> padding, std::pair<int64_t, int64_t> output_padding, int64_t groups,
                        std::pair<int64_t, int64_t> dilation) {
  TT_AUTOCAST("conv_transpose2d", conv_transpose2d, x0, w, b, stride, padding, output_padding, groups, dilation);
  Params params{{"stride", std::vector<int64_t>{stride.first, stride.second}},
                {"padding", std::vector<int64_t>{padding.first, padding.second}},
                {"output_padding", std::vector<int64_t>{output_padding.first, output_padding.second}},
                {"groups", groups},
                {"dilation", std::vector<int64_t>{dilation.first, dilation.second}}};
  std::vector<Shape> shapes{x0.shape(), w.shape()};
  if (b) shapes.push_back(b->shape());
  if (x0.dim() != 3 && x0.dim() != 4)
    shape_error("conv_transpose2d", shapes, params,
                "expected 3-D (unbatched) or 4-D (batched) input, got input of shape " + shape_str(x0.shape()));
  if (w.dim() != 4) shape_error("conv_transpose2d", shapes, params, "weight must be 4-D, got " + shape_str(w.shape()));
  if (stride.first <= 0 || stride.second <= 0) throw ValueError("[conv_transpose2d] stride must be positive");
  if (dilation.first <= 0 || dilation.second <= 0) throw ValueError("[conv_transpose2d] dilation must be positive");
  if (padding.first < 0 || padding.second < 0) throw ValueError("[conv_transpose2d] padding must be non-negative");
  if (output_padding.first < 0 || output_padding.second < 0)
    throw ValueError("[conv_transpose2d] output_padding must be non-negative");
  if (output_padding.first >= std::max(stride.first, dilation.first) ||
      output_padding.second >= std::max(stride.second, dilation.second))
    throw ValueError("[conv_transpose2d] output padding must be smaller than either stride or dilation, got output_padding (" +
                     std::to_string(output_padding.first) + ", " + std::to_string(output_padding.second) + ")");
  if (groups <= 0) throw ValueError("[conv_transpose2d] groups must be positive");
  bool unbatched = x0.dim() == 3;
  Tensor x = unbatched ? unsqueeze(x0, 0) : x0;
  int64_t c = x.size(1);
  if (c != w.size(0))
    shape_error("conv_transpose2d", shapes, params,
                "expected input " + shape_str(x0.shape()) + " to have " + std::to_string(w.size(0)) +
                    " channels (weight dim 0), but got " + std::to_string(c) + " channels");
  if (c % groups != 0) shape_error("conv_transpose2d", shapes, params, "in_channels must be divisible by groups");
  int64_t o = w.size(1) * groups;
  if (b && (b->dim() != 1 || b->size(0) != o))
    shape_error("conv_transpose2d", shapes, params,
                "bias must have shape [" + std::to_string(o) + "], got " + shape_str(b->shape()));
  int64_t oh = (x.size(2) - 1) * stride.first - 2 * padding.first + dilation.first * (w.size(2) - 1) + output_padding.first + 1;
  int64_t ow = (x.size(3) - 1) * stride.second - 2 * padding.second + dilation.second * (w.size(3) - 1) +
               output_padding.second + 1;
  if (oh < 1 || ow < 1 || x.size(2) < 1 || x.size(3) < 1)
    shape_error("conv_transpose2d", shapes, params,
                "calculated output size (" + std::to_string(oh) + " x " + std::to_string(ow) + ") is too small");
  if (!is_floating(x.dtype()))
    throw TypeError(std::string("[conv_transpose2d] needs floating point tensors, got ") + dtype_name(x.dtype()));
  check_same_float("conv_transpose2d", x, w);
  if (b) check_same_float("conv_transpose2d", x, *b);
  // bfloat16 without a bias on the bfloat16 GEMM (NOTE [ bfloat16 convolution ] in cpu/conv.cpp);
  // with one, widened, so that bias + product is rounded once (the primitive has no bias input)
  DType dt = x.dtype(), cdt = b ? (is_half(dt) ? DType::Float32 : dt) : conv_compute_dtype(x);
  ConvParams p{stride.first, stride.second, padding.first, padding.second, dilation.first, dilation.second, groups};
  Tensor r = apply1(std::make_shared<Conv2dBackwardInput>(p, Shape{x.size(0), o, oh, ow}),
                    {detail::cast(x, cdt), detail::cast(w, cdt)});
  if (b) r = binary(BinaryOp::Add, r, reshape(detail::cast(*b, cdt), Shape{1, o, 1, 1}));
  r = detail::cast(r, dt);
  return unbatched ? squeeze(r, Dims{0}) : r;
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
  for (int64_t i = x.dim() == 4 ? 1 : 0; i < x.dim(); ++i)  // only a batched input's batch may be empty
    if (x.size(i) == 0) shape_error(op, {x.shape()}, params, "the channel and spatial dims must be non-empty");
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
// ---------------- graph mode: rebuild a primitive from its name and attributes ----------------
std::shared_ptr<Primitive> detail::make_conv_pool_primitive(const std::string& name, const Params& attrs) {
  AttrReader r(name, attrs);
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
  if (name == "conv2d_backward_weight_pooled" || name == "conv2d_backward_input_pooled") {
    auto g = r.ints("geom");
    if (g.size() != 7) throw ValueError("primitive '" + name + "': malformed attribute 'geom'");
    return std::make_shared<Conv2dBackwardPooled>(name == "conv2d_backward_weight_pooled",
                                                  ConvParams{g[0], g[1], g[2], g[3], g[4], g[5], g[6]}, r.shape("shape"),
                                                  r.shape("conv_shape"));
  }
  if (name == "conv2d_max_pool2d") {
    auto c = r.ints("conv");
    auto p = r.ints("pool");
    if (c.size() != 9 || p.size() != 10) throw ValueError("primitive 'conv2d_max_pool2d': malformed attribute 'conv' or 'pool'");
    return std::make_shared<Conv2dMaxPool2d>(ConvParams{c[0], c[1], c[2], c[3], c[4], c[5], c[6]}, c[7], c[8], r.b("bias"),
                                             std::vector<int64_t>(p.begin(), p.end()), r.b("relu"));
  }
  return nullptr;
}

}  // namespace tt
