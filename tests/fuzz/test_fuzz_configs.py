"""Mutated configs from every shipped one (but Atari's): each ends in a typed error naming a place, or in an agent
that builds and acts with finite outputs — never a generic exception, a hang or silent garbage."""

from __future__ import annotations

import math

import numpy as np
import pytest

from rlworkbench.agents import Agent
from rlworkbench.agents.config import builtin_config
from rlworkbench.errors import RLWorkbenchError
from rlworkbench.execution.envs import make_vector_env
from tests.fuzz.fuzz_helpers import assert_names_a_place, mutations

CONFIGS = {"dqn_cartpole": "CartPole-v1", "dqn_dueling_per_cartpole": "CartPole-v1", "ppo_cartpole": "CartPole-v1",
           "impala_cartpole": "CartPole-v1", "sac_pendulum": "Pendulum-v1"}
BUILDS_PER_CONFIG = 4  # accepted mutations that are also built and asked for actions (a build takes ~1 s)


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_mutated_configs_are_refused_with_a_place_or_work(name, tally):
    env = make_vector_env(CONFIGS[name], 2, seed=0)
    accepted = []
    try:
        for case, config in mutations(builtin_config(name)):
            try:
                agent = Agent.from_env(env, config, backend="torch", seed=0)
            except RLWorkbenchError as error:
                assert_names_a_place(error, case)
            else:
                assert _finite_numbers(agent.config), f"{case}: accepted a non-finite number"
                accepted.append((case, agent))
            tally["config mutations"] += 1
        step = max(1, len(accepted) // BUILDS_PER_CONFIG)
        for case, agent in accepted[::step][:BUILDS_PER_CONFIG]:
            try:
                agent.build()
            except RLWorkbenchError as error:  # a value the schema allows but the build refuses, saying where
                assert_names_a_place(error, case)
                continue
            states, _ = env.reset(seed=0)
            actions = agent.get_actions(states)
            assert np.all(np.isfinite(np.asarray(actions, dtype=np.float64))), case
            tally["config mutations built"] += 1
    finally:
        env.close()


def _finite_numbers(value):
    if isinstance(value, dict):
        return all(_finite_numbers(item) for item in value.values())
    if isinstance(value, list):
        return all(_finite_numbers(item) for item in value)
    return not isinstance(value, float) or math.isfinite(value)
