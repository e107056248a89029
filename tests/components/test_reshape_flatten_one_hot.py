"""Reshape, Flatten and OneHot: core shapes change, batch/time ranks stay; numbers against NumPy."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rlworkbench import Component, api
from rlworkbench.components import Flatten, OneHot, Reshape
from rlworkbench.errors import SpaceError
from rlworkbench.spaces import BoolBox, Dict, FloatBox, IntBox, Tuple
from rlworkbench.testing import ComponentTest

RANKS = [
    (4, {"add_batch_rank": True}),
    ((3, 2), {"add_batch_rank": True, "add_time_rank": True}),
    ((3, 2), {"add_batch_rank": True, "add_time_rank": True, "time_major": True}),
]
RANK_IDS = ["batch", "batch+time", "time+batch"]


def leading(x: np.ndarray, ranks: dict) -> tuple[int, ...]:
    return x.shape[: sum(bool(ranks.get(k)) for k in ("add_batch_rank", "add_time_rank"))]


# ----- Reshape ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("size, ranks", RANKS, ids=RANK_IDS)
def test_reshape_box(backend, size, ranks):
    space = FloatBox(shape=(2, 3, 2), **ranks)
    test = ComponentTest(Reshape((3, 4)), input_spaces={"inputs": space}, backend=backend)
    x = space.sample(size, seed=1)
    test.test(("preprocess", x), expected_outputs=x.reshape(leading(x, ranks) + (3, 4)))
    assert test.graph.output_space("preprocess") == FloatBox(shape=(3, 4), **ranks)


@pytest.mark.parametrize("size, ranks", RANKS, ids=RANK_IDS)
def test_reshape_nested(backend, size, ranks):
    space = Dict(a=FloatBox(shape=(2, 3)), b=Tuple(FloatBox(shape=(6,)), IntBox(5, shape=(3, 2))), **ranks)
    test = ComponentTest(Reshape((6, 1)), input_spaces={"inputs": space}, backend=backend)
    x = space.sample(size, seed=2)
    lead = leading(x["a"], ranks)
    expected = {"a": x["a"].reshape(lead + (6, 1)),
                "b": (x["b"][0].reshape(lead + (6, 1)), x["b"][1].reshape(lead + (6, 1)))}
    test.test(("preprocess", x), expected_outputs=expected)
    out = test.graph.output_space("preprocess")
    assert [(leaf.shape, leaf.dtype) for leaf in out.flatten().values()] == \
        [((6, 1), np.float32), ((6, 1), np.float32), ((6, 1), np.int64)]
    assert all(leaf._rank_key() == space._rank_key() for leaf in out.flatten().values())
    assert out["b"][1] == IntBox(5, shape=(6, 1), **ranks)  # the categories survive the reshape


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(core=st.lists(st.integers(1, 4), min_size=1, max_size=3), batch=st.integers(1, 3), time=st.integers(1, 3),
       with_time=st.booleans())
def test_reshape_to_flat_and_back_is_numpy_reshape(backend, core, batch, time, with_time):
    ranks = {"add_batch_rank": True, "add_time_rank": with_time}
    space = FloatBox(shape=tuple(core), **ranks)
    flat = ComponentTest(Reshape((int(np.prod(core)),)), input_spaces={"inputs": space}, backend=backend)
    x = space.sample((batch, time) if with_time else batch, seed=3)
    lead = leading(x, ranks)
    out = flat.test(("preprocess", x), expected_outputs=x.reshape(lead + (-1,)))
    back = ComponentTest(Reshape(core), input_spaces={"inputs": flat.graph.output_space("preprocess")},
                         backend=backend)
    back.test(("preprocess", out), expected_outputs=x)


def test_reshape_that_changes_the_element_count_is_a_space_error(backend):
    with pytest.raises(SpaceError) as info:
        ComponentTest(Reshape((4,)), input_spaces={"inputs": FloatBox(shape=(2, 3), add_batch_rank=True)},
                      backend=backend)
    assert info.value.component == "reshape" and "6 elements" in str(info.value)


def test_reshape_error_names_the_leaf(backend):
    space = Dict(ok=FloatBox(shape=(6,)), bad=Tuple(FloatBox(shape=(2, 2))), add_batch_rank=True)
    with pytest.raises(SpaceError) as info:
        ComponentTest(Reshape((3, 2)), input_spaces={"inputs": space}, backend=backend)
    assert info.value.key_path == "bad/0" and "bad/0" in str(info.value)


# ----- Flatten ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("size, ranks", RANKS, ids=RANK_IDS)
def test_flatten_box(backend, size, ranks):
    space = FloatBox(shape=(2, 3, 2), **ranks)
    test = ComponentTest(Flatten(), input_spaces={"inputs": space}, backend=backend)
    x = space.sample(size, seed=4)
    test.test(("preprocess", x), expected_outputs=x.reshape(leading(x, ranks) + (12,)))
    assert test.graph.output_space("preprocess") == FloatBox(shape=(12,), **ranks)


@pytest.mark.parametrize("size, ranks", RANKS, ids=RANK_IDS)
def test_flatten_nested_with_categories(backend, size, ranks):
    space = Dict(img=FloatBox(shape=(2, 2)), act=IntBox(3, shape=(2,)), flags=BoolBox((2, 2)), **ranks)
    test = ComponentTest(Flatten(), input_spaces={"inputs": space}, backend=backend)
    x = space.sample(size, seed=5)
    lead = leading(x["img"], ranks)
    expected = {"img": x["img"].reshape(lead + (4,)), "act": np.eye(3, dtype=np.float32)[x["act"]].reshape(lead + (6,)),
                "flags": x["flags"].reshape(lead + (4,))}
    test.test(("preprocess", x), expected_outputs=expected)
    out = test.graph.output_space("preprocess")
    assert out["img"] == FloatBox(shape=(4,), **ranks) and out["act"] == FloatBox(0.0, 1.0, shape=(6,), **ranks)
    assert out["flags"] == BoolBox((4,), **ranks)


def test_flatten_without_categories_keeps_ints(backend):
    space = Tuple(IntBox(3, shape=(2, 2)), FloatBox(shape=(3, 1)), add_batch_rank=True)
    test = ComponentTest(Flatten(flatten_categories=False), input_spaces={"inputs": space}, backend=backend)
    x = space.sample(5, seed=6)
    out = test.test(("preprocess", x), expected_outputs=(x[0].reshape(5, 4), x[1].reshape(5, 3)))
    assert out[0].dtype == np.int64
    assert [(leaf.shape, leaf.dtype) for leaf in test.graph.output_space("preprocess")] == \
        [((4,), np.int64), ((3,), np.float32)]
    assert test.graph.output_space("preprocess")[0] == IntBox(3, shape=(4,), add_batch_rank=True)


def test_flatten_of_unbounded_ints_with_categories_is_a_space_error(backend):
    with pytest.raises(SpaceError) as info:
        ComponentTest(Flatten(), input_spaces={"inputs": Dict(n=IntBox(shape=(2,)), add_batch_rank=True)},
                      backend=backend)
    assert info.value.key_path == "n" and info.value.component == "flatten"


class _FlattenThenOneHot(Component):
    def __init__(self) -> None:
        super().__init__(Flatten(flatten_categories=False), OneHot(), name="flatten_one_hot")

    @api
    def preprocess(self, inputs):
        return self.sub_components["one_hot"].preprocess(self.sub_components["flatten"].preprocess(inputs))


def test_int_bounds_survive_flatten_so_one_hot_can_follow(backend):
    space = IntBox(3, shape=(2, 2), add_batch_rank=True)
    test = ComponentTest(_FlattenThenOneHot(), input_spaces={"inputs": space}, backend=backend)
    x = space.sample(4, seed=7)
    test.test(("preprocess", x), expected_outputs=np.eye(3, dtype=np.float32)[x.reshape(4, 4)])
    assert test.graph.output_space("preprocess") == FloatBox(0.0, 1.0, shape=(4, 3), add_batch_rank=True)


class _ReshapeThenOneHot(Component):
    def __init__(self) -> None:
        super().__init__(Reshape((6,)), OneHot(), name="reshape_one_hot")

    @api
    def preprocess(self, inputs):
        return self.sub_components["one_hot"].preprocess(self.sub_components["reshape"].preprocess(inputs))


def test_reshape_declares_int_bounds(backend):
    space = IntBox(5, shape=(2, 3), add_batch_rank=True)
    test = ComponentTest(Reshape((6,)), input_spaces={"inputs": space}, backend=backend)
    x = space.sample(4, seed=11)
    out = test.test(("preprocess", x), expected_outputs=x.reshape(4, 6))
    out_space = test.graph.output_space("preprocess")
    assert out_space == IntBox(5, shape=(6,), add_batch_rank=True) and out_space.num_categories == 5
    assert out.dtype == np.int64
    out_space.check(out)


def test_reshape_of_ints_then_one_hot(backend):
    space = IntBox(5, shape=(2, 3), add_batch_rank=True)
    test = ComponentTest(_ReshapeThenOneHot(), input_spaces={"inputs": space}, backend=backend)
    x = space.sample(4, seed=12)
    out = test.test(("preprocess", x), expected_outputs=np.eye(5, dtype=np.float32)[x.reshape(4, 6)])
    assert out.dtype == np.float32 and np.all(out.sum(axis=-1) == 1)
    assert test.graph.output_space("preprocess") == FloatBox(0.0, 1.0, shape=(6, 5), add_batch_rank=True)


def test_reshape_keeps_per_element_bounds(backend):
    space = FloatBox([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]], 10.0, add_batch_rank=True)
    test = ComponentTest(Reshape((3, 2)), input_spaces={"inputs": space}, backend=backend)
    x = space.sample(3, seed=13)
    out = test.test(("preprocess", x), expected_outputs=x.reshape(3, 3, 2))
    out_space = test.graph.output_space("preprocess")
    assert out_space == FloatBox([[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]], 10.0, add_batch_rank=True)
    out_space.check(out)


# ----- OneHot ----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("size, ranks", RANKS, ids=RANK_IDS)
def test_one_hot_box(backend, size, ranks):
    space = IntBox(4, shape=(2,), **ranks)
    test = ComponentTest(OneHot(), input_spaces={"inputs": space}, backend=backend)
    x = space.sample(size, seed=8)
    out = test.test(("preprocess", x), expected_outputs=np.eye(4, dtype=np.float32)[x])
    assert out.dtype == np.float32 and np.all(out.sum(axis=-1) == 1)
    assert test.graph.output_space("preprocess") == FloatBox(0.0, 1.0, shape=(2, 4), **ranks)


def test_one_hot_scalar_ints_with_offset(backend):
    space = IntBox(2, 7, add_batch_rank=True)  # categories 2 ... 6
    test = ComponentTest(OneHot(), input_spaces={"inputs": space}, backend=backend)
    x = space.sample(20, seed=9)
    test.test(("preprocess", x), expected_outputs=np.eye(5, dtype=np.float32)[x - 2])
    assert test.graph.output_space("preprocess") == FloatBox(0.0, 1.0, shape=(5,), add_batch_rank=True)


def test_one_hot_nested(backend):
    space = Dict(a=IntBox(3), b=Tuple(IntBox(5, shape=(2,)), IntBox(-1, 1)), add_batch_rank=True, add_time_rank=True)
    test = ComponentTest(OneHot(), input_spaces={"inputs": space}, backend=backend)
    x = space.sample((2, 3), seed=10)
    expected = {"a": np.eye(3)[x["a"]], "b": (np.eye(5)[x["b"][0]], np.eye(2)[x["b"][1] + 1])}
    test.test(("preprocess", x), expected_outputs=expected)
    out = test.graph.output_space("preprocess")
    assert [leaf.shape for leaf in out.flatten().values()] == [(3,), (2, 5), (2,)]
    ranks = {"add_batch_rank": True, "add_time_rank": True}
    assert out == Dict(a=FloatBox(0.0, 1.0, shape=(3,)),
                       b=Tuple(FloatBox(0.0, 1.0, shape=(2, 5)), FloatBox(0.0, 1.0, shape=(2,))), **ranks)


@pytest.mark.parametrize("leaf", [FloatBox(shape=(2,)), IntBox(shape=(2,)), IntBox([0, 0], [2, 3])],
                         ids=["float", "unbounded", "per-element-bounds"])
def test_one_hot_needs_bounded_scalar_int_categories(backend, leaf):
    space = Dict(good=IntBox(3), bad=leaf, add_batch_rank=True)
    with pytest.raises(SpaceError) as info:
        ComponentTest(OneHot(), input_spaces={"inputs": space}, backend=backend)
    assert info.value.key_path == "bad" and info.value.component == "one_hot"
