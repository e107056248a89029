"""A replay shard as a Ray actor: transitions added with their actor's priorities are sampled by them, priorities
sent back change what is drawn, and a shard holds exactly the records it was given (both backends)."""

from __future__ import annotations

import numpy as np
import pytest
import ray

from rlworkbench.execution.ray import ReplayShard, Transitions
from rlworkbench.spaces import BoolBox, Dict, FloatBox, IntBox

RECORDS = Dict(states=FloatBox(shape=(4,)), actions=IntBox(2), rewards=FloatBox(), terminals=BoolBox(),
               next_states=FloatBox(shape=(4,)), add_batch_rank=True)


def transitions(ids: list[int]) -> dict[str, np.ndarray]:
    rows = len(ids)
    states = np.repeat(np.asarray(ids, np.float32)[:, None], 4, axis=1)
    return {"states": states, "actions": np.asarray(ids) % 2, "rewards": np.asarray(ids, np.float32),
            "terminals": np.zeros(rows, bool), "next_states": states + 0.5}


@pytest.mark.parametrize("backend", ["torch", "tf"])
def test_a_shard_actor_samples_by_the_priorities_it_was_given(ray_session, backend):
    shard = ray.remote(num_cpus=0)(ReplayShard).remote(RECORDS, 16, alpha=1.0, beta=0.4, backend=backend, seed=0)
    try:
        assert ray.get(shard.add.remote(Transitions(transitions([0, 1, 2, 3]),
                                                       np.asarray([1.0, 1.0, 1.0, 97.0], np.float32)))) == 4
        assert ray.get(shard.size.remote()) == 4
        records, indices, weights = ray.get(shard.sample.remote(500))
        np.testing.assert_array_equal(records["rewards"], indices.astype(np.float32))  # each slot its record
        assert 0.9 < np.mean(indices == 3) < 1.0  # 97 of 100 parts of the priority mass
        assert weights.max() == pytest.approx(1.0) and weights[indices == 3].max() < weights.max()
        ray.get(shard.update_priorities.remote(np.asarray([3, 0]), np.asarray([1.0, 97.0])))
        _, indices, _ = ray.get(shard.sample.remote(500))
        assert 0.9 < np.mean(indices == 0) < 1.0
    finally:
        ray.kill(shard)
