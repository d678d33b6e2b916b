"""torch's legacy tensor-type constructors (``FloatTensor``, ``LongTensor`` ...), each against torch's:
sizes, data (lists and numpy arrays, converted or shared), tensors (returned or refused) and
``isinstance``. pytorch/examples' gcn and gat read their data with ``torch.FloatTensor(array)``."""

from __future__ import annotations

import numpy as np
import pytest

import typedtensor as tt

torch = pytest.importorskip("torch")

NAMES = ["FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor", "LongTensor", "IntTensor", "ByteTensor",
         "BoolTensor"]


def _dtype_name(t: object) -> str:
    return str(t.dtype).split(".")[-1]  # type: ignore[attr-defined]


@pytest.mark.parametrize("name", NAMES)
def test_data_converts_to_the_types_dtype_like_torch(name: str) -> None:
    ours_t, theirs_t = getattr(tt, name), getattr(torch, name)
    for data in ([1, 0, 3], [[1.75, 2.5], [0.0, 4.0]], np.array([[1, 2], [3, 0]], dtype=np.int32),
                 np.array([1.7, 2.2, 0.0])):
        ours, theirs = ours_t(data), theirs_t(data)
        assert _dtype_name(ours) == _dtype_name(theirs)
        assert tuple(ours.shape) == tuple(theirs.shape)
        np.testing.assert_array_equal(ours.to(tt.float64).numpy(), theirs.to(torch.float64).numpy())


@pytest.mark.parametrize("name", NAMES)
def test_sizes_and_no_arguments_give_uninitialised_tensors(name: str) -> None:
    ours_t, theirs_t = getattr(tt, name), getattr(torch, name)
    for args in ((), (3,), (2, 0, 4)):
        ours, theirs = ours_t(*args), theirs_t(*args)
        assert tuple(ours.shape) == tuple(theirs.shape)
        assert _dtype_name(ours) == _dtype_name(theirs)
        assert not ours.requires_grad


def test_an_array_of_the_same_dtype_is_shared_like_torch() -> None:
    ours_a, theirs_a = np.ones(3, dtype=np.float32), np.ones(3, dtype=np.float32)
    ours, theirs = tt.FloatTensor(ours_a), torch.FloatTensor(theirs_a)
    ours_a[0] = theirs_a[0] = 5.0
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    converted = tt.FloatTensor(np.ones(3, dtype=np.int32))  # another dtype: a converted copy
    assert converted.dtype == tt.float32


def test_a_tensor_is_returned_or_refused() -> None:
    t = tt.ones(2)
    assert tt.FloatTensor(t) is t
    with pytest.raises(TypeError):
        torch.FloatTensor(torch.ones(2, dtype=torch.int64))
    with pytest.raises(TypeError, match="float32"):
        tt.FloatTensor(tt.ones(2, dtype=tt.int64))


def test_isinstance_tests_the_dtype_and_the_classes_are_not_tensor_subclasses() -> None:
    assert isinstance(tt.ones(2), tt.FloatTensor) and isinstance(torch.ones(2), torch.FloatTensor)
    assert not isinstance(tt.ones(2), tt.LongTensor) and not isinstance(torch.ones(2), torch.LongTensor)
    assert isinstance(tt.LongTensor([1]), tt.LongTensor)
    assert not isinstance(np.ones(2), tt.FloatTensor)
    assert not issubclass(tt.FloatTensor, tt.Tensor) and not issubclass(torch.FloatTensor, torch.Tensor)
    assert type(tt.FloatTensor(2)) is tt.Tensor


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(TypeError):
        tt.FloatTensor(2, 3.0)
    with pytest.raises(ValueError, match="negative"):
        tt.FloatTensor(-1)
    with pytest.raises(RuntimeError, match="cpu"):
        tt.FloatTensor(2, device="cuda")
