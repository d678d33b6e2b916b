# mypy: allow-redefinition
# Lints beyond shape equality, with the checker's codes (NOTE [ Layout lints ] in
# typedtensor/shapes/layout.py; NOTE [ Layouts in the plugin ] in mypy_plugin/lints.py): each its
# own error code, off with `--disable-error-code view-noncontiguous` / `squeeze-no-dim`.
from typing import Literal

import typedtensor as tt
from typedtensor import Dim, Tensor, nn


class Batch(Dim): ...
class Seq(Dim): ...
class Model(Dim): ...


def merge_heads(y: Tensor[Batch, Literal[4], Seq, Model]) -> None:
    b, h, t, d = y.shape
    y.transpose(1, 2).view(b, t, h * d)  # E: view-noncontiguous  # M: call .contiguous() first, or use reshape
    y.transpose(1, 2).contiguous().view(b, t, h * d)
    y.transpose(1, 2).reshape(b, t, h * d)
    y.transpose(1, 2).view(b, t, h, d)  # the same shape: nothing merged
    y.permute(0, 2, 1, 3).view(b, t, -1)  # E: view-noncontiguous
    y.view(b, h * t, d)  # a parameter is assumed contiguous


def transposes(x: Tensor[Batch, Model], s: Tensor[Batch, Seq, Model]) -> None:
    x.t().view(-1)  # E: view-noncontiguous
    x.T.view(-1)  # E: view-noncontiguous
    s.mT.view(s.shape[0], -1)  # E: view-noncontiguous
    x.t().t().view(-1)  # transposed back
    x.unsqueeze(1).view(x.shape[0], -1)
    x.unsqueeze(0).expand(3, -1, -1).view(-1)  # E: view-noncontiguous
    (x.t() * 2).view(-1)  # an elementwise result's layout is not followed


def through_names(a: Tensor[Batch, Model, Seq], q: Tensor[Batch, Seq, Model], flag: bool) -> None:
    x = a.permute(0, 2, 1)
    x.view(x.size(0), -1)  # E: view-noncontiguous
    y = q @ q.transpose(1, 2)
    y = y.transpose(1, 2)  # re-bound in straight-line code: the last value before the read
    y.view(-1)  # E: view-noncontiguous
    z = q.transpose(1, 2)
    if flag:
        z = z.contiguous()
    z.view(-1)  # bound in a branch: not known, not reported
    a = a.transpose(1, 2)
    a.view(-1)  # E: view-noncontiguous
    fc = nn.Linear(Model(4), Model(4))
    fc(q).view(-1)  # a module's output is contiguous


def squeezes(p: Tensor[Batch, Model, Literal[1]], q: Tensor[Literal[2], Literal[1]]) -> None:
    p.squeeze()  # E: squeeze-no-dim  # M: squeeze() without a dim on shape [Batch, Model, 1]
    tt.squeeze(p)  # E: squeeze-no-dim
    p.squeeze(-1)
    p.squeeze(dim=2)
    q.squeeze()  # no symbolic dim
    p.squeeze()  # typedtensor: ignore[squeeze-no-dim]
