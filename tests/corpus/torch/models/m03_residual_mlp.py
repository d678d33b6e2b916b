"""A residual MLP classifier for tabular data: an input projection, pre-norm residual blocks with
dropout, a classification head, label smoothing and a mixup step.

Written in the style of the residual MLPs of https://github.com/yandex-research/rtdl (rtdl's
``ResNet`` for tabular data), annotated with jaxtyping.
"""

import torch
import torch.nn.functional as F
from jaxtyping import Float, Int
from torch import Tensor, nn


class ResidualBlock(nn.Module):
    def __init__(self, dim: int, hidden: int, dropout: float) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, hidden)
        self.fc2 = nn.Linear(hidden, dim)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: Float[Tensor, "batch dim"]) -> Float[Tensor, "batch dim"]:
        h = self.norm(x)
        h = self.dropout(F.relu(self.fc1(h)))
        return x + self.dropout(self.fc2(h))


class ResidualMLP(nn.Module):
    def __init__(self, d_in: int, dim: int, hidden: int, n_blocks: int, n_classes: int, dropout: float = 0.1) -> None:
        super().__init__()
        self.proj = nn.Linear(d_in, dim)
        self.blocks = nn.ModuleList([ResidualBlock(dim, hidden, dropout) for _ in range(n_blocks)])
        self.head = nn.Sequential(nn.LayerNorm(dim), nn.ReLU(), nn.Linear(dim, n_classes))

    def forward(self, x: Float[Tensor, "batch features"]) -> Float[Tensor, "batch classes"]:
        h = self.proj(x)
        for block in self.blocks:
            h = block(h)
        return self.head(h)


def mixup(x: Float[Tensor, "batch features"], y: Float[Tensor, "batch classes"],
          lam: float) -> tuple[Float[Tensor, "batch features"], Float[Tensor, "batch classes"]]:
    perm = torch.randperm(x.size(0))
    return lam * x + (1 - lam) * x[perm], lam * y + (1 - lam) * y[perm]


def smoothed_targets(labels: Int[Tensor, "batch"], n_classes: int, eps: float) -> Float[Tensor, "batch classes"]:
    one_hot = F.one_hot(labels, n_classes).float()
    return one_hot * (1 - eps) + eps / n_classes


def loss_fn(logits: Float[Tensor, "batch classes"], soft: Float[Tensor, "batch classes"]) -> Float[Tensor, ""]:
    return -(soft * F.log_softmax(logits, dim=-1)).sum(dim=-1).mean()


def main() -> None:
    model = ResidualMLP(d_in=12, dim=32, hidden=64, n_blocks=3, n_classes=5)
    x = torch.randn(16, 12)
    labels = torch.randint(0, 5, (16,))
    soft = smoothed_targets(labels, 5, 0.1)
    xm, ym = mixup(x, soft, 0.7)
    loss = loss_fn(model(xm), ym)
    loss.backward()
