"""Runs cuda_cases.CASES on the CPU and on a CUDA device (real or host-emulated) and compares."""

from __future__ import annotations

from typing import Any

import numpy as np

import typedtensor._runtime as tt
from tests.backend.cuda_cases import CASES, RANDOM, assert_same, to_host


def run_case(name: str, dev: str) -> Any:
    tt.manual_seed(0)
    return CASES[name](lambda arr, **kw: tt.tensor(arr, device=dev, **kw), dev)


def check_device_of(x: Any, dev: str) -> None:
    if isinstance(x, tt.Tensor):
        assert x.device.type == dev.split(":")[0], f"result on {x.device}, expected {dev}"
    elif isinstance(x, (list, tuple)):
        for v in x:
            check_device_of(v, dev)


def compare_case(name: str, dev: str, rtol: float = 1e-4, atol: float = 1e-5) -> None:
    ref = run_case(name, "cpu")
    got = run_case(name, dev)
    if name not in ("cpu", "item", "empty", "empty_like"):
        check_device_of(got, dev)
    if name in RANDOM:
        r, g = to_host(ref), to_host(got)
        assert r.shape == g.shape and r.dtype == g.dtype
        if name in ("rand", "rand_like"):
            assert g.min() >= 0.0 and g.max() < 1.0 and 0.4 < g.mean() < 0.6
        elif name in ("randn", "randn_like"):
            assert abs(g.mean()) < 0.2 and 0.8 < g.std() < 1.2
        elif name == "randint":
            assert g.min() >= 0 and g.max() < 10
        else:  # dropout: kept values scaled by 1 / (1 - p) = 2
            assert set(np.unique(g).tolist()) <= {0.0, 2.0} and 0.3 < (g == 0).mean() < 0.7
        return
    assert_same(to_host(got), to_host(ref), rtol, atol)
