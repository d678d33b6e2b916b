// NOTE [ Fused recurrent layers ]
// A recurrent layer written as small ops costs a dozen primitives per time step (two matmuls, the
// gate slices, sigmoid/tanh, the cell update), each with its autograd node: on a 64-step LSTM that
// is thousands of tiny kernels and as many node visits in backward. Here one direction of one layer
// is one primitive:
// - the input projection of every step is computed before, as one GEMM over all rows (the caller's
//   `linear`), with the biases folded in (a GRU keeps b_hh apart: it sits inside r * (W_hn h + b_hn));
// - each step is one GEMM (h W_hh^T, added onto that step's projection) and one pass over the
//   step's rows for the gate math: LSTM i, f, g, o = sigmoid, sigmoid, tanh, sigmoid;
//   c' = f c + i g; h' = o tanh(c') (then h' W_hr^T with a projection); GRU r, z = sigmoid,
//   n = tanh(x_n + r (W_hn h + b_hn)), h' = n + z (h - n); RNN h' = tanh or relu(x + W_hh h);
// - the forward saves what the backward reads (the activated gates, c' and tanh(c') of an LSTM;
//   r, z, n and W_hn h + b_hn of a GRU; an RNN's output is enough), so the backward computes no
//   transcendental;
// - the backward walks the steps in reverse, one pass for the gate gradients and one GEMM for
//   dh (dgates W_hh) per step; dW_hh (and dW_hr) is ONE GEMM over all steps afterwards, and the
//   gate gradients are the input projection's gradient (the caller's linear turns them into dx,
//   dW_ih and the biases' gradients).
// Rows are packed (PackedSequence's layout): step t holds batch_sizes[t] rows, non-increasing, so
// the first rows of the state are the sequences still running. A row that has ended keeps its
// state (its h_n); walking in reverse, a row starts from h0 at its own last step.
// The GEMMs are the project's (blas_gemm: NOTE [ One thread pool ]); the gate pass is split over
// rows when a step has enough of them.
#include "rnn.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "kernels.h"
#include "parallel.h"
#include "unary_span.h"
#include "unary_wide.h"

namespace tt::cpu {
namespace {

template <class T>
void activate(UnaryOp op, T* x, int64_t n) {
  if (wide_unary_enabled() && unary_span_wide(op, x, x, n)) return;
  unary_span<T>(op, x, x, n);
}

// Where each step's rows lie and which row holds a row's previous state.
struct Steps {
  std::vector<int64_t> rows, off;
  int64_t count = 0, total = 0;
  bool reverse = false;

  Steps(const std::vector<int64_t>& batch_sizes, bool rev) : rows(batch_sizes), reverse(rev) {
    count = static_cast<int64_t>(rows.size());
    off.resize(rows.size());
    for (int64_t t = 0; t < count; ++t) {
      off[t] = total;
      total += rows[t];
    }
  }
  // the time index of the s-th step walked
  int64_t at(int64_t s) const { return reverse ? count - 1 - s : s; }
  // the packed row of row b's state before step t, or -1 when it is the initial state
  int64_t prev(int64_t t, int64_t b) const {
    int64_t p = reverse ? t + 1 : t - 1;
    if (p < 0 || p >= count || b >= rows[p]) return -1;
    return off[p] + b;
  }
};

// Rows per task of a gate pass of `width` elements per row: serial below about 16k elements.
int64_t row_grain(int64_t width) { return std::max<int64_t>(1, 16384 / std::max<int64_t>(width, 1)); }

template <class T>
void copy_rows(T* dst, const T* src, int64_t n) {
  if (n > 0) std::memcpy(dst, src, static_cast<size_t>(n) * sizeof(T));
}

// ---------------------------------------------------------------------------------------------
// forward

template <class T>
void lstm_forward(const RnnLayer& a, const Steps& st, T* out, T* h, T* c, T* ws) {
  const int64_t H = a.c0.size(1), P = a.h0.size(1), G = 4 * H, W = rnn_workspace_cols(RnnCell::Lstm, H);
  const bool proj = a.w_hr.defined();
  const T* xp = a.xproj.data<T>();
  const T* w = a.w_hh.data<T>();
  const T* wr = proj ? a.w_hr.data<T>() : nullptr;
  std::vector<T> m(proj ? static_cast<size_t>(a.h0.size(0) * H) : 0);
  for (int64_t s = 0; s < st.count; ++s) {
    const int64_t t = st.at(s), rows = st.rows[t], off = st.off[t];
    T* g = ws + off * W;
    blas_gemm<T>(false, true, rows, G, P, h, P, w, P, T(0), g, W);
    parallel_for(0, rows, row_grain(6 * H), [&](int64_t lo, int64_t hi) {
      for (int64_t b = lo; b < hi; ++b) {
        T* gb = g + b * W;
        const T* xb = xp + (off + b) * G;
        for (int64_t j = 0; j < G; ++j) gb[j] += xb[j];  // h W_hh^T + the step's input projection
        activate(UnaryOp::Sigmoid, gb, 2 * H);  // i, f
        activate(UnaryOp::Tanh, gb + 2 * H, H);  // g
        activate(UnaryOp::Sigmoid, gb + 3 * H, H);  // o
        T *cb = c + b * H, *saved = gb + 4 * H, *tc = gb + 5 * H;
        const T *i = gb, *f = gb + H, *gg = gb + 2 * H, *o = gb + 3 * H;
        for (int64_t j = 0; j < H; ++j) {
          T v = f[j] * cb[j] + i[j] * gg[j];
          cb[j] = v;
          saved[j] = v;
          tc[j] = v;
        }
        activate(UnaryOp::Tanh, tc, H);  // tanh(c'), kept for the backward
        T* mb = proj ? m.data() + b * H : h + b * P;  // without a projection P == H
        for (int64_t j = 0; j < H; ++j) mb[j] = o[j] * tc[j];
      }
    });
    if (proj) blas_gemm<T>(false, true, rows, P, H, m.data(), H, wr, H, T(0), h, P);
    copy_rows(out + off * P, h, rows * P);
  }
}

template <class T>
void gru_forward(const RnnLayer& a, const Steps& st, T* out, T* h, T* ws) {
  const int64_t H = a.h0.size(1), G = 3 * H, W = rnn_workspace_cols(RnnCell::Gru, H);
  const T* xp = a.xproj.data<T>();
  const T* w = a.w_hh.data<T>();
  const T* bias = a.b_hh.defined() ? a.b_hh.data<T>() : nullptr;
  std::vector<T> hp(static_cast<size_t>(a.h0.size(0) * G));
  for (int64_t s = 0; s < st.count; ++s) {
    const int64_t t = st.at(s), rows = st.rows[t], off = st.off[t];
    if (bias)
      for (int64_t b = 0; b < rows; ++b) copy_rows(hp.data() + b * G, bias, G);
    blas_gemm<T>(false, true, rows, G, H, h, H, w, H, bias ? T(1) : T(0), hp.data(), G);
    parallel_for(0, rows, row_grain(4 * H), [&](int64_t lo, int64_t hi) {
      for (int64_t b = lo; b < hi; ++b) {
        const T* xr = xp + (off + b) * G;
        const T* hr = hp.data() + b * G;
        T* wb = ws + (off + b) * W;
        T *r = wb, *z = wb + H, *n = wb + 2 * H, *hn = wb + 3 * H;
        for (int64_t j = 0; j < 2 * H; ++j) wb[j] = xr[j] + hr[j];
        activate(UnaryOp::Sigmoid, wb, 2 * H);  // r, z
        for (int64_t j = 0; j < H; ++j) {
          hn[j] = hr[2 * H + j];
          n[j] = xr[2 * H + j] + r[j] * hn[j];
        }
        activate(UnaryOp::Tanh, n, H);
        T* hb = h + b * H;
        for (int64_t j = 0; j < H; ++j) hb[j] = n[j] + z[j] * (hb[j] - n[j]);
      }
    });
    copy_rows(out + off * H, h, rows * H);
  }
}

template <class T>
void elman_forward(const RnnLayer& a, const Steps& st, T* out, T* h) {
  const int64_t H = a.h0.size(1);
  const T* xp = a.xproj.data<T>();
  const T* w = a.w_hh.data<T>();
  for (int64_t s = 0; s < st.count; ++s) {
    const int64_t t = st.at(s), rows = st.rows[t], off = st.off[t];
    T* o = out + off * H;
    copy_rows(o, xp + off * H, rows * H);
    blas_gemm<T>(false, true, rows, H, H, h, H, w, H, T(1), o, H);
    if (a.cell == RnnCell::Tanh) {
      activate(UnaryOp::Tanh, o, rows * H);
    } else {
      for (int64_t j = 0; j < rows * H; ++j) o[j] = o[j] < T(0) ? T(0) : o[j];  // a NaN stays NaN
    }
    copy_rows(h, o, rows * H);
  }
}

template <class T>
void forward(const RnnLayer& a, const Tensor& out, const Tensor& h_n, const Tensor& c_n, const Tensor& ws) {
  Steps st(*a.batch_sizes, a.reverse);
  T* h = h_n.data<T>();
  copy_rows(h, a.h0.data<T>(), a.h0.numel());
  switch (a.cell) {
    case RnnCell::Lstm: {
      T* c = c_n.data<T>();
      copy_rows(c, a.c0.data<T>(), a.c0.numel());
      lstm_forward<T>(a, st, out.data<T>(), h, c, ws.data<T>());
      break;
    }
    case RnnCell::Gru: gru_forward<T>(a, st, out.data<T>(), h, ws.data<T>()); break;
    default: elman_forward<T>(a, st, out.data<T>(), h); break;
  }
}

// ---------------------------------------------------------------------------------------------
// backward

// hprev [N, P]: each row's state before its step (h0's row or the previous step's output row).
template <class T>
void gather_prev(const Steps& st, const T* h0, const T* out, int64_t P, T* hprev) {
  for (int64_t t = 0; t < st.count; ++t)
    for (int64_t b = 0; b < st.rows[t]; ++b) {
      int64_t p = st.prev(t, b);
      copy_rows(hprev + (st.off[t] + b) * P, p < 0 ? h0 + b * P : out + p * P, P);
    }
}

// dh[:rows] += dout's rows of step t
template <class T>
void add_rows(T* dh, const T* dout, int64_t n) {
  for (int64_t j = 0; j < n; ++j) dh[j] += dout[j];
}

template <class T>
void lstm_backward(const RnnLayer& a, const Steps& st, const T* out, const T* ws, const T* dout, T* dh, T* dc,
                   T* dg, const RnnLayerGrads& g) {
  const int64_t H = a.c0.size(1), P = a.h0.size(1), G = 4 * H, W = rnn_workspace_cols(RnnCell::Lstm, H);
  const int64_t N = st.total, B = a.h0.size(0);
  const bool proj = a.w_hr.defined();
  const T* w = a.w_hh.data<T>();
  const T* wr = proj ? a.w_hr.data<T>() : nullptr;
  const T* c0 = a.c0.data<T>();
  std::vector<T> hprev(static_cast<size_t>(N * P)), m(proj ? static_cast<size_t>(N * H) : 0),
      dht(proj ? static_cast<size_t>(N * P) : 0), dm(proj ? static_cast<size_t>(B * H) : 0);
  gather_prev(st, a.h0.data<T>(), out, P, hprev.data());
  for (int64_t s = st.count - 1; s >= 0; --s) {
    const int64_t t = st.at(s), rows = st.rows[t], off = st.off[t];
    add_rows(dh, dout + off * P, rows * P);
    const T* dmp = dh;
    if (proj) {
      copy_rows(dht.data() + off * P, dh, rows * P);
      blas_gemm<T>(false, false, rows, H, P, dh, P, wr, H, T(0), dm.data(), H);
      dmp = dm.data();
    }
    parallel_for(0, rows, row_grain(6 * H), [&](int64_t lo, int64_t hi) {
      for (int64_t b = lo; b < hi; ++b) {
        const T* gb = ws + (off + b) * W;
        const T *i = gb, *f = gb + H, *gg = gb + 2 * H, *o = gb + 3 * H, *tc = gb + 5 * H;
        const int64_t p = st.prev(t, b);
        const T* cprev = p < 0 ? c0 + b * H : ws + p * W + 4 * H;
        if (proj) {
          T* mb = m.data() + (off + b) * H;
          for (int64_t j = 0; j < H; ++j) mb[j] = o[j] * tc[j];
        }
        const T* dmb = dmp + b * H;
        T* dcb = dc + b * H;
        T* dgb = dg + (off + b) * G;
        for (int64_t j = 0; j < H; ++j) {
          const T dmj = dmb[j], tj = tc[j], ij = i[j], fj = f[j], gj = gg[j], oj = o[j];
          const T dct = dcb[j] + dmj * oj * (T(1) - tj * tj);
          dgb[j] = dct * gj * ij * (T(1) - ij);
          dgb[H + j] = dct * cprev[j] * fj * (T(1) - fj);
          dgb[2 * H + j] = dct * ij * (T(1) - gj * gj);
          dgb[3 * H + j] = dmj * tj * oj * (T(1) - oj);
          dcb[j] = dct * fj;
        }
      }
    });
    blas_gemm<T>(false, false, rows, P, G, dg + off * G, G, w, P, T(0), dh, P);
  }
  blas_gemm<T>(true, false, G, P, N, dg, G, hprev.data(), P, T(0), g.dw_hh.data<T>(), P);
  if (proj) blas_gemm<T>(true, false, P, H, N, dht.data(), P, m.data(), H, T(0), g.dw_hr.data<T>(), H);
}

template <class T>
void gru_backward(const RnnLayer& a, const Steps& st, const T* out, const T* ws, const T* dout, T* dh, T* dg,
                  const RnnLayerGrads& g) {
  const int64_t H = a.h0.size(1), G = 3 * H, W = rnn_workspace_cols(RnnCell::Gru, H), N = st.total;
  const T* w = a.w_hh.data<T>();
  std::vector<T> hprev(static_cast<size_t>(N * H)), dhp(static_cast<size_t>(N * G));
  gather_prev(st, a.h0.data<T>(), out, H, hprev.data());
  for (int64_t s = st.count - 1; s >= 0; --s) {
    const int64_t t = st.at(s), rows = st.rows[t], off = st.off[t];
    add_rows(dh, dout + off * H, rows * H);
    parallel_for(0, rows, row_grain(4 * H), [&](int64_t lo, int64_t hi) {
      for (int64_t b = lo; b < hi; ++b) {
        const T* wb = ws + (off + b) * W;
        const T *r = wb, *z = wb + H, *n = wb + 2 * H, *hn = wb + 3 * H;
        const T* hp = hprev.data() + (off + b) * H;
        T* dgb = dg + (off + b) * G;
        T* dhb_p = dhp.data() + (off + b) * G;
        T* dhb = dh + b * H;
        for (int64_t j = 0; j < H; ++j) {
          const T d = dhb[j], rj = r[j], zj = z[j], nj = n[j];
          const T dnp = d * (T(1) - zj) * (T(1) - nj * nj);
          const T dr = dnp * hn[j] * rj * (T(1) - rj);
          const T dz = d * (hp[j] - nj) * zj * (T(1) - zj);
          dgb[j] = dr;
          dgb[H + j] = dz;
          dgb[2 * H + j] = dnp;
          dhb_p[j] = dr;
          dhb_p[H + j] = dz;
          dhb_p[2 * H + j] = dnp * rj;
          dhb[j] = d * zj;
        }
      }
    });
    blas_gemm<T>(false, false, rows, H, G, dhp.data() + off * G, G, w, H, T(1), dh, H);
  }
  blas_gemm<T>(true, false, G, H, N, dhp.data(), G, hprev.data(), H, T(0), g.dw_hh.data<T>(), H);
  if (g.db_hh.defined()) {
    T* db = g.db_hh.data<T>();
    std::fill(db, db + G, T(0));
    for (int64_t r = 0; r < N; ++r)
      for (int64_t j = 0; j < G; ++j) db[j] += dhp[r * G + j];
  }
}

template <class T>
void elman_backward(const RnnLayer& a, const Steps& st, const T* out, const T* dout, T* dh, T* dg,
                    const RnnLayerGrads& g) {
  const int64_t H = a.h0.size(1), N = st.total;
  const T* w = a.w_hh.data<T>();
  const bool tanh = a.cell == RnnCell::Tanh;
  std::vector<T> hprev(static_cast<size_t>(N * H));
  gather_prev(st, a.h0.data<T>(), out, H, hprev.data());
  for (int64_t s = st.count - 1; s >= 0; --s) {
    const int64_t t = st.at(s), rows = st.rows[t], off = st.off[t];
    add_rows(dh, dout + off * H, rows * H);
    const T* o = out + off * H;
    T* d = dg + off * H;
    for (int64_t j = 0; j < rows * H; ++j) d[j] = tanh ? dh[j] * (T(1) - o[j] * o[j]) : (o[j] > T(0) ? dh[j] : T(0));
    blas_gemm<T>(false, false, rows, H, H, d, H, w, H, T(0), dh, H);
  }
  blas_gemm<T>(true, false, H, H, N, dg, H, hprev.data(), H, T(0), g.dw_hh.data<T>(), H);
}

template <class T>
void backward(const RnnLayer& a, const Tensor& out, const Tensor& ws, const Tensor& dout, const Tensor& dh_n,
              const Tensor& dc_n, const RnnLayerGrads& g) {
  Steps st(*a.batch_sizes, a.reverse);
  T* dh = g.dh0.data<T>();
  copy_rows(dh, dh_n.data<T>(), dh_n.numel());
  switch (a.cell) {
    case RnnCell::Lstm: {
      T* dc = g.dc0.data<T>();
      copy_rows(dc, dc_n.data<T>(), dc_n.numel());
      lstm_backward<T>(a, st, out.data<T>(), ws.data<T>(), dout.data<T>(), dh, dc, g.dxproj.data<T>(), g);
      break;
    }
    case RnnCell::Gru: gru_backward<T>(a, st, out.data<T>(), ws.data<T>(), dout.data<T>(), dh, g.dxproj.data<T>(), g); break;
    default: elman_backward<T>(a, st, out.data<T>(), dout.data<T>(), dh, g.dxproj.data<T>(), g); break;
  }
}

}  // namespace

void rnn_layer_forward(const RnnLayer& a, const Tensor& out, const Tensor& h_n, const Tensor& c_n, const Tensor& ws) {
  if (a.xproj.dtype() == DType::Float64) forward<double>(a, out, h_n, c_n, ws);
  else forward<float>(a, out, h_n, c_n, ws);
}

void rnn_layer_backward(const RnnLayer& a, const Tensor& out, const Tensor& ws, const Tensor& dout,
                        const Tensor& dh_n, const Tensor& dc_n, const RnnLayerGrads& g) {
  if (a.w_hh.dtype() == DType::Float64) backward<double>(a, out, ws, dout, dh_n, dc_n, g);
  else backward<float>(a, out, ws, dout, dh_n, dc_n, g);
}

}  // namespace tt::cpu
