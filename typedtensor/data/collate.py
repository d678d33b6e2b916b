"""``default_collate`` and ``default_convert``: torch's rules for turning a list of samples into a batch.

Tensors stack along a new first dimension; numpy arrays become tensors and stack; Python floats
become a float64 tensor, ints an int64 tensor and bools a bool tensor; strings stay a list; a
mapping, a namedtuple or a sequence is collated field by field, keeping its type where it can (a
tuple of fields becomes a list, as in torch). ``default_convert`` (used when ``batch_size=None``)
only turns numpy arrays into tensors, recursively.
"""

from __future__ import annotations

import collections.abc
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from typedtensor._runtime import _C

_ERROR = "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"


def _numpy_is_numeric(a: np.ndarray | np.generic) -> bool:
    return a.dtype.kind not in "SaUOV"


def as_tensor(a: np.ndarray | np.generic) -> Any:
    """A numpy array as a tensor, sharing its memory when it is C-contiguous and writable (as
    ``torch.as_tensor`` does), else from a copy."""
    arr = np.asarray(a)
    if not (arr.flags.c_contiguous and arr.flags.writeable):
        arr = np.array(arr, order="C", copy=True)  # (not ascontiguousarray: it turns 0-d into 1-d)
    return _C.from_numpy(arr)


def stack_now(items: list[Any]) -> Any:
    """Stack same-shaped tensors (or numeric numpy arrays, made tensors first) along a new dim 0."""
    if isinstance(items[0], _C.Tensor):
        return _C.stack(items, 0)
    return _C.stack([as_tensor(a) for a in items], 0)


def default_collate(batch: Sequence[Any]) -> Any:
    return collate_with(batch, stack_now)


def collate_with(batch: Sequence[Any], stack: Callable[[list[Any]], Any]) -> Any:
    """``default_collate``'s rules with the stacking of tensors and arrays left to ``stack`` (a
    DataLoader worker stacks straight into the shared segment the batch travels in)."""
    if not batch:
        raise ValueError("default_collate: empty batch")
    elem = batch[0]
    if isinstance(elem, _C.Tensor):
        return stack(list(batch))
    if isinstance(elem, np.ndarray) and _numpy_is_numeric(elem):
        if elem.shape == ():
            return as_tensor(np.stack(batch))
        return stack(list(batch))
    if isinstance(elem, np.ndarray):
        raise TypeError(_ERROR.format(elem.dtype))
    if isinstance(elem, np.generic) and _numpy_is_numeric(elem):
        return as_tensor(np.asarray(batch))
    if isinstance(elem, bool):
        return _C.tensor(list(batch), dtype=_C.bool)
    if isinstance(elem, int):
        return _C.tensor(list(batch), dtype=_C.int64)
    if isinstance(elem, float):
        return _C.tensor(list(batch), dtype=_C.float64)
    if isinstance(elem, (str, bytes)):
        return batch  # as torch: a list at the top, a tuple inside a transposed sequence
    if isinstance(elem, collections.abc.Mapping):
        fields = {key: collate_with([d[key] for d in batch], stack) for key in elem}
        try:
            return type(elem)(fields)  # type: ignore[call-arg]
        except TypeError:
            return fields
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # namedtuple
        return type(elem)(*(collate_with(field, stack) for field in zip(*batch, strict=True)))
    if isinstance(elem, collections.abc.Sequence):
        size = len(elem)
        if any(len(e) != size for e in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = [collate_with(field, stack) for field in zip(*batch, strict=True)]
        if isinstance(elem, tuple):
            return transposed
        try:
            return type(elem)(transposed)  # type: ignore[call-arg]
        except TypeError:
            return transposed
    raise TypeError(_ERROR.format(type(elem).__name__))


def default_convert(data: Any) -> Any:
    """Numpy arrays (and numpy numbers) to tensors, inside any mapping, namedtuple or sequence."""
    if isinstance(data, _C.Tensor):
        return data
    if isinstance(data, (np.ndarray, np.generic)):
        return as_tensor(data) if _numpy_is_numeric(data) else data
    if isinstance(data, collections.abc.Mapping):
        fields = {key: default_convert(v) for key, v in data.items()}
        try:
            return type(data)(fields)  # type: ignore[call-arg]
        except TypeError:
            return fields
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        try:
            return type(data)([default_convert(d) for d in data])  # type: ignore[call-arg]
        except TypeError:
            return [default_convert(d) for d in data]
    return data
