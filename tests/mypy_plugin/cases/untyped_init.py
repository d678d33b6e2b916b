# A Module whose `__init__` has no annotations: mypy (without `check_untyped_defs`) skips its body,
# so its layers are `Any` and nothing in `forward` is checked. The plugin says so at the
# `__init__` (NOTE [ An untyped __init__ checks nothing ] in mypy_plugin/classes.py); with
# `check_untyped_defs` (cases/rebinding.py) the layers are typed and checked.
from typing import Literal

from typedtensor import Dim, Tensor, nn


class Batch(Dim): ...


class Unchecked(nn.Module):
    def __init__(self):  # N: "Unchecked.__init__" has no annotations: mypy skips its body
        super().__init__()
        self.fc1 = nn.Linear(784, 128)
        self.fc2 = nn.Linear(100, 10)

    def forward(self, x: Tensor[Batch, Literal[784]]) -> Tensor[Batch, Literal[10]]:
        reveal_type(self.fc1)  # R: Any
        return self.fc2(self.fc1(x))  # not checked: `self.fc2` is Any


class Annotated(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Linear(784, 128)
        self.fc2 = nn.Linear(100, 10)

    def forward(self, x: Tensor[Batch, Literal[784]]) -> Tensor[Batch, Literal[10]]:
        return self.fc2(self.fc1(x))  # E: shape-arg


class Subclass(Annotated):
    def __init__(self):  # N: "Subclass.__init__" has no annotations
        super().__init__()
        self.extra = nn.Linear(10, 10)

    def head(self, x: Tensor[Batch, Literal[10]]) -> Tensor[Batch, Literal[10]]:
        return self.extra(x)


class Untyped(nn.Module):
    """Nothing annotated: the user asked for no checking, and gets no note."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 4)

    def forward(self, x):
        return self.fc(x)
