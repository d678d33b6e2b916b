"""Variable-length sequences (torch.nn.utils.rnn): padding, and the packed layout recurrent layers
read without computing on the padding.

A ``PackedSequence`` holds the steps of a batch of sequences sorted by decreasing length,
time-major: step ``t`` is the ``batch_sizes[t]`` sequences still running, so ``data`` is ``[sum
of lengths, *features]`` and ``batch_sizes`` (an int64 CPU tensor) is non-increasing. Packing and
unpacking are one ``index_select`` each (differentiable: the gradient flows back to the padded
tensor or to the packed data); ``sorted_indices`` / ``unsorted_indices`` record the sort when the
input was not sorted (``enforce_sorted=False``), and the recurrent layers reorder ``hx`` and
``h_n`` with them, as torch's do.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

from typedtensor._runtime import _C

Tensor = Any

__all__ = [
    "PackedSequence", "invert_permutation", "pack_padded_sequence", "pack_sequence", "pad_packed_sequence",
    "pad_sequence", "unpack_sequence", "unpad_sequence",
]


class _PackedFields(NamedTuple):
    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Tensor | None
    unsorted_indices: Tensor | None


class PackedSequence(_PackedFields):
    """``(data, batch_sizes, sorted_indices, unsorted_indices)``; build one with
    ``pack_padded_sequence`` or ``pack_sequence``, not by hand."""

    def __new__(
        cls, data: Tensor, batch_sizes: Tensor | None = None, sorted_indices: Tensor | None = None,
        unsorted_indices: Tensor | None = None,
    ) -> PackedSequence:
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:  # PackedSequence((data, batch_sizes), ...)
            if not (isinstance(data, (list, tuple)) and len(data) == 2):
                raise AssertionError("Expected data to be a list or tuple of length 2")
            data, batch_sizes = data
        elif batch_sizes.device.type != "cpu":
            raise ValueError(
                "batch_sizes should always be on CPU. Instances of PackedSequence should never be created manually. "
                "They should be instantiated by functions like pack_sequence and pack_padded_sequences in nn.utils.rnn."
            )
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args: Any, **kwargs: Any) -> PackedSequence:
        """``data`` converted as ``Tensor.to`` would; the indices follow it to its device,
        ``batch_sizes`` stays on the CPU."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self

        def move(t: Tensor | None) -> Tensor | None:
            return None if t is None else t.to(data.device)

        return type(self)(data, self.batch_sizes, move(self.sorted_indices), move(self.unsorted_indices))

    def cuda(self, *args: Any, **kwargs: Any) -> PackedSequence:
        return type(self)(self.data.cuda(*args, **kwargs), self.batch_sizes,
                          *(None if t is None else t.cuda(*args, **kwargs) for t in (self.sorted_indices, self.unsorted_indices)))

    def cpu(self) -> PackedSequence:
        return self.to("cpu")

    def pin_memory(self) -> PackedSequence:
        return self

    def double(self) -> PackedSequence:
        return self.to(dtype=_C.float64)

    def float(self) -> PackedSequence:
        return self.to(dtype=_C.float32)

    def half(self) -> PackedSequence:
        return self.to(dtype=_C.float16)

    def long(self) -> PackedSequence:
        return self.to(dtype=_C.int64)

    def int(self) -> PackedSequence:
        return self.to(dtype=_C.int32)

    def byte(self) -> PackedSequence:
        return self.to(dtype=_C.uint8)

    @property
    def is_cuda(self) -> bool:
        return bool(self.data.is_cuda)

    def is_pinned(self) -> bool:
        return False


def invert_permutation(permutation: Tensor | None) -> Tensor | None:
    """The permutation that undoes ``permutation`` (None stays None)."""
    if permutation is None:
        return None
    return permutation.argsort()


def _lengths_list(lengths: Any) -> list[int]:
    if isinstance(lengths, _C.Tensor):
        return [int(v) for v in lengths.cpu().reshape(-1).tolist()]
    return [int(v) for v in lengths]


def _batch_sizes(lengths: Sequence[int]) -> list[int]:
    """Rows per step of sequences sorted by decreasing length."""
    return [sum(1 for n in lengths if n > t) for t in range(lengths[0])] if lengths else []


def pack_padded_sequence(input: Tensor, lengths: Any, batch_first: bool = False, enforce_sorted: bool = True) -> PackedSequence:
    """Pack a padded batch (``[T, B, *]``, or ``[B, T, *]`` with ``batch_first``) whose sequence
    ``b`` is ``lengths[b]`` long. With ``enforce_sorted`` the lengths must already decrease."""
    lens = _lengths_list(lengths)
    sorted_indices: Tensor | None = None
    if enforce_sorted:
        if any(a < b for a, b in itertools.pairwise(lens)):
            raise RuntimeError(
                "`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. You can pass "
                "`enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to sidestep this requirement "
                "if you do not need ONNX exportability."
            )
        order = list(range(len(lens)))
    else:
        order = sorted(range(len(lens)), key=lambda i: -lens[i])
        sorted_indices = _C.tensor(order, dtype=_C.int64, device=input.device)
        lens = [lens[i] for i in order]
    steps = input.shape[1 if batch_first else 0] if input.ndim >= 2 else 0
    batch = input.shape[0 if batch_first else 1] if input.ndim >= 2 else 0
    if input.ndim < 2 or len(lens) != batch:
        raise ValueError(f"Expected `len(lengths)` to be equal to batch_size, but got {len(lens)} (batch_size={batch})")
    if lens and lens[-1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' that is <= 0")
    if lens and lens[0] > steps:
        raise RuntimeError(f"Expected sequence length to be no larger than {steps}, but got {lens[0]}")
    sizes = _batch_sizes(lens)
    # row (t, b) of the packed data is row b of step t in the padded input, b indexing the sorted batch
    rows = [(b * steps + t) if batch_first else (t * batch + b) for t, n in enumerate(sizes) for b in (order[i] for i in range(n))]
    flat = input.reshape(batch * steps, *input.shape[2:])
    data = flat.index_select(0, _C.tensor(rows, dtype=_C.int64, device=input.device))
    return PackedSequence(data, _C.tensor(sizes, dtype=_C.int64), sorted_indices, None)


def pad_packed_sequence(
    sequence: PackedSequence, batch_first: bool = False, padding_value: float = 0.0, total_length: int | None = None,
) -> tuple[Tensor, Tensor]:
    """Undo ``pack_padded_sequence``: the padded batch (in the original order) and the lengths
    (an int64 CPU tensor). ``total_length`` pads to that many steps (at least the longest)."""
    sizes = [int(v) for v in sequence.batch_sizes.tolist()]
    steps = len(sizes)
    if total_length is not None:
        if total_length < steps:
            raise ValueError(
                "Expected total_length to be at least the length of the longest sequence in input, but got "
                f"total_length={total_length} and max sequence length being {steps}"
            )
        steps = total_length
    batch = sizes[0] if sizes else 0
    data = sequence.data
    n = data.shape[0]
    offsets = [0]
    for s in sizes:
        offsets.append(offsets[-1] + s)
    # every padded position takes its packed row, or row n: one extra row of padding_value
    take = [n] * (steps * batch)
    for t, s in enumerate(sizes):
        for b in range(s):
            take[(b * steps + t) if batch_first else (t * batch + b)] = offsets[t] + b
    pad_row = _C.full((1, *data.shape[1:]), padding_value, dtype=data.dtype, device=data.device)
    padded = _C.cat([data, pad_row]).index_select(0, _C.tensor(take, dtype=_C.int64, device=data.device))
    padded = padded.reshape(batch, steps, *data.shape[1:]) if batch_first else padded.reshape(steps, batch, *data.shape[1:])
    lengths = _C.tensor([sum(1 for s in sizes if s > b) for b in range(batch)], dtype=_C.int64)
    if sequence.unsorted_indices is not None:
        padded = padded.index_select(0 if batch_first else 1, sequence.unsorted_indices)
        lengths = lengths.index_select(0, sequence.unsorted_indices.cpu())
    return padded, lengths


def pad_sequence(
    sequences: Tensor | Iterable[Tensor], batch_first: bool = False, padding_value: float = 0.0,
    padding_side: str = "right",
) -> Tensor:
    """Stack sequences ``[L_i, *]`` into ``[max L, B, *]`` (``[B, max L, *]`` with ``batch_first``),
    padding each at its end (``padding_side="right"``) or its start (``"left"``)."""
    if not isinstance(sequences, Iterable):
        raise RuntimeError(f"pad_sequence: Expected iterable for input sequences, but got arg of type: {type(sequences)}")
    seqs = list(sequences)
    if padding_side not in ("left", "right"):
        raise ValueError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    if not seqs:
        raise RuntimeError("received an empty list of sequences")
    longest = max(s.shape[0] if s.ndim else 1 for s in seqs)
    rows = []
    for s in seqs:
        s = s.reshape(1) if s.ndim == 0 else s
        if s.shape[1:] != seqs[0].shape[1:]:
            raise RuntimeError(f"The size of tensor a ({s.shape[1] if s.ndim > 1 else 1}) must match the size of "
                               "tensor b at non-singleton dimension (pad_sequence: every sequence's trailing dims)")
        gap = longest - s.shape[0]
        if gap:
            fill = _C.full((gap, *s.shape[1:]), padding_value, dtype=s.dtype, device=s.device)
            s = _C.cat([s, fill] if padding_side == "right" else [fill, s])
        rows.append(s)
    return _C.stack(rows, 0 if batch_first else 1)


def unpad_sequence(padded_sequences: Tensor, lengths: Tensor, batch_first: bool = False) -> list[Tensor]:
    """The sequences of a padded batch, each cut to its length."""
    batch = padded_sequences if batch_first else padded_sequences.transpose(0, 1)
    return [batch[i, :n] for i, n in enumerate(_lengths_list(lengths))]


def pack_sequence(sequences: Sequence[Tensor], enforce_sorted: bool = True) -> PackedSequence:
    """Pack a list of sequences ``[L_i, *]`` (by decreasing length unless ``enforce_sorted=False``)."""
    lengths = [s.shape[0] for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences: PackedSequence) -> list[Tensor]:
    """The list of sequences a ``PackedSequence`` holds, in their original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
