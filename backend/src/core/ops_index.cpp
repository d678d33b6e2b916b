// Indexing: index_select, gather, scatter, masked ops, nonzero, advanced indexing, index_put_ and embedding.
#include <algorithm>
#include <cstring>

#include "../cpu/kernels.h"
#include "../cpu/loops.h"
#include "internal.h"
#include "typedtensor/autograd.h"
#include "typedtensor/device.h"

namespace tt {
using detail::dim_arg;
using detail::shape_error;

namespace {

Tensor as_index(const char* op, const Tensor& idx) {
  if (idx.dtype() != DType::Int64 && idx.dtype() != DType::Int32 && idx.dtype() != DType::UInt8)
    throw TypeError(std::string("[") + op + "] expected an int64 or int32 index tensor, got " + dtype_name(idx.dtype()));
  return contiguous(detail::cast(idx, DType::Int64));
}

}  // namespace

// Wraps negative indices (copying if needed) and checks bounds. A CUDA index is checked on the host
// (one device-to-host copy; torch asserts on the device instead) and stays on its device.
Tensor checked_index(const char* op, const Tensor& idx0, int64_t size, int64_t dim, bool allow_negative) {
  if (on_cuda(idx0)) {
    Tensor d = as_index(op, idx0);
    Tensor hd = host(d);
    Tensor h = checked_index(op, hd, size, dim, allow_negative);
    return h.is_same(hd) ? d : to_device(h, d.device());
  }
  Tensor idx = as_index(op, idx0);
  const int64_t* p = idx.data<int64_t>();
  int64_t n = idx.numel();
  bool neg = false;
  const int64_t lo = allow_negative ? -size : 0;
  for (int64_t i = 0; i < n; ++i) {
    if (p[i] < lo || p[i] >= size)
      throw IndexError("index " + std::to_string(p[i]) + " is out of bounds for dimension " + std::to_string(dim) +
                       " with size " + std::to_string(size));
    if (p[i] < 0) neg = true;
  }
  if (!neg) return idx;
  Tensor c = empty(idx.shape(), DType::Int64);
  int64_t* q = c.data<int64_t>();
  for (int64_t i = 0; i < n; ++i) q[i] = p[i] < 0 ? p[i] + size : p[i];
  return c;
}

namespace {

// The index a primitive's kernel reads: on the CPU checked here, at every run (a traced
// or loaded graph hands it new index tensors); a CUDA index was checked by the front end (a host
// round trip each time would cost a synchronisation per op).
Tensor run_index(const char* op, const Tensor& idx, int64_t size, int64_t dim) {
  return on_cuda(idx) ? idx : checked_index(op, idx, size, dim, /*allow_negative=*/false);
}

// The index a front end hands its primitive: checked at once (a clear error; negative indices are
// refused, as torch does for these ops), and the caller's tensor itself (as int64), so a traced
// graph reads the caller's tensor.
Tensor front_index(const char* op, const Tensor& idx, int64_t size, int64_t dim) {
  Tensor d = as_index(op, idx);
  checked_index(op, d, size, dim, /*allow_negative=*/false);
  return d;
}

// The index operand of a primitive: int64 (its values are checked against the dim per run).
const TensorType& index_type(const detail::TypeCheck& c, size_t i) {
  c.dtype(i, DType::Int64, "index");
  return c[i];
}

// gather / scatter: the index has the input's rank and no larger size in any dim but `d`.
void check_gather_types(const detail::TypeCheck& c, const Shape& a, const Shape& idx, int64_t d) {
  if (idx.size() != a.size() && !(idx.size() <= 1 && a.size() <= 1)) c.fail("index rank differs from the input's");
  for (size_t i = 0; i < idx.size(); ++i)
    if (static_cast<int64_t>(i) != d && i < a.size() && idx[i] > a[i]) c.fail("index larger than the input");
}

// out = a with src's slices added at `index` along dim (index_add, and index_select's VJP).
class IndexAdd : public Primitive {
 public:
  explicit IndexAdd(int64_t d) : dim_(d) {}
  const char* name() const override { return "index_add"; }
  TypeList output_types(const TypeList& in) const override {  // (a, index [k], src) -> a
    detail::TypeCheck c(name(), in);
    c.count(3);
    const Shape& a = in[0].shape;
    if (a.empty()) c.fail("needs at least 1-D input");
    c.dim(dim_, a.size());
    c.rank(1, 1, "index");
    Shape want = a;
    want[dim_] = index_type(c, 1).shape[0];
    c.shape(2, want, "source");
    c.same_dtype(0, 2);
    return {in[0]};
  }
  TensorList eval_cpu(const TensorList& in) override {
    Tensor out = detail::alloc_output(*this, in);
    Tensor idx = run_index("index_add", in[1], in[0].dim() ? in[0].size(dim_) : 1, dim_);  // a graph's index is checked per run
    cpu::copy(out, in[0]);
    if (in[2].numel() > 0) cpu::index_add(out, dim_, idx, contiguous(in[2]));
    return {out};
  }
  TensorList vjp(const TensorList& x, const TensorList& ct, const std::vector<int>& argnums, const TensorList&) override {
    TensorList r;
    for (int i : argnums) {
      if (i == 0) r.push_back(ct[0]);
      else if (i == 2) r.push_back(index_select(ct[0], dim_, x[1]));
      else r.emplace_back();
    }
    return r;
  }

 private:
  int64_t dim_;
 public:  // graph mode
  std::optional<Params> attrs() const override { return Params{{"dim", dim_}}; }
};

class IndexSelect : public Primitive {
 public:
  explicit IndexSelect(int64_t d) : dim_(d) {}
  const char* name() const override { return "index_select"; }
  TypeList output_types(const TypeList& in) const override {  // (a, index [k] or []) -> a with k at dim
    detail::TypeCheck c(name(), in);
    c.count(2);
    c.dim(dim_, in[0].shape.size());
    const Shape& idx = index_type(c, 1).shape;
    if (idx.size() > 1) c.fail("index must be 0-D or 1-D");
    Shape want = in[0].shape;
    if (!want.empty()) want[dim_] = shape_numel(idx);
    return {{want, in[0].dtype}};
  }
  TensorList vjp(const TensorList& x, const TensorList& ct, const std::vector<int>&, const TensorList&) override {
    return {apply1(std::make_shared<IndexAdd>(dim_), {zeros(x[0].shape(), ct[0].dtype()), x[1], ct[0]})};
  }
  TensorList eval_cpu(const TensorList& in) override {
    Tensor a = contiguous(in[0]);
    Tensor out = detail::alloc_output(*this, in);
    if (out.numel() > 0) cpu::index_select(out, a, dim_, run_index("index_select", in[1], a.dim() ? a.size(dim_) : 1, dim_));
    return {out};
  }

 private:
  int64_t dim_;
 public:  // graph mode
  std::optional<Params> attrs() const override { return Params{{"dim", dim_}}; }
};

class Gather : public Primitive {
 public:
  explicit Gather(int64_t d) : dim_(d) {}
  const char* name() const override { return "gather"; }
  TypeList output_types(const TypeList& in) const override {  // (a, index) -> the index's shape
    detail::TypeCheck c(name(), in);
    c.count(2);
    c.dim(dim_, in[0].shape.size());
    check_gather_types(c, in[0].shape, index_type(c, 1).shape, dim_);
    return {{in[1].shape, in[0].dtype}};
  }
  TensorList vjp(const TensorList& x, const TensorList& ct, const std::vector<int>&, const TensorList&) override {
    return {scatter(zeros(x[0].shape(), ct[0].dtype()), dim_, x[1], ct[0], "add")};
  }
  TensorList eval_cpu(const TensorList& in) override {
    Tensor out = detail::alloc_output(*this, in);
    if (out.numel() > 0) cpu::gather(out, in[0], dim_, run_index("gather", in[1], in[0].dim() ? in[0].size(dim_) : 1, dim_));
    return {out};
  }

 private:
  int64_t dim_;
 public:  // graph mode
  std::optional<Params> attrs() const override { return Params{{"dim", dim_}}; }
};

class Scatter : public Primitive {
 public:
  Scatter(int64_t d, int reduce) : dim_(d), reduce_(reduce) {}
  const char* name() const override { return reduce_ == 1 ? "scatter_add" : "scatter"; }
  TypeList output_types(const TypeList& in) const override {  // (a, index, src) -> a
    detail::TypeCheck c(name(), in);
    c.count(3);
    if (reduce_ < 0 || reduce_ > 2) c.fail("reduce out of range");
    c.dim(dim_, in[0].shape.size());
    const Shape &idx = index_type(c, 1).shape, &src = in[2].shape;
    check_gather_types(c, in[0].shape, idx, dim_);
    if (src.size() != idx.size()) c.fail("source rank");
    for (size_t i = 0; i < idx.size(); ++i)
      if (idx[i] > src[i]) c.fail("index larger than the source");
    c.same_dtype(0, 2);
    return {in[0]};
  }
  TensorList vjp(const TensorList& x, const TensorList& ct, const std::vector<int>& argnums, const TensorList&) override {
    if (reduce_ == 2) throw NotImplementedError("[scatter] reduce='multiply' has no VJP");
    const Tensor &g = ct[0], &idx = x[1], &src = x[2];
    TensorList r;
    for (int i : argnums) {
      if (i == 0) {  // overwritten positions get no gradient (scatter), all pass through (scatter_add)
        r.push_back(reduce_ == 1 ? g : scatter(g, dim_, idx, zeros(idx.shape(), g.dtype()), ""));
      } else if (i == 2) {
        if (src.shape() != idx.shape())
          throw NotImplementedError("[scatter] backward to src needs src of the index's shape");
        r.push_back(gather(g, dim_, idx));
      } else {
        r.emplace_back();
      }
    }
    return r;
  }
  TensorList eval_cpu(const TensorList& in) override {
    Tensor out = detail::alloc_output(*this, in);
    Tensor idx = run_index("scatter", in[1], in[0].dim() ? in[0].size(dim_) : 1, dim_);
    cpu::copy(out, in[0]);
    cpu::scatter(out, dim_, idx, in[2], reduce_);
    return {out};
  }

 private:
  int64_t dim_;
  int reduce_;
 public:  // graph mode
  std::optional<Params> attrs() const override { return Params{{"dim", dim_}, {"reduce", static_cast<int64_t>(reduce_)}}; }
};

class MaskedFill : public Primitive {
 public:
  const char* name() const override { return "masked_fill"; }
  TypeList output_types(const TypeList& in) const override {  // (a, mask of a's shape, 0-d value) -> a
    detail::TypeCheck c(name(), in);
    c.count(3);
    c.dtype(1, DType::Bool, "mask");
    c.shape(1, in[0].shape, "mask");
    c.shape(2, Shape{}, "value");
    c.same_dtype(0, 2);
    return {in[0]};
  }
  TensorList vjp(const TensorList& x, const TensorList& ct, const std::vector<int>& argnums, const TensorList&) override {
    TensorList r;
    for (int i : argnums) {
      if (i == 0) r.push_back(vjp::keep(unary(UnaryOp::LogicalNot, x[1]), ct[0]));
      else if (i == 2) r.push_back(reshape(reduce(ReduceOp::Sum, vjp::keep(x[1], ct[0]), std::nullopt, false, std::nullopt), x[2].shape()));
      else r.emplace_back();
    }
    return r;
  }
  TensorList eval_cpu(const TensorList& in) override {
    Tensor out = detail::alloc_output(*this, in);
    cpu::copy(out, in[0]);
    cpu::masked_fill(out, in[1], in[2]);
    return {out};
  }
 public:  // graph mode
  std::optional<Params> attrs() const override { return Params{}; }
};

void check_gather_shapes(const char* op, const Tensor& a, int64_t d, const Tensor& index, const Tensor* src) {
  std::vector<Shape> shapes{a.shape(), index.shape()};
  if (src) shapes.push_back(src->shape());
  if (index.dim() != a.dim() && !(index.dim() <= 1 && a.dim() <= 1))
    shape_error(op, shapes, {{"dim", d}}, "index tensor must have the same number of dimensions as input tensor");
  for (int64_t i = 0; i < index.dim(); ++i) {
    if (i != d && index.size(i) > a.size(i))
      shape_error(op, shapes, {{"dim", d}},
                  "size of dimension " + std::to_string(i) + " of index (" + std::to_string(index.size(i)) +
                      ") exceeds the input's (" + std::to_string(a.size(i)) + ")");
    if (src && index.size(i) > src->size(i))
      shape_error(op, shapes, {{"dim", d}},
                  "size of dimension " + std::to_string(i) + " of index exceeds the source's");
  }
}

}  // namespace

Tensor index_select(const Tensor& a, int64_t dim, const Tensor& index) {
  int64_t d = dim_arg("index_select", a, dim);
  if (index.dim() > 1) shape_error("index_select", {a.shape(), index.shape()}, {{"dim", dim}}, "index must be 0-D or 1-D");
  Tensor idx = front_index("index_select", index, a.dim() ? a.size(d) : 1, d);
  return apply1(std::make_shared<IndexSelect>(d), {a, idx});
}

Tensor gather(const Tensor& a, int64_t dim, const Tensor& index) {
  int64_t d = dim_arg("gather", a, dim);
  Tensor idx = as_index("gather", index);
  check_gather_shapes("gather", a, d, idx, nullptr);
  idx = front_index("gather", idx, a.dim() ? a.size(d) : 1, d);
  return apply1(std::make_shared<Gather>(d), {a, idx});
}

Tensor scatter(const Tensor& a, int64_t dim, const Tensor& index, const Tensor& src, const std::string& reduce) {
  int64_t d = dim_arg("scatter", a, dim);
  int r = reduce.empty() ? 0 : reduce == "add" || reduce == "sum" ? 1 : reduce == "multiply" || reduce == "prod" ? 2 : -1;
  if (r < 0) throw ValueError("[scatter] reduce must be 'add' or 'multiply', got '" + reduce + "'");
  Tensor idx = as_index("scatter", index);
  check_gather_shapes("scatter", a, d, idx, &src);
  if (src.dim() != a.dim() && !(src.dim() <= 1 && a.dim() <= 1))
    shape_error("scatter", {a.shape(), index.shape(), src.shape()}, {{"dim", dim}},
                "src must have the same number of dimensions as input tensor");
  idx = front_index("scatter", idx, a.dim() ? a.size(d) : 1, d);
  return apply1(std::make_shared<Scatter>(d, r), {a, idx, detail::cast(src, a.dtype())});
}

Tensor scatter_scalar(const Tensor& a, int64_t dim, const Tensor& index, Scalar v) {
  Tensor src;
  {
    DeviceScope on(a.device());  // filled where `a` lives (no host tensor next to a CUDA one)
    src = full(index.shape(), v, a.dtype());
  }
  return scatter(a, dim, index, src, "");
}

Tensor index_add(const Tensor& a, int64_t dim, const Tensor& index, const Tensor& src, Scalar alpha) {
  int64_t d = dim_arg("index_add", a, dim);
  if (index.dim() > 1) shape_error("index_add", {a.shape(), index.shape(), src.shape()}, {{"dim", dim}}, "index must be 0-D or 1-D");
  Shape want = a.shape();
  if (a.dim() > 0) want[d] = index.numel();
  if (src.shape() != want && !(a.dim() == 0 && src.numel() == 1))
    shape_error("index_add", {a.shape(), index.shape(), src.shape()}, {{"dim", dim}},
                "source shape " + shape_str(src.shape()) + " must be " + shape_str(want));
  Tensor vals = (alpha.kind == Scalar::Int && alpha.i == 1) ? src : binary(BinaryOp::Mul, src, alpha);
  if (a.dim() == 0) return binary(BinaryOp::Add, a, reshape(vals, Shape{}));
  if (a.dtype() == DType::Bool || is_half(a.dtype())) {  // no index_add kernel: through index_put_
    Tensor out = clone(a);
    TensorList idx(static_cast<size_t>(d + 1));
    idx[d] = reshape(index, Shape{index.numel()});
    index_put_(out, idx, detail::cast(vals, a.dtype()), true);
    return out;
  }
  if (src.numel() == 0) {  // nothing is added and, as in torch, the index values are not checked
    as_index("index_add", index);
    return clone(a);
  }
  Tensor idx = front_index("index_add", reshape(index, Shape{index.numel()}), a.size(d), d);
  return apply1(std::make_shared<IndexAdd>(d), {a, idx, detail::cast(vals, a.dtype())});
}

Tensor masked_fill(const Tensor& a, const Tensor& mask, Scalar v) {
  return masked_fill_t(a, mask, scalar_tensor(v, a.dtype()));
}

Tensor masked_fill_t(const Tensor& a, const Tensor& mask, const Tensor& v) {
  if (mask.dtype() != DType::Bool) throw TypeError(std::string("[masked_fill] mask must be a bool tensor, got ") + dtype_name(mask.dtype()));
  if (v.dim() != 0) throw ValueError("[masked_fill] only supports a 0-dimensional value tensor, got shape " + shape_str(v.shape()));
  // out of place, like torch: the result has the broadcast shape of the input and the mask
  Shape s = broadcast_shapes(a.shape(), mask.shape(), "masked_fill");
  if (is_floating(v.dtype()) && !is_floating(a.dtype()))
    throw TypeError(std::string("[masked_fill] value of type ") + dtype_name(v.dtype()) + " can't be cast to " + dtype_name(a.dtype()));
  Tensor val = contiguous(detail::cast(v, a.dtype()));
  return apply1(std::make_shared<MaskedFill>(), {a.shape() == s ? a : expand(a, s), expand(mask, s), val});
}

Tensor& masked_fill_(Tensor& a, const Tensor& mask, const Tensor& v) {
  if (broadcast_shapes(a.shape(), mask.shape(), "masked_fill_") != a.shape())
    shape_error("masked_fill_", {a.shape(), mask.shape()}, {},
                "mask of shape " + shape_str(mask.shape()) + " does not broadcast to " + shape_str(a.shape()));
  return copy_(a, masked_fill_t(a, mask, v));
}

Tensor nonzero(const Tensor& a0) {
  // a traced graph would replay the example's positions (and their count) for every input
  check_not_tracing("nonzero", "its output size depends on the values: bool-mask indexing and masked_select too");
  if (on_cuda(a0)) return to_device(nonzero(host(a0)), a0.device());  // the size depends on the data: host pass
  Tensor a = contiguous(detail::cast(a0, DType::Bool));
  const bool* p = a.data<bool>();
  int64_t n = a.numel(), nd = a.dim(), cnt = 0;
  for (int64_t i = 0; i < n; ++i) cnt += p[i];
  Tensor out = empty(Shape{cnt, nd}, DType::Int64);
  int64_t* q = out.data<int64_t>();
  SmallVec<int64_t> idx(static_cast<size_t>(nd), 0);
  for (int64_t i = 0; i < n; ++i) {
    if (p[i]) {
      for (int64_t d = 0; d < nd; ++d) *q++ = idx[d];
    }
    for (int64_t d = nd - 1; d >= 0; --d) {
      if (++idx[d] < a.size(d)) break;
      idx[d] = 0;
    }
  }
  return out;
}

Tensor masked_select(const Tensor& a, const Tensor& mask) {
  if (mask.dtype() != DType::Bool) throw TypeError("[masked_select] mask must be a bool tensor");
  Shape s = broadcast_shapes(a.shape(), mask.shape(), "masked_select");
  Tensor ab = expand(a, s), mb = expand(mask, s);
  Tensor nz = nonzero(mb);
  TensorList idx;
  for (int64_t d = 0; d < static_cast<int64_t>(s.size()); ++d) idx.push_back(select(nz, 1, d));
  if (s.empty()) return reshape(index(reshape(ab, Shape{1}), {reshape(nz, Shape{nz.size(0)})}), Shape{-1});
  return index(ab, idx);
}

namespace {
struct AdvPlan {
  std::vector<int64_t> dims;  // indexed dims of a, in order
  Shape index_shape;          // broadcast shape of the index tensors
  TensorList idx;             // int64, broadcast to index_shape, wrapped
  bool adjacent = true;
  int64_t first = 0;
};

AdvPlan plan_index(const char* op, const Tensor& a, const TensorList& indices) {
  if (static_cast<int64_t>(indices.size()) > a.dim())
    throw IndexError("too many indices for tensor of dimension " + std::to_string(a.dim()));
  AdvPlan P;
  for (size_t i = 0; i < indices.size(); ++i)
    if (indices[i].defined()) P.dims.push_back(static_cast<int64_t>(i));
  if (P.dims.empty()) throw IndexError(std::string("[") + op + "] no index tensors given");
  P.first = P.dims[0];
  for (size_t i = 1; i < P.dims.size(); ++i)
    if (P.dims[i] != P.dims[i - 1] + 1) P.adjacent = false;
  Shape bs = indices[P.dims[0]].shape();
  std::vector<Shape> shapes;
  for (auto d : P.dims) shapes.push_back(indices[d].shape());
  for (auto d : P.dims) {
    try {
      bs = broadcast_shapes(bs, indices[d].shape(), op);
    } catch (const ShapeError&) {
      throw IndexError("shape mismatch: indexing tensors could not be broadcast together with shapes " + [&] {
        std::string r;
        for (auto& s : shapes) r += shape_str(s);
        return r;
      }());
    }
  }
  P.index_shape = bs;
  // torch's rules for empty results: an index into a size-0 dim is an error when the indices
  // broadcast to at least one position (x[[], [0]] is fine, x[[0], [0]] is not), but when
  // the result itself is empty (no index positions, or a non-indexed dim of size 0) the index
  // values are never read and are not bounds-checked: zeros stand in for them.
  int64_t positions = 1, rest = 1;
  for (auto s : bs) positions *= s;
  for (int64_t i = 0; i < a.dim(); ++i)
    if (std::find(P.dims.begin(), P.dims.end(), i) == P.dims.end()) rest *= a.size(i);
  for (auto d : P.dims)
    if (a.size(d) == 0 && indices[d].numel() > 0 && positions > 0)
      throw IndexError("index is out of bounds for dimension " + std::to_string(d) + " with size 0");
  bool unread = positions == 0 || rest == 0;
  for (auto d : P.dims) {
    if (unread) {
      DeviceScope on(indices[d].device());
      P.idx.push_back(zeros(bs, DType::Int64));
      continue;
    }
    Tensor t = checked_index(op, indices[d], a.size(d), d);
    if (current_tracer()) {
      // traced: negative ids wrapped by primitives, so the graph reads the caller's index at every
      // run (the host-wrapped copy above would freeze the example's values into it)
      t = as_index(op, indices[d]);
      t = where(binary(BinaryOp::Lt, t, Scalar::from_int(0)), binary(BinaryOp::Add, t, Scalar::from_int(a.size(d))), t);
    }
    P.idx.push_back(contiguous(expand(t, bs)));
  }
  return P;
}
}  // namespace

Tensor index(const Tensor& a, const TensorList& indices) {
  AdvPlan P = plan_index("index", a, indices);
  // permute indexed dims to the front, then flatten them into one
  Dims perm = P.dims;
  Shape rest;
  for (int64_t i = 0; i < a.dim(); ++i)
    if (std::find(P.dims.begin(), P.dims.end(), i) == P.dims.end()) {
      perm.push_back(i);
      rest.push_back(a.size(i));
    }
  Tensor ap = permute(a, perm);
  int64_t prod = 1;
  for (auto d : P.dims) prod *= a.size(d);
  Shape flat{prod};
  for (auto s : rest) flat.push_back(s);
  Tensor af = reshape(ap, flat);
  int64_t n = 1;
  for (auto s : P.index_shape) n *= s;
  Tensor lin;
  // on the device, or traced (the host loop below would freeze the example's ids into the graph):
  // lin = ((i0 * s1 + i1) * s2 + i2) ... with primitives
  if (on_cuda(a) || current_tracer()) {
    lin = P.idx[0];
    for (size_t k = 1; k < P.dims.size(); ++k)
      lin = binary(BinaryOp::Add, binary(BinaryOp::Mul, lin, Scalar::from_int(a.size(P.dims[k]))), P.idx[k]);
    if (current_tracer() && P.dims.size() > 1) {
      // traced: an id outside its own dim (read at run time) could still land inside the flattened
      // dims; such a position becomes -1, which index_select refuses at every run
      Tensor bad;
      for (size_t k = 0; k < P.dims.size(); ++k) {
        const Tensor& t = P.idx[k];
        Tensor out = binary(BinaryOp::LogicalOr, binary(BinaryOp::Lt, t, Scalar::from_int(0)),
                            binary(BinaryOp::Ge, t, Scalar::from_int(a.size(P.dims[k]))));
        bad = bad.defined() ? binary(BinaryOp::LogicalOr, bad, out) : out;
      }
      Tensor minus_one;
      {
        DeviceScope on(lin.device());
        minus_one = scalar_tensor(Scalar::from_int(-1), DType::Int64);
      }
      lin = where(bad, minus_one, lin);
    }
    lin = reshape(lin, Shape{n});
  } else {
    lin = empty(Shape{n}, DType::Int64);
    int64_t* l = lin.data<int64_t>();
    for (int64_t i = 0; i < n; ++i) l[i] = 0;
    for (size_t k = 0; k < P.dims.size(); ++k) {
      const int64_t* ix = P.idx[k].data<int64_t>();
      int64_t sz = a.size(P.dims[k]);
      for (int64_t i = 0; i < n; ++i) l[i] = l[i] * sz + ix[i];
    }
  }
  Tensor r = index_select(af, 0, lin);
  Shape os = P.index_shape;
  for (auto s : rest) os.push_back(s);
  r = reshape(r, os);
  if (P.adjacent && P.first > 0) {
    // move the index dims to where the indexed dims were
    int64_t ni = static_cast<int64_t>(P.index_shape.size());
    Dims p2;
    for (int64_t i = 0; i < P.first; ++i) p2.push_back(ni + i);
    for (int64_t i = 0; i < ni; ++i) p2.push_back(i);
    for (int64_t i = ni + P.first; i < r.dim(); ++i) p2.push_back(i);
    r = permute(r, p2);
  }
  return r;
}

Tensor& index_put_(Tensor& a, const TensorList& indices, const Tensor& values0, bool accumulate) {
  if (!a.storage()->writable) throw ValueError("[index_put_] the tensor is read-only");
  if (autograd::inplace_needs_graph(a, &values0)) {
    autograd::check_inplace(a, "index_put_");
    throw std::runtime_error("[index_put_] indexed assignment is not recorded by autograd; build the tensor out of "
                             "place (e.g. with where, scatter or index_add) or do it under no_grad()");
  }
  if (current_tracer()) {  // traced: functionalized as a scatter into the flat positions
    Tensor pos = reshape(arange(Scalar::from_int(0), Scalar::from_int(a.numel()), Scalar::from_int(1), DType::Int64), a.shape());
    return autograd::assign_positions_(a, index(pos, indices), values0, accumulate, "index_put_");
  }
  if (on_cuda(a)) {  // host pass (copies a to the host and back): no CUDA kernel yet
    Tensor h = clone(host(a));
    TensorList hi;
    for (const auto& t : indices) hi.push_back(host(t));
    index_put_(h, hi, host(values0), accumulate);
    cpu::copy(a, h);
    a.bump_version();
    return a;
  }
  AdvPlan P = plan_index("index_put_", a, indices);
  Shape rest;
  Strides rest_st;
  for (int64_t i = 0; i < a.dim(); ++i)
    if (std::find(P.dims.begin(), P.dims.end(), i) == P.dims.end()) {
      rest.push_back(a.size(i));
      rest_st.push_back(a.stride(i));
    }
  // the shape a[indices] would have
  Shape rshape;
  int64_t ni = static_cast<int64_t>(P.index_shape.size());
  if (P.adjacent) {
    for (int64_t i = 0; i < P.first; ++i) rshape.push_back(a.size(i));
    for (auto s : P.index_shape) rshape.push_back(s);
    for (int64_t i = P.dims.back() + 1; i < a.dim(); ++i) rshape.push_back(a.size(i));
  } else {
    rshape = P.index_shape;
    for (auto s : rest) rshape.push_back(s);
  }
  Shape bs = broadcast_shapes(rshape, values0.shape(), "index_put_");
  if (bs != rshape)
    shape_error("index_put_", {a.shape(), values0.shape()}, {},
                "shape mismatch: value tensor of shape " + shape_str(values0.shape()) +
                    " cannot be broadcast to indexing result of shape " + shape_str(rshape));
  if (is_floating(values0.dtype()) && !is_floating(a.dtype()))
    throw TypeError(std::string("[index_put_] values of type ") + dtype_name(values0.dtype()) + " can't be cast to " + dtype_name(a.dtype()));
  Tensor v = expand(detail::cast(values0, a.dtype()), rshape);
  if (P.adjacent && P.first > 0) {
    Dims p2;
    for (int64_t i = 0; i < ni; ++i) p2.push_back(P.first + i);
    for (int64_t i = 0; i < P.first; ++i) p2.push_back(i);
    for (int64_t i = P.first + ni; i < v.dim(); ++i) p2.push_back(i);
    v = permute(v, p2);
  }
  v = contiguous(v);  // [index..., rest...]
  if (a.storage() == values0.storage()) v = clone(v);
  int64_t n = 1, m = 1;
  for (auto s : P.index_shape) n *= s;
  for (auto s : rest) m *= s;
  visit_dtype(a.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* base = a.data<T>();
    const T* src = v.data<T>();
    SmallVec<int64_t> ri(rest.size(), 0);
    for (int64_t i = 0; i < n; ++i) {
      int64_t off = 0;
      for (size_t k = 0; k < P.dims.size(); ++k) off += P.idx[k].data<int64_t>()[i] * a.stride(P.dims[k]);
      for (auto& x : ri) x = 0;
      for (int64_t j = 0; j < m; ++j) {
        int64_t o2 = off;
        for (size_t d = 0; d < rest.size(); ++d) o2 += ri[d] * rest_st[d];
        T sv = src[i * m + j];
        if (accumulate) {
          if constexpr (std::is_same_v<T, bool>) base[o2] = base[o2] || sv;
          else if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) base[o2] = T(float(base[o2]) + float(sv));
          else base[o2] = static_cast<T>(base[o2] + sv);
        } else {
          base[o2] = sv;
        }
        for (int64_t d = static_cast<int64_t>(rest.size()) - 1; d >= 0; --d) {
          if (++ri[d] < rest[d]) break;
          ri[d] = 0;
        }
      }
    }
  });
  a.bump_version();
  return a;
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

// ---------------- graph mode: rebuild a primitive from its name and attributes ----------------
std::shared_ptr<Primitive> detail::make_index_primitive(const std::string& name, const Params& attrs) {
  AttrReader r(name, attrs);
  if (name == "index_select") return std::make_shared<IndexSelect>(r.i("dim"));
  if (name == "gather") return std::make_shared<Gather>(r.i("dim"));
  if (name == "scatter" || name == "scatter_add") return std::make_shared<Scatter>(r.i("dim"), static_cast<int>(r.i("reduce")));
  if (name == "masked_fill") return std::make_shared<MaskedFill>();
  if (name == "index_add") return std::make_shared<IndexAdd>(r.i("dim"));
  return nullptr;
}

}  // namespace tt
