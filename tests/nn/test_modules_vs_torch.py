"""Every nn module against torch's, with identical weights (loaded through ``load_state_dict``,
which also checks that parameter and buffer names agree with torch's)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import typedtensor as tt
from tests.nn.helpers import close, copy_from_torch, has_autograd, to_np, to_tt

torch = pytest.importorskip("torch")
tnn = torch.nn

# (name, typedtensor ctor, torch ctor, input shape)
CASES: list[tuple[str, Callable[[Any], Any], tuple[int, ...]]] = [
    ("Linear", lambda nn: nn.Linear(5, 3), (4, 5)),
    ("Linear-nobias-3d", lambda nn: nn.Linear(5, 3, bias=False), (2, 4, 5)),
    ("Conv2d", lambda nn: nn.Conv2d(3, 4, 3), (2, 3, 7, 7)),
    ("Conv2d-stride-pad-groups", lambda nn: nn.Conv2d(4, 6, (3, 2), stride=2, padding=1, groups=2), (2, 4, 8, 9)),
    ("Conv2d-same-dilation", lambda nn: nn.Conv2d(2, 3, 3, padding="same", dilation=2, bias=False), (1, 2, 9, 9)),
    ("Conv2d-same-even-kernel", lambda nn: nn.Conv2d(2, 3, (2, 4), padding="same", dilation=(3, 1)), (1, 2, 9, 8)),
    ("Conv2d-unbatched", lambda nn: nn.Conv2d(2, 3, 3), (2, 6, 6)),
    ("MaxPool2d", lambda nn: nn.MaxPool2d(2), (2, 3, 8, 8)),
    ("MaxPool2d-stride-pad-ceil", lambda nn: nn.MaxPool2d(3, stride=2, padding=1, ceil_mode=True), (1, 2, 9, 9)),
    ("AvgPool2d", lambda nn: nn.AvgPool2d(2, stride=1, padding=1, count_include_pad=False), (2, 3, 5, 5)),
    ("AdaptiveAvgPool2d", lambda nn: nn.AdaptiveAvgPool2d((3, 2)), (2, 3, 7, 5)),
    ("AdaptiveAvgPool2d-1", lambda nn: nn.AdaptiveAvgPool2d(1), (2, 3, 4, 4)),
    ("BatchNorm1d-2d", lambda nn: nn.BatchNorm1d(5), (8, 5)),
    ("BatchNorm1d-3d", lambda nn: nn.BatchNorm1d(3, momentum=0.3), (4, 3, 6)),
    ("BatchNorm2d", lambda nn: nn.BatchNorm2d(3), (4, 3, 5, 5)),
    ("BatchNorm2d-noaffine", lambda nn: nn.BatchNorm2d(3, affine=False), (4, 3, 2, 2)),
    ("LayerNorm", lambda nn: nn.LayerNorm(6), (2, 3, 6)),
    ("LayerNorm-2d", lambda nn: nn.LayerNorm((3, 6), eps=1e-3), (2, 3, 6)),
    ("ReLU", lambda nn: nn.ReLU(), (3, 4)),
    ("GELU", lambda nn: nn.GELU(), (3, 4)),
    ("GELU-tanh", lambda nn: nn.GELU(approximate="tanh"), (3, 4)),
    ("Tanh", lambda nn: nn.Tanh(), (3, 4)),
    ("Sigmoid", lambda nn: nn.Sigmoid(), (3, 4)),
    ("SiLU", lambda nn: nn.SiLU(), (3, 4)),
    ("LeakyReLU", lambda nn: nn.LeakyReLU(0.2), (3, 4)),
    ("Softplus", lambda nn: nn.Softplus(), (3, 4)),
    ("Softplus-beta", lambda nn: nn.Softplus(beta=2.0, threshold=1.0), (3, 4)),
    ("Softsign", lambda nn: nn.Softsign(), (3, 4)),
    ("Softmax", lambda nn: nn.Softmax(dim=-1), (3, 4)),
    ("LogSoftmax", lambda nn: nn.LogSoftmax(dim=1), (3, 4, 2)),
    ("Flatten", lambda nn: nn.Flatten(), (2, 3, 4, 5)),
    ("Flatten-range", lambda nn: nn.Flatten(0, 1), (2, 3, 4)),
    ("Identity", lambda nn: nn.Identity(), (2, 3)),
    ("Dropout-eval", lambda nn: nn.Dropout(0.5).eval(), (4, 5)),
    ("Dropout2d-eval", lambda nn: nn.Dropout2d(0.5).eval(), (2, 3, 4, 4)),
    ("Sequential", lambda nn: nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2)), (5, 4)),
]


def _make(ctor: Callable[[Any], Any]) -> tuple[Any, Any]:
    ref = ctor(tnn)
    ours = ctor(tt.nn)
    copy_from_torch(ours, ref)
    ours.train(ref.training)
    return ours, ref


@pytest.mark.parametrize(("name", "ctor", "shape"), CASES, ids=[c[0] for c in CASES])
def test_forward_matches_torch(name: str, ctor: Callable[[Any], Any], shape: tuple[int, ...]) -> None:
    ours, ref = _make(ctor)
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    close(ours(tt.tensor(x)), ref(torch.tensor(x)), rtol=1e-4, atol=1e-5)
    # running statistics move the same way
    for (n1, b1), (n2, b2) in zip(ours.named_buffers(), ref.named_buffers(), strict=True):
        assert n1 == n2
        close(b1, b2, rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize(("name", "ctor", "shape"), CASES, ids=[c[0] for c in CASES])
def test_parameter_names_and_shapes_match_torch(name: str, ctor: Callable[[Any], Any], shape: tuple[int, ...]) -> None:
    ref, ours = ctor(tnn), ctor(tt.nn)
    assert [(n, tuple(p.shape)) for n, p in ours.named_parameters()] == [
        (n, tuple(p.shape)) for n, p in ref.named_parameters()
    ]
    assert list(ours.state_dict()) == list(ref.state_dict())


@pytest.mark.skipif(not has_autograd(), reason="needs the autograd engine")
@pytest.mark.parametrize(("name", "ctor", "shape"), CASES, ids=[c[0] for c in CASES])
def test_gradients_match_torch(name: str, ctor: Callable[[Any], Any], shape: tuple[int, ...]) -> None:
    ours, ref = _make(ctor)
    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    xo, xr = tt.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    yo, yr = ours(xo), ref(xr)
    w = np.random.default_rng(2).standard_normal(tuple(yr.shape)).astype(np.float32)
    (yo * tt.tensor(w)).sum().backward()
    (yr * torch.tensor(w)).sum().backward()
    close(xo.grad, xr.grad, rtol=1e-4, atol=1e-5)
    for (n1, p1), (n2, p2) in zip(ours.named_parameters(), ref.named_parameters(), strict=True):
        assert n1 == n2
        close(p1.grad, p2.grad, rtol=1e-4, atol=1e-5)


def test_embedding_matches_torch() -> None:
    ref = tnn.Embedding(10, 4, padding_idx=-1)
    ours = tt.nn.Embedding(10, 4, padding_idx=-1)
    assert ours.padding_idx == ref.padding_idx == 9
    np.testing.assert_array_equal(to_np(ours.weight)[9], 0)
    copy_from_torch(ours, ref)
    idx = np.array([[1, 9, 3], [0, 0, 7]])
    close(ours(tt.tensor(idx)), ref(torch.tensor(idx)))


def test_embedding_max_norm_renormalises_the_rows_it_reads() -> None:
    ref = tnn.Embedding(6, 3, max_norm=1.0)
    ours = tt.nn.Embedding(6, 3, max_norm=1.0)
    copy_from_torch(ours, ref)
    idx = np.array([0, 2, 2, 5])
    with torch.no_grad():
        r = ref(torch.tensor(idx))
    close(ours(tt.tensor(idx)), r, rtol=1e-4, atol=1e-5)
    close(ours.weight, ref.weight, rtol=1e-4, atol=1e-5)


def test_embedding_from_pretrained_is_frozen() -> None:
    w = tt.randn(4, 2)
    e = tt.nn.Embedding.from_pretrained(w)
    assert not e.weight.requires_grad
    close(e(tt.tensor([3, 1])), to_np(w)[[3, 1]])


@pytest.mark.parametrize("batch_first", [True, False])
@pytest.mark.parametrize("masks", ["none", "bool", "float", "padding", "both", "causal"])
def test_multihead_attention_matches_torch(batch_first: bool, masks: str) -> None:
    e, h, n, lq, s = 8, 2, 3, 4, 5
    ref = tnn.MultiheadAttention(e, h, batch_first=batch_first)
    ours = tt.nn.MultiheadAttention(e, h, batch_first=batch_first)
    copy_from_torch(ours, ref)
    rng = np.random.default_rng(0)
    qs = (n, lq, e) if batch_first else (lq, n, e)
    ks = (n, s, e) if batch_first else (s, n, e)
    q, k, v = (rng.standard_normal(sh).astype(np.float32) for sh in (qs, ks, ks))
    kw_o: dict[str, Any] = {}
    kw_r: dict[str, Any] = {}
    if masks in ("bool", "both"):
        am = rng.random((lq, s)) < 0.3
        am[:, 0] = False  # keep one visible key per row (an all-masked row is NaN in both)
        kw_o["attn_mask"], kw_r["attn_mask"] = tt.tensor(am), torch.tensor(am)
    if masks == "float":
        am = rng.standard_normal((n * h, lq, s)).astype(np.float32)
        kw_o["attn_mask"], kw_r["attn_mask"] = tt.tensor(am), torch.tensor(am)
    if masks in ("padding", "both"):
        kp = np.zeros((n, s), dtype=bool)
        kp[0, -2:] = True
        kw_o["key_padding_mask"], kw_r["key_padding_mask"] = tt.tensor(kp), torch.tensor(kp)
    if masks == "causal":
        k, v = q, q
        cm = np.triu(np.ones((lq, lq), dtype=bool), 1)
        kw_o["is_causal"] = True
        kw_r["attn_mask"], kw_r["is_causal"] = torch.tensor(cm), True
    out_o, w_o = ours(tt.tensor(q), tt.tensor(k), tt.tensor(v), **kw_o)
    out_r, w_r = ref(torch.tensor(q), torch.tensor(k), torch.tensor(v), **kw_r)
    close(out_o, out_r, rtol=1e-4, atol=1e-5)
    close(w_o, w_r, rtol=1e-4, atol=1e-5)


def test_multihead_attention_variants_match_torch() -> None:
    e, h = 6, 3
    for kw in ({"kdim": 4, "vdim": 5}, {"add_bias_kv": True}, {"add_zero_attn": True}, {"bias": False}):
        ref = tnn.MultiheadAttention(e, h, batch_first=True, **kw)
        ours = tt.nn.MultiheadAttention(e, h, batch_first=True, **kw)
        copy_from_torch(ours, ref)
        rng = np.random.default_rng(1)
        q = rng.standard_normal((2, 3, e)).astype(np.float32)
        k = rng.standard_normal((2, 4, kw.get("kdim", e))).astype(np.float32)
        v = rng.standard_normal((2, 4, kw.get("vdim", e))).astype(np.float32)
        kp = np.zeros((2, 4), dtype=bool)
        kp[1, 0] = True
        o1, w1 = ours(tt.tensor(q), tt.tensor(k), tt.tensor(v), key_padding_mask=tt.tensor(kp), average_attn_weights=False)
        o2, w2 = ref(torch.tensor(q), torch.tensor(k), torch.tensor(v), key_padding_mask=torch.tensor(kp), average_attn_weights=False)
        close(o1, o2, rtol=1e-4, atol=1e-5)
        close(w1, w2, rtol=1e-4, atol=1e-5)


def test_multihead_attention_unbatched_and_no_weights() -> None:
    ref = tnn.MultiheadAttention(4, 2)
    ours = tt.nn.MultiheadAttention(4, 2)
    copy_from_torch(ours, ref)
    x = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
    o1, w1 = ours(tt.tensor(x), tt.tensor(x), tt.tensor(x), need_weights=False)
    o2, _ = ref(torch.tensor(x), torch.tensor(x), torch.tensor(x), need_weights=False)
    assert w1 is None
    close(o1, o2, rtol=1e-4, atol=1e-5)


def test_multihead_attention_rejects_bad_shapes() -> None:
    mha = tt.nn.MultiheadAttention(8, 2, batch_first=True)
    with pytest.raises(tt.ShapeError, match="embed"):
        mha(tt.randn(2, 3, 6), tt.randn(2, 3, 6), tt.randn(2, 3, 6))
    with pytest.raises(tt.ShapeError, match="key_padding_mask"):
        mha(tt.randn(2, 3, 8), tt.randn(2, 3, 8), tt.randn(2, 3, 8), key_padding_mask=tt.zeros(2, 4, dtype=tt.bool))
    with pytest.raises(ValueError, match="divisible"):
        tt.nn.MultiheadAttention(8, 3)


def test_batchnorm_eval_uses_running_stats_and_momentum_none_averages() -> None:
    ref = tnn.BatchNorm1d(3, momentum=None)
    ours = tt.nn.BatchNorm1d(3, momentum=None)
    rng = np.random.default_rng(0)
    for _ in range(3):
        x = rng.standard_normal((5, 3)).astype(np.float32)
        close(ours(tt.tensor(x)), ref(torch.tensor(x)), rtol=1e-4, atol=1e-5)
    close(ours.running_mean, ref.running_mean, rtol=1e-5, atol=1e-6)
    close(ours.running_var, ref.running_var, rtol=1e-5, atol=1e-6)
    assert int(ours.num_batches_tracked.item()) == 3
    ours.eval()
    ref.eval()
    x = rng.standard_normal((2, 3)).astype(np.float32)
    close(ours(tt.tensor(x)), ref(torch.tensor(x)), rtol=1e-4, atol=1e-5)


def test_batchnorm_rank_and_size_errors() -> None:
    with pytest.raises(ValueError, match="expected 4D input"):
        tt.nn.BatchNorm2d(3)(tt.randn(2, 3, 4))
    with pytest.raises(ValueError, match="more than 1 value per channel"):
        tt.nn.BatchNorm1d(3)(tt.randn(1, 3))


def test_dropout_train_zeroes_and_rescales() -> None:
    d = tt.nn.Dropout(0.25)
    y = to_np(d(tt.ones(4000)))
    assert np.all(np.isclose(y, 0.0) | np.isclose(y, 1 / 0.75))
    assert 0.15 < (y == 0).mean() < 0.35
    d2 = tt.nn.Dropout2d(0.5)
    z = to_np(d2(tt.ones(8, 16, 3, 3)))
    per_channel = z.reshape(8, 16, 9)
    assert ((per_channel == 0).all(-1) | (per_channel == 2.0).all(-1)).all()
    with pytest.raises(ValueError, match="between 0 and 1"):
        tt.nn.Dropout(1.5)


def test_conv2d_constructor_checks() -> None:
    with pytest.raises(ValueError, match="divisible by groups"):
        tt.nn.Conv2d(3, 4, 3, groups=2)
    with pytest.raises(ValueError, match="padding_mode"):
        tt.nn.Conv2d(3, 4, 3, padding_mode="mirror")


def test_conv2d_rejects_wrong_channels_with_a_shape_error() -> None:
    with pytest.raises(tt.ShapeError):
        tt.nn.Conv2d(3, 4, 3)(tt.randn(1, 2, 5, 5))


def test_linear_rejects_wrong_features_with_a_shape_error() -> None:
    with pytest.raises(tt.ShapeError):
        tt.nn.Linear(3, 4)(tt.randn(2, 5))


def test_softmax_without_dim_follows_torch_legacy_rule() -> None:
    x = np.random.default_rng(0).standard_normal((2, 3, 4)).astype(np.float32)
    with pytest.warns(UserWarning):
        r = tnn.Softmax()(torch.tensor(x))
    close(tt.nn.Softmax()(tt.tensor(x)), r)


def test_to_tt_roundtrip_helper() -> None:
    t = torch.arange(6.0).reshape(2, 3)
    close(to_tt(t), t)


@pytest.mark.skipif(not has_autograd(), reason="needs the autograd engine")
@pytest.mark.parametrize("kw", [{}, {"kdim": 4, "vdim": 5}, {"add_bias_kv": True, "add_zero_attn": True}])
def test_multihead_attention_gradients_match_torch(kw: dict[str, Any]) -> None:
    e, h = 6, 2
    ref = tnn.MultiheadAttention(e, h, batch_first=True, **kw)
    ours = tt.nn.MultiheadAttention(e, h, batch_first=True, **kw)
    copy_from_torch(ours, ref)
    rng = np.random.default_rng(3)
    arrays = [rng.standard_normal((2, n, d)).astype(np.float32) for n, d in ((3, e), (4, kw.get("kdim", e)), (4, kw.get("vdim", e)))]
    mask = rng.random((3, 4)) < 0.3
    mask[:, 0] = False
    ins_o = [tt.tensor(a, requires_grad=True) for a in arrays]
    ins_r = [torch.tensor(a, requires_grad=True) for a in arrays]
    out_o, _ = ours(*ins_o, attn_mask=tt.tensor(mask))
    out_r, _ = ref(*ins_r, attn_mask=torch.tensor(mask))
    w = rng.standard_normal(tuple(out_r.shape)).astype(np.float32)
    (out_o * tt.tensor(w)).sum().backward()
    (out_r * torch.tensor(w)).sum().backward()
    for a, b in zip(ins_o, ins_r, strict=True):
        close(a.grad, b.grad, rtol=1e-4, atol=1e-5)
    for (n1, p1), (n2, p2) in zip(ours.named_parameters(), ref.named_parameters(), strict=True):
        assert n1 == n2
        close(p1.grad, p2.grad, rtol=1e-4, atol=1e-5)
