"""A stochastic policy: network → one action adapter and one distribution per action leaf."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, cast

from rlworkbench.components.distributions import Distribution, distribution_for
from rlworkbench.components.helpers.container_splitter import ContainerSplitter
from rlworkbench.components.layers.neural_network import NeuralNetwork
from rlworkbench.components.layers.recurrent_network import RecurrentNetwork, is_recurrent_spec
from rlworkbench.components.policies.action_adapters import adapter_for
from rlworkbench.components.registry import from_spec, register
from rlworkbench.core.component import Component
from rlworkbench.core.decorators import api, graph_fn
from rlworkbench.core.ops import Tensor
from rlworkbench.core.space_inference import structure_to_space
from rlworkbench.errors import ConfigError
from rlworkbench.spaces import ContainerSpace, FloatBox, Space, as_space, refuse_zero_size

DistributionSpec = str | Mapping[str, Any] | Distribution | None


def network_from_spec(spec: Component | Sequence[Any] | Mapping[str, Any], name: str = "network") -> Component:
    """A component as it is, a list of layer specs as a :class:`NeuralNetwork` (a :class:`RecurrentNetwork` when
    it holds an ``lstm`` layer), a dict as a component spec."""
    if isinstance(spec, Component):
        return spec
    if isinstance(spec, Sequence) and not isinstance(spec, str):
        return RecurrentNetwork(spec, name=name) if is_recurrent_spec(spec) else NeuralNetwork(spec, name=name)
    if isinstance(spec, Mapping):
        return from_spec(spec, name=name)
    raise ConfigError("bad network spec", key_path="network_spec", expected="a Component, a list of layer specs "
                      "or a component spec dict", got=repr(spec))


def _nested_space(policy: Policy, *leaves: Space) -> Space:
    return structure_to_space(policy.action_space.unflatten(dict(zip(policy.keys, leaves))), lambda leaf: leaf)


@register("policy")
class Policy(Component):
    """``network_spec`` (a network, or a list of layer specs) followed, per leaf of ``action_space``, by an
    action adapter (a Dense layer) and a distribution. Leaves get categorical (IntBox), bernoulli (BoolBox) or
    normal (FloatBox) distributions unless ``distributions`` says otherwise: one spec for a single action, a
    ``{key_path: spec}`` dict for a container (``"squashed_normal"``, ``{"type": "beta"}``, a component).
    Normal samples are unbounded (typed so): clip them for the env, or pick squashed_normal / beta for bounds.

    API methods take ``states`` (whatever the network takes) and return values nested like the action space,
    with the states' batch/time ranks. Log-probs, entropies and KLs are per leaf, summed over each leaf's own
    axes (sum the leaves for a joint value); ``other_parameters`` are shaped as ``get_parameters`` returns them.

    A policy cannot act on nothing: states whose space holds no number at all (``FloatBox(shape=(0,))``, an empty
    Dict) and an action leaf of zero size are SpaceErrors naming the policy (a container of states may have
    zero-size leaves beside others, for streams that leave them out). Memories, preprocessors and splitters take
    zero-size spaces; layers with weights (dense, conv2d, lstm) refuse them too.
    """

    def __init__(self, network_spec: Any, action_space: Space, distributions: DistributionSpec = None,
                 **kwargs: Any):
        super().__init__(**kwargs)
        self.action_space = as_space(action_space, "action_space", component=self.name).strip_ranks()
        self.is_container = isinstance(self.action_space, ContainerSpace)
        leaves = self.action_space.flatten()
        for key, leaf in leaves.items():
            if isinstance(leaf, Space):  # always, for a space's own leaves
                refuse_zero_size(leaf, "action_space", "a policy", component=self.name, key_path=key or None)
        self.keys = list(leaves)
        specs = self._leaf_specs(distributions)
        self.network = network_from_spec(network_spec)
        self.distributions = {key: distribution_for(leaf, specs.get(key), self._leaf_name("distribution", key),
                                                    key_path=key or None) for key, leaf in leaves.items()}
        self.adapters = {key: self.make_adapter(leaf, self.distributions[key], self._leaf_name("action_adapter", key))
                         for key, leaf in leaves.items()}
        self.add_components(self.network, *self.adapters.values(), *self.distributions.values())
        if self.is_container:
            self.splitters = {what: ContainerSplitter(*self.keys, name=f"{what}_splitter")
                              for what in ("action", "parameter")}
            self.add_components(*self.splitters.values())

    def create_variables(self, input_spaces: dict[str, Space]) -> None:
        states = input_spaces.get("states")
        if states is not None:
            refuse_zero_size(states, "states", "a policy")

    def sample_space(self) -> Space:
        """The space of the actions this policy samples: the action space, except that a float leaf keeps its
        bounds only where its distribution does (squashed_normal, beta; a normal's samples are unbounded)."""
        leaves = [self.distributions[key].value_leaf(leaf.shape) if isinstance(leaf, FloatBox) else cast(Space, leaf)
                  for key, leaf in self.action_space.flatten().items()]
        return _nested_space(self, *leaves) if self.is_container else leaves[0]

    def make_adapter(self, space: Space, distribution: Distribution, name: str) -> Component:
        """The adapter for one leaf (subclasses may give their own, with the same ``get_parameters`` API)."""
        return adapter_for(space, distribution, name=name)

    def _leaf_specs(self, distributions: Any) -> dict[str, DistributionSpec]:
        if not self.is_container or distributions is None:
            return {"": distributions}
        if not isinstance(distributions, Mapping) or "type" in distributions:
            raise ConfigError("a container action space takes a {key_path: spec} dict of distributions",
                              component=self.name, argument="distributions", expected=self.keys, got=distributions)
        unknown = sorted(set(distributions) - set(self.keys))
        if unknown:
            raise ConfigError("distributions for keys the action space does not have", component=self.name,
                              argument="distributions", expected=self.keys, got=unknown)
        return dict(distributions)

    def _leaf_name(self, prefix: str, key: str) -> str:
        return f"{prefix}_{re.sub(r'[^A-Za-z0-9_.-]', '.', key)}" if key else prefix

    # ----- routing per leaf ----------------------------------------------------------------------------------
    def _leaf_parameters(self, states: Tensor) -> list[Tensor]:
        return self._parameters_of(self.network.apply(states))

    def _parameters_of(self, network_outputs: Tensor) -> list[Tensor]:
        return [self.adapters[key].get_parameters(network_outputs) for key in self.keys]

    def _log_probs_and_entropy(self, parameters: list[Tensor], actions: Tensor) -> tuple[Tensor, Tensor]:
        return (self._join(self._per_leaf("log_prob", parameters, self._split("action", actions))),
                self._join(self._per_leaf("entropy", parameters)))

    def _split(self, what: str, value: Tensor) -> list[Tensor]:
        if not self.is_container:
            return [value]
        parts = self.splitters[what].split(value)
        return list(parts) if len(self.keys) > 1 else [parts]

    def _per_leaf(self, api_name: str, *per_leaf: list[Tensor]) -> list[Tensor]:
        return [getattr(self.distributions[key], api_name)(*args) for key, *args in zip(self.keys, *per_leaf)]

    def _join(self, leaves: list[Tensor]) -> Tensor:
        return self._nest(*leaves) if self.is_container else leaves[0]

    @graph_fn(output_spaces=_nested_space)  # the leaves' spaces, categories and bounds kept
    def _nest(self, *leaves: Tensor) -> Tensor:
        return self.action_space.unflatten(dict(zip(self.keys, leaves)))

    # ----- API -----------------------------------------------------------------------------------------------
    @api
    def get_parameters(self, states: Tensor) -> Tensor:
        """The distribution parameters per action leaf (e.g. to keep for a later KL)."""
        return self._join(self._leaf_parameters(states))

    @api
    def get_deterministic_action(self, states: Tensor) -> Tensor:
        """The distributions' deterministic samples (argmax, mean, ...)."""
        return self._join(self._per_leaf("sample_deterministic", self._leaf_parameters(states)))

    @api
    def get_stochastic_action(self, states: Tensor) -> Tensor:
        """Random actions from the distributions."""
        return self._join(self._per_leaf("sample_stochastic", self._leaf_parameters(states)))

    @api
    def get_action_and_log_prob(self, states: Tensor) -> tuple[Tensor, Tensor]:
        """``(actions, log_probs)``: random actions and their log-probabilities."""
        pairs = self._per_leaf("sample_and_log_prob", self._leaf_parameters(states))
        return self._join([action for action, _ in pairs]), self._join([log_prob for _, log_prob in pairs])

    @api
    def get_log_probs(self, states: Tensor, actions: Tensor) -> Tensor:
        """Log-probabilities of ``actions`` (shaped like the action space, with the states' ranks)."""
        return self._join(self._per_leaf("log_prob", self._leaf_parameters(states), self._split("action", actions)))

    @api
    def get_entropy(self, states: Tensor) -> Tensor:
        """Entropies of the distributions."""
        return self._join(self._per_leaf("entropy", self._leaf_parameters(states)))

    @api
    def get_log_probs_and_entropy(self, states: Tensor, actions: Tensor) -> tuple[Tensor, Tensor]:
        """``(log_probs, entropies)``, as :meth:`get_log_probs` and :meth:`get_entropy` give them, from one pass
        of the network (a policy-gradient update needs both)."""
        return self._log_probs_and_entropy(self._leaf_parameters(states), actions)

    @api
    def get_kl_divergence(self, states: Tensor, other_parameters: Tensor) -> Tensor:
        """``KL(π(·|states) || other)``, ``other_parameters`` shaped as ``get_parameters`` returns them."""
        others = self._split("parameter", other_parameters)
        return self._join([self.distributions[key].kl_divergence(parameters, other_parameters=other)
                           for key, parameters, other in zip(self.keys, self._leaf_parameters(states), others)])
