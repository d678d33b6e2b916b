"""Public names -> registry ops: the table both static tools use to know what a call is.

Every table here is derived from the op entries' ``expose`` / ``operators`` (NOTE [ One op table ]
in registry.py); a name that is not here is not a typedtensor op to the checkers (its result is
unknown).
"""

from __future__ import annotations

from typing import Final

from .registry import MODULE_REGISTRY, Form, ModuleDef, OpDef, all_modules, all_ops


def ops_with(form: Form) -> dict[str, OpDef]:
    """Ops (aliases included) exposed in ``form``, by the form's public name (the entry's key unless
    its ``public`` says: NOTE [ Public names ] in registry.py)."""
    out: dict[str, OpDef] = {}
    for name, op in sorted(all_ops().items()):
        if form in op.expose:
            public = op.public_name(form)
            assert public not in out, f"{form} {public!r} is exposed by {out[public].name} and {name}"
            out[public] = op
    return dict(sorted(out.items()))


def _operators() -> dict[str, tuple[str, bool]]:
    out: dict[str, tuple[str, bool]] = {}
    for name, op in sorted(all_ops().items()):
        for dunder in op.operators:
            assert dunder not in out, f"{dunder} is declared by {out[dunder][0]} and {name}"
            out[dunder] = (name, dunder.startswith("__r") and dunder not in ("__round__",))
    return out


OPERATORS: Final[dict[str, tuple[str, bool]]] = _operators()

PROPERTIES: Final[dict[str, str]] = {name: op.name for name, op in ops_with("property").items()}

FUNCTIONS: Final[dict[str, str]] = {
    **{f"typedtensor.{name}": op.name for name, op in ops_with("function").items()},
    **{f"typedtensor.nn.functional.{name}": op.name for name, op in ops_with("functional").items()},
    # torch.linalg's functions: the entry linalg_X is typedtensor.linalg.X (rules/decompositions.py)
    **{f"typedtensor.linalg.{name.removeprefix('linalg_')}": op.name for name, op in ops_with("linalg").items()},
    # the collectives whose shapes relate (rules/distributed.py): no typedtensor.X form
    **{f"typedtensor.distributed.{name}": name for name, op in sorted(all_ops().items()) if "distributed" in op.tags},
}

METHODS: Final[dict[str, str]] = {
    **{name: op.name for name, op in ops_with("method").items()},
    **{f"{name}_": op.name for name, op in ops_with("inplace").items()},
}
# Methods whose tensor is NOT their first parameter: ``x.new_zeros(2, 3)`` takes sizes after ``self``.
METHODS_WITHOUT_SELF: Final = frozenset(
    m for m, op in METHODS.items() if not all_ops()[op].method_self
)


def modules() -> dict[str, ModuleDef]:
    """``typedtensor.nn.X`` -> its ``ModuleDef`` (rules are registered on first use)."""
    return all_modules()


def public_ops() -> set[str]:
    """Every op name reachable from the public API (functions, methods, operators, properties)."""
    names = set(FUNCTIONS.values()) | set(METHODS.values()) | {o for o, _ in OPERATORS.values()}
    names |= set(PROPERTIES.values())
    for m in all_modules().values():
        names.update(m.ops)
    return names


def runtime_from_c(form: Form) -> list[str]:
    """Names of ``form`` the runtime takes from the compiled module ``_C`` as they are: the
    exposed ops no Python code implements in that form (public names)."""
    return [name for name, op in ops_with(form).items() if form not in op.python]


def runtime_python(form: Form) -> list[str]:
    """Names of ``form`` implemented in Python (``_runtime/composite.py`` / ``functional.py``; public names)."""
    return [name for name, op in ops_with(form).items() if form in op.python]


def cuda_support(kind: str) -> frozenset[str]:
    """Ops whose CUDA support is ``kind`` (``"cpu"``: CPU only; ``"host"``: computed on the host)."""
    return frozenset(name for name, op in all_ops().items() if op.cuda == kind)


MODULES = MODULE_REGISTRY
