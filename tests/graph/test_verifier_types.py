"""The graph verifier checks each node with its primitive's output_types (the op's one shape
computation in C++, which eager evaluation also sizes its outputs with): a loaded file whose node
types disagree with it is refused, and a crafted geometry never reaches a kernel."""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Any

import pytest

import typedtensor as tt
import typedtensor.jit as jit
from tests.graph.helpers import randn
from tests.graph.test_jit import seal, unseal
from typedtensor._runtime import functional as F


def _edit(data: bytes, old: bytes, new: bytes) -> bytes:
    """Replaces the first `old` in the header and fixes its length field and CRC-32 trailer (a crafted
    file carries a valid checksum: the verifier must refuse it on its own)."""
    data = unseal(data)
    hlen = struct.unpack("<Q", data[12:20])[0]
    header = data[20 : 20 + hlen]
    assert old in header, old
    header = header.replace(old, new, 1)
    return seal(data[:12] + struct.pack("<Q", len(header)) + header + data[20 + hlen :])


def _saved(tmp_path: Path, fn: Any, *xs: Any) -> bytes:
    cf = tt.compile(fn)
    cf(*xs)
    path = tmp_path / "g.ttg"
    jit.save(cf, path)
    return path.read_bytes()


def _load(tmp_path: Path, data: bytes) -> Any:
    path = tmp_path / "bad.ttg"
    path.write_bytes(data)
    return jit.load(path, passes=[])


def test_layer_norm_over_an_empty_last_dim_is_refused_not_divided_by(tmp_path: Path) -> None:
    """A file giving layer_norm an input whose last dim is 0: the verifier took `cols % 0` here."""
    data = _saved(tmp_path, lambda x: F.layer_norm(x, (4,)), randn(2, 4))
    both = _edit(_edit(data, b"input float32 2 2 4", b"input float32 2 2 0"), b"node float32 2 2 4", b"node float32 2 2 0")
    with pytest.raises(jit.GraphError, match="layer_norm"):
        _load(tmp_path, both)


@pytest.mark.parametrize(
    "fn, shapes, old, new, message",
    [
        # an output shape that is not what the op computes from its inputs
        (lambda x: x.sum(1), [(2, 3)], b"node float32 1 2", b"node float32 1 3", "shape"),
        (lambda x, i: x.index_select(0, i), None, b"node float32 2 2 3", b"node float32 2 5 3", "shape"),
        (lambda a, b: a @ b, [(2, 3), (3, 4)], b"float32 2 3 4", b"float32 2 5 4", "matmul"),
        # an output dtype that is not what the op computes
        (lambda x: x > 0, [(3,)], b"node bool 1 3", b"node float32 1 3", "dtype"),
    ],
)
def test_node_types_that_disagree_with_output_types_are_refused(
    tmp_path: Path, fn: Any, shapes: Any, old: bytes, new: bytes, message: str
) -> None:
    xs = [randn(*s) for s in shapes] if shapes else [randn(6, 3), tt.tensor([0, 2])]
    data = _saved(tmp_path, fn, *xs)
    _load(tmp_path, data)  # the file as saved loads
    with pytest.raises(jit.GraphError, match=message):
        _load(tmp_path, _edit(data, old, new))
