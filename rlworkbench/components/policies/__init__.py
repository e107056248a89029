"""Policies (network → action adapters → distributions), action adapters, and greedy action selection."""

from rlworkbench.components.policies.action_adapter import ActionAdapter
from rlworkbench.components.policies.action_adapters import (
    BernoulliAdapter,
    BetaAdapter,
    CategoricalAdapter,
    NormalAdapter,
    adapter_for,
)
from rlworkbench.components.policies.dueling_action_adapter import DuelingActionAdapter
from rlworkbench.components.policies.dueling_policy import DuelingPolicy
from rlworkbench.components.policies.greedy_action_selector import GreedyActionSelector
from rlworkbench.components.policies.policy import Policy, network_from_spec
from rlworkbench.components.policies.recurrent_policy import RecurrentPolicy
from rlworkbench.components.policies.shared_value_function_policy import SharedValueFunctionPolicy

__all__ = [
    "ActionAdapter",
    "BernoulliAdapter",
    "BetaAdapter",
    "CategoricalAdapter",
    "DuelingActionAdapter",
    "DuelingPolicy",
    "GreedyActionSelector",
    "NormalAdapter",
    "Policy",
    "RecurrentPolicy",
    "SharedValueFunctionPolicy",
    "adapter_for",
    "network_from_spec",
]
