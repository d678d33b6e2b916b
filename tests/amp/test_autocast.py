"""tt.autocast against torch.autocast (2.13): output dtypes, values within bfloat16 rounding,
gradients' dtypes, nesting, thread-local state, the cast cache, tt.compile, and training runs."""

from __future__ import annotations

import threading
import warnings
from typing import Any

import numpy as np
import pytest

import typedtensor as tt
from typedtensor._runtime import _exports

torch = pytest.importorskip("torch")

BF16_EPS = 2.0**-8  # one bfloat16 rounding, relative


def _np(t: Any) -> np.ndarray:
    t = t.detach()
    return (t.float() if t.dtype in (tt.bfloat16, torch.bfloat16) else t).numpy()


def _dtype_name(d: Any) -> str:
    return str(d).rsplit(".", 1)[-1]


def _pair(*shape: int, seed: int = 0, requires_grad: bool = False) -> tuple[Any, Any]:
    a = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    return (tt.tensor(a.copy(), requires_grad=requires_grad), torch.tensor(a.copy(), requires_grad=requires_grad))


def _close(ours: Any, ref: Any, rounds: float = 2.0) -> None:
    """Equal dtypes, and values within ``rounds`` bfloat16 roundings of torch's (relative to its scale)."""
    assert _dtype_name(ours.dtype) == _dtype_name(ref.dtype)
    a, b = _np(ours), _np(ref)
    scale = max(float(np.abs(b).max()), 1e-6)
    np.testing.assert_allclose(a, b, rtol=rounds * BF16_EPS, atol=rounds * BF16_EPS * scale)


# ------------------------------------------------------------------------------------------------
# ops and modules against torch


def _ops_cases() -> list[tuple[str, Any]]:
    def matmul(lib: Any, x: Any, y: Any, w: Any) -> Any:
        return x @ w

    def bmm(lib: Any, x: Any, y: Any, w: Any) -> Any:
        return lib.bmm(x.reshape(2, 3, 8), w.reshape(2, 8, 4) if False else y.reshape(2, 8, 3))

    def mm_then_softmax(lib: Any, x: Any, y: Any, w: Any) -> Any:
        return lib.softmax(x @ w, dim=-1)

    def layer_norm(lib: Any, x: Any, y: Any, w: Any) -> Any:
        return lib.nn.functional.layer_norm(x @ w, (8,))

    def cross_entropy(lib: Any, x: Any, y: Any, w: Any) -> Any:
        return lib.nn.functional.cross_entropy(x @ w, lib.tensor([1, 0, 3, 2, 7, 5]))

    def mse_bf16(lib: Any, x: Any, y: Any, w: Any) -> Any:
        return lib.nn.functional.mse_loss(x @ w, (x @ w).detach() * 0.5)

    def sdpa(lib: Any, x: Any, y: Any, w: Any) -> Any:
        q = x.reshape(1, 2, 3, 8)
        return lib.nn.functional.scaled_dot_product_attention(q, q * 0.5, q + 1.0, is_causal=True)

    def cat_mixed(lib: Any, x: Any, y: Any, w: Any) -> Any:
        return lib.cat([x @ w, x])

    def addmm(lib: Any, x: Any, y: Any, w: Any) -> Any:
        return lib.addmm(x[:, :1], x, w)

    def conv1d(lib: Any, x: Any, y: Any, w: Any) -> Any:
        return lib.nn.functional.conv1d(x.reshape(1, 6, 8), w.reshape(8, 8, 1)[:4, :6])

    def prod(lib: Any, x: Any, y: Any, w: Any) -> Any:
        return lib.prod((x @ w)[0, :3])

    return [(f.__name__, f) for f in (matmul, bmm, mm_then_softmax, layer_norm, cross_entropy, mse_bf16, sdpa,
                                      cat_mixed, addmm, conv1d, prod)]


@pytest.mark.parametrize(("name", "fn"), _ops_cases(), ids=[n for n, _ in _ops_cases()])
def test_ops_match_torch(name: str, fn: Any) -> None:
    (x, tx), (y, ty), (w, tw) = _pair(6, 8, seed=1), _pair(6, 8, seed=2), _pair(8, 8, seed=3)
    with tt.autocast("cpu", dtype=tt.bfloat16):
        ours = fn(tt, x, y, w)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        ref = fn(torch, tx, ty, tw)
    _close(ours, ref, rounds=4.0)


def _copy_params(ours: Any, ref: Any) -> None:
    for (n, p), (m, q) in zip(sorted(ours.named_parameters()), sorted(ref.named_parameters()), strict=True):
        assert n == m and tuple(p.shape) == tuple(q.shape)
        with tt.no_grad():
            p.copy_(tt.tensor(q.detach().numpy().copy()))


@pytest.mark.parametrize("kind", ["linear", "conv2d", "mha"])
def test_modules_match_torch_forward_and_grads(kind: str) -> None:
    torch.manual_seed(0)
    if kind == "linear":
        ours, ref = tt.nn.Linear(8, 5), torch.nn.Linear(8, 5)
        x, tx = _pair(4, 8)
    elif kind == "conv2d":
        ours, ref = tt.nn.Conv2d(3, 4, 3, padding=1), torch.nn.Conv2d(3, 4, 3, padding=1)
        x, tx = _pair(2, 3, 6, 6)
    else:
        ours, ref = tt.nn.MultiheadAttention(8, 2, batch_first=True), torch.nn.MultiheadAttention(8, 2, batch_first=True)
        x, tx = _pair(2, 5, 8)
    _copy_params(ours, ref)

    def run(lib: Any, m: Any, inp: Any) -> Any:
        with lib.autocast("cpu", dtype=lib.bfloat16):
            out = m(inp, inp, inp, need_weights=False)[0] if kind == "mha" else m(inp)
        out.float().square().mean().backward()
        return out

    out, tout = run(tt, ours, x), run(torch, ref, tx)
    _close(out, tout, rounds=6.0)
    for (_, p), (_, q) in zip(sorted(ours.named_parameters()), sorted(ref.named_parameters()), strict=True):
        assert p.grad.dtype == tt.float32 and q.grad.dtype == torch.float32  # the weights' dtype, as torch
        _close(p.grad, q.grad, rounds=12.0)


def test_more_cpp_ops_follow_their_policy_as_torch() -> None:
    def calls(lib: Any, x: Any, w: Any) -> list[Any]:
        F = lib.nn.functional
        return [lib.mm(x, w), lib.tensordot(x, w, dims=1), lib.stack([x @ w, x]),
                F.conv_transpose2d(x.reshape(1, 2, 4, 8)[:, :, :, :4], w.reshape(2, 4, 2, 4)),
                lib.baddbmm(x.reshape(2, 4, 8)[:, :, :4], x.reshape(2, 4, 8), w.reshape(2, 8, 4)),
                F.nll_loss(F.log_softmax(x @ w, -1), lib.tensor([1, 0, 3, 2, 7, 5, 0, 1]))]

    (x, tx), (w, tw) = _pair(8, 8, seed=4), _pair(8, 8, seed=5)
    with tt.autocast("cpu"):
        ours = calls(tt, x, w)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        ref = calls(torch, tx, tw)
    for a, b in zip(ours, ref, strict=True):
        _close(a, b, rounds=4.0)


def test_float64_and_integer_inputs_are_not_cast() -> None:
    a64 = tt.randn(3, 3, dtype=tt.float64)
    with tt.autocast("cpu"):
        assert (a64 @ a64).dtype == tt.float64
        assert tt.cat([tt.ones(2, dtype=tt.int64), tt.ones(2, dtype=tt.int64)]).dtype == tt.int64


def test_float16_on_cpu_and_unsupported_dtype_warns_as_torch() -> None:
    a = tt.randn(3, 3)
    with tt.autocast("cpu", dtype=tt.float16):
        assert (a @ a).dtype == tt.float16
    for lib in (tt, torch):
        with pytest.warns(UserWarning, match="In CPU autocast, but the target dtype is not supported"), \
                lib.autocast("cpu", dtype=lib.float32):
            assert not lib.is_autocast_enabled("cpu")


def test_cuda_autocast_leaves_cpu_tensors_alone() -> None:
    a = tt.randn(3, 3)
    if not tt.cuda.is_available():
        with pytest.warns(UserWarning, match="CUDA is not available"), tt.autocast("cuda"):
            assert not tt.is_autocast_enabled("cuda")
    # forced on, as torch allows: the CUDA policies apply to CUDA tensors only
    prev = tt.is_autocast_enabled("cuda")
    tt.set_autocast_enabled("cuda", True)
    try:
        assert tt.is_autocast_enabled("cuda") and not tt.is_autocast_enabled("cpu")
        assert (a @ a).dtype == tt.float32
        assert tt.softmax(a.bfloat16(), -1).dtype == tt.bfloat16  # CUDA runs softmax in float32, not CPU
    finally:
        tt.set_autocast_enabled("cuda", prev)


def test_defaults_nesting_and_state_functions_match_torch() -> None:
    for lib in (tt, torch):
        assert _dtype_name(lib.get_autocast_dtype("cpu")) == "bfloat16"
        assert _dtype_name(lib.get_autocast_dtype("cuda")) == "float16"
        assert not lib.is_autocast_enabled("cpu") and lib.is_autocast_cache_enabled()
        with lib.autocast("cpu"):
            assert lib.is_autocast_enabled("cpu")
            with lib.autocast("cpu", enabled=False):
                assert not lib.is_autocast_enabled("cpu")
                x = lib.ones(2, 2)
                assert _dtype_name((x @ x).dtype) == "float32"
            with lib.autocast("cpu", dtype=lib.float16):
                assert _dtype_name(lib.get_autocast_dtype("cpu")) == "float16"
            assert _dtype_name(lib.get_autocast_dtype("cpu")) == "bfloat16"
            assert lib.is_autocast_enabled("cpu")
        assert not lib.is_autocast_enabled("cpu")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            assert not lib.is_autocast_cpu_enabled()
            lib.set_autocast_cpu_dtype(lib.float16)
            assert _dtype_name(lib.get_autocast_cpu_dtype()) == "float16"
            lib.set_autocast_cpu_dtype(lib.bfloat16)
            assert _dtype_name(lib.get_autocast_gpu_dtype()) == "float16"
    with pytest.warns(DeprecationWarning, match=r"is_autocast_cpu_enabled\(\) is deprecated"):
        tt.is_autocast_cpu_enabled()
    with pytest.raises(RuntimeError, match="unsupported autocast device_type 'xpu'"):
        tt.autocast("xpu")


def test_decorator_and_deprecated_aliases() -> None:
    @tt.autocast("cpu")
    def f(a: Any) -> Any:
        return a @ a

    a = tt.randn(2, 2)
    assert f(a).dtype == tt.bfloat16 and (a @ a).dtype == tt.float32
    for lib in (tt, torch):
        with pytest.warns(FutureWarning, match=r"`torch\.cpu\.amp\.autocast\(args\.\.\.\)` is deprecated"), \
                lib.cpu.amp.autocast():
            assert lib.is_autocast_enabled("cpu")
    with pytest.raises(TypeError, match="requires a callable"):
        tt.autocast("cpu")(3)  # type: ignore[arg-type]


def test_state_is_thread_local() -> None:
    seen: list[Any] = []

    def other() -> None:
        x = tt.ones(2, 2)
        seen.extend([tt.is_autocast_enabled("cpu"), (x @ x).dtype])

    with tt.autocast("cpu"):
        t = threading.Thread(target=other)
        t.start()
        t.join()
    assert seen == [False, tt.float32]


def test_gradients_come_back_in_the_inputs_dtype() -> None:
    w = tt.randn(4, 4, requires_grad=True)
    x = tt.randn(3, 4, requires_grad=True)
    with tt.autocast("cpu"):
        y = x @ w
    assert y.dtype == tt.bfloat16
    y.float().sum().backward()
    assert w.grad.dtype == tt.float32 and x.grad.dtype == tt.float32


def _weight_cast(y: Any) -> Any:
    """The node right above the one leaf's AccumulateGrad: autocast's cast of the weight. (Where
    the BLAS has no bfloat16 GEMM, the product widens its operands first, so the cast is not the
    product node's direct input: NOTE [ bfloat16 GEMM ] in backend/src/cpu/gemm.cpp.)"""
    stack = [y.grad_fn]
    while stack:
        node = stack.pop()
        for child, _ in node.next_functions:
            if child is None:
                continue
            if "AccumulateGrad" in repr(child):
                return node
            stack.append(child)
    raise AssertionError("no leaf under the product")


def test_cast_cache_reuses_weight_casts_within_the_outermost_region() -> None:
    w = tt.randn(4, 4, requires_grad=True)
    x = tt.randn(3, 4)
    with tt.autocast("cpu"):
        y1, y2 = x @ w, x @ w
        with tt.autocast("cpu"):
            y3 = x @ w
    # one cast of w: both products' backward runs reach it through the same cast node
    assert _weight_cast(y1) is _weight_cast(y2)
    assert _weight_cast(y1) is _weight_cast(y3)
    with tt.autocast("cpu"):
        y4 = x @ w
    assert _weight_cast(y4) is not _weight_cast(y1)  # cleared on exit
    with tt.autocast("cpu", cache_enabled=False):
        y5, y6 = x @ w, x @ w
    assert _weight_cast(y5) is not _weight_cast(y6)
    (y1.float().sum() + y2.float().sum()).backward()
    np.testing.assert_allclose(w.grad.numpy(), 2 * np.repeat(x.numpy().sum(0)[:, None], 4, axis=1), rtol=1e-2)


def test_compiled_function_holds_the_casts() -> None:
    w = tt.randn(8, 8)
    b = tt.randn(8)

    def f(x: Any) -> Any:
        with tt.autocast("cpu"):
            h = tt.nn.functional.linear(x, w, b).relu()
            return tt.softmax(h @ w, dim=-1), tt.nn.functional.mse_loss(h, h * 0.5)

    x = tt.randn(4, 8)
    compiled = tt.compile(f)
    for got, want in zip(compiled(x), f(x), strict=True):
        assert got.dtype == want.dtype
        np.testing.assert_allclose(_np(got), _np(want), rtol=1e-2, atol=1e-2)
    assert f(x)[0].dtype == tt.bfloat16 and f(x)[1].dtype == tt.float32


def test_compiled_function_retraces_for_another_autocast_state() -> None:
    w = tt.randn(8, 8)
    compiled = tt.compile(lambda x: (x @ w).relu())
    x = tt.randn(4, 8)
    assert compiled(x).dtype == tt.float32
    with tt.autocast("cpu"):
        assert compiled(x).dtype == tt.bfloat16
        with tt.autocast("cpu", dtype=tt.float16):
            assert compiled(x).dtype == tt.float16
    assert compiled(x).dtype == tt.float32
    assert compiled.traces == 3


def test_python_ops_with_a_policy_are_wrapped() -> None:
    # every Python-written op with a CPU policy casts (the C++ ones are checked above and below)
    from typedtensor._runtime import composite, functional

    for name, (cpu, _) in _exports.AUTOCAST.items():
        fn = getattr(functional, name, None) or getattr(composite, name, None)
        if fn is not None and cpu is not None and not isinstance(fn, type(tt._C.matmul)):
            assert getattr(fn, "__wrapped_autocast__", None) == name, name


# ------------------------------------------------------------------------------------------------
# training runs


def _train(lib: Any, model: Any, data: list[tuple[Any, Any]], loss_fn: Any) -> list[float]:
    opt = lib.optim.AdamW(model.parameters(), lr=1e-2, weight_decay=0.1)
    losses = []
    for x, y in data:
        opt.zero_grad()
        with lib.autocast("cpu", dtype=lib.bfloat16):
            loss = loss_fn(lib, model(x), y)
        loss.backward()
        opt.step()
        losses.append(float(loss.item()))
    return losses


def _mlp(lib: Any) -> Any:
    return lib.nn.Sequential(lib.nn.Linear(16, 32), lib.nn.GELU(), lib.nn.Linear(32, 4))


class _Block:
    """A pre-norm transformer block: attention (sdpa) and an MLP, each with a residual."""

    @staticmethod
    def make(lib: Any) -> Any:
        F = lib.nn.functional

        class Block(lib.nn.Module):  # type: ignore[misc, name-defined]
            def __init__(self) -> None:
                super().__init__()
                self.ln1, self.ln2 = lib.nn.LayerNorm(16), lib.nn.LayerNorm(16)
                self.qkv, self.proj = lib.nn.Linear(16, 48), lib.nn.Linear(16, 16)
                self.fc, self.out = lib.nn.Linear(16, 32), lib.nn.Linear(32, 16)
                self.head = lib.nn.Linear(16, 4)

            def forward(self, x: Any) -> Any:
                b, t, c = x.shape
                q, k, v = self.qkv(self.ln1(x)).split(16, dim=-1)
                q, k, v = (z.reshape(b, t, 2, 8).transpose(1, 2) for z in (q, k, v))
                a = F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).reshape(b, t, c)
                x = x + self.proj(a)
                x = x + self.out(F.gelu(self.fc(self.ln2(x))))
                return self.head(x).reshape(b * t, 4)

        return Block()


@pytest.mark.parametrize("kind", ["mlp", "block"])
def test_training_under_autocast_matches_torch(kind: str) -> None:
    torch.manual_seed(0)
    make = _mlp if kind == "mlp" else _Block.make
    ours, ref = make(tt), make(torch)
    _copy_params(ours, ref)
    rng = np.random.default_rng(0)
    shape = (8, 16) if kind == "mlp" else (2, 5, 16)
    n = shape[0] if kind == "mlp" else shape[0] * shape[1]
    raw = [(rng.standard_normal(shape).astype(np.float32), rng.integers(0, 4, n))] * 5  # one batch: the loss falls

    def ce(lib: Any, out: Any, y: Any) -> Any:
        loss = lib.nn.functional.cross_entropy(out, y)
        assert _dtype_name(loss.dtype) == "float32"  # cross_entropy runs in float32 under autocast
        return loss

    got = _train(tt, ours, [(tt.tensor(x), tt.tensor(y)) for x, y in raw], ce)
    want = _train(torch, ref, [(torch.tensor(x), torch.tensor(y)) for x, y in raw], ce)
    np.testing.assert_allclose(got, want, rtol=8 * BF16_EPS)
    assert got[-1] < got[0]


@pytest.mark.parametrize("lib_name", ["typedtensor", "torch"])
def test_custom_fwd_and_bwd_as_torch(lib_name: str) -> None:
    # typedtensor has no autograd.Function yet: the decorators work on any forward/backward pair whose
    # first argument is the context object, as torch's do
    from types import SimpleNamespace

    lib = tt if lib_name == "typedtensor" else torch
    seen: dict[str, Any] = {}

    @lib.amp.custom_fwd(device_type="cpu", cast_inputs=lib.float32)
    def forward(ctx: Any, a: Any, pair: tuple[Any, Any]) -> Any:
        seen["fwd"] = (lib.is_autocast_enabled("cpu"), _dtype_name(a.dtype), _dtype_name(pair[1].dtype))
        return a @ pair[0]

    @lib.amp.custom_bwd(device_type="cpu")
    def backward(ctx: Any, g: Any) -> Any:
        seen["bwd"] = lib.is_autocast_enabled("cpu")
        return g

    ctx = SimpleNamespace()
    x = lib.ones(2, 2, dtype=lib.bfloat16)
    with lib.autocast("cpu"):
        out = forward(ctx, x, (x, lib.ones(2, dtype=lib.int64)))
    backward(ctx, out)
    assert seen == {"fwd": (False, "float32", "int64"), "bwd": False}
    assert _dtype_name(out.dtype) == "float32"

    @lib.amp.custom_fwd(device_type="cpu")
    def forward2(ctx: Any, a: Any) -> Any:
        return a @ a

    ctx2 = SimpleNamespace()
    with lib.autocast("cpu"):
        assert _dtype_name(forward2(ctx2, lib.ones(2, 2)).dtype) == "bfloat16"
    backward(ctx2, out)
    assert seen["bwd"] is True  # the backward runs under the state its forward ran under
