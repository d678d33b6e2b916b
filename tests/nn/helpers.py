"""Helpers for the nn/optim tests: move weights between torch and typedtensor modules."""

from __future__ import annotations

from typing import Any

import numpy as np

import typedtensor as tt


def to_np(x: Any) -> np.ndarray:
    if isinstance(x, tt.Tensor):
        return np.asarray(x.detach().numpy(force=True) if x.ndim else x.item())
    if hasattr(x, "detach"):  # torch
        return np.asarray(x.detach().cpu().numpy())
    return np.asarray(x)


def to_tt(x: Any) -> Any:
    return tt.tensor(x.detach().cpu().numpy().copy())


def copy_from_torch(ours: tt.nn.Module, ref: Any) -> None:
    """Load torch's weights and buffers into ``ours`` by name (the names must agree)."""
    ours.load_state_dict({k: to_tt(v) for k, v in ref.state_dict().items()})


def has_autograd() -> bool:
    x = tt.ones(2, requires_grad=True)
    try:
        (x * 2).sum().backward()
    except Exception:
        return False
    return x.grad is not None


def close(ours: Any, ref: Any, rtol: float = 1e-5, atol: float = 1e-6) -> None:
    a, b = to_np(ours), to_np(ref)
    assert a.shape == b.shape, f"shape {a.shape} != {b.shape}"
    np.testing.assert_allclose(a.astype(np.float64), b.astype(np.float64), rtol=rtol, atol=atol)
