"""``nn.AdaptiveLogSoftmaxWithLoss``: torch's adaptive softmax (Grave et al., "Efficient softmax
approximation for GPUs"). A head classifies the shortlist (the first ``cutoffs[0]`` classes) and one
entry per tail cluster; each cluster has its own two-layer projection (``in_features`` to
``in_features // div_value ** (i + 1)`` to the cluster's classes). The same parameters, names and
numbers as torch's; the targets are read on the host to route each row to its cluster."""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Sequence
from typing import Any

from typedtensor._runtime import _C
from typedtensor._runtime import functional as F
from typedtensor._runtime.errors import check_module
from typedtensor.nn.containers import ModuleList, Sequential
from typedtensor.nn.layers import Linear
from typedtensor.nn.module import Module

Tensor = Any

_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])


def _index(values: list[int], device: Any) -> Tensor:
    return _C.tensor(values, dtype=_C.int64, device=device)


class AdaptiveLogSoftmaxWithLoss(Module):
    """``forward(input [N, in_features], target [N])`` gives ``(output [N], loss [])``: each target's log
    probability and the mean negative log likelihood; ``log_prob`` gives all ``n_classes`` log
    probabilities, ``predict`` the most probable class."""

    def __init__(self, in_features: int, n_classes: int, cutoffs: Sequence[int], div_value: float = 4.0,
                 head_bias: bool = False, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        cutoffs = list(cutoffs)
        if len(cutoffs) == 0:
            raise ValueError("cutoffs should be a sequence of length larger than 0")
        if (cutoffs != sorted(cutoffs) or min(cutoffs) <= 0 or max(cutoffs) > n_classes - 1
                or len(set(cutoffs)) != len(cutoffs) or any(int(c) != c for c in cutoffs)):
            raise ValueError("cutoffs should be a sequence of unique, positive integers sorted in an increasing "
                             "order, where each value is between 1 and n_classes-1")
        self.in_features = in_features
        self.n_classes = n_classes
        self.cutoffs = [*cutoffs, n_classes]
        self.div_value = div_value
        self.head_bias = head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        self.head = Linear(in_features, self.head_size, bias=head_bias, device=device, dtype=dtype)
        self.tail = ModuleList()
        for i in range(self.n_clusters):
            hsz = int(in_features // (div_value ** (i + 1)))
            osz = self.cutoffs[i + 1] - self.cutoffs[i]
            self.tail.append(Sequential(Linear(in_features, hsz, bias=False, device=device, dtype=dtype),
                                        Linear(hsz, osz, bias=False, device=device, dtype=dtype)))

    def reset_parameters(self) -> None:
        self.head.reset_parameters()
        for layer in self.tail.modules():
            if isinstance(layer, Linear):
                layer.reset_parameters()

    def forward(self, input_: Tensor, target_: Tensor) -> _ASMoutput:
        check_module("AdaptiveLogSoftmaxWithLoss", self, input=input_, target=target_)
        batched = target_.ndim > 0
        input = input_ if batched else input_.unsqueeze(0)
        target = target_ if batched else target_.unsqueeze(0)
        labels = [int(v) for v in target.tolist()]
        if any(not 0 <= v < self.n_classes for v in labels):
            raise RuntimeError(f"Target values should be in [0, {self.n_classes - 1}], but values in range "
                               f"[{min(labels)}, {max(labels)}] were found. ")
        dev = input.device
        gather = list(labels)  # the head's column of each row: its class, or its cluster's entry
        pieces: list[Tensor] = []
        where = [-1] * len(labels)  # each row's position among the cluster rows (-1: a shortlist row)
        done = 0
        for i in range(self.n_clusters):
            low, high = self.cutoffs[i], self.cutoffs[i + 1]
            rows = [r for r, v in enumerate(labels) if low <= v < high]
            if not rows:
                continue
            cluster_logprob = F.log_softmax(self.tail[i](input.index_select(0, _index(rows, dev))), dim=1)
            relative = _index([labels[r] - low for r in rows], dev).unsqueeze(1)
            pieces.append(cluster_logprob.gather(1, relative).squeeze(1))
            for k, r in enumerate(rows):
                gather[r] = self.shortlist_size + i
                where[r] = done + k
            done += len(rows)
        head_logprob = F.log_softmax(self.head(input), dim=1)
        output = head_logprob.gather(1, _index(gather, dev).unsqueeze(1)).squeeze(1)
        if pieces:
            # the cluster rows' log probabilities back in row order, 0 for the shortlist rows (a gather,
            # whose VJP scatters each row's gradient back into its cluster's piece)
            tail = _C.cat([*pieces, _C.zeros(1, dtype=output.dtype, device=dev)])
            output = tail.index_select(0, _index([done if w < 0 else w for w in where], dev)) + output
        loss = (-output).mean()
        if not batched:
            output = output.squeeze(0)
        return _ASMoutput(output, loss)

    def _get_full_log_prob(self, input: Tensor, head_output: Tensor) -> Tensor:
        """The log probabilities of all ``n_classes`` from the head's output: the shortlist's as they are,
        each cluster's within the cluster plus its head entry."""
        head_logprob = F.log_softmax(head_output, dim=1)
        parts = [head_logprob[:, : self.shortlist_size]]
        for i in range(self.n_clusters):
            cluster_logprob = F.log_softmax(self.tail[i](input), dim=1)
            parts.append(cluster_logprob + head_logprob[:, self.shortlist_size + i].unsqueeze(1))
        return _C.cat(parts, 1)

    def log_prob(self, input: Tensor) -> Tensor:
        """``[N, in_features] -> [N, n_classes]``."""
        head_output = self.head(input)
        return self._get_full_log_prob(input, head_output)

    def predict(self, input: Tensor) -> Tensor:
        """The most probable class of each row, ``log_prob(input).argmax(dim=1)``: the clusters are
        evaluated only for the rows whose head prediction is not in the shortlist."""
        head_output = self.head(input)
        output = head_output.argmax(dim=1)
        not_in_shortlist = output >= self.shortlist_size
        if not bool(not_in_shortlist.any()):
            return output
        if bool(not_in_shortlist.all()):
            return self._get_full_log_prob(input, head_output).argmax(dim=1)
        rows = [r for r, v in enumerate(not_in_shortlist.tolist()) if v]
        index = _index(rows, input.device)
        picked = self._get_full_log_prob(input.index_select(0, index), head_output.index_select(0, index))
        return output.index_copy(0, index, picked.argmax(dim=1))
