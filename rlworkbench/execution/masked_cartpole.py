"""Partially observed CartPole: the cart's position and the pole's angle, without their velocities.

:class:`MaskedCartPole` keeps observation indices 0 and 2 of CartPole (``Box`` of shape ``(2,)`` with CartPole's
bounds for them), so a policy has to infer the velocities from the history: the smallest task where a recurrent
(LSTM) agent should beat a feed-forward one. ``gymnasium.make(MASKED_CARTPOLE_ID)`` is it over CartPole's
dynamics, truncated at 500 steps like ``CartPole-v1``; :func:`~rlworkbench.execution.make_vector_env` takes the id.

Registration: the id is put into Gymnasium's registry when this module is imported, i.e. by
``import rlworkbench.execution`` (or any module under it), so every process that can make our vector envs can make
it by id — Ray samplers and the subprocesses of an ``AsyncVectorEnv`` unpickle their env factory from
:mod:`rlworkbench.execution.envs` and so import this package first; plain ``gymnasium.make`` works as well.
That is Gymnasium's own convention (its built-ins and env packages such as ``ale_py`` register on import) and, as
for our component registry, a declaration rather than a side effect: one entry naming this module's own factory,
added once (idempotent), and nothing else changes — no environment variable, hook, logger, thread, warnings filter
or file (what ``tests/workbench/test_import_side_effects.py`` measures). The explicit form
``gymnasium.make("rlworkbench.execution.masked_cartpole:rlworkbench/MaskedCartPole-v1")`` needs no prior import.
"""

from __future__ import annotations

import gymnasium
import numpy as np
from gymnasium.envs.classic_control import CartPoleEnv

MASKED_CARTPOLE_ID = "rlworkbench/MaskedCartPole-v1"
KEPT = (0, 2)  # cart position, pole angle (CartPole's velocities are indices 1 and 3)


class MaskedCartPole(gymnasium.ObservationWrapper):
    """A CartPole env (observations of shape ``(4,)``) whose observations are only indices 0 and 2 (float32)."""

    def __init__(self, env: gymnasium.Env):
        space = env.observation_space
        if not isinstance(space, gymnasium.spaces.Box) or space.shape != (4,):
            raise ValueError(f"MaskedCartPole wraps CartPole's Box of shape (4,), got {space!r}")
        super().__init__(env)
        kept = list(KEPT)
        self.observation_space = gymnasium.spaces.Box(space.low[kept], space.high[kept], (len(kept),), np.float32)

    def observation(self, observation: np.ndarray) -> np.ndarray:
        return np.asarray(observation, np.float32)[list(KEPT)]


def make_masked_cartpole(sutton_barto_reward: bool = False, render_mode: str | None = None) -> MaskedCartPole:
    """The registered entry point: ``MaskedCartPole`` over an unwrapped ``CartPoleEnv`` (its time limit comes from
    the registration, or from ``max_episode_steps`` given to ``gymnasium.make``)."""
    return MaskedCartPole(CartPoleEnv(sutton_barto_reward=sutton_barto_reward, render_mode=render_mode))


def register_envs() -> None:
    """Registers :data:`MASKED_CARTPOLE_ID` with Gymnasium unless it is there (done when this module is imported)."""
    if MASKED_CARTPOLE_ID not in gymnasium.registry:
        gymnasium.register(MASKED_CARTPOLE_ID, entry_point=f"{__name__}:make_masked_cartpole",
                           max_episode_steps=500, reward_threshold=475.0)


register_envs()
