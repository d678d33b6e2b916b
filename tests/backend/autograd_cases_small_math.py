"""Gradient cases of the small torch functions (rules/small_math.py); merged into autograd_cases.CASES."""

from __future__ import annotations

from .autograd_cases import Case, Pos, c

CASES: dict[str, list[Case]] = {
    "H": [c(lambda L, a: a.H, (3, 4))],
    "mH": [c(lambda L, a: a.mH, (2, 3, 4))],
    "adjoint": [c(lambda L, a: L.t.adjoint(a), (2, 3, 4)), c(lambda L, a: a.adjoint(), (3, 2))],
    "fliplr": [c(lambda L, a: L.t.fliplr(a), (3, 4, 2))],
    "aminmax": [c(lambda L, a: L.t.stack(list(L.t.aminmax(a, dim=1))), (3, 4)),
                c(lambda L, a: a.aminmax().min - 2 * a.aminmax(keepdim=True).max, (3, 4))],
}
CASES.update({
    "vdot": [c(lambda L, a, b: L.t.vdot(a, b), (5,), (5,))],
    "ger": [c(lambda L, a, b: L.t.ger(a, b), (3,), (4,)), c(lambda L, a, b: a.ger(b), (2,), (3,))],
    "addr": [c(lambda L, a, b, d: L.t.addr(a, b, d, beta=0.5, alpha=2.0), (3, 4), (3,), (4,)),
             c(lambda L, a, b, d: a.addr(b, d), (4,), (3,), (4,))],
    "dist": [c(lambda L, a, b: L.t.dist(a, b), (3, 4), (4,)), c(lambda L, a, b: a.dist(b, 3.0), (3, 4), (3, 4)),
             c(lambda L, a, b: L.t.dist(a, b, 1.0), (2, 3), (2, 3))],
    "renorm": [c(lambda L, a: L.t.renorm(a, 2, 0, 0.5), (3, 4)), c(lambda L, a: a.renorm(1.5, 1, 1.0), (2, 3, 2))],
})
CASES.update({
    "sum_to_size": [c(lambda L, a: a.sum_to_size(3, 1), (2, 3, 4)), c(lambda L, a: a.sum_to_size((1, 4)), (3, 4))],
    "split_with_sizes": [c(lambda L, a: L.t.split_with_sizes(a, [1, 3], 1)[1] * 2, (2, 4)),
                         c(lambda L, a: a.split_with_sizes([2, 1])[0] * 2, (3, 2))],
    "frexp": [c(lambda L, a: L.t.frexp(a).mantissa, (3, 4)), c(lambda L, a: a.frexp()[0], Pos((5,)))],
    "ldexp": [c(lambda L, a: L.t.ldexp(a, L.t.tensor([[2.0], [-1.0], [0.0]], dtype=a.dtype)), (3, 4))],
})
