"""SequenceHelper: per-step discounts, discounted returns, episode indices and lengths against NumPy loops, time-major
and batch-major, built once and run with two time lengths."""

from __future__ import annotations

import numpy as np
import pytest

from rlworkbench.components import SequenceHelper
from rlworkbench.errors import ConfigError, SpaceError
from rlworkbench.spaces import BoolBox, FloatBox, IntBox
from rlworkbench.testing import ComponentTest

RANKS = {
    "batch_major": {"add_batch_rank": True, "add_time_rank": True},
    "time_major": {"add_batch_rank": True, "add_time_rank": True, "time_major": True},
}


def helper_spaces(ranks: dict) -> dict:
    return {"rewards": FloatBox(**ranks), "terminals": BoolBox(**ranks),
            "bootstrap_values": FloatBox(add_batch_rank=True)}


def row_reference(rewards, terminals, bootstrap, discount):
    """One sequence: (discounts, returns, episode indices, episode lengths), with plain loops."""
    T = len(rewards)
    discounts = np.array([0.0 if terminals[t] else discount for t in range(T)])
    returns, running = np.zeros(T), bootstrap
    for t in reversed(range(T)):
        running = rewards[t] + discounts[t] * running
        returns[t] = running
    indices, episode = np.zeros(T, np.int64), 0
    for t in range(T):
        indices[t] = episode
        episode += int(terminals[t])
    lengths = np.array([np.sum(indices == indices[t]) for t in range(T)])
    return discounts, returns, indices, lengths


def reference(x: dict, layout: str, discount: float) -> list:
    rewards, terminals = x["rewards"], x["terminals"]
    if layout == "time_major":
        rewards, terminals = rewards.T, terminals.T
    rows = [row_reference(rewards[b], terminals[b], x["bootstrap_values"][b], discount) for b in range(len(rewards))]
    stacked = [np.stack([row[i] for row in rows]) for i in range(4)]
    return [s.T for s in stacked] if layout == "time_major" else stacked


@pytest.mark.parametrize("layout", sorted(RANKS))
def test_sequence_helper_matches_numpy_loops(backend, built, layout):
    spaces = helper_spaces(RANKS[layout])
    test = built((backend, layout), lambda: ComponentTest(SequenceHelper(discount=0.8), spaces, backend=backend))
    for batch, time in ((3, 7), (5, 12)):
        rng = np.random.default_rng(time)
        x = {name: space.sample(batch if name == "bootstrap_values" else (batch, time), seed=rng)
             for name, space in spaces.items()}
        discounts, returns, indices, lengths = reference(x, layout, 0.8)
        test.test(("discounts", x["terminals"]), expected_outputs=discounts)
        test.test(("discounted_returns", [x["rewards"], x["terminals"], x["bootstrap_values"]]),
                  expected_outputs=returns, decimals=4)
        test.test(("episode_indices", x["terminals"]), expected_outputs=indices)
        test.test(("episode_lengths", x["terminals"]), expected_outputs=lengths)
    ranks = RANKS[layout]
    assert test.graph.output_space("discounted_returns") == FloatBox(**ranks)
    assert test.graph.output_space("episode_lengths") == IntBox(shape=(), **ranks)


def test_episode_bookkeeping_on_a_known_sequence(backend, built):
    spaces = helper_spaces(RANKS["batch_major"])
    test = built((backend, "batch_major"), lambda: ComponentTest(SequenceHelper(0.8), spaces, backend=backend))
    terminals = np.array([[False, True, False, False, True, False], [True, True, False, False, False, False]])
    test.test(("episode_indices", terminals), expected_outputs=np.array([[0, 0, 1, 1, 1, 2], [0, 1, 2, 2, 2, 2]]))
    test.test(("episode_lengths", terminals), expected_outputs=np.array([[2, 2, 3, 3, 3, 1], [1, 1, 4, 4, 4, 4]]))


def test_terminals_alone_are_enough(backend):
    test = ComponentTest(SequenceHelper(), {"terminals": FloatBox(0.0, 1.0, add_time_rank=True)}, backend=backend,
                         api_methods=["episode_indices", "discounts"])
    test.test(("episode_indices", np.array([0.0, 1.0, 0.0, 1.0, 0.0], np.float32)),
              expected_outputs=np.array([0, 0, 1, 1, 2]))


def test_sequences_need_a_time_rank(backend):
    spaces = {"rewards": FloatBox(add_batch_rank=True), "terminals": BoolBox(add_batch_rank=True),
              "bootstrap_values": FloatBox(add_batch_rank=True)}
    with pytest.raises(SpaceError) as info:
        ComponentTest(SequenceHelper(), spaces, backend=backend)
    assert info.value.argument == "terminals" and info.value.component == "sequence_helper"


def test_discount_outside_zero_one_is_a_config_error(backend):
    with pytest.raises(ConfigError) as info:
        SequenceHelper(discount=2.0)
    assert info.value.key_path == "discount"
