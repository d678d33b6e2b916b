"""Each pass's rewrite on small IR snippets: the IR before and after, and the values unchanged."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import typedtensor as tt
from tests.graph.helpers import close, ops, randn, trace


def _check_same(g: Any, fn: Any, *inputs: Any) -> None:
    for got, want in zip(g(*inputs), [fn(*inputs)], strict=False):
        close(got, want)


def test_trace_text_form() -> None:
    x = randn(2, 3)
    g = trace(lambda a: (a * 2.0).relu(), x)
    text = str(g)
    assert text.startswith("graph(%0: f32[2, 3]) {")
    assert "= const 2" in text
    assert "expand(%" in text and "mul(%0, %" in text and "relu(" in text
    assert text.rstrip().endswith("}")


def test_dce_removes_unused_nodes() -> None:
    x = randn(4)

    def f(a: Any) -> Any:
        _unused = a.exp() + 1.0
        return a.neg()

    g = trace(f, x)
    before = ops(g)
    assert "exp" in before and "add" in before
    assert g.run_pass("dce")
    assert ops(g) == ["neg"]
    _check_same(g, lambda a: a.neg(), x)


def test_cse_merges_repeated_subexpressions() -> None:
    x = randn(3, 3)
    g = trace(lambda a: a.tanh() * a.tanh() + (a * 0.5) + (a * 0.5), x)
    assert ops(g).count("tanh") == 2 and ops(g).count("mul") == 3
    assert g.run_pass("cse")
    assert ops(g).count("tanh") == 1
    assert ops(g).count("mul") == 2  # tanh*tanh and one a*0.5
    assert str(g).count("= const 0.5") == 1
    _check_same(g, lambda a: a.tanh() * a.tanh() + a * 0.5 + a * 0.5, x)


def test_cse_keeps_constants_that_differ_past_six_decimals() -> None:
    # their keys once printed six decimals: 1e-7, 1e-8 (an optimizer's eps) and 0 were one constant
    x = randn(3, 3)

    def f(a: Any) -> Any:
        return a * 1e-7 + a * 1e-8 + (a * 0.0 + 2.5e-7)

    g = trace(f, x)
    g.run_pass("cse")
    for c in ("1.00000001e-07", "9.99999994e-09", "0", "2.49999999e-07"):
        assert f"= const {c}" in str(g)
    _check_same(g, f, x)
    close(tt.compile(f)(x), f(x), rtol=1e-6)


def test_cse_does_not_merge_different_attributes() -> None:
    x = randn(2, 3)
    g = trace(lambda a: a.sum(0) .sum() + a.sum(1).sum(), x)
    n = ops(g).count("sum")
    g.run_pass("cse")
    assert ops(g).count("sum") == n


def test_simplify_identities() -> None:
    x = randn(5)

    def f(a: Any) -> Any:
        return ((((a * 1.0) + 0.0) - 0.0) / 1.0).neg().neg()

    g = trace(f, x)
    assert ops(g).count("neg") == 2 and "mul" in ops(g) and "div" in ops(g)
    assert g.run_pass("simplify")
    assert ops(g) == []  # the output is the input itself
    assert g.outputs == g.inputs
    _check_same(g, f, x)


def test_simplify_square_is_a_multiply() -> None:
    x = tt.tensor([-2.0, -0.0, 0.5, float("inf"), float("-inf"), float("nan")])
    g = trace(lambda a: (a**2.0) + (a**3.0), x)
    assert ops(g).count("pow") == 2
    g.run_pass("simplify")
    assert ops(g).count("pow") == 1  # only the cube stays a pow
    (sq,) = [n for n in g.nodes() if n.op == "mul"]
    assert sq.inputs[0] == sq.inputs[1] == g.inputs[0]
    np.testing.assert_array_equal(g(x)[0].numpy(), ((x**2.0) + (x**3.0)).numpy())


def test_simplify_sees_through_constant_arithmetic_and_masks() -> None:
    """pow's VJP: b * a ** (b - 1) masked by b != 0, with b = 2: a multiply, no pow, no where."""
    x = randn(4, 3)
    w = randn(4, 3)
    w.requires_grad_(True)

    def step(a: Any) -> Any:
        loss = ((w * a) ** 2.0).sum()
        loss.backward()
        return loss.detach()

    cf = tt.compile(step, params=[w], passes=["simplify", "dce"])
    w.grad = None
    got = cf(x)
    g = cf.graph_for(x)
    assert "pow" not in ops(g) and "where" not in ops(g)
    w.grad = None
    want = step(x)
    close(got[0] if isinstance(got, tuple) else got, want)


def test_simplify_double_transpose_and_permute_chain() -> None:
    x = randn(2, 3, 4)
    g = trace(lambda a: a.transpose(0, 1).transpose(0, 1).exp(), x)
    assert ops(g).count("permute") == 2
    g.run_pass("simplify")
    assert ops(g) == ["exp"]
    g2 = trace(lambda a: a.permute(1, 2, 0).permute(1, 2, 0).exp(), x)
    g2.run_pass("simplify")
    assert ops(g2).count("permute") == 1
    (node,) = [n for n in g2.nodes() if n.op == "permute"]
    assert node.attrs["dims"] == [2, 0, 1]
    close(g2(x)[0], x.permute(1, 2, 0).permute(1, 2, 0).exp())


def test_simplify_reshape_chain() -> None:
    x = randn(2, 6)
    g = trace(lambda a: a.reshape(3, 4).reshape(4, 3).reshape(12).exp(), x)
    assert ops(g).count("reshape") == 3
    g.run_pass("simplify")
    assert ops(g).count("reshape") == 1
    close(g(x)[0], x.reshape(12).exp())
    g2 = trace(lambda a: a.reshape(3, 4).reshape(2, 6).exp(), x)
    g2.run_pass("simplify")
    assert ops(g2) == ["exp"]


def test_fold_constants() -> None:
    x = randn(3)
    c = tt.tensor([1.0, 2.0, 3.0])

    def f(a: Any) -> Any:
        return a + c.exp() * 2.0

    g = trace(f, x)
    g.freeze()  # the captured tensor becomes a constant
    assert "exp" in ops(g)
    assert g.run_pass("fold")
    assert ops(g) == ["add"]
    assert "= const" in str(g)
    close(g(x)[0], f(x))


def test_fold_keeps_captures_live() -> None:
    x = randn(3)
    c = tt.tensor([1.0, 2.0, 3.0])
    g = trace(lambda a: a + c.exp(), x)
    assert not g.run_pass("fold")  # not frozen: c is read at every run
    c.fill_(0.0)
    close(g(x)[0], x + 1.0)


def test_fuse_elementwise_chain_into_one_kernel() -> None:
    x, w, b = randn(8, 5), randn(5), randn(5)

    def f(x: Any, w: Any, b: Any) -> Any:
        return (tt.tanh(x * w + b) * 0.5 + 1.0).relu()

    g = trace(f, x, w, b)
    assert set(ops(g)) >= {"expand", "mul", "add", "tanh", "relu"}
    assert g.run_pass("fuse")
    assert ops(g) == ["fused"]
    (node,) = g.nodes()
    assert [n.op for n in node.body].count("expand") == 4  # w, b and both constants broadcast
    assert "fused(" in str(g) and "tanh(" in str(g)
    close(g(x, w, b)[0], f(x, w, b))
    assert g.kernels()[0][0] in ("compiled", "interpreted")


def test_fuse_comparisons_and_where_with_bool_outputs() -> None:
    x, g = randn(6, 7), randn(6, 7)

    def f(a: Any, b: Any) -> Any:
        mask = a > 0.1  # a bool result that is also an output of the kernel
        return tt.where(mask, b * 2.0, b.neg()).exp(), mask

    tr = trace(f, x, g)
    tr.run_pass("fuse")
    assert ops(tr) == ["fused"]
    (node,) = tr.nodes()
    assert {"gt", "where"} <= {n.op for n in node.body}
    src = tr.kernels()[0][1]
    assert "unsigned char* __restrict out" in src  # bool results are written as bytes (vectorisable)
    got = tr(x, g)
    want = f(x, g)
    close(got[0], want[0])
    assert got[1].dtype == tt.bool and (got[1].numpy() == want[1].numpy()).all()


def test_a_lone_where_is_fused() -> None:
    """where(mask, g, 0) (a ReLU backward) alone still gets a generated kernel: the eager one is slow."""
    x, m = randn(6, 7), randn(6, 7) > 0

    def f(a: Any, b: Any) -> Any:
        return tt.where(b, a, 0.0)

    tr = trace(f, x, m)
    tr.run_pass("fuse")
    assert ops(tr) == ["fused"]
    close(tr(x, m)[0], f(x, m))
    single = trace(lambda a: a.exp(), x)
    assert not single.run_pass("fuse")  # any other lone node stays an eager kernel


def test_fuse_joins_a_group_fed_by_an_older_group() -> None:
    x = randn(4, 4)

    def f(a: Any) -> Any:
        t = (a * 2.0).tanh()  # group 1 starts here
        p = (a @ a) * 3.0  # group 2 starts after the matmul
        d = t * t  # joins group 1, but comes after group 2 started
        return p + d  # reads both: joins group 2 (group 1 is older, so no cycle)

    g = trace(f, x)
    g.run_pass("fuse")
    assert sorted(ops(g)) == ["fused", "fused", "matmul"]  # no add or mul left over
    close(g(x)[0], f(x), rtol=1e-5)


def test_fuse_into_a_following_reduction() -> None:
    x, y = randn(16, 33), randn(33)

    def f(a: Any, b: Any) -> Any:
        return ((a - b) ** 2).mean(), (a * 2.0).exp().sum(-1), a.tanh().amax(1), (a + 1.0).amin()

    g = trace(f, x, y)
    assert ops(g).count("mean") == 1 and ops(g).count("sum") == 1
    g.run_pass("fuse")
    assert ops(g) == ["fused"] * 4  # each chain took its reduction in
    for n in g.nodes():
        assert n.body[-1].op in ("mean", "sum", "amax", "amin")
    for got, want in zip(g(x, y), f(x, y), strict=True):
        close(got, want, rtol=1e-5)


def test_reduction_is_not_fused_when_its_input_is_needed_elsewhere() -> None:
    x = randn(8, 8)
    g = trace(lambda a: ((a * a).sum(0), a * a), x)  # a reduction over a leading dim: not fused
    g.run_pass("fuse")
    assert "sum" in ops(g)
    g2 = trace(lambda a: ((a * 3.0).exp().sum(), (a * 3.0).exp()), x)
    g2.run_pass("cse")
    g2.run_pass("fuse")
    assert "sum" in ops(g2)  # the exp result is an output too: the reduction stays separate
    for got, want in zip(g2(x), [(x * 3.0).exp().sum(), (x * 3.0).exp()], strict=True):
        close(got, want, rtol=1e-5)


def test_fuse_is_not_cut_by_small_computations_between_its_nodes() -> None:
    # An optimizer step's bias corrections are traced between the ops of a parameter's update; the
    # one-element nodes move before the group, so the update stays one kernel (it was two here).
    x, s = randn(6, 8), randn()

    def f(a: Any, c: Any) -> Any:
        y = a * 2.0  # the group starts
        k = (c * 3.0).exp()  # a scalar made after it starts ...
        return (y + 1.0) * k  # ... read by the group

    g = trace(f, x, s)
    assert g.run_pass("hoist_scalars")
    g.run_pass("fuse")
    big = [n for n in g.nodes() if n.op == "fused" and g.value(n.outputs[0]).shape == (6, 8)]
    assert len(big) == 1 and [m.op for m in big[0].body if m.op != "expand"] == ["mul", "add", "mul"]
    close(g(x, s)[0], f(x, s), rtol=1e-6)


@pytest.mark.parametrize(("dims", "keepdim"), [((0, 2, 3), False), ((0, 2, 3), True), ((0, 3), False), ((0, 1, 3), True)])
def test_fuse_splits_a_sum_over_outer_and_trailing_dims(dims: tuple[int, ...], keepdim: bool) -> None:
    # a conv bias's gradient (dims 0, 2, 3): a sum over the contiguous trailing rows, then over the
    # leading dims of the small result
    x = randn(8, 6, 10, 12)

    def f(a: Any) -> Any:
        return (a * 2.0).sum(dims, keepdim=keepdim)

    g = trace(f, x)
    assert g.run_pass("split_sums")
    g.run_pass("fuse")
    sums = [n for n in g.nodes() if n.op == "sum"]
    assert len(sums) == 2
    assert sums[0].attrs["mask"][-1] == 1 and not any(sums[0].attrs["mask"][:-1])
    assert len(g.value(sums[0].inputs[0]).shape) == len(g.value(sums[0].outputs[0]).shape) + 1
    close(g(x)[0], f(x), rtol=1e-5, atol=1e-4)


def test_fuse_leaves_trailing_and_view_sums_alone() -> None:
    x = randn(8, 6, 10, 12)
    g = trace(lambda a: (a * 2.0).sum((2, 3)) + a.permute(1, 0, 2, 3).sum((0, 2, 3)).sum(), x)
    g.run_pass("split_sums")
    g.run_pass("fuse")
    assert [n.op for n in g.nodes()].count("sum") == 3  # a trailing sum; a sum over a view (not contiguous)


POOLINGS = [(2, 2, 0, 0.0), (3, 2, 1, 0.0), (3, 1, 1, -0.5), (2, 2, 0, -3.0)]  # kernel, stride, padding, bias


def _conv_relu_pool_step(
    batch: int, dtype: Any, seed: int, kernel: int, stride: int, padding: int, shift: float
) -> tuple[Any, Any, Any, Any, Callable[[Any], Any]]:
    """x, the conv's weight and bias (requiring grad), the pooling, and a training step of
    conv -> relu -> max-pool (overlapping windows, padding, mostly negative inputs by the bias)."""
    F = tt.nn.functional
    rng = np.random.default_rng(seed)
    x = tt.tensor(rng.standard_normal((batch, 3, 9, 9)).astype(dtype))
    w = tt.tensor((rng.standard_normal((4, 3, 3, 3)) * 0.3).astype(dtype))
    b = tt.tensor(np.full(4, shift, dtype))
    w.requires_grad = b.requires_grad = True

    def pool(a: Any) -> Any:
        return F.max_pool2d(F.relu(F.conv2d(a, w, b, padding=1)), kernel, stride, padding)

    def f(a: Any) -> Any:
        h = pool(a)
        loss = (h**2).sum() + h.sum()
        loss.backward()
        return loss.detach()

    return x, w, b, pool, f


@pytest.mark.parametrize(("kernel", "stride", "padding", "shift"), POOLINGS)
def test_fuse_moves_relu_after_max_pooling(kernel: int, stride: int, padding: int, shift: float) -> None:
    # NOTE [ ReLU before max-pooling ]: relu and its backward's mask run on the pooled tensor; the
    # loss and gradients are bitwise eager's
    x, w, b, _, f = _conv_relu_pool_step(2, np.float32, 3, kernel, stride, padding, shift)
    # without the later rewrites of the pooling (pool_sums, conv_pool: tested below)
    cf = tt.compile(f, params=[w, b], passes=[p for p in tt.graph.PASSES if p not in ("pool_sums", "conv_pool")])
    w.grad = b.grad = None
    got = cf(x)
    gw, gb = w.grad, b.grad
    w.grad = b.grad = None
    want = f(x)
    assert float(got.item()) == float(want.item())
    np.testing.assert_array_equal(gw.numpy(), w.grad.numpy())
    np.testing.assert_array_equal(gb.numpy(), b.grad.numpy())
    g = cf.graph_for(x)
    nodes = g.nodes()
    producer = {o: n.op for n in nodes for o in n.outputs}
    # the pooling reads the convolution; its backward reads the relu-masked pooled gradient
    assert producer[next(n for n in nodes if n.op == "max_pool2d").inputs[0]] == "conv2d"
    assert producer[next(n for n in nodes if n.op == "max_pool2d_backward").inputs[0]] == "relu_backward"
    assert "conv2d" not in [producer.get(i) for n in nodes if n.op == "relu_backward" for i in n.inputs]


@pytest.mark.parametrize(("kernel", "stride", "padding", "shift"), POOLINGS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_conv_relu_pool_becomes_one_node(kernel: int, stride: int, padding: int, shift: float, dtype: Any) -> None:
    # NOTE [ Fused convolution and pooling ] and NOTE [ Pooled bias gradients ]: the pooled values
    # and the weight gradient are eager's bits; the loss's sums run in another fused-kernel grouping
    # and the bias gradient sums the pooled gradient, both equal up to the order of the additions
    x, w, b, pool, f = _conv_relu_pool_step(5, dtype, 4, kernel, stride, padding, shift)
    cf = tt.compile(f, params=[w, b])
    w.grad = b.grad = None
    got = cf(x)
    gw, gb = w.grad, b.grad
    w.grad = b.grad = None
    want = f(x)
    tol = 1e-6 if dtype == np.float32 else 1e-13
    np.testing.assert_allclose(got.item(), want.item(), rtol=tol)
    np.testing.assert_array_equal(gw.numpy(), w.grad.numpy())
    np.testing.assert_allclose(gb.numpy(), b.grad.numpy(), rtol=10 * tol, atol=10 * tol)
    with tt.no_grad():
        np.testing.assert_array_equal(tt.compile(pool)(x).numpy(), pool(x).numpy())
    nodes = cf.graph_for(x).nodes()
    names = [n.op for n in nodes]
    assert names.count("conv2d_max_pool2d") == 1 and "conv2d" not in names and "max_pool2d" not in names
    fused = next(n for n in nodes if n.op == "conv2d_max_pool2d")
    assert fused.attrs["relu"] is True and fused.attrs["bias"] is True
    # x needs no gradient: the weight gradient scatters the pooled gradient itself
    assert "conv2d_backward_weight_pooled" in names and "max_pool2d_backward" not in names
    # the bias gradient's sums read the pooled gradient, not the pooling's backward (through reshapes)
    producer = {o: n for n in nodes for o in n.outputs}

    def source(v: int) -> str:
        while v in producer and producer[v].op == "reshape":
            v = producer[v].inputs[0]
        return producer[v].op if v in producer else "input"

    sums = [source(n.inputs[0]) for n in nodes if n.op == "sum"]
    assert "relu_backward" in sums and "max_pool2d_backward" not in sums, sums


@pytest.mark.parametrize("batch", [1, 3, 8])
def test_conv_pool_input_gradient_reads_the_pooled_gradient(batch: int) -> None:
    # both readers of the pooling's backward take the pooled gradient (a sample block of 8 in the
    # input gradient's GEMM; one sample: the GEMMs split over the threads)
    x, w, b, _, f = _conv_relu_pool_step(batch, np.float32, 5, 2, 2, 0, 0.0)
    x.requires_grad = True
    cf = tt.compile(lambda: f(x), params=[w, b, x])  # x a captured leaf, as a parameter is
    w.grad = b.grad = x.grad = None
    cf()
    got = (w.grad, x.grad)
    w.grad = b.grad = x.grad = None
    f(x)
    np.testing.assert_array_equal(got[0].numpy(), w.grad.numpy())
    np.testing.assert_array_equal(got[1].numpy(), x.grad.numpy())
    names = [n.op for n in cf.graph_for().nodes()]
    assert "max_pool2d_backward" not in names and "conv2d_max_pool2d" in names
    assert "conv2d_backward_input_pooled" in names and "conv2d_backward_weight_pooled" in names


def test_conv_pool_keeps_a_pooling_gradient_read_elsewhere() -> None:
    F = tt.nn.functional
    x, w = randn(2, 3, 8, 8), randn(4, 3, 3, 3)
    w.requires_grad = True

    def f(a: Any) -> Any:
        c = F.conv2d(a, w, padding=1)
        loss = F.max_pool2d(c, 2).sum() + (c * c).mean()  # c's gradient: the pooling's plus another
        loss.backward()
        return loss.detach()

    cf = tt.compile(f, params=[w])
    w.grad = None
    cf(x)
    got = w.grad
    w.grad = None
    f(x)
    close(got, w.grad, rtol=1e-5)
    names = [n.op for n in cf.graph_for(x).nodes()]
    assert "conv2d_backward_weight" in names and not any(n.endswith("_pooled") for n in names)


def test_conv_pool_keeps_a_convolution_output_read_elsewhere() -> None:
    F = tt.nn.functional
    x, w = randn(2, 3, 8, 8), randn(4, 3, 3, 3)

    def f(a: Any) -> Any:
        c = F.conv2d(a, w, padding=1)
        return F.max_pool2d(c, 2).sum() + c.mean()

    g = trace(f, x)
    assert not g.run_pass("conv_pool")
    close(g(x)[0], f(x), rtol=1e-5)


def test_conv_pool_leaves_a_relu_whose_input_is_read_elsewhere() -> None:
    F = tt.nn.functional
    x, w, b = randn(2, 3, 8, 8), randn(4, 3, 3, 3), randn(4)

    def f(a: Any) -> Any:
        p = F.max_pool2d(F.conv2d(a, w, b, padding=1), 2)
        return F.relu(p), p * 2.0

    g = trace(f, x)
    assert g.run_pass("conv_pool")
    fused = next(n for n in g.nodes() if n.op == "conv2d_max_pool2d")
    assert fused.attrs["relu"] is False and "relu" in [n.op for n in g.nodes()]
    for got, want in zip(g(x), f(x), strict=True):
        np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_conv_pool_single_sample_splits_the_kernels_instead() -> None:
    # fewer samples than threads: the convolution's GEMMs take the threads (cpu/conv.cpp)
    F = tt.nn.functional
    x, w, b = randn(1, 3, 10, 10), randn(6, 3, 3, 3), randn(6)
    g = trace(lambda a: F.relu(F.max_pool2d(F.conv2d(a, w, b, padding=1), 2, return_indices=True)[0]), x)
    g.run_pass("conv_pool")
    assert "conv2d_max_pool2d" in [n.op for n in g.nodes()]
    np.testing.assert_array_equal(g(x)[0].numpy(), F.relu(F.max_pool2d(F.conv2d(x, w, b, padding=1), 2)).numpy())


def test_relu_stays_before_max_pooling_when_its_output_is_used_elsewhere() -> None:
    F = tt.nn.functional
    x = randn(2, 3, 8, 8)

    def f(a: Any) -> Any:
        r = F.relu(a * 2.0)
        return F.max_pool2d(r, 2) .sum() + r.mean()

    g = trace(f, x)
    assert not g.run_pass("relu_pool")
    g.run_pass("fuse")
    pool = next(n for n in g.nodes() if n.op == "max_pool2d")
    assert g.value(pool.inputs[0]).shape == (2, 3, 8, 8)
    assert any(n.op == "fused" and "relu" in [m.op for m in n.body] for n in g.nodes())
    close(g(x)[0], f(x), rtol=1e-6)


def test_fuse_stops_at_non_elementwise_and_keeps_shared_values() -> None:
    x = randn(4, 4)

    def f(a: Any) -> Any:
        h = (a * 2.0).exp()
        s = h.sum(1, keepdim=True)  # a reduction reads h: h is a kernel output
        return (h / s).relu(), h.neg().abs()

    g = trace(f, x)
    g.run_pass("fuse")
    names = ops(g)
    assert "sum" in names and names.count("fused") >= 2
    for got, want in zip(g(x), f(x), strict=True):
        close(got, want)


def test_memplan_reuses_buffers() -> None:
    x = randn(64, 64)

    def f(a: Any) -> Any:
        h1 = (a * 2.0 + 1.0).exp()
        s1 = h1.softmax(-1)  # not elementwise: each stage is its own kernel
        h2 = (s1 * 3.0 - 1.0).tanh()
        s2 = h2.softmax(-1)
        h3 = (s2 + a).sigmoid().neg()
        return h3.sum(0)

    g = trace(f, x)
    for p in ("fuse", "memplan"):
        g.run_pass(p)
    fused_values = [v for n in g.nodes() if n.op == "fused" for v in n.outputs]
    slots = {g.value(v).slot for v in fused_values}
    assert len(fused_values) == 3
    assert g.num_buffers == 1 and slots == {0}  # three intermediates share one buffer
    assert "@buf0" in str(g)
    want = f(x)
    close(g(x)[0], want, rtol=1e-4)
    close(g(x)[0], want, rtol=1e-4)  # the buffer is reused across calls too


def test_memplan_never_plans_outputs() -> None:
    x = randn(16)
    g = trace(lambda a: (a * 3.0).exp() + 1.0, x)
    g.run_pass("fuse")
    g.run_pass("memplan")
    assert g.num_buffers == 0
    first = g(x)[0]
    snapshot = first.numpy().copy()
    g(x * 2.0)
    assert (first.numpy() == snapshot).all()  # the next call did not overwrite the last result


def test_output_buffers_are_recycled_only_when_released() -> None:
    x = randn(256)
    g = trace(lambda a: (a * 3.0).exp() + 1.0, x)
    g.run_pass("fuse")
    first = g(x)[0]
    held = first.numpy()  # a numpy view keeps the result alive
    snapshot = held.copy()
    second = g(x * 2.0)[0]
    assert (held == snapshot).all() and (first.numpy() == snapshot).all()
    ptr = second.data_ptr()
    del second
    third = g(x * 3.0)[0]  # the released result's buffer is reused
    assert third.data_ptr() == ptr
    close(third, (x * 9.0).exp() + 1.0)


def test_unknown_pass_is_rejected() -> None:
    g = trace(lambda a: a.exp(), randn(2))
    with pytest.raises(ValueError, match="unknown pass"):
        g.run_pass("nope")
    with pytest.raises(ValueError, match="unknown pass"):
        tt.compile(lambda a: a, passes=["dce", "nope"])


def test_verifier_runs_between_passes_and_catches_bad_graphs() -> None:
    g = trace(lambda a: a.exp().neg(), randn(2))
    g.verify()
    for p in tt.graph.PASSES:
        g.run_pass(p)  # each pass verifies its result
    assert g.passes_run == list(tt.graph.PASSES)


def test_hoist_scalars_keeps_operands_before_their_users() -> None:
    # one-element nodes only: the add reads the expand of abs (hoisted to the front) and the mul
    # (hoisted after the const's expand); it used to land between them, before the mul
    def f(a: Any, b: Any) -> Any:
        return (b.abs() + (a + a) * 0.25).amax(0)

    x, y = randn(1, 1), randn(1)
    g = trace(f, x, y)
    g.run_pass("hoist_scalars")  # the verifier runs after the pass
    close(g(x, y)[0], f(x, y))
