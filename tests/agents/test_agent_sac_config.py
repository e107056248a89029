"""SAC configs: schema errors name the JSON path and what is allowed, component errors name their section, action
spaces SAC cannot act in are refused, defaults merge section by section, ``"auto"`` target entropies, and the
shipped Pendulum config."""

from __future__ import annotations

import math

import pytest
from agent_sac_helpers import ACTIONS, STATES, small_config
from agent_test_support import assert_config_error

from rlworkbench.agents import Agent, builtin_config, builtin_configs, validate_config
from rlworkbench.agents.config import merge_defaults
from rlworkbench.agents.sac import SACAgent
from rlworkbench.agents.sac_config import DEFAULTS, SCHEMA
from rlworkbench.errors import ConfigError, SpaceError
from rlworkbench.spaces import Dict, FloatBox, IntBox

OPTIMIZER_ARGUMENTS = ["beta1", "beta2", "clip_grad_norm", "clip_grad_value", "epsilon", "learning_rate", "type"]


def config_error(**sections) -> ConfigError:
    with pytest.raises(ConfigError) as error:
        Agent.from_config(small_config(**sections), state_space=STATES, action_space=ACTIONS)
    return error.value


@pytest.mark.parametrize("sections, path, expected", [
    ({"discount": -0.1}, "discount", ">= 0"),
    ({"critic": {"num_critics": 0}}, "critic/num_critics", ">= 1"),
    ({"critic": {"dueling": True}}, "critic/dueling", ["network", "num_critics"]),
    ({"critic": {"network": [{"type": "dense", "unit": 4}]}}, "critic/network/0/unit",
     ["activation", "bias_initializer", "kernel_initializer", "type", "units", "use_bias"]),
    ({"policy": {"network": []}}, "policy/network", ">= 1 items"),
    ({"policy": {"network": [{"type": "densee", "units": 4}]}}, "policy/network/0/type", None),
    ({"temperature": {"initial_alpha": 0}}, "temperature/initial_alpha", "> 0"),
    ({"temperature": {"learn_alpha": "yes"}}, "temperature/learn_alpha", "boolean"),
    ({"temperature": {"target_entropy": "max"}}, "temperature/target_entropy", ["auto"]),
    ({"temperature": {"target_entropy": None}}, "temperature/target_entropy", "number"),
    ({"memory": {"type": "prioritized_replay", "capacity": 8}}, "memory/type", ["replay_memory"]),
    ({"memory": {"capacity": 0}}, "memory/capacity", ">= 1"),
    ({"optimizers": {"entropy": {"type": "adam", "learning_rate": 0.1}}}, "optimizers/entropy",
     ["actor", "alpha", "critic"]),
    ({"optimizers": {"critic": {"type": "adam", "learning_rate": -1}}}, "optimizers/critic/learning_rate", "> 0"),
    ({"optimizers": {"alpha": {"type": "adamw", "learning_rate": 0.1}}}, "optimizers/alpha/type",
     ["adam", "rmsprop", "sgd"]),
    ({"optimizers": {"actor": {"type": "adam", "learning_rate": 0.1, "variables_of": "critics"}}},
     "optimizers/actor/variables_of", OPTIMIZER_ARGUMENTS),
    ({"update": {"gradient_steps": 0}}, "update/gradient_steps", ">= 1"),
    ({"update": {"train_freq": 4}}, "update/train_freq", ["batch_size", "gradient_steps", "learning_starts",
                                                          "update_interval"]),
    ({"target": {"tau": 1.5}}, "target/tau", "<= 1"),
    ({"exploration": {}}, "exploration", ["critic", "discount", "execution", "memory", "optimizers", "policy",
                                          "preprocessing",
                                          "target", "temperature", "type", "update"]),
])
def test_errors_name_the_json_path_and_what_is_allowed(sections, path, expected):
    assert_config_error(config_error(**sections), path, expected)


def test_component_errors_after_the_schema_name_their_section():
    error = config_error(critic={"network": [{"type": "dense", "units": "many"}]})
    assert error.key_path == "critic/network/0/units" and "many" in str(error)
    error = config_error(preprocessing=[{"type": "frame_stack", "num_frames": 4}])
    assert error.key_path == "preprocessing/0/type" and "stateless" in str(error)
    error = config_error(optimizers={"critic": {"type": "adam", "learning_rate": 0.1, "beta1": 1.5}})
    assert error.key_path == "optimizers/critic/beta1"


@pytest.mark.parametrize("space", [FloatBox(shape=(2,)), FloatBox(-1.0, 1.0, shape=(2, 2)), IntBox(3, shape=(2,)),
                                   Dict(a=IntBox(2))])
def test_action_spaces_sac_cannot_act_in(space):
    with pytest.raises(SpaceError, match="SAC needs") as error:
        Agent.from_config(small_config(), state_space=STATES, action_space=space)
    assert error.value.argument == "action_space"


def test_target_entropy_auto_and_given():
    def agent(action_space, **temperature):
        return Agent.from_config(small_config(temperature=temperature), state_space=STATES,
                                 action_space=action_space)

    assert agent(FloatBox(-1.0, 1.0, shape=(4,))).target_entropy == -4.0
    assert agent(IntBox(4)).target_entropy == pytest.approx(0.5 * math.log(4))
    assert agent(ACTIONS, target_entropy=-0.25).target_entropy == -0.25
    assert isinstance(agent(ACTIONS), SACAgent)


def test_defaults_merge_section_by_section():
    config = validate_config({"type": "sac", "optimizers": {"actor": {"learning_rate": 0.5}}}, SCHEMA, DEFAULTS)
    assert config["optimizers"]["actor"] == {"type": "adam", "learning_rate": 0.5}
    assert config["optimizers"]["critic"] == DEFAULTS["optimizers"]["critic"]
    replaced = merge_defaults(DEFAULTS, {"optimizers": {"alpha": {"type": "sgd", "learning_rate": 0.1}}})
    assert replaced["optimizers"]["alpha"] == {"type": "sgd", "learning_rate": 0.1}
    assert config["temperature"] == {"initial_alpha": 1.0, "learn_alpha": True, "target_entropy": "auto"}


def test_the_shipped_pendulum_config():
    assert "sac_pendulum" in builtin_configs()
    shipped = builtin_config("sac_pendulum")
    config = validate_config(shipped, SCHEMA, DEFAULTS)
    assert sorted(shipped) == sorted(DEFAULTS)  # every section spelt out
    assert config["critic"]["num_critics"] == 2 and config["update"]["learning_starts"] == 1000
    agent = Agent.from_env("Pendulum-v1", shipped)
    assert isinstance(agent, SACAgent) and agent.action_space == FloatBox(-2.0, 2.0, shape=(1,))
