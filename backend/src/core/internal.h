#pragma once
// Helpers shared by the front-end ops (not installed; not part of the public C++ API).
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "typedtensor/ops.h"

namespace tt {
// An index tensor checked against a dimension of `size` (IndexError naming op, the index and the
// dim) with negative entries wrapped, as int64; a CUDA index is checked on the host (one copy).
// Defined in ops_index.cpp; the graph executor checks CUDA indices with it at every run.
// allow_negative: -size <= i < 0 counts from the end (indexing); false: only 0 <= i < size, as torch's
// index_select / index_add / gather / scatter accept.
Tensor checked_index(const char* op, const Tensor& idx, int64_t size, int64_t dim, bool allow_negative = true);
}  // namespace tt

namespace tt::detail {

[[noreturn]] inline void shape_error(const std::string& op, std::vector<Shape> shapes, Params params,
                                     const std::string& msg) {
  throw ShapeError(op, std::move(shapes), std::move(params), msg);
}

// Wrap a possibly negative `dim` of a tensor of rank `ndim` (+extra, for unsqueeze/stack), or throw
// ShapeError(op, [shape], {dim}) — the registry's shape-axis rule words the message.
inline int64_t dim_arg(const char* op, const Tensor& t, int64_t d, int64_t extra = 0) {
  int64_t n = t.dim() + extra;
  int64_t lo = n > 0 ? -n : -1, hi = n > 0 ? n - 1 : 0;
  if (d < lo || d > hi)
    shape_error(op, {t.shape()}, {{"dim", d}},
                "dimension out of range (expected to be in range of [" + std::to_string(lo) + ", " +
                    std::to_string(hi) + "], but got " + std::to_string(d) + ")");
  return d < 0 ? d + (n > 0 ? n : 1) : d;
}

// `t` made usable next to tensors on `d` by code that calls kernels directly (in-place ops): the same
// tensor, a CPU scalar uploaded to the device, or the "expected all tensors on the same device" error.
Tensor match_device(const Tensor& t, Device d, const char* op);  // dispatch.cpp

// A Python number (a wrapped 0-d CPU tensor, float64 for a float) converted to the type an op
// computes in: a fresh wrapped scalar, not a cast primitive (no graph node, no autograd).
Tensor convert_wrapped(const Tensor& t, DType d);  // dispatch.cpp
inline Tensor cast(const Tensor& t, DType d) {
  if (t.dtype() == d) return t;
  if (t.impl()->wrapped_number && t.dim() == 0 && t.device().type == DeviceType::CPU) return convert_wrapped(t, d);
  return to_dtype(t, d);
}

inline void check_same_float(const char* op, const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype())
    throw TypeError(std::string("[") + op + "] expected both inputs to have the same dtype, but got " + dtype_name(a.dtype()) +
                    " and " + dtype_name(b.dtype()));
}

inline bool can_cast(DType from, DType to) {
  if (is_floating(from) && !is_floating(to)) return false;
  if (from != DType::Bool && to == DType::Bool) return false;
  return true;
}

// [outer, r, inner] sizes around dim d (contiguous layout)
inline void split_at(const Shape& s, int64_t d, int64_t* outer, int64_t* r, int64_t* inner) {
  *outer = 1;
  *inner = 1;
  for (int64_t i = 0; i < d; ++i) *outer *= s[i];
  *r = s.empty() ? 1 : s[d];
  for (size_t i = d + 1; i < s.size(); ++i) *inner *= s[i];
}

// ---- output types (Primitive::output_types) ----
// The checks a primitive makes of its input types before computing its outputs': each failure is a
// ValueError "[op] ..." (the graph verifier reports it for the node).
class TypeCheck {
 public:
  TypeCheck(const char* op, const TypeList& in) : op_(op), in_(in) {}
  [[noreturn]] void fail(const std::string& msg) const { throw ValueError(std::string("[") + op_ + "] " + msg); }
  // input i, which must be there
  const TensorType& operator[](size_t i) const {
    if (i >= in_.size() || !in_[i].defined) fail("missing input " + std::to_string(i));
    return in_[i];
  }
  size_t size() const { return in_.size(); }
  // exactly n inputs
  const TypeCheck& count(size_t n) const {
    if (in_.size() != n) fail("expected " + std::to_string(n) + " inputs, got " + std::to_string(in_.size()));
    for (size_t i = 0; i < n; ++i) (*this)[i];
    return *this;
  }
  void shape(size_t i, const Shape& want, const char* what) const {
    if ((*this)[i].shape != want) fail(std::string(what) + " shape " + shape_str(in_[i].shape) + " != " + shape_str(want));
  }
  void dtype(size_t i, DType want, const char* what) const {
    if ((*this)[i].dtype != want)
      fail(std::string(what) + " must be " + dtype_name(want) + ", got " + dtype_name(in_[i].dtype));
  }
  void same_dtype(size_t i, size_t j) const {
    if ((*this)[i].dtype != (*this)[j].dtype)
      fail("dtypes differ: " + std::string(dtype_name(in_[i].dtype)) + " and " + dtype_name(in_[j].dtype));
  }
  // float32 or float64 (the conv, pool and norm kernels)
  void real(size_t i) const {
    DType d = (*this)[i].dtype;
    if (d != DType::Float32 && d != DType::Float64) fail(std::string("needs float32 or float64, got ") + dtype_name(d));
  }
  void rank(size_t i, size_t r, const char* what) const {
    if ((*this)[i].shape.size() != r) fail(std::string(what) + " must have rank " + std::to_string(r) + ", got " + shape_str(in_[i].shape));
  }
  // a dim of a tensor of this rank (0-d tensors take dim 0)
  void dim(int64_t d, size_t rank) const {
    if (d < 0 || d >= std::max<int64_t>(static_cast<int64_t>(rank), 1)) fail("dim " + std::to_string(d) + " out of range");
  }

 private:
  const char* op_;
  const TypeList& in_;
};

// Empty outputs of the types p.output_types gives for these inputs (on the current device): how an
// eval sizes its outputs.
inline TensorList alloc_outputs(const Primitive& p, const TensorList& in) {
  TensorList r;
  for (const TensorType& t : p.output_types(types_of(in))) r.push_back(empty(t.shape, t.dtype));
  return r;
}
inline Tensor alloc_output(const Primitive& p, const TensorList& in) { return alloc_outputs(p, in)[0]; }

// The shape of a reduction over the dims `mask` marks (kept as size 1 with keepdim).
inline Shape reduced_shape(const Shape& in, const std::vector<bool>& mask, bool keepdim) {
  Shape out;
  for (size_t i = 0; i < in.size(); ++i) {
    if (!mask[i]) out.push_back(in[i]);
    else if (keepdim) out.push_back(1);
  }
  return out;
}

// ---- graph mode: primitive attributes (Primitive::attrs) and the per-file factories behind
// make_primitive (dispatch.cpp). A factory returns nullptr for a name it does not own and throws
// ValueError for missing or mistyped attributes (a loaded file is untrusted input).
inline std::vector<int64_t> mask_attr(const std::vector<bool>& m) {
  std::vector<int64_t> v;
  for (bool b : m) v.push_back(b ? 1 : 0);
  return v;
}

class AttrReader {
 public:
  AttrReader(const std::string& op, const Params& p) : op_(op), p_(p) {}
  bool has(const char* key) const { return find(key) != nullptr; }
  int64_t i(const char* key) const { return get<int64_t>(key); }
  double f(const char* key) const { return get<double>(key); }
  bool b(const char* key) const { return get<bool>(key); }
  std::vector<int64_t> ints(const char* key) const { return get<std::vector<int64_t>>(key); }
  std::vector<bool> mask(const char* key) const {
    std::vector<bool> m;
    for (int64_t v : ints(key)) {
      if (v != 0 && v != 1) bad(key);
      m.push_back(v == 1);
    }
    return m;
  }
  Shape shape(const char* key) const {
    auto v = ints(key);
    if (v.size() > 64) bad(key);
    return Shape(v.begin(), v.end());
  }

 private:
  const ParamValue* find(const char* key) const {
    for (const auto& kv : p_)
      if (kv.first == key) return &kv.second;
    return nullptr;
  }
  template <class T>
  T get(const char* key) const {
    const ParamValue* v = find(key);
    if (!v || !std::holds_alternative<T>(*v)) bad(key);
    return std::get<T>(*v);
  }
  [[noreturn]] void bad(const char* key) const {
    throw ValueError("primitive '" + op_ + "': missing or malformed attribute '" + key + "'");
  }
  const std::string& op_;
  const Params& p_;
};

std::shared_ptr<Primitive> make_attention_primitive(const std::string& name, const Params& attrs);
std::shared_ptr<Primitive> make_elementwise_primitive(const std::string& name, const Params& attrs);
std::shared_ptr<Primitive> make_index_primitive(const std::string& name, const Params& attrs);
std::shared_ptr<Primitive> make_linalg_primitive(const std::string& name, const Params& attrs);
std::shared_ptr<Primitive> make_norm_loss_primitive(const std::string& name, const Params& attrs);
std::shared_ptr<Primitive> make_conv_pool_primitive(const std::string& name, const Params& attrs);
std::shared_ptr<Primitive> make_reduce_primitive(const std::string& name, const Params& attrs);
std::shared_ptr<Primitive> make_rnn_primitive(const std::string& name, const Params& attrs);
std::shared_ptr<Primitive> make_shape_primitive(const std::string& name, const Params& attrs);

}  // namespace tt::detail

// ---- small front-end shorthands for VJPs (backend/src/core/ops_*.cpp) ----
namespace tt::vjp {
inline Tensor mul(const Tensor& a, const Tensor& b) { return binary(BinaryOp::Mul, a, b); }
inline Tensor mul(const Tensor& a, double s) { return binary(BinaryOp::Mul, a, Scalar::from_double(s)); }
inline Tensor add(const Tensor& a, const Tensor& b) { return binary(BinaryOp::Add, a, b); }
inline Tensor add(const Tensor& a, double s) { return binary(BinaryOp::Add, a, Scalar::from_double(s)); }
inline Tensor sub(const Tensor& a, const Tensor& b) { return binary(BinaryOp::Sub, a, b); }
inline Tensor div(const Tensor& a, const Tensor& b) { return binary(BinaryOp::Div, a, b); }
inline Tensor neg(const Tensor& a) { return unary(UnaryOp::Neg, a); }
inline Tensor un(UnaryOp op, const Tensor& a) { return unary(op, a); }
inline Tensor cmp(BinaryOp op, const Tensor& a, double s) { return binary(op, a, Scalar::from_double(s)); }
inline Tensor as(const Tensor& mask, const Tensor& like) { return to_dtype(mask, like.dtype()); }
// g where mask, else 0
inline Tensor keep(const Tensor& mask, const Tensor& g) { return where(mask, g, scalar_tensor(Scalar::from_int(0), g.dtype())); }
inline Tensor zeros_as(const Tensor& meta) { return zeros(meta.shape(), meta.dtype()); }
// sum over `dims` keeping them, then view as `shape` (reduction layouts are contiguous)
inline Tensor sum_keep(const Tensor& g, const Dims& dims) { return reduce(ReduceOp::Sum, g, dims, true, std::nullopt); }
}  // namespace tt::vjp
