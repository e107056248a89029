"""The component library. Each component is a short file with its API methods; see ``registry`` for specs."""

from rlworkbench.components.helpers import ContainerMerger, ContainerSplitter
from rlworkbench.components.layers import Dense, Layer, NeuralNetwork
from rlworkbench.components.policies import GreedyActionSelector
from rlworkbench.components.preprocessing import (
    Clip,
    Divide,
    Flatten,
    Multiply,
    OneHot,
    Preprocessor,
    PreprocessorStack,
    Reshape,
)
from rlworkbench.components.registry import from_spec, from_specs, known_types, register

__all__ = [
    "Clip",
    "ContainerMerger",
    "ContainerSplitter",
    "Dense",
    "Divide",
    "Flatten",
    "GreedyActionSelector",
    "Layer",
    "Multiply",
    "NeuralNetwork",
    "OneHot",
    "Preprocessor",
    "PreprocessorStack",
    "Reshape",
    "from_spec",
    "from_specs",
    "known_types",
    "register",
]
