"""Parity of the optimizers (SGD, Adam, RMSProp, with momentum and clipping): a small root owning a network and an
optimizer takes the same steps on torch and TF from the same (copied) weights, so losses, gradient norms, the
trained weights and the optimizer state (step counter, slots) agree after every step."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from rlworkbench.components import SGD, Adam, NeuralNetwork, RMSProp
from rlworkbench.components.optimizers import Optimizer
from rlworkbench.spaces import FloatBox
from rlworkbench.testing.regression import Regression

LAYERS = [{"type": "dense", "units": 4, "activation": "tanh"}, {"type": "dense", "units": 2}]
STEPS = 3  # further steps after the sampled ones parity() takes
TOLERANCE = {"rtol": 1e-5, "atol": 1e-6}  # float32 round-off differs; RMSProp scales it up for tiny gradients

CASES: dict[str, Callable[[], Optimizer]] = {
    "sgd": lambda: SGD(0.1, variables_of="model"),
    "sgd_momentum_clip_norm": lambda: SGD(0.05, momentum=0.9, clip_grad_norm=0.3, variables_of="model"),
    "adam": lambda: Adam(0.01, beta1=0.8, beta2=0.99, epsilon=1e-6, variables_of="model"),
    "adam_clip_value": lambda: Adam(0.01, clip_grad_value=0.05, variables_of="model"),
    "rmsprop": lambda: RMSProp(0.01, decay=0.9, epsilon=1e-6, variables_of="model"),
    "rmsprop_momentum_clip_both": lambda: RMSProp(0.01, decay=0.95, momentum=0.5, clip_grad_value=0.3,
                                                  clip_grad_norm=0.25, variables_of="model"),
}


def rows(space: FloatBox, batch: int, seed: int) -> np.ndarray:
    return space.sample((batch, 2) if space.has_time_rank else batch, seed=seed)


@pytest.mark.parametrize("case", list(CASES))
def test_optimizer_steps(parity, ranks, case):
    spaces = {"x": FloatBox(-2.0, 2.0, shape=(3,), **ranks), "y": FloatBox(-1.0, 1.0, shape=(2,), **ranks)}
    def make_root() -> Regression:  # a two-layer model; the case's optimizer finds it by path
        return Regression(lambda model: CASES[case](), NeuralNetwork(LAYERS, name="model"))

    pair = parity(make_root, spaces)  # takes one step per sampled batch size
    name = pair.tf.component.optimizer.name
    sampled_steps = pair.assert_same_weights(**TOLERANCE)[f"{name}/steps"]
    assert sampled_steps > 0
    for step in range(STEPS):
        x, y = rows(spaces["x"], 4, seed=10 + step), rows(spaces["y"], 4, seed=20 + step)
        (loss, norm), _ = pair.run("update", x, y)
        assert loss.shape == norm.shape == () and norm > 0
        pair.assert_same_weights(**TOLERANCE)
    weights = pair.assert_same_weights(**TOLERANCE)
    assert weights[f"{name}/steps"] == sampled_steps + STEPS
    slots = [key for key in weights if key.startswith(f"{name}/") and key != f"{name}/steps"]
    assert all(np.any(weights[key] != 0) for key in slots), "every slot has been updated"
    pair.run("predict", rows(spaces["x"], 3, seed=1))
