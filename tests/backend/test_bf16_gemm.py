"""bfloat16 matrix products (NOTE [ bfloat16 GEMM ] in backend/src/cpu/gemm.cpp): MKL's bfloat16
GEMM where MKL is the BLAS, float32 widening under OpenBLAS. Either way the result is the float32 sum
of the bfloat16 operands rounded to bfloat16, as torch's: checked against that sum computed in
float64 and against torch, for every operand layout the GEMM reads as it is, the layouts it must
copy, batches, broadcast batch dims, threads, gradients, and non-finite values."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

import typedtensor as tt

from .helpers import as_bf16, bf16_values

CPU = tt.backends.cpu
START = CPU.get_blas()
LIBS = CPU.blas_available()





def _check(out: tt.Tensor, a: np.ndarray, b: np.ndarray, torch_out: torch.Tensor, roundings: int = 1) -> None:
    """Within ``roundings`` bfloat16 roundings (relative 2**-8 each) of the float64 sum, plus
    float32's accumulation error; and as close to torch's bfloat16 result."""
    assert out.dtype == tt.bfloat16
    got = out.float().numpy()
    exact = np.matmul(a.astype(np.float64), b.astype(np.float64))
    bound = np.matmul(np.abs(a).astype(np.float64), np.abs(b).astype(np.float64))
    k = a.shape[-1]
    tol = roundings * 2.0**-8 * np.abs(exact) + 1e-6 * k * bound + 1e-30
    assert np.all(np.abs(got - exact) <= tol), float(np.max(np.abs(got - exact) / tol))
    theirs = torch_out.float().numpy()
    assert np.all(np.abs(got - theirs) <= 2 * tol)


def test_native_gemm_follows_the_blas(blas: str) -> None:
    if blas == "openblas":
        assert not CPU.blas_has_bf16_gemm()
    # MKL 2021 and later export cblas_gemm_bf16bf16f32; the `mkl` wheel this project installs does
    assert CPU.blas_has_bf16_gemm() == (blas == "mkl")


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize(("m", "n", "k", "ta", "tb"), [(7, 5, 3, False, False), (300, 40, 200, True, False),
                                                       (20, 600, 200, False, True), (129, 130, 131, True, True),
                                                       (1, 64, 32, False, False), (64, 1, 32, False, True)])
def test_2d_products(blas: str, threads: int, m: int, n: int, k: int, ta: bool, tb: bool) -> None:
    a = bf16_values((k, m) if ta else (m, k), 0)
    b = bf16_values((n, k) if tb else (k, n), 1)
    x, y = as_bf16(a), as_bf16(b)
    prev = tt.get_num_threads()
    tt.set_num_threads(threads)
    try:
        out = (x.t() if ta else x) @ (y.t() if tb else y)
    finally:
        tt.set_num_threads(prev)
    ta_, tb_ = torch.from_numpy(a).bfloat16(), torch.from_numpy(b).bfloat16()
    ref = (ta_.t() if ta else ta_) @ (tb_.t() if tb else tb_)
    _check(out, a.T if ta else a, b.T if tb else b, ref)


def test_batched_and_broadcast_batches(blas: str) -> None:
    a = bf16_values((3, 1, 17, 24), 2)
    b = bf16_values((1, 4, 24, 9), 3)
    out = as_bf16(a) @ as_bf16(b)
    assert out.shape == (3, 4, 17, 9)
    ref = torch.from_numpy(a).bfloat16() @ torch.from_numpy(b).bfloat16()
    _check(out, np.broadcast_to(a, (3, 4, 17, 24)), np.broadcast_to(b, (3, 4, 24, 9)), ref)


def test_many_small_heads_one_per_thread(blas: str) -> None:
    # the attention-head shape: the batch is split over threads, one whole matrix each
    a, b = bf16_values((16, 64, 64), 4), bf16_values((16, 64, 64), 5)
    prev = tt.get_num_threads()
    tt.set_num_threads(2)
    try:
        out = as_bf16(a) @ as_bf16(b).mT
    finally:
        tt.set_num_threads(prev)
    ref = torch.from_numpy(a).bfloat16() @ torch.from_numpy(b).bfloat16().mT
    _check(out, a, np.swapaxes(b, -1, -2), ref)


def test_layouts_the_gemm_cannot_read_are_copied(blas: str) -> None:
    a, b = bf16_values((40, 60), 6), bf16_values((30, 50), 7)
    x = as_bf16(a)[:, ::2]  # [40, 30], strides (60, 2): no BLAS layout reads it
    y = as_bf16(b)[:, ::2]  # [30, 25], strides (50, 2)
    ra, rb = np.ascontiguousarray(a[:, ::2]), np.ascontiguousarray(b[:, ::2])
    _check(x @ y, ra, rb, torch.from_numpy(ra).bfloat16() @ torch.from_numpy(rb).bfloat16())


def test_vectors_and_empty_sizes(blas: str) -> None:
    a, v = bf16_values((6, 5), 8), bf16_values((5,), 9)
    out = as_bf16(a) @ as_bf16(v)
    assert out.shape == (6,)
    _check(out, a, v, torch.from_numpy(a).bfloat16() @ torch.from_numpy(v).bfloat16())
    z = as_bf16(np.zeros((4, 0), np.float32)) @ as_bf16(np.zeros((0, 3), np.float32))
    assert z.dtype == tt.bfloat16 and z.shape == (4, 3) and not z.float().numpy().any()
    e = as_bf16(np.zeros((0, 5), np.float32)) @ as_bf16(a.T)
    assert e.shape == (0, 6)


def test_non_finite_values_propagate_as_torchs(blas: str) -> None:
    a, b = bf16_values((4, 8), 10), bf16_values((8, 3), 11)
    a[0, 0], a[1, 2], a[2, 5] = np.inf, np.nan, -np.inf
    out = (as_bf16(a) @ as_bf16(b)).float().numpy()
    ref = (torch.from_numpy(a).bfloat16() @ torch.from_numpy(b).bfloat16()).float().numpy()
    np.testing.assert_array_equal(np.isnan(out), np.isnan(ref))
    np.testing.assert_array_equal(np.isposinf(out), np.isposinf(ref))
    np.testing.assert_array_equal(np.isneginf(out), np.isneginf(ref))
    big = np.full((2, 64), 2.0**100, np.float32)  # the float32 sum overflows: inf, as torch's
    out = (as_bf16(big) @ as_bf16(big.T)).float().numpy()
    assert np.isposinf(out).all()


def test_gradients_match_torch(blas: str) -> None:
    a, b = bf16_values((3, 33, 20), 12), bf16_values((20, 17), 13)
    g = bf16_values((3, 33, 17), 14)
    x, w = as_bf16(a), as_bf16(b)
    x.requires_grad = True
    w.requires_grad = True
    (x @ w).backward(as_bf16(g))
    tx = torch.from_numpy(a).bfloat16().requires_grad_()
    tw = torch.from_numpy(b).bfloat16().requires_grad_()
    ty: Any = tx @ tw  # torch's stubs leave Tensor.backward untyped
    ty.backward(torch.from_numpy(g).bfloat16())
    assert x.grad is not None and w.grad is not None and tx.grad is not None and tw.grad is not None
    _check(x.grad, g, b.T, tx.grad)
    _check(w.grad, a.reshape(-1, 20).T, g.reshape(-1, 17), tw.grad)


def test_compiled_graph_runs_after_the_blas_changes() -> None:
    a, b = bf16_values((9, 16), 15), bf16_values((16, 7), 16)
    f = tt.compile(lambda x, y: x @ y)
    want = f(as_bf16(a), as_bf16(b)).float().numpy()  # traced under the BLAS in use
    CPU.set_blas("openblas")
    try:
        got = f(as_bf16(a), as_bf16(b)).float().numpy()
    finally:
        CPU.set_blas(START)
    ref = torch.from_numpy(a).bfloat16() @ torch.from_numpy(b).bfloat16()
    _check(tt.from_numpy(got).to(tt.bfloat16), a, b, ref)
    _check(tt.from_numpy(want).to(tt.bfloat16), a, b, ref)


@pytest.mark.parametrize("batch", [(), (3,)])
def test_linear_with_bias_rounds_once_and_matches_torch(blas: str, batch: tuple[int, ...]) -> None:
    """With MKL the layer is one primitive: the bias in the float32 accumulator, rounded once, as
    torch's addmm; under OpenBLAS matmul + add rounds twice, still within the bound."""
    x, w, bias = bf16_values((*batch, 37, 48), 17), bf16_values((29, 48), 18), bf16_values((29,), 19)
    g = bf16_values((*batch, 37, 29), 20)
    ox, ow, ob = (as_bf16(t).requires_grad_() for t in (x, w, bias))
    out = tt.nn.functional.linear(ox, ow, ob)
    out.backward(as_bf16(g))
    rx, rw, rb = (torch.from_numpy(t).bfloat16().requires_grad_() for t in (x, w, bias))
    ref: Any = torch.nn.functional.linear(rx, rw, rb)
    ref.backward(torch.from_numpy(g).bfloat16())
    x2 = x.reshape(-1, 48)
    _check(out.detach().reshape(-1, 29), np.hstack([x2, np.ones((len(x2), 1), np.float32)]), np.vstack([w.T, bias[None]]),
           ref.detach().reshape(-1, 29))
    assert ox.grad is not None and ow.grad is not None and ob.grad is not None
    assert rx.grad is not None and rw.grad is not None and rb.grad is not None
    _check(ox.grad, g, w, rx.grad)
    _check(ow.grad, g.reshape(-1, 29).T, x2, rw.grad)
    np.testing.assert_allclose(ob.grad.float().numpy(), rb.grad.float().numpy(), rtol=2**-7, atol=1e-6)


def test_compiled_linear_keeps_the_bfloat16_gemm(blas: str) -> None:
    """Under tt.compile a bfloat16 layer with the bfloat16 GEMM is traced as matmul + add: the
    product rounded, then the sum (each within 2**-8 of its own value); without that GEMM it is
    widened and rounded once, as eagerly."""
    x, w, bias = bf16_values((40, 48), 21), bf16_values((29, 48), 22), bf16_values((29,), 23)
    f = tt.compile(lambda a, b, c: tt.nn.functional.linear(a, b, c))
    out = f(as_bf16(x), as_bf16(w), as_bf16(bias)).float().numpy()
    graph = str(f.graph_for(as_bf16(x), as_bf16(w), as_bf16(bias)))
    assert ("bf16[40, 29] = matmul" in graph) == CPU.blas_has_bf16_gemm(), graph
    product = x.astype(np.float64) @ w.T.astype(np.float64)
    exact = product + bias
    accumulation = 1e-6 * 48 * (np.abs(x).astype(np.float64) @ np.abs(w.T) + np.abs(bias))
    twice = CPU.blas_has_bf16_gemm()
    tol = 2.0**-8 * (np.abs(exact) + (np.abs(product) if twice else 0)) + accumulation
    assert np.all(np.abs(out - exact) <= tol)
    eager = tt.nn.functional.linear(as_bf16(x), as_bf16(w), as_bf16(bias)).float().numpy()
    assert np.all(np.abs(eager - exact) <= 2.0**-8 * np.abs(exact) + accumulation)
