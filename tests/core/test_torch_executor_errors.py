"""Bad inputs raise SpaceError naming component, API method, argument and (for containers) key path."""

from __future__ import annotations

import numpy as np
import pytest
from core_components import STATES, Agent

from rlworkbench import Component, SpaceError, api, build, graph_fn
from rlworkbench.spaces import Dict, FloatBox, IntBox, Tuple

OBS = Dict(obs=Dict(image=FloatBox(shape=(2, 2)), vec=FloatBox(shape=(3,))), action=IntBox(4),
           add_batch_rank=True)


class Observer(Component):
    @api
    def look(self, inputs, scale):
        return self._look(inputs, scale)

    @graph_fn
    def _look(self, inputs, scale):
        return inputs["obs"]["image"].sum() * scale


class Pairs(Component):
    @api
    def first(self, pair):
        return self._first(pair)

    @graph_fn
    def _first(self, pair):
        return pair[0]


@pytest.fixture(scope="module")
def agent_executor():
    return build(Agent(), {"states": STATES}, seed=0)


@pytest.fixture(scope="module")
def observer_executor():
    return build(Observer(name="observer"), {"inputs": OBS, "scale": FloatBox(shape=())})


def check(error, argument, key_path=None, component="agent", api_method="act"):
    assert (error.component, error.api_method, error.argument, error.key_path) == \
        (component, api_method, argument, key_path)
    text = str(error)
    assert component in text and api_method in text and (argument is None or argument in text)


def test_wrong_dtype(agent_executor):
    with pytest.raises(SpaceError) as info:
        agent_executor.execute("act", np.ones((2, 3), dtype=np.int64))
    check(info.value, "states")
    assert "int64" in str(info.value.got)


def test_wrong_shape(agent_executor):
    with pytest.raises(SpaceError) as info:
        agent_executor.execute("act", np.ones((2, 4), dtype=np.float32))
    check(info.value, "states")
    assert "(?, 3)" in str(info.value.expected) and "(2, 4)" in str(info.value.got)


def test_missing_batch_rank(agent_executor):
    with pytest.raises(SpaceError) as info:
        agent_executor.execute("act", np.ones(3, dtype=np.float32))
    check(info.value, "states")
    assert "batch" in str(info.value)


def test_wrong_number_of_arguments(agent_executor):
    x = np.ones((1, 3), np.float32)
    for args in [(), (x, x)]:
        with pytest.raises(SpaceError) as info:
            agent_executor.execute("act", *args)
        check(info.value, None)
        assert (info.value.expected, info.value.got) == (1, len(args))


def test_nested_dict_wrong_shape_names_the_key_path(observer_executor):
    value = OBS.sample(2, seed=0)
    value["obs"]["image"] = np.ones((2, 3, 2), np.float32)
    with pytest.raises(SpaceError) as info:
        observer_executor.execute("look", value, np.float32(1.0))
    check(info.value, "inputs", "obs/image", "observer", "look")


def test_nested_dict_missing_key_names_the_key_path(observer_executor):
    value = OBS.sample(2, seed=0)
    del value["obs"]["image"]
    with pytest.raises(SpaceError) as info:
        observer_executor.execute("look", value, np.float32(1.0))
    check(info.value, "inputs", "obs/image", "observer", "look")


def test_dict_with_an_extra_key(observer_executor):
    value = OBS.sample(2, seed=0)
    value["extra"] = np.zeros(2)
    with pytest.raises(SpaceError) as info:
        observer_executor.execute("look", value, np.float32(1.0))
    check(info.value, "inputs", None, "observer", "look")
    assert "extra" in str(info.value)


def test_nested_wrong_dtype_and_second_argument(observer_executor):
    value = OBS.sample(2, seed=0)
    value["action"] = value["action"].astype(np.float32)
    with pytest.raises(SpaceError) as info:
        observer_executor.execute("look", value, np.float32(1.0))
    check(info.value, "inputs", "action", "observer", "look")
    with pytest.raises(SpaceError) as info:
        observer_executor.execute("look", OBS.sample(2, seed=0), np.ones(2, np.float32))
    check(info.value, "scale", None, "observer", "look")


def test_a_non_dict_for_a_dict_space(observer_executor):
    with pytest.raises(SpaceError) as info:
        observer_executor.execute("look", np.ones((2, 3), np.float32), np.float32(1.0))
    check(info.value, "inputs", None, "observer", "look")


def test_right_values_still_run(observer_executor):
    value = OBS.sample(2, seed=0)
    out = observer_executor.execute("look", value, np.float32(2.0))
    np.testing.assert_allclose(out, value["obs"]["image"].sum() * 2.0, rtol=1e-5)


def test_tuple_of_the_wrong_length_names_the_argument():
    pair = Tuple(FloatBox(shape=(2,)), FloatBox(shape=(1,)), add_batch_rank=True)
    executor = build(Pairs(name="pairs"), {"pair": pair})
    with pytest.raises(SpaceError) as info:
        executor.execute("first", (np.ones((1, 2), np.float32),))
    check(info.value, "pair", None, "pairs", "first")
    with pytest.raises(SpaceError) as info:
        executor.execute("first", (np.ones((1, 2), np.float32), np.ones((1, 3), np.float32)))
    check(info.value, "pair", "1", "pairs", "first")
