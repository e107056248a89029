"""A seed makes initial weights reproducible; another seed gives other weights."""

from __future__ import annotations

import numpy as np
from core_components import STATES, Agent

from rlworkbench import build


def weights(seed):
    return build(Agent(), {"states": STATES}, seed=seed).get_weights()


def test_same_seed_same_weights():
    first, second = weights(3), weights(3)
    assert first.keys() == second.keys()
    for name in first:
        np.testing.assert_array_equal(first[name], second[name])


def test_other_seed_other_weights():
    first, second = weights(3), weights(4)
    assert not np.array_equal(first["net/dense_0/kernel"], second["net/dense_0/kernel"])
    np.testing.assert_array_equal(first["head/factor"], second["head/factor"])  # constant initializer


def test_variables_of_one_build_differ_from_each_other():
    values = weights(3)
    assert not np.array_equal(values["net/dense_0/kernel"][:, :2], values["net/dense_1/kernel"][:3])


def test_no_seed_gives_fresh_weights():
    assert not np.array_equal(weights(None)["net/dense_0/kernel"], weights(None)["net/dense_0/kernel"])
