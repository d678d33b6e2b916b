# jaxtyping axis names are variables of the function whose annotations name them (NOTE [ Axis
# names ] in typedtensor/shapes/dims.py): bound per call, consistently, like TypeVars; unrelated
# between functions and methods; unknown sizes in module-level and attribute annotations.
import torch
import torch.nn as nn
from jaxtyping import Bool, Float, Int, jaxtyped
from beartype import beartype
from torch import Tensor


def matmul(x: Float[Tensor, "b n"], w: Float[Tensor, "m n"]) -> Float[Tensor, "b m"]:
    return x @ w.T  # ok


def matmul_wrong(x: Float[Tensor, "b n"], w: Float[Tensor, "m n"]) -> Float[Tensor, "b m"]:
    return x @ w  # E: shape-matmul


def returns_wrong(x: Float[Tensor, "b n"]) -> Float[Tensor, "n b"]:
    return x  # E: shape-return


def local_annotation(x: Float[Tensor, "b n"]) -> None:
    h: Float[Tensor, "b n"] = x * 2  # ok
    g: Float[Tensor, "n b"] = x  # E: shape-assign


def annotated_intermediate(q: Float[Tensor, "b t d"], mask: Bool[Tensor, "b t t"], n_head: int) -> None:
    qh = q.view(q.size(0), q.size(1), n_head, -1).transpose(1, 2)
    reveal_shape(qh @ qh.transpose(-2, -1))  # N: Tensor[b, ?, t, t]
    scores: Float[Tensor, "b h t t"] = qh @ qh.transpose(-2, -1)  # ok: the annotation names the heads
    reveal_shape(scores)  # N: Tensor[b, h, t, t]
    scores.masked_fill(mask, 0.0)  # E: shape-broadcast
    reveal_shape(scores.masked_fill(mask.unsqueeze(1), 0.0))  # N: Tensor[b, h, t, t]


def literal_may_equal_a_name(x: Float[Tensor, "b d"]) -> Float[Tensor, "b 10"]:
    fc = nn.Linear(784, 10)
    y = fc(x)  # ok: d may be 784 (the caller's tensor decides)
    x + torch.zeros(5, 784)  # ok: b may be 5
    reveal_shape(y)  # N: Tensor[b, 10]
    return y  # ok


def calls() -> None:
    x = torch.randn(4, 7)
    reveal_shape(matmul(x, torch.randn(3, 7)))  # N: Tensor[4, 3]
    matmul(x, torch.randn(3, 8))  # E: shape-arg
    reveal_shape(matmul(torch.randn(2, 5), torch.randn(6, 5)))  # N: Tensor[2, 6]


def caller(x: Float[Tensor, "n b"], w: Float[Tensor, "k b"]) -> Float[Tensor, "n k"]:
    return matmul(x, w)  # ok: matmul's b and n are its own, bound to this call's n and b


def caller_wrong(x: Float[Tensor, "n b"], w: Float[Tensor, "b k"]) -> None:
    matmul(x, w)  # E: shape-arg


class Block(nn.Module):
    # an attribute's axis names are no call's: unknown sizes (nothing from them is reported)
    scale: Float[Tensor, "d d"]

    def __init__(self, d_model: int, weight: Float[Tensor, "d e"]) -> None:
        super().__init__()
        self.proj = nn.Linear(d_model, d_model)
        self.weight = weight
        self.bias: Float[Tensor, "e"] = torch.zeros(d_model)

    @jaxtyped(typechecker=beartype)
    def forward(self, x: Float[Tensor, "b t e"]) -> Float[Tensor, "b t e"]:
        y = self.proj(x) @ self.weight  # ok: __init__'s d and e were another call's
        reveal_shape(self.weight)  # N: Tensor[?, ?]
        return y + self.bias  # ok

    def heads(self, x: Float[Tensor, "b t e"], n: int) -> Float[Tensor, "b h t e"]:
        return x.unsqueeze(1).expand(-1, n, -1, -1)  # ok

    def heads_wrong(self, x: Float[Tensor, "b t e"], n: int) -> Float[Tensor, "b h e t"]:
        return x.unsqueeze(1).expand(-1, n, -1, -1)  # E: shape-return

    def pool(self, x: Float[Tensor, "b t e"]) -> Float[Tensor, "b e"]:
        return self.forward(x).mean(dim=1)  # ok

    def pool_wrong(self, x: Float[Tensor, "b t e"]) -> Float[Tensor, "b t"]:
        return self.forward(x).mean(dim=1)  # E: shape-return


GLOBAL: Float[Tensor, "v d"] = torch.randn(100, 16)


def uses_global(x: Float[Tensor, "b e"]) -> None:
    reveal_shape(GLOBAL)  # N: Tensor[100, 16]
    x @ GLOBAL.T  # ok: a module-level annotation's names are no function's


def tokens(ids: Int[Tensor, "b t"], table: Float[Tensor, "v d"]) -> Float[Tensor, "b t d"]:
    return table[ids]  # ok


def tokens_wrong(ids: Int[Tensor, "b t"], table: Float[Tensor, "v d"]) -> Float[Tensor, "b d"]:
    return table[ids]  # E: shape-return


def local_names(resid: Float[Tensor, "batch pos d"], w: Float[Tensor, "h d e"]) -> Float[Tensor, "batch pos h e"]:
    # NOTE [ Local axis names ]: a name the signature does not mention names what the value holds
    q: Float[Tensor, "batch pos h e"] = torch.einsum("bpd,hde->bphe", resid, w)  # ok
    scores: Float[Tensor, "batch h query_pos key_pos"] = torch.einsum("bqhe,bkhe->bhqk", q, q)  # ok: both are pos
    reveal_shape(scores)  # N: Tensor[batch, h, pos, pos]
    later: Float[Tensor, "batch query_pos"] = resid[..., 0]  # ok: query_pos is pos from here on
    wrong: Float[Tensor, "batch query_pos"] = resid[:, 0, :]  # E: shape-assign
    width: Float[Tensor, "batch n_out"] = resid.sum(1) @ torch.randn(resid.size(-1), 7)  # ok
    reveal_shape(width)  # N: Tensor[batch, 7]
    width + torch.zeros(1, 7)  # ok
    flipped: Float[Tensor, "batch n_out"] = resid[..., 0].T  # E: shape-assign
    return torch.einsum("bhqk,bkhe->bqhe", scores.softmax(-1), q)  # ok


def return_only(x: Float[Tensor, "n *rest"]) -> Float[Tensor, "n *rest_out m"]:
    return x.flatten(1).unsqueeze(-1)  # ok: rest_out and m are bound by what is returned


def return_only_wrong(x: Float[Tensor, "n d"]) -> Float[Tensor, "d k"]:
    return x  # E: shape-return


def return_only_local(x: Float[Tensor, "n d"]) -> Float[Tensor, "n k"]:
    y: Float[Tensor, "n k"] = x * 2  # ok: k is d from here on
    return y.T  # E: shape-return
