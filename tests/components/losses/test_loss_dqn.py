"""DQNLoss: (double) DQN TD loss against a NumPy loop — n-step discounting, terminal masking, Huber, importance
weights, TD errors — with batch and batch+time ranks; config and space errors."""

from __future__ import annotations

import numpy as np
import pytest

from rlworkbench.components import DQNLoss, from_spec
from rlworkbench.errors import ConfigError, SpaceError
from rlworkbench.spaces import BoolBox, FloatBox, IntBox
from rlworkbench.testing import ComponentTest

ACTIONS = 4
BATCH = {"add_batch_rank": True}
BATCH_TIME = {"add_batch_rank": True, "add_time_rank": True}


def dqn_spaces(ranks: dict, weights: bool = False, actions: int = ACTIONS) -> dict:
    q = FloatBox(shape=(actions,), **ranks)
    spaces = {"q_values_s": q, "actions": IntBox(actions, **ranks), "rewards": FloatBox(**ranks),
              "terminals": BoolBox(**ranks), "q_values_sp": q, "target_q_values_sp": q}
    if weights:
        spaces["importance_weights"] = FloatBox(0.0, 1.0, **ranks)
    return spaces


NAMES = ["q_values_s", "actions", "rewards", "terminals", "q_values_sp", "target_q_values_sp", "importance_weights"]


def sample_inputs(spaces: dict, size, seed: int) -> list:
    rng = np.random.default_rng(seed)
    return [spaces[name].sample(size, seed=rng) for name in NAMES if name in spaces]


def by_name(inputs: list) -> tuple:
    """``("loss", [q_values_s, actions, rewards, terminals], {the Q-values at s' and the weights by name})``."""
    return "loss", inputs[:4], dict(zip(NAMES[4:], inputs[4:]))


def dqn_reference(q_s, actions, rewards, terminals, q_sp, qt_sp, weights=None, discount=0.99, double_q=True,
                  huber_loss=False, huber_delta=1.0, n_step=1):
    per_item = np.zeros(actions.shape)
    td_errors = np.zeros(actions.shape)
    for index in np.ndindex(actions.shape):
        if double_q:
            best = qt_sp[index][np.argmax(q_sp[index])]
        else:
            best = np.max(qt_sp[index])
        bootstrap = 0.0 if terminals[index] else discount ** n_step * best
        td = rewards[index] + bootstrap - q_s[index][actions[index]]
        if huber_loss and abs(td) > huber_delta:
            loss = huber_delta * (abs(td) - 0.5 * huber_delta)
        else:
            loss = 0.5 * td ** 2
        if weights is not None:
            loss *= weights[index]
        per_item[index], td_errors[index] = loss, td
    return per_item.mean(), per_item, td_errors


CONFIGS = {
    "double": {"discount": 0.9, "double_q": True},
    "max_huber_nstep": {"discount": 0.95, "double_q": False, "huber_loss": True, "huber_delta": 0.5, "n_step": 3},
    "double_huber": {"discount": 0.8, "huber_loss": True},
}
WEIGHTED = {"double_huber"}  # built with importance weights


def dqn_test(built, backend: str, name: str, ranks: dict) -> ComponentTest:
    spaces = dqn_spaces(ranks, name in WEIGHTED)
    key = (backend, name, tuple(ranks))
    return built(key, lambda: ComponentTest(DQNLoss(**CONFIGS[name]), spaces, backend=backend))


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_dqn_loss_matches_numpy(backend, built, name):
    test = dqn_test(built, backend, name, BATCH)
    inputs = sample_inputs(dqn_spaces(BATCH, name in WEIGHTED), 64, seed=1)
    expected = dqn_reference(*inputs, **CONFIGS[name])
    test.test(by_name(inputs), expected_outputs=expected, decimals=4)
    assert test.graph.output_space("loss") == (FloatBox(), FloatBox(**BATCH), FloatBox(**BATCH))


def test_dqn_loss_over_batch_and_time(backend, built):
    test = dqn_test(built, backend, "max_huber_nstep", BATCH_TIME)
    spaces = dqn_spaces(BATCH_TIME)
    for size in ((3, 5), (2, 8)):
        inputs = sample_inputs(spaces, size, seed=sum(size))
        _, per_item, td_errors = test.test(by_name(inputs), decimals=4,
                                           expected_outputs=dqn_reference(*inputs, **CONFIGS["max_huber_nstep"]))
        assert per_item.shape == td_errors.shape == size
    assert test.graph.output_space("loss") == (FloatBox(), FloatBox(**BATCH_TIME), FloatBox(**BATCH_TIME))


def test_terminals_cut_the_bootstrap_and_double_q_evaluates_with_the_target(backend, built):
    test = dqn_test(built, backend, "double", BATCH)
    q_s = np.zeros((2, ACTIONS), np.float32)
    q_sp = np.array([[0.0, 5.0, 0.0, 0.0]] * 2, np.float32)  # online net picks action 1
    qt_sp = np.array([[9.0, 2.0, 0.0, 0.0]] * 2, np.float32)  # target net values it at 2 (its own max is 9)
    rewards = np.array([1.0, 1.0], np.float32)
    terminals = np.array([False, True])
    _, _, td_errors = test.test(by_name([q_s, np.array([0, 3]), rewards, terminals, q_sp, qt_sp]))
    np.testing.assert_allclose(td_errors, [1.0 + 0.9 * 2.0, 1.0], rtol=1e-6)


def test_dqn_loss_from_a_spec(backend):
    loss = from_spec({"type": "dqn_loss", "discount": 0.5, "double_q": False})
    assert isinstance(loss, DQNLoss) and loss.name == "dqn_loss"
    spaces = dqn_spaces(BATCH)
    test = ComponentTest(loss, spaces, backend=backend)
    inputs = sample_inputs(spaces, 9, seed=3)
    test.test(by_name(inputs), expected_outputs=dqn_reference(*inputs, discount=0.5, double_q=False), decimals=4)


def test_importance_weights_are_optional_and_checked_when_given(backend):
    spaces = dqn_spaces(BATCH, weights=True)
    test = ComponentTest(DQNLoss(), spaces, backend=backend)
    inputs = sample_inputs(spaces, 5, seed=2)
    test.test(by_name(inputs), expected_outputs=dqn_reference(*inputs), decimals=4)
    assert test.graph.root_inputs["loss"]["importance_weights"].space == spaces["importance_weights"]
    bad = {**spaces, "importance_weights": IntBox(2, **BATCH)}
    with pytest.raises(SpaceError) as info:
        ComponentTest(DQNLoss(), bad, backend=backend)
    assert (info.value.argument, info.value.component) == ("importance_weights", "dqn_loss")


def test_q_values_at_the_next_state_must_be_named(backend, built):
    test = dqn_test(built, backend, "double", BATCH)
    inputs = sample_inputs(dqn_spaces(BATCH), 3, seed=5)
    with pytest.raises(SpaceError) as info:
        test.test(("loss", inputs))  # positionally, as before they were keyword-only
    assert info.value.api_method == "loss" and "by name" in str(info.value)


@pytest.mark.parametrize("key, space", [
    ("q_values_sp", FloatBox(shape=(ACTIONS + 1,), **BATCH)),
    ("actions", FloatBox(**BATCH)),
    ("rewards", FloatBox(**BATCH_TIME)),
    ("q_values_s", FloatBox(**BATCH)),
])
def test_bad_input_spaces_name_the_argument(backend, key, space):
    spaces = {**dqn_spaces(BATCH), key: space}
    with pytest.raises(SpaceError) as info:
        ComponentTest(DQNLoss(), spaces, backend=backend)
    assert (info.value.argument, info.value.component, info.value.got) == (key, "dqn_loss", space)


def test_values_of_the_wrong_size_are_rejected(backend, built):
    test = dqn_test(built, backend, "double", BATCH)
    inputs = sample_inputs(dqn_spaces(BATCH), 3, seed=4)
    inputs[4] = np.zeros((3, ACTIONS + 2), np.float32)
    with pytest.raises(SpaceError) as info:
        test.test(by_name(inputs))
    assert (info.value.api_method, info.value.argument) == ("loss", "q_values_sp")


@pytest.mark.parametrize("key, value", [("discount", 1.5), ("huber_delta", 0.0), ("n_step", 0), ("n_step", 2.5)])
def test_bad_configs_name_the_key(backend, key, value):
    with pytest.raises(ConfigError) as info:
        DQNLoss(**{key: value})
    assert info.value.key_path == key and info.value.got == value
