// Linear algebra: the matmul family (matmul, mm, bmm, linear) and einsum.
#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include "typedtensor/autocast.h"
#include "../cpu/kernels.h"
#include "../cpu/linear.h"
#include "internal.h"
#include "typedtensor/blas.h"
#include "typedtensor/device.h"

namespace tt {
using detail::dim_arg;
using detail::shape_error;
using detail::check_same_float;

namespace {

// Whether the batch dims [from, nb) of t merge into one (size-1 dims aside); *stride gets the
// merged stride (0 when every one of them has size 1 or is broadcast).
bool merged_batch_stride(const Tensor& t, int64_t from, int64_t nb, int64_t* stride) {
  int64_t expect = -1;
  *stride = 0;
  for (int64_t i = nb - 1; i >= from; --i) {
    int64_t s = t.shape()[i], st = t.strides()[i];
    if (s == 1) continue;
    if (expect < 0) {
      *stride = st;
      expect = st * s;
    } else if (st != expect) {
      return false;
    } else {
      expect = st * s;
    }
  }
  return true;
}

// [B, r, c] view of the batch dims [from, nb) of t (merging: merged_batch_stride) at storage
// offset `offset`, or of all its leading `nb` dims copied where they cannot merge.
Tensor batch_view(const Tensor& t0, int64_t nb, int64_t from = 0, int64_t offset = -1) {
  Tensor t = t0;
  int64_t r = t.shape()[nb], c = t.shape()[nb + 1];
  int64_t B = 1;
  for (int64_t i = from; i < nb; ++i) B *= t.shape()[i];
  int64_t bstride = 0;
  if (!merged_batch_stride(t, from, nb, &bstride)) {
    Tensor c2 = empty(t.shape(), t.dtype());
    cpu::copy(c2, t);
    t = c2;
    bstride = r * c;
    offset = -1;
  }
  return make_view(t, Shape{B, r, c}, Strides{bstride, t.strides()[nb], t.strides()[nb + 1]},
                   offset < 0 ? t.offset() : offset);
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
  TypeList output_types(const TypeList& in) const override {  // [*b, m, k] @ [*b, k, n] (batch dims expanded)
    detail::TypeCheck c(name(), in);
    c.count(2);
    c.same_dtype(0, 1);
    const Shape &a = in[0].shape, &b = in[1].shape;
    size_t r = a.size();
    if (r < 2 || b.size() != r) c.fail("operands must have one rank of at least 2");
    for (size_t i = 0; i + 2 < r; ++i)
      if (a[i] != b[i]) c.fail("batch dims differ");
    if (a[r - 1] != b[r - 2]) c.fail("inner dims differ");
    Shape s = a;
    s[r - 1] = b[r - 1];
    return {{s, in[0].dtype}};
  }
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
    Tensor out = detail::alloc_output(*this, in);
    const Shape& os = out.shape();
    if (out.numel() == 0) return {out};
    Tensor o3 = make_view(out, Shape{out.numel() / std::max<int64_t>(os[nb] * os[nb + 1], 1), os[nb], os[nb + 1]},
                          Strides{os[nb] * os[nb + 1], os[nb + 1], 1}, 0);
    // Batch dims that do not merge into one stride (heads split out of a projection and
    // transposed, broadcast batch dims) are not copied on the CPU: the leading ones are looped over,
    // each step one batched GEMM on views over the trailing dims that do merge in both operands.
    int64_t split = 0, unused = 0;
    if (!on_cuda(out))
      while (split < nb && !(merged_batch_stride(a, split, nb, &unused) && merged_batch_stride(b, split, nb, &unused)))
        ++split;
    if (split == 0) {
      cpu::gemm_batched(o3, batch_view(a, nb), batch_view(b, nb));
      return {out};
    }
    int64_t outer = 1, inner = 1;
    for (int64_t i = 0; i < nb; ++i) (i < split ? outer : inner) *= os[i];
    const int64_t mat = os[nb] * os[nb + 1];
    std::vector<int64_t> idx(static_cast<size_t>(split), 0);
    for (int64_t o = 0; o < outer; ++o) {
      int64_t ao = a.offset(), bo = b.offset();
      for (int64_t i = 0; i < split; ++i) {
        ao += idx[i] * a.strides()[i];
        bo += idx[i] * b.strides()[i];
      }
      Tensor c3 = make_view(out, Shape{inner, os[nb], os[nb + 1]}, Strides{mat, os[nb + 1], 1}, out.offset() + o * inner * mat);
      cpu::gemm_batched(c3, batch_view(a, nb, split, ao), batch_view(b, nb, split, bo));
      for (int64_t i = split - 1; i >= 0 && ++idx[i] == os[i]; --i) idx[i] = 0;  // next index, last dim fastest
    }
    return {out};
  }
 public:  // graph mode
  std::optional<Params> attrs() const override { return Params{}; }
};
}  // namespace

// ---------------- matmul family ----------------
Tensor matmul(const Tensor& a0, const Tensor& b0) {
  TT_AUTOCAST("matmul", matmul, a0, b0);
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
  // float16, and bfloat16 without a bfloat16 GEMM, multiply in float32 and round back; bfloat16 on
  // a CPU whose BLAS has one goes in as it is (NOTE [ bfloat16 GEMM ] in cpu/gemm.cpp)
  bool half = is_half(dt) && !(dt == DType::BFloat16 && !on_cuda(a) && blas_has_bf16_gemm());
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
  TT_AUTOCAST("mm", mm, a, b);
  if (a.dim() != 2 || b.dim() != 2)
    shape_error("mm", {a.shape(), b.shape()}, {}, "mm expects 2-D tensors, got shapes " + shape_str(a.shape()) + " and " + shape_str(b.shape()));
  if (a.shape()[1] != b.shape()[0])
    shape_error("mm", {a.shape(), b.shape()}, {},
                "inner dimensions differ: " + std::to_string(a.shape()[1]) + " vs " + std::to_string(b.shape()[0]) +
                    "; shapes " + shape_str(a.shape()) + " @ " + shape_str(b.shape()));
  return matmul(a, b);
}

Tensor bmm(const Tensor& a, const Tensor& b) {
  TT_AUTOCAST("bmm", bmm, a, b);
  if (a.dim() != 3 || b.dim() != 3)
    shape_error("bmm", {a.shape(), b.shape()}, {}, "bmm expects 3-D tensors, got shapes " + shape_str(a.shape()) + " and " + shape_str(b.shape()));
  if (a.shape()[0] != b.shape()[0] || a.shape()[2] != b.shape()[1])
    shape_error("bmm", {a.shape(), b.shape()}, {},
                "shapes " + shape_str(a.shape()) + " and " + shape_str(b.shape()) + " cannot be multiplied batch-wise");
  return matmul(a, b);
}

// NOTE [ Linear with bias ]
// Eagerly, a CPU float linear layer with a bias is one primitive, as torch's addmm: the output
// prefilled with the bias rows, then the GEMM with beta = 1 accumulating into them (BLAS reads C
// as it writes it: no pass over the product afterwards; k = 0 leaves the bias). As matmul + add it
// wrote the product, then read it back and wrote a second buffer of the same size with the bias
// added: a [1024, 1024] layer paid 0.5-0.8 ms for a bias add next to a 5 ms GEMM, twice that for
// the second buffer's allocation and first touch. Its VJP is the one matmul + add had: g @ w, g^T @ x, and g summed over the rows, in
// differentiable ops (double backward works). Under a graph tracer linear stays matmul + add, so
// tt.compile sees (and may fuse) the two ops it knows.
namespace {
class LinearBias : public Primitive {
 public:
  const char* name() const override { return "linear"; }
  TypeList output_types(const TypeList& in) const override {  // x [m, k], w [n, k], b [n] -> [m, n]
    detail::TypeCheck c(name(), in);
    c.count(3);
    const DType dt = in[0].dtype;
    if (dt != DType::Float32 && dt != DType::Float64 && dt != DType::BFloat16)
      c.fail(std::string("needs float32, float64 or bfloat16, got ") + dtype_name(dt));
    c.same_dtype(0, 1);
    c.same_dtype(0, 2);
    const Shape &x = in[0].shape, &w = in[1].shape, &b = in[2].shape;
    if (x.size() != 2 || w.size() != 2 || b.size() != 1 || x[1] != w[1] || b[0] != w[0])
      c.fail("expects x [m, k], weight [n, k] and bias [n]");
    return {{Shape{x[0], w[0]}, in[0].dtype}};
  }
  TensorList eval_cpu(const TensorList& in) override {
    Tensor out = detail::alloc_output(*this, in);
    cpu::linear_bias(out, in[0], in[1], in[2]);
    return {out};
  }
  TensorList vjp(const TensorList& x, const TensorList& ct, const std::vector<int>& argnums, const TensorList&) override {
    // a cotangent BLAS cannot read in place (the expanded one of a mean(), say) is copied once here
    // rather than by each of the two GEMMs
    const Tensor& c = ct[0];
    const int64_t m = c.size(0), n = c.size(1);
    const bool blas_ok = (c.stride(1) == 1 && c.stride(0) >= n) || (c.stride(0) == 1 && c.stride(1) >= m);
    const Tensor g = blas_ok || argnums.size() < 2 ? c : contiguous(c);
    TensorList r;
    for (int i : argnums) {
      if (i == 0) r.push_back(matmul(g, x[1]));
      else if (i == 1) r.push_back(matmul(mT(g), x[0]));
      else r.push_back(reduce(ReduceOp::Sum, g, Dims{0}, false, std::nullopt));
    }
    return r;
  }
};

// The NOTE's fused path applies: a CPU float layer with a [out] bias, an input of 2 dims (any
// strides) or a contiguous one of more, and no tracer. Empty sizes are fine (k = 0: the bias).
bool fused_linear_applies(const Tensor& x, const Tensor& w, const Tensor& b) {
  const DType dt = x.dtype();
  const bool bf16 = dt == DType::BFloat16 && blas_has_bf16_gemm();  // NOTE [ bfloat16 GEMM ] in cpu/gemm.cpp
  if ((dt != DType::Float32 && dt != DType::Float64 && !bf16) || w.dtype() != dt || b.dtype() != dt) return false;
  if (x.dim() < 2 || w.dim() != 2 || b.dim() != 1 || b.size(0) != w.size(0)) return false;
  if (x.dim() > 2 && !x.is_contiguous()) return false;
  if (on_cuda(x) || on_cuda(w) || on_cuda(b) || default_device().type != DeviceType::CPU) return false;
  return current_tracer() == nullptr;
}

Tensor linear_fused(const Tensor& x, const Tensor& w, const Tensor& b) {
  const int64_t in = w.size(1);
  int64_t rows = 1;  // the leading dims' product (not numel / in: in may be 0)
  for (int64_t d = 0; d + 1 < x.dim(); ++d) rows *= x.size(d);
  Tensor r = apply1(std::make_shared<LinearBias>(), {x.dim() == 2 ? x : reshape(x, Shape{rows, in}), w, b});
  if (x.dim() == 2) return r;
  Shape os = x.shape();
  os[os.size() - 1] = w.size(0);
  return reshape(r, os);
}
}  // namespace

Tensor linear(const Tensor& x, const Tensor& w, const Tensor* b) {
  TT_AUTOCAST("linear", linear, x, w, b);
  if (w.dim() != 2 && w.dim() != 1)
    shape_error("linear", {x.shape(), w.shape()}, {}, "weight must be 1-D or 2-D, got " + shape_str(w.shape()));
  if (x.dim() == 0) shape_error("linear", {x.shape(), w.shape()}, {}, "input must be at least 1-D");
  int64_t in = w.shape()[w.dim() - 1];
  if (x.shape()[x.dim() - 1] != in)
    shape_error("linear", {x.shape(), w.shape()}, {},
                "input features " + std::to_string(x.shape()[x.dim() - 1]) + " (dim -1) vs weight in_features " +
                    std::to_string(in) + "; shapes " + shape_str(x.shape()) + " and " + shape_str(w.shape()));
  if (b && fused_linear_applies(x, w, *b)) return linear_fused(x, w, *b);
  const DType dt = x.dtype();
  const bool native_bf16 = dt == DType::BFloat16 && blas_has_bf16_gemm();
  if (b && is_half(dt) && !native_bf16 && w.dtype() == dt && b->dtype() == dt && !on_cuda(x) && !on_cuda(w) &&
      !on_cuda(*b)) {
    // float16, and bfloat16 without a bfloat16 GEMM: bias + product in float32, rounded once (as
    // torch's addmm), not the product rounded and then the sum. (A traced bfloat16 layer with the
    // bfloat16 GEMM stays matmul + add below, rounded twice: widening would trade its GEMM for a
    // float32 one several times slower.)
    Tensor wide_b = to_dtype(*b, DType::Float32);
    return to_dtype(linear(to_dtype(x, DType::Float32), to_dtype(w, DType::Float32), &wide_b), dt);
  }
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
  for (char c : con) {  // a size-1 subscript broadcasts against the other operand's, as in torch
    int64_t sa = size_of(a, c), sb = size_of(b, c);
    if (sa != sb && sa != 1 && sb != 1)
      shape_error("einsum", {a0.t.shape(), b0.t.shape()}, {},
                  std::string("subscript ") + c + " has size " + std::to_string(sa) + " in one operand and " +
                      std::to_string(sb) + " in another");
    C *= std::max(sa, sb);
  }
  Tensor ta = permute(a.t, perm_of(a, batch + left + con));
  Tensor tb = permute(b.t, perm_of(b, batch + con + right));
  Shape ea = bs, eb = bs;
  for (auto s : ls) ea.push_back(s);
  for (char c : con) {
    ea.push_back(std::max(size_of(a, c), size_of(b, c)));
    eb.push_back(std::max(size_of(a, c), size_of(b, c)));
  }
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
  TT_AUTOCAST("einsum", einsum, eq0, xs);
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
// ---------------- graph mode: rebuild a primitive from its name and attributes ----------------
std::shared_ptr<Primitive> detail::make_linalg_primitive(const std::string& name, const Params& attrs) {
  AttrReader r(name, attrs);
  if (name == "matmul") return std::make_shared<MatMul>();
  return nullptr;
}

}  // namespace tt
