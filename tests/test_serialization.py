"""The older typedtensor file format (``\\x89TTSAVE``), which ``tt.load`` still reads: round trips of
every dtype and container, and refusal of any truncated or corrupted file (hypothesis flips and cuts
bytes anywhere). ``tt.save`` now writes safetensors (tests/test_safetensors.py)."""

from __future__ import annotations

import io
import json
import math
import struct
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import typedtensor as tt
from typedtensor._runtime.serialization import MAGIC, dumps, loads

DTYPES = ["bool", "uint8", "int32", "int64", "float16", "bfloat16", "float32", "float64"]


def _tensor(dtype: str, shape: tuple[int, ...]) -> Any:
    return (tt.randn(*shape) * 10).to(getattr(tt, dtype))


def _eq(a: Any, b: Any) -> None:
    if isinstance(a, tt.Tensor):
        assert isinstance(b, tt.Tensor) and a.dtype == b.dtype and tuple(a.shape) == tuple(b.shape)
        x, y = a.float().numpy() if a.dtype == tt.bfloat16 else a.numpy(), b.float().numpy() if b.dtype == tt.bfloat16 else b.numpy()
        np.testing.assert_array_equal(x, y)
    elif isinstance(a, dict):
        assert list(a) == list(b)
        for k in a:
            _eq(a[k], b[k])
    elif isinstance(a, (list, tuple)):
        assert type(a) is type(b) and len(a) == len(b)
        for x, y in zip(a, b, strict=True):
            _eq(x, y)
    elif isinstance(a, float) and math.isnan(a):
        assert math.isnan(b)
    else:
        assert type(a) is type(b) and a == b


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(), (0,), (3,), (2, 3, 4), (1, 0, 2)])
def test_tensor_roundtrip(dtype: str, shape: tuple[int, ...]) -> None:
    t = _tensor(dtype, shape)
    _eq(t, loads(dumps(t)))


def test_views_are_saved_as_their_values() -> None:
    base = tt.arange(12).reshape(3, 4).float()
    view = base.t()[1:]
    _eq(view.contiguous(), loads(dumps(view)))


def test_nested_state_roundtrip_via_path(tmp_path: Path) -> None:
    model = tt.nn.Sequential(tt.nn.Linear(3, 4), tt.nn.BatchNorm1d(4))
    opt = tt.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    for p in model.parameters():
        p.grad = tt.ones_like(p)
    opt.step()
    obj = {
        "model": model.state_dict(), "opt": opt.state_dict(), "epoch": 3,
        "misc": [1.5, float("inf"), float("nan"), None, True, "txt", (1, (2, "x"))], 7: "int key", (1, 2): "tuple key",
    }
    path = tmp_path / "ckpt.tt"
    tt.save(obj, path)
    back = tt.load(path)
    _eq(obj, back)
    fresh = tt.nn.Sequential(tt.nn.Linear(3, 4), tt.nn.BatchNorm1d(4))
    fresh.load_state_dict(back["model"])
    tt.save(model.state_dict(), str(path))
    _eq(model.state_dict(), tt.load(str(path), map_location="cpu"))


def test_header_is_json_and_data_is_aligned() -> None:
    blob = dumps({"w": tt.ones(3)})
    assert blob[:8] == MAGIC
    _, version, hlen, _ = struct.unpack_from("<8sIQI", blob)
    header = json.loads(blob[24 : 24 + hlen])
    assert version == 1 and header["format"] == "typedtensor"
    assert header["tensors"] == [{"dtype": "float32", "shape": [3], "offset": 0, "nbytes": 12}]
    assert (len(blob) - header["data_size"]) % 64 == 0
    assert b"pickle" not in blob and b"\x80\x04" not in blob[:24]


def test_unsupported_objects_are_refused_on_save() -> None:
    with pytest.raises(TypeError, match=r"object at obj\['f'\]"):
        dumps({"f": object()})
    with pytest.raises(TypeError, match="set"):
        dumps({1, 2})


def test_not_a_file_and_versions() -> None:
    with pytest.raises(ValueError, match="not a typedtensor file"):
        loads(b"PK\x03\x04" + b"\0" * 40)
    with pytest.raises(ValueError, match="truncated"):
        loads(b"")
    blob = bytearray(dumps(tt.ones(2)))
    blob[8:12] = struct.pack("<I", 99)
    with pytest.raises(ValueError, match="version 99"):
        loads(bytes(blob))


def _crafted(header: dict[str, Any], data: bytes = b"") -> bytes:
    """A file with a valid envelope (checksums right) around an arbitrary header."""
    import zlib

    header.setdefault("format", "typedtensor")
    header.setdefault("data_size", len(data))
    header.setdefault("data_crc32", zlib.crc32(data))
    h = json.dumps(header).encode()
    pre = struct.pack("<8sIQI", MAGIC, 1, len(h), zlib.crc32(h))
    return pre + h + b"\0" * (-(len(pre) + len(h)) % 64) + data


@pytest.mark.parametrize(
    ("header", "message"),
    [
        ({"root": {"t": "tensor", "i": 0}, "tensors": []}, "out of range"),
        ({"root": {"t": "tensor", "i": 0}, "tensors": [{"dtype": "complex", "shape": [1], "offset": 0, "nbytes": 8}]}, "unknown dtype"),
        ({"root": {"t": "tensor", "i": 0}, "tensors": [{"dtype": "float32", "shape": [-1], "offset": 0, "nbytes": 4}]}, "invalid shape"),
        ({"root": {"t": "tensor", "i": 0}, "tensors": [{"dtype": "float32", "shape": [2], "offset": 0, "nbytes": 4}]}, "cannot have"),
        ({"root": {"t": "tensor", "i": 0}, "tensors": [{"dtype": "float32", "shape": [64], "offset": 0, "nbytes": 256}]}, "outside the data"),
        ({"root": {"t": "exec", "v": "print(1)"}, "tensors": []}, "unknown node type"),
        ({"root": {"t": "int", "v": "1"}, "tensors": []}, "int node"),
        ({"root": {"t": "dict", "items": [[{"t": "list", "items": []}, {"t": "none"}]]}, "tensors": []}, "not hashable"),
        ({"root": 5, "tensors": []}, "not a typed object"),
        ({"tensors": []}, "lacks format/root"),
    ],
)
def test_schema_violations_are_refused(header: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        loads(_crafted(header, b"\0" * 64))


def test_deep_nesting_is_refused_cleanly() -> None:
    node: dict[str, Any] = {"t": "none"}
    for _ in range(400):
        node = {"t": "list", "items": [node]}
    with pytest.raises(ValueError, match=r"deeper than|too deep"):
        loads(_crafted({"root": node, "tensors": []}))


SAMPLE = dumps({"w": tt.randn(3, 5), "b": tt.arange(4), "meta": {"lr": 0.1, "name": "x"}, "h": tt.ones(2).half()})


@settings(max_examples=150, deadline=None)
@given(st.integers(0, len(SAMPLE) - 1))
def test_any_truncation_is_refused(cut: int) -> None:
    with pytest.raises(ValueError, match=r"truncated|not a typedtensor file|corrupted|malformed"):
        loads(SAMPLE[:cut])


@settings(max_examples=300, deadline=None)
@given(st.integers(0, len(SAMPLE) - 1), st.integers(1, 255))
def test_any_single_byte_corruption_is_refused(pos: int, xor: int) -> None:
    blob = bytearray(SAMPLE)
    blob[pos] ^= xor
    with pytest.raises(ValueError):
        loads(bytes(blob))


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=300))
def test_random_bytes_never_crash(junk: bytes) -> None:
    with pytest.raises(ValueError):
        loads(junk)
    with pytest.raises(ValueError):
        loads(SAMPLE[:24] + junk)


def test_file_objects_and_trailing_bytes() -> None:
    buf = io.BytesIO()
    tt.save([tt.ones(1)], buf)
    buf.seek(0)
    _eq([tt.ones(1)], tt.load(buf))
    with pytest.raises(ValueError, match="trailing bytes"):
        loads(dumps([tt.ones(1)]) + b"\0")


@pytest.mark.parametrize("writer", ["safetensors", "typedtensor", "torch"])
def test_map_location_dicts_and_callables_as_torch(tmp_path: Path, writer: str) -> None:
    """DDP programs load a rank 0 checkpoint with ``map_location={"cuda:0": f"cuda:{rank}"}``: a
    location the dict does not name stays where it is; a callable gets (tensor, location)."""
    path = tmp_path / "ckpt.pt"
    if writer == "torch":
        torch = pytest.importorskip("torch")
        torch.save({"w": torch.ones(3)}, str(path))
    else:
        obj: dict[str, Any] = {"w": tt.ones(3)}
        tt.save(obj if writer == "safetensors" else {"model": obj, "epoch": 3}, str(path))

    def weights(loaded: Any) -> Any:
        return loaded["w"] if "w" in loaded else loaded["model"]["w"]

    for where in ({"cuda:0": "cuda:1"}, {"cpu": "cpu"}, {"cpu": tt.device("cpu")}):
        w = weights(tt.load(str(path), map_location=where))
        assert w.device.type == "cpu" and w.tolist() == [1.0, 1.0, 1.0]
    seen: list[str] = []

    def doubled(t: Any, location: str) -> Any:
        seen.append(location)
        return t * 2

    assert weights(tt.load(str(path), map_location=doubled)).tolist() == [2.0, 2.0, 2.0]
    assert seen == ["cpu"]
    assert weights(tt.load(str(path), map_location=lambda t, location: None)).tolist() == [1.0, 1.0, 1.0]
