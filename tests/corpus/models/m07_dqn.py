"""Deep Q-learning: a Q-network, a target network, a replay batch, the Q-values of the actions
taken (``gather`` with an ``unsqueeze``-ed action index), the max over next actions, a Huber loss,
and epsilon-greedy action selection.

Ported from the structure of the PyTorch tutorial "Reinforcement Learning (DQN)"
(https://pytorch.org/tutorials/intermediate/reinforcement_q_learning.html).
"""

from __future__ import annotations

import random
from typing import Literal

import typedtensor as tt
from typedtensor import Dim, Tensor, nn
from typedtensor.nn import functional as F

Observations = Literal[4]
Actions = Literal[2]


class Batch(Dim):
    "transitions in one replay batch"


class DQN(nn.Module):
    def __init__(self, n_observations: int, n_actions: int) -> None:
        super().__init__()
        self.layer1 = nn.Linear(n_observations, 128)
        self.layer2 = nn.Linear(128, 128)
        self.layer3 = nn.Linear(128, n_actions)

    def forward(self, x: Tensor[Batch, Observations]) -> Tensor[Batch, Actions]:
        x = F.relu(self.layer1(x))
        x = F.relu(self.layer2(x))
        return self.layer3(x)


def select_action(policy: DQN, state: Tensor[Batch, Observations], eps: float) -> Tensor:
    if random.random() > eps:
        with tt.no_grad():
            return policy(state).max(1).indices.view(-1, 1)
    return tt.tensor([[random.randrange(2)]], dtype=tt.long)


def optimize(policy: DQN, target: DQN, opt: tt.optim.Optimizer, states: Tensor[Batch, Observations],
             actions: Tensor[Batch], rewards: Tensor[Batch], next_states: Tensor[Batch, Observations],
             done: Tensor[Batch], gamma: float = 0.99) -> float:
    q_values = policy(states)
    state_action_values = q_values.gather(1, actions.unsqueeze(1))
    with tt.no_grad():
        next_values = target(next_states).max(1).values
    expected = rewards + gamma * next_values * (1 - done.float())
    loss = F.smooth_l1_loss(state_action_values, expected.unsqueeze(1))
    opt.zero_grad()
    loss.backward()
    opt.step()
    return loss.item()


def soft_update(policy: DQN, target: DQN, tau: float) -> None:
    target_state = target.state_dict()
    policy_state = policy.state_dict()
    for key in policy_state:
        target_state[key] = policy_state[key] * tau + target_state[key] * (1 - tau)
    target.load_state_dict(target_state)


class ReplayMemory:
    """Transitions kept as one-row tensors; a batch is their concatenation."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self.states: list[Tensor] = []
        self.actions: list[int] = []
        self.rewards: list[float] = []

    def push(self, state: Tensor[Literal[1], Observations], action: int, reward: float) -> None:
        if len(self.states) >= self.capacity:
            self.states.pop(0)
            self.actions.pop(0)
            self.rewards.pop(0)
        self.states.append(state)
        self.actions.append(action)
        self.rewards.append(reward)

    def batch(self, size: int) -> tuple[Tensor, Tensor, Tensor]:
        chosen = random.sample(range(len(self.states)), size)
        states = tt.cat([self.states[i] for i in chosen], dim=0)
        actions = tt.tensor([self.actions[i] for i in chosen], dtype=tt.long)
        rewards = tt.tensor([self.rewards[i] for i in chosen])
        return states, actions, rewards


def main() -> None:
    policy = DQN(4, 2)
    target = DQN(4, 2)
    target.load_state_dict(policy.state_dict())
    opt = tt.optim.AdamW(policy.parameters(), lr=1e-4, amsgrad=True)
    b = Batch(8)
    optimize(policy, target, opt, tt.randn(b, 4), tt.randint(0, 2, (b,)), tt.randn(b), tt.randn(b, 4),
             tt.zeros(b, dtype=tt.long))
    soft_update(policy, target, 0.005)
    select_action(policy, tt.randn(Batch(1), 4), 0.0)
    select_action(policy, tt.randn(Batch(1), 4), 1.0)
    memory = ReplayMemory(100)
    for step in range(6):
        memory.push(tt.randn(1, 4), step % 2, 1.0)
    states, actions, _ = memory.batch(4)
    policy(states).gather(1, actions.unsqueeze(1))
