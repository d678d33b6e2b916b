"""mypy wall time with and without the typedtensor plugin, cold and warm.

Targets: `examples/` (when it holds Python files) and a generated ~3,000-line model file.
Cold = an empty cache; warm = the cache of a previous run, after editing the checked file.
Runs with and without the plugin alternate; each figure is the median over `--repeat` runs.
Both configurations use the same stubs (`MYPYPATH=stubs`) and the same launcher, so the
difference is the plugin alone. Usage: `python benchmarks/mypy_overhead.py [--repeat N]`.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LAUNCH = ROOT / "tests" / "mypy_plugin" / "launch.py"

BLOCK = '''

class Dim{i}(Dim): ...


class Block{i}(nn.Module, Generic[I, H]):
    def __init__(self, d_in: I, d_hidden: H) -> None:
        super().__init__()
        self.up = nn.Linear(d_in, d_hidden)
        self.down = nn.Linear(d_hidden, d_in)
        self.norm = nn.LayerNorm(d_in)

    def forward(self, x: Tensor[Batch, Seq, I]) -> Tensor[Batch, Seq, I]:
        h = tt.relu(self.up(x))
        return self.norm(x + self.down(h))


def attention{i}(q: Tensor[Batch, Heads, Seq, D], k: Tensor[Batch, Heads, Seq, D], v: Tensor[Batch, Heads, Seq, D]) -> Tensor[Batch, Heads, Seq, D]:
    scores = q @ k.transpose(-2, -1) / 8.0
    weights = tt.softmax(scores, dim=-1)
    return weights @ v


def heads{i}(x: Tensor[Batch, Seq, Mul[Heads, D]], h: Heads, d: D) -> Tensor[Batch, Heads, Seq, D]:
    b, s, _ = x.shape
    return x.reshape(b, s, h, d).transpose(1, 2)


def merge{i}(x: Tensor[Batch, Heads, Seq, D]) -> Tensor[Batch, Seq, Mul[Heads, D]]:
    b, h, s, d = x.shape
    return x.transpose(1, 2).reshape(b, s, h * d)


def pool{i}(x: Tensor[Batch, Seq, Model], mask: Tensor[Batch, Seq]) -> Tensor[Batch, Model]:
    weights = mask.unsqueeze(-1).float()
    return (x * weights).sum(dim=1) / weights.sum(dim=1)


def step{i}(x: Tensor[Batch, Seq, Model], y: Tensor[Batch]) -> Tensor[()]:
    block = Block{i}(Model(64), Dim{i}(128))
    h = block(x)
    logits = pool{i}(h, x.mean(-1)) @ tt.randn(Model(64), Classes(10))
    return nn.functional.cross_entropy(logits, y)
'''

HEADER = '''from typing import Generic, TypeVar

import typedtensor as tt
from typedtensor import Dim, Mul, Tensor, nn

I = TypeVar("I")
H = TypeVar("H")


class Batch(Dim): ...
class Seq(Dim): ...
class Heads(Dim): ...
class D(Dim): ...
class Model(Dim): ...
class Classes(Dim): ...
'''


def precompile() -> None:
    """Write the bytecode of the plugin and of the installed package, as `pip install` does: with
    PYTHONDONTWRITEBYTECODE set, every plugin run would otherwise compile them again, a cost no
    installed plugin has."""
    import compileall

    import typedtensor

    for folder in (ROOT / "mypy_plugin", Path(typedtensor.__file__).parent):
        compileall.compile_dir(str(folder), quiet=1)


def generate(lines: int) -> str:
    text, i = HEADER, 0
    while text.count("\n") < lines:
        text += BLOCK.format(i=i)
        i += 1
    return text


def _child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run(files: list[Path], plugin: bool, cache: Path) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one mypy run. CPU time (user + system of the child) is the
    steadier figure on a shared machine, where wall time mostly measures the other processes."""
    with tempfile.TemporaryDirectory() as tmp:
        ini = Path(tmp, "mypy.ini")
        ini.write_text(
            "[mypy]\n" + ("plugins = typedtensor.mypy_plugin\n" if plugin else "")
            # the examples load their data with scikit-learn, which ships no type information
            + "[mypy-sklearn.*]\nignore_missing_imports = True\n"
        )
        env = {**os.environ, "MYPYPATH": str(ROOT / "stubs")}
        start, cpu = time.perf_counter(), _child_cpu()
        proc = subprocess.run(
            [sys.executable, str(LAUNCH), "--config-file", str(ini), "--cache-dir", str(cache),
             "--no-error-summary", *map(str, files)],
            capture_output=True, text=True, env=env,
        )
        elapsed, cpu = time.perf_counter() - start, _child_cpu() - cpu
    if proc.returncode not in (0, 1):
        raise RuntimeError(proc.stdout[-2000:] + proc.stderr[-2000:])
    if plugin and proc.returncode:
        raise RuntimeError("the benchmark program must be clean under the plugin:\n" + proc.stdout[-3000:])
    return elapsed, cpu


Timing = tuple[float, float, float, float]  # cold wall, warm wall, cold CPU, warm CPU


def measure(files: list[Path], edit: Path, repeat: int) -> tuple[Timing, Timing]:
    """(plain, with plugin) medians. The two configurations alternate, run by run: on a shared
    machine the load drifts over a minute, and measuring one configuration after the other
    would charge the drift to the plugin (or credit it)."""
    original = edit.read_text()
    samples: dict[bool, tuple[list[tuple[float, float]], list[tuple[float, float]]]] = {False: ([], []), True: ([], [])}
    for _ in range(repeat):
        for plugin in (False, True):
            cold, warm = samples[plugin]
            with tempfile.TemporaryDirectory() as tmp:
                cache = Path(tmp, "cache")
                edit.write_text(original)
                cold.append(run(files, plugin, cache))
                edit.write_text(original + "\n# edited\n")
                warm.append(run(files, plugin, cache))
    edit.write_text(original)

    def medians(plugin: bool) -> Timing:
        cold, warm = samples[plugin]
        return (
            statistics.median(c[0] for c in cold), statistics.median(w[0] for w in warm),
            statistics.median(c[1] for c in cold), statistics.median(w[1] for w in warm),
        )

    return medians(False), medians(True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--lines", type=int, default=3000)
    args = parser.parse_args()
    precompile()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        model = Path(tmp, "generated_model.py")
        model.write_text(generate(args.lines))
        n = model.read_text().count("\n")
        targets = [(f"generated model ({n} lines)", [model], model)]
        examples = sorted((ROOT / "examples").rglob("*.py"))
        if examples:
            copy = Path(tmp, "examples")
            copy.mkdir()
            copies = []
            for e in examples:
                c = copy / e.name
                c.write_text(e.read_text())
                copies.append(c)
            targets.insert(0, (f"examples/ ({len(examples)} files)", copies, copies[0]))
        for label, files, edit in targets:
            base, with_plugin = measure(files, edit, args.repeat)
            rows.append((label, base, with_plugin))
    print(f"{'target':32} {'':10} {'plain mypy':>11} {'with plugin':>12} {'overhead':>9}")
    for label, base, with_plugin in rows:
        for k, name in enumerate(("cold wall", "warm wall", "cold CPU", "warm CPU")):
            b, p = base[k], with_plugin[k]
            print(f"{label:32} {name:10} {b:10.2f}s {p:11.2f}s {100 * (p - b) / b:8.1f}%")


if __name__ == "__main__":
    main()
