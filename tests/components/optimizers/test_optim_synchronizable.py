"""Synchronizable: hard copies and Polyak updates of a target network, checked against NumPy; mismatches fail."""

from __future__ import annotations

import numpy as np
import pytest

from rlworkbench import Component, api
from rlworkbench.components import Multiply, NeuralNetwork, PreprocessorStack, Synchronizable
from rlworkbench.errors import ConfigError, SpaceError
from rlworkbench.spaces import FloatBox
from rlworkbench.testing import ComponentTest

LAYERS = [{"type": "dense", "units": 4, "activation": "tanh"}, {"type": "dense", "units": 2}]
STATES = FloatBox(-1.0, 1.0, shape=(3,), add_batch_rank=True)


class WithTarget(Component):
    """An online network, its target copy and a syncer; states reach the networks through a preprocessor, so the
    networks are built after the syncer would be (the build waits for their variables)."""

    def __init__(self, online: Component | None = None, target: Component | None = None, **sync_options):
        self.online = online or NeuralNetwork(LAYERS, name="online")
        self.target = target or self.online.copy(name="target")
        self.syncer = Synchronizable("online", "target", **sync_options)
        self.preprocessor = PreprocessorStack([Multiply(0.5)], name="preprocessor")
        super().__init__(self.syncer, self.preprocessor, self.online, self.target, name="agent")

    @api
    def q_values(self, states):
        states = self.preprocessor.preprocess(states)
        return self.online.apply(states), self.target.apply(states)

    @api
    def sync(self, tau):
        self.syncer.sync(tau)

    @api
    def hard_sync(self):
        self.syncer.sync(1.0)


SPACES = {"states": STATES, "tau": FloatBox()}


def weights_of(test: ComponentTest, prefix: str) -> dict[str, np.ndarray]:
    return {name[len(prefix):]: value for name, value in test.variable_values().items() if name.startswith(prefix)}


@pytest.mark.parametrize("api_name", ["sync", "hard_sync"])
def test_hard_sync_copies_every_variable(backend, api_name):
    test = ComponentTest(WithTarget(), SPACES, backend=backend)
    online = weights_of(test, "online/")
    assert sorted(online) == sorted(weights_of(test, "target/"))
    assert not np.allclose(online["dense_0/kernel"], weights_of(test, "target/")["dense_0/kernel"])
    assert test.test((api_name, [np.float32(1.0)] if api_name == "sync" else [])) is None
    for name, value in weights_of(test, "target/").items():
        np.testing.assert_array_equal(value, online[name], err_msg=name)
    states = STATES.sample(4, seed=1)
    q_online, q_target = test.test(("q_values", states))
    np.testing.assert_array_equal(q_online, q_target)
    assert test.graph.output_space("q_values") == (FloatBox(shape=(2,), add_batch_rank=True),) * 2


def test_soft_sync_is_polyak_averaging(backend):
    test = ComponentTest(WithTarget(), SPACES, backend=backend)
    online, target = weights_of(test, "online/"), weights_of(test, "target/")
    for tau in (0.1, 0.25):
        test.test(("sync", np.float32(tau)))
        target = {name: tau * online[name] + (1 - tau) * value for name, value in target.items()}
        for name, value in weights_of(test, "target/").items():
            np.testing.assert_allclose(value, target[name], rtol=1e-6, atol=1e-7, err_msg=name)
    np.testing.assert_array_equal(weights_of(test, "online/")["dense_0/kernel"], online["dense_0/kernel"])


def test_trainable_only_and_non_float_variables(backend):
    """``trainable_only`` skips non-trainable variables; int variables are copied, never averaged."""
    class Counted(NeuralNetwork):
        def create_variables(self, input_spaces):
            self.calls = self.create_variable("calls", (), dtype="int64", initializer=3, trainable=False)

    for trainable_only, expected_calls in ((False, 3), (True, 0)):
        root = WithTarget(online=Counted(LAYERS, name="online"), trainable_only=trainable_only)
        test = ComponentTest(root, SPACES, backend=backend)
        test.set_variable_values({"target/calls": np.int64(0)})
        test.test(("sync", np.float32(0.5)))
        assert test.variable_values("target/calls") == expected_calls


def test_differing_variables_are_space_errors(backend):
    wider = NeuralNetwork([{"type": "dense", "units": 5, "activation": "tanh"},
                           {"type": "dense", "units": 2}], name="target")
    with pytest.raises(SpaceError) as info:
        ComponentTest(WithTarget(target=wider), SPACES, backend=backend)
    error = info.value
    assert error.component == "agent/synchronizable" and error.key_path == "dense_0/kernel"
    assert (error.expected, error.got) == ("(3, 4) float32", "(3, 5) float32")

    deeper = NeuralNetwork([*LAYERS, {"type": "dense", "units": 2}], name="target")
    with pytest.raises(SpaceError) as info:
        ComponentTest(WithTarget(target=deeper), SPACES, backend=backend)
    assert "only in the target ['dense_2/bias', 'dense_2/kernel']" in str(info.value)


def test_bad_references_are_config_errors(backend):
    root = WithTarget()
    root.syncer.target = "online"
    with pytest.raises(ConfigError) as info:
        ComponentTest(root, SPACES, backend=backend)
    assert info.value.key_path == "target" and info.value.got == "agent/online"
    root = WithTarget()
    root.syncer.source = "policy"
    with pytest.raises(ConfigError) as info:
        ComponentTest(root, SPACES, backend=backend)
    assert info.value.key_path == "source" and info.value.got == "policy"
