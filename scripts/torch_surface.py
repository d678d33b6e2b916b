"""Compare torch's public surface with typedtensor's and write what is left as a table.

    python scripts/torch_surface.py           # rewrite docs/torch-differences.md
    python scripts/torch_surface.py --check   # exit 1 when the file is stale (tests/test_torch_surface.py)

The surfaces are the public names (no leading underscore) of ``torch`` / ``typedtensor``,
``torch.Tensor`` / ``typedtensor.Tensor``, ``torch.nn.functional`` / ``typedtensor.nn.functional``
and ``torch.nn`` / ``typedtensor.nn``, as the installed torch (the test oracle, 2.13.0) lists them.
Every torch name typedtensor lacks gets a reason: the rules in ``REASONS`` (first match wins) say
which families are out of scope and why (sparse and quantized layouts, complex numbers, FFTs,
named tensors, other backends' kernels, torch's internals); what no rule covers is "not yet".

Each row carries how often the name occurs in the torch programs ported under ``tests/programs/``
(pytorch/examples and minGPT, read as ``torch.X``, ``F.X``, ``nn.X`` and ``.X(``): the rows a
training program is likeliest to hit come first.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "torch-differences.md"
PROGRAMS = ROOT / "tests" / "programs"

# (pattern on the bare name, reason): the first that matches explains why a name is absent
REASONS: list[tuple[str, str]] = [
    (r"sparse|_coo|coo_|csr|csc|bsr|bsc|to_dense|indices$|^values$|crow_|ccol_|row_indices|col_indices|"
     r"coalesce|sspaddmm|smm$|hspmm|saddmm|dense_dim|_nnz|^nnz",
     "out of scope: sparse layouts (typedtensor tensors are dense and strided)"),
    (r"quantiz|^q_|qscheme|int_repr|fbgemm|qint|quint|per_channel|per_tensor|^dequantize|fake_quant|"
     r"quantized_|choose_qparams|^qr_|_qparams",
     "out of scope: quantized tensors"),
    (r"complex|conj|^real$|^imag$|angle|polar|view_as_real|view_as_complex|resolve_neg|is_neg|cfloat|cdouble|"
     r"chalf|^sgn",
     "out of scope: complex numbers"),
    (r"fft|stft|istft|window$|^bartlett|^blackman|^hamming|^hann|^kaiser",
     "out of scope: FFTs and spectral windows"),
    (r"^refine_names|^rename|^align_to|^align_as|^names$|has_names|^unflatten_dense",
     "out of scope: named tensors (typedtensor names dims in the type annotations instead)"),
    (r"cudnn|miopen|mkldnn|mps|xpu|hpu|ipu|xla|vulkan|mtia|maia|privateuse|^nnpack|^fbgemm|^onednn|"
     r"^cpp$|^cuda$|^backends$|is_vulkan_available|^use_deterministic|deterministic|^mkl|^openmp",
     "out of scope: other backends' kernels and settings"),
    (r"storage|^share_memory|data_ptr|^set_$|^untyped|^_|^is_shared|^pin_memory|is_pinned|^record_stream|"
     r"^map_$|^map2_|^apply_$|^resize_as_|^resize_$|^as_strided|^new$|^is_set_to|^storage_offset|^stride$",
     "out of scope: torch's storage internals"),
    (r"^jit$|^fx$|^export$|^package$|^compiler$|^_dynamo|^library$|^overrides$|^testing$|^hub$|^profiler$|"
     r"^ao$|^masked$|^nested$|^special$|^func$|^futures$|^monitor$|^signal$|^sparse$|^quantization$|"
     r"^utils$|^onnx$|^distributions$|^random$|^types$|^version$|^return_types$|^serialization$|"
     r"^__config__|^amp$|^autocast|^cpu$|^mtia$|^xpu$|^mps$|^backends$|^functional$|^storage$|^contrib$|"
     r"^overrides|^multiprocessing$|^distributed$|^accelerator$|^linalg$|^optim$|^nn$|^autograd$|^fft$",
     "a submodule of torch (its own surface, compared separately where typedtensor has one)"),
    (r"^is_|^can_cast$|^promote_types$|^result_type$|^typename$|^get_default|^set_default|^set_printoptions|"
     r"^set_flush_denormal|^set_warn_always|^is_warn_always|^get_device$|^set_float32_matmul|"
     r"^get_float32_matmul|^compile$|^vmap$|^cond$|^while_loop$|^sym_|^Sym|^guard|^manual_seed|^seed$|"
     r"^get_rng|^set_rng|^initial_seed|^default_generator|^use_|^are_deterministic",
     "a setting, predicate or compiler entry point of torch's runtime, not an op"),
    (r"_$",
     "the in-place form of an op typedtensor has only out of place (or lacks)"),
]

SKIP_TYPES = ("module",)


def public(names: list[str]) -> set[str]:
    return {n for n in names if not n.startswith("_")}


def surfaces() -> list[tuple[str, set[str], set[str]]]:
    import torch
    import torch.nn.functional as torch_F

    import typedtensor as tt
    import typedtensor.nn as tt_nn
    import typedtensor.nn.functional as tt_F

    def names(mod: Any) -> set[str]:
        return {n for n in public(dir(mod)) if type(getattr(mod, n, None)).__name__ not in SKIP_TYPES}

    return [
        ("torch", names(torch), public(dir(tt))),
        ("Tensor", public(dir(torch.Tensor)), public(dir(tt.Tensor))),
        ("nn.functional", names(torch_F), public(dir(tt_F))),
        ("nn", names(torch.nn), public(dir(tt_nn))),
    ]


def usage() -> Counter[str]:
    """How often each name occurs in the ported programs, by the form it is used in."""
    counts: Counter[str] = Counter()
    for path in sorted(PROGRAMS.rglob("*.py")):
        if "standins" in path.parts or path.name.startswith("test_") or path.name == "harness.py":
            continue
        text = path.read_text(encoding="utf-8")
        for prefix, where in (("torch", "torch"), ("F", "nn.functional"), ("nn", "nn")):
            for m in re.finditer(rf"\b{prefix}\.([A-Za-z_][A-Za-z0-9_]*)", text):
                counts[f"{where}.{m.group(1)}"] += 1
        for m in re.finditer(r"\.([A-Za-z_][A-Za-z0-9_]*)\(", text):
            counts[f"Tensor.{m.group(1)}"] += 1
    return counts


def reason(name: str) -> str:
    for pattern, why in REASONS:
        if re.search(pattern, name):
            return why
    return "not yet"


def render() -> str:
    import torch

    counts = usage()
    rows: list[tuple[int, str, str, str]] = []
    totals: list[str] = []
    for where, theirs, ours in surfaces():
        missing = sorted(theirs - ours)
        totals.append(f"| `{where}` | {len(theirs)} | {len(theirs & ours)} | {len(missing)} |")
        for n in missing:
            rows.append((counts.get(f"{where}.{n}", 0), where, n, reason(n)))
    rows.sort(key=lambda r: (r[3] != "not yet", -r[0], r[1], r[2]))
    by_reason: Counter[str] = Counter(r[3] for r in rows)
    out = [
        "<!-- @generated by scripts/torch_surface.py: do not edit (python scripts/torch_surface.py) -->",
        "",
        "# torch names typedtensor does not have",
        "",
        f"The public names of torch {torch.__version__.split('+')[0]} (`torch`, `torch.Tensor`, "
        "`torch.nn.functional`, `torch.nn`) compared with typedtensor's, and a reason for each one "
        "typedtensor lacks. *Uses* counts the name in the torch programs ported under `tests/programs/` "
        "(pytorch/examples, minGPT): the names a training program is likeliest to meet come first. "
        "The reasons come from the rules in `scripts/torch_surface.py`; \"not yet\" is everything no "
        "rule puts out of scope.",
        "",
        "| surface | torch names | in typedtensor | missing |",
        "| --- | --- | --- | --- |",
        *totals,
        "",
        "| reason | names |",
        "| --- | --- |",
        *(f"| {why} | {n} |" for why, n in sorted(by_reason.items(), key=lambda kv: (-kv[1], kv[0]))),
        "",
        "| name | uses | reason |",
        "| --- | --- | --- |",
        *(f"| `{where}.{n}` | {c} | {why} |" for c, where, n, why in rows),
        "",
    ]
    return "\n".join(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when docs/torch-differences.md is stale")
    args = parser.parse_args()
    text = render()
    if args.check:
        current = OUT.read_text(encoding="utf-8") if OUT.exists() else ""
        if current != text:
            print(f"{OUT.relative_to(ROOT)} is stale: run python scripts/torch_surface.py", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
