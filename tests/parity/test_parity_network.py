"""Parity of NeuralNetwork: stacked dense layers from specs or objects, over batch and time ranks."""

from __future__ import annotations

from rlworkbench.components import Dense, NeuralNetwork
from rlworkbench.spaces import FloatBox

LAYERS = [{"type": "dense", "units": 8, "activation": "relu"}, {"type": "dense", "units": 6, "activation": "swish"},
          {"type": "dense", "units": 3}]


def test_network_from_specs(parity, ranks):
    pair = parity(lambda: NeuralNetwork(LAYERS, name="net"), {"inputs": FloatBox(shape=(4,), **ranks)})
    assert list(pair.tf.variable_values()) == [f"dense_{i}/{v}" for i in range(3) for v in ("kernel", "bias")]
    assert pair.tf.graph.output_space("apply") == FloatBox(shape=(3,), **ranks)


def test_network_from_layer_objects(parity):
    def make():
        return NeuralNetwork([Dense(5, activation="sigmoid", name="hidden"), Dense(2, use_bias=False, name="out")])

    pair = parity(make, {"inputs": FloatBox(shape=(2, 3), add_batch_rank=True)})
    assert list(pair.tf.variable_values()) == ["hidden/kernel", "hidden/bias", "out/kernel"]
    pair.call("out", "apply", FloatBox(shape=(2, 5), add_batch_rank=True).sample(3, seed=0))
