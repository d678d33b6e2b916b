// The IR: values, nodes, the text form and the verifier.
#include <algorithm>
#include <cstdio>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include "internal.h"
#include "typedtensor/op_info.h"
#include "typedtensor/ops.h"

namespace tt::graph {

const char* kind_name(ValueKind k) {
  switch (k) {
    case ValueKind::Input: return "input";
    case ValueKind::Capture: return "capture";
    case ValueKind::Const: return "const";
    default: return "node";
  }
}

namespace {
const char* short_dtype(DType d) {
  static const char* n[] = {"bool", "u8", "i32", "i64", "f16", "bf16", "f32", "f64"};
  return n[static_cast<int>(d)];
}

std::string fmt_double(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

std::string ints_str(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

// A one-element tensor's value as text (for printing constants).
std::string scalar_text(const Tensor& t) {
  Tensor c = contiguous(to_dtype(t, DType::Float64));
  return fmt_double(*c.data<double>());
}

bool has_kind(const std::string& op, OpKind k) {
  const OpInfo* info = primitive_info(op);
  return info && info->kind == k;
}

[[noreturn]] void fail(const Node& n, const std::string& msg) {
  throw GraphError("graph verifier: node " + n.op + ": " + msg);
}

template <class T>
const T* attr(const Node& n, const char* key) {
  if (!n.attrs) return nullptr;
  for (const auto& kv : *n.attrs)
    if (kv.first == key && std::holds_alternative<T>(kv.second)) return &std::get<T>(kv.second);
  return nullptr;
}

template <class T>
const T& need(const Node& n, const char* key) {
  const T* v = attr<T>(n, key);
  if (!v) fail(n, std::string("missing attribute '") + key + "'");
  return *v;
}

Shape reduced_shape(const Node& n, const Shape& in, const std::vector<int64_t>& mask, bool keepdim) {
  if (mask.size() != in.size()) fail(n, "reduction mask does not match the input's rank");
  Shape out;
  for (size_t i = 0; i < in.size(); ++i) {
    if (!mask[i]) out.push_back(in[i]);
    else if (keepdim) out.push_back(1);
  }
  return out;
}

// Checks shared by the op families below.
struct NodeView {
  const Graph& g;
  const Node& n;
  const Value& in(size_t i) const {
    if (i >= n.inputs.size() || n.inputs[i] < 0) fail(n, "missing input " + std::to_string(i));
    return g.values[n.inputs[i]];
  }
  const Value& out(size_t i) const {
    if (i >= n.outputs.size()) fail(n, "missing output " + std::to_string(i));
    return g.values[n.outputs[i]];
  }
  void nin(size_t k) const {
    if (n.inputs.size() != k) fail(n, "expected " + std::to_string(k) + " inputs");
  }
  void nout(size_t k) const {
    if (n.outputs.size() != k) fail(n, "expected " + std::to_string(k) + " outputs");
  }
  void is(const Shape& got, const Shape& want, const char* what) const {
    if (got != want) fail(n, std::string(what) + " shape " + shape_str(got) + " != " + shape_str(want));
  }
  void real(const Value& v) const {  // the conv / pool kernels run float32 and float64
    if (v.dtype != DType::Float32 && v.dtype != DType::Float64) fail(n, "needs float32 or float64");
  }
  void rank(const Value& v, size_t r, const char* what) const {
    if (v.shape.size() != r) fail(n, std::string(what) + " must have rank " + std::to_string(r));
  }
};

// The pooling output size (the formula of the front end, backend/src/core/ops_conv_pool.cpp).
int64_t pool_out(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil_mode) {
  int64_t eff = d * (k - 1) + 1;
  int64_t num = in + 2 * p - eff;
  int64_t out = (num < 0 ? -((-num + s - 1) / s) : (ceil_mode ? (num + s - 1) / s : num / s)) + 1;
  if (ceil_mode && (out - 1) * s >= in + p) --out;
  return out;
}

constexpr int64_t kMaxGeom = int64_t{1} << 31;  // window parameters beyond this are not real

bool in_range(const std::vector<int64_t>& v, int64_t lo) {
  for (int64_t x : v)
    if (x < lo || x > kMaxGeom) return false;
  return true;
}

// conv2d and its two VJP pieces: x [N, C, H, W], w [O, C/g, kh, kw], y [N, O, oh, ow].
void check_conv(const NodeView& c, const std::vector<int64_t>& geom, const Shape& x, const Shape& w, const Shape& y) {
  const Node& n = c.n;
  if (geom.size() < 7) fail(n, "malformed attribute 'geom'");
  int64_t sh = geom[0], sw = geom[1], ph = geom[2], pw = geom[3], dh = geom[4], dw = geom[5], gr = geom[6];
  if (!in_range({sh, sw, dh, dw, gr}, 1) || !in_range({ph, pw}, 0)) fail(n, "stride/padding/dilation/groups out of range");
  if (x.size() != 4 || w.size() != 4 || y.size() != 4) fail(n, "operands must be 4-D");
  if (x[1] != w[1] * gr || w[0] % gr != 0 || y[0] != x[0] || y[1] != w[0]) fail(n, "channels / groups do not match");
  int64_t eh = dh * (w[2] - 1) + 1, ew = dw * (w[3] - 1) + 1;
  if (w[2] < 1 || w[3] < 1 || w[2] > kMaxGeom || w[3] > kMaxGeom || x[2] + 2 * ph < eh || x[3] + 2 * pw < ew) fail(n, "kernel larger than the padded input");
  Shape want{x[0], w[0], (x[2] + 2 * ph - eh) / sh + 1, (x[3] + 2 * pw - ew) / sw + 1};
  c.is(y, want, "conv output");
}

// max/avg pooling window: the output size is the floor or the ceil_mode size of the formula.
void check_pool_window(const NodeView& c, const std::vector<int64_t>& k, int64_t dh, int64_t dw, const Shape& x,
                       const Shape& y) {
  const Node& n = c.n;
  int64_t kh = k[0], kw = k[1], sh = k[2], sw = k[3], ph = k[4], pw = k[5];
  if (!in_range({kh, kw, sh, sw, dh, dw}, 1) || !in_range({ph, pw}, 0) || ph > kh / 2 || pw > kw / 2)
    fail(n, "window parameters out of range");
  if (x.size() != 4 || y.size() != 4 || x[0] != y[0] || x[1] != y[1]) fail(n, "operands must be 4-D with equal N, C");
  for (int a = 0; a < 2; ++a) {
    int64_t i = x[2 + a], o = y[2 + a], kk = a ? kw : kh, ss = a ? sw : sh, pp = a ? pw : ph, dd = a ? dw : dh;
    if (o != pool_out(i, kk, ss, pp, dd, false) && o != pool_out(i, kk, ss, pp, dd, true)) fail(n, "output size");
    if (o < 1) fail(n, "output size");
  }
}

bool check_nn_node(const Graph& g, const Node& n) {
  NodeView c{g, n};
  const std::string& op = n.op;
  if (op == "gelu_backward" || op == "gelu_tanh_backward" || op == "silu_backward" || op == "relu_backward") {
    c.nin(2);
    c.nout(1);
    c.is(c.in(0).shape, c.out(0).shape, "gradient");
    c.is(c.in(1).shape, c.out(0).shape, "input");
    c.real(c.in(0));
    if (c.in(1).dtype != c.in(0).dtype || c.out(0).dtype != c.in(0).dtype) fail(n, "dtypes differ");
    return true;
  }
  if (op == "cross_entropy" || op == "cross_entropy_backward") {  // target values: checked per run
    bool bwd = op == "cross_entropy_backward";
    need<int64_t>(n, "ignore_index");
    need<bool>(n, "mean");
    c.nin(bwd ? 3 : 2);
    c.nout(1);
    const Value &x = c.in(0), &t = c.in(1);
    if (x.dtype != DType::Float32 && x.dtype != DType::Float64) fail(n, "logits must be float32 or float64");
    c.rank(x, 2, "logits");
    c.rank(t, 1, "targets");
    if (t.dtype != DType::Int64 || t.shape[0] != x.shape[0]) fail(n, "targets must be int64 [n]");
    if (bwd) {
      c.is(c.in(2).shape, Shape{}, "gradient");
      if (c.in(2).dtype != x.dtype) fail(n, "dtypes differ");
    }
    c.is(c.out(0).shape, bwd ? x.shape : Shape{}, "output");
    if (c.out(0).dtype != x.dtype) fail(n, "output dtype");
    return true;
  }
  if (op == "conv2d") {
    bool bias = need<bool>(n, "bias");
    const auto& geom = need<std::vector<int64_t>>(n, "geom");
    c.nin(bias ? 3 : 2);
    c.nout(1);
    if (geom.size() != 9) fail(n, "malformed attribute 'geom'");
    check_conv(c, geom, c.in(0).shape, c.in(1).shape, c.out(0).shape);
    if (c.out(0).shape[2] != geom[7] || c.out(0).shape[3] != geom[8]) fail(n, "output size differs from attribute");
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      c.real(c.in(i));
      if (c.in(i).dtype != c.in(0).dtype) fail(n, "dtypes differ");
    }
    if (bias) c.is(c.in(2).shape, Shape{c.in(1).shape[0]}, "bias");
    if (c.out(0).dtype != c.in(0).dtype) fail(n, "output dtype");
    return true;
  }
  if (op == "conv2d_backward_input" || op == "conv2d_backward_weight") {
    c.nin(2);
    c.nout(1);
    Shape s = need<std::vector<int64_t>>(n, "shape");
    const Value &gy = c.in(0), &other = c.in(1);
    if (op == "conv2d_backward_input") check_conv(c, need<std::vector<int64_t>>(n, "geom"), s, other.shape, gy.shape);
    else check_conv(c, need<std::vector<int64_t>>(n, "geom"), other.shape, s, gy.shape);
    c.is(c.out(0).shape, s, "output");
    c.real(gy);
    if (other.dtype != gy.dtype || c.out(0).dtype != gy.dtype) fail(n, "dtypes differ");
    return true;
  }
  if (op == "max_pool2d" || op == "avg_pool2d" || op == "adaptive_avg_pool2d") {
    const auto& geom = need<std::vector<int64_t>>(n, "geom");
    need<bool>(n, "count_include_pad");
    if (geom.size() != 11) fail(n, "malformed attribute 'geom'");
    c.nin(1);
    c.nout(op == "max_pool2d" ? 2 : 1);
    const Value& x = c.in(0);
    if (op == "max_pool2d" ? x.dtype == DType::Bool : (x.dtype != DType::Float32 && x.dtype != DType::Float64))
      fail(n, std::string("dtype ") + dtype_name(x.dtype) + " not supported");
    c.rank(x, 4, "input");
    Shape want{x.shape[0], x.shape[1], geom[8], geom[9]};
    c.is(c.out(0).shape, want, "output");
    if (c.out(0).dtype != x.dtype) fail(n, "output dtype");
    if (op == "adaptive_avg_pool2d") {
      if (geom[8] < 0 || geom[9] < 0 || x.shape[2] < 1 || x.shape[3] < 1) fail(n, "sizes");
    } else {
      check_pool_window(c, geom, geom[6], geom[7], x.shape, want);
    }
    if (op == "max_pool2d" && (c.out(1).shape != want || c.out(1).dtype != DType::Int64)) fail(n, "index output");
    return true;
  }
  if (op == "avg_pool2d_backward" || op == "adaptive_avg_pool2d_backward" || op == "max_pool2d_backward") {
    bool mx = op == "max_pool2d_backward";
    c.nin(mx ? 2 : 1);
    c.nout(1);
    Shape xs = need<std::vector<int64_t>>(n, "shape");
    const Value& gy = c.in(0);
    c.real(gy);
    c.rank(gy, 4, "gradient");
    if (xs.size() != 4 || xs[0] != gy.shape[0] || xs[1] != gy.shape[1]) fail(n, "input shape attribute");
    c.is(c.out(0).shape, xs, "output");
    if (c.out(0).dtype != gy.dtype) fail(n, "output dtype");
    if (mx) {
      if (c.in(1).dtype != DType::Int64) fail(n, "indices must be int64");
      c.is(c.in(1).shape, gy.shape, "indices");  // their values are checked at run time
    } else if (op == "avg_pool2d_backward") {
      const auto& geom = need<std::vector<int64_t>>(n, "geom");
      if (geom.size() != 7) fail(n, "malformed attribute 'geom'");
      check_pool_window(c, geom, 1, 1, xs, gy.shape);
    } else if (xs[2] < 1 || xs[3] < 1) {
      fail(n, "sizes");
    }
    return true;
  }
  return false;
}

// Index ops: index values are checked against their dimension when the kernel runs; here the
// shapes the kernels trust.
bool check_index_node(const Graph& g, const Node& n) {
  NodeView c{g, n};
  const std::string& op = n.op;
  auto dim_of = [&](const Shape& s) {
    int64_t d = need<int64_t>(n, "dim");
    if (d < 0 || d >= std::max<int64_t>(static_cast<int64_t>(s.size()), 1)) fail(n, "dim out of range");
    return d;
  };
  auto index = [&](size_t i) -> const Value& {
    if (c.in(i).dtype != DType::Int64) fail(n, "index must be int64");
    return c.in(i);
  };
  if (op == "index_select") {
    c.nin(2);
    c.nout(1);
    const Value &a = c.in(0), &idx = index(1);
    int64_t d = dim_of(a.shape);
    if (idx.shape.size() > 1) fail(n, "index must be 0-D or 1-D");
    Shape want = a.shape;
    if (!want.empty()) want[d] = shape_numel(idx.shape);
    c.is(c.out(0).shape, want, "output");
    if (c.out(0).dtype != a.dtype) fail(n, "output dtype");
    return true;
  }
  auto gather_like = [&](const Shape& a, const Shape& idx, int64_t d) {
    if (idx.size() != a.size() && !(idx.size() <= 1 && a.size() <= 1)) fail(n, "index rank differs from the input's");
    for (size_t i = 0; i < idx.size(); ++i)
      if (static_cast<int64_t>(i) != d && i < a.size() && idx[i] > a[i]) fail(n, "index larger than the input");
  };
  if (op == "gather") {
    c.nin(2);
    c.nout(1);
    const Value &a = c.in(0), &idx = index(1);
    gather_like(a.shape, idx.shape, dim_of(a.shape));
    c.is(c.out(0).shape, idx.shape, "output");
    if (c.out(0).dtype != a.dtype) fail(n, "output dtype");
    return true;
  }
  if (op == "scatter" || op == "scatter_add") {
    c.nin(3);
    c.nout(1);
    const Value &a = c.in(0), &idx = index(1), &src = c.in(2);
    int64_t d = dim_of(a.shape), red = need<int64_t>(n, "reduce");
    if (red < 0 || red > 2 || (red == 1) != (op == "scatter_add")) fail(n, "reduce out of range");
    gather_like(a.shape, idx.shape, d);
    if (src.shape.size() != idx.shape.size()) fail(n, "source rank");
    for (size_t i = 0; i < idx.shape.size(); ++i)
      if (idx.shape[i] > src.shape[i]) fail(n, "index larger than the source");
    if (src.dtype != a.dtype || c.out(0).dtype != a.dtype) fail(n, "dtypes differ");
    c.is(c.out(0).shape, a.shape, "output");
    return true;
  }
  if (op == "index_add") {
    c.nin(3);
    c.nout(1);
    const Value &a = c.in(0), &idx = index(1), &src = c.in(2);
    if (a.shape.empty()) fail(n, "needs at least 1-D input");
    int64_t d = dim_of(a.shape);
    c.rank(idx, 1, "index");
    Shape want = a.shape;
    want[d] = idx.shape[0];
    c.is(src.shape, want, "source");
    if (src.dtype != a.dtype || c.out(0).dtype != a.dtype) fail(n, "dtypes differ");
    c.is(c.out(0).shape, a.shape, "output");
    return true;
  }
  if (op == "masked_fill") {
    c.nin(3);
    c.nout(1);
    const Value &a = c.in(0), &m = c.in(1), &v = c.in(2);
    if (m.dtype != DType::Bool) fail(n, "mask must be bool");
    c.is(m.shape, a.shape, "mask");
    if (!v.shape.empty() || v.dtype != a.dtype) fail(n, "value must be 0-D of the input's dtype");
    c.is(c.out(0).shape, a.shape, "output");
    if (c.out(0).dtype != a.dtype) fail(n, "output dtype");
    return true;
  }
  return false;
}

// Copies of other layouts: flip, repeat, tril/triu, and the strided views' gradients.
bool check_shape_node(const Graph& g, const Node& n) {
  NodeView c{g, n};
  const std::string& op = n.op;
  if (op == "flip" || op == "tril" || op == "triu") {
    c.nin(1);
    c.nout(1);
    const Value& a = c.in(0);
    c.is(c.out(0).shape, a.shape, "output");
    if (c.out(0).dtype != a.dtype) fail(n, "dtype changed");
    if (op == "flip") {
      std::set<int64_t> seen;
      for (int64_t d : need<std::vector<int64_t>>(n, "dims"))
        if (d < 0 || d >= static_cast<int64_t>(a.shape.size()) || !seen.insert(d).second) fail(n, "dims");
    } else {
      need<int64_t>(n, "k");
      if (a.shape.size() < 2) fail(n, "needs at least 2-D input");
    }
    return true;
  }
  if (op == "repeat") {
    c.nin(1);
    c.nout(1);
    const Value& a = c.in(0);
    const auto& reps = need<std::vector<int64_t>>(n, "reps");
    if (reps.size() < a.shape.size()) fail(n, "fewer repeats than dims");
    Shape want;
    size_t k = reps.size() - a.shape.size();
    for (size_t i = 0; i < reps.size(); ++i) {
      int64_t s = i < k ? 1 : a.shape[i - k];
      if (reps[i] < 0 || (s > 0 && reps[i] > std::numeric_limits<int64_t>::max() / s)) fail(n, "repeats");
      want.push_back(reps[i] * s);
    }
    c.is(c.out(0).shape, want, "output");
    if (c.out(0).dtype != a.dtype) fail(n, "dtype changed");
    return true;
  }
  if (op == "slice_backward" || op == "select_backward" || op == "diagonal_backward" || op == "as_strided_backward") {
    c.nin(1);
    c.nout(1);
    Shape view = need<std::vector<int64_t>>(n, "shape"), in_shape = need<std::vector<int64_t>>(n, "in_shape");
    const auto& st = need<std::vector<int64_t>>(n, "strides");
    if (st.size() != view.size() || need<int64_t>(n, "offset") < 0) fail(n, "view geometry");
    for (int64_t x : st)
      if (x < 0) fail(n, "negative stride");
    c.is(c.in(0).shape, view, "gradient");
    c.is(c.out(0).shape, in_shape, "output");  // the view is bounds-checked against it at run time
    if (c.out(0).dtype != c.in(0).dtype) fail(n, "dtype changed");
    return true;
  }
  return false;
}

// Shape/dtype checks for the ops a saved graph may hold (a loaded file is untrusted: every kernel
// that trusts its input geometry is guarded here).
void check_node(const Graph& g, const Node& n) {
  auto in = [&](size_t i) -> const Value& {
    if (i >= n.inputs.size() || n.inputs[i] < 0) fail(n, "missing input " + std::to_string(i));
    return g.values[n.inputs[i]];
  };
  auto out = [&](size_t i) -> const Value& {
    if (i >= n.outputs.size()) fail(n, "missing output " + std::to_string(i));
    return g.values[n.outputs[i]];
  };
  auto nin = [&](size_t k) {
    if (n.inputs.size() != k) fail(n, "expected " + std::to_string(k) + " inputs");
  };
  const std::string& op = n.op;
  if (op == "fused") return;  // its body was checked when it was built
  if (!n.attrs) return;       // opaque (a device transfer): never saved, so never loaded from a file
  if (is_elementwise(op)) {
    if (n.outputs.size() != 1) fail(n, "expected one output");
    const Value& o = out(0);
    for (size_t i = 0; i < n.inputs.size(); ++i)
      if (in(i).shape != o.shape)
        fail(n, "input " + std::to_string(i) + " shape " + shape_str(in(i).shape) + " != output shape " + shape_str(o.shape));
    if (op == "where") {
      nin(3);
      if (in(0).dtype != DType::Bool) fail(n, "condition must be bool");
      if (in(1).dtype != in(2).dtype || in(1).dtype != o.dtype) fail(n, "dtypes differ");
    } else if (op == "to") {
      nin(1);
      if (static_cast<int64_t>(o.dtype) != need<int64_t>(n, "dtype")) fail(n, "output dtype differs from attribute");
    } else {
      nin(binary_op_named(op) ? 2 : 1);
      if (n.inputs.size() == 2 && in(0).dtype != in(1).dtype) fail(n, "input dtypes differ");
      DType want = bool_result(primitive_info(op)->dtype) ? DType::Bool : in(0).dtype;
      if (o.dtype != want) fail(n, std::string("output dtype ") + dtype_name(o.dtype) + " != " + dtype_name(want));
    }
    return;
  }
  if (op == "expand" || op == "reshape" || op == "permute") {
    nin(1);
    if (n.outputs.size() != 1) fail(n, "expected one output");
    const Value &a = in(0), &o = out(0);
    if (a.dtype != o.dtype) fail(n, "dtype changed");
    if (op == "expand") {
      Shape s = need<std::vector<int64_t>>(n, "shape");
      if (s != o.shape || a.shape.size() > s.size()) fail(n, "shape attribute differs from output");
      size_t k = s.size() - a.shape.size();
      for (size_t i = 0; i < a.shape.size(); ++i)
        if (a.shape[i] != s[k + i] && a.shape[i] != 1) fail(n, "input " + shape_str(a.shape) + " does not broadcast to " + shape_str(s));
    } else if (op == "reshape") {
      Shape s = need<std::vector<int64_t>>(n, "shape");
      for (int64_t d : s)
        if (d < 0) fail(n, "negative size");
      if (s != o.shape || shape_numel(s) != shape_numel(a.shape)) fail(n, "reshape changes the number of elements");
    } else {
      const auto& d = need<std::vector<int64_t>>(n, "dims");
      if (d.size() != a.shape.size()) fail(n, "permutation rank");
      std::vector<bool> seen(d.size(), false);
      Shape s;
      for (int64_t k : d) {
        if (k < 0 || k >= static_cast<int64_t>(d.size()) || seen[k]) fail(n, "not a permutation");
        seen[k] = true;
        s.push_back(a.shape[k]);
      }
      if (s != o.shape) fail(n, "output shape");
    }
    return;
  }
  if (op == "slice" || op == "select" || op == "diagonal" || op == "as_strided") {
    nin(1);
    Shape s = need<std::vector<int64_t>>(n, "shape");
    const auto& st = need<std::vector<int64_t>>(n, "strides");
    if (s != out(0).shape || st.size() != s.size() || need<int64_t>(n, "offset") < 0) fail(n, "view geometry");
    for (int64_t x : st)
      if (x < 0) fail(n, "negative stride");
    if (in(0).dtype != out(0).dtype) fail(n, "dtype changed");
    return;  // bounds are checked against the storage at run time
  }
  if (has_kind(op, OpKind::Reduction)) {  // a masked reduction
    nin(1);
    Shape s = reduced_shape(n, in(0).shape, need<std::vector<int64_t>>(n, "mask"), need<bool>(n, "keepdim"));
    if (s != out(0).shape) fail(n, "output shape " + shape_str(out(0).shape) + " != " + shape_str(s));
    return;
  }
  if (op == "max" || op == "min" || op == "argmax" || op == "argmin") {
    nin(1);
    const Shape& a = in(0).shape;
    int64_t d = need<int64_t>(n, "dim");
    if (!a.empty() && (d < 0 || d >= static_cast<int64_t>(a.size()))) fail(n, "dim out of range");
    std::vector<int64_t> mask(a.size(), 0);
    if (!a.empty()) mask[d] = 1;
    Shape s = reduced_shape(n, a, mask, need<bool>(n, "keepdim"));
    for (int o : n.outputs)
      if (g.values[o].shape != s) fail(n, "output shape");
    return;
  }
  if (op == "softmax" || op == "log_softmax" || op == "cumsum" || op == "cumprod") {
    nin(1);
    int64_t d = need<int64_t>(n, "dim");
    int64_t r = static_cast<int64_t>(in(0).shape.size());
    if (d < 0 || d >= std::max<int64_t>(r, 1)) fail(n, "dim out of range");
    if (out(0).shape != in(0).shape) fail(n, "output shape");
    return;
  }
  if (op == "matmul") {
    nin(2);
    const Shape &a = in(0).shape, &b = in(1).shape, &o = out(0).shape;
    if (a.size() < 2 || a.size() != b.size() || in(0).dtype != in(1).dtype) fail(n, "operands");
    size_t r = a.size();
    Shape want = a;
    want[r - 1] = b[r - 1];
    for (size_t i = 0; i + 2 < r; ++i)
      if (a[i] != b[i]) fail(n, "batch dims differ");
    if (a[r - 1] != b[r - 2] || want != o) fail(n, "inner dims / output shape");
    return;
  }
  if (op == "cat") {
    if (n.inputs.empty()) fail(n, "no inputs");
    int64_t d = need<int64_t>(n, "dim");
    const Shape& a = in(0).shape;
    if (d < 0 || d >= static_cast<int64_t>(a.size())) fail(n, "dim out of range");
    Shape want = a;
    want[d] = 0;
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      const Shape& s = in(i).shape;
      if (s.size() != a.size() || in(i).dtype != in(0).dtype) fail(n, "operands differ");
      for (size_t k = 0; k < s.size(); ++k)
        if (static_cast<int64_t>(k) != d && s[k] != a[k]) fail(n, "operands differ");
      want[d] += s[d];
    }
    if (want != out(0).shape) fail(n, "output shape");
    return;
  }
  if (op == "layer_norm") {
    int64_t cols = need<int64_t>(n, "cols");
    size_t k = 1 + (need<bool>(n, "weight") ? 1 : 0) + (need<bool>(n, "bias") ? 1 : 0);
    nin(k);
    const Value& x = in(0);
    if (cols <= 0 || shape_numel(x.shape) % cols != 0 || out(0).shape != x.shape) fail(n, "geometry");
    if (x.shape.empty() || x.shape.back() > cols || cols % x.shape.back() != 0) fail(n, "normalized shape");
    for (size_t i = 1; i < k; ++i)
      if (shape_numel(in(i).shape) != cols || in(i).dtype != x.dtype) fail(n, "affine parameters");
    return;
  }
  if (check_nn_node(g, n)) return;
  if (check_index_node(g, n)) return;
  if (check_shape_node(g, n)) return;
}

}  // namespace

std::string attrs_str(const Params& p) {
  std::string s;
  for (const auto& [k, v] : p) {
    s += (s.empty() ? "" : ", ") + k + "=";
    if (auto i = std::get_if<int64_t>(&v)) s += std::to_string(*i);
    else if (auto d = std::get_if<double>(&v)) s += fmt_double(*d);
    else if (auto b = std::get_if<bool>(&v)) s += *b ? "true" : "false";
    else if (auto str = std::get_if<std::string>(&v)) s += *str;
    else s += ints_str(std::get<std::vector<int64_t>>(v));
  }
  return s;
}

std::string value_type_str(const Value& v) {
  std::string s = short_dtype(v.dtype);
  s += "[";
  for (size_t i = 0; i < v.shape.size(); ++i) s += (i ? ", " : "") + std::to_string(v.shape[i]);
  return s + "]";
}

bool is_elementwise(const std::string& op) { return has_kind(op, OpKind::Elementwise); }
bool is_view(const std::string& op) { return has_kind(op, OpKind::View) || has_kind(op, OpKind::StridedView); }

TensorList eval_primitive(const std::shared_ptr<Primitive>& p, const TensorList& inputs) {
  bool cuda = false;
  for (const auto& t : inputs)
    if (t.defined()) {
      cuda = t.device().type == DeviceType::CUDA;
      break;
    }
  // CUDA through the dispatch point: its device scope (allocations on the device) and its upload
  // of CPU scalars (a graph's constants live on the host); nothing is recorded (EvalGuard).
  return cuda ? apply(p, inputs) : p->eval_cpu(inputs);
}

int Graph::add_value(ValueKind k, const Shape& s, DType d, Tensor data) {
  Value v;
  v.kind = k;
  v.shape = s;
  v.dtype = d;
  v.data = std::move(data);
  values.push_back(std::move(v));
  return static_cast<int>(values.size()) - 1;
}

namespace {
void print_node(std::ostringstream& os, const Graph& g, const Node& n, const std::string& indent) {
  os << indent;
  for (size_t i = 0; i < n.outputs.size(); ++i) {
    const Value& v = g.values[n.outputs[i]];
    os << (i ? ", " : "") << "%" << n.outputs[i] << ": " << value_type_str(v);
    if (v.slot >= 0) os << " @buf" << v.slot;
  }
  os << " = " << n.op << "(";
  for (size_t i = 0; i < n.inputs.size(); ++i) os << (i ? ", " : "") << (n.inputs[i] < 0 ? "none" : "%" + std::to_string(n.inputs[i]));
  os << ")";
  if (n.attrs && !n.attrs->empty()) os << " {" << attrs_str(*n.attrs) << "}";
  if (!n.attrs && n.op != "fused") os << " {opaque}";
  if (auto* fk = dynamic_cast<const FusedKernel*>(n.prim.get())) {
    os << " [" << fk->mode() << "] {\n";
    for (const Node& b : fk->body()) print_node(os, g, b, indent + "    ");
    os << indent << "}";
  }
  os << "\n";
}
}  // namespace

std::string Graph::str() const {
  std::ostringstream os;
  os << "graph(";
  for (size_t i = 0; i < inputs.size(); ++i)
    os << (i ? ", " : "") << "%" << inputs[i] << ": " << value_type_str(values[inputs[i]]);
  os << ") {\n";
  // captures and constants used by the nodes or the outputs, in id order
  std::set<int> used(outputs.begin(), outputs.end());
  for (const Node& n : nodes) {
    used.insert(n.inputs.begin(), n.inputs.end());
    if (auto* fk = dynamic_cast<const FusedKernel*>(n.prim.get()))
      for (const Node& b : fk->body()) used.insert(b.inputs.begin(), b.inputs.end());
  }
  for (int id : used) {
    if (id < 0) continue;
    const Value& v = values[id];
    if (v.kind != ValueKind::Capture && v.kind != ValueKind::Const) continue;
    os << "  %" << id << ": " << value_type_str(v) << " = " << kind_name(v.kind);
    if (v.kind == ValueKind::Const && v.data.defined() && v.data.numel() == 1) os << " " << scalar_text(v.data);
    os << "\n";
  }
  for (const Node& n : nodes) print_node(os, *this, n, "  ");
  os << "  return (";
  for (size_t i = 0; i < outputs.size(); ++i) os << (i ? ", " : "") << "%" << outputs[i];
  os << ")\n}\n";
  return os.str();
}

void Graph::verify() const {
  const int nv = static_cast<int>(values.size());
  std::vector<char> defined(values.size(), 0);
  auto check_id = [&](int id, const char* what) {
    if (id < 0 || id >= nv) throw GraphError(std::string("graph verifier: ") + what + " refers to value %" + std::to_string(id) + " which does not exist");
  };
  std::set<int> seen_inputs;
  for (int id : inputs) {
    check_id(id, "an input");
    if (values[id].kind != ValueKind::Input || !seen_inputs.insert(id).second)
      throw GraphError("graph verifier: input %" + std::to_string(id) + " is not a distinct input value");
    defined[id] = 1;
  }
  for (int i = 0; i < nv; ++i) {
    const Value& v = values[i];
    if (v.kind == ValueKind::Capture || v.kind == ValueKind::Const) {
      if (!v.data.defined()) throw GraphError("graph verifier: %" + std::to_string(i) + " has no data");
      if (v.data.shape() != v.shape || v.data.dtype() != v.dtype)
        throw GraphError("graph verifier: %" + std::to_string(i) + " data does not match its type " + value_type_str(v));
      defined[i] = 1;
    }
  }
  auto define = [&](const Node& n, int id) {
    check_id(id, "a node output");
    if (values[id].kind != ValueKind::Node) fail(n, "output %" + std::to_string(id) + " is not a node value");
    if (defined[id]) fail(n, "value %" + std::to_string(id) + " is defined twice");
    defined[id] = 1;
  };
  auto use = [&](const Node& n, int id) {
    if (id == -1) return;
    check_id(id, "a node input");
    if (!defined[id]) fail(n, "uses %" + std::to_string(id) + " before it is defined");
  };
  for (const Node& n : nodes) {
    if (!n.prim) fail(n, "no primitive");
    for (int id : n.inputs) use(n, id);
    if (auto* fk = dynamic_cast<const FusedKernel*>(n.prim.get())) {
      if (fk->input_ids() != n.inputs || fk->output_ids() != n.outputs) fail(n, "kernel wiring differs from the node");
      std::vector<char> saved = defined;
      for (const Node& b : fk->body()) {
        for (int id : b.inputs) use(b, id);
        for (int id : b.outputs) {  // an absorbed expand may also stay in the graph: no twice-check here
          check_id(id, "a fused body output");
          defined[id] = 1;
        }
        check_node(*this, b);
      }
      defined = saved;
    } else {
      check_node(*this, n);
    }
    for (int id : n.outputs) define(n, id);
  }
  for (int id : outputs) {
    check_id(id, "an output");
    if (!defined[id]) throw GraphError("graph verifier: output %" + std::to_string(id) + " is never defined");
  }
}

std::shared_ptr<Graph> Graph::clone() const {
  auto g = std::make_shared<Graph>();
  g->values = values;
  g->inputs = inputs;
  g->outputs = outputs;
  g->nodes = nodes;
  g->passes_run = passes_run;
  g->saved_pipeline = saved_pipeline;
  g->num_slots = num_slots;
  return g;
}

std::vector<std::pair<std::string, int>> Graph::op_counts() const {
  std::map<std::string, int> m;
  for (const Node& n : nodes) ++m[n.op];
  return {m.begin(), m.end()};
}

void toposort(Graph& g) {
  std::vector<int> producer(g.values.size(), -1);
  for (size_t i = 0; i < g.nodes.size(); ++i)
    for (int o : g.nodes[i].outputs) producer[o] = static_cast<int>(i);
  std::vector<int> state(g.nodes.size(), 0);  // 0 new, 1 visiting, 2 done
  std::vector<Node> out;
  out.reserve(g.nodes.size());
  // iterative DFS in original order: a node is emitted after its producers
  for (size_t root = 0; root < g.nodes.size(); ++root) {
    if (state[root]) continue;
    std::vector<std::pair<int, size_t>> stack{{static_cast<int>(root), 0}};
    state[root] = 1;
    while (!stack.empty()) {
      auto& [ni, k] = stack.back();
      const Node& n = g.nodes[ni];
      if (k < n.inputs.size()) {
        int in = n.inputs[k++];
        int p = in >= 0 ? producer[in] : -1;
        if (p >= 0 && state[p] == 0) {
          state[p] = 1;
          stack.push_back({p, 0});
        } else if (p >= 0 && state[p] == 1) {
          throw GraphError("graph: cycle through node " + g.nodes[p].op);
        }
        continue;
      }
      state[ni] = 2;
      out.push_back(std::move(g.nodes[ni]));
      stack.pop_back();
    }
  }
  g.nodes = std::move(out);
}

}  // namespace tt::graph
