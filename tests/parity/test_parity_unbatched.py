"""Parity without batch/time ranks, scalar outputs and strings: NumPy arrays of the same kind on both backends."""

from __future__ import annotations

import numpy as np
import pytest

from rlworkbench import Component, api, graph_fn
from rlworkbench.components import Clip, Dense, GreedyActionSelector, OneHot
from rlworkbench.spaces import Dict, FloatBox, IntBox, TextBox


class Total(Component):
    """Sums everything: a 0-d output."""

    @api
    def total(self, x):
        return self._total(x)

    @graph_fn
    def _total(self, x):
        return self.ops.reduce_sum(x)


class Echo(Component):
    """Returns its input through a graph function (strings included)."""

    @api
    def echo(self, x):
        return self._echo(x)

    @graph_fn
    def _echo(self, x):
        return self.ops.identity(x)


CASES = {  # component factory, API method, its parameter, input space
    "dense": (lambda: Dense(4, activation="relu"), "apply", "inputs", FloatBox(shape=(3,))),
    "clip": (lambda: Clip(-0.5, 0.5), "preprocess", "inputs", Dict(a=FloatBox(shape=(2,)), b=IntBox(-4, 4))),
    "one_hot": (OneHot, "preprocess", "inputs", IntBox(5)),
    "selector": (GreedyActionSelector, "select", "values", FloatBox(shape=(6,))),
    "total": (Total, "total", "x", FloatBox(shape=(2, 3))),
    "total_batched": (Total, "total", "x", FloatBox(shape=(3,), add_batch_rank=True)),
    "text": (Echo, "echo", "x", TextBox()),
    "text_vector": (Echo, "echo", "x", TextBox((3,))),
    "text_in_dict": (Echo, "echo", "x", Dict(t=TextBox(add_batch_rank=True), f=FloatBox(add_batch_rank=True))),
}


@pytest.mark.parametrize("case", list(CASES))
def test_unbatched_and_scalar_outputs(parity, case):
    make, api_name, param, space = CASES[case]
    pair = parity(make, {param: space})
    value = space.sample(2 if space.has_batch_rank else None, seed=0)
    _, actual = pair.run(api_name, value)
    leaves = list(actual.values()) if isinstance(actual, dict) else [actual]
    assert all(type(leaf) is np.ndarray for leaf in leaves)
    if isinstance(space, TextBox):
        assert all(type(s) is str for s in np.asarray(actual).flat)
