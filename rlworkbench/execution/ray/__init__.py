"""Distributed execution on Ray: a local or cluster Ray session, and a fault-tolerant manager of actors.

Importing :mod:`rlworkbench` never imports Ray; this package does, when a run asks for it.
"""

from rlworkbench.execution.ray.actor_manager import ActorFailed, ActorManager, CallResult
from rlworkbench.execution.ray.session import ensure_ray

__all__ = ["ActorFailed", "ActorManager", "CallResult", "ensure_ray"]
