// Views (share storage), shape manipulation, joining and splitting.
#include <algorithm>
#include <cstring>
#include <functional>
#include <limits>
#include <numeric>

#include "typedtensor/autocast.h"
#include "../cpu/kernels.h"
#include "internal.h"
#include "typedtensor/checked.h"

namespace tt {
using detail::dim_arg;
using detail::shape_error;

namespace {

// Elements of `t`'s dtype that fit in its storage (the bound a strided view must stay under).
int64_t storage_elements(const Tensor& t) { return static_cast<int64_t>(t.storage()->nbytes / t.itemsize()); }

// Strides for viewing (shape, strides) as new_shape without a copy, or false (torch's computeStride).
bool compute_view_strides(const Shape& old_shape, const Strides& old_strides, const Shape& new_shape, Strides* out) {
  int64_t numel = 1;
  for (auto s : old_shape) numel *= s;
  if (old_shape.empty()) {
    *out = Strides(new_shape.size(), 1);
    return true;
  }
  if (numel == 0) {
    *out = contiguous_strides(new_shape);
    return true;
  }
  Strides ns(new_shape.size(), 0);
  int64_t view_d = static_cast<int64_t>(new_shape.size()) - 1;
  int64_t chunk_base_stride = old_strides.back();
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t td = static_cast<int64_t>(old_shape.size()) - 1; td >= 0; --td) {
    tensor_numel *= old_shape[td];
    if (td == 0 || (old_shape[td - 1] != 1 && old_strides[td - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || new_shape[view_d] == 1)) {
        ns[view_d] = view_numel * chunk_base_stride;
        view_numel *= new_shape[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return false;
      if (td > 0) {
        chunk_base_stride = old_strides[td - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  if (view_d != -1) return false;
  *out = ns;
  return true;
}

Shape infer_shape(const char* op, const Tensor& a, const Shape& shape) {
  int64_t numel = a.numel(), known = 1, infer = -1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      if (infer >= 0) shape_error(op, {a.shape()}, {{"shape", shape.vec()}}, "only one dimension can be inferred");
      infer = static_cast<int64_t>(i);
    } else if (shape[i] < 0) {
      throw ValueError(std::string("[") + op + "] invalid shape dimension " + std::to_string(shape[i]));
    } else {
      known *= shape[i];
    }
  }
  Shape out = shape;
  if (infer >= 0) {
    if (known == 0 || numel % known != 0)
      shape_error(op, {a.shape()}, {{"shape", shape.vec()}},
                  "shape '" + shape_str(shape) + "' is invalid for input of size " + std::to_string(numel));
    out[infer] = numel / known;
  } else if (known != numel) {
    shape_error(op, {a.shape()}, {{"shape", shape.vec()}},
                "shape '" + shape_str(shape) + "' is invalid for input of size " + std::to_string(numel));
  }
  return out;
}

class Reshape : public Primitive {
 public:
  explicit Reshape(Shape s) : shape_(std::move(s)) {}
  const char* name() const override { return "reshape"; }
  TypeList output_types(const TypeList& in) const override {
    detail::TypeCheck c(name(), in);
    c.count(1);
    if (shape_numel(shape_) != shape_numel(in[0].shape)) c.fail("reshape changes the number of elements");
    return {{shape_, in[0].dtype}};
  }
  const Shape& shape() const { return shape_; }
  bool is_view() const override { return true; }
  bool vjp_needs_inputs() const override { return false; }
  TensorList vjp(const TensorList& x, const TensorList& ct, const std::vector<int>&, const TensorList&) override {
    return {reshape(ct[0], x[0].shape())};
  }
  TensorList eval_cpu(const TensorList& in) override {
    Strides st;
    if (compute_view_strides(in[0].shape(), in[0].strides(), shape_, &st))
      return {make_view(in[0], shape_, st, in[0].offset())};
    Tensor c = empty(in[0].shape(), in[0].dtype());
    cpu::copy(c, in[0]);
    return {make_view(c, shape_, contiguous_strides(shape_), 0)};
  }

 private:
  Shape shape_;
 public:  // graph mode
  std::optional<Params> attrs() const override { return Params{{"shape", shape_.vec()}}; }
};

class Expand : public Primitive {
 public:
  explicit Expand(Shape s) : shape_(std::move(s)) {}
  const char* name() const override { return "expand"; }
  TypeList output_types(const TypeList& in) const override {
    detail::TypeCheck c(name(), in);
    c.count(1);
    const Shape& a = in[0].shape;
    shape_numel(shape_);  // no negative size
    if (a.size() > shape_.size()) c.fail("more input dims than the shape has");
    size_t k = shape_.size() - a.size();
    for (size_t i = 0; i < a.size(); ++i)
      if (a[i] != shape_[k + i] && a[i] != 1) c.fail("input " + shape_str(a) + " does not broadcast to " + shape_str(shape_));
    return {{shape_, in[0].dtype}};
  }
  bool is_view() const override { return true; }
  bool vjp_needs_inputs() const override { return false; }
  // NOTE [ Sum back to shape ]: front-end ops broadcast only through Expand, so this is the one
  // place where a gradient is summed over broadcast dims.
  TensorList vjp(const TensorList& x, const TensorList& ct, const std::vector<int>&, const TensorList&) override {
    const Shape& in = x[0].shape();
    const Tensor& g = ct[0];
    size_t n = g.shape().size(), k = in.size();
    Dims dims;
    for (size_t j = 0; j < n; ++j)
      if (j < n - k || (in[j - (n - k)] == 1 && g.shape()[j] != 1)) dims.push_back(static_cast<int64_t>(j));
    Tensor r = dims.empty() ? g : reduce(ReduceOp::Sum, g, dims, true, std::nullopt);
    return {reshape(r, in)};
  }
  TensorList eval_cpu(const TensorList& in) override {
    const Tensor& a = in[0];
    size_t n = shape_.size(), k = a.shape().size();
    Strides st(n, 0);
    for (size_t i = 0; i < k; ++i) {
      size_t j = n - k + i;
      st[j] = a.shape()[i] == shape_[j] ? a.strides()[i] : 0;
    }
    return {make_view(a, shape_, st, a.offset())};
  }

 private:
  Shape shape_;
 public:  // graph mode
  std::optional<Params> attrs() const override { return Params{{"shape", shape_.vec()}}; }
};

class Permute : public Primitive {
 public:
  explicit Permute(Dims d) : dims_(std::move(d)) {}
  const char* name() const override { return "permute"; }
  TypeList output_types(const TypeList& in) const override {
    detail::TypeCheck c(name(), in);
    c.count(1);
    const Shape& a = in[0].shape;
    if (dims_.size() != a.size()) c.fail("permutation rank");
    std::vector<bool> seen(dims_.size(), false);
    for (int64_t k : dims_) {
      if (k < 0 || k >= static_cast<int64_t>(dims_.size()) || seen[k]) c.fail("not a permutation");
      seen[k] = true;
    }
    return {{permuted(a), in[0].dtype}};
  }
  Shape permuted(const Shape& a) const {
    Shape s(dims_.size());
    for (size_t i = 0; i < dims_.size(); ++i) s[i] = a[dims_[i]];
    return s;
  }
  const Dims& dims() const { return dims_; }
  bool is_view() const override { return true; }
  bool vjp_needs_inputs() const override { return false; }
  TensorList vjp(const TensorList&, const TensorList& ct, const std::vector<int>&, const TensorList&) override {
    Dims inv(dims_.size());
    for (size_t i = 0; i < dims_.size(); ++i) inv[dims_[i]] = static_cast<int64_t>(i);
    return {permute(ct[0], inv)};
  }
  TensorList eval_cpu(const TensorList& in) override {
    const Tensor& a = in[0];
    Strides st(dims_.size());
    for (size_t i = 0; i < dims_.size(); ++i) st[i] = a.strides()[dims_[i]];
    return {make_view(a, permuted(a.shape()), st, a.offset())};
  }

 private:
  Dims dims_;
 public:  // graph mode
  std::optional<Params> attrs() const override { return Params{{"dims", dims_}}; }
};

// The same view taken of another tensor of the input's shape (through the front-end function).
using Reapply = std::function<Tensor(const Tensor&)>;

// Gradient of a strided view: zeros of the input's shape with the view's region set to g.
class ViewScatter : public Primitive {
 public:
  // view: the view's shape, s: the input's
  ViewScatter(const char* name, Reapply f, Shape view, Shape s)
      : name_(name), reapply_(std::move(f)), view_(std::move(view)), shape_(std::move(s)) {}
  const char* name() const override { return name_; }
  TypeList output_types(const TypeList& in) const override {  // the view's region is checked on the storage per run
    detail::TypeCheck c(name(), in);
    c.count(1);
    c.shape(0, view_, "gradient");
    shape_numel(shape_);
    return {{shape_, in[0].dtype}};
  }
  bool vjp_needs_inputs() const override { return false; }
  TensorList eval_cpu(const TensorList& in) override {
    const TensorType t = output_types(types_of(in))[0];
    Tensor out = zeros(t.shape, t.dtype);
    Tensor v = reapply_(out);
    if (v.numel() > 0) cpu::copy(v, in[0]);
    return {out};
  }
  TensorList vjp(const TensorList&, const TensorList& ct, const std::vector<int>&, const TensorList&) override {
    return {reapply_(ct[0])};
  }

 private:
  const char* name_;
  Reapply reapply_;
  Shape view_, shape_;
 public:  // graph mode: the view's geometry on a contiguous tensor of the input's shape (a probe view)
  std::optional<Params> attrs() const override {
    struct NoTrace {  // the probe is not part of any traced program
      Tracer* prev = set_tracer(nullptr);
      ~NoTrace() { set_tracer(prev); }
    } no_trace;
    Tensor v = reapply_(empty(shape_, DType::UInt8));
    return Params{{"in_shape", shape_.vec()}, {"shape", v.shape().vec()}, {"strides", v.strides().vec()}, {"offset", v.offset()}};
  }
};

// A general strided view relative to the input's own geometry (slices, select, diagonal, ...).
class StridedView : public Primitive {
 public:
  StridedView(const char* name, Shape s, Strides st, int64_t extra_offset, Reapply f)
      : name_(name), shape_(std::move(s)), strides_(std::move(st)), offset_(extra_offset), reapply_(std::move(f)) {}
  const char* name() const override { return name_; }
  TypeList output_types(const TypeList& in) const override {  // bounds are checked on the storage per run
    detail::TypeCheck c(name(), in);
    c.count(1);
    shape_numel(shape_);
    if (strides_.size() != shape_.size() || offset_ < 0) c.fail("view geometry");
    for (int64_t x : strides_)
      if (x < 0) c.fail("negative stride");
    return {{shape_, in[0].dtype}};
  }
  bool is_view() const override { return true; }
  bool vjp_needs_inputs() const override { return false; }
  TensorList eval_cpu(const TensorList& in) override {
    // the geometry may come from a loaded graph file: every element must lie in the input's storage
    int64_t start;
    if (!checked::add(in[0].offset(), offset_, &start) ||
        !checked::view_in_bounds(shape_.data(), strides_.data(), shape_.size(), start, storage_elements(in[0])))
      throw ValueError(std::string("[") + name_ + "] the view reaches outside its input's storage");
    return {make_view(in[0], shape_, strides_, start)};
  }
  TensorList vjp(const TensorList& x, const TensorList& ct, const std::vector<int>&, const TensorList&) override {
    if (std::string(name_) == "as_strided" && x[0].strides() != contiguous_strides(x[0].shape()))
      throw NotImplementedError("[as_strided] backward needs a contiguous input");
    return {apply1(std::make_shared<ViewScatter>(backward_name(), reapply_, shape_, x[0].shape()), {ct[0]})};
  }
  // The cotangent added straight into the view's region of the input's gradient: the chunks of a
  // QKV projection then cost one strided add each instead of a zero-filled full-size tensor each
  // plus a full-size sum. as_strided views may overlap themselves: they keep the vjp.
  bool vjp_accumulate(const Tensor& ct, const Shape& in, Tensor& acc) override {
    if (std::string(name_) == "as_strided" || ct.shape() != shape_) return false;
    if (!acc.defined()) {
      acc = zeros(in, ct.dtype());
      Tensor v = reapply_(acc);
      if (v.numel() > 0) cpu::copy(v, ct);
      return true;
    }
    Tensor v = reapply_(acc);
    if (v.numel() > 0) binary_(BinaryOp::Add, v, ct);
    return true;
  }

 private:
  const char* backward_name() const {
    std::string n = name_;
    return n == "slice" ? "slice_backward" : n == "select" ? "select_backward" : n == "diagonal" ? "diagonal_backward"
                                                                                                  : "as_strided_backward";
  }
  const char* name_;
  Shape shape_;
  Strides strides_;
  int64_t offset_;
  Reapply reapply_;
 public:  // graph mode
  std::optional<Params> attrs() const override { return Params{{"shape", shape_.vec()}, {"strides", strides_.vec()}, {"offset", offset_}}; }
};

class Flip : public Primitive {
 public:
  explicit Flip(Dims d) : dims_(std::move(d)) {}
  const char* name() const override { return "flip"; }
  TypeList output_types(const TypeList& in) const override {
    detail::TypeCheck c(name(), in);
    c.count(1);
    std::vector<bool> seen(std::max<size_t>(in[0].shape.size(), 1), false);
    for (int64_t d : dims_) {
      c.dim(d, in[0].shape.size());
      if (seen[d]) c.fail("dims");
      seen[d] = true;
    }
    return {in[0]};
  }
  bool vjp_needs_inputs() const override { return false; }
  TensorList eval_cpu(const TensorList& in) override {
    const Tensor& a = in[0];
    const TensorType t = output_types(types_of(in))[0];
    Tensor out = empty(t.shape, t.dtype, a.device());
    if (a.numel() == 0) return {out};
    Strides st = a.strides();
    int64_t off = a.offset();
    for (auto d : dims_) {
      if (a.dim() == 0 && d == 0) continue;  // 0-d: nothing to flip
      if (d < 0 || d >= a.dim()) throw ValueError("[flip] dim " + std::to_string(d) + " out of range");  // a loaded graph
      if (a.shape()[d] > 0) off += (a.shape()[d] - 1) * st[d];
      st[d] = -st[d];
    }
    cpu::copy(out, make_view(a, a.shape(), st, off));
    return {out};
  }
  TensorList vjp(const TensorList&, const TensorList& ct, const std::vector<int>&, const TensorList&) override {
    return {flip(ct[0], dims_)};
  }

 private:
  Dims dims_;
 public:  // graph mode
  std::optional<Params> attrs() const override { return Params{{"dims", dims_}}; }
};

class Cat : public Primitive {
 public:
  explicit Cat(int64_t d) : dim_(d) {}
  const char* name() const override { return "cat"; }
  TypeList output_types(const TypeList& in) const override {
    detail::TypeCheck c(name(), in);
    if (in.empty()) c.fail("no inputs");
    const Shape& a = c[0].shape;
    if (dim_ < 0 || dim_ >= static_cast<int64_t>(a.size())) c.fail("dim out of range");
    Shape want = a;
    want[dim_] = 0;
    for (size_t i = 0; i < in.size(); ++i) {
      const Shape& s = c[i].shape;
      if (s.size() != a.size()) c.fail("operands differ in rank");
      c.same_dtype(0, i);
      for (size_t k = 0; k < s.size(); ++k)
        if (static_cast<int64_t>(k) != dim_ && s[k] != a[k]) c.fail("operands differ in dim " + std::to_string(k));
      if (s[dim_] > std::numeric_limits<int64_t>::max() - want[dim_]) c.fail("too many elements");
      want[dim_] += s[dim_];
    }
    return {{want, in[0].dtype}};
  }
  bool vjp_needs_inputs() const override { return false; }
  TensorList vjp(const TensorList& x, const TensorList& ct, const std::vector<int>& argnums, const TensorList&) override {
    std::vector<int64_t> start(x.size() + 1, 0);
    for (size_t i = 0; i < x.size(); ++i) start[i + 1] = start[i] + x[i].shape()[dim_];
    TensorList r;
    for (int i : argnums) r.push_back(slice(ct[0], dim_, start[i], start[i + 1], 1));
    return r;
  }
  TensorList eval_cpu(const TensorList& in) override {
    Tensor out = detail::alloc_output(*this, in);
    int64_t off = 0;
    for (const auto& t : in) {
      int64_t len = t.shape()[dim_];
      if (len == 0) continue;
      Strides st = out.strides();
      Tensor dst = make_view(out, t.shape(), st, off * st[dim_]);
      cpu::copy(dst, t);
      off += len;
    }
    return {out};
  }

 private:
  int64_t dim_;
 public:  // graph mode
  std::optional<Params> attrs() const override { return Params{{"dim", dim_}}; }
};

class Repeat : public Primitive {
 public:
  explicit Repeat(Shape r) : reps_(std::move(r)) {}
  const char* name() const override { return "repeat"; }
  TypeList output_types(const TypeList& in) const override {
    detail::TypeCheck c(name(), in);
    c.count(1);
    const Shape& a = in[0].shape;
    if (reps_.size() < a.size()) c.fail("fewer repeats than dims");
    Shape want;
    size_t k = reps_.size() - a.size();
    for (size_t i = 0; i < reps_.size(); ++i) {
      int64_t s = i < k ? 1 : a[i - k];
      if (reps_[i] < 0 || (s > 0 && reps_[i] > std::numeric_limits<int64_t>::max() / s)) c.fail("repeats");
      want.push_back(reps_[i] * s);
    }
    shape_numel(want);
    return {{want, in[0].dtype}};
  }
  bool vjp_needs_inputs() const override { return false; }
  TensorList vjp(const TensorList& x, const TensorList& ct, const std::vector<int>&, const TensorList&) override {
    // g viewed as [r0, s0, r1, s1, ...], summed over the r axes
    size_t n = reps_.size(), pad = n - x[0].shape().size();
    Shape big;
    Dims rdims;
    for (size_t i = 0; i < n; ++i) {
      rdims.push_back(static_cast<int64_t>(2 * i));
      big.push_back(reps_[i]);
      big.push_back(i < pad ? 1 : x[0].shape()[i - pad]);
    }
    Tensor r = reduce(ReduceOp::Sum, reshape(ct[0], big), rdims, false, std::nullopt);
    return {reshape(r, x[0].shape())};
  }
  TensorList eval_cpu(const TensorList& in) override {
    // out viewed as [r0, s0, r1, s1, ...]; source broadcast along the r axes
    const Tensor& a = in[0];
    size_t n = reps_.size(), pad = n - a.shape().size();
    Shape big_shape, src_strides;
    for (size_t i = 0; i < n; ++i) {
      int64_t s = i < pad ? 1 : a.shape()[i - pad];
      int64_t st = i < pad ? 0 : a.strides()[i - pad];
      big_shape.push_back(reps_[i]);
      big_shape.push_back(s);
      src_strides.push_back(0);
      src_strides.push_back(st);
    }
    Tensor out = detail::alloc_output(*this, in);
    Tensor dst = make_view(out, big_shape, contiguous_strides(big_shape), 0);
    Tensor src = make_view(a, big_shape, src_strides, a.offset());
    cpu::copy(dst, src);
    return {out};
  }

 private:
  Shape reps_;
 public:  // graph mode
  std::optional<Params> attrs() const override { return Params{{"reps", reps_.vec()}}; }
};

class Tri : public Primitive {
 public:
  Tri(int64_t k, bool lower) : k_(k), lower_(lower) {}
  const char* name() const override { return lower_ ? "tril" : "triu"; }
  TypeList output_types(const TypeList& in) const override {
    detail::TypeCheck c(name(), in);
    c.count(1);
    if (in[0].shape.size() < 2) c.fail("needs at least 2-D input");
    return {in[0]};
  }
  bool vjp_needs_inputs() const override { return false; }
  TensorList vjp(const TensorList&, const TensorList& ct, const std::vector<int>&, const TensorList&) override {
    return {lower_ ? tril(ct[0], k_) : triu(ct[0], k_)};
  }
  TensorList eval_cpu(const TensorList& in) override {
    Tensor a = contiguous(in[0]);
    Tensor out = detail::alloc_output(*this, in);
    cpu::tri(out, a, k_, lower_);
    return {out};
  }

 private:
  int64_t k_;
  bool lower_;
 public:  // graph mode
  std::optional<Params> attrs() const override { return Params{{"k", k_}}; }
};

}  // namespace

// ---------------- views ----------------
Tensor view(const Tensor& a, const Shape& shape0) {
  Shape shape = infer_shape("view", a, shape0);
  Strides st;
  if (!compute_view_strides(a.shape(), a.strides(), shape, &st))
    throw ValueError("[view] view size is not compatible with input tensor's size and stride (at least one dimension "
                     "spans across two contiguous subspaces); use reshape instead");
  return apply1(std::make_shared<Reshape>(shape), {a});
}

Tensor reshape(const Tensor& a, const Shape& shape0) {
  Shape shape = infer_shape("reshape", a, shape0);
  if (shape == a.shape()) return a;
  return apply1(std::make_shared<Reshape>(shape), {a});
}

Tensor flatten(const Tensor& a, int64_t start, int64_t end) {
  int64_t s = dim_arg("flatten", a, start), e = dim_arg("flatten", a, end);
  if (a.dim() == 0) return reshape(a, Shape{1});
  if (s > e) shape_error("flatten", {a.shape()}, {{"start_dim", start}, {"end_dim", end}}, "start_dim cannot come after end_dim");
  Shape ns;
  for (int64_t i = 0; i < s; ++i) ns.push_back(a.shape()[i]);
  int64_t m = 1;
  for (int64_t i = s; i <= e; ++i) m *= a.shape()[i];
  ns.push_back(m);
  for (int64_t i = e + 1; i < a.dim(); ++i) ns.push_back(a.shape()[i]);
  return reshape(a, ns);
}

Tensor unflatten(const Tensor& a, int64_t dim, const Shape& sizes) {
  int64_t d = dim_arg("unflatten", a, dim);
  if (sizes.empty()) shape_error("unflatten", {a.shape()}, {{"dim", dim}, {"sizes", sizes.vec()}}, "sizes must be non-empty");
  Shape part = sizes;
  int64_t known = 1, inf = -1;
  for (size_t i = 0; i < part.size(); ++i) {
    if (part[i] == -1) inf = static_cast<int64_t>(i);
    else known *= part[i];
  }
  if (inf >= 0 && known > 0) part[inf] = a.shape()[d] / known;
  int64_t prod = 1;
  for (auto v : part) prod *= v;
  if (prod != a.shape()[d])
    shape_error("unflatten", {a.shape()}, {{"dim", dim}, {"sizes", sizes.vec()}},
                "provided sizes " + shape_str(sizes) + " don't multiply up to the size of dim " + std::to_string(dim) +
                    " (" + std::to_string(a.shape()[d]) + ")");
  Shape ns;
  for (int64_t i = 0; i < d; ++i) ns.push_back(a.shape()[i]);
  for (auto v : part) ns.push_back(v);
  for (int64_t i = d + 1; i < a.dim(); ++i) ns.push_back(a.shape()[i]);
  return reshape(a, ns);
}

Tensor permute(const Tensor& a, const Dims& dims) {
  if (static_cast<int64_t>(dims.size()) != a.dim())
    shape_error("permute", {a.shape()}, {{"dims", dims}},
                "number of dims don't match in permute: input has " + std::to_string(a.dim()) + ", dims has " +
                    std::to_string(dims.size()));
  Dims d(dims.size());
  std::vector<bool> seen(dims.size(), false);
  for (size_t i = 0; i < dims.size(); ++i) {
    d[i] = dim_arg("permute", a, dims[i]);
    if (seen[d[i]]) shape_error("permute", {a.shape()}, {{"dims", dims}}, "repeated dim in permute");
    seen[d[i]] = true;
  }
  return apply1(std::make_shared<Permute>(d), {a});
}

Tensor transpose(const Tensor& a, int64_t d0, int64_t d1) {
  if (a.dim() < 2 && (d0 == 0 || d0 == -1) && (d1 == 0 || d1 == -1)) return a;
  int64_t x = dim_arg("transpose", a, d0), y = dim_arg("transpose", a, d1);
  Dims p(static_cast<size_t>(a.dim()));
  std::iota(p.begin(), p.end(), 0);
  std::swap(p[x], p[y]);
  return apply1(std::make_shared<Permute>(p), {a});
}

Tensor movedim(const Tensor& a, const Dims& src, const Dims& dst) {
  if (src.size() != dst.size()) throw ValueError("[movedim] source and destination must have the same number of dims");
  int64_t n = a.dim();
  size_t slots = static_cast<size_t>(std::max<int64_t>(n, 1));  // a 0-d tensor takes dim 0
  Dims perm(slots, -1);
  std::vector<bool> used(slots, false);
  for (size_t i = 0; i < src.size(); ++i) {
    int64_t s = dim_arg("movedim", a, src[i]), d = dim_arg("movedim", a, dst[i]);
    if (used[s] || perm[d] != -1)
      shape_error("movedim", {a.shape()}, {{"source", src}, {"destination", dst}},
                  std::string("repeated dim in ") + (used[s] ? "source" : "destination"));
    perm[d] = s;
    used[s] = true;
  }
  if (n == 0) return a;
  int64_t k = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (perm[i] != -1) continue;
    while (used[k]) ++k;
    perm[i] = k++;
  }
  return permute(a, perm);
}

Tensor expand(const Tensor& a, const Shape& shape0) {
  size_t n = shape0.size(), k = a.shape().size();
  if (n < k)
    shape_error("expand", {a.shape()}, {{"size", shape0.vec()}},
                "the number of sizes provided (" + std::to_string(n) +
                    ") must be greater or equal to the number of dimensions in the tensor (" + std::to_string(k) + ")");
  Shape shape = shape0;
  for (size_t j = 0; j < n; ++j) {
    int64_t have = j < n - k ? 1 : a.shape()[j - (n - k)];
    if (shape[j] == -1) {
      if (j < n - k) throw ValueError("[expand] -1 is not allowed in a leading, non-existing dimension");
      shape[j] = have;
    } else if (shape[j] < 0) {
      throw ValueError("[expand] invalid size " + std::to_string(shape[j]));
    } else if (have != shape[j] && have != 1) {
      shape_error("expand", {a.shape()}, {{"size", shape0.vec()}},
                  "the expanded size of the tensor (" + std::to_string(shape[j]) +
                      ") must match the existing size (" + std::to_string(have) + ") at non-singleton dimension " +
                      std::to_string(j));
    }
  }
  if (shape == a.shape()) return a;
  return apply1(std::make_shared<Expand>(shape), {a});
}

Tensor broadcast_to(const Tensor& a, const Shape& shape) { return expand(a, shape); }

Tensor squeeze(const Tensor& a, const OptDims& dims) {
  Shape ns;
  std::vector<bool> drop(static_cast<size_t>(a.dim()), false);
  if (!dims) {
    for (int64_t i = 0; i < a.dim(); ++i) drop[i] = a.shape()[i] == 1;
  } else {
    std::vector<bool> seen(static_cast<size_t>(std::max<int64_t>(a.dim(), 1)), false);  // a 0-d tensor takes dim 0
    for (auto d : *dims) {
      int64_t w = dim_arg("squeeze", a, d);
      if (seen[w]) shape_error("squeeze", {a.shape()}, {{"dim", *dims}}, "dim " + std::to_string(d) + " appears more than once");
      seen[w] = true;
      if (a.dim() > 0) drop[w] = a.shape()[w] == 1;
    }
  }
  for (int64_t i = 0; i < a.dim(); ++i)
    if (!drop[i]) ns.push_back(a.shape()[i]);
  if (ns == a.shape()) return a;
  return apply1(std::make_shared<Reshape>(ns), {a});
}

Tensor unsqueeze(const Tensor& a, int64_t dim) {
  int64_t d = dim_arg("unsqueeze", a, dim, 1);
  Shape ns = a.shape();
  ns.insert(static_cast<size_t>(d), 1);
  return apply1(std::make_shared<Reshape>(ns), {a});
}

Tensor slice(const Tensor& a, int64_t dim, std::optional<int64_t> start0, std::optional<int64_t> stop0, int64_t step) {
  int64_t d = dim_arg("slice", a, dim);
  if (a.dim() == 0) throw IndexError("[slice] slicing a 0-d tensor is not possible");
  if (step <= 0) throw ValueError("[slice] step must be greater than zero");
  int64_t n = a.shape()[d];
  int64_t start = start0.value_or(0), stop = stop0.value_or(n);
  if (start < 0) start += n;
  if (stop < 0) stop += n;
  start = std::clamp<int64_t>(start, 0, n);
  stop = std::clamp<int64_t>(stop, start, n);
  int64_t len = (stop - start + step - 1) / step;
  if (start == 0 && len == n && step == 1) return a;
  Shape s = a.shape();
  Strides st = a.strides();
  s[d] = len;
  int64_t off = start * st[d];
  st[d] *= step;
  Reapply f = [d, start, stop, step](const Tensor& t) { return slice(t, d, start, stop, step); };
  return apply1(std::make_shared<StridedView>("slice", s, st, len > 0 ? off : 0, std::move(f)), {a});
}

Tensor narrow(const Tensor& a, int64_t dim, int64_t start, int64_t length) {
  int64_t d = dim_arg("narrow", a, dim);
  int64_t n = a.shape()[d];
  if (start < 0) start += n;
  if (start < 0 || length < 0 || start + length > n)
    throw IndexError("[narrow] start (" + std::to_string(start) + ") + length (" + std::to_string(length) +
                     ") exceeds dimension size (" + std::to_string(n) + ")");
  return slice(a, d, start, start + length, 1);
}

Tensor select(const Tensor& a, int64_t dim, int64_t index) {
  if (a.dim() == 0) throw IndexError("invalid index of a 0-dim tensor");
  int64_t d = dim_arg("select", a, dim);
  int64_t n = a.shape()[d];
  if (index < -n || index >= n)
    throw IndexError("index " + std::to_string(index) + " is out of bounds for dimension " + std::to_string(d) +
                     " with size " + std::to_string(n));
  if (index < 0) index += n;
  Shape s = a.shape();
  Strides st = a.strides();
  int64_t off = index * st[d];
  s.erase(static_cast<size_t>(d));
  st.erase(static_cast<size_t>(d));
  Reapply f = [d, index](const Tensor& t) { return select(t, d, index); };
  return apply1(std::make_shared<StridedView>("select", s, st, off, std::move(f)), {a});
}

Tensor diagonal(const Tensor& a, int64_t offset, int64_t d0, int64_t d1) {
  int64_t x = dim_arg("diagonal", a, d0), y = dim_arg("diagonal", a, d1);
  if (x == y) shape_error("diagonal", {a.shape()}, {{"dim1", d0}, {"dim2", d1}}, "diagonal dimensions cannot be identical");
  int64_t len, off = 0;
  if (offset >= 0) {
    len = std::max<int64_t>(0, std::min(a.shape()[x], a.shape()[y] - offset));
    off = offset * a.strides()[y];
  } else {
    len = std::max<int64_t>(0, std::min(a.shape()[x] + offset, a.shape()[y]));
    off = -offset * a.strides()[x];
  }
  if (len == 0) off = 0;
  Shape s;
  Strides st;
  for (int64_t i = 0; i < a.dim(); ++i)
    if (i != x && i != y) {
      s.push_back(a.shape()[i]);
      st.push_back(a.strides()[i]);
    }
  s.push_back(len);
  st.push_back(a.strides()[x] + a.strides()[y]);
  Reapply f = [offset, x, y](const Tensor& t) { return diagonal(t, offset, x, y); };
  return apply1(std::make_shared<StridedView>("diagonal", s, st, off, std::move(f)), {a});
}

Tensor as_strided(const Tensor& a, const Shape& shape, const Strides& strides, int64_t offset) {
  if (shape.size() != strides.size()) throw ValueError("[as_strided] shape and strides must have the same length");
  for (size_t i = 0; i < shape.size(); ++i)
    if (shape[i] < 0 || strides[i] < 0) throw ValueError("[as_strided] negative sizes and strides are not supported");
  if (!checked::view_in_bounds(shape.data(), strides.data(), shape.size(), offset, storage_elements(a)))
    throw ValueError("[as_strided] the view reaches outside the storage");
  int64_t rel = offset - a.offset();
  Reapply f = [shape, strides, rel](const Tensor& t) { return as_strided(t, shape, strides, t.offset() + rel); };
  return apply1(std::make_shared<StridedView>("as_strided", shape, strides, rel, std::move(f)), {a});
}

Tensor repeat(const Tensor& a, const Shape& reps) {
  if (static_cast<int64_t>(reps.size()) < a.dim())
    shape_error("repeat", {a.shape()}, {{"repeats", reps.vec()}},
                "number of dimensions of repeat dims can not be smaller than number of dimensions of tensor");
  for (auto r : reps)
    if (r < 0) throw ValueError("[repeat] repeats must be non-negative");
  return apply1(std::make_shared<Repeat>(reps), {a});
}

Tensor flip(const Tensor& a, const Dims& dims) {
  // a negative-stride view is not allowed (numpy interop and BLAS assume >= 0): copy
  std::vector<bool> seen(static_cast<size_t>(std::max<int64_t>(a.dim(), 1)), false);  // a 0-d tensor takes dim 0
  Dims wrapped;
  for (auto d0 : dims) {
    int64_t d = dim_arg("flip", a, d0);
    if (seen[d]) shape_error("flip", {a.shape()}, {{"dims", dims}}, "dims has duplicates");
    seen[d] = true;
    wrapped.push_back(d);
  }
  return apply1(std::make_shared<Flip>(wrapped), {a});
}

Tensor roll(const Tensor& a, const Dims& shifts, const Dims& dims) {
  if (!dims.empty() && a.dim() == 0)
    shape_error("roll", {a.shape()}, {{"shifts", shifts}, {"dims", dims}}, "a 0-d tensor has no dim to roll");
  if (dims.empty()) {
    Tensor f = flatten(contiguous(a), 0, -1);
    return reshape(roll(f, shifts, Dims{0}), a.shape());
  }
  if (shifts.size() != dims.size()) throw ValueError("[roll] shifts and dims must align");
  Tensor r = a;
  for (size_t i = 0; i < dims.size(); ++i) {
    int64_t d = dim_arg("roll", a, dims[i]);
    int64_t n = a.shape()[d];
    if (n == 0) continue;
    int64_t s = ((shifts[i] % n) + n) % n;
    if (s == 0) continue;
    r = cat({slice(r, d, n - s, n, 1), slice(r, d, 0, n - s, 1)}, d);
  }
  return r;
}

Tensor tril(const Tensor& a, int64_t k) {
  if (a.dim() < 2) shape_error("tril", {a.shape()}, {{"diagonal", k}}, "tril: input tensor must have at least 2 dimensions");
  return apply1(std::make_shared<Tri>(k, true), {a});
}
Tensor triu(const Tensor& a, int64_t k) {
  if (a.dim() < 2) shape_error("triu", {a.shape()}, {{"diagonal", k}}, "triu: input tensor must have at least 2 dimensions");
  return apply1(std::make_shared<Tri>(k, false), {a});
}

// ---------------- joining ----------------
Tensor cat(const TensorList& xs0, int64_t dim) {
  TT_AUTOCAST("cat", cat, xs0, dim);
  if (xs0.empty()) throw ValueError("[cat] expected a non-empty list of tensors");
  // legacy: 1-d empty tensors are skipped (torch keeps this behaviour)
  TensorList xs;
  const Tensor* ref = nullptr;
  for (const auto& t : xs0)
    if (!(t.dim() == 1 && t.numel() == 0)) {
      xs.push_back(t);
      if (!ref) ref = &t;
    }
  if (xs.empty()) {
    DType d0 = xs0[0].dtype();
    for (const auto& t : xs0) d0 = promote_types(d0, t.dtype());
    return empty(Shape{0}, d0, xs0[0].device());
  }
  for (const auto& t : xs)
    if (t.dim() == 0) shape_error("cat", {t.shape()}, {{"dim", dim}}, "zero-dimensional tensor cannot be concatenated");
  int64_t d = dim_arg("cat", *ref, dim);
  DType dt = xs[0].dtype();
  for (const auto& t : xs0) dt = promote_types(dt, t.dtype());  // skipped empties promote too
  std::vector<Shape> shapes;
  for (const auto& t : xs0) shapes.push_back(t.shape());
  for (const auto& t : xs) {
    bool ok = t.dim() == ref->dim();
    for (int64_t i = 0; ok && i < t.dim(); ++i)
      if (i != d && t.shape()[i] != ref->shape()[i]) ok = false;
    if (!ok)
      shape_error("cat", shapes, {{"dim", dim}},
                  "sizes of tensors must match except in dimension " + std::to_string(d) + ": " + shape_str(ref->shape()) +
                      " vs " + shape_str(t.shape()));
  }
  TensorList cast_xs;
  for (const auto& t : xs) cast_xs.push_back(detail::cast(t, dt));
  if (cast_xs.size() == 1) return clone(cast_xs[0]);
  return apply1(std::make_shared<Cat>(d), cast_xs);
}

Tensor stack(const TensorList& xs, int64_t dim) {
  TT_AUTOCAST("stack", stack, xs, dim);
  if (xs.empty()) throw ValueError("[stack] expected a non-empty list of tensors");
  std::vector<Shape> shapes;
  for (const auto& t : xs) shapes.push_back(t.shape());
  for (const auto& t : xs)
    if (t.shape() != xs[0].shape())
      shape_error("stack", shapes, {{"dim", dim}},
                  "stack expects each tensor to be equal size, but got " + shape_str(xs[0].shape()) + " and " +
                      shape_str(t.shape()));
  int64_t d = dim_arg("stack", xs[0], dim, 1);
  TensorList us;
  for (const auto& t : xs) us.push_back(unsqueeze(t, d));
  if (us.size() == 1) return clone(us[0]);
  DType dt = xs[0].dtype();
  for (const auto& t : xs) dt = promote_types(dt, t.dtype());
  for (auto& t : us) t = detail::cast(t, dt);
  return apply1(std::make_shared<Cat>(d), us);
}

// split / chunk / unbind take a dim of at least a 1-d tensor (a 0-d one has no dim to divide).
void check_not_0d(const char* op, const Tensor& a, Params params) {
  if (a.dim() == 0) shape_error(op, {a.shape()}, std::move(params), "expected a tensor with at least 1 dimension");
}

TensorList split(const Tensor& a, const Dims& sizes, int64_t dim) {
  check_not_0d("split", a, {{"split_size_or_sections", sizes}, {"dim", dim}});
  int64_t d = dim_arg("split", a, dim);
  int64_t total = 0;
  for (auto s : sizes) {
    if (s < 0) throw ValueError("[split] split sizes must be non-negative");
    total += s;
  }
  if (total != a.shape()[d])
    shape_error("split", {a.shape()}, {{"split_size_or_sections", sizes}, {"dim", dim}},
                "split_with_sizes expects split_sizes to sum exactly to " + std::to_string(a.shape()[d]) +
                    " (input tensor's size at dimension " + std::to_string(d) + "), but got split_sizes=" +
                    shape_str(Shape(sizes)));
  TensorList out;
  int64_t off = 0;
  for (auto s : sizes) {
    out.push_back(slice(a, d, off, off + s, 1));
    off += s;
  }
  return out;
}

TensorList split_size(const Tensor& a, int64_t size, int64_t dim) {
  check_not_0d("split", a, {{"split_size_or_sections", size}, {"dim", dim}});
  int64_t d = dim_arg("split", a, dim);
  if (size <= 0 && !(size == 0 && a.shape()[d] == 0))
    throw ValueError("[split] split_size must be positive, got " + std::to_string(size));
  int64_t n = a.shape()[d];
  TensorList out;
  if (n == 0) return {a};
  for (int64_t off = 0; off < n; off += size) out.push_back(slice(a, d, off, std::min(n, off + size), 1));
  return out;
}

TensorList chunk(const Tensor& a, int64_t chunks, int64_t dim) {
  if (chunks <= 0) throw ValueError("[chunk] chunks must be greater than 0, got " + std::to_string(chunks));
  check_not_0d("chunk", a, {{"chunks", chunks}, {"dim", dim}});
  int64_t d = dim_arg("chunk", a, dim);
  int64_t n = a.shape()[d];
  int64_t size = (n + chunks - 1) / chunks;
  if (size == 0) size = 1;
  if (n == 0) {
    TensorList out;
    for (int64_t i = 0; i < chunks; ++i) out.push_back(a);
    return out;
  }
  return split_size(a, size, d);
}

TensorList unbind(const Tensor& a, int64_t dim) {
  check_not_0d("unbind", a, {{"dim", dim}});
  int64_t d = dim_arg("unbind", a, dim);
  TensorList out;
  for (int64_t i = 0; i < a.shape()[d]; ++i) out.push_back(select(a, d, i));
  return out;
}

// ---------------- graph mode: rebuild a primitive from its name and attributes ----------------
std::shared_ptr<Primitive> detail::make_shape_primitive(const std::string& name, const Params& attrs) {
  AttrReader r(name, attrs);
  if (name == "reshape") return std::make_shared<Reshape>(r.shape("shape"));
  if (name == "expand") return std::make_shared<Expand>(r.shape("shape"));
  if (name == "permute") return std::make_shared<Permute>(r.ints("dims"));
  if (name == "flip") return std::make_shared<Flip>(r.ints("dims"));
  if (name == "cat") return std::make_shared<Cat>(r.i("dim"));
  if (name == "repeat") return std::make_shared<Repeat>(r.shape("reps"));
  if (name == "tril" || name == "triu") return std::make_shared<Tri>(r.i("k"), name == "tril");
  static const char* const kScatters[] = {"slice_backward", "select_backward", "diagonal_backward", "as_strided_backward"};
  for (const char* v : kScatters)
    if (name == v) {
      auto st = r.ints("strides");
      Shape shape = r.shape("shape");
      Strides strides(st.begin(), st.end());
      int64_t off = r.i("offset");
      if (strides.size() != shape.size() || off < 0) throw ValueError("primitive '" + name + "': view geometry");
      for (int64_t x : strides)
        if (x < 0) throw ValueError("primitive '" + name + "': negative stride");
      Reapply f = [shape, strides, off](const Tensor& t) { return as_strided(t, shape, strides, t.offset() + off); };
      return std::make_shared<ViewScatter>(v, std::move(f), shape, r.shape("in_shape"));
    }
  static const char* const kViews[] = {"slice", "select", "diagonal", "as_strided"};
  for (const char* v : kViews)
    if (name == v) {
      auto st = r.ints("strides");
      Shape shape = r.shape("shape");
      Strides strides(st.begin(), st.end());
      int64_t off = r.i("offset");
      Reapply f = [shape, strides, off](const Tensor& t) { return as_strided(t, shape, strides, t.offset() + off); };
      return std::make_shared<StridedView>(v, shape, strides, off, std::move(f));
    }
  return nullptr;
}

}  // namespace tt
