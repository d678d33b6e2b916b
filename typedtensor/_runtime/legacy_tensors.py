"""torch's legacy tensor-type constructors: ``FloatTensor``, ``LongTensor``, ... (CPU types only).

Old programs still build tensors with them (pytorch/examples' gcn and gat read their data with
``torch.FloatTensor(array)`` and ``torch.LongTensor(array)``). As in torch, each is a constructor and
an ``isinstance`` test, not a subclass of ``Tensor``:

- ``T()`` is an empty 1-d tensor, ``T(*sizes)`` an uninitialised one of those sizes;
- ``T(data)`` converts a sequence or a numpy array to T's dtype; an array already of that dtype is
  shared, not copied (as ``from_numpy``);
- ``T(tensor)`` returns ``tensor`` itself when it already has T's dtype and refuses any other dtype;
- ``isinstance(t, T)`` holds for a CPU tensor of T's dtype.

torch's ``ShortTensor``/``CharTensor`` (int16/int8) are absent with those dtypes, and the CUDA
variants (``torch.cuda.FloatTensor``) with them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from typedtensor import _C

__all__ = [
    "BFloat16Tensor", "BoolTensor", "ByteTensor", "DoubleTensor", "FloatTensor", "HalfTensor", "IntTensor",
    "LongTensor",
]


class _LegacyTensorType(type):
    """The metaclass: calling the class builds a plain ``Tensor``; ``isinstance`` compares dtypes."""

    _dtype: Any

    def __call__(cls, *args: Any, device: Any = None) -> Any:
        if device is not None and _C.device(device).type != "cpu":
            raise RuntimeError(
                f"legacy constructor expects device type: cpu but device type: {_C.device(device).type} was passed"
            )
        if not args:
            return _C.empty(0, dtype=cls._dtype)
        if len(args) == 1 and _C.is_tensor(args[0]):
            return cls._from_tensor(args[0])
        if all(isinstance(a, int) and not isinstance(a, bool) for a in args):
            return _C.empty(*args, dtype=cls._dtype)  # sizes: T(2, 3)
        if len(args) > 1:
            raise TypeError(f"{cls.__name__}(): expected sizes (ints) or one sequence of data, got {args!r}")
        return cls._from_data(args[0])

    def _from_tensor(cls, t: Any) -> Any:
        if t.dtype != cls._dtype or t.device.type != "cpu":
            raise TypeError(f"{cls.__name__}(): expected a cpu tensor of dtype {cls._dtype}, got {t.dtype} on {t.device}")
        return t

    def _from_data(cls, data: Any) -> Any:
        if isinstance(data, np.ndarray):
            np_dtype = _numpy_dtype(cls._dtype)  # (None for bfloat16; np.dtype(...) == None is float64)
            if np_dtype is not None:
                if data.dtype == np_dtype and data.flags.c_contiguous:
                    return _C.from_numpy(data)
                data = data.astype(np_dtype)  # numpy's cast, as torch's (floats truncate toward zero)
        return _C.tensor(data, dtype=cls._dtype)

    def __instancecheck__(cls, obj: Any) -> bool:
        return bool(_C.is_tensor(obj) and obj.dtype == cls._dtype and obj.device.type == "cpu")


def _numpy_dtype(dtype: Any) -> Any:
    if dtype == _C.bfloat16:
        return None  # numpy has no bfloat16: arrays convert through the tensor constructor
    return np.dtype(str(dtype).removeprefix("typedtensor."))


def _legacy(name: str, dtype: Any) -> _LegacyTensorType:
    cls = _LegacyTensorType(name, (), {"_dtype": dtype, "__module__": "typedtensor", "__doc__": (
        f"torch.{name}: builds a {dtype} tensor (sizes, data or a tensor of that dtype); "
        f"isinstance() tests for a cpu {dtype} tensor.")})
    return cls


FloatTensor = _legacy("FloatTensor", _C.float32)
DoubleTensor = _legacy("DoubleTensor", _C.float64)
HalfTensor = _legacy("HalfTensor", _C.float16)
BFloat16Tensor = _legacy("BFloat16Tensor", _C.bfloat16)
LongTensor = _legacy("LongTensor", _C.int64)
IntTensor = _legacy("IntTensor", _C.int32)
ByteTensor = _legacy("ByteTensor", _C.uint8)
BoolTensor = _legacy("BoolTensor", _C.bool)
