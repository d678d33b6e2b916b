"""float16 / bfloat16 elementwise ops in one pass (NOTE [ Half elementwise kernels ] in
backend/src/cpu/elementwise.cpp): a half op is its float32 op on the widened operands, rounded once.
Every routed op is checked bit for bit against that composition written out (`(a.float() OP
b.float()).to(half)`) and against torch 2.13's half op, on values that stress the rounding (NaN,
inf, -0.0, subnormals, results that round to inf or to a tie), on lengths that are not a multiple of
the kernel's chunk, broadcast and strided layouts, 1 and 2 threads, with gradients
(NOTE [ Half gradients ] in backend/src/core/ops_elementwise.cpp) and inside tt.compile."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest
import torch

import typedtensor as tt

HALVES = ["bfloat16", "float16"]
F = tt.nn.functional
TF = torch.nn.functional


@pytest.fixture(params=[1, 2], ids=["1thread", "2threads"])
def threads(request: pytest.FixtureRequest) -> Iterator[int]:
    prev = tt.get_num_threads()
    tt.set_num_threads(int(request.param))
    try:
        yield int(request.param)
    finally:
        tt.set_num_threads(prev)


def _specials(dtype: str) -> list[float]:
    """Values where a wrong rounding or a wrong special case shows."""
    info = torch.finfo(getattr(torch, dtype))
    tiny, big = float(info.tiny), float(info.max)
    return [0.0, -0.0, 1.0, -1.0, float("nan"), float("inf"), -float("inf"), tiny, -tiny, tiny / 4, -tiny / 8,
            big, -big, big / 2, 3.0, 1.0 / 3.0, 1.0 + float(info.eps), 1.0 + float(info.eps) / 2, 0.5, 65504.0 / 8]


def _values(dtype: str, n: int, seed: int) -> np.ndarray:
    """n float32 values that the half type holds exactly: specials first, then a spread of scales."""
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(n) * np.exp2(rng.integers(-12, 12, n))).astype(np.float32)
    sp = np.array(_specials(dtype), np.float32)
    x[: min(n, sp.size)] = rng.permutation(sp)[: min(n, sp.size)]
    return torch.from_numpy(x).to(getattr(torch, dtype)).float().numpy()


def _pair(x: np.ndarray, dtype: str) -> tuple[tt.Tensor, torch.Tensor]:
    return tt.from_numpy(np.ascontiguousarray(x)).to(getattr(tt, dtype)), torch.from_numpy(np.ascontiguousarray(x)).to(
        getattr(torch, dtype))


def _bits(t: Any) -> np.ndarray:
    """The half values as float32 bit patterns, every NaN as one pattern (payloads are not kept)."""
    f = t.detach().float().numpy()  # a typedtensor or a torch tensor
    b = np.ascontiguousarray(f).view(np.uint32).copy()
    b[np.isnan(f)] = 0x7FC00000
    return b


def _same(ours: Any, want: Any, what: str, signed_zeros: bool = True) -> None:
    a, b = _bits(ours), _bits(want)
    if not signed_zeros:
        a[a == 0x80000000] = 0
        b[b == 0x80000000] = 0
    assert a.shape == b.shape, (what, a.shape, b.shape)
    bad = np.flatnonzero(a.ravel() != b.ravel())
    if bad.size:
        i = int(bad[0])
        pytest.fail(f"{what}: {bad.size} of {a.size} differ, first at {i}: "
                    f"{a.view(np.float32).ravel()[i]!r} vs {b.view(np.float32).ravel()[i]!r}")


# name, ours, torch's; operands positive where the op needs it (torch's half pow of a negative base
# and a fractional exponent is NaN on both sides anyway)
BINARY: list[tuple[str, Callable[[Any, Any], Any], Callable[[Any, Any], Any]]] = [
    ("add", lambda a, b: a + b, lambda a, b: a + b),
    ("sub", lambda a, b: a - b, lambda a, b: a - b),
    ("mul", lambda a, b: a * b, lambda a, b: a * b),
    ("div", lambda a, b: a / b, lambda a, b: a / b),
    ("maximum", tt.maximum, torch.maximum),
    ("minimum", tt.minimum, torch.minimum),
    ("fmax", tt.fmax, torch.fmax),
    ("fmin", tt.fmin, torch.fmin),
    ("atan2", tt.atan2, torch.atan2),
    ("hypot", tt.hypot, torch.hypot),
    ("fmod", tt.fmod, torch.fmod),
    ("remainder", tt.remainder, torch.remainder),
    ("floor_divide", tt.floor_divide, torch.floor_divide),
    ("copysign", tt.copysign, torch.copysign),
    ("pow", tt.pow, torch.pow),
]
COMPARE = [("eq", lambda a, b: a == b), ("ne", lambda a, b: a != b), ("lt", lambda a, b: a < b),
           ("le", lambda a, b: a <= b), ("gt", lambda a, b: a > b), ("ge", lambda a, b: a >= b)]
UNARY: list[tuple[str, Callable[[Any], Any], Callable[[Any], Any]]] = [
    ("relu", tt.relu, torch.relu), ("neg", lambda x: -x, lambda x: -x), ("abs", tt.abs, torch.abs),
    ("exp", tt.exp, torch.exp), ("tanh", tt.tanh, torch.tanh), ("sigmoid", tt.sigmoid, torch.sigmoid),
    ("gelu", F.gelu, TF.gelu), ("gelu_tanh", lambda x: F.gelu(x, approximate="tanh"),
                                lambda x: TF.gelu(x, approximate="tanh")), ("silu", F.silu, TF.silu), ("sqrt", tt.sqrt, torch.sqrt),
    ("rsqrt", tt.rsqrt, torch.rsqrt), ("log", tt.log, torch.log), ("square", tt.square, torch.square),
    ("sign", tt.sign, torch.sign), ("reciprocal", tt.reciprocal, torch.reciprocal), ("erf", tt.erf, torch.erf),
    ("sin", tt.sin, torch.sin), ("floor", tt.floor, torch.floor), ("relu6", F.relu6, TF.relu6),
]
# ops whose float32 kernel is exactly torch's (IEEE arithmetic, selects, exact functions): the
# half results equal torch's bit for bit; the others are our float32 approximations rounded once,
# equal to the composition, and to torch's within one half ulp (for finite inputs below 1e30:
# gelu(3e38) overflows inside our float32 formula and not inside torch's)
TORCH_EXACT = {"add", "sub", "mul", "div", "maximum", "minimum", "fmax", "fmin", "copysign", "relu", "neg", "abs",
               "sqrt", "square", "sign", "reciprocal", "floor", "relu6"}
# torch's vectorised half kernels of these go through a / b in another order than its float32
# kernels (fmod(-3e38, -1e-39) is NaN there, floor_divide is off by one now and then): ours are
# checked against torch's float32 kernel on the same values, rounded once
TORCH_VIA_FLOAT = {"fmod", "remainder", "floor_divide"}


def _composite(fn: Callable[..., Any], dtype: str, *xs: tt.Tensor) -> tt.Tensor:
    """The float32 composition the one-pass kernels replace."""
    out = fn(*[x.float() for x in xs])
    return out.to(getattr(tt, dtype)) if out.dtype == tt.float32 else out


def _near_torch(ours: tt.Tensor, theirs: torch.Tensor, dtype: str, what: str, ulps: float = 1.0,
                atol: float = 0.0) -> None:
    """Within `ulps` ulps of the half type, or of its smallest normal, or `atol` (NaN and inf where
    torch has them)."""
    a, b = ours.float().numpy().astype(np.float64), theirs.float().numpy().astype(np.float64)
    info = torch.finfo(getattr(torch, dtype))
    with np.errstate(invalid="ignore"):
        ok = (np.isnan(a) & np.isnan(b)) | (a == b) | (np.abs(a - b) <= ulps * float(info.eps) * np.abs(b) + 2 * float(info.tiny) + atol)
    assert ok.all(), (what, a[~ok][:5], b[~ok][:5])


@pytest.mark.parametrize("dtype", HALVES)
@pytest.mark.parametrize("name,ours,theirs", BINARY, ids=[b[0] for b in BINARY])
def test_binary_bit_exact(threads: int, dtype: str, name: str, ours: Any, theirs: Any) -> None:
    n = 70001 if threads == 2 else 1037  # 2 threads: above the grain, split between them; odd: a tail
    xa, xb = _values(dtype, n, 1), _values(dtype, n, 2)
    if name == "pow":
        xa = np.abs(xa)
    a, ta = _pair(xa, dtype)
    b, tb = _pair(xb, dtype)
    out = ours(a, b)
    assert out.dtype == getattr(tt, dtype)
    _same(out, _composite(ours, dtype, a, b), f"{name} vs the float32 composition")
    if name in TORCH_VIA_FLOAT:  # (where a / b overflows torch's float32 fmod is NaN too: ours is exact)
        with np.errstate(all="ignore"):
            fine = np.abs(xa.astype(np.float64) / xb.astype(np.float64)) < 1e30
        want_f = theirs(ta.float(), tb.float()).to(ta.dtype)[torch.from_numpy(fine)]
        _same(out[tt.from_numpy(fine)], want_f, f"{name} vs torch's float32 kernel")
        return
    want = theirs(ta, tb)
    if name == "copysign":  # a NaN sign's bit is not kept through torch's half kernel
        keep = ~np.isnan(xb)
        out, want = out[tt.from_numpy(keep)], want[torch.from_numpy(keep)]
    if name in TORCH_EXACT:
        _same(out, want, f"{name} vs torch")
    else:
        _near_torch(out, want, dtype, name)


@pytest.mark.parametrize("dtype", HALVES)
@pytest.mark.parametrize("name,op", COMPARE, ids=[c[0] for c in COMPARE])
def test_comparisons(dtype: str, name: str, op: Any) -> None:
    xa = _values(dtype, 600, 3)
    xb = np.where(np.arange(600) % 3 == 0, xa, _values(dtype, 600, 4))  # ties too
    a, ta = _pair(xa, dtype)
    b, tb = _pair(xb, dtype)
    out = op(a, b)
    assert out.dtype == tt.bool
    np.testing.assert_array_equal(out.numpy(), op(ta, tb).numpy())
    np.testing.assert_array_equal(op(a, 0.5).numpy(), op(ta, 0.5).numpy())


@pytest.mark.parametrize("dtype", HALVES)
@pytest.mark.parametrize("name,ours,theirs", UNARY, ids=[u[0] for u in UNARY])
def test_unary_bit_exact(threads: int, dtype: str, name: str, ours: Any, theirs: Any) -> None:
    n = 70001 if threads == 2 else 1037
    xv = _values(dtype, n, 5)
    x, tx = _pair(xv, dtype)
    out = ours(x)
    assert out.dtype == getattr(tt, dtype)
    _same(out, _composite(ours, dtype, x), f"{name} vs the float32 composition")
    if name in TORCH_EXACT:
        _same(out, theirs(tx), f"{name} vs torch", signed_zeros=name != "relu")  # torch: relu(-0.0) = -0.0
    else:
        keep = ~(np.abs(xv) > 1e30)
        # gelu, silu, erf near 0 from below: torch's float32 formulas cancel (x (1 + erf(x / sqrt 2)))
        # and are off by up to a few 1e-7 there; ours are not
        _near_torch(out[tt.from_numpy(keep)], theirs(tx)[torch.from_numpy(keep)], dtype, name, 2.0, atol=1e-6)


@pytest.mark.parametrize("dtype", HALVES)
@pytest.mark.parametrize("number", [0.1, 3.0, 1e-30, 1e30, -2.5])
@pytest.mark.parametrize("op", ["add", "sub", "mul", "div", "rsub", "rdiv", "gt"])
def test_python_number(dtype: str, number: float, op: str) -> None:
    """x * number and x / number keep the number at float32 precision (torch's half kernels do:
    x / 1e30 is not x / inf); + and -, the number first, or another op round it to the half type
    first (torch: bf16 x + 0.1 adds 0.1 rounded to bf16)."""
    fns: dict[str, Callable[[Any], Any]] = {
        "add": lambda x: x + number, "sub": lambda x: x - number, "mul": lambda x: x * number,
        "div": lambda x: x / number, "rsub": lambda x: number - x, "rdiv": lambda x: number / x,
        "gt": lambda x: x > number,
    }
    x, tx = _pair(_values(dtype, 777, 6), dtype)
    f = fns[op]
    out = f(x)
    if out.dtype == tt.bool:
        np.testing.assert_array_equal(out.numpy(), f(tx).numpy())
        return
    half = getattr(tt, dtype)
    assert out.dtype == half
    if op != "rdiv":  # torch's number / x is reciprocal(x) * number, rounded twice
        _same(out, f(tx), f"x {op} {number} vs torch")
    rounded = float(tt.tensor(number).to(half).float().item())
    composite = {"mul": lambda: x.float() * number, "div": lambda: x.float() / number,
                 "add": lambda: x.float() + rounded, "sub": lambda: x.float() - rounded,
                 "rsub": lambda: rounded - x.float(), "rdiv": lambda: rounded / x.float()}[op]
    _same(out, composite().to(half), f"x {op} {number} vs the composition")


@pytest.mark.parametrize("dtype", HALVES)
def test_layouts(dtype: str) -> None:
    """Broadcasts, 0-d operands, transposed and sliced operands, empty tensors: the same bits."""
    xa, xb = _values(dtype, 12 * 517, 7).reshape(12, 517), _values(dtype, 517, 8)
    a, ta = _pair(xa, dtype)
    b, tb = _pair(xb, dtype)
    s, ts = _pair(np.array(0.3, np.float32), dtype)
    cases: list[tuple[Any, Any, Any, Any]] = [
        (a, b, ta, tb), (b, a, tb, ta), (a, s, ta, ts), (s, a, ts, ta),
        (a.t(), a.t(), ta.t(), ta.t()), (a[:, 0:516:3], a[:, 1:516:3], ta[:, 0:516:3], ta[:, 1:516:3]),
        (a[::2], b[None], ta[::2], tb[None]),
    ]
    for x, y, tx, ty in cases:
        for ours, theirs in ((lambda p, q: p * q, lambda p, q: p * q), (tt.maximum, torch.maximum),
                             (tt.atan2, torch.atan2)):
            out = ours(x, y)
            _same(out, _composite(ours, dtype, x, y), "layout vs the composition")
            if ours is not tt.atan2:
                _same(out, theirs(tx, ty), "layout vs torch")
    _same(tt.exp(a.t()), _composite(tt.exp, dtype, a.t()), "strided unary")
    e = tt.zeros(0, 3).to(getattr(tt, dtype))
    assert (e + e).shape == (0, 3) and tt.tanh(e).shape == (0, 3)


@pytest.mark.parametrize("dtype", HALVES)
def test_in_place(dtype: str) -> None:
    xa, xb = _values(dtype, 3000, 9), _values(dtype, 3000, 10)
    a, ta = _pair(xa, dtype)
    b, tb = _pair(xb, dtype)
    a.mul_(b)
    ta.mul_(tb)
    _same(a, ta, "mul_")
    a.add_(0.1)
    ta.add_(0.1)
    _same(a, ta, "add_ of a number")
    a.relu_()
    ta.relu_()
    _same(a, ta, "relu_")
    for number in (0.1, 1e-30, 3.0):  # the number at float32 precision, as out of place
        a.mul_(number).div_(number * 0.7)
        ta.mul_(number).div_(number * 0.7)
        _same(a, ta, f"mul_ / div_ by {number}")
    view, tview = a[::3], ta[::3]  # a strided self
    view.sub_(b[::3])
    tview.sub_(tb[::3])
    _same(a, ta, "sub_ into a strided view")
    a.add_(b[:1])  # a broadcast operand
    ta.add_(tb[:1])
    _same(a, ta, "add_ of a broadcast operand")


# gradients: name, ours, torch's. The VJP is the float32 formula rounded once (NOTE [ Half
# gradients ]), as the cast composition gave; torch's agrees bit for bit where its formula is one
# op or one fused kernel of the same float32 arithmetic.
GRAD_BINARY = [b for b in BINARY if b[0] in ("add", "sub", "mul", "div", "maximum", "minimum", "atan2", "hypot")]
GRAD_UNARY = [u for u in UNARY if u[0] in ("relu", "neg", "exp", "tanh", "sigmoid", "gelu", "gelu_tanh", "silu", "sqrt", "sin",
                                            "square", "abs", "log", "erf")]
# where torch's gradient is several half ops (each rounded: div's d/db is -g * ((a / b) / b)), or a
# float32 formula in another order, it differs from the once-rounded one by a few half ulps
GRAD_TORCH_EXACT = {"add", "sub", "mul", "relu", "neg", "exp", "tanh", "square", "abs"}
# the composition saved the float32 result, which no longer exists: its gradient used that unrounded
# y; torch (and now we) use the half result
GRAD_FROM_OUTPUT = {"exp", "tanh", "sigmoid", "sqrt", "hypot"}
# torch's erf gradient is exp(-x^2) with x^2 rounded to the half type first: off by several percent
GRAD_TORCH_ULPS = {"erf": 32}


def _grad_case(dtype: str, n: int, seed: int, positive: bool = False) -> tuple[tt.Tensor, torch.Tensor]:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(n).astype(np.float32) * 2
    if positive:
        x = np.abs(x) + 0.1
    x = torch.from_numpy(x).to(getattr(torch, dtype)).float().numpy()
    x[:4] = [0.0, -0.0, 1.0, -1.0]
    return _pair(x, dtype)


def _near(ours: tt.Tensor, theirs: torch.Tensor, dtype: str, ulps: int, what: str) -> None:
    # (torch's float32 derivative formulas of gelu_tanh / gelu cancel where x < -3: a few 1e-6 off)
    _near_torch(ours, theirs, dtype, what, ulps, atol=1e-5)


@pytest.mark.parametrize("dtype", HALVES)
@pytest.mark.parametrize("name,ours,theirs", GRAD_BINARY, ids=[b[0] for b in GRAD_BINARY])
def test_binary_gradients(threads: int, dtype: str, name: str, ours: Any, theirs: Any) -> None:
    n = 70001 if threads == 2 else 1037
    a, ta = _grad_case(dtype, n, 11)
    b, tb = _grad_case(dtype, n, 12, positive=name == "div")
    if name in ("maximum", "minimum"):  # ties split the gradient
        b = tt.where(tt.arange(n) % 5 == 0, a, b)
        tb = torch.where(torch.arange(n) % 5 == 0, ta, tb)
    g, tg = _grad_case(dtype, n, 13)
    a.requires_grad_(True)
    b.requires_grad_(True)
    ta.requires_grad_(True)
    tb.requires_grad_(True)
    out = ours(a, b)
    out.backward(g)
    theirs(ta, tb).backward(tg)
    # the composition: float32 operands cast from the half leaves, the result cast back
    a2, b2 = a.detach().requires_grad_(True), b.detach().requires_grad_(True)
    ours(a2.float(), b2.float()).to(getattr(tt, dtype)).backward(g)
    assert a.grad.dtype == getattr(tt, dtype) and b.grad.dtype == getattr(tt, dtype)
    if name not in GRAD_FROM_OUTPUT:
        _same(a.grad, a2.grad, f"d{name}/da vs the composition")
        _same(b.grad, b2.grad, f"d{name}/db vs the composition")
    if name in GRAD_TORCH_EXACT:
        _same(a.grad, ta.grad, f"d{name}/da vs torch")
        _same(b.grad, tb.grad, f"d{name}/db vs torch")
    else:  # atan2 at (0, 0): our formula's 0 / 0 is NaN, torch answers 0
        keep = ~((a.detach() == 0) & (b.detach() == 0)).numpy()
        _near(a.grad[tt.from_numpy(keep)], ta.grad[torch.from_numpy(keep)], dtype, 4, f"d{name}/da vs torch")
        _near(b.grad[tt.from_numpy(keep)], tb.grad[torch.from_numpy(keep)], dtype, 4, f"d{name}/db vs torch")


@pytest.mark.parametrize("dtype", HALVES)
@pytest.mark.parametrize("name,ours,theirs", GRAD_UNARY, ids=[u[0] for u in GRAD_UNARY])
def test_unary_gradients(dtype: str, name: str, ours: Any, theirs: Any) -> None:
    x, tx = _grad_case(dtype, 1037, 14, positive=name in ("sqrt", "log"))
    g, tg = _grad_case(dtype, 1037, 15)
    x.requires_grad_(True)
    tx.requires_grad_(True)
    ours(x).backward(g)
    theirs(tx).backward(tg)
    assert x.grad.dtype == getattr(tt, dtype)
    if name not in GRAD_FROM_OUTPUT:
        x2 = x.detach().requires_grad_(True)
        ours(x2.float()).to(getattr(tt, dtype)).backward(g)
        _same(x.grad, x2.grad, f"d{name} vs the composition")
    if name in GRAD_TORCH_EXACT:
        _same(x.grad, tx.grad, f"d{name} vs torch")
    else:
        _near(x.grad, tx.grad, dtype, GRAD_TORCH_ULPS.get(name, 4), f"d{name} vs torch")


@pytest.mark.parametrize("dtype", HALVES)
def test_number_operand_gradient(dtype: str) -> None:
    """x * 0.1 and x / 3: d/dx is g times the float32 number, rounded once, as torch's."""
    x, tx = _grad_case(dtype, 1037, 16)
    g, tg = _grad_case(dtype, 1037, 17)
    x.requires_grad_(True)
    tx.requires_grad_(True)
    ((x * 0.1) / 3.0 - 0.7).backward(g)
    ((tx * 0.1) / 3.0 - 0.7).backward(tg)
    _same(x.grad, tx.grad, "d(x * 0.1 / 3 - 0.7) vs torch")


@pytest.mark.parametrize("dtype", HALVES)
def test_compiled(dtype: str) -> None:
    """tt.compile: the half nodes run unfused (the fuser generates float32 / float64 loops only) and
    give the eager bits, forward and backward."""
    half = getattr(tt, dtype)

    def f(x: Any, w: Any) -> Any:
        return tt.relu(tt.tanh(x * w + 1.0) * 0.5) - x / w + F.gelu(x)

    x, _ = _pair(_values(dtype, 1037, 18), dtype)
    w, _ = _grad_case(dtype, 1037, 19, positive=True)
    cf = tt.compile(f)
    _same(cf(x, w), f(x, w), "compiled vs eager")
    assert cf(x, w).dtype == half
    ops = [n.op for n in cf.graph_for(x, w).nodes()]
    assert "mul" in ops and "tanh" in ops and not any(op.startswith("fused") for op in ops), ops

    def step(x: Any, w: Any) -> Any:
        w = w.detach().requires_grad_(True)
        f(x, w).sum().backward()
        return w.grad

    xs, _ = _grad_case(dtype, 1037, 20)
    _same(tt.compile(step)(xs, w), step(xs, w), "compiled gradient vs eager")


@pytest.mark.parametrize("dtype", HALVES)
def test_gelu_double_backward(dtype: str) -> None:
    """gelu's backward of a half tensor is the fused kernel on widened blocks; its own gradient
    (double backward) the float32 formulas rounded once: close to float32's."""
    half = getattr(tt, dtype)
    x, _ = _grad_case(dtype, 40000, 21)  # more than one block of the fused kernel
    x.requires_grad_(True)
    (g,) = tt.autograd.grad(F.gelu(x).sum(), [x], create_graph=True)
    (gg,) = tt.autograd.grad(g.sum(), [x])
    assert g.dtype == half and gg.dtype == half
    x32 = x.detach().float().requires_grad_(True)
    (g32,) = tt.autograd.grad(F.gelu(x32).sum(), [x32], create_graph=True)
    (gg32,) = tt.autograd.grad(g32.sum(), [x32])
    _same(g, g32.to(half), "gelu backward vs float32 rounded once")
    eps = float(torch.finfo(getattr(torch, dtype)).eps)
    np.testing.assert_allclose(gg.float().numpy(), gg32.numpy(), rtol=4 * eps, atol=4 * eps)
