"""DQN as an agent: :class:`DQNGraph` made from a config, plus its update schedule and n-step bookkeeping."""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any

import numpy as np

from rlworkbench.agents.agent import PREPROCESSED, Agent
from rlworkbench.agents.config import config_section
from rlworkbench.agents.dqn_config import DEFAULTS, SCHEMA
from rlworkbench.agents.dqn_graph import DQNGraph
from rlworkbench.agents.input_checks import checked_transition_batch
from rlworkbench.agents.protocols import Arrays
from rlworkbench.agents.registry import register_agent
from rlworkbench.agents.replay_root import stateless_preprocessor
from rlworkbench.agents.transitions import NStepAccumulator, check_batch_keys
from rlworkbench.components.explorations.epsilon_greedy import EpsilonGreedy
from rlworkbench.components.losses.dqn_loss import DQNLoss
from rlworkbench.components.policies.dueling_policy import DuelingPolicy
from rlworkbench.components.policies.policy import Policy
from rlworkbench.components.registry import from_spec
from rlworkbench.core.builder import OutputSpaceOf
from rlworkbench.errors import RLWorkbenchError, SpaceError
from rlworkbench.spaces import BoolBox, FloatBox, IntBox, Space

BATCH_KEYS = ("states", "actions", "rewards", "terminals", "next_states")


@register_agent("dqn")
class DQNAgent(Agent):
    """Deep Q-learning on one discrete action (``IntBox(n)``); see :mod:`rlworkbench.agents.dqn_config` for the
    config and :class:`DQNGraph` for the components.

    Schedule: no updates before ``update/learning_starts`` env steps; then ``gradient_steps`` updates are due
    every ``update_interval`` env steps (``while agent.wants_update(): agent.update()`` keeps the ratio whatever
    the number of envs). The target network is synced every ``target/sync_interval`` updates with ``tau``.
    With ``loss/n_step > 1`` transitions are turned into n-step ones per environment before they are stored.

    The memory stores preprocessed states, so preprocessors must be stateless (no frame stacks or running
    normalisers, whose state would advance twice per step); stack frames in the env instead.
    """

    schema = SCHEMA
    defaults = DEFAULTS

    def make_root(self) -> DQNGraph:
        config = self.config
        if not isinstance(self.action_space, IntBox) or self.action_space.num_categories is None \
                or self.action_space.shape != ():
            raise SpaceError("DQN needs one discrete action", argument="action_space", expected="IntBox(n)",
                             got=self.action_space)
        with config_section("preprocessing"):
            self.preprocessor = stateless_preprocessor(config["preprocessing"], "DQN")
        with config_section("policy"):
            policy_config = config["policy"]
            if policy_config["dueling"]:
                policy: Policy = DuelingPolicy(policy_config["network"], self.action_space, name="policy",
                                               value_units=policy_config["value_units"],
                                               advantage_units=policy_config["advantage_units"])
            else:
                policy = Policy(policy_config["network"], self.action_space, name="policy")
        with config_section("exploration/epsilon"):
            exploration = EpsilonGreedy(config["exploration"]["epsilon"], action_space=self.action_space,
                                        name="exploration")
        memory_config = dict(config["memory"])
        priority_epsilon = memory_config.pop("priority_epsilon", 1e-6)
        self.priority_epsilon = float(priority_epsilon)
        with config_section("memory"):
            memory = from_spec(memory_config, name="memory")
        with config_section("loss"):
            loss = DQNLoss(discount=config["discount"], name="loss", **config["loss"])
        with config_section("optimizer"):
            optimizer = from_spec(config["optimizer"], variables_of="policy", name="optimizer")
        self._memory_filled = False
        n_step = config["loss"]["n_step"]
        self.n_step = NStepAccumulator(n_step, config["discount"]) if n_step > 1 else None
        return DQNGraph(policy, exploration, memory, loss, optimizer, config["update"]["batch_size"],
                        preprocessor=self.preprocessor, priority_epsilon=priority_epsilon)

    def update_batch_rows(self) -> int:
        return self.config["update"]["batch_size"]

    def root_input_spaces(self) -> dict[str, Space | OutputSpaceOf]:
        states, batch = self.state_space.with_batch_rank(), {"add_batch_rank": True}
        return {"states": states, "next_states": states, "preprocessed_states": PREPROCESSED,
                "next_preprocessed_states": PREPROCESSED, "actions": self.action_space.with_batch_rank(),
                "rewards": FloatBox(**batch), "terminals": BoolBox(**batch), "importance_weights": FloatBox(**batch),
                "time_step": IntBox(), "tau": FloatBox()}

    def acting_api_methods(self) -> list[str]:
        return [*super().acting_api_methods(), "get_priorities"]

    def after_build(self) -> None:
        if hasattr(self.api, "sync_target"):  # an acting copy has no target to sync
            self.api.sync_target(np.float32(1.0))  # the target starts as a copy of the policy

    # ----- acting and observing ------------------------------------------------------------------------------
    def _act(self, states: Arrays, explore: bool) -> tuple[Arrays, Arrays]:
        if explore:
            return self.api.act(states, np.int64(self.timesteps))
        preprocessed = self.preprocess(states)
        return self.api.act_greedy(preprocessed), preprocessed

    def _act_preprocessed(self, preprocessed_states: Arrays, explore: bool) -> Arrays:
        if explore:
            return self.api.act_preprocessed(preprocessed_states, np.int64(self.timesteps))
        return self.api.act_greedy(preprocessed_states)

    def get_q_values(self, states: Arrays, preprocess: bool = True) -> np.ndarray:
        """Q-values for a batch of states, one per action."""
        self._require_built("get_q_values")
        return self.api.get_q_values(self.preprocess(states) if preprocess else states)

    def _observe(self, env_ids: list[Hashable], starts: np.ndarray, preprocessed_states: Arrays, actions: Arrays,
                 rewards: np.ndarray, terminals: np.ndarray, next_states: Arrays) -> Any:
        actions = np.asarray(actions)
        if self.n_step is None:
            return self.api.insert_records(preprocessed_states, actions, rewards, terminals, next_states=next_states)
        batch = self.n_step.add(env_ids, starts, self.preprocessed_space.flatten(preprocessed_states), actions,
                                rewards, terminals, self.state_space.flatten(next_states))
        if batch is not None:  # n-step next states are other states than this step's: nothing to give back
            self.api.insert_records(self.preprocessed_space.unflatten(batch["states"]), batch["actions"],
                                    batch["rewards"], batch["terminals"],
                                    next_states=self.state_space.unflatten(batch["next_states"]))
        return None

    def reset(self) -> None:
        super().reset()
        if self.n_step is not None:
            self.n_step.reset()

    def load(self, directory: Any) -> DQNAgent:
        super().load(directory)
        self._memory_filled = False  # the loaded memory may be empty or not: ask again
        return self

    # ----- learning -----------------------------------------------------------------------------------------------
    def wants_update(self) -> bool:
        schedule = self.config["update"]
        if self.timesteps < schedule["learning_starts"] or not self._memory_has_records():
            return False
        rounds = (self.timesteps - schedule["learning_starts"]) // schedule["update_interval"] + 1
        return self.updates < rounds * schedule["gradient_steps"]

    def _memory_has_records(self) -> bool:
        """Whether the memory holds anything to sample (asked of the graph until it does: memories never empty)."""
        if not self._memory_filled and self.executor is not None:
            self._memory_filled = bool(self.api.get_memory_size() > 0)
        return self._memory_filled

    def update(self, batch: Mapping[str, Arrays] | None = None) -> dict[str, float]:
        """One gradient step on a batch from the memory, or on ``batch`` (keys ``states``, ``actions``,
        ``rewards``, ``terminals``, ``next_states`` — states preprocessed, as the memory holds them — and
        optionally ``importance_weights``). Syncs the target network when due. Returns ``loss``, ``grad_norm``
        (before clipping), ``td_error`` (mean absolute TD error) and the counts ``update/refused`` and
        ``observe/skipped`` (:mod:`~rlworkbench.agents.guard_counts`)."""
        return self._update(batch)[0]

    def update_with_priorities(self, batch: Mapping[str, Any]) -> tuple[dict[str, float], np.ndarray]:
        """:meth:`update` on an outside ``batch`` (from a replay shard), plus the new priorities of its transitions
        (``|TD error| + memory/priority_epsilon``, the TD errors of this update) for the shard to take back."""
        metrics, td_errors = self._update(batch)
        return metrics, np.abs(np.asarray(td_errors, np.float32)) + np.float32(self.priority_epsilon)

    def _update(self, batch: Mapping[str, Any] | None) -> tuple[dict[str, float], Any]:
        self._require_built("update")
        if batch is None and not self._memory_has_records():
            raise RLWorkbenchError("the memory is empty: observe transitions before updating from it",
                                   component=self.root.path, api_method="update_from_memory")
        if batch is None:
            loss, grad_norm, td_errors = self.api.update_from_memory()
        else:
            args, by_name = self._external_batch(batch)
            self.check_rows_for_towers(len(args[2]))
            loss, grad_norm, td_errors = self.api.update_from_batch(*args, **by_name)
        self.updates += 1
        self.guard_counts.step(loss, grad_norm)
        target = self.config["target"]
        if self.updates % target["sync_interval"] == 0:
            self.api.sync_target(np.float32(target["tau"]))
        return {"loss": float(loss), "grad_norm": float(grad_norm), "td_error": _mean_absolute(td_errors),
                **self.guard_metrics()}, td_errors

    def priorities(self, batch: Mapping[str, Any]) -> np.ndarray:
        """``|TD error| + memory/priority_epsilon`` of each transition of ``batch`` (the keys of :meth:`update`)
        under the current weights, learning nothing: what an Ape-X actor computes for its own transitions."""
        self._require_built("priorities")
        args, by_name = self._external_batch(batch)
        return self.api.get_priorities(*args, next_preprocessed_states=by_name["next_preprocessed_states"])

    def _external_batch(self, batch: Mapping[str, Any]) -> tuple[list[Any], dict[str, Any]]:
        check_batch_keys(batch, BATCH_KEYS, optional=("importance_weights",))
        batch = checked_transition_batch(batch, self.preprocessed_space.strip_ranks(), self.action_space,
                                         self.float_actions_in_bounds)
        rewards = batch["rewards"]
        weights = batch.get("importance_weights")
        weights = np.ones_like(rewards) if weights is None else weights
        return [batch["states"], batch["actions"], rewards, batch["terminals"]], \
            {"next_preprocessed_states": batch["next_states"], "importance_weights": weights}


def _mean_absolute(values: Any) -> float:
    """``mean(|values|)`` as a float (a sum: ``np.mean`` costs several times more, inside a training loop)."""
    values = np.asarray(values)
    return float(np.abs(values).sum()) / values.size if values.size else float("nan")
