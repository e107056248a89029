"""Device maps: glob patterns over component paths, most specific wins, unused patterns are errors."""

from __future__ import annotations

import pytest
import torch
from core_components import STATES, Agent

from rlworkbench import ConfigError, build
from rlworkbench.backends.torch import TorchBackend
from rlworkbench.core.builder import resolve_devices


class Verbatim:
    """A stand-in backend whose device spelling is the map's own."""

    def normalize_device(self, device):
        return device or "default"


def resolved(device_map, root=None):
    root = root or Agent()
    devices = resolve_devices(root, device_map, Verbatim())
    return {c.relative_path(root) or c.name: devices[id(c)] for c in root.walk()}


def test_patterns_resolve_per_component():
    assert resolved({"net/*": "gpu:0"}) == {
        "agent": "default", "net": "default", "head": "default", "net/dense_0": "gpu:0", "net/dense_1": "gpu:0"}


def test_children_inherit_and_own_devices_count():
    root = Agent(device="cpu")
    root.head.device = "gpu:1"
    assert resolved({"net": "gpu:0"}, root) == {
        "agent": "cpu", "net": "gpu:0", "head": "gpu:1", "net/dense_0": "gpu:0", "net/dense_1": "gpu:0"}


def test_the_most_specific_pattern_wins():
    devices = resolved({"*": "a", "net/*": "b", "net/dense_1": "c", "agent/head": "d"})
    assert devices == {"agent": "default", "net": "a", "head": "d", "net/dense_0": "b", "net/dense_1": "c"}


def test_a_pattern_matching_nothing_is_a_config_error():
    with pytest.raises(ConfigError) as info:
        resolved({"net/*": "a", "policy/*": "b"})
    assert info.value.got == ["policy/*"]
    assert "net/dense_0" in info.value.expected
    with pytest.raises(ConfigError):
        build(Agent(), {"states": STATES}, device_map={"nothing": "cpu"})


def test_torch_normalises_device_names():
    backend = TorchBackend()
    assert backend.normalize_device(None) == "cpu"
    assert backend.normalize_device("/CPU:0") == "cpu"
    assert backend.normalize_device("/device:CPU:0") == "cpu"
    assert backend.normalize_device("/GPU:1") == "cuda:1"
    assert backend.normalize_device("gpu") == "cuda"
    assert backend.normalize_device("CPU") == "cpu"


def test_build_sets_normalised_resolved_devices():
    root = Agent()
    build(root, {"states": STATES}, device_map={"net/*": "/CPU:0", "head": "CPU"})
    assert {c.path: c.resolved_device for c in root.walk()} == dict.fromkeys(
        ["agent", "agent/net", "agent/head", "agent/net/dense_0", "agent/net/dense_1"], "cpu")
    assert root.net.layers[0].kernel.device.type == "cpu"


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a GPU")
def test_a_sub_component_on_another_device_runs_there():
    root = Agent()
    executor = build(root, {"states": STATES}, device_map={"net/*": "/GPU:0"}, seed=0)
    assert root.net.layers[0].resolved_device == "cuda:0" and root.head.resolved_device == "cpu"
    assert root.net.layers[0].kernel.device.type == "cuda" and root.head.factor.device.type == "cpu"
    assert executor.execute("act", STATES.sample(2, seed=0)).shape == (2, 2)
    assert executor.call("net/dense_0", "apply", STATES.sample(2, seed=0)).shape == (2, 4)
