#pragma once
// Fused recurrent layers on the CPU (rnn.cpp; NOTE [ Fused recurrent layers ]): one direction of one
// layer of an Elman RNN (tanh or relu), an LSTM (optionally with a projection) or a GRU, over a
// sequence whose input projection is already computed. float32 / float64; every tensor contiguous.
#include <cstdint>
#include <vector>

#include "typedtensor/tensor.h"

namespace tt::cpu {

// The values are the `cell` attribute of the rnn_layer primitive (graph files hold them).
enum class RnnCell : int64_t { Tanh = 0, Relu = 1, Lstm = 2, Gru = 3 };

constexpr int64_t rnn_gates(RnnCell c) { return c == RnnCell::Lstm ? 4 : c == RnnCell::Gru ? 3 : 1; }
// Columns per step row of the workspace the forward saves for the backward (see rnn.cpp).
constexpr int64_t rnn_workspace_cols(RnnCell c, int64_t hidden) {
  return c == RnnCell::Lstm ? 6 * hidden : c == RnnCell::Gru ? 4 * hidden : 0;
}

// The inputs of one direction of one layer. Rows are time-major and packed: step t has
// batch_sizes[t] rows (non-increasing; a padded batch has B rows at every step), N rows in all.
// With H the hidden size, G the gates (4 LSTM, 3 GRU, 1 RNN) and P the state size (the LSTM's
// proj_size, else H):
struct RnnLayer {
  RnnCell cell;
  bool reverse;                             // walk the steps from the last to the first
  const std::vector<int64_t>* batch_sizes;  // the rows of each step
  Tensor xproj;                             // [N, G*H]: x W_ih^T + b_ih (+ b_hh, except for a GRU)
  Tensor h0;                                // [B, P]
  Tensor c0;                                // [B, H], LSTM only
  Tensor w_hh;                              // [G*H, P]
  Tensor b_hh;                              // [G*H], GRU only (inside the reset gate's product); may be undefined
  Tensor w_hr;                              // [P, H], an LSTM with a projection; else undefined
};

// out [N, P], h_n [B, P], c_n [B, H] (LSTM; else undefined) and the workspace
// [N, rnn_workspace_cols] are contiguous, of xproj's dtype.
void rnn_layer_forward(const RnnLayer& a, const Tensor& out, const Tensor& h_n, const Tensor& c_n, const Tensor& ws);

// The gradients of the layer's inputs from those of its outputs (dout [N, P], dh_n [B, P],
// dc_n [B, H]), given the forward's out and workspace (a.xproj is not read: it may be undefined). Each gradient is contiguous, of its
// input's shape; db_hh and dw_hr are written only where the layer has them.
struct RnnLayerGrads {
  Tensor dxproj, dh0, dc0, dw_hh, db_hh, dw_hr;
};
void rnn_layer_backward(const RnnLayer& a, const Tensor& out, const Tensor& ws, const Tensor& dout,
                        const Tensor& dh_n, const Tensor& dc_n, const RnnLayerGrads& g);

}  // namespace tt::cpu
