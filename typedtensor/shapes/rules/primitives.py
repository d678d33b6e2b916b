"""Primitives of the C++ backend that no public function exposes: the backward kernels, the
strided views the indexing and slicing code makes, the fused kernels. They are entries of the op
table like any op (NOTE [ One op table ] in registry.py) so that the C++ lists of primitives
(generated/ops.inc) come from the table too; their shape rule is unknown to the static tools,
which never see them."""

from __future__ import annotations

from ..dims import UNKNOWN
from ..registry import Args, Result, op


def _opaque(args: Args) -> Result:
    return UNKNOWN


def primitive(name: str, kind: str) -> None:
    op(name, "*inputs:tensors", tags=("internal",), prim=kind, graph=True)(_opaque)


for _name in ("gelu_backward", "gelu_tanh_backward", "silu_backward", "relu_backward", "slice_backward",
              "select_backward", "diagonal_backward", "as_strided_backward", "conv2d_backward_input",
              "conv2d_backward_weight", "max_pool2d_backward", "avg_pool2d_backward", "adaptive_avg_pool2d_backward"):
    primitive(_name, "Other")
for _name in ("slice", "as_strided"):
    primitive(_name, "StridedView")
primitive("norm2", "Reduction")  # norm(p=2)
for _name in ("conv2d_max_pool2d", "conv2d_backward_weight_pooled", "conv2d_backward_input_pooled"):  # the conv_pool pass's
    primitive(_name, "Other")
op("cross_entropy_backward", "*inputs:tensors", tags=("internal",), prim="Other", prim_cuda="cpu", graph=True)(_opaque)
# fused CPU kernels without a CUDA body (CUDA tensors take the composite forms)
for _name in ("scaled_dot_product_attention_backward", "layer_norm_backward"):
    op(_name, "*inputs:tensors", tags=("internal",), prim="Other", prim_cuda="cpu", graph=True)(_opaque)
