// The fused recurrent-layer primitives (NOTE [ Fused recurrent layers ] in backend/src/cpu/rnn.cpp):
// rnn_layer (xproj, h0, w_hh[, c0][, b_hh][, w_hr]) -> (out, h_n[, c_n], workspace) and its
// backward (h0, w_hh[, c0][, b_hh][, w_hr], out, workspace, dout, dh_n[, dc_n]) -> the gradients of
// the forward's inputs, in their order. CPU only: CUDA tensors take the Python composite
// (typedtensor/nn/rnn.py).
#include <string>
#include <vector>

#include "../cpu/rnn.h"
#include "internal.h"
#include "typedtensor/device.h"
#include "typedtensor/rnn.h"

namespace tt {
namespace {

using cpu::RnnCell;
constexpr const char* kOp = "rnn_layer";
constexpr const char* kBackward = "rnn_layer_backward";

// What a layer's primitive knows besides its tensors; the graph attributes hold the same.
struct Layout {
  RnnCell cell = RnnCell::Tanh;
  bool reverse = false;
  bool bias = false;  // a GRU's b_hh is an input
  bool proj = false;  // an LSTM's w_hr is an input
  std::vector<int64_t> batch_sizes;

  bool lstm() const { return cell == RnnCell::Lstm; }
  // input positions: xproj, h0, w_hh, then c0, b_hh, w_hr where present
  size_t num_inputs() const { return 3 + (lstm() ? 1 : 0) + (bias ? 1 : 0) + (proj ? 1 : 0); }
  size_t c0_at() const { return 3; }
  size_t b_hh_at() const { return 3 + (lstm() ? 1 : 0); }
  size_t w_hr_at() const { return 3 + (lstm() ? 1 : 0) + (bias ? 1 : 0); }

  Params attrs() const {
    return Params{{"cell", static_cast<int64_t>(cell)}, {"reverse", reverse}, {"bias", bias}, {"proj", proj},
                  {"batch_sizes", batch_sizes}};
  }
};

[[noreturn]] void layout_error(const std::string& msg) { throw ValueError(std::string("[") + kOp + "] " + msg); }

// The layer's sizes, checked against the inputs (the front end's arguments, or a graph file's node):
// every size a kernel indexes with is validated here, so a malformed call cannot reach past a buffer.
struct Sizes {
  int64_t N, B, H, P;
};

// A tensor's type seen through Tensor's accessors, so one check serves tensors and graph types.
struct Meta {
  const TensorType* t;
  DType dtype() const { return t->dtype; }
  int64_t dim() const { return static_cast<int64_t>(t->shape.size()); }
  int64_t size(int64_t i) const { return t->shape[static_cast<size_t>(i)]; }
  const Shape& shape() const { return t->shape; }
};

Sizes check_layer_types(const Layout& L, const TypeList& in, bool has_xproj) {
  if (in.size() != L.num_inputs() - (has_xproj ? 0 : 1)) layout_error("wrong number of inputs");
  auto at = [&](size_t i) { return Meta{&in[has_xproj ? i : i - 1]}; };
  const Meta h0 = at(1), w_hh = at(2);
  const DType dt = w_hh.dtype();
  if (dt != DType::Float32 && dt != DType::Float64)
    throw TypeError(std::string("[") + kOp + "] the fused kernel needs float32 or float64 tensors, got " + dtype_name(dt));
  for (const TensorType& t : in)
    if (t.dtype != dt)
      throw TypeError(std::string("[") + kOp + "] expected every tensor of one dtype, got " + dtype_name(t.dtype) +
                      " and " + dtype_name(dt));
  const int64_t G = cpu::rnn_gates(L.cell);
  if (w_hh.dim() != 2 || w_hh.size(0) % G != 0 || w_hh.size(0) == 0)
    detail::shape_error(kOp, {w_hh.shape()}, {}, "w_hh must be [gates * hidden, state], got " + shape_str(w_hh.shape()));
  const int64_t H = w_hh.size(0) / G, P = w_hh.size(1);
  if (h0.dim() != 2 || h0.size(1) != P)
    detail::shape_error(kOp, {h0.shape(), w_hh.shape()}, {},
                        "h0 must be [batch, " + std::to_string(P) + "], got " + shape_str(h0.shape()));
  const int64_t B = h0.size(0);
  if (L.batch_sizes.empty()) layout_error("batch_sizes is empty (a sequence needs at least one step)");
  if (L.batch_sizes[0] != B)
    layout_error("the first step has " + std::to_string(L.batch_sizes[0]) + " rows but the state has " + std::to_string(B));
  int64_t N = 0, last = B;
  for (int64_t r : L.batch_sizes) {
    if (r <= 0 || r > last) layout_error("batch_sizes must be positive and non-increasing");
    last = r;
    N += r;  // each r <= B and the count is a vector's length: no overflow before the check below
    if (N > (int64_t(1) << 62)) layout_error("batch_sizes sum too large");
  }
  if (has_xproj) {
    const Meta xp = at(0);
    if (xp.dim() != 2 || xp.size(0) != N || xp.size(1) != G * H)
      detail::shape_error(kOp, {xp.shape()}, {},
                          "xproj must be [" + std::to_string(N) + ", " + std::to_string(G * H) + "], got " + shape_str(xp.shape()));
  }
  if (L.lstm()) {
    const Meta c0 = at(L.c0_at());
    if (c0.shape() != Shape{B, H})
      detail::shape_error(kOp, {c0.shape()}, {}, "c0 must be [" + std::to_string(B) + ", " + std::to_string(H) + "], got " +
                                                     shape_str(c0.shape()));
  }
  if (L.bias) {
    if (L.cell != RnnCell::Gru) layout_error("only a GRU takes b_hh apart");
    const Meta b = at(L.b_hh_at());
    if (b.shape() != Shape{G * H}) detail::shape_error(kOp, {b.shape()}, {}, "b_hh must be [" + std::to_string(G * H) + "]");
  }
  if (L.proj) {
    if (!L.lstm()) layout_error("only an LSTM has a projection");
    const Meta wr = at(L.w_hr_at());
    if (wr.shape() != Shape{P, H})
      detail::shape_error(kOp, {wr.shape()}, {}, "w_hr must be [" + std::to_string(P) + ", " + std::to_string(H) + "], got " +
                                                     shape_str(wr.shape()));
  } else if (P != H) {
    detail::shape_error(kOp, {w_hh.shape()}, {}, "w_hh must be [gates * hidden, hidden] without a projection");
  }
  return {N, B, H, P};
}

Sizes check_layer(const Layout& L, const TensorList& in, bool has_xproj) {
  Sizes s = check_layer_types(L, types_of(in), has_xproj);
  for (const Tensor& t : in)
    if (on_cuda(t)) throw NotImplementedError(std::string("[") + kOp + "] the fused kernel has no CUDA implementation");
  return s;
}

cpu::RnnLayer kernel_args(const Layout& L, const TensorList& c, bool has_xproj) {
  auto at = [&](size_t i) -> const Tensor& { return c[has_xproj ? i : i - 1]; };
  cpu::RnnLayer a{L.cell, L.reverse, &L.batch_sizes, has_xproj ? at(0) : Tensor(), at(1), Tensor(), at(2), Tensor(),
                  Tensor()};
  if (L.lstm()) a.c0 = at(L.c0_at());
  if (L.bias) a.b_hh = at(L.b_hh_at());
  if (L.proj) a.w_hr = at(L.w_hr_at());
  return a;
}

TensorList contiguous_all(const TensorList& in) {
  TensorList c;
  c.reserve(in.size());
  for (const Tensor& t : in) c.push_back(contiguous(t));
  return c;
}

class RnnLayerBackward : public Primitive {
 public:
  explicit RnnLayerBackward(Layout L) : L_(std::move(L)) {}
  const char* name() const override { return kBackward; }
  TypeList output_types(const TypeList& in) const override {
    const size_t k = L_.num_inputs() - 1, extra = L_.lstm() ? 5 : 4;
    if (in.size() != k + extra) layout_error("backward: wrong number of inputs");
    Sizes s = check_layer_types(L_, TypeList(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(k)), false);
    const DType dt = in[1].dtype;
    const int64_t G = cpu::rnn_gates(L_.cell);
    TypeList r{{Shape{s.N, G * s.H}, dt}, {Shape{s.B, s.P}, dt}, {Shape{G * s.H, s.P}, dt}};
    if (L_.lstm()) r.push_back({Shape{s.B, s.H}, dt});
    if (L_.bias) r.push_back({Shape{G * s.H}, dt});
    if (L_.proj) r.push_back({Shape{s.P, s.H}, dt});
    return r;
  }
  // (h0, w_hh[, c0][, b_hh][, w_hr], out, ws, dout, dh_n[, dc_n]) -> (dxproj, dh0, dw_hh[, dc0][, db_hh][, dw_hr])
  TensorList eval_cpu(const TensorList& in) override {
    const size_t k = L_.num_inputs() - 1, extra = L_.lstm() ? 5 : 4;
    if (in.size() != k + extra) layout_error("backward: wrong number of inputs");
    TensorList c = contiguous_all(in);
    TensorList params(c.begin(), c.begin() + static_cast<std::ptrdiff_t>(k));
    Sizes s = check_layer(L_, params, false);
    const Tensor &out = c[k], &ws = c[k + 1], &dout = c[k + 2], &dh_n = c[k + 3];
    const int64_t W = cpu::rnn_workspace_cols(L_.cell, s.H), G = cpu::rnn_gates(L_.cell);
    const DType dt = c[1].dtype();
    if (out.shape() != Shape{s.N, s.P} || dout.shape() != Shape{s.N, s.P} || ws.shape() != Shape{s.N, W} ||
        dh_n.shape() != Shape{s.B, s.P} || out.dtype() != dt || ws.dtype() != dt || dout.dtype() != dt || dh_n.dtype() != dt)
      layout_error("backward: the saved outputs or the gradients do not match the layer");
    Tensor dc_n;
    if (L_.lstm()) {
      dc_n = c[k + 4];
      if (dc_n.shape() != Shape{s.B, s.H} || dc_n.dtype() != dt) layout_error("backward: dc_n does not match the layer");
    }
    cpu::RnnLayer a = kernel_args(L_, params, false);
    cpu::RnnLayerGrads g;
    g.dxproj = empty({s.N, G * s.H}, dt);
    g.dh0 = empty({s.B, s.P}, dt);
    g.dw_hh = empty({G * s.H, s.P}, dt);
    TensorList r{g.dxproj, g.dh0, g.dw_hh};
    if (L_.lstm()) r.push_back(g.dc0 = empty({s.B, s.H}, dt));
    if (L_.bias) r.push_back(g.db_hh = empty({G * s.H}, dt));
    if (L_.proj) r.push_back(g.dw_hr = empty({s.P, s.H}, dt));
    cpu::rnn_layer_backward(a, out, ws, dout, dh_n, dc_n, g);
    return r;
  }
  bool differentiable() const override { return false; }
  std::optional<Params> attrs() const override { return L_.attrs(); }

 private:
  Layout L_;
};

class RnnLayerPrim : public Primitive {
 public:
  explicit RnnLayerPrim(Layout L) : L_(std::move(L)) {}
  const char* name() const override { return kOp; }
  TypeList output_types(const TypeList& in) const override {
    Sizes s = check_layer_types(L_, in, true);
    const DType dt = in[0].dtype;
    TypeList r{{Shape{s.N, s.P}, dt}, {Shape{s.B, s.P}, dt}};
    if (L_.lstm()) r.push_back({Shape{s.B, s.H}, dt});
    r.push_back({Shape{s.N, cpu::rnn_workspace_cols(L_.cell, s.H)}, dt});
    return r;
  }
  TensorList eval_cpu(const TensorList& in) override {
    TensorList c = contiguous_all(in);
    Sizes s = check_layer(L_, c, true);
    const DType dt = c[0].dtype();
    Tensor out = empty({s.N, s.P}, dt), h_n = empty({s.B, s.P}, dt);
    Tensor ws = empty({s.N, cpu::rnn_workspace_cols(L_.cell, s.H)}, dt);
    Tensor c_n = L_.lstm() ? empty({s.B, s.H}, dt) : Tensor();
    cpu::rnn_layer_forward(kernel_args(L_, c, true), out, h_n, c_n, ws);
    if (L_.lstm()) return {out, h_n, c_n, ws};
    return {out, h_n, ws};
  }
  bool vjp_needs_outputs() const override { return true; }
  TensorList vjp(const TensorList& in, const TensorList& ct, const std::vector<int>& argnums,
                 const TensorList& outputs) override {
    TensorList r(argnums.size());
    const size_t n_state = L_.lstm() ? 3 : 2;  // out, h_n[, c_n]: the workspace gets no gradient
    bool any = false;
    for (size_t i = 0; i < n_state; ++i) any = any || ct[i].defined();
    if (!any) return r;
    TensorList args(in.begin() + 1, in.end());
    args.push_back(outputs[0]);
    args.push_back(outputs[n_state]);
    for (size_t i = 0; i < n_state; ++i)
      args.push_back(ct[i].defined() ? ct[i] : zeros(outputs[i].shape(), outputs[i].dtype()));
    TensorList g = tt::apply(std::make_shared<RnnLayerBackward>(L_), args);
    for (size_t j = 0; j < argnums.size(); ++j) r[j] = g[static_cast<size_t>(argnums[j])];
    return r;
  }
  std::optional<Params> attrs() const override { return L_.attrs(); }

 private:
  Layout L_;
};

RnnCell cell_named(const std::string& name) {
  if (name == "tanh") return RnnCell::Tanh;
  if (name == "relu") return RnnCell::Relu;
  if (name == "lstm") return RnnCell::Lstm;
  if (name == "gru") return RnnCell::Gru;
  throw ValueError(std::string("[") + kOp + "] unknown cell '" + name + "' (expected tanh, relu, lstm or gru)");
}

}  // namespace

TensorList rnn_layer(const std::string& cell, const Tensor& xproj, const Tensor& h0, const std::optional<Tensor>& c0,
                     const Tensor& w_hh, const std::optional<Tensor>& b_hh, const std::optional<Tensor>& w_hr,
                     const std::vector<int64_t>& batch_sizes, bool reverse) {
  Layout L;
  L.cell = cell_named(cell);
  L.reverse = reverse;
  L.bias = b_hh.has_value();
  L.proj = w_hr.has_value();
  L.batch_sizes = batch_sizes;
  if (L.lstm() != c0.has_value()) layout_error(L.lstm() ? "an LSTM needs c0" : "only an LSTM takes c0");
  TensorList in{xproj, h0, w_hh};
  if (c0) in.push_back(*c0);
  if (b_hh) in.push_back(*b_hh);
  if (w_hr) in.push_back(*w_hr);
  check_layer(L, in, true);
  TensorList outs = tt::apply(std::make_shared<RnnLayerPrim>(std::move(L)), in);
  outs.pop_back();  // the workspace stays with the autograd node
  return outs;
}

std::shared_ptr<Primitive> detail::make_rnn_primitive(const std::string& name, const Params& attrs) {
  if (name != kOp && name != kBackward) return nullptr;
  AttrReader r(name, attrs);
  Layout L;
  const int64_t cell = r.i("cell");
  if (cell < 0 || cell > 3) throw ValueError("primitive '" + name + "': malformed attribute 'cell'");
  L.cell = static_cast<RnnCell>(cell);
  L.reverse = r.b("reverse");
  L.bias = r.b("bias");
  L.proj = r.b("proj");
  L.batch_sizes = r.ints("batch_sizes");
  if (L.bias && L.cell != RnnCell::Gru) throw ValueError("primitive '" + name + "': malformed attribute 'bias'");
  if (L.proj && L.cell != RnnCell::Lstm) throw ValueError("primitive '" + name + "': malformed attribute 'proj'");
  if (name == kOp) return std::make_shared<RnnLayerPrim>(std::move(L));
  return std::make_shared<RnnLayerBackward>(std::move(L));
}

}  // namespace tt
