"""Shared helpers: compare typedtensor results with torch / numpy oracles."""

from __future__ import annotations

from typing import Any

import numpy as np

import typedtensor._runtime as tt

DTYPES = ["float32", "float64", "int64", "int32", "bool"]


def to_np(x: Any) -> Any:
    if isinstance(x, tt.Tensor):
        if x.dtype == tt.bfloat16:
            x = x.float()
        return x.numpy(force=True) if x.ndim else np.asarray(x.item())
    if hasattr(x, "detach"):  # torch
        x = x.detach().cpu()
        return (x.float() if str(x.dtype) == "torch.bfloat16" else x).numpy()
    return np.asarray(x)


def assert_close(ours: Any, ref: Any, rtol: float = 1e-5, atol: float = 1e-6, check_dtype: bool = True) -> None:
    if isinstance(ref, (tuple, list)) and not isinstance(ours, tt.Tensor):
        assert len(ours) == len(ref)
        for o, r in zip(ours, ref, strict=True):
            assert_close(o, r, rtol, atol, check_dtype)
        return
    a, b = to_np(ours), to_np(ref)
    assert tuple(a.shape) == tuple(b.shape), f"shape {a.shape} != {b.shape}"
    if check_dtype and isinstance(ours, tt.Tensor) and hasattr(ref, "dtype") and hasattr(ref, "detach"):
        assert ours.dtype.name == str(ref.dtype).replace("torch.", ""), f"dtype {ours.dtype} != {ref.dtype}"
    if a.dtype.kind in "fc" or b.dtype.kind in "fc":
        np.testing.assert_allclose(a.astype(np.float64), b.astype(np.float64), rtol=rtol, atol=atol, equal_nan=True)
    else:
        np.testing.assert_array_equal(a, b)


def pair(torch: Any, data: np.ndarray, dtype: str) -> tuple[Any, Any]:
    """The same values as a typedtensor and a torch tensor."""
    arr = data.astype(np.dtype(dtype) if dtype != "bool" else bool)
    return tt.tensor(arr), torch.tensor(arr)


def bf16_values(shape: tuple[int, ...], seed: int) -> np.ndarray:
    """Normal float32 values that bfloat16 holds exactly, so every implementation multiplies the
    same numbers."""
    import torch

    x = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    return torch.from_numpy(x).bfloat16().float().numpy()  # type: ignore[no-any-return]


def as_bf16(x: np.ndarray) -> Any:
    """A typedtensor bfloat16 tensor of ``x``'s values."""
    return tt.from_numpy(np.ascontiguousarray(x)).to(tt.bfloat16)
