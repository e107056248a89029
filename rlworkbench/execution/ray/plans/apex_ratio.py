"""Ape-X at a fixed replay ratio: Ape-X's dataflow with the learner owing ``execution/ray/replay_ratio`` replayed
transitions per sampled one (:class:`~..ops.ReplayRatio`) instead of the agent's update schedule — the knob Ape-X
and R2D2 tune, set per run without touching the agent's config."""

from __future__ import annotations

from rlworkbench.execution.ray.ops import ReplayRatio
from rlworkbench.execution.ray.plan_run import PlanRun
from rlworkbench.execution.ray.plans.apex import apex, apex_sampler_config, learner_without_replay
from rlworkbench.execution.ray.plans.registry import Plan, Step, register


def apex_ratio(run: PlanRun) -> Step:
    ratio = run.settings["replay_ratio"]
    run.meter.notes["replay_ratio"] = ratio
    return apex(run, owed_rule=lambda run: ReplayRatio(run, ratio))


APEX_RATIO = register(Plan("apex_ratio", "dqn", apex_ratio, "Ape-X whose learner keeps a fixed replay ratio "
                           "(replayed per sampled transition)", sampler_config=apex_sampler_config,
                           learner_config=learner_without_replay))
