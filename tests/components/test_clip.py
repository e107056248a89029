"""Clip: ``np.clip`` leaf by leaf on boxes and nested Dict/Tuple inputs, with batch and time ranks."""

from __future__ import annotations

import math

import numpy as np
import pytest

from rlworkbench import nest
from rlworkbench.components import Clip
from rlworkbench.errors import ConfigError, SpaceError
from rlworkbench.spaces import Dict, FloatBox, IntBox, Tuple
from rlworkbench.testing import ComponentTest

RANKS = [
    (4, {"add_batch_rank": True}),
    ((3, 2), {"add_batch_rank": True, "add_time_rank": True}),
    ((3, 2), {"add_batch_rank": True, "add_time_rank": True, "time_major": True}),
]


def clip_reference(value, low: float, high: float):
    def clip_leaf(x: np.ndarray) -> np.ndarray:
        if x.dtype.kind in "iu":
            return np.clip(x, math.ceil(low), math.floor(high)).astype(x.dtype)
        return np.clip(x, low, high)

    return nest.map_structure(clip_leaf, value)


def nested_space(**ranks) -> Dict:
    return Dict(pos=FloatBox(-3.0, 3.0, shape=(2,)),
                extra=Tuple(FloatBox(shape=(3,)), IntBox(-4, 4, shape=(2,)),
                            Dict(deep=FloatBox(-5.0, 5.0, shape=(2, 2)))), **ranks)


@pytest.mark.parametrize("size, ranks", RANKS)
def test_clip_box(backend, size, ranks):
    space = FloatBox(-3.0, 3.0, shape=(2, 3), **ranks)
    test = ComponentTest(Clip(-1.0, 0.5), input_spaces={"inputs": space}, backend=backend)
    x = space.sample(size, seed=1)
    out = test.test(("preprocess", x), expected_outputs=np.clip(x, -1.0, 0.5))
    assert out.min() >= -1.0 and out.max() <= 0.5 and out.dtype == np.float32
    out_space = test.graph.output_space("preprocess")
    assert out_space == FloatBox(-1.0, 0.5, shape=(2, 3), **ranks)  # [-3, 3] clipped into [-1, 0.5]
    out_space.check(out)


@pytest.mark.parametrize("size, ranks", RANKS)
def test_clip_nested_dict_and_tuple(backend, size, ranks):
    space = nested_space(**ranks)
    test = ComponentTest(Clip(-1.5, 2.5), input_spaces={"inputs": space}, backend=backend)
    x = space.sample(size, seed=2)
    test.test(("preprocess", x), expected_outputs=clip_reference(x, -1.5, 2.5))
    out_space = test.graph.output_space("preprocess")
    assert isinstance(out_space, Dict) and list(out_space.keys()) == ["pos", "extra"]
    assert isinstance(out_space["extra"], Tuple) and len(out_space["extra"]) == 3
    for key, leaf in out_space.flatten().items():
        source = space.flatten()[key]
        assert (leaf.shape, leaf.dtype, leaf._rank_key()) == (source.shape, source.dtype, source._rank_key()), key
    # every float leaf ([-3, 3], unbounded, [-5, 5]) ends in [-1.5, 2.5]; the ints [-4, 4) in [ceil(-1.5), floor(2.5)]
    assert out_space == Dict(pos=FloatBox(-1.5, 2.5, shape=(2,)),
                             extra=Tuple(FloatBox(-1.5, 2.5, shape=(3,)), IntBox(-1, 3, shape=(2,)),
                                         Dict(deep=FloatBox(-1.5, 2.5, shape=(2, 2)))), **ranks)


def test_clip_keeps_int_leaves_int(backend):
    space = Tuple(IntBox(-5, 5, shape=(3,)), IntBox(0, 200, shape=(2,), dtype="uint8"), add_batch_rank=True)
    test = ComponentTest(Clip(-1.5, 2.5), input_spaces={"inputs": space}, backend=backend)
    x = space.sample(8, seed=3)
    out = test.test(("preprocess", x), expected_outputs=clip_reference(x, -1.5, 2.5))
    assert [o.dtype for o in out] == [np.int64, np.uint8]
    assert [leaf.dtype for leaf in test.graph.output_space("preprocess")] == [np.int64, np.uint8]
    assert test.graph.output_space("preprocess") == \
        Tuple(IntBox(-1, 3, shape=(3,)), IntBox(0, 3, shape=(2,), dtype="uint8"), add_batch_rank=True)


def test_clip_with_infinite_bound(backend):
    space = Dict(f=FloatBox(shape=(3,)), i=IntBox(-9, 9, shape=(3,)), add_batch_rank=True)
    test = ComponentTest(Clip(-math.inf, 1.0), input_spaces={"inputs": space}, backend=backend)
    x = space.sample(5, seed=4)
    test.test(("preprocess", x), expected_outputs={"f": np.minimum(x["f"], 1.0), "i": np.minimum(x["i"], 1)})
    assert test.graph.output_space("preprocess") == \
        Dict(f=FloatBox(-math.inf, 1.0, shape=(3,)), i=IntBox(-9, 2, shape=(3,)), add_batch_rank=True)


def test_clip_declares_float_bounds_intersected(backend):
    space = FloatBox(-3.0, 3.0, shape=(4,), add_batch_rank=True)
    test = ComponentTest(Clip(-1.0, 2.0), input_spaces={"inputs": space}, backend=backend)
    x = space.sample(50, seed=6)
    out = test.test(("preprocess", x), expected_outputs=np.clip(x, -1.0, 2.0))
    out_space = test.graph.output_space("preprocess")
    assert out_space == FloatBox(-1.0, 2.0, shape=(4,), add_batch_rank=True)
    assert out_space.low == -1.0 and out_space.high == 2.0
    out_space.check(out)


def test_clip_declares_int_bounds_rounded_inwards(backend):
    space = IntBox(10, add_batch_rank=True)  # 0 ... 9
    test = ComponentTest(Clip(2.5, 5.0), input_spaces={"inputs": space}, backend=backend)
    x = np.arange(10)
    out = test.test(("preprocess", x), expected_outputs=np.clip(x, 3, 5))
    out_space = test.graph.output_space("preprocess")
    assert out_space == IntBox(3, 6, add_batch_rank=True) and out_space.num_categories == 3
    assert out.dtype == np.int64 and set(out.tolist()) == {3, 4, 5}
    out_space.check(out)


def test_clip_range_outside_the_input_bounds_gives_a_valid_space(backend):
    # every value is clipped up to 5: the bounds are the clipped input bounds, never low > high
    space = Dict(f=FloatBox(-3.0, 3.0, shape=(2,)), i=IntBox(-3, 3, shape=(2,)), add_batch_rank=True)
    test = ComponentTest(Clip(5.0, 6.0), input_spaces={"inputs": space}, backend=backend)
    x = space.sample(7, seed=7)
    out = test.test(("preprocess", x), expected_outputs={"f": np.full((7, 2), 5.0, np.float32),
                                                         "i": np.full((7, 2), 5)})
    out_space = test.graph.output_space("preprocess")
    assert out_space == Dict(f=FloatBox(5.0, 5.0, shape=(2,)), i=IntBox(5, 6, shape=(2,)), add_batch_rank=True)
    out_space.check(out)


def test_clip_needs_low_not_above_high(backend):
    with pytest.raises(ConfigError) as info:
        Clip(1.0, -1.0, name="bad_clip")
    assert info.value.component == "bad_clip" and "low=1.0" in str(info.value)


def test_clip_names_the_key_path_of_a_bad_value(backend):
    space = nested_space(add_batch_rank=True)
    test = ComponentTest(Clip(-1.0, 1.0), input_spaces={"inputs": space}, backend=backend)
    x = space.sample(2, seed=5)
    x["extra"][2]["deep"] = np.zeros((2, 3, 3), np.float32)
    with pytest.raises(SpaceError) as info:
        test.test(("preprocess", x))
    assert info.value.key_path == "extra/2/deep" and info.value.api_method == "preprocess"
