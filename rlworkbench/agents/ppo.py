"""PPO as an agent: :class:`PPOGraph` made from a config, plus its rollout buffer and minibatch epochs."""

from __future__ import annotations

from collections.abc import Hashable, Iterator, Mapping
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
from rlworkbench.agents.policy_root import PolicyActing
from rlworkbench.agents.ppo_config import DEFAULTS, SCHEMA
from rlworkbench.agents.ppo_graph import PPOGraph, RecurrentPPOGraph
from rlworkbench.agents.ppo_rollout import Rollout, RolloutBuffer
from rlworkbench.agents.protocols import Arrays
from rlworkbench.agents.registry import register_agent
from rlworkbench.agents.sequence_checks import checked_sequences
from rlworkbench.agents.transitions import check_batch_keys
from rlworkbench.components.helpers.gae import GAE
from rlworkbench.components.losses.ppo_loss import PPOLoss
from rlworkbench.components.policies.recurrent_policy import RecurrentPolicy
from rlworkbench.core.builder import OutputSpaceOf
from rlworkbench.spaces import BoolBox, FloatBox, Space

BATCH_KEYS = ("states", "actions", "rewards", "terminals", "next_states")
LOSS_PARTS = ("policy_loss", "value_loss", "entropy", "approx_kl", "clip_fraction")


@register_agent("ppo")
class PPOAgent(PolicyActing, Agent):
    """Proximal policy optimisation for any action space the :class:`Policy` covers (categorical, normal, ...,
    containers of them); see :mod:`rlworkbench.agents.ppo_config` for the config and :class:`PPOGraph` for the
    components.

    Schedule: ``observe`` collects transitions per environment; :meth:`wants_update` is true once the buffer holds
    ``update/rollout_length`` steps per environment seen so far. :meth:`update` then learns from the whole rollout —
    ``num_epochs`` shuffled passes of ``num_minibatches`` gradient steps (stopping early past ``target_kl``) — and
    empties the buffer; ``updates`` counts these rollout updates (one :meth:`update` call each), the optimizer's
    ``steps`` variable the gradient steps.

    Returns: the log-probs and values of a rollout are computed in one batch when it is complete (the policy did
    not change while it was collected). A step's return bootstraps from ``V(next_state)`` where its episode goes on
    beyond the rollout: at the rollout's end, and on truncation (``terminals=False`` and the true final
    observation as ``next_states``; the next row of that environment then starts a new trajectory). GAE then runs
    on the rollout as batch-major sequences, one per environment.

    Checkpoints keep the weights (networks and optimizer state), counters and the shuffling generator; a rollout
    still being collected is not saved, and :meth:`load` drops the current one (it belongs to other weights) and
    forgets the environments seen. The action samplers' generator states are not saved (the base does not keep
    them), so a loaded agent acts with other random draws than the saved one would have; updates on the same
    transitions are identical. The buffer holds raw states and preprocesses them at update time, so preprocessors
    must be stateless. Normal actions are unbounded: clip them in the env (``gymnasium.wrappers.ClipAction``; the
    rollout keeps the unclipped sample, whose log-prob is the right one), or pick ``squashed_normal`` or ``beta``.
    """

    float_actions_in_bounds = False  # stores its Gaussian's raw samples; the env clips them

    schema = SCHEMA
    defaults = DEFAULTS

    def make_root(self) -> PPOGraph:
        config = self.config
        with config_section("preprocessing"):
            self.preprocessor = stateless_stack(config["preprocessing"], "PPO")
        policy, value_network = policy_and_value_network(config["policy"], self.action_space)
        loss_config = config["loss"]
        with config_section("loss"):
            loss = PPOLoss(loss_config["clip_ratio"], loss_config["value_clip"], loss_config["entropy_weight"],
                           loss_config["value_weight"], name="loss")
            gae = GAE(config["discount"], loss_config["gae_lambda"], name="gae")
        optimizer = actor_critic_optimizer(config["optimizer"], value_network)
        self.buffer = RolloutBuffer()
        self.shuffle_rng = np.random.default_rng(self.seed)
        self.env_ids_seen: set[Any] = set()
        graph = RecurrentPPOGraph if isinstance(policy, RecurrentPolicy) else PPOGraph
        return graph(policy, gae, loss, optimizer, value_network=value_network, preprocessor=self.preprocessor,
                     normalize_advantages=loss_config["normalize_advantages"])

    def root_input_spaces(self) -> dict[str, Space | OutputSpaceOf]:
        batch = {"add_batch_rank": True}
        sequences = {"add_batch_rank": True, "add_time_rank": True}
        return {"states": self.state_space.with_batch_rank(), "preprocessed_states": PREPROCESSED,
                "actions": self.action_space.with_batch_rank(),
                **{name: FloatBox(**batch) for name in ("prev_log_probs", "advantages", "value_targets", "prev_values",
                                                        "bootstrap_values")},
                "sequence_rewards": FloatBox(**sequences), "sequence_values": FloatBox(**sequences),
                "sequence_terminals": BoolBox(**sequences)}

    # ----- acting and observing ------------------------------------------------------------------------------
    def get_state_values(self, states: Arrays, preprocess: bool = True) -> np.ndarray:
        """``V(states)`` for a batch of states."""
        self._require_built("get_state_values")
        return self.api.get_state_values(self.preprocess(states) if preprocess else states)

    def _observe(self, env_ids: list[Hashable], starts: np.ndarray, preprocessed_states: Arrays, actions: Arrays,
                 rewards: np.ndarray, terminals: np.ndarray, next_states: Arrays) -> None:
        """Keeps the preprocessed states (for the update) and the raw next states (only the few a return
        bootstraps from get preprocessed, at update time)."""
        self.buffer.add(env_ids, starts, self.preprocessed_space.flatten(preprocessed_states),
                        self.action_space.flatten(actions), rewards, terminals, self.state_space.flatten(next_states))
        self.env_ids_seen.update(env_ids)

    # ----- learning -----------------------------------------------------------------------------------------------
    def wants_update(self) -> bool:
        due = self.config["update"]["rollout_length"] * max(len(self.env_ids_seen), 1)
        return self.buffer.size >= due

    def update(self, batch: Mapping[str, Arrays] | None = None, out_of_bounds: str | None = None,
               ) -> dict[str, float]:
        """Learns from the collected rollout (then empties the buffer), or from ``batch``: a rollout given from
        outside as batch-major sequences, one row per environment — keys ``states``, ``actions``, ``rewards``,
        ``terminals``, ``next_states``, each shaped ``(num_envs, length, ...)``, raw states as ``observe`` takes
        them — checked before anything changes (:mod:`~rlworkbench.agents.sequence_checks`); float actions outside
        the bounds of a bounded distribution are refused, or clipped with ``out_of_bounds="clip"`` (default: the
        config's ``execution/out_of_bounds``, else ``"refuse"``). Returns means over the gradient steps of
        ``loss``, ``policy_loss``, ``value_loss``, ``entropy``, ``approx_kl``, ``clip_fraction`` and ``grad_norm``
        (before clipping), plus ``explained_variance`` of the rollout's values, ``rollout_steps``,
        ``gradient_steps``, and the counts ``update/refused`` and ``observe/skipped``
        (:mod:`~rlworkbench.agents.guard_counts`)."""
        self._require_built("update")
        rollout = self.buffer.rollout() if batch is None else self._external_rollout(batch, out_of_bounds)
        metrics = self._learn(rollout)
        if batch is None:
            self.buffer.clear()
        self.updates += 1
        return metrics

    def _learn(self, rollout: Rollout) -> dict[str, float]:
        states = self.preprocessed_space.unflatten(rollout.states)
        actions = self.action_space.unflatten(rollout.actions)
        log_probs, values = self._evaluate_rollout(rollout, states, actions)
        advantages, targets = self.advantages(rollout, values)
        inputs = {"preprocessed_states": states, "actions": actions, "prev_log_probs": log_probs,
                  "advantages": advantages, "value_targets": targets, "prev_values": values}
        target_kl = self.config["update"]["target_kl"]
        totals: dict[str, float] = {}
        steps = 0
        minibatches = list(self._minibatches(rollout))
        self.check_rows_for_towers(min(len(rows) for rows in minibatches), "minibatch")
        for rows in minibatches:
            loss, grad_norm, parts = self.api.update_minibatch(**self._minibatch(rollout, inputs, rows))
            self.guard_counts.step(loss, grad_norm)
            for name, value in (("loss", loss), ("grad_norm", grad_norm), *parts.items()):
                totals[name] = totals.get(name, 0.0) + float(value)
            steps += 1
            if target_kl is not None and float(parts["approx_kl"]) > target_kl:
                break
        metrics = {name: totals[name] / steps for name in ("loss", *LOSS_PARTS, "grad_norm")}
        variance = float(np.var(targets))
        metrics["explained_variance"] = 1.0 - float(np.var(targets - values)) / variance if variance > 0 else 0.0
        metrics.update(rollout_steps=float(rollout.size), gradient_steps=float(steps), **self.guard_metrics())
        return metrics

    def _evaluate_rollout(self, rollout: Rollout, states: Arrays, actions: Arrays) -> tuple[np.ndarray, np.ndarray]:
        """``(log_probs, values)`` of every step of the rollout under the current weights."""
        return self.api.evaluate(states, actions)

    def _minibatches(self, rollout: Rollout) -> Iterator[np.ndarray]:
        """Row numbers of the minibatches: ``num_epochs`` shuffled passes of ``num_minibatches`` each."""
        config, size = self.config["update"], rollout.size
        for _ in range(config["num_epochs"]):
            yield from np.array_split(self.shuffle_rng.permutation(size), min(config["num_minibatches"], size))

    def _minibatch(self, rollout: Rollout, inputs: Mapping[str, Arrays], rows: np.ndarray) -> dict[str, object]:
        """The inputs of one ``update_minibatch`` call: the rows ``rows`` of every input."""
        return {key: _rows(value, rows) for key, value in inputs.items()}

    def _values_after(self, rollout: Rollout, rows: np.ndarray) -> np.ndarray:
        """``V(next_state)`` of the steps ``rows`` whose returns bootstrap."""
        next_states = self.state_space.unflatten({k: v[rows] for k, v in rollout.next_states.items()})
        return np.asarray(self.api.get_state_values(self.preprocess(next_states)), np.float32)

    def advantages(self, rollout: Rollout, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """GAE ``(advantages, value_targets)`` per step of ``rollout``, given ``values`` (``V`` of its states).

        A step whose episode goes on past the rollout (or was truncated) ends its sequence and takes
        ``discount * V(next_state)`` into its reward, which is exactly GAE with that bootstrap value."""
        next_values = np.zeros(rollout.size, dtype=np.float32)
        rows = np.flatnonzero(rollout.bootstraps)
        if rows.size:
            next_values[rows] = self._values_after(rollout, rows)
        rewards = rollout.rewards + np.float32(self.config["discount"]) * next_values
        advantages, targets = self.api.advantages(
            rollout.padded(rewards), sequence_values=rollout.padded(values),
            sequence_terminals=rollout.padded(~rollout.continues, True),
            bootstrap_values=np.zeros(len(rollout.index), dtype=np.float32))
        return rollout.unpadded(advantages), rollout.unpadded(targets)

    def _external_rollout(self, batch: Mapping[str, Any], out_of_bounds: str | None = None) -> Rollout:
        check_batch_keys(batch, BATCH_KEYS)
        batch = checked_sequences(batch, self.state_space, self.sampled_action_space,
                                  self.input_choice("out_of_bounds", out_of_bounds))
        rewards, terminals = batch["rewards"], batch["terminals"]
        flat = {key: self.state_space.flatten(batch[key]) for key in ("states", "next_states")}
        actions = self.action_space.flatten(batch["actions"])
        buffer = RolloutBuffer()
        num_envs, length = rewards.shape
        for t in range(length):
            starts = np.full(num_envs, t == 0)
            if t:
                for key, value in flat["states"].items():
                    same = value[:, t] == flat["next_states"][key][:, t - 1]
                    starts |= ~same.reshape(num_envs, -1).all(axis=1)
            states = self.preprocess(self.state_space.unflatten(
                {k: v[:, t] for k, v in flat["states"].items()}))
            buffer.add(np.arange(num_envs), starts, self.preprocessed_space.flatten(states),
                       {k: v[:, t] for k, v in actions.items()}, rewards[:, t], terminals[:, t],
                       {k: v[:, t] for k, v in flat["next_states"].items()})
        return buffer.rollout()

    # ----- checkpoints ------------------------------------------------------------------------------------------
    def extra_state(self) -> dict[str, Any]:
        return {"shuffle_rng": self.shuffle_rng.bit_generator.state}

    def load_extra_state(self, state: Mapping[str, Any]) -> None:
        """Restores the shuffling generator; drops the rollout being collected and the environments seen."""
        if "shuffle_rng" in state:
            self.shuffle_rng.bit_generator.state = dict(state["shuffle_rng"])
        self.buffer.clear()
        self.env_ids_seen.clear()


def _rows(value: Any, rows: np.ndarray) -> Any:
    """The rows ``rows`` of every leaf of ``value``."""
    return nest.map_structure(lambda leaf: leaf[rows], value)
