"""Recurrent layers with torch's constructors, parameter names, initialisation and gate order:
``RNN``, ``LSTM``, ``GRU`` and their cells.

A state dict moves between typedtensor and torch in both directions: the parameters are torch's
(``weight_ih_l0``, ``weight_hh_l0``, ``bias_ih_l0``, ``bias_hh_l0``, ``weight_hr_l0`` with a
projection, ``..._reverse`` for the second direction), with the gates stacked in torch's order
(LSTM i, f, g, o; GRU r, z, n) and initialised from ``U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))``.

NOTE [ Recurrent layers: fused and composite ]
Each direction of each layer is two steps: the input projection of every step at once (one
``linear`` over all rows, the biases folded in), then the recurrence. On the CPU (float32 and
float64) the recurrence is one fused primitive with its own backward (``_C._rnn_layer``,
NOTE [ Fused recurrent layers ] in backend/src/cpu/rnn.cpp); elsewhere (CUDA tensors, other
dtypes) it is a loop over the steps of ordinary ops, each with its kernel and gradient. Both read
sequences in the packed layout (``nn.utils.rnn``): a padded batch is a packed one whose steps all
have ``B`` rows. The fused backward is not differentiable itself: a double backward through a
recurrent layer needs the composite (``typedtensor.nn.rnn.use_fused(False)``).
"""

from __future__ import annotations

import contextlib
import math
import numbers
import warnings
from collections.abc import Iterator
from typing import Any

from typedtensor._runtime import _C
from typedtensor._runtime import functional as F
from typedtensor._runtime.errors import check_module
from typedtensor.nn import init
from typedtensor.nn.module import Module
from typedtensor.nn.parameter import Parameter
from typedtensor.nn.utils.rnn import PackedSequence

Tensor = Any

__all__ = ["GRU", "LSTM", "RNN", "GRUCell", "LSTMCell", "RNNBase", "RNNCell", "RNNCellBase", "use_fused"]

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}
_CELL = {"LSTM": "lstm", "GRU": "gru", "RNN_TANH": "tanh", "RNN_RELU": "relu"}
_FUSED = [True]


@contextlib.contextmanager
def use_fused(enabled: bool) -> Iterator[None]:
    """Within the block, recurrent layers use (or avoid) the fused CPU kernel (NOTE [ Recurrent
    layers: fused and composite ]); the composite is what CUDA tensors always run."""
    before = _FUSED[0]
    _FUSED[0] = enabled
    try:
        yield
    finally:
        _FUSED[0] = before


# ---------------------------------------------------------------------------------------------
# One direction of one layer over a packed sequence


def _fused_applies(tensors: list[Tensor | None]) -> bool:
    present = [t for t in tensors if t is not None]
    dtype = present[0].dtype
    return _FUSED[0] and all(
        not t.is_cuda and t.dtype == dtype and t.dtype in (_C.float32, _C.float64) for t in present
    )


def _composite_layer(cell: str, xproj: Tensor, h0: Tensor, c0: Tensor | None, w_hh: Tensor, b_hh: Tensor | None,
                     w_hr: Tensor | None, batch_sizes: list[int], reverse: bool) -> tuple[Tensor, Tensor, Tensor | None]:
    """The recurrence as ordinary ops, step by step: the reference the fused kernel is tested against."""
    offsets = [0]
    for n in batch_sizes:
        offsets.append(offsets[-1] + n)
    steps = range(len(batch_sizes) - 1, -1, -1) if reverse else range(len(batch_sizes))
    h, c = h0, c0
    outs: list[Tensor] = [None] * len(batch_sizes)
    for t in steps:
        rows = batch_sizes[t]
        x = xproj[offsets[t]:offsets[t + 1]]
        h_rows = h[:rows]
        if cell == "lstm":
            assert c is not None
            i, f, g, o = (x + F.linear(h_rows, w_hh)).chunk(4, 1)
            c_new = f.sigmoid() * c[:rows] + i.sigmoid() * g.tanh()
            h_new = o.sigmoid() * c_new.tanh()
            if w_hr is not None:
                h_new = F.linear(h_new, w_hr)
            c = c_new if rows == c.shape[0] else _C.cat([c_new, c[rows:]])
        elif cell == "gru":
            xr, xz, xn = x.chunk(3, 1)
            hr, hz, hn = F.linear(h_rows, w_hh, b_hh).chunk(3, 1)
            r, z = (xr + hr).sigmoid(), (xz + hz).sigmoid()
            n = (xn + r * hn).tanh()
            h_new = n + z * (h_rows - n)
        else:
            pre = x + F.linear(h_rows, w_hh)
            h_new = pre.tanh() if cell == "tanh" else pre.relu()
        outs[t] = h_new
        h = h_new if rows == h.shape[0] else _C.cat([h_new, h[rows:]])
    return _C.cat(outs), h, c


def _layer(cell: str, xproj: Tensor, h0: Tensor, c0: Tensor | None, w_hh: Tensor, b_hh: Tensor | None,
           w_hr: Tensor | None, batch_sizes: list[int], reverse: bool) -> tuple[Tensor, Tensor, Tensor | None]:
    if _fused_applies([xproj, h0, c0, w_hh, b_hh, w_hr]):
        got = _C._rnn_layer(cell, xproj, h0, c0, w_hh, b_hh, w_hr, batch_sizes, reverse)
        return got[0], got[1], got[2] if cell == "lstm" else None
    return _composite_layer(cell, xproj, h0, c0, w_hh, b_hh, w_hr, batch_sizes, reverse)


def _projection(mode: str, x: Tensor, w_ih: Tensor, b_ih: Tensor | None, b_hh: Tensor | None) -> Tensor:
    """Every row's input projection; the biases that only add are folded in (a GRU's b_hh sits
    inside the reset gate's product and stays apart)."""
    if b_ih is None:
        return F.linear(x, w_ih)
    return F.linear(x, w_ih, b_ih if mode == "GRU" or b_hh is None else b_ih + b_hh)


# ---------------------------------------------------------------------------------------------
# RNN, LSTM, GRU


def _empty(*shape: int, device: Any, dtype: Any) -> Tensor:
    return _C.empty(*shape, dtype=dtype if dtype is not None else _C.float32, device=device)


class RNNBase(Module):
    """What ``RNN``, ``LSTM`` and ``GRU`` share: the parameters of every layer and direction, and
    the forward over padded or packed sequences."""

    _rule = ""

    def __init__(
        self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
        batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False, proj_size: int = 0,
        device: Any = None, dtype: Any = None,
    ) -> None:
        super().__init__()
        if mode not in _GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        if isinstance(dropout, bool) or not isinstance(dropout, numbers.Number) or not 0 <= float(dropout) <= 1:
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an element "
                             "being zeroed")
        if float(dropout) > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so non-zero dropout expects "
                          f"num_layers greater than 1, but got dropout={dropout} and num_layers={num_layers}", stacklevel=2)
        for what, value, kind in (("bias", bias, bool), ("batch_first", batch_first, bool), ("input_size", input_size, int),
                                  ("hidden_size", hidden_size, int)):
            if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
                raise TypeError(f"{what} should be of type {kind.__name__}, got: {type(value).__name__}")
        if input_size <= 0:
            raise ValueError("input_size must be greater than zero")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        gate_size = _GATES[mode] * hidden_size
        state = proj_size if proj_size > 0 else hidden_size
        directions = 2 if bidirectional else 1
        self._flat_weights_names: list[str] = []
        self._all_weights: list[list[str]] = []
        for layer in range(num_layers):
            for direction in range(directions):
                layer_input = input_size if layer == 0 else state * directions
                suffix = "_reverse" if direction == 1 else ""
                params: list[tuple[str, tuple[int, ...]]] = [(f"weight_ih_l{layer}{suffix}", (gate_size, layer_input)),
                          (f"weight_hh_l{layer}{suffix}", (gate_size, state))]
                if bias:
                    params += [(f"bias_ih_l{layer}{suffix}", (gate_size,)), (f"bias_hh_l{layer}{suffix}", (gate_size,))]
                if proj_size > 0:
                    params.append((f"weight_hr_l{layer}{suffix}", (proj_size, hidden_size)))
                for name, shape in params:
                    setattr(self, name, Parameter(_empty(*shape, device=device, dtype=dtype)))
                self._flat_weights_names.extend(n for n, _ in params)
                self._all_weights.append([n for n, _ in params])
        self.reset_parameters()

    @property
    def _flat_weights(self) -> list[Tensor | None]:
        return [getattr(self, n, None) for n in self._flat_weights_names]

    @property
    def all_weights(self) -> list[list[Parameter]]:
        return [[getattr(self, n) for n in names] for names in self._all_weights]

    def flatten_parameters(self) -> None:
        """Nothing to do: the weights are never copied into one buffer (torch does so for cuDNN)."""

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s

    # ---- torch's checks, by name (programs and subclasses call them) ----
    def check_input(self, input: Tensor, batch_sizes: Tensor | None) -> None:
        weight = self._flat_weights[0]
        if weight is not None and input.dtype != weight.dtype:
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype ({weight.dtype}). Convert "
                             f"input: input.to({weight.dtype}), or convert model: model.to({input.dtype})")
        expected = 2 if batch_sizes is not None else 3
        if input.dim() != expected:
            raise RuntimeError(f"input must have {expected} dimensions, got {input.dim()}")
        if self.input_size != input.size(-1):
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got {input.size(-1)}")

    def get_expected_hidden_size(self, input: Tensor, batch_sizes: Tensor | None) -> tuple[int, int, int]:
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
        else:
            mini_batch = input.size(0) if self.batch_first else input.size(1)
        directions = 2 if self.bidirectional else 1
        return (self.num_layers * directions, mini_batch, self.proj_size if self.proj_size > 0 else self.hidden_size)

    def check_hidden_size(self, hx: Tensor, expected_hidden_size: tuple[int, int, int],
                          msg: str = "Expected hidden size {}, got {}") -> None:
        if tuple(hx.shape) != tuple(expected_hidden_size):
            raise RuntimeError(msg.format(expected_hidden_size, list(hx.shape)))

    def check_forward_args(self, input: Tensor, hidden: Tensor, batch_sizes: Tensor | None) -> None:
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden, self.get_expected_hidden_size(input, batch_sizes))

    def permute_hidden(self, hx: Tensor, permutation: Tensor | None) -> Tensor:
        return hx if permutation is None else hx.index_select(1, permutation)

    # ---- the forward ----
    def _state_sizes(self) -> tuple[int, int]:
        return (self.proj_size if self.proj_size > 0 else self.hidden_size), self.hidden_size

    def forward(self, input: Any, hx: Any = None) -> tuple[Any, Any]:
        lstm = self.mode == "LSTM"
        directions = 2 if self.bidirectional else 1
        p, h = self._state_sizes()
        packed = isinstance(input, PackedSequence)
        if packed:
            data, batch_sizes_t, sorted_indices, unsorted_indices = input
            sizes = [int(v) for v in batch_sizes_t.tolist()]
            batch = sizes[0]
            is_batched = True
            if hx is not None:
                hx = self.permute_hidden(hx, sorted_indices)
        else:
            batch_sizes_t, sorted_indices, unsorted_indices = None, None, None
            if input.dim() not in (2, 3):
                raise ValueError(f"{self._rule}: Expected input to be 2D or 3D, got {input.dim()}D tensor instead")
            is_batched = input.dim() == 3
            weight = self._flat_weights[0]
            if weight is not None and input.dtype != weight.dtype:
                raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype ({weight.dtype}). Convert "
                                 f"input: input.to({weight.dtype}), or convert model: model.to({input.dtype})")
            check_module(self._rule, self, input=input, hx=hx)  # the registry's rule (rules/recurrent.py)
            x = input if is_batched else input.unsqueeze(0 if self.batch_first else 1)
            if self.batch_first:
                x = x.transpose(0, 1)
            steps, batch = x.shape[0], x.shape[1]
            sizes = [batch] * steps
            data = x.reshape(steps * batch, x.shape[2])
            if hx is not None and not is_batched:
                hx = (hx[0].unsqueeze(1), hx[1].unsqueeze(1)) if lstm else hx.unsqueeze(1)
        if hx is None:
            zeros_h = _C.zeros(self.num_layers * directions, batch, p, dtype=data.dtype, device=data.device)
            hx = (zeros_h, _C.zeros(self.num_layers * directions, batch, h, dtype=data.dtype, device=data.device)) \
                if lstm else zeros_h
        if packed:
            if lstm:
                self.check_input(data, batch_sizes_t)
                expected = self.get_expected_hidden_size(data, batch_sizes_t)
                self.check_hidden_size(hx[0], expected, "Expected hidden[0] size {}, got {}")
                self.check_hidden_size(hx[1], (expected[0], expected[1], h), "Expected hidden[1] size {}, got {}")
            else:
                self.check_forward_args(data, hx, batch_sizes_t)
        out, h_n, c_n = self._run(data, hx, sizes)
        if packed:
            output: Any = PackedSequence(out, batch_sizes_t, sorted_indices, unsorted_indices)
        else:
            output = out.reshape(len(sizes), batch, out.shape[-1])
            if self.batch_first:
                output = output.transpose(0, 1)
            if not is_batched:
                output = output.squeeze(0 if self.batch_first else 1)
                h_n = h_n.squeeze(1)
                c_n = c_n.squeeze(1) if c_n is not None else None
        hidden = (h_n, c_n) if lstm else h_n
        if unsorted_indices is not None:
            hidden = self.permute_hidden(hidden, unsorted_indices)
        return output, hidden

    def _run(self, data: Tensor, hx: Any, sizes: list[int]) -> tuple[Tensor, Tensor, Tensor | None]:
        lstm = self.mode == "LSTM"
        h0, c0 = hx if lstm else (hx, None)
        directions = 2 if self.bidirectional else 1
        cell = _CELL[self.mode]
        x = data
        hs: list[Tensor] = []
        cs: list[Tensor] = []
        for layer in range(self.num_layers):
            outs = []
            for d in range(directions):
                names = self._all_weights[layer * directions + d]
                w_ih, w_hh = getattr(self, names[0]), getattr(self, names[1])
                b_ih, b_hh = (getattr(self, names[2]), getattr(self, names[3])) if self.bias else (None, None)
                w_hr = getattr(self, names[-1]) if self.proj_size > 0 else None
                k = layer * directions + d
                xproj = _projection(self.mode, x, w_ih, b_ih, b_hh)
                out, h_n, c_n = _layer(cell, xproj, h0[k], c0[k] if c0 is not None else None, w_hh,
                                       b_hh if self.mode == "GRU" else None, w_hr, sizes, d == 1)
                outs.append(out)
                hs.append(h_n)
                if c_n is not None:
                    cs.append(c_n)
            x = outs[0] if directions == 1 else _C.cat(outs, 1)
            if self.dropout and self.training and layer < self.num_layers - 1:
                x = F.dropout(x, self.dropout, True)
        return x, _C.stack(hs), _C.stack(cs) if lstm else None


class RNN(RNNBase):
    """An Elman RNN: ``h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)`` (or relu), per layer and direction."""

    _rule = "RNN"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif self.nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__(mode, *args, **kwargs)


class LSTM(RNNBase):
    """Long short-term memory: gates i, f, g, o (in that order in ``weight_ih``/``weight_hh``);
    ``c' = f c + i g``, ``h' = o tanh(c')`` (times ``weight_hr`` with ``proj_size``)."""

    _rule = "LSTM"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__("LSTM", *args, **kwargs)

    def get_expected_cell_size(self, input: Tensor, batch_sizes: Tensor | None) -> tuple[int, int, int]:
        expected = self.get_expected_hidden_size(input, batch_sizes)
        return (expected[0], expected[1], self.hidden_size)

    def check_forward_args(self, input: Tensor, hidden: Any, batch_sizes: Tensor | None) -> None:
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden[0], self.get_expected_hidden_size(input, batch_sizes), "Expected hidden[0] size {}, got {}")
        self.check_hidden_size(hidden[1], self.get_expected_cell_size(input, batch_sizes), "Expected hidden[1] size {}, got {}")

    def permute_hidden(self, hx: Any, permutation: Tensor | None) -> Any:
        if permutation is None:
            return hx
        return hx[0].index_select(1, permutation), hx[1].index_select(1, permutation)


class GRU(RNNBase):
    """Gated recurrent unit: gates r, z, n; ``n = tanh(x_n + r (h W_hn^T + b_hn))``, ``h' = (1 - z) n + z h``."""

    _rule = "GRU"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)


# ---------------------------------------------------------------------------------------------
# Cells


class RNNCellBase(Module):
    """What the cells share: ``weight_ih [chunks * hidden, input]``, ``weight_hh [chunks * hidden,
    hidden]`` and the two biases."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool, num_chunks: int, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(_empty(num_chunks * hidden_size, input_size, device=device, dtype=dtype))
        self.weight_hh = Parameter(_empty(num_chunks * hidden_size, hidden_size, device=device, dtype=dtype))
        if bias:
            self.bias_ih = Parameter(_empty(num_chunks * hidden_size, device=device, dtype=dtype))
            self.bias_hh = Parameter(_empty(num_chunks * hidden_size, device=device, dtype=dtype))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        nonlinearity = self.__dict__.get("nonlinearity")
        if nonlinearity is not None and nonlinearity != "tanh":
            s += f", nonlinearity={nonlinearity}"
        return s

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _step(self, mode: str, input: Tensor, h: Tensor, c: Tensor | None) -> tuple[Tensor, Tensor | None]:
        """One step of ``mode``'s cell over a batch [B, I] from the state [B, H] (and c)."""
        xproj = _projection(mode, input, self.weight_ih, self.bias_ih, self.bias_hh)
        _, h_n, c_n = _layer(_CELL[mode], xproj, h, c, self.weight_hh, self.bias_hh if mode == "GRU" else None, None,
                             [input.shape[0]], False)
        return h_n, c_n

    def _batched(self, name: str, input: Tensor, hx: Any) -> bool:
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        for i, h in enumerate(hx if isinstance(hx, tuple) else () if hx is None else (hx,)):
            if h.dim() not in (1, 2):
                what = f"hx[{i}]" if isinstance(hx, tuple) else "hidden"
                raise ValueError(f"{name}: Expected {what} to be 1D or 2D, got {h.dim()}D instead")
        check_module(name, self, input=input, hx=hx)
        return bool(input.dim() == 2)

    def _zeros(self, input: Tensor) -> Tensor:
        return _C.zeros(input.shape[0], self.hidden_size, dtype=input.dtype, device=input.device)


class RNNCell(RNNCellBase):
    """One step of an Elman RNN: ``h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)`` (or relu)."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, nonlinearity: str = "tanh",
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        batched = self._batched("RNNCell", input, hx)
        if self.nonlinearity not in ("tanh", "relu"):
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        x = input if batched else input.unsqueeze(0)
        h = self._zeros(x) if hx is None else (hx if batched else hx.unsqueeze(0))
        out, _ = self._step("RNN_TANH" if self.nonlinearity == "tanh" else "RNN_RELU", x, h, None)
        return out if batched else out.squeeze(0)


class LSTMCell(RNNCellBase):
    """One LSTM step: ``(h, c) -> (h', c')`` with gates i, f, g, o."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device: Any = None, dtype: Any = None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device, dtype=dtype)

    def forward(self, input: Tensor, hx: tuple[Tensor, Tensor] | None = None) -> tuple[Tensor, Tensor]:
        batched = self._batched("LSTMCell", input, hx)
        x = input if batched else input.unsqueeze(0)
        if hx is None:
            h, c = self._zeros(x), self._zeros(x)
        else:
            h, c = (hx[0], hx[1]) if batched else (hx[0].unsqueeze(0), hx[1].unsqueeze(0))
        h_n, c_n = self._step("LSTM", x, h, c)
        assert c_n is not None
        return (h_n, c_n) if batched else (h_n.squeeze(0), c_n.squeeze(0))


class GRUCell(RNNCellBase):
    """One GRU step with gates r, z, n."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device: Any = None, dtype: Any = None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device, dtype=dtype)

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        batched = self._batched("GRUCell", input, hx)
        x = input if batched else input.unsqueeze(0)
        h = self._zeros(x) if hx is None else (hx if batched else hx.unsqueeze(0))
        out, _ = self._step("GRU", x, h, None)
        return out if batched else out.squeeze(0)
