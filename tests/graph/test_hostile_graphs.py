"""Crafted files that drove the loaders out of bounds: a saved graph whose view strides or offset
overflow int64 in the bounds check (SIGSEGV, or a silent alias of row 0), and an .npz whose zip64
offsets sit near 2**64 (a read before the buffer). Each is loaded and run in a child process, so a
crash fails this test instead of ending the test run."""

from __future__ import annotations

import io
import json
import shutil
import struct
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import numpy as np
import pytest

import typedtensor as tt
from tests.graph.test_jit import seal, unseal

RUN = """
import json, sys
import numpy as np
import typedtensor as tt
x = tt.tensor(np.arange(24, dtype=np.float32).reshape(4, 6))
try:
    outs = tt.jit.load(sys.argv[1])(x)
    print(json.dumps({"ok": [o.tolist() for o in outs]}))
except ValueError as exc:
    print(json.dumps({"error": type(exc).__name__, "message": str(exc)}))
"""

# value 0 is the [4, 6] float32 input; the views read it
VIEWS = "lambda x: (x[1:, ::2] * 2.0, x[:, 1] + 1.0, x.diagonal() * 1.0)"


def _saved(tmp_path: Path) -> bytes:
    cf = tt.compile(eval(VIEWS))
    x = tt.tensor(np.arange(24, dtype=np.float32).reshape(4, 6))
    cf(x)
    path = tmp_path / "views.ttg"
    tt.jit.save(cf, path, x)
    return path.read_bytes()


def _edit(blob: bytes, old: str, new: str) -> bytes:
    """The saved graph with ``old`` replaced by ``new`` in its header, its CRC-32 trailer made valid
    again: an attacker can compute a checksum too, so the geometry checks must hold on their own."""
    blob = unseal(blob)
    hlen = struct.unpack_from("<Q", blob, 12)[0]
    header = blob[20:20 + hlen].decode()
    assert old in header, header
    header = header.replace(old, new, 1).encode()
    return seal(blob[:12] + struct.pack("<Q", len(header)) + header + blob[20 + hlen:])


def _run(path: Path) -> dict[str, object]:
    # cwd: not the checkout, whose source tree a `python -c` child would import before the installed package
    r = subprocess.run([sys.executable, "-c", RUN, str(path)], capture_output=True, text=True, timeout=300, check=False,
                       cwd=path.parent)
    assert r.returncode == 0, f"exit {r.returncode} (< 0: killed by that signal)\n{r.stderr[-3000:]}"
    result: dict[str, object] = json.loads(r.stdout.splitlines()[-1])
    return result


SLICE = "node slice 1 0 1 1 3 shape l 2 3 6 strides l 2 6 1 offset i 6"
SELECT = "node select 1 0 1 6 3 shape l 1 4 strides l 1 6 offset i 1"


@pytest.mark.parametrize("old,new", [
    (SLICE, SLICE.replace("strides l 2 6 1", f"strides l 2 6 {2**62}")),  # (6 - 1) * 2**62 wraps
    (SLICE, SLICE.replace("strides l 2 6 1", f"strides l 2 {2**61} {2**62}")),
    (SLICE, SLICE.replace("offset i 6", f"offset i {2**63 - 2}")),  # offset + extent wraps negative
    (SLICE, SLICE.replace("offset i 6", "offset i -8")),
    (SLICE, SLICE.replace("strides l 2 6 1", "strides l 2 -6 1")),  # reaches below the storage
    (SELECT, SELECT.replace("strides l 1 6", f"strides l 1 {2**62}")),  # silently aliased row 0
    (SELECT, SELECT.replace("strides l 1 6", f"strides l 1 {-(2**63)}")),
])
def test_views_with_overflowing_geometry_are_refused(tmp_path: Path, old: str, new: str) -> None:
    path = tmp_path / "bad.ttg"
    path.write_bytes(_edit(_saved(tmp_path), old, new))
    result = _run(path)
    assert "error" in result, f"the crafted view ran: {result}"
    assert "outside" in str(result["message"]) or "verifier" in str(result["message"]), result


def test_an_honest_view_graph_still_runs(tmp_path: Path) -> None:
    path = tmp_path / "good.ttg"
    path.write_bytes(_saved(tmp_path))
    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    result = _run(path)
    assert result["ok"] == [(x[1:, ::2] * 2).tolist(), (x[:, 1] + 1).tolist(), np.diagonal(x).tolist()]


def _runner() -> str | None:
    exe = shutil.which("typedtensor-run") or shutil.which("typedtensor-run", path=sysconfig.get_path("scripts"))
    if exe:
        return exe
    here = Path(__file__).resolve().parents[2] / "build" / "editable" / "typedtensor-run"
    return str(here) if here.exists() else None


def test_typedtensor_run_refuses_the_crafted_views(tmp_path: Path) -> None:
    exe = _runner()
    if exe is None:
        pytest.skip("typedtensor-run is not built")
    path = tmp_path / "bad.ttg"
    path.write_bytes(_edit(_saved(tmp_path), SELECT, SELECT.replace("strides l 1 6", f"strides l 1 {2**62}")))
    npz = tmp_path / "in.npz"
    np.savez(npz, np.arange(24, dtype=np.float32).reshape(4, 6))
    r = subprocess.run([exe, str(path), str(npz)], capture_output=True, text=True, timeout=120, check=False)
    assert r.returncode == 1 and "outside" in r.stderr, (r.returncode, r.stderr)


def _zip64_npz(array: np.ndarray, offset: int | None = None, offset32: int | None = None) -> bytes:
    """A one-entry stored zip whose central directory gives sizes and the local header's offset in
    a zip64 extra field (as a writer does past 4 GiB), optionally with a hostile offset."""
    buf = io.BytesIO()
    np.lib.format.write_array(buf, array)
    data, name = buf.getvalue(), b"arr_0.npy"
    crc = zipfile.crc32(data)
    local = struct.pack("<IHHHHHIIIHH", 0x04034B50, 45, 0, 0, 0, 0, crc, len(data), len(data), len(name), 0)
    body = local + name + data
    extra = struct.pack("<HHQQQ", 1, 24, len(data), len(data), 0 if offset is None else offset)
    central = struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 45, 45, 0, 0, 0, 0, crc, 0xFFFFFFFF, 0xFFFFFFFF,
                          len(name), len(extra), 0, 0, 0, 0,
                          0xFFFFFFFF if offset32 is None else offset32) + name + extra
    eocd = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 1, 1, len(central), len(body), 0)
    return body + central + eocd


@pytest.mark.parametrize("offset,offset32", [(2**64 - 1, None), (2**64 - 20, None), (2**63, None), (None, 0xFFFFFFF0)])
def test_typedtensor_run_refuses_npz_offsets_near_2_to_the_64(tmp_path: Path, offset: int | None,
                                                              offset32: int | None) -> None:
    """`pos + n > size` wrapped for a zip64 offset near 2**64: a read of up to 8 bytes before the
    buffer (seen under AddressSanitizer; scripts/sanitize.sh). Now every range is checked first."""
    exe = _runner()
    if exe is None:
        pytest.skip("typedtensor-run is not built")
    cf = tt.compile(lambda x: x * 2.0)
    x = tt.ones(2, 3)
    cf(x)
    model = tmp_path / "m.ttg"
    tt.jit.save(cf, model, x)
    good = tmp_path / "good.npz"
    good.write_bytes(_zip64_npz(np.ones((2, 3), np.float32)))
    ok = subprocess.run([exe, str(model), str(good)], capture_output=True, text=True, timeout=120, check=False)
    assert ok.returncode == 0, ok.stderr
    assert np.load(good)["arr_0"].shape == (2, 3)  # numpy reads the honest file too
    bad = tmp_path / "bad.npz"
    bad.write_bytes(_zip64_npz(np.ones((2, 3), np.float32), offset, offset32))
    r = subprocess.run([exe, str(model), str(bad)], capture_output=True, text=True, timeout=120, check=False)
    assert r.returncode == 1 and ("truncated" in r.stderr or "out of range" in r.stderr), (r.returncode, r.stderr)
