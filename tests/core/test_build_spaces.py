"""Spaces flow breadth first from the root's arguments; each component sees its input spaces."""

from __future__ import annotations

import numpy as np
import pytest
from core_components import STATES, Agent, Scale, Stack

from rlworkbench import BuildError, Component, api, build
from rlworkbench.core.builder import OutputSpaceOf
from rlworkbench.spaces import FloatBox


def test_input_spaces_reach_every_component():
    root = Agent()
    build(root, {"states": STATES}, seed=1)
    assert root.input_spaces == {"states": STATES}
    assert root.net.input_spaces == {"inputs": STATES}
    assert root.net.layers[0].input_spaces == {"inputs": STATES}
    assert root.net.layers[1].input_spaces == {"inputs": FloatBox(shape=(4,), add_batch_rank=True)}
    assert root.head.input_spaces == {"x": FloatBox(shape=(2,), add_batch_rank=True)}
    assert all(c.built for c in root.walk())


def test_output_spaces_of_api_methods():
    root = Agent()
    graph = build(root, {"states": STATES}, seed=1).graph
    assert graph.backend_name == "torch"
    assert graph.output_space("act") == FloatBox(shape=(2,), add_batch_rank=True)
    assert graph.output_space("value") == FloatBox(shape=(), add_batch_rank=True)
    inputs, outputs = graph.api_spaces(root.net.layers[0], "apply")
    assert inputs == {"inputs": STATES}
    assert outputs == {"output": FloatBox(shape=(4,), add_batch_rank=True)}
    inputs, outputs = graph.api_spaces(root.head, "apply")
    assert inputs == {"x": FloatBox(shape=(2,), add_batch_rank=True)}
    assert outputs == {"output": FloatBox(shape=(2,), add_batch_rank=True)}


def test_spaces_without_batch_rank_stay_without():
    root = Agent()
    graph = build(root, {"states": FloatBox(shape=(5,))}, seed=1).graph
    assert graph.output_space("act") == FloatBox(shape=(2,))
    assert root.net.layers[0].kernel.shape == (5, 4)


def test_every_record_has_a_space_after_the_build():
    graph = build(Agent(), {"states": STATES}, seed=1).graph
    records = [r for call in graph.graph_fn_calls for r in call.outputs]
    assert records and all(r.space is not None for r in records)
    assert graph.stuck is None


def test_create_variables_runs_once_with_the_right_spaces():
    root = Agent()
    build(root, {"states": STATES}, seed=1)  # net is called by both act and value
    first, second = root.net.layers
    assert first.create_calls == [{"inputs": STATES}]
    assert second.create_calls == [{"inputs": FloatBox(shape=(4,), add_batch_rank=True)}]
    assert root.head.create_calls == [{"x": FloatBox(shape=(2,), add_batch_rank=True)}]


def test_a_rebuild_starts_from_scratch():
    root = Agent()
    build(root, {"states": STATES}, seed=1)
    executor = build(root, {"states": FloatBox(shape=(6,), add_batch_rank=True)}, seed=1)
    assert root.net.layers[0].kernel.shape == (6, 4)
    assert len(root.net.layers[0].create_calls) == 2
    assert executor.execute("act", FloatBox(shape=(6,)).sample(3, seed=0)).shape == (3, 2)


def test_batch_and_time_ranks_flow_through():
    for major in (False, True):
        space = FloatBox(shape=(3,), add_batch_rank=True, add_time_rank=True, time_major=major)
        root = Agent()
        graph = build(root, {"states": space}, seed=1).graph
        assert graph.output_space("act") == FloatBox(shape=(2,), add_batch_rank=True, add_time_rank=True,
                                                     time_major=major)
        assert root.net.layers[1].input_spaces["inputs"].time_major is major


def test_reductions_drop_ranks_they_reduce():
    from rlworkbench import Component, api, graph_fn

    class Mean(Component):
        @api
        def over_batch(self, x):
            return self._mean(x)

        @graph_fn
        def _mean(self, x):
            return self.ops.reduce_mean(x, axis=0)

    graph = build(Mean(name="mean"), {"x": STATES}).graph
    assert graph.output_space("over_batch") == FloatBox(shape=(3,))


def test_variables_are_created_in_waves_as_spaces_arrive():
    root = Agent()
    order = []
    for component in root.walk():
        def wrapped(spaces, component=component, original=component.create_variables):
            order.append(component.path)
            original(spaces)

        component.create_variables = wrapped
    build(root, {"states": STATES}, seed=1)
    # wave 1: everything fed by the root's argument; then each layer once the one before it ran
    assert order == ["agent", "agent/net", "agent/net/dense_0", "agent/net/dense_1", "agent/head"]


class Encoder(Component):
    """``encode(states)`` → features of the net; ``score(features)`` takes what ``encode`` gives, by its space."""

    def __init__(self):
        self.net = Stack(4, 3, name="net")
        self.head = Scale(name="head")
        super().__init__(self.net, self.head, name="encoder")

    @api
    def encode(self, states):
        return self.net.apply(states)

    @api
    def score(self, features):
        return self.head.apply(features)

    @api
    def both(self, states):
        return self.net.apply(states), self.head.apply(self.net.apply(states))


@pytest.mark.parametrize("backend", ["torch", "tf"])
def test_an_input_space_can_be_another_api_methods_output_space(backend):
    pytest.importorskip({"torch": "torch", "tf": "tensorflow"}[backend])
    root = Encoder()
    executor = build(root, {"states": STATES, "features": OutputSpaceOf("encode")}, backend=backend, seed=0)
    features = FloatBox(shape=(3,), add_batch_rank=True)
    assert executor.graph.root_inputs["score"]["features"].space == features
    assert root.head.input_spaces == {"x": features}
    out = executor.execute("score", np.ones((2, 3), np.float32))
    np.testing.assert_allclose(out, 2.0 * np.ones((2, 3)))  # the head's factor starts at 2


def test_an_output_space_link_names_what_it_cannot_follow():
    with pytest.raises(BuildError, match="not built") as info:
        build(Encoder(), {"states": STATES, "features": OutputSpaceOf("decode")}, api_methods=["encode", "score"])
    assert info.value.argument == "features" and info.value.got == "decode"
    with pytest.raises(BuildError, match="not one value") as info:
        build(Encoder(), {"states": STATES, "features": OutputSpaceOf("both", index=5)})
    assert info.value.argument == "features"
    executor = build(Encoder(), {"states": STATES, "features": OutputSpaceOf("both", index=0)})
    assert executor.graph.root_inputs["score"]["features"].space == FloatBox(shape=(3,), add_batch_rank=True)
