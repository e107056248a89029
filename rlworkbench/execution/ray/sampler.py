"""A sampler: a vector env and an acting copy of the agent in one process (a Ray actor's body).

The agent crosses the process boundary as its config, backend and NumPy weights — never pickled. The sampler
steps its envs with the local :class:`~rlworkbench.execution.Worker` (episode accounting, final observations of
truncated episodes), but the agent it hands the worker only acts and records: transitions are kept for the
learner, never stored or learnt from here. :meth:`Sampler.sample` returns them as ``(num_envs, steps)`` sequences
(the batch layout of ``agent.update(batch)`` for on-policy agents) with the episodes that ended meanwhile, as a
typed :class:`~.flow_types.Fragment`; a recurrent agent's fragments carry ``internal_states``, the state each
env's sequence starts from. The acting copy is built with only the API methods acting needs
(:meth:`~rlworkbench.agents.Agent.acting_api_methods`): no optimizer, no memory, nothing to update.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from rlworkbench import nest
from rlworkbench.execution.ray.flow_types import EpisodeEnds, Fragment, SampleReport

if TYPE_CHECKING:
    from rlworkbench.agents import Agent
    from rlworkbench.agents.protocols import Mask


class _Recorder:
    """The worker's agent inside a sampler: acts with the real agent, records what it observes, never learns."""

    def __init__(self, agent: Agent):
        self.agent = agent
        self.wants_episode_starts = agent.wants_episode_starts
        self.steps: list[tuple[Any, Any, np.ndarray, np.ndarray, Any]] = []
        self.first_state: tuple[np.ndarray, ...] | None = None  # a recurrent agent's state at the first step

    def get_actions(self, states: Any, explore: bool = True, episode_starts: Mask | None = None) -> Any:
        actions = self.agent.get_actions(states, explore=explore, episode_starts=episode_starts)
        if self.agent.recurrent and not self.steps:
            self.first_state = self.agent.row_states.acted_with  # (a recurrent agent's)
        return actions

    def observe(self, states: Any, actions: Any, rewards: Any, terminals: Any, next_states: Any,
                env_id: Any = None) -> None:
        self.steps.append((states, actions, np.asarray(rewards, np.float32), np.asarray(terminals, bool),
                           next_states))

    def wants_update(self) -> bool:
        return False

    def update(self, batch: Mapping[str, object] | None = None) -> dict[str, float]:
        raise RuntimeError("a sampler does not learn")

    def reset(self) -> None:
        self.agent.reset()

    def take(self) -> dict[str, object]:
        """The recorded steps as ``(num_envs, steps, ...)`` sequences per key; forgets them."""
        columns = list(zip(*self.steps))
        self.steps = []
        names = ("states", "actions", "rewards", "terminals", "next_states")
        batch = {name: nest.map_structure(lambda *rows: np.swapaxes(np.stack(rows), 0, 1), *column)
                 for name, column in zip(names, columns)}
        if self.agent.recurrent:  # the state each env's sequence starts from
            batch["internal_states"], self.first_state = self.first_state, None
        return batch


class Sampler:
    """Samples ``env`` (a Gymnasium id) x ``num_envs`` with the agent ``config`` describes, on ``backend``; the
    weights come from the learner (:meth:`set_weights`, with the learner's version number)."""

    def __init__(self, index: int, config: Mapping[str, object], env: str, num_envs: int, backend: str,
                 seed: int | None = None, weights: Mapping[str, np.ndarray] | None = None, version: int = 0):
        from rlworkbench.agents import Agent
        from rlworkbench.core.backend import get_backend
        from rlworkbench.execution import Worker, make_vector_env

        get_backend(backend).limit_threads(1)
        self.index = index
        vector_env = make_vector_env(env, num_envs=num_envs, seed=seed)
        agent = Agent.from_env(vector_env, dict(config), backend=backend, seed=seed)
        self.agent = agent.build(api_methods=agent.acting_api_methods())
        self.recorder = self.make_recorder(self.agent)
        self.worker = Worker(self.recorder, vector_env, seed=seed, progress=False)
        self._held_names = set(self.agent.get_weights(trainable_only=True))
        self.version = 0
        if weights is not None:
            self.set_weights(weights, version)

    def become(self, *arguments: object) -> int:
        """Rebuilds this sampler from constructor ``arguments`` (new envs, agent and weights) in the process it
        runs in: how a spare takes a failed sampler's place without a process start. Returns its index."""
        self.__init__(*arguments)  # type: ignore[misc]
        return self.index

    def set_weights(self, weights: Mapping[str, np.ndarray], version: int) -> int:
        """Takes the learner's trainable weights of the networks it acts with (the rest — a value network PPO's
        acting does not need — is not built here); returns the version now held."""
        held = self._held_names
        self.agent.set_weights({name: value for name, value in weights.items() if name in held}, strict=False)
        self.version = int(version)
        return self.version

    def weights(self) -> dict[str, np.ndarray]:
        """The acting copy's trainable weights (as the learner sent them)."""
        return self.agent.get_weights(trainable_only=True)

    def make_recorder(self, agent: Agent) -> Any:
        """The agent the worker steps with: acts with ``agent``, keeps what it observes (sequences here)."""
        return _Recorder(agent)

    def run_steps(self, steps: int) -> SampleReport:
        """Steps every env ``steps`` times; the report every sample carries (see :class:`SampleReport`)."""
        started = time.perf_counter()
        episodes = self.worker.run(timesteps=steps * self.worker.num_envs)
        ends = EpisodeEnds(*(episodes[name].tolist() for name in ("env_id", "return", "length", "terminated",
                                                                   "truncated")))
        return SampleReport(self.index, self.version, steps * self.worker.num_envs, ends,
                            seconds=time.perf_counter() - started)

    def sample(self, steps: int) -> Fragment:
        """:meth:`run_steps` with the steps as ``(num_envs, steps)`` sequences."""
        report = self.run_steps(steps)
        return Fragment(report, self.recorder.take())


class ImpalaSampler(Sampler):
    """A :class:`Sampler` whose fragments carry ``behaviour_log_probs``: the agent's log-probs of its actions
    under the weights that acted (they do not change within a fragment)."""

    def sample(self, steps: int) -> Fragment:
        fragment = super().sample(steps)
        fragment.batch["behaviour_log_probs"] = self.agent.behaviour_log_probs(fragment.batch)
        return fragment
