"""``typedtensor.autograd``: gradients of tensors. The sweep itself is C++ (``_C._run_backward``,
backend/src/autograd); this module gives it torch's Python signatures and adds ``gradcheck``."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any, TypeVar, cast

import numpy as np

from typedtensor._runtime import _loader

_C = _loader.load_core()

_F = TypeVar("_F", bound=Callable[..., Any])

__all__ = [
    "GradcheckError",
    "backward",
    "enable_grad",
    "grad",
    "gradcheck",
    "is_grad_enabled",
    "no_grad",
    "set_grad_enabled",
]


# ---- grad mode ------------------------------------------------------------------------------
def is_grad_enabled() -> bool:
    return bool(_C.is_grad_enabled())


class _GradMode:
    """Sets grad mode for a ``with`` block or for every call of a decorated function.

    Each entry pushes the previous mode, so one instance can be entered recursively (a decorated
    recursive function) and still restore the outermost mode on exit."""

    _mode = True

    def __init__(self) -> None:
        self._prev: list[bool] = []

    def __enter__(self) -> None:
        self._prev.append(is_grad_enabled())
        _C._set_grad_enabled(self._mode)

    def __exit__(self, *exc: object) -> None:
        _C._set_grad_enabled(self._prev.pop())

    def __call__(self, fn: _F) -> _F:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with self.__class__._fresh(self):
                return fn(*args, **kwargs)

        return cast(_F, wrapper)

    def _fresh(self) -> _GradMode:
        return self.__class__()


class no_grad(_GradMode):
    """Operations inside do not record a graph (results have ``requires_grad=False``)."""

    _mode = False


class enable_grad(_GradMode):
    """Re-enables recording inside a ``no_grad`` block or function."""

    _mode = True


class set_grad_enabled(_GradMode):
    """``set_grad_enabled(mode)``: takes effect at once when called (like torch), is undone at the end
    of a ``with`` block, and as a decorator applies ``mode`` around each call instead."""

    def __init__(self, mode: bool) -> None:
        super().__init__()
        self._mode = bool(mode)
        self._prev.append(is_grad_enabled())
        _C._set_grad_enabled(self._mode)

    def __enter__(self) -> None:
        pass  # already set by __init__

    def __exit__(self, *exc: object) -> None:
        if self._prev:
            _C._set_grad_enabled(self._prev.pop())

    def __call__(self, fn: _F) -> _F:
        if self._prev:  # used as a decorator: undo the immediate effect of __init__
            _C._set_grad_enabled(self._prev.pop())
        return super().__call__(fn)

    def _fresh(self) -> _GradMode:
        return _Scoped(self._mode)


class _Scoped(_GradMode):
    def __init__(self, mode: bool) -> None:
        super().__init__()
        self._mode = mode


# ---- gradients ------------------------------------------------------------------------------
def _tensors(x: Any) -> list[Any]:
    if isinstance(x, _C.Tensor):
        return [x]
    return list(x)


def backward(
    tensors: Any,
    grad_tensors: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    grad_variables: Any = None,
    inputs: Any = None,
) -> None:
    """Accumulates the gradients of ``tensors`` (weighted by ``grad_tensors``) into the leaves' ``.grad``,
    or, given ``inputs``, into those tensors' ``.grad`` alone: only the part of the graph that leads to
    them runs, which is what makes ``inputs`` worth passing (a GAN's discriminator step need not
    compute the generator's weight gradients)."""
    if grad_variables is not None:
        if grad_tensors is not None:
            raise RuntimeError("`grad_tensors` and `grad_variables` (deprecated) arguments both passed to `backward()`. "
                               "Please only use `grad_tensors`.")
        grad_tensors = grad_variables
    roots = _tensors(tensors)
    grads = None if grad_tensors is None else _tensors(grad_tensors)
    retain = create_graph if retain_graph is None else retain_graph
    ins = None if inputs is None else _tensors(inputs)
    if ins is not None and not ins:
        raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    _C._run_backward(roots, grads, retain, create_graph, ins, False, accumulate_grad=ins is not None)


def grad(
    outputs: Any,
    inputs: Any,
    grad_outputs: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    allow_unused: bool = False,
) -> tuple[Any, ...]:
    """The gradients of ``outputs`` with respect to ``inputs`` (``.grad`` is left untouched).

    An input the outputs do not depend on raises unless ``allow_unused``, which gives None for it."""
    outs = _tensors(outputs)
    ins = _tensors(inputs)
    gouts = None if grad_outputs is None else _tensors(grad_outputs)
    retain = create_graph if retain_graph is None else retain_graph
    return tuple(_C._run_backward(outs, gouts, retain, create_graph, ins, allow_unused))


# ---- gradcheck ------------------------------------------------------------------------------
class GradcheckError(RuntimeError):
    """An analytical gradient disagrees with the finite-difference one."""


def _as_tuple(x: Any) -> tuple[Any, ...]:
    return (x,) if isinstance(x, _C.Tensor) else tuple(x)


def _float_outputs(out: Any) -> list[Any]:
    return [o for o in _as_tuple(out) if isinstance(o, _C.Tensor) and o.is_floating_point()]


def _flat(t: Any) -> Any:
    return np.asarray(t.detach().to(_C.float64).numpy(), dtype=np.float64).ravel()


def _numerical(fn: Callable[..., Any], xs: Sequence[Any], i: int, eps: float) -> Any:
    """d(outputs)/d(xs[i]) by central differences: one column per element of xs[i].

    Grad mode stays as it is, so a function that differentiates internally (a gradient of a
    gradient) can be checked too."""
    base = xs[i].detach().clone()
    flat = base.numpy().reshape(-1)  # shares memory with `base`
    cols = []
    for j in range(flat.size):
        orig = flat[j]
        args = list(xs)
        flat[j] = orig + eps
        args[i] = base.clone().requires_grad_(True)
        plus = np.concatenate([_flat(o) for o in _float_outputs(fn(*args))] or [np.zeros(0)])
        flat[j] = orig - eps
        args[i] = base.clone().requires_grad_(True)
        minus = np.concatenate([_flat(o) for o in _float_outputs(fn(*args))] or [np.zeros(0)])
        flat[j] = orig
        cols.append((plus - minus) / (2 * eps))
    return np.stack(cols, axis=1) if cols else np.zeros((0, 0))


def gradcheck(
    fn: Callable[..., Any],
    inputs: Any,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
) -> bool:
    """Compares every entry of the Jacobian from autograd with central finite differences.

    Floating inputs are promoted to float64 copies (keeping ``requires_grad``); returns True, or
    raises GradcheckError naming the worst entry (output index, input and element, both values)."""
    xs = [
        x.detach().to(_C.float64).requires_grad_(x.requires_grad)
        if isinstance(x, _C.Tensor) and x.is_floating_point()
        else x
        for x in _as_tuple(inputs)
    ]
    wrt = [i for i, x in enumerate(xs) if isinstance(x, _C.Tensor) and x.requires_grad]
    if not wrt:
        raise ValueError("gradcheck: no input requires grad")
    outs = _float_outputs(fn(*xs))
    sizes = [o.numel() for o in outs]
    n_out = sum(sizes)
    analytic = {i: np.zeros((n_out, xs[i].numel())) for i in wrt}
    row = 0
    for o, size in zip(outs, sizes, strict=True):
        for k in range(size):
            onehot = np.zeros(size)
            onehot[k] = 1.0
            go = _C.tensor(onehot.reshape(tuple(o.shape)), dtype=o.dtype)
            if not o.requires_grad:
                row += 1
                continue
            gs = grad([o], [xs[i] for i in wrt], [go], retain_graph=True, allow_unused=True)
            for i, g in zip(wrt, gs, strict=True):
                if g is not None:
                    analytic[i][row] = _flat(g)
            row += 1
    worst: tuple[float, str] | None = None
    for i in wrt:
        num = _numerical(fn, xs, i, eps)
        ana = analytic[i]
        if num.shape != ana.shape:
            raise GradcheckError(f"gradcheck: Jacobian shapes differ for input {i}: {ana.shape} vs {num.shape}")
        excess = np.abs(ana - num) - (atol + rtol * np.abs(num))
        if excess.size and excess.max() > 0:
            r, c = np.unravel_index(int(np.argmax(excess)), excess.shape)
            msg = (
                f"gradcheck: Jacobian mismatch for output element {r} with respect to input {i} element {c}: "
                f"analytical {ana[r, c]!r} vs numerical {num[r, c]!r} (atol={atol}, rtol={rtol})"
            )
            if worst is None or excess.max() > worst[0]:
                worst = (float(excess.max()), msg)
    if worst is not None:
        raise GradcheckError(worst[1])
    return True
