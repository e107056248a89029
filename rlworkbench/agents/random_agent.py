"""The random baseline: uniform random actions from the action space, no learning.

Every learning curve wants this line under it, and every worker test wants an agent whose actions cost nothing
and depend only on a seed. It speaks the agent interface (``get_actions``, ``observe``, ``wants_update``,
``update``, ``reset``, ``timesteps``, ``save``) without being built from components.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from rlworkbench import nest
from rlworkbench.agents.protocols import Arrays
from rlworkbench.errors import SpaceError
from rlworkbench.spaces import IntBox, Space, as_space


class RandomAgent:
    """Samples actions uniformly from ``action_space`` (a seeded generator); observes only to count timesteps.

    ``state_space`` and ``action_space`` are the spaces of one state and one action (no batch rank).
    """

    def __init__(self, state_space: Space, action_space: Space, seed: int | None = None):
        self.state_space = as_space(state_space, "state_space").strip_ranks()
        self.action_space = as_space(action_space, "action_space").strip_ranks()
        self.seed = seed
        self.timesteps = 0
        self._rng = np.random.default_rng(seed)
        self._state_leaves = list(self.state_space.flatten().values())
        self._categories = self._scalar_categories(self.action_space)

    @classmethod
    def from_env(cls, env: Any, config: dict[str, object] | None = None, *, backend: str | None = None,
                 seed: int | None = None) -> RandomAgent:
        """From a Gymnasium env or vector env (its single-env spaces); ``backend`` is ignored (no graph)."""
        from rlworkbench.spaces import from_gymnasium

        observation_space = getattr(env, "single_observation_space", env.observation_space)
        action_space = getattr(env, "single_action_space", env.action_space)
        seed = (config or {}).get("seed", seed)
        return cls(from_gymnasium(observation_space), from_gymnasium(action_space), seed=seed)

    def get_actions(self, states: Arrays, explore: bool = True) -> Arrays:
        """One random action per state in the batch ``states`` (or one action for a single, unbatched state)."""
        leaf, leaf_space = nest.leaves(states)[0], self._state_leaves[0]
        extra_dims = np.ndim(leaf) - len(leaf_space.shape)
        if extra_dims == 0:
            return self.action_space.sample(seed=self._rng)
        if extra_dims != 1:
            raise SpaceError("states must be one state or a batch of states", argument="states",
                             expected=f"shape {leaf_space.shape} or (batch, *{leaf_space.shape})",
                             got=np.shape(leaf))
        if self._categories is not None:  # Discrete: one draw, no per-call space bookkeeping
            low, high, dtype = self._categories
            return self._rng.integers(low, high, size=len(leaf)).astype(dtype, copy=False)
        return self.action_space.sample(len(leaf), seed=self._rng)

    @staticmethod
    def _scalar_categories(space: Space) -> tuple[int, int, np.dtype] | None:
        if isinstance(space, IntBox) and space.shape == () and space.num_categories is not None:
            return int(space.low), int(space.high), space.dtype
        return None

    def observe(self, states: Arrays, actions: Arrays, rewards: Arrays, terminals: Arrays, next_states: Arrays,
                env_id: Any = None) -> None:
        self.timesteps += int(np.size(rewards))

    def wants_update(self) -> bool:
        return False

    def update(self, batch: Any = None) -> dict[str, float]:
        return {}

    def reset(self) -> None:
        """Nothing to reset: a random agent keeps no per-episode state."""

    def save(self, directory: str | Path) -> Path:
        """Writes ``agent.json`` (type, seed, timesteps) to ``directory``."""
        path = Path(directory)
        path.mkdir(parents=True, exist_ok=True)
        (path / "agent.json").write_text(json.dumps({"type": "random", "seed": self.seed,
                                                     "timesteps": self.timesteps}))
        return path

    def __repr__(self) -> str:
        return f"RandomAgent(state_space={self.state_space}, action_space={self.action_space})"
