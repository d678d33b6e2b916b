# Sizes and operands the program states where mypy's types lose them: a local bound once (NOTE
# [ Names bound once ] in mypy_plugin/local_names.py), `x.size(1)`, `n ** 2`, a plain `int`
# operand of an elementwise op (a number, not an unknown), lists of unknown length, and a
# configuration object's literal defaults.
from dataclasses import dataclass
from typing import Literal

import typedtensor as tt
from typedtensor import Dim, Tensor


class Batch(Dim): ...
class Seq(Dim): ...
class H(Dim): ...


def literals(u: Tensor[Literal[60], Literal[60]], s: Tensor[Literal[60], Literal[40]]) -> None:
    r = 5
    reveal_type(u[:, :r])  # R: Tensor[Literal[60], Literal[5]]
    u[:, :r] * s[:r, :r]  # E: shape-broadcast
    side = (224 // 4) ** 2
    reveal_type(tt.zeros(1, side, 8))  # R: Tensor[Literal[1], Literal[3136], Literal[8]]
    k = 3
    k = 4  # re-bound in straight-line code: the last value before the read
    reveal_type(u[:k])  # R: Tensor[Literal[4], Literal[60]]
    m = 3
    if k > r:
        m = 4  # bound in a branch: mypy's `int`, an unknown size
    reveal_type(u[:m])  # R: Tensor[Any, Literal[60]]
    for j in range(3):
        reveal_type(u[:j])  # R: Tensor[Any, Literal[60]]


def sizes(x: Tensor[Batch, Seq, Literal[32]], n: int, h: H) -> None:
    reveal_type(x.size(1))  # R: Seq
    reveal_type(x.size(-1))  # R: Literal[32]?
    reveal_type(x.view(x.size(0), -1))  # R: Tensor[Batch, Mul[Literal[32], Seq]]
    reveal_type(h ** 2)  # R: Mul[H, H]
    reveal_type(n ** 2)  # R: int
    reveal_type(x * n)  # R: Tensor[Batch, Seq, Literal[32]]
    reveal_type(x < n)  # R: Tensor[Batch, Seq, Literal[32]]
    reveal_type(x.masked_fill(x > n, n))  # R: Tensor[Batch, Seq, Literal[32]]


def lists(a: Tensor[Batch, Literal[128]], b: Tensor[Batch, Literal[256]], c: Tensor[Batch, Literal[128]]) -> None:
    feats = [a, b]
    tt.stack(feats, dim=1)  # E: shape-concat
    same = (a, c)
    reveal_type(tt.stack(same, dim=1))  # R: Tensor[Batch, Literal[2], Literal[128]]
    grown = [a]
    grown.append(c)  # changed after it was bound: its length is not known, its element type is mypy's
    reveal_type(tt.stack(grown, dim=1))  # R: Tensor[Batch, Any, Literal[128]]


def comprehensions(x: Tensor[Batch, Literal[32]], xs: list[Tensor[Batch, Literal[32]]]) -> None:
    """Lists of unknown length (NOTE [ Sequences of unknown length ] in mypy_plugin/ops.py)."""
    pieces = [x + i for i in range(3)]
    reveal_type(tt.cat(pieces, dim=1))  # R: Tensor[Batch, Any]
    reveal_type(tt.stack(pieces, dim=1))  # R: Tensor[Batch, Any, Literal[32]]
    tt.cat([x + i for i in range(2)], dim=2)  # E: shape-axis
    reveal_type(tt.cat(xs))  # R: Tensor[Any, Literal[32]]
    reveal_type(tt.stack([x.unsqueeze(1) for _ in range(2)], dim=0))  # R: Tensor[Any, Batch, Literal[1], Literal[32]]
    tt.cat([x, *xs], dim=1)


@dataclass
class Config:
    """NOTE [ Configuration defaults ] in mypy_plugin/members.py: a field's literal default is read."""

    seq_len: int = 96
    pred_len: int = 72
    dropout: float = 0.1
    width: int = 8

    def widen(self) -> None:
        self.width = 16  # assigned by a method: not read as its default


class Patches:
    image_size: int = 224
    patch: int = 16


def configs(cfg: Config, p: Patches, x: Tensor[Batch, Literal[168], Literal[4]]) -> None:
    reveal_type(cfg.pred_len)  # R: Literal[72]?
    reveal_type(x[:, -cfg.pred_len:, :])  # R: Tensor[Batch, Literal[72], Literal[4]]
    reveal_type(tt.zeros(cfg.seq_len, cfg.width))  # R: Tensor[Literal[96], Any]
    reveal_type((p.image_size // p.patch) ** 2)  # R: Literal[196]?
    grid = p.image_size // p.patch
    reveal_type(tt.zeros(1, grid * grid + 1, 64))  # R: Tensor[Literal[1], Literal[197], Literal[64]]
    reveal_type(cfg.dropout)  # R: float
