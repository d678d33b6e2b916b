#pragma once
// Fused scaled-dot-product attention (CPU; NOTE [ Fused attention ] in backend/src/cpu/attention.cpp).
#include <optional>

#include "typedtensor/tensor.h"

namespace tt {

// softmax(q k^T * scale + mask) v for q [*b, L, E], k [*b, S, E], v [*b, S, Ev] (batch dims
// broadcast) on the CPU, float32 or float64, without materialising the [L, S] scores. `mask`
// broadcasts to [*b, L, S]: bool (true: may attend) or float (added); `causal` lets query i see
// keys j <= i (not with a mask). Differentiable in q, k and v (a float mask gets no gradient:
// the Python front end takes the composite path when one needs it). A query row that may attend
// nothing gives 0, as torch's.
Tensor fused_attention(const Tensor& q, const Tensor& k, const Tensor& v, const std::optional<Tensor>& mask,
                       bool causal, double scale);

}  // namespace tt
