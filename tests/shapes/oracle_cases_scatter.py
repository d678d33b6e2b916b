"""Torch-oracle cases (see ``oracle_cases``) for the scatter-style ops of rules/scatter_more.py.
Imported at the end of ``oracle_cases``, into whose ``CASES`` it registers. Index tensors are
zeros (always in range): the rules judge shapes, never index values."""

from __future__ import annotations

from hypothesis import strategies as st
from oracle_cases import (  # type: ignore[import-not-found]
    POS_SIZE,
    Case,
    Draw,
    S,
    T,
    _index_shape,
    axis,
    case,
    shape,
    torch,
)

_REDUCES = st.sampled_from(["sum", "prod", "mean", "amax", "amin"])


@case("scatter_reduce")
def _scatter_reduce(draw: Draw) -> Case:
    s = shape(draw, sizes=POS_SIZE)
    d = axis(draw, len(s))
    idx = _index_shape(draw, s, d)
    src = tuple(max(n + draw(st.sampled_from([0, 0, 1, -1])), 1) for n in idx)
    reduce, inc = draw(_REDUCES), draw(st.booleans())
    return Case("", (S(s), d, S(idx), S(src), reduce), {"include_self": inc},
                lambda: torch.scatter_reduce(T(s), d, T(idx, "l"), T(src), reduce, include_self=inc))


@case("index_reduce")
def _index_reduce(draw: Draw) -> Case:
    s = shape(draw, lo=1, sizes=POS_SIZE)
    d = axis(draw, len(s))
    n = draw(st.integers(1, 3))
    idx = draw(st.sampled_from([(n,), (n,), (), (n, 1)]))
    src = list(s)
    if -len(s) <= d < len(s):
        src[d] = draw(st.sampled_from([n, n, n + 1])) if idx else 1
    if draw(st.integers(0, 5)) == 0:
        src = list(shape(draw, sizes=POS_SIZE))
    src_t = tuple(src)
    reduce = draw(st.sampled_from(["prod", "mean", "amax", "amin"]))
    return Case("", (S(s), d, S(idx), S(src_t), reduce), {},
                lambda: torch.index_reduce(T(s), d, torch.zeros(idx, dtype=torch.long), T(src_t), reduce))


def _perturbed(draw: Draw, dims: tuple[int, ...]) -> tuple[int, ...]:
    """Mostly ``dims``; sometimes one size off, or a dim more or fewer."""
    pick = draw(st.integers(0, 5))
    if pick == 0 and dims:
        k = draw(st.integers(0, len(dims) - 1))
        return tuple(n + 1 if i == k else n for i, n in enumerate(dims))
    if pick == 1:
        return dims[1:] if dims else (1,)
    return dims


@case("select_scatter")
def _select_scatter(draw: Draw) -> Case:
    s = shape(draw, lo=0)
    d, i = axis(draw, len(s)), draw(st.integers(-3, 3))
    kept = tuple(n for k, n in enumerate(s) if k != d % max(len(s), 1))
    src = _perturbed(draw, kept)
    return Case("", (S(s), S(src), d, i), {}, lambda: torch.select_scatter(T(s), T(src), d, i))


@case("slice_scatter")
def _slice_scatter(draw: Draw) -> Case:
    s = shape(draw, lo=0)
    d = axis(draw, len(s))
    start = draw(st.one_of(st.none(), st.integers(-5, 5)))
    end = draw(st.one_of(st.none(), st.integers(-5, 5)))
    step = draw(st.integers(0, 3))
    src_dims = list(s)
    if s and -len(s) <= d < len(s):
        src_dims[d] = len(range(*slice(start, end, max(step, 1)).indices(s[d])))
    src = _perturbed(draw, tuple(src_dims))
    return Case("", (S(s), S(src), d, start, end, step), {},
                lambda: torch.slice_scatter(T(s), T(src), d, start, end, step))


@case("diagonal_scatter")
def _diagonal_scatter(draw: Draw) -> Case:
    s = shape(draw)
    off = draw(st.integers(-3, 3))
    a, b = axis(draw, len(s)), axis(draw, len(s))
    try:
        diag = tuple(torch.zeros(s).diagonal(off, a, b).shape)
    except (IndexError, RuntimeError):
        diag = (1,)
    src = _perturbed(draw, diag)
    return Case("", (S(s), S(src), off, a, b), {}, lambda: torch.diagonal_scatter(T(s), T(src), off, a, b))
