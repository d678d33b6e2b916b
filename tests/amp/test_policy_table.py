"""The op table's CPU autocast policies (NOTE [ Autocast policy ]) against torch 2.13's observed ones.

Every op that has a torch-oracle case (tests/shapes/oracle_cases.py) runs in torch under
``torch.autocast("cpu", dtype=torch.bfloat16)``: on float32 inputs an op torch lowers gives a
bfloat16 result it does not give without autocast; on bfloat16 inputs an op torch runs in float32
gives float32 where it would otherwise give bfloat16. The table must say ``lower`` / ``float32``
for exactly those ops (``promote`` and no policy are alike on inputs of one dtype).
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "shapes"))
import oracle_cases as oc  # noqa: E402

from typedtensor.shapes import all_ops  # noqa: E402

NAMES = sorted(n for n in oc.CASES if n in all_ops())
_T = oc.T


def _bf16_T(dims: tuple[int, ...], kind: str = "f") -> Any:
    t = _T(dims, kind)
    return t.bfloat16() if t.is_floating_point() else t


def _float_dtypes(out: Any) -> list[Any]:
    if isinstance(out, torch.Tensor):
        return [out.dtype] if out.is_floating_point() else []
    if isinstance(out, (tuple, list)):
        return [d for o in out for d in _float_dtypes(o)]
    return []


def _run(c: oc.Case, bf16_inputs: bool, autocast: bool) -> list[Any] | None:
    """The float result dtypes of the case's torch call (None when torch raises)."""
    oc.T = _bf16_T if bf16_inputs else _T  # the cases build their tensors through oc.T when called
    torch.manual_seed(0)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with torch.autocast("cpu", dtype=torch.bfloat16, enabled=autocast):
                return _float_dtypes(c.torch_fn())
    except Exception:
        return None
    finally:
        oc.T = _T


def observed_policy(name: str) -> str | None:
    seen: dict[str, bool] = {"lower": False, "float32": False}

    @settings(max_examples=8, deadline=None, database=None, derandomize=True, suppress_health_check=list(HealthCheck))
    @given(st.data())
    def run(data: st.DataObject) -> None:
        c = oc.draw_any(name, data.draw)
        on, off = _run(c, False, True), _run(c, False, False)
        if on and off and torch.bfloat16 in on and torch.bfloat16 not in off:
            seen["lower"] = True
        on, off = _run(c, True, True), _run(c, True, False)
        if on and off and torch.float32 in on and torch.float32 not in off:
            seen["float32"] = True

    run()
    assert not (seen["lower"] and seen["float32"]), name
    return "lower" if seen["lower"] else "float32" if seen["float32"] else None


@pytest.mark.parametrize("name", NAMES)
def test_cpu_policy_matches_torch(name: str) -> None:
    policy = all_ops()[name].autocast
    ours = policy.cpu if policy is not None else None
    if ours == "promote":
        ours = None  # indistinguishable on inputs of one dtype
    assert ours == observed_policy(name), f"{name}: the table's CPU autocast policy is {ours!r}"
