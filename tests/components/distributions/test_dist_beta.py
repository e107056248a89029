"""Beta (scaled to bounds): log-prob, entropy and KL against NumPy closed forms, the scaled mean, gamma-ratio
sample statistics, bounds kept, and configuration from an action space."""

from __future__ import annotations

import math

import numpy as np
import pytest

from rlworkbench.components.distributions import Beta, distribution_for
from rlworkbench.errors import ConfigError
from rlworkbench.spaces import FloatBox, Tuple
from rlworkbench.testing import ComponentTest

LOW, HIGH = -1.0, 3.0
PARAMETERS = Tuple(FloatBox(shape=(3,)), FloatBox(shape=(3,)), add_batch_rank=True)
SAMPLED_PARAMETERS = Tuple(FloatBox(1.0, 6.0, shape=(3,)), FloatBox(0.5, 4.0, shape=(3,)), add_batch_rank=True)
VALUES = FloatBox(LOW, HIGH, shape=(3,), add_batch_rank=True)


def lgamma(x: np.ndarray) -> np.ndarray:
    return np.vectorize(math.lgamma)(np.asarray(x, np.float64))


def digamma(x: np.ndarray, h: float = 1e-5) -> np.ndarray:
    x = np.asarray(x, np.float64)
    return (lgamma(x + h) - lgamma(x - h)) / (2 * h)


def log_beta(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return lgamma(a) + lgamma(b) - lgamma(a + b)


@pytest.fixture(scope="module")
def builds():
    cache: dict[str, ComponentTest] = {}

    def get(backend: str) -> ComponentTest:
        if backend not in cache:
            cache[backend] = ComponentTest(Beta(low=LOW, high=HIGH), {
                "parameters": PARAMETERS, "values": VALUES, "other_parameters": PARAMETERS}, backend=backend, seed=2)
        return cache[backend]

    return get


def test_beta_closed_forms(backend, builds):
    test = builds(backend)
    (a, b), (a2, b2) = SAMPLED_PARAMETERS.sample(5, seed=1), SAMPLED_PARAMETERS.sample(5, seed=2)
    x = VALUES.sample(5, seed=3)
    unit = (x.astype(np.float64) - LOW) / (HIGH - LOW)
    log_prob = (a - 1) * np.log(unit) + (b - 1) * np.log1p(-unit) - log_beta(a, b) - np.log(HIGH - LOW)
    entropy = log_beta(a, b) - (a - 1) * digamma(a) - (b - 1) * digamma(b) + (a + b - 2) * digamma(a + b) \
        + np.log(HIGH - LOW)
    kl = log_beta(a2, b2) - log_beta(a, b) + (a - a2) * digamma(a) + (b - b2) * digamma(b) \
        + (a2 - a + b2 - b) * digamma(a + b)
    test.test(("log_prob", [(a, b), x]), expected_outputs=log_prob.sum(-1), decimals=4)
    test.test(("entropy", (a, b)), expected_outputs=entropy.sum(-1), decimals=4)
    test.test(("kl_divergence", [(a, b)], {"other_parameters": (a2, b2)}), expected_outputs=kl.sum(-1), decimals=4)
    test.test(("kl_divergence", [(a, b)], {"other_parameters": (a, b)}), expected_outputs=np.zeros(5), decimals=5)
    test.test(("sample_deterministic", (a, b)), expected_outputs=LOW + (HIGH - LOW) * a / (a + b), decimals=5)
    assert test.graph.output_space("sample_stochastic") == VALUES
    assert test.graph.output_space("entropy") == FloatBox(shape=(), add_batch_rank=True)


def test_beta_sample_statistics(backend, builds):
    test = builds(backend)
    a = np.broadcast_to(np.array([2.0, 0.7, 5.0], np.float32), (6000, 3)).copy()
    b = np.broadcast_to(np.array([3.0, 0.7, 1.5], np.float32), (6000, 3)).copy()
    samples, log_probs = test.test(("sample_and_log_prob", (a, b)))
    assert VALUES.contains(samples)
    alpha, beta = a[0].astype(np.float64), b[0].astype(np.float64)
    mean = alpha / (alpha + beta)
    variance = alpha * beta / ((alpha + beta) ** 2 * (alpha + beta + 1))
    unit = (samples - LOW) / (HIGH - LOW)
    np.testing.assert_allclose(unit.mean(0), mean, atol=0.015)
    np.testing.assert_allclose(unit.var(0), variance, rtol=0.08)
    inside = np.all((unit > 1e-3) & (unit < 1 - 1e-3), -1)
    np.testing.assert_allclose(log_probs[inside], test.test(("log_prob", [(a, b), samples]))[inside], atol=1e-3)


def test_beta_takes_its_bounds_from_the_action_space():
    low, high = np.array([0.0, -5.0], np.float32), np.array([1.0, 5.0], np.float32)
    beta = distribution_for(FloatBox(low, high), {"type": "beta", "name": "b"})
    assert isinstance(beta, Beta) and beta.name == "b"
    np.testing.assert_array_equal(beta.bounds.low, low)
    np.testing.assert_array_equal(beta.bounds.high, high)
    with pytest.raises(ConfigError, match="finite bounds"):
        distribution_for(FloatBox(0.0, None, shape=(2,)), "beta")
