"""``typedtensor.nn.utils``: gradient clipping, flat parameter vectors and variable-length sequences
(``rnn``), with torch's semantics."""

from __future__ import annotations

from typedtensor.nn.utils import rnn as rnn
from typedtensor.nn.utils.clip_grad import clip_grad_norm as clip_grad_norm
from typedtensor.nn.utils.clip_grad import clip_grad_norm_ as clip_grad_norm_
from typedtensor.nn.utils.clip_grad import clip_grad_value_ as clip_grad_value_
from typedtensor.nn.utils.clip_grad import clip_grads_with_norm_ as clip_grads_with_norm_
from typedtensor.nn.utils.clip_grad import get_total_norm as get_total_norm
from typedtensor.nn.utils.convert_parameters import parameters_to_vector as parameters_to_vector
from typedtensor.nn.utils.convert_parameters import vector_to_parameters as vector_to_parameters

__all__ = [
    "clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_", "get_total_norm",
    "parameters_to_vector", "rnn", "vector_to_parameters",
]
