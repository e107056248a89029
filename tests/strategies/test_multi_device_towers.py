"""What a multi-device build is made of and how it behaves around the update: per-item outputs in batch order,
towers in sync, acting on the agent's own networks, checkpoints shared with one-device builds, typed errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from multi_device_helpers import CONFIGS, batch, make_agent, refused_step, td_errors

from rlworkbench.agents import Agent
from rlworkbench.components.strategies import ReplicaTowers
from rlworkbench.errors import ConfigError, SpaceError


def test_per_item_outputs_come_back_in_batch_order():
    towers, single = make_agent("dqn_per", "torch", ["cpu"] * 3), make_agent("dqn_per", "torch")
    start = single.get_weights()
    data = batch(32)
    order = np.random.default_rng(1).permutation(32)
    shuffled = {key: value[order] for key, value in data.items()}
    results = []
    for agent in (towers, single):
        agent.set_weights(start)
        first = td_errors(agent, data)
        agent.set_weights(start)
        results.append((first, td_errors(agent, shuffled)))
    (ours, ours_shuffled), (theirs, theirs_shuffled) = results
    assert len(np.unique(np.round(theirs, 5))) == 32  # every row its own error: a misplaced row would show
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ours_shuffled, theirs[order], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(theirs_shuffled, theirs[order], rtol=1e-5, atol=1e-6)


def test_towers_are_sub_trees_with_their_devices_and_stay_in_sync():
    agent = make_agent("sac", "torch", ["cpu", "cpu"])
    towers = agent.towers
    assert isinstance(towers, ReplicaTowers) and agent.devices == ["cpu", "cpu"]
    paths = {c.relative_path(agent.root) for c in towers.walk()}
    assert {"towers/tower_0/policy", "towers/tower_1/policy", "towers/tower_0/critics",
            "towers/tower_1/critics"} <= paths
    assert "towers/tower_0/temperature" not in paths  # trained without a batch: nothing to split
    assert [t.resolved_device for t in towers.towers] == ["cpu", "cpu"]
    data = {"states": np.random.default_rng(0).normal(size=(32, 3)).astype(np.float32),
            "actions": np.random.default_rng(1).uniform(-2, 2, (32, 1)).astype(np.float32),
            "rewards": np.zeros(32, np.float32), "terminals": np.zeros(32, bool),
            "next_states": np.random.default_rng(2).normal(size=(32, 3)).astype(np.float32)}
    before = agent.get_weights()
    agent.update(data)
    after = agent.get_weights()
    assert not np.allclose(after["policy/network/dense_0/kernel"], before["policy/network/dense_0/kernel"])
    for component in ("policy", "critics"):
        own = getattr(agent.root, component).get_weights()
        for copy in towers.copies_of(getattr(agent.root, component)):
            replica = copy.get_weights()
            assert replica.keys() == own.keys()
            for name in own:
                np.testing.assert_array_equal(replica[name], own[name])


def test_the_component_graph_routes_the_update_through_the_towers_and_acting_past_them():
    agent = make_agent("dqn_per", "torch", ["cpu", "cpu"])
    graph = agent.executor.graph
    forwards = graph.calls_of(agent.towers, "forward")
    assert forwards and all(call.caller.component is agent.root for call in forwards)
    learning = {id(c) for c in graph.subtree(graph.root_call("update_from_memory"))}
    acting = {id(c) for c in graph.subtree(graph.root_call("act"))}
    policy_calls = graph.calls_of(agent.root.policy)
    assert not any(id(c) in learning for c in policy_calls)  # the update uses the replicas only
    assert any(id(c) in acting for c in policy_calls) and not any(id(c) in acting for c in forwards)
    assert np.shape(agent.get_actions(np.zeros(4, np.float32))) == ()  # one state: no batch to split
    assert agent.get_actions(np.zeros((1, 4), np.float32)).shape == (1,)


def test_checkpoints_move_between_one_device_and_towers(tmp_path):
    trained = make_agent("dqn_per", "torch", ["cpu", "cpu"])
    trained.update(batch(32))
    trained.save(tmp_path / "towers")
    single = make_agent("dqn_per", "torch").load(tmp_path / "towers")
    weights = single.get_weights()
    for name, value in trained.get_weights().items():
        np.testing.assert_array_equal(weights[name], value)
    again = make_agent("dqn_per", "torch", ["cpu"] * 3, seed=9).load(tmp_path / "towers")
    for copy in again.towers.copies_of(again.root.policy):  # loading reaches the replicas too
        for name, value in copy.get_weights().items():
            np.testing.assert_array_equal(value, weights[f"policy/{name}"])


def test_config_key_and_rebuilding_on_one_device():
    env_id, config = CONFIGS["dqn_per"]
    agent = Agent.from_env(env_id, {**config, "execution": {"devices": ["cpu", "cpu"]}}, backend="torch", seed=0)
    agent.build()
    assert agent.devices == ["cpu", "cpu"] and "towers" in agent.root.sub_components
    agent.build(devices=["cpu"] * 3)
    assert agent.devices == ["cpu"] * 3 and len(agent.towers.towers) == 3
    plain = Agent.from_env(env_id, config, backend="torch", seed=0).build()
    assert plain.devices is None and "towers" not in plain.root.sub_components
    assert sorted(agent.get_weights()) == sorted(plain.get_weights())


@pytest.mark.parametrize(("devices", "key_path", "says"), [
    (["cpu", "nosuch"], "devices/1", "not a device name"),
    (["cuda:7"], "devices/0", "no device 'cuda:7'"),
    (0, "devices", "first 0 GPUs"),
    ("cpu", "devices", "number of GPUs or a list"),
])
def test_devices_that_do_not_exist_are_config_errors(devices, key_path, says):
    with pytest.raises(ConfigError) as caught:
        make_agent("dqn_per", "torch", devices)
    error = caught.value
    assert error.key_path == key_path and says in str(error)
    assert "cpu" in str(error.expected)  # what is available here


@pytest.mark.skipif(torch.cuda.device_count() > 0, reason="a machine with GPUs has GPUs to count")
def test_a_number_of_gpus_on_a_machine_without_them():
    with pytest.raises(ConfigError, match="first 2 GPUs, and 0 are here"):
        make_agent("dqn_per", "torch", 2)


def test_more_devices_than_rows_is_an_error_at_build_and_at_the_call():
    env_id, config = CONFIGS["dqn_per"]
    small = {**config, "update": {**config["update"], "batch_size": 2}}
    with pytest.raises(ConfigError, match="batch of 2 rows cannot be split over 3 devices"):
        Agent.from_env(env_id, small, backend="torch").build(devices=["cpu"] * 3)
    agent = make_agent("dqn_per", "torch", ["cpu"] * 3)
    before = agent.get_weights()
    with pytest.raises(SpaceError, match=r"2 rows cannot be split over 3 devices \['cpu', 'cpu', 'cpu'\]"):
        agent.update(batch(2))
    after = agent.get_weights()
    assert all(np.array_equal(after[name], before[name]) for name in before)
    with pytest.raises(SpaceError) as caught:  # the direct API call: the towers' own check
        td_errors(agent, batch(2))
    assert caught.value.component == "dqn/towers"


def test_ppo_minibatches_smaller_than_the_tower_count_are_refused_before_any_step():
    env_id, config = CONFIGS["ppo"]
    tiny = {**config, "update": {"rollout_length": 1, "num_epochs": 1, "num_minibatches": 2}}
    agent = Agent.from_env(env_id, tiny, backend="torch", seed=0).build(devices=["cpu"] * 3)
    states = np.zeros((2, 4), np.float32)
    actions = agent.get_actions(states)
    agent.observe(states, actions, np.ones(2, np.float32), np.zeros(2, bool), states)
    before = agent.get_weights()
    with pytest.raises(SpaceError, match="a batch of 1 rows cannot be split over 3 devices") as caught:
        agent.update()
    assert caught.value.argument == "minibatch"
    after = agent.get_weights()
    assert all(np.array_equal(after[name], before[name]) for name in before)


def test_an_explorer_rebuild_keeps_the_towers_and_their_weights():
    from rlworkbench.workbench import GraphExplorer

    agent, single = make_agent("dqn_per", "torch", ["cpu", "cpu"]), make_agent("dqn_per", "torch")
    agent.update(batch(32, seed=1))
    single.set_weights(agent.get_weights())
    explorer = GraphExplorer(agent)
    explorer.set_device("towers/tower_1", "cpu")
    explorer.rebuild()
    assert agent.devices == ["cpu", "cpu"] and agent.executor.graph.calls_of(agent.towers, "forward")
    data = batch(32, seed=2)
    np.testing.assert_allclose(td_errors(agent, data), td_errors(single, data), rtol=1e-5, atol=1e-6)
    ours, theirs = agent.get_weights(), single.get_weights()
    assert max(float(np.max(np.abs(ours[n].astype(float) - theirs[n]))) for n in theirs) < 1e-5


def test_a_refused_update_leaves_every_tower_on_the_unchanged_weights():
    """A non-finite loss changes no variable, and the towers are copied the weights as they are: still in sync."""
    assert refused_step("torch", ["cpu", "cpu"]) == {"unchanged": True, "towers_in_sync": True}
