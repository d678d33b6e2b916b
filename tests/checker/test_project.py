"""The project-wide symbol table: names imported from other files of the checked tree (absolute,
relative, ``import a.b as c``, ``from pkg import module``, star imports), import cycles, and the
independence of each file's result from the order and the partition files are checked in."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from typedtensor.checker import runner
from typedtensor.checker.config import Config

DIMS = """\
from typedtensor import Dim
class Batch(Dim): ...
class In(Dim): ...
class Hidden(Dim): ...
"""

LAYERS = """\
from typing import Generic, TypeVar
from typedtensor import Tensor, nn
from .dims import Batch, Hidden, In

I = TypeVar("I")
O = TypeVar("O")

def encode(x: Tensor[Batch, In]) -> Tensor[Batch, Hidden]: ...

class Block(nn.Module, Generic[I, O]):
    def __init__(self, d_in: I, d_out: O) -> None:
        super().__init__()
        self.fc = nn.Linear(d_in, d_out)

    def forward(self, x: Tensor[Batch, I]) -> Tensor[Batch, O]:
        return self.fc(x)
"""

TRAIN = """\
import pkg.layers as L
from pkg import dims
from pkg.dims import Batch, Hidden, In
from pkg.layers import Block, encode
from typedtensor import Tensor

def step(x: Tensor[Batch, In], h: Tensor[Batch, Hidden]) -> None:
    encode(x)
    encode(h)
    L.encode(h)
    block = Block(In(4), Hidden(8))
    y: Tensor[Batch, Hidden] = block(x)
    block(h)
    z: Tensor[dims.Batch, dims.In] = x
"""

STAR = """\
from pkg.dims import *
from pkg.layers import *
from typedtensor import Tensor

def f(h: Tensor[Batch, Hidden]) -> None:
    encode(h)
"""


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        p = root / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text))


def check(root: Path, *paths: str, jobs: int = 1) -> list[tuple[str, int, str]]:
    result = runner.run(runner.Options([str(root / p) for p in paths] or [str(root)], use_cache=False, jobs=jobs),
                        Config(root=root))
    assert result.crashed == 0
    return [(Path(r.path).relative_to(root).as_posix(), r.line, r.code) for r in result.reports]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    write(tmp_path, {"pkg/__init__.py": "", "pkg/dims.py": DIMS, "pkg/layers.py": LAYERS,
                     "train.py": TRAIN, "star.py": STAR})
    return tmp_path


def test_names_from_other_files(project: Path) -> None:
    assert check(project) == [
        ("star.py", 6, "shape-arg"),
        ("train.py", 9, "shape-arg"),
        ("train.py", 10, "shape-arg"),
        ("train.py", 13, "shape-arg"),
    ]


def test_a_file_alone_does_not_see_unchecked_files(project: Path) -> None:
    """Only files of the checked tree are followed: outside it, a name is unknown (never an error)."""
    assert check(project, "train.py") == []


def test_results_do_not_depend_on_partition(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    serial = check(project)
    monkeypatch.setattr(runner, "PARALLEL_MIN_BYTES", 0)
    assert check(project, jobs=2) == serial


def test_import_cycle(tmp_path: Path) -> None:
    write(tmp_path, {
        "a.py": """\
            from typedtensor import Dim, Tensor
            import b
            class Batch(Dim): ...
            class In(Dim): ...
            def fa(x: Tensor[Batch, In]) -> Tensor[Batch, In]:
                return b.fb(x)
            def bad(x: Tensor[In, Batch]) -> None:
                b.fb(x)
        """,
        "b.py": """\
            from typedtensor import Tensor
            import a
            from a import Batch, In
            def fb(x: Tensor[Batch, In]) -> Tensor[Batch, In]:
                return a.fa(x)
            def bad(x: Tensor[In, Batch]) -> None:
                a.fa(x)
        """,
    })
    first = check(tmp_path)
    assert ("a.py", 8, "shape-arg") in first and ("b.py", 7, "shape-arg") in first
    assert check(tmp_path, "b.py", "a.py") == first


def test_relative_import_beyond_top_is_unknown(tmp_path: Path) -> None:
    write(tmp_path, {"solo.py": "from ...nowhere import x\nimport typedtensor as tt\ny = x @ tt.zeros(2, 3)\n"})
    assert check(tmp_path) == []


def test_star_imports_from_typedtensor_and_typing(tmp_path: Path) -> None:
    write(tmp_path, {"star.py": """\
        from typing import *
        from typedtensor import *
        from typedtensor.nn.functional import *

        class B(Dim): ...
        class N(Dim): ...

        def f(x: Tensor[B, N], xs: List[int]) -> Tensor[N, B]:
            total = sum(xs) + max(1, 2)
            relu(x) @ x
            return x
    """})
    assert check(tmp_path) == [("star.py", 10, "shape-matmul"), ("star.py", 11, "shape-return")]
