"""``finfo``, ``iinfo``, ``Size``, the default dtype and the numeric constants, each against torch's:
attention masks (``masked_fill(mask, torch.finfo(x.dtype).min)``), clamps and initialisers read
them before any op runs."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest

import typedtensor as tt

torch = pytest.importorskip("torch")

FLOATS = ["float16", "bfloat16", "float32", "float64"]
INTS = ["uint8", "int32", "int64"]


@pytest.mark.parametrize("name", FLOATS)
def test_finfo_matches_torch(name: str) -> None:
    ours, theirs = tt.finfo(getattr(tt, name)), torch.finfo(getattr(torch, name))
    for attr in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"):
        assert getattr(ours, attr) == getattr(theirs, attr), attr
    assert repr(ours) == repr(theirs)


def test_finfo_defaults_to_float32_and_refuses_integers_like_torch() -> None:
    assert tt.finfo() == tt.finfo(tt.float32)
    assert tt.finfo(tt.float32) != tt.finfo(tt.float64)
    with pytest.raises(TypeError, match="requires a floating point input type"):
        tt.finfo(tt.int64)
    with pytest.raises(TypeError):
        torch.finfo(torch.int64)


@pytest.mark.parametrize("name", INTS)
def test_iinfo_matches_torch(name: str) -> None:
    ours, theirs = tt.iinfo(getattr(tt, name)), torch.iinfo(getattr(torch, name))
    assert (ours.bits, ours.min, ours.max, ours.dtype) == (theirs.bits, theirs.min, theirs.max, theirs.dtype)
    assert repr(ours) == repr(theirs)


@pytest.mark.parametrize("name", ["bool", "float32"])
def test_iinfo_refuses_what_torch_refuses(name: str) -> None:
    with pytest.raises(TypeError):
        torch.iinfo(getattr(torch, name))
    with pytest.raises(TypeError, match=r"is not supported by torch\.iinfo"):
        tt.iinfo(getattr(tt, name))


def test_finfo_min_masks_like_torch() -> None:
    x = tt.tensor([[0.5, -1.0], [2.0, 3.0]])
    tx = torch.tensor([[0.5, -1.0], [2.0, 3.0]])
    ours = x.masked_fill(x < 0, tt.finfo(x.dtype).min).softmax(-1)
    theirs = tx.masked_fill(tx < 0, torch.finfo(tx.dtype).min).softmax(-1)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)


def test_size_behaves_as_torch_size() -> None:
    ours, theirs = tt.Size([2, 3, 4]), torch.Size([2, 3, 4])
    assert ours == theirs == (2, 3, 4)
    assert ours.numel() == theirs.numel() == 24
    assert tt.Size().numel() == torch.Size().numel() == 1
    assert isinstance(ours[1:], tt.Size) and ours[1:] == theirs[1:]
    assert ours[-1] == 4 and isinstance(ours[-1], int)
    assert isinstance(ours + (5,), tt.Size) and isinstance((1,) + ours, tt.Size)  # noqa: RUF005 (+ keeps Size)
    assert repr(ours) == "typedtensor.Size([2, 3, 4])"
    assert pickle.loads(pickle.dumps(ours)) == ours and type(pickle.loads(pickle.dumps(ours))) is tt.Size
    assert tt.zeros(tt.Size([2, 3])).shape == (2, 3)
    assert tt.Size(tt.zeros(2, 5).shape) == (2, 5)
    assert tt.Size([torch.tensor(3)]) == (3,)  # anything with __index__, as torch
    for bad in (["a"], [1.5], [True]):
        with pytest.raises(TypeError):
            tt.Size(bad)


def test_default_dtype_is_float32_and_cannot_silently_change() -> None:
    assert tt.get_default_dtype() == tt.float32 == tt.tensor([1.5]).dtype
    tt.set_default_dtype(tt.float32)
    with pytest.raises(NotImplementedError, match="cannot be changed"):
        tt.set_default_dtype(tt.float64)
    with pytest.raises(TypeError, match="only floating-point types"):
        tt.set_default_dtype(tt.int64)
    assert tt.tensor([1.5]).dtype == tt.float32


def test_constants_are_torchs() -> None:
    for name in ("pi", "e", "inf"):
        assert getattr(tt, name) == getattr(torch, name)
    assert math.isnan(tt.nan) and tt.newaxis is None is torch.newaxis
    assert tt.zeros(2, 3)[:, tt.newaxis].shape == (2, 1, 3)
