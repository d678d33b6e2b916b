"""torch's zip checkpoints read through the restricted unpickler (NOTE [ Restricted unpickling ] in
typedtensor/_runtime/torch_checkpoint.py): tensors and containers come back; nothing in the file runs."""

from __future__ import annotations

import io
import os
import pickle
import zipfile
from collections import OrderedDict
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import typedtensor as tt
from tests.interop import models

torch = pytest.importorskip("torch")


def _np(t: Any) -> np.ndarray:
    if isinstance(t, torch.Tensor):
        return t.float().numpy() if t.dtype == torch.bfloat16 else t.numpy()
    return t.float().numpy() if t.dtype == tt.bfloat16 else t.numpy()


def test_a_torch_state_dict_loads_with_its_layouts_and_dtypes(tmp_path: Path) -> None:
    base = torch.randn(6, 5)
    sd = OrderedDict([
        ("w", torch.randn(3, 4)),
        ("t", base.t()),                      # a transposed view: strides (1, 5)
        ("slice", base[2:, 1:4]),             # an offset into a shared storage
        ("h", torch.randn(4).half()), ("bf", torch.randn(2, 3).to(torch.bfloat16)),
        ("i", torch.arange(5)), ("b", torch.tensor([True, False])), ("u8", torch.arange(4, dtype=torch.uint8)),
        ("scalar", torch.tensor(2.5)), ("empty", torch.zeros(0, 3)),
    ])
    torch.save(sd, tmp_path / "m.pt")
    got = tt.load(tmp_path / "m.pt")
    assert list(got) == list(sd)
    for k, v in sd.items():
        assert tuple(got[k].shape) == tuple(v.shape), k
        np.testing.assert_array_equal(_np(got[k]), _np(v), err_msg=k)


@pytest.mark.parametrize("name", models.NAMES)
def test_example_models_load_weights_torch_saved_as_pt(name: str, tmp_path: Path) -> None:
    model, _ = models.build(name)
    torch.save({k: torch.from_numpy(v.numpy().copy()) for k, v in model.state_dict().items()}, tmp_path / "w.bin")
    fresh, _ = models.build(name)
    fresh.load_state_dict(tt.load(tmp_path / "w.bin"))
    for k, v in model.state_dict().items():
        np.testing.assert_array_equal(fresh.state_dict()[k].numpy(), v.numpy())


def test_a_training_checkpoint_with_optimizer_state(tmp_path: Path) -> None:
    net = torch.nn.Linear(3, 2)
    opt = torch.optim.Adam(net.parameters())
    net(torch.randn(4, 3)).sum().backward()
    opt.step()
    torch.save({"model": net.state_dict(), "optimizer": opt.state_dict(), "epoch": 4, "loss": 0.25,
                "param": torch.nn.Parameter(torch.ones(2)), "name": b"bytes"}, tmp_path / "ckpt.pt")
    got = tt.load(tmp_path / "ckpt.pt")
    assert got["epoch"] == 4 and got["loss"] == 0.25 and got["name"] == b"bytes"
    assert got["optimizer"]["param_groups"][0]["lr"] == 1e-3
    np.testing.assert_array_equal(got["optimizer"]["state"][0]["exp_avg"].numpy(), opt.state_dict()["state"][0]["exp_avg"].numpy())
    np.testing.assert_array_equal(got["param"].numpy(), np.ones(2, np.float32))


class _Marker:
    """Pickled as a call of ``os.system``: what a malicious checkpoint does."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __reduce__(self) -> Any:
        return (os.system, (f"touch {self.path}",))


def test_a_checkpoint_that_would_run_code_is_refused_and_runs_nothing(tmp_path: Path) -> None:
    sentinel = tmp_path / "pwned"
    torch.save({"w": torch.ones(2), "x": _Marker(sentinel)}, tmp_path / "evil.pt")
    with pytest.raises(ValueError, match=r"names posix\.system, which is not allowed.*safetensors"):
        tt.load(tmp_path / "evil.pt")
    assert not sentinel.exists()


def test_classes_of_the_saving_program_are_refused_with_a_hint(tmp_path: Path) -> None:
    torch.save({"device": torch.device("cpu")}, tmp_path / "dev.pt")
    with pytest.raises(ValueError, match=r"torch\.device.*safetensors"):
        tt.load(tmp_path / "dev.pt")


def test_the_pre_zip_format_is_refused_with_a_message(tmp_path: Path) -> None:
    torch.save({"w": torch.ones(2)}, tmp_path / "old.pt", _use_new_zipfile_serialization=False)
    with pytest.raises(ValueError, match=r"pre-1\.6 pickle format.*safetensors"):
        tt.load(tmp_path / "old.pt")


class _Storage:
    """A stand-in for a torch storage in a crafted pickle (persistent id below)."""

    def __init__(self, numel: int) -> None:
        self.numel = numel


class _Crafted:
    def __init__(self, storage: _Storage, offset: int, size: tuple[int, ...], stride: tuple[int, ...]) -> None:
        self.args = (storage, offset, size, stride)

    def __reduce__(self) -> Any:
        return (torch._utils._rebuild_tensor_v2, (*self.args, False, OrderedDict()))


def _crafted_zip(obj: Any, storage_bytes: bytes, numel: int) -> bytes:
    class P(pickle.Pickler):
        def persistent_id(self, o: Any) -> Any:
            return ("storage", torch.FloatStorage, "0", "cpu", o.numel) if isinstance(o, _Storage) else None

    pkl = io.BytesIO()
    P(pkl, protocol=2).dump(obj)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_STORED) as z:
        z.writestr("archive/data.pkl", pkl.getvalue())
        z.writestr("archive/byteorder", "little")
        z.writestr("archive/data/0", storage_bytes)
    return out.getvalue()


@pytest.mark.parametrize(("offset", "size", "stride", "message"), [
    (0, (5,), (1,), "reads past its storage"),
    (3, (2,), (1,), "reads past its storage"),
    (0, (2, 2), (3, 1), "reads past its storage"),
    (0, (2,), (-1,), "negative"),
    (-1, (2,), (1,), "non-negative"),
    (0, (2**62, 2**62), (1, 1), "reads past its storage"),
])
def test_tensors_reaching_outside_their_storage_are_refused(offset: int, size: tuple[int, ...], stride: tuple[int, ...],
                                                           message: str) -> None:
    s = _Storage(4)
    blob = _crafted_zip({"w": _Crafted(s, offset, size, stride)}, np.arange(4, dtype="<f4").tobytes(), 4)
    with pytest.raises(ValueError, match=message):
        tt.load(io.BytesIO(blob))


def test_a_storage_shorter_than_declared_is_refused() -> None:
    s = _Storage(4)
    blob = _crafted_zip({"w": _Crafted(s, 0, (4,), (1,))}, b"\0" * 12, 4)
    with pytest.raises(ValueError, match="holds 12 bytes"):
        tt.load(io.BytesIO(blob))
    ok = _crafted_zip({"w": _Crafted(s, 1, (3,), (1,))}, np.arange(4, dtype="<f4").tobytes(), 4)
    np.testing.assert_array_equal(tt.load(io.BytesIO(ok))["w"].numpy(), [1, 2, 3])


def test_a_zip_that_is_not_a_checkpoint_is_refused(tmp_path: Path) -> None:
    np.savez(tmp_path / "a.npz", x=np.ones(2))
    with pytest.raises(ValueError, match="not a torch checkpoint"):
        tt.load(tmp_path / "a.npz")
