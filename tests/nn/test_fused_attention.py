"""The fused CPU attention (NOTE [ Fused attention ] in backend/src/cpu/attention.cpp) behind
F.scaled_dot_product_attention and nn.MultiheadAttention: outputs and gradients against torch for
causal, bool, additive and padding masks, broadcast batch dims, several key blocks, float64, rows that
may attend nothing; and the primitive inside tt.compile (forward and backward)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

import typedtensor as tt

F = tt.nn.functional


def _compare(shapes: tuple[tuple[int, ...], ...], mask: np.ndarray | None = None, causal: bool = False,
             dtype: Any = np.float32, scale: float | None = None) -> None:
    rng = np.random.default_rng(sum(sum(s) for s in shapes))
    qn, kn, vn = (rng.standard_normal(s).astype(dtype) for s in shapes)
    out_shape = (*np.broadcast_shapes(shapes[0][:-2], shapes[1][:-2], shapes[2][:-2]), shapes[0][-2], shapes[2][-1])
    gn = rng.standard_normal(out_shape).astype(dtype)
    q, k, v = (tt.tensor(a, requires_grad=True) for a in (qn, kn, vn))
    tq, tk, tv = (torch.tensor(a, requires_grad=True) for a in (qn, kn, vn))
    m = tt.tensor(mask) if mask is not None else None
    tm = torch.tensor(mask) if mask is not None else None
    o = F.scaled_dot_product_attention(q, k, v, attn_mask=m, is_causal=causal, scale=scale)
    to = torch.nn.functional.scaled_dot_product_attention(tq, tk, tv, attn_mask=tm, is_causal=causal, scale=scale)
    o.backward(tt.tensor(gn))
    to.backward(torch.tensor(gn))
    tol = 1e-4 if dtype == np.float32 else 1e-10
    for ours, ref in ((o, to), (q.grad, tq.grad), (k.grad, tk.grad), (v.grad, tv.grad)):
        assert ours is not None and ref is not None
        np.testing.assert_allclose(ours.detach().numpy(), ref.detach().numpy(), rtol=tol, atol=tol)


SHAPES = ((2, 3, 70, 16), (2, 3, 300, 16), (2, 3, 300, 8))  # several query and key blocks


@pytest.mark.parametrize("causal", [False, True])
def test_no_mask(causal: bool) -> None:
    _compare(SHAPES, causal=causal)


def test_causal_with_more_queries_than_keys() -> None:
    _compare(((2, 300, 16), (2, 70, 16), (2, 70, 8)), causal=True)


def test_bool_mask_with_a_row_that_sees_nothing() -> None:
    mask = np.random.default_rng(1).random((70, 300)) > 0.3
    mask[5] = False  # torch gives 0 there, and a zero gradient
    _compare(SHAPES, mask=mask)


def test_bool_mask_leaving_query_and_key_blocks_unreached() -> None:
    """A whole query block that may attend nothing and a whole key block nobody attends: the
    backward writes their gradient rows only as zeros (it does not zero-fill first)."""
    mask = np.random.default_rng(9).random((200, 600)) > 0.3
    mask[:64] = False  # the first query block (64 rows)
    mask[:, 256:512] = False  # the second key block (256 keys)
    for _ in range(2):  # the second time over buffers the first one left behind
        _compare(((2, 200, 16), (2, 600, 16), (2, 600, 8)), mask=mask)


def test_additive_mask_broadcast_over_heads() -> None:
    mask = np.random.default_rng(2).standard_normal((2, 1, 70, 300)).astype(np.float32)
    mask[1, 0, :, 200:] = -np.inf
    _compare(SHAPES, mask=mask)


def test_padding_mask_and_unbatched() -> None:
    mask = np.ones((1, 600), dtype=bool)
    mask[:, 450:] = False  # whole key blocks are padding
    _compare(((130, 16), (600, 16), (600, 32)), mask=mask)


def test_broadcast_batch_dims_float64_and_scale() -> None:
    _compare(((2, 3, 70, 16), (1, 300, 16), (3, 300, 8)), dtype=np.float64, scale=0.3)


def test_strided_inputs() -> None:
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 40, 3, 48)).astype(np.float32)  # [b, s, h, 3 * d] -> three [b, h, s, d] views
    q, k, v = (tt.tensor(x, requires_grad=True)[..., i * 16 : (i + 1) * 16].transpose(1, 2) for i in range(3))
    tx = torch.tensor(x)
    tq, tk, tv = (tx[..., i * 16 : (i + 1) * 16].transpose(1, 2) for i in range(3))
    o = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    to = torch.nn.functional.scaled_dot_product_attention(tq, tk, tv, is_causal=True)
    np.testing.assert_allclose(o.detach().numpy(), to.numpy(), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("causal", [False, True])
def test_one_query_row_and_one_key_row(causal: bool) -> None:
    """One query and one key (a decoder's first generated token, nanoGPT's ``generate``): the
    kernel's GEMMs must get a leading dimension of at least the row width (BLAS rejects a GEMM
    with lda = 0 and leaves its output unwritten)."""
    _compare(((2, 3, 1, 16), (2, 3, 1, 16), (2, 3, 1, 8)), causal=causal)
    _compare(((2, 3, 1, 16), (2, 3, 5, 16), (2, 3, 5, 8)), causal=causal)
    _compare(((2, 3, 5, 16), (2, 3, 1, 16), (2, 3, 1, 8)))


def test_rows_broadcast_along_the_sequence() -> None:
    """Keys, values and the incoming gradient expanded along the sequence (row stride 0): each
    row is read where it lies, whatever the stride BLAS would reject."""
    rng = np.random.default_rng(5)
    qn = rng.standard_normal((2, 6, 16)).astype(np.float32)
    kn, vn = rng.standard_normal((2, 1, 16)).astype(np.float32), rng.standard_normal((2, 1, 8)).astype(np.float32)
    q, k, v = (tt.tensor(a, requires_grad=True) for a in (qn, kn, vn))
    tq, tk, tv = (torch.tensor(a, requires_grad=True) for a in (qn, kn, vn))
    o = F.scaled_dot_product_attention(q, k.expand(2, 7, 16), v.expand(2, 7, 8), is_causal=True)
    to = torch.nn.functional.scaled_dot_product_attention(tq, tk.expand(2, 7, 16), tv.expand(2, 7, 8), is_causal=True)
    o.sum(1).pow(2).sum().backward()  # the gradient reaching the kernel is expanded along the rows
    to.sum(1).pow(2).sum().backward()
    np.testing.assert_allclose(o.detach().numpy(), to.detach().numpy(), rtol=1e-4, atol=1e-5)
    for ours, ref in ((q.grad, tq.grad), (k.grad, tk.grad), (v.grad, tv.grad)):
        assert ours is not None and ref is not None
        np.testing.assert_allclose(ours.numpy(), ref.numpy(), rtol=1e-4, atol=1e-4)


def _heads_block(x: Any, w: Any, sdpa: Any, heads: int, causal: bool) -> Any:
    """A QKV projection split into heads, attention, and the heads merged back (the usual block)."""
    b, s, d = x.shape
    q, k, v = (t.reshape(b, s, heads, d // heads).transpose(1, 2) for t in (x @ w).chunk(3, -1))
    a = sdpa(q, k, v, is_causal=causal)
    return a, a.transpose(1, 2).reshape(b, s, d)


@pytest.mark.parametrize("causal", [False, True])
def test_heads_split_from_a_projection(causal: bool) -> None:
    """Heads split out of one projection: the output comes laid out [b, s, h, e] (as torch's), so
    merging the heads back is a view, and the gradients flow back through views; values and
    gradients match torch's over several query and key blocks."""
    rng = np.random.default_rng(7)
    xn = rng.standard_normal((2, 300, 32)).astype(np.float32)
    wn = (rng.standard_normal((32, 96)) / 6).astype(np.float32)
    gn = rng.standard_normal((2, 300, 32)).astype(np.float32)
    x, w = tt.tensor(xn, requires_grad=True), tt.tensor(wn, requires_grad=True)
    tx, tw = torch.tensor(xn, requires_grad=True), torch.tensor(wn, requires_grad=True)
    a, merged = _heads_block(x, w, F.scaled_dot_product_attention, 4, causal)
    ta, tmerged = _heads_block(tx, tw, torch.nn.functional.scaled_dot_product_attention, 4, causal)
    assert a.transpose(1, 2).is_contiguous() and ta.transpose(1, 2).is_contiguous()
    merged.backward(tt.tensor(gn))
    tmerged.backward(torch.tensor(gn))
    np.testing.assert_allclose(merged.detach().numpy(), tmerged.detach().numpy(), rtol=1e-4, atol=1e-5)
    for ours, ref in ((x.grad, tx.grad), (w.grad, tw.grad)):
        assert ours is not None and ref is not None
        np.testing.assert_allclose(ours.numpy(), ref.numpy(), rtol=1e-4, atol=1e-4)


def test_heads_split_from_a_projection_inside_compile() -> None:
    rng = np.random.default_rng(8)
    xn = rng.standard_normal((2, 70, 16)).astype(np.float32)
    wn = (rng.standard_normal((16, 48)) / 4).astype(np.float32)
    gn = rng.standard_normal((2, 70, 16)).astype(np.float32)
    x, w = tt.tensor(xn, requires_grad=True), tt.tensor(wn, requires_grad=True)

    def step(g: Any) -> Any:
        loss = (_heads_block(x, w, F.scaled_dot_product_attention, 2, True)[1] * g).sum()
        loss.backward()
        return loss.detach()

    compiled = tt.compile(step, params=[x, w])
    compiled(tt.tensor(gn))
    x.grad = w.grad = None  # the second call runs the captured graph
    got = compiled(tt.tensor(gn)).item()
    grads = [t.grad.numpy().copy() for t in (x, w)]
    tx, tw = torch.tensor(xn, requires_grad=True), torch.tensor(wn, requires_grad=True)
    want = (_heads_block(tx, tw, torch.nn.functional.scaled_dot_product_attention, 2, True)[1]
            * torch.tensor(gn)).sum()
    want.backward()
    assert abs(got - want.item()) <= 1e-4 * max(1.0, abs(want.item()))
    for g, t in zip(grads, (tx, tw), strict=True):
        assert t.grad is not None
        np.testing.assert_allclose(g, t.grad.numpy(), rtol=1e-4, atol=1e-4)


def test_matches_the_composite_path() -> None:
    """Dropout (here p=0 through the composite's own expression) and the fused kernel agree."""
    rng = np.random.default_rng(4)
    q, k, v = (tt.tensor(rng.standard_normal((2, 2, 33, 8)).astype(np.float32)) for _ in range(3))
    fused = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    scores = (q @ k.mT) * (1 / 8**0.5)
    scores = scores.masked_fill(tt.ones(33, 33, dtype=tt.bool).tril().logical_not(), float("-inf"))
    np.testing.assert_allclose(fused.numpy(), (scores.softmax(-1) @ v).numpy(), rtol=1e-5, atol=1e-6)


def test_multihead_attention_uses_it_and_matches_torch() -> None:
    rng = np.random.default_rng(5)
    ref = torch.nn.MultiheadAttention(32, 4, batch_first=True)
    ours = tt.nn.MultiheadAttention(32, 4, batch_first=True)
    ours.load_state_dict({k: tt.tensor(v.detach().numpy().copy()) for k, v in ref.state_dict().items()})
    xn = rng.standard_normal((3, 50, 32)).astype(np.float32)
    pad = np.zeros((3, 50), dtype=bool)
    pad[1, 40:] = True  # torch's convention: True = padding
    x, tx = tt.tensor(xn, requires_grad=True), torch.tensor(xn, requires_grad=True)
    for kw, tkw in (({}, {}), ({"is_causal": True, "attn_mask": tt.ones(50, 50, dtype=tt.bool).triu(1)},
                                {"is_causal": True, "attn_mask": torch.ones(50, 50, dtype=torch.bool).triu(1)}),
                    ({"key_padding_mask": tt.tensor(pad)}, {"key_padding_mask": torch.tensor(pad)})):
        x.grad, tx.grad = None, None
        o, _ = ours(x, x, x, need_weights=False, **kw)
        to, _ = ref(tx, tx, tx, need_weights=False, **tkw)
        o.sum().backward()
        to.sum().backward()
        np.testing.assert_allclose(o.detach().numpy(), to.detach().numpy(), rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-4, atol=1e-5)


def test_inside_compile_forward_and_backward() -> None:
    rng = np.random.default_rng(6)
    qn, kn, vn = (rng.standard_normal((2, 2, 40, 8)).astype(np.float32) for _ in range(3))
    q, k, v = (tt.tensor(a, requires_grad=True) for a in (qn, kn, vn))

    w = tt.tensor(rng.standard_normal((2, 2, 40, 8)).astype(np.float32))

    def step(weight: Any) -> Any:
        loss = (F.scaled_dot_product_attention(q, k, v, is_causal=True) * weight).sum()
        loss.backward()
        return loss.detach()

    compiled = tt.compile(step, params=[q, k, v])
    got = compiled(w).item()
    assert "scaled_dot_product_attention" in str(compiled.graph_for(w).text())
    grads = [t.grad.numpy().copy() for t in (q, k, v)]
    tq, tk, tv = (torch.tensor(a, requires_grad=True) for a in (qn, kn, vn))
    tw = torch.tensor(w.numpy())
    want = (torch.nn.functional.scaled_dot_product_attention(tq, tk, tv, is_causal=True) * tw).sum()
    want.backward()
    assert abs(got - want.item()) <= 1e-4 * abs(want.item())
    for g, t in zip(grads, (tq, tk, tv), strict=True):
        np.testing.assert_allclose(g, t.grad.numpy(), rtol=1e-4, atol=1e-5)


def test_saved_graph_reloads_the_primitive(tmp_path: Any) -> None:
    rng = np.random.default_rng(7)
    q, k, v = (tt.tensor(rng.standard_normal((2, 3, 20, 8)).astype(np.float32)) for _ in range(3))
    mask = tt.tensor(rng.random((20, 20)) > 0.2)

    def fn(a: Any, b: Any, c: Any, m: Any) -> Any:
        return F.scaled_dot_product_attention(a, b, c, attn_mask=m, scale=0.5)

    cf = tt.compile(fn)
    want = cf(q, k, v, mask)
    path = tmp_path / "attention.ttg"
    tt.jit.save(cf, path)
    got = tt.jit.load(path)(q, k, v, mask)
    got = got[0] if isinstance(got, (list, tuple)) else got
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6, atol=1e-7)


def _within_one_ulp(a: np.ndarray, b: np.ndarray, mantissa_bits: int) -> bool:
    """Whether two arrays of a half type's values are at most one unit in its last place apart
    (plus 1e-6 for values near zero, whose sign float32's own rounding may flip)."""
    _, exp = np.frexp(np.maximum(np.abs(a), np.abs(b)))
    ulp = np.ldexp(1.0, exp - 1 - mantissa_bits)
    return bool(np.all(np.abs(a - b) <= ulp + 1e-6))


@pytest.mark.parametrize("half", ["bfloat16", "float16"])
@pytest.mark.parametrize("mask_kind", ["none", "causal", "bool", "additive"])
def test_half_types_run_the_kernel_in_float32(half: str, mask_kind: str) -> None:
    """float16 / bfloat16 attention widens to float32 once, runs the fused kernel and rounds the
    output (and the gradients) back: each within one unit in the last place of torch's float32
    attention on the same (rounded) values, rounded the same way. The composite path would round
    the scores and probabilities too, several units off."""
    tdt, odt = getattr(torch, half), getattr(tt, half)
    rng = np.random.default_rng(7)
    shapes = ((2, 3, 70, 16), (2, 3, 90, 16), (2, 3, 90, 8))
    qn, kn, vn = (torch.from_numpy(rng.standard_normal(s).astype(np.float32)).to(tdt).float().numpy() for s in shapes)
    gn = torch.from_numpy(rng.standard_normal((2, 3, 70, 8)).astype(np.float32)).to(tdt).float().numpy()
    mask: Any = None
    tmask: Any = None
    if mask_kind == "bool":
        mn = rng.random((70, 90)) > 0.3
        mask, tmask = tt.tensor(mn), torch.tensor(mn)
    elif mask_kind == "additive":
        mn = torch.from_numpy(rng.standard_normal((70, 90)).astype(np.float32)).to(tdt).float().numpy()
        mask, tmask = tt.tensor(mn).to(odt), torch.tensor(mn)
    causal = mask_kind == "causal"
    q, k, v = (tt.tensor(a).to(odt).requires_grad_() for a in (qn, kn, vn))
    o = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=causal)
    assert o.dtype == odt
    o.backward(tt.tensor(gn).to(odt))
    tq, tk, tv = (torch.tensor(a, requires_grad=True) for a in (qn, kn, vn))
    to = torch.nn.functional.scaled_dot_product_attention(tq, tk, tv, attn_mask=tmask, is_causal=causal)
    to.backward(torch.tensor(gn))
    for ours, ref in ((o, to), (q.grad, tq.grad), (k.grad, tk.grad), (v.grad, tv.grad)):
        assert ours is not None and ref is not None
        assert ours.dtype == odt
        rounded = ref.detach().to(tdt).float().numpy()
        assert _within_one_ulp(ours.detach().float().numpy(), rounded, 7 if half == "bfloat16" else 10)
