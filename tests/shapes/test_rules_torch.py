"""Every registry rule against torch as the oracle (see ``oracle_cases`` for the contract).

Deliberate differences from torch (DESIGN §3) are listed in ``oracle_cases.DELIBERATE`` and asserted:
where one applies, the rule must return an Issue although torch accepts the call.

| key | typedtensor | torch |
| --- | --- | --- |
| loss-broadcast | mse/l1/smooth_l1/huber loss: input and target shapes equal, else `shape-arg` | broadcasts with a warning |
| dropout2d-rank | `shape-rank` unless the input is 3-d or 4-d | warns, guesses |
| pool-rank | adaptive_avg_pool2d: `shape-rank` unless 3-d or 4-d | accepts some 2-d/5-d inputs |
| cumulative-extreme-empty | cummax / cummin: out-of-range `dim` is `shape-axis` | an empty tensor returns before the check |
| roll-empty | out-of-range `dims` is `shape-axis` | an empty tensor returns before the check |
| expand-leading-minus-one | -1 for a new leading dim is an Issue | unchecked when another size is 0 |
| circular-pad-wraps-cropped | circular pad wrapping more than once around what negative padding keeps is `shape-arg` | returns uninitialised memory |
| cholesky-empty | `torch.cholesky` of an empty non-square matrix is `shape-arg` | the deprecated spelling returns it |
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))
import oracle_cases as oc  # noqa: E402

from typedtensor.shapes import UNKNOWN, Issue, all_modules, all_ops, apply  # noqa: E402

EXAMPLES = 25
ALL_NAMES = sorted(oc.CASES) + sorted(oc.MODULE_CASES)


def test_every_op_and_module_has_an_oracle_case() -> None:
    ops, mods = oc.uncovered()
    assert not ops, f"registry ops without a torch-oracle case (add one, or a justified SKIP entry): {ops}"
    assert not mods, f"modules without a torch-oracle case: {mods}"
    assert set(oc.SKIP) <= set(all_ops()), "SKIP names an op that is not registered"
    assert not set(oc.SKIP) & set(oc.CASES)
    assert set(oc.MODULE_CASES) == set(all_modules())


@pytest.mark.parametrize("name", sorted(oc.SKIP))
def test_skipped_ops_are_unknown_never_an_issue(name: str) -> None:
    op = all_ops()[name]
    args: list[Any] = [UNKNOWN for p in op.params if p.default is not None and not p.keyword_only and not p.variadic]
    result = apply(name, args[:1] if name != "cuda" else [oc.S((2, 3))])
    assert not isinstance(result, Issue)


@pytest.mark.parametrize("name", ALL_NAMES)
def test_rule_agrees_with_torch(name: str) -> None:
    @settings(max_examples=EXAMPLES, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(st.data())
    def run(data: st.DataObject) -> None:
        c = oc.draw_any(name, data.draw)
        problem = oc.check(c)
        assert problem is None, problem

    run()


@pytest.mark.parametrize("key", sorted(oc.DELIBERATE))
def test_deliberate_differences_are_documented(key: str) -> None:
    assert key in (__doc__ or ""), f"deliberate difference {key!r} missing from the table above"


def test_mse_loss_requires_equal_shapes_where_torch_broadcasts() -> None:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = torch.nn.functional.mse_loss(torch.zeros(4, 1), torch.zeros(4), reduction="none")
    assert tuple(got.shape) == (4, 4)  # what torch silently does
    r = apply("mse_loss", [oc.S((4, 1)), oc.S((4,))], {"reduction": "none"})
    assert isinstance(r, Issue) and r.code == "shape-arg"
    assert "same shape" in r.message
