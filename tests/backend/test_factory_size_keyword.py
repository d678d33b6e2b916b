"""``zeros``/``ones``/``empty``/``rand``/``randn`` take their sizes as ``f(2, 3)``, ``f((2, 3))`` or
``f(size=(2, 3))``, as torch's do (gat-style code writes ``torch.empty(size=(in_features, out))``)."""

from __future__ import annotations

import pytest

import typedtensor as tt

torch = pytest.importorskip("torch")

FACTORIES = ["zeros", "ones", "empty", "rand", "randn"]


@pytest.mark.parametrize("name", FACTORIES)
def test_size_keyword_matches_torch(name: str) -> None:
    for size in ((2, 3), [4], (), (0, 5)):
        ours = getattr(tt, name)(size=size, dtype=tt.float64)
        theirs = getattr(torch, name)(size=size, dtype=torch.float64)
        assert tuple(ours.shape) == tuple(theirs.shape)
        assert ours.dtype == tt.float64
    if name in ("zeros", "ones"):
        assert tt.allclose(getattr(tt, name)(size=(2, 2)), getattr(tt, name)(2, 2))


@pytest.mark.parametrize("name", FACTORIES)
def test_sizes_given_twice_are_refused_like_torch(name: str) -> None:
    with pytest.raises(TypeError):
        getattr(torch, name)(2, size=(2,))
    with pytest.raises(TypeError, match="multiple values for argument 'size'"):
        getattr(tt, name)(2, size=(2,))


def test_size_keyword_keeps_requires_grad_and_generator() -> None:
    assert tt.zeros(size=(2,), requires_grad=True).requires_grad
    g1, g2 = tt.Generator().manual_seed(3), tt.Generator().manual_seed(3)
    assert tt.equal(tt.randn(size=(4,), generator=g1), tt.randn(4, generator=g2))
