"""BatchSplitter: equal shards of nested batches along the batch axis, remainder dropped; spaces kept."""

from __future__ import annotations

import numpy as np
import pytest

from rlworkbench import nest
from rlworkbench.components import BatchSplitter, from_spec
from rlworkbench.errors import ConfigError, SpaceError
from rlworkbench.spaces import Dict, FloatBox, IntBox, Tuple
from rlworkbench.testing import ComponentTest


def nested(**ranks) -> Dict:
    return Dict(obs=Dict(image=IntBox(0, 256, shape=(2, 2), dtype="uint8"), vec=FloatBox(shape=(3,))),
                pair=Tuple(IntBox(4), FloatBox()), **ranks)


def shards_of(value, num_shards: int, axis: int = 0):
    """NumPy reference: ``num_shards`` equal slices along ``axis``, the remainder dropped."""
    def leaf(x, shard):
        size = x.shape[axis] // num_shards
        return np.take(x, range(shard * size, (shard + 1) * size), axis=axis)

    return tuple(nest.map_structure(lambda x, s=shard: leaf(x, s), value) for shard in range(num_shards))


@pytest.mark.parametrize("batch", [9, 10, 11])
def test_nested_batch_in_equal_shards(backend, batch):
    space = nested(add_batch_rank=True)
    test = ComponentTest(BatchSplitter(3), {"inputs": [space]}, backend=backend)
    x = space.sample(batch, seed=batch)
    shards = test.test(("split", [x]), expected_outputs=shards_of(x, 3))
    assert all(len(shard["pair"][0]) == batch // 3 for shard in shards)  # 10, 11: the last rows are dropped
    assert test.graph.output_space("split") == (space, space, space)
    assert all(space.contains(shard) for shard in shards)


@pytest.mark.parametrize("ranks, axis", [({"add_batch_rank": True, "add_time_rank": True}, 0),
                                         ({"add_batch_rank": True, "add_time_rank": True, "time_major": True}, 1)])
def test_time_ranks_split_along_the_batch_axis(backend, ranks, axis):
    states, rewards = FloatBox(shape=(2,), **ranks), FloatBox(**ranks)
    test = ComponentTest(BatchSplitter(2), {"inputs": [states, rewards]}, backend=backend)
    x, r = states.sample((5, 3), seed=1), rewards.sample((5, 3), seed=2)
    expected = tuple(zip(shards_of(x, 2, axis), shards_of(r, 2, axis)))
    shards = test.test(("split", [x, r]), expected_outputs=expected)
    assert shards[0][0].shape == ((2, 3, 2) if axis == 0 else (3, 2, 2))
    assert test.graph.output_space("split") == (Tuple(states, rewards),) * 2


def test_one_shard_is_the_whole_batch_and_small_batches_give_empty_shards(backend):
    space = FloatBox(shape=(2,), add_batch_rank=True)
    whole = ComponentTest(from_spec({"type": "batch_splitter", "num_shards": 1}), {"inputs": [space]},
                          backend=backend)
    x = space.sample(3, seed=4)
    whole.test(("split", [x]), expected_outputs=x)
    four = ComponentTest(BatchSplitter(4), {"inputs": [space]}, backend=backend)
    assert [shard.shape for shard in four.test(("split", [x]))] == [(0, 2)] * 4


def test_errors(backend):
    with pytest.raises(ConfigError) as info:
        BatchSplitter(0)
    assert info.value.key_path == "num_shards"
    space = Dict(a=FloatBox(shape=(2,), add_batch_rank=True), b=FloatBox(shape=(2,)))
    with pytest.raises(SpaceError) as info:
        ComponentTest(BatchSplitter(2), {"inputs": [FloatBox(add_batch_rank=True), space]}, backend=backend)
    assert (info.value.argument, info.value.key_path) == ("inputs[1]", "b")
    assert info.value.component == "batch_splitter"
