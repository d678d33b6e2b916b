"""Sample invocations of every differentiable op, keyed by the registry's op name.

Each case is `fn(L, *xs)`, written once for both libraries: `L.t` is the top-level module
(typedtensor or torch), `L.F` its `nn.functional`, and `xs` are float64 tensors made from the
case's input specs (a shape, or `Pos`/`Unit` for a restricted domain). Constants (indices, masks)
are built inside `fn` with `L.t.tensor`. test_autograd_ops.py runs gradcheck and torch's gradients
on each, and asserts that every differentiable registry op the runtime exposes has a case here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

Shape = tuple[int, ...]


@dataclass(frozen=True)
class Pos:
    """Inputs drawn from (0.5, 2): logs, roots, divisions."""

    shape: Shape


@dataclass(frozen=True)
class Unit:
    """Inputs drawn from (-0.9, 0.9): asin, acos, atanh, probabilities."""

    shape: Shape


@dataclass(frozen=True)
class Big:
    """Inputs drawn from (1.2, 3): acosh."""

    shape: Shape


Spec = Shape | Pos | Unit | Big


@dataclass
class Case:
    fn: Callable[..., Any]
    inputs: list[Spec]
    gradcheck: dict[str, float] = field(default_factory=dict)  # eps / atol / rtol overrides
    random: bool = False  # draws random numbers: the torch comparison is skipped
    device: str | None = None  # needs this device (skipped without it)


def c(fn: Callable[..., Any], *inputs: Spec, **kw: Any) -> Case:
    return Case(fn, list(inputs), **kw)


def _seeded(L: Any, f: Callable[[], Any]) -> Any:
    L.t.manual_seed(0)
    return f()


LOW = {"eps": 1e-3, "atol": 1e-3, "rtol": 1e-2}  # float32 round trips
HALF = {"eps": 5e-2, "atol": 3e-2, "rtol": 3e-2}  # float16 / bfloat16 round trips

CASES: dict[str, list[Case]] = {
    # ---- elementwise: ternary / clamps
    "where": [c(lambda L, a, b: L.t.where(a > 0, a, b), (3, 4), (4,))],
    "clamp": [c(lambda L, a: a.clamp(-0.5, 0.5), (3, 4)), c(lambda L, a: L.t.clamp(a, min=0.1), (5,))],
    "clip": [c(lambda L, a: a.clip(-0.3, 0.7), (3, 4))],
    "masked_fill": [c(lambda L, a: a.masked_fill(L.t.tensor([True, False, True, False]), 2.0), (3, 4))],
    "lerp": [c(lambda L, a, b, w: a.lerp(b, w), (3, 4), (4,), Unit((3, 1))),
             c(lambda L, a, b: L.t.lerp(a, b, 0.3), (3, 4), (3, 4))],
    # ---- unary
    "abs": [c(lambda L, a: a.abs(), (3, 4))],
    "neg": [c(lambda L, a: -a, (3, 4)), c(lambda L, a: L.t.neg(a), (2,))],
    "exp": [c(lambda L, a: a.exp(), (3, 4))],
    "exp2": [c(lambda L, a: a.exp2(), (3, 4))],
    "expm1": [c(lambda L, a: a.expm1(), (3, 4))],
    "log": [c(lambda L, a: a.log(), Pos((3, 4)))],
    "log2": [c(lambda L, a: a.log2(), Pos((3, 4)))],
    "log10": [c(lambda L, a: a.log10(), Pos((3, 4)))],
    "log1p": [c(lambda L, a: a.log1p(), Pos((3, 4)))],
    "sqrt": [c(lambda L, a: a.sqrt(), Pos((3, 4)))],
    "rsqrt": [c(lambda L, a: a.rsqrt(), Pos((3, 4)))],
    "square": [c(lambda L, a: a.square(), (3, 4))],
    "sin": [c(lambda L, a: a.sin(), (3, 4))],
    "cos": [c(lambda L, a: a.cos(), (3, 4))],
    "tan": [c(lambda L, a: a.tan(), Unit((3, 4)))],
    "asin": [c(lambda L, a: a.asin(), Unit((3, 4)))],
    "acos": [c(lambda L, a: a.acos(), Unit((3, 4)))],
    "atan": [c(lambda L, a: a.atan(), (3, 4))],
    "sinh": [c(lambda L, a: a.sinh(), (3, 4))],
    "cosh": [c(lambda L, a: a.cosh(), (3, 4))],
    "tanh": [c(lambda L, a: a.tanh(), (3, 4)), c(lambda L, a: L.F.tanh(a), (4,))],
    "sigmoid": [c(lambda L, a: a.sigmoid(), (3, 4)), c(lambda L, a: L.F.sigmoid(a), (4,))],
    "relu": [c(lambda L, a: a.relu(), (3, 4)), c(lambda L, a: L.F.relu(a), (2, 5))],
    "gelu": [c(lambda L, a: L.F.gelu(a), (3, 4)), c(lambda L, a: L.F.gelu(a, approximate="tanh"), (3, 4))],
    "silu": [c(lambda L, a: L.F.silu(a), (3, 4))],
    "softplus": [c(lambda L, a: L.F.softplus(a), (3, 4))],
    "elu": [c(lambda L, a: L.F.elu(a), (3, 4)), c(lambda L, a: L.F.elu(a, 0.5), (6,))],
    "leaky_relu": [c(lambda L, a: L.F.leaky_relu(a, 0.1), (3, 4))],
    "erf": [c(lambda L, a: a.erf(), (3, 4))],
    "reciprocal": [c(lambda L, a: a.reciprocal(), Pos((3, 4)))],
    "frac": [c(lambda L, a: a.frac(), (3, 4))],
    "relu6": [c(lambda L, a: L.F.relu6(a * 4), (3, 4))],
    "mish": [c(lambda L, a: L.F.mish(a), (3, 4))],
    # ---- casts and copies
    "float": [c(lambda L, a: a.float().double() * a, (3, 4), gradcheck=LOW)],
    "double": [c(lambda L, a: a.float().double(), (3, 4), gradcheck=LOW)],
    "half": [c(lambda L, a: a.half().double(), Unit((3, 4)), gradcheck=HALF)],
    "bfloat16": [c(lambda L, a: a.bfloat16().double(), Unit((3, 4)), gradcheck=HALF)],
    "long": [c(lambda L, a: a.long() + a, (3, 4))],
    "int": [c(lambda L, a: a.int() * a, (3, 4))],
    "bool": [c(lambda L, a: a.bool() * a, (3, 4))],
    "to": [c(lambda L, a: a.to(L.t.float32).to(L.t.float64), (3, 4), gradcheck=LOW)],
    "type": [c(lambda L, a: a.type(L.t.float32).type(L.t.float64), (3, 4), gradcheck=LOW)],
    "clone": [c(lambda L, a: a.clone() * 2, (3, 4)), c(lambda L, a: L.t.clone(a), (2,))],
    "contiguous": [c(lambda L, a: a.t().contiguous(), (3, 4))],
    "cpu": [c(lambda L, a: a.cpu() * 3, (3, 4))],
    "cuda": [c(lambda L, a: a.cuda().cpu(), (3, 4), device="cuda")],
    "dropout": [c(lambda L, a: _seeded(L, lambda: L.F.dropout(a, 0.5)), (3, 4), random=True)],
    # ---- binary
    "add": [c(lambda L, a, b: a + b, (3, 4), (4,)), c(lambda L, a, b: L.t.add(a, b, alpha=2), (2, 1, 3), (4, 1)),
            c(lambda L, a: a + 1.5, (3,)), c(lambda L, a: 2 + a, (2, 2))],
    "sub": [c(lambda L, a, b: a - b, (3, 4), (3, 1)), c(lambda L, a: 1 - a, (4,))],
    "mul": [c(lambda L, a, b: a * b, (3, 4), (4,)), c(lambda L, a: a * 3, (2, 3)), c(lambda L, a: a * a, (5,))],
    "div": [c(lambda L, a, b: a / b, (3, 4), Pos((3, 1))), c(lambda L, a: 2 / a, Pos((4,)))],
    "true_divide": [c(lambda L, a, b: L.t.true_divide(a, b), (3, 4), Pos((4,)))],
    "pow": [c(lambda L, a, b: a**b, Pos((3, 4)), (4,)), c(lambda L, a: a**3, (3, 4)), c(lambda L, a: 2.0**a, (5,))],
    "maximum": [c(lambda L, a, b: L.t.maximum(a, b), (3, 4), (4,))],
    "minimum": [c(lambda L, a, b: L.t.minimum(a, b), (3, 4), (3, 1))],
    "atan2": [c(lambda L, a, b: L.t.atan2(a, b), (3, 4), Pos((4,)))],
    "copysign": [c(lambda L, a, b: L.t.copysign(a, b), (3, 4), (4,))],
    "hypot": [c(lambda L, a, b: L.t.hypot(a, b), (3, 4), (4,))],
    "fmod": [c(lambda L, a, b: L.t.fmod(a, b), (3, 4), Pos((4,))), c(lambda L, a: a.fmod(0.7), (3, 4))],
    "remainder": [c(lambda L, a, b: L.t.remainder(a, b), (3, 4), Pos((3, 1))), c(lambda L, a: a % 0.7, (3, 4))],
    # ---- indexing
    "index": [c(lambda L, a: a[1:, ::2], (3, 4)), c(lambda L, a: a[L.t.tensor([0, 2, 0])], (3, 4)),
              c(lambda L, a: a[:, L.t.tensor([1, 1, 3])], (3, 4)), c(lambda L, a: a[0, 1], (3, 4)),
              c(lambda L, a: a[a > 0], (3, 4))],
    "gather": [c(lambda L, a: a.gather(1, L.t.tensor([[0, 1], [3, 3], [2, 0]])), (3, 4))],
    "scatter": [c(lambda L, a, b: a.scatter(1, L.t.tensor([[0, 1], [3, 2], [2, 0]]), b), (3, 4), (3, 2))],
    "scatter_add": [c(lambda L, a, b: a.scatter_add(0, L.t.tensor([[0, 1, 2, 0], [0, 0, 1, 2]]), b), (3, 4), (2, 4))],
    "index_select": [c(lambda L, a: a.index_select(1, L.t.tensor([3, 0, 3])), (3, 4))],
    "masked_select": [c(lambda L, a: a.masked_select(L.t.tensor([True, False, True, True])), (3, 4))],
    # ---- linear algebra
    "matmul": [c(lambda L, a, b: a @ b, (3, 4), (4, 5)), c(lambda L, a, b: a @ b, (2, 3, 4), (4, 2)),
               c(lambda L, a, b: L.t.matmul(a, b), (2, 1, 3, 4), (3, 4, 2)), c(lambda L, a, b: a @ b, (4,), (4, 3)),
               c(lambda L, a, b: a @ b.t(), (3, 4), (5, 4)), c(lambda L, a, b: a.t() @ b, (4, 3), (4, 2))],
    "mm": [c(lambda L, a, b: a.mm(b), (3, 4), (4, 2))],
    "bmm": [c(lambda L, a, b: L.t.bmm(a, b), (2, 3, 4), (2, 4, 2))],
    "dot": [c(lambda L, a, b: a.dot(b), (5,), (5,))],
    "outer": [c(lambda L, a, b: L.t.outer(a, b), (3,), (4,))],
    "t": [c(lambda L, a: a.t(), (3, 4))],
    "linear": [c(lambda L, x, w, b: L.F.linear(x, w, b), (5, 4), (3, 4), (3,)), c(lambda L, x, w: L.F.linear(x, w), (2, 5, 4), (3, 4))],
    "bilinear": [c(lambda L, a, b, w, bias: L.F.bilinear(a, b, w, bias), (4, 3), (4, 2), (5, 3, 2), (5,)),
                 c(lambda L, a, b, w: L.t.bilinear(a, b, w), (2, 3, 3), (2, 3, 2), (4, 3, 2))],
    "tensordot": [c(lambda L, a, b: L.t.tensordot(a, b, dims=([1], [0])), (3, 4), (4, 2))],
    "einsum": [c(lambda L, a, b: L.t.einsum("ij,jk->ik", a, b), (3, 4), (4, 2)),
               c(lambda L, a, b: L.t.einsum("bij,bkj->bik", a, b), (2, 3, 4), (2, 5, 4)),
               c(lambda L, a: L.t.einsum("ii->i", a), (3, 3))],
    # ---- nn
    "conv2d": [c(lambda L, x, w, b: L.F.conv2d(x, w, b, padding=1), (2, 3, 5, 5), (4, 3, 3, 3), (4,)),
               c(lambda L, x, w: L.F.conv2d(x, w, stride=2, dilation=1), (1, 2, 6, 5), (3, 2, 2, 2)),
               c(lambda L, x, w: L.F.conv2d(x, w, groups=2), (1, 4, 4, 4), (2, 2, 1, 1)),
               c(lambda L, x, w: L.F.conv2d(x, w, padding=1, dilation=2), (1, 1, 5, 5), (2, 1, 3, 3))],
    "max_pool2d": [c(lambda L, x: L.F.max_pool2d(x, 2), (2, 3, 4, 4)),
                   c(lambda L, x: L.F.max_pool2d(x, 3, stride=2, padding=1), (1, 2, 5, 5))],
    "avg_pool2d": [c(lambda L, x: L.F.avg_pool2d(x, 2), (2, 3, 4, 4)),
                   c(lambda L, x: L.F.avg_pool2d(x, 3, stride=2, padding=1), (1, 2, 5, 5)),
                   c(lambda L, x: L.F.avg_pool2d(x, 3, stride=2, padding=1, count_include_pad=False), (1, 2, 5, 5))],
    "adaptive_avg_pool2d": [c(lambda L, x: L.F.adaptive_avg_pool2d(x, (2, 3)), (2, 2, 5, 7))],
    "batch_norm": [c(lambda L, x, w, b: L.F.batch_norm(x, None, None, w, b, training=True), (4, 3, 2, 2), (3,), (3,))],
    "layer_norm": [c(lambda L, x, w, b: L.F.layer_norm(x, (4,), w, b), (3, 4), (4,), (4,)),
                   c(lambda L, x: L.F.layer_norm(x, (2, 3)), (2, 2, 3))],
    "embedding": [c(lambda L, w: L.F.embedding(L.t.tensor([[0, 2], [2, 4]]), w), (5, 3))],
    "dropout2d": [c(lambda L, x: _seeded(L, lambda: L.F.dropout2d(x, 0.5)), (2, 4, 2, 2), random=True)],
    "cross_entropy": [c(lambda L, x: L.F.cross_entropy(x, L.t.tensor([1, 0, 3])), (3, 4)),
                      c(lambda L, x, p: L.F.cross_entropy(x, p.softmax(1)), (3, 4), (3, 4)),
                      c(lambda L, x: L.F.cross_entropy(x, L.t.tensor([1, 0, 3]), label_smoothing=0.1), (3, 4)),
                      c(lambda L, x: L.F.cross_entropy(x, L.t.tensor([2, -100, 3, 0]), reduction="sum"), (4, 5)),
                      c(lambda L, x: L.F.cross_entropy(x, L.t.tensor([2, 1, 3, 0]), ignore_index=1), (4, 5))],
    "nll_loss": [c(lambda L, x: L.F.nll_loss(x, L.t.tensor([1, 0, 3])), (3, 4))],
    "mse_loss": [c(lambda L, x, y: L.F.mse_loss(x, y), (3, 4), (3, 4))],
    "l1_loss": [c(lambda L, x, y: L.F.l1_loss(x, y), (3, 4), (3, 4))],
    "binary_cross_entropy": [c(lambda L, x, y: L.F.binary_cross_entropy(x.sigmoid(), y.sigmoid()), (3, 4), (3, 4))],
    "binary_cross_entropy_with_logits": [
        c(lambda L, x, y: L.F.binary_cross_entropy_with_logits(x, y.sigmoid()), (3, 4), (3, 4))],
    "pad": [c(lambda L, x: L.F.pad(x, (1, 2, 0, 1)), (2, 3)), c(lambda L, x: L.F.pad(x, (-1, 1)), (2, 3))],
    # nn.functional composites (typedtensor/_runtime/functional.py)
    "group_norm": [c(lambda L, x, w, b: L.F.group_norm(x, 2, w, b), (2, 4, 3), (4,), (4,))],
    "hardtanh": [c(lambda L, x: L.F.hardtanh(x, -0.5, 0.7), (3, 4))],
    "alpha_dropout": [c(lambda L, x: _seeded(L, lambda: L.F.alpha_dropout(x, 0.3, training=True)), (3, 4), random=True)],
    "feature_alpha_dropout": [c(lambda L, x: _seeded(L, lambda: L.F.feature_alpha_dropout(x, 0.3, training=True)),
                                (3, 4, 2), random=True)],
    "scaled_dot_product_attention": [
        c(lambda L, q, k, v: L.F.scaled_dot_product_attention(q, k, v), (2, 3, 4), (2, 5, 4), (2, 5, 3)),
        c(lambda L, q, k, v: L.F.scaled_dot_product_attention(q, k, v, is_causal=True), (2, 4, 3), (2, 4, 3), (2, 4, 2))],
    "smooth_l1_loss": [c(lambda L, x, y: L.F.smooth_l1_loss(x, y, beta=0.5), (3, 4), (3, 4))],
    "huber_loss": [c(lambda L, x, y: L.F.huber_loss(x, y, delta=0.5), (3, 4), (3, 4))],
    # ---- reductions
    "sum": [c(lambda L, a: a.sum(), (3, 4)), c(lambda L, a: a.sum(1), (3, 4)),
            c(lambda L, a: a.sum((0, 2), keepdim=True), (2, 3, 4))],
    "mean": [c(lambda L, a: a.mean(), (3, 4)), c(lambda L, a: a.mean(-1, keepdim=True), (3, 4))],
    "prod": [c(lambda L, a: a.prod(1), Pos((3, 4))), c(lambda L, a: a.prod(), Pos((2, 3)))],
    "amax": [c(lambda L, a: a.amax(1), (3, 4))],
    "amin": [c(lambda L, a: a.amin((0, 1)), (3, 4))],
    "nansum": [c(lambda L, a: a.nansum(0), (3, 4))],
    "var": [c(lambda L, a: a.var(1), (3, 4)), c(lambda L, a: a.var(), (3, 4))],
    "std": [c(lambda L, a: a.std(0), (3, 4)), c(lambda L, a: a.std(1, keepdim=True), (3, 4))],
    "max": [c(lambda L, a: a.max(), (3, 4)), c(lambda L, a: a.max(1).values, (3, 4)),
            c(lambda L, a: a.max(0, keepdim=True).values, (3, 4)), c(lambda L, a, b: a.max(b), (3, 4), (4,))],
    "min": [c(lambda L, a: a.min(), (3, 4)), c(lambda L, a: a.min(1).values, (3, 4))],
    "logsumexp": [c(lambda L, a: a.logsumexp(1), (3, 4))],
    "norm": [c(lambda L, a: a.norm(), (3, 4)), c(lambda L, a: a.norm(1, 1), (3, 4))],
    "softmax": [c(lambda L, a: a.softmax(1), (3, 4)), c(lambda L, a: L.F.softmax(a, 0), (3, 4))],
    "log_softmax": [c(lambda L, a: a.log_softmax(-1), (3, 4))],
    "cumsum": [c(lambda L, a: a.cumsum(1), (3, 4))],
    "cumprod": [c(lambda L, a: a.cumprod(0), Pos((3, 4)))],
    # ---- movement
    "reshape": [c(lambda L, a: a.reshape(4, 3), (3, 4)), c(lambda L, a: a.t().reshape(-1), (3, 4))],
    "view": [c(lambda L, a: a.view(2, 6), (3, 4))],
    "reshape_as": [c(lambda L, a, b: a.reshape_as(b), (3, 4), (2, 6))],
    "view_as": [c(lambda L, a, b: a.view_as(b) * b, (3, 4), (6, 2))],
    "flatten": [c(lambda L, a: a.flatten(), (2, 3, 4)), c(lambda L, a: L.t.flatten(a, 1), (2, 3, 4))],
    "unflatten": [c(lambda L, a: a.unflatten(1, (2, 2)), (3, 4))],
    "transpose": [c(lambda L, a: a.transpose(0, 2), (2, 3, 4))],
    "swapaxes": [c(lambda L, a: a.swapaxes(0, 1), (3, 4))],
    "swapdims": [c(lambda L, a: a.swapdims(0, 1), (3, 4))],
    "permute": [c(lambda L, a: a.permute(2, 0, 1), (2, 3, 4))],
    "movedim": [c(lambda L, a: a.movedim(0, 2), (2, 3, 4))],
    "T": [c(lambda L, a: a.T, (3, 4))],
    "mT": [c(lambda L, a: a.mT, (2, 3, 4))],
    "unsqueeze": [c(lambda L, a: a.unsqueeze(1), (3, 4))],
    "squeeze": [c(lambda L, a: a.squeeze(), (3, 1, 4)), c(lambda L, a: a.squeeze(1), (3, 1))],
    "expand": [c(lambda L, a: a.expand(2, 3, 4), (3, 1))],
    "expand_as": [c(lambda L, a, b: a.expand_as(b) * b, (4,), (3, 4))],
    "broadcast_to": [c(lambda L, a: L.t.broadcast_to(a, (2, 3, 4)), (1, 4))],
    "repeat": [c(lambda L, a: a.repeat(2, 3), (3, 4)), c(lambda L, a: a.repeat(2, 1, 2), (4,))],
    "cat": [c(lambda L, a, b: L.t.cat([a, b], 1), (3, 4), (3, 2))],
    "concat": [c(lambda L, a, b: L.t.concat([a, b]), (3, 4), (1, 4))],
    "concatenate": [c(lambda L, a, b: L.t.concatenate([a, b], 0), (3, 4), (1, 4))],
    "stack": [c(lambda L, a, b: L.t.stack([a, b], 1), (3, 4), (3, 4))],
    "split": [c(lambda L, a: a.split(2, 1), (3, 4)), c(lambda L, a: L.t.split(a, [1, 2]), (3, 4))],
    "chunk": [c(lambda L, a: a.chunk(2, 0), (3, 4))],
    "unbind": [c(lambda L, a: a.unbind(1), (3, 4))],
    "flip": [c(lambda L, a: a.flip(0, 1), (3, 4))],
    "roll": [c(lambda L, a: a.roll(1, 1), (3, 4)), c(lambda L, a: L.t.roll(a, 2), (3, 4))],
    "narrow": [c(lambda L, a: a.narrow(1, 1, 2), (3, 4))],
    "tril": [c(lambda L, a: a.tril(), (4, 4))],
    "triu": [c(lambda L, a: a.triu(1), (3, 4))],
    "diagonal": [c(lambda L, a: a.diagonal(), (3, 4)), c(lambda L, a: a.diagonal(1, 1, 2), (2, 3, 4))],
    # ---- composites (typedtensor/_runtime/composite.py): gradients flow through their primitives
    "addcmul": [c(lambda L, a, b, d: L.t.addcmul(a, b, d, value=0.5), (3, 4), (3, 1), (4,))],
    "logit": [c(lambda L, a: L.t.logit(a * 0.5 + 0.5), Unit((3, 4)))],
    "xlogy": [c(lambda L, a, b: L.t.xlogy(a, b), (3, 4), Pos((3, 4)))],
    "mv": [c(lambda L, a, v: L.t.mv(a, v), (3, 4), (4,))],
    "median": [c(lambda L, a: L.t.median(a, 1).values, (3, 5)), c(lambda L, a: L.t.median(a), (3, 5))],
    "mode": [c(lambda L, a: L.t.mode(L.t.cat([a, a], 1), 1).values, (3, 4))],
    "nanmean": [c(lambda L, a: L.t.nanmean(a, 1), (3, 4))],
    "logcumsumexp": [c(lambda L, a: L.t.logcumsumexp(a, 1), (3, 4))],
    "positive": [c(lambda L, a: L.t.positive(a) * 2, (3, 4))],
    # ---- the public names the op table gained entries for
    "absolute": [c(lambda L, a: a.absolute(), (3, 4))],
    "negative": [c(lambda L, a: L.t.negative(a), (3, 4))],
    "asinh": [c(lambda L, a: a.asinh(), (3, 4))],
    "acosh": [c(lambda L, a: a.acosh(), Big((3, 4)))],
    "atanh": [c(lambda L, a: a.atanh(), Unit((3, 4)))],
    "erfc": [c(lambda L, a: a.erfc(), (3, 4))],
    # ---- ops added through the op table (docs/adding-an-op.md)
    "erfinv": [c(lambda L, a: a.erfinv(), Unit((3, 4)))],
    "fmax": [c(lambda L, a, b: L.t.fmax(a, b), (3, 4), (4,))],
    "fmin": [c(lambda L, a, b: a.fmin(b), (3, 4), (3, 1))],
    # the special functions (NOTE [ Special functions ]) and the ops written over them
    "lgamma": [c(lambda L, a: a.lgamma(), Pos((3, 4)))],
    "digamma": [c(lambda L, a: L.t.digamma(a), Pos((3, 4)))],
    "polygamma": [c(lambda L, a: L.t.polygamma(2, a), Pos((3, 4))), c(lambda L, a: a.polygamma(1), Pos((3, 4)))],
    "mvlgamma": [c(lambda L, a: L.t.mvlgamma(a + 2, 2), Pos((3, 4)))],
    "i0": [c(lambda L, a: a.i0(), (3, 4))],
    "sinc": [c(lambda L, a: L.t.sinc(a), (3, 4))],
    "deg2rad": [c(lambda L, a: a.deg2rad(), (3, 4))],
    "rad2deg": [c(lambda L, a: L.t.rad2deg(a), (3, 4))],
    "logaddexp2": [c(lambda L, a, b: L.t.logaddexp2(a, b), (3, 4), (4,))],
    "float_power": [c(lambda L, a, b: L.t.float_power(a, b), Pos((3, 4)), (4,))],
    # torch's other names, bound from the table's aliases=
    "arcsin": [c(lambda L, a: L.t.arcsin(a), Unit((3, 4)))],
    "arccos": [c(lambda L, a: a.arccos(), Unit((3, 4)))],
    "arctan": [c(lambda L, a: L.t.arctan(a), (3, 4))],
    "arcsinh": [c(lambda L, a: a.arcsinh(), (3, 4))],
    "arccosh": [c(lambda L, a: L.t.arccosh(a), Big((3, 4)))],
    "arctanh": [c(lambda L, a: a.arctanh(), Unit((3, 4)))],
    "arctan2": [c(lambda L, a, b: L.t.arctan2(a, b), (3, 4), Pos((4,)))],
    "logsigmoid": [c(lambda L, a: L.F.logsigmoid(a), (3, 4))],
    "hardsigmoid": [c(lambda L, a: L.F.hardsigmoid(a * 4), (3, 4))],
    "hardswish": [c(lambda L, a: L.F.hardswish(a * 4), (3, 4))],
    "nan_to_num": [c(lambda L, a: a.nan_to_num(), (3, 4))],
    "byte": [c(lambda L, a: a.byte() * a, Pos((3, 4)))],
    "type_as": [c(lambda L, a, b: a.type_as(b) * 2, (3, 4), (2,))],
    "subtract": [c(lambda L, a, b: L.t.subtract(a, b), (3, 4), (4,))],
    "multiply": [c(lambda L, a, b: a.multiply(b), (3, 4), (3, 1))],
    "divide": [c(lambda L, a, b: L.t.divide(a, b), (3, 4), Pos((4,)))],
    "moveaxis": [c(lambda L, a: L.t.moveaxis(a, 0, -1), (2, 3, 4))],
    "select": [c(lambda L, a: a.select(1, -1), (3, 4))],
    "hstack": [c(lambda L, a, b: L.t.hstack([a, b]), (3, 4), (3, 2))],
    "vstack": [c(lambda L, a, b: L.t.vstack([a, b]), (4,), (2, 4))],
    "broadcast_tensors": [c(lambda L, a, b: L.t.broadcast_tensors(a, b)[0] * 2, (3, 1), (4,))],
    "index_add": [c(lambda L, a, b: a.index_add(0, L.t.tensor([2, 0]), b), (3, 4), (2, 4))],
    "sort": [c(lambda L, a: a.sort(1).values, (3, 4))],
    "topk": [c(lambda L, a: a.topk(2).values, (3, 4))],
    "normalize": [c(lambda L, a: L.F.normalize(a, dim=1), (3, 4))],
    "logaddexp": [c(lambda L, a, b: L.t.logaddexp(a, b), (3, 4), (4,))],
    "cdist": [c(lambda L, a, b: L.t.cdist(a, b), (3, 2), (4, 2)), c(lambda L, a, b: L.t.cdist(a, b, 1.0), (3, 2), (4, 2))],
    "pdist": [c(lambda L, a: L.F.pdist(a), (4, 3)), c(lambda L, a: L.t.pdist(a, 3.0), (3, 2)),
              c(lambda L, a: L.F.pdist(a, float("inf")), (4, 3))],
    "softsign": [c(lambda L, a: L.F.softsign(a), (3, 4))],
    # ---- the surface ops (_runtime/surface_ops.py) and the channel dropouts
    "addcdiv": [c(lambda L, a, b, d: L.t.addcdiv(a, b, d, value=0.5), (3, 4), (3, 1), Pos((4,)))],
    "clamp_min": [c(lambda L, a: L.t.clamp_min(a, 0.1), (3, 4))],
    "clamp_max": [c(lambda L, a, b: L.t.clamp_max(a, b), (3, 4), (4,))],
    "trace": [c(lambda L, a: L.t.trace(a), (3, 4))],
    "diag": [c(lambda L, a: L.t.diag(a, 1), (3,)), c(lambda L, a: L.t.diag(a, -1), (3, 4))],
    "diag_embed": [c(lambda L, a: L.t.diag_embed(a, 1, 0, 2), (2, 3))],
    "addmm": [c(lambda L, a, b, d: L.t.addmm(a, b, d, beta=0.5, alpha=2.0), (3, 5), (3, 4), (4, 5))],
    "addmv": [c(lambda L, a, b, d: L.t.addmv(a, b, d, beta=0.0), (3,), (3, 4), (4,))],
    "baddbmm": [c(lambda L, a, b, d: L.t.baddbmm(a, b, d), (1, 3, 5), (2, 3, 4), (2, 4, 5))],
    "kron": [c(lambda L, a, b: L.t.kron(a, b), (2, 3), (3,))],
    "cross": [c(lambda L, a, b: L.t.cross(a, b, dim=1), (2, 3), (2, 3))],
    "tile": [c(lambda L, a: L.t.tile(a, (2, 1, 2)), (2, 3))],
    "ravel": [c(lambda L, a: a.t().ravel(), (2, 3))],
    "rot90": [c(lambda L, a: L.t.rot90(a, 3, [1, 2]), (2, 3, 4))],
    "diff": [c(lambda L, a, b: L.t.diff(a, 2, 0, prepend=b), (3, 4), (1, 4))],
    "take": [c(lambda L, a: L.t.take(a, L.t.tensor([[0, 5], [11, 5]])), (3, 4))],
    "take_along_dim": [c(lambda L, a: L.t.take_along_dim(a, L.t.tensor([[0], [3]]), 1), (2, 4))],
    "index_fill": [c(lambda L, a: L.t.index_fill(a, 1, L.t.tensor([0, 2]), 1.5), (3, 4))],
    "index_copy": [c(lambda L, a, b: L.t.index_copy(a, 0, L.t.tensor([2, 0]), b), (3, 4), (2, 4))],
    "masked_scatter": [c(lambda L, a, b: L.t.masked_scatter(a, L.t.tensor([True, False, True, True]), b), (3, 4),
                         (14,))],
    "repeat_interleave": [c(lambda L, a: L.t.repeat_interleave(a, 2, 1), (2, 3)),
                          c(lambda L, a: L.t.repeat_interleave(a, L.t.tensor([2, 0, 1]), 0), (3, 2))],
    "meshgrid": [c(lambda L, a, b: L.t.stack(L.t.meshgrid(a, b, indexing="xy")), (2,), (3,))],
    "cartesian_prod": [c(lambda L, a, b: L.t.cartesian_prod(a, b), (2,), (3,))],
    "normal": [c(lambda L, a, b: _seeded(L, lambda: L.t.normal(a, b.abs() + 0.5)), (3, 4), (4,), random=True)],
    "dropout1d": [c(lambda L, a: _seeded(L, lambda: L.F.dropout1d(a, 0.5)), (4, 3, 2), random=True)],
    "dropout3d": [c(lambda L, a: _seeded(L, lambda: L.F.dropout3d(a, 0.5)), (2, 3, 2, 1, 2), random=True)],
}

# the convolution, pooling, resampling, normalisation, activation and loss ops
from .autograd_cases_linalg import CASES as _LINALG  # noqa: E402
from .autograd_cases_scatter import CASES as _SCATTER  # noqa: E402
from .autograd_cases_small_math import CASES as _SMALL_MATH  # noqa: E402
from .autograd_cases_statistics import CASES as _STATISTICS  # noqa: E402
from .autograd_cases_surface import CASES as _SURFACE  # noqa: E402

CASES.update(_SURFACE)
CASES.update(_STATISTICS)
CASES.update(_LINALG)
CASES.update(_SCATTER)
CASES.update(_SMALL_MATH)
