"""``typedtensor check --explain CODE``: what a code means, a failing example and its fix."""

from __future__ import annotations

import functools
from dataclasses import dataclass


@dataclass(frozen=True)
class Explanation:
    summary: str
    detail: str
    bad: str
    good: str


_HEAD = "import typedtensor as tt\nfrom typedtensor import Dim, Tensor\n\nclass Batch(Dim): ...\nclass In(Dim): ...\nclass Out(Dim): ...\n\n"


@functools.cache
def explanations() -> dict[str, Explanation]:
    """Every code's explanation. Built on first use: the shape codes' summaries come from the
    registry's ``CODES``, and a warm run that prints no SARIF never loads the calculus."""
    from typedtensor.shapes.issue import CODES

    return {
        "shape-matmul": Explanation(
            CODES["shape-matmul"],
            "The last dim of the left operand must equal the second-to-last dim of the right one "
            "(for 1-d operands, the only dim), and the batch dims must broadcast. Two different named "
            "dims never match, even when their sizes agree at run time: that is the transposed-weight bug.",
            _HEAD + "def f(x: Tensor[Batch, In], w: Tensor[Out, In]) -> Tensor[Batch, Out]:\n    return x @ w\n",
            _HEAD + "def f(x: Tensor[Batch, In], w: Tensor[In, Out]) -> Tensor[Batch, Out]:\n    return x @ w\n",
        ),
        "shape-broadcast": Explanation(
            CODES["shape-broadcast"],
            "Elementwise operations align shapes from the right; each pair of dims must be equal or "
            "one of them Literal[1].",
            _HEAD + "def f(x: Tensor[Batch, In], b: Tensor[Out]) -> None:\n    y = x + b\n",
            _HEAD + "def f(x: Tensor[Batch, In], b: Tensor[In]) -> None:\n    y = x + b\n",
        ),
        "shape-arg": Explanation(
            CODES["shape-arg"],
            "After binding the callee's type variables from the earlier arguments, an argument's shape "
            "differs from its parameter's declared shape (or an nn module gets an input of the wrong "
            "feature size).",
            _HEAD + "def enc(x: Tensor[Batch, In]) -> Tensor[Batch, Out]: ...\n\n"
            "def f(y: Tensor[Batch, Out]) -> None:\n    enc(y)\n",
            _HEAD + "def enc(x: Tensor[Batch, In]) -> Tensor[Batch, Out]: ...\n\n"
            "def f(y: Tensor[Batch, In]) -> None:\n    enc(y)\n",
        ),
        "shape-return": Explanation(
            CODES["shape-return"],
            "The shape inferred for a `return` expression differs from the function's declared result.",
            _HEAD + "def f(x: Tensor[Batch, In]) -> Tensor[In, Batch]:\n    return x\n",
            _HEAD + "def f(x: Tensor[Batch, In]) -> Tensor[In, Batch]:\n    return x.transpose(0, 1)\n",
        ),
        "shape-assign": Explanation(
            CODES["shape-assign"],
            "A name or attribute declared `Tensor[...]` is assigned a tensor of another shape.",
            _HEAD + "def f(x: Tensor[Batch, In]) -> None:\n    y: Tensor[In, Batch] = x\n",
            _HEAD + "def f(x: Tensor[Batch, In]) -> None:\n    y: Tensor[In, Batch] = x.T\n",
        ),
        "shape-reshape": Explanation(
            CODES["shape-reshape"],
            "The product of the new sizes provably differs from the product of the old ones.",
            "import typedtensor as tt\n\nx = tt.zeros(2, 6)\ny = x.reshape(5, 2)\n",
            "import typedtensor as tt\n\nx = tt.zeros(2, 6)\ny = x.reshape(3, 4)\n",
        ),
        "shape-axis": Explanation(
            CODES["shape-axis"],
            "A `dim=` argument, a permutation or an index has more axes than the tensor.",
            "import typedtensor as tt\n\nx = tt.zeros(2, 3)\ny = x.sum(dim=2)\n",
            "import typedtensor as tt\n\nx = tt.zeros(2, 3)\ny = x.sum(dim=1)\n",
        ),
        "shape-rank": Explanation(
            CODES["shape-rank"],
            "For example conv2d and max_pool2d take a 3-d or 4-d input; dropout2d takes 3-d or 4-d.",
            "import typedtensor as tt\nfrom typedtensor.nn import functional as F\n\nx = tt.rand(28, 28)\n"
            "w = tt.rand(8, 1, 3, 3)\ny = F.conv2d(x, w)\n",
            "import typedtensor as tt\nfrom typedtensor.nn import functional as F\n\nx = tt.rand(32, 1, 28, 28)\n"
            "w = tt.rand(8, 1, 3, 3)\ny = F.conv2d(x, w)\n",
        ),
        "shape-concat": Explanation(
            CODES["shape-concat"],
            "`cat` joins along one dim: all other dims must agree. `stack` needs equal shapes.",
            _HEAD + "def f(x: Tensor[Batch, In], y: Tensor[Batch, Out]) -> None:\n    tt.cat([x, y], dim=0)\n",
            _HEAD + "def f(x: Tensor[Batch, In], y: Tensor[Batch, Out]) -> None:\n    tt.cat([x, y], dim=1)\n",
        ),
        "syntax": Explanation(
            "the file does not parse",
            "The file is reported once at the parser's position and not checked further; the other "
            "files are still checked.",
            "def f(:\n    pass\n",
            "def f():\n    pass\n",
        ),
        "view-noncontiguous": Explanation(
            "view on a tensor that is not contiguous in memory (torch raises at run time)",
            "After transpose, permute, .T, .mT, t() or expand a tensor's dims are no longer laid out one "
            "after another, and view cannot merge or split dims across such a break. Call .contiguous() "
            "first, or use reshape (which copies when it must). A lint beyond shape equality: its own "
            "code, so `disable = [\"view-noncontiguous\"]` (or --disable view-noncontiguous) turns it off.",
            _HEAD + "def merge(y: Tensor[Batch, In, Out]) -> None:\n    y.transpose(1, 2).view(y.shape[0], -1)\n",
            _HEAD + "def merge(y: Tensor[Batch, In, Out]) -> None:\n    y.transpose(1, 2).contiguous().view(y.shape[0], -1)\n",
        ),
        "squeeze-no-dim": Explanation(
            "squeeze() without a dim on a tensor with a symbolic dim that may be 1 (a warning)",
            "squeeze() drops every dim of size 1, so a batch of one loses its batch dim too and the "
            "next op sees another rank. Name the dim to squeeze. A lint beyond shape equality: "
            "`disable = [\"squeeze-no-dim\"]` (or --disable squeeze-no-dim) turns it off.",
            _HEAD + "def pooled(x: Tensor[Batch, In]) -> None:\n    y = x.unsqueeze(-1).squeeze()\n",
            _HEAD + "def pooled(x: Tensor[Batch, In]) -> None:\n    y = x.unsqueeze(-1).squeeze(-1)\n",
        ),
        "internal-error": Explanation(
            "the checker failed on this file (a bug in the checker: please report it)",
            "The checker never crashes the run: it reports the file with this code, checks the rest, "
            "and exits with status 2.",
            "",
            "",
        ),
        "reveal": Explanation(
            "reveal_shape(x): a note with the inferred shape of x",
            "`reveal_shape(x)` (like mypy's reveal_type) prints the shape the checker inferred.",
            "",
            "",
        ),
        "show-shape": Explanation(
            "--show-shapes: a note with the inferred shape of an assigned name",
            "With --show-shapes every assignment of a tensor or a size prints its inferred shape.",
            "",
            "",
        ),
    }


def explain(code: str) -> str | None:
    info = explanations().get(code)
    if info is None:
        return None
    out = [f"{code}: {info.summary}", "", info.detail]
    if info.bad:
        out += ["", "Reported:", "", *("    " + line for line in info.bad.splitlines())]
    if info.good:
        out += ["", "Fixed:", "", *("    " + line for line in info.good.splitlines())]
    out += ["", f"Silence one line with `# type: ignore[{code}]` or `# typedtensor: ignore[{code}]`."]
    return "\n".join(out) + "\n"
