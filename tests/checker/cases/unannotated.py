# Unannotated code with literal sizes is checked too; plain ints and unknowns never report.
import typedtensor as tt
from typedtensor import nn
from typedtensor.nn import functional as F

a = tt.rand(10, 32, 28, 28)
conv = nn.Conv2d(64, 32, 3)
conv(a)  # E: shape-arg
good = nn.Conv2d(32, 16, 3, padding=1)
b = good(a)  # ok
pool = nn.MaxPool2d(2)
c = pool(b)  # ok
flat = c.flatten(1)  # ok
fc = nn.Linear(16 * 14 * 14, 10)
logits = fc(flat)  # ok
fc(b)  # E: shape-arg
wrong_fc = nn.Linear(100, 10)
wrong_fc(flat)  # E: shape-arg

x = tt.ones(3, 4)
y = tt.zeros(4, 5)
z = x @ y  # ok
x @ x  # E: shape-matmul
x + y  # E: shape-broadcast
x.reshape(2, 6)  # ok
x.reshape(5, 3)  # E: shape-reshape
tt.cat([x, y])  # E: shape-concat
x.sum(dim=2)  # E: shape-axis
q = tt.randn(2, 3, 8)
F.conv2d(tt.rand(28, 28), tt.rand(8, 1, 3, 3))  # E: shape-rank


def untyped(a, b):
    return a @ b  # ok


def helper(n):
    m = tt.zeros(n, 4)
    return m @ tt.zeros(4, n)  # ok


class Net(nn.Module):
    def __init__(self, c_in, n_classes):
        super().__init__()
        self.conv = nn.Conv2d(c_in, 8, 3)
        self.fc = nn.Linear(8 * 26 * 26, n_classes)

    def forward(self, x):
        return self.fc(self.conv(x).flatten(1))  # ok


net = Net(1, 10)
out = net(tt.rand(4, 1, 28, 28))  # ok


def bad_literal_layer():
    fc2 = nn.Linear(7, 3)
    return fc2(tt.rand(2, 8))  # E: shape-arg


# Calls of unannotated functions with known shapes are inferred through their bodies.
def project(a, b):
    return a @ b  # ok


def twice(t, scale=2.0):
    if scale > 1:
        return t * scale  # ok
    return t  # ok


def outer(t, w):
    return project(twice(t), w)  # ok


def gen(t):
    yield t  # ok


u = tt.rand(8, 16)
v = tt.rand(16, 4)
reveal_shape(project(u, v))  # N: Tensor[8, 4]
reveal_shape(outer(u, v))  # N: Tensor[8, 4]
project(u, v) + tt.rand(8, 5)  # E: shape-broadcast
reveal_shape(twice(u))  # N: Tensor[8, 16]
reveal_shape(project(3, 4))  # N: ?
reveal_shape(gen(u))  # N: ?
