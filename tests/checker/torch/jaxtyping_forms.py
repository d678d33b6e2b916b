# jaxtyping's shape strings (NOTE [ jaxtyping annotations ] in checker/jaxtyping.py): each form
# jaxtyping 0.3 accepts, read as the shape it declares inside the annotated function.
import numpy as np
import torch
from jaxtyping import Bool, Float, Float32, Int, Int64, Integer, Num, Shaped
from torch import Tensor

Image = Float[Tensor, "channels height width"]


def names(x: Float[Tensor, "batch seq dim"], m: Bool[Tensor, "batch seq"]) -> None:
    reveal_shape(x)  # N: Tensor[batch, seq, dim]
    reveal_shape(m)  # N: Tensor[batch, seq]
    reveal_shape(x.masked_fill(m.unsqueeze(-1), 0.0))  # N: Tensor[batch, seq, dim]
    x.masked_fill(m, 0.0)  # E: shape-broadcast


def fixed(x: Float[Tensor, "b 3 28 28"], y: Shaped[Tensor, "rows=4 cols=b"]) -> None:
    reveal_shape(x)  # N: Tensor[b, 3, 28, 28]
    reveal_shape(y)  # N: Tensor[4, b]


def expressions(x: Float[Tensor, "n d"], y: Float[Tensor, "n-1 2*d"], z: Float[Tensor, "(d//2)+1"]) -> None:
    reveal_shape(y)  # N: Tensor[n - 1, 2*d]
    reveal_shape(torch.cat([x, x], dim=1)[1:] + y)  # N: Tensor[n - 1, 2*d]
    x[1:] + y  # E: shape-broadcast
    reveal_shape(z)  # N: Tensor[(d)//(2) + 1]


def runs(x: Float[Tensor, "*batch c"], y: Float[Tensor, "... c"], z: Float[Tensor, "*_ c"]) -> None:
    reveal_shape(x)  # N: Tensor[*batch, c]
    reveal_shape(y)  # N: Tensor[..., c]
    reveal_shape(z)  # N: Tensor[..., c]
    reveal_shape(x.sum(-1))  # N: Tensor[*batch]


def anonymous(x: Float[Tensor, "b _ _w"], y: Float[Tensor, "#b c"], t: Float[Tensor, "?n"]) -> None:
    reveal_shape(x)  # N: Tensor[b, ?, ?]
    reveal_shape(y)  # N: Tensor[?, c]
    reveal_shape(t)  # N: Tensor[?]


def scalar(loss: Float[Tensor, ""], k: Int[Tensor, "b"], i: Int64[Tensor, "b k"], n: Num[Tensor, "b"]) -> None:
    reveal_shape(loss)  # N: Tensor[]
    reveal_shape(k)  # N: Tensor[b]
    reveal_shape(i + n.unsqueeze(1))  # N: Tensor[b, k]


def nested(img: Image, batch: Float[Image, "batch"], many: Integer[Float32[Tensor, "h w"], "*views"]) -> None:
    reveal_shape(img)  # N: Tensor[channels, height, width]
    reveal_shape(batch)  # N: Tensor[batch, channels, height, width]
    reveal_shape(many)  # N: Tensor[*views, h, w]


def not_read(a: Float[Tensor, "b (h d)"], b: Float[Tensor, "*a *b"], c: Float[np.ndarray, "n"],
             d: Float[Tensor, "{size}"], e: Float[Tensor, "min(a,b)"], f: Float[Tensor, "a/2"]) -> None:
    reveal_shape(a)  # N: Tensor[?]
    reveal_shape(b)  # N: Tensor[?]
    reveal_shape(c)  # N: ?
    reveal_shape(d)  # N: Tensor[?]
    reveal_shape(e)  # N: Tensor[?]
    reveal_shape(f)  # N: Tensor[?]
