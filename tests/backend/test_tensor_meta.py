"""The metadata torch programs test (``x.is_xpu``, ``x.is_sparse``, ``x.is_signed()`` ...) and
the binding fixes of the creation methods: torch's answers on the same CPU tensors are the oracle."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import typedtensor._runtime as tt
from typedtensor._runtime.tensor_meta import ALWAYS_FALSE, ALWAYS_FALSE_METHODS

torch = pytest.importorskip("torch")

DTYPES = ["float32", "float64", "float16", "bfloat16", "int32", "int64", "uint8", "bool"]


@pytest.mark.parametrize("name", ALWAYS_FALSE)
def test_device_kind_and_layout_properties_match_torch(name: str) -> None:
    ours, ref = tt.zeros(2, 3), torch.zeros(2, 3)
    assert getattr(ours, name) is getattr(ref, name) is False


@pytest.mark.parametrize("name", ALWAYS_FALSE_METHODS)
def test_false_predicates_match_torch(name: str) -> None:
    ours, ref = tt.zeros(2, 3), torch.zeros(2, 3)
    assert getattr(ours, name)() is getattr(ref, name)() is False


@pytest.mark.parametrize("dtype", DTYPES)
def test_is_signed_matches_torch(dtype: str) -> None:
    assert tt.zeros(2, dtype=getattr(tt, dtype)).is_signed() == torch.zeros(2, dtype=getattr(torch, dtype)).is_signed()


def test_is_same_size_matches_torch() -> None:
    for a, b in [((2, 3), (2, 3)), ((2, 3), (3, 2)), ((6,), (2, 3))]:
        assert tt.zeros(*a).is_same_size(tt.zeros(*b)) == torch.zeros(*a).is_same_size(torch.zeros(*b))


def test_is_nonzero_matches_torch() -> None:
    for v in ([0.0], [2.0], [[True]]):
        assert tt.tensor(v).is_nonzero() == torch.tensor(v).is_nonzero()
    for v in ([], [1.0, 2.0]):
        with pytest.raises(RuntimeError):
            torch.tensor(v).is_nonzero()
        with pytest.raises(RuntimeError):
            tt.tensor(v).is_nonzero()


# --- new_* follow the source tensor (dtype, device) unless told, and take torch's keywords ---

NEW: dict[str, Any] = {
    "new_zeros": lambda x, **kw: x.new_zeros(2, 3, **kw),
    "new_ones": lambda x, **kw: x.new_ones((2, 3), **kw),
    "new_empty": lambda x, **kw: x.new_empty(2, 3, **kw),
    "new_full": lambda x, **kw: x.new_full((2, 3), 7, **kw),
    "new_tensor": lambda x, **kw: x.new_tensor([[1, 2, 3], [4, 5, 6]], **kw),
}


@pytest.mark.parametrize("name", NEW)
def test_new_factories_follow_torch(name: str) -> None:
    make = NEW[name]
    ours_src, ref_src = tt.zeros(1, dtype=tt.float64), torch.zeros(1, dtype=torch.float64)
    for kw in ({}, {"dtype": "int32"}, {"device": "cpu", "requires_grad": True}):
        tkw = {k: (getattr(torch, v) if k == "dtype" else v) for k, v in kw.items()}
        okw = {k: (getattr(tt, v) if k == "dtype" else v) for k, v in kw.items()}
        ours, ref = make(ours_src, **okw), make(ref_src, **tkw)
        assert (tuple(ours.shape), ours.dtype.name, str(ours.device), ours.requires_grad) == (
            tuple(ref.shape), str(ref.dtype).removeprefix("torch."), str(ref.device), ref.requires_grad)
        if name != "new_empty":
            np.testing.assert_array_equal(ours.detach().numpy(), ref.detach().numpy())


def test_new_factories_refuse_requires_grad_on_integers() -> None:
    with pytest.raises(RuntimeError):
        torch.zeros(1, dtype=torch.int64).new_zeros(2, requires_grad=True)
    with pytest.raises(TypeError):
        tt.zeros(1, dtype=tt.int64).new_zeros(2, requires_grad=True)


@pytest.fixture
def emulated() -> Any:
    if tt.cuda.is_available():
        pytest.skip("a real CUDA device is present: test_cuda.py covers it")
    tt._C._testing_emulate_cuda(True)
    try:
        yield
    finally:
        tt._C._testing_emulate_cuda(False)


@pytest.mark.parametrize("name", NEW)
def test_new_factories_follow_the_source_device(name: str, emulated: None) -> None:
    src = tt.zeros(1, device="cuda")
    assert NEW[name](src).device.type == "cuda"
    assert NEW[name](src, device="cpu").device.type == "cpu"


def test_generator_draws_reach_a_cuda_result(emulated: None) -> None:
    on_cpu = tt.rand(10, generator=tt.Generator().manual_seed(3)).tolist()
    on_dev = tt.rand(10, generator=tt.Generator(device="cuda").manual_seed(3), device="cuda")
    assert on_dev.device.type == "cuda" and on_dev.cpu().tolist() == on_cpu


# --- torch.device("cuda") names no index ---


@pytest.mark.parametrize("spec", ["cpu", "cuda", "cuda:0", "cuda:1"])
def test_device_prints_and_compares_like_torch(spec: str) -> None:
    ours, ref = tt.device(spec), torch.device(spec)
    assert (repr(ours), str(ours), ours.type, ours.index) == (repr(ref), str(ref), ref.type, ref.index)
    for other in ["cpu", "cuda", "cuda:0"]:
        assert (ours == tt.device(other)) == (ref == torch.device(other)), other


def test_device_with_index_argument_and_pickle() -> None:
    import pickle

    assert repr(tt.device("cuda", 1)) == repr(torch.device("cuda", 1))
    for spec in ("cpu", "cuda", "cuda:2"):
        assert repr(pickle.loads(pickle.dumps(tt.device(spec)))) == repr(torch.device(spec))


# --- add / sub with alpha: one rounding, as torch ---


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("op", ["add", "sub", "subtract"])
def test_alpha_rounds_once_like_torch(dtype: str, op: str) -> None:
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((64, 33)).astype(dtype), rng.standard_normal((33,)).astype(dtype)
    for alpha in (0.1, -0.37, 3):
        ref = getattr(torch, op)(torch.tensor(a), torch.tensor(b), alpha=alpha).numpy()
        ours_fn = getattr(tt, op)(tt.tensor(a), tt.tensor(b), alpha=alpha).numpy()
        ours_method = getattr(tt.tensor(a), op)(tt.tensor(b), alpha=alpha).numpy()
        np.testing.assert_array_equal(ours_fn, ref)
        np.testing.assert_array_equal(ours_method, ref)


def test_alpha_gradients_match_torch() -> None:
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((4, 3)), rng.standard_normal((3,))
    grads = []
    for m in (torch, tt):
        x, y = m.tensor(a, requires_grad=True), m.tensor(b, requires_grad=True)
        (m.sub(x, y, alpha=0.5) * m.tensor(a)).sum().backward()
        grads.append((x.grad.numpy(), y.grad.numpy()))
    np.testing.assert_allclose(grads[1][0], grads[0][0], rtol=1e-12)
    np.testing.assert_allclose(grads[1][1], grads[0][1], rtol=1e-12)


def test_subtract_inplace_takes_alpha_like_torch() -> None:
    a, b = np.arange(6.0).reshape(2, 3), np.ones(3)
    ref = torch.tensor(a).subtract_(torch.tensor(b), alpha=2.5).numpy()
    np.testing.assert_array_equal(tt.tensor(a).subtract_(tt.tensor(b), alpha=2.5).numpy(), ref)
    ints = torch.tensor([5, 6]).subtract(torch.tensor([1, 2]), alpha=2)
    assert tt.tensor([5, 6]).subtract(tt.tensor([1, 2]), alpha=2).tolist() == ints.tolist()
