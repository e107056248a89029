"""``check_rows``: every leaf of a transition is checked; float bounds only where asked (real envs' observations
stray out of their declared boxes) — and a forgiven float leaf never hides a bad leaf beside it."""

from __future__ import annotations

import numpy as np
import pytest

from rlworkbench.agents.input_checks import check_rows
from rlworkbench.errors import SpaceError
from rlworkbench.spaces import Dict, FloatBox, IntBox, float_bounds_relaxed

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
