"""Sample invocations of the scatter-style ops of rules/scatter_more.py and index_put (merged into
autograd_cases.CASES; same conventions). torch's scatter_reduce backward needs ``src`` shaped as the
index, so the cases give it that shape; repeated indices make groups of several values."""

from __future__ import annotations

from typing import Any

from .autograd_cases import Case, Pos, c


def _idx(L: Any, rows: list[list[int]]) -> Any:
    return L.t.tensor(rows)


def _reduce(reduce: str, include_self: bool) -> Case:
    return c(lambda L, x, s: L.t.scatter_reduce(x, 0, _idx(L, [[0, 2, 2, 1], [0, 0, 2, 1], [0, 1, 2, 1]]), s, reduce,
                                                include_self=include_self), (3, 4), (3, 4))


CASES: dict[str, list[Case]] = {
    "scatter_reduce": [_reduce(r, True) for r in ("sum", "prod", "mean", "amax", "amin")]
    + [_reduce(r, False) for r in ("sum", "mean", "amax")]
    + [c(lambda L, x, s: x.scatter_reduce(1, _idx(L, [[3, 3], [0, 3]]), s, "prod", include_self=False), Pos((2, 4)),
         Pos((2, 2)))],
    "index_reduce": [c(lambda L, x, s, r=r, inc=inc: x.index_reduce(1, L.t.tensor([2, 0, 2]), s, r, include_self=inc),
                       (3, 4), (3, 3)) for r, inc in (("prod", True), ("mean", True), ("amax", True), ("amin", False),
                                                      ("mean", False))],
    "index_put": [c(lambda L, x, v: L.t.index_put(x, (L.t.tensor([0, 2, 0]), L.t.tensor([1, 3, 1])), v,
                                                  accumulate=True), (3, 4), (3,)),
                  c(lambda L, x, v: x.index_put((L.t.tensor([2, 0]),), v), (3, 4), (4,))],
    "select_scatter": [c(lambda L, x, s: L.t.select_scatter(x, s, 1, -2), (3, 4), (3,))],
    "slice_scatter": [c(lambda L, x, s: L.t.slice_scatter(x, s, 1, 1, None, 2), (3, 4), (3, 2)),
                      c(lambda L, x, s: x.slice_scatter(s, start=-2), (3, 4), (2, 4))],
    "diagonal_scatter": [c(lambda L, x, s: L.t.diagonal_scatter(x, s, 1), (3, 4), (3,)),
                         c(lambda L, x, s: x.diagonal_scatter(s, -1, 2, 0), (3, 2, 4), (2, 3))],
}
