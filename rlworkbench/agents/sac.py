"""SAC as an agent: :class:`SACGraph` made from a config, plus its update schedule and target syncs."""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping
from typing import Any

import numpy as np

from rlworkbench.agents.agent import PREPROCESSED, Agent
from rlworkbench.agents.config import config_section
from rlworkbench.agents.input_checks import checked_transition_batch
from rlworkbench.agents.policy_root import PolicyActing
from rlworkbench.agents.protocols import Arrays
from rlworkbench.agents.registry import register_agent
from rlworkbench.agents.replay_root import stateless_preprocessor
from rlworkbench.agents.sac_config import DEFAULTS, SCHEMA
from rlworkbench.agents.sac_graph import SACGraph, SoftQNetworks, Temperature
from rlworkbench.agents.transitions import check_batch_keys
from rlworkbench.components.losses.sac_loss import SACLoss
from rlworkbench.components.policies.policy import Policy
from rlworkbench.components.registry import from_spec
from rlworkbench.core.builder import OutputSpaceOf
from rlworkbench.errors import SpaceError
from rlworkbench.spaces import BoolBox, FloatBox, IntBox, Space

BATCH_KEYS = ("states", "actions", "rewards", "terminals", "next_states")
METRICS = ("critic_loss", "actor_loss", "alpha_loss", "critic_grad_norm", "actor_grad_norm", "alpha")


@register_agent("sac")
class SACAgent(PolicyActing, Agent):
    """Soft actor-critic on one ``FloatBox`` action with finite bounds (squashed normal policy) or one
    ``IntBox(n)`` action (discrete SAC); see :mod:`rlworkbench.agents.sac_config` for the config and
    :class:`SACGraph` for the components.

    Schedule: no updates before ``update/learning_starts`` env steps; then ``gradient_steps`` updates are due
    every ``update_interval`` env steps. The target critics are synced every ``target/sync_interval`` updates
    with ``tau`` (in the same graph call as the update). Exploration is the policy's own sampling
    (``get_actions(explore=False)`` gives its deterministic action).

    The memory stores preprocessed states, so preprocessors must be stateless. Checkpoints (the base's) hold every
    variable — networks, target critics, ``log_alpha``, the three optimizers' slots, the memory — and the random
    stream, so a restored agent continues exactly as the saved one does.
    """

    schema = SCHEMA
    defaults = DEFAULTS

    def make_root(self) -> SACGraph:
        config = self.config
        num_actions = self._check_action_space()
        with config_section("preprocessing"):
            self.preprocessor = stateless_preprocessor(config["preprocessing"], "SAC")
        with config_section("policy"):
            distribution = "squashed_normal" if num_actions is None else None
            policy = Policy(config["policy"]["network"], self.action_space, distributions=distribution,
                            name="policy")
        with config_section("critic"):
            critics = SoftQNetworks(config["critic"]["network"], config["critic"]["num_critics"], num_actions)
        temperature_config = config["temperature"]
        temperature = Temperature(temperature_config["initial_alpha"], temperature_config["learn_alpha"])
        with config_section("memory"):
            memory = from_spec(config["memory"], name="memory")
        loss = SACLoss(discount=config["discount"], target_entropy=self.target_entropy, name="loss")
        optimizers = {}
        for part, variables_of in (("critic", "critics"), ("actor", "policy"), ("alpha", "temperature")):
            if part == "alpha" and not temperature_config["learn_alpha"]:
                continue
            with config_section(f"optimizers/{part}"):
                optimizers[part] = from_spec(config["optimizers"][part], variables_of=variables_of,
                                             name=f"{part}_optimizer")
        return SACGraph(policy, critics, temperature, memory, loss, optimizers, config["update"]["batch_size"],
                        preprocessor=self.preprocessor)

    def _check_action_space(self) -> int | None:
        """The number of discrete actions (None for float actions); a SpaceError for anything else."""
        space = self.action_space
        if isinstance(space, IntBox) and space.num_categories is not None and space.shape == ():
            return int(space.num_categories)
        if isinstance(space, FloatBox) and space.rank == 1 and np.all(np.isfinite(space.low)) \
                and np.all(np.isfinite(space.high)):
            return None
        raise SpaceError("SAC needs one float vector action with finite bounds or one discrete action",
                         argument="action_space", expected="FloatBox(low, high, shape=(n,)) or IntBox(n)", got=space)

    @property
    def target_entropy(self) -> float:
        """The configured target entropy; ``"auto"``: ``-action_dim`` (float actions), ``0.5 * log(n)`` (``n``
        discrete actions; see :mod:`rlworkbench.agents.sac_config`)."""
        value = self.config["temperature"]["target_entropy"]
        if value != "auto":
            return float(value)
        if isinstance(self.action_space, IntBox):
            return 0.5 * math.log(self.action_space.num_categories)
        return -float(self.action_space.flat_dim)

    def update_batch_rows(self) -> int:
        return self.config["update"]["batch_size"]

    def root_input_spaces(self) -> dict[str, Space | OutputSpaceOf]:
        states, batch = self.state_space.with_batch_rank(), {"add_batch_rank": True}
        return {"states": states, "next_states": states, "preprocessed_states": PREPROCESSED,
                "next_preprocessed_states": PREPROCESSED, "actions": self.action_space.with_batch_rank(),
                "rewards": FloatBox(**batch), "terminals": BoolBox(**batch), "tau": FloatBox()}

    def after_build(self) -> None:
        self.api.sync_target(np.float32(1.0))  # the target critics start as copies

    # ----- acting and observing ------------------------------------------------------------------------------
    def get_q_values(self, states: Arrays, actions: Arrays, preprocess: bool = True) -> np.ndarray:
        """``Q_i(s, a)`` of every critic for a batch of states and actions: ``(batch, num_critics)``."""
        self._require_built("get_q_values")
        return self.api.get_q_values(self.preprocess(states) if preprocess else states, np.asarray(actions))

    @property
    def alpha(self) -> float:
        """The current temperature ``exp(log_alpha)``."""
        self._require_built("alpha")
        return float(self.api.get_alpha())

    def _observe(self, env_ids: list[Hashable], starts: np.ndarray, preprocessed_states: Arrays, actions: Arrays,
                 rewards: np.ndarray, terminals: np.ndarray, next_states: Arrays) -> Any:
        return self.api.insert_records(preprocessed_states, np.asarray(actions), rewards, terminals,
                                       next_states=next_states)

    # ----- learning -----------------------------------------------------------------------------------------------
    def wants_update(self) -> bool:
        schedule = self.config["update"]
        if self.timesteps < max(schedule["learning_starts"], 1):
            return False
        rounds = (self.timesteps - schedule["learning_starts"]) // schedule["update_interval"] + 1
        return self.updates < rounds * schedule["gradient_steps"]

    def update(self, batch: Mapping[str, Arrays] | None = None) -> dict[str, float]:
        """One update of critics, actor and temperature on a batch from the memory, or on ``batch`` (keys
        ``states``, ``actions``, ``rewards``, ``terminals``, ``next_states``; states preprocessed, as the memory
        holds them); syncs the target critics when due. Returns ``critic_loss``, ``actor_loss``, ``alpha_loss``,
        the gradient norms (before clipping), ``alpha`` (after the update), ``entropy`` (``-mean log pi``) and the
        counts ``update/refused`` and ``observe/skipped`` (:mod:`~rlworkbench.agents.guard_counts`)."""
        executor = self._require_built("update")
        args, by_name = ([], {}) if batch is None else self._external_batch(batch)
        if batch is not None:
            self.check_rows_for_towers(len(args[2]))
        target = self.config["target"]
        if (self.updates + 1) % target["sync_interval"] == 0 and not by_name:  # one graph call for both (fused on TF)
            outputs, _ = executor.execute(("update_from_memory", []), ("sync_target", np.float32(target["tau"])))
        else:
            outputs = (self.api.update_from_memory() if batch is None
                       else self.api.update_from_batch(*args, **by_name))
            if (self.updates + 1) % target["sync_interval"] == 0:
                self.api.sync_target(np.float32(target["tau"]))
        self.updates += 1
        metrics = {name: float(value) for name, value in zip(METRICS, outputs)}
        for step in (("critic_loss", "critic_grad_norm"), ("actor_loss", "actor_grad_norm"), ("alpha_loss",)):
            if step != ("alpha_loss",) or self.root.alpha_optimizer is not None:  # one count per optimizer step
                self.guard_counts.step(*(metrics[name] for name in step))
        metrics["entropy"] = -float(np.mean(outputs[-1]))
        return {**metrics, **self.guard_metrics()}

    def _external_batch(self, batch: Mapping[str, Any]) -> tuple[list[Any], dict[str, Any]]:
        check_batch_keys(batch, BATCH_KEYS)
        batch = checked_transition_batch(batch, self.preprocessed_space.strip_ranks(), self.action_space,
                                         self.float_actions_in_bounds)
        return [batch["states"], batch["actions"], batch["rewards"], batch["terminals"]], \
            {"next_preprocessed_states": batch["next_states"]}
