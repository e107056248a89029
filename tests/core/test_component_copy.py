"""``copy()``: an unbuilt deep copy with a new name/device that builds on its own."""

from __future__ import annotations

import numpy as np
import pytest
from core_components import STATES, Agent

from rlworkbench import BuildError, build


@pytest.fixture
def original():
    root = Agent()
    build(root, {"states": STATES}, seed=1)
    return root


def test_copy_is_unbuilt_with_new_name_and_device(original):
    replica = original.copy(name="replica", device="cpu")
    assert (replica.name, replica.device, replica.parent) == ("replica", "cpu", None)
    assert [c.path for c in replica.walk()] == ["replica", "replica/net", "replica/head", "replica/net/dense_0",
                                                "replica/net/dense_1"]
    assert all(not c.built and c.backend is None and c.variables() == {} for c in replica.walk())
    assert all("act" not in c.__dict__ and "apply" not in c.__dict__ for c in replica.walk())
    assert replica.net is not original.net and replica.net.layers[0] is replica.net.sub_components["dense_0"]
    with pytest.raises(BuildError):
        replica.act(STATES.sample(1))


def test_copy_builds_independently(original):
    replica = original.copy(name="replica")
    executor = build(replica, {"states": STATES}, seed=9)
    assert sorted(executor.get_weights()) == sorted(original.get_weights())
    before = original.get_weights()
    replica.set_weights({name: np.zeros_like(v) for name, v in executor.get_weights().items()})
    for name, value in original.get_weights().items():
        np.testing.assert_array_equal(value, before[name])
    assert replica.variables()["net/dense_0/kernel"] is not original.variables()["net/dense_0/kernel"]
    assert original.built and original.act.__self__ is original  # the original still runs
    np.testing.assert_array_equal(executor.execute("act", STATES.sample(2, seed=0)), np.zeros((2, 2)))


def test_same_name_and_seed_give_the_same_initial_weights(original):
    replica = original.copy()
    weights = build(replica, {"states": STATES}, seed=1).get_weights()
    for name, value in original.get_weights().items():
        np.testing.assert_array_equal(weights[name], value)


def test_copy_of_a_sub_component_is_a_root(original):
    net = original.net.copy()
    assert net.parent is None and net.path == "net"
    assert original.net.parent is original
