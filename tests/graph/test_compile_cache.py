"""tt.compile keeps a bounded cache of graphs (NOTE [ The compile cache ] in
typedtensor/graph/compiled.py): on main every new input shape added a graph, and its buffers, for
the life of the compiled function (+455 MB after 3,000 shapes)."""

from __future__ import annotations

import gc
import warnings
import weakref
from typing import Any

import numpy as np
import pytest

import typedtensor as tt
from typedtensor.graph import RecompileWarning


def _fn() -> Any:
    # no fusion pass: each new shape would compile a kernel with the C++ compiler (about a second)
    return tt.compile(lambda x: (x * 2.0 + 1.0).sum(0), passes=["simplify", "fold", "cse", "dce"], cache_limit=3)


def test_the_least_recently_used_graph_goes_first() -> None:
    cf = _fn()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RecompileWarning)
        for n in (1, 2, 3):
            cf(tt.ones(n, 4))
        cf(tt.ones(1, 4))  # 1 is now the most recent: 2 is the oldest
        assert cf.traces == 3 and cf.cache_size() == 3
        cf(tt.ones(4, 4))  # evicts 2
        assert cf.traces == 4 and cf.cache_size() == 3
        cf(tt.ones(1, 4))
        cf(tt.ones(3, 4))
        assert cf.traces == 4  # both still cached
        cf(tt.ones(2, 4))
        assert cf.traces == 5  # 2 was dropped, so it traces again
    out = cf(tt.ones(5, 4))
    np.testing.assert_allclose(out.numpy(), np.full(4, 15.0))


def test_a_recompile_storm_warns_once() -> None:
    cf = _fn()
    for n in (1, 2, 3):
        cf(tt.ones(n, 4))
    with pytest.warns(RecompileWarning, match="traced for 4 different input signatures"):
        cf(tt.ones(4, 4))
    with warnings.catch_warnings():
        warnings.simplefilter("error", RecompileWarning)
        for n in range(5, 12):
            cf(tt.ones(n, 4))
    assert cf.cache_size() == 3 and cf.traces == 11


def test_an_evicted_graph_is_freed() -> None:
    cf = _fn()
    cf(tt.ones(1, 4))
    first = weakref.ref(next(iter(cf._cache.values())).graph)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RecompileWarning)
        for n in range(2, 6):
            cf(tt.ones(n, 4))
    gc.collect()
    assert first() is None


def test_the_default_limit_and_its_validation() -> None:
    from typedtensor.graph import DEFAULT_CACHE_LIMIT

    assert tt.compile(lambda x: x).cache_limit == DEFAULT_CACHE_LIMIT == 8
    for bad in (0, -1, 1.5, True):
        with pytest.raises(ValueError, match="cache_limit"):
            tt.compile(lambda x: x, cache_limit=bad)
