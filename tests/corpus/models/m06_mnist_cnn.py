"""The PyTorch MNIST example's network and training loop, with the idiomatic forward that re-binds
one name at every layer.

Ported from the structure of https://github.com/pytorch/examples (mnist/main.py).
"""

from __future__ import annotations

from typing import Literal

import typedtensor as tt
from typedtensor import Dim, Tensor, nn
from typedtensor.nn import functional as F


class Batch(Dim):
    "images in one minibatch"


Side = Literal[28]


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(1, 32, 3, 1)
        self.conv2 = nn.Conv2d(32, 64, 3, 1)
        self.dropout1 = nn.Dropout(0.25)
        self.dropout2 = nn.Dropout(0.5)
        self.fc1 = nn.Linear(9216, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x: Tensor[Batch, Literal[1], Side, Side]) -> Tensor[Batch, Literal[10]]:
        x = self.conv1(x)
        x = F.relu(x)
        x = self.conv2(x)
        x = F.relu(x)
        x = F.max_pool2d(x, 2)
        x = self.dropout1(x)
        x = tt.flatten(x, 1)
        x = self.fc1(x)
        x = F.relu(x)
        x = self.dropout2(x)
        x = self.fc2(x)
        output = F.log_softmax(x, dim=1)
        return output


def train(model: Net, optimizer: tt.optim.Optimizer, batches: list[tuple[Tensor[Batch, Literal[1], Side, Side], Tensor[Batch]]]) -> float:
    model.train()
    last = 0.0
    for data, target in batches:
        optimizer.zero_grad()
        output = model(data)
        loss = F.nll_loss(output, target)
        loss.backward()
        optimizer.step()
        last = loss.item()
    return last


def test(model: Net, batches: list[tuple[Tensor[Batch, Literal[1], Side, Side], Tensor[Batch]]]) -> tuple[float, int]:
    model.eval()
    test_loss = 0.0
    correct = 0
    with tt.no_grad():
        for data, target in batches:
            output = model(data)
            test_loss += F.nll_loss(output, target, reduction="sum").item()
            pred = output.argmax(dim=1, keepdim=True)
            correct += int(pred.eq(target.view_as(pred)).sum().item())
    return test_loss, correct


def confusion_matrix(model: Net, data: Tensor[Batch, Literal[1], Side, Side], target: Tensor[Batch]) -> Tensor[Literal[10], Literal[10]]:
    """Counts of (true class, predicted class) pairs, built from one-hot rows."""
    with tt.no_grad():
        predicted = model(data).argmax(dim=1)
    true_rows = F.one_hot(target, 10).float()
    predicted_rows = F.one_hot(predicted, 10).float()
    return true_rows.t() @ predicted_rows


def per_class_accuracy(matrix: Tensor[Literal[10], Literal[10]]) -> Tensor[Literal[10]]:
    correct = matrix.diagonal()
    totals = matrix.sum(dim=1).clamp(min=1.0)
    return correct / totals


def normalize(images: Tensor[Batch, Literal[1], Side, Side]) -> Tensor[Batch, Literal[1], Side, Side]:
    return (images - 0.1307) / 0.3081


def main() -> None:
    model = Net()
    optimizer = tt.optim.Adadelta(model.parameters(), lr=1.0)
    batches = [(tt.randn(Batch(4), 1, 28, 28), tt.randint(0, 10, (Batch(4),))) for _ in range(2)]
    train(model, optimizer, batches)
    test(model, batches)
    images = normalize(tt.rand(Batch(8), 1, 28, 28))
    matrix = confusion_matrix(model, images, tt.randint(0, 10, (Batch(8),)))
    per_class_accuracy(matrix)
