"""The TorchScript and torch.fx calls that torch programs make in eager code (torchvision's models
check ``torch.jit.is_scripting()``, decorate methods with ``torch.jit.unused`` and
``torch.jit._overload_method``, register ``torch.fx.wrap`` leaves at import time and assert with
``torch._assert``): each does what torch's does outside scripting and symbolic tracing."""

from __future__ import annotations

from typing import Any

import pytest

import typedtensor as tt
import typedtensor.fx
import typedtensor.jit

torch = pytest.importorskip("torch")
pytest.importorskip("torch.fx")


def _double(x: Any) -> Any:
    return x * 2


@pytest.mark.parametrize("lib", [torch, tt], ids=["torch", "typedtensor"])
def test_scripting_and_tracing_queries_are_false_in_eager_code(lib: Any) -> None:
    assert lib.jit.is_scripting() is False
    assert lib.jit.is_tracing() is False


def test_the_queries_are_false_inside_compile_too() -> None:
    seen = []

    def f(x: Any) -> Any:
        seen.append((tt.jit.is_scripting(), tt.jit.is_tracing()))
        return x + 1

    tt.compile(f)(tt.ones(2))
    assert seen and set(seen) == {(False, False)}


@pytest.mark.parametrize("lib", [torch, tt], ids=["torch", "typedtensor"])
def test_jit_decorators_return_what_they_decorate(lib: Any) -> None:
    assert lib.jit.unused(_double) is _double
    assert lib.jit.ignore(_double) is _double
    assert lib.jit.ignore()(_double) is _double

    class Layer:
        @lib.jit._overload_method
        def call(self, x: int) -> int: ...

        @lib.jit._overload_method  # type: ignore[no-redef]
        def call(self, x: str) -> str: ...  # noqa: F811

        def call(self, x: Any) -> Any:  # type: ignore[no-redef]  # noqa: F811  (the last definition is the method)
            return x * 2

    assert Layer().call(3) == 6
    assert Layer().call("a") == "aa"


@pytest.mark.parametrize("lib", [torch, tt], ids=["torch", "typedtensor"])
def test_fx_wrap_at_module_level_returns_its_argument(lib: Any) -> None:
    namespace: dict[str, Any] = {"fx": lib.fx, "_double": _double}
    exec("by_function = fx.wrap(_double)\nby_name = fx.wrap('_double')", namespace)  # module-level code
    assert namespace["by_function"] is _double
    assert namespace["by_name"] == "_double"


@pytest.mark.parametrize("lib", [torch, tt], ids=["torch", "typedtensor"])
def test_fx_wrap_refuses_what_torch_refuses(lib: Any) -> None:
    with pytest.raises(NotImplementedError, match="top level of a module"):
        lib.fx.wrap(_double)  # called from inside a function
    with pytest.raises(RuntimeError, match="callable or string"):
        exec("fx.wrap(3)", {"fx": lib.fx})


@pytest.mark.parametrize("lib", [torch, tt], ids=["torch", "typedtensor"])
def test_assert(lib: Any) -> None:
    lib._assert(True, "never")
    lib._assert(lib.ones(1) > 0, "never")  # a one-element tensor asked for its truth value
    with pytest.raises(AssertionError, match="Wrong image height!"):
        lib._assert(3 == 4, "Wrong image height! Expected 4 but got 3!")
    with pytest.raises(AssertionError, match="negative"):
        lib._assert(lib.zeros(1) > 0, "negative")
