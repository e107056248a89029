"""Replica towers on GPUs (skipped without CUDA): towers on ``cuda:0`` (and ``cuda:0, cuda:1`` with two GPUs) reach
the weights of a one-device build; the agent's own components sit on the first tower's device by default, and
tensors cross devices only where a tower's inputs and outputs do."""

from __future__ import annotations

import pytest
import torch
from multi_device_helpers import largest_difference, make_agent, train

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a GPU")


@pytest.mark.parametrize("kind", ["dqn_per", "ppo", "sac"])
def test_towers_on_one_gpu_match_one_device(kind):
    reference, _ = train(kind, "torch", None)
    weights, _ = train(kind, "torch", ["cuda:0", "cuda:0"])
    assert largest_difference(weights, reference) < 1e-4  # CPU and GPU kernels round differently


@pytest.mark.skipif(torch.cuda.device_count() < 2, reason="needs two GPUs")
@pytest.mark.parametrize("kind", ["dqn_per", "sac"])
def test_towers_on_two_gpus_match_one_gpu(kind):
    reference, _ = train(kind, "torch", ["cuda:0"])
    weights, _ = train(kind, "torch", ["cuda:0", "cuda:1"])
    assert largest_difference(weights, reference) < 1e-5


def test_the_agent_sits_on_the_first_tower_device():
    agent = make_agent("dqn_per", "torch", 1)
    assert agent.devices == ["cuda:0"]
    assert agent.root.resolved_device == "cuda:0" and agent.root.policy.resolved_device == "cuda:0"
    kernel = next(iter(agent.towers.copies_of(agent.root.policy)[0].variables(trainable_only=True).values()))
    assert kernel.device.type == "cuda"
