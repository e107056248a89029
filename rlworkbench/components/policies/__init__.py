"""Action selection (the full policy library comes with the component-library issue)."""

from rlworkbench.components.policies.greedy_action_selector import GreedyActionSelector

__all__ = ["GreedyActionSelector"]
