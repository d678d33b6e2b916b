"""The MNIST convolutional network of PyTorch's examples, annotated with jaxtyping, with its
training and test steps.

Ported from https://github.com/pytorch/examples (mnist/main.py).
"""

import torch
import torch.nn.functional as F
from jaxtyping import Float, Int
from torch import Tensor, nn, optim
from torch.utils.data import DataLoader, TensorDataset


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(1, 32, 3, 1)
        self.conv2 = nn.Conv2d(32, 64, 3, 1)
        self.dropout1 = nn.Dropout(0.25)
        self.dropout2 = nn.Dropout(0.5)
        self.fc1 = nn.Linear(9216, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x: Float[Tensor, "batch 1 28 28"]) -> Float[Tensor, "batch 10"]:
        x = self.conv1(x)
        x = F.relu(x)
        x = self.conv2(x)
        x = F.relu(x)
        x = F.max_pool2d(x, 2)
        x = self.dropout1(x)
        x = torch.flatten(x, 1)
        x = self.fc1(x)
        x = F.relu(x)
        x = self.dropout2(x)
        x = self.fc2(x)
        return F.log_softmax(x, dim=1)


def train_step(model: Net, optimizer: optim.Optimizer, data: Float[Tensor, "batch 1 28 28"],
               target: Int[Tensor, "batch"]) -> float:
    optimizer.zero_grad()
    output = model(data)
    loss = F.nll_loss(output, target)
    loss.backward()
    optimizer.step()
    return loss.item()


def accuracy(model: Net, data: Float[Tensor, "batch 1 28 28"], target: Int[Tensor, "batch"]) -> float:
    with torch.no_grad():
        output = model(data)
        pred = output.argmax(dim=1, keepdim=True)
        correct = pred.eq(target.view_as(pred)).sum().item()
    return correct / data.size(0)


def main() -> None:
    model = Net()
    optimizer = optim.Adadelta(model.parameters(), lr=1.0)
    images = torch.randn(64, 1, 28, 28)
    labels = torch.randint(0, 10, (64,))
    loader = DataLoader(TensorDataset(images, labels), batch_size=16, shuffle=True)
    model.train()
    for data, target in loader:
        train_step(model, optimizer, data, target)
    model.eval()
    accuracy(model, images, labels)
