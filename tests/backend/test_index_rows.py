"""gather/scatter along the last dim of contiguous tensors take a row fast path (NOTE [ Row fast
path of gather/scatter ] in backend/src/cpu/index.cpp); it must agree with torch, like the general
path it bypasses, including duplicate indices (scatter_add accumulates, scatter keeps the last)."""

from __future__ import annotations

import numpy as np
import pytest

import typedtensor._runtime as tt
from tests.backend.helpers import assert_close

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("shape", [(7,), (3, 5), (2, 3, 9), (4, 1)])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
@pytest.mark.parametrize("contiguous", [True, False])
def test_gather_scatter_last_dim_match_torch(shape: tuple[int, ...], dtype: str, contiguous: bool) -> None:
    rng = np.random.default_rng(0)
    data = (rng.standard_normal(shape) * 10).astype(dtype)
    n = 4
    idx = rng.integers(0, shape[-1], (*shape[:-1], n))  # duplicates included
    src = (rng.standard_normal(idx.shape) * 10).astype(dtype)
    d, i, s = tt.tensor(data), tt.tensor(idx), tt.tensor(src)
    D, ix, S = torch.tensor(data), torch.tensor(idx), torch.tensor(src)
    if not contiguous and len(shape) > 1:  # a transposed view takes the general path
        d, D = d.transpose(0, -1).contiguous().transpose(0, -1), D.transpose(0, -1).contiguous().transpose(0, -1)
    assert_close(d.gather(-1, i), D.gather(-1, ix))
    assert_close(d.scatter_add(-1, i, s), D.scatter_add(-1, ix, S))
    uniq = np.argsort(rng.random((*shape[:-1], shape[-1])), -1)[..., : min(n, shape[-1])]
    su = src[..., : uniq.shape[-1]].copy()
    assert_close(d.scatter(-1, tt.tensor(uniq), tt.tensor(su)), D.scatter(-1, torch.tensor(uniq), torch.tensor(su)))


def test_max_pool_gradient_matches_torch() -> None:
    x = np.random.default_rng(1).standard_normal((2, 3, 9, 8)).astype(np.float32)
    a, b = tt.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    tt.max_pool2d(a, 3, 2, 1).sum().backward()
    torch.nn.functional.max_pool2d(b, 3, 2, 1).sum().backward()
    assert_close(a.grad, b.grad)
