"""Helpers for the TensorBoard export tests: a small DQN agent, a stateful plain-component root, event readers."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

from rlworkbench import Component, api
from rlworkbench.components import NeuralNetwork
from rlworkbench.components.preprocessing import FrameStack

#: A DQN small enough to build and update in a blink: one hidden layer, a tiny memory, learning from step 32.
SMALL_DQN: dict[str, Any] = {
    "type": "dqn",
    "policy": {"network": [{"type": "dense", "units": 16, "activation": "relu"}]},
    "memory": {"type": "replay_memory", "capacity": 64},
    "update": {"batch_size": 8, "learning_starts": 32, "update_interval": 4, "gradient_steps": 1},
}


def small_dqn(backend: str, seed: int = 0) -> Any:
    """The built :data:`SMALL_DQN` agent for CartPole on ``backend``."""
    from rlworkbench.agents import Agent

    return Agent.from_env("CartPole-v1", SMALL_DQN, backend=backend, seed=seed).build()


def randomize_weights(agent: Any, seed: int) -> dict[str, np.ndarray]:
    """Gives every variable random values of its dtype (so no two components look alike); returns them."""
    rng = np.random.default_rng(seed)
    weights = {}
    for name, value in agent.get_weights().items():
        if value.dtype.kind == "f":
            weights[name] = rng.normal(0.0, 1.0 + rng.random(), value.shape).astype(value.dtype)
        elif value.dtype.kind == "b":
            weights[name] = rng.random(value.shape) < 0.5
        else:
            weights[name] = rng.integers(0, 3, value.shape).astype(value.dtype)
    agent.set_weights(weights)
    return weights


def own_weights(root: Component, weights: dict[str, np.ndarray]) -> dict[str, dict[str, np.ndarray]]:
    """``weights`` (scoped names below ``root``) grouped by the component that created each variable."""
    grouped = {}
    for component in root.walk():
        prefix = component.relative_path(root)
        own = {name: weights[f"{prefix}/{name}" if prefix else name] for name in component._variables}
        if own:
            grouped[component.path] = own
    return grouped


def read_events(logdir: Path) -> EventAccumulator:
    """Every event under ``logdir`` (nothing sampled away)."""
    accumulator = EventAccumulator(str(logdir), size_guidance={"scalars": 0, "histograms": 0, "graph": 1})
    accumulator.Reload()
    return accumulator


_TORCH_SCOPE = re.compile(r"[^/\[\]]+\[([^\]]+)\]")


def scope_paths(accumulator: EventAccumulator) -> list[str]:
    """The graph's node names, torch's ``Class[name]`` scopes read as ``name`` (so both backends give component
    paths: ``dqn/policy/network/dense_0/...``)."""
    return [_TORCH_SCOPE.sub(r"\1", node.name) for node in accumulator.Graph().node]


class StackedValues(Component):
    """``values(states)``: a stateful frame stack (its buffer changes on every call) → a dense layer."""

    def __init__(self, batch_size: int, **kwargs: Any):
        self.stack = FrameStack(2, batch_size=batch_size, name="stack")
        self.network = NeuralNetwork([{"type": "dense", "units": 3}], name="network")
        super().__init__(self.stack, self.network, **kwargs)

    @api
    def values(self, states: Any) -> Any:
        return self.network.apply(self.stack.preprocess(states))
