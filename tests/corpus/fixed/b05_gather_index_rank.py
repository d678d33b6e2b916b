"""Q-learning: ``gather`` of the taken actions' values with a 1-d index.

The fixed twin of ../bugs/b05_gather_index_rank.py.
Source: https://github.com/pytorch/pytorch/pull/3130
``torch.gather(arr, 1, idx)`` with a 2-d ``arr`` and a 1-d ``idx`` fails ("Index tensor must have
the same number of dimensions as input tensor"). In a DQN update the actions ``[batch]`` must be
``unsqueeze(1)``-ed to ``[batch, 1]`` before ``q_values.gather(1, actions)``.
"""

from __future__ import annotations

from typing import Literal

import typedtensor as tt
from typedtensor import Dim, Tensor, nn
from typedtensor.nn import functional as F


class Batch(Dim):
    "transitions in one minibatch"


class State(Dim):
    "observation features"


class Actions(Dim):
    "number of discrete actions"


def td_loss(q_net: nn.Linear, states: Tensor[Batch, State], actions: Tensor[Batch], targets: Tensor[Batch, Literal[1]]) -> Tensor[()]:
    q_values = q_net(states)
    taken = q_values.gather(1, actions.unsqueeze(1))
    return F.mse_loss(taken, targets)


def main() -> None:
    q_net = nn.Linear(State(4), Actions(3))
    td_loss(q_net, tt.randn(Batch(5), State(4)), tt.randint(0, 3, (Batch(5),)), tt.randn(Batch(5), 1))
