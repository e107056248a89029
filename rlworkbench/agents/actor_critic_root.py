"""What a root with a policy and a state-value function shares (PPO, IMPALA): values from the policy's value head
or a separate value network, and the log-probs, entropies and values of taken actions in one pass."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rlworkbench.agents.config import config_section, load_config
from rlworkbench.agents.policy_root import PolicyActingRoot
from rlworkbench.components.layers.lstm import StateTensors
from rlworkbench.components.layers.neural_network import NeuralNetwork
from rlworkbench.components.layers.recurrent_network import is_recurrent_spec
from rlworkbench.components.policies.policy import Policy
from rlworkbench.components.policies.recurrent_policy import RecurrentPolicy
from rlworkbench.components.policies.shared_value_function_policy import SharedValueFunctionPolicy
from rlworkbench.components.preprocessing.preprocessor_stack import PreprocessorStack
from rlworkbench.components.registry import from_spec, registered
from rlworkbench.core.component import Component
from rlworkbench.core.decorators import api, graph_fn
from rlworkbench.core.ops import Tensor
from rlworkbench.errors import ConfigError, RLWorkbenchError
from rlworkbench.spaces import Space


class ActorCriticRoot(PolicyActingRoot):
    """A :class:`PolicyActingRoot` whose ``policy`` has a value head (a ``SharedValueFunctionPolicy``) unless
    ``value_network`` (a network ending in one unit) is given. API besides acting: ``get_state_values
    (preprocessed_states)`` and ``evaluate(preprocessed_states, actions) -> (log_probs, values)``; log-probs and
    entropies are summed over the leaves of a container action."""

    value_network: Component | None

    @api
    def get_state_values(self, preprocessed_states: Tensor) -> Tensor:
        """``V(states)``: from the policy's value head, or from the separate value network."""
        if self.value_network is None:
            return self.policy.get_state_values(preprocessed_states)
        return self._squeeze(self.value_network.apply(preprocessed_states))

    @api
    def evaluate(self, preprocessed_states: Tensor, actions: Tensor) -> tuple[Tensor, Tensor]:
        """``(log_probs, values)`` of actions taken in states under the current policy."""
        log_probs, _, values = self._evaluate_all(preprocessed_states, actions)
        return log_probs, values

    def _evaluate_all(self, states: Tensor, actions: Tensor, internal_states: StateTensors | None = None,
                      resets: Tensor | None = None) -> tuple[Any, Any, Any]:
        """``(log_probs, entropies, values)`` with one pass of the policy network (a helper, not an API method);
        a recurrent root (:class:`~rlworkbench.agents.recurrent_root.RecurrentActorCriticRoot`) also takes the
        recurrent state and resets."""
        if self.value_network is None:  # a value head on the policy's network
            log_probs, entropies, values = self.policy.get_log_probs_entropy_and_values(states, actions)
        else:
            log_probs, entropies = self.policy.get_log_probs_and_entropy(states, actions)
            values = self._squeeze(self.value_network.apply(states))
        return self._joint(log_probs), self._joint(entropies), values

    @graph_fn
    def _squeeze(self, values: Tensor) -> Tensor:
        return self.ops.squeeze(values, -1)

    @graph_fn(flatten=True)
    def _joint(self, per_leaf: Any) -> Tensor:
        """The sum over the leaves of a container action (a single action's value as it is)."""
        values = list(per_leaf.values()) if isinstance(per_leaf, dict) else [per_leaf]
        return values[0] if len(values) == 1 else self.ops.reduce_sum(self.ops.stack(values, -1), -1)


# ----- the agent side: the parts an actor-critic config describes ------------------------------------------------
def policy_and_value_network(policy_config: Mapping[str, Any], action_space: Space) -> tuple[Policy, Component | None]:
    """The ``policy`` config section as components: a policy (with a value head of ``value_units`` when
    ``shared_value_function``) and else a separate ``value_network`` ending in ``Dense(1)``."""
    options = {"distributions": policy_config["distribution"], "name": "policy"}
    if is_recurrent_spec(policy_config["network"]):
        return recurrent_policy_and_value_network(policy_config, action_space, options)
    with config_section("policy"):
        if policy_config["shared_value_function"]:
            return SharedValueFunctionPolicy(policy_config["network"], action_space,
                                             value_units=policy_config["value_units"], **options), None
        policy = Policy(policy_config["network"], action_space, **options)
    with config_section("policy/value_network"):
        value_network = NeuralNetwork([*policy_config["value_network"], {"type": "dense", "units": 1}],
                                      name="value_network")
    return policy, value_network


def has_recurrent_policy(config: Mapping[str, object] | str | Path) -> bool:
    """Whether a config's ``policy/network`` holds an ``lstm`` layer (read before validation: anything else is
    no)."""
    try:
        policy = load_config(config).get("policy")
    except RLWorkbenchError:
        return False  # validation says what is wrong
    return isinstance(policy, Mapping) and is_recurrent_spec(policy.get("network"))


def recurrent_policy_and_value_network(policy_config: Mapping[str, Any], action_space: Space,
                                       options: Mapping[str, Any]) -> tuple[Policy, Component | None]:
    """A :class:`RecurrentPolicy` (network with an ``lstm``): the value head on its outputs when
    ``shared_value_function``, else a separate value network without recurrence (it sees each step alone)."""
    shared = policy_config["shared_value_function"]
    with config_section("policy"):
        policy = RecurrentPolicy(policy_config["network"], action_space,
                                 value_units=policy_config["value_units"] if shared else None, **options)
    if shared:
        return policy, None
    if is_recurrent_spec(policy_config["value_network"]):
        raise ConfigError("the value network cannot hold an lstm: put it in policy/network with "
                          "shared_value_function true (one recurrent state per agent)",
                          key_path="policy/value_network", expected="layer specs without lstm",
                          got=[spec.get("type") for spec in policy_config["value_network"]])
    with config_section("policy/value_network"):
        value_network = NeuralNetwork([*policy_config["value_network"], {"type": "dense", "units": 1}],
                                      name="value_network")
    return policy, value_network


def actor_critic_optimizer(spec: Mapping[str, Any], value_network: Component | None) -> Component:
    """The ``optimizer`` config section as the optimizer of the policy's variables and the value network's."""
    with config_section("optimizer"):
        optimized = ["policy"] + (["value_network"] if value_network is not None else [])
        return from_spec(spec, variables_of=optimized, name="optimizer")


def stateless_stack(specs: list[Mapping[str, Any]], agent_type: str) -> PreprocessorStack | None:
    """The ``preprocessing`` section as one stack, refusing preprocessors with state: an agent that preprocesses
    its rollouts at update time would advance their state twice."""
    for index, spec in enumerate(specs):
        if "reset" in registered()[spec["type"]].api_methods:
            raise ConfigError(f"{agent_type} preprocesses its rollouts at update time, so its preprocessors must be "
                              "stateless", key_path=f"{index}/type", expected="a preprocessor without state "
                              "(not a frame stack or running normaliser; use env wrappers)", got=spec["type"])
    return PreprocessorStack(specs, name="preprocessor") if specs else None
