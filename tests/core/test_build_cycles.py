"""A component whose input depends on its own output: ``must_be_complete=False`` or a BuildError that says where."""

from __future__ import annotations

import numpy as np
import pytest
from core_components import STATES

from rlworkbench import BuildError, Component, ComponentGraph, api, build, graph_fn
from rlworkbench.core import Stuck
from rlworkbench.spaces import FloatBox


def make_memory(complete: bool) -> type[Component]:
    class Memory(Component):
        """Stores the last batch; ``update`` takes priorities computed from what ``get`` returned."""

        def __init__(self):
            super().__init__(name="memory")
            self.create_calls: list[dict] = []

        def create_variables(self, input_spaces):
            self.create_calls.append(dict(input_spaces))
            self.total = self.create_variable("total", (), trainable=False)

        @api
        def get(self, x):
            return self._get(x)

        @api(must_be_complete=complete)
        def update(self, priorities):
            return self._update(priorities)

        @graph_fn
        def _get(self, x):
            return x + 1.0

        @graph_fn
        def _update(self, priorities):
            return self.ops.reduce_sum(priorities) + self.total

    return Memory


class Loss(Component):
    @api
    def priorities(self, values):
        return self._abs(values)

    @graph_fn
    def _abs(self, values):
        return values.abs()


class Learner(Component):
    def __init__(self, complete: bool, loss_first: bool = False):
        self.memory = make_memory(complete)()
        self.loss = Loss(name="loss")
        parts = (self.loss, self.memory) if loss_first else (self.memory, self.loss)
        super().__init__(*parts, name="learner")

    @api
    def step(self, x):
        sampled = self.memory.get(x)
        return self.memory.update(self.loss.priorities(sampled))


def test_must_be_complete_false_breaks_the_cycle():
    learner = Learner(complete=False)
    executor = build(learner, {"x": STATES}, seed=0)
    assert learner.memory.create_calls == [{"x": STATES}]  # created before 'priorities' had a space
    assert learner.memory.input_spaces == {"x": STATES, "priorities": STATES}
    assert executor.graph.output_space("step") == FloatBox(shape=())
    x = np.array([[1.0, -3.0, 0.5]], dtype=np.float32)
    np.testing.assert_allclose(executor.execute("step", x), 2.0 + 2.0 + 1.5)


@pytest.mark.parametrize("loss_first", [False, True])
def test_without_it_the_build_names_component_api_and_argument(loss_first):
    with pytest.raises(BuildError) as info:
        build(Learner(complete=True, loss_first=loss_first), {"x": STATES})
    error = info.value
    assert (error.component, error.api_method, error.argument) == ("learner/memory", "update", "priorities")
    assert isinstance(error.graph, ComponentGraph)
    assert error.graph.stuck == Stuck("learner/memory", "update", "priorities")
    text = str(error)
    for part in ("learner/memory", "update", "priorities", "must_be_complete=False"):
        assert part in text
    assert "STUCK at component 'learner/memory'" in error.graph.summary()
