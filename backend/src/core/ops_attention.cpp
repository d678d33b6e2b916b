// The fused attention primitives (NOTE [ Fused attention ] in backend/src/cpu/attention.cpp):
// scaled_dot_product_attention (q, k, v[, mask]) -> (out, lse) and its backward
// (q, k, v, out, lse, dout[, mask]) -> (dq, dk, dv). CPU only: CUDA runs the composite.
#include <cmath>

#include "../cpu/attention.h"
#include "internal.h"
#include "typedtensor/attention.h"
#include "typedtensor/device.h"

namespace tt {
namespace {

using cpu::AttentionMask;
constexpr const char* kOp = "scaled_dot_product_attention";

// The kernels read rows with a unit stride along the last dim (a broadcast there is copied out).
Tensor unit_last(const Tensor& t) { return t.size(-1) > 1 && t.stride(-1) != 1 ? contiguous(t) : t; }
// A GEMM operand's rows also lie at least a row width apart: BLAS takes the row stride as the
// leading dimension and refuses one below the width, so rows broadcast along the sequence (stride
// 0, an expanded key or an incoming gradient) are copied out too.
Tensor gemm_rows(const Tensor& t) {
  const Tensor u = unit_last(t);
  return u.size(-2) > 1 && u.stride(-2) < u.size(-1) ? contiguous(u) : u;
}

// An output of shape s ([B, H, L, E]) laid out as [B, L, H, E] when `like` (the input it matches)
// has its heads split out of one projection -- its head stride nonzero and below its sequence
// stride -- as torch's flash kernel lays out its output: the caller's transpose(1, 2).reshape(B, L,
// H * E) after attention, and the gradients' way back through that transpose and reshape, are then
// views, not copies. Otherwise contiguous.
Tensor empty_heads_like(const Shape& s, DType dt, const Tensor& like) {
  if (s.size() == 4 && like.dim() == 4 && s[1] > 1 && s[2] > 1 && like.stride(1) > 0 &&
      like.stride(1) < like.stride(2)) {
    Tensor t = empty(Shape{s[0], s[2], s[1], s[3]}, dt);
    return make_view(t, s, Strides{s[1] * s[2] * s[3], s[3], s[1] * s[3], 1}, t.offset());
  }
  return empty(s, dt);
}

void check_cpu(const TensorList& in) {
  for (const auto& t : in)
    if (on_cuda(t)) throw NotImplementedError(std::string("[") + kOp + "] the fused kernel has no CUDA implementation");
}

// (q [*b, L, E], k [*b, S, E], v [*b, S, Ev][, mask [*b, L, S]]): one float dtype (the mask bool or
// that dtype), the batch dims expanded to one shape by the front end.
void check_attention_types(const detail::TypeCheck& c, size_t n, AttentionMask kind, size_t mask_at) {
  c.count(n);
  c.real(0);
  for (size_t i = 1; i < 3; ++i) c.same_dtype(0, i);
  const Shape &q = c[0].shape, &k = c[1].shape, &v = c[2].shape;
  size_t r = q.size();
  if (r < 2 || k.size() != r || v.size() != r) c.fail("query, key and value need one rank of at least 2");
  for (size_t i = 0; i + 2 < r; ++i)
    if (k[i] != q[i] || v[i] != q[i]) c.fail("batch dims differ");
  if (q[r - 1] != k[r - 1] || k[r - 2] != v[r - 2]) c.fail("query, key and value do not line up");
  if (kind == AttentionMask::None) return;
  Shape m(q.begin(), q.end() - 1);
  m.push_back(k[r - 2]);
  c.shape(mask_at, m, "mask");
  if (kind == AttentionMask::Bool) c.dtype(mask_at, DType::Bool, "mask");
  else c.same_dtype(0, mask_at);
}

class AttentionBackward : public Primitive {
 public:
  AttentionBackward(AttentionMask kind, bool causal, double scale) : kind_(kind), causal_(causal), scale_(scale) {}
  const char* name() const override { return "scaled_dot_product_attention_backward"; }
  TypeList output_types(const TypeList& in) const override {  // (q, k, v, out, lse, dout[, mask]) -> (dq, dk, dv)
    detail::TypeCheck c(name(), in);
    check_attention_types(c, kind_ == AttentionMask::None ? 6 : 7, kind_, 6);
    const Shape& q = in[0].shape;
    Shape out(q.begin(), q.end() - 1), lse(q.begin(), q.end() - 1);
    out.push_back(in[2].shape.back());
    c.shape(3, out, "output");
    c.shape(4, lse, "logsumexp");
    c.shape(5, out, "gradient");
    for (size_t i = 3; i < 6; ++i) c.same_dtype(0, i);
    return {in[0], in[1], in[2]};
  }
  TensorList eval_cpu(const TensorList& in) override {  // (q, k, v, out, lse, dout[, mask]) -> (dq, dk, dv)
    check_cpu(in);
    const Tensor q = gemm_rows(in[0]), k = gemm_rows(in[1]), v = gemm_rows(in[2]), dout = gemm_rows(in[5]);
    const Tensor out = unit_last(in[3]), lse = contiguous(in[4]);
    std::optional<Tensor> mask;
    if (kind_ != AttentionMask::None) mask = unit_last(in[6]);
    Tensor dq = empty_heads_like(q.shape(), q.dtype(), q), dk = empty_heads_like(k.shape(), k.dtype(), k),
           dv = empty_heads_like(v.shape(), v.dtype(), v);
    cpu::attention_backward(dq, dk, dv, q, k, v, mask ? &*mask : nullptr, kind_, causal_, scale_, out, lse, dout);
    return {dq, dk, dv};
  }
  std::optional<Params> attrs() const override {
    return Params{{"mask", static_cast<int64_t>(kind_)}, {"causal", causal_}, {"scale", scale_}};
  }

 private:
  AttentionMask kind_;
  bool causal_;
  double scale_;
};

class Attention : public Primitive {
 public:
  Attention(AttentionMask kind, bool causal, double scale) : kind_(kind), causal_(causal), scale_(scale) {}
  const char* name() const override { return kOp; }
  TypeList output_types(const TypeList& in) const override {  // (q, k, v[, mask]) -> (out [*b, L, Ev], lse [*b, L])
    detail::TypeCheck c(name(), in);
    check_attention_types(c, kind_ == AttentionMask::None ? 3 : 4, kind_, 3);
    const Shape& q = in[0].shape;
    Shape out(q.begin(), q.end() - 1), lse(q.begin(), q.end() - 1);
    out.push_back(in[2].shape.back());
    return {{out, in[0].dtype}, {lse, in[0].dtype}};
  }
  TensorList eval_cpu(const TensorList& in) override {  // (q, k, v[, mask]) -> (out, lse)
    check_cpu(in);
    const Tensor q = gemm_rows(in[0]), k = gemm_rows(in[1]), v = gemm_rows(in[2]);
    std::optional<Tensor> mask;
    if (kind_ != AttentionMask::None) mask = unit_last(in[3]);
    const TypeList ty = output_types(types_of(in));
    Tensor out = empty_heads_like(ty[0].shape, ty[0].dtype, q), lse = empty(ty[1].shape, ty[1].dtype);
    cpu::attention_forward(out, lse, q, k, v, mask ? &*mask : nullptr, kind_, causal_, scale_);
    return {out, lse};
  }
  bool vjp_needs_outputs() const override { return true; }
  TensorList vjp(const TensorList& in, const TensorList& ct, const std::vector<int>& argnums,
                 const TensorList& outputs) override {
    TensorList r(argnums.size());
    if (!ct[0].defined()) return r;  // only lse was used (it is internal: no gradient flows through it)
    TensorList args{in[0], in[1], in[2], outputs[0], outputs[1], ct[0]};
    if (kind_ != AttentionMask::None) args.push_back(in[3]);
    TensorList g = tt::apply(std::make_shared<AttentionBackward>(kind_, causal_, scale_), args);
    for (size_t j = 0; j < argnums.size(); ++j)
      if (argnums[j] < 3) r[j] = g[argnums[j]];  // a float mask gets none (see attention.h)
    return r;
  }
  std::optional<Params> attrs() const override {
    return Params{{"mask", static_cast<int64_t>(kind_)}, {"causal", causal_}, {"scale", scale_}};
  }

 private:
  AttentionMask kind_;
  bool causal_;
  double scale_;
};

AttentionMask mask_kind(int64_t v, const std::string& name) {
  if (v < 0 || v > 2) throw ValueError("primitive '" + name + "': malformed attribute 'mask'");
  return static_cast<AttentionMask>(v);
}

Shape batch_of(const Tensor& t) { return Shape(t.shape().begin(), t.shape().end() - 2); }

Shape with_batch(const Shape& batch, int64_t a, int64_t b) {
  Shape s = batch;
  s.push_back(a);
  s.push_back(b);
  return s;
}

}  // namespace

Tensor fused_attention(const Tensor& q, const Tensor& k, const Tensor& v, const std::optional<Tensor>& mask,
                       bool causal, double scale) {
  if (q.dim() < 2 || k.dim() < 2 || v.dim() < 2)
    detail::shape_error(kOp, {q.shape(), k.shape(), v.shape()}, {}, "query, key and value need at least 2 dims");
  if (q.size(-1) != k.size(-1) || k.size(-2) != v.size(-2))
    detail::shape_error(kOp, {q.shape(), k.shape(), v.shape()}, {},
                        "query " + shape_str(q.shape()) + ", key " + shape_str(k.shape()) + ", value " +
                            shape_str(v.shape()) + " do not line up");
  if (causal && mask) throw ValueError(std::string(kOp) + ": pass either attn_mask or is_causal=True, not both");
  if (q.dtype() != k.dtype() || q.dtype() != v.dtype() || (q.dtype() != DType::Float32 && q.dtype() != DType::Float64))
    throw TypeError(std::string("[") + kOp + "] the fused kernel needs query, key and value of one dtype, float32 or float64");
  Shape batch = broadcast_shapes(broadcast_shapes(batch_of(q), batch_of(k), kOp), batch_of(v), kOp);
  const int64_t L = q.size(-2), S = k.size(-2);
  TensorList in{expand(q, with_batch(batch, L, q.size(-1))), expand(k, with_batch(batch, S, k.size(-1))),
                expand(v, with_batch(batch, S, v.size(-1)))};
  AttentionMask kind = AttentionMask::None;
  if (mask) {
    kind = mask->dtype() == DType::Bool ? AttentionMask::Bool : AttentionMask::Additive;
    Tensor m = kind == AttentionMask::Bool ? *mask : detail::cast(*mask, q.dtype());
    in.push_back(broadcast_to(m, with_batch(batch, L, S)));
  }
  return tt::apply(std::make_shared<Attention>(kind, causal, scale), in)[0];
}

std::shared_ptr<Primitive> detail::make_attention_primitive(const std::string& name, const Params& attrs) {
  if (name != kOp && name != "scaled_dot_product_attention_backward") return nullptr;
  AttrReader r(name, attrs);
  AttentionMask kind = mask_kind(r.i("mask"), name);
  if (name == kOp) return std::make_shared<Attention>(kind, r.b("causal"), r.f("scale"));
  return std::make_shared<AttentionBackward>(kind, r.b("causal"), r.f("scale"));
}

}  // namespace tt
