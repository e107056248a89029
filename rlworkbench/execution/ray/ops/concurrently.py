"""Waiting on several operators at once: blocks until any of their requests in flight finished (or a timeout),
so a plan then takes each operator's output without waiting again — asynchronous composition, outputs handled
in the order the plan names the operators."""

from __future__ import annotations

from typing import Protocol

from rlworkbench.execution.ray.actor_manager import ActorManager, wait_for_any


class HasActors(Protocol):
    manager: ActorManager


def concurrently(*operators: HasActors, timeout: float) -> None:
    """Returns once a request of any of ``operators`` finished, at most ``timeout`` seconds later (at once when
    none has one under way); read the outputs with each operator's ``ready()``."""
    wait_for_any([operator.manager for operator in operators], timeout)
