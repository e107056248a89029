"""Normal and SquashedNormal: log-prob, entropy and KL against NumPy closed forms (the squashed entropy against
NumPy quadrature), means / squashed means, sample statistics, bounds, ranks and errors."""

from __future__ import annotations

import numpy as np
import pytest

from rlworkbench.components.distributions import Normal, SquashedNormal, distribution_for
from rlworkbench.errors import ConfigError, SpaceError
from rlworkbench.spaces import FloatBox, IntBox, Tuple
from rlworkbench.testing import ComponentTest

LOW, HIGH = np.array([-2.0, 0.0], np.float32), np.array([3.0, 1.0], np.float32)
PARAMETERS = Tuple(FloatBox(shape=(2,)), FloatBox(shape=(2,)), add_batch_rank=True)
# where parameters and values are sampled from: moderate means and standard deviations
SAMPLED_PARAMETERS = Tuple(FloatBox(-1.0, 1.0, shape=(2,)), FloatBox(-2.0, 1.0, shape=(2,)), add_batch_rank=True)
VALUES = FloatBox(shape=(2,), add_batch_rank=True)
BOUNDED = FloatBox(LOW, HIGH, shape=(2,), add_batch_rank=True)


def normal_log_density(x, mean, log_std):
    return -0.5 * ((x - mean) / np.exp(log_std)) ** 2 - log_std - 0.5 * np.log(2 * np.pi)


def normal_kl(p, q):
    (m1, s1), (m2, s2) = [(m.astype(np.float64), np.exp(s.astype(np.float64))) for m, s in (p, q)]
    return (np.log(s2 / s1) + (s1**2 + (m1 - m2) ** 2) / (2 * s2**2) - 0.5).sum(-1)


def expect_over_normal(f, mean, log_std, points=40001):
    """E[f(u)] for u ~ N(mean, std) per element, by the trapezoid rule on +-12 standard deviations."""
    std = np.exp(log_std.astype(np.float64))[..., None]
    z = np.linspace(-12, 12, points)
    u = mean.astype(np.float64)[..., None] + std * z
    return np.trapezoid(f(u) * np.exp(-0.5 * z**2) / np.sqrt(2 * np.pi), z, axis=-1)


@pytest.fixture(scope="module")
def builds():
    makers = {
        "normal": lambda backend: ComponentTest(
            Normal(), {"parameters": PARAMETERS, "values": VALUES, "other_parameters": PARAMETERS},
            backend=backend, seed=5),
        "squashed": lambda backend: ComponentTest(
            SquashedNormal(low=LOW, high=HIGH), {"parameters": PARAMETERS, "values": BOUNDED,
                                                 "other_parameters": PARAMETERS}, backend=backend, seed=6),
    }
    cache: dict[tuple[str, str], ComponentTest] = {}

    def get(backend: str, name: str) -> ComponentTest:
        if (backend, name) not in cache:
            cache[(backend, name)] = makers[name](backend)
        return cache[(backend, name)]

    return get


def test_normal_closed_forms(backend, builds):
    test = builds(backend, "normal")
    (mean, log_std), other, x = SAMPLED_PARAMETERS.sample(6, seed=1), SAMPLED_PARAMETERS.sample(6, seed=2), \
        VALUES.sample(6, seed=3)
    test.test(("log_prob", [(mean, log_std), x]), expected_outputs=normal_log_density(x, mean, log_std).sum(-1),
              decimals=4)
    test.test(("entropy", (mean, log_std)), expected_outputs=(0.5 + 0.5 * np.log(2 * np.pi) + log_std).sum(-1),
              decimals=5)
    test.test(("kl_divergence", [(mean, log_std)], {"other_parameters": other}),
              expected_outputs=normal_kl((mean, log_std), other), decimals=4)
    test.test(("sample_deterministic", (mean, log_std)), expected_outputs=mean)
    assert test.graph.output_space("sample_stochastic") == VALUES
    assert test.graph.output_space("sample_and_log_prob") == (VALUES, FloatBox(shape=(), add_batch_rank=True))


def test_normal_sample_statistics(backend, builds):
    test = builds(backend, "normal")
    mean = np.broadcast_to(np.array([1.5, -2.0], np.float32), (5000, 2)).copy()
    log_std = np.broadcast_to(np.log(np.array([0.5, 2.0], np.float32)), (5000, 2)).copy()
    samples, log_probs = test.test(("sample_and_log_prob", (mean, log_std)))
    np.testing.assert_allclose(samples.mean(0), [1.5, -2.0], atol=0.08)
    np.testing.assert_allclose(samples.std(0), [0.5, 2.0], rtol=0.05)
    np.testing.assert_allclose(log_probs, normal_log_density(samples, mean, log_std).sum(-1), rtol=1e-4, atol=1e-4)


def test_normal_over_scalar_actions_with_time_major_ranks(backend):
    ranks = {"add_batch_rank": True, "add_time_rank": True, "time_major": True}
    parameters = Tuple(FloatBox(shape=()), FloatBox(shape=()), **ranks)
    test = ComponentTest(Normal(), {"parameters": parameters, "values": FloatBox(shape=(), **ranks)},
                         backend=backend, api_methods=["log_prob", "sample_stochastic"])
    (mean, log_std), x = parameters.sample((2, 3), seed=4), FloatBox(shape=(), **ranks).sample((2, 3), seed=5)
    assert mean.shape == (3, 2)
    test.test(("log_prob", [(mean, log_std), x]), expected_outputs=normal_log_density(x, mean, log_std), decimals=4)
    assert test.test(("sample_stochastic", (mean, log_std))).shape == (3, 2)
    assert test.graph.output_space("log_prob") == FloatBox(shape=(), **ranks)


def squash(u):
    return LOW + (HIGH - LOW) * (np.tanh(u) + 1) / 2


def test_squashed_normal_closed_forms(backend, builds):
    test = builds(backend, "squashed")
    (mean, log_std), other, x = SAMPLED_PARAMETERS.sample(6, seed=6), SAMPLED_PARAMETERS.sample(6, seed=7), \
        BOUNDED.sample(6, seed=8)
    unit = 2 * (x.astype(np.float64) - LOW) / (HIGH - LOW) - 1
    u = np.arctanh(unit)
    log_prob = normal_log_density(u, mean, log_std) - np.log(1 - unit**2) - np.log((HIGH - LOW) / 2)
    test.test(("log_prob", [(mean, log_std), x]), expected_outputs=log_prob.sum(-1), decimals=3)
    test.test(("sample_deterministic", (mean, log_std)), expected_outputs=squash(mean), decimals=5)
    # the squashing is one bijection for both distributions: the KL is the normals' KL
    test.test(("kl_divergence", [(mean, log_std)], {"other_parameters": other}),
              expected_outputs=normal_kl((mean, log_std), other), decimals=4)
    # entropy = normal entropy + E[log |d action / d u|]
    log_slope = expect_over_normal(lambda v: 2 * (np.log(2) - np.abs(v) - np.log1p(np.exp(-2 * np.abs(v)))),
                                   mean, log_std)  # log(1 - tanh(v) ** 2), without overflow
    entropy = 0.5 + 0.5 * np.log(2 * np.pi) + log_std + log_slope + np.log((HIGH - LOW) / 2)
    test.test(("entropy", (mean, log_std)), expected_outputs=entropy.sum(-1), decimals=3)
    assert test.graph.output_space("sample_stochastic") == BOUNDED
    assert test.graph.output_space("sample_deterministic") == BOUNDED


def test_squashed_normal_samples_stay_in_bounds_with_the_right_mean(backend, builds):
    test = builds(backend, "squashed")
    mean = np.broadcast_to(np.array([0.5, -1.0], np.float32), (5000, 2)).copy()
    log_std = np.broadcast_to(np.log(np.array([0.7, 1.5], np.float32)), (5000, 2)).copy()
    samples, log_probs = test.test(("sample_and_log_prob", (mean, log_std)))
    assert BOUNDED.contains(samples)
    expected_mean = expect_over_normal(squash_per_element, mean[0], log_std[0])
    np.testing.assert_allclose(samples.mean(0), expected_mean, atol=0.05)
    inside = np.all(np.abs(2 * (samples - LOW) / (HIGH - LOW) - 1) < 0.99, -1)  # away from float32 saturation
    recomputed = test.test(("log_prob", [(mean, log_std), samples]))
    np.testing.assert_allclose(log_probs[inside], recomputed[inside], atol=2e-3)
    extreme = test.test(("sample_deterministic", (np.full((1, 2), 40.0, np.float32), np.zeros((1, 2), np.float32))))
    np.testing.assert_array_equal(extreme, HIGH[None])


def squash_per_element(u):
    return LOW[:, None] + (HIGH - LOW)[:, None] * (np.tanh(u) + 1) / 2


def test_bounded_distributions_take_bounds_from_the_space():
    squashed = distribution_for(FloatBox(-3.0, 5.0, shape=(2,)), "squashed_normal")
    assert isinstance(squashed, SquashedNormal) and squashed.bounds.low == -3.0 and squashed.bounds.high == 5.0
    assert isinstance(distribution_for(FloatBox(shape=(2,))), Normal)
    with pytest.raises(ConfigError, match="finite bounds"):
        distribution_for(FloatBox(shape=(2,)), "squashed_normal")
    with pytest.raises(ConfigError, match="low < high") as info:
        SquashedNormal(low=1.0, high=1.0, name="squash")
    assert info.value.component == "squash"
    with pytest.raises(ConfigError, match="FloatBox"):
        Normal.for_space(IntBox(3))


@pytest.mark.parametrize("parameters, expected", [
    (FloatBox(shape=(2,), add_batch_rank=True), "Tuple(mean, log_std)"),
    (Tuple(FloatBox(shape=(2,)), FloatBox(shape=(3,)), add_batch_rank=True), "of one shape"),
    (Tuple(FloatBox(shape=(2,)), IntBox(3, shape=(2,)), add_batch_rank=True), "FloatBoxes"),
])
def test_parameters_of_the_wrong_structure_are_rejected(backend, parameters, expected):
    with pytest.raises(SpaceError) as info:
        ComponentTest(Normal(), {"parameters": parameters}, backend=backend, api_methods=["entropy"])
    assert info.value.argument == "parameters" and expected in str(info.value.expected)


def test_bounds_must_fit_the_action_shape(backend):
    with pytest.raises(SpaceError, match="bounds do not fit"):
        ComponentTest(SquashedNormal(low=np.zeros(3), high=np.ones(3)), {"parameters": PARAMETERS},
                      backend=backend, api_methods=["sample_deterministic"])
