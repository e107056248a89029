"""Errors on TF are rlworkbench errors that name the place, never bare TensorFlow exceptions."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

from rlworkbench import BuildError, Component, SpaceError, api, build, graph_fn
from rlworkbench.spaces import Dict, FloatBox, IntBox, Tuple

STATES = FloatBox(shape=(4,), add_batch_rank=True)


@pytest.mark.parametrize("value, expected", [
    (np.zeros((2, 4), np.int32), "dtype"),
    (np.zeros((2, 4), bool), "dtype"),
    (np.array([["a"] * 4]), "dtype"),
    (np.zeros((2, 5), np.float32), "shape"),
    (np.zeros((2, 4, 1), np.float32), "shape"),
    (np.zeros((4,), np.float32), "batch/time ranks"),
    (np.float32(1.0), "wrong shape"),
])
def test_bad_values_are_space_errors_with_context(tf_actor, value, expected):
    with pytest.raises(SpaceError) as info:
        tf_actor.execute("get_action", value)
    error = info.value
    assert (error.component, error.api_method, error.argument) == ("actor", "get_action", "states")
    assert expected in str(error) and "actor" in str(error)


def test_sub_component_calls_check_their_own_spaces(tf_actor):
    with pytest.raises(SpaceError) as info:
        tf_actor.call("network/dense_1", "apply", np.zeros((3, 4), np.float32))  # dense_1 takes 8 features
    assert (info.value.component, info.value.api_method, info.value.argument) == (
        "actor/network/dense_1", "apply", "inputs")


class DictIn(Component):
    @api
    def total(self, x):
        return self._total(x)

    @graph_fn
    def _total(self, x):
        return self.ops.reduce_sum(x["a"], -1) + self.ops.cast(x["b"][0], "float32")


NESTED = Dict(a=FloatBox(shape=(2,)), b=Tuple(IntBox(3)), add_batch_rank=True)


@pytest.fixture(scope="module")
def nested():
    return build(DictIn(name="dict_in"), {"x": NESTED}, backend="tf")


@pytest.mark.parametrize("value, key_path", [
    ({"a": np.zeros((2, 2), np.float32)}, "b"),
    ({"a": np.zeros((2, 3), np.float32), "b": (np.zeros(2, np.int64),)}, "a"),
    ({"a": np.zeros((2, 2), np.float32), "b": (np.zeros(2, np.float32),)}, "b/0"),
    ({"a": np.zeros((2, 2), np.float32), "b": ()}, "b"),
])
def test_nested_values_name_the_key_path(nested, value, key_path):
    with pytest.raises(SpaceError) as info:
        nested.execute("total", value)
    error = info.value
    assert (error.component, error.api_method, error.argument, error.key_path) == ("dict_in", "total", "x", key_path)


def test_a_nested_value_of_the_wrong_kind(nested):
    with pytest.raises(SpaceError) as info:
        nested.execute("total", np.zeros((2, 2), np.float32))
    assert (info.value.api_method, info.value.argument) == ("total", "x")
    good = NESTED.sample(3, seed=0)
    np.testing.assert_allclose(nested.execute("total", good), good["a"].sum(-1) + good["b"][0], rtol=1e-6)


@pytest.mark.parametrize("args", [(), (np.zeros((1, 4), np.float32),) * 2])
def test_wrong_number_of_arguments(tf_actor, args):
    with pytest.raises(SpaceError) as info:
        tf_actor.execute("get_q_values", *args)
    assert (info.value.api_method, info.value.expected, info.value.got) == ("get_q_values", 1, len(args))


class Mismatch(Component):
    """A (5, 3) weight multiplied with 4-feature inputs: maths that fails while tracing."""

    def __init__(self, declared: bool, **kwargs):
        super().__init__(**kwargs)
        self.declared = declared

    def create_variables(self, input_spaces):
        self.weight = self.create_variable("weight", (5, 3))

    @api
    def project(self, x):
        return self._declared(x) if self.declared else self._project(x)

    @graph_fn
    def _project(self, x):
        return tf.matmul(x, self.weight)

    @graph_fn(output_spaces=lambda self, x: FloatBox(shape=(3,), add_batch_rank=True))
    def _declared(self, x):  # never run by the build: fails only when the executor traces it
        return tf.matmul(x, self.weight)


class Outer(Component):
    def __init__(self):
        self.inner = Mismatch(declared=True, name="inner")
        super().__init__(self.inner, name="outer")

    @api
    def run(self, x):
        return self.inner.project(x)


def first_call_or_build(root, trace_at_build: bool):
    """Builds ``root``; a graph function the build did not run (declared output spaces) is traced by the first
    call of its API method, or during the build with ``trace_at_build``."""
    executor = build(root, {"x": STATES}, backend="tf", executor_options={"trace_at_build": trace_at_build})
    api_name = next(iter(executor.graph.root_inputs))
    executor.execute(api_name, STATES.sample(2, seed=0))


@pytest.mark.parametrize("trace_at_build", [False, True])
@pytest.mark.parametrize("declared, graph_fn_name", [(False, "_project"), (True, "_declared")])
def test_maths_failing_at_trace_time_is_a_build_error(declared, graph_fn_name, trace_at_build):
    with pytest.raises(BuildError) as info:
        first_call_or_build(Mismatch(declared, name="mismatch"), trace_at_build)
    error = info.value
    assert (error.component, error.api_method, error.graph_fn) == ("mismatch", "project", graph_fn_name)
    assert isinstance(error.__cause__, ValueError) and error.graph is not None
    assert graph_fn_name in str(error) and "mismatch" in str(error)


def test_undeclared_maths_fails_in_the_build_itself():
    with pytest.raises(BuildError):
        build(Mismatch(False, name="mismatch"), {"x": STATES}, backend="tf")


@pytest.mark.parametrize("trace_at_build", [False, True])
def test_a_trace_failure_deep_in_the_graph_names_the_failing_component(trace_at_build):
    with pytest.raises(BuildError) as info:
        first_call_or_build(Outer(), trace_at_build)
    assert (info.value.component, info.value.api_method, info.value.graph_fn) == ("outer/inner", "project",
                                                                                   "_declared")
