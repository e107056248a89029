"""Output spaces agree between the backends for every registered component, leaf by leaf, at every record of its
component graph: ``check_parity`` (conftest) compares them with :mod:`output_spaces` in each parity case, and
``test_parity_coverage.py`` makes every registered component type have one. These tests check the comparison."""

from __future__ import annotations

import pytest
from output_spaces import graph_space_differences, space_differences

from rlworkbench import Component, api, build, graph_fn
from rlworkbench.components import NeuralNetwork, Policy
from rlworkbench.spaces import Dict, FloatBox, IntBox


class FirstRow(Component):
    """``x[:1]``: one row, whatever the batch (a core dimension of 1 on both backends)."""

    @api
    @graph_fn
    def run(self, x):
        return x[:1]


def test_a_disagreement_between_the_backends_is_found_and_named():
    """The backends agree on this component now; inputs of two widths make them disagree at every record."""
    torch_graph = build(FirstRow(name="first"), {"x": FloatBox(shape=(3,), add_batch_rank=True)}, backend="torch").graph
    tf_graph = build(FirstRow(name="first"), {"x": FloatBox(shape=(4,), add_batch_rank=True)}, backend="tf").graph
    differences = graph_space_differences(torch_graph, tf_graph)
    assert "first.run output: torch FloatBox((1, 3), float32) vs tf FloatBox((1, 4), float32)" in differences
    assert any(difference.startswith("first.run input") for difference in differences)
    assert any("(graph function) output 0" in difference for difference in differences)


def test_leaves_are_compared_by_dtype_ranks_and_bounds():
    where = "c.f output"
    assert space_differences(IntBox(3), IntBox(3), where) == []
    assert space_differences(IntBox(3), IntBox(4), where)  # bounds
    assert space_differences(FloatBox(shape=(2,)), FloatBox(shape=(2,), dtype="float64"), where)
    assert space_differences(FloatBox(add_batch_rank=True, add_time_rank=True),
                             FloatBox(add_batch_rank=True, add_time_rank=True, time_major=True), where)
    nested = Dict(a=FloatBox(), b=IntBox(2), add_batch_rank=True)
    other = Dict(a=FloatBox(), b=IntBox(3), add_batch_rank=True)
    assert space_differences(nested, other, where) == [
        "c.f output, key 'b': torch IntBox((), int64, [0, 2))+B vs tf IntBox((), int64, [0, 3))+B"]


@pytest.mark.parametrize("action_space", [IntBox(3), FloatBox(-1.0, 1.0, shape=(2,))], ids=["discrete", "float"])
def test_a_policy_has_the_same_spaces_everywhere_on_both_backends(action_space):
    """A whole sub-tree (network, adapters, distributions): every record, not only the root's outputs."""
    def make() -> Policy:
        return Policy(NeuralNetwork([{"type": "dense", "units": 8, "activation": "tanh"}]), action_space,
                      name="policy")

    spaces = {"states": FloatBox(shape=(4,), add_batch_rank=True),
              "actions": action_space.with_batch_rank(), "other_parameters": None}
    graphs = []
    for backend in ("torch", "tf"):
        policy = make()
        alone = build(policy, {"states": spaces["states"]}, backend=backend, api_methods=["get_parameters"])
        parameters = alone.graph.output_space("get_parameters")
        inputs = {**spaces, "other_parameters": parameters}
        graphs.append(build(make(), inputs, backend=backend, seed=0).graph)
    assert graph_space_differences(*graphs) == []
    assert len(graphs[0].graph_fn_calls) > 5
