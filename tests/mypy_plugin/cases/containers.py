# nn.Sequential is typed by its layers and calls them in turn; ModuleList is typed by its
# elements; iterating a tensor gives its rows (x[0]'s shape). Both tools agree on every line.
from collections import OrderedDict
from typing import Any, Literal

import typedtensor as tt
from typedtensor import Dim, Tensor, nn


class Batch(Dim): ...
class C(Dim): ...
class Hidden(Dim): ...


class Block(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(Hidden(8), Hidden(8))

    def forward(self, x: Tensor[Batch, Hidden]) -> Tensor[Batch, Hidden]:
        return x + self.fc(x)


def sequential(x: Tensor[Batch, C], h: Tensor[Batch, Hidden]) -> None:
    seq = nn.Sequential(nn.Linear(C(3), Hidden(8)), nn.ReLU(), nn.Linear(Hidden(8), C(3)))
    reveal_type(seq(x))  # R: Tensor[Batch, C]
    seq(h)  # E: shape-arg
    nested = nn.Sequential(seq, nn.Linear(C(3), Hidden(8)), Block())
    reveal_type(nested(x))  # R: Tensor[Batch, Hidden]
    nested.forward(h)  # E: shape-arg
    user = nn.Sequential(Block(), Block())
    reveal_type(user(h))  # R: Tensor[Batch, Hidden]
    user(x)  # E: shape-arg
    late = nn.Sequential(nn.Linear(C(3), Hidden(8)), Block(), nn.Linear(C(3), Hidden(8)))
    late(x)  # E: shape-arg
    empty = nn.Sequential()
    reveal_type(empty(x))  # R: Tensor[*tuple[Any, ...]]
    seq[0](h)  # E: shape-arg
    reveal_type(seq[1:](h))  # R: Tensor[Batch, C]
    seq[-1](x)  # E: shape-arg
    reveal_type(seq[::2])  # R: Sequential[Linear[C, Hidden], Linear[Hidden, C]]
    convs = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))
    reveal_type(convs(tt.rand(4, 3, 16, 16)))  # R: Tensor[Literal[4], Literal[8], Literal[8], Literal[8]]
    convs(tt.rand(4, 8, 16, 16))  # E: shape-arg
    # built from named layers, as torchvision's VisionTransformer builds its heads: layers not known
    named = nn.Sequential(OrderedDict([("fc", nn.Linear(C(3), Hidden(8))), ("act", nn.ReLU())]))
    reveal_type(named(x))  # R: Tensor[*tuple[Any, ...]]


class FrozenNorm(nn.Module):
    # a layer reading an older checkpoint layout, as torchvision's FrozenBatchNorm2d does
    def _load_from_state_dict(
        self, state_dict: dict[str, Any], prefix: str, local_metadata: dict[str, Any], strict: bool,
        missing_keys: list[str], unexpected_keys: list[str], error_msgs: list[str],
    ) -> None:
        state_dict.pop(prefix + "num_batches_tracked", None)
        super()._load_from_state_dict(
            state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
        )


def layer_attributes() -> float:
    # what torchvision reads back from its layers (ViT's stem init, ConvNeXt's LayerNorm2d)
    conv = nn.Conv2d(3, 8, 3)
    fan_in = conv.in_channels * conv.kernel_size[0] * conv.kernel_size[1] * conv.groups
    norm = nn.LayerNorm(8)
    y = nn.functional.layer_norm(tt.rand(2, 8), norm.normalized_shape, norm.weight, norm.bias, norm.eps)
    return fan_in * norm.eps * float(y.sum()) if norm.elementwise_affine else 0.0


def module_list(x: Tensor[Batch, C], h: Tensor[Batch, Hidden]) -> Tensor[Batch, Hidden]:
    layers = nn.ModuleList([nn.Linear(Hidden(8), Hidden(8)) for _ in range(3)])
    for layer in layers:
        h = layer(h)
        layer(x)  # E: shape-arg
    reveal_type(layers[0](h))  # R: Tensor[Batch, Hidden]
    blocks = nn.ModuleList([Block() for _ in range(2)])
    for block in blocks:
        block(x)  # E: shape-arg
        h = block(h)
    mixed = nn.ModuleList([nn.Linear(C(3), Hidden(8)), nn.Linear(Hidden(8), Hidden(8))])
    for m in mixed:
        m(x)
    return h


def rows(x: Tensor[Batch, C, Hidden], w: Tensor[Hidden, C], v: Tensor[C, C]) -> None:
    for row in x:
        reveal_type(row)  # R: Tensor[C, Hidden]
        reveal_type(row @ w)  # R: Tensor[C, C]
        row @ v  # E: shape-matmul
    for item in tt.rand(5):
        reveal_type(item)  # R: Tensor[()]
    for pair in tt.rand(5, 2):
        reveal_type(pair)  # R: Tensor[Literal[2]]
        pair @ v  # E: shape-matmul
