"""Device sweep cases of the small torch functions (rules/small_math.py); merged into cuda_cases.CASES."""

from __future__ import annotations

import numpy as np

import typedtensor._runtime as tt

from .cuda_cases import Case, data

_SPECIAL = np.array([1.0, np.inf, -np.inf, np.nan, 0.0, -2.0], np.float32)

CASES: dict[str, Case] = {
    "H": lambda mk, dev: mk(data(3, 4)).H + 0,
    "mH": lambda mk, dev: mk(data(2, 3, 4)).mH + 0,
    "adjoint": lambda mk, dev: tt.adjoint(mk(data(2, 3, 4))) + 0,
    "fliplr": lambda mk, dev: tt.fliplr(mk(data(3, 4, 2))),
    "aminmax": lambda mk, dev: (tt.aminmax(mk(data(3, 5)), dim=1), mk(data(4, 2)).aminmax()),
    "argwhere": lambda mk, dev: tt.argwhere(mk(data(3, 4, kind="b"))),
    "isposinf": lambda mk, dev: tt.isposinf(mk(_SPECIAL)),
    "isneginf": lambda mk, dev: mk(_SPECIAL).isneginf(),
    "isreal": lambda mk, dev: tt.isreal(mk(_SPECIAL)),
}
CASES.update({
    "vdot": lambda mk, dev: tt.vdot(mk(data(5)), mk(data(5))),
    "ger": lambda mk, dev: tt.ger(mk(data(3)), mk(data(4))),
    "addr": lambda mk, dev: tt.addr(mk(data(3, 4)), mk(data(3)), mk(data(4)), beta=0.5, alpha=2.0),
    "dist": lambda mk, dev: (tt.dist(mk(data(3, 4)), mk(data(4))), tt.dist(mk(data(3)), mk(data(3)), float("inf"))),
    "renorm": lambda mk, dev: tt.renorm(mk(data(3, 4)), 2, 0, 0.5),
})
CASES.update({
    "sum_to_size": lambda mk, dev: mk(data(2, 3, 4)).sum_to_size(3, 1),
    "split_with_sizes": lambda mk, dev: tt.split_with_sizes(mk(data(3, 5)), [2, 0, 3], 1),
    "frexp": lambda mk, dev: tt.frexp(mk(data(3, 4))),
    "ldexp": lambda mk, dev: tt.ldexp(mk(data(3, 4)), mk(np.array([2.0, -1.0, 0.0, 3.0], np.float32))),
    "gcd": lambda mk, dev: tt.gcd(mk(np.array([0, 12, -18, 7], np.int64)), mk(np.array([[0], [8]], np.int64))),
    "lcm": lambda mk, dev: tt.lcm(mk(np.array([0, 12, -18, 7], np.int64)), mk(np.array([4, 8, 12, -21], np.int64))),
})
