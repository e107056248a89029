"""Layers and neural networks."""

from rlworkbench.components.layers.dense import Dense
from rlworkbench.components.layers.layer import Layer
from rlworkbench.components.layers.neural_network import NeuralNetwork

__all__ = ["Dense", "Layer", "NeuralNetwork"]
