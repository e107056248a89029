"""GreedyActionSelector: argmax over the last axis against NumPy, typed as IntBox(n) with the input's ranks."""

from __future__ import annotations

import numpy as np
import pytest

from rlworkbench.components import GreedyActionSelector
from rlworkbench.errors import SpaceError
from rlworkbench.spaces import FloatBox, IntBox
from rlworkbench.testing import ComponentTest

RANKS = [
    (9, {"add_batch_rank": True}),
    ((3, 4), {"add_batch_rank": True, "add_time_rank": True}),
    ((3, 4), {"add_batch_rank": True, "add_time_rank": True, "time_major": True}),
]


@pytest.mark.parametrize("size, ranks", RANKS)
def test_greedy_matches_numpy_argmax(backend, size, ranks):
    space = FloatBox(shape=(5,), **ranks)
    test = ComponentTest(GreedyActionSelector(), input_spaces={"values": space}, backend=backend)
    q = space.sample(size, seed=1)
    out = test.test(("select", q), expected_outputs=np.argmax(q, axis=-1))
    assert out.dtype.kind == "i" and out.shape == q.shape[:-1]
    assert test.graph.output_space("select") == IntBox(5, **ranks)


def test_greedy_over_a_rank_two_core_shape(backend):
    space = FloatBox(shape=(3, 4), add_batch_rank=True)  # e.g. one Q-vector per sub-action
    test = ComponentTest(GreedyActionSelector(), input_spaces={"values": space}, backend=backend)
    q = space.sample(6, seed=2)
    test.test(("select", q), expected_outputs=np.argmax(q, axis=-1))
    assert test.graph.output_space("select") == IntBox(4, shape=(3,), add_batch_rank=True)


def test_greedy_without_ranks(backend):
    test = ComponentTest(GreedyActionSelector(), input_spaces={"values": FloatBox(shape=(4,))}, backend=backend)
    test.test(("select", np.array([0.1, -2.0, 3.5, 0.2], np.float32)), expected_outputs=np.array(2))
    assert test.graph.output_space("select") == IntBox(4)


def test_greedy_actions_are_in_the_output_space(backend):
    space = FloatBox(shape=(6,), add_batch_rank=True)
    test = ComponentTest(GreedyActionSelector(), input_spaces={"values": space}, backend=backend)
    actions = test.test(("select", space.sample(50, seed=3)))
    assert test.graph.output_space("select").contains(actions)


def test_greedy_rejects_values_of_the_wrong_size(backend):
    test = ComponentTest(GreedyActionSelector(), input_spaces={"values": FloatBox(shape=(4,), add_batch_rank=True)},
                         backend=backend)
    with pytest.raises(SpaceError) as info:
        test.test(("select", np.zeros((2, 5), np.float32)))
    assert (info.value.api_method, info.value.argument) == ("select", "values")
