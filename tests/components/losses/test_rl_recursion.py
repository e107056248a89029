"""The shared backward recursion ``discounted_cumsum`` (and ``next_steps``) inside a graph function, against a NumPy
loop: time axis first or second, time only, with and without a bootstrap, time lengths from 1 to 17 on one build."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from rlworkbench import Component, api, graph_fn
from rlworkbench.components.losses.common import discounted_cumsum, next_steps, time_axis
from rlworkbench.spaces import FloatBox
from rlworkbench.testing import ComponentTest


class Recursion(Component):
    """Runs the helpers on per-step values with a time rank (test-only)."""

    def create_variables(self, input_spaces: dict) -> None:
        self.axis = time_axis(input_spaces["values"], "values")

    @api
    def backwards(self, values: Any, discounts: Any, bootstrap: Any) -> Any:
        return self._backwards(values, discounts, bootstrap)

    @api
    def from_zero(self, values: Any, discounts: Any) -> Any:
        return self._from_zero(values, discounts)

    @api
    def shifted(self, values: Any, bootstrap: Any) -> Any:
        return self._shifted(values, bootstrap)

    @graph_fn
    def _backwards(self, values: Any, discounts: Any, bootstrap: Any) -> Any:
        return discounted_cumsum(self.ops, values, discounts, self.axis, bootstrap)

    @graph_fn
    def _from_zero(self, values: Any, discounts: Any) -> Any:
        return discounted_cumsum(self.ops, values, discounts, self.axis)

    @graph_fn
    def _shifted(self, values: Any, bootstrap: Any) -> Any:
        return next_steps(self.ops, values, bootstrap, self.axis)


def cumsum_reference(values, discounts, bootstrap):
    """(time, ...) arrays: y[t] = x[t] + d[t] * y[t + 1], y[T] = bootstrap."""
    result = np.zeros(values.shape)
    running = np.asarray(bootstrap, np.float64)
    for t in reversed(range(values.shape[0])):
        running = values[t] + discounts[t] * running
        result[t] = running
    return result


LAYOUTS = {
    "batch_major": {"add_batch_rank": True, "add_time_rank": True},
    "time_major": {"add_batch_rank": True, "add_time_rank": True, "time_major": True},
    "time_only": {"add_time_rank": True},
}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_discounted_cumsum_matches_a_numpy_loop(backend, built, layout):
    ranks = LAYOUTS[layout]
    step, per_sequence = FloatBox(**ranks), FloatBox(add_batch_rank=ranks.get("add_batch_rank", False))
    spaces = {"values": step, "discounts": FloatBox(0.0, 1.0, **ranks), "bootstrap": per_sequence}
    test = built((backend, layout), lambda: ComponentTest(Recursion(), spaces, backend=backend))
    batch_major = layout == "batch_major"
    for time in (1, 4, 17):
        rng = np.random.default_rng(time)
        size = (3, time) if ranks.get("add_batch_rank") else time
        values, discounts = step.sample(size, seed=rng), spaces["discounts"].sample(size, seed=rng)
        bootstrap = per_sequence.sample(3 if ranks.get("add_batch_rank") else None, seed=rng)
        as_time_first = (lambda a: np.swapaxes(a, 0, 1)) if batch_major else (lambda a: a)
        expected = as_time_first(cumsum_reference(as_time_first(values), as_time_first(discounts), bootstrap))
        test.test(("backwards", [values, discounts, bootstrap]), expected_outputs=expected, decimals=4)
        zero = as_time_first(cumsum_reference(as_time_first(values), as_time_first(discounts), 0 * bootstrap))
        test.test(("from_zero", [values, discounts]), expected_outputs=zero, decimals=4)
        later = np.concatenate([as_time_first(values)[1:], np.asarray(bootstrap, np.float32)[None]], 0)
        test.test(("shifted", [values, bootstrap]), expected_outputs=as_time_first(later))
    assert test.graph.output_space("backwards") == FloatBox(**ranks)
