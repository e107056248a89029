"""A policy over sequences whose network carries a recurrent state (an LSTM) from step to step."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rlworkbench.components.layers.lstm import StateTensors
from rlworkbench.components.layers.neural_network import NeuralNetwork
from rlworkbench.components.layers.recurrent_network import RecurrentNetwork
from rlworkbench.components.policies.policy import Policy
from rlworkbench.components.registry import register
from rlworkbench.core.decorators import api, graph_fn
from rlworkbench.core.ops import Tensor
from rlworkbench.errors import ConfigError
from rlworkbench.spaces import Space, Tuple


@register("recurrent_policy")
class RecurrentPolicy(Policy):
    """A :class:`Policy` whose network is a :class:`RecurrentNetwork` (layer specs holding one ``lstm``), with an
    optional value head (``value_units``: its hidden layers, then a linear Dense(1); ``None``: no head).

    ``states`` have batch **and** time ranks (acting one step: a time rank of 1). Every API method takes the
    recurrent state ``internal_states = (h, c)`` at the sequences' start (:attr:`internal_state_space` per row;
    left out: zeros) and ``resets`` (one bool per step, optional: the state is zeroed before the steps that begin
    an episode). Acting methods also return the final state, to feed into the next call:
    ``get_deterministic_action`` / ``get_stochastic_action -> (actions, final_state)``,
    ``get_action_and_log_prob -> (actions, log_probs, final_state)``. ``get_initial_state(states)`` gives the
    zero state for a batch; ``get_step_states`` the state after every step (to go on from any step).
    """

    def __init__(self, network_spec: Any, action_space: Space, value_units: Sequence[int] | None = None,
                 value_activation: str = "relu", **kwargs: Any):
        super().__init__(network_spec, action_space, **kwargs)
        if not isinstance(self.network, RecurrentNetwork):
            raise ConfigError("a recurrent policy's network holds an lstm layer", component=self.name,
                              key_path="network_spec", expected="layer specs with one {'type': 'lstm', ...}",
                              got=type(self.network).__name__)
        self.value_head: NeuralNetwork | None = None
        if value_units is not None:
            hidden = [{"type": "dense", "units": int(u), "activation": value_activation} for u in value_units]
            self.value_head = NeuralNetwork(hidden + [{"type": "dense", "units": 1}], name="value_head")
            self.add_components(self.value_head)

    network: RecurrentNetwork

    @property
    def internal_state_space(self) -> Tuple:
        """The recurrent state ``(h, c)`` with a batch rank: one row per sequence."""
        return self.network.state_space

    def _outputs(self, states: Tensor, internal_states: StateTensors | None, resets: Tensor | None,
                 ) -> tuple[Tensor, StateTensors]:
        return self.network.apply_with_state(states, internal_states, resets)

    def _parameters_with_state(self, states: Tensor, internal_states: StateTensors | None,
                               resets: Tensor | None) -> tuple[list[Tensor], StateTensors]:
        outputs, final_state = self._outputs(states, internal_states, resets)
        return self._parameters_of(outputs), final_state

    # ----- API -----------------------------------------------------------------------------------------------
    @api
    def get_initial_state(self, states: Tensor) -> StateTensors:
        """The zero state ``(h, c)`` for the batch of ``states`` (sequences)."""
        return self.network.zero_state(states)

    @api
    def get_step_states(self, states: Tensor, internal_states: StateTensors | None = None,
                        resets: Tensor | None = None) -> StateTensors:
        """The state after every step of the sequences (batch and time ranks)."""
        _, step_states = self.network.unroll(states, internal_states, resets)
        return step_states

    @api
    def get_parameters(self, states: Tensor, internal_states: StateTensors | None = None,
                       resets: Tensor | None = None) -> Tensor:
        parameters, _ = self._parameters_with_state(states, internal_states, resets)
        return self._join(parameters)

    @api
    def get_deterministic_action(self, states: Tensor, internal_states: StateTensors | None = None,
                                 resets: Tensor | None = None) -> tuple[Tensor, StateTensors]:
        """``(actions, final_state)``: the distributions' deterministic samples."""
        parameters, final_state = self._parameters_with_state(states, internal_states, resets)
        return self._join(self._per_leaf("sample_deterministic", parameters)), final_state

    @api
    def get_stochastic_action(self, states: Tensor, internal_states: StateTensors | None = None,
                              resets: Tensor | None = None) -> tuple[Tensor, StateTensors]:
        """``(actions, final_state)``: random actions from the distributions."""
        parameters, final_state = self._parameters_with_state(states, internal_states, resets)
        return self._join(self._per_leaf("sample_stochastic", parameters)), final_state

    @api
    def get_action_and_log_prob(self, states: Tensor, internal_states: StateTensors | None = None,
                                resets: Tensor | None = None) -> tuple[Tensor, Tensor, StateTensors]:
        """``(actions, log_probs, final_state)``."""
        parameters, final_state = self._parameters_with_state(states, internal_states, resets)
        pairs = self._per_leaf("sample_and_log_prob", parameters)
        return (self._join([action for action, _ in pairs]), self._join([log_prob for _, log_prob in pairs]),
                final_state)

    @api
    def get_log_probs(self, states: Tensor, actions: Tensor, internal_states: StateTensors | None = None,
                      resets: Tensor | None = None) -> Tensor:
        parameters, _ = self._parameters_with_state(states, internal_states, resets)
        return self._join(self._per_leaf("log_prob", parameters, self._split("action", actions)))

    @api
    def get_entropy(self, states: Tensor, internal_states: StateTensors | None = None,
                    resets: Tensor | None = None) -> Tensor:
        parameters, _ = self._parameters_with_state(states, internal_states, resets)
        return self._join(self._per_leaf("entropy", parameters))

    @api
    def get_log_probs_and_entropy(self, states: Tensor, actions: Tensor, internal_states: StateTensors | None = None,
                                  resets: Tensor | None = None) -> tuple[Tensor, Tensor]:
        parameters, _ = self._parameters_with_state(states, internal_states, resets)
        return self._log_probs_and_entropy(parameters, actions)

    @api
    def get_kl_divergence(self, states: Tensor, other_parameters: Tensor, internal_states: StateTensors | None = None,
                          resets: Tensor | None = None) -> Tensor:
        others = self._split("parameter", other_parameters)
        parameters, _ = self._parameters_with_state(states, internal_states, resets)
        return self._join([self.distributions[key].kl_divergence(leaf, other_parameters=other)
                           for key, leaf, other in zip(self.keys, parameters, others)])

    @api
    def get_state_values(self, states: Tensor, internal_states: StateTensors | None = None,
                         resets: Tensor | None = None) -> Tensor:
        """``V(states)`` from the value head (``FloatBox(())`` with the states' ranks)."""
        outputs, _ = self._outputs(states, internal_states, resets)
        return self._squeeze(self._value_head().apply(outputs))

    @api
    def get_log_probs_entropy_and_values(self, states: Tensor, actions: Tensor,
                                         internal_states: StateTensors | None = None,
                                         resets: Tensor | None = None) -> tuple[Tensor, Tensor, Tensor]:
        """``(log_probs, entropies, values)`` from one pass of the network."""
        outputs, _ = self._outputs(states, internal_states, resets)
        log_probs, entropies = self._log_probs_and_entropy(self._parameters_of(outputs), actions)
        return log_probs, entropies, self._squeeze(self._value_head().apply(outputs))

    def _value_head(self) -> NeuralNetwork:
        if self.value_head is None:
            raise ConfigError("this recurrent policy has no value head", component=self.name,
                              argument="value_units", expected="a list of hidden sizes ([] for none)", got=None)
        return self.value_head

    @graph_fn
    def _squeeze(self, values: Tensor) -> Tensor:
        return self.ops.squeeze(values, -1)
