"""``F.bilinear`` (_runtime/functional.py) and ``nn.Bilinear`` (nn/layers.py) against torch: values and
gradients with and without bias and batch dims, torch's errors, and the module's initialisation."""

from __future__ import annotations

import math

import numpy as np
import pytest

import typedtensor as tt

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(9)


@pytest.mark.parametrize("batch", [(), (4,), (2, 3), (0,)])
@pytest.mark.parametrize("with_bias", [True, False])
def test_functional_matches_torch(batch: tuple[int, ...], with_bias: bool) -> None:
    arrays = [RNG.standard_normal((*batch, 3)), RNG.standard_normal((*batch, 4)), RNG.standard_normal((5, 3, 4))]
    if with_bias:
        arrays.append(RNG.standard_normal(5))
    ours = [tt.tensor(a, requires_grad=True) for a in arrays]
    refs = [torch.tensor(a, requires_grad=True) for a in arrays]
    y, ref = tt.nn.functional.bilinear(*ours), torch.nn.functional.bilinear(*refs)
    assert tuple(y.shape) == tuple(ref.shape)
    np.testing.assert_allclose(y.detach().numpy(), ref.detach().numpy(), rtol=1e-12, atol=1e-12)
    weight = RNG.standard_normal(tuple(ref.shape))
    (y * tt.tensor(weight)).sum().backward()
    (ref * torch.tensor(weight)).sum().backward()
    for a, b in zip(ours, refs, strict=True):
        assert a.grad is not None and b.grad is not None
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_function_form() -> None:
    x1, x2, w = RNG.standard_normal((2, 3)), RNG.standard_normal((2, 2)), RNG.standard_normal((4, 3, 2))
    got = tt.bilinear(tt.tensor(x1), tt.tensor(x2), tt.tensor(w))
    np.testing.assert_allclose(got.numpy(), torch.bilinear(torch.tensor(x1), torch.tensor(x2), torch.tensor(w)).numpy(),
                               rtol=1e-12)


@pytest.mark.parametrize(
    ("x1", "x2", "w", "b", "message"),
    [
        ((2, 3), (4,), (5, 3, 4), (5,), "input dimensions do not match: got 2 and 1"),
        ((2, 3), (3, 4), (5, 3, 4), (5,), "input batch dimensions do not match at dim 0: got 2 and 3"),
        ((2, 4), (2, 4), (5, 3, 4), (5,), "input1 size does not match weight size: got 4 but expected 3"),
        ((2, 3), (2, 3), (5, 3, 4), (5,), "input2 size does not match weight size: got 3 but expected 4"),
        ((2, 3), (2, 4), (5, 3, 4), (2,), "bias size does not match weight size: got 2 but expected 5"),
        ((2, 3), (2, 4), (5, 3), None, "weight must be 3-d"),
    ],
)
def test_errors_as_torch(x1: tuple[int, ...], x2: tuple[int, ...], w: tuple[int, ...], b: tuple[int, ...] | None,
                         message: str) -> None:
    with pytest.raises((RuntimeError, IndexError)):
        torch.nn.functional.bilinear(torch.zeros(x1), torch.zeros(x2), torch.zeros(w), None if b is None else torch.zeros(b))
    with pytest.raises(tt.ShapeError, match=message):
        tt.nn.functional.bilinear(tt.zeros(*x1), tt.zeros(*x2), tt.zeros(*w), None if b is None else tt.zeros(*b))


@pytest.mark.parametrize("bias", [True, False])
def test_module_forward_and_state_dict_as_torch(bias: bool) -> None:
    ref = torch.nn.Bilinear(3, 4, 5, bias=bias).double()
    m = tt.nn.Bilinear(3, 4, 5, bias=bias, dtype=tt.float64)
    assert sorted(m.state_dict()) == sorted(ref.state_dict())
    m.load_state_dict({k: tt.tensor(v.detach().numpy()) for k, v in ref.state_dict().items()})
    x1, x2 = RNG.standard_normal((2, 6, 3)), RNG.standard_normal((2, 6, 4))
    np.testing.assert_allclose(m(tt.tensor(x1), tt.tensor(x2)).detach().numpy(),
                               ref(torch.tensor(x1), torch.tensor(x2)).detach().numpy(), rtol=1e-12)
    assert repr(m) == repr(ref)


def test_module_initialisation_is_torchs() -> None:
    tt.manual_seed(0)
    m = tt.nn.Bilinear(16, 3, 200)
    bound = 1 / math.sqrt(16)  # torch's reset_parameters: 1/sqrt(in1_features) for the weight and the bias
    for p in (m.weight, m.bias):
        values = p.detach().numpy()
        assert values.min() >= -bound and values.max() <= bound
        assert values.max() - values.min() > 1.8 * bound  # spread over the whole interval
    assert tuple(m.weight.shape) == (200, 16, 3) and m.bias is not None and tuple(m.bias.shape) == (200,)
    assert tt.nn.Bilinear(2, 3, 4, bias=False).bias is None
