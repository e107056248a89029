"""Optimizer configs, loss spaces and targets that cannot work fail early, naming what is wrong."""

from __future__ import annotations

import pytest
from optim_numpy import Regression

from rlworkbench import BuildError, Component, api, graph_fn
from rlworkbench.components import SGD, Adam, Dense, Layer, RMSProp
from rlworkbench.errors import ConfigError, SpaceError
from rlworkbench.spaces import FloatBox
from rlworkbench.testing import ComponentTest

SPACES = {"x": FloatBox(shape=(3,), add_batch_rank=True), "y": FloatBox(shape=(2,), add_batch_rank=True)}


@pytest.mark.parametrize("make, key", [
    (lambda: SGD(0.0, variables_of="model"), "learning_rate"),
    (lambda: SGD(0.1, momentum=1.0, variables_of="model"), "momentum"),
    (lambda: Adam(0.1, beta1=-0.1, variables_of="model"), "beta1"),
    (lambda: Adam(0.1, epsilon=0.0, variables_of="model"), "epsilon"),
    (lambda: RMSProp(0.1, decay=1.5, variables_of="model"), "decay"),
    (lambda: SGD(0.1, clip_grad_norm=-1.0, variables_of="model"), "clip_grad_norm"),
    (lambda: SGD(0.1, clip_grad_value=0.0, variables_of="model"), "clip_grad_value"),
    (lambda: SGD(float("inf"), variables_of="model"), "learning_rate"),
    (lambda: Adam(float("nan"), variables_of="model"), "learning_rate"),
    (lambda: SGD(0.1, clip_grad_norm=float("inf"), variables_of="model"), "clip_grad_norm"),
    (lambda: SGD(0.1, variables_of=[]), "variables_of"),
])
def test_bad_configs_are_config_errors(backend, make, key):
    with pytest.raises(ConfigError) as info:
        make()
    assert info.value.key_path == key and info.value.expected is not None


def test_unknown_target_path(backend):
    with pytest.raises(ConfigError) as info:
        ComponentTest(Regression(lambda model: SGD(0.1, variables_of="modle")), SPACES, backend=backend)
    error = info.value
    assert error.component == "regression/sgd" and error.key_path == "variables_of" and error.got == "modle"
    assert "model" in str(error.expected)


class PerSampleLoss(Regression):
    """Passes the un-reduced squared errors (batch rank) to the optimizer: not a scalar."""

    @api
    def update(self, x, y):
        return self.optimizer.step(self._squared(self.model.apply(x), y))

    @graph_fn
    def _squared(self, predictions, targets):
        return self.ops.reduce_sum(self.ops.square(predictions - targets), -1)


def test_loss_must_be_a_scalar(backend):
    with pytest.raises(SpaceError) as info:
        ComponentTest(PerSampleLoss(lambda model: Adam(0.1, variables_of=model)), SPACES, backend=backend)
    error = info.value
    assert (error.component, error.argument) == ("regression/adam", "loss")
    assert error.got == FloatBox(add_batch_rank=True)


class FrozenScale(Layer):
    """Multiplies by a non-trainable variable: nothing to optimise."""

    def create_variables(self, input_spaces):
        self.scale = self.create_variable("scale", (), trainable=False, initializer=2.0)

    @api
    @graph_fn
    def apply(self, inputs):
        return inputs * self.scale


def test_target_without_trainable_variables(backend):
    root = Regression(lambda model: SGD(0.1, variables_of="model"), model=FrozenScale(name="model"))
    with pytest.raises(ConfigError) as info:
        ComponentTest(root, {"x": SPACES["y"], "y": SPACES["y"]}, backend=backend)
    assert info.value.component == "regression/sgd" and info.value.got == ["regression/model"]


class Unused(Component):
    """The optimizer's target is never called, so it has no variables."""

    def __init__(self):
        self.model, self.spare = Dense(2, name="model"), Dense(2, name="spare")
        self.optimizer = SGD(0.1, variables_of="spare")
        super().__init__(self.model, self.spare, self.optimizer, name="unused")

    @api
    def update(self, x):
        return self.optimizer.step(self._loss(self.model.apply(x)))

    @graph_fn
    def _loss(self, outputs):
        return self.ops.reduce_mean(outputs)


def test_target_that_is_never_called(backend):
    with pytest.raises(ConfigError) as info:
        ComponentTest(Unused(), {"x": SPACES["x"]}, backend=backend)
    error = info.value
    assert error.component == "unused/sgd" and error.got == ["unused/spare"] and "no API method calls" in str(error)


class Circular(Component):
    """Two optimizers, each of the other's variables: neither can be built first."""

    def __init__(self):
        self.first, self.second = SGD(0.1, variables_of="second", name="first"), SGD(0.1, variables_of="first",
                                                                                     name="second")
        super().__init__(self.first, self.second, name="circular")

    @api
    def update(self, loss):
        return self.first.step(loss), self.second.step(loss)


def test_circular_variable_needs_name_the_cycle(backend):
    with pytest.raises(BuildError) as info:
        ComponentTest(Circular(), {"loss": FloatBox()}, backend=backend)
    error = info.value
    assert error.component == "circular/first" and error.api_method == "step" and "'circular/second'" in str(error)
    assert error.graph.stuck.component == "circular/first"


def test_target_from_another_graph(backend):
    stranger = Dense(2, name="stranger")
    with pytest.raises(BuildError) as info:
        ComponentTest(Regression(lambda model: SGD(0.1, variables_of=stranger)), SPACES, backend=backend)
    assert info.value.key_path == "variables_of" and info.value.got == "stranger"
