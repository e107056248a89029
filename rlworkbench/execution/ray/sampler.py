"""A sampler: a vector env and an acting copy of the agent in one process (a Ray actor's body).

The agent crosses the process boundary as its config, backend and NumPy weights — never pickled. The sampler
steps its envs with the local :class:`~rlworkbench.execution.Worker` (episode accounting, final observations of
truncated episodes), but the agent it hands the worker only acts and records: transitions are kept for the
learner, never stored or learnt from here. :meth:`Sampler.sample` returns them as ``(num_envs, steps)`` sequences
(the batch layout of ``agent.update(batch)`` for on-policy agents) with the episodes that ended meanwhile.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from rlworkbench import nest

if TYPE_CHECKING:
    from rlworkbench.agents import Agent


class _Recorder:
    """The worker's agent inside a sampler: acts with the real agent, records what it observes, never learns."""

    def __init__(self, agent: Agent):
        self.agent = agent
        self.steps: list[tuple[Any, Any, np.ndarray, np.ndarray, Any]] = []

    def get_actions(self, states: Any, explore: bool = True) -> Any:
        return self.agent.get_actions(states, explore=explore)

    def observe(self, states: Any, actions: Any, rewards: Any, terminals: Any, next_states: Any,
                env_id: Any = None) -> None:
        self.steps.append((states, actions, np.asarray(rewards, np.float32), np.asarray(terminals, bool),
                           next_states))

    def wants_update(self) -> bool:
        return False

    def update(self, batch: Mapping[str, Any] | None = None) -> dict[str, float]:
        raise RuntimeError("a sampler does not learn")

    def reset(self) -> None:
        self.agent.reset()

    def take(self) -> dict[str, Any]:
        """The recorded steps as ``(num_envs, steps, ...)`` sequences per key; forgets them."""
        columns = list(zip(*self.steps))
        self.steps = []
        names = ("states", "actions", "rewards", "terminals", "next_states")
        return {name: nest.map_structure(lambda *rows: np.swapaxes(np.stack(rows), 0, 1), *column)
                for name, column in zip(names, columns)}


class Sampler:
    """Samples ``env`` (a Gymnasium id) x ``num_envs`` with the agent ``config`` describes, on ``backend``; the
    weights come from the learner (:meth:`set_weights`, with the learner's version number)."""

    def __init__(self, index: int, config: Mapping[str, Any], env: str, num_envs: int, backend: str,
                 seed: int | None = None, weights: Mapping[str, np.ndarray] | None = None, version: int = 0):
        from rlworkbench.agents import Agent
        from rlworkbench.core.backend import get_backend
        from rlworkbench.execution import Worker, make_vector_env

        get_backend(backend).limit_threads(1)
        self.index = index
        vector_env = make_vector_env(env, num_envs=num_envs, seed=seed)
        self.agent = Agent.from_env(vector_env, dict(config), backend=backend, seed=seed).build()
        self.recorder = self.make_recorder(self.agent)
        self.worker = Worker(self.recorder, vector_env, seed=seed, progress=False)
        self.version = 0
        if weights is not None:
            self.set_weights(weights, version)

    def set_weights(self, weights: Mapping[str, np.ndarray], version: int) -> int:
        """Takes the learner's trainable weights (its acting networks); returns the version now held."""
        self.agent.set_weights(weights, strict=False)
        self.version = int(version)
        return self.version

    def weights(self) -> dict[str, np.ndarray]:
        """The acting copy's trainable weights (as the learner sent them)."""
        return self.agent.get_weights(trainable_only=True)

    def make_recorder(self, agent: Agent) -> Any:
        """The agent the worker steps with: acts with ``agent``, keeps what it observes (sequences here)."""
        return _Recorder(agent)

    def run_steps(self, steps: int) -> dict[str, Any]:
        """Steps every env ``steps`` times; the report every sample carries: ``index``, ``version`` (of the
        weights that acted), ``timesteps`` (env steps taken) and ``episodes`` (one list per column of the episodes
        that ended: ``env_id``, ``return``, ``length``, ``terminated``, ``truncated``)."""
        episodes = self.worker.run(timesteps=steps * self.worker.num_envs)
        columns = ("env_id", "return", "length", "terminated", "truncated")
        return {"index": self.index, "version": self.version, "timesteps": steps * self.worker.num_envs,
                "episodes": {name: episodes[name].tolist() for name in columns}}

    def sample(self, steps: int) -> dict[str, Any]:
        """:meth:`run_steps` plus ``batch``: the steps as ``(num_envs, steps)`` sequences."""
        report = self.run_steps(steps)
        report["batch"] = self.recorder.take()
        return report
