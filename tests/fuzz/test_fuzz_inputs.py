"""Mutated arguments to observe and get_actions on built agents (DQN with and without n-step, SAC): each call
ends in a typed error naming its argument — leaving the memory, the pending n-step transitions and the counters
exactly as they were — or succeeds; actions that come back are finite and in the action space."""

from __future__ import annotations

import math

import numpy as np
import pytest

from rlworkbench.agents import Agent
from rlworkbench.agents.config import builtin_config
from rlworkbench.errors import RLWorkbenchError
from rlworkbench.execution.envs import make_vector_env
from tests.fuzz.fuzz_helpers import assert_names_a_place, assert_refused_cleanly

NAN, INF = math.nan, math.inf
SMALL = [{"type": "dense", "units": 16, "activation": "relu"}]


def dqn(n_step):
    config = builtin_config("dqn_cartpole")
    config["policy"]["network"] = SMALL
    config["loss"]["n_step"] = n_step
    config["memory"]["capacity"] = 64
    return "CartPole-v1", config


def sac():
    config = builtin_config("sac_pendulum")
    config["policy"]["network"] = config["critic"]["network"] = SMALL
    config["memory"]["capacity"] = 64
    return "Pendulum-v1", config


AGENTS = {"dqn": lambda: dqn(1), "dqn_3_step": lambda: dqn(3), "sac": sac}
STATE_MUTATIONS = [np.full((2, 4), NAN), np.full((2, 4), INF), np.zeros((2, 5)), np.zeros((2,)), np.zeros((3, 4)),
                   np.zeros((2, 4, 1)), [["a"] * 4] * 2, None, [[0.0] * 4, [0.0] * 3], np.zeros((0, 4))]


def action_mutations(space_name):
    if space_name == "dqn":
        return [[5, 7], [-1, 0], [0.5, 1.0], [NAN, 0], ["a", "b"], [[0], [1]], [0], [0, 1, 1], None, [[0, 1], [0]],
                np.array([2**40, 0])]
    return [np.full((2, 1), 1e6), np.full((2, 1), NAN), np.full((2, 1), -INF), np.zeros((2, 2)), np.zeros((2,)),
            np.zeros((3, 1)), [["x"], ["y"]], None, [[0.0], []]]


OTHER_MUTATIONS = {
    "rewards": [[NAN, 0.0], [INF, 0.0], ["x", "y"], [1.0], [1.0, 2.0, 3.0], None, [[1.0, 2.0], [3.0]]],
    "terminals": [["no", "no"], [2, 0], [0.5, 0.0], [True], None, [NAN, 0.0], [[True], [False, True]]],
}


@pytest.mark.parametrize("kind", sorted(AGENTS))
def test_mutated_observe_and_get_actions_are_refused_cleanly_or_work(kind, tally):
    env_id, config = AGENTS[kind]()
    env = make_vector_env(env_id, 2, seed=0)
    agent = Agent.from_env(env, config, backend="torch", seed=0).build()
    states, _ = env.reset(seed=0)
    rng = np.random.default_rng(0)
    try:
        for _ in range(6):  # some history, and pending n-step transitions
            actions = agent.get_actions(states)
            next_states, rewards, _, _, _ = env.step(actions)
            agent.observe(states, actions, rewards, np.zeros(2, bool), next_states)
            states = next_states
        valid = {"states": states.astype(np.float32), "actions": agent.get_actions(states),
                 "rewards": np.ones(2, np.float32), "terminals": np.zeros(2, bool),
                 "next_states": (states + rng.normal(0, 0.01, states.shape)).astype(np.float32)}
        if kind != "sac":
            space_name = "dqn"
        else:
            space_name = "sac"
            valid["states"] = valid["states"][:, :3]
        cases = [("states", value) for value in STATE_MUTATIONS] + \
                [("next_states", value) for value in STATE_MUTATIONS] + \
                [("actions", value) for value in action_mutations(space_name)] + \
                [(argument, value) for argument, values in OTHER_MUTATIONS.items() for value in values]
        for argument, mutated in cases:
            value = mutated
            if kind == "sac" and isinstance(mutated, np.ndarray) and mutated.shape[-1:] == (4,):
                value = mutated[..., :3]  # the same mutation for Pendulum's 3 numbers
            _observe_case(agent, valid, argument, value, f"{kind}: observe({argument}={_short(value)})")
            tally["observe mutations"] += 1
        for argument, mutated in cases:
            value = mutated
            if kind == "sac" and isinstance(mutated, np.ndarray) and mutated.shape[-1:] == (4,):
                value = mutated[..., :3]
            _update_case(agent, valid, argument, value, f"{kind}: update({argument}={_short(value)})")
            tally["update batch mutations"] += 1
        for value in STATE_MUTATIONS:
            case = f"{kind}: get_actions({_short(value)})"
            try:
                actions = agent.get_actions(value)
            except RLWorkbenchError as error:
                assert_names_a_place(error, case)
            else:
                agent.action_space.with_batch_rank().check(np.asarray(actions))
                assert np.all(np.isfinite(np.asarray(actions, dtype=np.float64))), case
            tally["get_actions mutations"] += 1
    finally:
        env.close()


def _observe_case(agent, valid, argument, value, case):
    before = {name: array.copy() for name, array in agent.get_weights().items() if name.startswith("memory/")}
    counters = (agent.timesteps, agent.episodes)
    pending = repr(_pending(agent))
    try:
        agent.observe(**{**valid, argument: value})
    except RLWorkbenchError as error:
        assert_names_a_place(error, case)  # (rows that disagree may blame either side: the states set the count)
        after = agent.get_weights()
        for name, array in before.items():
            assert np.array_equal(after[name], array, equal_nan=True), f"{case}: changed {name}"
        assert (agent.timesteps, agent.episodes) == counters, f"{case}: counters moved"
        assert repr(_pending(agent)) == pending, f"{case}: n-step state moved"
    else:
        for name, array in agent.get_weights().items():
            if name.startswith("memory/records") and array.dtype.kind == "f":
                assert np.all(np.isfinite(array)), f"{case}: stored a non-finite {name}"


def _short(value):
    text = repr(value if not isinstance(value, np.ndarray) else f"array{value.shape}{value.reshape(-1)[:2]}")
    return text[:60]


def _pending(agent):
    """The n-step accumulator's state, as text (None for agents without one)."""
    accumulator = getattr(agent, "n_step", None)
    return None if accumulator is None else repr(vars(accumulator))


def _update_case(agent, valid, argument, value, case):
    """An outside update batch with one bad key: a typed error that changes no variable, or a finite update."""
    batch = {**valid, argument: value}
    before = agent.get_weights()
    try:
        metrics = agent.update(batch)
    except RLWorkbenchError as error:
        assert_refused_cleanly(agent, before, error, case)
    else:
        assert all(np.isfinite(v) for v in metrics.values()), f"{case}: {metrics}"
