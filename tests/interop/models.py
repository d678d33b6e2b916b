"""The example models (examples/*.py), built at their real sizes, with inputs of any batch size."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import typedtensor as tt

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
NAMES = ["mlp_digits", "cnn_digits", "char_transformer"]


def example(name: str) -> Any:
    """Imports examples/<name>.py (they import their sibling ``progress`` module)."""
    if name != "char_transformer":
        pytest.importorskip("sklearn")
    if str(EXAMPLES) not in sys.path:
        sys.path.insert(0, str(EXAMPLES))
    return importlib.import_module(name)


def build(name: str) -> tuple[Any, Callable[[int], list[Any]]]:
    """(the model, a function batch -> the forward's inputs), as the example's main() makes them."""
    m = example(name)
    if name == "mlp_digits":
        return m.MLP(m.Pixels(64), m.Hidden(256), m.Classes(10)), lambda b: [tt.rand(b, 64)]
    if name == "cnn_digits":
        return m.DigitCNN(m.Classes(10)), lambda b: [tt.rand(b, 1, 8, 8)]
    if name == "char_transformer":
        model = m.CharLM(m.Vocab(48), m.Model(64), m.Hidden(256), m.Seq(64), layers=2, heads=4)
        return model, lambda b: [tt.randint(0, 48, (b, 64))]
    raise KeyError(name)
