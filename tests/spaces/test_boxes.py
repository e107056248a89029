"""Leaf spaces: FloatBox, IntBox, BoolBox, TextBox — shape, dtype, bounds, sampling, zeros and checking."""

import pickle

import numpy as np
import pytest

from rlworkbench.errors import RLWorkbenchError, SpaceError
from rlworkbench.spaces import BoolBox, FloatBox, IntBox, TextBox


def space_error(space, value) -> SpaceError:
    with pytest.raises(SpaceError) as info:
        space.check(value)
    assert not space.contains(value) and value not in space
    return info.value


# ----- construction: shape, dtype, rank, flat_dim, bounds ---------------------------------------------------
def test_floatbox_defaults_are_unbounded_float32_scalars():
    box = FloatBox()
    assert box.shape == () and box.rank == 0 and box.flat_dim == 1
    assert box.dtype == np.float32
    assert box.low == -np.inf and box.high == np.inf and not box.is_bounded


def test_floatbox_shape_from_keyword_and_int():
    assert FloatBox(shape=(3, 4)).shape == (3, 4)
    assert FloatBox(shape=5).shape == (5,)
    box = FloatBox(shape=(3, 4))
    assert box.rank == 2 and box.flat_dim == 12


def test_floatbox_shape_from_array_bounds():
    box = FloatBox(np.zeros((2, 3)), np.ones((2, 3)))
    assert box.shape == (2, 3) and box.is_bounded
    box = FloatBox([0.0, -1.0], 1.0)  # broadcasting low and high
    assert box.shape == (2,)
    np.testing.assert_array_equal(box.low, [0.0, -1.0])
    assert float(box.high) == 1.0


def test_floatbox_positional_tuple_is_a_bound_not_a_shape():
    # the signature is (low, high, shape): a shape must be passed by keyword
    box = FloatBox((4,))
    assert box.shape == (1,) and float(box.low) == 4.0


def test_floatbox_dtype_is_kept():
    box = FloatBox(0.0, 1.0, shape=(2,), dtype=np.float64)
    assert box.dtype == np.float64
    assert box.sample(seed=0).dtype == np.float64


def test_floatbox_rejects_non_float_dtype():
    with pytest.raises(SpaceError):
        FloatBox(shape=(2,), dtype=np.int32)


def test_floatbox_bounds_mean_the_same_number_in_the_value_dtype():
    box = FloatBox(0.7, 0.9)  # float32: 0.7 is not exactly representable
    assert np.float32(0.7) in box and np.float32(0.9) in box
    sampled = box.with_batch_rank().sample(size=10_000, seed=3)
    assert sampled.min() >= np.float32(0.7) and sampled.max() <= np.float32(0.9)
    assert sampled in box.with_batch_rank()


def test_intbox_n_means_n_categories():
    box = IntBox(4)
    assert box.shape == () and box.dtype == np.int64
    assert box.low == 0 and box.high == 4 and box.num_categories == 4
    assert all(np.int64(v) in box for v in range(4))
    assert np.int64(4) not in box and np.int64(-1) not in box


def test_intbox_high_is_exclusive():
    box = IntBox(2, 5)
    assert box.num_categories == 3
    assert np.int64(2) in box and np.int64(4) in box and np.int64(5) not in box and np.int64(1) not in box


def test_intbox_high_only_starts_at_zero():
    box = IntBox(high=3, shape=(2,))
    assert box.low == 0 and box.high == 3 and box.shape == (2,)


def test_intbox_unbounded_and_per_element_bounds_have_no_num_categories():
    assert IntBox(shape=(2,)).num_categories is None
    assert not IntBox(shape=(2,)).is_bounded
    per_element = IntBox([0, 1], [3, 5])
    assert per_element.shape == (2,) and per_element.num_categories is None
    assert np.array([0, 4]) in per_element and np.array([0, 0]) not in per_element


def test_intbox_dtype_and_rejects_float_dtype():
    assert IntBox(3, dtype=np.uint8).dtype == np.uint8
    assert IntBox(3, dtype="int32").sample(seed=0).dtype == np.int32
    with pytest.raises(SpaceError):
        IntBox(3, dtype=np.float32)


def test_intbox_one_hot_float_space():
    box = IntBox(5, shape=(2,), add_batch_rank=True)
    one_hot = box.as_one_hot_float_space()
    assert isinstance(one_hot, FloatBox)
    assert one_hot.shape == (2, 5) and one_hot.dtype == np.float32
    assert one_hot.low == 0.0 and one_hot.high == 1.0
    assert one_hot.has_batch_rank and not one_hot.has_time_rank
    assert np.eye(5, dtype=np.float32)[box.sample(seed=0)] in one_hot


def test_intbox_one_hot_needs_categories():
    with pytest.raises(SpaceError) as info:
        IntBox(shape=(2,)).as_one_hot_float_space()
    assert "one-hot" in str(info.value)


def test_boolbox_and_textbox_basics():
    assert BoolBox((2, 2)).dtype == np.bool_ and BoolBox((2, 2)).flat_dim == 4
    assert BoolBox().shape == ()
    text = TextBox(min_length=1, max_length=3, charset="ab")
    assert text.shape == () and text.dtype == np.dtype(object)
    assert "ab" in text and "abc" not in text and "" not in text and "ba" in text


# ----- sampling --------------------------------------------------------------------------------------------
BOXES = [
    FloatBox(-1.0, 2.0, shape=(3,)),
    FloatBox(shape=(2, 2)),
    FloatBox(low=0.0, shape=(4,)),
    FloatBox(high=-3.0, shape=(4,)),
    IntBox(7, shape=(2,)),
    IntBox(-3, 3, dtype=np.int8),
    IntBox([0, 10], [2, 20]),
    IntBox(shape=(3,), dtype=np.uint8),
    BoolBox((2, 3)),
    TextBox(min_length=2, max_length=4, charset="xyz"),
]


@pytest.mark.parametrize("box", BOXES, ids=repr)
def test_sample_without_size_is_one_core_value(box):
    value = box.sample(seed=0)
    assert isinstance(value, np.ndarray)
    assert value.shape == box.shape and value.dtype == box.dtype
    assert value in box


@pytest.mark.parametrize("box", BOXES, ids=repr)
def test_sample_with_batch_size(box):
    batched = box.with_batch_rank()
    value = batched.sample(size=5, seed=0)
    assert value.shape == (5,) + box.shape and value.dtype == box.dtype
    assert value in batched
    assert value not in box  # no batch rank declared: a leading dim does not fit


@pytest.mark.parametrize("box", BOXES, ids=repr)
def test_sample_with_batch_and_time_size(box):
    ranked = box.with_batch_rank().with_time_rank()
    value = ranked.sample(size=(4, 3), seed=0)
    assert value.shape == (4, 3) + box.shape
    assert value in ranked
    major = box.with_batch_rank().with_time_rank(time_major=True)
    value = major.sample(size=(4, 3), seed=0)
    assert value.shape == (3, 4) + box.shape
    assert value in major


@pytest.mark.parametrize("box", BOXES, ids=repr)
def test_sample_is_deterministic_for_a_seed(box):
    batched = box.with_batch_rank()
    np.testing.assert_array_equal(batched.sample(8, seed=42), batched.sample(8, seed=42))
    rng_a, rng_b = np.random.default_rng(7), np.random.default_rng(7)
    np.testing.assert_array_equal(batched.sample(8, seed=rng_a), batched.sample(8, seed=rng_b))


def test_different_seeds_give_different_samples():
    box = FloatBox(0.0, 1.0, shape=(16,))
    assert not np.array_equal(box.sample(seed=1), box.sample(seed=2))


def test_sample_respects_bounds():
    box = FloatBox(-1.0, 2.0, shape=(3,), add_batch_rank=True)
    values = box.sample(2000, seed=0)
    assert values.min() >= -1.0 and values.max() <= 2.0 and values.min() < 0.0 < values.max()
    half = FloatBox(low=[0.0, -np.inf], high=[np.inf, 5.0], add_batch_rank=True).sample(500, seed=0)
    assert np.all(half[:, 0] >= 0.0) and np.all(half[:, 1] <= 5.0)
    ints = IntBox(3, 6, shape=(2,), add_batch_rank=True).sample(2000, seed=0)
    assert set(np.unique(ints)) == {3, 4, 5}


def test_intbox_sample_of_half_bounded_and_small_dtypes_stays_inside():
    cases = [IntBox(-np.inf, -5), IntBox(100, np.inf, dtype=np.int8), IntBox(0, 1000, dtype=np.uint8),
             IntBox(dtype=np.int16), IntBox(np.iinfo(np.int64).min, 2.0**63)]
    for box in cases:
        batched = box.with_batch_rank()
        assert batched.sample(200, seed=0) in batched, box


def test_boolbox_sample_has_both_values():
    values = BoolBox((50,)).sample(seed=0)
    assert values.dtype == np.bool_ and values.any() and not values.all()


def test_textbox_sample_lengths_and_charset():
    box = TextBox((10,), min_length=2, max_length=4, charset="xyz")
    values = box.sample(seed=3)
    assert values.shape == (10,) and values.dtype == object
    assert all(isinstance(v, str) and 2 <= len(v) <= 4 and set(v) <= set("xyz") for v in values)


# ----- zeros -----------------------------------------------------------------------------------------------
def test_zeros():
    z = FloatBox(shape=(2, 3)).zeros()
    assert z.shape == (2, 3) and z.dtype == np.float32 and not z.any()
    z = IntBox(4, dtype=np.int32, add_batch_rank=True).zeros(size=5)
    assert z.shape == (5,) and z.dtype == np.int32
    z = BoolBox((2,), add_batch_rank=True, add_time_rank=True, time_major=True).zeros(size=(3, 7))
    assert z.shape == (7, 3, 2) and z.dtype == np.bool_ and not z.any()
    z = TextBox((2,)).zeros()
    assert z.shape == (2,) and list(z) == ["", ""]


# ----- contains and check ----------------------------------------------------------------------------------
def test_contains_accepts_python_scalars_and_lists_of_the_right_kind():
    assert 0.5 in FloatBox(0.0, 1.0)
    assert [[0.1, 0.2]] in FloatBox(0.0, 1.0, shape=(1, 2))
    assert 2 in IntBox(3) and [0, 2] in IntBox(3, shape=(2,))
    assert True in BoolBox() and [True, False] in BoolBox((2,))


def test_check_wrong_dtype():
    error = space_error(FloatBox(shape=(2,)), np.array([1, 2]))
    assert error.expected == np.float32 and error.got == np.int64
    assert "wrong dtype" in str(error) and "float32" in str(error) and "int64" in str(error)
    assert 1.0 not in IntBox(3)
    assert np.array([1, 0]) not in BoolBox((2,))
    assert np.array(1.0) not in TextBox()


def test_check_wrong_shape():
    error = space_error(FloatBox(shape=(2, 3), add_batch_rank=True), np.zeros((4, 3, 2), np.float32))
    assert error.expected == "(?, 2, 3)" and error.got == "(4, 3, 2)"
    assert "wrong shape" in str(error) and "(?, 2, 3)" in str(error) and "(4, 3, 2)" in str(error)
    error = space_error(FloatBox(shape=(3,)), np.zeros((2,), np.float32))
    assert error.expected == "(3,)" and error.got == "(2,)"


def test_check_out_of_bounds():
    error = space_error(FloatBox(0.0, 1.0, shape=(3,)), np.array([0.5, 1.5, -0.1], np.float32))
    assert "out of bounds" in str(error)
    assert error.expected == "values in [0, 1]"
    assert "max 1.5" in error.got and "min -0.1" in error.got
    error = space_error(IntBox(3), np.int64(3))
    assert error.expected == "values in [0, 3)"


def test_check_rejects_nan_like_gymnasium():
    assert np.float32(np.nan) not in FloatBox(0.0, 1.0)
    assert np.array([0.0, np.nan], np.float32) not in FloatBox(shape=(2,))


def test_check_ragged_value_is_a_space_error():
    error = space_error(FloatBox(shape=(2,)), [[1.0], [1.0, 2.0]])
    assert "not an array" in str(error)


def test_check_text_values():
    box = TextBox(min_length=1, max_length=2, charset="ab")
    assert "ab" in box and "a b" not in box
    error = space_error(box, "abc")
    assert "'abc'" in error.got and error.expected == "1..2 chars of the charset"
    error = space_error(TextBox((2,)), np.array(["a", 3], dtype=object))
    assert error.expected == "str" and error.got == "int"


def test_check_names_the_key_path_it_is_given():
    with pytest.raises(SpaceError) as info:
        IntBox(3).check(np.int64(7), key_path="act/0")
    assert info.value.key_path == "act/0"
    assert str(info.value).startswith("[key 'act/0']")


def test_space_error_is_a_value_error_and_keeps_context_through_pickling():
    error = space_error(FloatBox(0.0, 1.0), np.float32(2.0))
    assert isinstance(error, ValueError) and isinstance(error, RLWorkbenchError)
    assert error.key_path is None  # a top-level check has no key path, so an outer layer may name one
    error.add_context(component="policy", argument="states", key_path="obs")
    error.add_context(component="outer", key_path="ignored")  # never overwrites what is already said
    copy = pickle.loads(pickle.dumps(error))
    assert type(copy) is SpaceError
    assert (copy.component, copy.argument, copy.key_path) == ("policy", "states", "obs")
    assert copy.expected == error.expected and copy.got == error.got
    assert str(copy) == str(error)
    assert str(error).startswith("[component 'policy', argument 'states', key 'obs'] FloatBox value is out")


# ----- equality, hashing, repr -----------------------------------------------------------------------------
def test_equality_and_hash():
    assert FloatBox(0.0, 1.0, shape=(2,)) == FloatBox(np.zeros(2), np.ones(2))
    assert hash(FloatBox(0.0, 1.0, shape=(2,))) == hash(FloatBox(np.zeros(2), np.ones(2)))
    assert IntBox(3) == IntBox(0, 3) and hash(IntBox(3)) == hash(IntBox(0, 3))
    different = [
        FloatBox(0.0, 1.0, shape=(2,)), FloatBox(0.0, 2.0, shape=(2,)), FloatBox(0.0, 1.0, shape=(3,)),
        FloatBox(0.0, 1.0, shape=(2,), dtype=np.float64), FloatBox(0.0, 1.0, shape=(2,), add_batch_rank=True),
        FloatBox([0.0, 0.5], 1.0), IntBox(3), IntBox(4), IntBox(3, dtype=np.int32), BoolBox(), BoolBox((1,)),
        TextBox(), TextBox(max_length=3), TextBox(charset="ab"),
    ]
    for i, a in enumerate(different):
        for j, b in enumerate(different):
            assert (a == b) == (i == j), (a, b)
    assert len(set(different)) == len(different)
    assert FloatBox() != "FloatBox()" and IntBox(2) != BoolBox()


def test_repr_is_compact():
    assert repr(FloatBox(shape=(2,))) == "FloatBox((2,), float32)"
    assert repr(FloatBox(0.0, 1.0, shape=(3,))) == "FloatBox((3,), float32, [0, 1])"
    assert repr(IntBox(3)) == "IntBox((), int64, [0, 3))"
    assert repr(IntBox(3, add_batch_rank=True, add_time_rank=True)) == "IntBox((), int64, [0, 3))+B+T"
    assert repr(BoolBox((2,), add_batch_rank=True, add_time_rank=True, time_major=True)) == "BoolBox((2,), bool)+T+B"
    assert repr(TextBox(max_length=5)) == "TextBox((), len 0..5)"
    assert repr(FloatBox(0.5, 2.5)) == "FloatBox((), float32, [0.5, 2.5])"
    big = float(np.finfo(np.float32).max)
    assert repr(FloatBox(-big, big)) == "FloatBox((), float32, [-3.40282e+38, 3.40282e+38])"
    assert repr(IntBox(0, 2**40)) == f"IntBox((), int64, [0, {2**40}))"
    assert repr(FloatBox(low=0.0)) == "FloatBox((), float32, [0, inf])"


def test_repr_summarises_element_wise_bounds():
    cartpole = FloatBox(np.array([-4.8, -np.inf, -0.41887903, -np.inf]), np.array([4.8, np.inf, 0.41887903, np.inf]))
    assert repr(cartpole) == "FloatBox((4,), float32, [(-4.8, -inf, -0.419, -inf), (4.8, inf, 0.419, inf)])"
    assert repr(FloatBox(np.full(3, -2.0), np.full(3, 2.0))) == "FloatBox((3,), float32, [-2, 2])"  # all alike
    image = IntBox(np.zeros((2, 3)), np.arange(6).reshape(2, 3) + 10, dtype="int32")
    assert repr(image) == "IntBox((2, 3), int32, [0, 10..15))"
    assert "array" not in repr(cartpole) + repr(image)
