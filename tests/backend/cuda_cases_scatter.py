"""Device sweep cases of the scatter-style ops of rules/scatter_more.py and index_put's function
forms (merged into cuda_cases.CASES; same conventions)."""

from __future__ import annotations

from typing import Any

import numpy as np

import typedtensor._runtime as tt

from .cuda_cases import Case, Mk, _index_put, data


def _i(*v: Any) -> np.ndarray:
    return np.array(v, np.int64)


def _index_put_forms(mk: Mk) -> Any:
    x = mk(data(4, 5))
    return (_index_put(mk), tt.index_put(x, (mk(_i(0, 3, 0)), mk(_i(1, 4, 1))), mk(data(3)), accumulate=True),
            x.index_put((mk(data(4, kind="b")),), mk(data(5))))


CASES: dict[str, Case] = {
    "scatter_reduce": lambda mk, dev: tuple(
        tt.scatter_reduce(mk(data(3, 4)), 0, mk(_i([0, 2, 2, 1], [0, 0, 2, 1])), mk(data(2, 4)), r,
                          include_self=r != "mean") for r in ("sum", "prod", "mean", "amax", "amin")),
    "index_reduce": lambda mk, dev: tuple(
        mk(data(3, 4)).index_reduce(1, mk(_i(2, 0, 2)), mk(data(3, 3)), r) for r in ("prod", "mean", "amax", "amin")),
    "index_put": lambda mk, dev: _index_put_forms(mk),
    "select_scatter": lambda mk, dev: tt.select_scatter(mk(data(3, 4)), mk(data(3)), 1, 2),
    "slice_scatter": lambda mk, dev: mk(data(5, 4)).slice_scatter(mk(data(2, 4)), 0, 1, None, 2),
    "diagonal_scatter": lambda mk, dev: tt.diagonal_scatter(mk(data(3, 4)), mk(data(3)), 1),
}
