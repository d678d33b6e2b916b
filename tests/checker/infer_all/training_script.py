# --infer-all (NOTE [ Inferring unannotated code from its calls ]): unannotated forwards are
# inferred from the example inputs the script passes, and report what they find on them.
import typedtensor as tt
from typedtensor import nn, reveal_shape
from typedtensor.data import DataLoader, TensorDataset
from typedtensor.nn import functional as F


class Net(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 32, 3, 1)
        self.conv2 = nn.Conv2d(32, 64, 3, 1)
        self.fc1 = nn.Linear(9216, 128)
        self.fc2 = nn.Linear(128, num_classes)

    def forward(self, x):
        x = F.relu(self.conv1(x))  # ok
        x = F.relu(self.conv2(x))  # ok
        x = F.max_pool2d(x, 2)  # ok
        x = tt.flatten(x, 1)  # ok
        x = F.relu(self.fc1(x))  # ok
        return self.fc2(x)  # ok


class Unpooled(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 32, 3, 1)
        self.fc1 = nn.Linear(9216, 128)

    def forward(self, x):
        x = F.relu(self.conv1(x))  # ok
        x = tt.flatten(x, 1)  # ok
        return self.fc1(x)  # E: shape-arg


def recurse(x, n):
    return recurse(x * 2, n - 1) if n else x  # ok (the depth budget stops the recursion)


model = Net()
x = tt.randn(64, 1, 28, 28)
reveal_shape(model(x))  # N: Tensor[64, 10]
loader = DataLoader(TensorDataset(tt.randn(256, 1, 28, 28), tt.randint(0, 10, (256,))), batch_size=32)
for xb, yb in loader:
    logits = model(xb)
    reveal_shape(logits)  # N: Tensor[?, 10]
    loss = F.cross_entropy(logits, yb)  # ok
Unpooled()(x)
recurse(x, 3)
