"""``nn.ParameterList``, ``nn.ParameterDict`` and ``nn.Unflatten`` against torch's: the names the
parent sees (state dicts interchange), tensors turned into Parameters, the list and dict protocols,
optimizers reaching the parameters, and Unflatten's shapes and shape checks."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import numpy as np
import pytest

import typedtensor as tt

torch = pytest.importorskip("torch")


def _model(lib: Any) -> Any:
    class Mixture(lib.nn.Module):  # type: ignore[misc, name-defined]
        def __init__(self) -> None:
            super().__init__()
            self.weights = lib.nn.ParameterList([lib.ones(3, 2), lib.nn.Parameter(lib.ones(2) * 2)])
            self.scales = lib.nn.ParameterDict({"b": lib.ones(2) * 3, "a": lib.ones(2)})

        def forward(self, x: Any) -> Any:
            h = x @ self.weights[0] + self.weights[1]
            return h * self.scales["a"] - self.scales["b"]

    return Mixture()


def test_names_state_dict_and_gradients_match_torch() -> None:
    ours, theirs = _model(tt), _model(torch)
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    assert list(ours.state_dict()) == list(theirs.state_dict())
    ours.load_state_dict({k: tt.from_numpy(v.detach().numpy() + 0.5) for k, v in theirs.state_dict().items()})
    theirs.load_state_dict({k: v + 0.5 for k, v in theirs.state_dict().items()})
    x = np.random.default_rng(0).standard_normal((4, 3)).astype(np.float32)
    ours(tt.from_numpy(x)).sum().backward()
    theirs(torch.from_numpy(x)).sum().backward()
    for (n, p), (_, q) in zip(ours.named_parameters(), theirs.named_parameters(), strict=True):
        assert isinstance(p, tt.nn.Parameter) and p.requires_grad
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-6, err_msg=n)
    opt = tt.optim.SGD(ours.parameters(), lr=0.1)
    before = ours.weights[0].detach().clone()
    opt.step()
    assert not np.allclose(before.numpy(), ours.weights[0].detach().numpy())


def test_parameter_list_protocol() -> None:
    pl = tt.nn.ParameterList()
    assert len(pl) == 0
    pl.append(tt.zeros(2))
    pl.extend([tt.ones(1), tt.ones(3)])
    pl += [tt.zeros(4)]
    assert [tuple(p.shape) for p in pl] == [(2,), (1,), (3,), (4,)]
    assert all(isinstance(p, tt.nn.Parameter) for p in pl)
    assert pl[-1].shape == (4,) and len(pl[1:3]) == 2 and isinstance(pl[1:3], tt.nn.ParameterList)
    pl[0] = tt.full((5,), 2.0)
    assert isinstance(pl[0], tt.nn.Parameter) and pl[0].shape == (5,)
    assert [n for n, _ in pl.named_parameters()] == ["0", "1", "2", "3"]
    with pytest.raises(IndexError):
        pl[4]
    with pytest.raises(TypeError):
        pl.extend(3)  # type: ignore[arg-type]
    with pytest.raises(RuntimeError, match="should not be called"):
        pl(tt.zeros(1))
    assert "(0): Parameter containing: [typedtensor.float32 of size 5]" in repr(pl)


def test_parameter_dict_protocol_matches_torch() -> None:
    ours = tt.nn.ParameterDict({"b": tt.zeros(1), "a": tt.zeros(2)})
    theirs = torch.nn.ParameterDict({"b": torch.zeros(1), "a": torch.zeros(2)})
    assert list(ours) == list(theirs) == ["a", "b"]  # a plain dict's keys are sorted, as in torch
    ordered = tt.nn.ParameterDict(OrderedDict([("b", tt.zeros(1)), ("a", tt.zeros(2))]))
    assert list(ordered) == list(torch.nn.ParameterDict(OrderedDict([("b", torch.zeros(1)), ("a", torch.zeros(2))])))
    ours["c"] = tt.ones(3)
    theirs["c"] = torch.ones(3)
    assert list(ours.keys()) == list(theirs.keys()) and "c" in ours and isinstance(ours["c"], tt.nn.Parameter)
    assert ours.get("zz") is None and ours.setdefault("d", tt.ones(1)).shape == (1,)
    assert ours.pop("d").shape == (1,) and "d" not in ours
    key, value = ours.popitem()
    assert key == "c" and value.shape == (3,)
    merged = ours | tt.nn.ParameterDict({"e": tt.zeros(1)})
    assert list(merged) == ["a", "b", "e"] and list(ours) == ["a", "b"]
    assert [n for n, _ in merged.named_parameters()] == ["a", "b", "e"]
    copy = ours.copy()
    copy.clear()
    assert len(copy) == 0 and len(ours) == 2
    with pytest.raises(TypeError):
        ours[1] = tt.zeros(1)  # type: ignore[index]
    with pytest.raises(ValueError, match="element #0"):
        ours.update([("x", tt.zeros(1), 3)])


@pytest.mark.parametrize(("dim", "sizes"), [(1, (2, 3)), (-1, (3, -1)), (0, (2, 2))])
def test_unflatten_matches_torch(dim: int, sizes: tuple[int, ...]) -> None:
    x = np.arange(4 * 6, dtype=np.float32).reshape(4, 6)
    ours, theirs = tt.nn.Unflatten(dim, sizes), torch.nn.Unflatten(dim, sizes)
    np.testing.assert_array_equal(ours(tt.from_numpy(x)).numpy(), theirs(torch.from_numpy(x)).numpy())
    assert repr(ours) == repr(theirs)


def test_unflatten_mismatch_is_a_shape_error() -> None:
    with pytest.raises(tt.ShapeError, match="unflatten"):
        tt.nn.Unflatten(1, (4, 4))(tt.zeros(2, 6))
    with pytest.raises(TypeError):
        tt.nn.Unflatten(1, 6)  # type: ignore[arg-type]
