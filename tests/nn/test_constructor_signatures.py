"""Module constructors take their arguments positionally where torch's do.

Programs subclass modules and pass everything on positionally: mnist_forward_forward's
``Layer(nn.Linear)`` calls ``super().__init__(in_features, out_features, bias, device, dtype)``.
torch's ``device`` and ``dtype`` are ordinary trailing parameters of every module that takes them."""

from __future__ import annotations

import inspect

import pytest

import typedtensor as tt
import typedtensor.nn as nn

torch = pytest.importorskip("torch")

# torch parameters typedtensor leaves out on purpose: Hardtanh's min_value/max_value are torch's
# deprecated spellings of min_val/max_val; Parameter, Buffer and the uninitialised ones are built
# by __new__ in torch, not __init__.
_NOT_MIRRORED = {"Hardtanh": ("min_value", "max_value"), "Parameter": None, "Buffer": None,
                 "UninitializedParameter": None, "UninitializedBuffer": None}


def _positional(cls: type) -> list[str]:
    params = inspect.signature(cls.__init__).parameters.values()
    return [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)][1:]


def _shared_module_classes() -> list[str]:
    names = []
    for name in dir(nn):
        ours, theirs = getattr(nn, name), getattr(torch.nn, name, None)
        mirrored = name not in _NOT_MIRRORED or _NOT_MIRRORED[name] is not None
        if isinstance(ours, type) and isinstance(theirs, type) and mirrored:
            names.append(name)
    return sorted(names)


@pytest.mark.parametrize("name", _shared_module_classes())
def test_positional_parameters_follow_torch(name: str) -> None:
    try:
        theirs = _positional(getattr(torch.nn, name))
    except (TypeError, ValueError):
        pytest.skip(f"torch.nn.{name}.__init__ has no signature to compare")
    skipped = _NOT_MIRRORED.get(name) or ()
    assert _positional(getattr(nn, name)) == [p for p in theirs if p not in skipped]


def test_subclass_passes_device_and_dtype_positionally() -> None:
    class Layer(nn.Linear):
        def __init__(self, in_features: int, out_features: int, bias: bool = True, device: object = None,
                     dtype: object = None) -> None:
            super().__init__(in_features, out_features, bias, device, dtype)

    layer = Layer(3, 2, True, None, tt.float64)
    assert layer.weight.dtype == tt.float64 and tuple(layer.weight.shape) == (2, 3)
    conv = nn.Conv2d(1, 2, 3, 1, 0, 1, 1, True, "zeros", None, tt.float64)
    assert conv.weight.dtype == tt.float64
    norm = nn.LayerNorm(4, 1e-5, True, True, None, tt.float64)
    assert norm.weight.dtype == tt.float64
