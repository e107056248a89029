"""Agent configs: JSON schema validation with errors that name the JSON path and what is allowed, component types
checked against the registry, defaults merged section by section, files and the shipped configs."""

from __future__ import annotations

import json

import pytest
from agent_helpers import ACTIONS, STATES, small_config
from agent_test_support import assert_config_error

from rlworkbench.agents import Agent, builtin_config, builtin_configs, load_config, validate_config
from rlworkbench.agents.config import merge_defaults
from rlworkbench.agents.dqn_config import DEFAULTS, SCHEMA
from rlworkbench.components import known_types
from rlworkbench.errors import ConfigError


def config_error(**sections) -> ConfigError:
    with pytest.raises(ConfigError) as error:
        Agent.from_config(small_config(**sections), state_space=STATES, action_space=ACTIONS)
    return error.value


@pytest.mark.parametrize("sections, path, expected", [
    ({"memory": {"capacity": "big"}}, "memory/capacity", "integer"),
    ({"memory": {"capacity": 0}}, "memory/capacity", ">= 1"),
    ({"memory": {"alpha": 0.5}}, "memory/alpha", ["capacity", "priority_epsilon", "type"]),
    ({"memory": {"type": "prioritized_replay", "capacity": 8, "gamma": 1}}, "memory/gamma",
     ["alpha", "beta", "capacity", "priority_epsilon", "type"]),
    ({"memory": {"type": "fifo_queue", "capacity": 8}}, "memory/type", ["replay_memory", "prioritized_replay"]),
    ({"memroy": {}}, "memroy", ["discount", "execution", "exploration", "loss", "memory", "optimizer", "policy",
                                "preprocessing", "target", "type", "update"]),
    ({"update": {"batch_sise": 4}}, "update/batch_sise", ["batch_size", "gradient_steps", "learning_starts",
                                                          "update_interval"]),
    ({"discount": 1.5}, "discount", "<= 1"),
    ({"loss": {"double_q": "yes"}}, "loss/double_q", "boolean"),
    ({"loss": {"n_step": 0}}, "loss/n_step", ">= 1"),
    ({"target": {"tau": 0}}, "target/tau", "> 0"),
    ({"optimizer": {"learning_rate": -1}}, "optimizer/learning_rate", "> 0"),
    ({"optimizer": {"type": "adamw"}}, "optimizer/type", ["adam", "rmsprop", "sgd"]),
    ({"optimizer": {"type": "adam", "variables_of": "memory"}}, "optimizer/variables_of",
     ["beta1", "beta2", "clip_grad_norm", "clip_grad_value", "epsilon", "learning_rate", "type"]),
    ({"exploration": {"epsilon": 1.5}}, "exploration/epsilon", "<= 1"),
    ({"exploration": {"epsilon": {"type": "linear", "to_value": 0.1}}}, "exploration/epsilon/type",
     ["constant_parameter", "exponential_decay", "linear_decay", "polynomial_decay"]),
    ({"policy": {"network": []}}, "policy/network", ">= 1 items"),
    ({"policy": {"network": [{"units": 4}]}}, "policy/network/0/type", "a value"),
    ({"policy": {"network": [{"type": "dense", "unit": 4}]}}, "policy/network/0/unit",
     ["activation", "bias_initializer", "kernel_initializer", "type", "units", "use_bias"]),
    ({"policy": {"network": [{"type": "dense"}]}}, "policy/network/0/units", "a value"),
    ({"preprocessing": [{"type": "clip", "low": -1.0}]}, "preprocessing/0/high", "a value"),
    ({"preprocessing": [{"type": "dense", "units": 3}]}, "preprocessing/0/type", None),
])
def test_errors_name_the_json_path_and_what_is_allowed(sections, path, expected):
    assert_config_error(config_error(**sections), path, expected)


def test_unknown_layer_types_list_the_known_ones():
    error = config_error(policy={"network": [{"type": "dense", "units": 4}, {"type": "densee", "units": 3}]})
    assert error.key_path == "policy/network/1/type" and error.got == "densee"
    assert "dense" in error.expected and "conv2d" in error.expected and set(error.expected) <= set(known_types())
    assert "adam" not in error.expected  # only layers (and preprocessors) are allowed in a network


def test_no_code_is_evaluated():
    error = config_error(policy={"network": [{"type": "__import__('os').system('false')", "units": 4}]})
    assert error.key_path == "policy/network/0/type" and "dense" in error.expected


def test_component_errors_after_the_schema_name_their_section():
    error = config_error(exploration={"epsilon": {"type": "linear_decay", "from_value": 1.0, "end_time_step": -5}})
    assert error.key_path == "exploration/epsilon/end_time_step"
    for key, value in [("from_value", -1.0), ("from_value", 1e30), ("to_value", -0.01), ("to_value", 1.5)]:
        decay = {"type": "linear_decay", "from_value": 1.0, "to_value": 0.05, key: value}
        error = config_error(exploration={"epsilon": decay})  # an epsilon is a probability, however it decays
        assert (error.key_path, error.got, error.expected) == (f"exploration/epsilon/{key}", value, f"0 <= {key} <= 1")
    error = config_error(exploration={"epsilon": {"type": "constant_parameter", "value": 2.0}})
    assert (error.key_path, error.got) == ("exploration/epsilon", 2.0)
    error = config_error(preprocessing=[{"type": "frame_stack", "num_frames": 4}])
    assert error.key_path == "preprocessing/0/type" and "stateless" in str(error)
    error = config_error(policy={"network": [{"type": "dense", "units": "many"}]})
    assert error.key_path == "policy/network/0/units" and "many" in str(error)  # the schema of dense's arguments


def test_defaults_merge_section_by_section():
    config = validate_config({"type": "dqn", "update": {"batch_size": 7}}, SCHEMA, DEFAULTS)
    assert config["update"] == {**DEFAULTS["update"], "batch_size": 7}
    assert config["memory"] == DEFAULTS["memory"]
    replaced = merge_defaults(DEFAULTS, {"memory": {"type": "prioritized_replay", "capacity": 10}})
    assert replaced["memory"] == {"type": "prioritized_replay", "capacity": 10}  # another type: no stale keys
    kept = merge_defaults(DEFAULTS, {"optimizer": {"learning_rate": 0.5}})
    assert kept["optimizer"] == {**DEFAULTS["optimizer"], "learning_rate": 0.5}
    shipped = builtin_config("dqn_cartpole")
    assert merge_defaults(validate_config(shipped, SCHEMA, DEFAULTS), shipped) == validate_config(shipped, SCHEMA,
                                                                                                  DEFAULTS)


def test_config_files(tmp_path):
    path = tmp_path / "dqn.json"
    path.write_text(json.dumps(small_config()))
    agent = Agent.from_config(path, state_space=STATES, action_space=ACTIONS)
    assert agent.config == validate_config(small_config(), SCHEMA, DEFAULTS)
    assert load_config(str(path)) == small_config()
    path.write_text('{"type": "dqn",')
    with pytest.raises(ConfigError, match="not valid JSON"):
        load_config(path)
    with pytest.raises(ConfigError, match="no such config file"):
        load_config(tmp_path / "missing.json")
    path.write_text("[1, 2]")
    with pytest.raises(ConfigError, match="one JSON object"):
        load_config(path)


def test_builtin_configs_ship_with_the_package():
    assert "dqn_cartpole" in builtin_configs()
    config = builtin_config("dqn_cartpole")
    assert config["type"] == "dqn" and config["policy"]["network"][0]["units"] == 256
    with pytest.raises(ConfigError, match="no built-in config") as error:
        builtin_config("dqn_pong")
    assert "dqn_cartpole" in error.value.expected


def test_a_component_whose_base_takes_a_required_argument_from_it_validates():
    """``divide`` hands ``multiply`` its required ``factor``: a spec of ``divide`` needs only its ``divisor``."""
    from rlworkbench.agents.config import constructor_arguments
    from rlworkbench.components.registry import registered

    accepted, required = constructor_arguments(registered()["divide"])
    assert required == {"divisor"} and "factor" in accepted
    divide = [{"type": "divide", "divisor": 2.0}]
    assert Agent.from_env("CartPole-v1", {"type": "dqn", "preprocessing": divide}).config["preprocessing"] == divide
