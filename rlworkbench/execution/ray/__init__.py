"""Distributed execution on Ray: a local or cluster Ray session, a fault-tolerant manager of actors, sampler
actors (a vector env and an acting copy of the agent), replay shards, and synchronous PPO over them.

Importing :mod:`rlworkbench` never imports Ray; this package does, when a run asks for it (without Ray installed:
a MissingExtra naming ``rlworkbench[ray]``).
"""
# ruff: noqa: E402 (the imports below need the extra, checked first)

from rlworkbench.extras import require

require("ray", 'Ray execution (promote(to="ray"), rlworkbench.execution.ray)')


from rlworkbench.execution.ray.actor_manager import ActorFailed, ActorManager, CallResult
from rlworkbench.execution.ray.replay_shard import ReplayShard
from rlworkbench.execution.ray.sampler import Sampler
from rlworkbench.execution.ray.session import ensure_ray
from rlworkbench.execution.ray.sync_ppo import SyncPPO

__all__ = ["ActorFailed", "ActorManager", "CallResult", "ReplayShard", "Sampler", "SyncPPO", "ensure_ray"]
