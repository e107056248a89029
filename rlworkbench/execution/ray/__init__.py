"""Distributed execution on Ray as dataflow: a local or cluster Ray session, a fault-tolerant manager of actors,
sampler actors (a vector env and an acting-only copy of the agent), replay shards, the operators plans are
composed of (:mod:`.ops`) and the registered plans (:mod:`.plans`: Ape-X, IMPALA, synchronous PPO, APPO, Ape-X at
a fixed replay ratio), run by a :class:`PlanRun`.

Importing :mod:`rlworkbench` never imports Ray; this package does, when a run asks for it (without Ray installed:
a MissingExtra naming ``rlworkbench[ray]``).
"""
# ruff: noqa: E402 (the imports below need the extra, checked first)

from rlworkbench.extras import require

require("ray", 'Ray execution (promote(to="ray"), rlworkbench.execution.ray)')


from rlworkbench.execution.ray.actor_manager import ActorFailed, ActorHung, ActorManager, CallResult
from rlworkbench.execution.ray.flow_types import EpisodeEnds, Fragment, ReplayBatch, SampleReport, Transitions
from rlworkbench.execution.ray.plan_run import PlanRun
from rlworkbench.execution.ray.plans import PLANS, Plan, get_plan, plan_for, plans, register
from rlworkbench.execution.ray.replay_shard import ReplayShard
from rlworkbench.execution.ray.sampler import ImpalaSampler, Sampler
from rlworkbench.execution.ray.session import ensure_ray

__all__ = ["PLANS", "ActorFailed", "ActorHung", "ActorManager", "CallResult", "EpisodeEnds", "Fragment",
           "ImpalaSampler", "Plan", "PlanRun", "ReplayBatch", "ReplayShard", "SampleReport", "Sampler", "Transitions",
           "ensure_ray", "get_plan", "plan_for", "plans", "register"]
