"""The lazy modules (``nn.LazyLinear``, ``nn.LazyConv2d``, ``nn.LazyBatchNorm2d`` ...): layers whose
input size (``in_features``, ``in_channels``, ``num_features``) comes from their first input.

Until then their weights are ``UninitializedParameter``s. The first call materialises them from the
input's shape, initialises them as the eager layer would, and turns the module into that layer
(``cls_to_become``: a ``LazyLinear`` becomes a ``Linear``), as torch's ``LazyModuleMixin`` does. A
state dict loads into an uninitialised module too: each parameter takes the saved shape first (the
module becomes its layer at its next call, and its input size stays 0 until then, as in torch).
The parameters keep their identity, so an optimiser may be built before the first call."""

from __future__ import annotations

from typing import Any

from typedtensor._runtime import _C, no_grad
from typedtensor.nn.conv import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d
from typedtensor.nn.layers import BatchNorm1d, BatchNorm2d, Linear
from typedtensor.nn.module import Module
from typedtensor.nn.normalization import BatchNorm3d, InstanceNorm1d, InstanceNorm2d, InstanceNorm3d
from typedtensor.nn.parameter import UninitializedBuffer, UninitializedParameter, is_lazy

Tensor = Any


class LazyModuleMixin:
    """Materialise on the first call (``initialize_parameters``), then become ``cls_to_become``."""

    cls_to_become: type[Module] | None = None

    def has_uninitialized_params(self) -> bool:
        module: Any = self
        return any(is_lazy(t) for t in (*module._parameters.values(), *module._buffers.values()))

    def initialize_parameters(self, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedError(f"initialize_parameters is not implemented for {type(self).__name__}")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.has_uninitialized_params():
            with no_grad():
                self.initialize_parameters(*args, **kwargs)
            if self.has_uninitialized_params():
                raise RuntimeError(f"module {type(self).__name__} has not been fully initialized")
        module: Any = self
        if self.cls_to_become is not None:
            module.__class__ = self.cls_to_become
        return module.forward(*args, **kwargs)

    def _load_from_state_dict(self, state_dict: dict[str, Tensor], prefix: str, *args: Any) -> None:
        """A saved entry gives an uninitialised parameter or buffer its shape before the load copies it."""
        module: Any = self
        for registry in (module._parameters, module._buffers):
            for name, t in registry.items():
                key = prefix + name
                if t is not None and is_lazy(t) and key in state_dict and isinstance(state_dict[key], _C.Tensor):
                    t.materialize(tuple(state_dict[key].shape))
        super()._load_from_state_dict(state_dict, prefix, *args)  # type: ignore[misc]


def _check_initialized(module: Any) -> None:
    if module.has_uninitialized_params():
        raise RuntimeError(f"{type(module).__name__}: call the module once (or load a state dict) first")


class LazyLinear(LazyModuleMixin, Linear):
    """``Linear`` whose ``in_features`` is the first input's last dim."""

    cls_to_become = Linear

    def __init__(self, out_features: int, bias: bool = True, device: Any = None, dtype: Any = None) -> None:
        super().__init__(0, 0, False, device, dtype)
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input: Tensor, *args: Any, **kwargs: Any) -> None:
        self.in_features = int(input.shape[-1])
        self.weight.materialize((self.out_features, self.in_features))
        if self.bias is not None:
            self.bias.materialize((self.out_features,))
        self.reset_parameters()


class _LazyConvMixin(LazyModuleMixin):
    """What the lazy convolutions share: ``in_channels`` from the input's channel dim (dim 0 of an
    unbatched input), a weight of the convolution's layout."""

    def _lazy_init(self, out_channels: int, bias: bool, device: Any, dtype: Any) -> None:
        module: Any = self
        module.weight = UninitializedParameter(device=device, dtype=dtype)
        module.out_channels = out_channels
        if bias:
            module.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self) -> None:
        module: Any = self
        if not self.has_uninitialized_params() and module.in_channels != 0:
            super().reset_parameters()  # type: ignore[misc]

    def initialize_parameters(self, input: Tensor, *args: Any, **kwargs: Any) -> None:
        module: Any = self
        unbatched = input.ndim == module._nd + 1
        module.in_channels = int(input.shape[0 if unbatched else 1])
        if module.in_channels % module.groups:
            raise ValueError("in_channels must be divisible by groups")
        g, o, i = module.groups, module.out_channels, module.in_channels
        shape = (i, o // g) if module._transposed else (o, i // g)
        module.weight.materialize((*shape, *module.kernel_size))
        if module.bias is not None:
            module.bias.materialize((o,))
        self.reset_parameters()


class _LazyConv(_LazyConvMixin):
    def __init__(
        self, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0, dilation: Any = 1,
        groups: int = 1, bias: bool = True, padding_mode: str = "zeros", device: Any = None, dtype: Any = None,
    ) -> None:
        super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode, device, dtype)  # type: ignore[call-arg]
        self._lazy_init(out_channels, bias, device, dtype)


class _LazyConvTranspose(_LazyConvMixin):
    def __init__(
        self, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0, output_padding: Any = 0,
        groups: int = 1, bias: bool = True, dilation: Any = 1, padding_mode: str = "zeros", device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(0, 0, kernel_size, stride, padding, output_padding, groups, False, dilation,  # type: ignore[call-arg]
                         padding_mode, device, dtype)
        self._lazy_init(out_channels, bias, device, dtype)


class LazyConv1d(_LazyConv, Conv1d):
    """``Conv1d`` whose ``in_channels`` is the first input's."""

    cls_to_become = Conv1d


class LazyConv2d(_LazyConv, Conv2d):
    """``Conv2d`` whose ``in_channels`` is the first input's."""

    cls_to_become = Conv2d


class LazyConv3d(_LazyConv, Conv3d):
    """``Conv3d`` whose ``in_channels`` is the first input's."""

    cls_to_become = Conv3d


class LazyConvTranspose1d(_LazyConvTranspose, ConvTranspose1d):
    """``ConvTranspose1d`` whose ``in_channels`` is the first input's."""

    cls_to_become = ConvTranspose1d


class LazyConvTranspose2d(_LazyConvTranspose, ConvTranspose2d):
    """``ConvTranspose2d`` whose ``in_channels`` is the first input's."""

    cls_to_become = ConvTranspose2d


class _LazyNormMixin(LazyModuleMixin):
    """The lazy batch and instance norms: ``num_features`` from the input's channel dim. The lazy
    instance norms default to ``affine`` and ``track_running_stats`` on, unlike the eager ones,
    as torch's do."""

    def __init__(
        self, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = True, track_running_stats: bool = True,
        device: Any = None, dtype: Any = None, *, bias: bool = True,
    ) -> None:
        super().__init__(0, eps, momentum, False, False, device, dtype, bias=False)  # type: ignore[call-arg]
        self._lazy_init(affine, track_running_stats, bias, device, dtype)

    def _lazy_init(self, affine: bool, track_running_stats: bool, bias: bool, device: Any, dtype: Any) -> None:
        module: Any = self
        module.affine = affine
        module.track_running_stats = track_running_stats
        if affine:
            module.weight = UninitializedParameter(device=device, dtype=dtype)
            if bias:
                module.bias = UninitializedParameter(device=device, dtype=dtype)
        if track_running_stats:
            module.running_mean = UninitializedBuffer(device=device, dtype=dtype)
            module.running_var = UninitializedBuffer(device=device, dtype=dtype)
            nbt = _C.tensor(0, dtype=_C.int64)
            module.num_batches_tracked = nbt.to(device) if device is not None else nbt

    def reset_parameters(self) -> None:
        module: Any = self
        if not self.has_uninitialized_params() and module.num_features != 0:
            super().reset_parameters()  # type: ignore[misc]

    def initialize_parameters(self, input: Tensor, *args: Any, **kwargs: Any) -> None:
        module: Any = self
        unbatched = isinstance(module, (InstanceNorm1d, InstanceNorm2d, InstanceNorm3d)) and input.ndim == module._nd + 1
        module.num_features = int(input.shape[0 if unbatched else 1])
        for t in (module.weight, module.bias, module.running_mean, module.running_var):
            if t is not None and is_lazy(t):
                t.materialize((module.num_features,))
        self.reset_parameters()


class LazyBatchNorm1d(_LazyNormMixin, BatchNorm1d):
    """``BatchNorm1d`` whose ``num_features`` is the first input's channel count."""

    cls_to_become = BatchNorm1d


class LazyBatchNorm2d(_LazyNormMixin, BatchNorm2d):
    """``BatchNorm2d`` whose ``num_features`` is the first input's channel count."""

    cls_to_become = BatchNorm2d


class LazyBatchNorm3d(_LazyNormMixin, BatchNorm3d):
    """``BatchNorm3d`` whose ``num_features`` is the first input's channel count."""

    cls_to_become = BatchNorm3d


class LazyInstanceNorm1d(_LazyNormMixin, InstanceNorm1d):
    """``InstanceNorm1d`` whose ``num_features`` is the first input's channel count."""

    cls_to_become = InstanceNorm1d


class LazyInstanceNorm2d(_LazyNormMixin, InstanceNorm2d):
    """``InstanceNorm2d`` whose ``num_features`` is the first input's channel count."""

    cls_to_become = InstanceNorm2d


class LazyInstanceNorm3d(_LazyNormMixin, InstanceNorm3d):
    """``InstanceNorm3d`` whose ``num_features`` is the first input's channel count."""

    cls_to_become = InstanceNorm3d


__all__ = [
    "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d", "LazyConv1d", "LazyConv2d", "LazyConv3d",
    "LazyConvTranspose1d", "LazyConvTranspose2d", "LazyInstanceNorm1d", "LazyInstanceNorm2d", "LazyInstanceNorm3d",
    "LazyLinear", "LazyModuleMixin",
]
