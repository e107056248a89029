"""Preprocessor stacks per key of a Dict input."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rlworkbench.components.preprocessing.preprocessor_stack import PreprocessorStack
from rlworkbench.components.registry import from_spec, register
from rlworkbench.core.component import Component
from rlworkbench.core.decorators import api, graph_fn
from rlworkbench.core.ops import Tensor
from rlworkbench.errors import ConfigError, SpaceError
from rlworkbench.spaces import Dict, Space

Specs = Sequence[Component | Mapping[str, Any]]


def _key_spaces(stack: DictPreprocessorStack, inputs: Space) -> Space | tuple[Space, ...]:
    parts = tuple(inputs[key] for key in stack.keys)
    return parts[0] if len(parts) == 1 else parts


def _merged_space(stack: DictPreprocessorStack, inputs: Space, *processed: Space) -> Space:
    done = dict(zip(stack.keys, processed))
    return Dict({key: done.get(key, space) for key, space in inputs.items()})


@register("dict_preprocessor_stack")
class DictPreprocessorStack(Component):
    """``DictPreprocessorStack({"image": [specs...], "vector": [specs...]})``: a :class:`PreprocessorStack` per
    top-level key of a Dict input (a list of specs/components, or one stack or preprocessor component); keys
    without one pass through unchanged, and the output keeps the input's key order.

    API: ``preprocess(inputs)`` and ``reset()``, which resets every stack (their stateful members). The stacks are
    sub-components named by their keys.
    """

    def __init__(self, preprocessors: Mapping[str, Specs | Component | Mapping[str, Any]], **kwargs: Any):
        super().__init__(**kwargs)
        if not isinstance(preprocessors, Mapping) or not preprocessors:
            raise ConfigError("a dict preprocessor stack needs preprocessors per key", component=self.name,
                              key_path="preprocessors", expected="{key: [specs...]}", got=preprocessors)
        self.keys = [str(key) for key in preprocessors]
        self.stacks: list[Component] = []
        for key, specs in preprocessors.items():
            stack = from_spec(specs, name=str(key)) if isinstance(specs, (Component, Mapping)) else \
                PreprocessorStack(specs, name=str(key))
            if "preprocess" not in stack.api_methods:
                raise ConfigError("not a preprocessor", component=self.name, key_path=str(key),
                                  expected="a component with a 'preprocess' API method", got=type(stack).__name__)
            self.stacks.append(stack)
        self.add_components(*self.stacks)

    def create_variables(self, input_spaces: dict[str, Space]) -> None:
        inputs = input_spaces["inputs"]
        if not isinstance(inputs, Dict):
            raise SpaceError("a dict preprocessor stack needs a Dict input", argument="inputs", expected="Dict",
                             got=inputs)
        for key in self.keys:
            if key not in inputs.keys():
                raise SpaceError("no such key in the input", argument="inputs", key_path=key,
                                 expected=f"one of {list(inputs.keys())}", got=key)

    @api
    def preprocess(self, inputs: Tensor) -> Tensor:
        parts = self._split(inputs)
        parts = (parts,) if len(self.keys) == 1 else parts
        return self._merge(inputs, *(stack.preprocess(part) for stack, part in zip(self.stacks, parts)))

    @api
    def reset(self) -> None:
        for stack in self.stacks:
            if "reset" in stack.api_methods:
                stack.reset()

    @graph_fn(returns=lambda self: len(self.keys), output_spaces=_key_spaces)  # sub-spaces, bounds kept
    def _split(self, inputs: Mapping[str, Tensor]) -> Tensor | tuple[Tensor, ...]:
        parts = tuple(inputs[key] for key in self.keys)
        return parts[0] if len(parts) == 1 else parts

    @graph_fn(output_spaces=_merged_space)  # the stacks' spaces, bounds kept
    def _merge(self, inputs: Mapping[str, Tensor], *processed: Tensor) -> dict[str, Tensor]:
        done = dict(zip(self.keys, processed))
        return {key: done.get(key, value) for key, value in inputs.items()}
