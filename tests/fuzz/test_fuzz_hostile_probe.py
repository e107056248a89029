"""The cases an independent hostile-input probe found building or failing with a bare Python error (issue 32):
an epsilon that is no probability, malformed ``execute`` calls, a DQN over observations that hold no numbers.
Each must end in a typed error that names a place — never an agent that builds on it, nor a TypeError."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

from rlworkbench.agents import Agent
from rlworkbench.agents.config import builtin_config
from rlworkbench.errors import BuildError, ConfigError, SpaceError
from rlworkbench.spaces import FloatBox
from tests.fuzz.fuzz_helpers import assert_names_a_place

SMALL = [{"type": "dense", "units": 8, "activation": "relu"}]
CARTPOLE_STATES = gymnasium.spaces.Box(-1.0, 1.0, shape=(4,), dtype=np.float32)


def dqn_config(epsilon=None):
    config = builtin_config("dqn_cartpole")
    config["policy"]["network"] = SMALL
    config["memory"]["capacity"] = 64
    if epsilon is not None:
        config["exploration"]["epsilon"] = epsilon
    return config


class ObservationsOf(gymnasium.Env):
    """An env whose observations are ``observation_space`` (never stepped: the agent must not build)."""

    def __init__(self, observation_space):
        self.observation_space = observation_space
        self.action_space = gymnasium.spaces.Discrete(2)


def decay(**values):
    return {"type": "linear_decay", "from_value": 1.0, "to_value": 0.05, "end_time_step": 100, **values}


EPSILONS = {
    "epsilon from_value -1": (decay(from_value=-1), "exploration/epsilon/from_value", -1.0),
    "epsilon from_value 1e30": (decay(from_value=1e30), "exploration/epsilon/from_value", 1e30),
    "epsilon to_value -0.5": (decay(to_value=-0.5), "exploration/epsilon/to_value", -0.5),
    "epsilon to_value 2": (decay(to_value=2.0), "exploration/epsilon/to_value", 2.0),
    "constant epsilon -1": ({"type": "constant_parameter", "value": -1.0}, "exploration/epsilon", -1.0),
    "constant epsilon 1e30": ({"type": "constant_parameter", "value": 1e30}, "exploration/epsilon", 1e30),
}


@pytest.mark.parametrize("case", sorted(EPSILONS))
def test_an_epsilon_outside_zero_one_is_a_config_error(case, tally):
    epsilon, key_path, got = EPSILONS[case]
    with pytest.raises(ConfigError) as info:
        Agent.from_config(dqn_config(epsilon), state_space=CARTPOLE_STATES,
                          action_space=gymnasium.spaces.Discrete(2), backend="torch", seed=0).build()
    error = info.value
    assert_names_a_place(error, case)
    assert (error.component, error.argument, error.key_path, error.got) == ("exploration", "epsilon", key_path, got)
    assert "<= 1" in str(error.expected) and "probability" in str(error)
    tally["hostile probe"] += 1


@pytest.fixture(scope="module")
def dqn_agent():
    return Agent.from_config(dqn_config(), state_space=CARTPOLE_STATES, action_space=gymnasium.spaces.Discrete(2),
                             backend="torch", seed=0).build()


@pytest.mark.parametrize("calls", [(123,), (None,), (("act_greedy",),)], ids=["123", "None", "name only"])
def test_a_malformed_execute_call_is_a_build_error_showing_the_forms(dqn_agent, calls, tally):
    with pytest.raises(BuildError) as info:
        dqn_agent.executor.execute(*calls)
    error = info.value
    assert_names_a_place(error, repr(calls))
    assert error.component == dqn_agent.root.path and "execute('api', *args" in str(error.expected)
    states = np.zeros((2, 4), np.float32)  # the forms it shows still work
    assert dqn_agent.executor.execute("act_greedy", states).shape == (2,)
    assert dqn_agent.executor.execute(("act_greedy", states))[0].shape == (2,)
    tally["hostile probe"] += 1


@pytest.mark.parametrize("observations", [gymnasium.spaces.Box(-1.0, 1.0, shape=(0,), dtype=np.float32),
                                          FloatBox(shape=(0,))], ids=["gymnasium Box(0,)", "FloatBox(0,)"])
@pytest.mark.parametrize("backend", ["torch", "tf"])
def test_a_dqn_over_zero_size_observations_fails_at_build(observations, backend, tally):
    env = ObservationsOf(observations) if isinstance(observations, gymnasium.Space) else None
    agent = Agent.from_env(env, dqn_config(), backend=backend, seed=0) if env is not None else \
        Agent.from_config(dqn_config(), state_space=observations, action_space=gymnasium.spaces.Discrete(2),
                          backend=backend, seed=0)
    with pytest.raises(SpaceError, match="zero-size") as info:
        agent.build()
    error = info.value
    assert_names_a_place(error, "zero-size observations")
    assert error.component.startswith("dqn/policy") and error.got.shape == (0,)
    tally["hostile probe"] += 1
