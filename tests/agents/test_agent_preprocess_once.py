"""Each observation is preprocessed once per env step: acting returns the preprocessed states that ``observe``
stores, and storing a transition returns its preprocessed next states, which the next ``get_actions`` acts on.
Counted with a call handler on the preprocessor stack while a Worker trains each agent type (torch)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from rlworkbench.agents import Agent, builtin_config
from rlworkbench.core import call_modes
from rlworkbench.execution import Worker, make_vector_env

NUM_ENVS = 4
PREPROCESSING = [{"type": "multiply", "factor": 0.5}, {"type": "clip", "low": -10.0, "high": 10.0}]


def config(kind: str) -> tuple[str, dict[str, Any]]:
    if kind == "dqn":
        cfg = builtin_config("dqn_cartpole")
        cfg["loss"]["n_step"] = 1
        cfg["update"].update(learning_starts=40, batch_size=8)
        return "CartPole-v1", {**cfg, "preprocessing": PREPROCESSING}
    if kind == "sac":
        cfg = builtin_config("sac_pendulum")
        cfg["update"].update(learning_starts=40, batch_size=8)
        return "Pendulum-v1", {**cfg, "preprocessing": PREPROCESSING}
    cfg = builtin_config("ppo_cartpole")
    cfg["update"].update(rollout_length=32, num_epochs=1)
    return "CartPole-v1", {**cfg, "preprocessing": PREPROCESSING}


class Counter:
    """Counts the rows that go through the agent's preprocessor stack (a call handler of this thread) and the calls
    of the root's API methods the agent makes (through ``agent.api``)."""

    def __init__(self, agent: Agent):
        self.agent, self.rows, self.root_calls = agent, 0, {}
        for name in agent.executor.graph.root_inputs:
            setattr(agent.api, name, self._counting(name, getattr(agent.api, name)))

    def _counting(self, name: str, call: Any) -> Any:
        def counted(*args: Any, **kwargs: Any) -> Any:
            self.root_calls[name] = self.root_calls.get(name, 0) + 1
            return call(*args, **kwargs)
        return counted

    def __call__(self, declared: Any, component: Any) -> Any:
        bound = component._built_calls.get(declared)
        if bound is None or component is not self.agent.preprocessor or declared.name != "preprocess":
            return None

        def counted(states: Any) -> Any:
            self.rows += int(states.shape[0])
            return bound(states)

        return counted


@pytest.mark.parametrize("kind", ["dqn", "sac", "ppo"])
def test_each_observation_is_preprocessed_once(kind):
    env_id, agent_config = config(kind)
    env = make_vector_env(env_id, num_envs=NUM_ENVS, seed=0)
    agent = Agent.from_env(env, agent_config, backend="torch", seed=0).build()
    worker = Worker(agent, env, progress=False)
    counter = Counter(agent)
    with call_modes.intercepting(counter):
        worker.run(timesteps=400)
    steps = worker.timesteps // NUM_ENVS
    ended = len(worker.episodes)
    # one row per observation; acting preprocesses again only right after an episode ended (the reset
    # observations differ from the stored next states), and PPO's returns bootstrap from a few next states
    assert worker.timesteps <= counter.rows <= worker.timesteps + NUM_ENVS * (1 + ended) + 64
    assert counter.rows < 1.5 * worker.timesteps  # it was 3 rows per observation: acting, then twice in observe
    acting = counter.root_calls.get("act", 0) + counter.root_calls.get("act_preprocessed", 0)
    assert acting == steps  # one call of the root per step to act ...
    assert counter.root_calls.get("preprocess", 0) <= counter.root_calls.get("update_minibatch", 0)  # never alone
    if kind != "ppo":
        assert counter.root_calls["insert_records"] == steps  # one call stores a step and preprocesses it
        assert counter.root_calls["act_preprocessed"] >= steps - ended - 1  # mostly acting on what was stored


def test_acting_on_other_states_than_those_stored_still_preprocesses_them():
    env_id, agent_config = config("dqn")
    agent = Agent.from_env(env_id, agent_config, backend="torch", seed=0).build()
    states = np.full((2, 4), 4.0, np.float32)
    expected_preprocessed = np.clip(states * 0.5, -10, 10)
    q_values = agent.get_q_values(states)
    agent.get_actions(states)
    np.testing.assert_allclose(agent.preprocessed_states.lookup(states), expected_preprocessed)
    agent.observe(states, np.zeros(2, np.int64), np.ones(2), np.zeros(2, bool), states + 1.0)
    np.testing.assert_allclose(agent.preprocessed_states.lookup(states + 1.0), np.clip((states + 1) * 0.5, -10, 10))
    states[:] = 8.0  # a buffer reused in place: its content decides, not its identity
    assert agent.preprocessed_states.lookup(states) is None
    np.testing.assert_allclose(agent.get_q_values(states), agent.get_q_values(states.copy()))
    assert q_values.shape == (2, 2)
