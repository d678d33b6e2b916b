"""``F.multi_head_attention_forward`` (_runtime/attention.py) against torch: outputs, weights and gradients
for packed and separate projections, masks, ``bias_k``/``bias_v``, ``add_zero_attn``, static keys and
values, unbatched inputs and the causal hint; ``nn.MultiheadAttention`` runs the same code; torch's errors."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import typedtensor as tt

torch = pytest.importorskip("torch")

L, S, N, E, H = 4, 5, 2, 6, 2


def _inputs(rng: np.random.Generator, batched: bool, separate: bool, bias_kv: bool, extra: dict[str, Any]
            ) -> tuple[list[np.ndarray], dict[str, Any]]:
    kd = 3 if separate else E
    qkv = [rng.standard_normal((length, N, d) if batched else (length, d)) for length, d in ((L, E), (S, kd), (S, kd))]
    kw: dict[str, Any] = {
        "in_proj_weight": None if separate else rng.standard_normal((3 * E, E)), "in_proj_bias": rng.standard_normal(3 * E),
        "bias_k": rng.standard_normal((1, 1, E)) if bias_kv else None,
        "bias_v": rng.standard_normal((1, 1, E)) if bias_kv else None,
        "out_proj_weight": rng.standard_normal((E, E)), "out_proj_bias": rng.standard_normal(E),
    }
    if separate:
        kw.update(use_separate_proj_weight=True, q_proj_weight=rng.standard_normal((E, E)),
                  k_proj_weight=rng.standard_normal((E, kd)), v_proj_weight=rng.standard_normal((E, kd)))
    kw.update(extra)
    return qkv, kw


def _run(lib: Any, qkv: list[np.ndarray], kw: dict[str, Any], zero: bool, **flags: Any) -> tuple[Any, ...]:
    ts = [lib.tensor(a, requires_grad=True) for a in qkv]
    made = {k: (lib.tensor(v, requires_grad=v.dtype == np.float64) if isinstance(v, np.ndarray) else v)
            for k, v in kw.items()}
    pos = [made.pop(k) for k in ("in_proj_weight", "in_proj_bias", "bias_k", "bias_v")]
    out_w, out_b = made.pop("out_proj_weight"), made.pop("out_proj_bias")
    out, weights = lib.nn.functional.multi_head_attention_forward(*ts, E, H, *pos, zero, 0.0, out_w, out_b,
                                                                  training=False, **made, **flags)
    total = (out * out).sum() + (weights.sum() if weights is not None else 0)
    total.backward()
    grads = [None if t.grad is None else t.grad.numpy() for t in ts] + [out_w.grad.numpy()]  # static k/v: no key grad
    return out.detach().numpy(), None if weights is None else weights.detach().numpy(), grads


def _compare(qkv: list[np.ndarray], kw: dict[str, Any], zero: bool = False, **flags: Any) -> None:
    ours, ref = _run(tt, qkv, kw, zero, **flags), _run(torch, qkv, kw, zero, **flags)
    np.testing.assert_allclose(ours[0], ref[0], rtol=1e-10, atol=1e-10)
    assert (ours[1] is None) == (ref[1] is None)
    if ref[1] is not None:
        np.testing.assert_allclose(ours[1], ref[1], rtol=1e-10, atol=1e-12)
    for a, b in zip(ours[2], ref[2], strict=True):
        assert (a is None) == (b is None)
        if b is not None:
            np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-10)


@pytest.mark.parametrize("batched", [True, False])
@pytest.mark.parametrize("separate", [False, True])
@pytest.mark.parametrize("need_weights", [True, False])
@pytest.mark.parametrize("average", [True, False])
def test_projections_match_torch(batched: bool, separate: bool, need_weights: bool, average: bool) -> None:
    qkv, kw = _inputs(np.random.default_rng(1), batched, separate, False, {})
    _compare(qkv, kw, need_weights=need_weights, average_attn_weights=average)


@pytest.mark.parametrize("mask", ["bool", "float2", "float3"])
@pytest.mark.parametrize("padding", [False, True])
@pytest.mark.parametrize("extras", [(False, False), (True, False), (True, True), (False, True)])
def test_masks_bias_kv_and_zero_attention_match_torch(mask: str, padding: bool, extras: tuple[bool, bool]) -> None:
    rng = np.random.default_rng(2)
    bias_kv, zero = extras
    attn = {"bool": rng.random((L, S)) > 0.7, "float2": rng.standard_normal((L, S)),
            "float3": rng.standard_normal((N * H, L, S))}[mask]
    extra: dict[str, Any] = {"attn_mask": attn}
    if padding:
        extra["key_padding_mask"] = (rng.random((N, S)) > 0.7) if mask == "bool" else rng.standard_normal((N, S))
    qkv, kw = _inputs(rng, True, False, bias_kv, extra)
    for need_weights in (True, False):
        _compare(qkv, kw, zero, need_weights=need_weights)


@pytest.mark.parametrize("need_weights", [True, False])
def test_static_keys_and_values_match_torch(need_weights: bool) -> None:
    rng = np.random.default_rng(3)
    extra = {"static_k": rng.standard_normal((N * H, S + 2, E // H)), "static_v": rng.standard_normal((N * H, S + 2, E // H))}
    qkv, kw = _inputs(rng, True, False, False, extra)
    _compare(qkv, kw, True, need_weights=need_weights)


@pytest.mark.parametrize("need_weights", [True, False])
def test_causal_hint_matches_torch(need_weights: bool) -> None:
    qkv, kw = _inputs(np.random.default_rng(4), True, False, False, {"attn_mask": np.triu(np.ones((L, S), bool), 1)})
    _compare(qkv, kw, need_weights=need_weights, is_causal=True)


def test_module_and_functional_agree() -> None:
    rng = np.random.default_rng(5)
    m = tt.nn.MultiheadAttention(E, H, kdim=3, vdim=4, add_bias_kv=True).double().eval()
    q, k, v = (tt.tensor(rng.standard_normal((L, N, d))) for d in (E, 3, 4))
    out, weights = m(q, k, v, need_weights=True, average_attn_weights=False)
    f_out, f_weights = tt.nn.functional.multi_head_attention_forward(
        q, k, v, E, H, None, m.in_proj_bias, m.bias_k, m.bias_v, False, 0.0, m.out_proj.weight, m.out_proj.bias,
        training=False, average_attn_weights=False, use_separate_proj_weight=True, q_proj_weight=m.q_proj_weight,
        k_proj_weight=m.k_proj_weight, v_proj_weight=m.v_proj_weight)
    np.testing.assert_array_equal(out.detach().numpy(), f_out.detach().numpy())
    np.testing.assert_array_equal(weights.detach().numpy(), f_weights.detach().numpy())


def _call(q: tuple[int, ...] = (L, N, E), k: tuple[int, ...] = (S, N, E), **kw: Any) -> Any:
    args: dict[str, Any] = {"embed_dim_to_check": E, "num_heads": H, "in_proj_weight": tt.randn(3 * E, E),
                            "in_proj_bias": None, "bias_k": None, "bias_v": None, "add_zero_attn": False,
                            "dropout_p": 0.0, "out_proj_weight": tt.randn(E, E), "out_proj_bias": None}
    args.update(kw)
    return tt.nn.functional.multi_head_attention_forward(tt.randn(*q), tt.randn(*k), tt.randn(*k), **args)


@pytest.mark.parametrize(("call", "error", "match"), [
    (lambda: _call(q=(L, N, 2, E)), tt.ShapeError, "multi_head_attention_forward: expected a 2-d or 3-d query"),
    (lambda: _call(k=(S, E)), tt.ShapeError, "expected `key` to be 3-D"),
    (lambda: _call(embed_dim_to_check=4), tt.ShapeError, "was expecting embedding dimension of 4, but got 6"),
    (lambda: _call(num_heads=4), tt.ShapeError, "embed_dim 6 not divisible by num_heads 4"),
    (lambda: _call(in_proj_weight=tt.randn(2 * E, E)), tt.ShapeError, r"in_proj_weight must be \[18, 6\]"),
    (lambda: _call(attn_mask=tt.zeros(L, S + 1)), tt.ShapeError, r"attn_mask must be \[4, 5\] or \[4, 4, 5\]"),
    (lambda: _call(key_padding_mask=tt.zeros(N, S + 1)), tt.ShapeError, r"key_padding_mask must be \[2, 5\]"),
    (lambda: _call(is_causal=True), RuntimeError, "Need attn_mask if specifying the is_causal hint"),
    (lambda: _call(in_proj_weight=None), AssertionError, "use_separate_proj_weight is False but in_proj_weight is None"),
    (lambda: _call(bias_k=tt.zeros(1, 1, E)), AssertionError, "bias_k is set but bias_v is None"),
])
def test_errors(call: Any, error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        call()
