"""Arguments a fuzzer of the public API found crashing or hanging the process: None where a dtype or
dims are required (the bindings dereferenced an empty optional: a segfault), and a section count of
2^62 (a hang listing that many tensors). Each is now a Python exception, as in torch."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import typedtensor as tt

x = tt.randn(2, 3)

CASES: list[tuple[str, Callable[[], Any]]] = [
    ("flip(None)", lambda: x.flip(None)),
    ("torch.flip(x, None)", lambda: tt.flip(x, None)),
    ("view(None)", lambda: x.view(None)),
    ("promote_types(None, float32)", lambda: tt.promote_types(None, tt.float32)),
    ("can_cast(float32, None)", lambda: tt.can_cast(tt.float32, None)),
    ("tensordot dims None", lambda: tt.tensordot(x, x.t(), dims=(None, None))),
]


@pytest.mark.parametrize(("what", "call"), CASES, ids=[c[0] for c in CASES])
def test_none_where_required_raises_type_error(what: str, call: Callable[[], Any]) -> None:
    with pytest.raises(TypeError, match="None"):
        call()


def test_tensor_split_into_absurdly_many_sections_raises() -> None:
    with pytest.raises(tt.ShapeError, match="sections"):
        x.tensor_split(2**62)
    assert len(x.tensor_split(5)) == 5  # more sections than elements: empty ones, as torch
