"""``nn.MultiheadAttention`` with torch's parameters (``in_proj_weight``/``in_proj_bias`` or the three
``*_proj_weight`` when ``kdim``/``vdim`` differ, ``out_proj``), masks and weight averaging. The
attention itself is ``_runtime/attention.py``'s, shared with ``F.multi_head_attention_forward``."""

from __future__ import annotations

from typing import Any

from typedtensor._runtime import _C
from typedtensor._runtime.attention import attend
from typedtensor._runtime.errors import shape_error
from typedtensor.nn import init
from typedtensor.nn.layers import NonDynamicallyQuantizableLinear
from typedtensor.nn.module import Module
from typedtensor.nn.parameter import Parameter

Tensor = Any


def _empty(*shape: int, device: Any, dtype: Any) -> Tensor:
    return _C.empty(*shape, dtype=dtype if dtype is not None else _C.float32, device=device)


class MultiheadAttention(Module):
    def __init__(
        self,
        embed_dim: int,
        num_heads: int,
        dropout: float = 0.0,
        bias: bool = True,
        add_bias_kv: bool = False,
        add_zero_attn: bool = False,
        kdim: int | None = None,
        vdim: int | None = None,
        batch_first: bool = False,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} and num_heads={num_heads}")
        if embed_dim % num_heads:
            raise ValueError(f"embed_dim {embed_dim} must be divisible by num_heads {num_heads}")
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        self.add_zero_attn = add_zero_attn
        if self._qkv_same_embed_dim:
            self.in_proj_weight = Parameter(_empty(3 * embed_dim, embed_dim, device=device, dtype=dtype))
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        else:
            self.q_proj_weight = Parameter(_empty(embed_dim, embed_dim, device=device, dtype=dtype))
            self.k_proj_weight = Parameter(_empty(embed_dim, self.kdim, device=device, dtype=dtype))
            self.v_proj_weight = Parameter(_empty(embed_dim, self.vdim, device=device, dtype=dtype))
            self.register_parameter("in_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(_empty(3 * embed_dim, device=device, dtype=dtype))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, device=device, dtype=dtype)
        if add_bias_kv:
            self.bias_k = Parameter(_empty(1, 1, embed_dim, device=device, dtype=dtype))
            self.bias_v = Parameter(_empty(1, 1, embed_dim, device=device, dtype=dtype))
        else:
            self.register_parameter("bias_k", None)
            self.register_parameter("bias_v", None)
        self._reset_parameters()

    def _reset_parameters(self) -> None:
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.zeros_(self.in_proj_bias)
            init.zeros_(self.out_proj.bias)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
            init.xavier_normal_(self.bias_v)

    def forward(
        self,
        query: Tensor,
        key: Tensor,
        value: Tensor,
        key_padding_mask: Tensor | None = None,
        need_weights: bool = True,
        attn_mask: Tensor | None = None,
        average_attn_weights: bool = True,
        is_causal: bool = False,
    ) -> tuple[Tensor, Tensor | None]:
        for name, t in (("query", query), ("key", key), ("value", value)):
            if t.ndim not in (2, 3):
                raise shape_error(
                    "MultiheadAttention", [tuple(query.shape), tuple(key.shape), tuple(value.shape)], {},
                    f"{name} must be 2-D (unbatched) or 3-D (batched), got shape {list(t.shape)}",
                )
        batched = query.ndim == 3
        if key.ndim != query.ndim or value.ndim != query.ndim:
            raise shape_error(
                "MultiheadAttention", [tuple(query.shape), tuple(key.shape), tuple(value.shape)], {},
                "query, key and value must all be batched (3-D) or all unbatched (2-D)",
            )
        if not batched:
            query, key, value = query.unsqueeze(0), key.unsqueeze(0), value.unsqueeze(0)
            if key_padding_mask is not None:
                key_padding_mask = key_padding_mask.unsqueeze(0)
        elif not self.batch_first:
            same_kv = key is value
            same_qk = query is key
            query = query.transpose(0, 1)
            key = query if same_qk else key.transpose(0, 1)
            value = key if same_kv else value.transpose(0, 1)
        out, weights = self._attend(query, key, value, key_padding_mask, need_weights, attn_mask, average_attn_weights, is_causal)
        if not batched:
            return out.squeeze(0), (weights.squeeze(0) if weights is not None else None)
        if not self.batch_first:
            out = out.transpose(0, 1)
        return out, weights

    def _attend(
        self, query: Tensor, key: Tensor, value: Tensor, key_padding_mask: Tensor | None, need_weights: bool,
        attn_mask: Tensor | None, average_attn_weights: bool, is_causal: bool,
    ) -> tuple[Tensor, Tensor | None]:
        """Batch-first ``[N, L, E]`` query, ``[N, S, kdim]`` key, ``[N, S, vdim]`` value."""
        n, _, e = query.shape
        if e != self.embed_dim:
            raise shape_error(
                "MultiheadAttention", [tuple(query.shape)], {},
                f"query has embedding dim {e}, expected embed_dim={self.embed_dim}",
            )
        if key.shape[0] != n or value.shape[0] != n or key.shape[1] != value.shape[1]:
            raise shape_error(
                "MultiheadAttention", [tuple(query.shape), tuple(key.shape), tuple(value.shape)], {},
                f"key {list(key.shape)} and value {list(value.shape)} must share the batch and source length of the query",
            )
        if key.shape[2] != self.kdim or value.shape[2] != self.vdim:
            raise shape_error(
                "MultiheadAttention", [tuple(key.shape), tuple(value.shape)], {},
                f"key/value embedding dims {key.shape[2]}/{value.shape[2]} differ from kdim={self.kdim}/vdim={self.vdim}",
            )
        separate = None if self._qkv_same_embed_dim else (self.q_proj_weight, self.k_proj_weight, self.v_proj_weight)
        return attend(
            query, key, value, num_heads=self.num_heads, in_proj_weight=self.in_proj_weight,
            in_proj_bias=self.in_proj_bias, bias_k=self.bias_k, bias_v=self.bias_v, add_zero_attn=self.add_zero_attn,
            dropout_p=self.dropout, training=self.training, out_proj_weight=self.out_proj.weight,
            out_proj_bias=self.out_proj.bias, key_padding_mask=key_padding_mask, need_weights=need_weights,
            attn_mask=attn_mask, average_attn_weights=average_attn_weights, is_causal=is_causal, separate_proj=separate,
        )
