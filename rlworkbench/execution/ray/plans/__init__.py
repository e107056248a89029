"""Execution plans: each distributed algorithm composed from the operators of :mod:`..ops` in a few lines, and
registered once by name (:mod:`.registry`). Importing this package registers the built-in plans."""

from rlworkbench.execution.ray.plans.apex import APEX
from rlworkbench.execution.ray.plans.apex_ratio import APEX_RATIO
from rlworkbench.execution.ray.plans.appo import APPO
from rlworkbench.execution.ray.plans.impala import IMPALA
from rlworkbench.execution.ray.plans.registry import PLANS, Plan, get_plan, plan_for, plans, register
from rlworkbench.execution.ray.plans.sync_ppo import SYNC_PPO

__all__ = ["APEX", "APEX_RATIO", "APPO", "IMPALA", "PLANS", "SYNC_PPO", "Plan", "get_plan", "plan_for", "plans",
           "register"]
