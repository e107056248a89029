"""An Ape-X sampler: acts with its own epsilon, turns its steps into n-step transitions, prioritises them itself
and sends them straight to a replay shard — the learner only hears how many and which episodes ended.

Transitions are made exactly as a local DQN agent makes them before its memory: episode starts found by an
:class:`~rlworkbench.agents.transitions.EpisodeTracker`, n-step returns per env by an
:class:`~rlworkbench.agents.transitions.NStepAccumulator` (``loss/n_step``, ``discount``), states and next states
preprocessed by the agent's stack (each observation once: acting and recording share the form). Priorities are
``agent.priorities(batch)`` — ``|TD error| + epsilon`` under the weights the sampler holds, the agent's own root
API method. Each fragment goes to the next shard in turn.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from rlworkbench.agents.transitions import EpisodeTracker, NStepAccumulator
from rlworkbench.execution.ray.flow_types import SampleReport, Transitions
from rlworkbench.execution.ray.sampler import Sampler

if TYPE_CHECKING:
    from rlworkbench.agents import Agent


class _NStepRecorder:
    """The worker's agent inside an Ape-X sampler: acts with the real agent and keeps n-step transitions."""

    def __init__(self, agent: Agent):
        self.agent = agent
        self.tracker = EpisodeTracker()
        self.n_step = NStepAccumulator(agent.config["loss"]["n_step"], agent.config["discount"])
        self.batches: list[dict[str, Any]] = []

    def get_actions(self, states: Any, explore: bool = True) -> Any:
        return self.agent.get_actions(states, explore=explore)

    def observe(self, states: Any, actions: Any, rewards: Any, terminals: Any, next_states: Any,
                env_id: Any = None) -> None:
        raw, preprocessed = self.agent.state_space, self.agent.preprocessed_space
        env_ids = list(np.atleast_1d(env_id).tolist())
        terminals = np.asarray(terminals, bool)
        starts, _ = self.tracker.step(env_ids, raw.flatten(states), terminals, raw.flatten(next_states))
        # each observation through the stack once: states as acting just preprocessed them, next states now (kept,
        # so the next acting step reuses them unless an env was reset)
        states_preprocessed = self.agent.preprocessed(states)
        next_preprocessed = self.agent.preprocess(next_states)
        self.agent.remember_preprocessed(next_states, next_preprocessed)
        batch = self.n_step.add(env_ids, starts, preprocessed.flatten(states_preprocessed), np.asarray(actions),
                                np.asarray(rewards, np.float32), terminals, preprocessed.flatten(next_preprocessed))
        if batch is not None:
            self.batches.append(batch)

    def wants_update(self) -> bool:
        return False

    def update(self, batch: Any = None) -> dict[str, float]:
        raise RuntimeError("a sampler does not learn")

    def reset(self) -> None:
        self.agent.reset()
        self.tracker.reset()
        self.n_step.reset()

    def take(self) -> dict[str, Any] | None:
        """The n-step transitions completed so far as one batch (preprocessed ``states``/``next_states``,
        ``actions``, ``rewards``, ``terminals``), or None; forgets them."""
        if not self.batches:
            return None
        batches, self.batches = self.batches, []
        space = self.agent.preprocessed_space
        return {"states": space.unflatten(_concatenated([b["states"] for b in batches])),
                "actions": np.concatenate([b["actions"] for b in batches]),
                "rewards": np.concatenate([b["rewards"] for b in batches]),
                "terminals": np.concatenate([b["terminals"] for b in batches]),
                "next_states": space.unflatten(_concatenated([b["next_states"] for b in batches]))}


def _concatenated(parts: Sequence[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    return {key: np.concatenate([part[key] for part in parts]) for key in parts[0]}


class ApexSampler(Sampler):
    """A :class:`Sampler` whose fragments go to replay ``shards`` (actor handles) with their priorities."""

    def __init__(self, index: int, config: Any, env: Any, num_envs: int, backend: str, seed: int | None = None,
                 weights: Any = None, version: int = 0, shards: Sequence[Any] = (),
                 shard_generations: Sequence[int] = ()):
        super().__init__(index, config, env, num_envs, backend, seed, weights, version)
        self.set_shards(shards, shard_generations)
        self._next_shard = index % max(len(self.shards), 1)

    def make_recorder(self, agent: Agent) -> _NStepRecorder:
        return _NStepRecorder(agent)

    def set_shards(self, shards: Sequence[Any], generations: Sequence[int] = ()) -> None:
        """The replay shards to send to (after the learner replaced one) and their restarts so far (0 each when not
        given), which each report names for the shard it sent to."""
        self.shards = list(shards)
        self.generations = list(generations) or [0] * len(self.shards)

    def prioritised_fragment(self, steps: int) -> tuple[SampleReport, Transitions | None]:
        """Steps every env ``steps`` times; the report and the n-step transitions completed, with their priorities
        under the weights held (None when no transition completed) — everything a fragment costs but sending it."""
        report = self.run_steps(steps)
        batch = self.recorder.take()
        if batch is None:
            return report, None
        return report, Transitions(batch, np.asarray(self.agent.priorities(batch), np.float32))

    def sample(self, steps: int) -> SampleReport:
        """Steps every env ``steps`` times and sends the n-step transitions, prioritised, to the next shard; the
        report says how many (``records``), where (``shard``) and their size (``bytes``)."""
        started = time.perf_counter()
        report, transitions = self.prioritised_fragment(steps)
        if transitions is None or not self.shards:
            return report
        shard = self._next_shard
        self._next_shard = (shard + 1) % len(self.shards)
        self.shards[shard].add.remote(transitions)
        return dataclasses.replace(report, records=len(transitions), shard=shard, bytes=transitions.bytes,
                                   shard_generation=self.generations[shard],
                                   seconds=time.perf_counter() - started)
