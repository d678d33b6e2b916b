"""Batched matmul whose batch dims do not merge into one stride (attention heads split out of a
projection and transposed, broadcast batch dims, sliced storage): the leading batch dims are looped
over with a batched GEMM on views each step instead of copying the operands
(MatMul::eval_cpu in ops_linalg.cpp). Results and gradients against torch."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch

import typedtensor as tt


def _heads(lib: Any, t: Any, h: int) -> Any:
    b, s, d = t.shape
    return t.reshape(b, s, h, d // h).transpose(1, 2)


def _qk(lib: Any, qkv: Any) -> Any:  # [b, h, s, d] views with strides (s*3d, d/h, 3d, 1)
    q, k, _ = qkv.chunk(3, -1)
    return _heads(lib, q, 4) @ _heads(lib, k, 4).transpose(-2, -1)


def _pv(lib: Any, qkv: Any) -> Any:
    q, _, v = qkv.chunk(3, -1)
    p = _heads(lib, q, 4)[..., :5]  # [b, h, s, 5]: an [s, s] product of head views, then @ v's heads
    return (p @ p.transpose(-2, -1)) @ _heads(lib, v, 4)


def _broadcast(lib: Any, pair: tuple[Any, Any]) -> Any:  # [3, 1, m, k] @ [1, 5, k, n]
    a, b = pair
    return a[:, None] @ b[None]


def _expanded_middle(lib: Any, pair: tuple[Any, Any]) -> Any:  # a batch dim of stride 0 between two others
    a, b = pair
    return a.unsqueeze(1).expand(3, 4, 6, 7) @ b


def _sliced(lib: Any, pair: tuple[Any, Any]) -> Any:  # an offset view with a gap between batch rows
    a, b = pair
    return a[:, 1:3, :, :] @ b[:, 1:3, :, :]


CASES: dict[str, tuple[Callable[[Any, Any], Any], Callable[[np.random.Generator], Any]]] = {
    "heads q @ k^T": (_qk, lambda r: r.standard_normal((2, 9, 24))),
    "heads (q q^T) @ v": (_pv, lambda r: r.standard_normal((2, 9, 24))),
    "broadcast [3,1] x [1,5]": (_broadcast, lambda r: (r.standard_normal((3, 4, 6)), r.standard_normal((5, 6, 2)))),
    "stride-0 middle dim": (_expanded_middle, lambda r: (r.standard_normal((3, 6, 7)), r.standard_normal((3, 4, 7, 5)))),
    "sliced batch": (_sliced, lambda r: (r.standard_normal((2, 4, 5, 6)), r.standard_normal((2, 4, 6, 3)))),
}


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("threads", [1, 2])
def test_strided_batch_matmul_matches_torch(case: str, dtype: Any, threads: int) -> None:
    fn, make = CASES[case]
    arrays = make(np.random.default_rng(0))
    arrays = tuple(a.astype(dtype) for a in arrays) if isinstance(arrays, tuple) else arrays.astype(dtype)

    def wrap(lib: Any) -> Any:
        if isinstance(arrays, tuple):
            return tuple(lib.tensor(a, requires_grad=True) for a in arrays)
        return lib.tensor(arrays, requires_grad=True)

    ours, ref = wrap(tt), wrap(torch)
    prev = tt.get_num_threads()
    tt.set_num_threads(threads)
    try:
        out = fn(tt, ours)
        gn = np.random.default_rng(1).standard_normal(tuple(out.shape)).astype(dtype)
        out.backward(tt.tensor(gn))
    finally:
        tt.set_num_threads(prev)
    expect = fn(torch, ref)
    expect.backward(torch.tensor(gn))
    tol = 1e-4 if dtype == np.float32 else 1e-10
    np.testing.assert_allclose(out.detach().numpy(), expect.detach().numpy(), rtol=tol, atol=tol)
    for o, r in zip(ours if isinstance(ours, tuple) else (ours,), ref if isinstance(ref, tuple) else (ref,), strict=True):
        assert o.grad is not None and r.grad is not None
        np.testing.assert_allclose(o.grad.numpy(), r.grad.numpy(), rtol=tol, atol=tol)
