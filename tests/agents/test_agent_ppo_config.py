"""PPO configs: the schema's errors name the JSON path and what is allowed, component errors name their section,
defaults merge section by section, and the shipped CartPole config validates."""

from __future__ import annotations

import pytest
from agent_test_support import assert_config_error
from ppo_helpers import ACTIONS, STATES, small_ppo_config

from rlworkbench.agents import Agent, builtin_config, builtin_configs, validate_config
from rlworkbench.agents.ppo import PPOAgent
from rlworkbench.agents.ppo_config import DEFAULTS, SCHEMA, distribution_types
from rlworkbench.errors import ConfigError


def config_error(**sections) -> ConfigError:
    with pytest.raises(ConfigError) as error:
        Agent.from_config(small_ppo_config(**sections), state_space=STATES, action_space=ACTIONS)
    return error.value


@pytest.mark.parametrize("sections, path, expected", [
    ({"discount": 1.5}, "discount", "<= 1"),
    ({"loss": {"clip_ratio": 0}}, "loss/clip_ratio", "> 0"),
    ({"loss": {"value_clip": -0.1}}, "loss/value_clip", "> 0"),
    ({"loss": {"gae_lambda": 2}}, "loss/gae_lambda", "<= 1"),
    ({"loss": {"entropy_weight": -1}}, "loss/entropy_weight", ">= 0"),
    ({"loss": {"normalize_advantages": "yes"}}, "loss/normalize_advantages", "boolean"),
    ({"loss": {"clip": 0.1}}, "loss/clip", ["clip_ratio", "entropy_weight", "gae_lambda", "normalize_advantages",
                                            "value_clip", "value_weight"]),
    ({"update": {"rollout_length": 0}}, "update/rollout_length", ">= 1"),
    ({"update": {"num_epochs": 2.5}}, "update/num_epochs", "integer"),
    ({"update": {"num_minibatches": 0}}, "update/num_minibatches", ">= 1"),
    ({"update": {"target_kl": 0}}, "update/target_kl", "> 0"),
    ({"update": {"batch_size": 64}}, "update/batch_size", ["num_epochs", "num_minibatches", "rollout_length",
                                                            "sequence_length", "target_kl"]),
    ({"update": {"sequence_length": 0}}, "update/sequence_length", ">= 1"),
    ({"optimizer": {"type": "adam", "variables_of": "policy"}}, "optimizer/variables_of",
     ["beta1", "beta2", "clip_grad_norm", "clip_grad_value", "epsilon", "learning_rate", "type"]),
    ({"optimizer": {"clip_grad_norm": 0}}, "optimizer/clip_grad_norm", "> 0"),
    ({"policy": {"network": []}}, "policy/network", ">= 1 items"),
    ({"policy": {"value_network": [{"type": "dense", "unit": 4}]}}, "policy/value_network/0/unit", None),
    ({"policy": {"shared_value_function": 1}}, "policy/shared_value_function", "boolean"),
    ({"policy": {"value_units": [0]}}, "policy/value_units/0", ">= 1"),
    ({"policy": {"distribution": "gaussian"}}, "policy/distribution",
     ["bernoulli", "beta", "categorical", "normal", "squashed_normal"]),
    ({"policy": {"distribution": {"steer": "gauss"}}}, "policy/distribution/steer",
     ["bernoulli", "beta", "categorical", "normal", "squashed_normal"]),
    ({"memory": {"type": "replay_memory", "capacity": 8}}, "memory",
     ["discount", "execution", "loss", "optimizer", "policy", "preprocessing", "type", "update"]),
])
def test_errors_name_the_json_path_and_what_is_allowed(sections, path, expected):
    assert_config_error(config_error(**sections), path, expected)


def test_component_errors_after_the_schema_name_their_section():
    error = config_error(preprocessing=[{"type": "frame_stack", "num_frames": 4}])
    assert error.key_path == "preprocessing/0/type" and "stateless" in str(error)
    error = config_error(policy={"network": [{"type": "dense", "units": "many"}]})
    assert error.key_path == "policy/network/0/units" and "many" in str(error)
    error = config_error(policy={"distribution": "beta"})  # a beta distribution for discrete actions
    assert error.key_path.startswith("policy"), str(error)


def test_defaults_merge_and_the_shipped_config_validates():
    config = validate_config({"type": "ppo", "update": {"num_epochs": 7}}, SCHEMA, DEFAULTS)
    assert config["update"] == {**DEFAULTS["update"], "num_epochs": 7} and config["loss"] == DEFAULTS["loss"]
    assert "ppo_cartpole" in builtin_configs()
    shipped = builtin_config("ppo_cartpole")
    agent = Agent.from_config(shipped, state_space=STATES, action_space=ACTIONS)
    assert isinstance(agent, PPOAgent) and agent.config == validate_config(shipped, SCHEMA, DEFAULTS)
    assert {"categorical", "normal", "squashed_normal", "beta"} <= set(distribution_types())
