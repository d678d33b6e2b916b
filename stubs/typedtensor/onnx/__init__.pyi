# tt.onnx: export to ONNX (typedtensor/onnx, docs/graph-mode.md "ONNX export").
import os
from collections.abc import Callable, Mapping, Sequence
from typing import IO, Any

OPSET: int

def export(
    model_or_fn: Callable[..., Any],
    example_inputs: Any,
    f: str | os.PathLike[str] | IO[bytes] | None = None,
    *,
    input_names: Sequence[str] | None = None,
    output_names: Sequence[str] | None = None,
    dynamic_axes: Mapping[str, Any] | None = None,
    dynamic: bool = True,
    opset_version: int = 18,
) -> Any:
    """Export a module or function to ONNX; annotated named dims become symbolic dims (dim_param)."""
