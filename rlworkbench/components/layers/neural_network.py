"""A neural network: layers applied in order, optionally after per-key input streams that are concatenated."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rlworkbench.components.helpers.container_splitter import ContainerSplitter
from rlworkbench.components.helpers.stack import Stack
from rlworkbench.components.layers.concat import Concat
from rlworkbench.components.layers.layer import apply_layers, check_layers
from rlworkbench.components.registry import register
from rlworkbench.core.component import Component
from rlworkbench.core.decorators import api
from rlworkbench.core.ops import Tensor
from rlworkbench.errors import ConfigError

LayerSpecs = Sequence[Component | Mapping[str, Any]]


@register("neural_network")
class NeuralNetwork(Stack):
    """``apply(inputs)``: ``NeuralNetwork([{"type": "dense", "units": 64, "activation": "relu"}, ...])`` runs its
    layers in order. Items are layers (``apply``) or preprocessors (``preprocess``, e.g. ``{"type": "flatten"}``);
    unnamed ones are named ``<type>_<index>`` so that scoped variable names are stable.

    With ``streams`` the inputs are a Dict (or Tuple) space: each stream, keyed by a key path into the inputs
    (``"obs/image"``), is a list of layer specs (or a component with ``apply``) that runs on its part; the
    stream outputs are concatenated along the last axis (they must share their batch/time ranks and core rank,
    so end image streams with ``{"type": "flatten"}``), then ``layers`` run on the result. Keys of the inputs
    that no stream names are not used. Stream sub-components are named by their key (``/`` becomes ``.``)::

        {"type": "neural_network",
         "streams": {"image": [{"type": "conv2d", "filters": 8, "kernel_size": 3}, {"type": "flatten"}],
                     "vector": [{"type": "dense", "units": 16}]},
         "layers": [{"type": "dense", "units": 64, "activation": "relu"}]}
    """

    def __init__(self, layers: LayerSpecs = (), streams: Mapping[str, LayerSpecs | Component] | None = None,
                 **kwargs: Any):
        super().__init__(layers, **kwargs)
        self.layers = self.items
        check_layers(self.name, self.layers)
        self.streams: list[Component] = []
        if streams is not None:
            if not isinstance(streams, Mapping) or not streams:
                raise ConfigError("streams map key paths of the inputs to lists of layer specs", component=self.name,
                                  argument="streams", expected="{'key': [layer specs], ...}", got=repr(streams))
            self.streams = [_stream(self.name, str(key), stream) for key, stream in streams.items()]
            self.splitter = ContainerSplitter(*(str(key) for key in streams), name="splitter")
            self.concat = Concat(axis=-1, name="concat")
            self.add_components(self.splitter, *self.streams, self.concat)

    @api
    def apply(self, inputs: Tensor) -> Tensor:
        if self.streams:
            parts = self.splitter.split(inputs)
            parts = parts if len(self.streams) > 1 else (parts,)
            inputs = self.concat.apply(*(stream.apply(part) for stream, part in zip(self.streams, parts)))
        return apply_layers(self.layers, inputs)


def _stream(owner: str, key: str, stream: LayerSpecs | Component) -> Component:
    if isinstance(stream, Component):
        if "apply" not in stream.api_methods:
            raise ConfigError("a stream component needs an 'apply' API method", component=owner,
                              key_path=f"streams/{key}", expected="a layer or network", got=type(stream).__name__)
        return stream
    if isinstance(stream, (str, Mapping)) or not isinstance(stream, Sequence):
        raise ConfigError("a stream is a list of layer specs", component=owner, key_path=f"streams/{key}",
                          expected="[{'type': ...}, ...]", got=repr(stream))
    return NeuralNetwork(stream, name=key.replace("/", "."))
