#pragma once
// Fused scaled-dot-product attention on the CPU (attention.cpp; NOTE [ Fused attention ]).
// q [*b, L, E], k [*b, S, E], v [*b, S, Ev] share their batch dims (broadcast views allowed: any
// batch strides, unit stride along the last dim); mask, when given, is [*b, L, S] with a unit
// last stride, bool (true: may attend) or of q's dtype (added to the scores). float32 / float64.
#include "typedtensor/tensor.h"

namespace tt::cpu {

enum class AttentionMask { None, Bool, Additive };

// out [*b, L, Ev] (any batch and row strides, a unit last stride) and lse [*b, L] (contiguous: the
// rows' log-sum-exp of the scaled, masked scores; -inf for a row that may attend nothing, whose
// output is 0 as in torch).
void attention_forward(const Tensor& out, const Tensor& lse, const Tensor& q, const Tensor& k, const Tensor& v,
                       const Tensor* mask, AttentionMask kind, bool causal, double scale);
// dq, dk, dv of q's, k's and v's shapes (any batch and row strides, a unit last stride); dout, out
// and lse as the forward gave them (dout and out with a unit last stride).
void attention_backward(const Tensor& dq, const Tensor& dk, const Tensor& dv, const Tensor& q, const Tensor& k,
                        const Tensor& v, const Tensor* mask, AttentionMask kind, bool causal, double scale,
                        const Tensor& out, const Tensor& lse, const Tensor& dout);

}  // namespace tt::cpu
