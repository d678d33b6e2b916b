#pragma once
// Fused recurrent layers (CPU; NOTE [ Fused recurrent layers ] in backend/src/cpu/rnn.cpp).
#include <optional>
#include <string>
#include <vector>

#include "typedtensor/primitive.h"

namespace tt {

// One direction of one recurrent layer over a time-major, packed sequence: `cell` is "tanh",
// "relu" (Elman RNN), "lstm" or "gru"; xproj [N, G*H] the input projection of every row (with the
// biases that add to it; a GRU's b_hh is passed apart), h0 [B, P], c0 [B, H] (LSTM only), w_hh
// [G*H, P], b_hh [G*H] (GRU only, optional), w_hr [P, H] (an LSTM's projection, optional);
// batch_sizes the rows of each step (non-increasing, the first B, summing to N). Returns
// (out [N, P], h_n [B, P]) and, for an LSTM, c_n [B, H]. CPU, float32 or float64; differentiable
// in every tensor input.
TensorList rnn_layer(const std::string& cell, const Tensor& xproj, const Tensor& h0, const std::optional<Tensor>& c0,
                     const Tensor& w_hh, const std::optional<Tensor>& b_hh, const std::optional<Tensor>& w_hr,
                     const std::vector<int64_t>& batch_sizes, bool reverse);

}  // namespace tt
