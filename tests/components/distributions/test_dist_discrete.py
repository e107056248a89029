"""Categorical and Bernoulli: log-prob, entropy and KL against NumPy closed forms, argmax / sign modes, sample
frequencies, typed outputs (categories kept), batch + time ranks, seeds, and errors."""

from __future__ import annotations

import numpy as np
import pytest

from rlworkbench.components.distributions import Bernoulli, Categorical, distribution_for
from rlworkbench.errors import ConfigError, SpaceError
from rlworkbench.spaces import BoolBox, FloatBox, IntBox
from rlworkbench.testing import ComponentTest

LOGITS = FloatBox(shape=(2, 4), add_batch_rank=True)  # two categorical actions of 4 categories each
ACTIONS = IntBox(1, 5, shape=(2,), add_batch_rank=True)  # categories 1..4 (low = 1)
BERNOULLI_LOGITS = FloatBox(shape=(3,), add_batch_rank=True, add_time_rank=True)
FLAGS = BoolBox((3,), add_batch_rank=True, add_time_rank=True)


def log_softmax(x: np.ndarray) -> np.ndarray:
    x = x.astype(np.float64)
    shifted = x - x.max(-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(-1, keepdims=True))


def log_sigmoid(x: np.ndarray) -> np.ndarray:
    return -np.logaddexp(0.0, -x.astype(np.float64))


@pytest.fixture(scope="module")
def builds():
    makers = {
        "categorical": lambda backend: ComponentTest(
            Categorical(low=1), {"parameters": LOGITS, "values": ACTIONS, "other_parameters": LOGITS},
            backend=backend, seed=3),
        "bernoulli": lambda backend: ComponentTest(
            Bernoulli(), {"parameters": BERNOULLI_LOGITS, "values": FLAGS, "other_parameters": BERNOULLI_LOGITS},
            backend=backend, seed=4),
    }
    cache: dict[tuple[str, str], ComponentTest] = {}

    def get(backend: str, name: str) -> ComponentTest:
        if (backend, name) not in cache:
            cache[(backend, name)] = makers[name](backend)
        return cache[(backend, name)]

    return get


def test_categorical_closed_forms(backend, builds):
    test = builds(backend, "categorical")
    logits, other, actions = LOGITS.sample(6, seed=1), LOGITS.sample(6, seed=2), ACTIONS.sample(6, seed=3)
    log_p, log_q = log_softmax(logits), log_softmax(other)
    picked = np.take_along_axis(log_p, (actions - 1)[..., None], -1)[..., 0]
    test.test(("log_prob", [logits, actions]), expected_outputs=picked.sum(-1).astype(np.float32), decimals=5)
    test.test(("entropy", logits), expected_outputs=-(np.exp(log_p) * log_p).sum((-1, -2)), decimals=5)
    test.test(("kl_divergence", [logits], {"other_parameters": other}),
              expected_outputs=(np.exp(log_p) * (log_p - log_q)).sum((-1, -2)), decimals=5)
    test.test(("kl_divergence", [logits], {"other_parameters": logits}), expected_outputs=np.zeros(6), decimals=5)
    test.test(("sample_deterministic", logits), expected_outputs=np.argmax(logits, -1) + 1)
    for api in ("sample_stochastic", "sample_deterministic"):
        assert test.graph.output_space(api) == ACTIONS
    for api in ("log_prob", "entropy", "kl_divergence"):
        assert test.graph.output_space(api) == FloatBox(shape=(), add_batch_rank=True)


def test_categorical_sample_frequencies(backend, builds):
    test = builds(backend, "categorical")
    logits = np.broadcast_to(np.log(np.array([[0.1, 0.2, 0.3, 0.4], [0.7, 0.1, 0.1, 0.1]], np.float32)),
                             (4000, 2, 4)).copy()
    samples = test.test(("sample_stochastic", logits))
    assert samples.shape == (4000, 2) and ACTIONS.contains(samples)
    for row, probs in enumerate(np.exp(logits[0])):
        np.testing.assert_allclose(np.bincount(samples[:, row] - 1, minlength=4) / 4000, probs, atol=0.03)
    actions, log_probs = test.test(("sample_and_log_prob", logits[:50]))
    test.test(("log_prob", [logits[:50], actions]), expected_outputs=log_probs)


def test_categorical_samples_are_seeded(backend):
    def draws(seed):
        test = ComponentTest(Categorical(), {"parameters": FloatBox(shape=(5,), add_batch_rank=True)},
                             backend=backend, seed=seed, api_methods=["sample_stochastic"])
        return test.test(("sample_stochastic", np.zeros((200, 5), np.float32)))

    first = draws(7)
    np.testing.assert_array_equal(first, draws(7))
    assert not np.array_equal(first, draws(8))


def test_bernoulli_closed_forms_over_batch_and_time(backend, builds):
    test = builds(backend, "bernoulli")
    logits, other, flags = BERNOULLI_LOGITS.sample((4, 3), seed=5), BERNOULLI_LOGITS.sample((4, 3), seed=6), \
        FLAGS.sample((4, 3), seed=7)
    p = 1 / (1 + np.exp(-logits.astype(np.float64)))
    log_prob = np.where(flags, log_sigmoid(logits), log_sigmoid(-logits)).sum(-1)
    entropy = -(p * np.log(p) + (1 - p) * np.log(1 - p)).sum(-1)
    q = 1 / (1 + np.exp(-other.astype(np.float64)))
    kl = (p * np.log(p / q) + (1 - p) * np.log((1 - p) / (1 - q))).sum(-1)
    test.test(("log_prob", [logits, flags]), expected_outputs=log_prob, decimals=5)
    test.test(("entropy", logits), expected_outputs=entropy, decimals=5)
    test.test(("kl_divergence", [logits], {"other_parameters": other}), expected_outputs=kl, decimals=5)
    test.test(("sample_deterministic", logits), expected_outputs=logits > 0)
    assert test.graph.output_space("sample_stochastic") == FLAGS
    assert test.graph.output_space("entropy") == FloatBox(shape=(), add_batch_rank=True, add_time_rank=True)


def test_bernoulli_sample_frequencies(backend, builds):
    test = builds(backend, "bernoulli")
    probs = np.array([0.1, 0.5, 0.85])
    logits = np.broadcast_to(np.log(probs / (1 - probs)).astype(np.float32), (500, 8, 3)).copy()
    samples = test.test(("sample_stochastic", logits))
    assert samples.dtype == bool and samples.shape == (500, 8, 3)
    np.testing.assert_allclose(samples.mean((0, 1)), probs, atol=0.03)


def test_distribution_for_picks_and_configures_by_space():
    assert isinstance(distribution_for(IntBox(3)), Categorical)
    assert distribution_for(IntBox(2, 6), name="d").low == 2
    assert isinstance(distribution_for(BoolBox((2,))), Bernoulli)
    assert isinstance(distribution_for(IntBox(3), {"type": "categorical", "name": "mine"}), Categorical)


@pytest.mark.parametrize("space, spec, match", [
    (FloatBox(shape=(2,)), "categorical", "IntBox"),
    (IntBox(low=np.array([0, 1]), high=np.array([3, 4])), "categorical", "scalar, finite bounds"),
    (IntBox(3), "no_such_distribution", "unknown distribution type"),
])
def test_distribution_for_rejects_mismatches(space, spec, match):
    with pytest.raises(ConfigError, match=match) as info:
        distribution_for(space, spec, key_path="act")
    assert info.value.key_path == "act"


def test_categorical_needs_a_category_axis(backend):
    with pytest.raises(SpaceError) as info:
        ComponentTest(Categorical(), {"parameters": FloatBox(shape=(), add_batch_rank=True)}, backend=backend,
                      api_methods=["entropy"])
    assert info.value.argument == "parameters" and "(n,)" in str(info.value.expected)


def test_values_of_the_wrong_shape_are_rejected(backend):
    with pytest.raises(SpaceError) as info:
        ComponentTest(Categorical(), {"parameters": LOGITS, "values": IntBox(4, shape=(3,), add_batch_rank=True)},
                      backend=backend, api_methods=["log_prob"])
    assert info.value.argument == "values" and info.value.component == "categorical"


def test_other_parameters_must_match_the_parameters(backend):
    with pytest.raises(SpaceError) as info:
        ComponentTest(Categorical(), {"parameters": LOGITS, "other_parameters": FloatBox(shape=(2, 5),
                                                                                         add_batch_rank=True)},
                      backend=backend, api_methods=["kl_divergence"])
    assert info.value.argument == "other_parameters"
