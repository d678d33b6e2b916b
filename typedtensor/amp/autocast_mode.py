"""``autocast``: run a region's ops in lower precision where that is safe, as ``torch.autocast``.

Inside ``with tt.autocast("cpu"):`` (bfloat16 by default; float16 also accepted) the GEMMs,
convolutions and attention take their floating inputs in the low-precision dtype, and the ops that
need range or accumulation (losses, ``prod``...) take float32: each op's policy is its op-table
entry (NOTE [ Autocast policy ] in typedtensor/shapes/registry.py), applied once per call at the
op's front end (NOTE [ Autocast at the front end ] in backend/include/typedtensor/autocast.h). The
state is thread-local, as torch's; regions nest, and ``enabled=False`` inside one turns it off.
"""

from __future__ import annotations

import collections.abc
import functools
import warnings
from collections.abc import Callable
from types import TracebackType
from typing import Any, Literal, TypeVar

from typedtensor._runtime import _C

__all__ = [
    "autocast", "custom_bwd", "custom_fwd", "is_autocast_available",
    "autocast_decrement_nesting", "autocast_increment_nesting", "clear_autocast_cache",
    "get_autocast_cpu_dtype", "get_autocast_dtype", "get_autocast_gpu_dtype", "is_autocast_cache_enabled",
    "is_autocast_cpu_enabled", "is_autocast_enabled", "set_autocast_cache_enabled", "set_autocast_cpu_dtype",
    "set_autocast_cpu_enabled", "set_autocast_dtype", "set_autocast_enabled", "set_autocast_gpu_dtype",
]

_F = TypeVar("_F", bound=Callable[..., Any])
_DEVICE_TYPES = ("cpu", "cuda")


def is_autocast_available(device_type: str) -> bool:
    """Whether autocast can run on ``device_type`` (``"cpu"`` and ``"cuda"`` here)."""
    return device_type in _DEVICE_TYPES


def _device_type(device_type: Any) -> str:
    if device_type not in _DEVICE_TYPES:
        raise RuntimeError(f"User specified an unsupported autocast device_type '{device_type}'")
    return str(device_type)


def _deprecated(old: str, new: str) -> None:
    warnings.warn(f"torch.{old}() is deprecated. Please use torch.{new} instead.", DeprecationWarning, stacklevel=3)


def is_autocast_enabled(device_type: str | None = None) -> bool:
    """Whether autocast is on for ``device_type`` in this thread (``None``: CUDA, as torch)."""
    return bool(_C._autocast_is_enabled(_device_type("cuda" if device_type is None else device_type)))


def set_autocast_enabled(device_type: Any, enabled: bool | None = None) -> None:
    """Turn autocast on or off for ``device_type`` in this thread (``set_autocast_enabled(True)``:
    CUDA, torch's older form)."""
    if enabled is None:
        device_type, enabled = "cuda", bool(device_type)
    _C._autocast_set_enabled(_device_type(device_type), bool(enabled))


def get_autocast_dtype(device_type: str) -> Any:
    """The low-precision dtype of ``device_type``'s autocast (bfloat16 on CPU, float16 on CUDA by default)."""
    return _C._autocast_get_dtype(_device_type(device_type))


def set_autocast_dtype(device_type: str, dtype: Any) -> None:
    """Set the low-precision dtype of ``device_type``'s autocast in this thread."""
    _C._autocast_set_dtype(_device_type(device_type), dtype)


def is_autocast_cpu_enabled() -> bool:
    """Deprecated: ``is_autocast_enabled("cpu")``."""
    _deprecated("is_autocast_cpu_enabled", "is_autocast_enabled('cpu')")
    return is_autocast_enabled("cpu")


def set_autocast_cpu_enabled(enabled: bool) -> None:
    """Deprecated: ``set_autocast_enabled("cpu", enabled)``."""
    _deprecated("set_autocast_cpu_enabled", "set_autocast_enabled('cpu', enabled)")
    set_autocast_enabled("cpu", enabled)


def get_autocast_cpu_dtype() -> Any:
    """Deprecated: ``get_autocast_dtype("cpu")``."""
    _deprecated("get_autocast_cpu_dtype", "get_autocast_dtype('cpu')")
    return get_autocast_dtype("cpu")


def set_autocast_cpu_dtype(dtype: Any) -> None:
    """Deprecated: ``set_autocast_dtype("cpu", dtype)``."""
    _deprecated("set_autocast_cpu_dtype", "set_autocast_dtype('cpu', dtype)")
    set_autocast_dtype("cpu", dtype)


def get_autocast_gpu_dtype() -> Any:
    """Deprecated: ``get_autocast_dtype("cuda")``."""
    _deprecated("get_autocast_gpu_dtype", "get_autocast_dtype('cuda')")
    return get_autocast_dtype("cuda")


def set_autocast_gpu_dtype(dtype: Any) -> None:
    """Deprecated: ``set_autocast_dtype("cuda", dtype)``."""
    _deprecated("set_autocast_gpu_dtype", "set_autocast_dtype('cuda', dtype)")
    set_autocast_dtype("cuda", dtype)


def is_autocast_cache_enabled() -> bool:
    """Whether autocast reuses its casts of weights within a region (see ``autocast``)."""
    return bool(_C._autocast_is_cache_enabled())


def set_autocast_cache_enabled(enabled: bool) -> None:
    """Turn the cast cache on or off in this thread."""
    _C._autocast_set_cache_enabled(bool(enabled))


def clear_autocast_cache() -> None:
    """Drop the cached casts (the outermost region's exit does this)."""
    _C._autocast_clear_cache()


def autocast_increment_nesting() -> int:
    """One more autocast region entered; returns the depth."""
    return int(_C._autocast_increment_nesting())


def autocast_decrement_nesting() -> int:
    """One autocast region left; returns the depth."""
    return int(_C._autocast_decrement_nesting())


class autocast:
    """Context manager and decorator: the region's ops run under their autocast policies.

    ``device_type`` is ``"cpu"`` or ``"cuda"``; ``dtype`` the low-precision dtype (None: the
    device type's current one, bfloat16 on CPU and float16 on CUDA by default); ``cache_enabled``
    lets the region reuse its casts of float32 leaves that require grad (the weights) until the
    outermost region exits. As torch: a CPU dtype other than bfloat16/float16 warns and disables,
    and ``"cuda"`` without a CUDA device warns and disables.
    """

    def __init__(self, device_type: str, dtype: Any = None, enabled: bool = True,
                 cache_enabled: bool | None = None) -> None:
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        self.device = _device_type(device_type)
        self.fast_dtype = get_autocast_dtype(self.device) if dtype is None else dtype
        self._cache_enabled = is_autocast_cache_enabled() if cache_enabled is None else cache_enabled
        if enabled:
            if self.device == "cuda":
                from typedtensor._runtime import cuda

                if not cuda.is_available():
                    warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.", stacklevel=2)
                    enabled = False
            elif self.fast_dtype not in (_C.bfloat16, _C.float16):
                warnings.warn(
                    "In CPU autocast, but the target dtype is not supported. Disabling autocast.\n"
                    "CPU Autocast only supports dtypes of torch.bfloat16, torch.float16 currently.",
                    stacklevel=2,
                )
                enabled = False
        self._enabled = enabled

    def __enter__(self) -> autocast:
        self.prev_cache_enabled = is_autocast_cache_enabled()
        self.prev = is_autocast_enabled(self.device)
        self.prev_fastdtype = get_autocast_dtype(self.device)
        set_autocast_enabled(self.device, self._enabled)
        set_autocast_dtype(self.device, self.fast_dtype)
        autocast_increment_nesting()
        set_autocast_cache_enabled(self._cache_enabled)
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc_val: BaseException | None,
                 exc_tb: TracebackType | None) -> Literal[False]:
        if autocast_decrement_nesting() == 0:
            clear_autocast_cache()
        set_autocast_enabled(self.device, self.prev)
        set_autocast_dtype(self.device, self.prev_fastdtype)
        set_autocast_cache_enabled(self.prev_cache_enabled)
        return False

    def __call__(self, func: _F) -> _F:
        if not callable(func):
            raise TypeError(
                f"autocast()(func) requires a callable, but got {type(func).__name__}. "
                f"Did you mean to use autocast as a context manager? For example:\n"
                f"    with torch.autocast(device_type=...):\n"
                f"        output = model(input)"
            )

        @functools.wraps(func)
        def decorate_autocast(*args: Any, **kwargs: Any) -> Any:
            with self:
                return func(*args, **kwargs)

        return decorate_autocast  # type: ignore[return-value]


def _cast(value: Any, device_type: str, dtype: Any) -> Any:
    """``value`` with its floating tensors of ``device_type`` (not float64) cast to ``dtype``,
    through dicts, lists, tuples and other iterables (torch's ``autocast_mode._cast``)."""
    if isinstance(value, _C.Tensor):
        eligible = value.is_floating_point() and value.device.type == device_type and value.dtype != _C.float64
        return value.to(dtype) if eligible else value
    if isinstance(value, (str, bytes)):
        return value
    if isinstance(value, collections.abc.Mapping):
        return {_cast(k, device_type, dtype): _cast(v, device_type, dtype) for k, v in value.items()}
    if isinstance(value, collections.abc.Iterable):
        items = (_cast(v, device_type, dtype) for v in value)
        return type(value)(items) if isinstance(value, (list, tuple)) else items
    return value


def custom_fwd(fwd: Callable[..., Any] | None = None, *, device_type: str, cast_inputs: Any = None) -> Any:
    """For the ``forward`` of an ``autograd.Function``: with ``cast_inputs`` and autocast on, its
    floating tensor inputs are cast to ``cast_inputs`` and it runs with autocast off; without, it runs
    under the current state (torch's ``custom_fwd``)."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)
    forward = fwd

    @functools.wraps(forward)
    def decorate_fwd(*args: Any, **kwargs: Any) -> Any:
        args[0]._dtype = get_autocast_dtype(device_type)
        if cast_inputs is None:
            args[0]._fwd_used_autocast = is_autocast_enabled(device_type)
            return forward(*args, **kwargs)
        args[0]._fwd_used_autocast = False
        if is_autocast_enabled(device_type):
            with autocast(device_type=device_type, enabled=False):
                return forward(*_cast(args, device_type, cast_inputs), **_cast(kwargs, device_type, cast_inputs))
        return forward(*args, **kwargs)

    return decorate_fwd


def custom_bwd(bwd: Callable[..., Any] | None = None, *, device_type: str) -> Any:
    """For the ``backward`` of an ``autograd.Function``: runs under the autocast state its forward
    ran under (torch's ``custom_bwd``)."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)
    backward = bwd

    @functools.wraps(backward)
    def decorate_bwd(*args: Any, **kwargs: Any) -> Any:
        with autocast(device_type=device_type, enabled=args[0]._fwd_used_autocast, dtype=args[0]._dtype):
            return backward(*args, **kwargs)

    return decorate_bwd
