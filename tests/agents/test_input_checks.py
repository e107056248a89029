"""``check_rows``: every leaf of a transition is checked; float bounds only where asked (real envs' observations
stray out of their declared boxes) — and a forgiven float leaf never hides a bad leaf beside it."""

from __future__ import annotations

import numpy as np
import pytest

from rlworkbench.agents.input_checks import check_rows
from rlworkbench.errors import SpaceError
from rlworkbench.spaces import BoolBox, Dict, FloatBox, IntBox, float_bounds_relaxed

SPACE = Dict({"a": FloatBox(low=0.0, high=1.0, shape=(2,)), "b": IntBox(0, 3)})


def rows(a, b):
    return {"a": np.asarray(a, np.float32), "b": np.asarray(b)}


def test_float_bounds_are_checked_unless_relaxed():
    value = rows([[0.5, 7.0]], [1])
    with pytest.raises(SpaceError, match="out of bounds") as error:
        check_rows(value, SPACE, 1, "states")
    assert error.value.key_path == "a" and error.value.argument == "states"
    check_rows(value, SPACE, 1, "states", float_bounds=False)


def test_a_forgiven_float_leaf_does_not_hide_a_bad_leaf_after_it():
    with pytest.raises(SpaceError) as error:
        check_rows(rows([[0.5, 7.0]], [9]), SPACE, 1, "states", float_bounds=False)
    assert error.value.key_path == "b" and error.value.argument == "states"


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_relaxed_bounds_still_refuse_non_finite_floats(bad):
    with pytest.raises(SpaceError, match="not finite") as error:
        check_rows(rows([[0.5, bad]], [1]), SPACE, 1, "next_states", float_bounds=False)
    assert error.value.key_path == "a" and error.value.argument == "next_states"


def test_the_relaxation_ends_with_its_block():
    box = FloatBox(low=0.0, high=1.0)
    with float_bounds_relaxed():
        box.check(np.float32(5.0))
        with float_bounds_relaxed(False):  # an inner "not relaxed" leaves the outer block's relaxation
            box.check(np.float32(5.0))
    with pytest.raises(SpaceError, match="out of bounds"):
        box.check(np.float32(5.0))


BOXES = [FloatBox(shape=(3,)), FloatBox(-1.0, 1.0, shape=(2,)), FloatBox(low=[0.0, -1.0], high=[1.0, 2.0]),
         IntBox(4), IntBox(-2, 3, shape=(2,)), IntBox(0, 5, dtype="uint8"), BoolBox(shape=(2,))]


def random_value(space, rng, count):
    """Mostly good rows of ``space``; sometimes NaN, infinity, out-of-range numbers, huge floats whose sum
    overflows, another dtype, shape or row count, or a list."""
    value = np.asarray(space.with_batch_rank().sample(count, seed=rng))
    roll = rng.random()
    if roll < 0.1 and value.dtype.kind == "f":
        value.flat[rng.integers(value.size)] = rng.choice([np.nan, np.inf, -np.inf, 5.0, 3e38])
    elif roll < 0.2 and value.dtype.kind in "iu":
        value.flat[rng.integers(value.size)] = rng.choice([-3, 4, 200]) if value.dtype.kind == "i" else 200
    elif roll < 0.25:
        value = value.astype(rng.choice([np.float64, np.int32, np.bool_]))
    elif roll < 0.3:
        value = value[:-1] if rng.random() < 0.5 else value[..., None]
    elif roll < 0.33:
        return value.tolist()
    return value


@pytest.mark.parametrize("float_bounds", [True, False])
def test_the_fast_path_accepts_nothing_the_whole_check_refuses(float_bounds):
    """``plainly_rows_of`` (the common case of every observe, a few NumPy calls) answers True only for values the
    whole check takes: over random good and bad rows of several boxes, never True where ``check_rows`` without it
    raises — and it is True for the plain good rows it exists for."""
    from rlworkbench.agents.input_checks import plainly_rows_of

    rng, plain_good = np.random.default_rng(9), 0
    for step in range(3000):
        space, count = BOXES[step % len(BOXES)], int(rng.integers(1, 6))
        value = random_value(space, rng, count)
        fast = plainly_rows_of(value, space, count, float_bounds)
        try:
            with float_bounds_relaxed(not float_bounds):
                space.with_batch_rank().check(value)
            good = np.shape(value)[:1] == (count,)
        except SpaceError:
            good = False
        assert not fast or good, (space, value, count)
        plain_good += fast
    assert plain_good > 1500
