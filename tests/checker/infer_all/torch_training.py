# --infer-all on a torch program as written: forwards without shapes (unannotated, or annotated
# only ``torch.Tensor``) are inferred from the example inputs the script passes.
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

from typedtensor import reveal_shape


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(1, 32, 3, 1)
        self.conv2 = nn.Conv2d(32, 64, 3, 1)
        self.dropout = nn.Dropout(0.25)
        self.fc1 = nn.Linear(9216, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.relu(self.conv1(x))  # ok
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)  # ok
        x = torch.flatten(self.dropout(x), 1)  # ok
        x = F.relu(self.fc1(x))  # ok
        return F.log_softmax(self.fc2(x), dim=1)  # ok


class Unpooled(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 32, 3, 1)
        self.fc1 = nn.Linear(9216, 128)

    def forward(self, x):
        x = F.relu(self.conv1(x))  # ok
        x = torch.flatten(x, 1)  # ok
        return self.fc1(x)  # E: shape-arg


class Mlp(nn.Module):
    def __init__(self, d_in: int, d_hidden: int, d_out: int) -> None:
        super().__init__()
        self.layers = nn.Sequential(nn.Linear(d_in, d_hidden), nn.ReLU(), nn.Linear(d_hidden, d_out))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.layers(x.flatten(1))  # E: shape-arg


model = Net()
x = torch.randn(64, 1, 28, 28)
reveal_shape(model(x))  # N: Tensor[64, 10]
loader = DataLoader(TensorDataset(torch.randn(256, 1, 28, 28), torch.randint(0, 10, (256,))), batch_size=32)
for xb, yb in loader:
    out = model(xb)
    reveal_shape(out)  # N: Tensor[?, 10]
    loss = F.nll_loss(out, yb)  # ok
    loss.backward()
Unpooled()(x)
Mlp(28 * 28, 128, 10)(x)
Mlp(32 * 32, 128, 10)(x)
