"""A soft actor-critic target built from a per-action-dimension log-probability.

The fixed twin of ../bugs/b23_mse_unreduced_log_prob.py.
Source: https://github.com/sunwuzhou03/reinforcement-learning-lab/issues/1
``F.mse_loss(self.critic_1(states, actions), td_target.detach())`` warned "Using a target size
(torch.Size([64, 4])) that is different to the input size (torch.Size([64, 1]))": ``log_prob`` of
a 4-dimensional action was not summed over the action axis, so the entropy term (and the target)
kept 4 columns. Fixed by reducing ``log_prob`` over the last axis with ``keepdim=True``.
"""

from __future__ import annotations

from typing import Literal

import typedtensor as tt
from typedtensor import Dim, Tensor
from typedtensor.nn import functional as F


class Batch(Dim):
    "transitions in one minibatch"


class ActDim(Dim):
    "action components"


def critic_loss(q: Tensor[Batch, Literal[1]], rewards: Tensor[Batch, Literal[1]], next_q: Tensor[Batch, Literal[1]], log_prob: Tensor[Batch, ActDim]) -> Tensor[()]:
    entropy = -log_prob.sum(-1, keepdim=True)
    td_target = rewards + 0.99 * (next_q + 0.2 * entropy)
    return F.mse_loss(q, td_target.detach())


def main() -> None:
    b = Batch(64)
    critic_loss(tt.randn(b, 1), tt.randn(b, 1), tt.randn(b, 1), tt.randn(b, ActDim(4)))
