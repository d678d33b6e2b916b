"""Generated CUDA kernels for fused groups: the source is NVRTC-ready (no host headers), nvcc
compiles it to PTX (when nvcc is on PATH), and on a GPU the compiled graph equals eager mode."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import typedtensor as tt
import typedtensor._runtime as rt
from tests.graph.helpers import close, randn


def _chain(x: Any, w: Any, b: Any) -> Any:
    return (tt.tanh(x * w + b) * 0.5 + 1.0).relu()


def _row_sum(x: Any, w: Any, b: Any) -> Any:
    return (tt.exp(x * w - b) + x.sigmoid()).sum(-1)


def _row_max(x: Any, w: Any, b: Any) -> Any:
    return (x * w + b).amax(-1), (x.log() * b).mean(-1)


def _select(x: Any, w: Any, b: Any) -> Any:
    return tt.where(x > w, tt.nn.functional.gelu(x), b * x.clamp(-0.5, 0.5)), x * 2.0 > b


def _double(x: Any, w: Any, b: Any) -> Any:
    x, w, b = x.double(), w.double(), b.double()
    return (x.sin() * w + b.erf()).sqrt().abs() + x.expm1()


PROGRAMS: dict[str, Callable[..., Any]] = {
    "chain": _chain, "row_sum": _row_sum, "row_max": _row_max, "select": _select, "double": _double,
}


def _args() -> list[Any]:
    return [randn(16, 32).abs() + 0.1, randn(32), randn(32)]


def _sources(fn: Callable[..., Any]) -> list[str]:
    cf = tt.compile(fn)
    args = _args()
    cf(*args)
    g = cf.graph_for(*args)
    srcs = g.cuda_kernels()
    assert len(srcs) == len(g.kernels()) >= 1
    return srcs


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_cuda_source_is_self_contained(name: str) -> None:
    for src in _sources(PROGRAMS[name]):
        assert 'extern "C" __global__' in src and "tt_kernel(" in src
        assert "#include" not in src and "std::" not in src  # NVRTC has no host headers
        # the polynomial math is the CPU kernels' text, not a second copy
        assert "TT_FN float tt_exp(float x)" in src


def test_cpu_and_cuda_sources_share_the_math() -> None:
    cf = tt.compile(_chain)
    args = _args()
    cf(*args)
    g = cf.graph_for(*args)
    (_, cpu), cuda = g.kernels()[0], g.cuda_kernels()[0]
    start = cpu.index("TT_FN float tt_exp(float x)")
    end = cpu.index("using T =")
    assert cpu[start:end].replace("#include <vector>\n", "") in cuda


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not on PATH")
def test_generated_cuda_compiles_with_nvcc(tmp_path: Path) -> None:
    n = 0
    for name, fn in sorted(PROGRAMS.items()):
        for k, src in enumerate(_sources(fn)):
            cu = tmp_path / f"{name}_{k}.cu"
            cu.write_text(src)
            ptx = tmp_path / f"{name}_{k}.ptx"
            res = subprocess.run(
                ["nvcc", "-ptx", "-arch=compute_90", "-std=c++17", str(cu), "-o", str(ptx)],
                capture_output=True, text=True, timeout=300,
            )
            assert res.returncode == 0, f"{cu.name}:\n{res.stderr}\n{src}"
            assert ".entry tt_kernel" in ptx.read_text()
            n += 1
    assert n >= len(PROGRAMS)


def test_emulated_cuda_falls_back_to_per_op_kernels() -> None:
    """Without NVRTC (here: the host-emulated device) a fused group runs its ops one by one."""
    if rt.cuda.is_available():
        pytest.skip("uses the host-emulated CUDA device")
    rt._C._testing_emulate_cuda(True)
    try:
        x, w, b = (t.to("cuda") for t in _args())
        cf = tt.compile(_chain)
        got = cf(x, w, b)
        assert got.device.type == "cuda"
        close(got.to("cpu"), _chain(*_args_like(x, w, b)))
        assert [m for m, _ in cf.graph_for(x, w, b).kernels()] == ["interpreted"]
    finally:
        rt._C._testing_emulate_cuda(False)


def test_compiled_cuda_graph_checks_index_values() -> None:
    """A CUDA index is checked by the eager front end; a graph run checks it itself."""
    if rt.cuda.is_available():
        pytest.skip("uses the host-emulated CUDA device")
    rt._C._testing_emulate_cuda(True)
    try:
        w = randn(6, 3).to("cuda")
        cf = tt.compile(lambda i: tt.embedding(i, w) * 2.0)
        ok = tt.tensor(np.array([0, 5, 2], dtype=np.int64)).to("cuda")
        close(cf(ok).to("cpu"), (tt.embedding(ok, w) * 2.0).to("cpu"))
        neg = tt.tensor(np.array([-1, 0, 1], dtype=np.int64)).to("cuda")
        with pytest.raises(IndexError, match="out of bounds"):  # negative ids raise, like eager and torch
            cf(neg)
        with pytest.raises(IndexError, match="out of bounds"):
            tt.embedding(neg, w)
        with pytest.raises(IndexError, match="out of bounds"):
            cf(tt.tensor(np.array([0, 6, 1], dtype=np.int64)).to("cuda"))
    finally:
        rt._C._testing_emulate_cuda(False)


def test_fused_conv_pool_runs_its_two_kernels_on_cuda() -> None:
    """conv2d_max_pool2d (the conv_pool pass) on a CUDA tensor: the device's conv2d, max_pool2d and
    relu kernels one after the other, the same values as eager on the device."""
    if rt.cuda.is_available():
        pytest.skip("uses the host-emulated CUDA device")
    rt._C._testing_emulate_cuda(True)
    try:
        F = tt.nn.functional
        x, w, b = randn(3, 2, 8, 8).to("cuda"), randn(4, 2, 3, 3).to("cuda"), randn(4).to("cuda")

        def f(a: Any) -> Any:
            return F.max_pool2d(F.relu(F.conv2d(a, w, b, padding=1)), 2)

        cf = tt.compile(f)
        got = cf(x)
        assert got.device.type == "cuda"
        assert "conv2d_max_pool2d" in [n.op for n in cf.graph_for(x).nodes()]
        np.testing.assert_array_equal(got.to("cpu").numpy(), f(x).to("cpu").numpy())
    finally:
        rt._C._testing_emulate_cuda(False)


def test_fused_pooled_weight_gradient_runs_on_cuda() -> None:
    """conv2d_backward_weight_pooled on a CUDA tensor: the device's max_pool2d_backward, then its
    conv2d_backward_weight."""
    if rt.cuda.is_available():
        pytest.skip("uses the host-emulated CUDA device")
    rt._C._testing_emulate_cuda(True)
    try:
        F = tt.nn.functional
        x, w = randn(3, 1, 8, 8).to("cuda"), randn(4, 1, 3, 3).to("cuda")
        w.requires_grad = True

        def step(a: Any) -> Any:  # no relu: on CUDA its backward is traced as gt + where, not relu_backward
            loss = F.max_pool2d(F.conv2d(a, w, padding=1), 2).sum()
            loss.backward()
            return loss.detach()

        cf = tt.compile(step, params=[w])
        w.grad = None
        cf(x)
        got = w.grad
        assert "conv2d_backward_weight_pooled" in [n.op for n in cf.graph_for(x).nodes()]
        w.grad = None
        step(x)
        np.testing.assert_allclose(got.to("cpu").numpy(), w.grad.to("cpu").numpy(), rtol=1e-5, atol=1e-5)
    finally:
        rt._C._testing_emulate_cuda(False)


def _args_like(*ts: Any) -> list[Any]:
    return [t.to("cpu") for t in ts]


@pytest.mark.cuda
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_fused_cuda_kernel_matches_eager(name: str) -> None:
    if not rt.cuda.is_available():
        pytest.skip("no CUDA device")
    if "loaded" not in rt.cuda.nvrtc_status():
        pytest.skip(f"NVRTC unavailable: {rt.cuda.nvrtc_status()}")
    fn = PROGRAMS[name]
    args = [t.to("cuda") for t in _args()]
    cf = tt.compile(fn)
    got = cf(*args)
    want = fn(*args)
    gots = got if isinstance(got, tuple) else (got,)
    wants = want if isinstance(want, tuple) else (want,)
    for a, b in zip(gots, wants, strict=True):
        np.testing.assert_allclose(a.to("cpu").numpy(), b.to("cpu").numpy(), rtol=2e-5, atol=1e-6)
    assert all(m == "compiled" for m, _ in cf.graph_for(*args).kernels())
