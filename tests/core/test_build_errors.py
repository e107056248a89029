"""Build errors name the place: root arguments, unknown keys, failing graph functions and create_variables."""

from __future__ import annotations

import pytest
from core_components import STATES, Agent

from rlworkbench import BuildError, Component, ComponentGraph, ConfigError, SpaceError, api, build, graph_fn
from rlworkbench.spaces import FloatBox


class Matmul(Component):
    """``x @ weights`` with weights of a fixed input size (fails for other sizes)."""

    def create_variables(self, input_spaces):
        self.weights = self.create_variable("weights", (4, 2))

    @api
    def apply(self, x):
        return self._matmul(x)

    @graph_fn
    def _matmul(self, x):
        return x @ self.weights


class FailingVariables(Component):
    def __init__(self, error: Exception, **kwargs):
        super().__init__(**kwargs)
        self.error = error

    def create_variables(self, input_spaces):
        raise self.error

    @api
    def apply(self, x):
        return self._id(x)

    @graph_fn
    def _id(self, x):
        return x


class Holder(Component):
    def __init__(self, child: Component):
        super().__init__(child, name="holder")
        self.child = child

    @api
    def run(self, x):
        return self.child.apply(x)


class WrongCount(Component):
    def __init__(self, returns: int, values: int, **kwargs):
        super().__init__(**kwargs)
        self.returns, self.values = returns, values

    @api
    def run(self, x):
        return self._fn(x)

    @graph_fn(returns=lambda self: self.returns)
    def _fn(self, x):
        return x if self.values == 1 else tuple(x for _ in range(self.values))


def test_missing_root_input_space_names_root_api_and_argument():
    with pytest.raises(BuildError) as info:
        build(Agent(), {})
    error = info.value
    assert (error.component, error.api_method, error.argument) == ("agent", "act", "states")
    assert isinstance(error.graph, ComponentGraph) and error.graph.stuck is not None
    assert "agent" in str(error) and "'act'" in str(error) and "'states'" in str(error)


def test_missing_input_of_only_the_requested_api_method():
    class TwoArgs(Component):
        @api
        def run(self, a, b):
            return self._add(a, b)

        @graph_fn
        def _add(self, a, b):
            return a + b

    with pytest.raises(BuildError) as info:
        build(TwoArgs(name="two"), {"a": STATES})
    assert (info.value.component, info.value.api_method, info.value.argument) == ("two", "run", "b")


def test_unknown_input_space_keys_list_the_known_ones():
    with pytest.raises(BuildError) as info:
        build(Agent(), {"states": STATES, "stats": STATES})
    error = info.value
    assert error.component == "agent"
    assert error.expected == ["states"] and error.got == ["stats"]
    assert "states" in str(error) and "stats" in str(error)


def test_input_spaces_must_be_spaces():
    with pytest.raises(ConfigError) as info:
        build(Agent(), {"states": (3,)})
    assert info.value.argument == "states[0]" or info.value.argument == "states"


def test_unknown_api_method_to_build():
    with pytest.raises(BuildError) as info:
        build(Agent(), {"states": STATES}, api_methods=["nope"])
    assert info.value.expected == ["act", "value"]


def test_failing_graph_fn_names_component_and_graph_fn_and_chains_the_cause():
    with pytest.raises(BuildError) as info:
        build(Holder(Matmul(name="matmul")), {"x": FloatBox(shape=(3,), add_batch_rank=True)})
    error = info.value
    assert (error.component, error.api_method, error.graph_fn) == ("holder/matmul", "apply", "_matmul")
    assert isinstance(error.__cause__, RuntimeError)
    assert "holder/matmul" in str(error) and "_matmul" in str(error)
    assert "FloatBox((3,), float32)+B" in str(error)  # the input spaces it failed on
    assert isinstance(error.graph, ComponentGraph)


def test_create_variables_failure_is_a_build_error_with_the_path():
    with pytest.raises(BuildError) as info:
        build(Holder(FailingVariables(KeyError("units"), name="bad")), {"x": STATES})
    assert info.value.component == "holder/bad"
    assert isinstance(info.value.__cause__, KeyError)
    assert "create_variables" in str(info.value)


def test_create_variables_space_error_keeps_its_type_and_gains_the_path():
    error = SpaceError("needs a float box", argument="x")
    with pytest.raises(SpaceError) as info:
        build(Holder(FailingVariables(error, name="bad")), {"x": STATES})
    assert info.value is error
    assert (info.value.component, info.value.argument) == ("holder/bad", "x")


@pytest.mark.parametrize(("returns", "values"), [(2, 1), (1, 2), (3, 2), (0, 1)])
def test_graph_fn_returning_the_wrong_number_of_values(returns, values):
    if (returns, values) == (1, 2):  # one declared value may be a tuple: that is a Tuple space, not an error
        executor = build(WrongCount(returns, values, name="wrong"), {"x": STATES})
        assert len(executor.graph.output_space("run")) == 2
        return
    with pytest.raises(BuildError) as info:
        build(WrongCount(returns, values, name="wrong"), {"x": STATES})
    error = info.value
    assert (error.component, error.graph_fn) == ("wrong", "_fn")
    assert (error.expected, error.got) == (returns, values)


class TwiceCreated(Component):
    def create_variables(self, input_spaces):
        self.create_variable("w", (1,))
        self.create_variable("w", (1,))

    @api
    def apply(self, x):
        return x


def test_build_errors_from_inside_create_variables_carry_path_and_graph():
    with pytest.raises(BuildError) as info:
        build(Holder(TwiceCreated(name="twice")), {"x": STATES})
    assert info.value.component == "holder/twice"
    assert "created twice" in str(info.value)
    assert isinstance(info.value.graph, ComponentGraph)


def test_unknown_initializer_names_the_component():
    class BadInit(Component):
        def create_variables(self, input_spaces):
            self.create_variable("w", (1,), initializer="nope")

        @api
        def apply(self, x):
            return x

    with pytest.raises(ConfigError) as info:
        build(Holder(BadInit(name="bad")), {"x": STATES})
    assert info.value.component == "holder/bad" and "zeros" in info.value.expected
