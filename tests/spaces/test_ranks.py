"""Batch and time ranks: declaring them, copying with and without them, shapes, sampling and checking."""

import numpy as np
import pytest

from rlworkbench.errors import SpaceError
from rlworkbench.spaces import BoolBox, Dict, FloatBox, IntBox, TextBox, Tuple


def test_no_ranks_by_default():
    box = FloatBox(shape=(3,))
    assert not box.has_batch_rank and not box.has_time_rank and not box.time_major
    assert box.num_extra_ranks == 0
    assert box.get_shape(with_batch_rank=True, with_time_rank=True) == (3,)


def test_declared_ranks():
    box = FloatBox(shape=(3,), add_batch_rank=True, add_time_rank=True)
    assert box.has_batch_rank and box.has_time_rank and not box.time_major and box.num_extra_ranks == 2
    assert box.shape == (3,) and box.rank == 1 and box.flat_dim == 3  # core shape only


@pytest.mark.parametrize("time_major, expected", [(False, (None, None, 3)), (True, (None, None, 3))])
def test_get_shape_placeholders(time_major, expected):
    box = FloatBox(shape=(3,), add_batch_rank=True, add_time_rank=True, time_major=time_major)
    assert box.get_shape() == (3,)
    assert box.get_shape(with_batch_rank=True) == (None, 3)
    assert box.get_shape(with_time_rank=True) == (None, 3)
    assert box.get_shape(with_batch_rank=True, with_time_rank=True) == expected


def test_get_shape_orders_batch_major_and_time_major():
    batch_major = IntBox(4, shape=(2,), add_batch_rank=True, add_time_rank=True)
    assert batch_major.get_shape(with_batch_rank=8, with_time_rank=5) == (8, 5, 2)
    assert batch_major.get_shape(with_batch_rank=8, with_time_rank=True) == (8, None, 2)
    time_major = batch_major.with_time_rank(time_major=True)
    assert time_major.time_major
    assert time_major.get_shape(with_batch_rank=8, with_time_rank=5) == (5, 8, 2)
    assert time_major.get_shape(with_batch_rank=True, with_time_rank=5) == (5, None, 2)
    assert time_major.get_shape(with_batch_rank=8) == (8, 2)


def test_get_shape_ignores_ranks_the_space_does_not_declare():
    only_batch = FloatBox(shape=(2,), add_batch_rank=True)
    assert only_batch.get_shape(with_batch_rank=4, with_time_rank=9) == (4, 2)
    only_time = FloatBox(shape=(2,), add_time_rank=True)
    assert only_time.get_shape(with_batch_rank=4, with_time_rank=9) == (9, 2)


def test_with_batch_rank_and_with_time_rank_return_copies():
    box = FloatBox(0.0, 1.0, shape=(2,))
    batched = box.with_batch_rank()
    assert batched is not box and batched.has_batch_rank and not box.has_batch_rank
    assert batched.shape == box.shape and batched.low == box.low and batched.high == box.high
    timed = batched.with_time_rank()
    assert timed.has_batch_rank and timed.has_time_rank and not timed.time_major
    assert timed.with_time_rank(time_major=True).time_major
    assert timed.with_time_rank(time_major=True).with_time_rank().time_major  # None keeps time_major
    assert not timed.with_batch_rank(False).has_batch_rank and timed.with_batch_rank(False).has_time_rank
    assert not timed.with_time_rank(False).has_time_rank
    assert batched.with_batch_rank() == batched and box.with_batch_rank(False) == box


def test_strip_ranks():
    box = IntBox(3, add_batch_rank=True, add_time_rank=True, time_major=True)
    stripped = box.strip_ranks()
    assert stripped == IntBox(3) and stripped.num_extra_ranks == 0 and not stripped.time_major
    assert box.has_batch_rank  # the original is untouched


def test_ranks_change_equality_and_hash():
    spaces = [FloatBox(shape=(2,)), FloatBox(shape=(2,), add_batch_rank=True), FloatBox(shape=(2,), add_time_rank=True),
              FloatBox(shape=(2,), add_batch_rank=True, add_time_rank=True),
              FloatBox(shape=(2,), add_batch_rank=True, add_time_rank=True, time_major=True)]
    assert len(set(spaces)) == len(spaces)
    assert all(a != b for i, a in enumerate(spaces) for b in spaces[i + 1:])
    assert spaces[4] == FloatBox(shape=(2,)).with_batch_rank().with_time_rank(time_major=True)


# ----- containers propagate ranks to their leaves -----------------------------------------------------------
def nested(**ranks) -> Dict:
    return Dict(a=FloatBox(shape=(2,)), b=Tuple(IntBox(3), Dict(c=BoolBox((4,)))), **ranks)


def test_container_ranks_reach_every_leaf():
    space = nested(add_batch_rank=True, add_time_rank=True, time_major=True)
    assert space.has_batch_rank and space.has_time_rank and space.time_major
    for leaf in space.flatten().values():
        assert leaf.has_batch_rank and leaf.has_time_rank and leaf.time_major
    assert space["b"].has_batch_rank and space["b"][1].time_major  # inner containers too
    assert space.get_shape(with_batch_rank=2, with_time_rank=7) == {"a": (7, 2, 2), "b": ((7, 2), {"c": (7, 2, 4)})}


def test_container_with_rank_copies_propagate():
    space = nested()
    batched = space.with_batch_rank()
    assert batched.has_batch_rank and all(leaf.has_batch_rank for leaf in batched.flatten().values())
    assert not any(leaf.has_batch_rank for leaf in space.flatten().values())  # the original is untouched
    timed = batched.with_time_rank(time_major=True)
    assert all(leaf.has_time_rank and leaf.time_major and leaf.has_batch_rank for leaf in timed.flatten().values())
    stripped = timed.strip_ranks()
    assert stripped == space and stripped.num_extra_ranks == 0
    assert not any(leaf.num_extra_ranks for leaf in stripped.flatten().values())
    assert batched == nested(add_batch_rank=True) and hash(batched) == hash(nested(add_batch_rank=True))


def test_container_takes_the_ranks_of_its_ranked_children():
    space = Tuple(FloatBox(add_batch_rank=True), IntBox(2, add_batch_rank=True))
    assert space.has_batch_rank and not space.has_time_rank
    assert space == Tuple(FloatBox(), IntBox(2), add_batch_rank=True)


def test_map_keeps_ranks_when_fn_does():
    space = nested(add_batch_rank=True)
    mapped = space.map(lambda leaf: leaf)
    assert mapped == space and mapped.has_batch_rank


def test_one_hot_keeps_ranks():
    one_hot = IntBox(3, add_time_rank=True, add_batch_rank=True, time_major=True).as_one_hot_float_space()
    assert one_hot.has_batch_rank and one_hot.has_time_rank and one_hot.time_major


# ----- sampling with ranks ----------------------------------------------------------------------------------
def test_container_sample_sizes():
    space = nested(add_batch_rank=True, add_time_rank=True)
    value = space.sample(size=(3, 5), seed=0)
    assert value["a"].shape == (3, 5, 2) and value["b"][0].shape == (3, 5) and value["b"][1]["c"].shape == (3, 5, 4)
    assert value in space
    major = nested(add_batch_rank=True, add_time_rank=True, time_major=True)
    value = major.sample(size=(3, 5), seed=0)
    assert value["a"].shape == (5, 3, 2) and value["b"][1]["c"].shape == (5, 3, 4)
    assert value in major
    batched = nested(add_batch_rank=True)
    assert batched.sample(size=4, seed=0)["b"][1]["c"].shape == (4, 4)


def test_zeros_with_ranks():
    major = FloatBox(shape=(2,), add_batch_rank=True, add_time_rank=True, time_major=True)
    assert major.zeros(size=(3, 5)).shape == (5, 3, 2)
    assert major.zeros(size=7).shape == (7, 2)
    assert major.zeros().shape == (2,)


# ----- contains: no leading ranks, or exactly the declared ones ---------------------------------------------
@pytest.mark.parametrize("box", [FloatBox(0.0, 1.0, shape=(2,)), IntBox(3, shape=(2,)), BoolBox((2,)),
                                 TextBox((2,), max_length=3)], ids=repr)
def test_contains_accepts_no_ranks_or_exactly_the_declared_ranks(box):
    core = box.sample(seed=0)
    assert core in box
    assert box.with_batch_rank().sample(4, seed=0) not in box

    batched = box.with_batch_rank()
    assert core in batched
    assert batched.sample(size=4, seed=0) in batched
    assert batched.sample(size=1, seed=0) in batched
    assert box.with_batch_rank().with_time_rank().sample((4, 3), seed=0) not in batched

    both = box.with_batch_rank().with_time_rank()
    assert core in both
    assert both.sample((4, 3), seed=0) in both
    assert batched.sample(size=4, seed=0) not in both  # one leading rank of two declared does not fit


def test_contains_checks_the_core_shape_behind_the_ranks():
    box = FloatBox(shape=(2,), add_batch_rank=True)
    assert np.zeros((5, 2), np.float32) in box
    assert np.zeros((5, 3), np.float32) not in box
    assert np.zeros((2, 5), np.float32) not in box
    assert np.zeros((), np.float32) not in box
    with pytest.raises(SpaceError) as info:
        box.check(np.zeros((5, 2, 1), np.float32))
    assert info.value.expected == "(?, 2)" and info.value.got == "(5, 2, 1)"


def test_shape_error_shows_both_ranks_in_declared_order():
    with pytest.raises(SpaceError) as info:
        FloatBox(shape=(2,), add_batch_rank=True, add_time_rank=True, time_major=True).check(np.zeros((1,), np.float32))
    assert info.value.expected == "(?, ?, 2)"


def test_container_contains_with_ranks():
    space = nested(add_batch_rank=True)
    assert space.sample(size=6, seed=0) in space
    assert space.strip_ranks().sample(seed=0) in space
    bad = space.sample(size=6, seed=0)
    bad["b"][1]["c"] = np.zeros((6, 5), bool)
    with pytest.raises(SpaceError) as info:
        space.check(bad)
    assert info.value.key_path == "b/1/c" and info.value.expected == "(?, 4)" and info.value.got == "(6, 5)"


def test_sizes_without_declared_ranks_give_unranked_values_that_do_not_fit():
    box = FloatBox(shape=(2,))
    assert box.sample(size=3, seed=0).shape == (3, 2)
    assert box.sample(size=3, seed=0) not in box
