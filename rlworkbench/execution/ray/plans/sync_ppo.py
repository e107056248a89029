"""Synchronous PPO: every sampler steps its envs ``update/rollout_length`` times with the newest weights, the
learner concatenates the rollouts along the env axis and updates once — exactly one PPO agent's update with
``workers x envs_per_worker`` envs — then hands the new weights to every sampler. A sampler that fails is replaced
and asked again, so every update sees every worker's envs."""

from __future__ import annotations

import time

import numpy as np

from rlworkbench import nest
from rlworkbench.execution.ray.flow_types import Fragment
from rlworkbench.execution.ray.ops import Broadcast, Rollouts, TrainOneStep
from rlworkbench.execution.ray.plan_run import PlanRun
from rlworkbench.execution.ray.plans.registry import Plan, Step, register


def sync_ppo(run: PlanRun) -> Step:
    samplers = Rollouts(run, steps=run.agent.config["update"]["rollout_length"])
    train, broadcast = TrainOneStep(run), Broadcast(run)

    def step(timeout: float = 300.0) -> None:
        started = time.perf_counter()
        fragments = samplers.gather(timeout=timeout)
        train(concatenated(fragments), sample_s=time.perf_counter() - started)
        broadcast.hand_all()
    return step


def concatenated(fragments: list[Fragment]) -> dict:
    """Rollouts of several samplers as one: sequences stacked along the env axis."""
    batches = [fragment.batch for fragment in fragments]
    return {key: nest.map_structure(lambda *parts: np.concatenate(parts, axis=0), *[b[key] for b in batches])
            for key in batches[0]}


SYNC_PPO = register(Plan("sync_ppo", "ppo", sync_ppo, "synchronous PPO: gather every sampler, one update, broadcast",
                         default=True))
