"""GEMM epilogues (NOTE [ GEMM epilogues ] in backend/src/graph/epilogue.cpp): a 2-D matmul read
only by a fused kernel joins it, and the kernel runs on each block of the product's rows after the
GEMM wrote it. Compiled steps equal eager ones (losses, gradients, updated parameters), with and
without the pass, at block sizes that divide the rows, do not, and exceed them."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

import typedtensor as tt
from tests.graph.helpers import close, leaf_params, randn, trace
from typedtensor import _C
from typedtensor.graph import PASSES, Graph

NO_EPILOGUE = [p for p in PASSES if p != "epilogue"]
CPU = tt.backends.cpu


@pytest.fixture
def block_rows() -> Iterator[Callable[[int], None]]:
    """Forces the epilogue's rows per block (0: sized to the cache again afterwards)."""
    yield _C._graph_epilogue_block_rows
    _C._graph_epilogue_block_rows(0)


def gemm_kernels(g: Graph) -> list[list[str]]:
    """The ops of each fused node that starts with a GEMM."""
    return [[b.op for b in n.body if b.op != "expand"] for n in g.nodes() if n.op == "fused" and n.body[0].op == "matmul"]


def test_matmul_bias_activation_becomes_one_kernel() -> None:
    x, w, b = randn(37, 16), randn(16, 24), randn(24)

    def f(a: Any, w: Any, b: Any) -> Any:
        return tt.relu(a @ w + b) * 2.0

    g = trace(f, x, w, b)
    for p in PASSES:
        g.run_pass(p)
    assert "matmul" not in [n.op for n in g.nodes()]
    assert gemm_kernels(g) == [["matmul", "add", "relu", "mul"]]
    fused = next(n for n in g.nodes() if n.op == "fused")
    assert list(fused.inputs[:2]) == [g.inputs[0], g.inputs[1]]  # the GEMM's operands come first
    kernels = g.kernels()
    assert kernels[0][0] in ("pending", "compiled")
    assert "int64_t lo, int64_t hi" in kernels[0][1]  # the per-block entry point
    close(g(x, w, b)[0], f(x, w, b))


def test_pass_can_be_switched_off_and_gives_the_same_numbers() -> None:
    x, w, b = randn(50, 33), randn(33, 20), randn(20)

    def f(a: Any, w: Any, b: Any) -> Any:
        return tt.tanh(a @ w + b)

    on, off = tt.compile(f), tt.compile(f, passes=NO_EPILOGUE)
    got_on, got_off = on(x, w, b), off(x, w, b)
    assert gemm_kernels(on.graph_for(x, w, b)) == [["matmul", "add", "tanh"]]
    assert gemm_kernels(off.graph_for(x, w, b)) == []
    assert "matmul" in [n.op for n in off.graph_for(x, w, b).nodes()]
    if tt.backends.cpu.get_blas() == "mkl":  # MKL's packed GEMM: the same rows, the same loop
        np.testing.assert_array_equal(got_on.numpy(), got_off.numpy())
    else:  # OpenBLAS rounds a row block's edge tiles in another order than the whole product's
        np.testing.assert_allclose(got_on.numpy(), got_off.numpy(), rtol=1e-6, atol=1e-6)
    close(got_on, f(x, w, b))


def test_product_needed_elsewhere_is_not_merged() -> None:
    x, w = randn(8, 5), randn(5, 6)

    def f(a: Any, w: Any) -> Any:
        p = a @ w
        return (p + 1.0).relu(), p  # the product is an output too

    g = tt.compile(f).graph_for(x, w)
    assert gemm_kernels(g) == [] and "matmul" in [n.op for n in g.nodes()]

    def f2(a: Any, w: Any) -> Any:
        p = a @ w
        return (p * 2.0).sigmoid() + p.sum()  # a reduction also reads it

    cf = tt.compile(f2)
    assert gemm_kernels(cf.graph_for(x, w)) == []
    close(cf(x, w), f2(x, w))


@pytest.mark.parametrize("rows", [1, 5, 16, 37, 200])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("layout", ["plain", "transposed weight", "transposed input"])
def test_blocks_of_any_size_equal_eager(block_rows: Callable[[int], None], rows: int, dtype: str, layout: str) -> None:
    """Blocks that divide M (37 rows, 1 per block), that do not (5, 16), one block larger than M
    (200), float64, and operands BLAS reads transposed."""
    block_rows(rows)
    rng = np.random.default_rng(rows)
    xn, wn, bn = (rng.standard_normal(s).astype(dtype) for s in ((37, 19), (23, 19), (23,)))
    x, w, b = tt.tensor(xn), tt.tensor(wn), tt.tensor(bn)
    if layout == "transposed input":
        x = tt.tensor(np.ascontiguousarray(xn.T)).t()

    def f(a: Any, w: Any, b: Any) -> Any:
        wt = w.t() if layout != "plain" else w.t().contiguous()
        return tt.nn.functional.gelu(a @ wt + b) - 0.5 * (a @ wt + b).sigmoid()

    cf = tt.compile(f)
    got = cf(x, w, b)
    assert len(gemm_kernels(cf.graph_for(x, w, b))) == 1
    tol = 1e-5 if dtype == "float32" else 1e-12
    want = f(tt.tensor(xn), tt.tensor(wn), tt.tensor(bn))
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=tol, atol=tol)


def test_empty_inner_dim_gives_the_bias() -> None:
    x, w, b = tt.zeros(6, 0), tt.zeros(0, 4), randn(4)
    cf = tt.compile(lambda a, w, b: (a @ w + b).relu())
    got = cf(x, w, b)
    assert len(gemm_kernels(cf.graph_for(x, w, b))) == 1
    close(got, tt.relu(b).expand(6, 4))


def _mlp_loss(ps: list[Any], x: Any, y: Any) -> Any:
    w1, b1, w2, b2, w3, b3 = ps
    h = tt.relu(x @ w1 + b1)
    h = tt.tanh(h @ w2 + b2) * 0.5 + h * 0.5
    return ((h @ w3 + b3 - y) ** 2).mean()


def _cnn_head_loss(ps: list[Any], x: Any, y: Any) -> Any:
    F = tt.nn.functional
    c1, cb1, w3, b3, w4, b4 = ps
    h = F.max_pool2d(F.relu(F.conv2d(x, c1, cb1, padding=1)), 2)
    h = F.relu(F.linear(h.flatten(1), w3, b3))
    return ((F.linear(h, w4, b4) - y) ** 2).mean()


MODELS: dict[str, tuple[Callable[..., Any], list[tuple[int, ...]], tuple[int, ...], tuple[int, ...]]] = {
    "mlp": (_mlp_loss, [(20, 48), (48,), (48, 48), (48,), (48, 5), (5,)], (45, 20), (45, 5)),
    "cnn head": (_cnn_head_loss, [(4, 2, 3, 3), (4,), (24, 4 * 4 * 4), (24,), (3, 24), (3,)], (11, 2, 8, 8), (11, 3)),
}


def _data(xs: tuple[int, ...], ys: tuple[int, ...]) -> tuple[Any, Any]:
    rng = np.random.default_rng(9)
    return (tt.tensor(rng.standard_normal(xs).astype(np.float32)), tt.tensor(rng.standard_normal(ys).astype(np.float32)))


def _np(t: Any) -> np.ndarray:
    return np.asarray(t.detach().numpy())


def _rel_close(got: Any, want: Any) -> None:
    """Within 1e-5 of the tensor's scale: a summation order differs (eager and compiled sum a conv
    bias's gradient in other orders), so an element that cancels to near 0 is off by more than 1e-5
    of itself."""
    w = _np(want)
    np.testing.assert_allclose(_np(got), w, rtol=1e-5, atol=1e-5 * max(float(np.abs(w).max()), 1e-6))


@pytest.mark.parametrize("model", list(MODELS))
@pytest.mark.parametrize("optimizer", [None, "sgd", "adamw"])
@pytest.mark.parametrize("blas", ["openblas", "mkl"])
def test_training_steps_equal_eager(block_rows: Callable[[int], None], model: str, optimizer: str | None, blas: str) -> None:
    """Several steps of an MLP and a CNN head, with and without the optimizer inside the step:
    losses, gradients and updated parameters equal eager's (1e-5 relative), the epilogue taken in
    the forward and the backward, blocks of 16 rows (45 and 11 rows: not multiples), on each BLAS."""
    if blas not in CPU.blas_available():
        pytest.skip(f"{blas} is not available here")
    start = CPU.get_blas()
    CPU.set_blas(blas)
    block_rows(16)
    try:
        loss_fn, shapes, xs, ys = MODELS[model]
        x, y = _data(xs, ys)
        scale = 0.3
        pe, pc = leaf_params(3, shapes, scale), leaf_params(3, shapes, scale)

        def make(ps: list[Any]) -> tuple[Callable[[Any, Any], Any], Any]:
            opt = None
            if optimizer == "sgd":
                opt = tt.optim.SGD(ps, lr=0.05, momentum=0.9)
            elif optimizer == "adamw":
                opt = tt.optim.AdamW(ps, lr=1e-2, weight_decay=1e-2)

            def step(a: Any, c: Any) -> Any:
                loss = loss_fn(ps, a, c)
                loss.backward()
                if opt is not None:
                    opt.step()
                return loss.detach()
            return step, opt

        eager, _ = make(pe)
        step_c, _ = make(pc)
        compiled = tt.compile(step_c, params=pc)
        for _ in range(4):
            for p in pe + pc:
                p.grad = None
            lc, le = compiled(x, y), eager(x, y)
            _rel_close(lc, le)
            for a, b in zip(pc, pe, strict=True):
                assert a.grad is not None and b.grad is not None
                _rel_close(a.grad, b.grad)
                _rel_close(a, b)
        g = compiled.graph_for(x, y)
        merged = gemm_kernels(g)
        assert len(merged) >= 2, str(g)  # a forward layer and a backward GEMM at least
    finally:
        CPU.set_blas(start)


def test_interpreted_without_a_compiler(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TYPEDTENSOR_CXX", "/nonexistent/bin/c++")
    _C._graph_reset_compiler()
    try:
        x, w, b = randn(9, 7), randn(7, 5), randn(5)

        def f(a: Any, w: Any, b: Any) -> Any:
            return (a @ w + b).relu()

        cf = tt.compile(f)
        close(cf(x, w, b), f(x, w, b))
        g = cf.graph_for(x, w, b)
        assert gemm_kernels(g) == [["matmul", "add", "relu"]] and g.kernels()[0][0] == "interpreted"
    finally:
        monkeypatch.undo()
        _C._graph_reset_compiler()


def test_unfused_for_saving_restores_the_matmul(tmp_path: Any) -> None:
    x, w, b = randn(6, 4), randn(4, 3), randn(3)
    cf = tt.compile(lambda a, w, b: (a @ w + b).relu())
    want = cf(x, w, b)
    path = str(tmp_path / "g.ttg")
    cf.graph_for(x, w, b).save(path)
    loaded = tt.jit.load(path)
    close(loaded(x, w, b)[0], want)
    assert gemm_kernels(loaded) == [["matmul", "add", "relu"]]  # saved un-fused, the pipeline re-run


def test_write_back_into_a_gemm_operand_is_not_done_in_place(block_rows: Callable[[int], None]) -> None:
    """The captured weight is the GEMM's second operand, which every block's GEMM reads: the
    kernel must not write the new weight over it while later blocks still read it."""
    block_rows(4)
    rng = np.random.default_rng(11)
    wn = (rng.standard_normal((12, 12)) * 0.3).astype(np.float32)
    an = rng.standard_normal((12, 12)).astype(np.float32)
    w_eager, w_comp = tt.tensor(wn.copy()), tt.tensor(wn.copy())

    def update(w: Any) -> Callable[[Any], Any]:
        def f(a: Any) -> Any:
            w.copy_(tt.relu(a @ w + 1.0))
            return w.sum()
        return f

    cf = tt.compile(update(w_comp))
    for _ in range(2):
        update(w_eager)(tt.tensor(an))
        cf(tt.tensor(an))
        close(w_comp, w_eager)
    g = cf.graph_for(tt.tensor(an))
    assert gemm_kernels(g) and not g.in_place_writes()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("blas", ["mkl", "openblas"])
def test_packed_and_unpacked_blocks_equal_eager(block_rows: Callable[[int], None], dtype: str, blas: str) -> None:
    """With MKL the blocks share one packed B (cblas_?gemm_compute); switched off, or with
    OpenBLAS (no packed API), each block is its own GEMM: both give eager's numbers."""
    if blas not in CPU.blas_available():
        pytest.skip(f"{blas} is not available here")
    start = CPU.get_blas()
    CPU.set_blas(blas)
    block_rows(24)
    rng = np.random.default_rng(12)
    xn, wn, bn = (rng.standard_normal(s).astype(dtype) for s in ((100, 70), (70, 90), (90,)))
    x, w, b = tt.tensor(xn), tt.tensor(wn), tt.tensor(bn)

    def f(a: Any, w: Any, b: Any) -> Any:
        return tt.sigmoid(a @ w + b)

    want = f(x, w, b).numpy()
    tol = 1e-5 if dtype == "float32" else 1e-12
    try:
        for packed in (True, False):
            _C._graph_epilogue_packed(packed)
            cf = tt.compile(f)
            np.testing.assert_allclose(cf(x, w, b).numpy(), want, rtol=tol, atol=tol)
            assert len(gemm_kernels(cf.graph_for(x, w, b))) == 1
    finally:
        _C._graph_epilogue_packed(True)
        CPU.set_blas(start)
