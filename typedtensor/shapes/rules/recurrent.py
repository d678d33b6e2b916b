"""Recurrent layers: ``nn.RNN`` / ``nn.LSTM`` / ``nn.GRU`` and their cells, and the fused
recurrent-layer primitives of the CPU backend.

A sequence module's output keeps the input's leading dims (``[T, B, I]``, ``[B, T, I]`` with
``batch_first``, or an unbatched ``[T, I]``) with ``D * P`` features, where ``D`` is 2 for a
bidirectional module and ``P`` is ``proj_size`` (an LSTM with a projection) or ``hidden_size``;
the final states are ``[D * num_layers, B, P]`` (``c_n``: ``[.., H]``), without the batch dim for
an unbatched input. An LSTM returns ``(output, (h_n, c_n))``, the others ``(output, h_n)``, as in
torch. The input's last dim must be ``input_size`` and given initial states must have the final
states' shapes (a ``shape-arg`` otherwise); a rank other than 2 or 3 is a ``shape-rank``.
"""

from __future__ import annotations

from typing import Any

from ..dims import UNKNOWN, DimExpr, Poly, Unknown, as_int, d_mul, differs, fmt_dim
from ..issue import Issue
from ..registry import Args, Outputs, Result, module, op
from ..shape import Shape, ShapeLike, fmt_shape
from ._common import need_rank

# ---------------------------------------------------------------------------------------------
# The fused primitives (backend/src/core/ops_rnn.cpp): one direction of one layer over a packed
# sequence, and its backward. Internal: typedtensor.nn's modules call them through
# ``_C._rnn_layer`` on the CPU; CUDA tensors take the modules' composite of ordinary ops.


def _opaque(args: Args) -> Result:
    return UNKNOWN


for _name in ("rnn_layer", "rnn_layer_backward"):
    op(_name, "*inputs:tensors", tags=("internal",), prim="Other", prim_cuda="cpu", graph=True)(_opaque)


# ---------------------------------------------------------------------------------------------
# Shared pieces of the module rules


def _flag(value: Any) -> bool | None:
    return value if isinstance(value, bool) else None


def _directions(ctor: Args) -> DimExpr:
    flag = _flag(ctor.get("bidirectional"))
    return UNKNOWN if flag is None else (2 if flag else 1)


def _state_size(ctor: Args) -> DimExpr:
    """P: an LSTM's ``proj_size`` when it is not 0, else ``hidden_size``."""
    proj = ctor.get("proj_size", 0)
    if isinstance(proj, Unknown):
        return UNKNOWN
    hidden: DimExpr = ctor["hidden_size"]
    return hidden if as_int(proj) == 0 else proj


def _layers_times_directions(ctor: Args) -> DimExpr:
    layers = ctor.get("num_layers", 1)
    if isinstance(layers, bool) or not isinstance(layers, (int, Poly, Unknown)):
        return UNKNOWN
    return d_mul(layers, _directions(ctor))


def _literals_differ(a: DimExpr, b: DimExpr) -> bool:
    x, y = as_int(a), as_int(b)
    return x is not None and y is not None and x != y


def _expected(name: str, what: str, got: ShapeLike, want: tuple[DimExpr, ...]) -> Issue | None:
    """An Issue when ``got`` (a given initial state) provably is not ``want``. The first dim,
    ``D * num_layers``, is compared only between literals: its factor ``D`` comes from the
    ``bidirectional`` flag, not from a size the program names, so a named dim there may well be it."""
    if not isinstance(got, Shape) or not got.is_fixed:
        return None
    if len(got.dims) != len(want) or _literals_differ(got.dims[0], want[0]) or any(
        differs(g, w) for g, w in zip(got.dims[1:], want[1:], strict=True)
    ):
        return Issue("shape-arg", f"{name}.forward: {what} must be {fmt_shape(Shape(want))} (D * num_layers, batch, "
                                  f"size), got {fmt_shape(got)}")
    return None


def _input_features(name: str, x: Shape, size: DimExpr) -> Issue | None:
    last = x.tail[-1] if x.tail else None
    if last is not None and differs(last, size):
        return Issue("shape-arg", f"{name}.forward: input has {fmt_dim(last)} features (dim -1) but the module "
                                  f"expects input_size = {fmt_dim(size)}; shape {fmt_shape(x)}")
    return None


def _sequence_forward(name: str, lstm: bool) -> Any:
    def forward(ctor: Args, args: Args) -> Result:
        x = args["input"]
        hidden = ctor["hidden_size"]
        p = _state_size(ctor)
        feats = d_mul(_directions(ctor), p)
        ld = _layers_times_directions(ctor)

        def result(out: ShapeLike, h: ShapeLike, c: ShapeLike) -> Outputs:
            return Outputs((out, Outputs((h, c)))) if lstm else Outputs((out, h))

        if not isinstance(x, Shape):
            return result(UNKNOWN, UNKNOWN, UNKNOWN)
        issue = need_rank(name, x, (2, 3)) or _input_features(name, x, ctor["input_size"])
        if issue:
            return issue
        if not x.is_fixed:
            return result(x.with_tail((*x.tail[:-1], feats)) if x.tail else UNKNOWN, UNKNOWN, UNKNOWN)
        out = Shape((*x.dims[:-1], feats))
        if len(x.dims) == 2:
            h_shape: tuple[DimExpr, ...] = (ld, p)
            c_shape: tuple[DimExpr, ...] = (ld, hidden)
        else:
            first = _flag(ctor.get("batch_first"))
            batch = UNKNOWN if first is None else x.dims[0 if first else 1]
            h_shape, c_shape = (ld, batch, p), (ld, batch, hidden)
        hx = args["hx"]
        issue = None
        if lstm and isinstance(hx, tuple) and len(hx) == 2:
            issue = _expected(name, "h_0", hx[0], h_shape) or _expected(name, "c_0", hx[1], c_shape)
        elif not lstm:
            issue = _expected(name, "hx", hx, h_shape)
        if issue:
            return issue
        return result(out, Shape(h_shape), Shape(c_shape))

    return forward


_SEQ_FLAGS = "bias:bool=True, batch_first:bool=False, dropout:float=0.0, bidirectional:bool=False"
_FACTORY = "*, device:any=None, dtype:any=None"
_SEQ_TYPE_PARAMS = ("input_size", "hidden_size", "num_layers", "batch_first", "bidirectional")

module("typedtensor.nn.RNN", f"input_size:size, hidden_size:size, num_layers:int=1, nonlinearity:str='tanh', "
       f"{_SEQ_FLAGS}, {_FACTORY}", _SEQ_TYPE_PARAMS, "input:tensor, hx:optional_tensor=None",
       ops=("linear", "rnn_layer"))(_sequence_forward("RNN", lstm=False))
module("typedtensor.nn.GRU", f"input_size:size, hidden_size:size, num_layers:int=1, {_SEQ_FLAGS}, {_FACTORY}",
       _SEQ_TYPE_PARAMS, "input:tensor, hx:optional_tensor=None", ops=("linear", "rnn_layer"))(
    _sequence_forward("GRU", lstm=False))
module("typedtensor.nn.LSTM", f"input_size:size, hidden_size:size, num_layers:int=1, {_SEQ_FLAGS}, "
       f"proj_size:int=0, {_FACTORY}", (*_SEQ_TYPE_PARAMS, "proj_size"), "input:tensor, hx:any=None",
       ops=("linear", "rnn_layer"))(_sequence_forward("LSTM", lstm=True))


# ---------------------------------------------------------------------------------------------
# Cells: one step, input [B, I] (or [I]) and state [B, H] (or [H]) -> the next state.


def _cell_forward(name: str, lstm: bool) -> Any:
    def forward(ctor: Args, args: Args) -> Result:
        x = args["input"]
        hidden = ctor["hidden_size"]
        if not isinstance(x, Shape):
            return Outputs((UNKNOWN, UNKNOWN)) if lstm else UNKNOWN
        issue = need_rank(name, x, (1, 2)) or _input_features(name, x, ctor["input_size"])
        if issue:
            return issue
        state: ShapeLike = Shape((*x.dims[:-1], hidden)) if x.is_fixed else UNKNOWN
        hx = args["hx"]
        given = hx if lstm and isinstance(hx, tuple) else (hx,)
        for i, h in enumerate(given):
            if isinstance(h, Shape) and isinstance(state, Shape) and h.is_fixed and (
                len(h.dims) != len(state.dims) or any(differs(a, b) for a, b in zip(h.dims, state.dims, strict=True))
            ):
                what = f"hx[{i}]" if lstm else "hx"
                return Issue("shape-arg", f"{name}.forward: {what} must be {fmt_shape(state)} (the input's batch, "
                                          f"hidden_size), got {fmt_shape(h)}")
        return Outputs((state, state)) if lstm else state

    return forward


module("typedtensor.nn.RNNCell", f"input_size:size, hidden_size:size, bias:bool=True, nonlinearity:str='tanh', {_FACTORY}",
       ("input_size", "hidden_size"), "input:tensor, hx:optional_tensor=None", ops=("linear", "rnn_layer"))(
    _cell_forward("RNNCell", lstm=False))
module("typedtensor.nn.GRUCell", f"input_size:size, hidden_size:size, bias:bool=True, {_FACTORY}",
       ("input_size", "hidden_size"), "input:tensor, hx:optional_tensor=None", ops=("linear", "rnn_layer"))(
    _cell_forward("GRUCell", lstm=False))
module("typedtensor.nn.LSTMCell", f"input_size:size, hidden_size:size, bias:bool=True, {_FACTORY}",
       ("input_size", "hidden_size"), "input:tensor, hx:any=None", ops=("linear", "rnn_layer"))(
    _cell_forward("LSTMCell", lstm=True))
