// Reductions along dims (with keepdim), arg-reductions, variance, logsumexp, norms, scans, sort.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "typedtensor/autocast.h"
#include "../cpu/kernels.h"
#include "internal.h"
#include "typedtensor/op_info.h"
#include "typedtensor/device.h"

namespace tt {
using detail::dim_arg;
using detail::shape_error;

namespace {

const char* reduce_name(ReduceOp op) { return op_info(op).name; }

// Reduced dims as a sorted mask (empty/none = all dims).
std::vector<bool> reduce_mask(const char* op, const Tensor& a, const OptDims& dims) {
  std::vector<bool> m(static_cast<size_t>(a.dim()), !dims.has_value() || dims->empty());
  if (dims && !dims->empty()) {
    std::vector<bool> seen(static_cast<size_t>(std::max<int64_t>(a.dim(), 1)), false);  // a 0-d tensor takes dim 0
    for (auto d0 : *dims) {
      int64_t d = dim_arg(op, a, d0);
      if (seen[d]) shape_error(op, {a.shape()}, {{"dim", *dims}}, "dim " + std::to_string(d) + " appears multiple times in the list of dims");
      seen[d] = true;
      if (a.dim() > 0) m[d] = true;
    }
  }
  return m;
}

// Lays `a` out as contiguous [outer, r, inner] with the masked dims in the middle.
struct Layout {
  Tensor x;
  int64_t outer = 1, r = 1, inner = 1;
};

Layout layout_for(const Tensor& a, const std::vector<bool>& mask) {
  Layout L;
  int64_t nd = a.dim();
  int64_t first = -1, last = -1;
  for (int64_t i = 0; i < nd; ++i)
    if (mask[i]) {
      if (first < 0) first = i;
      last = i;
    }
  bool adjacent = true;
  for (int64_t i = first; i >= 0 && i <= last; ++i)
    if (!mask[i]) adjacent = false;
  if (first < 0) {  // nothing reduced (0-d input)
    L.x = contiguous(a);
    L.outer = a.numel();
    return L;
  }
  if (adjacent) {
    L.x = contiguous(a);
    for (int64_t i = 0; i < first; ++i) L.outer *= a.shape()[i];
    for (int64_t i = first; i <= last; ++i) L.r *= a.shape()[i];
    for (int64_t i = last + 1; i < nd; ++i) L.inner *= a.shape()[i];
  } else {
    Dims perm;
    for (int64_t i = 0; i < nd; ++i)
      if (!mask[i]) perm.push_back(i);
    for (int64_t i = 0; i < nd; ++i)
      if (mask[i]) {
        perm.push_back(i);
        L.r *= a.shape()[i];
      }
    L.x = contiguous(permute(a, perm));
    for (int64_t i = 0; i < nd; ++i)
      if (!mask[i]) L.outer *= a.shape()[i];
  }
  return L;
}

// A reduced tensor (keepdim or not) viewed with the reduced dims as size 1, then broadcast to `full`.
Tensor unreduce(const Tensor& t, const std::vector<bool>& mask, const Shape& full, bool keepdim) {
  Shape keep;
  for (size_t i = 0; i < full.size(); ++i) keep.push_back(mask[i] ? 1 : full[i]);
  Tensor r = keepdim ? t : reshape(t, keep);
  return expand(r, full);
}

// A masked reduction's output type: the input's dtype (the front end cast it to the compute dtype)
// over the reduced shape.
TypeList masked_reduction_types(const char* op, const TypeList& in, const std::vector<bool>& mask, bool keepdim,
                                bool real) {
  detail::TypeCheck c(op, in);
  c.count(1);
  if (mask.size() != in[0].shape.size()) c.fail("reduction mask does not match the input's rank");
  if (real) c.real(0);
  return {{detail::reduced_shape(in[0].shape, mask, keepdim), in[0].dtype}};
}

int64_t reduced_count(const std::vector<bool>& mask, const Shape& full) {
  int64_t n = 1;
  for (size_t i = 0; i < full.size(); ++i)
    if (mask[i]) n *= full[i];
  return n;
}

class Reduce : public Primitive {
 public:
  Reduce(ReduceOp op, std::vector<bool> mask, bool keepdim) : op_(op), mask_(std::move(mask)), keepdim_(keepdim) {}
  const char* name() const override { return reduce_name(op_); }
  TypeList output_types(const TypeList& in) const override {
    TypeList out = masked_reduction_types(name(), in, mask_, keepdim_, false);
    if ((op_ == ReduceOp::Max || op_ == ReduceOp::Min) && shape_numel(out[0].shape) > 0 &&
        reduced_count(mask_, in[0].shape) == 0)
      throw ValueError(std::string("[") + name() + "] expected reduction dim to have non-zero size");
    return out;
  }
  bool differentiable() const override { return op_info(op_).differentiable; }
  bool vjp_needs_inputs() const override { return op_ != ReduceOp::Sum && op_ != ReduceOp::Mean; }
  bool vjp_needs_outputs() const override { return op_ == ReduceOp::Prod || op_ == ReduceOp::Max || op_ == ReduceOp::Min; }
  TensorList vjp(const TensorList& x, const TensorList& ct, const std::vector<int>&, const TensorList& out) override {
    using namespace vjp;
    const Shape& full = x[0].shape();
    Tensor g = unreduce(ct[0], mask_, full, keepdim_);
    switch (op_) {
      case ReduceOp::Sum: return {g};
      case ReduceOp::Mean: return {mul(g, 1.0 / static_cast<double>(std::max<int64_t>(reduced_count(mask_, full), 1)))};
      case ReduceOp::NanSum: return {keep(unary(UnaryOp::LogicalNot, unary(UnaryOp::IsNan, x[0])), g)};
      case ReduceOp::Prod: {  // out / x (inputs are assumed nonzero)
        Tensor y = unreduce(out[0], mask_, full, keepdim_);
        return {mul(g, div(y, x[0]))};
      }
      default: {  // amax / amin: shared equally by the tied extremes, like torch
        Tensor y = unreduce(out[0], mask_, full, keepdim_);
        Tensor hit = as(binary(BinaryOp::Eq, x[0], y), g);
        Dims dims;
        for (size_t i = 0; i < full.size(); ++i)
          if (mask_[i]) dims.push_back(static_cast<int64_t>(i));
        Tensor count = dims.empty() ? hit : sum_keep(hit, dims);
        return {div(mul(g, hit), expand(count, full))};
      }
    }
  }
  TensorList eval_cpu(const TensorList& in) override {
    Tensor out = detail::alloc_output(*this, in);
    Layout L = layout_for(in[0], mask_);
    if (out.numel() > 0) cpu::reduce(op_, out, L.x, L.outer, L.r, L.inner);
    return {out};
  }

 private:
  ReduceOp op_;
  std::vector<bool> mask_;
  bool keepdim_;
 public:  // graph mode
  std::optional<Params> attrs() const override { return Params{{"mask", detail::mask_attr(mask_)}, {"keepdim", keepdim_}}; }
};

class ArgReduce : public Primitive {
 public:
  ArgReduce(bool is_max, int64_t dim, bool keepdim, bool values) : is_max_(is_max), dim_(dim), keepdim_(keepdim), values_(values) {}
  const char* name() const override { return is_max_ ? (values_ ? "max" : "argmax") : (values_ ? "min" : "argmin"); }
  TypeList output_types(const TypeList& in) const override {  // (values,) indices
    detail::TypeCheck c(name(), in);
    c.count(1);
    const Shape& a = in[0].shape;
    c.dim(dim_, a.size());
    if (!a.empty() && a[dim_] == 0)
      throw ValueError(std::string("[") + name() + "] expected reduction dim " + std::to_string(dim_) + " to have non-zero size");
    std::vector<bool> mask(a.size(), false);
    if (!a.empty()) mask[dim_] = true;
    Shape s = detail::reduced_shape(a, mask, keepdim_);
    if (values_) return {{s, in[0].dtype}, {s, DType::Int64}};
    return {{s, DType::Int64}};
  }
  bool differentiable() const override { return values_; }
  bool vjp_needs_inputs() const override { return false; }
  bool vjp_needs_outputs() const override { return true; }
  TensorList vjp(const TensorList& x, const TensorList& ct, const std::vector<int>&, const TensorList& out) override {
    // the value's gradient goes to the position of the chosen index
    if (!ct[0].defined()) return {Tensor()};
    const Shape& full = x[0].shape();
    if (full.empty()) return {reshape(ct[0], full)};
    Tensor g = ct[0], idx = out[1];
    if (!keepdim_) {
      g = unsqueeze(g, dim_);
      idx = unsqueeze(idx, dim_);
    }
    return {scatter(zeros(full, g.dtype()), dim_, idx, g, "")};
  }
  TensorList eval_cpu(const TensorList& in) override {
    const Tensor& a = in[0];
    std::vector<bool> mask(static_cast<size_t>(a.dim()), false);
    if (a.dim() > 0) mask[dim_] = true;
    TensorList outs = detail::alloc_outputs(*this, in);
    Layout L = layout_for(a, mask);
    Tensor idx = outs.back();
    Tensor val = values_ ? outs[0] : Tensor();
    if (idx.numel() > 0) cpu::arg_reduce(is_max_, val, idx, L.x, L.outer, L.r, L.inner);
    if (values_) return {val, idx};
    return {idx};
  }

 private:
  bool is_max_;
  int64_t dim_;
  bool keepdim_, values_;
 public:  // graph mode
  std::optional<Params> attrs() const override { return Params{{"dim", dim_}, {"keepdim", keepdim_}}; }
};

class Variance : public Primitive {
 public:
  Variance(std::vector<bool> mask, double corr, bool keepdim, bool sd) : mask_(std::move(mask)), corr_(corr), keepdim_(keepdim), sd_(sd) {}
  const char* name() const override { return sd_ ? "std" : "var"; }
  TypeList output_types(const TypeList& in) const override { return masked_reduction_types(name(), in, mask_, keepdim_, true); }
  bool vjp_needs_outputs() const override { return sd_; }
  TensorList vjp(const TensorList& x, const TensorList& ct, const std::vector<int>&, const TensorList& out) override {
    // var: g * 2 (x - mean) / (N - correction); std: that / (2 std)
    using namespace vjp;
    const Shape& full = x[0].shape();
    Dims dims;
    for (size_t i = 0; i < full.size(); ++i)
      if (mask_[i]) dims.push_back(static_cast<int64_t>(i));
    Tensor mean = dims.empty() ? x[0] : reduce(ReduceOp::Mean, x[0], dims, true, std::nullopt);
    double denom = static_cast<double>(reduced_count(mask_, full)) - corr_;
    Tensor g = unreduce(ct[0], mask_, full, keepdim_);
    Tensor d = mul(sub(x[0], mean), (sd_ ? 1.0 : 2.0) / denom);
    if (sd_) d = div(d, unreduce(out[0], mask_, full, keepdim_));
    return {mul(g, d)};
  }
  TensorList eval_cpu(const TensorList& in) override {
    Tensor out = detail::alloc_output(*this, in);
    Layout L = layout_for(in[0], mask_);
    if (out.numel() > 0) cpu::variance(out, L.x, L.outer, L.r, L.inner, corr_, sd_);
    return {out};
  }

 private:
  std::vector<bool> mask_;
  double corr_;
  bool keepdim_, sd_;
 public:  // graph mode
  std::optional<Params> attrs() const override { return Params{{"mask", detail::mask_attr(mask_)}, {"correction", corr_}, {"keepdim", keepdim_}}; }
};

// The 2-norm as one primitive: a single pass over the input (sum of squares in double lanes, then
// sqrt) instead of square, sum and sqrt -- two full-size temporaries and three passes.
class Norm2 : public Primitive {
 public:
  Norm2(std::vector<bool> mask, bool keepdim) : mask_(std::move(mask)), keepdim_(keepdim) {}
  const char* name() const override { return "norm2"; }
  TypeList output_types(const TypeList& in) const override { return masked_reduction_types(name(), in, mask_, keepdim_, true); }
  bool vjp_needs_outputs() const override { return true; }
  TensorList vjp(const TensorList& x, const TensorList& ct, const std::vector<int>&, const TensorList& out) override {
    // g * x / |x|, and 0 where the norm is 0 (a subgradient, as torch picks)
    using namespace vjp;
    const Shape& full = x[0].shape();
    Tensor g = unreduce(ct[0], mask_, full, keepdim_);
    Tensor y = unreduce(out[0], mask_, full, keepdim_);
    return {keep(cmp(BinaryOp::Ne, y, 0.0), div(mul(g, x[0]), y))};
  }
  TensorList eval_cpu(const TensorList& in) override {
    Tensor out = detail::alloc_output(*this, in);
    Layout L = layout_for(in[0], mask_);
    if (out.numel() > 0) cpu::norm2(out, L.x, L.outer, L.r, L.inner);
    return {out};
  }
  TensorList eval_cuda(const TensorList& in) override {  // no CUDA kernel of its own: square, sum, sqrt there
    Dims dims;
    for (size_t i = 0; i < mask_.size(); ++i)
      if (mask_[i]) dims.push_back(static_cast<int64_t>(i));
    Tensor s = reduce(ReduceOp::Sum, unary(UnaryOp::Square, in[0]), dims, keepdim_, std::nullopt);
    return {unary(UnaryOp::Sqrt, s)};
  }

 private:
  std::vector<bool> mask_;
  bool keepdim_;
 public:  // graph mode
  std::optional<Params> attrs() const override { return Params{{"mask", detail::mask_attr(mask_)}, {"keepdim", keepdim_}}; }
};

class LogSumExp : public Primitive {
 public:
  LogSumExp(std::vector<bool> mask, bool keepdim) : mask_(std::move(mask)), keepdim_(keepdim) {}
  const char* name() const override { return "logsumexp"; }
  TypeList output_types(const TypeList& in) const override { return masked_reduction_types(name(), in, mask_, keepdim_, true); }
  bool vjp_needs_outputs() const override { return true; }
  TensorList vjp(const TensorList& x, const TensorList& ct, const std::vector<int>&, const TensorList& out) override {
    const Shape& full = x[0].shape();
    Tensor p = unary(UnaryOp::Exp, vjp::sub(x[0], unreduce(out[0], mask_, full, keepdim_)));
    return {vjp::mul(unreduce(ct[0], mask_, full, keepdim_), p)};
  }
  TensorList eval_cpu(const TensorList& in) override {
    Tensor out = detail::alloc_output(*this, in);
    Layout L = layout_for(in[0], mask_);
    if (out.numel() > 0) cpu::logsumexp(out, L.x, L.outer, L.r, L.inner);
    return {out};
  }

 private:
  std::vector<bool> mask_;
  bool keepdim_;
 public:  // graph mode
  std::optional<Params> attrs() const override { return Params{{"mask", detail::mask_attr(mask_)}, {"keepdim", keepdim_}}; }
};

class Scan : public Primitive {
 public:
  Scan(int64_t dim, bool prod) : dim_(dim), prod_(prod) {}
  const char* name() const override { return prod_ ? "cumprod" : "cumsum"; }
  TypeList output_types(const TypeList& in) const override {
    detail::TypeCheck c(name(), in);
    c.count(1);
    c.dim(dim_, in[0].shape.size());
    return {in[0]};
  }
  bool vjp_needs_inputs() const override { return prod_; }
  bool vjp_needs_outputs() const override { return prod_; }
  TensorList vjp(const TensorList& x, const TensorList& ct, const std::vector<int>&, const TensorList& out) override {
    // reverse cumulative sum: r_i = sum_{j >= i} h_j = total - cumsum_i + h_i
    using namespace vjp;
    Tensor h = prod_ ? mul(ct[0], out[0]) : ct[0];
    if (x[0].dim() == 0) return {prod_ ? div(h, x[0]) : h};
    Tensor total = sum_keep(h, Dims{dim_});
    Tensor r = add(sub(expand(total, h.shape()), cumsum(h, dim_, std::nullopt)), h);
    return {prod_ ? div(r, x[0]) : r};  // cumprod: inputs are assumed nonzero
  }
  TensorList eval_cpu(const TensorList& in) override {
    Tensor x = contiguous(in[0]);
    int64_t outer, r, inner;
    detail::split_at(x.shape(), dim_, &outer, &r, &inner);
    Tensor out = detail::alloc_output(*this, in);
    if (out.numel() > 0) cpu::cumulative(prod_, out, x, outer, r, inner);
    return {out};
  }

 private:
  int64_t dim_;
  bool prod_;
 public:  // graph mode
  std::optional<Params> attrs() const override { return Params{{"dim", dim_}}; }
};

DType float_compute(const char* op, DType d) {
  if (!is_floating(d)) throw TypeError(std::string("[") + op + "] could not infer output dtype: input dtype must be floating point, got " + dtype_name(d));
  return is_half(d) ? DType::Float32 : d;
}

}  // namespace

Tensor reduce(ReduceOp op, const Tensor& a, const OptDims& dims, bool keepdim, std::optional<DType> dtype) {
  if (op == ReduceOp::Prod) TT_AUTOCAST("prod", reduce, op, a, dims, keepdim, dtype);
  const char* name = reduce_name(op);
  auto mask = reduce_mask(name, a, dims);
  DType in = dtype ? *dtype : a.dtype();
  DType compute = in, result = in;
  switch (op) {
    case ReduceOp::Sum:
    case ReduceOp::Prod:
    case ReduceOp::NanSum:
      if (!dtype && !is_floating(in)) compute = result = DType::Int64;
      break;
    case ReduceOp::Mean:
      compute = float_compute("mean", in);
      break;
    case ReduceOp::All:
    case ReduceOp::Any:
      compute = DType::Bool;
      result = in == DType::UInt8 ? DType::UInt8 : DType::Bool;  // torch keeps uint8 (its pre-bool form)
      break;
    default:
      break;
  }
  if (is_half(compute)) compute = DType::Float32;
  Tensor x = detail::cast(a, compute);
  Tensor out = apply1(std::make_shared<Reduce>(op, mask, keepdim), {x});
  return detail::cast(out, result);
}

std::pair<Tensor, Tensor> max_dim(const Tensor& a, int64_t dim, bool keepdim) {
  int64_t d = dim_arg("max", a, dim);
  Tensor x = is_half(a.dtype()) ? to_dtype(a, DType::Float32) : a;
  TensorList r = apply(std::make_shared<ArgReduce>(true, d, keepdim, true), {x});
  return {detail::cast(r[0], a.dtype()), r[1]};
}

std::pair<Tensor, Tensor> min_dim(const Tensor& a, int64_t dim, bool keepdim) {
  int64_t d = dim_arg("min", a, dim);
  Tensor x = is_half(a.dtype()) ? to_dtype(a, DType::Float32) : a;
  TensorList r = apply(std::make_shared<ArgReduce>(false, d, keepdim, true), {x});
  return {detail::cast(r[0], a.dtype()), r[1]};
}

static Tensor arg_common(bool is_max, const Tensor& a, std::optional<int64_t> dim, bool keepdim) {
  Tensor x = is_half(a.dtype()) ? to_dtype(a, DType::Float32) : a;
  if (!dim) {
    if (a.numel() == 0) throw ValueError(std::string("[") + (is_max ? "argmax" : "argmin") + "] expected a non-empty tensor");
    Tensor r = apply1(std::make_shared<ArgReduce>(is_max, 0, false, false), {reshape(x, Shape{x.numel()})});
    if (keepdim) return reshape(r, Shape(static_cast<size_t>(a.dim()), 1));
    return r;
  }
  int64_t d = dim_arg(is_max ? "argmax" : "argmin", a, *dim);
  return apply1(std::make_shared<ArgReduce>(is_max, d, keepdim, false), {x});
}

Tensor argmax(const Tensor& a, std::optional<int64_t> dim, bool keepdim) { return arg_common(true, a, dim, keepdim); }
Tensor argmin(const Tensor& a, std::optional<int64_t> dim, bool keepdim) { return arg_common(false, a, dim, keepdim); }

static Tensor var_common(bool sd, const Tensor& a, const OptDims& dims, double correction, bool keepdim) {
  const char* name = sd ? "std" : "var";
  auto mask = reduce_mask(name, a, dims);
  DType c = float_compute(name, a.dtype());
  Tensor out = apply1(std::make_shared<Variance>(mask, correction, keepdim, sd), {detail::cast(a, c)});
  return detail::cast(out, a.dtype());
}

Tensor var(const Tensor& a, const OptDims& dims, double correction, bool keepdim) { return var_common(false, a, dims, correction, keepdim); }
Tensor std_(const Tensor& a, const OptDims& dims, double correction, bool keepdim) { return var_common(true, a, dims, correction, keepdim); }

Tensor logsumexp(const Tensor& a, const Dims& dims, bool keepdim) {
  TT_AUTOCAST("logsumexp", logsumexp, a, dims, keepdim);
  auto mask = reduce_mask("logsumexp", a, dims);
  DType d = is_floating(a.dtype()) ? a.dtype() : kDefaultFloat;
  Tensor x = detail::cast(a, is_half(d) ? DType::Float32 : d);
  Tensor out = apply1(std::make_shared<LogSumExp>(mask, keepdim), {x});
  return detail::cast(out, d);
}

Tensor norm(const Tensor& a, double p, const OptDims& dims, bool keepdim) {
  if (!is_floating(a.dtype())) throw TypeError(std::string("[norm] expected a floating point tensor, got ") + dtype_name(a.dtype()));
  if (p == 2) {
    auto mask = reduce_mask("norm", a, dims);
    Tensor x = detail::cast(a, is_half(a.dtype()) ? DType::Float32 : a.dtype());
    return detail::cast(apply1(std::make_shared<Norm2>(mask, keepdim), {x}), a.dtype());
  }
  Tensor ab = unary(UnaryOp::Abs, a);
  if (p == 1) return reduce(ReduceOp::Sum, ab, dims, keepdim, std::nullopt);
  if (std::isinf(p)) return reduce(p > 0 ? ReduceOp::Max : ReduceOp::Min, ab, dims, keepdim, std::nullopt);
  if (p == 0) return reduce(ReduceOp::Sum, to_dtype(binary(BinaryOp::Ne, a, Scalar::from_int(0)), a.dtype()), dims, keepdim, std::nullopt);
  Tensor s = reduce(ReduceOp::Sum, binary(BinaryOp::Pow, ab, Scalar::from_double(p)), dims, keepdim, std::nullopt);
  return binary(BinaryOp::Pow, s, Scalar::from_double(1.0 / p));
}

static Tensor scan(bool prod, const Tensor& a, int64_t dim, std::optional<DType> dtype) {
  int64_t d = dim_arg(prod ? "cumprod" : "cumsum", a, dim);
  DType dt = dtype ? *dtype : (is_floating(a.dtype()) ? a.dtype() : DType::Int64);
  Tensor x = detail::cast(a, is_half(dt) ? DType::Float32 : dt);
  Tensor out = apply1(std::make_shared<Scan>(a.dim() == 0 ? 0 : d, prod), {x});
  return detail::cast(out, dt);
}
Tensor cumsum(const Tensor& a, int64_t dim, std::optional<DType> dtype) { return scan(false, a, dim, dtype); }
Tensor cumprod(const Tensor& a, int64_t dim, std::optional<DType> dtype) { return scan(true, a, dim, dtype); }

std::pair<Tensor, Tensor> sort(const Tensor& a, int64_t dim, bool descending) {
  int64_t d = dim_arg("sort", a, dim);
  if (on_cuda(a)) {  // host pass: no CUDA sort kernel yet
    auto [v, i] = sort(host(a), d, descending);
    return {to_device(v, a.device()), to_device(i, a.device())};
  }
  Tensor x = contiguous(is_half(a.dtype()) ? to_dtype(a, DType::Float32) : a);
  int64_t outer, r, inner;
  detail::split_at(x.shape(), a.dim() == 0 ? 0 : d, &outer, &r, &inner);
  Tensor vals = empty(x.shape(), x.dtype()), idx = empty(x.shape(), DType::Int64);
  visit_dtype(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
      throw TypeError("[sort] unsupported dtype");
    } else {
      const T* src = x.data<T>();
      T* v = vals.data<T>();
      int64_t* ix = idx.data<int64_t>();
      std::vector<int64_t> order(static_cast<size_t>(r));
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t i = 0; i < inner; ++i) {
          const T* base = src + o * r * inner + i;
          std::iota(order.begin(), order.end(), 0);
          auto key_less = [&](int64_t p, int64_t q) {
            T a1 = base[p * inner], b1 = base[q * inner];
            if constexpr (std::is_floating_point_v<T>) {
              bool na = a1 != a1, nb = b1 != b1;  // NaN sorts as the largest value
              if (na || nb) return descending ? (na && !nb) : (!na && nb);
            }
            return descending ? a1 > b1 : a1 < b1;
          };
          std::stable_sort(order.begin(), order.end(), key_less);
          for (int64_t j = 0; j < r; ++j) {
            v[o * r * inner + j * inner + i] = base[order[j] * inner];
            ix[o * r * inner + j * inner + i] = order[j];
          }
        }
    }
  });
  if (grad_mode_enabled() && a.requires_grad() && a.dim() > 0)  // recorded: values = gather(a, idx)
    return {gather(a, d, idx), idx};
  return {detail::cast(vals, a.dtype()), idx};
}

std::pair<Tensor, Tensor> topk(const Tensor& a, int64_t k, int64_t dim, bool largest, bool) {
  int64_t d = dim_arg("topk", a, dim);
  int64_t n = a.dim() == 0 ? 1 : a.shape()[d];
  if (k < 0 || k > n)
    shape_error("topk", {a.shape()}, {{"k", k}, {"dim", dim}}, "selected index k out of range");
  auto [v, i] = sort(a, d, largest);
  return {slice(v, d, 0, k, 1), slice(i, d, 0, k, 1)};
}

// ---------------- graph mode: rebuild a primitive from its name and attributes ----------------
std::shared_ptr<Primitive> detail::make_reduce_primitive(const std::string& name, const Params& attrs) {
  AttrReader r(name, attrs);
  if (auto op = reduce_op_named(name)) return std::make_shared<Reduce>(*op, r.mask("mask"), r.b("keepdim"));
  if (name == "max" || name == "min" || name == "argmax" || name == "argmin")
    return std::make_shared<ArgReduce>(name == "max" || name == "argmax", r.i("dim"), r.b("keepdim"),
                                       name == "max" || name == "min");
  if (name == "var" || name == "std")
    return std::make_shared<Variance>(r.mask("mask"), r.f("correction"), r.b("keepdim"), name == "std");
  if (name == "logsumexp") return std::make_shared<LogSumExp>(r.mask("mask"), r.b("keepdim"));
  if (name == "norm2") return std::make_shared<Norm2>(r.mask("mask"), r.b("keepdim"));
  if (name == "cumsum" || name == "cumprod") return std::make_shared<Scan>(r.i("dim"), name == "cumprod");
  return nullptr;
}

}  // namespace tt
