"""tt.save / tt.load of what torch programs save besides tensors: numpy arrays (every dtype a
safetensors file can hold, narrowed back exactly) and whole nn.Module objects, which load only
from classes the program allows (NOTE [ Saving modules ] in typedtensor/_runtime/checkpoint_objects.py)."""

from __future__ import annotations

import io
import json
from typing import Any

import numpy as np
import pytest

import typedtensor as tt
import typedtensor.nn.functional as F
from typedtensor.serialization import add_safe_globals, clear_safe_globals, safe_globals


def round_trip(obj: Any, **load_kw: Any) -> Any:
    buf = io.BytesIO()
    tt.save(obj, buf)
    buf.seek(0)
    return tt.load(buf, **load_kw)


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
                                   "float16", "float32", "float64", ">f8", ">i4"])
def test_numpy_arrays_round_trip_exactly(dtype: str) -> None:
    rng = np.random.default_rng(0)
    arr = (rng.standard_normal((3, 4)) * 1000).astype(dtype)
    if dtype == "uint64":
        arr[0, 0] = np.uint64(2**64 - 1)
    out = round_trip({"series": arr, "empty": np.zeros((0, 2), dtype)})
    assert isinstance(out["series"], np.ndarray)
    assert out["series"].dtype == np.dtype(dtype).newbyteorder("<") or out["series"].dtype == np.dtype(dtype)
    np.testing.assert_array_equal(out["series"], arr)
    assert out["empty"].shape == (0, 2)


def test_a_numpy_array_alone_and_numpy_scalars() -> None:
    # time_sequence_prediction: torch.save(data, open('traindata.pt', 'wb')) of one float64 array
    arr = np.sin(np.arange(40.0).reshape(4, 10) / 7)
    np.testing.assert_array_equal(round_trip(arr), arr)
    got = round_trip([np.float32(2.5), np.int64(7)])
    assert got == [2.5, 7] and isinstance(got[0], np.float32) and isinstance(got[1], np.int64)


def test_arrays_of_other_kinds_are_refused() -> None:
    for arr in (np.array([1 + 2j]), np.array(["a"]), np.array([object()])):
        with pytest.raises(TypeError, match="cannot be saved"):
            round_trip(arr)


def model() -> Any:
    m = tt.nn.Sequential(tt.nn.Linear(3, 4), tt.nn.ReLU(), tt.nn.Dropout(0.2), tt.nn.Linear(4, 2))
    m[3].weight.requires_grad_(False)
    m.activation = F.gelu
    m.eval()
    return m


def test_a_whole_builtin_module_round_trips() -> None:
    m = model()
    out = round_trip({"model": m, "epoch": 3})
    got = out["model"]
    assert type(got) is tt.nn.Sequential and repr(got) == repr(m)
    assert got.training is False and got.activation is F.gelu
    assert isinstance(got[0].weight, tt.nn.Parameter) and got[0].weight.requires_grad
    assert got[3].weight.requires_grad is False
    x = tt.randn(5, 3)
    np.testing.assert_array_equal(got(x).detach().numpy(), m(x).detach().numpy())
    assert list(got.state_dict()) == list(m.state_dict())


def test_the_file_names_weights_by_their_state_dict_names() -> None:
    from safetensors import safe_open

    buf = io.BytesIO()
    tt.save(model(), buf)
    import tempfile

    with tempfile.NamedTemporaryFile(suffix=".safetensors") as f:
        f.write(buf.getvalue())
        f.flush()
        with safe_open(f.name, "np") as st:
            assert set(st.keys()) == {"0.weight", "0.bias", "3.weight", "3.bias"}


class Custom(tt.nn.Module):
    def __init__(self, n: int) -> None:
        super().__init__()
        self.n = n
        self.proj = tt.nn.Linear(n, n)
        self.register_buffer("scale", tt.ones(n))
        self.names = {"a", "b"}
        self.dtype_seen = tt.float64

    def forward(self, x: Any) -> Any:
        return self.proj(x) * self.scale


def test_a_program_class_loads_only_when_allowed() -> None:
    m = Custom(3)
    buf = io.BytesIO()
    tt.save(m, buf)
    buf.seek(0)
    with pytest.raises(PermissionError, match="safe_globals"):
        tt.load(buf)
    buf.seek(0)
    with safe_globals([Custom]):
        got = tt.load(buf)
    assert type(got) is Custom and got.n == 3 and got.names == {"a", "b"} and got.dtype_seen == tt.float64
    assert "scale" in dict(got.named_buffers())
    buf.seek(0)
    with pytest.raises(PermissionError):  # the block ended: no longer allowed
        tt.load(buf)
    add_safe_globals([Custom])
    try:
        buf.seek(0)
        assert type(tt.load(buf)) is Custom
    finally:
        clear_safe_globals()
    buf.seek(0)
    assert type(tt.load(buf, weights_only=False)) is Custom  # an imported nn.Module class


def test_a_file_naming_a_non_module_class_is_refused() -> None:
    # a hostile file points the module node at a class that is not an nn.Module
    buf = io.BytesIO()
    tt.save(Custom(2), buf)
    raw = buf.getvalue()
    path = f"{Custom.__module__}.{Custom.__qualname__}".encode()
    hostile = raw.replace(path, b"builtins.dict" + b" " * (len(path) - len("builtins.dict")))
    with pytest.raises((PermissionError, ValueError)):
        tt.load(io.BytesIO(hostile), weights_only=False)


def test_nothing_is_imported_from_a_path_in_the_file() -> None:
    import sys

    buf = io.BytesIO()
    tt.save({"f": F.relu}, buf)
    raw = buf.getvalue()
    header_len = int.from_bytes(raw[:8], "little")
    header = json.loads(raw[8:8 + header_len])
    tree = json.loads(header["__metadata__"]["typedtensor.tree"])
    tree["items"][0][1]["path"] = "this_module_does_not_exist_anywhere.run"
    header["__metadata__"]["typedtensor.tree"] = json.dumps(tree)
    new_header = json.dumps(header).encode()
    new_header += b" " * (-len(new_header) % 8)
    hostile = len(new_header).to_bytes(8, "little") + new_header + raw[8 + header_len:]
    with pytest.raises(PermissionError):
        tt.load(io.BytesIO(hostile), weights_only=False)
    assert "this_module_does_not_exist_anywhere" not in sys.modules


def test_local_functions_cannot_be_saved() -> None:
    m = tt.nn.Linear(2, 2)
    m.hook = lambda x: x
    with pytest.raises(TypeError, match="import path"):
        round_trip(m)
