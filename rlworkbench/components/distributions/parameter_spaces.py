"""What a distribution's parameters and values look like: checked and derived from spaces."""

from __future__ import annotations

from typing import Any, ClassVar, Self

from rlworkbench.errors import ConfigError, SpaceError
from rlworkbench.spaces import BoxSpace, FloatBox, Space, Tuple, as_space


class ParameterSpaces:
    """Mixin of :class:`~rlworkbench.components.distributions.Distribution`: parameters are one ``FloatBox``
    (``parameter_names`` of length 1) or a ``Tuple`` of FloatBoxes of one shape; values are ``value_kind``
    leaves of the action's shape (``event_shape``), with the parameters' batch/time ranks."""

    parameter_names: ClassVar[tuple[str, ...]] = ("logits",)
    value_kind: ClassVar[type[BoxSpace]] = FloatBox  # the kind of action leaf the distribution is over
    path: str

    @classmethod
    def for_space(cls, space: Space, **kwargs: Any) -> Self:
        """The distribution configured for the action leaf ``space`` (categories, bounds), ``kwargs`` on top."""
        space = as_space(space, "space", component=kwargs.get("name"))
        if not isinstance(space, cls.value_kind):
            raise ConfigError(f"{cls.__name__} is a distribution over {cls.value_kind.__name__} actions",
                              component=kwargs.get("name"), expected=cls.value_kind.__name__, got=space)
        return cls(**{**cls.space_arguments(space), **kwargs})

    @classmethod
    def space_arguments(cls, space: Space) -> dict[str, object]:
        """Constructor arguments taken from an action leaf (categories, bounds)."""
        return {}

    def first_parameter(self, parameters: Space, argument: str = "parameters") -> FloatBox:
        """The (first) parameter leaf's space; a SpaceError unless ``parameters`` has the expected structure."""
        names = self.parameter_names
        leaves = [parameters] if len(names) == 1 else \
            list(parameters) if isinstance(parameters, Tuple) and len(parameters) == len(names) else []
        if not leaves or not all(isinstance(leaf, FloatBox) for leaf in leaves) or \
                len({(leaf.get_shape(True, True), leaf.time_major) for leaf in leaves}) != 1:
            expected = "FloatBox" if len(names) == 1 else f"Tuple({', '.join(names)}) of FloatBoxes of one shape"
            raise SpaceError(f"{type(self).__name__} parameters have the wrong structure", component=self.path,
                             argument=argument, expected=expected, got=parameters)
        return leaves[0]

    def event_shape(self, parameter: FloatBox) -> tuple[int, ...]:
        """The core shape of one action, given the first parameter leaf's space."""
        return parameter.shape

    def value_space(self, parameters: Space) -> Space:
        """The space of values (samples) for parameters of space ``parameters``."""
        first = self.first_parameter(parameters)
        return self.value_leaf(self.event_shape(first)).with_ranks_of(first)

    def value_leaf(self, shape: tuple[int, ...]) -> Space:
        """The action space (no ranks) of values of ``shape``."""
        return FloatBox(shape=shape)

    def check_input_spaces(self, input_spaces: dict[str, Space]) -> FloatBox:
        """Checks ``values`` and ``other_parameters`` against ``parameters``; returns the first parameter leaf."""
        parameters = input_spaces["parameters"]
        first = self.first_parameter(parameters)
        expected = self.value_space(parameters)
        values = input_spaces.get("values")
        if values is not None and (type(values) is not type(expected) or
                                   values.get_shape(True, True) != expected.get_shape(True, True)):
            raise SpaceError("values do not fit the parameters", argument="values", expected=expected, got=values)
        other = input_spaces.get("other_parameters")
        if other is not None and self.first_parameter(other, "other_parameters").get_shape(True, True) != \
                first.get_shape(True, True):
            raise SpaceError("other parameters differ from the parameters", argument="other_parameters",
                             expected=parameters, got=other)
        return first
