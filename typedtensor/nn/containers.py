"""Containers: ``Sequential``, ``ModuleList``, ``ModuleDict`` — sub-modules named ``"0"``, ``"1"``...
(or by key), exactly as torch names them, so state dicts are interchangeable."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, overload

from typedtensor.nn.module import Module


def _index(n: int, idx: int, what: str) -> int:
    if not -n <= idx < n:
        raise IndexError(f"index {idx} is out of range for {what} of length {n}")
    return idx + n if idx < 0 else idx


class Sequential(Module):
    """Calls its modules in order, each on the previous one's output."""

    @overload
    def __init__(self, *args: Module) -> None: ...

    @overload
    def __init__(self, arg: Mapping[str, Module], /) -> None: ...

    def __init__(self, *args: Any) -> None:
        super().__init__()
        if len(args) == 1 and isinstance(args[0], Mapping):
            for key, module in args[0].items():
                self.add_module(key, module)
        else:
            for i, module in enumerate(args):
                self.add_module(str(i), module)

    def forward(self, input: Any) -> Any:
        for module in self._modules.values():
            if module is not None:
                input = module(input)
        return input

    @overload
    def __getitem__(self, idx: int) -> Module: ...

    @overload
    def __getitem__(self, idx: slice) -> Sequential: ...

    def __getitem__(self, idx: int | slice) -> Module | Sequential:
        items = list(self._modules.items())
        if isinstance(idx, slice):
            return Sequential(OrderedDict((k, m) for k, m in items[idx] if m is not None))
        module = items[_index(len(items), idx, "Sequential")][1]
        assert module is not None
        return module

    def __setitem__(self, idx: int, module: Module) -> None:
        key = list(self._modules)[_index(len(self._modules), idx, "Sequential")]
        self.add_module(key, module)

    def __delitem__(self, idx: int) -> None:
        key = list(self._modules)[_index(len(self._modules), idx, "Sequential")]
        del self._modules[key]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return (m for m in self._modules.values() if m is not None)

    def append(self, module: Module) -> Sequential:
        self.add_module(str(len(self)), module)
        return self


class ModuleList(Module):
    """A list of modules whose parameters the parent sees; it has no ``forward`` of its own."""

    def __init__(self, modules: Iterable[Module] | None = None) -> None:
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def _items(self) -> list[Module]:
        return [m for m in self._modules.values() if m is not None]

    @overload
    def __getitem__(self, idx: int) -> Module: ...

    @overload
    def __getitem__(self, idx: slice) -> ModuleList: ...

    def __getitem__(self, idx: int | slice) -> Module | ModuleList:
        items = self._items()
        if isinstance(idx, slice):
            return ModuleList(items[idx])
        return items[_index(len(items), idx, "ModuleList")]

    def __setitem__(self, idx: int, module: Module) -> None:
        self.add_module(str(_index(len(self), idx, "ModuleList")), module)

    def __delitem__(self, idx: int) -> None:
        items = self._items()
        del items[_index(len(items), idx, "ModuleList")]
        self._modules.clear()
        self.extend(items)

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._items())

    def append(self, module: Module) -> ModuleList:
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules: Iterable[Module]) -> ModuleList:
        for m in modules:
            self.append(m)
        return self

    def insert(self, index: int, module: Module) -> None:
        items = self._items()
        items.insert(index, module)
        self._modules.clear()
        self.extend(items)

    def __repr__(self) -> str:
        """torch's text: a run of equal consecutive modules prints once, as ``(0-5): 6 x Block(...)``."""
        reprs = [repr(m) for m in self._items()]
        if not reprs:
            return f"{type(self).__name__}()"
        runs: list[tuple[int, int, str]] = []  # (first index, last index, repr)
        for i, r in enumerate(reprs):
            if runs and runs[-1][2] == r:
                runs[-1] = (runs[-1][0], i, r)
            else:
                runs.append((i, i, r))
        lines = []
        for lo, hi, r in runs:
            head = f"({lo}): " if lo == hi else f"({lo}-{hi}): {hi - lo + 1} x "
            lines.append((head + r).replace("\n", "\n  "))
        return f"{type(self).__name__}(\n  " + "\n  ".join(lines) + "\n)"

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("ModuleList has no forward; iterate over it and call its modules")


class ModuleDict(Module):
    """A dict of modules (insertion ordered) whose parameters the parent sees."""

    def __init__(self, modules: Mapping[str, Module] | Iterable[tuple[str, Module]] | None = None) -> None:
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: str) -> Module:
        module = self._modules[key]
        assert module is not None
        return module

    def __setitem__(self, key: str, module: Module) -> None:
        self.add_module(key, module)

    def __delitem__(self, key: str) -> None:
        del self._modules[key]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[str]:
        return iter(self._modules)

    def __contains__(self, key: object) -> bool:
        return key in self._modules

    def keys(self) -> Iterable[str]:
        return self._modules.keys()

    def values(self) -> Iterable[Module]:
        return [m for m in self._modules.values() if m is not None]

    def items(self) -> Iterable[tuple[str, Module]]:
        return [(k, m) for k, m in self._modules.items() if m is not None]

    def pop(self, key: str) -> Module:
        module = self[key]
        del self._modules[key]
        return module

    def clear(self) -> None:
        self._modules.clear()

    def update(self, modules: Mapping[str, Module] | Iterable[tuple[str, Module]]) -> None:
        pairs = modules.items() if isinstance(modules, Mapping) else modules
        for key, module in pairs:
            self[key] = module

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("ModuleDict has no forward; index it and call its modules")
