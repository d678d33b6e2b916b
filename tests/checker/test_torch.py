"""torch programs and jaxtyping annotations (NOTE [ Reading torch programs ] in checker/names.py,
NOTE [ jaxtyping annotations ] in checker/jaxtyping.py): the case files under torch/ hold their
inline expectations; the shape strings read as jaxtyping itself checks them; the switch that
turns the reading off."""

from __future__ import annotations

import importlib.util
import re
import sys
import textwrap
from collections import Counter
from pathlib import Path

import pytest
from typedtensor.checker.cli import main
from typedtensor.checker.config import Config, ConfigError, load
from typedtensor.checker.jaxtyping import parse_shape
from typedtensor.checker.names import from_torch
from typedtensor.checker.runner import Options, run

from typedtensor.shapes import UNKNOWN, Shape, dim_axis, unify
from typedtensor.shapes.unify import Bindings

HERE = Path(__file__).parent
CASES = sorted((HERE / "torch").glob("*.py"))

_spec = importlib.util.spec_from_file_location("_checker_expect_torch", HERE / "_expect.py")
assert _spec is not None and _spec.loader is not None
_expect = importlib.util.module_from_spec(_spec)
sys.modules["_checker_expect_torch"] = _expect
_spec.loader.exec_module(_expect)


@pytest.mark.parametrize("case", CASES, ids=[c.stem for c in CASES])
def test_case(case: Path) -> None:
    must, notes, _ = _expect.expectations(case)
    reports = run(Options([str(case)], use_cache=False, jobs=1), Config(root=case.parent)).reports
    got = Counter((r.line, r.code) for r in reports if r.severity != "note")
    messages = {(r.line, r.code): r.message for r in reports}
    problems = [f"{case.name}:{line}: missing {code}" for line, code in sorted(must - got)]
    problems += [f"{case.name}:{line}: unexpected {code} ({messages[(line, code)]})"
                 for line, code in sorted(got - must)]
    got_notes = {r.line: r.message for r in reports if r.severity == "note"}
    for line, text in notes.items():
        if text not in got_notes.get(line, ""):
            problems.append(f"{case.name}:{line}: note {text!r} not in {got_notes.get(line)!r}")
    problems += [f"{case.name}:{line}: unexpected note ({msg})" for line, msg in got_notes.items() if line not in notes]
    assert not problems, "\n".join(problems)


# -- the name mapping --------------------------------------------------------------------------

@pytest.mark.parametrize(("torch_name", "ours"), [
    ("torch", "torch"),
    ("torch.nn", "typedtensor.nn"),
    ("torch.nn.functional.relu", "typedtensor.nn.functional.relu"),
    ("torch.Tensor", "typedtensor.Tensor"),
    ("torch.nn.modules.linear.Linear", "typedtensor.nn.Linear"),
    ("torch.nn.modules.Conv2d", "typedtensor.nn.Conv2d"),
    ("torch.nn.modules.linear", "torch.nn.modules.linear"),
    ("torch.functional.einsum", "typedtensor.einsum"),
    ("torch.utils.data.DataLoader", "typedtensor.utils.data.DataLoader"),
    ("torch.Dim", "torch.Dim"),
    ("torch.Add", "torch.Add"),
    ("torch.data.TensorDataset", "torch.data.TensorDataset"),
    ("numpy.zeros", "numpy.zeros"),
    ("torchvision.models", "torchvision.models"),
])
def test_from_torch(torch_name: str, ours: str) -> None:
    assert from_torch(torch_name) == ours


def test_every_mapped_registry_name_exists_in_torch() -> None:
    """A name the checker gives a meaning to through torch must be a real torch name (else a typo'd
    or typedtensor-only name in a torch program would be checked as something torch lacks)."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("torch.utils.data")  # a subpackage torch does not import eagerly
    from typedtensor.checker import calculus, names

    known = [*calculus.FUNCTIONS, *calculus.MODULES, *names.TENSOR, *names.MODULE_BASE, *names.SEQUENTIAL,
             *names.MODULE_LIST, *names.MODULE_DICT, *names.PARAMETER, *names.DATA_LOADER, *names.TENSOR_DATASET]
    missing = []
    for ours in known:
        rest = ours.split(".")[1:]
        if from_torch(".".join(["torch", *rest])) != ours:
            continue  # not reachable from torch
        obj: object = torch
        for part in rest:
            obj = getattr(obj, part, None)
            if obj is None:
                missing.append(ours)
                break
    assert not missing


def test_functional_only_slot_matches_torch() -> None:
    """The op table's ``torch_functional_only`` (which makes ``torch.X`` unknown to the checker) holds
    exactly for the ``tt.X`` ops that torch has in ``torch.nn.functional`` and not at its top level."""
    torch = pytest.importorskip("torch")
    from typedtensor.shapes import api
    from typedtensor.shapes.registry import all_ops

    functions = api.ops_with("function")
    marked = {name for name, op in all_ops().items() if op.torch_functional_only}
    assert marked <= set(functions)
    for name in functions:
        only_in_f = not hasattr(torch, name) and hasattr(torch.nn.functional, name)
        assert (name in marked) == only_in_f, name
    assert from_torch("torch.softplus") == "torch.softplus"
    assert from_torch("torch.nn.functional.softplus") == "typedtensor.nn.functional.softplus"


# -- jaxtyping's grammar against jaxtyping itself ------------------------------------------------

#: (annotation, a concrete shape jaxtyping accepts for it, one it rejects or None)
GRAMMAR = [
    ("a b", (2, 3), (2, 3, 4)),
    ("a a", (3, 3), (3, 4)),
    ("b 3 28 28", (5, 3, 28, 28), (5, 1, 28, 28)),
    ("rows=4 cols=b", (4, 7), (5, 7)),
    ("n n-1", (4, 3), (4, 4)),
    ("n 2*n", (3, 6), (3, 5)),
    ("d (d//2)+1", (6, 4), (6, 3)),
    ("*batch c", (2, 3, 4), ()),
    ("*batch c", (4,), None),
    ("... c h w", (7, 3, 8, 8), (3, 8)),
    ("*_ c", (1, 2, 5), None),
    ("b _ _w", (2, 9, 8), (2, 9)),
    ("#b c", (1, 4), None),
    ("", (), (1,)),
    ("n", (0,), None),
]


def _jaxtyping_accepts(spec: str, shape: tuple[int, ...]) -> bool:
    jaxtyping = pytest.importorskip("jaxtyping")
    torch = pytest.importorskip("torch")
    with jaxtyping.jaxtyped("context"):
        return isinstance(torch.zeros(shape), jaxtyping.Float[torch.Tensor, spec])


@pytest.mark.parametrize(("spec", "good", "bad"), GRAMMAR, ids=[repr(g[0]) for g in GRAMMAR])
def test_shape_strings_agree_with_jaxtyping(spec: str, good: tuple[int, ...], bad: tuple[int, ...] | None) -> None:
    """What jaxtyping accepts unifies with our reading (no false positive); what it rejects, on these
    cases, our reading rejects too (the forms are read, not merely tolerated)."""
    declared = parse_shape(spec, dim_axis)
    assert isinstance(declared, Shape), spec
    assert _jaxtyping_accepts(spec, good)
    assert unify(declared, Shape(good), Bindings(), "x") is None, (spec, good)
    if bad is not None:
        assert not _jaxtyping_accepts(spec, bad)
        assert unify(declared, Shape(bad), Bindings(), "x") is not None, (spec, bad)


@pytest.mark.parametrize("spec", ["b (h d)", "*a *b", "*4", "##a", "_4", "a...", "a,b", "?4", "(h"])
def test_strings_not_read_are_unknown(spec: str) -> None:
    assert parse_shape(spec, dim_axis) is UNKNOWN


@pytest.mark.parametrize("spec", ["{size}", "min(a,b)", "a/2", "a**2", "a%2"])
def test_expressions_outside_the_grammar_are_unknown_sizes(spec: str) -> None:
    assert parse_shape(f"n {spec}", dim_axis) == Shape((dim_axis("n"), UNKNOWN))


def test_names_outside_a_function_are_unknown() -> None:
    assert parse_shape("b *rest 3", lambda name: UNKNOWN, star_names=False) == \
        Shape((UNKNOWN,), Shape.unknown_rank().star, (3,))


# -- the switch ----------------------------------------------------------------------------------

TORCH_BUG = textwrap.dedent("""\
    import torch

    torch.randn(4, 5) @ torch.randn(4, 5)
""")


def test_torch_files_are_checked_by_default_and_the_switch_turns_it_off(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "prog.py").write_text(TORCH_BUG)
    assert main(["check", "--no-cache", str(tmp_path)]) == 1
    assert "[shape-matmul]" in capsys.readouterr().out
    assert main(["check", "--no-cache", "--no-torch", str(tmp_path)]) == 0
    capsys.readouterr()
    (tmp_path / "pyproject.toml").write_text("[tool.typedtensor]\ntorch = false\n")
    assert main(["check", "--no-cache", "--config", str(tmp_path / "pyproject.toml"), str(tmp_path)]) == 0


def test_torch_option_must_be_a_boolean(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.typedtensor]\ntorch = 'yes'\n")
    with pytest.raises(ConfigError, match="torch must be true or false"):
        load(tmp_path / "pyproject.toml")


def test_switching_off_drops_cached_results(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "prog.py").write_text(TORCH_BUG)
    cache = ["--cache-dir", str(tmp_path / ".cache")]
    assert main(["check", *cache, str(tmp_path)]) == 1
    assert main(["check", *cache, "--no-torch", str(tmp_path)]) == 0
    assert main(["check", *cache, str(tmp_path)]) == 1
    capsys.readouterr()


# -- torch programs as written read as their typedtensor ports ----------------------------------

PROGRAMS = HERE.parent / "programs"
PORTED = [
    "dcgan", "mingpt", "mnist", "mnist_rnn", "nanogpt", "time_sequence_prediction", "vae", "word_language_model",
    "regression", "siamese_network", "mnist_forward_forward", "super_resolution", "fast_neural_style",
    "reinforcement_learning", "standins/torchvision",
]
_BACK_TO_TORCH = [
    (re.compile(r"^import typedtensor as torch$", re.M), "import torch"),
    (re.compile(r"^(\s*)(import|from) typedtensor\b", re.M), r"\1\2 torch"),
    (re.compile(r"\btypedtensor\."), "torch."),
]


def _shapes(root: Path) -> list[str]:
    """Every report and ``--show-shapes`` note under ``root``."""
    result = run(Options([str(root)], show_shapes=True, use_cache=False, jobs=1, infer_all=True), Config(root=root))
    return sorted(f"{Path(r.path).relative_to(root)}:{r.line}: {r.severity} {r.code} {r.message}" for r in result.reports)


@pytest.mark.slow
def test_ported_programs_read_the_same_with_torch_imports(tmp_path: Path) -> None:
    """tests/programs holds public torch programs whose only change is ``typedtensor`` in place of
    ``torch`` in their imports. Put back as written, they must be read exactly as the ports are:
    every module, every shape the inference finds, and no report."""
    ported, original = tmp_path / "ported", tmp_path / "original"
    for name in PORTED:
        for src in (PROGRAMS / name).rglob("*.py"):
            rel = src.relative_to(PROGRAMS)
            text = src.read_text()
            (ported / rel).parent.mkdir(parents=True, exist_ok=True)
            (ported / rel).write_text(text)
            for pattern, repl in _BACK_TO_TORCH:
                text = pattern.sub(repl, text)
            assert not re.search(r"^\s*(import|from)\s+typedtensor", text, re.M), rel
            (original / rel).parent.mkdir(parents=True, exist_ok=True)
            (original / rel).write_text(text)
    got = _shapes(original)
    assert got == _shapes(ported)
    assert sum("Tensor[" in line for line in got) > 50  # the reading is not vacuous
    assert [line for line in got if ": note " not in line] == []
