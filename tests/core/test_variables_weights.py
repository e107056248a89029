"""Variables by scoped name; get/set weights round trip; a bad set_weights changes nothing."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from core_components import STATES, Agent

from rlworkbench import BuildError, SpaceError, build

NAMES = ["head/factor", "net/dense_0/bias", "net/dense_0/kernel", "net/dense_1/bias", "net/dense_1/kernel"]


@pytest.fixture
def built():
    root = Agent()
    return root, build(root, {"states": STATES}, seed=5)


def assert_weights_equal(actual, expected):
    assert actual.keys() == expected.keys()
    for name in expected:
        np.testing.assert_array_equal(actual[name], expected[name], err_msg=name)


def test_variable_names_are_relative_to_the_component(built):
    root, _ = built
    assert sorted(root.variables()) == NAMES
    assert sorted(root.net.variables()) == ["dense_0/bias", "dense_0/kernel", "dense_1/bias", "dense_1/kernel"]
    assert sorted(root.net.layers[0].variables()) == ["bias", "kernel"]
    assert root.variables()["net/dense_0/kernel"] is root.net.variables()["dense_0/kernel"]
    assert isinstance(root.variables()["net/dense_0/kernel"], torch.nn.Parameter)
    assert root.variables()["net/dense_0/kernel"].shape == (3, 4)


def test_trainable_only(built):
    root, _ = built
    assert sorted(root.variables(trainable_only=True)) == NAMES
    assert sorted(root.get_weights(trainable_only=True)) == NAMES


def test_get_weights_are_numpy_copies(built):
    root, _ = built
    weights = root.get_weights()
    assert all(isinstance(v, np.ndarray) for v in weights.values())
    weights["head/factor"] += 100.0
    assert root.get_weights()["head/factor"] == 2.0


def test_set_then_get_round_trip_and_outputs_follow(built):
    root, executor = built
    x = STATES.sample(3, seed=0)
    before = executor.execute("act", x)
    new = {name: np.full_like(value, 0.5) for name, value in root.get_weights().items()}
    root.set_weights(new)
    assert_weights_equal(root.get_weights(), new)
    hidden = x.sum(-1, keepdims=True) * 0.5 + 0.5  # every unit the same
    expected = (hidden * 0.5 * 4 + 0.5) * 0.5 * np.ones((1, 2))
    np.testing.assert_allclose(executor.execute("act", x), expected, rtol=1e-5)
    assert not np.allclose(before, executor.execute("act", x))


def test_set_weights_copies_the_values(built):
    root, _ = built
    new = root.get_weights()
    root.set_weights(new)
    new["head/factor"][...] = 7.0
    assert root.get_weights()["head/factor"] == 2.0


def test_executor_weights_are_the_root_weights(built):
    root, executor = built
    assert_weights_equal(executor.get_weights(), root.get_weights())
    weights = executor.get_weights()
    weights["head/factor"] = np.float64(3.0)  # same-kind casts are fine
    executor.set_weights(weights)
    assert root.get_weights()["head/factor"] == 3.0 and root.get_weights()["head/factor"].dtype == np.float32


def test_sub_component_weights_by_its_own_names(built):
    root, _ = built
    layer = root.net.layers[1]
    layer.set_weights({"kernel": np.zeros((4, 2)), "bias": np.ones(2)})
    np.testing.assert_array_equal(root.get_weights()["net/dense_1/bias"], [1.0, 1.0])


def test_non_strict_sets_a_subset(built):
    root, _ = built
    before = root.get_weights()
    root.set_weights({"head/factor": np.float32(4.0)}, strict=False)
    after = root.get_weights()
    assert after["head/factor"] == 4.0
    np.testing.assert_array_equal(after["net/dense_0/kernel"], before["net/dense_0/kernel"])


@pytest.mark.parametrize("case", ["wrong_shape", "unknown", "missing", "wrong_dtype"])
def test_a_bad_set_weights_changes_nothing(built, case):
    root, _ = built
    before = root.get_weights()
    new = {name: value + 1 for name, value in before.items()}  # all valid but the one broken below
    if case == "wrong_shape":
        new["net/dense_1/kernel"] = np.zeros((2, 4), np.float32)
    elif case == "unknown":
        new["net/dense_9/kernel"] = np.zeros((2, 4), np.float32)
    elif case == "missing":
        del new["net/dense_1/bias"]
    else:
        new["net/dense_1/bias"] = np.array([1j, 2j])
    with pytest.raises(SpaceError) as info:
        root.set_weights(new)
    assert info.value.component == "agent"
    if case in ("wrong_shape", "wrong_dtype"):
        assert info.value.key_path == "net/dense_1/" + ("kernel" if case == "wrong_shape" else "bias")
    else:
        assert ("dense_9" if case == "unknown" else "net/dense_1/bias") in str(info.value)
    assert_weights_equal(root.get_weights(), before)


def test_weights_of_an_unbuilt_component():
    with pytest.raises(BuildError) as info:
        Agent().get_weights()
    assert info.value.component == "agent"
    with pytest.raises(BuildError):
        Agent().set_weights({})


def test_variables_are_created_only_during_the_build():
    with pytest.raises(BuildError):
        Agent().create_variable("x", (1,))


def test_integer_variables_are_never_trainable():
    from rlworkbench import Component, api

    class Counts(Component):
        def create_variables(self, input_spaces):
            self.steps = self.create_variable("steps", (), dtype="int64")
            self.weight = self.create_variable("weight", (2,))
            self.frozen = self.create_variable("frozen", (2,), trainable=False)

        @api
        def apply(self, x):
            return x

    counts = Counts(name="counts")
    build(counts, {"x": STATES})
    assert sorted(counts.variables(trainable_only=True)) == ["weight"]
    assert sorted(counts.variables()) == ["frozen", "steps", "weight"]
    assert counts.get_weights()["steps"].dtype == np.int64
