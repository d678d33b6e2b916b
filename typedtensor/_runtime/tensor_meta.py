"""Tensor metadata torch programs test that typedtensor answers the same way every time: the
device-kind and layout properties (``is_xpu``, ``is_mps``, ``is_meta``, ``is_sparse``,
``is_quantized`` ...) and the predicates (``is_complex()``, ``is_signed()``, ``is_same_size()`` ...).

typedtensor tensors are dense, strided, unquantized and real, and live on the CPU or a CUDA
device, so every other device kind and layout answers False (``x.is_xpu`` guards an XPU code path
that a typedtensor program never takes). Not ops: no tensor results (``shapes/nonops.py``).
"""

from __future__ import annotations

from typing import Any

# properties that are False for every typedtensor tensor: other device kinds, other layouts
ALWAYS_FALSE = (
    "is_ipu", "is_maia", "is_meta", "is_mkldnn", "is_mps", "is_mtia", "is_nested", "is_quantized", "is_sparse",
    "is_sparse_csr", "is_vulkan", "is_xla", "is_xpu",
)
# predicates (methods) that are False for every typedtensor tensor: no complex numbers, no lazy
# conjugate or negative bits, no inference tensors, no pinned or shared host memory, no distributed tensors
ALWAYS_FALSE_METHODS = ("is_complex", "is_conj", "is_neg", "is_inference", "is_pinned", "is_shared", "is_distributed")


def _false_property(name: str) -> property:
    return property(lambda self: False, doc=f"``{name}``: always False (typedtensor has no such device or layout).")


def _false_method(name: str) -> Any:
    def method(self: Any) -> bool:
        return False

    method.__name__ = name
    method.__doc__ = f"``{name}()``: always False for a typedtensor tensor."
    return method


def is_signed(self: Any) -> bool:
    """Whether the dtype holds negative values (False for bool and uint8)."""
    return bool(self.dtype.is_signed)


def is_same_size(self: Any, other: Any) -> bool:
    """Whether ``other`` has exactly this tensor's shape."""
    return tuple(self.shape) == tuple(other.shape)


def is_nonzero(self: Any) -> bool:
    """The truth of a one-element tensor (torch raises for any other number of elements)."""
    n = self.numel()
    if n == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if n > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(self.item() != 0)


def install(tensor_cls: Any) -> None:
    for name in ALWAYS_FALSE:
        setattr(tensor_cls, name, _false_property(name))
    for name in ALWAYS_FALSE_METHODS:
        setattr(tensor_cls, name, _false_method(name))
    tensor_cls.is_signed = is_signed
    tensor_cls.is_same_size = is_same_size
    tensor_cls.is_nonzero = is_nonzero


NAMES = (*ALWAYS_FALSE, *ALWAYS_FALSE_METHODS, "is_signed", "is_same_size", "is_nonzero")
