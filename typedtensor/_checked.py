"""``@tt.checked``: check annotated tensor arguments and results against real sizes.

Static tools trust annotations; this decorator guards the edges where data enters from outside.
The calculus it uses (``_shape_check``) is imported on the first call of a checked function, not
by ``import typedtensor``: a program (or the checker's CLI) that never calls one never pays for it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar, cast

if TYPE_CHECKING:
    from ._shape_check import Plan

F = TypeVar("F", bound=Callable[..., Any])


def checked(fn: F) -> F:
    """Check every ``Tensor[...]``-annotated argument and the result against real sizes.

    Works on functions, methods and ``forward``; a mismatch raises ``tt.ShapeError`` naming the
    argument, the dim and both sizes.
    """
    plan: Plan | None = None
    qualname = getattr(fn, "__qualname__", getattr(fn, "__name__", "function"))

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        nonlocal plan
        from . import _shape_check as sc

        if plan is None:
            plan = sc.Plan(fn)
        b = sc.check_call(plan, qualname, args, kwargs)
        result = fn(*args, **kwargs)
        sc.check_result(plan, qualname, result, b)
        return result

    return cast(F, wrapper)
