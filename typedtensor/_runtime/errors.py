"""The runtime's ShapeError: the lead's ``typedtensor._errors.ShapeError`` when present."""

from __future__ import annotations

try:
    from typedtensor._errors import ShapeError
except ImportError:  # the package front is not there yet: keep the runtime usable

    class ShapeError(ValueError):  # type: ignore[no-redef]
        """A tensor shape does not satisfy an op's shape rule."""


__all__ = ["ShapeError", "shape_error"]


def shape_error(op: str, shapes: list[tuple[int, ...]], params: dict[str, object], fallback: str) -> ShapeError:
    """A ShapeError worded by the op registry (``typedtensor.shapes.runtime.explain``) when it can."""
    message = f"[{op}] {fallback}"
    try:
        from typedtensor.shapes.runtime import explain

        text = explain(op, shapes, params)
        if text:
            message = str(text)
    except Exception:  # no registry, or it failed: keep the fallback text
        pass
    err = ShapeError(message)
    err.op, err.shapes, err.params = op, shapes, params  # type: ignore[attr-defined]
    return err
