"""Build-time metadata: the package's dependencies for the flavour being built.

``pip install .`` builds the whole library (the C++ backend, numpy, OpenBLAS). With
``TYPEDTENSOR_CHECKER_ONLY=1`` in the environment, or under pre-commit (which sets ``PRE_COMMIT=1``
while it installs a hook's environment), it builds the static half alone: a pure-Python wheel with
the checker, the mypy plugin, the stubs and the shape calculus, which needs neither a compiler nor
numpy. The same switch turns off CMake in ``[[tool.scikit-build.overrides]]`` (pyproject.toml).

scikit-build-core calls this module as a ``[[tool.dynamic-metadata]]`` provider; its settings are
the two dependency lists written in pyproject.toml.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

SWITCHES = ("TYPEDTENSOR_CHECKER_ONLY", "PRE_COMMIT")


def _truthy(value: str) -> bool:
    """An environment flag read as scikit-build-core's ``if.env`` reads a boolean."""
    value = value.strip().lower()
    if not value:
        return False
    if value.isdigit():
        return bool(int(value))
    return value not in {"n", "no", "off", "false", "f"}


def checker_only(env: Mapping[str, str] = os.environ) -> bool:
    """Whether this build is the checker-only flavour (the rule the CMake override also states)."""
    return any(_truthy(env.get(name, "")) for name in SWITCHES)


def dynamic_metadata(settings: Mapping[str, Any], project: Mapping[str, Any]) -> dict[str, list[str]]:
    static = list(settings["checker"])
    return {"dependencies": static if checker_only() else static + list(settings["backend"])}


def dynamic_wheel(settings: Mapping[str, Any]) -> dict[str, bool]:
    """A wheel built from the sdist decides again (the switch is read at wheel-build time)."""
    return {"dependencies": True}
