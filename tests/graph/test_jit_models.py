"""Save -> load -> run of whole example models: conv/pool (the digits CNN), embeddings and
attention (the char transformer), index ops and training steps with their VJP primitives."""

from __future__ import annotations

import importlib
import os
import random
import re
import struct
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import typedtensor as tt
import typedtensor.jit as jit
from tests.graph.helpers import close, randn
from tests.graph.test_jit import _runner, seal, unseal

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _example(name: str) -> Any:
    """Imports examples/<name>.py (they import their sibling `progress` module)."""
    if str(EXAMPLES) not in sys.path:
        sys.path.insert(0, str(EXAMPLES))
    return importlib.import_module(name)


def _round_trip(fn: Callable[..., Any], args: list[Any], tmp_path: Path, name: str, **kw: Any) -> Any:
    """Compiles fn, saves it, loads it back and checks the loaded graph against eager mode."""
    cf = tt.compile(fn, **kw)
    with tt.no_grad():  # an inference graph (in grad mode a model's outputs would need autograd: eager)
        cf(*args)
    path = tmp_path / f"{name}.ttg"
    jit.save(cf, path)
    g = jit.load(path)
    with tt.no_grad():
        want = fn(*args)
    wants = list(want) if isinstance(want, tuple | list) else [want]
    got = g(*args)
    assert len(got) == len(wants)
    for a, b in zip(got, wants, strict=True):
        close(a, b, rtol=1e-4, atol=1e-5)
    return path


def _run_binary(path: Path, arrays: dict[str, np.ndarray], tmp_path: Path) -> Any:
    exe = _runner()
    if exe is None:
        pytest.skip("typedtensor-run is not installed")
    npz = tmp_path / "in.npz"
    np.savez(npz, **arrays)  # type: ignore[arg-type]
    out = tmp_path / "out.npz"
    subprocess.run([exe, str(path), str(npz), "-o", str(out)], check=True, env=dict(os.environ), timeout=120)
    return np.load(out)


def _cnn() -> Any:
    pytest.importorskip("sklearn")
    mod = _example("cnn_digits")
    model = mod.DigitCNN(10)
    model.eval()  # batch norm from running stats, dropout off: a pure function of the input
    return model


def test_cnn_forward_round_trip_and_binary(tmp_path: Path) -> None:
    model = _cnn()
    x = randn(5, 1, 8, 8)
    path = _round_trip(model, [x], tmp_path, "cnn")
    g = jit.load(path)
    assert {"conv2d", "max_pool2d", "adaptive_avg_pool2d"} <= {n.op for n in g.nodes()}
    res = _run_binary(path, {"x": x.numpy()}, tmp_path)
    with tt.no_grad():
        want = model(x).numpy()
    np.testing.assert_allclose(res["out_0"], want, rtol=1e-4, atol=1e-5)


@pytest.mark.slow  # compiles a few dozen kernels (about 10 s here)
def test_cnn_training_step_round_trip(tmp_path: Path) -> None:
    """A traced backward holds the conv / pool VJP primitives: they save and load too."""
    model = _cnn()
    model.train()
    model.drop.p = 0.0  # dropout would be refused (random); the rest of training mode stays
    params = list(model.parameters())
    x, y = randn(4, 1, 8, 8), tt.tensor(np.array([1, 3, 0, 7], dtype=np.int64))

    def step(x: Any, y: Any) -> Any:
        loss = tt.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        return loss.detach()

    cf = tt.compile(step, params=params)
    for p in params:
        p.grad = None
    cf(x, y)
    path = tmp_path / "cnn_step.ttg"
    jit.save(cf, path)
    g = jit.load(path)
    ops = {n.op for n in g.nodes()}
    assert {"conv2d_backward_input", "conv2d_backward_weight", "max_pool2d_backward"} <= ops
    # loss, then one gradient per parameter, then the new value of every buffer the step writes in
    # place (BatchNorm's running statistics; NOTE [ Write-backs ] in typedtensor/graph/compiled.py)
    got = g(x, y)
    for p in params:
        p.grad = None
    ref = step(x, y)  # eager: moves the statistics on from where the compiled call left them
    close(got[0], ref, rtol=1e-4)
    grads = [p.grad for p in params if p.grad is not None]
    buffers = list(model.buffers())  # 2 BatchNorms: running_mean, running_var, num_batches_tracked
    assert len(got) == 1 + len(grads) + len(buffers)
    for a, b in zip(got[1 : 1 + len(grads)], grads, strict=True):
        close(a, b, rtol=1e-3, atol=1e-5)
    for new in got[1 + len(grads) :]:
        assert any(new.shape == b.shape and np.allclose(new.numpy(), b.numpy(), rtol=1e-4, atol=1e-6)
                   for b in buffers), new
    assert int(model.bn1.num_batches_tracked.item()) == 2  # the compiled call, then the eager one


def _charlm() -> Any:
    mod = _example("char_transformer")
    model = mod.CharLM(vocab=20, model=16, hidden=32, context=8, layers=1, heads=2)
    model.eval()
    return model


def test_char_transformer_round_trip_and_binary(tmp_path: Path) -> None:
    model = _charlm()
    ids = tt.tensor(np.array([[1, 4, 19, 0, 2, 2, 7, 3], [5, 6, 7, 8, 9, 10, 11, 12]], dtype=np.int64))
    path = _round_trip(model, [ids], tmp_path, "charlm")
    assert "index_select" in {n.op for n in jit.load(path).nodes()}
    res = _run_binary(path, {"ids": ids.numpy()}, tmp_path)
    other = tt.tensor(np.array([[3] * 8, [19, 18, 17, 16, 15, 14, 13, 12]], dtype=np.int64))
    with tt.no_grad():
        want, want_other = model(ids), model(other)
    np.testing.assert_allclose(res["out_0"], want.numpy(), rtol=1e-4, atol=1e-5)
    # other token ids through the same loaded graph (the embedding reads the input, not a frozen copy)
    close(jit.load(path)(other)[0], want_other, rtol=1e-4, atol=1e-5)


def test_loaded_index_ops_check_index_values(tmp_path: Path) -> None:
    """A saved graph runs on new indices: out-of-range ones raise, negative ones too (as torch's
    embedding and gather do)."""
    w = randn(6, 3)

    def f(i: Any, j: Any) -> Any:
        return tt.embedding(i, w), w.gather(1, j)

    i = tt.tensor(np.array([0, 5, 2], dtype=np.int64))
    j = tt.tensor(np.zeros((6, 2), dtype=np.int64))
    path = _round_trip(f, [i, j], tmp_path, "index")
    g = jit.load(path)
    close(g(i, j)[0], w.index_select(0, i))
    with pytest.raises(IndexError, match="out of bounds"):
        g(tt.tensor(np.array([-1, 0, 1], dtype=np.int64)), j)
    with pytest.raises(IndexError, match="out of bounds"):
        g(tt.tensor(np.array([0, 6, 1], dtype=np.int64)), j)
    with pytest.raises(IndexError, match="out of bounds"):
        g(i, tt.tensor(np.full((6, 2), 3, dtype=np.int64)))


def test_loaded_cross_entropy_checks_targets(tmp_path: Path) -> None:
    """The fused cross-entropy (and its backward) saved in a graph: new targets are checked per run."""
    w = randn(5, 4)

    def loss(x: Any, t: Any) -> Any:
        return tt.nn.functional.cross_entropy(x @ w, t)

    x = randn(6, 5)
    t = tt.tensor(np.array([0, 3, 1, 2, 3, 0], dtype=np.int64))
    path = _round_trip(loss, [x, t], tmp_path, "ce")
    g = jit.load(path)
    assert "cross_entropy" in {n.op for n in g.nodes()}
    other = tt.tensor(np.array([1, 1, 2, 0, 0, 3], dtype=np.int64))
    with tt.no_grad():
        close(g(x, other)[0], loss(x, other), rtol=1e-5, atol=1e-6)
    with pytest.raises(IndexError, match="out of bounds"):
        g(x, tt.tensor(np.array([0, 4, 1, 2, 3, 0], dtype=np.int64)))


def test_index_and_layout_ops_round_trip(tmp_path: Path) -> None:
    a, src = randn(4, 5), randn(2, 5)
    idx = tt.tensor(np.array([[0, 1, 2, 3, 0], [3, 2, 1, 0, 3]], dtype=np.int64))
    rows = tt.tensor(np.array([2, 0], dtype=np.int64))
    # made outside: host data read inside a compiled function is refused (tests/graph/test_functionalize.py)
    picks = tt.tensor(np.array([1, 1, 3], dtype=np.int64))

    def f(a: Any, src: Any, idx: Any, rows: Any) -> Any:
        s = a.scatter_add(0, idx, src) + a.scatter(0, idx, src)
        t = a.index_add(0, rows, src) + a.index_select(0, picks).sum()
        m = a.masked_fill(a > 0, 0.5).flip([1]).tril() + a.repeat(1, 1).triu(1)
        return s, t, m

    _round_trip(f, [a, src, idx, rows], tmp_path, "idx")


def test_view_gradients_round_trip(tmp_path: Path) -> None:
    """slice / select backward (ViewScatter) and GELU backward in a traced training step."""
    w = randn(6, 4)
    w.requires_grad_(True)

    def step(x: Any) -> Any:
        h = tt.nn.functional.gelu(x @ w)
        # squared: the views' gradients depend on x (a plain sum's are constants, which the fold pass folds)
        loss = ((h[1:4, ::2] ** 2).sum() + (h.select(1, 2) ** 2).sum() * 2.0)
        loss.backward()
        return loss.detach()

    x = randn(5, 6)
    cf = tt.compile(step, params=[w])
    w.grad = None
    cf(x)
    path = tmp_path / "views.ttg"
    jit.save(cf, path)
    header = path.read_bytes()
    assert b"node slice_backward" in header and b"node select_backward" in header and b"node gelu_backward" in header
    g = jit.load(path)
    w.grad = None
    ref = step(x)
    got = g(x)
    close(got[0], ref, rtol=1e-5)
    assert w.grad is not None
    close(got[1], w.grad, rtol=1e-4, atol=1e-6)


def _edit(data: bytes, old: bytes, new: bytes) -> bytes:
    data = unseal(data)
    hlen = struct.unpack("<Q", data[12:20])[0]
    header = data[20 : 20 + hlen]
    assert old in header, old
    header = header.replace(old, new, 1)
    return seal(data[:12] + struct.pack("<Q", len(header)) + header + data[20 + hlen :])


def _conv_file(tmp_path: Path, fused: bool) -> bytes:
    """A saved conv -> relu -> max-pool graph: one conv2d_max_pool2d node (the default pipeline's
    conv_pool pass), or conv2d and max_pool2d nodes."""
    k = randn(2, 1, 3, 3)
    passes = list(tt.graph.PASSES) if fused else [p for p in tt.graph.PASSES if p != "conv_pool"]
    cf = tt.compile(lambda a: tt.max_pool2d(tt.relu(tt.conv2d(a, k, padding=1)), 2), passes=passes)
    cf(randn(1, 1, 4, 4))
    path = tmp_path / "conv.ttg"
    jit.save(cf, path)
    data = path.read_bytes()
    assert (b"node conv2d_max_pool2d" in data) == fused
    return data


@pytest.mark.parametrize(
    "fused, old, new",
    [
        (False, b"geom l 9 1 1 1 1", b"geom l 9 1 1 9 1"),  # padding that no longer gives the stored output size
        (False, b"geom l 9 1 1", b"geom l 9 0 1"),  # zero stride
        (False, b"geom l 9", b"geom l 3"),  # truncated geometry
        (False, b"geom l 11 2 2 2 2", b"geom l 11 2 2 1 2"),  # a pool stride that does not give the stored size
        (False, b"node conv2d 2", b"node max_pool2d 2"),  # a conv's operands handed to a pool
        (True, b"conv l 9 1 1 1 1", b"conv l 9 1 1 9 1"),  # the same, in the fused node's attributes
        (True, b"conv l 9 1 1", b"conv l 9 0 1"),
        (True, b"conv l 9", b"conv l 3"),
        (True, b"pool l 10 2 2 2 2", b"pool l 10 2 2 1 2"),
        (True, b"pool l 10 2 2 2 2 0 0 1 1 2 2", b"pool l 10 2 2 2 2 0 0 1 1 2 9"),  # a pooled size it does not give
        (True, b"pool l 10", b"pool l 4"),
        (True, b"pool l 10 2 2", b"pool l 10 -2 2"),  # a negative window
        (True, b"node conv2d_max_pool2d 2", b"node max_pool2d 2"),  # the fused node's operands handed to a pool
        (True, b"value 0 input float32", b"value 0 input int64"),  # an integer image
    ],
)
def test_malformed_conv_pool_files_are_refused(tmp_path: Path, fused: bool, old: bytes, new: bytes) -> None:
    bad = tmp_path / "bad.ttg"
    bad.write_bytes(_edit(_conv_file(tmp_path, fused), old, new))
    with pytest.raises(jit.GraphError):
        jit.load(bad)


def _conv_step_file(tmp_path: Path) -> bytes:
    """A saved training step of conv -> relu -> max-pool whose weight gradient is one
    conv2d_backward_weight_pooled node."""
    w = randn(2, 1, 3, 3)
    w.requires_grad = True

    def step(a: Any) -> Any:
        loss = tt.max_pool2d(tt.relu(tt.conv2d(a, w, padding=1)), 2).sum()
        loss.backward()
        return loss.detach(), w.grad

    cf = tt.compile(step, params=[w])
    cf(randn(2, 1, 4, 4))
    path = tmp_path / "step.ttg"
    jit.save(cf, path)
    data = path.read_bytes()
    assert b"node conv2d_backward_weight_pooled" in data
    return data


@pytest.mark.parametrize(
    "old, new",
    [
        (b"conv_shape l 4 2 2 4 4", b"conv_shape l 4 2 2 9 4"),  # a convolution output the geometry does not give
        (b"conv_shape l 4 2 2", b"conv_shape l 4 3 2"),  # another batch than the gradient's
        (b"conv_shape l 4", b"conv_shape l 2"),
        (b"node conv2d_backward_weight_pooled 3", b"node conv2d_backward_weight 3"),  # the wrong operands
    ],
)
def test_malformed_pooled_weight_gradient_files_are_refused(tmp_path: Path, old: bytes, new: bytes) -> None:
    bad = tmp_path / "bad.ttg"
    bad.write_bytes(_edit(_conv_step_file(tmp_path), old, new))
    with pytest.raises(jit.GraphError):
        jit.load(bad)


def test_saved_fused_conv_pool_graph_runs_like_eager(tmp_path: Path) -> None:
    k, b = randn(4, 2, 3, 3), randn(4)

    def f(a: Any) -> Any:
        return tt.max_pool2d(tt.relu(tt.conv2d(a, k, b, padding=1)), 2)

    cf = tt.compile(f)
    x = randn(3, 2, 6, 6)
    cf(x)
    path = tmp_path / "conv.ttg"
    jit.save(cf, path)
    assert b"node conv2d_max_pool2d" in path.read_bytes()
    g = jit.load(path)
    assert [n.op for n in g.nodes()].count("conv2d_max_pool2d") == 1
    np.testing.assert_array_equal(g(x)[0].numpy(), f(x).numpy())



def test_malformed_index_file_is_refused(tmp_path: Path) -> None:
    w = randn(6, 3)
    cf = tt.compile(lambda i: tt.embedding(i, w))
    cf(tt.tensor(np.array([0, 1], dtype=np.int64)))
    path = tmp_path / "emb.ttg"
    jit.save(cf, path)
    data = path.read_bytes()
    bad = tmp_path / "bad.ttg"
    bad.write_bytes(_edit(data, b"value 0 input int64", b"value 0 input float32"))
    with pytest.raises(jit.GraphError, match="int64"):
        jit.load(bad)


def test_mutated_conv_pool_index_files_never_crash(tmp_path: Path) -> None:
    """Every integer of a conv/pool/embedding/gather graph's header perturbed in turn (fixed seed):
    loading and running either works or raises a clean error, never reads out of bounds."""
    rng = random.Random(0)
    k, w = randn(2, 1, 3, 3), randn(6, 3)
    col = tt.tensor(np.zeros((3, 2), dtype=np.int64))

    def f(a: Any, i: Any) -> Any:
        h = tt.max_pool2d(tt.conv2d(a, k, padding=1), 2)
        return h.sum(), tt.embedding(i, w).gather(1, col), tt.avg_pool2d(a, 2)

    x, i = randn(1, 1, 4, 4), tt.tensor(np.array([0, 5, 2], dtype=np.int64))
    cf = tt.compile(f)
    cf(x, i)
    path = tmp_path / "fz.ttg"
    jit.save(cf, path)
    data = unseal(path.read_bytes())
    hlen = struct.unpack("<Q", data[12:20])[0]
    header = data[20 : 20 + hlen].decode()
    tokens = list(re.finditer(r"-?\d+", header))
    bad = tmp_path / "bad.ttg"
    refused = 0
    for _ in range(150):
        m = rng.choice(tokens)
        v = rng.choice([0, 1, -1, 2, 7, 64, 10**6, int(m.group()) + 1, int(m.group()) - 1, 2**40])
        h2 = header[: m.start()] + str(v) + header[m.end() :]
        bad.write_bytes(seal(data[:12] + struct.pack("<Q", len(h2)) + h2.encode() + data[20 + hlen :]))
        try:
            jit.load(bad, passes=[])(x, i)
        except (jit.GraphError, IndexError):
            refused += 1
    assert refused > 100  # most perturbations break a checked invariant
