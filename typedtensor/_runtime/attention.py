"""Multi-head attention, written once: ``F.multi_head_attention_forward`` (torch's signature, sequence-first
inputs) and ``nn.MultiheadAttention.forward`` both call ``attend``, which works batch-first.

Masks follow torch's MHA convention: a bool ``attn_mask`` / ``key_padding_mask`` is True where a
position must NOT be attended; a float mask is added to the scores."""

from __future__ import annotations

from typing import Any

from typedtensor._runtime import _loader
from typedtensor._runtime import functional as F
from typedtensor._runtime.errors import check, shape_error

_C = _loader.load_core()

__all__ = ["multi_head_attention_forward"]

Tensor = Any


def _as_additive(mask: Tensor, dtype: Any, op: str) -> Tensor:
    """A bool mask (True = blocked) becomes 0 / -inf; a float mask is used as is."""
    if mask.dtype == _C.bool:
        return _C.zeros(*mask.shape, dtype=dtype, device=mask.device).masked_fill(mask, float("-inf"))
    if not mask.is_floating_point():
        raise TypeError(f"{op}: masks must be bool or floating point, got {mask.dtype}")
    return mask.to(dtype)


def _project(query: Tensor, key: Tensor, value: Tensor, in_proj_weight: Tensor | None, in_proj_bias: Tensor | None,
             separate: tuple[Tensor, Tensor, Tensor] | None) -> tuple[Tensor, Tensor, Tensor]:
    e = query.shape[-1] if separate is None else separate[0].shape[0]
    b = in_proj_bias
    bq, bk, bv = (None, None, None) if b is None else (b[:e], b[e : 2 * e], b[2 * e :])
    if separate is None:
        w: Tensor = in_proj_weight
        if query is key and key is value:  # self-attention: one GEMM for all three
            q, k, v = _C.linear(query, w, b).chunk(3, -1)
            return q, k, v
        return _C.linear(query, w[:e], bq), _C.linear(key, w[e : 2 * e], bk), _C.linear(value, w[2 * e :], bv)
    wq, wk, wv = separate
    return _C.linear(query, wq, bq), _C.linear(key, wk, bk), _C.linear(value, wv, bv)


def attend(
    query: Tensor, key: Tensor, value: Tensor, *, num_heads: int, in_proj_weight: Tensor | None,
    in_proj_bias: Tensor | None, bias_k: Tensor | None, bias_v: Tensor | None, add_zero_attn: bool, dropout_p: float,
    training: bool, out_proj_weight: Tensor, out_proj_bias: Tensor | None, key_padding_mask: Tensor | None,
    need_weights: bool, attn_mask: Tensor | None, average_attn_weights: bool, is_causal: bool,
    separate_proj: tuple[Tensor, Tensor, Tensor] | None = None, static_k: Tensor | None = None,
    static_v: Tensor | None = None, op: str = "MultiheadAttention",
) -> tuple[Tensor, Tensor | None]:
    """Batch-first ``[N, L, E]`` query, ``[N, S, kdim]`` key, ``[N, S, vdim]`` value -> ``[N, L, E]`` and the
    attention weights (``[N, L, S']``, or per head ``[N, H, L, S']``; None unless ``need_weights``).
    ``is_causal`` without an ``attn_mask`` masks the future; ``static_k`` / ``static_v`` (``[N * H, S', E / H]``)
    replace the projected keys / values."""

    n, lq, _ = query.shape
    h = num_heads
    q, k, v = _project(query, key, value, in_proj_weight, in_proj_bias, separate_proj)
    e = q.shape[-1]
    hd = e // h
    if bias_k is not None and bias_v is not None:
        k = _C.cat([k, bias_k.reshape(1, 1, e).expand(n, 1, e)], 1)
        v = _C.cat([v, bias_v.reshape(1, 1, e).expand(n, 1, e)], 1)
    # [N, S, E] -> [N, H, S, hd]; static keys / values are [N * H, S', hd] (batch-major, as torch's)
    kh = static_k.reshape(n, h, -1, hd) if static_k is not None else k.reshape(n, k.shape[1], h, hd).transpose(1, 2)
    vh = static_v.reshape(n, h, -1, hd) if static_v is not None else v.reshape(n, v.shape[1], h, hd).transpose(1, 2)
    s0 = key.shape[1]
    only_causal = is_causal and attn_mask is None  # then the fused kernel skips the masked blocks
    if only_causal:
        attn_mask = _C.ones(lq, s0, dtype=_C.bool, device=q.device).triu(1)
    mask = _as_additive(attn_mask, q.dtype, op) if attn_mask is not None else None
    if mask is not None:
        want = [(lq, s0), (n * h, lq, s0)]
        if tuple(mask.shape) not in want:
            raise shape_error(op, [tuple(query.shape), tuple(key.shape), tuple(mask.shape)], {},
                              f"attn_mask should have shape {want[0]} or {want[1]}, got {tuple(mask.shape)}")
        mask = mask.unsqueeze(0) if mask.ndim == 2 else mask.reshape(n, h, lq, s0)
    kpm = _as_additive(key_padding_mask, q.dtype, op) if key_padding_mask is not None else None
    padded = int(bias_k is not None and bias_v is not None)
    if kpm is not None and tuple(kpm.shape) != (n, kh.shape[2] - padded):
        raise shape_error(op, [tuple(key.shape), tuple(kpm.shape)], {},
                          f"key_padding_mask should have shape ({n}, {kh.shape[2] - padded}), got {tuple(kpm.shape)}")
    if padded:
        mask = F.pad(mask, (0, 1)) if mask is not None else None
        kpm = F.pad(kpm, (0, 1)) if kpm is not None else None
    if add_zero_attn:
        kh = _C.cat([kh, _C.zeros(n, h, 1, hd, dtype=kh.dtype, device=kh.device)], 2)
        vh = _C.cat([vh, _C.zeros(n, h, 1, hd, dtype=vh.dtype, device=vh.device)], 2)
        mask = F.pad(mask, (0, 1)) if mask is not None else None
        kpm = F.pad(kpm, (0, 1)) if kpm is not None else None
    s = kh.shape[2]
    only_causal = only_causal and kpm is None and s == s0
    if kpm is not None:
        kpm = kpm.reshape(n, 1, 1, s)
        mask = kpm if mask is None else mask + kpm
    qh = q.reshape(n, lq, h, hd).transpose(1, 2)
    drop = dropout_p > 0.0 and training
    if not need_weights and not drop:
        # no weights to return: F.scaled_dot_product_attention, fused on the CPU
        if only_causal:
            att = F.scaled_dot_product_attention(qh, kh, vh, is_causal=True)
        else:
            att = F.scaled_dot_product_attention(qh, kh, vh, attn_mask=mask)
        return _C.linear(att.transpose(1, 2).reshape(n, lq, e), out_proj_weight, out_proj_bias), None
    scores = (qh @ kh.transpose(-2, -1)) * (1.0 / hd**0.5)
    if mask is not None:
        scores = scores + mask
    attn = _C.softmax(scores, -1)
    if drop:
        attn = F.dropout(attn, dropout_p, True)
    out = _C.linear((attn @ vh).transpose(1, 2).reshape(n, lq, e), out_proj_weight, out_proj_bias)
    if not need_weights:
        return out, None
    return out, (attn.mean(1) if average_attn_weights else attn)


def multi_head_attention_forward(
    query: Tensor, key: Tensor, value: Tensor, embed_dim_to_check: int, num_heads: int,
    in_proj_weight: Tensor | None, in_proj_bias: Tensor | None, bias_k: Tensor | None, bias_v: Tensor | None,
    add_zero_attn: bool, dropout_p: float, out_proj_weight: Tensor, out_proj_bias: Tensor | None,
    training: bool = True, key_padding_mask: Tensor | None = None, need_weights: bool = True,
    attn_mask: Tensor | None = None, use_separate_proj_weight: bool = False, q_proj_weight: Tensor | None = None,
    k_proj_weight: Tensor | None = None, v_proj_weight: Tensor | None = None, static_k: Tensor | None = None,
    static_v: Tensor | None = None, average_attn_weights: bool = True, is_causal: bool = False,
) -> tuple[Tensor, Tensor | None]:
    """torch's functional multi-head attention: ``query`` ``[L, N, E]`` (unbatched ``[L, E]``), ``key`` /
    ``value`` ``[S, N, E]``, the projections given as tensors -> ``([L, N, E], weights [N, L, S] or None)``."""
    check("multi_head_attention_forward", query=query, key=key, value=value, embed_dim_to_check=embed_dim_to_check,
          num_heads=num_heads, in_proj_weight=in_proj_weight, in_proj_bias=in_proj_bias, bias_k=bias_k, bias_v=bias_v,
          add_zero_attn=add_zero_attn, dropout_p=dropout_p, out_proj_weight=out_proj_weight,
          out_proj_bias=out_proj_bias, training=training, key_padding_mask=key_padding_mask, need_weights=need_weights,
          attn_mask=attn_mask, use_separate_proj_weight=use_separate_proj_weight, q_proj_weight=q_proj_weight,
          k_proj_weight=k_proj_weight, v_proj_weight=v_proj_weight, static_k=static_k, static_v=static_v,
          average_attn_weights=average_attn_weights, is_causal=is_causal)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the Transformer module "
                           "method `generate_square_subsequent_mask` to create this mask.")
    if (bias_k is None) != (bias_v is None):
        raise AssertionError("bias_k is set but bias_v is None" if bias_v is None else "bias_v is set but bias_k is None")
    if bias_k is not None and (static_k is not None or static_v is not None):
        raise AssertionError(f"bias cannot be added to static {'key' if static_k is not None else 'value'}.")
    if use_separate_proj_weight:
        if q_proj_weight is None or k_proj_weight is None or v_proj_weight is None:
            which = "q" if q_proj_weight is None else "k" if k_proj_weight is None else "v"
            raise AssertionError(f"use_separate_proj_weight is True but {which}_proj_weight is None")
        separate: tuple[Tensor, Tensor, Tensor] | None = (q_proj_weight, k_proj_weight, v_proj_weight)
    elif in_proj_weight is None:
        raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
    else:
        separate = None
    # torch: with the causal hint and no key padding mask, the weights-free path masks the future itself
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None
    else:
        is_causal = False
    batched = query.ndim == 3
    if batched:
        same_kv, same_qk = key is value, query is key
        query = query.transpose(0, 1)
        key = query if same_qk else key.transpose(0, 1)
        value = key if same_kv else value.transpose(0, 1)
    else:
        query, key, value = query.unsqueeze(0), key.unsqueeze(0), value.unsqueeze(0)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    out, weights = attend(
        query, key, value, num_heads=num_heads, in_proj_weight=in_proj_weight, in_proj_bias=in_proj_bias,
        bias_k=bias_k, bias_v=bias_v, add_zero_attn=add_zero_attn, dropout_p=dropout_p, training=training,
        out_proj_weight=out_proj_weight, out_proj_bias=out_proj_bias, key_padding_mask=key_padding_mask,
        need_weights=need_weights, attn_mask=attn_mask, average_attn_weights=average_attn_weights, is_causal=is_causal,
        separate_proj=separate, static_k=static_k, static_v=static_v, op="multi_head_attention_forward",
    )
    if not batched:
        return out.squeeze(0), (weights.squeeze(0) if weights is not None else None)
    return out.transpose(0, 1), weights
