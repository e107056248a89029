"""Layers and neural networks: dense, 2-D convolution and pooling, LSTM, concat, residual blocks, networks."""

from rlworkbench.components.layers.concat import Concat
from rlworkbench.components.layers.conv2d import Conv2D
from rlworkbench.components.layers.dense import Dense
from rlworkbench.components.layers.image_layer import ImageLayer
from rlworkbench.components.layers.layer import Layer
from rlworkbench.components.layers.lstm import LSTM
from rlworkbench.components.layers.max_pool2d import MaxPool2D
from rlworkbench.components.layers.neural_network import NeuralNetwork
from rlworkbench.components.layers.recurrent_network import RecurrentNetwork, is_recurrent_spec
from rlworkbench.components.layers.residual import Residual

__all__ = ["LSTM", "Concat", "Conv2D", "Dense", "ImageLayer", "Layer", "MaxPool2D", "NeuralNetwork", "RecurrentNetwork",
           "Residual", "is_recurrent_spec"]
