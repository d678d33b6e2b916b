"""Train a small convolutional network on scikit-learn's bundled 8x8 digits (no download).

Images are ``Tensor[Batch, Channels, Height, Width]`` with ``Channels = Literal[1]`` and
``Height = Width = Literal[8]``; both checkers follow the sizes through the convolutions and the
pooling, so a wrong channel count or a flatten of the wrong size is an error before training.

    python examples/cnn_digits.py            # full run, >= 97% test accuracy
    python examples/cnn_digits.py --short    # a few seconds, for CI
"""

from __future__ import annotations

import argparse
import time
from typing import Literal

import numpy as np
from progress import ProgressBar
from sklearn.datasets import load_digits

import typedtensor as tt
from typedtensor import Dim, Tensor, nn
from typedtensor.data import DataLoader, TensorDataset


class Batch(Dim):
    "examples in one minibatch"


class Classes(Dim):
    "the ten digit classes"


Side = Literal[8]  # digits are 8x8 images with one channel
Half = Literal[4]  # after one 2x2 max-pool


class DigitCNN(nn.Module):
    """conv(1->16) -> conv(16->32) -> pool -> conv(32->64) -> global average -> linear."""

    def __init__(self, classes: Classes) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(16)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(32)
        self.pool = nn.MaxPool2d(2)
        self.conv3 = nn.Conv2d(32, 64, 3, padding=1)
        self.gap = nn.AdaptiveAvgPool2d(1)
        self.flatten = nn.Flatten()
        self.drop = nn.Dropout(0.2)
        self.head = nn.Linear(64, classes)

    def forward(self, x: Tensor[Batch, Literal[1], Side, Side]) -> Tensor[Batch, Classes]:
        h: Tensor[Batch, Literal[16], Side, Side] = tt.relu(self.bn1(self.conv1(x)))
        g: Tensor[Batch, Literal[32], Side, Side] = tt.relu(self.bn2(self.conv2(h)))
        p: Tensor[Batch, Literal[32], Half, Half] = self.pool(g)
        f: Tensor[Batch, Literal[64], Half, Half] = tt.relu(self.conv3(p))
        pooled: Tensor[Batch, Literal[64]] = self.flatten(self.gap(f))
        return self.head(self.drop(pooled))


def train_step(model: DigitCNN, opt: tt.optim.Optimizer, x: Tensor[Batch, Literal[1], Side, Side], y: Tensor[Batch]) -> float:
    opt.zero_grad()
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    return loss.item()


@tt.no_grad()
def accuracy(model: DigitCNN, x: Tensor[Batch, Literal[1], Side, Side], y: Tensor[Batch]) -> float:
    model.eval()
    predicted: Tensor[Batch] = model(x).argmax(1)
    model.train()
    return (predicted == y).float().mean().item()


def load(seed: int) -> tuple[Tensor[Batch, Literal[1], Side, Side], Tensor[Batch], Tensor[Batch, Literal[1], Side, Side], Tensor[Batch]]:
    """Digits scaled to [0, 1] as one-channel images, split 80/20 with a fixed permutation."""
    digits = load_digits()
    images = (np.asarray(digits.images, dtype=np.float32) / 16.0)[:, None, :, :]
    labels = np.asarray(digits.target, dtype=np.int64)
    order = np.random.default_rng(seed).permutation(len(labels))
    cut = int(0.8 * len(labels))
    train, test = order[:cut], order[cut:]
    return tt.tensor(images[train]), tt.tensor(labels[train]), tt.tensor(images[test]), tt.tensor(labels[test])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--short", action="store_true", help="a few epochs only (CI)")
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--device", default="cpu", help="cpu or cuda")
    parser.add_argument("--threads", type=int, default=1, help="a model this small gains little from more")
    args = parser.parse_args()
    tt.set_num_threads(args.threads)
    tt.manual_seed(args.seed)
    epochs = 1 if args.short else args.epochs
    x_train, y_train, x_test, y_test = load(args.seed)
    x_test, y_test = x_test.to(args.device), y_test.to(args.device)
    model = DigitCNN(Classes(10)).to(args.device)
    opt = tt.optim.Adam(model.parameters(), lr=3e-3)
    sched = tt.optim.lr_scheduler.StepLR(opt, step_size=max(epochs // 3, 1), gamma=0.3)
    loader = DataLoader(TensorDataset(x_train, y_train), batch_size=64, shuffle=True, seed=args.seed)
    start = time.perf_counter()
    bar = ProgressBar(epochs, "cnn_digits")
    for epoch in range(epochs):
        losses = [train_step(model, opt, xb.to(args.device), yb.to(args.device)) for xb, yb in loader]
        sched.step()
        bar.update(epoch + 1, f"loss {np.mean(losses):.4f} test acc {accuracy(model, x_test, y_test):.4f}")
    acc = accuracy(model, x_test, y_test)
    print(f"cnn_digits: test accuracy {acc:.4f} on {args.device} after {epochs} epochs in {time.perf_counter() - start:.1f}s")


if __name__ == "__main__":
    main()
