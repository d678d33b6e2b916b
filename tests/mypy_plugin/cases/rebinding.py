# mypy: allow-redefinition, check-untyped-defs
# Re-binding a name to another shape, the usual PyTorch forward (`x = self.conv1(x); x = F.relu(x)`),
# under the configuration docs/mypy-plugin.md recommends (mypy 2.4's `allow_redefinition` and
# `check_untyped_defs`, here as the file's inline options): quiet when correct, and a planted bug is
# still reported on its line. Without the option mypy keeps the parameter's type for the whole body.
from typing import Literal

import typedtensor as tt
import typedtensor.nn.functional as F
from typedtensor import Dim, Tensor, nn


class Batch(Dim): ...
class Seq(Dim): ...
class Model(Dim): ...
class Hidden(Dim): ...


class Net(nn.Module):
    """The MNIST CNN of PyTorch's examples, annotated only at its edges."""

    def __init__(self) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(1, 32, 3, 1)
        self.conv2 = nn.Conv2d(32, 64, 3, 1)
        self.dropout1 = nn.Dropout(0.25)
        self.fc1 = nn.Linear(9216, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x: Tensor[Batch, Literal[1], Literal[28], Literal[28]]) -> Tensor[Batch, Literal[10]]:
        x = self.conv1(x)
        x = F.relu(x)
        x = self.conv2(x)
        x = F.relu(x)
        x = F.max_pool2d(x, 2)
        x = self.dropout1(x)
        x = tt.flatten(x, 1)
        reveal_type(x)  # R: Tensor[Batch, Literal[9216]]
        x = self.fc1(x)
        x = F.relu(x)
        x = self.fc2(x)
        output = F.log_softmax(x, dim=1)
        return output


class Planted(nn.Module):
    """The same model with a wrong `fc1` width: reported on the line that uses it. After an error
    mypy keeps every shape the name took (it does not narrow a union to the unknown shape the
    plugin gives after an error), so the `return` adds a `return-value` listing them."""

    def __init__(self) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(1, 32, 3, 1)
        self.fc1 = nn.Linear(9000, 128)

    def forward(self, x: Tensor[Batch, Literal[1], Literal[28], Literal[28]]) -> Tensor[Batch, Literal[128]]:
        x = self.conv1(x)
        x = F.max_pool2d(x, 2)
        x = tt.flatten(x, 1)
        x = self.fc1(x)  # E: shape-arg  # M: dim 1 is 5408, expected 9000
        return x  # E: return-value


class Block(nn.Module):
    def __init__(self, d: Model) -> None:
        super().__init__()
        self.ln = nn.LayerNorm(d)
        self.fc = nn.Linear(d, d)

    def forward(self, x: Tensor[Batch, Seq, Model]) -> Tensor[Batch, Seq, Model]:
        x = x + self.fc(self.ln(x))
        return x


class Stack(nn.Module):
    def __init__(self, d: Model, flag: bool) -> None:
        super().__init__()
        self.blocks = nn.ModuleList([Block(d) for _ in range(3)])
        self.head = nn.Linear(d, Hidden(16))
        self.flag = flag

    def forward(self, x: Tensor[Batch, Seq, Model]) -> Tensor[Batch, Seq, Hidden]:
        for block in self.blocks:  # a loop re-binds `x` to the shape it already has
            x = block(x)
        if self.flag:
            x = F.gelu(x)
        x = self.head(x)
        return x


def transposed_return(x: Tensor[Batch, Seq, Model]) -> Tensor[Batch, Model, Seq]:
    x = F.relu(x)
    x = x.transpose(1, 2)
    x = x.transpose(1, 2)  # the planted bug: one transpose too many
    return x  # E: return-value  # M: got "Tensor[Batch, Seq, Model]"


def declared_stays_checked(x: Tensor[Batch, Seq, Model]) -> None:
    h: Tensor[Batch, Model] = x.sum(1)
    h = x.sum(2)  # E: assignment
    fc = nn.Linear(Model(4), Hidden(8))
    y = fc(x)
    y = y.sum(1)
    reveal_type(y)  # R: Tensor[Batch, Hidden]


def needs_model(x: Tensor[Batch, Seq, Model]) -> Tensor[Batch, Seq, Model]:
    return x


def needs_hidden(x: Tensor[Batch, Seq, Hidden]) -> Tensor[Batch, Seq, Hidden]:
    return x


def branches(x: Tensor[Batch, Seq, Model], flag: bool) -> None:
    """A name re-bound in one branch has two shapes after the `if`: unknown to the plugin, as two
    shapes joined are to the checker (mypy would check each union item)."""
    fc = nn.Linear(Model(4), Hidden(8))
    if flag:
        x = fc(x)
    reveal_type(x)  # R: Tensor[Batch, Seq, Model] | Tensor[Batch, Seq, Hidden]
    needs_model(x)
    needs_hidden(x)
    fc(x)
    reveal_type(F.relu(x))  # R: Tensor[*tuple[Any, ...]]


class UntypedInit(nn.Module):
    """`check_untyped_defs` checks an `__init__` without annotations, so its layers have types."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(784, 128)
        self.fc2 = nn.Linear(100, 10)

    def forward(self, x: Tensor[Batch, Literal[784]]) -> Tensor[Batch, Literal[10]]:
        x = self.fc1(x)
        x = self.fc2(x)  # E: shape-arg
        return x  # E: return-value
