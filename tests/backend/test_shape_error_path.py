"""A ShapeError from the C++ core is worded by the one run-time formatter,
typedtensor._runtime.errors.shape_error, like the Python composites' ShapeErrors."""

from __future__ import annotations

from typing import Any

import pytest

import typedtensor as tt
from typedtensor._runtime import errors


def test_core_shape_errors_go_through_the_python_formatter(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[Any, ...]] = []
    real = errors.shape_error

    def recording(op: str, shapes: Any, params: Any, fallback: str) -> Any:
        calls.append((op, [tuple(s) for s in shapes], dict(params), fallback))
        return real(op, shapes, params, fallback)

    monkeypatch.setattr(errors, "shape_error", recording)
    with pytest.raises(tt.ShapeError) as info:
        tt.matmul(tt.ones(2, 3), tt.ones(4, 5))
    assert calls and calls[0][0] == "matmul" and calls[0][1] == [(2, 3), (4, 5)]
    assert calls[0][3].startswith("[matmul]")  # the core's own text, for when the registry has none
    err: Any = info.value
    assert (err.op, err.shapes) == ("matmul", [(2, 3), (4, 5)])
    assert "matmul" in str(err) and "3" in str(err) and "4" in str(err)


def test_the_core_and_the_registry_give_the_same_text() -> None:
    """An index_select of a 2-d index: the core refuses it; the message is the registry's rule's."""
    with pytest.raises(tt.ShapeError) as info:
        tt.index_select(tt.ones(3, 4), 0, tt.zeros(2, 2, dtype=tt.int64))
    made = errors.shape_error("index_select", [(3, 4), (2, 2)], {"dim": 0}, "[index_select] fallback")
    assert str(info.value) == str(made)
