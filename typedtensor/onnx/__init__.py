"""``tt.onnx.export``: a typedtensor module or function as an ONNX model (opset 18), from its traced
graph, with the named dims of its annotations as symbolic ONNX dims (``dim_param="Batch"``).

``import typedtensor.onnx`` works without the ``onnx`` package; ``export`` needs it (to build and
check the protobuf) and says so. See docs/graph-mode.md, "ONNX export".
"""

from typedtensor.onnx._export import OPSET, export

__all__ = ["OPSET", "export"]
