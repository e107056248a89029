"""MaxPool2D: NumPy pooling for valid/same padding and strides, padding that never wins, ranks, errors."""

from __future__ import annotations

import functools

import layers_numpy as ref
import numpy as np
import pytest

from rlworkbench.components import from_spec
from rlworkbench.components.layers import MaxPool2D
from rlworkbench.errors import ConfigError, SpaceError
from rlworkbench.spaces import FloatBox, IntBox
from rlworkbench.testing import ComponentTest

IMAGE = (7, 6, 3)
RANKS = {
    "none": (None, {}),
    "batch": (4, {"add_batch_rank": True}),
    "batch_time": ((2, 3), {"add_batch_rank": True, "add_time_rank": True}),
    "time_major": ((2, 3), {"add_batch_rank": True, "add_time_rank": True, "time_major": True}),
}
# (pool_size, strides, padding); strides None means pool_size
CASES = [(2, None, "valid"), (3, 1, "valid"), ((2, 3), (1, 2), "valid"), (2, None, "same"), (3, 2, "same"),
         ((3, 2), 1, "same")]


@functools.cache
def built(backend: str, pool_size, strides, padding: str, ranks: str = "batch") -> ComponentTest:
    pool = MaxPool2D(pool_size, strides, padding)
    return ComponentTest(pool, {"inputs": FloatBox(shape=IMAGE, **RANKS[ranks][1])}, backend=backend)


def pairs(value) -> tuple[int, int]:
    return (value, value) if isinstance(value, int) else value


@pytest.mark.parametrize("pool_size, strides, padding", CASES)
def test_max_pool2d_matches_numpy(backend, pool_size, strides, padding):
    test = built(backend, pool_size, strides, padding)
    x = FloatBox(shape=IMAGE, add_batch_rank=True).sample(4, seed=1)
    expected = ref.max_pool2d(x, pairs(pool_size), pairs(strides or pool_size), padding)
    out = test.test(("apply", x), expected_outputs=expected)
    assert out.dtype == np.float32
    assert test.graph.output_space("apply") == FloatBox(shape=expected.shape[1:], add_batch_rank=True)
    assert test.variable_values() == {}


def test_max_pool2d_same_padding_never_wins(backend):
    test = built(backend, 3, 2, "same")
    x = -1.0 - np.abs(FloatBox(shape=IMAGE, add_batch_rank=True).sample(2, seed=3))  # all negative
    out = test.test(("apply", x), expected_outputs=ref.max_pool2d(x, (3, 3), (2, 2), "same"))
    assert (out < -1.0 + 1e-6).all()


@pytest.mark.parametrize("ranks", list(RANKS))
def test_max_pool2d_folds_batch_and_time_ranks(backend, ranks):
    test = built(backend, 2, None, "same", ranks)
    size, flags = RANKS[ranks]
    space = FloatBox(shape=IMAGE, **flags)
    x = space.sample(size, seed=2)
    expected = ref.images(ref.max_pool2d, x, space.num_extra_ranks, (2, 2), (2, 2), "same")
    test.test(("apply", x), expected_outputs=expected)
    assert test.graph.output_space("apply") == FloatBox(shape=(4, 3, 3), **flags)


def test_max_pool2d_from_spec_defaults_strides_to_pool_size(backend):
    pool = from_spec({"type": "max_pool2d", "pool_size": [2, 3]})
    assert (pool.window, pool.strides, pool.padding, pool.name) == ((2, 3), (2, 3), "valid", "max_pool2d")


@pytest.mark.parametrize("kwargs, argument", [({"pool_size": (2, 2, 2)}, "pool_size"),
                                              ({"pool_size": 2, "strides": 0}, "strides"),
                                              ({"pool_size": 2, "padding": "full"}, "padding")])
def test_max_pool2d_config_errors(backend, kwargs, argument):
    with pytest.raises(ConfigError) as info:
        MaxPool2D(**kwargs)
    assert (info.value.component, info.value.argument) == ("max_pool2d", argument)


@pytest.mark.parametrize("space", [IntBox(9, shape=IMAGE, add_batch_rank=True),
                                   FloatBox(shape=(7, 6, 3, 1), add_batch_rank=True),
                                   FloatBox(shape=(1, 6, 3), add_batch_rank=True)], ids=["int", "rank4", "small"])
def test_max_pool2d_space_errors(backend, space):
    with pytest.raises(SpaceError) as info:
        ComponentTest(MaxPool2D(2), {"inputs": space}, backend=backend)
    assert (info.value.component, info.value.argument) == ("max_pool2d", "inputs")
