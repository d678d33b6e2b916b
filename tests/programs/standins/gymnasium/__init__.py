"""gymnasium, as far as pytorch/examples' reinforcement_learning programs reach it: ``gym.make(
"CartPole-v1")`` with ``reset(seed=)`` / ``step(action)`` and ``env.spec.reward_threshold``.

The cart-pole is gymnasium's CartPole-v1: the Barto-Sutton-Anderson dynamics with gymnasium's
constants and explicit Euler steps of 0.02 s, a start state uniform on ``[-0.05, 0.05)^4`` drawn
from ``np.random.Generator(PCG64(SeedSequence(seed)))`` as gymnasium seeds its environments (so a
seed gives gymnasium's own episodes), termination once the pole leans past 12 degrees or the cart
leaves ``[-2.4, 2.4]``, reward 1 per step, and the 500-step limit of ``TimeLimit`` (``truncated``).
Rendering draws nothing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["make"]


@dataclass(frozen=True)
class EnvSpec:
    id: str
    reward_threshold: float
    max_episode_steps: int


_SPECS = {"CartPole-v1": EnvSpec("CartPole-v1", reward_threshold=475.0, max_episode_steps=500)}


class CartPoleEnv:
    """The cart-pole of gymnasium's ``CartPole-v1``, with its time limit."""

    gravity = 9.8
    masscart = 1.0
    masspole = 0.1
    length = 0.5  # half the pole's length
    force_mag = 10.0
    tau = 0.02  # seconds per step
    theta_threshold_radians = 12 * 2 * math.pi / 360
    x_threshold = 2.4

    def __init__(self, spec: EnvSpec, render_mode: str | None = None) -> None:
        self.spec = spec
        self.render_mode = render_mode
        self.np_random = np.random.Generator(np.random.PCG64(np.random.SeedSequence()))
        self.state: tuple[float, float, float, float] | None = None
        self._elapsed = 0

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        if seed is not None:
            self.np_random = np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed)))
        low, high = -0.05, 0.05
        if options:
            low, high = float(options.get("low", low)), float(options.get("high", high))
        self.state = tuple(float(v) for v in self.np_random.uniform(low=low, high=high, size=(4,)))  # type: ignore[assignment]
        self._elapsed = 0
        return np.array(self.state, dtype=np.float32), {}

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if int(action) not in (0, 1):
            raise AssertionError(f"{action!r} ({type(action)}) invalid")
        if self.state is None:
            raise AssertionError("Call reset before using step method.")
        x, x_dot, theta, theta_dot = self.state
        force = self.force_mag if int(action) == 1 else -self.force_mag
        total_mass = self.masspole + self.masscart
        polemass_length = self.masspole * self.length
        cos_t, sin_t = math.cos(theta), math.sin(theta)
        temp = (force + polemass_length * theta_dot**2 * sin_t) / total_mass
        theta_acc = (self.gravity * sin_t - cos_t * temp) / (
            self.length * (4.0 / 3.0 - self.masspole * cos_t**2 / total_mass)
        )
        x_acc = temp - polemass_length * theta_acc * cos_t / total_mass
        # explicit Euler: positions move with the old velocities
        x, x_dot = x + self.tau * x_dot, x_dot + self.tau * x_acc
        theta, theta_dot = theta + self.tau * theta_dot, theta_dot + self.tau * theta_acc
        self.state = (x, x_dot, theta, theta_dot)
        terminated = bool(
            x < -self.x_threshold or x > self.x_threshold
            or theta < -self.theta_threshold_radians or theta > self.theta_threshold_radians
        )
        self._elapsed += 1
        truncated = self._elapsed >= self.spec.max_episode_steps
        return np.array(self.state, dtype=np.float32), 1.0, terminated, truncated, {}

    def render(self) -> None:
        return None

    def close(self) -> None:
        return None


def make(id: str, render_mode: str | None = None, **kwargs: Any) -> CartPoleEnv:
    """The environment registered as ``id`` (only ``CartPole-v1`` here)."""
    if id not in _SPECS:
        raise NotImplementedError(f"gymnasium stand-in: only {sorted(_SPECS)}, not {id!r}")
    return CartPoleEnv(_SPECS[id], render_mode=render_mode)
