"""Policy over a container action space (a Dict of a discrete and a continuous action) with batch + time ranks:
outputs nested like the action space, every number against a NumPy forward pass and closed forms; a nested
Tuple/Dict action space; configuration errors."""

from __future__ import annotations

import numpy as np
import pytest

from rlworkbench.components.distributions import Bernoulli, Categorical, Normal
from rlworkbench.components.policies import Policy
from rlworkbench.errors import ConfigError
from rlworkbench.spaces import BoolBox, Dict, FloatBox, IntBox, TextBox, Tuple
from rlworkbench.testing import ComponentTest

RANKS = {"add_batch_rank": True, "add_time_rank": True}
STATES = FloatBox(shape=(4,), **RANKS)
ACTION_SPACE = Dict(discrete=IntBox(3), continuous=FloatBox(-1.0, 1.0, shape=(2,)))
ACTIONS = ACTION_SPACE.with_batch_rank().with_time_rank()
# normal samples are unbounded (clip them for the env, or choose squashed_normal / beta for bounded actions)
SAMPLED = Dict(discrete=IntBox(3), continuous=FloatBox(shape=(2,)), **RANKS)
PARAMETERS = Dict(discrete=FloatBox(shape=(3,)), continuous=Tuple(FloatBox(shape=(2,)), FloatBox(shape=(2,))), **RANKS)
SCALARS = Dict(discrete=FloatBox(shape=(), **RANKS), continuous=FloatBox(shape=(), **RANKS))
LAYERS = [{"type": "dense", "units": 8, "activation": "tanh"}]


def log_softmax(x):
    x = x.astype(np.float64)
    shifted = x - x.max(-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(-1, keepdims=True))


def reference_parameters(w, states):
    h = np.tanh(states @ w["network/dense_0/kernel"] + w["network/dense_0/bias"])
    logits = h @ w["action_adapter_discrete/dense/kernel"] + w["action_adapter_discrete/dense/bias"]
    raw = h @ w["action_adapter_continuous/dense/kernel"] + w["action_adapter_continuous/dense/bias"]
    return {"discrete": logits, "continuous": (raw[..., :2], np.clip(raw[..., 2:], -20.0, 2.0))}


def normal_log_density(x, mean, log_std):
    return (-0.5 * ((x - mean) / np.exp(log_std)) ** 2 - log_std - 0.5 * np.log(2 * np.pi)).sum(-1)


@pytest.fixture(scope="module")
def builds():
    cache: dict[str, tuple[ComponentTest, dict]] = {}

    def get(backend: str) -> tuple[ComponentTest, dict]:
        if backend not in cache:
            test = ComponentTest(Policy(LAYERS, ACTION_SPACE, name="policy"), {
                "states": STATES, "actions": ACTIONS, "other_parameters": PARAMETERS}, backend=backend, seed=4)
            rng = np.random.default_rng(1)
            weights = {k: (0.5 * rng.normal(size=v.shape)).astype(np.float32)
                       for k, v in test.variable_values().items()}
            test.set_variable_values(weights)
            cache[backend] = (test, weights)
        return cache[backend]

    return get


def test_leaves_get_default_distributions_and_adapters():
    policy = Policy(LAYERS, ACTION_SPACE, name="policy")
    assert isinstance(policy.distributions["discrete"], Categorical)
    assert isinstance(policy.distributions["continuous"], Normal)
    assert sorted(policy.sub_components) == sorted([
        "network", "action_adapter_discrete", "action_adapter_continuous", "distribution_discrete",
        "distribution_continuous", "action_splitter", "parameter_splitter"])


def test_output_spaces_are_nested_like_the_action_space(backend, builds):
    graph = builds(backend)[0].graph
    for api in ("get_deterministic_action", "get_stochastic_action"):
        assert graph.output_space(api) == SAMPLED
    assert graph.output_space("get_parameters") == PARAMETERS
    assert graph.output_space("get_action_and_log_prob") == (SAMPLED, SCALARS)
    for api in ("get_log_probs", "get_entropy", "get_kl_divergence"):
        assert graph.output_space(api) == SCALARS


def test_numbers_match_numpy(backend, builds):
    test, weights = builds(backend)
    states, actions, other = STATES.sample((3, 2), seed=1), ACTIONS.sample((3, 2), seed=2), \
        PARAMETERS.sample((3, 2), seed=3)
    expected = reference_parameters(weights, states)
    test.test(("get_parameters", states), expected_outputs=expected, decimals=4)
    log_p = log_softmax(expected["discrete"])
    mean, log_std = expected["continuous"]
    test.test(("get_log_probs", [states, actions]), decimals=4, expected_outputs={
        "discrete": np.take_along_axis(log_p, actions["discrete"][..., None], -1)[..., 0],
        "continuous": normal_log_density(actions["continuous"], mean, log_std)})
    test.test(("get_entropy", states), decimals=4, expected_outputs={
        "discrete": -(np.exp(log_p) * log_p).sum(-1),
        "continuous": (0.5 + 0.5 * np.log(2 * np.pi) + log_std).sum(-1)})
    log_q = log_softmax(other["discrete"])
    other_mean, other_log_std = other["continuous"]
    normal_kl = other_log_std - log_std + (np.exp(2 * log_std) + (mean - other_mean) ** 2) / \
        (2 * np.exp(2 * other_log_std)) - 0.5
    test.test(("get_kl_divergence", [states, other]), decimals=4, expected_outputs={
        "discrete": (np.exp(log_p) * (log_p - log_q)).sum(-1), "continuous": normal_kl.sum(-1)})
    test.test(("get_deterministic_action", states), decimals=5,
              expected_outputs={"discrete": np.argmax(expected["discrete"], -1), "continuous": mean})


def test_stochastic_actions_fit_and_their_log_probs_agree(backend, builds):
    test = builds(backend)[0]
    states = STATES.sample((16, 5), seed=4)
    actions, log_probs = test.test(("get_action_and_log_prob", states))
    assert SAMPLED.contains(actions) and actions["discrete"].shape == (16, 5)
    test.test(("get_log_probs", [states, actions]), expected_outputs=log_probs, decimals=4)
    assert SAMPLED.contains(test.test(("get_stochastic_action", states)))


def test_nested_tuple_action_space(backend):
    space = Tuple(IntBox(2), Dict(flag=BoolBox((2,)), level=IntBox(1, 4)))
    policy = Policy(LAYERS, space, distributions={"1/level": {"type": "categorical"}}, name="policy")
    assert isinstance(policy.distributions["1/flag"], Bernoulli)
    assert "action_adapter_1.flag" in policy.sub_components
    actions_space = space.with_batch_rank()
    test = ComponentTest(policy, {"states": FloatBox(shape=(4,), add_batch_rank=True), "actions": actions_space},
                         backend=backend, api_methods=["get_deterministic_action", "get_log_probs"])
    states = FloatBox(shape=(4,), add_batch_rank=True).sample(3, seed=5)
    actions = test.test(("get_deterministic_action", states))
    assert isinstance(actions, tuple) and set(actions[1]) == {"flag", "level"} and actions_space.contains(actions)
    log_probs = test.test(("get_log_probs", [states, actions_space.sample(3, seed=6)]))
    assert log_probs[1]["flag"].shape == (3,) and np.all(log_probs[1]["level"] <= 0)
    assert test.graph.output_space("get_deterministic_action") == actions_space


@pytest.mark.parametrize("kwargs, match", [
    ({"distributions": {"discrete": "categorical", "other": "normal"}}, "keys the action space does not have"),
    ({"distributions": "categorical"}, r"\{key_path: spec\} dict"),
    ({"distributions": {"discrete": "normal"}}, "FloatBox"),
    ({"distributions": {"continuous": "nope"}}, "unknown distribution type"),
    ({"network_spec": 3}, "bad network spec"),
    ({"action_space": TextBox()}, "no distribution for this kind of action"),
    ({"action_space": "discrete"}, "expected a space"),
])
def test_bad_configs_are_config_errors(kwargs, match):
    arguments = {"network_spec": LAYERS, "action_space": ACTION_SPACE, **kwargs}
    with pytest.raises(ConfigError, match=match):
        Policy(**arguments, name="policy")
