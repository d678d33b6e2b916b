"""The widened op fuzz (tests/backend/test_fuzz.py::test_fuzz_public_ops): every public op of the
runtime, called on random shapes (0-d and 0-size too), every dtype, layouts that are not plain
(strided, transposed, offset views, expanded tensors whose elements overlap) and extreme values
(inf, NaN, -0.0, subnormals, the integer limits), against torch.

Each call must give torch's answer (shape, dtype, values) or raise a clean exception where torch
raises. ``run_case`` returns the outcome's name; a wrong answer or a wrong exception is an
AssertionError naming the case. The few deliberate differences are in ``known_difference``, each
with its reason; those cases still run (they must not crash) but are not compared.
"""

from __future__ import annotations

import contextlib
import math
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

import typedtensor as tt

DTYPES = ["bool", "uint8", "int32", "int64", "float16", "bfloat16", "float32", "float64"]
FLOATS = ["float16", "bfloat16", "float32", "float64"]
LAYOUTS = ["contiguous", "contiguous", "strided", "transposed", "offset", "expanded"]
CLEAN = (TypeError, ValueError, IndexError, NotImplementedError, MemoryError, tt.ShapeError)
TORCH_ERRORS = (RuntimeError, IndexError, ValueError, TypeError, NotImplementedError)


@dataclass(frozen=True)
class Op:
    name: str
    n: int  # tensor inputs (-1: a list of 1-3 tensors)
    args: Callable[[random.Random, list[tuple[int, ...]]], dict[str, Any]]
    call: Callable[[Any, list[Any], dict[str, Any]], Any]
    dtypes: tuple[str, ...] = tuple(DTYPES)
    same_shape: bool = False  # every input has the first one's shape
    reduction: bool = False  # moderate values (one special at most): results independent of evaluation order
    min_rank: int = 0
    same_dtype: bool = False  # every input has the first one's dtype


def _no_args(r: random.Random, s: list[tuple[int, ...]]) -> dict[str, Any]:
    return {}


def _dim(r: random.Random, s: list[tuple[int, ...]], extra: int = 0) -> int:
    n = len(s[0]) + extra
    return r.randint(-max(n, 1) - 1, max(n, 1))  # sometimes out of range


def _dim_or_none(r: random.Random, s: list[tuple[int, ...]]) -> dict[str, Any]:
    return {"dim": _dim(r, s) if r.random() < 0.75 else None, "keepdim": r.random() < 0.3}


def _red(method: str) -> Callable[[Any, list[Any], dict[str, Any]], Any]:
    def call(m: Any, x: list[Any], a: dict[str, Any]) -> Any:
        if a["dim"] is None:
            return getattr(x[0], method)()
        return getattr(x[0], method)(a["dim"], keepdim=a["keepdim"])

    return call


def _fn(name: str) -> Callable[[Any], Any]:
    """``m.name``, else ``m.nn.functional.name``."""

    def get(m: Any) -> Any:
        return getattr(m, name) if hasattr(m, name) else getattr(m.nn.functional, name)

    return get


def _unary(name: str, dtypes: tuple[str, ...] = tuple(DTYPES)) -> Op:
    return Op(name, 1, _no_args, lambda m, x, a: _fn(name)(m)(x[0]), dtypes)


def _binary(name: str, dtypes: tuple[str, ...] = tuple(DTYPES)) -> Op:
    return Op(name, 2, _no_args, lambda m, x, a: _fn(name)(m)(x[0], x[1]), dtypes)


def _with_number(name: str) -> Op:
    def args(r: random.Random, s: list[tuple[int, ...]]) -> dict[str, Any]:
        return {"number": r.choice([2, -3, 0, 1, 0.1, 1.5, -0.25, 1e30, math.inf, True, False]), "left": r.random() < 0.4}

    def call(m: Any, x: list[Any], a: dict[str, Any]) -> Any:
        f = _fn(name)(m)
        return f(a["number"], x[0]) if a["left"] and name == "pow" else f(x[0], a["number"])

    return Op(name + "(number)", 1, args, call)


UNARY = ["abs", "neg", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "sin", "cos", "tan",
         "asin", "acos", "atan", "sinh", "cosh", "tanh", "sigmoid", "erf", "floor", "ceil", "round", "trunc", "frac",
         "sign", "reciprocal", "square", "isnan", "isinf", "isfinite", "logical_not", "bitwise_not", "relu",
         "logit", "positive"]
ACTIVATIONS = ["gelu", "silu", "mish", "softplus", "relu6", "elu", "leaky_relu", "hardtanh"]
BINARY = ["add", "sub", "mul", "div", "true_divide", "floor_divide", "remainder", "fmod", "pow", "maximum", "minimum",
          "atan2", "eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor", "bitwise_and",
          "bitwise_or", "bitwise_xor", "copysign", "hypot", "xlogy"]


def _index_list(r: random.Random, size: int, n: int | None = None) -> list[int]:
    hi = max(size, 1)
    return [r.randint(-1 if r.random() < 0.05 else 0, hi - 1 + (r.random() < 0.05)) for _ in range(r.randint(0, 4) if n is None else n)]


def _shape_args(r: random.Random, s: list[tuple[int, ...]]) -> dict[str, Any]:
    return {"shape": r.choice([(-1,), tuple(reversed(s[0])), (*s[0], 1), (1, *s[0]), (2, -1), (r.randint(0, 6),)])}


OPS: list[Op] = [
    *(_unary(u) for u in UNARY),
    *(_unary(a, tuple(FLOATS)) for a in ACTIVATIONS),
    *(_binary(b) for b in BINARY),
    *(_with_number(b) for b in ("add", "sub", "mul", "div", "pow", "remainder", "fmod", "floor_divide", "maximum")),
    # reductions
    *(Op(n, 1, _dim_or_none, _red(n), reduction=True) for n in ("sum", "mean", "prod", "amax", "amin", "all", "any",
                                                                 "nansum", "nanmean", "count_nonzero")),
    Op("argmax", 1, lambda r, s: {"dim": _dim(r, s) if r.random() < 0.7 else None, "keepdim": r.random() < 0.3},
       lambda m, x, a: x[0].argmax(a["dim"], keepdim=a["keepdim"]) if a["dim"] is not None else x[0].argmax(), reduction=True),
    Op("argmin", 1, lambda r, s: {"dim": _dim(r, s) if r.random() < 0.7 else None, "keepdim": False},
       lambda m, x, a: x[0].argmin(a["dim"]) if a["dim"] is not None else x[0].argmin(), reduction=True),
    Op("max(dim)", 1, lambda r, s: {"dim": _dim(r, s), "keepdim": r.random() < 0.3},
       lambda m, x, a: tuple(x[0].max(a["dim"], keepdim=a["keepdim"])), reduction=True),
    Op("min", 1, _no_args, lambda m, x, a: x[0].min(), reduction=True),
    Op("median", 1, lambda r, s: {"dim": _dim(r, s) if r.random() < 0.6 else None},
       lambda m, x, a: x[0].median() if a["dim"] is None else tuple(x[0].median(a["dim"])), reduction=True),
    Op("mode", 1, lambda r, s: {"dim": _dim(r, s)}, lambda m, x, a: x[0].mode(a["dim"]).values, reduction=True),
    Op("std", 1, lambda r, s: {"dim": _dim(r, s) if r.random() < 0.7 else None, "keepdim": False},
       lambda m, x, a: x[0].std() if a["dim"] is None else x[0].std(a["dim"]), tuple(FLOATS), reduction=True),
    Op("var", 1, lambda r, s: {"dim": _dim(r, s), "correction": r.choice([0, 1, 2])},
       lambda m, x, a: x[0].var(a["dim"], correction=a["correction"]), tuple(FLOATS), reduction=True),
    Op("logsumexp", 1, lambda r, s: {"dim": _dim(r, s)}, lambda m, x, a: x[0].logsumexp(a["dim"]), reduction=True),
    Op("norm", 1, lambda r, s: {"p": r.choice([1, 2, math.inf])}, lambda m, x, a: x[0].norm(a["p"]), tuple(FLOATS), reduction=True),
    *(Op(n, 1, lambda r, s: {"dim": _dim(r, s)}, lambda m, x, a, n=n: getattr(x[0], n)(a["dim"]), reduction=True)
      for n in ("cumsum", "cumprod", "softmax", "log_softmax")),
    Op("logcumsumexp", 1, lambda r, s: {"dim": _dim(r, s)}, lambda m, x, a: m.logcumsumexp(x[0], a["dim"]),
       tuple(FLOATS), reduction=True),
    # movement and views
    Op("reshape", 1, _shape_args, lambda m, x, a: x[0].reshape(a["shape"])),
    Op("view", 1, _shape_args, lambda m, x, a: x[0].view(a["shape"])),
    Op("flatten", 1, lambda r, s: {"a": r.randint(-2, 2), "b": r.randint(-2, 3)}, lambda m, x, a: x[0].flatten(a["a"], a["b"])),
    Op("unflatten", 1, lambda r, s: {"dim": _dim(r, s), "sizes": r.choice([(1, -1), (-1, 1), (2, -1)])},
       lambda m, x, a: x[0].unflatten(a["dim"], a["sizes"])),
    Op("squeeze", 1, lambda r, s: {"dim": _dim(r, s) if r.random() < 0.7 else None},
       lambda m, x, a: x[0].squeeze() if a["dim"] is None else x[0].squeeze(a["dim"])),
    Op("unsqueeze", 1, lambda r, s: {"dim": _dim(r, s, 1)}, lambda m, x, a: x[0].unsqueeze(a["dim"])),
    Op("transpose", 1, lambda r, s: {"a": _dim(r, s), "b": _dim(r, s)}, lambda m, x, a: x[0].transpose(a["a"], a["b"])),
    Op("swapaxes", 1, lambda r, s: {"a": _dim(r, s), "b": _dim(r, s)}, lambda m, x, a: m.swapaxes(x[0], a["a"], a["b"])),
    Op("permute", 1, lambda r, s: {"p": r.sample(range(len(s[0])), len(s[0])) if r.random() < 0.9 else [0, 0]},
       lambda m, x, a: x[0].permute(*a["p"])),
    Op("movedim", 1, lambda r, s: {"a": _dim(r, s), "b": _dim(r, s)}, lambda m, x, a: x[0].movedim(a["a"], a["b"])),
    Op("t", 1, _no_args, lambda m, x, a: x[0].t()),
    Op("mT", 1, _no_args, lambda m, x, a: x[0].mT),
    Op("expand", 1, lambda r, s: {"shape": (r.randint(0, 3), *(d if r.random() < 0.8 else r.choice([-1, 1, 2]) for d in s[0]))},
       lambda m, x, a: x[0].expand(*a["shape"])),
    Op("repeat", 1, lambda r, s: {"reps": tuple(r.randint(0, 2) for _ in range(len(s[0]) + r.randint(0, 1)))},
       lambda m, x, a: x[0].repeat(*a["reps"])),
    Op("flip", 1, lambda r, s: {"dims": [_dim(r, s) for _ in range(r.randint(1, 2))]}, lambda m, x, a: x[0].flip(a["dims"])),
    Op("roll", 1, lambda r, s: {"shift": r.randint(-5, 5), "dim": _dim(r, s) if r.random() < 0.7 else None},
       lambda m, x, a: m.roll(x[0], a["shift"]) if a["dim"] is None else m.roll(x[0], a["shift"], a["dim"])),
    Op("narrow", 1, lambda r, s: {"dim": _dim(r, s), "start": r.randint(-2, 3), "len": r.randint(0, 3)},
       lambda m, x, a: x[0].narrow(a["dim"], a["start"], a["len"]), min_rank=1),
    Op("diagonal", 1, lambda r, s: {"off": r.randint(-2, 2)}, lambda m, x, a: x[0].diagonal(a["off"]), min_rank=2),
    Op("tril", 1, lambda r, s: {"k": r.randint(-2, 2)}, lambda m, x, a: x[0].tril(a["k"])),
    Op("triu", 1, lambda r, s: {"k": r.randint(-2, 2)}, lambda m, x, a: x[0].triu(a["k"])),
    Op("split", 1, lambda r, s: {"size": r.randint(1, 3), "dim": _dim(r, s)}, lambda m, x, a: x[0].split(a["size"], a["dim"])),
    Op("chunk", 1, lambda r, s: {"n": r.randint(1, 4), "dim": _dim(r, s)}, lambda m, x, a: x[0].chunk(a["n"], a["dim"])),
    Op("unbind", 1, lambda r, s: {"dim": _dim(r, s)}, lambda m, x, a: x[0].unbind(a["dim"])),
    Op("cat", -1, lambda r, s: {"dim": _dim(r, s)}, lambda m, x, a: m.cat(x, a["dim"])),
    Op("stack", -1, lambda r, s: {"dim": _dim(r, s, 1)}, lambda m, x, a: m.stack(x, a["dim"])),
    Op("clone", 1, _no_args, lambda m, x, a: x[0].clone()),
    Op("contiguous", 1, _no_args, lambda m, x, a: x[0].contiguous()),
    Op("where", 3, _no_args, lambda m, x, a: m.where(x[0].bool(), x[1], x[2])),
    Op("masked_fill", 2, lambda r, s: {"v": r.choice([0, -1.5, 7, True, math.nan])},
       lambda m, x, a: x[0].masked_fill(x[1].bool(), a["v"])),
    Op("masked_select", 2, _no_args, lambda m, x, a: m.masked_select(x[0], x[1].bool())),
    Op("nonzero", 1, _no_args, lambda m, x, a: m.nonzero(x[0])),
    Op("clamp", 1, lambda r, s: {"lo": r.choice([None, -1, 0.5, -math.inf]), "hi": r.choice([None, 1, 2.5, math.nan])},
       lambda m, x, a: x[0].clamp(a["lo"], a["hi"])),
    Op("lerp", 2, lambda r, s: {"w": r.choice([0.0, 0.25, 1.0, -2.0])}, lambda m, x, a: m.lerp(x[0], x[1], a["w"]),
       tuple(FLOATS)),
    # (moderate values: whether a product overflows at the float maximum depends on torch's kernel's
    # evaluation order, which differs between its vector and scalar paths)
    Op("addcmul", 3, lambda r, s: {"v": r.choice([1, 0.5, -2])}, lambda m, x, a: m.addcmul(x[0], x[1], x[2], value=a["v"]),
       tuple(FLOATS), reduction=True),
    *(Op(f"to {d}", 1, _no_args, lambda m, x, a, d=d: x[0].to(getattr(m, d))) for d in DTYPES),
    Op("getitem", 1, lambda r, s: {"key": _key(r, s[0])}, lambda m, x, a: x[0][_materialise(m, a["key"])]),
    # indexing ops with index tensors
    Op("index_select", 1, lambda r, s: {"dim": _dim(r, s), "idx": _index_list(r, max(s[0], default=1))},
       lambda m, x, a: m.index_select(x[0], a["dim"], m.tensor(a["idx"], dtype=m.int64))),
    Op("gather", 1, lambda r, s: {"dim": _dim(r, s), "idx": _index_list(r, max(s[0], default=1), 1)},
       lambda m, x, a: m.gather(x[0], a["dim"], m.tensor(a["idx"], dtype=m.int64).reshape([1] * x[0].ndim)
                                if x[0].ndim else m.tensor(a["idx"][0]))),
    Op("one_hot", 1, lambda r, s: {"v": _index_list(r, 4), "n": r.choice([-1, 4, 5])},
       lambda m, x, a: m.nn.functional.one_hot(m.tensor(a["v"], dtype=m.int64), a["n"]), ("int64",)),
    Op("embedding", 1, lambda r, s: {"v": _index_list(r, 3)},
       lambda m, x, a: m.nn.functional.embedding(m.tensor(a["v"], dtype=m.int64), x[0]), tuple(FLOATS), min_rank=2),
    # linear algebra
    Op("matmul", 2, _no_args, lambda m, x, a: m.matmul(x[0], x[1]), ("float32", "float64", "int64", "float16")),
    Op("mm", 2, _no_args, lambda m, x, a: m.mm(x[0], x[1]), ("float32", "float64")),
    Op("dot", 2, _no_args, lambda m, x, a: m.dot(x[0], x[1]), ("float32", "float64", "int64")),
    Op("outer", 2, _no_args, lambda m, x, a: m.outer(x[0], x[1]), ("float32", "float64", "int64")),
    Op("tensordot", 2, lambda r, s: {"d": r.randint(0, 2)}, lambda m, x, a: m.tensordot(x[0], x[1], a["d"]),
       ("float32", "float64")),
    Op("einsum", 2, lambda r, s: {"eq": r.choice(["ij,jk->ik", "i,i->", "ij->ji", "bij,bjk->bik", "ii->i"])},
       lambda m, x, a: m.einsum(a["eq"], x[0], x[1]) if "," in a["eq"] else m.einsum(a["eq"], x[0]), ("float32", "float64")),
    Op("linear", 2, _no_args, lambda m, x, a: m.nn.functional.linear(x[0], x[1]), ("float32", "float64"), min_rank=1),
    # nn
    Op("layer_norm", 1, lambda r, s: {"k": r.randint(0, len(s[0]))},
       lambda m, x, a: m.nn.functional.layer_norm(x[0], tuple(x[0].shape[x[0].ndim - a["k"]:])), tuple(FLOATS),
       reduction=True),
    Op("group_norm", 1, lambda r, s: {"g": r.choice([1, 2])}, lambda m, x, a: m.nn.functional.group_norm(x[0], a["g"]),
       ("float32", "float64"), reduction=True, min_rank=2),
    Op("normalize", 1, lambda r, s: {"dim": _dim(r, s)}, lambda m, x, a: m.nn.functional.normalize(x[0], dim=a["dim"]),
       ("float32", "float64"), reduction=True, min_rank=1),
    Op("pad", 1, lambda r, s: {"p": tuple(r.randint(-1, 2) for _ in range(2 * r.randint(1, 2))), "v": r.choice([0.0, 1.5])},
       lambda m, x, a: m.nn.functional.pad(x[0], a["p"], value=a["v"]), min_rank=1),
    Op("max_pool2d", 1, lambda r, s: {"k": r.randint(1, 3), "s": r.choice([None, 1, 2])},
       lambda m, x, a: m.nn.functional.max_pool2d(x[0], a["k"], a["s"]), ("float32", "float64"), min_rank=3),
    Op("avg_pool2d", 1, lambda r, s: {"k": r.randint(1, 3)}, lambda m, x, a: m.nn.functional.avg_pool2d(x[0], a["k"]),
       ("float32", "float64"), min_rank=3, reduction=True),
    Op("adaptive_avg_pool2d", 1, lambda r, s: {"o": r.randint(1, 3)},
       lambda m, x, a: m.nn.functional.adaptive_avg_pool2d(x[0], a["o"]), ("float32", "float64"), min_rank=3, reduction=True),
    Op("cross_entropy", 1, lambda r, s: {"t": _index_list(r, s[0][-1] if s[0] else 1, s[0][0] if len(s[0]) == 2 else 1)},
       lambda m, x, a: m.nn.functional.cross_entropy(x[0], m.tensor(a["t"], dtype=m.int64)), ("float32", "float64"),
       reduction=True, min_rank=2),
    *(Op(loss, 2, lambda r, s: {"red": r.choice(["mean", "sum", "none"])},
         lambda m, x, a, loss=loss: getattr(m.nn.functional, loss)(x[0], x[1], reduction=a["red"]), ("float32", "float64"),
         same_shape=True, reduction=True, same_dtype=True)
      for loss in ("mse_loss", "l1_loss", "huber_loss", "smooth_l1_loss", "binary_cross_entropy_with_logits")),
    # creation
    Op("full", 0, lambda r, s: {"shape": s[0], "v": r.choice([0, -1, 255, 256, 1.5, math.nan, True]), "d": r.choice(DTYPES)},
       lambda m, x, a: m.full(a["shape"], a["v"], dtype=getattr(m, a["d"]))),
    Op("arange", 0, lambda r, s: {"a": r.choice([0, -3, 0.5]), "b": r.choice([5, 0, 2.5, -1]), "st": r.choice([1, 2, -1, 0.5])},
       lambda m, x, a: m.arange(a["a"], a["b"], a["st"])),
    Op("linspace", 0, lambda r, s: {"a": r.choice([0.0, -1.0]), "b": r.choice([1.0, 5.0]), "n": r.randint(0, 5)},
       lambda m, x, a: m.linspace(a["a"], a["b"], a["n"])),
    Op("eye", 0, lambda r, s: {"n": r.randint(0, 3), "k": r.randint(0, 3)}, lambda m, x, a: m.eye(a["n"], a["k"])),
    *(Op(n, 1, _no_args, lambda m, x, a, n=n: getattr(m, n)(x[0])) for n in ("zeros_like", "ones_like")),
    # in-place forms (an expanded input must raise, as in torch)
    *(Op(f"{n}_", 2, _no_args, lambda m, x, a, n=n: getattr(x[0].clone() if a.get("clone") else x[0], f"{n}_")(x[1]))
      for n in ("add", "sub", "mul", "div", "copysign")),
    *(Op(f"{n}_", 1, _no_args, lambda m, x, a, n=n: getattr(x[0], f"{n}_")()) for n in ("exp", "neg", "relu", "zero")),
    Op("clamp_", 1, _no_args, lambda m, x, a: x[0].clamp_(-1, 1)),
    Op("fill_", 1, lambda r, s: {"v": r.choice([0, 2.5, 300, -1])}, lambda m, x, a: x[0].fill_(a["v"])),
    Op("copy_", 2, _no_args, lambda m, x, a: x[0].copy_(x[1])),
]


def _key(r: random.Random, shape: tuple[int, ...]) -> tuple[Any, ...]:
    parts: list[Any] = []
    for _ in range(r.randint(1, max(1, len(shape) + 1))):
        k = r.random()
        if k < 0.3:
            parts.append(r.randint(-4, 4))
        elif k < 0.6:
            parts.append(slice(r.choice([None, -2, 0, 1]), r.choice([None, -1, 2, 4]), r.choice([None, 1, 2])))
        elif k < 0.7:
            parts.append(None)
        elif k < 0.8 and Ellipsis not in parts:
            parts.append(Ellipsis)
        else:
            parts.append(("index", [r.randint(-4, 4) for _ in range(r.randint(0, 3))]))
    return tuple(parts)


def _materialise(m: Any, key: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple(m.tensor(p[1], dtype=m.int64) if isinstance(p, tuple) else p for p in key)


# -- inputs --------------------------------------------------------------------------------------

def _np_dtype(d: str) -> Any:
    return {"bool": np.bool_, "uint8": np.uint8, "int32": np.int32, "int64": np.int64, "float16": np.float16,
            "bfloat16": np.float32, "float32": np.float32, "float64": np.float64}[d]


def values(g: np.random.Generator, rng: random.Random, shape: tuple[int, ...], dtype: str, extreme: bool) -> np.ndarray:
    n = int(np.prod(shape)) if shape else 1
    if dtype == "bool":
        return (g.random(shape) > 0.5) if shape else np.asarray(g.random() > 0.5)
    if dtype in ("uint8", "int32", "int64"):
        arr = g.integers(-4 if dtype != "uint8" else 0, 6, shape)
        if extreme and n:
            info = np.iinfo(_np_dtype(dtype))
            for _ in range(rng.randint(1, 3)):
                arr.flat[rng.randrange(n)] = rng.choice([info.min, info.max, 0, info.max // 2])
        return arr.astype(_np_dtype(dtype))
    arr = g.standard_normal(shape) * rng.choice([1.0, 10.0, 1e3])
    if n and extreme:
        big = {"float16": 6e4, "bfloat16": 3e38, "float32": 3e38, "float64": 1e308}[dtype]
        tiny = {"float16": 6e-8, "bfloat16": 1e-39, "float32": 1e-45, "float64": 5e-324}[dtype]
        for _ in range(rng.randint(1, 3)):
            arr.flat[rng.randrange(n)] = rng.choice([math.nan, math.inf, -math.inf, -0.0, 0.0, big, -big, tiny, -tiny])
    elif n and rng.random() < 0.15:  # one special value: a reduction's result does not depend on the order
        arr.flat[rng.randrange(n)] = rng.choice([math.nan, math.inf, -math.inf])
    return arr.astype(_np_dtype(dtype))


def make_pair(torch: Any, arr: np.ndarray, dtype: str, layout: str, rng: random.Random) -> tuple[Any, Any]:
    """The same values, dtype and memory layout in both libraries."""
    shape = arr.shape

    def both(a: np.ndarray) -> tuple[Any, Any]:
        a = np.ascontiguousarray(a)
        ours, ref = tt.tensor(a), torch.tensor(a)
        if dtype == "bfloat16":
            ref = ref.to(torch.bfloat16)
            ours = tt.tensor(ref.float().numpy()).to(tt.bfloat16)
        return ours, ref

    if layout == "strided" and arr.ndim:
        big = np.repeat(arr, 2, axis=-1)
        o, r = both(big)
        return o[..., ::2], r[..., ::2]
    if layout == "transposed" and arr.ndim >= 2:
        o, r = both(np.swapaxes(arr, -1, -2))
        return o.transpose(-1, -2), r.transpose(-1, -2)
    if layout == "offset" and arr.ndim:
        o, r = both(np.concatenate([arr[:1], arr], axis=0) if shape[0] else arr)
        return (o[1:], r[1:]) if shape[0] else (o, r)
    if layout == "expanded" and any(d > 1 for d in shape):
        d = rng.choice([i for i, s in enumerate(shape) if s > 1])
        o, r = both(arr.take([0], axis=d))
        return o.expand(*shape), r.expand(*shape)
    return both(arr)


def rand_shape(rng: random.Random, min_rank: int = 0) -> tuple[int, ...]:
    rank = rng.randint(min_rank, max(min_rank, 4))
    return tuple(rng.choice([0, 1, 1, 2, 3, 4, 5]) if rng.random() > 0.1 else 0 for _ in range(rank))


# -- comparison ----------------------------------------------------------------------------------

def _dtype_name(x: Any) -> str:
    return str(x.dtype).rsplit(".", 1)[-1]


def _tol(dtype: str) -> tuple[float, float]:
    return {"float16": (1e-2, 1e-2), "bfloat16": (2e-2, 2e-2), "float32": (1e-4, 1e-4)}.get(dtype, (1e-7, 1e-9))


def compare(torch: Any, ours: Any, ref: Any, where: str) -> None:
    if isinstance(ref, torch.Tensor):
        assert isinstance(ours, tt.Tensor), f"{where}: torch gave a tensor, ours {type(ours).__name__}"
        assert tuple(ours.shape) == tuple(ref.shape), f"{where}: shape {tuple(ours.shape)} != {tuple(ref.shape)}"
        assert _dtype_name(ours) == _dtype_name(ref), f"{where}: dtype {_dtype_name(ours)} != {_dtype_name(ref)}"
        a = ours.float().numpy() if _dtype_name(ours) == "bfloat16" else ours.numpy()
        b = ref.detach().float().numpy() if _dtype_name(ref) == "bfloat16" else ref.detach().numpy()
        if a.dtype.kind == "f":
            rtol, atol = _tol(_dtype_name(ref))
            scale = float(np.nanmax(np.abs(b[np.isfinite(b)]), initial=1.0))
            np.testing.assert_allclose(a.astype(np.float64), b.astype(np.float64), rtol=rtol, atol=atol * scale,
                                       equal_nan=True, err_msg=where)
        else:
            np.testing.assert_array_equal(a, b, err_msg=where)
        return
    if isinstance(ref, (tuple, list)):
        assert isinstance(ours, (tuple, list)) and len(ours) == len(ref), f"{where}: {len(ours)} results, torch {len(ref)}"
        for i, (o, r) in enumerate(zip(ours, ref, strict=True)):
            compare(torch, o, r, f"{where}[{i}]")
        return
    assert ours == ref or (isinstance(ref, float) and math.isnan(ref) and math.isnan(ours)), f"{where}: {ours!r} != {ref!r}"


def known_difference(op: Op, dtypes: list[str], shapes: list[tuple[int, ...]], a: dict[str, Any],
                     arrays: list[np.ndarray]) -> str | None:
    """Why this case is a deliberate difference from torch (it is then only run, not compared), or
    None. Each is where torch skips a check we keep, or silently does what a user never means."""
    if op.name in ("sinh", "cosh") and any(np.nanmax(np.abs(x.astype(np.float64)), initial=0) > 88 for x in arrays):
        return "sinh / cosh: torch's overflow early (exp(x) / 2 from |x| ~ 88.7 in float32); ours is exact to the limit"
    if op.name == "gelu" and any(np.nanmax(np.abs(x.astype(np.float64)), initial=0) > 1e30 for x in arrays):
        return "gelu: torch's vector erf gives NaN for +-inf and overflows near the float maximum; ours is x there"
    if op.name == "masked_fill" and _grows(shapes[0], shapes[1]):
        return "masked_fill: the mask must broadcast to the input (the in-place rule); torch's out-of-place form grows it"
    if op.name == "median" and 0 in shapes[0] and dtypes[0] not in FLOATS:
        return "median of an empty integer tensor: torch returns an arbitrary value; ours raises"
    linalg = ("matmul", "mm", "dot", "outer", "tensordot", "einsum", "linear")
    if op.name in linalg and len(set(dtypes)) > 1:
        return "matmul family: torch skips its same-dtype check when the product is empty; typedtensor never does"
    if op.name in ("tensordot", "einsum") and _broadcast_contraction(op.name, shapes, a):
        return "tensordot / einsum: a contracted dim must have one size (torch broadcasts a size-1 one)"
    if op.name == "adaptive_avg_pool2d" and any(0 in s[-2:] for s in shapes):
        return "adaptive_avg_pool2d: empty spatial dims are refused (torch returns NaN means)"
    if op.name in ("clamp", "clamp_") and dtypes[0] == "uint8":
        return "clamp of uint8: torch wraps a negative bound to 255 first (clamp(x, -1, 1) gives 1 for 0)"
    return None


def _grows(target: tuple[int, ...], other: tuple[int, ...]) -> bool:
    """Whether broadcasting ``other`` against ``target`` gives a larger shape than ``target``."""
    try:
        return np.broadcast_shapes(target, other) != tuple(target)
    except ValueError:
        return False


def _broadcast_contraction(name: str, shapes: list[tuple[int, ...]], a: dict[str, Any]) -> bool:
    """Whether a summed-over letter (einsum) or contracted dim (tensordot) has sizes 1 and n > 1."""
    if name == "tensordot":
        d = a["d"]
        if d > min(len(shapes[0]), len(shapes[1])):
            return False
        pairs = list(zip(shapes[0][len(shapes[0]) - d:], shapes[1][:d], strict=True))
    else:
        ins = a["eq"].split("->")[0].split(",")
        sizes: dict[str, set[int]] = {}
        for sub, shape in zip(ins, shapes, strict=False):
            if len(sub) != len(shape):
                return len(shape) == 0  # torch takes a 0-d operand for any subscripts
            for letter, size in zip(sub, shape, strict=True):
                sizes.setdefault(letter, set()).add(size)
        pairs = [tuple(v) for v in sizes.values() if len(v) == 2]
    return any(1 in p and p[0] != p[1] for p in pairs)


def _in_range_for_cast(arr: np.ndarray, target: str) -> np.ndarray:
    """A float -> integer cast of NaN or of a value outside the target's range is undefined behaviour
    in torch (the x86 instruction's answer); typedtensor saturates. Such values are replaced by 0."""
    if arr.dtype.kind != "f" or target not in ("uint8", "int32", "int64"):
        return arr
    info = np.iinfo(_np_dtype(target))
    with np.errstate(invalid="ignore", over="ignore"):
        wide = arr.astype(np.float64)
        ok = np.isfinite(wide) & (wide > float(info.min) - 1) & (wide < float(info.max) + 1)
    return np.where(ok, arr, 0).astype(arr.dtype)


def run_case(torch: Any, rng: random.Random) -> str:
    op = rng.choice(OPS)
    dtype = rng.choice(op.dtypes)
    extreme = not op.reduction and rng.random() < 0.4
    g = np.random.default_rng(rng.randrange(2**31))
    if op.n == -1:
        base = rand_shape(rng)
        shapes = [tuple(d if rng.random() < 0.85 else rng.randint(0, 3) for d in base) for _ in range(rng.randint(1, 3))]
    elif op.n >= 2 and not op.same_shape and rng.random() < 0.6:
        base = rand_shape(rng, op.min_rank)
        shapes = [tuple(d if rng.random() < 0.7 else 1 for d in base[rng.randint(0, len(base)):]) for _ in range(op.n)]
        if op.name in ("matmul", "mm", "dot", "outer", "tensordot", "einsum", "linear"):
            shapes = [rand_shape(rng, 1)[:3] for _ in range(op.n)]
            if rng.random() < 0.6 and shapes[0] and shapes[1]:  # make the inner dims agree more often
                shapes[1] = (shapes[0][-1], *shapes[1][1:]) if len(shapes[1]) >= 1 else shapes[1]
                if op.name in ("matmul", "mm", "linear") and len(shapes[1]) >= 2:
                    shapes[1] = (*shapes[1][:-2], shapes[0][-1], shapes[1][-1]) if op.name != "linear" else (shapes[1][0], shapes[0][-1])
    else:
        base = rand_shape(rng, op.min_rank)
        shapes = [base] * max(op.n, 1) if op.same_shape else [rand_shape(rng, op.min_rank) for _ in range(max(op.n, 1))]
        if op.n >= 2 and not op.same_shape:
            shapes[1:] = [base] * (op.n - 1) if rng.random() < 0.5 else shapes[1:]
            shapes[0] = base
    dtypes = [dtype if rng.random() < 0.75 or op.n < 2 or op.same_dtype else rng.choice(DTYPES) for _ in shapes]
    arrays = [values(g, rng, s, d, extreme) for s, d in zip(shapes, dtypes, strict=True)]
    if op.name.startswith("to "):
        arrays = [_in_range_for_cast(arr, op.name[3:]) for arr in arrays]
    elif op.name in ("copy_", "add_", "sub_", "mul_", "div_", "copysign_") and len(arrays) == 2:
        arrays[1] = _in_range_for_cast(arrays[1], dtypes[0])
    pairs = [make_pair(torch, arr, d, rng.choice(LAYOUTS), rng) for arr, d in zip(arrays, dtypes, strict=True)]
    ours_in, ref_in = [p[0] for p in pairs], [p[1] for p in pairs]
    a = op.args(rng, shapes if shapes else [()])
    where = f"{op.name} shapes={shapes} dtypes={dtypes} layouts/strides={[tuple(x.stride()) for x in ours_in]} args={a}"
    if known_difference(op, dtypes, shapes, a, arrays) is not None:
        with contextlib.suppress(*CLEAN):  # run it all the same: it must not crash
            op.call(tt, ours_in, a)
        return "known-difference"
    try:
        ref = op.call(torch, ref_in, a)
    except TORCH_ERRORS:
        try:
            op.call(tt, ours_in, a)
        except CLEAN:
            return "both-raise"
        except Exception as exc:
            raise AssertionError(f"{where}: torch raised; ours raised {type(exc).__name__}: {exc}") from exc
        return "ours-lenient"
    try:
        ours = op.call(tt, ours_in, a)
    except CLEAN as exc:
        if isinstance(ref, torch.Tensor) and ref.numel() == 0:
            return "ours-strict-on-empty"
        raise AssertionError(f"{where}: ours raised {type(exc).__name__}: {exc}; torch returned") from exc
    compare(torch, ours, ref, where)
    return "match"
