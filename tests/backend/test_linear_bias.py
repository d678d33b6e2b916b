"""linear with a bias (NOTE [ Linear with bias ] in backend/src/core/ops_linalg.cpp): the fused eager
primitive (one GEMM, the bias added in place) gives torch's output and gradients for inputs of 2 and
more dims, strided weights and biases, float32 and float64, through double backward, and under
tt.compile (where linear stays matmul + add)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import typedtensor as tt

torch = pytest.importorskip("torch")

LAYOUTS = {
    "contiguous": (lambda w: w, lambda b: b),
    "transposed weight": (lambda w: w.t().contiguous().t(), lambda b: b),
    "strided bias": (lambda w: w, lambda b: b.repeat_interleave(2)[::2]),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(5, 7), (3, 70, 7), (2, 3, 4, 7)])
@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_matches_torch(dtype: str, shape: tuple[int, ...], layout: str) -> None:
    rng = np.random.default_rng(len(shape))
    xn = rng.standard_normal(shape).astype(dtype)
    wn = rng.standard_normal((33, shape[-1])).astype(dtype)
    bn = rng.standard_normal(33).astype(dtype)
    gn = rng.standard_normal((*shape[:-1], 33)).astype(dtype)
    mk_w, mk_b = LAYOUTS[layout]
    x, w0, b0 = (tt.tensor(a, requires_grad=True) for a in (xn, wn, bn))
    tx, tw0, tb0 = (torch.tensor(a, requires_grad=True) for a in (xn, wn, bn))
    y = tt.nn.functional.linear(x, mk_w(w0), mk_b(b0))
    ty = torch.nn.functional.linear(tx, mk_w(tw0), mk_b(tb0))
    y.backward(tt.tensor(gn))
    ty.backward(torch.tensor(gn))
    tol = 1e-5 if dtype == "float32" else 1e-12
    for ours, ref in ((y, ty), (x.grad, tx.grad), (w0.grad, tw0.grad), (b0.grad, tb0.grad)):
        assert ours is not None and ref is not None
        np.testing.assert_allclose(ours.detach().numpy(), ref.detach().numpy(), rtol=tol, atol=tol)


def test_double_backward_matches_torch() -> None:
    rng = np.random.default_rng(1)
    arrays = [rng.standard_normal(s) for s in ((4, 6, 5), (3, 5), (3,))]
    ours = [tt.tensor(a, requires_grad=True) for a in arrays]
    refs = [torch.tensor(a, requires_grad=True) for a in arrays]

    def second(lib: Any, F: Any, x: Any, w: Any, b: Any) -> Any:
        y = F.linear(x, w, b)
        gx, gw, gb = lib.autograd.grad((y * y).sum(), [x, w, b], create_graph=True)
        return (gx * gx).sum() + (gw * gw).sum() + (gb * gb).sum()

    second(tt, tt.nn.functional, *ours).backward()
    second(torch, torch.nn.functional, *refs).backward()
    for o, r in zip(ours, refs, strict=True):
        assert o.grad is not None and r.grad is not None
        np.testing.assert_allclose(o.grad.numpy(), r.grad.numpy(), rtol=1e-10, atol=1e-10)


def test_inplace_change_of_a_saved_weight_is_refused() -> None:
    """The weight is saved for the input's gradient: changing it in place before backward is an
    error, as in torch."""
    for lib in (tt, torch):
        x, w, b = lib.ones(2, 3, requires_grad=True), lib.ones(4, 3), lib.ones(4)
        y = lib.nn.functional.linear(x, w, b).sum()
        w.add_(1.0)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            y.backward()


def test_compiled_step_matches_eager() -> None:
    rng = np.random.default_rng(2)
    layer = tt.nn.Linear(6, 4)
    xn = rng.standard_normal((5, 6)).astype(np.float32)

    def step(x: Any) -> Any:
        loss = layer(x).square().sum()
        loss.backward()
        return loss.detach()

    eager = step(tt.tensor(xn)).item()
    want = [p.grad.numpy().copy() for p in layer.parameters()]
    compiled = tt.compile(step, params=list(layer.parameters()))
    compiled(tt.tensor(xn))
    layer.zero_grad()
    got = compiled(tt.tensor(xn)).item()
    assert abs(got - eager) <= 1e-5 * abs(eager)
    for p, g in zip(layer.parameters(), want, strict=True):
        assert p.grad is not None
        np.testing.assert_allclose(p.grad.numpy(), g, rtol=1e-5, atol=1e-6)


def test_expanded_cotangent_of_a_mean() -> None:
    """mean()'s backward hands the layer an expanded (stride 0) cotangent, which BLAS cannot read."""
    rng = np.random.default_rng(3)
    arrays = [rng.standard_normal(s).astype(np.float32) for s in ((2, 9, 6), (5, 6), (5,))]
    ours = [tt.tensor(a, requires_grad=True) for a in arrays]
    refs = [torch.tensor(a, requires_grad=True) for a in arrays]
    tt.nn.functional.linear(*ours).mean().backward()
    torch.nn.functional.linear(*refs).mean().backward()
    for o, r in zip(ours, refs, strict=True):
        assert o.grad is not None and r.grad is not None
        np.testing.assert_allclose(o.grad.numpy(), r.grad.numpy(), rtol=1e-6, atol=1e-7)


X_LAYOUTS = {
    "transposed input": lambda x: x.t().contiguous().t(),
    "row-sliced input": lambda x: x.repeat_interleave(2, 0)[::2],
    "column-sliced input": lambda x: x.repeat_interleave(3, 1)[:, ::3],
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("x_layout", list(X_LAYOUTS))
def test_non_contiguous_input_matches_torch(dtype: str, x_layout: str) -> None:
    """A 2-D input of any strides takes the fused path (BLAS reads it, or it is copied once)."""
    rng = np.random.default_rng(4)
    arrays = [rng.standard_normal(s).astype(dtype) for s in ((9, 6), (5, 6), (5,))]
    ours = [tt.tensor(a, requires_grad=True) for a in arrays]
    refs = [torch.tensor(a, requires_grad=True) for a in arrays]
    mk = X_LAYOUTS[x_layout]
    y = tt.nn.functional.linear(mk(ours[0]), ours[1], ours[2])
    ty = torch.nn.functional.linear(mk(refs[0]), refs[1], refs[2])
    tol = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), rtol=tol, atol=tol)
    (y * y).sum().backward()
    (ty * ty).sum().backward()
    for o, r in zip(ours, refs, strict=True):
        assert o.grad is not None and r.grad is not None
        np.testing.assert_allclose(o.grad.numpy(), r.grad.numpy(), rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("m,k,n", [(1, 7, 5), (6, 7, 1), (1, 1, 1), (4, 0, 3), (0, 5, 3), (4, 5, 0), (2, 0, 0)])
def test_edge_sizes_match_torch(dtype: str, m: int, k: int, n: int) -> None:
    """m or n of 1, and empty sizes: with k = 0 the GEMM (beta = 1 over the bias rows) adds
    nothing, so every row is the bias, as torch's addmm gives."""
    rng = np.random.default_rng(m * 100 + k * 10 + n)
    arrays = [rng.standard_normal(s).astype(dtype) for s in ((m, k), (n, k), (n,))]
    ours = [tt.tensor(a, requires_grad=True) for a in arrays]
    refs = [torch.tensor(a, requires_grad=True) for a in arrays]
    y = tt.nn.functional.linear(*ours)
    ty = torch.nn.functional.linear(*refs)
    assert tuple(y.shape) == tuple(ty.shape) == (m, n)
    tol = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), rtol=tol, atol=tol)
    if k == 0 and m > 0:
        np.testing.assert_array_equal(y.detach().numpy(), np.broadcast_to(arrays[2], (m, n)))
    (y * 3.0).sum().backward()
    (ty * 3.0).sum().backward()
    for o, r in zip(ours, refs, strict=True):
        assert o.grad is not None and r.grad is not None
        np.testing.assert_allclose(o.grad.numpy(), r.grad.numpy(), rtol=tol, atol=tol)


def test_bias_rows_are_not_stale() -> None:
    """The output is prefilled with the bias before the GEMM accumulates: a reused output buffer
    (the allocator's cache hands the last call's memory back) must not add into old values."""
    rng = np.random.default_rng(5)
    xn, wn, bn = (rng.standard_normal(s).astype(np.float32) for s in ((64, 32), (48, 32), (48,)))
    want = torch.nn.functional.linear(*(torch.tensor(a) for a in (xn, wn, bn))).numpy()
    x, w, b = (tt.tensor(a) for a in (xn, wn, bn))
    for _ in range(3):
        np.testing.assert_allclose(tt.nn.functional.linear(x, w, b).numpy(), want, rtol=1e-5, atol=1e-5)
