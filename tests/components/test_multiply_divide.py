"""Multiply and Divide: scaling every leaf of boxes and nested Dict/Tuple inputs, against NumPy."""

from __future__ import annotations

import numpy as np
import pytest

from rlworkbench import nest
from rlworkbench.components import Divide, Multiply
from rlworkbench.errors import ConfigError
from rlworkbench.spaces import Dict, FloatBox, IntBox, Tuple
from rlworkbench.testing import ComponentTest

RANKS = [
    (4, {"add_batch_rank": True}),
    ((3, 2), {"add_batch_rank": True, "add_time_rank": True}),
    ((3, 2), {"add_batch_rank": True, "add_time_rank": True, "time_major": True}),
]


def nested_space(**ranks) -> Tuple:
    return Tuple(FloatBox(shape=(2,)), Dict(a=FloatBox(shape=(3, 2)), b=Tuple(FloatBox(shape=()))), **ranks)


def scaled(value, factor: float):
    return nest.map_structure(lambda x: (x * factor).astype(np.float32), value)


@pytest.mark.parametrize("size, ranks", RANKS)
def test_multiply_box(backend, size, ranks):
    space = FloatBox(shape=(2, 3), **ranks)
    test = ComponentTest(Multiply(2.5), input_spaces={"inputs": space}, backend=backend)
    x = space.sample(size, seed=1)
    test.test(("preprocess", x), expected_outputs=x * 2.5)
    assert test.graph.output_space("preprocess") == FloatBox(shape=(2, 3), **ranks)


@pytest.mark.parametrize("size, ranks", RANKS)
def test_multiply_nested(backend, size, ranks):
    space = nested_space(**ranks)
    test = ComponentTest(Multiply(-3.0), input_spaces={"inputs": space}, backend=backend)
    x = space.sample(size, seed=2)
    test.test(("preprocess", x), expected_outputs=scaled(x, -3.0))
    out_space = test.graph.output_space("preprocess")
    assert out_space == space.map(lambda leaf: FloatBox(shape=leaf.shape)._with_ranks(*leaf._rank_key()))


@pytest.mark.parametrize("size, ranks", RANKS)
def test_divide_nested(backend, size, ranks):
    space = nested_space(**ranks)
    test = ComponentTest(Divide(4.0), input_spaces={"inputs": space}, backend=backend)
    x = space.sample(size, seed=3)
    test.test(("preprocess", x), expected_outputs=scaled(x, 0.25))
    assert test.component.factor == 0.25


def test_multiply_int_leaves_gives_float32(backend):
    space = Dict(count=IntBox(0, 100, shape=(2,)), add_batch_rank=True)
    test = ComponentTest(Multiply(0.5), input_spaces={"inputs": space}, backend=backend)
    x = space.sample(6, seed=4)
    out = test.test(("preprocess", x), expected_outputs={"count": x["count"] * 0.5})
    assert out["count"].dtype == np.float32
    # [0, 99] scaled by 0.5
    assert test.graph.output_space("preprocess") == Dict(count=FloatBox(0.0, 49.5, shape=(2,), add_batch_rank=True))
    test.graph.output_space("preprocess").check(out)


def test_multiply_by_a_negative_factor_swaps_the_bounds(backend):
    space = FloatBox(0.0, 1.0, shape=(3,), add_batch_rank=True)
    test = ComponentTest(Multiply(-2.0), input_spaces={"inputs": space}, backend=backend)
    x = space.sample(10, seed=5)
    out = test.test(("preprocess", x), expected_outputs=x * -2.0)
    out_space = test.graph.output_space("preprocess")
    assert out_space == FloatBox(-2.0, 0.0, shape=(3,), add_batch_rank=True)
    out_space.check(out)


def test_divide_int_leaf_declares_float32_bounds(backend):
    space = IntBox(4, add_batch_rank=True)  # 0 ... 3
    test = ComponentTest(Divide(2.0), input_spaces={"inputs": space}, backend=backend)
    x = np.arange(4)
    out = test.test(("preprocess", x), expected_outputs=np.array([0.0, 0.5, 1.0, 1.5], np.float32))
    out_space = test.graph.output_space("preprocess")
    assert out_space == FloatBox(0.0, 1.5, add_batch_rank=True) and out_space.dtype == np.float32
    assert out.dtype == np.float32 and out.max() == out_space.high
    out_space.check(out)


def test_multiply_keeps_infinite_bounds_infinite(backend):
    space = Tuple(FloatBox(shape=(2,)), FloatBox(-1.0, np.inf, shape=(2,)), IntBox(shape=(2,)), add_batch_rank=True)
    test = ComponentTest(Multiply(-2.0), input_spaces={"inputs": space}, backend=backend)
    x = space.sample(3, seed=6)
    test.test(("preprocess", x), expected_outputs=scaled(x, -2.0))
    assert test.graph.output_space("preprocess") == \
        Tuple(FloatBox(shape=(2,)), FloatBox(-np.inf, 2.0, shape=(2,)), FloatBox(shape=(2,)), add_batch_rank=True)
    zero = ComponentTest(Multiply(0.0), input_spaces={"inputs": space}, backend=backend)  # inf * 0: all values 0
    assert zero.graph.output_space("preprocess") == \
        Tuple(*[FloatBox(0.0, 0.0, shape=(2,))] * 3, add_batch_rank=True)


def test_multiply_with_per_element_bounds(backend):
    space = FloatBox(0.0, [1.0, 2.0, 4.0], add_batch_rank=True)  # low is stored as a scalar, high per element
    test = ComponentTest(Multiply(-0.5), input_spaces={"inputs": space}, backend=backend)
    x = space.sample(20, seed=7)
    out = test.test(("preprocess", x), expected_outputs=x * -0.5)
    out_space = test.graph.output_space("preprocess")
    assert out_space == FloatBox([-0.5, -1.0, -2.0], 0.0, add_batch_rank=True)
    out_space.check(out)


@pytest.mark.parametrize("factor", [0.1, -0.1, 1 / 3, 0.7, -1e-3])
def test_multiply_int_bounds_hold_the_float32_values(backend, factor):
    # 99 * 0.1 is 9.900001 in float32 (above float32(9.9)): the bounds must round as the backend's values do
    space = IntBox(-100, 100, add_batch_rank=True)
    test = ComponentTest(Multiply(factor), input_spaces={"inputs": space}, backend=backend)
    out = test.test(("preprocess", np.arange(-100, 100)), expected_outputs=np.arange(-100, 100) * factor)
    out_space = test.graph.output_space("preprocess")
    out_space.check(out)
    assert {out_space.low.item(), out_space.high.item()} == {out.min().item(), out.max().item()}


def test_divide_by_zero_is_a_config_error(backend):
    with pytest.raises(ConfigError) as info:
        Divide(0, name="scale")
    assert info.value.component == "scale" and info.value.got == 0
