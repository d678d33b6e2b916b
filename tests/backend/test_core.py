"""Tensors, dtypes and promotion, views, interop, repr, errors."""

from __future__ import annotations

import gc
import itertools
import pickle
import typing

import numpy as np
import pytest

import typedtensor._runtime as tt
from tests.backend.helpers import DTYPES, assert_close

torch = pytest.importorskip("torch")


def test_public_tensor_is_the_compiled_class() -> None:
    import typedtensor

    assert tt.Tensor is tt._C.Tensor
    assert typedtensor.Tensor is tt.Tensor
    x = tt.zeros(2, 3)
    assert isinstance(x, tt.Tensor)
    alias = tt.Tensor[int, str]
    assert typing.get_args(alias) == (int, str) and typing.get_origin(alias) is tt.Tensor


@pytest.mark.parametrize("a,b", list(itertools.product([*DTYPES, "float16", "bfloat16"], repeat=2)))
def test_promotion_matches_torch(a: str, b: str) -> None:
    ta, tb = tt.ones(2, dtype=getattr(tt, a)), tt.ones(2, dtype=getattr(tt, b))
    ra, rb = torch.ones(2, dtype=getattr(torch, a)), torch.ones(2, dtype=getattr(torch, b))
    assert (ta * tb).dtype.name == str((ra * rb).dtype)[6:]
    # zero-dim tensors and Python scalars take part with lower priority
    assert (ta * tb[0]).dtype.name == str((ra * rb[0]).dtype)[6:]
    for s in (True, 2, 2.5):
        if a == "bool" and s is True:
            continue
        assert (ta * s).dtype.name == str((ra * s).dtype)[6:], (a, s)


def test_creation_functions() -> None:
    assert_close(tt.arange(5), torch.arange(5))
    assert_close(tt.arange(1, 2, 0.25), torch.arange(1, 2, 0.25))
    assert_close(tt.arange(10, 0, -3), torch.arange(10, 0, -3))
    assert_close(tt.linspace(0, 1, 7), torch.linspace(0, 1, 7))
    assert_close(tt.eye(3, 4), torch.eye(3, 4))
    assert_close(tt.full((2, 3), 7), torch.full((2, 3), 7))
    assert_close(tt.full((2,), 1.5), torch.full((2,), 1.5))
    assert_close(tt.zeros((2, 0, 3)), torch.zeros((2, 0, 3)))
    assert_close(tt.ones(2, dtype=tt.int32), torch.ones(2, dtype=torch.int32))
    assert_close(tt.tensor([[1, 2], [3, 4]]), torch.tensor([[1, 2], [3, 4]]))
    assert_close(tt.tensor([1.0, 2.5]), torch.tensor([1.0, 2.5]))
    assert_close(tt.tensor(3), torch.tensor(3))
    assert_close(tt.tensor([True, False]), torch.tensor([True, False]))
    assert_close(tt.zeros_like(tt.ones(2, 2, dtype=tt.int64)), torch.zeros(2, 2, dtype=torch.int64))


def test_random_is_seedable() -> None:
    tt.manual_seed(123)
    a = tt.randn(100)
    tt.manual_seed(123)
    b = tt.randn(100)
    assert tt.equal(a, b)
    u = tt.rand(10000)
    assert u.min().item() >= 0 and u.max().item() < 1 and abs(u.mean().item() - 0.5) < 0.02
    n = tt.randn(20000)
    assert abs(n.mean().item()) < 0.03 and abs(n.std().item() - 1) < 0.03
    r = tt.randint(3, 7, (1000,))
    assert r.dtype == tt.int64 and r.min().item() == 3 and r.max().item() == 6
    p = tt.randperm(50)
    assert sorted(p.tolist()) == list(range(50))
    d = tt.dropout(tt.ones(10000), 0.25, True)
    assert abs((d == 0).float().mean().item() - 0.25) < 0.03
    assert np.allclose(np.unique(d.numpy()), [0.0, 1 / 0.75])


def test_views_share_storage() -> None:
    x = tt.arange(24).reshape(2, 3, 4)
    for v in (x.view(6, 4), x.transpose(0, 2), x.permute(2, 0, 1), x[1], x[:, 1:, ::2], x.unsqueeze(0),
              x.expand(5, 2, 3, 4), x.select(1, 2), x.narrow(2, 1, 2), x.diagonal(0, 1, 2), x.flatten(), x.T):
        assert v._shares_storage(x)
    y = x.transpose(0, 2)
    assert not y.is_contiguous()
    assert y.contiguous().is_contiguous() and not y.contiguous()._shares_storage(x)
    x[0, 0, 0] = 100
    assert y[0, 0, 0].item() == 100
    assert x.reshape(4, 6)._shares_storage(x)
    assert not y.reshape(24)._shares_storage(x)  # not viewable: copies
    with pytest.raises(ValueError):
        y.view(24)


def test_inplace_ops_and_version() -> None:
    x = tt.ones(3)
    v0 = x._version
    x.add_(1).mul_(3).sub_(tt.tensor([1.0, 2.0, 3.0]))
    assert x.tolist() == [5.0, 4.0, 3.0] and x._version > v0
    x += 1
    x /= 2
    assert x.tolist() == [3.0, 2.5, 2.0]
    x.clamp_(2.2, 2.8)
    assert_close(x, torch.tensor([2.8, 2.5, 2.2]))
    x.zero_()
    assert x.sum().item() == 0
    x.fill_(7)
    assert x.tolist() == [7.0] * 3
    i = tt.arange(3)
    with pytest.raises(TypeError):
        i.add_(0.5)  # float result can't be stored in int64, like torch
    with pytest.raises(ValueError):
        tt.ones(3).add_(tt.ones(2, 3))  # output shape must not grow


def test_numpy_zero_copy_both_ways() -> None:
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    t = tt.from_numpy(a)
    a[0, 0] = 42
    assert t[0, 0].item() == 42
    b = t.numpy()
    b[1, 1] = -1
    assert t[1, 1].item() == -1
    assert np.shares_memory(a, b)
    # the tensor keeps the array alive
    del a, b
    gc.collect()
    assert t.sum().item() == 42 + 1 + 2 + 3 - 1 + 5
    # non-contiguous arrays keep their strides
    c = np.arange(12.0).reshape(3, 4)[:, ::2]
    assert_close(tt.from_numpy(c), c)
    with pytest.raises(ValueError):
        tt.from_numpy(np.arange(5)[::-1])
    with pytest.raises(TypeError):
        tt.from_numpy(np.zeros(2, dtype=np.complex64))
    m = memoryview(tt.arange(4, dtype=tt.int32))
    assert m.format == "i" and m.tolist() == [0, 1, 2, 3]
    assert np.asarray(tt.ones(2, 2)).shape == (2, 2)


def test_dlpack_round_trips() -> None:
    x = tt.arange(12, dtype=tt.float32).reshape(3, 4)[:, 1:]
    n = np.from_dlpack(x)
    assert_close(x, n)
    assert np.shares_memory(n, x.numpy())
    t = torch.from_dlpack(x)
    t[0, 0] = 99
    assert x[0, 0].item() == 99
    back = tt.from_dlpack(torch.arange(6).reshape(2, 3).t())
    assert_close(back, torch.arange(6).reshape(2, 3).t())
    assert_close(tt.from_dlpack(np.ones((2, 2))), np.ones((2, 2)))
    assert x.__dlpack_device__() == (1, 0)
    assert tt.from_dlpack(torch.ones(3, dtype=torch.bfloat16)).dtype == tt.bfloat16


def test_half_types_store_and_convert() -> None:
    vals = np.array([0.0, 1.0, -2.5, 65504.0, 1e-7, np.inf, np.nan, 3.14159], dtype=np.float32)
    for ours, theirs in ((tt.float16, torch.float16), (tt.bfloat16, torch.bfloat16)):
        a = tt.tensor(vals).to(ours).float()
        b = torch.tensor(vals).to(theirs).float()
        assert_close(a, b, rtol=0, atol=0)
        assert_close(tt.tensor(vals).to(ours) * 2, torch.tensor(vals).to(theirs) * 2, rtol=1e-2, atol=1e-2)


def test_repr_like_torch() -> None:
    cases = [
        ([1.0, 2.0, 3.0], None), ([1.5, -2.25], None), ([[1, 2], [3, 40]], None), ([True, False], None),
        ([1.0, 2.0], "float64"), ([0.001, 1000.0], None), (3.5, None), ([], None),
    ]
    for data, dt in cases:
        ours = tt.tensor(data, dtype=getattr(tt, dt) if dt else None)
        ref = torch.tensor(data, dtype=getattr(torch, dt) if dt else None)
        assert repr(ours) == repr(ref).replace("torch.", "typedtensor."), (repr(ours), repr(ref))


def test_item_tolist_and_conversions() -> None:
    x = tt.tensor([[1.5, 2.0], [3.0, 4.0]])
    assert x.tolist() == [[1.5, 2.0], [3.0, 4.0]]
    assert x[0, 0].item() == 1.5 and float(x[0, 0]) == 1.5 and int(x[1, 1]) == 4
    assert x.long().dtype == tt.int64 and x.int().dtype == tt.int32 and x.double().dtype == tt.float64
    assert x.to(tt.bool).all().item() is True
    assert bool(tt.tensor([1]))
    with pytest.raises(ValueError):
        bool(tt.ones(2))
    with pytest.raises(ValueError):
        tt.ones(2).item()
    assert pickle.loads(pickle.dumps(x)).tolist() == x.tolist()


def test_clean_errors_not_crashes() -> None:
    with pytest.raises(ValueError):
        tt.zeros(-1)
    with pytest.raises(MemoryError):
        tt.empty(1 << 50)
    with pytest.raises((ValueError, MemoryError)):
        tt.empty(1 << 62, 1 << 62)
    with pytest.raises(IndexError):
        tt.ones(3)[3]
    with pytest.raises(IndexError):
        tt.ones(3)[tt.tensor([0, 5])]
    with pytest.raises(TypeError):
        tt.ones(3) & tt.ones(3)
    with pytest.raises(TypeError):
        tt.tensor(["a"])
    with pytest.raises(ValueError):
        tt.arange(0, 10, 0)
    with pytest.raises(ValueError):
        tt.arange(5) // tt.zeros(5, dtype=tt.int64)
    with pytest.raises(TypeError):
        tt.ones(2).requires_grad_(True).long().requires_grad_(True)
    if not tt.cuda.is_available():
        with pytest.raises(RuntimeError, match="CUDA is not available"):
            tt.ones(2).cuda()
    with pytest.raises(TypeError):
        tt.zeros(2, dtype="complex")


def test_shape_errors_are_typedtensor_shape_errors() -> None:
    import typedtensor

    cases = [
        lambda: tt.ones(2, 3) + tt.ones(4),
        lambda: tt.ones(2, 3) @ tt.ones(4, 5),
        lambda: tt.ones(6).reshape(4, -1),
        lambda: tt.ones(2, 3).sum(5),
        lambda: tt.cat([tt.ones(2, 3), tt.ones(2, 4)]),
        lambda: tt.stack([tt.ones(2), tt.ones(3)]),
        lambda: tt.conv2d(tt.ones(3, 4), tt.ones(2, 1, 3, 3)),
        lambda: tt.max_pool2d(tt.ones(1, 1, 4, 4), 2, padding=2),
        lambda: tt.ones(2, 3).permute(0, 0),
        lambda: tt.ones(2, 3).expand(4, 4),
        lambda: tt.functional.mse_loss(tt.ones(4, 1), tt.ones(4)),
        lambda: tt.functional.dropout2d(tt.ones(3), 0.5),
    ]
    for f in cases:
        with pytest.raises(typedtensor.ShapeError) as info:
            f()
        assert isinstance(info.value, ValueError)
        assert str(info.value)


def test_threads() -> None:
    n = tt.get_num_threads()
    tt.set_num_threads(1)
    assert tt.get_num_threads() == 1
    x = tt.rand(1 << 18)
    s1 = x.sum().item()
    tt.set_num_threads(max(n, 2))
    assert abs(x.sum().item() - s1) < 1e-2
    with pytest.raises(ValueError):
        tt.set_num_threads(0)
    tt.set_num_threads(n)


def test_cuda_module_reports_no_device() -> None:
    assert tt.cuda.is_available() is False
    assert tt.cuda.device_count() == 0
