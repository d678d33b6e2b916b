# torch programs are read as they are (NOTE [ Reading torch programs ] in checker/names.py): every
# import form reaches the same registry rule; a torch name the registry does not know is unknown.
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.nn.functional
import torch.optim as optim
from torch import Tensor, cat, nn as tnn
from torch.nn import Conv2d, Linear
from torch.nn import functional as Fn
from torch.nn.modules.linear import Linear as ModLinear
from torch.utils.data import DataLoader, TensorDataset


def creation() -> None:
    x = torch.zeros(2, 3)
    reveal_shape(x)  # N: Tensor[2, 3]
    reveal_shape(torch.randn(4, 5) @ torch.randn(5, 6))  # N: Tensor[4, 6]
    torch.randn(4, 5) @ torch.randn(4, 5)  # E: shape-matmul
    torch.ones(2, 3) + torch.ones(4, 3)  # E: shape-broadcast
    reveal_shape(cat([x, x], dim=0))  # N: Tensor[4, 3]
    torch.cat([x, torch.zeros(2, 4)], dim=0)  # E: shape-concat


def functional() -> None:
    x = torch.randn(8, 3, 32, 32)
    reveal_shape(F.relu(x))  # N: Tensor[8, 3, 32, 32]
    reveal_shape(torch.nn.functional.max_pool2d(x, 2))  # N: Tensor[8, 3, 16, 16]
    reveal_shape(Fn.softmax(x, dim=1))  # N: Tensor[8, 3, 32, 32]
    F.conv2d(x, torch.randn(16, 4, 3, 3))  # E: shape-arg
    F.softmax(x, dim=4)  # E: shape-axis


def modules() -> None:
    x = torch.randn(8, 3, 32, 32)
    conv = nn.Conv2d(3, 16, 3, padding=1)
    reveal_shape(conv(x))  # N: Tensor[8, 16, 32, 32]
    reveal_shape(Conv2d(3, 8, 5)(x))  # N: Tensor[8, 8, 28, 28]
    reveal_shape(tnn.Flatten()(x))  # N: Tensor[8, 3072]
    Linear(100, 10)(torch.randn(8, 99))  # E: shape-arg
    ModLinear(100, 10)(torch.randn(8, 99))  # E: shape-arg
    reveal_shape(nn.Sequential(nn.Flatten(), nn.Linear(3072, 10))(x))  # N: Tensor[8, 10]
    nn.Sequential(nn.Flatten(), nn.Linear(3000, 10))(x)  # E: shape-arg


def methods(x: Tensor) -> None:
    y = torch.randn(6, 4)
    reveal_shape(y.view(3, 8))  # N: Tensor[3, 8]
    y.view(5, 5)  # E: shape-reshape
    reveal_shape(y.T)  # N: Tensor[4, 6]
    y.transpose(1, 2)  # E: shape-axis
    reveal_shape(x @ y)  # N: Tensor[?]


def unknown_names() -> None:
    x = torch.randn(6, 4)
    reveal_shape(torch.special.expit(x @ x.T))  # N: ?
    reveal_shape(torch.not_an_op(x))  # N: ?
    d = torch.Dim(3)  # ok: typedtensor's Dim is not torch's (torch has none)
    opt = optim.Adam([x], lr=1e-3)  # ok
    opt.step()  # ok
