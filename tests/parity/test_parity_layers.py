"""Parity of the layers: Conv2D, MaxPool2D, LSTM, Concat, Residual and stream networks on torch and TF."""

from __future__ import annotations

import pytest

from rlworkbench.components.layers import LSTM, Concat, Conv2D, MaxPool2D, NeuralNetwork, Residual
from rlworkbench.spaces import Dict, FloatBox, IntBox, Tuple


@pytest.mark.parametrize("padding, strides", [("valid", 1), ("same", 2), ("same", (1, 3))])
def test_conv2d(parity, ranks, padding, strides):
    pair = parity(lambda: Conv2D(3, (3, 2), strides=strides, padding=padding, activation="relu"),
                  {"inputs": FloatBox(shape=(7, 6, 2), **ranks)})
    assert list(pair.tf.variable_values()) == ["kernel", "bias"]


def test_max_pool2d(parity, ranks):
    pair = parity(lambda: MaxPool2D(3, 2, "same"), {"inputs": FloatBox(shape=(7, 6, 2), **ranks)})
    assert pair.tf.graph.output_space("apply") == FloatBox(shape=(4, 3, 2), **ranks)


@pytest.mark.parametrize("time_major", [False, True])
def test_lstm(parity, time_major):
    inputs = FloatBox(shape=(3,), add_batch_rank=True, add_time_rank=True, time_major=time_major)
    state = Tuple(FloatBox(shape=(4,)), FloatBox(shape=(4,)), add_batch_rank=True)
    pair = parity(lambda: LSTM(4), {"inputs": inputs, "initial_state": state})
    assert list(pair.tf.variable_values()) == ["kernel", "recurrent_kernel", "bias"]


def test_concat_and_residual(parity, ranks):
    parity(Concat, {"inputs": [FloatBox(shape=(2,), **ranks), FloatBox(0.0, 1.0, shape=(3,), **ranks)]})
    parity(lambda: Residual([{"type": "dense", "units": 5, "activation": "relu"}, {"type": "dense", "units": 3}]),
           {"inputs": FloatBox(shape=(3,), **ranks)})


def test_network_with_streams_on_nested_dicts(parity, ranks):
    def make():
        return NeuralNetwork([{"type": "dense", "units": 4, "activation": "tanh"}], streams={
            "obs/image": [{"type": "conv2d", "filters": 2, "kernel_size": 3, "strides": 2, "padding": "same"},
                          {"type": "max_pool2d", "pool_size": 2, "padding": "same"}, {"type": "flatten"}],
            "obs/vec": [{"type": "residual", "layers": [{"type": "dense", "units": 3}]}],
            "act": [{"type": "flatten"}]})

    space = Dict(obs=Dict(image=FloatBox(shape=(9, 8, 1)), vec=FloatBox(shape=(3,))), act=IntBox(3), **ranks)
    pair = parity(make, {"inputs": space})
    assert pair.tf.graph.output_space("apply") == FloatBox(shape=(4,), **ranks)
