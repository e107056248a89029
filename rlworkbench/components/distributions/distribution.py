"""The :class:`Distribution` base: sampling, log-probabilities, entropy and KL from parameters given as inputs."""

from __future__ import annotations

from typing import Generic, TypeVar

from rlworkbench.components.distributions.parameter_spaces import ParameterSpaces
from rlworkbench.core.component import Component
from rlworkbench.core.decorators import api, graph_fn
from rlworkbench.core.ops import Tensor
from rlworkbench.nest import Nested
from rlworkbench.spaces import FloatBox, Space

# a distribution's parameters in graph functions: one tensor (logits) or a tuple of them (mean, log_std)
Parameters = TypeVar("Parameters", bound=Nested[Tensor])


def _value_space(distribution: Distribution, parameters: Space, *_: Space) -> Space:
    return distribution.value_space(parameters)


def _scalar_space(distribution: Distribution, parameters: Space, *_: Space) -> Space:
    return FloatBox(shape=()).with_ranks_of(distribution.first_parameter(parameters))


def _value_and_scalar_spaces(distribution: Distribution, parameters: Space) -> tuple[Space, Space]:
    return _value_space(distribution, parameters), _scalar_space(distribution, parameters)


class Distribution(ParameterSpaces, Component, Generic[Parameters]):
    """A distribution over one action leaf, stateless: its parameters are API inputs (a policy's outputs).

    API methods: ``sample_stochastic(parameters)``, ``sample_deterministic(parameters)``,
    ``sample_and_log_prob(parameters) -> (sample, log_prob)``, ``log_prob(parameters, values)``,
    ``entropy(parameters)`` and ``kl_divergence(parameters, *, other_parameters)`` (``KL(p || q)``, ``p`` from
    ``parameters``; ``other_parameters`` by name, as the two share a space). Values have the shape of the action;
    log-probabilities, entropies and KLs are summed over the action's own axes (independent elements), leaving the
    batch/time ranks. Samples are typed as the action space (categories and bounds kept), from the component's own
    seeded generator.

    Subclasses name their parameters (``parameter_names``; several come as a tuple, see
    :class:`ParameterSpaces`) and write the element-wise maths: ``_draw``, ``_mode``, ``_log_density``,
    ``_elementwise_entropy``, ``_elementwise_kl``.
    """

    def create_variables(self, input_spaces: dict[str, Space]) -> None:
        first = self.check_input_spaces(input_spaces)
        self.event_rank = len(self.event_shape(first))
        self.value_rank = first.num_extra_ranks + self.event_rank
        self.rng = self.create_random_generator()

    # ----- API: graph functions of the element-wise maths, summed over the action's axes ----------------------
    # samples' spaces are declared: they keep the action space's categories and bounds
    @api
    @graph_fn(output_spaces=_value_space)
    def sample_stochastic(self, parameters: Parameters) -> Tensor:
        """A random sample (from this component's seeded generator)."""
        return self._draw(parameters)

    @api
    @graph_fn(output_spaces=_value_space)
    def sample_deterministic(self, parameters: Parameters) -> Tensor:
        """The distribution's most likely or central value (see the distribution)."""
        return self._mode(parameters)

    @api
    @graph_fn(returns=2, output_spaces=_value_and_scalar_spaces)
    def sample_and_log_prob(self, parameters: Parameters) -> tuple[Tensor, Tensor]:
        """``(sample, log_prob)``: a random sample and its log-probability."""
        values, log_density = self._draw_with_log_density(parameters)
        return values, self._sum_event(log_density)

    @api
    @graph_fn(output_spaces=_scalar_space)  # declared: a build must not look up sampled, out-of-range categories
    def log_prob(self, parameters: Parameters, values: Tensor) -> Tensor:
        """Log-probability (density) of ``values``, summed over the action's axes."""
        return self._sum_event(self._log_density(parameters, values))

    @api
    @graph_fn
    def entropy(self, parameters: Parameters) -> Tensor:
        """Entropy, summed over the action's axes."""
        return self._sum_event(self._elementwise_entropy(parameters))

    @api
    @graph_fn
    def kl_divergence(self, parameters: Parameters, *, other_parameters: Parameters) -> Tensor:
        """``KL(p || q)``, ``p`` from ``parameters``, ``q`` from ``other_parameters``, summed over the action's axes."""
        return self._sum_event(self._elementwise_kl(parameters, other_parameters))

    def _sum_event(self, x: Tensor) -> Tensor:
        for _ in range(self.event_rank):
            x = self.ops.reduce_sum(x, -1)
        return x

    def _value_shape(self, x: Tensor) -> tuple[object, ...]:
        """The full (batch, time and action) shape of values, read off a tensor that has it."""
        return self.ops.leading_dims(x, self.value_rank)

    # ----- maths, element-wise (subclasses) -------------------------------------------------------------------
    def _draw(self, parameters: Parameters) -> Tensor:
        raise NotImplementedError

    def _mode(self, parameters: Parameters) -> Tensor:
        raise NotImplementedError

    def _draw_with_log_density(self, parameters: Parameters) -> tuple[Tensor, Tensor]:
        values = self._draw(parameters)
        return values, self._log_density(parameters, values)

    def _log_density(self, parameters: Parameters, values: Tensor) -> Tensor:
        raise NotImplementedError

    def _elementwise_entropy(self, parameters: Parameters) -> Tensor:
        raise NotImplementedError

    def _elementwise_kl(self, parameters: Parameters, other_parameters: Parameters) -> Tensor:
        raise NotImplementedError
