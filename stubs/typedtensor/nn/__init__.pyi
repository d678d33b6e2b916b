# nn modules. A module that has sizes carries them as type arguments (`Linear[In, Hidden]`), so
# `Module.__call__` can resolve to a typed `forward`; the mypy plugin captures literal ints passed
# as sizes as `Literal[...]` dims and plain ints as unknown dims.
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, Generic, TypeVar, overload

from typing_extensions import Self, TypeAlias, TypeVarTuple, Unpack

from typedtensor import Tensor

from . import functional as functional

Shape = TypeVarTuple("Shape")
_Bs = TypeVarTuple("_Bs")
_I = TypeVar("_I")
_O = TypeVar("_O")
_E = TypeVar("_E")
_H = TypeVar("_H")
_V = TypeVar("_V")
_C = TypeVar("_C")
_K = TypeVar("_K")
_S = TypeVar("_S")
_P = TypeVar("_P")
_B = TypeVar("_B")
_N = TypeVar("_N")
_M = TypeVar("_M")

_AnyTensor: TypeAlias = Tensor[Unpack[tuple[Any, ...]]]
_Pair: TypeAlias = int | tuple[int, int]

class Parameter(Tensor[Unpack[Shape]]):
    def __init__(self, data: Tensor[Unpack[Shape]], requires_grad: bool = True) -> None: ...

class Module:
    training: bool
    def __init__(self) -> None: ...
    def __call__(self, *args: Any, **kwargs: Any) -> Any: ...
    def forward(self, *args: Any, **kwargs: Any) -> Any: ...
    def parameters(self, recurse: bool = True) -> Iterator[Parameter[Unpack[tuple[Any, ...]]]]: ...
    def named_parameters(self) -> Iterator[tuple[str, Parameter[Unpack[tuple[Any, ...]]]]]: ...
    def children(self) -> Iterator[Module]: ...
    def modules(self) -> Iterator[Module]: ...
    def register_buffer(self, name: str, tensor: _AnyTensor | None) -> None: ...
    def register_parameter(self, name: str, param: Parameter[Unpack[tuple[Any, ...]]] | None) -> None: ...
    def add_module(self, name: str, module: Module | None) -> None: ...
    def train(self, mode: bool = True) -> Self: ...
    def eval(self) -> Self: ...
    def to(self, target: Any) -> Self: ...
    def cuda(self) -> Self: ...
    def cpu(self) -> Self: ...
    def zero_grad(self, set_to_none: bool = True) -> None: ...
    def state_dict(self) -> dict[str, _AnyTensor]: ...
    def load_state_dict(self, state_dict: Mapping[str, _AnyTensor], strict: bool = True) -> Any: ...
    def apply(self, fn: Any) -> Self: ...

class Linear(Module, Generic[_I, _O]):
    in_features: _I
    out_features: _O
    weight: Parameter[_O, _I]
    bias: Parameter[_O] | None
    def __init__(self, in_features: _I, out_features: _O, bias: bool = True, *, device: Any = None, dtype: Any = None) -> None: ...
    def forward(self, input: Tensor[Unpack[_Bs], _I]) -> Tensor[Unpack[_Bs], _O]: ...
    def __call__(self, input: Tensor[Unpack[_Bs], _I]) -> Tensor[Unpack[_Bs], _O]: ...

class Conv2d(Module, Generic[_I, _O]):
    in_channels: _I
    out_channels: _O
    weight: Parameter[_O, Any, Any, Any]
    bias: Parameter[_O] | None
    def __init__(
        self,
        in_channels: _I,
        out_channels: _O,
        kernel_size: _Pair,
        stride: _Pair = 1,
        padding: _Pair | str = 0,
        dilation: _Pair = 1,
        groups: int = 1,
        bias: bool = True,
        padding_mode: str = "zeros",
        *,
        device: Any = None,
        dtype: Any = None,
    ) -> None: ...
    def forward(self, input: _AnyTensor) -> _AnyTensor: ...
    def __call__(self, input: _AnyTensor) -> _AnyTensor: ...

class MaxPool2d(Module):
    def __init__(
        self,
        kernel_size: _Pair,
        stride: _Pair | None = None,
        padding: _Pair = 0,
        dilation: _Pair = 1,
        return_indices: bool = False,
        ceil_mode: bool = False,
    ) -> None: ...
    def forward(self, input: _AnyTensor) -> _AnyTensor: ...
    def __call__(self, input: _AnyTensor) -> _AnyTensor: ...

class AvgPool2d(Module):
    def __init__(
        self,
        kernel_size: _Pair,
        stride: _Pair | None = None,
        padding: _Pair = 0,
        ceil_mode: bool = False,
        count_include_pad: bool = True,
        divisor_override: int | None = None,
    ) -> None: ...
    def forward(self, input: _AnyTensor) -> _AnyTensor: ...
    def __call__(self, input: _AnyTensor) -> _AnyTensor: ...

class AdaptiveAvgPool2d(Module):
    def __init__(self, output_size: _Pair) -> None: ...
    def forward(self, input: _AnyTensor) -> _AnyTensor: ...
    def __call__(self, input: _AnyTensor) -> _AnyTensor: ...

class BatchNorm2d(Module, Generic[_C]):
    num_features: _C
    def __init__(
        self, num_features: _C, eps: float = 1e-5, momentum: float = 0.1, affine: bool = True,
        track_running_stats: bool = True, *, device: Any = None, dtype: Any = None,
    ) -> None: ...
    def forward(self, input: Tensor[_B, _C, _H, _N]) -> Tensor[_B, _C, _H, _N]: ...
    def __call__(self, input: Tensor[_B, _C, _H, _N]) -> Tensor[_B, _C, _H, _N]: ...

class BatchNorm1d(Module, Generic[_C]):
    num_features: _C
    def __init__(
        self, num_features: _C, eps: float = 1e-5, momentum: float = 0.1, affine: bool = True,
        track_running_stats: bool = True, *, device: Any = None, dtype: Any = None,
    ) -> None: ...
    def forward(self, input: _AnyTensor) -> _AnyTensor: ...
    def __call__(self, input: _AnyTensor) -> _AnyTensor: ...

class LayerNorm(Module, Generic[_E]):
    normalized_shape: tuple[int, ...]
    def __init__(
        self, normalized_shape: _E, eps: float = 1e-5, elementwise_affine: bool = True, bias: bool = True,
        *, device: Any = None, dtype: Any = None,
    ) -> None: ...
    def forward(self, input: _AnyTensor) -> _AnyTensor: ...
    def __call__(self, input: _AnyTensor) -> _AnyTensor: ...

class Embedding(Module, Generic[_V, _E]):
    num_embeddings: _V
    embedding_dim: _E
    weight: Parameter[_V, _E]
    def __init__(
        self, num_embeddings: _V, embedding_dim: _E, padding_idx: int | None = None, max_norm: float | None = None,
        *, device: Any = None, dtype: Any = None,
    ) -> None: ...
    def forward(self, input: Tensor[Unpack[_Bs]]) -> Tensor[Unpack[_Bs], _E]: ...
    def __call__(self, input: Tensor[Unpack[_Bs]]) -> Tensor[Unpack[_Bs], _E]: ...

class _ShapePreserving(Module):
    def forward(self, input: Tensor[Unpack[Shape]]) -> Tensor[Unpack[Shape]]: ...
    def __call__(self, input: Tensor[Unpack[Shape]]) -> Tensor[Unpack[Shape]]: ...

class ReLU(_ShapePreserving):
    def __init__(self, inplace: bool = False) -> None: ...

class GELU(_ShapePreserving):
    def __init__(self, approximate: str = "none") -> None: ...

class Tanh(_ShapePreserving):
    def __init__(self) -> None: ...

class Sigmoid(_ShapePreserving):
    def __init__(self) -> None: ...

class SiLU(_ShapePreserving):
    def __init__(self, inplace: bool = False) -> None: ...

class Identity(_ShapePreserving):
    def __init__(self, *args: Any, **kwargs: Any) -> None: ...

class Dropout(_ShapePreserving):
    p: float
    def __init__(self, p: float = 0.5, inplace: bool = False) -> None: ...

class Dropout2d(_ShapePreserving):
    p: float
    def __init__(self, p: float = 0.5, inplace: bool = False) -> None: ...

class LeakyReLU(_ShapePreserving):
    def __init__(self, negative_slope: float = 0.01, inplace: bool = False) -> None: ...

class Softplus(_ShapePreserving):
    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None: ...

class Softmax(_ShapePreserving):
    def __init__(self, dim: int | None = None) -> None: ...

class LogSoftmax(_ShapePreserving):
    def __init__(self, dim: int | None = None) -> None: ...

class Flatten(Module):
    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None: ...
    def forward(self, input: _AnyTensor) -> _AnyTensor: ...
    def __call__(self, input: _AnyTensor) -> _AnyTensor: ...

class MultiheadAttention(Module, Generic[_E]):
    embed_dim: _E
    num_heads: int
    def __init__(
        self,
        embed_dim: _E,
        num_heads: int,
        dropout: float = 0.0,
        bias: bool = True,
        add_bias_kv: bool = False,
        add_zero_attn: bool = False,
        kdim: int | None = None,
        vdim: int | None = None,
        batch_first: bool = False,
        *,
        device: Any = None,
        dtype: Any = None,
    ) -> None: ...
    def forward(
        self,
        query: _AnyTensor,
        key: _AnyTensor,
        value: _AnyTensor,
        key_padding_mask: _AnyTensor | None = None,
        need_weights: bool = True,
        attn_mask: _AnyTensor | None = None,
        average_attn_weights: bool = True,
        is_causal: bool = False,
    ) -> tuple[_AnyTensor, _AnyTensor | None]: ...
    def __call__(
        self,
        query: _AnyTensor,
        key: _AnyTensor,
        value: _AnyTensor,
        key_padding_mask: _AnyTensor | None = None,
        need_weights: bool = True,
        attn_mask: _AnyTensor | None = None,
        average_attn_weights: bool = True,
        is_causal: bool = False,
    ) -> tuple[_AnyTensor, _AnyTensor | None]: ...

class _Loss(Module):
    def forward(self, input: _AnyTensor, target: _AnyTensor) -> _AnyTensor: ...
    def __call__(self, input: _AnyTensor, target: _AnyTensor) -> _AnyTensor: ...

class CrossEntropyLoss(_Loss):
    def __init__(
        self, weight: _AnyTensor | None = None, size_average: Any = None, ignore_index: int = -100,
        reduce: Any = None, reduction: str = "mean", label_smoothing: float = 0.0,
    ) -> None: ...

class NLLLoss(_Loss):
    def __init__(
        self, weight: _AnyTensor | None = None, size_average: Any = None, ignore_index: int = -100,
        reduce: Any = None, reduction: str = "mean",
    ) -> None: ...

class MSELoss(_Loss):
    def __init__(self, size_average: Any = None, reduce: Any = None, reduction: str = "mean") -> None: ...

class L1Loss(_Loss):
    def __init__(self, size_average: Any = None, reduce: Any = None, reduction: str = "mean") -> None: ...

class BCELoss(_Loss):
    def __init__(
        self, weight: _AnyTensor | None = None, size_average: Any = None, reduce: Any = None, reduction: str = "mean",
    ) -> None: ...

class BCEWithLogitsLoss(_Loss):
    def __init__(
        self, weight: _AnyTensor | None = None, size_average: Any = None, reduce: Any = None,
        reduction: str = "mean", pos_weight: _AnyTensor | None = None,
    ) -> None: ...

class Sequential(Module):
    def __init__(self, *modules: Module) -> None: ...
    def forward(self, input: _AnyTensor) -> _AnyTensor: ...
    def __call__(self, input: _AnyTensor) -> _AnyTensor: ...
    def __getitem__(self, index: int) -> Module: ...
    def __len__(self) -> int: ...
    def __iter__(self) -> Iterator[Module]: ...

class ModuleList(Module):
    def __init__(self, modules: Iterable[Module] | None = None) -> None: ...
    def __getitem__(self, index: int) -> Module: ...
    def __len__(self) -> int: ...
    def __iter__(self) -> Iterator[Module]: ...
    def append(self, module: Module) -> None: ...
