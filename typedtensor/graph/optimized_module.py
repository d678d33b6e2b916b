"""What ``tt.compile(module)`` returns: torch's ``OptimizedModule``, so that a program written for
``model = torch.compile(model)`` keeps working with the result as a Module."""

from __future__ import annotations

from typing import Any

from typedtensor.graph.compiled import CompiledFunction
from typedtensor.nn.module import Module

# What the compiled function answers for (its graphs and cache); everything else is the module's.
_COMPILED_ATTRIBUTES = frozenset({"graph_for", "ir_log", "cache_size", "cache_limit", "reset", "traces", "passes"})


class OptimizedModule(Module):
    """A Module holding the compiled one as ``_orig_mod`` and calling through its compiled forward.

    As torch's: ``state_dict()`` keys start with ``_orig_mod.`` (nanoGPT strips that prefix when it
    resumes), ``train()``/``eval()``/``parameters()``/``to()`` reach the original module, and other
    attributes are looked up on it. The compiled function's own (``graph_for``, ``traces``,
    ``cache_size`` ...) are answered by ``compiled``."""

    def __init__(self, mod: Module, compiled: CompiledFunction) -> None:
        super().__init__()
        self._orig_mod = mod
        object.__setattr__(self, "compiled", compiled)
        object.__setattr__(self, "training", mod.training)

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        return self.compiled(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        try:
            return super().__getattr__(name)  # _orig_mod, and anything registered on the wrapper
        except AttributeError:
            pass
        if name in _COMPILED_ATTRIBUTES:
            return getattr(self.__dict__["compiled"], name)
        return getattr(self._modules["_orig_mod"], name)
