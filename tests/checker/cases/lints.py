# Lints beyond shape equality (NOTE [ Layout lints ] in typedtensor/shapes/layout.py): each has its own
# code, off with `disable = ["view-noncontiguous"]` / `--disable squeeze-no-dim`.
from typing import Literal

import typedtensor as tt
from typedtensor import Dim, Tensor


class Batch(Dim): ...
class Seq(Dim): ...
class Model(Dim): ...


def merge_heads(y: Tensor[Batch, Literal[4], Seq, Model]) -> None:
    b, h, t, d = y.shape
    y.transpose(1, 2).view(b, t, h * d)  # E: view-noncontiguous
    y.transpose(1, 2).contiguous().view(b, t, h * d)  # ok
    y.transpose(1, 2).reshape(b, t, h * d)  # ok
    y.transpose(1, 2).view(b, t, h, d)  # ok (the same shape: nothing merged)
    y.permute(0, 2, 1, 3).view(b, t, -1)  # E: view-noncontiguous
    y.view(b, h * t, d)  # ok (contiguous)


def transposes(x: Tensor[Batch, Model], s: Tensor[Batch, Seq, Model]) -> None:
    x.t().view(-1)  # E: view-noncontiguous
    x.T.view(-1)  # E: view-noncontiguous
    s.mT.view(s.shape[0], -1)  # E: view-noncontiguous
    x.t().t().view(-1)  # ok (transposed back)
    x.unsqueeze(1).view(x.shape[0], -1)  # ok
    x.unsqueeze(0).expand(3, -1, -1).view(-1)  # E: view-noncontiguous
    (x.t() * 2).view(-1)  # ok (an elementwise result's layout is not followed)


def squeezes(p: Tensor[Batch, Model, Literal[1]], q: Tensor[Literal[2], Literal[1]]) -> None:
    p.squeeze()  # E: squeeze-no-dim
    tt.squeeze(p)  # E: squeeze-no-dim
    p.squeeze(-1)  # ok
    p.squeeze(2)  # ok
    q.squeeze()  # ok (no symbolic dim)
