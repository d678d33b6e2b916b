"""tt.jit save/load round trips, malformed files, and typedtensor-run without Python."""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
import sysconfig
import zlib
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import typedtensor as tt
import typedtensor._runtime as rt
import typedtensor.jit as jit
from tests.graph.helpers import close, randn


def _model(x: Any, w: Any, b: Any) -> Any:
    h = (x @ w + b).tanh()
    return h.softmax(-1), (h * 0.5 + 1.0).relu().sum(0)


def _saved(tmp_path: Path) -> tuple[Path, list[Any]]:
    x, w, b = randn(6, 4), randn(4, 5), randn(5)
    cf = tt.compile(_model)
    cf(x, w, b)
    path = tmp_path / "model.ttg"
    jit.save(cf, path)
    return path, [x, w, b]


def test_save_load_run_round_trip(tmp_path: Path) -> None:
    path, (x, w, b) = _saved(tmp_path)
    g = jit.load(path)
    assert g.passes_run == list(tt.graph.PASSES)  # the saved pipeline was re-applied
    want = _model(x, w, b)
    for got, ref in zip(g(x, w, b), want, strict=True):
        close(got, ref, rtol=1e-5)
    # saving a loaded graph gives the same file
    path2 = tmp_path / "again.ttg"
    jit.save(g, path2)
    assert path2.read_bytes() == path.read_bytes()


def test_saved_graph_holds_captured_values(tmp_path: Path) -> None:
    w = randn(3)
    cf = tt.compile(lambda x: x * w)
    x = randn(3)
    cf(x)
    path = tmp_path / "cap.ttg"
    jit.save(cf, path)
    ref = x * w
    w.fill_(0.0)  # the file kept the value at save time
    close(jit.load(path)(x)[0], ref)


def test_load_is_not_pickle_and_executes_nothing(tmp_path: Path) -> None:
    path, _ = _saved(tmp_path)
    data = path.read_bytes()
    assert data[:8] == b"TTGRAPH\x00"
    assert b"pickle" not in data and b"\x80\x04" not in data[:16]


def unseal(data: bytes) -> bytes:
    """A saved graph without its CRC-32 trailer (what the parser reads)."""
    assert struct.unpack("<I", data[8:12])[0] == 2 and struct.unpack("<I", data[-4:])[0] == zlib.crc32(data[:-4])
    return data[:-4]


def seal(body: bytes) -> bytes:
    """A (possibly edited) body with a valid trailer again, so that the parser's own checks are reached."""
    return body + struct.pack("<I", zlib.crc32(body))


def _edit_header(data: bytes, old: bytes, new: bytes) -> bytes:
    """Replaces text in the header and fixes its length field and the file's checksum."""
    data = unseal(data)
    hlen = struct.unpack("<Q", data[12:20])[0]
    header = data[20 : 20 + hlen]
    assert old in header
    header = header.replace(old, new, 1)
    return seal(data[:12] + struct.pack("<Q", len(header)) + header + data[20 + hlen :])


def _corrupt(tmp_path: Path, data: bytes, name: str = "bad.ttg") -> Path:
    p = tmp_path / name
    p.write_bytes(data)
    return p


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda d: b"NOTGRAPH" + d[8:], "magic"),
        (lambda d: d[:8] + struct.pack("<I", 99) + d[12:], "version 99"),
        (lambda d: d[:30], "truncated"),
        (lambda d: d[:-3], "truncated"),
        (lambda d: seal(unseal(d) + b"junk"), "data block"),
        (lambda d: d[:-12] + bytes([d[-12] ^ 1]) + d[-11:], "checksum mismatch"),
        (lambda d: _edit_header(d, b"typedtensor-graph 1", b"typedtensor-graph 1 extra"), "expected 'passes'"),
        (lambda d: seal(d[:12] + struct.pack("<Q", 10**12) + unseal(d)[20:]), "truncated header"),
        (lambda d: _edit_header(d, b"values ", b"valuez "), "expected 'values'"),
        (lambda d: _edit_header(d, b"node tanh", b"node system"), "not allowed"),
        (lambda d: _edit_header(d, b"float32 2 6 4", b"float32 2 6 -4"), "bad integer"),
        (lambda d: _edit_header(d, b"float32 2 6 4", b"float32 2 6 5"), "verifier|shape"),
        (lambda d: b"", "magic"),
    ],
)
def test_malformed_files_are_refused(tmp_path: Path, mutate: Any, message: str) -> None:
    path, _ = _saved(tmp_path)
    data = path.read_bytes()
    bad = mutate(data)
    assert bad != data or message == "magic"
    with pytest.raises(jit.GraphError, match=message):
        jit.load(_corrupt(tmp_path, bad))


def test_files_carry_a_checksum_and_version_1_files_still_load(tmp_path: Path) -> None:
    path, x = _saved(tmp_path)
    data = path.read_bytes()
    body = unseal(data)  # version 2: a CRC-32 of every byte before the trailer
    old = tmp_path / "v1.ttg"
    old.write_bytes(body[:8] + struct.pack("<I", 1) + body[12:])  # what version 1 wrote
    close(jit.load(old)(*x)[0], jit.load(path)(*x)[0])


def test_out_of_range_value_ids_are_refused(tmp_path: Path) -> None:
    path, _ = _saved(tmp_path)
    data = path.read_bytes()
    bad = _edit_header(data, b"outputs 2 ", b"outputs 2 999999 ")
    with pytest.raises(jit.GraphError, match="integer"):
        jit.load(_corrupt(tmp_path, bad))


def test_unsaveable_primitive_is_reported(tmp_path: Path) -> None:
    """A device transfer is the one primitive a file cannot hold (it names a device)."""
    if tt.cuda.is_available():
        pytest.skip("uses the host-emulated CUDA device")
    rt._C._testing_emulate_cuda(True)
    try:
        cf = tt.compile(lambda a: (a.to("cuda") * 2.0).to("cpu"))
        cf(randn(3))
        with pytest.raises(NotImplementedError, match="'to'"):
            jit.save(cf, tmp_path / "dev.ttg")
    finally:
        rt._C._testing_emulate_cuda(False)


def _runner() -> str | None:
    exe = shutil.which("typedtensor-run") or shutil.which("typedtensor-run", path=sysconfig.get_path("scripts"))
    if exe:
        return exe
    here = Path(__file__).resolve().parents[2] / "build" / "editable" / "typedtensor-run"
    return str(here) if here.exists() else None


def test_typedtensor_run_matches_python(tmp_path: Path) -> None:
    exe = _runner()
    if exe is None:
        pytest.skip("typedtensor-run is not installed")
    path, (x, w, b) = _saved(tmp_path)
    npz = tmp_path / "in.npz"
    np.savez(npz, x=x.numpy(), w=w.numpy(), b=b.numpy())
    out = tmp_path / "out.npz"
    env = dict(os.environ)
    subprocess.run([exe, str(path), str(npz), "-o", str(out)], check=True, env=env, timeout=120)
    res = np.load(out)
    want = _model(x, w, b)
    assert res.files == ["out_0", "out_1"]
    np.testing.assert_allclose(res["out_0"], want[0].numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(res["out_1"], want[1].numpy(), rtol=1e-5, atol=1e-6)
    printed = subprocess.run([exe, str(path), str(npz)], check=True, capture_output=True, text=True, timeout=120)
    assert printed.stdout.startswith("out_0: float32 [6, 5]")


def test_typedtensor_run_reports_bad_input(tmp_path: Path) -> None:
    exe = _runner()
    if exe is None:
        pytest.skip("typedtensor-run is not installed")
    path, (x, w, _b) = _saved(tmp_path)
    npz = tmp_path / "in.npz"
    np.savez(npz, x.numpy(), w.numpy())  # one input missing
    r = subprocess.run([exe, str(path), str(npz)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 1 and "expected 3 inputs" in r.stderr
    bad = _corrupt(tmp_path, b"TTGRAPH\x00garbage")
    r = subprocess.run([exe, str(bad), str(npz)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 1 and "not a valid typedtensor graph file" in r.stderr
    comp = tmp_path / "c.npz"
    np.savez_compressed(comp, x.numpy())
    r = subprocess.run([exe, str(path), str(comp)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 1 and "compressed" in r.stderr
