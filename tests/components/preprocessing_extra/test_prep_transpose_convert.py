"""Transpose (core axes only) and ConvertType (dtype casts with matching spaces) against NumPy."""

from __future__ import annotations

import numpy as np
import pytest

from rlworkbench import nest
from rlworkbench.components import ConvertType, Transpose
from rlworkbench.errors import ConfigError, SpaceError
from rlworkbench.spaces import BoolBox, Dict, FloatBox, IntBox, Tuple
from rlworkbench.testing import ComponentTest

RANKS = [(3, {"add_batch_rank": True}), ((2, 3), {"add_batch_rank": True, "add_time_rank": True})]


@pytest.mark.parametrize("size, ranks", RANKS)
def test_transpose_core_axes_of_nested_leaves(backend, size, ranks):
    low = np.arange(24, dtype=np.float32).reshape(2, 3, 4) - 30.0
    space = Dict(image=IntBox(0, 256, shape=(2, 3, 4), dtype="uint8"),
                 deep=Tuple(FloatBox(low, low + 1.0), BoolBox((2, 3, 4))), **ranks)
    test = ComponentTest(Transpose([2, 0, 1]), {"inputs": space}, backend=backend)
    x = space.sample(size, seed=1)
    extra = space["image"].num_extra_ranks
    perm = tuple(range(extra)) + (extra + 2, extra, extra + 1)
    test.test(("preprocess", x), expected_outputs=nest.map_structure(lambda v: np.transpose(v, perm), x))
    out_space = test.graph.output_space("preprocess")
    assert out_space == Dict(image=IntBox(0, 256, shape=(4, 2, 3), dtype="uint8"),
                             deep=Tuple(FloatBox(np.transpose(low, (2, 0, 1)), np.transpose(low, (2, 0, 1)) + 1.0),
                                        BoolBox((4, 2, 3))), **ranks)


def test_transpose_errors(backend):
    with pytest.raises(ConfigError) as info:
        Transpose([0, 2])
    assert info.value.key_path == "perm"
    with pytest.raises(SpaceError) as info:
        ComponentTest(Transpose([1, 0]), {"inputs": Dict(a=FloatBox(shape=(2, 2)), b=FloatBox(shape=(2,)),
                                                         add_batch_rank=True)}, backend=backend)
    assert info.value.key_path == "b" and info.value.expected == "rank 2"


@pytest.mark.parametrize("size, ranks", RANKS)
def test_convert_types_and_bounds(backend, size, ranks):
    space = Tuple(IntBox(0, 256, shape=(2,), dtype="uint8"), FloatBox(-3.7, 2.5, shape=(2,)), BoolBox((2,)), **ranks)
    cases = {
        "float32": Tuple(FloatBox(0.0, 255.0, shape=(2,)), FloatBox(-3.7, 2.5, shape=(2,)),
                         FloatBox(0.0, 1.0, shape=(2,))),
        "int64": Tuple(IntBox(0, 256, shape=(2,)), IntBox(-3, 3, shape=(2,)), IntBox(0, 2, shape=(2,))),
        "bool": Tuple(BoolBox((2,)), BoolBox((2,)), BoolBox((2,))),
    }
    x = space.sample(size, seed=2)
    for dtype, expected_space in cases.items():
        test = ComponentTest(ConvertType(dtype), {"inputs": space}, backend=backend)
        out = test.test(("preprocess", x), expected_outputs=tuple(v.astype(dtype) for v in x))
        assert [o.dtype for o in out] == [np.dtype(dtype)] * 3
        out_space = test.graph.output_space("preprocess")
        assert out_space == Tuple(*(leaf.with_ranks_of(space) for leaf in expected_space)), dtype
        out_space.check(out)


def test_convert_to_narrow_ints_clips_the_bounds(backend):
    space = FloatBox(-1000.0, 1000.0, add_batch_rank=True)
    test = ComponentTest(ConvertType("uint8"), {"inputs": space}, backend=backend)
    x = np.array([0.0, 1.9, 254.99], np.float32)
    test.test(("preprocess", x), expected_outputs=np.array([0, 1, 254], np.uint8))
    assert test.graph.output_space("preprocess") == IntBox(0, 256, dtype="uint8", add_batch_rank=True)


def test_convert_errors(backend):
    with pytest.raises(ConfigError) as info:
        ConvertType("complex64")
    assert info.value.key_path == "dtype" and "float32" in info.value.expected
