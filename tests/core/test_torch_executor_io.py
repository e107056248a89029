"""The torch executor: NumPy in and out, tensors on request, several calls, sub-graphs, dtype casting."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from core_components import STATES, Agent

from rlworkbench import BuildError, build


@pytest.fixture
def built():
    root = Agent()
    executor = build(root, {"states": STATES}, seed=2)
    return root, executor


def expected_act(root, x):
    weights = root.get_weights()
    hidden = x @ weights["net/dense_0/kernel"] + weights["net/dense_0/bias"]
    out = hidden @ weights["net/dense_1/kernel"] + weights["net/dense_1/bias"]
    return out * weights["head/factor"]


def test_numpy_in_numpy_out(built):
    root, executor = built
    x = STATES.sample(5, seed=0)
    out = executor.execute("act", x)
    assert isinstance(out, np.ndarray) and out.dtype == np.float32 and out.shape == (5, 2)
    np.testing.assert_allclose(out, expected_act(root, x), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(executor.execute("value", x), out.sum(-1) / 2.0, rtol=1e-5, atol=1e-6)


def test_as_numpy_false_returns_tensors(built):
    _, executor = built
    x = STATES.sample(2, seed=0)
    out = executor.execute("act", x, as_numpy=False)
    assert isinstance(out, torch.Tensor) and out.shape == (2, 2)
    np.testing.assert_allclose(out.numpy(), executor.execute("act", x), rtol=1e-6)


def test_torch_tensors_are_accepted_as_inputs(built):
    _, executor = built
    x = STATES.sample(2, seed=0)
    np.testing.assert_allclose(executor.execute("act", torch.from_numpy(x)), executor.execute("act", x), rtol=1e-6)


def test_execute_several_calls(built):
    _, executor = built
    x = STATES.sample(3, seed=1)
    act, value = executor.execute(("act", [x]), ("value", x))
    np.testing.assert_allclose(act, executor.execute("act", x), rtol=1e-6)
    np.testing.assert_allclose(value, executor.execute("value", x), rtol=1e-6)


def test_api_namespace(built):
    _, executor = built
    x = STATES.sample(3, seed=1)
    np.testing.assert_allclose(executor.api.act(x), executor.execute("act", x), rtol=1e-6)
    assert isinstance(executor.api.value(x, as_numpy=False), torch.Tensor)
    assert dir(executor.api) == ["act", "value"]
    with pytest.raises(AttributeError):
        executor.api.nope  # noqa: B018


def test_call_runs_a_sub_component(built):
    root, executor = built
    x = STATES.sample(3, seed=1)
    weights = root.get_weights()
    hidden = executor.call("net/dense_0", "apply", x)
    np.testing.assert_allclose(hidden, x @ weights["net/dense_0/kernel"] + weights["net/dense_0/bias"],
                               rtol=1e-5, atol=1e-6)
    net_out = executor.call(root.net, "apply", x)
    np.testing.assert_allclose(executor.call("agent/head", "apply", net_out), executor.execute("act", x), rtol=1e-5)
    assert isinstance(executor.call("net", "apply", x, as_numpy=False), torch.Tensor)


def test_call_of_an_unbuilt_api_method(built):
    _, executor = built
    with pytest.raises(BuildError):
        executor.call("net", "nope", STATES.sample(1))
    with pytest.raises(BuildError) as info:
        executor.execute("nope", STATES.sample(1))
    assert info.value.expected == ["act", "value"]


def test_float64_input_is_cast_to_float32(built):
    _, executor = built
    x = STATES.sample(4, seed=0)
    out = executor.execute("act", x.astype(np.float64))
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, executor.execute("act", x), rtol=1e-6)


def test_non_contiguous_and_list_inputs(built):
    _, executor = built
    x = np.asfortranarray(STATES.sample(4, seed=0))
    np.testing.assert_allclose(executor.execute("act", x), executor.execute("act", np.ascontiguousarray(x)),
                               rtol=1e-6)
    np.testing.assert_allclose(executor.execute("act", x.tolist()), executor.execute("act", x), rtol=1e-5)


def test_inputs_are_not_modified_or_aliased(built):
    _, executor = built
    x = STATES.sample(4, seed=0)
    before = x.copy()
    executor.execute("act", x)
    np.testing.assert_array_equal(x, before)


def test_a_tuple_is_one_value_a_list_several_arguments():
    from rlworkbench import Component, api, graph_fn
    from rlworkbench.spaces import FloatBox, Tuple

    class First(Component):
        @api
        def first(self, pair):
            return self._first(pair)

        @graph_fn
        def _first(self, pair):
            return pair[0]

    pair = Tuple(FloatBox(shape=(2,)), FloatBox(shape=(1,)), add_batch_rank=True)
    executor = build(First(name="first"), {"pair": pair})
    value = pair.sample(3, seed=0)
    (out,) = executor.execute(("first", value))
    np.testing.assert_array_equal(out, value[0])
    (out,) = executor.execute(("first", [value]))
    np.testing.assert_array_equal(out, value[0])


def test_call_of_an_unknown_component_path(built):
    _, executor = built
    with pytest.raises(BuildError) as info:
        executor.call("net/dense_7", "apply", STATES.sample(1))
    assert info.value.component == "net/dense_7"
    assert "net/dense_0" in info.value.expected


@pytest.mark.parametrize("calls, kwargs", [
    ((123,), {}),
    ((None,), {}),
    ((("act",),), {}),
    ((("act", STATES.sample(1), STATES.sample(1)),), {}),
    ((("act", STATES.sample(1)), "value"), {}),
    (((1, STATES.sample(1)),), {}),
    ((("act", STATES.sample(1)),), {"states": STATES.sample(1)}),
])
def test_malformed_execute_calls_show_the_accepted_forms(built, calls, kwargs):
    _, executor = built
    with pytest.raises(BuildError) as info:
        executor.execute(*calls, **kwargs)
    error = info.value
    assert error.component == "agent" and "execute('api', *args" in str(error.expected)
    assert "(name, args) pairs" in str(error) and error.got is not None
