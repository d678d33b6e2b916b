"""One small call of every runtime op of the registry, runnable on any device.

``CASES[op](mk, dev)`` builds its inputs with ``mk(array)`` (a tensor with those values on the
device under test) and returns the op's result(s). Running a case on ``"cpu"`` and on a CUDA
device must give the same values (random ops: the same shapes and dtypes). The CUDA tests run the
sweep on a real GPU (test_cuda.py) and, everywhere, on the host-emulated device
(test_cuda_emulated.py), which exercises the device plumbing with the CPU kernels.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

import typedtensor._runtime as tt
from typedtensor._runtime import functional as F

Mk = Callable[..., Any]
Case = Callable[[Mk, str], Any]

RNG_SEED = 1234


def data(*shape: int, kind: str = "f", lo: float = -3.0, hi: float = 3.0) -> np.ndarray:
    """Deterministic values for a shape: floats in [lo, hi), small ints, or bools."""
    rng = np.random.default_rng(RNG_SEED + sum(shape) + len(shape))
    if kind == "b":
        return rng.random(shape) > 0.5
    if kind == "i":
        return rng.integers(-4, 5, shape).astype(np.int64)
    return (rng.random(shape) * (hi - lo) + lo).astype(np.float32)


def _fn(name: str) -> Callable[..., Any]:
    for owner in (tt, F):
        if hasattr(owner, name):
            return getattr(owner, name)  # type: ignore[no-any-return]
    return lambda x, *a, **k: getattr(x, name)(*a, **k)


CASES: dict[str, Case] = {}

UNARY_FLOAT = ["abs", "ceil", "cos", "cosh", "erf", "exp", "exp2", "expm1", "floor", "frac", "isfinite", "isinf",
               "isnan", "logical_not", "neg", "reciprocal", "relu", "relu6", "round", "sigmoid", "sign", "sin",
               "sinh", "square", "tan", "tanh", "trunc", "gelu", "silu", "mish", "softplus", "elu", "leaky_relu"]
UNARY_POSITIVE = ["log", "log10", "log1p", "log2", "rsqrt", "sqrt"]
UNARY_UNIT = ["acos", "asin", "atan"]
for _n in UNARY_FLOAT:
    CASES[_n] = lambda mk, dev, n=_n: _fn(n)(mk(data(3, 17)))
for _n in UNARY_POSITIVE:
    CASES[_n] = lambda mk, dev, n=_n: _fn(n)(mk(data(3, 17, lo=0.1, hi=4.0)))
for _n in UNARY_UNIT:
    CASES[_n] = lambda mk, dev, n=_n: _fn(n)(mk(data(3, 17, lo=-0.9, hi=0.9)))
CASES["bitwise_not"] = lambda mk, dev: tt.bitwise_not(mk(data(4, 5, kind="i")))

BINARY = ["add", "sub", "mul", "div", "true_divide", "floor_divide", "remainder", "fmod", "maximum", "minimum",
          "atan2", "hypot", "copysign", "eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or",
          "logical_xor"]
for _n in BINARY:
    # broadcasting ([3, 1, 5] with [4, 1]) and a non-contiguous operand
    CASES[_n] = lambda mk, dev, n=_n: _fn(n)(mk(data(3, 1, 5)), mk(data(5, 4)).t()[:, :1] + 0.5)
CASES["pow"] = lambda mk, dev: tt.pow(mk(data(3, 4, lo=0.5, hi=2.0)), mk(data(4, lo=-2, hi=2)))
for _n in ["bitwise_and", "bitwise_or", "bitwise_xor"]:
    CASES[_n] = lambda mk, dev, n=_n: _fn(n)(mk(data(3, 4, kind="i")), mk(data(4, kind="i")))

CASTS = ["bfloat16", "bool", "double", "float", "half", "int", "long"]
for _n in CASTS:
    CASES[_n] = lambda mk, dev, n=_n: getattr(mk(data(3, 5)).t(), n)()
CASES["type"] = lambda mk, dev: mk(data(2, 3)).type(tt.float64)
CASES["to"] = lambda mk, dev: mk(data(2, 3)).to(tt.int32)
CASES["cpu"] = lambda mk, dev: mk(data(2, 3)).cpu() + 1
CASES["cuda"] = lambda mk, dev: mk(data(2, 3)).to(dev) * 2
CASES["detach"] = lambda mk, dev: mk(data(2, 3)).detach()
CASES["clone"] = lambda mk, dev: mk(data(4, 3)).t().clone()
CASES["contiguous"] = lambda mk, dev: mk(data(4, 3)).t().contiguous()
CASES["item"] = lambda mk, dev: mk(data(3)).sum().item()

REDUCTIONS = ["sum", "mean", "prod", "amax", "amin", "nansum", "logsumexp", "std", "var"]
for _n in REDUCTIONS:
    CASES[_n] = lambda mk, dev, n=_n: (_fn(n)(mk(data(4, 6, 5)), 1), _fn(n)(mk(data(4, 6, 5)), -1),
                                       _fn(n)(mk(data(4, 6, 5)), (0, 2)))
CASES["sum"] = lambda mk, dev: (tt.sum(mk(data(4, 6, 5)), 1), tt.sum(mk(data(3, 70001))),
                                tt.sum(mk(data(5, 7, kind="i")), 0), mk(data(6, 5)).t().sum(-1))
CASES["mean"] = lambda mk, dev: (tt.mean(mk(data(4, 6, 5)), (0, 2), keepdim=True), tt.mean(mk(data(300001))))
CASES["norm"] = lambda mk, dev: (tt.norm(mk(data(4, 6, 5))), mk(data(4, 6)).norm(dim=1), mk(data(4, 6)).norm(1, dim=0))
for _n in ["all", "any"]:
    CASES[_n] = lambda mk, dev, n=_n: (_fn(n)(mk(data(4, 6, kind="b"))), _fn(n)(mk(data(4, 6, kind="b")), 1))
for _n in ["argmax", "argmin"]:
    CASES[_n] = lambda mk, dev, n=_n: (_fn(n)(mk(data(4, 600))), _fn(n)(mk(data(4, 6, 5)), 1),
                                       _fn(n)(mk(data(40, 6)), -1))
for _n in ["max", "min"]:
    CASES[_n] = lambda mk, dev, n=_n: (_fn(n)(mk(data(4, 6))), *_fn(n)(mk(data(4, 6)), 1),
                                       _fn(n)(mk(data(4, 6)), mk(data(6))))
CASES["count_nonzero"] = lambda mk, dev: mk(data(4, 6, kind="i")).count_nonzero(1)
for _n in ["cumsum", "cumprod"]:
    CASES[_n] = lambda mk, dev, n=_n: (_fn(n)(mk(data(4, 6, lo=0.5, hi=1.5)), 1),
                                       _fn(n)(mk(data(4, 6, kind="i")), 0))

VIEWS: dict[str, Case] = {
    "T": lambda mk, dev: mk(data(3, 4)).T + 0,
    "mT": lambda mk, dev: mk(data(2, 3, 4)).mT + 0,
    "t": lambda mk, dev: mk(data(3, 4)).t() + 0,
    "transpose": lambda mk, dev: tt.transpose(mk(data(2, 3, 4)), 0, 2) * 1,
    "swapaxes": lambda mk, dev: tt.swapaxes(mk(data(2, 3, 4)), 0, 1) * 1,
    "swapdims": lambda mk, dev: tt.swapdims(mk(data(2, 3, 4)), 1, 2) * 1,
    "permute": lambda mk, dev: mk(data(2, 3, 4)).permute(2, 0, 1).contiguous(),
    "movedim": lambda mk, dev: tt.movedim(mk(data(2, 3, 4)), 0, -1).contiguous(),
    "broadcast_to": lambda mk, dev: tt.broadcast_to(mk(data(3, 1)), (2, 3, 4)).contiguous(),
    "expand": lambda mk, dev: mk(data(3, 1)).expand(2, 3, 4) + 0,
    "expand_as": lambda mk, dev: mk(data(3, 1)).expand_as(mk(data(3, 4))) + 0,
    "chunk": lambda mk, dev: [c + 0 for c in tt.chunk(mk(data(7, 3)), 3, 0)],
    "split": lambda mk, dev: [c + 0 for c in tt.split(mk(data(7, 3)), 2, 0)],
    "unbind": lambda mk, dev: [c + 0 for c in tt.unbind(mk(data(3, 4)), 1)],
    "diagonal": lambda mk, dev: tt.diagonal(mk(data(4, 5)), 1) + 0,
    "flatten": lambda mk, dev: tt.flatten(mk(data(2, 3, 4)).transpose(0, 1), 1),
    "unflatten": lambda mk, dev: mk(data(2, 12)).unflatten(1, (3, 4)) + 0,
    "flip": lambda mk, dev: tt.flip(mk(data(3, 4)), (0, 1)),
    "roll": lambda mk, dev: tt.roll(mk(data(3, 4)), 1, 1),
    "narrow": lambda mk, dev: tt.narrow(mk(data(5, 4)), 0, 1, 3) + 0,
    "repeat": lambda mk, dev: mk(data(2, 3)).repeat(2, 1, 2),
    "reshape": lambda mk, dev: mk(data(3, 4)).t().reshape(2, 6),
    "reshape_as": lambda mk, dev: mk(data(3, 4)).reshape_as(mk(data(6, 2))),
    "view": lambda mk, dev: mk(data(3, 4)).view(4, 3) + 0,
    "view_as": lambda mk, dev: mk(data(3, 4)).view_as(mk(data(2, 6))) + 0,
    "squeeze": lambda mk, dev: tt.squeeze(mk(data(3, 1, 4)), 1) + 0,
    "unsqueeze": lambda mk, dev: tt.unsqueeze(mk(data(3, 4)), 1) + 0,
    "tril": lambda mk, dev: tt.tril(mk(data(2, 4, 5)), -1),
    "triu": lambda mk, dev: tt.triu(mk(data(4, 5)), 1),
    "cat": lambda mk, dev: tt.cat([mk(data(2, 3)), mk(data(4, 3)).t().t()], 0),
    "concat": lambda mk, dev: tt.concat([mk(data(2, 3)), mk(data(2, 2))], 1),
    "concatenate": lambda mk, dev: tt.concatenate([mk(data(2, 3)), mk(data(1, 3))], 0),
    "stack": lambda mk, dev: tt.stack([mk(data(2, 3)), mk(data(3, 2)).t()], 1),
}
CASES.update(VIEWS)

CREATION: dict[str, Case] = {
    "arange": lambda mk, dev: (tt.arange(7, device=dev), tt.arange(0.5, 3.0, 0.25, device=dev)),
    "as_tensor": lambda mk, dev: tt.as_tensor(data(2, 3), device=dev) * 1,
    "tensor": lambda mk, dev: tt.tensor([[1.0, 2.0], [3.0, 4.0]], device=dev),
    "empty": lambda mk, dev: tt.empty(2, 3, device=dev).shape,
    "empty_like": lambda mk, dev: tt.empty_like(mk(data(2, 3))).shape,
    "eye": lambda mk, dev: tt.eye(3, 4, device=dev),
    "full": lambda mk, dev: tt.full((2, 3), 2.5, device=dev),
    "full_like": lambda mk, dev: tt.full_like(mk(data(2, 3)), 7),
    "linspace": lambda mk, dev: tt.linspace(0, 1, 5, device=dev),
    "ones": lambda mk, dev: tt.ones(2, 3, dtype=tt.int32, device=dev),
    "ones_like": lambda mk, dev: tt.ones_like(mk(data(2, 3))),
    "zeros": lambda mk, dev: tt.zeros(2, 3, device=dev),
    "zeros_like": lambda mk, dev: tt.zeros_like(mk(data(2, 3))),
    "fill": lambda mk, dev: mk(data(2, 3)).fill_(3.0),
    "zero": lambda mk, dev: mk(data(2, 3)).zero_(),
    # the new_* methods: the source tensor's device and dtype
    "new_zeros": lambda mk, dev: mk(data(2, 3)).new_zeros(4, 5),
    "new_ones": lambda mk, dev: mk(data(2, 3)).new_ones((4, 5), dtype=tt.float64),
    "new_full": lambda mk, dev: mk(data(2, 3)).new_full((4, 5), 2.5),
    "new_tensor": lambda mk, dev: mk(data(2, 3)).new_tensor([[1.0, 2.0], [3.0, 4.0]]),
    "new_empty": lambda mk, dev: mk(data(2, 3)).new_empty(4, 5).fill_(1.0),
}
CASES.update(CREATION)

# random ops: compared by shape, dtype, device and a loose value range
RANDOM: dict[str, Case] = {
    "rand": lambda mk, dev: tt.rand(1000, device=dev),
    "rand_like": lambda mk, dev: tt.rand_like(mk(data(10, 100))),
    "randn": lambda mk, dev: tt.randn(1000, device=dev),
    "randn_like": lambda mk, dev: tt.randn_like(mk(data(10, 100))),
    "randint": lambda mk, dev: tt.randint(0, 10, (1000,), device=dev),
    "dropout": lambda mk, dev: F.dropout(mk(np.ones((10, 100), np.float32)), 0.5, True),
    "dropout2d": lambda mk, dev: F.dropout2d(mk(np.ones((4, 50, 3, 3), np.float32)), 0.5, True),
    "dropout1d": lambda mk, dev: F.dropout1d(mk(np.ones((4, 50, 3), np.float32)), 0.5, True),
    "dropout3d": lambda mk, dev: F.dropout3d(mk(np.ones((4, 50, 2, 1, 2), np.float32)), 0.5, True),
}
CASES.update(RANDOM)


def _gather_index(mk: Mk) -> Any:
    return mk(np.array([[0, 2, 1], [1, 0, 0]], np.int64))


INDEXING: dict[str, Case] = {
    "gather": lambda mk, dev: tt.gather(mk(data(2, 5)), 1, _gather_index(mk)),
    "index_select": lambda mk, dev: tt.index_select(mk(data(4, 5)), 1, mk(np.array([4, 0, 3, 2], np.int64))),
    "embedding": lambda mk, dev: F.embedding(mk(np.array([[1, 3], [0, 1]], np.int64)), mk(data(5, 4))),
    "scatter": lambda mk, dev: tt.scatter(mk(data(2, 5)), 1, _gather_index(mk), mk(data(2, 3))),
    "scatter_add": lambda mk, dev: tt.scatter_add(mk(data(2, 5)), 1, _gather_index(mk), mk(data(2, 3))),
    "masked_fill": lambda mk, dev: mk(data(3, 4)).masked_fill(mk(data(4, kind="b")), -1.5),
    "masked_select": lambda mk, dev: tt.masked_select(mk(data(3, 4)), mk(data(3, 4, kind="b"))),
    "nonzero": lambda mk, dev: tt.nonzero(mk(data(3, 4, kind="b"))),
    "where": lambda mk, dev: (tt.where(mk(data(3, 4, kind="b")), mk(data(3, 4)), 0.0),
                              tt.where(mk(data(4, kind="b")), mk(data(3, 4)), mk(data(3, 1)))),
    "clamp": lambda mk, dev: (tt.clamp(mk(data(3, 4)), -1, 1), tt.clamp(mk(data(3, 4, kind="i")), min=0)),
    "clip": lambda mk, dev: tt.clip(mk(data(3, 4)), max=0.5),
    "lerp": lambda mk, dev: mk(data(3, 4)).lerp(mk(data(4)), 0.25),
    "index": lambda mk, dev: (mk(data(4, 5))[mk(np.array([0, 2], np.int64))],
                              mk(data(4, 5))[mk(np.array([3, 1], np.int64)), mk(np.array([0, 4], np.int64))],
                              mk(data(4, 5))[mk(data(4, 5, kind="b"))], mk(data(4, 5))[1:, ::2]),
    "index_put": lambda mk, dev: _index_put(mk),
    "one_hot": lambda mk, dev: F.one_hot(mk(np.array([0, 2, 1], np.int64)), 4),
}
CASES.update(INDEXING)


def _index_put(mk: Mk) -> Any:
    x = mk(data(4, 5))
    x[mk(np.array([0, 2], np.int64))] = 1.5
    x[1:3, 1] = mk(data(2))
    x[x > 2] = 0.0
    return x


LINALG: dict[str, Case] = {
    "matmul": lambda mk, dev: (tt.matmul(mk(data(3, 4)), mk(data(4, 5))), tt.matmul(mk(data(2, 3, 4)), mk(data(4))),
                               tt.matmul(mk(data(2, 1, 3, 4)), mk(data(5, 4, 2))),
                               tt.matmul(mk(data(4, 3)).t(), mk(data(5, 4)).t())),
    "mm": lambda mk, dev: tt.mm(mk(data(3, 4)), mk(data(5, 4)).t()),
    "bmm": lambda mk, dev: tt.bmm(mk(data(2, 3, 4)), mk(data(2, 4, 5))),
    "dot": lambda mk, dev: tt.dot(mk(data(7)), mk(data(7))),
    "outer": lambda mk, dev: tt.outer(mk(data(3)), mk(data(4))),
    "einsum": lambda mk, dev: tt.einsum("bij,bjk->bik", mk(data(2, 3, 4)), mk(data(2, 4, 5))),
    "tensordot": lambda mk, dev: tt.tensordot(mk(data(3, 4, 5)), mk(data(4, 5, 2)), 2),
    "linear": lambda mk, dev: F.linear(mk(data(2, 3, 4)), mk(data(5, 4)), mk(data(5))),
    "bilinear": lambda mk, dev: F.bilinear(mk(data(2, 3, 4)), mk(data(2, 3, 2)), mk(data(5, 4, 2)), mk(data(5))),
}
CASES.update(LINALG)

NN: dict[str, Case] = {
    "softmax": lambda mk, dev: (tt.softmax(mk(data(3, 1500)), -1), tt.softmax(mk(data(4, 3, 5)), 1)),
    "log_softmax": lambda mk, dev: (tt.log_softmax(mk(data(3, 40)), -1), tt.log_softmax(mk(data(4, 3, 5)), 0)),
    "layer_norm": lambda mk, dev: (F.layer_norm(mk(data(3, 8)), (8,), mk(data(8)), mk(data(8))),
                                   F.layer_norm(mk(data(2, 2000)), (2000,))),
    "batch_norm": lambda mk, dev: F.batch_norm(mk(data(4, 3, 5)), None, None, training=True),
    "conv2d": lambda mk, dev: (F.conv2d(mk(data(2, 4, 7, 6)), mk(data(6, 2, 3, 3)), mk(data(6)), stride=(2, 1),
                                        padding=1, dilation=(1, 2), groups=2),
                               F.conv2d(mk(data(2, 3, 4, 4)), mk(data(5, 3, 1, 1)))),
    "max_pool2d": lambda mk, dev: F.max_pool2d(mk(data(2, 3, 7, 6)), 3, 2, 1),
    "avg_pool2d": lambda mk, dev: F.avg_pool2d(mk(data(2, 3, 7, 6)), 3, 2, 1, count_include_pad=False),
    "adaptive_avg_pool2d": lambda mk, dev: F.adaptive_avg_pool2d(mk(data(2, 3, 7, 6)), (3, 4)),
    "pad": lambda mk, dev: F.pad(mk(data(2, 3)), (1, 2)),
    "cross_entropy": lambda mk, dev: F.cross_entropy(mk(data(4, 5)), mk(np.array([0, 4, 2, 1], np.int64))),
    "nll_loss": lambda mk, dev: F.nll_loss(tt.log_softmax(mk(data(4, 5)), -1), mk(np.array([0, 4, 2, 1], np.int64))),
    "binary_cross_entropy": lambda mk, dev: F.binary_cross_entropy(tt.sigmoid(mk(data(6))), mk(data(6, lo=0, hi=1))),
    "binary_cross_entropy_with_logits": lambda mk, dev: F.binary_cross_entropy_with_logits(mk(data(6)),
                                                                                           mk(data(6, lo=0, hi=1))),
    "mse_loss": lambda mk, dev: F.mse_loss(mk(data(3, 4)), mk(data(3, 4)) * 0.5),
    "l1_loss": lambda mk, dev: F.l1_loss(mk(data(3, 4)), mk(data(3, 4)) * 0.5),
}
CASES.update(NN)



def _inplace(mk: Mk) -> Any:
    """In-place updates (they call kernels directly, outside apply()): scalars, CPU 0-d tensors,
    broadcast operands, views, and the update pattern of an optimizer step."""
    x = mk(data(3, 4))
    x.add_(1.5)
    x.mul_(mk(data(4)))
    x.sub_(tt.tensor(0.25))  # a CPU 0-d tensor next to a device tensor
    x.div_(2)
    x[:, 1] += 1.0
    x[0] = mk(data(4))
    x.t().mul_(0.5)
    x.clamp_(-2.0, 2.0)
    x.relu_()
    g, m = mk(data(3, 4)), mk(np.zeros((3, 4), np.float32))
    for _ in range(2):  # momentum SGD
        m.mul_(0.9).add_(g)
        x -= 0.1 * m
    y = mk(data(2, 3, kind="i"))
    y.add_(2)
    y.floor_divide_(3)
    y.copy_(tt.tensor(data(2, 3, kind="i")))  # from the CPU
    return x, y, m


CASES["inplace"] = lambda mk, dev: _inplace(mk)

# composites of typedtensor/_runtime/composite.py
CASES.update({
    "addcmul": lambda mk, dev: tt.addcmul(mk(data(3, 4)), mk(data(4)), mk(data(3, 1)), value=0.5),
    "logit": lambda mk, dev: tt.logit(mk(data(3, 4, lo=0.05, hi=0.95))),
    "xlogy": lambda mk, dev: tt.xlogy(mk(data(3, 4)), mk(data(3, 4, lo=0.1, hi=2.0))),
    "mv": lambda mk, dev: tt.mv(mk(data(3, 4)), mk(data(4))),
    "positive": lambda mk, dev: tt.positive(mk(data(3, 4))),
    "nanmean": lambda mk, dev: tt.nanmean(mk(np.array([[1.0, np.nan, 3.0], [np.nan, 2.0, 4.0]], np.float32)), 1),
    "logcumsumexp": lambda mk, dev: tt.logcumsumexp(mk(data(3, 5)), 1),
    "median": lambda mk, dev: (tt.median(mk(data(4, 5))), *tt.median(mk(data(4, 5)), 1)),
    "mode": lambda mk, dev: tuple(tt.mode(mk(data(4, 6, kind="i")), 1)),
})

# functional ops of the nn branch
CASES.update({
    "group_norm": lambda mk, dev: F.group_norm(mk(data(2, 6, 5)), 3, mk(data(6)), mk(data(6))),
    "hardtanh": lambda mk, dev: F.hardtanh(mk(data(3, 4)), -0.5, 0.5),
    "huber_loss": lambda mk, dev: F.huber_loss(mk(data(3, 4)), mk(data(3, 4)) * 0.5, delta=0.7),
    "smooth_l1_loss": lambda mk, dev: F.smooth_l1_loss(mk(data(3, 4)), mk(data(3, 4)) * 0.5, beta=0.5),
    "scaled_dot_product_attention": lambda mk, dev: (
        F.scaled_dot_product_attention(mk(data(2, 3, 5, 4)), mk(data(2, 3, 6, 4)), mk(data(2, 3, 6, 4))),
        F.scaled_dot_product_attention(mk(data(2, 5, 4)), mk(data(2, 5, 4)), mk(data(2, 5, 4)), is_causal=True),
        F.scaled_dot_product_attention(mk(data(2, 5, 4)), mk(data(2, 6, 4)), mk(data(2, 6, 4)),
                                       attn_mask=mk(data(5, 6, kind="b")) | mk(np.eye(5, 6, dtype=bool)))),
})
RANDOM["alpha_dropout"] = lambda mk, dev: F.alpha_dropout(mk(np.ones((10, 100), np.float32)), 0.5, True)
CASES["alpha_dropout"] = RANDOM["alpha_dropout"]
RANDOM["feature_alpha_dropout"] = lambda mk, dev: F.feature_alpha_dropout(mk(np.ones((10, 100, 3), np.float32)), 0.5, True)
CASES["feature_alpha_dropout"] = RANDOM["feature_alpha_dropout"]

# ops the op table gained when every public runtime name got an entry
UNARY_FLOAT += ["absolute", "negative", "erfc", "asinh", "logsigmoid", "hardsigmoid", "hardswish", "nan_to_num"]
for _n in UNARY_FLOAT[-8:]:
    CASES[_n] = lambda mk, dev, n=_n: _fn(n)(mk(data(3, 17)))
CASES["acosh"] = lambda mk, dev: tt.acosh(mk(data(3, 17, lo=1.1, hi=4.0)))
CASES["atanh"] = lambda mk, dev: tt.atanh(mk(data(3, 17, lo=-0.9, hi=0.9)))
CASES["erfinv"] = lambda mk, dev: tt.erfinv(mk(data(3, 17, lo=-0.99, hi=0.99)))
# the special functions (NOTE [ Special functions ]) and the ops written over them
for _n in ["lgamma", "digamma", "i0", "sinc", "deg2rad", "rad2deg", "signbit"]:
    CASES[_n] = lambda mk, dev, n=_n: _fn(n)(mk(data(3, 17, lo=-4.5, hi=4.5)))
CASES["polygamma"] = lambda mk, dev: tt.polygamma(3, mk(data(3, 17, lo=0.2, hi=6.0)))
CASES["mvlgamma"] = lambda mk, dev: tt.mvlgamma(mk(data(3, 17, lo=1.6, hi=6.0)), 3)
CASES["logaddexp2"] = lambda mk, dev: tt.logaddexp2(mk(data(3, 5)), mk(data(5)))
CASES["heaviside"] = lambda mk, dev: tt.heaviside(mk(np.round(data(3, 5))), mk(data(5)))
CASES["float_power"] = lambda mk, dev: tt.float_power(mk(data(3, 5, lo=0.1, hi=3.0)), mk(data(5)))
for _n in ["trigamma", "i0e", "i1", "i1e", "erfcx"]:  # torch.special only: _C's functions
    CASES[_n] = lambda mk, dev, n=_n: getattr(tt._C, n)(mk(data(3, 17, lo=-4.5, hi=4.5)))
CASES["ndtri"] = lambda mk, dev: tt._C.ndtri(mk(data(3, 17, lo=0.01, hi=0.99)))
CASES["zeta"] = lambda mk, dev: tt._C.zeta(mk(data(3, 5, lo=1.5, hi=6.0)), mk(data(5, lo=0.2, hi=5.0)))
for _n in ["fmax", "fmin"]:  # a NaN in each operand, once where the other is not NaN
    CASES[_n] = lambda mk, dev, n=_n: _fn(n)(mk(np.where(np.eye(3, 5) > 0, np.nan, data(3, 5))),
                                             mk(np.where(np.eye(3, 5)[::-1] > 0, np.nan, data(3, 5))))
for _n in ["subtract", "multiply", "divide", "greater", "greater_equal", "less", "less_equal", "not_equal"]:
    CASES[_n] = lambda mk, dev, n=_n: _fn(n)(mk(data(3, 1, 5)), mk(data(5, 4)).t()[:, :1] + 0.5)
for _n in ["arcsin", "arccos", "arctan", "arcsinh", "arctanh", "fix"]:  # torch's other names (the table's aliases=)
    CASES[_n] = lambda mk, dev, n=_n: _fn(n)(mk(data(3, 17, lo=-0.9, hi=0.9)))
CASES["arccosh"] = lambda mk, dev: tt.arccosh(mk(data(3, 17, lo=1.1, hi=4.0)))
CASES["arctan2"] = lambda mk, dev: tt.arctan2(mk(data(3, 1, 5)), mk(data(5, 4)).t()[:, :1] + 0.5)
CASES.update({
    "byte": lambda mk, dev: mk(data(3, 5, lo=0, hi=9)).byte(),
    "type_as": lambda mk, dev: mk(data(3, 5)).type_as(mk(data(2, kind="i"))),
    "moveaxis": lambda mk, dev: tt.moveaxis(mk(data(2, 3, 4)), 0, -1).contiguous(),
    "select": lambda mk, dev: tt.select(mk(data(3, 4)), 1, -1) + 0,
    "hstack": lambda mk, dev: tt.hstack([mk(data(2, 3)), mk(data(2, 1))]),
    "vstack": lambda mk, dev: tt.vstack([mk(data(3)), mk(data(2, 3))]),
    "broadcast_tensors": lambda mk, dev: [t + 0 for t in tt.broadcast_tensors(mk(data(3, 1)), mk(data(4)))],
    "index_add": lambda mk, dev: tt.index_add(mk(data(4, 3)), 0, mk(np.array([0, 2], np.int64)), mk(data(2, 3))),
    "sort": lambda mk, dev: tuple(tt.sort(mk(data(3, 6)), 1)),
    "argsort": lambda mk, dev: tt.argsort(mk(data(3, 6)), 0, descending=True),
    "topk": lambda mk, dev: tuple(tt.topk(mk(data(3, 6)), 2)),
    "isclose": lambda mk, dev: tt.isclose(mk(data(3, 4)), mk(data(4))),
    "logaddexp": lambda mk, dev: tt.logaddexp(mk(data(3, 4)), mk(data(4))),
    "cdist": lambda mk, dev: (tt.cdist(mk(data(2, 5, 3)), mk(data(4, 3))), tt.cdist(mk(data(5, 3)), mk(data(4, 3)), 1.0)),
    "pdist": lambda mk, dev: (tt.pdist(mk(data(5, 3))), F.pdist(mk(data(4, 3)), 1.0)),
    "softsign": lambda mk, dev: F.softsign(mk(data(3, 17))),
    "normalize": lambda mk, dev: F.normalize(mk(data(3, 4)), dim=1),
})
RANDOM.update({
    "bernoulli": lambda mk, dev: tt.bernoulli(mk(data(10, 100, lo=0, hi=1))),
    "randint_like": lambda mk, dev: tt.randint_like(mk(data(10, 100)), 5),
    "randperm": lambda mk, dev: tt.randperm(50, device=dev).sort().values,
    "normal": lambda mk, dev: tt.normal(mk(np.zeros((10, 100), np.float32)), 1.0),
    "normal_of_size": lambda mk, dev: tt.normal(0.0, 1.0, (10, 100), device=dev),
    "multinomial": lambda mk, dev: tt.multinomial(mk(data(4, 25, lo=0.1, hi=1)), 5),
    "uniform": lambda mk, dev: mk(data(10, 100)).uniform_(0.0, 1.0),
    "exponential": lambda mk, dev: mk(data(10, 100)).exponential_(2.0),
    "random": lambda mk, dev: mk(data(10, 100)).random_(0, 10),
})
CASES.update(RANDOM)

# the surface ops (_runtime/surface_ops.py); the value-dependent ones compute on the host
_IDX = np.array([2, 0], np.int64)
CASES.update({
    "addcdiv": lambda mk, dev: tt.addcdiv(mk(data(3, 4)), mk(data(4)), mk(data(3, 1, lo=1, hi=2)), value=0.5),
    "clamp_min": lambda mk, dev: tt.clamp_min(mk(data(3, 4)), 0.1),
    "clamp_max": lambda mk, dev: mk(data(3, 4)).clamp_max(mk(data(4))),
    "trace": lambda mk, dev: tt.trace(mk(data(3, 4))),
    "diag": lambda mk, dev: (tt.diag(mk(data(4)), 1), tt.diag(mk(data(3, 4)), -1)),
    "diag_embed": lambda mk, dev: tt.diag_embed(mk(data(2, 3)), 1),
    "addmm": lambda mk, dev: tt.addmm(mk(data(3, 5)), mk(data(3, 4)), mk(data(4, 5)), beta=0.5),
    "addmv": lambda mk, dev: tt.addmv(mk(data(3)), mk(data(3, 4)), mk(data(4)), alpha=2.0),
    "baddbmm": lambda mk, dev: tt.baddbmm(mk(data(2, 3, 5)), mk(data(2, 3, 4)), mk(data(2, 4, 5))),
    "kron": lambda mk, dev: tt.kron(mk(data(2, 3)), mk(data(3, 2))),
    "cross": lambda mk, dev: tt.cross(mk(data(4, 3)), mk(data(4, 3)), dim=1),
    "tile": lambda mk, dev: tt.tile(mk(data(2, 3)), (2, 1, 2)),
    "ravel": lambda mk, dev: mk(data(2, 3)).t().ravel(),
    "rot90": lambda mk, dev: tt.rot90(mk(data(2, 3, 4)), 1, (1, 2)),
    "diff": lambda mk, dev: tt.diff(mk(data(3, 5)), 2, prepend=mk(data(3, 1))),
    "take": lambda mk, dev: tt.take(mk(data(3, 4)), mk(_IDX)),
    "take_along_dim": lambda mk, dev: tt.take_along_dim(mk(data(3, 4)), mk(np.array([[0], [3], [1]])), 1),
    "index_fill": lambda mk, dev: tt.index_fill(mk(data(3, 4)), 0, mk(_IDX), -1.0),
    "index_copy": lambda mk, dev: tt.index_copy(mk(data(3, 4)), 0, mk(_IDX), mk(data(2, 4))),
    "masked_scatter": lambda mk, dev: tt.masked_scatter(mk(data(3, 4)), mk(data(4, kind="b")), mk(data(12))),
    "repeat_interleave": lambda mk, dev: (tt.repeat_interleave(mk(data(2, 3)), 2, 1),
                                          tt.repeat_interleave(mk(data(3)), mk(np.array([1, 0, 2])))),
    "triu_indices": lambda mk, dev: tt.triu_indices(3, 4, device=dev),
    "tril_indices": lambda mk, dev: tt.tril_indices(4, 3, -1, device=dev),
    "meshgrid": lambda mk, dev: tt.meshgrid(mk(data(2)), mk(data(3)), indexing="xy"),
    "cartesian_prod": lambda mk, dev: tt.cartesian_prod(mk(data(2)), mk(data(3))),
    "unique": lambda mk, dev: tt.unique(mk(data(4, 5, kind="i")), return_inverse=True, return_counts=True),
    "unique_consecutive": lambda mk, dev: tt.unique_consecutive(mk(data(9, kind="i")), return_counts=True),
    "bincount": lambda mk, dev: tt.bincount(mk(np.array([0, 3, 3, 1])), mk(data(4))),
    "histc": lambda mk, dev: tt.histc(mk(data(50)), 6, -3, 3),
    "searchsorted": lambda mk, dev: tt.searchsorted(mk(np.array([1.0, 2.0, 4.0], np.float32)), mk(data(3, 4))),
    "bucketize": lambda mk, dev: tt.bucketize(mk(data(3, 4)), mk(np.array([1.0, 2.0, 4.0], np.float32)), right=True),
})

# Host-only by nature (they build CPU tensors from host objects): checked separately.
HOST_CREATION = frozenset({"from_numpy", "from_dlpack"})


def to_host(x: Any) -> Any:
    """Results as nested lists/arrays on the host, for comparison."""
    if isinstance(x, tt.Tensor):
        h = x.cpu()
        return (h.float() if h.dtype == tt.bfloat16 else h).numpy(force=True)
    if isinstance(x, (list, tuple)):
        return [to_host(v) for v in x]
    return x


def assert_same(a: Any, b: Any, rtol: float = 1e-4, atol: float = 1e-5) -> None:
    if isinstance(a, list):
        assert isinstance(b, list) and len(a) == len(b)
        for x, y in zip(a, b, strict=True):
            assert_same(x, y, rtol, atol)
        return
    if isinstance(a, np.ndarray):
        assert a.shape == b.shape and a.dtype == b.dtype, (a.shape, b.shape, a.dtype, b.dtype)
        if a.dtype.kind == "f":
            np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, equal_nan=True)
        else:
            np.testing.assert_array_equal(a, b)
        return
    assert a == b or (isinstance(a, float) and abs(a - b) <= atol + rtol * abs(b)), (a, b)

# composites (typedtensor/_runtime/composite.py) and functional ops composed in Python: they run on
# the device through their primitives
CASES.update({
    "addcmul": lambda mk, dev: tt.addcmul(mk(data(3, 4)), mk(data(3, 1)), mk(data(4)), value=0.5),
    "logit": lambda mk, dev: tt.logit(mk(data(3, 4, lo=0.05, hi=0.95))),
    "xlogy": lambda mk, dev: tt.xlogy(mk(data(3, 4)), mk(data(3, 4, lo=0.1, hi=2.0))),
    "mv": lambda mk, dev: tt.mv(mk(data(3, 4)), mk(data(4))),
    "median": lambda mk, dev: (tt.median(mk(data(3, 5))), tt.median(mk(data(3, 5)), 1).values),
    "mode": lambda mk, dev: tt.mode(mk(data(3, 6, kind="i")), 1).values,
    "nanmean": lambda mk, dev: tt.nanmean(mk(data(3, 4)), 1),
    "logcumsumexp": lambda mk, dev: tt.logcumsumexp(mk(data(3, 4)), 1),
    "positive": lambda mk, dev: tt.positive(mk(data(3, 4))) * 1,
    "alpha_dropout": lambda mk, dev: F.alpha_dropout(mk(np.ones((10, 100), np.float32)), 0.5, True),
    "group_norm": lambda mk, dev: F.group_norm(mk(data(2, 4, 3)), 2, mk(data(4)), mk(data(4))),
    "hardtanh": lambda mk, dev: F.hardtanh(mk(data(3, 4))),
    "huber_loss": lambda mk, dev: F.huber_loss(mk(data(3, 4)), mk(data(3, 4)) * 0.5, delta=0.7),
    "smooth_l1_loss": lambda mk, dev: F.smooth_l1_loss(mk(data(3, 4)), mk(data(3, 4)) * 0.5, beta=0.5),
    "scaled_dot_product_attention": lambda mk, dev: F.scaled_dot_product_attention(
        mk(data(2, 3, 4)), mk(data(2, 5, 4)), mk(data(2, 5, 2))),
})

# the convolution, pooling, resampling, normalisation, activation and loss ops
from .cuda_cases_scatter import CASES as _SCATTER  # noqa: E402
from .cuda_cases_small_math import CASES as _SMALL_MATH  # noqa: E402
from .cuda_cases_surface import CASES as _SURFACE  # noqa: E402

CASES.update(_SURFACE)
CASES.update(_SCATTER)
CASES.update(_SMALL_MATH)

# the statistics and arrangement ops (rules/statistics.py, rules/arrangement.py) and their neighbours
CASES.update({
    "std_mean": lambda mk, dev: tt.std_mean(mk(data(3, 4)), 1),
    "var_mean": lambda mk, dev: tt.var_mean(mk(data(3, 4)), keepdim=True),
    "kthvalue": lambda mk, dev: mk(data(3, 5)).kthvalue(2, 1),
    "msort": lambda mk, dev: tt.msort(mk(data(4, 3))),
    "cummax": lambda mk, dev: tt.cummax(mk(data(3, 5)), 1),
    "cummin": lambda mk, dev: mk(data(4, 3)).cummin(0),
    "nanmedian": lambda mk, dev: mk(data(3, 5)).nanmedian(1),
    "quantile": lambda mk, dev: tt.quantile(mk(data(3, 5)), 0.3, 1),
    "nanquantile": lambda mk, dev: tt.nanquantile(mk(data(3, 5)), 0.6),
    "cov": lambda mk, dev: tt.cov(mk(data(3, 6))),
    "corrcoef": lambda mk, dev: tt.corrcoef(mk(data(3, 6))),
    "isin": lambda mk, dev: tt.isin(mk(np.array([1, 2, 3, 4], np.int64)), mk(np.array([2, 4], np.int64))),
    "tensor_split": lambda mk, dev: tt.tensor_split(mk(data(2, 7)), 3, 1),
    "hsplit": lambda mk, dev: tt.hsplit(mk(data(3, 4)), 2),
    "vsplit": lambda mk, dev: tt.vsplit(mk(data(4, 3)), [1]),
    "dsplit": lambda mk, dev: tt.dsplit(mk(data(2, 2, 4)), 2),
    "atleast_1d": lambda mk, dev: tt.atleast_1d(mk(data(3))),
    "atleast_2d": lambda mk, dev: tt.atleast_2d(mk(data(3))),
    "atleast_3d": lambda mk, dev: tt.atleast_3d(mk(data(2, 3))),
    "column_stack": lambda mk, dev: tt.column_stack([mk(data(3)), mk(data(3, 2))]),
    "row_stack": lambda mk, dev: tt.row_stack([mk(data(3)), mk(data(2, 3))]),
    "dstack": lambda mk, dev: tt.dstack([mk(data(2, 3)), mk(data(2, 3))]),
    "block_diag": lambda mk, dev: tt.block_diag(mk(data(2, 3)), mk(data(4))),
    "unfold_windows": lambda mk, dev: mk(data(3, 5)).unfold(1, 2, 1),
    "diagflat": lambda mk, dev: tt.diagflat(mk(data(2, 2)), 1),
    "logspace": lambda mk, dev: tt.logspace(0, 2, 5, device=dev),
    "channel_shuffle": lambda mk, dev: F.channel_shuffle(mk(data(2, 4, 3)), 2),
    "upsample": lambda mk, dev: F.upsample(mk(data(1, 2, 3, 3)), scale_factor=2),
    "upsample_nearest": lambda mk, dev: F.upsample_nearest(mk(data(1, 2, 3, 3)), size=(5, 4)),
    "upsample_bilinear": lambda mk, dev: F.upsample_bilinear(mk(data(1, 2, 3, 3)), size=(5, 4)),
    "affine_grid": lambda mk, dev: F.affine_grid(mk(data(2, 2, 3)), (2, 1, 3, 4), align_corners=False),
    "grid_sample": lambda mk, dev: F.grid_sample(mk(data(2, 2, 3, 4)), mk(data(2, 3, 2, 2, lo=-1.4, hi=1.4)),
                                                 padding_mode="reflection", align_corners=False),
    "max_unpool1d": lambda mk, dev: F.max_unpool1d(*F.max_pool1d(mk(data(2, 3, 6)), 2, return_indices=True), 2),
    "max_unpool2d": lambda mk, dev: F.max_unpool2d(*F.max_pool2d(mk(data(1, 2, 4, 5)), 2, return_indices=True), 2,
                                                   output_size=(4, 5)),
    "max_unpool3d": lambda mk, dev: F.max_unpool3d(*F.max_pool3d(mk(data(1, 2, 4, 4, 2)), 2, return_indices=True), 2),
    "lp_pool1d": lambda mk, dev: F.lp_pool1d(mk(data(2, 3, 8)), 2.0, 3, 2, ceil_mode=True),
    "lp_pool2d": lambda mk, dev: F.lp_pool2d(mk(data(1, 2, 4, 6, lo=0.5, hi=2.0)), 1.5, (2, 3)),
    "lp_pool3d": lambda mk, dev: F.lp_pool3d(mk(data(1, 2, 3, 4, 3)), float("inf"), 2),
})
RANDOM["gumbel_softmax"] = lambda mk, dev: F.gumbel_softmax(mk(data(10, 100)), tau=0.5)
CASES["gumbel_softmax"] = RANDOM["gumbel_softmax"]
