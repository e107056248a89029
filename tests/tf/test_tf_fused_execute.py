"""``execute(("a", x), ("b", y))`` on TF: one fused graph, traced once, equal to separate calls."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

from rlworkbench import BuildError, Component, SpaceError, api, build, graph_fn
from rlworkbench.spaces import FloatBox

NAMES = ("get_action", "get_q_values")


def fused_function(executor, names):
    """The tf.function behind a fused call."""
    function = executor._fused[names].function
    assert hasattr(function, "experimental_get_tracing_count")
    return function


def test_fused_outputs_equal_separate_calls(tf_actor, states_space):
    states = states_space.sample(6, seed=2)
    actions, q_values = tf_actor.execute(("get_action", states), ("get_q_values", states))
    np.testing.assert_array_equal(actions, tf_actor.execute("get_action", states))
    np.testing.assert_allclose(q_values, tf_actor.execute("get_q_values", states), atol=1e-6)
    np.testing.assert_array_equal(actions, np.argmax(q_values, -1))
    assert actions.dtype == np.int64 and q_values.shape == (6, 2)


def test_one_fused_graph_per_name_tuple_traced_once(tf_actor, states_space):
    for size in (1, 7, 300, 7):
        tf_actor.execute(("get_action", states_space.sample(size, seed=size)),
                         ("get_q_values", states_space.sample(size, seed=size + 1)))
    assert list(tf_actor._fused) == [NAMES]
    assert fused_function(tf_actor, NAMES).experimental_get_tracing_count() == 1
    tf_actor.execute(("get_q_values", states_space.sample(2, seed=0)), ("get_action", states_space.sample(2, seed=0)))
    assert list(tf_actor._fused) == [NAMES, NAMES[::-1]]


def test_fused_calls_take_different_inputs_per_method(tf_actor, states_space):
    a, b = states_space.sample(3, seed=10), states_space.sample(8, seed=11)
    actions, q_values = tf_actor.execute(("get_action", a), ("get_q_values", b))
    np.testing.assert_array_equal(actions, tf_actor.execute("get_action", a))
    np.testing.assert_allclose(q_values, tf_actor.execute("get_q_values", b), atol=1e-6)


def test_fused_can_return_tensors(tf_actor, states_space):
    states = states_space.sample(2, seed=0)
    outputs = tf_actor.execute(("get_action", states), ("get_q_values", states), as_numpy=False)
    assert all(isinstance(out, tf.Tensor) for out in outputs)


class Arith(Component):
    @api
    def add(self, a, b):
        return self._add(a, b)

    @api
    def negate(self, a):
        return self._negate(a)

    @graph_fn
    def _add(self, a, b):
        return a + b

    @graph_fn
    def _negate(self, a):
        return -a


def test_fused_methods_with_several_parameters():
    space = FloatBox(shape=(2,), add_batch_rank=True)
    executor = build(Arith(), {"a": space, "b": space}, backend="tf")
    a, b = space.sample(4, seed=1), space.sample(4, seed=2)
    total, negated = executor.execute(("add", [a, b]), ("negate", a))
    np.testing.assert_allclose(total, a + b, rtol=1e-6)
    np.testing.assert_allclose(negated, -a)


def test_a_fused_call_with_the_wrong_number_of_arguments_names_its_method():
    space = FloatBox(shape=(2,), add_batch_rank=True)
    executor = build(Arith(), {"a": space, "b": space}, backend="tf")
    a = space.sample(4, seed=1)
    with pytest.raises(SpaceError) as info:  # extra argument must not slide into negate's slot
        executor.execute(("negate", [a, a]), ("add", a))
    assert (info.value.api_method, info.value.expected, info.value.got) == ("negate", 1, 2)
    with pytest.raises(SpaceError) as info:
        executor.execute(("negate", a), ("add", a))
    assert (info.value.api_method, info.value.expected, info.value.got) == ("add", 2, 1)


def test_fused_unknown_method_is_the_same_error_as_a_single_call(tf_actor, states_space):
    states = states_space.sample(2, seed=0)
    with pytest.raises(BuildError) as single:
        tf_actor.execute("nope", states)
    with pytest.raises(BuildError) as fused:
        tf_actor.execute(("get_action", states), ("nope", states))
    assert single.value.api_method == fused.value.api_method == "nope"
    assert fused.value.expected == list(NAMES)


@pytest.mark.parametrize("calls", [(123,), (None,), (("get_action",),), (("get_action", 1, 2), ("get_q_values", 1))])
def test_malformed_fused_calls_are_build_errors_before_any_graph(tf_actor, calls):
    with pytest.raises(BuildError) as info:
        tf_actor.execute(*calls)
    assert "execute('api', *args" in str(info.value.expected) and not tf_actor._fused
