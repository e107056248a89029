"""Two optimizers stepping in one API method (as SAC's critic then actor): the build must not take real steps,
and both steps run in program order at execution, on both backends."""

from __future__ import annotations

import numpy as np

from rlworkbench import Component, api, graph_fn
from rlworkbench.components import SGD, Dense
from rlworkbench.spaces import FloatBox
from rlworkbench.testing import ComponentTest


class TwoLearners(Component):
    """``update(x, y)``: SGD on ``first`` for ``mse(first(x), y)``, then SGD on ``second`` for
    ``mse(first(second(x)), y)`` — the second loss differentiates through the network the first step changed
    in place (as SAC's actor loss goes through the critics just updated)."""

    def __init__(self):
        self.first, self.second = Dense(1, name="first"), Dense(2, name="second")
        self.opt_first = SGD(0.1, variables_of=self.first, name="opt_first")
        self.opt_second = SGD(0.1, variables_of=self.second, name="opt_second")
        super().__init__(self.opt_first, self.opt_second, self.first, self.second, name="two")

    @api
    def update(self, x, y):
        first_loss, _ = self.opt_first.step(self._mse(self.first.apply(x), y))
        second_loss, _ = self.opt_second.step(self._mse(self.first.apply(self.second.apply(x)), y))
        return first_loss, second_loss

    @graph_fn
    def _mse(self, predictions, targets):
        return self.ops.reduce_mean(self.ops.square(predictions - targets))


def test_two_optimizer_steps_in_one_api_method(backend):
    space = FloatBox(-1.0, 1.0, shape=(2,), add_batch_rank=True)
    test = ComponentTest(TwoLearners(), {"x": space, "y": FloatBox(shape=(1,), add_batch_rank=True)},
                         backend=backend, seed=3)
    before = test.variable_values()
    x, y = space.sample(8, seed=1), np.ones((8, 1), np.float32)
    losses = [test.test(("update", [x, y])) for _ in range(30)]
    after = test.variable_values()
    assert all(not np.array_equal(before[name], after[name]) for name in before if "/steps" not in name)
    assert losses[-1][0] < 0.5 * losses[0][0] and losses[-1][1] < losses[0][1]
    assert after["opt_first/steps"] == 30 and after["opt_second/steps"] == 30
