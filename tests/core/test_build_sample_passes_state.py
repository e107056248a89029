"""The build's sample passes leave no state behind (counters, memories, gradients)."""

from __future__ import annotations

import numpy as np

from rlworkbench import Component, api, build, graph_fn
from rlworkbench.spaces import FloatBox


class Counter(Component):
    """Counts calls in an int variable and a float non-trainable one; sums into a trainable accumulator."""

    def create_variables(self, input_spaces):
        self.count = self.create_variable("count", (), dtype="int64", initializer=5)
        self.float_count = self.create_variable("float_count", (), trainable=False, initializer=1.5)
        self.weight = self.create_variable("weight", (2,), initializer=1.0)

    @api
    def step(self, x):
        return self._step(x)

    @api
    def learn(self, x):
        return self._learn(x)

    @graph_fn
    def _step(self, x):
        self.count += 1
        self.float_count.add_(1.0)
        return x + self.count

    @graph_fn(requires_grad=True)
    def _learn(self, x):
        loss = (x * self.weight).sum()
        loss.backward()
        return self.weight.grad.norm()


SPACE = FloatBox(shape=(2,), add_batch_rank=True)


def test_sample_passes_leave_counters_at_their_initial_values():
    counter = Counter(name="counter")
    executor = build(counter, {"x": SPACE})
    weights = executor.get_weights()
    assert weights["count"] == 5 and weights["float_count"] == 1.5
    out = executor.execute("step", np.zeros((1, 2), np.float32))
    np.testing.assert_array_equal(out, [[6.0, 6.0]])
    assert executor.get_weights()["count"] == 6 and executor.get_weights()["float_count"] == 2.5


def test_sample_passes_leave_no_gradients():
    counter = Counter(name="counter")
    build(counter, {"x": SPACE})
    assert counter.weight.grad is None


def test_the_build_leaves_torchs_thread_count_as_it_found_it():
    import torch

    before = torch.get_num_threads()
    try:
        for threads in (1, 2):
            torch.set_num_threads(threads)
            build(Counter(), {"x": SPACE}, backend="torch")
            assert torch.get_num_threads() == threads
    finally:
        torch.set_num_threads(before)
