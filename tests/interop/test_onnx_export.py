"""``tt.onnx.export``: every example model and random elementwise/reduction graphs, exported, run by
onnxruntime at two batch sizes other than the traced one, and compared with eager typedtensor."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pytest

import typedtensor as tt
from tests.interop import models
from typedtensor import Dim, Tensor

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")


class Batch(Dim):
    "examples"


class Seq(Dim):
    "positions"


class Model(Dim):
    "features"


def run(path: Path | Any, inputs: list[Any]) -> list[np.ndarray]:
    data = path.SerializeToString() if hasattr(path, "SerializeToString") else str(path)
    sess = ort.InferenceSession(data, providers=["CPUExecutionProvider"])
    return sess.run(None, {i.name: x.numpy() for i, x in zip(sess.get_inputs(), inputs, strict=True)})


def eager(fn: Callable[..., Any], inputs: list[Any]) -> list[np.ndarray]:
    with tt.no_grad():
        out = fn(*inputs)
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    return [o.float().numpy() if o.dtype == tt.bfloat16 else o.numpy() for o in outs]


def dims(value_info: Any) -> list[Any]:
    return [d.dim_param or d.dim_value for d in value_info.type.tensor_type.shape.dim]


def close(got: list[np.ndarray], want: list[np.ndarray], rtol: float = 1e-4, atol: float = 1e-5) -> None:
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, w.shape, g.dtype, w.dtype)
        if w.dtype.kind in "biu":
            np.testing.assert_array_equal(g, w)
        else:
            np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, equal_nan=True)


@pytest.mark.parametrize("name", models.NAMES)
def test_every_example_model_runs_in_onnxruntime_at_other_batch_sizes(name: str, tmp_path: Path) -> None:
    model, inputs = models.build(name)
    model.eval()
    path = tmp_path / f"{name}.onnx"
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the feature dims are fixed by the weights: no warning for those
        proto = tt.onnx.export(model, inputs(2), path)
    assert dims(proto.graph.input[0])[0] == "Batch" and dims(proto.graph.output[0])[0] == "Batch"
    assert proto.opset_import[0].version >= 17
    for batch in (3, 5):
        x = inputs(batch)
        close(run(path, x), eager(model, x))


def test_annotated_dims_become_dim_params_and_reshapes_read_them_at_run_time() -> None:
    """A reshape whose target depends on Batch and Seq is computed from Shape nodes, so the model
    runs at sizes that differ from the traced ones (baked-in targets would fail there)."""
    w = tt.randn(8, 6)

    def f(x: Tensor[Batch, Seq, Model]) -> Tensor[Batch, Seq, Literal[6]]:
        flat = x.reshape(x.shape[0] * x.shape[1], 8) @ w
        return flat.reshape(x.shape[0], x.shape[1], 6).softmax(-1)[:, 1:, :] * 2

    proto = tt.onnx.export(f, [tt.randn(2, 5, 8)], input_names=["x"], output_names=["y"])
    assert dims(proto.graph.input[0]) == ["Batch", "Seq", 8]
    assert dims(proto.graph.output[0]) == ["Batch", "Seq - 1", 6]
    assert any(n.op_type == "Shape" for n in proto.graph.node)
    for b, s in ((3, 5), (4, 9), (1, 2)):
        x = tt.randn(b, s, 8)
        close(run(proto, [x]), eager(f, [x]))


def test_dims_that_cannot_vary_are_fixed_with_a_reason() -> None:
    table = tt.randn(16, 4)

    def positions(ids: Tensor[Batch, Seq]) -> Tensor[Batch, Seq, Literal[4]]:
        emb = tt.nn.functional.embedding
        return emb(ids, table) + emb(tt.arange(ids.shape[1]), table)  # arange is traced as a constant of length Seq

    with pytest.warns(UserWarning, match=r"Seq is exported with its traced size 6: a constant the function makes"):
        proto = tt.onnx.export(positions, [tt.randint(0, 16, (2, 6))])
    assert dims(proto.graph.input[0]) == ["Batch", 6]
    x = tt.randint(0, 16, (5, 6))
    close(run(proto, [x]), eager(positions, [x]))
    with pytest.warns(UserWarning, match="example size is 1"):
        tt.onnx.export(lambda x: x * 2, [tt.randn(1, 3)], dynamic_axes={"x": {0: "batch"}})


def test_a_table_indexed_by_the_input_reads_the_ids_and_host_values_are_refused() -> None:
    table = tt.randn(16, 4)
    # the index is built from primitives while tracing, so the model reads the ids it is given
    proto = tt.onnx.export(lambda ids: table[ids], [tt.randint(0, 16, (2, 6))], dynamic=False)
    other = tt.tensor(np.array([[15, 0, 3, 3, 9, 1], [2, 2, 2, 7, 11, 4]], dtype=np.int64))
    close(run(proto, [other]), [table.numpy()[other.numpy()]])
    # a value computed on the host from the inputs is refused, naming the op
    with pytest.raises(NotImplementedError, match=r"\[numpy\(\)\] reads a traced tensor's values on the host"):
        tt.onnx.export(lambda ids: table[tt.tensor(ids.numpy() % 16)], [tt.randint(0, 16, (2, 6))], dynamic=False)


def test_dynamic_axes_and_static_export() -> None:
    def f(x: Any, y: Any) -> Any:
        return (x * y).sum(-1), x.amax(0)

    proto = tt.onnx.export(f, [tt.randn(3, 4), tt.randn(3, 4)], input_names=["a", "b"], output_names=["s", "m"],
                           dynamic_axes={"a": {0: "rows"}, "b": {0: "rows"}})
    assert [dims(i) for i in proto.graph.input] == [["rows", 4], ["rows", 4]]
    assert [o.name for o in proto.graph.output] == ["s", "m"] and dims(proto.graph.output[0]) == ["rows"]
    x, y = tt.randn(7, 4), tt.randn(7, 4)
    close(run(proto, [x, y]), eager(f, [x, y]))
    # two names for one size: neither can move alone (the product needs equal sizes), so both are fixed
    apart = tt.onnx.export(f, [tt.randn(3, 4), tt.randn(3, 4)], input_names=["a", "b"], dynamic_axes={"a": [0], "b": [0]})
    assert [dims(i) for i in apart.graph.input] == [[3, 4], [3, 4]]
    fixed = tt.onnx.export(f, [tt.randn(3, 4), tt.randn(3, 4)], dynamic=False)
    assert dims(fixed.graph.input[0]) == [3, 4]
    with pytest.raises(ValueError, match="input_names"):
        tt.onnx.export(f, [tt.randn(3, 4), tt.randn(3, 4)], input_names=["a"])
    with pytest.raises(ValueError, match="dynamic_axes names an input"):
        tt.onnx.export(f, [tt.randn(3, 4), tt.randn(3, 4)], dynamic_axes={"nope": [0]})


def test_integer_and_boolean_graphs() -> None:
    def f(a: Tensor[Batch, Literal[5]], b: Tensor[Batch, Literal[5]]) -> Any:
        q = a // b
        r = a % b
        m = (a > 0) & (b < 3) | (a == b)
        return q, r, m, tt.where(m, a, -b), a.sum(1), (a * 3).argmax(1)

    a = tt.randint(-20, 20, (4, 5))
    b = tt.randint(1, 7, (4, 5)) * tt.tensor([1, -1, 1, -1, 1])
    proto = tt.onnx.export(f, [a, b])
    for n in (3, 6):
        x, y = tt.randint(-20, 20, (n, 5)), tt.randint(1, 7, (n, 5)) * tt.tensor([-1, 1, -1, 1, 1])
        close(run(proto, [x, y]), eager(f, [x, y]))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float64"])
def test_other_float_dtypes(dtype: str) -> None:
    w = tt.randn(4, 3).to(getattr(tt, dtype))

    def f(x: Tensor[Batch, Literal[4]]) -> Tensor[Batch, Literal[3]]:
        return tt.relu(x.to(getattr(tt, dtype)) @ w).float()

    proto = tt.onnx.export(f, [tt.randn(2, 4)])
    x = tt.randn(5, 4)
    close(run(proto, [x]), eager(f, [x]), rtol=1e-2, atol=1e-2)


# ---------------------------------------------------------------- random graphs

UNARY: list[tuple[str, Callable[[Any], Any]]] = [
    ("neg", lambda x: -x), ("abs", tt.abs), ("exp", lambda x: tt.exp(x.clamp(-5, 5))), ("tanh", tt.tanh),
    ("sigmoid", tt.sigmoid), ("relu", tt.relu), ("gelu", tt.nn.functional.gelu),
    ("gelu_tanh", lambda x: tt.nn.functional.gelu(x, approximate="tanh")), ("silu", tt.nn.functional.silu),
    ("sin", tt.sin), ("cos", tt.cos), ("square", tt.square), ("softplus", tt.nn.functional.softplus),
    ("erf", tt.erf), ("erfc", tt.erfc), ("floor", tt.floor), ("ceil", tt.ceil), ("trunc", tt.trunc), ("frac", tt.frac),
    ("sign", tt.sign), ("sqrt", lambda x: tt.sqrt(tt.abs(x))), ("rsqrt", lambda x: tt.rsqrt(tt.abs(x) + 0.5)),
    ("log", lambda x: tt.log(tt.abs(x) + 0.1)), ("log1p", lambda x: tt.log1p(tt.abs(x))),
    ("log2", lambda x: tt.log2(tt.abs(x) + 0.1)), ("expm1", lambda x: tt.expm1(x.clamp(-3, 3))),
    ("exp2", lambda x: tt.exp2(x.clamp(-3, 3))), ("reciprocal", lambda x: tt.reciprocal(tt.abs(x) + 0.5)),
    ("atan", tt.atan), ("asinh", tt.asinh), ("mish", tt.nn.functional.mish), ("logsigmoid", tt.nn.functional.logsigmoid),
    ("hardswish", tt.nn.functional.hardswish), ("hardsigmoid", tt.nn.functional.hardsigmoid),
    ("relu6", tt.nn.functional.relu6), ("leaky_relu", lambda x: tt.nn.functional.leaky_relu(x, 0.2)),
    ("elu", tt.nn.functional.elu), ("clamp", lambda x: x.clamp(-0.5, 0.7)), ("clamp_min", lambda x: x.clamp(min=0.1)),
    ("round", lambda x: tt.round(x * 3.3)),
    ("softplus_beta", lambda x: tt.nn.functional.softplus(x, 2.0, 1.5)),
]
# atan2 and copysign see no -0.0: onnxruntime's Where returns +0.0 for it, so a signed zero's angle or sign
# can differ from eager (the ops' own handling of -0.0 is tested on explicit inputs below)
BINARY: list[tuple[str, Callable[[Any, Any], Any]]] = [
    ("add", lambda a, b: a + b), ("sub", lambda a, b: a - b), ("mul", lambda a, b: a * b),
    ("div", lambda a, b: a / (tt.abs(b) + 0.5)), ("maximum", tt.maximum), ("minimum", tt.minimum),
    ("pow", lambda a, b: tt.pow(tt.abs(a) + 0.1, b.clamp(-2, 2))), ("atan2", lambda a, b: tt.atan2(a + 0.0, b + 0.0)), ("hypot", tt.hypot),
    ("remainder", lambda a, b: tt.remainder(a, tt.abs(b) + 0.7)), ("fmod", lambda a, b: tt.fmod(a, tt.abs(b) + 0.7)),
    ("copysign", lambda a, b: tt.copysign(a, b + 0.0)), ("where", lambda a, b: tt.where(a > b, a, b * 2)),
    ("masked_fill", lambda a, b: a.masked_fill(b < 0, -1.5)), ("logical", lambda a, b: ((a > 0) ^ (b > 0)).float()),
]


# Steps whose result jumps (floor, comparisons, remainders) read only the inputs: a last-bit difference
# between two correct float computations would otherwise move them a whole step.
JUMPS = {"floor", "ceil", "trunc", "frac", "round", "sign", "remainder", "fmod", "where", "masked_fill", "logical"}


def _reduction(rng: random.Random, rank: int) -> tuple[str, Callable[[Any], Any]]:
    dim = rng.randrange(1, rank)  # the batch dim stays, so every graph runs at several batch sizes
    keep = rng.random() < 0.5
    choices: list[tuple[str, Callable[[Any], Any]]] = [
        ("sum", lambda x: x.sum(dim, keepdim=keep)), ("mean", lambda x: x.mean(dim, keepdim=keep)),
        ("amax", lambda x: x.amax(dim, keepdim=keep)), ("amin", lambda x: x.amin(dim, keepdim=keep)),
        ("prod", lambda x: (x.clamp(-1.2, 1.2)).prod(dim, keepdim=keep)),
        ("logsumexp", lambda x: x.logsumexp(dim, keepdim=keep)), ("var", lambda x: x.var(dim, keepdim=keep)),
        ("std", lambda x: x.std(dim, keepdim=keep, correction=0)), ("norm", lambda x: x.norm(dim=dim, keepdim=keep)),
        ("max", lambda x: x.max(dim, keepdim=keep)[0]), ("softmax", lambda x: x.softmax(dim)),
        ("log_softmax", lambda x: x.log_softmax(dim)), ("cumsum", lambda x: x.cumsum(dim)),
        ("sum_all_but_batch", lambda x: x.reshape(x.shape[0], -1).sum(-1)),
    ]
    name, fn = rng.choice(choices)
    return f"{name}(dim={dim}, keepdim={keep})", fn


def random_graph(seed: int) -> tuple[str, Callable[..., Any]]:
    """A random chain of elementwise ops and reductions over two [batch, 4, 5] inputs."""
    rng = random.Random(seed)
    steps: list[tuple[str, Any, tuple[int, ...]]] = []
    shapes: list[tuple[int, ...]] = [(2, 4, 5), (2, 4, 5)]
    for _ in range(rng.randrange(3, 8)):
        kind = rng.random()
        if kind < 0.45:
            name, fn = rng.choice(UNARY)
            src = rng.randrange(2 if name in JUMPS else len(shapes))
            steps.append((name, fn, (src,)))
            shapes.append(shapes[src])
        elif kind < 0.8:
            name, fn2 = rng.choice(BINARY)
            a = rng.randrange(2 if name in JUMPS else len(shapes))
            same = [i for i, s in enumerate(shapes) if s == shapes[a] and (i < 2 or name not in JUMPS)]
            steps.append((name, fn2, (a, rng.choice(same))))
            shapes.append(shapes[a])
        else:
            src = rng.choice([i for i, s in enumerate(shapes) if len(s) >= 2])
            name, fn = _reduction(rng, len(shapes[src]))
            steps.append((name, fn, (src,)))
            shapes.append(tuple(fn(tt.zeros(*shapes[src])).shape))

    def program(x: Any, y: Any) -> Any:
        vals = [x, y]
        for _, f, srcs in steps:
            vals.append(f(*(vals[i] for i in srcs)))
        return vals[-1], vals[-2]

    return " -> ".join(s[0] for s in steps), program


@pytest.mark.parametrize("seed", range(int(os.environ.get("TT_ONNX_RANDOM_GRAPHS", "16"))))
def test_random_elementwise_and_reduction_graphs(seed: int) -> None:
    text, program = random_graph(seed)
    x, y = tt.randn(2, 4, 5), tt.randn(2, 4, 5)
    proto = tt.onnx.export(program, [x, y], input_names=["x", "y"],
                           dynamic_axes={"x": {0: "batch"}, "y": {0: "batch"}})
    assert dims(proto.graph.input[0])[0] == "batch", text
    for b in (3, 6):
        xs = [tt.randn(b, 4, 5), tt.randn(b, 4, 5)]
        try:
            close(run(proto, xs), eager(program, xs), rtol=2e-4, atol=2e-5)
        except AssertionError as exc:
            raise AssertionError(f"{text}: {exc}") from None


def test_atan2_and_copysign_on_signed_zeros_and_axes() -> None:
    a = tt.tensor([[-0.0, 0.0, -0.0, 0.0, 1.0, -1.0, 0.0, 2.0, -3.0]])
    b = tt.tensor([[-1.0, -1.0, 1.0, 1.0, -0.0, 0.0, 0.0, -2.0, 4.0]])
    for fn in (tt.atan2, tt.copysign):
        proto = tt.onnx.export(fn, [a, b], dynamic=False)
        got, want = run(proto, [a, b])[0], eager(fn, [a, b])[0]
        np.testing.assert_allclose(np.abs(got), np.abs(want), rtol=1e-6)
        nonzero = want != 0
        np.testing.assert_array_equal(np.sign(got)[nonzero], np.sign(want)[nonzero])


def test_import_works_without_onnx_and_export_says_what_is_missing(tmp_path: Path) -> None:
    code = ("import sys; sys.modules['onnx'] = None\n"
            "import typedtensor as tt, typedtensor.onnx\n"
            "try:\n    tt.onnx.export(lambda x: x, [tt.ones(1)])\n"
            "except ImportError as e:\n    print('ImportError:', e)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    assert "pip install onnx" in proc.stdout


def test_unsupported_primitives_are_named() -> None:
    with pytest.raises(NotImplementedError, match="cumprod"):
        tt.onnx.export(lambda x: x.cumprod(1), [tt.randn(2, 3)])


@pytest.mark.parametrize("mask", ["none", "causal", "bool", "float", "bool-empty-row"])
def test_fused_attention_matches_eager_in_onnxruntime(mask: str) -> None:
    """The fused scaled_dot_product_attention primitive, written out for ONNX under each of torch's mask
    conventions; a row whose bool mask is all False gives 0, as eager does."""
    q, k, v = tt.randn(2, 3, 5, 8), tt.randn(2, 3, 7, 8), tt.randn(2, 3, 7, 4)
    extra: list[Any] = []
    if mask.startswith("bool"):
        m = tt.rand(5, 7) > 0.4
        if mask == "bool-empty-row":
            m[1] = False
        extra = [m]
    elif mask == "float":
        extra = [tt.randn(5, 7)]

    def f(q: Any, k: Any, v: Any, *m: Any) -> Any:
        return tt.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=m[0] if m else None,
                                                             is_causal=mask == "causal")

    inputs = [q, k, v, *extra]
    proto = tt.onnx.export(f, inputs, dynamic=False)
    assert any(node.op_type == "Softmax" for node in proto.graph.node)
    close(run(proto, inputs), eager(f, inputs))


def test_direct_emitters_come_from_the_op_table() -> None:
    """An op that is one ONNX node is mapped by its table entry's ``onnx`` slot, and only there."""
    from typedtensor.onnx import _ops
    from typedtensor.shapes.registry import all_ops

    table = {name for name, op in all_ops().items() if op.onnx is not None}
    assert set(_ops.DIRECT) == table
    assert {"exp", "add", "index_select", "leaky_relu", "permute"} <= table
    assert _ops.DIRECT["index_select"] == ("Gather", (("axis", "int", "dim"),))
    assert all(_ops.EMITTERS[name] is _ops.EMITTERS["exp"] for name in table)
    with pytest.raises(ValueError, match="name=int"):
        _ops.parse_direct("Gather(axis=dim)")
