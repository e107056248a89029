"""Each API method is one tf.function traced once: no retracing across batch sizes, no Python per call."""

from __future__ import annotations

import numpy as np
import pytest

from rlworkbench import Component, api, build, graph_fn
from rlworkbench.components import Dense
from rlworkbench.spaces import Dict, FloatBox, IntBox

SIZES = (1, 7, 300, 1, 7)


class Counting(Component):
    """Counts how often the Python of its API method and graph function runs."""

    def __init__(self) -> None:
        self.dense = Dense(3, name="dense")
        super().__init__(self.dense, name="counting")
        self.api_runs = 0
        self.fn_runs = 0

    @api
    def run(self, x):
        self.api_runs += 1
        return self._double(self.dense.apply(x))

    @graph_fn
    def _double(self, x):
        self.fn_runs += 1
        return x * 2.0


def test_every_root_api_method_is_traced_once(tf_actor, states_space):
    for size in SIZES:
        tf_actor.execute("get_action", states_space.sample(size, seed=size))
        tf_actor.execute("get_q_values", states_space.sample(size, seed=size))
    for api_name in ("get_action", "get_q_values"):
        function = tf_actor.graph_function(tf_actor.root, api_name)
        assert function.experimental_get_tracing_count() == 1, api_name
        assert function is tf_actor.graph_function(tf_actor.root, api_name)  # one function, reused


def test_batch_and_time_sizes_do_not_retrace():
    space = Dict(x=FloatBox(shape=(3,)), n=IntBox(4), add_batch_rank=True, add_time_rank=True, time_major=True)

    class Mixer(Component):
        @api
        def mix(self, inputs):
            return self._mix(inputs)

        @graph_fn
        def _mix(self, inputs):
            return self.ops.reduce_sum(inputs["x"], -1) + self.ops.cast(inputs["n"], "float32")

    executor = build(Mixer(), {"inputs": space}, backend="tf")
    for size in [(1, 1), (7, 2), (300, 5), (2, 40)]:
        value = space.sample(size, seed=0)
        out = executor.execute("mix", value)
        assert out.shape == (size[1], size[0])  # time-major
        np.testing.assert_allclose(out, value["x"].sum(-1) + value["n"], rtol=1e-5)
    assert executor.graph_function(executor.root, "mix").experimental_get_tracing_count() == 1


def test_sub_component_calls_are_traced_once_too(tf_actor, states_space):
    for size in SIZES:
        tf_actor.call("network", "apply", states_space.sample(size, seed=size))
    network = tf_actor.graph.component("network")
    assert tf_actor.graph_function(network, "apply").experimental_get_tracing_count() == 1


def test_python_of_api_methods_and_graph_functions_runs_only_while_tracing():
    """In the build trace (the graph function in both sample passes), once when the first call traces the API
    method's function, never again."""
    space = FloatBox(shape=(2,), add_batch_rank=True)
    counting = Counting()
    executor = build(counting, {"x": space}, backend="tf", seed=0)
    assert (counting.api_runs, counting.fn_runs) == (1, 2)
    for size in SIZES:
        executor.execute("run", space.sample(size, seed=size))
    assert (counting.api_runs, counting.fn_runs) == (2, 3)


def test_trace_at_build_traces_every_api_method_before_the_first_call():
    space = FloatBox(shape=(2,), add_batch_rank=True)
    counting = Counting()
    executor = build(counting, {"x": space}, backend="tf", seed=0, executor_options={"trace_at_build": True})
    assert (counting.api_runs, counting.fn_runs) == (2, 3)
    executor.execute("run", space.sample(3, seed=0))
    assert (counting.api_runs, counting.fn_runs) == (2, 3)


def test_on_torch_the_same_python_runs_every_call():
    """The contrast that shows the counters count: define-by-run executes the Python per call."""
    space = FloatBox(shape=(2,), add_batch_rank=True)
    counting = Counting()
    executor = build(counting, {"x": space}, backend="torch", seed=0)
    before = (counting.api_runs, counting.fn_runs)
    for size in SIZES:
        executor.execute("run", space.sample(size, seed=size))
    assert (counting.api_runs, counting.fn_runs) == (before[0] + len(SIZES), before[1] + len(SIZES))


@pytest.mark.parametrize("backend, per_call", [("tf", 0), ("torch", 1)])
def test_library_component_functions_run_per_call_only_on_torch(monkeypatch, backend, per_call):
    runs = {"apply": 0}

    def counted(name, function):
        def wrapper(*args, **kwargs):
            runs[name] += 1
            return function(*args, **kwargs)
        return wrapper

    fn_spec = Dense.graph_fns["apply"]  # the API method is the graph function: one body runs
    assert Dense.api_methods["apply"].graph_fn is fn_spec
    monkeypatch.setattr(fn_spec, "fn", counted("apply", fn_spec.fn))
    space = FloatBox(shape=(3,), add_batch_rank=True)
    executor = build(Dense(2), {"inputs": space}, backend=backend)
    executor.execute("apply", space.sample(2, seed=0))
    after_first = dict(runs)
    assert after_first["apply"] >= 1
    for size in SIZES:
        executor.execute("apply", space.sample(size, seed=size))
    assert runs == {name: count + per_call * len(SIZES) for name, count in after_first.items()}


def test_new_weights_reach_the_graph_without_retracing(tf_actor, states_space):
    states = states_space.sample(5, seed=1)
    before = tf_actor.execute("get_q_values", states)
    weights = tf_actor.get_weights()
    tf_actor.set_weights({name: value * 2.0 for name, value in weights.items()})
    after = tf_actor.execute("get_q_values", states)
    assert not np.allclose(before, after)
    tf_actor.set_weights(weights)
    np.testing.assert_allclose(tf_actor.execute("get_q_values", states), before, atol=1e-6)
    assert tf_actor.graph_function(tf_actor.root, "get_q_values").experimental_get_tracing_count() == 1
