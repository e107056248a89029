"""Conversion between Gymnasium spaces and ours, both ways."""

import gymnasium as gym
import numpy as np
import pytest

from rlworkbench.errors import SpaceError
from rlworkbench.spaces import BoolBox, Dict, FloatBox, IntBox, TextBox, Tuple, from_gymnasium, to_gymnasium

gs = gym.spaces


def assert_gym_samples_contained(gym_space, ours, n=20):
    gym_space.seed(0)
    for _ in range(n):
        sample = gym_space.sample()
        assert ours.contains(sample), (gym_space, ours, sample)


# ----- gymnasium → ours -------------------------------------------------------------------------------------
def test_float_box():
    ours = from_gymnasium(gs.Box(-1.0, 2.0, shape=(3,), dtype=np.float32))
    assert ours == FloatBox(-1.0, 2.0, shape=(3,))
    assert_gym_samples_contained(gs.Box(-1.0, 2.0, shape=(3,), dtype=np.float32), ours)
    per_element = gs.Box(np.array([0.0, -np.inf]), np.array([1.0, 5.0]), dtype=np.float64)
    ours = from_gymnasium(per_element)
    assert ours.dtype == np.float64 and ours.shape == (2,)
    np.testing.assert_array_equal(ours.low, [0.0, -np.inf])
    assert_gym_samples_contained(per_element, ours)


def test_int_box_high_becomes_exclusive():
    gym_space = gs.Box(-2, 5, shape=(2, 2), dtype=np.int32)
    ours = from_gymnasium(gym_space)
    assert isinstance(ours, IntBox) and ours.dtype == np.int32 and ours.shape == (2, 2)
    assert ours.low == -2 and ours.high == 6
    assert np.full((2, 2), 5, np.int32) in ours and np.full((2, 2), 6, np.int32) not in ours
    assert_gym_samples_contained(gym_space, ours)


def test_bool_box():
    gym_space = gs.Box(0, 1, shape=(3,), dtype=np.bool_)
    assert from_gymnasium(gym_space) == BoolBox((3,))
    assert_gym_samples_contained(gym_space, BoolBox((3,)))


def test_discrete_with_start():
    ours = from_gymnasium(gs.Discrete(4, start=-2))
    assert ours == IntBox(-2, 2) and ours.num_categories == 4 and ours.shape == ()
    assert_gym_samples_contained(gs.Discrete(4, start=-2), ours)
    assert from_gymnasium(gs.Discrete(3)) == IntBox(3)


def test_discrete_keeps_dtype():
    ours = from_gymnasium(gs.Discrete(3, dtype=np.int32))
    assert ours.dtype == np.int32
    assert_gym_samples_contained(gs.Discrete(3, dtype=np.int32), ours)


def test_multi_discrete():
    gym_space = gs.MultiDiscrete([3, 5], start=[1, -1])
    ours = from_gymnasium(gym_space)
    assert ours.shape == (2,) and ours.dtype == np.int64
    np.testing.assert_array_equal(ours.low, [1, -1])
    np.testing.assert_array_equal(ours.high, [4, 4])
    assert_gym_samples_contained(gym_space, ours)
    assert from_gymnasium(gs.MultiDiscrete([4, 4])) == IntBox(4, shape=(2,))
    nd = gs.MultiDiscrete(np.array([[2, 3], [4, 5]]))
    assert from_gymnasium(nd).shape == (2, 2)
    assert_gym_samples_contained(nd, from_gymnasium(nd))


def test_multi_binary_is_an_int8_box_of_zeros_and_ones():
    ours = from_gymnasium(gs.MultiBinary(5))
    assert ours == IntBox(0, 2, shape=(5,), dtype=np.int8)
    assert_gym_samples_contained(gs.MultiBinary(5), ours)
    assert from_gymnasium(gs.MultiBinary([2, 3])).shape == (2, 3)


def test_text():
    gym_space = gs.Text(max_length=6, min_length=1, charset="abc")
    ours = from_gymnasium(gym_space)
    assert ours == TextBox(min_length=1, max_length=6, charset="abc")
    assert_gym_samples_contained(gym_space, ours)
    default = from_gymnasium(gs.Text(5))
    assert_gym_samples_contained(gs.Text(5), default)


def test_dict_and_tuple_nested():
    gym_space = gs.Dict({
        "obs": gs.Dict({"image": gs.Box(0, 255, (4, 4, 3), np.uint8), "vec": gs.Box(-1.0, 1.0, (2,))}),
        "act": gs.Tuple((gs.Discrete(3), gs.MultiBinary(2))),
    })
    ours = from_gymnasium(gym_space)
    assert isinstance(ours, Dict) and isinstance(ours["act"], Tuple)
    assert set(ours.flatten()) == {"obs/image", "obs/vec", "act/0", "act/1"}
    assert ours["obs"]["image"] == IntBox(0, 256, shape=(4, 4, 3), dtype=np.uint8)
    assert ours["act"][0] == IntBox(3)
    assert_gym_samples_contained(gym_space, ours)


def test_ranks_are_added_on_request():
    ours = from_gymnasium(gs.Dict({"a": gs.Discrete(2), "b": gs.Box(0.0, 1.0, (2,))}), add_batch_rank=True,
                          add_time_rank=True, time_major=True)
    assert all(leaf.has_batch_rank and leaf.has_time_rank and leaf.time_major for leaf in ours.flatten().values())
    assert ours.sample(size=(4, 3), seed=0)["b"].shape == (3, 4, 2)
    assert ours.sample(size=(4, 3), seed=0) in ours


def test_unsupported_space_names_the_key_path():
    with pytest.raises(SpaceError) as info:
        from_gymnasium(gs.Dict({"ok": gs.Discrete(2), "seq": gs.Tuple((gs.Discrete(2), gs.Sequence(gs.Discrete(2))))}))
    assert info.value.key_path == "seq/1" and "Sequence" in info.value.got
    assert "cannot convert" in str(info.value)
    with pytest.raises(SpaceError) as info:
        from_gymnasium(gs.Graph(node_space=gs.Box(0.0, 1.0, (2,)), edge_space=None))
    assert info.value.key_path is None


# ----- ours → gymnasium -------------------------------------------------------------------------------------
def test_to_gymnasium_leaves():
    assert to_gymnasium(FloatBox(-1.0, 1.0, shape=(2,))) == gs.Box(-1.0, 1.0, (2,), np.float32)
    assert to_gymnasium(FloatBox(shape=(2,), dtype=np.float64)) == gs.Box(-np.inf, np.inf, (2,), np.float64)
    assert to_gymnasium(IntBox(3)) == gs.Discrete(3)
    assert to_gymnasium(IntBox(-1, 2, dtype=np.int32)) == gs.Discrete(3, start=-1, dtype=np.int32)
    assert to_gymnasium(IntBox(3, shape=(2,))) == gs.MultiDiscrete([3, 3])
    assert to_gymnasium(IntBox([1, 0], [4, 2])) == gs.MultiDiscrete([3, 2], start=[1, 0])
    assert to_gymnasium(IntBox(0, 2, shape=(4,), dtype=np.int8)) == gs.MultiBinary(4)
    assert to_gymnasium(IntBox(0, 2, shape=(2, 3), dtype=np.int8)) == gs.MultiBinary([2, 3])
    assert to_gymnasium(BoolBox((2,))) == gs.Box(0, 1, (2,), np.bool_)
    assert to_gymnasium(TextBox(min_length=1, max_length=3, charset="xy")) == gs.Text(3, min_length=1, charset="xy")


def test_to_gymnasium_unbounded_int_box_is_an_int_box_over_the_dtype():
    info = np.iinfo(np.int64)
    assert to_gymnasium(IntBox(shape=(2,))) == gs.Box(info.min, info.max, (2,), np.int64)
    assert to_gymnasium(IntBox()) == gs.Box(info.min, info.max, (), np.int64)
    assert to_gymnasium(IntBox(0, np.inf, shape=(2,), dtype=np.int16)) == gs.Box(0, 32767, (2,), np.int16)


def test_to_gymnasium_int_box_whose_categories_do_not_fit_the_dtype():
    # a uint8 image in [0, 256) has 256 categories per pixel: a MultiDiscrete of uint8 cannot say so
    assert to_gymnasium(IntBox(0, 256, shape=(2, 2), dtype=np.uint8)) == gs.Box(0, 255, (2, 2), np.uint8)
    assert to_gymnasium(IntBox(-100, 101, dtype=np.int8)) == gs.Box(-100, 100, (), np.int8)


def test_to_gymnasium_drops_ranks():
    assert to_gymnasium(FloatBox(0.0, 1.0, shape=(2,), add_batch_rank=True)) == gs.Box(0.0, 1.0, (2,), np.float32)


def test_to_gymnasium_containers():
    ours = Dict(a=IntBox(2), b=Tuple(FloatBox(0.0, 1.0, shape=(2,)), BoolBox()))
    gym_space = to_gymnasium(ours)
    assert gym_space == gs.Dict({"a": gs.Discrete(2), "b": gs.Tuple((gs.Box(0.0, 1.0, (2,), np.float32),
                                                                     gs.Box(0, 1, (), np.bool_)))})
    assert_gym_samples_contained(gym_space, ours)


def test_to_gymnasium_refuses_a_shaped_text_box():
    with pytest.raises(SpaceError):
        to_gymnasium(TextBox((2,)))


# ----- round trips ------------------------------------------------------------------------------------------
GYM_SPACES = [
    gs.Box(-1.0, 2.0, (3,), np.float32),
    gs.Box(np.array([-1.0, -np.inf]), np.array([np.inf, 0.5]), dtype=np.float64),
    gs.Box(0.0, 1.0, (), np.float32),
    gs.Box(0, 1, (2, 2), np.bool_),
    gs.Discrete(5),
    gs.Discrete(3, start=-1, dtype=np.int32),
    gs.MultiDiscrete([2, 3, 4]),
    gs.MultiDiscrete([2, 3], start=[-5, 5], dtype=np.int32),
    gs.MultiBinary(6),
    gs.MultiBinary([2, 2]),
    gs.Text(4, min_length=2, charset="01"),
    gs.Box(0, 255, (3, 3), np.uint8),
    gs.Box(-100, 100, (2,), np.int8),
    gs.Box(np.iinfo(np.int64).min, np.iinfo(np.int64).max, (2,), np.int64),
    gs.Dict({"x": gs.Tuple((gs.Discrete(2), gs.Box(-1.0, 1.0, (2,)))), "y": gs.MultiBinary(3)}),
    gs.Tuple((gs.Dict({"deep": gs.Dict({"deeper": gs.Discrete(7)})}), gs.Text(3))),
]


@pytest.mark.parametrize("gym_space", GYM_SPACES, ids=repr)
def test_gymnasium_round_trip_is_identity(gym_space):
    ours = from_gymnasium(gym_space)
    assert to_gymnasium(ours) == gym_space
    assert from_gymnasium(to_gymnasium(ours)) == ours
    assert_gym_samples_contained(gym_space, ours)
    assert_gym_samples_contained(to_gymnasium(ours), ours)


def test_int_box_comes_back_as_the_equivalent_multi_discrete():
    gym_space = gs.Box(np.array([0, -2]), np.array([3, 2]), dtype=np.int64)
    back = to_gymnasium(from_gymnasium(gym_space))
    assert back == gs.MultiDiscrete([4, 5], start=[0, -2])
    assert_gym_samples_contained(gym_space, from_gymnasium(back))
    back.seed(0)
    for _ in range(20):
        assert gym_space.contains(back.sample())
    assert to_gymnasium(from_gymnasium(gs.Box(0, 3, (), np.int64))) == gs.Discrete(4)


OURS = [
    FloatBox(-2.0, 3.0, shape=(2, 1)),
    FloatBox(shape=(3,), dtype=np.float64),
    IntBox(4),
    IntBox(1, 9, shape=(2,), dtype=np.int16),
    IntBox(0, 2, shape=(3,), dtype=np.int8),
    BoolBox((2,)),
    TextBox(min_length=1, max_length=4),
    Dict(a=Tuple(IntBox(2), FloatBox(0.0, 1.0)), b=Dict(c=BoolBox())),
]


@pytest.mark.parametrize("ours", OURS, ids=repr)
def test_our_round_trip_is_identity(ours):
    gym_space = to_gymnasium(ours)
    assert from_gymnasium(gym_space) == ours
    assert_gym_samples_contained(gym_space, ours)
    for value in [ours.sample(seed=s) for s in range(5)]:
        if not isinstance(ours, (Dict, TextBox)):  # gymnasium wants a str for Text and mappings for Dict
            assert gym_space.contains(value), (ours, value)


def test_unbounded_int_box_comes_back_bounded_by_its_dtype():
    info = np.iinfo(np.int64)
    back = from_gymnasium(to_gymnasium(IntBox(shape=(2,))))
    assert back.shape == (2,) and back.dtype == np.int64
    assert back.low == info.min and back.high == 2.0**63  # the same set of int64 values
    assert np.array([info.min, info.max]) in back
    assert to_gymnasium(back) == to_gymnasium(IntBox(shape=(2,)))
    assert back.with_batch_rank().sample(100, seed=0) in back.with_batch_rank()
