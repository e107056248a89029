"""IMPALA as an agent: :class:`ImpalaGraph` made from a config, learning from fixed-length sequences.

On Ray, sampler actors act with slightly older weights and send ``(num_envs, rollout_length)`` fragments with the
log-probs of their actions under the weights that acted (:meth:`ImpalaAgent.behaviour_log_probs`); v-trace corrects
for the lag (see :mod:`rlworkbench.execution.ray.impala`). Locally the agent collects the same sequences per
environment with ``observe`` and learns from them on-policy (v-trace's importance weights are then 1).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any

import numpy as np

from rlworkbench import nest
from rlworkbench.agents.actor_critic_root import (
    actor_critic_optimizer,
    policy_and_value_network,
    stateless_stack,
)
from rlworkbench.agents.agent import PREPROCESSED, Agent
from rlworkbench.agents.config import config_section
from rlworkbench.agents.impala_config import DEFAULTS, SCHEMA
from rlworkbench.agents.impala_graph import ImpalaGraph, RecurrentImpalaGraph
from rlworkbench.agents.policy_root import PolicyActing
from rlworkbench.agents.protocols import Arrays
from rlworkbench.agents.registry import register_agent
from rlworkbench.agents.sequence_buffer import SequenceBuffer
from rlworkbench.agents.sequence_checks import checked_sequences
from rlworkbench.agents.transitions import check_batch_keys
from rlworkbench.components.losses.vtrace_loss import VTraceLoss
from rlworkbench.components.policies.policy import Policy
from rlworkbench.components.policies.recurrent_policy import RecurrentPolicy
from rlworkbench.core.builder import OutputSpaceOf
from rlworkbench.core.component import Component
from rlworkbench.spaces import FloatBox, Space

SequenceContext = tuple[tuple[np.ndarray, ...], np.ndarray] | None
"""A recurrent agent's start state and resets of the sequences (None without recurrence)."""

SEQUENCE_KEYS = ("states", "actions", "rewards", "terminals", "next_states")


@register_agent("impala")
class ImpalaAgent(PolicyActing, Agent):
    """IMPALA's actor-critic with v-trace targets for any action space the :class:`Policy` covers; see
    :mod:`rlworkbench.agents.impala_config` for the config.

    Sequences: a step continues into the next one of its sequence unless it is terminal (discount 0) or its
    episode was truncated (the next step starts another episode: ``discount * V(final observation)`` is folded
    into its reward and the discount is 0). The last step of a sequence bootstraps from ``V(next_state)``.
    ``update()`` learns from ``update/rollout_length`` steps of every environment seen (``wants_update`` says
    when they are there), ``update(batch)`` from outside sequences; preprocessors must be stateless (states are
    preprocessed at update time).
    """

    float_actions_in_bounds = False  # stores its Gaussian's raw samples; the env clips them

    schema = SCHEMA
    defaults = DEFAULTS
    optional_batch_keys: tuple[str, ...] = ("behaviour_log_probs",)  # besides SEQUENCE_KEYS

    def make_root(self) -> ImpalaGraph:
        config = self.config
        with config_section("preprocessing"):
            self.preprocessor = stateless_stack(config["preprocessing"], "IMPALA")
        policy, value_network = policy_and_value_network(config["policy"], self.action_space)
        with config_section("loss"):
            loss = VTraceLoss(**config["loss"], name="loss")
        optimizer = actor_critic_optimizer(config["optimizer"], value_network)
        self.sequences = SequenceBuffer()  # per env, its transitions not learnt from yet
        return self.make_graph(policy, loss, optimizer, value_network)

    def make_graph(self, policy: Policy, loss: VTraceLoss, optimizer: Component,
                   value_network: Component | None) -> ImpalaGraph:
        graph = RecurrentImpalaGraph if isinstance(policy, RecurrentPolicy) else ImpalaGraph
        return graph(policy, loss, optimizer, value_network=value_network, preprocessor=self.preprocessor)

    def root_input_spaces(self) -> dict[str, Space | OutputSpaceOf]:
        batch, sequences = {"add_batch_rank": True}, {"add_batch_rank": True, "add_time_rank": True}
        return {"states": self.state_space.with_batch_rank(), "preprocessed_states": PREPROCESSED,
                "actions": self.action_space.with_batch_rank(),
                "sequence_states": OutputSpaceOf("preprocess", add_time_rank=True),
                "sequence_actions": self.action_space.with_batch_rank().with_time_rank(),
                **{name: FloatBox(**sequences) for name in ("behaviour_log_probs", "rewards", "discounts")},
                "bootstrap_values": FloatBox(**batch)}

    # ----- observing ----------------------------------------------------------------------------------------
    def _observe(self, env_ids: list[Hashable], starts: np.ndarray, preprocessed_states: Arrays, actions: Arrays,
                 rewards: np.ndarray, terminals: np.ndarray, next_states: Arrays) -> None:
        self.sequences.add(env_ids, starts, self.preprocessed_space.flatten(preprocessed_states),
                           self.action_space.flatten(actions), rewards, terminals,
                           self.state_space.flatten(next_states))

    def wants_update(self) -> bool:
        return self.sequences.ready(self.config["update"]["rollout_length"])

    def reset(self) -> None:
        super().reset()
        self.sequences.clear()

    # ----- learning -----------------------------------------------------------------------------------------
    def update(self, batch: Mapping[str, Arrays] | None = None, out_of_bounds: str | None = None,
               ) -> dict[str, float]:
        """One gradient step on ``update/rollout_length`` observed steps of every environment, or on ``batch``:
        sequences shaped ``(num_envs, length, ...)`` with keys ``states``, ``actions``, ``rewards``, ``terminals``,
        ``next_states`` (raw states, as ``observe`` takes them) and ``behaviour_log_probs`` (of the actions under
        the weights that acted; left out: the current weights'), checked before anything changes
        (:mod:`~rlworkbench.agents.sequence_checks`); float actions outside the bounds of a bounded distribution
        are refused, or clipped with ``out_of_bounds="clip"`` (default: the config's ``execution/out_of_bounds``,
        else ``"refuse"``). Returns ``loss``, ``policy_loss``, ``value_loss``, ``entropy`` (with
        ``loss/clip_ratio``, APPO's: also ``approx_kl``, ``clip_fraction``), ``grad_norm``, ``rollout_steps`` and
        the counts ``update/refused`` and ``observe/skipped`` (:mod:`~rlworkbench.agents.guard_counts`)."""
        self._require_built("update")
        if batch is None:
            sequences = self._take_pending()
        else:
            sequences = self._external_sequences(batch, out_of_bounds)
        self.check_rows_for_towers(len(sequences[2]), "sequences")
        metrics = self._learn(*sequences)
        self.updates += 1
        return metrics

    def acting_api_methods(self) -> list[str]:
        return [*super().acting_api_methods(), "evaluate"]

    def behaviour_log_probs(self, batch: Mapping[str, Any]) -> np.ndarray:
        """``(num_envs, length)`` log-probs of a fragment's ``actions`` in its raw ``states`` under the current
        weights — what a sampler sends with the fragment it acted with them (the fragment checked as
        :meth:`update` checks a batch)."""
        self._require_built("behaviour_log_probs")
        sequences = self._external_sequences(batch)
        return self._log_probs_now(sequences[0], sequences[1], sequences[7]).reshape(sequences[2].shape)

    def _take_pending(self) -> tuple[Any, ...]:
        taken = self.sequences.take(self.config["update"]["rollout_length"])
        return (self.preprocessed_space.unflatten(taken.states), self.action_space.unflatten(taken.actions),
                taken.rewards, taken.terminals, taken.next_states, taken.continues, None,
                self._context(taken.initial_states, taken.resets))

    def _context(self, initial_states: Sequence[np.ndarray] | None, resets: np.ndarray) -> SequenceContext:
        """What a recurrent agent needs besides the sequences (their start state and resets); None here."""
        return None

    def _external_sequences(self, batch: Mapping[str, Any], out_of_bounds: str | None = None) -> tuple[Any, ...]:
        check_batch_keys(batch, SEQUENCE_KEYS, optional=self.optional_batch_keys)
        batch = checked_sequences(batch, self.state_space, self.sampled_action_space,
                                  self.input_choice("out_of_bounds", out_of_bounds), ("behaviour_log_probs",))
        rewards, terminals = batch["rewards"], batch["terminals"]
        flat_states, flat_next = (self.state_space.flatten(batch[key]) for key in ("states", "next_states"))
        same = np.ones(rewards.shape, bool)
        num_envs, length = rewards.shape
        for key, value in flat_states.items():  # the next step of a sequence continues the episode
            equal = value[:, 1:] == flat_next[key][:, :-1]
            same[:, :-1] &= equal.reshape(num_envs, length - 1, int(np.prod(equal.shape[2:]))).all(axis=-1)
        same[:, -1] = False  # (the last step bootstraps instead)
        states = self.preprocess(nest.map_structure(_merge_time, self.state_space.unflatten(flat_states)))
        states = nest.map_structure(lambda leaf: leaf.reshape(*rewards.shape, *leaf.shape[1:]), states)
        resets = np.zeros(rewards.shape, bool)
        resets[:, 1:] = ~same[:, :-1] | terminals[:, :-1]
        return (states, batch["actions"], rewards, terminals, flat_next, same & ~terminals,
                batch.get("behaviour_log_probs"), self._context(batch.get("internal_states"), resets))

    def _learn(self, states: Arrays, actions: Arrays, rewards: np.ndarray, terminals: np.ndarray,
               flat_next_states: dict[str, np.ndarray], continues: np.ndarray,
               behaviour_log_probs: np.ndarray | None, context: SequenceContext) -> dict[str, float]:
        """One v-trace step on ``(num_envs, length)`` sequences (states preprocessed, next states raw and flat)."""
        discount = np.float32(self.config["discount"])
        last = np.zeros(rewards.shape, bool)
        last[:, -1] = True
        bootstrap = (last | (~terminals & ~continues))  # steps whose return needs V(next state)
        rows = np.flatnonzero(bootstrap.reshape(-1))
        next_states = self.state_space.unflatten({k: _merge_time(v)[rows] for k, v in flat_next_states.items()})
        next_values = np.zeros(rewards.size, np.float32)
        next_values[rows] = self._values_after(states, next_states, rows, context)
        next_values = next_values.reshape(rewards.shape)
        truncated = bootstrap & ~last  # an episode that ended unseen inside the sequence: fold V in, stop there
        rewards = rewards + np.where(truncated, discount * next_values, 0.0).astype(np.float32)
        discounts = np.where(continues | (last & ~terminals), discount, 0.0).astype(np.float32)
        if behaviour_log_probs is None:
            behaviour_log_probs = self._log_probs_now(states, actions, context).reshape(rewards.shape)
        loss, grad_norm, parts = self.api.update_sequences(
            states, actions, behaviour_log_probs=behaviour_log_probs, rewards=rewards, discounts=discounts,
            bootstrap_values=next_values[:, -1].copy(), **self._sequence_inputs(context))
        self.guard_counts.step(loss, grad_norm)
        return {"loss": float(loss), **{name: float(value) for name, value in parts.items()},
                "grad_norm": float(grad_norm), "rollout_steps": float(rewards.size), **self.guard_metrics()}

    def _values_after(self, states: Arrays, next_states: Arrays, rows: np.ndarray,
                      context: SequenceContext) -> np.ndarray:
        """``V(next_states)`` of the steps ``rows`` (flat indices into the sequences) whose returns bootstrap."""
        return np.asarray(self.api.get_state_values(self.preprocess(next_states)), np.float32)

    def _log_probs_now(self, states: Arrays, actions: Arrays, context: SequenceContext) -> np.ndarray:
        """Log-probs of the sequences' actions under the current weights (flat, one per step)."""
        log_probs, _ = self.api.evaluate(nest.map_structure(_merge_time, states),
                                         nest.map_structure(_merge_time, actions))
        return np.asarray(log_probs, np.float32).reshape(-1)

    def _sequence_inputs(self, context: SequenceContext) -> dict[str, object]:
        """Extra inputs of ``update_sequences`` (a recurrent agent's start state and resets)."""
        return {}


def _merge_time(value: Any) -> np.ndarray:
    """``(num_envs, length, ...)`` as ``(num_envs * length, ...)``."""
    value = np.asarray(value)
    return value.reshape(-1, *value.shape[2:])
