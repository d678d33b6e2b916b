"""Hostile files for ``tt.load``'s safetensors and torch-checkpoint readers: every malformed file is a
``ValueError`` naming the problem, never a crash, a hang or another exception.

The random part runs ``TT_FUZZ_ITERATIONS`` mutations per reader (default 150; CI can raise it)."""

from __future__ import annotations

import io
import json
import os
import random
import struct
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import typedtensor as tt

ITERATIONS = int(os.environ.get("TT_FUZZ_ITERATIONS", "150"))


def _file(header: Any, data: bytes = b"", raw_header: bytes | None = None, length: int | None = None) -> bytes:
    text = raw_header if raw_header is not None else json.dumps(header).encode()
    return struct.pack("<Q", len(text) if length is None else length) + text + data


F32x2 = {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}


@pytest.mark.parametrize(("blob", "message"), [
    (b"", "too short"),
    (b"\x05\0\0", "too short"),
    (_file({}, length=2**64 - 1), "exceeds the limit"),
    (_file({}, length=100_000_001), "exceeds the limit"),
    (_file({"a": F32x2}, b"\0" * 8, length=5000), "runs past the end"),
    (_file(None, raw_header=b"\xff\xfe{}"), "not valid UTF-8 JSON"),
    (_file(None, raw_header=b"[1, 2]"), "not a JSON object"),
    (_file(None, raw_header=b"{" * 100_000), "not valid UTF-8 JSON"),
    (_file(None, raw_header=b'{"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}, '
                            b'"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}}', data=b"\0" * 8), "appears twice"),
    (_file({"a": {**F32x2, "dtype": "F128"}}, b"\0" * 8), "unsupported dtype"),
    (_file({"a": {**F32x2, "dtype": 7}}, b"\0" * 8), "unsupported dtype"),
    (_file({"a": {**F32x2, "shape": [-2]}}, b"\0" * 8), "invalid shape"),
    (_file({"a": {**F32x2, "shape": [2.0]}}, b"\0" * 8), "invalid shape"),
    (_file({"a": {**F32x2, "shape": [True, 2]}}, b"\0" * 8), "invalid shape"),
    (_file({"a": {**F32x2, "shape": [1] * 65}}, b"\0" * 8), "invalid shape"),
    (_file({"a": {**F32x2, "shape": [2**62, 2**62]}}, b"\0" * 8), "needs"),
    (_file({"a": {**F32x2, "data_offsets": [0]}}, b"\0" * 8), "invalid data_offsets"),
    (_file({"a": {**F32x2, "data_offsets": [4, 0]}}, b"\0" * 8), "outside"),
    (_file({"a": {**F32x2, "data_offsets": [0, 2**70]}}, b"\0" * 8), "outside"),
    (_file({"a": {**F32x2, "data_offsets": [-8, 0]}}, b"\0" * 8), "outside"),
    (_file({"a": {**F32x2, "data_offsets": [0, 12]}}, b"\0" * 12), "needs 8 bytes"),
    (_file({"a": F32x2, "b": F32x2}, b"\0" * 16), "overlaps"),
    (_file({"a": F32x2, "b": {**F32x2, "data_offsets": [12, 20]}}, b"\0" * 20), "gap"),
    (_file({"a": F32x2}, b"\0" * 12), "cover 8 bytes of a 12-byte"),
    (_file({"a": F32x2}, b"\0" * 4), "outside"),
    (_file({"a": [1, 2]}, b""), "not an object"),
    (_file({"__metadata__": {"k": 1}}), "strings to strings"),
    (_file({"__metadata__": []}), "strings to strings"),
    (_file({"a": {"dtype": "U64", "shape": [1], "data_offsets": [0, 8]}}, b"\xff" * 8), "int64 range"),
    (_file({"__metadata__": {"typedtensor.tree": "{"}}), "malformed typedtensor.tree"),
    (_file({"__metadata__": {"typedtensor.tree": '{"t": "tensor", "k": "nope"}'}}), "does not hold"),
    (_file({"__metadata__": {"typedtensor.tree": '{"t": "float", "v": "0x1p99999"}'}}), "float node"),
    (_file({"__metadata__": {"typedtensor.tree": '{"t": "dict", "items": [[{"t": "list", "items": []}, {"t": "none"}]]}'}}),
     "cannot be a key"),
    (_file({"__metadata__": {"typedtensor.tree": '{"t": "list", "items": [' * 300 + "]}" * 300}}), "deeper"),
    (_file({"__metadata__": {"typedtensor.tree": '{"t": "exec"}'}}), "unknown node"),
])
def test_each_kind_of_malformed_safetensors_file_is_a_clear_error(blob: bytes, message: str, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=message):
        tt.load(io.BytesIO(blob))
    path = tmp_path / "bad.safetensors"
    path.write_bytes(blob)
    with pytest.raises(ValueError, match=message):
        tt.load(path)  # the memory-mapped path too


def _sample_safetensors() -> bytes:
    buf = io.BytesIO()
    tt.save({"w": tt.randn(3, 4), "b": tt.arange(5), "h": tt.ones(2).half(), "bf": tt.ones(3).to(tt.bfloat16),
             "m": tt.tensor([True, False])}, buf, metadata={"k": "v"})
    return buf.getvalue()


def _sample_nested() -> bytes:
    buf = io.BytesIO()
    tt.save({"model": {"w": tt.ones(2)}, "epoch": 3, "lr": 0.5, "xs": [tt.zeros(1), (None, "a")]}, buf)
    return buf.getvalue()


def _mutate_header(blob: bytes, rng: random.Random) -> bytes:
    """Rewrites one field of the JSON header with a hostile value (the data section is kept)."""
    n = struct.unpack("<Q", blob[:8])[0]
    header = json.loads(blob[8 : 8 + n])
    names = [k for k in header if k != "__metadata__"]
    evil: list[Any] = [-1, 0, 1, 2**31, 2**63, 2**64 + 3, 1.5, None, "F32", "I8", [], [0], [1, 0], [0, 2**63], {}, True]
    name = rng.choice(names)
    field = rng.choice(["dtype", "shape", "data_offsets", "extra"])
    if field == "data_offsets" and rng.random() < 0.5:
        header[name][field] = [rng.randrange(-4, 80), rng.randrange(-4, 80)]
    elif field == "shape" and rng.random() < 0.5:
        header[name][field] = [rng.randrange(-1, 6) for _ in range(rng.randrange(0, 4))]
    else:
        header[name][field] = rng.choice(evil)
    if rng.random() < 0.2:
        header.setdefault("__metadata__", {})["typedtensor.tree"] = rng.choice(
            ['{"t": "tensor", "k": "w"}', '{"t": "dict"}', "[]", '{"t": "int", "v": 1e400}', "null"])
    text = json.dumps(header).encode()
    return struct.pack("<Q", len(text)) + text + blob[8 + n :]


def _mutate_bytes(blob: bytes, rng: random.Random) -> bytes:
    b = bytearray(blob)
    kind = rng.randrange(4)
    if kind == 0:  # cut anywhere
        return bytes(b[: rng.randrange(len(b))])
    if kind == 1:  # flip bytes, mostly in the header
        for _ in range(rng.randrange(1, 4)):
            pos = rng.randrange(min(len(b), 200) if rng.random() < 0.8 else len(b))
            b[pos] ^= rng.randrange(1, 256)
        return bytes(b)
    if kind == 2:  # a new header length
        b[:8] = struct.pack("<Q", rng.choice([0, 1, 7, len(b), len(b) - 8, 2**32, 2**63, rng.randrange(len(b) + 16)]))
        return bytes(b)
    return bytes(b) + bytes(rng.randrange(256) for _ in range(rng.randrange(1, 16)))  # trailing garbage


def _check(blob: bytes, path: Path) -> str:
    """Loads ``blob`` from a stream and from a file: the outcome must agree and be a value or ValueError."""
    outcomes = []
    for source in (io.BytesIO(blob), path):
        if isinstance(source, Path):
            source.write_bytes(blob)
        try:
            obj = tt.load(source)
        except ValueError as exc:
            outcomes.append("error: " + str(exc).split(":", 2)[-1][:40])
        else:
            outcomes.append("ok")
            _touch(obj)
    assert outcomes[0].split(":")[0] == outcomes[1].split(":")[0], outcomes
    return outcomes[0]


def _touch(obj: Any) -> None:
    """Reads every tensor's every byte (a wrong view would fault or mismatch here)."""
    if isinstance(obj, tt.Tensor):
        arr = obj.float().numpy() if obj.dtype == tt.bfloat16 else obj.numpy()
        assert arr.size == obj.numel()
        np.ascontiguousarray(arr).tobytes()
    elif isinstance(obj, dict):
        for v in obj.values():
            _touch(v)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            _touch(v)


@pytest.mark.parametrize("seed", range(2))
def test_random_mutations_of_safetensors_files(seed: int, tmp_path: Path) -> None:
    rng = random.Random(seed)
    samples = [_sample_safetensors(), _sample_nested()]
    seen: set[str] = set()
    for i in range(ITERATIONS):
        blob = samples[i % 2]
        blob = _mutate_header(blob, rng) if rng.random() < 0.5 else _mutate_bytes(blob, rng)
        seen.add(_check(blob, tmp_path / "f.safetensors").split(" ")[0])
    assert "error:" in seen  # the mutations do reach the checks


def test_random_mutations_of_torch_checkpoints(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    buf = io.BytesIO()
    torch.save({"w": torch.randn(3, 4), "t": torch.randn(4, 3).t(), "e": 3, "opt": {"lr": 0.1}}, buf)
    blob = buf.getvalue()
    rng = random.Random(7)
    outcomes = set()
    for _ in range(ITERATIONS):
        b = bytearray(blob)
        if rng.random() < 0.3:
            b = b[: rng.randrange(len(b))]
        else:
            for _ in range(rng.randrange(1, 6)):
                b[rng.randrange(len(b))] ^= rng.randrange(1, 256)
        outcomes.add(_check(bytes(b), tmp_path / "f.pt").split(" ")[0])
    assert "error:" in outcomes
