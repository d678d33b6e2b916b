# Indexing with a tensor (NOTE [ Index tensors ] in mypy_plugin/index_kind.py): integer indices
# put their shape in place of the indexed dim, a boolean mask leaves one dim of unknown length.
# The dtype is read from the expression that made the index; where nothing says it, the result is
# unknown.
from typing import Literal

import typedtensor as tt
from typedtensor import Dim, Tensor


class Batch(Dim): ...
class Seq(Dim): ...
class Model(Dim): ...
class Vocab(Dim): ...


def integer_indices(x: Tensor[Batch, Seq, Model], logits: Tensor[Batch, Vocab], table: Tensor[Vocab, Model], y: Tensor[Batch]) -> None:
    pred = logits.argmax(-1)
    reveal_type(table[pred])  # R: Tensor[Batch, Model]
    reveal_type(table[logits.argmax(dim=1)])  # R: Tensor[Batch, Model]
    _, top = logits.max(1)
    reveal_type(table[top])  # R: Tensor[Batch, Model]
    reveal_type(table[logits.max(dim=1).indices])  # R: Tensor[Batch, Model]
    reveal_type(table[y.long()])  # R: Tensor[Batch, Model]
    reveal_type(table[y.to(tt.int64)])  # R: Tensor[Batch, Model]
    reveal_type(x[:, tt.arange(4)])  # R: Tensor[Batch, Literal[4], Model]
    reveal_type(x[[0, 2]])  # R: Tensor[Literal[2], Seq, Model]
    rows = tt.arange(x.shape[0])
    reveal_type(logits[rows, pred])  # R: Tensor[Batch]
    logits[tt.arange(8), table.argmax(-1)]  # E: shape-broadcast
    flat = pred.view(-1) + 1
    reveal_type(table[flat])  # R: Tensor[Batch, Model]


def boolean_masks(x: Tensor[Batch, Seq, Model], s: Tensor[Batch, Seq]) -> None:
    reveal_type(x[s > 0])  # R: Tensor[Any, Model]
    keep = (s > 0) & (s < 5)
    reveal_type(x[keep])  # R: Tensor[Any, Model]
    reveal_type(x[~keep])  # R: Tensor[Any, Model]
    x[s.transpose(0, 1) > 0]  # E: shape-axis


def unknown_dtype(x: Tensor[Batch, Seq, Model], idx: Tensor[Batch], flag: bool) -> None:
    reveal_type(x[idx])  # R: Tensor[*tuple[Any, ...]]
    mixed = idx > 0
    if flag:
        mixed = idx.long()
    reveal_type(x[mixed])  # R: Tensor[*tuple[Any, ...]]
