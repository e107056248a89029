"""Parity of the distributions (deterministic samples, log-probs, entropies, KLs), the time-dependent parameters,
and the explorations in their noise-free settings (their random draws come from different generators)."""

from __future__ import annotations

import numpy as np
import pytest

from rlworkbench.components.common import Constant, ExponentialDecay, LinearDecay, PolynomialDecay
from rlworkbench.components.distributions import Bernoulli, Beta, Categorical, Normal, SquashedNormal
from rlworkbench.components.explorations import EpsilonGreedy, GaussianNoise
from rlworkbench.spaces import BoolBox, Dict, FloatBox, IntBox, Tuple

DETERMINISTIC = ["sample_deterministic", "log_prob", "entropy", "kl_divergence"]
LOW, HIGH = np.array([-1.0, 0.0], np.float32), np.array([2.0, 0.5], np.float32)


def _pair(ranks, shape=(2,), low=None, high=None):
    leaf = FloatBox(shape=shape) if low is None else FloatBox(low, high, shape=shape)
    return Tuple(leaf, leaf, **ranks)


CASES = {
    "categorical": (lambda: Categorical(low=2), lambda r: FloatBox(shape=(2, 4), **r),
                    lambda r: IntBox(2, 6, shape=(2,), **r)),
    "bernoulli": (Bernoulli, lambda r: FloatBox(shape=(3,), **r), lambda r: BoolBox((3,), **r)),
    "normal": (Normal, _pair, lambda r: FloatBox(shape=(2,), **r)),
    "squashed_normal": (lambda: SquashedNormal(low=LOW, high=HIGH), _pair, lambda r: FloatBox(LOW, HIGH, **r)),
    "beta": (lambda: Beta(low=LOW, high=HIGH), lambda r: _pair(r, low=1.0, high=4.0),
             lambda r: FloatBox(LOW, HIGH, **r)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_distribution(parity, ranks, name):
    make, parameters, values = CASES[name]
    parity(make, {"parameters": parameters(ranks), "values": values(ranks), "other_parameters": parameters(ranks)},
           api_methods=DETERMINISTIC)


@pytest.mark.parametrize("make", [
    lambda: Constant(0.25),
    lambda: LinearDecay(from_value=1.0, to_value=0.1, start_time_step=3, end_time_step=50),
    lambda: PolynomialDecay(from_value=1.0, to_value=0.1, end_time_step=50, power=2.5),
    lambda: ExponentialDecay(from_value=1.0, to_value=0.1, end_time_step=50, half_life=7),
], ids=["constant", "linear", "polynomial", "exponential"])
def test_time_dependent_parameter(parity, make):
    parity(make, {"time_step": IntBox(0, 80, add_batch_rank=True)})


def test_explorations_without_noise(parity, ranks):
    actions = Dict(move=IntBox(3), aim=FloatBox(-1.0, 1.0, shape=(2,)), **ranks)
    time_step = IntBox(0, 100)
    parity(lambda: EpsilonGreedy(epsilon=0.0), {"greedy_actions": actions, "time_step": time_step})
    parity(lambda: GaussianNoise(stddev={"type": "linear_decay", "from_value": 0.0, "to_value": 0.0}),
           {"actions": actions, "time_step": time_step})
