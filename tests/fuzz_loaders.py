"""Fuzzers for the three loaders of untrusted files: ``tt.load``, ``tt.jit.load`` (and running what it
loaded) and ``typedtensor-run``'s .npz / .npy reader.

Each starts from valid files, mutates them (hostile integers in every count, size, stride and
offset; random bytes; truncation; JSON values of the wrong type, with the checksums recomputed so
the mutation reaches the parser) and loads the result. Every attempt must end in a value or a
clean Python exception (``tt.load``: ``ValueError`` only, as documented; graphs: ValueError and
friends) -- never a crash, and under AddressSanitizer never an out-of-bounds access.

Run as ``python tests/fuzz_loaders.py {load,jit,run} [--seed S] [--iterations N] [--exe PATH]`` (a
script, so that ``typedtensor`` is the installed package, not the source folder beside it): it
prints one JSON line ``{"loader", "seed", "tried", "outcomes"}`` and
exits 0, or 1 when an attempt ended in an exception it may not raise (the case is printed). A crash
ends the process by a signal. tests/test_loader_fuzz.py runs each one in a child process;
scripts/sanitize.sh runs them against an AddressSanitizer + UBSan build.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import struct
import subprocess
import sys
import tempfile
import zlib
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

HOSTILE_INTS = [0, 1, -1, 2, 3, 7, 64, 255, 256, 2**31 - 1, 2**31, 2**32, 2**32 - 1, 2**53, 2**62, 2**63 - 2,
                2**63 - 1, -(2**62), -(2**63), -(2**63) + 1, 10**12]


# -- tt.load ---------------------------------------------------------------------------------------

def _load_seeds(tt: Any) -> list[bytes]:
    g = np.random.default_rng(0)
    objs: list[Any] = [
        {"w": tt.tensor(g.standard_normal((3, 4)).astype(np.float32)), "b": tt.tensor([True, False, True]),
         "meta": [1, 2.5, "x", None, (True, -3)], "i": tt.tensor(np.arange(6, dtype=np.int64).reshape(2, 3))},
        [tt.tensor(g.standard_normal(5)).half(), tt.tensor(g.standard_normal(4)).to(tt.bfloat16),
         tt.tensor(np.arange(5, dtype=np.uint8)), tt.tensor(np.arange(3, dtype=np.int32)), tt.zeros(0, 3)],
        tt.tensor(g.standard_normal((2, 2, 2))),
        {"nested": {"deep": [[{"k": tt.ones(2)}]]}, 3: 4.0, "f": float("inf")},
    ]
    return [_dumps(tt, o) for o in objs]


def _dumps(tt: Any, obj: Any) -> bytes:
    """``obj`` in the older typedtensor format (``\\x89TTSAVE``), whose reader ``tt.load`` keeps for the
    migration: ``tt.save`` writes safetensors now (fuzzed in tests/interop/test_loader_fuzz.py)."""
    from typedtensor._runtime import serialization

    buf = io.BytesIO()
    serialization.save(obj, buf)
    return buf.getvalue()


_PRE = struct.Struct("<8sIQI")


def _split(blob: bytes) -> tuple[dict[str, Any], bytes]:
    _, _, hlen, _ = _PRE.unpack_from(blob)
    header = json.loads(blob[_PRE.size:_PRE.size + hlen])
    start = _PRE.size + hlen
    start += -start % 64
    return header, blob[start:]


def _join(header: Any, data: bytes, fix_data_crc: bool) -> bytes:
    if fix_data_crc and isinstance(header, dict):
        header["data_crc32"] = zlib.crc32(data)
    h = json.dumps(header, separators=(",", ":")).encode()
    pre = _PRE.pack(b"\x89TTSAVE\n", 1, len(h), zlib.crc32(h))
    return pre + h + b"\0" * (-(len(pre) + len(h)) % 64) + data


def _hostile_json(rng: random.Random) -> Any:
    return rng.choice([
        *HOSTILE_INTS, -1.5, 1e308, float("nan"), "0x1p99999", "-0x1p99999", "nan", "inf", "0x1.8p1", "", "bool",
        "float64", "bfloat16", "tensor", "dict", None, True, False, [], {}, [2**62, 2**62], [-1], [0] * 65,
        {"t": "tensor", "i": 0}, {"t": "float", "v": "0x1p99999"}, {"t": "dict", "items": [[{"t": "list", "items": []},
                                                                                          {"t": "none"}]]},
        {"t": "int", "v": 2**70}, {"t": "str", "v": "\ud800"}, [[[[[]]]]],
    ])


def _paths(obj: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(obj, dict):
        for k, v in obj.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            out += _paths(v, (*prefix, i))
    return out


def _set(obj: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    obj[path[0]] = _set(obj[path[0]], path[1:], value)
    return obj


def mutate_save_file(rng: random.Random, blob: bytes) -> bytes:
    kind = rng.random()
    if kind < 0.45:  # a JSON value replaced, checksums recomputed so the decoder sees it
        header, data = _split(blob)
        for _ in range(rng.randint(1, 3)):
            header = _set(header, rng.choice(_paths(header)), _hostile_json(rng))
        return _join(header, data, fix_data_crc=True)
    if kind < 0.65:  # data bytes changed (NaNs, bool bytes other than 0/1), data checksum recomputed
        header, data = _split(blob)
        raw = bytearray(data)
        for _ in range(rng.randint(1, 8)):
            if raw:
                raw[rng.randrange(len(raw))] = rng.randrange(256)
        return _join(header, bytes(raw), fix_data_crc=True)
    if kind < 0.75:  # a hostile header length
        return blob[:12] + struct.pack("<Q", rng.choice([x % 2**64 for x in HOSTILE_INTS])) + blob[20:]
    raw = bytearray(blob)
    if kind < 0.9:
        for _ in range(rng.randint(1, 6)):
            raw[rng.randrange(len(raw))] = rng.randrange(256)
        return bytes(raw)
    return bytes(raw[: rng.randrange(len(raw))])


def fuzz_load(rng: random.Random, iterations: int, report: Callable[[str, str], None]) -> Counter[str]:
    import typedtensor as tt

    seeds = _load_seeds(tt)
    out: Counter[str] = Counter()
    for _ in range(iterations):
        blob = mutate_save_file(rng, rng.choice(seeds))
        try:
            tt.load(io.BytesIO(blob))
            out["loaded"] += 1
        except ValueError:
            out["ValueError"] += 1
        except Exception as exc:
            out[f"bad:{type(exc).__name__}"] += 1
            report(f"tt.load raised {type(exc).__name__}: {exc}", blob.hex())
    return out


# -- tt.jit.load + run -------------------------------------------------------------------------

def _graph_seeds(tt: Any, folder: Path) -> list[bytes]:
    g = np.random.default_rng(1)

    def r(*shape: int) -> Any:
        return tt.tensor(g.standard_normal(shape).astype(np.float32))

    w = r(4, 3)
    programs: list[tuple[Callable[..., Any], tuple[Any, ...]]] = [
        (lambda x, b: ((x @ w + b).relu()[1:, ::2], x.sum(0).softmax(0)), (r(5, 4), r(3))),
        (lambda x: (x[1:, ::2] * 2.0, x[:, 1].exp(), x.flip(0), x.t()), (r(3, 4),)),
        (lambda x, i: (x.index_select(0, i), x.gather(0, i.unsqueeze(1).expand(3, 2)), x.cumsum(1)),
         (r(4, 2), tt.tensor([0, 3, 1]))),
        (lambda x: (tt.nn.functional.max_pool2d(x, 2), tt.nn.functional.avg_pool2d(x, 2), x.permute(0, 2, 3, 1)),
         (r(1, 2, 4, 4),)),
        (lambda x, y: (tt.cat([x, y], 0).tril(), x.reshape(-1).repeat(2), (x - y).abs().amax(1)), (r(2, 3), r(2, 3))),
        (lambda x, t: tt.nn.functional.cross_entropy(x, t), (r(4, 5), tt.tensor([0, 4, 2, 1]))),
        (lambda x: (x // 0.5, x.fmod(0.7), x.diagonal(), x.transpose(0, 1).contiguous()), (r(3, 3),)),
    ]
    seeds = []
    for i, (fn, args) in enumerate(programs):
        cf = tt.compile(fn)
        cf(*args)
        path = folder / f"seed{i}.ttg"
        tt.jit.save(cf, path, *args)
        seeds.append(path.read_bytes())
    return seeds


def _graph_parts(blob: bytes) -> tuple[bytes, bytes, bytes]:
    hlen = struct.unpack_from("<Q", blob, 12)[0]
    return blob[:12], blob[20:20 + hlen], blob[20 + hlen:]


def mutate_graph_file(rng: random.Random, blob: bytes, ops: list[str]) -> bytes:
    head, header, rest = _graph_parts(blob)
    kind = rng.random()
    if kind < 0.8:  # header tokens: integers, op names, dtypes, attribute kinds
        tokens = header.split(b" ")
        for _ in range(rng.randint(1, 4)):
            i = rng.randrange(len(tokens))
            tok = tokens[i]
            nl = tok.endswith(b"\n")
            core = tok[:-1] if nl else tok
            if core.lstrip(b"-").isdigit() or rng.random() < 0.3:
                new = str(rng.choice(HOSTILE_INTS)).encode()
            elif rng.random() < 0.5:
                new = rng.choice(ops).encode()
            else:
                new = rng.choice([b"float32", b"int64", b"bool", b"i", b"f", b"l", b"b", b"const", b"input", b"node",
                                  b"7ff0000000000000", b"fff8000000000000", b""])
            tokens[i] = new + (b"\n" if nl else b"")
        header = b" ".join(tokens)
    elif kind < 0.9:
        raw = bytearray(header)
        raw[rng.randrange(len(raw))] = rng.randrange(256)
        header = bytes(raw)
    else:
        raw = bytearray(rest)
        if len(raw) > 8:
            raw[8 + rng.randrange(len(raw) - 8)] = rng.randrange(256)
        rest = bytes(raw)
    return head + struct.pack("<Q", len(header)) + header + rest


def _inputs_for(tt: Any, graph: Any, rng: random.Random) -> list[Any] | None:
    ins = []
    for vid in graph.inputs:
        v = graph.value(vid)
        n = int(np.prod(v.shape)) if v.shape else 1
        if n > 1 << 20:
            return None
        name = str(v.dtype).rsplit(".", 1)[-1]
        g = np.random.default_rng(rng.randrange(2**31))
        if name in ("int64", "int32", "uint8"):
            arr = g.integers(-3, 8, v.shape)
        elif name == "bool":
            arr = g.random(v.shape) > 0.5
        else:
            arr = g.standard_normal(v.shape) * rng.choice([1.0, 1e30])
        ins.append(tt.tensor(np.asarray(arr)).to(v.dtype))
    return ins


CLEAN_GRAPH_ERRORS = (ValueError, TypeError, IndexError, NotImplementedError, MemoryError, OverflowError)


def fuzz_jit(rng: random.Random, iterations: int, report: Callable[[str, str], None]) -> Counter[str]:
    import typedtensor as tt

    out: Counter[str] = Counter()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        seeds = _graph_seeds(tt, folder)
        # the seeds' ops, and the views a hostile file may name (as_strided has no Python front end)
        ops = sorted({n.op for s in seeds for n in _loaded(tt, folder, s).nodes()} |
                     {"as_strided", "slice", "select", "diagonal", "as_strided_backward", "slice_backward", "expand",
                      "reshape", "permute", "repeat", "cat", "flip", "scatter", "index_add", "conv2d"})
        path = folder / "case.ttg"
        for _ in range(iterations):
            blob = mutate_graph_file(rng, rng.choice(seeds), ops)
            path.write_bytes(blob)
            stage = "load"
            try:
                g = tt.jit.load(path)
                stage = "run"
                ins = _inputs_for(tt, g, rng)
                if ins is None:
                    out["loaded-too-big-to-run"] += 1
                    continue
                g(*ins)
                out["ran"] += 1
            except CLEAN_GRAPH_ERRORS as exc:
                out[f"{stage}:{type(exc).__name__}"] += 1
            except Exception as exc:
                out[f"bad:{stage}:{type(exc).__name__}"] += 1
                report(f"graph {stage} raised {type(exc).__name__}: {exc}", blob.hex())
    return out


def _loaded(tt: Any, folder: Path, blob: bytes) -> Any:
    p = folder / "seed.ttg"
    p.write_bytes(blob)
    return tt.jit.load(p, passes=[])


# -- typedtensor-run ---------------------------------------------------------------------------

def _npz(arrays: list[np.ndarray], zip64: bool = False) -> bytes:
    buf = io.BytesIO()
    if zip64:
        import zipfile

        with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as z:
            for i, a in enumerate(arrays):
                with z.open(f"arr_{i}.npy", "w", force_zip64=True) as f:
                    np.lib.format.write_array(f, a)
        return buf.getvalue()
    np.savez(buf, *arrays)
    return buf.getvalue()


def mutate_npz(rng: random.Random, blob: bytes) -> bytes:
    raw = bytearray(blob)
    kind = rng.random()
    if kind < 0.6:  # a little-endian field near a zip signature set to a hostile value
        sigs = [i for i in range(len(raw) - 4) if raw[i:i + 2] == b"PK"] or [0]
        base = rng.choice(sigs)
        width = rng.choice([2, 4, 8])
        at = min(len(raw) - width, base + rng.randrange(0, 64))
        value = rng.choice([x % 2**(8 * width) for x in HOSTILE_INTS] + [2**(8 * width) - k for k in (1, 2, 8, 20, 46)])
        raw[at:at + width] = value.to_bytes(width, "little")
    elif kind < 0.8:  # the .npy header text
        at = raw.find(b"'shape': (")
        if at >= 0:
            text = rng.choice([b"'shape': (99999999999999999999,", b"'shape': (-1,", b"'shape': (4611686018427387904, 4,",
                               b"'shape': (0,", b"'shape': ((", b"'descr': '<b1',", b"'shape': (3, 0, 4611686018427387904,"])
            raw[at:at + len(text)] = text
    elif kind < 0.9:
        for _ in range(rng.randint(1, 8)):
            raw[rng.randrange(len(raw))] = rng.randrange(256)
    else:
        raw = raw[: rng.randrange(len(raw))]
    return bytes(raw)


def fuzz_run(rng: random.Random, iterations: int, report: Callable[[str, str], None], exe: str) -> Counter[str]:
    import typedtensor as tt

    out: Counter[str] = Counter()
    env = dict(os.environ)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        model = folder / "m.ttg"
        cf = tt.compile(lambda x, y: ((x * y).sum(1), x[1:] + 1.0))
        x = tt.tensor(np.arange(12, dtype=np.float32).reshape(3, 4))
        cf(x, x)
        tt.jit.save(cf, model, x, x)
        arrays = [np.arange(12, dtype=np.float32).reshape(3, 4)] * 2
        seeds = [_npz(arrays), _npz(arrays, zip64=True), _npz([np.ones((3, 4), np.float32), np.zeros((3, 4), np.float32)])]
        case = folder / "in.npz"
        for _ in range(iterations):
            blob = mutate_npz(rng, rng.choice(seeds))
            case.write_bytes(blob)
            r = subprocess.run([exe, str(model), str(case)], capture_output=True, timeout=60, env=env, check=False)
            if r.returncode in (0, 1):
                out["ran" if r.returncode == 0 else "refused"] += 1
            else:
                out[f"bad:exit {r.returncode}"] += 1
                report(f"typedtensor-run exited {r.returncode}: {r.stderr.decode(errors='replace')[-2000:]}", blob.hex())
    return out


# -- driver ----------------------------------------------------------------------------------------

def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("loader", choices=["load", "jit", "run"])
    p.add_argument("--seed", type=int, default=2026)
    p.add_argument("--iterations", type=int, default=200)
    p.add_argument("--exe", default=None, help="typedtensor-run (for 'run')")
    a = p.parse_args(argv)
    rng = random.Random(a.seed)
    bad: list[str] = []

    def report(what: str, case_hex: str) -> None:
        if len(bad) < 5:
            bad.append(f"{what}\n  case (hex): {case_hex[:4000]}")

    if a.loader == "load":
        outcomes = fuzz_load(rng, a.iterations, report)
    elif a.loader == "jit":
        outcomes = fuzz_jit(rng, a.iterations, report)
    else:
        if not a.exe:
            p.error("'run' needs --exe PATH")
        outcomes = fuzz_run(rng, a.iterations, report, a.exe)
    print(json.dumps({"loader": a.loader, "seed": a.seed, "tried": a.iterations, "outcomes": dict(outcomes)}))
    for b in bad:
        print(b, file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
