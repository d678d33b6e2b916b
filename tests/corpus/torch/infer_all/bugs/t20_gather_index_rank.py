"""Q-learning: ``gather`` of the taken actions' values with a 1-d index.

Source: https://github.com/pytorch/pytorch/pull/3130
``torch.gather(arr, 1, idx)`` with a 2-d ``arr`` and a 1-d ``idx`` fails ("Index tensor must have
the same number of dimensions as input tensor"). In a DQN update the actions ``[batch]`` must be
``unsqueeze(1)``-ed to ``[batch, 1]`` before ``q_values.gather(1, actions)``.

This copy of ../t20_gather_index_rank.py has its jaxtyping annotations removed, as the program was first written:
``--infer-all`` checks it on the shapes ``main()`` passes.
"""

import torch
import torch.nn.functional as F
from torch import nn


class QNetwork(nn.Module):
    def __init__(self, n_obs: int, n_actions: int) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Linear(n_obs, 64), nn.ReLU(), nn.Linear(64, n_actions))

    def forward(self, obs):
        return self.net(obs)


def td_loss(q_values, actions,
            targets):
    taken = q_values.gather(1, actions)  # E: shape-rank
    return F.smooth_l1_loss(taken.squeeze(1), targets)


def main() -> None:
    q = QNetwork(4, 2)
    td_loss(q(torch.randn(8, 4)), torch.randint(0, 2, (8,)), torch.randn(8))
