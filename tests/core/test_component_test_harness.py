"""``ComponentTest``: build a component alone and compare outputs to expectations."""

from __future__ import annotations

import numpy as np
import pytest
from core_components import STATES, Linear, Scale

from rlworkbench.testing import ComponentTest, assert_nested_close


def test_right_outputs_pass_and_are_returned():
    test = ComponentTest(Scale(name="scale"), input_spaces={"x": STATES})
    x = STATES.sample(3, seed=0)
    out = test.test(("apply", x), expected_outputs=x * 2.0)
    np.testing.assert_allclose(out, x * 2.0)
    test.test(("apply", [x]), expected_outputs=np.round(x * 2.0, 2), decimals=1)


def test_wrong_outputs_raise_assertion_error():
    test = ComponentTest(Scale(name="scale"), input_spaces={"x": STATES})
    x = STATES.sample(3, seed=0)
    with pytest.raises(AssertionError):
        test.test(("apply", x), expected_outputs=x * 2.0 + 0.01, decimals=3)
    test.test(("apply", x), expected_outputs=x * 2.0 + 0.01, decimals=1)
    with pytest.raises(AssertionError):
        test.test(("apply", x), expected_outputs=(x * 2.0)[:2])


def test_variable_values_and_setting_them():
    test = ComponentTest(Linear(2, name="linear"), input_spaces={"inputs": STATES}, seed=4)
    values = test.variable_values()
    assert sorted(values) == ["bias", "kernel"] and values["kernel"].shape == (3, 2)
    np.testing.assert_array_equal(test.variable_values("bias"), np.zeros(2))
    kernel, bias = test.variable_values("kernel", "bias")
    np.testing.assert_array_equal(kernel, values["kernel"])
    np.testing.assert_array_equal(bias, values["bias"])
    test.set_variable_values({"bias": np.ones(2, np.float32)})
    x = STATES.sample(2, seed=1)
    test.test(("apply", x), expected_outputs=x @ kernel + 1.0)
    assert test.backend == "torch" and test.graph.output_space("apply").shape == (2,)


def test_seeded_by_default():
    first = ComponentTest(Linear(2, name="linear"), input_spaces={"inputs": STATES}).variable_values("kernel")
    second = ComponentTest(Linear(2, name="linear"), input_spaces={"inputs": STATES}).variable_values("kernel")
    np.testing.assert_array_equal(first, second)


def test_assert_nested_close_names_the_key_path():
    assert_nested_close({"a": (1.0, np.ones(2))}, {"a": (1.0, np.ones(2))})
    with pytest.raises(AssertionError, match="a/1"):
        assert_nested_close({"a": (1.0, np.ones(2))}, {"a": (1.0, np.zeros(2))})
    with pytest.raises(AssertionError, match="keys differ"):
        assert_nested_close({"a": 1}, {"b": 1})
    with pytest.raises(AssertionError):
        assert_nested_close(np.array([1, 2]), np.array([1, 3]))


def test_nested_leaves_strict_also_compares_key_order_and_container_types():
    from rlworkbench.testing.compare import nested_leaves

    pairs = list(nested_leaves({"a": (1, None), "b": [2]}, {"a": (1, None), "b": [3]}))
    assert pairs == [(" at 'a/0'", 1, 1), (" at 'b/0'", 2, 3)]  # None leaves are compared, not yielded
    assert len(list(nested_leaves({"b": 1, "a": 2}, {"a": 2, "b": 1}))) == 2  # order is free when not strict
    with pytest.raises(AssertionError, match="keys differ"):
        list(nested_leaves({"b": 1, "a": 2}, {"a": 2, "b": 1}, strict=True))
    assert len(list(nested_leaves([1], (1,)))) == 1
    with pytest.raises(AssertionError, match="container types differ"):
        list(nested_leaves([1], (1,), strict=True))
    with pytest.raises(AssertionError, match="lengths differ at 'x'"):
        list(nested_leaves({"x": (1,)}, {"x": (1, 2)}))


def test_api_methods_without_arguments():
    from rlworkbench import Component, api, graph_fn

    class Constant(Component):
        def create_variables(self, input_spaces):
            assert input_spaces == {}
            self.value = self.create_variable("value", (2,), initializer=[1.0, 2.0])

        @api
        def read(self):
            return self._read()

        @graph_fn
        def _read(self):
            return self.value * 1.0

    test = ComponentTest(Constant(name="constant"), input_spaces={})
    test.test("read", expected_outputs=np.array([1.0, 2.0]))
    assert test.graph.output_space("read").shape == (2,)
