"""Policy over one action: a discrete action checked number by number against NumPy (logits, log-probs,
entropy, KL, argmax, sampled frequencies), and a beta-distributed bounded action."""

from __future__ import annotations

import numpy as np
import pytest

from rlworkbench.components.distributions import Beta
from rlworkbench.components.policies import BetaAdapter, Policy
from rlworkbench.errors import SpaceError
from rlworkbench.spaces import Dict, FloatBox, IntBox, Tuple
from rlworkbench.testing import ComponentTest

STATES = FloatBox(shape=(3,), add_batch_rank=True)
ACTIONS = IntBox(4, add_batch_rank=True)
LOGITS = FloatBox(shape=(4,), add_batch_rank=True)
LAYERS = [{"type": "dense", "units": 6, "activation": "relu"}]


def log_softmax(x):
    x = x.astype(np.float64)
    shifted = x - x.max(-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(-1, keepdims=True))


def randomize(test: ComponentTest, seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    weights = {k: rng.normal(size=v.shape).astype(np.float32) for k, v in test.variable_values().items()}
    test.set_variable_values(weights)
    return weights


@pytest.fixture(scope="module")
def builds():
    cache: dict[str, tuple[ComponentTest, dict]] = {}

    def get(backend: str) -> tuple[ComponentTest, dict]:
        if backend not in cache:
            test = ComponentTest(Policy(LAYERS, IntBox(4), name="policy"), {
                "states": STATES, "actions": ACTIONS, "other_parameters": LOGITS}, backend=backend, seed=9)
            cache[backend] = (test, randomize(test, 2))
        return cache[backend]

    return get


def test_discrete_policy_matches_numpy(backend, builds):
    test, w = builds(backend)
    states, actions, other = STATES.sample(8, seed=1), ACTIONS.sample(8, seed=2), LOGITS.sample(8, seed=3)
    hidden = np.maximum(states @ w["network/dense_0/kernel"] + w["network/dense_0/bias"], 0)
    logits = hidden @ w["action_adapter/dense/kernel"] + w["action_adapter/dense/bias"]
    log_p, log_q = log_softmax(logits), log_softmax(other)
    test.test(("get_parameters", states), expected_outputs=logits, decimals=4)
    test.test(("get_deterministic_action", states), expected_outputs=np.argmax(logits, -1))
    test.test(("get_log_probs", [states, actions]), expected_outputs=log_p[np.arange(8), actions], decimals=4)
    test.test(("get_entropy", states), expected_outputs=-(np.exp(log_p) * log_p).sum(-1), decimals=4)
    test.test(("get_kl_divergence", [states, other]), expected_outputs=(np.exp(log_p) * (log_p - log_q)).sum(-1),
              decimals=4)
    assert test.graph.output_space("get_deterministic_action") == ACTIONS
    assert test.graph.output_space("get_entropy") == FloatBox(shape=(), add_batch_rank=True)


def test_discrete_policy_samples_from_its_softmax(backend, builds):
    test, w = builds(backend)
    states = np.repeat(STATES.sample(1, seed=4), 4000, axis=0)
    hidden = np.maximum(states[:1] @ w["network/dense_0/kernel"] + w["network/dense_0/bias"], 0)
    probs = np.exp(log_softmax(hidden @ w["action_adapter/dense/kernel"] + w["action_adapter/dense/bias"]))[0]
    actions, log_probs = test.test(("get_action_and_log_prob", states))
    assert ACTIONS.contains(actions)
    np.testing.assert_allclose(np.bincount(actions, minlength=4) / 4000, probs, atol=0.03)
    np.testing.assert_allclose(log_probs, np.log(probs)[actions], atol=1e-4)


def test_beta_policy_over_a_bounded_action(backend):
    action_space = FloatBox(np.array([0.0, -2.0], np.float32), np.array([1.0, 2.0], np.float32))
    policy = Policy(LAYERS, action_space, distributions="beta", name="policy")
    assert isinstance(policy.distributions[""], Beta) and isinstance(policy.adapters[""], BetaAdapter)
    test = ComponentTest(policy, {"states": STATES}, backend=backend,
                         api_methods=["get_parameters", "get_deterministic_action", "get_stochastic_action"])
    w = randomize(test, 3)
    states = STATES.sample(5, seed=5)
    hidden = np.maximum(states @ w["network/dense_0/kernel"] + w["network/dense_0/bias"], 0)
    raw = hidden @ w["action_adapter/dense/kernel"] + w["action_adapter/dense/bias"]
    alpha, beta = 1 + np.logaddexp(0, raw[:, :2]), 1 + np.logaddexp(0, raw[:, 2:])
    test.test(("get_parameters", states), expected_outputs=(alpha, beta), decimals=4)
    expected = action_space.low + (action_space.high - action_space.low) * alpha / (alpha + beta)
    test.test(("get_deterministic_action", states), expected_outputs=expected, decimals=4)
    bounded = action_space.with_batch_rank()
    assert bounded.contains(test.test(("get_stochastic_action", states)))
    assert test.graph.output_space("get_stochastic_action") == bounded
    assert test.graph.output_space("get_parameters") == Tuple(FloatBox(shape=(2,)), FloatBox(shape=(2,)),
                                                              add_batch_rank=True)


def test_network_from_a_component_or_a_spec_dict(backend):
    from rlworkbench.components import NeuralNetwork

    network = NeuralNetwork(LAYERS, name="body")
    assert Policy(network, IntBox(4)).network is network
    policy = Policy({"type": "neural_network", "layers": LAYERS}, IntBox(4), name="policy")
    assert isinstance(policy.network, NeuralNetwork) and policy.network.name == "network"
    test = ComponentTest(policy, {"states": STATES}, backend=backend, api_methods=["get_deterministic_action"])
    assert ACTIONS.contains(test.test(("get_deterministic_action", STATES.sample(4, seed=6))))


@pytest.mark.parametrize("states", [FloatBox(shape=(0,), add_batch_rank=True), Dict(add_batch_rank=True),
                                    Dict(a=FloatBox(shape=(0,)), b=FloatBox(shape=(2, 0)), add_batch_rank=True)])
def test_a_policy_cannot_act_on_zero_size_states(backend, states):
    with pytest.raises(SpaceError, match="zero-size") as info:
        ComponentTest(Policy(LAYERS, IntBox(4), name="policy"), {"states": states}, backend=backend,
                      api_methods=["get_deterministic_action"])
    assert (info.value.component, info.value.argument, info.value.got) == ("policy", "states", states)


@pytest.mark.parametrize("actions, key", [(FloatBox(shape=(0,)), None), (IntBox(3, shape=(2, 0)), None),
                                          (Dict(move=IntBox(3), aim=FloatBox(shape=(0,))), "aim")])
def test_a_policy_cannot_choose_zero_size_actions(actions, key):
    with pytest.raises(SpaceError, match="zero-size") as info:
        Policy(LAYERS, actions, name="policy")
    assert (info.value.component, info.value.argument, info.value.key_path) == ("policy", "action_space", key)


def test_zero_size_leaves_beside_others_are_fine_where_streams_leave_them_out(backend):
    states = Dict(empty=FloatBox(shape=(0,)), obs=FloatBox(shape=(3,)), add_batch_rank=True)
    network = {"type": "neural_network", "streams": {"obs": LAYERS}}
    test = ComponentTest(Policy(network, IntBox(4), name="policy"), {"states": states}, backend=backend,
                         api_methods=["get_deterministic_action"])
    assert ACTIONS.contains(test.test(("get_deterministic_action", states.sample(5, seed=1))))
