"""Splitting a container value into its parts, by key path."""

from __future__ import annotations

from typing import Any

from rlworkbench.components.registry import register
from rlworkbench.core.component import Component
from rlworkbench.core.decorators import api, graph_fn
from rlworkbench.core.ops import Tensor
from rlworkbench.errors import ConfigError, SpaceError
from rlworkbench.spaces import ContainerSpace, Space


def _part_spaces(splitter: ContainerSplitter, inputs: Space) -> Space | tuple[Space, ...]:
    parts = tuple(splitter.part_spaces)
    return parts[0] if len(parts) == 1 else parts


@register("container_splitter")
class ContainerSplitter(Component):
    """``ContainerSplitter("obs/image", "mask").split(inputs) -> (image, mask)``.

    Keys are key paths into Dict/Tuple inputs (tuple items by index); a key may name a whole sub-container.
    The outputs' spaces are the sub-spaces themselves (bounds included, so e.g. a ``OneHot`` can follow).
    From a spec the keys come as a list: ``{"type": "container_splitter", "keys": ["obs/image", "mask"]}``.
    """

    def __init__(self, *keys: str, **kwargs: Any):
        keys = keys or tuple(kwargs.pop("keys", ()))
        super().__init__(**kwargs)
        if not keys:
            raise ConfigError("a splitter needs at least one key", component=self.name, expected="key paths", got=())
        self.keys = [str(k) for k in keys]

    def create_variables(self, input_spaces: dict[str, Space]) -> None:
        self.lookups: list[list[str | int]] = []  # raw keys per level: str for Dict, int for Tuple
        self.part_spaces: list[Space] = []
        for key in self.keys:
            node, lookup = input_spaces["inputs"], []
            for depth, part in enumerate(key.split("/")):
                children = {str(k): (k, s) for k, s in node.children()} if isinstance(node, ContainerSpace) else {}
                if part not in children:
                    where = "/".join(key.split("/")[:depth]) or "the top level"
                    raise SpaceError("split key not in the input space", argument="inputs", key_path=key,
                                     expected=f"one of {sorted(children)} at {where}", got=part)
                raw_key, node = children[part]
                lookup.append(raw_key)
            self.lookups.append(lookup)
            self.part_spaces.append(node)

    @api
    @graph_fn(returns=lambda self: len(self.keys), output_spaces=_part_spaces)  # sub-spaces, bounds kept
    def split(self, inputs: Tensor) -> Tensor | tuple[Tensor, ...]:
        parts = []
        for lookup in self.lookups:
            value = inputs
            for part in lookup:
                value = value[part]
            parts.append(value)
        return parts[0] if len(parts) == 1 else tuple(parts)

