"""TF variables: scoped names, trainable flags, get/set_weights round trips, failed sets change nothing."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

from rlworkbench import Component, SpaceError, api, build, graph_fn
from rlworkbench.spaces import FloatBox

SPACE = FloatBox(shape=(3,), add_batch_rank=True)


class Stateful(Component):
    """A trainable float, a frozen float and an int counter (asked to be trainable, which ints cannot be)."""

    def create_variables(self, input_spaces):
        self.scale = self.create_variable("scale", (3,), initializer="glorot_uniform")
        self.offset = self.create_variable("offset", (), initializer=0.5, trainable=False)
        self.count = self.create_variable("count", (), dtype="int64", initializer=7, trainable=True)

    @api
    def apply(self, x):
        return self._apply(x)

    @graph_fn
    def _apply(self, x):
        return x * self.scale + self.offset + self.ops.cast(self.count, "float32")


class Holder(Component):
    def __init__(self):
        self.inner = Stateful(name="inner")
        super().__init__(self.inner, name="holder")

    @api
    def apply(self, x):
        return self.inner.apply(x)


@pytest.fixture
def holder():
    root = Holder()
    return root, build(root, {"x": SPACE}, backend="tf", seed=3)


def test_variables_are_created_under_the_component_scope(tf_actor):
    for component in tf_actor.graph.components:
        for name, variable in component._variables.items():
            assert isinstance(variable, tf.Variable)
            assert variable.name == f"{component.path}/{name}:0"
    assert sorted(tf_actor.get_weights()) == sorted(
        f"network/dense_{i}/{v}" for i in range(3) for v in ("kernel", "bias"))


def test_trainable_flags(holder):
    root, _ = holder
    variables = root.variables()
    assert variables["inner/scale"].trainable
    assert not variables["inner/offset"].trainable
    assert not variables["inner/count"].trainable and variables["inner/count"].dtype == tf.int64
    assert list(root.variables(trainable_only=True)) == ["inner/scale"]
    assert list(root.get_weights(trainable_only=True)) == ["inner/scale"]


def test_get_set_weights_round_trip_changes_the_outputs(holder):
    root, executor = holder
    weights = executor.get_weights()
    assert weights["inner/count"] == 7 and weights["inner/count"].dtype == np.int64
    assert weights["inner/offset"] == np.float32(0.5)
    new = {"inner/scale": np.array([1.0, -2.0, 0.5], np.float32), "inner/offset": np.float32(-1.0),
           "inner/count": np.int64(3)}
    executor.set_weights(new)
    got = executor.get_weights()
    for name, value in new.items():
        np.testing.assert_array_equal(got[name], value)
        assert got[name].dtype == weights[name].dtype
    x = SPACE.sample(4, seed=1)
    np.testing.assert_allclose(executor.execute("apply", x), x * new["inner/scale"] - 1.0 + 3.0, rtol=1e-6)
    root.inner.set_weights({"offset": 2.0}, strict=False)  # a sub-component's own names; floats cast
    assert executor.get_weights()["inner/offset"] == np.float32(2.0)


def test_read_values_are_copies(holder):
    _, executor = holder
    weights = executor.get_weights()
    weights["inner/scale"][:] = 100.0
    assert not np.any(executor.get_weights()["inner/scale"] == 100.0)


@pytest.mark.parametrize("bad", [
    {"inner/scale": np.ones(4, np.float32)},  # wrong shape
    {"inner/count": np.float32(1.5)},  # float into an int variable
    {"inner/nope": np.float32(1.0)},  # unknown name
])
def test_a_failed_set_weights_changes_nothing(holder, bad):
    _, executor = holder
    before = executor.get_weights()
    x = SPACE.sample(2, seed=0)
    out_before = executor.execute("apply", x)
    # every good entry first, so a half-applied assignment would show
    attempt = {"inner/offset": np.float32(9.0), "inner/scale": np.full(3, 9.0, np.float32),
               "inner/count": np.int64(9), **bad}
    with pytest.raises(SpaceError):
        executor.set_weights(attempt)
    after = executor.get_weights()
    for name, value in before.items():
        np.testing.assert_array_equal(after[name], value)
    np.testing.assert_array_equal(executor.execute("apply", x), out_before)


def test_missing_names_fail_when_strict(holder):
    _, executor = holder
    with pytest.raises(SpaceError) as info:
        executor.set_weights({"inner/scale": np.ones(3, np.float32)})
    assert "inner/count" in str(info.value.got)
