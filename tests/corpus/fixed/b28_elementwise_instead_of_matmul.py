"""A truncated-SVD reconstruction written with ``*`` where matrix products were meant.

The fixed twin of ../bugs/b28_elementwise_instead_of_matmul.py.
Source: https://github.com/dynamicslab/databook_python/pull/2
"Change the element-wise multiply operator to the matrix multiply operator": the rank-r
approximation ``U[:, :r] * S[:r, :r] * VT[:r, :]`` broadcasts an ``m x r`` matrix against an
``r x r`` one, which fails (or, for a square image, silently computes something else). It is
``U[:, :r] @ S[:r, :r] @ VT[:r, :]``.
"""

from __future__ import annotations

from typing import Literal

import typedtensor as tt
from typedtensor import Tensor

Rows = Literal[60]
Cols = Literal[40]


def rank_r(u: Tensor[Rows, Rows], s: Tensor[Rows, Cols], vt: Tensor[Cols, Cols]) -> Tensor:
    r = 5
    return u[:, :r] @ s[:r, :r] @ vt[:r, :]


def main() -> None:
    rank_r(tt.randn(60, 60), tt.randn(60, 40), tt.randn(40, 40))
