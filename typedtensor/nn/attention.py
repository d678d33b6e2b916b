"""``nn.MultiheadAttention`` with torch's parameters (``in_proj_weight``/``in_proj_bias`` or the three
``*_proj_weight`` when ``kdim``/``vdim`` differ, ``out_proj``), masks and weight averaging.

Masks follow torch's MHA convention: a bool ``attn_mask`` / ``key_padding_mask`` is True where a
position must NOT be attended; a float mask is added to the scores."""

from __future__ import annotations

from typing import Any

from typedtensor._runtime import _C
from typedtensor._runtime import functional as F
from typedtensor._runtime.errors import shape_error
from typedtensor.nn import init
from typedtensor.nn.layers import NonDynamicallyQuantizableLinear
from typedtensor.nn.module import Module
from typedtensor.nn.parameter import Parameter

Tensor = Any


def _empty(*shape: int, device: Any, dtype: Any) -> Tensor:
    return _C.empty(*shape, dtype=dtype if dtype is not None else _C.float32, device=device)


def _as_additive(mask: Tensor, dtype: Any) -> Tensor:
    """A bool mask (True = blocked) becomes 0 / -inf; a float mask is used as is."""
    if mask.dtype == _C.bool:
        return _C.zeros(*mask.shape, dtype=dtype, device=mask.device).masked_fill(mask, float("-inf"))
    if not mask.is_floating_point():
        raise TypeError(f"MultiheadAttention: masks must be bool or floating point, got {mask.dtype}")
    return mask.to(dtype)


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

    def _project(self, query: Tensor, key: Tensor, value: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        e = self.embed_dim
        b = self.in_proj_bias
        bq, bk, bv = (None, None, None) if b is None else (b[:e], b[e : 2 * e], b[2 * e :])
        if self._qkv_same_embed_dim:
            w = self.in_proj_weight
            if query is key and key is value:  # self-attention: one GEMM for all three
                q, k, v = F.linear(query, w, b).chunk(3, -1)
                return q, k, v
            return F.linear(query, w[:e], bq), F.linear(key, w[e : 2 * e], bk), F.linear(value, w[2 * e :], bv)
        return (F.linear(query, self.q_proj_weight, bq), F.linear(key, self.k_proj_weight, bk),
                F.linear(value, self.v_proj_weight, bv))

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
        n, lq, e = query.shape
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
        h, hd = self.num_heads, self.head_dim
        q, k, v = self._project(query, key, value)
        only_causal = is_causal and attn_mask is None  # then the fused kernel skips the masked blocks
        if is_causal and attn_mask is None:
            attn_mask = _C.ones(lq, k.shape[1], dtype=_C.bool, device=q.device).triu(1)
        s0 = k.shape[1]
        mask = _as_additive(attn_mask, q.dtype) if attn_mask is not None else None
        if mask is not None:
            want = [(lq, s0), (n * h, lq, s0)]
            if tuple(mask.shape) not in want:
                raise shape_error(
                    "MultiheadAttention", [tuple(query.shape), tuple(key.shape), tuple(mask.shape)], {},
                    f"attn_mask should have shape {want[0]} or {want[1]}, got {tuple(mask.shape)}",
                )
            mask = mask.unsqueeze(0) if mask.ndim == 2 else mask.reshape(n, h, lq, s0)
        if key_padding_mask is not None and tuple(key_padding_mask.shape) != (n, s0):
            raise shape_error(
                "MultiheadAttention", [tuple(key.shape), tuple(key_padding_mask.shape)], {},
                f"key_padding_mask should have shape ({n}, {s0}), got {tuple(key_padding_mask.shape)}",
            )
        kpm = _as_additive(key_padding_mask, q.dtype) if key_padding_mask is not None else None
        if self.bias_k is not None and self.bias_v is not None:
            k = _C.cat([k, self.bias_k.expand(n, 1, e)], 1)
            v = _C.cat([v, self.bias_v.expand(n, 1, e)], 1)
            mask = F.pad(mask, (0, 1)) if mask is not None else None
            kpm = F.pad(kpm, (0, 1)) if kpm is not None else None
        if self.add_zero_attn:
            k = _C.cat([k, _C.zeros(n, 1, e, dtype=k.dtype, device=k.device)], 1)
            v = _C.cat([v, _C.zeros(n, 1, e, dtype=v.dtype, device=v.device)], 1)
            mask = F.pad(mask, (0, 1)) if mask is not None else None
            kpm = F.pad(kpm, (0, 1)) if kpm is not None else None
        s = k.shape[1]
        only_causal = only_causal and kpm is None and s == s0
        if kpm is not None:
            kpm = kpm.reshape(n, 1, 1, s)
            mask = kpm if mask is None else mask + kpm
        # [N, L, E] -> [N, H, L, hd]
        q = q.reshape(n, lq, h, hd).transpose(1, 2)
        k = k.reshape(n, s, h, hd).transpose(1, 2)
        v = v.reshape(n, s, h, hd).transpose(1, 2)
        if not need_weights and not (self.dropout > 0.0 and self.training):
            # no weights to return: F.scaled_dot_product_attention, fused on the CPU
            if only_causal:
                att = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            else:
                att = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
            return self.out_proj(att.transpose(1, 2).reshape(n, lq, e)), None
        scores = (q @ k.transpose(-2, -1)) * (1.0 / hd**0.5)
        if mask is not None:
            scores = scores + mask
        attn = F.softmax(scores, -1)
        if self.dropout > 0.0 and self.training:
            attn = F.dropout(attn, self.dropout, True)
        out = (attn @ v).transpose(1, 2).reshape(n, lq, e)
        out = self.out_proj(out)
        if not need_weights:
            return out, None
        return out, (attn.mean(1) if average_attn_weights else attn)

