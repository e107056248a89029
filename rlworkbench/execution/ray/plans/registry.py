"""The registry of execution plans: every distributed algorithm is declared once, here, by name.

A :class:`Plan` names the agent type it trains, its ``build(run)`` (creates its operators, returns one step) and
the hooks that shape the agents around it: ``sampler_config`` (an acting copy's config: Ape-X's per-sampler
epsilon) and ``learner_config`` (a learner made from a config: Ape-X keeps replay in its shards, not the learner).
One plan per agent type is its default (``promote(..., to="ray")``); the others are chosen by name
(``promote(..., to="ray", plan="appo")`` or the config's ``execution/ray/plan``). A plan written in a notebook
joins with :func:`register`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pandas as pd

from rlworkbench.errors import ConfigError

if TYPE_CHECKING:
    from rlworkbench.execution.ray.plan_run import PlanRun

Step = Callable[[], None]
Config = dict[str, Any]


@dataclass(frozen=True)
class Plan:
    """A distributed algorithm as dataflow (see the module docstring)."""

    name: str
    trains: str
    build: Callable[[PlanRun], Step]
    summary: str
    default: bool = False
    sampler_config: Callable[[PlanRun, int, Config], Config] | None = None
    learner_config: Callable[[Config], Config] | None = None


PLANS: dict[str, Plan] = {}


def register(plan: Plan, replace: bool = False) -> Plan:
    """Adds ``plan`` to the registry (a name taken already is a ConfigError unless ``replace``)."""
    if plan.name in PLANS and not replace:
        raise ConfigError("a plan of this name exists", argument="plan", expected="a new name (or replace=True)",
                          got=plan.name)
    if plan.default and any(other.default and other.trains == plan.trains and other.name != plan.name
                            for other in PLANS.values()):
        raise ConfigError("another plan is the default for this agent type", argument="plan",
                          expected="default=False", got=plan.name)
    PLANS[plan.name] = plan
    return plan


def get_plan(name: str) -> Plan:
    """The plan registered as ``name``; a ConfigError listing the plans otherwise."""
    if name not in PLANS:
        raise ConfigError("no execution plan of this name", key_path="execution/ray/plan", expected=sorted(PLANS),
                          got=name)
    return PLANS[name]


def plan_for(agent_type: Any, name: str | None = None) -> Plan:
    """The plan ``name`` (checked to train ``agent_type``) or the default plan of ``agent_type``."""
    if name is not None:
        plan = get_plan(name)
        if plan.trains != agent_type:
            raise ConfigError(f"the {name} plan trains {plan.trains} agents", key_path="execution/ray/plan",
                              expected=sorted(p.name for p in PLANS.values() if p.trains == agent_type),
                              got=f"{name} for a {agent_type} agent")
        return plan
    for plan in PLANS.values():
        if plan.default and plan.trains == agent_type:
            return plan
    raise ConfigError("this agent type has no distributed algorithm on Ray", key_path="type",
                      expected=[f"{p.trains} ({p.name})" for p in PLANS.values() if p.default], got=agent_type)


def plans() -> pd.DataFrame:
    """The registered plans: ``plan, trains, default, summary``."""
    return pd.DataFrame([(p.name, p.trains, p.default, p.summary) for p in PLANS.values()],
                        columns=["plan", "trains", "default", "summary"])
