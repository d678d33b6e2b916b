"""tt.compile on real programs: in-place ops are functionalized, buffers and arguments written in
place are written back after every call, host data made inside the function is refused, and every
refusal names the op and the user's line (NOTE [ Functionalization ] in backend/src/graph/trace.cpp)."""

from __future__ import annotations

import copy
import inspect
from typing import Any

import numpy as np
import pytest

import typedtensor as tt
from tests.graph.helpers import close, randn
from tests.graph.test_compile import Batch, Feat
from typedtensor import Tensor, nn


def _line_of(marker: str) -> int:
    """The line of this file holding `marker` (for messages that must name the user's line)."""
    lines = inspect.getsource(inspect.getmodule(_line_of)).splitlines()  # type: ignore[arg-type]
    return next(i + 1 for i, s in enumerate(lines) if marker in s and "_line_of" not in s)


def _ops(g: Any) -> list[str]:
    return [n.op for n in g.nodes()] + [b.op for n in g.nodes() for b in n.body]


# ---------------------------------------------------------------- intermediates


def test_inplace_ops_on_intermediates_are_functionalized() -> None:
    def f(x: Any, w: Any) -> Any:
        y = x * 2.0
        y.add_(w)
        y.relu_()
        y.mul_(0.5).clamp_(max=1.0)
        z = y.exp()
        z.copy_(z * y)  # copy_ of a value computed from itself
        return z + y

    cf = tt.compile(f)
    w = randn(4)
    for _ in range(3):
        x = randn(3, 4)
        close(cf(x, w), f(x, w))
    assert cf.traces == 1
    assert not any(op.endswith("_") for op in _ops(cf.graph_for(x, w)))


def test_relu_inplace_model_compiles_and_matches_eager() -> None:
    net = nn.Sequential(nn.Linear(6, 8), nn.ReLU(inplace=True), nn.Linear(8, 8), nn.LeakyReLU(0.1, inplace=True),
                        nn.Linear(8, 3), nn.SiLU(inplace=True))
    net.eval()
    cnet = tt.compile(net)
    with tt.no_grad():
        for _ in range(3):
            x = randn(5, 6)
            close(cnet(x), net(x))
    assert cnet.traces == 1


def test_writes_through_views_and_stale_views() -> None:
    def f(x: Any) -> Any:
        y = x + 0.0
        row = y[0]  # a view made before the writes below: it must see them
        y[:, 1] = -1.0  # setitem: a scatter
        y[:, 2].mul_(10.0)  # an in-place op on a strided view
        y.t()[3].add_(100.0)  # through a permute and a select
        y.view(-1)[:2].zero_()  # through a reshape and a slice
        return row * 1.0, y

    cf = tt.compile(f)
    for _ in range(2):
        x = randn(4, 5)
        got, want = cf(x), f(x)
        close(got[0], want[0])
        close(got[1], want[1])


def test_setitem_with_a_traced_index_reads_the_index_each_call() -> None:
    def f(x: Any, idx: Any, v: Any) -> Any:
        y = x.clone()
        y[idx] = v
        return y

    cf = tt.compile(f)
    x, v = randn(6, 2), randn(2, 2)
    for ids in ([0, 3], [5, -1], [2, 1]):
        idx = tt.tensor(np.array(ids, dtype=np.int64))
        close(cf(x, idx, v), f(x, idx, v))


def test_a_constant_the_function_makes_and_writes_starts_fresh_each_call() -> None:
    def f(x: Any) -> Any:
        acc = tt.zeros(3)
        acc.add_(x)
        acc.mul_(2.0)
        return acc

    cf = tt.compile(f)
    x = randn(3)
    for _ in range(3):
        close(cf(x), x * 2.0)  # never accumulated across calls


# ---------------------------------------------------------------- write-backs


def test_a_captured_buffer_written_in_place_is_updated_by_every_call() -> None:
    buf = tt.zeros(3)

    def f(x: Any) -> Any:
        buf.mul_(0.5).add_(x)
        return buf * 2.0

    cf = tt.compile(f)
    ref = tt.zeros(3)
    for k in range(4):
        x = randn(3)
        out = cf(x)
        ref = ref * 0.5 + x
        close(buf, ref)  # the first call (the trace) updated it once, like the others
        close(out, ref * 2.0)
        assert cf.traces == 1, k


def test_an_argument_written_in_place_is_written_back() -> None:
    def f(x: Any, y: Any) -> Any:
        x.add_(1.0)
        y[0] = 7.0
        return x * y

    cf = tt.compile(f)
    a, b = randn(3), randn(3)
    a0, b0 = a.clone(), b.clone()
    out = cf(a, b)
    b0[0] = 7.0
    close(a, a0 + 1.0)
    close(b, b0)
    close(out, (a0 + 1.0) * b0)
    t = randn(4, 3).t()  # not contiguous: written back through the caller's own layout
    t0 = t.clone()
    cf(t[0], t[1])
    close(t[0], t0[0] + 1.0)


def test_arguments_that_share_memory_are_part_of_the_guard() -> None:
    def f(x: Any, y: Any) -> Any:
        x.add_(1.0)
        return y * 2.0  # sees the write when y is x

    cf = tt.compile(f)
    a = tt.zeros(3)
    close(cf(a, a), tt.full((3,), 2.0))
    b, c = tt.zeros(3), tt.zeros(3)
    close(cf(b, c), tt.zeros(3))  # another graph: y is not x here
    close(b, tt.ones(3))
    d = tt.zeros(2, 3)
    close(cf(d[0], d[0]), tt.full((3,), 2.0))  # two views of one place in a buffer alias too
    assert cf.traces == 2
    # two places in one buffer: traced again; the write is not visible through y, which the graph
    # cannot follow (refused, not a graph that reads x's new value as y)
    with pytest.raises(NotImplementedError, match=r"\[mul\].*in-place write changed"):
        cf(d[0], d[1])
    close(d[0], tt.ones(3))  # the first call added 1 once; the refused trace put its write back
    close(d[1], tt.zeros(3))


def test_a_parameter_updated_in_place_inside_the_function() -> None:
    w = randn(4)
    w.requires_grad = True

    def step(x: Any) -> Any:
        loss = ((w * x).sum() - 1.0) ** 2
        loss.backward()
        with tt.no_grad():
            w.sub_(w.grad * 0.1)  # an SGD step inside the compiled function
        return loss.detach()

    w_ref = w.detach().clone()
    w_ref.requires_grad = True
    cstep = tt.compile(step, params=[w])
    x = randn(4)
    for _ in range(3):
        w.grad = None
        w_ref.grad = None
        got = cstep(x)
        loss = ((w_ref * x).sum() - 1.0) ** 2
        loss.backward()
        with tt.no_grad():
            w_ref.sub_(w_ref.grad * 0.1)
        close(got, loss.detach(), rtol=1e-5)
        close(w.detach(), w_ref.detach(), rtol=1e-5)
        assert w.requires_grad
    assert cstep.traces == 1


def test_batchnorm_running_statistics_are_updated_by_every_call() -> None:
    bn = nn.BatchNorm2d(3)
    ref = copy.deepcopy(bn)
    cbn = tt.compile(bn)
    with tt.no_grad():
        for _ in range(4):
            x = randn(4, 3, 5, 5) * 2.0 + 1.0
            close(cbn(x), ref(x), rtol=1e-4, atol=1e-5)
            close(bn.running_mean, ref.running_mean, rtol=1e-5)
            close(bn.running_var, ref.running_var, rtol=1e-5)
            assert int(bn.num_batches_tracked.item()) == int(ref.num_batches_tracked.item())
    assert cbn.traces == 1
    bn.eval()
    ref.eval()
    with tt.no_grad():  # eval mode reads the statistics the compiled calls wrote
        x = randn(2, 3, 5, 5)
        close(cbn(x), ref(x), rtol=1e-4, atol=1e-5)


def test_freeze_refuses_a_function_that_writes_a_capture() -> None:
    buf = tt.zeros(2)
    with pytest.raises(ValueError, match="freeze"):
        tt.compile(lambda x: buf.add_(x), freeze=True)(randn(2))
    close(buf, tt.zeros(2))  # the trace's eager write was put back


def test_compiled_function_with_a_write_back_inside_another() -> None:
    buf = tt.zeros(3)
    inner = tt.compile(lambda x: buf.add_(x) * 1.0)
    outer = tt.compile(lambda x: inner(x) + 1.0)
    x = randn(3)
    for k in range(1, 4):
        close(outer(x), x * k + 1.0, rtol=1e-5)
        close(buf, x * k, rtol=1e-5)


# ---------------------------------------------------------------- a ResNet-style block, trained


class _Block(nn.Module):
    """torchvision's BasicBlock shape: conv-bn-relu(inplace)-conv-bn, `out += identity`, relu(inplace)."""

    def __init__(self, c: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(c)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(c)

    def forward(self, x: Any) -> Any:
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        out += identity
        return self.relu(out)


class _Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.stem = nn.Conv2d(1, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4)
        self.relu = nn.ReLU(inplace=True)
        self.block = _Block(4)
        self.head = nn.Linear(4, 3)

    def forward(self, x: Any) -> Any:
        h = self.block(self.relu(self.bn(self.stem(x))))
        return self.head(h.mean((2, 3)))


@pytest.mark.slow  # compiles a few dozen kernels the first time
def test_resnet_block_training_step_equals_eager() -> None:
    tt.manual_seed(3)
    model = _Net()
    ref = copy.deepcopy(model)
    opt = tt.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    ref_opt = tt.optim.SGD(ref.parameters(), lr=0.1, momentum=0.9)

    def step(x: Any, y: Any) -> Any:
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        return loss.detach()

    cstep = tt.compile(step, params=list(model.parameters()))
    rng = np.random.default_rng(0)
    for it in range(4):
        x = tt.tensor(rng.standard_normal((6, 1, 6, 6)).astype(np.float32))
        y = tt.tensor(rng.integers(0, 3, 6).astype(np.int64))
        opt.zero_grad()
        loss = cstep(x, y)
        opt.step()
        ref_opt.zero_grad()
        ref_loss = nn.functional.cross_entropy(ref(x), y)
        ref_loss.backward()
        ref_opt.step()
        close(loss, ref_loss.detach(), rtol=1e-4, atol=1e-6)
        for (name, p), q in zip(model.named_parameters(), ref.parameters(), strict=True):
            np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=1e-4, atol=1e-5,
                                       err_msg=f"{name} after step {it}")
        for (name, b), r in zip(model.named_buffers(), ref.buffers(), strict=True):
            np.testing.assert_allclose(b.numpy(), r.numpy(), rtol=1e-4, atol=1e-6, err_msg=f"{name} after step {it}")
    assert cstep.traces == 1
    g = cstep.graph_for(x, y)
    assert not any(op in ("relu_", "add_", "mul_") for op in _ops(g))


# ---------------------------------------------------------------- host data and frozen values


def test_table_indexed_by_an_argument_reads_the_ids_each_call() -> None:
    table = randn(10, 4)
    f = tt.compile(lambda ids: table[ids])
    for ids in ([1, 2], [5, 7], [-1, 0], [9, -10]):
        idx = tt.tensor(np.array(ids, dtype=np.int64))
        np.testing.assert_array_equal(f(idx).numpy(), table.numpy()[ids])
    assert f.traces == 1
    rows = tt.compile(lambda ids: table[ids, 1:3] * 2.0)  # with a slice, and two index dims
    idx = tt.tensor(np.array([[3], [8]], dtype=np.int64))
    np.testing.assert_allclose(rows(idx).numpy(), table.numpy()[[[3], [8]], 1:3] * 2.0, rtol=1e-6)
    pair = tt.compile(lambda i, j: table[i, j])
    i, j = tt.tensor(np.array([0, 9], dtype=np.int64)), tt.tensor(np.array([3, 1], dtype=np.int64))
    pair(i, j)
    i2 = tt.tensor(np.array([4, 4], dtype=np.int64))
    np.testing.assert_array_equal(pair(i2, j).numpy(), table.numpy()[[4, 4], [3, 1]])
    # a column id out of range whose flattened position (1 * 4 + 5) is inside the table: refused, as eager
    with pytest.raises(IndexError):
        pair(tt.tensor(np.array([0, 1], dtype=np.int64)), tt.tensor(np.array([1, 5], dtype=np.int64)))
    with pytest.raises(IndexError):
        f(tt.tensor(np.array([3, 10], dtype=np.int64)))
    assert pair.traces == 1 and f.traces == 1


class _ListInForward(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lin = nn.Linear(2, 2)

    def forward(self, x: Any) -> Any:
        scale = tt.tensor([1.0, 2.0])  # HOST-DATA-LINE
        return self.lin(x) * scale


def test_a_tensor_built_from_a_list_inside_forward_is_refused_naming_the_line() -> None:
    m = _ListInForward()
    with pytest.raises(NotImplementedError) as info:
        tt.compile(m)(randn(3, 2))
    msg = str(info.value)
    assert "made from host data by tensor()" in msg and "[expand]" in msg  # the broadcast of `* scale`
    assert f"test_functionalize.py:{_line_of('HOST-DATA-LINE')}" in msg
    with tt.no_grad():  # the tracer is gone: eager mode is unaffected
        assert m(randn(3, 2)).shape == (3, 2)


def test_from_numpy_inside_the_function_is_refused() -> None:
    arr = np.ones(3, dtype=np.float32)
    with pytest.raises(NotImplementedError, match=r"from_numpy\(\)"):
        tt.compile(lambda x: x + tt.from_numpy(arr))(randn(3))
    # made outside the function, the same tensor is a capture read by reference
    w = tt.from_numpy(arr)
    cf = tt.compile(lambda x: x + w)
    x = randn(3)
    close(cf(x), x + 1.0)
    arr[:] = 5.0
    close(cf(x), x + 5.0)


def test_host_reads_of_traced_values_are_refused_naming_the_line() -> None:
    def scale_by_max(x: Any) -> Any:
        return x * x.max().item()  # ITEM-LINE

    with pytest.raises(NotImplementedError) as info:
        tt.compile(scale_by_max)(randn(3))
    assert "[item()]" in str(info.value)
    assert f"test_functionalize.py:{_line_of('ITEM-LINE')} in scale_by_max" in str(info.value)

    def branch(x: Any) -> Any:
        return x * 2.0 if x.sum() > 0 else x  # a Python `if` on a traced value: bool() reads it

    with pytest.raises(NotImplementedError, match=r"\[item\(\)\]"):
        tt.compile(branch)(randn(3))
    for host_read in (lambda x: x + float(x.tolist()[0]), lambda x: x + float(x.numpy()[0])):
        with pytest.raises(NotImplementedError, match=r"\[(tolist|numpy)\(\)\]"):
            tt.compile(host_read)(randn(3))
    # a captured tensor's value, and a constant the function made, are not traced values
    lr = tt.tensor(0.5)
    cf = tt.compile(lambda x: x * lr.item() * tt.tensor(3.0).item())
    x = randn(3)
    close(cf(x), x * 1.5)


def test_library_constants_and_python_numbers_are_not_host_data() -> None:
    def f(x: Any) -> Any:
        return x * tt.tensor(2.0) + tt.arange(3)  # a Python number; a constant from the sizes

    cf = tt.compile(f)
    x = randn(3)
    close(cf(x), f(x))


def test_mlp_example_compiles_in_eval_mode() -> None:
    from tests.graph.test_jit_models import _example

    mod = _example("mlp_digits")
    model = mod.MLP(mod.Pixels(64), mod.Hidden(32), mod.Classes(10))
    model.eval()
    cm = tt.compile(model)
    with tt.no_grad():
        for n in (5, 7):
            x = randn(n, 64)
            close(cm(x), model(x), rtol=1e-5, atol=1e-6)
        g = cm.graph_for(randn(5, 64))
    assert "Batch" in g.text(symbolic=True)


# ---------------------------------------------------------------- refusals name the op and the line


def test_refusals_name_the_op_and_the_users_line() -> None:
    def random_op(x: Any) -> Any:
        return x + tt.randn(3)  # RANDOM-LINE

    with pytest.raises(NotImplementedError) as info:
        tt.compile(random_op)(randn(3))
    assert "[randn]" in str(info.value)
    assert f"test_functionalize.py:{_line_of('RANDOM-LINE')} in random_op" in str(info.value)

    def mask_index(x: Any) -> Any:
        return x[x > 0]  # MASK-LINE

    with pytest.raises(NotImplementedError) as info:
        tt.compile(mask_index)(randn(5))
    assert "[nonzero]" in str(info.value)
    assert f"test_functionalize.py:{_line_of('MASK-LINE')}" in str(info.value)

    def broadcast_write(x: Any) -> Any:
        y = (x * 1.0).expand(3, 4)
        y.fill_(0.0)  # EXPAND-LINE
        return y

    with pytest.raises(NotImplementedError) as info:
        tt.compile(broadcast_write)(randn(4))
    assert "[fill_]" in str(info.value)
    assert f"test_functionalize.py:{_line_of('EXPAND-LINE')}" in str(info.value)
    close(randn(3) * 0.0, tt.zeros(3))  # the tracer was uninstalled


def test_shape_errors_name_the_line() -> None:
    def f(x: Tensor[Batch, Feat]) -> Tensor[Batch, Feat]:
        return x.transpose(0, 1) + x  # SHAPE-LINE

    with pytest.raises(tt.ShapeError) as info:
        tt.compile(f)(randn(3, 3))
    assert f"test_functionalize.py:{_line_of('SHAPE-LINE')}" in str(info.value)


def test_captured_nodes_carry_their_source_line() -> None:
    def f(x: Any) -> Any:
        return x.exp()  # EXP-LINE

    g = tt.compile(f, passes=[]).graph_for(randn(2))
    (node,) = g.nodes()
    assert node.where.endswith(f"test_functionalize.py:{_line_of('EXP-LINE')} in f")
