"""Index keys the bindings do not take fail with Python's error, never a crash."""

from __future__ import annotations

import pytest

import typedtensor as tt


class _NoIndex:
    """Claims to be an integer but refuses to give one (as a many-element tensor of another library does)."""

    def __index__(self) -> int:
        raise TypeError("only integer tensors of a single element can be converted to an index")


def test_an_index_whose_index_method_raises_is_a_type_error() -> None:
    x = tt.zeros(3, 4)
    with pytest.raises(TypeError, match="single element"):
        x[_NoIndex()]
    with pytest.raises(TypeError, match="single element"):
        x[0, _NoIndex()]
