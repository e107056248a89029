"""Synchronous PPO: every sampler steps its envs ``update/rollout_length`` times with the newest weights, the
learner concatenates the rollouts along the env axis and updates once — exactly one PPO agent's update with
``workers x envs_per_worker`` envs (a learner group: each rank on an equal share of the envs, gradients
all-reduced) — then hands the new weights to every sampler. A sampler that fails is replaced
and asked again, so every update sees every worker's envs."""

from __future__ import annotations

import time

from rlworkbench.errors import ConfigError
from rlworkbench.execution.ray.learner_group import concatenated
from rlworkbench.execution.ray.ops import Broadcast, Rollouts, TrainOneStep
from rlworkbench.execution.ray.plan_run import PlanRun
from rlworkbench.execution.ray.plans.registry import Plan, Step, register


def sync_ppo(run: PlanRun) -> Step:
    envs, shares = run.settings["workers"] * run.envs_per_worker, run.learner.shares
    if envs % shares:
        raise ConfigError("each learner rank takes an equal share of the gathered envs", key_path="execution/ray/"
                          "learners", expected=f"a divisor of workers x envs_per_worker = {envs}", got=shares)
    samplers = Rollouts(run, steps=run.agent.config["update"]["rollout_length"])
    train, broadcast = TrainOneStep(run), Broadcast(run)

    def step(timeout: float = 300.0) -> None:
        started = time.perf_counter()
        fragments = samplers.gather(timeout=timeout)
        train(concatenated([fragment.batch for fragment in fragments]), sample_s=time.perf_counter() - started)
        broadcast.hand_all()
    return step


SYNC_PPO = register(Plan("sync_ppo", "ppo", sync_ppo, "synchronous PPO: gather every sampler, one update, broadcast",
                         default=True))
