"""Replica towers change where the update runs, not what it computes: 1, 2 and 3 towers (3 on a batch of 32:
uneven shards) end with the weights — networks, optimizer slots, memory and its priorities — of a one-device
build after the same updates, for DQN with prioritised replay and 3-step returns, PPO (separate and shared value
network), SAC and discrete SAC."""

from __future__ import annotations

import numpy as np
import pytest
from multi_device_helpers import CONFIGS, largest_difference, train

DEVICES = [["cpu"], ["cpu", "cpu"], ["cpu", "cpu", "cpu"]]


@pytest.fixture(scope="module")
def one_device() -> dict[str, tuple]:
    return {kind: train(kind, "torch") for kind in CONFIGS}


@pytest.mark.parametrize("devices", DEVICES, ids=lambda d: f"{len(d)}_towers")
@pytest.mark.parametrize("kind", sorted(CONFIGS))
def test_towers_reach_the_weights_of_one_device(one_device, kind, devices):
    reference, reference_metrics = one_device[kind]
    weights, metrics = train(kind, "torch", devices)
    assert not any("tower" in name for name in weights)  # replicas are not the agent's weights
    assert largest_difference(weights, reference) < 1e-5
    for ours, theirs in zip(metrics, reference_metrics):
        assert ours.keys() == theirs.keys()
        np.testing.assert_allclose([ours[k] for k in ours], [theirs[k] for k in ours], rtol=1e-5, atol=1e-6)


def test_priorities_land_on_the_sampled_rows(one_device):
    weights, _ = train("dqn_per", "torch", ["cpu", "cpu", "cpu"])
    reference, _ = one_device["dqn_per"]
    tree, reference_tree = weights["memory/sum_tree/tree"], reference["memory/sum_tree/tree"]
    leaves = reference_tree[len(reference_tree) // 2:]  # one leaf per memory row: its priority ** alpha
    assert len(np.unique(np.round(leaves[leaves > 0], 6))) > 5  # priorities the updates wrote, not the initial max
    np.testing.assert_allclose(tree, reference_tree, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(weights["memory/max_priority"], reference["memory/max_priority"], rtol=1e-5)
