"""``promote(..., to="multi_gpu", devices=...)``: the local Run face with the agent's update on replica towers —
returns at once, trains, stops cleanly with a final checkpoint that loads on one device, names its towers."""

from __future__ import annotations

import time

import numpy as np
import pytest
from run_helpers import small_dqn, wait_until

from rlworkbench.agents import Agent
from rlworkbench.errors import ConfigError
from rlworkbench.workbench.promote import promote
from rlworkbench.workbench.targets import known_targets


def test_multi_gpu_is_a_registered_target():
    assert {"local", "multi_gpu"} <= set(known_targets())


def test_a_two_tower_run_trains_without_blocking_and_stops_cleanly(tmp_path):
    started = time.perf_counter()
    run = promote(small_dqn(learning_starts=64), to="multi_gpu", devices=["cpu", "cpu"], timesteps=50_000, seed=0,
                  logdir=tmp_path)
    assert time.perf_counter() - started < 10.0 and run.is_running
    assert run.devices == ["cpu", "cpu"] and "devices=['cpu', 'cpu']" in repr(run)
    wait_until(lambda: len(run.updates) >= 20, 120, "20 updates on the towers")
    run.stop()
    assert run.state == "stopped" and run.error is None
    assert 0 < run.timesteps < 50_000 and np.isfinite(run.updates["loss"]).all()
    agent = run.execution.agent
    assert agent.devices == ["cpu", "cpu"] and agent.updates >= 20
    run.widget()
    run.view.refresh()
    view = run.view
    assert "2 towers on cpu, cpu" in view.label.value
    final = run.checkpoint
    assert final is not None and final.name == "final"
    single = Agent.from_checkpoint(final, state_space=agent.state_space, action_space=agent.action_space,
                                   backend="torch")
    assert single.devices is None and single.updates == agent.updates
    for name, value in agent.get_weights().items():
        np.testing.assert_array_equal(single.get_weights()[name], value)
    run.close()


def test_a_built_agent_is_rebuilt_with_towers_keeping_its_weights(tmp_path):
    agent = Agent.from_env("CartPole-v1", small_dqn(), backend="torch", seed=1).build()
    before = agent.get_weights()
    run = promote(agent, to="multi_gpu", devices=["cpu"] * 3, env="CartPole-v1", timesteps=40, seed=0,
                  logdir=tmp_path)
    run.wait(timeout=60)
    assert agent.devices == ["cpu"] * 3 and agent.timesteps == 40 and agent.updates == 0
    after = agent.get_weights()
    for name in before:
        if not name.startswith("memory/"):  # the 40 steps went into the memory
            np.testing.assert_array_equal(after[name], before[name])
    run.close()


@pytest.mark.parametrize(("settings", "says"), [
    ({"devices": ["cpu", "gpu:7"]}, "no device 'gpu:7'"),
    ({}, "needs devices= on a machine without GPUs"),
    ({"devices": ["cpu"], "colour": "red"}, "unknown settings"),
])
def test_bad_devices_fail_in_the_caller(tmp_path, settings, says):
    import torch

    if not settings and torch.cuda.is_available():
        pytest.skip("this machine has GPUs to default to")
    with pytest.raises(ConfigError, match=says):
        promote(small_dqn(), to="multi_gpu", timesteps=100, logdir=tmp_path, **settings)


def test_a_prototype_must_build_on_devices(tmp_path):
    """The target asks the BuildsOnDevices protocol (build(devices=), devices, executor, weights), not build's
    signature: an agent without them is a ConfigError in the caller; an Agent, built or not, has them."""
    from rlworkbench.agents.protocols import BuildsOnDevices
    from rlworkbench.agents.random_agent import RandomAgent
    from rlworkbench.spaces import FloatBox, IntBox

    random_agent = RandomAgent(FloatBox(shape=(4,)), IntBox(2), seed=0)
    assert not isinstance(random_agent, BuildsOnDevices)
    with pytest.raises(ConfigError, match="trains agents that build with devices=") as info:
        promote(random_agent, to="multi_gpu", devices=["cpu"], env="CartPole-v1", timesteps=10, logdir=tmp_path)
    assert info.value.argument == "prototype" and info.value.got == "RandomAgent"
    agent = Agent.from_config(small_dqn(), state_space=FloatBox(shape=(4,)), action_space=IntBox(2),
                              backend="torch")
    assert isinstance(agent, BuildsOnDevices) and isinstance(agent.build(), BuildsOnDevices)
