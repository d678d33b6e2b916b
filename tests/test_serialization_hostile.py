"""``tt.load`` of crafted files: every malformed file raises ValueError, as the docs promise (found by
tests/fuzz_loaders.py), and a bool tensor holds only the bytes 0 and 1."""

from __future__ import annotations

import json
import struct
import zlib
from typing import Any

import numpy as np
import pytest

import typedtensor as tt
from typedtensor._runtime.serialization import dumps, loads

_PRE = struct.Struct("<8sIQI")


def _rewrite(blob: bytes, edit: Any, data_edit: Any = None) -> bytes:
    """The file with its JSON header (and data) edited, every checksum and length recomputed."""
    _, _, hlen, _ = _PRE.unpack_from(blob)
    header = json.loads(blob[_PRE.size:_PRE.size + hlen])
    start = _PRE.size + hlen + (-(_PRE.size + hlen) % 64)
    data = blob[start:]
    edit(header)
    if data_edit is not None:
        data = data_edit(data)
    header["data_crc32"] = zlib.crc32(data)
    h = json.dumps(header, separators=(",", ":")).encode()
    pre = _PRE.pack(b"\x89TTSAVE\n", 1, len(h), zlib.crc32(h))
    return pre + h + b"\0" * (-(len(pre) + len(h)) % 64) + data


def test_a_float_that_overflows_is_a_value_error() -> None:
    """``float.fromhex("0x1p99999")`` raises OverflowError: it escaped tt.load."""
    blob = dumps({"x": 1.5})

    def edit(h: dict[str, Any]) -> None:
        h["root"]["items"][0][1]["v"] = "0x1p99999"

    with pytest.raises(ValueError, match="float node"):
        loads(_rewrite(blob, edit))


@pytest.mark.parametrize("dtype", [[], {}, ["float32"], {"t": "str"}, 3, None])
def test_a_dtype_that_is_not_a_string_is_a_value_error(dtype: Any) -> None:
    """A list or dict as the dtype raised TypeError (unhashable) from the lookup."""
    blob = dumps(tt.ones(2))

    def edit(h: dict[str, Any]) -> None:
        h["tensors"][0]["dtype"] = dtype

    with pytest.raises(ValueError, match="unknown dtype"):
        loads(_rewrite(blob, edit))


def test_bool_bytes_other_than_0_and_1_are_refused() -> None:
    """A bool tensor holding the byte 2 gave sum() 258 over 4 elements on main."""
    blob = dumps(tt.tensor([True, False, True, True]))
    bad = _rewrite(blob, lambda h: None, lambda d: bytes([2, 0, 255, 1]) + d[4:])
    with pytest.raises(ValueError, match="byte other than 0 or 1"):
        loads(bad)
    good = loads(_rewrite(blob, lambda h: None, lambda d: bytes([1, 0, 0, 1]) + d[4:]))
    assert good.tolist() == [True, False, False, True] and good.sum().item() == 2
    np.testing.assert_array_equal(loads(blob).numpy(), [True, False, True, True])
