"""``tt.save`` / ``tt.load`` and safetensors: files the ``safetensors`` package (numpy and torch) reads
and writes, bit for bit, for every dtype, every example model's state dict and nested checkpoints."""

from __future__ import annotations

import json
import math
import struct
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import typedtensor as tt
from tests.interop import models
from typedtensor._runtime import checkpoint

safetensors_numpy = pytest.importorskip("safetensors.numpy")
safetensors_torch = pytest.importorskip("safetensors.torch")
torch = pytest.importorskip("torch")

DTYPES = ["bool", "uint8", "int32", "int64", "float16", "bfloat16", "float32", "float64"]
SHAPES = [(), (0,), (3,), (2, 3, 4), (1, 0, 2)]


def bits(t: Any) -> np.ndarray:
    """A tensor's raw bytes (typedtensor or torch), for bit-exact comparison (NaN payloads too)."""
    if isinstance(t, torch.Tensor):
        t = t.contiguous().reshape(-1)
        return t.view(torch.int16).numpy().view(np.uint8) if t.dtype == torch.bfloat16 else t.numpy().view(np.uint8)
    t = t.reshape(-1)
    if t.dtype == tt.bfloat16:
        return (t.float().numpy().view(np.uint32) >> 16).astype("<u2").view(np.uint8)
    return np.ascontiguousarray(t.numpy()).view(np.uint8)


def same(a: Any, b: Any) -> None:
    assert tuple(a.shape) == tuple(b.shape)
    assert str(a.dtype).rpartition(".")[2] == str(b.dtype).rpartition(".")[2]
    np.testing.assert_array_equal(bits(a), bits(b))


def sample(dtype: str, shape: tuple[int, ...]) -> Any:
    t = tt.randn(*shape) * 100
    if shape and math.prod(shape) > 2 and dtype.startswith("float"):
        flat = t.reshape(-1)
        flat[0], flat[1] = float("inf"), float("nan")
    return t.to(getattr(tt, dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_every_dtype_round_trips_through_torchs_and_numpys_readers(dtype: str, shape: tuple[int, ...], tmp_path: Path) -> None:
    t = sample(dtype, shape)
    path = tmp_path / "t.safetensors"
    tt.save({"t": t}, path)
    same(tt.load(path)["t"], t)
    same(tt.load(path, mmap=False)["t"], t)
    theirs = safetensors_torch.load_file(str(path))["t"]
    same(theirs, t)
    if dtype != "bfloat16":  # numpy has no bfloat16
        np.testing.assert_array_equal(safetensors_numpy.load_file(str(path))["t"].reshape(-1).view(np.uint8), bits(t))
    back = tmp_path / "back.safetensors"
    safetensors_torch.save_file({"t": theirs}, str(back))
    same(tt.load(back)["t"], t)


@pytest.mark.parametrize("name", models.NAMES)
def test_example_state_dicts_go_to_torch_and_back_bit_exact(name: str, tmp_path: Path) -> None:
    """typedtensor -> safetensors -> torch -> safetensors (written by torch) -> typedtensor."""
    model, inputs = models.build(name)
    mine = model.state_dict()
    tt.save(mine, tmp_path / "ours.safetensors")
    theirs = safetensors_torch.load_file(str(tmp_path / "ours.safetensors"))
    assert list(theirs) == list(mine) or set(theirs) == set(mine)
    for k in mine:
        same(theirs[k], mine[k])
    safetensors_torch.save_file(theirs, str(tmp_path / "torch.safetensors"))
    fresh, _ = models.build(name)
    tt.manual_seed(1234)
    result = fresh.load_state_dict(tt.load(tmp_path / "torch.safetensors"))
    assert not result.missing_keys and not result.unexpected_keys
    for k, v in fresh.state_dict().items():
        same(v, mine[k])
    model.eval()
    fresh.eval()
    x = inputs(2)
    with tt.no_grad():
        np.testing.assert_array_equal(model(*x).numpy(), fresh(*x).numpy())


def test_a_torch_models_safetensors_weights_load_into_the_same_typedtensor_model(tmp_path: Path) -> None:
    """Names already match torch's: weights torch saved load with ``load_state_dict`` and compute the same."""
    ref = torch.nn.Sequential(torch.nn.Conv2d(1, 4, 3, padding=1), torch.nn.BatchNorm2d(4), torch.nn.ReLU(),
                              torch.nn.Flatten(), torch.nn.Linear(4 * 8 * 8, 10))
    ref[1].running_mean.uniform_(-1, 1)
    ref[1].running_var.uniform_(0.5, 2)
    ref.eval()
    safetensors_torch.save_file(ref.state_dict(), str(tmp_path / "m.safetensors"))
    nn = tt.nn
    ours = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.Flatten(), nn.Linear(4 * 8 * 8, 10))
    ours.load_state_dict(tt.load(tmp_path / "m.safetensors"))
    ours.eval()
    x = np.random.default_rng(0).standard_normal((3, 1, 8, 8)).astype(np.float32)
    with tt.no_grad(), torch.no_grad():
        np.testing.assert_allclose(ours(tt.tensor(x)).numpy(), ref(torch.tensor(x)).numpy(), rtol=1e-5, atol=1e-5)


def test_bfloat16_weights_load_into_a_float32_model(tmp_path: Path) -> None:
    safetensors_torch.save_file({"weight": torch.randn(3, 4).to(torch.bfloat16), "bias": torch.zeros(3).half()},
                                str(tmp_path / "m.safetensors"))
    lin = tt.nn.Linear(4, 3)
    lin.load_state_dict(tt.load(tmp_path / "m.safetensors"))
    want = safetensors_torch.load_file(str(tmp_path / "m.safetensors"))["weight"].float().numpy()
    np.testing.assert_array_equal(lin.weight.detach().numpy(), want)


@pytest.mark.parametrize(("torch_dtype", "ours"), [
    ("int8", "int32"), ("int16", "int32"), ("uint16", "int32"), ("uint32", "int64"), ("uint64", "int64"),
    ("float8_e4m3fn", "float32"), ("float8_e5m2", "float32"),
])
def test_dtypes_the_backend_lacks_are_widened_exactly(torch_dtype: str, ours: str, tmp_path: Path) -> None:
    dt = getattr(torch, torch_dtype)
    if torch_dtype.startswith("float8"):
        src = torch.arange(256, dtype=torch.uint8).view(dt)  # every bit pattern
        want = src.float().numpy()
    else:
        info = torch.iinfo(dt)
        vals = [info.min, -1 if info.min < 0 else 0, 0, 1, 7, min(info.max, 2**63 - 1)]
        src = torch.tensor(vals, dtype=torch.int64).to(dt)
        want = np.array(vals, dtype=np.int64)
    safetensors_torch.save_file({"x": src}, str(tmp_path / "w.safetensors"))
    got = tt.load(tmp_path / "w.safetensors")["x"]
    assert got.dtype == getattr(tt, ours)
    np.testing.assert_array_equal(got.numpy(), want)


def test_metadata_is_written_to_and_read_from_the_header(tmp_path: Path) -> None:
    path = tmp_path / "m.safetensors"
    tt.save({"w": tt.ones(2)}, path, metadata={"epoch": "3", "note": "é"})
    from safetensors import safe_open

    with safe_open(str(path), framework="np") as f:
        assert f.metadata() == {"format": "pt", "epoch": "3", "note": "é"}
    assert checkpoint.metadata(path) == {"format": "pt", "epoch": "3", "note": "é"}
    with pytest.raises(TypeError, match="metadata"):
        tt.save({"w": tt.ones(2)}, tmp_path / "x.safetensors", metadata={"epoch": 3})  # type: ignore[dict-item]


def test_nested_checkpoints_keep_their_structure_and_stay_standard_files(tmp_path: Path) -> None:
    model = tt.nn.Sequential(tt.nn.Linear(3, 4), tt.nn.ReLU(), tt.nn.Linear(4, 2))
    opt = tt.optim.Adam(model.parameters(), lr=1e-3)
    model(tt.randn(5, 3)).sum().backward()
    opt.step()
    shared = tt.arange(3)
    ckpt = {"model": model.state_dict(), "optimizer": opt.state_dict(), "epoch": 7, "best": 0.1 + 0.2,
            "tags": ("a", None, True), "same": [shared, shared], 5: "int key"}
    path = tmp_path / "ckpt.safetensors"
    tt.save(ckpt, path)
    back = tt.load(path)
    assert back["epoch"] == 7 and back["best"] == 0.1 + 0.2 and back["tags"] == ("a", None, True) and back[5] == "int key"
    assert back["same"][0] is back["same"][1]
    for k, v in ckpt["model"].items():
        same(back["model"][k], v)
    fresh = tt.optim.Adam(model.parameters(), lr=1e-3)
    fresh.load_state_dict(back["optimizer"])
    assert fresh.state_dict()["param_groups"] == opt.state_dict()["param_groups"]
    # any safetensors reader sees the tensors under their dotted paths
    names = set(safetensors_numpy.load_file(str(path)))
    assert {"model.0.weight", "model.2.bias", "optimizer.state.0.exp_avg", "same.0"} <= names
    assert "same.1" not in names  # one tensor, stored once


def test_a_single_tensor_and_lists_round_trip(tmp_path: Path) -> None:
    tt.save(tt.ones(2, 2), tmp_path / "t.safetensors")
    same(tt.load(tmp_path / "t.safetensors"), tt.ones(2, 2))
    tt.save([tt.zeros(1), {"x": tt.ones(1)}], tmp_path / "l.safetensors")
    back = tt.load(tmp_path / "l.safetensors")
    assert isinstance(back, list) and tuple(back[1]["x"].shape) == (1,)


def test_unsupported_objects_are_refused_on_save(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="object"):
        tt.save({"f": object()}, tmp_path / "x.safetensors")
    tt.save({1, 2}, tmp_path / "x.safetensors")  # sets are plain values (a module's attributes hold them)
    assert tt.load(tmp_path / "x.safetensors") == {1, 2}


def test_loading_maps_the_file_without_copying(tmp_path: Path) -> None:
    """Every tensor lives in one mapping of the file: their addresses differ by their file offsets."""
    sd = {"a": tt.randn(1000), "b": tt.arange(10), "c": tt.randn(7, 3).half(), "d": tt.randn(4).to(tt.bfloat16)}
    path = tmp_path / "m.safetensors"
    tt.save(sd, path)
    header_len = struct.unpack("<Q", path.read_bytes()[:8])[0]
    header = json.loads(path.read_bytes()[8 : 8 + header_len])
    loaded = tt.load(path)
    base = loaded["a"].data_ptr() - header["a"]["data_offsets"][0]
    for k in sd:
        assert loaded[k].data_ptr() - base == header[k]["data_offsets"][0], k
    assert (base - 8 - header_len) % 8 == 0  # header padded to 8 bytes: the data section is aligned
    loaded["a"].mul_(2)  # copy-on-write: the tensors are writable, the file is untouched
    same(tt.load(path)["a"], sd["a"])


def test_saving_over_the_file_the_tensors_are_mapped_from(tmp_path: Path) -> None:
    """tt.load maps the file; tt.save to the same name must not truncate the pages those tensors read
    (a bus error): it writes a new file and renames it into place, keeping the old permissions."""
    path = tmp_path / "ckpt.safetensors"
    tt.save({"w": tt.arange(300_000).float(), "b": tt.ones(3)}, path)
    path.chmod(0o640)
    sd = tt.load(path)
    tt.save(sd, path)  # reads sd["w"] from the mapping of the file it replaces
    same(tt.load(path)["w"], tt.arange(300_000).float())
    same(sd["w"], tt.arange(300_000).float())
    assert path.stat().st_mode & 0o777 == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["ckpt.safetensors"]  # no temporary file left


def test_misaligned_tensors_are_copied_then_read_right(tmp_path: Path) -> None:
    """A writer that does not sort by element size can leave a float32 at an odd offset."""
    a = np.arange(3, dtype=np.uint8)
    b = np.arange(5, dtype="<f4") / 3
    header = {"a": {"dtype": "U8", "shape": [3], "data_offsets": [0, 3]},
              "b": {"dtype": "F32", "shape": [5], "data_offsets": [3, 23]}}
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    (tmp_path / "odd.safetensors").write_bytes(struct.pack("<Q", len(text)) + text + a.tobytes() + b.tobytes())
    got = tt.load(tmp_path / "odd.safetensors")
    np.testing.assert_array_equal(got["b"].numpy(), b)
    np.testing.assert_array_equal(got["a"].numpy(), a)
    assert safetensors_numpy.load_file(str(tmp_path / "odd.safetensors"))["b"].tolist() == b.tolist()


def test_map_location_and_streams(tmp_path: Path) -> None:
    import io

    buf = io.BytesIO()
    tt.save({"w": tt.ones(3)}, buf)
    buf.seek(0)
    assert tt.load(buf, map_location="cpu")["w"].device.type == "cpu"
    assert safetensors_torch.load(buf.getvalue())["w"].tolist() == [1.0, 1.0, 1.0]


def test_old_typedtensor_files_still_load(tmp_path: Path) -> None:
    """The migration path: a file of the older format loads, and re-saving it writes safetensors."""
    from typedtensor._runtime.serialization import dumps

    old = tmp_path / "old.tt"
    old.write_bytes(dumps({"w": tt.ones(2), "epoch": 3}))
    back = tt.load(old)
    assert back["epoch"] == 3
    tt.save(back, tmp_path / "new.safetensors")
    assert set(safetensors_numpy.load_file(str(tmp_path / "new.safetensors"))) == {"w"}
