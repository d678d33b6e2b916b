"""``nn.Transformer`` and its encoder / decoder stacks against torch's: the same state_dict keys (so a
torch checkpoint loads as it is), the same outputs and gradients for every layout, mask kind and
``norm_first`` / activation choice. Dropout is 0 (the two libraries draw different random numbers)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import typedtensor as tt
from tests.nn.helpers import close, copy_from_torch

torch = pytest.importorskip("torch")
tnn = torch.nn

E, H, S, T, N = 8, 2, 5, 4, 3


def _pair(ctor: Any) -> tuple[Any, Any]:
    ref, ours = ctor(tnn), ctor(tt.nn)
    assert list(ours.state_dict()) == list(ref.state_dict())
    copy_from_torch(ours, ref)
    return ours, ref


def _seq(length: int, batch_first: bool, seed: int) -> np.ndarray:
    shape = (N, length, E) if batch_first else (length, N, E)
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def _masks(kind: str, length: int) -> dict[str, Any]:
    if kind == "none":
        return {}
    if kind == "causal-float":
        return {"mask": tnn.Transformer.generate_square_subsequent_mask(length)}
    if kind == "bool":
        m = np.random.default_rng(9).random((length, length)) < 0.3
        np.fill_diagonal(m, False)
        return {"mask": torch.tensor(m)}
    if kind == "padding":
        kp = np.zeros((N, length), dtype=bool)
        kp[0, -2:] = True
        return {"key_padding_mask": torch.tensor(kp)}
    raise AssertionError(kind)


def _to_tt(kw: dict[str, Any]) -> dict[str, Any]:
    return {k: tt.tensor(v.numpy()) for k, v in kw.items()}


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("activation", ["relu", "gelu", "callable"])
@pytest.mark.parametrize("masks", ["none", "causal-float", "bool", "padding"])
def test_encoder_matches_torch(batch_first: bool, norm_first: bool, activation: str, masks: str) -> None:
    def ctor(nn: Any) -> Any:
        act: Any = nn.GELU() if activation == "callable" else activation
        layer = nn.TransformerEncoderLayer(E, H, dim_feedforward=16, dropout=0.0, activation=act,
                                           batch_first=batch_first, norm_first=norm_first)
        return nn.TransformerEncoder(layer, 2, norm=nn.LayerNorm(E), enable_nested_tensor=False)

    ours, ref = _pair(ctor)
    x = _seq(S, batch_first, 0)
    m = _masks(masks, S)
    kw_r = {("src_key_padding_mask" if k == "key_padding_mask" else k): v for k, v in m.items()}
    xo, xr = tt.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    yo, yr = ours(xo, **_to_tt(kw_r)), ref(xr, **kw_r)
    close(yo, yr, rtol=1e-4, atol=1e-5)
    g = np.random.default_rng(1).standard_normal(tuple(yr.shape)).astype(np.float32)
    (yo * tt.tensor(g)).sum().backward()
    (yr * torch.tensor(g)).sum().backward()
    close(xo.grad, xr.grad, rtol=1e-4, atol=1e-4)
    for (n1, p1), (n2, p2) in zip(ours.named_parameters(), ref.named_parameters(), strict=True):
        assert n1 == n2
        close(p1.grad, p2.grad, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("norm_first", [False, True])
def test_transformer_matches_torch(batch_first: bool, norm_first: bool) -> None:
    def ctor(nn: Any) -> Any:
        return nn.Transformer(E, H, num_encoder_layers=2, num_decoder_layers=2, dim_feedforward=16, dropout=0.0,
                              batch_first=batch_first, norm_first=norm_first)

    ours, ref = _pair(ctor)
    src, tgt = _seq(S, batch_first, 2), _seq(T, batch_first, 3)
    kp = np.zeros((N, S), dtype=bool)
    kp[1, -1] = True
    kw_r = {"tgt_mask": tnn.Transformer.generate_square_subsequent_mask(T), "src_key_padding_mask": torch.tensor(kp),
            "memory_key_padding_mask": torch.tensor(kp)}
    so, to = tt.tensor(src, requires_grad=True), tt.tensor(tgt, requires_grad=True)
    sr, tr = torch.tensor(src, requires_grad=True), torch.tensor(tgt, requires_grad=True)
    yo, yr = ours(so, to, **_to_tt(kw_r)), ref(sr, tr, **kw_r)
    close(yo, yr, rtol=1e-4, atol=1e-5)
    yo.square().sum().backward()
    yr.square().sum().backward()
    close(so.grad, sr.grad, rtol=1e-4, atol=1e-4)
    close(to.grad, tr.grad, rtol=1e-4, atol=1e-4)
    for (n1, p1), (n2, p2) in zip(ours.named_parameters(), ref.named_parameters(), strict=True):
        assert n1 == n2
        close(p1.grad, p2.grad, rtol=1e-4, atol=1e-4)


def test_decoder_layer_alone_and_unbatched() -> None:
    ours, ref = _pair(lambda nn: nn.TransformerDecoderLayer(E, H, dim_feedforward=16, dropout=0.0))
    tgt, mem = _seq(T, False, 4)[:, 0], _seq(S, False, 5)[:, 0]  # unbatched [T, E], [S, E]
    close(ours(tt.tensor(tgt), tt.tensor(mem)), ref(torch.tensor(tgt), torch.tensor(mem)), rtol=1e-4, atol=1e-5)


def test_square_subsequent_mask_matches_torch() -> None:
    close(tt.nn.Transformer.generate_square_subsequent_mask(4), tnn.Transformer.generate_square_subsequent_mask(4))


def test_transformer_defaults_and_init_follow_torch() -> None:
    model = tt.nn.Transformer(d_model=16, nhead=2, num_encoder_layers=1, num_decoder_layers=1, dim_feedforward=8)
    ref = tnn.Transformer(d_model=16, nhead=2, num_encoder_layers=1, num_decoder_layers=1, dim_feedforward=8)
    assert list(model.state_dict()) == list(ref.state_dict())
    w = model.encoder.layers[0].linear1.weight.detach().numpy()
    bound = np.sqrt(6 / (16 + 8))  # Xavier-uniform over every matrix, as torch's _reset_parameters
    assert np.abs(w).max() <= bound and np.abs(w).max() > bound / 2
    with pytest.raises(RuntimeError, match="batch number"):
        model(tt.randn(5, 2, 16), tt.randn(4, 3, 16))


def test_activation_string_is_checked() -> None:
    with pytest.raises(RuntimeError, match="relu/gelu"):
        tt.nn.TransformerEncoderLayer(8, 2, activation="tanh")
